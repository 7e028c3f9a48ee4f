// SPDX-License-Identifier: GPL-2.0
/*
 * Shadow layout, pack/unpack, refault distance and bucket_order.
 */
#include <limits.h>
#include <string.h>

#include <linux/types.h>
#include "aws_core.h"
#include "aws_test.h"
#include "tests.h"

#define BPL ((unsigned int)(8 * sizeof(unsigned long)))
/* BITS_PER_XA_VALUE on this host: one bit is the xarray value tag */
#define XA_VALUE_BITS (BPL - 1)

static unsigned long mask_of(unsigned int bits)
{
	return bits >= BPL ? ~0UL : (1UL << bits) - 1;
}

static void init_or_fail(struct aws_tc *tc, struct aws_shadow_layout *l,
			 unsigned int vb, unsigned int nb, unsigned int mb,
			 unsigned int bo)
{
	int ret = aws_layout_init(l, vb, nb, mb, bo);

	CHECK(tc, ret == 0, "layout(%u,%u,%u,%u) rejected: %d", vb, nb, mb, bo,
	      ret);
}

static void test_fls_long(struct aws_tc *tc)
{
	unsigned int i;

	CHECK(tc, aws_fls_long(0) == 0, "fls(0)=%u", aws_fls_long(0));
	CHECK(tc, aws_fls_long(~0UL) == BPL, "fls(~0)=%u", aws_fls_long(~0UL));
	for (i = 0; i < BPL; i++) {
		unsigned long b = 1UL << i;

		CHECK(tc, aws_fls_long(b) == i + 1, "fls(1<<%u)=%u", i,
		      aws_fls_long(b));
		CHECK(tc, aws_fls_long(b | (b - 1)) == i + 1, "fls(2^%u-1)",
		      i + 1);
		if (i)
			CHECK(tc, aws_fls_long(b - 1) == i, "fls(2^%u - 1)", i);
	}
}

static void test_layout_init_valid(struct aws_tc *tc)
{
	static const struct {
		unsigned int vb, nb, mb, bo, eb;
	} ok[] = {
		{ 63, 10, 16, 0, 36 },	/* Debian amd64: 36 timestamp bits */
		{ 63, 10, 0, 0, 52 },	/* memcg compiled out */
		{ 63, 0, 0, 0, 62 },	/* !NUMA, !MEMCG */
		{ 63, 6, 16, 0, 40 },
		{ 31, 0, 16, 0, 14 },	/* a 32-bit kernel with memcg */
		{ 31, 4, 16, 0, 10 },
		{ 63, 10, 16, 28, 36 },	/* largest bucket_order that fits */
		{ 63, 61, 0, 0, 1 },	/* one timestamp bit is still usable */
		{ 2, 0, 0, 0, 1 },
	};
	struct aws_shadow_layout l;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		int ret = aws_layout_init(&l, ok[i].vb, ok[i].nb, ok[i].mb,
					  ok[i].bo);

		CHECK(tc, ret == 0, "case %u rejected", i);
		if (ret)
			continue;
		CHECK(tc, l.eviction_bits == ok[i].eb, "case %u: eb=%u want %u",
		      i, l.eviction_bits, ok[i].eb);
		CHECK(tc, l.eviction_mask == mask_of(ok[i].eb),
		      "case %u: mask %#lx", i, l.eviction_mask);
		CHECK(tc, l.value_bits == ok[i].vb && l.node_bits == ok[i].nb &&
		      l.memcg_bits == ok[i].mb && l.bucket_order == ok[i].bo,
		      "case %u: inputs not stored", i);
	}
}

