// SPDX-License-Identifier: GPL-2.0
/*
 * The policies of module/policies/, asked through their callbacks exactly
 * as the framework asks them (include/aws_policy.h), checked against the
 * behaviour each file documents and the kernel it stands for; the ratio
 * the framework derives (aws_policy_ratio()); and the rules every
 * registry policy must follow.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>
#include "aws_policy.h"
#include "tests.h"

/* What a decision callback does: not there (the kernel's code), or says. */
enum want {
	DECLINE,	/* NULL callback */
	NO,
	YES,
};

/* What the anon list is balanced with (no policy has inactive_ratio). */
enum want_ratio {
	RATIO_STOCK,		/* 6.1's, the parameter is ignored */
	RATIO_PARAM,		/* the parameter, 6.1's when auto */
};

/* What file_workingset() does with the kernel's figure. */
enum want_file_ws {
	FILE_WS_DECLINE,	/* NULL: 6.1's active file + anon if swap */
	FILE_WS_ACTIVE_FILE,	/* the seed's kernel: active file only */
};

/*
 * The expected behaviour, written out independently of the policy files:
 * one row per policy, found by name. A registry policy without a row
 * fails "expectations": a new policy comes with its expectations.
 *
 * refault_ws, refault_ws_noswap: the workingset size an anon refault is
 * compared with for the sizes in refault_sizes below (1000 active anon,
 * 2000 inactive anon, 30 active file, 400 inactive file), with and without
 * usable swap; only for a policy whose refault is not declined.
 *
 * ratio: how aws_policy_ratio() treats the ratio parameter.
 */
static const struct expect {
	const char *name;
	enum aws_clock clock;
	enum want new_anon, swapin, swapin_mapped;
	enum want evict_1, evict_512;	/* 1-page and 512-page folios */
	enum want refault, age;
	enum want first_ref_anon, first_ref_file;	/* swapbacked or not */
	enum want keep_active;
	unsigned long refault_ws, refault_ws_noswap;
	enum want_file_ws file_ws;
	enum want_ratio ratio;
	bool is_stock;
	/* every other refault beyond the workingset is activated too */
	bool admits_every_other;
	/*
	 * beyond the workingset, a page with an identity is admitted when a
	 * hash of it falls below (active + inactive anon) / 2 / (distance +
	 * active + inactive anon), while activations are rare enough for it
	 * to survive on the active list (test_stable_subset())
	 */
	bool stable_subset;
	/*
	 * hold's rules (test_hold_*()): refaults that fit go into room or
	 * displace for the share of displaced pages that stay away, a
	 * stable hashed part of the longer ones into room, all quietly
	 */
	bool hold_rules;
	/* an inactive_ratio callback: with auto, at least this ratio */
	unsigned long ratio_floor;
	const char *why;
} expected[] = {
	{
		.name = "stock", .clock = AWS_CLOCK_SHARED,
		.new_anon = DECLINE, .swapin = DECLINE,
		.swapin_mapped = DECLINE, .evict_1 = DECLINE,
		.evict_512 = DECLINE, .refault = DECLINE, .age = DECLINE,
		.first_ref_anon = DECLINE, .first_ref_file = DECLINE,
		.file_ws = FILE_WS_DECLINE,
		/* the ratio parameter is ignored */
		.ratio = RATIO_STOCK,
		.is_stock = true,
		.why = "stock: the kernel as shipped, every decision declined",
	},
	{
		.name = "baseline",
		/* 5.8: anon evictions and activations age nonresident_age */
		.clock = AWS_CLOCK_SHARED,
		.new_anon = YES,		/* lru_cache_add_active... */
		.swapin = YES,			/* 4.20-5.8 SetPageWorkingset */
		.swapin_mapped = YES,		/* do_swap_page() activates */
		.evict_1 = NO, .evict_512 = NO,	/* no anon shadows */
		/* never asked (no shadow of its own); 6.1's rule, for BPF */
		.refault = YES,
		.refault_ws = 1430, .refault_ws_noswap = 430,
		.age = DECLINE,			/* stock ages the shared clock */
		/* 5.8 PAGEREF_ACTIVATE: swap-backed only */
		.first_ref_anon = YES, .first_ref_file = NO,
		/* 5.8 workingset_refault(): active file + anon, as 6.1 */
		.file_ws = FILE_WS_DECLINE,
		.ratio = RATIO_PARAM,
		.why = "baseline: v5.8 active-first anon LRU",
	},
	{
		.name = "protect",
		.clock = AWS_CLOCK_NONE,	/* the seed's clock: file only */
		.new_anon = NO,			/* seed 2/9: inactive first */
		.swapin = YES,			/* 2/9 keeps SetPageWorkingset */
		.swapin_mapped = DECLINE,	/* 2/9 drops the activation */
		.evict_1 = NO, .evict_512 = NO,
		.refault = DECLINE,
		.age = NO,			/* anon activations age nothing */
		.first_ref_anon = DECLINE,	/* 2/9: two references */
		.first_ref_file = DECLINE,
		.file_ws = FILE_WS_ACTIVE_FILE,
		.ratio = RATIO_PARAM,
		.why = "protect: seed patches 1-2",
	},
	{
		.name = "detect",
		.clock = AWS_CLOCK_ANON,	/* 3/9 inactive_age[anon] */
		.new_anon = NO,
		.swapin = YES,			/* 7/9 keeps SetPageWorkingset */
		.swapin_mapped = DECLINE,
		/* 7/9 shadow in the swap cache; 4/9: none if nr > 1 */
		.evict_1 = YES, .evict_512 = NO,
		.refault = YES,
		.age = YES,			/* activations age the anon clock */
		.first_ref_anon = DECLINE, .first_ref_file = DECLINE,
		/* 3/9: the active list of the same type, swap or not */
		.refault_ws = 1000, .refault_ws_noswap = 1000,
		.file_ws = FILE_WS_ACTIVE_FILE,	/* 3/9, the same rule */
		.ratio = RATIO_PARAM,
		.why = "detect: seed patches 1-7",
	},
	{
		.name = "upstream",
		.clock = AWS_CLOCK_SHARED,	/* 6.1 nonresident_age */
		.new_anon = NO,
		.swapin = DECLINE,		/* 5.9 dropped the PSI hack */
		.swapin_mapped = DECLINE,
		.evict_1 = YES, .evict_512 = YES, /* 6.1: every folio */
		.refault = YES,
		.age = DECLINE,
		.first_ref_anon = DECLINE, .first_ref_file = DECLINE,
		/* 6.1: all file, plus active anon if swap is usable */
		.refault_ws = 1430, .refault_ws_noswap = 430,
		.file_ws = FILE_WS_DECLINE,
		.ratio = RATIO_PARAM,
		.why = "upstream: the 6.1 algorithm run by the module",
	},
	{
		.name = "example",
		.clock = AWS_CLOCK_ANON,	/* detect's */
		.new_anon = NO, .swapin = YES, .swapin_mapped = DECLINE,
		.evict_1 = YES, .evict_512 = NO,
		.refault = YES, .age = YES,
		.first_ref_anon = DECLINE, .first_ref_file = DECLINE,
		.refault_ws = 1000, .refault_ws_noswap = 1000,
		.admits_every_other = true,
		.file_ws = FILE_WS_ACTIVE_FILE,
		.ratio = RATIO_PARAM,
		.why = "example: README's worked example",
	},
	{
		.name = "stable",
		.clock = AWS_CLOCK_ANON,	/* detect's */
		.new_anon = NO,
		.swapin = DECLINE,		/* 6.1: no PSI mark on swap-in */
		.swapin_mapped = DECLINE,
		.evict_1 = YES, .evict_512 = YES, /* every folio, as 6.1 */
		.refault = YES, .age = YES,
		.first_ref_anon = DECLINE, .first_ref_file = DECLINE,
		/* without an identity, detect's rule exactly */
		.refault_ws = 1000, .refault_ws_noswap = 1000,
		.stable_subset = true,
		.file_ws = FILE_WS_ACTIVE_FILE,
		.ratio = RATIO_PARAM,
		.why = "stable: detect plus a stable subset of long refaults",
	},
	{
		.name = "hold",
		.clock = AWS_CLOCK_ANON,	/* detect's */
		.new_anon = NO,
		.swapin = DECLINE,		/* 6.1: no PSI mark on swap-in */
		.swapin_mapped = DECLINE,
		.evict_1 = YES, .evict_512 = YES, /* every folio, as 6.1 */
		.refault = YES,
		.age = NO,			/* a kept page is no tick */
		.first_ref_anon = DECLINE, .first_ref_file = DECLINE,
		.keep_active = YES,		/* the active list is a CLOCK */
		/* without an identity, detect's rule exactly */
		.refault_ws = 1000, .refault_ws_noswap = 1000,
		.hold_rules = true,
		.file_ws = FILE_WS_ACTIVE_FILE,
		.ratio = RATIO_PARAM,
		.ratio_floor = 3,
		.why = "hold: a stable resident set, displacing what stays away",
	},
	{
		/* as it starts: recency's rule, one look and a CLOCK */
		.name = "regret",
		.clock = AWS_CLOCK_ANON,
		.new_anon = NO,
		.swapin = DECLINE,
		.swapin_mapped = DECLINE,
		.evict_1 = YES, .evict_512 = YES,
		.refault = YES,
		.age = YES,			/* recency's activations tick */
		.first_ref_anon = YES, .first_ref_file = NO, /* one look */
		.keep_active = YES,		/* the active list a CLOCK */
		.refault_ws = 1430, .refault_ws_noswap = 430,
		.file_ws = FILE_WS_ACTIVE_FILE,	/* the anon clock's rule */
		.ratio = RATIO_PARAM,
		.ratio_floor = 1,		/* 6.1's (test_regret_switch()) */
		.why = "regret: recency's rule, stock's or hold's",
	},
};

