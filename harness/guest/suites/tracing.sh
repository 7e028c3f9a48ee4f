#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tracing suite: trace-cmd sees the module's seven trace events
# (module/aws_trace.h, system anon_workingset), and a trace of a thrash
# run under detect adds up to the /proc/anon_workingset counters of the
# same run, exactly:
#   aws_place nr_pages by active           = placed_active, placed_inactive
#   aws_evict nr_pages by shadow           = evictions, evictions_noshadow
#   aws_refault nr_pages, activate, restore = refaults, activations, restores
#   evictions + activations + aged aws_age = the root anon clock's advance
#   aws_switch count and swept             = switches, shadows_swept
#   aws_note of regret, one per refault it judged, naming its rule
# each with a floor, so that no match compares 0 with 0: detect leaves a
# shadow for every eviction (THP off: small folios only), each refault's
# verdict is detect's rule on the figures it carries (activate iff
# distance <= workingset_size), the same run under baseline matches what
# detect leaves at 0 (pages placed active, evictions without a shadow),
# a switch made while shadows wait in the swap cache counts the ones it
# swept, and every refault on zram carries the page's swap entry.  The
# counters are read and tracing_on is flipped by shell builtins only, and
# this shell runs in a cgroup under policy stock, which counts and traces
# nothing: so the thrash run, in its own cgroup under the global detect,
# is all that the counters and the events see, both from before it
# starts to after it ends.  A window whose ring buffer overran or dropped
# events, or whose workloads failed their verification, fails every case
# that reads it (its counts would not add up).
. "$AWS_TOOLS/guest/lib.sh"
. "$AWS_TOOLS/guest/lib-trace.sh"

LIMIT=35M
# policies.sh's thrash run, 1 round: about 54k events, 22k evictions, 7.6k
# refaults and 1.4k activations (1,365 and 1,420 in two runs).  At half
# these sizes activations went from 464 in one run to 4 in the next: hot-2
# no longer reliably refaults within the workingset.
THRASH=(aws-thrash --cold 64M --hot1 20M --cold-slice 24M --hot2 6M --rounds 1)

{ [ -w $T/tracing_on ] && [ -r $T/per_cpu/cpu0/stats ]; } ||
	bail tracefs_available "no writable tracing_on or per-CPU stats under $T"
buf0=$(cat $T/buffer_size_kb 2>/dev/null)

mod_unload
insmod "$AWS_MOD" policy=detect || bail insmod "insmod policy=detect failed"
want="anon_workingset:aws_activate anon_workingset:aws_age anon_workingset:aws_evict"
want+=" anon_workingset:aws_note anon_workingset:aws_place anon_workingset:aws_refault"
want+=" anon_workingset:aws_switch"
got=$(trace-cmd list -e 'anon_workingset:' 2>&1 | grep '^anon_workingset:' | sort | xargs)
expect trace_cmd_lists_events events "$got" = "$want"

# On 6.12 detect activates few of the thrash's refaults, and in some
# boots none (0 and 296 in two make test runs, against 1,463 on 6.1), and
# verdicts_follow_distance needs both verdicts: random writes over twice
# their cgroup follow, in the same window, which detect activates 27 % of
# on 6.12 (1,516-1,687 of about 5,800 in 6 runs) and about 6 % on 6.1.
thrash() {
	cg_run trace "$LIMIT" "${THRASH[@]}" >/tmp/trace-thrash.out 2>&1
	cg_run trace-rw 16M aws-randw --size 32M --threads 1 --writes "$(randw_writes 32)" \
		>/tmp/trace-randw.out 2>&1
}
# verified: the verify_fail sum of the window's two runs (1 for a run
# that printed no RESULT).
verified() {
	local res rw vf vr
	res=$(grep '^RESULT' /tmp/trace-thrash.out) rw=$(grep '^RESULT' /tmp/trace-randw.out)
	vf=$(result_get "$res" verify_fail) vr=$(result_get "$rw" verify_fail)
	echo $((${vf:-1} + ${vr:-1}))
}
# window_ok NAME: the last window recorded events, lost none (ring buffer
# overruns, drops, loss marks in the report) and its workloads verified
# (WVF 0); otherwise fail NAME, saying so, and return 1.  Every case that
# reads a window starts with it.
window_ok() {
	[ "${E[events]:-0}" -gt 0 ] && [ "$LOST" = 0 ] && [ -z "${E[report_lost]:-}" ] &&
		[ "$WVF" = 0 ] && return 0
	fail "$1" "window incomplete: ${E[events]:-0} events, $LOST overwritten or dropped," \
		"${E[report_lost]:-0} loss marks in the report (make BUF_KB bigger), verify_fail $WVF"
	return 1
}

