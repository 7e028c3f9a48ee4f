#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest kernel: extract Debian's linux-source-<kver> (KVER=6.1, the
# default, or 6.12) into build/src/ (build/src-6.12/), apply the series in
# patches/<kver>/, configure from harness/images/kernel.config (plus
# kernel-6.12.config on 6.12, then kernel-debug.config for VARIANT=debug) and
# build bzImage + modules with ccache into build/kernel-<variant>/
# (build/kernel-6.12-<variant>/).
#
# Rebuilds only what changed (and skips make entirely when the key of the
# last successful build still matches).  The source tree remembers which series it
# carries (build/src/applied/ + a key made of the package version and the
# patch contents); a new series is applied by reversing the old one, and the
# object folder remembers the config key (package + series + fragments), so a
# change in any of them is detected and reported.
#
# The unpatched variant is the reference for the cost benchmark
# (harness/bench/bench-cost.sh): the same tarball and config fragment, without the
# series (its own extraction in build/src-unpatched/, never patched) and
# without the CONFIG_ANON_WS_HOOKS line the stock tree does not know, built
# into build/kernel-unpatched/ (build/kernel-6.12-unpatched/).
#
# usage: harness/images/build-kernel.sh [default|debug|unpatched]
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
# Flags of a calling make (e.g. -s from `make -s kernel`) would silence the
# kernel build log that the progress lines and error reports read.
unset MAKEFLAGS MFLAGS MAKELEVEL

VARIANT=${1:-default}
BASE=("$AWS_TOP/harness/images/kernel.config")
[ "$AWS_KVER" = 6.1 ] || BASE+=("$AWS_TOP/harness/images/kernel-$AWS_KVER.config")
case $VARIANT in
default) FRAGS=("${BASE[@]}") ;;
debug) FRAGS=("${BASE[@]}" "$AWS_TOP/harness/images/kernel-debug.config") ;;
unpatched)
	AWS_SRC_PARENT=$AWS_BUILD/src-unpatched$AWS_KSFX
	AWS_SRC=$AWS_SRC_PARENT/linux-source-$AWS_KVER
	mkdir -p "$AWS_SRC_PARENT"
	FRAGS=("$AWS_SRC_PARENT/kernel.config")
	cat "${BASE[@]}" | grep -v '^CONFIG_ANON_WS_HOOKS' >"${FRAGS[0]}"
	;;
