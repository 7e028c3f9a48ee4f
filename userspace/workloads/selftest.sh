#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh - self-test of the workloads (aws-protect, aws-thrash,
# aws-zipf, aws-randw, aws-loop, aws-instance, and the scripts around real
# programs: aws-sqlite, sqlite3, aws-redis, redis-server and
# redis-benchmark, whose runs fail saying so where those are missing, and
# aws-pgbench, whose arguments only are checked here) with
# tiny sizes; prints KTAP, exits non-zero if any case fails. POSIX sh +
# coreutils + grep + awk (mawk is fine); make test runs it on the build host
# (the workloads do not depend on the module: the guest suites run them
# under it).
#
#   usage: selftest.sh <directory containing the aws-* binaries>
#
# Per workload it checks: --help, a tiny normal run (exit 0, stdout is exactly
# one well-formed "RESULT workload=<name> key=value..." line with all required
# keys and verify_fail=0), --corrupt-test (exit 3 with VERIFY_FAIL), a garbage
# size (exit 2), an unknown option and a stray operand (exit 2). A few more
# cases check size forms (x, %, K, bare MiB), AWS_MEM_LIMIT_MB and the
# deterministic --records / --writes / --loops / --scans / --requests
# counts. On the host ("all") it also checks each workload's --save-trace:
# that aws-sim (in the same directory) replays exactly the pages aws-zipf,
# aws-randw and aws-loop touch, and that aws-thrash's and aws-protect's
# traces are the access sequences their sources describe, page for page,
# and each workload's --describe line (the kind of trace a command has, and
# for a multi-threaded one aws-sim's arguments) for commands of every kind.

BIN=${1:-}
if [ -z "$BIN" ] || [ ! -d "$BIN" ]; then
	echo "usage: $0 <binary directory>" >&2
	exit 2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/aws-selftest.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out
ERR=$TMP/err

TO=
if command -v timeout >/dev/null 2>&1; then
	TO="timeout 60"
fi

# Environment must not change the sizes the cases expect.
unset AWS_MEM_LIMIT_MB

COMMON_KEYS="verify_fail pages_verified seconds pswpin pswpout pgmajfault workingset_refault_anon workingset_activate_anon"

tiny_args() {
	case $1 in
	protect) echo "--hot 2M --wave 4M --waves 2 --passes 2 --chunks 4" ;;
	thrash)  echo "--cold 8M --hot1 2M --hot2 2M --cold-slice 2M --rounds 3" ;;
	zipf)    echo "--size 8M --threads 2 --records 200 --alpha 0.9" ;;
	randw)   echo "--size 8M --threads 2 --seconds 0.2" ;;
	loop)    echo "--size 4M --loops 3" ;;
	instance) echo "--dist-seed 7 --index 3 --memory 1M" ;;
	sqlite)  echo "--size 4M --scans 2" ;;
	redis)   echo "--size 2M --requests 1000" ;;
	pgbench) echo "--shared-buffers 8M --scale 1 --transactions 50" ;;
	esac
}

keys_of() {
	case $1 in
	protect) echo "hot_pages hot_majfaults hot_passes activate_majfaults waves wave_pages" ;;
	thrash)  echo "hot2_majfaults cold_majfaults hot1_majfaults rounds cold_pages hot1_pages hot2_pages cold_slice_pages" ;;
	zipf)    echo "records records_per_sec threads alpha chunks chunk_bytes run_seconds record_majfaults" ;;
	randw)   echo "writes writes_per_sec threads pages pages_written write_seconds write_majfaults" ;;
	loop)    echo "loop_majfaults loop_pswpin loops pages loop_seconds" ;;
	instance) echo "family accesses pages majfaults replay_pswpin replay_seconds" ;;
	sqlite)  echo "rows scans build_seconds scan_seconds scan_rows_per_s scan_pswpin scan_majfaults" ;;
	redis)   echo "keys value_bytes dataset_bytes requests clients build_seconds get_seconds check_seconds get_pswpin get_majfaults get_requests_per_s" ;;
	pgbench) echo "scale shared_buffers_bytes transactions clients init_seconds run_seconds check_seconds run_pswpin run_majfaults tps" ;;
	esac
}

size_opt() {
	case $1 in
	protect) echo "--hot" ;;
	thrash)  echo "--cold" ;;
	instance) echo "--memory" ;;
	pgbench) echo "--shared-buffers" ;;
	*)       echo "--size" ;;
	esac
}

# ---- helpers ------------------------------------------------------------

DIAG=$TMP/diag
diag() {
	echo "$*" >>"$DIAG"
}

# run <workload> args... : runs $BIN/aws-<workload>, sets $rc
run() {
	w=$1
	shift
	$TO "$BIN/aws-$w" "$@" >"$OUT" 2>"$ERR"
	rc=$?
}

# run_limit <AWS_MEM_LIMIT_MB value> <workload> args...
run_limit() {
	lim=$1
	w=$2
	shift 2
	$TO env "AWS_MEM_LIMIT_MB=$lim" "$BIN/aws-$w" "$@" >"$OUT" 2>"$ERR"
	rc=$?
}