static void test_layout_init_invalid(struct aws_tc *tc)
{
	static const struct {
		unsigned int vb, nb, mb, bo;
	} bad[] = {
		{ 64, 10, 16, 0 },	/* no room for the xarray tag */
		{ 100, 0, 0, 0 },
		{ 0, 0, 0, 0 },
		{ 1, 0, 0, 0 },		/* only the workingset bit */
		{ 63, 10, 52, 0 },	/* zero timestamp bits */
		{ 63, 62, 0, 0 },
		{ 63, 0, 62, 0 },
		{ 63, 62, 62, 0 },
		{ 63, UINT_MAX, 0, 0 },	/* must not wrap around */
		{ 63, 0, UINT_MAX, 0 },
		{ 63, UINT_MAX, UINT_MAX, 0 },
		{ 63, 10, 16, 29 },	/* unpacked stamp would overflow */
		{ 63, 10, 16, UINT_MAX },
		{ 63, 61, 0, 64 },
	};
	struct aws_shadow_layout l = { .value_bits = 12345 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = aws_layout_init(&l, bad[i].vb, bad[i].nb, bad[i].mb,
					  bad[i].bo);

		CHECK(tc, ret == -22, "case %u accepted (%d)", i, ret);
	}
	CHECK(tc, l.value_bits == 12345, "failed init modified the layout");
}

/* The Debian amd64 layout, bit by bit, as documented for pack_shadow(). */
static void test_stock_bit_positions(struct aws_tc *tc)
{
	struct aws_shadow_layout l;
	struct aws_shadow s = { 0 };
	unsigned long v, raw;

	if (BPL != 64)
		return;		/* the documented layout is the 64-bit one */
	init_or_fail(tc, &l, XA_VALUE_BITS, 10, 16, 0);

	s.workingset = true;
	CHECK(tc, aws_pack_shadow(&l, &s) == 1UL, "workingset bit");
	s.workingset = false;
	s.nid = 1;
	CHECK(tc, aws_pack_shadow(&l, &s) == 1UL << 1, "nid lsb");
	s.nid = 1023;
	CHECK(tc, aws_pack_shadow(&l, &s) == 1023UL << 1, "nid max");
	s.nid = 0;
	s.memcgid = 1;
	CHECK(tc, aws_pack_shadow(&l, &s) == 1UL << 11, "memcg lsb");
	s.memcgid = 0xffff;
	CHECK(tc, aws_pack_shadow(&l, &s) == 0xffffUL << 11, "memcg max");
	s.memcgid = 0;
	s.eviction = 1;
	CHECK(tc, aws_pack_shadow(&l, &s) == 1UL << 27, "eviction lsb");
	s.eviction = (1UL << 36) - 1;
	v = aws_pack_shadow(&l, &s);
	CHECK(tc, v == ((1UL << 36) - 1) << 27, "eviction max %#lx", v);

	/* with the xa tag (xa_mk_value: v << 1 | 1): doc section 2.3 table */
	s.workingset = true;
	s.nid = 5;
	s.memcgid = 7;
	s.eviction = 9;
	raw = (aws_pack_shadow(&l, &s) << 1) | 1;
	CHECK(tc, (raw & 1) == 1, "tag");
	CHECK(tc, ((raw >> 1) & 1) == 1, "ws at bit 1");
	CHECK(tc, ((raw >> 2) & 0x3ff) == 5, "nid at bits 2..11");
	CHECK(tc, ((raw >> 12) & 0xffff) == 7, "memcg at bits 12..27");
	CHECK(tc, (raw >> 28) == 9, "eviction at bits 28..63");
}

/* Every field at its extremes, for node_bits 0..10 and memcg_bits 0, 16. */
static void test_pack_roundtrip_extremes(struct aws_tc *tc)
{
	static const unsigned int memcg_bits[] = { 0, 16 };
	unsigned int nb, mi, k;

	for (nb = 0; nb <= 10; nb++) {
		for (mi = 0; mi < 2; mi++) {
			unsigned int mb = memcg_bits[mi];
			struct aws_shadow_layout l;
			unsigned long nids[2], cgs[3], evs[6];

			init_or_fail(tc, &l, XA_VALUE_BITS, nb, mb, 0);
			nids[0] = 0;
			nids[1] = mask_of(nb);
			cgs[0] = 0;
			cgs[1] = mb ? 1 : 0;
			cgs[2] = mask_of(mb);
			evs[0] = 0;
			evs[1] = 1;
			evs[2] = l.eviction_mask;
			evs[3] = l.eviction_mask - 1;
			evs[4] = l.eviction_mask >> 1;
			evs[5] = 0x5a5a5a5a5a5a5a5aUL & l.eviction_mask;

			/* every combination: 2 ws x 2 nids x 3 memcgs x 6 stamps */
			for (k = 0; k < 2 * 2 * 3 * 6; k++) {
				unsigned int w = k % 2, ni = k / 2 % 2;
				unsigned int ci = k / 4 % 3, ei = k / 12;
				struct aws_shadow in = {
					.eviction = evs[ei],
					.memcgid = (unsigned int)cgs[ci],
					.nid = (unsigned int)nids[ni],
					.workingset = w,
				};
				struct aws_shadow out;
				unsigned long v = aws_pack_shadow(&l, &in);

				aws_unpack_shadow(&l, v, &out);
				CHECK(tc, (v >> l.value_bits) == 0,
				      "nb=%u mb=%u: %#lx too wide", nb, mb, v);
				CHECK(tc, out.eviction == in.eviction &&
				      out.memcgid == in.memcgid &&
				      out.nid == in.nid &&
				      out.workingset == in.workingset,
				      "nb=%u mb=%u w=%u nid=%u cg=%u ev=%#lx",
				      nb, mb, w, in.nid, in.memcgid,
				      in.eviction);
			}
		}
	}
}

