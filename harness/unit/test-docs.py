#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side test of the documents and of results/, as KTAP.

Every path in README.md, docs/**/*.md and results/README.md that starts
with one of the source tree's top-level folders (harness/, module/,
include/, userspace/, patches/, docs/, results/), bare or as a relative
link (../results/x), must name something in the tree: a file, a folder, a
glob that matches, or the start of a file name (patches/0001).  A path in
capitals (module/policies/NAME.c) is a placeholder; the kernel tree's own
paths (include/linux/...) are not ours; a path after a colon is git's
REV:PATH, in history.  One case per document, listing what it cites that
is missing.

Then results/, which keeps only what current documents cite:
results_index_matches_tree (every folder of results/ has a row in the
index table of results/README.md, the one whose header starts
"| folder |", and every row names a folder that exists), results_under_3mb
(the files git tracks under results/, or all of them outside a git
checkout, add up to at most 3,000,000 bytes) and results_folders_cited
(each folder is named as results/NAME by a file outside results/:
README.md, docs/, harness/, the Makefile).  make test runs it with the
unit tests.
"""
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = re.compile(r"(?<![\w./:-])(?:\.\./)*((?:harness|module|include|userspace|patches|docs|results)"
                  r"/[\w./*-]*[\w*])")
KERNEL_TREE = ("include/linux/",)
RESULTS = os.path.join(TOP, "results")
RESULTS_MAX = 3000000
# where a results folder may be cited from
CITERS = ("README.md", "Makefile", "docs", "harness")


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


def folders():
    return sorted(d for d in os.listdir(RESULTS) if os.path.isdir(os.path.join(RESULTS, d)))


def index_rows():
    """The folder column of results/README.md's index table."""
    rows, on = [], False
    with open(os.path.join(RESULTS, "README.md")) as f:
        for line in f:
            if re.match(r"\|\s*folder\s*\|", line):
                on = True
                continue
            if not on:
                continue
            if not line.startswith("|"):
                break
            cell = line.split("|")[1].strip()
            if set(cell) <= set("-: "):
                continue
            m = re.match(r"\[`?([^`\]]+?)/?`?\]", cell) or re.match(r"`([^`]+?)/?`", cell)
            rows.append(m.group(1) if m else cell)
    return rows


def check_index():
    rows, tree = index_rows(), folders()
    if not rows:
        return "no index table (a header starting '| folder |') in results/README.md"
    errs = []
    unlisted = [d for d in tree if d not in rows]
    gone = [r for r in rows if r not in tree]
    twice = sorted({r for r in rows if rows.count(r) > 1})
    if unlisted:
        errs.append("not in the index: " + ", ".join(unlisted))
    if gone:
        errs.append("indexed, not in results/: " + ", ".join(gone))
    if twice:
        errs.append("indexed twice: " + ", ".join(twice))
    return "; ".join(errs) or None


def tracked_size():
    """Bytes of the files under results/: those git tracks, in a checkout."""
    try:
        out = subprocess.run(["git", "-C", TOP, "ls-files", "-z", "results"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True).stdout.decode()
        files = [os.path.join(TOP, p) for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
    if not files:  # not a git checkout (a tarball): every file there
        files = [os.path.join(d, f) for d, _, fs in os.walk(RESULTS) for f in fs]
    return sum(os.path.getsize(f) for f in files if os.path.isfile(f)), len(files)


def citing_text():
    """Every text file outside results/ that may cite a folder: path -> text."""
    out = {}
    for c in CITERS:
        p = os.path.join(TOP, c)
        walk = [(os.path.dirname(p), [], [c])] if os.path.isfile(p) else os.walk(p)
        for d, _, fs in walk:
            for f in fs:
                fp = os.path.join(d, f)
                try:
                    with open(fp, encoding="utf-8", errors="ignore") as fh:
                        out[os.path.relpath(fp, TOP)] = fh.read()
                except OSError:
                    continue
    return out


def check_cited():
    texts = citing_text()
    bare = []
    for d in folders():
        cite = re.compile(r"results/" + re.escape(d) + r"(?![\w-]|\.\w)")
        if not any(cite.search(t) for t in texts.values()):
            bare.append(d)
    return ("cited by no document outside results/: " + ", ".join(bare)) if bare else None


def main():
    docs = ([os.path.join(TOP, "README.md")] + sorted(glob.glob(os.path.join(TOP, "docs", "*.md")))
            + sorted(glob.glob(os.path.join(TOP, "docs", "*", "*.md")))
            + [os.path.join(RESULTS, "README.md")])
    size, nfiles = tracked_size()
    idx = check_index()
    cited = check_cited()
    print("KTAP version 1")
    print("1..%d" % (len(docs) + 3))
    bad = 0
    n = 0
    for doc in docs:
        n += 1
        name = os.path.relpath(doc, TOP)
        miss = missing(doc)
        slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        if miss:
            bad = 1
            print("not ok %d %s_cites_files_that_exist # missing: %s"
                  % (n, slug, "; ".join(miss[:5]) + (" ..." if len(miss) > 5 else "")))
        else:
            print("ok %d %s_cites_files_that_exist" % (n, slug))
    for case, err, note in (
            ("results_index_matches_tree", idx, "%d folders, each in the index" % len(folders())),
            ("results_under_3mb", None if size <= RESULTS_MAX else
             "%d bytes in %d files, over %d" % (size, nfiles, RESULTS_MAX),
             "%d bytes in %d files" % (size, nfiles)),
            ("results_folders_cited", cited, "each cited outside results/")):
        n += 1
        if err:
            bad = 1
            print("not ok %d %s # %s" % (n, case, err))
        else:
            print("ok %d %s # %s" % (n, case, note))
    return bad


if __name__ == "__main__":
    sys.exit(main())
