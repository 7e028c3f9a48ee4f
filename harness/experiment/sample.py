#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The goals, judged in the guest on a sample of the workload distribution.

usage: sample.py DIR [--judge POLICY,...] [--peers nomod,mglru] [--peers-from DIR2]
                   [--rule NAME=DIR3:POLICY ...] [--best NAME=A+B+... ...]
                   [--against NAME]
       sample.py --write-plan N [--dist-seed S] [--memory SIZE] [--policies LIST]

DIR is a `make run` result folder whose plan's cells run aws-instance
(PLAN=sample: instances of userspace/sim/dist.c, each replayed exactly by
the guest), with runs.csv (harness/experiment/results.py) and opt.csv
(harness/experiment/opt.py: OPT on each run's own trace).  For every cell
this takes each policy's swap-ins (the guest's pswpin) over its runs:
median, lowest and highest; the instance's family and drawn parameters
from the simulator's own draw (aws-sim --distribution, the same rng seed,
index and frames); and states the goals (harness/experiment/goals.py) of
each --judge policy (by default every policy that ran but the peers)
against the better of the --peers, with the runs'
ranges as the intervals.  Writes DIR/sample.csv (one row per instance)
and DIR/sample-goals.csv, and prints the goals.  --peers-from takes the
peers' runs from another folder of the same plan (a candidate run alone,
`make run PLAN=... POLICIES=...`, judged against a stored sample's stock
and MGLRU: results/sample120-6.1), which must have run every instance
DIR ran, with the same command (DIR may hold some of them only).
--rule brings in another such folder's runs of one policy under a name of
its own (a rule run alone, a build of regret with REGRET_EXPERT set), and
--best judges, as if it were a policy, the one of its rules with the
fewest swap-ins in each instance: what a policy that always chose the
right rule would reach (docs/regret.md).  --against NAME compares each
judged policy with NAME (a policy or rule of the table, the policy as it
was brought in by --rule) instance by instance (goals.compare(): the
geometric mean of the ratios with its bootstrap interval, fewer, more or
not told apart) and writes DIR/sample-against.csv: how a change is told
from the policy it changes.

--write-plan N prints a sample plan instead: instances 0..N-1 of the
distribution drawn with rng seed S (default 41) for SIZE (default 16M),
one cell each named by family and index, its question giving the drawn
parameters (harness/experiment/plans/sample*.plan are its output).

Exit status 1 if a cell does not run aws-instance, a judged policy or a
peer has no runs in a cell, or OPT is missing for a cell: every instance
of the sample is judged, or none.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile

import pandas as pd

import goals
import plan as plans
from opt import memory_max_bytes, stored

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = 4096


class SampleError(Exception):
    pass


