#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build what BPF policies need on the 6.12 guest (KVER=6.12 only):
#   1. libbpf and bpftool from the 6.12 tree's own tools/, static, into
#      build/bpf-tools-6.12/ (Debian 12's libbpf 1.1 cannot load a struct_ops
#      type that lives in a module's BTF; nothing is fetched);
#   2. for one kernel variant, into build/bpf-6.12-<variant>/: the header of
#      the kernel's and the module's types (bpftool's dump of
#      anon_workingset.ko's BTF over vmlinux's), the policies and the
#      programs the verifier must refuse (userspace/bpf/), and the loader.
# make-tools-disk.sh puts the second folder and bpftool on the tools disk.
#
# usage: harness/images/build-bpf.sh [default|debug]
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL

VARIANT=${1:-default}
[ "$AWS_KVER" = 6.12 ] || die "BPF policies need the 6.12 kernel (KVER=6.12), not $AWS_KVER"
OBJ=$(aws_kdir kernel "$VARIANT")
MOD=$(aws_kdir module "$VARIANT")
KO=$MOD/module/anon_workingset.ko
TOOLS=$AWS_BUILD/bpf-tools$AWS_KSFX
OUT=$(aws_kdir bpf "$VARIANT")
for c in clang pahole; do
	command -v $c >/dev/null || die "$c missing (run: make deps KVER=6.12)"
done
[ -f "$KO" ] || die "$KO missing (run: make module KVER=6.12 VARIANT=$VARIANT)"
grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$OBJ/.config" ||
	die "$OBJ has no module BTF: BPF policies need CONFIG_DEBUG_INFO_BTF_MODULES (harness/images/kernel-6.12.config)"

# 1. libbpf and bpftool, once per tree version.
tkey=$( { kernel_pkg_version; cat "$0"; } | sha256sum | cut -c1-16)
if [ "$(cat "$TOOLS/.aws-key" 2>/dev/null)" != "$tkey" ]; then
	stage "bpf: libbpf and bpftool from linux-source-$AWS_KVER's tools/"
	rm -rf "$TOOLS"
	mkdir -p "$TOOLS/libbpf" "$TOOLS/bpftool" "$TOOLS/inst"
	run_logged "$AWS_LOGS/bpf-libbpf.log" make -C "$AWS_SRC/tools/lib/bpf" -j"$(nproc)" \
		OUTPUT="$TOOLS/libbpf/" DESTDIR="$TOOLS/inst" prefix= \
		"$TOOLS/libbpf/libbpf.a" install_headers ||
		die "libbpf build failed, see $AWS_LOGS/bpf-libbpf.log"
	run_logged "$AWS_LOGS/bpf-bpftool.log" make -C "$AWS_SRC/tools/bpf/bpftool" -j"$(nproc)" \
		OUTPUT="$TOOLS/bpftool/" EXTRA_LDFLAGS=-static ||
		die "bpftool build failed, see $AWS_LOGS/bpf-bpftool.log"
	echo "$tkey" >"$TOOLS/.aws-key"
	stage_done "$("$TOOLS/bpftool/bpftool" version | head -n 1)"
fi

# 2. The header, the BPF objects and the loader, for this module build.
key=$( { cat "$MOD/.aws-key" "$TOOLS/.aws-key"; cat "$AWS_TOP"/userspace/bpf/Makefile \
	"$AWS_TOP"/userspace/bpf/*.[ch] "$AWS_TOP"/userspace/bpf/refused/*.c; } | sha256sum | cut -c1-16)
if [ "$(cat "$OUT/.aws-key" 2>/dev/null)" = "$key" ]; then
	echo "   bpf: $AWS_KVER $VARIANT up to date (key $key)"
	exit 0
fi
stage "bpf: policies, refused programs and loader ($AWS_KVER $VARIANT)"
rm -rf "$OUT"
mkdir -p "$OUT"
"$TOOLS/bpftool/bpftool" -B "$OBJ/vmlinux" btf dump file "$KO" format c >"$OUT/aws_vmlinux.h" ||
	die "bpftool cannot dump the BTF of $KO"
grep -q '^struct aws_bpf_ops {' "$OUT/aws_vmlinux.h" ||
	die "$KO has no struct aws_bpf_ops in its BTF (was it built without BPF policies?)"
# The module's BTF also has the types its policy files define (their
# states, struct aws_displaced), which the same files define again when
# built as BPF (userspace/bpf/Makefile's SHARED): the dump's are renamed.
own=$( { awk '/^#else/ { c = 1 } /^#endif \/\* !AWS_TARGET_BPF/ { c = 0 }
	      !c && /^struct [a-z0-9_]+ \{$/ { print $2 }' "$AWS_TOP/include/aws_policy.h"
	 sed -n 's/^struct \([a-z0-9_]*\) {$/\1/p' "$AWS_TOP"/module/policies/*.c; } |
	sort -u | paste -sd'|')
[ -n "$own" ] && sed -E -i "s/\<struct ($own)\>/struct \1___btf/g" "$OUT/aws_vmlinux.h"
run_logged "$AWS_LOGS/bpf-$VARIANT.log" make -C "$AWS_TOP/userspace/bpf" O="$OUT" \
	LIBBPF="$TOOLS/libbpf/libbpf.a" LIBBPF_INCLUDE="$TOOLS/inst/include" ||
	die "BPF programs or loader failed to build, see $AWS_LOGS/bpf-$VARIANT.log"
cp -a "$TOOLS/bpftool/bpftool" "$OUT/"
echo "$key" >"$OUT/.aws-key"
stage_done "$(find "$OUT" -name '*.bpf.o' | wc -l) BPF objects"
