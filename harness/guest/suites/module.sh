#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module suite: anon_workingset.ko loads with its defaults, every policy and
# ratio value round-trips through sysfs, /proc/anon_workingset has the
# documented format and permissions, counters reset, and the module unloads
# cleanly (hooks unregistered, proc file gone).
. "$AWS_TOOLS/guest/lib.sh"

mod_unload
dmesg_mark
insmod "$AWS_MOD" || bail insmod "insmod $AWS_MOD failed"
expect default_policy policy "$(get_policy)" = detect
expect default_ratio ratio "$(cat $AWS_PARAMS/ratio)" = auto
check load_message new_dmesg "anon_workingset: policy detect"
expect proc_mode mode "$(stat -c %a /proc/anon_workingset)" = 600

# Format: "key value", one per line, keys [a-z0-9_], values numbers except
# policy and ratio (docs/proc-anon_workingset.md).
bad=$(awk 'NF != 2 || $1 !~ /^[a-z0-9_]+$/ ||
	($1 != "policy" && $1 != "ratio" && $2 !~ /^[0-9]+$/)' /proc/anon_workingset)
check proc_format test -z "$bad"
# The keys are exactly the documented ones (the reference page's table, on
# the tools disk), node N being 0 here, K -8..8, and P every registered
# policy with a private anon clock: a key renamed, dropped, added without
# its documentation, or documented and not printed fails.
doc_keys() {
	local k
	for k in $(sed -n '/^## `\/proc\/anon_workingset`/,$s/^| `\([a-zA-Z0-9_]*\)`.*/\1/p' \
		"$AWS_TOOLS/proc-anon_workingset.md"); do
		case $k in
		key) ;;
		nodeN_anon_age_P) ;;
		refault_dist_log2_mK)
			for i in 8 7 6 5 4 3 2 1; do echo "refault_dist_log2_m$i"; done
			for i in 0 1 2 3 4 5 6 7 8; do echo "refault_dist_log2_p$i"; done ;;
		nodeN_*) echo "node0_${k#nodeN_}" ;;
		*) echo "$k" ;;
		esac
	done
}
got=$(awk '$1 !~ /^node0_anon_age_/ { print $1 }' /proc/anon_workingset | sort)
want=$(doc_keys | sort)
clocked=$(awk '$1 ~ /^node0_anon_age_/ { sub(/^node0_anon_age_/, "", $1); print $1 }' /proc/anon_workingset)
unknown=$(comm -23 <(sort <<<"$clocked") <(tr ' ' '\n' <"$AWS_TOOLS/policies" | sort))
if [ "$got" = "$want" ] && [ -z "$unknown" ] && grep -qx detect <<<"$clocked"; then
	ok "proc_keys_documented # $(wc -l <<<"$got") keys, private clocks of: $(xargs <<<"$clocked")"
else
	fail proc_keys_documented "printed, not documented: $(comm -23 <(echo "$got") <(echo "$want") | xargs);" \
		"documented, not printed: $(comm -13 <(echo "$got") <(echo "$want") | xargs);" \
		"clocks of unknown policies: $(xargs <<<"$unknown")"
fi
# 63 value bits - 1 workingset - 10 node - 16 memcg = 36, less the 8-bit
# tag (kind, switch epoch, stamping policy) at the top; a guest far below
# 2^36 pages drops no clock bits
if [ "$(aws_stat eviction_bits)/$(aws_stat bucket_order)" = 28/0 ]; then
	ok "shadow_layout # eviction_bits 28, bucket_order 0"
else
	fail shadow_layout "eviction_bits $(aws_stat eviction_bits), bucket_order $(aws_stat bucket_order) (want 28, 0)"
fi
expect hooks_live live "$(aws_stat hooks_live)" -eq 1

