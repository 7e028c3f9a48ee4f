// SPDX-License-Identifier: GPL-2.0
/*
 * aws_params.c - the policy and ratio module parameters
 *
 * Both are set at load (insmod anon_workingset.ko policy=detect ratio=1) or
 * at run time through /sys/module/anon_workingset/parameters/ (root only,
 * mode 0644).  Values are parsed by the policy core; anything else -- an
 * unknown word, an out-of-range number, trailing garbage, an embedded NUL
 * -- is refused with -EINVAL and the running value stays.
 *
 * A policy switch at run time drops all shadow entries from the swap
 * caches (aws_switch_policy() in aws_main.c): policies use different
 * clocks, and a shadow stamped with one clock means nothing under another;
 * dropping them costs one round of refault information.  Writes come with
 * the module's parameter lock held (kernel/params.c takes it), which also
 * orders them against load and unload.
 */
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "anon_workingset.h"

static int aws_policy_set(const char *val, const struct kernel_param *kp)
{
	enum aws_policy new;
	int ret;

	ret = aws_policy_parse(val, strnlen(val, PAGE_SIZE), &new);
	if (ret)
		return ret;
	if (new == READ_ONCE(aws_policy))
		return 0;
	if (!aws_live) {
		/* insmod's arguments, before init: nothing to switch yet */
		WRITE_ONCE(aws_policy, new);
		return 0;
	}
	aws_switch_policy(new);
	atomic_long_inc(&aws_switches);
	pr_info("anon_workingset: policy %s, %ld shadows dropped\n",
		aws_policy_name(new), atomic_long_read(&aws_last_sweep));
	return 0;
}

static int aws_policy_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", aws_policy_name(READ_ONCE(aws_policy)));
}

static const struct kernel_param_ops aws_policy_ops = {
	.set = aws_policy_set,
	.get = aws_policy_get,
};
module_param_cb(policy, &aws_policy_ops, NULL, 0644);
MODULE_PARM_DESC(policy,
		 "anon LRU policy: stock, baseline, protect, detect or upstream (default detect)");

static int aws_ratio_set(const char *val, const struct kernel_param *kp)
{
	unsigned int new;
	int ret;

	ret = aws_ratio_parse(val, strnlen(val, PAGE_SIZE), &new);
	if (ret)
		return ret;
	WRITE_ONCE(aws_ratio, new);
	return 0;
}

static int aws_ratio_get(char *buffer, const struct kernel_param *kp)
{
	unsigned int ratio = READ_ONCE(aws_ratio);

	if (ratio == AWS_RATIO_AUTO)
		return sysfs_emit(buffer, "auto\n");
	return sysfs_emit(buffer, "%u\n", ratio);
}

static const struct kernel_param_ops aws_ratio_ops = {
	.set = aws_ratio_set,
	.get = aws_ratio_get,
};
module_param_cb(ratio, &aws_ratio_ops, NULL, 0644);
MODULE_PARM_DESC(ratio,
		 "anon active:inactive target: auto (6.1 sqrt rule) or 1..1024 (seed: 1)");