def instances(plan_path):
    """{cell: (rng seed, index, frames)} from the plan's aws-instance cells
    (parsed, not checked: a stored run's plan may name a policy of its own
    build, results/regret-start-6.1)."""
    _, cells = plans.parse(plan_path)
    out = {}
    for c in cells:
        argv = shlex.split(c["run"])
        if argv[0] != "aws-instance":
            raise SampleError("cell %s runs %s, not aws-instance" % (c["name"], argv[0]))
        opts = dict(zip(argv[1::2], argv[2::2]))
        try:
            mem = memory_max_bytes(opts["--memory"])
            out[c["name"]] = (int(opts["--dist-seed"]), int(opts["--index"]), mem and mem // PAGE)
        except (KeyError, ValueError) as e:
            raise SampleError("cell %s: cannot read %s from '%s'" % (c["name"], e, c["run"]))
        if not mem:
            raise SampleError("cell %s: --memory %s is not a fixed size" % (c["name"], opts["--memory"]))
    return out


def draws(cells, sim):
    """{cell: (family, params)}: the simulator's own draw of each instance."""
    out = {}
    for seed, frames in sorted({(s, f) for s, _, f in cells.values()}):
        n = max(i for s, i, f in cells.values() if (s, f) == (seed, frames)) + 1
        with tempfile.TemporaryDirectory() as tmp:
            csv = os.path.join(tmp, "d.csv")
            r = subprocess.run([sim, "--distribution", str(n), "--dist-seed", str(seed), "--frames",
                                str(frames), "--policies", "lru", "--csv", csv],
                               capture_output=True, text=True)
            if r.returncode:
                raise SampleError("%s --distribution failed: %s" % (sim, r.stderr.strip()))
            d = pd.read_csv(csv).set_index("instance")
        for cell, (s, i, f) in cells.items():
            if (s, f) == (seed, frames):
                out[cell] = (d.at[i, "family"], d.at[i, "params"])
    return out


def plan_text(n, seed, memory, policies, sim, argv):
    """A sample plan of instances 0..n-1 (drawn with rng seed @seed for @memory)."""
    frames = memory_max_bytes(memory) // PAGE
    cells = {"i%d" % i: (seed, i, frames) for i in range(n)}
    drawn = draws(cells, sim)
    out = ["# A sample of the workload distribution (userspace/sim/dist.c), written by",
           "#   python3 harness/experiment/sample.py %s" % " ".join(shlex.quote(x) for x in argv),
           "# instances 0..%d drawn with rng seed %d for %s, the limit each runs under;"
           % (n - 1, seed, memory),
           "# aws-instance replays exactly the trace aws-sim --distribution %d --dist-seed %d"
           % (n, seed),
           "# --frames %d replays, and OPT is computed on it.  The format is short.plan's."
           % frames,
           "about a sample of %d instances of the workload distribution: %s"
           % (n, ", ".join(policies)),
           "reps 3", "timeout 3600", "swap 1G", "global-guest-mem 128M"]
    for i in range(n):
        family, params = drawn["i%d" % i]
        out += ["cell %s-%d" % (family, i), "limit %s" % memory, "policies %s" % " ".join(policies),
                "run aws-instance --dist-seed %d --index %d --memory %s" % (seed, i, memory),
                "asks how do the policies do on %s instance %d (%s)?" % (family, i, params)]
    return "\n".join(out) + "\n"


def plan_of(d):
    """The one plan file of the run folder D."""
    files = [f for f in os.listdir(d) if f.endswith(".plan")]
    if len(files) != 1:
        raise SampleError("%s holds %d plan files, not one" % (d, len(files)))
    return os.path.join(d, files[0])


def read_runs(d):
    return pd.read_csv(stored(d, "runs.csv"), keep_default_na=False, na_values=[""])


def table(d, cells, drawn, policies, peers_from=None, peers=(), rules=()):
    """The goals table: one row per cell (instance); the PEERS' runs from
    the folder PEERS_FROM if given, and each rule (NAME, DIR, POLICY) of
    RULES from DIR's runs of POLICY, under NAME."""
    runs = read_runs(d)
    if peers_from:
        other = read_runs(peers_from)
        runs = pd.concat([runs[~runs.policy.isin(peers)], other[other.policy.isin(peers)]])
    for name, rd, pol in rules:
        other = read_runs(rd)
        runs = pd.concat([runs[runs.policy != name], other[other.policy == pol].assign(policy=name)])
    opt = pd.read_csv(stored(d, "opt.csv"), keep_default_na=False, na_values=[""])
    rows = []
    for cell, (seed, index, frames) in cells.items():
        r = {"cell": cell, "dist_seed": seed, "instance": index, "frames": frames,
             "family": drawn[cell][0], "params": drawn[cell][1]}
        for p in policies:
            v = runs[(runs.cell == cell) & (runs.policy == p)].vm_pswpin.dropna()
            if v.empty:
                raise SampleError("cell %s has no run of %s" % (cell, p))
            r.update({p: v.median(), p + "_lo": v.min(), p + "_hi": v.max(), p + "_n": len(v)})
        o = opt[(opt.cell == cell)].opt_swapins.dropna()
        if o.empty:
            raise SampleError("cell %s has no OPT (opt.csv)" % cell)
        if o.nunique() != 1:
            raise SampleError("cell %s: OPT differs between runs of one instance: %s"
                              % (cell, sorted(o.unique())))
        r.update({"OPT": o.iloc[0], "OPT_lo": o.iloc[0], "OPT_hi": o.iloc[0]})
        rows.append(r)
    return pd.DataFrame(rows).set_index("cell")


def add_best(t, name, rules):
    """Column NAME (with its range and run count): per instance, the rule
    of RULES with the lowest median, as if a policy had always chosen it."""
    pick = t[list(rules)].idxmin(axis=1)
    for suffix in ("", "_lo", "_hi", "_n"):
        t[name + suffix] = [t.at[i, p + suffix] for i, p in pick.items()]
    t[name + "_of"] = pick
    return t


def parse_rule(text):
    """NAME=DIR:POLICY as (NAME, DIR, POLICY)."""
    name, _, rest = text.partition("=")
    d, _, pol = rest.rpartition(":")
    if not (name and d and pol):
        raise SampleError("--rule %s: not NAME=DIR:POLICY" % text)
    return name, d, pol


def parse_best(text, known):
    """NAME=A+B+... as (NAME, [A, B, ...]), each a policy or rule known."""
    name, _, rest = text.partition("=")
    rules = [r for r in rest.split("+") if r]
    if not name or len(rules) < 2 or not set(rules) <= set(known):
        raise SampleError("--best %s: not NAME=A+B+... of two or more of %s" % (text, ", ".join(known)))
    return name, rules


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--write-plan", type=int, metavar="N", help="print a plan of instances 0..N-1")
    ap.add_argument("--dist-seed", type=int, default=41)
    ap.add_argument("--memory", default="16M")
    ap.add_argument("--policies", default="nomod mglru hold regret")
    ap.add_argument("--judge", default="",
                    help="the policies the goals judge (default: those that ran, but the peers)")
    ap.add_argument("--peers", default="nomod,mglru", help="the better of these (default nomod,mglru)")
    ap.add_argument("--peers-from", default="", metavar="DIR2",
                    help="the peers' runs from this folder of the same plan")
    ap.add_argument("--rule", action="append", default=[], metavar="NAME=DIR:POLICY",
                    help="DIR's runs of POLICY (a folder of the same plan), judged as NAME")
    ap.add_argument("--best", action="append", default=[], metavar="NAME=A+B+...",
                    help="judge NAME: per instance, the one of A, B, ... with the fewest swap-ins")
    ap.add_argument("--against", default="", metavar="NAME",
                    help="compare each judged policy with NAME, instance by instance")
    ap.add_argument("--sim", default=os.path.join(TOP, "build", "userspace", "aws-sim"))
    a = ap.parse_args(argv)
    judged, peers = [p for p in a.judge.split(",") if p], a.peers.split(",")
    if a.write_plan is not None:
        if a.dir or a.write_plan < 1 or not memory_max_bytes(a.memory):
            print("error: sample.py --write-plan N: N >= 1, a fixed --memory, no DIR", file=sys.stderr)
            return 1
        try:
            sys.stdout.write(plan_text(a.write_plan, a.dist_seed, a.memory, a.policies.split(),
                                       a.sim, argv))
        except SampleError as e:
            print("error: sample.py: %s" % e, file=sys.stderr)
            return 1
        return 0
    if not a.dir:
        ap.error("DIR is needed (or --write-plan N)")
    try:
        cells = instances(plan_of(a.dir))
        rules = [parse_rule(r) for r in a.rule]
        for other, what in [(a.peers_from, "--peers-from")] + [(d, "--rule " + n) for n, d, _ in rules]:
            if other and not cells.items() <= instances(plan_of(other)).items():
                raise SampleError("%s %s did not run every instance %s ran" % (what, other, a.dir))
        ran = list(read_runs(a.dir).policy.drop_duplicates()) + [n for n, _, _ in rules]
        if not judged:
            judged = [p for p in ran if p not in peers]
        if not judged:
            raise SampleError("the runs are of no policy but the peers %s" % ",".join(peers))
        best = [parse_best(b, ran + peers) for b in a.best]
        judged = [p for p in judged if p not in [n for n, _ in best] + [a.against]]
        if a.against and a.against not in ran + peers:
            raise SampleError("--against %s: not one of %s" % (a.against, ", ".join(ran + peers)))
        need = list(dict.fromkeys(judged + peers + [r for _, of in best for r in of]
                                  + ([a.against] if a.against else [])))
        t = table(a.dir, cells, draws(cells, a.sim), need, a.peers_from, peers, rules)
        for name, of in best:
            t = add_best(t, name, of)
            judged.append(name)
    except (SampleError, plans.PlanError, OSError) as e:
        print("error: sample.py: %s" % e, file=sys.stderr)
        return 1
    t.to_csv(os.path.join(a.dir, "sample.csv"))
    print("the sample: %d instances of the distribution in the guest, %s runs each; goals against"
          " the better of %s%s, intervals from the runs' range"
          % (len(t), "/".join(str(n) for n in sorted(set(t[judged[0] + "_n"]))), " and ".join(peers),
             " (their runs from %s)" % a.peers_from if a.peers_from else ""))
    verdicts = []
    for p in judged:
        lines, v = goals.report(t, p, peers)
        print("\n".join(lines))
        verdicts.append(v.assign(policy=p))
    pd.concat(verdicts).to_csv(os.path.join(a.dir, "sample-goals.csv"), index=False)
    if a.against:
        rows = []
        for p in judged:
            lines, row = goals.compare(t, p, a.against, peers)
            print("\n".join(lines))
            rows.append(row)
        pd.concat(rows).to_csv(os.path.join(a.dir, "sample-against.csv"), index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
