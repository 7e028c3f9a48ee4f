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

const struct aws_policy aws_policy_protect = {
	.name = "protect",
	.description = "seed 1-2: inactive-first anon, no anon shadows",
	.clock = AWS_CLOCK_NONE,
	.new_anon = aws_no,		/* start inactive */
	.swapin = aws_yes,		/* PG_workingset for PSI */
	.evict = aws_no,		/* leave no shadow */
	.age = aws_no,			/* activations age no clock */
	.file_workingset = aws_file_workingset_active,
};
