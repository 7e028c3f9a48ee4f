// SPDX-License-Identifier: GPL-2.0
/*
 * hold - keep a stable resident set; displace only what does not come back
 *
 *		What goes wrong on loops
 *
 * A page evicted from the inactive list leaves a shadow; when it is
 * faulted back, detect (and 6.1) activate it if its refault distance d,
 * the evictions and activations since it left, is at most the active
 * list: had the active list given up d slots, the page would have hit.
 * That is true, and on a loop larger than memory it is also useless:
 * the d slots the active list gives up hold pages of the same loop, used
 * exactly as soon again.  Every activation then displaces a page of equal
 * value, 6.1 ages the active list after every such "new workingset"
 * activation, and the whole region flows through both lists in order:
 * plain LRU, which misses every access of a loop that does not fit.
 * OPT misses only L - M pages per pass of an L-page loop in M frames; a
 * policy that holds any fixed A pages of the loop resident misses L - A.
 *
 * LIRS and CLOCK-Pro fix this by letting a newcomer displace a resident
 * page only when its reuse distance is strictly shorter: a tie keeps the
 * incumbent.  The kernel never shows a policy the accesses to resident
 * pages, so the distances cannot be compared directly.  What it does show
 * is the consequence of a displacement: a page pushed off the active
 * list (6.1 marks it PG_workingset) is either evicted and never seen
 * again, or it comes back as a refault whose shadow says "workingset".
 * If displaced pages come back, they were worth as much as the pages
 * that displaced them and displacing only moved misses around; if they
 * stay away, they were stale and the newcomers deserve their room.
 *
 *		The rules
 *
 * All of this policy's refault activations are quiet (not counted in
 * WORKINGSET_ACTIVATE_ANON), so 6.1's prepare_scan_count() never ages
 * the active list because of them: the active list changes only by
 * admissions, and loses pages from its tail (by the inactive ratio) only
 * when admissions take it beyond its target size.  A refault is admitted:
 *
 *  1. if its distance fits the active list (detect's rule), only for the
 *     fraction of pages that displaced pages fail to come back: with
 *     `out` PG_workingset pages evicted and `back` of them refaulted at a
 *     distance that fits, a page is admitted when h >= back / out, h
 *     being a hash of the page's identity read as a fraction in [0, 1).
 *     Stale active pages (out grows, back does not) let newcomers in at
 *     once; a loop (every displaced page comes back) stops displacing.
 *     Only returns that fit count as "back": a displaced page that comes
 *     back from farther than the active list reaches is worth less than
 *     a newcomer that fits.  The rule holds even when the active list
 *     is below its target: 6.1 deactivates in batches (up to
 *     SWAP_CLUSTER_MAX pages a scan), so room on the active list is
 *     usually room just taken from pages that will come back;
 *  2. if its distance does not fit, when h < target / span, span = d +
 *     resident being the reuse interval in ticks of a loop of that many
 *     pages: of such a loop, target pages are held, always the same ones
 *     (the thresholds are nested, so a page that is held stays eligible
 *     when target or span wobble).  Into room below the target; beyond
 *     it only while most displaced pages stay away, out > HOLD_STAY *
 *     (back + far), `far` counting the displaced pages that come back
 *     from farther than the active list reaches.  An admission beyond
 *     the target makes 6.1 deactivate an active page: worth it when that
 *     page is stale (hot-1 of the seed's thrash test, which a working set
 *     that moved on leaves behind), a wash when it is another held page
 *     of the same loop, which then comes back.  HOLD_STAY = 2, a
 *     majority, is a choice; the sweep shows 1 to 8.
 *
 * The hash makes both choices stable: the same pages are held pass after
 * pass, so the held pages hit on the active list and never refault, which
 * is what keeps the list still.  It is taken of the identity's run of
 * 2^HOLD_RUN_SHIFT = 8 swap slots, 6.1's default page-cluster: swap
 * readahead reads such a window around a faulting slot, and a window
 * that is held, or not, as a whole still reads only pages that are
 * about to be used, where a scattered held set would break every window
 * into short runs (each of them a separate major fault).  A page with no
 * identity (id 0: the module's swap entry is unknown, as on the
 * SWP_SYNCHRONOUS_IO path) can be held by neither hash rule: it gets
 * detect's answer, quietly.
 *
 *		Keeping what is used
 *
 * 6.1 deactivates every active anon page its scan reaches, referenced or
 * not (only executable file pages get another trip), so the active list
 * is a FIFO of admissions: a stale page and a held page that was used a
 * moment ago leave in the order they came.  hold keeps a page that was
 * referenced since the last scan (keep_active), which makes the active
 * list a CLOCK: what leaves it is what was not used for a whole trip of
 * the scan, the stale pages first.  On zipf this keeps the head of the
 * distribution where 6.1 keeps cycling it through the inactive list.
 * A kept page goes back as an active one, and 6.1 would age the
 * non-resident clock for it as for an activation; a scan of the active
 * list is not an eviction, so hold ages its clock for no activation
 * (age says no): distances count evictions and refault admissions only.
 *
 *		The two constants: the inactive ratio, the majority
 *
 * A policy that holds A pages of an L-page loop misses L - A per pass,
 * so the active list's share of memory bounds what any stable set can
 * do: at 6.1's 1:1 ratio below 1 GiB, A is at most M / 2 and a loop of
 * 1.25 M misses at least three times what OPT misses.  The inactive list
 * is only the admission window here: a page whose reuse is longer than
 * it is evicted once and admitted on its refault.  A smaller window costs
 * one refault per page of each new workingset whose first reuse lies
 * beyond it (the simulator's thrash-B pays it in its first round), and
 * buys a larger held set on every loop.  The ratio is 6.1's own formula
 * without its floor below 1 GiB: int_sqrt(10 * GiB), at least 3, the
 * value 6.1 uses at 1 GiB.  This is a choice, not a derivation; the
 * sensitivity sweep (userspace/sim/sweep.sh hold, docs/hold.md) shows
 * every cell from 1 to 15.
 *
 * The counts are in pages (a THP is evicted whole and read back page by
 * page) and decay: once the ticks (evicted pages) pass one memory
 * (resident anon at the last refault), ticks, out, back and far are
 * halved, so the policy judges displacement by what happened over the
 * last memory or two of evictions (struct aws_displaced, which regret
 * shares).  The private state is six words per lruvec, updated without a
 * lock: a lost update only blurs a fraction.
 *
 * Beyond the refault rule, keep_active, and ageing its clock only on
 * evictions and admissions, it is detect: inactive-first placement,
 * shadows on a private anon clock, file refaults compared with active
 * file only, 6.1's PSI choice on swap-in.  Both constants can be overridden at
 * compile time (HOLD_RATIO, HOLD_STAY) for the sweep; the module's
 * `ratio` parameter overrides the list balance, not the target the
 * refault rules aim at.
 */
