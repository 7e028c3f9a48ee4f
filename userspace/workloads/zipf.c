// SPDX-License-Identifier: GPL-2.0
/*
 * zipf.c - aws-zipf: ebizzy-like throughput benchmark with a zipf-skewed
 * working set.
 *
 * The main thread maps --size bytes and fills it as --chunk sized chunks.
 * --threads workers then, for --seconds (or --records per thread), pick a
 * chunk from a zipf(--alpha) distribution over chunk ranks, read it while
 * verifying every page's pattern, and memcpy it into a private per-thread
 * buffer; each processed chunk is one record. Ranks are mapped to chunk
 * positions by a fixed seeded permutation so hot chunks are spread across
 * the region. Sampling uses a precomputed CDF and binary search; each
 * worker has its own splitmix64 PRNG derived from --seed, so the sequence
 * of chunks each worker picks is reproducible.
 *
 * The tables and the streams are userspace/streams/aws_zipf.h, which the
 * simulator's zipf pattern uses too: with --threads 1, "aws-sim --pattern zipf" replays
 * exactly the pages this program touches (docs/trace-format.md gives the
 * equivalent command lines), and --save-trace FILE (common.c) writes them
 * in the simulator's binary trace format so that a test can compare the
 * two.  --describe (common.h) says so, and with more threads gives that
 * command line with the threads' streams taken round-robin (approximate:
 * the scheduler interleaves them otherwise); a timed run has no fixed trace.
 *
 * Throughput (records_per_sec) rises when the kernel keeps the hot chunks
 * resident, i.e. when refaults of hot pages are detected as workingset.
 */
#include "common.h"

#include "aws_zipf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_SIZE = AWS_OPT_PROGRAM_BASE,
	OPT_CHUNK,
	OPT_THREADS,
	OPT_SECONDS,
	OPT_RECORDS,
	OPT_ALPHA,
};

#define DEF_SECONDS	10	/* run time without --seconds or --records */
#define DEF_ALPHA	"1.0"

struct worker {
	unsigned int id;
	const struct aws_zipf *zt;
	const struct aws_region *region;
	size_t chunk_bytes;
	uint64_t max_records;	/* 0: until stopped */
	atomic_int *stop;
	uint64_t records;	/* output, written once at the end */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: aws-zipf [options]\n"
		"ebizzy-like throughput: worker threads read+verify+copy chunks\n"
		"picked from a zipf distribution.\n"
		"\n"
		"  --size SIZE     region size (default 100%%)\n"
		"  --chunk SIZE    chunk size; a bare number is in BYTES (default 64K)\n"
		"  --threads N     worker threads (default 1)\n"
		"  --seconds T     run time, decimals allowed (default %d; if only\n"
		"                  --records is given there is no time limit)\n"
		"  --records N     stop each worker after N records (default: none)\n"
		"  --alpha A       zipf exponent, 0 < A <= 5 (default %s)\n"
		"\n"
		"--save-trace records the fill and each record's verify pass (the\n"
		"copy re-reads pages touched an instant before).\n"
		"\n"
		"RESULT keys: records records_per_sec threads alpha chunks chunk_bytes\n"
		"             run_seconds record_majfaults + common keys\n"
		"             (record_majfaults: ru_majflt over the records, all\n"
		"             threads)\n"
		"\n", DEF_SECONDS, DEF_ALPHA);
	aws_common_usage(f);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	size_t pages_per_chunk = w->chunk_bytes / AWS_PAGE_SIZE;
	unsigned char *buf = malloc(w->chunk_bytes);
	struct aws_rng rng;
	uint64_t recs = 0;

	if (!buf)
		aws_fatal("out of memory for worker buffer");
	memset(buf, 0, w->chunk_bytes);
	aws_zipf_stream_seed(&rng, aws.seed, w->id);

	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		size_t chunk, first, p;

		if (w->max_records && recs >= w->max_records)
			break;
		chunk = aws_zipf_next_chunk(w->zt, &rng);
		first = aws_zipf_first_page(w->zt, chunk);
		for (p = 0; p < pages_per_chunk; p++)
			aws_page_verify(w->region, first + p);
		/*
		 * The copy reads the same pages again; --save-trace leaves it
		 * out: they were all touched just now (the verify's accesses
		 * already left their PTEs young).
		 */
		memcpy(buf, w->region->base + chunk * w->chunk_bytes,
		       w->chunk_bytes);
		/* the copy is the work: keep the compiler from dropping it */
		__asm__ __volatile__("" : : "r"(buf) : "memory");
		recs++;
	}
	w->records = recs;
	free(buf);
	return NULL;
}

/*
 * --describe: the trace of one thread is exact; that of N threads is
 * aws-sim's zipf pattern, the N streams taken round-robin, one record
 * each.  @size is --size as parsed (aws-sim rounds it down to chunks too).
 */
