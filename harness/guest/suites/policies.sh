#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Policies suite: each policy shows its defining behaviour in the guest.
#  - the patched kernel with no module, with policy=stock and with
#    policy=upstream behave alike on a deterministic swapping workload
#    (workingset_refault_anon within a tolerance derived from the measured
#    run-to-run spread, see TOL; pswpin is only reported);
#  - baseline puts fresh anon memory on the active list and writes no anon
#    shadows, protect puts it on the inactive list (the module's own counts
#    show that it placed them: stock 6.1 places inactive too);
#  - the ratio parameter changes the active:inactive split under pressure;
#  - on the seed's hot/cold thrash pattern (in the regime where hot-2's
#    reuse interval exceeds what the inactive list can hold), detect and
#    upstream record refaults and activate exactly those their rule
#    admits (checked against the refault-distance histogram), protect
#    records none, and detect swaps in less than protect;
#  - the worked example admits half the long refaults detect refuses, and
#    hold keeps referenced active pages (keep_active) where the policies
#    that decline the hook keep none;
#  - on a loop larger than memory, hold and stable admit a quiet subset of
#    the refaults detect refuses, chosen by the page's identity;
#  - on a window that slides, hold2, whose inactive list is not fixed at
#    hold's quarter, swaps in a small part of what hold does.
#  - detect and upstream, in sibling cgroups, differ where 6.1 counts file
#    pages in an anon refault's workingset and the seed does not.
. "$AWS_TOOLS/guest/lib.sh"

# "Alike" tolerances, in pages: twice the range (max - min) of 60 runs of the
# thrash run below, 20 each with no module, policy=stock and policy=upstream,
# interleaved in one 256M guest, the size make test runs this suite in
# (`make run PLAN=alike`, harness/experiment/plans/alike.plan;
# results/20261205T044630Z): pswpin 36,978-38,498, workingset_refault_anon
# 36,974-38,494.  The runs are bimodal, for all three: most near 38,450, one
# in seven near 37,100 (hot-2 kept).  The largest gap between two runs of the
# same rep was 1,451 pages.  The gaps these keys must detect are wider:
# baseline and protect refault 0-11 pages, so a stock or upstream that acted
# like them fails on workingset_refault_anon.  protect's swap-ins
# (36,968-46,128) and pswpout (20,475-23,101 over all five policies) and
# workingset_activate_anon (0-1,473) vary more than any policy gap on this
# run, so they are only reported; detect and upstream differ from stock by
# less than the tolerance, and filerule.sh and the sibling case below tell
# them apart.  On 6.12 the same plan (results/20261205T173826Z, its 60
# nomod, stock and upstream runs): pswpin 37,120-40,452,
# workingset_refault_anon 37,116-40,460, still bimodal (most near 38,500,
# stock's two highest near 40,000); twice those ranges, still far inside
# the 38,000-page gap to baseline's and protect's refaults.
# Only workingset_refault_anon is compared.  pswpin was too (cases
# stock_like_nomod_pswpin, upstream_like_nomod_pswpin), within 3,040 pages
# (6.1) or 6,664 (6.12): wider than the gap between any two policies'
# swap-ins on this run (all five swap in about 38.5k; protect's spread
# alone covers the rest), so no policy could fail it.  thrash_run reports
# pswpin for every run.
case $(uname -r) in
6.1.*) declare -A TOL=([workingset_refault_anon]=3040) ;;
*) declare -A TOL=([workingset_refault_anon]=6688) ;;
esac
LIMIT=35M
# Seed proportions scaled to a 35M cgroup, with the hot sets resized so
# that protect thrashes hot-2 on 6.1 (make run's thrash-detect cell at half
# its size; see docs/results.md).
THRASH=(aws-thrash --cold 64M --hot1 20M --cold-slice 24M --hot2 6M --rounds 6)
KEYS="pswpin pswpout workingset_refault_anon workingset_activate_anon"

