#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mm-selftests suite (make stress): the kernel tree's own mm selftests
# (tools/testing/selftests/vm in 6.1, selftests/mm in 6.12, built unmodified
# and static by harness/images/build-selftests.sh, on the tools disk in
# selftests/) that concern reclaim, swap and mapping, run under every policy:
# no module (the stock kernel), MGLRU (no module), and each policy the module
# offers (on 6.12, not the BPF ones: the bpf suite runs those).  Our policies
# must not break the kernel's own tests.  One case per selftest run over every
# round (so the count does not depend on how many policies there are), the
# rounds it failed in named in its line, plus three checks of the rounds.
#
# Pressure.  In each round the "cg" tests run inside one memory cgroup of
# limit L (LIMIT_MB, default 48) in which a verifying aws-randw writes
# at random over 1.5L (not reliability's 2L, at which 6.1's MGLRU has
# OOM-killed in such a cgroup), so the cgroup reclaims and swaps while they
# run and their own pages are reclaimed with the load's; the load must
# verify every page and the guest must swap in during the window.  The
# "own" tests cannot share a cgroup with it: ksm_tests asserts exact merge
# counts (KSM does not merge a page that is in swap), compaction_test
# mlocks 80% of free memory and then asks for huge pages, which puts the
# whole guest under pressure.  Besides, userfaultfd's anon mode swaps pages
# out itself (MADV_PAGEOUT), and shmem (its shmem mode, mremap_test's
# regions) is on the anon LRU too.
#
# Each program's exit status is its verdict (0 pass, 4 = KSFT_SKIP skip,
# anything else, a timeout or a crash fails); a kselftest.h program that
# exits 0 must also report a passed case ("# Totals: pass:N", N > 0): one
# that passes silently when it cannot run (compaction_test without
# compaction) fails, and one that reports only skipped cases (pass:0,
# skip:N > 0, as 6.12's ksm_tests -N does) skips.  transhuge-stress runs
# until stopped: it passes if it completed a loop and was still running at
# its time limit.  mremap_test
# runs with vm.overcommit_memory=1: it maps 2 GB regions (and touches 4 MB
# of each), more than the heuristic lets one mapping have in a guest of
# 512 MB RAM and 1 GB swap.  on-fault-limit runs as uid 1000 (root may
# lock past RLIMIT_MEMLOCK).
#
# Expected skips, each with the condition that makes it (when the condition
# does not hold the program must pass; a skip it does not explain fails):
#   soft_dirty               kernel without CONFIG_MEM_SOFT_DIRTY (it needs
#                            CONFIG_CHECKPOINT_RESTORE): a new mapping has
#                            no "sd" flag
#   ksm_numa_merge_across,   ksm_tests -N needs two NUMA nodes; the guest
#   ksm_numa_merge_within    has one
#
# Not run, and why (as found on the 6.1 tree; 6.12 runs the same programs,
# its userfaultfd being called uffd-stress, and adds none of its new ones):
#   khugepaged               every anon run makes 512 THPs
#                            (collapse_compound_extreme) before its swap
#                            cases: it fails in this 512 MB guest on a stock
#                            kernel (in a 1 GB one too, from the second run)
#   split_huge_page_test     fails on every kernel: its THP checks are wrong
#                            in this tree (upstream dd63bd7df41a fixes them)
#   hugetlb-madvise          fails on the stock kernel: the tree's madvise()
#                            rounds MADV_DONTNEED's end on hugetlb down (a
#                            stable fix), the test expects it rounded up
#   hugepage-mmap, -shm      a fixed 256 MB of hugetlb, half the guest
#                            (map_hugetlb and hugepage-mremap cover the same
#                            mappings at a size we choose)
#   migration                needs two NUMA nodes; gup_test CONFIG_GUP_TEST;
#                            hmm-tests, test_vmalloc.sh test modules
#   protection_keys, memfd_secret, va_128TBswitch, virtual_address_range,
#   thuge-gen, hugepage-vmemmap: neither reclaim nor swap
#   userfaultfd's hugetlb modes (hugetlb pages are on no LRU) and its
#   /dev/userfaultfd variant (only the way the fd is opened differs)
#
#   LIMIT_MB (default 48): L.  SELFTEST_TIMEOUT (default 300): the
#   seconds one selftest may take.  THP_STRESS_SECONDS (default 5):
#   transhuge-stress's run.  The output of a failed run is kept in
#   results/mm-selftests/ROUND-CASE.out.
. "$AWS_TOOLS/guest/lib.sh"

