# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
#
# Helpers for the suites that record the module's trace events
# (module/aws_trace.h) around a workload and check them against the
# /proc/anon_workingset counters of the same window: tracing.sh, bpf.sh.
# record_window runs a command with the events on and leaves the counters
# before (B) and after (A) it, the trace's figures (E, from summary) and
# the events the ring buffer lost (LOST).  Sourced after lib.sh.

T=/sys/kernel/tracing
# Per-CPU ring buffer: a thrash run's events take about 4 MB, all of it
# possibly on one CPU.
BUF_KB=${TRACE_BUF_KB:-24576}	# GUEST_ENV=TRACE_BUF_KB=64: overflow, must fail
SUM=/tmp/aws-trace.sum
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null

# snap ARRAY: /proc/anon_workingset into the associative array ARRAY
# (builtins only: no process starts, no page is faulted in).
snap() {
	local -n _s=$1
	local k v
	while read -r k v; do _s["$k"]=$v; done </proc/anon_workingset
}
# delta KEY: the counter's change over the window (B before, A after).
delta() { echo $((A[$1] - B[$1])); }
# anon_age ARRAY: the root anon clocks of every node, summed.
anon_age() {
	local -n _a=$1
	local k v s=0
	for k in "${!_a[@]}"; do
		[[ $k = node*_anon_age ]] || continue
		v=${_a[$k]}
		s=$((s + v))
	done
	echo $s
}
# lost: events the ring buffer overwrote or dropped since it was cleared.
lost() { awk '/^(overrun|dropped events):/ { s += $NF } END { print s + 0 }' $T/per_cpu/cpu*/stats; }
# summary: the window's events, as tracefs's trace file prints them, as
# "key value" lines (aws-trace-summary, userspace/probes/trace-summary.c):
# pages summed per event and field; events per policy, policy_<name>_<event>; the memcg
# ids each policy's events named, memcg_<policy>_<id>); verdict_bad counts
# refaults whose activate is not detect's rule on their distance and
# workingset_size, size_not_active_anon those whose workingset_size is not
# the active anon list they carry (detect's workingset), refault_no_id
# the pages refaulted without an identity (swap entry), activate_REASON
# the pages of aws_activate events per reason, verdict_long
# those whose distance exceeds it and verdict_long_in how many of them
# were activated anyway, long_POLICY and long_in_POLICY the same per
# policy, short_POLICY its refaults within the workingset and
# short_out_POLICY those of them it did not activate; note_POLICY_v0_V
# the aws_note events of POLICY whose first word is V.
# (The kernel formats a window of 100,000 events in about 0.5 s of a
# TCG guest, and the C summary takes about 1 s; trace-cmd extract and
# report, then awk, took 6.5 to 8.5 s, with the same figures in all five
# windows of the bpf suite, 2026-12-07.)
summary() { aws-trace-summary $T/trace; }
# record_window CMD...: run CMD with the events on; counters
# before and after in B and A, trace figures in E, lost events in LOST.
# The ring buffer goes back to the size it had: left at BUF_KB per CPU it
# held 48M of a debug guest's memory for the suites after (no THP could
# be allocated in fidelity, and reclaim deactivated what it measures).
declare -A B A E
record_window() {
	local kb0 rc=0
	B=() A=() E=()
	kb0=$(awk '{ print $1 }' $T/buffer_size_kb)
	trace-cmd reset >/dev/null 2>&1
	if trace-cmd start -b "$BUF_KB" -e anon_workingset >/dev/null 2>&1; then
		record_window_in "$@" || rc=1
	else
		rc=1
	fi
	trace-cmd reset >/dev/null 2>&1
	echo "$kb0" >$T/buffer_size_kb
	return $rc
}
record_window_in() {
	echo 0 >$T/tracing_on
	: >$T/trace	# empties every CPU buffer, zeroes its overrun count
	snap B
	echo 1 >$T/tracing_on
	"$@"
	echo 0 >$T/tracing_on
	snap A
	LOST=$(lost)
	summary >$SUM || return 1
	while read -r k v; do E[$k]=$v; done <$SUM
	rm -f $SUM
}
# admits_one_in POLICY N [LRUVECS]: nothing if, in the last window,
# POLICY admitted one long refault in N, give or take one per lruvec (each
# counts in its own state), with more than 100 long ones (and its memcg
# ids in the events naming LRUVECS lruvecs, if given); else what it did.
admits_one_in() {
	local long=${E[long_$1]:-0} in=${E[long_in_$1]:-0} nl d
	nl=$(printf '%s\n' "${!E[@]}" | grep -c "^memcg_${1}_")
	d=$(($2 * in - long))
	[ "$long" -gt 100 ] && [ "${d#-}" -le $((($2 - 1) * nl)) ] && [ "${3:-$nl}" = "$nl" ] ||
		echo "$in of $long long ones admitted, want 1 in $2 ($nl lruvecs)"
}
# every_other_rule POLICY [global|shared]: example's rule (module/policies/
# example.c, and bexample, its BPF build) held refault by refault in the
# last window, as two cases.  POLICY_activates_every_short_refault: POLICY
# judged refaults, every refault traced was POLICY's (with "global",
# POLICY was also the global policy; with "shared", other policies judged
# refaults in other cgroups of the same window), none lost, each one
# within active anon activated, and each workingset active anon.
# POLICY_admits_every_other_long_refault: of the longer ones exactly
# every other was activated, give or take one per lruvec that judged any
# (one task faults at a time, so the count is exact), and there were more
# than 100 to halve.
every_other_rule() {
	local p=$1 long=${E[long_$1]:-0} long_in=${E[long_in_$1]:-0}
	local mine=${E[policy_${1}_aws_refault]:-0} all=${E[aws_refault]:-0} nl why
	local short=${E[short_$1]:-0} short_out=${E[short_out_$1]:-0}
	if { [ "${2:-}" != global ] || [ "$(get_policy)" = "$p" ]; } && [ "$mine" -gt 0 ] &&
		{ [ "${2:-}" = shared ] || [ "$mine" = "$all" ]; } && [ "$LOST" = 0 ] && [ "$short" -gt 0 ] &&
		[ "$short_out" = 0 ] && [ "${E[size_not_active_anon]:-0}" = 0 ]; then
		ok "${p}_activates_every_short_refault # $short of $mine refaults within active anon, all activated"
	else
		fail "${p}_activates_every_short_refault" "policy $(get_policy), $mine of $all refaults $p's," \
			"$short_out of $short short ones not activated," \
			"${E[size_not_active_anon]:-0} sizes not active anon, $LOST lost"
	fi
	nl=$(printf '%s\n' "${!E[@]}" | grep -c "^memcg_${p}_")
	why=$(admits_one_in "$p" 2)
	if [ -z "$why" ] && [ "$LOST" = 0 ]; then
		ok "${p}_admits_every_other_long_refault # $long_in of $long ($nl lruvecs)"
	else
		fail "${p}_admits_every_other_long_refault" "${why:-as the rule}, $LOST lost"
	fi
}
