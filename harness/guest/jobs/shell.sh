#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make shell`: an interactive root shell on the serial console, with job
# control; leaving it powers the guest off.
echo "anon-workingset guest shell: module in $AWS_TOOLS/module, workloads in $AWS_TOOLS/bin; 'exit' powers off" >/dev/ttyS0
cd /root && setsid -c /bin/bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
