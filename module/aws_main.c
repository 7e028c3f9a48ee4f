// SPDX-License-Identifier: GPL-2.0
/*
 * anon_workingset - workingset protection and detection for the anon LRU
 *
 * A loadable reimplementation of Joonsoo Kim's 2020 series "workingset
 * protection/detection on the anonymous LRU list" on top of the hooks of
 * CONFIG_ANON_WS_HOOKS, switchable at run time between the pre-2020
 * behaviour, the seed's two steps, the 6.1 algorithm and stock 6.1 (see
 * the policy table in include/anon_ws_policy.h).
 *
 * This file owns the global state, the module life cycle and policy
 * switches.  Shadows in the swap caches outlive any policy, so they are
 * swept whenever the clock that stamped them stops being the one in use: at
 * load (stock shadows), at every policy switch and at unload (our shadows).
 *
 * A switch must leave no refault judged with the wrong clock.  It first
 * raises aws_sweeping, in which every swap-in drops the shadow it found
 * instead of judging it, then publishes the new policy and waits a grace
 * period (hooks run under RCU), so that every hook still working with the
 * old policy has finished.  The sweep then removes every shadow left;
 * evictions from then on stamp the new clock.  A second grace period before
 * aws_sweeping drops covers a swap-in that took its shadow out of the swap
 * cache just before the sweep but calls the hook only after it: on a kernel
 * without preemption (our guests') that code cannot be preempted, so the
 * grace period waits for it.  Policy writes and load/unload are serialised
 * by the module's parameter lock, which sysfs writes already hold.
 */
#include <linux/anon_ws_hooks.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>

#include "anon_workingset.h"

enum aws_policy aws_policy = AWS_POLICY_DETECT;
unsigned int aws_ratio = AWS_RATIO_AUTO;
struct aws_shadow_layout aws_layout;
/* Registered and past init: policy writes switch clocks (param lock). */
bool aws_live;
/* A switch is in progress: swap-ins drop the shadows they find. */
bool aws_sweeping;

static void aws_sweep_shadows(void)
{
	unsigned long cleared = anon_ws_clear_swap_shadows();

	aws_count(AWS_SHADOWS_SWEPT, cleared);
	atomic_long_set(&aws_last_sweep, cleared);
	atomic_long_inc(&aws_sweeps);
}

/* Called with the parameter lock held, see above. */
void aws_switch_policy(enum aws_policy new)
{
	WRITE_ONCE(aws_sweeping, true);
	/* Pairs with aws_switching(): who sees the policy sees the flag. */
	smp_wmb();
	WRITE_ONCE(aws_policy, new);
	synchronize_rcu();
	aws_sweep_shadows();
	synchronize_rcu();
	WRITE_ONCE(aws_sweeping, false);
}

/* The stock pack_shadow() layout of this kernel, with its bucket_order. */
static int __init aws_layout_setup(void)
{
	int ret;

	ret = aws_layout_init(&aws_layout, BITS_PER_XA_VALUE, NODES_SHIFT,
			      MEM_CGROUP_ID_SHIFT, 0);
	if (ret)
		return ret;
	return aws_layout_init(&aws_layout, BITS_PER_XA_VALUE, NODES_SHIFT,
			       MEM_CGROUP_ID_SHIFT,
			       aws_bucket_order(totalram_pages(),
						aws_layout.eviction_bits));
}

static int __init aws_init(void)
{
	int ret;

	ret = aws_layout_setup();
	if (ret)
		return ret;
	ret = aws_clock_init();
	if (ret)
		return ret;
	ret = aws_stats_init();
	if (ret)
		goto out_clock;
	kernel_param_lock(THIS_MODULE);
	/* Stock shadows may be read only once they are all gone. */
	WRITE_ONCE(aws_sweeping, true);
	ret = anon_ws_register(&aws_ops);
	if (ret) {
		kernel_param_unlock(THIS_MODULE);
		pr_err("anon_workingset: another policy module is registered\n");
		goto out_stats;
	}
	aws_switch_policy(aws_policy);
	aws_live = true;
	kernel_param_unlock(THIS_MODULE);
	pr_info("anon_workingset: policy %s, %u-bit eviction stamps, bucket order %u, %ld stock shadows dropped\n",
		aws_policy_name(aws_policy), aws_layout.eviction_bits,
		aws_layout.bucket_order, atomic_long_read(&aws_last_sweep));
	return 0;

out_stats:
	aws_stats_exit();
out_clock:
	aws_clock_exit();
	return ret;
}

/*
 * Hand over to the stock code: stamp like stock (the stock policy declines
 * every hook) and drop our shadows while the hooks still guard swap-ins.
 */
static void __exit aws_exit(void)
{
	kernel_param_lock(THIS_MODULE);
	aws_live = false;
	aws_switch_policy(AWS_POLICY_STOCK);
	kernel_param_unlock(THIS_MODULE);
	aws_stats_exit();
	anon_ws_unregister(&aws_ops);
	aws_clock_exit();
	pr_info("anon_workingset: unloaded, %ld shadows dropped\n",
		atomic_long_read(&aws_last_sweep));
}

module_init(aws_init);
module_exit(aws_exit);
MODULE_DESCRIPTION("Workingset protection and detection for the anonymous LRU");
MODULE_LICENSE("GPL");