# thrash_run LABEL: run THRASH in a cgroup; sets R[key] (vmstat deltas)
# and R_res (its RESULT line).
declare -A R N
thrash_run() {
	local k
	declare -A before
	for k in $KEYS; do before[$k]=$(vmstat "$k"); done
	[ -e /proc/anon_workingset ] && echo reset >/proc/anon_workingset
	R_res=$(cg_run thrash "$LIMIT" "${THRASH[@]}" 2>/dev/null | grep '^RESULT')
	for k in $KEYS; do R[$k]=$(($(vmstat "$k") - before[$k])); done
	diag "$1: pswpin ${R[pswpin]} pswpout ${R[pswpout]} refault ${R[workingset_refault_anon]}" \
		"activate ${R[workingset_activate_anon]} hot2_majfaults $(result_get "$R_res" hot2_majfaults)"
	expect "verified_$1" verify_fail "$(result_get "$R_res" verify_fail)" -eq 0
}
# alike LABEL: R is like N (the run without the module) within TOL, per key.
alike() {
	local k d
	for k in "${!TOL[@]}"; do
		d=$((R[$k] > N[$k] ? R[$k] - N[$k] : N[$k] - R[$k]))
		if [ $d -le "${TOL[$k]}" ]; then
			ok "${1}_like_nomod_$k # ${N[$k]} vs ${R[$k]} (tolerance ${TOL[$k]})"
		else
			fail "${1}_like_nomod_$k" "${N[$k]} vs ${R[$k]} differ by $d, more than ${TOL[$k]}"
		fi
	done
}
# rule_counts: "activations refaults near far" from one read of
# /proc/anon_workingset, since the last reset: near the judged refaults
# whose distance was below the workingset size (histogram buckets m8..p0),
# far those whose distance was twice it or more, or whose workingset was
# 0 (p2..p8 and inf).  The histogram counts refaults, the counters pages.
rule_counts() {
	awk '$1 == "activations" { a = $2 } $1 == "refaults" { r = $2 }
		$1 ~ /^refault_dist_log2_(m[0-9]+|p0)$/ { near += $2 }
		$1 ~ /^refault_dist_log2_(p[2-9]|inf)$/ { far += $2 }
		END { print a + 0, r + 0, near + 0, far + 0 }' /proc/anon_workingset
}
# activations_by_rule NAME: one case, that the run's policy (detect or
# upstream: both activate a refault iff its distance <= the workingset
# size they computed, module/policies/) activated what the histogram says
# its rule admits.  Every near refault was activated, so activations
# (pages, at least one per refault) >= near; no far one was, so
# refaults - activations >= far.  A workingset of 0 (in inf) admits only
# a distance of 0; hot-1 on the active list rules it out here.  And
# activations > 0 and < refaults: on this run the policies activate a
# few pages, workingset_activate_anon 0-1,473 on 6.1 (the alike plan's
# runs, TOL's comment above) and 3-448 (detect) and 4-1,098 (upstream) on
# 6.12 (docs/port-6.12.md), of some 37,000 refaults or more.
activations_by_rule() {
	local act ref near far
	read -r act ref near far < <(rule_counts)
	if [ "$act" -gt 0 ] && [ "$act" -lt "$ref" ] && [ "$act" -ge "$near" ] &&
		[ "$act" -le $((ref - far)) ]; then
		ok "$1 # activations $act of $ref refaults; $near within the workingset, $far at twice it or more"
	else
		fail "$1" "activations $act of $ref refaults: wanted > 0, < $ref, >= $near (refaults within" \
			"the workingset) and <= $((ref - far)) ($far refaults at twice it or more)"
	fi
}

mod_unload
insmod "$AWS_MOD" policy=protect
thrash_run protect
P_pswpin=${R[pswpin]} P_hot2=$(result_get "$R_res" hot2_majfaults)
# The module's counters are exact; /proc/vmstat folds per-CPU deltas of the
# previous run up to a second late, so it only has to stay near zero.
expect protect_no_shadows evictions "$(aws_stat evictions)" -eq 0
expect protect_no_refaults refaults "$(aws_stat refaults)" -eq 0
expect protect_no_activations activations "$(aws_stat activations)" -eq 0
expect protect_vmstat_refaults_near_zero workingset_refault_anon "${R[workingset_refault_anon]}" -lt 256
expect protect_vmstat_activations_near_zero workingset_activate_anon "${R[workingset_activate_anon]}" -lt 256

