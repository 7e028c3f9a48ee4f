// SPDX-License-Identifier: GPL-2.0
/*
 * regret - follow stock's rule or hold's, and promote on one look or on
 *	    two, whichever the refaults say would have cost fewer swap-ins
 *
 *		Two experts, one list
 *
 * hold (hold.c) wins where a loop or a scan is larger than memory and
 * loses, by orders of magnitude, where a working set slides through a
 * window that stock's half-and-half lists keep; no constant of one
 * mechanism serves both (hold2, removed for this one, tried: docs/hold.md).
 * This policy keeps both rules
 * and asks, per lruvec, which of them the workload's refaults speak for,
 * the way LeCaR and CACHEUS weigh their experts by regret and ARC moves
 * its target on ghost hits: each refault is evidence of what the other
 * rule would have done with the same page.
 *
 * The two experts cannot be run side by side on pages, as set dueling
 * (DIP) runs its leader sets: what separates them is the shape of the
 * lists (hold's inactive list is a quarter of resident anon, stock's a
 * half below 1 GiB), and a shape belongs to the whole lruvec. The
 * shadows say enough to price the road not taken:
 *
 *  - while stock's rule runs, a refault that stock does not activate
 *    (its distance is beyond the lists' reach) of a page whose hash
 *    falls in the stable subset hold would have held at that distance
 *    (hold's rule 2: h < target / (distance + resident)) is a swap-in
 *    hold would have saved;
 *  - while stock's rule runs, a refault of a page that had been active
 *    (PG_workingset), from within resident anon, is one too: stock
 *    deactivates every active page its scan reaches, used or not, where
 *    hold keeps a referenced one (keep_active), so a page used more than
 *    once that was pushed out and comes back within a memory is what
 *    hold's active list, a CLOCK three quarters long, keeps (the
 *    protection example's hot set, between used-once waves);
 *  - while hold's rule runs, a refault at a long distance of a page
 *    hold does not hold stands for f / (1 - f) held pages that stock
 *    would have lost the same way (f being the held fraction): what hold
 *    saves, by proportion;
 *  - while hold's rule runs, a refault of a page that was never active
 *    (not PG_workingset) from no farther than stock's longer inactive
 *    list would have reached is a swap-in stock would have saved: a
 *    window that slides is read a second time before stock's inactive
 *    list lets it go, and after hold's has;
 *  - while stock's rule runs, what stock saves is not seen (its hits are
 *    on resident pages): the last measure taken under hold stands, and
 *    decays.
 *
 *		A third: one look or two
 *
 * Neither rule keeps a window that slides and is read again only after
 * more than stock's inactive list has passed (0.4x to 0.75x memory on
 * 6.1, where MGLRU keeps it): 6.1 activates an inactive anon page on
 * its second young look, and such a page is evicted after one. 5.8's
 * rule, one young look activates (first_reference()), keeps it, and
 * lets a scan's pages into the active list. It is weighed the same way,
 * independently of the choice above, and only runs with stock's rule
 * (hold's held subset is what one look would push out):
 *
 *  - while two looks run, a refault of a page never active, from no
 *    farther than the active list's length, is a swap-in one look would
 *    have saved: the page would have had the active list's time more;
 *  - while one look runs, a refault of a page that had been active, from
 *    within resident anon, is a swap-in two looks would have saved: a
 *    page that was used more than once, pushed out by pages let in on
 *    one look.
 *
 * One look needs its evidence to pass hold's as well: a page that had
 * been active and comes back speaks for keeping the active list, which
 * pages let in on one look push out (before this, regret let the
 * protection example's waves in on one look: docs/regret.md).
 *
 * Two looks are the start. Starting with one (REGRET_PROMOTE_START=1)
 * keeps more of the windows in the simulator, and in the guest kept
 * fewer and cost scans up to 2.5x (docs/regret.md).
 *
 * Every sum counts pages and decays by half once a memory of evictions
 * has passed (the window of struct aws_displaced). hold's rule is taken
 * when what it would save is more than what stock would, and more than
 * an eighth of resident anon (REGRET_FLOOR); stock's rule comes back as
 * soon as what stock would save is more; one look, likewise, on the same
 * floor. Stock's rule is the start: a workload without refaults runs as
 * 6.1 does.
 *
 *		The one constant
 *
 * Decaying by half every memory of evictions, a sum that gains x pages
 * per memory settles at 2x: the floor asks that hold would have saved
 * more than a sixteenth of the evictions of the last memory or so. A
 * ghost estimate is only an estimate: it prices what hold would keep,
 * not what hold's shorter inactive list would lose on the way, so a
 * switch needs evidence well above the refaults a window that nearly
 * fits makes. The sweep (userspace/sim/sweep.sh regret, docs/regret.md)
 * shows how far it can move.
 *
 * REGRET_EXPERT, 0 in the module, makes one rule run alone from the
 * start, whatever the evidence: stock's with two looks (1), with one
 * look (2), hold's (3), or one look with hold's CLOCK active list on
 * stock's lists (4, no expert of this policy: the nearest the hooks come
 * to plain LRU). The simulator's ablation (sweep.sh regret-experts)
 * builds each, to measure what choosing costs against the best rule of
 * each instance, and what no rule here can reach.
 *
 *		What each rule is
 *
 * Stock: inactive-first placement, a refault activated when its distance
 * is within 6.1's workingset size (the anon and file lists, as upstream.c
 * compares), activations age the clock and count (not quiet), the active
 * list a FIFO, 6.1's inactive ratio. hold: its refault rules on the
 * displaced counts (aws_hold_rules()), quiet activations, the active list
 * a CLOCK, the clock aged by evictions and admissions only, the inactive
 * ratio at least 3. The displaced counts are kept under both rules, so
 * hold starts from what it would have known.
 *
 * The clock is the anon one (evictions and activations of anon pages),
 * which on an anon workload is 6.1's shared clock less the file
 * evictions; a file refault, whose clock anon events then do not age,
 * is compared with the active file list alone, as the seed did. The
 * state is hold's counts and seven words more per lruvec.
 */
