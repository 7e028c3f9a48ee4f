#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cells of docs/stable.md: issue 13's and the held-out ones, each in
# two models - the realistic one ("real": --fault-young
# --refault-deactivate, what x86 and 6.1's prepare_scan_count() do) and
# the default one ("default": neither) - every policy of the comparison
# plus LRU and OPT.  Prints one line per (cell, model, policy): measured
# swap-ins and x OPT; CSVs in build/sim/stable/.
# Usage: cells-stable.sh [aws-sim]
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SIM=${1:-$TOP/build/userspace/aws-sim}
OUT=$TOP/build/sim/stable
POL=stock,protect,detect,stable,lru,opt
mkdir -p "$OUT"

# NAME|ARGS lines of cells-stable.list
mapfile -t cells < <(grep -v '^#' "$TOP/userspace/sim/cells-stable.list")
for c in "${cells[@]}"; do
	name=${c%%|*}
	args=${c#*|}
	for model in real default; do
		flags=
		[ "$model" = real ] && flags="--fault-young --refault-deactivate"
		csv=$OUT/$name-$model.csv
		# shellcheck disable=SC2086
		nice -n 19 "$SIM" $args $flags --ratio auto --policies $POL --csv "$csv" >/dev/null
		awk -F, -v n="$name" -v m="$model" 'NR > 1 {
			printf "%-10s %-13s %-8s %10s %s\n", n, m, $2, $22, $23 }' "$csv"
	done
done
