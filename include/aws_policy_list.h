/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_policy_list.h - the policies this build knows, one line each
 *
 * AWS_POLICY(name) stands for the struct aws_policy aws_policy_<name> that
 * module/policies/<name>.c defines, in the order the `policy` parameter
 * shows them.  The includer defines AWS_POLICY() first (an X-macro, hence
 * no include guard): include/aws_policy.h expands the list into the
 * declarations, module/policies/registry.c into the registry array.  It is
 * the only list of policy names in the project: the tests and the
 * analysis read the names back from the module (the `policy` parameter)
 * or from the simulator (aws-sim --list), and harness/experiment/plan.py
 * reads this file to check and expand the names in a plan.  A new
 * policy is one file in module/policies/, one line here, and a row of the
 * decisions it should take in userspace/tests/test_policy.c (the unit tests
 * refuse a policy without one).
 */
AWS_POLICY(stock)
AWS_POLICY(baseline)
AWS_POLICY(protect)
AWS_POLICY(detect)
AWS_POLICY(upstream)
AWS_POLICY(example)
AWS_POLICY(stable)
AWS_POLICY(hold)
AWS_POLICY(regret)