#include "aws_policy.h"

#ifndef REGRET_FLOOR
#define REGRET_FLOOR	8
#endif
#ifndef REGRET_EXPERT
#define REGRET_EXPERT	0
#endif
#define REGRET_STOCK_TWO_LOOKS	1
#define REGRET_STOCK_ONE_LOOK	2
#define REGRET_HOLD		3
#define REGRET_CLOCK_ONE_LOOK	4
#ifndef REGRET_PROMOTE_START
#define REGRET_PROMOTE_START 0
#endif
#define REGRET_RATIO	3	/* hold's inactive ratio (hold.c) */
#define REGRET_STAY	2	/* hold's majority (hold.c) */
#define REGRET_RUN_SHIFT 3	/* hold's run of swap slots (hold.c) */

struct regret_state {
	struct aws_displaced d;	/* what displacing did (aws_policy.h) */
	unsigned long for_hold;	/* swap-ins hold would have saved */
	unsigned long for_stock; /* swap-ins stock would have saved */
	unsigned long hold;	/* 1 while hold's rule runs */
	unsigned long for_promote; /* swap-ins one look would have saved */
	unsigned long for_twice; /* swap-ins two looks would have saved */
	unsigned long promote;	/* 1 while one young look activates */
	unsigned long stock_ratio; /* 6.1's inactive ratio, last asked */
};

AWS_ALWAYS(regret, new_anon, AWS_NO)	/* start inactive, as both do */
AWS_FILE_WORKINGSET_ACTIVE(regret)

/* REGRET_EXPERT's rule, if one is to run alone. */
static void regret_force(struct regret_state *s)
{
	switch (REGRET_EXPERT) {
	case REGRET_STOCK_TWO_LOOKS:
		s->hold = 0;
		s->promote = 0;
		break;
	case REGRET_STOCK_ONE_LOOK:
	case REGRET_CLOCK_ONE_LOOK:
		s->hold = 0;
		s->promote = 1;
		break;
	case REGRET_HOLD:
		s->hold = 1;
		s->promote = 0;
		break;
	default:	/* 0: the evidence chooses */
		break;
	}
}

AWS_ON_STATE_INIT(regret_state_init)
{
	struct regret_state *s = AWS_STATE(struct regret_state, state);

	if (s) {
		s->promote = REGRET_PROMOTE_START;
		regret_force(s);
	}
}

static bool regret_holding(const struct regret_state *s)
{
	return s && s->hold;
}

AWS_ON_EVICT(regret_evict)
{
	struct regret_state *s = AWS_STATE(struct regret_state, state);
	unsigned long window;

	if (!s)
		return AWS_YES;
	window = s->d.resident ? s->d.resident : 1;
	/* the evidence decays when the displaced counts do */
	if (aws_sat_add(s->d.ticks, f->nr_pages) > window) {
		s->for_hold >>= 1;
		s->for_stock >>= 1;
		s->for_promote >>= 1;
		s->for_twice >>= 1;
	}
	aws_displaced_evict(&s->d, f);
	return AWS_YES;
}

