// SPDX-License-Identifier: GPL-2.0
/*
 * aws_switch.c - the global policy and ratio, and policy switches
 *
 * The global policy and ratio are the settings of every cgroup that names
 * none of its own: the module parameters write them (aws_params.c), the
 * cgroup lookups fall back on them (aws_cgroup.c).  A policy switch
 * changes which policy runs, globally (aws_params.c, and the load in
 * aws_main.c) or for one cgroup (aws_cgroup.c), and the unload is one
 * too.  Shadows in the swap caches outlive any policy, so they are swept
 * whenever the clock that stamped them stops being the one in use: at
 * load (stock shadows), at every policy switch and at unload (our
 * shadows).
 *
 * A switch must leave no refault judged with the wrong clock.  It first
 * raises aws_sweeping, in which every swap-in drops the shadow it found
 * if the switch sweeps it, instead of judging it, steps the epoch that
 * evictions write into their shadows' tag, then publishes the new policy
 * and waits a grace period (hooks run under RCU), so that every hook
 * still working with the old policy has finished.  The sweep
 * (anon_ws_clear_swap_shadows()) then removes every shadow the switch
 * sweeps; evictions from then on stamp the new clock.  A swap-in that
 * took its shadow out of the swap cache before the sweep but judges it
 * only after it -- preempted in between, which Debian's preemptible RCU
 * allows outside a read section -- is caught by the kernel: the sweep
 * moves the shadow generation, and the swap-in checks it again in the
 * read section that judges the shadow, before it asks us.  A second grace
 * period before aws_sweeping drops lets every judge that had not seen the
 * generation move finish while swap-ins still drop.  A shadow that a
 * switch since its epoch swept and that reaches a refault anyway is
 * counted (refaults_old_epoch) and not judged: the count is the test that
 * the protocol holds.
 *
 * What a switch sweeps, its scope.  A global one (the module parameter,
 * load, unload) sweeps every shadow.  A BPF policy's detach sweeps every
 * shadow that policy stamped, in any cgroup: its clocks and its slot go
 * with it, and every cgroup that ran it gets another policy.  A change of
 * one cgroup's policy sweeps the shadows its old policy stamped on the
 * lruvecs of the cgroup, of its descendants and of its ancestors (global
 * reclaim stamps the root's): those are the ones a clock that the cgroup
 * stops ageing would misjudge.  Every other shadow stays and keeps its
 * meaning, since its refault is judged by the policy that stamped it, on
 * its own clock (aws_hooks.c).  Stock shadows are never swept by a
 * cgroup's switch: stock judges them, on the shared clock, whoever runs.
 * While the switch is in progress a swap-in drops any shadow of the old
 * policy (of any cgroup: the lruvecs are listed only once the new policy
 * is published, so that a child cgroup made meanwhile is among them), and
 * the kernel's generation drops every shadow a swap-in took during the
 * sweep.  The last AWS_EPOCHS switches' scopes are kept, so that the
 * epoch check of a refault asks only the switches its shadow lived
 * through.
 *
 * Policy writes and load/unload are serialised by the module's parameter
 * lock, which sysfs writes already hold and cgroup file writes take.  Once
 * unload has begun (aws_exiting) policy writes fail with -EBUSY: the hooks
 * are still registered, and only a switch may change what they do.
 */
#include <linux/anon_ws_hooks.h>
#include <linux/bitmap.h>
#include <linux/cgroup.h>
#include <linux/kernel.h>
#include <linux/memcontrol.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "anon_workingset.h"
#include "aws_trace.h"

/*
 * The global policy, an index into aws_runs (parameter lock for writers);
 * AWS_NO_POLICY until insmod's arguments or init set it.
 */
unsigned int aws_global = AWS_NO_POLICY;
/*
 * The global policy before the last global switch: a BPF policy that goes
 * away hands its users back to it (aws_bpf.c).
 */
unsigned int aws_global_prev = AWS_NO_POLICY;
unsigned int aws_ratio = AWS_RATIO_AUTO;
/* Registered and past init: policy writes switch clocks (param lock). */
bool aws_live;
/* Unload has begun: policy writes are refused (param lock). */
bool aws_exiting;
/* A switch is in progress: swap-ins drop the shadows it sweeps. */
bool aws_sweeping;
/* A global switch's scope: every shadow */
static struct aws_scope aws_scope_all = { .all = true };
/*
 * What the switch in progress sweeps (read while aws_sweeping), and what
 * the switch that began each epoch swept (RCU; freed when its epoch is
 * reused).
 */
