#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# README suite: the commands README.md's "Using the module by hand" shows
# work as printed in `make shell`'s guest.  The block is read from the
# README on the tools disk (harness/images/make-tools-disk.sh copies it),
# its host commands (make ...) left out; each other line runs in bash, in
# order, after the shell job's own setup (harness/guest/jobs/shell.sh),
# and is one case, named after its line and first word, that passes if it
# exits 0.  A command README changes is tested as changed, and one added
# or removed changes the count (the manifest's).
. "$AWS_TOOLS/guest/lib.sh"

README=$AWS_TOOLS/README.md
[ -r "$README" ] || bail readme_on_tools_disk "$README missing"
mod_unload
rmdir /sys/fs/cgroup/a /sys/fs/cgroup/b 2>/dev/null
shell_setup
# NR<TAB>LINE for each line of the section's first sh block
lines=$(awk '/^## Using the module by hand/ { s = 1; next } /^## / { s = 0 }
	s && /^```/ { if (b) exit; b = 1; next } s && b && $1 != "make" { print NR "\t" $0 }' "$README")
[ -n "$lines" ] || bail readme_block_found "no sh block under '## Using the module by hand'"
while IFS=$'\t' read -r nr line; do
	set -- $line
	name="readme_${nr}_$1"
	if out=$(bash -c "$line" 2>&1 </dev/null); then
		ok "$name # $(head -c 100 <<<"$out" | tr '\n' ' ')"
	else
		fail "$name" "'$line' failed: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
	fi
done <<<"$lines"
rmdir /sys/fs/cgroup/a /sys/fs/cgroup/b 2>/dev/null
mod_unload
ktap_end
