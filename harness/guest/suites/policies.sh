#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Policies suite: each policy shows its defining behaviour in the guest.
#  - policy=stock hands every refault to the kernel's own code and takes
#    no decision; policy=upstream judges every refault itself;
#  - baseline puts fresh anon memory on the active list and writes no anon
#    shadows, protect puts it on the inactive list (the module's own counts
#    show that it placed them: stock 6.1 places inactive too);
#  - the ratio parameter changes the active:inactive split under pressure;
#  - on the seed's hot/cold thrash pattern (in the regime where hot-2's
#    reuse interval exceeds what the inactive list can hold), detect and
#    upstream judge nearly every swap-in as a refault, protect records
#    none, and detect swaps in less than protect;
#  - the worked example activates every refault within the workingset and
#    every other one beyond it, refault by refault from its trace; hold
#    keeps referenced active pages (keep_active);
#  - on a loop larger than memory, hold and stable admit a quiet subset of
#    the refaults detect refuses, chosen by the page's identity, and
#    regret takes hold's rule;
#  - on a window that slides, regret, which keeps recency's rule there,
#    swaps in a small part of what hold does.
#  - detect and upstream, in sibling cgroups, differ where 6.1 counts file
#    pages in an anon refault's workingset and the seed does not.
. "$AWS_TOOLS/guest/lib.sh"
. "$AWS_TOOLS/guest/lib-trace.sh"

# Stock and upstream were once compared with the same run under no module,
# counter by counter, within twice the range of 20 runs each
# (results/alike-6.1, results/alike-6.12): a clean clone's 6.12 run then
# differed by 7,582 refaults against a tolerance of 6,688.  What makes
# them stock and upstream is exact and is checked so: stock hands every
# refault to the kernel's code (stock_refaults) and decides nothing,
# upstream judges every one (refaults_read) by its rule (the sibling case).
LIMIT=35M
# Seed proportions scaled to a 35M cgroup, with the hot sets resized so
# that protect thrashes hot-2 on 6.1 (make run's thrash-detect cell at half
# its size; see docs/results.md).
THRASH=(aws-thrash --cold 64M --hot1 20M --cold-slice 24M --hot2 6M --rounds 6)
KEYS="pswpin pswpout workingset_refault_anon workingset_activate_anon"

# thrash_run LABEL: run THRASH in a cgroup; sets R[key] (vmstat deltas)
# and R_res (its RESULT line), and adds LABEL to VF_BAD unless the run
# verified every page (thrash_runs_verified, after the last run).
declare -A R
thrash_run() {
	local k
	declare -A before
	for k in $KEYS; do before[$k]=$(vmstat "$k"); done
	[ -e /proc/anon_workingset ] && echo reset >/proc/anon_workingset
	R_res=$(cg_run thrash "$LIMIT" "${THRASH[@]}" 2>/dev/null | grep '^RESULT')
	for k in $KEYS; do R[$k]=$(($(vmstat "$k") - before[$k])); done
	diag "$1: pswpin ${R[pswpin]} pswpout ${R[pswpout]} refault ${R[workingset_refault_anon]}" \
		"activate ${R[workingset_activate_anon]} hot2_majfaults $(result_get "$R_res" hot2_majfaults)"
	[ "$(result_get "$R_res" verify_fail)" = 0 ] || VF_BAD+=" $1:'$(result_get "$R_res" verify_fail)'"
}
VF_BAD=
mod_unload
insmod "$AWS_MOD" policy=protect
thrash_run protect
P_pswpin=${R[pswpin]} P_hot2=$(result_get "$R_res" hot2_majfaults)
# The module's counters are exact; /proc/vmstat folds per-CPU deltas of the
# previous run up to a second late, so it only has to stay near zero.
expect protect_no_shadows evictions "$(aws_stat evictions)" -eq 0
# (no activation can come without a refault: the module and the kernel
# count activations only on a refault)
expect protect_no_refaults refaults "$(aws_stat refaults)" -eq 0
expect protect_vmstat_refaults_near_zero workingset_refault_anon "${R[workingset_refault_anon]}" -lt 256

