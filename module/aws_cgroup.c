// SPDX-License-Identifier: GPL-2.0
/*
 * aws_cgroup.c - a policy and a ratio per memory cgroup
 *
 * While the module is loaded every memory cgroup but the root has two more
 * files, in the style of the memory controller's own:
 *
 *   memory.anon_ws_policy   "default" or a policy name.  Reads as the
 *                           list, the cgroup's own setting in brackets:
 *                           "[default] stock baseline protect detect ...".
 *   memory.anon_ws_ratio    "default", "auto" or 1..1024, as the module's
 *                           ratio parameter.
 *
 * A cgroup set to "default" (every cgroup, at first) takes its nearest
 * ancestor's setting, and the top of the tree takes the module parameters:
 * the global policy is the default of every cgroup that names none.  So
 * two sibling cgroups can run two policies under the same global pressure
 * in one boot.  A bad value is refused with -EINVAL and changes nothing.
 *
 * Who may write.  Both files are writable by their owner, and under cgroup
 * v2 delegation (systemd user slices, containers) the owner of a delegated
 * cgroup's files is the delegatee.  But a policy write sweeps shadows on
 * the ancestors' lruvecs too, and a policy decides how a cgroup's pages
 * compete with its siblings' under shared pressure: both reach beyond the
 * subtree.  So
 * a write needs CAP_SYS_ADMIN in the initial user namespace, checked on
 * the credentials of whoever opened the file (as the kernel checks a file
 * handed on), like the module parameters; anyone who can open them may
 * read them.  docs/design.md says why.
 *
 * Which cgroup decides.  A decision about a folio is taken by the policy of
 * the cgroup the folio is charged to, even when reclaim works for an
 * ancestor's limit or for the whole machine; the inactive target of an
 * lruvec by the policy of the lruvec's cgroup.  The shadow of an eviction
 * is stamped, as in stock 6.1, on the clock of the lruvec reclaim works on
 * (the target's), with the evicted folio's policy, which the shadow names;
 * its refault is judged by that policy on that clock, whoever faults the
 * page back in (aws_hooks.c).  Each policy has its own clocks (aws_clock.c),
 * aged only by the events of its own cgroups' folios, in their lruvecs and
 * every ancestor's.
 *
 * Deleted cgroups.  A write that reaches a cgroup whose deletion has begun
 * (CSS_DYING: rmdir has started and waits for the write to finish before
 * it removes the files) is refused with -ENODEV, as kernfs refuses one
 * that comes after: a dying cgroup's settings never change.  The shadows
 * of a deleted cgroup's pages stay where they are and keep their meaning:
 * each is judged by the policy that stamped it, on the clock it was
 * stamped on, while the memcg of its eviction lruvec lives (its pages'
 * swap entries keep their own memcg's id alive); once that memcg is gone,
 * the refault is not judged, as stock does.  A new cgroup that gets a
 * recycled memcg id starts with fresh private state (aws_state_claim() in
 * aws_main.c).
 *
 * A change of a cgroup's policy is a policy switch (aws_switch.c) whose
 * sweep is scoped: the shadows its old policy stamped on the lruvecs of
 * the cgroup, its descendants and its ancestors go, since the clocks they
 * were stamped on stop being aged by the cgroup's pages; every other
 * cgroup keeps its refault information.  A child with a policy of its own
 * keeps it when its parent's changes (the nearest setting wins), and so
 * do the shadows it stamped, unless its policy is the parent's old one.
 * A ratio change needs no sweep.
 *
 * Settings are kept in an xarray indexed by the cgroup's id (cgroup_id(),
 * the kernfs node id: 64 bits, never reused while the system runs), not by
 * the 16-bit memcg id, which a new cgroup may reuse: a deleted cgroup's
 * setting can never pass to a newcomer.  Entries of deleted cgroups are
 * dropped at the next write, and all at unload.  Lookups walk from the
 * folio's cgroup towards the root under RCU, and are skipped altogether
 * while no cgroup has a setting of its own.
 */
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "anon_workingset.h"
#include "aws_trace.h"