# The shell's own page faults between a snapshot and tracing_on would be
# counted and not traced: under stock they are neither.
CG=/sys/fs/cgroup
echo +memory >$CG/cgroup.subtree_control
rmdir $CG/trsw $CG/trctl $CG/trshm 2>/dev/null
mkdir $CG/trctl
echo stock >$CG/trctl/memory.anon_ws_policy
echo $$ >$CG/trctl/cgroup.procs || bail trctl "cannot move the suite's shell to $CG/trctl"
# THP off for the windows: detect writes no shadow for a large folio
# (evictions_noshadow), so with THP on, a THP evicted would leave one
# legitimately and detect_small_folios_leave_shadows could not tell.
THP=/sys/kernel/mm/transparent_hugepage/enabled
thp0=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $THP 2>/dev/null)
[ -z "$thp0" ] || echo never >$THP || bail thp_off "cannot set $THP to never"

record_window thrash || diag "trace-cmd start or the summary failed"
WVF=$(verified)
diag "trace: ${E[events]:-0} events (place ${E[aws_place]:-0}, evict ${E[aws_evict]:-0}," \
	"refault ${E[aws_refault]:-0}, age ${E[aws_age]:-0}, activate ${E[aws_activate]:-0});" \
	"lost $LOST; verify_fail $WVF; restores $(delta restores)"
# same NAME COUNTER TRACE MIN: the window is complete, the counter's delta
# equals the trace's figure and is at least MIN.
same() {
	local d t=${E[$3]:-0}
	window_ok "$1" || return
	d=$(delta "$2")
	if [ "$d" = "$t" ] && [ "$d" -ge "$4" ]; then
		ok "$1 # $2 +$d, events $t"
	else
		fail "$1" "$2 +$d, events $t (want equal and >= $4)"
	fi
}
# Floors of 1000 pages under detect, the window (thrash and random
# writes) measured far above them: placed_inactive +29,649-29,651,
# evictions +29,988-30,453, refaults +13,071-13,412 (6.1: one make test
# run and three runs of this suite in one guest, make test
# SUITES="tracing tracing tracing hostile cgroups cgroups cgroups");
# 6.12, three runs of the same (KVER=6.12): +29,650-29,651, +29,305-31,048,
# +12,577-13,873.
same placed_inactive_match placed_inactive place_inactive 1000
same evictions_match evictions evict_shadow 1000
# detect's evict decision leaves a shadow for every small folio: a path
# that evicted one without (a shadow not stored, the wrong decision taken)
# counts it in evictions_noshadow and traces it with shadow=0.  (Whether
# the two agree is baseline_evictions_noshadow_match's.)
if window_ok detect_small_folios_leave_shadows; then
	nd=$(delta evictions_noshadow) ne=${E[evict_noshadow]:-0} ev=$(delta evictions)
	if [ "$nd" = 0 ] && [ "$ne" = 0 ] && [ "$ev" -ge 1000 ]; then
		ok "detect_small_folios_leave_shadows # evictions +$ev, none without a shadow (counter or trace)"
	else
		fail detect_small_folios_leave_shadows "evictions +$ev (want >= 1000), without a shadow:" \
			"counter +$nd, events $ne (want 0 both)"
	fi
