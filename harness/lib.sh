# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
#
# Shared helpers for the host-side harness scripts in harness/: paths, logging,
# stage timing and hashing. Sourced, never executed.

AWS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AWS_BUILD=${AWS_BUILD:-$AWS_TOP/build}
# The kernel (KVER=6.1, the default, or KVER=6.12): Debian's linux-source
# of that version, its own series in patches/<kver>/, and its own folders
# in build/ (6.1 keeps the plain names: build/kernel-<variant>, build/logs,
# ...; 6.12 adds "-6.12": build/kernel-6.12-<variant>, build/logs-6.12).
AWS_KVER=${KVER:-6.1}
case $AWS_KVER in
6.1) AWS_KSFX= ;;
6.12) AWS_KSFX=-6.12 ;;
*) echo "error: KVER=$AWS_KVER: the kernels are 6.1 (the default) and 6.12" >&2; exit 1 ;;
esac
export KVER=$AWS_KVER
AWS_LOGS=$AWS_BUILD/logs$AWS_KSFX
AWS_RUNS=$AWS_BUILD/runs$AWS_KSFX
AWS_SRC_PARENT=$AWS_BUILD/src$AWS_KSFX
AWS_SRC=$AWS_SRC_PARENT/linux-source-$AWS_KVER
AWS_TARBALL=/usr/src/linux-source-$AWS_KVER.tar.xz
AWS_PATCHES=$AWS_TOP/patches/$AWS_KVER
mkdir -p "$AWS_LOGS"

# aws_kdir NAME VARIANT: the build folder of NAME (kernel, module, tools)
# for VARIANT on this kernel, e.g. build/kernel-6.12-debug.
aws_kdir() { echo "$AWS_BUILD/$1$AWS_KSFX-$2"; }

die() { echo "error: $*" >&2; exit 1; }
note() { echo "  $*"; }

# stage NAME: print a stage header; stage_done prints how long it took.
stage() {
	AWS_STAGE=$*
	AWS_STAGE_T0=$(date +%s.%N)
	echo ">> $AWS_STAGE"
}
stage_done() {
	local t1
	t1=$(date +%s.%N)
	printf '<< %s: %.1f s%s\n' "$AWS_STAGE" "$(echo "$t1 - $AWS_STAGE_T0" | bc)" "${1:+ ($1)}"
}

# aws_python: print a python3 that has Debian's python3-pandas and
# python3-matplotlib (results.py needs both); a python3 earlier in PATH
# (pyenv, venv) usually cannot see them.
aws_python() {
	local p
	for p in /usr/bin/python3 python3; do
		"$p" -c 'import pandas, matplotlib' 2>/dev/null && echo "$p" && return 0
	done
	return 1
}

# run_logged LOG CMD...: run CMD with all output in LOG; on failure show the
# tail of LOG and fail.
run_logged() {
	local log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		echo "error: '$*' failed; last lines of $log:" >&2
		tail -n 30 "$log" >&2
		return 1
	fi
}

# progress LOG PID LABEL: while PID runs, print a one-line progress report
# every 15 s (lines written to LOG so far), so long stages are visibly alive
# without flooding the terminal.
progress() {
	local log=$1 pid=$2 label=$3 t0=$SECONDS
	while kill -0 "$pid" 2>/dev/null; do
		sleep 15
		kill -0 "$pid" 2>/dev/null || break
		printf '   %s: %d s, %d log lines, last: %.70s\n' "$label" \
			$((SECONDS - t0)) "$(wc -l <"$log")" "$(tail -n 1 "$log" | tr -d '\r')"
	done
}

hash_files() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }

kernel_pkg_version() {
	dpkg-query -W -f='${Version}' "linux-source-$AWS_KVER" 2>/dev/null ||
		die "linux-source-$AWS_KVER is not installed (run: make deps)"
}

# The patch series of this kernel, in order: the files patches/<kver>/series
# names (the cover letter, 0000-cover-letter.patch, is not one of them).
# Fails if the list is missing, names a file that is not there, or leaves a
# patch out.
patch_series() {
	local list=$AWS_PATCHES/series p d=patches/$AWS_KVER
	[ -f "$list" ] || { echo "error: $list missing" >&2; return 1; }
	while read -r p; do
		[ -f "$AWS_PATCHES/$p" ] || { echo "error: $d/series names $p, which is not in $d/" >&2; return 1; }
		echo "$AWS_PATCHES/$p"
	done < <(grep -v '^\s*\(#\|$\)' "$list")
	for p in "$AWS_PATCHES"/*.patch; do
		case $p in */0000-cover-letter.patch) continue ;; esac
		grep -qxF "$(basename "$p")" "$list" ||
			{ echo "error: $(basename "$p") is in $d/ but not in $d/series" >&2; return 1; }
	done
}

# Kernel problems (and guest script errors) on a guest console: the patterns
# are harness/boot/console-patterns, the scan is harness/boot/runner.py's, the
# one that judges every guest run.  console_scan FILE...: print the lines that
# match (FILE:LINE:TEXT); exit status 0 if any, 1 if none, 2 on error.
console_scan() { python3 "$AWS_TOP/harness/boot/runner.py" scan "$@"; }
# console_patterns: the patterns, one a line.
console_patterns() { grep -v '^#' "$AWS_TOP/harness/boot/console-patterns" | grep -v '^$'; }

# The manifest (harness/boot/manifest): for each guest run, the suites it
# runs, in order, and how many cases each must emit.  Lines "RUN SUITE CASES".
AWS_MANIFEST=$AWS_TOP/harness/boot/manifest
# manifest_suites RUN: the suites of RUN, space-separated, in order.
manifest_suites() {
	awk -v r="$1" '$1 !~ /^#/ && NF == 3 && $1 == r { printf "%s%s", s, $2; s = " " }
		END { print "" }' "$AWS_MANIFEST"
}
