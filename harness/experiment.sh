#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run [PLAN=short|full|seed|heldout|alike]`: the policy experiment.
# The plan is a data file, harness/experiment/plans/PLAN.plan (its cells:
# memory limit, policies, command, question; its repetitions, time limit
# and guest sizes).  One guest (512 MB) runs the whole memcg-limited
# policies x workloads matrix in one boot (the guest job
# harness/guest/jobs/experiment.sh); a second guest (the plan's
# global-guest-mem), booted alongside it, runs the global-pressure cells,
# which need a guest whose whole memory is used.
# harness/experiment/plan.py selects each guest's cells (a table) and
# harness/boot/runner.py hands them to it.  The raw data of both goes to
# build/results/<UTC timestamp>/ (never to a tracked file),
# harness/experiment/meta.py writes its meta.json (the exact command,
# kernel, package, module and git versions),
# harness/experiment/opt.py derives each run's page-access trace and its
# OPT and LRU swap-ins on the host (opt.csv; the workload binaries of the
# tools disk and aws-sim, run on this host: no kernel code),
# harness/experiment/results.py turns it into the table of runs
# (runs.csv), the summary, the PNGs and the terminal table (and, for a
# sample of the workload distribution, harness/experiment/sample.py
# states the goals), and
# build/results/latest points at the new directory.  docs/results.md says
# which of its files to copy to results/ when a document cites the run.
#
# Fails (non-zero exit, message on stderr) if a guest run fails, if any
# workload exits non-zero or reports verify_fail != 0, or if a cell of the
# matrix has no data; in the last two cases the data is kept in
# build/results/<timestamp>/ (marked by a FAILED file) but
# build/results/latest is not moved.
#
# For a quick look at part of the matrix, AWS_RUN_ARGS selects from the
# plan, e.g.
#   AWS_RUN_ARGS='n=1,only=thrash-*,policies=protect:detect' make run
# and a guest none of whose cells is selected does not boot.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

PLAN=${1:-short}
VARIANT=${VARIANT:-default}
EXTRA=${AWS_RUN_ARGS:-}
[ -z "${AWS_RUN_GLOBAL:-}" ] ||
	echo "note: AWS_RUN_GLOBAL is gone: a guest none of whose cells is selected does not boot" >&2
CPUS=2
planget() { python3 "$AWS_TOP/harness/experiment/plan.py" get "$PLAN" "$1" || exit 1; }
python3 "$AWS_TOP/harness/experiment/plan.py" check "$PLAN" >/dev/null || exit 1
TIMEOUT=$(planget timeout) SWAP=$(planget swap) GMEM=$(planget global-guest-mem)
MEM=$(planget guest-mem)
NAME=experiment
RUN=$AWS_BUILD/runs/$NAME
RESULTS=$AWS_BUILD/results
OPTCACHE=$AWS_BUILD/opt-cache
T0=$SECONDS
START_UTC=$(date -u +%Y-%m-%dT%H:%M:%SZ)
TS=$(date -u +%Y%m%dT%H%M%SZ)

PY=$(aws_python) || die "no python3 with pandas and matplotlib (run: make deps)"

