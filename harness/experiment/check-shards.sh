#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test's check of make run's guests (harness/experiment/run.py), with real
# guests on two cheap cells of the short plan, one run each of stock (and
# of hold where a guest must go on after a run: step 3): a memcg cell
# (zipf-t1-a1.3) and a global-pressure one (protect-global).  KTAP on stdout, every command's output in
# build/logs/shards.log.
#
#   1. JOBS=2, and the zipf guest killed once its cell has started: the run
#      fails, names the lost cell and the command that completes it, and
#      keeps the other cell's data;
#   2. that command (make run RESUME=) boots the lost cell only and
#      completes the folder;
#   3. a run past RUN_LIMIT (1 s here) is killed and counted failed,
#      and its guest goes on;
#   4. the two cells as two shards, the way docs/experiment.md runs them on
#      many machines: GNU parallel over its sshlogin ':' (this machine),
#      each shard a make run into a folder it names, then make merge: the
#      merged table has the same runs as the completed run of step 1.
# The folders it made are removed when all passed, and build/results/latest
# points where it did before.
#
# usage: check-shards.sh [VARIANT]
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

VARIANT=${1:-default}
A=zipf-t1-a1.3 B=protect-global
SEL="REPS=1 POLICIES=nomod"
LOG=$AWS_LOGS/shards.log
N=0 LINES=()
result() { # result ok|not-ok NAME [why]
	N=$((N + 1))
	if [ "$1" = ok ]; then LINES+=("ok $N $2${3:+ # $3}")
	else LINES+=("not ok $N $2${3:+ # $3}"); fi
}
# finish: the KTAP; the test's folders removed if every case passed (they
# are a test's, not results), build/results/latest put back
finish() {
	printf '%s\n' "KTAP version 1" "1..4" "${LINES[@]}"
	if [ ${#LINES[@]} = 4 ] && ! printf '%s\n' "${LINES[@]}" | grep -q '^not ok'; then
		rm -rf "${MADE[@]}"
	fi
	if [ -n "$latest" ]; then ln -sfn "$latest" "$AWS_BUILD/results/latest"
	else rm -f "$AWS_BUILD/results/latest"; fi
	exit 0
}
MADE=()
run() { # run VAR=VALUE...: make run PLAN=short with those, its output to the log
	make -s --no-print-directory -C "$AWS_TOP" run PLAN=short VARIANT="$VARIANT" "$@" >>"$LOG" 2>&1
}
# cells RESULTS-DIR: its runs as sorted "cell policy rep" lines
cells() { cut -f1-3 "$1/runs.tsv" | sort; }
: >"$LOG"
tag=check-shards-$$
# make run moves build/results/latest: it points where it did once done
latest=$(readlink "$AWS_BUILD/results/latest" 2>/dev/null)

# 1. a guest killed mid-run
echo "== 1: JOBS=2, the $A guest killed" >>"$LOG"
ktap=$AWS_RUNS/experiment-$A/ktap.log killed=no
rm -f "$ktap"
# shellcheck disable=SC2086 # SEL is two words
run $SEL ONLY="$A:$B" JOBS=2 &
pid=$!
for _ in $(seq 600); do
	if grep -qs "experiment: cell $A" "$ktap" && pkill -f "${AWS_RUNS##*/}/experiment-$A/swap.img"; then
		killed=yes
		break
	fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.5
done
wait $pid
rc=$?
ts=$(grep -o 'data kept in build/results/[0-9TZ]*' "$LOG" | tail -n 1)
ts=${ts##*/} out=$AWS_BUILD/results/$ts
[ -z "$ts" ] || MADE+=("$out")
if [ $killed = no ]; then
	result not-ok run_with_a_dead_guest_keeps_the_others "the $A guest never started its cell (log: $LOG)"
	result not-ok resume_boots_only_the_lost_cell "not tried"
	result not-ok run_over_its_limit_is_killed "not tried"
	result not-ok shards_merge_into_one_runs_table "not tried"
	finish
fi
if [ $rc != 0 ] && grep -q "^   $A	build/${AWS_RUNS##*/}/experiment-$A/console.log" "$LOG" &&
	grep -q "make run RESUME=$ts" "$LOG" && [ -f "$out/FAILED" ] &&
	[ -s "$out/guests/$B/runs.tsv" ] && [ ! -e "$out/guests/$A" ]; then
	result ok run_with_a_dead_guest_keeps_the_others "exit $rc, $A named, $B kept in build/results/$ts"
else
	result not-ok run_with_a_dead_guest_keeps_the_others "exit $rc, folder '$ts' (log: $LOG)"
fi

# 2. the lost cell, resumed
echo "== 2: make run RESUME=$ts" >>"$LOG"
if [ -n "$ts" ] && run RESUME="$ts" &&
	grep -q "1 of 2 cells, a guest each" "$LOG" && [ ! -f "$out/FAILED" ] &&
	[ "$(cut -f1 "$out/runs.tsv" | sort -u | tr '\n' ' ')" = "cell=$B cell=$A " ]; then
	result ok resume_boots_only_the_lost_cell "one guest booted, both cells in runs.tsv"
else
	result not-ok resume_boots_only_the_lost_cell "build/results/$ts (log: $LOG)"
fi

# 3. a run over its time limit: killed, counted failed, and the guest goes
# on with the next run
echo "== 3: make run RUN_LIMIT=1" >>"$LOG"
lim=$tag-limit
if run NAME="$lim" REPS=1 POLICIES=nomod:hold ONLY="$A" RUN_LIMIT=1 JOBS=1; then
	result not-ok run_over_its_limit_is_killed "make run passed: a 1 s limit killed nothing (log: $LOG)"
else
	MADE+=("$AWS_BUILD/results/$lim")
	rcs=$(grep -o 'rc=[0-9-]*' "$AWS_BUILD/results/$lim/runs.tsv" 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ',')
	# 1 s times the kernel's aws.slow (4 s on the debug kernel)
	if [ "$(grep -cE "still running after [0-9]+ s: its cgroup killed" "$LOG")" = 2 ] &&
		[ "$rcs" = " 2 rc=124," ]; then
		result ok run_over_its_limit_is_killed "both runs killed (rc 124), the guest went on"
	else
		result not-ok run_over_its_limit_is_killed "runs.tsv has '$rcs' (log: $LOG)"
	fi
fi

# 4. two shards through GNU parallel, merged: docs/experiment.md's
# command, with the sshlogin ':' (this machine)
echo "== 4: shards through GNU parallel, then make merge" >>"$LOG"
parallel -j1 -S : --wd "$AWS_TOP" --return "build/results/$tag-{}" \
	"make -s --no-print-directory run PLAN=short NAME=$tag-{} $SEL ONLY={} JOBS=1 \
	VARIANT=$VARIANT >>$LOG 2>&1" ::: $A $B >>"$LOG" 2>&1
merged=''
MADE+=("$AWS_BUILD/results/$tag-$A" "$AWS_BUILD/results/$tag-$B")
if make -s --no-print-directory -C "$AWS_TOP" merge \
	RESULTS="build/results/$tag-$A build/results/$tag-$B" >>"$LOG" 2>&1; then
	merged=$(readlink -f "$AWS_BUILD/results/latest")
	MADE+=("$merged")
fi
if [ -n "$merged" ] && [ -s "$merged/runs.tsv" ] && [ -s "$out/runs.tsv" ] &&
	[ "$(cells "$merged")" = "$(cells "$out")" ] &&
	grep -q "\"shards\": \[" "$merged/meta.json"; then
	result ok shards_merge_into_one_runs_table "$(cells "$merged" | wc -l) runs, as in build/results/$ts"
else
	result not-ok shards_merge_into_one_runs_table "merged '$merged' (log: $LOG)"
fi
finish
