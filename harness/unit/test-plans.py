#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side unit test of the experiment's plans (harness/experiment/plan.py
and the plan reader of harness/guest/jobs/experiment.sh), as KTAP on stdout.

Every plan in harness/experiment/plans/ is well formed; `select` gives each
guest its own cells, applies only= and n=, passes policies= on, and says
when a guest has no cell; each kind of mistake in a plan or in AWS_RUN_ARGS
is refused with a message that names it (a tab in a value too: the table
`select` writes for the guest is tab-separated); and the guest's reader of
that table, run here in bash on it, comes out with the plan's cells,
limits, policies and commands.  make test runs it with the unit tests.
"""
import os
import re
import subprocess
import sys
import tempfile

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HARNESS, "experiment"))
import plan  # noqa: E402

TMP = tempfile.mkdtemp(prefix="aws-test-plans.")
results = []


def case(name, ok, why=""):
    results.append("%s %d %s%s" % ("ok" if ok else "not ok", len(results) + 1, name,
                                   " # " + why if why else ""))


def rows_of(text):
    """select's table: its lines, split at the tabs (comments left out)."""
    return [ln.split("\t") for ln in text.splitlines() if not ln.startswith("#")]


def cells_of(text):
    return [r[1] for r in rows_of(text) if r[0] == "cell"]


for name in plan.names():
    try:
        header, cells = plan.check(name)
        case("plan_%s_is_well_formed" % name, True, "%d cells, %s reps" % (len(cells), header["reps"]))
    except plan.PlanError as e:
        case("plan_%s_is_well_formed" % name, False, str(e))

main = plan.select("short", "main", "n=1,only=thrash-*:loop,policies=protect:detect")
want = ["thrash-seed", "thrash-detect", "loop"]
case("select_applies_only_n_and_policies",
     main is not None and cells_of(main) == want and ["reps", "1"] in rows_of(main) and
     ["policy-filter", "protect:detect"] in rows_of(main) and ["boot", "main"] in rows_of(main) and
     all(len(r) == (5 if r[0] == "cell" else 2) for r in rows_of(main)),
     "cells %s" % (cells_of(main) if main else None))
glob = plan.select("short", "global")
case("global_cells_go_to_the_global_guest_only",
     glob is not None and cells_of(glob) == ["protect-global"] and
     "protect-global" not in cells_of(plan.select("short", "main")),
     "global guest: %s" % (cells_of(glob) if glob else None))
case("a_guest_without_cells_is_not_booted", plan.select("short", "global", "only=loop") is None and
     plan.main(["select", "short", "--boot", "global", "--args", "only=loop"]) == 3)

# units: one guest per selected cell, the costliest first; priced by an
# earlier run's wall_s where it has the cell, by the memory limit scaled
# by that run's seconds per MB where it does not
u = plan.units("short", "n=1,only=zipf-t1-*:protect*:loop,policies=nomod:hold")
case("units_select_the_cells_largest_limit_first",
     [x[:2] for x in u] == [("main", "loop"), ("global", "protect-global"), ("main", "protect"),
                            ("main", "zipf-t1-a0.5"), ("main", "zipf-t1-a0.9"), ("main", "zipf-t1-a1.3")] and
     all(x[2] == "1G" for x in u), "units %s" % u)
times = os.path.join(TMP, "runs.csv")
with open(times, "w") as f:
    # zipf-t1-a0.9 20 s a run, loop 1 s: 21 zipf runs before 30 loop runs,
    # and zipf-t1-a1.3 (not in it) priced at the median 20/16 s per MB
    f.write("cell,policy,wall_s\nzipf-t1-a0.9,nomod,20\nzipf-t1-a0.9,hold,20\nloop,nomod,1\nloop,hold,n/a\n")
u = plan.units("short", "only=zipf-t1-a0.9:zipf-t1-a1.3:loop", times)
case("units_priced_by_an_earlier_run",
     [x[1] for x in u] == ["zipf-t1-a0.9", "zipf-t1-a1.3", "loop"], "units %s" % u)
