// SPDX-License-Identifier: GPL-2.0
/*
 * aws_clock.c - the private anon non-resident clocks
 *
 * Stock 6.1 keeps one non-resident clock per lruvec (nonresident_age) that
 * both anon and file evictions and activations advance.  The seed series
 * kept one clock per LRU type, so that a burst of file reclaim does not
 * stretch the refault distances of anon pages and vice versa.  The
 * "detect" policy restores that: anon events advance a private clock kept
 * here, file events keep advancing the stock one.
 *
 * A clock exists per (memcg, node) lruvec.  Rather than adding a field to
 * struct lruvec, the clocks live in one table indexed by memcg id and node
 * id, allocated at load: hooks can then never need to allocate.  A memcg id
 * that is reused inherits the old clock value, which is harmless: shadows
 * of the dead memcg are refused by id lookup, and a clock only ever moves
 * forward.  The "upstream" policy uses the stock clock instead.  With memcg
 * disabled (cgroup_disable=memory) every lruvec is a node's and has id 0.
 *
 * Aging is hierarchical like workingset_age_nonresident(): reclaiming a
 * parent memcg reclaims its children round-robin, so every page has an LRU
 * position in all ancestors and an eviction in a leaf ages them all.
 */
#include <linux/memcontrol.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/swap.h>
#include <linux/vmalloc.h>

#include "anon_workingset.h"

/* One entry per memcg id (0 when memcg is disabled) and node. */
static atomic_long_t *aws_anon_clock;

static atomic_long_t *aws_clock_slot(unsigned int memcgid, int nid)
{
	return &aws_anon_clock[memcgid * nr_node_ids + nid];
}

static atomic_long_t *aws_lruvec_clock(struct lruvec *lruvec)
{
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);

	return aws_clock_slot(mem_cgroup_id(memcg), lruvec_pgdat(lruvec)->node_id);
}

int aws_clock_init(void)
{
	aws_anon_clock = vzalloc(array_size(MEM_CGROUP_ID_MAX + 1,
					    nr_node_ids * sizeof(atomic_long_t)));
	return aws_anon_clock ? 0 : -ENOMEM;
}

void aws_clock_exit(void)
{
	vfree(aws_anon_clock);
}

unsigned long aws_clock_read(enum aws_clock clock, struct lruvec *lruvec)
{
	switch (clock) {
	case AWS_CLOCK_ANON:
		return atomic_long_read(aws_lruvec_clock(lruvec));
	case AWS_CLOCK_SHARED:
		return atomic_long_read(&lruvec->nonresident_age);
	default:
		return 0;
	}
}

void aws_clock_age(enum aws_clock clock, struct lruvec *lruvec,
		   unsigned long nr_pages)
{
	struct mem_cgroup *memcg;
	int nid;

	switch (clock) {
	case AWS_CLOCK_ANON:
		memcg = lruvec_memcg(lruvec);
		nid = lruvec_pgdat(lruvec)->node_id;
		do {
			atomic_long_add(nr_pages,
					aws_clock_slot(mem_cgroup_id(memcg), nid));
		} while (memcg && (memcg = parent_mem_cgroup(memcg)));
		break;
	case AWS_CLOCK_SHARED:
		workingset_age_nonresident(lruvec, nr_pages);
		break;
	default:
		break;
	}
}

/* The root lruvec's anon clock of node @nid, for /proc/anon_workingset. */
unsigned long aws_anon_age(int nid)
{
	return atomic_long_read(aws_lruvec_clock(mem_cgroup_lruvec(NULL,
							 NODE_DATA(nid))));
}
