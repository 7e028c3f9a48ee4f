#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest PID 1 (exec'd by /sbin/aws-init from the rootfs): set up /tmp,
# cgroup v2, debugfs and swap on /dev/vdc, run the job named by aws.job= on
# the kernel command line (jobs/JOB.sh), write /tmp/results as a tar onto
# /dev/vdd and power off.  The job's output goes to the console (ttyS0) and
# to ttyS1, the clean channel the host parses for KTAP.
export PATH=/mnt/tools/bin:/usr/sbin:/usr/bin:/sbin:/bin
export AWS_TOOLS=/mnt/tools HOME=/root LANG=C
cd /

mount -t tmpfs -o size=64m tmp /tmp
mount -t cgroup2 none /sys/fs/cgroup
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mkdir -p /tmp/results
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
echo 60 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null

stty -F /dev/ttyS1 raw -echo 2>/dev/null
# The kernel command line names the job (aws.job=) and how slow this
# kernel is (aws.slow=N: it needs N times the default kernel's time; the
# host's runner sets it, run-suites.sh scales each suite's budget by it)
# and the memory the guest was asked for (aws.mem=NM: the runner gives a
# debug 6.12 guest more, so that it keeps what the default kernel's does).
# The last aws.NAME=VALUE word wins.  Builtins only: every fork costs tens
# of milliseconds under TCG.
read -r -a words </proc/cmdline
JOB='' AWS_SLOW=1 AWS_MEM_ASKED=''
for w in "${words[@]}"; do
	case $w in
	aws.job=*) JOB=${w#aws.job=} ;;
	aws.slow=[1-9]) AWS_SLOW=${w#aws.slow=} ;;
	aws.mem=[1-9]*M) AWS_MEM_ASKED=${w#aws.mem=} ;;
	esac
done
export AWS_JOB=$JOB AWS_SLOW AWS_MEM_ASKED

# Everything else the host hands this boot (harness/boot/runner.py) is a tar
# archive at the start of the results disk, which the job's own results
# overwrite at the end: args (one line, the job's arguments: AWS_ARGS),
# env (KEY=VALUE lines for the suites, e.g. CYCLES=200) and whatever
# the job reads itself (make run's plan file).
mkdir -p /tmp/input
tar -C /tmp/input -xf /dev/vdd 2>/dev/null
AWS_ARGS=''
[ -r /tmp/input/args ] && read -r AWS_ARGS </tmp/input/args
export AWS_ARGS
if [ -r /tmp/input/env ]; then
	while read -r kv; do
		# names checked on the host (runner.py's handed())
		case $kv in [A-Z]*=*) export "${kv?}" ;; esac
	done </tmp/input/env
fi

# A nil UUID: generating a random one makes mkswap take over 3 s under TCG.
if ! mkswap -q -U clear /dev/vdc >/dev/null 2>&1 || ! swapon /dev/vdc; then
	echo "# aws-guest: FATAL: cannot enable swap on /dev/vdc" | tee /dev/ttyS1
fi

# Debian's 6.12 boots with MGLRU on (CONFIG_LRU_GEN_ENABLED=y; 6.1 does
# not): every job starts on the classic LRU, which the hooks act on and
# which the mglru policy leaves on its own.  The boot value is kept for
# the jobs that report it (AWS_LRU_GEN_BOOT).
AWS_LRU_GEN_BOOT=none
if [ -r /sys/kernel/mm/lru_gen/enabled ]; then
	read -r AWS_LRU_GEN_BOOT </sys/kernel/mm/lru_gen/enabled
	if [ "$AWS_LRU_GEN_BOOT" != 0x0000 ] && ! echo n >/sys/kernel/mm/lru_gen/enabled; then
		echo "# aws-guest: FATAL: cannot turn MGLRU off" | tee /dev/ttyS1
	fi
fi
export AWS_LRU_GEN_BOOT

bash "$AWS_TOOLS/guest/jobs/$JOB.sh" 2>&1 | tee /dev/ttyS1
# The host fails a run whose job script did not exit 0 (or never
# reported how it exited).
echo "# aws-guest: job exit status ${PIPESTATUS[0]}" | tee /dev/ttyS1

tar -C /tmp/results -cf /dev/vdd . 2>/dev/null
sync
swapoff -a
echo "# aws-guest: done" >/dev/ttyS1
echo "# aws-guest: done"
echo o >/proc/sysrq-trigger
# Wait for the power-off with shell builtins only: by now the disks may be
# gone, and exec'ing /usr/bin/sleep from one was an I/O error that killed
# init (seen once on the debug kernel).  After 30 s init exits and the
# kernel's panic reports that the power-off never came.
end=$((SECONDS + 30))
while [ $SECONDS -lt $end ]; do :; done
