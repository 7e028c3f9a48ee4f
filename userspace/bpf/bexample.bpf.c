// SPDX-License-Identifier: GPL-2.0
/*
 * bexample - the worked example (module/policies/example.c) as a BPF policy
 *
 * detect, plus every other refault whose distance is too long for the
 * active anon list, counted per lruvec in the first word of the private
 * state (the verifier makes the program check that it has one).  How many
 * of them is a setting: one in long_every, which the loader can change
 * before the load (aws-bpf-load -n NAME -s long_every=3 runs a second
 * copy that admits every third).
 */
#include "aws_bpf_policy.h"

char _license[] SEC("license") = "GPL";

const volatile __u64 long_every = 2;

AWS_BPF_ALWAYS(bexample_new_anon, new_anon, AWS_NO)	/* start inactive */
AWS_BPF_ALWAYS(bexample_swapin, swapin, AWS_YES)	/* PG_workingset for PSI */
AWS_BPF_ALWAYS(bexample_age, age, AWS_YES)		/* activations age the clock */
AWS_BPF_FILE_WORKINGSET_ACTIVE(bexample_file_workingset)

SEC("struct_ops/evict")
enum aws_decision BPF_PROG(bexample_evict, const struct aws_folio *f,
			   struct aws_bpf_state *state)
{
	return f->nr_pages == 1 ? AWS_YES : AWS_NO;
}

SEC("struct_ops/refault")
enum aws_decision BPF_PROG(bexample_refault, struct aws_refault *r,
			   struct aws_bpf_state *state)
{
	r->workingset_size = r->sizes.active_anon;
	if (r->distance <= r->workingset_size)
		return AWS_YES;
	if (!state)
		return AWS_NO;
	/* too long for detect: admit one in long_every */
	if (!long_every)
		return AWS_NO;
	return state->words[0]++ % long_every == long_every - 1 ? AWS_YES : AWS_NO;
}

SEC(".struct_ops.link")
struct aws_bpf_ops bexample = {
	.new_anon = (void *)bexample_new_anon,
	.swapin = (void *)bexample_swapin,
	.evict = (void *)bexample_evict,
	.refault = (void *)bexample_refault,
	.age = (void *)bexample_age,
	.file_workingset = (void *)bexample_file_workingset,
	.clock = AWS_CLOCK_ANON,
	.state_size = sizeof(__u64),
	.name = "bexample",
	.description = "worked example in BPF: detect, plus every other long refault",
};
