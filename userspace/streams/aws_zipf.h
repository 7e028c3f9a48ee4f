/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_zipf.h - the zipf access stream of aws-zipf, shared with aws-sim
 *
 * The guest workload aws-zipf (userspace/workloads/zipf.c) and the
 * simulator's zipf pattern (userspace/sim/trace.c) both draw their page
 * accesses from this file, so that a simulated cell is the very sequence
 * of pages the workload touches in the guest, not merely the same
 * distribution.  Nothing here may depend on which side includes it.
 *
 * The stream, for a region of nchunks chunks of chunk_pages pages each
 * (page p of the region is the p-th 4 KiB page of its mapping):
 *
 *   1. the fill: pages 0, 1, ..., nchunks * chunk_pages - 1, once each, in
 *      that order (aws-zipf writes every page before the workers start;
 *      the simulator marks the end of the fill as the measured phase);
 *   2. records: each worker thread t (0, 1, ...) has its own PRNG stream,
 *      aws_zipf_stream_seed(seed, t).  A record draws a chunk with
 *      aws_zipf_next_chunk() and reads its pages first to last.
 *
 * A chunk is drawn by rank: u = aws_rng_double() is looked up by binary
 * search in the table of cumulative probabilities of zipf(alpha) over the
 * ranks 1..nchunks (P(rank k) proportional to k^-alpha), and the rank is
 * mapped to a chunk by a permutation shuffled (Fisher-Yates) from the
 * seed's "perm" stream, so the hot chunks are spread over the region.
 *
 * With one worker thread the whole sequence is a function of (seed, alpha,
 * nchunks, chunk_pages, records) alone.  With N threads each thread's
 * records are still that function of its own stream, but the order in
 * which the threads' records interleave in the guest is up to the
 * scheduler; the simulator interleaves them round-robin, one record per
 * thread in turn, which is an approximation.
 *
 * Header only, plain C with a libc (malloc, and pow from libm).  Not
 * meant for the kernel.
 */
#ifndef _AWS_ZIPF_H
#define _AWS_ZIPF_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "aws_rng.h"

/* aws_rng_seed() stream of the rank -> chunk permutation: "perm" */
#define AWS_ZIPF_PERM_STREAM	0x7065726dULL

struct aws_zipf {
	double *cdf;		/* cdf[k] = P(rank <= k + 1), cdf[n - 1] == 1 */
	size_t *perm;		/* rank - 1 -> chunk index */
	size_t nchunks;
	size_t chunk_pages;
};

/*
 * Build the tables for @nchunks (>= 1) chunks of @chunk_pages pages.
 * Returns 0, or -1 if out of memory (nothing to free then).
 */
static inline int aws_zipf_init(struct aws_zipf *z, size_t nchunks,
				size_t chunk_pages, double alpha, uint64_t seed)
{
	struct aws_rng rng;
	double sum = 0;
	size_t k;

	z->nchunks = nchunks;
	z->chunk_pages = chunk_pages;
	z->cdf = malloc(nchunks * sizeof(*z->cdf));
	z->perm = malloc(nchunks * sizeof(*z->perm));
	if (!nchunks || !z->cdf || !z->perm) {
		free(z->cdf);
		free(z->perm);
		z->cdf = NULL;
		z->perm = NULL;
		return -1;
	}
	for (k = 0; k < nchunks; k++) {
		sum += pow((double)(k + 1), -alpha);
		z->cdf[k] = sum;
	}
	for (k = 0; k < nchunks; k++)
		z->cdf[k] /= sum;
	z->cdf[nchunks - 1] = 1.0;

	/* Fisher-Yates: rank -> chunk position */
	aws_rng_seed(&rng, seed, AWS_ZIPF_PERM_STREAM);
	for (k = 0; k < nchunks; k++)
		z->perm[k] = k;
	for (k = nchunks - 1; k > 0; k--) {
		size_t j = (size_t)aws_rng_below(&rng, k + 1), t = z->perm[k];

		z->perm[k] = z->perm[j];
		z->perm[j] = t;
	}
	return 0;
}

static inline void aws_zipf_free(struct aws_zipf *z)
{
	free(z->cdf);
	free(z->perm);
	z->cdf = NULL;
	z->perm = NULL;
}

/* Worker thread @thread's PRNG stream (0-based thread number). */
static inline void aws_zipf_stream_seed(struct aws_rng *rng, uint64_t seed,
					unsigned int thread)
{
	aws_rng_seed(rng, seed, (uint64_t)thread + 1);
}

/* Smallest rank index k with cdf[k] > u. */
static inline size_t aws_zipf_rank(const struct aws_zipf *z, double u)
{
	size_t lo = 0, hi = z->nchunks - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (z->cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The chunk of the next record of the thread whose stream is @rng. */
static inline size_t aws_zipf_next_chunk(const struct aws_zipf *z,
					 struct aws_rng *rng)
{
	return z->perm[aws_zipf_rank(z, aws_rng_double(rng))];
}

/* First page of @chunk; a record reads chunk_pages pages from there. */
static inline size_t aws_zipf_first_page(const struct aws_zipf *z,
					 size_t chunk)
{
	return chunk * z->chunk_pages;
}

#endif /* _AWS_ZIPF_H */
