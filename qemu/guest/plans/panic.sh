#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Negative test of the harness: crash the guest kernel on purpose.  The host
# must report this run as a failure (qemu/test.sh checks that it does).
echo "# crashing the kernel on purpose (sysrq c)"
echo c >/proc/sysrq-trigger
