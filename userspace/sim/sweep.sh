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
#   regret-experts: not a constant but an ablation, on the same
#           distribution: each rule regret chooses among (recency's,
#           stock's, hold's) run alone from the start (REGRET_EXPERT,
#           regret.c); per family, each against stock, regret against
#           the best of its three in each instance (what choosing
#           costs), and that best against stock, plain LRU and the
#           MGLRU model (what no choice among them reaches)
#
# Usage: sweep.sh stable|hold|regret|regret-experts
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
regret-experts)
	variants=("regret|" "recency|-DREGRET_EXPERT=1" "stock|-DREGRET_EXPERT=2"
		"hold|-DREGRET_EXPERT=3") ;;
*)
	echo "usage: sweep.sh stable|hold|regret|regret-experts" >&2
	exit 2 ;;
esac
OUT=$TOP/build/sim/sweep/$POLICY
mkdir -p "$OUT"

# dist_run NAME DEFS POLICIES: make sim's distribution at the guest
# sample's size, in the batched real model, into $OUT/NAME/dist.csv
dist_run() {
	nice -n 19 make -s -C "$TOP/userspace/sim" O="$OUT/$1" CFLAGS="-O2 -g $2" >/dev/null
	nice -n 19 "$OUT/$1/aws-sim" --distribution 560 --dist-seed 1 \
		--fault-young --refault-deactivate --ratio auto --frames 4096 --batch \
		--policies "$3" --csv "$OUT/$1/dist.csv" >/dev/null \
		2> >(grep -v '^aws-sim: [0-9]* of [0-9]* instances' >&2)
}
case $POLICY in
regret*)
	# shellcheck source=harness/lib.sh
	. "$TOP/harness/lib.sh"
	PY=$(aws_python) || die "no python3 with pandas (run: make deps)" ;;
esac

if [ "$POLICY" = regret-experts ]; then
	csvs=()
	for v in "${variants[@]}"; do
		name=${v%%|*}
		policies=regret
		[ "$name" != regret ] || policies=upstream,regret,lru,mglru
		dist_run "$name" "${v#*|}" "$policies"
		csvs+=("$name=$OUT/$name/dist.csv")
	done
	"$PY" - "${csvs[@]}" <<'PY'
import sys
import pandas as pd
runs = dict(a.split("=", 1) for a in sys.argv[1:])
w = None
for name, path in runs.items():
    d = pd.read_csv(path)
    d["policy"] = d["policy"].replace({"regret": name})
    p = d.pivot_table(index=["instance", "family"], columns="policy", values="swapins")
    w = p if w is None else w.join(p)
w = w.reset_index()
experts = ["recency", "stock", "hold"]
w["best3"] = w[experts].min(axis=1)
def r(a, b):
    return (a + 64) / (b + 64)
fams = list(w.groupby("family")) + [("ALL", w)]
print("each rule alone against stock: median, p95, instances above 1.03")
print("%-6s %-8s" % ("table", "family") + "".join(" %-19s" % n for n in ["regret"] + experts))
for fam, g in fams:
    print("alone  %-8s" % fam + "".join(" %6.3f %6.2f %5d" % (x.median(), x.quantile(0.95), (x > 1.03).sum())
                                 for x in (r(g[n], g["upstream"]) for n in ["regret"] + experts)))
print()
print("%-6s %-8s %-19s %-19s %-13s %-13s" % ("table", "family", "regret/best3", "best3/stock", "best3/LRU",
                                               "best3/MGLRU"))
for fam, g in fams:
    a, b = r(g["regret"], g["best3"]), r(g["best3"], g["upstream"])
    c, m = r(g["best3"], g["LRU"]), r(g["best3"], g["MGLRU"])
    print("choice %-8s %6.3f %6.2f %5d %6.3f %6.2f %5d %6.3f %6.2f %6.3f %6.2f" % (
        fam, a.median(), a.quantile(0.95), (a > 1.03).sum(), b.median(), b.quantile(0.95), (b > 1.03).sum(),
        c.median(), c.quantile(0.95), m.median(), m.quantile(0.95)))
PY
	exit 0
fi

if [ "$POLICY" = regret ]; then
	printf "%-8s %-9s %6s %6s %7s %6s\n" variant family median p95 worst above
	for v in "${variants[@]}"; do
		name=${v%%|*}
		dist_run "$name" "${v#*|}" upstream,regret
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