/* The evidence one refault gives, under the rule that runs. */
static void regret_weigh(struct regret_state *s, const struct aws_refault *r,
			 unsigned long h, unsigned long resident,
			 unsigned long target)
{
	const struct aws_lru_sizes *z = &r->sizes;
	unsigned long span = aws_sat_add(r->distance, resident);
	bool held = r->id && aws_hash_below(h, target, span);
	unsigned long stock_inactive;

	/* one look or two (whichever of the rules below runs) */
	if (!s->promote && !r->workingset && r->distance <= z->active_anon)
		s->for_promote = aws_sat_add(s->for_promote, r->nr_pages);
	if (s->promote && r->workingset && r->distance <= resident)
		s->for_twice = aws_sat_add(s->for_twice, r->nr_pages);
	/* stock's rule or hold's */
	if (!s->hold) {
		if ((r->distance > aws_stock_workingset(z) && held) ||
		    (r->workingset && r->distance <= resident))
			s->for_hold = aws_sat_add(s->for_hold, r->nr_pages);
		return;
	}
	/* f / (1 - f) held pages per refault that is not held, f < 1 */
	if (r->distance > z->active_anon && !held && target < span)
		s->for_hold = aws_sat_add(s->for_hold,
					  aws_sat_mul(r->nr_pages, target) /
					  (span - target));
	stock_inactive = resident / ((s->stock_ratio ? s->stock_ratio : 1) + 1);
	if (!r->workingset && stock_inactive > z->inactive_anon &&
	    r->distance <= stock_inactive - z->inactive_anon)
		s->for_stock = aws_sat_add(s->for_stock, r->nr_pages);
}

/*
 * Whether a rule runs after this refault, given whether it ran: taken on
 * evidence above @floor and above the other's, left as soon as the
 * other's is the larger.
 */
static unsigned long regret_choose(unsigned long runs, unsigned long for_it,
				   unsigned long against, unsigned long floor)
{
	if (runs)
		return against <= for_it;
	return for_it > floor && for_it > against;
}

AWS_ON_REFAULT(regret_refault)
{
	const struct aws_lru_sizes *z = &r->sizes;
	unsigned long resident = aws_sat_add(z->active_anon, z->inactive_anon);
	unsigned long h = aws_hash16(r->id >> REGRET_RUN_SHIFT);
	unsigned long target = resident / (REGRET_RATIO + 1) * REGRET_RATIO;
	struct regret_state *s = AWS_STATE(struct regret_state, state);

	if (s) {
		aws_displaced_refault(&s->d, r, resident);
		regret_weigh(s, r, h, resident, target);
		s->hold = regret_choose(s->hold, s->for_hold, s->for_stock,
					resident / REGRET_FLOOR);
		s->promote = regret_choose(s->promote, s->for_promote,
					   s->for_twice > s->for_hold ?
					   s->for_twice : s->for_hold,
					   resident / REGRET_FLOOR);
		regret_force(s);
	}
	if (!regret_holding(s))
		return aws_refault_within(r, aws_stock_workingset(z));
	r->workingset_size = z->active_anon;
	r->quiet = true;
	return aws_hold_rules(&s->d, r, h, target, REGRET_STAY);
}

/* Stock's activations age the clock; hold's are admissions already. */
AWS_ON_AGE(regret_age)
{
	return regret_holding(AWS_STATE(struct regret_state, state)) ?
	       AWS_NO : AWS_YES;
}

AWS_ON_FIRST_REFERENCE(regret_first_reference)
{
	const struct regret_state *s = AWS_STATE(struct regret_state, state);

	return s && s->promote && !s->hold && f->swapbacked ? AWS_YES : AWS_NO;
}

AWS_ON_KEEP_ACTIVE(regret_keep_active)
{
	const struct regret_state *s = AWS_STATE(struct regret_state, state);

	if (REGRET_EXPERT == REGRET_CLOCK_ONE_LOOK)
		return s ? AWS_YES : AWS_NO;
	return regret_holding(s) ? AWS_YES : AWS_NO;
}

AWS_ON_INACTIVE_RATIO(regret_inactive_ratio)
{
	struct regret_state *s = AWS_STATE(struct regret_state, state);

	if (s)
		s->stock_ratio = stock_ratio;
	if (!regret_holding(s) || stock_ratio > REGRET_RATIO)
		return stock_ratio;
	return REGRET_RATIO;
}

AWS_DEFINE_POLICY(regret) = {
	.name = AWS_NAME("regret"),
	.description = "stock's rule or hold's, one look or two, by the swap-ins saved",
	.clock = AWS_CLOCK_ANON,
	.state_size = sizeof(struct regret_state),
	.state_init = regret_state_init,
	.new_anon = regret_new_anon,
	.evict = regret_evict,	/* every folio; evidence decays */
	.refault = regret_refault,	/* weigh, then the rule that runs */
	.age = regret_age,
	.first_reference = regret_first_reference,
	.keep_active = regret_keep_active,
	.inactive_ratio = regret_inactive_ratio,
	.file_workingset = regret_file_workingset,
};
