// SPDX-License-Identifier: GPL-2.0
/*
 * The multi-generational LRU of 6.1 (CONFIG_LRU_GEN, mm/vmscan.c and
 * mm/workingset.c) for the anon pages of one process, as the guest runs
 * it after `echo y >/sys/kernel/mm/lru_gen/enabled` (every capability on:
 * the aging walks page tables). It is the peer the module's policies are
 * measured against besides stock 6.1: aws-sim's `MGLRU` (--policies
 * mglru). Written from a reading of the 6.1 source, reduced to what
 * decides which page is evicted when.
 *
 * Model (one lruvec, one memcg, one mm with one VMA over the trace's page
 * ids, order-0 pages, infinite swap):
 *
 *  - Generations are sequence numbers min_seq..max_seq, 2 to 4 of them
 *    (MIN_NR_GENS, MAX_NR_GENS), each a list indexed by seq % 4. Start as
 *    lru_gen_init_lruvec(): max_seq 3, min_seq 0. A page records its
 *    generation; per-generation sizes follow the records, while list
 *    positions are corrected lazily, as in 6.1: a page promoted by the
 *    walk or by look-around keeps its place until eviction reaches it and
 *    moves it to the head of its own generation (sort_folio()).
 *  - A fault (first touch or swap-in) adds the page at the head of the
 *    youngest generation: folio_add_lru() marks folios added during a
 *    fault active, which lru_gen_add_folio() puts in max_seq. A hit only
 *    sets the page's accessed (young PTE) bit. With fault_young (the
 *    --fault-young of the two-list model) the faulting access sets it too,
 *    as x86 does; off by default, like there.
 *  - Aging (try_to_inc_max_seq()): the page-table walk moves every page
 *    with a young PTE into the current youngest generation and clears the
 *    bit, then inc_max_seq() opens a new, empty youngest generation (after
 *    folding the oldest one into the next if there were already four,
 *    inc_min_seq(): kept, but never reached, as aging never runs with
 *    four). The walk's Bloom filter is modelled, because it
 *    changes which young pages the walk finds: a page table (512
 *    consecutive page ids here) is walked only if the previous walk found
 *    at least one in 8 of its PTEs young, or a look-around since found
 *    that many in its window (suitable_to_scan(), update_bloom_filter());
 *    the first walk takes every table. The filter is exact here: 6.1's
 *    two 2^15-bit hashes have a negligible false-positive rate at these
 *    table counts. Left out: the non-leaf PMD accessed-bit filter (it
 *    skips only tables with no young PTE, where the walk finds nothing),
 *    and should_skip_mm()'s "fewer than 64 anon pages" and "has not run"
 *    (a process under a cell's memory.max has far more pages, and runs).
 *  - When to age (should_run_aging(), get_nr_to_scan()): whenever only
 *    MIN_NR_GENS generations are left, since eviction never takes from
 *    those. With MIN_NR_GENS + 1, 6.1 also ages when the youngest holds
 *    more than half of the pages or the oldest less than a quarter, but
 *    never at DEF_PRIORITY (12): a memcg of at least 4096 pages reclaims
 *    at that priority and ages only when it fails, so with one page per
 *    fault (below) this rule applies only under 4096 pages (batch mode
 *    runs the priority loop itself).
 *  - Eviction (evict_folios()): from the tail of the oldest generation's
 *    list. sort_folio(): a page whose generation is newer moves to the
 *    head of that generation; a page whose tier the refault feedback
 *    protects, or whose refs counter is full, moves to the next
 *    generation (the tail of min_seq + 1, PG_workingset and refs
 *    cleared). Else isolate_folio() (PG_workingset and refs cleared unless
 *    PG_referenced) and shrink_folio_list()'s rmap check: a young PTE
 *    makes folio_referenced_one() run lru_gen_look_around() and the page
 *    goes back to the head of the youngest generation; an old one is
 *    swapped out, leaving a shadow. Look-around scans the 64 PTEs around
 *    the page inside its page table and the VMA (6.1's window: aligned to
 *    the table's start or end when the page is within 32 of it, else
 *    centred), clears every young bit and promotes each young page that
 *    is on the LRU to the youngest generation (an isolated one gets
 *    PG_referenced instead), and puts the table in the Bloom filter if at
 *    least one in 8 of the PTEs it scanned was young.
 *  - try_to_inc_min_seq(): min_seq passes empty lists, but never closer
 *    than MIN_NR_GENS to max_seq; each advance folds the tier counters
 *    into their averages (reset_ctrl_pos(), one histogram generation as
 *    without CONFIG_LRU_GEN_STATS).
 *  - Shadows and refaults (lru_gen_eviction(), lru_gen_refault()): a
 *    shadow holds min_seq at eviction and the page's refs; a swap-in is a
 *    refault only if min_seq has not moved since, and is then counted in
 *    its tier, and since it happens in a fault, the page gets
 *    PG_workingset and every refs bit: refs 4 (2 refs bits in the guest's
 *    page-flags layout), which sort_folio() always protects, once (the
 *    walk or look-around clear them first if the page is used).
 *  - Tiers (get_tier_idx(): refaulted / (evicted + protected) per tier,
 *    tier 0 the set point, gain 2 for the others): kept as 6.1 does. For
 *    mapped anon pages it can never protect by tier: refs come from
 *    PG_workingset and the refs bits a refault sets, isolation clears
 *    both (PG_referenced is never set on an LRU anon page), so every
 *    eviction records refs 0, every refault lands in tier 0, the other
 *    tiers stay below MIN_LRU_BATCH refaults and the index stays at the
 *    top tier.
 *  - Reclaim: like the two-list model (lru2.c), one page per fault that
 *    finds every frame used, evicted in the order above; faults, swap-ins
 *    (misses on pages seen before) and evictions are counted as there.
 *    With batch (aws-sim's mglru-batch: the guest's memcg reclaim,
 *    try_to_free_mem_cgroup_pages()): from priority 12 down until
 *    SWAP_CLUSTER_MAX (32) pages are freed, each priority scanning
 *    total >> priority pages, isolating up to MIN_LRU_BATCH (64) pages
 *    per evict_folios() and checking them together; the frames freed
 *    beyond the need stay free for the next faults. In a batch the rmap
 *    check of one page clears the young bits of its isolated neighbours
 *    and sets their PG_referenced instead of promoting them, and
 *    shrink_folio_list() keeps a mapped page with PG_referenced: they go
 *    back to the youngest generation all the same.
 *
 * Page tables are a model: page id i is taken to be at address i x 4 KiB
 * of one VMA over ids 0..npages-1 that starts on a 2 MiB boundary, so
 * pages are neighbours when their ids are. The built-in patterns and the
 * distribution number pages by their offset in the region (regions one
 * after the other), so that holds up to the alignment; a trace file's
 * pages are renamed in order of first appearance, which keeps it only
 * where the program first touched its pages in address order (the
 * workloads' fills, not aws-randw's random first writes).
 *
 * Left out, with no file pages: the anon/file choice (get_type_to_scan()
 * and swappiness: with the file lists empty, anon is scanned, at the tier
 * get_tier_idx() gives), file tiers and PG_referenced through file
 * descriptors. Also: swap readahead, the write-back of swapped-out pages
 * (a page leaves at once), kswapd and min_ttl, memcg protection, the
 * per-CPU LRU add batches, the shadow shrinker, large folios.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define MIN_NR_GENS		2UL
#define MAX_NR_GENS		4UL
#define MAX_NR_TIERS		4
#define LRU_REFS_WIDTH		2	/* the guest's page-flags layout */
#define LRU_REFS_FULL		(1 << LRU_REFS_WIDTH)	/* refs 4 */
#define MIN_LRU_BATCH		64	/* BITS_PER_LONG */
#define MAX_LRU_BATCH		(MIN_LRU_BATCH * 64)
#define SWAP_CLUSTER_MAX	32
#define DEF_PRIORITY		12
#define PTE_SHIFT		9	/* 512 PTEs per page table */
#define PTRS_PER_PTE		(1U << PTE_SHIFT)
#define YOUNG_PER_SCAN		8	/* suitable_to_scan(): 64-byte lines */
#define PREFETCH_AHEAD		16