expect_rc() {
	if [ "$rc" -ne "$1" ]; then
		diag "exit status $rc, expected $1"
		return 1
	fi
	return 0
}

# check_result <workload>: stdout is exactly one well-formed RESULT line
# holding all required keys once each.
check_result() {
	awk -v name="$1" -v req="$(keys_of "$1") $COMMON_KEYS" '
	function bad(msg) { print msg; err = 1; exit 1 }
	NR > 1 { bad("more than one line on stdout") }
	{
		if ($1 != "RESULT" || $2 != "workload=" name)
			bad("line does not start with RESULT workload=" name)
		for (i = 3; i <= NF; i++) {
			if ($i !~ /^[a-z][a-z0-9_]*=-?[0-9]+(\.[0-9]+)?$/)
				bad("malformed key=value: " $i)
			k = substr($i, 1, index($i, "=") - 1)
			if (k in seen)
				bad("duplicate key " k)
			seen[k] = 1
		}
	}
	END {
		if (err)
			exit 1
		if (NR != 1)
			bad("expected exactly one line on stdout, got " NR)
		n = split(req, r, " ")
		for (i = 1; i <= n; i++)
			if (!(r[i] in seen))
				bad("missing key " r[i])
	}' "$OUT" >>"$DIAG"
}

# get <key>: value of key in the RESULT line
get() {
	awk -v k="$1" '{
		for (i = 3; i <= NF; i++)
			if (index($i, k "=") == 1)
				print substr($i, length(k) + 2)
	}' "$OUT"
}

expect_key() {
	v=$(get "$1")
	if [ "$v" != "$2" ]; then
		diag "$1=$v, expected $2"
		return 1
	fi
	return 0
}

expect_key_positive() {
	v=$(get "$1")
	case $v in
	''|0|-*|*[!0-9]*) diag "$1=$v, expected a positive integer"; return 1 ;;
	esac
	return 0
}

# ---- cases: each prints nothing, returns 0 on success ---------------------

case_help() {
	run "$1" --help
	expect_rc 0 || return 1
	grep -q "^Usage: aws-$1" "$OUT" || { diag "no usage text"; return 1; }
}

case_run() {
	# shellcheck disable=SC2046 # word splitting of the argument list
	run "$1" $(tiny_args "$1")
	expect_rc 0 || return 1
	check_result "$1" || return 1
	expect_key verify_fail 0 || return 1
	expect_key_positive pages_verified || return 1
	if grep -q VERIFY_FAIL "$ERR"; then
		diag "VERIFY_FAIL on stderr"
		return 1
	fi
}

case_corrupt_test() {
	# shellcheck disable=SC2046
	run "$1" $(tiny_args "$1") --corrupt-test
	expect_rc 3 || return 1
	grep -q "^VERIFY_FAIL workload=$1 page=[0-9]* expected=[^ ]* got=" "$ERR" || {
		diag "no VERIFY_FAIL workload=$1 line on stderr"
		return 1
	}
	check_result "$1" || return 1
	expect_key_positive verify_fail
}

case_garbage_size() {
	for g in 12Q abc -5M 1.2.3M 0x10 5MB M nan 1e3 0M "" " 4M" 4MM; do
		# shellcheck disable=SC2046
		run "$1" $(tiny_args "$1") "$(size_opt "$1")" "$g"
		if [ "$rc" -ne 2 ]; then
			diag "size '$g': exit status $rc, expected 2"
			return 1
		fi
		if [ -s "$OUT" ] || [ ! -s "$ERR" ]; then
			diag "size '$g': expected an error on stderr only"
			return 1
		fi
	done
}

case_unknown_option() {
	run "$1" --no-such-option
	expect_rc 2
}

case_stray_operand() {
	# shellcheck disable=SC2046
	run "$1" $(tiny_args "$1") stray
	expect_rc 2
}

case_thrash_write() {
	# shellcheck disable=SC2046
	run thrash $(tiny_args thrash) --write
	expect_rc 0 || return 1
	check_result thrash || return 1
	expect_key verify_fail 0 || return 1
	# 2048 cold + 512 + 512 written, 4 hot1 passes, 3 rounds of 512 + 512
	expect_key pages_verified $((4 * 512 + 3 * (512 + 512)))
}

case_sqlite_counts() {
	# 1024 rows of one page each, scanned 3 times; every row checked
	run sqlite --size 4M --scans 3
	expect_rc 0 || return 1
	check_result sqlite || return 1
	expect_key verify_fail 0 || return 1
	expect_key rows 1024 || return 1
	expect_key scans 3 || return 1
	expect_key pages_verified $((3 * 1024)) || return 1
	expect_key_positive scan_rows_per_s
}

case_redis_counts() {
	# 1000 keys of 4192 bytes, 1500 GETs over 2 connections (all of them
	# hits, or the run fails); every value checked
	run redis --size 4192000 --requests 1500 --clients 2
	expect_rc 0 || return 1
	check_result redis || return 1
	expect_key verify_fail 0 || return 1
	expect_key keys 1000 || return 1
	expect_key value_bytes 4000 || return 1
	expect_key requests 1500 || return 1
	expect_key clients 2 || return 1
	expect_key pages_verified 1000 || return 1
	expect_key_positive get_requests_per_s || return 1
	# used_memory holds the 1000 values' pages at least
	v=$(get dataset_bytes)
	if [ "${v:-0}" -lt $((1000 * 4096)) ]; then
		diag "dataset_bytes=$v, expected at least $((1000 * 4096))"
		return 1
	fi
}

