#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side unit test of the experiment's plans and policies
(harness/experiment/plan.py) and of the order make run boots its guests in
(harness/experiment/schedule.py), as KTAP on stdout.

Every plan in harness/experiment/plans/ is well formed; the selection
(ONLY=, POLICIES=, REPS=) keeps the cells and policies it names, "all" is
every policy of the kernel (DAMON's only where it has it) in the module's
order, and a cell with no policy left is not booted; each guest's rows
are ready to run (its policy's settings, the command with --seed, rep 1
of every policy first); the costliest cells boot first, a cell that
would outlast the others split by its reps; each kind of
mistake in a plan or a selection is refused with a message that names it
(a tab in a value too: the guest's rows are tab-separated).  make test
runs it with the unit tests.
"""
import gzip
import os
import re
import subprocess
import sys
import tempfile

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HARNESS, "experiment"))
import plan  # noqa: E402
import schedule  # noqa: E402

TMP = tempfile.mkdtemp(prefix="aws-test-plans.")
results = []


def case(name, ok, why=""):
    results.append("%s %d %s%s" % ("ok" if ok else "not ok", len(results) + 1, name,
                                   " # " + why if why else ""))


for name in plan.names():
    try:
        header, cells = plan.check(name)
        case("plan_%s_is_well_formed" % name, True, "%d cells, %s reps" % (len(cells), header["reps"]))
    except plan.PlanError as e:
        case("plan_%s_is_well_formed" % name, False, str(e))

# the selection: only=, n= and policies=, on both guests
sel = plan.selection(only="thrash-*:loop:protect-global", policies="protect:detect*", reps="1")
cs = plan.cells("short", sel)
case("selection_keeps_the_cells_policies_and_reps",
     sel == "n=1,only=thrash-*:loop:protect-global,policies=protect:detect*" and
     [(c["name"], c["boot"], c["reps"], c["policies"]) for c in cs] ==
     [("thrash-seed", "main", 1, ["protect", "detect"]), ("thrash-detect", "main", 1, ["protect", "detect"]),
      ("loop", "main", 1, ["protect", "detect"]), ("protect-global", "global", 1, ["protect", "detect"])],
     "cells %s" % [(c["name"], c["policies"]) for c in cs])
case("a_cell_without_policies_is_not_booted",
     [c["name"] for c in plan.cells("short", "only=thrash-seed:randw,policies=baseline-r3")] == ["randw"])
mods = plan.module_policies()
full = plan.cells("full", "only=" + plan.parse("full")[1][0]["name"])[0]["policies"]
nodamon = plan.cells("full", "only=" + plan.parse("full")[1][0]["name"], damon=False)[0]["policies"]
case("all_is_every_policy_of_the_kernel",
     full == ["nomod", "mglru", "damon", "damonfast"] + mods and nodamon == ["nomod", "mglru"] + mods and
     mods[:2] == ["stock", "baseline"], "all: %s" % full)
try:
    plan.cells("short", "only=protect", damon=False)
    case("damon_refused_on_a_kernel_without_it", False, "accepted")
except plan.PlanError as e:
    case("damon_refused_on_a_kernel_without_it", "no DAMON" in str(e), str(e))

# the guest's rows: every policy's settings, the command with its seed,
# rep 1 of every policy before rep 2
cell = plan.cells("short", "n=2,only=randw,policies=mglru:baseline*:nomod")[0]
rows = [r.split("\t") for r in plan.rows(cell).splitlines()]
cmd = "aws-randw --size 32M --threads 2 --writes 14000"
case("rows_are_ready_to_run",
     rows == [["randw", "nomod", "1", "16M", "n", "off", "-", "auto", cmd + " --seed 1"],
              ["randw", "mglru", "1", "16M", "y", "off", "-", "auto", cmd + " --seed 1"],
              ["randw", "baseline", "1", "16M", "n", "off", "baseline", "auto", cmd + " --seed 1"],
              ["randw", "baseline-r3", "1", "16M", "n", "off", "baseline", "3", cmd + " --seed 1"],
              ["randw", "nomod", "2", "16M", "n", "off", "-", "auto", cmd + " --seed 2"],
              ["randw", "mglru", "2", "16M", "y", "off", "-", "auto", cmd + " --seed 2"],
              ["randw", "baseline", "2", "16M", "n", "off", "baseline", "auto", cmd + " --seed 2"],
              ["randw", "baseline-r3", "2", "16M", "n", "off", "baseline", "3", cmd + " --seed 2"]] and
     plan.matrix_line(cell) == "randw\t16M\tnomod mglru baseline baseline-r3\t%s\n" % cmd,
     "rows %s" % rows[:2])
case("damon_rows_carry_their_thresholds",
     [plan.setup(p)[1] for p in ("damon", "damonfast", "hold")] == ["500:120000000:10", "50:1000000:100", "off"])

# the order: one guest per selected cell, the costliest first; priced by
# an earlier run's wall_s where it has the cell, by the memory limit
# scaled by that run's seconds per MB where it does not
header = plan.check("short")[0]
u = schedule.order(plan.cells("short", "n=1,only=zipf-t1-*:protect*:loop,policies=nomod:hold"),
                   header["global-guest-mem"])
case("the_largest_limit_boots_first",
     [(c["boot"], c["name"]) for c in u] == [("main", "loop"), ("global", "protect-global"), ("main", "protect"),
                                            ("main", "zipf-t1-a0.5"), ("main", "zipf-t1-a0.9"),
                                            ("main", "zipf-t1-a1.3")] and
     all(c["swap"] == "1G" for c in u), "order %s" % [c["name"] for c in u])
times = os.path.join(TMP, "runs.csv")
with open(times, "w") as f:
    # zipf-t1-a0.9 20 s a run, loop 1 s: 21 zipf runs before 30 loop runs,
    # and zipf-t1-a1.3 (not in it) priced at the median 20/16 s per MB
    f.write("cell,policy,wall_s\nzipf-t1-a0.9,nomod,20\nzipf-t1-a0.9,hold,20\nloop,nomod,1\nloop,hold,n/a\n")
u = schedule.order(plan.cells("short", "only=zipf-t1-a0.9:zipf-t1-a1.3:loop"), header["global-guest-mem"], times)
case("the_order_priced_by_an_earlier_run",
     [c["name"] for c in u] == ["zipf-t1-a0.9", "zipf-t1-a1.3", "loop"], "order %s" % [c["name"] for c in u])
try:
    schedule.order(plan.cells("short"), "128M", os.path.join(TMP, "none.csv"))
    case("the_order_refuses_a_missing_times_file", False, "no error")
except plan.PlanError as e:
    case("the_order_refuses_a_missing_times_file", "none.csv" in str(e), str(e))
# the split: a cell that alone would outlast the pool's fair share runs
# in parts, by its reps, each within the share; named CELL+rA-B, names
# read back; a cell within the share, or a split that the boots would
# not shorten, stays one guest; a resumed cell's missing reps only
c3 = {c["name"]: c for c in plan.cells("short", "only=sqlite:loop:randw")}
cost = {"sqlite": 1200.0, "loop": 300.0, "randw": 240.0}
got = [(g[2], g[1]) for g in schedule.parts([(c3[n], [1, 2, 3]) for n in ("loop", "sqlite", "randw")],
                                            3, cost, boot=30)]
case("a_cell_that_bounds_the_run_is_split_by_reps",
     got == [("sqlite+r1", [1]), ("sqlite+r2", [2]), ("sqlite+r3", [3]), ("loop", [1, 2, 3]),
             ("randw", [1, 2, 3])] and
     plan.rows(c3["sqlite"], [2]) == "".join(r + "\n" for r in plan.rows(c3["sqlite"]).splitlines()
                                             if r.split("\t")[2] == "2"), "guests %s" % got)
got2 = [(g[2], g[1]) for g in schedule.parts([(c3["sqlite"], [1, 2, 3]), (c3["loop"], [1, 2, 3])],
                                             2, {"sqlite": 1200.0, "loop": 1200.0}, boot=30)]
got3 = [(g[2], g[1]) for g in schedule.parts([(c3["sqlite"], [1, 2, 3])], 4, {"sqlite": 45.0}, boot=30)]
got4 = [(g[2], g[1]) for g in schedule.parts([(c3["sqlite"], [1, 3])], 1, cost, boot=30)]
case("a_cell_within_its_share_or_too_short_to_split_is_one_guest",
     got2 == [("sqlite", [1, 2, 3]), ("loop", [1, 2, 3])] and got3 == [("sqlite", [1, 2, 3])] and
     got4 == [("sqlite+r1", [1]), ("sqlite+r3", [3])], "guests %s, %s, %s" % (got2, got3, got4))
case("part_names_read_back",
     [plan.part_reps(c3["sqlite"], n) for n in ("sqlite", "sqlite+r2", "sqlite+r1-2", "sqlite+r3-1",
                                                "sqlite2+r1", "loop")] ==
     [[1, 2, 3], [2], [1, 2], None, None, None] and
     plan.part_name(c3["sqlite"], [1, 2]) == "sqlite+r1-2")
# the earlier runs of the plan, newest first, from build/results/ and the
# tree's results/ (gzipped there): each cell priced by the newest that
# has it (b has loop at 2 s a run, a older loop and sqlite, e in the
# second folder sqlite at 9 s); an empty runs.csv, another plan's and
# another kernel's are no price
res, res2 = os.path.join(TMP, "results"), os.path.join(TMP, "results2")
for top, name, p, date, text in (
        (res, "a", "short", "2026-12-05T01:00:00Z", "cell,wall_s\nloop,1\nsqlite,1\n"),
        (res, "b", "short", "2026-12-06T01:00:00Z", "cell,wall_s\nloop,2\n"),
        (res, "c", "full", "2026-12-09T01:00:00Z", "cell,wall_s\nloop,5\n"),
        (res, "d", "short", "2026-12-08T01:00:00Z", ""),
        (res2, "e", "short", "2026-12-05T12:00:00Z", "cell,wall_s\nsqlite,9\n")):
    os.makedirs(os.path.join(top, name))
    with open(os.path.join(top, name, "meta.json"), "w") as f:
        f.write('{"plan": "%s", "date_utc": "%s"}' % (p, date))
    if top == res2:
        with gzip.open(os.path.join(top, name, "runs.csv.gz"), "wt") as f:
            f.write(text)
    else:
        with open(os.path.join(top, name, "runs.csv"), "w") as f:
            f.write(text)
found = schedule.earlier_runs([res, res2], "short")
case("earlier_runs_of_the_plan_price_each_cell_by_the_newest",
     found == [os.path.join(res, "b", "runs.csv"), os.path.join(res2, "e", "runs.csv.gz"),
               os.path.join(res, "a", "runs.csv")] and
     schedule.mean_seconds(found) == {"loop": 2.0, "sqlite": 9.0} and
     schedule.earlier_runs([res, res2], "short", "6.12") == [],
     "%s %s" % (found, schedule.mean_seconds(found)))

usage = subprocess.run([sys.executable, plan.__file__, "select", "short", "main"],
                       capture_output=True, text=True)
cells = subprocess.run([sys.executable, plan.__file__, "cells", "short", "--only", "zipf-t1-*"],
                       capture_output=True, text=True)
case("the_command_line_lists_cells_and_prints_the_usage", usage.returncode == 2 and
     usage.stderr.startswith("usage: plan.py list") and
     cells.stdout.split() == ["zipf-t1-a0.5", "zipf-t1-a0.9", "zipf-t1-a1.3"],
     "exit %d, stderr %r, cells %r" % (usage.returncode, usage.stderr[:80], cells.stdout))

# each mistake refused, with a message naming it
GOOD = """about a test plan
reps 2
timeout 60
swap 1G
global-guest-mem 128M
cell one
limit 64M
policies nomod detect-r3
run aws-loop --size 96M --loops 2
asks is this a plan?
"""
bad = [
    ("unknown_key", GOOD.replace("asks is", "ask is"), r":10: unknown key 'ask'"),
    ("missing_limit", GOOD.replace("limit 64M\n", ""), r"cell one has no 'limit'"),
    ("bad_limit", GOOD.replace("limit 64M", "limit 64"), r"limit must look like"),
    ("unknown_policy", GOOD.replace("nomod detect-r3", "nomod lirs"), r"unknown policy 'lirs'"),
    ("ratio_on_a_kernel_policy", GOOD.replace("nomod detect-r3", "mglru-r3"),
     r"unknown policy 'mglru-r3'"),
    ("unknown_workload", GOOD.replace("aws-loop", "aws-memcached"), r"'aws-memcached', not a workload"),
    ("duplicate_cell", GOOD + GOOD[GOOD.index("cell one"):], r"a second cell named one"),
    ("missing_reps", GOOD.replace("reps 2\n", ""), r"the header has no 'reps'"),
    ("zero_reps", GOOD.replace("reps 2", "reps 0"), r"reps must be a positive integer"),
    ("second_value", GOOD.replace("asks is", "limit 32M\nasks is"), r"a second 'limit'"),
    ("bad_guest_mem", GOOD.replace("swap 1G", "swap 1G\nguest-mem 256"),
     r"guest-mem must look like"),
    ("a_tab_in_a_value", GOOD.replace("--size 96M", "--size\t96M"), r":9: a tab in 'run'"),
    ("bad_cell_swap", GOOD.replace("limit 64M", "limit 64M\nswap half"), r"cell one: swap must look like"),
]
path = os.path.join(TMP, "t.plan")
with open(path, "w") as f:
    f.write(GOOD)
try:
    header, _ = plan.check(path)
    case("a_good_test_plan_passes", True)
    case("guest_mem_defaults_to_512M", header["guest-mem"] == "512M", header["guest-mem"])
    with open(path, "w") as f:
        f.write(GOOD.replace("limit 64M", "limit 64M\nswap 48M"))
    u = [(c["boot"], c["name"], c["swap"]) for c in plan.cells(path)]
    case("a_cell_swap_goes_to_its_guest", u == [("main", "one", "48M")], "cells %s" % u)
    # a BPF policy of userspace/bpf/ named like the module's: its row asks
    # the guest for it (its loader attaches it), on 6.12 only
    with open(path, "w") as f:
        f.write(GOOD.replace("nomod detect-r3", "detect bdetect"))
    bpf_rows = [r.split("\t")[1:8] for r in plan.rows(plan.cells(path, "n=1")[0]).splitlines()]
    try:
        plan.cells(path, "policies=detect:bdetect", bpf=False)
        refused = "accepted"
    except plan.PlanError as e:
        refused = str(e)
    # on 6.1, a BPF policy that only a glob selected is left out, and said
    kept = [(c["policies"], c["left_out"]) for c in plan.cells(path, bpf=False)]
    case("a_bpf_policy_is_named_like_a_module_policy_on_6_12",
         "bdetect" in plan.bpf_policies() and
         bpf_rows == [["detect", "1", "64M", "n", "off", "detect", "auto"],
                      ["bdetect", "1", "64M", "n", "off", "bdetect", "auto"]] and
         "bdetect: a BPF policy, on 6.12 only" in refused and
         kept == [(["detect"], ["bdetect"])], "rows %s; %s; on 6.1 %s" % (bpf_rows, refused, kept))
except plan.PlanError as e:
    case("a_good_test_plan_passes", False, str(e))
for name, text, msg in bad:
    with open(path, "w") as f:
        f.write(text)
    try:
        plan.check(path)
        case("plan_refuses_%s" % name, False, "accepted")
    except plan.PlanError as e:
        case("plan_refuses_%s" % name, re.search(msg, str(e)) is not None, str(e)[-90:])
for name, args, msg in (("n_0", {"reps": "0"}, "REPS must be a positive integer"),
                        ("commas", {"only": "a,b"}, "colon-separated"),
                        ("a_tab", {"policies": "nomod\tdetect"}, "a tab")):
    try:
        plan.selection(**args)
        case("selection_refuses_%s" % name, False, "accepted %s" % args)
    except plan.PlanError as e:
        case("selection_refuses_%s" % name, msg in str(e), str(e))
for name, args, msg in (("unknown", "x=1", "'x=1' is not"), ("twice", "n=1,n=2", "given twice"),
                        ("empty", "only=", "'only=' is not")):
    try:
        plan.parse_args(args)
        case("stored_selection_refuses_%s" % name, False, "accepted %s" % args)
    except plan.PlanError as e:
        case("stored_selection_refuses_%s" % name, msg in str(e), str(e))

print("KTAP version 1")
print("1..%d" % len(results))
print("\n".join(results))
subprocess.run(["rm", "-rf", TMP])
sys.exit(0 if all(r.startswith("ok") for r in results) else 1)
