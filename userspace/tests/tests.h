/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AWS_TESTS_H
#define _AWS_TESTS_H

#include "aws_test.h"

/* The expectations below (e.g. the 36-bit Debian amd64 layout) are LP64. */
_Static_assert(sizeof(unsigned long) == 8, "unit tests assume LP64");

extern const struct aws_test_case aws_shadow_cases[];
extern const unsigned int aws_nr_shadow_cases;
extern const struct aws_test_case aws_parse_cases[];
extern const unsigned int aws_nr_parse_cases;
extern const struct aws_test_case aws_policy_cases[];
extern const unsigned int aws_nr_policy_cases;
extern const struct aws_test_case aws_hist_cases[];
extern const unsigned int aws_nr_hist_cases;

#endif /* _AWS_TESTS_H */