case_loop_counts() {
	# 1024 pages first touched, then 3 passes that verify every page
	run loop --size 4M --loops 3
	expect_rc 0 || return 1
	check_result loop || return 1
	expect_key verify_fail 0 || return 1
	expect_key pages 1024 || return 1
	expect_key loops 3 || return 1
	expect_key pages_verified $((3 * 1024)) || return 1
	# the same with --write, and no pass at all
	run loop --size 4M --loops 2 --write
	expect_rc 0 || return 1
	expect_key verify_fail 0 || return 1
	expect_key pages_verified $((2 * 1024)) || return 1
	run loop --size 4M --loops 0
	expect_rc 0 || return 1
	expect_key loop_majfaults 0 || return 1
	expect_key pages_verified 0
}

case_zipf_records() {
	run zipf --size 4M --chunk 16K --threads 3 --records 500 --alpha 1.3
	expect_rc 0 || return 1
	check_result zipf || return 1
	expect_key verify_fail 0 || return 1
	expect_key records 1500 || return 1
	expect_key chunks 256 || return 1
	expect_key pages_verified $((1500 * 4))
}

# zipf_sim_same <aws-zipf args> -- <aws-sim args>: aws-zipf --save-trace and
# aws-sim --pattern zipf --save write byte-identical traces.
zipf_sim_same() {
	za=
	while [ "$1" != -- ]; do
		za="$za $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # word splitting of the argument list
	run zipf $za --threads 1 --save-trace "$TMP/zipf.trace"
	expect_rc 0 || return 1
	check_result zipf || return 1
	$TO "$BIN/aws-sim" --pattern zipf "$@" --policies lru --save "$TMP/sim.trace" \
		>"$OUT" 2>"$ERR" || { diag "aws-sim $* failed"; return 1; }
	if ! cmp "$TMP/zipf.trace" "$TMP/sim.trace" >>"$DIAG" 2>&1; then
		diag "aws-zipf$za and aws-sim $* touch different pages"
		return 1
	fi
}

# The simulator's zipf pattern is aws-zipf's stream
# (userspace/streams/aws_zipf.h): for one thread the pages it replays are, byte for byte, those aws-zipf
# touches (the fill, then each record's chunk), with one-page chunks (the
# design cells') and with aws-zipf's default 64K chunks.
case_zipf_trace_matches_sim() {
	if [ ! -x "$BIN/aws-sim" ]; then
		diag "$BIN/aws-sim missing (make userspace builds it)"
		return 1
	fi
	zipf_sim_same --size 4M --chunk 4K --alpha 0.9 --seed 7 --records 3000 -- \
		--zipf-pages 1024 --zipf-chunk 1 --alpha 0.9 --seed 7 --accesses 3000 || return 1
	zipf_sim_same --size 8M --alpha 1.3 --seed 3 --records 400 -- \
		--zipf-pages 2048 --zipf-chunk 16 --alpha 1.3 --seed 3 --accesses 6400 || return 1
	# the default seed (1) on both sides, and a size that is not a
	# multiple of the chunk: both round the region down to 341 chunks
	zipf_sim_same --size 4M --chunk 12K --alpha 0.5 --records 100 -- \
		--zipf-pages 1024 --zipf-chunk 3 --alpha 0.5 --accesses 300 || return 1
	# and the comparison can fail: another seed is another stream
	cp "$TMP/zipf.trace" "$TMP/seed1.trace"
	$TO "$BIN/aws-sim" --pattern zipf --zipf-pages 1024 --zipf-chunk 3 --alpha 0.5 \
		--accesses 300 --seed 2 --policies lru --save "$TMP/sim.trace" >"$OUT" 2>"$ERR"
	if cmp -s "$TMP/seed1.trace" "$TMP/sim.trace"; then
		diag "seeds 1 and 2 give the same trace"
		return 1
	fi
	# the trace of N threads would be one order among many: refused
	run zipf --size 4M --threads 2 --records 10 --save-trace "$TMP/zipf.trace"
	expect_rc 2
}

# trace_sim_same <workload> <its args> -- <aws-sim args>: <workload>
# --save-trace and aws-sim --save write byte-identical traces.
trace_sim_same() {
	w=$1
	shift
	wa=
	while [ "$1" != -- ]; do
		wa="$wa $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # word splitting of the argument list
	run "$w" $wa --save-trace "$TMP/wl.trace"
	expect_rc 0 || return 1
	check_result "$w" || return 1
	$TO "$BIN/aws-sim" "$@" --policies lru --save "$TMP/sim.trace" \
		>"$OUT" 2>"$ERR" || { diag "aws-sim $* failed"; return 1; }
	if ! cmp "$TMP/wl.trace" "$TMP/sim.trace" >>"$DIAG" 2>&1; then
		diag "aws-$w$wa and aws-sim $* touch different pages"
		return 1
	fi
}

