#!/bin/bash
# scratch: spread of the bpf suite's counter window under detect and bdetect
. "$AWS_TOOLS/guest/lib.sh"
. "$AWS_TOOLS/guest/lib-trace.sh"
BPF=$AWS_TOOLS/bpf
CG=/sys/fs/cgroup
LIMIT=35M
THRASH=(aws-thrash --cold 64M --hot1 20M --cold-slice 24M --hot2 6M --rounds 1)
workload() {
	cg_run "$1" "$LIMIT" "${THRASH[@]}" >"/tmp/$1-thrash.out" 2>&1
	cg_run "$1-rw" 16M aws-randw --size 32M --threads 1 --writes "$(randw_writes 32)" \
		>"/tmp/$1-randw.out" 2>&1
}
mod_unload
insmod "$AWS_MOD" policy=detect
"$BPF/aws-bpf-load" "$BPF/bdetect.bpf.o" >/tmp/l.out 2>&1 &
sleep 5; cat /tmp/l.out
echo +memory >$CG/cgroup.subtree_control
mkdir $CG/bpfctl; echo stock >$CG/bpfctl/memory.anon_ws_policy; echo $$ >$CG/bpfctl/cgroup.procs
for i in $(seq "${AWS_TOLN:-5}"); do
	for p in detect bdetect; do
		set_policy $p
		t0=$SECONDS
		record_window workload bpfw
		line="TOLRUN $p $i secs=$((SECONDS - t0))"
		for k in refaults activations evictions placed_inactive swapins swapins_marked restores; do line+=" $k=$(delta $k)"; done
		line+=" ev=${E[events]} vbad=${E[verdict_bad]:-0} sbad=${E[size_not_active_anon]:-0} lost=$LOST"
		echo "# $line"
	done
done
ok windows_recorded
ktap_end
