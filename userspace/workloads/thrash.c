// SPDX-License-Identifier: GPL-2.0
/*
 * thrash.c - aws-thrash: refault (thrashing) detection workload, the cover
 * letter's detection test.
 *
 *   1. allocate and write cold (default 512M),
 *   2. allocate and write hot-1 (96M), then access it --hot1-passes times
 *      (default 4) so it is activated,
 *   3. allocate and write hot-2 (96M),
 *   4. for --rounds rounds (default 10): access the next --cold-slice of
 *      cold (default 128M; slices rotate through cold), then all of hot-2.
 *
 * hot-2 is used repeatedly but starts on the inactive list behind an active
 * hot-1; a kernel that detects its refaults as workingset activates it and
 * takes fewer hot2_majfaults. The defaults assume ~280 MB of usable memory;
 * --scale F multiplies every default size (explicit sizes are used as is).
 * Accesses read and verify every page; --write also rewrites each page with
 * the next generation.
 *
 * The sequence of pages touched depends on the options alone (not on
 * --seed, which only changes the pattern written): --save-trace (trace.c)
 * writes it, and harness/experiment/opt.py replays it for Belady's OPT;
 * --describe (common.h) says it is exact (but for a size relative to the
 * machine's memory, --thp and --corrupt-test).
 */
#include "common.h"

#include <inttypes.h>

#define DEF_COLD_MIB	512
#define DEF_HOT1_MIB	96
#define DEF_HOT2_MIB	96
#define DEF_SLICE_MIB	128

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: aws-thrash [options]\n"
		"Refault detection: rotating cold slices vs. a re-used hot-2 set\n"
		"behind an activated hot-1 set.\n"
		"\n"
		"  --cold SIZE        cold region (default %dM)\n"
		"  --hot1 SIZE        hot-1 region, activated first (default %dM)\n"
		"  --hot2 SIZE        hot-2 region, accessed every round (default %dM)\n"
		"  --cold-slice SIZE  cold accessed per round, rotating (default %dM)\n"
		"  --rounds N         rounds of cold slice + hot-2 pass (default 10)\n"
		"  --hot1-passes N    hot-1 activation passes (default 4)\n"
		"  --scale F          multiply all default sizes by F (default 1)\n"
		"  --write            rewrite pages on access (bump generation)\n"
		"\n"
		"RESULT keys: hot2_majfaults cold_majfaults hot1_majfaults rounds\n"
		"             cold_pages hot1_pages hot2_pages cold_slice_pages\n"
		"             + common keys (*_majfaults: ru_majflt deltas around the\n"
		"             hot-2 passes, cold slices, hot-1 activation passes)\n"
		"\n", DEF_COLD_MIB, DEF_HOT1_MIB, DEF_HOT2_MIB, DEF_SLICE_MIB);
	aws_common_usage(f);
}

static size_t size_or_default(const char *opt, const char *arg,
			      unsigned int def_mib, double scale)
{
	size_t bytes;

	if (arg)
		return aws_parse_size(opt, arg, AWS_MiB, AWS_PAGE_SIZE);
	bytes = (size_t)(def_mib * scale * (double)AWS_MiB) &
		~(AWS_PAGE_SIZE - 1);
	if (bytes < AWS_PAGE_SIZE)
		aws_usage_error("--scale makes the default of %s smaller than one page",
				opt);
	return bytes;
}

