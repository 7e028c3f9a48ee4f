#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stress suite: verifying load in every policy with memory oversubscribed
# 2x -- stress-ng --vm --verify and our own workloads, three cgroups
# swapping at once -- on the disk swap device and on zram (the
# SWP_SYNCHRONOUS_IO swap-in path), THP swap-out and swap-in, a cgroup whose
# swap is exhausted (the OOM killer may act, data must stay intact), and a
# cgroup deleted while its pages sit in swap with shadows, whose pages then
# refault in another cgroup.  THP swap-out runs on zram: it needs a
# non-rotational device.
#   AWS_STRESS_SECONDS (default 8): seconds per policy and timed load.
#   AWS_LIMIT_MB (default 48): the cgroup limit L; the loads are 2L (8L/3
#   where swap must run out), so the oversubscription stays 2x.
. "$AWS_TOOLS/guest/lib.sh"

SECS=${AWS_STRESS_SECONDS:-8}
L=${AWS_LIMIT_MB:-48}
L2=$((2 * L)) L8=$((8 * L / 3))
WRITES=$(randw_writes "$L2")	# touch 1.6L of the 2L region: well over L
POLICIES=(stock baseline protect detect upstream)
mod_unload
insmod "$AWS_MOD" || { fail insmod; ktap_end; exit 1; }

# verdict NAME RC OUT ERR: a verifying workload's outcome; its RESULT line
# must say verify_fail=0 (an OOM kill, exit 137, is allowed when ALLOW_OOM=1).
verdict() {
	local name=$1 rc=$2 res
	res=$(grep '^RESULT' "$3")
	[ -n "$res" ] && diag "$res"
	if [ "$rc" = 0 ] && [ "$(result_get "$res" verify_fail)" = 0 ]; then
		ok "$name # $(result_get "$res" pages_verified) pages verified"
	elif [ "$rc" = 137 ] && [ "${ALLOW_OOM:-0}" = 1 ]; then
		ok "$name # OOM-killed as allowed, no verification failure before"
	else
		fail "$name" "exit $rc $(grep -m1 VERIFY_FAIL "$4")"
	fi
}
# verified NAME CMD...: run a verifying workload and judge it.
verified() {
	local name=$1
	shift
	"$@" >/tmp/verified.out 2>/tmp/verified.err
	verdict "$name" $? /tmp/verified.out /tmp/verified.err
}

# In each policy, three loads at once, each in its own cgroup (limit L):
# stress-ng's verifying vm stressor, aws-randw and aws-zipf.
for p in "${POLICIES[@]}"; do
	set_policy "$p"
	cg_run sng ${L}M stress-ng --vm 1 --vm-bytes ${L2}M --vm-method all --verify \
		--timeout "${SECS}s" >/tmp/sng.out 2>&1 &
	sng=$!
	cg_run rw ${L}M aws-randw --size ${L2}M --threads 2 --seconds "$SECS" --verify-writes \
		>/tmp/rw.out 2>/tmp/rw.err &
	rw=$!
	cg_run zp ${L}M aws-zipf --size ${L2}M --seconds "$SECS" --alpha 0.9 \
		>/tmp/zp.out 2>/tmp/zp.err &
	zp=$!
	wait $sng
	rc=$?
	if [ $rc = 0 ] && ! grep -qi 'fail\|corrupt' /tmp/sng.out; then
		ok "stress_ng_vm_verify_$p # ${L2}M in a ${L}M cgroup, ${SECS}s"
	else
		fail "stress_ng_vm_verify_$p" "exit $rc: $(grep -i 'fail\|error' /tmp/sng.out | head -n 2)"
	fi
	wait $rw
	verdict "randw_2x_$p" $? /tmp/rw.out /tmp/rw.err
	wait $zp
	verdict "zipf_2x_$p" $? /tmp/zp.out /tmp/zp.err
done

