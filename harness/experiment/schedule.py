#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How long a make run would take with JOBS guests at a time, from a run's
own per-run times.

usage: schedule.py RESULTS-DIR [--jobs 1,2,8,32] [--by cell|rep]

make run boots a guest per cell, the costliest first, at most JOBS at a
time (harness/experiment.sh).  A cell's guest lasts its boot and setup
plus its runs: this reads each cell's guest time from RESULTS-DIR
(guests/CELL/verdict.json's seconds, the runner's wall time of the whole
guest) and replays that order on JOBS host cores, each cell going to the
core that frees first, as the pool does.  It assumes what make run
assumes: one core per guest (TCG runs a guest on one host thread), and a
guest as fast beside others as alone.  --by rep asks what a guest per
(cell, rep) would take, which make run does not do: each such guest lasts
its cell's guest's boot and setup (the guest's time less its runs' wall_s,
from guests/CELL/runs.tsv) plus that rep's runs.  Standard library only.
"""
import argparse
import heapq
import json
import os
import sys


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


def guest_seconds(out, by="cell"):
    """{unit: seconds its guest ran} of the run folder OUT, a unit a cell
    (or, by rep, a cell's rep)."""
    d = os.path.join(out, "guests")
    if not os.path.isdir(d):
        raise SystemExit("error: %s has no guests/ (a make run from before JOBS)" % out)
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
    a = a.parse_args(argv)
    try:
        jobs = [int(j) for j in a.jobs.split(",")]
        assert all(j > 0 for j in jobs)
    except (ValueError, AssertionError):
        print("error: --jobs takes positive integers, comma-separated, not '%s'" % a.jobs,
              file=sys.stderr)
        return 2
    seconds = guest_seconds(a.out, a.by)
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
