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
 * This file owns the global state, the module life cycle and policy
 * switches, global (aws_params.c) or of one cgroup (aws_cgroup.c).
 * Shadows in the swap caches outlive any policy, so they are swept
 * whenever the clock that stamped them stops being the one in use: at
 * load (stock shadows), at every policy switch and at unload (our
 * shadows).
 *
 * A switch must leave no refault judged with the wrong clock.  It first
 * raises aws_sweeping, in which every swap-in drops the shadow it found
 * instead of judging it, steps the epoch that evictions write into their
 * shadows' tag, then publishes the new policy and waits a grace period
 * (hooks run under RCU), so that every hook still working with the old
 * policy has finished.  The sweep (anon_ws_clear_swap_shadows()) then
 * removes every shadow left; evictions from then on stamp the new clock.
 * A swap-in that took its shadow out of the swap cache before the sweep
 * but judges it only after it -- preempted in between, which Debian's
 * preemptible RCU allows outside a read section -- is caught by the
 * kernel: the sweep moves the shadow generation, and the swap-in checks it
 * again in the read section that judges the shadow, before it asks us.  A
 * second grace period before aws_sweeping drops lets every judge that had
 * not seen the generation move finish while swap-ins still drop.  A shadow
 * of an earlier epoch that reaches a refault anyway is counted
 * (refaults_old_epoch) and not judged: the count is the test that the
 * protocol holds.
 *
 * Policy writes and load/unload are serialised by the module's parameter
 * lock, which sysfs writes already hold and cgroup file writes take.  Once
 * unload has begun (aws_exiting) policy writes fail with -EBUSY: the hooks
 * are still registered, and only a switch may change what they do.
 *
 * Private state and clocks are kept per memcg id, and a memcg id is
 * reused after its cgroup is gone.  aws_state_claim() notices a new owner
 * (by the cgroup's 64-bit id, never reused) and resets every policy's
 * state for it, so that a new cgroup does not inherit the counters of a
 * dead one.
 */
#include <linux/anon_ws_hooks.h>
#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "anon_workingset.h"
#define CREATE_TRACE_POINTS
#include "aws_trace.h"

/* One per registry entry (aws_policies[i]), for the life of the module. */
struct aws_run *aws_runs;
/*
 * The global policy, an index into aws_runs (parameter lock for writers);
 * AWS_NO_POLICY until insmod's arguments or init set it.
 */
unsigned int aws_global = AWS_NO_POLICY;
unsigned int aws_ratio = AWS_RATIO_AUTO;
struct aws_shadow_layout aws_layout;
/* Registered and past init: policy writes switch clocks (param lock). */
bool aws_live;
/* Unload has begun: policy writes are refused (param lock). */
bool aws_exiting;
/* A switch is in progress: swap-ins drop the shadows they find. */
bool aws_sweeping;
/* The switch epoch evictions tag their shadows with, 1..AWS_EPOCHS. */
unsigned int aws_epoch = 1;
/* The cgroup id whose memcg id owns each slot of the private state. */
static u64 *aws_state_owner;

unsigned int aws_policy_index(const struct aws_policy *p)
{
	unsigned int i;

	for (i = 0; i < aws_nr_policies && aws_policies[i] != p; i++)
		;
	return i;
}

/* Every policy's private state: state_size bytes per memcg id and node. */
static int aws_runs_alloc(void)
{
	size_t slots = (size_t)(MEM_CGROUP_ID_MAX + 1) * nr_node_ids, j;
	const struct aws_policy *p;
	unsigned int i;

	aws_runs = kcalloc(aws_nr_policies, sizeof(*aws_runs), GFP_KERNEL);
	if (!aws_runs)
		return -ENOMEM;
	aws_state_owner = vzalloc(array_size(MEM_CGROUP_ID_MAX + 1,
					     sizeof(*aws_state_owner)));
	if (!aws_state_owner)
		return -ENOMEM;
	for (i = 0; i < aws_nr_policies; i++) {
		p = aws_policies[i];
		aws_runs[i].policy = p;
		aws_runs[i].stock = aws_policy_is_stock(p);
		if (!p->state_size)
			continue;
		aws_runs[i].state = vzalloc(array_size(slots, p->state_size));
		if (!aws_runs[i].state)
			return -ENOMEM;
		for (j = 0; p->state_init && j < slots; j++)
			p->state_init(aws_runs[i].state + j * p->state_size);
	}
	return 0;
}

static void aws_runs_free(void)
{
	unsigned int i;

	for (i = 0; aws_runs && i < aws_nr_policies; i++)
		vfree(aws_runs[i].state);
	kfree(aws_runs);
	aws_runs = NULL;
	vfree(aws_state_owner);
	aws_state_owner = NULL;
}

/*
 * The hooks are about to use @memcg's private state: if its memcg id last
 * belonged to another cgroup, reset every policy's state of that id, on
 * every node.  Hooks on other CPUs may update the state meanwhile; the
 * counters are estimates, and a torn reset only shortens their memory.
 */
void aws_state_claim(struct mem_cgroup *memcg)
{
	unsigned short id;
	u64 owner, seen;
	unsigned int i;
	size_t j;
	int nid;

	if (!memcg || !aws_state_owner)
		return;
	id = mem_cgroup_id(memcg);
	owner = cgroup_id(memcg->css.cgroup);
	seen = READ_ONCE(aws_state_owner[id]);
	if (likely(seen == owner))
		return;
	if (cmpxchg64(&aws_state_owner[id], seen, owner) != seen)
		return;		/* another CPU claims it */
	if (!seen)
		return;		/* first use since load: state is fresh */
	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_runs[i].policy;

		if (!aws_runs[i].state)
			continue;
		for (nid = 0; nid < nr_node_ids; nid++) {
			j = (size_t)id * nr_node_ids + nid;
			memset(aws_runs[i].state + j * p->state_size, 0,
			       p->state_size);
			if (p->state_init)
				p->state_init(aws_runs[i].state +
					      j * p->state_size);
		}
	}
	aws_count(AWS_STATE_RESETS, 1);
}

