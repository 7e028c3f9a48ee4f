#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shadows read right at the clock values of a host that has run for days.
# A fresh guest's non-resident clocks start at 0; a busy host's pass 2^28
# buckets after about 1 TiB of reclaim turnover per lruvec.  With no module
# loaded, anon_ws_hooks.clock_start (CONFIG_ANON_WS_HOOKS_DEBUG) sets every
# lruvec's clock, and the module's own clocks start where it says.  Each
# start below lies 4096 pages short of a boundary that the workload's
# evictions cross, so shadows stamped on both sides of it are read:
#   2^28  a policy shadow's stamp wraps (and before the fix, a stock
#         shadow's top stamp bits began to read as a policy's tag)
#   2^35  the top stamp bit of a stock shadow as the module stores it
#   2^36  stock's own stamp wraps, and the module's with it
# At each, the same random-write load swaps in a memory cgroup under stock
# (the module loaded, stock's rule), under detect (the module's rule, its
# own clock) and under stock again in a cgroup of its own beside a global
# detect.  Every refault must reach the code that stamped its shadow (none
# dropped as an old epoch or stale; one misread as a policy's tag was
# dropped).  detect's must still activate (see below), and no stock
# shadow may come back with a distance beyond all of memory
# (stock_refaults_beyond_memory: a stamp misread at a boundary is 2^35
# off).  Stock's own activations are no measure on 6.12: its workingset
# is read from memcg statistics that lag, and the same load at clock 0
# activated 0 or about 11 % of its refaults from one boot to the next.
. "$AWS_TOOLS/guest/lib.sh"

START=/sys/module/anon_ws_hooks/parameters/clock_start
[ -w $START ] || bail clock_start "$START missing: the kernel lacks CONFIG_ANON_WS_HOOKS_DEBUG"

# The refaults a module policy judged at a distance beyond all of memory
# (its aws_refault events, filtered in the kernel): a stamp misread at a
# boundary is 2^28 buckets off, and nothing else gets there.
EV=/sys/kernel/tracing/events/anon_workingset/aws_refault
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
far_trace_on() {
	echo "distance > $(($(meminfo_kb MemTotal) / 4))" >$EV/filter || bail clock_trace "cannot filter $EV"
	echo >/sys/kernel/tracing/trace
	echo 1 >$EV/enable
}
far_trace_off() { # the events recorded; a lost one counts as far
	echo 0 >$EV/enable
	echo $(($(grep -c ' aws_refault: ' /sys/kernel/tracing/trace) +
		$(awk '/^(overrun|dropped events):/ { s += $NF } END { print s + 0 }' \
			/sys/kernel/tracing/per_cpu/cpu*/stats)))
}

# run_load CG: the load in cgroup CG; sets PSWPIN (pages swapped in), REF
# and ACT (anon refaults and activations the kernel counted), MOD_REF
# (refaults the module judged) and MOD_FAR (those beyond memory), OLD and
# STALE (shadows dropped unread), SREF and FAR (stock shadows handed to
# stock, and those beyond memory).
run_load() {
	local p0 r0 a0 m0 o0 s0 sr0 f0
	p0=$(vmstat pswpin) r0=$(vmstat workingset_refault_anon) a0=$(vmstat workingset_activate_anon)
	m0=$(aws_stat refaults) o0=$(aws_stat refaults_old_epoch) s0=$(aws_stat refaults_stale)
	sr0=$(aws_stat stock_refaults) f0=$(aws_stat stock_refaults_beyond_memory)
	far_trace_on
	if [ -n "${CG_POLICY:-}" ]; then
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control
		mkdir -p /sys/fs/cgroup/"$1"
		echo "$CG_POLICY" >/sys/fs/cgroup/"$1"/memory.anon_ws_policy
	fi
	cg_run "$1" 12M aws-randw --size 24M --threads 1 --writes "$(randw_writes 24)" \
		>/dev/null 2>&1 || diag "$1: workload exit $?"
	PSWPIN=$(($(vmstat pswpin) - p0)) REF=$(($(vmstat workingset_refault_anon) - r0))
	ACT=$(($(vmstat workingset_activate_anon) - a0)) MOD_REF=$(($(aws_stat refaults) - m0))
	OLD=$(($(aws_stat refaults_old_epoch) - o0)) STALE=$(($(aws_stat refaults_stale) - s0))
	SREF=$(($(aws_stat stock_refaults) - sr0)) FAR=$(($(aws_stat stock_refaults_beyond_memory) - f0))
	MOD_FAR=$(far_trace_off)
	diag "$1: pswpin $PSWPIN, refaults $REF (module $MOD_REF, $MOD_FAR beyond memory; stock's" \
		"$SREF, $FAR beyond memory), activations $ACT, old epoch $OLD, stale $STALE"
}

