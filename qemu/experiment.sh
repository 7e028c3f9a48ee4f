#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run [PLAN=short|full]`: the policy experiment.  Boots ONE guest that
# runs the whole policies x workloads matrix (qemu/guest/plans/experiment.sh),
# then copies the raw data to results/<UTC timestamp>/, post-processes it
# with qemu/results.py (CSV, JSON, PNG, the terminal table), writes meta.json
# (exact command, kernel, package, module and git versions) and points
# results/latest at the new directory.
#
# Fails (non-zero exit, message on stderr) if the guest run fails, if any
# workload exits non-zero or reports verify_fail != 0, or if a cell of the
# matrix has no data; in the last two cases the data is kept in
# results/<timestamp>/ (marked by a FAILED file) but results/latest is not
# moved.
#
# For a quick look at part of the matrix, AWS_RUN_ARGS is appended to the
# guest's arguments, e.g.
#   AWS_RUN_ARGS='n=1,only=thrash-*,policies=protect:detect' make run
set -uo pipefail
. "$(dirname "$0")/lib.sh"

PLAN=${1:-short}
VARIANT=${VARIANT:-default}
EXTRA=${AWS_RUN_ARGS:-}
case $PLAN in
short) TIMEOUT=${AWS_RUN_TIMEOUT:-2400} ;;
full) TIMEOUT=${AWS_RUN_TIMEOUT:-14400} ;;
*) die "unknown plan '$PLAN' (PLAN=short or PLAN=full)" ;;
esac
MEM=512M CPUS=2 SWAP=1G
NAME=experiment
RUN=$AWS_BUILD/runs/$NAME
T0=$SECONDS
START_UTC=$(date -u +%Y-%m-%dT%H:%M:%SZ)
TS=$(date -u +%Y%m%dT%H%M%SZ)
ARGS="$PLAN${EXTRA:+,$EXTRA}"

command -v python3 >/dev/null || die "python3 missing"
python3 -c 'import matplotlib' 2>/dev/null || die "python3-matplotlib missing (run: make deps)"

stage "guest: experiment plan '$PLAN' (aws.args=$ARGS), one boot"
# The guest prints '# ' progress lines on its clean channel (ktap.log); show
# them as they come.  Polling by line count (not tail -F) because run-guest.sh
# rewrites the file in place when the guest has finished.
rm -rf "$RUN"
bash "$AWS_TOP/qemu/run-guest.sh" --plan experiment --name "$NAME" --mem $MEM --cpus $CPUS \
	--swap $SWAP --variant "$VARIANT" --timeout "$TIMEOUT" --append "aws.args=${ARGS// /,}" &
gpid=$!
shown=0
show_progress() {
	local n
	[ -f "$RUN/ktap.log" ] || return 0
	n=$(wc -l <"$RUN/ktap.log")
	[ "$n" -gt "$shown" ] || return 0
	sed -n "$((shown + 1)),${n}p" "$RUN/ktap.log" | tr -d '\r' | grep '^# ' | sed 's/^/   /'
	shown=$n
}
while kill -0 $gpid 2>/dev/null; do
	sleep 2
	show_progress
done
wait $gpid
grc=$?
show_progress
stage_done "guest exit status $grc"

if [ $grc != 0 ] || [ ! -s "$RUN/results/runs.tsv" ]; then
	case $grc in
	2) why="the guest kernel reported a problem (panic, oops, WARN, lockup)" ;;
	3) why="the guest timed out or stopped before finishing its plan" ;;
	0) why="the guest wrote no runs.tsv" ;;
	*) why="run-guest.sh failed (exit status $grc)" ;;
	esac
	echo "error: make run: $why; console log: ${RUN#$AWS_TOP/}/console.log," \
		"partial data in ${RUN#$AWS_TOP/}/results/" >&2
	exit 1
fi

stage "results: results/$TS"
OUT=$AWS_TOP/results/$TS
mkdir -p "$OUT"
cp "$RUN/results/"{runs.tsv,matrix.tsv,guest-info.txt,results.txt} "$OUT/"
# The workloads' stderr is small (a few lines per run); cap it all the same.
head -c 2000000 "$RUN/results/workloads.log" >"$OUT/workloads.log"
grep '^# ' "$RUN/ktap.log" | tr -d '\r' >"$OUT/progress.txt"

