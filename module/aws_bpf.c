// SPDX-License-Identifier: GPL-2.0
/*
 * aws_bpf.c - anon LRU policies written in BPF (6.12)
 *
 * The module registers a BPF struct_ops type, struct aws_bpf_ops, whose
 * members are the decisions of struct aws_policy (include/aws_policy.h)
 * with the same meaning: a BPF program that fills some of them is a
 * policy.  A loader attaches it with a BPF link (libbpf's
 * bpf_map__attach_struct_ops(), SEC(".struct_ops.link")); from then on its
 * name is listed and selected like a built-in policy's, in the `policy`
 * parameter and in memory.anon_ws_policy.  The framework does for it all
 * it does for a C policy: clocks, shadows, sweeps, counters, the private
 * state.  When the link goes away -- the loader detaches it, exits or is
 * killed -- every user of the policy gets back the policy it ran before
 * (the global setting and each cgroup's, aws_cgroup_forget()), in one
 * policy switch that sweeps the shadows it stamped (no other cgroup's
 * policy changes, and their shadows stay), and only then is the slot
 * freed.  A link
 * update (BPF_LINK_UPDATE; aws-bpf-load on SIGHUP) replaces the program in
 * place, with no switch: the slot, its users, state and shadows stay, so
 * the replacement must keep the name, clock, state size, cgroup and set
 * of members of the attach.
 *
 * What a program may do is what a C policy may do, and the verifier checks
 * it before the program can run: read its arguments, write only a
 * refault's workingset_size and quiet and its own state, never sleep.
 * The private state is what the policy declares (ops.state_size, up to
 * AWS_BPF_STATE_MAX bytes) per (memcg, node): its first
 * AWS_BPF_STATE_WORDS words are struct aws_bpf_state, the callbacks'
 * argument, and aws_bpf_state_mem() gives a program the whole as memory
 * of a size the verifier bounds and the module checks against the
 * declaration.  A policy that needs more keeps it in a BPF map.
 *
 * A BPF policy runs in one of AWS_BPF_SLOTS run slots after the registry's
 * policies (aws_runs[], anon_workingset.h).  The slot's struct aws_policy
 * points at per-slot thunks that call the attached program, so the hooks
 * (aws_hooks.c) do not know whether a policy is C or BPF.  Attach and
 * detach run under the module's parameter lock, which orders them
 * against policy writes, load and unload; while a policy is attached its
 * map holds a reference on the module, so rmmod waits for the detach.
 *
 * Three kfuncs (BPF functions the module gives its programs, and only
 * them): aws_bpf_clock() reads the calling policy's non-resident clock
 * of a (memcg, node), the clock its shadows are stamped with,
 * aws_bpf_error() asks the module to eject the calling policy, with the
 * code it gives in the reason, and aws_bpf_state_mem() gives it its whole
 * state.  They know the caller from the callback
 * running on this CPU (aws_bpf_current: the thunks set it, with
 * preemption off for the call).
 *
 * The way out: a callback that runs longer than bpf_budget_ms (a load
 * parameter, 200 ms by default), or calls aws_bpf_error(), gets its
 * policy ejected.  The thunk that
 * timed it queues a work that detaches the policy's link as `bpf_link
 * detach` would (its users get their previous policy back, as above),
 * counts it in /proc/anon_workingset (bpf_ejections) and says why in the
 * kernel log, which the loader prints.  A program cannot be stopped
 * halfway: the call that overran ends first, and the calls in flight.
 */
#include <linux/bpf.h>
#include <linux/bpf_verifier.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/workqueue.h>

#include "anon_workingset.h"
#include "aws_bpf_ops.h"
#include "aws_trace.h"

/*
 * A run slot: the attached program's ops and the policy that calls them,
 * its link, and what the way out needs: the attach it belongs to (gen),
 * and which callback overran, for how long.
 */
struct aws_bpf_slot {
	struct aws_bpf_ops *ops;
	struct aws_policy policy;
	char name[AWS_POLICY_NAME_MAX + 1];
	char description[AWS_BPF_DESCRIPTION_MAX];
	struct bpf_link *link;
	unsigned long gen;
	atomic_t ejecting;
	unsigned long eject_gen;
	const char *eject_member;
	u64 eject_ns;
	long eject_error;	/* aws_bpf_error()'s code, or -1: the budget */
	struct work_struct eject_work;
};