static void describe(int argc, char **argv, int seconds_given,
		     uint64_t max_records, uint64_t threads, size_t size,
		     size_t chunk_bytes, const char *alpha_arg)
{
	uint64_t chunk_pages = chunk_bytes / AWS_PAGE_SIZE, records, accesses;

	aws_describe_common(argc, argv, seconds_given);
	if (!max_records)
		aws_describe_na("no --records: timed (%d s by default)",
				DEF_SECONDS);
	if (threads == 1)
		aws_describe_exact();
	if (__builtin_mul_overflow(max_records, threads, &records) ||
	    __builtin_mul_overflow(records, chunk_pages, &accesses))
		aws_describe_na("more than 2^64 accesses");
	aws_describe_sim("--seed", "%" PRIu64, aws.seed);
	aws_describe_sim("--pattern", "zipf");
	aws_describe_sim("--zipf-pages", "%zu", size / AWS_PAGE_SIZE);
	aws_describe_sim("--zipf-chunk", "%" PRIu64, chunk_pages);
	aws_describe_sim("--zipf-threads", "%" PRIu64, threads);
	aws_describe_sim("--alpha", "%s", alpha_arg);
	aws_describe_sim("--accesses", "%" PRIu64, accesses);
	aws_describe_expect("records", records);
	aws_describe_expect("chunks", size / chunk_bytes);
	aws_describe_expect("chunk_bytes", chunk_bytes);
	aws_describe_expect("threads", threads);
	aws_describe_approx(threads, "records");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size",    required_argument, NULL, OPT_SIZE },
		{ "chunk",   required_argument, NULL, OPT_CHUNK },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "seconds", required_argument, NULL, OPT_SECONDS },
		{ "records", required_argument, NULL, OPT_RECORDS },
		{ "alpha",   required_argument, NULL, OPT_ALPHA },
		AWS_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *size_arg = "100%", *chunk_arg = "64K";
	const char *alpha_arg = DEF_ALPHA;
	uint64_t threads = 1, max_records = 0, records = 0;
	double seconds = DEF_SECONDS, alpha, run_seconds;
	long record_majfaults;
	int seconds_given = 0, opt;
	size_t size, chunk_bytes, nchunks, i, bad_page = 0;
	struct aws_region *region;
	struct aws_zipf zt;
	struct worker *workers;
	atomic_int stop = 0;

	aws_init("zipf", "aws-zipf");
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (aws_common_option(opt, optarg, usage))
			continue;
		switch (opt) {
		case OPT_SIZE:
			size_arg = optarg;
			break;
		case OPT_CHUNK:
			chunk_arg = optarg;
			break;
		case OPT_THREADS:
			threads = aws_parse_u64("--threads", optarg, 1, 1024);
			break;
		case OPT_SECONDS:
			seconds = aws_parse_double("--seconds", optarg, 0, 1e7);
			seconds_given = 1;
			break;
		case OPT_RECORDS:
			max_records = aws_parse_u64("--records", optarg, 1,
						    UINT64_MAX);
			break;
		case OPT_ALPHA:
			alpha_arg = optarg;
			break;
		default:
			aws_usage_error("unhandled option");
		}
	}
	aws_no_operands(argc, argv, optind);
	chunk_bytes = aws_parse_size("--chunk", chunk_arg, 1, AWS_PAGE_SIZE);
	size = aws_parse_size("--size", size_arg, AWS_MiB, chunk_bytes);
	alpha = aws_parse_double("--alpha", alpha_arg, 0, 5);
	if (max_records && !seconds_given)
		seconds = 0;	/* no time limit */
	/* the trace must be the one sequence the simulator replays */
	aws_trace_single_thread(threads);
	if (aws.describe)
		describe(argc, argv, seconds_given, max_records, threads, size,
			 chunk_bytes, alpha_arg);
	nchunks = size / chunk_bytes;
	size = nchunks * chunk_bytes;

	fprintf(stderr,
		"aws-zipf: size=%zuMiB chunk=%zuKiB chunks=%zu threads=%" PRIu64
		" alpha=%.3f seconds=%.3f records=%" PRIu64 "\n",
		size / AWS_MiB, chunk_bytes / 1024, nchunks, threads, alpha,
		seconds, max_records);

	if (aws_zipf_init(&zt, nchunks, chunk_bytes / AWS_PAGE_SIZE, alpha,
			  aws.seed))
		aws_fatal("out of memory for %zu chunks", nchunks);
	workers = calloc(threads, sizeof(*workers));
	if (!workers)
		aws_fatal("out of memory");

	aws_start();

	region = aws_region_alloc("zipf", size);
	for (i = 0; i < region->npages; i++)
		aws_page_write(region, i, 1);
	if (aws.corrupt_test) {
		/* a page in the hottest chunk: workers will trip over it */
		bad_page = zt.perm[0] * (chunk_bytes / AWS_PAGE_SIZE) +
			chunk_bytes / AWS_PAGE_SIZE / 2;
		aws_corrupt_page(region, bad_page);
	}

	for (i = 0; i < threads; i++) {
		workers[i].id = i;
		workers[i].zt = &zt;
		workers[i].region = region;
		workers[i].chunk_bytes = chunk_bytes;
		workers[i].max_records = max_records;
		workers[i].stop = &stop;
	}
	record_majfaults = aws_majflt();
	run_seconds = aws_run_workers(threads, worker_fn, workers,
				      sizeof(*workers), seconds, &stop);
	record_majfaults = aws_majflt() - record_majfaults;
	for (i = 0; i < threads; i++)
		records += workers[i].records;

	/* "then checks it": detection must not depend on the sampling */
	if (aws.corrupt_test)
		aws_page_verify(region, bad_page);

	aws_result_u64("records", records);
	aws_result_double("records_per_sec",
			  run_seconds > 0 ? records / run_seconds : 0, 1);
	aws_result_u64("threads", threads);
	aws_result_double("alpha", alpha, 3);
	aws_result_u64("chunks", nchunks);
	aws_result_u64("chunk_bytes", chunk_bytes);
	aws_result_double("run_seconds", run_seconds, 3);
	aws_result_i64("record_majfaults", record_majfaults);
	opt = aws_finish();

	aws_region_free(region);
	free(workers);
	aws_zipf_free(&zt);
	return opt;
}
