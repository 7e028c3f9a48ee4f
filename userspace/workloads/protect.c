// SPDX-License-Identifier: GPL-2.0
/*
 * protect.c - aws-protect: workingset protection workload (the cover
 * letter's protection example).
 *
 * A hot set is written and read several times so that it (hopefully) gets
 * activated. Then waves of used-once pages stream through memory: each wave
 * is written exactly once, in --chunks pieces, and after every piece the
 * whole hot set is re-read and verified so reclaim keeps observing
 * references to it while under pressure (6.1 reclaim only promotes pages
 * seen referenced on two separate scans). Waves are unmapped after use
 * unless --keep-waves is given.
 *
 * A kernel that protects the workingset well keeps hot_majfaults (major
 * faults taken while re-reading the hot set during the waves) low.
 *
 * The sequence of pages touched depends on the options alone (not on
 * --seed, which only changes the pattern written): --save-trace (trace.c)
 * writes it, and harness/experiment/opt.py replays it for Belady's OPT;
 * --describe (common.h) says it is exact (but for a size relative to the
 * machine's memory, as the defaults are, --thp and --corrupt-test).
 */
#include "common.h"

#include <inttypes.h>
#include <stdlib.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: aws-protect [options]\n"
		"Workingset protection: hot set re-referenced while waves of\n"
		"used-once pages stream through memory.\n"
		"\n"
		"  --hot SIZE      hot set size (default 40%%)\n"
		"  --wave SIZE     size of one used-once wave (default 100%%)\n"
		"  --waves N       number of waves (default 4)\n"
		"  --passes N      hot-set activation passes before the waves (default 3)\n"
		"  --chunks N      hot-set re-reads per wave, one after each 1/N of\n"
		"                  the wave is written (default 16)\n"
		"  --keep-waves    keep waves mapped instead of unmapping each one\n"
		"\n"
		"RESULT keys: hot_pages hot_majfaults hot_passes activate_majfaults\n"
		"             waves wave_pages + common keys\n"
		"\n");
	aws_common_usage(f);
}

int main(int argc, char **argv)
{
	const char *hot_arg = "40%", *wave_arg = "100%";
	uint64_t waves = 4, passes = 3, chunks = 16;
	int keep_waves = 0, rc;
	const struct aws_option options[] = {
		AWS_OPT_STR("--hot", &hot_arg),
		AWS_OPT_STR("--wave", &wave_arg),
		AWS_OPT_COUNT("--waves", &waves, 0),
		AWS_OPT_COUNT("--passes", &passes, 0),
		AWS_OPT_COUNT("--chunks", &chunks, 1),
		AWS_OPT_FLAG("--keep-waves", &keep_waves),
		AWS_OPT_END,
	};
	struct aws_region *hot, **kept;
	uint64_t hot_passes = 0;
	long hot_majfaults = 0, activate_majfaults, m0;
	size_t hot_bytes, wave_bytes, i;

	aws_init("protect", "aws-protect");
	aws_parse_options(argc, argv, options, usage);
	hot_bytes = aws_parse_size("--hot", hot_arg, AWS_MiB, AWS_PAGE_SIZE);
	wave_bytes = aws_parse_size("--wave", wave_arg, AWS_MiB,
				    AWS_PAGE_SIZE);
	aws_describe_fixed();

	fprintf(stderr,
		"aws-protect: hot=%zuMiB wave=%zuMiB waves=%" PRIu64
		" passes=%" PRIu64 " chunks=%" PRIu64 " keep_waves=%d\n",
		hot_bytes / AWS_MiB, wave_bytes / AWS_MiB, waves, passes,
		chunks, keep_waves);

	kept = calloc(waves ? waves : 1, sizeof(*kept));
	if (!kept)
		aws_fatal("out of memory");

	aws_start();

	hot = aws_region_alloc("hot", hot_bytes);
	aws_region_write_all(hot);
	if (aws.corrupt_test)
		aws_corrupt_page(hot, hot->npages / 2);

	m0 = aws_majflt();
	for (i = 0; i < passes; i++)
		aws_access_range(hot, 0, hot->npages, 0);
	activate_majfaults = aws_majflt() - m0;

	for (uint64_t w = 0; w < waves; w++) {
		struct aws_region *wave = aws_region_alloc("wave", wave_bytes);

		for (uint64_t c = 0; c < chunks; c++) {
			size_t lo = wave->npages * c / chunks;
			size_t hi = wave->npages * (c + 1) / chunks;

			for (i = lo; i < hi; i++)
				aws_page_write(wave, i, 1);

			m0 = aws_majflt();
			aws_access_range(hot, 0, hot->npages, 0);
			hot_majfaults += aws_majflt() - m0;
			hot_passes++;
		}
		if (keep_waves)
			kept[w] = wave;
		else
			aws_region_free(wave);
		fprintf(stderr, "aws-protect: wave %" PRIu64 "/%" PRIu64
			" done, hot_majfaults so far %ld\n", w + 1, waves,
			hot_majfaults);
	}

	/* "then checks it": detection must not depend on --passes/--waves */
	if (aws.corrupt_test)
		aws_page_verify(hot, hot->npages / 2);

	aws_result_u64("hot_pages", hot->npages);
	aws_result_i64("hot_majfaults", hot_majfaults);
	aws_result_u64("hot_passes", hot_passes);
	aws_result_i64("activate_majfaults", activate_majfaults);
	aws_result_u64("waves", waves);
	aws_result_u64("wave_pages", wave_bytes / AWS_PAGE_SIZE);
	rc = aws_finish();

	for (uint64_t w = 0; w < waves; w++)
		aws_region_free(kept[w]);
	free(kept);
	aws_region_free(hot);
	return rc;
}
