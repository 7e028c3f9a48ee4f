#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side unit test of aws-trace-summary (userspace/probes/
# trace-summary.c), the guest's sum of a window of the module's trace
# events (harness/guest/lib-trace.sh), as KTAP on stdout.  On a canned
# window in tracefs's trace format, every key the suites read has the
# value worked out by hand below: pages summed per kind, a refault's
# verdict against detect's rule, a workingset that is not active anon,
# the long and short refaults per policy, the memcgs each policy named,
# an identity of 0, a switch's sweep, a policy's notes by their first
# word, and a loss mark; a line with no
# event counts nothing, and a missing file or a stray option is refused.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! make -s --no-print-directory -C "$AWS_TOP/userspace/probes" O="$TMP" >"$TMP/build.log" 2>&1; then
	printf 'KTAP version 1\n1..1\nnot ok 1 trace_summary_builds # %s\n' "$(tail -n 1 "$TMP/build.log")"
	exit 1
fi
SUMMARY=$TMP/aws-trace-summary

cat >"$TMP/window" <<'EOF'
# tracer: nop
#
# entries-in-buffer/entries-written: 13/13   #P:2
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
      aws-thrash-120   [001] .....     6.1: aws_place: policy=detect nr_pages=1 active=0 memcg=3
      aws-thrash-120   [001] .....     6.2: aws_place: policy=detect nr_pages=512 active=1 memcg=3
         kswapd0-30    [000] .....     6.3: aws_evict: policy=detect nr_pages=1 shadow=1 memcg=3
         kswapd0-30    [000] .....     6.4: aws_evict: policy=bex3 nr_pages=4 shadow=0 memcg=5
      aws-thrash-120   [001] .....     6.5: aws_refault: policy=detect nr_pages=1 distance=10 workingset_size=20 activate=1 restore=0 memcg=3 active_anon=20 active_file=0 inactive_file=0 swap=1 id=0x1f
      aws-thrash-120   [001] .....     6.6: aws_refault: policy=detect nr_pages=1 distance=30 workingset_size=20 activate=0 restore=1 memcg=3 active_anon=20 active_file=0 inactive_file=0 swap=1 id=0x20
      aws-thrash-120   [001] .....     6.7: aws_refault: policy=bex3 nr_pages=2 distance=30 workingset_size=20 activate=1 restore=0 memcg=5 active_anon=21 active_file=0 inactive_file=0 swap=1 id=0x0
      aws-thrash-120   [001] .....     6.8: aws_refault: policy=bex3 nr_pages=1 distance=5 workingset_size=20 activate=0 restore=0 memcg=5 active_anon=20 active_file=0 inactive_file=0 swap=1 id=0x21
      aws-thrash-120   [001] .....     6.9: aws_activate: policy=hold nr_pages=3 reason=keep memcg=7
         kswapd0-30    [000] .....     7.0: aws_age: policy=detect nr_pages=8 aged=1
            bash-99    [000] .....     7.1: aws_switch: scope=cgroup cgroup=42 policy=hold swept=17
      aws-thrash-120   [001] .....     7.11: aws_note: policy=regret v0=2 v1=40 v2=0 v3=7 v4=0 v5=3 v6=500 v7=900
      aws-thrash-120   [001] .....     7.12: aws_note: policy=regret v0=2 v1=40 v2=0 v3=8 v4=0 v5=3 v6=500 v7=12
CPU:1 [LOST 12 EVENTS]
      aws-thrash-120   [001] .....     7.2: sched_switch: prev=aws_place: nr_pages=99
EOF
# By hand: 13 events; place 1 inactive, 512 active; evict 1 with a
# shadow, 4 without; refaults 1+1+2+1 = 5 pages, 1+2 activated, 1
# restored, one without identity (2 pages); verdicts off detect's rule:
# the long one bex3 activated and the short one it did not (2); one
# workingset that is not active anon (21); long: detect 1 (0 in), bex3 1
# (1 in); short: detect 1 (0 out), bex3 1 (1 out); in 2, out 2; two
# notes of regret on stock's rule (v0=2), with no memcg.  The
# sched_switch line names no aws_ event word of its own ("prev=aws_place:"
# is a field) and counts nothing.
cat >"$TMP/want" <<'EOF'
events 13
aws_note 2
policy_regret_aws_note 2
note_regret_v0_2 2
aws_place 2
aws_evict 2
aws_refault 4
aws_activate 1
aws_age 1
aws_switch 1
policy_detect_aws_place 2
policy_detect_aws_evict 1
policy_bex3_aws_evict 1
policy_detect_aws_refault 2
policy_bex3_aws_refault 2
policy_hold_aws_activate 1
policy_detect_aws_age 1
policy_hold_aws_switch 1
memcg_detect_3 1
memcg_bex3_5 1
memcg_hold_7 1
place_inactive 1
place_active 512
evict_shadow 1
evict_noshadow 4
refault 5
refault_no_id 2
refault_activate 3
refault_restore 1
verdict_bad 2
size_not_active_anon 1
verdict_long 2
verdict_long_in 1
long_detect 1
long_in_detect 0
long_bex3 1
long_in_bex3 1
short_detect 1
short_bex3 1
short_out_bex3 1
verdict_in 2
verdict_out 2
activate_keep 3
age_aged 8
swept 17
switch_cgroup_hold 1
report_lost 1
EOF

echo "KTAP version 1"
echo "1..3"
if "$SUMMARY" "$TMP/window" | sort >"$TMP/got" && sort "$TMP/want" | diff - "$TMP/got" >"$TMP/diff"; then
	echo "ok 1 trace_summary_sums_a_window # $(wc -l <"$TMP/want") keys, each as worked out by hand"
else
	echo "not ok 1 trace_summary_sums_a_window # $(grep -c '^[<>]' "$TMP/diff") keys differ: $(head -n 4 "$TMP/diff" | xargs)"
fi
if "$SUMMARY" <"$TMP/window" | sort | cmp -s - "$TMP/got"; then
	echo "ok 2 trace_summary_reads_standard_input"
else
	echo "not ok 2 trace_summary_reads_standard_input # not the same figures as from the file"
fi
out1=$("$SUMMARY" "$TMP/none" 2>&1)
rc1=$?
out2=$("$SUMMARY" -x 2>&1)
rc2=$?
if [ $rc1 = 2 ] && grep -q 'none: No such file' <<<"$out1" && [ $rc2 = 2 ] && grep -q '^usage:' <<<"$out2"; then
	echo "ok 3 trace_summary_refuses_bad_input # a missing file and an option: exit 2, with why"
else
	echo "not ok 3 trace_summary_refuses_bad_input # missing file: exit $rc1 '$out1'; option: exit $rc2 '$out2'"
fi