/*
 * An entry packs the two settings of a cgroup: bits 0-7 the policy (0 =
 * default, i + 1 = aws_runs[i]), bits 8-19 the ratio (0 = default, r + 1
 * = ratio value r, AWS_RATIO_AUTO included), and bits 20-27 the policy
 * the cgroup had before its last policy write, which it gets back when a
 * BPF policy it runs goes away (aws_cgroup_forget()).
 */
#define AWS_CG_POLICY_MASK	0xffUL
#define AWS_CG_RATIO_SHIFT	8
#define AWS_CG_RATIO_MASK	0xfffUL
#define AWS_CG_PREV_SHIFT	20

static DEFINE_XARRAY(aws_cg_table);
/* Entries in the table: lookups are skipped while there are none. */
atomic_t aws_cg_entries = ATOMIC_INIT(0);

static unsigned long aws_cg_get(u64 id)
{
	void *entry = xa_load(&aws_cg_table, id);

	return entry ? xa_to_value(entry) : 0;
}

void aws_cgroup_lookup(struct mem_cgroup *memcg, unsigned int *policy,
		       unsigned int *ratio)
{
	unsigned long p = 0, r = 0, v;

	if (atomic_read(&aws_cg_entries)) {
		for (; memcg && !mem_cgroup_is_root(memcg) && (!p || !r);
		     memcg = parent_mem_cgroup(memcg)) {
			v = aws_cg_get(cgroup_id(memcg->css.cgroup));
			if (!p)
				p = v & AWS_CG_POLICY_MASK;
			if (!r)
				r = (v >> AWS_CG_RATIO_SHIFT) & AWS_CG_RATIO_MASK;
		}
	}
	*policy = p ? p - 1 : READ_ONCE(aws_global);
	*ratio = r ? r - 1 : READ_ONCE(aws_ratio);
}

/*
 * Drop the entries of cgroups that are gone.  A worker does it: it runs in
 * the root cgroup namespace, where every cgroup's id can be looked up (a
 * writer inside a namespace would find other trees' cgroups absent).
 */
static void aws_cg_collect(struct work_struct *work)
{
	unsigned long id;
	struct cgroup *cgrp;
	void *entry;

	kernel_param_lock(THIS_MODULE);
	xa_for_each(&aws_cg_table, id, entry) {
		cgrp = cgroup_get_from_id(id);
		if (!IS_ERR(cgrp)) {
			cgroup_put(cgrp);
			continue;
		}
		xa_erase(&aws_cg_table, id);
		atomic_dec(&aws_cg_entries);
	}
	kernel_param_unlock(THIS_MODULE);
}

static DECLARE_WORK(aws_cg_collect_work, aws_cg_collect);

/*
 * Store @v for cgroup @id, parameter lock held.  An entry with neither a
 * policy nor a ratio of its own is removed, whatever it remembers.
 */
static int aws_cg_set(u64 id, unsigned long v)
{
	bool had = aws_cg_get(id);
	int ret = 0;

	if (!(v & ((1UL << AWS_CG_PREV_SHIFT) - 1)))
		v = 0;

	if (v)
		ret = xa_err(xa_store(&aws_cg_table, id, xa_mk_value(v),
				      GFP_KERNEL));
	else
		xa_erase(&aws_cg_table, id);
	if (ret)
		return ret;
	if (v && !had)
		atomic_inc(&aws_cg_entries);
	else if (!v && had)
		atomic_dec(&aws_cg_entries);
	schedule_work(&aws_cg_collect_work);
	return 0;
}

static bool aws_word(const char *buf, size_t len, const char *word)
{
	return aws_word_eq(buf, aws_strip_newline(buf, len), word);
}

static u64 aws_of_id(struct kernfs_open_file *of)
{
	return cgroup_id(of_css(of)->cgroup);
}

static int aws_cg_policy_show(struct seq_file *m, void *v)
{
	unsigned long own;
	unsigned int i;

	kernel_param_lock(THIS_MODULE);
	own = aws_cg_get(cgroup_id(seq_css(m)->cgroup)) & AWS_CG_POLICY_MASK;
	seq_puts(m, own ? "default" : "[default]");
	for (i = 0; i < AWS_NR_RUNS; i++)
		if (aws_run_name(i))
			seq_printf(m, own == i + 1 ? " [%s]" : " %s",
				   aws_run_name(i));
	kernel_param_unlock(THIS_MODULE);
	seq_putc(m, '\n');
	return 0;
}

