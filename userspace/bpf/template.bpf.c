// SPDX-License-Identifier: GPL-2.0
/*
 * template - a BPF policy with every member of struct aws_bpf_ops, to copy
 *
 * Copy this file anywhere as NAME.bpf.c, change the decisions, then
 *
 *	make bpf-policy SRC=path/to/NAME.bpf.c	(builds against the 6.12 tree)
 *	make shell KVER=6.12
 *	aws-bpf-load -c /sys/fs/cgroup/CG /mnt/tools/bpf/user/NAME.bpf.o
 *
 * (docs/bpf.md, "Writing one").  What each decision means, and when it is
 * asked, is include/aws_policy.h's; every program runs in atomic context.
 * A member you delete is declined: the kernel runs its own code for it.
 *
 * As it stands the template is detect (the seed's series) with the
 * baseline's and the seed's other knobs spelled out as the answers stock
 * gives, and a count and a histogram of long refaults in a state of 448
 * bytes: the bpf suite attaches
 * it as it is.  It also shows what a decision knows of who and where:
 * each folio's memcg id, node and, while it has a swap slot, its identity
 * (f->id at evict, the same value as r->id when it refaults), and each
 * lruvec's memcg id and node (r->sizes, s in inactive_ratio); it matches
 * every eviction with its refault in a map keyed by that identity.  Its
 * global counters are printed by aws-bpf-load when it detaches.
 */
#include "aws_bpf_policy.h"

char _license[] SEC("license") = "GPL";

/*
 * Where each page this policy shadowed was evicted from, by identity, and
 * its clock then (the module's aws_bpf_clock() kfunc).
 */
struct where {
	__u32 memcg_id;
	__u32 nid;
	__u64 clock;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1 << 17);
	__type(key, __u64);
	__type(value, struct where);
} evicted SEC(".maps");

/* Counters for the author (aws-bpf-load prints them). */
__u64 shadows_left, refaults_matched, refaults_unmatched, refaults_moved;
__u64 distance_agrees, distance_differs;
__u64 state_sums_agree, state_sums_differ, state_beyond_refused, state_beyond_given;

/*
 * The state declared below, per (memcg, node): struct aws_bpf_state's
 * words (word 0: the lruvec's long refaults), then a histogram of those
 * refaults by log2 of their distance, HIST words, reached through
 * aws_bpf_state_mem().
 */
#define HIST		48
#define WORDS		(sizeof(struct aws_bpf_state) / sizeof(__u64))
#define STATE_BYTES	((WORDS + HIST) * sizeof(__u64))

/*
 * Count a long refault at distance @d in @state's histogram and word 0.
 * At every 64th (so that a state that is not kept never gets there) the
 * histogram's sum must be word 0 (state_sums_*) and a request beyond
 * the declared size must be refused (state_beyond_*).
 */
static void count_long(struct aws_bpf_state *state, __u64 d)
{
	__u64 *m = (__u64 *)aws_bpf_state_mem(state, STATE_BYTES);
	__u64 sum = 0;
	int k, i;

	if (!m)
		return;
	for (k = 0; k < HIST - 1 && (d >> (k + 1)); k++)
		;
	m[WORDS + k]++;
	if (++m[0] % 64)	/* state->words[0] */
		return;
	for (i = 0; i < HIST; i++)
		sum += m[WORDS + i];
	__sync_fetch_and_add(sum == m[0] ? &state_sums_agree : &state_sums_differ, 1);
	if (aws_bpf_state_mem(state, AWS_BPF_STATE_MAX))
		__sync_fetch_and_add(&state_beyond_given, 1);
	else
		__sync_fetch_and_add(&state_beyond_refused, 1);
}

/*
 * The decisions that always give one answer, one line each
 * (aws_bpf_policy.h's AWS_BPF_ALWAYS; write a program like evict's below
 * to look at the folio):
 *   new_anon         YES starts a new anon folio active, NO inactive
 *   swapin           YES marks a folio read from swap PG_workingset
 *   swapin_mapped    YES activates the folio of a swap-in fault
 *   age              YES lets an activation age this policy's clock
 *   first_reference  YES activates an inactive folio on one young PTE
 *   keep_active      YES keeps a referenced active folio active
 */
