// SPDX-License-Identifier: GPL-2.0
/*
 * randw.c - aws-randw: multi-threaded random page writes over a shared
 * region, the vm-scalability swap-w-rand-mt pattern.
 *
 * --threads workers write random pages of one --size region (meant to be
 * larger than guest memory) for --seconds, or --writes per thread. Every
 * write stamps the page with its next generation. To stay race-free the
 * pages are partitioned: thread t only ever writes pages with
 * idx % threads == t, so each page and its generation slot have a single
 * writer. After the workers stop, the main thread verifies every page
 * (never-written pages must still read as zero).
 *
 * The pages a worker writes are aws_randw.h's stream, which the
 * simulator's randw pattern replays: with --threads 1 and --writes,
 * exactly (docs/trace-format.md).  --describe (common.h) says so, and with
 * more threads gives that command line with the threads' streams taken
 * round-robin (approximate: the scheduler interleaves them otherwise); a
 * timed run, or one without --threads (the CPUs online), has no fixed
 * trace.
 */
#include "common.h"

#include "aws_randw.h"

#include <inttypes.h>
#include <stdlib.h>

/* What every worker writes to */
struct randw_ctx {
	struct aws_region *region;
	int verify_writes;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: aws-randw [options]\n"
		"Random page writes by several threads over one shared region\n"
		"(vm-scalability swap-w-rand-mt), then verification of every page.\n"
		"\n"
		"  --size SIZE       region size (default 120%%)\n"
		"  --threads N       writer threads (default: online CPUs)\n"
		"  --seconds T       write phase duration, decimals allowed (default %d;\n"
		"                    if only --writes is given there is no time limit)\n"
		"  --writes N        writes per thread (default: until --seconds)\n"
		"  --verify-writes   verify each page's previous generation before\n"
		"                    overwriting it (read fault before write fault)\n"
		"\n"
		"RESULT keys: writes writes_per_sec threads pages pages_written\n"
		"             write_seconds write_majfaults + common keys\n"
		"             (write_majfaults: ru_majflt over the writes, all threads)\n"
		"\n", AWS_DEF_SECONDS);
	aws_common_usage(f);
}

static uint64_t worker_fn(const struct aws_worker *w)
{
	const struct randw_ctx *c = w->ctx;
	struct aws_region *r = c->region;
	struct aws_randw s;
	uint64_t n = 0;

	aws_randw_init(&s, r->npages, w->wk->threads, w->id, aws.seed);
	while (aws_worker_continue(w, n)) {
		size_t idx = (size_t)aws_randw_next(&s);

		if (c->verify_writes)	/* one access: verify, then rewrite */
			aws_access_range(r, idx, 1, 1);
		else
			aws_page_write(r, idx, aws_next_gen(r->gen[idx]));
		n++;
	}
	return n;
}

/*
 * --describe: the trace of one thread is exact; that of N threads is
 * aws-sim's randw pattern, the N streams taken round-robin, one write each.
 */
static void describe(const struct aws_workers *wk, size_t size)
{
	uint64_t writes, accesses;

	writes = aws_describe_workers(wk, "--writes", "randw", 1, &accesses);
	aws_describe_sim("--randw-pages", "%zu", size / AWS_PAGE_SIZE);
	aws_describe_sim("--randw-threads", "%" PRIu64, wk->threads);
	aws_describe_sim("--accesses", "%" PRIu64, accesses);
	aws_describe_expect("writes", writes);
	aws_describe_expect("pages", size / AWS_PAGE_SIZE);
	aws_describe_expect("threads", wk->threads);
	aws_describe_approx(wk->threads, "writes");
}

int main(int argc, char **argv)
{
	const char *size_arg = "120%";
	struct aws_workers wk;
	struct randw_ctx ctx = { .verify_writes = 0 };
	const struct aws_option options[] = {
		AWS_OPT_STR("--size", &size_arg),
		AWS_OPT_U64_GIVEN("--threads", &wk.threads, 1, 1024,
				  &wk.threads_given),
		AWS_OPT_DOUBLE_GIVEN("--seconds", &wk.seconds, 0, 1e7,
				     &wk.seconds_given),
		AWS_OPT_U64("--writes", &wk.max_ops, 1, UINT64_MAX),
		AWS_OPT_FLAG("--verify-writes", &ctx.verify_writes),
		AWS_OPT_END,
	};
	struct aws_region *region;
	uint64_t written = 0;
	size_t size, i;
	int rc;

	aws_init("randw", "aws-randw");
	aws_workers_init(&wk, 1);
	aws_parse_options(argc, argv, options, usage);
	size = aws_parse_size("--size", size_arg, AWS_MiB, AWS_PAGE_SIZE);
	if (wk.threads > size / AWS_PAGE_SIZE)
		aws_usage_error("--threads %" PRIu64 " exceeds the %zu pages of --size",
				wk.threads, size / AWS_PAGE_SIZE);
	aws_workers_check(&wk);
	if (aws.describe)
		describe(&wk, size);

	fprintf(stderr,
		"aws-randw: size=%zuMiB threads=%" PRIu64 " seconds=%.3f writes=%" PRIu64
		" verify_writes=%d\n", size / AWS_MiB, wk.threads, wk.seconds,
		wk.max_ops, ctx.verify_writes);

	aws_start();

	region = aws_region_alloc("randw", size);
	ctx.region = region;
	aws_run_workers(&wk, worker_fn, &ctx);

	if (aws.corrupt_test) {
		/* corrupt the first written page (write one if none was) */
		for (i = 0; i < region->npages && !region->gen[i]; i++)
			;
		if (i == region->npages) {
			i = 0;
			aws_page_write(region, 0, 1);
		}
		aws_corrupt_page(region, i);
	}

	for (i = 0; i < region->npages; i++) {
		aws_page_verify(region, i);
		written += region->gen[i] != 0;
	}

	aws_result_u64("writes", wk.ops);
	aws_result_double("writes_per_sec",
			  wk.run_seconds > 0 ? wk.ops / wk.run_seconds : 0, 1);
	aws_result_u64("threads", wk.threads);
	aws_result_u64("pages", region->npages);
	aws_result_u64("pages_written", written);
	aws_result_double("write_seconds", wk.run_seconds, 3);
	aws_result_i64("write_majfaults", wk.majfaults);
	rc = aws_finish();

	aws_region_free(region);
	return rc;
}
