#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run` guest job: one guest's runs, as the host hands them.
# harness/experiment/run.py boots a guest per cell of the plan and hands
# it the cell's runs as ready rows (/tmp/input/todo.tsv, written by
# harness/experiment/plan.py's rows(), whose docstring gives the format):
# one run a line, in the order to make them, each with the settings that
# put the kernel into its policy (MGLRU on or off, DAMON's lru_sort off or
# with its thresholds, the module unloaded or loaded with a policy and an
# anon inactive ratio; on 6.12 a BPF policy attached by its loader) and
# the exact command.  The job applies them, runs
# the command in a fresh cgroup and measures; it knows no plan and no
# policy names.  AWS_PLAN, AWS_BOOT, AWS_REPS and AWS_POLICY_FILTER (the
# host's, for guest-info.txt) and AWS_RUN_LIMIT come in the handed env.
# Output in /tmp/results (tarred by the guest init):
#
#   runs.tsv        one line per run, tab-separated key=value fields: cell,
#                   policy, rep, rc, wall_s, res_* (the workload's RESULT
#                   line), vm_* (/proc/vmstat deltas), cg_* (memory.stat of
#                   the run's fresh cgroup), ev_* (memory.events), cg_peak,
#                   psi_* (memory.pressure totals, us), aws_* (the whole
#                   /proc/anon_workingset, reset before the run)
#   results.txt     every RESULT line, prefixed with cell, policy and rep
#   workloads.log   the workloads' stderr, prefixed the same way
#   guest-info.txt  uname, MemTotal, CPUs, swap, page-cluster, module info
. "$AWS_TOOLS/guest/lib.sh"
. "$AWS_TOOLS/guest/lib-bpf.sh"

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

TODO=/tmp/input/todo.tsv
[ -s $TODO ] || { echo "# experiment: FATAL: no runs from the host ($TODO)"; exit 1; }
mapfile -t ROWS <$TODO

# ---- helpers -------------------------------------------------------------
# Under TCG every fork+exec costs tens of ms, so the per-run bookkeeping is
# done in bash builtins: no date/awk/grep/cat per counter.
now_us() { T_US=${EPOCHREALTIME/./}; }
secs() { printf '%d.%03d' $(($1 / 1000000)) $(($1 % 1000000 / 1000)); }

mglru_set() { [ -w $LRU_GEN ] && echo "$1" >$LRU_GEN; }

# damon_set Y|N [HOT:COLD:QUOTA]: start or stop damon_lru_sort and wait
# until it has (the parameter schedules the change on a workqueue).
# Started, it runs with the row's thresholds (hot_thres_access_freq,
# cold_min_age, quota_ms: written before every start, they persist across
# runs) and the watermarks open: always on, whatever the free memory.
damon_set() {
	local i x hot cold quota
	if [ ! -d $DAMON ]; then
		[ "$1" = N ] && return 0
		echo "# experiment: this kernel has no damon_lru_sort"
		return 1
	fi
	read -r x <$DAMON/enabled
	[ "$x" = "$1" ] && return 0
	if [ "$1" = Y ]; then
		IFS=: read -r hot cold quota <<<"$2"
		echo 1000 >$DAMON/wmarks_high && echo 1000 >$DAMON/wmarks_mid &&
			echo 0 >$DAMON/wmarks_low && echo "$hot" >$DAMON/hot_thres_access_freq &&
			echo "$cold" >$DAMON/cold_min_age && echo "$quota" >$DAMON/quota_ms || return 1
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

# The BPF policy attached for the rows that name it (a loader from the
# first of them to the first row of another policy; the module then
# hands the global policy back), or none.
BPF_ON=
bpf_off() {
	[ -z "$BPF_ON" ] || bpf_stop "$BPF_ON" TERM
	BPF_ON=
}
# bpf_on NAME: the BPF policy NAME (its object on the tools disk) attached
# and selected globally, if it is not already
bpf_on() {
	[ "$BPF_ON" = "$1" ] && return 0
	bpf_off
	if ! bpf_attach "$1" "$1.bpf.o" -g; then
		echo "# experiment: the BPF policy $1 did not attach: $(tail -n 3 "/tmp/bpf-$1.out" | xargs)"
		return 1
	fi
	BPF_ON=$1
}

# setup LRU_GEN DAMON MODULE RATIO: put the kernel into a row's policy
# (MGLRU set with the module unloaded); fails loudly.  A fresh DAMON
# context per run: its statistics count this run only.
setup() {
	local lru=$1 damon=$2 mod=$3 ratio=$4
	damon_set N || return 1
	if [ "$mod" = - ]; then
		bpf_off
		if mod_loaded && ! rmmod anon_workingset; then
			echo "# experiment: rmmod failed"
			return 1
		fi
		mglru_set "$lru"
	else
		mglru_set "$lru"
		if ! mod_loaded && ! insmod "$AWS_MOD"; then
			echo "# experiment: insmod failed"
			return 1
		fi
		echo "$ratio" >"$AWS_PARAMS/ratio" || return 1
		if [ -f "$AWS_BPF/$mod.bpf.o" ]; then
			bpf_on "$mod" || return 1
		else
			bpf_off
		fi
		if ! echo "$mod" >"$AWS_PARAMS/policy" || [ "$(get_policy)" != "$mod" ]; then
			echo "# experiment: the module did not take policy '$mod' (it has: $(tr -d '[]' <"$AWS_PARAMS/policy"))"
			return 1
		fi
	fi
	[ "$damon" = off ] || damon_set Y "$damon"
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

# run_one ROW: one run (a row of the host's), one line in runs.tsv
RUN_I=0 RUN_N=${#ROWS[@]} FAILS=0
declare -A VM0 VM1 RES
run_one() {
	local cell pol rep limit lru damon mod ratio command tag rc t0 k v w x res=""
	local -a cmd
	IFS=$'\t' read -r cell pol rep limit lru damon mod ratio command <<<"$1"
	read -r -a cmd <<<"$command"
	RUN_I=$((RUN_I + 1))
	tag="$cell $pol $rep"
	if [ "$cell" != "$CELL" ]; then
		CELL=$cell
		echo "# experiment: cell $cell (limit $limit): ${command% --seed *}"
	fi
	ROW="cell=$cell	policy=$pol	rep=$rep	limit=$limit	boot=$AWS_BOOT"
	if ! setup "$lru" "$damon" "$mod" "$ratio"; then
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
	(echo $BASHPID >$CG/cgroup.procs && exec timeout -k 10 "$RUN_LIMIT" "${cmd[@]}") \
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
	if [ "$damon" != off ]; then
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

# finish: leave the kernel as booted (no BPF policy, module unloaded, MGLRU
# off), record the time
finish() {
	bpf_off
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
{
	echo "plan $AWS_PLAN"
	echo "boot $AWS_BOOT"
	echo "cmdline $(cat /proc/cmdline)"
	echo "reps $AWS_REPS"
	echo "policy_filter $AWS_POLICY_FILTER"
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
echo "# experiment: plan $AWS_PLAN ($AWS_BOOT boot), $RUN_N runs; $(uname -r), $(($(meminfo_kb MemTotal) / 1024)) MB, $(nproc) CPUs"

now_us
T0=$T_US
CELL=''
for r in "${ROWS[@]}"; do
	run_one "$r"
done
finish
[ $FAILS = 0 ]
