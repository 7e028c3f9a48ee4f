/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_bpf_policy.h - what a BPF policy includes
 *
 * A BPF policy is one file, NAME.bpf.c, that fills a struct aws_bpf_ops
 * (module/aws_bpf.c) in a SEC(".struct_ops.link") variable: one program
 * per decision it takes, each with the arguments of the same decision of
 * struct aws_policy (include/aws_policy.h), state typed struct
 * aws_bpf_state.  The types come from aws_vmlinux.h, which the build
 * dumps from the module's BTF (harness/images/build-bpf.sh): the kernel
 * checks every access against the same description.  The state pointer
 * may be NULL (a policy without state, a folio no memcg is charged for),
 * and the verifier refuses a program that does not check it.
 */
#ifndef _AWS_BPF_POLICY_H
#define _AWS_BPF_POLICY_H

#include "aws_vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/*
 * The module's kfuncs (module/aws_bpf.c), for its policies only: the
 * calling policy's non-resident clock of a (memcg, node), as a shadow
 * stamped now would carry it (0 without a clock), a way to give up: the
 * module ejects the policy and says it called aws_bpf_error(code), and
 * the policy's whole state (below).
 */
extern __u64 aws_bpf_clock(__u32 memcg_id, __u32 nid) __ksym;
extern void aws_bpf_error(__u32 code) __ksym;

/*
 * State beyond the 64 bytes of struct aws_bpf_state: a policy declares
 * up to AWS_BPF_STATE_MAX bytes (the module's limit) in .state_size, and
 * aws_bpf_state_mem(state, N), N a constant, gives a callback the first N
 * bytes of its state as memory (NULL if it declared fewer, or state is
 * NULL): check it, then index it within N.
 */
#define AWS_BPF_STATE_MAX	512
extern __u8 *aws_bpf_state_mem(struct aws_bpf_state *state,
			       unsigned long rdwr_buf_size) __ksym;

/* The license section every object carries (include/aws_policy.h's tables). */
#define AWS_BPF_LICENSE char _license[] SEC("license") = "GPL"
/* A setting the loader may change before the load (AWS_SETTING()). */
#define AWS_BPF_RODATA const volatile

/*
 * The decisions several policies share, as module/policies/registry.c has
 * them for C (aws_yes(), aws_no(), aws_file_workingset_active()): a
 * program @prog for decision @member that always answers @answer, and one
 * that compares a file refault with the active file list alone.
 */
#define AWS_BPF_ALWAYS(prog, member, answer)				\
SEC("struct_ops/" #member)						\
enum aws_decision BPF_PROG(prog, const struct aws_folio *f,		\
			   struct aws_bpf_state *state)			\
{									\
	return answer;							\
}

#define AWS_BPF_FILE_WORKINGSET_ACTIVE(prog)				\
SEC("struct_ops/file_workingset")					\
unsigned long BPF_PROG(prog, const struct aws_lru_sizes *s,		\
		       unsigned long stock_size)			\
{									\
	return s->active_file;						\
}

#endif /* _AWS_BPF_POLICY_H */