static const struct aws_lru_sizes refault_sizes = {
	.active_anon = 1000, .inactive_anon = 2000,
	.active_file = 30, .inactive_file = 400,
	.swap_available = true,
};

static const struct expect *expectation(const struct aws_policy *p)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(expected); i++)
		if (!strcmp(expected[i].name, p->name))
			return &expected[i];
	return NULL;
}

/* The policy's private state, zeroed and initialised as the module does. */
static void *state_new(const struct aws_policy *p)
{
	void *s;

	if (!p->state_size)
		return NULL;
	s = calloc(1, p->state_size);
	if (s && p->state_init)
		p->state_init(s);
	return s;
}

typedef enum aws_decision (*decide_fn)(const struct aws_folio *, void *);

/*
 * Ask @fn about a folio of @nr pages, as both a PG_workingset folio and
 * not (no policy here looks at the flag, and none should flip on it).
 */
static void check_decision(struct aws_tc *tc, const struct aws_policy *p,
			   void *state, const char *what, decide_fn fn,
			   enum want want, unsigned long nr, bool swapbacked)
{
	unsigned int ws;

	if (want == DECLINE) {
		CHECK(tc, !fn, "%s: %s is not declined", p->name, what);
		return;
	}
	CHECK(tc, fn != NULL, "%s: %s is declined", p->name, what);
	if (!fn)
		return;
	for (ws = 0; ws < 2; ws++) {
		struct aws_folio f = {
			.nr_pages = nr, .swapbacked = swapbacked,
			.workingset = ws,
		};
		enum aws_decision d = fn(&f, state);

		CHECK(tc, d == (want == YES ? AWS_YES : AWS_NO),
		      "%s: %s (%lu pages, workingset %u) says %d", p->name,
		      what, nr, ws, d);
	}
}

static void test_expectations(struct aws_tc *tc)
{
	unsigned int i, j, found = 0;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];

		CHECK(tc, expectation(p) != NULL,
		      "%s: no expectations written for it", p->name);
	}
	/* every row is a registry policy (a renamed policy fails here) */
	for (j = 0; j < ARRAY_SIZE(expected); j++)
		for (i = 0; i < aws_nr_policies; i++)
			found += !strcmp(expected[j].name,
					 aws_policies[i]->name);
	CHECK(tc, found == ARRAY_SIZE(expected),
	      "%u of %zu expected policies in the registry", found,
	      ARRAY_SIZE(expected));
}

/*
 * new_anon, swapin, swapin_mapped, evict, age, first_reference,
 * keep_active, clock
 */
static void test_folio_decisions(struct aws_tc *tc)
{
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		const struct expect *e = expectation(p);
		void *st;

		if (!e)
			continue;	/* test_expectations() fails */
		st = state_new(p);
		CHECK(tc, p->clock == e->clock, "%s: clock %d", p->name,
		      p->clock);
		check_decision(tc, p, st, "new_anon", p->new_anon,
			       e->new_anon, 1, true);
		check_decision(tc, p, st, "swapin", p->swapin, e->swapin, 1,
			       true);
		check_decision(tc, p, st, "swapin_mapped", p->swapin_mapped,
			       e->swapin_mapped, 1, true);
		check_decision(tc, p, st, "evict 1 page", p->evict,
			       e->evict_1, 1, true);
		check_decision(tc, p, st, "evict 512 pages", p->evict,
			       e->evict_512, 512, true);
		check_decision(tc, p, st, "age", p->age, e->age, 1, true);
		check_decision(tc, p, st, "first_reference swapbacked",
			       p->first_reference, e->first_ref_anon, 1, true);
		check_decision(tc, p, st, "first_reference file",
			       p->first_reference, e->first_ref_file, 1,
			       false);
		check_decision(tc, p, st, "keep_active", p->keep_active,
			       e->keep_active, 1, true);
		CHECK(tc, aws_policy_is_stock(p) == e->is_stock,
		      "%s: is_stock %d", p->name, aws_policy_is_stock(p));
		free(st);
	}
}

