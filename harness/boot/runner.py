#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot one guest and judge it: the only place a guest run is decided.

usage: runner.py boot JOB [--name RUN] [--mem 512M] [--cpus 2] [--swap 1G]
                      [--timeout S] [--append ARGS] [--variant V] [--icount OPTS]
                      [--args "W..."] [--env K=V,K=V] [--suites "A B"]
                      [--input FILE]... [--progress]
       runner.py shell [--mem 512M] [--cpus 2] [--variant V]
       runner.py accel               KVM or TCG for this host (cached in build/accel)
       runner.py scan FILE...        kernel problems on consoles (FILE:LINE:TEXT)
       runner.py total RUN...        "passed failed skipped" over runs' verdicts

A guest's life, in the order `boot` lives it:

  prepare   a fresh build/runs/RUN/ with a sparse swap image and a results
            disk, which starts with a tar archive of what the guest is
            handed (it unpacks it into /tmp/input): --args as "args" (the
            job's arguments, AWS_ARGS in the guest), --env as "env" (one
            KEY=VALUE a line, exported for the suites), and the --input
            files (make run's plan file).  The kernel command line carries
            only the job's name (aws.job=: harness/guest/jobs/JOB.sh), the
            slowness factor and real kernel arguments;
            the rootfs is booted as a snapshot (never modified), the tools
            disk (guest scripts, workloads, modules) read-only.
  boot      qemu-system-x86_64 with KVM if `accel` found it usable, else
            single-threaded TCG (multi-threaded TCG does not honour
            cross-modifying code: a static key flipped under a running vCPU
            can leave it on a stale int3; docs/design.md).  Serial port 1 is
            the console (console.log), port 2 the clean channel the guest
            writes KTAP and "# " progress lines to (ktap.log); --progress
            echoes the "# " lines as they come.
  timeout   --timeout is what the default kernel needs; the debug kernel
            (KASAN, lockdep, kmemleak) gets SLOW times as long, and the
            guest is told the factor (aws.slow=) for its own suite budget.
            This is the only place the factor is applied.
  collect   CRs stripped from both logs, the results disk untarred into
            build/runs/RUN/results/, the swap image deleted.
  judge     the first of these that holds is the verdict:
              kernel-problem (exit 2)  the console matches a pattern of
                                       harness/boot/console-patterns, whatever else
                                       happened (a panic also stops the guest)
              timeout        (exit 3)  the guest outlived --timeout
              died           (exit 3)  QEMU failed, or the guest never
                                       printed "# aws-guest: done"
              job-failed     (exit 4)  the job script exited non-zero
              tests-failed   (exit 4)  with --suites: a case failed, or the
                                       KTAP does not add up to harness/boot/manifest
                                       (harness/boot/ktap-count.awk counts it)
              ok             (exit 0)
            Setup errors (bad argument, missing image) exit 1 before boot.
            The verdict goes to build/runs/RUN/verdict.json (one Verdict)
            and to stdout, its reason to stderr when it is not ok.

`scan` is the console scan every script uses (harness/lib.sh's console_scan
calls it).  Standard library only; harness/unit/test-runner.py tests the judging
on canned runs.
"""
import argparse
import dataclasses
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))   # harness/boot/
HARNESS = os.path.dirname(HERE)
TOP = os.path.dirname(HARNESS)
BUILD = os.environ.get("AWS_BUILD", os.path.join(TOP, "build"))
# The kernel (harness/lib.sh): 6.1's folders have plain names, 6.12's a
# "-6.12" after the first word (build/kernel-6.12-default, build/logs-6.12).
KVER = os.environ.get("KVER", "6.1")
KSFX = "" if KVER == "6.1" else "-" + KVER
LOGS = os.path.join(BUILD, "logs" + KSFX)
RUNS = os.path.join(BUILD, "runs" + KSFX)
PATTERNS = os.path.join(HERE, "console-patterns")
KTAP_COUNT = os.path.join(HERE, "ktap-count.awk")
EXPECTED_SKIPS = os.path.join(HERE, "expected-skips")
MANIFEST = os.path.join(HERE, "manifest")
JOBS = os.path.join(HARNESS, "guest", "jobs")



def use_build(build):
    """Boot from the images under BUILD from now on, and keep the logs and
    run folders there (make run boots its guests from a snapshot of build/:
    harness/experiment/run.py)."""
    global BUILD, LOGS, RUNS
    BUILD = build
    LOGS = os.path.join(build, "logs" + KSFX)
    RUNS = os.path.join(build, "runs" + KSFX)


# How many times longer than the default kernel each variant may take.
SLOW = {"default": 1, "unpatched": 1, "debug": 4}
EXIT = {"ok": 0, "setup-error": 1, "kernel-problem": 2, "timeout": 3, "died": 3,
        "job-failed": 4, "tests-failed": 4}
DONE = "# aws-guest: done"
JOB_STATUS = re.compile(r"^# aws-guest: job exit status (\d+)")


class SetupError(Exception):
    pass


@dataclasses.dataclass
class Verdict:
    name: str
    job: str
    variant: str
    status: str = "died"
    reason: str = ""
    seconds: float = 0.0
    cpu_seconds: float = 0.0     # QEMU's user + system time
    timeout: int = 0
    qemu_status: int = None
    job_status: int = None
    problems: list = dataclasses.field(default_factory=list)   # console lines
    suites: list = dataclasses.field(default_factory=list)
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    count_problems: list = dataclasses.field(default_factory=list)
    not_ok: list = dataclasses.field(default_factory=list)

    @property
    def exit_code(self):
        return EXIT[self.status]


def shown(path):
    """PATH as the user typed paths: relative to the current directory."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


# ---- console scan ---------------------------------------------------------
def console_patterns(path=PATTERNS):
    """The patterns of harness/boot/console-patterns, one extended regex a
    line."""
    with open(path) as f:
        return [ln.rstrip("\n") for ln in f if ln.strip() and not ln.startswith("#")]


def scan(path, patterns):
    """[(line number, text)] of the console lines that match any pattern."""
    rx = re.compile("|".join("(?:%s)" % p for p in patterns))
    hits = []
    with open(path, errors="replace") as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if rx.search(line):
                hits.append((i, line))
    return hits


# ---- accelerator ----------------------------------------------------------
def accel(kernel, log_dir):
    """"kvm" or "tcg".  /dev/kvm existing is not enough: on some hosts QEMU
    aborts at once, or the guest crawls and dies with "KVM internal error ...
    emulation failure".  So the real kernel boots with KVM and no root disk,
    and KVM counts only if it reaches the "Unable to mount root fs" panic
    within 20 s.  Cached in build/accel (delete it to probe again); ACCEL=kvm
    or tcg overrides."""
    forced = os.environ.get("ACCEL")
    if forced:
        if forced not in ("kvm", "tcg"):
            raise SetupError("ACCEL must be kvm or tcg, not '%s'" % forced)
        return forced
    cache = os.path.join(BUILD, "accel")
    if os.path.exists(cache):
        with open(cache) as f:
            return f.read().strip()
    verdict = "tcg"
    if os.access("/dev/kvm", os.W_OK):
        log = os.path.join(log_dir, "kvm-probe.log")
        try:
            subprocess.run(["qemu-system-x86_64", "-accel", "kvm", "-cpu", "host", "-m", "256M",
                            "-kernel", kernel, "-append", "console=ttyS0 panic=-1",
                            "-display", "none", "-no-reboot", "-monitor", "none",
                            "-serial", "file:" + log], timeout=20,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            pass
        with open(log, errors="replace") as f:
            if "Unable to mount root fs" in f.read():
                verdict = "kvm"
    print("   accel probe: /dev/kvm %s, using %s"
          % ("present" if os.path.exists("/dev/kvm") else "absent", verdict), file=sys.stderr)
    with open(cache, "w") as f:
        f.write(verdict + "\n")
    return verdict


# ---- the guest's life -----------------------------------------------------
SIZE = re.compile(r"^[0-9]+[MG]$")


def limit(timeout, variant):
    """The time a guest of VARIANT gets when the default kernel needs TIMEOUT."""
    return timeout * SLOW[variant]


def images(variant):
    kernel = os.path.join(BUILD, "kernel%s-%s" % (KSFX, variant), "arch/x86/boot/bzImage")
    # the unpatched kernel has no module of its own; its jobs use the workloads
    tools = os.path.join(BUILD, "tools%s-%s.img"
                         % (KSFX, "default" if variant == "unpatched" else variant))
    rootfs = os.path.join(BUILD, "rootfs.img")
    for f in (kernel, rootfs, tools):
        if not os.path.isfile(f):
            raise SetupError("%s missing (run: make kernel rootfs tools KVER=%s)" % (f, KVER))
    return kernel, rootfs, tools


def check_args(a):
    if not os.path.isfile(os.path.join(JOBS, a.job + ".sh")):
        jobs = sorted(j[:-3] for j in os.listdir(JOBS) if j.endswith(".sh"))
        raise SetupError("no job '%s' (jobs: %s)" % (a.job, " ".join(jobs)))
    if not SIZE.match(a.mem):
        raise SetupError("--mem must look like 512M or 2G, not '%s'" % a.mem)
    if not SIZE.match(a.swap):
        raise SetupError("--swap must look like 1G or 512M, not '%s'" % a.swap)
    if a.cpus < 1:
        raise SetupError("--cpus must be a positive integer, not %d" % a.cpus)
    if a.timeout < 1:
        raise SetupError("--timeout must be a positive number of seconds")
    if re.search(r"(^|\s)aws\.", a.append):
        raise SetupError("--append: the aws.* words are the runner's own; hand the guest its"
                         " arguments with --args, --env or --input")
    if a.variant not in SLOW:
        raise SetupError("--variant must be one of %s, not '%s'" % (" ".join(SLOW), a.variant))


def guest_mem(mem, variant):
    """The memory a guest asked for with --mem MEM gets.  A debug kernel
    keeps about 68 MB plus an eighth of the guest for itself (KASAN's
    shadow, lockdep): debug 6.12 92-96 MB at 256M, debug 6.1 86, 105 and
    142 MB at 128M, 256M and 512M, where the default kernels keep 24-35 MB
    (the boot's "Memory:" line, docs/port-6.12.md).  So a debug guest gets
    (M + 68 MB) * 8 / 7, rounded up to 8 MB: what the default kernel's
    guest of M keeps.  Every other guest gets M."""
    if variant != "debug":
        return mem
    return "%dM" % (-(-(mem_mb(mem) + 68) * 8 // (7 * 8)) * 8)


def mem_mb(mem):
    """QEMU's -m size (NM or NG) in MB."""
    return int(mem[:-1]) * (1024 if mem[-1] in "Gg" else 1)


def qemu_argv(a, run, acc):
    kernel, rootfs, tools = images(a.variant)
    cpu, opt = ("host", "kvm") if acc == "kvm" else ("max", "tcg,thread=single")
    icount = []
    if a.icount:
        if acc != "tcg":
            raise SetupError("--icount needs TCG (run with ACCEL=tcg)")
        icount = ["-icount", a.icount]
    cmdline = ("console=ttyS0 root=/dev/vda rw init=/sbin/aws-init panic=-1 oops=panic"
               " hung_task_panic=1 softlockup_panic=1 aws.job=%s" % a.job)
    # No address-space randomisation: TCG finds the code it has translated
    # by virtual address, so with ASLR every exec translates ld.so and libc
    # anew (fork+exec of bash -c : 276 ms -> 74 ms in a 256M guest; the
    # guest suites are shell scripts).  Reclaim does not look at addresses.
    cmdline += " norandmaps aws.slow=%d aws.mem=%dM" % (SLOW[a.variant], mem_mb(a.mem))
    # Four-level page tables, though QEMU's "max" CPU offers LA57: with
    # five levels and KASAN, an interrupt that arrives while
    # identify_boot_cpu() has cleared the boot CPU's feature bits makes
    # KASAN report a wild access in the IRQ handler (a known upstream false
    # positive, seen here once in four debug boots at 0.01 s).  The policies
    # suite alone under TCG took 42 s with five levels and 45 s with four,
    # its swap-ins within its own alike tolerance.
    cmdline += " no5lvl"
    # The debug kernel under TCG is slow enough that ACPI's PCI routing
    # methods time out and the soft-lockup watchdog fires during boot.
    if a.variant == "debug":
        cmdline += " pci=noacpi watchdog_thresh=60"
    # Under global pressure the debug 6.12 kernel's atomic allocations ran
    # out of reserve (virtio-blk's indirect descriptors, GFP_ATOMIC: "page
    # allocation failure", free 516kB at a min watermark of 1,700kB) in 2
    # of 5 such guests (test-c 1 of 2, make run's 128M global cell 1 of 3):
    # kswapd under KASAN and TCG falls behind the hog.  A larger reserve
    # keeps them clean; the suites that compare figures run in cgroups,
    # well above it.
    if a.variant == "debug" and KVER != "6.1":
        cmdline += " sysctl.vm.min_free_kbytes=8192"
    if a.append:
        cmdline += " " + a.append
    drive = "file=%s,if=virtio,format=raw"
    return (["qemu-system-x86_64", "-accel", opt] + icount +
            ["-cpu", cpu, "-m", guest_mem(a.mem, a.variant), "-smp", str(a.cpus), "-kernel", kernel,
             "-append", cmdline,
             "-drive", drive % rootfs + ",snapshot=on",
             "-drive", drive % tools + ",readonly=on",
             "-drive", drive % os.path.join(run, "swap.img"),
             "-drive", drive % os.path.join(run, "results.img"),
             "-display", "none", "-no-reboot", "-monitor", "none"])


# The settings a user may hand the guest suites (make test GUEST_ENV=,
# docs/reliability.md); the harness's own are AWS_*.
GUEST_SETTINGS = ("CYCLES", "FLIPS", "LIMIT_MB", "STRESS_SECONDS", "SELFTEST_TIMEOUT",
                  "THP_STRESS_SECONDS", "KSM_REPEAT", "TRACE_BUF_KB", "SUITE_TIMEOUT", "TIMING")


def handed(args="", env="", inputs=()):
    """What the guest is handed: [(name, bytes)]."""
    items = [("args", (args + "\n").encode())] if args else []
    if env:
        for kv in env.split(","):
            m = re.match(r"^([A-Z][A-Z0-9_]*)=[^\s]*$", kv)
            if not m:
                raise SetupError("--env: '%s' is not NAME=VALUE" % kv)
            if m.group(1) not in GUEST_SETTINGS and not m.group(1).startswith("AWS_"):
                raise SetupError("--env: %s is not a guest setting; they are %s"
                                 % (m.group(1), ", ".join(GUEST_SETTINGS)))
        items.append(("env", ("\n".join(env.split(",")) + "\n").encode()))
    for path in inputs:
        if not os.path.isfile(path):
            raise SetupError("--input %s: no such file" % path)
        with open(path, "rb") as f:
            items.append((os.path.basename(path), f.read()))
    return items


def prepare(run, swap, items=()):
    subprocess.run(["rm", "-rf", run], check=True)
    os.makedirs(os.path.join(run, "results"))
    with tarfile.open(os.path.join(run, "results.img"), "w", format=tarfile.GNU_FORMAT) as t:
        for name, data in items:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
            t.addfile(info, io.BytesIO(data))
    for name, size in (("swap.img", swap), ("results.img", "256M")):
        subprocess.run(["truncate", "-s", size, os.path.join(run, name)], check=True)


def follow(path, pos):
    """Print the complete '# ' lines of PATH written since byte POS."""
    try:
        with open(path, "rb") as f:
            f.seek(pos)
            data = f.read()
    except FileNotFoundError:
        return pos
    end = data.rfind(b"\n") + 1
    for line in data[:end].decode(errors="replace").splitlines():
        if line.startswith("# "):
            print("   " + line.rstrip("\r"), flush=True)
    return pos + end


def run_qemu(argv, run, budget, progress):
    """Run QEMU for at most BUDGET s: (exit status or None on timeout,
    seconds, CPU seconds QEMU used)."""
    ktap = os.path.join(run, "ktap.log")
    t0 = time.monotonic()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(argv + ["-serial", "file:" + os.path.join(run, "console.log"),
                                 "-serial", "file:" + ktap],
                         stdin=subprocess.DEVNULL, start_new_session=True)
    pos = 0
    status = None
    while True:
        try:
            status = p.wait(timeout=2)
            break
        except subprocess.TimeoutExpired:
            pass
        if progress:
            pos = follow(ktap, pos)
        if time.monotonic() - t0 > budget:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            status = None
            break
    if progress:
        follow(ktap, pos)
    r2 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r2.ru_utime + r2.ru_stime - ru.ru_utime - ru.ru_stime
    return status, time.monotonic() - t0, cpu


def collect(run):
    for name in ("console.log", "ktap.log"):
        path = os.path.join(run, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read().replace(b"\r\n", b"\n")
            with open(path, "wb") as f:
                f.write(data)
        else:
            open(path, "w").close()
    # the guest writes a tar of its /tmp/results onto the results disk
    subprocess.run(["tar", "-C", os.path.join(run, "results"), "-xf",
                    os.path.join(run, "results.img")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for name in ("swap.img", "results.img"):
        try:
            os.unlink(os.path.join(run, name))
        except FileNotFoundError:
            pass


def count(run, suites, manifest=MANIFEST, variant="default"):
    """harness/boot/ktap-count.awk over RUN/ktap.log against the manifest and
    the expected skips of VARIANT: (passed, failed, skipped, problems);
    missing cases, unexpected skips and every problem count as failed."""
    out = subprocess.run(["awk", "-f", KTAP_COUNT, "-v", "mode=suites", "-v",
                          "expect=" + " ".join(suites), "-v", "manifest=" + manifest,
                          "-v", "skips=" + EXPECTED_SKIPS, "-v", "variant=" + variant,
                          os.path.join(run, "ktap.log")],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    lines = out.splitlines()
    problems = [ln[len("problem: "):] for ln in lines if ln.startswith("problem: ")]
    try:
        p, f, s = (int(x) for x in lines[-1].split())
    except (IndexError, ValueError):
        return 0, 1, 0, problems + ["ktap-count.awk printed no count: %s" % out.strip()[-200:]]
    return p, f, s, problems


def judge(v, run, qemu_status, patterns, manifest=MANIFEST):
    """Fill in V's verdict from what RUN holds after the guest stopped."""
    v.qemu_status = qemu_status
    v.problems = ["%d:%s" % hit for hit in scan(os.path.join(run, "console.log"), patterns)]
    with open(os.path.join(run, "ktap.log"), errors="replace") as f:
        ktap = f.read().splitlines()
    done = DONE in ktap
    for line in ktap:
        m = JOB_STATUS.match(line)
        if m:
            v.job_status = int(m.group(1))
    if v.suites:
        # the skips file names a kernel variant with its kernel: debug-6.12
        v.passed, v.failed, v.skipped, v.count_problems = count(run, v.suites, manifest,
                                                                v.variant + KSFX)
        v.not_ok = [ln.strip() for ln in ktap if ln.lstrip().startswith("not ok")]
    console = shown(os.path.join(run, "console.log"))
    if v.problems:
        v.status, v.reason = "kernel-problem", "the guest kernel reported a problem"
    elif qemu_status is None:
        v.status, v.reason = "timeout", "the guest timed out after %d s" % v.timeout
    elif qemu_status != 0:
        v.status, v.reason = "died", "qemu exited with status %d" % qemu_status
    elif not done:
        v.status, v.reason = "died", "the guest stopped before finishing its job"
    elif v.job_status != 0:
        v.status = "job-failed"
        v.reason = ("the job script exited with status %d" % v.job_status
                    if v.job_status is not None else "the job script reported no exit status")
    elif v.suites and (v.failed or v.count_problems):
        v.status = "tests-failed"
        v.reason = "%d case(s) failed, %d counting problem(s)" % (v.failed, len(v.count_problems))
    else:
        v.status, v.reason = "ok", ""
    if v.status != "ok":
        v.reason += "; console log: " + console
    return v


def write_verdict(v, run):
    d = dataclasses.asdict(v)
    d["exit_code"] = v.exit_code
    with open(os.path.join(run, "verdict.json.new"), "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    os.replace(os.path.join(run, "verdict.json.new"), os.path.join(run, "verdict.json"))


def report(v, run):
    """The verdict on stdout; why it is not ok, and the evidence, on stderr."""
    counts = (", %d passed, %d failed, %d skipped" % (v.passed, v.failed, v.skipped)
              if v.suites else "")
    print("   verdict %s: %s (%.0f s, %.0f s of CPU%s)" % (v.name, v.status, v.seconds,
                                                       v.cpu_seconds, counts), flush=True)
    for line in v.not_ok[:20]:
        print("     " + line)
    for p in v.count_problems:
        print("     count: " + p)
    if v.status == "ok":
        return
    print("error: %s: %s" % (v.name, v.reason), file=sys.stderr)
    for p in v.problems[:10]:
        print("   " + p.split(":", 1)[1], file=sys.stderr)
    if v.status in ("timeout", "died") and not v.problems:
        with open(os.path.join(run, "console.log"), errors="replace") as f:
            for line in f.read().splitlines()[-5:]:
                print("   " + line, file=sys.stderr)


def boot(a):
    check_args(a)
    name = a.name or a.job
    run = os.path.join(RUNS, name)
    logs = LOGS
    os.makedirs(logs, exist_ok=True)
    acc = accel(images(a.variant)[0], logs)
    patterns = console_patterns()
    prepare(run, a.swap, handed(a.args, a.env, a.input))
    argv = qemu_argv(a, run, acc)
    with open(os.path.join(run, "qemu-cmdline"), "w") as f:
        f.write(" ".join(argv) + "\n")
    v = Verdict(name=name, job=a.job, variant=a.variant, timeout=limit(a.timeout, a.variant),
                suites=a.suites.split() if a.suites else [])
    mem = guest_mem(a.mem, a.variant)
    if mem != a.mem:
        mem += " (for %s)" % a.mem
    print("   guest: job=%s accel=%s%s mem=%s cpus=%d swap=%s timeout=%ds log=%s"
          % (a.job, argv[2], " icount=" + a.icount if a.icount else "", mem, a.cpus,
             a.swap, v.timeout, shown(os.path.join(run, "console.log"))),
          flush=True)
    status, v.seconds, v.cpu_seconds = run_qemu(argv, run, v.timeout, a.progress)
    collect(run)
    judge(v, run, status, patterns)
    write_verdict(v, run)
    report(v, run)
    return v.exit_code


def shell(a):
    a.job, a.swap, a.timeout, a.append, a.icount = "shell", "1G", 1, "", ""
    check_args(a)
    run = os.path.join(RUNS, "shell")
    prepare(run, a.swap)
    argv = qemu_argv(a, run, accel(images(a.variant)[0], LOGS))
    print("interactive guest (%s, %s, %d CPUs); 'exit' powers it off" % (argv[2], a.mem, a.cpus))
    return subprocess.run(argv + ["-serial", "mon:stdio", "-serial",
                                  "file:" + os.path.join(run, "ktap.log")]).returncode


def total(runs):
    """Sum the counts of runs' verdicts; a run without one counts 1 failed."""
    p = f = s = 0
    for run in runs:
        try:
            with open(os.path.join(run, "verdict.json")) as fh:
                v = json.load(fh)
            p, f, s = p + v["passed"], f + v["failed"], s + v["skipped"]
        except (OSError, ValueError, KeyError):
            f += 1
    print(p, f, s)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="runner.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("boot", help="boot a job and judge the guest")
    b.add_argument("job", help="a script of harness/guest/jobs/, without .sh")
    b.add_argument("--name", default="")
    b.add_argument("--mem", default="512M")
    b.add_argument("--cpus", type=int, default=2)
    b.add_argument("--swap", default="1G")
    b.add_argument("--timeout", type=int, default=900,
                   help="seconds the default kernel needs (the debug kernel gets %dx)"
                   % SLOW["debug"])
    b.add_argument("--append", default="", help="more kernel command line")
    b.add_argument("--variant", default="default")
    b.add_argument("--icount", default="", help="QEMU -icount suboptions (TCG only)")
    b.add_argument("--suites", default="", help="the suites the job runs: count their KTAP")
    b.add_argument("--args", default="", help="the job's arguments (AWS_ARGS in the guest)")
    b.add_argument("--env", default="", help="CYCLES=8,FLIPS=pairs: settings for the guest suites (GUEST_SETTINGS)")
    b.add_argument("--input", action="append", default=[],
                   help="a file the guest finds in /tmp/input (by its base name)")
    b.add_argument("--progress", action="store_true", help="echo the guest's '# ' lines")
    s = sub.add_parser("shell", help="interactive guest on this terminal")
    s.add_argument("--mem", default="512M")
    s.add_argument("--cpus", type=int, default=2)
    s.add_argument("--variant", default="default")
    k = sub.add_parser("accel", help="print kvm or tcg")
    k.add_argument("--variant", default="default")
    c = sub.add_parser("scan", help="kernel problems on consoles")
    c.add_argument("files", nargs="+")
    t = sub.add_parser("total", help="sum the counts of runs' verdicts")
    t.add_argument("runs", nargs="+")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "boot":
            return boot(a)
        if a.cmd == "shell":
            return shell(a)
        if a.cmd == "accel":
            print(accel(images(a.variant)[0], LOGS))
            return 0
        if a.cmd == "scan":
            patterns, found = console_patterns(), False
            for path in a.files:
                for i, line in scan(path, patterns):
                    print("%s:%d:%s" % (path, i, line))
                    found = True
            return 0 if found else 1
        return total(a.runs)
    except SetupError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1 if a.cmd != "scan" else 2
    except OSError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1 if a.cmd != "scan" else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
