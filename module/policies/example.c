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
 * occasional lost update only shifts which refault is admitted.  "Other"
 * is a setting, long_every: a constant 2 in C; in the BPF build (bexample,
 * include/aws_policy.h's one-source macros) the loader can change it
 * before the load (aws-bpf-load -n NAME -s long_every=3 runs a second copy
 * that admits every third).
 */
#include "aws_policy.h"

struct example_state {
	unsigned long long_refaults;
};

/* One long refault in long_every is admitted (aws-bpf-load -s sets it). */
AWS_SETTING(long_every, 2);

AWS_ALWAYS(example, new_anon, AWS_NO)
AWS_ALWAYS(example, swapin, AWS_YES)
AWS_ALWAYS(example, age, AWS_YES)
/* anon events leave the shared clock: file refaults see only file */
AWS_FILE_WORKINGSET_ACTIVE(example)

AWS_ON_EVICT(example_evict)
{
	return f->nr_pages == 1 ? AWS_YES : AWS_NO;
}

AWS_ON_REFAULT(example_refault)
{
	struct example_state *s = AWS_STATE(struct example_state, state);

	r->workingset_size = r->sizes.active_anon;
	if (r->distance <= r->workingset_size)
		return AWS_YES;
	if (!s || !long_every)	/* no state (memory exhausted): detect's rule */
		return AWS_NO;
	/* too long for detect: admit one in long_every */
	return s->long_refaults++ % long_every == long_every - 1 ?
	       AWS_YES : AWS_NO;
}

AWS_DEFINE_POLICY(example) = {
	.name = AWS_NAME("example"),
	.description = "worked example: detect, plus every other long refault",
	.clock = AWS_CLOCK_ANON,
	.state_size = sizeof(struct example_state),
	.new_anon = example_new_anon,
	.swapin = example_swapin,
	.evict = example_evict,
	.refault = example_refault,
	.age = example_age,
	.file_workingset = example_file_workingset,
};