try:
    plan.units("short", "", os.path.join(TMP, "none.csv"))
    case("units_refuse_a_missing_times_file", False, "no error")
except plan.PlanError as e:
    case("units_refuse_a_missing_times_file", "none.csv" in str(e), str(e))

usage = subprocess.run([sys.executable, plan.__file__, "select", "short", "main"],
                       capture_output=True, text=True)
case("bad_command_line_prints_the_usage", usage.returncode == 2 and
     usage.stderr.startswith("usage: plan.py list") and "--boot" in usage.stderr,
     "exit %d, stderr %r" % (usage.returncode, usage.stderr[:80]))

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
    u = plan.units(path)
    case("a_cell_swap_goes_to_its_guest", u == [("main", "one", "48M")], "units %s" % u)
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
for name, args, msg in (("n_0", "n=0", "positive integer"), ("unknown", "x=1", "'x=1' is not"),
                        ("twice", "n=1,n=2", "given twice"), ("empty", "only=", "'only=' is not"),
                        ("a_tab", "policies=nomod\tdetect", "a tab")):
    try:
        plan.parse_args(args)
        case("run_args_refuse_%s" % name, False, "accepted %s" % args)
    except plan.PlanError as e:
        case("run_args_refuse_%s" % name, msg in str(e), str(e))

# The guest's reader (the block of experiment.sh from PLANFILE= to the
# helpers), in bash here on the table select writes, must come out with
# the plan's cells ("all" expanded), the selection's reps and filter.
guest = os.path.join(HARNESS, "guest", "jobs", "experiment.sh")
with open(guest) as f:
    src = f.read()
start, end = src.index("\nPLANFILE="), src.index("\n# ---- helpers")
reader = src[start:end].replace("PLANFILE=/tmp/input/plan.tsv", "PLANFILE=$1")
POLICIES = "nomod mglru damon damonfast " + " ".join(plan.module_policies())
dump = """
for c in "${CELLS[@]}"; do printf '%s\\t%s\\t%s\\t%s\\n' "$c" "${C_LIMIT[$c]}" "${C_POLS[$c]% }" "${C_CMD[$c]}"; done
echo "reps=$REPS boot=$BOOT plan=$PLAN filter=$POLS"
"""
for name in plan.names():
    header, cells = plan.check(name)
    for boot, args, reps, pols in (("main", "policies=d*:*-r3", header["reps"], "d*:*-r3"),
                                   ("global", "n=2", "2", "")):
        text = plan.select(name, boot, args)
        if text is None:
            continue
        sel = os.path.join(TMP, "sel")
        with open(sel, "w") as f:
            f.write(text)
        r = subprocess.run(["bash", "-c", "POLICIES='%s'\n%s\n%s" % (POLICIES, reader, dump),
                            "reader", sel], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        mine = [c for c in cells if (c["limit"] == "global") == (boot == "global")]
        want = ["%s\t%s\t%s\t%s" % (c["name"], c["limit"], " ".join(
            POLICIES if p == "all" else p for p in c["policies"].split()), c["run"]) for c in mine]
        want.append("reps=%s boot=%s plan=%s filter=%s" % (reps, boot, name, pols))
        got = r.stdout.splitlines()
        diff = [g for g, w in zip(got, want) if g != w][:1]
        case("guest_reads_the_%s_cells_of_plan_%s" % (boot, name),
             r.returncode == 0 and got == want,
             "%d cells%s" % (len(mine), "; first difference: %s" % diff if diff else
                             "" if got == want else "; output: %s" % r.stdout[-120:]))

print("KTAP version 1")
print("1..%d" % len(results))
print("\n".join(results))
subprocess.run(["rm", "-rf", TMP])
sys.exit(0 if all(r.startswith("ok") for r in results) else 1)