ST=$AWS_TOOLS/selftests
L=${LIMIT_MB:-48}
TLIM=${SELFTEST_TIMEOUT:-300}
THP_SECS=${THP_STRESS_SECONDS:-5}
LRU_GEN=/sys/kernel/mm/lru_gen/enabled
OVERCOMMIT=/proc/sys/vm/overcommit_memory
CG=/sys/fs/cgroup/mmst
W=/tmp/mmst
KEEP=/tmp/results/mm-selftests
HUGEFS=$W/huge
# The hugetlb pool of a round; map_hugetlb and hugepage-mremap each map
# all of it.
HP=8
HPKB=$(meminfo_kb Hugepagesize)
HUGE_MB=$((HP * ${HPKB:-0} / 1024))
# 6.12's tree renamed userfaultfd (same arguments)
UFFD=userfaultfd
[ -x "$ST/uffd-stress" ] && UFFD=uffd-stress

# CASE                    WHERE  PROGRAM AND ARGUMENTS, after options:
# @user (as uid 1000), @until (stopped after THP_SECS s), @overcommit
# (vm.overcommit_memory=1), @repeat (REPEAT runs, first, for the KSM tests).
# REPEAT: a test that fails 2 runs in 5 passes 10 in a row with chance
# 0.6^10 = 0.6 %, in one round; ksm_tests -U, before the fix in
# harness/images/mm-selftests-patches/, failed 7 of 20 runs on the stock
# kernel.
REPEAT=${KSM_REPEAT:-10}
TESTS=(
	"map_populate           cg   map_populate"
	"map_fixed_noreplace    cg   map_fixed_noreplace"
	"mremap_test            cg   @overcommit mremap_test"
	"mremap_dontunmap       cg   mremap_dontunmap"
	"mlock2_tests           cg   mlock2-tests"
	"mlock_random_test      cg   mlock-random-test"
	"on_fault_limit         cg   @user on-fault-limit"
	"madv_populate          cg   madv_populate"
	"soft_dirty             cg   soft-dirty"
	"transhuge_stress       cg   @until transhuge-stress $((2 * L))"
	"userfaultfd_anon       cg   $UFFD anon $((L / 8)) 16"
	"userfaultfd_shmem      cg   $UFFD shmem $((L / 8)) 16"
	"mrelease_test          cg   mrelease_test"
	"map_hugetlb            cg   map_hugetlb $HUGE_MB"
	"hugepage_mremap        cg   hugepage-mremap $HUGE_MB $HUGEFS/mremap"
	"ksm_merge              own  @repeat ksm_tests -M -p 10"
	"ksm_unmerge            own  @repeat ksm_tests -U"
	"ksm_zero_pages_0       own  @repeat ksm_tests -Z -p 10 -z 0"
	"ksm_zero_pages_1       own  @repeat ksm_tests -Z -p 10 -z 1"
	"ksm_numa_merge_across  own  @repeat ksm_tests -N -m 1"
	"ksm_numa_merge_within  own  @repeat ksm_tests -N -m 0"
	"compaction_test        own  compaction_test"
)
# Expected skips: why, and the test (run in the guest) that says it applies.
declare -A SKIP_WHY SKIP_IF
no_soft_dirty() { ! grep -q '^VmFlags:.* sd' /proc/self/smaps; }
one_node() { [ ! -d /sys/devices/system/node/node1 ]; }
SKIP_WHY[soft_dirty]="kernel without CONFIG_MEM_SOFT_DIRTY" SKIP_IF[soft_dirty]=no_soft_dirty
for c in ksm_numa_merge_across ksm_numa_merge_within; do
	SKIP_WHY[$c]="one NUMA node, the test needs two" SKIP_IF[$c]=one_node
done

[ -n "$HPKB" ] || bail policy_set_each "no Hugepagesize in /proc/meminfo (CONFIG_HUGETLBFS off?)"
mkdir -p "$W" "$HUGEFS" "$KEEP"
cd "$W" || bail policy_set_each "cannot cd to $W"
mod_unload
read -r -a POLICIES <<<"$(aws_policies)"
ROUNDS=(none mglru "${POLICIES[@]}")
diag "rounds: ${ROUNDS[*]}; cgroup limit ${L}M; selftests of $(cat "$ST/VERSION" 2>/dev/null)"
missing=
for t in "${TESTS[@]}"; do
	read -r -a w <<<"$t"
	for p in "${w[@]:2}"; do [[ $p == @* ]] || break; done
	[ -x "$ST/$p" ] || missing+=" $p"
done
[ -z "$missing" ] || bail policy_set_each "not on the tools disk:$missing" \
	"(make stress builds them: harness/images/build-selftests.sh; a new one goes in its PROGS)"
mount -t hugetlbfs none "$HUGEFS" || bail policy_set_each "cannot mount hugetlbfs"
echo +memory >/sys/fs/cgroup/cgroup.subtree_control

