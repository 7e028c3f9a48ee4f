#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run [PLAN=short|full|seed|heldout|alike|sample] [JOBS=N]`: the policy
# experiment.  The plan is a data file, harness/experiment/plans/PLAN.plan
# (its cells: memory limit, policies, command, question; its repetitions,
# time limit and guest sizes).  Every cell runs in a guest of its own, a
# complete, independent boot with its own swap disk (the guest job
# harness/guest/jobs/experiment.sh, with the table of that one cell that
# harness/experiment/plan.py selects), at most JOBS guests at a time (the
# host's cores by default: TCG runs a guest on one host thread), the
# costliest cells first (plan.py units).  Inside a cell the runs stay
# interleaved across policies (rep 1 of every policy, then rep 2, ...).  A
# memcg-limited cell boots the plan's guest-mem guest; a global-pressure
# cell the global-guest-mem one, whose whole memory it uses.
#
# Each guest's data goes to build/results/<UTC timestamp>/guests/CELL/
# (never to a tracked file); then harness/experiment/meta.py writes
# meta.json (the exact command, kernel, package, module and git versions),
# harness/experiment/opt.py derives each run's page-access trace and its
# OPT and LRU swap-ins on the host (opt.csv; the workload binaries of the
# tools disk and aws-sim, run on this host: no kernel code),
# harness/experiment/results.py turns the guests' runs into the table of
# runs (runs.csv), the summary, the PNGs and the terminal table (and, for a
# sample of the workload distribution, harness/experiment/sample.py states
# the goals), and build/results/latest points at the new directory.
# docs/results.md says which of its files to copy to results/ when a
# document cites the run.
#
# Fails (non-zero exit, message on stderr) if a guest fails (its cell's data
# is lost, the others' kept), if any workload exits non-zero or reports
# verify_fail != 0, or if a cell has no data; the data is kept in
# build/results/<timestamp>/ (marked by a FAILED file) and
# build/results/latest is not moved.  A folder whose guests failed is
# completed with AWS_RUN_RESUME=<timestamp> make run, which boots only the
# missing cells' guests (with the same kernel and tools images: checked).
#
# For a quick look at part of the matrix, AWS_RUN_ARGS selects from the
# plan, e.g.
#   AWS_RUN_ARGS='n=1,only=thrash-*,policies=protect:detect' make run
# and AWS_RUN_NAME=NAME names the folder build/results/NAME instead.  A
# run that takes longer than AWS_RUN_LIMIT seconds (900; the debug kernel
# gets its slowness factor times that) is killed and counted failed, and
# its guest goes on with the next run.
#
# Across machines (docs/experiment.md): each machine runs a shard of the
# cells (AWS_RUN_ARGS=only=...), and
#   bash harness/experiment.sh --merge build/results/A build/results/B ...
# (make merge RESULTS='A B ...') puts the shards' guests into one new
# results folder and makes its table, as if one run had made them all.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

VARIANT=${VARIANT:-default}
CPUS=2
RESULTS=$AWS_BUILD/results
OPTCACHE=$AWS_BUILD/opt-cache
PLANPY=$AWS_TOP/harness/experiment/plan.py
T0=$SECONDS
PY=$(aws_python) || die "no python3 with pandas and matplotlib (run: make deps)"
[ -z "${AWS_RUN_GLOBAL:-}" ] ||
	echo "note: AWS_RUN_GLOBAL is gone: a guest none of whose cells is selected does not boot" >&2

# One make run (or merge) at a time in a tree: they would share the run
# folders build/runs/experiment-CELL and the snapshot.  JOBS spreads one
# run over the cores.
mkdir -p "$RESULTS"
exec 9>"$AWS_BUILD/experiment.lock"
flock -n 9 || die "another make run or merge is running in this tree (lock: ${AWS_BUILD#"$AWS_TOP"/}/experiment.lock);" \
	"wait for it (JOBS=N spreads one run over N cores)"

