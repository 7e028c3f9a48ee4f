// SPDX-License-Identifier: GPL-2.0
/*
 * stable - detect, plus a stable subset of the refaults too long for it
 *
 *		Loops and scans larger than memory
 *
 * detect (and 6.1) activate a refault when its distance shows that the
 * page would have stayed resident had the active list given up that
 * many slots.  A page whose reuse interval exceeds memory never passes
 * that test, so when a workload loops over more than memory every page
 * is evicted from the inactive list just before its next use, pass after
 * pass: plain LRU's worst case, where OPT would keep most of the region
 * and miss only what does not fit.
 *
 * Protecting all such pages helps nothing: the active list is a FIFO for
 * anon (6.1 deactivates from its tail whatever the accessed bit says),
 * so admitting every long refault only makes the page travel both lists
 * before it is evicted, a longer LRU that is still shorter than the
 * loop.  What helps is to protect a subset that fits and to protect the
 * *same* subset on every pass: its pages then hit on the active list,
 * never refault, and cause no further activation, so nothing pushes them
 * out.  LIRS, CLOCK-Pro and ARC reach that state with history lists and
 * per-page reference bits; here it is reached by a choice that needs no
 * history at all:
 *
 *   a page is admitted when a hash of its identity, read as a fraction
 *   h in [0, 1), is below C / R,
 *
 * where R = distance + resident anon is the page's reuse span (a loop of
 * R pages puts R - resident evictions between a page's eviction and its
 * refault) and C the part of the active list the subset may use
 * (below).  Of a loop of R pages that admits R * C / R = C pages: what
 * the active list can give it.  The
 * thresholds are nested - a page admitted at C / R is admitted at any
 * larger fraction - so the admitted set does not drift when C or R
 * wobble, and a page with a small hash stays eligible for as long as the
 * loop runs.  A page whose span fits (R <= C) always passes.
 *
 * The identity is aws_refault.id: the page id in the simulator, the swap
 * entry in the module (stable while the page keeps its swap slot; 0,
 * unknown, is never admitted on this rule).
 *
 *		How much of the active list the subset may use
 *
 * The active list holds A = resident / 2 pages: 6.1 balances the lists
 * to the inactive ratio, 1 below 1 GiB, and under that target the active
 * list holds at most half.  The subset shares it with the pages that are
 * the workingset in the ordinary sense: refaults detect's rule activates
 * (distance within the active list) and pages the two-reference rule
 * activates in reclaim.  For anon the active list is a FIFO, so by
 * Little's law each stream of activations occupies its arrival rate times
 * the time its pages must stay: a refault activated at distance d must
 * stay for inactive + d ticks (the part of its reuse span the lists do
 * not already cover), a reclaim activation for about one pass of the
 * inactive list (it was used twice within one).  Summed over a window of
 * ticks, W = sum of those spans / ticks is what the workingset needs of
 * the active list, and the subset gets the rest:
 *
 *   C = A - W
 *
 * On a loop there are no short-distance activations and W is 0, so the
 * subset may fill the active list; on the seed's thrash shape hot-2
 * comes back by detect's rule and the two-reference rule every round,
 * W approaches hot-2's size and the subset shrinks to what is left.  A
 * FIFO that holds a page longer than it is admitted pushes the page
 * nobody asked about out of its tail, so the subset never displaces: a
 * hash admission is refused while the active list already holds C or
 * more pages.  The hash threshold C / R stays nested as C moves, so the
 * admitted set only grows or shrinks at its edge.
 *
 *		Quiet admissions
 *
 * 6.1's prepare_scan_count() ages the active list in every reclaim that
 * follows a change of WORKINGSET_ACTIVATE_ANON ("a new workingset is
 * being established"), at the rate the inactive list is scanned.  An
 * admission to the subset establishes nothing new: it is sized to fit
 * and meant to stay, and ageing the active list for it removes the
 * subset as fast as it is built (in the simulator, every gain on loops
 * vanished).  So a subset admission is quiet (struct aws_refault's
 * quiet: not counted in WORKINGSET_ACTIVATE_ANON) - but only while the
 * workingset needs nothing of the active list (W = 0: neither detect's
 * rule nor the two-reference rule activated a page in the window).
 * While they do, pages of the workingset are being pushed out of the
 * active list, the subset may be what pushes them, and stock's ageing is
 * what lets them back in through the two-reference rule: admissions stay
 * loud then, and detect's own activations are always loud, as in stock.
 *
 * What W cannot see: a workingset that sits on the active list and never
 * leaves it (nothing ages the list, no refault, no reclaim activation)
 * has no flow, so W is 0 while it occupies the list, and the subset
 * takes room that such a set is about to need when the list is next
 * aged.  The simulator's default model shows it (no --refault-deactivate,
 * thrash with a hot-2 of 80 % of the active list: 2.8 % more swap-ins
 * than detect); under 6.1's refault-driven ageing the set flows and W
 * sees it.
 *
 *		Who survives in the active list
 *
 * An admitted page only pays off if it is still on the active list when
 * it is next used.  The active list is drained at the rate pages are
 * activated, so a page admitted at an activation rate of a (activations
 * per tick of the anon clock, which evictions and activations advance)
 * stays for about C / a ticks.  A page whose span is R ticks survives if
 * a * R <= C.  When it would not, admitting it only pushes out a page
 * that would have survived, so an admission by either rule - detect's or
 * the hash - requires a * R <= C, with R the page's span and C the
 * subset's room for the hash rule, and inactive anon + distance and the
 * whole active list A for detect's rule.  The rate is counted by the
 * policy itself (evict, age and refault see every eviction and
 * activation), in pages (a THP is evicted and activated whole but read
 * back page by page), and every count is halved each time the ticks pass
 * STABLE_WINDOW memories (resident anon at the last refault), so the
 * policy forgets what happened more than a memory or so ago.
 *
 * Everything else is detect: inactive-first placement, shadows on a
 * private anon clock aged by evictions and activations, file refaults
 * compared with active file, no PSI marking of ordinary swap-ins (6.1's
 * choice; a restore is still marked by the framework).  The policy's
 * private state is five words per lruvec, updated without a lock: a
 * lost update only blurs the rate.
 *
 * For the sensitivity sweep (userspace/sim/sweep.sh stable) the two
 * derived constants can be overridden at compile time: STABLE_CAP_NUM /
 * STABLE_CAP_DEN (A as a fraction of resident anon, 1/2) and
 * STABLE_WINDOW (the rates' memory, in memories of ticks, 1).
 */
