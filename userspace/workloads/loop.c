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
	const char *size_arg = DEF_SIZE;
	uint64_t loops = 4, l;
	int rewrite = 0, rc;
	const struct aws_option options[] = {
		AWS_OPT_STR("--size", &size_arg),
		AWS_OPT_COUNT("--loops", &loops, 0),
		AWS_OPT_FLAG("--write", &rewrite),
		AWS_OPT_END,
	};
	size_t bytes;
	struct aws_region *reg;
	long loop_majfaults = 0, m0;
	struct aws_phase phase;

	aws_init("loop", "aws-loop");
	aws_parse_options(argc, argv, options, usage);
	bytes = aws_parse_size("--size", size_arg, AWS_MiB, AWS_PAGE_SIZE);
	aws_describe_fixed();

	fprintf(stderr, "aws-loop: size=%zuMiB pages=%zu loops=%" PRIu64
		" write=%d\n", bytes / AWS_MiB, bytes / AWS_PAGE_SIZE, loops,
		rewrite);

	aws_start();

	reg = aws_region_alloc("loop", bytes);
	aws_region_write_all(reg);
	if (aws.corrupt_test)
		aws_corrupt_page(reg, reg->npages / 2);

	aws_phase_begin(&phase);
	for (l = 0; l < loops; l++) {
		m0 = aws_majflt();
		aws_access_range(reg, 0, reg->npages, rewrite);
		loop_majfaults += aws_majflt() - m0;
		fprintf(stderr, "aws-loop: loop %" PRIu64 "/%" PRIu64
			" loop_majfaults=%ld\n", l + 1, loops, loop_majfaults);
	}
	aws_phase_end(&phase);

	/* the corrupted page must be caught even with --loops 0 */
	if (aws.corrupt_test && loops == 0)
		aws_page_verify(reg, reg->npages / 2);

	aws_result_i64("loop_majfaults", loop_majfaults);
	aws_result_i64("loop_pswpin", phase.pswpin);
	aws_result_u64("loops", loops);
	aws_result_u64("pages", reg->npages);
	aws_result_double("loop_seconds", phase.seconds, 3);
	rc = aws_finish();

	aws_region_free(reg);
	return rc;
}
