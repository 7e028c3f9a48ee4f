#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile input suite: every bad parameter value is refused with EINVAL and
# leaves the running value unchanged, at run time and at load time (where
# the module's own parser refuses it and nothing stays loaded); good values
# take effect; /proc/anon_workingset takes only the documented reset, bare
# or with a newline, and a refused write resets nothing; an unprivileged
# user may read the policy; and root without CAP_SYS_ADMIN can neither
# reset the counters nor change a parameter: the module's own capability
# checks refuse it with EPERM.  (What only VFS permissions refuse to a
# plain user -- parameters are never other-writable, and module.sh's
# proc_mode checks the proc file's 0600 -- no module bug could fail, so it
# is not a case here.)
. "$AWS_TOOLS/guest/lib.sh"

mod_unload
insmod "$AWS_MOD" policy=protect ratio=7 || bail insmod "insmod policy=protect ratio=7 failed"

# try_write FILE VALUE: write VALUE (backslash escapes as in printf %b) in
# one write(2) call and print the errno name.  A zero-length write never
# reaches the file, so empty values are tested through insmod below.
# iflag=fullblock: dd gathers the whole pipe before its one write
# (cgroups.sh says why).
try_write() {
	local out
	out=$(printf '%b' "$2" | dd of="$1" bs=65536 count=1 iflag=fullblock 2>&1 >/dev/null)
	case $out in
	*"Invalid argument"*) echo EINVAL ;;
	*"Permission denied"*) echo EACCES ;;
	*"Operation not permitted"*) echo EPERM ;;
	*"error writing"*|*"failed to open"*) echo "ERR($out)" ;;
	*) echo OK ;;
	esac
}
long=$(head -c 4096 /dev/zero | tr '\0' 'a')
huge=99999999999999999999999999

# A name that is no policy: EINVAL, and dmesg says which there are (the
# list as the parameter reads, without brackets).
dmesg_mark
got=$(try_write "$AWS_PARAMS/policy" 'nosuchpol\n')
list=$(tr -d '[]' <"$AWS_PARAMS/policy")
if [ "$got" = EINVAL ] && dmesg_since | grep -qF "no policy \"nosuchpol\"; the policies are: $list"; then
	ok "unknown_policy_lists_policies # EINVAL, dmesg: $list"
else
	fail unknown_policy_lists_policies "write -> $got; dmesg since the write: $(dmesg_since | grep -F nosuchpol | tail -n 1)"
fi
# Values as printf formats; each must be refused and leave policy=protect.
n=0
for v in '\n' 'bogus' 'DETECT' ' detect' 'detect ' 'detect\n\n' 'det\0ect' \
	'\0detect' '-1' '1' "$long" 'detec' 'detectx' 'stock\tx' '[detect]'; do
	n=$((n + 1))
	got=$(try_write "$AWS_PARAMS/policy" "$v")
	now=$(get_policy)
	if [ "$got" = EINVAL ] && [ "$now" = protect ]; then
		ok "policy_bad_value_$n # '$(printf '%.12s' "$v")' -> EINVAL, policy unchanged"
	else
		fail "policy_bad_value_$n" "'$(printf '%.20s' "$v")' -> $got, policy now $now"
	fi
done
n=0
for v in '\n' 'auto2' 'AUTO' '0' '-1' '1025' "$huge" '0x10' '+5' '05' ' 5' '5 ' \
	'5\n\n' '\00005' '1e3' "$long" '3.5'; do
	n=$((n + 1))
	got=$(try_write "$AWS_PARAMS/ratio" "$v")
	now=$(cat "$AWS_PARAMS/ratio")
	if [ "$got" = EINVAL ] && [ "$now" = 7 ]; then
		ok "ratio_bad_value_$n # '$(printf '%.12s' "$v")' -> EINVAL, ratio unchanged"
	else
		fail "ratio_bad_value_$n" "'$(printf '%.20s' "$v")' -> $got, ratio now $now"
	fi
done
# Good values are accepted and take effect.
good() { # good NAME FILE VALUE WANT: VALUE written to FILE reads back as WANT
	local got now
	got=$(try_write "$2" "$3")
	# the policy parameter reads back as the list, the running one bracketed
	if [ "$2" = "$AWS_PARAMS/policy" ]; then now=$(get_policy); else now=$(cat "$2"); fi
	if [ "$got" = OK ] && [ "$now" = "$4" ]; then
		ok "$1 # -> OK, now $now"
	else
		fail "$1" "'$3' -> $got, now $now (wanted $4)"
	fi
}
good policy_good_value_newline "$AWS_PARAMS/policy" 'detect\n' detect
good policy_good_value_bare "$AWS_PARAMS/policy" 'upstream' upstream
good ratio_good_value "$AWS_PARAMS/ratio" '1\n' 1

# The proc file: a refused write must leave the counters alone (the two
# policy switches above are counted in "switches"; a reset zeroes them).
sw=$(aws_stat switches)
diag "switches before the bad writes: $sw"
n=0
for v in 'Reset' 'reset\n\n' 'reset now' 'rese' 'reset\0x' '1' "$long"; do
	n=$((n + 1))
	got=$(try_write /proc/anon_workingset "$v")
	now=$(aws_stat switches)
	if [ "$got" = EINVAL ] && [ "$now" = "$sw" ] && [ "$sw" -gt 0 ]; then
		ok "proc_bad_write_$n # '$(printf '%.10s' "$v")' -> EINVAL, switches still $now"
	else
		fail "proc_bad_write_$n" "'$(printf '%.10s' "$v")' -> $got, switches $sw -> $now"
	fi