/*
 * The timestamp is truncated to eviction_bits, ids to their widths, and
 * no field can spill into another one or past value_bits, whatever the
 * inputs (this is what keeps xa_mk_value() from warning).
 */
static void test_pack_masking(struct aws_tc *tc)
{
	static const unsigned int vbs[] = { 63, 31, 20 };
	uint64_t rnd = 1;
	unsigned int vi, k, bo, i;

	for (vi = 0; vi < 3; vi++) {
		unsigned int vb = vbs[vi];

		if (vb > XA_VALUE_BITS)
			continue;
		for (k = 0; k < 11 * 2; k++) {
			unsigned int nb = k / 2, mb = k % 2 ? 16 : 0;
			struct aws_shadow_layout l;

			if (1 + nb + mb >= vb)
				continue;
			for (bo = 0; bo <= 3; bo += 3) {
				unsigned int eb = vb - 1 - nb - mb;

				/* stamp << bo must fit an unsigned long */
				if (bo > BPL - eb) {
					CHECK(tc, aws_layout_init(&l, vb, nb,
						  mb, bo) == -22,
					      "vb=%u eb=%u bo=%u accepted", vb,
					      eb, bo);
					continue;
				}
				init_or_fail(tc, &l, vb, nb, mb, bo);
				for (i = 0; i < 300; i++) {
					struct aws_shadow in = { 0 }, out;
					unsigned long v;

					in.eviction = aws_rand_ulong_mag(&rnd);
					if (i == 0)
						in.eviction = ~0UL;
					in.nid = (unsigned int)aws_rand64(&rnd);
					in.memcgid =
						(unsigned int)aws_rand64(&rnd);
					in.workingset = i & 1;
					v = aws_pack_shadow(&l, &in);
					CHECK(tc, (v >> vb) == 0,
					      "vb=%u nb=%u mb=%u: %#lx", vb, nb,
					      mb, v);
					aws_unpack_shadow(&l, v, &out);
					CHECK(tc, out.nid == (in.nid &
						  mask_of(nb)), "nid spill");
					CHECK(tc, out.memcgid == (in.memcgid &
						  mask_of(mb)), "memcg spill");
					CHECK(tc, out.workingset ==
					      in.workingset, "ws spill");
					CHECK(tc, out.eviction ==
					      (((in.eviction >> bo) &
						l.eviction_mask) << bo),
					      "eviction %#lx -> %#lx",
					      in.eviction, out.eviction);
				}
			}
		}
	}

	/* Unpacking ignores anything above value_bits. */
	{
		struct aws_shadow_layout l;
		struct aws_shadow out;

		init_or_fail(tc, &l, 20, 2, 0, 0);
		aws_unpack_shadow(&l, ~0UL, &out);
		CHECK(tc, out.eviction == mask_of(17) && out.nid == 3 &&
		      out.memcgid == 0 && out.workingset,
		      "unpack(~0) ev=%#lx nid=%u", out.eviction, out.nid);
	}
}

