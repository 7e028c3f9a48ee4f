// SPDX-License-Identifier: GPL-2.0
/*
 * aws_hooks.c - the anon_ws_ops table: the framework side of each decision
 *
 * Each hook reads the running policy once (struct aws_run) and asks it the
 * decision the hook site stands for (include/aws_policy.h); a policy that
 * does not implement it declines, and the kernel runs its stock code.
 * Everything around the decision is done here: translating folios,
 * lruvecs and memcgs into the plain numbers a policy sees, finding its
 * private state, stamping, reading and ageing the clocks, the vmstat
 * events, the counters.  Under the stock policy every hook declines,
 * except two: a swap-in during a policy switch drops its shadow (see
 * aws_switch.c), and the module writes every swap shadow, stock's too,
 * so that it never reads one it did not write (include/aws_core.h).
 *
 * Who judges a refault.  Every decision about a folio is its policy's (the
 * policy of the cgroup it is charged to), but a refault is judged by the
 * policy that stamped the shadow, on the clock it was stamped on: the
 * shadow's tag names it.  A page can be evicted under one policy and
 * swapped in under another -- its cgroup was deleted, or its task moved,
 * or a cgroup's policy changed (which sweeps) -- and only the stamping
 * policy can read its stamp.  A shadow of the stock kind (its cgroup runs
 * a policy that leaves stock's shadows) goes back to the stock code, in
 * the stock format, and stock judges it.
 *
 * Context (see include/linux/anon_ws_hooks.h): every hook runs inside the
 * RCU read section the hook site opens; on_evict additionally runs under
 * the swap cache xa_lock with IRQs off and the folio's refcount frozen,
 * on_age possibly under the lru_lock.  Nothing here sleeps or allocates.
 * Two calls take locks, both in process context and exactly where stock
 * workingset_refault() takes them: on 6.1 mem_cgroup_flush_stats_delayed()
 * (the memcg stats flush lock, with a trylock; 6.12's flush may sleep and
 * is not called) and, on a restore, the LRU cost note (the lruvec's
 * lru_lock).  aws_compat.h names both.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/swap.h>
#include <linux/xarray.h>

#include "anon_workingset.h"
#include "aws_trace.h"

/*
 * The policy that decides for @memcg (NULL without memcg): its own, an
 * ancestor's or the global one (aws_cgroup.c).  Hook sites hold
 * rcu_read_lock(), which the lookup needs.
 */
static struct aws_run *aws_run_of(struct mem_cgroup *memcg,
				  unsigned int *ratio)
{
	unsigned int policy, r;

	aws_cgroup_lookup(memcg, &policy, &r);
	if (ratio)
		*ratio = r;
	return &aws_runs[policy];
}

/* The fast path while no cgroup has a setting: the global policy. */
static struct aws_run *aws_folio_run(struct folio *folio)
{
	if (likely(!atomic_read(&aws_cg_entries)))
		return &aws_runs[READ_ONCE(aws_global)];
	return aws_run_of(folio_memcg_rcu(folio), NULL);
}

/* The same for an lruvec's memcg, with its ratio setting if @ratio. */
static struct aws_run *aws_lruvec_run(struct lruvec *lruvec,
				      unsigned int *ratio)
{
	if (likely(!atomic_read(&aws_cg_entries))) {
		if (ratio)
			*ratio = READ_ONCE(aws_ratio);
		return &aws_runs[READ_ONCE(aws_global)];
	}
	return aws_run_of(lruvec_memcg(lruvec), ratio);
}

/*
 * The scope of the switch in progress (NULL: none), and the epoch to judge
 * shadows in.  Pairs with aws_switch_begin(), which writes in the opposite
 * order: the policy and the handover were read first, and who reads a new
 * epoch reads the flag and the scope that came before it, so a switch that
 * starts meanwhile drops the shadow it sweeps instead of failing its epoch
 * check.
 */
static const struct aws_scope *aws_switching(unsigned int *epoch)
{
	smp_rmb();	/* the policy and the handover before the epoch */
	*epoch = READ_ONCE(aws_epoch);
	smp_rmb();	/* the epoch before the flag */
	if (!READ_ONCE(aws_sweeping))
		return NULL;
	smp_rmb();	/* the flag before the scope */
	return READ_ONCE(aws_sweep_scope);
}

