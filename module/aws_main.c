// SPDX-License-Identifier: GPL-2.0
/*
 * anon_workingset - workingset protection and detection for the anon LRU
 *
 * A loadable reimplementation of Joonsoo Kim's 2020 series "workingset
 * protection/detection on the anonymous LRU list" on top of the hooks of
 * CONFIG_ANON_WS_HOOKS, switchable at run time between the pre-2020
 * behaviour, the seed's two steps, the 6.1 algorithm and stock 6.1 (one
 * file each in policies/, chosen globally or per memory cgroup).
 *
 * This file owns the module life cycle and what the hooks keep for every
 * policy: its private state and clocks (struct aws_run) and the shadow
 * layout.  The global settings and the policy switches, global
 * (aws_params.c) or of one cgroup (aws_cgroup.c), are aws_switch.c's.
 * Load and unload are switches too: load sweeps the stock shadows before
 * the first policy may read any, unload hands over to stock and sweeps
 * ours, both under the module's parameter lock, which orders them against
 * policy writes.
 *
 * Private state and clocks are kept per memcg id (aws_table.c allocates
 * them as ids get used), and a memcg id is reused after its cgroup is
 * gone.  aws_state_claim() notices a new owner (by the cgroup's 64-bit
 * id, never reused) and resets every policy's state for it, so that a
 * new cgroup does not inherit the counters of a dead one.
 */
#include <linux/anon_ws_hooks.h>
#include <linux/cgroup.h>
#include <linux/delay.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "anon_workingset.h"
#define CREATE_TRACE_POINTS
#include "aws_trace.h"

/*
 * One per registry entry (aws_policies[i]) and BPF slot, for the life of
 * the module.
 */
struct aws_run *aws_runs;
struct aws_shadow_layout aws_layout, aws_stock_layout, aws_raw_layout;
/* The cgroup id (u64) that owns each memcg id's private state. */
static struct aws_table aws_state_owner;

/* Every policy's private state: state_size bytes per memcg id and node. */
static int aws_runs_alloc(void)
{
	const struct aws_policy *p;
	unsigned int i;
	int ret;

	aws_runs = kcalloc(AWS_NR_RUNS, sizeof(*aws_runs), GFP_KERNEL);
	if (!aws_runs)
		return -ENOMEM;
	ret = aws_table_init(&aws_state_owner, sizeof(u64), NULL);
	if (ret)
		return ret;
	for (i = 0; i < aws_nr_policies; i++) {
		p = aws_policies[i];
		aws_runs[i].policy = p;
		aws_runs[i].stock = aws_policy_is_stock(p);
		aws_runs[i].live = true;
		if (!p->state_size)
			continue;
		ret = aws_table_init(&aws_runs[i].state, p->state_size,
				     p->state_init);
		if (ret)
			return ret;
	}
	return 0;
}

static void aws_runs_free(void)
{
	unsigned int i;

	for (i = 0; aws_runs && i < aws_nr_policies; i++)
		aws_table_free(&aws_runs[i].state);
	kfree(aws_runs);
	aws_runs = NULL;
	aws_table_free(&aws_state_owner);
}

/* Give one slot @state of @r's private state its initial value. */
static void aws_state_reset(struct aws_run *r, void *state)
{
	memset(state, 0, r->policy->state_size);
	if (r->policy->state_init)
		r->policy->state_init(state);
}

/*
 * The hooks are about to use @memcg's private state: if its memcg id last
 * belonged to another cgroup, reset every policy's state of that id, on
 * every node (not id 0's, the offline memcgs' shared scratch).  Hooks on
 * other CPUs may update the state meanwhile; the counters are estimates,
 * and a torn reset only shortens their memory.
 */
void aws_state_claim(struct mem_cgroup *memcg)
{
	unsigned short id;
	u64 owner, seen, *slot;
	unsigned int i;
	void *state;
	int nid;

	if (!memcg)
		return;
	id = mem_cgroup_id(memcg);
	/*
	 * Every offline memcg whose pages are still reclaimed has id 0: they
	 * share slot 0 as scratch, which would otherwise be reset each time
	 * reclaim moved from one of them to another.
	 */
	if (!id)
		return;
	slot = aws_table_get(&aws_state_owner, id, 0);
	if (!slot)
		return;		/* counted; the state may be a dead cgroup's */
	owner = cgroup_id(memcg->css.cgroup);
	seen = READ_ONCE(*slot);
	if (likely(seen == owner))
		return;
	if (cmpxchg64(slot, seen, owner) != seen)
		return;		/* another CPU claims it */
	if (!seen)
		return;		/* first use since load: state is fresh */
	for (i = 0; i < AWS_NR_RUNS; i++) {
		struct aws_run *r = &aws_runs[i];

		/* Pairs with aws_bpf_reg(): a live run is a filled one. */
		if (!smp_load_acquire(&r->live))
			continue;
		/* a BPF slot's state goes away after a grace period */
		for (nid = 0; nid < nr_node_ids; nid++) {
			state = aws_table_peek(&r->state, id, nid);
			if (state)
				aws_state_reset(r, state);
		}
	}
	aws_count(AWS_STATE_RESETS, 1);
}

/*
 * The stock pack_shadow() layout of this kernel, with its bucket_order
 * (workingset_init()'s), and the module's two kinds of shadow in it.
 */
