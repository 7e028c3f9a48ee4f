/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_policy.h - the interface an anon LRU policy implements
 *
 * A policy is one C file in module/policies/ that fills in a struct
 * aws_policy: a name, a one-line description, and the decisions it wants
 * to take.  The framework (the rest of the module, or the simulator in
 * userspace/sim/, which compiles the same files) owns all the mechanism:
 * the hooks, the non-resident clocks, shadow packing, sweeping, counters,
 * /proc/anon_workingset and the parameters.  A policy sees plain numbers
 * (struct aws_folio, struct aws_lru_sizes, a refault distance) and an
 * opaque pointer to its private state, never a kernel object, so the file
 * compiles unchanged in the kernel and in userspace.  It includes this
 * header and nothing else.
 *
 * Every decision is optional.  A NULL callback declines: the kernel runs
 * its stock 6.1 code for it (the simulator runs the 6.1 rule from
 * policies/upstream.c).  A policy with no callback at all is stock 6.1,
 * and the framework then also ignores the ratio parameter.
 *
 * Decisions and when they are asked (all in atomic context: never sleep,
 * allocate or take a lock):
 *
 *   new_anon        a new anon folio is about to be added to the LRU.
 *                   YES = start it active, NO = inactive.
 *   swapin          a folio was read from swap through the swap cache.
 *                   YES = mark it PG_workingset (a PSI "refault of
 *                   workingset", as 4.20-5.8 and the seed did).
 *   swapin_mapped   the folio of a swap-in fault was mapped.
 *                   YES = activate it.
 *   evict           an anon folio leaves the swap cache.  YES = leave a
 *                   shadow stamped with the policy's clock, NO = leave
 *                   none.  Either way the eviction ages the clock.
 *                   Declining leaves stock's shadow on stock's clock, and
 *                   stock then judges its refault too.
 *   refault         a swap-in found a shadow this policy's evict asked
 *                   for.  YES = activate.  The policy reports the
 *                   workingset size it compared with (for the histogram
 *                   and the trace event), and may make an activation
 *                   quiet (struct aws_refault).  A policy whose evict can
 *                   say YES (with a clock) must implement refault.
 *   age             an anon folio was activated.  YES = age the policy's
 *                   clock (nothing if it has none), NO = age no clock.
 *   first_reference reclaim found one young PTE on an inactive anon
 *                   folio.  YES = activate it now (pre-5.9), NO = let
 *                   the stock two-reference rule decide.
 *   keep_active     reclaim's active-list scan found an anon folio
 *                   referenced since the last scan.  YES = keep it on the
 *                   active list (as 6.1 keeps executable file folios),
 *                   NO = deactivate it as 6.1 does.  A kept folio goes
 *                   back as an active one: age is asked for it.
 *   inactive_ratio  the anon list is low when inactive * ratio < active:
 *                   return ratio, given 6.1's (int_sqrt(10 * GiB)) and
 *                   the lruvec's list sizes.  A policy that aims at a
 *                   size rather than a proportion returns
 *                   aws_ratio_for_target() (below).  The `ratio` module
 *                   parameter, when not auto, overrides it for every
 *                   policy but stock.
 *   file_workingset what a file refault distance is compared with, given
 *                   what 6.1 computed (active file + all anon when swap is
 *                   usable).
 *
 * Private state: a policy that sets state_size gets that many zeroed bytes
 * per (memcg, node), allocated when the hooks first need that memcg's and
 * freed at unload; state_init() runs on each.  The pointer passed to a
 * callback is the state of the lruvec the decision concerns (for evict
 * and refault: the reclaim target's; for inactive_ratio: the lruvec being
 * balanced), or NULL when the policy has none or its memory could not be
 * allocated (module/aws_table.c): a policy must decide without it then.
 * Updates race with other CPUs: keep them to single words.
 *
 * Which policy decides: the one of the memory cgroup the folio is charged
 * to (module/aws_cgroup.c: its own setting, an ancestor's, or the global
 * `policy` parameter).
 */
#ifndef _AWS_POLICY_H
#define _AWS_POLICY_H

#ifdef AWS_TARGET_BPF
/*
 * A policy file compiled as BPF (userspace/bpf/Makefile): the types of
 * aws_policy_types.h and aws_core.h come from the module's BTF, and the
 * framework's side of this header (the registry, struct aws_policy) is
 * not there.
 */
#include "aws_bpf_policy.h"
#else
#include "aws_policy_types.h"

struct aws_policy {
	const char *name;		/* at most AWS_POLICY_NAME_MAX chars */
	const char *description;	/* one line */
	/* The clock anon evictions and activations age and shadows carry. */
	enum aws_clock clock;
	/* Private state per (memcg, node), 0 for none. */
	unsigned int state_size;
	void (*state_init)(void *state);

	enum aws_decision (*new_anon)(const struct aws_folio *f, void *state);
	enum aws_decision (*swapin)(const struct aws_folio *f, void *state);
	enum aws_decision (*swapin_mapped)(const struct aws_folio *f,
					   void *state);
	enum aws_decision (*evict)(const struct aws_folio *f, void *state);
	enum aws_decision (*refault)(struct aws_refault *r, void *state);
	enum aws_decision (*age)(const struct aws_folio *f, void *state);
	enum aws_decision (*first_reference)(const struct aws_folio *f,
					     void *state);
	enum aws_decision (*keep_active)(const struct aws_folio *f,
					 void *state);
	unsigned long (*inactive_ratio)(const struct aws_lru_sizes *s,
					unsigned long stock_ratio, void *state);
	unsigned long (*file_workingset)(const struct aws_lru_sizes *s,
					 unsigned long stock_size);
};

/*
 * The registry.  aws_policy_list.h, expanded here, declares every policy,
 * aws_policy_<name> (defined in module/policies/<name>.c); the same
 * declaration ends with the array aws_policies[], which
 * module/policies/registry.c fills from the list in the order the
 * `policy` parameter shows them.  One declaration with a declarator per
 * policy, so that AWS_POLICY() needs no semicolon of its own.
 */
#define AWS_POLICY(name) aws_policy_##name,
extern const struct aws_policy
#include "aws_policy_list.h"
	*const aws_policies[];
#undef AWS_POLICY
extern const unsigned int aws_nr_policies;
extern const struct aws_policy *const aws_policy_default;

#endif /* !AWS_TARGET_BPF */

/*
 * AWS_NOTE(policy, words): a policy's own account of a decision, for
 * whoever asks, as AWS_NOTE_WORDS unsigned longs the policy names in its
 * file (regret: the rule it follows and its sums).  In the module it is
 * a call to aws_note(), whose trace event aws_note (module/aws_trace.h,
 * docs/tracing.md) is a static-key jump while off: with tracing off a
 * note costs the words' stores and one call, so a policy notes on the
 * refault path (beside a swap-in), not on every look or eviction.  The
 * simulator's policy objects (AWS_SIM_NOTES) hand it to aws_sim_note(),
 * which writes it to aws-sim's --notes file (userspace/sim/lru2.c); the
 * unit tests and a BPF build compile it out.
 */
#define AWS_NOTE_WORDS	8
#if defined(__KERNEL__) && !defined(AWS_TARGET_BPF)
void aws_note(const char *policy, const unsigned long *words);
#define AWS_NOTE(policy, words)	aws_note(policy, words)
#endif
#if defined(AWS_SIM_NOTES) && !defined(AWS_TARGET_BPF)
void aws_sim_note(const char *policy, const unsigned long *words);
#define AWS_NOTE(policy, words)	aws_sim_note(policy, words)
#endif
#ifndef AWS_NOTE
#define AWS_NOTE(policy, words)	((void)(policy), (void)(words))
#endif

/* Helpers for policy files. */

/* a + b, saturating at ~0UL (sizes summed from racy counters). */
static inline unsigned long aws_sat_add(unsigned long a, unsigned long b)
{
	return a + b < a ? ~0UL : a + b;
}

/*
 * a * b, saturating at ~0UL, from products of half words: clang makes a
 * 128-bit multiply (which BPF lacks) of the test a > ~0UL / b.
 */
static inline unsigned long aws_sat_mul(unsigned long a, unsigned long b)
{
	const unsigned int half = 4 * sizeof(unsigned long);
	unsigned long lo = (1UL << half) - 1;
	unsigned long cross;

	if ((a >> half) && (b >> half))
		return ~0UL;
	cross = (a >> half) * (b & lo) + (a & lo) * (b >> half);
	if (cross >> half)
		return ~0UL;
	return aws_sat_add(cross << half, (a & lo) * (b & lo));
}

/*
 * 6.1's workingset size for an anon refault: both file lists, and active
 * anon when swap is usable (upstream, regret's stock rule).
 */
static inline unsigned long aws_stock_workingset(const struct aws_lru_sizes *z)
{
	unsigned long ws = aws_sat_add(z->active_file, z->inactive_file);

	return z->swap_available ? aws_sat_add(ws, z->active_anon) : ws;
}

/*
 * The rule every refault decision builds on: report @ws as the workingset
 * the distance was held against, and activate if the distance fits in it.
 */
static inline enum aws_decision aws_refault_within(struct aws_refault *r,
						   unsigned long ws)
{
	r->workingset_size = ws;
	return r->distance <= ws ? AWS_YES : AWS_NO;
}

/*
 * A fraction of 2^16, the same for the same @id, spread evenly over
 * consecutive ids (Fibonacci hashing): stable and hold choose the pages
 * they hold with it.
 */
static inline unsigned long aws_hash16(unsigned long id)
{
	return (unsigned long)(((unsigned long long)id *
				0x9e3779b97f4a7c15ULL) >> 48);
}

/* h / 2^16 < num / den (a hash16 read as a fraction), without overflow. */
static inline bool aws_hash_below(unsigned long h, unsigned long num,
				  unsigned long den)
{
	while (num >= 1UL << 31 || den >= 1UL << 31) {
		num >>= 1;
		den >>= 1;
	}
	return (unsigned long long)h * (den ? den : 1) <
	       (unsigned long long)num << 16;
}

/*
 * What displacing active pages did, for a policy that judges it (hold,
 * regret): the PG_workingset pages evicted (out), and those of them that
 * refaulted at a distance the active list covers (back) or from farther
 * (far).  The counts are in pages and decay: once the pages evicted
 * (ticks) pass the resident anon seen at the last refault, every count is
 * halved, so they tell what happened over the last memory or two of
 * evictions.  Single words updated without a lock: a lost update only
 * blurs a fraction.
 */
struct aws_displaced {
	unsigned long ticks;
	unsigned long out;
	unsigned long back;
	unsigned long far;
	unsigned long resident;
};

/* An eviction of @f: @f->nr_pages ticks, an out if it was active. */
static inline void aws_displaced_evict(struct aws_displaced *d,
				       const struct aws_folio *f)
{
	unsigned long window = d->resident ? d->resident : 1;

	if (f->workingset)
		d->out = aws_sat_add(d->out, f->nr_pages);
	d->ticks = aws_sat_add(d->ticks, f->nr_pages);
	if (d->ticks > window) {
		d->ticks >>= 1;
		d->out >>= 1;
		d->back >>= 1;
		d->far >>= 1;
	}
}

/* A refault @r with @resident anon pages: a displaced page back or far. */
static inline void aws_displaced_refault(struct aws_displaced *d,
					 const struct aws_refault *r,
					 unsigned long resident)
{
	d->resident = resident;
	if (r->workingset && r->distance <= r->sizes.active_anon)
		d->back = aws_sat_add(d->back, r->nr_pages);
	else if (r->workingset)
		d->far = aws_sat_add(d->far, r->nr_pages);
}

/*
 * A refault whose distance the active list covers, judged by what
 * displacing did: admitted unless the hash @h of its identity falls
 * below the share of displaced pages that came back (back / out), so a
 * loop whose displaced pages all come back stops displacing; every one
 * while none came back, and without an identity.
 */
static inline enum aws_decision aws_displaced_admit(const struct aws_displaced *d,
						    const struct aws_refault *r,
						    unsigned long h)
{
	if (!d->back || !r->id)
		return AWS_YES;
	return aws_hash_below(h, d->back, d->out) ? AWS_NO : AWS_YES;
}

/* More than @stay times as many displaced pages stayed away as came back. */
static inline bool aws_displaced_stay_away(const struct aws_displaced *d,
					   unsigned long stay)
{
	return d->out > stay * aws_sat_add(d->back, d->far);
}

/*
 * hold's refault rules (module/policies/hold.c), given the active list's
 * @target and the run hash @h of the refault's identity: a refault the
 * active list covers is judged by aws_displaced_admit(); of the longer
 * ones a stable part, those whose @h falls below target / (distance +
 * resident anon), is admitted into room below the target, and beyond it
 * while more than @stay times as many displaced pages stayed away as
 * came back.  A longer refault without an identity is not admitted.
 */
static inline enum aws_decision aws_hold_rules(const struct aws_displaced *d,
					       const struct aws_refault *r,
					       unsigned long h,
					       unsigned long target,
					       unsigned long stay)
{
	const struct aws_lru_sizes *z = &r->sizes;
	unsigned long resident = aws_sat_add(z->active_anon, z->inactive_anon);

	if (r->distance <= z->active_anon)
		return aws_displaced_admit(d, r, h);
	if (!r->id ||
	    !aws_hash_below(h, target, aws_sat_add(r->distance, resident)))
		return AWS_NO;
	if (z->active_anon < target)
		return AWS_YES;
	return aws_displaced_stay_away(d, stay) ? AWS_YES : AWS_NO;
}

/*
 * The inactive_ratio answer that makes the anon list low exactly while
 * its inactive list holds fewer than @target pages: 0 (inactive * 0 <
 * active whenever anything is active), or one more than active / inactive
 * (inactive * ratio > active).
 */
static inline unsigned long aws_ratio_for_target(const struct aws_lru_sizes *s,
						 unsigned long target)
{
	if (s->inactive_anon < target || !s->inactive_anon)
		return 0;
	return s->active_anon / s->inactive_anon + 1;
}

#ifndef AWS_TARGET_BPF
/* True for a policy that takes no decision: stock 6.1. */
static inline bool aws_policy_is_stock(const struct aws_policy *p)
{
	return !p->new_anon && !p->swapin && !p->swapin_mapped && !p->evict &&
	       !p->refault && !p->age && !p->first_reference &&
	       !p->keep_active && !p->inactive_ratio && !p->file_workingset;
}

/*
 * Find a policy by a name of @len bytes (a sysfs write: one trailing
 * newline allowed, nothing else).
 */
static inline const struct aws_policy *aws_policy_find(const char *buf,
						       size_t len)
{
	unsigned int i;

	len = aws_strip_newline(buf, len);
	if (!len || len > AWS_POLICY_NAME_MAX)
		return NULL;
	for (i = 0; i < aws_nr_policies; i++)
		if (aws_word_eq(buf, len, aws_policies[i]->name))
			return aws_policies[i];
	return NULL;
}

/* The ratio the anon list is balanced with under @p. */
static inline unsigned long aws_policy_ratio(const struct aws_policy *p,
					     unsigned int ratio_param,
					     unsigned long stock_ratio,
					     const struct aws_lru_sizes *s,
					     void *state)
{
	if (aws_policy_is_stock(p))
		return stock_ratio;
	if (ratio_param != AWS_RATIO_AUTO)
		return aws_inactive_ratio(ratio_param, stock_ratio);
	if (p->inactive_ratio)
		return p->inactive_ratio(s, stock_ratio, state);
	return stock_ratio;
}

#endif /* !AWS_TARGET_BPF */

/*
 *		One source, every target
 *
 * A policy file that declares its decisions and its table with the macros
 * below compiles unchanged into the module and the simulator (a struct
 * aws_policy named aws_policy_NAME, called directly) and, with
 * AWS_TARGET_BPF, into a BPF struct_ops object (a struct aws_bpf_ops named
 * bNAME, of policy name "bNAME": userspace/bpf/Makefile builds one for
 * every file of its SHARED list; the simulator builds the same, twins.c).
 * Only how a decision is declared and how it reaches its state differ:
 *
 *   AWS_ON_NEW_ANON(prog), AWS_ON_SWAPIN, AWS_ON_SWAPIN_MAPPED,
 *   AWS_ON_EVICT, AWS_ON_AGE, AWS_ON_FIRST_REFERENCE, AWS_ON_KEEP_ACTIVE
 *				a folio decision: f, state
 *   AWS_ON_REFAULT(prog)		r, state
 *   AWS_ON_INACTIVE_RATIO(prog)	sizes, stock_ratio, state
 *   AWS_ON_FILE_WORKINGSET(prog)	sizes, stock_size
 *   AWS_ON_STATE_INIT(prog)		state
 *   AWS_STATE(type, state)		the state as a type * (NULL: none; in BPF
 *				the kfunc aws_bpf_state_mem() bounds it, and
 *				wants it checked for NULL first)
 *   AWS_DEFINE_POLICY(name) = { ... }	the table: .name = AWS_NAME("name"),
 *				each decision .member = prog (the BPF build
 *				converts a program to its member's type, as
 *				a struct_ops table's (void *) casts do)
 *   AWS_SETTING(name, value)	an unsigned long constant; in BPF a const
 *				volatile one, which aws-bpf-load -s sets
 *   AWS_ALWAYS(pol, member, answer)	the folio decision pol_member that
 *				always gives answer
 *   AWS_FILE_WORKINGSET_ACTIVE(pol)	pol_file_workingset, the seed's file
 *				rule: a file refault against active file alone
 *
 * A BPF program serves one member, so a file that answers two members
 * alike declares two decisions.  The state's type must fit
 * AWS_BPF_STATE_MAX bytes, and what a decision calls must be in the file
 * or in this header.
 */
#ifdef AWS_TARGET_BPF
/* The kfunc wants a pointer checked for NULL, and a constant size. */
static __always_inline void *aws_state_mem(struct aws_bpf_state *state,
					   unsigned long size)
{
	return state ? aws_bpf_state_mem(state, size) : NULL;
}

#define AWS_FOLIO_PROG(sec, prog)					\
	SEC(sec) enum aws_decision BPF_PROG(prog, const struct aws_folio *f, \
					    struct aws_bpf_state *state)
#define AWS_ON_NEW_ANON(prog)	AWS_FOLIO_PROG("struct_ops/new_anon", prog)
#define AWS_ON_SWAPIN(prog)	AWS_FOLIO_PROG("struct_ops/swapin", prog)
#define AWS_ON_SWAPIN_MAPPED(prog) AWS_FOLIO_PROG("struct_ops/swapin_mapped", prog)
#define AWS_ON_EVICT(prog)	AWS_FOLIO_PROG("struct_ops/evict", prog)
#define AWS_ON_AGE(prog)	AWS_FOLIO_PROG("struct_ops/age", prog)
#define AWS_ON_FIRST_REFERENCE(prog) AWS_FOLIO_PROG("struct_ops/first_reference", prog)
#define AWS_ON_KEEP_ACTIVE(prog) AWS_FOLIO_PROG("struct_ops/keep_active", prog)
#define AWS_ON_REFAULT(prog)						\
	SEC("struct_ops/refault")					\
	enum aws_decision BPF_PROG(prog, struct aws_refault *r,	\
				   struct aws_bpf_state *state)
#define AWS_ON_INACTIVE_RATIO(prog)					\
	SEC("struct_ops/inactive_ratio")				\
	unsigned long BPF_PROG(prog, const struct aws_lru_sizes *sizes,	\
			       unsigned long stock_ratio,		\
			       struct aws_bpf_state *state)
#define AWS_ON_FILE_WORKINGSET(prog)					\
	SEC("struct_ops/file_workingset")				\
	unsigned long BPF_PROG(prog, const struct aws_lru_sizes *sizes,	\
			       unsigned long stock_size)
#define AWS_ON_STATE_INIT(prog)						\
	SEC("struct_ops/state_init")					\
	void BPF_PROG(prog, struct aws_bpf_state *state)
#define AWS_STATE(type, state)	((type *)aws_state_mem((state), sizeof(type)))
#define AWS_NAME(name)		"b" name
#define AWS_DEFINE_POLICY(name)						\
	AWS_BPF_LICENSE;						\
	SEC(".struct_ops.link") struct aws_bpf_ops b##name
#define AWS_SETTING(name, value) AWS_BPF_RODATA unsigned long name = (value)
#define AWS_ALWAYS(pol, member, answer)					\
	AWS_BPF_ALWAYS(pol##_##member, member, answer)
#define AWS_FILE_WORKINGSET_ACTIVE(pol)					\
	AWS_BPF_FILE_WORKINGSET_ACTIVE(pol##_file_workingset)
#else
#define AWS_FOLIO_PROG(prog)						\
	static enum aws_decision prog(const struct aws_folio *f, void *state)
#define AWS_ON_NEW_ANON(prog)	AWS_FOLIO_PROG(prog)
#define AWS_ON_SWAPIN(prog)	AWS_FOLIO_PROG(prog)
#define AWS_ON_SWAPIN_MAPPED(prog) AWS_FOLIO_PROG(prog)
#define AWS_ON_EVICT(prog)	AWS_FOLIO_PROG(prog)
#define AWS_ON_AGE(prog)	AWS_FOLIO_PROG(prog)
#define AWS_ON_FIRST_REFERENCE(prog) AWS_FOLIO_PROG(prog)
#define AWS_ON_KEEP_ACTIVE(prog) AWS_FOLIO_PROG(prog)
#define AWS_ON_REFAULT(prog)						\
	static enum aws_decision prog(struct aws_refault *r, void *state)
#define AWS_ON_INACTIVE_RATIO(prog)					\
	static unsigned long prog(const struct aws_lru_sizes *sizes,	\
				  unsigned long stock_ratio, void *state)
#define AWS_ON_FILE_WORKINGSET(prog)					\
	static unsigned long prog(const struct aws_lru_sizes *sizes,	\
				  unsigned long stock_size)
#define AWS_ON_STATE_INIT(prog)	static void prog(void *state)
#define AWS_STATE(type, state)	((type *)(state))
#define AWS_NAME(name)		name
#define AWS_DEFINE_POLICY(name)	const struct aws_policy aws_policy_##name
#define AWS_SETTING(name, value) static const unsigned long name = (value)
#define AWS_ALWAYS(pol, member, answer)					\
	static enum aws_decision pol##_##member(const struct aws_folio *f, \
						void *state)		\
	{								\
		return answer;						\
	}
#define AWS_FILE_WORKINGSET_ACTIVE(pol)					\
	static unsigned long pol##_file_workingset(const struct aws_lru_sizes *s, \
						   unsigned long stock_size) \
	{								\
		return s->active_file;					\
	}
#endif

#endif /* _AWS_POLICY_H */
