// SPDX-License-Identifier: GPL-2.0
/*
 * hold2 - hold, with a cold allocation that follows the workload
 *
 *		What hold got wrong
 *
 * hold (hold.c, whose essay this one builds on) keeps a stable part of a
 * loop resident and displaces only active pages that stay away once
 * displaced.  Its inactive list is fixed at a quarter of resident anon:
 * the admission window, small so that the held set can be large.  That
 * is right for a loop, which no window size can serve, and wrong for a
 * working set that slides: a window of half of memory read a few times
 * at each position needs each page to survive on the inactive list from
 * its first touch to its second, and a quarter of memory is too short,
 * so every page of the window is evicted once and read back from swap,
 * where plain LRU and 6.1's half-and-half lists keep it.  No fixed size
 * serves both: the simulator's distribution (userspace/sim/dist.c) puts
 * a loop's best inactive list at its floor and a slide's at two thirds
 * of memory or more.
 *
 *		The cold allocation
 *
 * CLOCK-Pro sizes its resident cold pages by how their test periods
 * end: a cold page re-used within its test period says the cold
 * allocation was too small, one whose test period passes says it can
 * shrink.  The kernel shows a policy only the refaults, not the re-uses
 * of resident pages, so hold2 reads the same question off them: a page
 * evicted from the inactive list without ever being activated (its
 * shadow is not "workingset") that refaults within the active list's
 * reach was short of an inactive list larger by its distance.  Whether
 * a larger list would have kept it without costing another page the
 * same is what tells a slide from a loop:
 *
 *  - a slide's page refaults once or twice and then leaves the window
 *    for good: its first refault is the evidence, grow the cold target;
 *  - a loop's page that is not held refaults again on every pass: no
 *    inactive list short of the loop would keep it, and each page the
 *    cold target takes from the active list is a held page lost; a
 *    repeated refault shrinks the target.
 *
 * "Repeated" is remembered in two bitmaps of page identities that take
 * turns (each is cleared when the other has covered two memories of
 * evictions), so a page counts as repeated when it refaulted within the
 * last two to four memories of evictions; a loop of up to about three
 * memories is caught.  The bitmaps are 2 x HOLD2_BITS bits per lruvec
 * (the module allocates a policy's state for every possible memcg id), so
 * only a sample of pages, a fixed fraction chosen by the hash of the
 * identity, is tracked: few enough that one turn's refaults fill at most
 * a quarter of a bitmap, which keeps false "repeated" answers rare; each
 * tracked refault then moves the target as much as the pages it stands
 * for.  The state is 192 bytes per lruvec, 12 MiB per node for the
 * 65,536 memcg ids the module provides for at load.
 *
 * The target starts at 6.1's own split below 1 GiB (half of resident
 * anon), never goes below hold's quarter and never above two thirds, so
 * that a held set of a third survives a workload whose pages all refault
 * once.  Growth is twice the shrink: a slide pays for each step it is
 * short with a swap-in on every pass, a loop for each held page lost
 * with one per pass.  These are choices, not derivations; the sweep over
 * make sim's distribution (userspace/sim/sweep.sh hold2, docs/hold.md)
 * shows each one's neighbours: the 95th percentile of hold2 against the
 * better of stock and MGLRU moves between 1.47 and 1.60 across them,
 * 1.56 here, so none of them decides much.  A floor below a quarter
 * gains on loops and loses on a zipf whose hot set moves, which refaults
 * again and again like a loop and shrinks the target to the floor (8 %
 * behind the better at its 95th percentile with a floor of 1/64).
 *
 *		Everything else is hold
 *
 * The refault rules are hold's, with the active list's target being
 * resident minus the cold target: a refault whose distance fits the
 * active list is admitted for the share of displaced pages that stay
 * away; of those that do not fit, a stable hashed subset is admitted,
 * into room below the target, and beyond it while displaced pages stay
 * away.  Activations are quiet, the active list is a CLOCK (keep_active),
 * the clock ticks on evictions and admissions only, file refaults are
 * compared with the active file list.  Counts are weighted by nr_pages
 * and decay once a memory of evictions has passed.
 *
 * A draft admitted every refault into room below the target, whatever
 * its distance.  The simulator, which deactivates one page at a time,
 * liked it (a hot set re-read between scans at a quarter of stock's
 * swap-ins); the guest did not: 6.1 deactivates in batches, so the
 * active list keeps dropping below its target, every refault of a loop
 * found room, and the loop flowed through the active list as through
 * plain LRU (docs/hold.md).  hold's essay had said so; the rule is gone.
 *
 * The identity is the swap slot, as for hold: a page that changes slot
 * (6.1 frees it on a write fault and on swap-in once swap is half full)
 * is a new page to the bitmaps and to the hash rules.  A page without an
 * identity takes no part in the adaptation.
 */
