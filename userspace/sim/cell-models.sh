# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by cells.sh and sweep.sh: the simulator's design and held-out
# cells (cells.list) in its two models, the realistic one ("real":
# --fault-young --refault-deactivate, what x86 and 6.1's
# prepare_scan_count() do) and the default one ("default": neither).

# cell_models: one "NAME|ARGS|MODEL|FLAGS" line per cell and model.
cell_models() {
	local c
	grep -v '^#' "$(dirname "${BASH_SOURCE[0]}")/cells.list" | while IFS= read -r c; do
		printf '%s|real|--fault-young --refault-deactivate\n%s|default|\n' "$c" "$c"
	done
}
