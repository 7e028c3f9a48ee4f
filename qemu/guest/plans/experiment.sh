#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run` guest plan: the policy experiment, policies x workloads in one
# boot.  Driven by qemu/experiment.sh on the host, which boots the guest with
# aws.args=PLAN[,n=N][,only=GLOB:GLOB][,policies=P:P] and post-processes
# /tmp/results (tarred by the guest init):
#
#   runs.tsv        one line per run, tab-separated key=value fields: cell,
#                   policy, rep, rc, wall_s, res_* (the workload's RESULT
#                   line), vm_* (/proc/vmstat deltas), cg_* (memory.stat of
#                   the run's fresh cgroup), ev_* (memory.events), cg_peak,
#                   psi_* (memory.pressure totals, us), aws_* (the whole
#                   /proc/anon_workingset, reset before the run)
#   results.txt     every RESULT line, prefixed with cell, policy and rep
#   workloads.log   the workloads' stderr, prefixed the same way
#   matrix.tsv      the cells: name, memory limit, policies, command
#   guest-info.txt  uname, MemTotal, CPUs, swap, page-cluster, module info
#
# Policies: nomod (module unloaded: stock 6.1), mglru (module unloaded, MGLRU
# enabled for the run), and the module's baseline, protect, detect, upstream;
# a suffix -rN sets the module's anon inactive ratio to N (default auto).
# Repetitions are interleaved (rep 1 of every policy, then rep 2, ...) so a
# drift in the guest cannot masquerade as a policy difference.
. "$AWS_TOOLS/guest/lib.sh"

OUT=/tmp/results
LRU_GEN=/sys/kernel/mm/lru_gen/enabled
CG=/sys/fs/cgroup/aws-exp
BALLOON=/tmp/aws-balloon
VMKEYS="pswpin pswpout workingset_refault_anon workingset_activate_anon
	workingset_restore_anon pgactivate pgdeactivate pgmajfault pgfault
	pgscan_kswapd pgscan_direct pgsteal_kswapd pgsteal_direct
	workingset_refault_file"
CGKEYS="pgscan pgsteal pgactivate pgdeactivate workingset_refault_anon
	workingset_activate_anon workingset_restore_anon pgfault pgmajfault"
POLICIES="nomod mglru baseline protect detect upstream"

PLAN=short N="" ONLY="" POLS=""
for a in $AWS_ARGS; do
	case $a in
	short | full) PLAN=$a ;;
	n=*) N=${a#n=} ;;
	only=*) ONLY=${a#only=} ;;
	policies=*) POLS=${a#policies=} ;;
	*) echo "# experiment: FATAL: unknown argument '$a'"; exit 1 ;;
	esac
done

# ---- the matrix ----------------------------------------------------------
# cell NAME LIMIT "POLICIES" CMD...: LIMIT is a memory.max value, or
# global:MB (no memcg limit; a ramfs balloon leaves MB of MemAvailable, so
# reclaim is global: kswapd and direct reclaim on the node).
CELLS=()
declare -A C_LIMIT C_POLS C_CMD
cell() {
	local name=$1 limit=$2 pols=$3
	shift 3
	CELLS+=("$name")
	C_LIMIT[$name]=$limit C_POLS[$name]=$pols C_CMD[$name]="$*"
}

if [ "$PLAN" = short ]; then
	REPS=3 ROUNDS=4 ZSEC=2 RSEC=3 ZLIM=32M
	ZALPHAS="0.5 0.9 1.3" ZTHREADS="1"
	ZPOLS="nomod mglru baseline protect detect"
	RPOLS="nomod mglru baseline baseline-r3 protect protect-r1 detect"
	GPOLS="nomod baseline protect detect"
else
	REPS=5 ROUNDS=8 ZSEC=8 RSEC=8 ZLIM=64M
	ZALPHAS="0.1 0.3 0.5 0.7 0.9 1.1 1.3" ZTHREADS="1 2"
	ZPOLS=$POLICIES
	RPOLS="$POLICIES baseline-r3 protect-r1 protect-r3 detect-r3"
	GPOLS=$POLICIES
fi
[ -n "$N" ] && REPS=$N

