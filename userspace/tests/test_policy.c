// SPDX-License-Identifier: GPL-2.0
/*
 * Policy traits, inactive ratio and the workingset-size rules, checked
 * against the behaviour documented in the header and the seeds.
 */
#include <string.h>

#include <linux/types.h>
#include "anon_ws_policy.h"
#include "tests.h"

/*
 * The expected behaviour, written out independently of the header's
 * table. One row per policy, in enum order.
 */
static const struct {
	enum aws_policy p;
	struct aws_policy_traits t;
	const char *why;
} expected[] = {
	{ AWS_POLICY_STOCK, {
		.hooks_active = false,
		.clock = AWS_CLOCK_NONE, .ws_rule = AWS_WS_NONE,
	}, "stock: every hook declines, 6.1 runs its own code" },
	{ AWS_POLICY_BASELINE, {
		.hooks_active = true,
		.new_anon_active = true,	/* lru_cache_add_active... */
		.swapin_workingset = true,	/* 4.20-5.8 SetPageWorkingset */
		.activate_on_swapin_fault = true, /* do_swap_page activate */
		.ref_activate_swapbacked = true,  /* PAGEREF_ACTIVATE */
		.anon_shadows = false,
		/* 5.8: anon evictions and activations age nonresident_age */
		.clock = AWS_CLOCK_SHARED, .ws_rule = AWS_WS_NONE,
		/* 5.8 workingset_refault(): active file + anon if swap */
		.file_ws_rule = AWS_FILE_WS_STOCK,
	}, "baseline: v5.8 active-first anon LRU" },
	{ AWS_POLICY_PROTECT, {
		.hooks_active = true,
		.new_anon_active = false,	/* seed 2/9: inactive first */
		.swapin_workingset = true,	/* 2/9 keeps SetPageWorkingset */
		.activate_on_swapin_fault = false, /* 2/9 drops activate */
		.ref_activate_swapbacked = false,  /* 2/9: two references */
		.anon_shadows = false,
		.clock = AWS_CLOCK_NONE, .ws_rule = AWS_WS_NONE,
		/* seed base: file refault vs active file, file-only clock */
		.file_ws_rule = AWS_FILE_WS_ACTIVE_FILE,
	}, "protect: seed patches 1-2" },
	{ AWS_POLICY_DETECT, {
		.hooks_active = true,
		.swapin_workingset = true,	/* 7/9 keeps SetPageWorkingset */
		.anon_shadows = true,		/* 7/9 shadow in swap cache */
		.clock = AWS_CLOCK_ANON,	/* 3/9 inactive_age[anon] */
		.ws_rule = AWS_WS_ACTIVE_ANON,	/* 3/9 active of same type */
		.file_ws_rule = AWS_FILE_WS_ACTIVE_FILE, /* 3/9, same rule */
		.large_folio_shadows = false,	/* 4/9: no shadow if nr > 1 */
	}, "detect: seed patches 1-7" },
	{ AWS_POLICY_UPSTREAM, {
		.hooks_active = true,
		.anon_shadows = true,
		.large_folio_shadows = true,	/* 6.1 stamps every subpage */
		.clock = AWS_CLOCK_SHARED,	/* 6.1 nonresident_age */
		.ws_rule = AWS_WS_UPSTREAM,
		.file_ws_rule = AWS_FILE_WS_STOCK,
	}, "upstream: the 6.1 algorithm" },
};

static bool traits_eq(const struct aws_policy_traits *a,
		      const struct aws_policy_traits *b)
{
	return a->hooks_active == b->hooks_active &&
	       a->new_anon_active == b->new_anon_active &&
	       a->swapin_workingset == b->swapin_workingset &&
	       a->activate_on_swapin_fault == b->activate_on_swapin_fault &&
	       a->ref_activate_swapbacked == b->ref_activate_swapbacked &&
	       a->anon_shadows == b->anon_shadows &&
	       a->large_folio_shadows == b->large_folio_shadows &&
	       a->clock == b->clock && a->ws_rule == b->ws_rule &&
	       a->file_ws_rule == b->file_ws_rule;
}

