// SPDX-License-Identifier: GPL-2.0
/*
 * aws_clock.c - the private anon non-resident clocks
 *
 * Stock 6.1 keeps one non-resident clock per lruvec (nonresident_age) that
 * both anon and file evictions and activations advance.  The seed series
 * kept one clock per LRU type, so that a burst of file reclaim does not
 * stretch the refault distances of anon pages and vice versa.  A policy
 * with AWS_CLOCK_ANON (detect, hold, stable, example) restores that: its
 * anon events advance a private clock kept here, file events keep
 * advancing the stock one.  AWS_CLOCK_SHARED policies (stock's rule,
 * upstream, baseline) use the stock clock itself.
 *
 * Every such policy has clocks of its own, one per (memcg, node) lruvec:
 * two sibling cgroups that run two policies each age their own policy's
 * clock, in their own lruvec and in every ancestor's, so a parent's clock
 * of one policy counts only the events of that policy's folios, aged by
 * that policy's rules.  A shadow carries which policy stamped it
 * (aws_hooks.c) and is read on that policy's clock.
 *
 * The clocks live in one table per policy indexed by memcg id and node id
 * (aws_table.c), allocated as memcg ids get used.  A clock whose memory
 * could not be allocated does not age (counted as table_alloc_failed);
 * one never used reads 0.  A memcg id that is reused keeps the old clock
 * value, which is harmless: a clock only moves forward, and a shadow that
 * names a recycled id is misread exactly as stock misreads it
 * (mm/workingset.c says why that is rare and
 * limited).  With memcg disabled (cgroup_disable=memory) every lruvec is
 * a node's and has id 0.
 *
 * Aging is hierarchical like workingset_age_nonresident(): reclaiming a
 * parent memcg reclaims its children round-robin, so every page has an LRU
 * position in all ancestors and an eviction in a leaf ages them all.
 */
#include <linux/memcontrol.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/swap.h>

#include "anon_workingset.h"

/* What a clock never used reads: where it would have started. */
static unsigned long aws_clock_unused(void)
{
#ifdef CONFIG_ANON_WS_HOOKS_DEBUG
	return READ_ONCE(anon_ws_clock_start);
#else
	return 0;
#endif
}

/* NULL if the clock was never used (@fill false) or cannot be allocated */
static atomic_long_t *aws_clock_slot(struct aws_run *r, unsigned int memcgid,
				     int nid, bool fill)
{
	return fill ? aws_table_get(&r->clock, memcgid, nid) :
		      aws_table_peek(&r->clock, memcgid, nid);
}

static atomic_long_t *aws_lruvec_clock(struct aws_run *r,
				       struct lruvec *lruvec)
{
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);

	return aws_clock_slot(r, mem_cgroup_id(memcg),
			      lruvec_pgdat(lruvec)->node_id, false);
}

/*
 * A test kernel may start every clock far from 0, where a long-running host
 * has them (anon_ws_hooks.clock_start, CONFIG_ANON_WS_HOOKS_DEBUG).
 */
static void aws_clock_start(void *clock)
{
#ifdef CONFIG_ANON_WS_HOOKS_DEBUG
	atomic_long_set(clock, READ_ONCE(anon_ws_clock_start));
#endif
}

/* The clocks of every AWS_CLOCK_ANON policy of @runs. */
int aws_clock_init(struct aws_run *runs, unsigned int nr)
{
	unsigned int i;
	int ret;

	for (i = 0; i < nr; i++) {
		if (runs[i].policy->clock != AWS_CLOCK_ANON)
			continue;
		ret = aws_table_init(&runs[i].clock, sizeof(atomic_long_t),
				     aws_clock_start);
		if (ret)
			return ret;
	}
	return 0;
}

void aws_clock_exit(struct aws_run *runs, unsigned int nr)
{
	unsigned int i;

	for (i = 0; runs && i < nr; i++)
		aws_table_free(&runs[i].clock);
}

unsigned long aws_clock_read(struct aws_run *r, struct lruvec *lruvec)
{
	atomic_long_t *clock;

	switch (r->policy->clock) {
	case AWS_CLOCK_ANON:
		clock = aws_lruvec_clock(r, lruvec);
		return clock ? atomic_long_read(clock) : aws_clock_unused();
	case AWS_CLOCK_SHARED:
		return atomic_long_read(&lruvec->nonresident_age);
	default:
		return 0;
	}
}

void aws_clock_age(struct aws_run *r, struct lruvec *lruvec,
		   unsigned long nr_pages)
{
	struct mem_cgroup *memcg;
	atomic_long_t *clock;
	int nid;

	switch (r->policy->clock) {
	case AWS_CLOCK_ANON:
		memcg = lruvec_memcg(lruvec);
		nid = lruvec_pgdat(lruvec)->node_id;
		do {
			clock = aws_clock_slot(r, mem_cgroup_id(memcg), nid,
					       true);
			if (clock)
				atomic_long_add(nr_pages, clock);
		} while (memcg && (memcg = parent_mem_cgroup(memcg)));
		break;
	case AWS_CLOCK_SHARED:
		workingset_age_nonresident(lruvec, nr_pages);
		break;
	default:
		break;
	}
}

/* @r's anon clock of the root lruvec of node @nid (0 without one). */
unsigned long aws_anon_age(struct aws_run *r, int nid)
{
	atomic_long_t *clock;

	if (!aws_table_present(&r->clock))
		return 0;
	clock = aws_lruvec_clock(r, mem_cgroup_lruvec(NULL, NODE_DATA(nid)));
	return clock ? atomic_long_read(clock) : aws_clock_unused();
}