AWS_BPF_ALWAYS(template_new_anon, new_anon, AWS_NO)	/* the seed's */
AWS_BPF_ALWAYS(template_swapin, swapin, AWS_YES)
AWS_BPF_ALWAYS(template_swapin_mapped, swapin_mapped, AWS_NO)
AWS_BPF_ALWAYS(template_age, age, AWS_YES)
AWS_BPF_ALWAYS(template_first_reference, first_reference, AWS_NO)
AWS_BPF_ALWAYS(template_keep_active, keep_active, AWS_NO)

/* Leaving the swap cache: YES leaves a shadow on this policy's clock. */
SEC("struct_ops/evict")
enum aws_decision BPF_PROG(template_evict, const struct aws_folio *f,
			   struct aws_bpf_state *state)
{
	struct where w = {
		.memcg_id = f->memcg_id, .nid = f->nid,
		.clock = aws_bpf_clock(f->memcg_id, f->nid),
	};
	__u64 id = f->id;

	if (f->nr_pages != 1)
		return AWS_NO;
	if (id && !bpf_map_update_elem(&evicted, &id, &w, BPF_ANY))
		__sync_fetch_and_add(&shadows_left, 1);
	return AWS_YES;
}

/*
 * A swap-in found one of this policy's shadows: YES activates.  Report
 * what the distance was compared with; r->quiet = true would keep the
 * activation out of WORKINGSET_ACTIVATE_ANON.
 */
SEC("struct_ops/refault")
enum aws_decision BPF_PROG(template_refault, struct aws_refault *r,
			   struct aws_bpf_state *state)
{
	__u64 id = r->id, d;
	struct where *w = bpf_map_lookup_elem(&evicted, &id);

	/* the eviction of this page, and whether it left this lruvec */
	if (!w) {
		__sync_fetch_and_add(&refaults_unmatched, 1);
	} else {
		__sync_fetch_and_add(&refaults_matched, 1);
		if (w->memcg_id != r->sizes.memcg_id || w->nid != r->sizes.nid)
			__sync_fetch_and_add(&refaults_moved, 1);
		/* the clock now less the clock then: the module's distance,
		 * give or take what other CPUs evicted in between */
		d = aws_bpf_clock(r->sizes.memcg_id, r->sizes.nid) - w->clock;
		if (d - r->distance <= 64 || r->distance - d <= 64)
			__sync_fetch_and_add(&distance_agrees, 1);
		else
			__sync_fetch_and_add(&distance_differs, 1);
		bpf_map_delete_elem(&evicted, &id);
	}
	r->workingset_size = r->sizes.active_anon;
	if (r->distance <= r->workingset_size)
		return AWS_YES;
	if (state)			/* NULL: no memcg, or no state */
		count_long(state, r->distance);
	return AWS_NO;
}

/* The anon list is low when inactive * ratio < active: the ratio. */
SEC("struct_ops/inactive_ratio")
unsigned long BPF_PROG(template_inactive_ratio, const struct aws_lru_sizes *s,
		       unsigned long stock_ratio, struct aws_bpf_state *state)
{
	return stock_ratio;
}

/* What a file refault's distance is compared with. */
AWS_BPF_FILE_WORKINGSET_ACTIVE(template_file_workingset)

/* Each (memcg, node) state starts zeroed; set other starting values here. */
SEC("struct_ops/state_init")
void BPF_PROG(template_state_init, struct aws_bpf_state *state)
{
}

SEC(".struct_ops.link")
struct aws_bpf_ops template = {
	.new_anon = (void *)template_new_anon,
	.swapin = (void *)template_swapin,
	.swapin_mapped = (void *)template_swapin_mapped,
	.evict = (void *)template_evict,
	.refault = (void *)template_refault,
	.age = (void *)template_age,
	.first_reference = (void *)template_first_reference,
	.keep_active = (void *)template_keep_active,
	.inactive_ratio = (void *)template_inactive_ratio,
	.file_workingset = (void *)template_file_workingset,
	.state_init = (void *)template_state_init,
	/* AWS_CLOCK_NONE, _ANON (a clock of its own) or _SHARED (stock's) */
	.clock = AWS_CLOCK_ANON,
	/* bytes of state per (memcg, node): 0, or up to AWS_BPF_STATE_MAX
	 * (the first 64 are state->words[8], the whole aws_bpf_state_mem()) */
	.state_size = STATE_BYTES,
	/* 1 to 15 of [a-z0-9_], unique among the running policies */
	.name = "template",
	.description = "every member, to copy: detect, counting long refaults",
};