/*
 * refault() at distance 0, at the workingset size and one over, with and
 * without swap; it must report the size it compared with.
 */
static void check_refault(struct aws_tc *tc, const struct aws_policy *p,
			  void *st, const struct aws_lru_sizes *sz,
			  unsigned long ws)
{
	const struct expect *e = expectation(p);
	/* refaults beyond the workingset seen by a fresh state so far */
	static unsigned long long_seen;
	static const void *long_state;
	const unsigned long dist[] = { 0, ws / 2, ws, ws + 1, ws * 2 + 7,
				       ~0UL };
	const struct aws_folio evicted = { .nr_pages = 1, .swapbacked = true };
	unsigned int i, w;

	for (i = 0; i < ARRAY_SIZE(dist); i++) {
		for (w = 0; w < 2; w++) {
			struct aws_refault r = {
				.nr_pages = 1, .distance = dist[i],
				.workingset = w, .sizes = *sz,
				.workingset_size = 12345,  /* must be written */
			};
			enum aws_decision d;
			bool fits = dist[i] <= ws;

			/* a swap-in frees its frame: one eviction */
			if (e->stable_subset && p->evict)
				p->evict(&evicted, st);
			d = p->refault(&r, st);

			if (st != long_state)
				long_state = st, long_seen = 0;
			/* the first long one is refused, the next admitted */
			if (!fits && e->admits_every_other)
				fits = long_seen++ % 2;
			CHECK(tc, d == (fits ? AWS_YES : AWS_NO),
			      "%s: distance %lu vs %lu (swap %d): %d",
			      p->name, dist[i], ws, sz->swap_available, d);
			CHECK(tc, r.workingset_size == ws,
			      "%s: reported workingset %lu, want %lu",
			      p->name, r.workingset_size, ws);
			/* the input must not be changed */
			CHECK(tc, r.distance == dist[i] &&
			      !memcmp(&r.sizes, sz, sizeof(*sz)),
			      "%s: refault input modified", p->name);
		}
	}
}

static void test_refault(struct aws_tc *tc)
{
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		const struct expect *e = expectation(p);
		struct aws_lru_sizes sz = refault_sizes;
		void *st;

		if (!e)
			continue;
		if (e->refault == DECLINE) {
			CHECK(tc, !p->refault, "%s: refault not declined",
			      p->name);
			continue;
		}
		CHECK(tc, p->refault != NULL, "%s: refault declined", p->name);
		if (!p->refault)
			continue;
		st = state_new(p);
		check_refault(tc, p, st, &sz, e->refault_ws);
		sz.swap_available = false;
		check_refault(tc, p, st, &sz, e->refault_ws_noswap);
		/* inactive anon never counts for an anon refault */
		sz.inactive_anon = ~0UL;
		check_refault(tc, p, st, &sz, e->refault_ws_noswap);
		sz.swap_available = true;
		check_refault(tc, p, st, &sz, e->refault_ws);
		/* an empty lruvec fits only distance 0 */
		memset(&sz, 0, sizeof(sz));
		sz.swap_available = true;
		check_refault(tc, p, st, &sz, 0);
		free(st);
	}
}

/*
 * Ask @p about page @id at @distance, with the sizes of refault_sizes,
 * after the eviction that frees the swap-in's frame.
 */
static enum aws_decision ask_id(const struct aws_policy *p, void *st,
				unsigned long id, unsigned long distance)
{
	const struct aws_folio f = { .nr_pages = 1, .swapbacked = true };
	struct aws_refault r = {
		.nr_pages = 1, .distance = distance, .sizes = refault_sizes,
		.id = id,
	};

	if (p->evict)
		p->evict(&f, st);
	return p->refault(&r, st);
}

/*
 * Ask @p about page @id at @distance with sizes @sz, on a copy of @st so
 * that the answer leaves the state as it was; *@quiet is r.quiet.
 */
static enum aws_decision ask_copy(const struct aws_policy *p, const void *st,
				  unsigned long id, unsigned long distance,
				  const struct aws_lru_sizes *sz, bool *quiet)
{
	struct aws_refault r = {
		.nr_pages = 1, .distance = distance, .sizes = *sz, .id = id,
	};
	unsigned char copy[256];
	enum aws_decision d;

	if (p->state_size > sizeof(copy))
		return AWS_NO;
	memcpy(copy, st, p->state_size);
	d = p->refault(&r, copy);
	*quiet = r.quiet;
	return d;
}

/* Admissions among ids 1..8000 at @distance, and how many were quiet. */
static unsigned long count_admitted(const struct aws_policy *p,
				    const void *st, unsigned long distance,
				    const struct aws_lru_sizes *sz,
				    unsigned long *quiet)
{
	unsigned long id, yes = 0;
	bool q;

	*quiet = 0;
	for (id = 1; id <= 8000; id++) {
		if (ask_copy(p, st, id, distance, sz, &q) != AWS_YES)
			continue;
		yes++;
		*quiet += q;
	}
	return yes;
}

/*
 * stable's room and quiet admissions.  With 3000 resident anon pages and
 * none of them active, a refault at distance 1 (span 3001) is admitted
 * for a hash below A / span = 1500 / 3001, about half of the pages, all
 * of them quietly while nothing else activates.  Once one tick in 20 is
 * a reclaim activation that must stay one inactive pass (3000 ticks),
 * the workingset needs W = 3000 / 20 = 150 of the active list: the
 * subset gets 1350 / 3001, and is admitted loudly.  A refault detect's
 * rule activates is never quiet; a full active list takes no subset.
 */