# round_set ROUND: no module and MGLRU off (none), no module and MGLRU on
# (mglru), or the module loaded with policy ROUND.
round_set() {
	mod_unload || return 1
	case $1 in
	none) echo n >"$LRU_GEN" ;;
	mglru) echo y >"$LRU_GEN" && [ "$(cat "$LRU_GEN")" != 0x0000 ] ;;
	*) echo n >"$LRU_GEN" && insmod "$AWS_MOD" policy="$1" && [ "$(get_policy)" = "$1" ] ;;
	esac
}

# hog_start: the cgroup, its limit, and the verifying load in it; returns
# once the load has swapped in (or after 20 s; the window check fails then).
hog_start() {
	local in0
	HOG=
	mkdir -p "$CG" && echo "${L}M" >"$CG/memory.max" || return 1
	in0=$(vmstat pswpin)
	(echo $BASHPID >"$CG/cgroup.procs" &&
		exec aws-randw --size $((3 * L / 2))M --threads 1 --seconds 3600 --verify-writes) \
		>"$W/hog.out" 2>"$W/hog.err" &
	HOG=$!
	for _ in $(seq 1 100); do
		[ "$(vmstat pswpin)" -gt $((in0 + 500)) ] && return 0
		sleep 0.2
	done
	diag "hog_start: the load did not swap in within 20 s"
}
# hog_stop: stop the load (SIGUSR1 ends its write phase; it verifies every
# page and prints its RESULT line); sets HOG_V to "pass" or "fail WHY".
hog_stop() {
	local rc res vf
	HOG_V="fail no cgroup"
	[ -n "$HOG" ] || return
	kill -USR1 "$HOG" 2>/dev/null
	wait "$HOG"
	rc=$?
	res=$(grep '^RESULT' "$W/hog.out")
	vf=$(result_get "$res" verify_fail)
	[ -n "$res" ] && diag "$res"
	rmdir "$CG"
	if [ $rc = 0 ] && [ "$vf" = 0 ]; then
		HOG_V=pass
	else
		HOG_V="fail exit $rc, verify_fail '$vf' $(grep -m1 VERIFY_FAIL "$W/hog.err")"
	fi
}

# run_one CASE WHERE [@OPTION...] PROGRAM ARGS...: run one selftest; prints
# its verdict for this round: pass, skip, or "fail WHY".  @repeat: run it
# REPEAT times, the first verdict that is not a pass being the round's.
run_one() {
	local i v
	if [ "$3" = @repeat ]; then
		for i in $(seq 1 "$REPEAT"); do
			v=$(run_one "$1" "$2" "${@:4}")
			[ "$v" = pass ] && continue
			[ "$v" = skip ] && { echo skip; return; }
			echo "$v (run $i of $REPEAT)"
			return
		done
		echo pass
		return
	fi
	run_one_once "$@"
}
run_one_once() {
	local name=$1 where=$2 user='' until='' over='' out=$W/$1.out rc pass nskip oc
	shift 2
	while [[ $1 == @* ]]; do
		case $1 in
		@user) user=1 ;;
		@until) until=1 ;;
		@overcommit) over=1 ;;
		esac
		shift
	done
	local cmd=("$ST/$1" "${@:2}")
	[ -n "$user" ] && cmd=(setpriv --reuid=1000 --regid=1000 --clear-groups -- "${cmd[@]}")
	if [ -n "$until" ]; then
		cmd=(timeout -s KILL "$THP_SECS" "${cmd[@]}")
	else
		cmd=(timeout -k 10 "$TLIM" "${cmd[@]}")
	fi
	oc=$(cat "$OVERCOMMIT")
	[ -n "$over" ] && echo 1 >"$OVERCOMMIT"
	if [ "$where" = cg ]; then
		(echo $BASHPID >"$CG/cgroup.procs" && exec "${cmd[@]}") >"$out" 2>&1
	else
		"${cmd[@]}" >"$out" 2>&1
	fi
	rc=$?
	echo "$oc" >"$OVERCOMMIT"
	pass=$(sed -n 's/^# Totals: pass:\([0-9]*\).*/\1/p' "$out" | tail -n 1)
	nskip=$(sed -n 's/^# Totals: .* skip:\([0-9]*\).*/\1/p' "$out" | tail -n 1)
	# 6.12's ksm_tests -N reports its skip the TAP way: exit status 0,
	# "# Totals: pass:0 ... skip:1".  That is a skip, as status 4 is.
	[ $rc = 0 ] && [ "${pass:-1}" = 0 ] && [ "${nskip:-0}" -gt 0 ] && rc=4
	if [ -n "$until" ]; then
		if [ $rc = 137 ] && grep -q 's/loop' "$out"; then
			echo pass
		else
			echo "fail exit $rc before ${THP_SECS} s or no loop completed"
		fi
	elif [ $rc = 4 ] && [ -n "${SKIP_IF[$name]:-}" ] && "${SKIP_IF[$name]}"; then
		echo skip
	elif [ $rc = 4 ]; then
		echo "fail unexpected skip"
	elif [ $rc = 0 ] && [ -n "${SKIP_IF[$name]:-}" ] && "${SKIP_IF[$name]}"; then
		echo "fail passed, but ${SKIP_WHY[$name]}: expected to skip"
	elif [ $rc = 0 ] && [ "${pass:-1}" = 0 ]; then
		echo "fail exit 0 without a passed case"
	elif [ $rc = 0 ]; then
		echo pass
	elif [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "fail timed out after $TLIM s"
	else
		echo "fail exit $rc"
	fi
}

