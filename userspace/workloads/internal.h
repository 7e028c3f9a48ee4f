// SPDX-License-Identifier: GPL-2.0
/*
 * internal.h - what the workloads' common files (common.c, options.c,
 * describe.c, verify.c, trace.c, workers.c) share with each other and not
 * with the programs, which include common.h only.
 */
#ifndef AWS_INTERNAL_H
#define AWS_INTERNAL_H

#include "common.h"

/* options.c */

/*
 * The size relative to the machine's memory (<F>x or <F>%) that stands
 * first on the command line, a default counting as after every argument:
 * 0 if no size was relative; else 1 with *@opt and *@arg as given to
 * aws_parse_size() and *@is_default set if @arg is not on the command line.
 */
int aws_first_relative_size(const char **opt, const char **arg,
			    int *is_default);

/* verify.c */

/* pages_verified: every thread's, once flushed (aws_thread_flush()). */
uint64_t aws_pages_verified(void);

/* trace.c */

extern FILE *aws_trace_file;	/* --save-trace, open from aws_start() */

/* Exit 2 on options that exclude --save-trace (a run does, from aws_start()). */
void aws_trace_check_options(void);
void aws_trace_open(void);
void aws_trace_close(void);

/* Number the pages of a new region of @npages: returns its trace_base. */
uint64_t aws_trace_region(size_t npages);

/* Record one access to trace page @page. */
void aws_trace_record(uint64_t page);

/* Record an access to page @idx of @r, if a trace is being written. */
static inline void aws_trace_page(const struct aws_region *r, size_t idx)
{
	if (aws_trace_file)
		aws_trace_record(r->trace_base + idx);
}

/* workers.c */

/* Catch SIGUSR1: it ends the timed phase (aws_run_workers()). */
void aws_catch_end_signal(void);

#endif /* AWS_INTERNAL_H */
