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

AWS_ALWAYS(upstream, new_anon, AWS_NO)	/* start inactive */
AWS_ALWAYS(upstream, evict, AWS_YES)	/* every folio, large ones too */

AWS_ON_REFAULT(upstream_refault)
{
	return aws_refault_within(r, aws_stock_workingset(&r->sizes));
}

AWS_DEFINE_POLICY(upstream) = {
	.name = AWS_NAME("upstream"),
	.description = "Linux 6.1's algorithm run by the module",
	.clock = AWS_CLOCK_SHARED,
	.new_anon = upstream_new_anon,
	.evict = upstream_evict,
	.refault = upstream_refault,
};
