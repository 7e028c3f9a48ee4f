// SPDX-License-Identifier: GPL-2.0
/*
 * example - the worked example: detect, plus half of the long refaults
 *
 * Written to show what a policy file looks like (README, "Writing a
 * policy"); not one of the kernels the project compares.
 *
 * detect activates a refault only when its distance fits in the active
 * anon list.  On an access pattern that loops over more than memory every
 * distance is too long, so nothing is ever activated and the whole loop
 * cycles through the inactive list: each page is evicted just before its
 * next use, as under plain LRU.  This policy also activates every other
 * refault that detect would leave inactive.  The activated half then
 * competes with the active list instead of being evicted at once, so part
 * of the loop can stay resident between passes.
 *
 * "Every other" is counted per lruvec in the policy's private state, which
 * the framework allocates (zeroed) when the policy starts running and
 * frees when it stops: one word, updated without a lock because an
 * occasional lost update only shifts which refault is admitted.
 */
#include "aws_policy.h"

struct example_state {
	unsigned long long_refaults;
};

static enum aws_decision example_evict(const struct aws_folio *f,
				       void *state)
{
	return f->nr_pages == 1 ? AWS_YES : AWS_NO;
}

static enum aws_decision example_refault(struct aws_refault *r, void *state)
{
	struct example_state *s = state;

	r->workingset_size = r->sizes.active_anon;
	if (r->distance <= r->workingset_size)
		return AWS_YES;
	if (!s)		/* no state (memory exhausted): detect's rule */
		return AWS_NO;
	/* too long for detect: admit every other one */
	return s->long_refaults++ % 2 ? AWS_YES : AWS_NO;
}

const struct aws_policy aws_policy_example = {
	.name = "example",
	.description = "worked example: detect, plus every other refault beyond the workingset",
	.clock = AWS_CLOCK_ANON,
	.state_size = sizeof(struct example_state),
	.new_anon = aws_no,
	.swapin = aws_yes,
	.evict = example_evict,
	.refault = example_refault,
	.age = aws_yes,
	/* anon events leave the shared clock: file refaults see only file */
	.file_workingset = aws_file_workingset_active,
};
