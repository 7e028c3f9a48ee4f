/* SPDX-License-Identifier: GPL-2.0 */
/*
 * anon_workingset.h - what the parts of anon_workingset.ko share
 *
 * The module is split by concern: aws_main.c loads and unloads it and owns
 * the policies' private state, aws_switch.c the global policy and ratio
 * and the policy switches, aws_params.c validates and applies the policy
 * and ratio parameters, aws_cgroup.c the same per memory cgroup,
 * aws_clock.c keeps the private anon non-resident clocks, aws_table.c
 * the per-memcg-id tables that state and clocks live in,
 * aws_hooks.c implements the hook table by asking the running policy (one
 * file each in policies/, interface in include/aws_policy.h), and
 * aws_stats.c counts what the hooks do and shows it in
 * /proc/anon_workingset; on 6.12, aws_bpf.c lets BPF programs be policies.
 */
#ifndef _ANON_WORKINGSET_H
#define _ANON_WORKINGSET_H

#include <linux/anon_ws_hooks.h>
#include <linux/percpu.h>

#include "aws_compat.h"
#include "aws_policy.h"

struct lruvec;
struct mem_cgroup;

/* aws_bpf.c: BPF policies run in slots after the registry's policies. */
#ifdef AWS_BPF_POLICIES
#define AWS_BPF_SLOTS	4
int aws_bpf_init(void);
void aws_bpf_exit(void);
/* the kfuncs BPF policies call (global for their BTF, called by nothing here) */
u64 aws_bpf_clock(u32 memcg_id, u32 nid);
void aws_bpf_error(u32 code);
struct aws_bpf_state;
u8 *aws_bpf_state_mem(struct aws_bpf_state *state, const size_t rdwr_buf_size);
#else
#define AWS_BPF_SLOTS	0
static inline int aws_bpf_init(void)
{
	return 0;
}

static inline void aws_bpf_exit(void)
{
}
#endif
extern atomic_long_t aws_bpf_ejections;	/* aws_stats.c shows it */

/* aws_table.c: an element per (memcg id, node), allocated on first use */
struct aws_table {
	void **chunks;		/* NULL: no table */
	unsigned int nr_chunks;
	unsigned int elem_size;
	unsigned int chunk_shift;	/* log2 of memcg ids per chunk */
	void (*init)(void *elem);
};

extern atomic_long_t aws_table_bytes, aws_table_failures;
int aws_table_init(struct aws_table *t, unsigned int elem_size,
		   void (*init)(void *elem));
void **aws_table_detach(struct aws_table *t);
void aws_table_free_chunks(struct aws_table *t, void **chunks);
void aws_table_free(struct aws_table *t);
void *aws_table_get(struct aws_table *t, unsigned int id, int nid);
void *aws_table_peek(struct aws_table *t, unsigned int id, int nid);

static inline bool aws_table_present(const struct aws_table *t)
{
	return READ_ONCE(t->chunks);
}

/* aws_main.c */
/*
 * A policy that can run and its private state, for hooks: the registry's
 * policies (aws_runs[i] runs aws_policies[i]), then AWS_BPF_SLOTS slots
 * that a BPF policy fills while it is attached.
 */
struct aws_run {
	const struct aws_policy *policy;
	struct aws_table state;	/* state_size bytes per memcg id and node */
	struct aws_table clock;	/* AWS_CLOCK_ANON: an atomic_long_t each */
	bool stock;		/* the policy declines every decision */
	bool live;		/* may be selected (a BPF slot: attached) */
};

#define AWS_NR_RUNS	(aws_nr_policies + AWS_BPF_SLOTS)

/*
 * The tag in a policy shadow's top bits (include/aws_core.h): the kind bit
 * (1), the switch epoch it was stamped in (1..7, one step per switch) and
 * the index + 1 of the policy that stamped it.
 */
#define AWS_TAG_POLICY_BITS	4
#define AWS_TAG_EPOCH_BITS	3
#define AWS_TAG_BITS		(1 + AWS_TAG_EPOCH_BITS + AWS_TAG_POLICY_BITS)
#define AWS_TAG_KIND		(1UL << (AWS_TAG_BITS - 1))
#define AWS_EPOCHS		((1U << AWS_TAG_EPOCH_BITS) - 1)

extern struct aws_run *aws_runs;
/*
 * The shadow layouts (include/aws_core.h): policy shadows, stock shadows as
 * the module stores them (one tag bit, the kind, 0) and as the stock code
 * reads them (no tag), with the stock bucket_order.
 */
extern struct aws_shadow_layout aws_layout, aws_stock_layout, aws_raw_layout;
void aws_state_claim(struct mem_cgroup *memcg);

