/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_randw.h - the write stream of aws-randw, shared with aws-sim
 *
 * The guest workload aws-randw (userspace/workloads/randw.c) and the
 * simulator's randw pattern (userspace/sim/trace.c) both draw the pages
 * written from this file, so that the simulator replays the pages the
 * workload writes, not merely the same distribution.
 *
 * The region's pages are partitioned among the worker threads: thread t
 * (0-based) of n owns pages t, t + n, t + 2n, ... (so every page has a
 * single writer) and writes one of them, drawn uniformly from its own
 * splitmix64 stream aws_rng_seed(seed, t + 1), per write.  With one thread
 * the sequence is a function of (seed, pages, writes) alone; with n
 * threads each thread's writes still are, but how they interleave in the
 * guest is up to the scheduler.
 *
 * Header only, plain C; userspace (aws_rng.h), not meant for the kernel.
 */
#ifndef _AWS_RANDW_H
#define _AWS_RANDW_H

#include <stdint.h>

#include "aws_rng.h"

/* 64-bit counts, as struct aws_rng's state: 64 bits on every Linux ABI */
struct aws_randw {
	struct aws_rng rng;
	unsigned long long owned;	/* pages this thread owns */
	unsigned long long nthreads;
	unsigned long long thread;
};

/* Thread @thread of @nthreads (@thread < @nthreads <= @npages). */
static inline void aws_randw_init(struct aws_randw *s,
				  unsigned long long npages,
				  unsigned long long nthreads,
				  unsigned long long thread,
				  unsigned long long seed)
{
	s->owned = (npages - thread + nthreads - 1) / nthreads;
	s->nthreads = nthreads;
	s->thread = thread;
	aws_rng_seed(&s->rng, seed, thread + 1);
}

/* The page of this thread's next write. */
static inline uint64_t aws_randw_next(struct aws_randw *s)
{
	return aws_rng_below(&s->rng, s->owned) * s->nthreads + s->thread;
}

#endif /* _AWS_RANDW_H */
