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

AWS_ALWAYS(protect, new_anon, AWS_NO)	/* start inactive */
AWS_ALWAYS(protect, swapin, AWS_YES)	/* PG_workingset for PSI */
AWS_ALWAYS(protect, evict, AWS_NO)	/* leave no shadow */
AWS_ALWAYS(protect, age, AWS_NO)	/* activations age no clock */
AWS_FILE_WORKINGSET_ACTIVE(protect)

AWS_DEFINE_POLICY(protect) = {
	.name = AWS_NAME("protect"),
	.description = "seed 1-2: inactive-first anon, no anon shadows",
	.clock = AWS_CLOCK_NONE,
	.new_anon = protect_new_anon,
	.swapin = protect_swapin,
	.evict = protect_evict,
	.age = protect_age,
	.file_workingset = protect_file_workingset,
};