set_policy detect
thrash_run detect
D_pswpin=${R[pswpin]} D_hot2=$(result_get "$R_res" hot2_majfaults)
# Every eviction leaves a shadow (clean swap-cache pages are evicted
# without a write, so there are more evictions than pswpout), and nearly
# every swap-in finds one, read by detect (measured: 38,406-38,433
# refaults of 38,410-38,433 swap-ins on 6.1, 40,030 of 40,021 on 6.12;
# a refault can follow a swap-in counted just before the window).
expect detect_shadows evictions "$(aws_stat evictions)" -ge "${R[pswpout]}"
# refaults_read NAME PSWPIN: at least 99 % of the swap-ins were refaults
# judged by the policy, none dropped (stale, an old epoch, a switch).
refaults_read() {
	local ref unread
	ref=$(aws_stat refaults)
	unread=$(($(aws_stat refaults_stale) + $(aws_stat refaults_old_epoch) + $(aws_stat refaults_dropped)))
	if [ "$ref" -ge $(($2 * 99 / 100)) ] && [ "$unread" = 0 ]; then
		ok "$1 # $ref refaults judged of $2 swap-ins, none dropped"
	else
		fail "$1" "$ref refaults judged of $2 swap-ins (want >= 99 %), $unread dropped (want 0)"
	fi
}
refaults_read detect_refaults "$D_pswpin"
# (that detect activates by its rule, refault by refault, is the tracing
# suite's verdicts_follow_distance, on this workload)
hist=$(awk '$1 ~ /^refault_dist_log2_/ { t += $2 } END { print t + 0 }' /proc/anon_workingset)
expect detect_histogram_counts_every_refault hist_total "$hist" -eq "$(aws_stat refaults)"
# Fewer swap-ins than protect, and hot-2 kept: each bound lies halfway
# between the highest figure detect reached and the lowest of protect's
# usual mode.  Measured in the same 20-run plan as TOL: detect 37,528-
# 38,518 swap-ins and 83-230 hot-2 major faults; protect 39,683-46,128
# and 370-1,175 in 17 runs, but in 3 of the 20 it kept most of hot-2
# (36,968-38,545 swap-ins, 4-229 major faults).  So a detect that acted
# like protect fails these in about 17 boots of 20; the exact checks that
# it detects at all are the refault and activation counts above.
# On 6.12 this cell does not tell them apart: in the same plan there
# (results/alike-6.12) protect kept hot-2 in most runs, as every
# policy did (hot-2 major faults, median: protect 196, detect 197, nomod
# 196; swap-ins 38.5k for all five).  There the two cases run protect and
# detect once more, on the same cell with a 10M hot-2 (the alike plan's
# alike-thrash-hot2; hot-1 and hot-2 then take most of the limit).
# Measured in 20 runs each on 6.12 (results/alike-hot2-6.12): detect
# 39,564-45,526 swap-ins and 335-1,080 hot-2 major faults, protect
# 49,303-52,407 and 1,575-1,968.  Each bound lies halfway between
# detect's highest and protect's lowest, so a detect that acted like
# protect fails both in each of those 20 runs.
THRASH_HOT2=(aws-thrash --cold 64M --hot1 20M --cold-slice 24M --hot2 10M --rounds 6)
# hot2_run POLICY: one run of THRASH_HOT2 under POLICY; sets H_pswpin,
# H_hot2 and H_vf (the workload's verify_fail).
hot2_run() {
	local in0 res
	set_policy "$1"
	in0=$(vmstat pswpin)
	res=$(cg_run thrash "$LIMIT" "${THRASH_HOT2[@]}" 2>/dev/null | grep '^RESULT')
	H_pswpin=$(($(vmstat pswpin) - in0))
	H_hot2=$(result_get "$res" hot2_majfaults)
	H_vf=$(result_get "$res" verify_fail)
	diag "$1 (10M hot-2): pswpin $H_pswpin hot2_majfaults $H_hot2 verify_fail $H_vf"
}
diag "protect this boot: pswpin $P_pswpin, hot2_majfaults $P_hot2"
# beats_protect PSWPIN HOT2 MAX_PSWPIN MAX_HOT2: one case, both bounds.
beats_protect() {
	if [ "$1" -lt "$3" ] && [ "$2" -lt "$4" ]; then
		ok "detect_beats_protect # pswpin $1 (< $3), hot2_majfaults $2 (< $4)"
	else
		fail detect_beats_protect "pswpin $1 (want < $3), hot2_majfaults $2 (want < $4)"
	fi
}
case $(uname -r) in
6.1.*)
	beats_protect "$D_pswpin" "$D_hot2" $(((38518 + 39683) / 2)) $(((230 + 370) / 2))
	;;
