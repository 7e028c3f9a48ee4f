// SPDX-License-Identifier: GPL-2.0
/*
 * upstream - the 6.1 algorithm, re-run by the module
 *
 * What the seed became upstream: anon and file pages share one
 * non-resident clock per lruvec, every anon eviction (large folios
 * included) leaves a shadow on it, and since anon and file compete for the
 * same memory an anon refault is compared with all file pages, plus active
 * anon when swap is usable.  Activations and the file side are left to the
 * kernel, which does exactly that.  It should behave like stock; the
 * difference is only who runs the code, which makes it the check that the
 * framework adds nothing of its own.  The simulator runs these rules for
 * every decision a policy declines.
 */
#include "aws_policy.h"

AWS_ON_REFAULT(upstream_refault)
{
	const struct aws_lru_sizes *s = &r->sizes;

	r->workingset_size = s->active_file + s->inactive_file;
	if (s->swap_available)
		r->workingset_size += s->active_anon;
	return r->distance <= r->workingset_size ? AWS_YES : AWS_NO;
}

AWS_ON_NEW_ANON(upstream_new_anon)
{
	return AWS_NO;	/* start inactive */
}

AWS_ON_EVICT(upstream_evict)
{
	return AWS_YES;	/* every folio, large ones too */
}

AWS_DEFINE_POLICY(upstream) = {
	.name = AWS_NAME("upstream"),
	.description = "Linux 6.1's algorithm run by the module",
	.clock = AWS_CLOCK_SHARED,
	.new_anon = AWS_PROG(upstream_new_anon),
	.evict = AWS_PROG(upstream_evict),
	.refault = AWS_PROG(upstream_refault),
};