#include "aws_policy.h"

#ifndef STABLE_CAP_NUM
#define STABLE_CAP_NUM	1
#endif
#ifndef STABLE_CAP_DEN
#define STABLE_CAP_DEN	2
#endif
#ifndef STABLE_WINDOW
#define STABLE_WINDOW	1
#endif

struct stable_state {
	unsigned long ticks;	/* evictions + activations, decayed */
	unsigned long acts;	/* activations, decayed alike */
	unsigned long need;	/* spans of workingset activations, alike */
	unsigned long resident;	/* resident anon at the last refault */
	unsigned long inactive;	/* inactive anon at the last refault */
};

/*
 * @nr ticks of the anon clock, one per page (a THP's eviction is the 512
 * order-0 refaults 6.1 will read it with): activations if @act, each of
 * which must stay @span.
 */
AWS_ALWAYS(stable, new_anon, AWS_NO)	/* start inactive */
AWS_FILE_WORKINGSET_ACTIVE(stable)

static void stable_tick(struct stable_state *s, unsigned long nr, bool act,
			unsigned long span)
{
	unsigned long window = s->resident * STABLE_WINDOW;
	unsigned long t = aws_sat_add(s->ticks, nr);
	unsigned long a = act ? aws_sat_add(s->acts, nr) : s->acts;
	unsigned long n = aws_sat_add(s->need, aws_sat_mul(span, nr));

	if (t > (window ? window : 1)) {
		t >>= 1;
		a >>= 1;
		n >>= 1;
	}
	s->ticks = t;
	s->acts = a;
	s->need = n;
}

