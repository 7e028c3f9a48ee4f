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

AWS_ALWAYS(baseline, new_anon, AWS_YES)
AWS_ALWAYS(baseline, swapin, AWS_YES)
AWS_ALWAYS(baseline, swapin_mapped, AWS_YES)
AWS_ALWAYS(baseline, evict, AWS_NO)	/* no anon shadows; the clock still ages */

AWS_ON_FIRST_REFERENCE(baseline_first_reference)
{
	return f->swapbacked ? AWS_YES : AWS_NO;
}

/*
 * Never asked, since evict leaves no shadow of this policy's; but the BPF
 * build must have it, as a BPF policy that has an evict and a clock must
 * judge refaults (module/aws_bpf.c cannot see that evict always says no).
 * Were it asked: 6.1's rule, the one 6.1 kept of 5.8's for file pages.
 */
AWS_ON_REFAULT(baseline_refault)
{
	return aws_refault_within(r, aws_stock_workingset(&r->sizes));
}

AWS_DEFINE_POLICY(baseline) = {
	.name = AWS_NAME("baseline"),
	.description = "Linux 5.8: active-first anon, no anon shadows",
	.clock = AWS_CLOCK_SHARED,
	.new_anon = baseline_new_anon,
	.swapin = baseline_swapin,
	.swapin_mapped = baseline_swapin_mapped,
	.evict = baseline_evict,
	.refault = baseline_refault,
	.first_reference = baseline_first_reference,
};
