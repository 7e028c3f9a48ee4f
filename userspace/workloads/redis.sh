#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# redis.sh - aws-redis: a second real program, Debian's redis-server,
# serving a fixed number of GETs, sent by redis-benchmark (redis-tools),
# from a dataset larger than its cgroup.
#
#   1. the build: a redis-server of our own, on a unix socket in a
#      temporary directory (no TCP port, no persistence, no maxmemory),
#      filled with --size bytes of keys: key:NNNNNNNNNNNN (12 digits, the
#      form of redis-benchmark's __rand_int__) for N = 0 .. keys-1, each
#      holding VALUE_BYTES bytes that spell N ("%015d|" repeated), written
#      by a Lua script in the server, CHUNK keys a call;
#   2. --requests GETs by redis-benchmark -t get -r keys over --clients
#      connections: keys drawn uniformly at random (redis-benchmark 7.0
#      has no other distribution);
#   3. every value read back and compared with what its key must hold, by
#      a Lua script in the server.
#
# A value of 4000 bytes is 4006 with its sds header, in jemalloc's 4096
# size class: one value per page, so that a GET of a swapped-out value is
# one major fault, as a row is in aws-sqlite; the keys, the dict and
# Redis's own structures (about 100 bytes a key) are the hot rest.
# Redis's heap is malloc()ed anon memory, so a dataset larger than
# memory.max is swapped like any anon workload.  Uniform reads are the
# pattern no policy can predict: whichever values a policy keeps, a GET
# finds its value out with the same chance, so a policy can only lose
# (pushing out the hot rest, or by its own cost), and the cell asks what
# it costs a real program where it cannot win.  The counts are the
# system's pswpin and redis-server's major faults over the GETs only
# (/proc/vmstat and /proc/PID/stat read just before and after
# redis-benchmark); the program's own figure is redis-benchmark's
# requests per second.  The whole run's pswpin also counts the check,
# which reads every value once: about the values swapped out when it
# starts.  Its page trace is not known (jemalloc places the values,
# redis-benchmark draws the keys), so it has no OPT figure: --describe
# says so in the C workloads' JSON line (common.h), trace "n/a".
#
# --clients is 1 by default: Redis serves every connection from one
# thread, so a GET that faults stalls them all whatever their number; with
# one, each GET waits for the one before, every fault's latency is in the
# requests/s, and redis-benchmark stays small in the cgroup.  --seed is
# accepted for the harness but does not fix the keys read: redis-benchmark
# seeds its random() with the time and its pid, so every run draws other
# keys (repetitions are samples, not replays); the data does not depend on
# it.
#
# pages_verified is the values the final check compared (one per page).
#
# It follows the conventions of the C workloads (common.c): exit 0, 1 on
# an error, 2 on a usage error, 3 on a verification failure (with a
# VERIFY_FAIL line on stderr), and one RESULT line with the common keys
# (whole-run /proc/vmstat deltas).  userspace/workloads/selftest.sh tests
# it like them.  Needs bash 5 (EPOCHREALTIME), redis-server and
# redis-tools (redis-cli, redis-benchmark), Redis 7.
set -uo pipefail

VALUE_BYTES=4000	# 4000 + sds header and NUL = 4006: jemalloc's 4096 class
UNIT=16			# "%015d|": the value is VALUE_BYTES / UNIT of them
KEY_BYTES=4192		# used_memory per key, measured (Redis 7.0.15, jemalloc 5.3)
CHUNK=1024		# keys per Lua call of the fill and of the check
PROG=aws-redis
# shellcheck source=userspace/workloads/program.sh
. "$(dirname "${BASH_SOURCE[0]}")/aws-program.sh" || exit 1
size=96M requests=20000 clients=1 seed=0

usage() {
	cat <<EOF
Usage: aws-redis [options]
Debian's redis-server holding --size bytes of keys (one ${VALUE_BYTES}-byte value
per page) and serving --requests GETs of uniformly random keys from
redis-benchmark (a key-value store read at random over more than memory).

  --size SIZE     the dataset (default 96M; N, NK, NM or NG): one key per
                  $KEY_BYTES bytes, what each adds to Redis's used_memory
  --requests N    GETs (default 20000)
  --clients N     redis-benchmark's connections (default 1, at most 64)
  --seed N        accepted for the harness; redis-benchmark draws the keys
                  from its own seed (the time), the data does not depend on it
  --corrupt-test  verifier self-test: change one value after the build, so
                  that the final check must report it (exit 3)
  --describe      check the arguments, then print one JSON line instead of
                  running: the run's page trace ("n/a": not recorded)