*)
	hot2_run protect
	P2_vf=$H_vf
	hot2_run detect
	if [ "$P2_vf" = 0 ] && [ "$H_vf" = 0 ]; then
		beats_protect "$H_pswpin" "$H_hot2" $(((45526 + 49303) / 2)) $(((1080 + 1575) / 2))
	else
		fail detect_beats_protect "the 10M hot-2 runs did not verify (verify_fail: protect '$P2_vf', detect '$H_vf')"
	fi
	;;
esac
set_policy stock
thrash_run stock
expect stock_hooks_decline evictions "$(aws_stat evictions)" -eq 0
# Every swap-in's shadow went to the kernel's own code (the module writes
# stock's shadows and hands them back): in the clocks suite's runs, every
# swap-in (4,611-4,759 a run, 6.1 and 6.12); 99 % is asked.
sref=$(aws_stat stock_refaults)
if [ "$sref" -ge $((R[pswpin] * 99 / 100)) ] && [ "$(aws_stat refaults)" = 0 ] &&
	[ "$(($(aws_stat refaults_stale) + $(aws_stat refaults_old_epoch) + $(aws_stat refaults_dropped)))" = 0 ]; then
	ok "stock_refaults_handed_to_stock # $sref of ${R[pswpin]} swap-ins, none judged or dropped by the module"
else
	fail stock_refaults_handed_to_stock "$sref of ${R[pswpin]} swap-ins handed to stock (want >= 99 %);" \
		"judged by the module $(aws_stat refaults), dropped $(($(aws_stat refaults_stale) + $(aws_stat refaults_old_epoch) + $(aws_stat refaults_dropped))) (want 0, 0)"
fi
set_policy upstream
thrash_run upstream
refaults_read upstream_refaults "${R[pswpin]}"
# (that upstream activates by its rule, refault by refault, is the
# sibling case at the end, upstream_counts_file_in_anon_workingset)

set_policy baseline
thrash_run baseline
expect baseline_no_shadows evictions "$(aws_stat evictions)" -eq 0
# every swap-out is an eviction, without a shadow (as detect's above)
expect baseline_evicts_without_shadow evictions_noshadow "$(aws_stat evictions_noshadow)" -ge "${R[pswpout]}"
expect baseline_no_refaults refaults "$(aws_stat refaults)" -eq 0
expect baseline_vmstat_refaults_near_zero workingset_refault_anon "${R[workingset_refault_anon]}" -lt 256
# 5.8 activates a faulted swap-in page that is already on an LRU list:
# here nearly all (measured 38,477 of 38,487 swap-ins on 6.1, 40,002 of
# 40,039 on 6.12); at least 9 in 10 is asked.
expect baseline_swapin_activations swapin_activations "$(aws_stat swapin_activations)" -ge \
	$((R[pswpin] * 9 / 10))
