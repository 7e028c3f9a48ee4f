// SPDX-License-Identifier: GPL-2.0
/*
 * regret - follow recency's rule, stock's or hold's, whichever the
 *	    refaults say would have cost fewer swap-ins
 *
 *		Three experts, one list
 *
 * hold (hold.c) wins where a loop or a scan is larger than memory and
 * loses, by orders of magnitude, where a working set slides through a
 * window that fits; no constant of one mechanism serves both (hold2,
 * removed for this one, tried: docs/hold.md). Nor does 6.1's own rule
 * keep such a window: it activates an inactive anon page on its second
 * young look and deactivates every active page its scan reaches, so a
 * window of half a memory that MGLRU keeps costs it thousands of
 * swap-ins. This policy keeps three rules, the hooks' nearest to LRU,
 * 6.1's and hold's, and asks, per lruvec, which of them the workload's
 * refaults speak for, the way LeCaR and CACHEUS weigh their experts by
 * regret and ARC moves its target on ghost hits: each refault is
 * evidence of what another rule would have done with the same page. Run
 * alone on 6.1's guest sample, the better of the three in each instance is
 * within 1.03x the better of stock and MGLRU in every instance
 * (docs/regret.md): what is left is the choosing.
 *
 * The rules:
 *
 *  - recency's: one young look at an inactive anon page activates it
 *    (5.8's rule), and the active list is a CLOCK, a referenced page
 *    kept (keep_active); refaults as 6.1 judges them. The nearest the
 *    hooks come to plain LRU: a window that fits is kept. It is the
 *    start, as LRU is where ARC and LeCaR start;
 *  - stock's: 6.1 itself, two looks, a FIFO active list, a refault
 *    activated within 6.1's workingset size (the anon and file lists, as
 *    upstream.c compares), activations that age the clock;
 *  - hold's: its refault rules on the displaced counts
 *    (aws_hold_rules()), quiet activations, the active list a CLOCK, the
 *    clock aged by evictions and admissions only, the inactive ratio at
 *    least 3. The displaced counts are kept under every rule, so hold
 *    starts from what it would have known.
 *
 * The experts cannot be run side by side on pages, as set dueling (DIP)
 * runs its leader sets: what separates them is the shape of the lists
 * (hold's inactive list is a quarter of resident anon, stock's a half
 * below 1 GiB) and the look at a resident page, which has no identity
 * its refault would carry. The shadows say enough to price the roads not
 * taken:
 *
 *  - where stock's rule runs, a refault of a page never active, from no
 *    farther than the active list's length, is one recency would have
 *    saved (one look would have activated the page and given it the
 *    active list's time), and so is a refault of a page that had been
 *    active (PG_workingset) from within resident anon: stock deactivates
 *    every active page its scan reaches, used or not, where a CLOCK keeps
 *    a referenced one;
 *  - where recency runs, a refault of a page that had been active,
 *    from within resident anon, is one stock's two looks would have
 *    saved: a page used more than once, pushed out by pages one look let
 *    in (a scan's);
 *  - where stock's rule or recency runs, a refault from beyond 6.1's
 *    reach of a page whose hash falls in the stable subset hold would
 *    have held at that distance (hold's rule 2: h < target / (distance +
 *    resident)) is one hold would have saved;
 *  - where hold's rule runs, a refault at a long distance of a page hold
 *    does not hold stands for f / (1 - f) held pages that the others
 *    would have lost the same way (f being the held fraction), and a
 *    refault of a page never active, from no farther than stock's longer
 *    inactive list would have reached, is one stock would have saved.
 *
 * A rule's own hits are on resident pages and not seen: the evidence
 * gathered for it while it did not run stands for it, and decays.
 *
 *		Choosing
 *
 * Every sum counts pages and decays by half once a memory of evictions
 * has passed (the window of struct aws_displaced). Two choices are made
 * on them after each refault. hold's rule against the others: taken when
 * what hold would have saved is more than what stock would, and more
 * than an eighth of resident anon (REGRET_FLOOR). Recency against
 * stock's rule: taken when what recency would have saved is more than
 * what two looks and hold would, and more than the floor. A rule that
 * runs is left only when the evidence against it passes the floor too
 * and outweighs the evidence for it. If both hold and recency qualify,
 * the larger of what only one of them saves (the never-active refaults
 * for recency, the long ones for hold) decides. A page that had been
 * active coming back counts for two looks where recency runs and for
 * recency where stock's rule runs: where the two balance, above the
 * floor, the rule changes with every other such refault, which mixes one
 * look and two (userspace/tests: test_regret_recency()).
 *
 *		The one constant
 *
 * Decaying by half every memory of evictions, a sum that gains x pages
 * per memory settles at 2x: the floor asks for more than a sixteenth of
 * the evictions of the last memory or so. A ghost estimate is only an
 * estimate: it prices what a rule would keep, not what it would lose on
 * the way, so a switch needs evidence well above the refaults a window
 * that nearly fits makes. The sweep (userspace/sim/sweep.sh regret,
 * docs/regret.md) shows how far it can move.
 *
 * REGRET_EXPERT, 0 in the module, makes one rule run alone from the
 * start, whatever the evidence: recency's (1), stock's (2) or hold's (3).
 * The simulator's ablation (sweep.sh regret-experts) and the guest's
 * (sample.py --rule, --best) build each, to measure what choosing costs
 * against the best rule of each instance.
 *
 * The clock is the anon one (evictions and activations of anon pages),
 * which on an anon workload is 6.1's shared clock less the file
 * evictions; a file refault, whose clock anon events then do not age,
 * is compared with the active file list alone, as the seed did. The
 * state is hold's counts and eight words more per lruvec. Every refault
 * is noted, its rule and the sums after it, in the module's aws_note
 * trace event (regret_note(), docs/tracing.md).
 */
