#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel tree's own mm selftests that the mm-selftests guest suite
# runs (harness/guest/suites/mm-selftests.sh, make stress only): the programs
# of tools/testing/selftests/vm/ in linux-source-6.1 (selftests/mm/ in 6.12,
# where userfaultfd is called uffd-stress), with their own Makefile,
# statically linked (the guest rootfs has no libnuma or libcap) and stripped,
# into build/selftests/ (build/selftests-6.12/).  They are unmodified but for
# the fixes in harness/images/mm-selftests-patches/KVER/*.patch (one per
# tree: ksm_tests -U's own race, which the patch describes), applied to a
# copy of the source in build/selftests*/src/ and compiled from there with
# the command the Makefile uses for the program; the tree is never changed.
# The kernel's UAPI headers they include come from the same tree (make
# headers, into build/selftests*/khdr/).  make-tools-disk.sh ships
# build/selftests*/bin/ when it is there.
#
# Skipped while the key (package version, this script) is the one of the
# last successful build.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
# Flags of a calling make (e.g. -s) would reach the selftests' Makefile.
unset MAKEFLAGS MFLAGS MAKELEVEL

OUT=$AWS_BUILD/selftests$AWS_KSFX
case $AWS_KVER in
6.1) SUB=tools/testing/selftests/vm UFFD=userfaultfd ;;
6.12) SUB=tools/testing/selftests/mm UFFD=uffd-stress ;;
*) die "KVER=$AWS_KVER: no mm selftests known for this tree" ;;
esac
VM=$AWS_SRC/$SUB
# The programs the suite runs (its header says why each, and why not the
# others).  libnuma and libcap: ksm_tests and mlock-random-test link them.
PROGS=(map_populate map_fixed_noreplace mremap_test mremap_dontunmap
	mlock2-tests mlock-random-test on-fault-limit madv_populate
	transhuge-stress "$UFFD" mrelease_test soft-dirty ksm_tests
	compaction_test map_hugetlb hugepage-mremap)

[ -f "$VM/Makefile" ] || die "$VM missing (run: make kernel KVER=$AWS_KVER, which extracts the tree)"
for a in libnuma.a libcap.a libc.a; do
	[[ $(gcc -print-file-name="$a") == /* ]] ||
		die "static $a missing (run: make deps; libnuma-dev, libcap-dev)"
done
pkgver=$(kernel_pkg_version)
[ "$(cat "$AWS_SRC/.aws-pkgver" 2>/dev/null)" = "$pkgver" ] ||
	die "$AWS_SRC is not linux-source $pkgver (run: make kernel KVER=$AWS_KVER)"
FIXES=("$AWS_TOP/harness/images/mm-selftests-patches/$AWS_KVER"/*.patch)
[ -f "${FIXES[0]}" ] || die "no fixes for $AWS_KVER in harness/images/mm-selftests-patches/$AWS_KVER/"
key=$( { echo "$pkgver ${PROGS[*]}"; cat "$0" "${FIXES[@]}"; } | sha256sum | cut -c1-16)
if [ "$(cat "$OUT/.aws-key" 2>/dev/null)" = "$key" ]; then
	echo "   selftests: up to date (linux-source $pkgver, key $key)"
	exit 0
fi

stage "selftests: build ${#PROGS[@]} mm selftests of linux-source $pkgver (static)"
rm -rf "$OUT"
mkdir -p "$OUT/khdr" "$OUT/bin"
# O= keeps every output out of the tree; headers needs no .config.
run_logged "$AWS_LOGS/selftests-headers.log" make -C "$AWS_SRC" O="$OUT/khdr" headers ||
	die "make headers failed, see $AWS_LOGS/selftests-headers.log"
# 6.1's mrelease_test takes the syscall numbers it uses from
# <sys/syscall.h> without including it (6.12's does), and falls back to -1
# (ENOSYS, so it skips) where the C library does not include it for it:
# glibc 2.36 does not.  It gets the include on the command line; no source
# changes.
SYSCALL_H=()
grep -q '<sys/syscall.h>' "$VM/mrelease_test.c" || SYSCALL_H=(mrelease_test)
st_make() {
	make -C "$VM" -j"$(nproc)" OUTPUT="$OUT/bin" KHDR_INCLUDES="-isystem $OUT/khdr/usr/include" \
		USERLDFLAGS="-static -s" "$@"
}
PLAIN=()
for p in "${PROGS[@]}"; do
	case " ${SYSCALL_H[*]} " in *" $p "*) ;; *) PLAIN+=("$OUT/bin/$p") ;; esac
done
{
	st_make "${PLAIN[@]}" &&
		if [ ${#SYSCALL_H[@]} -gt 0 ]; then
			st_make EXTRA_CFLAGS="-include sys/syscall.h" "${SYSCALL_H[@]/#/$OUT/bin/}"
		fi
} >"$AWS_LOGS/selftests.log" 2>&1 || {
	tail -n 30 "$AWS_LOGS/selftests.log" >&2
	die "selftests build failed, see $AWS_LOGS/selftests.log"
}
# The fixed programs: each patch names the file it changes (one program's
# source); the copy is compiled with the command the Makefile prints for
# that program (make -n, run in the tree's directory as make would), its
# source swapped for the copy, over the unfixed binary.
mkdir -p "$OUT/src"
for f in "${FIXES[@]}"; do
	file=$(sed -n "s|^+++ b/\($SUB/[^ 	]*\).*|\1|p" "$f")
	prog=$(basename "$file" .c)
	[ -f "$AWS_SRC/$file" ] || die "$(basename "$f") changes $file, which is not in the tree"
	mkdir -p "$OUT/src/$(dirname "$file")"
	cp "$AWS_SRC/$file" "$OUT/src/$file"
	patch -d "$OUT/src" -p1 -s <"$f" || die "$(basename "$f") does not apply to $file"
	cmd=$(st_make -s -n -B "$OUT/bin/$prog" 2>>"$AWS_LOGS/selftests.log" |
		grep -E -- "-o $OUT/bin/$prog\$" || true)
	[[ " $cmd " == *" $prog.c "* ]] ||
		die "no command that compiles $prog.c in make -n's output (${cmd:-none})"
	# (-iquote: the copy's own "../kselftest.h" and the like are the tree's)
	cmd=${cmd/ $prog.c / -iquote $VM $OUT/src/$file }
	(cd "$VM" && eval "$cmd") >>"$AWS_LOGS/selftests.log" 2>&1 ||
		die "$prog (with $(basename "$f")) failed to build, see $AWS_LOGS/selftests.log"
	note "$prog: built with $(basename "$f")"
done
for p in "${PROGS[@]}"; do
	[ -x "$OUT/bin/$p" ] || die "$p was not built, see $AWS_LOGS/selftests.log"
	# (a here-string: grep -q ending a pipe can fail it under pipefail)
	! grep -q 'program interpreter' <<<"$(readelf -l "$OUT/bin/$p")" ||
		die "$p is not statically linked"
done
echo "linux-source $pkgver" >"$OUT/bin/VERSION"
echo "$key" >"$OUT/.aws-key"
stage_done "$(du -sk "$OUT/bin" | cut -f1) KiB"
