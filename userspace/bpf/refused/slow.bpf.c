// SPDX-License-Identifier: GPL-2.0
/*
 * slow - a policy the module must eject: its evict spins for 500 ms
 *
 * The verifier accepts it (bpf_loop bounds the loop), and it is detect
 * otherwise, but every eviction it decides holds reclaim, with the swap
 * cache's lock taken and interrupts off, for half a second: more than the
 * module's budget for a callback (bpf_budget_ms, 200 ms by default).  The
 * bpf suite attaches it to a cgroup that swaps and checks that the module
 * detaches it, says why, and that reclaim went on.  The spin reads the
 * clock, so it lasts as long on a fast host as under TCG.  Built as
 * ejected-slow.bpf.o: not a policy to run (the suites list policies by
 * their objects' names).
 */
#include "../aws_bpf_policy.h"

char _license[] SEC("license") = "GPL";

#define SLOW_NS	(500ULL * 1000 * 1000)

AWS_BPF_ALWAYS(slow_new_anon, new_anon, AWS_NO)
AWS_BPF_ALWAYS(slow_age, age, AWS_YES)

static long slow_spin(__u64 i, void *t0)
{
	return bpf_ktime_get_ns() - *(__u64 *)t0 > SLOW_NS;	/* 1: stop */
}

SEC("struct_ops/evict")
enum aws_decision BPF_PROG(slow_evict, const struct aws_folio *f,
			   struct aws_bpf_state *state)
{
	__u64 t0 = bpf_ktime_get_ns();

	bpf_loop(1 << 23, slow_spin, &t0, 0);
	return f->nr_pages == 1 ? AWS_YES : AWS_NO;
}

SEC("struct_ops/refault")
enum aws_decision BPF_PROG(slow_refault, struct aws_refault *r,
			   struct aws_bpf_state *state)
{
	r->workingset_size = r->sizes.active_anon;
	return r->distance <= r->workingset_size ? AWS_YES : AWS_NO;
}

SEC(".struct_ops.link")
struct aws_bpf_ops slow = {
	.new_anon = (void *)slow_new_anon,
	.evict = (void *)slow_evict,
	.refault = (void *)slow_refault,
	.age = (void *)slow_age,
	.clock = AWS_CLOCK_ANON,
	.name = "slow",
	.description = "detect whose evict spins 500 ms: to be ejected",
};