static struct aws_bpf_slot aws_bpf_slots[AWS_BPF_SLOTS];

static unsigned int bpf_budget_ms = 200;
module_param(bpf_budget_ms, uint, 0444);
MODULE_PARM_DESC(bpf_budget_ms,
		 "a BPF policy whose callback runs longer (ms, 1..60000, 200 by default) is detached");
static u64 aws_bpf_budget_ns;

/* Eject slot @n's policy (once; from any context): a work detaches it. */
static void aws_bpf_eject(unsigned int n, const char *member, u64 ns,
			  long error)
{
	struct aws_bpf_slot *s = &aws_bpf_slots[n];

	if (atomic_cmpxchg(&s->ejecting, 0, 1))
		return;
	s->eject_gen = READ_ONCE(s->gen);
	s->eject_member = member;
	s->eject_ns = ns;
	s->eject_error = error;
	queue_work(system_unbound_wq, &s->eject_work);
}

/*
 * A callback of slot @n's program began at @t0 and just ended: if it ran
 * over the budget, eject the policy.
 */
static void aws_bpf_timed(unsigned int n, const char *member, u64 t0)
{
	u64 ns = local_clock() - t0;

	if (unlikely(ns > aws_bpf_budget_ns))
		aws_bpf_eject(n, member, ns, -1);
}

/* The callback running on this CPU: its slot + 1 (0: none), its member. */
struct aws_bpf_current {
	unsigned int slot_nr;
	const char *callback;
};

static DEFINE_PER_CPU(struct aws_bpf_current, aws_bpf_current);

/*
 * Call slot @slot's @member as @call, timed against the budget, with
 * preemption off so that a kfunc it calls knows it (aws_bpf_current).
 */
#define AWS_BPF_TIMED(slot, member, call) ({				\
	struct aws_bpf_current *__cur, __was;				\
	unsigned int __slot = (slot);					\
	typeof(call) __ret;						\
	u64 __t0;							\
									\
	preempt_disable();						\
	__cur = this_cpu_ptr(&aws_bpf_current);				\
	__was = *__cur;							\
	__cur->slot_nr = __slot + 1;					\
	__cur->callback = #member;					\
	__t0 = local_clock();						\
	__ret = (call);							\
	aws_bpf_timed(__slot, #member, __t0);				\
	*__cur = __was;							\
	preempt_enable();						\
	__ret;								\
})

/*
 * The largest inactive ratio a program may answer: times any inactive list
 * below 2^48 pages it cannot overflow in inactive_is_low().
 */
#define AWS_BPF_RATIO_MAX	BIT(16)

/* The thunks of each slot's policy (aws_bpf_thunks.h) */
#define AWS_BPF_SLOT 0
#include "aws_bpf_thunks.h"
#undef AWS_BPF_SLOT
#define AWS_BPF_SLOT 1
#include "aws_bpf_thunks.h"
#undef AWS_BPF_SLOT
#define AWS_BPF_SLOT 2
#include "aws_bpf_thunks.h"
#undef AWS_BPF_SLOT
#define AWS_BPF_SLOT 3
#include "aws_bpf_thunks.h"
#undef AWS_BPF_SLOT

static const struct aws_policy *const aws_bpf_thunks[AWS_BPF_SLOTS] = {
	&aws_bpf_thunks_0, &aws_bpf_thunks_1, &aws_bpf_thunks_2,
	&aws_bpf_thunks_3,
};

/*
 * The cfi stubs: one function per member with the member's prototype,
 * never called.  The verifier learns from them which argument may be NULL
 * (the __nullable suffix), and the trampoline its CFI type.
 */
static enum aws_decision aws_bpf_stub_folio(const struct aws_folio *f,
					    struct aws_bpf_state *state__nullable)
{
	return AWS_NO;
}

static enum aws_decision aws_bpf_stub_refault(struct aws_refault *r,
					      struct aws_bpf_state *state__nullable)
{
	return AWS_NO;
}

