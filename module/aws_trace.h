/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_trace.h - trace events of anon_workingset.ko
 *
 * One event per decision the framework counts in /proc/anon_workingset,
 * emitted where the counter is counted, so that a trace and the counters
 * of the same run add up (docs/tracing.md):
 *
 *   aws_place     a new anon folio placed      placed_active/_inactive
 *   aws_evict     an anon eviction             evictions (shadow=1),
 *                                              evictions_noshadow (0)
 *   aws_refault   a refault judged             refaults, activations
 *                                              (activate=1), restores
 *   aws_activate  first reference, swap-in,    ref_activations,
 *                 an active folio kept         swapin_activations,
 *                                              active_kept
 *   aws_age       an activation the policy aged (or not) its clock for
 *   aws_switch    a policy switch and its sweep switches, shadows_swept
 *   aws_note      a policy's own account of a decision (AWS_NOTE(),
 *                 aws_policy.h): no counter; regret notes each refault
 *
 * Every page count is in pages, as the counters are.  Tracepoints are
 * static keys: with an event off its call site is one patched jump and
 * no argument is looked at, since TP_fast_assign() does every lookup.
 */
#ifndef _AWS_TRACE_HELPERS_H
#define _AWS_TRACE_HELPERS_H
#include <linux/memcontrol.h>

/* A memcg's id, as shadow entries carry it; 0 without one. */
static inline unsigned short aws_trace_memcg_id(struct mem_cgroup *memcg)
{
	return memcg ? mem_cgroup_id(memcg) : 0;
}
#endif

#undef TRACE_SYSTEM
#define TRACE_SYSTEM anon_workingset

#if !defined(_AWS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _AWS_TRACE_H

#include <linux/tracepoint.h>

#include "aws_compat.h"
#include "aws_policy.h"

TRACE_EVENT(aws_place,
	    TP_PROTO(const struct aws_policy *policy, struct mem_cgroup *memcg,
		     unsigned long nr_pages, bool active),
	    TP_ARGS(policy, memcg, nr_pages, active),
	    TP_STRUCT__entry(__string(policy, policy->name)
			     __field(unsigned long, nr_pages)
			     __field(unsigned short, memcg)
			     __field(bool, active)),
	    TP_fast_assign(aws_assign_str(policy, policy->name);
			   __entry->nr_pages = nr_pages;
			   __entry->memcg = aws_trace_memcg_id(memcg);
			   __entry->active = active;),
	    TP_printk("policy=%s nr_pages=%lu active=%d memcg=%u",
		      __get_str(policy), __entry->nr_pages, __entry->active,
		      __entry->memcg)
);

TRACE_EVENT(aws_evict,
	    TP_PROTO(const struct aws_policy *policy, struct mem_cgroup *memcg,
		     int nid, unsigned long nr_pages, bool shadow,
		     unsigned long eviction, bool workingset),
	    TP_ARGS(policy, memcg, nid, nr_pages, shadow, eviction, workingset),
	    TP_STRUCT__entry(__string(policy, policy->name)
			     __field(unsigned long, nr_pages)
			     __field(unsigned long, eviction)
			     __field(int, nid)
			     __field(unsigned short, memcg)
			     __field(bool, shadow)
			     __field(bool, workingset)),
	    TP_fast_assign(aws_assign_str(policy, policy->name);
			   __entry->nr_pages = nr_pages;
			   __entry->eviction = eviction;
			   __entry->nid = nid;
			   __entry->memcg = aws_trace_memcg_id(memcg);
			   __entry->shadow = shadow;
			   __entry->workingset = workingset;),
	    TP_printk("policy=%s nr_pages=%lu shadow=%d eviction=%lu workingset=%d memcg=%u nid=%d",
		      __get_str(policy), __entry->nr_pages, __entry->shadow,
		      __entry->eviction, __entry->workingset, __entry->memcg,
		      __entry->nid)
);

