// SPDX-License-Identifier: GPL-2.0
/*
 * The two-list (active/inactive) anon LRU of 6.1 with MGLRU off, reduced
 * to what decides which page is evicted, and driven by the same policy
 * files the module runs (every file in module/policies/, written against
 * include/aws_policy.h): each decision is asked of the policy's callback
 * with the semantics of module/aws_hooks.c; shadows are packed/unpacked
 * with the stock layout and refault distances computed by
 * include/aws_core.h.
 *
 * A decision the policy declines (NULL callback) gets what stock 6.1
 * does, which is what policies/upstream.c re-implements: new anon folios
 * start inactive, every eviction leaves a shadow on the shared clock and
 * its refault is judged by the upstream policy's refault rule,
 * activations age the shared clock, no first-reference activation, no
 * PG_workingset on swap-in, no activation of the faulted swap-in page,
 * 6.1's inactive ratio. The stock policy declines everything, so it runs
 * the upstream algorithm, except that it ignores --ratio as the module
 * does (aws_policy_ratio()).
 *
 * Model (one lruvec, one node, one memcg, infinite swap, order-0 pages):
 *
 *  - An access to a resident page sets its young bit (the hardware PTE
 *    accessed bit). Nothing moves on a hit: like real anon memory, only
 *    reclaim looks at pages.
 *  - A miss allocates a frame. If none is free, reclaim frees exactly one
 *    (below). The page is inserted at the head of the active list if
 *    new_anon() says so for a first touch, if swapin_mapped() says so for
 *    a swap-in, or if its shadow's refault distance is judged within the
 *    workingset size by refault(); else at the head of the inactive list.
 *    Every swap-in is a swap-cache swap-in: swapin() may mark it
 *    PG_workingset.
 *  - Reclaim first deactivates from the active tail to the inactive head
 *    while inactive * ratio < active (inactive_is_low(); deactivation
 *    clears the young bit and sets PG_workingset; a young page that
 *    keep_active() keeps goes to the active head instead), then looks at
 *    the inactive tail, as folio_check_references() does for a singly
 *    mapped anon page:
 *      young and first_reference() -> activate (pre-5.9 PAGEREF_ACTIVATE);
 *      young and PG_referenced -> activate;
 *      young only -> set PG_referenced, rotate to the head;
 *      not young -> evict (PG_referenced is dropped; evict() says whether
 *                   a shadow is written, stamped with the policy's clock).
 *  - Clocks (workingset_age_nonresident()): an eviction ages the clock
 *    its shadow would carry (the policy's, or the shared one when evict
 *    is declined); a reclaim activation ages the shared clock if age is
 *    declined, else the policy's clock if age() says so; a refault
 *    activation ages the clock its shadow was stamped with. The shared
 *    and the anon clock are kept apart, as in the module.
 *
 *  - Optionally (--refault-deactivate), the seed's and 6.1's
 *    prepare_scan_count() rule: if refaults were activated during the
 *    previous reclaim cycle (SWAP_CLUSTER_MAX = 32 evictions here), the
 *    active list is aged too, in proportion to the inactive scan, so
 *    stale active pages make room for the new workingset. Off by
 *    default: without it only the ratio moves pages off the active list.
 *    Only activations counted in WORKINGSET_ACTIVATE_ANON count: not the
 *    ones a policy made quiet (aws_refault.quiet, as aws_refault() in
 *    the module leaves them out of that counter).
 *
 *  - Optionally (--batch, lru2_params.batch), reclaim in the guest's
 *    batches instead of one page per fault: the memcg charge that finds
 *    every frame used runs try_to_free_mem_cgroup_pages() for
 *    SWAP_CLUSTER_MAX (32) pages, its priorities 12 down to 0 as
 *    do_try_to_free_pages() does, stopping at the first that brings the
 *    total to 32. At each priority (shrink_node()): prepare_scan_count()
 *    sets may_deactivate if refault activations (the ones counted in
 *    WORKINGSET_ACTIVATE_ANON, as above) happened since the last reclaim
 *    call ended (snapshot_refaults()) or inactive_is_low(); get_scan_count()
 *    targets (size >> priority) x the anon fraction of SCAN_FRACT, with
 *    swappiness 60, the anon cost (pages written by each inactive scan and
 *    restore refaults, halved when it exceeds a quarter of the lists,
 *    lru_note_cost()) and no file cost, or the whole lists at priority 0
 *    (SCAN_EQUAL); shrink_lruvec() takes both lists in chunks of at most
 *    32, the inactive one first, the active one only with may_deactivate
 *    and only while the inactive target lasts, until the call has
 *    reclaimed 32 (with no file pages it stops there), then deactivates
 *    32 more if inactive_is_low(). An inactive chunk is isolated from the
 *    tail first and then checked page by page as above (so a chunk never
 *    sees its own rotated pages), the evicted pages freed at once, the
 *    activated and rotated ones put back in order after the chunk
 *    (move_folios_to_lru(): the activated ones age the clock then); an
 *    active chunk likewise (shrink_active_list()). So a reclaim frees at
 *    least 32 pages unless it runs out of priorities, and resident drops
 *    up to a chunk or more below the frames. The --refault-deactivate
 *    option is part of this and ignored with it.
 *
 * Not modelled: kswapd watermarks, the per-CPU charge stock, swap
 * readahead (page-cluster), the write-back of swapped-out pages (a page
 * written by one reclaim is freed at once here, by the next one in the
 * guest's, and is still in the swap cache in between),
 * readahead, file LRU dynamics (--file-mb is a static page cache that
 * only enters the sizes a refault decision sees, so file_workingset() is
 * never asked), large folios.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

enum {
	L_INACTIVE,
	L_ACTIVE,
	NR_L,
};

/* per-page flags */
#define F_RESIDENT	0x01
#define F_ACTIVE	0x02
#define F_YOUNG		0x04	/* PTE accessed bit */
#define F_REF		0x08	/* PG_referenced */
#define F_WS		0x10	/* PG_workingset */
#define F_SEEN		0x20	/* touched before: a miss is a swap-in */