if [ -z "$VF_BAD" ]; then
	ok "thrash_runs_verified # protect, detect, stock, upstream, baseline: every page verified"
else
	fail thrash_runs_verified "runs with verify_fail not 0:$VF_BAD"
fi

# Placement of fresh anon memory, no memory pressure: 32M filled and held
# by aws-zipf (it fills its region, then only reads it) in its own cgroup,
# whose memory.stat counts exactly its pages.  The page cache is dropped
# first: the debug kernel's 256M guest (KASAN's shadow takes an eighth)
# had too little free memory for 64M, and reclaim aged the list under the
# test (baseline: 37,756 kB active, 27,972 kB inactive, all placed active).
placement() { # placement POLICY -> prints "active_kb inactive_kb"
	local cg=/sys/fs/cgroup/placement pid st
	set_policy "$1"
	echo reset >/proc/anon_workingset
	echo 3 >/proc/sys/vm/drop_caches
	mkdir -p "$cg"
	(echo $BASHPID >"$cg/cgroup.procs" && exec aws-zipf --size 32M --seconds 60) \
		>/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do	# until its 32M are filled
		[ "$(awk '$1 == "anon" { print int($2 / 1048576) }' "$cg/memory.stat")" -ge 32 ] &&
			break
		sleep 0.2
	done
	sleep 0.5
	st=$(cat "$cg/memory.stat")
	cg_stop placement
	wait $pid
	rmdir "$cg"
	echo "$st" | awk '$1 == "active_anon" { a = $2 } $1 == "inactive_anon" { i = $2 }
		END { print int(a / 1024), int(i / 1024) }'
}
read -r ba bi < <(placement baseline)
diag "baseline placement: active_anon ${ba} kB, inactive_anon ${bi} kB"
if [ "$ba" -gt 24576 ] && [ "$bi" -lt 8192 ]; then
	ok "baseline_fresh_anon_active # active ${ba} kB, inactive ${bi} kB"
else
	fail baseline_fresh_anon_active "active ${ba} kB (want > 24576), inactive ${bi} kB (want < 8192)"
fi
expect baseline_module_placed_active placed_active "$(aws_stat placed_active)" -ge 8192
read -r pa pi < <(placement protect)
diag "protect placement: active_anon ${pa} kB, inactive_anon ${pi} kB"
# stock 6.1 places inactive too: the module's count shows it decided.
pli=$(aws_stat placed_inactive)
if [ "$pi" -gt 24576 ] && [ "$pli" -ge 8192 ]; then
	ok "protect_module_placed_inactive # inactive ${pi} kB, placed_inactive $pli"
else
	fail protect_module_placed_inactive "inactive ${pi} kB (want > 24576), placed_inactive $pli (want >= 8192)"
fi
expect protect_module_placed_none_active placed_active "$(aws_stat placed_active)" -eq 0
placement stock >/dev/null
expect stock_module_places_nothing placed "$(($(aws_stat placed_inactive) + $(aws_stat placed_active)))" -eq 0