fi
same refaults_match refaults refault 1000
# Activations: 702-1,515 in 20 runs of the thrash alone under detect in
# this suite's 512M guest on 6.1, but this suite once saw 6 (a boot that
# kept hot-2), and 6.12 saw 0 (hence the random writes after it, which
# alone give about 6 % of 5,800, some 350, on 6.1 and 1,516-1,687 on
# 6.12: the comment at thrash() above).  The whole window: 1,201-1,481
# on 6.1 (the four runs above and one more), 1,581-1,771 on 6.12 (make
# test and the three runs).  Floor 200: below the worst case either
# kernel has shown (the thrash's 6 or 0 plus the random writes' share).
# Restores (activations of pages evicted with PG_workingset): 0-10 in
# those 20 runs of the thrash alone, one of them 0, but the random writes
# restore pages: 129-154 on 6.1 (the five runs), 613-728 on 6.12 (make
# test and the three runs).  Floor 50.
same activations_match activations refault_activate 200
same restores_match restores refault_restore 50
if window_ok verdicts_follow_distance; then
	bad=${E[verdict_bad]:-0} nin=${E[verdict_in]:-0} nout=${E[verdict_out]:-0}
	if [ "$bad" = 0 ] && [ "$nin" -gt 0 ] && [ "$nout" -gt 0 ]; then
		ok "verdicts_follow_distance # $nin activated (distance <= workingset_size), $nout not"
	else
		fail verdicts_follow_distance "$bad of $((nin + nout)) refaults break activate iff distance <= workingset_size ($nin activated, $nout not)"
	fi
fi
# detect ages its anon clock with every eviction, every activated refault
# and every activation it agrees to age for (aws_age aged=1).
if window_ok clock_advance_matches; then
	age=$(($(anon_age A) - $(anon_age B)))
	sum=$((${E[evict_shadow]:-0} + ${E[evict_noshadow]:-0} + ${E[refault_activate]:-0} + ${E[age_aged]:-0}))
	expect clock_advance_matches "anon clock +$age, evictions + activations + aged" "$sum" -eq "$age"
fi

# What detect leaves at 0 -- pages placed active, evictions without a
# shadow -- matched with a floor under baseline (5.8: new anon pages start
# active, no anon shadow is written).  Floors: placed active
# +29,648-29,650, evictions without a shadow +29,009-29,082 on 6.1 (the
# four runs above); +29,648-29,650 and +29,035-30,582 on 6.12 (make test
# and the three runs).
set_policy baseline || bail set_baseline "cannot set policy baseline"
record_window thrash || diag "trace-cmd start or the summary failed"
WVF=$(verified)
diag "baseline trace: ${E[events]:-0} events; lost $LOST; verify_fail $WVF"
same baseline_placed_active_match placed_active place_active 1000
same baseline_evictions_noshadow_match evictions_noshadow evict_noshadow 1000
# 5.8's two activations outside a refault, each an aws_activate event with
# its reason: a faulted swap-in page already on an LRU list, and a
# swap-backed page reclaim found with one young PTE (its first
# reference).  Counter and events must agree page for page.
same baseline_swapin_activations_match swapin_activations activate_swapin_mapped 1000
same baseline_ref_activations_match ref_activations activate_first_reference 100
set_policy detect || bail set_detect "cannot set policy detect"
[ -z "$thp0" ] || echo "$thp0" >$THP

# Switches, global and per cgroup: one event each, with what was swept.
# Shadows are left in the swap cache first: 32M of non-zero bytes (6.12
# swaps a zero page out as a bit, with no shadow) written to a tmpfs file
# from a 12M cgroup under the global detect; the file keeps its pages'
# swap entries and their shadows until it is removed.  The global switch
# to protect must sweep them: at least 4096 (16M of the 20M or more that
# cannot stay in 12M; swept 5,248-5,327 in four runs on 6.1, 5,233-5,277
# in three on 6.12).
SHM=/mnt/aws-trshm
{ mkdir -p $SHM && mount -t tmpfs -o size=64m aws-trshm $SHM; } || bail shm_mount "cannot mount a tmpfs at $SHM"
{ mkdir $CG/trshm && echo 12M >$CG/trshm/memory.max; } || bail shm_cgroup "cannot make $CG/trshm"
(echo $BASHPID >$CG/trshm/cgroup.procs && head -c 32M /dev/zero | tr '\0' a >$SHM/f) ||
	bail shm_write "cannot write $SHM/f in $CG/trshm"
