// SPDX-License-Identifier: GPL-2.0
/*
 * slow - a policy the module must eject: its evict spins for 2 s
 *
 * The verifier accepts it (bpf_loop bounds the loop), but every eviction
 * it decides holds reclaim, with the swap cache's lock taken and
 * interrupts off, for 2 s: more than the module's budget for a callback
 * (bpf_budget_ms, 200 ms by default, 1 s in the bpf suite, whose TCG
 * guests can see a callback stall for 200 ms while the host runs others).  It stamps no shadow (no
 * clock), so evict is its only decision.  The bpf suite attaches it to a
 * cgroup that swaps and checks that the module detaches it, says why, and
 * that reclaim went on.  The spin reads the clock, so it lasts as long on
 * a fast host as under TCG.  Built as ejected-slow.bpf.o: not a policy to
 * run (the suites list policies by their objects' names).
 */
#include "../aws_bpf_policy.h"

char _license[] SEC("license") = "GPL";

#define SLOW_NS	(2000ULL * 1000 * 1000)

struct slow_spin {
	__u64 t0;
	bool done;
};

static long slow_spin(__u64 i, void *ctx)
{
	struct slow_spin *s = ctx;

	s->done = bpf_ktime_get_ns() - s->t0 > SLOW_NS;
	return s->done;		/* 1: stop */
}

/* bpf_loop allows 2^23 turns: a fast host needs several loops for 2 s */
static long slow_spins(__u64 i, void *ctx)
{
	bpf_loop(1 << 23, slow_spin, ctx, 0);
	return ((struct slow_spin *)ctx)->done;
}

SEC("struct_ops/evict")
enum aws_decision BPF_PROG(slow_evict, const struct aws_folio *f,
			   struct aws_bpf_state *state)
{
	struct slow_spin s = { .t0 = bpf_ktime_get_ns() };

	bpf_loop(64, slow_spins, &s, 0);
	return AWS_NO;
}

SEC(".struct_ops.link")
struct aws_bpf_ops slow = {
	.evict = (void *)slow_evict,
	.clock = AWS_CLOCK_NONE,
	.name = "slow",
	.description = "leaves no shadow, after spinning 2 s: to be ejected",
};
