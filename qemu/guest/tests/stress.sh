#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stress suite: verifying load in every policy with memory oversubscribed
# 2x -- stress-ng --vm --verify and our own workloads -- on the disk swap
# device and on zram (the SWP_SYNCHRONOUS_IO swap-in path), THP swap-out and
# swap-in, a cgroup whose swap is exhausted (the OOM killer may act, data
# must stay intact), and a cgroup deleted while its pages sit in swap with
# shadows, whose pages then refault in another cgroup.  THP swap-out runs
# on zram: it needs a non-rotational device.
#   AWS_STRESS_SECONDS (default 8): seconds per policy and load.
. "$AWS_TOOLS/guest/lib.sh"

SECS=${AWS_STRESS_SECONDS:-8}
POLICIES=(stock baseline protect detect upstream)
mod_unload
insmod "$AWS_MOD" || { fail insmod; ktap_end; exit 1; }

# verified NAME CMD...: run a verifying workload, its RESULT line must say
# verify_fail=0 (an OOM kill, exit 137, is allowed when ALLOW_OOM=1).
verified() {
	local name=$1 out rc
	shift
	out=$("$@" 2>/tmp/verified.err)
	rc=$?
	local res
	res=$(echo "$out" | grep '^RESULT')
	[ -n "$res" ] && diag "$res"
	if [ $rc = 0 ] && [ "$(result_get "$res" verify_fail)" = 0 ]; then
		ok "$name # $(result_get "$res" pages_verified) pages verified"
	elif [ $rc = 137 ] && [ "${ALLOW_OOM:-0}" = 1 ]; then
		ok "$name # OOM-killed as allowed, no verification failure before"
	else
		fail "$name" "exit $rc $(grep -m1 VERIFY_FAIL /tmp/verified.err)"
	fi
}

for p in "${POLICIES[@]}"; do
	set_policy "$p"
	out=$(cg_run sng 48M stress-ng --vm 1 --vm-bytes 96M --vm-method all --verify \
		--timeout "${SECS}s" 2>&1)
	rc=$?
	if [ $rc = 0 ] && ! echo "$out" | grep -qi 'fail\|corrupt'; then
		ok "stress_ng_vm_verify_$p # 96M in a 48M cgroup, ${SECS}s"
	else
		fail "stress_ng_vm_verify_$p" "exit $rc: $(echo "$out" | grep -i 'fail\|error' | head -n 2)"
	fi
	verified "randw_2x_$p" cg_run rw 48M aws-randw --size 96M --threads 2 --seconds "$SECS" \
		--verify-writes
	verified "zipf_2x_$p" cg_run zp 48M aws-zipf --size 96M --seconds "$SECS" --alpha 0.9
done

# zram only: swap-ins take the SWP_SYNCHRONOUS_IO path of do_swap_page().
if [ -e /sys/block/zram0 ] && echo 256M >/sys/block/zram0/disksize &&
	mkswap -q /dev/zram0 >/dev/null && swapon /dev/zram0 && swapoff /dev/vdc; then
	ok zram_swap_on
	for p in detect baseline upstream; do
		set_policy "$p"
		echo reset >/proc/anon_workingset
		# A write count, not a duration: it must exceed the limit on any kernel.
		verified "zram_randw_$p" cg_run zr 48M aws-randw --size 96M --threads 1 \
			--writes 40000 --verify-writes
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
	verified thp_randw_detect cg_run thp 64M aws-randw --size 128M --threads 1 --thp \
		--seconds "$SECS" --verify-writes
	expect thp_swapped_out_whole thp_swpout $(($(vmstat thp_swpout) - t0)) -gt 0
	echo "$old_thp" >"$thp"
	swapon /dev/vdc && swapoff /dev/zram0 && echo 1 >/sys/block/zram0/reset
	check disk_swap_back grep -q '^/dev/vdc ' /proc/swaps
else
	fail zram_swap_on "could not set up zram swap"
	swapon /dev/vdc 2>/dev/null
fi

# Swap exhausted inside a cgroup: 16M of swap for a 128M working set.
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/exhaust
echo 16M >/sys/fs/cgroup/exhaust/memory.swap.max
for p in detect baseline; do
	set_policy "$p"
	ALLOW_OOM=1 verified "swap_exhausted_$p" cg_run exhaust 48M aws-randw --size 128M \
		--threads 1 --writes 60000 --verify-writes
	mkdir -p /sys/fs/cgroup/exhaust && echo 16M >/sys/fs/cgroup/exhaust/memory.swap.max
done
rmdir /sys/fs/cgroup/exhaust

# A cgroup deleted while its pages are in swap with shadows; the task goes
# on in another cgroup and refaults them there.
set_policy detect
mkdir -p /sys/fs/cgroup/dead /sys/fs/cgroup/heir
echo 48M >/sys/fs/cgroup/dead/memory.max
echo 48M >/sys/fs/cgroup/heir/memory.max
(echo $BASHPID >/sys/fs/cgroup/dead/cgroup.procs &&
	exec aws-zipf --size 96M --seconds $((SECS + 6)) --alpha 0.5) >/tmp/dead.out 2>&1 &
pid=$!
sleep 4
echo "$pid" >/sys/fs/cgroup/heir/cgroup.procs
check dead_cgroup_removed rmdir /sys/fs/cgroup/dead
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