/*
 * The policy's private state for @lruvec, or NULL if it keeps none (or
 * its memory cannot be allocated now: aws_table.c).
 */
static void *aws_state(struct aws_run *r, struct lruvec *lruvec)
{
	struct mem_cgroup *memcg;

	if (!aws_table_present(&r->state))
		return NULL;
	memcg = lruvec_memcg(lruvec);
	aws_state_claim(memcg);
	return aws_table_get(&r->state, mem_cgroup_id(memcg),
			     lruvec_pgdat(lruvec)->node_id);
}

/* The state of the lruvec @folio is charged to, if the policy has any. */
static void *aws_folio_state(struct aws_run *r, struct folio *folio)
{
	if (!aws_table_present(&r->state))
		return NULL;
	if (!mem_cgroup_disabled() && !folio_memcg_rcu(folio))
		return NULL;
	return aws_state(r, folio_lruvec(folio));
}

/*
 * What a policy sees of @folio (struct aws_folio): under rcu_read_lock(),
 * as every hook runs, so its memcg can be read.
 */
static struct aws_folio aws_describe(struct folio *folio)
{
	struct mem_cgroup *memcg = mem_cgroup_disabled() ? NULL :
				   folio_memcg_rcu(folio);
	struct aws_folio f = {
		.nr_pages = folio_nr_pages(folio),
		.swapbacked = folio_test_swapbacked(folio),
		.workingset = folio_test_workingset(folio),
		.memcg_id = memcg ? mem_cgroup_id(memcg) : 0,
		.nid = folio_nid(folio),
		.id = folio_test_swapcache(folio) ?
		      aws_folio_swap(folio).val : 0,
	};

	return f;
}

static bool aws_new_anon(struct folio *folio, struct vm_area_struct *vma)
{
	struct aws_run *r = aws_folio_run(folio);
	struct aws_folio f;
	bool active;

	if (!r->policy->new_anon)
		return false;
	f = aws_describe(folio);
	active = r->policy->new_anon(&f, aws_folio_state(r, folio)) == AWS_YES;
	aws_count(active ? AWS_PLACED_ACTIVE : AWS_PLACED_INACTIVE, f.nr_pages);
	trace_aws_place(r->policy, folio_memcg_rcu(folio), f.nr_pages, active);
	return active;
}

/*
 * The list sizes of @lruvec that a policy sees; swap is available when
 * @memcg may still swap.
 */
static void aws_lru_sizes(struct lruvec *lruvec, struct mem_cgroup *memcg,
			  struct aws_lru_sizes *s)
{
	s->active_anon = aws_lru_pages(lruvec, LRU_ACTIVE_ANON);
	s->inactive_anon = aws_lru_pages(lruvec, LRU_INACTIVE_ANON);
	s->active_file = aws_lru_pages(lruvec, LRU_ACTIVE_FILE);
	s->inactive_file = aws_lru_pages(lruvec, LRU_INACTIVE_FILE);
	s->swap_available = mem_cgroup_get_nr_swap_pages(memcg) > 0;
	s->memcg_id = mem_cgroup_id(lruvec_memcg(lruvec));
	s->nid = lruvec_pgdat(lruvec)->node_id;
}

/*
 * A swapped-in folio found a shadow @s that the policy of @r stamped:
 * measure the refault distance on that policy's clock and let it judge, as
 * workingset_refault() does for stock.  @folio is locked, charged and not
 * yet on the LRU, so PG_active set here puts it straight on the active
 * list.
 */
