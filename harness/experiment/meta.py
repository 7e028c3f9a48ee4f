#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""meta.json of a make run: what made the run folder, read from the sources.

usage: meta.py OUT --plan PLAN [--selection ARGS] --start UTC --jobs N [--shards DIRS]
       meta.py --same DIR...     the shards DIR... come from this tree's sources

make run (harness/experiment/run.py) calls write() once the guests' data
is in OUT (build/results/<timestamp>/), with what only it knows: the plan
and the selection (plan.py's "n=N,only=GLOBS,policies=GLOBS", from ONLY=,
POLICIES= and REPS=), the start (UTC, 2026-12-05T04:46:30Z), JOBS (empty
for a merge) and, for a merge, the shards' folders; and same() before a
merge.  The command line does the same by hand.  The rest is read here,
each from where it comes from:

  OUT/guests/CELL/            one folder per guest (a cell each): its
    guest-info.txt            uname, module hashes and vermagic, which
                              guest (boot main or global), its matrix time
    qemu-cmdline              the runner's: the accelerator, the vCPUs,
                              the command line itself
    images.txt                the kernel variant and version and the sha256
                              of the bzImage and tools image it booted
  the plan (plan.py)          guest-mem, global-guest-mem, swap (the
                              guests' swap disks: the plan's, or a cell's)
  git, dpkg, patches/*/series, the commit and its modified tracked files,
  module/ and include/        linux-source-<kver>'s version, the patches, a
                              hash of the module's sources
  qemu-system-x86_64, uname   the QEMU version and the host

Values every guest shares are given once; where the guests of a merge
differ (images built on two machines), their distinct values are joined
by spaces.  meta.json is json.dump with indent 1; results/README.md gives
its keys (the same, in the same order, as every meta.json in results/).
`--same` compares the shards' meta.json with each other and with this
tree (commit, module sources, patches, kernel package and variant) and
says what differs: a merge is refused then.  Standard library only;
harness/unit/test-results.py tests it on a made-up run.
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
sys.path.insert(0, HERE)
import plan as P  # noqa: E402
import merge  # noqa: E402  harness/experiment/merge.py


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


def patches(kver):
    """The names patches/KVER/series lists, in order (harness/lib.sh's
    patch_series checks the series against patches/KVER/ for the build);
    none, said on stderr, if there is no list."""
    try:
        with open(os.path.join(TOP, "patches", kver, "series")) as f:
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


def guests(out, plan):
    """[(guest, {"info", "boot", "cmdline", "images"})] of OUT/guests/, in
    the plan's order of cells (a split cell's parts in their reps')."""
    got = []
    for c in P.cells(plan):
        for d, _ in merge.cell_guests(out, c, "guest-info.txt"):
            text = read(os.path.join(d, "guest-info.txt"))
            images = dict(line.split(" ", 1) for line in
                          (read(os.path.join(d, "images.txt"), "") or "").splitlines() if " " in line)
            got.append((os.path.basename(d), {
                "info": text, "boot": info([text], "boot") or "main",
                "cmdline": read(os.path.join(d, "qemu-cmdline"), "none"),
                "images": images, "swap": c["swap"]}))
    return got


def tree():
    """(HEAD commit, number of modified tracked files) of this tree."""
    git = ["git", "-C", TOP]
    dirty = subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return out_of(git + ["rev-parse", "HEAD"], "unknown"), len(dirty.splitlines())


def meta(out, plan, selection, start, jobs, shards):
    """The meta.json of run folder OUT, as a dict in the schema's order."""
    header, _ = P.check(plan)
    booted = guests(out, plan)
    if not booted:
        raise SystemExit("error: meta.py: no guests/*/guest-info.txt in %s: no guest ran" % out)
    texts = [g["info"] for _, g in booted]
    kind = {k: [g for _, g in booted if g["boot"] == k] for k in ("main", "global")}

    def each(key):
        """the guests' images.txt KEY: one value, or their distinct ones"""
        vals = []
        for _, g in booted:
            v = g["images"].get(key, "")
            if v not in vals:
                vals.append(v)
        return " ".join(vals)

    def seconds(k):
        s = [float(info([g["info"]], "total_s") or 0) for g in kind[k]]
        return "%.3f" % sum(s) if s else ""

    def first(k, what):
        return kind[k][0][what] if kind[k] else "none"

    # folders from before 6.12 was added name no kernel: theirs was 6.1
    kver = each("kernel") or "6.1"
    pkg = out_of(["dpkg-query", "-W", "-f=${Version}", "linux-source-" + kver])
    if not pkg:
        print("error: linux-source-%s is not installed (run: make deps)" % kver, file=sys.stderr)
    commit, dirty = tree()
    cmd = first("main", "cmdline") if kind["main"] else first("global", "cmdline")
    accel = re.search(r"-accel (\S+)", cmd)
    cpus = re.search(r"-smp (\d+)", cmd)
    u = os.uname()
    names = [c for c, _ in booted]
    sel = P.parse_args(selection or "")
    words = [(var, sel[key]) for var, key in (("ONLY", "only"), ("POLICIES", "policies"),
                                              ("REPS", "n")) if key in sel]
    return {
        "command": ("make merge RESULTS='%s'" % shards if shards else
                    " ".join(["make run PLAN=%s" % plan] + ["%s=%s" % w for w in words])),
        "script": ("python3 harness/experiment/run.py merge %s" % shards if shards else
                   " ".join(["python3 harness/experiment/run.py run --plan %s" % plan] +
                            ["--%s %s" % (var.lower(), v) for var, v in words])),
        "plan": plan,
        "selection": selection or None,
        "date_utc": start,
        "results_dir": "build/results/" + os.path.basename(os.path.normpath(out)),
        "guest_kernel": info(texts, "uname_r") or "",
        "guest_kernel_build": info(texts, "uname_v") or "",
        "kernel_package": "linux-source-%s %s" % (kver, pkg),
        "patches": patches(kver),
        "git_commit": commit,
        "git_tracked_files_modified": dirty,
        "module_srcversion": info(texts, "module_srcversion") or None,
        "module_sha256": info(texts, "module_sha256") or "",
        "module_source_sha256_16": module_source_hash(),
        "module_vermagic": info(texts, "module_vermagic") or "",
        "kernel_variant": each("variant"),
        "bzimage_sha256": each("bzimage_sha256"),
        "tools_image_sha256": each("tools_image_sha256"),
        "qemu": out_of(["qemu-system-x86_64", "--version"]),
        "accel": accel.group(1) if accel else "",
        "guest_mem": header["guest-mem"] if kind["main"] else "none",
        "guest_cpus": int(cpus.group(1)) if cpus else 0,
        "swap": " ".join(sorted({g["swap"] for _, g in booted})),
        "host": "%s %s %s, %d CPUs" % (u.sysname, u.release, u.machine,
                                       len(os.sched_getaffinity(0))),
        "qemu_cmdline": first("main", "cmdline"),
        "guest_matrix_seconds": seconds("main"),
        "global_guest_mem": header["global-guest-mem"] if kind["global"] else "none",
        "qemu_cmdline_global": first("global", "cmdline"),
        "global_guest_matrix_seconds": seconds("global"),
        "console_logs": "build/runs%s/experiment-%s/console.log (not kept in results/)" % (
            "" if kver == "6.1" else "-" + kver, names[0] if len(names) == 1 else "{%s}" % ",".join(names)),
        "jobs": int(jobs) if jobs else None,
        "guests": len(booted),
        "shards": shards.split() if shards else None,
    }


# what the shards of a merge must share with each other and with this tree
SAME = ("git_commit", "module_source_sha256_16", "patches", "kernel_package", "kernel_variant",
        "guest_kernel")


def same(dirs):
    """The differences between the shards DIRS' meta.json and this tree,
    as lines (none: they may be merged)."""
    commit, _ = tree()
    here = {"git_commit": commit, "module_source_sha256_16": module_source_hash(),
            "patches": patches(os.environ.get("KVER", "6.1"))}
    ms = []
    for d in dirs:
        try:
            with open(os.path.join(d, "meta.json")) as f:
                ms.append((d, json.load(f)))
        except (OSError, ValueError) as e:
            return ["%s: no meta.json (%s)" % (d, e)]
    diff = []
    for key in SAME:
        want = here.get(key, ms[0][1].get(key))
        for d, m in ms:
            if m.get(key) != want:
                diff.append("%s: %s %s, %s %s" % (d, key, m.get(key),
                                                  "this tree" if key in here else dirs[0], want))
    return diff


def write(out, plan, selection, start, jobs, shards):
    """OUT/meta.json (meta()'s arguments)."""
    m = meta(out, plan, selection, start, jobs, shards)
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")


def main(argv):
    if argv[:1] == ["--same"]:
        diff = same(argv[1:])
        for line in diff:
            print("error: merge: %s" % line, file=sys.stderr)
        return 1 if diff or not argv[1:] else 0
    a = argparse.ArgumentParser(description="write OUT/meta.json of a make run")
    a.add_argument("out", help="the run folder, build/results/<timestamp>")
    a.add_argument("--plan", required=True)
    a.add_argument("--selection", default="", help="n=N,only=GLOBS,policies=GLOBS, if any")
    a.add_argument("--start", required=True, help="the run's start, UTC")
    a.add_argument("--jobs", required=True, help="JOBS: guests at a time (empty for a merge)")
    a.add_argument("--shards", default="", help="a merge's shards, space-separated")
    a = a.parse_args(argv)
    try:
        write(a.out, a.plan, a.selection, a.start, a.jobs, a.shards)
    except (P.PlanError, OSError, ValueError, KeyError) as e:
        print("error: meta.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