set_policy detect
thrash_run detect
D_pswpin=${R[pswpin]} D_hot2=$(result_get "$R_res" hot2_majfaults)
# Every eviction leaves a shadow (clean swap-cache pages are evicted
# without a write, so there are more evictions than pswpout), and nearly
# every swap-in finds one (measured: 38,406 refaults of 38,410 swap-ins).
expect detect_shadows evictions "$(aws_stat evictions)" -ge "${R[pswpout]}"
expect detect_refaults refaults "$(aws_stat refaults)" -ge $((D_pswpin * 9 / 10))
# Catches a detect that activates every refault, none, or by another rule
# than distance <= active anon (an inverted or shifted comparison, a
# verdict not applied).  It asserted only workingset_activate_anon > 0,
# which a detect activating every refault passed; that figure (vmstat, up
# to a second late) is in the diag line above.
activations_by_rule detect_activations
hist=$(awk '$1 ~ /^refault_dist_log2_/ { t += $2 } END { print t + 0 }' /proc/anon_workingset)
expect detect_histogram_counts_every_refault hist_total "$hist" -eq \
	$(($(aws_stat refaults) - $(aws_stat refaults_stale)))
# Fewer swap-ins than protect, and hot-2 kept: each bound lies halfway
# between the highest figure detect reached and the lowest of protect's
# usual mode.  Measured in the same 20-run plan as TOL: detect 37,528-
# 38,518 swap-ins and 83-230 hot-2 major faults; protect 39,683-46,128
# and 370-1,175 in 17 runs, but in 3 of the 20 it kept most of hot-2
# (36,968-38,545 swap-ins, 4-229 major faults).  So a detect that acted
# like protect fails these in about 17 boots of 20; the exact checks that
# it detects at all are the refault and activation counts above.
# On 6.12 this cell does not tell them apart: in the same plan there
# (results/20261205T173826Z) protect kept hot-2 in most runs, as every
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
case $(uname -r) in
6.1.*)
	expect detect_swaps_in_less_than_protect pswpin "$D_pswpin" -lt $(((38518 + 39683) / 2))
	expect detect_keeps_hot2 hot2_majfaults "$D_hot2" -lt $(((230 + 370) / 2))
	;;
*)
	hot2_run protect
	P2_vf=$H_vf
	hot2_run detect
	if [ "$P2_vf" = 0 ] && [ "$H_vf" = 0 ]; then
		expect detect_swaps_in_less_than_protect pswpin "$H_pswpin" -lt $(((45526 + 49303) / 2))
		expect detect_keeps_hot2 hot2_majfaults "$H_hot2" -lt $(((1080 + 1575) / 2))
	else
		why="the 10M hot-2 runs did not verify (verify_fail: protect '$P2_vf', detect '$H_vf')"
		fail detect_swaps_in_less_than_protect "$why"
		fail detect_keeps_hot2 "$why"
	fi
	;;
esac
# The first swapping run after boot can differ from the rest by a few
# percent (fresh swap device, boot-time state being trimmed), so the exact
# comparisons (nomod, stock, upstream) come after protect and detect, whose
# gap is wider than that.
rmmod anon_workingset
thrash_run nomod
for k in $KEYS; do N[$k]=${R[$k]}; done
insmod "$AWS_MOD" policy=stock
thrash_run stock
alike stock
expect stock_hooks_decline evictions "$(aws_stat evictions)" -eq 0
set_policy upstream
thrash_run upstream
alike upstream
expect upstream_refaults refaults "$(aws_stat refaults)" -ge $((R[pswpin] * 9 / 10))
# Catches an upstream that activates every refault, none, or by another
# rule than distance <= its workingset size.  It asserted only
# activations > 0.
activations_by_rule upstream_activations