/*
 * One 16-byte slot per page id, so that a fault touches one cache line per
 * page involved. A resident page needs list links, an evicted one its
 * shadow, never both: like a swap-cache slot holds a folio or a shadow.
 */
struct pnode {
	union {
		struct {
			uint32_t next, prev;
		} l;
		unsigned long shadow;	/* xa_mk_value() style, 0 = none */
	} u;
	uint8_t flags;
};

#define SWAP_CLUSTER_MAX	32
#define PREFETCH_AHEAD		16	/* trace entries */
#define TAIL_AHEAD		8	/* list nodes */

struct lru2 {
	const struct aws_policy *pol;
	void *state;			/* the policy's, for the one lruvec */
	struct aws_shadow_layout layout;
	struct pnode *pg;		/* npages + NR_L list heads */
	uint32_t head[NR_L];		/* ids of the list heads */
	uint32_t npages;
	uint32_t pf[NR_L];		/* prefetch cursor near each tail */
	unsigned int pf_dist[NR_L];
	unsigned long nr[NR_L];
	unsigned long resident, frames;
	unsigned long clock[AWS_CLOCK_SHARED + 1]; /* by enum aws_clock */
	unsigned int ratio_param;
	unsigned long ratio_cache_gb, ratio_cache;
	struct aws_lru_sizes file;	/* static file part of the sizes */
	struct sim_stats *st;
	/* --refault-deactivate state */
	bool refault_kick;		/* the option */
	bool kick_on;			/* refaults seen last cycle */
	unsigned int cycle_evictions;
	uint64_t activate_snap;		/* snapshot_refaults() */
	unsigned long kick_credit;
	/* --batch state */
	bool batch;
	uint64_t batch_snap;		/* snapshot_refaults() */
	unsigned long anon_cost;	/* lruvec->anon_cost */
};

/* ---- intrusive circular doubly linked lists over page ids ---- */

static inline void list_del_page(struct lru2 *m, uint32_t p)
{
	uint32_t n = m->pg[p].u.l.next, pr = m->pg[p].u.l.prev;

	m->pg[pr].u.l.next = n;
	m->pg[n].u.l.prev = pr;
}

static inline void list_add_head(struct lru2 *m, uint32_t p, int l)
{
	uint32_t h = m->head[l], first = m->pg[h].u.l.next;

	m->pg[p].u.l.next = first;
	m->pg[p].u.l.prev = h;
	m->pg[first].u.l.prev = p;
	m->pg[h].u.l.next = p;
}

