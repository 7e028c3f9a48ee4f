// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled, not run: include/anon_ws_policy.h must stand alone, compile
 * freestanding with kernel-like warnings (also for a 32-bit target), and
 * instantiate every function without pulling in a single external symbol
 * (the Makefile checks `nm -u` on this object).
 */
#include "anon_ws_policy.h"

void aws_header_check(void);

/* Out-of-line uses at -O0 keep every inline function in the object. */
void aws_header_check(void)
{
	static volatile unsigned long sink;
	struct aws_shadow_layout l;
	struct aws_shadow s;
	struct aws_lru_sizes sz;
	enum aws_policy p = AWS_POLICY_STOCK;
	unsigned int r = 0;

	/* field by field: an aggregate initializer may become a memset() */
	s.eviction = 1;
	s.memcgid = 2;
	s.nid = 3;
	s.workingset = true;
	sz.active_anon = 1;
	sz.inactive_anon = 2;
	sz.active_file = 3;
	sz.inactive_file = 4;
	sz.swap_available = true;

	sink = (unsigned long)aws_policy_name(p);
	sink = aws_policy_parse("detect", 6, &p);
	sink = aws_ratio_parse("auto", 4, &r);
	sink = aws_inactive_ratio(r, 1);
	sink = (unsigned long)aws_traits(p);
	sink = aws_layout_init(&l, 8 * sizeof(long) - 1, 6, 16, 0);
	sink = aws_bucket_order(1UL << 20, l.eviction_bits);
	sink = aws_pack_shadow(&l, &s);
	aws_unpack_shadow(&l, sink, &s);
	sink = aws_refault_distance(&l, 10, s.eviction);
	sink = aws_workingset_size(AWS_WS_UPSTREAM, &sz);
	sink = aws_should_activate(sink, 3);
	sink = aws_hist_bucket(sink, 5);
	sink = (unsigned long)aws_hist_bucket_log(3);
}
