// SPDX-License-Identifier: GPL-2.0
/*
 * aws_stats.c - counters and /proc/anon_workingset
 *
 * Hooks count into per-CPU counters (this_cpu ops: safe from any context,
 * no locks).  /proc/anon_workingset sums them into a stable, line-oriented
 * "key value" format in the style of /proc/vmstat; the keys are documented
 * in docs/proc-anon_workingset.md and only ever get added, never renamed.
 *
 * Refault distances say a lot about another tenant's memory use, so the file
 * is readable by root only (mode 0600).  Writing "reset" zeroes the counters
 * (needs CAP_SYS_ADMIN as well); any other write fails with -EINVAL.
 * Hooks never stop counting, so a reset does not write to the per-CPU
 * counters (it would tear values other CPUs are adding to): it records
 * their sums as the new zero, and readers show the difference.  Each
 * per-CPU counter only grows, so a later sum is never below the base.
 */
#include <linux/capability.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "anon_workingset.h"

DEFINE_PER_CPU(struct aws_counters, aws_counters);
atomic_long_t aws_sweeps, aws_switches, aws_last_sweep, aws_dying_writes;
/* BPF policies detached for a callback over budget (aws_bpf.c; 6.1: 0) */
atomic_long_t aws_bpf_ejections;
/* The sums at the last reset, under aws_base_lock. */
static struct aws_counters aws_base;
static DEFINE_MUTEX(aws_base_lock);

static const char * const aws_counter_names[AWS_NR_COUNTERS] = {
	[AWS_PLACED_ACTIVE] = "placed_active",
	[AWS_PLACED_INACTIVE] = "placed_inactive",
	[AWS_SWAPINS] = "swapins",
	[AWS_SWAPINS_MARKED] = "swapins_workingset",
	[AWS_EVICTIONS] = "evictions",
	[AWS_EVICTIONS_NOSHADOW] = "evictions_noshadow",
	[AWS_REFAULTS] = "refaults",
	[AWS_REFAULTS_STALE] = "refaults_stale",
	[AWS_ACTIVATIONS] = "activations",
	[AWS_RESTORES] = "restores",
	[AWS_REF_ACTIVATIONS] = "ref_activations",
	[AWS_SWAPIN_ACTIVATIONS] = "swapin_activations",
	[AWS_SHADOWS_SWEPT] = "shadows_swept",
	[AWS_REFAULTS_DROPPED] = "refaults_dropped",
	[AWS_FILE_REFAULTS_JUDGED] = "file_refaults_judged",
	[AWS_QUIET_ACTIVATIONS] = "quiet_activations",
	[AWS_ACTIVE_KEPT] = "active_kept",
	[AWS_REFAULTS_OLD_EPOCH] = "refaults_old_epoch",
	[AWS_REFAULTS_STAMPER] = "refaults_other_policy",
	[AWS_STATE_RESETS] = "state_resets",
	[AWS_STOCK_REFAULTS] = "stock_refaults",
	[AWS_STOCK_REFAULTS_FAR] = "stock_refaults_beyond_memory",
};

static void aws_sum(struct aws_counters *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		struct aws_counters *c = per_cpu_ptr(&aws_counters, cpu);

		for (i = 0; i < AWS_NR_COUNTERS; i++)
			sum->count[i] += READ_ONCE(c->count[i]);
		for (i = 0; i < AWS_HIST_BUCKETS; i++)
			sum->hist[i] += READ_ONCE(c->hist[i]);
	}
}

/* The counters since the last reset. */
static void aws_read(struct aws_counters *now)
{
	int i;

	mutex_lock(&aws_base_lock);
	aws_sum(now);
	for (i = 0; i < AWS_NR_COUNTERS; i++)
		now->count[i] -= aws_base.count[i];
	for (i = 0; i < AWS_HIST_BUCKETS; i++)
		now->hist[i] -= aws_base.hist[i];
	mutex_unlock(&aws_base_lock);
}

static void aws_reset(void)
{
	mutex_lock(&aws_base_lock);
	aws_sum(&aws_base);
	atomic_long_set(&aws_sweeps, 0);
	atomic_long_set(&aws_switches, 0);
	atomic_long_set(&aws_dying_writes, 0);
	mutex_unlock(&aws_base_lock);
}

