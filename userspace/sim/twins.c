// SPDX-License-Identifier: GPL-2.0
/*
 * twins - the BPF builds of the module's shared policy files, as policies
 * the simulator can run
 *
 * userspace/bpf/Makefile builds every file of its SHARED list a second
 * time, with AWS_TARGET_BPF, into a BPF struct_ops object bNAME.  The
 * simulator compiles the same files the same way against a stand-in for
 * the BPF header (userspace/shim/bpf/aws_bpf_policy.h), so each gives a
 * struct aws_bpf_ops bNAME here too, and this file turns each into a
 * struct aws_policy whose decisions call the ops' the way the module's
 * thunks do (module/aws_bpf.c): the state block as struct aws_bpf_state,
 * the declared size checked by aws_bpf_state_mem().  The self test runs
 * each twin beside its C build and asks for the same decisions
 * (selftest.c, bpf_twins_decide_alike); `aws-sim --policies bhold` runs
 * one like any policy.
 */
#include <string.h>

#include "aws_bpf_policy.h"
#include "sim.h"

unsigned int aws_bpf_sim_state_size;

/*
 * One twin: its ops (the BPF build's table), thunks that give each
 * decision its state as the module does, and the struct aws_policy made
 * of them on first use.
 */
#define AWS_TWIN_FOLIO(pol, member)					\
static enum aws_decision twin_##pol##_##member(const struct aws_folio *f, \
						void *state)		\
{									\
	aws_bpf_sim_state_size = b##pol.state_size;			\
	return b##pol.member(f, state);				\
}

#define AWS_TWIN(pol)							\
extern struct aws_bpf_ops b##pol;					\
AWS_TWIN_FOLIO(pol, new_anon)						\
AWS_TWIN_FOLIO(pol, swapin)						\
AWS_TWIN_FOLIO(pol, swapin_mapped)					\
AWS_TWIN_FOLIO(pol, evict)						\
AWS_TWIN_FOLIO(pol, age)						\
AWS_TWIN_FOLIO(pol, first_reference)					\
AWS_TWIN_FOLIO(pol, keep_active)					\
static enum aws_decision twin_##pol##_refault(struct aws_refault *r,	\
					       void *state)		\
{									\
	aws_bpf_sim_state_size = b##pol.state_size;			\
	return b##pol.refault(r, state);				\
}									\
static unsigned long twin_##pol##_inactive_ratio(const struct aws_lru_sizes *s, \
						  unsigned long stock_ratio, \
						  void *state)		\
{									\
	aws_bpf_sim_state_size = b##pol.state_size;			\
	return b##pol.inactive_ratio(s, stock_ratio, state);		\
}									\
static void twin_##pol##_state_init(void *state)			\
{									\
	aws_bpf_sim_state_size = b##pol.state_size;			\
	b##pol.state_init(state);					\
}									\
static struct aws_policy twin_##pol;					\
static const struct aws_policy *twin_##pol##_policy(void)		\
{									\
	const struct aws_bpf_ops *o = &b##pol;				\
	struct aws_policy *p = &twin_##pol;				\
									\
	if (p->name)							\
		return p;						\
	p->description = o->description;				\
	p->clock = (enum aws_clock)o->clock;				\
	p->state_size = o->state_size;					\
	p->state_init = o->state_init ? twin_##pol##_state_init : NULL; \
	p->new_anon = o->new_anon ? twin_##pol##_new_anon : NULL;	\
	p->swapin = o->swapin ? twin_##pol##_swapin : NULL;		\
	p->swapin_mapped = o->swapin_mapped ?				\
			   twin_##pol##_swapin_mapped : NULL;		\
	p->evict = o->evict ? twin_##pol##_evict : NULL;		\
	p->refault = o->refault ? twin_##pol##_refault : NULL;		\
	p->age = o->age ? twin_##pol##_age : NULL;			\
	p->first_reference = o->first_reference ?			\
			     twin_##pol##_first_reference : NULL;	\
	p->keep_active = o->keep_active ?				\
			 twin_##pol##_keep_active : NULL;		\
	p->inactive_ratio = o->inactive_ratio ?				\
			    twin_##pol##_inactive_ratio : NULL;	\
	p->file_workingset = o->file_workingset;			\
	p->name = o->name;						\
	return p;							\
}

AWS_TWIN_LIST
#undef AWS_TWIN

#define AWS_TWIN(pol) { #pol, twin_##pol##_policy },
static const struct {
	const char *c_name;
	const struct aws_policy *(*policy)(void);
} twins[] = {
	AWS_TWIN_LIST
};
#undef AWS_TWIN

unsigned int sim_nr_twins(void)
{
	return ARRAY_SIZE(twins);
}

const struct aws_policy *sim_twin(unsigned int i, const char **c_name)
{
	if (i >= ARRAY_SIZE(twins))
		return NULL;
	if (c_name)
		*c_name = twins[i].c_name;
	return twins[i].policy();
}

const struct aws_policy *sim_twin_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(twins); i++)
		if (!strcmp(twins[i].policy()->name, name))
			return twins[i].policy();
	return NULL;
}
