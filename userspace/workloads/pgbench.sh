#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pgbench.sh - aws-pgbench: a third real program, Debian's PostgreSQL 15,
# whose buffer pool is shared memory larger than its cgroup, running a
# fixed number of pgbench's TPC-B-like transactions.
#
#   1. the build: a cluster of our own (initdb as the unprivileged user
#      aws, postgres refuses root) in a temporary directory, a postmaster
#      on a unix socket there (no TCP port), with --shared-buffers of
#      buffer pool and nothing written that need not be (fsync,
#      synchronous_commit and full_page_writes off, no autovacuum, no
#      checkpoint during the run); pgbench -i at --scale (100,000
#      accounts of about 160 bytes per unit of scale), then every table
#      and index read into the buffer pool by pg_prewarm, so that the pool
#      holds the whole dataset;
#   2. --transactions TPC-B-like transactions by pgbench over --clients
#      connections, its random numbers seeded by --seed (a repetition is
#      a replay of the same accounts);
#   3. the check: pgbench must report every transaction processed and
#      none failed, and the bank must balance: the sums of the accounts',
#      tellers' and branches' balances each equal the sum of the history's
#      deltas, which holds one row per transaction.
#
# PostgreSQL's buffer pool is one shared anonymous mapping (shmem, swap
# backed): on the anon LRU like the C workloads' memory, charged to the
# cgroup of the process that first touches it.  With the pool larger than
# memory.max, the kernel swaps buffers that PostgreSQL's own clock sweep
# still counts as cached: two replacement policies stacked, the case
# double caching makes common in databases.  The data files are in the
# page cache too (the file LRU).  The counts are the system's pswpin and
# major faults over the transactions only (/proc/vmstat read just before
# and after pgbench); the program's own figure is pgbench's transactions
# per second.  Its page trace is not known (PostgreSQL places the buffers),
# so it has no OPT figure: --describe says so, trace "n/a".
#
# pages_verified is the history rows the check summed (one per
# transaction).  It follows the conventions of the C workloads (common.c):
# exit 0, 1 on an error, 2 on a usage error, 3 on a verification failure
# (with a VERIFY_FAIL line on stderr), and one RESULT line with the common
# keys (whole-run /proc/vmstat deltas).  Needs bash 5 (EPOCHREALTIME),
# postgresql-15 (its initdb, postgres, pgbench and pg_prewarm),
# postgresql-client-15 (psql), setpriv and a user aws.
set -uo pipefail

PGBIN=${AWS_PGBIN:-/usr/lib/postgresql/15/bin}
RUNAS=aws
PROG=aws-pgbench
# shellcheck source=userspace/workloads/program.sh
. "$(dirname "${BASH_SOURCE[0]}")/aws-program.sh" || exit 1
shared_buffers=96M scale=4 transactions=2000 clients=1 seed=1

usage() {
	cat <<EOF
Usage: aws-pgbench [options]
Debian's PostgreSQL 15 with a buffer pool of --shared-buffers (shared
memory) holding pgbench's tables at --scale, running --transactions of
pgbench's TPC-B-like script (a database whose pool is larger than memory).

  --shared-buffers SIZE  the buffer pool (default 96M; N, NK, NM or NG, at
                         least 1M)
  --scale N              pgbench's scale: 100,000 accounts a unit, about
                         16 MB with the index (default 4, at most 1000)
  --transactions N       per client (default 2000)
  --clients N            pgbench's connections (default 1, at most 16)
  --seed N               pgbench's --random-seed (default 1)
  --corrupt-test         verifier self-test: change one balance after the
                         run, so that the check must report it (exit 3)
  --describe             check the arguments, then print one JSON line
                         instead of running: the run's page trace ("n/a")

RESULT keys: scale shared_buffers_bytes transactions clients init_seconds
             run_seconds check_seconds run_pswpin run_majfaults tps
             + common keys (verify_fail pages_verified seconds and the
             whole run's vmstat deltas)
EOF
}