static void aws_refault(struct aws_run *r, struct folio *folio,
			const struct aws_shadow *s)
{
	const struct aws_policy *p = r->policy;
	struct lruvec *eviction_lruvec, *lruvec;
	struct mem_cgroup *eviction_memcg, *memcg;
	long nr = folio_nr_pages(folio);
	struct pglist_data *pgdat;
	struct aws_refault rf = { .nr_pages = nr };
	bool activate;

	/* Never trust a node id from memory we did not write ourselves. */
	if (s->nid >= nr_node_ids || !node_online(s->nid)) {
		aws_count(AWS_REFAULTS_STALE, nr);
		return;
	}
	pgdat = NODE_DATA(s->nid);
	eviction_memcg = mem_cgroup_from_id(s->memcgid);
	if (!mem_cgroup_disabled() && !eviction_memcg) {
		aws_count(AWS_REFAULTS_STALE, nr);
		return;
	}
	eviction_lruvec = mem_cgroup_lruvec(eviction_memcg, pgdat);
	rf.distance = aws_refault_distance(&aws_layout,
					   aws_clock_read(r, eviction_lruvec),
					   s->eviction);
	rf.workingset = s->workingset;
	/*
	 * The page's identity: its swap entry, stable while it keeps its
	 * slot.  0 (unknown) on the SWP_SYNCHRONOUS_IO path, which sets the
	 * entry after the refault is judged.
	 */
	rf.id = aws_folio_swap(folio).val;

	/*
	 * Events are charged to the refaulting memcg, on the node stock
	 * counts them on (aws_compat.h); swap is checked where stock does.
	 */
	memcg = folio_memcg(folio);
	lruvec = mem_cgroup_lruvec(memcg, aws_refault_pgdat(folio, pgdat));
	mod_lruvec_state(lruvec, WORKINGSET_REFAULT_ANON, nr);
	aws_count(AWS_REFAULTS, nr);

	aws_flush_stats();
	aws_lru_sizes(eviction_lruvec,
		      AWS_STOCK_SWAP_CHECK_EVICTION_MEMCG ? eviction_memcg : memcg,
		      &rf.sizes);
	activate = p->refault(&rf, aws_state(r, eviction_lruvec)) == AWS_YES;
	/* A BPF policy may have written any byte there: make it a bool. */
	rf.quiet = READ_ONCE(*(u8 *)&rf.quiet) != 0;
	aws_count_distance(rf.distance, rf.workingset_size);
	trace_aws_refault(p, eviction_memcg, &rf, activate);
	if (!activate)
		return;

	folio_set_active(folio);
	aws_clock_age(r, lruvec, nr);
	/*
	 * 6.1's prepare_scan_count() sets DEACTIVATE_ANON in the next reclaim
	 * of any target above @lruvec once this counter has moved: a quiet
	 * activation leaves it alone (include/aws_policy.h).
	 */
	if (rf.quiet)
		aws_count(AWS_QUIET_ACTIVATIONS, nr);
	else
		mod_lruvec_state(lruvec, WORKINGSET_ACTIVATE_ANON, nr);
	aws_count(AWS_ACTIVATIONS, nr);

	/* It was active when evicted: this is workingset being restored. */
	if (s->workingset) {
		folio_set_workingset(folio);
		aws_note_restore_cost(folio);
		mod_lruvec_state(lruvec, WORKINGSET_RESTORE_ANON, nr);
		aws_count(AWS_RESTORES, nr);
	}
}

/* The tag of a shadow stamped by @r now: kind, epoch, policy. */
static unsigned long aws_tag(struct aws_run *r)
{
	/* Pairs with aws_switch_begin(): a new policy's stamps, new epoch */
	smp_rmb();
	return AWS_TAG_KIND |
	       (unsigned long)READ_ONCE(aws_epoch) << AWS_TAG_POLICY_BITS |
	       (r - aws_runs + 1);
}

/*
 * A stock shadow as the module stores it, in the stock code's format: its
 * stamp's top bit put back from the shared clock it was stamped on
 * (include/aws_core.h).  One whose memcg is gone is handed on as it is:
 * the stock code drops it unread.  Counted, with those whose distance, as
 * the stock code will read it, exceeds all of memory: such a refault can
 * never activate, and a stamp misread at some clock value would be one.
 */
