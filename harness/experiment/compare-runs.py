#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare-runs.py - did a code change move the numbers of `make run`?

usage: harness/experiment/compare-runs.py OLD NEW [--cells a,b,...] [--metrics m,...]

OLD and NEW are two `make run` result folders (or their runs.csv).

For every (cell, policy) present in both runs and each count it prints the
two medians and the range of all pairwise differences new - old (with 3
runs each, the distribution-free interval of the shift at 90%: see
docs/results.md).  "same" means the range contains 0.  Cells driven by a
duration (zipf and randw before they took a fixed count of records and
writes) do as much work as the host lets them, so they are comparable
only between runs on equally loaded hosts; the no-module policy (nomod)
is the control that shows it.  Exit status 1 if a module
policy moved on a selected cell.  --metrics compares other columns of
runs.csv instead of the four counts (wall_s, psi_some_us: the times that
a guest beside it may move).
"""
import argparse
import os
import sys

import pandas as pd

from opt import stored

METRICS = ["vm_pswpin", "vm_pswpout", "vm_workingset_refault_anon",
           "vm_workingset_activate_anon"]
CONTROLS = {"nomod", "mglru"}


def num(x):
    """a count as an integer, a time to the hundredth"""
    return int(x) if float(x).is_integer() or abs(x) >= 1000 else round(float(x), 2)


def compare(old, new, metrics=METRICS):
    rows = []
    for (cell, pol), g in new.groupby(["cell", "policy"], sort=True):
        o = old[(old.cell == cell) & (old.policy == pol)]
        for m in metrics:
            if m not in g or m not in o:
                continue
            a, b = o[m].dropna(), g[m].dropna()
            if a.empty or b.empty:
                continue
            d = sorted(x - y for x in b for y in a)
            rows.append({"cell": cell, "policy": pol, "metric": m[3:] if m.startswith("vm_") else m,
                         "old": num(a.median()), "new": num(b.median()),
                         "lo": num(d[0]), "hi": num(d[-1]),
                         "same": d[0] <= 0 <= d[-1]})
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--cells", help="comma list of cells to judge (default all)")
    ap.add_argument("--metrics", help="comma list of runs.csv columns (default: the four counts)")
    args = ap.parse_args()
    # a folder's runs.csv, or its gzipped copy (results/ keeps them so)
    old, new = (stored(p, "runs.csv") if os.path.isdir(p) else p for p in (args.old, args.new))
    try:
        df = compare(pd.read_csv(old), pd.read_csv(new),
                     args.metrics.split(",") if args.metrics else METRICS)
    except OSError as e:
        sys.exit("compare-runs: %s" % e)
    if df.empty:
        sys.exit("compare-runs: no (cell, policy) in both runs")
    if args.cells:
        df = df[df.cell.isin(args.cells.split(","))]
    print(df.to_string(index=False))
    moved = df[~df.same & ~df.policy.isin(CONTROLS)]
    ctl = df[~df.same & df.policy.isin(CONTROLS)]
    print(f"\n{len(df)} comparisons, {int(df.same.sum())} the same; "
          f"module policies moved: {len(moved)}; controls moved: {len(ctl)}")
    sys.exit(1 if len(moved) else 0)


if __name__ == "__main__":
    main()
