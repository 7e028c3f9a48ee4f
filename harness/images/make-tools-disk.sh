#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack what the guest runs -- harness/guest/ scripts, the manifest, the static
# workloads, the modules, the built kernel's version string, on 6.12 the
# BPF policies and their loader, and the
# kernel tree's mm selftests when harness/images/build-selftests.sh has built them
# (make stress does; make test never needs them) -- into
# build/tools-<variant>.img (tools-6.12-<variant>.img with KVER=6.12; ext4
# via mkfs.ext4 -d, ~1 s), so that a change to
# any of them reaches the guest without touching the rootfs.  The image is
# made again only when what it holds changed (a hash of its files, in
# build/tools-<variant>.img.content): mkfs gives every image a new UUID,
# and make run compares the image a resumed run boots with the one the run
# began with.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

VARIANT=${1:-default}
STAGE=$(aws_kdir tools "$VARIANT")
IMG=$STAGE.img
MOD=$(aws_kdir module "$VARIANT")
for f in "$MOD/module/anon_workingset.ko" "$MOD/smoke/aws_smoke.ko" "$AWS_BUILD/userspace/aws-thrash"; do
	[ -f "$f" ] || die "$f missing (run: make module userspace)"
done

rm -rf "$STAGE"
mkdir -p "$STAGE/bin" "$STAGE/module"
cp -a "$AWS_TOP/harness/guest" "$STAGE/guest"
# the suites' plan lines come from the manifest; the module suite checks
# the policy list against the registry and /proc against its reference page
cp -a "$AWS_TOP/harness/boot/manifest" "$STAGE/manifest"
python3 "$AWS_TOP/harness/experiment/plan.py" module-policies >"$STAGE/policies" ||
	die "cannot read the module's policy list"
cp -a "$AWS_TOP/docs/proc-anon_workingset.md" "$STAGE/"
# the readme suite runs README's commands as printed
cp -a "$AWS_TOP/README.md" "$STAGE/"
# The bzImage's version string (its setup header points at it: a 16-bit
# offset at 0x20e, from 0x200), which the harness suite compares with the
# running kernel's uname.
BZ=$(aws_kdir kernel "$VARIANT")/arch/x86/boot/bzImage
off=$(od -An -tu2 -j $((0x20e)) -N2 "$BZ" | tr -d ' ')
dd if="$BZ" bs=1 skip=$((off + 0x200)) count=256 status=none | tr '\0' '\n' | head -n 1 \
	>"$STAGE/kernel-version"
cp -a "$AWS_BUILD"/userspace/aws-* "$STAGE/bin/"
cp -a "$MOD/module/anon_workingset.ko" "$MOD/smoke/aws_smoke.ko" "$STAGE/module/"
# 6.12: the BPF policies, the programs the kernel must refuse, the loader
# and bpftool (harness/images/build-bpf.sh)
if [ "$AWS_KVER" = 6.12 ]; then
	BPF=$(aws_kdir bpf "$VARIANT")
	[ -f "$BPF/.aws-key" ] || die "$BPF is not built (run: make bpf KVER=6.12 VARIANT=$VARIANT)"
	mkdir -p "$STAGE/bpf"
	cp -a "$BPF"/*.bpf.o "$BPF/shared.list" "$BPF/aws-bpf-load" "$BPF/bpftool" "$STAGE/bpf/"
	# the user's own, built by make bpf-policy (build-bpf-policy.sh)
	USER_BPF=$AWS_BUILD/bpf-user$AWS_KSFX-$VARIANT
	if compgen -G "$USER_BPF/*.bpf.o" >/dev/null; then
		mkdir -p "$STAGE/bpf/user"
		cp -a "$USER_BPF"/*.bpf.o "$STAGE/bpf/user/"
	fi
fi
# only a complete build (its key is written last)
if [ -f "$AWS_BUILD/selftests$AWS_KSFX/.aws-key" ]; then
	cp -a "$AWS_BUILD/selftests$AWS_KSFX/bin" "$STAGE/selftests"
fi
# Build beside the image and rename over it: a guest still running from the
# old image keeps its inode instead of seeing its disk rewritten.
key=$(cd "$STAGE" && find . -print0 | LC_ALL=C sort -z |
	xargs -0 stat -c '%n %a %s' | cat - <(find . -type f -print0 | LC_ALL=C sort -z |
	xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)
[ -f "$IMG" ] && [ "$(cat "$IMG.content" 2>/dev/null)" = "$key" ] && exit 0
rm -f "$IMG.new" "$IMG.content"
mkfs.ext4 -q -F -L aws-tools -d "$STAGE" "$IMG.new" 64M >"$AWS_LOGS/mkfs-tools.log" 2>&1 ||
	die "mkfs.ext4 of the tools disk failed, see $AWS_LOGS/mkfs-tools.log"
mv -f "$IMG.new" "$IMG"
echo "$key" >"$IMG.content"