static void *aws_stock_shadow(unsigned long value, unsigned long nr)
{
	unsigned long now;
	struct mem_cgroup *memcg;
	struct lruvec *lruvec;
	struct aws_shadow s;

	aws_unpack_shadow(&aws_stock_layout, value, &s);
	if (s.nid >= nr_node_ids || !node_online(s.nid)) {
		aws_count(AWS_REFAULTS_STALE, nr);
		return NULL;
	}
	memcg = mem_cgroup_from_id(s.memcgid);
	if (!mem_cgroup_disabled() && !memcg)
		return xa_mk_value(value);
	lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(s.nid));
	now = atomic_long_read(&lruvec->nonresident_age);
	s.eviction = aws_stamp_extend(&aws_stock_layout, now, s.eviction);
	s.tag = 0;
	aws_count(AWS_STOCK_REFAULTS, nr);
	/* the stock code masks the distance to the same width */
	if (aws_refault_distance(&aws_raw_layout, now, s.eviction) >
	    totalram_pages())
		aws_count(AWS_STOCK_REFAULTS_FAR, nr);
	return xa_mk_value(aws_pack_shadow(&aws_raw_layout, &s));
}

/*
 * A swap-in found *@shadow (or none).  A policy shadow is judged by the
 * policy that stamped it; a stock one goes back to the stock code in its
 * own format.  Once unloading has handed over, every shadow is the stock
 * code's own.
 */
static bool aws_swapin(struct folio *folio, void **shadowp)
{
	struct aws_run *r = aws_folio_run(folio);
	bool handed_over = READ_ONCE(aws_handed_over);
	const struct aws_policy *p = r->policy;
	unsigned long nr = folio_nr_pages(folio);
	unsigned int stamper = 0, epoch = 0, now_epoch;
	const struct aws_scope *sweeping;
	void *shadow = *shadowp;
	bool stock_kind = false, live;
	struct aws_shadow s;
	struct aws_folio f;

	sweeping = aws_switching(&now_epoch);
	if (shadow && sweeping &&
	    aws_scope_match(sweeping, xa_to_value(shadow))) {
		/* Maybe stamped with the old clock: judge nothing. */
		aws_count(AWS_REFAULTS_DROPPED, nr);
		*shadowp = shadow = NULL;
		if (r->stock || handed_over)
			return true;
	}
	if (handed_over)
		return false;
	if (shadow && !aws_shadow_kind(&aws_raw_layout, xa_to_value(shadow))) {
		stock_kind = true;
		*shadowp = aws_stock_shadow(xa_to_value(shadow), nr);
	} else if (shadow) {
		aws_unpack_shadow(&aws_layout, xa_to_value(shadow), &s);
		stamper = s.tag & ((1U << AWS_TAG_POLICY_BITS) - 1);
		epoch = (s.tag & ~AWS_TAG_KIND) >> AWS_TAG_POLICY_BITS;
	}
	/* No policy shadow: stock stamped it, stock judges it. */
	if (r->stock && (!shadow || stock_kind))
		return false;
	if (!r->stock) {
		aws_count(AWS_SWAPINS, nr);
		/* Swap-ins through the swap cache, not SWP_SYNCHRONOUS_IO's */
		if (p->swapin && folio_test_swapcache(folio)) {
			f = aws_describe(folio);
			if (p->swapin(&f, aws_folio_state(r, folio)) == AWS_YES) {
				folio_set_workingset(folio);
				aws_count(AWS_SWAPINS_MARKED, nr);
			}
		}
	}
	if (!shadow)
		return true;
	if (stock_kind)
		return false;
	if (!stamper || stamper > AWS_NR_RUNS) {
		/* Not a tag we write: never judge it. */
		aws_count(AWS_REFAULTS_STALE, nr);
		return true;
	}
	/* Pairs with aws_bpf_reg(): a live run is a filled one. */
	live = smp_load_acquire(&aws_runs[stamper - 1].live);
	if (!live || (epoch != now_epoch &&
		      aws_swept_since(epoch, now_epoch, xa_to_value(shadow)))) {
		/* A switch since its epoch swept it: the protocol failed. */
		aws_count(AWS_REFAULTS_OLD_EPOCH, nr);
		return true;
	}
	if (&aws_runs[stamper - 1] != r)
		aws_count(AWS_REFAULTS_STAMPER, nr);
	r = &aws_runs[stamper - 1];
	if (r->policy->refault)
		aws_refault(r, folio, &s);
	return true;
}

