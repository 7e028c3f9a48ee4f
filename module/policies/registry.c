// SPDX-License-Identifier: GPL-2.0
/*
 * registry - every policy, in the order the `policy` parameter lists
 * them, and the one the module runs when loaded without policy=.  Each is
 * declared in include/aws_policy_list.h and defined in its own file here.
 */
#include "aws_policy.h"

const struct aws_policy *const aws_policies[] = {
	&aws_policy_stock,
	&aws_policy_baseline,
	&aws_policy_protect,
	&aws_policy_detect,
	&aws_policy_upstream,
	&aws_policy_example,
	&aws_policy_stable,
	&aws_policy_hold,
};

const unsigned int aws_nr_policies = AWS_ARRAY_SIZE(aws_policies);

const struct aws_policy *const aws_policy_default = &aws_policy_detect;
