#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make test`: build what is missing, run the userspace unit tests and the
# style checks, boot the guest suites, check that the harness reports a
# guest kernel crash as a failure, and end with the line "N passed, N failed".
#
# The guest suites run in two guests at once (one host core each, TCG is
# single-threaded): A = harness, workloads, module, policies, hostile;
# B = reliability and stress at make-test size.  Then a guest booted with
# cgroup_disable=memory and the negative panic test run side by side.
# AWS_SUITES="a b" runs just those suites in one guest instead (AWS_ENV=
# "AWS_X=1,AWS_Y=2" passes settings to them).  VARIANT=debug allows 4x the
# time.
#
# Every result is a KTAP line somewhere: build/logs/unit.ktap (unit tests),
# build/logs/host.ktap (host-side checks), build/runs/<run>/ktap.log (guest
# suites).  Exit status is non-zero if anything failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

VARIANT=${1:-default}
# The debug kernel (KASAN, lockdep, kmemleak) runs several times slower.
SLOW=1
[ "$VARIANT" = debug ] && SLOW=4
SUITE_ENV=AWS_SUITE_TIMEOUT=$((600 * SLOW))
T0=$SECONDS
HOST_KTAP=$AWS_LOGS/host.ktap
: >"$HOST_KTAP"
host_n=0
host_result() { # host_result ok|not-ok NAME [why]
	host_n=$((host_n + 1))
	if [ "$1" = ok ]; then echo "ok $host_n $2" >>"$HOST_KTAP"
	else echo "not ok $host_n $2${3:+ # $3}" >>"$HOST_KTAP"; fi
}
GUEST_RUNS=()
# guest NAME MEM TIMEOUT APPEND: boot the test plan in the background.
guest() {
	GUEST_RUNS+=("$1")
	bash "$AWS_TOP/qemu/run-guest.sh" --plan test --name "$1" --mem "$2" --cpus 2 \
		--variant "$VARIANT" --timeout $(($3 * SLOW)) --append "$4" \
		>"$AWS_LOGS/run-$1.log" 2>&1 &
	eval "PID_${1//-/_}=\$!"
}
# reap NAME: wait for a guest and record whether its kernel stayed clean.
reap() {
	local pid rc
	eval "pid=\$PID_${1//-/_}"
	wait "$pid"
	rc=$?
	sed 's/^/   /' "$AWS_LOGS/run-$1.log"
	case $rc in
	0) host_result ok "guest_${1}_clean" ;;
	2) host_result not-ok "guest_${1}_clean" "kernel problem, see build/runs/$1/console.log" ;;
	*) host_result not-ok "guest_${1}_clean" "timeout or early stop, see build/runs/$1/console.log" ;;
	esac
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

stage "style: checkpatch --strict and sparse on our kernel C"
bash "$AWS_TOP/qemu/check-style.sh" "$VARIANT" >"$AWS_LOGS/style.ktap"
while read -r line; do
	case $line in
	"ok "*) host_result ok "${line#ok [0-9]* }" ;;
	"not ok "*) host_result not-ok "${line#not ok [0-9]* }"; echo "   $line" ;;
	esac
done <"$AWS_LOGS/style.ktap"
stage_done

if [ -n "${AWS_SUITES:-}" ]; then
	stage "guest: $AWS_SUITES"
	guest test 512M 1800 "aws.args=${AWS_SUITES// /,} aws.env=$SUITE_ENV${AWS_ENV:+,$AWS_ENV}"
	reap test
	stage_done
else
	stage "guest: two guests in parallel (A: harness workloads module policies hostile; B: reliability stress)"
	guest test-a 512M 1200 "aws.args=harness,workloads,module,policies,hostile aws.env=$SUITE_ENV"
	guest test-b 512M 1200 \
		"aws.args=reliability,stress aws.env=$SUITE_ENV,AWS_CYCLES=20,AWS_FLIPS=200,AWS_STRESS_SECONDS=4"
	reap test-a
	reap test-b
	stage_done
	stage "guest: cgroup_disable=memory boot, and a guest that must be reported as crashed"
	guest test-nomemcg 256M 600 "cgroup_disable=memory aws.args=nomemcg aws.env=$SUITE_ENV"
	bash "$AWS_TOP/qemu/run-guest.sh" --plan panic --name panic --mem 256M --cpus 1 \
		--variant "$VARIANT" --timeout $((120 * SLOW)) >"$AWS_LOGS/run-panic.log" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q 'Kernel panic' "$AWS_BUILD/runs/panic/console.log"; then
		host_result ok harness_reports_guest_panic
	else
		host_result not-ok harness_reports_guest_panic "run-guest.sh exit $rc, expected 2"
	fi
	reap test-nomemcg
	stage_done
fi

pass=$up failed=$uf skipped=$us
for run in "${GUEST_RUNS[@]}"; do
	read -r gp gf gs < <(awk -f "$AWS_TOP/qemu/ktap-count.awk" "$AWS_BUILD/runs/$run/ktap.log")
	echo "   $run: $gp passed, $gf failed, $gs skipped ($(grep -h '^    # [a-z]*: [0-9]* s$' \
		"$AWS_BUILD/runs/$run/ktap.log" | sed 's/^    # //' | tr '\n' ' '))"
	grep -E '^\s*not ok' "$AWS_BUILD/runs/$run/ktap.log" | sed 's/^ */     /'
	pass=$((pass + gp)) failed=$((failed + gf)) skipped=$((skipped + gs))
done
read -r hp hf hs < <(awk -f "$AWS_TOP/qemu/ktap-count.awk" "$HOST_KTAP")
grep '^not ok' "$HOST_KTAP" | sed 's/^/   host: /'
pass=$((pass + hp)) failed=$((failed + hf)) skipped=$((skipped + hs))
echo "== make test: $((SECONDS - T0)) s; logs in build/logs/, guest consoles in build/runs/*/console.log"
[ "$skipped" = 0 ] || echo "($skipped skipped)"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
