/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_bpf_ops.h - the struct_ops type a BPF policy fills (6.12)
 *
 * module/aws_bpf.c registers it and calls its programs.  A BPF policy sees
 * it through the module's BTF (userspace/bpf/aws_bpf_policy.h); the
 * simulator's stand-in for a policy file's BPF build
 * (userspace/shim/bpf/aws_bpf_policy.h) sees it here, so that the build
 * runs there on the same type as in the guest.
 */
#ifndef _AWS_BPF_OPS_H
#define _AWS_BPF_OPS_H

#include "aws_policy_types.h"

#define AWS_BPF_STATE_WORDS	8
#define AWS_BPF_STATE_MAX	512	/* bytes of state a policy may declare */
#define AWS_BPF_DESCRIPTION_MAX	64

/* A BPF policy's private state, per (memcg, node): its first words. */
struct aws_bpf_state {
	unsigned long long words[AWS_BPF_STATE_WORDS];
};

/*
 * The struct_ops type.  Every function member may be left out (declines,
 * as NULL does in C); state is NULL for a policy without state and for a
 * folio no memcg is charged for.  clock is an enum aws_clock, state_size
 * 0 (no state) or up to AWS_BPF_STATE_MAX bytes (the callbacks get the
 * first as struct aws_bpf_state, the whole through aws_bpf_state_mem()),
 * name at most AWS_POLICY_NAME_MAX of [a-z0-9_].  cgroup_id, if
 * not 0, is the memory cgroup the link selects the policy for when it
 * attaches, in the same step (aws-bpf-load -c sets it): a cgroup id, the
 * inode number of its directory in cgroup2.
 */
struct aws_bpf_ops {
	enum aws_decision (*new_anon)(const struct aws_folio *f,
				      struct aws_bpf_state *state);
	enum aws_decision (*swapin)(const struct aws_folio *f,
				    struct aws_bpf_state *state);
	enum aws_decision (*swapin_mapped)(const struct aws_folio *f,
					   struct aws_bpf_state *state);
	enum aws_decision (*evict)(const struct aws_folio *f,
				   struct aws_bpf_state *state);
	enum aws_decision (*refault)(struct aws_refault *r,
				     struct aws_bpf_state *state);
	enum aws_decision (*age)(const struct aws_folio *f,
				 struct aws_bpf_state *state);
	enum aws_decision (*first_reference)(const struct aws_folio *f,
					     struct aws_bpf_state *state);
	enum aws_decision (*keep_active)(const struct aws_folio *f,
					 struct aws_bpf_state *state);
	unsigned long (*inactive_ratio)(const struct aws_lru_sizes *s,
					unsigned long stock_ratio,
					struct aws_bpf_state *state);
	unsigned long (*file_workingset)(const struct aws_lru_sizes *s,
					 unsigned long stock_size);
	void (*state_init)(struct aws_bpf_state *state);
	unsigned int clock;
	unsigned int state_size;
	char name[AWS_POLICY_NAME_MAX + 1];
	char description[AWS_BPF_DESCRIPTION_MAX];
	unsigned long long cgroup_id;
};

#endif /* _AWS_BPF_OPS_H */