static void test_stable_room(struct aws_tc *tc)
{
	const struct aws_folio f = { .nr_pages = 1, .swapbacked = true };
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		const struct expect *e = expectation(p);
		struct aws_lru_sizes sz = refault_sizes;
		unsigned long yes, quiet, k;
		void *st;
		bool q;

		if (!e || !e->stable_subset || !p->refault || !p->evict ||
		    !p->age)
			continue;
		st = state_new(p);
		sz.active_anon = 0;
		sz.inactive_anon = 3000;
		/* a refused refault only records the sizes */
		p->refault(&(struct aws_refault){ .nr_pages = 1,
			   .distance = ~0UL, .sizes = sz }, st);
		yes = count_admitted(p, st, 1, &sz, &quiet);
		CHECK(tc, yes >= 3700 && yes <= 4300,
		      "%s: %lu of 8000 admitted with the room empty",
		      p->name, yes);
		CHECK(tc, quiet == yes, "%s: %lu of %lu admissions loud "
		      "with no workingset activation", p->name, yes - quiet,
		      yes);
		/* detect's rule: loud, as stock */
		sz.active_anon = 1000;
		sz.inactive_anon = 2000;
		CHECK(tc, ask_copy(p, st, 7, 900, &sz, &q) == AWS_YES && !q,
		      "%s: detect's activation quiet %d", p->name, q);
		/* a full active list (A = 1500) takes no subset page */
		sz.active_anon = 1500;
		sz.inactive_anon = 1500;
		yes = count_admitted(p, st, 1501, &sz, &quiet);
		CHECK(tc, !yes, "%s: %lu admitted into a full active list",
		      p->name, yes);

		/* one tick in 20 a reclaim activation of an inactive pass */
		sz.active_anon = 0;
		sz.inactive_anon = 3000;
		for (k = 0; k < 20000; k++) {
			if (k % 20)
				p->evict(&f, st);
			else
				p->age(&f, st);
		}
		yes = count_admitted(p, st, 1, &sz, &quiet);
		CHECK(tc, yes >= 3300 && yes <= 3900,
		      "%s: %lu of 8000 admitted with W = 150, want ~3600",
		      p->name, yes);
		CHECK(tc, yes && !quiet, "%s: %lu admissions quiet while the "
		      "workingset activates", p->name, quiet);
		free(st);

		/*
		 * Subset admissions alone, back to back: W stays 0 (they
		 * need no room of the workingset's) but nearly every tick is
		 * an activation, and a page of span 3001 would not last
		 * (a * 3001 > 1500): no more admissions.
		 */
		st = state_new(p);
		for (k = 1; k <= 20000; k++)
			p->refault(&(struct aws_refault){ .nr_pages = 1,
				   .distance = 1, .sizes = sz, .id = k }, st);
		yes = count_admitted(p, st, 1, &sz, &quiet);
		CHECK(tc, !yes, "%s: %lu admitted though none would survive",
		      p->name, yes);
		free(st);
	}
}

/*
 * The stable subset: with 3000 resident anon pages (capacity 1500) a
 * refault at distance 9000 has a span of 12000, so 1/8 of the pages are
 * admitted, always the same ones, and a page admitted at a span is
 * admitted at every shorter one. Once most clock ticks are activations,
 * a long refault would not survive and is refused.
 */
static void test_stable_subset(struct aws_tc *tc)
{
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		const struct expect *e = expectation(p);
		unsigned long id, yes = 0, nested = 0, unstable = 0;
		const struct aws_lru_sizes *sz = &refault_sizes;
		void *st;
		bool q;

		if (!e || !e->stable_subset || !p->refault)
			continue;
		st = state_new(p);
		for (id = 1; id <= 8000; id++) {
			bool a = ask_copy(p, st, id, 9000, sz, &q) == AWS_YES;

			yes += a;
			unstable += a != (ask_copy(p, st, id, 9000, sz, &q) ==
					  AWS_YES);
			/* span 6000: 1/4, a superset */
			nested += a && ask_copy(p, st, id, 3000, sz, &q) !=
				       AWS_YES;
		}
		CHECK(tc, yes >= 900 && yes <= 1100,
		      "%s: %lu of 8000 admitted at 1/8", p->name, yes);
		CHECK(tc, !unstable, "%s: %lu pages change their answer",
		      p->name, unstable);
		CHECK(tc, !nested, "%s: %lu pages admitted at 1/8, not at 1/4",
		      p->name, nested);
		/* no identity: detect's rule only */
		CHECK(tc, ask_id(p, st, 0, 1001) == AWS_NO,
		      "%s: admitted a long refault without identity", p->name);
		/* every tick an activation: a long refault cannot survive */
		if (p->age) {
			const struct aws_folio f = { .nr_pages = 1,
						     .swapbacked = true };
			unsigned long k;

			for (k = 0; k < 100000; k++)
				p->age(&f, st);
			yes = 0;
			for (id = 1; id <= 8000; id++)
				yes += ask_copy(p, st, id, 9000, sz, &q) ==
				       AWS_YES;
			CHECK(tc, !yes, "%s: %lu long refaults admitted while "
			      "every tick activates", p->name, yes);
			/* a short one still fits detect's rule? not either */
			CHECK(tc, ask_copy(p, st, 7, 900, sz, &q) == AWS_NO,
			      "%s: detect's rule ignores the survival test",
			      p->name);
		}
		free(st);
	}
}

static void test_file_workingset(struct aws_tc *tc)
{
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		const struct expect *e = expectation(p);
		struct aws_lru_sizes sz = refault_sizes;

		if (!e)
			continue;
		if (e->file_ws == FILE_WS_DECLINE) {
			CHECK(tc, !p->file_workingset,
			      "%s: file_workingset not declined", p->name);
			continue;
		}
		CHECK(tc, p->file_workingset != NULL,
		      "%s: file_workingset declined", p->name);
		if (!p->file_workingset)
			continue;
		/* the seed: active file only, whatever anon and swap are */
		CHECK(tc, p->file_workingset(&sz, 3030) == 30,
		      "%s: file ws %lu, want 30", p->name,
		      p->file_workingset(&sz, 3030));
		sz.swap_available = false;
		sz.inactive_file = ~0UL;
		sz.active_file = 77;
		CHECK(tc, p->file_workingset(&sz, 5000) == 77,
		      "%s: file ws %lu, want 77", p->name,
		      p->file_workingset(&sz, 5000));
	}
}

/*
 * aws_policy_ratio(): what the framework balances the anon lists with, for
 * the ratio parameter auto, 1, 3 and the maximum (and one over, which the
 * parser refuses, clamped), when 6.1 computed 1 (below 1 GiB), 3 or 10.
 */
