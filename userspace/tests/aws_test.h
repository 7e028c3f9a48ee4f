/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP test harness for the userspace unit tests (aws_core.h,
 * aws_policy.h and the policies).
 *
 * Each test case is a function taking a struct aws_tc; CHECK() records a
 * failure with file/line and keeps going, so one run shows every broken
 * expectation of a case (the first few are printed as KTAP diagnostics).
 */
#ifndef _AWS_TEST_H
#define _AWS_TEST_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

struct aws_tc {
	const char *name;
	unsigned long checks;
	unsigned long failures;
	char reason[160];
};

#define AWS_TC_MAX_DIAG 5

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void aws_check_failed(struct aws_tc *tc, const char *expr,
				    const char *file, int line,
				    const char *fmt, ...)
{
	char msg[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	if (!tc->failures)
		snprintf(tc->reason, sizeof(tc->reason), "%s:%d: %s", file,
			 line, msg);
	if (tc->failures < AWS_TC_MAX_DIAG)
		printf("    # %s: %s:%d: CHECK(%s) failed: %s\n", tc->name, file,
		       line, expr, msg);
	tc->failures++;
}

/* CHECK(tc, condition, printf-format, args...): the format is mandatory. */
#define CHECK(tc, cond, ...)						\
	do {								\
		(tc)->checks++;						\
		if (!(cond))						\
			aws_check_failed((tc), #cond, __FILE__, __LINE__, \
					 __VA_ARGS__);			\
	} while (0)

/* splitmix64: small, deterministic, good enough to spread test inputs */
static inline uint64_t aws_rand64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * A random unsigned long with a random bit length, so small and huge
 * magnitudes are equally likely.
 */
static inline unsigned long aws_rand_ulong_mag(uint64_t *state)
{
	unsigned long v = (unsigned long)aws_rand64(state);
	unsigned int bits = (unsigned int)(aws_rand64(state) %
					   (8 * sizeof(unsigned long) + 1));

	if (bits == 0)
		return 0;
	if (bits < 8 * sizeof(unsigned long))
		v &= (1UL << bits) - 1;
	return v;
}

struct aws_test_case {
	const char *name;
	void (*run)(struct aws_tc *tc);
};

#endif /* _AWS_TEST_H */