static void test_traits_table(struct aws_tc *tc)
{
	unsigned int i;

	CHECK(tc, ARRAY_SIZE(expected) == AWS_NR_POLICIES,
	      "expectation table incomplete");
	for (i = 0; i < ARRAY_SIZE(expected); i++) {
		const struct aws_policy_traits *t = aws_traits(expected[i].p);

		CHECK(tc, t != NULL, "%s: NULL", expected[i].why);
		if (t)
			CHECK(tc, traits_eq(t, &expected[i].t), "%s",
			      expected[i].why);
	}
}

/* Cross-field rules that must hold for any policy. */
static void test_traits_invariants(struct aws_tc *tc)
{
	unsigned int p;

	for (p = 0; p < AWS_NR_POLICIES; p++) {
		const struct aws_policy_traits *t = aws_traits(p);
		const char *n = aws_policy_name(p);

		/* shadows are useless without a clock and a rule, and v.v. */
		CHECK(tc, !t->anon_shadows || t->clock != AWS_CLOCK_NONE,
		      "%s: shadows without clock", n);
		CHECK(tc, !t->large_folio_shadows || t->anon_shadows,
		      "%s: large-folio shadows without shadows", n);
		/*
		 * A file clock that sees anon events must compare with anon
		 * too (5.8's fix), and one that sees none must not.
		 */
		if (t->hooks_active)
			CHECK(tc, (t->clock == AWS_CLOCK_SHARED) ==
			      (t->file_ws_rule == AWS_FILE_WS_STOCK),
			      "%s: file rule does not match the file clock", n);
		CHECK(tc, t->anon_shadows == (t->ws_rule != AWS_WS_NONE),
		      "%s: shadows without ws rule", n);
		/* a declining policy must not claim to do anything */
		if (!t->hooks_active)
			CHECK(tc, !t->new_anon_active && !t->swapin_workingset &&
			      !t->activate_on_swapin_fault &&
			      !t->ref_activate_swapbacked && !t->anon_shadows,
			      "%s: inactive hooks with behaviour", n);
		/* active-first and refault detection never mix */
		CHECK(tc, !(t->new_anon_active && t->anon_shadows),
		      "%s: active-first with shadows", n);
		/* the 4.20-5.8 PSI hack never runs with 6.1's refaults */
		CHECK(tc, !(t->swapin_workingset &&
			    t->ws_rule == AWS_WS_UPSTREAM),
		      "%s: PSI hack with the 6.1 algorithm", n);
	}
	/* stock is the only policy that leaves everything to the kernel */
	for (p = 0; p < AWS_NR_POLICIES; p++)
		CHECK(tc, aws_traits(p)->hooks_active == (p != AWS_POLICY_STOCK),
		      "%s hooks_active", aws_policy_name(p));
}

static void test_traits_out_of_range(struct aws_tc *tc)
{
	const struct aws_policy_traits *stock = aws_traits(AWS_POLICY_STOCK);

	CHECK(tc, aws_traits(AWS_NR_POLICIES) == stock, "NR -> stock");
	CHECK(tc, aws_traits((enum aws_policy)-1) == stock, "-1 -> stock");
	CHECK(tc, aws_traits((enum aws_policy)99) == stock, "99 -> stock");
	CHECK(tc, !stock->hooks_active, "stock hooks active");
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
	/* stock declines the ratio parameter, every other policy takes it */
	for (r = 0; r < AWS_NR_POLICIES; r++)
		CHECK(tc, aws_policy_inactive_ratio(aws_traits(r), 1, 3) ==
		      (r == AWS_POLICY_STOCK ? 3 : 1), "%s takes ratio 1",
		      aws_policy_name(r));
	/* 6.1's sqrt rule for 1 GiB and 10 GiB passes through unchanged */
	CHECK(tc, aws_inactive_ratio(AWS_RATIO_AUTO, 3) == 3, "1 GiB");
	CHECK(tc, aws_inactive_ratio(AWS_RATIO_AUTO, 10) == 10, "10 GiB");
}