/* aws_switch.c */
#define AWS_NO_POLICY	UINT_MAX
extern unsigned int aws_global;
extern unsigned int aws_global_prev;
extern unsigned int aws_ratio;
extern bool aws_live;
extern bool aws_exiting;
extern bool aws_sweeping;
extern bool aws_handed_over;
extern unsigned int aws_epoch;
unsigned int aws_policy_index(const struct aws_policy *p);
unsigned int aws_run_find(const char *buf, size_t len);
const char *aws_run_name(unsigned int i);
void aws_warn_unknown_policy(const char *buf, size_t len);
/*
 * What a switch sweeps (aws_switch.c): every shadow (@all), or those run
 * @stamper - 1 stamped on the lruvecs of @memcgs (NULL: of any memcg).
 */
struct aws_scope {
	struct rcu_head rcu;
	bool all;
	unsigned int stamper;
	unsigned long *memcgs;
};

extern struct aws_scope *aws_sweep_scope;
bool aws_scope_match(const struct aws_scope *sc, unsigned long value);
bool aws_swept_since(unsigned int epoch, unsigned int now,
		     unsigned long value);
void aws_switch_begin(struct mem_cgroup *memcg, unsigned int old);
unsigned long aws_switch_end(void);
void aws_switch_exit(void);
void aws_switch_global(unsigned int policy);

/* aws_cgroup.c */
extern atomic_t aws_cg_entries;	/* cgroups with a setting of their own */
int aws_cgroup_init(void);
void aws_cgroup_exit(void);
void aws_cgroup_clear(void);
void aws_cgroup_forget(unsigned int policy);
int aws_cgroup_check_id(u64 id);
int aws_cgroup_select_run(u64 id, unsigned int run);
void aws_cgroup_lookup(struct mem_cgroup *memcg, unsigned int *policy,
		       unsigned int *ratio);

/* aws_hooks.c */
extern const struct anon_ws_ops aws_ops;

/* aws_clock.c */
int aws_clock_init(struct aws_run *runs, unsigned int nr);
void aws_clock_exit(struct aws_run *runs, unsigned int nr);
unsigned long aws_clock_read(struct aws_run *r, struct lruvec *lruvec);
void aws_clock_age(struct aws_run *r, struct lruvec *lruvec,
		   unsigned long nr_pages);
unsigned long aws_anon_age(struct aws_run *r, int nid);

/* aws_stats.c */
enum aws_counter {
	AWS_PLACED_ACTIVE,	/* new anon folios started active */
	AWS_PLACED_INACTIVE,	/* new anon folios started inactive */
	AWS_SWAPINS,		/* swap-ins seen (pages) */
	AWS_SWAPINS_MARKED,	/* swap-ins marked PG_workingset (pages) */
	AWS_EVICTIONS,		/* anon evictions that left a shadow (pages) */
	AWS_EVICTIONS_NOSHADOW,	/* anon evictions without shadow (pages) */
	AWS_REFAULTS,		/* swap-ins that found our shadow (pages) */
	AWS_REFAULTS_STALE,	/* shadow of a dead memcg or bad node */
	AWS_ACTIVATIONS,	/* refaults within the workingset (pages) */
	AWS_RESTORES,		/* activations of former workingset pages */
	AWS_REF_ACTIVATIONS,	/* first-reference activations in reclaim */
	AWS_SWAPIN_ACTIVATIONS,	/* activations of faulted swap-in folios */
	AWS_SHADOWS_SWEPT,	/* shadow entries dropped by sweeps */
	AWS_REFAULTS_DROPPED,	/* swap-ins whose shadow a switch voided */
	AWS_FILE_REFAULTS_JUDGED,	/* file refaults sized by the policy */
	AWS_QUIET_ACTIVATIONS,	/* ... of them not in WORKINGSET_ACTIVATE */
	AWS_ACTIVE_KEPT,	/* referenced active folios kept active */
	AWS_REFAULTS_OLD_EPOCH,	/* shadows of an earlier switch epoch */
	AWS_REFAULTS_STAMPER,	/* judged by a policy not the folio's */
	AWS_STATE_RESETS,	/* private state reset for a new memcg */
	AWS_STOCK_REFAULTS,	/* stock shadows handed back to stock (pages) */
	AWS_STOCK_REFAULTS_FAR,	/* ... of them farther than all of memory */
	AWS_NR_COUNTERS
};

struct aws_counters {
	unsigned long count[AWS_NR_COUNTERS];
	unsigned long hist[AWS_HIST_BUCKETS];
};
DECLARE_PER_CPU(struct aws_counters, aws_counters);

static inline void aws_count(enum aws_counter c, unsigned long nr)
{
	this_cpu_add(aws_counters.count[c], nr);
}

static inline void aws_count_distance(unsigned long distance,
				      unsigned long workingset_size)
{
	this_cpu_inc(aws_counters.hist[aws_hist_bucket(distance,
						       workingset_size)]);
}

extern atomic_long_t aws_sweeps, aws_switches, aws_last_sweep, aws_dying_writes;
int aws_stats_init(void);
void aws_stats_exit(void);

#endif /* _ANON_WORKINGSET_H */