static inline uint32_t list_tail(struct lru2 *m, int l)
{
	return m->pg[m->head[l]].u.l.prev;
}

static inline void move_page(struct lru2 *m, uint32_t p, int from, int to)
{
	list_del_page(m, p);
	m->nr[from]--;
	list_add_head(m, p, to);
	m->nr[to]++;
}

/*
 * Reclaim walks the lists from their tails, and a tail is only ever
 * removed (evicted, activated, rotated or deactivated), never passed by
 * an insertion. So a cursor a few nodes ahead of the tail can prefetch the
 * pages reclaim will look at next; it is only a hint, and it simply
 * restarts from the tail whenever its page left the list.
 */
static inline void tail_taken(struct lru2 *m, int l)
{
	uint8_t want = l == L_ACTIVE ? F_RESIDENT | F_ACTIVE : F_RESIDENT;
	uint32_t c = m->pf[l];

	if (m->pf_dist[l])
		m->pf_dist[l]--;
	if ((m->pg[c].flags & (F_RESIDENT | F_ACTIVE)) != want) {
		c = list_tail(m, l);
		m->pf_dist[l] = 0;
	}
	while (m->pf_dist[l] < TAIL_AHEAD && c < m->npages) {
		c = m->pg[c].u.l.prev;
		__builtin_prefetch(&m->pg[c], 1);
		m->pf_dist[l]++;
	}
	m->pf[l] = c;
}

/* ---- policy pieces ---- */

