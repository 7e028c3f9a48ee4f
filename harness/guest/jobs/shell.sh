#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make shell`: an interactive root shell on the serial console, with job
# control; leaving it powers the guest off.
# What README's commands expect (the readme suite runs them after the
# same setup).
. "$AWS_TOOLS/guest/lib.sh"
shell_setup
echo "anon-workingset guest shell: module in $AWS_TOOLS/module, workloads in $AWS_TOOLS/bin;" \
	"+memory in /sys/fs/cgroup/cgroup.subtree_control; 'exit' powers off" >/dev/ttyS0
cd /root && setsid -c /bin/bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
