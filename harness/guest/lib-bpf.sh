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

# bpf_policies: the BPF policies on the tools disk (not the programs the
# verifier must refuse), one line, or nothing where there is no loader.
bpf_policies() {
	local f out=
	[ -x "$AWS_BPF/aws-bpf-load" ] || return 0
	for f in "$AWS_BPF"/*.bpf.o; do
		f=${f##*/}
		[[ $f == refused-* ]] || out+="${out:+ }${f%.bpf.o}"
	done
	echo "$out"
}
# bpf_attach NAME OBJ [ARGS...]: start the loader of $AWS_BPF/OBJ with ARGS
# (pid in BPF_LOADER[NAME], output in /tmp/bpf-NAME.out) and wait up to
# 30 s for it to attach; fails if the loader exits first.
bpf_attach() {
	local name=$1 obj=$2 i
	shift 2
	"$AWS_BPF/aws-bpf-load" "$@" "$AWS_BPF/$obj" >"/tmp/bpf-$name.out" 2>&1 &
	BPF_LOADER[$name]=$!
	for ((i = 0; i < 300; i++)); do
		grep -q '^attached ' "/tmp/bpf-$name.out" && return 0
		kill -0 "${BPF_LOADER[$name]}" 2>/dev/null || return 1
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
# can go.
bpf_module_idle() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(cat /sys/module/anon_workingset/refcnt 2>/dev/null || echo 0)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}
