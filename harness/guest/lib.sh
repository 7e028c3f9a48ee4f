# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the guest suites: KTAP output (one subtest per case) and the
# small pieces every suite needs (module load, vmstat, cgroups).  A suite is
# a bash script in harness/guest/suites/ that sources this file, calls
# ok/fail/check/expect/skip exactly once per case, whatever happens, and ends
# with 'ktap_end'.  Its KTAP plan line "1..N" comes from the manifest
# (harness/boot/manifest, $AWS_TOOLS/manifest on the tools disk); the host
# fails a suite whose cases do not add up to it.  harness/guest/run-suites.sh
# nests its output under a top-level KTAP line per suite.

AWS_TOOLS=${AWS_TOOLS:-/mnt/tools}
AWS_MOD=$AWS_TOOLS/module/anon_workingset.ko
AWS_PARAMS=/sys/module/anon_workingset/parameters
KTAP_N=0
KTAP_FAILED=0

KTAP_SUITE=$(basename "$0" .sh)
# A suite (harness/guest/suites/) opens its KTAP document; a job
# (harness/guest/jobs/) that borrows the helpers (make run's experiment,
# bench-cost) does not.
case $0 in
*/suites/*)
	KTAP_PLAN=$(awk -v s="$KTAP_SUITE" '$1 !~ /^#/ && NF == 3 && $2 == s { print $3; exit }' \
		"$AWS_TOOLS/manifest" 2>/dev/null)
	echo "KTAP version 1"
	echo "# Subtest: $KTAP_SUITE"
	if [ -n "$KTAP_PLAN" ]; then
		echo "1..$KTAP_PLAN"
	else
		echo "# suite $KTAP_SUITE has no entry in the manifest: no plan"
	fi
	;;
esac
# TIMING=1 (make test GUEST_ENV=TIMING=1): a "# at N.N s" line after each case,
# the suite's elapsed time, to see where a suite spends its time.
ktap_time() { [ -z "${TIMING:-}" ] || echo "# at $SECONDS s"; }
ok() { KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $*"; ktap_time; }
fail() {
	KTAP_N=$((KTAP_N + 1)); KTAP_FAILED=$((KTAP_FAILED + 1))
	local name=$1
	shift
	echo "not ok $KTAP_N $name${*:+ # $*}"
	ktap_time
}
skip() { local name=$1; shift; KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $name # SKIP $*"; }
diag() { echo "# $*"; }
# check NAME CMD...: one case that passes iff CMD succeeds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else fail "$name" "failed: $*"; fi
}
# expect NAME WHAT GOT OP WANT: numeric comparison case with the figures in the line.
expect() {
	local name=$1 what=$2 got=$3 op=$4 want=$5
	if test "$got" "$op" "$want" 2>/dev/null; then
		ok "$name # $what=$got ($op $want)"
	else
		fail "$name" "$what=$got, wanted $op $want"
	fi
}
# bail NAME WHY: a step that everything after it needs failed: fail NAME and
# stop the suite (the host counts the cases it did not emit as failed).
bail() {
	fail "$@"
	echo "# bail out: the remaining cases of $KTAP_SUITE were not run"
	exit 1
}
ktap_end() {
	if [ "$KTAP_N" != "${KTAP_PLAN:-none}" ]; then
		echo "# $KTAP_SUITE emitted $KTAP_N cases, its plan says ${KTAP_PLAN:-nothing}"
		return 1
	fi
	[ "$KTAP_FAILED" = 0 ]
}

# vm_read ARRAY: all of /proc/vmstat into an associative array.  The file
# is copied first: bash's read takes it a few bytes at a time, and numbers
# that change between two reads would come out torn.
vm_read() {
	local -n _vm=$1
	local k v
	_vm=()
	cat /proc/vmstat >/tmp/vmstat
	while read -r k v; do
		# shellcheck disable=SC2004 # _vm names an associative array
		[ -n "$k" ] && _vm[$k]=$v
	done </tmp/vmstat
}
vmstat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print -1 }' /proc/vmstat; }
meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# zram_swap SIZE: every swap device off, then swap on a zram device of SIZE
# only (synchronous: no disk I/O whose host-side latency would leak into
# the -icount guests' virtual clock).
zram_swap() {
	swapoff -a && echo "$1" >/sys/block/zram0/disksize &&
		mkswap -q -U clear /dev/zram0 >/dev/null && swapon /dev/zram0
}
aws_stat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print -1 }' /proc/anon_workingset; }
# cg_stat NAME KEY: exact value of KEY in cgroup NAME's memory.stat (flushed on read)
cg_stat() { awk -v k="$2" '$1 == k { print $2 }' "/sys/fs/cgroup/$1/memory.stat"; }
# memcg_stats_flushed: wait until memory.stat holds every update made
# before the call.  Reading it flushes the per-CPU deltas only past a
# threshold (6.12: 64 updates per CPU), so a count read right after a run
# can lag by a few (seen: 2 activations on the debug 6.12 kernel); the
# kernel's periodic flush (every 2 s, a deferrable timer: the short sleeps
# give it wakeups to run on) folds in all of them.
memcg_stats_flushed() {
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 0.25; done
}

# shell_setup: what `make shell` sets up before its prompt (jobs/shell.sh),
# so that README's commands find it: the memory controller for child
# cgroups (their memory.anon_ws_* files exist only with it).
shell_setup() { echo +memory >/sys/fs/cgroup/cgroup.subtree_control; }
# dmesg_mark, then dmesg_since: the kernel messages since the mark, not
# those an earlier load or unload left; new_dmesg PATTERN: one of them
# matches PATTERN.
dmesg_mark() { DMESG0=$(dmesg | wc -l); }
dmesg_since() { dmesg | tail -n +$((DMESG0 + 1)); }
new_dmesg() { dmesg_since | grep -q "$1"; }
mod_load() { lsmod | grep -q '^anon_workingset ' || insmod "$AWS_MOD" "$@"; }
mod_unload() { ! lsmod | grep -q '^anon_workingset ' || rmmod anon_workingset; }
set_policy() { echo "$1" >"$AWS_PARAMS/policy"; }
# The parameter lists every policy, the running one in brackets.
get_policy() { sed -n 's/.*\[\([a-z0-9_]*\)\].*/\1/p' "$AWS_PARAMS/policy"; }
# aws_policies: every policy the module offers, in the order of the one
# list there is (include/aws_policy_list.h), read back from the module.  Loads the module
# for a moment if it is not loaded.
aws_policies() {
	if lsmod | grep -q '^anon_workingset '; then
		tr -d '[]' <"$AWS_PARAMS/policy"
	else
		insmod "$AWS_MOD" || return 1
		tr -d '[]' <"$AWS_PARAMS/policy"
		rmmod anon_workingset
	fi
}