parse_args "shared-buffers scale transactions clients seed" "$@"
to_bytes "$shared_buffers" ||
	die "bad --shared-buffers '$shared_buffers' (N, NK, NM or NG)" 2
bytes=$BYTES
if ! [[ $scale =~ ^[1-9][0-9]{0,3}$ ]] || [ "$scale" -gt 1000 ]; then
	die "bad --scale '$scale' (1 to 1000)" 2
fi
[[ $transactions =~ ^[1-9][0-9]{0,8}$ ]] || die "bad --transactions '$transactions'" 2
if ! [[ $clients =~ ^[1-9][0-9]?$ ]] || [ "$clients" -gt 16 ]; then
	die "bad --clients '$clients' (1 to 16)" 2
fi
[[ $seed =~ ^[0-9]{1,9}$ ]] || die "bad --seed '$seed'" 2
[ "$bytes" -ge $((1 << 20)) ] || die "--shared-buffers $shared_buffers is under 1M" 2
[ $describe = 1 ] && describe_line pgbench postgres
for p in initdb postgres pgbench; do
	[ -x "$PGBIN/$p" ] || die "$PGBIN/$p not found (apt-get install postgresql-15)"
done
for p in psql setpriv; do
	command -v $p >/dev/null || die "$p not found (apt-get install postgresql-client-15 util-linux)"
done
id -u $RUNAS >/dev/null 2>&1 || die "no user $RUNAS to run postgres as (it refuses root)"

# ---- helpers: bash builtins where they can be (every fork costs tens of
# milliseconds under TCG)

# mark: M_PSWPIN and M_MAJFLT, /proc/vmstat's pswpin and pgmajfault: the
# guest's, which runs nothing else.  (Summing the cluster's processes'
# own major faults, as a first version did, went negative: a backend that
# was counted at the first mark had exited by the second.)
mark() {
	local k v
	M_PSWPIN='' M_MAJFLT=''
	while read -r k v; do
		case $k in
		pswpin) M_PSWPIN=$v ;;
		pgmajfault) M_MAJFLT=$v ;;
		esac
	done </proc/vmstat
	[[ "$M_PSWPIN $M_MAJFLT" =~ ^[0-9]+\ [0-9]+$ ]] || die "no pswpin or pgmajfault in /proc/vmstat"
}

as_user() { setpriv --reuid="$RUNAS" --regid="$RUNAS" --init-groups -- "$@"; }
sql() { as_user psql -X -q -A -t -h "$tmp" -d postgres -v ON_ERROR_STOP=1 -c "$1"; }

# the cluster on a disk, not in the guest's /tmp (a tmpfs: shmem, which
# would put the data files on the anon LRU too)
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/aws-pgbench.XXXXXX") || die "mktemp failed"
chown "$RUNAS:" "$tmp" || die "cannot give $tmp to $RUNAS"
pid=''
stop_on_exit QUIT
run_start

as_user "$PGBIN/initdb" -D "$tmp/data" -U "$RUNAS" --auth=trust --no-sync -E UTF8 \
	--locale=C >"$tmp/initdb.log" 2>&1 || die "initdb failed: $(tail -n 3 "$tmp/initdb.log")"
# setpriv itself in the background (not as_user, a function, which would
# run in a subshell of its own): $! is the postmaster, which setpriv execs
setpriv --reuid="$RUNAS" --regid="$RUNAS" --init-groups -- \
	"$PGBIN/postgres" -D "$tmp/data" -k "$tmp" -c listen_addresses= \
	-c shared_buffers="$((bytes >> 10))kB" -c huge_pages=off -c fsync=off \
	-c synchronous_commit=off -c full_page_writes=off -c autovacuum=off \
	-c max_wal_size=4GB -c checkpoint_timeout=1d -c logging_collector=off \
	>"$tmp/postgres.log" 2>&1 &
pid=$!
for ((i = 0; ; i++)); do
	sql 'SELECT 1' >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || die "postgres exited: $(tail -n 3 "$tmp/postgres.log")"
	[ $i -lt 600 ] || die "postgres did not answer on $tmp in 60 s"
	sleep 0.1
