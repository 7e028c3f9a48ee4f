// SPDX-License-Identifier: GPL-2.0
/*
 * detect - the whole seed series (workingset protection and detection)
 *
 * Protection alone thrashes when a new workingset is re-used at intervals
 * longer than the inactive list but shorter than memory: its pages are
 * evicted before their second reference, every time.  So an evicted anon
 * page leaves a shadow in its swap-cache slot stamped with a private anon
 * clock, which anon evictions and activations advance.  On swap-in the
 * refault distance (clock now minus the stamp) is the number of extra
 * slots the page would have needed to stay resident; if the active anon
 * list could have given them up, the page belongs to the workingset and
 * starts active.  A folio of more than one page leaves no shadow, as in
 * the seed.  File refaults, on their own clock, are compared with active
 * file only.
 */
#include "aws_policy.h"

AWS_ALWAYS(detect, new_anon, AWS_NO)	/* start inactive */
AWS_ALWAYS(detect, swapin, AWS_YES)	/* PG_workingset for PSI */
AWS_ALWAYS(detect, age, AWS_YES)	/* activations age the anon clock */
AWS_FILE_WORKINGSET_ACTIVE(detect)

AWS_ON_EVICT(detect_evict)
{
	return f->nr_pages == 1 ? AWS_YES : AWS_NO;
}

AWS_ON_REFAULT(detect_refault)
{
	return aws_refault_within(r, r->sizes.active_anon);
}

AWS_DEFINE_POLICY(detect) = {
	.name = AWS_NAME("detect"),
	.description = "seed 1-7: inactive-first, anon shadows on an anon clock",
	.clock = AWS_CLOCK_ANON,
	.new_anon = detect_new_anon,
	.swapin = detect_swapin,
	.evict = detect_evict,
	.refault = detect_refault,
	.age = detect_age,
	.file_workingset = detect_file_workingset,
};
