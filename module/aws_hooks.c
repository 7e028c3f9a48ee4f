// SPDX-License-Identifier: GPL-2.0
/*
 * aws_hooks.c - the anon_ws_ops table: policy decisions at each hook site
 *
 * Each hook reads the running policy once, looks its behaviour up in the
 * policy core (aws_traits() in include/anon_ws_policy.h) and either
 * declines, so that the kernel runs its stock code, or decides.  This file
 * only translates between kernel objects (folios, lruvecs, memcgs) and the
 * plain numbers the core works on.
 *
 * Context (see include/linux/anon_ws_hooks.h): every hook runs inside the
 * RCU read section the hook site opens; on_evict additionally runs under
 * the swap cache xa_lock with IRQs off and the folio's refcount frozen,
 * on_age possibly under the lru_lock.  Nothing here sleeps, allocates or
 * takes a lock, except lru_note_cost_folio() on a restore in on_swapin,
 * which runs in process context exactly where stock calls it.
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

	if (!t->hooks_active)
		return false;
	aws_count(AWS_SWAPINS, folio_nr_pages(folio));
	if (t->swapin_workingset)
		folio_set_workingset(folio);
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
	if (!t->anon_shadows) {
		*shadow = NULL;
		aws_count(AWS_EVICTIONS_NOSHADOW, nr);
		return true;
	}
	/*
	 * Stamp the clock of the reclaim target, where the LRU order that
	 * evicted the folio was decided; NULL means global reclaim.
	 */
	pgdat = folio_pgdat(folio);
	lruvec = mem_cgroup_lruvec(target_memcg, pgdat);
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
	aws_count(AWS_SWAPIN_ACTIVATIONS, folio_nr_pages(folio));
	return true;
}

static unsigned long aws_anon_inactive_ratio(unsigned long ratio)
{
	return aws_inactive_ratio(READ_ONCE(aws_ratio), ratio);
}

const struct anon_ws_ops aws_ops = {
	.on_new_anon = aws_new_anon,
	.on_swapin = aws_swapin,
	.on_evict = aws_evict,
	.on_age = aws_age,
	.on_ref_activate = aws_ref_activate,
	.on_swapin_mapped = aws_swapin_mapped,
	.on_anon_inactive_ratio = aws_anon_inactive_ratio,
};