#ifdef CONFIG_ANON_WS_HOOKS_DEBUG
/* Widens the window between a write's start and its dying check, for tests. */
static unsigned int cgroup_write_delay_ms;
module_param(cgroup_write_delay_ms, uint, 0644);
MODULE_PARM_DESC(cgroup_write_delay_ms,
		 "sleep this long in a cgroup file write before it checks the cgroup");
#endif

/* See "Who may write" above. */
static bool aws_cg_may_write(struct kernfs_open_file *of)
{
	return file_ns_capable(of->file, &init_user_ns, CAP_SYS_ADMIN);
}

/*
 * Take the parameter lock for a write to @of's cgroup; -ENODEV, unlocked,
 * if the cgroup is being deleted (see "Deleted cgroups" above).
 */
static int aws_cg_lock_live(struct kernfs_open_file *of)
{
#ifdef CONFIG_ANON_WS_HOOKS_DEBUG
	unsigned int delay = READ_ONCE(cgroup_write_delay_ms);

	if (delay)
		msleep(delay);
#endif
	kernel_param_lock(THIS_MODULE);
	if (READ_ONCE(of_css(of)->flags) & CSS_DYING) {
		kernel_param_unlock(THIS_MODULE);
		atomic_long_inc(&aws_dying_writes);
		return -ENODEV;
	}
	return 0;
}

/*
 * Set the policy of the cgroup of memory css @css to run @idx - 1 (0:
 * "default"), parameter lock held: a policy switch, with its sweep of
 * the shadows its old policy stamped (aws_switch.c), if it changes.
 */
static int aws_cg_select(struct cgroup_subsys_state *css, unsigned long idx)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(css);
	u64 id = cgroup_id(css->cgroup);
	unsigned long old, new, swept;
	unsigned int was, ratio;
	int ret = 0;

	old = aws_cg_get(id);
	new = (old & ~AWS_CG_POLICY_MASK) | idx;
	if (new != old) {
		new &= (1UL << AWS_CG_PREV_SHIFT) - 1;
		new |= (old & AWS_CG_POLICY_MASK) << AWS_CG_PREV_SHIFT;
		rcu_read_lock();
		aws_cgroup_lookup(memcg, &was, &ratio);
		rcu_read_unlock();
		aws_switch_begin(memcg, was);
		ret = aws_cg_set(id, new);
		swept = aws_switch_end();
		if (!ret) {
			atomic_long_inc(&aws_switches);
			trace_aws_switch("cgroup", id,
					 idx ? aws_run_name(idx - 1) : "default",
					 swept);
		}
	}
	return ret;
}

/*
 * A BPF policy's link names cgroup @id (module/aws_bpf.c): select run @run
 * for it, parameter lock held, as a write of its memory.anon_ws_policy
 * would; -ENOENT if @id is no cgroup below the root with the memory
 * controller enabled, -ENODEV if it is being deleted.
 * aws_cgroup_check_id() only checks.
 */
static int aws_cg_check_select(u64 id, unsigned int run, bool select)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp = cgroup_get_from_id(id);
	int ret = -ENOENT;

	if (IS_ERR(cgrp))
		return -ENOENT;
	css = cgroup_parent(cgrp) ?
	      cgroup_get_e_css(cgrp, &memory_cgrp_subsys) : NULL;
	if (css && css->cgroup == cgrp) {
		ret = READ_ONCE(css->flags) & CSS_DYING ? -ENODEV : 0;
		if (!ret && select)
			ret = aws_cg_select(css, run + 1);
	}
	if (css)
		css_put(css);
	cgroup_put(cgrp);
	return ret;
}

int aws_cgroup_check_id(u64 id)
{
	return aws_cg_check_select(id, 0, false);
}

int aws_cgroup_select_run(u64 id, unsigned int run)
{
	return aws_cg_check_select(id, run, true);
}