need_sim() {
	[ -x "$BIN/aws-sim" ] && return 0
	diag "$BIN/aws-sim missing (make userspace builds it)"
	return 1
}

# trace_words FILE: a binary trace's records, one decimal per line, after
# checking its header (AWSTRACE, version 1, u32 records, the right count).
trace_words() {
	od -An -tu4 -v "$1" | awk '
	{ for (i = 1; i <= NF; i++) w[n++] = $i }
	END {
		if (n < 6 || w[0] != 1414747969 || w[1] != 1162035538 || w[2] != 1 ||
		    w[3] != 4 || w[5] != 0 || w[4] != n - 6) {
			print "bad trace header or count: " w[0] " " w[1] " " w[2] " " w[3] " " w[4] " " w[5] " for " n - 6 " records" >"/dev/stderr"
			exit 1
		}
		for (i = 6; i < n; i++)
			print w[i]
	}'
}

# trace_is <expected file>: the workload's trace ($TMP/wl.trace) holds
# exactly the pages listed, in that order.
trace_is() {
	trace_words "$TMP/wl.trace" >"$TMP/got" 2>>"$DIAG" || return 1
	if ! cmp "$1" "$TMP/got" >>"$DIAG" 2>&1; then
		diag "the trace is not the expected sequence ($(wc -l <"$1") pages expected, $(wc -l <"$TMP/got") in the trace)"
		return 1
	fi
}

# aws-loop's passes are the simulator's loop pattern, page for page, read
# only or with --write (a rewrite is the same access); another loop count
# is another trace.
case_loop_trace_matches_sim() {
	need_sim || return 1
	trace_sim_same loop --size 4M --loops 3 -- --pattern loop --loop-mb 4 --loops 3 || return 1
	trace_sim_same loop --size 2M --loops 2 --write -- --pattern loop --loop-mb 2 --loops 2 || return 1
	trace_sim_same loop --size 2M --loops 0 -- --pattern loop --loop-mb 2 --loops 0 || return 1
	if trace_sim_same loop --size 2M --loops 2 -- --pattern loop --loop-mb 2 --loops 3; then
		diag "2 and 3 loops give the same trace"
		return 1
	fi
	: >"$DIAG"
}

# aws-instance replays the simulator's own draw of the instance: the
# simulator finds the same accesses, LRU and OPT swap-ins in the
# workload's trace as in its --distribution row for that instance (at 1M
# every family's trace is small), one family of each kind; another index
# is another trace.
instance_counts() {	# <trace file> <frames>: "accesses,LRU,OPT"
	$TO "$BIN/aws-sim" --trace "$1" --frames "$2" --policies lru,opt \
		--csv "$TMP/one.csv" >/dev/null 2>>"$DIAG" || return 1
	awk -F, 'NR > 1 { a = $7; s[$2] = $10 }
		END { print a "," s["LRU"] "," s["OPT"] }' "$TMP/one.csv"
}

case_instance_trace_matches_sim() {
	need_sim || return 1
	$TO "$BIN/aws-sim" --distribution 8 --dist-seed 7 --frames 256 \
		--policies lru,opt --csv "$TMP/dist.csv" >/dev/null 2>>"$DIAG" ||
		{ diag "aws-sim --distribution failed"; return 1; }
	for i in 0 1 2 3 4 5 6 7; do
		run instance --dist-seed 7 --index $i --memory 1M --save-trace "$TMP/wl.trace"
		expect_rc 0 || return 1
		got=$(instance_counts "$TMP/wl.trace" 256) || return 1
		want=$(awk -F, -v i=$i '$1 == i { a = $5; s[$7] = $8 }
			END { print a "," s["LRU"] "," s["OPT"] }' "$TMP/dist.csv")
		if [ "$got" != "$want" ]; then
			diag "instance $i: trace gives $got, aws-sim --distribution $want (accesses,LRU,OPT)"
			return 1
		fi
	done
	run instance --dist-seed 8 --index 3 --memory 1M --save-trace "$TMP/wl.trace"
	if [ "$(instance_counts "$TMP/wl.trace" 256)" = "$got" ]; then
		diag "rng seeds 7 and 8 give the same instance 3"
		return 1
	fi
}

# aws-randw --threads 1 is the simulator's randw pattern: the writes, then
# the written pages verified (unwritten ones read the zero page: no access);
# --verify-writes reads before each write, the same access.
case_randw_trace_matches_sim() {
	need_sim || return 1
	trace_sim_same randw --size 4M --threads 1 --writes 3000 --seed 4 -- \
		--pattern randw --randw-pages 1024 --accesses 3000 --seed 4 || return 1
	trace_sim_same randw --size 1M --threads 1 --writes 2000 --verify-writes -- \
		--pattern randw --randw-pages 256 --accesses 2000 || return 1
	if trace_sim_same randw --size 1M --threads 1 --writes 2000 --seed 2 -- \
		--pattern randw --randw-pages 256 --accesses 2000; then
		diag "seeds 1 and 2 give the same trace"
		return 1
	fi
	: >"$DIAG"
	run randw --size 1M --threads 2 --writes 10 --save-trace "$TMP/wl.trace"
	expect_rc 2
}

# aws-thrash's trace is the sequence thrash.c describes: cold written, hot-1
# written and read --hot1-passes times, hot-2 written, then each round the
# next slice of cold (wrapping) and all of hot-2; regions numbered in the
# order they are allocated.  --write rewrites on the same accesses.
case_thrash_trace() {
	awk 'BEGIN {
		C = 2048; H1 = 512; H2 = 512; S = 768; R = 3; P = 2; cur = 0
		for (i = 0; i < C; i++) print i
		for (p = 0; p <= P; p++) for (i = 0; i < H1; i++) print C + i
		for (i = 0; i < H2; i++) print C + H1 + i
		for (r = 0; r < R; r++) {
			for (i = 0; i < S; i++) { print cur; cur = (cur + 1) % C }
			for (i = 0; i < H2; i++) print C + H1 + i
		}
	}' >"$TMP/want"
	for wr in "" --write; do
		run thrash --cold 8M --hot1 2M --hot2 2M --cold-slice 3M --rounds 3 \
			--hot1-passes 2 $wr --save-trace "$TMP/wl.trace"
		expect_rc 0 || return 1
		check_result thrash || return 1
		trace_is "$TMP/want" || { diag "aws-thrash ${wr:-(read)}"; return 1; }
	done
	# and the check can fail: one round less is another sequence
	run thrash --cold 8M --hot1 2M --hot2 2M --cold-slice 3M --rounds 2 \
		--hot1-passes 2 --save-trace "$TMP/wl.trace"
	if trace_is "$TMP/want"; then
		diag "2 rounds match the trace of 3"
		return 1
	fi
	: >"$DIAG"
}