# cg_run NAME LIMIT CMD...: run CMD in a fresh cgroup with memory.max=LIMIT
# (swap unlimited), then remove the cgroup.
cg_run() {
	local cg=/sys/fs/cgroup/$1 lim=$2 rc
	shift 2
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir -p "$cg" && echo "$lim" >"$cg/memory.max" || return 1
	(echo $BASHPID >"$cg/cgroup.procs" && exec "$@")
	rc=$?
	rmdir "$cg" 2>/dev/null
	return $rc
}
# cg_swapped NAME: pages of cgroup NAME in swap (memory.swap.current)
cg_swapped() { echo $(($(cat "/sys/fs/cgroup/$1/memory.swap.current") >> 12)); }
# cg_wait_swapped NAME PAGES: wait, polling every 0.1 s for up to 60 s
# (AWS_SLOW times that on a slow kernel), until cgroup NAME has more than
# PAGES pages in swap; 1 if it never did.
cg_wait_swapped() {
	local i
	for ((i = 0; i < 600 * ${AWS_SLOW:-1}; i++)); do
		[ "$(cg_swapped "$1")" -gt "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
# cg_stop NAME: end the timed phase of the workloads running in cgroup NAME
# (aws-randw/aws-zipf: SIGUSR1 stops them early, they still verify and report).
cg_stop() {
	local pid
	while read -r pid; do kill -USR1 "$pid" 2>/dev/null; done <"/sys/fs/cgroup/$1/cgroup.procs"
}
# randw_writes MB: a write count for aws-randw over an MB-sized region; it
# populates only the pages it writes, and 1.6 random writes per page touch
# about 80% of them.
randw_writes() { echo $(($1 * 256 * 8 / 5)); }
# result_get LINE KEY: value of KEY in a 'RESULT k=v ...' line
result_get() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
