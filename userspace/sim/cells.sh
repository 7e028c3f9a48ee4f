#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cells of docs/stable.md and docs/hold.md: the design cells and the
# held-out ones, each in the simulator's two models (cell-models.sh), under
# every policy of the comparison plus LRU and OPT.  Prints one line per
# (cell, model, policy): measured swap-ins and x OPT; CSVs in
# build/sim/cells/.
# Usage: cells.sh [aws-sim]
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SIM=${1:-$TOP/build/userspace/aws-sim}
OUT=$TOP/build/sim/cells
POL=stock,protect,detect,stable,hold,lru,opt
[ -x "$SIM" ] || { echo "cells.sh: $SIM missing (run: make userspace)" >&2; exit 1; }
mkdir -p "$OUT"

. "$TOP/userspace/sim/cell-models.sh"
while IFS='|' read -r name args model flags; do
	csv=$OUT/$name-$model.csv
	# shellcheck disable=SC2086
	nice -n 19 "$SIM" $args $flags --ratio auto --policies $POL --csv "$csv" </dev/null >/dev/null
	awk -F, -v n="$name" -v m="$model" 'NR > 1 {
		printf "%-10s %-8s %-8s %10s %s\n", n, m, $2, $22, $23 }' "$csv"
done < <(cell_models)