# aws-protect's trace is the sequence protect.c describes: the hot set
# written and read --passes times, then per wave (a new region each, so
# new pages even where munmap let the next one reuse the address) its
# --chunks pieces written, each followed by a pass over the hot set.
case_protect_trace() {
	awk 'BEGIN {
		H = 512; WP = 1024; W = 2; P = 2; K = 3
		for (p = 0; p <= P; p++) for (i = 0; i < H; i++) print i
		for (w = 0; w < W; w++) for (c = 0; c < K; c++) {
			lo = int(WP * c / K); hi = int(WP * (c + 1) / K)
			for (i = lo; i < hi; i++) print H + w * WP + i
			for (i = 0; i < H; i++) print i
		}
	}' >"$TMP/want"
	run protect --hot 2M --wave 4M --waves 2 --passes 2 --chunks 3 --save-trace "$TMP/wl.trace"
	expect_rc 0 || return 1
	check_result protect || return 1
	trace_is "$TMP/want" || return 1
	run protect --hot 2M --wave 4M --waves 2 --passes 2 --chunks 2 --save-trace "$TMP/wl.trace"
	if trace_is "$TMP/want"; then
		diag "2 chunks match the trace of 3"
		return 1
	fi
	: >"$DIAG"
	run protect --hot 2M --wave 4M --waves 1 --corrupt-test --save-trace "$TMP/wl.trace"
	expect_rc 2
}

case_randw_writes() {
	run randw --size 4M --threads 4 --writes 1000 --verify-writes
	expect_rc 0 || return 1
	check_result randw || return 1
	expect_key verify_fail 0 || return 1
	expect_key writes 4000 || return 1
	# 4000 verified before writing + 1024 in the final pass
	expect_key pages_verified 5024
}

case_early_stop() {
	# SIGUSR1 ends a 60 s timed phase at once; the run still verifies
	# and reports.  (Not under timeout(1), which would take the signal.)
	"$BIN/aws-$1" --size 4M --threads 2 --seconds 60 >"$OUT" 2>"$ERR" &
	pid=$!
	sleep 0.5
	kill -USR1 "$pid"
	wait "$pid"
	rc=$?
	expect_rc 0 || return 1
	check_result "$1" || return 1
	expect_key verify_fail 0 || return 1
	awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^seconds=/) exit !(substr($i, 9) < 30) }' "$OUT" ||
		{ diag "did not stop early: $(cat "$OUT")"; return 1; }
}