*) die "unknown kernel variant '$VARIANT' (expected default, debug or unpatched)" ;;
esac
OBJ=$(aws_kdir kernel "$VARIANT")
JOBS=$(nproc)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths below the checkout are hashed relative to it, so a second clone (or a
# moved one) reuses the first one's objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$AWS_TOP}
KCC="ccache gcc"

[ -r "$AWS_TARBALL" ] || die "$AWS_TARBALL missing (run: make deps)"
command -v ccache >/dev/null || die "ccache missing (run: make deps)"

pkgver=$(kernel_pkg_version)
SERIES=()
if [ "$VARIANT" != unpatched ]; then
	list=$(patch_series) || die "the patch series is not in order (patches/$AWS_KVER/series)"
	mapfile -t SERIES <<<"$list"
fi
series_key=$( { echo "$pkgver"; for p in "${SERIES[@]}"; do basename "$p"; cat "$p"; done; } |
	sha256sum | cut -c1-16)

extract_source() {
	stage "kernel: extract $(basename "$AWS_TARBALL") ($pkgver)"
	rm -rf "$AWS_SRC" "$AWS_SRC_PARENT/applied"
	mkdir -p "$AWS_SRC_PARENT/applied"
	tar -C "$AWS_SRC_PARENT" -xf "$AWS_TARBALL"
	[ -f "$AWS_SRC/Makefile" ] || die "tarball did not contain linux-source-$AWS_KVER/"
	echo "$pkgver" >"$AWS_SRC/.aws-pkgver"
	echo none >"$AWS_SRC/.aws-series"
	stage_done
}

# Undo the series recorded in build/src/applied; returns non-zero if the tree
# does not reverse cleanly (then the caller re-extracts).
unapply_series() {
	local applied p
	mapfile -t applied < <(find "$AWS_SRC_PARENT/applied" -maxdepth 1 -name '*.patch' | sort -r)
	for p in "${applied[@]}"; do
		patch -d "$AWS_SRC" -p1 -R -s --dry-run <"$p" >/dev/null 2>&1 || return 1
		patch -d "$AWS_SRC" -p1 -R -s <"$p" >/dev/null || return 1
		rm -f "$p"
	done
}

apply_series() {
	local i=0 p
	for p in "${SERIES[@]}"; do
		i=$((i + 1))
		note "applying $(basename "$p")"
		if ! patch -d "$AWS_SRC" -p1 -s --forward --dry-run <"$p" >"$AWS_LOGS/patch.log" 2>&1; then
			cat "$AWS_LOGS/patch.log" >&2
			die "patch $(basename "$p") does not apply to linux-source $pkgver"
		fi
		patch -d "$AWS_SRC" -p1 -s --forward <"$p"
		cp "$p" "$(printf '%s/applied/%03d-%s' "$AWS_SRC_PARENT" "$i" "$(basename "$p")")"
	done
}

if [ ! -f "$AWS_SRC/Makefile" ] || [ "$(cat "$AWS_SRC/.aws-pkgver" 2>/dev/null)" != "$pkgver" ]; then
	extract_source
fi
old_key=$(cat "$AWS_SRC/.aws-series" 2>/dev/null || echo none)
if [ "$old_key" != "$series_key" ]; then
	stage "kernel: patch series changed ($old_key -> $series_key), ${#SERIES[@]} patch(es)"
	mkdir -p "$AWS_SRC_PARENT/applied"
	if ! unapply_series; then
		note "old series does not reverse cleanly; re-extracting"
		extract_source
	fi
	apply_series
	echo "$series_key" >"$AWS_SRC/.aws-series"
	stage_done
fi

config_key=$( { echo "$series_key $VARIANT"; cat "${FRAGS[@]}"; } | sha256sum | cut -c1-16)
mkdir -p "$OBJ"
if [ ! -f "$OBJ/.config" ] || [ "$(cat "$OBJ/.aws-config-key" 2>/dev/null)" != "$config_key" ]; then
	stage "kernel: configure $VARIANT (key $config_key)"
	make -C "$AWS_SRC" O="$OBJ" CC="$KCC" tinyconfig >"$AWS_LOGS/kconfig-$VARIANT.log" 2>&1 ||
		die "tinyconfig failed, see $AWS_LOGS/kconfig-$VARIANT.log"
	(cd "$AWS_SRC" && scripts/kconfig/merge_config.sh -m -O "$OBJ" "$OBJ/.config" \
		kernel/configs/kvm_guest.config "${FRAGS[@]}") >>"$AWS_LOGS/kconfig-$VARIANT.log" 2>&1 ||
		die "merge_config failed, see $AWS_LOGS/kconfig-$VARIANT.log"
	make -C "$AWS_SRC" O="$OBJ" CC="$KCC" olddefconfig >>"$AWS_LOGS/kconfig-$VARIANT.log" 2>&1 ||
		die "olddefconfig failed, see $AWS_LOGS/kconfig-$VARIANT.log"
	# Every option we ask for must have stuck (a typo or a missing
	# dependency would otherwise silently build a different kernel).  A
	# later fragment overrides an earlier one (the debug kernel's
	# preemption model), as in merge_config.sh.
	missing=0
	while read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$OBJ/.config" || { echo "  config: wanted $line, got: $(grep "^${line%%=*}=\|^# ${line%%=*} " "$OBJ/.config" || echo unset)"; missing=1; } ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			grep -q "^$opt=" "$OBJ/.config" && { echo "  config: wanted $opt off, got $(grep "^$opt=" "$OBJ/.config")"; missing=1; } ;;
		esac
	done < <(cat "${FRAGS[@]}" | awk '
		/^CONFIG_[A-Za-z0-9_]*=/ { o = $0; sub(/=.*/, "", o) }
		/^# CONFIG_[A-Za-z0-9_]* is not set$/ { o = $2 }
		o != "" { last[o] = $0; order[++n] = o; o = "" }
		END { for (i = 1; i <= n; i++) if (!seen[order[i]]++) print last[order[i]] }')
	[ $missing = 0 ] || die "kernel config fragment did not apply (see above)"
	# On what changes mm behaviour, the guest kernel is Debian's.
	python3 "$AWS_TOP/harness/images/check-debian-config.py" "$VARIANT" "$OBJ/.config" ||
		die "the guest kernel config differs from Debian $AWS_KVER's (harness/images/debian-config*.list)"
	echo "$config_key" >"$OBJ/.aws-config-key"
	stage_done
fi

# Nothing changed since the last successful build: do not even walk the tree.
if [ -f "$OBJ/arch/x86/boot/bzImage" ] && [ "$(cat "$OBJ/.aws-built-key" 2>/dev/null)" = "$config_key" ]; then
	echo "   kernel: $AWS_KVER $VARIANT up to date (key $config_key)"
	exit 0
fi
rm -f "$OBJ/.aws-built-key"
stage "kernel: build $AWS_KVER $VARIANT (make -j$JOBS bzImage modules, log: ${AWS_LOGS#"$AWS_TOP"/}/kernel-$VARIANT.log)"
make -C "$AWS_SRC" O="$OBJ" CC="$KCC" -j"$JOBS" bzImage modules >"$AWS_LOGS/kernel-$VARIANT.log" 2>&1 &
pid=$!
progress "$AWS_LOGS/kernel-$VARIANT.log" $pid "kernel build"
if ! wait $pid; then
	grep -E 'error|Error' "$AWS_LOGS/kernel-$VARIANT.log" | head -20 >&2
	die "kernel build failed, see $AWS_LOGS/kernel-$VARIANT.log"
fi
echo "$config_key" >"$OBJ/.aws-built-key"
stage_done "$(stat -c %s "$OBJ/arch/x86/boot/bzImage") bytes bzImage"