# The ratio parameter sets the active:inactive anon split under pressure.
# It needs a policy whose active list wants to outgrow the inactive one:
# baseline (active first).  Measured, zipf 0.6 over 48M in 32M, 3, 6 and
# 9 s in: ratio 1 -> 16.1M:16.4M, ratio 8 -> 29.0M:3.5M, at each point.  Under inactive-first
# policies (stock, detect) active anon stayed near 10M of 32M at ratio 1
# and 8 alike on every workload tried, so no guest case can show that
# stock declines the ratio; the unit test inactive_ratio does.
split() { # split POLICY RATIO -> active:inactive anon ratio x100, mid-run
	local cg=/sys/fs/cgroup/split pid st
	set_policy "$1"
	echo "$2" >"$AWS_PARAMS/ratio"
	mkdir -p "$cg" && echo 32M >"$cg/memory.max"
	(echo $BASHPID >"$cg/cgroup.procs" && exec aws-zipf --size 48M --seconds 60 --alpha 0.6) \
		>/dev/null 2>&1 &
	pid=$!
	sleep 3
	st=$(cat "$cg/memory.stat")
	cg_stop split
	wait $pid
	rmdir "$cg"
	echo auto >"$AWS_PARAMS/ratio"
	echo "$st" | awk '$1 == "active_anon" { a = $2 } $1 == "inactive_anon" { i = $2 }
		END { print int(100 * a / (i ? i : 1)) }'
}
r1=$(split baseline 1) r8=$(split baseline 8)
diag "baseline active:inactive x100: ratio 1 -> $r1, ratio 8 -> $r8"
# (ratio 1 alone is what 6.1's own rule gives below 1G: the parameter
# shows in ratio 8's split, and in the two differing)
if [ "$r1" -lt 200 ] && [ "$r8" -gt 400 ]; then
	ok "ratio_sets_split # active:inactive x100: ratio 1 -> $r1, ratio 8 -> $r8"
else
	fail ratio_sets_split "ratio 1 -> $r1 (want < 200), ratio 8 -> $r8 (want > 400)"
fi

# The worked example (module/policies/example.c): detect, plus every
# other refault from beyond the workingset activated, counted per lruvec.
# 32M of random writes in 16M, one writer, every refault traced: each
# must be example's, none lost; every one within active anon activated
# (detect's rule, with active anon as the workingset), and of the longer
# ones exactly every other, give or take one per lruvec that judged any.
# An example that is not the policy judging, refuses a short refault,
# admits more or fewer long ones, or gets its state or its sizes wrong
# fails (the same checks as bexample's, bpf.sh).
ex_load() { cg_run ex 16M aws-randw --size 32M --threads 1 --writes "$(randw_writes 32)" >/dev/null 2>&1; }
set_policy example
record_window ex_load || diag "example: trace-cmd failed"
diag "example: ${E[aws_refault]:-0} refaults traced, ${E[verdict_long]:-0} beyond the workingset," \
	"lost ${LOST:-?}"
every_other_rule example
trace-cmd reset >/dev/null 2>&1

# keep_active: hold keeps the active pages the random writes reference
# again (its active list is a CLOCK).  The module counts active_kept only
# on the running policy's own yes, so a hook that is never called, or
# whose answer is dropped, keeps none.  Measured 3,211 (6.1) and 3,270
# (6.12) on this load; at least 1,000 is asked.
set_policy hold
echo reset >/proc/anon_workingset
ex_load
diag "hold: refaults $(aws_stat refaults) activations $(aws_stat activations) active_kept $(aws_stat active_kept)"
expect hold_keeps_referenced_active active_kept "$(aws_stat active_kept)" -ge 1000