# at_clock NAME START: the three loads with every clock set to START; for
# each kind K (stock, detect, cgstock) sets IN[K] (pages swapped in),
# REFS[K] (refaults judged by the code that stamped them), ACTS[K]
# (activations), BAD[K] (shadows dropped unread), SREFS[K] and FARS[K]
# (refaults beyond memory, stock's and the module's).
declare -A IN REFS ACTS BAD SREFS FARS
at_clock() {
	local k
	mod_unload
	echo "$2" >$START || bail "clock_$1" "cannot write $2 to $START"
	insmod "$AWS_MOD" policy=stock || bail "clock_$1" "insmod failed"
	for k in stock detect cgstock; do
		case $k in
		detect) set_policy detect ;;
		cgstock) CG_POLICY=stock ;;
		esac
		run_load "$k$1"
		IN[$k]=$PSWPIN ACTS[$k]=$ACT BAD[$k]=$((OLD + STALE)) SREFS[$k]=$SREF
		FARS[$k]=$((FAR + MOD_FAR))
		if [ $k = detect ]; then REFS[$k]=$MOD_REF; else REFS[$k]=$REF; fi
	done
	CG_POLICY=
	rmmod anon_workingset
}

# per_mille A B: A / B in thousandths (0 for B = 0).
per_mille() { if [ "$2" -gt 0 ]; then echo $(($1 * 1000 / $2)); else echo 0; fi; }

declare -A REF0 ACT0
at_clock 0 0
# The reference the boundaries are judged against: at clock 0 every kind
# swaps in, nearly every swap-in is a refault read by its own code, none
# dropped or beyond memory, and detect activates some (measured 55-71 per
# mille on 6.1, 258-285 on 6.12: at least 20 is asked).
bad0=
for k in stock detect cgstock; do
	REF0[$k]=$(per_mille "${REFS[$k]}" "${IN[$k]}") ACT0[$k]=$(per_mille "${ACTS[$k]}" "${REFS[$k]}")
	[ "${IN[$k]}" -gt 2048 ] && [ "${REF0[$k]}" -ge 900 ] && [ "${BAD[$k]}" = 0 ] &&
		[ "${FARS[$k]}" = 0 ] || bad0+=" $k: pswpin ${IN[$k]}, refaults/pswpin ${REF0[$k]}, dropped ${BAD[$k]}, beyond memory ${FARS[$k]};"
done
[ "${ACT0[detect]}" -ge 20 ] || bad0+=" detect activations/refaults ${ACT0[detect]} per mille;"
reference="refaults/pswpin stock ${REF0[stock]} detect ${REF0[detect]} cgstock ${REF0[cgstock]};"
reference+=" activations/refaults stock ${ACT0[stock]} detect ${ACT0[detect]} cgstock ${ACT0[cgstock]}"
if [ -z "$bad0" ]; then
	ok "clock_0_reference # per mille: $reference"
else
	fail clock_0_reference "$bad0"
fi

# Each boundary: refaults per swap-in at least half of clock 0's, nothing
# dropped unread, none beyond memory; stock's shadows all handed back to
# stock (at least 9 in 10 of its refaults), detect's activations per
# refault at least a quarter of clock 0's.  A misread stamp is caught
# where it lands: far beyond memory (the trace filter) or dropped as a
# tag (BAD); the activations are only the coarse check behind them: they
# catch a detect that stops activating past a boundary altogether, not a
# misread of the shadows stamped before it alone (about half: the start
# is 4096 short), which the two checks before must catch.  Measured at all
# four clocks: refaults/pswpin 997-1001 per mille on both kernels; detect's
# activations/refaults 55-71 per mille on 6.1 and 258-285 on 6.12, the
# same with the host's two cores kept busy (build/runs*/test/ktap.log of
# make test SUITES=clocks MEM=256M, 9 boots on 6.12, 2026-12-07); one CI
# run of the whole 6.12 test saw 103 at 2^35 (clock 0: 269) with more
# swap-ins than any other (4641, others 4450-4520), nothing dropped and
# none beyond memory -- a half asked there failed on that run alone.
for b in 28 35 36; do
	at_clock "2^$b" $(((1 << b) - 4096))
	for k in stock detect cgstock; do
		r=$(per_mille "${REFS[$k]}" "${IN[$k]}") a=$(per_mille "${ACTS[$k]}" "${REFS[$k]}")
		if [ $k = detect ]; then
			[ "$a" -ge $((ACT0[$k] / 4)) ] && [ "${FARS[$k]}" = 0 ]
		else
			[ "${FARS[$k]}" = 0 ] && [ "${SREFS[$k]}" -ge $((REFS[$k] * 9 / 10)) ]
		fi
		rule=$?
		if [ $rule = 0 ] && [ "${BAD[$k]}" -eq 0 ] && [ "$r" -ge $((REF0[$k] / 2)) ] &&
			[ "${IN[$k]}" -gt 2048 ]; then
			ok "clock_2_${b}_${k}_refaults_read # refaults/pswpin $r, activations/refaults $a" \
				"per mille (clock 0: ${REF0[$k]}, ${ACT0[$k]}); stock's ${SREFS[$k]}; none beyond memory"
		else
			fail "clock_2_${b}_${k}_refaults_read" "pswpin ${IN[$k]}, refaults/pswpin $r" \
				"(clock 0: ${REF0[$k]}), activations/refaults $a (clock 0: ${ACT0[$k]})" \
				"per mille, dropped unread ${BAD[$k]}, stock's ${SREFS[$k]}, ${FARS[$k]} beyond memory"
		fi
	done
done
echo 0 >$START
ktap_end
