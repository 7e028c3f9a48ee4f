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
 */
#include <linux/anon_ws_hooks.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>

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
/* A switch is in progress: swap-ins drop the shadows they find. */
bool aws_sweeping;
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
	/*
	 * Pairs with aws_switching(), which reads in the opposite order:
	 * who sees the new policy sees the new epoch, and who sees the new
	 * epoch sees the flag.
	 */
	smp_wmb();
	WRITE_ONCE(aws_epoch, aws_epoch % AWS_EPOCHS + 1);
	smp_wmb();	/* the epoch before the policy the caller publishes */
}

unsigned long aws_switch_end(void)
{
	unsigned long swept;

	aws_synchronize();
	swept = aws_sweep_shadows();
	aws_synchronize();
	WRITE_ONCE(aws_sweeping, false);
	return swept;
}

void aws_switch_global(unsigned int policy)
{
	unsigned long swept;

	aws_switch_begin();
	aws_global_prev = aws_global;
	WRITE_ONCE(aws_global, policy);
	swept = aws_switch_end();
	trace_aws_switch("global", 0, aws_runs[policy].policy->name, swept);
}