# Snapshot what the guests boot -- kernel, rootfs, tools disk (workloads,
# guest scripts, module) -- and the host scripts that boot them.  A make
# test, make tools or kernel rebuild in the same tree during the run would
# otherwise rewrite an image under a running guest (seen: the tools disk
# vanished mid-run), and bash reads a script as it runs it, so an edit of
# a host script during a boot breaks that boot (seen too).  The guests run
# from $SNAP with AWS_BUILD pointing there; their run folders stay in
# build/runs/ (a symlink).
SNAP=$AWS_BUILD/experiment-snapshot
KIMG=kernel-$VARIANT/arch/x86/boot/bzImage
# same_workloads: the binaries opt.py runs are the ones on the tools disk
same_workloads() {
	local b
	for b in "$SNAP"/userspace/aws-*; do
		debugfs -R "cat /bin/${b##*/}" "$SNAP/tools-$VARIANT.img" 2>/dev/null | cmp -s - "$b" ||
			return 1
	done
}
snapshot() {
	for _ in 1 2 3; do
		rm -rf "$SNAP"
		mkdir -p "$SNAP/${KIMG%/*}" "$SNAP/logs" "$AWS_BUILD/runs" "$SNAP/harness/boot" \
			"$SNAP/harness/guest/jobs" "$SNAP/userspace"
		cp "$AWS_TOP"/harness/boot/{runner.py,console-patterns} "$SNAP/harness/boot/" &&
			cp "$AWS_TOP/harness/guest/jobs/experiment.sh" "$SNAP/harness/guest/jobs/" || return 1
		ln -s "$AWS_BUILD/runs" "$SNAP/runs"
		[ -f "$AWS_BUILD/accel" ] && cp "$AWS_BUILD/accel" "$SNAP/"
		cp "$AWS_BUILD/$KIMG" "$SNAP/$KIMG" &&
			cp --sparse=always "$AWS_BUILD/rootfs.img" "$SNAP/rootfs.img" &&
			cp "$AWS_BUILD/tools-$VARIANT.img" "$SNAP/tools-$VARIANT.img" &&
			cp "$AWS_BUILD"/userspace/aws-* "$SNAP/userspace/" || return 1
		# a copy taken while someone rewrote an image is caught here
		if e2fsck -fn "$SNAP/tools-$VARIANT.img" >/dev/null 2>&1 &&
			same_workloads &&
			e2fsck -fn "$SNAP/rootfs.img" >/dev/null 2>&1 &&
			cmp -s "$AWS_BUILD/$KIMG" "$SNAP/$KIMG" &&
			cmp -s "$AWS_BUILD/tools-$VARIANT.img" "$SNAP/tools-$VARIANT.img"; then
			return 0
		fi
		sleep 5
	done
	return 1
}
# Probe KVM once, before the two guests that boot at the same time.
python3 "$AWS_TOP/harness/boot/runner.py" accel --variant "$VARIANT" >/dev/null ||
	die "could not decide between KVM and TCG (see build/logs/kvm-probe.log)"
snapshot || die "could not take a consistent copy of the kernel, rootfs and tools images (being rebuilt?)"
export AWS_BUILD=$SNAP

# Each guest's cells: MAIN and GLOBAL say which guests have any.
select_cells() { # select_cells main|global: the table of cells, or MAIN/GLOBAL=0
	local rc=0
	mkdir -p "$SNAP/input-$1"
	python3 "$AWS_TOP/harness/experiment/plan.py" select "$PLAN" --boot "$1" --args "$EXTRA" \
		>"$SNAP/input-$1/plan.tsv" || rc=$?
	case $rc in
	0) return 0 ;;
	3) return 1 ;;
	*) exit 1 ;;
	esac
}
MAIN=1 GLOBAL=1
select_cells main || MAIN=0
select_cells global || GLOBAL=0
[ $MAIN = 1 ] || [ $GLOBAL = 1 ] || die "AWS_RUN_ARGS='$EXTRA' selects no cell of plan '$PLAN'"

# boot NAME MEM main|global [KERNEL-ARGS]: one guest running the experiment,
# its '# ' progress lines shown as they come.  Fails the make run unless the
# guest ran its job to the end on a clean kernel (runner exit status 0, or
# 4: the job counted failed runs, which results.py reports from the data
# kept below) and wrote its runs.
boot() {
	local name=$1 mem=$2 kargs=${4:-} run=$AWS_BUILD/runs/$1 rc=0
	python3 "$SNAP/harness/boot/runner.py" boot experiment --name "$name" --mem "$mem" \
		--cpus $CPUS --swap "$SWAP" --variant "$VARIANT" --timeout "$TIMEOUT" --progress \
		--input "$SNAP/input-$3/plan.tsv" --append "$kargs" || rc=$?
	if { [ $rc != 0 ] && [ $rc != 4 ]; } || [ ! -f "$run/results/runs.tsv" ]; then
		echo "error: make run: the $name guest failed (above) or wrote no runs.tsv;" \
			"partial data in ${run#"$AWS_TOP"/}/results/" >&2
		exit 1
	fi
}

# Global pressure needs a guest whose whole memory is used, so those cells
# run in a second, 128 MB guest, booted at the same time on the host's other
# core (TCG runs each guest on one host thread).  rodata=off: under TCG a
# page freed from the kernel image's rodata/data gap stalls the vCPU in
# clear_page_erms for 20+ s when the allocator hands it out (soft lockup
# panic, reproduced 3 of 3 times, module not loaded); rodata=off keeps those
# pages out of the allocator.  See docs/results.md.
GLOG=$AWS_LOGS/experiment-global.log
rm -rf "$AWS_BUILD/runs/$NAME" "$AWS_BUILD/runs/$NAME-global"
stage "guests: plan '$PLAN'${EXTRA:+ ($EXTRA)}; memcg-limited cells ($MEM guest):" \
	"$([ $MAIN = 1 ] && echo yes || echo none selected); global-pressure cells" \
	"($GMEM guest, alongside): $([ $GLOBAL = 1 ] && echo yes || echo none selected)"
