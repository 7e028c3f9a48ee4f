#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run` guest plan: the policy experiment, policies x workloads in one
# boot.  Driven by qemu/experiment.sh on the host, which boots the guest
# twice: aws.args=PLAN[,n=N][,only=GLOB:GLOB][,policies=P:P] for the
# memcg-limited cells (512 MB guest), and the same plus ",global" for the
# global-pressure cells (128 MB guest).  Output in /tmp/results (tarred by
# the guest init):
#
#   runs.tsv        one line per run, tab-separated key=value fields: cell,
#                   policy, rep, rc, wall_s, res_* (the workload's RESULT
#                   line), vm_* (/proc/vmstat deltas), cg_* (memory.stat of
#                   the run's fresh cgroup), ev_* (memory.events), cg_peak,
#                   psi_* (memory.pressure totals, us), aws_* (the whole
#                   /proc/anon_workingset, reset before the run)
#   results.txt     every RESULT line, prefixed with cell, policy and rep
#   workloads.log   the workloads' stderr, prefixed the same way
#   matrix.tsv      the cells: name, memory limit, policies, command
#   guest-info.txt  uname, MemTotal, CPUs, swap, page-cluster, module info
#
# Policies: nomod (module unloaded: stock 6.1), mglru (module unloaded, MGLRU
# enabled for the run), damon (module unloaded, the kernel's damon_lru_sort
# running: DAMON's access monitoring activates hot and deactivates cold
# pages from outside the LRU; its defaults, but for the free-memory
# watermarks, which would keep it off while a memcg limit, not the node,
# is under pressure), and every policy the module offers (its registry,
# module/policies/registry.c); a suffix -rN sets the module's anon inactive
# ratio to N (default auto).
# Repetitions are interleaved (rep 1 of every policy, then rep 2, ...) so a
# drift in the guest cannot masquerade as a policy difference.
. "$AWS_TOOLS/guest/lib.sh"

OUT=/tmp/results
LRU_GEN=/sys/kernel/mm/lru_gen/enabled
DAMON=/sys/module/damon_lru_sort/parameters
CG=/sys/fs/cgroup/aws-exp
VMKEYS="pswpin pswpout workingset_refault_anon workingset_activate_anon
	workingset_restore_anon pgactivate pgdeactivate pgmajfault pgfault
	pgscan_kswapd pgscan_direct pgsteal_kswapd pgsteal_direct
	workingset_refault_file"
CGKEYS="pgscan pgsteal pgactivate pgdeactivate workingset_refault_anon
	workingset_activate_anon workingset_restore_anon pgfault pgmajfault"
# No module (stock 6.1), MGLRU, and every policy the module offers.
MODPOLS=$(aws_policies) || { echo "# experiment: FATAL: cannot list the module's policies"; exit 1; }
POLICIES="nomod mglru $MODPOLS"
[ -d $DAMON ] && POLICIES="nomod mglru damon $MODPOLS"

PLAN=short N="" ONLY="" POLS="" BOOT=main
for a in $AWS_ARGS; do
	case $a in
	short | full | seed) PLAN=$a ;;
	global) BOOT=global ;;
	n=*) N=${a#n=} ;;
	only=*) ONLY=${a#only=} ;;
	policies=*) POLS=${a#policies=} ;;
	*) echo "# experiment: FATAL: unknown argument '$a'"; exit 1 ;;
	esac
done

# ---- the matrix ----------------------------------------------------------
# cell NAME LIMIT "POLICIES" CMD...: LIMIT is a memory.max value, or
# "global": no memcg limit (the run still gets its own cgroup, for
# memory.stat); those cells run only in the global-pressure boot.
CELLS=()
declare -A C_LIMIT C_POLS C_CMD
cell() {
	local name=$1 limit=$2 pols=$3
	shift 3
	CELLS+=("$name")
	C_LIMIT[$name]=$limit C_POLS[$name]=$pols C_CMD[$name]="$*"
}

