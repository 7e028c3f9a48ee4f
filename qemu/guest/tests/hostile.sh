#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile input suite: every bad parameter value is refused with EINVAL and
# leaves the running value unchanged; /proc/anon_workingset takes only the
# documented reset; an unprivileged user can neither change a parameter,
# reset counters, nor read the statistics (they are a cross-tenant side
# channel: refault distances reveal another cgroup's memory use).
. "$AWS_TOOLS/guest/lib.sh"

mod_unload
insmod "$AWS_MOD" policy=protect ratio=7 || { fail insmod; ktap_end; exit 1; }

# try_write FILE VALUE: write VALUE (backslash escapes as in printf %b) in
# one write(2) call and print the errno name.  A zero-length write never
# reaches the file, so empty values are tested through insmod below.
try_write() {
	local out
	out=$(printf '%b' "$2" | dd of="$1" bs=65536 count=1 2>&1 >/dev/null)
	case $out in
	*"Invalid argument"*) echo EINVAL ;;
	*"Permission denied"*|*"Operation not permitted"*) echo EPERM ;;
	*"error writing"*|*"failed to open"*) echo "ERR($out)" ;;
	*) echo OK ;;
	esac
}
long=$(head -c 4096 /dev/zero | tr '\0' 'a')
huge=99999999999999999999999999

# Values as printf formats; each must be refused and leave policy=protect.
n=0
for v in '\n' 'bogus' 'DETECT' ' detect' 'detect ' 'detect\n\n' 'det\0ect' \
	'\0detect' '-1' '1' "$long" 'detec' 'detectx' 'stock\tx'; do
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
expect policy_good_value_newline result "$(try_write "$AWS_PARAMS/policy" 'detect\n')" = OK
expect policy_good_value_bare result "$(try_write "$AWS_PARAMS/policy" 'upstream')" = OK
expect ratio_good_value result "$(try_write "$AWS_PARAMS/ratio" '1\n')" = OK

n=0
for v in 'Reset' 'reset\n\n' 'reset now' 'rese' 'reset\0x' '1' "$long"; do
	n=$((n + 1))
	got=$(try_write /proc/anon_workingset "$v")
	expect "proc_bad_write_$n" "'$(printf '%.10s' "$v")'" "$got" = EINVAL
done
expect proc_reset_ok result "$(try_write /proc/anon_workingset 'reset\n')" = OK

# Empty and bad values at load time: insmod must fail, nothing stays loaded.
rmmod anon_workingset
n=0
for arg in policy= ratio= policy=bogus ratio=0 ratio=-1 ratio=1025 "policy=$long"; do
	n=$((n + 1))
	if insmod "$AWS_MOD" "$arg" 2>/dev/null; then
		fail "insmod_bad_param_$n" "loaded with '${arg:0:20}'"
		rmmod anon_workingset
	else
		ok "insmod_bad_param_$n # '${arg:0:16}' refused"
	fi
done
insmod "$AWS_MOD" policy=protect

# Unprivileged user (uid 1000 'aws', created in the rootfs).
as_user() { setpriv --reuid=1000 --regid=1000 --clear-groups -- "$@"; }
before=$(get_policy)
if as_user sh -c "echo baseline > $AWS_PARAMS/policy" 2>/dev/null; then
	fail user_cannot_set_policy "write succeeded"
else
	expect user_cannot_set_policy policy "$(get_policy)" = "$before"
fi
if as_user sh -c "echo 3 > $AWS_PARAMS/ratio" 2>/dev/null; then
	fail user_cannot_set_ratio "write succeeded"
else
	ok user_cannot_set_ratio
fi
if as_user sh -c 'echo reset > /proc/anon_workingset' 2>/dev/null; then
	fail user_cannot_reset "write succeeded"
else
	ok user_cannot_reset
fi
if as_user cat /proc/anon_workingset >/dev/null 2>&1; then
	fail user_cannot_read_stats "read succeeded"
else
	ok user_cannot_read_stats
fi
check user_can_read_policy as_user cat "$AWS_PARAMS/policy"
rmmod anon_workingset
ktap_end
