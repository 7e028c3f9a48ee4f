#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# BPF suite (6.12 only): policies written in BPF (module/aws_bpf.c,
# userspace/bpf/) attach, run and go away like C ones.
#  - bdetect attaches with its loader, and is then listed and selected like
#    a built-in policy (policy parameter, memory.anon_ws_policy, its clock
#    in /proc/anon_workingset); a second one of the same name is refused;
#  - on the tracing suite's workload (the policies suite's thrash, then
#    random writes), bdetect takes detect's decisions: every refault it
#    judged follows detect's rule on the figures it was given, its
#    counters and the C detect's on the same workload both show what
#    detect's rule makes exact, and the trace carries the same
#    kinds of events, whose pages add up to those counters;
#  - the template, which fills every member, takes detect's decisions and
#    finds every refault's eviction by the page's identity, with the
#    memcg and node ids it was evicted from;
#  - bpftool struct_ops register attaches one with a pinned link, and
#    removing the pin detaches it;
#  - a policy whose evict runs over the module's budget is ejected, says
#    why through its loader, and reclaim goes on; a budget out of range
#    refuses the load;
#  - two sibling cgroups run bdetect and the C detect at once, each
#    policy's events naming only its own cgroup's memcg; two copies of
#    bexample's object, one renamed and set to admit every third long
#    refault (aws-bpf-load -n, -s), run side by side, each by its setting:
#    bexample activates every refault within the workingset, as detect,
#    and admits every other long refault (its private state);
#  - on SIGHUP the loader replaces its program in place (a link update):
#    bexample's setting changes with no policy switch; an update to a
#    program of another shape is refused with the module's reason;
#  - killing the loader (SIGKILL) mid-run hands the cgroup back to the
#    policy it had before, its shadows swept (none refaults on an old
#    clock while the workload swaps on), and SIGTERM the global policy;
#    while a policy is attached the module cannot be unloaded, and once
#    the last loader is killed it is idle within bpf_module_idle's bound
#    and unloads;
#  - the programs the module must refuse (userspace/bpf/refused/) are
#    refused with its reason on the loader's terminal, and leave the
#    running policy and the list in place; with the four BPF slots taken
#    a fifth policy is refused, and attaches once a slot is free.
# Preconditions are bails, not cases: the struct_ops type in the
# module's BTF, bdetect attaching, refused-good attaching.
. "$AWS_TOOLS/guest/lib.sh"
. "$AWS_TOOLS/guest/lib-trace.sh"
. "$AWS_TOOLS/guest/lib-bpf.sh"

LOAD=$AWS_BPF/aws-bpf-load
CG=/sys/fs/cgroup
LIMIT=35M
THRASH=(aws-thrash --cold 64M --hot1 20M --cold-slice 24M --hot2 6M --rounds 1)

# listed NAME: the policy parameter lists NAME.
listed() { tr -d '[]' <"$AWS_PARAMS/policy" | tr ' ' '\n' | grep -qx "$1"; }
# gone NAME: wait up to 10 s for NAME to leave the list (the longest
# wait in GONE_MAX_MS).
GONE_MAX_MS=0
gone() {
	local i t0 ms
	t0=$(bpf_ms)
	for ((i = 0; i < 100; i++)); do
		if ! listed "$1"; then
			ms=$(($(bpf_ms) - t0))
			[ "$ms" -le "$GONE_MAX_MS" ] || GONE_MAX_MS=$ms
			return 0
		fi
		sleep 0.1
	done
	return 1
}
cg_policy() { sed -n 's/.*\[\([a-z0-9_]*\)\].*/\1/p' "$CG/$1/memory.anon_ws_policy"; }
workload() {
	cg_run "$1" "$LIMIT" "${THRASH[@]}" >"/tmp/$1-thrash.out" 2>&1
	cg_run "$1-rw" 16M aws-randw --size 32M --threads 1 --writes "$(randw_writes 32)" \
		>"/tmp/$1-randw.out" 2>&1
}

mod_unload
# The budget of a BPF callback (bpf_budget_ms, 200 ms by default) is wall
# time, and under TCG a guest's clock runs on while the host does not run
# its vCPU: a constant new_anon of the template was once ejected after
# "203,535 us" with three other guests and a kernel build on two cores
# (2026-12-06).  The suite gives every callback 1 s (its slow policy
# spins 2 s).
BPF_BUDGET_MS=1000
insmod "$AWS_MOD" policy=detect bpf_budget_ms=$BPF_BUDGET_MS ||
	bail insmod "insmod policy=detect bpf_budget_ms=$BPF_BUDGET_MS failed"
[ -x "$LOAD" ] || bail bpf_tools_present "$LOAD missing from the tools disk"
"$AWS_BPF/bpftool" btf dump file /sys/kernel/btf/anon_workingset format c 2>/dev/null |
	grep -q '^struct aws_bpf_ops {' ||
	bail struct_ops_type_in_module_btf "no struct aws_bpf_ops in /sys/kernel/btf/anon_workingset"
# The suite's shell runs under stock (counts and traces nothing), so the
# windows below see only their workloads (tracing.sh says why).
echo +memory >$CG/cgroup.subtree_control
rmdir $CG/bpfctl 2>/dev/null
mkdir $CG/bpfctl
echo stock >$CG/bpfctl/memory.anon_ws_policy
echo $$ >$CG/bpfctl/cgroup.procs || diag "cannot move the suite's shell to $CG/bpfctl"

# --- attach, list, select --------------------------------------------------
bpf_attach bdetect bdetect.bpf.o || bail bdetect_attaches "$(cat /tmp/bpf-bdetect.out)"
mkdir $CG/bpfsel
if listed bdetect && grep -qw bdetect $CG/bpfsel/memory.anon_ws_policy &&
	[ "$(get_policy)" = detect ]; then
	ok "bdetect_listed # $(cat "$AWS_PARAMS/policy")"
else
	fail bdetect_listed "policy: $(cat "$AWS_PARAMS/policy"), cgroup: $(cat $CG/bpfsel/memory.anon_ws_policy)"
fi
rmdir $CG/bpfsel
"$LOAD" "$AWS_BPF/bdetect.bpf.o" >/tmp/bdetect2.out 2>&1
rc=$?
if [ $rc = 1 ] && grep -q 'File exists' /tmp/bdetect2.out; then
	ok "same_name_refused # $(grep -m1 'refused' /tmp/bdetect2.out)"
else
	fail same_name_refused "second loader exited $rc: $(tail -n 2 /tmp/bdetect2.out)"
fi
# A task that loaded a policy but has no CAP_SYS_ADMIN when it attaches
# it (the loader's -D drops it in between; CAP_BPF stays) is refused by
# the module, with its message in dmesg, the rule of every other policy
# change.  (Root without CAP_SYS_ADMIN from the start cannot even load
# one: libbpf cannot walk the kernel's BTF objects without it.)  Up to
# f829fa7 it attached.
dmesg_mark
"$LOAD" -D "$AWS_BPF/bexample.bpf.o" >/tmp/bexample-nocap.out 2>&1
rc=$?
if [ $rc != 0 ] && grep -q 'refused to attach it: Operation not permitted' /tmp/bexample-nocap.out &&
	new_dmesg 'BPF policy bexample: attaching needs CAP_SYS_ADMIN' && ! listed bexample; then
	ok "attach_needs_cap_sys_admin # loader exit $rc, EPERM from the module"
