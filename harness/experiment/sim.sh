#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make sim`: replay the seed's thrash and protect patterns (its proportions:
# 280 MiB of frames, cold 512 / hot-1 96 / hot-2 96 / slice 128 MiB) through
# the two-list model with the module's policy code, plain LRU and Belady's
# OPT; print each policy's faults and ratio to OPT, the replay speed, and
# write CSV to build/sim/ (results/sim/ keeps the copy docs/results.md
# cites).  Both patterns run twice: with the model's default (a fault
# leaves the page unreferenced) and with --fault-young (x86 sets the
# accessed bit on the faulting access, so reclaim's first look already sees
# a reference).  A 10-million-access zipf trace times OPT.  Then the
# workload distribution (userspace/sim/dist.c): every policy, the model of
# MGLRU, LRU and OPT on each instance, in the model the no-harm goal is
# judged in (--fault-young --refault-deactivate, docs/hold.md), and
# harness/experiment/dist.py's summary, goals and CDF plot; the goals
# against the better peer leave to the guest the families where the MGLRU
# model does not follow it (results/sample120-6.1/mglru-families.csv,
# harness/experiment/simguest.py --families, docs/sim.md).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

SIM=$AWS_BUILD/userspace/aws-sim
[ -x "$SIM" ] || die "$SIM missing (run: make userspace)"
OUT=$AWS_BUILD/sim
mkdir -p "$OUT"
for pattern in thrash protect; do
	for young in "" --fault-young; do
		csv=$OUT/$pattern${young:+-fault-young}.csv
		echo "== $pattern, seed proportions ($SIM --pattern $pattern $young --csv ${csv#"$AWS_TOP"/})"
		"$SIM" --pattern "$pattern" $young --csv "$csv" | sed -n '/^policy/,/^OPT/p;/^speed/p'
		echo
	done
done
echo "== zipf, 10 million accesses over 2x frames ($SIM --pattern zipf --accesses 10000000)"
"$SIM" --pattern zipf --accesses 10000000 --csv "$OUT/zipf.csv" | sed -n '/^policy/,/^OPT/p;/^speed/p'
echo
DIST_N=${DIST_N:-560} DIST_SEED=${DIST_SEED:-1}
PY=$(aws_python) || die "no python3 with pandas and matplotlib (run: make deps)"
MODEL="--fault-young --refault-deactivate --ratio auto"
echo "== the workload distribution, $DIST_N instances at 64 MiB of frames ($SIM --distribution $DIST_N --dist-seed $DIST_SEED --frames 16384 $MODEL)"
# shellcheck disable=SC2086 # the model's flags, split on purpose
"$SIM" --distribution "$DIST_N" --dist-seed "$DIST_SEED" --frames 16384 $MODEL \
	--csv "$OUT/dist.csv"
FAMILIES=$AWS_TOP/results/sample120-6.1/mglru-families.csv
[ -s "$FAMILIES" ] || die "$FAMILIES missing: the MGLRU model's verdicts per family"
"$PY" "$AWS_TOP/harness/experiment/dist.py" "$OUT/dist.csv" --out "$OUT" --families "$FAMILIES"
echo
echo "== selftest"
"$SIM" --selftest | tail -n 1
