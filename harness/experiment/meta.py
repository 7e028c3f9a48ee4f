#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""meta.json of a make run: what made the run folder, read from the sources.

usage: meta.py OUT --plan PLAN [--selection ARGS] --start UTC --main RUN --global RUN

harness/experiment.sh calls it once the guests' data is in OUT
(build/results/<timestamp>/), with what only it knows: the plan and the
AWS_RUN_ARGS selection, the start (date -u +%Y-%m-%dT%H:%M:%SZ) and the
run names of the main and the global-pressure guest (build/runs/RUN/).
The rest is read here, each from where it comes from:

  OUT/guest-info.txt,         written by each guest that booted (main,
  OUT/guest-info-global.txt   global): its uname, module hashes and
                              vermagic, its matrix time; a guest that did
                              not boot left none
  the plan (plan.py)          guest-mem, global-guest-mem, swap
  build/runs/RUN/             the runner's verdict.json (the kernel
                              variant) and qemu-cmdline (the accelerator,
                              the vCPUs, the command line itself)
  runner.py's images()        the bzImage and tools image it booted
                              (AWS_BUILD: make run's snapshot), sha256
  git, dpkg, patches/series,  the commit and its modified tracked files,
  module/ and include/        linux-source-6.1's version, the patches, a
                              hash of the module's sources
  qemu-system-x86_64, uname   the QEMU version and the host

meta.json is json.dump with indent 1; results/README.md gives its keys
(the same, in the same order, as every meta.json in results/).  Standard
library only; harness/unit/test-results.py tests it on a made-up run.
"""
import argparse
import glob
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))   # harness/experiment/
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "boot"))
import plan as P  # noqa: E402
import runner  # noqa: E402


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read(path, default=None):
    """PATH's text without its final line breaks; DEFAULT if it is not there."""
    try:
        with open(path) as f:
            return f.read().rstrip("\n")
    except OSError:
        return default


def info(texts, key):
    """The value of the first "KEY VALUE" line of the guest-info TEXTS (as
    written: a trailing space kept), None if none has the key."""
    for text in texts:
        for line in text.splitlines():
            if line.startswith(key + " "):
                return line[len(key) + 1:]
    return None


def out_of(argv, default=""):
    """The first line ARGV prints, DEFAULT if it cannot be run or fails."""
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return default
    return r.stdout.split("\n")[0] if r.returncode == 0 else default


def patches():
    """The names patches/series lists, in order (harness/lib.sh's
    patch_series checks the series against patches/ for the build); none,
    said on stderr, if there is no list."""
    try:
        with open(os.path.join(TOP, "patches", "series")) as f:
            return [ln.strip() for ln in f if ln.strip() and not ln.strip().startswith("#")]
    except OSError as e:
        print("error: meta.py: %s" % e, file=sys.stderr)
        return []


def module_source_hash():
    """sha256 of module/Kbuild, module/*.[ch] and include/*.h in that order,
    its first 16 hex digits: the module declares no MODULE_VERSION, so
    modinfo has no srcversion; this and the module's sha256 stand in."""
    h = hashlib.sha256()
    for path in ([os.path.join(TOP, "module", "Kbuild")] +
                 sorted(glob.glob(os.path.join(TOP, "module", "*.[ch]"))) +
                 sorted(glob.glob(os.path.join(TOP, "include", "*.h")))):
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def meta(out, plan, selection, start, main, glob_):
    """The meta.json of run folder OUT, as a dict in the schema's order."""
    header, _ = P.check(plan)
    guests = {"main": (main, "guest-info.txt"), "global": (glob_, "guest-info-global.txt")}
    # the guests that booted, main first: those that wrote a guest-info
    ginfo = {g: read(os.path.join(out, f)) for g, (_, f) in guests.items()}
    booted = [g for g in guests if ginfo[g] is not None]
    if not booted:
        raise SystemExit("error: meta.py: no guest-info*.txt in %s: no guest ran" % out)
    texts = [ginfo[g] for g in booted]
    runs = {g: os.path.join(runner.BUILD, "runs", guests[g][0]) for g in guests}
    cmdline = {g: read(os.path.join(runs[g], "qemu-cmdline"), "none") if g in booted else "none"
               for g in guests}
    first = cmdline[booted[0]]
    with open(os.path.join(runs[booted[0]], "verdict.json")) as f:
        variant = json.load(f)["variant"]
    kernel, _, tools = runner.images(variant)
    pkg = out_of(["dpkg-query", "-W", "-f=${Version}", "linux-source-6.1"])
    if not pkg:
        print("error: linux-source-6.1 is not installed (run: make deps)", file=sys.stderr)
    git = ["git", "-C", TOP]
    dirty = subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    accel = re.search(r"-accel (\S+)", first)
    cpus = re.search(r"-smp (\d+)", first)
    u = os.uname()

    def seconds(g):
        return (info([ginfo[g]], "total_s") or "") if g in booted else ""

    return {
        "command": "make run PLAN=%s%s" % (plan, " AWS_RUN_ARGS=" + selection if selection else ""),
        "script": "bash harness/experiment.sh %s" % plan,
        "plan": plan,
        "selection": selection or None,
        "date_utc": start,
        "results_dir": "build/results/" + os.path.basename(os.path.normpath(out)),
        "guest_kernel": info(texts, "uname_r") or "",
        "guest_kernel_build": info(texts, "uname_v") or "",
        "kernel_package": "linux-source-6.1 " + pkg,
        "patches": patches(),
        "git_commit": out_of(git + ["rev-parse", "HEAD"], "unknown"),
        "git_tracked_files_modified": len(dirty.splitlines()),
        "module_srcversion": info(texts, "module_srcversion") or None,
        "module_sha256": info(texts, "module_sha256") or "",
        "module_source_sha256_16": module_source_hash(),
        "module_vermagic": info(texts, "module_vermagic") or "",
        "kernel_variant": variant,
        "bzimage_sha256": sha256(kernel),
        "tools_image_sha256": sha256(tools),
        "qemu": out_of(["qemu-system-x86_64", "--version"]),
        "accel": accel.group(1) if accel else "",
        "guest_mem": header["guest-mem"] if "main" in booted else "none",
        "guest_cpus": int(cpus.group(1)) if cpus else 0,
        "swap": header["swap"],
        "host": "%s %s %s, %d CPUs" % (u.sysname, u.release, u.machine,
                                       len(os.sched_getaffinity(0))),
        "qemu_cmdline": cmdline["main"],
        "guest_matrix_seconds": seconds("main"),
        "global_guest_mem": header["global-guest-mem"] if "global" in booted else "none",
        "qemu_cmdline_global": cmdline["global"],
        "global_guest_matrix_seconds": seconds("global"),
        "console_logs": "build/runs/%s/console.log build/runs/%s/console.log (not kept in results/)"
                        % (main, glob_),
    }


def main(argv):
    a = argparse.ArgumentParser(description="write OUT/meta.json of a make run")
    a.add_argument("out", help="the run folder, build/results/<timestamp>")
    a.add_argument("--plan", required=True)
    a.add_argument("--selection", default="", help="AWS_RUN_ARGS, if any")
    a.add_argument("--start", required=True, help="the run's start, UTC")
    a.add_argument("--main", required=True, help="the main guest's run name (build/runs/RUN)")
    a.add_argument("--global", dest="glob", required=True, help="the global guest's run name")
    a = a.parse_args(argv)
    try:
        m = meta(a.out, a.plan, a.selection, a.start, a.main, a.glob)
    except (P.PlanError, runner.SetupError, OSError, ValueError, KeyError) as e:
        print("error: meta.py: %s" % e, file=sys.stderr)
        return 1
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