# thrash at the seed's proportions (cold 512, hot-1 96, hot-2 96, slice 128
# of ~280 MB usable), scaled by 1/4; and the "detect regime", where hot-2's
# reuse distance lies beyond what 6.1's two-reference rule lets an inactive
# page survive but within what refault detection can see.
cell thrash-seed 70M "$POLICIES" aws-thrash --cold 128M --hot1 24M --hot2 24M \
	--cold-slice 32M --rounds $ROUNDS
cell thrash-detect 70M "$POLICIES" aws-thrash --cold 128M --hot1 40M --hot2 12M \
	--cold-slice 48M --rounds $ROUNDS
# the cover letter's protection example: a hot set that fits, used-once waves
# that do not.
cell protect 64M "$POLICIES" aws-protect --hot 24M --wave 64M --waves 3
# ebizzy-like zipf reads at 2x the memory limit.
for t in $ZTHREADS; do
	for a in $ZALPHAS; do
		cell zipf-t$t-a$a $ZLIM "$ZPOLS" aws-zipf --size $((2 * ${ZLIM%M}))M \
			--threads $t --alpha $a --seconds $ZSEC
	done
done
# vm-scalability swap-w-rand-mt: random writes by 2 threads over 2x memory;
# plus the anon inactive ratio knob (the seed's patch 1 is ratio 1; the
# sqrt rule gives 1 below 1 GB, 3 at 1 GB, 7 at 5 GB).
cell randw $ZLIM "$RPOLS" aws-randw --size $((2 * ${ZLIM%M}))M --threads 2 --seconds $RSEC
# global memory pressure: no memcg limit, a ramfs balloon leaves ~N MB.
cell protect-global global:72 "$GPOLS" aws-protect --hot 24M --wave 64M --waves 3
cell thrash-global global:80 "$GPOLS" aws-thrash --cold 128M --hot1 40M \
	--hot2 12M --cold-slice 48M --rounds $ROUNDS

# ---- helpers -------------------------------------------------------------
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
selected() { # selected NAME GLOBS(colon-separated)
	local g
	[ -z "$2" ] && return 0
	for g in ${2//:/ }; do
		# shellcheck disable=SC2053
		[[ $1 == $g ]] && return 0
	done
	return 1
}

mglru_set() { [ -w $LRU_GEN ] && echo "$1" >$LRU_GEN; }
mod_loaded() { lsmod | grep -q '^anon_workingset '; }

# setup_policy P: put the kernel into policy P; fails loudly.
setup_policy() {
	local p=$1 base=$1 ratio=auto
	if [[ $p == *-r* ]]; then
		base=${p%-r*} ratio=${p##*-r}
	fi
	case $base in
	nomod | mglru)
		mod_unload || { echo "# experiment: rmmod failed"; return 1; }
		if [ "$base" = mglru ]; then mglru_set y; else mglru_set n; fi
		;;
	baseline | protect | detect | upstream | stock)
		mglru_set n
		mod_load || { echo "# experiment: insmod failed"; return 1; }
		echo "$ratio" >"$AWS_PARAMS/ratio" || return 1
		set_policy "$base" || return 1
		[ "$(get_policy)" = "$base" ] || return 1
		;;
	*) echo "# experiment: unknown policy '$p'"; return 1 ;;
	esac
}

vm_snap() {
	awk -v keys="$VMKEYS" 'BEGIN { n = split(keys, k); for (i = 1; i <= n; i++) w[k[i]] = 1 }
		($1 in w) { print $1, $2 }' /proc/vmstat
}

balloon_up() { # balloon_up AVAIL_MB: pin memory in ramfs until ~AVAIL_MB remain
	local avail fill
	mkdir -p $BALLOON && mount -t ramfs none $BALLOON || return 1
	sync
	echo 3 >/proc/sys/vm/drop_caches
	avail=$(($(meminfo_kb MemAvailable) / 1024))
	fill=$((avail - $1))
	[ $fill -gt 0 ] || fill=0
	dd if=/dev/zero of=$BALLOON/fill bs=1M count=$fill status=none || return 1
	BALLOON_MB=$fill
	echo "# experiment: balloon ${fill} MB in ramfs, MemAvailable now $(($(meminfo_kb MemAvailable) / 1024)) MB"
}
balloon_down() { rm -f $BALLOON/fill; umount $BALLOON 2>/dev/null; BALLOON_MB=0; }

