// SPDX-License-Identifier: GPL-2.0
/*
 * aws_params.c - the policy and ratio module parameters
 *
 * Both are set at load (insmod anon_workingset.ko policy=detect ratio=1) or
 * at run time through /sys/module/anon_workingset/parameters/ (root only,
 * mode 0644).  A policy name must be one in the registry
 * (include/aws_policy_list.h); reading the parameter lists them all with
 * the running one in brackets.  Anything else -- an unknown word, an
 * out-of-range ratio, trailing garbage, an embedded NUL -- is refused with
 * -EINVAL and the running value stays.  A policy write while rmmod is
 * unloading the module fails with -EBUSY.
 *
 * A policy switch at run time drops all shadow entries from the swap
 * caches (aws_switch_global() in aws_switch.c): policies use different
 * clocks, and a shadow stamped with one clock means nothing under another;
 * dropping them costs one round of refault information.  Writes come with
 * the module's parameter lock held (kernel/params.c takes it), which also
 * orders them against load and unload.
 */
#include <linux/capability.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "anon_workingset.h"

/*
 * One rule for every path that changes a policy or a ratio (these
 * parameters, the cgroup files, a BPF policy's registration, the /proc
 * reset): CAP_SYS_ADMIN.  insmod's own arguments come before init, from
 * a task that could load any module.
 */
static bool aws_param_permitted(void)
{
	return !aws_live || capable(CAP_SYS_ADMIN);
}

static int aws_policy_set(const char *val, const struct kernel_param *kp)
{
	const struct aws_policy *new;
	unsigned int idx;

	if (!aws_param_permitted())
		return -EPERM;
	idx = aws_run_find(val, strnlen(val, PAGE_SIZE));
	if (idx == AWS_NO_POLICY) {
		aws_warn_unknown_policy(val, strnlen(val, PAGE_SIZE));
		return -EINVAL;
	}
	if (aws_exiting)
		return -EBUSY;	/* rmmod has begun; the hooks are still live */
	if (!aws_live) {
		/* insmod's arguments, before init: nothing to switch yet */
		aws_global = idx;
		return 0;
	}
	if (idx == aws_global)
		return 0;
	aws_switch_global(idx);
	new = aws_runs[idx].policy;
	atomic_long_inc(&aws_switches);
	pr_info("anon_workingset: policy %s (%s), %ld shadows dropped\n",
		new->name, new->description, atomic_long_read(&aws_last_sweep));
	return 0;
}

/* Every policy, the global one in brackets, like THP's "enabled" file. */
static int aws_policy_get(char *buffer, const struct kernel_param *kp)
{
	unsigned int cur = aws_global, i;
	int len = 0;

	if (cur == AWS_NO_POLICY)
		cur = aws_policy_index(aws_policy_default);
	for (i = 0; i < AWS_NR_RUNS; i++)
		if (aws_run_name(i))
			len += sysfs_emit_at(buffer, len,
					     i == cur ? "%s[%s]" : "%s%s",
					     i ? " " : "", aws_run_name(i));
	len += sysfs_emit_at(buffer, len, "\n");
	return len;
}

static const struct kernel_param_ops aws_policy_ops = {
	.set = aws_policy_set,
	.get = aws_policy_get,
};
module_param_cb(policy, &aws_policy_ops, NULL, 0644);
MODULE_PARM_DESC(policy,
		 "anon LRU policy of every cgroup without its own; reading lists them all, the running one in brackets");

static int aws_ratio_set(const char *val, const struct kernel_param *kp)
{
	unsigned int new;
	int ret;

	if (!aws_param_permitted())
		return -EPERM;
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
