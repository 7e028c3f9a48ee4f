// SPDX-License-Identifier: GPL-2.0
/*
 * stock - the running kernel as shipped (6.1 or 6.12)
 *
 * Takes no decision: every hook declines and the kernel runs its own code.
 * New and swapped-in anon folios start inactive, anon and file evictions
 * leave shadows on the shared per-lruvec clock (nonresident_age), an anon
 * refault is compared with all file pages plus active anon (when swap is
 * usable), a file refault with active file plus all anon.  The `ratio`
 * parameter is ignored.  Loading the module with this policy is the
 * control every other policy is measured against.
 */
#include "aws_policy.h"

const struct aws_policy aws_policy_stock = {
	.name = "stock",
	.description = "the running kernel as shipped: every decision declined",
	.clock = AWS_CLOCK_SHARED,
};