static void test_distance_basic(struct aws_tc *tc)
{
	struct aws_shadow_layout l;
	unsigned long d;

	init_or_fail(tc, &l, XA_VALUE_BITS, 10, 16, 0);
	CHECK(tc, aws_refault_distance(&l, 0, 0) == 0, "0-0");
	CHECK(tc, aws_refault_distance(&l, 100, 40) == 60, "100-40");
	d = aws_refault_distance(&l, l.eviction_mask, 0);
	CHECK(tc, d == l.eviction_mask, "largest distance %#lx", d);
	/* a shadow exactly one lap old aliases to distance 0 (as stock) */
	d = aws_refault_distance(&l, l.eviction_mask + 1 + 7, 7);
	CHECK(tc, d == 0, "lapped %#lx", d);
}

/*
 * Wrap-around: the stamp is truncated to eviction_bits and the clock
 * itself is an unsigned long that wraps; both must still give the true
 * distance via pack -> unpack -> distance.
 */
static void test_distance_wraparound(struct aws_tc *tc)
{
	static const unsigned int nbs[] = { 0, 6, 10 };
	static const unsigned int mbs[] = { 0, 16 };
	unsigned int k, ij;

	for (k = 0; k < 3 * 2; k++) {
		unsigned int a = k / 2, b = k % 2;
		struct aws_shadow_layout l;
		unsigned long evs[6], ds[5];

		init_or_fail(tc, &l, XA_VALUE_BITS, nbs[a], mbs[b], 0);
		evs[0] = l.eviction_mask - 5;	/* stamp wraps */
		evs[1] = l.eviction_mask;
		evs[2] = ~0UL - 5;		/* clock wraps: now < eviction */
		evs[3] = ~0UL;
		evs[4] = (l.eviction_mask + 1) * 3 - 1;
		evs[5] = 12345;
		ds[0] = 0;
		ds[1] = 1;
		ds[2] = 20;
		ds[3] = 1UL << 20;
		ds[4] = l.eviction_mask;	/* the largest representable */

		for (ij = 0; ij < 6 * 5; ij++) {
			unsigned int i = ij / 5, j = ij % 5;
			struct aws_shadow in = { .eviction = evs[i], .nid = 0 };
			struct aws_shadow out;
			unsigned long now = evs[i] + ds[j];	/* may wrap */
			unsigned long d;

			aws_unpack_shadow(&l, aws_pack_shadow(&l, &in), &out);
			d = aws_refault_distance(&l, now, out.eviction);
			CHECK(tc, d == ds[j],
			      "nb=%u mb=%u ev=%#lx now=%#lx: %#lx want %#lx",
			      nbs[a], mbs[b], evs[i], now, d, ds[j]);
		}
	}
}

/*
 * bucket_order > 0: stamps lose their low bits. Distances come out as
 * multiples of 2^bucket_order, within one bucket of the truth, and exact
 * when both clock readings are bucket aligned.
 */
static void test_distance_bucket_order(struct aws_tc *tc)
{
	uint64_t rnd = 42;
	unsigned int bo, i;

	for (bo = 1; bo <= 12; bo++) {
		struct aws_shadow_layout l;
		unsigned long gran = 1UL << bo;

		init_or_fail(tc, &l, XA_VALUE_BITS, 10, 16, bo);
		for (i = 0; i < 2000; i++) {
			unsigned long ev = (unsigned long)aws_rand64(&rnd);
			unsigned long dist = aws_rand64(&rnd) &
					     ((l.eviction_mask >> 1) << bo);
			unsigned long now = ev + dist;
			struct aws_shadow in = { .eviction = ev }, out;
			unsigned long d, err;

			if (i == 0)
				ev = ~0UL - 3;	/* clock wraps */
			in.eviction = ev;
			now = ev + dist;
			aws_unpack_shadow(&l, aws_pack_shadow(&l, &in), &out);
			CHECK(tc, (out.eviction & (gran - 1)) == 0,
			      "bo=%u unpacked stamp not aligned", bo);
			d = aws_refault_distance(&l, now, out.eviction);
			CHECK(tc, (d & (gran - 1)) == 0, "bo=%u d=%#lx", bo, d);
			err = d > dist ? d - dist : dist - d;
			CHECK(tc, err < gran, "bo=%u d=%#lx true=%#lx", bo, d,
			      dist);

			ev &= ~(gran - 1);
			in.eviction = ev;
			now = ev + (dist & ~(gran - 1));
			aws_unpack_shadow(&l, aws_pack_shadow(&l, &in), &out);
			d = aws_refault_distance(&l, now, out.eviction);
			CHECK(tc, d == (dist & ~(gran - 1)),
			      "bo=%u aligned d=%#lx", bo, d);
		}
		/* one bucket of difference at most hides below granularity */
		CHECK(tc, aws_refault_distance(&l, gran - 1, 0) == 0,
		      "bo=%u sub-bucket distance", bo);
		CHECK(tc, aws_refault_distance(&l, gran, gran - 1) == gran,
		      "bo=%u one-tick bucket crossing", bo);
	}
}

