/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_bpf_thunks.h - the functions a BPF run slot's policy calls
 *
 * aws_bpf.c includes this once per slot, with AWS_BPF_SLOT defined as the
 * slot's number (hence no include guard): each expansion defines, for that
 * slot, one function per decision of struct aws_policy that calls the
 * same member of the BPF program attached to the slot, timed against the
 * budget (AWS_BPF_TIMED, aws_bpf.c), and the table aws_bpf_thunks_<slot>
 * of them.  A slot's policy points only at those of
 * members the program fills (aws_bpf_fill()).
 */
#define AWS_BPF_NAME2(name, slot)	aws_bpf_##name##_##slot
#define AWS_BPF_NAME1(name, slot)	AWS_BPF_NAME2(name, slot)
#define AWS_BPF_THUNK(name)		AWS_BPF_NAME1(name, AWS_BPF_SLOT)
/* READ_ONCE: a link update replaces the ops (aws_bpf_update()) */
#define AWS_BPF_OPS			READ_ONCE(aws_bpf_slots[AWS_BPF_SLOT].ops)

static enum aws_decision AWS_BPF_THUNK(new_anon)(const struct aws_folio *f,
						 void *state)
{
	return AWS_BPF_TIMED(AWS_BPF_SLOT, new_anon,
			     AWS_BPF_OPS->new_anon(f, state));
}

static enum aws_decision AWS_BPF_THUNK(swapin)(const struct aws_folio *f,
					       void *state)
{
	return AWS_BPF_TIMED(AWS_BPF_SLOT, swapin,
			     AWS_BPF_OPS->swapin(f, state));
}

static enum aws_decision AWS_BPF_THUNK(swapin_mapped)(const struct aws_folio *f,
						      void *state)
{
	return AWS_BPF_TIMED(AWS_BPF_SLOT, swapin_mapped,
			     AWS_BPF_OPS->swapin_mapped(f, state));
}

static enum aws_decision AWS_BPF_THUNK(evict)(const struct aws_folio *f,
					      void *state)
{
	return AWS_BPF_TIMED(AWS_BPF_SLOT, evict,
			     AWS_BPF_OPS->evict(f, state));
}

static enum aws_decision AWS_BPF_THUNK(refault)(struct aws_refault *r,
						void *state)
{
	return AWS_BPF_TIMED(AWS_BPF_SLOT, refault,
			     AWS_BPF_OPS->refault(r, state));
}

static enum aws_decision AWS_BPF_THUNK(age)(const struct aws_folio *f,
					    void *state)
{
	return AWS_BPF_TIMED(AWS_BPF_SLOT, age,
			     AWS_BPF_OPS->age(f, state));
}

static enum aws_decision AWS_BPF_THUNK(first_reference)(const struct aws_folio *f,
							void *state)
{
	return AWS_BPF_TIMED(AWS_BPF_SLOT, first_reference,
			     AWS_BPF_OPS->first_reference(f, state));
}

static enum aws_decision AWS_BPF_THUNK(keep_active)(const struct aws_folio *f,
						    void *state)
{
	return AWS_BPF_TIMED(AWS_BPF_SLOT, keep_active,
			     AWS_BPF_OPS->keep_active(f, state));
}

static unsigned long AWS_BPF_THUNK(inactive_ratio)(const struct aws_lru_sizes *s,
						   unsigned long stock_ratio,
						   void *state)
{
	unsigned long ratio = AWS_BPF_TIMED(AWS_BPF_SLOT, inactive_ratio,
			AWS_BPF_OPS->inactive_ratio(s, stock_ratio, state));

	/*
	 * inactive_is_low() multiplies it by the inactive list's pages: a
	 * program's answer is bounded so that the product cannot overflow
	 * (0, "always low", is a valid answer, as aws_ratio_for_target()'s).
	 */
	return min(ratio, AWS_BPF_RATIO_MAX);
}

static unsigned long AWS_BPF_THUNK(file_workingset)(const struct aws_lru_sizes *s,
						    unsigned long stock_size)
{
	return AWS_BPF_TIMED(AWS_BPF_SLOT, file_workingset,
			     AWS_BPF_OPS->file_workingset(s, stock_size));
}

static void AWS_BPF_THUNK(state_init)(void *state)
{
	u64 t0 = local_clock();

	AWS_BPF_OPS->state_init(state);
	aws_bpf_timed(AWS_BPF_SLOT, "state_init", t0);
}

static const struct aws_policy AWS_BPF_THUNK(thunks) = {
	.state_init = AWS_BPF_THUNK(state_init),
	.new_anon = AWS_BPF_THUNK(new_anon),
	.swapin = AWS_BPF_THUNK(swapin),
	.swapin_mapped = AWS_BPF_THUNK(swapin_mapped),
	.evict = AWS_BPF_THUNK(evict),
	.refault = AWS_BPF_THUNK(refault),
	.age = AWS_BPF_THUNK(age),
	.first_reference = AWS_BPF_THUNK(first_reference),
	.keep_active = AWS_BPF_THUNK(keep_active),
	.inactive_ratio = AWS_BPF_THUNK(inactive_ratio),
	.file_workingset = AWS_BPF_THUNK(file_workingset),
};

#undef AWS_BPF_OPS
#undef AWS_BPF_THUNK
#undef AWS_BPF_NAME1
#undef AWS_BPF_NAME2
