#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The experiment's plans and policies: harness/experiment/plans/*.plan
read, checked and expanded into the runs each guest makes.

usage: plan.py list                       the plans there are
       plan.py check [PLAN...]            every plan (or these) is well formed
       plan.py cells PLAN [--only GLOBS]  its cells' names, in the plan's order
       plan.py module-policies            the module's policies, in its order

A plan is data (short.plan documents the format): a header, then cells,
each with its memory limit, policies, command and the question it asks.
It is parsed here only, and its policies are expanded here only: "all"
is every policy of the kernel (stock 6.1 with the module unloaded, MGLRU,
DAMON's lru_sort where the kernel has it, and every policy of the module,
the list of include/aws_policy_list.h), a module policy may take -rN (the
anon inactive ratio N), a cell may also name a BPF policy of
userspace/bpf/ (6.12 only), and each name becomes the settings that put
the guest's kernel into it (setup()).

make run (harness/experiment/run.py) selects with ONLY= (cells, globs,
colon-separated), POLICIES= (policies, the same) and REPS= (the plan's
reps if not given); the selection is kept as one string,
"n=N,only=GLOBS,policies=GLOBS" (run.txt, meta.json's "selection").  Each
selected cell is one guest, or, where one cell would bound the run's
wall time, a few guests each with some of its reps (a part, named
CELL+rA-B: part_name(); harness/experiment/schedule.py splits), handed
its runs as ready rows (rows()), one a line, tab-separated, in the order
it makes them (rep 1 of every policy, then rep 2, ...):

    CELL POLICY REP LIMIT LRU_GEN DAMON MODULE RATIO COMMAND...

LIMIT is a memory.max value or "global" (no memcg limit); LRU_GEN y or n
(MGLRU on for the run); DAMON "off" or "HOT:COLD:QUOTA" (damon_lru_sort
running with those thresholds); MODULE "-" (unloaded) or the module's
policy (a BPF policy's loader attaches it first); RATIO "auto" or N;
COMMAND the workload with --seed REP.
harness/guest/jobs/experiment.sh only applies them.  A plan value or a
selection with a tab (or a line break) in it is refused.

Standard library only; harness/unit/test-plans.py tests it.
"""
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

# The policies that are not the module's, with the module unloaded: stock
# 6.1 (nomod), MGLRU, and DAMON's lru_sort.  damon runs lru_sort with 6.1's
# defaults: hot = accessed in half the 5 ms samples of a 100 ms window (500
# per mille), cold = idle 120 s, 10 ms of work a second (no cell runs for
# 120 s under TCG, so its cold half never acts).  damonfast scales them to
# runs of seconds: hot = accessed in one sample of a window (50 per mille),
# cold = idle 1 s (a cell's phases last seconds), 100 ms of work a second
# (TCG is slow).  Values: (MGLRU on, DAMON "HOT:COLD_US:QUOTA_MS" or off).
KERNEL_POLICIES = {"nomod": ("n", "off"), "mglru": ("y", "off"),
                   "damon": ("n", "500:120000000:10"), "damonfast": ("n", "50:1000000:100")}
DAMON = ("damon", "damonfast")


class PlanError(Exception):
    pass


def module_policies():
    """The module's policies, in its order: the AWS_POLICY(name) lines of
    include/aws_policy_list.h, the one list the module is built from."""
    with open(os.path.join(TOP, "include", "aws_policy_list.h")) as f:
        return re.findall(r"^AWS_POLICY\(([a-z0-9_]+)\)", f.read(), re.M)


def bpf_policies():
    """The BPF policies the 6.12 tools disk carries: the POLICIES of
    userspace/bpf/Makefile, the one list they are built from.  A plan names
    them like the module's; on 6.12 the guest attaches one with its loader
    (aws-bpf-load -g) for its rows."""
    with open(os.path.join(TOP, "userspace", "bpf", "Makefile")) as f:
        return re.search(r"^POLICIES\s*:=\s*(.*)$", f.read(), re.M).group(1).split()


def every_policy(damon=True):
    """What "all" stands for on a kernel with (or without) DAMON's lru_sort."""
    return [p for p in KERNEL_POLICIES if damon or p not in DAMON] + module_policies()


def setup(policy):
    """The settings of POLICY (a known name, maybe with -rN) as the guest's
    row has them: (LRU_GEN, DAMON, MODULE, RATIO)."""
    m = POLICY.match(policy)
    base, ratio = m.group(1), (m.group(2) or "-rauto")[2:]
    if base in KERNEL_POLICIES:
        return KERNEL_POLICIES[base] + ("-", "auto")
    return ("n", "off", base, ratio)


def workloads():
    """aws-NAME for each program the workloads Makefile builds (its PROGS)
    and each script NAME.sh it installs (all but selftest.sh and
    program.sh, which the scripts source)."""
    d = os.path.join(TOP, "userspace", "workloads")
    with open(os.path.join(d, "Makefile")) as f:
        progs = re.search(r"^PROGS\s*:=\s*(.*)$", f.read(), re.M).group(1).split()
    scripts = [os.path.splitext(f)[0] for f in os.listdir(d)
               if f.endswith(".sh") and f not in ("selftest.sh", "program.sh")]
    return sorted("aws-" + n for n in progs + scripts)


def shown(path):
    """PATH relative to the source tree if it is in it."""
    rel = os.path.relpath(path, TOP)
    return path if rel.startswith("..") else rel


def path_of(plan):
    return plan if plan.endswith(".plan") else os.path.join(PLANS, plan + ".plan")


def name_of(plan):
    """The plan's name: its file's, without .plan."""
    return os.path.basename(path_of(plan))[:-len(".plan")]


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
                                " rows are tab-separated)" % (where, key.split("\t")[0]))
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
    known = set(KERNEL_POLICIES) | set(module_policies()) | set(bpf_policies())
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


def selection(only="", policies="", reps=""):
    """The selection string of make run's ONLY=, POLICIES= and REPS=
    (each may be empty), checked."""
    text = ",".join("%s=%s" % (k, v) for k, v in (("n", reps), ("only", only),
                                                   ("policies", policies)) if v)
    for var, v in (("ONLY", only), ("POLICIES", policies), ("REPS", reps)):
        if "," in v:
            raise PlanError("%s='%s': globs are colon-separated, not comma-separated" % (var, v))
    parse_args(text)
    return text


def parse_args(args):
    """A selection string ("n=N,only=GLOB:GLOB,policies=GLOB:GLOB") -> dict."""
    out = {}
    if "\t" in args or "\n" in args:
        raise PlanError("the selection: a tab or line break in '%s'" % args.strip())
    for a in filter(None, args.split(",")):
        key, eq, value = a.partition("=")
        if not eq or key not in ("n", "only", "policies") or not value:
            raise PlanError("the selection: '%s' is not n=N, only=GLOB[:GLOB] or "
                            "policies=GLOB[:GLOB]" % a)
        if key == "n" and not re.match(r"^[1-9][0-9]*$", value):
            raise PlanError("REPS must be a positive integer, not '%s'" % value)
        if key in out:
            raise PlanError("the selection: '%s' given twice" % key)
        out[key] = value
    return out


def matches(name, globs):
    """NAME matches one of the colon-separated GLOBS."""
    return any(fnmatch.fnmatchcase(name, g) for g in globs.split(":"))


def cells(plan, args="", damon=True, bpf=True):
    """The cells the selection ARGS keeps, in the plan's order, each a dict:
    name, boot (main or global), limit, swap, cmd, reps, policies (every
    one named, "all" expanded for a kernel with or without DAMON, then
    filtered) and left_out: on a kernel without BPF policies, the plan's
    BPF policies that a glob selected (one the selection names is
    refused); a cell no policy is left for is left out."""
    header, plan_cells = check(plan)
    sel = parse_args(args)
    out = []
    for c in plan_cells:
        if not matches(c["name"], sel.get("only", "*")):
            continue
        pols = [q for p in c["policies"].split()
                for q in (every_policy(damon) if p == "all" else [p])]
        pols = [p for p in dict.fromkeys(pols) if matches(p, sel.get("policies", "*"))]
        if not damon and any(POLICY.match(p).group(1) in DAMON for p in pols):
            raise PlanError("cell %s: this kernel has no DAMON lru_sort for %s"
                            % (c["name"], " ".join(p for p in pols if p in DAMON)))
        bpf_named = [p for p in pols if POLICY.match(p).group(1) in bpf_policies()] if not bpf else []
        asked = [p for p in bpf_named if p in sel.get("policies", "").split(":")]
        if asked:
            raise PlanError("cell %s: %s: a BPF policy, on 6.12 only (KVER=6.12)"
                            % (c["name"], " ".join(asked)))
        pols = [p for p in pols if p not in bpf_named]
        if not pols:
            continue
        out.append({"name": c["name"], "boot": "global" if c["limit"] == "global" else "main",
                    "limit": c["limit"], "swap": c.get("swap", header["swap"]), "cmd": c["run"],
                    "reps": int(sel.get("n", header["reps"])), "policies": pols,
                    "left_out": bpf_named})
    return out


def rows(cell, reps=None):
    """The guest's rows of CELL (a dict of cells()), as text (the module's
    docstring): every policy's rep 1, then rep 2, ... (only REPS, a list,
    for a part of the cell)."""
    return "".join("\t".join((cell["name"], p, str(rep), cell["limit"]) + setup(p) +
                             ("%s --seed %d" % (cell["cmd"], rep),)) + "\n"
                   for rep in reps or range(1, cell["reps"] + 1) for p in cell["policies"])


def part_name(cell, reps):
    """The name of the guest of CELL that makes the runs of REPS (a list
    of consecutive reps): the cell's own name if they are all its reps,
    else NAME+rA-B (NAME+rA for one)."""
    if list(reps) == list(range(1, cell["reps"] + 1)):
        return cell["name"]
    return "%s+r%d%s" % (cell["name"], reps[0], "-%d" % reps[-1] if len(reps) > 1 else "")


def part_reps(cell, guest):
    """The reps the guest named GUEST made of CELL (part_name()'s
    inverse), None if GUEST is not one of CELL's."""
    if guest == cell["name"]:
        return list(range(1, cell["reps"] + 1))
    m = re.match(r"^%s\+r([1-9][0-9]*)(?:-([1-9][0-9]*))?$" % re.escape(cell["name"]), guest)
    if not m:
        return None
    first, last = int(m.group(1)), int(m.group(2) or m.group(1))
    return list(range(first, last + 1)) if first <= last else None


def matrix_line(cell):
    """CELL's line of matrix.tsv: name, limit, policies, command."""
    return "\t".join((cell["name"], cell["limit"], " ".join(cell["policies"]), cell["cmd"])) + "\n"


def size_mb(size):
    return int(size[:-1]) * (1024 if size.endswith("G") else 1)


def main(argv):
    try:
        if argv[:1] == ["list"]:
            print(" ".join(names()))
        elif argv[:1] == ["check"]:
            for p in argv[1:] or names():
                header, plan_cells = check(p)
                print("%s: %d cells, %s reps" % (p, len(plan_cells), header["reps"]))
        elif argv == ["module-policies"]:
            print(" ".join(module_policies()))
        elif argv[:1] == ["cells"] and len(argv) in (2, 4) and argv[2:3] in ([], ["--only"]):
            only = argv[3] if len(argv) == 4 else ""
            for c in cells(argv[1], selection(only=only)):
                print(c["name"])
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
