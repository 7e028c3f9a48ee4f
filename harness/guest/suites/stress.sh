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
# OOM-killed ones included.  On 6.12, BPF policies are attached,
# updated and detached again and again while such loads swap.
#   STRESS_SECONDS (default 8): seconds per policy and timed load.
#   LIMIT_MB (default 48): the cgroup limit L; the loads are 2L (8L/3
#   where swap must run out), so the oversubscription stays 2x.
. "$AWS_TOOLS/guest/lib.sh"

SECS=${STRESS_SECONDS:-8}
L=${LIMIT_MB:-48}
L2=$((2 * L)) L8=$((8 * L / 3))
WRITES=$(randw_writes "$L2")	# touch 1.6L of the 2L region: well over L
mod_unload
read -r -a POLICIES <<<"$(aws_policies)"
insmod "$AWS_MOD" || bail insmod "insmod failed"

# verdict NAME RC OUT ERR [IN0 [WHY]]: a verifying workload's outcome; its
# RESULT line must say verify_fail=0.  An OOM kill (exit 137) is allowed
# when ALLOW_OOM=1, if no verification failure was reported before it,
# neither on stderr nor in a RESULT line.  IN0: pswpin must also have grown
# since.  WHY: a condition of the case that failed (empty: none).
verdict() {
	local name=$1 rc=$2 res vf d=
	res=$(grep '^RESULT' "$3")
	vf=$(result_get "$res" verify_fail)
	[ -n "$res" ] && diag "$res"
	[ -n "${5:-}" ] && d=$(($(vmstat pswpin) - $5))
	if [ -n "$d" ] && [ "$d" -le 0 ]; then
		fail "$name" "no swap-in during the run (pswpin +$d), exit $rc, verify_fail '$vf'"
	elif [ -n "${6:-}" ]; then
		fail "$name" "$6; exit $rc, verify_fail '$vf'"
	elif [ "$rc" = 0 ] && [ "$vf" = 0 ]; then
		ok "$name # $(result_get "$res" pages_verified) pages verified${d:+, pswpin +$d}"
	elif [ "$rc" = 137 ] && [ "${ALLOW_OOM:-0}" = 1 ] && ! grep -q VERIFY_FAIL "$4" &&
		{ [ -z "$res" ] || [ "$vf" = 0 ]; }; then
		ok "$name # OOM-killed as allowed, no verification failure before${d:+, pswpin +$d}"
	else
		fail "$name" "exit $rc, verify_fail '$vf' $(grep -m1 VERIFY_FAIL "$4")"
	fi
}
# vrun CMD...: run a verifying workload; its exit status in VRC, pswpin
# before it in VIN0, the swap-ins during it in D.
vrun() {
	VIN0=$(vmstat pswpin)
	"$@" >/tmp/verified.out 2>/tmp/verified.err
	VRC=$?
	D=$(($(vmstat pswpin) - VIN0))
}
# verified NAME CMD...: run a verifying workload and judge it, swap-ins
# during it required (D set as by vrun).
verified() {
	local name=$1
	shift
	vrun "$@"
	verdict "$name" "$VRC" /tmp/verified.out /tmp/verified.err "$VIN0"
}

# In each policy, three loads at once, each in its own cgroup (limit L):
# stress-ng's verifying vm stressor, aws-randw and aws-zipf.  One case per
# load over every policy the module offers (so the count does not depend
# on how many there are), the verdict of each policy in its diagnostics;
# each load must have swapped in during its policy's window.  No OOM kill
# is allowed: stress-ng restarts an OOM-killed worker and still reports
# success, so its case reads the kernel's oom_kill count over the window.
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
	in0=$(vmstat pswpin) k0=$(vmstat oom_kill)
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
	wait $rw
	rwrc=$?
	wait $zp
	zprc=$?
	dk=$(($(vmstat oom_kill) - k0))
	if [ $rc = 0 ] && [ $dk = 0 ] && ! grep -qi 'fail\|corrupt' /tmp/sng.out; then
		per_policy sng "$p" "ok # ${L2}M in a ${L}M cgroup, ${SECS}s, no OOM kill"
	else
		per_policy sng "$p" "not ok # exit $rc, oom_kill +$dk in the window: $(grep -i 'fail\|error' /tmp/sng.out | head -n 2)"
	fi
	per_policy rw "$p" "$(verdict randw $rwrc /tmp/rw.out /tmp/rw.err "$in0" | grep -E '^(not )?ok ')"
	per_policy zp "$p" "$(verdict zipf $zprc /tmp/zp.out /tmp/zp.err "$in0" | grep -E '^(not )?ok ')"
	diag "$p: pswpin +$(($(vmstat pswpin) - in0)) in the window"