/* per-page flags */
#define F_RESIDENT	0x01
#define F_YOUNG		0x02	/* PTE accessed bit */
#define F_WS		0x04	/* PG_workingset */
#define F_REF		0x08	/* PG_referenced */
#define F_SEEN		0x10	/* touched before: a miss is a swap-in */
#define F_SHADOW	0x20	/* evicted with a shadow */
#define F_INQ		0x40	/* in the young queue */
#define F_ISOLATED	0x80	/* off the lists, in a reclaim batch */

/*
 * 12 bytes per page id. A resident page needs its list links, an evicted
 * one its shadow (min_seq at eviction, refs), never both.
 */
struct mpage {
	union {
		struct {
			uint32_t next, prev;
		} l;
		struct {
			uint32_t seq;
			uint8_t refs;	/* the token's refs - 1, at least 0 */
			uint8_t ws;	/* pack_shadow()'s workingset: refs > 0 */
		} sh;
	} u;
	uint8_t flags;
	uint8_t gen;		/* seq % MAX_NR_GENS while on the LRU */
	uint8_t refs;		/* the LRU_REFS bits */
};

struct mglru {
	struct mpage *pg;	/* npages + MAX_NR_GENS + 1 list heads */
	uint32_t npages;
	uint32_t head[MAX_NR_GENS];
	uint32_t iso;		/* the isolated batch (batch mode) */
	unsigned long max_seq, min_seq;
	long nr[MAX_NR_GENS];	/* pages by the generation they record */
	unsigned long resident, frames;
	bool fault_young, batch, check;
	/* the refault feedback, one histogram generation */
	unsigned long evicted[MAX_NR_TIERS], refaulted[MAX_NR_TIERS];
	unsigned long protected[MAX_NR_TIERS - 1];
	unsigned long avg_refaulted[MAX_NR_TIERS], avg_total[MAX_NR_TIERS];
	/*
	 * The walk: every page made young since it was last cleared is in
	 * the young queue (at most once: F_INQ), so a walk costs the young
	 * pages, not the address space. Stale entries are dropped there.
	 */
	uint32_t *yq;
	size_t yq_len;
	uint32_t ntables;
	uint16_t *tyoung;	/* young PTEs per table, this walk */
	uint8_t *bloom[2];	/* per table, by seq % 2 */
	bool bloom_on[2];	/* allocated (reset by a walk) */
	bool walked;		/* the first walk is forced */
	struct sim_stats *st;
};

