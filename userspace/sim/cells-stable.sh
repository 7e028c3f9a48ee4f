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

cells=(
	"thrash|--pattern thrash --rounds 8 --frames-mb 280"
	"loop|--pattern loop --loop-mb 160 --loops 4 --frames-mb 128"
	"zipf|--pattern zipf --alpha 0.9 --zipf-pages 65536 --accesses 1000000 --frames-mb 128"
	"scanhot|--pattern scanhot --hot-mb 96 --scan-mb 64 --rounds 8 --frames-mb 128"
	"protect|--pattern protect"
	"thrash-A|--pattern thrash --rounds 8 --frames-mb 200 --cold-mb 384 --hot1-mb 64 --hot2-mb 64 --slice-mb 96"
	"thrash-B|--pattern thrash --rounds 8 --frames-mb 400 --cold-mb 768 --hot1-mb 128 --hot2-mb 160 --slice-mb 160"
	"loop-A|--pattern loop --loop-mb 300 --loops 6 --frames-mb 256"
	"loop-B|--pattern loop --loop-mb 200 --loops 4 --frames-mb 128"
	"zipf-A|--pattern zipf --alpha 0.8 --zipf-pages 32768 --accesses 1000000 --frames-mb 64"
	"zipf-B|--pattern zipf --alpha 1.0 --zipf-pages 49152 --accesses 1000000 --frames-mb 96"
	"scanhot-A|--pattern scanhot --hot-mb 64 --scan-mb 96 --rounds 8 --frames-mb 128"
	"scanhot-B|--pattern scanhot --hot-mb 160 --scan-mb 64 --rounds 8 --frames-mb 192"
)
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
