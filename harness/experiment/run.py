#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`make run` and `make merge`: the policy experiment, from the plan to the
table.

usage: run.py run [--plan short] [--only GLOBS] [--policies GLOBS] [--reps N]
                  [--jobs N] [--resume DIR] [--name NAME] [--run-limit S]
                  [--variant V]
       run.py merge RESULTS-DIR...

`run` (make run PLAN= ONLY= POLICIES= REPS= JOBS= RESUME= NAME= RUN_LIMIT=):
the plan (harness/experiment/plans/PLAN.plan) is read and its policies
expanded once, here (plan.py); every selected cell runs in a guest of its
own, a complete, independent boot with its own swap disk, handed its runs
as ready rows (plan.rows(): harness/guest/jobs/experiment.sh only applies
them), at most JOBS guests at a time (the host's cores by default, fewer
if its free memory holds fewer: TCG runs a guest on one host thread), the
costliest cells first; a cell that alone would outlast the others is
split by its reps into a few guests (schedule.parts()).  Inside a guest
the runs stay interleaved across policies (rep 1 of every policy, then
rep 2, ...).  A
memcg-limited cell boots the plan's guest-mem guest; a global-pressure
cell the global-guest-mem one, whose whole memory it uses.  The guests
boot through harness/boot/runner.py, imported, from a snapshot of the
images (snapshot()).  A run that takes longer than RUN_LIMIT seconds (900;
the debug kernel gets its slowness factor times that) is killed and
counted failed, and its guest goes on with the next run.

Each guest's data goes to build/results/<UTC timestamp or NAME>/guests/CELL/
(CELL+rA-B/ for a part);
then report() gathers them into the folder's runs.tsv, matrix.tsv,
guest-info*.txt, workloads.log and progress.txt (merge.gather()) and
writes meta.json (meta.py: the exact command, kernel, package, module and
git versions), OPT (opt.py: each run's page-access trace and its OPT and
LRU swap-ins, computed on this host by the tools disk's workloads and
aws-sim: no kernel code), the table of runs (results.py: runs.csv, the
summary, the PNGs and the terminal table), the simulator beside the guest
(calibrate.py) and, for a sample of the workload distribution, the goals
(sample.py); build/results/latest points at the new folder.
docs/results.md says which of its files to copy to results/.

