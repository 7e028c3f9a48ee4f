#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Summary of a `make bench-cost` run (harness/bench/bench-cost.sh): reads its
# runs.tsv (one line per run, tab-separated key=value fields: kernel, conf,
# rep, wall_us = guest time around the run in us under -icount, res_seconds
# = the workload's own CLOCK_MONOTONIC seconds (ms resolution), vm_*
# deltas) and prints, per kernel and configuration, the median, min, max
# and spread of the guest time over the measured runs (rep 0 is the
# discarded warm-up), then the comparisons the benchmark is for: the
# patched kernel without module (never loaded in its boot, kernel "never",
# and after a load and an unload) against the unpatched kernel, each
# policy against stock, and on 6.12 each BPF policy (bdetect) against the
# same policy in C (detect).  A difference counts as resolved when the two sets
# of runs do not overlap (every run of one is slower than every run of the
# other), as resolved past outliers when only their middle halves (first
# to third quartile) are apart, and otherwise as within the noise, whose
# size is printed.  With
# several boots (BOOTS=N) the runs of all boots are pooled, and each boot's
# median is printed too.
# A stored runs.tsv may be gzipped (results/bench-cost-*/runs.tsv.gz).
# Standard library only.

import gzip
import statistics
import sys


def load(path):
    runs = []
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
        for line in f:
            row = dict(kv.split('=', 1) for kv in line.rstrip('\n').split('\t') if '=' in kv)
            if row.get('rep', '0') == '0':
                continue
            if row.get('rc') != '0' or row.get('res_verify_fail') != '0':
                raise SystemExit('error: a failed run in %s: %s' % (path, line.strip()))
            runs.append(row)
    return runs


WORK = ('vm_pswpin', 'vm_pswpout', 'cg_pgscan', 'vm_pgactivate', 'vm_pgdeactivate')


def quartiles(x):
    return statistics.quantiles(x, n=4, method='inclusive')


def pct(a, b):
    return 100.0 * (a - b) / b


def main():
    runs = load(sys.argv[1])
    groups = {}
    order = []
    for r in runs:
        key = (r['kernel'], r['conf'])
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(r)

    def secs(key):
        return [int(r['wall_us']) / 1e6 for r in groups[key]]

    def med(key, field):
        return statistics.median(int(r.get(field, 0)) for r in groups[key])

    print('figure: guest seconds around each run (fork, exec, the workload, exit), measured in the')
    print('guest to the us; under -icount shift=0 1 ns of guest time = 1 executed instruction.')
    print('wl_s: the workload\'s own CLOCK_MONOTONIC seconds (allocation to end of verification), median.')
    print('range% = (max - min) / median, iqr% = (Q3 - Q1) / median.  The counts: medians of the /proc/vmstat deltas')
    print('(pgscan: the run cgroup\'s memory.stat; pgdeact = pgdeactivate).')
    print()
    print('%-10s %-9s %2s %10s %10s %10s %7s %6s %7s %7s %7s %7s %7s %7s' % (
        'kernel', 'conf', 'n', 'median_s', 'min_s', 'max_s', 'range%', 'iqr%', 'wl_s',
        'pgfault', 'pswpin', 'pswpout', 'pgscan', 'pgdeact'))
    for key in order:
        s = secs(key)
        m = statistics.median(s)
        q = quartiles(s) if len(s) >= 2 else (m, m, m)
        print('%-10s %-9s %2d %10.6f %10.6f %10.6f %7.3f %6.3f %7.3f %7d %7d %7d %7d %7d' % (
            key[0], key[1], len(s), m, min(s), max(s), 100 * (max(s) - min(s)) / m,
            100 * (q[2] - q[0]) / m,
            statistics.median(float(r['res_seconds']) for r in groups[key]),
            med(key, 'vm_pgfault'), med(key, 'vm_pswpin'), med(key, 'vm_pswpout'),
            med(key, 'cg_pgscan'), med(key, 'vm_pgdeactivate')))

    boots = sorted({r.get('boot', '1') for r in runs}, key=int)
    if len(boots) > 1:
        print()
        print('boot to boot: median of each boot (s), and their range')
        for key in order:
            ms = [statistics.median(int(r['wall_us']) / 1e6 for r in groups[key]
                                    if r.get('boot', '1') == b) for b in boots]
            print('%-10s %-9s %s  range %.3f%%' % (
                key[0], key[1], ' '.join('%.6f' % m for m in ms),
                100 * (max(ms) - min(ms)) / statistics.median(ms)))

    def compare(label, a, b, goal):
        if a not in groups or b not in groups:
            print('%s: not measured' % label)
            return
        sa, sb = secs(a), secs(b)
        ma, mb = statistics.median(sa), statistics.median(sb)
        d = pct(ma, mb)
        if min(len(sa), len(sb)) < 2:
            res = 'one run each: no spread to judge by'
        elif min(sa) > max(sb) or max(sa) < min(sb):
            res = 'resolved (no run overlaps)'
        elif min(len(sa), len(sb)) >= 4 and (quartiles(sa)[0] > quartiles(sb)[2] or
                                             quartiles(sa)[2] < quartiles(sb)[0]):
            res = 'resolved past outliers (the middle halves are apart, the ranges overlap)'
        else:
            noise = max((max(x) - min(x)) / statistics.median(x) for x in (sa, sb))
            res = 'within the noise (ranges overlap; largest range %.3f%%)' % (100 * noise)
        if goal is None:
            verdict = 'no goal of its own'
        else:
            verdict = '%s the <= %g%% goal' % ('meets' if d <= goal else 'MISSES', goal)
        print('%-31s %+7.3f%%  %s; %s' % (label + ':', d, verdict, res))
        # the reclaim work itself: a policy that swaps or scans more is
        # slower for that, not for its hooks.  Over 5 %: the counts of one
        # configuration settle on a few values up to about 3 % apart.
        work = ['%s %d vs %d' % (f.split('_', 1)[1], med(a, f), med(b, f)) for f in WORK
                if abs(med(a, f) - med(b, f)) > 0.05 * max(med(b, f), 1)]
        if work:
            print('%41s (different work, medians: %s;' % ('', ', '.join(work)))
            print('%41s  the policy\'s reclaim, not only its hooks)' % '')

    print()
    print('comparisons of the medians:')
    # the patched kernel whose module was never loaded in the boot: every
    # swap-in takes anon_ws_refault()'s inline path (a static key and a
    # test of the shadow generation before stock's call)
    compare('patched, never loaded, vs unpatched', ('never', 'nomod'), ('unpatched', 'nomod'), 1)
    compare('patched nomod vs unpatched', ('default', 'nomod'), ('unpatched', 'nomod'), 1)
    compare('stock (module loaded) vs nomod', ('default', 'stock'), ('default', 'nomod'), None)
    for key in order:
        if key[0] == 'default' and key[1] not in ('nomod', 'stock'):
            compare('%s vs stock' % key[1], key, ('default', 'stock'), 3)
    # 6.12: a BPF policy (userspace/bpf/b<name>.bpf.c) against the same
    # policy in C, when both ran: what the BPF path costs.
    for key in order:
        c = ('default', key[1][1:])
        if key[0] == 'default' and key[1].startswith('b') and c in groups:
            compare('%s (BPF) vs %s (C)' % (key[1], c[1]), key, c, None)


if __name__ == '__main__':
    main()