TRACE_EVENT(aws_refault,
	    TP_PROTO(const struct aws_policy *policy, struct mem_cgroup *memcg,
		     const struct aws_refault *rf, bool activate),
	    TP_ARGS(policy, memcg, rf, activate),
	    TP_STRUCT__entry(__string(policy, policy->name)
			     __field(unsigned long, nr_pages)
			     __field(unsigned long, distance)
			     __field(unsigned long, workingset_size)
			     __field(unsigned long, active_anon)
			     __field(unsigned long, active_file)
			     __field(unsigned long, inactive_file)
			     __field(unsigned long, id)
			     __field(unsigned short, memcg)
			     __field(bool, swap)
			     __field(bool, activate)
			     __field(bool, restore)),
	    TP_fast_assign(aws_assign_str(policy, policy->name);
			   __entry->nr_pages = rf->nr_pages;
			   __entry->distance = rf->distance;
			   __entry->workingset_size = rf->workingset_size;
			   __entry->active_anon = rf->sizes.active_anon;
			   __entry->active_file = rf->sizes.active_file;
			   __entry->inactive_file = rf->sizes.inactive_file;
			   __entry->id = rf->id;
			   __entry->memcg = aws_trace_memcg_id(memcg);
			   __entry->swap = rf->sizes.swap_available;
			   __entry->activate = activate;
			   __entry->restore = activate && rf->workingset;),
	    TP_printk("policy=%s nr_pages=%lu distance=%lu workingset_size=%lu activate=%d restore=%d memcg=%u active_anon=%lu active_file=%lu inactive_file=%lu swap=%d id=%#lx",
		      __get_str(policy), __entry->nr_pages, __entry->distance,
		      __entry->workingset_size, __entry->activate,
		      __entry->restore, __entry->memcg, __entry->active_anon,
		      __entry->active_file, __entry->inactive_file,
		      __entry->swap, __entry->id)
);

TRACE_EVENT(aws_activate,
	    TP_PROTO(const struct aws_policy *policy, unsigned long nr_pages,
		     const char *reason),
	    TP_ARGS(policy, nr_pages, reason),
	    TP_STRUCT__entry(__string(policy, policy->name)
			     __string(reason, reason)
			     __field(unsigned long, nr_pages)),
	    TP_fast_assign(aws_assign_str(policy, policy->name);
			   aws_assign_str(reason, reason);
			   __entry->nr_pages = nr_pages;),
	    TP_printk("policy=%s nr_pages=%lu reason=%s",
		      __get_str(policy), __entry->nr_pages, __get_str(reason))
);

TRACE_EVENT(aws_age,
	    TP_PROTO(const struct aws_policy *policy, unsigned long nr_pages,
		     bool aged),
	    TP_ARGS(policy, nr_pages, aged),
	    TP_STRUCT__entry(__string(policy, policy->name)
			     __field(unsigned long, nr_pages)
			     __field(bool, aged)),
	    TP_fast_assign(aws_assign_str(policy, policy->name);
			   __entry->nr_pages = nr_pages;
			   __entry->aged = aged;),
	    TP_printk("policy=%s nr_pages=%lu aged=%d",
		      __get_str(policy), __entry->nr_pages, __entry->aged)
);

TRACE_EVENT(aws_switch,
	    TP_PROTO(const char *scope, u64 cgroup, const char *policy,
		     unsigned long swept),
	    TP_ARGS(scope, cgroup, policy, swept),
	    TP_STRUCT__entry(__string(scope, scope)
			     __string(policy, policy)
			     __field(u64, cgroup)
			     __field(unsigned long, swept)),
	    TP_fast_assign(aws_assign_str(scope, scope);
			   aws_assign_str(policy, policy);
			   __entry->cgroup = cgroup;
			   __entry->swept = swept;),
	    TP_printk("scope=%s cgroup=%llu policy=%s swept=%lu",
		      __get_str(scope), __entry->cgroup, __get_str(policy),
		      __entry->swept)
);

TRACE_EVENT(aws_note,
	    TP_PROTO(const char *policy, const unsigned long *words),
	    TP_ARGS(policy, words),
	    TP_STRUCT__entry(__string(policy, policy)
			     __array(unsigned long, v, AWS_NOTE_WORDS)),
	    TP_fast_assign(aws_assign_str(policy, policy);
			   memcpy(__entry->v, words, sizeof(__entry->v));),
	    TP_printk("policy=%s v0=%lu v1=%lu v2=%lu v3=%lu v4=%lu v5=%lu v6=%lu v7=%lu",
		      __get_str(policy), __entry->v[0], __entry->v[1],
		      __entry->v[2], __entry->v[3], __entry->v[4],
		      __entry->v[5], __entry->v[6], __entry->v[7])
);

#endif /* _AWS_TRACE_H */

/* Out of tree: found through Kbuild's -I$(src). */
#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE aws_trace
#include <trace/define_trace.h>