# The short plan (about 10 minutes under TCG) keeps every cell and n = 3,
# with the policies that answer each cell's question: the seed's base and
# patch (baseline, detect) with protect and stock 6.1 everywhere, MGLRU as
# the peer on thrash and protect, upstream under global pressure, the
# anon ratio knob on randw, and stable against stock, MGLRU and detect on
# the loop it is designed for.  The full plan runs
# every policy on every cell with the seed's zipf grid, 1 and 8 threads.
if [ "$PLAN" = short ]; then
	REPS=3 ROUNDS=3 ZREC=6000 RWRITES=28000 ZLIM=16M
	ZALPHAS="0.5 0.9 1.3" ZT8ALPHAS="0.9"
	ZPOLS="nomod baseline protect detect"
	RPOLS="nomod baseline baseline-r3 protect detect"
	SPOLS="nomod baseline protect detect"
	TPOLS="nomod mglru damon baseline protect detect"
	PPOLS=$TPOLS
	LPOLS="nomod mglru damon detect stable"
	GPOLS="nomod baseline protect detect upstream"
	GCELLS="protect-global"
elif [ "$PLAN" = seed ]; then
	REPS=3
else
	REPS=5 ROUNDS=8 ZREC=10000 RWRITES=64000 ZLIM=64M
	ZALPHAS="0.1 0.3 0.5 0.7 0.9 1.1 1.3" ZT8ALPHAS=$ZALPHAS
	ZPOLS=$POLICIES
	RPOLS="$POLICIES baseline-r3 protect-r1 protect-r3 detect-r3"
	SPOLS=$POLICIES TPOLS=$POLICIES PPOLS=$POLICIES GPOLS=$POLICIES
	LPOLS=$POLICIES
	GCELLS="protect-global thrash-global"
fi
[ -n "$N" ] && REPS=$N

# The seed plan: the seed's two experiments at the seed's own sizes, every
# policy: its thrash test (cold 512M, hot-1 96M, hot-2 96M, 128M slices in
# about 280M; 8 rounds, issue 13's thrash row) under a 280M memcg limit,
# and its ebizzy-like zipf benchmark at 2048M in a 1024M guest (global
# pressure, 1 and 8 threads; alpha 0.9, the middle of the seed's grid), a
# fixed number of records per thread so that swap-ins count the same work
# for every policy.
if [ "$PLAN" = seed ]; then
	cell seed-thrash 280M "$POLICIES" aws-thrash --cold 512M --hot1 96M --hot2 96M \
		--cold-slice 128M --rounds 8
	cell seed-zipf-t1 global "$POLICIES" aws-zipf --size 2048M --threads 1 --alpha 0.9 \
		--records 32768
	cell seed-zipf-t8 global "$POLICIES" aws-zipf --size 2048M --threads 8 --alpha 0.9 \
		--records 4096
fi