static inline unsigned int gen_of(unsigned long seq)
{
	return (unsigned int)(seq % MAX_NR_GENS);
}

static inline unsigned long nr_gens(const struct mglru *m)
{
	return m->max_seq - m->min_seq + 1;
}

static void note_gens(struct mglru *m)
{
	uint64_t g = nr_gens(m);

	if (g < m->st->gens_min)
		m->st->gens_min = g;
	if (g > m->st->gens_max)
		m->st->gens_max = g;
}

/* ---- intrusive circular lists over page ids ---- */

static inline void list_del_page(struct mglru *m, uint32_t p)
{
	uint32_t n = m->pg[p].u.l.next, pr = m->pg[p].u.l.prev;

	m->pg[pr].u.l.next = n;
	m->pg[n].u.l.prev = pr;
}

static inline void list_add_after(struct mglru *m, uint32_t p, uint32_t at)
{
	uint32_t n = m->pg[at].u.l.next;

	m->pg[p].u.l.next = n;
	m->pg[p].u.l.prev = at;
	m->pg[n].u.l.prev = p;
	m->pg[at].u.l.next = p;
}

/* at the head: the youngest place of a generation */
static inline void list_add_head(struct mglru *m, uint32_t p, uint32_t h)
{
	list_add_after(m, p, h);
}

/* at the tail: the next one eviction takes */
static inline void list_add_tail(struct mglru *m, uint32_t p, uint32_t h)
{
	list_add_after(m, p, m->pg[h].u.l.prev);
}

static inline bool list_empty_head(const struct mglru *m, uint32_t h)
{
	return m->pg[h].u.l.next == h;
}

static inline uint32_t list_tail(const struct mglru *m, uint32_t h)
{
	return m->pg[h].u.l.prev;
}

/* ---- tiers and the refault feedback ---- */

/* lru_tier_from_refs(): order_base_2(refs + 1) */
static inline int tier_from_refs(int refs)
{
	int t = 0;

	while ((1 << t) < refs + 1)
		t++;
	return t;
}

/* reset_ctrl_pos(carryover) with one histogram generation: fold, clear */
static void fold_ctrl(struct mglru *m)
{
	int t;

	for (t = 0; t < MAX_NR_TIERS; t++) {
		unsigned long total = m->evicted[t] +
				      (t ? m->protected[t - 1] : 0);

		m->avg_refaulted[t] = (m->avg_refaulted[t] + m->refaulted[t]) / 2;
		m->avg_total[t] = (m->avg_total[t] + total) / 2;
		m->refaulted[t] = 0;
		m->evicted[t] = 0;
		if (t)
			m->protected[t - 1] = 0;
	}
}

struct ctrl_pos {
	unsigned long refaulted, total;
	unsigned long gain;
};

static void read_ctrl_pos(const struct mglru *m, int tier, unsigned long gain,
			  struct ctrl_pos *pos)
{
	pos->refaulted = m->avg_refaulted[tier] + m->refaulted[tier];
	pos->total = m->avg_total[tier] + m->evicted[tier];
	if (tier)
		pos->total += m->protected[tier - 1];
	pos->gain = gain;
}