declare -A FAILED SKIPPED PASSED
NPASS=0
# note CASE ROUND VERDICT: record one round's verdict of a case.
note() {
	case $3 in
	pass) PASSED[$1]+=" $2" ;;
	skip) SKIPPED[$1]+=" $2" ;;
	*) FAILED[$1]+=" $2(${3#fail })" ;;
	esac
}
# run_where ROUND WHERE: run the tests of one kind, record their verdicts,
# keep the output of a failed run; appends CASE:SECONDS to TIMES.
run_where() {
	local t w s v
	for t in "${TESTS[@]}"; do
		read -r -a w <<<"$t"
		[ "${w[1]}" = "$2" ] || continue
		s=$SECONDS
		v=$(run_one "${w[@]}")
		note "${w[0]}" "$1" "$v"
		TIMES+=" ${w[0]}:$((SECONDS - s))"
		case $v in
		pass) NPASS=$((NPASS + 1)) ;;
		fail*)
			diag "$1 ${w[0]}: $v"
			# (as diagnostics: a TAP program's own "ok" lines must not
			# read as this suite's)
			tr '\r' '\n' <"$W/${w[0]}.out" | tail -n 5 | cut -c1-160 | sed 's/^/#   /'
			cp "$W/${w[0]}.out" "$KEEP/$1-${w[0]}.out"
			;;
		esac
	done
}

for r in "${ROUNDS[@]}"; do
	t0=$SECONDS
	TIMES=
	if ! round_set "$r"; then
		note policy_set_each "$r" "fail could not set up"
		for t in "${TESTS[@]}"; do
			read -r name _ <<<"$t"
			note "$name" "$r" "fail round not set up"
		done
		continue
	fi
	note policy_set_each "$r" pass
	echo "$HP" >/proc/sys/vm/nr_hugepages
	hf=$(meminfo_kb HugePages_Free)
	[ "$hf" -ge "$HP" ] || diag "$r: only $hf of $HP huge pages reserved"
	in0=$(vmstat pswpin)
	hog_start || diag "$r: no cgroup for the load"
	run_where "$r" cg
	hog_stop
	d=$(($(vmstat pswpin) - in0))
	note load_verified_each "$r" "$HOG_V"
	if [ $d -gt 0 ]; then
		note cgroup_swapped_in_each "$r" pass
	else
		note cgroup_swapped_in_each "$r" "fail pswpin +$d"
	fi
	rm -f "$HUGEFS"/*
	echo 0 >/proc/sys/vm/nr_hugepages
	run_where "$r" own
	# what the module saw of the round (its counters start at the load)
	[ -e /proc/anon_workingset ] && diag "$r: module: evictions $(aws_stat evictions)," \
		"swapins $(aws_stat swapins), refaults $(aws_stat refaults)"
	diag "$r: $((SECONDS - t0)) s, load $HOG_V, pswpin +$d;$TIMES"
done
mod_unload
echo n >"$LRU_GEN"
umount "$HUGEFS"
diag "figure mm_selftest_runs=$NPASS"

# verdict CASE [WHY-SKIPPED]: one case over every round.
verdict() {
	local n=${#ROUNDS[@]}
	if [ -n "${FAILED[$1]:-}" ]; then
		fail "$1" "failed under:${FAILED[$1]}"
	elif [ -n "${SKIPPED[$1]:-}" ] && [ -z "${PASSED[$1]:-}" ]; then
		skip "$1" "$2 (in $n rounds)"
	elif [ -n "${SKIPPED[$1]:-}" ]; then
		fail "$1" "skipped under:${SKIPPED[$1]}, passed under:${PASSED[$1]}"
	else
		ok "$1 # $n rounds:${PASSED[$1]:-}"
	fi
}
verdict policy_set_each
verdict load_verified_each
verdict cgroup_swapped_in_each
for t in "${TESTS[@]}"; do
	read -r name _ <<<"$t"
	verdict "$name" "${SKIP_WHY[$name]:-}"
done
ktap_end
