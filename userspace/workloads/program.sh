# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # its variables are the sourcing script's
#
# program.sh - what the scripts around real programs share (sqlite.sh,
# redis.sh, pgbench.sh, installed as aws-sqlite, aws-redis and
# aws-pgbench): each sources it, installed beside them as aws-program.sh,
# after setting PROG (its name) and defining usage().  It defines no
# workload of its own.
#
#   parse_args OPTS ARGS  --help, --corrupt-test, --describe, and each
#                         --NAME VALUE of OPTS (names without the dashes)
#                         into the variable NAME (dashes as underscores)
#   to_bytes SIZE         N, NK, NM or NG in BYTES (SIZE_RE checked)
#   describe_line NAME PROG  --describe's JSON line (no page trace); exit 0
#   vm_read TAG FILE      the VMKEYS of a copy of /proc/vmstat in VM[TAG:key]
#   vm_snap TAG           /proc/vmstat now, copied to $tmp/vmTAG, read so
#   result_exit BAD F...  the RESULT line: workload=PROG less "aws-", the
#                         FIELDs, seconds since t0 (the start, in us) and
#                         each VMKEYS change from VM[0:] to now (-1 where
#                         one is missing); exit 3 if BAD is not 0, else 0
#   now_us, secs US       the time in T_US; microseconds as seconds
#   stop_pid SIGNAL       stop $pid (the server) with SIGNAL, KILL after 10 s
#   stop_on_exit SIGNAL   on every way out, stop_pid SIGNAL and remove $tmp
#                         (the harness removes the run's cgroup once the
#                         script has exited: nothing may be left in it)
#   run_start             the vmstat (VM[0:]) and the time (t0) at the start
#
# The conventions are the C workloads' (common.h): exit 1 on an error, 2
# on a usage error, 3 on a verification failure.

SIZE_RE='^[1-9][0-9]{0,8}[KkMmGg]?$'
VMKEYS="pswpin pswpout pgmajfault workingset_refault_anon workingset_activate_anon"
corrupt=0 describe=0
declare -A VM

die() {
	echo "$PROG: $1" >&2
	exit "${2:-1}"
}

parse_args() {
	local opts=" $1 " name
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--help) usage; exit 0 ;;
		--corrupt-test) corrupt=1; shift; continue ;;
		--describe) describe=1; shift; continue ;;
		--*) ;;
		*) die "stray operand '$1' (see --help)" 2 ;;
		esac
		name=${1#--}
		[[ $opts == *" $name "* ]] || die "unknown option $1 (see --help)" 2
		[ $# -ge 2 ] || die "$1 needs a value" 2
		printf -v "${name//-/_}" '%s' "$2"
		shift 2
	done
}

to_bytes() {
	[[ $1 =~ $SIZE_RE ]] || return 1
	case ${1: -1} in
	[Kk]) BYTES=$((${1%?} << 10)) ;;
	[Mm]) BYTES=$((${1%?} << 20)) ;;
	[Gg]) BYTES=$((${1%?} << 30)) ;;
	*) BYTES=$1 ;;
	esac
}

describe_line() {
	printf '{"workload": "%s", "trace": "n/a", "note": "a real program (%s): its page trace is not recorded", "sim": [], "expect": {}}\n' "$1" "$2"
	exit 0
}

# Bash builtins where they can be: every fork costs tens of milliseconds
# under TCG.  The /proc files are copied by cat, in one read each, first:
# bash's read takes them a few bytes at a time, and a seq file whose
# numbers change between two reads comes out torn.
vm_read() {
	local k v
	while read -r k v; do
		[[ " $VMKEYS " == *" $k "* ]] && VM[$1:$k]=$v
	done <"$2"
}

vm_snap() {
	cat /proc/vmstat >"$tmp/vm$1" 2>/dev/null || : >"$tmp/vm$1"
	vm_read "$1" "$tmp/vm$1"
}

result_exit() {
	local bad=$1 res k
	shift
	vm_snap 1
	now_us
	res="RESULT workload=${PROG#aws-} $* seconds=$(secs $((T_US - t0)))"
	for k in $VMKEYS; do
		if [ -n "${VM[0:$k]:-}" ] && [ -n "${VM[1:$k]:-}" ]; then
			res+=" $k=$((${VM[1:$k]} - ${VM[0:$k]}))"
		else
			res+=" $k=-1"
		fi
	done
	echo "$res"
	[ "$bad" = 0 ] || exit 3
	exit 0
}

now_us() { T_US=${EPOCHREALTIME/./}; }
secs() { printf '%d.%03d' $(($1 / 1000000)) $(($1 % 1000000 / 1000)); }

stop_pid() {
	local i
	if [ -n "${pid:-}" ] && kill "-$1" "$pid" 2>/dev/null; then
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
}

stop_on_exit() {
	STOP_SIGNAL=$1
	trap 'stop_pid "$STOP_SIGNAL"; rm -rf "$tmp"' EXIT
	trap 'exit 1' HUP INT TERM
}

run_start() {
	vm_snap 0
	now_us
	t0=$T_US
}
