#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the guest kernel in QEMU and run one plan from qemu/guest/plans/.
#
# Disks: vda = rootfs (snapshot, never modified), vdb = tools (read-only:
# guest scripts, workloads, modules), vdc = swap, vdd = results (the guest
# writes a tar of /tmp/results onto it).  Serial: ttyS0 = console (kernel log
# and everything), ttyS1 = clean test channel (KTAP only, no printk).
#
# The host side enforces a watchdog timeout and scans the console for panics,
# oopses, BUG/WARNING splats, hung tasks, RCU stalls, lockups, sanitizer
# reports, bad swap entries and allocation failures (console_scan, qemu/lib.sh).
# Exit status: 0 = guest finished and the console is clean (test verdicts are
# in ktap.log, counted by qemu/ktap-count.awk), 2 = kernel problem, 3 = timeout or
# the guest died before finishing, 1 = usage/setup error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PLAN=test MEM=512M CPUS=2 SWAP=1G TIMEOUT=900 APPEND="" VARIANT=default NAME="" INTERACTIVE=0
ICOUNT=""
usage() {
	cat <<USAGE
usage: $0 --plan PLAN [--mem 512M] [--cpus 2] [--swap 1G] [--timeout SECONDS]
          [--append 'kernel args'] [--variant default|debug|unpatched] [--name RUN]
          [--icount SUBOPTIONS] [--interactive]
--variant unpatched boots build/kernel-unpatched (no hook patch) with the
default variant's tools disk; --icount passes -icount SUBOPTIONS to QEMU
(TCG only: guest time counts executed instructions, see qemu/bench-cost.sh)
plans: $(cd "$AWS_TOP/qemu/guest/plans" && for p in *.sh; do printf '%s ' "${p%.sh}"; done)
USAGE
	exit 1
}
while [ $# -gt 0 ]; do
	case $1 in
	--plan) PLAN=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--cpus) CPUS=$2; shift 2 ;;
	--swap) SWAP=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--append) APPEND=$2; shift 2 ;;
	--variant) VARIANT=$2; shift 2 ;;
	--name) NAME=$2; shift 2 ;;
	--icount) ICOUNT=$2; shift 2 ;;
	--interactive) INTERACTIVE=1; shift ;;
	-h|--help) usage ;;
	*) echo "error: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -f "$AWS_TOP/qemu/guest/plans/$PLAN.sh" ] || { echo "error: no plan '$PLAN'" >&2; usage; }
[[ $MEM =~ ^[0-9]+[MG]$ ]] || die "--mem must look like 512M or 2G, not '$MEM'"
[[ $SWAP =~ ^[0-9]+[MG]$ ]] || die "--swap must look like 1G or 512M, not '$SWAP'"
[[ $CPUS =~ ^[1-9][0-9]*$ ]] || die "--cpus must be a positive integer, not '$CPUS'"
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive number of seconds"

KERNEL=$AWS_BUILD/kernel-$VARIANT/arch/x86/boot/bzImage
ROOTFS=$AWS_BUILD/rootfs.img
TOOLS=$AWS_BUILD/tools-$VARIANT.img
# the unpatched kernel has no module of its own; its plans use the workloads
[ "$VARIANT" = unpatched ] && TOOLS=$AWS_BUILD/tools-default.img
for f in "$KERNEL" "$ROOTFS" "$TOOLS"; do
	[ -f "$f" ] || die "$f missing (run: make kernel rootfs tools)"
done
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (run: make deps)"

RUN=$AWS_BUILD/runs/${NAME:-$PLAN}
rm -rf "$RUN"
mkdir -p "$RUN/results"
truncate -s "$SWAP" "$RUN/swap.img"
truncate -s 256M "$RUN/results.img"

ACCEL=$("$AWS_TOP/qemu/probe-accel.sh" "$KERNEL")
# Multi-threaded TCG is faster but does not honour cross-modifying code: a
# static key flipped while another vCPU runs the patched code can leave that
# vCPU on a stale int3 and oops the guest (reproduced with the stock
# vm.numa_stat key, no module involved; see docs/design.md).  Guests
# therefore always run single-threaded TCG.
case $ACCEL in
kvm) CPU=host ACCEL_OPT=kvm ;;
*) CPU=max ACCEL_OPT=tcg,thread=single ;;
esac
ICOUNT_OPT=()
if [ -n "$ICOUNT" ]; then
	[ "$ACCEL" = tcg ] || die "--icount needs TCG (run with ACCEL=tcg)"
	ICOUNT_OPT=(-icount "$ICOUNT")