else
	fail attach_needs_cap_sys_admin "loader exit $rc: $(tail -n 2 /tmp/bexample-nocap.out | tr '\n' ' ')"
fi
set_policy bdetect
if [ "$(get_policy)" = bdetect ] && [ "$(aws_stat node0_anon_age_bdetect)" != -1 ]; then
	ok "bdetect_selected # policy $(get_policy), node0_anon_age_bdetect $(aws_stat node0_anon_age_bdetect)"
else
	fail bdetect_selected "policy $(get_policy), /proc has no node0_anon_age_bdetect"
fi

# --- the same decisions as detect -------------------------------------------
# The counters of one window differ between two runs by more than a wrong
# policy would make them differ (6 runs each: refaults 13,277-13,846,
# activations 1,538-2,390; a clean clone once failed a tolerance drawn from
# them), so bdetect's run is judged on what detect's rule makes exact, on
# its own counters: every new page placed inactive, every eviction (all
# small pages here) leaving a shadow, some refaults activated and some
# not.  A bdetect that started pages active, left no shadow or activated
# every refault fails it; bdetect_verdicts_are_detects checks each
# verdict against the rule on the figures it was given.  (A second
# window under detect itself gave only a line to read beside it; the
# twin cases below compare C and BPF builds at once.)
KEYS=(refaults activations evictions evictions_noshadow placed_active placed_inactive)
declare -A BD_E BD_D
record_window workload bpfw || diag "trace-cmd start or the summary failed"
for k in "${KEYS[@]}"; do BD_D[$k]=$(delta "$k"); done
bad=${E[verdict_bad]:-0} size=${E[size_not_active_anon]:-0} nin=${E[verdict_in]:-0} nout=${E[verdict_out]:-0}
if [ "${E[aws_refault]:-0}" -gt 0 ] && [ "$bad" = 0 ] && [ "$size" = 0 ] && [ "$nin" -gt 0 ] &&
	[ "$nout" -gt 0 ] && [ "${E[policy_bdetect_aws_refault]:-0}" = "${E[aws_refault]}" ] && [ "$LOST" = 0 ]; then
	ok "bdetect_verdicts_are_detects # $nin activated, $nout not; workingset = active anon in all"
else
	fail bdetect_verdicts_are_detects "$bad verdicts off the rule, $size sizes not active anon" \
		"($nin in, $nout out, ${E[policy_bdetect_aws_refault]:-0} of ${E[aws_refault]:-0} bdetect's, $LOST lost)"
fi
for k in "${!E[@]}"; do BD_E[$k]=${E[$k]}; done
# detects_rule ARRAY: what is off detect's rule in the counters of ARRAY
detects_rule() {
	local -n _d=$1
	local off=''
	[ "${_d[placed_active]}" = 0 ] && [ "${_d[placed_inactive]}" -gt 0 ] ||
		off+=" placed active ${_d[placed_active]}, inactive ${_d[placed_inactive]};"
	[ "${_d[evictions_noshadow]}" = 0 ] && [ "${_d[evictions]}" -gt 0 ] ||
		off+=" evictions ${_d[evictions]}, without shadow ${_d[evictions_noshadow]};"
	[ "${_d[activations]}" -gt 0 ] && [ "${_d[activations]}" -lt "${_d[refaults]}" ] ||
		off+=" activations ${_d[activations]} of ${_d[refaults]} refaults;"
	echo "$off"
}
line=''
for k in "${KEYS[@]}"; do line+=" $k ${BD_D[$k]}"; done
off_b=$(detects_rule BD_D)
if [ -z "$off_b" ]; then
	ok "bdetect_counters_like_detect # bdetect:$line"
else
	fail bdetect_counters_like_detect "bdetect:$off_b (bdetect:$line)"
fi
# The trace: the kinds of events detect's callbacks make (it places,
# evicts, judges refaults and ages its clock: the four that detect's own
# window showed when this case still ran one), and bdetect's events add
# up to its counters (so their counts are the counters checked above).
kinds_c="aws_age aws_evict aws_place aws_refault"
kinds_b=$(printf '%s\n' "${!BD_E[@]}" | grep -x 'aws_[a-z]*' | sort | xargs)
sums="refault ${BD_E[refault]:-0}/${BD_D[refaults]} evict ${BD_E[evict_shadow]:-0}/${BD_D[evictions]}"
sums+=" place ${BD_E[place_inactive]:-0}/${BD_D[placed_inactive]}"
sums+=" activate ${BD_E[refault_activate]:-0}/${BD_D[activations]}"
if [ -n "$kinds_b" ] && [ "$kinds_b" = "$kinds_c" ] && [ "${BD_E[refault]:-0}" = "${BD_D[refaults]}" ] &&
	[ "${BD_E[evict_shadow]:-0}" = "${BD_D[evictions]}" ] &&
	[ "${BD_E[place_inactive]:-0}" = "${BD_D[placed_inactive]}" ] &&
	[ "${BD_E[refault_activate]:-0}" = "${BD_D[activations]}" ]; then
	ok "bdetect_events_like_detect # kinds: $kinds_b; events/counters: $sums"
else
	fail bdetect_events_like_detect "kinds '$kinds_b', detect's '$kinds_c'; events/counters: $sums"
fi
bpf_stop bdetect TERM
gone bdetect || diag "bdetect still listed after its loader stopped"

# --- bpftool struct_ops register ----------------------------------------------
# The kernel tree's own tool attaches a policy as well: `bpftool
# struct_ops register OBJ DIR` loads it and pins its link in DIR (a
# bpffs), where it stays attached with no process holding it; the policy
# is listed and a cgroup can select it.  Removing the pin detaches it, and
# the cgroup gets its previous policy back.  A module that worked with
# its own loader only, or kept a detached link's policy, fails.  (6.12's
# bpftool pins the link, then crashes printing what it registered: its
# get_kern_struct_ops_name() looks the type up in vmlinux's BTF, and this
# type is in the module's.  Its exit status is reported, not judged.)
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
mkdir -p /sys/fs/bpf/aws $CG/bpfreg
before=$(cg_policy bpfreg)
"$AWS_BPF/bpftool" struct_ops register "$AWS_BPF/bdetect.bpf.o" /sys/fs/bpf/aws >/tmp/bpftool-reg.out 2>&1
brc=$?
if [ -e /sys/fs/bpf/aws/bdetect ] && listed bdetect && echo bdetect >$CG/bpfreg/memory.anon_ws_policy &&
	[ "$(cg_policy bpfreg)" = bdetect ]; then
	rm -f /sys/fs/bpf/aws/bdetect
	if gone bdetect && [ "$(cg_policy bpfreg)" = "$before" ]; then
		ok "bpftool_registers_and_unpin_detaches # pinned (bpftool exit $brc), listed, selected; gone with its pin, the cgroup back to $before"
	else
		fail bpftool_registers_and_unpin_detaches "after the pin's removal: policy $(cat "$AWS_PARAMS/policy"), cgroup $(cg_policy bpfreg) (was $before)"
	fi
