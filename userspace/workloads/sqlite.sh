#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sqlite.sh - aws-sqlite: a real program, Debian's sqlite3, scanning an
# in-memory database larger than its cgroup (hold's design goals asked for
# "one real program that users know").
#
#   1. the build: one table of --size bytes in :memory: (4 KiB pages, one
#      row of ROW_BYTES characters per page, the row's letter repeated, so
#      that every row can be checked), filled by one INSERT;
#   2. --scans N full scans, each a SELECT that reads every row and counts
#      the rows whose length, first or last character is wrong.
#
# An in-memory database lives in sqlite's page cache, malloc()ed anon
# memory, so a table larger than memory.max is swapped like any anon
# workload, and repeated full scans are the loop pattern (aws-loop) as a
# database meets it.  The program's own figure is sqlite's ".timer" (Run
# Time: real) over the scans; the count figures are the system's pswpin
# and sqlite3's major faults over the scans only, read by ".shell" between
# the build and the scans and after them.  Its page trace is not known
# (sqlite's allocator places the pages), so it has no OPT figure:
# --describe says so in the C workloads' JSON line (common.h), trace "n/a".
#
# pages_verified is the rows the scans counted (one row per page).
#
# It follows the conventions of the C workloads (common.c): exit 0, 1 on
# an error, 2 on a usage error, 3 on a verification failure (with a
# VERIFY_FAIL line on stderr), and one RESULT line with the common keys
# (whole-run /proc/vmstat deltas).  userspace/workloads/selftest.sh tests
# it like them.  Needs bash, awk and sqlite3 (3.38 or later: printf's
# repeated %c).
set -uo pipefail

ROW_BYTES=3500		# one row per 4 KiB page, with room for the header
PROG=aws-sqlite
# shellcheck source=userspace/workloads/program.sh
. "$(dirname "${BASH_SOURCE[0]}")/aws-program.sh" || exit 1
size=160M scans=4 seed=0