done
each stress_ng_vm_verify_each sng
each randw_2x_each rw
each zipf_2x_each zp

# zram only: swap-ins take the SWP_SYNCHRONOUS_IO path of do_swap_page().
# The cases run (and fail) even when zram could not be set up, so the
# count stays the same.
zram=0
if [ -e /sys/block/zram0 ] && echo 256M >/sys/block/zram0/disksize &&
	mkswap -q -U clear /dev/zram0 >/dev/null && swapon /dev/zram0 && swapoff /dev/vdc; then
	zram=1
	diag "zram swap on: $(grep -c zram0 /proc/swaps) zram device the only swap"
else
	diag "could not set up zram swap"
	swapon /dev/vdc 2>/dev/null
fi
# ZRAM_PER_MILLE: the share of the run's swap-ins (pswpin) the module must
# have seen: as refaults under detect and upstream (every page of the run
# was evicted with their shadow), as swap-ins under baseline.  Measured on
# 6.1 (make test SUITES=stress
# GUEST_ENV=CYCLES=20,FLIPS=pairs,STRESS_SECONDS=4): exactly pswpin in each policy
# (18,072, 18,046 and 18,063 swap-ins); 900 per mille leaves room for a
# kernel whose readahead swaps in pages of no shadow.
ZRAM_PER_MILLE=900
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
	# The swap-in hook ran on the zram path for (nearly) every swap-in:
	# detect and upstream judge refaults from their shadows, none of a
	# swept epoch; baseline stores none but sees the swap-ins.
	sw=$(aws_stat swapins) rf=$(aws_stat refaults) oe=$(aws_stat refaults_old_epoch)
	want=$((D * ZRAM_PER_MILLE / 1000))
	diag "zram $p: pswpin +$D, swapins $sw, refaults $rf, old epoch $oe"
	if [ "$D" -le 1000 ]; then
		fail "zram_judged_$p" "the run swapped in too little: pswpin +$D (want > 1000)"
	elif [ "$p" = baseline ]; then
		if [ "$sw" -ge $want ] && [ "$rf" = 0 ]; then
			ok "zram_judged_$p # swapins $sw of pswpin +$D, refaults 0"
		else
			fail "zram_judged_$p" "swapins $sw (want >= $want of pswpin +$D), refaults $rf (want 0)"
		fi
	elif [ "$rf" -ge $want ] && [ "$oe" = 0 ]; then
		ok "zram_judged_$p # refaults $rf of pswpin +$D, old epoch 0"
	else
		fail "zram_judged_$p" "refaults $rf (want >= $want of pswpin +$D), old epoch $oe (want 0)"
	fi
done

# THP swap-out needs a non-rotational device (swap clusters): zram.
if [ $zram = 1 ]; then
	set_policy detect
	thp=/sys/kernel/mm/transparent_hugepage/enabled
	old_thp=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp")
	echo always >"$thp"
	t0=$(vmstat thp_swpout)
	vrun cg_run thp $((L8 / 2))M aws-randw --size ${L8}M --threads 1 --thp \
		--seconds "$SECS" --verify-writes
	dt=$(($(vmstat thp_swpout) - t0))
	diag "thp_swpout +$dt, pswpin +$D"
	# Its precondition: THPs really went to swap whole (thp_swpout; 6 in
	# the run measured above, 2 in an earlier one: no floor beyond 0).
	why=
	[ $dt -gt 0 ] || why="no THP swapped out whole (thp_swpout +$dt)"
	verdict thp_randw_detect "$VRC" /tmp/verified.out /tmp/verified.err "$VIN0" "$why"
	echo "$old_thp" >"$thp"
	swapon /dev/vdc && swapoff /dev/zram0 && echo 1 >/sys/block/zram0/reset
