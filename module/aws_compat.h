/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_compat.h - what differs between the kernels the module builds for
 *
 * The same module source builds for Debian's 6.1 and 6.12, each carrying
 * its own hook series (patches/<kver>/).  Every difference in the kernel
 * interfaces the module uses is settled here, as one name with one
 * meaning on both kernels; the rest of the module does not test versions.
 * Kbuild says which kernel it builds for (AWS_KERNEL_6_1, AWS_KERNEL_6_12).
 */
#ifndef _AWS_COMPAT_H
#define _AWS_COMPAT_H

#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/vmstat.h>
#include <linux/swap.h>

#if defined(AWS_KERNEL_6_12)

/* Private to memcontrol.c since 6.7; ids are still 16 bits. */
#define AWS_MEMCG_ID_MAX	((1U << MEM_CGROUP_ID_SHIFT) - 1)

/* The swap entry of a swap-cache folio */
#define aws_folio_swap(folio)	((folio)->swap)

/* The trace string helper names its source in __string() only. */
#define aws_assign_str(dst, src)	do { __assign_str(dst); (void)(src); } while (0)

/* 6.12's stats flush may sleep: hooks do without it (aws_lru_pages()). */
static inline void aws_flush_stats(void)
{
}

/*
 * The pages on list @lru of @lruvec, its descendants' included, as stock's
 * lruvec_page_state() counts them after a flush.  A hook cannot flush,
 * and unflushed memcg statistics lag by up to 2 s (a new cgroup reads 0),
 * so the lruvec's own pages are counted exactly from its LRU, its
 * descendants' as the last flush left them, and the root's (every page of
 * the node) from the zone counters.
 */
static inline unsigned long aws_lru_pages(struct lruvec *lruvec,
					  enum lru_list lru)
{
	struct pglist_data *pgdat = lruvec_pgdat(lruvec);
	enum node_stat_item item = NR_LRU_BASE + lru;
	unsigned long own = 0, all, local;
	int zid;

	if (mem_cgroup_disabled() || mem_cgroup_is_root(lruvec_memcg(lruvec))) {
		for (zid = 0; zid < MAX_NR_ZONES; zid++)
			own += zone_page_state(&pgdat->node_zones[zid],
					       NR_ZONE_LRU_BASE + lru);
		return own;
	}
	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		own += mem_cgroup_get_zone_lru_size(lruvec, lru, zid);
	all = lruvec_page_state(lruvec, item);
	local = lruvec_page_state_local(lruvec, item);
	return own + (all > local ? all - local : 0);
}

/* A refault that restores workingset, as stock 6.12 notes it */
#define aws_note_restore_cost(folio)	lru_note_cost_refault(folio)

/*
 * 6.12's inactive_is_low() asks for the anon list sizes too (its memcg
 * statistics lag, see aws_lru_pages()).
 */
#define AWS_OPS_LIST_SIZES	.on_anon_list_sizes = aws_anon_list_sizes,

/* Hook calls and shadow judges in flight (the judge is SRCU in 6.12) */
#define aws_synchronize()	anon_ws_synchronize()

/*
 * Stock 6.12's refault rules: the swap check is on the memcg that
 * evicted the page, and the events are counted on the node the page
 * comes back to (6.1: the refaulting memcg, the eviction node).
 */
#define AWS_STOCK_SWAP_CHECK_EVICTION_MEMCG	1
static inline struct pglist_data *aws_refault_pgdat(struct folio *folio,
						    struct pglist_data *eviction)
{
	return folio_pgdat(folio);
}

#elif defined(AWS_KERNEL_6_1)

#define AWS_MEMCG_ID_MAX	MEM_CGROUP_ID_MAX
#define aws_folio_swap(folio)	folio_swap_entry(folio)
#define aws_assign_str(dst, src)	__assign_str(dst, src)

static inline void aws_flush_stats(void)
{
	mem_cgroup_flush_stats_delayed();
}

/* As stock reads them, after aws_flush_stats() */
static inline unsigned long aws_lru_pages(struct lruvec *lruvec,
					  enum lru_list lru)
{
	return lruvec_page_state(lruvec, NR_LRU_BASE + lru);
}

#define aws_note_restore_cost(folio)	lru_note_cost_folio(folio)
#define AWS_OPS_LIST_SIZES
#define aws_synchronize()	synchronize_rcu()
#define AWS_STOCK_SWAP_CHECK_EVICTION_MEMCG	0
static inline struct pglist_data *aws_refault_pgdat(struct folio *folio,
						    struct pglist_data *eviction)
{
	return eviction;
}

#else
#error "anon_workingset builds for Debian's 6.1 and 6.12 (see Kbuild)"
#endif

#endif /* _AWS_COMPAT_H */
