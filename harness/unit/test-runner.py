#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side unit test of harness/boot/runner.py's judging, as KTAP on stdout.

On canned run folders (console.log, ktap.log) the verdict must be the one
the runner's documentation gives, with its exit status: a kernel problem
wins over everything, then a timeout, a dead QEMU, a guest that never
finished, a failed job script, failed or missing cases; only the rest is
ok.  Also: the debug kernel's time is scaled once, and the guest is told
the factor; a debug guest gets that kernel's reserve on top of the
memory it asks for; a QEMU that outlives its limit is killed, and quickly; `total`
sums verdicts and counts a run without one as failed.  No guest boots:
QEMU is replaced by a shell.  make test runs it with the unit tests.
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import time

TMP = tempfile.mkdtemp(prefix="aws-test-runner.")
os.environ["AWS_BUILD"] = TMP  # the runner reads it at import
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "boot"))
import runner  # noqa: E402

PATTERNS = runner.console_patterns()
MANIFEST = os.path.join(TMP, "manifest")
with open(MANIFEST, "w") as f:
    f.write("r a 3\nr b 2\n")
CLEAN = "[    0.000000] Linux version 6.1.0\n[    2.000000] anon_workingset: policy detect\n"
results = []


def case(name, ok, why=""):
    results.append("%s %d %s%s" % ("ok" if ok else "not ok", len(results) + 1, name,
                                   " # " + why if why else ""))


def suite(idx, name, res):
    """A suite's block as the guest's run-suites.sh writes it."""
    out = ["    KTAP version 1", "    # Subtest: " + name, "    1..%d" % len(res)]
    for i, r in enumerate(res, 1):
        out.append("    %s %d case_%d" % ("ok" if r else "not ok", i, i))
    out.append("%s %d %s" % ("ok" if all(res) else "not ok", idx, name))
    return out


def ktap(suites=(), status=0, done=True):
    out = ["KTAP version 1", "1..%d" % len(suites)]
    for i, (name, res) in enumerate(suites, 1):
        out += suite(i, name, res)
    if status is not None:
        out.append("# aws-guest: job exit status %d" % status)
    if done:
        out.append("# aws-guest: done")
    return "\n".join(out) + "\n"


def judged(console=CLEAN, log=None, qemu_status=0, suites=""):
    run = tempfile.mkdtemp(dir=TMP)
    with open(os.path.join(run, "console.log"), "w") as f:
        f.write(console)
    with open(os.path.join(run, "ktap.log"), "w") as f:
        f.write(ktap() if log is None else log)
    v = runner.Verdict(name="r", job="suites", variant="default", timeout=60,
                       suites=suites.split())
    return runner.judge(v, run, qemu_status, PATTERNS, MANIFEST)


def expect(name, v, status, exit_code, **fields):
    bad = [] if (v.status, v.exit_code) == (status, exit_code) else \
        ["status %s exit %d, expected %s exit %d" % (v.status, v.exit_code, status, exit_code)]
    bad += ["%s=%r, expected %r" % (k, getattr(v, k), want) for k, want in fields.items()
            if getattr(v, k) != want]
    case(name, not bad, "; ".join(bad) or "%s, exit %d" % (v.status, v.exit_code))


GOOD = [("a", [1, 1, 1]), ("b", [1, 1])]
expect("clean_finished_guest_is_ok", judged(), "ok", 0)
expect("suites_all_passing_are_ok", judged(log=ktap(GOOD), suites="a b"), "ok", 0,
       passed=5, failed=0, skipped=0, count_problems=[])
panic = CLEAN + "[   21.2] Kernel panic - not syncing: sysrq triggered crash\n"
v = judged(console=panic)
expect("kernel_panic_is_a_kernel_problem", v, "kernel-problem", 2,
       problems=["3:[   21.2] Kernel panic - not syncing: sysrq triggered crash"])
expect("kernel_problem_wins_over_timeout", judged(console=panic, qemu_status=None),
       "kernel-problem", 2)
script = CLEAN + "/mnt/tools/guest/jobs/experiment.sh: line 9: 2 * : syntax error: operand expected\n"
expect("guest_script_error_fails_the_run", judged(console=script), "kernel-problem", 2)
expect("timeout_is_a_timeout", judged(qemu_status=None, log=ktap(done=False)), "timeout", 3)
expect("qemu_failure_is_died", judged(qemu_status=1), "died", 3)
expect("unfinished_guest_is_died", judged(log=ktap(GOOD, done=False), suites="a b"), "died", 3)
expect("failed_job_script_is_job_failed", judged(log=ktap(status=1)), "job-failed", 4,
       job_status=1)
expect("silent_job_script_is_job_failed", judged(log=ktap(status=None)), "job-failed", 4,
       job_status=None)
bad_case = [("a", [1, 0, 1]), ("b", [1, 1])]
expect("failed_case_is_tests_failed", judged(log=ktap(bad_case), suites="a b"),
       "tests-failed", 4, passed=4, failed=1)
v = judged(log=ktap([("a", [1, 1, 1])]), suites="a b")
case("missing_suite_is_tests_failed",
     v.status == "tests-failed" and v.failed >= 1 and v.count_problems != [],
     "%s, %d failed, problems: %s" % (v.status, v.failed, "; ".join(v.count_problems)[:80]))
v = judged(log=ktap([("a", [1, 1]), ("b", [1, 1])]), suites="a b")
case("short_suite_is_tests_failed", v.status == "tests-failed" and v.failed >= 1,
     "%s, %d passed, %d failed" % (v.status, v.passed, v.failed))