static int aws_show(struct seq_file *m, void *v)
{
	struct aws_counters sum;
	unsigned int global;
	int nid, i, log;

	seq_puts(m, "version 1\n");
	/* BPF policies and their clocks come and go under the lock */
	kernel_param_lock(THIS_MODULE);
	global = READ_ONCE(aws_global);
	seq_printf(m, "policy %s\n", aws_run_name(global) ?: "none");
	if (READ_ONCE(aws_ratio) == AWS_RATIO_AUTO)
		seq_puts(m, "ratio auto\n");
	else
		seq_printf(m, "ratio %u\n", READ_ONCE(aws_ratio));
	seq_printf(m, "cgroups_with_settings %d\n", atomic_read(&aws_cg_entries));
	seq_printf(m, "hooks_live %d\n", anon_ws_classic_lru());
	seq_printf(m, "eviction_bits %u\n", aws_layout.eviction_bits);
	seq_printf(m, "bucket_order %u\n", aws_layout.bucket_order);
	for_each_online_node(nid) {
		struct lruvec *lruvec = mem_cgroup_lruvec(NULL, NODE_DATA(nid));

		seq_printf(m, "node%d_anon_age %lu\n", nid,
			   aws_run_name(global) ?
			   aws_anon_age(&aws_runs[global], nid) : 0);
		for (i = 0; i < AWS_NR_RUNS; i++)
			if (aws_run_name(i) &&
			    aws_table_present(&aws_runs[i].clock))
				seq_printf(m, "node%d_anon_age_%s %lu\n", nid,
					   aws_run_name(i),
					   aws_anon_age(&aws_runs[i], nid));
		seq_printf(m, "node%d_file_age %ld\n", nid,
			   atomic_long_read(&lruvec->nonresident_age));
	}
	kernel_param_unlock(THIS_MODULE);
	aws_read(&sum);
	for (i = 0; i < AWS_NR_COUNTERS; i++)
		seq_printf(m, "%s %lu\n", aws_counter_names[i], sum.count[i]);
	seq_printf(m, "sweeps %ld\n", atomic_long_read(&aws_sweeps));
	seq_printf(m, "switches %ld\n", atomic_long_read(&aws_switches));
	seq_printf(m, "dying_cgroup_writes %ld\n",
		   atomic_long_read(&aws_dying_writes));
	seq_printf(m, "last_sweep_shadows %ld\n",
		   atomic_long_read(&aws_last_sweep));
	seq_printf(m, "bpf_ejections %ld\n", atomic_long_read(&aws_bpf_ejections));
	seq_printf(m, "table_bytes %ld\n", atomic_long_read(&aws_table_bytes));
	seq_printf(m, "table_alloc_failed %ld\n",
		   atomic_long_read(&aws_table_failures));
	for (i = 0; i < AWS_HIST_BUCKETS; i++) {
		log = aws_hist_bucket_log(i);
		if (log > AWS_HIST_MAX_LOG)
			seq_printf(m, "refault_dist_log2_inf %lu\n", sum.hist[i]);
		else
			seq_printf(m, "refault_dist_log2_%c%d %lu\n",
				   log < 0 ? 'm' : 'p', abs(log), sum.hist[i]);
	}
	return 0;
}

static int aws_open(struct inode *inode, struct file *file)
{
	return single_open(file, aws_show, NULL);
}

static ssize_t aws_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[8];

	/* The opener's credentials, as for any file handed on */
	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (count == 0 || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	/* Exactly "reset", optionally with one newline; no embedded NUL. */
	if (count < 5 || memcmp(buf, "reset", 5) ||
	    (count == 6 && buf[5] != '\n') || count > 6)
		return -EINVAL;
	aws_reset();
	return count;
}

static const struct proc_ops aws_proc_ops = {
	.proc_open = aws_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = aws_write,
};

static struct proc_dir_entry *aws_proc;

int aws_stats_init(void)
{
	aws_proc = proc_create("anon_workingset", 0600, NULL, &aws_proc_ops);
	return aws_proc ? 0 : -ENOMEM;
}

void aws_stats_exit(void)
{
	proc_remove(aws_proc);
}
