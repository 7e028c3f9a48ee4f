// SPDX-License-Identifier: GPL-2.0
/*
 * The two-list (active/inactive) anon LRU of 6.1 with MGLRU off, reduced
 * to what decides which page is evicted, and driven by the same policy
 * code the module runs (include/anon_ws_policy.h): aws_traits() says what
 * to do, shadows are packed/unpacked with the stock layout, refault
 * distance and workingset size come from the header.
 *
 * Model (one lruvec, one node, one memcg, infinite swap, order-0 pages):
 *
 *  - An access to a resident page sets its young bit (the hardware PTE
 *    accessed bit). Nothing moves on a hit: like real anon memory, only
 *    reclaim looks at pages.
 *  - A miss allocates a frame. If none is free, reclaim frees exactly one
 *    (below). The page is inserted at the head of the active list if the
 *    policy starts new anon pages active (baseline), if it activates the
 *    faulting swap-in (baseline), or if its shadow's refault distance is
 *    within the workingset size (detect, upstream); else at the head of
 *    the inactive list.
 *  - Reclaim first deactivates from the active tail to the inactive head
 *    while inactive * ratio < active (inactive_is_low(); deactivation
 *    clears the young bit and sets PG_workingset), then looks at the
 *    inactive tail, as folio_check_references() does for a singly mapped
 *    anon page:
 *      baseline: young -> activate (pre-5.9 PAGEREF_ACTIVATE);
 *      others:   young and PG_referenced -> activate;
 *                young only -> set PG_referenced, rotate to the head;
 *      any:      not young -> evict (PG_referenced is dropped; a shadow
 *                is written if the policy has anon shadows).
 *  - The policy's clock (if any) advances on every eviction and every
 *    activation (reclaim or refault), i.e. workingset_age_nonresident().
 *
 *  - Optionally (--refault-deactivate), the seed's and 6.1's
 *    prepare_scan_count() rule: if refaults were activated during the
 *    previous reclaim cycle (SWAP_CLUSTER_MAX = 32 evictions here), the
 *    active list is aged too, in proportion to the inactive scan, so
 *    stale active pages make room for the new workingset. Off by
 *    default: without it only the ratio moves pages off the active list.
 *
 * Not modelled: kswapd watermarks and batching beyond the above,
 * readahead, file LRU dynamics (--file-pages is a static page cache that
 * only enters the upstream workingset size).
 * With no file pages, upstream (shared clock, 6.1 rule) and detect
 * (anon clock, active-anon rule) see the same clock and the same size;
 * stock 6.1 runs the upstream algorithm.
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
	const struct aws_policy_traits *t;
	struct aws_shadow_layout layout;
	struct pnode *pg;		/* npages + NR_L list heads */
	uint32_t head[NR_L];		/* ids of the list heads */
	uint32_t npages;
	uint32_t pf[NR_L];		/* prefetch cursor near each tail */
	unsigned int pf_dist[NR_L];
	unsigned long nr[NR_L];
	unsigned long resident, frames;
	unsigned long clock;
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

/* 6.1 inactive_is_low() for the anon lists, with the module's ratio. */
static inline bool inactive_is_low(struct lru2 *m)
{
	unsigned long inactive = m->nr[L_INACTIVE], active = m->nr[L_ACTIVE];
	unsigned long gb = (inactive + active) >> (30 - 12);

	if (gb != m->ratio_cache_gb) {
		unsigned long stock = gb ? isqrt(10 * gb) : 1;

		m->ratio_cache = aws_policy_inactive_ratio(m->t, m->ratio_param,
							   stock);
		m->ratio_cache_gb = gb;
	}
	return inactive * m->ratio_cache < active;
}

/* workingset_age_nonresident(), if the policy has a clock */
static inline void age_clock(struct lru2 *m)
{
	if (m->t->clock != AWS_CLOCK_NONE)
		m->clock++;
}

