#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build anon_workingset.ko and the harness smoke module against
# build/kernel-<variant> (build/kernel-6.12-<variant> with KVER=6.12).
# Sources are mirrored into build/module-<variant>/ (module-6.12-<variant>/)
# (module/, include/, smoke/) so that kbuild's outputs never land in the
# source tree; cp -p keeps timestamps, so kbuild recompiles only what changed.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
# Flags of a calling make (e.g. -s from `make -s kernel`) would silence the
# kernel build log that the progress lines and error reports read.
unset MAKEFLAGS MFLAGS MAKELEVEL

VARIANT=${1:-default}
OBJ=$(aws_kdir kernel "$VARIANT")
OUT=$(aws_kdir module "$VARIANT")
[ -f "$OBJ/Module.symvers" ] || die "$OBJ is not built (run: make kernel KVER=$AWS_KVER VARIANT=$VARIANT)"

# Nothing to do when the sources and the kernel build are those of the
# last successful build (kbuild itself takes about 3 s to find that out).
key=$(cat "$AWS_TOP"/module/*.[ch] "$AWS_TOP"/module/Kbuild "$AWS_TOP"/module/policies/*.c \
	"$AWS_TOP"/include/*.h "$AWS_TOP"/harness/images/smoke-module/* "$OBJ/.aws-built-key" "$0" |
	sha256sum | cut -c1-16)
if [ "$(cat "$OUT/.aws-key" 2>/dev/null)" = "$key" ] &&
	[ -f "$OUT/module/anon_workingset.ko" ] && [ -f "$OUT/smoke/aws_smoke.ko" ]; then
	echo "   module: $AWS_KVER $VARIANT up to date (key $key)"
	exit 0
fi
rm -f "$OUT/.aws-key"
stage "module: build anon_workingset.ko + aws_smoke.ko ($AWS_KVER $VARIANT)"
rm -rf "$OUT/module/policies"
# A module whose sources did not change is not rebuilt by kbuild, but its
# BTF is split against vmlinux's: after a kernel rebuild the old one is
# refused at insmod ("failed to validate module BTF"), so every object
# goes (ccache makes the rebuild cheap).
if ! cmp -s "$OBJ/.aws-built-key" "$OUT/.aws-kernel-key"; then
	rm -rf "${OUT:?}/module" "${OUT:?}/smoke"
fi
mkdir -p "$OUT/module/policies" "$OUT/include" "$OUT/smoke"
cp -p "$AWS_TOP"/module/*.[ch] "$AWS_TOP"/module/Kbuild "$OUT/module/"
cp -p "$AWS_TOP"/module/policies/*.c "$OUT/module/policies/"
cp -p "$AWS_TOP"/include/*.h "$OUT/include/"
cp -p "$AWS_TOP"/harness/images/smoke-module/* "$OUT/smoke/"
for m in module smoke; do
	make -C "$OBJ" M="$OUT/$m" CC="ccache gcc" W=1 modules >"$AWS_LOGS/module-$m-$VARIANT.log" 2>&1 || {
		grep -E 'error|warning' "$AWS_LOGS/module-$m-$VARIANT.log" | head -20 >&2
		die "module build failed, see $AWS_LOGS/module-$m-$VARIANT.log"
	}
	if grep -q 'warning:' "$AWS_LOGS/module-$m-$VARIANT.log"; then
		grep 'warning:' "$AWS_LOGS/module-$m-$VARIANT.log" >&2
		die "module build has warnings, see $AWS_LOGS/module-$m-$VARIANT.log"
	fi
done
stage_done ""
cp "$OBJ/.aws-built-key" "$OUT/.aws-kernel-key"
echo "$key" >"$OUT/.aws-key"
