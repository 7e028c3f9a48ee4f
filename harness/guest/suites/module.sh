#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module suite: anon_workingset.ko loads with its defaults, every policy and
# ratio value round-trips through sysfs, /proc/anon_workingset has the
# documented format and permissions, counters reset, and the module unloads
# cleanly (hooks unregistered, proc file gone).
. "$AWS_TOOLS/guest/lib.sh"

mod_unload
# new_dmesg PATTERN: a kernel message matching PATTERN since the last mark
# (dmesg_mark), not one an earlier load or unload left.
dmesg_mark() { DMESG0=$(dmesg | wc -l); }
new_dmesg() { dmesg | tail -n +$((DMESG0 + 1)) | grep -q "$1"; }
dmesg_mark
check insmod insmod "$AWS_MOD"
expect default_policy policy "$(get_policy)" = detect
expect default_ratio ratio "$(cat $AWS_PARAMS/ratio)" = auto
check load_message new_dmesg "anon_workingset: policy detect"
expect proc_mode mode "$(stat -c %a /proc/anon_workingset)" = 600

# Format: "key value", one per line, keys [a-z0-9_], values numbers except
# policy and ratio (docs/proc-anon_workingset.md).
bad=$(awk 'NF != 2 || $1 !~ /^[a-z0-9_]+$/ ||
	($1 != "policy" && $1 != "ratio" && $2 !~ /^[0-9]+$/)' /proc/anon_workingset)
check proc_format test -z "$bad"
missing=
for key in version policy ratio hooks_live eviction_bits bucket_order node0_anon_age \
	node0_file_age placed_active placed_inactive swapins swapins_workingset evictions \
	evictions_noshadow refaults refaults_stale activations restores ref_activations \
	swapin_activations shadows_swept refaults_dropped file_refaults_judged quiet_activations \
	active_kept refaults_old_epoch refaults_other_policy state_resets sweeps switches \
	last_sweep_shadows refault_dist_log2_m8 refault_dist_log2_p0 refault_dist_log2_p8 \
	refault_dist_log2_inf; do
	grep -q "^$key " /proc/anon_workingset || missing+=" $key"
done
check proc_keys_present test -z "$missing"
[ -z "$missing" ] || diag "missing keys:$missing"
# 63 value bits - 1 workingset - 10 node - 16 memcg = 36, less the 8-bit
# tag (stamping policy and switch epoch) at the top
expect eviction_bits bits "$(aws_stat eviction_bits)" -eq 28
expect hooks_live live "$(aws_stat hooks_live)" -eq 1

# The parameter lists the registry, the running policy in brackets (as
# THP's "enabled" file does): exactly one bracketed word, the others bare.
list=$(cat "$AWS_PARAMS/policy")
if [[ $list =~ ^([a-z0-9_]+ )*\[detect\]( [a-z0-9_]+)*$ ]] && [ "$(wc -w <<<"$list")" -ge 5 ]; then
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
expect switches_counted switches "$(aws_stat switches)" -eq "$n"
expect sweep_per_switch sweeps "$(aws_stat sweeps)" -eq $((n + 1))
for r in 1 3 1024 auto; do
	echo "$r" >"$AWS_PARAMS/ratio"
	expect "ratio_set_$r" ratio "$(cat $AWS_PARAMS/ratio)" = "$r"
done

# Some placements to count, then a reset.
head -c 8M /dev/zero | tail -c 1 >/dev/null
aws-randw --size 16M --threads 1 --writes 2000 >/dev/null 2>&1
expect counters_count placed_inactive "$(aws_stat placed_inactive)" -gt 2000
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
check rmmod rmmod anon_workingset
check proc_gone test ! -e /proc/anon_workingset
check unload_message new_dmesg "anon_workingset: unloaded"
check insmod_with_params insmod "$AWS_MOD" policy=baseline ratio=1
expect param_policy_at_load policy "$(get_policy)" = baseline
expect param_ratio_at_load ratio "$(cat $AWS_PARAMS/ratio)" = 1
check rmmod_again rmmod anon_workingset
if insmod "$AWS_MOD" policy=bogus 2>/dev/null; then
	fail insmod_rejects_bad_policy "loaded with policy=bogus"
	rmmod anon_workingset
else
	ok insmod_rejects_bad_policy
fi
ktap_end