# hold and stable beyond detect: a loop half as large again as its cgroup,
# read FAR_LOOPS times.  aws-loop only reads, so a page keeps its swap slot
# from pass to pass: the identity both policies hash to pick the stable
# part of a reuse longer than memory.  Every distance is about the loop,
# beyond active anon, so detect admits few; hold and stable admit a
# subset on top (with the id 0 they admit none of it, and a policy
# replaced by detect adds nothing).  Their admissions are quiet: hold's
# all of them, stable's those of its subset, and a quiet activation is
# left out of memory.stat's workingset_activate_anon.
# Measured (make test's policies guest): detect 0 activations of 49,208
# refaults, hold 9,712 of 32,523 (all quiet), stable 14,777 of 49,151
# (1,173 quiet); a tenth of the smaller gain is far from both.
FAR_LOOPS=4
FAR_MARGIN=970
# The policy is the loop's cgroup's alone, under a global stock that the
# module counts nothing for: the module's counters and the cgroup's
# memory.stat then count the same pages (under a global stable, a debug
# guest's other tasks once added 4 loud activations the cgroup's stat did
# not have).
far_run() { # far_run POLICY -> "refaults activations quiet memcg_activate"
	local cg=/sys/fs/cgroup/far
	set_policy stock
	mkdir -p $cg && echo 32M >$cg/memory.max && echo "$1" >$cg/memory.anon_ws_policy
	echo reset >/proc/anon_workingset
	(echo $BASHPID >$cg/cgroup.procs && exec aws-loop --size 48M --loops $FAR_LOOPS) \
		>/tmp/far.out 2>&1
	memcg_stats_flushed
	local out
	out="$(aws_stat refaults) $(aws_stat activations) $(aws_stat quiet_activations)"
	out+=" $(cg_stat far workingset_activate_anon)"
	# removed before the line is printed: the caller reads it through a
	# process substitution and goes on at once, and a late rmdir once
	# removed the next run's cgroup before its loop had joined it
	rmdir $cg
	echo "$out"
}
read -r fdr fda fdq fdm < <(far_run detect)
read -r fhr fha fhq fhm < <(far_run hold)
read -r fsr fsa fsq fsm < <(far_run stable)
read -r frr fra frq frm < <(far_run regret)
diag "loop 48M in 32M x$FAR_LOOPS: detect refaults $fdr activations $fda quiet $fdq memcg $fdm;" \
	"hold $fhr $fha $fhq $fhm; stable $fsr $fsa $fsq $fsm; regret $frr $fra $frq $frm"
expect hold_admits_beyond_detect activations "$fha" -gt $((fda + FAR_MARGIN))
expect hold_admissions_quiet memcg_activate "$fhm" -eq 0
expect hold_counts_quiet quiet_activations "$fhq" -eq "$fha"
expect stable_admits_beyond_detect activations "$fsa" -gt $((fda + FAR_MARGIN))
# How many of stable's admissions are quiet is a race at the start of the
# second pass (0 is a legitimate count), so it is reported, not asserted;
# that its subset admissions are quiet is userspace/tests' stable cases,
# and that the kernel counts only the loud ones is the case below.
expect stable_loud_ones_in_memcg memcg_activate "$fsm" -eq $((fsa - fsq))
# regret starts with recency's rule, which activates refaults as stock
# does, loudly, and on this loop the refaults of pages hold would hold
# soon outweigh an eighth of memory: it takes hold's rule, whose
# admissions are quiet (measured on 6.1 with stock's rule at the start:
# 10,138 of 10,139 activations quiet, 33,843 refaults against detect's
# 49,116 and hold's 31,840).  So it admits
# quietly, as many as the margin above at least (a regret that never
# switched admits none quietly), and the kernel counts only its loud ones
# in memory.stat.
if [ "$frq" -ge $FAR_MARGIN ] && [ "$frm" -eq $((fra - frq)) ]; then
	ok "regret_takes_holds_rule_on_a_loop # $frq of $fra activations quiet, $frm in memory.stat"
else
	fail regret_takes_holds_rule_on_a_loop "quiet $frq of $fra activations (want >= $FAR_MARGIN)," \
		"memory.stat $frm (want $((fra - frq)))"
fi


