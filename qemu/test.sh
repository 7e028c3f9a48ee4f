#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make test`: build what is missing, run the userspace unit tests and the
# style checks, boot the guest suites, check that the harness reports a
# guest kernel crash as a failure, and end with the line "N passed, N failed".
#
# The guest suites run in two lanes at once (one host core each, TCG is
# single-threaded): lane 1 boots guest A (workloads, policies), then guest
# C, booted with cgroup_disable=memory (harness, nomemcg); lane 2 boots
# guest B (module, hostile, and reliability and stress at make-test size),
# then the negative test, a guest that panics on purpose.  The harness
# suite's memory hog runs in C: under TCG the first episode of global memory
# pressure in a boot costs about 10 s, and nomemcg needs one anyway.  The
# style checks are skipped when nothing they read has changed since they
# last passed.
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
# guest NAME MEM TIMEOUT APPEND: boot the test plan (in the foreground; the
# lanes below run in the background); the exit status goes to run-NAME.rc.
guest() {
	bash "$AWS_TOP/qemu/run-guest.sh" --plan test --name "$1" --mem "$2" --cpus 2 \
		--variant "$VARIANT" --timeout $(($3 * SLOW)) --append "$4" \
		>"$AWS_LOGS/run-$1.log" 2>&1
	echo $? >"$AWS_LOGS/run-$1.rc"
}
# reap NAME: show a finished guest's host log, record whether its kernel
# stayed clean.
reap() {
	local rc
	GUEST_RUNS+=("$1")
	rc=$(cat "$AWS_LOGS/run-$1.rc" 2>/dev/null || echo 3)
	sed 's/^/   /' "$AWS_LOGS/run-$1.log"
	case $rc in
	0) host_result ok "guest_${1}_clean" ;;
	2) host_result not-ok "guest_${1}_clean" "kernel problem, see build/runs/$1/console.log" ;;
	*) host_result not-ok "guest_${1}_clean" "timeout or early stop, see build/runs/$1/console.log" ;;
	esac
}
# panic_guest: the negative test; a guest crashed on purpose must be
# reported as crashed (run-guest.sh exit status 2).
panic_guest() {
	bash "$AWS_TOP/qemu/run-guest.sh" --plan panic --name panic --mem 256M --cpus 1 \
		--variant "$VARIANT" --timeout $((120 * SLOW)) >"$AWS_LOGS/run-panic.log" 2>&1
	echo $? >"$AWS_LOGS/run-panic.rc"
}
rm -f "$AWS_LOGS"/run-*.rc

stage "unit tests: policy core (userspace/tests), workload self-test (host)"
make -s --no-print-directory -C "$AWS_TOP/userspace/tests" O="$AWS_BUILD/userspace-tests" \
	>"$AWS_LOGS/unit.ktap" 2>&1
unit_rc=$?
make -s --no-print-directory -C "$AWS_TOP/userspace/workloads" O="$AWS_BUILD/userspace" check \
	>>"$AWS_LOGS/unit.ktap" 2>&1 || unit_rc=1
read -r up uf us < <(awk -f "$AWS_TOP/qemu/ktap-count.awk" "$AWS_LOGS/unit.ktap")
[ $unit_rc = 0 ] || [ "$uf" != 0 ] || uf=1
stage_done "$up passed, $uf failed"
[ "$uf" = 0 ] || grep '^not ok\|error' "$AWS_LOGS/unit.ktap" | head -n 10

stage "build: kernel, rootfs, module, workloads, tools disk"
make -s --no-print-directory -C "$AWS_TOP" VARIANT="$VARIANT" kernel rootfs tools ||
	{ echo "0 passed, $((uf + 1)) failed"; exit 1; }
stage_done

stage "style: checkpatch --strict and sparse on our kernel C"
# Everything the checks read: our kernel C, the patches, the checker script,
# the kernel build (checkpatch.pl, sparse's view of the headers) and sparse.
style_key=$(cat "$AWS_TOP"/module/* "$AWS_TOP"/include/*.h "$AWS_TOP"/qemu/smoke-module/* \
	"$AWS_TOP"/patches/* "$AWS_TOP/qemu/check-style.sh" \
	"$AWS_BUILD/kernel-$VARIANT/.aws-built-key" 2>/dev/null | cat - <(sparse --version 2>&1) |
	sha256sum | cut -c1-16)
STYLE_KEY_FILE=$AWS_BUILD/style-$VARIANT.key
if [ "$(cat "$STYLE_KEY_FILE" 2>/dev/null)" = "$style_key" ] && [ -s "$AWS_LOGS/style.ktap" ]; then
	style_note="unchanged since they passed (key $style_key): build/logs/style.ktap"
else
	rm -f "$STYLE_KEY_FILE"
	bash "$AWS_TOP/qemu/check-style.sh" "$VARIANT" >"$AWS_LOGS/style.ktap" &&
		echo "$style_key" >"$STYLE_KEY_FILE"
	style_note=
fi
while read -r line; do
	case $line in
	"ok "*) host_result ok "${line#ok [0-9]* }" ;;
	"not ok "*) host_result not-ok "${line#not ok [0-9]* }"; echo "   $line" ;;
	esac
done <"$AWS_LOGS/style.ktap"
grep -q '^ok \|^not ok ' "$AWS_LOGS/style.ktap" ||
	host_result not-ok style_checks_ran "qemu/check-style.sh printed no results"
stage_done "$style_note"

# Probe KVM once here, not in each of the guests started at once below.
accel=$(bash "$AWS_TOP/qemu/probe-accel.sh" "$AWS_BUILD/kernel-$VARIANT/arch/x86/boot/bzImage") ||
	{ echo "0 passed, $((uf + 1)) failed"; exit 1; }
echo "   accelerator: $accel (build/accel caches the verdict)"

if [ -n "${AWS_SUITES:-}" ]; then
	stage "guest: $AWS_SUITES"
	guest test 512M 1800 "aws.args=${AWS_SUITES// /,} aws.env=$SUITE_ENV${AWS_ENV:+,$AWS_ENV}"
	reap test
	stage_done
else
	stage "guests, two lanes: A (workloads policies) then C (cgroup_disable=memory:" \
		"harness nomemcg); B (module hostile reliability stress) then a guest that must be reported as crashed"
	{
		guest test-a 256M 900 "aws.args=workloads,policies aws.env=$SUITE_ENV"
		guest test-c 192M 600 "cgroup_disable=memory aws.args=harness,nomemcg aws.env=$SUITE_ENV"
	} &
	lane1=$!
	{
		guest test-b 512M 900 "aws.args=module,hostile,reliability,stress aws.env=$SUITE_ENV,AWS_CYCLES=20,AWS_FLIPS=200,AWS_STRESS_SECONDS=1,AWS_LIMIT_MB=16"
		panic_guest
	} &
	wait $lane1 $!
	reap test-a
	reap test-b
	reap test-c
	rc=$(cat "$AWS_LOGS/run-panic.rc" 2>/dev/null || echo none)
	if [ "$rc" = 2 ] && grep -q 'Kernel panic' "$AWS_BUILD/runs/panic/console.log"; then
		host_result ok harness_reports_guest_panic
	else
		host_result not-ok harness_reports_guest_panic "run-guest.sh exit $rc, expected 2"
	fi
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