static void test_bucket_order_examples(struct aws_tc *tc)
{
	static const struct {
		unsigned long ram;
		unsigned int eb, want;
	} ex[] = {
		/* Debian amd64, 36 timestamp bits: 0 below 2^36 pages */
		{ 1UL << 18, 36, 0 },		/* 1 GiB */
		{ 1UL << 20, 36, 0 },		/* 4 GiB */
		{ 71680, 36, 0 },		/* the seed's 280 MiB */
		{ 1UL << 36, 36, 0 },		/* fls(2^36 - 1) = 36 */
		{ (1UL << 36) + 1, 36, 1 },	/* fls(2^36) = 37 */
		{ 1UL << 40, 36, 4 },		/* 4 PiB of 4 KiB pages */
		{ (1UL << 40) + 1, 36, 5 },
		{ ~0UL, 36, 28 },
		{ 1, 36, 0 },			/* fls(0) = 0 */
		{ 2, 36, 0 },
		/* small timestamp fields */
		{ 100, 4, 3 },			/* fls(99) = 7 */
		{ 16, 4, 0 },			/* fls(15) = 4 */
		{ 17, 4, 1 },
		{ 1UL << 20, 14, 6 },		/* 32-bit, 4 GiB, memcg */
		{ 1UL << 20, 0, 20 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ex); i++) {
		unsigned int got = aws_bucket_order(ex[i].ram, ex[i].eb);

		CHECK(tc, got == ex[i].want, "ram=%#lx eb=%u: %u want %u",
		      ex[i].ram, ex[i].eb, got, ex[i].want);
	}
	/* every layout built with its own bucket_order must be accepted */
	for (i = 0; i < BPL; i++) {
		struct aws_shadow_layout l;
		unsigned int bo = aws_bucket_order(1UL << i, 36);

		if (BPL == 64)
			init_or_fail(tc, &l, 63, 10, 16, bo);
	}
}

/*
 * THP: one eviction or activation of a 512-page folio ages the clock by
 * 512. Distances between such events must be exact multiples of 512 with
 * bucket_order 0, and with bucket_order 9 (one bucket per THP) as long as
 * the clock stays THP aligned. Run across the stamp wrap.
 */
static void test_thp_aging(struct aws_tc *tc)
{
	const unsigned long nr = 512;
	unsigned int bo;

	for (bo = 0; bo <= 9; bo += 9) {
		struct aws_shadow_layout l;
		unsigned long clock, start;
		unsigned int i;

		init_or_fail(tc, &l, XA_VALUE_BITS, 10, 16, bo);
		/* start 8 THPs before the stamp field wraps */
		start = ((l.eviction_mask + 1) << bo) - 8 * nr;
		clock = start;
		for (i = 0; i < 16; i++) {
			struct aws_shadow in = { .eviction = clock }, out;
			unsigned long later = clock + (i + 1) * nr;
			unsigned long d;

			aws_unpack_shadow(&l, aws_pack_shadow(&l, &in), &out);
			d = aws_refault_distance(&l, later, out.eviction);
			CHECK(tc, d == (i + 1) * nr, "bo=%u step %u: %lu", bo,
			      i, d);
			clock += nr;	/* the THP eviction ages the clock */
		}
	}
}

/*
 * The module's tag: 8 bits above a 28-bit stamp, at raw bits 56..63 of the
 * 64-bit layout; a stamp at its widest never reaches it, a tag never
 * reaches the stamp, and a layout keeps at least one stamp bit.
 */