/*
 * Every swap-cache eviction leaves the shadow the module wrote: a policy
 * shadow, or for a policy that declines the decision the stock one, of
 * the stock kind (include/aws_core.h), stamped and aged as
 * workingset_eviction() does.  Once unloading has handed over, the stock
 * code stamps again.
 */
static bool aws_evict(struct folio *folio, struct mem_cgroup *target_memcg,
		      void **shadow)
{
	struct aws_run *r;
	const struct aws_policy *p;
	struct aws_folio f;
	struct pglist_data *pgdat;
	struct lruvec *lruvec;
	struct aws_shadow s;

	if (READ_ONCE(aws_handed_over))
		return false;
	r = aws_folio_run(folio);
	p = r->policy;
	/*
	 * The LRU order that evicted the folio was decided in the reclaim
	 * target (NULL: global reclaim): its clock is stamped and aged.
	 */
	pgdat = folio_pgdat(folio);
	lruvec = mem_cgroup_lruvec(target_memcg, pgdat);
	s.memcgid = mem_cgroup_id(lruvec_memcg(lruvec));
	s.nid = pgdat->node_id;
	s.workingset = folio_test_workingset(folio);
	if (!p->evict) {
		s.eviction = atomic_long_read(&lruvec->nonresident_age);
		s.tag = 0;
		workingset_age_nonresident(lruvec, folio_nr_pages(folio));
		*shadow = xa_mk_value(aws_pack_shadow(&aws_stock_layout, &s));
		return true;
	}
	/* what the policy sees, only for a policy that asks */
	f = aws_describe(folio);
	*shadow = NULL;
	if (p->evict(&f, aws_state(r, lruvec)) != AWS_YES ||
	    p->clock == AWS_CLOCK_NONE) {
		aws_clock_age(r, lruvec, f.nr_pages);
		aws_count(AWS_EVICTIONS_NOSHADOW, f.nr_pages);
		trace_aws_evict(p, lruvec_memcg(lruvec), pgdat->node_id,
				f.nr_pages, false, 0, f.workingset);
		return true;
	}
	s.eviction = aws_clock_read(r, lruvec);
	s.tag = aws_tag(r);
	aws_clock_age(r, lruvec, f.nr_pages);
	*shadow = xa_mk_value(aws_pack_shadow(&aws_layout, &s));
	aws_count(AWS_EVICTIONS, f.nr_pages);
	trace_aws_evict(p, lruvec_memcg(lruvec), s.nid, f.nr_pages, true,
			s.eviction, s.workingset);
	return true;
}

/* A policy's AWS_NOTE() (aws_policy.h): the aws_note event, nothing else. */
void aws_note(const char *policy, const unsigned long *words)
{
	trace_aws_note(policy, words);
}

static bool aws_age(struct lruvec *lruvec, struct folio *folio)
{
	struct aws_run *r;
	const struct aws_policy *p;
	struct aws_folio f;
	bool aged;

	if (folio_is_file_lru(folio))
		return false;
	r = aws_folio_run(folio);
	p = r->policy;
	if (!p->age)
		return false;
	if (!lruvec) {
		if (!mem_cgroup_disabled() && !folio_memcg_rcu(folio))
			return true;
		lruvec = folio_lruvec(folio);
	}
	f = aws_describe(folio);
	aged = p->age(&f, aws_state(r, lruvec)) == AWS_YES;
	trace_aws_age(p, f.nr_pages, aged);
	if (!aged)
		return true;		/* activations age nothing */
	if (p->clock == AWS_CLOCK_SHARED)
		return false;		/* the stock code ages the shared clock */
	aws_clock_age(r, lruvec, f.nr_pages);
	return true;
}

/*
 * Reclaim asks whether @folio (of run @r) goes, or stays, active: @decide
 * of its policy answers (NULL declines); a YES is counted in @counter and
 * traced as @reason.
 */
static bool aws_reclaim_decision(struct folio *folio, struct aws_run *r,
				 enum aws_decision (*decide)(const struct aws_folio *,
							     void *),
				 enum aws_counter counter, const char *reason)
{
	struct aws_folio f;