static unsigned long aws_bpf_stub_inactive_ratio(const struct aws_lru_sizes *s,
						 unsigned long stock_ratio,
						 struct aws_bpf_state *state__nullable)
{
	return stock_ratio;
}

static unsigned long aws_bpf_stub_file_workingset(const struct aws_lru_sizes *s,
						  unsigned long stock_size)
{
	return stock_size;
}

static void aws_bpf_stub_state_init(struct aws_bpf_state *state)
{
}

static struct aws_bpf_ops aws_bpf_cfi_stubs = {
	.new_anon = aws_bpf_stub_folio,
	.swapin = aws_bpf_stub_folio,
	.swapin_mapped = aws_bpf_stub_folio,
	.evict = aws_bpf_stub_folio,
	.refault = aws_bpf_stub_refault,
	.age = aws_bpf_stub_folio,
	.first_reference = aws_bpf_stub_folio,
	.keep_active = aws_bpf_stub_folio,
	.inactive_ratio = aws_bpf_stub_inactive_ratio,
	.file_workingset = aws_bpf_stub_file_workingset,
	.state_init = aws_bpf_stub_state_init,
};

/* The two structs programs may write into, by BTF type. */
BTF_ID_LIST(aws_bpf_btf_ids)
BTF_ID(struct, aws_bpf_state)
BTF_ID(struct, aws_refault)
BTF_ID(struct, aws_bpf_ops)

static const struct btf_type *aws_bpf_state_type, *aws_bpf_refault_type;
static const struct btf *aws_bpf_btf;	/* the module's */

static int aws_bpf_btf_init(struct btf *btf)
{
	aws_bpf_state_type = btf_type_by_id(btf, aws_bpf_btf_ids[0]);
	aws_bpf_refault_type = btf_type_by_id(btf, aws_bpf_btf_ids[1]);
	if (!aws_bpf_state_type || !aws_bpf_refault_type ||
	    aws_bpf_state_type->size != sizeof(struct aws_bpf_state) ||
	    aws_bpf_refault_type->size != sizeof(struct aws_refault)) {
		pr_err("anon_workingset: the module's BTF does not describe aws_bpf_state and aws_refault\n");
		return -EINVAL;
	}
	aws_bpf_btf = btf;
	return 0;
}

static bool aws_bpf_is_valid_access(int off, int size,
				    enum bpf_access_type type,
				    const struct bpf_prog *prog,
				    struct bpf_insn_access_aux *info)
{
	return bpf_tracing_btf_ctx_access(off, size, type, prog, info);
}

static bool aws_bpf_within(int off, int size, size_t start, size_t end)
{
	return off >= 0 && off >= start && off + size <= end;
}

/* Every write through a pointer argument asks here. */
static int aws_bpf_btf_struct_access(struct bpf_verifier_log *log,
				     const struct bpf_reg_state *reg,
				     int off, int size)
{
	const struct btf_type *t = btf_type_by_id(reg->btf, reg->btf_id);

	if (t == aws_bpf_state_type) {
		if (aws_bpf_within(off, size, 0, sizeof(struct aws_bpf_state)))
			return SCALAR_VALUE;
		bpf_log(log,
			"anon_workingset: write beyond aws_bpf_state.words (off %d size %d, %zu bytes)\n",
			off, size, sizeof(struct aws_bpf_state));
		return -EACCES;
	}
	if (t == aws_bpf_refault_type &&
	    (aws_bpf_within(off, size,
			    offsetof(struct aws_refault, workingset_size),
			    offsetofend(struct aws_refault, workingset_size)) ||
	     aws_bpf_within(off, size, offsetof(struct aws_refault, quiet),
			    offsetofend(struct aws_refault, quiet))))
		return SCALAR_VALUE;
	bpf_log(log,
		"anon_workingset: only aws_refault.workingset_size, .quiet and aws_bpf_state.words are writable (off %d size %d)\n",
		off, size);
	return -EACCES;
}

static const struct bpf_verifier_ops aws_bpf_verifier_ops = {
	.get_func_proto = bpf_base_func_proto,
	.is_valid_access = aws_bpf_is_valid_access,
	.btf_struct_access = aws_bpf_btf_struct_access,
};