static void test_tag_reserve(struct aws_tc *tc)
{
	struct aws_shadow_layout l;
	struct aws_shadow in = { 0 }, out;
	unsigned long v, tag;

	if (BPL != 64)
		return;
	init_or_fail(tc, &l, XA_VALUE_BITS, 10, 16, 0);
	CHECK(tc, aws_layout_reserve_tag(&l, 8) == 0, "reserve 8");
	CHECK(tc, l.eviction_bits == 28 && l.tag_bits == 8,
	      "eviction_bits %u tag_bits %u", l.eviction_bits, l.tag_bits);
	CHECK(tc, aws_layout_reserve_tag(&l, 1) != 0, "reserved twice");
	for (tag = 0; tag < 256; tag++) {
		in.tag = tag;
		in.eviction = l.eviction_mask;
		in.nid = 3;
		in.memcgid = 0xffff;
		v = aws_pack_shadow(&l, &in);
		aws_unpack_shadow(&l, v, &out);
		CHECK(tc, out.tag == tag && out.eviction == l.eviction_mask &&
		      out.nid == 3 && out.memcgid == 0xffff,
		      "tag %lu: got tag %lu eviction %#lx", tag, out.tag,
		      out.eviction);
		CHECK(tc, (((v << 1) | 1) >> 56) == tag,
		      "tag %lu not at raw bits 56..63: %#lx", tag, v);
	}
	/* a stamp wider than 28 bits is cut, never spills into the tag */
	in.tag = 0;
	in.eviction = ~0UL;
	aws_unpack_shadow(&l, aws_pack_shadow(&l, &in), &out);
	CHECK(tc, out.tag == 0, "stamp spilled into the tag: %lu", out.tag);
	init_or_fail(tc, &l, XA_VALUE_BITS, 10, 16, 0);
	CHECK(tc, aws_layout_reserve_tag(&l, 36) != 0, "no stamp bit left");
	CHECK(tc, aws_layout_reserve_tag(&l, 35) == 0 && l.eviction_bits == 1,
	      "one stamp bit left");
}

/*
 * A stock shadow stored as the module's stock kind (one tag bit, 0) comes
 * back with its stamp exact, across 2^35 and across the 2^36 wrap, for
 * every distance below 2^35 buckets; the kind bit tells it from a policy
 * shadow (tag with its top bit set) at every clock value.
 */
static void test_stock_kind_roundtrip(struct aws_tc *tc)
{
	static const unsigned long clocks[] = {
		0, 4096, (1UL << 28) - 1, 1UL << 28, (1UL << 35) - 1,
		1UL << 35, (1UL << 36) - 1, 1UL << 36, (1UL << 36) + 12345,
		(3UL << 35) + 7, ~0UL - 5,
	};
	static const unsigned long dists[] = {
		0, 1, 4095, 1UL << 20, (1UL << 35) - 1,
	};
	struct aws_shadow_layout raw, stock, pol;
	struct aws_shadow in = { .memcgid = 3, .nid = 1, .workingset = true };
	struct aws_shadow out;
	unsigned int i, j, bo;

	for (bo = 0; bo <= 3; bo += 3) {
		init_or_fail(tc, &raw, 63, 10, 16, bo);
		stock = raw;
		pol = raw;
		CHECK(tc, aws_layout_reserve_tag(&stock, 1) == 0, "stock kind");
		CHECK(tc, aws_layout_reserve_tag(&pol, 8) == 0, "policy kind");
		for (i = 0; i < ARRAY_SIZE(clocks); i++) {
			for (j = 0; j < ARRAY_SIZE(dists); j++) {
				unsigned long now = clocks[i] << bo >> bo << bo;
				unsigned long d = dists[j] << bo;
				unsigned long v, back;

				in.eviction = now - d;
				in.tag = 0;
				v = aws_pack_shadow(&stock, &in);
				CHECK(tc, !aws_shadow_kind(&raw, v),
				      "stock kind read as a policy's: clock %#lx",
				      in.eviction);
				aws_unpack_shadow(&stock, v, &out);
				back = aws_stamp_extend(&stock, now, out.eviction);
				CHECK(tc, aws_refault_distance(&raw, now, back) == d,
				      "bo %u now %#lx d %#lx: distance %#lx", bo,
				      now, d, aws_refault_distance(&raw, now, back));
				CHECK(tc, ((back ^ in.eviction) >> bo &
					   raw.eviction_mask) == 0,
				      "stamp %#lx restored as %#lx", in.eviction,
				      back);
				in.tag = 0x80 | j;
				v = aws_pack_shadow(&pol, &in);
				CHECK(tc, aws_shadow_kind(&raw, v),
				      "policy shadow read as stock's: clock %#lx",
				      in.eviction);
			}
		}
	}
}

