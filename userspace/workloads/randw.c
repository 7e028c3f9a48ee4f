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
#include <unistd.h>

enum {
	OPT_SIZE = AWS_OPT_PROGRAM_BASE,
	OPT_THREADS,
	OPT_SECONDS,
	OPT_WRITES,
	OPT_VERIFY_WRITES,
};

#define DEF_SECONDS	10	/* write phase without --seconds or --writes */

struct worker {
	unsigned int id;
	unsigned int nthreads;
	struct aws_region *region;
	uint64_t max_writes;	/* 0: until stopped */
	int verify_writes;
	atomic_int *stop;
	uint64_t writes;	/* output, written once at the end */
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
		"\n", DEF_SECONDS);
	aws_common_usage(f);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct aws_region *r = w->region;
	struct aws_randw s;
	uint64_t n = 0;

	aws_randw_init(&s, r->npages, w->nthreads, w->id, aws.seed);
	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		size_t idx;

		if (w->max_writes && n >= w->max_writes)
			break;
		idx = (size_t)aws_randw_next(&s);
		if (w->verify_writes)	/* one access: verify, then rewrite */
			aws_access_range(r, idx, 1, 1);
		else
			aws_page_write(r, idx, aws_next_gen(r->gen[idx]));
		n++;
	}
	w->writes = n;
	return NULL;
}

/*
 * --describe: the trace of one thread is exact; that of N threads is
 * aws-sim's randw pattern, the N streams taken round-robin, one write each.
 */
static void describe(int argc, char **argv, int seconds_given,
		     uint64_t max_writes, int threads_given, uint64_t threads,
		     size_t size)
{
	uint64_t writes;

	aws_describe_common(argc, argv, seconds_given);
	if (!max_writes)
		aws_describe_na("no --writes: timed (%d s by default)",
				DEF_SECONDS);
	if (!threads_given)
		aws_describe_na("no --threads: it defaults to the CPUs online, the guest's are not the host's");
	if (threads == 1)
		aws_describe_exact();
	if (__builtin_mul_overflow(max_writes, threads, &writes))
		aws_describe_na("more than 2^64 accesses");
	aws_describe_sim("--seed", "%" PRIu64, aws.seed);
	aws_describe_sim("--pattern", "randw");
	aws_describe_sim("--randw-pages", "%zu", size / AWS_PAGE_SIZE);
	aws_describe_sim("--randw-threads", "%" PRIu64, threads);
	aws_describe_sim("--accesses", "%" PRIu64, writes);
	aws_describe_expect("writes", writes);
	aws_describe_expect("pages", size / AWS_PAGE_SIZE);
	aws_describe_expect("threads", threads);
	aws_describe_approx(threads, "writes");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size",          required_argument, NULL, OPT_SIZE },
		{ "threads",       required_argument, NULL, OPT_THREADS },
		{ "seconds",       required_argument, NULL, OPT_SECONDS },
		{ "writes",        required_argument, NULL, OPT_WRITES },
		{ "verify-writes", no_argument,       NULL, OPT_VERIFY_WRITES },
		AWS_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *size_arg = "120%";
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t threads = ncpu > 0 ? (uint64_t)ncpu : 1;
	uint64_t max_writes = 0, writes = 0, written = 0;
	double seconds = DEF_SECONDS, write_seconds;
	long write_majfaults;
	int seconds_given = 0, threads_given = 0, verify_writes = 0, opt;
	struct aws_region *region;
	struct worker *workers;
	atomic_int stop = 0;
	size_t size, i;

	aws_init("randw", "aws-randw");
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (aws_common_option(opt, optarg, usage))
			continue;
		switch (opt) {
		case OPT_SIZE:
			size_arg = optarg;
			break;
		case OPT_THREADS:
			threads = aws_parse_u64("--threads", optarg, 1, 1024);
			threads_given = 1;
			break;
		case OPT_SECONDS:
			seconds = aws_parse_double("--seconds", optarg, 0, 1e7);
			seconds_given = 1;
			break;
		case OPT_WRITES:
			max_writes = aws_parse_u64("--writes", optarg, 1,
						   UINT64_MAX);
			break;
		case OPT_VERIFY_WRITES:
			verify_writes = 1;
			break;
		default:
			aws_usage_error("unhandled option");
		}
	}
	aws_no_operands(argc, argv, optind);
	size = aws_parse_size("--size", size_arg, AWS_MiB, AWS_PAGE_SIZE);
	if (threads > size / AWS_PAGE_SIZE)
		aws_usage_error("--threads %" PRIu64 " exceeds the %zu pages of --size",
				threads, size / AWS_PAGE_SIZE);
	if (max_writes && !seconds_given)
		seconds = 0;	/* no time limit */
	aws_trace_single_thread(threads);
	if (aws.describe)
		describe(argc, argv, seconds_given, max_writes, threads_given,
			 threads, size);

	fprintf(stderr,
		"aws-randw: size=%zuMiB threads=%" PRIu64 " seconds=%.3f writes=%" PRIu64
		" verify_writes=%d\n", size / AWS_MiB, threads, seconds,
		max_writes, verify_writes);

	workers = calloc(threads, sizeof(*workers));
	if (!workers)
		aws_fatal("out of memory");

	aws_start();

	region = aws_region_alloc("randw", size);
	for (i = 0; i < threads; i++) {
		workers[i].id = i;
		workers[i].nthreads = threads;
		workers[i].region = region;
		workers[i].max_writes = max_writes;
		workers[i].verify_writes = verify_writes;
		workers[i].stop = &stop;
	}
	write_majfaults = aws_majflt();
	write_seconds = aws_run_workers(threads, worker_fn, workers,
					sizeof(*workers), seconds, &stop);
	write_majfaults = aws_majflt() - write_majfaults;
	for (i = 0; i < threads; i++)
		writes += workers[i].writes;

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

	aws_result_u64("writes", writes);
	aws_result_double("writes_per_sec",
			  write_seconds > 0 ? writes / write_seconds : 0, 1);
	aws_result_u64("threads", threads);
	aws_result_u64("pages", region->npages);
	aws_result_u64("pages_written", written);
	aws_result_double("write_seconds", write_seconds, 3);
	aws_result_i64("write_majfaults", write_majfaults);
	opt = aws_finish();

	aws_region_free(region);
	free(workers);
	return opt;
}
