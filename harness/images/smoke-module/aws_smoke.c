// SPDX-License-Identifier: GPL-2.0
/*
 * aws_smoke - the smallest out-of-tree module: proves in the harness tests
 * that modules built against build/kernel-* load and unload in the guest.
 *
 * It also serves the harness's negative tests, which must see their guest
 * reported as broken: warn=1 fires a WARN_ON() at load, stall_secs=N spins
 * at load for N seconds with preemption disabled (interrupts on), so that
 * RCU reports a self-detected stall once its stall timeout has passed.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/types.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "fire a WARN_ON() at load (harness negative test)");

static unsigned int stall_secs;
module_param(stall_secs, uint, 0444);
MODULE_PARM_DESC(stall_secs,
		 "spin this many seconds (at most 60) at load with preemption off (harness negative test)");

struct aws_smoke_cb {
	struct rcu_head rcu;
};

static void aws_smoke_free(struct rcu_head *head)
{
	kfree(container_of(head, struct aws_smoke_cb, rcu));
}

static void aws_smoke_stall(unsigned int secs)
{
	struct aws_smoke_cb *cb = kmalloc(sizeof(*cb), GFP_KERNEL);
	unsigned long end;

	preempt_disable();
	/*
	 * Queue a callback from this CPU so that a grace period is wanted
	 * while this CPU cannot pass through a quiescent state.
	 */
	if (cb)
		call_rcu(&cb->rcu, aws_smoke_free);
	end = jiffies + secs * HZ;
	while (time_before(jiffies, end))
		cpu_relax();
	preempt_enable();
}

static int __init aws_smoke_init(void)
{
	pr_info("aws_smoke: loaded\n");
	WARN_ON(warn);
	if (stall_secs)
		aws_smoke_stall(min(stall_secs, 60U));
	return 0;
}

static void __exit aws_smoke_exit(void)
{
	rcu_barrier();		/* aws_smoke_free() must not outlive us */
	pr_info("aws_smoke: unloaded\n");
}

module_init(aws_smoke_init);
module_exit(aws_smoke_exit);
MODULE_DESCRIPTION("anon-workingset harness smoke-test module");
MODULE_LICENSE("GPL");
