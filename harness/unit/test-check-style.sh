#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test of harness/test/check-style.sh, as KTAP on stdout: a style check
# whose tool did not run must fail, never pass with an empty findings log.
# Breaks one thing at a time through AWS_CHECKPATCH, AWS_SPARSE and
# AWS_SHELLCHECK: checkpatch missing, dying in perl, or exiting 0 without
# its summary; sparse missing; ShellCheck missing, or exiting 0 with a
# report that leaves scripts out; and, with none, no kernel tree at all (every run points
# AWS_BUILD at an empty folder, so the real logs are left alone).  Needs
# nothing built.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'die "checkpatch: simulated perl error\\n";\n' >"$TMP/perl-error.pl"
printf 'exit 0;\n' >"$TMP/silent.pl"
printf '#!/bin/sh\necho "<checkstyle>"\n' >"$TMP/silent-shellcheck"
# A ShellCheck that reads every script and finds nothing, at once: the
# cases that break another tool use it, so that each case costs no real
# ShellCheck run (about 6 s of CPU each, taken from the guests beside).
cat >"$TMP/clean-shellcheck" <<'SH'
#!/bin/sh
echo "<checkstyle>"
for f; do case $f in *.sh) echo "<file name='$f'>"; echo "</file>" ;; esac; done
echo "</checkstyle>"
SH
chmod +x "$TMP/silent-shellcheck" "$TMP/clean-shellcheck"
mkdir -p "$TMP/build"
n=0 bad=0
# case NAME CASE-GLOB ENV...: run check-style.sh with ENV; its result lines
# whose case name matches CASE-GLOB must all be "not ok ... # did not run",
# and it must exit non-zero.
case_() {
	local name=$1 glob=$2 out st lines
	shift 2
	out=$(env AWS_BUILD="$TMP/build" AWS_SHELLCHECK="$TMP/clean-shellcheck" "$@" bash "$AWS_TOP/harness/test/check-style.sh" default 2>&1)
	st=$?
	lines=$(grep -E '^(not )?ok [0-9]+ ' <<<"$out" |
		awk -v g="$glob" '{ name = ($1 == "not") ? $4 : $3 } name ~ g')
	n=$((n + 1))
	if [ $st = 0 ]; then
		echo "not ok $n $name # check-style.sh exited 0"; bad=1
	elif [ -z "$lines" ]; then
		echo "not ok $n $name # no result line for /$glob/"; bad=1
	elif grep -qv '^not ok .* # did not run: ' <<<"$lines"; then
		echo "not ok $n $name # $(grep -v '^not ok .* # did not run: ' <<<"$lines" | head -n 1)"; bad=1
	else
		echo "ok $n $name # $(head -n 1 <<<"$lines" | sed 's/.*# //' | cut -c1-70)"
	fi
}
echo "KTAP version 1"
echo "1..7"
case_ checkpatch_missing_fails '^checkpatch_strict_sources$' AWS_CHECKPATCH="$TMP/none.pl"
case_ checkpatch_perl_error_fails '^checkpatch_strict_sources$' AWS_CHECKPATCH="$TMP/perl-error.pl"
case_ checkpatch_silent_fails '^checkpatch_strict_sources$' AWS_CHECKPATCH="$TMP/silent.pl"
case_ sparse_missing_fails '^sparse_module$' AWS_SPARSE="$TMP/no-sparse"
case_ shellcheck_missing_fails '^shellcheck_scripts$' AWS_SHELLCHECK="$TMP/no-shellcheck"
case_ shellcheck_silent_fails '^shellcheck_scripts$' AWS_SHELLCHECK="$TMP/silent-shellcheck"
case_ kernel_tree_missing_fails '^(checkpatch|sparse)'	# (every run here has AWS_BUILD=$TMP/build)
exit $bad
