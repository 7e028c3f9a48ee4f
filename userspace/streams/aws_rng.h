/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_rng.h - the splitmix64 PRNG of the workloads and the simulator
 *
 * The workloads (userspace/workloads/) draw their random choices from it,
 * and the simulator (userspace/sim/) draws the same numbers from it when it
 * replays a workload's access sequence (aws_zipf.h, aws_randw.h beside
 * it), so both must use this one definition.  Header only; userspace (it uses the compiler's
 * __uint128_t), not meant for the kernel.
 */
#ifndef _AWS_RNG_H
#define _AWS_RNG_H

#include <stdint.h>

static inline uint64_t aws_mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct aws_rng {
	unsigned long long s;	/* 64 bits on every Linux ABI */
};

/* Independent streams of one seed: one per worker thread, one per table. */
static inline void aws_rng_seed(struct aws_rng *rng, uint64_t seed,
				uint64_t stream)
{
	rng->s = aws_mix64(seed ^ aws_mix64(stream + 0x5851f42d4c957f2dULL));
}

static inline uint64_t aws_rng_next(struct aws_rng *rng)
{
	rng->s += 0x9e3779b97f4a7c15ULL;
	return aws_mix64(rng->s);
}

/* Uniform in [0, n), n > 0 (multiply-high, negligible bias). */
static inline uint64_t aws_rng_below(struct aws_rng *rng, uint64_t n)
{
	return (uint64_t)(((__uint128_t)aws_rng_next(rng) * n) >> 64);
}

/* Uniform double in [0, 1): 53 random bits, scaled exactly by 2^-53. */
static inline double aws_rng_double(struct aws_rng *rng)
{
	return (double)(aws_rng_next(rng) >> 11) / (double)(1ULL << 53);
}

#endif /* _AWS_RNG_H */
