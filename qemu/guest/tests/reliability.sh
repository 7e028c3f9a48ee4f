#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reliability suite (short): while a verifying workload swaps hard in a
# cgroup, unload and reload the module, flip policies and ratios, and turn
# MGLRU on and off with the module loaded (hooks must go inert: the module's
# counters stop).  Every workload run must verify all its pages, and the
# host fails the run on any oops, WARN or hang in the console.
#   AWS_CYCLES (default 20) load/unload cycles, AWS_FLIPS (default 200) flips,
#   AWS_LIMIT_MB (default 48) the load's cgroup limit L (the load is 2L).
. "$AWS_TOOLS/guest/lib.sh"

CYCLES=${AWS_CYCLES:-20}
FLIPS=${AWS_FLIPS:-200}
L=${AWS_LIMIT_MB:-48}
L2=$((2 * L))
WRITES=$(randw_writes "$L2")	# touch 1.6L of the 2L region: well over L
POLICIES=(stock baseline protect detect upstream)
mod_unload

# A swapping, verifying load in the background: randw over twice its cgroup
# limit, checking every page before rewriting it, until load_check stops it
# (at most $1 seconds); load_start returns once it has swapped in.
load_start() {
	local in0 i
	in0=$(vmstat pswpin)
	cg_run load "${LOAD_LIMIT:-${L}M}" aws-randw --size ${L2}M --threads "${LOAD_THREADS:-2}" \
		--seconds "$1" --verify-writes \
		>/tmp/load.out 2>/tmp/load.err &
	LOAD_PID=$!
	for i in $(seq 1 100); do
		[ "$(vmstat pswpin)" -gt $((in0 + 500)) ] && return
		sleep 0.2
	done
	diag "load_start: the load did not swap in within 20 s"
}
load_check() { # load_check NAME
	cg_stop load
	wait "$LOAD_PID"
	local rc=$? res
	res=$(grep '^RESULT' /tmp/load.out)
	diag "$res"
	if [ $rc = 0 ] && [ "$(result_get "$res" verify_fail)" = 0 ]; then
		ok "$1 # $(result_get "$res" pages_verified) pages verified, pswpin $(result_get "$res" pswpin)"
	elif [ $rc = 137 ] && [ "${ALLOW_OOM:-0}" = 1 ] && ! grep -q VERIFY_FAIL /tmp/load.err; then
		ok "$1 # OOM-killed (allowed here), no verification failure before"
	else
		fail "$1" "workload exit $rc: $(head -c 300 /tmp/load.err)"
	fi
}

load_start 3600
i=0 bad=0
while [ $i -lt "$CYCLES" ]; do
	p=${POLICIES[$((i % 5))]}
	insmod "$AWS_MOD" policy="$p" || bad=$((bad + 1))
	sleep 0.1
	rmmod anon_workingset || bad=$((bad + 1))
	i=$((i + 1))
done
expect load_unload_cycles failures "$bad" -eq 0
diag "figure load_unload_cycles=$((CYCLES - bad))"
load_check verify_after_load_unload

insmod "$AWS_MOD" || fail insmod
load_start 3600
bad=0
for i in $(seq 1 "$FLIPS"); do
	set_policy "${POLICIES[$((RANDOM % 5))]}" || bad=$((bad + 1))
	if [ $((i % 10)) = 0 ]; then
		echo $((RANDOM % 4 + 1)) >"$AWS_PARAMS/ratio" || bad=$((bad + 1))
	fi
done
echo auto >"$AWS_PARAMS/ratio"
expect policy_flips_under_load failures "$bad" -eq 0
diag "figure policy_flips=$((FLIPS - bad))"
expect switches_recorded switches "$(aws_stat switches)" -gt $((FLIPS / 2))
load_check verify_after_flips

# MGLRU on with the module loaded: hooks inert, nothing moves in our counters.
# 6.1's MGLRU can OOM-kill a task swapping hard in a small memcg (seen at
# 96M in 48M and in 64M), so the load is gentler (2L in 5L/3) and an OOM
# kill of it is allowed; what must not happen is an oops or a verification
# failure.
set_policy detect
LOAD_LIMIT=$((L * 5 / 3))M LOAD_THREADS=1 load_start 3600
echo y >/sys/kernel/mm/lru_gen/enabled
diag "figure mglru_toggles=1"
expect mglru_enabled lru_gen "$(cat /sys/kernel/mm/lru_gen/enabled)" != 0x0000
sleep 1
expect hooks_inert_flag hooks_live "$(aws_stat hooks_live)" -eq 0
c0=$(aws_stat placed_inactive) s0=$(aws_stat swapins) e0=$(aws_stat evictions)
sleep 2
expect hooks_inert_placements delta $(($(aws_stat placed_inactive) - c0)) -eq 0
expect hooks_inert_swapins delta $(($(aws_stat swapins) - s0)) -eq 0
expect hooks_inert_evictions delta $(($(aws_stat evictions) - e0)) -eq 0
set_policy baseline && set_policy detect
echo n >/sys/kernel/mm/lru_gen/enabled
expect mglru_disabled lru_gen "$(cat /sys/kernel/mm/lru_gen/enabled)" = 0x0000
sleep 1
expect hooks_live_again hooks_live "$(aws_stat hooks_live)" -eq 1
ALLOW_OOM=1 load_check verify_across_mglru_toggle
s1=$(aws_stat swapins)
cg_run again ${L}M aws-randw --size ${L2}M --threads 1 --writes "$WRITES" >/dev/null 2>&1
expect hooks_count_again swapins "$(aws_stat swapins)" -gt "$s1"
rmmod anon_workingset
ok rmmod_after_mglru

# swapoff/swapon with shadows present, then unload.
insmod "$AWS_MOD" policy=detect
cg_run load ${L}M aws-randw --size ${L2}M --threads 1 --writes "$WRITES" >/dev/null 2>&1 &
sleep 4
# Lift the limit first: swapoff brings every page back, charged to its cgroup.
echo max >/sys/fs/cgroup/load/memory.max
check swapoff_with_shadows swapoff /dev/vdc
check swapon_again swapon /dev/vdc
wait
rmmod anon_workingset
ok rmmod_after_swapoff

# Debug kernel only: nothing the module allocated may leak after unload.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 2
	echo scan >/sys/kernel/debug/kmemleak
	leaks=$(grep -c 'anon_workingset\|aws_' /sys/kernel/debug/kmemleak)
	grep -B2 -A12 'anon_workingset\|aws_' /sys/kernel/debug/kmemleak | head -n 30 | sed 's/^/# /'
	expect kmemleak_after_unload leak_lines "$leaks" -eq 0
else
	skip kmemleak_after_unload "kernel without CONFIG_DEBUG_KMEMLEAK"
fi
ktap_end
