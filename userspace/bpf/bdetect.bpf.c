// SPDX-License-Identifier: GPL-2.0
/*
 * bdetect - detect (module/policies/detect.c) as a BPF policy
 *
 * The same decisions as the C file, decision for decision: new anon pages
 * start inactive, swap-ins are marked workingset, a single-page eviction
 * leaves a shadow on the policy's own anon clock, a refault whose distance
 * fits in the active anon list is activated, activations age the clock,
 * and a file refault is compared with the active file list alone.  The
 * guest's bpf suite checks that both take the same decisions.
 */
#include "aws_bpf_policy.h"

char _license[] SEC("license") = "GPL";

AWS_BPF_ALWAYS(bdetect_new_anon, new_anon, AWS_NO)	/* start inactive */
AWS_BPF_ALWAYS(bdetect_swapin, swapin, AWS_YES)	/* PG_workingset for PSI */
AWS_BPF_ALWAYS(bdetect_age, age, AWS_YES)		/* activations age the clock */
AWS_BPF_FILE_WORKINGSET_ACTIVE(bdetect_file_workingset)

SEC("struct_ops/evict")
enum aws_decision BPF_PROG(bdetect_evict, const struct aws_folio *f,
			   struct aws_bpf_state *state)
{
	return f->nr_pages == 1 ? AWS_YES : AWS_NO;
}

SEC("struct_ops/refault")
enum aws_decision BPF_PROG(bdetect_refault, struct aws_refault *r,
			   struct aws_bpf_state *state)
{
	r->workingset_size = r->sizes.active_anon;
	return r->distance <= r->workingset_size ? AWS_YES : AWS_NO;
}

SEC(".struct_ops.link")
struct aws_bpf_ops bdetect = {
	.new_anon = (void *)bdetect_new_anon,
	.swapin = (void *)bdetect_swapin,
	.evict = (void *)bdetect_evict,
	.refault = (void *)bdetect_refault,
	.age = (void *)bdetect_age,
	.file_workingset = (void *)bdetect_file_workingset,
	.clock = AWS_CLOCK_ANON,
	.name = "bdetect",
	.description = "detect in BPF: seed 1-7, anon shadows on an anon clock",
};