/* Decisions run in atomic context: a sleepable program cannot be one. */
static int aws_bpf_check_member(const struct btf_type *t,
				const struct btf_member *member,
				const struct bpf_prog *prog)
{
	if (prog->sleepable) {
		pr_warn("anon_workingset: BPF policy decisions run in atomic context; sleepable programs are refused\n");
		return -EINVAL;
	}
	return 0;
}

/* @s is a NUL-terminated string of at most @size - 1 printable chars. */
static bool aws_bpf_string_ok(const char *s, size_t size, bool name)
{
	size_t len = strnlen(s, size), i;

	if (len == size || (name && !len))
		return false;
	for (i = 0; i < len; i++)
		if (name ? !(islower(s[i]) || isdigit(s[i]) || s[i] == '_') :
			   !isprint(s[i]))
			return false;
	return true;
}

/* The data members: checked and copied here, function members by the core. */
static int aws_bpf_init_member(const struct btf_type *t,
			       const struct btf_member *member,
			       void *kdata, const void *udata)
{
	const struct aws_bpf_ops *u = udata;
	struct aws_bpf_ops *k = kdata;

	switch (__btf_member_bit_offset(t, member) / 8) {
	case offsetof(struct aws_bpf_ops, clock):
		if (u->clock > AWS_CLOCK_SHARED) {
			pr_warn("anon_workingset: BPF policy %.*s: clock %u is none of AWS_CLOCK_NONE, _ANON, _SHARED\n",
				AWS_POLICY_NAME_MAX, u->name, u->clock);
			return -EINVAL;
		}
		k->clock = u->clock;
		return 1;
	case offsetof(struct aws_bpf_ops, state_size):
		if (u->state_size > AWS_BPF_STATE_MAX) {
			pr_warn("anon_workingset: BPF policy %.*s: state_size %u, at most %d\n",
				AWS_POLICY_NAME_MAX, u->name, u->state_size,
				AWS_BPF_STATE_MAX);
			return -E2BIG;
		}
		k->state_size = u->state_size;
		return 1;
	case offsetof(struct aws_bpf_ops, name):
		if (!aws_bpf_string_ok(u->name, sizeof(u->name), true)) {
			pr_warn("anon_workingset: a BPF policy's name must be 1 to %d of [a-z0-9_]\n",
				AWS_POLICY_NAME_MAX);
			return -EINVAL;
		}
		memcpy(k->name, u->name, sizeof(k->name));
		return 1;
	case offsetof(struct aws_bpf_ops, description):
		if (!aws_bpf_string_ok(u->description, sizeof(u->description),
				       false)) {
			pr_warn("anon_workingset: BPF policy %s: the description must be one line of printable characters, at most %d\n",
				k->name, AWS_BPF_DESCRIPTION_MAX - 1);
			return -EINVAL;
		}
		memcpy(k->description, u->description, sizeof(k->description));
		return 1;
	case offsetof(struct aws_bpf_ops, cgroup_id):
		k->cgroup_id = u->cgroup_id;	/* checked when it attaches */
		return 1;
	}
	return 0;
}

/* What include/aws_policy.h asks of every policy. */
static int aws_bpf_validate(void *kdata)
{
	const struct aws_bpf_ops *ops = kdata;

	if (!ops->new_anon && !ops->swapin && !ops->swapin_mapped &&
	    !ops->evict && !ops->refault && !ops->age &&
	    !ops->first_reference && !ops->keep_active &&
	    !ops->inactive_ratio && !ops->file_workingset) {
		pr_warn("anon_workingset: BPF policy %s takes no decision (that is stock)\n",
			ops->name);
		return -EINVAL;
	}
	if (ops->evict && ops->clock != AWS_CLOCK_NONE && !ops->refault) {
		pr_warn("anon_workingset: BPF policy %s stamps shadows (evict, a clock) but judges no refault\n",
			ops->name);
		return -EINVAL;
	}
	return 0;
}

static struct aws_run *aws_bpf_run(unsigned int n)
{
	return &aws_runs[aws_nr_policies + n];
}

