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
DAT=/tmp/aws-trace.dat
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
# summary: trace-cmd report of $DAT as "key value" lines (pages summed,
# per event and field; events per policy, policy_<name>_<event>; the memcg
# ids each policy's events named, memcg_<policy>_<id>); verdict_bad counts
# refaults whose activate is not detect's rule on their distance and
# workingset_size, size_not_active_anon those whose workingset_size is not
# the active anon list they carry (detect's workingset), refault_no_id
# the pages refaulted without an identity (swap entry), activate_REASON
# the pages of aws_activate events per reason, verdict_long
# those whose distance exceeds it and verdict_long_in how many of them
# were activated anyway, long_POLICY and long_in_POLICY the same per
# policy.
summary() {
	trace-cmd report -i $DAT 2>/dev/null | awk '
	{
		ev = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^aws_[a-z]+:$/) { ev = substr($i, 1, length($i) - 1); break }
		if (ev == "") { if (/EVENTS DROPPED|LOST/) c["report_lost"]++; next }
		delete f
		for (j = i + 1; j <= NF; j++) {
			n = index($j, "=")
			if (n) f[substr($j, 1, n - 1)] = substr($j, n + 1)
		}
		c["events"]++
		c[ev]++
		c["policy_" f["policy"] "_" ev]++
		if (ev != "aws_switch" && f["memcg"] != "")
			c["memcg_" f["policy"] "_" f["memcg"]] = 1
		if (ev == "aws_place")
			c["place_" (f["active"] + 0 ? "active" : "inactive")] += f["nr_pages"]
		else if (ev == "aws_evict")
			c["evict_" (f["shadow"] + 0 ? "shadow" : "noshadow")] += f["nr_pages"]
		else if (ev == "aws_refault") {
			c["refault"] += f["nr_pages"]
			if (f["id"] == "0" || f["id"] == "0x0") c["refault_no_id"] += f["nr_pages"]
			c["refault_activate"] += f["activate"] * f["nr_pages"]
			c["refault_restore"] += f["restore"] * f["nr_pages"]
			if (f["activate"] + 0 != (f["distance"] + 0 <= f["workingset_size"] + 0))
				c["verdict_bad"]++
			if (f["workingset_size"] != f["active_anon"])
				c["size_not_active_anon"]++
			if (f["distance"] + 0 > f["workingset_size"] + 0) {
				c["verdict_long"]++
				c["verdict_long_in"] += f["activate"]
				c["long_" f["policy"]]++
				c["long_in_" f["policy"]] += f["activate"]
			}
			if (f["activate"] + 0) c["verdict_in"]++; else c["verdict_out"]++
		} else if (ev == "aws_activate")
			c["activate_" f["reason"]] += f["nr_pages"]
		else if (ev == "aws_age")
			c["age_aged"] += f["aged"] * f["nr_pages"]
		else if (ev == "aws_switch") {
			c["swept"] += f["swept"]
			c["switch_" f["scope"] "_" f["policy"]]++
		}
	}
	END { for (k in c) print k, c[k] }'
}
# record_window CMD...: run CMD with the events on, into $DAT; counters
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
	rm -f $DAT
	trace-cmd extract -o $DAT >/dev/null 2>&1 || return 1
	while read -r k v; do E[$k]=$v; done < <(summary)
	rm -f $DAT
}
# every_other_rule POLICY [global]: example's rule (module/policies/
# example.c, and bexample, its BPF build) held refault by refault in the
# last window, as two cases.  POLICY_activates_every_short_refault: every
# refault traced was POLICY's (with "global", POLICY was also the global
# policy), none lost, each one within active anon activated, and each
# workingset active anon.  POLICY_admits_every_other_long_refault: of the
# longer ones exactly every other was activated, give or take one per
# lruvec that judged any (one task faults at a time, so the count is
# exact), and there were more than 100 to halve.
every_other_rule() {
	local p=$1 long=${E[verdict_long]:-0} long_in=${E[verdict_long_in]:-0}
	local mine=${E[policy_${1}_aws_refault]:-0} all=${E[aws_refault]:-0} short short_out nl d
	short=$((${E[verdict_in]:-0} + ${E[verdict_out]:-0} - long))
	short_out=$((${E[verdict_bad]:-0} - long_in))
	if { [ "${2:-}" != global ] || [ "$(get_policy)" = "$p" ]; } && [ "$mine" -gt 0 ] &&
		[ "$mine" = "$all" ] && [ "$LOST" = 0 ] && [ "$short" -gt 0 ] && [ "$short_out" = 0 ] &&
		[ "${E[size_not_active_anon]:-0}" = 0 ]; then
		ok "${p}_activates_every_short_refault # $short of $all refaults within active anon, all activated"
	else
		fail "${p}_activates_every_short_refault" "policy $(get_policy), $mine of $all refaults $p's," \
			"$short_out of $short short ones not activated," \
			"${E[size_not_active_anon]:-0} sizes not active anon, $LOST lost"
	fi
	nl=$(printf '%s\n' "${!E[@]}" | grep -c "^memcg_${p}_")
	d=$((2 * long_in - long))
	if [ "$long" -gt 100 ] && [ ${d#-} -le "$nl" ] && [ "$LOST" = 0 ]; then
		ok "${p}_admits_every_other_long_refault # $long_in of $long ($nl lruvecs)"
	else
		fail "${p}_admits_every_other_long_refault" "$long_in of $long long refaults activated ($nl lruvecs), $LOST lost"
	fi
}