static void test_workingset_size(struct aws_tc *tc)
{
	struct aws_lru_sizes s = {
		.active_anon = 1000, .inactive_anon = 2000,
		.active_file = 30, .inactive_file = 400,
		.swap_available = true,
	};

	CHECK(tc, aws_workingset_size(AWS_WS_NONE, &s) == 0, "none");
	CHECK(tc, aws_workingset_size(AWS_WS_ACTIVE_ANON, &s) == 1000,
	      "active anon");
	CHECK(tc, aws_workingset_size(AWS_WS_UPSTREAM, &s) == 1430,
	      "upstream with swap");
	s.swap_available = false;
	CHECK(tc, aws_workingset_size(AWS_WS_ACTIVE_ANON, &s) == 1000,
	      "seed rule ignores swap");
	CHECK(tc, aws_workingset_size(AWS_WS_UPSTREAM, &s) == 430,
	      "upstream without swap: file only");
	/* inactive anon never counts for an anon refault */
	s.inactive_anon = ~0UL;
	CHECK(tc, aws_workingset_size(AWS_WS_UPSTREAM, &s) == 430, "inact");
	CHECK(tc, aws_workingset_size(AWS_WS_ACTIVE_ANON, &s) == 1000,
	      "inact seed");
	CHECK(tc, aws_workingset_size((enum aws_ws_rule)42, &s) == 0,
	      "unknown rule");

	memset(&s, 0, sizeof(s));
	s.swap_available = true;
	CHECK(tc, aws_workingset_size(AWS_WS_UPSTREAM, &s) == 0, "empty");
}

static void test_file_workingset_size(struct aws_tc *tc)
{
	struct aws_lru_sizes s = {
		.active_anon = 1000, .inactive_anon = 2000,
		.active_file = 30, .inactive_file = 400,
		.swap_available = true,
	};

	/* 6.1/5.8: the kernel's own figure passes through unchanged */
	CHECK(tc, aws_file_workingset_size(AWS_FILE_WS_STOCK, &s, 3030) ==
	      3030, "stock keeps the kernel's size");
	CHECK(tc, aws_file_workingset_size(AWS_FILE_WS_STOCK, &s, 0) == 0,
	      "stock keeps 0");
	/* the seed: active file only, whatever anon and swap are */
	CHECK(tc, aws_file_workingset_size(AWS_FILE_WS_ACTIVE_FILE, &s,
					   3030) == 30, "seed: active file");
	s.swap_available = false;
	s.inactive_file = ~0UL;
	CHECK(tc, aws_file_workingset_size(AWS_FILE_WS_ACTIVE_FILE, &s,
					   3030) == 30, "seed ignores the rest");
}

static void test_should_activate(struct aws_tc *tc)
{
	CHECK(tc, aws_should_activate(0, 0), "0 <= 0");
	CHECK(tc, aws_should_activate(5, 5), "equal activates");
	CHECK(tc, !aws_should_activate(6, 5), "one over");
	CHECK(tc, aws_should_activate(4, 5), "one under");
	CHECK(tc, aws_should_activate(~0UL, ~0UL), "max");
	CHECK(tc, !aws_should_activate(~0UL, ~0UL - 1), "max one over");
	CHECK(tc, !aws_should_activate(1, 0), "empty workingset");
}

const struct aws_test_case aws_policy_cases[] = {
	{ "traits_table", test_traits_table },
	{ "traits_invariants", test_traits_invariants },
	{ "traits_out_of_range", test_traits_out_of_range },
	{ "inactive_ratio", test_inactive_ratio },
	{ "workingset_size", test_workingset_size },
	{ "file_workingset_size", test_file_workingset_size },
	{ "should_activate", test_should_activate },
};
const unsigned int aws_nr_policy_cases =
	ARRAY_SIZE(aws_policy_cases);
