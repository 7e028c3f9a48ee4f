#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-cost` guest job: the cost of the hooks on a fault- and
# reclaim-heavy microbenchmark.  Driven by harness/bench/bench-cost.sh, which boots
# this job under QEMU's -icount (guest virtual time proportional to the
# instructions executed) once on the unpatched kernel and once on the
# patched one, with the arguments (runner.py --args) KEY=VALUE ...:
#
#   module=0|1    0: only "nomod" (the unpatched kernel has no hooks);
#                 1: "nomod", then the module with each of its policies
#   reps=N        measured runs per configuration (interleaved)
#   writes=N      aws-randw writes (fixed work, not time)
#   size=S        aws-randw region; limit=L the run's memory.max
#
# The configurations with the module are read from the module itself: its
# policy parameter lists every policy with the active one in brackets
# ("stock baseline protect [detect] upstream"); nothing here names one.
# On 6.12 the BPF policies on the tools disk follow (bdetect, bexample).
#
# Each run: a fresh cgroup with memory.max, one aws-randw thread on a fixed
# seed, swap on zram (synchronous: no disk I/O whose host-side latency would
# leak into the virtual clock).  Output in /tmp/results: runs.tsv (one line
# per run: conf, rep, the workload's CLOCK_MONOTONIC seconds, the wall time
# measured here in us, vmstat deltas, the cgroup's reclaim counts, its
# RESULT line) and info.txt.
. "$AWS_TOOLS/guest/lib.sh"
. "$AWS_TOOLS/guest/lib-bpf.sh"

OUT=/tmp/results
CG=/sys/fs/cgroup/aws-cost
MODULE=1 REPS=5 WRITES=60000 SIZE=64M LIMIT=32M
for a in $AWS_ARGS; do
	case $a in
	module=[01]) MODULE=${a#module=} ;;
	reps=[1-9]*) REPS=${a#reps=} ;;
	writes=[1-9]*) WRITES=${a#writes=} ;;
	size=[1-9]*) SIZE=${a#size=} ;;
	limit=[1-9]*) LIMIT=${a#limit=} ;;
	*) echo "# bench-cost: FATAL: unknown argument '$a'"; exit 1 ;;
	esac
done
VMKEYS="pswpin pswpout pgfault pgmajfault pgactivate pgdeactivate
	workingset_refault_anon workingset_activate_anon"
# limit reclaim is counted in the cgroup's memory.stat, not in /proc/vmstat
CGKEYS="pgscan pgsteal pgrefill"

now_us() { T_US=${EPOCHREALTIME/./}; }
mod_loaded() { [ -d /sys/module/anon_workingset ]; }