# The short and full plans: the seed's experiments scaled to fit a 512 MB
# guest, and the cells the seed did not have.
if [ "$PLAN" != seed ]; then
	# thrash at the seed's proportions (cold 512, hot-1 96, hot-2 96, slice 128
	# of ~280 MB usable), scaled by 1/4; and the "detect regime", where hot-2's
	# reuse distance lies beyond what 6.1's two-reference rule lets an inactive
	# page survive but within what refault detection can see.
	cell thrash-seed 70M "$SPOLS" aws-thrash --cold 128M --hot1 24M --hot2 24M \
		--cold-slice 32M --rounds $ROUNDS
	cell thrash-detect 70M "$TPOLS" aws-thrash --cold 128M --hot1 40M --hot2 12M \
		--cold-slice 48M --rounds $ROUNDS
	# the cover letter's protection example: a hot set of half the memory (its
	# 50 of 100 pages) that fits, used-once waves that do not; the hot set is
	# re-read twice per wave (--chunks 2).  protect-dense re-reads it 16 times
	# per wave (full plan only).
	cell protect 64M "$PPOLS" aws-protect --hot 32M --wave 64M --waves 3 --chunks 2
	[ "$PLAN" = full ] && cell protect-dense 64M "$PPOLS" aws-protect --hot 32M --wave 64M \
		--waves 3 --chunks 16
	# issue 13's loop: a 160M region first written, then read 4 times in the
	# same order, in 128M (the simulator's --pattern loop --loop-mb 160 --loops
	# 4 --frames-mb 128, the same sequence; docs/trace-format.md).  Stock,
	# MGLRU and plain LRU miss every access of the loops; OPT misses a fifth.
	# The stable policy is designed for it.
	cell loop 128M "$LPOLS" aws-loop --size 160M --loops 4
	# ebizzy-like zipf reads at 2x the memory limit, by 1 thread and by 8 (the
	# seed's two thread counts; 8 threads share the guest's 2 vCPUs).  A fixed
	# number of records, ZREC in all (shared among the threads), so that every
	# policy does the same work and OPT has the same trace (qemu/opt.py).  ZREC
	# and RWRITES take about the guest time the timed cells took (3 and 2 s in
	# the short plan, measured under TCG; 5 and 8 s in the full plan, estimated
	# from a run on a loaded host).
	zipf_cell() { # zipf_cell THREADS ALPHA
		cell "zipf-t$1-a$2" "$ZLIM" "$ZPOLS" aws-zipf --size $((2 * ${ZLIM%M}))M \
			--threads "$1" --alpha "$2" --records $((ZREC / $1))
	}
	for a in $ZALPHAS; do zipf_cell 1 "$a"; done
	for a in $ZT8ALPHAS; do zipf_cell 8 "$a"; done
	# vm-scalability swap-w-rand-mt: random writes by 2 threads over 2x memory,
	# RWRITES in all, a fixed count as zipf's records;
	# plus the anon inactive ratio knob (the seed's patch 1 is ratio 1; the
	# sqrt rule gives 1 below 1 GB, 3 at 1 GB, 7 at 5 GB).
	cell randw $ZLIM "$RPOLS" aws-randw --size $((2 * ${ZLIM%M}))M --threads 2 \
		--writes $((RWRITES / 2))
	# global memory pressure (second, smaller guest: aws.args=...,global): no
	# memcg limit, the workload is larger than the guest's free memory, so
	# reclaim is global (kswapd and direct reclaim on the node).  In a 128 MB
	# guest the hot set (32M) fits, hot set + a wave (96M) does not; here the
	# hot set is re-read 16 times per wave (with 2, every policy loses all of it
	# every wave at this size).
	[[ " $GCELLS " == *" protect-global "* ]] && cell protect-global global "$GPOLS" \
		aws-protect --hot 32M --wave 64M --waves 3 --chunks 16
	[[ " $GCELLS " == *" thrash-global "* ]] && cell thrash-global global "$GPOLS" \
		aws-thrash --cold 128M --hot1 40M --hot2 12M --cold-slice 48M --rounds $ROUNDS
fi

