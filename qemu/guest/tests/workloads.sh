#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Workloads suite: a tiny run of every workload in the guest, its RESULT line
# parses, and the page verifier catches a deliberately corrupted page
# (the kernel-facing cases of userspace/workloads/selftest.sh, run here on
# the guest kernel; make test runs all of its cases on the host too).
. "$AWS_TOOLS/guest/lib.sh"

out=$(bash "$AWS_TOOLS/bin/selftest.sh" "$AWS_TOOLS/bin" kernel 2>&1)
rc=$?
echo "$out" | grep -E '^(not )?ok ' | sed 's/^\(not \)\{0,1\}ok [0-9]* //' >/tmp/wl-cases
echo "$out" | grep '^not ok' | sed 's/^/# /'
n_ok=$(echo "$out" | grep -c '^ok ')
n_bad=$(echo "$out" | grep -c '^not ok')
expect selftest_cases_passed passed "$n_ok" -ge 14
expect selftest_cases_failed failed "$n_bad" -eq 0
check selftest_exit_status test "$rc" = 0
ktap_end
