#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The goals a policy is judged by on instances of the workload
distribution (userspace/sim/dist.c), in the simulator and in the guest.

A library: dist.py (the simulator's distribution, one count per instance
and policy) and sample.py (the guest's sample, several runs per instance)
build a table with one row per instance: its family, its drawn parameters
and frames, and for every policy the median swap-ins with the range of the
runs (lo, hi; all three equal for the simulator), OPT's exact count
beside.  check() then states each goal for one policy against its peers
(stock 6.1 and MGLRU: "the better" is, per instance, whichever missed
less):

  no-harm-95    swap-ins at most 1.03x the better's on 95 % of instances
  no-harm-max   ... and never above 1.10x
  slide-fits    a sliding window of at most one memory costs at most
                frames / 32 swap-ins ("a few hundred" at 64 MiB: the
                guest measured MGLRU at a few dozen on a window of half
                of memory; the simulator's model of MGLRU does not get
                there on larger windows)
  loop-opt      loops of 1.05x to 4x memory at most 1.5x OPT
  thrash-opt    the seed's thrash shape, cold slices returning, at most
                1.28x OPT
  scanhot-kept  a hot set re-read between used-once scans is kept after
                the first round: no more swap-ins than the hot set has
                pages
  family-gain   on the loop, scanhot and thrash families, the median at
                least 20 % below the better peer

Every ratio is (swap-ins + 1) / (the other's + 1), so that two zeros are
even.  Every goal is judged at the runs' medians (`at_medians`: met or
missed).  Whether the sample tells that apart is asked two ways:

  - a goal on a statistic over instances (no-harm-95's 95th percentile,
    family-gain's median) gets a 95 % bootstrap interval over instances
    (BOOT resamples, a fixed seed): told apart when the interval lies on
    one side of the bound;
  - a goal on every instance (the others) is told apart, when met, if
    every instance's runs' range is within the bound, and when missed, if
    some instance's whole range is beyond it (the ratio of a range is
    [lo / the other's hi, hi / the other's lo]).

The verdict is `at_medians` when told apart, else "not told apart",
whatever the medians say: never "met".  The simulator's single counts
have points for ranges, so only the bootstrap can leave a goal untold.

compare() asks another question: is one policy (a change) different from
another (the policy as it was), instance by instance?  It takes the
geometric mean over instances of the ratio of their medians, with the
same bootstrap interval: fewer swap-ins when the interval lies below 1,
more when above, else not told apart; beside it, the instances whose
runs' ranges do not overlap, and each one's count above the no-harm
bound.

Families left to the guest (check()'s guest_only: those where the MGLRU
model does not follow the guest, simguest.py --families): the goals
against the better peer (no-harm-95, no-harm-max, family-gain) leave
their instances out, and each such family gets a row "family-FAMILY"
whose verdict is "from the guest only".  The goals against OPT or an
absolute bound keep them: they do not read the MGLRU model.
"""
import math
import re

import numpy as np
import pandas as pd

NO_HARM, NO_HARM_MAX, NO_HARM_SHARE = 1.03, 1.10, 0.95
LOOP_OPT, THRASH_OPT, FAMILY_GAIN = 1.5, 1.28, 0.8
LOOP_SIZES = (1.05, 4.0)
SLIDE_FRAMES_SHARE = 32
GAIN_FAMILIES = ("loop", "scanhot", "thrash")
BOOT, BOOT_SEED, BOOT_LEVEL = 2000, 1, 0.95


def param(params, key):
    """The value of KEY (a number, 'x' suffix dropped) in a 'k=v ...' string,
    or nan."""
    m = re.search(r"(?:^|\s)%s=([0-9.]+)x?(?:\s|$)" % re.escape(key), params)
    return float(m.group(1)) if m else math.nan


def ratio(t, a, b):
    """(median, lo, hi) of (a + 1) / (b + 1), per row, for columns a and b
    with their _lo and _hi ranges."""
    med = (t[a] + 1) / (t[b] + 1)
    lo = (t[a + "_lo"] + 1) / (t[b + "_hi"] + 1)
    hi = (t[a + "_hi"] + 1) / (t[b + "_lo"] + 1)
    return med, lo, hi


def add_better(t, peers):
    """Columns 'better', 'better_lo', 'better_hi': per instance, the peer with
    the lower median, and the range of the lower of the peers."""
    t = t.copy()
    best = t[list(peers)].idxmin(axis=1)
    t["better"] = [t.at[i, p] for i, p in best.items()]
    t["better_lo"] = t[[p + "_lo" for p in peers]].min(axis=1)
    t["better_hi"] = t[[p + "_hi" for p in peers]].min(axis=1)
    t["better_of"] = best
    return t


def span(med, lo, hi, fmt="%.3f"):
    """'med' alone when the range is a point, else 'med (lo-hi)'."""
    if lo == hi == med:
        return fmt % med
    return (fmt + " (" + fmt + "-" + fmt + ")") % (med, lo, hi)


def bootstrap(values, stat, seed=BOOT_SEED):
    """The BOOT_LEVEL interval of STAT(sample) over BOOT resamples of VALUES
    (instances drawn with replacement)."""
    v = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    draws = [stat(v[rng.integers(0, len(v), len(v))]) for _ in range(BOOT)]
    tail = (1 - BOOT_LEVEL) / 2
    return float(np.quantile(draws, tail)), float(np.quantile(draws, 1 - tail))


def judged(ok, told):
    """(verdict, at_medians): at the medians, met when OK; the verdict is
    that when TOLD apart, else "not told apart"."""
    at = "met" if ok else "missed"
    return (at if told else "not told apart"), at


def by_interval(value, interval, bound):
    """A statistic at most BOUND: (verdict, at_medians), told apart when its
    bootstrap INTERVAL lies on one side of BOUND."""
    lo, hi = interval
    return judged(value <= bound, hi <= bound or lo > bound)


def by_instance(med, lo, hi, bound):
    """Every instance's median at most BOUND: (verdict, at_medians).  Met is
    told apart when every instance's range is within BOUND, missed when
    some instance's whole range is above it."""
    ok = bool((med <= bound).all())
    return judged(ok, bool((hi <= bound).all()) if ok else bool((lo > bound).any()))


def check(t, policy, peers, guest_only=()):
    """[(goal, verdict, at_medians, figure, detail)] for POLICY against PEERS
    in table T, the families GUEST_ONLY left out of the goals against the
    better peer."""
    t = add_better(t, peers)
    everyone = t
    t = t[~t.family.isin(guest_only)]
    med, lo, hi = ratio(t, policy, "better")
    out = []

    def p95(v):
        return float(np.quantile(v, NO_HARM_SHARE))

    n = len(t)
    if not n:	# every family left to the guest: only their rows below
        return check_bounds(everyone, policy, out) + guest_rows(everyone, guest_only)
    ci = bootstrap(med, p95)
    out.append(("no-harm-95",) + by_interval(p95(med), ci, NO_HARM) +
                ("p95 %.3f (%.3f-%.3f), median %.3f" % (p95(med), ci[0], ci[1], med.median()),
                 "%d of %d instances above %.2fx the better at the medians (%d at the runs' best);"
                 " the p95's %d %% bootstrap interval over instances in brackets"
                 % (int((med > NO_HARM).sum()), n, NO_HARM, int((lo > NO_HARM).sum()),
                    round(100 * BOOT_LEVEL))))
    w = med.idxmax()
    out.append(("no-harm-max",) + by_instance(med, lo, hi, NO_HARM_MAX) +
                ("worst " + span(med[w], lo[w], hi[w]),
                 "instance %s, %s: %s" % (w, t.at[w, "family"], t.at[w, "params"])))
    check_bounds(everyone, policy, out)
    for fam in GAIN_FAMILIES:
        s = t[t.family == fam]
        if not len(s):
            continue
        m, l, h = ratio(s, policy, "better")
        ci = bootstrap(m, np.median)
        out.append(("family-gain-" + fam,) + by_interval(m.median(), ci, FAMILY_GAIN) +
                   ("median %.3f (%.3f-%.3f)" % (m.median(), ci[0], ci[1]),
                    "%d instances, median at most %.2fx the better; its %d %% bootstrap"
                    " interval over instances in brackets"
                    % (len(s), FAMILY_GAIN, round(100 * BOOT_LEVEL))))
    return out + guest_rows(everyone, guest_only)


def check_bounds(t, policy, out):
    """check()'s goals against OPT or an absolute bound, appended to OUT."""
    s = t[(t.family == "slide") & (t.params.map(lambda p: param(p, "window")) <= 1.0)]
    if len(s):
        lim = s.frames / SLIDE_FRAMES_SHARE
        w = (s[policy] - lim).idxmax()
        out.append(("slide-fits",) + by_instance(s[policy] / lim, s[policy + "_lo"] / lim,
                                                 s[policy + "_hi"] / lim, 1.0) +
                   ("worst %d (limit %d)" % (s.at[w, policy], lim[w]),
                    "%d windows of at most one memory; worst instance %s: %s"
                    % (len(s), w, s.at[w, "params"])))
    for goal, fam, cond, bound in (
            ("loop-opt", "loop",
             lambda p: LOOP_SIZES[0] <= param(p, "size") <= LOOP_SIZES[1], LOOP_OPT),
            ("thrash-opt", "thrash", lambda p: True, THRASH_OPT)):
        s = t[(t.family == fam) & t.params.map(cond)]
        if not len(s):
            continue
        m, l, h = ratio(s, policy, "OPT")
        w = m.idxmax()
        out.append((goal,) + by_instance(m, l, h, bound) +
                   ("median %.2f, worst %.2f x OPT" % (m.median(), m[w]),
                    "%d instances at most %.2fx OPT: %d; worst instance %s: %s"
                    % (len(s), bound, int((m <= bound).sum()), w, s.at[w, "params"])))
    s = t[t.family == "scanhot"]
    if len(s):
        hot = s.params.map(lambda p: param(p, "hot")) * s.frames
        w = (s[policy] / hot).idxmax()
        out.append(("scanhot-kept",) + by_instance(s[policy] / hot, s[policy + "_lo"] / hot,
                                                   s[policy + "_hi"] / hot, 1.0) +
                   ("worst %d swap-ins, hot set %d" % (s.at[w, policy], hot[w]),
                    "%d instances with at most the hot set's pages: %d; worst instance %s: %s"
                    % (len(s), int((s[policy] <= hot).sum()), w, s.at[w, "params"])))
    return out


def guest_rows(t, guest_only):
    """A row for each family of T left to the guest."""
    out = []
    for fam in sorted(guest_only):
        n_fam = int((t.family == fam).sum())
        if n_fam:
            out.append(("family-" + fam, "from the guest only", "-", "%d instances" % n_fam,
                        "left out of the goals against the better peer: the MGLRU model does"
                        " not follow the guest on this family (simguest.py --families)"))
    return out


def table_of_counts(wide):
    """The simulator's wide table (one count per instance and policy, and
    the instance's family, params and frames) as a goals table: lo = hi =
    the count."""
    t = wide.copy()
    for p in [c for c in wide.columns if c not in ("family", "params", "frames")]:
        t[p + "_lo"] = t[p]
        t[p + "_hi"] = t[p]
    return t


def report(t, policy, peers, guest_only=()):
    """The goals as printable lines."""
    rows = check(t, policy, peers, guest_only)
    lines = ["goals of %s against the better of %s, per instance:" % (policy, " and ".join(peers))]
    for goal, v, at, fig, detail in rows:
        lines.append("  %-20s %-15s %-7s %-36s %s" % (goal, v, at, fig, detail))
    return lines, pd.DataFrame(rows, columns=["goal", "verdict", "at_medians", "figure", "detail"])


def compare(t, policy, base, peers):
    """POLICY against BASE on the same instances of T: printable lines and
    a one-row frame (policy, against, instances, geomean, its interval,
    verdict, instances told apart each way, each one's count above the
    no-harm bound against the better of PEERS)."""
    med, lo, hi = ratio(t, policy, base)
    logs = np.log(med.to_numpy(dtype=float))
    gm = float(np.exp(logs.mean()))
    ci = tuple(float(np.exp(x)) for x in bootstrap(logs, np.mean))
    verdict = "fewer" if ci[1] < 1 else "more" if ci[0] > 1 else "not told apart"
    fewer, more = int((hi < 1).sum()), int((lo > 1).sum())
    b = add_better(t, peers)
    harm = [int(((b[p] + 1) / (b.better + 1) > NO_HARM).sum()) for p in (policy, base)]
    row = {"policy": policy, "against": base, "instances": len(t), "geomean": round(gm, 4),
           "geomean_lo": round(ci[0], 4), "geomean_hi": round(ci[1], 4), "verdict": verdict,
           "apart_fewer": fewer, "apart_more": more, "above_no_harm": harm[0],
           "above_no_harm_against": harm[1]}
    lines = ["%s against %s on %d instances: swap-ins x%.3f in the geometric mean "
             "(%d %% bootstrap interval %.3f-%.3f): %s; runs' ranges apart in %d "
             "(%d fewer, %d more); above %.2fx the better of %s: %d against %d"
             % (policy, base, len(t), gm, 100 * BOOT_LEVEL, ci[0], ci[1], verdict,
                fewer + more, fewer, more, NO_HARM, " and ".join(peers), harm[0], harm[1])]
    return lines, pd.DataFrame([row])