else
	fail bpftool_registers_and_unpin_detaches "bpftool exit $brc ($(tail -n 2 /tmp/bpftool-reg.out | xargs)), pins: $(echo /sys/fs/bpf/aws/*), policy $(cat "$AWS_PARAMS/policy"), cgroup $(cg_policy bpfreg)"
	rm -f /sys/fs/bpf/aws/bdetect
	gone bdetect
fi
rmdir $CG/bpfreg /sys/fs/bpf/aws 2>/dev/null

# --- the way out -----------------------------------------------------------------
# A policy whose evict spins for 2 s (refused/slow.bpf.c: the verifier
# accepts it) runs in a cgroup that swaps.  The module must detach it
# after its first callback over the budget (bpf_budget_ms, 1 s here),
# count it (bpf_ejections), and say why in the kernel log, which
# the loader prints before it exits with status 3; the cgroup gets its
# previous policy back and the load, a verifying aws-randw, ends verified.
# Without the way out the policy stays, every eviction holds reclaim for
# 2 s, and the load does not end in the 120 s allowed.
# ejected_case CASE NAME WHY: attach policy NAME (ejected-NAME.bpf.o) to
# a fresh 16M cgroup, run a verifying aws-randw over 32M in it and wait up
# to 120 s for the loader to exit.  CASE passes if the loader exited 3
# with the module's "BPF policy NAME ejected" line matching WHY, one more
# ejection was counted, NAME is gone, the cgroup has its previous policy
# back and the load ended verified (within 120 s more).
ejected_case() {
	local name=$2 cg=$CG/bpf$2 before ej0 lrc=none wrc=none after wp why i
	mkdir "$cg" && echo 16M >"$cg/memory.max"
	before=$(cg_policy "bpf$name") ej0=$(aws_stat bpf_ejections)
	if ! bpf_attach "$name" "ejected-$name.bpf.o" -c "$cg"; then
		fail "$1" "it did not attach: $(tail -n 3 "/tmp/bpf-$name.out" | xargs)"
		rmdir "$cg"
		return
	fi
	(echo $BASHPID >"$cg/cgroup.procs" && exec aws-randw --size 32M --threads 1 \
		--writes "$(randw_writes 32)") >"/tmp/$name-randw.out" 2>&1 &
	wp=$!
	for ((i = 0; i < 1200; i++)); do
		kill -0 "${BPF_LOADER[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "${BPF_LOADER[$name]}" 2>/dev/null; then
		bpf_stop "$name" KILL
	else
		wait "${BPF_LOADER[$name]}"
		lrc=$?
		unset "BPF_LOADER[$name]"
	fi
	after=$(cg_policy "bpf$name")
	for ((i = 0; i < 1200; i++)); do kill -0 $wp 2>/dev/null || break; sleep 0.1; done
	kill -0 $wp 2>/dev/null && { kill -9 $wp; diag "the load was still running after 240 s"; }
	wait $wp
	wrc=$?
	why=$(grep -m1 "the module said: BPF policy $name ejected" "/tmp/bpf-$name.out")
	if [ "$lrc" = 3 ] && grep -Eq -- "$3" <<<"$why" && [ "$(($(aws_stat bpf_ejections) - ej0))" = 1 ] &&
		! listed "$name" && [ "$after" = "$before" ] && [ "$wrc" = 0 ]; then
		ok "$1 # ${why#*said: }; the load verified"
	else
		fail "$1" "loader exit $lrc, ejections +$(($(aws_stat bpf_ejections) - ej0))," \
			"cgroup $after (was $before), load exit $wrc: $(tail -n 2 "/tmp/bpf-$name.out" | xargs)"
	fi
	rmdir "$cg" 2>/dev/null
}
ejected_case overrunning_policy_ejected slow 'its evict callback ran [0-9]+ us, over the [0-9]+ ms budget'
# A policy that gives up (refused/giveup.bpf.c: its 100th eviction calls
# the module's aws_bpf_error(42) kfunc) is ejected the same way, and the
# reason names the call and the callback.  Without the kfunc's way out it
# stays attached until the loader is killed at the end of the wait.
ejected_case erroring_policy_ejected giveup 'its evict callback called aws_bpf_error\(42\)'

# --- template: every member, as shipped to copy ----------------------------
# userspace/bpf/template.bpf.c fills all of struct aws_bpf_ops (the ones
# bdetect leaves out answer what stock would) and is detect as it
# stands: every refault it judged must be its own, none lost, each one
# activated exactly when its distance is within active anon, with some
# of each.  Catches a member the module calls wrongly once all are given
# (a keep_active or first_reference that activated, an inactive_ratio
# or state_init that broke its state), or a template that no longer
# loads.
if bpf_attach template template.bpf.o -g; then
	record_window workload bpft || diag "trace-cmd start or the summary failed"
	bad=${E[verdict_bad]:-0} size=${E[size_not_active_anon]:-0}
	nin=${E[verdict_in]:-0} nout=${E[verdict_out]:-0}
	if [ "${E[aws_refault]:-0}" -gt 0 ] && [ "$bad" = 0 ] && [ "$size" = 0 ] && [ "$nin" -gt 0 ] &&
		[ "$nout" -gt 0 ] && [ "${E[policy_template_aws_refault]:-0}" = "${E[aws_refault]}" ] &&
		[ "$LOST" = 0 ]; then
		ok "template_takes_detects_decisions # $nin activated, $nout not, all the template's"
	else
		fail template_takes_detects_decisions "$bad verdicts off detect's rule, $size sizes not active anon" \
			"($nin in, $nout out, ${E[policy_template_aws_refault]:-0} of ${E[aws_refault]:-0} the template's, $LOST lost)"
	fi
	bpf_stop template TERM
	gone template || diag "template still listed after its loader stopped"
	# Who and where: the template keeps each page it shadows in a map
	# keyed by the identity evict gets (f->id) with the folio's memcg id
	# and node, and looks every refault up by r->id; its loader prints the
	# counts.  Every refault must find its eviction, from the lruvec it
	# refaults into (the workloads' cgroups reclaim themselves), and at
	# least as many as the trace showed judged; the clock it read then and
	# now with the aws_bpf_clock() kfunc must give the module's distance
	# within 64 pages (what the other CPU evicts in between) for all but
	# 1 % of them.  Catches ids missing or different at evict and refault,
	# memcg or node ids that disagree, and a kfunc that reads another clock.
	g=$(grep ' (template globals)$' /tmp/bpf-template.out)
	gv() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" <<<"$g"; }
	left=$(gv shadows_left) hit=$(gv refaults_matched) miss=$(gv refaults_unmatched) moved=$(gv refaults_moved)
	agree=$(gv distance_agrees) differ=$(gv distance_differs)
	if [ -n "$g" ] && [ "${left:-0}" -gt 0 ] && [ "${hit:-0}" -gt 0 ] &&
		[ "$hit" -ge "${E[policy_template_aws_refault]:-0}" ] && [ "$miss" = 0 ] && [ "$moved" = 0 ] &&
		[ "${agree:-0}" -gt 0 ] && [ $((100 * ${differ:-1})) -le "$hit" ]; then
		ok "template_matches_evictions_by_identity # $hit refaults found among $left evictions by id, none moved; aws_bpf_clock's distance within 64 of the module's in $agree, not in $differ"
	else
		fail template_matches_evictions_by_identity "globals '${g:-none}' (traced refaults" \
			"${E[policy_template_aws_refault]:-0})"
	fi
	# State of the size it declares: the template declares 448 bytes
	# per (memcg, node), keeps a histogram of its long refaults past the
	# 64 of struct aws_bpf_state through aws_bpf_state_mem(), and checks
	# at every 64th long refault of a lruvec that the histogram's sum is
	# word 0 of the same state; asked for 512 bytes, more than it
	# declared, the kfunc must refuse.  About 12,000 long refaults over 2
	# lruvecs give some 180 checks; a state that is not kept never
	# reaches one, and one not zeroed past 64 bytes fails them.  Catches
	# also a kfunc that hands out more than declared.
	agree=$(gv state_sums_agree) differ=$(gv state_sums_differ)
	refused=$(gv state_beyond_refused) given=$(gv state_beyond_given)
	if [ "${agree:-0}" -gt 50 ] && [ "$differ" = 0 ] && [ "${refused:-0}" -gt 0 ] && [ "$given" = 0 ]; then
		ok "template_state_of_declared_size # 448 bytes: the histogram's sum was the count at $agree checks, never not; 512 asked: refused $refused times"
	else
		fail template_state_of_declared_size "sums agree ${agree:-none}, differ ${differ:-none}; beyond refused ${refused:-none}, given ${given:-none}"
	fi
