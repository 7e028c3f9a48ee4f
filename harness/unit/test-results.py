#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side unit test of harness/experiment/results.py, opt.py,
calibrate.py and dist.py, as KTAP: on a canned guest output (runs.tsv,
matrix.tsv, guest-info.txt, opt.csv) it checks the table of runs, its round trip
through runs.csv, the medians, the confidence intervals (on inputs whose
exact interval and level are known, and by their coverage on simulated
runs), the report of failed or missing runs, that policies come from the
data, the x OPT figures with their approximate and n/a cells, opt.py's
choice of trace for each kind of command and its figures on real traces
(the workloads and aws-sim of build/userspace, run on the host),
calibrate.py's verdicts, dist.py's summary of a distribution, a change
told from the policy it changes (goals.compare(), sample.py --against), the
meta.json meta.py writes for a made-up run, merge.py's gathering of a
folder's guests and its merge of shards, and schedule.py's replay of a
run's pool.  make test runs it with the unit tests; no guest needed.
"""
import glob
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HARNESS, "experiment"))
import calibrate as C  # noqa: E402
import dist as D  # noqa: E402
import goals as G  # noqa: E402
import sample as S  # noqa: E402
import opt as O  # noqa: E402
import plan as P  # noqa: E402
import results as R  # noqa: E402
import simguest as SG  # noqa: E402

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
        # zipf-t8-a0.9: counts, an approximate OPT; zipf-t1-a0.5: a timed cell from
        # before the counts (throughput only), no OPT
        for rep, pin in ((1, 300), (2, 330), (3, 360)):
            f.write("cell=zipf-t8-a0.9\tpolicy=detect\trep=%d\tlimit=16M\tboot=main\trc=0\tvm_pswpin=%d\t"
                    "vm_pswpout=5\tres_workload=zipf\tres_record_majfaults=%d\tres_records_per_sec=9%d.5\t"
                    "res_verify_fail=0\n" % (rep, pin, pin // 10, rep))
            f.write("cell=zipf-t1-a0.5\tpolicy=detect\trep=%d\tlimit=16M\tboot=main\trc=0\tvm_pswpin=%d\t"
                    "vm_pswpout=5\tres_workload=zipf\tres_records_per_sec=7%d.5\tres_verify_fail=0\n"
                    % (rep, pin, rep))
    with open(os.path.join(d, "matrix.tsv"), "w") as f:
        f.write("thrash-seed\t70M\tbaseline newpol\taws-thrash --cold 128M\n"
                "randw\t16M\tbaseline detect protect\taws-randw --size 32M\n"
                "zipf-t8-a0.9\t16M\tdetect\taws-zipf --size 32M --threads 8 --records 10\n"
                "zipf-t1-a0.5\t16M\tdetect\taws-zipf --size 32M --seconds 3\n")
    # OPT 50 for thrash-seed's three seeds; zipf-t8-a0.9's differ per seed
    with open(os.path.join(d, "opt.csv"), "w") as f:
        f.write("cell,rep,frames,trace,accesses,pages,opt_swapins,lru_swapins,note,source\n")
        for rep in (1, 2, 3):
            f.write("thrash-seed,%d,17920,exact,900,400,50,120,,aws-thrash --cold 128M --seed %d "
                    "--save-trace\n" % (rep, rep))
            f.write("zipf-t8-a0.9,%d,4096,approx,900,400,%d,400,approximate: 8 threads' records,aws-sim\n"
                    % (rep, 100 * rep))
            f.write("zipf-t1-a0.5,%d,4096,n/a,,,,,timed (--seconds): speed,\n" % rep)
        f.write("randw,1,4096,n/a,,,,,\"timed, really\",\n")
    with open(os.path.join(d, "guest-info.txt"), "w") as f:
        f.write("plan short\nreps 3\nuname_r 6.1.0\ncpus 2\nmemtotal_kb 524288\npage_cluster 3\n")


def check_parse(d):
    runs, expected = R.load(d)
    assert len(runs) == 14, "%d rows" % len(runs)
    assert list(runs.columns[:6]) == ["cell", "policy", "rep", "limit", "boot", "cmd"], list(runs.columns)
    assert runs.vm_pswpin.dtype == "Int64" and runs.wall_s.dtype == float and runs.limit.dtype == object
    assert runs.cmd.iloc[0] == "aws-thrash --cold 128M" and runs.error.iloc[7] == "policy_setup"
    assert expected == {"thrash-seed": ["baseline", "newpol"], "randw": ["baseline", "detect", "protect"],
                        "zipf-t8-a0.9": ["detect"], "zipf-t1-a0.5": ["detect"]}
    # opt.csv, by cell and rep: x_opt = vm_pswpin / opt_swapins, per run
    r = runs.set_index(["cell", "policy", "rep"])
    assert r.at[("thrash-seed", "baseline", 1), "x_opt"] == 2.0 and r.at[("zipf-t8-a0.9", "detect", 3), "x_opt"] == 1.2
    assert r.at[("randw", "baseline", 1), "opt_trace"] == "n/a" and r.at[("randw", "baseline", 1), "opt_note"] == \
        "timed, really" and pd.isna(r.at[("randw", "baseline", 1), "x_opt"])
    assert r.opt_swapins.dtype == "Int64" and r.at[("thrash-seed", "newpol", 2), "opt_frames"] == 17920
    return "14 runs, %d columns, opt.csv merged" % runs.shape[1]


def check_roundtrip(d):
    runs, _ = R.load(d)
    os.rename(os.path.join(d, "runs.tsv"), os.path.join(d, "runs.tsv.off"))
    try:
        again, expected = R.load(d)
    finally:
        os.rename(os.path.join(d, "runs.tsv.off"), os.path.join(d, "runs.tsv"))
    assert again.equals(runs), "runs.csv reads back different"
    assert expected["randw"] == ["baseline", "detect"]
    assert (again.opt_trace == "n/a").sum() == 5, "an n/a did not survive runs.csv"
    return "runs.csv reads back equal, n/a included"


def check_medians(d):
    runs, _ = R.load(d)
    s, order = R.summarise(runs, ["baseline"])
    assert order == {"thrash-seed": ["baseline", "newpol"], "zipf-t8-a0.9": ["detect"], "zipf-t1-a0.5": ["detect"]}, \
        order  # randw: no valid run
    e = s.set_index(["cell", "policy", "metric"])
    want = {("newpol", "vm_pswpin"): (3, 90, 80, 95), ("baseline", "vm_pswpout"): (3, 300, 290, 310),
            ("newpol", "res_hot2_majfaults"): (3, 2, 1, 3), ("baseline", "wall_s"): (3, 3.002, 3.001, 3.003),
            ("baseline", "x_opt"): (3, 2.2, 2.0, 2.4), ("newpol", "x_opt"): (3, 1.8, 1.6, 1.9),
            ("newpol", "opt_swapins"): (3, 50, 50, 50)}
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


def check_against_best(d):
    runs, _ = R.load(d)
    nb = runs[(runs.cell == "thrash-seed") & (runs.policy == "newpol")]
    # a peer worse than baseline (newpol + 100), then one better (newpol - 50)
    for shift, best in ((100, "baseline"), (-50, "peer")):
        more = pd.concat([runs, nb.assign(policy="peer", vm_pswpin=nb.vm_pswpin + shift)], ignore_index=True)
        s, order = R.summarise(more, ["baseline", "peer"])
        lines = R.against_best(s, order, ["baseline", "peer"])
        rows = [ln.split() for ln in lines if ln.startswith("thrash-seed")]
        assert len(rows) == 1 and rows[0][1] == "newpol" and rows[0][3] == best, lines
        # newpol 80 90 95 against baseline 100 110 120: -18.2 % [-36.4, -4.5];
        # against peer 30 40 45: +125.0 %
        want = "-18.2%" if best == "baseline" else "+125.0%"
        assert rows[0][5] == want, (rows, want)
    return "picks the peer with the lower median, both ways; change and CI against it"


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


def check_opt_summary(d):
    runs, _ = R.load(d)
    s, _ = R.summarise(runs, ["baseline"])
    e = s.set_index(["cell", "policy", "metric"])
    # zipf-t8-a0.9: per-run ratios 300/100, 330/200, 360/300, approximate
    x = e.loc[("zipf-t8-a0.9", "detect", "x_opt")]
    assert (x.n, x["median"], x["min"], x["max"]) == (3, 1.65, 1.2, 3.0), x
    assert x.note.startswith("approx: approximate: 8 threads"), x.note
    # zipf-t1-a0.5: no OPT, said so with the reason; thrash-seed: exact, no note
    x = e.loc[("zipf-t1-a0.5", "detect", "x_opt")]
    assert x.n == 0 and pd.isna(x["median"]) and x.note == "n/a (timed (--seconds): speed)", x
    assert e.loc[("thrash-seed", "newpol", "x_opt"), "note"] == ""
    # an all-zero OPT is n/a, not infinity; a run without opt.csv says so
    z = runs.assign(opt_swapins=runs.opt_swapins.where(runs.cell != "thrash-seed", 0))
    z["x_opt"] = z.x_opt.where(z.cell != "thrash-seed")
    info = R.opt_info(z)
    assert info["thrash-seed"][0] == "n/a" and "OPT needs no swap-in" in info["thrash-seed"][1], info
    info = R.opt_info(runs.drop(columns=[c for c in runs if c.startswith("opt_")]))
    assert info["thrash-seed"][0] == "n/a" and "no OPT computed" in info["thrash-seed"][1]
    return "x OPT 1.65 (1.20-3.00) approx, n/a with its reason, OPT 0 n/a"


def check_outputs(d):
    rc = R.main([d, "--ref", "baseline"])
    assert rc == 1, "exit status %s with failed runs" % rc
    t = open(os.path.join(d, "table.txt")).read()
    assert "baseline -> newpol" in t and "-18.2% [-36.4, -4.5]" in t, t
    cell = t[t.index("\nthrash-seed"):t.index("\nzipf-t8-a0.9")]
    assert "OPT 50 swap-ins, LRU 120, at 17920 frames" in cell and "x OPT" in cell, cell
    assert "2.20 (2.00-2.40)" in cell and "1.80 (1.60-1.90)" in cell, cell
    cell = t[t.index("\nzipf-t8-a0.9"):t.index("\nzipf-t1-a0.5")]
    # counts first, throughput after x OPT, approximate marked
    assert cell.index("record majflt") < cell.index("x OPT") < cell.index("records/s"), cell
    assert "~1.65 (1.20-3.00)" in cell and "OPT 100-300 swap-ins" in cell, cell
    cell = t[t.index("\nzipf-t1-a0.5"):]
    assert "x OPT n/a (timed (--seconds): speed)" in cell and "record majflt" not in cell, cell
    head, row = [ln for ln in cell.splitlines() if ln.startswith(("policy", "detect"))]
    assert head.split()[-3:] == ["records/s", "x", "OPT"] and row.endswith("n/a"), cell
    for f in ("runs.csv", "summary.csv", "swap.png", "metric.png", "refault-dist.png", "zipf.png"):
        assert os.path.getsize(os.path.join(d, f)) > 0, f
    # the Markdown table: a row per cell, its OPT, medians with x OPT
    # (approximate marked), blank where a policy did not run
    md = open(os.path.join(d, "table.md")).read().splitlines()
    row = next(ln for ln in md if ln.startswith("| `thrash-seed`"))
    assert md[0].startswith("| cell (memory.max) | OPT | `") and "| 50 |" in row and "(2.20x)" in row, md
    assert "(~1.65x)" in next(ln for ln in md if ln.startswith("| `zipf-t8-a0.9`")), md
    return "table names newpol, x OPT exact/approx/n/a, plots and the Markdown table written"


def check_opt_recipe():
    # which trace each kind of command gets, and why not: the workloads'
    # own answers (--describe), read by opt.py
    p = O.trace_recipe("aws-thrash --cold 128M --rounds 3", "70M", 2)
    assert (p["kind"], p["frames"], p["argv"]) == ("exact", 17920, ["thrash", "--cold", "128M", "--rounds", "3",
                                                                      "--seed", "2"]), p
    p = O.trace_recipe("aws-zipf --size 32M --threads 8 --alpha 0.9 --records 375", "16M", 3)
    assert p["kind"] == "approx" and p["sim"] == [
        "--seed", "3", "--pattern", "zipf", "--zipf-pages", "8192", "--zipf-chunk", "16", "--zipf-threads",
        "8", "--alpha", "0.9", "--accesses", "48000"] and p["expect"]["records"] == 3000, p
    p = O.trace_recipe("aws-randw --size 32M --threads 2 --writes 8000", "16777216", 1)
    assert p["kind"] == "approx" and p["frames"] == 4096 and p["sim"][-2:] == ["--accesses", "16000"], p
    assert O.trace_recipe("aws-zipf --size 32M --threads 1 --records 5", "16M", 1)["kind"] == "exact"
    for cmd, limit, why in (("aws-zipf --size 32M --seconds 3", "16M", "timed"),
                            ("aws-zipf --size 32M", "16M", "no --records"),
                            ("aws-randw --size 32M --writes 9", "16M", "no --threads"),
                            ("aws-protect --hot 40% --wave 64M", "64M", "relative to the guest"),
                            ("aws-protect --hot 32M", "global", "no memory.max"),
                            ("aws-thrash --corrupt-test", "70M", "not traced"),
                            ("aws-sqlite --size 160M --scans 4", "128M", "real program"),
                            ("aws-zipf --size 32M --records 0", "16M", "refuses these arguments")):
        p = O.trace_recipe(cmd, limit, 1)
        assert p["kind"] == "n/a" and why in p["note"], (cmd, p)
    return "exact, approx and 8 reasons for n/a, from the workloads' --describe"


def check_opt_real(d):
    # the workloads and aws-sim of this tree, on the loop design cell
    # (aws-loop --size 160M --loops 4 in 128M): OPT 32768 and LRU 163840
    # swap-ins, the figures hold's goals were set on; the same run with
    # a guest RESULT that disagrees is refused
    b = os.path.join(O.BUILD, "userspace")
    for x in ("aws-sim", "aws-loop", "aws-zipf"):
        assert os.access(os.path.join(b, x), os.X_OK), "%s/%s missing (make userspace)" % (b, x)
    g = os.path.join(d, "opt-real")
    os.makedirs(g)
    with open(os.path.join(g, "matrix.tsv"), "w") as f:
        f.write("loop\t128M\tnomod\taws-loop --size 160M --loops 4\n"
                "zipf-t1\t2M\tnomod\taws-zipf --size 4M --chunk 4K --alpha 0.9 --records 3000\n"
                "zipf-t3\t2M\tnomod\taws-zipf --size 4M --chunk 4K --threads 3 --alpha 0.9 --records 1000\n")
    with open(os.path.join(g, "runs.tsv"), "w") as f:
        f.write("cell=loop\tpolicy=nomod\trep=1\tres_workload=loop\tres_pages=40960\tres_loops=4\n"
                "cell=loop\tpolicy=nomod\trep=2\tres_workload=loop\tres_pages=40959\tres_loops=4\n"
                "cell=zipf-t1\tpolicy=nomod\trep=7\tres_workload=zipf\tres_records=3000\n"
                "cell=zipf-t3\tpolicy=nomod\trep=7\tres_workload=zipf\tres_records=3000\n")
    rows = O.opt_rows(g, b, os.path.join(g, "cache"))
    got = {(r["cell"], r["rep"]): r for r in rows}
    r = got[("loop", 1)]
    assert (r["trace"], r["frames"], r["opt_swapins"], r["lru_swapins"]) == ("exact", 32768, 32768, 163840), r
    # the simulator's 6.1 misses every access of the loops, like LRU
    assert r["sim_stock_swapins"] == 163840 and all(
        r["sim_%s_swapins" % p] >= r["opt_swapins"] for p in O.SIM_POLICIES), r
    r = got[("loop", 2)]
    assert r["trace"] == "n/a" and "pages=40959" in r["note"], r
    # zipf-t1 is the sim's zipf pattern with one thread (selftest.sh proves
    # the traces byte-identical): the file trace's figures are the pattern's
    t1, t3 = got[("zipf-t1", 7)], got[("zipf-t3", 7)]
    out = subprocess.run([os.path.join(b, "aws-sim"), "--pattern", "zipf", "--zipf-pages", "1024",
                          "--alpha", "0.9", "--seed", "7", "--accesses", "3000", "--frames", "512",
                          "--policies", "opt,lru"], stdout=subprocess.PIPE, text=True, check=True).stdout
    sim = {ln.split()[0]: int(ln.split()[9]) for ln in out.splitlines() if ln.startswith(("OPT ", "LRU "))}
    assert t1["trace"] == "exact" and (t1["opt_swapins"], t1["lru_swapins"]) == (sim["OPT"], sim["LRU"]), (t1, sim)
    assert t3["trace"] == "approx" and 0 < t3["opt_swapins"] < t3["lru_swapins"] and t3["accesses"] == 4024, t3
    # a second pass is answered from the cache, with the same figures
    assert O.opt_rows(g, b, os.path.join(g, "cache")) == rows
    return "loop OPT 32768 LRU 163840, zipf-t1 OPT %d = aws-sim's, a mismatch refused" % t1["opt_swapins"]


def check_calibrate():
    """Three cells, one per verdict: the two order every pair alike; the
    simulator orders a pair the other way; the guest's ranges overlap."""
    with tempfile.TemporaryDirectory() as g:
        runs, opt = [], []
        guest = {"a": {"nomod": (100, 110), "baseline": (200, 210)},
                 "b": {"nomod": (100, 110), "baseline": (200, 210)},
                 "c": {"nomod": (100, 150), "baseline": (140, 210)}}
        sim = {"a": (1000, 2000), "b": (2000, 1000), "c": (1000, 2000)}
        for cell, pols in guest.items():
            for pol, (lo, hi) in pols.items():
                for rep_, v in ((1, lo), (2, (lo + hi) // 2), (3, hi)):
                    runs.append({"cell": cell, "policy": pol, "rep": rep_, "vm_pswpin": v})
            for rep_ in (1, 2, 3):
                opt.append({"cell": cell, "rep": rep_, "trace": "exact", "opt_swapins": 50,
                            "sim_stock_swapins": sim[cell][0], "sim_baseline_swapins": sim[cell][1],
                            "sim_protect_swapins": 5, "sim_detect_swapins": 5,
                            # the young model orders every pair like the guest
                            "young_stock_swapins": 1000, "young_baseline_swapins": 2000,
                            "young_protect_swapins": 5, "young_detect_swapins": 5})
        pd.DataFrame(runs).to_csv(os.path.join(g, "runs.csv"), index=False)
        pd.DataFrame(opt).to_csv(os.path.join(g, "opt.csv"), index=False)
        assert C.main([g]) == 0
        t = pd.read_csv(os.path.join(g, "calib.csv"))
        verdict = t.groupby("cell").ranking_sim.first().to_dict()
        assert verdict == {"a": "agrees", "b": "disagrees", "c": "agrees"}, verdict
        assert set(t.ranking_young) == {"agrees"}, t.ranking_young
        a = t[(t.cell == "a") & (t.policy == "nomod")].iloc[0]
        assert (a.guest_median, a.sim_median, a.guest_min, a.guest_max) == (105, 1000, 100, 110), a
        text = open(os.path.join(g, "calib.txt")).read()
        assert "b (exact trace)\n  sim   ranking DISAGREES (0 agree, 0 tie, 1 contradict); nomod " \
            "vs baseline\n  young ranking agrees (1 agree" in text and \
            "c (exact trace)\n  sim   ranking agrees (0 agree, 1 tie" in text, text
        # policies the guest did not run (protect, detect) are left out
        assert set(t.policy) == {"nomod", "baseline"}
    return "agree, contradict and tie, each cell's verdict, the medians"


def check_dist(d):
    # three instances, known ratios: hold 0.5x, 2x and 1x upstream; OPT 0
    # on the last (a ratio stays finite); the worst names its instance
    rows = []
    for i, fam, params, counts in ((0, "loop", "size=1.5x loops=3", {"upstream": 99, "hold": 49, "LRU": 99, "OPT": 9,
                                                                     "MGLRU": 99}),
                                   (1, "slide", "window=0.7x", {"upstream": 9, "hold": 19, "LRU": 0, "OPT": 0,
                                                                "MGLRU": 9}),
                                   (2, "zipf", "alpha=0.9", {"upstream": 3, "hold": 3, "LRU": 3, "OPT": 0,
                                                             "MGLRU": 3})):
        for pol, n in counts.items():
            rows.append({"instance": i, "dist_seed": 1, "family": fam, "frames": 1024, "accesses": 10,
                         "distinct_pages": 5, "policy": pol, "swapins": n, "params": params})
    csv = os.path.join(d, "dist.csv")
    pd.DataFrame(rows).to_csv(csv, index=False)
    wide = D.load(csv)
    s = D.summary(wide, "upstream")
    h = s[(s.policy == "hold") & (s.against == "upstream")].iloc[0]
    assert abs(h["median"] - 1.0) < 1e-9 and abs(h["worst"] - 2.0) < 1e-9, h
    assert (h.worst_instance, h.worst_family, h.worst_params) == (1, "slide", "window=0.7x"), h
    o = s[(s.policy == "hold") & (s.against == "OPT")].iloc[0]
    assert abs(o["worst"] - 20.0) < 1e-9, o
    fam = D.per_family(wide, "upstream")["hold"]
    assert abs(fam.loc["loop", "median"] - 0.5) < 1e-9, fam
    out = os.path.join(d, "dist-out")
    with open(os.devnull, "w") as null:
        rc = subprocess.run([sys.executable, D.__file__, csv, "--out", out, "--goals", "hold"],
                            stdout=null).returncode
    assert rc == 0 and os.path.getsize(os.path.join(out, "dist-cdf.png")) > 0
    v = pd.read_csv(os.path.join(out, "dist-goals.csv"))
    assert v.set_index("goal").at["no-harm-max", "verdict"] == "missed", v
    with open(os.devnull, "w") as null:
        rc = subprocess.run([sys.executable, D.__file__, csv, "--out", out, "--peers", "upstream,lirs"],
                            stdout=null, stderr=null).returncode
    assert rc == 1, "a peer missing from the CSV was accepted"
    bad = os.path.join(d, "bad.csv")
    pd.DataFrame([{"instance": 0, "policy": "hold"}]).to_csv(bad, index=False)
    with open(os.devnull, "w") as null:
        rc = subprocess.run([sys.executable, D.__file__, bad], stdout=null, stderr=null).returncode
    assert rc == 1, "a CSV that is not aws-sim's was accepted"
    return "median, worst with its instance, per family, the plot, the goals; a foreign CSV refused"


def goals_table(rows):
    """A goals table from (family, params, {policy: (median, lo, hi)})."""
    t = []
    for fam, params, counts in rows:
        r = {"family": fam, "params": params, "frames": 1024}
        for p, (m, lo, hi) in counts.items():
            r.update({p: m, p + "_lo": lo, p + "_hi": hi})
        t.append(r)
    return pd.DataFrame(t)


def check_compare():
    # a change against the policy as it was, on 40 instances: 0.8x on
    # every one is fewer, its ranges apart; 1.25x more; 1.1x on half and
    # 1/1.1x on the other half not told apart (geometric mean 1)
    def table(f, spread=0):
        return goals_table([("zipf", "alpha=1", {
            "new": (f(i) * 1000 - 1, f(i) * 1000 - 1 - spread, f(i) * 1000 - 1 + spread),
            "old": (999, 999 - spread, 999 + spread), "upstream": (999, 999, 999), "MGLRU": (1099, 1099, 1099)})
            for i in range(40)])
    for f, want, fewer, more in ((lambda i: 0.8, "fewer", 40, 0), (lambda i: 1.25, "more", 0, 40),
                                 (lambda i: 1.1 if i % 2 else 1 / 1.1, "not told apart", 20, 20)):
        lines, row = G.compare(table(f), "new", "old", ["upstream", "MGLRU"])
        r = row.iloc[0]
        assert (r.verdict, r.apart_fewer, r.apart_more) == (want, fewer, more), (want, dict(r))
        assert r.geomean_lo <= r.geomean <= r.geomean_hi and r.instances == 40, dict(r)
        assert lines[0].startswith("new against old on 40 instances"), lines
    assert abs(G.compare(table(lambda i: 0.8), "new", "old", ["upstream"])[1].geomean[0] - 0.8) < 1e-3
    # overlapping runs: none apart, though the medians differ
    r = G.compare(table(lambda i: 0.99, spread=50), "new", "old", ["upstream"])[1].iloc[0]
    assert (r.apart_fewer, r.apart_more) == (0, 0), dict(r)
    # the no-harm counts, each against the better peer: 1.25x is above it
    # everywhere, the policy as it was (even with stock) nowhere
    r = G.compare(table(lambda i: 1.25), "new", "old", ["upstream", "MGLRU"])[1].iloc[0]
    assert (r.above_no_harm, r.above_no_harm_against) == (40, 0), dict(r)
    return "fewer, more and not told apart as built; ranges apart counted each way; the no-harm counts"


def check_goals(d):
    # each goal met, missed and not told apart on a table built for it;
    # 1024 frames: the slide limit is 32 swap-ins
    one = lambda n: (n, n, n)  # noqa: E731
    t = goals_table([
        ("loop", "size=1.5x loops=3", {"hold": one(139), "upstream": one(199), "MGLRU": one(179), "OPT": one(99)}),
        # below 1.05x memory: not a loop-opt instance (60x OPT), but a loop
        ("loop", "size=1.02x loops=3", {"hold": one(599), "upstream": one(999), "MGLRU": one(999), "OPT": one(9)}),
        ("slide", "window=0.7x", {"hold": one(20), "upstream": one(0), "MGLRU": one(5), "OPT": one(0)}),
        ("scanhot", "hot=0.25x scan=1.0x", {"hold": one(300), "upstream": one(900), "MGLRU": one(900),
                                             "OPT": one(0)}),
        ("thrash", "cold=1.5x", {"hold": one(119), "upstream": one(199), "MGLRU": one(199), "OPT": one(99)})])
    v = {g: (verdict, fig) for g, verdict, _, fig, _ in G.check(t, "hold", ["upstream", "MGLRU"])}
    # (five instances, one 21x: the p95 misses at the medians, but a
    # resample without the slide meets: not told apart)
    want = {"no-harm-95": "not told apart", "no-harm-max": "missed", "slide-fits": "met", "loop-opt": "met",
            "thrash-opt": "met", "scanhot-kept": "missed", "family-gain-loop": "met",
            "family-gain-scanhot": "met", "family-gain-thrash": "met"}
    assert {g: x[0] for g, x in v.items()} == want, v
    # the better is per instance: slide's is upstream (0), so hold is 21x there
    assert v["no-harm-max"][1] == "worst 21.000", v
    # the slide family left to the guest: out of the goals against the
    # better (no-harm-max now met: every other instance is below the
    # better), a row saying so, slide-fits (no MGLRU in it) still judged;
    # a family with no instance gets no row
    g = {x[0]: x for x in G.check(t, "hold", ["upstream", "MGLRU"], guest_only=("slide", "randw"))}
    assert g["no-harm-max"][1] == "met" and g["slide-fits"][1] == "met", g
    assert g["family-slide"][1] == "from the guest only" and "family-randw" not in g, g
    # every family left to the guest: the bounds' goals and a row each
    g = [x[0] for x in G.check(t, "hold", ["upstream", "MGLRU"],
                               guest_only=("loop", "slide", "scanhot", "thrash"))]
    assert g == ["slide-fits", "loop-opt", "thrash-opt", "scanhot-kept", "family-loop", "family-scanhot",
                 "family-slide", "family-thrash"], g
    # ranges: the slide window within the limit at one end of the runs only
    t.loc[2, ["hold_lo", "hold_hi"]] = (10, 40)
    t.loc[0, ["hold_lo", "hold_hi"]] = (100, 160)
    # (their medians, 20 and 139, still meet: the verdict says untold, the
    # medians' column met)
    v = {g: (verdict, at) for g, verdict, at, _, _ in G.check(t, "hold", ["upstream", "MGLRU"])}
    assert v["slide-fits"] == v["loop-opt"] == ("not told apart", "met"), v
    assert G.param("hot=0.25x scan=1.0x", "scan") == 1.0 and math.isnan(G.param("a=1", "hot"))
    # no-harm-95 on 100 instances, at the medians: 15 at 1.2x the better is
    # missed, and the bootstrap tells it apart; 4 at 1.2x meets at the
    # medians (p95 1.0), but a resample with 6 or more of them does not:
    # not told apart, never met
    for above, want in ((15, ("missed", "missed")), (4, ("not told apart", "met")), (0, ("met", "met"))):
        t = goals_table([("zipf", "alpha=1", {"hold": one(1199 if i < above else 999), "upstream": one(999),
                                              "MGLRU": one(1999), "OPT": one(99)}) for i in range(100)])
        got = {g: (verdict, at, fig) for g, verdict, at, fig, _ in G.check(t, "hold", ["upstream", "MGLRU"])}
        assert got["no-harm-95"][:2] == want, (above, got["no-harm-95"])
    assert re.match(r"p95 1\.000 \(1\.000-1\.000\)", got["no-harm-95"][2]), got["no-harm-95"]
    return ("each goal met, missed and not told apart as built; the better taken per instance;"
            " a p95 that meets at the medians but not in the bootstrap is untold; a family left"
            " to the guest out of the goals against the better, and said so")


def check_sample(d):
    # a made-up sample run of two instances (rng seed 41 at 16M: a zipf
    # and a loop): the draw comes from this tree's aws-sim, the counts
    # from runs.csv, OPT from opt.csv; a missing run or OPT is refused
    sd = os.path.join(d, "sample")
    os.makedirs(sd)
    cells = [("zipf-0", 0), ("loop-3", 3)]
    with open(os.path.join(sd, "sample.plan"), "w") as f:
        f.write("about a test\nreps 3\ntimeout 60\nswap 1G\nglobal-guest-mem 128M\n")
        for name, i in cells:
            f.write("cell %s\nlimit 16M\npolicies nomod mglru hold\n"
                    "run aws-instance --dist-seed 41 --index %d --memory 16M\nasks what?\n" % (name, i))
    runs, opt = [], []
    for name, _ in cells:
        for rep in (1, 2, 3):
            for pol, n in (("nomod", 1000), ("mglru", 900), ("hold", 500)):
                runs.append({"cell": name, "policy": pol, "rep": rep, "vm_pswpin": n + rep})
            opt.append({"cell": name, "rep": rep, "opt_swapins": 400})
    pd.DataFrame(runs).to_csv(os.path.join(sd, "runs.csv"), index=False)
    pd.DataFrame(opt).to_csv(os.path.join(sd, "opt.csv"), index=False)
    with open(os.devnull, "w") as null:
        rc = subprocess.run([sys.executable, S.__file__, sd, "--judge", "hold"], stdout=null).returncode
    assert rc == 0, "sample.py exit status %d" % rc
    t = pd.read_csv(os.path.join(sd, "sample.csv")).set_index("cell")
    assert (t.at["zipf-0", "family"], t.at["loop-3", "family"]) == ("zipf", "loop"), t
    assert re.match(r"size=[0-9.]+x loops=[0-9]+$", t.at["loop-3", "params"]), t.at["loop-3", "params"]
    assert (t.at["loop-3", "hold"], t.at["loop-3", "hold_lo"], t.at["loop-3", "hold_hi"]) == (502, 501, 503)
    v = pd.read_csv(os.path.join(sd, "sample-goals.csv")).set_index("goal")
    # hold 501-503 against mglru 901-903: 0.555-0.559, a loop gain met
    assert v.at["family-gain-loop", "verdict"] == "met" and v.at["no-harm-max", "verdict"] == "met", v
    # --peers-from: the candidate's runs here, the peers' from a stored
    # run of the same instances (a peer there at 2000 makes hold's 0.25x);
    # a stored run of other instances is refused
    cand = os.path.join(d, "sample-cand")
    os.makedirs(cand)
    shutil.copy(os.path.join(sd, "sample.plan"), cand)
    pd.DataFrame(opt).to_csv(os.path.join(cand, "opt.csv"), index=False)
    pd.DataFrame([r for r in runs if r["policy"] == "hold"]).to_csv(os.path.join(cand, "runs.csv"), index=False)
    stored_runs = os.path.join(d, "sample-stored")
    os.makedirs(stored_runs)
    shutil.copy(os.path.join(sd, "sample.plan"), stored_runs)
    pd.DataFrame([dict(r, vm_pswpin=2000) for r in runs if r["policy"] != "hold"]).to_csv(
        os.path.join(stored_runs, "runs.csv"), index=False)
    with open(os.devnull, "w") as null:
        rc = subprocess.run([sys.executable, S.__file__, cand, "--peers-from", stored_runs], stdout=null).returncode
    c = pd.read_csv(os.path.join(cand, "sample.csv")).set_index("cell")
    assert rc == 0 and (c.at["loop-3", "hold"], c.at["loop-3", "nomod"]) == (502, 2000), (rc, c)
    # --rule: a third folder's runs of one policy under a name of its own;
    # --best: per instance the rule with the fewer swap-ins, its range too
    alt = os.path.join(d, "sample-alt")
    os.makedirs(alt)
    shutil.copy(os.path.join(sd, "sample.plan"), alt)
    pd.DataFrame([{"cell": name, "policy": "x", "rep": rep, "vm_pswpin": n + rep}
                  for name, n in (("zipf-0", 300), ("loop-3", 700)) for rep in (1, 2, 3)]).to_csv(
        os.path.join(alt, "runs.csv"), index=False)
    with open(os.devnull, "w") as null:
        rc = subprocess.run([sys.executable, S.__file__, cand, "--peers-from", stored_runs,
                             "--rule", "alt=%s:x" % alt, "--best", "either=hold+alt"], stdout=null).returncode
    c = pd.read_csv(os.path.join(cand, "sample.csv")).set_index("cell")
    got = [tuple(c.loc[cell, ["alt", "either", "either_lo", "either_of"]]) for cell in ("zipf-0", "loop-3")]
    assert rc == 0 and got == [(302, 302, 301, "alt"), (702, 502, 501, "hold")], (rc, got)
    v = pd.read_csv(os.path.join(cand, "sample-goals.csv"))
    assert set(v.policy) == {"hold", "alt", "either"}, set(v.policy)
    # --against: each judged policy against a rule, instance by instance
    with open(os.devnull, "w") as null:
        rc = subprocess.run([sys.executable, S.__file__, cand, "--peers-from", stored_runs,
                             "--rule", "alt=%s:x" % alt, "--judge", "hold", "--against", "alt"],
                            stdout=null).returncode
    a = pd.read_csv(os.path.join(cand, "sample-against.csv"))
    assert rc == 0 and list(a.policy) == ["hold"] and list(a.against) == ["alt"], (rc, a)
    assert a.instances[0] == 2 and (a.apart_fewer[0], a.apart_more[0]) == (1, 1), a
    for bad in (["--best", "either=hold+y"], ["--best", "either=hold"], ["--rule", "alt=%s" % alt],
                ["--rule", "alt=%s:x" % d], ["--against", "nosuch"]):
        r = subprocess.run([sys.executable, S.__file__, cand, "--peers-from", stored_runs] + bad,
                           capture_output=True, text=True)
        assert r.returncode == 1 and "error: sample.py" in r.stderr, (bad, r.returncode, r.stderr)
    # a stored run of more instances serves a candidate run of some of
    # them; a candidate instance the stored run lacks is refused
    extra = ("cell zipf-8\nlimit 16M\npolicies nomod\nrun aws-instance --dist-seed 41 --index 8"
             " --memory 16M\nasks what?\n")
    with open(os.path.join(stored_runs, "sample.plan"), "a") as f:
        f.write(extra)
    with open(os.devnull, "w") as null:
        rc = subprocess.run([sys.executable, S.__file__, cand, "--peers-from", stored_runs], stdout=null).returncode
    assert rc == 0, "a stored run of more instances was refused"
    with open(os.path.join(cand, "sample.plan"), "a") as f:
        f.write(extra.replace("index 8", "index 16").replace("zipf-8", "zipf-16"))
    r = subprocess.run([sys.executable, S.__file__, cand, "--peers-from", stored_runs], capture_output=True,
                       text=True)
    assert r.returncode == 1 and "did not run every instance" in r.stderr, r.stderr
    pd.DataFrame(opt[:3]).to_csv(os.path.join(sd, "opt.csv"), index=False)
    with open(os.devnull, "w") as null:
        rc = subprocess.run([sys.executable, S.__file__, sd], stdout=null, stderr=null).returncode
    assert rc == 1, "a cell without OPT was judged"
    # --write-plan: 16 instances, two of each family, in the draw's order,
    # each cell's question the draw's parameters; a well-formed plan
    # (sample.plan above is two of its cells, so its draws agree)
    r = subprocess.run([sys.executable, S.__file__, "--write-plan", "16", "--policies", "nomod hold"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    wp = os.path.join(d, "written.plan")
    with open(wp, "w") as f:
        f.write(r.stdout)
    _, wcells = P.check(wp)
    names = [c["name"] for c in wcells]
    assert len(names) == 16 and names[0] == "zipf-0" and names[3] == "loop-3", names
    assert len({n.rsplit("-", 1)[0] for n in names}) == 8, names
    assert all(c["policies"] == "nomod hold" for c in wcells), wcells[0]
    assert ("asks how do the policies do on loop instance 3 (%s)?" % t.at["loop-3", "params"]) in r.stdout
    for bad in (["--write-plan", "0"], ["--write-plan", "4", "--memory", "50%"], ["--write-plan", "4", sd]):
        rc = subprocess.run([sys.executable, S.__file__] + bad, capture_output=True).returncode
        assert rc == 1, "sample.py %s accepted" % bad
    return ("the draw from aws-sim, the runs' ranges, the goals; peers from a stored run, one of"
            " other instances refused; a rule from a third run and the best of two per instance; a cell without OPT refused;"
            " --write-plan's cells and questions from the same draw, bad sizes refused")


def check_meta(d):
    """meta.py on made-up runs of the short plan (a results folder with its
    guests' folders: guest-info, qemu-cmdline, images.txt): the keys of
    every meta.json in results/, in their order, the values from each
    source, sums over the guests of a kind, and a merge's shards compared."""
    top = os.path.dirname(HARNESS)
    cited = {tuple(json.load(open(f))) for f in glob.glob(os.path.join(top, "results", "*", "meta.json"))}
    assert len(cited) == 1, "results/*/meta.json disagree on their keys: %s" % cited
    keys = cited.pop()
    cmdline = "qemu-system-x86_64 -accel tcg,thread=single -cpu max -m %s -smp 2 -kernel x -append a b"
    info = ("plan short\nboot %s\nuname_r 6.1.192\nuname_v #5 SMP PREEMPT_DYNAMIC Sat Dec  5\n"
            "module_sha256 0fbc\nmodule_srcversion \nmodule_vermagic 6.1.192 SMP preempt mod_unload \n"
            "swap_device /dev/vdc 1048572 kB\ntotal_s %s\n")
    sha = hashlib.sha256(b"a kernel").hexdigest()

    def run(name, guests, *extra):
        out = os.path.join(d, "meta-results", name)
        for cell, boot, mem, secs, kernel in guests:
            g = os.path.join(out, "guests", cell)
            os.makedirs(g)
            for f, text in (("qemu-cmdline", cmdline % mem + "\n"), ("guest-info.txt", info % (boot, secs)),
                            ("images.txt", "variant default\nbzimage_sha256 %s\ntools_image_sha256 t1\n"
                             % kernel)):
                with open(os.path.join(g, f), "w") as fh:
                    fh.write(text)
        r = subprocess.run([sys.executable, os.path.join(HARNESS, "experiment", "meta.py"), out,
                            "--plan", "short", "--start", "2026-12-05T04:46:30Z"] + list(extra),
                           stderr=subprocess.PIPE, text=True)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(out, "meta.json")) as f:
            m = json.load(f)
        assert tuple(m) == keys, "keys %s, not results/'s %s" % (list(m), list(keys))
        return m

    # two memcg cells (in plan order, whatever the folders' order) and the
    # global one, three guests at JOBS=2
    m = run("20261205T0all", [("loop", "main", "512M", "18.5", sha), ("protect-global", "global", "128M", "82.5", sha),
                              ("thrash-seed", "main", "512M", "1.25", sha)],
            "--selection", "n=1,only=loop:thrash-seed:protect-global", "--jobs", "2")
    assert (m["command"], m["script"], m["selection"], m["date_utc"], m["results_dir"]) == (
        "make run PLAN=short ONLY=loop:thrash-seed:protect-global REPS=1",
        "python3 harness/experiment/run.py run --plan short --only loop:thrash-seed:protect-global --reps 1",
        "n=1,only=loop:thrash-seed:protect-global",
        "2026-12-05T04:46:30Z", "build/results/20261205T0all"), m
    assert (m["guest_kernel"], m["guest_kernel_build"], m["module_srcversion"], m["module_vermagic"]) == (
        "6.1.192", "#5 SMP PREEMPT_DYNAMIC Sat Dec  5", None, "6.1.192 SMP preempt mod_unload "), m
    assert (m["kernel_variant"], m["bzimage_sha256"], m["tools_image_sha256"], m["accel"], m["guest_cpus"],
            m["swap"]) == ("default", sha, "t1", "tcg,thread=single", 2, "1G"), m
    assert (m["guest_mem"], m["qemu_cmdline"], m["guest_matrix_seconds"]) == ("512M", cmdline % "512M", "19.750"), m
    assert (m["global_guest_mem"], m["qemu_cmdline_global"], m["global_guest_matrix_seconds"]) == (
        "128M", cmdline % "128M", "82.500"), m
    assert (m["jobs"], m["guests"], m["shards"]) == (2, 3, None), m
    assert m["console_logs"] == \
        "build/runs/experiment-{thrash-seed,loop,protect-global}/console.log (not kept in results/)", m
    assert m["patches"] and all(os.path.isfile(os.path.join(top, "patches", "6.1", p)) for p in m["patches"]), m
    assert re.match(r"^[0-9a-f]{40}$", m["git_commit"]) and isinstance(m["git_tracked_files_modified"], int)
    assert m["kernel_package"].startswith("linux-source-6.1 "), m
    # a main-only run says the global guest did not boot
    m = run("20261205T0main", [("loop", "main", "512M", "18.986", sha)], "--selection", "n=1,only=loop",
            "--jobs", "1")
    assert [m[k] for k in ("global_guest_mem", "qemu_cmdline_global", "global_guest_matrix_seconds")] == \
        ["none", "none", ""] and m["guests"] == 1, m
    # a merge of shards built on two machines: its command, and both kernels
    m = run("20261205T0merge", [("loop", "main", "512M", "1", sha), ("randw", "main", "512M", "2", "k2")],
            "--jobs", "", "--shards", "build/results/A build/results/B")
    assert (m["command"], m["jobs"], m["shards"], m["bzimage_sha256"], m["tools_image_sha256"]) == (
        "make merge RESULTS='build/results/A build/results/B'", None, ["build/results/A", "build/results/B"],
        sha + " k2", "t1"), m
    # --same: shards from this tree may be merged; another commit may not
    meta = os.path.join(HARNESS, "experiment", "meta.py")
    a, b = (os.path.join(d, "meta-results", x) for x in ("20261205T0all", "20261205T0main"))
    r = subprocess.run([sys.executable, meta, "--same", a, b], stderr=subprocess.PIPE, text=True)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(b, "meta.json")) as f:
        m = json.load(f)
    m["git_commit"] = "0" * 40
    with open(os.path.join(b, "meta.json"), "w") as f:
        json.dump(m, f)
    r = subprocess.run([sys.executable, meta, "--same", a, b], stderr=subprocess.PIPE, text=True)
    assert r.returncode == 1 and "git_commit " + "0" * 40 in r.stderr, r.stderr
    return "%d keys in results/' order; sums over guests; a merge; --same refuses another commit" % len(m)


def check_merge(d):
    """merge.py: a folder's guests gathered into its files in the plan's
    order (guest-info of the first main and global guest, workloads.log
    capped); shards combined, and the kinds of shard a merge refuses."""
    import merge
    guest = {"loop": ("main", "a"), "protect-global": ("global", "b"), "thrash-seed": ("main", "c"),
             "sqlite+r2-3": ("main", "e"), "sqlite+r1": ("main", "d")}

    def folder(name, cells, selection="n=1", plan="short", failed=""):
        out = os.path.join(d, "merge", name)
        for cell in cells:
            g = os.path.join(out, "guests", cell)
            os.makedirs(g)
            boot, tag = guest[cell]
            for f, text in (("runs.tsv", "cell=%s\trep=1\n" % cell),
                            ("matrix.tsv", "%s\n" % cell.split("+")[0]),
                            ("progress.txt", "# %s\n" % cell), ("workloads.log", tag * 10),
                            ("guest-info.txt", "plan short\nboot %s\ntag %s\n" % (boot, tag))):
                with open(os.path.join(g, f), "w") as fh:
                    fh.write(text)
        with open(os.path.join(out, "run.txt"), "w") as f:
            f.write("plan %s\nselection %s\nstart 2026-12-05T04:46:30Z\njobs 1\n" % (plan, selection))
        if failed:
            with open(os.path.join(out, "failed"), "w") as f:
                f.write(failed)
        return out

    out = folder("all", guest)
    merge.WORKLOADS_LOG_MAX = 25
    assert merge.gather(out, "short")
    read = lambda f: open(os.path.join(out, f)).read()
    # short.plan's order: thrash-seed, loop, sqlite (its parts in the
    # order of their reps, its matrix line once), ..., protect-global
    assert read("runs.tsv") == "".join("cell=%s\trep=1\n" % c for c in (
        "thrash-seed", "loop", "sqlite+r1", "sqlite+r2-3", "protect-global")), read("runs.tsv")
    assert read("matrix.tsv") == "thrash-seed\nloop\nsqlite\nprotect-global\n", read("matrix.tsv")
    assert read("workloads.log") == "c" * 10 + "a" * 10 + "d" * 5, read("workloads.log")
    assert "tag c" in read("guest-info.txt") and "tag b" in read("guest-info-global.txt")
    assert os.path.isfile(os.path.join(out, "short.plan"))
    assert not merge.gather(os.path.join(d, "merge", "none"), "short")
    a, b = folder("A", ["loop"], "n=1,only=loop"), folder("B", ["thrash-seed"], "n=1,only=thrash-*")
    new = os.path.join(d, "merge", "new")
    os.makedirs(new)
    got = merge.combine(new, [a, "B"], os.path.join(d, "merge"))
    assert got[:3] == ("short", "n=1", "2026-12-05T04:46:30Z") and got[4] == [a, b] and \
        sorted(os.listdir(os.path.join(new, "guests"))) == ["loop", "thrash-seed"], got
    for name, shards, why in (("twice", [a, a], "cell loop is in two shards"),
                              ("reps", [a, folder("C", ["protect-global"], "n=2")], "selection 'n=2'"),
                              ("plan", [a, folder("D", ["protect-global"], "n=1", "full")], "ran plan 'full'"),
                              ("lost", [folder("E", ["loop"], failed="sqlite\tdied\n")], "lost cells (sqlite)")):
        new = os.path.join(d, "merge", "new-" + name)
        os.makedirs(new)
        try:
            merge.combine(new, shards, os.path.join(d, "merge"))
            raise AssertionError("a merge of %s passed" % name)
        except merge.MergeError as e:
            assert why in str(e), str(e)
    return "the guests in the plan's order, a split cell's parts in their reps', the log capped;" \
        " two shards; four refusals"


def check_schedule(d):
    """schedule.py: the pool's wall time from the guests' own times, each
    cell (longest first) to the core that frees first."""
    out = os.path.join(d, "sched")
    for cell, secs in (("a", 50), ("b", 40), ("c", 30), ("d", 20), ("e", 10)):
        os.makedirs(os.path.join(out, "guests", cell))
        with open(os.path.join(out, "guests", cell, "verdict.json"), "w") as f:
            json.dump({"seconds": secs}, f)
    r = subprocess.run([sys.executable, os.path.join(HARNESS, "experiment", "schedule.py"), out,
                        "--jobs", "1,2,3,8"], stdout=subprocess.PIPE, text=True)
    got = re.findall(r"JOBS=(\d+) +(\d+) s", r.stdout)
    # 2 cores: a 50 | b 40, then c to b (70), d to a (70), e to either (80);
    # 3 cores: a | b | c, then d to c (50), e to b (50)
    assert r.returncode == 0 and got == [("1", "150"), ("2", "80"), ("3", "50"), ("8", "50")], r.stdout
    r = subprocess.run([sys.executable, os.path.join(HARNESS, "experiment", "schedule.py"), out,
                        "--jobs", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2 and "positive" in r.stderr, r.stderr
    # by rep: a's guest (50 s) ran two reps of 20 s: 10 s of its own, so
    # 30 s a rep; the others one rep each, nothing to split
    for cell, secs in (("a", 50), ("b", 40), ("c", 30), ("d", 20), ("e", 10)):
        with open(os.path.join(out, "guests", cell, "runs.tsv"), "w") as f:
            reps = (1, 2) if cell == "a" else (1,)
            f.write("".join("cell=%s\tpolicy=nomod\trep=%d\twall_s=%s\n"
                            % (cell, rep, 20 if cell == "a" else secs - 5) for rep in reps))
    r = subprocess.run([sys.executable, os.path.join(HARNESS, "experiment", "schedule.py"), out,
                        "--jobs", "1,8", "--by", "rep"], stdout=subprocess.PIPE, text=True)
    got = re.findall(r"JOBS=(\d+) +(\d+) s", r.stdout)
    assert r.returncode == 0 and "6 guests" in r.stdout and got == [("1", "160"), ("8", "40")], r.stdout
    # a folder with runs.csv only (results/): each guest its runs plus --boot
    old = os.path.join(d, "sched-csv")
    os.makedirs(old)
    pd.DataFrame([{"cell": c, "rep": rep, "wall_s": 10} for c, reps in (("a", 3), ("b", 1))
                  for rep in range(1, reps + 1)]).to_csv(os.path.join(old, "runs.csv"), index=False)
    r = subprocess.run([sys.executable, os.path.join(HARNESS, "experiment", "schedule.py"), old,
                        "--jobs", "2", "--by", "rep", "--boot", "5"], stdout=subprocess.PIPE, text=True)
    got = re.findall(r"JOBS=(\d+) +(\d+) s", r.stdout)
    assert r.returncode == 0 and "4 guests" in r.stdout and got == [("2", "30")], r.stdout
    r = subprocess.run([sys.executable, os.path.join(HARNESS, "experiment", "schedule.py"), old],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert r.returncode != 0 and "--boot" in r.stderr, r.stderr
    return ("150 s of guests: 80 s on 2 cores, 50 s (the longest) on 3 and 8; by rep, 40 s on 8;"
            " from runs.csv and --boot, 30 s on 2")


def check_retired_settings():
    """run.py refuses make run's settings of an older form (AWS_RUN_ARGS
    and the like) with the make variable that replaced them, before it
    builds or boots anything: a command copied from an older record must
    not run the whole plan instead."""
    run = os.path.join(HARNESS, "experiment", "run.py")
    for var, new in (("AWS_RUN_ARGS", "ONLY="), ("AWS_RUN_NAME", "NAME="), ("AWS_JOBS", "JOBS=")):
        env = dict(os.environ, **{var: "n=1"})
        r = subprocess.run([sys.executable, run, "run", "--plan", "short"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        assert r.returncode == 1 and var in r.stderr and new in r.stderr, (var, r.stderr[-200:])
    return "AWS_RUN_ARGS, AWS_RUN_NAME, AWS_JOBS refused, each naming its make variable"


def check_model_families():
    # simguest.families() on made-up cells: a loop family whose model ratio
    # follows the guest's exactly (model), a slide family where the model
    # halves it (a constant ratio of ratios 0.5: guest only), a zipf family
    # of 5 instances (too few), and a cell not named FAMILY-INDEX (left out)
    rows = []
    for i in range(12):
        g = 1000 + 100 * i
        rows.append(dict(cell="loop-%d" % i, guest_nomod=999, guest_mglru=g - 1, sim_stock=1999,
                         sim_mglru=2 * g - 1, sim_mglru_batch=2 * g - 1))
        rows.append(dict(cell="slide-%d" % (100 + i), guest_nomod=999, guest_mglru=g - 1, sim_stock=999,
                         sim_mglru=g // 2 - 1, sim_mglru_batch=g - 1))
    for i in range(5):
        rows.append(dict(cell="zipf-%d" % (200 + i), guest_nomod=9, guest_mglru=9, sim_stock=9,
                         sim_mglru=9, sim_mglru_batch=9))
    rows.append(dict(cell="thrash-seed", guest_nomod=9, guest_mglru=9, sim_stock=9, sim_mglru=99,
                     sim_mglru_batch=99))
    f = SG.families(pd.DataFrame(rows).assign(variant="v")).set_index(["model", "family"])
    got = {k: (r.n, r.source) for k, r in f.iterrows()}
    assert got[("mglru", "loop")] == (12, "model"), got
    assert got[("mglru", "slide")] == (12, "guest only") and abs(f.at[("mglru", "slide"), "median"] - 0.5) < 0.01
    assert got[("mglru-batch", "slide")] == (12, "model"), got
    assert got[("mglru", "zipf")] == (5, "too few") and got[("mglru", "all")][0] == 29, got
    return "a model that follows the guest, one that halves it, a family too small, a cell of no family"


def main():
    tests = [("parse_runs_tsv", check_parse), ("runs_csv_round_trip", check_roundtrip),
             ("medians_and_change", check_medians), ("against_the_better_peer", check_against_best),
             ("ci_known_values", check_ci_known),
             ("ci_coverage", check_ci_coverage), ("failed_and_missing_runs", check_problems),
             ("x_opt_summary", check_opt_summary), ("table_and_plots_from_data", check_outputs),
             ("opt_trace_recipe", check_opt_recipe), ("opt_on_real_traces", check_opt_real),
             ("calibrate_rankings", check_calibrate), ("distribution_summary", check_dist),
             ("distribution_goals", check_goals), ("compare_a_change", check_compare),
             ("sample_goals", check_sample),
             ("meta_json_from_its_sources", check_meta), ("merge_gather_and_combine", check_merge),
             ("pool_schedule", check_schedule), ("retired_settings_refused", check_retired_settings),
             ("mglru_model_per_family", check_model_families)]
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