else
	fail thp_randw_detect "no zram swap"
fi
grep -q '^/dev/vdc ' /proc/swaps || bail disk_swap_back "the disk swap device is not back on"

# Swap exhausted inside a cgroup: L/3 of swap and L of memory for an 8L/3
# region of which the writes touch about 2.2L (1.8 writes per page: 83 %):
# swap must run out, and an OOM kill, if any, must be this cgroup's own
# (memory.events oom_kill).  Running out shows either as a swap charge
# refused (memory.swap.events "max") or, when the last swap-out filled the
# limit exactly, as reclaim that stops swapping without one refused: then
# the OOM report of the cgroup, whose swap line reads its usage at its
# limit, is the only record (seen once on 6.1 under baseline).  The
# cgroup is kept until its counters are read.  Every page read back before
# the end was verified; how many that were in a killed run is not known
# (it prints its RESULT line only at the end).
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
ex=/sys/fs/cgroup/exhaust
for p in detect baseline; do
	set_policy "$p"
	if ! { mkdir -p $ex && echo "${L}M" >$ex/memory.max && echo $((L / 3))M >$ex/memory.swap.max; }; then
		bail exhaust_cgroup "could not set up the cgroup $ex"
	fi
	dmesg_mark
	vrun bash -c 'echo $$ >'"$ex"'/cgroup.procs && exec "$@"' - aws-randw --size ${L8}M \
		--threads 1 --writes $((WRITES * 3 / 2)) --verify-writes
	smax=$(awk '$1 == "max" { print $2 }' $ex/memory.swap.events)
	# the OOM report's "swap: usage NkB, limit NkB", both the same
	full=$(dmesg_since | grep -cE 'swap: usage ([0-9]+)kB, limit \1kB')
	kills=$(awk '$1 == "oom_kill" { print $2 }' $ex/memory.events)
	rmdir $ex
	diag "swap_exhausted_$p: exit $VRC, pswpin +$D, swap.events max $smax, oom_kill $kills," \
		"OOM reports with swap at its limit $full"
	why=
	if [ "${smax:-0}" -le 0 ] && [ "$full" -le 0 ]; then
		why="swap never ran out (memory.swap.events max '${smax}', no OOM report of swap at its limit)"
	elif [ "$VRC" = 137 ] && [ "${kills:-0}" -lt 1 ]; then
		why="killed, but not by the cgroup's OOM killer (memory.events oom_kill '${kills}')"
	fi
	ALLOW_OOM=1 verdict "swap_exhausted_$p" "$VRC" /tmp/verified.out /tmp/verified.err "$VIN0" "$why"
done

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
[ "$ev" -gt 0 ] || bail dead_cgroup_removed "no shadows stored before the removal (evictions $ev)"
rmdir /sys/fs/cgroup/dead || bail dead_cgroup_removed "rmdir of the populated-swap cgroup failed"
# The dead memcg's id is held by its swap entries, so the shadows stamped
# with it must still resolve: its pages refault (judged, not stale, not a
# swept epoch) in the heir.  HEIR_PER_MILLE of the window's swap-ins at
# least: measured (the run named at ZRAM_PER_MILLE) 14,234 refaults for
# 14,467 swap-ins, 984 per mille.
HEIR_PER_MILLE=900
in1=$(vmstat pswpin)
r1=$(aws_stat refaults) st1=$(aws_stat refaults_stale) o1=$(aws_stat refaults_old_epoch)
sleep "$SECS"
d=$(($(vmstat pswpin) - in1)) dr=$(($(aws_stat refaults) - r1))
dst=$(($(aws_stat refaults_stale) - st1)) doe=$(($(aws_stat refaults_old_epoch) - o1))
diag "heir: pswpin +$d, refaults +$dr, stale +$dst, old epoch +$doe"
if [ $d -gt 1000 ] && [ $dr -ge $((d * HEIR_PER_MILLE / 1000)) ] && [ $dst = 0 ] && [ $doe = 0 ]; then
	ok "refaults_in_heir # refaults +$dr of pswpin +$d, none stale or of an old epoch"