#include "aws_policy.h"

#ifndef REGRET_FLOOR
#define REGRET_FLOOR	8
#endif
#ifndef REGRET_EXPERT
#define REGRET_EXPERT	0
#endif
#define REGRET_RECENCY	1
#define REGRET_STOCK	2
#define REGRET_HOLD	3
#define REGRET_RATIO	3	/* hold's inactive ratio (hold.c) */
#define REGRET_STAY	2	/* hold's majority (hold.c) */
#define REGRET_RUN_SHIFT 3	/* hold's run of swap slots (hold.c) */

struct regret_state {
	struct aws_displaced d;	/* what displacing did (aws_policy.h) */
	unsigned long for_hold;	/* swap-ins hold would have saved */
	unsigned long for_stock; /* ... stock would have, where hold ran */
	unsigned long for_recency; /* ... one look would have, stock ran */
	unsigned long for_kept;	/* ... a CLOCK would have, where stock ran */
	unsigned long for_twice; /* ... two looks would have, recency ran */
	unsigned long hold;	/* 1 while hold's rule runs */
	unsigned long recency;	/* 1 while recency runs (unless hold) */
	unsigned long stock_ratio; /* 6.1's inactive ratio, last asked */
};

AWS_ALWAYS(regret, new_anon, AWS_NO)	/* start inactive, as all do */
AWS_FILE_WORKINGSET_ACTIVE(regret)

/* REGRET_EXPERT's rule, if one is to run alone. */
static void regret_force(struct regret_state *s)
{
	switch (REGRET_EXPERT) {
	case REGRET_RECENCY:
		s->hold = 0;
		s->recency = 1;
		break;
	case REGRET_STOCK:
		s->hold = 0;
		s->recency = 0;
		break;
	case REGRET_HOLD:
		s->hold = 1;
		s->recency = 0;
		break;
	default:	/* 0: the evidence chooses */
		break;
	}
}

AWS_ON_STATE_INIT(regret_state_init)
{
	struct regret_state *s = AWS_STATE(struct regret_state, state);

	if (s) {
		s->recency = 1;
		regret_force(s);
	}
}

/* REGRET_RECENCY, REGRET_STOCK or REGRET_HOLD: the rule that runs */
static unsigned long regret_running(const struct regret_state *s)
{
	if (s->hold)
		return REGRET_HOLD;
	return s->recency ? REGRET_RECENCY : REGRET_STOCK;
}

static bool regret_holding(const struct regret_state *s)
{
	return s && s->hold;
}

static bool regret_by_recency(const struct regret_state *s)
{
	return s && s->recency && !s->hold;
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
		s->for_recency >>= 1;
		s->for_kept >>= 1;
		s->for_twice >>= 1;
	}
	aws_displaced_evict(&s->d, f);
	return AWS_YES;
}

