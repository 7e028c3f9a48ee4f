// SPDX-License-Identifier: GPL-2.0
/*
 * The refault-distance histogram: exact log2 buckets relative to the
 * workingset size, compared with a brute-force reference in 128-bit
 * arithmetic where nothing can overflow.
 */
#include <linux/types.h>
#include "aws_core.h"
#include "tests.h"

#ifndef __SIZEOF_INT128__
#error "the histogram reference needs unsigned __int128"
#endif
typedef unsigned __int128 u128;

/*
 * Reference: the first i in 0..16 with d < ws * 2^(i - 8), evaluated as
 * d * 2^8 < ws * 2^i in 128 bits (both sides scaled by 2^8, which is
 * exact and fits: 64 + 16 bits).
 */
static unsigned int ref_bucket(unsigned long d, unsigned long ws)
{
	unsigned int i;

	for (i = 0; i <= 16; i++) {
		if (((u128)d << 8) < ((u128)ws << i))
			return i;
	}
	return 17;
}

static void check_pair(struct aws_tc *tc, unsigned long d, unsigned long ws)
{
	unsigned int got = aws_hist_bucket(d, ws);
	unsigned int want = ref_bucket(d, ws);

	CHECK(tc, got == want, "d=%#lx ws=%#lx: bucket %u want %u", d, ws, got,
	      want);
}

static void test_hist_constants(struct aws_tc *tc)
{
	CHECK(tc, AWS_HIST_BUCKETS == 18, "buckets %d", AWS_HIST_BUCKETS);
	CHECK(tc, AWS_HIST_MIN_LOG == -8 && AWS_HIST_MAX_LOG == 8, "logs");
	CHECK(tc, AWS_HIST_MAX_LOG - AWS_HIST_MIN_LOG + 2 == AWS_HIST_BUCKETS,
	      "one bucket per exponent plus overflow");
}

static void test_hist_bucket_log(struct aws_tc *tc)
{
	unsigned int b;

	for (b = 0; b < 17; b++)
		CHECK(tc, aws_hist_bucket_log(b) == (int)b - 8, "bucket %u: %d",
		      b, aws_hist_bucket_log(b));
	CHECK(tc, aws_hist_bucket_log(17) == 9, "overflow bucket: %d",
	      aws_hist_bucket_log(17));
	CHECK(tc, aws_hist_bucket_log(18) == 9, "past the end");
	CHECK(tc, aws_hist_bucket_log(~0U) == 9, "~0");
}

static void test_hist_edges(struct aws_tc *tc)
{
	unsigned int i;

	/* ws == 0: nothing is below 0 * 2^k */
	CHECK(tc, aws_hist_bucket(0, 0) == 17, "0/0");
	CHECK(tc, aws_hist_bucket(1, 0) == 17, "1/0");
	CHECK(tc, aws_hist_bucket(~0UL, 0) == 17, "max/0");
	/* d == 0 is below ws / 256 for any ws > 0 */
	CHECK(tc, aws_hist_bucket(0, 1) == 0, "0/1");
	CHECK(tc, aws_hist_bucket(0, ~0UL) == 0, "0/max");
	/* d == ws is not below 2^0, it is below 2^1 */
	CHECK(tc, aws_hist_bucket(1, 1) == 9, "1/1");
	CHECK(tc, aws_hist_bucket(~0UL, ~0UL) == 9, "max/max");
	CHECK(tc, aws_hist_bucket(1, ~0UL) == 0, "1/max");
	CHECK(tc, aws_hist_bucket(~0UL, 1) == 17, "max/1");
	CHECK(tc, aws_hist_bucket(~0UL, ~0UL >> 8) == 17, "max/(max>>8)");
	CHECK(tc, aws_hist_bucket(~0UL, (~0UL >> 8) + 1) == 16, "max/2^56");
	CHECK(tc, aws_hist_bucket(~0UL >> 8, ~0UL) == 0, "(max>>8)/max");
	CHECK(tc, aws_hist_bucket((~0UL >> 8) + 1, ~0UL) == 1, "2^56/max");
	CHECK(tc, aws_hist_bucket(256, 1) == 17, "256/1");
	CHECK(tc, aws_hist_bucket(255, 1) == 16, "255/1");
	/* exact boundaries at ws = 1024: d < 4 is bucket 0, d = 4 is 1 */
	CHECK(tc, aws_hist_bucket(3, 1024) == 0, "3/1024");
	CHECK(tc, aws_hist_bucket(4, 1024) == 1, "4/1024");
	/* every boundary of ws = 2^20, on both sides */
	for (i = 0; i <= 16; i++) {
		unsigned long bound = (1UL << 20) >> 8 << i;

		CHECK(tc, aws_hist_bucket(bound - 1, 1UL << 20) == i,
		      "just below boundary %u", i);
		CHECK(tc, aws_hist_bucket(bound, 1UL << 20) == i + 1,
		      "at boundary %u", i);
	}
	/* no rounding: ws = 255, d = 0 is below 255/256, d = 1 is not */
	CHECK(tc, aws_hist_bucket(0, 255) == 0, "0/255");
	CHECK(tc, aws_hist_bucket(1, 255) == 1, "1/255");
	CHECK(tc, aws_hist_bucket(1, 256) == 1, "1/256");
	CHECK(tc, aws_hist_bucket(1, 257) == 0, "1/257");
}

