/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_policy_list.h - the policies this build knows, one declaration each
 *
 * AWS_POLICY_DECLARE(name) declares the struct aws_policy aws_policy_<name>
 * that module/policies/<name>.c defines; module/policies/registry.c lists
 * the same names in the order the `policy` parameter shows them.  Those
 * two are the only lists of policy names in the project: tests, plans and
 * the analysis read the names back from the module (the `policy`
 * parameter) or from the simulator (aws-sim --list).  A new policy is one
 * file in module/policies/, one line here and one in the registry.
 */
AWS_POLICY_DECLARE(stock);
AWS_POLICY_DECLARE(baseline);
AWS_POLICY_DECLARE(protect);
AWS_POLICY_DECLARE(detect);
AWS_POLICY_DECLARE(upstream);
AWS_POLICY_DECLARE(example);
AWS_POLICY_DECLARE(stable);
AWS_POLICY_DECLARE(hold);
