// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - aws-loop: a region looped over, larger than memory (the loop
 * cell hold was designed on).
 *
 *   1. allocate --size (default 160M) and write every page once, in order
 *      (the first touch),
 *   2. --loops N times (default 4): read and verify every page, in the
 *      same order (page 0, 1, ..., last).
 *
 * By default the passes only read, so a page that is swapped in keeps its
 * swap slot (do_swap_page() frees the slot only of a page that is written
 * or when swap is short): the slot is the page's identity for the module
 * (aws_refault's id), and the stable policy needs the same identity on
 * every pass.  --write rewrites every page on access (next generation), as
 * aws-thrash --write does; a written page gets a new slot when it is
 * swapped out again.
 *
 * The access sequence is exactly the simulator's `loop` pattern:
 * `aws-sim --pattern loop --loop-mb R --loops N` replays the sequence of
 * `aws-loop --size RM --loops N` (R * 256 pages, first touched in order,
 * then N passes in order); selftest.sh compares the two traces, this
 * program's from --save-trace, byte for byte.  Its measured phase is the passes: the sim's
 * `measured` swap-ins (misses after the first touch) correspond to
 * loop_majfaults here (ru_majflt over the passes only) and to
 * loop_pswpin (the system's pswpin over the passes: pages read from swap,
 * readahead included, even those never faulted on); the RESULT line's
 * pswpin covers the whole run.  See docs/trace-format.md.  --describe
 * (common.h) says the trace is exact (but for a size relative to the
 * machine's memory, --thp and --corrupt-test).
 */
#include "common.h"

#include <inttypes.h>

enum {
	OPT_SIZE = AWS_OPT_PROGRAM_BASE,
	OPT_LOOPS,
	OPT_WRITE,
};

#define DEF_SIZE	"160M"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: aws-loop [options]\n"
		"A region first written once, then read in the same order --loops\n"
		"times (a loop larger than memory: the simulator's `loop` pattern).\n"
		"\n"
		"  --size SIZE   region (default %s)\n"
		"  --loops N     passes after the first touch (default 4)\n"
		"  --write       rewrite pages on access (bump generation); the\n"
		"                default only reads, so swapped-in pages keep\n"
		"                their swap slot\n"
		"\n"
		"RESULT keys: loop_majfaults loop_pswpin loops pages loop_seconds\n"
		"             + common keys (loop_majfaults: ru_majflt delta over\n"
		"             the passes, first touch excluded; loop_pswpin: the\n"
		"             system's pswpin delta over the passes, -1 if\n"
		"             /proc/vmstat is unreadable)\n"
		"\n", DEF_SIZE);
	aws_common_usage(f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size",  required_argument, NULL, OPT_SIZE },
		{ "loops", required_argument, NULL, OPT_LOOPS },
		{ "write", no_argument,       NULL, OPT_WRITE },
		AWS_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *size_arg = DEF_SIZE;
	uint64_t loops = 4, l;
	int rewrite = 0, opt;
	size_t bytes, i;
	struct aws_region *reg;
	long loop_majfaults = 0, m0;
	long long loop_pswpin = -1;
	struct aws_vmstat vm0, vm1;
	double t0, loop_seconds;

	aws_init("loop", "aws-loop");
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (aws_common_option(opt, optarg, usage))
			continue;
		switch (opt) {
		case OPT_SIZE:
			size_arg = optarg;
			break;
		case OPT_LOOPS:
			loops = aws_parse_u64("--loops", optarg, 0, 1000000);
			break;
		case OPT_WRITE:
			rewrite = 1;
			break;
		default:
			aws_usage_error("unhandled option");
		}
	}
	aws_no_operands(argc, argv, optind);
	bytes = aws_parse_size("--size", size_arg, AWS_MiB, AWS_PAGE_SIZE);
	if (aws.describe) {
		aws_describe_common(argc, argv, 0);
		aws_describe_exact();
	}

	fprintf(stderr, "aws-loop: size=%zuMiB pages=%zu loops=%" PRIu64
		" write=%d\n", bytes / AWS_MiB, bytes / AWS_PAGE_SIZE, loops,
		rewrite);

	aws_start();

	reg = aws_region_alloc("loop", bytes);
	for (i = 0; i < reg->npages; i++)
		aws_page_write(reg, i, 1);
	if (aws.corrupt_test)
		aws_corrupt_page(reg, reg->npages / 2);

	aws_vmstat_read(&vm0);
	t0 = aws_now();
	for (l = 0; l < loops; l++) {
		m0 = aws_majflt();
		aws_access_range(reg, 0, reg->npages, rewrite);
		loop_majfaults += aws_majflt() - m0;
		fprintf(stderr, "aws-loop: loop %" PRIu64 "/%" PRIu64
			" loop_majfaults=%ld\n", l + 1, loops, loop_majfaults);
	}
	loop_seconds = aws_now() - t0;
	aws_vmstat_read(&vm1);
	if (vm0.v[AWS_VM_PSWPIN] >= 0 && vm1.v[AWS_VM_PSWPIN] >= 0)
		loop_pswpin = vm1.v[AWS_VM_PSWPIN] - vm0.v[AWS_VM_PSWPIN];

	/* the corrupted page must be caught even with --loops 0 */
	if (aws.corrupt_test && loops == 0)
		aws_page_verify(reg, reg->npages / 2);

	aws_result_i64("loop_majfaults", loop_majfaults);
	aws_result_i64("loop_pswpin", loop_pswpin);
	aws_result_u64("loops", loops);
	aws_result_u64("pages", reg->npages);
	aws_result_double("loop_seconds", loop_seconds, 3);
	opt = aws_finish();

	aws_region_free(reg);
	return opt;
}
