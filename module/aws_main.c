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
 * This file owns the global state and the module life cycle.  Shadows in
 * the swap caches outlive any policy, so they are swept whenever the clock
 * that stamped them stops being the one in use: at load (stock shadows), at
 * every policy switch and at unload (our shadows).  Shadows always use the
 * stock layout with a real node id, so even an entry the sweep misses in a
 * race is decoded safely by whoever reads it; at worst its distance is
 * misjudged once.
 */
#include <linux/anon_ws_hooks.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/xarray.h>

#include "anon_workingset.h"

enum aws_policy aws_policy = AWS_POLICY_DETECT;
unsigned int aws_ratio = AWS_RATIO_AUTO;
struct aws_shadow_layout aws_layout;
bool aws_live;

void aws_sweep_shadows(void)
{
	anon_ws_clear_swap_shadows();
	atomic_long_inc(&aws_sweeps);
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
	ret = anon_ws_register(&aws_ops);
	if (ret) {
		pr_err("anon_workingset: another policy module is registered\n");
		goto out_stats;
	}
	aws_sweep_shadows();
	aws_live = true;
	pr_info("anon_workingset: policy %s, %u-bit eviction stamps, bucket order %u\n",
		aws_policy_name(aws_policy), aws_layout.eviction_bits,
		aws_layout.bucket_order);
	return 0;

out_stats:
	aws_stats_exit();
out_clock:
	aws_clock_exit();
	return ret;
}

static void __exit aws_exit(void)
{
	aws_stats_exit();
	anon_ws_unregister(&aws_ops);
	aws_sweep_shadows();
	aws_clock_exit();
	pr_info("anon_workingset: unloaded\n");
}

module_init(aws_init);
module_exit(aws_exit);
MODULE_DESCRIPTION("Workingset protection and detection for the anonymous LRU");
MODULE_LICENSE("GPL");