# ---- helpers -------------------------------------------------------------
# Under TCG every fork+exec costs tens of ms, so the per-run bookkeeping is
# done in bash builtins: no date/awk/grep/cat per counter.
now_us() { T_US=${EPOCHREALTIME/./}; }
secs() { printf '%d.%03d' $(($1 / 1000000)) $(($1 % 1000000 / 1000)); }
selected() { # selected NAME GLOBS(colon-separated)
	local g
	[ -z "$2" ] && return 0
	for g in ${2//:/ }; do
		# shellcheck disable=SC2053
		[[ $1 == $g ]] && return 0
	done
	return 1
}

mglru_set() { [ -w $LRU_GEN ] && echo "$1" >$LRU_GEN; }

# damon_set Y|N: start or stop damon_lru_sort and wait until it has (the
# parameter schedules the change on a workqueue).  Started, it runs with
# its defaults but for the watermarks: always on, whatever the free memory.
damon_set() {
	local i x
	[ -d $DAMON ] || return 0
	read -r x <$DAMON/enabled
	[ "$x" = "$1" ] && return 0
	if [ "$1" = Y ]; then
		echo 1000 >$DAMON/wmarks_high && echo 1000 >$DAMON/wmarks_mid &&
			echo 0 >$DAMON/wmarks_low || return 1
	fi
	echo "$1" >$DAMON/enabled || return 1
	for i in {1..50}; do
		read -r x <$DAMON/enabled
		[ "$x" = "$1" ] && return 0
		sleep 0.1
	done
	echo "# experiment: damon_lru_sort did not turn $1 in 5 s (attempts: $i)"
	return 1
}
mod_loaded() { [ -d /sys/module/anon_workingset ]; }

# setup_policy P: put the kernel into policy P; fails loudly.
setup_policy() {
	local p=$1 base=$1 ratio=auto cur
	if [[ $p == *-r* ]]; then
		base=${p%-r*} ratio=${p##*-r}
	fi
	# a fresh DAMON context per run: its statistics count this run only
	damon_set N || return 1
	case $base in
	nomod | mglru | damon)
		if mod_loaded && ! rmmod anon_workingset; then
			echo "# experiment: rmmod failed"
			return 1
		fi
		if [ "$base" = mglru ]; then mglru_set y; else mglru_set n; fi
		if [ "$base" = damon ]; then damon_set Y || return 1; fi
		;;
	*)
		if ! grep -qw -- "$base" <<<"$MODPOLS"; then
			echo "# experiment: unknown policy '$p' (the module has: $MODPOLS)"
			return 1
		fi
		mglru_set n
		if ! mod_loaded && ! insmod "$AWS_MOD"; then
			echo "# experiment: insmod failed"
			return 1
		fi
		echo "$ratio" >"$AWS_PARAMS/ratio" || return 1
		echo "$base" >"$AWS_PARAMS/policy" || return 1
		cur=$(get_policy)
		[ "$cur" = "$base" ] || return 1
		;;
	esac
}

# kv_fields PREFIX FILE [KEYS]: "key value" lines as "\tPREFIXkey=value"
# fields appended to ROW (only KEYS if given).  The file is copied first:
# bash's read takes /proc and cgroup files a few bytes at a time, and a seq
# file whose numbers change between two reads comes out torn.
kv_fields() {
	local pre=$1 f=$2 keys=" " k v
	for k in ${3:-}; do keys+="$k "; done
	cat "$f" >/tmp/kv 2>/dev/null || return 0
	while read -r k v; do
		[ -n "$k" ] || continue
		[ "$keys" = " " ] || [[ $keys == *" $k "* ]] || continue
		ROW+="	$pre$k=$v"
	done </tmp/kv
}

# failed RUN-TAG WHY: count a failed run; three in a row end the plan (a
# broken setup, e.g. an unreadable tools disk, fails every run the same way)
CONSEC=0
failed() {
	FAILS=$((FAILS + 1)) CONSEC=$((CONSEC + 1))
	echo "# [$RUN_I/$RUN_N] $1: FAILED $2"
	if [ $CONSEC -ge 3 ]; then
		echo "# experiment: FATAL: $CONSEC runs in a row failed, giving up"
		finish
		exit 1
	fi
}