/* the PV has few refaults, or no higher a refault rate than the SP */
static bool positive_ctrl_err(const struct ctrl_pos *sp,
			      const struct ctrl_pos *pv)
{
	return pv->refaulted < MIN_LRU_BATCH ||
	       pv->refaulted * (sp->total + MIN_LRU_BATCH) * sp->gain <=
	       (sp->refaulted + 1) * pv->total * pv->gain;
}

static int get_tier_idx(const struct mglru *m)
{
	struct ctrl_pos sp, pv;
	int tier;

	read_ctrl_pos(m, 0, 1, &sp);
	for (tier = 1; tier < MAX_NR_TIERS; tier++) {
		read_ctrl_pos(m, tier, 2, &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}
	return tier - 1;
}

/* ---- generations ---- */

/* A page's recorded generation becomes @gen: nr[] follows at once. */
static inline void set_gen(struct mglru *m, uint32_t p, unsigned int gen)
{
	m->nr[m->pg[p].gen]--;
	m->nr[gen]++;
	m->pg[p].gen = (uint8_t)gen;
}

/* folio_update_gen(): promoted, refs and PG_referenced/workingset gone */
static inline void update_gen(struct mglru *m, uint32_t p, unsigned int gen)
{
	set_gen(m, p, gen);
	m->pg[p].refs = 0;
	m->pg[p].flags &= (uint8_t)~(F_WS | F_REF);
}

/*
 * folio_inc_gen(): a page still in the oldest generation moves to the
 * next one, losing its refs and flags; a promoted one keeps its own.
 */
static unsigned int inc_gen(struct mglru *m, uint32_t p)
{
	unsigned int old = gen_of(m->min_seq);

	if (m->pg[p].gen != old)
		return m->pg[p].gen;
	update_gen(m, p, gen_of(m->min_seq + 1));
	return m->pg[p].gen;
}

/* inc_min_seq(): fold what is left of the oldest list into the next */
static void inc_min_seq(struct mglru *m)
{
	uint32_t h = m->head[gen_of(m->min_seq)];

	while (!list_empty_head(m, h)) {
		uint32_t p = list_tail(m, h);
		unsigned int gen = inc_gen(m, p);

		list_del_page(m, p);
		list_add_tail(m, p, m->head[gen]);
	}
	fold_ctrl(m);
	m->min_seq++;
}

/* try_to_inc_min_seq(): pass empty lists, keep MIN_NR_GENS */
static bool try_to_inc_min_seq(struct mglru *m)
{
	unsigned long seq = m->min_seq;

	while (seq + MIN_NR_GENS <= m->max_seq &&
	       list_empty_head(m, m->head[gen_of(seq)]))
		seq++;
	if (seq == m->min_seq)
		return false;
	fold_ctrl(m);
	m->min_seq = seq;
	note_gens(m);
	return true;
}

/* ---- the page-table walk ---- */

static inline void make_young(struct mglru *m, uint32_t p)
{
	uint8_t f = m->pg[p].flags;

	if (f & F_YOUNG)
		return;
	if (!(f & F_INQ)) {
		f |= F_INQ;
		m->yq[m->yq_len++] = p;
	}
	m->pg[p].flags = f | F_YOUNG;
}

/* PTE slots of table @t inside the VMA, [0, npages) */
static inline uint32_t table_slots(const struct mglru *m, uint32_t t)
{
	uint32_t start = t << PTE_SHIFT;

	return m->npages - start < PTRS_PER_PTE ? m->npages - start :
						  PTRS_PER_PTE;
}

/* test_bloom_filter(): a filter not yet allocated lets everything by */
static inline bool bloom_test(const struct mglru *m, unsigned long seq,
			      uint32_t t)
{
	unsigned int b = seq & 1;

	return !m->bloom_on[b] || m->bloom[b][t];
}

static inline void bloom_add(struct mglru *m, unsigned long seq, uint32_t t)
{
	unsigned int b = seq & 1;

	if (m->bloom_on[b])
		m->bloom[b][t] = 1;
}

/*
 * walk_mm() at max_seq: the young pages of every table the filter lets
 * by (all of them the first time) join max_seq, their bits cleared; the
 * tables where at least one PTE in 8 was young go into the next filter.
 */
static void walk(struct mglru *m)
{
	unsigned long seq = m->max_seq;
	unsigned int gen = gen_of(seq);
	bool force = !m->walked;
	size_t i, j = 0;
	uint32_t t;

	m->walked = true;
	/* reset_bloom_filter(max_seq + 1), the one this walk fills */
	memset(m->bloom[(seq + 1) & 1], 0, m->ntables);
	m->bloom_on[(seq + 1) & 1] = true;
	memset(m->tyoung, 0, m->ntables * sizeof(*m->tyoung));

	for (i = 0; i < m->yq_len; i++) {
		uint32_t p = m->yq[i];

		if ((m->pg[p].flags & (F_RESIDENT | F_YOUNG)) ==
		    (F_RESIDENT | F_YOUNG))
			m->tyoung[p >> PTE_SHIFT]++;
	}
	for (i = 0; i < m->yq_len; i++) {
		uint32_t p = m->yq[i];
		uint8_t f = m->pg[p].flags;

		if ((f & (F_RESIDENT | F_YOUNG)) != (F_RESIDENT | F_YOUNG)) {
			m->pg[p].flags = f & (uint8_t)~F_INQ;	/* stale */
			continue;
		}
		if (!force && !bloom_test(m, seq, p >> PTE_SHIFT)) {
			m->yq[j++] = p;		/* table skipped: still young */
			continue;
		}
		m->pg[p].flags = f & (uint8_t)~(F_YOUNG | F_INQ);
		/* a young page is on the LRU: nothing is isolated now */
		if (m->pg[p].gen != gen)
			m->st->walk_promotions++;
		update_gen(m, p, gen);
	}
	m->yq_len = j;
	for (t = 0; t < m->ntables; t++)
		if (m->tyoung[t] && (force || bloom_test(m, seq, t)) &&
		    (uint32_t)m->tyoung[t] * YOUNG_PER_SCAN >= table_slots(m, t))
			bloom_add(m, seq + 1, t);
}

/* try_to_inc_max_seq(): walk, then inc_max_seq() */
static void age(struct mglru *m)
{
	walk(m);
	if (nr_gens(m) == MAX_NR_GENS)
		inc_min_seq(m);
	m->max_seq++;
	m->st->agings++;
	note_gens(m);
}

/*
 * should_run_aging(): MIN_NR_GENS left, or with one more, a youngest
 * generation above half of the pages or an oldest below a quarter.
 */
static bool should_run_aging(const struct mglru *m)
{
	unsigned long total = 0, young, old, seq;

	if (m->min_seq + MIN_NR_GENS > m->max_seq)
		return true;
	if (m->min_seq + MIN_NR_GENS < m->max_seq)
		return false;
	for (seq = m->min_seq; seq <= m->max_seq; seq++)
		total += (unsigned long)(m->nr[gen_of(seq)] > 0 ?
					 m->nr[gen_of(seq)] : 0);
	young = (unsigned long)m->nr[gen_of(m->max_seq)];
	old = (unsigned long)m->nr[gen_of(m->min_seq)];
	return young * MIN_NR_GENS > total ||
	       old * (MIN_NR_GENS + 2) < total;
}

/* ---- eviction ---- */

/*
 * lru_gen_look_around() for @p, whose PTE is young: the 64 PTEs around
 * it in its table and the VMA lose their young bits; young pages on the
 * LRU join the youngest generation, isolated ones get PG_referenced.
 */
static void look_around(struct mglru *m, uint32_t p)
{
	uint32_t start = p & ~(PTRS_PER_PTE - 1), end, q;
	unsigned int gen = gen_of(m->max_seq), young = 0;

	end = m->npages - start < PTRS_PER_PTE ? m->npages :
						 start + PTRS_PER_PTE;
	if (end - start > MIN_LRU_BATCH) {
		if (p - start < MIN_LRU_BATCH / 2) {
			end = start + MIN_LRU_BATCH;
		} else if (end - p < MIN_LRU_BATCH / 2) {
			start = end - MIN_LRU_BATCH;
		} else {
			start = p - MIN_LRU_BATCH / 2;
			end = p + MIN_LRU_BATCH / 2;
		}
	}
	for (q = start; q < end; q++) {
		uint8_t f = m->pg[q].flags;

		if ((f & (F_RESIDENT | F_YOUNG)) != (F_RESIDENT | F_YOUNG))
			continue;
		young++;
		f &= (uint8_t)~F_YOUNG;
		if (f & F_ISOLATED) {
			m->pg[q].flags = f | F_REF;
			continue;
		}
		m->pg[q].flags = f;
		if (m->pg[q].gen != gen) {
			update_gen(m, q, gen);
			m->st->lookaround_promotions++;
		}
	}
	if (young * YOUNG_PER_SCAN >= end - start)
		bloom_add(m, m->max_seq, p >> PTE_SHIFT);
}

/*
 * sort_folio() on the tail of the oldest list: true if the page moved
 * (promoted or protected), false if it is to be isolated.
 */
static bool sort_page(struct mglru *m, uint32_t p, int tier_idx)
{
	struct mpage *pg = &m->pg[p];
	int refs = pg->refs + !!(pg->flags & F_WS);
	int tier = tier_from_refs(refs);
	unsigned int gen;

	if (pg->gen != gen_of(m->min_seq)) {
		list_del_page(m, p);
		list_add_head(m, p, m->head[pg->gen]);
		return true;
	}
	if (tier > tier_idx || refs == LRU_REFS_FULL) {
		gen = inc_gen(m, p);
		list_del_page(m, p);
		list_add_tail(m, p, m->head[gen]);
		m->protected[tier - 1]++;
		m->st->refault_activations++;	/* WORKINGSET_ACTIVATE_ANON */
		return true;
	}
	return false;
}

/* isolate_folio(): off the list; refs and flags go unless referenced */
static void isolate(struct mglru *m, uint32_t p)
{
	struct mpage *pg = &m->pg[p];

	if (!(pg->flags & F_REF)) {
		pg->refs = 0;
		pg->flags &= (uint8_t)~F_WS;
	}
	pg->flags = (pg->flags & (uint8_t)~F_REF) | F_ISOLATED;
	list_del_page(m, p);
	m->nr[pg->gen]--;
}

/* Back to the head of the youngest generation (mapped: PG_active). */
static void putback(struct mglru *m, uint32_t p)
{
	struct mpage *pg = &m->pg[p];
	unsigned int gen = gen_of(m->max_seq);

	pg->flags &= (uint8_t)~(F_ISOLATED | F_REF | F_WS);
	pg->refs = 0;
	pg->gen = (uint8_t)gen;
	m->nr[gen]++;
	list_add_head(m, p, m->head[gen]);
}

/* swap-out with lru_gen_eviction()'s shadow */
static void evict(struct mglru *m, uint32_t p)
{
	struct mpage *pg = &m->pg[p];
	int refs = pg->refs + !!(pg->flags & F_WS);

	m->evicted[tier_from_refs(refs)]++;
	pg->u.sh.seq = (uint32_t)m->min_seq;
	pg->u.sh.refs = (uint8_t)(refs > 0 ? refs - 1 : 0);
	pg->u.sh.ws = refs > 0;
	pg->flags = F_SEEN | F_SHADOW | (pg->flags & F_INQ);
	m->resident--;
	m->st->evictions++;
}

/*
 * shrink_folio_list()'s verdict on an isolated page: kept if an earlier
 * page's look-around gave it PG_referenced (6.1 keeps a mapped page with
 * it under MGLRU, before any rmap check) or if its PTE is young
 * (folio_check_references(): look-around runs and sets the page's own
 * PG_referenced, so it is activated); else reclaimed.
 */
static bool keep_page(struct mglru *m, uint32_t p)
{
	if (m->pg[p].flags & F_REF) {
		m->st->lookaround_promotions++;
		return true;
	}
	if (!(m->pg[p].flags & F_YOUNG))
		return false;
	look_around(m, p);
	m->st->reclaim_activations++;
	return true;
}

/*
 * Free one frame, the two-list model's convention: age while only
 * MIN_NR_GENS generations are left (or, under 4096 pages, once when
 * should_run_aging() says so), sort the oldest list's tail, check the
 * first page left to isolate, evict it unless its PTE is young.
 */
static void reclaim_one(struct mglru *m)
{
	bool small = !(m->resident >> DEF_PRIORITY);

	if (small && nr_gens(m) > MIN_NR_GENS && should_run_aging(m))
		age(m);
	for (;;) {
		uint32_t h, p = 0;
		int tier_idx;
		bool found = false;

		while (nr_gens(m) <= MIN_NR_GENS)
			age(m);
		h = m->head[gen_of(m->min_seq)];
		tier_idx = get_tier_idx(m);
		while (!found && !list_empty_head(m, h)) {
			p = list_tail(m, h);
			found = !sort_page(m, p, tier_idx);
		}
		if (!found) {
			try_to_inc_min_seq(m);
			continue;
		}
		isolate(m, p);
		/* evict_folios() advances min_seq before the check */
		if (list_empty_head(m, h))
			try_to_inc_min_seq(m);
		if (keep_page(m, p)) {
			putback(m, p);
			continue;
		}
		evict(m, p);
		return;
	}
}

/*
 * evict_folios() for batch mode: isolate up to MIN_LRU_BATCH pages from
 * the oldest list (scan_folios()), advance min_seq, check them in order
 * (a reclaimed page is unmapped at once, the kept ones stay isolated to
 * the end) and put the kept ones back. Returns the pages scanned, 0 if
 * none could be (MIN_NR_GENS left); *isolated says if any was.
 */
static unsigned long evict_batch(struct mglru *m, unsigned long *reclaimed,
				 bool *isolated_any)
{
	unsigned long scanned = 0, isolated = 0, remaining = MAX_LRU_BATCH;
	uint32_t iso = m->iso, p, next;

	if (nr_gens(m) > MIN_NR_GENS) {
		uint32_t h = m->head[gen_of(m->min_seq)];
		int tier_idx = get_tier_idx(m);

		while (!list_empty_head(m, h)) {
			p = list_tail(m, h);
			scanned++;
			if (!sort_page(m, p, tier_idx)) {
				isolate(m, p);
				list_add_tail(m, p, iso);	/* in order */
				isolated++;
			}
			if (!--remaining || isolated >= MIN_LRU_BATCH)
				break;
		}
	}
	scanned += try_to_inc_min_seq(m);
	if (nr_gens(m) == MIN_NR_GENS)
		scanned = 0;
	*isolated_any = isolated > 0;

	/* shrink_folio_list() */
	for (p = m->pg[iso].u.l.next; p != iso; p = next) {
		next = m->pg[p].u.l.next;
		if (keep_page(m, p))
			continue;
		list_del_page(m, p);
		evict(m, p);
		(*reclaimed)++;
	}
	/* move_folios_to_lru(), in order */
	while (!list_empty_head(m, iso)) {
		p = m->pg[iso].u.l.next;
		list_del_page(m, p);
		putback(m, p);
	}
	return scanned;
}

/* lru_gen_shrink_lruvec() at @prio for a memcg reclaim */
static void shrink_lruvec(struct mglru *m, int prio, unsigned long *reclaimed)
{
	unsigned long seq = m->max_seq, scanned = 0;
	bool need_swapping = false, isolated;

	for (;;) {
		unsigned long nr_to_scan = m->resident >> prio, delta;

		if (should_run_aging(m)) {
			if (prio != DEF_PRIORITY)
				age(m);
			else if (m->min_seq + MIN_NR_GENS > m->max_seq)
				nr_to_scan = 0;
		}
		if (!nr_to_scan)
			break;
		delta = evict_batch(m, reclaimed, &isolated);
		need_swapping |= isolated;
		if (!delta)
			break;
		scanned += delta;
		if (scanned >= nr_to_scan)
			break;
		/* should_abort_scan() for a memcg's direct reclaim */
		if (m->max_seq - seq > 1)
			break;
		if (*reclaimed >= SWAP_CLUSTER_MAX && need_swapping)
			break;
	}
}

/* try_to_free_mem_cgroup_pages() for one page: 32 to reclaim */
static void reclaim_batch(struct mglru *m)
{
	unsigned long reclaimed = 0;
	int prio;

	for (prio = DEF_PRIORITY; prio >= 0; prio--) {
		shrink_lruvec(m, prio, &reclaimed);
		if (reclaimed >= SWAP_CLUSTER_MAX)
			break;
	}
	if (m->resident >= m->frames)
		reclaim_one(m);		/* what OOM would settle */
}

/* ---- consistency (self tests) ---- */

/*
 * Every list holds resident pages of its generation or a newer one, the
 * recorded sizes add up, 2..4 generations, every young page is queued.
 */
static bool consistent(const struct mglru *m)
{
	long nr[MAX_NR_GENS] = { 0 };
	unsigned long seq, listed = 0;
	uint32_t p;

	if (nr_gens(m) < MIN_NR_GENS || nr_gens(m) > MAX_NR_GENS ||
	    !list_empty_head(m, m->iso))
		return false;
	for (seq = m->min_seq; seq <= m->max_seq; seq++) {
		uint32_t h = m->head[gen_of(seq)];

		for (p = m->pg[h].u.l.next; p != h; p = m->pg[p].u.l.next) {
			const struct mpage *pg = &m->pg[p];
			unsigned long g = (pg->gen + MAX_NR_GENS -
					   gen_of(m->min_seq)) % MAX_NR_GENS;

			if (p >= m->npages || !(pg->flags & F_RESIDENT) ||
			    (pg->flags & F_ISOLATED) ||
			    m->min_seq + g < seq || m->min_seq + g > m->max_seq)
				return false;
			if (++listed > m->resident)
				return false;
		}
	}
	/* lists of retired generations are empty */
	for (seq = m->max_seq + 1; seq < m->min_seq + MAX_NR_GENS; seq++)
		if (!list_empty_head(m, m->head[gen_of(seq)]))
			return false;
	for (p = 0; p < m->npages; p++) {
		uint8_t f = m->pg[p].flags;

		if (!(f & F_RESIDENT))
			continue;
		nr[m->pg[p].gen]++;
		if ((f & F_YOUNG) && !(f & F_INQ))
			return false;
	}
	if (listed != m->resident)
		return false;
	for (seq = 0; seq < MAX_NR_GENS; seq++)
		if (nr[seq] != m->nr[seq])
			return false;
	return true;
}

/* ---- faults and the replay ---- */

static void fault(struct mglru *m, uint32_t p)
{
	struct mpage *pg = &m->pg[p];
	unsigned int gen;
	uint8_t nf;

	m->st->faults++;
	if (m->resident >= m->frames) {
		if (m->batch)
			reclaim_batch(m);
		else
			reclaim_one(m);
		if (m->check && !consistent(m))
			m->st->model_errors++;
	}
	nf = F_RESIDENT | F_SEEN | (pg->flags & F_INQ);
	pg->refs = 0;
	if (pg->flags & F_SEEN) {
		m->st->swapins++;
		/* lru_gen_refault(), after the charge's reclaim */
		if ((pg->flags & F_SHADOW) &&
		    pg->u.sh.seq == (uint32_t)m->min_seq) {
			int refs = pg->u.sh.refs + pg->u.sh.ws;

			m->refaulted[tier_from_refs(refs)]++;
			m->st->refaults++;
			/* in a fault: PG_workingset and every refs bit */
			nf |= F_WS;
			pg->refs = LRU_REFS_FULL - 1;
			m->st->restores++;
			m->st->psi_swapins++;
		}
	}
	pg->flags = nf;
	gen = gen_of(m->max_seq);
	pg->gen = (uint8_t)gen;
	m->nr[gen]++;
	list_add_head(m, p, m->head[gen]);
	m->resident++;
}

int mglru_run(const struct trace *tr, const struct mglru_params *prm,
	      struct sim_stats *st)
{
	struct mglru m = { 0 };
	uint32_t h;
	double t0;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!prm->frames)
		return -1;
	m.npages = tr->npages;
	m.ntables = (tr->npages + PTRS_PER_PTE - 1) >> PTE_SHIFT;
	m.pg = calloc((size_t)tr->npages + MAX_NR_GENS + 1, sizeof(*m.pg));
	m.yq = malloc(((size_t)tr->npages + 1) * sizeof(*m.yq));
	m.tyoung = calloc((size_t)m.ntables + 1, sizeof(*m.tyoung));
	m.bloom[0] = calloc((size_t)m.ntables + 1, 1);
	m.bloom[1] = calloc((size_t)m.ntables + 1, 1);
	if (!m.pg || !m.yq || !m.tyoung || !m.bloom[0] || !m.bloom[1]) {
		free(m.pg);
		free(m.yq);
		free(m.tyoung);
		free(m.bloom[0]);
		free(m.bloom[1]);
		return -1;
	}
	for (h = 0; h <= MAX_NR_GENS; h++) {
		uint32_t id = tr->npages + h;

		m.pg[id].u.l.next = m.pg[id].u.l.prev = id;
		if (h < MAX_NR_GENS)
			m.head[h] = id;
		else
			m.iso = id;
	}
	m.max_seq = MIN_NR_GENS + 1;	/* lru_gen_init_lruvec() */
	m.min_seq = 0;
	m.frames = prm->frames;
	m.fault_young = prm->fault_young;
	m.batch = prm->batch;
	m.check = prm->check;
	m.st = st;
	st->gens_min = st->gens_max = nr_gens(&m);

	t0 = sim_now();
	for (i = 0; i < tr->len; i++) {
		uint32_t p = tr->pages[i];

		if (i + PREFETCH_AHEAD < tr->len)
			__builtin_prefetch(&m.pg[tr->pages[i + PREFETCH_AHEAD]],
					   1);
		if (i == tr->mark)
			st->faults_at_mark = st->faults;
		if (m.pg[p].flags & F_RESIDENT) {
			make_young(&m, p);
			continue;
		}
		fault(&m, p);
		if (m.fault_young)
			make_young(&m, p);
	}
	st->seconds = sim_now() - t0;
	st->accesses = tr->len;
	if (tr->mark >= tr->len)
		st->faults_at_mark = st->faults;
	st->resident = m.resident;
	if (m.check && !consistent(&m))
		st->model_errors++;

	free(m.pg);
	free(m.yq);
	free(m.tyoung);
	free(m.bloom[0]);
	free(m.bloom[1]);
	return 0;
}
