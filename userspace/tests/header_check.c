// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled, not run: include/aws_core.h, include/aws_policy.h and
 * include/aws_bpf_ops.h
 * must stand alone, compile freestanding with kernel-like warnings (also
 * for a 32-bit target), and instantiate every function without pulling in
 * a single external symbol (the Makefile links this object with the
 * policy files, built with the same flags, and checks `nm -u` on the
 * result: nothing outside the policies, no libc, no kernel helpers).
 */
#include "aws_policy.h"
#include "aws_bpf_ops.h"

void aws_header_check(void);

/* Out-of-line uses at -O0 keep every inline function in the object. */
void aws_header_check(void)
{
	static volatile unsigned long sink;
	struct aws_shadow_layout l;
	struct aws_shadow s;
	struct aws_lru_sizes z = { 0 };
	const struct aws_policy *p;
	unsigned int r = 0;

	/* field by field: an aggregate initializer may become a memset() */
	s.eviction = 1;
	s.memcgid = 2;
	s.nid = 3;
	s.workingset = true;

	p = aws_policy_find("x\n", 2);
	if (!p)
		p = aws_policy_default;
	sink = (unsigned long)p;
	sink = aws_policy_is_stock(p);
	sink = aws_ratio_parse("auto", 4, &r);
	sink = aws_inactive_ratio(r, 1);
	sink = aws_policy_ratio(p, r, 3, &z, NULL);
	sink = aws_layout_init(&l, 8 * sizeof(long) - 1, 6, 16, 0);
	sink = aws_bucket_order(1UL << 20, l.eviction_bits);
	sink = aws_pack_shadow(&l, &s);
	aws_unpack_shadow(&l, sink, &s);
	sink = aws_refault_distance(&l, 10, s.eviction);
	sink = aws_hist_bucket(sink, 5);
	sink = (unsigned long)aws_hist_bucket_log(3);
}