struct aws_scope *aws_sweep_scope = &aws_scope_all;
static struct aws_scope __rcu *aws_scopes[AWS_EPOCHS + 1];
/*
 * Unloading: the stock code stamps and judges every shadow again (set in
 * the last switch, aws_main.c).
 */
bool aws_handed_over;
/* The switch epoch evictions tag their shadows with, 1..AWS_EPOCHS. */
unsigned int aws_epoch = 1;

unsigned int aws_policy_index(const struct aws_policy *p)
{
	unsigned int i;

	for (i = 0; i < aws_nr_policies && aws_policies[i] != p; i++)
		;
	return i;
}

/*
 * The run of the policy named by a sysfs write of @len bytes (one trailing
 * newline allowed), a registry policy or an attached BPF one; AWS_NO_POLICY
 * for none.  Parameter lock held: BPF policies come and go under it.
 */
unsigned int aws_run_find(const char *buf, size_t len)
{
	const struct aws_policy *p = aws_policy_find(buf, len);
	unsigned int i;

	if (p)
		return aws_policy_index(p);
	len = aws_strip_newline(buf, len);
	for (i = aws_nr_policies; aws_runs && i < AWS_NR_RUNS; i++)
		if (aws_runs[i].live &&
		    aws_word_eq(buf, len, aws_runs[i].policy->name))
			return i;
	return AWS_NO_POLICY;
}

/*
 * A write of @len bytes named no policy: say in dmesg which there are
 * (parameter lock held), since EINVAL alone does not.
 */
void aws_warn_unknown_policy(const char *buf, size_t len)
{
	char names[256];
	unsigned int i;
	int n = 0;

	names[0] = '\0';
	for (i = 0; i < AWS_NR_RUNS; i++)
		if (aws_run_name(i))
			n += scnprintf(names + n, sizeof(names) - n, " %s",
				       aws_run_name(i));
	len = aws_strip_newline(buf, len);
	pr_warn_ratelimited("anon_workingset: no policy \"%.*s\"; the policies are:%s\n",
			    (int)min_t(size_t, len, AWS_POLICY_NAME_MAX + 8),
			    buf, names);
}

/* The name of run @i, or NULL for a free BPF slot (parameter lock held). */
const char *aws_run_name(unsigned int i)
{
	if (i < aws_nr_policies)
		return aws_policies[i]->name;
	if (!aws_runs || i >= AWS_NR_RUNS || !aws_runs[i].live)
		return NULL;
	return aws_runs[i].policy->name;
}

/*
 * Whether a switch of scope @sc sweeps the shadow @value: every one for a
 * global switch, else a policy shadow that its old policy stamped on one
 * of its lruvecs (any while they are not listed yet).  Runs under the
 * swap cache's xa_lock in the sweep, under RCU in a swap-in.
 */
bool aws_scope_match(const struct aws_scope *sc, unsigned long value)
{
	/* Pairs with aws_switch_end(): a list is a filled one. */
	unsigned long *memcgs = smp_load_acquire(&sc->memcgs);

	return sc->all ||
	       aws_sweep_takes(&aws_raw_layout, &aws_layout,
			       AWS_TAG_POLICY_BITS, sc->stamper, memcgs, value);
}

static bool aws_sweep_match(unsigned long value, void *sc)
{
	return aws_scope_match(sc, value);
}

/*
 * Whether a switch after @epoch, up to @now, swept the policy shadow
 * @value stamped in @epoch: then it must never reach a refault.  Under
 * RCU.  A shadow that lived through more than AWS_EPOCHS switches is asked
 * about the last ones only.
 */
bool aws_swept_since(unsigned int epoch, unsigned int now,
		     unsigned long value)
{
	const struct aws_scope *sc;
	unsigned int e = epoch;

	while (e != now) {
		e = e % AWS_EPOCHS + 1;
		sc = rcu_dereference(aws_scopes[e]);
		if (!sc || aws_scope_match(sc, value))
			return true;
	}
	return false;
}

static void aws_scope_free(struct rcu_head *head)
{
	struct aws_scope *sc = container_of(head, struct aws_scope, rcu);

	bitmap_free(sc->memcgs);
	kfree(sc);
}

/*
 * The lruvecs a change of @memcg's policy sweeps: the memcg ids of its
 * subtree and its ancestors; NULL without memory to list them.  The
 * bitmap has a bit for every id a shadow's memcg field can hold, which
 * aws_sweep_takes() indexes unchecked.
 */
