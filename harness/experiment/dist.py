#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Policies judged on a distribution of workloads, not on cells.

usage: dist.py CSV [--out DIR] [--ref upstream] [--peers upstream,MGLRU] [--goals hold,regret]

CSV is what `aws-sim --distribution N --csv CSV` writes: one row per
instance and policy, with the instance's family, drawn parameters and the
policy's swap-ins (misses on pages touched before; userspace/sim/dist.c).
For every policy this prints, against the reference (the simulator's
`upstream`, which is stock 6.1's algorithm), against plain LRU and against
OPT, the distribution of the per-instance ratio (swap-ins + 1) / (the
other's + 1): median, p5, p95 and the worst, with the worst instance's
family and parameters, so that it can be rebuilt by hand; then the
median and worst against the reference per family.  It writes
DIR/dist-summary.csv (the same figures) and DIR/dist-cdf.png (each
policy's ratio to the reference as a CDF over all instances, log scale,
clipped to CLIP).

Then the goals (harness/experiment/goals.py) of each --goals policy
against the better of the peers (stock 6.1's algorithm and the model of
MGLRU, whichever missed less on each instance), met or missed, written to
DIR/dist-goals.csv.  A peer missing from the CSV is an error.

The +1 keeps an instance where both miss nothing at 1 and one where the
reference misses nothing finite; every ratio is of whole-trace counts.
harness/unit/test-results.py tests it.
"""
import argparse
import os
import sys

import numpy as np
import pandas as pd

import goals

QUANTILES = (("median", 0.5), ("p5", 0.05), ("p95", 0.95))
# the plot's x range: ratios beyond it are drawn at its edges
CLIP = (0.05, 20.0)


def load(path):
    """The CSV as a wide table: one row per instance, one column per policy."""
    d = pd.read_csv(path)
    need = {"instance", "family", "policy", "swapins", "params"}
    missing = need - set(d.columns)
    if missing:
        raise ValueError("%s: no column %s (not aws-sim --distribution output?)"
                         % (path, ", ".join(sorted(missing))))
    meta = d.drop_duplicates("instance").set_index("instance")[["family", "params"]]
    wide = d.pivot_table(index="instance", columns="policy", values="swapins", aggfunc="first")
    return wide.join(meta)


def ratios(wide, policy, other):
    return (wide[policy] + 1.0) / (wide[other] + 1.0)


def summary(wide, ref):
    """One row per (policy, against): the quantiles and the worst instance."""
    policies = [c for c in wide.columns if c not in ("family", "params")]
    rows = []
    for against in (ref, "LRU", "OPT"):
        if against not in policies:
            continue
        for p in policies:
            if p == against:
                continue
            r = ratios(wide, p, against)
            worst = r.idxmax()
            row = {"policy": p, "against": against, "instances": int(r.count())}
            row.update({k: float(r.quantile(q)) for k, q in QUANTILES})
            row.update({"worst": float(r.max()), "worst_instance": int(worst),
                        "worst_family": wide.at[worst, "family"],
                        "worst_params": wide.at[worst, "params"]})
            rows.append(row)
    return pd.DataFrame(rows)


def per_family(wide, ref):
    policies = [c for c in wide.columns if c not in ("family", "params", ref)]
    out = {}
    for p in policies:
        r = ratios(wide, p, ref)
        g = r.groupby(wide["family"])
        out[p] = pd.DataFrame({"median": g.median(), "worst": g.max()})
    return out


def plot(wide, ref, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for p in [c for c in wide.columns if c not in ("family", "params", ref)]:
        r = np.sort(np.clip(ratios(wide, p, ref).to_numpy(), CLIP[0], CLIP[1]))
        ax.step(r, np.arange(1, len(r) + 1) / len(r), where="post", label=p)
    ax.axvline(1.0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlim(CLIP)
    ax.set_xlabel("swap-ins / %s's (per instance, log; clipped to %g-%g)" % (ref, CLIP[0], CLIP[1]))
    ax.set_ylabel("fraction of instances")
    ax.set_title("%d instances of the workload distribution" % len(wide))
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--out", default=None, help="where the summary and plot go (default: beside CSV)")
    ap.add_argument("--ref", default="upstream", help="the reference policy (default upstream: stock 6.1)")
    ap.add_argument("--peers", default="upstream,MGLRU",
                    help="the policies the goals take the better of (default upstream,MGLRU)")
    ap.add_argument("--goals", default="hold,regret",
                    help="the policies judged by the goals (default hold,regret)")
    ap.add_argument("--families", metavar="FILE",
                    help="simguest.py --families' verdicts: the families whose source is not"
                    " 'model' (in --families-variant, model mglru) are left to the guest")
    ap.add_argument("--families-variant", default="ykick",
                    help="the simguest variant make sim's model is (default ykick)")
    a = ap.parse_args(argv)
    try:
        wide = load(a.csv)
    except (OSError, ValueError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    peers, judged = a.peers.split(","), a.goals.split(",")
    for p in [a.ref] + peers + judged + ["OPT"]:
        if p not in wide.columns:
            print("error: no policy %s in %s" % (p, a.csv), file=sys.stderr)
            return 1
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    s = summary(wide, a.ref)
    pd.set_option("display.width", 200)
    print("%d instances; ratio = (swap-ins + 1) / (the other's + 1), per instance" % len(wide))
    for against, g in s.groupby("against", sort=False):
        print("\nagainst %s:" % against)
        print(g[["policy", "median", "p5", "p95", "worst", "worst_family"]]
              .to_string(index=False, float_format=lambda v: "%.3f" % v))
    print("\nworst instance of each policy against %s:" % a.ref)
    for _, r in s[s.against == a.ref].iterrows():
        print("  %-9s %.3f  instance %d, %s: %s" % (r.policy, r.worst, r.worst_instance,
                                                   r.worst_family, r.worst_params))
    print("\nagainst %s, per family (median / worst):" % a.ref)
    fam = per_family(wide, a.ref)
    table = pd.concat({p: f.apply(lambda x: "%.2f/%.2f" % (x["median"], x["worst"]), axis=1)
                       for p, f in fam.items()}, axis=1)
    print(table.to_string())
    frames = pd.read_csv(a.csv, usecols=["instance", "frames"]).drop_duplicates("instance")
    t = goals.table_of_counts(wide.join(frames.set_index("instance")))
    guest_only = ()
    if a.families:
        try:
            f = pd.read_csv(a.families)
        except OSError as e:
            print("error: %s" % e, file=sys.stderr)
            return 1
        f = f[(f.variant == a.families_variant) & (f.model == "mglru") & (f.family != "all")]
        if f.empty:
            print("error: %s has no variant %s of the mglru model" % (a.families, a.families_variant),
                  file=sys.stderr)
            return 1
        guest_only = tuple(sorted(f[f.source != "model"].family))
        print("\nleft to the guest (%s, variant %s): %s" % (a.families, a.families_variant,
                                                          ", ".join(guest_only) or "none"))
    verdicts = []
    for p in judged:
        lines, v = goals.report(t, p, peers, guest_only)
        print("\n" + "\n".join(lines))
        verdicts.append(v.assign(policy=p))
    os.makedirs(out, exist_ok=True)
    pd.concat(verdicts).to_csv(os.path.join(out, "dist-goals.csv"), index=False)
    s.to_csv(os.path.join(out, "dist-summary.csv"), index=False, float_format="%.4f")
    plot(wide, a.ref, os.path.join(out, "dist-cdf.png"))
    print("\nwrote %s, %s and %s" % (os.path.join(out, "dist-summary.csv"),
                                     os.path.join(out, "dist-goals.csv"),
                                     os.path.join(out, "dist-cdf.png")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
