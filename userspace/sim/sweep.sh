#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sensitivity of a policy of our own to its derived constants: each
# variant is a separate aws-sim built with -D overrides in
# build/sim/sweep/<policy>/<variant>/ (never in the source tree), and
# runs every cell of cells.list in the realistic model (--fault-young
# --refault-deactivate, "real") and the default one.  Prints "variant
# cell model measured xOPT" (xOPT "-" where OPT has none).
#
#   stable: the active list's capacity A as a fraction of resident anon
#           (STABLE_CAP_NUM/DEN, 1/2) and the memory of its rates
#           (STABLE_WINDOW, 1 memory of ticks)
#   hold:   the floor of the inactive ratio (HOLD_RATIO, 3) and the
#           majority that lets long refaults displace (HOLD_STAY, 2)
#
# Usage: sweep.sh stable|hold
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
POLICY=${1:-}
case $POLICY in
stable)
	variants=(
		"cap1of4|-DSTABLE_CAP_NUM=1 -DSTABLE_CAP_DEN=4"
		"cap1of3|-DSTABLE_CAP_NUM=1 -DSTABLE_CAP_DEN=3"
		"cap1of2|"
		"cap2of3|-DSTABLE_CAP_NUM=2 -DSTABLE_CAP_DEN=3"
		"cap3of4|-DSTABLE_CAP_NUM=3 -DSTABLE_CAP_DEN=4"
		"win2|-DSTABLE_WINDOW=2"
		"win4|-DSTABLE_WINDOW=4"
		"win16|-DSTABLE_WINDOW=16"
	) ;;
hold)
	variants=()
	for r in 1 2 3 4 5 7 10 15; do
		variants+=("ratio$r|-DHOLD_RATIO=$r")
	done
	for s in 1 2 4 8; do
		variants+=("stay$s|-DHOLD_STAY=$s")
	done ;;
*)
	echo "usage: sweep.sh stable|hold" >&2
	exit 2 ;;
esac
OUT=$TOP/build/sim/sweep/$POLICY
mkdir -p "$OUT"

# NAME|ARGS lines of cells.list
mapfile -t cells < <(grep -v '^#' "$TOP/userspace/sim/cells.list")
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
				--policies "$POLICY,opt" |
			awk -v v="$name" -v c="$cell" -v m="$model" -v p="$POLICY" \
				'$1 == p { printf "%-8s %-9s %-8s %8s %s\n", v, c, m, $10, $11 }'
		done
	done
done
