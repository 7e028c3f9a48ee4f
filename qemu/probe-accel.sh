#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Decide how QEMU accelerates the guest and print "kvm" or "tcg".
#
# /dev/kvm existing is not enough: on some hosts it is backed by a module
# that cannot run a real guest (QEMU aborts at once, or the guest crawls and
# dies with "KVM internal error ... emulation failure").  So we boot the real
# kernel with KVM, without a root disk, and accept KVM only if it reaches the
# "VFS: Unable to mount root fs" panic within 20 s.  The verdict is cached in
# build/accel (delete it to probe again); ACCEL=kvm|tcg overrides.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KERNEL=$1
if [ -n "${ACCEL:-}" ]; then
	case $ACCEL in kvm|tcg) echo "$ACCEL"; exit 0 ;; esac
	die "ACCEL must be kvm or tcg, not '$ACCEL'"
fi
CACHE=$AWS_BUILD/accel
if [ -f "$CACHE" ]; then
	cat "$CACHE"
	exit 0
fi
verdict=tcg
if [ -w /dev/kvm ]; then
	log=$AWS_LOGS/kvm-probe.log
	(timeout -k 5 20 qemu-system-x86_64 -accel kvm -cpu host -m 256M -kernel "$KERNEL" \
		-append "console=ttyS0 panic=-1" -display none -no-reboot -monitor none \
		-serial "file:$log" >/dev/null 2>&1 || true) 2>/dev/null
	grep -q 'Unable to mount root fs' "$log" 2>/dev/null && verdict=kvm
fi
echo "   accel probe: /dev/kvm $([ -e /dev/kvm ] && echo present || echo absent), using $verdict" >&2
echo $verdict >"$CACHE"
echo $verdict
