#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side unit test of the result count (harness/boot/ktap-count.awk), as
# KTAP on stdout: on canned KTAP logs, a complete guest run counts exactly its
# cases, and each way a run can come up short -- an empty, short or over-long
# suite, a plan that disagrees with the manifest, a missing, extra or
# reordered suite, a failed or silent job script, a suite that failed with no
# failing case, a flat document off its plan, a manifest that contradicts
# itself, a skip that harness/boot/expected-skips does not list for the
# variant, an entry there whose case ran -- counts as a failure with a
# message saying so.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
AWK=$AWS_TOP/harness/boot/ktap-count.awk
printf 'r a 3\nr b 2\n' >"$TMP/manifest"

# suite NAME PLAN RESULT...: a suite's nested block as run-suites.sh
# writes it (PLAN "-" for none), then its top-level line (ok if every
# RESULT is "ok").
idx=0
suite() {
	local name=$1 plan=$2 i=0 r top=ok
	shift 2
	idx=$((idx + 1))
	echo "    KTAP version 1"
	echo "    # Subtest: $name"
	[ "$plan" = - ] || echo "    1..$plan"
	for r in "$@"; do
		i=$((i + 1))
		case $r in
		ok) echo "    ok $i case_$i" ;;
		skip) echo "    ok $i case_$i # SKIP not here" ;;
		*) echo "    not ok $i case_$i # broken"; top="not ok" ;;
		esac
	done
	echo "    # $name: 1 s"
	echo "$top $idx $name"
}
run() { # run NSUITES [STATUS]: wrap stdin's suites as a guest's ktap.log
	echo "KTAP version 1"
	echo "1..$1"
	cat
	[ "${2:-0}" = none ] || echo "# aws-guest: job exit status ${2:-0}"
	echo "# aws-guest: done"
}

n=0 bad=0
# t NAME "P F S" PROBLEM-ERE AWK-ARGS...: stdin is the log; the count must
# be "P F S" and the problems must match PROBLEM-ERE ("" = no problem).
t() {
	local name=$1 want=$2 ere=$3 out got probs
	shift 3
	cat >"$TMP/log"
	out=$(awk -f "$AWK" "$@" "$TMP/log")
	got=$(tail -n 1 <<<"$out")
	probs=$(grep '^problem: ' <<<"$out")
	n=$((n + 1))
	if [ "$got" != "$want" ]; then
		echo "not ok $n $name # counted '$got', wanted '$want'; ${probs//$'\n'/; }"; bad=1
	elif [ -z "$ere" ] && [ -n "$probs" ]; then
		echo "not ok $n $name # unexpected: ${probs//$'\n'/; }"; bad=1
	elif [ -n "$ere" ] && ! grep -Eq -- "$ere" <<<"$probs"; then
		echo "not ok $n $name # no problem matching /$ere/ in: ${probs:-nothing}"; bad=1
	else
		echo "ok $n $name # $got${probs:+; ${probs//$'\n'/; }}"
	fi
}
G=(-v mode=suites -v manifest="$TMP/manifest" -v "expect=a b")

echo "KTAP version 1"
echo "1..24"
t complete_run_counts_its_cases "4 0 1" "" "${G[@]}" \
	< <({ suite a 3 ok ok ok; suite b 2 ok skip; } | run 2)
t failed_case_counts_once "4 1 0" "" "${G[@]}" \
	< <({ suite a 3 ok fail ok; suite b 2 ok ok; } | run 2)
t empty_suite_fails "2 4 0" "suite a emitted 0 of its 3" "${G[@]}" \
	< <({ suite a 3; suite b 2 ok ok; } | run 2)
t short_suite_counts_missing_cases "4 2 0" "suite a emitted 2 of its 3" "${G[@]}" \
	< <({ suite a 3 ok ok; suite b 2 ok ok; } | run 2)
t long_suite_fails "6 2 0" "planned 1..4, the manifest says 3.*|emitted 4 cases, the manifest says 3" "${G[@]}" \
	< <({ suite a 4 ok ok ok ok; suite b 2 ok ok; } | run 2)