/* Fill slot @n's policy from @ops: its name, and thunks for its members. */
static void aws_bpf_fill(unsigned int n, struct aws_bpf_ops *ops)
{
	struct aws_bpf_slot *slot = &aws_bpf_slots[n];
	const struct aws_policy *th = aws_bpf_thunks[n];
	struct aws_policy *p = &slot->policy;

	slot->ops = ops;
	memcpy(slot->name, ops->name, sizeof(slot->name));
	memcpy(slot->description, ops->description, sizeof(slot->description));
	*p = (struct aws_policy) {
		.name = slot->name,
		.description = slot->description[0] ? slot->description :
			       "a BPF policy",
		.clock = ops->clock,
		/* the callbacks' struct aws_bpf_state at least */
		.state_size = ops->state_size ?
			      max_t(u32, round_up(ops->state_size, sizeof(u64)),
				    sizeof(struct aws_bpf_state)) : 0,
		.state_init = ops->state_init ? th->state_init : NULL,
		.new_anon = ops->new_anon ? th->new_anon : NULL,
		.swapin = ops->swapin ? th->swapin : NULL,
		.swapin_mapped = ops->swapin_mapped ? th->swapin_mapped : NULL,
		.evict = ops->evict ? th->evict : NULL,
		.refault = ops->refault ? th->refault : NULL,
		.age = ops->age ? th->age : NULL,
		.first_reference = ops->first_reference ?
				   th->first_reference : NULL,
		.keep_active = ops->keep_active ? th->keep_active : NULL,
		.inactive_ratio = ops->inactive_ratio ?
				  th->inactive_ratio : NULL,
		.file_workingset = ops->file_workingset ?
				   th->file_workingset : NULL,
	};
}

