# SPDX-License-Identifier: GPL-2.0
#
# Count leaf results in a KTAP stream: "passed failed skipped".
# Nested (indented) results are leaves; a top-level result counts only if
# its test had no nested results, or as one extra failure if it failed
# although none of its nested results did (a crashed or timed-out suite).
function top(line, failed) {
	if (nleaf == 0) {
		if (line ~ /# SKIP/) s++; else if (failed) f++; else p++
	} else if (failed && leaf_failed == 0) {
		f++
	}
	nleaf = 0; leaf_failed = 0
}
/^[ \t]+(not )?ok [0-9]+/ {
	nleaf++
	if ($0 ~ /# SKIP/) s++
	else if ($0 ~ /^[ \t]+not ok/) { f++; leaf_failed++ }
	else p++
	next
}
/^not ok [0-9]+/ { top($0, 1); next }
/^ok [0-9]+/ { top($0, 0); next }
END { printf "%d %d %d\n", p, f, s }
