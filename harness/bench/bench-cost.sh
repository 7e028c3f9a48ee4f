#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-cost`: what the hooks cost, measured deterministically.
#
# Boots the bench-cost guest job (harness/guest/jobs/bench-cost.sh) under
# QEMU's -icount (default shift=0,sleep=off: every guest instruction is 1 ns
# of guest virtual time and an idle vCPU jumps to its next timer), so the
# guest's CLOCK_MONOTONIC around a run counts the instructions the run
# executed instead of the host's load.  Two kernels, one vCPU each, booted
# in turn BOOTS times (default 2, to see how much a boot itself moves the
# figures; the runs of all boots are pooled):
#
#   1. build/kernel-unpatched (Debian's linux-source-6.1, same config, no
#      hook patch; built here by harness/images/build-kernel.sh unpatched):
#      nomod;
#   2. build/kernel-default (patched) with no module ever loaded in the
#      boot (kernel "never" in the figures): nomod, every swap-in on the
#      inline path of anon_ws_refault();
#   3. build/kernel-default (patched): nomod, then the module with every
#      policy its policy parameter lists, stock included (the job loads the
#      module once for that list before its first run).
#
# The figures: the patched kernel with its module never loaded, and once
# loaded and gone, against the unpatched one, and each policy against
# stock.  Not part of make test: a benchmark.
# Output in build/bench-cost/<UTC time>/ (latest -> newest): runs.tsv (every
# run of both boots), info-*.txt, summary.txt (what is printed at the end).
#
# usage: harness/bench/bench-cost.sh
# The settings are fixed, those of every figure in docs/results.md (they
# were environment variables; one set now fails rather than being ignored).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

for v in REPS BOOTS WRITES SIZE LIMIT ICOUNT; do
	[ -z "${!v:-}" ] || die "make bench-cost's $v is fixed (harness/bench/bench-cost.sh): unset it"
done
REPS=5 BOOTS=2 WRITES=40000 SIZE=64M LIMIT=32M ICOUNT=shift=0,sleep=off
# -icount is TCG only; the verdict is the same on every host this way
export ACCEL=tcg

bash "$AWS_TOP/harness/images/build-kernel.sh" unpatched

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$AWS_BUILD/bench-cost$AWS_KSFX/$STAMP
mkdir -p "$OUT"
T0=$SECONDS
for b in $(seq 1 "$BOOTS"); do
	for k in unpatched never default; do
		mod=1 variant=$k
		[ $k = default ] || mod=0
		[ $k = never ] && variant=default
		stage "bench-cost: $k kernel (boot $b of $BOOTS), $REPS reps per configuration"
		RUN=$AWS_RUNS/bench-cost-$k
		python3 "$AWS_TOP/harness/boot/runner.py" boot bench-cost --variant $variant --cpus 1 --mem 512M \
			--icount "$ICOUNT" --timeout 3600 --name "bench-cost-$k" --progress \
			--args "module=$mod reps=$REPS writes=$WRITES size=$SIZE limit=$LIMIT" ||
			die "the $k guest failed (above), see $RUN/ktap.log"
		sed "s/^/kernel=$k\tboot=$b\t/" "$RUN/results/runs.tsv" >>"$OUT/runs.tsv"
		cp "$RUN/results/info.txt" "$OUT/info-$k-$b.txt"
		cp "$RUN/qemu-cmdline" "$OUT/qemu-cmdline-$k"
		cp "$RUN/console.log" "$OUT/console-$k-$b.log"
		stage_done ""
	done
done
{
	echo "command: make bench-cost KVER=$AWS_KVER (REPS=$REPS BOOTS=$BOOTS WRITES=$WRITES SIZE=$SIZE LIMIT=$LIMIT ICOUNT=$ICOUNT)"
	echo "git: $(git -C "$AWS_TOP" rev-parse HEAD 2>/dev/null || echo unknown)$([ -n "$(git -C "$AWS_TOP" status --porcelain 2>/dev/null)" ] && echo ' (tree modified)')"
	echo "host time: $((SECONDS - T0)) s for the guests"
	python3 "$AWS_TOP/harness/bench/bench-cost.py" "$OUT/runs.tsv"
} >"$OUT/summary.txt"
ln -sfn "$STAMP" "$AWS_BUILD/bench-cost$AWS_KSFX/latest"
cat "$OUT/summary.txt"
echo "== bench-cost: results in ${OUT#"$AWS_TOP"/}"
