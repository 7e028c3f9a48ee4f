#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sensitivity of module/policies/stable.c to its two derived constants:
# the active list's capacity A as a fraction of resident anon
# (STABLE_CAP_NUM/DEN, 1/2; the subset's room is A - W) and the memory of
# the rates (STABLE_WINDOW, 1 memory of ticks).  Each variant is a
# separate aws-sim built with -D overrides in
# build/sim/sweep-stable/<variant>/ (never in the source tree); each runs
# every cell of cells-stable.sh in the realistic model (--fault-young
# --refault-deactivate, "real") and the default one.  Prints
# "variant cell model measured xOPT" (xOPT "-" where OPT has none).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/sim/sweep-stable
mkdir -p "$OUT"

variants=(
	"cap1of4|-DSTABLE_CAP_NUM=1 -DSTABLE_CAP_DEN=4"
	"cap1of3|-DSTABLE_CAP_NUM=1 -DSTABLE_CAP_DEN=3"
	"cap1of2|"
	"cap2of3|-DSTABLE_CAP_NUM=2 -DSTABLE_CAP_DEN=3"
	"cap3of4|-DSTABLE_CAP_NUM=3 -DSTABLE_CAP_DEN=4"
	"win2|-DSTABLE_WINDOW=2"
	"win4|-DSTABLE_WINDOW=4"
	"win16|-DSTABLE_WINDOW=16"
)
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
for v in "${variants[@]}"; do
	name=${v%%|*}
	defs=${v#*|}
	nice -n 19 make -s -C "$TOP/userspace/sim" O="$OUT/$name" \
		CFLAGS="-O2 -g $defs" >/dev/null
	for c in "${cells[@]}"; do
		cell=${c%%|*}
		args=${c#*|}
		for model in real default; do
			flags=
			[ "$model" = real ] && flags="--fault-young --refault-deactivate"
			# shellcheck disable=SC2086
			nice -n 19 "$OUT/$name/aws-sim" $args $flags --ratio auto \
				--policies stable,opt |
			awk -v v="$name" -v c="$cell" -v m="$model" \
				'$1 == "stable" { printf "%-8s %-8s %-13s %8s %s\n", v, c, m, $10, $11 }'
		done
	done
done
