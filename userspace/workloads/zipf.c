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
 * equivalent command lines), and --save-trace FILE (trace.c) writes them
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

#define DEF_ALPHA	"1.0"

/* What every worker reads: the region, its chunks and their zipf tables */
struct zipf_ctx {
	const struct aws_zipf *zt;
	const struct aws_region *region;
	size_t chunk_bytes;
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
		"\n", AWS_DEF_SECONDS, DEF_ALPHA);
	aws_common_usage(f);
}

static uint64_t worker_fn(const struct aws_worker *w)
{
	const struct zipf_ctx *z = w->ctx;
	size_t pages_per_chunk = z->chunk_bytes / AWS_PAGE_SIZE;
	unsigned char *buf = malloc(z->chunk_bytes);
	struct aws_rng rng;
	uint64_t recs = 0;

	if (!buf)
		aws_fatal("out of memory for worker buffer");
	memset(buf, 0, z->chunk_bytes);
	aws_zipf_stream_seed(&rng, aws.seed, w->id);

	while (aws_worker_continue(w, recs)) {
		size_t chunk, first, p;

		chunk = aws_zipf_next_chunk(z->zt, &rng);
		first = aws_zipf_first_page(z->zt, chunk);
		for (p = 0; p < pages_per_chunk; p++)
			aws_page_verify(z->region, first + p);
		/*
		 * The copy reads the same pages again; --save-trace leaves it
		 * out: they were all touched just now (the verify's accesses
		 * already left their PTEs young).
		 */
		memcpy(buf, z->region->base + chunk * z->chunk_bytes,
		       z->chunk_bytes);
		/* the copy is the work: keep the compiler from dropping it */
		__asm__ __volatile__("" : : "r"(buf) : "memory");
		recs++;
	}
	free(buf);
	return recs;
}

/*
 * --describe: the trace of one thread is exact; that of N threads is
 * aws-sim's zipf pattern, the N streams taken round-robin, one record
 * each.  @size is --size as parsed (aws-sim rounds it down to chunks too).
 */
static void describe(const struct aws_workers *wk, size_t size,
		     size_t chunk_bytes, const char *alpha_arg)
{
	uint64_t chunk_pages = chunk_bytes / AWS_PAGE_SIZE, records, accesses;

	records = aws_describe_workers(wk, "--records", "zipf", chunk_pages,
				       &accesses);
	aws_describe_sim("--zipf-pages", "%zu", size / AWS_PAGE_SIZE);
	aws_describe_sim("--zipf-chunk", "%" PRIu64, chunk_pages);
	aws_describe_sim("--zipf-threads", "%" PRIu64, wk->threads);
	aws_describe_sim("--alpha", "%s", alpha_arg);
	aws_describe_sim("--accesses", "%" PRIu64, accesses);
	aws_describe_expect("records", records);
	aws_describe_expect("chunks", size / chunk_bytes);
	aws_describe_expect("chunk_bytes", chunk_bytes);
	aws_describe_expect("threads", wk->threads);
	aws_describe_approx(wk->threads, "records");
}

int main(int argc, char **argv)
{
	const char *size_arg = "100%", *chunk_arg = "64K";
	const char *alpha_arg = DEF_ALPHA;
	struct aws_workers wk;
	const struct aws_option options[] = {
		AWS_OPT_STR("--size", &size_arg),
		AWS_OPT_STR("--chunk", &chunk_arg),
		AWS_OPT_U64("--threads", &wk.threads, 1, 1024),
		AWS_OPT_DOUBLE_GIVEN("--seconds", &wk.seconds, 0, 1e7,
				     &wk.seconds_given),
		AWS_OPT_U64("--records", &wk.max_ops, 1, UINT64_MAX),
		AWS_OPT_STR("--alpha", &alpha_arg),
		AWS_OPT_END,
	};
	double alpha;
	int rc;
	size_t size, chunk_bytes, nchunks, bad_page = 0;
	struct aws_region *region;
	struct aws_zipf zt;
	struct zipf_ctx ctx;

	aws_init("zipf", "aws-zipf");
	aws_workers_init(&wk, 0);
	aws_parse_options(argc, argv, options, usage);
	chunk_bytes = aws_parse_size("--chunk", chunk_arg, 1, AWS_PAGE_SIZE);
	size = aws_parse_size("--size", size_arg, AWS_MiB, chunk_bytes);
	alpha = aws_parse_double("--alpha", alpha_arg, 0, 5);
	aws_workers_check(&wk);
	if (aws.describe)
		describe(&wk, size, chunk_bytes, alpha_arg);
	nchunks = size / chunk_bytes;
	size = nchunks * chunk_bytes;

	fprintf(stderr,
		"aws-zipf: size=%zuMiB chunk=%zuKiB chunks=%zu threads=%" PRIu64
		" alpha=%.3f seconds=%.3f records=%" PRIu64 "\n",
		size / AWS_MiB, chunk_bytes / 1024, nchunks, wk.threads, alpha,
		wk.seconds, wk.max_ops);

	if (aws_zipf_init(&zt, nchunks, chunk_bytes / AWS_PAGE_SIZE, alpha,
			  aws.seed))
		aws_fatal("out of memory for %zu chunks", nchunks);

	aws_start();

	region = aws_region_alloc("zipf", size);
	aws_region_write_all(region);
	if (aws.corrupt_test) {
		/* a page in the hottest chunk: workers will trip over it */
		bad_page = zt.perm[0] * (chunk_bytes / AWS_PAGE_SIZE) +
			chunk_bytes / AWS_PAGE_SIZE / 2;
		aws_corrupt_page(region, bad_page);
	}

	ctx = (struct zipf_ctx){
		.zt = &zt,
		.region = region,
		.chunk_bytes = chunk_bytes,
	};
	aws_run_workers(&wk, worker_fn, &ctx);

	/* "then checks it": detection must not depend on the sampling */
	if (aws.corrupt_test)
		aws_page_verify(region, bad_page);

	aws_result_u64("records", wk.ops);
	aws_result_double("records_per_sec",
			  wk.run_seconds > 0 ? wk.ops / wk.run_seconds : 0, 1);
	aws_result_u64("threads", wk.threads);
	aws_result_double("alpha", alpha, 3);
	aws_result_u64("chunks", nchunks);
	aws_result_u64("chunk_bytes", chunk_bytes);
	aws_result_double("run_seconds", wk.run_seconds, 3);
	aws_result_i64("record_majfaults", wk.majfaults);
	rc = aws_finish();

	aws_region_free(region);
	aws_zipf_free(&zt);
	return rc;
}