fi

CMDLINE="console=ttyS0 root=/dev/vda rw init=/sbin/aws-init panic=-1 oops=panic"
CMDLINE+=" hung_task_panic=1 softlockup_panic=1 aws.plan=$PLAN"
# No address-space randomisation: TCG finds the code it has translated by
# virtual address, so with ASLR every exec translates ld.so and libc anew.
# Measured in a 256M guest: fork+exec of /bin/true 54 ms -> 12 ms, of awk
# 71 ms -> 17 ms, bash -c : 276 ms -> 74 ms; the guest suites are shell
# scripts.  Reclaim does not look at virtual addresses.
CMDLINE+=" norandmaps"
# The debug kernel (KASAN, lockdep, kmemleak) under TCG is slow enough that
# ACPI's PCI routing methods time out and the soft-lockup watchdog fires
# during boot: route PCI interrupts without ACPI, give the watchdog its
# longest threshold.
[ "$VARIANT" = debug ] && CMDLINE+=" pci=noacpi watchdog_thresh=60"
CMDLINE+=" $APPEND"
QEMU=(qemu-system-x86_64 -accel "$ACCEL_OPT" "${ICOUNT_OPT[@]}" -cpu "$CPU" -m "$MEM" -smp "$CPUS"
	-kernel "$KERNEL" -append "$CMDLINE"
	-drive "file=$ROOTFS,if=virtio,format=raw,snapshot=on"
	-drive "file=$TOOLS,if=virtio,format=raw,readonly=on"
	-drive "file=$RUN/swap.img,if=virtio,format=raw"
	-drive "file=$RUN/results.img,if=virtio,format=raw"
	-display none -no-reboot -monitor none)
echo "${QEMU[*]}" >"$RUN/qemu-cmdline"

if [ $INTERACTIVE = 1 ]; then
	echo "interactive guest ($ACCEL, $MEM, $CPUS CPUs); 'exit' powers it off"
	"${QEMU[@]}" -serial mon:stdio -serial "file:$RUN/ktap.log"
	exit 0
fi

echo "   guest: plan=$PLAN accel=$ACCEL_OPT${ICOUNT:+ icount=$ICOUNT} mem=$MEM cpus=$CPUS swap=$SWAP timeout=${TIMEOUT}s log=${RUN#"$AWS_TOP"/}/console.log"
rc=0
timeout --kill-after=10 "$TIMEOUT" "${QEMU[@]}" \
	-serial "file:$RUN/console.log" -serial "file:$RUN/ktap.log" || rc=$?
sed -i 's/\r$//' "$RUN/console.log" "$RUN/ktap.log"
tar -C "$RUN/results" -xf "$RUN/results.img" 2>/dev/null || true
rm -f "$RUN/swap.img"

# Kernel problems, whatever the tests said: the patterns shared by every
# script (AWS_CONSOLE_PATTERNS in qemu/lib.sh).
if hits=$(console_scan "$RUN/console.log"); then
	echo "error: guest kernel reported a problem; console log: $RUN/console.log" >&2
	head -n 10 <<<"$hits" | cut -d: -f2- | sed 's/^/   /' >&2
	exit 2
fi
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "error: guest timed out after ${TIMEOUT}s; console log: $RUN/console.log" >&2
	tail -n 5 "$RUN/console.log" | sed 's/^/   /' >&2
	exit 3
fi
if [ $rc != 0 ]; then
	echo "error: qemu exited with status $rc; console log: $RUN/console.log" >&2
	exit 3
fi
if ! grep -q '^# aws-guest: done' "$RUN/ktap.log"; then
	echo "error: guest stopped before finishing its plan; console log: $RUN/console.log" >&2
	tail -n 5 "$RUN/console.log" | sed 's/^/   /' >&2
	exit 3
fi
exit 0
