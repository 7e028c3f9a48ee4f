#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side test that the figures the documents quote still match the
files they come from, as KTAP.

A figure is tied to its file by an HTML comment right after it (GitHub
does not show it):

    hold2 misses 72<!-- fig results/sim/dist/dist-goals.csv policy=hold2 goal=no-harm-95 col=detail re='^(\\d+) of' --> of 560

    <!-- fig PATH [NAME=VALUE ...] [col=C] [agg=A] [key=K] [line=RE] [field=N]
             [re=RE] [scale=X] [fmt=F] -->

The words are split as a shell would (quote a value with spaces).  PATH
is from the top of the tree.  What picks the value depends on the file:

  .csv, .csv.gz  NAME=VALUE: the rows whose column NAME is VALUE (every
                 such word is a filter; NAME must be a column); col=C: the
                 column.  One row must match, or agg=min|max|median|mean|
                 sum|count says how to reduce several (median of an even
                 count: the mean of the middle two, as pandas).
  .json          key=a.b.0: the path through objects and lists.
  anything else  text: key=K, the line whose first word is K (or K:) and
                 by default its second word; line=RE, the first line
                 re.search matches, by default the whole line; field=N,
                 the Nth word of that line (1-based, negative from the
                 end; words split on whitespace).

Then, in this order: re=RE takes group 1 of the first match in the value
(the whole match if RE has no group); scale=X multiplies it; fmt=F
formats it, %-style (fmt=%.2f, fmt=%.1fk with scale=0.001) or, when F
starts with "{", str.format (fmt={:,.0f} for 17,032); the default is the
value as the file has it.  A value that a numeric format needs is read
as an int, else a float.

The check: the document's text before the comment (back to the previous
figure's comment on that line), with trailing blanks, "*" and "`"
removed, must end with the formatted value, and the character before it
must not be a digit, "." or "," (so 11.42 does not pass for 1.42).  One
case per document that has figures (README.md, docs/**/*.md), listing
the figures that differ or cannot be read; and a case that feeds the
checker figures known to be wrong.  Fenced code blocks are skipped.
make test runs it with the unit tests.
"""
import csv
import glob
import gzip
import io
import json
import os
import re
import shlex
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIG = re.compile(r"<!--\s*fig\s+(.*?)\s*-->")
OPTIONS = ("col", "agg", "key", "line", "field", "re", "scale", "fmt")
AGGS = {"min": min, "max": max, "sum": sum, "count": len, "mean": statistics.mean,
        "median": statistics.median}


class FigError(Exception):
    pass


def number(v):
    if isinstance(v, (int, float)):
        return v
    s = str(v).strip().replace(",", "")
    try:
        return int(s)
    except ValueError:
        try:
            return float(s)
        except ValueError:
            raise FigError("%r is not a number" % v) from None


def read_text(path, cache):
    if path not in cache:
        full = os.path.join(TOP, path)
        if not os.path.isfile(full):
            raise FigError("no file %s" % path)
        opener = gzip.open if path.endswith(".gz") else open
        with opener(full, "rt", newline="") as f:
            cache[path] = f.read()
    return cache[path]


def pick_csv(path, filters, opts, text):
    rows = list(csv.DictReader(io.StringIO(text)))
    cols = rows[0].keys() if rows else []
    for name in list(filters) + ([opts["col"]] if "col" in opts else []):
        if name not in cols:
            raise FigError("%s has no column %r" % (path, name))
    if "col" not in opts:
        raise FigError("a CSV figure needs col=")
    hit = [r for r in rows if all(r[k] == v for k, v in filters.items())]
    if not hit:
        raise FigError("no row of %s has %s" % (path, filters))
    vals = [r[opts["col"]] for r in hit]
    if "agg" in opts:
        if opts["agg"] not in AGGS:
            raise FigError("agg=%s: not one of %s" % (opts["agg"], "|".join(AGGS)))
        return AGGS[opts["agg"]](vals if opts["agg"] == "count" else [number(v) for v in vals])
    if len(vals) > 1:
        raise FigError("%d rows of %s have %s (add a filter or agg=)" % (len(vals), path, filters))
    return vals[0]


def pick_json(path, opts, text):
    v = json.loads(text)
    for part in opts.get("key", "").split(".") if opts.get("key") else []:
        try:
            v = v[int(part)] if isinstance(v, list) else v[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise FigError("%s has no %s" % (path, opts["key"])) from None
    return v


def pick_text(path, opts, text):
    lines = text.splitlines()
    if "key" in opts:
        hit = [ln for ln in lines if ln.split()[:1] in ([opts["key"]], [opts["key"] + ":"])]
        field = opts.get("field", "2")
    elif "line" in opts:
        hit = [ln for ln in lines if re.search(opts["line"], ln)]
        field = opts.get("field")
    else:
        raise FigError("a text figure needs key= or line=")
    if not hit:
        raise FigError("no line of %s matches %s" % (path, opts.get("key") or opts["line"]))
    if field is None:
        return hit[0]
    words = hit[0].split()
    try:
        return words[int(field) - 1 if int(field) > 0 else int(field)]
    except (IndexError, ValueError):
        raise FigError("line %r has no field %s" % (hit[0], field)) from None


def value(spec, cache):
    """The formatted value a fig comment's words SPEC ask for."""
    try:
        words = shlex.split(spec)
    except ValueError as e:
        raise FigError("cannot split %r: %s" % (spec, e)) from None
    if not words:
        raise FigError("no file named")
    path, opts, filters = words[0], {}, {}
    for w in words[1:]:
        if "=" not in w:
            raise FigError("%r is not NAME=VALUE" % w)
        k, v = w.split("=", 1)
        (opts if k in OPTIONS else filters)[k] = v
    text = read_text(path, cache)
    base = path[:-3] if path.endswith(".gz") else path
    if base.endswith(".csv"):
        v = pick_csv(path, filters, opts, text)
    elif filters:
        raise FigError("%s is not CSV: no filters (%s)" % (path, " ".join(filters)))
    elif base.endswith(".json"):
        v = pick_json(path, opts, text)
    else:
        v = pick_text(path, opts, text)
    if "re" in opts:
        m = re.search(opts["re"], str(v))
        if not m:
            raise FigError("%r does not match re=%s" % (v, opts["re"]))
        v = m.group(1) if m.groups() else m.group(0)
    if "scale" in opts:
        v = number(v) * number(opts["scale"])
    fmt = opts.get("fmt")
    if fmt is None:
        return str(v)
    try:
        if fmt.startswith("{"):
            return fmt.format(v if isinstance(v, (int, float)) else number(v))
        return fmt % (number(v) if re.search(r"%[-+ #0-9.]*[dieEfFgGxXo]", fmt) else v)
    except (ValueError, TypeError) as e:
        raise FigError("fmt=%s on %r: %s" % (fmt, v, e)) from None