usage() {
	cat <<EOF
Usage: aws-sqlite [options]
Debian's sqlite3 scanning an in-memory table of --size bytes --scans times
(a database looping over more than memory: the loop pattern).

  --size SIZE     table (default 160M; N, NK, NM or NG; one row per page)
  --scans N       full scans after the build (default 4)
  --seed N        accepted for the harness; the data does not depend on it
  --corrupt-test  verifier self-test: change one row after the build, so
                  that every scan must report it (exit 3)
  --describe      check the arguments, then print one JSON line instead of
                  running: the run's page trace ("n/a": not recorded)

RESULT keys: rows scans build_seconds scan_seconds scan_rows_per_s
             scan_pswpin scan_majfaults + common keys (verify_fail
             pages_verified seconds and the whole run's vmstat deltas)
EOF
}

parse_args "size scans seed" "$@"
to_bytes "$size" || die "bad --size '$size' (N, NK, NM or NG)" 2
[[ $scans =~ ^[1-9][0-9]{0,5}$ ]] || die "bad --scans '$scans'" 2
[[ $seed =~ ^[0-9]+$ ]] || die "bad --seed '$seed'" 2
rows=$((BYTES / 4096))
[ "$rows" -ge 16 ] || die "--size $size is under 16 pages" 2
[ $describe = 1 ] && describe_line sqlite sqlite3
command -v sqlite3 >/dev/null || die "sqlite3 not found (apt-get install sqlite3)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aws-sqlite.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# The SQL: the build, a mark, the scans, a mark.  A mark copies
# /proc/vmstat and sqlite3's own /proc/PID/stat (the .shell child's
# parent) to a file.  Each scan answers: scan|rows|bad rows|first bad id|
# its first character.
letter="char(65 + id % 26)"
bad="(length(v) <> $ROW_BYTES OR substr(v, 1, 1) <> $letter OR substr(v, $ROW_BYTES, 1) <> $letter)"
{
	echo "PRAGMA page_size = 4096;"
	echo "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);"
	echo ".timer on"
	echo "WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM c WHERE id < $rows)"
	echo "  INSERT INTO t SELECT id, printf('%.*c', $ROW_BYTES, $letter) FROM c;"
	echo ".timer off"
	[ $corrupt = 1 ] &&
		echo "UPDATE t SET v = '#' || substr(v, 2) WHERE id = $((rows / 2));"
	echo ".shell cat /proc/vmstat /proc/\$PPID/stat > $tmp/mark0"
	echo ".timer on"
	for ((i = 0; i < scans; i++)); do
		echo "SELECT 'scan', n, nbad, first, coalesce((SELECT substr(v, 1, 1) FROM t WHERE id = first), '')"
		echo "  FROM (SELECT count(*) AS n, sum(bad) AS nbad, coalesce(min(CASE WHEN bad THEN id END), 0) AS first"
		echo "        FROM (SELECT id, $bad AS bad FROM t));"
	done
	echo ".timer off"
	echo ".shell cat /proc/vmstat /proc/\$PPID/stat > $tmp/mark1"
} >"$tmp/sql"

cat /proc/vmstat >"$tmp/vm0" 2>/dev/null || : >"$tmp/vm0"
t0=$(date +%s.%N)
sqlite3 -batch :memory: <"$tmp/sql" >"$tmp/out" 2>"$tmp/err" ||
	die "sqlite3 failed: $(head -n 3 "$tmp/err")"
t1=$(date +%s.%N)
[ -s "$tmp/err" ] && die "sqlite3 wrote errors: $(head -n 3 "$tmp/err")"
if [ ! -s "$tmp/mark0" ] || [ ! -s "$tmp/mark1" ]; then
	die "sqlite3 did not run its .shell marks"
fi

# "Run Time: real X ..." follows the build and every scan (.timer is on
# for those only); "scan|..." is each scan's answer.  The marks give
# pswpin and sqlite3's majflt (stat field 12) around the scans.
awk -v rows="$rows" -v scans="$scans" -v secs="$(echo "$t0 $t1" | awk '{ print $2 - $1 }')" \
	-v vmkeys="$VMKEYS" -v vm0="$tmp/vm0" -v m0="$tmp/mark0" -v m1="$tmp/mark1" '
	function mark(f, a,    l, x) {
		while ((getline l < f) > 0) {
			split(l, x, " ")
			if (x[1] == "pswpin")
				a["pswpin"] = x[2]
			else if (l ~ /^[0-9]+ \(/) {
				sub(/.*\) /, "", l)
				split(l, x, " ")
				a["majflt"] = x[10]
			}
			if (f != m0)
				v[f, x[1]] = x[2]
		}
		close(f)
	}
	/^Run Time: real / { rt[nt++] = $4; next }
	/^scan\|/ {
		split($0, f, "|")
		ns++
		checked += f[2]
		if (f[2] != rows)
			bad += rows
		else if (f[3] != 0) {
			bad += f[3]
			printf "VERIFY_FAIL workload=sqlite page=%d expected=%c got=%s\n",
				f[4], 65 + f[4] % 26, f[5] > "/dev/stderr"
		}
		next
	}
	END {
		if (nt != scans + 1 || ns != scans) {
			printf "aws-sqlite: sqlite3 printed %d timings and %d scans, expected %d and %d\n",
				nt, ns, scans + 1, scans > "/dev/stderr"
			exit 1
		}
		mark(m0, b)
		mark(m1, e)
		mark(vm0, z)
		for (i = 1; i < nt; i++)
			scan += rt[i]
		printf "RESULT workload=sqlite rows=%d scans=%d build_seconds=%.3f", rows, scans, rt[0]
		printf " scan_seconds=%.3f scan_rows_per_s=%.0f", scan, (scan > 0 ? rows * scans / scan : 0)
		printf " scan_pswpin=%d scan_majfaults=%d", e["pswpin"] - b["pswpin"], e["majflt"] - b["majflt"]
		printf " verify_fail=%d pages_verified=%d seconds=%.3f", bad, checked, secs
		n = split(vmkeys, k, " ")
		for (i = 1; i <= n; i++)
			printf " %s=%d", k[i], ((vm0, k[i]) in v && (m1, k[i]) in v) ? v[m1, k[i]] - v[vm0, k[i]] : -1
		printf "\n"
		exit bad ? 3 : 0
	}' "$tmp/out"