mkdir $CG/trsw
switches() { set_policy protect && echo baseline >$CG/trsw/memory.anon_ws_policy; }
record_window switches || diag "trace-cmd start or the summary failed"
WVF=0
rmdir $CG/trsw
rm -f $SHM/f
umount $SHM
rmdir $CG/trshm
sw=$(delta switches) swept=$(delta shadows_swept)
diag "switch window: swept +$swept, events ${E[swept]:-0}"
if window_ok switch_events_match; then
	if [ "$sw" = 2 ] && [ "${E[aws_switch]:-0}" = 2 ] && [ "${E[switch_global_protect]:-0}" = 1 ] &&
		[ "${E[switch_cgroup_baseline]:-0}" = 1 ] && [ "${E[swept]:-0}" = "$swept" ] &&
		[ "$swept" -ge 4096 ]; then
		ok "switch_events_match # 2 switches, swept $swept"
	else
		fail switch_events_match "switches +$sw, events ${E[aws_switch]:-0} (global protect" \
			"${E[switch_global_protect]:-0}, cgroup baseline ${E[switch_cgroup_baseline]:-0})," \
			"swept +$swept, events ${E[swept]:-0} (want equal and >= 4096)"
	fi
fi

# Every refault carries the page's identity (its swap entry), which hold's
# and regret's rules and every hash rule read: through the swap cache, and
# on zram's SWP_SYNCHRONOUS_IO path, where up to f829fa7 the entry was set
# only after the refault was judged (id 0 for every zram refault).  Floor
# 1000 pages: 5,999-6,019 refaulted on 6.1 (the five runs above),
# 5,854-5,858 on 6.12 (make test and the three runs).
zram_window() {
	cg_run trace-rw 16M aws-randw --size 32M --threads 1 --writes "$(randw_writes 32)" \
		>/tmp/trace-zram.out 2>&1
}
set_policy detect
if zram_swap 256M; then
	record_window zram_window || diag "trace-cmd start or the summary failed"
	zin=${E[refault]:-0} znoid=${E[refault_no_id]:-0} zlost=$LOST
	if ! { swapoff /dev/zram0 && echo 1 >/sys/block/zram0/reset && swapon /dev/vdc; }; then
		diag "could not put the swap disk back"
	fi
	if [ "$zin" -gt 1000 ] && [ "$znoid" = 0 ] && [ "$zlost" = 0 ]; then
		ok "zram_refaults_carry_identity # $zin pages refaulted on zram, all with their swap entry"
	else
		fail zram_refaults_carry_identity "$zin pages refaulted on zram, $znoid without identity, $zlost lost"
	fi
else
	fail zram_refaults_carry_identity "no swap on zram"
fi

# regret's aws_note (AWS_NOTE(), module/policies/regret.c): one for every
# refault it judged, whose first word is the rule it follows after it
# (1 recency's, 2 stock's, 3 hold's).  The random writes on the swap disk:
# refaults floor 1000, as zram_refaults_carry_identity's.
set_policy regret || bail set_regret "cannot set policy regret"
record_window zram_window || diag "trace-cmd start or the summary failed"
WVF=$(result_get "$(grep '^RESULT' /tmp/trace-zram.out)" verify_fail)
WVF=${WVF:-1}
if window_ok regret_notes_every_refault; then
	notes=${E[policy_regret_aws_note]:-0} judged=${E[policy_regret_aws_refault]:-0}
	rules=$((${E[note_regret_v0_1]:-0} + ${E[note_regret_v0_2]:-0} + ${E[note_regret_v0_3]:-0}))
	if [ "$notes" = "$judged" ] && [ "$rules" = "$notes" ] && [ "$notes" -ge 1000 ]; then
		ok "regret_notes_every_refault # $notes notes of $judged refaults (rules:" \
			"recency's ${E[note_regret_v0_1]:-0}, stock's ${E[note_regret_v0_2]:-0}," \
			"hold's ${E[note_regret_v0_3]:-0})"
	else
		fail regret_notes_every_refault "$notes notes, $judged refaults judged by regret," \
			"$rules naming a rule (want all equal, >= 1000)"
	fi
fi
set_policy detect

trace-cmd reset >/dev/null 2>&1
[ -n "$buf0" ] && echo "${buf0%% *}" >$T/buffer_size_kb
echo $$ >$CG/cgroup.procs
rmdir $CG/trctl
rmmod anon_workingset || bail rmmod_after_tracing "rmmod failed"
ktap_end