t plan_off_manifest_fails "5 1 0" "suite a planned 1..4, the manifest says 3" "${G[@]}" \
	< <({ suite a 4 ok ok ok; suite b 2 ok ok; } | run 2)
t suite_without_plan_fails "5 1 0" "suite a printed no plan" "${G[@]}" \
	< <({ suite a - ok ok ok; suite b 2 ok ok; } | run 2)
t missing_suite_fails "3 4 0" "suite b did not run" "${G[@]}" \
	< <(suite a 3 ok ok ok | run 1)
t reordered_suites_fail "5 1 0" "suites run: 'b a', manifest says: 'a b'" "${G[@]}" \
	< <({ suite b 2 ok ok; suite a 3 ok ok ok; } | run 2)
t extra_suite_fails "6 2 0" "suite c ran but is not" "${G[@]}" \
	< <({ suite a 3 ok ok ok; suite b 2 ok ok; suite c 1 ok; } | run 3)
t failed_job_script_fails "5 1 0" "job script exited with status 1" "${G[@]}" \
	< <({ suite a 3 ok ok ok; suite b 2 ok ok; } | run 2 1)
t silent_job_script_fails "5 1 0" "never reported its job's exit status" "${G[@]}" \
	< <({ suite a 3 ok ok ok; suite b 2 ok ok; } | run 2 none)
t crashed_suite_fails "5 1 0" "suite a failed without a failing case: TIMEOUT" "${G[@]}" \
	< <({ suite a 3 ok ok ok | sed 's/^ok 1 a$/not ok 1 a # TIMEOUT after 600s/'; suite b 2 ok ok; } | run 2)
t suite_with_no_output_fails "0 1 0" "suite x emitted no case" -v mode=suites \
	< <(printf 'ok 1 x\n' | run 1)
t flat_document_off_plan_fails "2 1 0" "planned 1..3 but has 2 results" -v docs=1 \
	< <(printf 'KTAP version 1\n1..3\nok 1 a\nok 2 b\n')
t flat_document_without_plan_fails "2 1 0" "has no plan line" -v docs=1 \
	< <(printf 'KTAP version 1\nok 1 a\nok 2 b\n')
t missing_document_fails "1 1 0" "expected 2 KTAP documents, found 1" -v docs=2 \
	< <(printf 'KTAP version 1\n1..1\nok 1 a\n')
printf 'r a 3\nr2 a 4\n' >"$TMP/manifest2"
t contradictory_manifest_fails "3 4 0" "manifest gives suite a both 3 and 4" -v mode=suites -v manifest="$TMP/manifest2" -v expect=a \
	< <({ suite a 3 ok ok ok; } | run 1)
printf 'b case_2 debug,default the reason\n- b2 * flat reason\n' >"$TMP/skips"
t expected_skip_passes "4 0 1" "" "${G[@]}" -v skips="$TMP/skips" \
	< <({ suite a 3 ok ok ok; suite b 2 ok skip; } | run 2)
t unexpected_skip_fails "3 1 2" "unexpected skip: a case_1" "${G[@]}" -v skips="$TMP/skips" \
	< <({ suite a 3 skip ok ok; suite b 2 ok skip; } | run 2)
t stale_expected_skip_fails "5 1 0" "stale expected skip: b case_2 ran for default" "${G[@]}" \
	-v skips="$TMP/skips" < <({ suite a 3 ok ok ok; suite b 2 ok ok; } | run 2)
printf 'b case_2 default the reason\n' >"$TMP/skips2"
t skip_of_another_variant_fails "4 1 1" "unexpected skip: b case_2 .* for debug" "${G[@]}" \
	-v skips="$TMP/skips2" -v variant=debug < <({ suite a 3 ok ok ok; suite b 2 ok skip; } | run 2)
t flat_unexpected_skip_fails "1 1 1" "unexpected skip: - b" -v docs=1 -v skips="$TMP/skips" \
	< <(printf 'KTAP version 1\n1..2\nok 1 a\nok 2 b # SKIP no\n')
t flat_expected_skip_passes "1 0 1" "" -v docs=1 -v skips="$TMP/skips" \
	< <(printf 'KTAP version 1\n1..2\nok 1 a\nok 2 b2 # SKIP no\n')
exit $bad