else
	fail template_takes_detects_decisions "it did not attach: $(tail -n 3 /tmp/bpf-template.out | tr '\n' ' ')"
	fail template_matches_evictions_by_identity "it did not attach"
	fail template_state_of_declared_size "it did not attach"
fi

# --- siblings: bdetect and detect at once ------------------------------------
mkdir $CG/bpfs1 $CG/bpfs2
echo $LIMIT >$CG/bpfs1/memory.max
echo $LIMIT >$CG/bpfs2/memory.max
echo detect >$CG/bpfs2/memory.anon_ws_policy
bpf_attach bs bdetect.bpf.o -c $CG/bpfs1 || diag "bdetect: $(cat /tmp/bpf-bs.out)"
siblings() {
	local a
	(echo $BASHPID >$CG/bpfs1/cgroup.procs && exec "${THRASH[@]}" >/dev/null 2>&1) &
	a=$!
	(echo $BASHPID >$CG/bpfs2/cgroup.procs && exec "${THRASH[@]}" >/dev/null 2>&1) &
	wait $a $!	# not the loaders
}
record_window siblings || diag "trace-cmd start or the summary failed"
mb=$(printf '%s\n' "${!E[@]}" | sed -n 's/^memcg_bdetect_//p' | sort | xargs)
md=$(printf '%s\n' "${!E[@]}" | sed -n 's/^memcg_detect_//p' | sort | xargs)
both=$(comm -12 <(tr ' ' '\n' <<<"$mb" | sort) <(tr ' ' '\n' <<<"$md" | sort) | xargs)
if [ "${E[policy_bdetect_aws_refault]:-0}" -gt 0 ] && [ "${E[policy_detect_aws_refault]:-0}" -gt 0 ] &&
	[ -n "$mb" ] && [ -n "$md" ] && [ -z "$both" ]; then
	ok "siblings_bpf_and_c # bdetect ${E[policy_bdetect_aws_refault]} refaults (memcg $mb), detect ${E[policy_detect_aws_refault]} (memcg $md)"
else
	fail siblings_bpf_and_c "bdetect ${E[policy_bdetect_aws_refault]:-0} refaults (memcg $mb)," \
		"detect ${E[policy_detect_aws_refault]:-0} (memcg $md), both: ${both:-none}"
fi
bpf_stop bs TERM
gone bdetect
rmdir $CG/bpfs1 $CG/bpfs2

