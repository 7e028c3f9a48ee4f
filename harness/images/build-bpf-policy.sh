#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bpf-policy SRC=path/to/NAME.bpf.c`: build one BPF policy of the
# user's, a file anywhere, against the 6.12 tree's and the module's types
# (the aws_vmlinux.h of harness/images/build-bpf.sh, the flags of the
# project's own policies), with its libbpf skeleton, into
# build/bpf-user-6.12-<variant>/, then put it on the tools disk: in
# `make shell KVER=6.12` it is /mnt/tools/bpf/user/NAME.bpf.o.  Nothing
# lists the policy anywhere.  The compiler's errors go to the terminal;
# the verifier's and the module's reasons come when aws-bpf-load loads it.
#
# usage: harness/images/build-bpf-policy.sh VARIANT SRC [OUTDIR]
# (OUTDIR: build there and leave the tools disk alone; the host test does)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL

VARIANT=$1 SRC=${2:-} OUTDIR=${3:-}
[ "$AWS_KVER" = 6.12 ] || die "BPF policies need the 6.12 kernel (KVER=6.12), not $AWS_KVER"
[ -n "$SRC" ] || die "SRC= the policy to build: make bpf-policy SRC=path/to/NAME.bpf.c"
[ -f "$SRC" ] || die "SRC=$SRC: no such file"
name=$(basename "$SRC" .bpf.c)
[ "$name.bpf.c" = "$(basename "$SRC")" ] || die "SRC=$SRC: a policy is a file NAME.bpf.c"
[[ $name =~ ^[a-z0-9_]{1,15}$ ]] ||
	die "SRC=$SRC: NAME must be 1 to 15 of [a-z0-9_], as the policy's name (docs/bpf.md)"
BPF=$(aws_kdir bpf "$VARIANT")
[ -f "$BPF/.aws-key" ] || die "$BPF is not built (run: make bpf KVER=6.12 VARIANT=$VARIANT)"
TOOLS=$AWS_BUILD/bpf-tools$AWS_KSFX
OUT=${OUTDIR:-$AWS_BUILD/bpf-user$AWS_KSFX-$VARIANT}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
src=$(cd "$(dirname "$SRC")" && pwd)/$(basename "$SRC")
rm -f "$OUT/$name.bpf.o" "$OUT/$name.skel.h"
make -s --no-print-directory -C "$AWS_TOP/userspace/bpf" user O="$BPF" SRC="$src" \
	USER_OUT="$OUT" BPFTOOL="$TOOLS/bpftool/bpftool" LIBBPF_INCLUDE="$TOOLS/inst/include" ||
	{ rm -f "$OUT/$name.bpf.o" "$OUT/$name.skel.h"; die "$SRC did not build (above)"; }
echo "== bpf-policy: ${OUT#"$AWS_TOP"/}/$name.bpf.o and $name.skel.h"
[ -n "$OUTDIR" ] && exit 0
bash "$AWS_TOP/harness/images/make-tools-disk.sh" "$VARIANT"
echo "   in make shell KVER=6.12: aws-bpf-load -c /sys/fs/cgroup/CG /mnt/tools/bpf/user/$name.bpf.o"
