#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Negative tests of the harness: this guest must be reported as broken.
# Three sections, each opened by a marker written to /dev/kmsg, so that it
# lands on the console in order with the kernel's own messages:
#   warn   the smoke module fires a WARN_ON() at load;
#   stall  the smoke module spins for 8 s with preemption off (interrupts
#          on) while a grace period waits for its CPU, with the RCU stall
#          timeout at its 3 s minimum: RCU reports a self-detected stall
#          (about 4 s after the load, under TCG).
#          The timeout is set here, not on the command line, so that a
#          slow TCG boot cannot stall for 3 s before this section.  The
#          spin stays well under the soft-lockup threshold (20 s), so
#          softlockup_panic cannot panic the guest before the stall report;
#   panic  sysrq c crashes the kernel.
# harness/test/test.sh scans each section on its own with the shared console scan
# and checks that each trips it with its own pattern.
SMOKE=$AWS_TOOLS/module/aws_smoke.ko
mark() { echo "aws-negative: section $1" >/dev/kmsg; }

mark warn
insmod "$SMOKE" warn=1
rmmod aws_smoke

mark stall
echo 3 >/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
insmod "$SMOKE" stall_secs=8
rmmod aws_smoke

mark panic
echo c >/proc/sysrq-trigger