# --- the module's own policies, built as BPF ---------------------------------
# Every file of userspace/bpf/Makefile's SHARED list (shared.list on the
# tools disk) is a module policy that compiles unchanged into BPF as
# bNAME (include/aws_policy.h's one-source macros; the simulator's self
# test asks both builds for the same decisions, decision by decision).
# Here each BPF build runs at once with its C build in sibling cgroups of
# 32M, on the loop the policies suite's far_run uses (48M read TWIN_LOOPS
# times), two pairs at a time; detect, which is what a build that lost
# its state or its rules would be, runs beside the first pair.  The
# figure is each cgroup's refaults (memory.stat's workingset_refault_anon:
# activations are quiet for hold and regret, and racy for stable, see
# policies.sh).  The BPF build must be within TWIN_TOL per mille of the C
# build, and detect beyond it, so that the case tells a BPF build that
# degraded to detect apart.  The policies that leave no shadow (baseline,
# protect: TWIN_NO_SHADOW) run last, together, on two reads: both builds
# must refault not once (a tolerance of 0), and one read after the first
# already refaults about 12k pages under any shadow.  Measured in make
# test's bpf guest, 6 rounds on 4 reads (2026-12-07, docs/bpf.md): the
# BPF build differed from its C build by up to 3.4 % (hold), 7.4 %
# (regret) and 0.9 % (stable), and in one more run by 9.7 % (regret) and
# 9.1 % (stable); detect was 31-49 % away.  A clean clone's make test
# then saw detect 18.8 % from stable (44,403 against 37,367: detect's own
# count ran 44-49k), inside the 20 % first asked, with bstable 0.5 % off.
# 15 % is half again the largest BPF-C gap seen (9.7 %, in some 15
# rounds) and below the nearest detect seen.  regret's own runs spread
# wider: its C build 30,612 to 36,812 refaults over five reads, the BPF
# build 9.7 % below it once and 10.0 % to 16.9 % above it four times (a
# clean clone's make test, 2026-12-07, failed on two reads in a row), so
# regret's tolerance is 25.5 %, half again 16.9 %, still below detect's
# distance from it (34 % at the nearest, 49,293 against 36,812).  On 3 reads (3 boots) the
# builds were within 9.5 %, but detect only 26.5 % from stable, too near
# the tolerance to tell them apart every time.  A pair whose first read
# has the BPF build off by more than the tolerance, or detect within it
# (detect runs beside the first pair only, and its count ran 44-49k),
# is read once more with detect beside it and judged on that read: a
# build that took another rule stays 18-49 % away and fails both, a
# read that strays by chance (stable once 41,319 against 37,120-37,733,
# bstable 10 % off) seldom does twice.  A cgroup on another policy
# fails at once.  example's figure is the share of its
# refaults it activated (activated_share, per mille), the mark of its
# rule (about 600, detect's about 0): its refaults are detect's on this
# loop give or take the pages its activations keep, and they spread too
# far to compare; in make test's bpf guest (2026-12-07), example 48,898,
# 49,264, 49,361 and once 42,048 refaults (bexample 49,171 beside it,
# 16.9 % off: the case failed), while the shares were 598, 596 and 632
# (bexample 586, 589 and 600).  upstream is 6.1's rule, detect's here
# and stock's wherever: nothing on a loop can tell it from a BPF build
# that declined every decision, and the simulator's bpf_twins_decide_alike
# is its decision-by-decision check.
TWIN_LOOPS=4 TWIN_TOL=150 TWIN_NO_SHADOW="baseline protect"
declare -A TWIN_TOLS=([regret]=255)
declare -A TWIN_FIGURES=([example]="activated_share")
declare -A DETECT=()
AGAIN=() TWIN_AGAIN=0
twins() { # twins LOOPS NAME...: the loop in cgroups twinNAME at once
	local loops=$1 n pids=()
	shift
	for n; do
		(echo $BASHPID >"$CG/twin$n/cgroup.procs" &&
			exec aws-loop --size 48M --loops "$loops" >/dev/null 2>&1) &
		pids+=($!)
	done
	wait "${pids[@]}"	# not the loaders
}
# twin_figure CGROUP K: memory.stat's K, or activated_share: the
# activations per mille of the refaults
twin_figure() {
	local r a
	[ "$2" = activated_share ] || { cg_stat "$1" "$2"; return; }
	r=$(cg_stat "$1" workingset_refault_anon) a=$(cg_stat "$1" workingset_activate_anon)
	echo $((r > 0 ? a * 1000 / r : 0))
}
# twin_verdict X I: the case of policy X, run in cgroups twincI, twinbI
twin_verdict() {
	local x=$1 i=$2 k c b d tol db dd bad='' line='' apart=no ran=''
	for k in ${TWIN_FIGURES[$x]:-workingset_refault_anon}; do
		c=$(twin_figure "twinc$i" "$k") b=$(twin_figure "twinb$i" "$k") d=${DETECT[$k]}
		tol=$((c * ${TWIN_TOLS[$x]:-$TWIN_TOL} / 1000)) db=$((b - c)) dd=$((d - c))
		line+=" ${k#workingset_}: $x $c, b$x $b, detect $d (within $tol);"
		[ "${db#-}" -le "$tol" ] || bad+=" ${k#workingset_}: b$x off by $db;"
		[ "${dd#-}" -le "$tol" ] || apart=yes
	done
	[ "$(cg_policy "twinb$i")" = "b$x" ] || ran=" the cgroup ran $(cg_policy "twinb$i");"
	[ $apart = yes ] || [ "$x" = upstream ] || bad+=" detect within the tolerance;"
	if [ -n "$bad" ] && [ -z "$ran" ] && [ "$TWIN_AGAIN" = 0 ]; then
		AGAIN+=("$x")
		diag "b${x}_within_spread_of_$x: read again, after$bad$line"
		return
	fi
	bad+=$ran
	if [ -z "$bad" ]; then
		ok "b${x}_within_spread_of_$x #$line"
	else
		fail "b${x}_within_spread_of_$x" "$bad$line"
	fi
}
# twin_round LOOPS WITH_DETECT X...: X's pairs (one or two) at once
twin_round() {
	local loops=$1 with_detect=$2 i k x n run=() live=()
	shift 2
	local round=("$@")
	[ "$with_detect" = 0 ] || run+=(d)
	for i in "${!round[@]}"; do run+=("c$i" "b$i"); done
	for n in "${run[@]}"; do mkdir "$CG/twin$n" && echo 32M >"$CG/twin$n/memory.max"; done
	[ "$with_detect" = 0 ] || echo detect >$CG/twind/memory.anon_ws_policy
	for i in "${!round[@]}"; do
		x=${round[$i]}
		echo "$x" >"$CG/twinc$i/memory.anon_ws_policy"
		if bpf_attach "tw$i" "b$x.bpf.o" -c "$CG/twinb$i"; then
			live+=("$i")
		else
			fail "b${x}_within_spread_of_$x" "b$x did not attach: $(tail -n 3 "/tmp/bpf-tw$i.out" | xargs)"
		fi
	done
	twins "$loops" "${run[@]}"
	memcg_stats_flushed
	if [ "$with_detect" = 1 ]; then
		for k in workingset_refault_anon activated_share; do
			DETECT[$k]=$(twin_figure twind "$k")
		done
	fi
	for i in "${live[@]}"; do
		twin_verdict "${round[$i]}" "$i"
		bpf_stop "tw$i" TERM
		gone "b${round[$i]}" || diag "b${round[$i]} still listed after its loader stopped"
	done
	for n in "${run[@]}"; do rmdir "$CG/twin$n"; done
}
read -ra SHARED <"$AWS_BPF/shared.list" || bail twins "no shared.list on the tools disk"
todo=() quiet=()
for x in "${SHARED[@]}"; do
	case " detect $TWIN_NO_SHADOW " in	# detect is the reference
	*" $x "*) [ "$x" = detect ] || quiet+=("$x") ;;
	*) todo+=("$x") ;;
	esac
