#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack what the guest runs -- qemu/guest/ scripts, the manifest, the static
# workloads, the modules -- into build/tools-<variant>.img (ext4 via
# mkfs.ext4 -d, ~1 s), so that a change to any of them reaches the guest
# without touching the rootfs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VARIANT=${1:-default}
STAGE=$AWS_BUILD/tools-$VARIANT
IMG=$AWS_BUILD/tools-$VARIANT.img
MOD=$AWS_BUILD/module-$VARIANT
for f in "$MOD/module/anon_workingset.ko" "$MOD/smoke/aws_smoke.ko" "$AWS_BUILD/userspace/aws-thrash"; do
	[ -f "$f" ] || die "$f missing (run: make module userspace)"
done

rm -rf "$STAGE"
mkdir -p "$STAGE/bin" "$STAGE/module"
cp -a "$AWS_TOP/qemu/guest" "$STAGE/guest"
# the suites' plan lines come from the manifest
cp -a "$AWS_TOP/qemu/manifest" "$STAGE/manifest"
cp -a "$AWS_BUILD"/userspace/aws-* "$AWS_TOP/userspace/workloads/selftest.sh" "$STAGE/bin/"
cp -a "$MOD/module/anon_workingset.ko" "$MOD/smoke/aws_smoke.ko" "$STAGE/module/"
# Build beside the image and rename over it: a guest still running from the
# old image keeps its inode instead of seeing its disk rewritten.
rm -f "$IMG.new"
mkfs.ext4 -q -F -L aws-tools -d "$STAGE" "$IMG.new" 64M >"$AWS_LOGS/mkfs-tools.log" 2>&1 ||
	die "mkfs.ext4 of the tools disk failed, see $AWS_LOGS/mkfs-tools.log"
mv -f "$IMG.new" "$IMG"
