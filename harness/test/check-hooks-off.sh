#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that the patched tree still builds with CONFIG_ANON_WS_HOOKS=n: the
# default config with the option switched off, built for the files the
# patch touches (mm/) plus vmlinux, in build/kernel-nohooks/
# (build/kernel-6.12-nohooks/ with KVER=6.12).  The hook
# sites must compile to the stock code and nothing may reference a symbol
# that only exists with the option on.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
# Flags of a calling make (e.g. -s from `make -s kernel`) would silence the
# kernel build log that the progress lines and error reports read.
unset MAKEFLAGS MFLAGS MAKELEVEL

OBJ=$(aws_kdir kernel nohooks)
DEF=$(aws_kdir kernel default)
[ -f "$DEF/.config" ] || die "build the default kernel first (make kernel KVER=$AWS_KVER)"
stage "kernel: $AWS_KVER with CONFIG_ANON_WS_HOOKS=n (log: ${AWS_LOGS#"$AWS_TOP"/}/kernel-nohooks.log)"
mkdir -p "$OBJ"
cp "$DEF/.config" "$OBJ/.config"
"$AWS_SRC/scripts/config" --file "$OBJ/.config" --disable ANON_WS_HOOKS
make -C "$AWS_SRC" O="$OBJ" CC="ccache gcc" olddefconfig >"$AWS_LOGS/kernel-nohooks.log" 2>&1
grep -q '^# CONFIG_ANON_WS_HOOKS is not set' "$OBJ/.config" || die "could not switch the option off"
make -C "$AWS_SRC" O="$OBJ" CC="ccache gcc" -j"$(nproc)" vmlinux >>"$AWS_LOGS/kernel-nohooks.log" 2>&1 ||
	die "build with CONFIG_ANON_WS_HOOKS=n failed, see $AWS_LOGS/kernel-nohooks.log"
! nm "$OBJ/vmlinux" | grep -q 'anon_ws' || die "anon_ws symbols present with the option off"
stage_done "builds, no anon_ws symbols in vmlinux"