static void test_policy_ratio(struct aws_tc *tc)
{
	static const unsigned int param[] = {
		AWS_RATIO_AUTO, 1, 3, AWS_RATIO_MAX, AWS_RATIO_MAX + 1,
	};
	static const unsigned long stock[] = { 1, 3, 10 };
	const struct aws_lru_sizes sizes = {
		.active_anon = 1000, .inactive_anon = 1000,
		.swap_available = true,
	};
	unsigned int i, j, k;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		const struct expect *e = expectation(p);

		if (!e)
			continue;
		CHECK(tc, !p->inactive_ratio == !e->ratio_floor,
		      "%s: inactive_ratio %s, expectations say floor %lu",
		      p->name, p->inactive_ratio ? "set" : "NULL",
		      e->ratio_floor);
		for (j = 0; j < ARRAY_SIZE(param); j++) {
			for (k = 0; k < ARRAY_SIZE(stock); k++) {
				unsigned long want = stock[k];
				unsigned long r;

				if (want < e->ratio_floor)
					want = e->ratio_floor;
				if (e->ratio == RATIO_PARAM &&
				    param[j] != AWS_RATIO_AUTO)
					want = param[j] > AWS_RATIO_MAX ?
					       AWS_RATIO_MAX : param[j];
				r = aws_policy_ratio(p, param[j], stock[k],
						     &sizes, NULL);
				CHECK(tc, r == want,
				      "%s: param %u, 6.1 %lu: %lu, want %lu",
				      p->name, param[j], stock[k], r, want);
			}
		}
	}
}

/* Rules of the framework (include/aws_policy.h) for every policy. */
static void test_policy_rules(struct aws_tc *tc)
{
	const struct aws_folio f[] = {
		{ .nr_pages = 1, .swapbacked = true },
		{ .nr_pages = 1, .swapbacked = true, .workingset = true },
		{ .nr_pages = 512, .swapbacked = true },
	};
	unsigned int i, k, nr_stock = 0, is_default = 0;

	CHECK(tc, aws_nr_policies >= 1, "empty registry");
	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		void *st;

		CHECK(tc, p->name && p->name[0], "policy %u: no name", i);
		CHECK(tc, p->description && p->description[0] &&
		      !strchr(p->description, '\n'),
		      "%s: description is not one line", p->name);
		CHECK(tc, p->clock == AWS_CLOCK_NONE ||
		      p->clock == AWS_CLOCK_ANON ||
		      p->clock == AWS_CLOCK_SHARED, "%s: clock %d", p->name,
		      p->clock);
		CHECK(tc, !p->state_init || p->state_size,
		      "%s: state_init without state", p->name);
		/* a refault is only asked about the policy's own shadows */
		CHECK(tc, !p->refault || p->evict,
		      "%s: refault without evict never runs", p->name);
		st = state_new(p);
		for (k = 0; k < ARRAY_SIZE(f); k++) {
			if (!p->evict || p->evict(&f[k], st) != AWS_YES)
				continue;
			/* a shadow needs a clock to be stamped with */
			CHECK(tc, p->clock != AWS_CLOCK_NONE,
			      "%s: shadows without a clock", p->name);
			/* and someone to judge it: stock would not */
			CHECK(tc, p->refault != NULL,
			      "%s: shadows without refault", p->name);
		}
		free(st);
		/*
		 * The file clock is the shared one: a policy whose anon
		 * events age it must compare file refaults with anon too
		 * (5.8's rule, which 6.1 kept: declined), and one whose anon
		 * events age it not must not (the seed's active file only).
		 */
		if (!aws_policy_is_stock(p))
			CHECK(tc, (p->clock == AWS_CLOCK_SHARED) ==
			      !p->file_workingset,
			      "%s: file rule does not match the clock",
			      p->name);
		nr_stock += aws_policy_is_stock(p);
		is_default += p == aws_policy_default;
	}
	CHECK(tc, nr_stock == 1, "%u stock policies", nr_stock);
	CHECK(tc, is_default == 1, "the default is not in the registry");
}

/*
 * 6.1 swaps a THP out whole and in page by page: a policy that keeps
 * counts must weigh an eviction or an activation of a 512-page folio as
 * 512 of one page, or its rates are off by up to 512x.  Both states are
 * primed with one refault (so that their decay windows are a memory
 * wide), then fed one 512-page folio or 512 one-page folios.
 */
static void test_thp_weight(struct aws_tc *tc)
{
	const struct aws_folio thp = { .nr_pages = 512, .swapbacked = true,
				       .workingset = true };
	const struct aws_folio one = { .nr_pages = 1, .swapbacked = true,
				       .workingset = true };
	const struct aws_lru_sizes sz = {
		.active_anon = 1UL << 20, .inactive_anon = 1UL << 20,
		.swap_available = true,
	};
	unsigned int i, k, weighed = 0;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		void *a, *b;

		if (!p->state_size || !p->evict)
			continue;
		a = state_new(p);
		b = state_new(p);
		CHECK(tc, a && b, "%s: no memory", p->name);
		if (!a || !b)
			goto next;
		if (p->refault) {
			p->refault(&(struct aws_refault){ .nr_pages = 1,
				.distance = 10, .workingset = true, .sizes = sz,
				.id = 1 }, a);
			p->refault(&(struct aws_refault){ .nr_pages = 1,
				.distance = 10, .workingset = true, .sizes = sz,
				.id = 1 }, b);
		}
		p->evict(&thp, a);
		if (p->age)
			p->age(&thp, a);
		for (k = 0; k < thp.nr_pages; k++) {
			p->evict(&one, b);
			if (p->age)
				p->age(&one, b);
		}
		CHECK(tc, !memcmp(a, b, p->state_size),
		      "%s: a 512-page folio does not count as 512 pages",
		      p->name);
		weighed++;
next:
		free(a);
		free(b);
	}
	CHECK(tc, weighed >= 2, "only %u policies keep counts", weighed);
}

static enum aws_decision any_folio(const struct aws_folio *f, void *state)
{
	(void)f;
	(void)state;
	return AWS_NO;
}

static enum aws_decision any_refault(struct aws_refault *r, void *state)
{
	(void)r;
	(void)state;
	return AWS_NO;
}

static unsigned long any_ratio(const struct aws_lru_sizes *s,
			       unsigned long stock_ratio, void *state)
{
	(void)s;
	(void)state;
	return stock_ratio;
}

static unsigned long any_file_ws(const struct aws_lru_sizes *s,
				 unsigned long stock_size)
{
	(void)s;
	return stock_size;
}