# regret beyond hold: a window of 0.31x memory sliding over 4x memory,
# each position read 4 times (instance 10 of the sample plan's
# distribution, rng seed 41, drawn for 16M), in 16M.  hold's inactive
# list, a fixed quarter, is too short for the window, so each page is
# swapped out between its first and second reads; stock's half keeps it,
# and so does recency's rule, which regret starts on and keeps: hold's
# would have saved nothing here, since no refault comes from beyond the
# lists' reach.  (That the rule
# switches on the evidence is userspace/tests' policy_regret_switch.)
# The largest of regret's runs against the smallest of hold's,
# alternating.  Measured when it was hold2's case: 11 runs each in make
# test's 256M guest, hold 1,306-3,200 swap-ins, stock 27-236 (8 runs):
# three times regret's median is below hold's, and a regret that took
# hold's rule on this window would not be.
SLIDE=(aws-instance --dist-seed 41 --index 10 --memory 16M)
SLIDE_RUNS=3
slide_run() { # slide_run POLICY -> pswpin, or "failed" if the run did
	local in0 rc
	set_policy "$1"
	in0=$(vmstat pswpin)
	cg_run slide 16M "${SLIDE[@]}" >/tmp/slide.out 2>&1
	rc=$?
	if [ $rc = 0 ] && [ "$(result_get "$(grep '^RESULT' /tmp/slide.out)" verify_fail)" = 0 ]; then
		echo $(($(vmstat pswpin) - in0))
	else
		echo failed
	fi
}
# The medians are compared: a clean clone's make test KVER=6.12 (f4babb4)
# saw hold keep the window once, 20 swap-ins between 3,519 and 3,187, with
# hold2 at 220, 70 and 134.  regret, in make test SUITES="module policies"
# on 6.1 (2226632): 40, 306 and 128, hold 2,436, 2,505 and 2,626.
hs='' rs='' all='' bad=0
for _ in $(seq $SLIDE_RUNS); do
	h=$(slide_run hold) r=$(slide_run regret)
	all+=" $h/$r"
	if [ "$h" = failed ] || [ "$r" = failed ]; then
		bad=$((bad + 1))
		continue
	fi
	hs+="$h " rs+="$r "
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
hmed=$(median "$hs") rmed=$(median "$rs")
diag "slide 0.31x in 16M, pswpin hold/regret:$all"
if [ $bad = 0 ] && [ $((3 * rmed)) -lt "$hmed" ]; then
	ok "regret_keeps_a_window_hold_loses # medians: regret $rmed, hold $hmed swap-ins"
else
	fail regret_keeps_a_window_hold_loses "$bad failed runs; 3 x regret's median ${rmed:-none} not below hold's ${hmed:-none}"
fi

# detect and upstream on the anon rule, side by side in sibling cgroups:
# detect compares an anon refault's distance with active anon only; 6.1
# and 6.12 (upstream) with both file lists, plus active anon when swap is
# available.  Each sibling writes a 12M file of its own (so its page cache
# is charged to it), reads it twice (active file), and then loops over 40M
# of anon memory in 40M; swappiness 200 keeps reclaim off the file.  Every
# refault the two judge is traced (aws_refault carries the list sizes the
# policy was given), and each verdict's workingset_size must be its rule
# applied to them, with at least 10M of file in some of each policy's
# refaults, so that the two rules differ where they are checked.
# Counting activations instead (this case's first form) separated the
# rules on 6.1 only: in 6 rounds on 6.12, detect with its file activated
# 1,504-10,121 pages, upstream 270-11,066, detect without a file 200-470,
# since whether the loop's distances fall between the two sizes depends
# on the kernel's reclaim, not on the rule.
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
SIB_TRACE_KB=8192 SIB_FILE_MIN=$((10 << 8)) SIB_EVENTS_MIN=100
sibling() { # sibling NAME POLICY: run one member, its cgroup kept
	local cg=$CG/$1 f=/var/tmp/aws-$1
	mkdir -p "$cg" && echo 40M >"$cg/memory.max" && echo "$2" >"$cg/memory.anon_ws_policy"
	(echo $BASHPID >"$cg/cgroup.procs" || exit 1
	 dd if=/dev/zero of="$f" bs=1M count=12 status=none && sync &&
		cat "$f" >/dev/null && cat "$f" >/dev/null
	 exec aws-loop --size 40M --loops 3) >"/tmp/$1.out" 2>&1
	rm -f "$f"
	rmdir "$cg"
}
CG=/sys/fs/cgroup
echo +memory >$CG/cgroup.subtree_control
swappiness=$(cat /proc/sys/vm/swappiness) buf0=$(cat $T/buffer_size_kb)
echo 200 >/proc/sys/vm/swappiness
echo $SIB_TRACE_KB >$T/buffer_size_kb
echo >$T/trace
echo 1 >$T/events/anon_workingset/aws_refault/enable
echo 1 >$T/tracing_on
set_policy stock
sibling sib-d detect & sibling sib-u upstream & wait
echo 0 >$T/tracing_on
echo 0 >$T/events/anon_workingset/aws_refault/enable
echo "$swappiness" >/proc/sys/vm/swappiness
lost=$(awk '/^(overrun|dropped events):/ { s += $NF } END { print s + 0 }' $T/per_cpu/cpu*/stats)
# per policy: events, events whose workingset_size is not the rule, the
# most file pages seen
declare -A SE
while read -r k v; do SE[$k]=$v; done < <(awk '/aws_refault:/ {
		delete f
		for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) f[kv[1]] = kv[2]
		p = f["policy"]; file = f["active_file"] + f["inactive_file"]
		if (p == "detect") want = f["active_anon"]
		else if (p == "upstream") want = file + (f["swap"] ? f["active_anon"] : 0)
		else next
		n[p]++
		if (f["workingset_size"] != want) bad[p]++
		if (f["activate"] + 0 != (f["distance"] + 0 <= f["workingset_size"] + 0)) vbad[p]++
		if (f["activate"] + 0) vin[p]++
		if (file > top[p]) top[p] = file
	} END {
		for (p in n) print p "_n", n[p]
		for (p in bad) print p "_bad", bad[p]
		for (p in vbad) print p "_vbad", vbad[p]
		for (p in vin) print p "_vin", vin[p]
		for (p in top) print p "_file", top[p]
	}' $T/trace)
