#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one `make run` result directory into a table of runs, a summary and plots.

usage: results.py DIR [--ref P[,P...]] [--best-of P[,P...]]

DIR holds what make run gathered from its guests (runs.tsv, written by
the guest job harness/guest/jobs/experiment.sh, matrix.tsv,
guest-info.txt: harness/experiment/merge.py) and what harness/experiment/opt.py
derived from it (opt.csv), or a stored run's runs.csv.  Writes into DIR:

  runs.csv          the record: one row per workload run (cell, policy, rep,
                    the cell's command, every field the guest measured, and
                    from opt.csv the OPT and LRU swap-ins of the run's trace,
                    opt_frames, opt_trace (exact, approx or n/a), opt_note,
                    and x_opt = vm_pswpin / opt_swapins)
  summary.csv       per cell x policy x metric: n, median, min, max, and per
                    reference policy the change of the medians with its CI;
                    note: for x_opt, "approx: why" or "n/a (why)" (n = 0)
  table.txt         the table it prints
  table.md          its per-cell table in Markdown, as docs/results.md shows it
  swap.png metric.png zipf.png refault-dist.png   plots of runs.csv

Each cell's own figure is a count for the fixed work of its command (hot-set,
record or write major faults); zipf's and randw's throughput follows it as a
secondary column (under TCG, records/s at one thread is mostly noise).  x OPT
is each run's swap-ins over OPT's for the same trace at memory.max / 4 KiB
frames (median, min-max), a lower bound on what any policy could reach there:
see harness/experiment/opt.py.