/* All pairs from a set of edge values: powers of two and neighbours. */
static void test_hist_edge_grid(struct aws_tc *tc)
{
	unsigned long vals[64 * 3 + 8];
	unsigned int n = 0, i, j;

	vals[n++] = 0;
	vals[n++] = ~0UL;
	vals[n++] = ~0UL - 1;
	vals[n++] = ~0UL >> 1;
	vals[n++] = 255;
	vals[n++] = 257;
	for (i = 0; i < 64; i++) {
		vals[n++] = 1UL << i;
		vals[n++] = (1UL << i) - 1;
		vals[n++] = (1UL << i) + 1;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			check_pair(tc, vals[i], vals[j]);
}

/*
 * Random pairs: independent magnitudes, and pairs whose ratio sits right
 * at a bucket boundary (ws * 2^k and its neighbours), where an
 * implementation that rounds would go wrong.
 */
static void test_hist_random(struct aws_tc *tc)
{
	uint64_t rnd = 2020;
	unsigned int i;

	for (i = 0; i < 1000000; i++) {
		unsigned long d = aws_rand_ulong_mag(&rnd);

		/* then ws: in this order */
		check_pair(tc, d, aws_rand_ulong_mag(&rnd));
	}
	for (i = 0; i < 300000; i++) {
		unsigned long ws = aws_rand_ulong_mag(&rnd);
		int k = (int)(aws_rand64(&rnd) % 17) - 8;
		u128 b = k < 0 ? (u128)ws >> -k : (u128)ws << k;
		unsigned long d;
		int delta;

		if (b > (u128)~0UL)
			b = (u128)~0UL;
		for (delta = -2; delta <= 2; delta++) {
			u128 x = b + (u128)(__int128)delta;

			if ((__int128)b + delta < 0 || x > (u128)~0UL)
				continue;
			d = (unsigned long)x;
			check_pair(tc, d, ws);
		}
	}
}

/* For a fixed ws the bucket never decreases as d grows, and vice versa. */
static void test_hist_monotonic(struct aws_tc *tc)
{
	uint64_t rnd = 7;
	unsigned int i;

	for (i = 0; i < 20000; i++) {
		unsigned long ws = aws_rand_ulong_mag(&rnd);
		unsigned long d1 = aws_rand_ulong_mag(&rnd);
		unsigned long d2 = aws_rand_ulong_mag(&rnd);
		unsigned long lo = d1 < d2 ? d1 : d2, hi = d1 < d2 ? d2 : d1;

		CHECK(tc, aws_hist_bucket(lo, ws) <= aws_hist_bucket(hi, ws),
		      "d not monotonic at ws=%#lx", ws);
		CHECK(tc, aws_hist_bucket(ws, lo) >= aws_hist_bucket(ws, hi),
		      "ws not monotonic at d=%#lx", ws);
	}
}

const struct aws_test_case aws_hist_cases[] = {
	{ "hist_constants", test_hist_constants },
	{ "hist_bucket_log", test_hist_bucket_log },
	{ "hist_edges", test_hist_edges },
	{ "hist_edge_grid", test_hist_edge_grid },
	{ "hist_random", test_hist_random },
	{ "hist_monotonic", test_hist_monotonic },
};
const unsigned int aws_nr_hist_cases =
	ARRAY_SIZE(aws_hist_cases);