done
# The first policy's pair with detect, then two pairs a round, then the
# policies that leave no shadow.
twin_round $TWIN_LOOPS 1 "${todo[0]}"
for ((j = 1; j < ${#todo[@]}; j += 2)); do
	twin_round $TWIN_LOOPS 0 "${todo[@]:$j:2}"
done
for ((j = 0; j < ${#quiet[@]}; j += 2)); do
	twin_round 2 0 "${quiet[@]:$j:2}"
done
# The pairs to read again (twin_verdict), with detect beside them.
TWIN_AGAIN=1
for ((j = 0; j < ${#AGAIN[@]}; j += 2)); do
	twin_round $TWIN_LOOPS 1 "${AGAIN[@]:$j:2}"
done

# --- two copies of one object, each with its own settings ----------------------
# bexample.bpf.o attached twice at once: as itself (one long refault in
# long_every = 2 admitted) in one cgroup, and as bex3 with long_every=3
# (aws-bpf-load -n bex3 -s long_every=3) in a sibling, each looping over
# COPIES_LOOP in its LIMIT at once.
# bexample's rule, refault by refault (every_other_rule, lib-trace.sh):
# within the workingset (distance <= active anon) it is detect and
# activates every refault; beyond it, detect admits none and bexample
# every other one per lruvec, counted in its state.  Catches a bexample
# that refuses short refaults (its refault program, or the module
# handing it wrong distances or sizes), whose workingset is not active
# anon, or whose state does not count.
# The copies: each must admit one long refault in its own long_every,
# give or take one per lruvec (each counts in its own state), with more
# than 100 long ones each, activate every short one, with some short
# ones each, and name only its own cgroup's memcg.  Catches a loader
# whose -n or -s does not reach the kernel (the second attach refused
# with EEXIST, or every other one admitted by both) and copies that
# share their settings or their state.
# The loop is 40M, read 3 times: its second read refaults long (active
# anon is empty until the admitted ones fill it), and once admitted ones
# make active anon longer than the loop's excess over memory, its
# refaults are short.  Measured on 6.12 (2026-12-07, this window alone
# run 3 times in one guest): 4,423-11,467 short refaults and 5,327-6,839
# long ones per copy (at 42M, 3 more runs: 6,874-13,774 and 7,946-10,287).
# Until then the copies ran the thrash (THRASH), whose only short
# refaults are hot-2's, at a distance near the length of active anon:
# 1-1,549 short ones for bexample in 6 runs, and 0 in a clean clone's
# CI run, which failed the case.
COPIES_LOOP=(aws-loop --size 40M --loops 3)
mkdir $CG/bpfc1 $CG/bpfc2
echo $LIMIT >$CG/bpfc1/memory.max
echo $LIMIT >$CG/bpfc2/memory.max
copies() {
	local a
	(echo $BASHPID >$CG/bpfc1/cgroup.procs && exec "${COPIES_LOOP[@]}" >/dev/null 2>&1) &
	a=$!
	(echo $BASHPID >$CG/bpfc2/cgroup.procs && exec "${COPIES_LOOP[@]}" >/dev/null 2>&1) &
	wait $a $!
}
if bpf_attach bc2 bexample.bpf.o -c $CG/bpfc1 &&
	bpf_attach bc3 bexample.bpf.o -n bex3 -s long_every=3 -c $CG/bpfc2; then
	record_window copies || diag "trace-cmd start or the summary failed"
	every_other_rule bexample shared
	bad='' line=''
	for pn in bexample:2 bex3:3; do
		p=${pn%:*} n=${pn#*:}
		long=${E[long_$p]:-0} in=${E[long_in_$p]:-0}
		why=$(admits_one_in "$p" "$n" 1)
		[ -z "$why" ] || bad+=" $p: $why;"
		if [ "${E[short_out_$p]:-0}" != 0 ] || [ "${E[short_$p]:-0}" = 0 ]; then
			bad+=" $p: ${E[short_out_$p]:-0} of ${E[short_$p]:-0} short ones not activated;"
		fi
		line+=" $p $in of $long (${E[short_$p]:-0} short);"
	done
	[ "$LOST" = 0 ] || bad+=" $LOST events lost;"
	if [ -z "$bad" ]; then
		ok "copies_keep_their_settings # long refaults admitted:$line one in 2 and one in 3"
	else
		fail copies_keep_their_settings "$bad"
	fi
else
	for c in bexample_activates_every_short_refault bexample_admits_every_other_long_refault \
		copies_keep_their_settings; do
		fail $c "not both attached: $(tail -n 2 /tmp/bpf-bc2.out /tmp/bpf-bc3.out | xargs)"
	done
fi
for l in bc2 bc3; do [ -z "${BPF_LOADER[$l]:-}" ] || bpf_stop $l TERM; done
{ gone bexample && gone bex3; } || diag "a copy still listed after its loader stopped"
rmdir $CG/bpfc1 $CG/bpfc2
# --- an update in place -------------------------------------------------------
# On SIGHUP the loader loads its object again, as the file is then, with
# its -u settings on top, and replaces the attached program through the
# link (BPF_LINK_UPDATE, the module's aws_bpf_update()).  bexample in a
# cgroup admits one long refault in 2; after an update with -u
# long_every=3, one in 3 (admits_one_in), and the cgroup still runs
# bexample with no policy switch counted: an update sweeps nothing.
# Catches a module without .update (the kernel refuses every update), a
# loader that attaches anew instead (a switch counted) or that loses the
# setting.
mkdir $CG/bpfu
echo $LIMIT >$CG/bpfu/memory.max
cp "$AWS_BPF/bexample.bpf.o" /tmp/bpfu.bpf.o
updated() { (echo $BASHPID >$CG/bpfu/cgroup.procs && exec "${THRASH[@]}" >/dev/null 2>&1); }
if bpf_attach bu /tmp/bpfu.bpf.o -c $CG/bpfu -u long_every=3; then
	sw0=$(aws_stat switches)
	record_window updated || diag "trace-cmd start or the summary failed"
	why=$(admits_one_in bexample 2 1) lost=$LOST
	line="${E[long_in_bexample]:-0} of ${E[long_bexample]:-0}"
	up=no
	bpf_update bu && up=yes
	record_window updated || diag "trace-cmd start or the summary failed"
	why+=$(admits_one_in bexample 3 1)
	line+=", then ${E[long_in_bexample]:-0} of ${E[long_bexample]:-0}"
	sw=$(($(aws_stat switches) - sw0))
	if [ $up = yes ] && [ -z "$why" ] && [ "$sw" = 0 ] && [ "$(cg_policy bpfu)" = bexample ] &&
		[ "$lost$LOST" = 00 ]; then
		ok "update_replaces_in_place # long refaults admitted $line; the cgroup on bexample, no switch"
	else
		fail update_replaces_in_place "updated: $up, $why, $sw switches, cgroup $(cg_policy bpfu)," \
			"$lost/$LOST events lost: $(tail -n 3 /tmp/bpf-bu.out | xargs)"
	fi
	bpf_stop bu TERM
	gone bexample || diag "bexample still listed after its loader stopped"
else
	fail update_replaces_in_place "it did not attach: $(tail -n 3 /tmp/bpf-bu.out | xargs)"
fi
rmdir $CG/bpfu
# An update to a program of another shape: refused-good (evict and
# refault, 8 bytes of state) attached, then its file replaced by bdetect's
# (six members, no state), loaded under the same name (-n refused).  The
# module refuses it, with its reason on the loader's terminal, and the
# policy stays listed.  Catches a module that would swap in programs its
# slot's thunks do not match.
cp "$AWS_BPF/refused-good.bpf.o" /tmp/bpfr.bpf.o
if bpf_attach br /tmp/bpfr.bpf.o -n refused; then
	cp "$AWS_BPF/bdetect.bpf.o" /tmp/bpfr.bpf.o
	if ! bpf_update br && grep -q '^not updated refused$' /tmp/bpf-br.out &&
		grep -q 'the module said: BPF policy refused: an update must keep' /tmp/bpf-br.out && listed refused; then
		ok "update_refused_keeps_program # $(grep -m1 'an update must keep' /tmp/bpf-br.out | sed 's/.*said: //')"
	else
		fail update_refused_keeps_program "$(tail -n 3 /tmp/bpf-br.out | xargs)"
	fi
	bpf_stop br TERM
	gone refused || diag "refused still listed after its loader stopped"
else
	fail update_refused_keeps_program "it did not attach: $(tail -n 3 /tmp/bpf-br.out | xargs)"
fi

# The loader refuses, before loading anything and with exit status 2, a
# setting the object has no const volatile integer for (naming those it
# has), a value that is not a number, an update setting (-u) that is not
# VAR=N (checked at the start, not at the first SIGHUP), a name longer
# than the room for one, and a -c that is not a cgroup2 directory; the
# module refuses the attach of a link whose cgroup is the root (which has
# no policy file), and the loader says why (exit status 1).
bad=''
for a in "-s nosuch=1:there are: long_every" "-s long_every=x:not VAR=N" "-u long_every:-u long_every: not VAR=N" \
	"-n muchlongername16:at most 15" \
	"-c /tmp:not a cgroup2 directory"; do
	# shellcheck disable=SC2086 # the options, split on purpose
	"$LOAD" ${a%%:*} "$AWS_BPF/bexample.bpf.o" >/tmp/bpf-bad.out 2>&1
	rc=$?
	{ [ $rc = 2 ] && grep -q -- "${a#*:}" /tmp/bpf-bad.out; } ||
		bad+=" '${a%%:*}': exit $rc, $(head -n 1 /tmp/bpf-bad.out);"
done
"$LOAD" -c $CG "$AWS_BPF/bexample.bpf.o" >/tmp/bpf-bad.out 2>&1
rc=$?
{ [ $rc = 1 ] && grep -q 'the module said: .*no memory cgroup below the root' /tmp/bpf-bad.out; } ||
	bad+=" '-c $CG': exit $rc, $(tail -n 1 /tmp/bpf-bad.out);"
if [ -z "$bad" ] && ! listed bexample; then
	ok "loader_refuses_bad_settings # an unknown variable, a value, an update setting, a long name, not a cgroup: exit 2; the root cgroup: the module's why, exit 1"
else
	fail loader_refuses_bad_settings "${bad:- bexample listed}"
fi

# --- the loader dies ---------------------------------------------------------
# A sibling under detect holds shadows through it: a 32M loop in 16M,
# stopped once 16M of it is in swap.  The detach must sweep bdetect's
# shadows and leave the sibling's, which its own switch afterwards finds
# (a sweep of every shadow at the detach would leave it none; the cgroups
# suite's cgroup_switch_sweeps_its_own found about half the pages in swap
# to be shadows, 4,077-4,160 of 8,218-8,222).
mkdir $CG/bpfk $CG/bpfs
echo 16M >$CG/bpfs/memory.max
echo detect >$CG/bpfs/memory.anon_ws_policy
(echo $BASHPID >$CG/bpfs/cgroup.procs && exec aws-loop --size 32M --loops 100 >/dev/null 2>&1) &
sib=$!
cg_wait_swapped bpfs 4096 || diag "bpfs: $(cg_swapped bpfs) pages in swap after 60 s"
kill -STOP $sib
echo $LIMIT >$CG/bpfk/memory.max
echo protect >$CG/bpfk/memory.anon_ws_policy
bpf_attach bk bdetect.bpf.o -c $CG/bpfk || diag "bdetect: $(cat /tmp/bpf-bk.out)"
before=$(cg_policy bpfk)
old0=$(aws_stat refaults_old_epoch)
t0=$(bpf_ms)
(echo $BASHPID >$CG/bpfk/cgroup.procs && exec aws-thrash --cold 64M --hot1 20M --cold-slice 24M \
	--hot2 6M --rounds 2 >/tmp/bk.out 2>&1) &
wl=$!
# The loader is killed mid-run: once the workload has 8M in swap, all
# evicted under bdetect.  Measured (3 runs): 4,447, 4,651 and 8,929 pages
# in swap at the kill (the 0.1 s poll overshoots), 262-317 ms into the
# workload (60 s bound); the detach then swept 4,300, 4,832 and 5,400
# shadows, and 15,411, 13,877 and 13,179 pages were swapped in after it.
# The floor: at least the 8M (2,048 pages) the kill waits for swapped in
# after it (6.4 times that measured at the least), so bdetect's shadows
# are refaulted on, and a sweep that missed them would count them in
# refaults_old_epoch.
cg_wait_swapped bpfk 2048
sw=$(cg_swapped bpfk)
diag "killing the loader with $sw pages of bpfk in swap, $(($(bpf_ms) - t0)) ms into the workload"
dmesg_mark
bpf_stop bk KILL
gone bdetect
after=$(cg_policy bpfk)
in1=$(vmstat pswpin)
wait $wl
wrc=$?
in=$(($(vmstat pswpin) - in1))
old=$(($(aws_stat refaults_old_epoch) - old0))
swept=$(dmesg_since | sed -n 's/.*BPF policy bdetect detached, global policy [a-z0-9_]*, \([0-9]*\) shadows dropped.*/\1/p' | tail -n 1)
echo protect >$CG/bpfs/memory.anon_ws_policy
kept=$(aws_stat last_sweep_shadows)
kill $sib
kill -CONT $sib
wait $sib
diag "after the kill: $in pages swapped in, ${swept:-no} shadows swept at the detach, the sibling's $kept after"
if [ "$before" = bdetect ] && [ "$after" = protect ] && ! listed bdetect && [ $wrc = 0 ] &&
	[ "$old" = 0 ] && [ "${swept:-0}" -gt 0 ] && [ "$in" -ge $((8 << 20 >> 12)) ] && [ "$kept" -gt 1024 ]; then
	ok "sigkill_hands_cgroup_back # bdetect -> $after, $swept shadows swept, then $in swap-ins, old-epoch refaults $old; the sibling's $kept kept"
else
	fail sigkill_hands_cgroup_back "cgroup $before -> $after, listed: $(listed bdetect && echo yes || echo no)," \
		"workload exit $wrc, ${swept:-no detach message,} shadows swept, $in swap-ins after (floor 2048)," \
		"old-epoch refaults $old, the sibling's shadows $kept (want above 1024)"
fi
rmdir $CG/bpfk $CG/bpfs

# The global policy, and rmmod while attached.  The module is idle first
# (bk's maps freed: 9, 12 and 11 ms after the kill measured, bound 10 s), so
# what holds it at the rmmod is the attach.
set_policy detect
bpf_module_idle ||
	bail module_idle "refcnt $(cat /sys/module/anon_workingset/refcnt) $BPF_IDLE_MS ms after bk's loader was killed"
diag "module idle $BPF_IDLE_MS ms after bk's loader was killed"
bpf_attach bg bdetect.bpf.o -g || diag "bdetect: $(cat /tmp/bpf-bg.out)"
g=$(get_policy) ref=$(cat /sys/module/anon_workingset/refcnt)
if rmmod anon_workingset 2>/tmp/rmmod.err; then
	fail rmmod_refused_while_attached "rmmod succeeded with $g the global policy (refcnt was $ref)"
	insmod "$AWS_MOD" policy=detect bpf_budget_ms=$BPF_BUDGET_MS
elif [ "$g" = bdetect ] && grep -qE 'in use|Resource temporarily unavailable' /tmp/rmmod.err; then
	ok "rmmod_refused_while_attached # refcnt 0, then $ref with bdetect attached: $(cat /tmp/rmmod.err)"
else
	fail rmmod_refused_while_attached "global $g, refcnt $ref: $(cat /tmp/rmmod.err)"
fi
bpf_stop bg TERM
rc=$?
if [ "$g" = bdetect ] && [ $rc = 0 ] && gone bdetect && [ "$(get_policy)" = detect ] &&
	grep -q '^detached bdetect' /tmp/bpf-bg.out; then
	ok "sigterm_hands_global_back # bdetect -> $(get_policy), loader exit $rc"
else
	fail sigterm_hands_global_back "global $g -> $(get_policy), loader exit $rc: $(tail -n 1 /tmp/bpf-bg.out)"
fi

# --- refusals ------------------------------------------------------------------
# refused CASE TEXT: the loader of refused-CASE.bpf.o fails, its output or
# the kernel log says TEXT, and the running policy and list are unchanged.
# Every TEXT is the module's (aws_bpf.c), but null_state's, the verifier's
# on a NULL check the module's state__nullable stub asks for.
# Not here: programs the kernel's verifier refuses whatever the module
# does, which test the kernel, not the module (built still, loaded by
# nothing): var_offset (check_ptr_to_btf_access refuses a variable
# offset into a BTF pointer before any module callback), loop (the
# verifier's infinite-loop detection, for any program) and oob_read.
# oob_read's bound is btf_struct_walk's over the state's BTF type (the
# module's btf_struct_access sees writes only), and no module change
# makes it load: the program is compiled against the module's own BTF
# dump (build-bpf.sh), so its read at sizeof(*state) moves with any
# declared size; the module allocates sizeof(struct aws_bpf_state) per
# slot, the type its BTF declares (aws_bpf_btf_init refuses a mismatch);
# and a wrong type for the state argument would refuse bexample's state
# write, which bexample's cases catch.
REFUSED_MAX_MS=0
refused() {
	local case=$1 text=$2 list rc said t0 ms
	list=$(cat "$AWS_PARAMS/policy")
	dmesg -C
	t0=$(bpf_ms)
	# a loader the module wrongly accepts stays attached: 30 s, then
	# killed (the longest refused loader measured: 59, 65 and 74 ms)
	timeout 30 "$LOAD" "$AWS_BPF/refused-$case.bpf.o" >"/tmp/refused-$case.out" 2>&1
	rc=$?
	ms=$(($(bpf_ms) - t0))
	[ "$ms" -le "$REFUSED_MAX_MS" ] || REFUSED_MAX_MS=$ms
	# the reason on the loader's terminal: the verifier's log, or the
	# module's message that the loader reads back from the kernel log
	said=$(grep -m1 -F -- "$text" "/tmp/refused-$case.out")
	if [ $rc = 1 ] && [ -n "$said" ] && [ "$(cat "$AWS_PARAMS/policy")" = "$list" ]; then
		ok "refused_$case # ${said:0:150}"
	else
		fail "refused_$case" "loader exit $rc, wanted '$text': $(grep -v '^[0-9]*: ' "/tmp/refused-$case.out" | tail -n 3 | xargs)"
	fi
}
# The control: the same program without its fault attaches and detaches.
{ bpf_attach good refused-good.bpf.o && listed refused && bpf_stop good TERM && gone refused; } ||
	bail refused_control_attaches "refused-good: $(cat /tmp/bpf-good.out)"
refused oob_write "write beyond aws_bpf_state.words"
refused null_state "invalid mem access 'trusted_ptr_or_null_'"
refused ro_write "only aws_refault.workingset_size, .quiet and aws_bpf_state.words are writable"
refused sleepable "sleepable programs are refused"
refused legacy "attach it with a link"
refused bad_name "a BPF policy's name must be"
refused bad_clock "clock 3 is none of AWS_CLOCK_NONE, _ANON, _SHARED"
refused big_state "state_size 513, at most 512"
refused no_decision "takes no decision (that is stock)"
refused no_judge "stamps shadows (evict, a clock) but judges no refault"
# Every slot taken: four policies of four names fill the module's four
# BPF slots; a fifth is refused, and gets a slot once one is free.
n=0
for p in bdetect bexample refused-good refused-extra1; do
	bpf_attach "slot$n" "$p.bpf.o" && n=$((n + 1))
done
if [ $n = 4 ]; then
	refused extra2 "all 4 BPF policy slots are taken"
else
	fail refused_extra2 "only $n of the 4 fillers attached: $(tail -q -n 1 /tmp/bpf-slot*.out | xargs)"
fi
bpf_stop slot3 TERM
if gone extra1 && bpf_attach slot4 refused-extra2.bpf.o && listed extra2; then
	ok "freed_slot_taken_again # extra2 attached once extra1 left"
else
	fail freed_slot_taken_again "$(cat /tmp/bpf-slot4.out)"
fi
for i in 0 1 2 4; do [ -z "${BPF_LOADER[slot$i]:-}" ] || bpf_stop "slot$i" TERM; done

trace-cmd reset >/dev/null 2>&1
echo $$ >$CG/cgroup.procs
rmdir $CG/bpfctl
# The end: a loader killed with its policy global, and the module, held by
# nothing else, is idle within bpf_module_idle's 10 s (10, 12 and 11 ms
# measured) and
# unloads.  A detached policy that kept the module longer fails here.
bpf_module_idle || diag "module still held $BPF_IDLE_MS ms after the slot fillers stopped"
bpf_attach last bdetect.bpf.o -g || diag "bdetect: $(cat /tmp/bpf-last.out)"
g=$(get_policy)
bpf_stop last KILL
rm -f /tmp/rmmod-last.err
if [ "$g" = bdetect ] && bpf_module_idle && rmmod anon_workingset 2>/tmp/rmmod-last.err &&
	! lsmod | grep -q '^anon_workingset '; then
	ok "module_unloads_after_detach # global bdetect's loader killed, idle after $BPF_IDLE_MS ms (<= 10 s), rmmod went"
else
	fail module_unloads_after_detach "global $g, idle after $BPF_IDLE_MS ms," \
		"refcnt $(cat /sys/module/anon_workingset/refcnt 2>/dev/null || echo gone): $(cat /tmp/rmmod-last.err 2>/dev/null)"
fi
# The budget is a load parameter: a value out of 1..60000 ms refuses the
# load, with the range in dmesg, rather than running without a way out.
lsmod | grep -q '^anon_workingset ' && rmmod anon_workingset
dmesg_mark
if insmod "$AWS_MOD" bpf_budget_ms=0 2>/dev/null; then
	fail bad_budget_refused "insmod bpf_budget_ms=0 loaded"
	rmmod anon_workingset
elif new_dmesg 'bpf_budget_ms=0: 1 to 60000 ms' && ! lsmod | grep -q '^anon_workingset '; then
	ok "bad_budget_refused # $(dmesg_since | grep -m1 -o 'bpf_budget_ms=0: .*')"
else
	fail bad_budget_refused "insmod failed without the range in dmesg: $(dmesg_since | tail -n 2 | xargs)"
fi
# Measured (3 runs): attach 258, 302 and 390 ms, leaving the list 20, 50
# and 48 ms, module idle 10, 12 and 12 ms, refused loader 59, 65 and 74 ms.
diag "longest waits: attach $BPF_ATTACH_MAX_MS ms (bound 30 s), leaving the list $GONE_MAX_MS ms (10 s)," \
	"module idle $BPF_IDLE_MAX_MS ms (10 s), refused loader $REFUSED_MAX_MS ms (timeout 30 s)"
ktap_end