Fails (non-zero exit, message on stderr) if a guest fails (its cell's data
is lost, the others' kept), if any workload exits non-zero or reports
verify_fail != 0, or if a cell has no data; the data is kept in its folder
(marked by a FAILED file) and build/results/latest is not moved.  `make run
RESUME=<folder>` completes it: it boots guests for the missing reps only,
with the folder's own plan and selection and the same kernel and tools
images (checked).

`merge` (make merge RESULTS='DIR...'): the folders of shards of one plan
run on several machines (docs/experiment.md) into one new folder, checked
by merge.py and meta.same(), and its table, as if one run had made them
all.  One make run or merge at a time in a tree (build/experiment.lock):
they share the guests' run folders and the snapshot.
"""
import argparse
import datetime
import fcntl
import filecmp
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))   # harness/experiment/
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "boot"))
import merge  # noqa: E402  harness/experiment/merge.py
import meta  # noqa: E402
import plan as P  # noqa: E402
import runner  # noqa: E402  harness/boot/runner.py
import schedule  # noqa: E402

CPUS = 2                            # each guest's vCPUs
RUN_LIMIT = 900                     # seconds a run may take on the default kernel
QEMU_MB = 200                       # what QEMU takes beside a guest's memory
RESULTS = os.path.join(runner.BUILD, "results")
OPTCACHE = os.path.join(runner.BUILD, "opt-cache")
T0 = time.monotonic()


class RunError(Exception):
    pass


def rel(path):
    """PATH relative to the source tree, as messages name it."""
    return os.path.relpath(path, TOP)


# ---- output: each guest's lines after its cell's name ---------------------
class Lines:
    """sys.stdout or sys.stderr for threads: a thread with a prefix (a
    guest's) writes whole lines, each prefixed; the others write through."""

    def __init__(self, stream):
        self.stream, self.local, self.lock = stream, threading.local(), threading.Lock()

    def prefix(self, text):
        """Prefix this thread's lines with TEXT from now on (None: no more)."""
        if getattr(self.local, "buf", ""):
            self.write("\n")
        self.local.prefix, self.local.buf = text, ""

    def write(self, s):
        pre = getattr(self.local, "prefix", None)
        if pre is None:
            return self.stream.write(s)
        self.local.buf += s
        *lines, self.local.buf = self.local.buf.split("\n")
        with self.lock:
            for line in lines:
                self.stream.write(pre + line.lstrip(" ") + "\n")
            self.stream.flush()
        return len(s)

    def flush(self):
        self.stream.flush()


def stage(text):
    print(">> " + text, flush=True)
    return time.monotonic()


def stage_done(text, t0):
    print("<< %s: %.1f s" % (text, time.monotonic() - t0), flush=True)


# ---- the run folder -------------------------------------------------------
def new_out(name):
    """A new results folder, named NAME or by the UTC time: (name, path)."""
    os.makedirs(RESULTS, exist_ok=True)
    if name:
        if not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$", name) or name == "latest":
            raise RunError("NAME='%s': letters, digits, '.', '_' and '-' only, not 'latest'" % name)
        try:
            os.mkdir(os.path.join(RESULTS, name))
        except FileExistsError:
            raise RunError("NAME=%s: build/results/%s exists already; choose another name"
                           % (name, name))
        return name, os.path.join(RESULTS, name)
    while True:
        ts = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        try:
            os.mkdir(os.path.join(RESULTS, ts))
            return ts, os.path.join(RESULTS, ts)
        except FileExistsError:
            time.sleep(1)


def write_run_txt(out, **values):
    with open(os.path.join(out, "run.txt"), "w") as f:
        for k in ("plan", "selection", "start", "jobs", "shards"):
            if k in values:
                f.write("%s %s\n" % (k, values[k]))


def lock():
    """The tree's lock (kept open for the process's life)."""
    os.makedirs(runner.BUILD, exist_ok=True)
    f = open(os.path.join(runner.BUILD, "experiment.lock"), "w")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RunError("another make run or merge is running in this tree (lock: %s); wait for it"
                       " (JOBS=N spreads one run over N cores)"
                       % rel(os.path.join(runner.BUILD, "experiment.lock")))
    return f


# ---- the snapshot of what the guests boot ---------------------------------
def images(build, variant):
    """(bzImage, tools image) of VARIANT under BUILD."""
    return (os.path.join(build, "kernel%s-%s" % (runner.KSFX, variant), "arch/x86/boot/bzImage"),
            os.path.join(build, "tools%s-%s.img" % (runner.KSFX, variant)))


def quiet(argv, stdin=None):
    """ARGV's exit status and stdout, its stderr dropped."""
    r = subprocess.run(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.returncode, r.stdout


def snapshot(variant):
    """Copy what the guests boot -- kernel, rootfs, tools disk (workloads,
    guest scripts, module) -- and the workloads opt.py runs to
    build/experiment-snapshot, and boot from there: a make test, make tools
    or kernel rebuild in the same tree during the run would otherwise
    rewrite an image under a running guest (seen: the tools disk vanished
    mid-run).  A copy taken while someone rewrote an image is caught (fsck,
    the tools disk's workloads against the copied ones, the images against
    the tree's) and taken again, three times at most.  The guests' run
    folders stay in build/runs/ (a symlink).  Returns the snapshot."""
    build, snap = runner.BUILD, os.path.join(runner.BUILD, "experiment-snapshot")
    kimg, timg = images(build, variant)
    skimg, stimg = images(snap, variant)
    bins = sorted(f for f in os.listdir(os.path.join(build, "userspace")) if f.startswith("aws-"))
    for _ in range(3):
        shutil.rmtree(snap, ignore_errors=True)
        for d in (os.path.dirname(skimg), os.path.join(snap, "logs" + runner.KSFX),
                  os.path.join(snap, "userspace"), runner.RUNS):
            os.makedirs(d, exist_ok=True)
        os.symlink(runner.RUNS, os.path.join(snap, "runs" + runner.KSFX))
        if os.path.isfile(os.path.join(build, "accel")):
            shutil.copy(os.path.join(build, "accel"), snap)
        try:
            shutil.copy(kimg, skimg)
            subprocess.run(["cp", "--sparse=always", os.path.join(build, "rootfs.img"),
                            os.path.join(snap, "rootfs.img")], check=True)
            shutil.copy(timg, stimg)
            for b in bins:
                shutil.copy(os.path.join(build, "userspace", b), os.path.join(snap, "userspace"))
        except (OSError, subprocess.CalledProcessError):
            time.sleep(5)
            continue
        same = all(quiet(["debugfs", "-R", "cat /bin/" + b, stimg])[1] ==
                   read_bytes(os.path.join(snap, "userspace", b)) for b in bins)
        if (same and quiet(["e2fsck", "-fn", stimg])[0] == 0 and
                quiet(["e2fsck", "-fn", os.path.join(snap, "rootfs.img")])[0] == 0 and
                filecmp.cmp(kimg, skimg, shallow=False) and filecmp.cmp(timg, stimg, shallow=False)):
            return snap
        time.sleep(5)
    raise RunError("could not take a consistent copy of the kernel, rootfs and tools images"
                   " (being rebuilt?)")


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def sha256(path):
    return quiet(["sha256sum", path])[1].decode().split()[0]


def has_damon(variant):
    """The kernel of VARIANT has DAMON's lru_sort built in (its .config)."""
    try:
        with open(os.path.join(runner.BUILD, "kernel%s-%s" % (runner.KSFX, variant), ".config")) as f:
            return "\nCONFIG_DAMON_LRU_SORT=y\n" in "\n" + f.read()
    except OSError:
        return False


# ---- the guests -----------------------------------------------------------
class Guests:
    """The guests of one make run: each boots one cell's rows and leaves its
    data in OUT/guests/CELL/, or a line "CELL<TAB>why" in OUT/failed."""

    def __init__(self, out, header, plan, selection, variant, run_limit, snap):
        self.out, self.header, self.plan, self.variant = out, header, plan, variant
        self.sel, self.run_limit, self.snap = P.parse_args(selection), run_limit, snap
        self.lock = threading.Lock()

    def failed(self, cell, why):
        with self.lock:
            with open(os.path.join(self.out, "failed"), "a") as f:
                f.write("%s\t%s\n" % (cell, why))

    def boot(self, part):
        name = part[2]
        sys.stdout.prefix("   [%s] " % name)
        sys.stderr.prefix("   [%s] " % name)
        try:
            self.boot_part(*part)
        except Exception as e:  # noqa: BLE001 (a guest's failure is its own only)
            print("error: %s: %s" % (type(e).__name__, e), file=sys.stderr)
            self.failed(name, "%s: %s" % (type(e).__name__, e))
        finally:
            sys.stdout.prefix(None)
            sys.stderr.prefix(None)

    def boot_part(self, cell, reps, name):
        """The guest NAME: the runs of CELL's REPS."""
        run_name = "experiment-" + name
        inp = os.path.join(self.snap, "input", name)
        os.makedirs(inp, exist_ok=True)
        todo = os.path.join(inp, "todo.tsv")
        with open(todo, "w") as f:
            f.write(P.rows(cell, reps))
        glob = cell["boot"] == "global"
        env = {"AWS_RUN_LIMIT": self.run_limit, "AWS_PLAN": self.plan, "AWS_BOOT": cell["boot"],
               "AWS_REPS": cell["reps"], "AWS_POLICY_FILTER": self.sel.get("policies", "none")}
        # global reclaim needs a guest whose whole memory is used.
        # rodata=off: under TCG a page freed from the kernel image's
        # rodata/data gap stalls the vCPU in clear_page_erms for 20+ s when
        # the allocator hands it out (soft lockup panic, reproduced 3 of 3
        # times, module not loaded); rodata=off keeps those pages out of the
        # allocator.  See docs/results.md.
        a = argparse.Namespace(
            job="experiment", name=run_name, cpus=CPUS, swap=cell["swap"], variant=self.variant,
            mem=self.header["global-guest-mem" if glob else "guest-mem"],
            append="rodata=off" if glob else "", timeout=int(self.header["timeout"]),
            icount="", suites="", args="", input=[todo], progress=True,
            env=",".join("%s=%s" % kv for kv in env.items()))
        try:
            rc = runner.boot(a)
        except runner.SetupError as e:
            print("error: %s" % e, file=sys.stderr)
            rc = 1
        run = os.path.join(runner.RUNS, run_name)
        # 4: the job counted failed runs, which results.py reports from the data
        if rc not in (0, 4) or not os.path.isfile(os.path.join(run, "results", "runs.tsv")):
            self.failed(name, "build/%s/%s/console.log (runner exit status %s)"
                        % (os.path.basename(runner.RUNS), run_name, rc))
            return
        g = os.path.join(self.out, "guests", name)
        try:
            shutil.rmtree(g + ".part", ignore_errors=True)
            os.mkdir(g + ".part")
            for f in ("runs.tsv", "guest-info.txt", "workloads.log"):
                shutil.copy(os.path.join(run, "results", f), g + ".part")
            for f in ("qemu-cmdline", "verdict.json"):
                shutil.copy(os.path.join(run, f), g + ".part")
            shutil.copy(os.path.join(self.out, "images.txt"), g + ".part")
            with open(os.path.join(g + ".part", "matrix.tsv"), "w") as f:
                f.write(P.matrix_line(cell))
            with open(os.path.join(run, "ktap.log"), errors="replace") as f, \
                    open(os.path.join(g + ".part", "progress.txt"), "w") as p:
                p.writelines(line for line in f if line.startswith("# "))
            os.rename(g + ".part", g)
        except OSError as e:
            self.failed(name, "could not copy build/%s/%s/ to %s (%s)"
                        % (os.path.basename(runner.RUNS), run_name, rel(g), e))


def default_jobs(guest_mem):
    """The host's cores, and no more guests than its free memory holds
    (each the plan's guest-mem and QEMU's own)."""
    jobs = os.cpu_count() or 1
    with open("/proc/meminfo") as f:
        avail = next(int(line.split()[1]) for line in f if line.startswith("MemAvailable:"))
    fit = max(1, avail // 1024 // (P.size_mb(guest_mem) + QEMU_MB))
    if fit < jobs:
        print("   note: %d cores, but free memory for %d guests of %s: JOBS=%d"
              % (jobs, fit, guest_mem, fit), file=sys.stderr)
        jobs = fit
    return jobs


def run(a):
    """make run: returns the exit status."""
    if a.resume:
        if a.only or a.policies or a.reps or a.name:
            raise RunError("RESUME completes a run with its own selection and folder; leave ONLY,"
                           " POLICIES, REPS and NAME unset")
        name = os.path.basename(os.path.normpath(a.resume))
        out = os.path.join(RESULTS, name)
        if not os.path.isfile(os.path.join(out, "run.txt")):
            raise RunError("RESUME=%s: no build/results/%s/run.txt (not a make run folder of"
                           " this version)" % (a.resume, name))
        was = merge.run_txt(out)
        plan, selection, start = was["plan"], was.get("selection", ""), was.get("start", "")
        if a.plan and a.plan != plan:
            raise RunError("RESUME=%s ran plan '%s', not '%s'" % (name, plan, a.plan))
    else:
        plan, selection = a.plan or "short", P.selection(a.only, a.policies, a.reps)
        start = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    header, _ = P.check(plan)
    cells = P.cells(plan, selection, has_damon(a.variant), bpf=runner.KVER != "6.1")
    if not cells:
        raise RunError("ONLY/POLICIES (selection '%s') select no cell of plan '%s'"
                       % (selection, plan))
    for c in cells:
        if c["left_out"]:
            print("note: cell %s: %s left out: BPF policies run on 6.12 only (KVER=6.12)"
                  % (c["name"], " ".join(c["left_out"])))
    jobs = int(a.jobs) if a.jobs else default_jobs(header["guest-mem"])
    cost = schedule.costs(cells, header["global-guest-mem"],
                          schedule.earlier_runs([RESULTS, os.path.join(TOP, "results")], plan,
                                               runner.KVER))
    if a.resume:
        if os.path.exists(os.path.join(out, "failed")):
            os.replace(os.path.join(out, "failed"), os.path.join(out, "failed.before-resume"))
        if os.path.exists(os.path.join(out, "FAILED")):
            os.unlink(os.path.join(out, "FAILED"))
    else:
        name, out = new_out(a.name)
    os.makedirs(os.path.join(out, "guests"), exist_ok=True)
    write_run_txt(out, plan=plan, selection=selection, start=start, jobs=jobs)

    # Probe KVM once, before the guests that boot at the same time.
    runner.accel(runner.images(a.variant)[0], runner.LOGS)
    snap = snapshot(a.variant)
    runner.use_build(snap)
    kimg, timg = images(snap, a.variant)
    # what every guest of the folder booted: a resumed run must boot the same
    imgs = "variant %s\nkernel %s\nbzimage_sha256 %s\ntools_image_sha256 %s" % (
        a.variant, runner.KVER, sha256(kimg), sha256(timg))
    path = os.path.join(out, "images.txt")
    if os.path.exists(path):
        with open(path) as f:
            if f.read().rstrip("\n") != imgs:
                raise RunError("RESUME=%s: build/results/%s was made with other images (its"
                               " images.txt); its lost cells cannot be added from this kernel or"
                               " tools disk: run the plan again" % (name, name))
    else:
        with open(path, "w") as f:
            f.write(imgs + "\n")

    # the reps no guest of the folder made yet (all of them, but for RESUME)
    left = []
    for c in cells:
        done = {r for _, reps in merge.cell_guests(out, c) for r in reps}
        if any(r not in done for r in range(1, c["reps"] + 1)):
            left.append((c, [r for r in range(1, c["reps"] + 1) if r not in done]))
    todo = schedule.parts(left, jobs, cost)
    split = sorted({c["name"] for c, r, _ in todo if len(r) < c["reps"]})
    title = "guests: plan '%s'%s: %d of %d cells, %s, %d at a time (%s; global pressure: %s)" % (
        plan, " (%s)" % selection if selection else "", len(left), len(cells),
        "%d guests (split by reps: %s)" % (len(todo), " ".join(split)) if split else "a guest each",
        jobs, header["guest-mem"], header["global-guest-mem"])
    t = stage(title)
    guests = Guests(out, header, plan, selection, a.variant, a.run_limit, snap)
    sys.stdout, sys.stderr = Lines(sys.stdout), Lines(sys.stderr)
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(guests.boot, todo))
    except KeyboardInterrupt:
        # the guests' QEMUs run in sessions of their own: they finish their
        # jobs and power off, as they did when make run was a bash script
        print("error: make run: interrupted; build/results/%s/ is incomplete" % name,
              file=sys.stderr.stream)
        os._exit(130)
    finally:
        sys.stdout, sys.stderr = sys.stdout.stream, sys.stderr.stream
    stage_done(title, t)
    t = stage("results: build/results/%s" % name)
    status = report(out, plan, selection, start, jobs, "", os.path.join(snap, "userspace"))
    stage_done("results: build/results/%s" % name, t)
    return finish(out, name, status)


# ---- the folder's files, the analysis, the verdict ------------------------
def report(out, plan, selection, start, jobs, shards, binaries):
    """The guests' data in OUT/guests/CELL/ into the folder's files, then
    meta.json, OPT, the table, the simulator beside the guest and, for a
    sample of the workload distribution, the goals.  Returns 0 if the
    table has every cell and run, 1 if not."""
    import calibrate
    import opt
    import results
    import sample
    _, cells = P.check(plan)
    if not merge.gather(out, plan):
        print("error: make run: no guest wrote data", file=sys.stderr)
        return 1
    try:
        meta.write(out, plan, selection, start, jobs, shards)
    except (P.PlanError, OSError, ValueError, KeyError, SystemExit) as e:
        print("error: could not write %s/meta.json: %s" % (out, e), file=sys.stderr)
        return 1
    # OPT, LRU and the simulator's policies for each cell's trace: a few
    # seconds (cached in build/opt-cache).  A failure leaves every x OPT
    # "n/a (why)" in the table, not the run failed.
    if analyse(opt, [out, "--bin", binaries, "--cache", OPTCACHE]) != 0:
        print("warning: harness/experiment/opt.py failed: the table shows no OPT", file=sys.stderr)
    status = analyse(results, [out, "--best-of", "nomod,mglru"])
    # the simulator beside the guest (calib.txt, calib.csv): a measurement
    if all(os.path.isfile(f) and os.path.getsize(f)
           for f in (os.path.join(out, "runs.csv"), os.path.join(out, "opt.csv"))):
        print()
        if analyse(calibrate, [out]) != 0:
            print("warning: harness/experiment/calibrate.py failed: no calib.txt", file=sys.stderr)
    # a sample of the workload distribution (PLAN=sample: every cell runs
    # aws-instance): the goals, judged on the guest's runs; a cell it cannot
    # judge fails the run.  A run without the peers (POLICIES=candidate) is
    # judged against a stored run's, by hand: said so, not guessed.
    if status == 0 and all(c["run"].split()[0] == "aws-instance" for c in cells):
        print()
        ran = set(P.cells(plan, selection)[0]["policies"])
        if {"nomod", "mglru"} <= ran:
            status = analyse(sample, [out, "--sim", os.path.join(binaries, "aws-sim")])
        else:
            print("note: no goals: stock (nomod) and MGLRU did not run; judge against a stored"
                  " run of the plan with: python3 harness/experiment/sample.py %s --peers-from"
                  " results/<that run>" % rel(out))
    return status


def analyse(module, argv):
    """MODULE.main(ARGV)'s exit status; an exception in it is a failure,
    its traceback shown (the run goes on to its verdict)."""
    try:
        return module.main(argv) or 0
    except Exception:  # noqa: BLE001
        print("error: %s failed:" % rel(module.__file__), file=sys.stderr)
        traceback.print_exc()
        return 1


def finish(out, name, status):
    """The verdict of the folder OUT: latest moved to it, or FAILED written
    and the lost cells named, with the command that completes them."""
    lost = []
    if os.path.exists(os.path.join(out, "failed")):
        with open(os.path.join(out, "failed")) as f:
            lost = [line.rstrip("\n") for line in f if line.strip()]
    if status != 0 or lost:
        with open(os.path.join(out, "FAILED"), "w") as f:
            f.write("results.py or sample.py exit status %d; guests that failed: %s\n"
                    % (status, " ".join(line.split("\t")[0] for line in lost) or "none"))
        if lost:
            print("error: make run: these guests failed, their data is lost:",
                  file=sys.stderr)
            for line in lost:
                print("   " + line, file=sys.stderr)
            print("   the other guests' data is in build/results/%s/; boot only the lost ones with:"
                  " make run RESUME=%s" % (name, name), file=sys.stderr)
        print("error: make run: the runs above failed or are incomplete; data kept in"
              " build/results/%s/ (build/results/latest not moved)" % name, file=sys.stderr)
        return 1
    latest = os.path.join(RESULTS, "latest")
    tmp = latest + ".new"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(name, tmp)
    os.replace(tmp, latest)
    print("== make run: %d s wall; build/results/%s (build/results/latest): table.txt, runs.csv,"
          " summary.csv, meta.json, *.png" % (time.monotonic() - T0, name))
    return 0


def merge_shards(dirs):
    """make merge: returns the exit status."""
    name, out = new_out("")
    try:
        plan, selection, start, shards, paths = merge.combine(out, dirs, RESULTS)
        diff = meta.same(paths)
        if diff:
            for line in diff:
                print("error: merge: %s" % line, file=sys.stderr)
            raise RunError("merge: the shards were not made from the same sources (above);"
                           " nothing merged")
    except (RunError, merge.MergeError) as e:
        shutil.rmtree(out)
        raise RunError(str(e))
    write_run_txt(out, plan=plan, selection=selection, start=start, jobs="", shards=shards)
    t = stage("merge: %d shards into build/results/%s" % (len(dirs), name))
    status = report(out, plan, selection, start, "", shards,
                    os.path.join(runner.BUILD, "userspace"))
    stage_done("merge: %d shards into build/results/%s" % (len(dirs), name), t)
    return finish(out, name, status)


def python_with_pandas():
    """Go on in a python3 that has Debian's pandas and matplotlib
    (results.py needs both): this one, or /usr/bin/python3 (a python3
    earlier in PATH, pyenv or venv, usually cannot see them)."""
    try:
        import matplotlib  # noqa: F401
        import pandas  # noqa: F401
    except ImportError:
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        raise RunError("no python3 with pandas and matplotlib (run: make deps)")


# What make run's settings were called before they were make variables: a
# command copied from an older record must not silently run the whole plan.
RETIRED = {"AWS_RUN_ARGS": "make run ONLY=... POLICIES=... REPS=...",
           "AWS_RUN_NAME": "make run NAME=...",
           "AWS_RUN_GLOBAL": "make run ONLY=... without the global cells",
           "AWS_RUN_LIMIT": "make run RUN_LIMIT=...",
           "AWS_JOBS": "make run JOBS=..."}


def main(argv):
    ap = argparse.ArgumentParser(prog="run.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="make run")
    r.add_argument("--plan", default="", help="a plan of harness/experiment/plans/ (short)")
    r.add_argument("--only", default="", help="the cells, globs, colon-separated")
    r.add_argument("--policies", default="", help="the policies, globs, colon-separated")
    r.add_argument("--reps", default="", help="repetitions (the plan's)")
    r.add_argument("--jobs", default="", help="guests at a time (the host's cores)")
    r.add_argument("--resume", default="", help="a folder of build/results/ to complete")
    r.add_argument("--name", default="", help="the folder's name (the UTC time)")
    r.add_argument("--run-limit", default=str(RUN_LIMIT), help="seconds a run may take (900)")
    r.add_argument("--variant", default="default")
    m = sub.add_parser("merge", help="make merge")
    m.add_argument("dirs", nargs="+")
    a = ap.parse_args(argv)
    try:
        python_with_pandas()
        if a.cmd == "run":
            old = [v for v in RETIRED if v in os.environ]
            if old:
                raise RunError("%s: settings of an older make run, ignored now; use %s"
                               % (", ".join(old), "; ".join(RETIRED[v] for v in old)))
            if a.jobs and not re.match(r"^[1-9][0-9]*$", a.jobs):
                raise RunError("JOBS must be a positive number of guests at a time, not '%s'" % a.jobs)
            if not re.match(r"^[1-9][0-9]*$", a.run_limit):
                raise RunError("RUN_LIMIT must be the seconds a run may take (900 if not given),"
                               " not '%s'" % a.run_limit)
        held = lock()
        status = run(a) if a.cmd == "run" else merge_shards(a.dirs)
        held.close()
        return status
    except (RunError, P.PlanError, runner.SetupError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
