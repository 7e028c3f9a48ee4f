#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How well the simulator's models follow the guest, per instance, in
several model variants (the two-list model one page per fault, or in the
kernel's batches, aws-sim --batch).

usage: simguest.py DIR [DIR ...] [--variant NAME=ARGS ...] [--bin DIR] [--csv FILE]

Each DIR is a `make run` result folder with runs.csv (a stored one, as
results/sample-6.1).  For every cell whose workload has a trace
(harness/experiment/opt.py's trace_recipe(): the workload says, exact or
approximate; the sample's aws-instance cells are exact) and every
repetition the guest ran under nomod, this replays the trace in aws-sim at
memory.max / 4 KiB frames with --ratio auto (as opt.py does) and the
stock and hold policies and the MGLRU models, once per variant (default:
one="" and batch="--batch"), and takes each policy's median over the
repetitions.  Then, per DIR and variant, Spearman's rank correlation
across cells (pandas' average ranks, as calibrate.py) of:

  stock   the simulator's stock swap-ins against the guest's nomod median
  hold    the simulator's hold against the guest's hold median
  hold/st the simulator's (hold + 1) / (stock + 1) against the guest's
          (hold + 1) / (nomod + 1): whether a policy's gain transfers
  mglru   the MGLRU model's (MGLRU + 1) / (stock + 1) against the guest's
          (mglru + 1) / (nomod + 1); mglru-batch the same with the
          model's batch reclaim (aws-sim mglru-batch)

with n, the cells that have both; and the median, 10th and 90th
percentile of (sim + 1) / (guest + 1) for stock.  Writes --csv (default: none) with one row per DIR, cell and
variant.

--families FILE judges the MGLRU model per family of the distribution, on
the cells named FAMILY-INDEX (a sample plan's, sample.py --write-plan):
for each variant, MGLRU model (mglru, mglru-batch) and family, n, the rank correlation of the model's
MGLRU/stock ratio against the guest's, and the median ratio of the two
ratios; a family whose correlation is at least 0.9 and whose median lies
within 0.9-1.1 (issue 41) is "model": the simulator's verdicts on it
stand; any other is "guest only": its verdicts come from the guest's
sample, and docs say so.  A family of fewer than 10 instances is "too
few": no correlation of so few ranks tells.  Writes FILE (CSV) and prints
the table, an "all" row first.  A cell with no trace, or whose host trace's RESULT keys differ
from the guest's, is left out and named.  Standard library and pandas.
"""
import argparse
import csv
import os
import shlex
import subprocess
import sys
import tempfile

import pandas as pd

import opt

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POLICIES = "stock,hold,mglru,mglru-batch"
ROWS = {"stock": "stock", "hold": "hold", "MGLRU": "mglru", "MGLRU-batch": "mglru_batch"}


def sim_run(simbin, args, frames, extra, tmp):
    out = os.path.join(tmp, "sim.csv")
    subprocess.run([simbin] + args + ["--ratio", "auto", "--frames", str(frames), "--policies",
                                      POLICIES, "--csv", out] + shlex.split(extra),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with open(out) as f:
        return {ROWS[r["policy"]]: int(r["swapins_measured"]) for r in csv.DictReader(f)}


def cell_sims(runs, cell, binary, variants, tmp):
    """{variant: {policy: median swap-ins}} over the nomod repetitions, or a
    reason (str) the cell has none."""
    mine = [r for r in runs if r["cell"] == cell]
    nomod = [r for r in mine if r["policy"] == "nomod"]
    if not nomod:
        return "no nomod run"
    per = {v: [] for v in variants}
    for rep in sorted({int(r["rep"]) for r in nomod}):
        p = opt.trace_recipe(nomod[0]["cmd"], nomod[0]["limit"], rep, binary)
        if p["kind"] == "n/a":
            return p["note"]
        if p["kind"] == "exact":
            tr = os.path.join(tmp, "trace")
            r = subprocess.run([os.path.join(binary, "aws-" + p["argv"][0])] + p["argv"][1:] +
                               ["--save-trace", tr], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={k: v for k, v in os.environ.items()
                                               if k != "AWS_MEM_LIMIT_MB"})
            if r.returncode:
                return "trace failed: " + r.stderr.strip()[-160:]
            want, args = opt.deterministic(opt.result_keys(r.stdout)), ["--trace", tr]
        else:
            want, args = p["expect"], p["sim"]
        bad = opt.mismatch([r for r in mine if str(r["rep"]) == str(rep)], want)
        if bad:
            return "not the guest's trace: " + bad
        for v, extra in variants.items():
            per[v].append(sim_run(os.path.join(binary, "aws-sim"), args, p["frames"], extra, tmp))
    return {v: pd.DataFrame(rs).median().to_dict() for v, rs in per.items()}


def guest_medians(df, cell):
    g = df[df.cell == cell]
    return {p: g[g.policy == p].vm_pswpin.median() for p in ("nomod", "hold", "mglru")}


def rho(a, b):
    d = pd.DataFrame({"a": a, "b": b}).dropna()
    return (d.a.rank().corr(d.b.rank()) if len(d) > 2 else float("nan")), len(d)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--variant", action="append", default=None,
                    help="NAME=ARGS, extra aws-sim arguments (default: one= and batch=--batch)")
    ap.add_argument("--bin", default=os.path.join(opt.BUILD, "userspace"))
    ap.add_argument("--csv")
    ap.add_argument("--families", metavar="FILE", help="the MGLRU model judged per family, to FILE")
    a = ap.parse_args(argv)
    variants = dict(v.split("=", 1) for v in (a.variant or ["one=", "batch=--batch"]))
    rows = []
    with tempfile.TemporaryDirectory(prefix="aws-simguest.") as tmp:
        for d in a.dirs:
            runs = opt.read_runs(d)
            df = pd.read_csv(opt.stored(d, "runs.csv"), keep_default_na=False, na_values=[""])
            for cell in dict.fromkeys(r["cell"] for r in runs):
                s = cell_sims(runs, cell, a.bin, variants, tmp)
                if isinstance(s, str):
                    print("%s: %s left out: %s" % (d, cell, s[:120]))
                    continue
                g = guest_medians(df, cell)
                for v in variants:
                    rows.append(dict(dir=os.path.basename(os.path.normpath(d)), cell=cell, variant=v,
                                     guest_nomod=g["nomod"], guest_hold=g["hold"],
                                     guest_mglru=g["mglru"], **{"sim_" + k: x for k, x in s[v].items()}))
    t = pd.DataFrame(rows)
    if a.csv:
        t.to_csv(a.csv, index=False)
    if t.empty:
        print("no cell with a trace")
        return 1
    print("Spearman's rho across cells, simulator against the guest's medians (n cells):")
    print("%-15s %-7s %12s %12s %12s %12s %12s  %s" % (
        "dir", "variant", "stock", "hold", "hold/st", "mglru/st", "mglru-b/st",
        "stock sim/guest p50 (p10-p90)"))
    for (d, v), g in t.groupby(["dir", "variant"], sort=False):
        gr = (g.guest_mglru + 1) / (g.guest_nomod + 1)
        cols = [rho(g.sim_stock, g.guest_nomod), rho(g.sim_hold, g.guest_hold),
                rho((g.sim_hold + 1) / (g.sim_stock + 1), (g.guest_hold + 1) / (g.guest_nomod + 1)),
                rho((g.sim_mglru + 1) / (g.sim_stock + 1), gr),
                rho((g.sim_mglru_batch + 1) / (g.sim_stock + 1), gr)]
        q = (g.sim_stock + 1) / (g.guest_nomod + 1)
        print("%-15s %-7s %s  %.3f (%.3f-%.3f)" % (d, v, " ".join("%7.3f (%2d)" % c for c in cols),
                                                   q.median(), q.quantile(0.1), q.quantile(0.9)))
    if a.families:
        f = families(t)
        if f.empty:
            print("--families: no cell is named FAMILY-INDEX")
            return 1
        f.to_csv(a.families, index=False)
        print("\nThe MGLRU model per family: rank correlation of its MGLRU/stock against the"
              " guest's, median (model ratio) / (guest ratio); model where rho >= %.1f and the"
              " median is within %.1f-%.1f" % (FAMILY_RHO, FAMILY_BAND[0], FAMILY_BAND[1]))
        print("%-7s %-11s %-9s %4s %7s %8s  %s" % ("variant", "model", "family", "n", "rho", "median",
                                                  "verdicts from"))
        for r in f.itertuples():
            print("%-7s %-11s %-9s %4d %7.3f %8.3f  %s" % (r.variant, r.model, r.family, r.n, r.rho,
                                                          r.median, r.source))
    return 0


FAMILY_RHO = 0.9
FAMILY_BAND = (0.9, 1.1)
FAMILY_MIN = 10


def families(t):
    """The MGLRU model judged per family (and over all of them): one row
    per variant and family, its source "model", "guest only" or "too few"."""
    t = t.assign(family=t.cell.str.extract(r"^([a-z]+)-[0-9]+$", expand=False)).dropna(subset=["family"])
    rows = []
    for (v, m), g in [((v, m), g) for v, g in t.groupby("variant", sort=False)
                      for m in ("mglru", "mglru_batch")]:
        for fam, h in [("all", g)] + sorted(g.groupby("family")):
            model = (h["sim_" + m] + 1) / (h.sim_stock + 1)
            guest = (h.guest_mglru + 1) / (h.guest_nomod + 1)
            r, n = rho(model, guest)
            med = (model / guest).median()
            if n < FAMILY_MIN:
                src = "too few"
            elif r >= FAMILY_RHO and FAMILY_BAND[0] <= med <= FAMILY_BAND[1]:
                src = "model"
            else:
                src = "guest only"
            rows.append(dict(variant=v, model=m.replace("_", "-"), family=fam, n=n, rho=r,
                             median=med, source=src))
    return pd.DataFrame(rows)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
