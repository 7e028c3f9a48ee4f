#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sensitivity of module/policies/stable.c to its two derived constants:
# the active list's capacity A as a fraction of resident anon
# (STABLE_CAP_NUM/DEN, 1/2; the subset's room is A - W) and the memory of
# the rates (STABLE_WINDOW, 1 memory of ticks).  Each variant is a
# separate aws-sim built with -D overrides in
# build/sim/sweep-stable/<variant>/ (never in the source tree); each runs
# every cell of cells-stable.list in the realistic model (--fault-young
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
# NAME|ARGS lines of cells-stable.list
mapfile -t cells < <(grep -v '^#' "$TOP/userspace/sim/cells-stable.list")
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
