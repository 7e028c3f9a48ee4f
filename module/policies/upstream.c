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

static enum aws_decision upstream_refault(struct aws_refault *r, void *state)
{
	const struct aws_lru_sizes *s = &r->sizes;

	r->workingset_size = s->active_file + s->inactive_file;
	if (s->swap_available)
		r->workingset_size += s->active_anon;
	return r->distance <= r->workingset_size ? AWS_YES : AWS_NO;
}

const struct aws_policy aws_policy_upstream = {
	.name = "upstream",
	.description = "Linux 6.1's algorithm run by the module",
	.clock = AWS_CLOCK_SHARED,
	.new_anon = aws_no,		/* start inactive */
	.evict = aws_yes,		/* every folio, large ones too */
	.refault = upstream_refault,
};