/* aws_policy_is_stock() looks at every callback, and at nothing else. */
static void test_is_stock(struct aws_tc *tc)
{
	static const struct aws_policy none = {
		.name = "x", .clock = AWS_CLOCK_ANON, .state_size = 8,
	};
	unsigned int k;

	CHECK(tc, aws_policy_is_stock(&none), "no callback is not stock");
	for (k = 0; k < 10; k++) {
		struct aws_policy p = none;

		switch (k) {
		case 0:
			p.new_anon = any_folio;
			break;
		case 1:
			p.swapin = any_folio;
			break;
		case 2:
			p.swapin_mapped = any_folio;
			break;
		case 3:
			p.evict = any_folio;
			break;
		case 4:
			p.refault = any_refault;
			break;
		case 5:
			p.age = any_folio;
			break;
		case 6:
			p.first_reference = any_folio;
			break;
		case 7:
			p.inactive_ratio = any_ratio;
			break;
		case 8:
			p.keep_active = any_folio;
			break;
		default:
			p.file_workingset = any_file_ws;
			break;
		}
		CHECK(tc, !aws_policy_is_stock(&p), "callback %u ignored", k);
	}
}

static unsigned long double_ratio(const struct aws_lru_sizes *s,
				  unsigned long stock_ratio, void *state)
{
	return stock_ratio * 2 + (state ? 1 : 0) + s->active_anon;
}

/* A policy's own inactive_ratio: asked when auto, overridden otherwise. */
static void test_policy_ratio_callback(struct aws_tc *tc)
{
	static const struct aws_policy p = {
		.name = "x", .inactive_ratio = double_ratio,
	};
	struct aws_lru_sizes z = { .active_anon = 100 };
	int state;

	CHECK(tc, aws_policy_ratio(&p, AWS_RATIO_AUTO, 10, &z, NULL) == 120,
	      "auto does not ask the policy");
	CHECK(tc, aws_policy_ratio(&p, AWS_RATIO_AUTO, 10, &z, &state) == 121,
	      "the state is not passed on");
	CHECK(tc, aws_policy_ratio(&p, 1, 10, &z, NULL) == 1,
	      "ratio 1 does not override the policy");
	CHECK(tc, aws_policy_ratio(&p, 3, 10, &z, NULL) == 3,
	      "ratio 3 does not override the policy");
}

static void test_inactive_ratio(struct aws_tc *tc)
{
	static const unsigned long stock[] = { 0, 1, 3, 4, 10, 31, 100, ~0UL };
	unsigned int i, r;

	for (i = 0; i < ARRAY_SIZE(stock); i++) {
		unsigned long want = stock[i] ? stock[i] : 1;
		unsigned long got = aws_inactive_ratio(AWS_RATIO_AUTO,
						       stock[i]);

		CHECK(tc, got == want, "auto, stock %lu: %lu", stock[i], got);
		for (r = 1; r <= AWS_RATIO_MAX; r += 127)
			CHECK(tc, aws_inactive_ratio(r, stock[i]) == r,
			      "param %u, stock %lu", r, stock[i]);
		CHECK(tc, aws_inactive_ratio(1, stock[i]) == 1, "1:1");
		CHECK(tc, aws_inactive_ratio(AWS_RATIO_MAX, stock[i]) ==
		      AWS_RATIO_MAX, "max");
		/* values the parser refuses are clamped, never 0 */
		CHECK(tc, aws_inactive_ratio(AWS_RATIO_MAX + 1, stock[i]) ==
		      AWS_RATIO_MAX, "max + 1");
		CHECK(tc, aws_inactive_ratio(~0U, stock[i]) == AWS_RATIO_MAX,
		      "~0");
	}
}

/* Sizes with @active of 3000 resident anon pages (hold's target: 2250). */
static struct aws_lru_sizes hold_sizes(unsigned long active)
{
	struct aws_lru_sizes sz = refault_sizes;

	sz.active_anon = active;
	sz.inactive_anon = 3000 - active;
	return sz;
}

/* @n displaced (PG_workingset) pages come back at @distance. */
static void hold_returns(const struct aws_policy *p, void *st, unsigned long n,
			 unsigned long distance, const struct aws_lru_sizes *sz)
{
	while (n--)
		p->refault(&(struct aws_refault){ .nr_pages = 1,
			   .distance = distance, .workingset = true,
			   .sizes = *sz }, st);
}

/*
 * hold's stable part of long refaults.  3000 resident anon pages at the
 * ratio floor 3 give a target of 2250 active pages; with 1000 active, a
 * refault at distance 9000 (span 12000) is admitted for a hash below
 * 2250 / 12000 (3/16 of the pages), quietly, always the same pages, and
 * a page admitted at that span is admitted at span 6000 (3/8); the pages
 * of one run of 8 swap slots are answered alike.  A full active list
 * takes none until most displaced pages stay away (out > 2 (back + far)),
 * and neither rule holds a page with no identity.
 */
static void test_hold_subset(struct aws_tc *tc)
{
	const struct aws_folio ws = { .nr_pages = 1, .swapbacked = true,
				      .workingset = true };
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		const struct expect *e = expectation(p);
		struct aws_lru_sizes sz = hold_sizes(1000);
		unsigned long id, yes, quiet, nested = 0, unstable = 0, split, k;
		void *st;
		bool q;

		if (!e || !e->hold_rules || !p->refault || !p->inactive_ratio)
			continue;
		st = state_new(p);
		p->inactive_ratio(&sz, 1, st);	/* 6.1 below 1 GiB: floor 3 */
		yes = count_admitted(p, st, 9000, &sz, &quiet);
		CHECK(tc, yes >= 1400 && yes <= 1600,
		      "%s: %lu of 8000 admitted at 3/16", p->name, yes);
		CHECK(tc, quiet == yes, "%s: %lu of %lu admissions loud",
		      p->name, yes - quiet, yes);
		for (id = 1; id <= 8000; id++) {
			bool a = ask_copy(p, st, id, 9000, &sz, &q) == AWS_YES;

			unstable += a != (ask_copy(p, st, id, 9000, &sz, &q) ==
					  AWS_YES);
			nested += a && ask_copy(p, st, id, 3000, &sz, &q) !=
				       AWS_YES;
		}
		CHECK(tc, !unstable, "%s: %lu pages change their answer",
		      p->name, unstable);
		CHECK(tc, !nested, "%s: %lu pages admitted at 3/16, not 3/8",
		      p->name, nested);
		/* a run of 8 swap slots (a readahead window) as a whole */
		for (id = 8, split = 0; id < 8008; id += 8) {
			bool a = ask_copy(p, st, id, 9000, &sz, &q) == AWS_YES;
			unsigned long k;

			for (k = 1; k < 8; k++)
				split += a != (ask_copy(p, st, id + k, 9000, &sz,
							&q) == AWS_YES);
		}
		CHECK(tc, !split, "%s: %lu pages answered unlike their run",
		      p->name, split);
		yes = count_admitted(p, st, 3000, &sz, &quiet);
		CHECK(tc, yes >= 2900 && yes <= 3100,
		      "%s: %lu of 8000 admitted at 3/8", p->name, yes);
		CHECK(tc, ask_copy(p, st, 0, 1001, &sz, &q) == AWS_NO,
		      "%s: held a long refault without identity", p->name);
		/* 2250 active: full, no long refault is held */
		sz = hold_sizes(2250);
		yes = count_admitted(p, st, 9000, &sz, &quiet);
		CHECK(tc, !yes, "%s: %lu held in a full active list",
		      p->name, yes);
		/*
		 * ... until displaced pages stay away: 150 returns from
		 * afar (which also record the sizes, the decay's window) of
		 * 400 PG_workingset evictions, and the same 3/16 displace;
		 * 200 back (not a majority away) and none do.
		 */
		hold_returns(p, st, 150, 5000, &sz);
		for (k = 0; k < 400; k++)
			p->evict(&ws, st);
		yes = count_admitted(p, st, 9000, &sz, &quiet);
		CHECK(tc, yes >= 1400 && yes <= 1600 && quiet == yes,
		      "%s: %lu of 8000 displaced at 3/16 with 150 of 400 back",
		      p->name, yes);
		hold_returns(p, st, 50, 5000, &sz);
		yes = count_admitted(p, st, 9000, &sz, &quiet);
		CHECK(tc, !yes, "%s: %lu displaced with 200 of 400 back",
		      p->name, yes);
		/* a ratio of 10 (6.1 at 10 GiB) moves the target to 2727 */
		p->inactive_ratio(&sz, 10, st);
		yes = count_admitted(p, st, 9000, &sz, &quiet);
		CHECK(tc, yes >= 1700 && yes <= 1950,
		      "%s: %lu of 8000 held at 2727 / 12000", p->name, yes);
		free(st);
	}
}