static unsigned long isqrt(unsigned long x)
{
	unsigned long r = 0, b = 1UL << (8 * sizeof(long) - 2);

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

/* The sizes a policy sees: the anon lists and the static file part. */
static inline const struct aws_lru_sizes *lru2_sizes(const struct lru2 *m,
						     struct aws_lru_sizes *s)
{
	*s = m->file;
	s->active_anon = m->nr[L_ACTIVE];
	s->inactive_anon = m->nr[L_INACTIVE];
	return s;
}

/* 6.1 inactive_is_low() for the anon lists, with the module's ratio. */
static inline bool inactive_is_low(struct lru2 *m)
{
	unsigned long inactive = m->nr[L_INACTIVE], active = m->nr[L_ACTIVE];
	struct aws_lru_sizes sz;
	unsigned long gb = (inactive + active) >> (30 - 12);

	if (gb != m->ratio_cache_gb) {
		m->ratio_cache = gb ? isqrt(10 * gb) : 1;	/* 6.1's */
		m->ratio_cache_gb = gb;
	}
	/* asked every time, as the module does: a policy may adapt it */
	return inactive * aws_policy_ratio(m->pol, m->ratio_param,
					   m->ratio_cache, lru2_sizes(m, &sz),
					   m->state) < active;
}

/* workingset_age_nonresident() on @clock (nothing for AWS_CLOCK_NONE) */
static inline void age_clock(struct lru2 *m, enum aws_clock clock)
{
	if (clock != AWS_CLOCK_NONE)
		m->clock[clock]++;
}

/*
 * What a decision sees of a page: an order-0 anon folio of the root
 * memcg on node 0, with identity @id (the page id + 1 while it is in the
 * swap cache, as its refault's, 0 otherwise).
 */
static inline struct aws_folio describe(uint8_t flags, unsigned long id)
{
	struct aws_folio f = {
		.nr_pages = 1,
		.swapbacked = true,
		.workingset = flags & F_WS,
		.memcg_id = 1,
		.id = id,
	};

	return f;
}

/*
 * Ask @decide about page @p (SIM_NO_PAGE: not in the swap cache) with
 * @flags. NULL declines, which for the decisions asked this way (new_anon,
 * swapin, swapin_mapped, first_reference) is what stock 6.1 does: no.
 */
static inline bool ask_page(struct lru2 *m,
			    enum aws_decision (*decide)(const struct aws_folio *,
							void *),
			    uint8_t flags, uint32_t p)
{
	struct aws_folio f;

	if (!decide)
		return false;
	f = describe(flags, p == SIM_NO_PAGE ? 0 : (unsigned long)p + 1);
	return decide(&f, m->state) == AWS_YES;
}

static inline bool ask(struct lru2 *m,
		       enum aws_decision (*decide)(const struct aws_folio *,
						   void *),
		       uint8_t flags)
{
	return ask_page(m, decide, flags, SIM_NO_PAGE);
}

/*
 * A page with @f goes onto the active list (move_folios_to_lru()): aws_age()
 * declined, stock ages the shared clock; else age() says whether the
 * policy's clock is aged.
 */
static void age_active(struct lru2 *m, uint8_t f)
{
	if (!m->pol->age)
		age_clock(m, AWS_CLOCK_SHARED);
	else if (ask(m, m->pol->age, f | F_ACTIVE))
		age_clock(m, m->pol->clock);
}

/*
 * shrink_active_list() for one anon page: deactivated, unless it is young
 * and keep_active() keeps it (to the head, young bit cleared, back as an
 * active page: age() is asked, as move_folios_to_lru() does).
 */
static void deactivate_one(struct lru2 *m)
{
	uint32_t p = list_tail(m, L_ACTIVE);
	uint8_t f = m->pg[p].flags;

	if ((f & F_YOUNG) && ask(m, m->pol->keep_active, f & ~F_YOUNG)) {
		m->pg[p].flags = f & ~F_YOUNG;
		move_page(m, p, L_ACTIVE, L_ACTIVE);
		tail_taken(m, L_ACTIVE);
		m->st->active_kept++;
		age_active(m, f & ~F_YOUNG);
		return;
	}
	m->pg[p].flags = (f & ~(F_ACTIVE | F_YOUNG)) | F_WS;
	move_page(m, p, L_ACTIVE, L_INACTIVE);
	tail_taken(m, L_ACTIVE);
	m->st->deactivations++;
}

/*
 * may_deactivate because of refaults: age the active list at the rate the
 * inactive list is scanned (equal fractions of both per look).
 */
static void refault_kick(struct lru2 *m)
{
	m->kick_credit += m->nr[L_ACTIVE];
	while (m->nr[L_ACTIVE] && m->kick_credit >= m->nr[L_INACTIVE]) {
		m->kick_credit -= m->nr[L_INACTIVE];
		deactivate_one(m);
	}
}

/* Swap out @p, already off the lists (its shadow written over its links). */
static void evict_isolated(struct lru2 *m, uint32_t p)
{
	uint8_t f = m->pg[p].flags;
	enum aws_clock clock;
	bool shadow;

	m->resident--;
	m->pg[p].flags = F_SEEN;
	m->st->evictions++;

	/*
	 * aws_evict(): declined, stock workingset_eviction() stamps the
	 * shared clock; else the policy's clock if evict() asks for a shadow.
	 * Either way the eviction ages that clock.
	 */
	if (!m->pol->evict) {
		clock = AWS_CLOCK_SHARED;
		shadow = true;
	} else {
		clock = m->pol->clock;
		shadow = ask_page(m, m->pol->evict, f, p) &&
			 clock != AWS_CLOCK_NONE;
	}
	if (shadow) {
		/* stamp first, then age */
		struct aws_shadow s = {
			.eviction = m->clock[clock],
			.memcgid = 1,		/* root memcg */
			.nid = 0,
			.workingset = f & F_WS,
		};

		/* stored like xa_mk_value(): tagged, never 0 */
		m->pg[p].u.shadow = (aws_pack_shadow(&m->layout, &s) << 1) | 1;
	} else {
		m->pg[p].u.shadow = 0;
	}
	age_clock(m, clock);

	/* end of a reclaim cycle: did refaults activate pages during it? */
	if (m->refault_kick && ++m->cycle_evictions == SWAP_CLUSTER_MAX) {
		uint64_t loud = m->st->refault_activations -
				m->st->quiet_activations;

		m->cycle_evictions = 0;
		m->kick_on = loud != m->activate_snap;
		m->activate_snap = loud;
	}
}

static void evict(struct lru2 *m, uint32_t p)
{
	list_del_page(m, p);
	m->nr[L_INACTIVE]--;
	evict_isolated(m, p);
	tail_taken(m, L_INACTIVE);
}

static void activate(struct lru2 *m, uint32_t p, uint8_t f)
{
	m->pg[p].flags = f | F_ACTIVE;
	move_page(m, p, L_INACTIVE, L_ACTIVE);
	tail_taken(m, L_INACTIVE);
	m->st->reclaim_activations++;
	age_active(m, f);
}

/* Free one frame: shrink_lruvec() reduced to a single page. */
static void reclaim_one(struct lru2 *m)
{
	for (;;) {
		uint32_t p;
		uint8_t f;
		bool young, referenced;

		while (m->nr[L_ACTIVE] &&
		       (!m->nr[L_INACTIVE] || inactive_is_low(m)))
			deactivate_one(m);
		if (m->kick_on)
			refault_kick(m);

		/* folio_check_references() for a singly mapped anon page */
		p = list_tail(m, L_INACTIVE);
		f = m->pg[p].flags;
		young = f & F_YOUNG;
		referenced = f & F_REF;
		f &= ~(F_YOUNG | F_REF);

		if (young && ask(m, m->pol->first_reference, f)) {
			activate(m, p, f);		/* pre-5.9 */
		} else if (young && referenced) {
			activate(m, p, f | F_REF);	/* second look */
		} else if (young) {
			m->pg[p].flags = f | F_REF;	/* first look */
			move_page(m, p, L_INACTIVE, L_INACTIVE);
			tail_taken(m, L_INACTIVE);
			m->st->rotations++;
		} else {
			m->pg[p].flags = f;
			evict(m, p);
			return;
		}
	}
}

/* ---- --batch: memcg reclaim in the kernel's batches ---- */

#define DEF_PRIORITY		12
#define SWAPPINESS		60	/* the guest's vm.swappiness */
#define MAX_RECLAIM_RETRIES	16

/* lru_note_cost() for anon pages: record, and decay with the list sizes. */
static void note_anon_cost(struct lru2 *m, unsigned long nr)
{
	m->anon_cost += nr;
	if (m->anon_cost > (m->nr[L_INACTIVE] + m->nr[L_ACTIVE]) / 4)
		m->anon_cost /= 2;
}

/* After a batch: the prefetch cursors restart from the tails. */
static void batch_done(struct lru2 *m)
{
	int l;

	for (l = 0; l < NR_L; l++) {
		m->pf[l] = m->head[l];
		m->pf_dist[l] = 0;
	}
}

/* isolate_lru_folios(): up to @nr pages off the tail of list @l, in order. */
static unsigned int isolate(struct lru2 *m, int l, unsigned long nr,
			    uint32_t *iso)
{
	unsigned int n = 0;

	while (n < nr && m->nr[l]) {
		uint32_t p = list_tail(m, l);

		list_del_page(m, p);
		m->nr[l]--;
		iso[n++] = p;
	}
	return n;
}

/*
 * shrink_active_list() of @nr pages: each young one that keep_active()
 * keeps goes back to the active head (its young bit cleared, age()
 * asked, as move_folios_to_lru() does), the others are deactivated; the
 * kept ones are put back first, then the deactivated ones, each in order.
 */
static void shrink_active(struct lru2 *m, unsigned long nr)
{
	uint32_t iso[SWAP_CLUSTER_MAX];
	bool kept[SWAP_CLUSTER_MAX];
	unsigned int i, n;

	n = isolate(m, L_ACTIVE, nr < SWAP_CLUSTER_MAX ? nr : SWAP_CLUSTER_MAX,
		    iso);
	for (i = 0; i < n; i++) {
		uint8_t f = m->pg[iso[i]].flags;

		kept[i] = (f & F_YOUNG) &&
			  ask(m, m->pol->keep_active, f & ~F_YOUNG);
		m->pg[iso[i]].flags = kept[i] ? f & ~F_YOUNG :
				      (f & ~(F_ACTIVE | F_YOUNG)) | F_WS;
	}
	for (i = 0; i < n; i++) {
		if (!kept[i])
			continue;
		list_add_head(m, iso[i], L_ACTIVE);
		m->nr[L_ACTIVE]++;
		m->st->active_kept++;
		age_active(m, m->pg[iso[i]].flags & ~F_ACTIVE);
	}
	for (i = 0; i < n; i++) {
		if (kept[i])
			continue;
		list_add_head(m, iso[i], L_INACTIVE);
		m->nr[L_INACTIVE]++;
		m->st->deactivations++;
	}
	batch_done(m);
}

/*
 * shrink_inactive_list() of @nr pages (at most 32): isolate them from the
 * tail, check each as reclaim_one() does (shrink_folio_list()), evict
 * the unreferenced ones at once, then put the activated and the rotated
 * ones back in order (move_folios_to_lru()). Returns the pages freed.
 */
static unsigned long shrink_inactive(struct lru2 *m, unsigned long nr)
{
	uint32_t iso[SWAP_CLUSTER_MAX];
	unsigned long freed = 0;
	unsigned int i, n;

	n = isolate(m, L_INACTIVE, nr < SWAP_CLUSTER_MAX ? nr : SWAP_CLUSTER_MAX,
		    iso);
	for (i = 0; i < n; i++) {
		uint32_t p = iso[i];
		uint8_t f = m->pg[p].flags;
		bool young = f & F_YOUNG, referenced = f & F_REF;

		f &= ~(F_YOUNG | F_REF);
		if (young && ask(m, m->pol->first_reference, f)) {
			m->pg[p].flags = f | F_ACTIVE;		/* pre-5.9 */
		} else if (young && referenced) {
			m->pg[p].flags = f | F_REF | F_ACTIVE;	/* second look */
		} else if (young) {
			m->pg[p].flags = f | F_REF;		/* first look */
		} else {
			m->pg[p].flags = f;
			evict_isolated(m, p);
			iso[i] = SIM_NO_PAGE;
			freed++;
		}
	}
	for (i = 0; i < n; i++) {
		uint32_t p = iso[i];
		uint8_t f;

		if (p == SIM_NO_PAGE)
			continue;
		f = m->pg[p].flags;
		if (f & F_ACTIVE) {
			list_add_head(m, p, L_ACTIVE);
			m->nr[L_ACTIVE]++;
			m->st->reclaim_activations++;
			age_active(m, f & ~F_ACTIVE);
		} else {
			list_add_head(m, p, L_INACTIVE);
			m->nr[L_INACTIVE]++;
			m->st->rotations++;
		}
	}
	batch_done(m);
	note_anon_cost(m, freed);
	return freed;
}

/*
 * get_scan_count() for one anon list of @size pages at @prio: SCAN_FRACT
 * with no file cost, SCAN_EQUAL at priority 0.
 */
static unsigned long scan_target(const struct lru2 *m, unsigned long size,
				 int prio)
{
	unsigned long total, acost, fcost, ap, fp;

	if (!prio)
		return size;
	total = m->anon_cost;			/* + file_cost, 0 */
	acost = total + m->anon_cost;
	fcost = total;
	total = acost + fcost;
	ap = SWAPPINESS * (total + 1) / (acost + 1);
	fp = (200 - SWAPPINESS) * (total + 1) / (fcost + 1);
	return (unsigned long)((unsigned long long)(size >> prio) * ap /
			       (ap + fp));
}

/* WORKINGSET_ACTIVATE_ANON */
static inline uint64_t loud_activations(const struct lru2 *m)
{
	return m->st->refault_activations - m->st->quiet_activations;
}

/*
 * try_to_free_mem_cgroup_pages() for one page: SWAP_CLUSTER_MAX to
 * reclaim, priority by priority (do_try_to_free_pages(), shrink_node(),
 * shrink_lruvec()). Returns the pages freed.
 */
static unsigned long reclaim_batch(struct lru2 *m)
{
	unsigned long reclaimed = 0;
	int prio;

	m->st->reclaims++;
	for (prio = DEF_PRIORITY; prio >= 0; prio--) {
		/* prepare_scan_count() */
		bool deact = loud_activations(m) != m->batch_snap ||
			     inactive_is_low(m);
		unsigned long nr_in = scan_target(m, m->nr[L_INACTIVE], prio);
		unsigned long nr_act = deact ?
			scan_target(m, m->nr[L_ACTIVE], prio) : 0;
		unsigned long got = 0, c;

		/* shrink_lruvec() */
		while (nr_in) {
			c = nr_in < SWAP_CLUSTER_MAX ? nr_in : SWAP_CLUSTER_MAX;
			nr_in -= c;
			got += shrink_inactive(m, c);
			if (nr_act) {
				c = nr_act < SWAP_CLUSTER_MAX ? nr_act :
				    SWAP_CLUSTER_MAX;
				nr_act -= c;
				shrink_active(m, c);
			}
			if (got >= SWAP_CLUSTER_MAX)
				break;	/* memcg, no file pages: done */
		}
		reclaimed += got;
		if (m->nr[L_ACTIVE] && inactive_is_low(m))
			shrink_active(m, SWAP_CLUSTER_MAX);
		if (reclaimed >= SWAP_CLUSTER_MAX)
			break;
	}
	m->batch_snap = loud_activations(m);	/* snapshot_refaults() */
	return reclaimed;
}

/* try_charge_memcg()'s reclaim: retried, then what OOM would settle. */
static void reclaim(struct lru2 *m)
{
	unsigned int tries = 0;

	if (!m->batch) {
		reclaim_one(m);
		return;
	}
	while (m->resident >= m->frames) {
		if (tries++ == MAX_RECLAIM_RETRIES) {
			reclaim_one(m);
			break;
		}
		reclaim_batch(m);
	}
}

FILE *sim_notes;
unsigned int sim_notes_instance;
/* the refault being judged, for the notes its judge makes */
static const struct aws_refault *judged;

/*
 * A policy's note (AWS_NOTE()): one line of --notes, the instance, the
 * policy, the anon lists and PG_workingset of the refault being judged
 * ("- - -" outside a refault), and the policy's words.
 */
void aws_sim_note(const char *policy, const unsigned long *words)
{
	unsigned int i;

	if (!sim_notes)
		return;
	fprintf(sim_notes, "%u %s", sim_notes_instance, policy);
	if (judged)
		fprintf(sim_notes, " %lu %lu %d", judged->sizes.active_anon,
			judged->sizes.inactive_anon, judged->workingset);
	else
		fputs(" - - -", sim_notes);
	for (i = 0; i < AWS_NOTE_WORDS; i++)
		fprintf(sim_notes, " %lu", words[i]);
	fputc('\n', sim_notes);
}

/*
 * Swap-in with a shadow, judged by @judge on @clock: aws_refault() for a
 * policy's shadow, workingset_refault() for stock's. An activation ages
 * the clock the shadow was stamped with.
 */
static void refault(struct lru2 *m, uint32_t p, unsigned long shadow,
		    enum aws_decision (*judge)(struct aws_refault *, void *),
		    void *state, enum aws_clock clock, bool *active,
		    uint8_t *nf)
{
	struct aws_refault rf = { .nr_pages = 1 };
	struct aws_shadow s;
	bool activate;

	aws_unpack_shadow(&m->layout, shadow >> 1, &s);
	rf.distance = aws_refault_distance(&m->layout, m->clock[clock],
					   s.eviction);
	rf.workingset = s.workingset;
	rf.id = (unsigned long)p + 1;	/* the page's identity, never 0 */
	lru2_sizes(m, &rf.sizes);
	judged = &rf;
	activate = judge(&rf, state) == AWS_YES;
	judged = NULL;

	m->st->refaults++;
	m->st->hist[aws_hist_bucket(rf.distance, rf.workingset_size)]++;
	if (!activate)
		return;

	*active = true;
	age_clock(m, clock);
	m->st->refault_activations++;
	if (rf.quiet)
		m->st->quiet_activations++;
	if (s.workingset) {
		/* the page was active before: a restore (PSI memstall) */
		if (m->batch)
			note_anon_cost(m, 1);	/* lru_note_cost_folio() */
		*nf |= F_WS;
		m->st->restores++;
		m->st->psi_swapins++;
	}
}

/*
 * Stock 6.1's refault rule, for the shadows of a policy that declines
 * evict: policies/upstream.c re-implements it (include/aws_policy.h).
 */
static enum aws_decision stock_refault(struct aws_refault *r, void *state)
{
	return aws_policy_upstream.refault(r, state);
}

/* A miss: allocate a frame, decide the list, insert. */
static void fault(struct lru2 *m, uint32_t p)
{
	const struct aws_policy *pol = m->pol;
	bool swapin = m->pg[p].flags & F_SEEN;
	uint8_t nf = F_RESIDENT | F_SEEN;
	bool active;

	m->st->faults++;
	if (m->resident >= m->frames)
		reclaim(m);

	if (!swapin) {
		active = ask(m, pol->new_anon, 0);
	} else {
		unsigned long shadow = m->pg[p].u.shadow;

		m->st->swapins++;
		active = false;
		/* aws_swapin(): every swap-in here goes through the cache */
		if (ask_page(m, pol->swapin, 0, p)) {
			nf |= F_WS;
			m->st->psi_swapins++;
		}
		/* stock stamped the shadows, stock judges them */
		if (shadow && !pol->evict)
			refault(m, p, shadow, stock_refault, NULL,
				AWS_CLOCK_SHARED, &active, &nf);
		else if (shadow && pol->refault)
			refault(m, p, shadow, pol->refault, m->state, pol->clock,
				&active, &nf);
		/* aws_swapin_mapped(): the faulted page once mapped */
		if (ask_page(m, pol->swapin_mapped, nf, p))
			active = true;
	}

	/* the folio takes the shadow's place */
	if (active)
		nf |= F_ACTIVE;
	m->pg[p].flags = nf;
	list_add_head(m, p, active ? L_ACTIVE : L_INACTIVE);
	m->nr[active ? L_ACTIVE : L_INACTIVE]++;
	m->resident++;
}

int lru2_run(const struct trace *tr, const struct lru2_params *prm,
	     struct sim_stats *st)
{
	const unsigned int value_bits = 8 * sizeof(long) - 1;
	uint8_t young_on_fault = prm->fault_young ? F_YOUNG : 0;
	const struct aws_policy *pol = prm->policy;
	struct lru2 m = { 0 };
	unsigned int bo;
	double t0;
	size_t i;
	int l;

	memset(st, 0, sizeof(*st));
	if (!prm->frames || !pol)
		return -1;
	m.pol = pol;

	/*
	 * Debian amd64 layout (10 node bits, 16 memcg bits); bucket_order
	 * from "RAM" = frames + page cache, as workingset_init() does.
	 */
	if (aws_layout_init(&m.layout, value_bits, 10, 16, 0))
		return -1;
	bo = prm->bucket_order >= 0 ? (unsigned int)prm->bucket_order :
	     aws_bucket_order(prm->frames + prm->file_pages,
			      m.layout.eviction_bits);
	if (aws_layout_init(&m.layout, value_bits, 10, 16, bo))
		return -1;
	st->bucket_order = bo;

	/* the policy's private state: one lruvec */
	if (pol->state_size) {
		m.state = calloc(1, pol->state_size);
		if (!m.state)
			return -1;
		if (pol->state_init)
			pol->state_init(m.state);
	}
	m.pg = calloc((size_t)tr->npages + NR_L, sizeof(*m.pg));
	if (!m.pg) {
		free(m.state);
		return -1;
	}
	for (l = 0; l < NR_L; l++) {
		uint32_t h = tr->npages + (uint32_t)l;

		m.head[l] = h;
		m.pg[h].u.l.next = m.pg[h].u.l.prev = h;
		m.pf[l] = h;
	}
	m.npages = tr->npages;
	m.frames = prm->frames;
	m.clock[AWS_CLOCK_ANON] = prm->clock_start;
	m.clock[AWS_CLOCK_SHARED] = prm->clock_start;
	m.ratio_param = prm->ratio;
	m.ratio_cache_gb = ~0UL;
	m.file.active_file = prm->file_pages / 2;
	m.file.inactive_file = prm->file_pages - prm->file_pages / 2;
	m.file.swap_available = true;
	m.file.memcg_id = 1;		/* the root memcg, as the shadows say */
	m.st = st;
	m.batch = prm->batch;
	m.refault_kick = prm->refault_deactivate && !prm->batch;

	t0 = sim_now();
	for (i = 0; i < tr->len; i++) {
		uint32_t p = tr->pages[i];
		uint8_t f;

		/* large footprints are memory bound: fetch ahead */
		if (i + PREFETCH_AHEAD < tr->len)
			__builtin_prefetch(&m.pg[tr->pages[i + PREFETCH_AHEAD]],
					   1);
		f = m.pg[p].flags;
		if (i == tr->mark)
			st->faults_at_mark = st->faults;

		if (f & F_RESIDENT) {
			m.pg[p].flags = f | F_YOUNG;
			continue;
		}
		fault(&m, p);
		/*
		 * The faulting access itself: on x86 the new PTE turns young
		 * when the instruction is retried. Off by default, as in the
		 * brief's model, where only re-references count.
		 */
		m.pg[p].flags |= young_on_fault;
	}
	st->seconds = sim_now() - t0;
	st->accesses = tr->len;
	st->resident = m.resident;
	if (tr->mark >= tr->len)
		st->faults_at_mark = st->faults;

	free(m.pg);
	free(m.state);
	return 0;
}