# run_one CELL POLICY REP: one run, one line in runs.tsv
RUN_I=0 RUN_N=0 FAILS=0
declare -A VM0 VM1 RES
run_one() {
	local cell=$1 pol=$2 rep=$3 limit=${C_LIMIT[$1]} tag rc t0 k v w x res=""
	local -a cmd
	read -r -a cmd <<<"${C_CMD[$cell]}"
	RUN_I=$((RUN_I + 1))
	tag="$cell $pol $rep"
	ROW="cell=$cell	policy=$pol	rep=$rep	limit=$limit	boot=$BOOT"
	if ! setup_policy "$pol"; then
		printf '%s\trc=-1\terror=policy_setup\n' "$ROW" >>$OUT/runs.tsv
		failed "$tag" "to set up the policy"
		return
	fi
	read -r x <$LRU_GEN 2>/dev/null || x=none
	ROW+="	lru_gen=$x"
	if mod_loaded; then
		read -r x <"$AWS_PARAMS/ratio"
		ROW+="	ratio=$x"
		echo reset >/proc/anon_workingset
	fi
	sync
	echo 3 >/proc/sys/vm/drop_caches
	[ -d $CG ] && rmdir $CG
	mkdir $CG || { echo "# experiment: cannot create $CG"; return 1; }
	if [ "$limit" != global ] && ! echo "$limit" >$CG/memory.max; then
		printf '%s\trc=-1\terror=memory_max\n' "$ROW" >>$OUT/runs.tsv
		rmdir $CG
		failed "$tag" "to set memory.max=$limit"
		return
	fi
	RES=()
	vm_read VM0
	now_us
	t0=$T_US
	(echo $BASHPID >$CG/cgroup.procs && exec "${cmd[@]}" --seed "$rep") \
		>/tmp/wl.out 2>/tmp/wl.err
	rc=$?
	now_us
	t0=$((T_US - t0))
	vm_read VM1
	ROW+="	rc=$rc	wall_s=$(secs $t0)"
	for k in $VMKEYS; do
		ROW+="	vm_$k=$((${VM1[$k]:-0} - ${VM0[$k]:-0}))"
	done
	kv_fields cg_ $CG/memory.stat "$CGKEYS"
	kv_fields ev_ $CG/memory.events
	[ -r $CG/memory.peak ] && read -r x <$CG/memory.peak && ROW+="	cg_peak=$x"
	if cat $CG/memory.pressure >/tmp/kv 2>/dev/null; then
		while read -r k w; do
			[ -n "$k" ] && ROW+="	psi_${k}_us=${w##*total=}"
		done </tmp/kv
	fi
	mod_loaded && kv_fields aws_ /proc/anon_workingset
	if [ "$pol" = damon ]; then
		for k in nr_lru_sort_tried_hot_regions nr_lru_sorted_hot_regions \
			bytes_lru_sorted_hot_regions nr_lru_sort_tried_cold_regions \
			nr_lru_sorted_cold_regions bytes_lru_sorted_cold_regions \
			nr_hot_quota_exceeds nr_cold_quota_exceeds; do
			read -r x <$DAMON/$k && ROW+="	damon_$k=$x"
		done
	fi
	rmdir $CG
	while read -r x; do
		[[ $x == "RESULT "* ]] && res=$x
	done </tmp/wl.out
	for x in ${res#RESULT }; do
		k=${x%%=*} v=${x#*=}
		RES[$k]=$v
		ROW+="	res_$k=$v"
	done
	printf '%s\n' "$ROW" >>$OUT/runs.tsv
	echo "cell=$cell policy=$pol rep=$rep rc=$rc $res" >>$OUT/results.txt
	[ -s /tmp/wl.err ] && sed "s/^/[$tag] /" /tmp/wl.err >>$OUT/workloads.log
	if [ $rc != 0 ] || [ -z "$res" ] || [ "${RES[verify_fail]}" != 0 ]; then
		head -n 5 /tmp/wl.err | sed 's/^/#   /'
		failed "$tag" "rc=$rc verify_fail=${RES[verify_fail]:-none}"
		return
	fi
	CONSEC=0
	printf '# [%d/%d] %-14s %-12s rep %d: %6s s pswpin %d pswpout %d refault %d activate %d\n' \
		"$RUN_I" "$RUN_N" "$cell" "$pol" "$rep" "$(secs $t0)" \
		$((VM1[pswpin] - VM0[pswpin])) $((VM1[pswpout] - VM0[pswpout])) \
		$((VM1[workingset_refault_anon] - VM0[workingset_refault_anon])) \
		$((VM1[workingset_activate_anon] - VM0[workingset_activate_anon]))
}

# finish: leave the kernel as booted (module unloaded, MGLRU off), record
# the time
finish() {
	if mod_loaded && ! rmmod anon_workingset; then
		echo "# experiment: final rmmod failed"
		FAILS=$((FAILS + 1))
	fi
	mglru_set n
	damon_set N || FAILS=$((FAILS + 1))
	now_us
	echo "total_s $(secs $((T_US - T0)))" >>$OUT/guest-info.txt
	echo "# experiment: done, $RUN_I runs in $(secs $((T_US - T0))) s, $FAILS failed"
}

# ---- run -----------------------------------------------------------------
echo +memory >/sys/fs/cgroup/cgroup.subtree_control ||
	{ echo "# experiment: FATAL: cannot enable the memory controller"; exit 1; }
: >$OUT/runs.tsv
: >$OUT/results.txt
: >$OUT/workloads.log
: >$OUT/matrix.tsv
SEL=()
for c in "${CELLS[@]}"; do
	selected "$c" "$ONLY" || continue
	# global cells in the global boot only, and only them there
	[ "${C_LIMIT[$c]}" = global ] && [ $BOOT = main ] && continue
	[ "${C_LIMIT[$c]}" != global ] && [ $BOOT = global ] && continue
	pols=${C_POLS[$c]}
	[ -n "$POLS" ] && pols=$(for p in $pols; do selected "$p" "$POLS" && echo "$p"; done | tr '\n' ' ')
	[ -n "${pols// /}" ] || continue
	C_POLS[$c]=$pols
	SEL+=("$c")
	# shellcheck disable=SC2086 # the policies are words
	set -- $pols
	RUN_N=$((RUN_N + $# * REPS))
	printf '%s\t%s\t%s\t%s\n' "$c" "${C_LIMIT[$c]}" "$pols" "${C_CMD[$c]}" >>$OUT/matrix.tsv
done

{
	echo "plan $PLAN"
	echo "boot $BOOT"
	echo "cmdline $(cat /proc/cmdline)"
	echo "reps $REPS"
	echo "args $AWS_ARGS"
	echo "uname_r $(uname -r)"
	echo "uname_v $(uname -v)"
	echo "cpus $(nproc)"
	echo "memtotal_kb $(meminfo_kb MemTotal)"
	echo "swaptotal_kb $(meminfo_kb SwapTotal)"
	echo "page_cluster $(cat /proc/sys/vm/page-cluster)"
	echo "swappiness $(cat /proc/sys/vm/swappiness)"
	echo "thp $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
	echo "lru_gen_boot $(cat $LRU_GEN 2>/dev/null)"
	echo "module_sha256 $(sha256sum <"$AWS_MOD" | cut -d' ' -f1)"
	echo "module_srcversion $(modinfo -F srcversion "$AWS_MOD" 2>/dev/null)"
	echo "module_vermagic $(modinfo -F vermagic "$AWS_MOD" 2>/dev/null)"
} >$OUT/guest-info.txt
mglru_set n

SWAPDEV=$(awk 'NR == 2 { print $1 }' /proc/swaps)
echo "swap_device $SWAPDEV $(meminfo_kb SwapTotal) kB" >>$OUT/guest-info.txt
echo "# experiment: plan $PLAN ($BOOT boot), ${#SEL[@]} cells, $REPS reps, $RUN_N runs; $(uname -r), $(($(meminfo_kb MemTotal) / 1024)) MB, $(nproc) CPUs"

now_us
T0=$T_US
for c in "${SEL[@]}"; do
	echo "# experiment: cell $c (limit ${C_LIMIT[$c]}): ${C_CMD[$c]}"
	for rep in $(seq 1 "$REPS"); do
		for p in ${C_POLS[$c]}; do
			run_one "$c" "$p" "$rep"
		done
	done
done
finish
[ $FAILS = 0 ]