# time: scaled once, and the guest is told the factor
case("debug_kernel_gets_its_factor_once",
     runner.limit(100, "debug") == 100 * runner.SLOW["debug"] > 100 and
     runner.limit(100, "default") == 100,
     "default 100 s -> debug %d s" % runner.limit(100, "debug"))
os.makedirs(os.path.join(TMP, "kernel-debug/arch/x86/boot"))
os.makedirs(os.path.join(TMP, "runs"))
for f in ("kernel-debug/arch/x86/boot/bzImage", "rootfs.img", "tools-debug.img"):
    open(os.path.join(TMP, f), "w").close()
args = runner.argparse.Namespace(job="suites", mem="512M", cpus=2, swap="1G", timeout=10,
                                 append="", variant="debug", icount="")
argv = runner.qemu_argv(args, os.path.join(TMP, "runs/x"), "tcg")
cmdline = argv[argv.index("-append") + 1]
case("guest_is_told_the_factor", "aws.slow=%d" % runner.SLOW["debug"] in cmdline.split(),
     cmdline[-60:])
# five-level paging under KASAN: a false wild-access report at boot
case("guest_boots_four_level_paging", "no5lvl" in cmdline.split(), cmdline[-60:])
for bad, why in ((dict(mem="512"), "--mem"), (dict(job="nosuch"), "no job"),
                 (dict(variant="fast"), "--variant"), (dict(timeout=0), "--timeout"),
                 (dict(append="quiet aws.args=x"), "aws.* words")):
    a = runner.argparse.Namespace(**dict(vars(args), **bad))
    try:
        runner.check_args(a)
        case("bad_argument_%s_is_refused" % list(bad)[0], False, "accepted %r" % bad)
    except runner.SetupError as e:
        case("bad_argument_%s_is_refused" % list(bad)[0], why in str(e), str(e))

# what the guest is handed: args and env as files; a setting that no suite
# reads, or a malformed one, is refused with the list of settings
items = dict(runner.handed(args="module workloads", env="CYCLES=8,FLIPS=84,AWS_REPS=2"))
case("guest_is_handed_args_and_env",
     items == {"args": b"module workloads\n", "env": b"CYCLES=8\nFLIPS=84\nAWS_REPS=2\n"},
     repr(items)[:80])
for bad, why in (("CYCLE=8", "they are CYCLES, FLIPS"), ("PATH=/x", "not a guest setting"),
                 ("cycles=8", "not NAME=VALUE"), ("FLIPS=1 2", "not NAME=VALUE")):
    try:
        runner.handed(env=bad)
        case("bad_env_%s_is_refused" % bad.split("=")[0], False, "accepted " + bad)
    except runner.SetupError as e:
        case("bad_env_%s_is_refused" % bad.split("=")[0], why in str(e), str(e))

# a QEMU that outlives its limit is killed (here: a shell that sleeps)
run = os.path.join(TMP, "runs", "slow")
os.makedirs(run)
t0 = time.monotonic()
status, secs, _ = runner.run_qemu(["sh", "-c", "sleep 60", "qemu"], run, 1, False)
took = time.monotonic() - t0
case("overlong_guest_is_killed", status is None and took < 15,
     "status %r after %.1f s (limit 1 s)" % (status, took))

# total: sums verdicts; a run without a verdict counts as failed
for name, counts in (("t1", (5, 0, 1)), ("t2", (3, 2, 0))):
    os.makedirs(os.path.join(TMP, "runs", name))
    with open(os.path.join(TMP, "runs", name, "verdict.json"), "w") as f:
        json.dump(dict(zip(("passed", "failed", "skipped"), counts)), f)
out = io.StringIO()
with contextlib.redirect_stdout(out):
    runner.total([os.path.join(TMP, "runs", n) for n in ("t1", "t2", "none")])
case("total_sums_verdicts_and_fails_a_missing_one", out.getvalue().split() == ["8", "3", "1"],
     "printed %r, expected '8 3 1'" % out.getvalue().strip())

# a debug kernel's guests (6.1's and 6.12's) are sized to keep what the
# default one's do; every other guest gets what it asked for
kver = runner.KVER
got = []
for runner.KVER in ("6.12", "6.1"):
    got += [runner.guest_mem(m, v) for m, v in (("128M", "debug"), ("256M", "debug"),
                                               ("1G", "debug"), ("256M", "default"))]
runner.KVER = "6.12"
args.mem = "256M"
argv = runner.qemu_argv(args, os.path.join(TMP, "runs/x"), "tcg")
runner.KVER = kver
case("debug_guests_get_the_debug_reserve_on_top",
     got == ["224M", "376M", "1248M", "256M"] * 2, "got %s" % got)
# and such a guest is told what it asked for (bpf.sh's tolerance case reads it)
cmdline = argv[argv.index("-append") + 1]
case("guest_is_told_the_size_it_asked_for",
     argv[argv.index("-m") + 1] == "376M" and "aws.mem=256M" in cmdline.split(),
     "-m %s, %s" % (argv[argv.index("-m") + 1], cmdline[-60:]))
# and a reserve for atomic allocations under global pressure
case("debug_6_12_guest_gets_an_atomic_reserve",
     "sysctl.vm.min_free_kbytes=8192" in cmdline.split(), cmdline[-60:])

print("KTAP version 1")
print("1..%d" % len(results))
print("\n".join(results))
runner.subprocess.run(["rm", "-rf", TMP])
sys.exit(0 if all(r.startswith("ok") for r in results) else 1)
