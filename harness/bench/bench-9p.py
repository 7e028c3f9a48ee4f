#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot-to-result time with the tools on a disk image or shared by 9p.

usage: bench-9p.py [--boots N] [--suites "module workloads"]

The harness ships the guest its scripts, workloads and modules on an ext4
image (harness/images/make-tools-disk.sh, mkfs.ext4 -d) and gets results back
as a tar on a second disk.  QEMU's virtfs could share a host folder instead.
This boots the same suites job both ways, N times each, alternating, and
prints each boot's wall time (QEMU start to exit) and the suites' own times;
the disk's figure also counts building the image.

The 9p boots use a copy of the rootfs whose /sbin/aws-init mounts the
share (tag "tools", 9p2000.L over virtio) instead of /dev/vdb, and the
staging folder make-tools-disk.sh built the image from; everything else
(kernel, command line, memory, the runner's judging) is the runner's.
Needs a built kernel, rootfs and tools disk (make test builds them).
"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "boot"))
import runner  # noqa: E402

INIT_9P = """#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
if mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 tools /mnt/tools &&
	[ -x /mnt/tools/guest/init.sh ]; then
	exec /mnt/tools/guest/init.sh
fi
echo "aws-init: FATAL: cannot mount the 9p share 'tools'" >/dev/console
echo o >/proc/sysrq-trigger
sleep 10
"""


def main(argv):
    boots = int(argv[argv.index("--boots") + 1]) if "--boots" in argv else 3
    suites = argv[argv.index("--suites") + 1] if "--suites" in argv else "module workloads"
    build, logs = runner.BUILD, os.path.join(runner.BUILD, "logs")
    stage = os.path.join(build, "tools-default")
    kernel = runner.images("default")[0]
    acc = runner.accel(kernel, logs)
    rootfs9p = os.path.join(build, "rootfs-9p.img")
    shutil.copyfile(os.path.join(build, "rootfs.img"), rootfs9p)
    init = os.path.join(build, "aws-init-9p")
    with open(init, "w") as f:
        f.write(INIT_9P)
    cmds = os.path.join(build, "aws-init-9p.debugfs")
    with open(cmds, "w") as f:
        f.write("cd /usr/sbin\nrm aws-init\nwrite %s aws-init\n"
                "set_inode_field aws-init mode 0100755\n" % init)
    subprocess.run(["debugfs", "-w", "-f", cmds, rootfs9p], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    check = subprocess.run(["debugfs", "-R", "cat /sbin/aws-init", rootfs9p],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    if check != INIT_9P:
        print("error: could not put the 9p init into %s" % rootfs9p, file=sys.stderr)
        return 1
    t0 = time.monotonic()
    subprocess.run(["bash", os.path.join(runner.HARNESS, "images", "make-tools-disk.sh"), "default"],
                   check=True)
    mkfs = time.monotonic() - t0
    print("tools image built in %.1f s (make-tools-disk.sh)" % mkfs)
    args = runner.argparse.Namespace(job="suites", mem="512M", cpus=2, swap="1G", timeout=600,
                                     append="", variant="default", icount="")
    rows = []
    for b in range(boots):
        for way in ("disk", "9p"):
            run = os.path.join(build, "runs", "bench-9p-" + way)
            runner.prepare(run, args.swap, runner.handed(args=suites))
            argv_q = runner.qemu_argv(args, run, acc)
            if way == "9p":
                i = argv_q.index("file=%s,if=virtio,format=raw,snapshot=on"
                                 % os.path.join(build, "rootfs.img"))
                argv_q[i] = "file=%s,if=virtio,format=raw,snapshot=on" % rootfs9p
                j = argv_q.index("file=%s,if=virtio,format=raw,readonly=on"
                                 % os.path.join(build, "tools-default.img"))
                # keep vdc/vdd where the guest expects them: an empty disk as vdb
                empty = os.path.join(run, "empty.img")
                subprocess.run(["truncate", "-s", "1M", empty], check=True)
                argv_q[j] = "file=%s,if=virtio,format=raw,readonly=on" % empty
                argv_q += ["-virtfs", "local,path=%s,mount_tag=tools,security_model=none,"
                           "readonly=on" % stage]
            status, secs, _ = runner.run_qemu(argv_q, run, 600, False)
            runner.collect(run)
            v = runner.Verdict(name="bench-9p-" + way, job="suites", variant="default",
                               timeout=600, suites=suites.split())
            runner.judge(v, run, status, runner.console_patterns())
            with open(os.path.join(run, "ktap.log")) as f:
                times = [ln.strip()[2:] for ln in f if ln.startswith("    # ") and
                         ln.rstrip().endswith(" s") and ":" in ln]
            rows.append((way, b + 1, secs, v.status, " ".join(times)))
            print("boot %d %-4s %6.1f s  %s  %s" % (b + 1, way, secs, v.status, " ".join(times)),
                  flush=True)
    for way in ("disk", "9p"):
        t = sorted(r[2] for r in rows if r[0] == way)
        print("%-4s median %.1f s (min %.1f, max %.1f) over %d boots%s"
              % (way, t[len(t) // 2], t[0], t[-1], len(t),
                 ", + %.1f s to build the image" % mkfs if way == "disk" else ""))
    return 0 if all(r[3] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