/* Set up slot @n's tables of state and clock for its policy. */
static int aws_bpf_alloc(unsigned int n)
{
	struct aws_run *r = aws_bpf_run(n);
	const struct aws_policy *p = &aws_bpf_slots[n].policy;

	r->policy = p;
	r->stock = false;
	if (p->state_size &&
	    aws_table_init(&r->state, p->state_size, p->state_init))
		return -ENOMEM;
	if (aws_clock_init(r, 1)) {
		aws_table_free(&r->state);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Slot @n's link is gone, or its attach failed, parameter lock held: hand
 * every user of the policy back to the policy it ran before, in one
 * switch (aws_switch.c), then free the slot once no hook can reach it.
 * Process context, may sleep, cannot fail.
 */
static void aws_bpf_drop(unsigned int n)
{
	unsigned int idx, prev;
	unsigned long swept;
	void **state, **clock;
	struct aws_run *r;

	r = aws_bpf_run(n);
	idx = aws_nr_policies + n;
	aws_bpf_slots[n].link = NULL;
	aws_switch_begin(NULL, idx);
	WRITE_ONCE(r->live, false);
	if (aws_global == idx) {
		prev = aws_global_prev;
		if (prev == idx || !aws_run_name(prev))
			prev = aws_policy_index(aws_policy_default);
		WRITE_ONCE(aws_global, prev);
	}
	if (aws_global_prev == idx)
		aws_global_prev = AWS_NO_POLICY;
	aws_cgroup_forget(idx);
	swept = aws_switch_end();
	atomic_long_inc(&aws_switches);
	trace_aws_switch("detach", 0, r->policy->name, swept);
	state = aws_table_detach(&r->state);
	clock = aws_table_detach(&r->clock);
	/* aws_state_claim() may still hold the pointers */
	aws_synchronize();
	aws_table_free_chunks(&r->state, state);
	aws_table_free_chunks(&r->clock, clock);
	pr_info("anon_workingset: BPF policy %s detached, global policy %s, %lu shadows dropped\n",
		aws_bpf_slots[n].name, aws_run_name(aws_global), swept);
}

/*
 * A link is created: list the policy (it runs only once selected).  Only
 * link mode: a legacy struct_ops map would stay attached after its loader
 * died.
 */
static int aws_bpf_reg(void *kdata, struct bpf_link *link)
{
	struct aws_bpf_ops *ops = kdata;
	unsigned int n, free = AWS_BPF_SLOTS;
	int ret = 0;

	if (!link) {
		pr_warn("anon_workingset: BPF policy %s: attach it with a link (SEC(\".struct_ops.link\"))\n",
			ops->name);
		return -EOPNOTSUPP;
	}
	/* CAP_BPF may load it; choosing what reclaim does takes more. */
	if (!capable(CAP_SYS_ADMIN)) {
		pr_warn("anon_workingset: BPF policy %s: attaching needs CAP_SYS_ADMIN\n",
			ops->name);
		return -EPERM;
	}
	kernel_param_lock(THIS_MODULE);
	if (aws_exiting || !aws_live) {
		ret = -EBUSY;
		goto out;
	}
	if (aws_word_eq(ops->name, strlen(ops->name), "default") ||
	    aws_run_find(ops->name, strlen(ops->name)) != AWS_NO_POLICY) {
		pr_warn("anon_workingset: BPF policy %s: a policy of that name is running\n",
			ops->name);
		ret = -EEXIST;
		goto out;
	}
	if (ops->cgroup_id) {
		ret = aws_cgroup_check_id(ops->cgroup_id);
		if (ret)
			goto bad_cgroup;
	}
	for (n = 0; n < AWS_BPF_SLOTS && free == AWS_BPF_SLOTS; n++)
		if (!aws_bpf_run(n)->live)
			free = n;
	if (free == AWS_BPF_SLOTS) {
		pr_warn("anon_workingset: BPF policy %s: all %d BPF policy slots are taken\n",
			ops->name, AWS_BPF_SLOTS);
		ret = -ENOSPC;
		goto out;
	}
	aws_bpf_fill(free, ops);
	ret = aws_bpf_alloc(free);
	if (ret)
		goto out;
	aws_bpf_slots[free].link = link;
	aws_bpf_slots[free].gen++;
	atomic_set(&aws_bpf_slots[free].ejecting, 0);
	/* Pairs with the lookups' acquire: who sees it live sees it filled. */
	smp_store_release(&aws_bpf_run(free)->live, true);
	/*
	 * The link's cgroup, under the same lock: attached and selected, or
	 * neither (the cgroup may have gone since the check above).
	 */
	if (ops->cgroup_id) {
		ret = aws_cgroup_select_run(ops->cgroup_id,
					    aws_nr_policies + free);
		if (ret) {
			aws_bpf_drop(free);
			goto bad_cgroup;
		}
	}
	pr_info("anon_workingset: BPF policy %s attached (%s)%s\n", ops->name,
		aws_bpf_slots[free].policy.description,
		ops->cgroup_id ? " for its cgroup" : "");
out:
	kernel_param_unlock(THIS_MODULE);
	return ret;
bad_cgroup:
	pr_warn("anon_workingset: BPF policy %s: cgroup %llu is %s\n", ops->name,
		ops->cgroup_id, ret == -ENODEV ? "being deleted" :
		ret == -ENOENT ? "no memory cgroup below the root" :
		"not selectable (no memory)");
	goto out;
}

static void aws_bpf_unreg(void *kdata, struct bpf_link *link)
{
	unsigned int n;

	kernel_param_lock(THIS_MODULE);
	for (n = 0; n < AWS_BPF_SLOTS; n++)
		if (aws_bpf_run(n)->live && aws_bpf_slots[n].ops == kdata)
			break;
	if (n < AWS_BPF_SLOTS)
		aws_bpf_drop(n);
	kernel_param_unlock(THIS_MODULE);
}

/* Which function members @ops fills, one bit each. */
static unsigned int aws_bpf_members(const struct aws_bpf_ops *ops)
{
	const void *const fns[] = {
		ops->new_anon, ops->swapin, ops->swapin_mapped, ops->evict,
		ops->refault, ops->age, ops->first_reference, ops->keep_active,
		ops->inactive_ratio, ops->file_workingset, ops->state_init,
	};
	unsigned int i, mask = 0;

	for (i = 0; i < ARRAY_SIZE(fns); i++)
		mask |= !!fns[i] << i;
	return mask;
}

/*
 * A link update: @kdata's programs replace @old_kdata's in the slot, in
 * place.  The slot's policy (aws_bpf_fill()) points at the same thunks
 * only if the replacement fills the same members; its name, clock and
 * state size, and the cgroup the link selected, are its users' and its
 * tables', so they must stay too.  Once no hook can still be calling the
 * old programs, the BPF core frees them.
 */
static int aws_bpf_update(void *kdata, void *old_kdata, struct bpf_link *link)
{
	struct aws_bpf_ops *ops = kdata, *old = old_kdata;
	struct aws_bpf_slot *s = NULL;
	unsigned int n;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN)) {
		pr_warn("anon_workingset: BPF policy %s: updating needs CAP_SYS_ADMIN\n",
			old->name);
		return -EPERM;
	}
	kernel_param_lock(THIS_MODULE);
	for (n = 0; n < AWS_BPF_SLOTS && !s; n++)
		if (aws_bpf_run(n)->live && aws_bpf_slots[n].ops == old &&
		    aws_bpf_slots[n].link == link)
			s = &aws_bpf_slots[n];
	if (!s) {
		ret = -ENOLINK;
		goto out;
	}
	if (strcmp(ops->name, old->name) || ops->clock != old->clock ||
	    ops->state_size != old->state_size ||
	    ops->cgroup_id != old->cgroup_id ||
	    aws_bpf_members(ops) != aws_bpf_members(old)) {
		pr_warn("anon_workingset: BPF policy %s: an update must keep the name, clock, state size, cgroup and members of the attach (attach a new policy to change them)\n",
			old->name);
		ret = -EINVAL;
		goto out;
	}
	WRITE_ONCE(s->ops, ops);
	/* an ejection queued for the old programs is not the new ones' */
	s->gen++;
	atomic_set(&s->ejecting, 0);
	aws_synchronize();
	pr_info("anon_workingset: BPF policy %s updated in place\n", ops->name);
out:
	kernel_param_unlock(THIS_MODULE);
	return ret;
}

