#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The simulator next to the guest: swap-ins per cell and policy, and
whether the two rank the policies alike.

usage: calibrate.py DIR

DIR is a `make run` result folder with runs.csv (harness/results.py) and
opt.csv (harness/opt.py, which replays each run's page-access trace in
aws-sim's two-list model with the stock, baseline, protect and detect
policies at memory.max / 4 KiB frames).  For every cell with a trace and
for each of those four policies the guest ran (stock 6.1 is the guest's
nomod), this sets the guest's median pswpin beside the simulator's median
on the same traces, and compares the rankings pair by pair:

  the guest orders a pair when the ranges of their runs do not overlap,
  the simulator when the two differ by more than 1 %; a pair is "agree"
  when both order it the same way, "tie" when either cannot order it
  (the guest's spread, or the model's equality), and "CONTRADICT" when
  they order it opposite ways.  A cell's ranking agrees when no pair
  contradicts.

Writes DIR/calib.csv (one row per cell and policy) and DIR/calib.txt (the
table, also printed).  Exit status 0 even when rankings contradict: this
is a measurement, docs/results.md discusses it.  harness/test-results.py
tests it.
"""
import os
import sys

import pandas as pd

GUEST_OF = {"stock": "nomod", "baseline": "baseline", "protect": "protect", "detect": "detect"}
SIM_TIE = 0.01


def table(d):
    runs = pd.read_csv(os.path.join(d, "runs.csv"), keep_default_na=False, na_values=[""])
    opt = pd.read_csv(os.path.join(d, "opt.csv"), keep_default_na=False, na_values=[""])
    opt = opt[opt.trace != "n/a"]
    rows = []
    for cell, o in opt.groupby("cell", sort=False):
        for sim, guest in GUEST_OF.items():
            r = runs[(runs.cell == cell) & (runs.policy == guest)]
            col = "sim_%s_swapins" % sim
            if r.empty or col not in o:
                continue
            rows.append({"cell": cell, "policy": guest, "trace": o.trace.iloc[0],
                         "guest_n": len(r), "guest_median": r.vm_pswpin.median(),
                         "guest_min": r.vm_pswpin.min(), "guest_max": r.vm_pswpin.max(),
                         "sim_median": o[col].median(), "opt_median": o.opt_swapins.median()})
    return pd.DataFrame(rows)


def order_guest(a, b):
    if a.guest_max < b.guest_min:
        return -1
    if b.guest_max < a.guest_min:
        return 1
    return 0


def order_sim(a, b):
    hi = max(a.sim_median, b.sim_median)
    if hi == 0 or abs(a.sim_median - b.sim_median) <= SIM_TIE * hi:
        return 0
    return -1 if a.sim_median < b.sim_median else 1


def pairs(t):
    """[(cell, a, b, verdict)] for every pair of policies in a cell."""
    out = []
    for cell, g in t.groupby("cell", sort=False):
        g = list(g.itertuples())
        for i, a in enumerate(g):
            for b in g[i + 1:]:
                og, os_ = order_guest(a, b), order_sim(a, b)
                v = "tie" if og == 0 or os_ == 0 else "agree" if og == os_ else "CONTRADICT"
                out.append((cell, a.policy, b.policy, v))
    return out


def report(t, ps):
    lines = ["simulator next to guest: median swap-ins (pswpin) per cell and policy, the guest's",
             "min-max, the simulator's two-list model on the same traces at memory.max / 4 KiB",
             "frames (stock = the guest's nomod), and guest/sim; ranking: pairs the two order alike",
             "(agree), that either cannot order (tie), or order opposite ways (CONTRADICT)", ""]
    for cell, g in t.groupby("cell", sort=False):
        cp = [p for p in ps if p[0] == cell]
        bad = [p for p in cp if p[3] == "CONTRADICT"]
        lines.append("%s (%s trace): ranking %s (%d agree, %d tie, %d contradict)%s" % (
            cell, g.trace.iloc[0], "DISAGREES" if bad else "agrees",
            sum(p[3] == "agree" for p in cp), sum(p[3] == "tie" for p in cp), len(bad),
            "; " + ", ".join("%s vs %s" % (p[1], p[2]) for p in bad) if bad else ""))
        for r in g.itertuples():
            lines.append("  %-9s guest %9.0f (%.0f-%.0f)  sim %9.0f  guest/sim %5.2f  OPT %.0f" % (
                r.policy, r.guest_median, r.guest_min, r.guest_max, r.sim_median,
                r.guest_median / r.sim_median if r.sim_median else float("nan"), r.opt_median))
    n = len(t.cell.unique())
    nbad = len({p[0] for p in ps if p[3] == "CONTRADICT"})
    lines += ["", "%d cell(s), rankings agree in %d, contradict in %d" % (n, n - nbad, nbad)]
    return "\n".join(lines)


def main(argv):
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    d = argv[0]
    for f in ("runs.csv", "opt.csv"):
        if not os.path.exists(os.path.join(d, f)):
            print("error: %s has no %s (run harness/results.py and harness/opt.py first)"
                  % (d, f), file=sys.stderr)
            return 1
    t = table(d)
    if t.empty:
        print("calibrate: no cell with a trace and a policy the simulator models")
        return 0
    ps = pairs(t)
    verdict = {c: ("disagrees" if any(p[0] == c and p[3] == "CONTRADICT" for p in ps)
                   else "agrees") for c in t.cell.unique()}
    t["ranking"] = t.cell.map(verdict)
    t.to_csv(os.path.join(d, "calib.csv"), index=False)
    text = report(t, ps)
    with open(os.path.join(d, "calib.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
