# SPDX-License-Identifier: GPL-2.0
"""A run folder's guests into its files, and shards into one folder: the
file handling of make run and make merge (harness/experiment/run.py).

A make run folder (build/results/NAME/) has a guests/CELL/ folder per cell
whose guest ran (guests/CELL+rA-B/ per part of a cell split by its reps:
cell_guests()) (its runs.tsv, matrix.tsv, guest-info.txt, workloads.log,
progress.txt, qemu-cmdline, verdict.json, images.txt) and run.txt (the
plan, the selection, the start and JOBS it was made with).  gather()
makes the folder's own files from its guests'; combine() copies the
guests of shards (folders made on other machines, each with some of the
plan's cells: docs/experiment.md) into a new folder, refusing shards that
lost cells, ran another plan, reps or policy filter, or have a cell twice.
Standard library only; harness/unit/test-results.py tests it.
"""
import os
import shutil

import plan as P  # harness/experiment/plan.py

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the workloads' stderr is small (a few lines per run); capped all the same
WORKLOADS_LOG_MAX = 2000000


class MergeError(Exception):
    pass


def run_txt(d):
    """D/run.txt as a dict."""
    with open(os.path.join(d, "run.txt")) as f:
        return dict(line.rstrip("\n").partition(" ")[::2] for line in f if line.strip())


def cell_guests(out, cell, has="runs.tsv"):
    """[(folder, reps)] of the guests of CELL (a plan.cells() dict) whose
    folder in OUT/guests/ has the file HAS, in the order of their reps."""
    d = os.path.join(out, "guests")
    got = []
    for name in os.listdir(d) if os.path.isdir(d) else ():
        reps = P.part_reps(cell, name)
        if reps and os.path.isfile(os.path.join(d, name, has)):
            got.append((os.path.join(d, name), reps))
    return sorted(got, key=lambda g: g[1][0])


def gather(out, plan):
    """OUT/guests/*/ into OUT's runs.tsv, matrix.tsv, progress.txt,
    workloads.log and guest-info.txt (the first main guest's;
    guest-info-global.txt the first global one's: the others booted the
    same images, and meta.py reads them all), in the plan's order of
    cells (a split cell's parts in the order of their reps, its
    matrix.tsv line once), and a copy of the plan.  False if no guest
    wrote data."""
    dirs, info = [], {}
    for c in P.cells(plan):
        for g, _ in cell_guests(out, c):
            dirs.append(g)
            with open(os.path.join(g, "guest-info.txt")) as f:
                kind = "global" if "boot global" in f.read().splitlines() else "main"
            info.setdefault(kind, g)
    if not dirs:
        return False
    for name in ("runs.tsv", "matrix.tsv", "progress.txt"):
        seen = set()
        with open(os.path.join(out, name), "wb") as f:
            for g in dirs:
                with open(os.path.join(g, name), "rb") as part:
                    data = part.read()
                if name != "matrix.tsv" or data not in seen:
                    f.write(data)
                seen.add(data)
    with open(os.path.join(out, "workloads.log"), "wb") as f:
        left = WORKLOADS_LOG_MAX
        for g in dirs:
            with open(os.path.join(g, "workloads.log"), "rb") as part:
                data = part.read(left)
            f.write(data)
            left -= len(data)
    for kind, name in (("main", "guest-info.txt"), ("global", "guest-info-global.txt")):
        path = os.path.join(out, name)
        if os.path.exists(path):
            os.unlink(path)
        if kind in info:
            shutil.copy(os.path.join(info[kind], "guest-info.txt"), path)
    shutil.copy(P.path_of(plan), out)
    return True


def combine(out, dirs, results):
    """The guests of the shards DIRS (paths, or names in RESULTS) into the
    new folder OUT: (plan, selection, start, shards as meta.json names
    them, the shards' paths)."""
    os.mkdir(os.path.join(out, "guests"))
    plan, rest, start, shards, paths = None, None, None, [], []
    for d in dirs:
        d = d.rstrip("/")
        if not os.path.isdir(d):
            d = os.path.join(results, d)
        if not os.path.isfile(os.path.join(d, "run.txt")) or not os.path.isdir(os.path.join(d, "guests")):
            raise MergeError("merge: %s is not a make run folder with guests/ and run.txt" % d)
        if os.path.exists(os.path.join(d, "failed")) and os.path.getsize(os.path.join(d, "failed")):
            with open(os.path.join(d, "failed")) as f:
                lost = " ".join(line.split("\t")[0] for line in f if line.strip())
            raise MergeError("merge: %s lost cells (%s); complete it first (make run RESUME=%s)"
                             % (d, lost, os.path.basename(d)))
        was = run_txt(d)
        # the shards may select different cells, not different reps or policies
        sel = ",".join(s for s in was.get("selection", "").split(",") if s and not s.startswith("only="))
        if plan is not None and was["plan"] != plan:
            raise MergeError("merge: %s ran plan '%s', the first shard '%s'" % (d, was["plan"], plan))
        if plan is not None and sel != rest:
            raise MergeError("merge: %s ran with the selection '%s' but for only=, the first shard"
                             " with '%s'" % (d, sel, rest))
        plan, rest, start = was["plan"], sel, start or was.get("start", "")
        for cell in sorted(os.listdir(os.path.join(d, "guests"))):
            if not os.path.isdir(os.path.join(d, "guests", cell)):
                continue
            if os.path.exists(os.path.join(out, "guests", cell)):
                raise MergeError("merge: cell %s is in two shards (the second: %s)" % (cell, d))
            shutil.copytree(os.path.join(d, "guests", cell), os.path.join(out, "guests", cell),
                            symlinks=True)
        shards.append(os.path.relpath(d, TOP) if os.path.isabs(d) and d.startswith(TOP + "/") else d)
        paths.append(d)
    return plan, rest, start, " ".join(shards), paths
