// SPDX-License-Identifier: GPL-2.0
/*
 * baseline - Linux 5.8, the last kernel before the seed series
 *
 * Anon memory was presumed hot: a new anon folio started on the active
 * list, the folio of a swap-in fault was activated as soon as it was
 * mapped, and reclaim promoted a swap-backed folio on the first young PTE
 * it saw (PAGEREF_ACTIVATE).  Swap-ins through the swap cache were marked
 * PG_workingset for PSI.  Evicted anon pages left no shadow, yet their
 * evictions and activations still aged the one shared non-resident clock
 * (5.8's "age nonresident information alongside anonymous pages"), and a
 * file refault was compared with active file plus all anon: the rule 6.1
 * kept, so the file side declines.
 */
#include "aws_policy.h"

static enum aws_decision baseline_first_reference(const struct aws_folio *f,
						  void *state)
{
	return f->swapbacked ? AWS_YES : AWS_NO;
}

const struct aws_policy aws_policy_baseline = {
	.name = "baseline",
	.description = "Linux 5.8: active-first anon, no anon shadows",
	.clock = AWS_CLOCK_SHARED,
	.new_anon = aws_yes,
	.swapin = aws_yes,
	.swapin_mapped = aws_yes,
	.evict = aws_no,		/* no anon shadows; the clock still ages */
	.first_reference = baseline_first_reference,
};