#include "aws_policy.h"

#ifndef HOLD2_BITS
#define HOLD2_BITS	512	/* per bitmap; two of them */
#endif
#ifndef HOLD2_GROW
#define HOLD2_GROW	2	/* pages of cold target per first refault */
#endif
#ifndef HOLD2_SHRINK
#define HOLD2_SHRINK	1	/* ... taken back per repeated refault */
#endif
#ifndef HOLD2_FLOOR_DIV
#define HOLD2_FLOOR_DIV	4	/* the cold target keeps resident / this */
#endif
#ifndef HOLD2_CEIL_DIV
#define HOLD2_CEIL_DIV	3	/* the cold target leaves resident / this */
#endif
#ifndef HOLD2_GEN
#define HOLD2_GEN	2	/* memories of evictions per bitmap turn */
#endif
#ifndef HOLD2_STAY
#define HOLD2_STAY	2	/* hold's majority of displaced pages */
#endif
#define HOLD2_RUN_SHIFT	3	/* hold's run of swap slots */
#define HOLD2_LONGS	(HOLD2_BITS / (8 * sizeof(unsigned long)))

struct hold2_state {
	struct aws_displaced d;	/* what displacing did, as hold */
	unsigned long cold;	/* target of the inactive list, pages */
	unsigned long turn_ticks;	/* evictions since the bitmaps turned */
	unsigned long turn;	/* which bitmap is being filled */
	unsigned long seen[2][HOLD2_LONGS];	/* refaulted identities */
};

static unsigned long hold2_floor(unsigned long resident)
{
	return resident / HOLD2_FLOOR_DIV;
}

static unsigned long hold2_ceiling(unsigned long resident)
{
	return resident - resident / HOLD2_CEIL_DIV;
}

/*
 * An eviction: hold's counts, and the bitmaps' turn once HOLD2_GEN
 * memories of evictions have passed.
 */
static enum aws_decision hold2_evict(const struct aws_folio *f, void *state)
{
	struct hold2_state *s = state;
	unsigned long i, window;

	if (!s)
		return AWS_YES;
	aws_displaced_evict(&s->d, f);
	window = s->d.resident ? s->d.resident : 1;
	s->turn_ticks = aws_sat_add(s->turn_ticks, f->nr_pages);
	if (s->turn_ticks > aws_sat_mul(HOLD2_GEN, window)) {
		s->turn_ticks = 0;
		s->turn ^= 1;
		for (i = 0; i < HOLD2_LONGS; i++)
			s->seen[s->turn][i] = 0;
	}
	return AWS_YES;
}

/* The identity's Fibonacci hash, 32 bits: the sample's choice. */
static unsigned long long hold2_hash32(unsigned long id)
{
	return ((unsigned long long)id * 0x9e3779b97f4a7c15ULL) >> 32;
}

