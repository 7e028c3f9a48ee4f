#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The experiment's plans: harness/experiment/plans/*.plan, read, checked and
selected.

usage: plan.py list                       the plans there are
       plan.py check [PLAN...]            every plan (or these) is well formed
       plan.py get PLAN KEY               one header value (reps, timeout, ...)
       plan.py select PLAN --boot main|global [--args n=N,only=GLOB:GLOB,policies=GLOB:GLOB]
       plan.py units PLAN [--args ARGS] [--times RUNS.csv]
                                          the selected cells, one guest each

A plan is data (short.plan documents the format): a header, then cells,
each with its memory limit, policies, command and the question it asks.
The plan is parsed here only.  `select` writes, for one guest, a table
that harness/guest/jobs/experiment.sh reads without knowing the plan's
grammar: tab-separated lines, '#' comments, first the header

    plan<TAB>NAME               the plan's name
    boot<TAB>main|global        which guest this is
    reps<TAB>N                  the plan's reps, or n=
    policy-filter<TAB>GLOBS     policies= (colon-separated globs), if given

then one line per cell that guest runs (the memcg-limited ones in the main
guest, the "global" ones in the second; those whose name matches `only`):

    cell<TAB>NAME<TAB>LIMIT<TAB>POLICIES<TAB>COMMAND

