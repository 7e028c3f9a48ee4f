// SPDX-License-Identifier: GPL-2.0
/*
 * aws_smoke - the smallest out-of-tree module: proves in the harness tests
 * that modules built against build/kernel-* load and unload in the guest.
 */
#include <linux/module.h>

static int __init aws_smoke_init(void)
{
	pr_info("aws_smoke: loaded\n");
	return 0;
}

static void __exit aws_smoke_exit(void)
{
	pr_info("aws_smoke: unloaded\n");
}

module_init(aws_smoke_init);
module_exit(aws_smoke_exit);
MODULE_DESCRIPTION("anon-workingset harness smoke-test module");
MODULE_LICENSE("GPL");