else
	fail refaults_in_heir "pswpin +$d (want > 1000), refaults +$dr (want >= $((d * HEIR_PER_MILLE / 1000))), stale +$dst, old epoch +$doe (want 0)"
fi
cg_stop heir
wait "$pid"
verdict refault_after_cgroup_deleted $? /tmp/dead.out /tmp/dead.out
rmdir /sys/fs/cgroup/heir
diag "refaults $(aws_stat refaults), stale $(aws_stat refaults_stale)"

# BPF policies attached and detached under load (6.12 only: before 6.9 a
# module cannot register a struct_ops type).  Two verifying loads at 2L,
# aws-randw in cgroup rw and stress-ng's vm stressor in cgroup sng, run
# while bdetect is attached to rw's cgroup through its link and detached
# again, then attached globally and detached, BPF_CHURN times in all,
# each time updated in place once (SIGHUP: its program replaced through
# the link while the hooks call it), stopped by SIGTERM and SIGKILL by
# turns after 0.3 s attached.  Every attach and update must take, every
# policy must be gone after its loader, none ejected, rw's cgroup back on
# its own policy ("default"), and both loads must verify with no OOM
# kill.
BPF_CHURN=8
case $(uname -r) in
6.1.*)
	skip bpf_attach_detach_under_load "6.1 has no BPF policies (a struct_ops type in a module needs 6.9)" ;;
*)
	. "$AWS_TOOLS/guest/lib-bpf.sh"
	set_policy detect
	ej0=$(aws_stat bpf_ejections) k0=$(vmstat oom_kill) in0=$(vmstat pswpin) why=''
	cg_run rw "${L}M" aws-randw --size ${L2}M --threads 2 --seconds "$SECS" --verify-writes \
		>/tmp/rw.out 2>/tmp/rw.err &
	rw=$!
	cg_run sng "${L}M" stress-ng --vm 1 --vm-bytes ${L2}M --vm-method all --verify \
		--timeout "${SECS}s" >/tmp/sng.out 2>&1 &
	sng=$!
	for _ in $(seq 1 50); do [ -d /sys/fs/cgroup/rw ] && break; sleep 0.1; done
	for ((i = 0; i < BPF_CHURN; i++)); do
		if ((i % 2)); then where=-g; else where="-c /sys/fs/cgroup/rw"; fi
		# shellcheck disable=SC2086 # where: the option and its argument
		if ! bpf_attach churn bdetect.bpf.o $where; then
			why+=" attach $i ($where) failed: $(tail -n 1 /tmp/bpf-churn.out);"
			break
		fi
		sleep 0.3
		bpf_update churn || why+=" update $i ($where) failed: $(tail -n 1 /tmp/bpf-churn.out);"
		if ((i % 4 < 2)); then bpf_stop churn TERM; else bpf_stop churn KILL; fi
		if tr -d '[]' <"$AWS_PARAMS/policy" | tr ' ' '\n' | grep -qx bdetect; then
			why+=" bdetect listed after stop $i;"
		fi
	done
	pol=$(sed -n 's/.*\[\([a-z0-9_]*\)\].*/\1/p' /sys/fs/cgroup/rw/memory.anon_ws_policy 2>/dev/null)
	[ -z "$pol" ] || [ "$pol" = default ] || why+=" rw's cgroup left on $pol;"
	wait $rw
	rwrc=$?
	wait $sng
	rc=$?
	dk=$(($(vmstat oom_kill) - k0)) de=$(($(aws_stat bpf_ejections) - ej0))
	[ "$de" = 0 ] || why+=" $de ejected;"
	[ "$dk" = 0 ] || why+=" oom_kill +$dk;"
	{ [ $rc = 0 ] && ! grep -qi 'fail\|corrupt' /tmp/sng.out; } || why+=" stress-ng exit $rc;"
	[ "$(get_policy)" = detect ] || why+=" global policy $(get_policy), not detect;"
	diag "bpf churn: $i attaches, pswpin +$(($(vmstat pswpin) - in0))"
	verdict bpf_attach_detach_under_load $rwrc /tmp/rw.out /tmp/rw.err "$in0" "${why# }"
	;;
esac
check rmmod_after_stress rmmod anon_workingset
ktap_end
