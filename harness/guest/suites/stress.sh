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
# non-rotational device.  Every window must really have swapped in (pswpin
# grew during it), and every verifying run is judged on its verification,
# OOM-killed ones included.
#   AWS_STRESS_SECONDS (default 8): seconds per policy and timed load.
#   AWS_LIMIT_MB (default 48): the cgroup limit L; the loads are 2L (8L/3
#   where swap must run out), so the oversubscription stays 2x.
. "$AWS_TOOLS/guest/lib.sh"

SECS=${AWS_STRESS_SECONDS:-8}
L=${AWS_LIMIT_MB:-48}
L2=$((2 * L)) L8=$((8 * L / 3))
WRITES=$(randw_writes "$L2")	# touch 1.6L of the 2L region: well over L
mod_unload
read -r -a POLICIES <<<"$(aws_policies)"
insmod "$AWS_MOD" || bail insmod "insmod failed"

# verdict NAME RC OUT ERR [IN0]: a verifying workload's outcome; its RESULT
# line must say verify_fail=0.  An OOM kill (exit 137) is allowed when
# ALLOW_OOM=1, if no verification failure was reported before it, neither
# on stderr nor in a RESULT line.  IN0: pswpin must also have grown since.
verdict() {
	local name=$1 rc=$2 res vf d=
	res=$(grep '^RESULT' "$3")
	vf=$(result_get "$res" verify_fail)
	[ -n "$res" ] && diag "$res"
	[ -n "${5:-}" ] && d=$(($(vmstat pswpin) - $5))
	if [ -n "$d" ] && [ "$d" -le 0 ]; then
		fail "$name" "no swap-in during the run (pswpin +$d), exit $rc, verify_fail '$vf'"
	elif [ "$rc" = 0 ] && [ "$vf" = 0 ]; then
		ok "$name # $(result_get "$res" pages_verified) pages verified${d:+, pswpin +$d}"
	elif [ "$rc" = 137 ] && [ "${ALLOW_OOM:-0}" = 1 ] && ! grep -q VERIFY_FAIL "$4" &&
		{ [ -z "$res" ] || [ "$vf" = 0 ]; }; then
		ok "$name # OOM-killed as allowed, no verification failure before${d:+, pswpin +$d}"
	else
		fail "$name" "exit $rc, verify_fail '$vf' $(grep -m1 VERIFY_FAIL "$4")"
	fi
}
# verified NAME CMD...: run a verifying workload and judge it, swap-ins
# during it required.
verified() {
	local name=$1 in0
	shift
	in0=$(vmstat pswpin)
	"$@" >/tmp/verified.out 2>/tmp/verified.err
	verdict "$name" $? /tmp/verified.out /tmp/verified.err "$in0"
}

# In each policy, three loads at once, each in its own cgroup (limit L):
# stress-ng's verifying vm stressor, aws-randw and aws-zipf.  One case per
# load over every policy the module offers (so the count does not depend
# on how many there are), the verdict of each policy in its diagnostics.
# per_policy LOAD POLICY "ok|not ok # why": record; each NAME LOAD: the case.
declare -A FAILED
per_policy() {
	diag "$1 $2: ${3:-not ok # no verdict}"
	case $3 in ok*) ;; *) FAILED[$1]+=" $2" ;; esac
}
each() {
	if [ -z "${FAILED[$2]:-}" ]; then ok "$1 # ${#POLICIES[@]} policies"
	else fail "$1" "failed under:${FAILED[$2]}"; fi
}
for p in "${POLICIES[@]}"; do
	set_policy "$p"
	in0=$(vmstat pswpin)
	cg_run sng "${L}M" stress-ng --vm 1 --vm-bytes ${L2}M --vm-method all --verify \
		--timeout "${SECS}s" >/tmp/sng.out 2>&1 &
	sng=$!
	cg_run rw "${L}M" aws-randw --size ${L2}M --threads 2 --seconds "$SECS" --verify-writes \
		>/tmp/rw.out 2>/tmp/rw.err &
	rw=$!
	cg_run zp "${L}M" aws-zipf --size ${L2}M --seconds "$SECS" --alpha 0.9 \
		>/tmp/zp.out 2>/tmp/zp.err &
	zp=$!
	wait $sng
	rc=$?
	if [ $rc = 0 ] && ! grep -qi 'fail\|corrupt' /tmp/sng.out; then
		per_policy sng "$p" "ok # ${L2}M in a ${L}M cgroup, ${SECS}s"
	else
		per_policy sng "$p" "not ok # exit $rc: $(grep -i 'fail\|error' /tmp/sng.out | head -n 2)"
	fi
	wait $rw
	per_policy rw "$p" "$(verdict randw $? /tmp/rw.out /tmp/rw.err | grep -E '^(not )?ok ')"
	wait $zp
	per_policy zp "$p" "$(verdict zipf $? /tmp/zp.out /tmp/zp.err | grep -E '^(not )?ok ')"
	d=$(($(vmstat pswpin) - in0))
	if [ $d -gt 0 ]; then per_policy win "$p" "ok # pswpin +$d"
	else per_policy win "$p" "not ok # pswpin +$d"; fi
