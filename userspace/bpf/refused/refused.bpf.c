// SPDX-License-Identifier: GPL-2.0
/*
 * refused - BPF policies the kernel must refuse, one per AWS_CASE_*
 *
 * The build compiles this file once per case (Makefile: REFUSED), each a
 * working policy (AWS_CASE_GOOD, bexample's refault) with one fault that
 * the module's description of its type makes the verifier refuse (the
 * first three), or the module refuses itself (the others).  The guest's
 * bpf suite loads each, checks the error it is refused with, and that the
 * running policy stayed in place.  Faults the verifier refuses whatever
 * the module says (a read past the state, a variable offset, an unbounded
 * loop) are not here: harness/guest/suites/bpf.sh says why.
 *
 *   OOB_WRITE   writes the private state past its end
 *   NULL_STATE  uses the state without checking it is there
 *   RO_WRITE    writes a refault field that is not an output
 *   SLEEPABLE   asks to sleep (decisions run in atomic context)
 *   LEGACY      attaches without a link (would outlive its loader)
 *   BAD_NAME    has a name that is not one of [a-z0-9_]
 *   BAD_CLOCK   asks for a clock that does not exist
 *   BIG_STATE   asks for more private state than the module keeps
 *   NO_DECISION has no member that decides anything (that is stock)
 *   NO_JUDGE    stamps shadows with a clock but judges no refault
 *
 * EXTRA1 and EXTRA2 are working policies under names of their own: with
 * three others attached, EXTRA1 takes the last of the module's four BPF
 * slots and EXTRA2 is refused because none is left.
 */
#include "../aws_bpf_policy.h"

char _license[] SEC("license") = "GPL";

#ifdef AWS_CASE_SLEEPABLE
#define AWS_REFAULT_SEC "struct_ops.s/refault"
#else
#define AWS_REFAULT_SEC "struct_ops/refault"
#endif

/*
 * NO_DECISION and NO_JUDGE leave members out, so they leave out their
 * programs too: libbpf loads a struct_ops program no member refers to,
 * and the kernel refuses it (no member to check it against) before the
 * module can say why the policy is refused.
 */
#if !defined(AWS_CASE_NO_DECISION) && !defined(AWS_CASE_NO_JUDGE)
SEC(AWS_REFAULT_SEC)
enum aws_decision BPF_PROG(refused_refault, struct aws_refault *r,
			   struct aws_bpf_state *state)
{
#if defined(AWS_CASE_OOB_WRITE)
	if (!state)
		return AWS_NO;
	*(__u64 *)((char *)state + sizeof(*state)) = 1;
	return AWS_NO;
#elif defined(AWS_CASE_NULL_STATE)
	return state->words[0]++ % 2 ? AWS_YES : AWS_NO;
#elif defined(AWS_CASE_RO_WRITE)
	r->distance = 0;
	return AWS_YES;
#else
	r->workingset_size = r->sizes.active_anon;
	if (r->distance <= r->workingset_size)
		return AWS_YES;
	if (!state)
		return AWS_NO;
	return state->words[0]++ % 2 ? AWS_YES : AWS_NO;
#endif
}
#endif

#ifndef AWS_CASE_NO_DECISION
SEC("struct_ops/evict")
enum aws_decision BPF_PROG(refused_evict, const struct aws_folio *f,
			   struct aws_bpf_state *state)
{
	return f->nr_pages == 1 ? AWS_YES : AWS_NO;
}
#endif

#ifdef AWS_CASE_LEGACY
SEC(".struct_ops")
#else
SEC(".struct_ops.link")
#endif
struct aws_bpf_ops refused = {
#ifndef AWS_CASE_NO_DECISION
	.evict = (void *)refused_evict,
#endif
#if !defined(AWS_CASE_NO_DECISION) && !defined(AWS_CASE_NO_JUDGE)
	.refault = (void *)refused_refault,
#endif
#ifdef AWS_CASE_BAD_CLOCK
	.clock = AWS_CLOCK_SHARED + 1,
#else
	.clock = AWS_CLOCK_ANON,
#endif
#ifdef AWS_CASE_BIG_STATE
	.state_size = AWS_BPF_STATE_MAX + 1,
#else
	.state_size = sizeof(__u64),
#endif
#if defined(AWS_CASE_BAD_NAME)
	.name = "Bad-Name",
#elif defined(AWS_CASE_EXTRA1)
	.name = "extra1",
#elif defined(AWS_CASE_EXTRA2)
	.name = "extra2",
#else
	.name = "refused",
#endif
};
