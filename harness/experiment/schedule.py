#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The order make run boots its guests in, and how long a run would take
with JOBS guests at a time, from a run's own per-run times.

usage: schedule.py RESULTS-DIR [--jobs 1,2,8,32] [--by cell|rep] [--boot SECONDS]

make run (harness/experiment/run.py) boots a guest per cell, at most JOBS
at a time, the costliest first (order()): a long cell started last would
leave the other cores idle at the end.  The cost is an estimate (costs()):
the cell's runs (policies times reps) times the mean wall_s of its runs
in the newest earlier run of the same plan that has it (earlier_runs():
build/results/ and the tree's results/, whose runs a fresh clone has); a
cell no earlier run has is estimated from its memory limit (a global
cell: the global guest's memory), the size a run reads through, scaled
by the median seconds per MB of the cells they have.  A cell that alone would take
longer than the pool's fair share (every guest's cost, a boot each
included, over JOBS) is split by its reps into a few guests (parts()):
the sqlite cell of the short plan took 1,225 of a 1,231 s run at JOBS=3.

The command line replays a finished run: a cell's guest lasts its boot
and setup plus its runs, so this reads each cell's guest time from
RESULTS-DIR (guests/CELL/verdict.json's seconds, the runner's wall time
of the whole guest) and replays the order on JOBS host cores, each cell
going to the core that frees first, as the pool does.  It assumes what
make run assumes: one core per guest (TCG runs a guest on one host
thread), and a guest as fast beside others as alone.  --by rep asks what
a guest per (cell, rep) would take, which make run does not do: each such
guest lasts its cell's guest's boot and setup (the guest's time less its
runs' wall_s, from guests/CELL/runs.tsv) plus that rep's runs.  A folder
without guests/ (results/short-6.1) is replayed from its runs.csv, each
guest given --boot seconds besides its runs.  Standard
library only; harness/unit/test-plans.py tests the order,
harness/unit/test-results.py the replay.
"""
import argparse
import csv
import gzip
import heapq
import json
import os
import sys

import plan as P  # harness/experiment/plan.py


def mean_seconds(runs_csvs):
    """{cell: mean wall_s of its runs} in the first of RUNS_CSVS (a list,
    newest first, or one path; gzipped or not) that has the cell ({} for
    None)."""
    if not runs_csvs:
        return {}
    got = {}
    for runs_csv in [runs_csvs] if isinstance(runs_csvs, str) else runs_csvs:
        total, count = {}, {}
        try:
            with (gzip.open(runs_csv, "rt", newline="") if runs_csv.endswith(".gz")
                  else open(runs_csv, newline="")) as f:
                for row in csv.DictReader(f):
                    try:
                        wall = float(row["wall_s"])
                    except (KeyError, TypeError, ValueError):
                        continue
                    total[row["cell"]] = total.get(row["cell"], 0.0) + wall
                    count[row["cell"]] = count.get(row["cell"], 0) + 1
        except (OSError, KeyError, csv.Error) as e:
            raise P.PlanError("the times of %s: %s" % (runs_csv, e))
        for c in total:
            got.setdefault(c, total[c] / count[c])
    return got


def earlier_runs(results, plan, kver=None):
    """The runs.csv (or runs.csv.gz) of every run folder that ran PLAN on
    the kernel KVER (any if None) in the folders RESULTS (a path or a
    list: build/results/, then the tree's results/, whose runs a fresh
    clone has), the newest first (by their meta.json's date_utc)."""
    found = []
    for top in [results] if isinstance(results, str) else results:
        for d in sorted(os.listdir(top)) if os.path.isdir(top) else ():
            runs = [p for p in (os.path.join(top, d, n) for n in ("runs.csv", "runs.csv.gz"))
                    if os.path.isfile(p) and os.path.getsize(p)]
            try:
                with open(os.path.join(top, d, "meta.json")) as f:
                    m = json.load(f)
            except (OSError, ValueError):
                continue
            package = (m.get("kernel_package") or "").split(" ")[0]
            if m.get("plan") == plan and runs and kver in (None, package[len("linux-source-"):]):
                found.append((m.get("date_utc") or "", runs[0]))
    return [r for _, r in sorted(found, key=lambda f: f[0], reverse=True)]


# A guest's boot, setup and teardown under TCG, beside its runs: what
# splitting a cell adds per part (results/short-6.1, JOBS=2: 3,506 s of
# guest time less 3,327 s of runs, over 12 guests; docs/experiment.md).
BOOT_S = 15.0


def costs(cells, global_mem, runs_csv=None):
    """{cell: estimated seconds of its runs} for CELLS (plan.cells()'
    dicts), priced by RUNS_CSV (earlier_runs()' list, or one path); a
    global cell's size is GLOBAL_MEM, the plan's global guest's."""
    seconds = mean_seconds(runs_csv)
    mb = {c["name"]: P.size_mb(global_mem if c["boot"] == "global" else c["limit"]) for c in cells}
    per_mb = sorted(seconds[n] / mb[n] for n in mb if n in seconds)
    scale = per_mb[len(per_mb) // 2] if per_mb else 1.0
    return {c["name"]: len(c["policies"]) * c["reps"] * seconds.get(c["name"], mb[c["name"]] * scale)
            for c in cells}


def order(cells, global_mem, runs_csv=None):
    """CELLS (plan.cells()' dicts) the costliest first, ties in their
    order."""
    cost = costs(cells, global_mem, runs_csv)
    return [c for _, c in sorted(enumerate(cells), key=lambda ic: (-cost[ic[1]["name"]], ic[0]))]


def runs_of(reps):
    """REPS (sorted) as lists of consecutive reps."""
    out = []
    for r in reps:
        if out and out[-1][-1] == r - 1:
            out[-1].append(r)
        else:
            out.append([r])
    return out


def parts(todo, jobs, cost, boot=BOOT_S):
    """The guests to boot for TODO, [(cell, reps left to make)]: one per
    cell and run of consecutive reps, but a cell whose guest would last
    longer than the pool's fair share (every guest's COST, the reps' share
    of their cell's, plus BOOT, over JOBS) split into the fewest parts
    that each fit in it (one rep a part at most), where that shortens it.
    A list of (cell, reps, guest name), the longest first."""
    share = sum(cost[c["name"]] * len(r) / c["reps"] + boot for c, r in todo) / jobs
    out = []
    for c, reps in todo:
        each = cost[c["name"]] / c["reps"]
        for run in runs_of(sorted(reps)):
            k = 1
            while k < len(run) and each * -(-len(run) // k) + boot > share:
                k += 1
            size = -(-len(run) // k)
            if each * size + boot >= each * len(run):
                size = len(run)
            out += [(c, run[i:i + size]) for i in range(0, len(run), size)]
    out = [(c, r, P.part_name(c, r)) for c, r in out]
    return [g for _, g in sorted(enumerate(out), key=lambda ig: (
        -cost[ig[1][0]["name"]] * len(ig[1][1]) / ig[1][0]["reps"], ig[0]))]


def rep_seconds(gdir, total):
    """{rep: seconds a guest of that rep alone would run}: the guest's
    TOTAL less its runs' wall_s (boot, setup, teardown), plus the rep's."""
    runs = {}
    with open(os.path.join(gdir, "runs.tsv")) as f:
        for line in f:
            kv = dict(x.split("=", 1) for x in line.rstrip("\n").split("\t") if "=" in x)
            runs.setdefault(kv["rep"], []).append(float(kv.get("wall_s") or 0))
    fixed = total - sum(sum(w) for w in runs.values())
    return {rep: fixed + sum(w) for rep, w in runs.items()}


def runs_csv_seconds(out, by, boot):
    """{unit: seconds} from OUT/runs.csv alone (a folder from before
    guests/, or one of results/): a unit's runs' wall_s plus BOOT seconds
    for the boot and setup of its guest, which the folder does not say."""
    got = {}
    path = os.path.join(out, "runs.csv")
    with (open(path) if os.path.exists(path) else gzip.open(path + ".gz", "rt")) as f:
        for r in csv.DictReader(f):
            unit = r["cell"] if by == "cell" else "%s rep %s" % (r["cell"], r["rep"])
            got[unit] = got.get(unit, boot) + float(r["wall_s"] or 0)
    return got


def guest_seconds(out, by="cell", boot=None):
    """{unit: seconds its guest ran} of the run folder OUT, a unit a cell
    (or, by rep, a cell's rep); from runs.csv and BOOT where OUT has no
    guests/."""
    d = os.path.join(out, "guests")
    if not os.path.isdir(d):
        if boot is not None and any(os.path.isfile(os.path.join(out, n)) for n in ("runs.csv", "runs.csv.gz")):
            return runs_csv_seconds(out, by, boot)
        raise SystemExit("error: %s has no guests/ (a make run from before JOBS): give --boot"
                         " SECONDS to replay its runs.csv" % out)
    got = {}
    for cell in sorted(os.listdir(d)):
        with open(os.path.join(d, cell, "verdict.json")) as f:
            secs = float(json.load(f)["seconds"])
        if by == "cell":
            got[cell] = secs
        else:
            for rep, s in rep_seconds(os.path.join(d, cell), secs).items():
                got["%s rep %s" % (cell, rep)] = s
    return got


def makespan(seconds, jobs):
    """The wall time of the pool: the cells, longest first, each to the
    core that frees first."""
    cores = [0.0] * jobs
    for s in sorted(seconds.values(), reverse=True):
        heapq.heapreplace(cores, cores[0] + s)
    return max(cores)


def main(argv):
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("out")
    a.add_argument("--jobs", default="1,2,8,32")
    a.add_argument("--by", choices=("cell", "rep"), default="cell")
    a.add_argument("--boot", type=float, default=None,
                   help="a guest's boot and setup, seconds, for a folder without guests/")
    a = a.parse_args(argv)
    try:
        jobs = [int(j) for j in a.jobs.split(",")]
        assert all(j > 0 for j in jobs)
    except (ValueError, AssertionError):
        print("error: --jobs takes positive integers, comma-separated, not '%s'" % a.jobs,
              file=sys.stderr)
        return 2
    seconds = guest_seconds(a.out, a.by, a.boot)
    total = sum(seconds.values())
    longest = max(seconds, key=seconds.get)
    print("a guest per %s: %d guests, %.0f s of guest time in all; the longest: %s, %.0f s"
          % (a.by, len(seconds), total, longest, seconds[longest]))
    for j in jobs:
        m = makespan(seconds, j)
        print("  JOBS=%-3d %6.0f s  (%.2f of JOBS=1)" % (j, m, m / total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
