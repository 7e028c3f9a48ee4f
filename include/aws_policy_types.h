/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_policy_types.h - what a decision is told, and what it answers
 *
 * The types of include/aws_policy.h that a decision's arguments have,
 * apart so that a stand-in for the BPF build (userspace/shim/bpf/) can
 * give the simulator the same ones; the module's BTF carries them to a
 * real BPF build.
 */
#ifndef _AWS_POLICY_TYPES_H
#define _AWS_POLICY_TYPES_H

#include "aws_core.h"

enum aws_decision {
	AWS_NO,
	AWS_YES,
};

/* What a decision may know about the folio concerned. */
struct aws_folio {
	unsigned long nr_pages;
	bool swapbacked;	/* anon or shmem */
	bool workingset;	/* PG_workingset */
	/* the memory cgroup it is charged to (its id, 0: none), its node */
	unsigned int memcg_id;
	unsigned int nid;
	/*
	 * Who the page is while it is in the swap cache, the value
	 * aws_refault.id has when it refaults from that slot: set for evict,
	 * and for swapin and swapin_mapped (the module: its swap entry; the
	 * simulator: the page id + 1); 0 when it has no slot.  A policy can
	 * match an eviction with its refault by it.
	 */
	unsigned long id;
};

/* A refault of one of the policy's shadows. */
struct aws_refault {
	unsigned long nr_pages;
	/* clock ticks between eviction and now, on the policy's clock */
	unsigned long distance;
	/* the folio was PG_workingset (had been active) when evicted */
	bool workingset;
	/* LRU sizes of the lruvec that evicted it */
	struct aws_lru_sizes sizes;
	/*
	 * Who the page is, the same value every time the same page refaults
	 * (0: unknown).  The simulator passes the page id + 1, the module the
	 * swap entry (stable while the page keeps its swap slot).
	 */
	unsigned long id;
	/* out: what the distance was compared with */
	unsigned long workingset_size;
	/*
	 * out, read only with YES: a quiet activation.  A stock refault
	 * activation is counted in WORKINGSET_ACTIVATE_ANON, and 6.1's
	 * prepare_scan_count() ages the active list in the next reclaim
	 * whenever that counter moved ("a new workingset is being
	 * established").  A quiet one is left out of that counter (and of
	 * memory.stat's workingset_activate_anon; the module counts it as
	 * quiet_activations), so it does not make reclaim age the active
	 * list.  false, the default, keeps stock's semantics.
	 */
	bool quiet;
};

#endif /* _AWS_POLICY_TYPES_H */