RESULT keys: keys value_bytes dataset_bytes (used_memory after the build)
             requests clients build_seconds get_seconds check_seconds
             get_pswpin get_majfaults get_requests_per_s + common keys (verify_fail pages_verified seconds and the whole
             run's vmstat deltas)
EOF
}

parse_args "size requests clients seed" "$@"
to_bytes "$size" || die "bad --size '$size' (N, NK, NM or NG)" 2
[[ $requests =~ ^[1-9][0-9]{0,8}$ ]] || die "bad --requests '$requests'" 2
if ! [[ $clients =~ ^[1-9][0-9]?$ ]] || [ "$clients" -gt 64 ]; then
	die "bad --clients '$clients' (1 to 64)" 2
fi
[[ $seed =~ ^[0-9]+$ ]] || die "bad --seed '$seed'" 2
keys=$((BYTES / KEY_BYTES))
[ "$keys" -ge 16 ] || die "--size $size is under 16 keys ($KEY_BYTES bytes each)" 2
# the keys' 12 digits
[ "$keys" -le 100000000000 ] || die "--size $size is over 10^11 keys" 2
[ $describe = 1 ] && describe_line redis redis-server
for p in redis-server redis-cli redis-benchmark; do
	command -v $p >/dev/null ||
		die "$p not found (apt-get install redis-server redis-tools)"
done

# ---- helpers: bash builtins where they can be (every fork costs tens of
# milliseconds under TCG)

# mark NAME: /proc/vmstat and redis-server's /proc/PID/stat, copied to
# $tmp/NAME; then M_PSWPIN and M_MAJFLT, its major faults (field 12 of
# stat, the 10th after the command's closing parenthesis)
mark() {
	local k v
	cat /proc/vmstat "/proc/$pid/stat" >"$tmp/$1" 2>/dev/null ||
		die "cannot read /proc/vmstat or /proc/$pid/stat"
	M_PSWPIN='' M_MAJFLT=''
	while read -r k v; do
		case $k in
		pswpin) M_PSWPIN=$v ;;
		"$pid")
			v=${v##*) }
			read -r _ _ _ _ _ _ _ _ _ M_MAJFLT _ <<<"$v"
			;;
		esac
	done <"$tmp/$1"
	[[ "$M_PSWPIN $M_MAJFLT" =~ ^[0-9]+\ [0-9]+$ ]] ||
		die "no pswpin in /proc/vmstat or no majflt in /proc/$pid/stat"
}

cli() { redis-cli -s "$sock" "$@"; }