POLICIES space-separated as the plan gives them (the guest expands "all"
and applies the filter: only it knows the module's policies).  A plan
value or AWS_RUN_ARGS with a tab (or a line break) in it is refused.
`select` exits 3 when no cell is left for that guest, so the host does
not boot it.

`units` lists the selected cells as "BOOT<TAB>CELL<TAB>SWAP" lines (SWAP
the cell's swap disk: its "swap" key, or the plan's), the costliest first: make run boots one guest per line (with the table `select --args
ARGS,only=CELL` gives), at most JOBS at a time.  The cost is an estimate,
used for the order only (a long cell started last would leave the other
cores idle at the end): the cell's runs (policies after the filter, "all"
counted as every policy, times reps) times the mean wall_s of its runs in
RUNS.csv (an earlier run's runs.csv: make run passes the newest of the
same plan); a cell it does not have is estimated from its memory limit (a
global cell: the global guest's memory), the size a run reads through,
scaled by the median seconds per MB of the cells it has.  The selection never travels on the kernel command line:
harness/boot/runner.py hands the table to the guest on its results disk.

Standard library only; harness/unit/test-plans.py tests it.
"""
import csv
import fnmatch
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))   # harness/experiment/
TOP = os.path.dirname(os.path.dirname(HERE))
PLANS = os.path.join(HERE, "plans")
HEADER = ("about", "reps", "timeout", "swap", "global-guest-mem")
# header keys a plan may leave out, with their values when it does
OPTIONAL = {"guest-mem": "512M"}
CELL_KEYS = ("limit", "policies", "run", "asks")
# cell keys a cell may leave out: its guest's swap disk (the plan's if not
# given; a guest per cell lets a cell fill its swap past half, where 6.1
# frees a page's slot when it is swapped in)
OPTIONAL_CELL = ("swap",)
SIZE = re.compile(r"^[1-9][0-9]*[MG]$")
POLICY = re.compile(r"^([a-z0-9]+)(-r[1-9][0-9]*)?$")
# policies that are not the module's: stock 6.1, MGLRU, DAMON's lru_sort
# (its defaults, and damonfast: thresholds for runs of seconds)
KERNEL_POLICIES = ("nomod", "mglru", "damon", "damonfast")


class PlanError(Exception):
    pass


def module_policies():
    """The module's policies: the AWS_POLICY(name) lines of
    include/aws_policy_list.h, the one list the module is built from."""
    with open(os.path.join(TOP, "include", "aws_policy_list.h")) as f:
        return sorted(re.findall(r"^AWS_POLICY\(([a-z0-9_]+)\)", f.read(), re.M))


def workloads():
    """aws-NAME for each program the workloads Makefile builds (its PROGS)
    and each script NAME.sh it installs (all but selftest.sh)."""
    d = os.path.join(TOP, "userspace", "workloads")
    with open(os.path.join(d, "Makefile")) as f:
        progs = re.search(r"^PROGS\s*:=\s*(.*)$", f.read(), re.M).group(1).split()
    scripts = [os.path.splitext(f)[0] for f in os.listdir(d)
               if f.endswith(".sh") and f != "selftest.sh"]
    return sorted("aws-" + n for n in progs + scripts)


def shown(path):
    """PATH relative to the source tree if it is in it."""
    rel = os.path.relpath(path, TOP)
    return path if rel.startswith("..") else rel


def path_of(plan):
    return plan if plan.endswith(".plan") else os.path.join(PLANS, plan + ".plan")


def parse(plan):
    """(header dict, [cell dict]) of a plan file; PlanError names FILE:LINE."""
    path = path_of(plan)
    if not os.path.isfile(path):
        raise PlanError("no plan '%s' (plans: %s)" % (plan, " ".join(names())))
    header, cells, cell = {}, [], None
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, value = line.partition(" ")
            value = value.strip()
            where = "%s:%d" % (shown(path), i)
            if "\t" in line:
                raise PlanError("%s: a tab in '%s': a plan separates with spaces (the guest's"
                                " table of cells is tab-separated)" % (where, key.split("\t")[0]))
            if not value:
                raise PlanError("%s: '%s' has no value" % (where, key))
            if key == "cell":
                cell = {"name": value, "where": where}
                cells.append(cell)
            elif cell is None and (key in HEADER or key in OPTIONAL):
                header[key] = value
            elif cell is not None and (key in CELL_KEYS or key in OPTIONAL_CELL):
                if key in cell:
                    raise PlanError("%s: cell %s has a second '%s'" % (where, cell["name"], key))
                cell[key] = value
            else:
                raise PlanError("%s: unknown key '%s' %s" % (
                    where, key, "in a cell (keys: %s)" % " ".join(CELL_KEYS + OPTIONAL_CELL)
                    if cell is not None
                    else "in the header (keys: %s)" % " ".join(HEADER + tuple(OPTIONAL))))
    for key, value in OPTIONAL.items():
        header.setdefault(key, value)
    return header, cells


def check(plan):
    """Parse PLAN and check every value; returns (header, cells)."""
    header, cells = parse(plan)
    name = shown(path_of(plan))
    for key in HEADER:
        if key not in header:
            raise PlanError("%s: the header has no '%s'" % (name, key))
    for key in ("reps", "timeout"):
        if not re.match(r"^[1-9][0-9]*$", header[key]):
            raise PlanError("%s: %s must be a positive integer, not '%s'" % (name, key, header[key]))
    for key in ("swap", "global-guest-mem", "guest-mem"):
        if not SIZE.match(header[key]):
            raise PlanError("%s: %s must look like 1G or 512M, not '%s'" % (name, key, header[key]))
    if not cells:
        raise PlanError("%s: no cell" % name)
    known = set(KERNEL_POLICIES) | set(module_policies())
    seen = set()
    for c in cells:
        w = c["where"]
        if c["name"] in seen:
            raise PlanError("%s: a second cell named %s" % (w, c["name"]))
        if not re.match(r"^[a-z0-9][a-z0-9.-]*$", c["name"]):
            raise PlanError("%s: cell name '%s': lower case, digits, '.' and '-' only"
                            % (w, c["name"]))
        seen.add(c["name"])
        for key in CELL_KEYS:
            if key not in c:
                raise PlanError("%s: cell %s has no '%s'" % (w, c["name"], key))
        if "swap" in c and not SIZE.match(c["swap"]):
            raise PlanError("%s: cell %s: swap must look like 64M or 1G, not '%s'"
                            % (w, c["name"], c["swap"]))
        if c["limit"] != "global" and not SIZE.match(c["limit"]):
            raise PlanError("%s: cell %s: limit must look like 64M or 1G, or be 'global', not '%s'"
                            % (w, c["name"], c["limit"]))
        for p in c["policies"].split():
            m = POLICY.match(p)
            if p != "all" and not (m and m.group(1) in known and
                                   not (m.group(2) and m.group(1) in KERNEL_POLICIES)):
                raise PlanError("%s: cell %s: unknown policy '%s' (all, %s; a module policy may"
                                " take -rN)" % (w, c["name"], p, " ".join(sorted(known))))
        prog = c["run"].split()[0]
        if prog not in workloads():
            raise PlanError("%s: cell %s runs '%s', not a workload (%s)"
                            % (w, c["name"], prog, " ".join(workloads())))
    return header, cells


def names():
    return sorted(f[:-5] for f in os.listdir(PLANS) if f.endswith(".plan"))


def parse_args(args):
    """AWS_RUN_ARGS ("n=N,only=GLOB:GLOB,policies=GLOB:GLOB") -> dict."""
    out = {}
    if "\t" in args or "\n" in args:
        raise PlanError("AWS_RUN_ARGS: a tab or line break in '%s'" % args.strip())
    for a in filter(None, args.split(",")):
        key, eq, value = a.partition("=")
        if not eq or key not in ("n", "only", "policies") or not value:
            raise PlanError("AWS_RUN_ARGS: '%s' is not n=N, only=GLOB[:GLOB] or "
                            "policies=GLOB[:GLOB]" % a)
        if key == "n" and not re.match(r"^[1-9][0-9]*$", value):
            raise PlanError("AWS_RUN_ARGS: n must be a positive integer, not '%s'" % value)
        if key in out:
            raise PlanError("AWS_RUN_ARGS: '%s' given twice" % key)
        out[key] = value
    return out


def select(plan, boot, args=""):
    """The table of one guest's cells (the module's docstring), as text;
    None if it has no cell."""
    header, cells = check(plan)
    sel = parse_args(args)
    only = sel.get("only", "*").split(":")
    cells = [c for c in cells if (c["limit"] == "global") == (boot == "global") and
             any(fnmatch.fnmatchcase(c["name"], g) for g in only)]
    if not cells:
        return None
    rows = [("plan", os.path.basename(path_of(plan))[:-5]), ("boot", boot),
            ("reps", sel.get("n", header["reps"]))]
    if "policies" in sel:
        rows.append(("policy-filter", sel["policies"]))
    rows += [("cell", c["name"], c["limit"], c["policies"], c["run"]) for c in cells]
    return "# %s, selected for the %s guest (harness/experiment/plan.py select%s)\n" % (
        shown(path_of(plan)), boot, " --args " + args if args else "") + \
        "".join("\t".join(r) + "\n" for r in rows)


def size_mb(size):
    return int(size[:-1]) * (1024 if size.endswith("G") else 1)


def mean_seconds(runs_csv):
    """{cell: mean wall_s of its runs} in RUNS_CSV ({} if it is None)."""
    if not runs_csv:
        return {}
    total, count = {}, {}
    try:
        with open(runs_csv, newline="") as f:
            for row in csv.DictReader(f):
                try:
                    wall = float(row["wall_s"])
                except (KeyError, TypeError, ValueError):
                    continue
                total[row["cell"]] = total.get(row["cell"], 0.0) + wall
                count[row["cell"]] = count.get(row["cell"], 0) + 1
    except (OSError, KeyError, csv.Error) as e:
        raise PlanError("--times %s: %s" % (runs_csv, e))
    return {c: total[c] / count[c] for c in total}


def units(plan, args="", runs_csv=None):
    """[(boot, cell name, swap)] of the cells ARGS selects, the costliest first
    (the module's docstring); ties in plan order."""
    header, cells = check(plan)
    seconds = mean_seconds(runs_csv)
    sel = parse_args(args)
    only = sel.get("only", "*").split(":")
    pols = sel.get("policies", "*").split(":")
    every = list(KERNEL_POLICIES) + module_policies()
    out = []
    for i, c in enumerate(cells):
        if not any(fnmatch.fnmatchcase(c["name"], g) for g in only):
            continue
        names = [q for p in c["policies"].split() for q in (every if p == "all" else [p])]
        n = sum(1 for q in names if any(fnmatch.fnmatchcase(q, g) for g in pols))
        boot = "global" if c["limit"] == "global" else "main"
        mb = size_mb(header["global-guest-mem"] if boot == "global" else c["limit"])
        out.append([n * int(sel.get("n", header["reps"])), mb, i, boot, c["name"],
                    c.get("swap", header["swap"])])
    per_mb = sorted(seconds[u[4]] / u[1] for u in out if u[4] in seconds)
    scale = per_mb[len(per_mb) // 2] if per_mb else 1.0
    out.sort(key=lambda u: (-u[0] * seconds.get(u[4], u[1] * scale), u[2]))
    return [(u[3], u[4], u[5]) for u in out]


def main(argv):
    try:
        if argv[:1] == ["list"]:
            print(" ".join(names()))
        elif argv[:1] == ["check"]:
            for p in argv[1:] or names():
                header, cells = check(p)
                print("%s: %d cells, %s reps" % (p, len(cells), header["reps"]))
        elif argv[:1] == ["get"] and len(argv) == 3:
            header, _ = check(argv[1])
            if argv[2] not in header:
                raise PlanError("no header key '%s' (keys: %s)"
                               % (argv[2], " ".join(HEADER + tuple(OPTIONAL))))
            print(header[argv[2]])
        elif argv[:1] == ["units"] and len(argv) in (2, 4, 6) and \
                all(o in ("--args", "--times") for o in argv[2::2]):
            opts = dict(zip(argv[2::2], argv[3::2]))
            for unit in units(argv[1], opts.get("--args", ""), opts.get("--times")):
                print("\t".join(unit))
        elif argv[:1] == ["select"] and len(argv) >= 4 and argv[2] == "--boot" and \
                argv[3] in ("main", "global") and (len(argv) == 4 or
                                                   (len(argv) == 6 and argv[4] == "--args")):
            text = select(argv[1], argv[3], argv[5] if len(argv) == 6 else "")
            if text is None:
                return 3
            sys.stdout.write(text)
        else:
            print(next(p for p in __doc__.split("\n\n") if p.startswith("usage:")),
                  file=sys.stderr)
            return 2
    except PlanError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