done

now_us
tb=$T_US
as_user "$PGBIN/pgbench" -h "$tmp" -i -q -s "$scale" postgres >"$tmp/init.log" 2>&1 ||
	die "pgbench -i failed: $(tail -n 3 "$tmp/init.log")"
sql "CREATE EXTENSION pg_prewarm" >/dev/null || die "no pg_prewarm extension"
warmed=$(sql "SELECT sum(pg_prewarm(c.oid)) FROM pg_class c WHERE c.relname LIKE 'pgbench_%'
	AND c.relkind IN ('r', 'i')") || die "pg_prewarm failed"
[[ $warmed =~ ^[1-9][0-9]*$ ]] || die "pg_prewarm read '$warmed' blocks"
now_us
tb=$((T_US - tb))

# The transactions, between the two marks.
mark
s0=$M_PSWPIN f0=$M_MAJFLT
now_us
tr=$T_US
as_user "$PGBIN/pgbench" -h "$tmp" -n -c "$clients" -t "$transactions" \
	--random-seed="$seed" postgres >"$tmp/bench" 2>&1 ||
	die "pgbench failed: $(tail -n 3 "$tmp/bench")"
now_us
tr=$((T_US - tr))
mark
s1=$M_PSWPIN f1=$M_MAJFLT
want=$((clients * transactions))
done_tx='' failed='' tps=''
while read -r line; do
	case $line in
	"number of transactions actually processed: "*)
		done_tx=${line##*: } ;;
	"number of failed transactions: "*)
		failed=${line##*: }; failed=${failed%% *} ;;
	"tps = "*)
		tps=${line#tps = }; tps=${tps%% *} ;;
	esac
done <"$tmp/bench"
[ "$done_tx" = "$want/$want" ] ||
	die "pgbench processed '${done_tx:-nothing}' transactions, not $want/$want"
[ "${failed:-0}" = 0 ] || die "pgbench reports $failed failed transactions"
[[ $tps =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "no tps in pgbench's output: $(tail -n 3 "$tmp/bench")"

if [ $corrupt = 1 ]; then
	sql "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1" >/dev/null ||
		die "--corrupt-test: the update failed"
fi

# The check: the bank balances, one history row per transaction.
now_us
tc=$T_US
sums=$(sql "SELECT (SELECT count(*) FROM pgbench_history) || ' ' ||
	(SELECT coalesce(sum(delta), 0) FROM pgbench_history) || ' ' ||
	(SELECT sum(abalance) FROM pgbench_accounts) || ' ' ||
	(SELECT sum(tbalance) FROM pgbench_tellers) || ' ' ||
	(SELECT sum(bbalance) FROM pgbench_branches)") || die "the check's query failed"
read -r rows delta acc tel bra <<<"$sums"
[[ "$rows $delta $acc $tel $bra" =~ ^[0-9]+(\ -?[0-9]+){4}$ ]] || die "the check read '$sums'"
bad=0
[ "$rows" = "$want" ] || bad=$((bad + 1))
for v in "$acc" "$tel" "$bra"; do
	[ "$v" = "$delta" ] || bad=$((bad + 1))
done
# (in the C workloads' form: "page" 0, the bank as a whole)
[ $bad = 0 ] ||
	printf 'VERIFY_FAIL workload=pgbench page=0 expected=rows:%s,sums:%s got=rows:%s,accounts:%s,tellers:%s,branches:%s\n' \
		"$want" "$delta" "$rows" "$acc" "$tel" "$bra" >&2
now_us
tc=$((T_US - tc))
result_exit "$bad" scale="$scale" shared_buffers_bytes="$bytes" transactions="$want" \
	clients="$clients" init_seconds="$(secs $tb)" run_seconds="$(secs $tr)" \
	check_seconds="$(secs $tc)" run_pswpin=$((s1 - s0)) run_majfaults=$((f1 - f0)) \
	tps="${tps%.*}" verify_fail="$bad" pages_verified="$rows"
