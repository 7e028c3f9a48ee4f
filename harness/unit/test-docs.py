#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side test that the documents cite files that exist, as KTAP.

Every path in README.md and docs/*.md that starts with one of the source
tree's top-level folders (harness/, module/, include/, userspace/,
patches/, docs/, results/) must name something in the tree: a file, a
folder, a glob that matches, or the start of a file name (patches/0001).
A path in capitals (module/policies/NAME.c) is a placeholder; the kernel
tree's own paths (include/linux/...) are not ours.  One case per
document, listing what it cites that is missing.  make test runs it with
the unit tests.
"""
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = re.compile(r"(?<![\w./-])((?:harness|module|include|userspace|patches|docs|results)"
                  r"/[\w./*-]*[\w*])")
KERNEL_TREE = ("include/linux/",)


def missing(doc):
    out = []
    with open(doc) as f:
        for i, line in enumerate(f, 1):
            for m in PATH.finditer(line):
                p = m.group(1)
                if re.search(r"/[A-Z][A-Z_]*(\.|/|$)", p) or p.startswith(KERNEL_TREE):
                    continue
                if not glob.glob(os.path.join(TOP, p)) and not glob.glob(os.path.join(TOP, p) + "*"):
                    out.append("%d: %s" % (i, p))
    return out


def main():
    docs = [os.path.join(TOP, "README.md")] + sorted(glob.glob(os.path.join(TOP, "docs", "*.md")))
    print("KTAP version 1")
    print("1..%d" % len(docs))
    bad = 0
    for n, doc in enumerate(docs, 1):
        name = os.path.relpath(doc, TOP)
        miss = missing(doc)
        slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        if miss:
            bad = 1
            print("not ok %d %s_cites_files_that_exist # missing: %s"
                  % (n, slug, "; ".join(miss[:5]) + (" ..." if len(miss) > 5 else "")))
        else:
            print("ok %d %s_cites_files_that_exist" % (n, slug))
    return bad


if __name__ == "__main__":
    sys.exit(main())