set_policy baseline
thrash_run baseline
expect baseline_no_shadows evictions "$(aws_stat evictions)" -eq 0
expect baseline_evicts_without_shadow evictions_noshadow "$(aws_stat evictions_noshadow)" -gt 0
expect baseline_no_refaults refaults "$(aws_stat refaults)" -eq 0
expect baseline_vmstat_refaults_near_zero workingset_refault_anon "${R[workingset_refault_anon]}" -lt 256
expect baseline_swapin_activations swapin_activations "$(aws_stat swapin_activations)" -gt 0

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
expect baseline_fresh_anon_active active_kb "$ba" -gt 24576
expect baseline_fresh_anon_not_inactive inactive_kb "$bi" -lt 8192
expect baseline_module_placed_active placed_active "$(aws_stat placed_active)" -ge 8192
read -r pa pi < <(placement protect)
diag "protect placement: active_anon ${pa} kB, inactive_anon ${pi} kB"
expect protect_fresh_anon_inactive inactive_kb "$pi" -gt 24576
# stock 6.1 places inactive too: the module's count shows it decided.
expect protect_module_placed_inactive placed_inactive "$(aws_stat placed_inactive)" -ge 8192
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
expect ratio_1_balances_lists split_x100 "$r1" -lt 200
expect ratio_8_grows_active split_x100 "$r8" -gt 400

# The worked example (module/policies/example.c): detect, plus every other
# refault from beyond the workingset activated.  32M of random writes in
# 16M: most distances are beyond active anon, so detect activates few
# (measured 6.2-6.5 % on 6.1; 27 % on 6.12, whose module reads exact list
# sizes) and example at least half (its rule; measured 55 % and 63 %).
# Example's share must also be detect's share plus about half of the
# rest: predicted 53 % and 63.5 % for those runs, and 40 % of the rest
# leaves slack for its unlocked counter and for the two runs' spread,
# while an example that admitted no more than detect fails it on both
# kernels.
example_run() { # example_run POLICY -> "refaults activations active_kept"
	set_policy "$1"
	echo reset >/proc/anon_workingset
	cg_run ex 16M aws-randw --size 32M --threads 1 --writes "$(randw_writes 32)" >/dev/null 2>&1
	echo "$(aws_stat refaults) $(aws_stat activations) $(aws_stat active_kept)"
}
read -r dr da dk < <(example_run detect)
read -r er ea ek < <(example_run example)
diag "detect: refaults $dr activations $da; example: refaults $er activations $ea"
expect example_admits_half_the_long_refaults activations_x100 $((100 * ea / (er ? er : 1))) -ge 45
dpct=$((100 * da / (dr ? dr : 1)))
expect example_adds_half_of_what_detect_refuses activations_x100 $((100 * ea / (er ? er : 1))) \
	-ge $((dpct + (100 - dpct) * 40 / 100))
# keep_active: hold keeps the active pages the random writes reference
# again (its active list is a CLOCK); a policy that declines the hook
# (detect, example) keeps none, as 6.1 keeps no anon page.
read -r hr ha hk < <(example_run hold)
diag "hold: refaults $hr activations $ha active_kept $hk"
expect hold_keeps_referenced_active active_kept "$hk" -gt 0
expect declined_keep_active_keeps_none active_kept "$((dk + ek))" -eq 0

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
far_run() { # far_run POLICY -> "refaults activations quiet memcg_activate"
	local cg=/sys/fs/cgroup/far
	set_policy "$1"
	echo reset >/proc/anon_workingset
	mkdir -p $cg && echo 32M >$cg/memory.max
	(echo $BASHPID >$cg/cgroup.procs && exec aws-loop --size 48M --loops $FAR_LOOPS) \
		>/tmp/far.out 2>&1
	memcg_stats_flushed
	echo "$(aws_stat refaults) $(aws_stat activations) $(aws_stat quiet_activations)" \
		"$(cg_stat far workingset_activate_anon)"
	rmdir $cg
}
read -r fdr fda fdq fdm < <(far_run detect)
read -r fhr fha fhq fhm < <(far_run hold)
read -r fsr fsa fsq fsm < <(far_run stable)
diag "loop 48M in 32M x$FAR_LOOPS: detect refaults $fdr activations $fda quiet $fdq memcg $fdm;" \
	"hold $fhr $fha $fhq $fhm; stable $fsr $fsa $fsq $fsm"