static int __init aws_layout_setup(void)
{
	unsigned int order;
	int ret;

	BUILD_BUG_ON(AWS_TAG_BITS > BITS_PER_LONG);
	if (AWS_NR_RUNS >= 1U << AWS_TAG_POLICY_BITS)
		return -EINVAL;
	ret = aws_layout_init(&aws_raw_layout, BITS_PER_XA_VALUE, NODES_SHIFT,
			      MEM_CGROUP_ID_SHIFT, 0);
	if (ret)
		return ret;
	order = aws_bucket_order(totalram_pages(), aws_raw_layout.eviction_bits);
	ret = aws_layout_init(&aws_raw_layout, BITS_PER_XA_VALUE, NODES_SHIFT,
			      MEM_CGROUP_ID_SHIFT, order);
	if (ret)
		return ret;
	aws_stock_layout = aws_raw_layout;
	ret = aws_layout_reserve_tag(&aws_stock_layout, 1);
	if (ret)
		return ret;
	/* A policy's stamp is shorter: its buckets cover memory on their own. */
	aws_layout = aws_raw_layout;
	ret = aws_layout_reserve_tag(&aws_layout, AWS_TAG_BITS);
	if (ret)
		return ret;
	order = aws_bucket_order(totalram_pages(), aws_layout.eviction_bits);
	return aws_layout_init(&aws_layout, BITS_PER_XA_VALUE, NODES_SHIFT,
			       MEM_CGROUP_ID_SHIFT, order) ?:
	       aws_layout_reserve_tag(&aws_layout, AWS_TAG_BITS);
}

/*
 * Hand over to the stock code: in one switch, stop stamping (the stock
 * code stamps its own shadows again, the stock policy declines every
 * other hook, in every cgroup) and drop every shadow we stamped while the
 * hooks still guard swap-ins, then unregister.
 */
#ifdef CONFIG_ANON_WS_HOOKS_DEBUG
/* Widens the window in which policy writes meet an unload, for tests. */
static unsigned int exit_delay_ms;
module_param(exit_delay_ms, uint, 0644);
MODULE_PARM_DESC(exit_delay_ms,
		 "sleep this long in rmmod between refusing policy writes and unregistering");
#endif

static void aws_exit_policies(void)
{
	unsigned long swept;

	kernel_param_lock(THIS_MODULE);
	aws_live = false;
	aws_exiting = true;
	aws_switch_begin(NULL, AWS_NO_POLICY);
	WRITE_ONCE(aws_global, aws_policy_index(&aws_policy_stock));
	aws_cgroup_clear();
	WRITE_ONCE(aws_handed_over, true);
	swept = aws_switch_end();
	trace_aws_switch("unload", 0, aws_policy_stock.name, swept);
	kernel_param_unlock(THIS_MODULE);
#ifdef CONFIG_ANON_WS_HOOKS_DEBUG
	if (READ_ONCE(exit_delay_ms))
		msleep(READ_ONCE(exit_delay_ms));
#endif
	anon_ws_unregister(&aws_ops);
	aws_switch_exit();
}

static int __init aws_init(void)
{
	unsigned int policy;
	int ret;

	ret = aws_layout_setup();
	if (ret)
		return ret;
	ret = aws_runs_alloc();
	if (ret)
		goto out_runs;
	ret = aws_clock_init(aws_runs, aws_nr_policies);
	if (ret)
		goto out_clock;
	ret = aws_stats_init();
	if (ret)
		goto out_clock;
	kernel_param_lock(THIS_MODULE);
	/* insmod's argument, or a write to the parameter since */
	policy = aws_global;
	if (policy == AWS_NO_POLICY)
		policy = aws_policy_index(aws_policy_default);
	/* Until the switch below, every hook declines as stock does. */
	aws_global = aws_policy_index(&aws_policy_stock);
	/* Stock shadows may be read only once they are all gone. */
	WRITE_ONCE(aws_sweeping, true);
	ret = anon_ws_register(&aws_ops);
	if (ret) {
		kernel_param_unlock(THIS_MODULE);
		pr_err("anon_workingset: another policy module is registered\n");
		goto out_stats;
	}
	aws_switch_global(policy);
	aws_live = true;
	kernel_param_unlock(THIS_MODULE);
	ret = aws_cgroup_init();
	if (ret)
		pr_err("anon_workingset: cannot add the memory cgroup files\n");
	else
		ret = aws_bpf_init();
	if (ret) {
		aws_cgroup_exit();
		aws_exit_policies();
		goto out_stats;
	}
	if (!anon_ws_classic_lru())
		pr_warn("anon_workingset: MGLRU is enabled: every policy is inert until it is disabled (echo n >/sys/kernel/mm/lru_gen/enabled); /proc/anon_workingset shows hooks_live 0\n");
	pr_info("anon_workingset: policy %s (%s), %u-bit eviction stamps, bucket order %u, %ld stock shadows dropped\n",
		aws_policies[policy]->name, aws_policies[policy]->description,
		aws_layout.eviction_bits,
		aws_layout.bucket_order, atomic_long_read(&aws_last_sweep));
	return 0;

out_stats:
	aws_stats_exit();
out_clock:
	aws_clock_exit(aws_runs, aws_nr_policies);
out_runs:
	aws_runs_free();
	return ret;
}

static void __exit aws_exit(void)
{
	/* No ejection of a BPF policy runs after this. */
	aws_bpf_exit();
	/* No cgroup write can start after this. */
	aws_cgroup_exit();
	aws_exit_policies();
	aws_stats_exit();
	aws_clock_exit(aws_runs, aws_nr_policies);
	aws_runs_free();
	pr_info("anon_workingset: unloaded, %ld shadows dropped\n",
		atomic_long_read(&aws_last_sweep));
}

module_init(aws_init);
module_exit(aws_exit);
MODULE_DESCRIPTION("Workingset protection and detection for the anonymous LRU");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(ANON_WS);