/* shrink_active_list() for one anon page: everything is deactivated. */
static void deactivate_one(struct lru2 *m)
{
	uint32_t p = list_tail(m, L_ACTIVE);

	m->pg[p].flags = (m->pg[p].flags & ~(F_ACTIVE | F_YOUNG)) | F_WS;
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

static void evict(struct lru2 *m, uint32_t p)
{
	uint8_t f = m->pg[p].flags;

	list_del_page(m, p);
	m->nr[L_INACTIVE]--;
	m->resident--;
	m->pg[p].flags = F_SEEN;
	tail_taken(m, L_INACTIVE);
	m->st->evictions++;

	if (m->t->anon_shadows) {
		/* workingset_eviction(): stamp first, then age */
		struct aws_shadow s = {
			.eviction = m->clock,
			.memcgid = 1,		/* root memcg */
			.nid = 0,
			.workingset = f & F_WS,
		};

		/* stored like xa_mk_value(): tagged, never 0 */
		m->pg[p].u.shadow = (aws_pack_shadow(&m->layout, &s) << 1) | 1;
		age_clock(m);
	} else {
		m->pg[p].u.shadow = 0;
	}

	/* end of a reclaim cycle: did refaults activate pages during it? */
	if (m->refault_kick && ++m->cycle_evictions == SWAP_CLUSTER_MAX) {
		m->cycle_evictions = 0;
		m->kick_on = m->st->refault_activations != m->activate_snap;
		m->activate_snap = m->st->refault_activations;
	}
}

static void activate(struct lru2 *m, uint32_t p, uint8_t f)
{
	m->pg[p].flags = f | F_ACTIVE;
	move_page(m, p, L_INACTIVE, L_ACTIVE);
	tail_taken(m, L_INACTIVE);
	m->st->reclaim_activations++;
	age_clock(m);
}

/* Free one frame: shrink_lruvec() reduced to a single page. */
static void reclaim_one(struct lru2 *m)
{
	bool one_look = m->t->ref_activate_swapbacked;

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

		if (young && one_look) {
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

/*
 * Swap-in with a shadow: workingset_refault() with the policy's clock and
 * workingset rule.
 */
static void refault(struct lru2 *m, unsigned long shadow, bool *active,
		    uint8_t *nf)
{
	struct aws_lru_sizes sz = m->file;
	struct aws_shadow s;
	unsigned long dist, ws;

	aws_unpack_shadow(&m->layout, shadow >> 1, &s);
	dist = aws_refault_distance(&m->layout, m->clock, s.eviction);
	sz.active_anon = m->nr[L_ACTIVE];
	sz.inactive_anon = m->nr[L_INACTIVE];
	ws = aws_workingset_size(m->t->ws_rule, &sz);

	m->st->refaults++;
	m->st->hist[aws_hist_bucket(dist, ws)]++;
	if (!aws_should_activate(dist, ws))
		return;

	*active = true;
	age_clock(m);
	m->st->refault_activations++;
	if (s.workingset) {
		/* the page was active before: a restore (PSI memstall) */
		*nf |= F_WS;
		m->st->restores++;
		m->st->psi_swapins++;
	}
}

/* A miss: allocate a frame, decide the list, insert. */
static void fault(struct lru2 *m, uint32_t p)
{
	const struct aws_policy_traits *t = m->t;
	bool swapin = m->pg[p].flags & F_SEEN;
	uint8_t nf = F_RESIDENT | F_SEEN;
	bool active;

	m->st->faults++;
	if (m->resident >= m->frames)
		reclaim_one(m);

	if (!swapin) {
		active = t->new_anon_active;
	} else {
		unsigned long shadow = m->pg[p].u.shadow;

		m->st->swapins++;
		active = t->activate_on_swapin_fault;
		if (t->swapin_workingset) {
			nf |= F_WS;
			m->st->psi_swapins++;
		}
		if (t->anon_shadows && shadow)
			refault(m, shadow, &active, &nf);
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
	enum aws_policy pol = prm->policy;
	struct lru2 m = { 0 };
	unsigned int bo;
	double t0;
	size_t i;
	int l;

	memset(st, 0, sizeof(*st));
	if (!prm->frames)
		return -1;
	/* stock 6.1 *is* the upstream algorithm; the module hooks decline */
	if (pol == AWS_POLICY_STOCK)
		pol = AWS_POLICY_UPSTREAM;
	m.t = aws_traits(pol);

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

	m.pg = calloc((size_t)tr->npages + NR_L, sizeof(*m.pg));
	if (!m.pg)
		return -1;
	for (l = 0; l < NR_L; l++) {
		uint32_t h = tr->npages + (uint32_t)l;

		m.head[l] = h;
		m.pg[h].u.l.next = m.pg[h].u.l.prev = h;
		m.pf[l] = h;
	}
	m.npages = tr->npages;
	m.frames = prm->frames;
	m.clock = prm->clock_start;
	m.ratio_param = prm->ratio;
	m.ratio_cache_gb = ~0UL;
	m.file.active_file = prm->file_pages / 2;
	m.file.inactive_file = prm->file_pages - prm->file_pages / 2;
	m.file.swap_available = true;
	m.st = st;
	m.refault_kick = prm->refault_deactivate;

	t0 = sim_now();
	for (i = 0; i < tr->len; i++) {
		uint32_t p = tr->pages[i];
		uint8_t f;

		/* large footprints are memory bound: fetch ahead */
		if (i + PREFETCH_AHEAD < tr->len)
			__builtin_prefetch(&m.pg[tr->pages[i + PREFETCH_AHEAD]],
					   1);
		f = m.pg[p].flags;

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

	free(m.pg);
	return 0;
}
