// SPDX-License-Identifier: GPL-2.0
/*
 * aws-policy-test: runs every unit test case of include/aws_core.h,
 * include/aws_policy.h and the policies of module/policies/, and reports
 * in KTAP (Documentation/dev-tools/ktap.rst). Exit status is non-zero if
 * any case failed.
 *
 * Usage: aws-policy-test [substring]   - run only cases whose name matches
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tests.h"

struct aws_suite {
	const struct aws_test_case *cases;
	const unsigned int *nr;
};

static const struct aws_suite suites[] = {
	{ aws_shadow_cases, &aws_nr_shadow_cases },
	{ aws_parse_cases, &aws_nr_parse_cases },
	{ aws_policy_cases, &aws_nr_policy_cases },
	{ aws_hist_cases, &aws_nr_hist_cases },
};

#define NR_SUITES (ARRAY_SIZE(suites))

static bool selected(const char *name, const char *filter)
{
	return !filter || strstr(name, filter);
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	unsigned int s, i, n = 0, total = 0, failed = 0;
	unsigned long checks = 0;
	struct timespec t0, t1;

	for (s = 0; s < NR_SUITES; s++)
		for (i = 0; i < *suites[s].nr; i++)
			total += selected(suites[s].cases[i].name, filter);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("KTAP version 1\n");
	printf("1..%u\n", total);
	for (s = 0; s < NR_SUITES; s++) {
		for (i = 0; i < *suites[s].nr; i++) {
			const struct aws_test_case *c = &suites[s].cases[i];
			struct aws_tc tc = { .name = c->name };

			if (!selected(c->name, filter))
				continue;
			n++;
			c->run(&tc);
			checks += tc.checks;
			if (tc.failures) {
				failed++;
				printf("not ok %u %s # %lu of %lu checks failed, first: %s\n",
				       n, c->name, tc.failures, tc.checks,
				       tc.reason);
			} else if (!tc.checks) {
				/* a case that checks nothing proves nothing */
				failed++;
				printf("not ok %u %s # no checks ran\n", n,
				       c->name);
			} else {
				printf("ok %u %s\n", n, c->name);
			}
			fflush(stdout);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# %lu checks in %.2f s\n", checks,
	       (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n",
	       total - failed, failed);
	printf("aws-policy-test: %u passed, %u failed\n", total - failed,
	       failed);
	return failed ? 1 : 0;
}
