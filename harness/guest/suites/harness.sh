#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness suite: the guest booted the kernel this build made, with the hook
# patch in it; swap works under a memory hog larger than guest RAM, with
# every page verified; an out-of-tree module loads and unloads; MGLRU is off
# by default.
. "$AWS_TOOLS/guest/lib.sh"

# The tools disk carries the version string of the bzImage it was built
# with (harness/images/make-tools-disk.sh): "RELEASE (USER@HOST) VERSION".
built=$(cat "$AWS_TOOLS/kernel-version" 2>/dev/null)
case $built in
"$(uname -r) ("*") $(uname -v)") ok "booted_the_built_kernel # $(uname -r) $(uname -v)" ;;
*) fail booted_the_built_kernel "running '$(uname -r) $(uname -v)', built '$built'" ;;
esac
check hooks_built_in grep -q ' anon_ws_register$' /proc/kallsyms

# aws-zipf fills its whole region (1.1x MemTotal) first, then reads a fixed
# number of nearly uniformly chosen 64K chunks (a count, not a duration, so
# that a slow kernel swaps in as much as a fast one).
in0=$(vmstat pswpin) out0=$(vmstat pswpout)
res=$(aws-zipf --size 1.1x --threads 2 --records 300 --alpha 0.1 2>/dev/null | grep '^RESULT')
diag "$res"
expect hog_verified verify_fail "$(result_get "$res" verify_fail)" -eq 0
# A tenth of MemTotal cannot fit beside the rest: at least that much is
# written to swap.
expect hog_swapped_out pswpout $(($(vmstat pswpout) - out0)) -gt $(($(meminfo_kb MemTotal) / 40))
expect hog_swapped_in pswpin $(($(vmstat pswpin) - in0)) -gt 1000

# Loaded: insmod succeeded, the kernel lists it and its init ran; unloaded:
# rmmod succeeded, it is gone and its exit ran.
smoke=$AWS_TOOLS/module/aws_smoke.ko
if ! insmod "$smoke"; then
	fail smoke_load "insmod failed"
elif ! grep -q '^aws_smoke ' /proc/modules; then
	fail smoke_load "not in /proc/modules"
elif ! dmesg | grep -q 'aws_smoke: loaded'; then
	fail smoke_load "its init did not run"
else
	ok smoke_load
fi
if ! rmmod aws_smoke; then
	fail smoke_unload "rmmod failed"
elif grep -q '^aws_smoke ' /proc/modules; then
	fail smoke_unload "still in /proc/modules"
elif ! dmesg | grep -q 'aws_smoke: unloaded'; then
	fail smoke_unload "its exit did not run"
else
	ok smoke_unload
fi

# MGLRU as Debian's kernel boots it (on in 6.12, off in 6.1), and off by
# the time a job starts (init.sh turns it off)
case $(uname -r) in
6.1.*) expect mglru_at_boot_as_debian lru_gen_boot "$AWS_LRU_GEN_BOOT" = 0x0000 ;;
*) expect mglru_at_boot_as_debian lru_gen_boot "$AWS_LRU_GEN_BOOT" != 0x0000 ;;
esac
expect mglru_off_when_jobs_start lru_gen_enabled "$(cat /sys/kernel/mm/lru_gen/enabled)" = 0x0000
ktap_end