/*
 * hold's displacement.  With the active list full (2250 of 3000), a
 * refault that fits (distance 100) displaces freely until a displaced
 * page comes back; then only for the share that stays away: 400
 * PG_workingset evictions and 100 of them back at a distance that fits
 * admit 3/4 of the pages (quietly), 400 of 400 admit none.  A displaced
 * page back from farther than the active list does not count, room
 * below the target changes nothing, and without an identity detect's
 * rule decides.
 */
static void test_hold_displacement(struct aws_tc *tc)
{
	const struct aws_folio ws = { .nr_pages = 1, .swapbacked = true,
				      .workingset = true };
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		const struct expect *e = expectation(p);
		struct aws_lru_sizes full = hold_sizes(2250);
		unsigned long yes, quiet, k;
		void *st;
		bool q;

		if (!e || !e->hold_rules || !p->refault || !p->evict)
			continue;
		st = state_new(p);
		/* a refused long refault records the sizes (the window) */
		p->refault(&(struct aws_refault){ .nr_pages = 1,
			   .distance = ~0UL, .sizes = full }, st);
		yes = count_admitted(p, st, 100, &full, &quiet);
		CHECK(tc, yes == 8000 && quiet == yes,
		      "%s: %lu of 8000 displaced (%lu quiet) with nothing back",
		      p->name, yes, quiet);
		for (k = 0; k < 400; k++)
			p->evict(&ws, st);
		/* back from beyond the active list: no evidence */
		hold_returns(p, st, 100, 5000, &full);
		yes = count_admitted(p, st, 100, &full, &quiet);
		CHECK(tc, yes == 8000, "%s: %lu of 8000 displaced after "
		      "long returns", p->name, yes);
		hold_returns(p, st, 100, 100, &full);
		yes = count_admitted(p, st, 100, &full, &quiet);
		CHECK(tc, yes >= 5800 && yes <= 6200 && quiet == yes,
		      "%s: %lu of 8000 displaced (%lu quiet) with 1/4 back, "
		      "want ~6000", p->name, yes, quiet);
		CHECK(tc, ask_copy(p, st, 0, 100, &full, &q) == AWS_YES,
		      "%s: no identity, detect's rule refused", p->name);
		/* room below the target does not bypass it (6.1's batches) */
		yes = count_admitted(p, st, 100, &(struct aws_lru_sizes){
				     .active_anon = 1000, .inactive_anon = 2000,
				     .swap_available = true }, &quiet);
		CHECK(tc, yes >= 5800 && yes <= 6200,
		      "%s: %lu of 8000 admitted into room, want ~6000",
		      p->name, yes);
		hold_returns(p, st, 300, 100, &full);
		yes = count_admitted(p, st, 100, &full, &quiet);
		CHECK(tc, !yes, "%s: %lu displaced though every displaced "
		      "page came back", p->name, yes);
		free(st);
	}
}

/* Long refaults (distance 5000) of ids @from..@to: how many said YES. */
static unsigned long regret_long(const struct aws_policy *p, void *st,
				 unsigned long from, unsigned long to)
{
	struct aws_lru_sizes sz = hold_sizes(1000);
	unsigned long id, yes = 0;

	for (id = from; id <= to; id++)
		yes += p->refault(&(struct aws_refault){ .nr_pages = 1,
				  .distance = 5000, .id = id, .sizes = sz },
				  st) == AWS_YES;
	return yes;
}

enum regret_rule {
	REGRET_BY_RECENCY, REGRET_BY_STOCK, REGRET_BY_HOLD, REGRET_BY_NONE
};

/*
 * Which rule regret follows, read off its answers: the look, keep_active,
 * age and the ratio must all agree with one rule.
 */
static enum regret_rule regret_rule(struct aws_tc *tc,
				    const struct aws_policy *p, void *st)
{
	const struct aws_folio f = { .nr_pages = 1, .swapbacked = true };
	struct aws_lru_sizes sz = hold_sizes(1000);
	bool look = p->first_reference(&f, st) == AWS_YES;
	bool keep = p->keep_active(&f, st) == AWS_YES;
	bool tick = p->age(&f, st) == AWS_YES;
	unsigned long ratio = p->inactive_ratio(&sz, 1, st);

	if (look && keep && tick && ratio == 1)
		return REGRET_BY_RECENCY;
	if (!look && !keep && tick && ratio == 1)
		return REGRET_BY_STOCK;
	if (!look && keep && !tick && ratio == 3)
		return REGRET_BY_HOLD;
	CHECK(tc, false, "%s: look %d, keep_active %d, age %d and ratio %lu "
	      "are no one rule", p->name, look, keep, tick, ratio);
	return REGRET_BY_NONE;
}

