#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel style checks on the C we own, as KTAP lines on stdout:
# checkpatch --strict on module/, include/ and the smoke module, checkpatch
# --strict on every patch in patches/, and sparse (make C=2) on the module.
# Needs the extracted kernel tree (make kernel).  Exit status non-zero if any
# check reports anything.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

VARIANT=${1:-default}
OBJ=$AWS_BUILD/kernel-$VARIANT
CP=$AWS_SRC/scripts/checkpatch.pl
[ -f "$CP" ] || die "$CP missing (run: make kernel)"
n=0 bad=0
result() { # result NAME LOG
	n=$((n + 1))
	if [ -s "$2" ]; then
		echo "not ok $n $1 # $(wc -l <"$2") lines of findings, see $2"
		sed 's/^/# /' "$2" | head -n 20
		bad=1
	else
		echo "ok $n $1"
	fi
}

cd "$AWS_TOP" || exit 1
log=$AWS_LOGS/checkpatch-sources.log
perl "$CP" --no-tree --strict --terse --show-types -f module/*.[ch] include/*.h \
	qemu/smoke-module/*.c 2>/dev/null | grep -E 'ERROR|WARNING|CHECK' >"$log"
result checkpatch_strict_sources "$log"

# Patches by absolute path, from inside the kernel tree: given a path that
# git ls-files knows (patches/... from the top of this checkout),
# checkpatch.pl's git_is_single_file() makes it check the patch as a source
# file, and every blank context line (" ") comes out as trailing whitespace.
for p in patches/*.patch; do
	log=$AWS_LOGS/checkpatch-$(basename "$p" .patch).log
	(cd "$AWS_SRC" && perl "$CP" --strict --terse "$AWS_TOP/$p" 2>/dev/null) |
		grep -E 'ERROR|WARNING|CHECK' >"$log"
	result "checkpatch_strict_$(basename "$p" .patch | cut -c1-40)" "$log"
done

log=$AWS_LOGS/sparse-module.log
if ! command -v sparse >/dev/null; then
	echo "sparse missing (run: make deps)" >"$log"
elif [ ! -d "$AWS_BUILD/module-$VARIANT/module" ]; then
	echo "module not built (run: make module)" >"$log"
else
	make -C "$OBJ" M="$AWS_BUILD/module-$VARIANT/module" C=2 CHECK=sparse modules 2>&1 |
		grep -E 'warning|error' >"$log"
fi
result sparse_module "$log"
exit $bad
