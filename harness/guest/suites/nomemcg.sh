#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# For a guest booted with cgroup_disable=memory: shadows carry memcg id 0
# and every lruvec is a node's.  Each policy must still load, swap under
# global pressure with every page verified, and unload; the stock decoder
# must cope with our shadows after unload (workload after rmmod).
. "$AWS_TOOLS/guest/lib.sh"

# The memory controller is really off (not just asked for on the command
# line): cgroup v2 does not offer it.
check memcg_disabled bash -c '! grep -qw memory /sys/fs/cgroup/cgroup.controllers'
mod_unload
insmod "$AWS_MOD" || bail insmod "insmod failed"
for p in detect upstream baseline; do
	set_policy "$p"
	res=$(aws-thrash --cold 0.8x --hot1 0.1x --hot2 0.1x --cold-slice 0.25x --rounds 1 \
		2>/dev/null | grep '^RESULT')
	diag "$p: $res"
	expect "global_swap_verified_$p" verify_fail "$(result_get "$res" verify_fail)" -eq 0
	expect "global_swap_swapped_in_$p" pswpin "$(result_get "$res" pswpin)" -gt 1000
done
expect refaults_seen refaults "$(aws_stat refaults)" -gt 0
# Leave module shadows behind on purpose: a load that keeps running across
# rmmod, then the stock code reads whatever the sweep missed.
aws-thrash --cold 0.8x --hot1 0.1x --hot2 0.1x --cold-slice 0.25x --rounds 2 >/tmp/across.out 2>&1 &
sleep 5
check rmmod_under_load rmmod anon_workingset
wait $!
res=$(grep '^RESULT' /tmp/across.out)
diag "$res"
# Verified, and it swapped in (stock code reading what the sweep left).
if [ "$(result_get "$res" verify_fail)" = 0 ] && [ "$(result_get "$res" pswpin)" -gt 0 ]; then
	ok "verified_across_unload # verify_fail 0, pswpin $(result_get "$res" pswpin)"
else
	fail verified_across_unload "RESULT: ${res:-none}"
fi
ktap_end
