// SPDX-License-Identifier: GPL-2.0
/*
 * refused - BPF policies the kernel must refuse, one per AWS_CASE_*
 *
 * The build compiles this file once per case (Makefile: REFUSED), each a
 * working policy (AWS_CASE_GOOD, bexample's refault) with one fault: the
 * verifier must refuse the first six at load, the module the last three
 * at attach.  The guest's bpf suite loads each, checks the error it is
 * refused with, and that the running policy stayed in place.
 *
 *   OOB_READ    reads the private state past its end
 *   OOB_WRITE   writes the private state past its end
 *   VAR_OFFSET  indexes the state with a value read at run time
 *   NULL_STATE  uses the state without checking it is there
 *   RO_WRITE    writes a refault field that is not an output
 *   LOOP        loops for as long as a value read at run time says
 *   SLEEPABLE   asks to sleep (decisions run in atomic context)
 *   LEGACY      attaches without a link (would outlive its loader)
 *   BAD_NAME    has a name that is not one of [a-z0-9_]
 */
#include "../aws_bpf_policy.h"

char _license[] SEC("license") = "GPL";

#ifdef AWS_CASE_SLEEPABLE
#define AWS_REFAULT_SEC "struct_ops.s/refault"
#else
#define AWS_REFAULT_SEC "struct_ops/refault"
#endif

SEC(AWS_REFAULT_SEC)
enum aws_decision BPF_PROG(refused_refault, struct aws_refault *r,
			   struct aws_bpf_state *state)
{
#if defined(AWS_CASE_OOB_READ)
	if (!state)
		return AWS_NO;
	return *(__u64 *)((char *)state + sizeof(*state)) ? AWS_YES : AWS_NO;
#elif defined(AWS_CASE_OOB_WRITE)
	if (!state)
		return AWS_NO;
	*(__u64 *)((char *)state + sizeof(*state)) = 1;
	return AWS_NO;
#elif defined(AWS_CASE_VAR_OFFSET)
	if (!state)
		return AWS_NO;
	return state->words[r->id & 7] ? AWS_YES : AWS_NO;
#elif defined(AWS_CASE_NULL_STATE)
	return state->words[0]++ % 2 ? AWS_YES : AWS_NO;
#elif defined(AWS_CASE_RO_WRITE)
	r->distance = 0;
	return AWS_YES;
#elif defined(AWS_CASE_LOOP)
	volatile __u64 left = r->distance;

	while (left)
		;
	return AWS_NO;
#else
	r->workingset_size = r->sizes.active_anon;
	if (r->distance <= r->workingset_size)
		return AWS_YES;
	if (!state)
		return AWS_NO;
	return state->words[0]++ % 2 ? AWS_YES : AWS_NO;
#endif
}

SEC("struct_ops/evict")
enum aws_decision BPF_PROG(refused_evict, const struct aws_folio *f,
			   struct aws_bpf_state *state)
{
	return f->nr_pages == 1 ? AWS_YES : AWS_NO;
}

#ifdef AWS_CASE_LEGACY
SEC(".struct_ops")
#else
SEC(".struct_ops.link")
#endif
struct aws_bpf_ops refused = {
	.evict = (void *)refused_evict,
	.refault = (void *)refused_refault,
	.clock = AWS_CLOCK_ANON,
	.state_size = sizeof(__u64),
#ifdef AWS_CASE_BAD_NAME
	.name = "Bad-Name",
#else
	.name = "refused",
#endif
};
