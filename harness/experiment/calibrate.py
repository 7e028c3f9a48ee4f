#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The simulator next to the guest: swap-ins per cell and policy, and
whether the two rank the policies alike.

usage: calibrate.py DIR

DIR is a `make run` result folder with runs.csv
(harness/experiment/results.py) and opt.csv (harness/experiment/opt.py,
which replays each run's page-access trace in aws-sim's two-list model
with the stock, baseline, protect, detect, stable and hold policies and
in its model of MGLRU, at memory.max / 4 KiB frames, in two variants:
"sim", a faulted-in page starts unreferenced, and "young",
--fault-young).  For every cell with a trace and for each of those
policies the guest ran (stock 6.1 is the guest's nomod), this sets the guest's median pswpin
beside each model's median on the same traces, and compares the rankings
pair by pair, for each model:

  the guest orders a pair when the ranges of their runs do not overlap,
  the simulator when the two differ by more than 1 %; a pair is "agree"
  when both order it the same way, "tie" when either cannot order it
  (the guest's spread, or the model's equality), and "CONTRADICT" when
  they order it opposite ways.  A cell's ranking agrees when no pair
  contradicts.  Then, per policy over all cells: the model's swap-ins
  against the guest's, their rank correlation across cells, and the pairs
  involving that policy by verdict (the calibration of the MGLRU model
  is its row).

Writes DIR/calib.csv (one row per cell and policy) and DIR/calib.txt (the
table, also printed).  Exit status 0 even when rankings contradict: this
is a measurement, docs/results.md discusses it.  harness/unit/test-results.py
tests it.
"""
import os
import sys

import pandas as pd

from opt import stored  # harness/experiment/opt.py: a stored folder's CSVs may be gzipped

GUEST_OF = {"stock": "nomod", "baseline": "baseline", "protect": "protect", "detect": "detect",
            "stable": "stable", "hold": "hold", "regret": "regret", "mglru": "mglru"}
MODELS = ("sim", "young")
SIM_TIE = 0.01


def table(d):
    runs = pd.read_csv(stored(d, "runs.csv"), keep_default_na=False, na_values=[""])
    opt = pd.read_csv(stored(d, "opt.csv"), keep_default_na=False, na_values=[""])
    opt = opt[opt.trace != "n/a"]
    rows = []
    for cell, o in opt.groupby("cell", sort=False):
        for sim, guest in GUEST_OF.items():
            r = runs[(runs.cell == cell) & (runs.policy == guest)]
            if r.empty or "sim_%s_swapins" % sim not in o:
                continue
            row = {"cell": cell, "policy": guest, "trace": o.trace.iloc[0],
                   "guest_n": len(r), "guest_median": r.vm_pswpin.median(),
                   "guest_min": r.vm_pswpin.min(), "guest_max": r.vm_pswpin.max(),
                   "opt_median": o.opt_swapins.median()}
            for m in MODELS:
                col = "%s_%s_swapins" % (m, sim)
                row[m + "_median"] = o[col].median() if col in o else float("nan")
            rows.append(row)
    return pd.DataFrame(rows)


def order_guest(a, b):
    if a.guest_max < b.guest_min:
        return -1
    if b.guest_max < a.guest_min:
        return 1
    return 0


def order_sim(a, b, m):
    x, y = getattr(a, m + "_median"), getattr(b, m + "_median")
    hi = max(x, y)
    if not hi > 0 or abs(x - y) <= SIM_TIE * hi:
        return 0
    return -1 if x < y else 1


def pairs(t, m="sim"):
    """[(cell, a, b, verdict)] for every pair of policies in a cell, model M."""
    out = []
    for cell, g in t.groupby("cell", sort=False):
        g = list(g.itertuples())
        for i, a in enumerate(g):
            for b in g[i + 1:]:
                og, os_ = order_guest(a, b), order_sim(a, b, m)
                v = "tie" if og == 0 or os_ == 0 else "agree" if og == os_ else "CONTRADICT"
                out.append((cell, a.policy, b.policy, v))
    return out


def report(t, ps):
    """PS: {model: pairs}."""
    lines = ["simulator next to guest: median swap-ins (pswpin) per cell and policy, the guest's",
             "min-max, and the simulator's two-list model on the same traces at memory.max / 4 KiB",
             "frames (stock = the guest's nomod): sim = its default model, young = --fault-young;",
             "ranking, per model: pairs the two order alike (agree), that either cannot order",
             "(tie), or order opposite ways (CONTRADICT)", ""]
    for cell, g in t.groupby("cell", sort=False):
        lines.append("%s (%s trace)" % (cell, g.trace.iloc[0]))
        for m in MODELS:
            cp = [p for p in ps[m] if p[0] == cell]
            bad = [p for p in cp if p[3] == "CONTRADICT"]
            lines.append("  %-5s ranking %s (%d agree, %d tie, %d contradict)%s" % (
                m, "DISAGREES" if bad else "agrees", sum(p[3] == "agree" for p in cp),
                sum(p[3] == "tie" for p in cp), len(bad),
                "; " + ", ".join("%s vs %s" % (p[1], p[2]) for p in bad) if bad else ""))
        for r in g.itertuples():
            lines.append("  %-9s guest %7.0f (%.0f-%.0f)  sim %7.0f  young %7.0f  OPT %.0f" % (
                r.policy, r.guest_median, r.guest_min, r.guest_max, r.sim_median,
                r.young_median, r.opt_median))
    n = len(t.cell.unique())
    lines.append("")
    for m in MODELS:
        nbad = len({p[0] for p in ps[m] if p[3] == "CONTRADICT"})
        lines.append("%-5s: %d cell(s), rankings agree in %d, contradict in %d" % (m, n, n - nbad, nbad))
    lines += [""] + per_policy(t, ps)
    return "\n".join(lines)


def per_policy(t, ps):
    """Each policy over the cells, per model: the model's swap-ins against
    the guest's (median of (model + 1) / (guest + 1), and its 10th and 90th
    percentile), the rank correlation of the two across cells, and the
    pairs with another policy of the same cell that the two order alike."""
    lines = ["per policy over the cells: model / guest swap-ins (median, p10-p90), Spearman's rank",
             "correlation across cells, and the pairs with the policy that agree, tie, contradict"]
    for pol, g in t.groupby("policy", sort=False):
        for m in MODELS:
            r = (g[m + "_median"] + 1) / (g.guest_median + 1)
            rho = g.guest_median.rank().corr(g[m + "_median"].rank()) if len(g) > 2 else float("nan")
            mine = [p[3] for p in ps[m] if pol in (p[1], p[2])]
            lines.append("  %-9s %-5s %3d cells  %.2f (%.2f-%.2f)  rho %5.2f  %d agree, %d tie, %d contradict"
                         % (pol, m, len(g), r.median(), r.quantile(0.1), r.quantile(0.9), rho,
                            mine.count("agree"), mine.count("tie"), mine.count("CONTRADICT")))
    return lines


def main(argv):
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    d = argv[0]
    for f in ("runs.csv", "opt.csv"):
        if not os.path.exists(stored(d, f)):
            print("error: %s has no %s (run harness/experiment/results.py and"
                  " harness/experiment/opt.py first)" % (d, f), file=sys.stderr)
            return 1
    t = table(d)
    if t.empty:
        print("calibrate: no cell with a trace and a policy the simulator models")
        return 0
    ps = {m: pairs(t, m) for m in MODELS}
    for m in MODELS:
        verdict = {c: ("disagrees" if any(p[0] == c and p[3] == "CONTRADICT" for p in ps[m])
                       else "agrees") for c in t.cell.unique()}
        t["ranking_" + m] = t.cell.map(verdict)
    t.to_csv(os.path.join(d, "calib.csv"), index=False)
    text = report(t, ps)
    with open(os.path.join(d, "calib.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