# zram only: swap-ins take the SWP_SYNCHRONOUS_IO path of do_swap_page().
if [ -e /sys/block/zram0 ] && echo 256M >/sys/block/zram0/disksize &&
	mkswap -q /dev/zram0 >/dev/null && swapon /dev/zram0 && swapoff /dev/vdc; then
	ok zram_swap_on
	for p in detect baseline upstream; do
		set_policy "$p"
		echo reset >/proc/anon_workingset
		# A write count, not a duration: it must swap on any kernel.
		verified "zram_randw_$p" cg_run zr ${L}M aws-randw --size ${L2}M --threads 1 \
			--writes "$WRITES" --verify-writes
		expect "zram_swapins_seen_$p" swapins "$(aws_stat swapins)" -gt 0
		if [ "$p" = baseline ]; then
			expect "zram_no_refaults_$p" refaults "$(aws_stat refaults)" -eq 0
		else
			expect "zram_refaults_$p" refaults "$(aws_stat refaults)" -gt 0
		fi
	done

	# THP swap-out needs a non-rotational device (swap clusters): zram.
	set_policy detect
	thp=/sys/kernel/mm/transparent_hugepage/enabled
	old_thp=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp")
	echo always >"$thp"
	t0=$(vmstat thp_swpout)
	verified thp_randw_detect cg_run thp $((L8 / 2))M aws-randw --size ${L8}M --threads 1 --thp \
		--seconds "$SECS" --verify-writes
	expect thp_swapped_out_whole thp_swpout $(($(vmstat thp_swpout) - t0)) -gt 0
	echo "$old_thp" >"$thp"
	swapon /dev/vdc && swapoff /dev/zram0 && echo 1 >/sys/block/zram0/reset
	check disk_swap_back grep -q '^/dev/vdc ' /proc/swaps
else
	fail zram_swap_on "could not set up zram swap"
	swapon /dev/vdc 2>/dev/null
fi

# Swap exhausted inside a cgroup: L/3 of swap for an 8L/3 working set.
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/exhaust
echo $((L / 3))M >/sys/fs/cgroup/exhaust/memory.swap.max
for p in detect baseline; do
	set_policy "$p"
	ALLOW_OOM=1 verified "swap_exhausted_$p" cg_run exhaust ${L}M aws-randw --size ${L8}M \
		--threads 1 --writes $((WRITES * 3 / 2)) --verify-writes
	mkdir -p /sys/fs/cgroup/exhaust && echo $((L / 3))M >/sys/fs/cgroup/exhaust/memory.swap.max
done
rmdir /sys/fs/cgroup/exhaust

# A cgroup deleted while its pages are in swap with shadows; the task goes
# on in another cgroup and refaults them there.
set_policy detect
mkdir -p /sys/fs/cgroup/dead /sys/fs/cgroup/heir
echo ${L}M >/sys/fs/cgroup/dead/memory.max
echo ${L}M >/sys/fs/cgroup/heir/memory.max
in0=$(vmstat pswpin)
(echo $BASHPID >/sys/fs/cgroup/dead/cgroup.procs &&
	exec aws-zipf --size ${L2}M --seconds 120 --alpha 0.5) >/tmp/dead.out 2>&1 &
pid=$!
for i in $(seq 1 100); do	# until its pages are in swap and refaulting
	[ "$(vmstat pswpin)" -gt $((in0 + 1000)) ] && break
	sleep 0.2
done
echo "$pid" >/sys/fs/cgroup/heir/cgroup.procs
check dead_cgroup_removed rmdir /sys/fs/cgroup/dead
in1=$(vmstat pswpin)
sleep "$SECS"
expect refaults_in_heir pswpin $(($(vmstat pswpin) - in1)) -gt 0
cg_stop heir
wait "$pid"
rc=$?
res=$(grep '^RESULT' /tmp/dead.out)
diag "$res"
if [ $rc = 0 ] && [ "$(result_get "$res" verify_fail)" = 0 ]; then
	ok "refault_after_cgroup_deleted # $(result_get "$res" pages_verified) pages verified"
else
	fail refault_after_cgroup_deleted "exit $rc"
fi
rmdir /sys/fs/cgroup/heir
diag "refaults $(aws_stat refaults), stale $(aws_stat refaults_stale)"
check rmmod rmmod anon_workingset
ktap_end
