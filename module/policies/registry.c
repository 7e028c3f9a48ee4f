// SPDX-License-Identifier: GPL-2.0
/*
 * registry - every policy, in the order the `policy` parameter lists them
 * (include/aws_policy_list.h; each is defined in its own file here), the
 * one the module runs when loaded without policy=.
 */
#include "aws_policy.h"

const struct aws_policy *const aws_policies[] = {
#define AWS_POLICY(name) (&aws_policy_##name),
#include "aws_policy_list.h"
#undef AWS_POLICY
};

const unsigned int aws_nr_policies = AWS_ARRAY_SIZE(aws_policies);

const struct aws_policy *const aws_policy_default = &aws_policy_detect;
