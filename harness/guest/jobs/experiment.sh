#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run` guest job: the policy experiment, policies x workloads in one
# boot.  Driven by harness/experiment.sh on the host, which boots a guest
# per cell (the plan's guest-mem for a memcg-limited cell, its
# global-guest-mem for a global-pressure one), each with the table of its
# cells that harness/experiment/plan.py selected for it (below; the job
# runs every cell the table has).  Output in /tmp/results (tarred by the
# guest init):
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
# is under pressure), damonfast (the same with its thresholds scaled to
# runs of seconds: damon_tune), and every policy the module offers (the
# list in include/aws_policy_list.h); a suffix -rN sets the module's
# anon inactive ratio to N (default auto).
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
[ -d $DAMON ] && POLICIES="nomod mglru damon damonfast $MODPOLS"

# ---- the plan ------------------------------------------------------------
# The cells come from the table the host selected for this guest from the
# plan (harness/experiment/plan.py select, whose docstring gives the format),
# handed over on the results disk (/tmp/input/plan.tsv): tab-separated lines,
# "plan", "boot" (main or global), "reps" and "policy-filter" (colon-separated
# globs, optional) with their values, then "cell NAME LIMIT POLICIES COMMAND"
# for each cell.  LIMIT is a memory.max value, or "global": no memcg limit
# (the run still gets its own cgroup, for memory.stat); POLICIES "all" is
# every policy above.
PLANFILE=/tmp/input/plan.tsv
[ -r $PLANFILE ] || { echo "# experiment: FATAL: no plan file $PLANFILE from the host"; exit 1; }
PLAN='' BOOT='' REPS='' POLS=''
CELLS=()
declare -A C_LIMIT C_POLS C_CMD
while IFS=$'\t' read -r key c limit pols cmd; do
	case $key in
	'' | '#'*) ;;
	plan) PLAN=$c ;;
	boot) BOOT=$c ;;
	reps) REPS=$c ;;
	policy-filter) POLS=$c ;;
	cell)
		CELLS+=("$c") C_LIMIT[$c]=$limit C_CMD[$c]=$cmd C_POLS[$c]=''
		for p in $pols; do
			[ "$p" = all ] && p=$POLICIES
			C_POLS[$c]+="$p "
		done
		;;
	*) echo "# experiment: FATAL: $PLANFILE: unknown key '$key'"; exit 1 ;;
	esac
done <$PLANFILE
if [ -z "$PLAN" ] || [ -z "$BOOT" ] || [ -z "$REPS" ] || [ ${#CELLS[@]} = 0 ]; then
	echo "# experiment: FATAL: $PLANFILE lacks plan, boot, reps or cells"
	exit 1
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

# damon_tune damon|damonfast: lru_sort's thresholds, written before every
# start (they persist across runs).  damon: 6.1's defaults, hot = accessed
# in half the 5 ms samples of a 100 ms window (500 per mille), cold = idle
# 120 s, 10 ms of work a second; no cell runs for 120 s under TCG, so its
# cold half never acts.  damonfast: hot = accessed in one sample of a
# window (50 per mille), cold = idle 1 s (a cell's phases last seconds),
# 100 ms of work a second (TCG is slow).
damon_tune() {
	local hot=500 cold=120000000 quota=10
	[ "$1" = damonfast ] && hot=50 cold=1000000 quota=100
	echo $hot >$DAMON/hot_thres_access_freq && echo $cold >$DAMON/cold_min_age &&
		echo $quota >$DAMON/quota_ms
}

# damon_set Y|N [damon|damonfast]: start or stop damon_lru_sort and wait
# until it has (the parameter schedules the change on a workqueue).
# Started, it runs with damon_tune's thresholds and the watermarks open:
# always on, whatever the free memory.
damon_set() {
	local i x
	[ -d $DAMON ] || return 0
	read -r x <$DAMON/enabled
	[ "$x" = "$1" ] && return 0
	if [ "$1" = Y ]; then
		echo 1000 >$DAMON/wmarks_high && echo 1000 >$DAMON/wmarks_mid &&
			echo 0 >$DAMON/wmarks_low && damon_tune "${2:-damon}" || return 1
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
	nomod | mglru | damon | damonfast)
		if mod_loaded && ! rmmod anon_workingset; then
			echo "# experiment: rmmod failed"
			return 1
		fi
		if [ "$base" = mglru ]; then mglru_set y; else mglru_set n; fi
		if [[ $base == damon* ]]; then damon_set Y "$base" || return 1; fi
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

# failed RUN-TAG WHY: count a failed run; three in a row end the job (a
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

# A run may take RUN_LIMIT s (aws.slow times the default kernel's): the
# longest run of any plan so far took 92 s under TCG, and a workload that
# never ends (seen once: sqlite, rep 2, its guest idle for half an hour)
# must cost its own run, not the rest of the cell.  Past the limit the
# workload gets SIGTERM, then SIGKILL, every task left in the run's cgroup
# is killed (cgroup.kill), and the run counts as failed (rc 124 or 137).
RUN_LIMIT=$((${AWS_RUN_LIMIT:-900} * ${AWS_SLOW:-1}))

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
	(echo $BASHPID >$CG/cgroup.procs && exec timeout -k 10 "$RUN_LIMIT" "${cmd[@]}" --seed "$rep") \
		>/tmp/wl.out 2>/tmp/wl.err
	rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "# [$RUN_I/$RUN_N] $tag: still running after $RUN_LIMIT s: its cgroup killed"
		echo 1 >$CG/cgroup.kill
		for x in {1..100}; do
			[ -s $CG/cgroup.procs ] || break
			sleep 0.1
		done
	fi
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
	if [[ $pol == damon* ]]; then
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
	pols=${C_POLS[$c]}
	[ -n "$POLS" ] && pols=$(for p in $pols; do selected "$p" "$POLS" && echo "$p"; done | tr '\n' ' ')
	[ -n "${pols// /}" ] || continue
	# every policy must be one this kernel has, before the first run
	for p in $pols; do
		[[ " $POLICIES " == *" ${p%-r[0-9]*} "* ]] && continue
		echo "# experiment: FATAL: cell $c: policy '$p' is not one of this guest's: $POLICIES"
		exit 1
	done
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
	echo "policy_filter ${POLS:-none}"
	echo "uname_r $(uname -r)"
	echo "uname_v $(uname -v)"
	echo "cpus $(nproc)"
	echo "memtotal_kb $(meminfo_kb MemTotal)"
	echo "swaptotal_kb $(meminfo_kb SwapTotal)"
	echo "page_cluster $(cat /proc/sys/vm/page-cluster)"
	echo "swappiness $(cat /proc/sys/vm/swappiness)"
	echo "thp $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
	echo "lru_gen_boot $AWS_LRU_GEN_BOOT"
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