def check_text(text, cache):
    """(figures, problems) of a document's text."""
    n, bad, fence = 0, [], False
    for lineno, ln in enumerate(text.splitlines(), 1):
        if ln.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        start = 0
        for m in FIG.finditer(ln):
            n += 1
            before = ln[start:m.start()].rstrip(" \t*`")
            start = m.end()
            try:
                want = value(m.group(1), cache)
            except FigError as e:
                bad.append("line %d: %s" % (lineno, e))
                continue
            head = before[:len(before) - len(want)]
            if not before.endswith(want) or (head and head[-1] in "0123456789.,"):
                got = before.split()[-1] if before.split() else ""
                bad.append("line %d: the text has %r, %s gives %r"
                           % (lineno, got, m.group(1).split()[0], want))
    return n, bad


def self_check():
    """None if the checker catches known-wrong figures and passes right ones."""
    cache = {"t.csv": "p,c,x\nhold,a,1.4249\nhold,b,3\nstock,a,17032\n",
             "t.json": '{"a": {"b": [5, 0.5]}}', "t.txt": "speed: 12.5 M/s\nfoo bar 7\n"}
    good = ("1.42<!-- fig t.csv p=hold c=a col=x fmt=%.2f --> "
            "17,032<!-- fig t.csv p=stock col=x fmt={:,} --> "
            "17.0k<!-- fig t.csv p=stock col=x scale=0.001 fmt=%.1fk --> "
            "2.21<!-- fig t.csv p=hold col=x agg=median fmt=%.2f --> "
            "0.5<!-- fig t.json key=a.b.1 --> 12.5<!-- fig t.txt key=speed: --> "
            "**7**<!-- fig t.txt line='^foo' field=-1 --> "
            "12<!-- fig t.txt key=speed: re='^(\\d+)' -->")
    bad = ("1.43<!-- fig t.csv p=hold c=a col=x fmt=%.2f --> "
           "11.42<!-- fig t.csv p=hold c=a col=x fmt=%.2f --> "
           "3<!-- fig t.csv p=hold col=x --> "
           "3<!-- fig t.csv p=none col=x --> "
           "3<!-- fig t.csv p=hold c=b col=y --> "
           "5<!-- fig t.json key=a.c --> "
           "3<!-- fig missing.csv p=x col=y -->")
    n, probs = check_text(good, dict(cache))
    if n != 8 or probs:
        return "right figures refused: %s" % "; ".join(probs)
    n, probs = check_text(bad, dict(cache))
    if len(probs) != n:
        return "%d of %d wrong figures caught" % (len(probs), n)
    return None


def main():
    docs = ([os.path.join(TOP, "README.md")] + sorted(glob.glob(os.path.join(TOP, "docs", "*.md")))
            + sorted(glob.glob(os.path.join(TOP, "docs", "*", "*.md"))))
    cache, cases = {}, []
    for doc in docs:
        with open(doc) as f:
            n, probs = check_text(f.read(), cache)
        if n:
            cases.append((os.path.relpath(doc, TOP), n, probs))
    print("KTAP version 1")
    print("1..%d" % (len(cases) + 1))
    rc = 0
    err = self_check()
    if err:
        rc = 1
        print("not ok 1 figure_check_catches_wrong_figures # %s" % err)
    else:
        print("ok 1 figure_check_catches_wrong_figures")
    for i, (name, n, probs) in enumerate(cases, 2):
        slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        if probs:
            rc = 1
            for p in probs:
                print("# %s: %s" % (name, p))
            print("not ok %d %s_figures_match_files # %d of %d differ or cannot be read: %s"
                  % (i, slug, len(probs), n, "; ".join(probs[:3]) + (" ..." if len(probs) > 3 else "")))
        else:
            print("ok %d %s_figures_match_files # %d figures" % (i, slug, n))
    return rc


if __name__ == "__main__":
    sys.exit(main())
