// SPDX-License-Identifier: GPL-2.0
/*
 * aws_hooks.c - the anon_ws_ops table: policy decisions at each hook site
 *
 * Each hook reads the running policy once, looks its behaviour up in the
 * policy core (aws_traits() in include/anon_ws_policy.h) and either
 * declines, so that the kernel runs its stock code, or decides.  This file
 * only translates between kernel objects (folios, lruvecs, memcgs) and the
 * plain numbers the core works on.  Under the stock policy every hook
 * declines, except that a swap-in during a policy switch drops its shadow
 * (see aws_main.c).
 *
 * Context (see include/linux/anon_ws_hooks.h): every hook runs inside the
 * RCU read section the hook site opens; on_evict additionally runs under
 * the swap cache xa_lock with IRQs off and the folio's refcount frozen,
 * on_age possibly under the lru_lock.  Nothing here sleeps or allocates.
 * Two calls take locks, both in process context and exactly where stock
 * workingset_refault() takes them: mem_cgroup_flush_stats_delayed() (the
 * memcg stats flush lock, with a trylock) and, on a restore,
 * lru_note_cost_folio() (the lruvec's lru_lock).
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/swap.h>
#include <linux/xarray.h>

#include "anon_workingset.h"

static const struct aws_policy_traits *aws_current(void)
{
	return aws_traits(READ_ONCE(aws_policy));
}

static bool aws_switching(void)
{
	/* Pairs with aws_switch_policy(): the policy was read first. */
	smp_rmb();
	return READ_ONCE(aws_sweeping);
}

static bool aws_new_anon(struct folio *folio, struct vm_area_struct *vma)
{
	const struct aws_policy_traits *t = aws_current();

	if (!t->hooks_active)
		return false;
	aws_count(t->new_anon_active ? AWS_PLACED_ACTIVE : AWS_PLACED_INACTIVE,
		  folio_nr_pages(folio));
	return t->new_anon_active;
}

/* Size of the workingset a refault of @eviction_lruvec is compared with. */
static unsigned long aws_workingset(const struct aws_policy_traits *t,
				    struct lruvec *eviction_lruvec,
				    struct mem_cgroup *memcg)
{
	struct aws_lru_sizes sizes = {
		.active_anon = lruvec_page_state(eviction_lruvec, NR_ACTIVE_ANON),
		.inactive_anon = lruvec_page_state(eviction_lruvec, NR_INACTIVE_ANON),
		.active_file = lruvec_page_state(eviction_lruvec, NR_ACTIVE_FILE),
		.inactive_file = lruvec_page_state(eviction_lruvec, NR_INACTIVE_FILE),
		.swap_available = mem_cgroup_get_nr_swap_pages(memcg) > 0,
	};

	return aws_workingset_size(t->ws_rule, &sizes);
}

/*
 * A swapped-in folio found a shadow: decide whether it was part of the
 * workingset, as workingset_refault() does, but with the policy's clock
 * and workingset rule.  @folio is locked, charged and not yet on the LRU,
 * so PG_active set here puts it straight on the active list.
 */
static void aws_refault(const struct aws_policy_traits *t,
			struct folio *folio, void *shadow)
{
	struct lruvec *eviction_lruvec, *lruvec;
	struct mem_cgroup *eviction_memcg, *memcg;
	unsigned long distance, workingset_size;
	long nr = folio_nr_pages(folio);
	struct pglist_data *pgdat;
	struct aws_shadow s;

	aws_unpack_shadow(&aws_layout, xa_to_value(shadow), &s);
	/* Never trust a node id from memory we did not write ourselves. */
	if (s.nid >= nr_node_ids || !node_online(s.nid)) {
		aws_count(AWS_REFAULTS_STALE, nr);
		return;
	}
	pgdat = NODE_DATA(s.nid);
	eviction_memcg = mem_cgroup_from_id(s.memcgid);
	if (!mem_cgroup_disabled() && !eviction_memcg) {
		aws_count(AWS_REFAULTS_STALE, nr);
		return;
	}
	eviction_lruvec = mem_cgroup_lruvec(eviction_memcg, pgdat);
	distance = aws_refault_distance(&aws_layout,
					aws_clock_read(t->clock, eviction_lruvec),
					s.eviction);

	/* Events are charged to the refaulting memcg, on the eviction node. */
	memcg = folio_memcg(folio);
	lruvec = mem_cgroup_lruvec(memcg, pgdat);
	mod_lruvec_state(lruvec, WORKINGSET_REFAULT_ANON, nr);
	aws_count(AWS_REFAULTS, nr);

	mem_cgroup_flush_stats_delayed();
	workingset_size = aws_workingset(t, eviction_lruvec, memcg);
	aws_count_distance(distance, workingset_size);
	if (!aws_should_activate(distance, workingset_size))
		return;

	folio_set_active(folio);
	aws_clock_age(t->clock, lruvec, nr);
	mod_lruvec_state(lruvec, WORKINGSET_ACTIVATE_ANON, nr);
	aws_count(AWS_ACTIVATIONS, nr);

	/* It was active when evicted: this is workingset being restored. */
	if (s.workingset) {
		folio_set_workingset(folio);
		lru_note_cost_folio(folio);
		mod_lruvec_state(lruvec, WORKINGSET_RESTORE_ANON, nr);
		aws_count(AWS_RESTORES, nr);
	}
}