The policies, and their order, are the ones in the data.  Each cell is
compared against the reference policies of --ref that it ran (default
baseline,protect,nomod: the seed's base, inactive-first placement and stock
6.1), or against its first policy if it ran none of them.  --best-of nomod,mglru
adds a table of every other policy's swap-ins against the better of those
in each cell (hold's goal: stock 6.1 and MGLRU), with the same CI.  CI: the exact
distribution-free interval for the shift between two policies (Mann-Whitney
/ Hodges-Lehmann, Hollander & Wolfe): the k-th smallest to k-th largest of
the differences of every pair of runs, k the largest that keeps the level
>= 95%, or k = 1 (the widest interval) when no k reaches 95%: with 3 runs
against 3 that is from the smallest to the largest of the 9 differences, at
90%.

Exit status 1 if any run failed (non-zero exit, missing RESULT line,
verify_fail != 0) or a cell x policy has fewer runs than planned.
harness/unit/test-results.py tests it on canned data.
"""
import functools
import math
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after choosing the backend)
import numpy as np
import pandas as pd

import plan  # harness/experiment/plan.py: the cells' questions

# Workload -> (RESULT field, label, higher is better): the cell's own figure,
# a count for the fixed work of its command
WORKLOAD_METRIC = {
    "thrash": ("res_hot2_majfaults", "hot2 majflt", False),
    "protect": ("res_hot_majfaults", "hot majflt", False),
    "zipf": ("res_record_majfaults", "record majflt", False),
    "randw": ("res_write_majfaults", "write majflt", False),
    "loop": ("res_loop_majfaults", "loop majflt", False),
    "sqlite": ("res_scan_majfaults", "scan majflt", False),
    "redis": ("res_get_majfaults", "GET majflt", False),
    "pgbench": ("res_run_majfaults", "tx majflt", False),
}
# ... and a secondary one, shown after x OPT; for runs from before the counts
# (timed zipf and randw cells) it is the cell's own figure
SECONDARY = {
    "zipf": ("res_records_per_sec", "records/s", True),
    "randw": ("res_writes_per_sec", "writes/s", True),
    "sqlite": ("res_scan_rows_per_s", "rows/s", True),
    "redis": ("res_get_requests_per_s", "GETs/s", True),
    "pgbench": ("res_tps", "tx/s", True),
}
SUMMARISED = ["vm_pswpin", "vm_pswpout", "vm_workingset_refault_anon",
              "vm_workingset_activate_anon", "vm_workingset_restore_anon", "vm_pgactivate",
              "vm_pgdeactivate", "vm_pgmajfault", "wall_s", "cg_peak", "ev_max",
              "ev_oom_kill", "aws_refaults", "aws_activations", "aws_evictions",
              "res_loop_pswpin", "res_scan_pswpin", "res_get_pswpin", "res_run_pswpin", "x_opt",
              "opt_swapins", "lru_swapins"]
# opt.csv's columns -> runs.csv's
OPT_COLS = {"frames": "opt_frames", "trace": "opt_trace", "opt_swapins": "opt_swapins",
            "lru_swapins": "lru_swapins", "note": "opt_note", "source": "opt_source"}
SHOWN = {"vm_pswpin": "swap-in", "vm_pswpout": "swap-out",
         "vm_workingset_refault_anon": "refault", "vm_workingset_activate_anon": "activate"}
CONF = 0.95
KEYS = ["cell", "policy", "rep"]


# ---- the table of runs --------------------------------------------------------
def tidy(df):
    """Numbers as numbers: whole-valued columns as Int64, both when parsed and reread."""
    for c in df.columns:
        if df[c].dtype == object:
            try:
                df[c] = pd.to_numeric(df[c])
            except (ValueError, TypeError):
                continue
        if df[c].dtype.kind in "if" and (df[c].dropna() % 1 == 0).all():
            df[c] = df[c].astype("Int64")
    return df


def add_opt(runs, d):
    """Merge DIR/opt.csv (harness/experiment/opt.py) into the runs by (cell, rep),
    replacing any OPT columns they had, and compute x_opt = vm_pswpin / opt_swapins."""
    f = os.path.join(d, "opt.csv")
    if not os.path.exists(f):
        return runs
    o = pd.read_csv(f, dtype={"cell": str, "trace": str, "note": str, "source": str},
                    keep_default_na=False, na_values=[""])
    o = o.rename(columns=OPT_COLS)[["cell", "rep"] + list(OPT_COLS.values())]
    o["rep"] = o.rep.astype("Int64")
    runs = runs.drop(columns=[c for c in list(OPT_COLS.values()) + ["x_opt"] if c in runs])
    runs = runs.merge(o, on=["cell", "rep"], how="left", sort=False)
    opt = runs.opt_swapins.astype(float)
    pin = runs.vm_pswpin.astype(float) if "vm_pswpin" in runs else math.nan
    runs["x_opt"] = (pin / opt.where(opt > 0)).round(4)
    return tidy(runs)


def load(d):
    """runs, expected policies per cell: from the guest's runs.tsv, else runs.csv
    (with opt.csv's columns if runs.csv has none)."""
    tsv, csv = os.path.join(d, "runs.tsv"), os.path.join(d, "runs.csv")
    if not os.path.exists(tsv):
        # a stored folder may keep it gzipped (results/README.md)
        stored = csv if os.path.exists(csv) or not os.path.exists(csv + ".gz") else csv + ".gz"
        runs = tidy(pd.read_csv(stored, keep_default_na=False, na_values=[""]))  # "n/a" is a word
        if "opt_trace" not in runs:
            runs = add_opt(runs, d)
        return runs, runs.groupby("cell", sort=False)["policy"].unique().map(list).to_dict()
    with open(tsv) as f:
        runs = pd.DataFrame([dict(kv.split("=", 1) for kv in line.rstrip("\n").split("\t"))
                             for line in f if line.strip()])
    matrix = pd.read_csv(os.path.join(d, "matrix.tsv"), sep="\t", header=None,
                         names=["cell", "limit", "policies", "cmd"], dtype=str)
    runs = runs.merge(matrix[["cell", "cmd"]], on="cell", how="left", sort=False)
    first = [c for c in ["cell", "policy", "rep", "limit", "boot", "cmd"] if c in runs]
    runs = add_opt(tidy(runs[first + [c for c in runs if c not in first]]), d)
    runs.to_csv(csv, index=False)
    return runs, dict(zip(matrix.cell, matrix.policies.str.split()))


def read_info(d):
    """guest-info.txt (the main guest's; the global one's if only it booted)."""
    info = {}
    for name in ("guest-info.txt", "guest-info-global.txt"):
        if os.path.exists(os.path.join(d, name)):
            with open(os.path.join(d, name)) as f:
                info = dict((line.rstrip("\n") + " ").split(" ", 1) for line in f if line.strip())
            break
    return {k: v.strip() for k, v in info.items()}


def questions(d):
    """Each cell's question, from the plan file make run copied into D."""
    for f in sorted(os.listdir(d)):
        if f.endswith(".plan"):
            try:
                return {c["name"]: c["asks"] for c in plan.parse(os.path.join(d, f))[1]
                        if "asks" in c}
            except plan.PlanError as e:
                print("warning: %s" % e, file=sys.stderr)
    return {}


def valid(runs):
    """The runs that count: exit status 0, a RESULT line, every page verified."""
    return runs[(runs.rc == 0) & (runs.get("res_verify_fail") == 0)]


def problems(runs, expected, reps):
    errs = []
    for r in runs.itertuples():
        tag = "%s/%s rep %s" % (r.cell, r.policy, r.rep)
        if r.rc != 0:
            errs.append("%s: exit status %s%s" % (tag, r.rc, " (%s)" % getattr(r, "error", "")
                                                  if pd.notna(getattr(r, "error", None)) else ""))
        elif pd.isna(getattr(r, "res_workload", None)):
            errs.append("%s: no RESULT line" % tag)
        elif r.res_verify_fail != 0:
            errs.append("%s: verify_fail=%s" % (tag, r.res_verify_fail))
    n = valid(runs).groupby(["cell", "policy"]).size()
    for cell, pols in expected.items():
        for p in pols:
            k = n.get((cell, p), 0)
            if k == 0 or (reps and k < reps):
                errs.append("%s/%s: %s" % (cell, p, "no data" if k == 0 else "%d of %d runs" % (k, reps)))
    return errs


# ---- statistics -----------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def mw_counts(m, n):
    """How many of the C(m+n, m) orderings of two samples give U = 0 .. m*n."""
    if m == 0 or n == 0:
        return (1,)
    out = [0] * (m * n + 1)
    for u, c in enumerate(mw_counts(m, n - 1)):
        out[u + m] += c
    for u, c in enumerate(mw_counts(m - 1, n)):
        out[u] += c
    return tuple(out)


def shift_ci(x, y, conf=CONF):
    """Exact distribution-free CI of the shift y - x: (lo, hi, level, Hodges-Lehmann)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if not len(x) or not len(y):
        return (math.nan,) * 4
    d = np.sort(np.subtract.outer(y, x).ravel())
    cnt = np.cumsum(mw_counts(len(x), len(y))) / math.comb(len(x) + len(y), len(x))
    k = 1  # [d_(k), d_(mn+1-k)] has level 1 - 2 P(U <= k-1)
    while 2 * k < len(d) and 2 * cnt[k] <= 1 - conf:
        k += 1
    return d[k - 1], d[len(d) - k], 1 - 2 * cnt[k - 1], float(np.median(d))


def workloads(runs):
    """Cell -> (workload, its metric, label, higher is better, secondary
    (key, label, higher is better) or None)."""
    wl = runs.get("res_workload", pd.Series(index=runs.index, dtype=object))
    wl = wl.fillna(runs.cell.str.split("-").str[0]).groupby(runs.cell, sort=False).first()
    out = {}
    for c, w in wl.items():
        m, sec = WORKLOAD_METRIC.get(w, ("wall_s", "wall s", False)), SECONDARY.get(w)
        if sec and (m[0] not in runs or runs.loc[runs.cell == c, m[0]].isna().all()):
            m, sec = sec, None  # a run from before the count: its throughput
        out[c] = (w,) + m + (sec,)
    return out


def long_table(runs):
    """Successful runs, one row per run x metric: the summarised fields and the cell's own metric."""
    ok = valid(runs).copy()
    wl = workloads(runs)
    ok["metric_key"] = ok.cell.map({c: w[1] for c, w in wl.items()})
    own = ok.assign(metric=ok.metric_key, value=ok.apply(lambda r: r.get(r.metric_key), axis=1))
    parts = [ok.melt(id_vars=KEYS + ["metric_key"], value_vars=[c for c in SUMMARISED if c in ok],
                     var_name="metric"), own[KEYS + ["metric_key", "metric", "value"]]]
    sk = ok.cell.map({c: w[4][0] if w[4] else None for c, w in wl.items()})
    if sk.notna().any():
        sec = ok[sk.notna()].assign(metric=sk[sk.notna()])
        parts.append(sec.assign(value=sec.apply(lambda r: r.get(r.metric), axis=1))[
            KEYS + ["metric_key", "metric", "value"]])
    lt = pd.concat(parts)
    lt = lt.drop_duplicates(KEYS + ["metric"]).dropna(subset=["value"])
    return lt.assign(value=lt.value.astype(float))


def references(pols, refs):
    return [r for r in refs if r in pols] or list(pols[:1])


def summarise(runs, refs):
    """Per cell x policy x metric: n, median, min, max; against each reference
    policy of the cell: change of the medians, CI of the shift, its level."""
    lt = long_table(runs)
    order = {c: list(g.unique()) for c, g in valid(runs).groupby("cell", sort=False).policy}
    g = lt.groupby(["cell", "policy", "metric"], sort=False).value
    s = g.agg(n="count", median="median", min="min", max="max").reset_index()
    vals = g.apply(list)
    for ref in dict.fromkeys(r for pols in order.values() for r in references(pols, refs)):
        def compare(r):
            x = vals.get((r.cell, ref, r.metric))
            if r.policy == ref or x is None or ref not in references(order[r.cell], refs):
                return [math.nan] * 6
            return [r.median - np.median(x), *shift_ci(x, vals[(r.cell, r.policy, r.metric)]), np.median(x)]
        c = pd.DataFrame([compare(r) for r in s.itertuples()], index=s.index,
                         columns=["diff", "lo", "hi", "ci_level", "hl", "base"])
        base = c.pop("base").where(lambda b: b != 0)
        for k in ("diff", "lo", "hi"):
            s["vs_%s_%s" % (ref, k)] = c[k]
            s["vs_%s_%s_pct" % (ref, k)] = (100 * c[k] / base).round(1)
        s["vs_%s_ci_level" % ref], s["vs_%s_hl" % ref] = c.ci_level.round(4), c.hl
    # x OPT: approximate or n/a, and why, never a silent gap
    info, s["note"] = opt_info(runs), ""
    for cell, pols in order.items():
        kind, why = info[cell][0], info[cell][2]
        at = (s.cell == cell) & (s.metric == "x_opt")
        if kind == "approx":
            s.loc[at, "note"] = "approx: " + why
        missing = [p for p in pols if not (at & (s.policy == p)).any()]
        s = pd.concat([s, pd.DataFrame({"cell": cell, "policy": missing, "metric": "x_opt", "n": 0,
                                        "note": "n/a (%s)" % why})], ignore_index=True)
    return s, order


# ---- OPT ---------------------------------------------------------------------------
def span(v):
    """'12.8k' or '2960-3297': the values of a column over a cell's seeds."""
    v = v.dropna()
    return fmt(v.min()) if v.min() == v.max() else "%s-%s" % (fmt(v.min()), fmt(v.max()))


def opt_info(runs):
    """Cell -> (kind, the cell's OPT line, why): kind "exact", "approx" or "n/a"
    (then why says why, for the table and summary.csv)."""
    out = {}
    for cell, g in runs.groupby("cell", sort=False):
        if "opt_trace" not in g or g.opt_trace.isna().all():
            why = "no OPT computed for this run: harness/experiment/opt.py DIR writes opt.csv"
            out[cell] = ("n/a", "x OPT n/a (%s)" % why, why)
            continue
        reps = g.drop_duplicates("rep").sort_values("rep")
        na = reps[reps.opt_trace.fillna("n/a") == "n/a"]
        ok = reps.drop(na.index)
        nanote = "; ".join(dict.fromkeys(na.opt_note.fillna("no row in opt.csv")))
        if ok.empty:
            out[cell] = ("n/a", "x OPT n/a (%s)" % nanote, nanote)
            continue
        line = "OPT %s swap-ins, LRU %s, at %s frames (memory.max / 4 KiB) for the trace of %s" % (
            span(ok.opt_swapins), span(ok.lru_swapins), "/".join(str(int(f)) for f in ok.opt_frames.unique()),
            "its seed" if len(ok) == 1 else "each of its %d seeds" % len(ok))
        kind = "approx" if (ok.opt_trace == "approx").any() else "exact"
        why = "; ".join(dict.fromkeys(ok.opt_note.dropna())) if kind == "approx" else ""
        if len(na):
            line += "; rep %s: n/a (%s)" % (",".join(str(r) for r in na.rep), nanote)
            why = "; ".join(x for x in (why, "rep %s: %s" % (",".join(str(r) for r in na.rep), nanote)) if x)
        if (ok.opt_swapins == 0).all():
            why = "OPT needs no swap-in here: every swap-in of the runs is the policy's"
            kind, line = "n/a", line + "; x OPT n/a (%s)" % why
        elif kind == "approx":
            line += "; ~ %s" % why
        out[cell] = (kind, line, why)
    return out


# ---- the terminal table -------------------------------------------------------------
def fmt(v):
    if v is None or pd.isna(v):
        return "-"
    v = float(v)
    if not v.is_integer():
        return "%.1fk" % (v / 1000) if abs(v) >= 10000 else "%.1f" % v if abs(v) >= 100 else "%.2f" % v
    return "%.0fk" % (v / 1000) if abs(v) >= 100000 else "%.1fk" % (v / 1000) if abs(v) >= 10000 \
        else str(int(v))


def pct(v):
    return "-" if pd.isna(v) else "%+.1f%%" % v


def change(e, c):
    """'-18.2% [-36.4, -4.5]': a summary row's change against the reference
    whose columns start with C, with its CI; in absolute figures when the
    reference's median is 0."""
    ci = "[%+.1f, %+.1f]" % (e[c + "lo_pct"], e[c + "hi_pct"]) if pd.notna(e[c + "lo_pct"]) \
        else "[%s, %s] (abs.)" % (fmt(e[c + "lo"]), fmt(e[c + "hi"]))
    return "%s %s" % (pct(e[c + "diff_pct"]), ci)


def aligned(rows, left):
    w = [max(len(str(x)) for x in col) for col in zip(*rows)]
    return ["  ".join(str(x).ljust(w[i]) if i in left else str(x).rjust(w[i])
                      for i, x in enumerate(r)).rstrip() for r in rows]


def table(runs, s, order, refs, info, asks=None):
    out = ["anon-workingset policy experiment: plan %s, %s reps, guest %s, %s MB RAM, %s CPUs, "
           "page-cluster %s" % (info.get("plan"), info.get("reps"), info.get("uname_r"),
                                int(info.get("memtotal_kb", 0)) // 1024, info.get("cpus"),
                                info.get("page_cluster")),
           "each entry: median (min-max) over the runs; swap-in/out = pswpin/pswpout deltas (pages), "
           "refault/activate = workingset_{refault,activate}_anon",
           "below each cell: the change of the medians against its reference policies, in % of the "
           "reference's median,",
           "with the exact distribution-free confidence interval [CI] of the shift (Mann-Whitney / "
           "Hodges-Lehmann, from",
           "the differences of every pair of runs) at the level shown: the nearest >= %.0f%% the run "
           "counts allow, else" % (100 * CONF),
           "the widest there is; with 3 runs against 3 no CI reaches %.0f%%: it spans the smallest to "
           "the largest of the" % (100 * CONF),
           "9 differences, at 90%; a CI that excludes 0 says all 3 runs of one policy beat all 3 of "
           "the other's",
           "x OPT: each run's swap-ins / Belady's OPT's on the same page-access trace at memory.max / "
           "4 KiB frames,",
           "the whole run less first touches (harness/experiment/opt.py); OPT is a lower bound: "
           "the run had fewer frames than that",
           "(page tables, binary, the workload's own arrays); ~ = approximate trace (threads "
           "interleaved round-robin)"]
    idx = s[s.n > 0].set_index(["cell", "policy", "metric"])
    first, wl, oi = runs.groupby("cell", sort=False).first(), workloads(runs), opt_info(runs)
    for cell, pols in order.items():
        _, mkey, mlabel, _, sec = wl[cell]
        rows = [["policy", "n"] + list(SHOWN.values()) + [mlabel, "x OPT"] + ([sec[1]] if sec else [])]
        for p in pols:
            stat = lambda k: "-" if (cell, p, k) not in idx.index else "%s (%s-%s)" % tuple(
                fmt(idx.at[(cell, p, k), c]) for c in ("median", "min", "max"))
            xo = "n/a" if (cell, p, "x_opt") not in idx.index else "%s%.2f (%.2f-%.2f)" % (
                ("~" if oi[cell][0] == "approx" else "",) +
                tuple(idx.at[(cell, p, "x_opt"), c] for c in ("median", "min", "max")))
            rows.append([p, str(idx.at[(cell, p, "vm_pswpin"), "n"])] + [stat(k) for k in [*SHOWN, mkey]] +
                        [xo] + ([stat(sec[0])] if sec else []))
        changes = [["  change of the median", "swap-in % [CI]", "swap-out % [CI]", mlabel, "% [CI]", "level"]]
        cref = references(pols, refs)
        for i, ref in enumerate(cref):
            for p in (p for p in pols if p != ref and p not in cref[:i]):
                row, c = ["  %s -> %s" % (ref, p)], "vs_%s_" % ref
                for k in ("vm_pswpin", "vm_pswpout", mkey):
                    e = idx.loc[(cell, p, k)]
                    if k == mkey:
                        row.append("%s -> %s" % (fmt(idx.at[(cell, ref, k), "median"]), fmt(e["median"])))
                    row.append(change(e, c))
                changes.append(row + ["%.0f%%" % (100 * e[c + "ci_level"])])
        out += ["", "%s  [memory.max %s]  %s" % (cell, first.at[cell, "limit"], first.at[cell, "cmd"])]
        out += ["  asks: " + asks[cell]] if asks and cell in asks else []
        out += ["  " + oi[cell][1]]
        out += aligned(rows, {0}) + aligned(changes, {0})
    return "\n".join(out)


def markdown(runs, s, order):
    """The per-cell table as docs/results.md shows it (table.md): each
    cell's memory.max and OPT, and each policy's median swap-ins, with its
    median x OPT in brackets where the cell has OPT ("~" approximate)."""
    pols = list(dict.fromkeys(p for ps in order.values() for p in ps))
    info = opt_info(runs)
    med = s[s.metric.isin(["vm_pswpin", "x_opt"])].set_index(["cell", "policy", "metric"])["median"]
    out = ["| cell (memory.max) | OPT | %s |" % " | ".join("`%s`" % p for p in pols),
           "|---|---|" + "---|" * len(pols)]
    for cell, ps in order.items():
        g = runs[runs.cell == cell]
        kind = info[cell][0]
        opt = span(g.opt_swapins) if "opt_swapins" in g and g.opt_swapins.notna().any() else "-"
        row = []
        for p in pols:
            v = med.get((cell, p, "vm_pswpin")) if p in ps else None
            x = med.get((cell, p, "x_opt")) if kind != "n/a" else None
            row.append("" if v is None else fmt(v) + ("" if x is None or pd.isna(x) else " (%s%.2fx)" % (
                "~" if kind == "approx" else "", x)))
        out.append("| `%s` (%s) | %s | %s |" % (cell, g.limit.iloc[0], opt, " | ".join(row)))
    return "\n".join(out) + "\n"


def against_best(s, order, peers):
    """Lines of a table: in each cell, every other policy's swap-ins against
    the better of PEERS (the one with the lower median swap-ins there), the
    change of the medians with its CI.  The peers must be reference policies
    of summarise(), whose vs_<peer>_* columns this reads."""
    idx = s[(s.n > 0) & (s.metric == "vm_pswpin")].set_index(["cell", "policy"])
    rows = [["cell", "policy", "swap-ins", "the better peer", "its swap-ins", "change % [CI]", "level"]]
    for cell, pols in order.items():
        ran = [p for p in peers if (cell, p) in idx.index]
        if not ran:
            continue
        best = min(ran, key=lambda p: idx.at[(cell, p), "median"])
        for p in (p for p in pols if p not in peers and (cell, p) in idx.index):
            e, c = idx.loc[(cell, p)], "vs_%s_" % best
            rows.append([cell, p, fmt(e["median"]), best, fmt(idx.at[(cell, best), "median"]),
                         change(e, c), "%.0f%%" % (100 * e[c + "ci_level"])])
    return ["", "swap-ins against the better of %s in each cell (the one with the lower median):"
            % ", ".join(peers)] + aligned(rows, {0, 1, 3})


# ---- plots -----------------------------------------------------------------------
def colors(pols):
    """One colour per policy base name in data order; ratio variants (-rN) lighter."""
    bases = list(dict.fromkeys(p.split("-r")[0] for p in pols))
    out = {}
    for p in pols:
        c = matplotlib.colors.to_rgb("C%d" % (bases.index(p.split("-r")[0]) % 10))
        out[p] = tuple(x + (1 - x) * 0.55 for x in c) if "-r" in p else c
    return out


def grid(n, w=5.2, h=3.6):
    ncol = min(3, n)
    fig, axes = plt.subplots(math.ceil(n / ncol), ncol, figsize=(w * ncol, h * math.ceil(n / ncol)),
                             squeeze=False)
    for ax in axes.flat[n:]:
        ax.axis("off")
    return fig, axes.flat


def save(fig, path, title):
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def bars(ax, s, cell, pols, keys, cmap=None):
    """Median per policy, error bars from min to max; one bar group per key."""
    w = 0.8 / len(keys)
    for j, (k, lab) in enumerate(keys):
        e = s[(s.cell == cell) & (s.metric == k)].set_index("policy").reindex(pols)
        ax.bar(np.arange(len(pols)) + (j - (len(keys) - 1) / 2) * w, e["median"], w, label=lab,
               yerr=[e["median"] - e["min"], e["max"] - e["median"]], capsize=2,
               color=[cmap[p] for p in pols] if cmap else "C%d" % j)
    ax.set_xticks(range(len(pols)))
    ax.set_xticklabels(pols, rotation=35, ha="right", fontsize=8)
    ax.tick_params(axis="y", labelsize=8)


def plots(runs, s, order, d):
    allpols = list(dict.fromkeys(p for ps in order.values() for p in ps))
    cmap, first = colors(allpols), runs.groupby("cell", sort=False).first()
    wl = workloads(runs)
    k1000 = s.assign(**{c: s[c] / 1000 for c in ("median", "min", "max")})
    fig, axes = grid(len(order))
    for ax, (cell, pols) in zip(axes, order.items()):
        bars(ax, k1000, cell, pols, [("vm_pswpin", "swap-in"), ("vm_pswpout", "swap-out")])
        ax.set_title("%s (%s)" % (cell, first.at[cell, "limit"]), fontsize=9)
        ax.set_ylabel("thousand pages", fontsize=8)
        ax.legend(fontsize=7)
    save(fig, os.path.join(d, "swap.png"), "swap-ins and swap-outs per run (median, bars = min-max)")
    cells = list(order)
    if cells:
        fig, axes = grid(len(cells))
        for ax, cell in zip(axes, cells):
            _, key, label, up, _ = wl[cell]
            bars(ax, s, cell, order[cell], [(key, label)], cmap)
            ax.set_title("%s: %s (%s is better)" % (cell, label, "higher" if up else "lower"), fontsize=9)
        save(fig, os.path.join(d, "metric.png"), "workload metric per policy (median, bars = min-max)")
    z = s[(s.metric == "res_records_per_sec") & s.cell.str.match(r"zipf-t\d+-a")]
    if len(z):
        z = z.assign(threads=z.cell.str.extract(r"-t(\d+)-")[0].astype(int),
                     alpha=z.cell.str.extract(r"-a([\d.]+)")[0].astype(float)).sort_values("alpha")
        fig, axes = grid(z.threads.nunique(), 6.5, 4.5)
        for ax, (t, zt) in zip(axes, z.groupby("threads")):
            for p, e in sorted(zt.groupby("policy"), key=lambda pe: allpols.index(pe[0])):
                ax.errorbar(e.alpha, e["median"], yerr=[e["median"] - e["min"], e["max"] - e["median"]],
                            marker="o", capsize=2, label=p, color=cmap[p])
            ax.set(xlabel="zipf alpha", ylabel="records per second", yscale="log",
                   title="zipf at 2x memory.max, %d thread%s" % (t, "s" if t > 1 else ""))
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
        save(fig, os.path.join(d, "zipf.png"), "zipf throughput (median, bars = min-max)")
    hk = sorted([c for c in runs if c.startswith("aws_refault_dist_log2_")], key=lambda c: (
        math.inf if c.endswith("inf") else int(c.split("_")[-1][1:]) * (-1 if "_m" in c else 1)))
    ok = valid(runs)[runs.cell.map(lambda c: wl[c][0] != "zipf")]
    h = ok.groupby(["cell", "policy"], sort=False)[hk].median() if hk else pd.DataFrame()
    h = h[h.sum(axis=1) > 0]
    if len(h):
        hcells = list(h.index.get_level_values(0).unique())
        fig, axes = grid(len(hcells), 5.6, 3.8)
        labels = [c.split("_")[-1].replace("m", "-").replace("p", "") for c in hk]
        for ax, cell in zip(axes, hcells):
            h.loc[cell].T.set_axis(labels).plot.bar(ax=ax, width=0.8, rot=0, fontsize=7,
                                                    color=[cmap[p] for p in h.loc[cell].index])
            ax.axvline(labels.index("0") + 0.5, color="grey", ls="--", lw=0.8)
            ax.set_xlabel("log2(refault distance / workingset size); left of the dashed "
                          "line = activated", fontsize=7)
            ax.set_ylabel("refaults (median run)", fontsize=8)
            ax.set_title(cell, fontsize=9)
            ax.legend(fontsize=7)
        save(fig, os.path.join(d, "refault-dist.png"), "refault distance histogram from /proc/anon_workingset")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    d = argv[0]
    refs = argv[argv.index("--ref") + 1].split(",") if "--ref" in argv else ["baseline", "protect", "nomod"]
    peers = argv[argv.index("--best-of") + 1].split(",") if "--best-of" in argv else []
    refs = list(dict.fromkeys(refs + peers))
    info = read_info(d)
    runs, expected = load(d)
    if runs.empty:
        print("error: %s has no runs" % d, file=sys.stderr)
        return 1
    s, order = summarise(runs, refs)
    s.to_csv(os.path.join(d, "summary.csv"), index=False)
    t = table(runs, s, order, refs, info, questions(d))
    if peers:
        t += "\n" + "\n".join(against_best(s, order, peers))
    with open(os.path.join(d, "table.txt"), "w") as f:
        f.write(t + "\n")
    with open(os.path.join(d, "table.md"), "w") as f:
        f.write(markdown(runs, s, order))
    print(t)
    plots(runs, s, order, d)
    errs = problems(runs, expected, int(info["reps"]) if info.get("reps", "").isdigit() else None)
    if errs:
        print("\nerror: %d problem(s) in the runs:" % len(errs), file=sys.stderr)
        print("\n".join("   " + e for e in errs[:40]), file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