# info FIELD SECTION: one field of INFO SECTION in INFO_V
info() {
	local k l
	INFO_V=''
	cli INFO "$2" >"$tmp/info" 2>&1
	while IFS=: read -r k l; do
		[ "$k" = "$1" ] && INFO_V=${l%$'\r'}
	done <"$tmp/info"
	[[ $INFO_V =~ ^[0-9]+$ ]]
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aws-redis.XXXXXX") || die "mktemp failed"
sock=$tmp/redis.sock
pid=''
stop_on_exit TERM
run_start

redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 --dir "$tmp" \
	--save '' --appendonly no --maxmemory 0 --databases 1 --daemonize no \
	--supervised no --loglevel warning --logfile "$tmp/log" >"$tmp/out" 2>&1 &
pid=$!
for ((i = 0; ; i++)); do
	[ "$(cli PING 2>/dev/null)" = PONG ] && break
	kill -0 "$pid" 2>/dev/null ||
		die "redis-server exited: $(tail -q -n 3 "$tmp/out" "$tmp/log" 2>/dev/null)"
	[ $i -lt 600 ] || die "redis-server did not answer PING on $sock in 60 s"
	sleep 0.1
done

# The fill and the check, CHUNK keys a call: ARGV = first key, end, the
# units of a value.  The check answers "checked bad first-bad got", got
# the first UNIT characters of the first bad value ("-": none; a space or
# a control character shown as '?').
FILL='for i = tonumber(ARGV[1]), tonumber(ARGV[2]) - 1 do
	redis.call("SET", string.format("key:%012d", i), string.rep(string.format("%015d|", i), tonumber(ARGV[3])))
end
return tonumber(ARGV[2]) - tonumber(ARGV[1])'
CHECK='local n, bad, first, got = 0, 0, -1, "-"
for i = tonumber(ARGV[1]), tonumber(ARGV[2]) - 1 do
	local v = redis.call("GET", string.format("key:%012d", i))
	n = n + 1
	if v ~= string.rep(string.format("%015d|", i), tonumber(ARGV[3])) then
		bad = bad + 1
		if first < 0 then
			first = i
			got = v and string.gsub(string.sub(v, 1, 16), "[^%w%p]", "?") or "(nil)"
			if got == "" then got = "(empty)" end
		end
	end
end
return n .. " " .. bad .. " " .. first .. " " .. got'
fill_sha=$(cli SCRIPT LOAD "$FILL")
check_sha=$(cli SCRIPT LOAD "$CHECK")
if ! [[ $fill_sha =~ ^[0-9a-f]{40}$ ]] || ! [[ $check_sha =~ ^[0-9a-f]{40}$ ]]; then
	die "redis-server did not load the fill and check scripts: $fill_sha $check_sha"
fi

# chunks SHA FILE: one EVALSHA line per CHUNK keys through one redis-cli,
# its answers (one line each) in FILE.  In the foreground, not read from
# a process substitution: a signal's trap waits for it, and nothing is
# left talking to the server once the trap has stopped it.
chunks() {
	local lo hi
	for ((lo = 0; lo < keys; lo = hi)); do
		hi=$((lo + CHUNK < keys ? lo + CHUNK : keys))
		echo "EVALSHA $1 0 $lo $hi $((VALUE_BYTES / UNIT))"
	done | cli >"$2" 2>&1
}

now_us
tb=$T_US
filled=0
chunks "$fill_sha" "$tmp/fill"
while read -r x; do
	[[ $x =~ ^[0-9]+$ ]] || die "the fill failed: $x"
	filled=$((filled + x))
done <"$tmp/fill"
[ $filled = "$keys" ] || die "the fill wrote $filled keys of $keys"
now_us
tb=$((T_US - tb))
info used_memory memory || die "no used_memory in INFO memory"
dataset=$INFO_V
if [ $corrupt = 1 ]; then
	[ "$(cli SETRANGE "$(printf 'key:%012d' $((keys / 2)))" 0 '#')" = $VALUE_BYTES ] ||
		die "--corrupt-test: SETRANGE failed"
fi

# The GETs, between the two marks.
mark mark0
s0=$M_PSWPIN f0=$M_MAJFLT
now_us
tg=$T_US
redis-benchmark -s "$sock" -c "$clients" -n "$requests" -r "$keys" -t get --csv \
	>"$tmp/bench" 2>"$tmp/bench.err" ||
	die "redis-benchmark failed: $(head -n 3 "$tmp/bench.err")"
now_us
tg=$((T_US - tg))
mark mark1
s1=$M_PSWPIN f1=$M_MAJFLT
rps=''
while IFS=, read -r t r _; do
	[ "$t" = '"GET"' ] && rps=${r//\"/}
done <"$tmp/bench"
[[ $rps =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
	die "no GET requests/s in redis-benchmark's output: $(head -n 3 "$tmp/bench")"
# Every GET must have found its key: redis-benchmark's keys are the fill's.
if ! info keyspace_hits stats || [ "$INFO_V" != "$requests" ]; then
	die "redis-server counted ${INFO_V:-no} hits for $requests GETs"
fi

# The check: every value.
now_us
tc=$T_US
checked=0 bad=0
chunks "$check_sha" "$tmp/check"
while read -r n b first got; do
	[[ "$n $b $first" =~ ^[0-9]+\ [0-9]+\ -?[0-9]+$ ]] || die "the check failed: $n $b $first $got"
	checked=$((checked + n)) bad=$((bad + b))
	[ "$b" = 0 ] ||
		printf 'VERIFY_FAIL workload=redis page=%d expected=%015d| got=%s\n' \
			"$first" "$first" "$got" >&2
done <"$tmp/check"
[ $checked = "$keys" ] || die "the check read $checked values of $keys"
now_us
tc=$((T_US - tc))
result_exit "$bad" keys="$keys" value_bytes="$VALUE_BYTES" dataset_bytes="$dataset" \
	requests="$requests" clients="$clients" build_seconds="$(secs $tb)" \
	get_seconds="$(secs $tg)" check_seconds="$(secs $tc)" get_pswpin=$((s1 - s0)) \
	get_majfaults=$((f1 - f0)) get_requests_per_s="${rps%.*}" verify_fail="$bad" \
	pages_verified="$checked"
