#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make test`: build what is missing, run the userspace unit tests, boot the
# guest test plan, check that the harness reports a guest kernel crash as a
# failure, and end with the line "N passed, N failed".
#
# Every result is a KTAP line somewhere: build/logs/unit.ktap (host unit
# tests), build/runs/test/ktap.log (guest suites), build/logs/host.ktap
# (host-side checks of the guest runs).  Exit status is non-zero if anything
# failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

VARIANT=${1:-default}
SUITES=${AWS_SUITES:-harness workloads module policies hostile reliability}
T0=$SECONDS
HOST_KTAP=$AWS_LOGS/host.ktap
: >"$HOST_KTAP"
host_n=0
host_result() { # host_result ok|not-ok NAME [why]
	host_n=$((host_n + 1))
	if [ "$1" = ok ]; then echo "ok $host_n $2" >>"$HOST_KTAP"
	else echo "not ok $host_n $2${3:+ # $3}" >>"$HOST_KTAP"; fi
}

stage "unit tests: policy core in userspace (userspace/tests)"
make -s --no-print-directory -C "$AWS_TOP/userspace/tests" O="$AWS_BUILD/userspace-tests" \
	>"$AWS_LOGS/unit.ktap" 2>&1
unit_rc=$?
read -r up uf us < <(awk -f "$AWS_TOP/qemu/ktap-count.awk" "$AWS_LOGS/unit.ktap")
[ $unit_rc = 0 ] || [ "$uf" != 0 ] || uf=1
stage_done "$up passed, $uf failed"
[ "$uf" = 0 ] || grep '^not ok\|error' "$AWS_LOGS/unit.ktap" | head -n 10

stage "build: kernel, rootfs, module, workloads, tools disk"
make -s --no-print-directory -C "$AWS_TOP" VARIANT="$VARIANT" kernel rootfs tools ||
	{ echo "0 passed, $((uf + 1)) failed"; exit 1; }
stage_done

stage "guest: test plan ($SUITES)"
bash "$AWS_TOP/qemu/run-guest.sh" --plan test --name test --mem 512M --cpus 2 \
	--variant "$VARIANT" --timeout "${AWS_TEST_TIMEOUT:-1200}" --append "aws.args=${SUITES// /,}"
case $? in
0) host_result ok guest_run_clean ;;
2) host_result not-ok guest_run_clean "kernel problem, see build/runs/test/console.log" ;;
*) host_result not-ok guest_run_clean "timeout or early stop, see build/runs/test/console.log" ;;
esac
read -r gp gf gs < <(awk -f "$AWS_TOP/qemu/ktap-count.awk" "$AWS_BUILD/runs/test/ktap.log")
grep -E '^\s*not ok' "$AWS_BUILD/runs/test/ktap.log" | sed 's/^ */   /'
stage_done "$gp passed, $gf failed, $gs skipped"

stage "guest: negative test (a guest kernel panic must fail the run)"
bash "$AWS_TOP/qemu/run-guest.sh" --plan panic --name panic --mem 256M --cpus 1 \
	--variant "$VARIANT" --timeout 120 >"$AWS_LOGS/panic-run.log" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q 'Kernel panic' "$AWS_BUILD/runs/panic/console.log"; then
	host_result ok harness_reports_guest_panic
else
	host_result not-ok harness_reports_guest_panic "run-guest.sh exit $rc, expected 2"
fi
stage_done

read -r hp hf hs < <(awk -f "$AWS_TOP/qemu/ktap-count.awk" "$HOST_KTAP")
pass=$((up + gp + hp)) failed=$((uf + gf + hf)) skipped=$((us + gs + hs))
echo "== make test: $((SECONDS - T0)) s; logs in build/logs/, guest console in build/runs/test/console.log"
[ "$skipped" = 0 ] || echo "($skipped skipped)"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
