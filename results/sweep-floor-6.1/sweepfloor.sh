#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scratch (not committed): how many of the swapped, out-of-swap-cache
# pages the load and unload sweeps drop, N times in one boot.
. "$AWS_TOOLS/guest/lib.sh"
SHM=/mnt/aws-shm
CG=/sys/fs/cgroup
FILE_MB=32
LIMIT=12M
mkdir -p "$SHM" && mount -t tmpfs -o size=512m aws-shm "$SHM"
echo +memory >$CG/cgroup.subtree_control
shm_fill() { head -c $((FILE_MB << 20)) /dev/zero | tr '\0' a >"$1"; }
shm_write() {
	mkdir -p "$CG/$1" && echo "$LIMIT" >"$CG/$1/memory.max"
	(echo $BASHPID >"$CG/$1/cgroup.procs" && shm_fill "$SHM/$1")
	echo max >"$CG/$1/memory.max"
}
shm_drop() { rm -f "$SHM/$1"; rmdir "$CG/$1"; }
mod_unload
for i in $(seq 1 "${AWS_N:-20}"); do
	nr0=$(vmstat workingset_nodereclaim)
	shm_write load
	old=$(($(cat $CG/load/memory.swap.current) / 4096))
	memcg_stats_flushed
	slots=$(($(cat $CG/load/memory.swap.current) / 4096))
	cached=$(($(cg_stat load swapcached) / 4096))
	insmod "$AWS_MOD" policy=detect
	gone=$((64 * ($(vmstat workingset_nodereclaim) - nr0)))
	dropped=$(dmesg | sed -n 's/.*anon_workingset: policy detect.*, \([0-9]*\) stock shadows dropped.*/\1/p' | tail -n 1)
	echo "# sweep load $i old $old slots $slots cached $cached gone $gone dropped $dropped"
	shm_drop load
	shm_write unload
	old=$(($(cat $CG/unload/memory.swap.current) / 4096))
	memcg_stats_flushed
	slots=$(($(cat $CG/unload/memory.swap.current) / 4096))
	cached=$(($(cg_stat unload swapcached) / 4096))
	rmmod anon_workingset
	dropped=$(dmesg | sed -n 's/.*anon_workingset: unloaded, \([0-9]*\) shadows dropped.*/\1/p' | tail -n 1)
	echo "# sweep unload $i old $old slots $slots cached $cached gone 0 dropped $dropped"
	shm_drop unload
done
ok sweepfloor_ran
ktap_end