/*
 * Move the cold target on a refault of @r.  Tracked identities are the
 * 1 in @scale whose hash falls below 2^32 / @scale, with @scale the pages
 * one turn (HOLD2_GEN memories) can refault per quarter bit of a bitmap,
 * at least 1.
 */
static void hold2_adapt(struct hold2_state *s, const struct aws_refault *r,
			unsigned long resident)
{
	unsigned long scale = aws_sat_mul(4 * HOLD2_GEN, resident) / HOLD2_BITS + 1;
	unsigned long bit, mask, step;
	unsigned long *word0, *word1;
	bool repeated;

	if (scale > 1UL << 31)
		scale = 1UL << 31;
	if (!r->id || hold2_hash32(r->id) * scale >= 1ULL << 32)
		return;
	/* a second hash, of the identity's other bits, picks the bit */
	bit = aws_hash16(r->id ^ 0x5bd1e995UL) % HOLD2_BITS;
	mask = 1UL << (bit % (8 * sizeof(unsigned long)));
	word0 = &s->seen[0][bit / (8 * sizeof(unsigned long))];
	word1 = &s->seen[1][bit / (8 * sizeof(unsigned long))];
	repeated = (*word0 | *word1) & mask;
	if (s->turn)
		*word1 |= mask;
	else
		*word0 |= mask;

	step = aws_sat_mul(r->nr_pages, scale);
	if (repeated)
		s->cold = s->cold > aws_sat_mul(HOLD2_SHRINK, step) ?
			  s->cold - HOLD2_SHRINK * step : 0;
	else if (!r->workingset && r->distance <= r->sizes.active_anon)
		s->cold = aws_sat_add(s->cold, aws_sat_mul(HOLD2_GROW, step));
	if (s->cold > hold2_ceiling(resident))
		s->cold = hold2_ceiling(resident);
	if (s->cold < hold2_floor(resident))
		s->cold = hold2_floor(resident);
}

static enum aws_decision hold2_refault(struct aws_refault *r, void *state)
{
	const struct aws_lru_sizes *z = &r->sizes;
	unsigned long resident = aws_sat_add(z->active_anon, z->inactive_anon);
	unsigned long h = aws_hash16(r->id >> HOLD2_RUN_SHIFT);
	bool fits = r->distance <= z->active_anon;
	struct hold2_state *s = state;
	unsigned long target;

	r->workingset_size = z->active_anon;
	if (!s)		/* no private state: detect's rule */
		return fits ? AWS_YES : AWS_NO;
	if (!s->cold)
		s->cold = resident / 2;
	hold2_adapt(s, r, resident);
	target = resident > s->cold ? resident - s->cold : 0;
	aws_displaced_refault(&s->d, r, resident);
	r->quiet = true;

	return aws_hold_rules(&s->d, r, h, target, HOLD2_STAY);
}

/* The anon list is low while the inactive list is short of the target. */
static unsigned long hold2_inactive_ratio(const struct aws_lru_sizes *z,
					  unsigned long stock_ratio, void *state)
{
	struct hold2_state *s = state;
	unsigned long resident = aws_sat_add(z->active_anon, z->inactive_anon);

	if (!s)
		return stock_ratio;
	s->d.resident = resident;
	if (!s->cold)
		s->cold = resident / 2;
	return aws_ratio_for_target(z, s->cold);
}

const struct aws_policy aws_policy_hold2 = {
	.name = "hold2",
	.description = "hold, with a cold allocation that follows the workload",
	.clock = AWS_CLOCK_ANON,
	.state_size = sizeof(struct hold2_state),
	.new_anon = aws_no,		/* start inactive */
	.evict = hold2_evict,		/* every folio; counts displaced ones */
	.refault = hold2_refault,	/* adapts the target, then hold's rules */
	.age = aws_no,			/* only evictions and admissions tick */
	.keep_active = aws_yes,		/* a referenced active page stays */
	.inactive_ratio = hold2_inactive_ratio,
	.file_workingset = aws_file_workingset_active,
};
