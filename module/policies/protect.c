// SPDX-License-Identifier: GPL-2.0
/*
 * protect - the seed series' patches 1-2 (workingset protection)
 *
 * New and swapped-in anon folios start on the inactive list and must earn
 * promotion with two references, as file folios do, so pages used once
 * can no longer push the hot ones off the active list.  No anon shadows
 * yet, and anon events age no clock: in the seed's kernel the
 * non-resident clock counted file events only, so a file refault is
 * compared with the active file list alone.  Swap-cache swap-ins are still
 * marked PG_workingset, as in 5.5.
 */
#include "aws_policy.h"

static enum aws_decision protect_no(const struct aws_folio *f, void *state)
{
	return AWS_NO;
}

static enum aws_decision protect_swapin(const struct aws_folio *f,
					void *state)
{
	return AWS_YES;
}

static unsigned long protect_file_workingset(const struct aws_lru_sizes *s,
					     unsigned long stock_size)
{
	return s->active_file;
}

const struct aws_policy aws_policy_protect = {
	.name = "protect",
	.description = "seed 1-2: inactive-first anon, no anon shadows",
	.clock = AWS_CLOCK_NONE,
	.new_anon = protect_no,		/* start inactive */
	.swapin = protect_swapin,
	.evict = protect_no,		/* leave no shadow */
	.age = protect_no,		/* activations age no clock */
	.file_workingset = protect_file_workingset,
};