AWS_ON_EVICT(stable_evict)
{
	struct stable_state *s = AWS_STATE(struct stable_state, state);

	if (s)
		stable_tick(s, f->nr_pages, false, 0);
	return AWS_YES;
}

/* A reclaim activation: used twice within one pass of the inactive list. */
AWS_ON_AGE(stable_age)
{
	struct stable_state *s = AWS_STATE(struct stable_state, state);

	if (s)
		stable_tick(s, f->nr_pages, true, s->inactive);
	return AWS_YES;
}

/* num / den < x / y; each pair is scaled on its own, so no product overflows. */
static bool stable_less(unsigned long num, unsigned long den,
			unsigned long x, unsigned long y)
{
	while (num >= 1UL << 15 || den >= 1UL << 15) {
		num >>= 1;
		den >>= 1;
	}
	while (x >= 1UL << 15 || y >= 1UL << 15) {
		x >>= 1;
		y >>= 1;
	}
	return num * (y ? y : 1) < x * (den ? den : 1);
}

/* Would a page of @span ticks survive on the active list: a * span <= C? */
static bool stable_survives(const struct stable_state *s, unsigned long span,
			    unsigned long cap)
{
	unsigned long a = s->acts, t = s->ticks;

	if (!span)
		return true;
	/* a / t > cap / span: the page would be pushed out before reuse */
	return !stable_less(cap, span, a, t ? t : 1);
}

/* The subset's room C = A - W, W = need / ticks (Little's law). */
static unsigned long stable_room(const struct stable_state *s,
				 unsigned long full)
{
	unsigned long w = s->ticks ? s->need / s->ticks : 0;

	return w < full ? full - w : 0;
}

AWS_ON_REFAULT(stable_refault)
{
	const struct aws_lru_sizes *z = &r->sizes;
	unsigned long resident = aws_sat_add(z->active_anon, z->inactive_anon);
	unsigned long full = resident / STABLE_CAP_DEN * STABLE_CAP_NUM;
	unsigned long span = aws_sat_add(r->distance, resident);
	unsigned long dspan = aws_sat_add(r->distance, z->inactive_anon);
	struct stable_state *s = AWS_STATE(struct stable_state, state);
	unsigned long cap;

	r->workingset_size = z->active_anon;
	if (s) {
		s->resident = resident;
		s->inactive = z->inactive_anon;
	}

	/* detect's rule, if the page would survive: loud, as stock */
	if (r->distance <= z->active_anon &&
	    (!s || stable_survives(s, dspan, full))) {
		if (s)
			stable_tick(s, r->nr_pages, true, dspan);
		return AWS_YES;
	}
	/* the stable subset: h < C / R, into room that is free */
	if (!r->id || !s)
		return AWS_NO;
	cap = stable_room(s, full);
	if (z->active_anon >= cap)
		return AWS_NO;
	if (!stable_less(aws_hash16(r->id), 1UL << 16, cap, span))
		return AWS_NO;
	if (!stable_survives(s, span, cap))
		return AWS_NO;
	/* quiet while the workingset needs nothing of the active list */
	r->quiet = !s->need;
	stable_tick(s, r->nr_pages, true, 0);
	return AWS_YES;
}

AWS_DEFINE_POLICY(stable) = {
	.name = AWS_NAME("stable"),
	.description = "detect, plus a hashed stable subset of refaults beyond memory",
	.clock = AWS_CLOCK_ANON,
	.state_size = sizeof(struct stable_state),
	.new_anon = stable_new_anon,
	.evict = stable_evict,	/* every folio, ticks the rate */
	.refault = stable_refault,	/* detect's rule or the subset */
	.age = stable_age,	/* activations age the anon clock */
	.file_workingset = stable_file_workingset,
};
