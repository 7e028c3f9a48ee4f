#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Workloads suite: the kernel-facing cases of userspace/workloads/
# selftest.sh (a tiny run of every workload and its RESULT line, the page
# verifier catching a deliberately corrupted page, exact --records/--writes
# counts, early stop, sizes relative to MemTotal), run here on the guest
# kernel, each reported as a case of this suite.  make test runs all of the
# self-test's cases on the host too.  The manifest holds their number: a
# self-test that drops or adds a case fails the count.
. "$AWS_TOOLS/guest/lib.sh"

out=$(bash "$AWS_TOOLS/bin/selftest.sh" "$AWS_TOOLS/bin" kernel 2>&1)
rc=$?
diag "selftest.sh exit status $rc, $(grep -m1 '^1\.\.' <<<"$out") planned"
while read -r line; do
	name=${line#*ok [0-9]* }
	name=${name%% *}
	case $line in
	"ok "*) ok "$name" ;;
	*) fail "$name" "${line#*# }" ;;
	esac
done < <(grep -E '^(not )?ok [0-9]+ ' <<<"$out")
ktap_end
