# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the guest scripts that attach BPF policies (6.12 only): the
# bpf suite, bench-cost and nomod-modes.  A policy is attached by running
# its loader (userspace/bpf/aws-bpf-load, on the tools disk's bpf/) in the
# background; it stays attached while the loader lives.  Sourced after
# lib.sh.

AWS_BPF=$AWS_TOOLS/bpf
declare -A BPF_LOADER
# The longest waits so far, in ms, to put measured figures beside the
# bounds below: bpf_attach's (BPF_ATTACH_MAX_MS) and bpf_module_idle's
# (BPF_IDLE_MAX_MS, and BPF_IDLE_MS for its last call).
BPF_ATTACH_MAX_MS=0 BPF_IDLE_MAX_MS=0 BPF_IDLE_MS=0
bpf_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }

# bpf_policies: the BPF policies on the tools disk (not the programs the
# kernel must refuse or eject), one line, or nothing where there is no loader.
bpf_policies() {
	local f out=
	[ -x "$AWS_BPF/aws-bpf-load" ] || return 0
	for f in "$AWS_BPF"/*.bpf.o; do
		f=${f##*/}
		[[ $f == refused-* || $f == ejected-* ]] || out+="${out:+ }${f%.bpf.o}"
	done
	echo "$out"
}
# bpf_attach NAME OBJ [ARGS...]: start the loader of OBJ (a path, or a
# file of $AWS_BPF) with ARGS (pid in BPF_LOADER[NAME], output in
# /tmp/bpf-NAME.out) and wait up to 30 s for it to attach; fails if the
# loader exits first.  (The bpf suite's longest attach: 258, 302 and 390
# ms in three runs, 2026-12-06.)
bpf_attach() {
	local name=$1 obj=$2 i t0 ms
	shift 2
	[[ $obj == /* ]] || obj=$AWS_BPF/$obj
	t0=$(bpf_ms)
	"$AWS_BPF/aws-bpf-load" "$@" "$obj" >"/tmp/bpf-$name.out" 2>&1 &
	BPF_LOADER[$name]=$!
	for ((i = 0; i < 300; i++)); do
		# -s: the background shell may not have opened the file yet
		if grep -qs '^attached ' "/tmp/bpf-$name.out"; then
			ms=$(($(bpf_ms) - t0))
			[ "$ms" -le "$BPF_ATTACH_MAX_MS" ] || BPF_ATTACH_MAX_MS=$ms
			return 0
		fi
		kill -0 "${BPF_LOADER[$name]}" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# bpf_update NAME: SIGHUP NAME's loader, which loads its object again
# and updates its link, and wait up to 30 s for its verdict: succeeds on
# "updated", fails on "not updated" or none.
bpf_update() {
	local out=/tmp/bpf-$1.out n0 i
	n0=$(grep -c '^\(not \)\?updated ' "$out")
	kill -HUP "${BPF_LOADER[$1]}" || return 1
	for ((i = 0; i < 300; i++)); do
		if [ "$(grep -c '^\(not \)\?updated ' "$out")" -gt "$n0" ]; then
			grep '^\(not \)\?updated ' "$out" | tail -n 1 | grep -q '^updated '
			return
		fi
		sleep 0.1
	done
	return 1
}
# bpf_stop NAME SIGNAL: signal NAME's loader and wait for it; its status.
bpf_stop() {
	kill "-$2" "${BPF_LOADER[$1]}" 2>/dev/null
	wait "${BPF_LOADER[$1]}"
	local rc=$?
	unset "BPF_LOADER[$1]"
	return $rc
}
# bpf_module_idle: wait up to 10 s until nothing holds the module (a
# detached policy's maps are freed after a grace period), so that rmmod
# can go.  (The bpf suite's longest: 10, 12 and 12 ms, after a stopped or
# SIGKILLed loader, three runs, 2026-12-06.)
bpf_module_idle() {
	local i t0
	t0=$(bpf_ms)
	for ((i = 0; i < 100; i++)); do
		if [ "$(cat /sys/module/anon_workingset/refcnt 2>/dev/null || echo 0)" = 0 ]; then
			BPF_IDLE_MS=$(($(bpf_ms) - t0))
			[ "$BPF_IDLE_MS" -le "$BPF_IDLE_MAX_MS" ] || BPF_IDLE_MAX_MS=$BPF_IDLE_MS
			return 0
		fi
		sleep 0.1
	done
	BPF_IDLE_MS=$(($(bpf_ms) - t0))
	return 1
}
