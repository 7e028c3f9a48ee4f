#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Post-process one `make run` result directory.

usage: results.py DIR [--reps N]

DIR holds what the guest plan qemu/guest/plans/experiment.sh wrote
(runs.tsv, matrix.tsv, guest-info.txt, results.txt).  Writes into DIR:

  runs.csv, runs.json        every run, every field (raw)
  summary.csv, summary.json  per cell x policy: n, median, min, max of the
                             main metrics, and the median's change against
                             the baseline, protect and nomod policies
  swap.png                   swap-ins and swap-outs per policy, per workload
  zipf.png                   zipf throughput vs alpha, per policy
  metric.png                 each workload's own metric per policy
  refault-dist.png           refault distance histogram per module policy
  table.txt                  the terminal table

Prints the table.  Exit status 1 if any run failed (non-zero exit, missing
RESULT line, verify_fail != 0, policy setup error) or a cell x policy has
fewer runs than the plan asked for; the reason is printed.
"""
import csv
import json
import math
import os
import statistics
import sys

POLICY_ORDER = ["nomod", "mglru", "baseline", "protect", "detect", "upstream"]
# Workload-specific metric: (RESULT key, label, higher is better)
WORKLOAD_METRIC = {
    "thrash": ("res_hot2_majfaults", "hot2 majflt", False),
    "protect": ("res_hot_majfaults", "hot majflt", False),
    "zipf": ("res_records_per_sec", "records/s", True),
    "randw": ("res_writes_per_sec", "writes/s", True),
}
# Summarised for every cell: (field, short label)
METRICS = [
    ("vm_pswpin", "swap-in"),
    ("vm_pswpout", "swap-out"),
    ("vm_workingset_refault_anon", "refault"),
    ("vm_workingset_activate_anon", "activate"),
    ("vm_workingset_restore_anon", "restore"),
    ("vm_pgactivate", "pgactivate"),
    ("vm_pgdeactivate", "pgdeactivate"),
    ("vm_pgmajfault", "pgmajfault"),
    ("wall_s", "wall s"),
    ("cg_peak", "memory.peak"),
    ("ev_max", "memory.events max"),
    ("ev_oom_kill", "oom_kill"),
    ("aws_refaults", "module refaults"),
    ("aws_activations", "module activations"),
    ("aws_evictions", "module evictions"),
]
# (from, to) policy pairs whose median changes the table lists
PAIRS = [("baseline", "detect"), ("protect", "detect"), ("baseline", "protect"),
         ("nomod", "upstream"), ("nomod", "mglru"), ("baseline-r3", "baseline"),
         ("protect", "protect-r1"), ("protect-r3", "protect-r1"), ("detect-r3", "detect")]
HIST_KEYS = (["refault_dist_log2_m%d" % i for i in range(8, 0, -1)] +
             ["refault_dist_log2_p%d" % i for i in range(0, 9)] +
             ["refault_dist_log2_inf"])


def num(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    return int(f) if f.is_integer() and "." not in str(v) else f


def policy_key(p):
    base = p.split("-r")[0]
    i = POLICY_ORDER.index(base) if base in POLICY_ORDER else len(POLICY_ORDER)
    return (i, p)


def workload_of(row):
    return str(row.get("res_workload") or row["cell"].split("-")[0])


def read_kv(path):
    d = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition(" ")
                if k:
                    d[k] = v
    return d


def load(d):
    runs = []
    with open(os.path.join(d, "runs.tsv")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            row = {}
            for field in line.split("\t"):
                k, _, v = field.partition("=")
                row[k] = num(v)
            runs.append(row)
    matrix = []
    with open(os.path.join(d, "matrix.tsv")) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 4:
                matrix.append({"cell": parts[0], "limit": parts[1],
                               "policies": parts[2].split(), "cmd": parts[3]})
    return runs, matrix


def problems(runs, matrix, reps):
    errs = []
    for r in runs:
        tag = "%s/%s rep %s" % (r.get("cell"), r.get("policy"), r.get("rep"))
        if r.get("rc") != 0:
            errs.append("%s: exit status %s%s" % (
                tag, r.get("rc"), " (%s)" % r["error"] if "error" in r else ""))
        elif "res_workload" not in r:
            errs.append("%s: no RESULT line" % tag)
        elif r.get("res_verify_fail") != 0:
            errs.append("%s: verify_fail=%s" % (tag, r.get("res_verify_fail")))
    for m in matrix:
        for p in m["policies"]:
            n = sum(1 for r in runs if r["cell"] == m["cell"] and
                    r["policy"] == p and r.get("rc") == 0)
            if n == 0:
                errs.append("%s/%s: no data" % (m["cell"], p))
            elif reps and n < reps:
                errs.append("%s/%s: %d of %d runs" % (m["cell"], p, n, reps))
    return errs


def stats(vals):
    vals = [v for v in vals if isinstance(v, (int, float))]
    if not vals:
        return None
    return {"n": len(vals), "median": statistics.median(vals),
            "min": min(vals), "max": max(vals)}


def change(a, b):
    """Relative change from a to b, in percent (None if undefined)."""
    if a is None or b is None or a == 0:
        return None
    return 100.0 * (b - a) / a


def summarise(runs, matrix):
    summary = []
    for m in matrix:
        cell = m["cell"]
        crs = [r for r in runs if r["cell"] == cell and r.get("rc") == 0]
        if not crs:
            continue
        wl = workload_of(crs[0])
        mkey, mlabel, better_up = WORKLOAD_METRIC.get(wl, ("wall_s", "wall s", False))
        for p in m["policies"]:
            prs = [r for r in crs if r["policy"] == p]
            ent = {"cell": cell, "workload": wl, "policy": p, "limit": m["limit"],
                   "cmd": m["cmd"], "metric": mkey, "metric_label": mlabel,
                   "metric_higher_is_better": better_up, "n": len(prs), "stats": {}}
            for key, _ in METRICS + [(mkey, mlabel)]:
                s = stats([r.get(key) for r in prs])
                if s:
                    ent["stats"][key] = s
            hist = {}
            for k in HIST_KEYS:
                s = stats([r.get("aws_" + k) for r in prs])
                if s:
                    hist[k] = s["median"]
            if hist:
                ent["refault_dist_median"] = hist
            summary.append(ent)
    # changes of the medians against reference policies of the same cell
    idx = {(e["cell"], e["policy"]): e for e in summary}
    for e in summary:
        e["change_pct"] = {}
        for ref in ("baseline", "protect", "nomod"):
            r = idx.get((e["cell"], ref))
            if not r or r is e:
                continue
            ch = {}
            for key in ("vm_pswpin", "vm_pswpout", e["metric"]):
                a = r["stats"].get(key, {}).get("median")
                b = e["stats"].get(key, {}).get("median")
                c = change(a, b)
                if c is not None:
                    ch[key] = round(c, 1)
            e["change_pct"]["vs_" + ref] = ch
    return summary


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        if abs(v) >= 10000:
            return "%.1fk" % (v / 1000)
        return "%.1f" % v if abs(v) >= 100 else "%.2f" % v
    v = int(v)
    if abs(v) >= 100000:
        return "%.0fk" % (v / 1000)
    if abs(v) >= 10000:
        return "%.1fk" % (v / 1000)
    return str(v)


def cellfmt(s):
    if not s:
        return "-"
    return "%s (%s-%s)" % (fmt(s["median"]), fmt(s["min"]), fmt(s["max"]))


def table(summary, info):
    out = []
    out.append("anon-workingset policy experiment: plan %s, %s reps, guest %s, "
               "%s MB RAM, %s CPUs, page-cluster %s" % (
                   info.get("plan"), info.get("reps"), info.get("uname_r"),
                   int(info.get("memtotal_kb", 0)) // 1024, info.get("cpus"),
                   info.get("page_cluster")))
    out.append("each entry: median (min-max) over the runs; swap-in/out = "
               "pswpin/pswpout deltas (pages), refault/activate = "
               "workingset_{refault,activate}_anon")
    cols = [("vm_pswpin", "swap-in"), ("vm_pswpout", "swap-out"),
            ("vm_workingset_refault_anon", "refault"),
            ("vm_workingset_activate_anon", "activate")]
    cells = []
    for e in summary:
        if e["cell"] not in cells:
            cells.append(e["cell"])
    for cell in cells:
        es = [e for e in summary if e["cell"] == cell]
        es.sort(key=lambda e: policy_key(e["policy"]))
        e0 = es[0]
        out.append("")
        out.append("%s  [memory.max %s]  %s" % (cell, e0["limit"], e0["cmd"]))
        hdr = ["policy", "n"] + [c[1] for c in cols] + [e0["metric_label"], "swap-in vs base", "vs protect"]
        rows = []
        for e in es:
            st = e["stats"]
            vb = e["change_pct"].get("vs_baseline", {}).get("vm_pswpin")
            vp = e["change_pct"].get("vs_protect", {}).get("vm_pswpin")
            rows.append([e["policy"], str(e["n"])] +
                        [cellfmt(st.get(k)) for k, _ in cols] +
                        [cellfmt(st.get(e["metric"])),
                         "-" if vb is None else "%+.1f%%" % vb,
                         "-" if vp is None else "%+.1f%%" % vp])
        w = [max(len(str(x)) for x in col) for col in zip(hdr, *rows)]
        line = lambda r: "  ".join(str(x).ljust(w[i]) if i == 0 else str(x).rjust(w[i])
                                   for i, x in enumerate(r))
        out.append(line(hdr))
        for r in rows:
            out.append(line(r))
    out.append("")
    out.append("changes of the medians (seed: base = v5.5 = baseline, patch = whole series = detect)")
    hdr = ["cell", "from -> to", "swap-in", "swap-out", "metric"]
    rows = []
    idx = {(e["cell"], e["policy"]): e for e in summary}
    for cell in cells:
        for a, b in PAIRS:
            ea, eb = idx.get((cell, a)), idx.get((cell, b))
            if not ea or not eb:
                continue
            r = [cell, "%s -> %s" % (a, b)]
            for key in ("vm_pswpin", "vm_pswpout"):
                c = change(ea["stats"].get(key, {}).get("median"),
                           eb["stats"].get(key, {}).get("median"))
                r.append("-" if c is None else "%+.1f%%" % c)
            ma = ea["stats"].get(ea["metric"], {}).get("median")
            mb = eb["stats"].get(ea["metric"], {}).get("median")
            c = change(ma, mb)
            r.append("%s: %s -> %s%s" % (ea["metric_label"], fmt(ma), fmt(mb),
                                         "" if c is None else " (%+.1f%%)" % c))
            rows.append(r)
    if not rows:
        out.append("(no policy pairs to compare)")
        return "\n".join(out)
    w = [max(len(str(x)) for x in col) for col in zip(hdr, *rows)]
    for r in [hdr] + rows:
        out.append("  ".join(str(x).ljust(w[i]) if i in (0, 1, 4) else str(x).rjust(w[i])
                             for i, x in enumerate(r)).rstrip())
    return "\n".join(out)


def write_csv(path, rows, keys):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def flat_summary(summary):
    rows = []
    for e in summary:
        for key, s in e["stats"].items():
            rows.append({"cell": e["cell"], "workload": e["workload"], "policy": e["policy"],
                         "limit": e["limit"], "metric": key, "n": s["n"],
                         "median": s["median"], "min": s["min"], "max": s["max"],
                         "change_vs_baseline_pct": e["change_pct"].get("vs_baseline", {}).get(key, ""),
                         "change_vs_protect_pct": e["change_pct"].get("vs_protect", {}).get(key, ""),
                         "change_vs_nomod_pct": e["change_pct"].get("vs_nomod", {}).get(key, "")})
    return rows


# ---- plots ------------------------------------------------------------------
BASE_COLORS = {"nomod": "#444444", "mglru": "#9467bd", "baseline": "#1f77b4",
               "protect": "#ff7f0e", "detect": "#2ca02c", "upstream": "#d62728"}


def colors(policies):
    """Stable colour per policy; ratio variants (-rN) are lighter shades."""
    from matplotlib.colors import to_rgb
    out = {}
    for p in policies:
        base, _, var = p.partition("-r")
        c = to_rgb(BASE_COLORS.get(base, "#17becf"))
        if var:
            f = 0.45 if var == "1" else 0.65
            c = tuple(x + (1 - x) * f for x in c)
        out[p] = c
    return out


def all_policies(summary):
    return sorted({e["policy"] for e in summary}, key=policy_key)


def plot_swap(summary, path):
    import matplotlib.pyplot as plt
    cells = []
    for e in summary:
        if e["cell"] not in cells:
            cells.append(e["cell"])
    ncol = 3
    nrow = math.ceil(len(cells) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.2 * ncol, 3.6 * nrow), squeeze=False)
    for ax, cell in zip(axes.flat, cells):
        es = sorted([e for e in summary if e["cell"] == cell], key=lambda e: policy_key(e["policy"]))
        x = range(len(es))
        for off, key, lab, col in ((-0.2, "vm_pswpin", "swap-in", "tab:blue"),
                                   (0.2, "vm_pswpout", "swap-out", "tab:orange")):
            med = [e["stats"].get(key, {}).get("median", 0) / 1000 for e in es]
            lo = [m - e["stats"].get(key, {}).get("min", 0) / 1000 for m, e in zip(med, es)]
            hi = [e["stats"].get(key, {}).get("max", 0) / 1000 - m for m, e in zip(med, es)]
            ax.bar([i + off for i in x], med, 0.4, yerr=[lo, hi], capsize=2, label=lab, color=col)
        ax.set_xticks(list(x))
        ax.set_xticklabels([e["policy"] for e in es], rotation=35, ha="right", fontsize=8)
        ax.set_title("%s (%s)" % (cell, es[0]["limit"]), fontsize=9)
        ax.set_ylabel("thousand pages", fontsize=8)
        ax.tick_params(axis="y", labelsize=8)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(cells):]:
        ax.axis("off")
    fig.suptitle("swap-ins and swap-outs per run (median, bars = min-max)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_zipf(summary, path):
    import matplotlib.pyplot as plt
    zs = [e for e in summary if e["workload"] == "zipf"]
    if not zs:
        return False
    threads = sorted({int(e["cell"].split("-t")[1].split("-")[0]) for e in zs})
    fig, axes = plt.subplots(1, len(threads), figsize=(6.5 * len(threads), 4.5), squeeze=False)
    cmap = colors(all_policies(summary))
    for ax, t in zip(axes.flat, threads):
        te = [e for e in zs if e["cell"].startswith("zipf-t%d-" % t)]
        for p in sorted({e["policy"] for e in te}, key=policy_key):
            pe = sorted([e for e in te if e["policy"] == p],
                        key=lambda e: float(e["cell"].split("-a")[1]))
            xs = [float(e["cell"].split("-a")[1]) for e in pe]
            st = [e["stats"].get("res_records_per_sec", {}) for e in pe]
            med = [s.get("median", 0) for s in st]
            err = [[m - s.get("min", m) for m, s in zip(med, st)],
                   [s.get("max", m) - m for m, s in zip(med, st)]]
            ax.errorbar(xs, med, yerr=err, marker="o", capsize=2, label=p, color=cmap[p])
        ax.set_xlabel("zipf alpha")
        ax.set_ylabel("records per second")
        ax.set_yscale("log")
        ax.set_title("zipf at 2x memory.max, %d thread%s" % (t, "s" if t > 1 else ""))
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def plot_metric(summary, path):
    import matplotlib.pyplot as plt
    cells = []
    for e in summary:
        if e["workload"] != "zipf" and e["cell"] not in cells:
            cells.append(e["cell"])
    if not cells:
        return False
    ncol = min(3, len(cells))
    nrow = math.ceil(len(cells) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.2 * ncol, 3.6 * nrow), squeeze=False)
    cmap = colors(all_policies(summary))
    for ax, cell in zip(axes.flat, cells):
        es = sorted([e for e in summary if e["cell"] == cell], key=lambda e: policy_key(e["policy"]))
        st = [e["stats"].get(e["metric"], {}) for e in es]
        med = [s.get("median", 0) for s in st]
        err = [[m - s.get("min", m) for m, s in zip(med, st)],
               [s.get("max", m) - m for m, s in zip(med, st)]]
        ax.bar(range(len(es)), med, yerr=err, capsize=2,
               color=[cmap[e["policy"]] for e in es])
        ax.set_xticks(range(len(es)))
        ax.set_xticklabels([e["policy"] for e in es], rotation=35, ha="right", fontsize=8)
        ax.set_title("%s: %s (%s)" % (cell, es[0]["metric_label"],
                                     "higher is better" if es[0]["metric_higher_is_better"]
                                     else "lower is better"), fontsize=9)
        ax.tick_params(axis="y", labelsize=8)
    for ax in list(axes.flat)[len(cells):]:
        ax.axis("off")
    fig.suptitle("workload metric per policy (median, bars = min-max)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def plot_hist(summary, path):
    import matplotlib.pyplot as plt
    cells = []
    for e in summary:
        if e.get("refault_dist_median") and sum(e["refault_dist_median"].values()) > 0 \
                and e["workload"] != "zipf" and e["cell"] not in cells:
            cells.append(e["cell"])
    if not cells:
        return False
    ncol = min(3, len(cells))
    nrow = math.ceil(len(cells) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.6 * ncol, 3.8 * nrow), squeeze=False)
    cmap = colors(all_policies(summary))
    labels = [k.replace("refault_dist_log2_", "").replace("m", "-").replace("p", "")
              for k in HIST_KEYS]
    for ax, cell in zip(axes.flat, cells):
        es = sorted([e for e in summary if e["cell"] == cell and e.get("refault_dist_median")
                     and sum(e["refault_dist_median"].values()) > 0],
                    key=lambda e: policy_key(e["policy"]))
        w = 0.8 / max(1, len(es))
        for j, e in enumerate(es):
            ys = [e["refault_dist_median"].get(k, 0) for k in HIST_KEYS]
            ax.bar([i - 0.4 + w * (j + 0.5) for i in range(len(HIST_KEYS))], ys, w,
                   label=e["policy"], color=cmap[e["policy"]])
        ax.axvline(8.5, color="grey", ls="--", lw=0.8)
        ax.set_xticks(range(len(HIST_KEYS)))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_xlabel("log2(refault distance / workingset size); left of the dashed "
                      "line = activated", fontsize=7)
        ax.set_ylabel("refaults (median run)", fontsize=8)
        ax.set_title(cell, fontsize=9)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(cells):]:
        ax.axis("off")
    fig.suptitle("refault distance histogram from /proc/anon_workingset")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    d = args[0]
    reps = None
    if "--reps" in args:
        reps = int(args[args.index("--reps") + 1])
    info = read_kv(os.path.join(d, "guest-info.txt"))
    if reps is None and info.get("reps", "").isdigit():
        reps = int(info["reps"])
    runs, matrix = load(d)
    if not runs:
        print("error: %s/runs.tsv has no runs" % d, file=sys.stderr)
        return 1

    keys = []
    for r in runs:
        for k in r:
            if k not in keys:
                keys.append(k)
    write_csv(os.path.join(d, "runs.csv"), runs, keys)
    with open(os.path.join(d, "runs.json"), "w") as f:
        json.dump(runs, f, indent=1)

    summary = summarise(runs, matrix)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"guest": info, "matrix": matrix, "cells": summary}, f, indent=1)
    write_csv(os.path.join(d, "summary.csv"), flat_summary(summary),
              ["cell", "workload", "policy", "limit", "metric", "n", "median", "min", "max",
               "change_vs_baseline_pct", "change_vs_protect_pct", "change_vs_nomod_pct"])

    t = table(summary, info)
    with open(os.path.join(d, "table.txt"), "w") as f:
        f.write(t + "\n")
    print(t)

    try:
        import matplotlib
        matplotlib.use("Agg")
        plot_swap(summary, os.path.join(d, "swap.png"))
        plot_zipf(summary, os.path.join(d, "zipf.png"))
        plot_metric(summary, os.path.join(d, "metric.png"))
        plot_hist(summary, os.path.join(d, "refault-dist.png"))
    except ImportError as e:
        print("error: matplotlib missing (%s); install python3-matplotlib" % e, file=sys.stderr)
        return 1

    errs = problems(runs, matrix, reps)
    if errs:
        print("\nerror: %d problem(s) in the runs:" % len(errs), file=sys.stderr)
        for e in errs[:40]:
            print("   " + e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
