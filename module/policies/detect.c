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

AWS_ON_EVICT(detect_evict)
{
	return f->nr_pages == 1 ? AWS_YES : AWS_NO;
}

AWS_ON_REFAULT(detect_refault)
{
	r->workingset_size = r->sizes.active_anon;
	return r->distance <= r->workingset_size ? AWS_YES : AWS_NO;
}

AWS_ON_NEW_ANON(detect_new_anon)
{
	return AWS_NO;	/* start inactive */
}

AWS_ON_SWAPIN(detect_swapin)
{
	return AWS_YES;	/* PG_workingset for PSI */
}

AWS_ON_AGE(detect_age)
{
	return AWS_YES;	/* activations age the anon clock */
}

AWS_ON_FILE_WORKINGSET(detect_file_workingset)
{
	return sizes->active_file;	/* the seed's file rule */
}

AWS_DEFINE_POLICY(detect) = {
	.name = AWS_NAME("detect"),
	.description = "seed 1-7: inactive-first, anon shadows on an anon clock",
	.clock = AWS_CLOCK_ANON,
	.new_anon = AWS_PROG(detect_new_anon),
	.swapin = AWS_PROG(detect_swapin),
	.evict = AWS_PROG(detect_evict),
	.refault = AWS_PROG(detect_refault),
	.age = AWS_PROG(detect_age),
	.file_workingset = AWS_PROG(detect_file_workingset),
};
