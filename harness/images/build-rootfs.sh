#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest root filesystem image build/rootfs.img: a debootstrap
# --variant=minbase bookworm with the few tools the guest suites need (kmod
# for insmod/rmmod, procps, stress-ng, trace-cmd for the module's trace
# events, and the real programs of the real-program cells: sqlite3 for
# aws-sqlite, redis-server and redis-tools for aws-redis), an unprivileged
# user 'aws' (uid 1000) for the permission tests, and a tiny PID-1 stub that
# hands over to the scripts on the tools disk.  No service of those
# packages ever starts: debootstrap configures them behind a policy-rc.d
# that refuses every start, and the guest boots /sbin/aws-init, not an init
# system (aws-redis runs a redis-server of its own, aws-pgbench a cluster).  The image is made
# with mkfs.ext4 -d (no loop mount).  It is rebuilt only when this script
# changes; the guest scripts, workloads and module travel on the separate
# tools disk (harness/images/make-tools-disk.sh).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

IMG=$AWS_BUILD/rootfs.img
DIR=$AWS_BUILD/rootfs
PKGS=kmod,procps,stress-ng,trace-cmd,sqlite3,redis-server,redis-tools,postgresql-15,postgresql-client-15
key=$(hash_files "$0")
MIRROR=${AWS_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

if [ -f "$IMG" ] && [ "$(cat "$IMG.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
command -v debootstrap >/dev/null || die "debootstrap missing (run: make deps)"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 missing (run: make deps)"
[ "$(id -u)" = 0 ] || die "debootstrap needs root"

stage "rootfs: debootstrap --variant=minbase bookworm (+$PKGS) from $MIRROR"
rm -rf "$DIR" "$IMG" "$IMG.key"
debootstrap --variant=minbase --include="$PKGS" bookworm "$DIR" "$MIRROR" \
	>"$AWS_LOGS/debootstrap.log" 2>&1 &
pid=$!
progress "$AWS_LOGS/debootstrap.log" $pid debootstrap
wait $pid || { tail -n 20 "$AWS_LOGS/debootstrap.log" >&2; die "debootstrap failed, see $AWS_LOGS/debootstrap.log"; }
stage_done

stage "rootfs: configure and make ext4 image"
chroot "$DIR" /usr/sbin/useradd -m -u 1000 -s /bin/bash aws
echo anon-ws-guest >"$DIR/etc/hostname"
printf '/dev/vda / ext4 rw 0 1\n' >"$DIR/etc/fstab"
rm -rf "$DIR"/var/cache/apt/archives/*.deb "$DIR"/var/lib/apt/lists/*
mkdir -p "$DIR/mnt/tools" "$DIR/mnt/results"
# PID 1: mount the pseudo file systems and the tools disk, then hand over.
cat >"$DIR/sbin/aws-init" <<'INIT'
#!/bin/sh
# anon-workingset guest PID 1 stub: everything else lives on the tools disk.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
if mount -o ro /dev/vdb /mnt/tools && [ -x /mnt/tools/guest/init.sh ]; then
	exec /mnt/tools/guest/init.sh
fi
echo "aws-init: FATAL: cannot mount the tools disk /dev/vdb" >/dev/console
echo o >/proc/sysrq-trigger
sleep 10
INIT
chmod 755 "$DIR/sbin/aws-init"
mkfs.ext4 -q -F -L aws-root -d "$DIR" "$IMG" 1G >"$AWS_LOGS/mkfs-rootfs.log" 2>&1 ||
	die "mkfs.ext4 failed, see $AWS_LOGS/mkfs-rootfs.log"
echo "$key" >"$IMG.key"
stage_done "$(du -sm "$DIR" | cut -f1) MB tree"