/*
 * The way out: detach the link of a policy whose callback overran, as
 * BPF_LINK_DETACH does (it calls aws_bpf_unreg() and wakes the loader's
 * poll), unless the policy it was queued for is gone already.  Under the
 * parameter lock a slot's link, once set, is alive: its release calls
 * aws_bpf_unreg(), which clears it under the same lock, before freeing.
 */
static void aws_bpf_eject_work(struct work_struct *work)
{
	struct aws_bpf_slot *s = container_of(work, struct aws_bpf_slot, eject_work);
	struct bpf_link *link = NULL;

	kernel_param_lock(THIS_MODULE);
	if (s->link && s->gen == s->eject_gen)
		link = bpf_link_inc_not_zero(s->link);
	if (!IS_ERR_OR_NULL(link)) {
		atomic_long_inc(&aws_bpf_ejections);
		if (s->eject_error >= 0)
			pr_warn("anon_workingset: BPF policy %s ejected: its %s callback called aws_bpf_error(%ld)\n",
				s->name, s->eject_member, s->eject_error);
		else
			pr_warn("anon_workingset: BPF policy %s ejected: its %s callback ran %llu us, over the %u ms budget\n",
				s->name, s->eject_member,
				div_u64(s->eject_ns, NSEC_PER_USEC), bpf_budget_ms);
	}
	kernel_param_unlock(THIS_MODULE);
	if (IS_ERR_OR_NULL(link))
		return;
	link->ops->detach(link);
	bpf_link_put(link);
}

__bpf_kfunc_start_defs();

/*
 * The calling policy's non-resident clock of the lruvec of memcg
 * @memcg_id on node @nid (as struct aws_folio and aws_lru_sizes name
 * them): the value a shadow stamped now would carry, so that now minus a
 * stamp read at eviction is the refault distance the module computes.
 * 0 for a policy without a clock, an unknown memcg or node, or a call
 * from outside a callback.
 */
__bpf_kfunc u64 aws_bpf_clock(u32 memcg_id, u32 nid)
{
	unsigned int slot = this_cpu_read(aws_bpf_current.slot_nr);
	struct mem_cgroup *memcg;
	u64 now = 0;

	if (!slot || nid >= nr_node_ids || !node_online(nid))
		return 0;
	rcu_read_lock();
	memcg = mem_cgroup_disabled() ? NULL : mem_cgroup_from_id(memcg_id);
	if (memcg || mem_cgroup_disabled())
		now = aws_clock_read(aws_bpf_run(slot - 1),
				     mem_cgroup_lruvec(memcg, NODE_DATA(nid)));
	rcu_read_unlock();
	return now;
}

