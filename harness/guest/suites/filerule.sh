#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# File-rule suite: each policy judges refaults with the rule of the kernel
# it stands for (docs/design.md), on both LRU types.
#  - File refaults: a file loop that does not fit beside a resident anon
#    set.  6.1 and 5.8 (stock, upstream, baseline) compare a file refault
#    with active file + anon, so the loop's refaults activate; the seed's
#    kernel (protect, detect) compares with active file only, which the
#    loop never fills, so they do not.
#  - The clocks: anon evictions age the shared clock under baseline (5.8)
#    and upstream (6.1), the private anon clock under detect (the seed), no
#    clock under protect.
# Thresholds: each compares a count that the rule makes large with one it
# keeps near zero; the measured gaps are orders of magnitude (diag lines).
. "$AWS_TOOLS/guest/lib.sh"

CG=/sys/fs/cgroup
FILE=/var/tmp/aws-filerule
echo +memory >$CG/cgroup.subtree_control
# cg_empty NAME: kill what still runs in cgroup NAME and remove it.
cg_empty() {
	local pid
	while read -r pid; do kill "$pid" 2>/dev/null; done <"$CG/$1/cgroup.procs"
	for _ in $(seq 1 50); do rmdir "$CG/$1" 2>/dev/null && return; sleep 0.1; done
	diag "cgroup $1 did not empty"
}
# wait_stat NAME KEY MB: until cgroup NAME's memory.stat KEY reaches MB
# (at most 30 s), so that a run starts from the state it assumes, however
# slow the guest is.
wait_stat() {
	for _ in $(seq 1 150); do
		[ "$(($(cg_stat "$1" "$2") >> 20))" -ge "$3" ] && return
		sleep 0.2
	done
	diag "cgroup $1: $2 did not reach ${3}M"
}
# Page cache charged to a removed cgroup stays resident and would turn the
# next run's refaults into cache hits: every run starts with none cached.
uncache() { sync; echo 1 >/proc/sys/vm/drop_caches; }
dd if=/dev/zero of=$FILE bs=1M count=16 status=none && sync
echo 1 >/proc/sys/vm/drop_caches

# file_loop POLICY: a 10M resident anon set (aws-zipf reads it all the
# time) and 2 passes over a 16M file in a 24M cgroup; sets F_act, F_ref,
# the file activations and refaults of the run.
file_loop() {
	local cg=$CG/floop pid
	set_policy "$1"
	uncache
	mkdir -p $cg && echo 24M >$cg/memory.max
	(echo $BASHPID >$cg/cgroup.procs && exec aws-zipf --size 10M --seconds 600 --alpha 0.1) \
		>/dev/null 2>&1 &
	pid=$!
	wait_stat floop anon 10
	(echo $BASHPID >$cg/cgroup.procs && for _ in 1 2; do cat $FILE >/dev/null; done)
	F_act=$(cg_stat floop workingset_activate_file) F_ref=$(cg_stat floop workingset_refault_file)
	cg_stop floop
	wait $pid
	cg_empty floop
	diag "$1: file refaults $F_ref, activations $F_act"
}

mod_unload
insmod "$AWS_MOD" policy=stock
for p in stock upstream baseline protect detect; do
	file_loop $p
	eval "act_$p=$F_act ref_$p=$F_ref"
done
for p in stock upstream baseline protect detect; do
	eval "expect file_refaults_seen_$p workingset_refault_file \$ref_$p -gt 1024"
done
# 6.1 and 5.8: most refaults of the loop activate.
for p in stock upstream baseline; do
	eval "expect file_rule_6_1_activates_$p workingset_activate_file \$act_$p -gt \$((ref_$p / 4))"
done
# The seed: active file only, which the loop never fills.
for p in protect detect; do
	eval "expect file_rule_seed_no_activation_$p workingset_activate_file \$act_$p -lt \$((ref_$p / 20))"
done

# Which clock anon evictions and activations age: the shared one under
# baseline (5.8) and upstream (6.1), the private anon one under detect (the
# seed), none under protect.
clock_run() { # clock_run POLICY: sets C_shared C_anon C_out
	local c0 a0 o0
	set_policy "$1"
	c0=$(aws_stat node0_file_age) a0=$(aws_stat node0_anon_age) o0=$(vmstat pswpout)
	cg_run clk 12M aws-randw --size 24M --threads 1 --writes "$(randw_writes 24)" \
		>/dev/null 2>&1
	C_shared=$(($(aws_stat node0_file_age) - c0)) C_anon=$(($(aws_stat node0_anon_age) - a0))
	C_out=$(($(vmstat pswpout) - o0))
	diag "$1: shared clock +$C_shared, anon clock +$C_anon, pswpout +$C_out"
}
for p in baseline upstream; do
	clock_run $p
	expect "${p}_anon_evictions_age_shared_clock" clock "$C_shared" -ge "$C_out"
	expect "${p}_private_clock_idle" clock "$C_anon" -eq 0
done
expect clock_run_swapped pswpout "$C_out" -gt 2048
clock_run detect
expect detect_anon_evictions_age_anon_clock clock "$C_anon" -ge "$C_out"
expect detect_shared_clock_file_only clock "$C_shared" -lt $((C_out / 10))
clock_run protect
expect protect_anon_evictions_age_no_clock clock "$((C_shared + C_anon))" -lt $((C_out / 10))

rmmod anon_workingset
rm -f $FILE
ktap_end
