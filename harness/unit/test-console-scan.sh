#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side unit test of the console scanner (harness/boot/runner.py scan,
# through console_scan in harness/lib.sh), as KTAP on stdout: on canned
# console snippets, each pattern of harness/boot/console-patterns trips the
# scan on the report it is there for (the ones added in the first round of
# trust fixes trip it alone: without them the scan would miss the report),
# every pattern has such a snippet, and neither a clean boot nor an OOM kill
# -- which prints a call trace too -- trips it; one scan reads all of them at
# once, each snippet judged by the hits that name its file.  make test runs it
# with the unit tests.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
mapfile -t PATTERNS < <(console_patterns)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PAT=() TXT=() ALONE=()
# add PATTERN ALONE TEXT: TEXT is a console report that PATTERN is there to
# catch; ALONE=1: no other pattern catches it.
add() { PAT+=("$1"); ALONE+=("$2"); TXT+=("$3"); }

add 'Kernel panic' 1 '[   21.204113] Kernel panic - not syncing: sysrq triggered crash
[   21.204980] Kernel Offset: disabled'
add 'Oops' 1 '[   14.551020] Oops: 0002 [#1] SMP NOPTI
[   14.551300] CPU: 1 PID: 231 Comm: bash Not tainted 6.1.0 #1'
add 'BUG:' 1 '[    9.100200] BUG: sleeping function called from invalid context at mm/page_alloc.c:5180
[    9.100400] in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 88, name: kswapd0'
add 'kernel BUG at' 1 '[   33.000117] ------------[ cut here ]------------
[   33.000301] kernel BUG at mm/swap_state.c:118!
[   33.000560] invalid opcode: 0000 [#1] SMP NOPTI'
add 'WARNING:' 1 '[    5.312070] ------------[ cut here ]------------
[    5.312200] WARNING: CPU: 0 PID: 197 at /build/smoke/aws_smoke.c:47 aws_smoke_init+0x21/0x1000 [aws_smoke]
[    5.312900] Modules linked in: aws_smoke(O+)'
add 'INFO: task .* blocked for more than' 1 '[  185.420001] INFO: task kworker/u4:2:61 blocked for more than 61 seconds.
[  185.420200]       Not tainted 6.1.0 #1'
add 'detected (expedited )?stalls' 1 '[   41.000200] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:
[   41.000400] rcu:     1-...!: (2 ticks this GP) idle=bd4/1/0x4000000000000000 softirq=1410/1410 fqs=0'
add 'detected (expedited )?stalls' 1 '[   41.000200] rcu: INFO: rcu_sched detected expedited stalls on CPUs/tasks: { 1-... } 26 jiffies s: 229 root: 0x2/.'
add 'self-detected stall' 1 '[   17.904030] rcu: INFO: rcu_sched self-detected stall on CPU
[   17.904280] rcu:     0-....: (751 ticks this GP) idle=e3c/1/0x4000000000000000 softirq=1203/1203 fqs=332'
add 'soft lockup' 0 '[   60.120001] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [insmod:240]'
add 'hard LOCKUP' 1 '[   60.120001] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1'
add 'general protection fault' 1 '[   12.000990] general protection fault, probably for non-canonical address 0xdead000000000108: 0000 [#1] SMP NOPTI'
add 'KASAN' 0 '[   71.000100] ==================================================================
[   71.000200] BUG: KASAN: use-after-free in aws_evict+0x4c/0x130 [anon_workingset]
[   71.000300] Read of size 8 at addr ffff888004c1a2c8 by task kswapd0/41'
add 'UBSAN' 1 '[   71.000200] UBSAN: shift-out-of-bounds in include/aws_core.h:90:22'
add 'kmemleak: [0-9]+ new suspected' 1 '[  611.310000] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'
add 'int3: [0-9a-f]+ \[#[0-9]+\]' 1 '[   30.500000] int3: 0000 [#1] SMP NOPTI
[   30.500100] RIP: 0010:numa_stat_write+0x1/0x40'
add 'Bad swap file entry' 1 '[   95.220040] swap_info_get: Bad swap file entry 3ffffffffffff'
add 'Bad swap offset entry' 1 '[   95.220040] _swap_info_get: Bad swap offset entry 0003a1f2'
add 'Unused swap file entry' 1 '[   95.220040] swap_info_get: Unused swap file entry 3ffffffffffff'
add 'Unused swap offset entry' 1 '[   95.220040] _swap_info_get: Unused swap offset entry 0003a1f2'
add 'page allocation failure' 1 '[  120.771006] aws-randw: page allocation failure: order:0, mode:0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), nodemask=(null),cpuset=/,mems_allowed=0
[  120.771400] CPU: 0 PID: 402 Comm: aws-randw Not tainted 6.1.0 #1'
SHELL_ERR='\.sh: line [0-9]+: .*(syntax error|command not found|unbound variable|bad substitution|integer expression expected|too many arguments|ambiguous redirect|unary operator expected|binary operator expected)'
add "$SHELL_ERR" 1 \
	'/mnt/tools/guest/jobs/experiment.sh: line 170: 2 * : syntax error: operand expected (error token is "* ")'
add "$SHELL_ERR" 1 '/mnt/tools/guest/suites/fidelity.sh: line 212: [: -1x: integer expression expected'

# What a healthy guest prints, test output included.
CLEAN='[    0.000000] Linux version 6.1.0 (root@build) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP Thu Dec  3 15:00:00 UTC 2026
[    0.000000] Command line: console=ttyS0 root=/dev/vda rw init=/sbin/aws-init panic=-1 oops=panic hung_task_panic=1 softlockup_panic=1
[    0.310000] rcu: Hierarchical RCU implementation.
[    0.320000] rcu: RCU calculated value of scheduler-enlistment delay is 100 jiffies.
[    1.200000] Adding 1048572k swap on /dev/vdc.  Priority:-2 extents:1 across:1048572k
[    2.000000] anon_workingset: policy detect
KTAP version 1
1..2
    # Subtest: reliability
    ok 1 verify_after_flips # 5102 pages verified, pswpin 88120
    ok 2 hooks_inert_under_mglru # hooks_live=0, counters frozen
[   40.000000] anon_workingset: unloaded
# aws-guest: done'
# An OOM kill in a memory cgroup: a call trace, but no kernel problem.
OOM='[   64.101200] aws-randw invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0
[   64.101300] CPU: 1 PID: 377 Comm: aws-randw Not tainted 6.1.0 #1
[   64.101400] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[   64.101500] Call Trace:
[   64.101550]  <TASK>
[   64.101600]  dump_stack_lvl+0x44/0x5c
[   64.101700]  dump_header+0x4a/0x211
[   64.101800]  oom_kill_process.cold+0xb/0x10
[   64.101900]  out_of_memory+0x1fd/0x4f0
[   64.102000]  mem_cgroup_out_of_memory+0x134/0x150
[   64.102100]  try_charge_memcg+0x6ad/0x780
[   64.102200]  charge_memcg+0x39/0xe0
[   64.102300]  __mem_cgroup_charge+0x28/0x80
[   64.102400]  do_anonymous_page+0x10c/0x3c0
[   64.102500]  __handle_mm_fault+0x7f3/0xc20
[   64.102600]  handle_mm_fault+0xdb/0x2d0
[   64.102700]  do_user_addr_fault+0x1c3/0x660
[   64.102800]  exc_page_fault+0x77/0x170
[   64.102900]  asm_exc_page_fault+0x22/0x30
[   64.103000] RIP: 0033:0x401b2c
[   64.103100]  </TASK>
[   64.103200] memory: usage 49152kB, limit 49152kB, failcnt 5121
[   64.103300] swap: usage 16384kB, limit 16384kB, failcnt 1210
[   64.103400] Memory cgroup stats for /exhaust:
[   64.103500] anon 48410624
[   64.103600] Tasks state (memory values in pages):
[   64.103700] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name
[   64.103800] [    377]     0   377    33117    11800   155648     4096             0 aws-randw
[   64.103900] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/exhaust,task_memcg=/exhaust,task=aws-randw,pid=377,uid=0
[   64.104000] Memory cgroup out of memory: Killed process 377 (aws-randw) total-vm:132468kB, anon-rss:47200kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:152kB oom_score_adj:0
[   64.104100] oom_reaper: reaped process 377 (aws-randw), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB
[   64.104200] Mem-Info:
[   64.104300] active_anon:1200 inactive_anon:10400 isolated_anon:0
[   64.104400] Free swap  = 0kB
[   64.104500] Out of memory: Killed process 380 (stress-ng-vm) total-vm:99000kB, anon-rss:60000kB'

# matching TEXT: the patterns that match TEXT, one per line.  A here-string,
# not a pipe: grep -q exits at its first match, and under pipefail the
# printf it leaves writing to a closed pipe (SIGPIPE) turned a match into a
# miss on a loaded machine.
matching() {
	local p
	for p in "${PATTERNS[@]}"; do
		grep -Eq -- "$p" <<<"$1" && echo "$p"
	done
}
slug() { echo "$1" | tr -c 'a-zA-Z0-9\n' '_' | tr -s '_' | sed 's/^_//; s/_$//' | tr '[:upper:]' '[:lower:]'; }

n=0 bad=0
result() { # result ok|fail NAME [why]
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n $2${3:+ # $3}"; else echo "not ok $n $2 # $3"; bad=1; fi
}

# One scan over every snippet (a python3 start costs about 0.4 s, taken
# from the guests that run beside this test): each snippet is its own
# file, and its hits are the lines that name it.
for i in "${!PAT[@]}"; do printf '%s\n' "${TXT[$i]}" >"$TMP/snippet-$i.log"; done
printf '%s\n' "$CLEAN" >"$TMP/clean.log"
printf '%s\n' "$OOM" >"$TMP/oom.log"
console_scan "$TMP"/snippet-*.log "$TMP/clean.log" "$TMP/oom.log" >"$TMP/hits"
scan_status=$?
hits_of() { grep -F -- "$TMP/$1:" "$TMP/hits" | cut -d: -f2-; } # hits_of FILE

echo "KTAP version 1"
echo "1..$((${#PAT[@]} + 4))"
if [ $scan_status = 0 ]; then
	result ok scan_runs_on_many_consoles "$(wc -l <"$TMP/hits") lines in $((${#PAT[@]} + 2)) files"
else
	result fail scan_runs_on_many_consoles "console_scan exited $scan_status"
fi
declare -A seen=() count=()
for i in "${!PAT[@]}"; do
	p=${PAT[$i]}
	name=scan_trips_on_$(slug "$p")
	count[$p]=$((${count[$p]:-0} + 1))
	[ "${count[$p]}" = 1 ] || name=${name}_${count[$p]}
	m=$(matching "${TXT[$i]}")
	if ! hits=$(hits_of "snippet-$i.log") || [ -z "$hits" ]; then
		result fail "$name" "the scan missed: $(head -n 1 <<<"${TXT[$i]}" | cut -c1-60)"
	elif ! grep -qxF -- "$p" <<<"$m"; then
		result fail "$name" "pattern '$p' does not match its own snippet"
	elif [ "${ALONE[$i]}" = 1 ] && [ "$m" != "$p" ]; then
		result fail "$name" "not caught by '$p' alone: also $(echo "$m" | grep -vxF -- "$p" | tr '\n' ' ')"
	else
		seen[$p]=1
		result ok "$name" "$(wc -l <<<"$hits") line(s); caught by '$(echo "$m" | tr '\n' ' ' | sed 's/ $//')'"
	fi
done
untested=()
for p in "${PATTERNS[@]}"; do
	[ -n "${seen[$p]:-}" ] || untested+=("$p")
done
if [ ${#untested[@]} = 0 ]; then
	result ok every_pattern_trips_on_a_snippet "${#PATTERNS[@]} patterns"
else
	result fail every_pattern_trips_on_a_snippet "no passing snippet for: ${untested[*]}"
fi
clean_case() { # clean_case NAME FILE: FILE must not trip the scan
	local hits
	if hits=$(hits_of "$2") && [ -n "$hits" ]; then
		result fail "$1" "scan tripped on: $(head -n 1 <<<"$hits" | cut -c1-80)"
	else
		result ok "$1" "$(wc -l <"$TMP/$2") lines, no report"
	fi
}
clean_case clean_console_passes clean.log
clean_case oom_kill_alone_passes oom.log
exit $bad