if [ $GLOBAL = 1 ]; then
	boot $NAME-global "$GMEM" global "rodata=off" >"$GLOG" 2>&1 &
	GPID=$!
fi
[ $MAIN = 1 ] && boot $NAME "$MEM" main
if [ $GLOBAL = 1 ]; then
	echo "   -- global-pressure guest ($GMEM):"
	wait "$GPID"
	grc=$?
	sed 's/^/   /' "$GLOG"
	[ $grc = 0 ] || exit 1
fi
stage_done ""

stage "results: build/results/$TS"
OUT=$RESULTS/$TS
mkdir -p "$OUT"
# the guests that booted, main first
GUESTS=()
[ $MAIN = 1 ] && GUESTS+=("$AWS_BUILD/runs/$NAME")
[ $GLOBAL = 1 ] && GUESTS+=("$AWS_BUILD/runs/$NAME-global")
each() { local g; for g in "${GUESTS[@]}"; do cat "$g/$1"; done; }
for f in runs.tsv matrix.tsv; do
	each "results/$f" >"$OUT/$f"
done
[ $MAIN = 1 ] && cp "$RUN/results/guest-info.txt" "$OUT/guest-info.txt"
[ $GLOBAL = 1 ] && cp "$AWS_BUILD/runs/$NAME-global/results/guest-info.txt" \
	"$OUT/guest-info-global.txt"
# The workloads' stderr is small (a few lines per run); cap it all the same.
each results/workloads.log | head -c 2000000 >"$OUT/workloads.log"
each ktap.log | grep '^# ' >"$OUT/progress.txt"
# the plan (results.py prints each cell's question from it)
cp "$AWS_TOP/harness/experiment/plans/$PLAN.plan" "$OUT/"

# meta.json: meta.py reads it from the guest-info files, the plan, the
# runner's run folders and the tree; it is told what only this script knows.
python3 "$AWS_TOP/harness/experiment/meta.py" "$OUT" --plan "$PLAN" --selection "$EXTRA" \
	--start "$START_UTC" --main $NAME --global $NAME-global
[ -s "$OUT/meta.json" ] || die "could not write $OUT/meta.json"

# OPT, LRU and the simulator's policies for each cell's trace: a few
# seconds (cached in build/opt-cache).  A failure leaves every x OPT
# "n/a (why)" in the table, not the run failed.
"$PY" "$AWS_TOP/harness/experiment/opt.py" "$OUT" --bin "$SNAP/userspace" --cache "$OPTCACHE" ||
	echo "warning: harness/experiment/opt.py failed: the table shows no OPT" >&2
"$PY" "$AWS_TOP/harness/experiment/results.py" "$OUT" --best-of nomod,mglru
prc=$?
# the simulator beside the guest (calib.txt, calib.csv): a measurement
if [ -s "$OUT/runs.csv" ] && [ -s "$OUT/opt.csv" ]; then
	echo
	"$PY" "$AWS_TOP/harness/experiment/calibrate.py" "$OUT" ||
		echo "warning: harness/experiment/calibrate.py failed: no calib.txt" >&2
fi
# a sample of the workload distribution (PLAN=sample): the goals, judged
# on the guest's runs; a cell it cannot judge fails the run
if [ $prc = 0 ] && grep -q '^run aws-instance ' "$OUT/$PLAN.plan"; then
	echo
	"$PY" "$AWS_TOP/harness/experiment/sample.py" "$OUT" --sim "$SNAP/userspace/aws-sim" ||
		prc=$?
fi
stage_done ""
if [ $prc != 0 ]; then
	echo "results.py or sample.py exit status $prc" >"$OUT/FAILED"
	echo "error: make run: the runs above failed or are incomplete; data kept in" \
		"build/results/$TS/ (build/results/latest not moved); console: build/runs/$NAME/console.log" >&2
	exit 1
fi
ln -sfn "$TS" "$RESULTS/latest"
echo "== make run: $((SECONDS - T0)) s wall; build/results/$TS (build/results/latest):" \
	"table.txt, runs.csv, summary.csv, meta.json, *.png"
