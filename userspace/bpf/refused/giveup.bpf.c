// SPDX-License-Identifier: GPL-2.0
/*
 * giveup - a policy that gives up: its 100th eviction calls aws_bpf_error()
 *
 * The module's error kfunc (module/aws_bpf.c) asks it to eject the calling
 * policy: the bpf suite attaches this one to a cgroup that swaps and
 * checks that it is ejected at once, that the kernel log and its loader
 * say it called aws_bpf_error(42) from evict, and that the cgroup gets
 * its previous policy back.  It leaves no shadow (no clock).  Built as
 * ejected-giveup.bpf.o: not a policy to run.
 */
#include "../aws_bpf_policy.h"

char _license[] SEC("license") = "GPL";

__u64 evictions;

SEC("struct_ops/evict")
enum aws_decision BPF_PROG(giveup_evict, const struct aws_folio *f,
			   struct aws_bpf_state *state)
{
	if (__sync_fetch_and_add(&evictions, 1) == 99)
		aws_bpf_error(42);
	return AWS_NO;
}

SEC(".struct_ops.link")
struct aws_bpf_ops giveup = {
	.evict = (void *)giveup_evict,
	.clock = AWS_CLOCK_NONE,
	.name = "giveup",
	.description = "gives up at its 100th eviction: to be ejected",
};