case_size_forms() {
	for spec in "512K 128" "1 256" "0.5M 128" "0.5m 128" "6K 1" "0.25G 65536"; do
		arg=${spec% *}
		pages=${spec#* }
		run randw --size "$arg" --threads 1 --writes 1
		expect_rc 0 || { diag "size '$arg'"; return 1; }
		expect_key pages "$pages" || { diag "size '$arg'"; return 1; }
	done
}

case_size_percent_of_limit() {
	# 1% of 400 MiB = 4 MiB = 1024 pages
	run_limit 400 protect --hot 1% --wave 1M --waves 1
	expect_rc 0 || return 1
	expect_key hot_pages 1024 || return 1
	run_limit 100.5 protect --hot 2% --wave 1M --waves 1
	expect_rc 0 || return 1
	# 2% of 100.5 MiB = 2107637.76 bytes -> 514 pages
	expect_key hot_pages 514
}

case_size_fraction_of_memtotal() {
	want=$(awk '/^MemTotal:/ { printf "%d\n", int($2 * 1024 * 0.002 / 4096) }' /proc/meminfo)
	run_limit 1 protect --hot 0.002x --wave 1M --waves 1
	expect_rc 0 || return 1
	expect_key hot_pages "$want"
}

case_size_bad_limit_env() {
	for bad in abc -5 0 "" 12M; do
		run_limit "$bad" protect --hot 1% --wave 1M --waves 1
		if [ "$rc" -ne 2 ]; then
			diag "AWS_MEM_LIMIT_MB='$bad': exit status $rc, expected 2"
			return 1
		fi
	done
}

# ---- --describe ---------------------------------------------------------
#
# The expected lines were derived from what harness/experiment/opt.py
# decided for the same command before it read --describe (rep = the
# command's --seed, 1 by default), hard-coded here: its kind as "trace",
# its note, sim and expect ([] and {} when it has none), in json.dumps()'s
# layout.  Where the program's own parse differs from that old copy of
# its grammar (defaults relative to memory, the --opt=ARG form), a comment
# says so.

# describe_is <expected line> <workload> args...: aws-<workload> args
# --describe exits 0 with exactly that line on stdout, nothing on stderr.
describe_is() {
	want=$1
	shift
	run "$@" --describe
	if [ "$rc" -ne 0 ] || [ -s "$ERR" ] ||
	    [ "$(cat "$OUT")" != "$want" ] || [ "$(wc -l <"$OUT")" -ne 1 ]; then
		diag "aws-$*: exit status $rc, stdout and stderr below; expected on stdout:"
		diag "$want"
		return 1
	fi
}

# na <workload> <note>, exact <workload>: the line of an n/a or exact trace
na() {
	printf '{"workload": "%s", "trace": "n/a", "note": "%s", "sim": [], "expect": {}}\n' "$1" "$2"
}

exact() {
	printf '{"workload": "%s", "trace": "exact", "note": "", "sim": [], "expect": {}}\n' "$1"
}

# approx <workload> <threads> <records|writes> <sim arguments> -- <key value>...
approx() {
	aw=$1 an=$2 awhat=$3
	shift 3
	asim='' sep=''
	while [ "$1" != -- ]; do
		asim="$asim$sep\"$1\""
		sep=", "
		shift
	done
	shift
	aexp='' sep=''
	while [ $# -gt 0 ]; do
		aexp="$aexp$sep\"$1\": $2"
		sep=", "
		shift 2
	done
	printf '{"workload": "%s", "trace": "approx", "note": "approximate: %s threads'"'"' %s taken round-robin, one each; the guest'"'"'s scheduler interleaves them otherwise", "sim": [%s], "expect": {%s}}\n' \
		"$aw" "$an" "$awhat" "$asim" "$aexp"
}

TIMED="timed (--seconds): the number of accesses depends on the run's speed"
UNTRACED="--corrupt-test/--thp runs are not traced"
RELATIVE="is relative to the guest's memory"

case_describe_zipf() {
	describe_is "$(approx zipf 8 records --seed 1 --pattern zipf --zipf-pages 8192 \
		--zipf-chunk 16 --zipf-threads 8 --alpha 0.9 --accesses 96000 -- \
		records 6000 chunks 512 chunk_bytes 65536 threads 8)" \
		zipf --size 32M --threads 8 --records 750 --alpha 0.9 || return 1
	# alpha as given (opt.py passed the text on), the default "1.0"; a
	# size that is not a multiple of the chunk (aws-sim rounds it down)
	describe_is "$(approx zipf 8 records --seed 42 --pattern zipf --zipf-pages 32768 \
		--zipf-chunk 16 --zipf-threads 8 --alpha 00.50 --accesses 160000 -- \
		records 10000 chunks 2048 chunk_bytes 65536 threads 8)" \
		zipf --size 128M --threads 8 --alpha 00.50 --records 1250 --seed 42 || return 1
	describe_is "$(approx zipf 3 records --seed 7 --pattern zipf --zipf-pages 1024 \
		--zipf-chunk 3 --zipf-threads 3 --alpha 1.0 --accesses 90 -- \
		records 30 chunks 341 chunk_bytes 12288 threads 3)" \
		zipf --size 4M --chunk 12K --threads 3 --records 10 --seed 7 || return 1
	describe_is "$(exact zipf)" zipf --size 32M --records 100 || return 1
	describe_is "$(exact zipf)" zipf --size 32M --threads 1 --alpha 1.3 --records 6000 || return 1
	describe_is "$(na zipf "no --records: timed (10 s by default)")" \
		zipf --size 32M --threads 2 || return 1
	describe_is "$(na zipf "$TIMED")" zipf --size 32M --threads 2 --records 100 --seconds 5 || return 1
	describe_is "$(na zipf "--size 50% $RELATIVE")" zipf --size 50% --chunk 4K --records 5 || return 1
	# the first relative size on the command line, not in parse order
	describe_is "$(na zipf "--size 50% $RELATIVE")" zipf --size 50% --chunk 1% --records 5 || return 1
	describe_is "$(na zipf "$UNTRACED")" zipf --size 4M --records 5 --thp || return 1
	describe_is "$(na zipf "$UNTRACED")" zipf --size 4M --thp || return 1
	describe_is "$(na zipf "$TIMED")" zipf --size 50% --seconds 1 --thp || return 1
	# opt.py's old copy read neither of these: --opt=ARG ("no --records") and the
	# default size, 100% (exact)
	describe_is "$(approx zipf 2 records --seed 1 --pattern zipf --zipf-pages 8192 \
		--zipf-chunk 16 --zipf-threads 2 --alpha 0.5 --accesses 160 -- \
		records 10 chunks 512 chunk_bytes 65536 threads 2)" \
		zipf --size=32M --threads=2 --records=5 --alpha=0.5 || return 1
	describe_is "$(na zipf "--size 100% (the default) $RELATIVE")" zipf --records 5
}

case_describe_randw() {
	describe_is "$(approx randw 2 writes --seed 1 --pattern randw --randw-pages 16384 \
		--randw-threads 2 --accesses 2000 -- writes 2000 pages 16384 threads 2)" \
		randw --size 64M --threads 2 --writes 1000 || return 1
	describe_is "$(approx randw 2 writes --seed 3 --pattern randw --randw-pages 8192 \
		--randw-threads 2 --accesses 28000 -- writes 28000 pages 8192 threads 2)" \
		randw --size 32M --threads 2 --writes 14000 --seed 3 --verify-writes || return 1
	describe_is "$(exact randw)" randw --size 64M --threads 1 --writes 10 || return 1
	describe_is "$(na randw "no --threads: it defaults to the CPUs online, the guest's are not the host's")" \
		randw --size 64M --writes 10 || return 1
	describe_is "$(na randw "no --writes: timed (10 s by default)")" randw --size 64M --threads 2 || return 1
	describe_is "$(na randw "no --writes: timed (10 s by default)")" randw --size 64M || return 1
	describe_is "$(na randw "$TIMED")" randw --size 64M --threads 2 --writes 5 --seconds 1 || return 1
	describe_is "$(na randw "--size 10% $RELATIVE")" randw --size 10% --thp --writes 5 || return 1
	describe_is "$(na randw "--size 0.5x $RELATIVE")" randw --size 0.5x --threads 2 --writes 5 || return 1
	describe_is "$(na randw "$UNTRACED")" randw --size 4M --writes 5 --corrupt-test
}

case_describe_thrash() {
	describe_is "$(exact thrash)" thrash || return 1
	describe_is "$(exact thrash)" thrash --cold 128M --hot1 40M --hot2 12M --cold-slice 48M --rounds 8 || return 1
	describe_is "$(exact thrash)" thrash --scale 0.5 --write || return 1
	describe_is "$(na thrash "$UNTRACED")" thrash --cold 8M --hot1 2M --hot2 2M --corrupt-test || return 1
	describe_is "$(na thrash "--hot2 1% $RELATIVE")" thrash --cold 8M --hot2 1%
}

case_describe_protect() {
	describe_is "$(exact protect)" protect --hot 32M --wave 64M --waves 3 --chunks 16 || return 1
	describe_is "$(na protect "$UNTRACED")" protect --hot 2M --wave 4M --thp || return 1
	describe_is "$(na protect "--wave 0.01x $RELATIVE")" protect --hot 2M --wave 0.01x || return 1
	describe_is "$(na protect "--wave 50% $RELATIVE")" protect --wave 50% --hot 10% || return 1
	# opt.py's old copy read neither of these: --opt=ARG (it names --hot 10%) and
	# the defaults, --hot 40% and --wave 100% (exact, and its --thp note)
	describe_is "$(na protect "--wave 50% $RELATIVE")" protect --wave=50% --hot 10% || return 1
	describe_is "$(na protect "--hot 40% (the default) $RELATIVE")" protect || return 1
	describe_is "$(na protect "--hot 40% (the default) $RELATIVE")" protect --thp
}

case_describe_loop() {
	describe_is "$(exact loop)" loop || return 1
	describe_is "$(exact loop)" loop --size 160M --loops 4 || return 1
	describe_is "$(na loop "--size 50% $RELATIVE")" loop --size 50% || return 1
	describe_is "$(na loop "$UNTRACED")" loop --size 4M --corrupt-test
}

case_describe_instance() {
	describe_is "$(exact instance)" instance --dist-seed 7 --index 3 --memory 16M || return 1
	describe_is "$(na instance "--memory 50% $RELATIVE")" instance --dist-seed 7 --index 3 --memory 50% || return 1
	run instance --index 3 --memory 16M --describe
	expect_rc 2
}

case_describe_sqlite() {
	describe_is "$(na sqlite "a real program (sqlite3): its page trace is not recorded")" \
		sqlite --size 160M --scans 4
}

case_describe_redis() {
	describe_is "$(na redis "a real program (redis-server): its page trace is not recorded")" \
		redis --size 96M --requests 20000 || return 1
	describe_is "$(na redis "a real program (redis-server): its page trace is not recorded")" \
		redis --size 4M --clients 4 --corrupt-test --seed 3
}

case_describe_pgbench() {
	describe_is "$(na pgbench "a real program (postgres): its page trace is not recorded")" \
		pgbench --shared-buffers 96M --scale 4 --transactions 2000
}

# A bad argument exits 2 with --describe as without it, stdout empty; so
# does an option the workload does not have (opt.py's old copy called
# aws-thrash --seconds 5 timed).
case_describe_bad_args() {
	for cmd in "zipf --alpha 9" "zipf --size 4M --threads 2 --records 5 --save-trace $TMP/x" \
	    "randw --size 4Q" "randw --size 8K --threads 3 --writes 1" "thrash --seconds 5" \
	    "protect --hot 2M --wave 4M --save-trace $TMP/x --corrupt-test" \
	    "loop --size 4M stray" "sqlite --size 1K" "zipf --size 4M --records 0" \
	    "redis --size 64K" "redis --clients 65" "redis --requests 0" \
	    "pgbench --shared-buffers 512K" "pgbench --scale 0" "pgbench --clients 17" \
	    "pgbench --transactions x"; do
		# shellcheck disable=SC2086 # word splitting of the command
		run $cmd --describe
		if [ "$rc" -ne 2 ] || [ -s "$OUT" ] || [ ! -s "$ERR" ]; then
			diag "aws-$cmd --describe: exit status $rc, expected 2 and an error on stderr only"
			return 1
		fi
	done
	run_limit abc loop --size 50% --describe
	expect_rc 2
}

# --describe runs nothing: no region (a run of these sizes could not even
# allocate its tables) and no --save-trace file.
case_describe_runs_nothing() {
	describe_is "$(approx zipf 8 records --seed 1 --pattern zipf --zipf-pages 15728640000 \
		--zipf-chunk 1 --zipf-threads 8 --alpha 1.0 --accesses 8 -- \
		records 8 chunks 15728640000 chunk_bytes 4096 threads 8)" \
		zipf --size 60000G --chunk 4K --threads 8 --records 1 || return 1
	describe_is "$(exact loop)" loop --size 4M --save-trace "$TMP/none.trace" || return 1
	if [ -e "$TMP/none.trace" ]; then
		diag "--describe created the --save-trace file"
		return 1
	fi
}

# ---- plan and run -------------------------------------------------------

CASES=
# (pgbench's run needs PostgreSQL, which the host does not install: the
# guest's harness suite runs its --corrupt-test)
for w in protect thrash zipf randw loop instance sqlite redis; do
	for c in run corrupt_test; do
		CASES="$CASES $w:$c"
	done
done
CASES="$CASES thrash:thrash_write loop:loop_counts sqlite:sqlite_counts redis:redis_counts"
CASES="$CASES zipf:zipf_records randw:randw_writes"
CASES="$CASES zipf:early_stop randw:early_stop protect:size_fraction_of_memtotal"
for w in protect thrash zipf randw loop instance sqlite redis pgbench; do
	for c in help garbage_size unknown_option stray_operand; do
		CASES="$CASES $w:$c"
	done
done
CASES="$CASES randw:size_forms protect:size_percent_of_limit protect:size_bad_limit_env"
CASES="$CASES zipf:zipf_trace_matches_sim loop:loop_trace_matches_sim"
CASES="$CASES randw:randw_trace_matches_sim thrash:thrash_trace protect:protect_trace"
CASES="$CASES instance:instance_trace_matches_sim instance:describe_instance"
CASES="$CASES zipf:describe_zipf randw:describe_randw thrash:describe_thrash"
CASES="$CASES protect:describe_protect loop:describe_loop sqlite:describe_sqlite"
CASES="$CASES redis:describe_redis pgbench:describe_pgbench"
CASES="$CASES zipf:describe_bad_args zipf:describe_runs_nothing"

total=0
for c in $CASES; do
	total=$((total + 1))
done

echo "KTAP version 1"
echo "1..$total"

n=0
failed=0
for c in $CASES; do
	n=$((n + 1))
	w=${c%%:*}
	t=${c#*:}
	case $t in
	help|run|corrupt_test|garbage_size|unknown_option|stray_operand|early_stop)
		name="${w}_$t" ;;
	*)
		name=$t ;;
	esac
	: >"$DIAG"
	: >"$OUT"
	: >"$ERR"
	if [ ! -x "$BIN/aws-$w" ]; then
		diag "$BIN/aws-$w missing or not executable"
		ok=no
	elif "case_$t" "$w"; then
		ok=yes
	else
		ok=no
	fi
	if [ "$ok" = yes ]; then
		echo "ok $n $name"
	else
		failed=$((failed + 1))
		echo "not ok $n $name"
		sed 's/^/# /' "$DIAG"
		if [ -s "$OUT" ]; then
			echo "# stdout:"
			head -n 5 "$OUT" | sed 's/^/#   /'
		fi
		if [ -s "$ERR" ]; then
			echo "# stderr (last lines):"
			tail -n 5 "$ERR" | sed 's/^/#   /'
		fi
	fi
done

echo "# totals: pass:$((total - failed)) fail:$failed"
[ "$failed" -eq 0 ]