gi() { sed -n "s/^$1 //p" "$OUT/guest-info.txt" | head -n 1; }
git_commit=$(git -C "$AWS_TOP" rev-parse HEAD 2>/dev/null || echo unknown)
git_dirty=$(git -C "$AWS_TOP" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
export M_COMMAND="make run PLAN=$PLAN${EXTRA:+ AWS_RUN_ARGS=$EXTRA}"
export M_SCRIPT="bash qemu/experiment.sh $PLAN"
export M_PLAN=$PLAN M_ARGS=$ARGS M_DATE=$START_UTC M_TS=$TS
export M_GUEST_UNAME=$(gi uname_r) M_GUEST_UNAME_V=$(gi uname_v)
export M_PKG="linux-source-6.1 $(kernel_pkg_version)"
export M_GIT=$git_commit M_GIT_DIRTY=$git_dirty
export M_MOD_SRCVERSION=$(gi module_srcversion) M_MOD_FILE_SRCVERSION=$(gi module_file_srcversion)
export M_MOD_VERMAGIC=$(gi module_vermagic)
export M_QEMU="$(qemu-system-x86_64 --version | head -n 1)"
export M_QEMU_CMD="$(cat "$RUN/qemu-cmdline")"
export M_ACCEL=$(sed -n 's/.*-accel \([^ ]*\).*/\1/p' "$RUN/qemu-cmdline")
export M_MEM=$MEM M_CPUS=$CPUS M_SWAP=$SWAP M_VARIANT=$VARIANT
export M_HOST="$(uname -srm), $(nproc) CPUs"
export M_GUEST_S=$(gi total_s) M_CONSOLE="build/runs/$NAME/console.log"
export M_PATCHES="$(patch_series | xargs -r -n1 basename | tr '\n' ' ')"
python3 - "$OUT/meta.json" <<'EOF'
import json, os, sys
e = os.environ
meta = {
    "command": e["M_COMMAND"], "script": e["M_SCRIPT"], "plan": e["M_PLAN"],
    "guest_args": e["M_ARGS"], "date_utc": e["M_DATE"], "results_dir": "results/" + e["M_TS"],
    "guest_kernel": e["M_GUEST_UNAME"], "guest_kernel_build": e["M_GUEST_UNAME_V"],
    "kernel_package": e["M_PKG"], "patches": e["M_PATCHES"].split(),
    "git_commit": e["M_GIT"], "git_tracked_files_modified": int(e["M_GIT_DIRTY"]),
    "module_srcversion": e["M_MOD_SRCVERSION"],
    "module_file_srcversion": e["M_MOD_FILE_SRCVERSION"],
    "module_vermagic": e["M_MOD_VERMAGIC"], "kernel_variant": e["M_VARIANT"],
    "qemu": e["M_QEMU"], "accel": e["M_ACCEL"], "guest_mem": e["M_MEM"],
    "guest_cpus": int(e["M_CPUS"]), "swap": e["M_SWAP"], "host": e["M_HOST"],
    "qemu_cmdline": e["M_QEMU_CMD"], "guest_matrix_seconds": e["M_GUEST_S"],
    "console_log": e["M_CONSOLE"] + " (not kept in results/)",
}
with open(sys.argv[1], "w") as f:
    json.dump(meta, f, indent=1)
    f.write("\n")
EOF
[ -s "$OUT/meta.json" ] || die "could not write $OUT/meta.json"

python3 "$AWS_TOP/qemu/results.py" "$OUT"
prc=$?
stage_done
if [ $prc != 0 ]; then
	echo "results.py exit status $prc" >"$OUT/FAILED"
	echo "error: make run: the runs above failed or are incomplete; data kept in" \
		"results/$TS/ (results/latest not moved); console: build/runs/$NAME/console.log" >&2
	exit 1
fi
ln -sfn "$TS" "$AWS_TOP/results/latest"
echo "== make run: $((SECONDS - T0)) s wall; results/$TS (results/latest):" \
	"table.txt, runs.csv/json, summary.csv/json, meta.json, *.png"