# run_one CELL POLICY REP: one run, one line in runs.tsv
RUN_I=0 RUN_N=0 FAILS=0
run_one() {
	local cell=$1 pol=$2 rep=$3 limit=${C_LIMIT[$1]} tag rc t0 t1 res row k v
	local -a cmd
	read -r -a cmd <<<"${C_CMD[$cell]}"
	RUN_I=$((RUN_I + 1))
	tag="$cell $pol $rep"
	row="cell=$cell	policy=$pol	rep=$rep	limit=$limit	balloon_mb=${BALLOON_MB:-0}"
	if ! setup_policy "$pol"; then
		echo "# [$RUN_I/$RUN_N] $tag: FAILED to set up policy"
		printf '%s\trc=-1\terror=policy_setup\n' "$row" >>$OUT/runs.tsv
		FAILS=$((FAILS + 1))
		return
	fi
	row+="	lru_gen=$(cat $LRU_GEN 2>/dev/null || echo none)"
	if mod_loaded; then
		row+="	ratio=$(cat "$AWS_PARAMS/ratio")"
		echo reset >/proc/anon_workingset
	fi
	sync
	echo 3 >/proc/sys/vm/drop_caches
	rmdir $CG 2>/dev/null
	mkdir $CG || { echo "# experiment: cannot create $CG"; return 1; }
	if [[ $limit != global:* ]] && ! echo "$limit" >$CG/memory.max; then
		echo "# experiment: cannot set memory.max=$limit"
		printf '%s\trc=-1\terror=memory_max\n' "$row" >>$OUT/runs.tsv
		FAILS=$((FAILS + 1))
		rmdir $CG
		return
	fi
	vm_snap >/tmp/vm0
	t0=$(now)
	(echo $BASHPID >$CG/cgroup.procs && exec "${cmd[@]}" --seed "$rep") \
		>/tmp/wl.out 2>/tmp/wl.err
	rc=$?
	t1=$(now)
	vm_snap >/tmp/vm1
	row+="	rc=$rc	wall_s=$(elapsed "$t0" "$t1")"
	row+=$(awk 'NR == FNR { a[$1] = $2; next } { printf "\tvm_%s=%d", $1, $2 - a[$1] }' \
		/tmp/vm0 /tmp/vm1)
	row+=$(awk -v keys="$CGKEYS" 'BEGIN { n = split(keys, k); for (i = 1; i <= n; i++) w[k[i]] = 1 }
		($1 in w) { printf "\tcg_%s=%s", $1, $2 }' $CG/memory.stat)
	row+=$(awk '{ printf "\tev_%s=%s", $1, $2 }' $CG/memory.events)
	[ -r $CG/memory.peak ] && row+="	cg_peak=$(cat $CG/memory.peak)"
	row+=$(awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^total=/) printf "\tpsi_%s_us=%s", $1, substr($i, 7) }' \
		$CG/memory.pressure 2>/dev/null)
	if mod_loaded; then
		row+=$(awk '{ printf "\taws_%s=%s", $1, $2 }' /proc/anon_workingset)
	fi
	rmdir $CG 2>/dev/null
	res=$(grep '^RESULT ' /tmp/wl.out | tail -n 1)
	for kv in ${res#RESULT }; do
		k=${kv%%=*} v=${kv#*=}
		row+="	res_$k=$v"
	done
	printf '%s\n' "$row" >>$OUT/runs.tsv
	echo "cell=$cell policy=$pol rep=$rep rc=$rc $res" >>$OUT/results.txt
	sed "s/^/[$tag] /" /tmp/wl.err >>$OUT/workloads.log
	if [ $rc != 0 ] || [ -z "$res" ] || [ "$(result_get "$res" verify_fail)" != 0 ]; then
		FAILS=$((FAILS + 1))
		echo "# [$RUN_I/$RUN_N] $tag: FAILED rc=$rc verify_fail=$(result_get "$res" verify_fail)"
		grep -m 5 . /tmp/wl.err | sed 's/^/#   /'
		return
	fi
	printf '# [%d/%d] %-14s %-12s rep %d: %6.1f s pswpin %d pswpout %d refault %d activate %d\n' \
		"$RUN_I" "$RUN_N" "$cell" "$pol" "$rep" "$(elapsed "$t0" "$t1")" \
		"$(grep -o 'vm_pswpin=[0-9-]*' <<<"$row" | cut -d= -f2)" \
		"$(grep -o 'vm_pswpout=[0-9-]*' <<<"$row" | cut -d= -f2)" \
		"$(grep -o 'vm_workingset_refault_anon=[0-9-]*' <<<"$row" | cut -d= -f2)" \
		"$(grep -o 'vm_workingset_activate_anon=[0-9-]*' <<<"$row" | cut -d= -f2)"
}

# ---- run -----------------------------------------------------------------
echo +memory >/sys/fs/cgroup/cgroup.subtree_control ||
	{ echo "# experiment: FATAL: cannot enable the memory controller"; exit 1; }
: >$OUT/runs.tsv
: >$OUT/results.txt
: >$OUT/workloads.log
: >$OUT/matrix.tsv
SEL=()
for c in "${CELLS[@]}"; do
	selected "$c" "$ONLY" || continue
	pols=${C_POLS[$c]}
	[ -n "$POLS" ] && pols=$(for p in $pols; do selected "$p" "$POLS" && echo "$p"; done | tr '\n' ' ')
	[ -n "${pols// /}" ] || continue
	C_POLS[$c]=$pols
	SEL+=("$c")
	set -- $pols
	RUN_N=$((RUN_N + $# * REPS))
	printf '%s\t%s\t%s\t%s\n' "$c" "${C_LIMIT[$c]}" "$pols" "${C_CMD[$c]}" >>$OUT/matrix.tsv
done

{
	echo "plan $PLAN"
	echo "reps $REPS"
	echo "args $AWS_ARGS"
	echo "uname_r $(uname -r)"
	echo "uname_v $(uname -v)"
	echo "cpus $(nproc)"
	echo "memtotal_kb $(meminfo_kb MemTotal)"
	echo "swaptotal_kb $(meminfo_kb SwapTotal)"
	echo "page_cluster $(cat /proc/sys/vm/page-cluster)"
	echo "swappiness $(cat /proc/sys/vm/swappiness)"
	echo "thp $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
	echo "lru_gen_boot $(cat $LRU_GEN 2>/dev/null)"
	echo "module_file_srcversion $(modinfo -F srcversion "$AWS_MOD" 2>/dev/null)"
	echo "module_vermagic $(modinfo -F vermagic "$AWS_MOD" 2>/dev/null)"
} >$OUT/guest-info.txt
mglru_set n
mod_load && echo "module_srcversion $(cat /sys/module/anon_workingset/srcversion)" >>$OUT/guest-info.txt
echo "# experiment: plan $PLAN, ${#SEL[@]} cells, $REPS reps, $RUN_N runs; $(uname -r), $(($(meminfo_kb MemTotal) / 1024)) MB, $(nproc) CPUs"

T0=$(now)
for c in "${SEL[@]}"; do
	echo "# experiment: cell $c (limit ${C_LIMIT[$c]}): ${C_CMD[$c]}"
	BALLOON_MB=0
	if [[ ${C_LIMIT[$c]} == global:* ]]; then
		mod_unload
		balloon_up "${C_LIMIT[$c]#global:}" ||
			{ echo "# experiment: FATAL: balloon failed"; FAILS=$((FAILS + 1)); continue; }
	fi
	for rep in $(seq 1 "$REPS"); do
		for p in ${C_POLS[$c]}; do
			run_one "$c" "$p" "$rep"
		done
	done
	[[ ${C_LIMIT[$c]} == global:* ]] && balloon_down
done
# leave the kernel as booted: module unloaded, MGLRU off
mod_unload || FAILS=$((FAILS + 1))
mglru_set n
echo "total_s $(elapsed "$T0" "$(now)")" >>$OUT/guest-info.txt
echo "# experiment: done, $RUN_I runs in $(elapsed "$T0" "$(now)") s, $FAILS failed"
[ $FAILS = 0 ]