int main(int argc, char **argv)
{
	const char *cold_arg = NULL, *hot1_arg = NULL, *hot2_arg = NULL;
	const char *slice_arg = NULL;
	uint64_t rounds = 10, hot1_passes = 4, r;
	double scale = 1.0;
	int rewrite = 0, rc;
	const struct aws_option options[] = {
		AWS_OPT_STR("--cold", &cold_arg),
		AWS_OPT_STR("--hot1", &hot1_arg),
		AWS_OPT_STR("--hot2", &hot2_arg),
		AWS_OPT_STR("--cold-slice", &slice_arg),
		AWS_OPT_COUNT("--rounds", &rounds, 0),
		AWS_OPT_DOUBLE("--scale", &scale, 0, 1000),
		AWS_OPT_COUNT("--hot1-passes", &hot1_passes, 0),
		AWS_OPT_FLAG("--write", &rewrite),
		AWS_OPT_END,
	};
	size_t cold_bytes, hot1_bytes, hot2_bytes, slice_bytes, slice_pages;
	size_t pos = 0;
	struct aws_region *cold, *hot1, *hot2;
	long hot2_majfaults = 0, cold_majfaults = 0, hot1_majfaults, m0;

	aws_init("thrash", "aws-thrash");
	aws_parse_options(argc, argv, options, usage);
	cold_bytes = size_or_default("--cold", cold_arg, DEF_COLD_MIB, scale);
	hot1_bytes = size_or_default("--hot1", hot1_arg, DEF_HOT1_MIB, scale);
	hot2_bytes = size_or_default("--hot2", hot2_arg, DEF_HOT2_MIB, scale);
	slice_bytes = size_or_default("--cold-slice", slice_arg, DEF_SLICE_MIB,
				      scale);
	if (slice_bytes > cold_bytes)
		slice_bytes = cold_bytes;
	slice_pages = slice_bytes / AWS_PAGE_SIZE;
	aws_describe_fixed();

	fprintf(stderr,
		"aws-thrash: cold=%zuMiB hot1=%zuMiB hot2=%zuMiB cold_slice=%zuMiB rounds=%" PRIu64
		" hot1_passes=%" PRIu64 " write=%d\n",
		cold_bytes / AWS_MiB, hot1_bytes / AWS_MiB,
		hot2_bytes / AWS_MiB, slice_bytes / AWS_MiB, rounds,
		hot1_passes, rewrite);

	aws_start();

	cold = aws_region_alloc("cold", cold_bytes);
	aws_region_write_all(cold);

	hot1 = aws_region_alloc("hot1", hot1_bytes);
	aws_region_write_all(hot1);
	m0 = aws_majflt();
	for (r = 0; r < hot1_passes; r++)
		aws_access_range(hot1, 0, hot1->npages, rewrite);
	hot1_majfaults = aws_majflt() - m0;

	hot2 = aws_region_alloc("hot2", hot2_bytes);
	aws_region_write_all(hot2);
	if (aws.corrupt_test)
		aws_corrupt_page(hot2, hot2->npages / 2);

	for (r = 0; r < rounds; r++) {
		m0 = aws_majflt();
		aws_access_range(cold, pos, slice_pages, rewrite);
		cold_majfaults += aws_majflt() - m0;
		pos = (pos + slice_pages) % cold->npages;

		m0 = aws_majflt();
		aws_access_range(hot2, 0, hot2->npages, rewrite);
		hot2_majfaults += aws_majflt() - m0;

		fprintf(stderr, "aws-thrash: round %" PRIu64 "/%" PRIu64
			" hot2_majfaults=%ld cold_majfaults=%ld\n", r + 1,
			rounds, hot2_majfaults, cold_majfaults);
	}

	/* "then checks it": detection must not depend on --rounds/--write */
	if (aws.corrupt_test)
		aws_page_verify(hot2, hot2->npages / 2);

	aws_result_i64("hot2_majfaults", hot2_majfaults);
	aws_result_i64("cold_majfaults", cold_majfaults);
	aws_result_i64("hot1_majfaults", hot1_majfaults);
	aws_result_u64("rounds", rounds);
	aws_result_u64("cold_pages", cold->npages);
	aws_result_u64("hot1_pages", hot1->npages);
	aws_result_u64("hot2_pages", hot2->npages);
	aws_result_u64("cold_slice_pages", slice_pages);
	rc = aws_finish();

	aws_region_free(hot2);
	aws_region_free(hot1);
	aws_region_free(cold);
	return rc;
}