static ssize_t aws_cg_policy_write(struct kernfs_open_file *of, char *buf,
				   size_t nbytes, loff_t off)
{
	unsigned long idx = 0, run;
	int ret = 0;

	if (!aws_cg_may_write(of))
		return -EPERM;
	ret = aws_cg_lock_live(of);
	if (ret)
		return ret;
	/* BPF policies come and go under the lock */
	if (!aws_word(buf, nbytes, "default")) {
		run = aws_run_find(buf, nbytes);
		if (run == AWS_NO_POLICY) {
			aws_warn_unknown_policy(buf, nbytes);
			kernel_param_unlock(THIS_MODULE);
			return -EINVAL;
		}
		idx = run + 1;
	}
	ret = aws_cg_select(of_css(of), idx);
	kernel_param_unlock(THIS_MODULE);
	return ret ?: nbytes;
}

static int aws_cg_ratio_show(struct seq_file *m, void *v)
{
	unsigned long r;

	r = aws_cg_get(cgroup_id(seq_css(m)->cgroup)) >> AWS_CG_RATIO_SHIFT;
	if (!r)
		seq_puts(m, "default\n");
	else if (r - 1 == AWS_RATIO_AUTO)
		seq_puts(m, "auto\n");
	else
		seq_printf(m, "%lu\n", r - 1);
	return 0;
}

static ssize_t aws_cg_ratio_write(struct kernfs_open_file *of, char *buf,
				  size_t nbytes, loff_t off)
{
	unsigned long old, r = 0;
	unsigned int ratio;
	u64 id = aws_of_id(of);
	int ret;

	if (!aws_cg_may_write(of))
		return -EPERM;
	if (!aws_word(buf, nbytes, "default")) {
		if (aws_ratio_parse(buf, nbytes, &ratio))
			return -EINVAL;
		r = ratio + 1;
	}
	ret = aws_cg_lock_live(of);
	if (ret)
		return ret;
	old = aws_cg_get(id);
	ret = aws_cg_set(id, (old & ~(AWS_CG_RATIO_MASK << AWS_CG_RATIO_SHIFT)) |
			 r << AWS_CG_RATIO_SHIFT);
	kernel_param_unlock(THIS_MODULE);
	return ret ?: nbytes;
}

static struct cftype aws_cg_files[] = {
	{
		.name = "anon_ws_policy",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = aws_cg_policy_show,
		.write = aws_cg_policy_write,
	},
	{
		.name = "anon_ws_ratio",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = aws_cg_ratio_show,
		.write = aws_cg_ratio_write,
	},
	{ }	/* terminate */
};

int aws_cgroup_init(void)
{
	if (mem_cgroup_disabled())
		return 0;
	return cgroup_add_dfl_cftypes(&memory_cgrp_subsys, aws_cg_files);
}

/* Remove the files: no write can start after this. */
void aws_cgroup_exit(void)
{
	if (!mem_cgroup_disabled())
		cgroup_rm_cftypes(aws_cg_files);
	cancel_work_sync(&aws_cg_collect_work);
}

/*
 * Run @policy (a BPF policy going away) nowhere: every cgroup that names
 * it gets back the policy it had before, or default if that is @policy
 * too or gone; a previous policy that names it is forgotten.  Inside a
 * switch, parameter lock held.
 */
void aws_cgroup_forget(unsigned int policy)
{
	unsigned long id, v, own, prev;
	void *entry;

	xa_for_each(&aws_cg_table, id, entry) {
		v = xa_to_value(entry);
		own = v & AWS_CG_POLICY_MASK;
		prev = v >> AWS_CG_PREV_SHIFT & AWS_CG_POLICY_MASK;
		if (prev == policy + 1 || (prev && !aws_run_name(prev - 1)))
			prev = 0;
		if (own == policy + 1)
			own = prev;
		v = (v & ((1UL << AWS_CG_PREV_SHIFT) - 1) & ~AWS_CG_POLICY_MASK) |
		    own | prev << AWS_CG_PREV_SHIFT;
		aws_cg_set(id, v);
	}
}

/* Forget every setting: inside a switch, parameter lock held. */
void aws_cgroup_clear(void)
{
	xa_destroy(&aws_cg_table);
	atomic_set(&aws_cg_entries, 0);
}