# policy_list: the policies the loaded module offers, from its parameter
# ("a b [c] d": every word, brackets stripped).  Fails on the old format
# (the active policy alone), which does not say what else there is.
policy_list() {
	local raw w list=""
	read -r raw <"$AWS_PARAMS/policy" || return 1
	[[ $raw == *"["*"]"* ]] || {
		echo "# bench-cost: policy parameter reads '$raw': no list of policies" >&2
		return 1
	}
	for w in $raw; do
		w=${w#[}
		list+="${w%]} "
	done
	echo "${list% }"
}
# active_policy: the bracketed word of the parameter
active_policy() {
	local raw w
	read -r raw <"$AWS_PARAMS/policy"
	for w in $raw; do
		[[ $w == "["*"]" ]] && { w=${w#[}; echo "${w%]}"; return 0; }
	done
	return 1
}

# On 6.12 the BPF policies too (the tools disk's bpf/, userspace/bpf/):
# each is attached by its loader when first needed, and stays attached
# (listed, not selected: it costs nothing) until the module unloads.
BPF_POLS=$(bpf_policies)
# bpf_policy NAME: attach NAME if it is not attached yet.
bpf_policy() {
	[ -z "${BPF_LOADER[$1]:-}" ] || return 0
	bpf_attach "$1" "$1.bpf.o" && return 0
	echo "# bench-cost: cannot attach $1: $(cat "/tmp/bpf-$1.out")"
	return 1
}
# bpf_detach_all: stop every loader, then wait until the module may go.
bpf_detach_all() {
	local n
	for n in "${!BPF_LOADER[@]}"; do
		bpf_stop "$n" TERM
	done
	bpf_module_idle
}

# setup CONF: nomod = module unloaded; anything else is a policy name
setup() {
	if [ "$1" = nomod ]; then
		bpf_detach_all
		! mod_loaded || rmmod anon_workingset
		return
	fi
	mod_loaded || insmod "$AWS_MOD" || return 1
	if [[ " $BPF_POLS " == *" $1 "* ]]; then
		bpf_policy "$1" || return 1
	fi
	echo "$1" >"$AWS_PARAMS/policy" || return 1
	[ "$(active_policy)" = "$1" ]
}

declare -A VM0 VM1

FAILS=0
# run CONF REP: one measured run, one line in runs.tsv
run() {
	local conf=$1 rep=$2 rc t0 k x res="" row
	if ! setup "$conf"; then
		echo "# bench-cost: cannot set up '$conf'"
		FAILS=$((FAILS + 1))
		return 1
	fi
	[ -d $CG ] && rmdir $CG
	mkdir $CG && echo "$LIMIT" >$CG/memory.max || return 1
	vm_read VM0
	now_us
	t0=$T_US
	(echo $BASHPID >$CG/cgroup.procs &&
		exec /tmp/aws-randw --size "$SIZE" --threads 1 --writes "$WRITES" --seed 1) \
		>/tmp/wl.out 2>/tmp/wl.err
	rc=$?
	now_us
	t0=$((T_US - t0))
	vm_read VM1
	cat $CG/memory.stat >/tmp/cgstat
	rmdir $CG
	while read -r x; do
		[[ $x == "RESULT "* ]] && res=${x#RESULT }
	done </tmp/wl.out
	row="conf=$conf	rep=$rep	rc=$rc	wall_us=$t0"
	for k in $VMKEYS; do
		row+="	vm_$k=$((${VM1[$k]:-0} - ${VM0[$k]:-0}))"
	done
	while read -r k x; do
		[[ " $CGKEYS " == *" $k "* ]] && row+="	cg_$k=$x"
	done </tmp/cgstat
	for x in $res; do row+="	res_$x"; done
	printf '%s\n' "$row" >>$OUT/runs.tsv
	if [ $rc != 0 ] || [[ " $res " != *" verify_fail=0 "* ]]; then
		echo "# bench-cost: $conf rep $rep FAILED rc=$rc"
		head -n 5 /tmp/wl.err | sed 's/^/#   /'
		FAILS=$((FAILS + 1))
		return 1
	fi
	x=${res##* seconds=}
	printf '# bench-cost: %-9s rep %s: %s s (guest clock), wall %d us, pswpin %d pswpout %d\n' \
		"$conf" "$rep" "${x%% *}" "$t0" $((VM1[pswpin] - VM0[pswpin])) \
		$((VM1[pswpout] - VM0[pswpout]))
}

# ---- set up --------------------------------------------------------------
zram_swap 1G || { echo "# bench-cost: FATAL: cannot put swap on zram"; exit 1; }
echo never >/sys/kernel/mm/transparent_hugepage/enabled
[ -w /sys/kernel/mm/lru_gen/enabled ] && echo n >/sys/kernel/mm/lru_gen/enabled
echo +memory >/sys/fs/cgroup/cgroup.subtree_control ||
	{ echo "# bench-cost: FATAL: cannot enable the memory controller"; exit 1; }
# the binary in tmpfs: no disk read (host I/O latency) inside a timed run
cp "$AWS_TOOLS/bin/aws-randw" /tmp/aws-randw

CONFS=nomod
if [ "$MODULE" = 1 ]; then
	insmod "$AWS_MOD" || { echo "# bench-cost: FATAL: insmod failed"; exit 1; }
	POLS=$(policy_list) || { echo "# bench-cost: FATAL: no policy list"; exit 1; }
	CONFS+=" $POLS${BPF_POLS:+ $BPF_POLS}"
	rmmod anon_workingset
fi
{
	echo "uname_r $(uname -r)"
	echo "uname_v $(uname -v)"
	echo "cmdline $(cat /proc/cmdline)"
	echo "cpus $(nproc)"
	echo "memtotal_kb $(meminfo_kb MemTotal)"
	echo "swap $(tail -n +2 /proc/swaps | tr -s ' \t' ' ')"
	echo "thp $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
	echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "confs $CONFS"
	echo "reps $REPS"
	echo "cmd aws-randw --size $SIZE --threads 1 --writes $WRITES --seed 1 (memory.max $LIMIT)"
} >$OUT/info.txt
sed 's/^/# bench-cost: /' $OUT/info.txt
: >$OUT/runs.tsv

# ---- run -----------------------------------------------------------------
# One discarded run per configuration warms every path (first insmod, first
# zram allocation, the binary's pages); then the reps, interleaved.
for c in $CONFS; do
	run "$c" 0 || true
done
for r in $(seq 1 "$REPS"); do
	for c in $CONFS; do
		run "$c" "$r" || true
	done
done
setup nomod || FAILS=$((FAILS + 1))
echo "# bench-cost: done, $FAILS failed"
[ $FAILS = 0 ]