# new_out: a new results folder named by the UTC time (or AWS_RUN_NAME),
# in OUT and TS
new_out() {
	if [ -n "${AWS_RUN_NAME:-}" ]; then
		if ! [[ $AWS_RUN_NAME =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || [ "$AWS_RUN_NAME" = latest ]; then
			die "AWS_RUN_NAME='$AWS_RUN_NAME': letters, digits, '.', '_' and '-' only, not 'latest'"
		fi
		TS=$AWS_RUN_NAME OUT=$RESULTS/$AWS_RUN_NAME
		mkdir "$OUT" 2>/dev/null ||
			die "AWS_RUN_NAME=$AWS_RUN_NAME: build/results/$AWS_RUN_NAME exists already; choose another name"
		return 0
	fi
	while :; do
		TS=$(date -u +%Y%m%dT%H%M%SZ) OUT=$RESULTS/$TS
		mkdir "$OUT" 2>/dev/null && return 0
		sleep 1
	done
}
# runval KEY [DIR]: a value of DIR's (OUT's) run.txt: the plan, selection,
# start and JOBS it was made with
runval() { sed -n "s/^$1 //p" "${2:-$OUT}/run.txt"; }
# plan_cells PLAN: its cells, in its order
plan_cells() { sed -n 's/^cell  *//p' "$AWS_TOP/harness/experiment/plans/$1.plan"; }

# report: the guests' data in $OUT/guests/CELL/ into the run's files
# (runs.tsv, matrix.tsv, guest-info*.txt, workloads.log, progress.txt, the
# plan), then meta.json, OPT, the table, the simulator beside the guest and,
# for a sample of the workload distribution, the goals.  Sets PRC: 0 if the
# table has every cell and run, 1 if not.
report() {
	local dirs=() c g main='' glob=''
	for c in $(plan_cells "$PLAN"); do
		g=$OUT/guests/$c
		[ -f "$g/runs.tsv" ] || continue
		dirs+=("$g")
		if grep -qx 'boot global' "$g/guest-info.txt"; then
			[ -n "$glob" ] || glob=$g
		else
			[ -n "$main" ] || main=$g
		fi
	done
	PRC=1
	[ ${#dirs[@]} -gt 0 ] || { echo "error: make run: no guest wrote data" >&2; return; }
	for f in runs.tsv matrix.tsv progress.txt; do
		cat "${dirs[@]/%//$f}" >"$OUT/$f"
	done
	# the workloads' stderr is small (a few lines per run); cap it all the same
	cat "${dirs[@]/%//workloads.log}" | head -c 2000000 >"$OUT/workloads.log"
	rm -f "$OUT"/guest-info*.txt
	# one guest of each kind: the others booted the same images (meta.py
	# reads them all)
	[ -z "$main" ] || cp "$main/guest-info.txt" "$OUT/guest-info.txt"
	[ -z "$glob" ] || cp "$glob/guest-info.txt" "$OUT/guest-info-global.txt"
	cp "$AWS_TOP/harness/experiment/plans/$PLAN.plan" "$OUT/"
	python3 "$AWS_TOP/harness/experiment/meta.py" "$OUT" --plan "$PLAN" --selection "$EXTRA" \
		--start "$START_UTC" --jobs "$JOBS" ${SHARDS:+--shards "$SHARDS"}
	[ -s "$OUT/meta.json" ] || { echo "error: could not write $OUT/meta.json" >&2; return; }
	# OPT, LRU and the simulator's policies for each cell's trace: a few
	# seconds (cached in build/opt-cache).  A failure leaves every x OPT
	# "n/a (why)" in the table, not the run failed.
	"$PY" "$AWS_TOP/harness/experiment/opt.py" "$OUT" --bin "$BIN" --cache "$OPTCACHE" ||
		echo "warning: harness/experiment/opt.py failed: the table shows no OPT" >&2
	"$PY" "$AWS_TOP/harness/experiment/results.py" "$OUT" --best-of nomod,mglru
	PRC=$?
	# the simulator beside the guest (calib.txt, calib.csv): a measurement
	if [ -s "$OUT/runs.csv" ] && [ -s "$OUT/opt.csv" ]; then
		echo
		"$PY" "$AWS_TOP/harness/experiment/calibrate.py" "$OUT" ||
			echo "warning: harness/experiment/calibrate.py failed: no calib.txt" >&2
	fi
	# a sample of the workload distribution (PLAN=sample: every cell runs
	# aws-instance): the goals, judged on the guest's runs; a cell it cannot
	# judge fails the run
	if [ $PRC = 0 ] && ! grep '^run ' "$OUT/$PLAN.plan" | grep -qv '^run aws-instance '; then
		echo
		"$PY" "$AWS_TOP/harness/experiment/sample.py" "$OUT" --sim "$BIN/aws-sim" || PRC=$?
	fi
}

# finish: the verdict of the folder $OUT: latest moved to it, or FAILED
# written and the lost cells named, with the command that completes them
finish() {
	local lost=''
	[ -s "$OUT/failed" ] && lost=$(cut -f1 "$OUT/failed" | tr '\n' ' ')
	if [ $PRC != 0 ] || [ -n "$lost" ]; then
		echo "results.py or sample.py exit status $PRC; cells whose guest failed: ${lost:-none}" >"$OUT/FAILED"
		if [ -n "$lost" ]; then
			echo "error: make run: the guests of these cells failed, their data is lost:" >&2
			sed 's/^/   /' "$OUT/failed" >&2
			echo "   the other cells' data is in build/results/$TS/; boot only the lost ones with:" \
				"AWS_RUN_RESUME=$TS make run" >&2
		fi
		echo "error: make run: the runs above failed or are incomplete; data kept in" \
			"build/results/$TS/ (build/results/latest not moved)" >&2
		exit 1
	fi
	ln -sfn "$TS" "$RESULTS/latest"
	echo "== make run: $((SECONDS - T0)) s wall; build/results/$TS (build/results/latest):" \
		"table.txt, runs.csv, summary.csv, meta.json, *.png"
}

# ---- merge: shards made on other machines into one folder ----------------
if [ "${1:-}" = --merge ]; then
	shift
	[ $# -ge 1 ] || die "usage: bash harness/experiment.sh --merge RESULTS-DIR... (make merge RESULTS='DIR...')"
	PLAN='' EXTRA='' SHARDS='' JOBS='' START_UTC=''
	new_out
	# a merge refused leaves no folder behind
	trap 'rm -rf "$OUT"' EXIT
	mkdir "$OUT/guests"
	for d in "$@"; do
		d=${d%/}
		[ -d "$d" ] || d=$RESULTS/$d
		if [ ! -f "$d/run.txt" ] || [ ! -d "$d/guests" ]; then
			die "merge: $d is not a make run folder with guests/ and run.txt (made by a make run older than JOBS?)"
		fi
		[ ! -s "$d/failed" ] ||
			die "merge: $d lost cells ($(cut -f1 "$d/failed" | tr '\n' ' ')); complete it first (AWS_RUN_RESUME)"
		p=$(runval plan "$d") sel=$(runval selection "$d")
		[ -z "$PLAN" ] || [ "$p" = "$PLAN" ] || die "merge: $d ran plan '$p', the first shard '$PLAN'"
		# the shards may select different cells, not different reps or policies
		rest=$(tr ',' '\n' <<<"$sel" | grep -v '^only=' | paste -sd, -)
		[ -z "$PLAN" ] || [ "$rest" = "$REST" ] ||
			die "merge: $d ran with AWS_RUN_ARGS '$rest' but for only=, the first shard with '$REST'"
		PLAN=$p REST=$rest
		[ -n "$START_UTC" ] || START_UTC=$(runval start "$d")
		for g in "$d"/guests/*/; do
			g=${g%/} c=${g##*/}
			[ ! -e "$OUT/guests/$c" ] || die "merge: cell $c is in two shards (the second: $d)"
			cp -r "$g" "$OUT/guests/$c"
		done
		SHARDS+="${SHARDS:+ }${d#"$AWS_TOP"/}"
	done
	EXTRA=$REST
	printf 'plan %s\nselection %s\nstart %s\njobs %s\nshards %s\n' "$PLAN" "$EXTRA" "$START_UTC" "" \
		"$SHARDS" >"$OUT/run.txt"
	# the shards must have run the same module source at the same commit
	python3 "$AWS_TOP/harness/experiment/meta.py" --same "$@" ||
		die "merge: the shards were not made from the same sources (above); nothing merged"
	trap - EXIT
	BIN=$AWS_BUILD/userspace
	stage "merge: $# shards into build/results/$TS"
	report
	stage_done ""
	finish
	exit 0
fi

# ---- run -----------------------------------------------------------------
[[ ${JOBS:-1} =~ ^[1-9][0-9]*$ ]] || die "JOBS must be a positive number of guests at a time, not '$JOBS'"
[[ ${AWS_RUN_LIMIT:-1} =~ ^[1-9][0-9]*$ ]] ||
	die "AWS_RUN_LIMIT must be the seconds a run may take (900 if not given), not '$AWS_RUN_LIMIT'"
if [ -n "${AWS_RUN_RESUME:-}" ]; then
	TS=${AWS_RUN_RESUME%/} TS=${TS##*/} OUT=$RESULTS/$TS
	[ -f "$OUT/run.txt" ] ||
		die "AWS_RUN_RESUME=$AWS_RUN_RESUME: no build/results/$TS/run.txt (not a make run folder of this version)"
	[ -z "${AWS_RUN_ARGS:-}" ] ||
		die "AWS_RUN_RESUME completes a run with its own selection; leave AWS_RUN_ARGS unset"
	PLAN=$(runval plan) EXTRA=$(runval selection) START_UTC=$(runval start)
	# (make run passes PLAN, short unless told: only another name is refused)
	[ -z "${1:-}" ] || [ "$1" = "$PLAN" ] || [ "$1" = short ] ||
		die "AWS_RUN_RESUME=$TS ran plan '$PLAN', not '$1'"
	mv -f "$OUT/failed" "$OUT/failed.before-resume" 2>/dev/null
	rm -f "$OUT/FAILED"
else
	PLAN=${1:-short} EXTRA=${AWS_RUN_ARGS:-}
	START_UTC=$(date -u +%Y-%m-%dT%H:%M:%SZ)
fi
planget() { python3 "$PLANPY" get "$PLAN" "$1" || exit 1; }
python3 "$PLANPY" check "$PLAN" >/dev/null || exit 1
TIMEOUT=$(planget timeout) GMEM=$(planget global-guest-mem)
MEM=$(planget guest-mem)
# JOBS: the host's cores unless told, and no more guests than its free
# memory holds (each the plan's guest-mem and QEMU's own ~200M)
if [ -z "${JOBS:-}" ]; then
	JOBS=$(nproc)
	fit=$(awk -v m="${MEM%[MG]}" -v u="${MEM: -1}" '/^MemAvailable:/ {
		g = (u == "G" ? m * 1024 : m) + 200; n = int($2 / 1024 / g); print (n < 1 ? 1 : n) }' /proc/meminfo)
	if [ "${fit:-1}" -lt "$JOBS" ]; then
		echo "   note: $JOBS cores, but free memory for $fit guests of $MEM: JOBS=$fit" >&2
		JOBS=$fit
	fi
fi

# The order: the costliest cells first, priced by the newest earlier run of
# the same plan (plan.py units).
TIMES=''
for d in "$RESULTS"/2*/; do
	if [ -s "$d/runs.csv" ] && grep -q "^ \"plan\": \"$PLAN\"," "$d/meta.json" 2>/dev/null; then
		TIMES=${d}runs.csv
	fi
done
UNITS=$(python3 "$PLANPY" units "$PLAN" --args "$EXTRA" ${TIMES:+--times "$TIMES"}) || exit 1
[ -n "$UNITS" ] || die "AWS_RUN_ARGS='$EXTRA' selects no cell of plan '$PLAN'"
[ -n "${AWS_RUN_RESUME:-}" ] || new_out
mkdir -p "$OUT/guests"
printf 'plan %s\nselection %s\nstart %s\njobs %s\n' "$PLAN" "$EXTRA" "$START_UTC" "$JOBS" >"$OUT/run.txt"

# Snapshot what the guests boot -- kernel, rootfs, tools disk (workloads,
# guest scripts, module) -- and the host scripts that boot them.  A make
# test, make tools or kernel rebuild in the same tree during the run would
# otherwise rewrite an image under a running guest (seen: the tools disk
# vanished mid-run), and bash reads a script as it runs it, so an edit of
# a host script during a boot breaks that boot (seen too).  The guests run
# from $SNAP with AWS_BUILD pointing there; their run folders stay in
# build/runs/ (a symlink).
SNAP=$AWS_BUILD/experiment-snapshot
KIMG=kernel$AWS_KSFX-$VARIANT/arch/x86/boot/bzImage
TIMG=tools$AWS_KSFX-$VARIANT.img
# same_workloads: the binaries opt.py runs are the ones on the tools disk
same_workloads() {
	local b
	for b in "$SNAP"/userspace/aws-*; do
		debugfs -R "cat /bin/${b##*/}" "$SNAP/$TIMG" 2>/dev/null | cmp -s - "$b" ||
			return 1
	done
}
snapshot() {
	for _ in 1 2 3; do
		rm -rf "$SNAP"
		mkdir -p "$SNAP/${KIMG%/*}" "$SNAP/logs$AWS_KSFX" "$AWS_RUNS" "$SNAP/harness/boot" \
			"$SNAP/harness/guest/jobs" "$SNAP/userspace"
		cp "$AWS_TOP"/harness/boot/{runner.py,console-patterns} "$SNAP/harness/boot/" &&
			cp "$AWS_TOP/harness/guest/jobs/experiment.sh" "$SNAP/harness/guest/jobs/" || return 1
		ln -s "$AWS_RUNS" "$SNAP/runs$AWS_KSFX"
		[ -f "$AWS_BUILD/accel" ] && cp "$AWS_BUILD/accel" "$SNAP/"
		cp "$AWS_BUILD/$KIMG" "$SNAP/$KIMG" &&
			cp --sparse=always "$AWS_BUILD/rootfs.img" "$SNAP/rootfs.img" &&
			cp "$AWS_BUILD/$TIMG" "$SNAP/$TIMG" &&
			cp "$AWS_BUILD"/userspace/aws-* "$SNAP/userspace/" || return 1
		# a copy taken while someone rewrote an image is caught here
		if e2fsck -fn "$SNAP/$TIMG" >/dev/null 2>&1 &&
			same_workloads &&
			e2fsck -fn "$SNAP/rootfs.img" >/dev/null 2>&1 &&
			cmp -s "$AWS_BUILD/$KIMG" "$SNAP/$KIMG" &&
			cmp -s "$AWS_BUILD/$TIMG" "$SNAP/$TIMG"; then
			return 0
		fi
		sleep 5
	done
	return 1
}
# Probe KVM once, before the guests that boot at the same time.
python3 "$AWS_TOP/harness/boot/runner.py" accel --variant "$VARIANT" >/dev/null ||
	die "could not decide between KVM and TCG (see build/logs/kvm-probe.log)"
snapshot || die "could not take a consistent copy of the kernel, rootfs and tools images (being rebuilt?)"
export AWS_BUILD=$SNAP
BIN=$SNAP/userspace
# what every guest of the folder booted: a resumed run must boot the same
IMAGES=$(printf 'variant %s\nkernel %s\nbzimage_sha256 %s\ntools_image_sha256 %s\n' "$VARIANT" "$AWS_KVER" \
	"$(sha256sum <"$SNAP/$KIMG" | cut -d' ' -f1)" \
	"$(sha256sum <"$SNAP/$TIMG" | cut -d' ' -f1)")
if [ -f "$OUT/images.txt" ]; then
	[ "$IMAGES" = "$(cat "$OUT/images.txt")" ] ||
		die "AWS_RUN_RESUME=$TS: build/results/$TS was made with other images (its images.txt);" \
			"its lost cells cannot be added from this kernel or tools disk: run the plan again"
else
	echo "$IMAGES" >"$OUT/images.txt"
fi

# guest BOOT CELL SWAP: one guest for one cell, with a SWAP swap disk; its data to $OUT/guests/CELL, or
# the cell and its console log to $OUT/failed.  Its lines are shown as they
# come, after the cell's name.
guest() {
	local boot=$1 cell=$2 swap=$3 name=experiment-$2 mem=$MEM kargs='' rc=0 only args
	local in=$SNAP/input/$2 run=$AWS_RUNS/experiment-$2 g=$OUT/guests/$2
	# global reclaim needs a guest whose whole memory is used.  rodata=off:
	# under TCG a page freed from the kernel image's rodata/data gap stalls
	# the vCPU in clear_page_erms for 20+ s when the allocator hands it out
	# (soft lockup panic, reproduced 3 of 3 times, module not loaded);
	# rodata=off keeps those pages out of the allocator.  See docs/results.md.
	[ "$boot" = global ] && mem=$GMEM kargs=rodata=off
	only=$(tr ',' '\n' <<<"$EXTRA" | grep -v '^only=' | paste -sd, -)
	args=${only:+$only,}only=$cell
	mkdir -p "$in"
	if ! python3 "$PLANPY" select "$PLAN" --boot "$boot" --args "$args" >"$in/plan.tsv"; then
		printf '%s\tplan.py select --args %s failed\n' "$cell" "$args" >>"$OUT/failed"
		return 1
	fi
	python3 "$SNAP/harness/boot/runner.py" boot experiment --name "$name" --mem "$mem" \
		--cpus $CPUS --swap "$swap" --variant "$VARIANT" --timeout "$TIMEOUT" --progress \
		--input "$in/plan.tsv" --append "$kargs" ${AWS_RUN_LIMIT:+--env "AWS_RUN_LIMIT=$AWS_RUN_LIMIT"} \
		2>&1 | sed -u "s/^ */   [$cell] /"
	rc=${PIPESTATUS[0]}
	# 4: the job counted failed runs, which results.py reports from the data
	if { [ "$rc" != 0 ] && [ "$rc" != 4 ]; } || [ ! -f "$run/results/runs.tsv" ]; then
		printf '%s\tbuild/%s/%s/console.log (runner exit status %s)\n' "$cell" "${AWS_RUNS##*/}" "$name" "$rc" \
			>>"$OUT/failed"
		return 1
	fi
	rm -rf "$g.part"
	mkdir "$g.part" &&
		cp "$run"/results/{runs.tsv,matrix.tsv,guest-info.txt,workloads.log} "$run"/{qemu-cmdline,verdict.json} \
			"$OUT/images.txt" "$g.part/" &&
		{ grep '^# ' "$run/ktap.log" || true; } >"$g.part/progress.txt" &&
		mv "$g.part" "$g" ||
		printf '%s\tcould not copy build/%s/%s/ to %s\n' "$cell" "${AWS_RUNS##*/}" "$name" "$g" >>"$OUT/failed"
}

N=0 TODO=()
while IFS=$'\t' read -r boot cell swap; do
	N=$((N + 1))
	[ -f "$OUT/guests/$cell/runs.tsv" ] || TODO+=("$boot $cell $swap")
done <<<"$UNITS"
stage "guests: plan '$PLAN'${EXTRA:+ ($EXTRA)}: ${#TODO[@]} of $N cells, a guest each," \
	"$JOBS at a time ($MEM; global pressure: $GMEM)"
for u in "${TODO[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	# shellcheck disable=SC2086 # three words, none with a space
	guest $u &
done
wait
stage_done ""

stage "results: build/results/$TS"
report
stage_done ""
finish
