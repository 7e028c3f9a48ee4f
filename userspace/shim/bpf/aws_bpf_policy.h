/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_bpf_policy.h (userspace stand-in) - the BPF build of a policy file,
 * compiled for the simulator
 *
 * A policy file written with include/aws_policy.h's one-source macros
 * compiles with AWS_TARGET_BPF into a struct aws_bpf_ops: for the guest
 * against userspace/bpf/aws_bpf_policy.h (the module's BTF, libbpf's
 * SEC() and BPF_PROG()), here against this header, which gives the same
 * names plain C meanings: a program is a function of its arguments, the
 * state block is the simulator's, and aws_bpf_state_mem() checks a
 * request against the size the policy declared as the module does.  The
 * simulator runs the result beside the C build (userspace/sim/twins.c) and
 * its self test asks that both take the same decisions.
 */
#ifndef _AWS_BPF_POLICY_H
#define _AWS_BPF_POLICY_H

#include "aws_bpf_ops.h"

#define SEC(name)
#define BPF_PROG(prog, ...)	prog(__VA_ARGS__)
#define AWS_BPF_LICENSE		struct aws_bpf_license_unused
#define AWS_BPF_RODATA		const

/* userspace/bpf/aws_bpf_policy.h's shared decisions, as functions */
#define AWS_BPF_ALWAYS(prog, member, answer)				\
enum aws_decision prog(const struct aws_folio *f, struct aws_bpf_state *state) \
{									\
	return answer;							\
}
#define AWS_BPF_FILE_WORKINGSET_ACTIVE(prog)				\
unsigned long prog(const struct aws_lru_sizes *s, unsigned long stock_size) \
{									\
	return s->active_file;						\
}

/*
 * The declared size of the state of the policy being called (twins.c sets
 * it before every call), as the module's kfunc checks it.
 */
extern unsigned int aws_bpf_sim_state_size;

static inline unsigned char *aws_bpf_state_mem(struct aws_bpf_state *state,
					       unsigned long rdwr_buf_size)
{
	if (!state || rdwr_buf_size > aws_bpf_sim_state_size)
		return NULL;
	return (unsigned char *)state;
}

#endif /* _AWS_BPF_POLICY_H */
