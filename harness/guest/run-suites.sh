#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run guest suites as KTAP: each suite's cases become a nested subtest,
# each suite one top-level result.  A suite that exceeds its time budget
# (SUITE_TIMEOUT, default 600 s, times AWS_SLOW for a slow kernel) is
# killed and fails.  Exit status 0 once every suite has run, whatever their
# verdicts (those are in the KTAP).
# usage: run-suites.sh SUITE...   (names of scripts in harness/guest/suites/)
T=${AWS_TOOLS:-/mnt/tools}/guest/suites
[ $# -gt 0 ] || { echo "# run-suites.sh: no suite given"; exit 2; }
[ -d "$T" ] || { echo "# run-suites.sh: $T missing"; exit 2; }
BUDGET=$((${SUITE_TIMEOUT:-600} * ${AWS_SLOW:-1}))
echo "KTAP version 1"
echo "1..$#"
i=0
for suite in "$@"; do
	i=$((i + 1))
	t0=$SECONDS
	timeout -k 10 "$BUDGET" bash "$T/$suite.sh" 2>&1 | sed -u 's/^/    /'
	rc=${PIPESTATUS[0]}
	echo "    # $suite: $((SECONDS - t0)) s"
	case $rc in
	0) echo "ok $i $suite" ;;
	124|137) echo "not ok $i $suite # TIMEOUT after ${BUDGET}s" ;;
	*) echo "not ok $i $suite # exit status $rc" ;;
	esac
done
exit 0
