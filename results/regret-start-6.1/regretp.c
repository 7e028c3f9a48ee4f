// SPDX-License-Identifier: GPL-2.0
/*
 * regretp - regret starting with one young look (REGRET_PROMOTE_START=1),
 * as run for results/regret-start-6.1: copy it to module/policies/ and
 * add AWS_POLICY(regretp) to include/aws_policy_list.h, at 323f6fd
 */
#include "aws_policy.h"
#define REGRET_PROMOTE_START 1
#define REGRET_NAME "regretp"
#define aws_policy_regret aws_policy_regretp
#include "regret.c"
