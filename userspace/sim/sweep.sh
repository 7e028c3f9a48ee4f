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
#   regret: the evidence it needs before it takes hold's rule
#           (REGRET_FLOOR, an eighth of resident anon); judged, instead
#           of on the cells, on make sim's distribution at the guest
#           sample's size (560 instances of rng seed 1 at 4096 frames,
#           the real model with the kernel's reclaim batches, --batch)
#           against stock 6.1 alone,
#           whose model follows the guest (docs/sim.md): per family, the
#           median, 95th percentile and worst of (regret + 64) / (stock +
#           64), and the instances above 1.03
#
# Usage: sweep.sh stable|hold|regret
# (hold2's sweep, results/sim/sweep-hold2.txt, was made at 8153691, with
# hold2, since removed for regret.)
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
regret)
	variants=()
	for f in 2 4 6 8 12 16 32 64; do
		variants+=("floor$f|-DREGRET_FLOOR=$f")
	done ;;
*)
	echo "usage: sweep.sh stable|hold|regret" >&2
	exit 2 ;;
esac
OUT=$TOP/build/sim/sweep/$POLICY
mkdir -p "$OUT"

if [ "$POLICY" = regret ]; then
	# shellcheck source=harness/lib.sh
	. "$TOP/harness/lib.sh"
	PY=$(aws_python) || die "no python3 with pandas (run: make deps)"
	model=(--frames 4096 --batch --policies "upstream,regret")
	printf "%-8s %-9s %6s %6s %7s %6s\n" variant family median p95 worst above
	for v in "${variants[@]}"; do
		name=${v%%|*}
		defs=${v#*|}
		nice -n 19 make -s -C "$TOP/userspace/sim" O="$OUT/$name" \
			CFLAGS="-O2 -g $defs" >/dev/null
		nice -n 19 "$OUT/$name/aws-sim" --distribution 560 --dist-seed 1 \
			--fault-young --refault-deactivate --ratio auto "${model[@]}" \
			--csv "$OUT/$name/dist.csv" >/dev/null \
			2> >(grep -v '^aws-sim: [0-9]* of [0-9]* instances' >&2)
		"$PY" - "$OUT/$name/dist.csv" "$name" <<'PY'
import sys
import pandas as pd
d = pd.read_csv(sys.argv[1])
w = d.pivot_table(index=["instance", "family"], columns="policy", values="swapins").reset_index()
w["r"] = (w["regret"] + 64) / (w["upstream"] + 64)
for fam, g in list(w.groupby("family")) + [("ALL", w)]:
    print("%-8s %-9s %6.3f %6.3f %7.2f %6d" % (sys.argv[2], fam, g.r.median(), g.r.quantile(0.95),
                                               g.r.max(), (g.r > 1.03).sum()))
PY
	done
	exit 0
fi

. "$TOP/userspace/sim/cell-models.sh"
for v in "${variants[@]}"; do
	name=${v%%|*}
	defs=${v#*|}
	nice -n 19 make -s -C "$TOP/userspace/sim" O="$OUT/$name" \
		CFLAGS="-O2 -g $defs" >/dev/null
	while IFS='|' read -r cell args model flags; do
		# shellcheck disable=SC2086
		nice -n 19 "$OUT/$name/aws-sim" $args $flags --ratio auto \
			--policies "$POLICY,opt" </dev/null |
			awk -v v="$name" -v c="$cell" -v m="$model" -v p="$POLICY" \
				'$1 == p { printf "%-8s %-9s %-8s %8s %s\n", v, c, m, $10, $11 }'
	done < <(cell_models)
done
