#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Style checks on the code we own, as a KTAP document on stdout:
# checkpatch --strict on module/, include/ and the smoke module, checkpatch
# --strict on every patch of the kernel's series (patches/<kver>/), sparse (make C=2) on the module,
# and ShellCheck (warnings and errors) on every shell script, host and
# guest.
# Needs the extracted kernel tree (make kernel) and the module build
# (make module).  Exit status non-zero if any check reports anything or did
# not run.
#
# A check passes only if its tool demonstrably ran: checkpatch must exit 0
# or 1 and print its "total: ... lines checked" summary for every file it
# was given; sparse must have been found and make must exit 0 after
# printing a CHECK line for every module source.  A missing tool, a perl
# error or a missing kernel tree is a failure ("did not run"), never an
# empty, clean-looking findings log; shellcheck must exit 0 or 1 and name
# every script in its report.  AWS_CHECKPATCH, AWS_SPARSE and AWS_SHELLCHECK
# override the tools (harness/unit/test-check-style.sh uses them to break each
# one).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
# A calling make's -s would silence kbuild's CHECK lines counted below.
unset MAKEFLAGS MFLAGS MAKELEVEL

VARIANT=${1:-default}
OBJ=$(aws_kdir kernel "$VARIANT")
CP=${AWS_CHECKPATCH:-$AWS_SRC/scripts/checkpatch.pl}
SPARSE=${AWS_SPARSE:-sparse}
SHELLCHECK=${AWS_SHELLCHECK:-shellcheck}
MODSRC=$(aws_kdir module "$VARIANT")/module
n=0 bad=0
# result NAME LOG WHY: WHY non-empty = the tool did not run; else the
# findings are the ERROR/WARNING/CHECK (or sparse warning/error) lines of
# LOG, and the ok line says how much was checked.
result() {
	local f
	n=$((n + 1))
	if [ -n "$3" ]; then
		echo "not ok $n $1 # did not run: $3 (log: $2)"
		tail -n 5 "$2" 2>/dev/null | sed 's/^/# /'
		bad=1
		return
	fi
	f=$(grep -E '^[^ ]*(ERROR|WARNING|CHECK):|: (warning|error):' "$2")
	if [ -n "$f" ]; then
		echo "not ok $n $1 # $(wc -l <<<"$f") findings, see $2"
		head -n 20 <<<"$f" | sed 's/^/# /'
		bad=1
	else
		echo "ok $n $1 # ran on $(grep -c '^total: .* lines checked\|^ *CHECK ' "$2") input(s), no findings"
	fi
}
# checkpatch_ran LOG STATUS FILES: why checkpatch did not run, or nothing.
checkpatch_ran() {
	local sums
	if [ ! -f "$CP" ]; then
		echo "$CP missing (run: make kernel)"
	elif [ "$2" != 0 ] && [ "$2" != 1 ]; then
		echo "checkpatch exited with status $2"
	elif sums=$(grep -c '^total: [0-9]* errors, [0-9]* warnings, .* lines checked' "$1"); [ "$sums" != "$3" ]; then
		echo "checkpatch summarised $sums of $3 inputs"
	fi
}

cd "$AWS_TOP" || exit 1
list=$(patch_series) || die "the patch series is not in order (patches/$AWS_KVER/series)"
mapfile -t PATCHES < <(echo "$list" | sed "s|^$AWS_TOP/||")
echo "KTAP version 1"
echo "1..$((${#PATCHES[@]} + 3))"

log=$AWS_LOGS/checkpatch-sources.log
srcs=(module/*.[ch] module/policies/*.c include/*.h userspace/streams/*.h harness/images/smoke-module/*.c)
perl "$CP" --no-tree --strict --show-types -f "${srcs[@]}" >"$log" 2>&1
result checkpatch_strict_sources "$log" "$(checkpatch_ran "$log" $? ${#srcs[@]})"

# Patches by absolute path, from inside the kernel tree: given a path that
# git ls-files knows (patches/... from the top of this checkout),
# checkpatch.pl's git_is_single_file() makes it check the patch as a source
# file, and every blank context line (" ") comes out as trailing whitespace.
for p in "${PATCHES[@]}"; do
	log=$AWS_LOGS/checkpatch-$(basename "$p" .patch).log
	if [ -d "$AWS_SRC" ]; then
		(cd "$AWS_SRC" && perl "$CP" --strict --show-types "$AWS_TOP/$p") >"$log" 2>&1
		why=$(checkpatch_ran "$log" $? 1)
	else
		echo "$AWS_SRC missing" >"$log"
		why="kernel tree missing (run: make kernel)"
	fi
	result "checkpatch_strict_$(basename "$p" .patch | cut -c1-40)" "$log" "$why"
done

log=$AWS_LOGS/sparse-module.log
nsrc=$(find "$AWS_TOP/module" -maxdepth 1 -name '*.c' | wc -l)	# our sources, not kbuild's *.mod.c
: >"$log"
if ! command -v "$SPARSE" >/dev/null; then
	why="$SPARSE not found (run: make deps)"
elif [ ! -f "$OBJ/Makefile" ]; then
	why="kernel build $OBJ missing (run: make kernel)"
elif [ ! -f "$MODSRC/Kbuild" ]; then
	why="module not built in $MODSRC (run: make module)"
else
	# C=2: check every source, even those that need no rebuild.
	make -C "$OBJ" M="$MODSRC" C=2 CHECK="$SPARSE" modules >"$log" 2>&1
	st=$?
	checked=$(grep -c '^ *CHECK ' "$log")
	why=
	if [ $st != 0 ]; then
		why="make C=2 exited with status $st"
	elif [ "$checked" -lt "$nsrc" ]; then
		why="sparse checked $checked of $nsrc sources"
	fi
fi
result sparse_module "$log" "$why"

# The checkstyle report of ShellCheck names every file it read, findings
# or not; it is rewritten as one "  CHECK file" line per file and one
# "file:line: severity: message [SCnnnn]" line per finding.
log=$AWS_LOGS/shellcheck.log
mapfile -t shs < <(find harness userspace module include -name '*.sh' | sort)
: >"$log"
if ! command -v "$SHELLCHECK" >/dev/null; then
	why="$SHELLCHECK not found (run: make deps)"
else
	"$SHELLCHECK" -x -S warning -f checkstyle "${shs[@]}" >"$log.xml" 2>"$log"
	st=$?
	perl -ne '
		s/&#(\d+);/chr($1)/ge; s/&quot;/"/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/&/g;
		if (/^<file name=\x27(.*)\x27/) { $f = $1; print "  CHECK $f\n"; }
		print "$f:$1: $2: $3 [$4]\n" if /^<error line=\x27(\d+)\x27 column=\x27\d+\x27 severity=\x27(\w+)\x27 message=\x27(.*)\x27 source=\x27ShellCheck\.(SC\d+)\x27/;
	' "$log.xml" >>"$log"
	checked=$(grep -c '^  CHECK ' "$log")
	why=
	if [ $st != 0 ] && [ $st != 1 ]; then
		why="shellcheck exited with status $st"
	elif [ "$checked" != ${#shs[@]} ]; then
		why="shellcheck reported on $checked of ${#shs[@]} scripts"
	fi
fi
result shellcheck_scripts "$log" "$why"
exit $bad