	if (!decide)
		return false;
	f = aws_describe(folio);
	if (decide(&f, aws_folio_state(r, folio)) != AWS_YES)
		return false;
	aws_count(counter, f.nr_pages);
	trace_aws_activate(r->policy, f.nr_pages, reason);
	return true;
}

/* folio_check_references() saw one young PTE: activate now? */
static bool aws_ref_activate(struct folio *folio)
{
	struct aws_run *r = aws_folio_run(folio);

	return aws_reclaim_decision(folio, r, r->policy->first_reference,
				    AWS_REF_ACTIVATIONS, "first_reference");
}

/* shrink_active_list() found @folio referenced: keep it active? */
static bool aws_keep_active(struct folio *folio)
{
	struct aws_run *r = aws_folio_run(folio);

	return aws_reclaim_decision(folio, r, r->policy->keep_active,
				    AWS_ACTIVE_KEPT, "keep_active");
}

static bool aws_swapin_mapped(struct folio *folio)
{
	struct aws_run *r = aws_folio_run(folio);
	const struct aws_policy *p = r->policy;
	struct aws_folio f;

	if (!p->swapin_mapped)
		return false;
	f = aws_describe(folio);
	if (p->swapin_mapped(&f, aws_folio_state(r, folio)) != AWS_YES)
		return false;
	/*
	 * folio_activate() acts only on a folio already on an inactive LRU;
	 * one still in a per-CPU batch stays as it is (as in 5.8).  Count
	 * what it will do.
	 */
	if (folio_test_lru(folio) && !folio_test_active(folio) &&
	    !folio_test_unevictable(folio)) {
		aws_count(AWS_SWAPIN_ACTIVATIONS, f.nr_pages);
		trace_aws_activate(p, f.nr_pages, "swapin_mapped");
	}
	return true;
}

/* The anon inactive:active target of @lruvec, given 6.1's. */
static unsigned long aws_anon_inactive_ratio(struct lruvec *lruvec,
					     unsigned long ratio)
{
	struct aws_lru_sizes sizes = { 0 };
	unsigned int param;
	struct aws_run *r = aws_lruvec_run(lruvec, &param);

	if (r->stock)
		return ratio;
	if (r->policy->inactive_ratio && param == AWS_RATIO_AUTO)
		aws_lru_sizes(lruvec, lruvec_memcg(lruvec), &sizes);
	return aws_policy_ratio(r->policy, param, ratio, &sizes,
				aws_state(r, lruvec));
}

/*
 * The anon list sizes inactive_is_low() compares (6.12 only: its memcg
 * statistics lag until their next flush): exact ones for every policy
 * but stock, which must see what the kernel without the module sees.
 */
static bool __maybe_unused aws_anon_list_sizes(struct lruvec *lruvec,
					       unsigned long *inactive,
					       unsigned long *active)
{
	struct aws_run *r = aws_lruvec_run(lruvec, NULL);

	if (r->stock)
		return false;
	*inactive = aws_lru_pages(lruvec, LRU_INACTIVE_ANON);
	*active = aws_lru_pages(lruvec, LRU_ACTIVE_ANON);
	return true;
}

/* A file refault: what its distance is compared with (stats are flushed). */
static unsigned long aws_file_workingset(struct lruvec *eviction_lruvec,
					 unsigned long size)
{
	const struct aws_policy *p = aws_lruvec_run(eviction_lruvec, NULL)->policy;
	struct aws_lru_sizes sizes;

	if (!p->file_workingset)
		return size;
	aws_lru_sizes(eviction_lruvec, lruvec_memcg(eviction_lruvec), &sizes);
	aws_count(AWS_FILE_REFAULTS_JUDGED, 1);
	return p->file_workingset(&sizes, size);
}

const struct anon_ws_ops aws_ops = {
	.on_new_anon = aws_new_anon,
	.on_swapin = aws_swapin,
	.on_evict = aws_evict,
	.on_age = aws_age,
	.on_ref_activate = aws_ref_activate,
	.on_keep_active = aws_keep_active,
	.on_swapin_mapped = aws_swapin_mapped,
	.on_anon_inactive_ratio = aws_anon_inactive_ratio,
	AWS_OPS_LIST_SIZES
	.on_file_workingset = aws_file_workingset,
};