static unsigned long *aws_scope_memcgs(struct mem_cgroup *memcg)
{
	unsigned long *ids = bitmap_zalloc(1U << MEM_CGROUP_ID_SHIFT, GFP_KERNEL);
	struct cgroup_subsys_state *pos;
	struct mem_cgroup *m;

	BUILD_BUG_ON(AWS_MEMCG_ID_MAX >= 1U << MEM_CGROUP_ID_SHIFT);
	if (!ids)
		return NULL;
	rcu_read_lock();
	css_for_each_descendant_pre(pos, &memcg->css)
		__set_bit(mem_cgroup_id(mem_cgroup_from_css(pos)), ids);
	for (m = parent_mem_cgroup(memcg); m; m = parent_mem_cgroup(m))
		__set_bit(mem_cgroup_id(m), ids);
	rcu_read_unlock();
	return ids;
}

/* A cgroup switch pending, for aws_switch_end() to list its lruvecs */
static struct mem_cgroup *aws_switch_memcg;

static unsigned long aws_sweep_shadows(struct aws_scope *sc)
{
	unsigned long cleared;

	if (sc->all)
		cleared = anon_ws_clear_swap_shadows(NULL, NULL);
	else
		cleared = anon_ws_clear_swap_shadows(aws_sweep_match, sc);
	aws_count(AWS_SHADOWS_SWEPT, cleared);
	atomic_long_set(&aws_last_sweep, cleared);
	atomic_long_inc(&aws_sweeps);
	return cleared;
}

/*
 * A switch, with the parameter lock held: aws_switch_begin(), publish the
 * change (global policy or a cgroup's), aws_switch_end(), which returns
 * the number of shadows swept.  A global switch passes AWS_NO_POLICY as
 * @old; one that takes run @old away from every cgroup (a BPF policy's
 * detach) a NULL @memcg; a change of one cgroup's policy the cgroup's
 * @memcg and the run it had.  See above.
 */
void aws_switch_begin(struct mem_cgroup *memcg, unsigned int old)
{
	struct aws_scope *sc = &aws_scope_all, *prev;
	unsigned int epoch = aws_epoch % AWS_EPOCHS + 1;

	if (old != AWS_NO_POLICY) {
		sc = kzalloc(sizeof(*sc), GFP_KERNEL);
		if (sc) {
			sc->stamper = old + 1;
			if (memcg) {
				css_get(&memcg->css);
				aws_switch_memcg = memcg;
			}
		} else {
			pr_warn_ratelimited("anon_workingset: no memory to scope a switch: every shadow is swept\n");
			sc = &aws_scope_all;
		}
	}
	prev = rcu_replace_pointer(aws_scopes[epoch], sc, true); /* param lock */
	if (prev && !prev->all)
		call_rcu(&prev->rcu, aws_scope_free);
	WRITE_ONCE(aws_sweep_scope, sc);
	smp_wmb();	/* the scope before the flag */
	WRITE_ONCE(aws_sweeping, true);
	/*
	 * Pairs with aws_switching(), which reads in the opposite order:
	 * who sees the new policy sees the new epoch, and who sees the new
	 * epoch sees the flag.
	 */
	smp_wmb();
	WRITE_ONCE(aws_epoch, epoch);
	smp_wmb();	/* the epoch before the policy the caller publishes */
}

unsigned long aws_switch_end(void)
{
	struct aws_scope *sc = aws_sweep_scope;
	unsigned long swept;

	aws_synchronize();
	if (aws_switch_memcg) {
		/* Every child made until now follows the new policy. */
		unsigned long *ids = aws_scope_memcgs(aws_switch_memcg);

		css_put(&aws_switch_memcg->css);
		aws_switch_memcg = NULL;
		if (ids)	/* filled before aws_scope_match() reads */
			smp_store_release(&sc->memcgs, ids);
		else	/* every shadow of the old policy */
			pr_warn_ratelimited("anon_workingset: no memory to list a cgroup's lruvecs: every shadow of its old policy is swept\n");
	}
	swept = aws_sweep_shadows(sc);
	aws_synchronize();
	WRITE_ONCE(aws_sweeping, false);
	return swept;
}

/* Unload, past the last switch and every hook call: free the scopes. */
void aws_switch_exit(void)
{
	struct aws_scope *sc;
	unsigned int e;

	rcu_barrier();	/* aws_scope_free() is module code */
	for (e = 1; e <= AWS_EPOCHS; e++) {
		sc = rcu_replace_pointer(aws_scopes[e], NULL, true);
		if (sc && !sc->all)
			aws_scope_free(&sc->rcu);
	}
}

void aws_switch_global(unsigned int policy)
{
	unsigned long swept;

	aws_switch_begin(NULL, AWS_NO_POLICY);
	aws_global_prev = aws_global;
	WRITE_ONCE(aws_global, policy);
	swept = aws_switch_end();
	trace_aws_switch("global", 0, aws_runs[policy].policy->name, swept);
}
