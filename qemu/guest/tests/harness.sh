#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness suite: the guest booted our kernel, swap works under a memory hog
# larger than guest RAM, an out-of-tree module loads and unloads, MGLRU is
# off by default, and the workload verifier catches a corrupted page.
. "$AWS_TOOLS/guest/lib.sh"

ok "boot # $(uname -r), $(nproc) CPUs, MemTotal $(meminfo_kb MemTotal) kB"
check swap_active grep -q '^/dev/vdc ' /proc/swaps
check hooks_built_in grep -q ' anon_ws_register$' /proc/kallsyms

# aws-zipf fills its whole region (1.1x MemTotal) first, then reads a fixed
# number of nearly uniformly chosen 64K chunks (a count, not a duration, so
# that a slow kernel swaps in as much as a fast one).
in0=$(vmstat pswpin) out0=$(vmstat pswpout)
res=$(aws-zipf --size 1.1x --threads 2 --records 300 --alpha 0.1 2>/dev/null | grep '^RESULT')
diag "$res"
expect hog_verified verify_fail "$(result_get "$res" verify_fail)" -eq 0
expect hog_swapped_out pswpout $(($(vmstat pswpout) - out0)) -gt 10000
expect hog_swapped_in pswpin $(($(vmstat pswpin) - in0)) -gt 1000

check smoke_insmod insmod "$AWS_TOOLS/module/aws_smoke.ko"
check smoke_listed grep -q '^aws_smoke ' /proc/modules
check smoke_rmmod rmmod aws_smoke
check smoke_messages bash -c 'dmesg | grep -q "aws_smoke: loaded" && dmesg | grep -q "aws_smoke: unloaded"'

expect mglru_off_by_default lru_gen_enabled "$(cat /sys/kernel/mm/lru_gen/enabled)" = 0x0000
ktap_end