/*
 * What a scoped sweep takes: policy shadows of its stamper on the listed
 * memcgs' lruvecs (any memcg's with no list), never another stamper's,
 * another memcg's or a stock shadow, at the ends of the memcg id range
 * and of the tag's policy field.  The module's tag: kind bit, 3 epoch
 * bits, 4 policy bits.
 */
static void test_sweep_takes(struct aws_tc *tc)
{
	static const unsigned int ids[] = { 0, 5, 63, 64, 0xffff };
	unsigned long memcgs[0x10000 / (8 * sizeof(unsigned long))];
	struct aws_shadow_layout raw, pol, stock;
	struct aws_shadow in = { .nid = 1, .eviction = 12345 };
	unsigned int i, st;
	unsigned long v;

	if (BPL != 64)
		return;
	init_or_fail(tc, &raw, XA_VALUE_BITS, 10, 16, 0);
	pol = raw;
	stock = raw;
	CHECK(tc, aws_layout_reserve_tag(&pol, 8) == 0, "policy tag");
	CHECK(tc, aws_layout_reserve_tag(&stock, 1) == 0, "stock kind");
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		memset(memcgs, 0, sizeof(memcgs));
		memcgs[ids[i] / BPL] |= 1UL << (ids[i] % BPL);
		for (st = 1; st <= 15; st += 14) {
			in.memcgid = ids[i];
			in.tag = 1UL << 7 | 5UL << 4 | st;
			v = aws_pack_shadow(&pol, &in);
			CHECK(tc, aws_sweep_takes(&raw, &pol, 4, st, memcgs, v),
			      "memcg %u stamper %u: not taken", ids[i], st);
			CHECK(tc, aws_sweep_takes(&raw, &pol, 4, st, NULL, v),
			      "memcg %u stamper %u: not taken by any memcg's",
			      ids[i], st);
			CHECK(tc, !aws_sweep_takes(&raw, &pol, 4, st ^ 3, memcgs,
						   v),
			      "memcg %u: stamper %u took %u's", ids[i], st ^ 3,
			      st);
			in.memcgid = ids[i] ^ 1;
			v = aws_pack_shadow(&pol, &in);
			CHECK(tc, !aws_sweep_takes(&raw, &pol, 4, st, memcgs, v),
			      "memcg %u's list took memcg %u's", ids[i],
			      ids[i] ^ 1);
			in.memcgid = ids[i];
			in.tag = 0;
			v = aws_pack_shadow(&stock, &in);
			CHECK(tc, !aws_sweep_takes(&raw, &pol, 4, st, NULL, v),
			      "memcg %u: a stock shadow taken", ids[i]);
		}
	}
}

const struct aws_test_case aws_shadow_cases[] = {
	{ "fls_long", test_fls_long },
	{ "layout_init_valid", test_layout_init_valid },
	{ "layout_init_invalid", test_layout_init_invalid },
	{ "stock_bit_positions", test_stock_bit_positions },
	{ "pack_roundtrip_extremes", test_pack_roundtrip_extremes },
	{ "pack_masking", test_pack_masking },
	{ "distance_basic", test_distance_basic },
	{ "distance_wraparound", test_distance_wraparound },
	{ "distance_bucket_order", test_distance_bucket_order },
	{ "bucket_order_examples", test_bucket_order_examples },
	{ "thp_aging", test_thp_aging },
	{ "tag_reserve", test_tag_reserve },
	{ "stock_kind_roundtrip", test_stock_kind_roundtrip },
	{ "sweep_takes", test_sweep_takes },
};
const unsigned int aws_nr_shadow_cases =
	ARRAY_SIZE(aws_shadow_cases);