static unsigned long aws_sweep_shadows(void)
{
	unsigned long cleared = anon_ws_clear_swap_shadows();

	aws_count(AWS_SHADOWS_SWEPT, cleared);
	atomic_long_set(&aws_last_sweep, cleared);
	atomic_long_inc(&aws_sweeps);
	return cleared;
}

/*
 * A switch, with the parameter lock held: aws_switch_begin(), publish the
 * change (global policy or a cgroup's), aws_switch_end(), which returns
 * the number of shadows swept.  See above.
 */
void aws_switch_begin(void)
{
	WRITE_ONCE(aws_sweeping, true);
	WRITE_ONCE(aws_epoch, aws_epoch % AWS_EPOCHS + 1);
	/* Pairs with aws_switching(): who sees the change sees the flag. */
	smp_wmb();
}

unsigned long aws_switch_end(void)
{
	unsigned long swept;

	synchronize_rcu();
	swept = aws_sweep_shadows();
	synchronize_rcu();
	WRITE_ONCE(aws_sweeping, false);
	return swept;
}

void aws_switch_global(unsigned int policy)
{
	unsigned long swept;

	aws_switch_begin();
	WRITE_ONCE(aws_global, policy);
	swept = aws_switch_end();
	trace_aws_switch("global", 0, aws_policies[policy]->name, swept);
}

/* The stock pack_shadow() layout of this kernel, with its bucket_order. */
static int __init aws_layout_setup(void)
{
	int ret;

	BUILD_BUG_ON(AWS_TAG_BITS > BITS_PER_LONG);
	if (aws_nr_policies >= 1U << AWS_TAG_POLICY_BITS)
		return -EINVAL;
	ret = aws_layout_init(&aws_layout, BITS_PER_XA_VALUE, NODES_SHIFT,
			      MEM_CGROUP_ID_SHIFT, 0) ?:
	      aws_layout_reserve_tag(&aws_layout, AWS_TAG_BITS);
	if (ret)
		return ret;
	return aws_layout_init(&aws_layout, BITS_PER_XA_VALUE, NODES_SHIFT,
			       MEM_CGROUP_ID_SHIFT,
			       aws_bucket_order(totalram_pages(),
						aws_layout.eviction_bits)) ?:
	       aws_layout_reserve_tag(&aws_layout, AWS_TAG_BITS);
}

/*
 * Hand over to the stock code: stamp like stock (the stock policy declines
 * every hook, in every cgroup) and drop our shadows while the hooks still
 * guard swap-ins, then unregister.
 */
static void aws_exit_policies(void)
{
	unsigned long swept;

	kernel_param_lock(THIS_MODULE);
	aws_live = false;
	aws_exiting = true;
	aws_switch_begin();
	WRITE_ONCE(aws_global, aws_policy_index(&aws_policy_stock));
	aws_cgroup_clear();
	swept = aws_switch_end();
	trace_aws_switch("unload", 0, aws_policy_stock.name, swept);
	kernel_param_unlock(THIS_MODULE);
	anon_ws_unregister(&aws_ops);
}

static int __init aws_init(void)
{
	unsigned int policy = aws_global;
	int ret;

	if (policy == AWS_NO_POLICY)
		policy = aws_policy_index(aws_policy_default);
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
	if (ret) {
		pr_err("anon_workingset: cannot add the memory cgroup files\n");
		aws_cgroup_exit();
		aws_exit_policies();
		goto out_stats;
	}
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