/*
 * The calling policy gives up: it is ejected as one over its budget is,
 * and the kernel log (and so its loader) says that it called this with
 * @code.  The call itself returns; so does the callback.
 */
__bpf_kfunc void aws_bpf_error(u32 code)
{
	unsigned int slot = this_cpu_read(aws_bpf_current.slot_nr);

	if (slot)
		aws_bpf_eject(slot - 1, this_cpu_read(aws_bpf_current.callback),
			      0, code);
}

/*
 * The calling policy's state @state (its callback's argument) as
 * @rdwr_buf_size bytes of memory the program may read and write: the
 * verifier bounds every access by that constant, and this checks it
 * against what the policy declared.  NULL for more than it declared, a
 * NULL @state, or a call from outside a callback.
 */
__bpf_kfunc u8 *aws_bpf_state_mem(struct aws_bpf_state *state,
				  const size_t rdwr_buf_size)
{
	unsigned int slot = this_cpu_read(aws_bpf_current.slot_nr);

	if (!slot || !state ||
	    rdwr_buf_size > READ_ONCE(aws_bpf_slots[slot - 1].ops)->state_size)
		return NULL;
	return (u8 *)state;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(aws_bpf_kfunc_ids)
BTF_ID_FLAGS(func, aws_bpf_clock)
BTF_ID_FLAGS(func, aws_bpf_error)
BTF_ID_FLAGS(func, aws_bpf_state_mem, KF_RET_NULL)
BTF_KFUNCS_END(aws_bpf_kfunc_ids)

/* The kfuncs are for the programs of struct aws_bpf_ops only. */
static int aws_bpf_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&aws_bpf_kfunc_ids, kfunc_id))
		return 0;
	return prog->aux->attach_btf == aws_bpf_btf &&
	       prog->aux->attach_btf_id == aws_bpf_btf_ids[2] ? 0 : -EACCES;
}

static const struct btf_kfunc_id_set aws_bpf_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &aws_bpf_kfunc_ids,
	.filter = aws_bpf_kfunc_filter,
};

static struct bpf_struct_ops aws_bpf_struct_ops = {
	.verifier_ops = &aws_bpf_verifier_ops,
	.init = aws_bpf_btf_init,
	.check_member = aws_bpf_check_member,
	.init_member = aws_bpf_init_member,
	.validate = aws_bpf_validate,
	.reg = aws_bpf_reg,
	.unreg = aws_bpf_unreg,
	.update = aws_bpf_update,
	.cfi_stubs = &aws_bpf_cfi_stubs,
	.owner = THIS_MODULE,
	.name = "aws_bpf_ops",
};

/* At load, after everything else: the type cannot be unregistered. */
int aws_bpf_init(void)
{
	unsigned int n;
	int ret;

	BUILD_BUG_ON(ARRAY_SIZE(aws_bpf_thunks) != AWS_BPF_SLOTS);
	if (!bpf_budget_ms || bpf_budget_ms > 60000) {
		pr_err("anon_workingset: bpf_budget_ms=%u: 1 to 60000 ms\n", bpf_budget_ms);
		return -EINVAL;
	}
	aws_bpf_budget_ns = (u64)bpf_budget_ms * NSEC_PER_MSEC;
	for (n = 0; n < AWS_BPF_SLOTS; n++) {
		aws_bpf_run(n)->policy = &aws_bpf_slots[n].policy;
		INIT_WORK(&aws_bpf_slots[n].eject_work, aws_bpf_eject_work);
	}
	ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS,
					&aws_bpf_kfunc_set);
	if (ret) {
		pr_err("anon_workingset: cannot register the BPF policies' kfuncs (%d)\n",
		       ret);
		return ret;
	}
	ret = register_bpf_struct_ops(&aws_bpf_struct_ops, aws_bpf_ops);
	if (ret)
		pr_err("anon_workingset: cannot register the BPF policy type aws_bpf_ops (%d)\n",
		       ret);
	return ret;
}

/* At unload, before the policies go: no ejection may still be running. */
void aws_bpf_exit(void)
{
	unsigned int n;

	for (n = 0; n < AWS_BPF_SLOTS; n++)
		flush_work(&aws_bpf_slots[n].eject_work);
}
