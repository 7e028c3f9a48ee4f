#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side test of qemu/results.py, as KTAP on stdout: on a canned guest
output (runs.tsv, matrix.tsv, guest-info.txt) it checks the table of runs,
its round trip through runs.csv, the medians, the confidence intervals (on
inputs whose exact interval and level are known, and by their coverage on
simulated runs), the report of failed or missing runs, and that policies
come from the data.  make test runs it with the unit tests; no guest needed.
"""
import importlib.util
import math
import os
import sys
import tempfile

import numpy as np

spec = importlib.util.spec_from_file_location(
    "results", os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.py"))
R = importlib.util.module_from_spec(spec)
spec.loader.exec_module(R)

# thrash-seed: two policies x 3 reps, one of them a policy no list names;
# randw: one run failed its verification, one failed to set up.
TSV = [("thrash-seed", "baseline", 1, 100, 300, 10), ("thrash-seed", "newpol", 1, 80, 250, 2),
       ("thrash-seed", "baseline", 2, 120, 310, 12), ("thrash-seed", "newpol", 2, 95, 240, 3),
       ("thrash-seed", "baseline", 3, 110, 290, 11), ("thrash-seed", "newpol", 3, 90, 260, 1)]


def canned(d):
    with open(os.path.join(d, "runs.tsv"), "w") as f:
        for cell, pol, rep, pin, pout, hot2 in TSV:
            f.write("cell=%s\tpolicy=%s\trep=%d\tlimit=70M\tboot=main\trc=0\twall_s=3.%03d\t"
                    "vm_pswpin=%d\tvm_pswpout=%d\tres_workload=thrash\tres_hot2_majfaults=%d\t"
                    "res_verify_fail=0%s\n" % (cell, pol, rep, rep, pin, pout, hot2,
                                               "\taws_refault_dist_log2_p0=%d" % pin
                                               if pol == "newpol" else ""))
        f.write("cell=randw\tpolicy=baseline\trep=1\tlimit=16M\tboot=main\trc=0\twall_s=2.5\t"
                "vm_pswpin=7\tvm_pswpout=9\tres_workload=randw\tres_writes_per_sec=812.5\t"
                "res_verify_fail=3\n")
        f.write("cell=randw\tpolicy=detect\trep=1\tlimit=16M\tboot=main\trc=-1\terror=policy_setup\n")
    with open(os.path.join(d, "matrix.tsv"), "w") as f:
        f.write("thrash-seed\t70M\tbaseline newpol\taws-thrash --cold 128M\n"
                "randw\t16M\tbaseline detect protect\taws-randw --size 32M\n")
    with open(os.path.join(d, "guest-info.txt"), "w") as f:
        f.write("plan short\nreps 3\nuname_r 6.1.0\ncpus 2\nmemtotal_kb 524288\npage_cluster 3\n")


def check_parse(d):
    runs, expected = R.load(d)
    assert len(runs) == 8, "%d rows" % len(runs)
    assert list(runs.columns[:6]) == ["cell", "policy", "rep", "limit", "boot", "cmd"], list(runs.columns)
    assert runs.vm_pswpin.dtype == "Int64" and runs.wall_s.dtype == float and runs.limit.dtype == object
    assert runs.cmd.iloc[0] == "aws-thrash --cold 128M" and runs.error.iloc[-1] == "policy_setup"
    assert expected == {"thrash-seed": ["baseline", "newpol"], "randw": ["baseline", "detect", "protect"]}
    return "8 runs, %d columns" % runs.shape[1]


def check_roundtrip(d):
    runs, _ = R.load(d)
    os.rename(os.path.join(d, "runs.tsv"), os.path.join(d, "runs.tsv.off"))
    try:
        again, expected = R.load(d)
    finally:
        os.rename(os.path.join(d, "runs.tsv.off"), os.path.join(d, "runs.tsv"))
    assert again.equals(runs), "runs.csv reads back different"
    assert expected["randw"] == ["baseline", "detect"]
    return "runs.csv reads back equal"


def check_medians(d):
    runs, _ = R.load(d)
    s, order = R.summarise(runs, ["baseline"])
    assert order == {"thrash-seed": ["baseline", "newpol"]}, order  # randw: no valid run
    e = s.set_index(["cell", "policy", "metric"])
    want = {("newpol", "vm_pswpin"): (3, 90, 80, 95), ("baseline", "vm_pswpout"): (3, 300, 290, 310),
            ("newpol", "res_hot2_majfaults"): (3, 2, 1, 3), ("baseline", "wall_s"): (3, 3.002, 3.001, 3.003)}
    for (p, m), w in want.items():
        got = tuple(e.loc[("thrash-seed", p, m), ["n", "median", "min", "max"]])
        assert np.allclose(got, w), (p, m, got, w)
    x = e.loc[("thrash-seed", "newpol", "vm_pswpin")]
    # baseline 100 110 120, newpol 80 90 95: median change -20 = -18.2%,
    # pairwise differences from -40 to -5
    assert (x.vs_baseline_diff, x.vs_baseline_lo, x.vs_baseline_hi) == (-20, -40, -5), x
    assert x.vs_baseline_diff_pct == -18.2 and x.vs_baseline_ci_level == 0.9
    assert ("randw", "baseline", "vm_pswpin") not in e.index, "a run that failed verification was summarised"
    # a cell that ran none of the reference policies is compared with its first one
    s, _ = R.summarise(runs, ["nosuch"])
    x = s.set_index(["cell", "policy", "metric"]).loc[("thrash-seed", "newpol", "vm_pswpin")]
    assert (x.vs_baseline_lo, x.vs_baseline_hi, x.vs_baseline_hl) == (-40, -5, -20), x
    return "medians, min, max and the change with its CI as computed by hand"


def check_ci_known():
    # 3 vs 3: no level reaches 95%; the widest interval, min to max of the
    # 9 differences, has level 1 - 2/20 = 90%.
    lo, hi, lv, hl = R.shift_ci([10, 20, 30], [15, 25, 35])
    assert (lo, hi, hl) == (-15, 25, 5) and math.isclose(lv, 0.9), (lo, hi, lv, hl)
    # 5 vs 5 (Hollander & Wolfe's table): the 3rd smallest to the 3rd largest
    # of the 25 differences, level 1 - 2 * 4/252.
    x, y = [1, 2, 4, 8, 16], [3, 5, 9, 17, 33]
    d = sorted(b - a for a in x for b in y)
    lo, hi, lv, _ = R.shift_ci(x, y)
    assert (lo, hi) == (d[2], d[22]) and math.isclose(lv, 1 - 8 / 252), (lo, hi, lv)
    # 4 vs 4: k = 1, level 1 - 2/70
    assert math.isclose(R.shift_ci([1, 2, 3, 4], [5, 6, 7, 8])[2], 1 - 2 / 70)
    c = R.mw_counts(5, 5)
    assert sum(c) == 252 and c == c[::-1] and c[:4] == (1, 1, 2, 3), c
    return "3v3 [-15, 25] at 90%, 5v5 [d(3), d(23)] at 96.8%, 4v4 at 97.1%"


def check_ci_coverage():
    # The interval must cover the true shift at least as often as its level
    # says (continuous data: exactly), and not much more often.
    rng = np.random.default_rng(11)
    out = []
    for m, trials in ((3, 4000), (5, 2000)):
        hit, level = 0, None
        for _ in range(trials):
            x, y = rng.exponential(100, m), rng.exponential(100, m) + 30
            lo, hi, level, _ = R.shift_ci(x, y)
            hit += lo <= 30 <= hi
        cov = hit / trials
        assert abs(cov - level) < 4 * math.sqrt(level * (1 - level) / trials), (m, cov, level)
        out.append("%dv%d %.3f (level %.3f)" % (m, m, cov, level))
    return "coverage " + ", ".join(out)


def check_problems(d):
    runs, expected = R.load(d)
    errs = R.problems(runs, expected, 3)
    want = ["randw/detect rep 1: exit status -1 (policy_setup)", "randw/baseline rep 1: verify_fail=3",
            "randw/baseline: no data", "randw/detect: no data", "randw/protect: no data"]
    assert sorted(errs) == sorted(want), errs
    return "%d problems found" % len(errs)


def check_outputs(d):
    rc = R.main([d, "--ref", "baseline"])
    assert rc == 1, "exit status %s with failed runs" % rc
    t = open(os.path.join(d, "table.txt")).read()
    assert "baseline -> newpol" in t and "-18.2% [-36.4, -4.5]" in t, t
    for f in ("runs.csv", "summary.csv", "swap.png", "metric.png", "refault-dist.png"):
        assert os.path.getsize(os.path.join(d, f)) > 0, f
    return "table names newpol, plots written"


def main():
    tests = [("parse_runs_tsv", check_parse), ("runs_csv_round_trip", check_roundtrip),
             ("medians_and_change", check_medians), ("ci_known_values", check_ci_known),
             ("ci_coverage", check_ci_coverage), ("failed_and_missing_runs", check_problems),
             ("table_and_plots_from_data", check_outputs)]
    print("KTAP version 1\n1..%d" % len(tests))
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        canned(d)
        for i, (name, fn) in enumerate(tests, 1):
            try:
                with open(os.devnull, "w") as null:
                    out, err, sys.stdout, sys.stderr = sys.stdout, sys.stderr, null, null
                    try:
                        why = fn(d) if fn.__code__.co_argcount else fn()
                    finally:
                        sys.stdout, sys.stderr = out, err
                print("ok %d %s # %s" % (i, name, why))
            except Exception as e:  # a failed check or a crash: not ok, with why
                bad = 1
                print("not ok %d %s # %s: %s" % (i, name, type(e).__name__, str(e)[:200].replace("\n", " ")))
    return bad


if __name__ == "__main__":
    sys.exit(main())