done
each stress_ng_vm_verify_each sng
each randw_2x_each rw
each zipf_2x_each zp
each window_swapped_in_each win

# zram only: swap-ins take the SWP_SYNCHRONOUS_IO path of do_swap_page().
# The cases run (and fail) even when zram could not be set up, so the
# count stays the same.
zram=0
if [ -e /sys/block/zram0 ] && echo 256M >/sys/block/zram0/disksize &&
	mkswap -q -U clear /dev/zram0 >/dev/null && swapon /dev/zram0 && swapoff /dev/vdc; then
	zram=1
	ok "zram_swap_on # $(grep -c zram0 /proc/swaps) zram device the only swap"
else
	fail zram_swap_on "could not set up zram swap"
	swapon /dev/vdc 2>/dev/null
fi
for p in detect baseline upstream; do
	if [ $zram = 0 ]; then
		fail "zram_randw_$p" "no zram swap"
		fail "zram_judged_$p" "no zram swap"
		continue
	fi
	set_policy "$p"
	echo reset >/proc/anon_workingset
	# A write count, not a duration: it must swap on any kernel.
	verified "zram_randw_$p" cg_run zr "${L}M" aws-randw --size ${L2}M --threads 1 \
		--writes "$WRITES" --verify-writes
	# The swap-in hook ran on the zram path: detect and upstream judge
	# refaults from their shadows, baseline stores none.
	sw=$(aws_stat swapins) rf=$(aws_stat refaults)
	if [ "$p" = baseline ]; then
		if [ "$sw" -gt 0 ] && [ "$rf" = 0 ]; then
			ok "zram_judged_$p # swapins $sw, refaults 0"
		else
			fail "zram_judged_$p" "swapins $sw (want > 0), refaults $rf (want 0)"
		fi
	else
		expect "zram_judged_$p" refaults "$rf" -gt 0
	fi
done

# THP swap-out needs a non-rotational device (swap clusters): zram.
if [ $zram = 1 ]; then
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
else
	fail thp_randw_detect "no zram swap"
	fail thp_swapped_out_whole "no zram swap"
fi
check disk_swap_back grep -q '^/dev/vdc ' /proc/swaps

# Swap exhausted inside a cgroup: L/3 of swap for an 8L/3 working set.
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/exhaust
echo $((L / 3))M >/sys/fs/cgroup/exhaust/memory.swap.max
for p in detect baseline; do
	set_policy "$p"
	ALLOW_OOM=1 verified "swap_exhausted_$p" cg_run exhaust "${L}M" aws-randw --size ${L8}M \
		--threads 1 --writes $((WRITES * 3 / 2)) --verify-writes
	mkdir -p /sys/fs/cgroup/exhaust && echo $((L / 3))M >/sys/fs/cgroup/exhaust/memory.swap.max
done
rmdir /sys/fs/cgroup/exhaust

# A cgroup deleted while its pages are in swap with shadows; the task goes
# on in another cgroup and refaults them there.
set_policy detect
echo reset >/proc/anon_workingset
mkdir -p /sys/fs/cgroup/dead /sys/fs/cgroup/heir
echo "${L}M" >/sys/fs/cgroup/dead/memory.max
echo "${L}M" >/sys/fs/cgroup/heir/memory.max
in0=$(vmstat pswpin)
(echo $BASHPID >/sys/fs/cgroup/dead/cgroup.procs &&
	exec aws-zipf --size ${L2}M --seconds 120 --alpha 0.5) >/tmp/dead.out 2>&1 &
pid=$!
for _ in $(seq 1 100); do	# until its pages are in swap and refaulting
	[ "$(vmstat pswpin)" -gt $((in0 + 1000)) ] && break
	sleep 0.2
done
echo "$pid" >/sys/fs/cgroup/heir/cgroup.procs
ev=$(aws_stat evictions)
if [ "$ev" -le 0 ]; then
	fail dead_cgroup_removed "no shadows stored before the removal (evictions $ev)"
	rmdir /sys/fs/cgroup/dead
else
	check dead_cgroup_removed rmdir /sys/fs/cgroup/dead
fi
in1=$(vmstat pswpin)
sleep "$SECS"
expect refaults_in_heir pswpin $(($(vmstat pswpin) - in1)) -gt 0
cg_stop heir
wait "$pid"
verdict refault_after_cgroup_deleted $? /tmp/dead.out /tmp/dead.out
rmdir /sys/fs/cgroup/heir
diag "refaults $(aws_stat refaults), stale $(aws_stat refaults_stale)"
check rmmod rmmod anon_workingset
ktap_end