/* The evidence one refault gives, under the rule that runs. */
static void regret_weigh(struct regret_state *s, const struct aws_refault *r,
			 unsigned long h, unsigned long resident,
			 unsigned long target, unsigned long stock_ws)
{
	const struct aws_lru_sizes *z = &r->sizes;
	unsigned long span = aws_sat_add(r->distance, resident);
	bool held = r->id && aws_hash_below(h, target, span);
	bool back = r->workingset && r->distance <= resident;
	unsigned long n = r->nr_pages, stock_inactive;

	if (!s->hold) {
		if (r->distance > stock_ws && held)
			s->for_hold = aws_sat_add(s->for_hold, n);
		if (s->recency) {
			if (back)
				s->for_twice = aws_sat_add(s->for_twice, n);
		} else if (back) {
			s->for_kept = aws_sat_add(s->for_kept, n);
		} else if (!r->workingset && r->distance <= z->active_anon) {
			s->for_recency = aws_sat_add(s->for_recency, n);
		}
		return;
	}
	/* f / (1 - f) held pages per refault that is not held, f < 1 */
	if (r->distance > z->active_anon && !held && target < span)
		s->for_hold = aws_sat_add(s->for_hold,
					  aws_sat_mul(n, target) /
					  (span - target));
	stock_inactive = resident / ((s->stock_ratio ? s->stock_ratio : 1) + 1);
	if (!r->workingset && stock_inactive > z->inactive_anon &&
	    r->distance <= stock_inactive - z->inactive_anon)
		s->for_stock = aws_sat_add(s->for_stock, n);
}

/*
 * Whether a rule runs after this refault, given whether it ran: taken on
 * evidence above @floor and above the other's, left when the other's is
 * above @floor too and the larger.
 */
static unsigned long regret_choose(unsigned long runs, unsigned long for_it,
				   unsigned long against, unsigned long floor)
{
	if (runs)
		return against <= for_it || against <= floor;
	return for_it > floor && for_it > against;
}

static void regret_decide(struct regret_state *s, unsigned long resident)
{
	unsigned long floor = resident / REGRET_FLOOR;

	s->hold = regret_choose(s->hold, s->for_hold, s->for_stock, floor);
	s->recency = regret_choose(s->recency,
				   aws_sat_add(s->for_recency, s->for_kept),
				   aws_sat_add(s->for_twice, s->for_hold),
				   floor);
	/* both: what only one of them would have saved decides */
	if (s->hold && s->recency) {
		if (s->for_recency > s->for_hold)
			s->hold = 0;
		else
			s->recency = 0;
	}
	regret_force(s);
}

/*
 * The aws_note event of each refault (docs/tracing.md): v0 the rule that
 * runs after it (1 recency's, 2 stock's, 3 hold's), v1-v5 the sums
 * for_hold, for_stock, for_recency, for_kept and for_twice, v6 the
 * floor, v7 the refault's distance.
 */
static void regret_note(const struct regret_state *s,
			const struct aws_refault *r, unsigned long resident)
{
	unsigned long words[AWS_NOTE_WORDS] = {
		regret_running(s), s->for_hold, s->for_stock, s->for_recency,
		s->for_kept, s->for_twice, resident / REGRET_FLOOR, r->distance,
	};

	AWS_NOTE("regret", words);
}

AWS_ON_REFAULT(regret_refault)
{
	const struct aws_lru_sizes *z = &r->sizes;
	unsigned long resident = aws_sat_add(z->active_anon, z->inactive_anon);
	unsigned long h = aws_hash16(r->id >> REGRET_RUN_SHIFT);
	unsigned long target = resident / (REGRET_RATIO + 1) * REGRET_RATIO;
	unsigned long stock_ws = aws_stock_workingset(z);
	struct regret_state *s = AWS_STATE(struct regret_state, state);

	if (s) {
		aws_displaced_refault(&s->d, r, resident);
		regret_weigh(s, r, h, resident, target, stock_ws);
		regret_decide(s, resident);
		regret_note(s, r, resident);
	}
	if (!regret_holding(s))
		return aws_refault_within(r, stock_ws);
	r->workingset_size = z->active_anon;
	r->quiet = true;
	return aws_hold_rules(&s->d, r, h, target, REGRET_STAY);
}

/* Recency's and stock's activations age the clock; hold's do not. */
AWS_ON_AGE(regret_age)
{
	return regret_holding(AWS_STATE(struct regret_state, state)) ?
	       AWS_NO : AWS_YES;
}

AWS_ON_FIRST_REFERENCE(regret_first_reference)
{
	const struct regret_state *s = AWS_STATE(struct regret_state, state);

	return regret_by_recency(s) && f->swapbacked ? AWS_YES : AWS_NO;
}

AWS_ON_KEEP_ACTIVE(regret_keep_active)
{
	const struct regret_state *s = AWS_STATE(struct regret_state, state);

	return regret_holding(s) || regret_by_recency(s) ? AWS_YES : AWS_NO;
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
	.description = "recency's rule, stock's or hold's, by the swap-ins saved",
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