echo >$T/trace
echo "$buf0" >$T/buffer_size_kb
vf=0
for m in sib-d sib-u; do
	v=$(result_get "$(grep '^RESULT' /tmp/$m.out)" verify_fail)
	vf=$((vf + ${v:-1}))
done
# rule_held NAME POLICY WHAT [both]: every traced verdict of POLICY used
# its rule (its workingset size from the list sizes it was given, and
# activated iff the distance is within it; with "both", some activated
# and some not), on verified runs with no event lost.  Upstream's
# workingset counts the file, so part of the loop fits and both verdicts
# are seen (16,729 of 30,752 activated on 6.1); detect's, active anon
# alone, never holds a loop of all of memory (0 activated).
rule_held() {
	local n=${SE[${2}_n]:-0} bad=${SE[${2}_bad]:-0} file=${SE[${2}_file]:-0}
	local vbad=${SE[${2}_vbad]:-0} vin=${SE[${2}_vin]:-0}
	if [ "$vf" != 0 ] || [ "$lost" != 0 ]; then
		fail "$1" "the siblings' verify_fail $vf, events lost $lost (want 0, 0)"
	elif [ "$vbad" != 0 ] || { [ "${4:-}" = both ] && { [ "$vin" = 0 ] || [ "$vin" = "$n" ]; }; }; then
		fail "$1" "$vbad of $n verdicts not 'distance <= workingset size'; $vin activated${4:+ (want some, not all)}"
	elif [ "$n" -ge $SIB_EVENTS_MIN ] && [ "$bad" = 0 ] && [ "$file" -ge $SIB_FILE_MIN ]; then
		ok "$1 # $n refaults, each compared with $3, $vin activated by the rule; up to $file file pages present"
	else
		fail "$1" "$bad of $n refaults (want >= $SIB_EVENTS_MIN) not compared with $3;" \
			"up to $file file pages (want >= $SIB_FILE_MIN)"
	fi
}
rule_held upstream_counts_file_in_anon_workingset upstream "both file lists plus active anon" both
rule_held detect_counts_active_anon_only detect "active anon alone"
rmmod anon_workingset
ktap_end