# The parameter lists the registry, the running policy in brackets (as
# THP's "enabled" file does): exactly one bracketed word, the others bare.
# The words are the registry's (include/aws_policy_list.h, on the tools
# disk), in its order.
list=$(cat "$AWS_PARAMS/policy")
if [[ $list =~ ^([a-z0-9_]+ )*\[[a-z0-9_]+\]( [a-z0-9_]+)*$ ]] &&
	[ "$(tr -d '[]' <<<"$list")" = "$(cat "$AWS_TOOLS/policies")" ]; then
	ok "policy_list_format # $list"
else
	fail policy_list_format "read '$list'"
fi
# Every policy in turn, then back to the default: each write that changes
# the policy is one switch with its sweep.
bad='' n=0 cur=detect
for p in $(aws_policies) detect; do
	set_policy "$p" || bad+=" $p:write"
	[ "$p" = "$cur" ] || n=$((n + 1))
	cur=$p
	# the parameter and /proc must both name it
	[ "$(get_policy)/$(aws_stat policy)" = "$p/$p" ] || bad+=" $p:$(get_policy)/$(aws_stat policy)"
done
check policy_set_each test -z "$bad"
[ -z "$bad" ] || diag "policy_set_each:$bad"
sw=$(aws_stat switches) swp=$(aws_stat sweeps)
if [ "$sw" = "$n" ] && [ "$swp" = $((n + 1)) ]; then
	ok "switch_and_sweep_per_change # $n changes: switches $sw, sweeps $swp (the load's and one each)"
else
	fail switch_and_sweep_per_change "$n changes: switches $sw (want $n), sweeps $swp (want $((n + 1)))"
fi
# without a newline (hostile.sh writes them with one)
for r in 1 3 1024 auto; do
	printf '%s' "$r" >"$AWS_PARAMS/ratio"
	expect "ratio_set_$r" ratio "$(cat $AWS_PARAMS/ratio)" = "$r"
done

# Placements are counted in pages: under detect every new anon page starts
# inactive, so while a 16M zipf set is resident in a cgroup with no limit
# (nothing swapped), placed_inactive has grown by at least that cgroup's
# anon pages and placed_active not at all.  A counter that counts folios,
# misses a path or counts the wrong list fails.
CNT=/sys/fs/cgroup/awscount
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p $CNT
pi0=$(aws_stat placed_inactive) pa0=$(aws_stat placed_active)
(echo $BASHPID >$CNT/cgroup.procs && exec aws-zipf --size 16M --seconds 60 --alpha 0.6) \
	>/dev/null 2>&1 &
zp=$!
for _ in $(seq 1 150); do
	[ "$(cg_stat awscount anon)" -ge $((16 << 20)) ] && break
	sleep 0.2
done
cnt_pages=$(($(cg_stat awscount anon) / 4096))
pi=$(($(aws_stat placed_inactive) - pi0)) pa=$(($(aws_stat placed_active) - pa0))
cg_stop awscount
wait $zp
rmdir $CNT
if [ "$cnt_pages" -ge 4096 ] && [ "$pi" -ge "$cnt_pages" ] && [ "$pa" = 0 ]; then
	ok "counters_count_pages # placed_inactive +$pi >= $cnt_pages resident, placed_active +$pa"
else
	fail counters_count_pages "placed_inactive +$pi, placed_active +$pa, resident anon $cnt_pages pages (want >= 4096, <= placed_inactive, active 0)"
