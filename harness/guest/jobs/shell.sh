#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make shell`: an interactive root shell on the serial console, with job
# control; leaving it powers the guest off.
# The memory controller for child cgroups, as README's commands expect
# (their memory.anon_ws_* files exist only with it).
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
echo "anon-workingset guest shell: module in $AWS_TOOLS/module, workloads in $AWS_TOOLS/bin;" \
	"+memory in /sys/fs/cgroup/cgroup.subtree_control; 'exit' powers off" >/dev/ttyS0
cd /root && setsid -c /bin/bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
