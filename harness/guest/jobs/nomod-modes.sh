#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The no-module runs of `make bench-cost` after a disturbance (6.12): does
# what BPF policies leave behind shift reclaim once the module is gone, or
# does any disturbance move these runs as much?  Booted by hand under
# -icount, as bench-cost boots its guests (results/nomod-modes-6.12/README.md
# gives the command):
#
#   runner.py boot nomod-modes --cpus 1 --mem 512M --icount shift=0,sleep=off
#       --args "STEP..."
#
# Three runs with no module first (base), then for each STEP the
# disturbance and two runs (STEP-a, STEP-b).  A run is bench-cost's: a
# fresh 32M cgroup, one aws-randw thread over 64M, 40000 writes, seed 1,
# swap on zram.  Steps:
#   sleeper     start a process that sleeps (no module loaded at all)
#   modonly     insmod, rmmod
#   attach      insmod, attach bdetect (listed, not selected), stop its
#               loader, wait for the module's references to go, rmmod
#               (what bench-cost does before each no-module run)
#   attachrun   the same with bdetect selected and one run under it
#   attachwait  attach, then 10 s idle before the runs
# Each run's line: swap-ins and activations (vmstat deltas), and the kernel
# threads that were switched to during it, with how often.
. "$AWS_TOOLS/guest/lib.sh"
. "$AWS_TOOLS/guest/lib-bpf.sh"

OUT=/tmp/results
CG=/sys/fs/cgroup/aws-cost
STEPS=${AWS_ARGS:-sleeper modonly attach attachrun attachwait}

[ -x "$AWS_BPF/aws-bpf-load" ] || { echo "# nomod-modes: FATAL: no BPF loader (6.12 only)"; exit 1; }
zram_swap 1G || { echo "# nomod-modes: FATAL: cannot put swap on zram"; exit 1; }
echo never >/sys/kernel/mm/transparent_hugepage/enabled
echo n >/sys/kernel/mm/lru_gen/enabled
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
cp "$AWS_TOOLS/bin/aws-randw" /tmp/aws-randw
: >$OUT/runs.tsv

# kthread_switches FILE: "pid comm switches" of every kernel thread
kthread_switches() {
	local d c
	for d in /proc/[0-9]*; do
		grep -q '^Kthread:.*1' "$d/status" 2>/dev/null || continue
		c=$(cat "$d/comm" 2>/dev/null)
		echo "${d#/proc/} ${c// /_} $(awk '/ctxt_switches/ { t += $2 } END { print t + 0 }' "$d/status")"
	done | sort >"$1"
}

# run TAG: one bench-cost run, one line in runs.tsv
run() {
	local tag=$1 i0 a0 i1 a1 k
	[ -d $CG ] && rmdir $CG
	mkdir $CG && echo 32M >$CG/memory.max || return 1
	kthread_switches /tmp/ks0
	i0=$(vmstat pswpin) a0=$(vmstat pgactivate)
	(echo $BASHPID >$CG/cgroup.procs &&
		exec /tmp/aws-randw --size 64M --threads 1 --writes 40000 --seed 1) >/tmp/wl.out 2>&1
	i1=$(vmstat pswpin) a1=$(vmstat pgactivate)
	kthread_switches /tmp/ks1
	rmdir $CG
	k=$(join /tmp/ks0 /tmp/ks1 | awk '$5 > $3 { printf "%s%s:%d", n++ ? " " : "", $2, $5 - $3 }')
	printf '%s\t%d\t%d\t%s\n' "$tag" $((i1 - i0)) $((a1 - a0)) "$k" >>$OUT/runs.tsv
	echo "# nomod-modes: $tag pswpin $((i1 - i0)) pgactivate $((a1 - a0)) kthreads $k"
}

# attach POLICY: start its loader, return once it has attached
attach() {
	bpf_attach "$1" "$1.bpf.o" && return 0
	echo "# nomod-modes: cannot attach $1: $(cat "/tmp/bpf-$1.out")"
	return 1
}
# detach_unload: stop the loader, wait until the module may go, rmmod
detach_unload() {
	bpf_stop bdetect TERM
	bpf_module_idle
	rmmod anon_workingset
}

run base0
run base1
run base2
for s in $STEPS; do
	case $s in
	sleeper) sleep 100000 >/dev/null 2>&1 & ;;
	modonly) insmod "$AWS_MOD" && rmmod anon_workingset ;;
	attach) insmod "$AWS_MOD" && attach bdetect && detach_unload ;;
	attachrun)
		insmod "$AWS_MOD" && attach bdetect &&
			echo bdetect >"$AWS_PARAMS/policy" && run under-bdetect && detach_unload
		;;
	attachwait) insmod "$AWS_MOD" && attach bdetect && detach_unload && sleep 10 ;;
	*) echo "# nomod-modes: FATAL: unknown step '$s'"; exit 1 ;;
	esac || { echo "# nomod-modes: FATAL: step $s failed"; exit 1; }
	run "$s-a"
	run "$s-b"
done
echo "# nomod-modes: done"