static bool aws_swapin(struct folio *folio, void *shadow)
{
	const struct aws_policy_traits *t = aws_current();
	long nr = folio_nr_pages(folio);

	if (shadow && aws_switching()) {
		/* Maybe stamped with the old clock: judge nothing. */
		aws_count(AWS_REFAULTS_DROPPED, nr);
		shadow = NULL;
		if (!t->hooks_active)
			return true;
	}
	if (!t->hooks_active)
		return false;
	aws_count(AWS_SWAPINS, nr);
	/* Only swap-ins through the swap cache, not SWP_SYNCHRONOUS_IO's. */
	if (t->swapin_workingset && folio_test_swapcache(folio)) {
		folio_set_workingset(folio);
		aws_count(AWS_SWAPINS_MARKED, nr);
	}
	if (t->anon_shadows && shadow)
		aws_refault(t, folio, shadow);
	return true;
}

static bool aws_evict(struct folio *folio, struct mem_cgroup *target_memcg,
		      void **shadow)
{
	const struct aws_policy_traits *t = aws_current();
	long nr = folio_nr_pages(folio);
	struct pglist_data *pgdat;
	struct lruvec *lruvec;
	struct aws_shadow s;

	if (!t->hooks_active)
		return false;
	/*
	 * The LRU order that evicted the folio was decided in the reclaim
	 * target (NULL: global reclaim): its clock is stamped and aged.
	 */
	pgdat = folio_pgdat(folio);
	lruvec = mem_cgroup_lruvec(target_memcg, pgdat);
	*shadow = NULL;
	if (!t->anon_shadows || (nr > 1 && !t->large_folio_shadows)) {
		aws_clock_age(t->clock, lruvec, nr);
		aws_count(AWS_EVICTIONS_NOSHADOW, nr);
		return true;
	}
	s.eviction = aws_clock_read(t->clock, lruvec);
	s.memcgid = mem_cgroup_id(lruvec_memcg(lruvec));
	s.nid = pgdat->node_id;
	s.workingset = folio_test_workingset(folio);
	aws_clock_age(t->clock, lruvec, nr);
	*shadow = xa_mk_value(aws_pack_shadow(&aws_layout, &s));
	aws_count(AWS_EVICTIONS, nr);
	return true;
}

static bool aws_age(struct lruvec *lruvec, struct folio *folio)
{
	const struct aws_policy_traits *t = aws_current();
	struct mem_cgroup *memcg;

	if (!t->hooks_active || folio_is_file_lru(folio))
		return false;
	switch (t->clock) {
	case AWS_CLOCK_NONE:
		return true;	/* anon activations age nothing */
	case AWS_CLOCK_ANON:
		if (!lruvec) {
			memcg = folio_memcg_rcu(folio);
			if (!mem_cgroup_disabled() && !memcg)
				return true;
			lruvec = folio_lruvec(folio);
		}
		aws_clock_age(t->clock, lruvec, folio_nr_pages(folio));
		return true;
	default:
		return false;	/* the stock code ages the shared clock */
	}
}

static bool aws_ref_activate(struct folio *folio)
{
	const struct aws_policy_traits *t = aws_current();

	if (!t->ref_activate_swapbacked || !folio_test_swapbacked(folio))
		return false;
	aws_count(AWS_REF_ACTIVATIONS, folio_nr_pages(folio));
	return true;
}

static bool aws_swapin_mapped(struct folio *folio)
{
	const struct aws_policy_traits *t = aws_current();

	if (!t->activate_on_swapin_fault)
		return false;
	/*
	 * folio_activate() acts only on a folio already on an inactive LRU;
	 * one still in a per-CPU batch stays as it is (as in 5.8).  Count
	 * what it will do.
	 */
	if (folio_test_lru(folio) && !folio_test_active(folio) &&
	    !folio_test_unevictable(folio))
		aws_count(AWS_SWAPIN_ACTIVATIONS, folio_nr_pages(folio));
	return true;
}

static unsigned long aws_anon_inactive_ratio(unsigned long ratio)
{
	return aws_policy_inactive_ratio(aws_current(), READ_ONCE(aws_ratio),
					 ratio);
}

/* A file refault: what its distance is compared with (stats are flushed). */
static unsigned long aws_file_workingset(struct lruvec *eviction_lruvec,
					 unsigned long size)
{
	const struct aws_policy_traits *t = aws_current();
	struct aws_lru_sizes sizes = { 0 };

	if (!t->hooks_active)
		return size;
	sizes.active_file = lruvec_page_state(eviction_lruvec, NR_ACTIVE_FILE);
	aws_count(AWS_FILE_REFAULTS_JUDGED, 1);
	return aws_file_workingset_size(t->file_ws_rule, &sizes, size);
}

const struct anon_ws_ops aws_ops = {
	.on_new_anon = aws_new_anon,
	.on_swapin = aws_swapin,
	.on_evict = aws_evict,
	.on_age = aws_age,
	.on_ref_activate = aws_ref_activate,
	.on_swapin_mapped = aws_swapin_mapped,
	.on_anon_inactive_ratio = aws_anon_inactive_ratio,
	.on_file_workingset = aws_file_workingset,
};