#include "aws_policy.h"

#ifndef HOLD_RATIO
#define HOLD_RATIO	3
#endif
#ifndef HOLD_STAY
#define HOLD_STAY	2
#endif
#define HOLD_RUN_SHIFT	3

struct hold_state {
	struct aws_displaced d;	/* what displacing did (aws_policy.h) */
	unsigned long ratio;	/* the last inactive_ratio() answer */
};

/*
 * Every eviction ticks, by nr_pages (a THP counts as the 512 pages its
 * refaults will be, since 6.1 swaps in order 0).
 */
AWS_ALWAYS(hold, new_anon, AWS_NO)	/* start inactive */
AWS_ALWAYS(hold, age, AWS_NO)	/* only evictions and admissions tick */
AWS_ALWAYS(hold, keep_active, AWS_YES)	/* a referenced page stays */
AWS_FILE_WORKINGSET_ACTIVE(hold)

AWS_ON_EVICT(hold_evict)
{
	struct hold_state *s = AWS_STATE(struct hold_state, state);

	if (s)
		aws_displaced_evict(&s->d, f);
	return AWS_YES;
}

AWS_ON_REFAULT(hold_refault)
{
	const struct aws_lru_sizes *z = &r->sizes;
	unsigned long resident = aws_sat_add(z->active_anon, z->inactive_anon);
	unsigned long h = aws_hash16(r->id >> HOLD_RUN_SHIFT);
	bool fits = r->distance <= z->active_anon;
	struct hold_state *s = AWS_STATE(struct hold_state, state);
	unsigned long ratio, target;

	r->workingset_size = z->active_anon;
	if (!s)		/* no private state: detect's rule */
		return fits ? AWS_YES : AWS_NO;
	ratio = s->ratio ? s->ratio : HOLD_RATIO;
	target = resident / (ratio + 1) * ratio;
	aws_displaced_refault(&s->d, r, resident);
	r->quiet = true;

	/* rules 1 and 2 above, shared with regret (aws_policy.h) */
	return aws_hold_rules(&s->d, r, h, target, HOLD_STAY);
}

/*
 * 6.1's int_sqrt(10 * GiB), without its floor of 1 below 1 GiB; the
 * refault rules size the active list's target with the same answer.
 */
AWS_ON_INACTIVE_RATIO(hold_inactive_ratio)
{
	struct hold_state *s = AWS_STATE(struct hold_state, state);
	unsigned long ratio = stock_ratio > HOLD_RATIO ? stock_ratio : HOLD_RATIO;

	if (s)
		s->ratio = ratio;
	return ratio;
}

AWS_DEFINE_POLICY(hold) = {
	.name = AWS_NAME("hold"),
	.description = "keep a stable resident set, displace only what stays away",
	.clock = AWS_CLOCK_ANON,
	.state_size = sizeof(struct hold_state),
	.new_anon = hold_new_anon,
	.evict = hold_evict,	/* every folio; counts displaced ones */
	.refault = hold_refault, /* displacement, stable subset */
	.age = hold_age,
	.keep_active = hold_keep_active,
	.inactive_ratio = hold_inactive_ratio,
	.file_workingset = hold_file_workingset,
};