fi
# Per-memcg-id tables are allocated as ids get used (module/aws_table.c),
# not for all 65,535 ids at insmod (about 21 MiB of vmalloc per node until
# f829fa7).  At this point only detect has run, and only in a few cgroups:
# what the module holds is its chunk directories and a few chunks, well
# under 256 KiB, and none of it is vmalloc beyond what table_bytes counts.
# Then regret, which nothing ran yet, reclaims in a cgroup of its own: its
# state (and its clocks) must appear, so table_bytes grows, by less than
# 1 MiB, with no allocation failed.  A module that allocates at load, or
# never allocates a policy's state, fails.  A chunk holds as many ids as
# fit a page (32 of regret's 72-byte states), and the policy loop above
# may have had regret's hooks fill the chunk of the low ids: 64 empty
# cgroups first take the next ids, so that this one's id falls in a chunk
# no hook has needed.  (With hold2's 192-byte state, 16 ids a chunk, the
# case passed without them; with regret's it once saw no growth.)
vmalloc_mod() {
	awk '/\[anon_workingset\]/ { s += $2 } END { print s + 0 }' /proc/vmallocinfo
}
tb0=$(aws_stat table_bytes) vm0=$(vmalloc_mod)
TBL=/sys/fs/cgroup/awstable
mkdir $TBL-pad{1..64}
mkdir -p $TBL && echo 8M >$TBL/memory.max && echo regret >$TBL/memory.anon_ws_policy ||
	bail tables_grow_on_demand "cannot make cgroup awstable with policy regret"
(echo $BASHPID >$TBL/cgroup.procs && exec aws-zipf --size 16M --seconds 5 --alpha 0.6) \
	>/dev/null 2>&1
ev=$(cg_stat awstable workingset_refault_anon)
rmdir $TBL $TBL-pad{1..64}
tb1=$(aws_stat table_bytes) fails=$(aws_stat table_alloc_failed)
if [ "$tb0" -gt 0 ] && [ "$tb0" -lt $((256 << 10)) ] && [ "$vm0" -le "$tb0" ] &&
	[ "${ev:-0}" -gt 0 ] && [ "$tb1" -gt "$tb0" ] && [ "$tb1" -lt $((1 << 20)) ] &&
	[ "$fails" = 0 ]; then
	ok "tables_grow_on_demand # table_bytes $tb0 after detect ($vm0 of it vmalloc), $tb1 after regret reclaimed ($ev refaults)"
else
	fail tables_grow_on_demand "table_bytes $tb0 (want 1..256 KiB, vmalloc $vm0 <= it), then $tb1 after regret in 8M (want more, < 1 MiB; refaults $ev), $fails failed"
fi
# The reset write and its effect are one case (reset_write, a check that
# the write returned success, was folded in: alone it passed a handler
# that accepted the write and reset nothing).  Catches a reset that is
# refused, or accepted and ignored: switches was $n > 0 just above
# (switches_counted), so it must go from there to 0.
sw0=$(aws_stat switches)
wrc=0
(echo reset >/proc/anon_workingset) 2>/dev/null || wrc=$?
sw1=$(aws_stat switches)
if [ "$wrc" = 0 ] && [ "$sw0" -gt 0 ] && [ "$sw1" = 0 ]; then
	ok "reset_zeroes_switches # 'reset' written, switches $sw0 -> $sw1"
else
	fail reset_zeroes_switches "write exit status $wrc, switches $sw0 -> $sw1 (wanted > 0 -> 0)"
fi
# per-CPU counters: the reset is a new zero, a quiet system adds little
expect reset_zeroes_counters placed_inactive "$(aws_stat placed_inactive)" -lt 500

dmesg_mark
rmmod anon_workingset || bail rmmod "rmmod failed"
check proc_gone test ! -e /proc/anon_workingset
check unload_message new_dmesg "anon_workingset: unloaded"
insmod "$AWS_MOD" policy=baseline ratio=1 || bail params_at_load "insmod policy=baseline ratio=1 failed"
if [ "$(get_policy)/$(cat $AWS_PARAMS/ratio)" = baseline/1 ]; then
	ok "params_at_load # policy=baseline ratio=1"
else
	fail params_at_load "read $(get_policy)/$(cat $AWS_PARAMS/ratio), wanted baseline/1"
fi
rmmod anon_workingset || bail rmmod_again "rmmod failed"
if insmod "$AWS_MOD" policy=bogus 2>/dev/null; then
	fail insmod_rejects_bad_policy "loaded with policy=bogus"
	rmmod anon_workingset
else
	ok insmod_rejects_bad_policy
fi
ktap_end