expect hold_admits_beyond_detect activations "$fha" -gt $((fda + FAR_MARGIN))
expect hold_admissions_quiet memcg_activate "$fhm" -eq 0
expect hold_counts_quiet quiet_activations "$fhq" -eq "$fha"
expect stable_admits_beyond_detect activations "$fsa" -gt $((fda + FAR_MARGIN))
# How many of stable's admissions are quiet is a race at the start of the
# second pass (0 is a legitimate count), so it is reported, not asserted;
# that its subset admissions are quiet is userspace/tests' stable cases,
# and that the kernel counts only the loud ones is the case below.
expect stable_loud_ones_in_memcg memcg_activate "$fsm" -eq $((fsa - fsq))

# hold2 beyond hold: a window of 0.31x memory sliding over 4x memory,
# each position read 4 times (instance 10 of the sample plan's
# distribution, rng seed 41, drawn for 16M), in 16M.  hold's inactive
# list, a fixed quarter, is too short for the window, so each page is
# swapped out between its first and second reads; hold2's starts at a
# half and moves with its refaults, and keeps the window.  (That the
# target moves is userspace/tests' policy_hold2_cold; a window that needs
# more than half does not separate hold2 from stock by enough in 3 runs:
# instance 530 of rng seed 1, a 0.66x window, 8 runs each in this guest,
# hold2 2,142-3,258 swap-ins, stock 3,120-5,637, hold 8,197-11,919.)
# The largest of hold2's runs against the smallest of hold's, alternating.
# Measured: 11 runs each in make test's 256M guest, hold 1,306-3,200
# swap-ins, hold2 34-279 (stock 27-236, 8 runs): three times hold2's
# median is below hold's, and a hold2 that kept hold's quarter would not be.
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
# hold2 at 220, 70 and 134.
hs='' h2s='' all='' bad=0
for _ in $(seq $SLIDE_RUNS); do
	h=$(slide_run hold) h2=$(slide_run hold2)
	all+=" $h/$h2"
	if [ "$h" = failed ] || [ "$h2" = failed ]; then
		bad=$((bad + 1))
		continue
	fi
	hs+="$h " h2s+="$h2 "
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
hmed=$(median "$hs") h2med=$(median "$h2s")
diag "slide 0.31x in 16M, pswpin hold/hold2:$all"
if [ $bad = 0 ] && [ $((3 * h2med)) -lt "$hmed" ]; then
	ok "hold2_keeps_a_window_hold_loses # medians: hold2 $h2med, hold $hmed swap-ins"
else
	fail hold2_keeps_a_window_hold_loses "$bad failed runs; 3 x hold2's median ${h2med:-none} not below hold's ${hmed:-none}"
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
		if (file > top[p]) top[p] = file
	} END {
		for (p in n) print p "_n", n[p]
		for (p in bad) print p "_bad", bad[p]
		for (p in top) print p "_file", top[p]
	}' $T/trace)
echo >$T/trace
echo "$buf0" >$T/buffer_size_kb
vf=0
for m in sib-d sib-u; do
	v=$(result_get "$(grep '^RESULT' /tmp/$m.out)" verify_fail)
	vf=$((vf + ${v:-1}))
done
expect siblings_verified verify_fail "$vf" -eq 0
expect sibling_trace_complete lost_events "$lost" -eq 0
# rule_held NAME POLICY WHAT: every traced verdict of POLICY used its rule
rule_held() {
	local n=${SE[${2}_n]:-0} bad=${SE[${2}_bad]:-0} file=${SE[${2}_file]:-0}
	if [ "$n" -ge $SIB_EVENTS_MIN ] && [ "$bad" = 0 ] && [ "$file" -ge $SIB_FILE_MIN ]; then
		ok "$1 # $n refaults, each compared with $3; up to $file file pages present"
	else
		fail "$1" "$bad of $n refaults (want >= $SIB_EVENTS_MIN) not compared with $3;" \
			"up to $file file pages (want >= $SIB_FILE_MIN)"
	fi
}
rule_held upstream_counts_file_in_anon_workingset upstream "both file lists plus active anon"
rule_held detect_counts_active_anon_only detect "active anon alone"
rmmod anon_workingset
ktap_end