/*
 * regret, 3000 resident anon pages (1000 active). It starts with
 * recency's rule, which judges a refault as 6.1 does: a long one
 * (distance 5000, beyond 6.1's 1430) is refused. Such refaults of pages
 * hold would hold (hash below 2250 / 8000) are evidence for hold: 600
 * pages give about 170, less than an eighth of resident (375), and
 * change nothing; 2000 more take it to hold's rule, which holds about
 * 28 % of them. Then
 * pages never active that refault from within the 750 pages by which
 * stock's inactive list (1500) is longer than hold's are evidence for
 * stock: the 377th of them (hold's evidence is 376) brings stock's rule
 * back. Under stock's rule the same refaults, from within the active
 * list's length (2250), are evidence for one look: 1100 more take it to
 * recency's rule. Evictions of more than a memory halve the evidence: the
 * long refaults again take it to hold, each once.
 */
static void test_regret_switch(struct aws_tc *tc)
{
	const struct aws_policy *p = aws_policy_find("regret", 6);
	const struct aws_folio f = { .nr_pages = 1, .swapbacked = true };
	struct aws_lru_sizes shaped = hold_sizes(2250);
	enum regret_rule rule;
	unsigned long id, yes, k;
	void *st;

	CHECK(tc, p != NULL, "no regret in the registry");
	if (!p)
		return;
	st = state_new(p);
	yes = regret_long(p, st, 1, 600);
	CHECK(tc, !yes && regret_rule(tc, p, st) == REGRET_BY_RECENCY,
	      "%s: %lu long refaults admitted, or another rule on little "
	      "evidence", p->name, yes);
	regret_long(p, st, 601, 2600);
	CHECK(tc, regret_rule(tc, p, st) == REGRET_BY_HOLD,
	      "%s: not hold's rule after 2600 long refaults", p->name);
	yes = regret_long(p, st, 10001, 14000);
	CHECK(tc, yes >= 1000 && yes <= 1250,
	      "%s: hold's rule admitted %lu of 4000 long refaults, want "
	      "about 28 %%", p->name, yes);
	for (id = 20001; id <= 21500; id++) {
		p->refault(&(struct aws_refault){ .nr_pages = 1,
			   .distance = 500, .id = id, .sizes = shaped }, st);
		if (id != 20400)
			continue;
		rule = regret_rule(tc, p, st);
		CHECK(tc, rule == REGRET_BY_STOCK,
		      "%s: rule %d, not stock's, after 400 refaults stock "
		      "would have saved", p->name, rule);
	}
	rule = regret_rule(tc, p, st);
	CHECK(tc, rule == REGRET_BY_RECENCY,
	      "%s: rule %d, not recency's, after 1100 refaults one look "
	      "would have saved", p->name, rule);
	for (k = 0; k < 4 * 3000; k++)
		p->evict(&f, st);
	regret_long(p, st, 30001, 33000);
	CHECK(tc, regret_rule(tc, p, st) == REGRET_BY_HOLD,
	      "%s: the evidence for stock did not decay", p->name);
	free(st);
}

/* @n refaults at @distance, PG_workingset or not, without an identity. */
static void regret_short(const struct aws_policy *p, void *st, unsigned long n,
			 unsigned long distance, bool workingset)
{
	while (n--)
		p->refault(&(struct aws_refault){ .nr_pages = 1,
			   .distance = distance, .workingset = workingset,
			   .sizes = hold_sizes(1000) }, st);
}

/*
 * regret's recency against stock's rule, 3000 resident anon pages (1000
 * active), no evictions (nothing decays). It starts with recency: one
 * look activates an anon folio (not a file one). Refaults of pages that
 * had been active, from within resident anon (distance 2500 <= 3000),
 * are evidence for two looks: 300 are less than an eighth of resident
 * (375) and change nothing; the 76th of 100 more takes it to stock's
 * rule, where the other 24 are evidence for recency (a CLOCK would
 * have kept them). Refaults of pages never active from within the active
 * list's reach (distance 500 <= 1000) are evidence for recency too: 350
 * of them make 374, less than the 376 against it; the 3rd of 100 more
 * brings it back. There the evidence balances: 2 more pages that had
 * been active take it to stock's rule again.
 */
static void test_regret_recency(struct aws_tc *tc)
{
	const struct aws_policy *p = aws_policy_find("regret", 6);
	const struct aws_folio file = { .nr_pages = 1 };
	static const struct {
		unsigned long n, distance;
		bool workingset;
		enum regret_rule then;
	} steps[] = {
		{ 0, 0, false, REGRET_BY_RECENCY },
		{ 300, 2500, true, REGRET_BY_RECENCY },
		{ 75, 2500, true, REGRET_BY_RECENCY },
		{ 25, 2500, true, REGRET_BY_STOCK },
		{ 350, 500, false, REGRET_BY_STOCK },
		{ 2, 500, false, REGRET_BY_STOCK },
		{ 1, 500, false, REGRET_BY_RECENCY },
		{ 1, 2500, true, REGRET_BY_RECENCY },
		{ 1, 2500, true, REGRET_BY_STOCK },
	};
	unsigned int i, done = 0;
	void *st;

	CHECK(tc, p != NULL, "no regret in the registry");
	if (!p)
		return;
	st = state_new(p);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		regret_short(p, st, steps[i].n, steps[i].distance,
			     steps[i].workingset);
		done += steps[i].n;
		CHECK(tc, regret_rule(tc, p, st) == steps[i].then,
		      "%s: after %u refaults (the last %lu at distance %lu, "
		      "workingset %d) rule %d, want %d", p->name, done,
		      steps[i].n, steps[i].distance, steps[i].workingset,
		      regret_rule(tc, p, st), steps[i].then);
		CHECK(tc, p->first_reference(&file, st) == AWS_NO,
		      "%s: one look promotes a file folio", p->name);
	}
	free(st);
}

const struct aws_test_case aws_policy_cases[] = {
	{ "policy_expectations", test_expectations },
	{ "policy_folio_decisions", test_folio_decisions },
	{ "policy_refault", test_refault },
	{ "policy_stable_subset", test_stable_subset },
	{ "policy_stable_room", test_stable_room },
	{ "policy_hold_subset", test_hold_subset },
	{ "policy_hold_displacement", test_hold_displacement },
	{ "policy_regret_switch", test_regret_switch },
	{ "policy_regret_recency", test_regret_recency },
	{ "policy_file_workingset", test_file_workingset },
	{ "policy_ratio", test_policy_ratio },
	{ "policy_ratio_callback", test_policy_ratio_callback },
	{ "policy_rules", test_policy_rules },
	{ "policy_thp_weight", test_thp_weight },
	{ "policy_is_stock", test_is_stock },
	{ "inactive_ratio", test_inactive_ratio },
};
const unsigned int aws_nr_policy_cases =
	ARRAY_SIZE(aws_policy_cases);