done
# The bare word (make's module suite resets with "reset\n"): accepted, and
# switches goes from the two switches above to 0.
sw=$(aws_stat switches)
got=$(try_write /proc/anon_workingset 'reset')
now=$(aws_stat switches)
if [ "$got" = OK ] && [ "$sw" -gt 0 ] && [ "$now" = 0 ]; then
	ok "proc_reset_bare_zeroes # -> OK, switches $sw -> 0"
else
	fail proc_reset_bare_zeroes "'reset' -> $got, switches $sw -> $now (want > 0 -> 0)"
fi

# Empty and bad values at load time: insmod must fail with EINVAL (kmod
# prints "Invalid parameters" for it), the kernel's parse_args must name
# the value as refused by the parameter's setter (its "`VALUE' invalid for
# parameter `NAME'": the module's parser said no, not anything else in the
# load), and nothing may stay loaded.  That line never came for the
# 4096-byte value (6.1: the console and dmesg had the module's own
# "no policy" warning, which is rate-limited, and no parse_args line), so
# that one is judged by EINVAL and the module not loaded alone.
rmmod anon_workingset || bail rmmod "rmmod before the load-time cases failed"
n=0
for arg in policy= ratio= ratio=0 ratio=-1 ratio=1025 "policy=$long"; do
	n=$((n + 1))
	name=${arg%%=*} val=${arg#*=}
	pat="anon_workingset: \`$val' invalid for parameter \`$name'"
	[ ${#val} -lt 256 ] || pat=''
	dmesg_mark
	if err=$(insmod "$AWS_MOD" "$arg" 2>&1); then
		fail "insmod_bad_param_$n" "loaded with '${arg:0:20}'"
		rmmod anon_workingset
	elif lsmod | grep -q '^anon_workingset '; then
		fail "insmod_bad_param_$n" "'${arg:0:20}': insmod failed, yet the module is loaded"
	elif [[ $err != *"Invalid parameters"* ]] || { [ -n "$pat" ] && ! dmesg_since | grep -qF "$pat"; }; then
		fail "insmod_bad_param_$n" "'${arg:0:20}': insmod said '${err:0:120}';" \
			"dmesg: $(dmesg_since | tail -n 1 | cut -c1-120)"
	else
		ok "insmod_bad_param_$n # '${arg:0:16}' refused${pat:+ by the parameter setter}, EINVAL"
	fi
done
insmod "$AWS_MOD" policy=protect ratio=7 || bail insmod_again "insmod policy=protect ratio=7 failed"
set_policy detect	# one switch, so that a reset would show

# Unprivileged user (uid 1000 'aws', created in the rootfs): the policy
# parameter is world-readable (mode 0644; a 0600 parameter would fail).
# Its writes, and its reads of the proc file, are refused by VFS
# permissions before any module code runs (the cases that checked them
# could fail for no module bug): the module's own refusals are root's
# without CAP_SYS_ADMIN, below.
as_user() { setpriv --reuid=1000 --regid=1000 --clear-groups -- "$@"; }
expect user_can_read_policy read "$(as_user cat "$AWS_PARAMS/policy" 2>&1)" = "$(cat "$AWS_PARAMS/policy")"

# Root without CAP_SYS_ADMIN (dropped from the bounding and inheritable
# sets, so the exec'd shell has it nowhere) still has CAP_DAC_OVERRIDE and
# opens the mode-0600 file; the write handler's capability check must
# refuse the reset with EPERM (a refusal at open would be EACCES), and the
# counters must stay as they were.
nocap() { setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin -- "$@"; }
sw=$(aws_stat switches)
caps=$(nocap sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
got=$(nocap bash -c "$(declare -f try_write); try_write /proc/anon_workingset 'reset\n'")
now=$(aws_stat switches)
if (((0x$caps >> 21) & 1)) || ! (((0x$caps >> 1) & 1)); then
	fail root_without_cap_sys_admin_cannot_reset "setpriv did not drop just CAP_SYS_ADMIN: CapEff $caps"
elif [ "$got" = EPERM ] && [ "$now" = "$sw" ] && [ "$sw" -gt 0 ]; then
	ok "root_without_cap_sys_admin_cannot_reset # CapEff $caps: EPERM, switches still $now"
else
	fail root_without_cap_sys_admin_cannot_reset "CapEff $caps: write -> $got, switches $sw -> $now"
fi
# The same rule for the parameters: writing them switches and sweeps every
# cgroup (up to f829fa7 such a root could, exit 0).
nocap_denied() { # nocap_denied NAME FILE VALUE NOW-CMD
	local before after got
	before=$($4)
	got=$(nocap bash -c "$(declare -f try_write); try_write $2 '$3\n'")
	after=$($4)
	if [ "$got" = EPERM ] && [ "$after" = "$before" ]; then
		ok "$1 # EPERM, still $after"
	else
		fail "$1" "write -> $got, $before -> $after"
	fi
}
nocap_denied root_without_cap_sys_admin_cannot_set_policy "$AWS_PARAMS/policy" stock get_policy
nocap_denied root_without_cap_sys_admin_cannot_set_ratio "$AWS_PARAMS/ratio" 3 "cat $AWS_PARAMS/ratio"
rmmod anon_workingset || bail rmmod_after_hostile "rmmod failed"
ktap_end
