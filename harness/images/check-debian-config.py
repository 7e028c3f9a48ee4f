#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the guest kernel's config against Debian's amd64 config of its kernel.

KVER (6.1 by default, or 6.12) picks Debian's config
(/usr/src/linux-config-<kver>/) and the lists: harness/images/debian-config.list,
then debian-config-<kver>.list if there is one, whose lines replace the
first list's for the same option.
Every option named in the lists must have Debian's value
in the built .config, unless the list says why it differs (for every
variant, or for one).  Prints one line per difference, a summary, and
exits 1 if any difference is not written down, or if a written-down one
is not a difference any more (the reason would be stale).

usage: check-debian-config.py VARIANT BUILT_CONFIG [DEBIAN_CONFIG_XZ]
"""
import lzma
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KVER = os.environ.get("KVER", "6.1")
LISTS = [os.path.join(HERE, "debian-config.list")] + [
    p for p in [os.path.join(HERE, "debian-config-%s.list" % KVER)] if os.path.exists(p)]
DEBIAN = "/usr/src/linux-config-%s/config.amd64_none_amd64.xz" % KVER


def parse_config(text):
    """Option -> value ('n' for '# CONFIG_X is not set')."""
    values = {}
    for line in text.splitlines():
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line)
        if m:
            values[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^# (CONFIG_\w+) is not set$", line)
        if m:
            values[m.group(1)] = "n"
    return values


def parse_list(text):
    """[(option, {variant or '*': reason})] in file order."""
    entries = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^(CONFIG_\w+)(?:\s+differs(?:\((\w+)\))?:\s*(\S.*))?$", line)
        if not m:
            raise ValueError(f"line {n}: cannot parse: {line}")
        reasons = {}
        if m.group(3):
            reasons[m.group(2) or "*"] = m.group(3)
        entries.append((m.group(1), reasons))
    return entries


def check(variant, built, debian, entries):
    """Problems (strings) and notes (allowed differences)."""
    problems, notes = [], []
    for opt, reasons in entries:
        ours, theirs = built.get(opt, "n"), debian.get(opt, "n")
        reason = reasons.get(variant) or reasons.get("*")
        if ours == theirs:
            if reason:
                problems.append(f"{opt}={ours} as Debian, but the list says it differs: {reason}")
        elif reason:
            notes.append(f"{opt}={ours} (Debian: {theirs}): {reason}")
        else:
            problems.append(f"{opt}={ours}, Debian has {theirs}, and the list gives no reason")
    return problems, notes


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    variant, built_path = argv[1], argv[2]
    debian_path = argv[3] if len(argv) == 4 else DEBIAN
    if not os.path.exists(debian_path):
        print(f"error: {debian_path} missing (Debian's linux-config-{KVER}; run: make deps)",
              file=sys.stderr)
        return 2
    with open(built_path) as f:
        built = parse_config(f.read())
    with lzma.open(debian_path, "rt") as f:
        debian = parse_config(f.read())
    merged = {}
    for path in LISTS:
        with open(path) as f:
            for opt, reasons in parse_list(f.read()):
                merged[opt] = reasons
    entries = list(merged.items())
    problems, notes = check(variant, built, debian, entries)
    for n in notes:
        print(f"  differs, with its reason: {n}")
    for p in problems:
        print(f"  config: {p}")
    print(f"debian config: {len(entries)} options compared, {len(notes)} written-down "
          f"differences, {len(problems)} problems ({variant})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
