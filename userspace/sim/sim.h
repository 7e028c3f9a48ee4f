/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws-sim: replay a page-access trace through models of the anon LRU.
 *
 * Pages are dense 32-bit ids 0..npages-1 (trace files are renamed into
 * that space in order of first appearance), so every per-page structure
 * is a flat array indexed by page id.
 */
#ifndef _AWS_SIM_H
#define _AWS_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <linux/types.h>
#include "aws_core.h"
#include "aws_policy.h"

#define SIM_PAGE_SIZE		4096UL
#define SIM_PAGES_PER_MB	(1024UL * 1024 / SIM_PAGE_SIZE)
#define SIM_NO_PAGE		UINT32_MAX
#define SIM_RECLAIM_BATCH	32	/* SWAP_CLUSTER_MAX */

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

struct trace {
	uint32_t *pages;	/* dense page ids, in access order */
	size_t len;
	size_t cap;
	uint32_t npages;	/* every id is < npages */
	/*
	 * First access of the measured phase (0: the whole trace). Misses
	 * from here on, first touches excepted, are the swap-ins a workload
	 * reports for that phase (struct sim_stats, sim_measured_swapins()).
	 */
	size_t mark;
	char name[64];
	char desc[192];
};

/* ---- trace.c ---- */

struct gen_params {
	double scale;		/* multiplies every size below */
	unsigned int rounds;
	unsigned int warmup;	/* passes that establish the hot set */
	uint64_t seed;
	/* thrash: the seed's test, sizes in MiB */
	double cold_mb, hot1_mb, hot2_mb, slice_mb, warm_chunk_mb;
	/* protect: hot set re-referenced between used-once waves */
	double hot_mb, wave_mb;
	unsigned int waves;
	/* loop: a region looped over, after one pass that first touches it */
	double loop_mb;
	unsigned int loops;
	/* scanhot: hot set re-referenced between used-once scans */
	double scan_hot_mb, scan_mb;
	/* zipf: aws-zipf's stream (userspace/streams/aws_zipf.h) */
	double alpha;
	uint64_t zipf_pages;	/* region size in pages */
	uint64_t zipf_chunk;	/* pages per chunk (record) */
	unsigned int zipf_threads; /* streams, interleaved round-robin */
	/* randw: aws-randw's writes (userspace/streams/aws_randw.h) */
	uint64_t randw_pages;	/* region size in pages */
	unsigned int randw_threads; /* writers, interleaved round-robin */
	uint64_t accesses;	/* zipf: page accesses after the fill; randw: writes */
};

void gen_params_default(struct gen_params *g);
unsigned long mb_to_pages(double mb, double scale);
int trace_generate(struct trace *t, const char *pattern,
		   const struct gen_params *g);
int trace_load(struct trace *t, const char *path);
extern bool trace_quiet;	/* no error messages from trace_load() */
int trace_save(const struct trace *t, const char *path);
void trace_free(struct trace *t);
void trace_push(struct trace *t, uint32_t page);
/* Build a trace from raw (sparse) page numbers, renaming them densely. */
int trace_from_raw(struct trace *t, const uint64_t *raw, size_t n);
/* Distinct pages first touched at or after the trace's mark. */
uint64_t trace_first_touches_after_mark(const struct trace *t);

/* ---- dist.c: a distribution of workloads drawn relative to memory ---- */

#define DIST_FAMILIES		8
#define DIST_MIX_FAMILIES	6	/* mix draws from the first six */

struct dist_instance {
	unsigned int family;
	char params[400];	/* the drawn parameters, "key=value ..." */
};

const char *dist_family_name(unsigned int family);
/* Instance @index of @rng_seed for @frames frames; 0, or -1 on failure. */
int dist_draw(struct trace *t, uint64_t rng_seed, unsigned int index,
	      unsigned long frames, struct dist_instance *d);

/* ---- lru2.c: the two-list model driven by a policy's decisions ---- */

struct lru2_params {
	const struct aws_policy *policy;	/* from the registry */
	unsigned long frames;	/* frames available to anon pages */
	unsigned int ratio;	/* AWS_RATIO_AUTO or 1..AWS_RATIO_MAX */
	bool fault_young;	/* the faulting access leaves a young PTE */
	int bucket_order;	/* < 0: derive like workingset_init() */
	unsigned long clock_start;
	unsigned long file_pages; /* static page cache seen by the ws rule */
	bool refault_deactivate; /* age active after refault activations */
	/*
	 * Reclaim in the guest's batches (memcg reclaim of 32 pages, by
	 * priority, in chunks of 32: lru2.c); else one page per fault.
	 */
	bool batch;
};

struct sim_stats {
	uint64_t accesses;
	uint64_t faults;	/* every miss, including first touch */
	uint64_t swapins;	/* misses on pages evicted before */
	uint64_t faults_at_mark; /* faults before the trace's mark */
	uint64_t evictions;	/* swap-outs */
	uint64_t refaults;	/* swap-ins that found a shadow */
	uint64_t refault_activations;
	uint64_t quiet_activations; /* ... made quiet (aws_refault.quiet) */
	uint64_t active_kept;	/* young active pages keep_active() kept */
	uint64_t restores;	/* ... whose shadow had PG_workingset */
	uint64_t reclaim_activations;
	uint64_t rotations;	/* first-look keeps (PG_referenced set) */
	uint64_t deactivations;
	uint64_t psi_swapins;	/* swap-ins started with PG_workingset */
	uint64_t hist[AWS_HIST_BUCKETS];
	unsigned int bucket_order;
	double seconds;
	/* MGLRU only (mglru.c) */
	uint64_t agings;	/* inc_max_seq()s */
	uint64_t walk_promotions; /* pages the aging walk moved */
	uint64_t lookaround_promotions; /* ... look-around moved */
	uint64_t gens_min, gens_max; /* generations seen, lowest/highest */
	uint64_t resident;	/* pages resident at the end */
	uint64_t reclaims;	/* lru2 --batch: reclaim calls */
	uint64_t model_errors;	/* failed consistency checks (--check) */
};

/* Swap-ins of the measured phase: misses after the mark, less first touches. */
uint64_t sim_measured_swapins(const struct trace *t,
			      const struct sim_stats *st);

int lru2_run(const struct trace *t, const struct lru2_params *p,
	     struct sim_stats *st);

/*
 * Where the policies' notes go (AWS_NOTE(), include/aws_policy.h), one
 * line each, labelled with sim_notes_instance (--notes; lru2.c); NULL:
 * nowhere.
 */
extern FILE *sim_notes;
extern unsigned int sim_notes_instance;

/* ---- mglru.c: 6.1's multi-generational LRU, anon pages ---- */

struct mglru_params {
	unsigned long frames;	/* frames available to anon pages */
	bool fault_young;	/* the faulting access leaves a young PTE */
	/*
	 * Reclaim as the guest's memcg reclaim does (priorities, 32 pages
	 * per charge, checks in batches of 64); else one page per fault, as
	 * the two-list model reclaims.
	 */
	bool batch;
	bool check;		/* verify the lists after every reclaim */
};

int mglru_run(const struct trace *t, const struct mglru_params *p,
	      struct sim_stats *st);

/* ---- simple.c: reference policies ---- */

int lru_run(const struct trace *t, unsigned long frames,
	    struct sim_stats *st);
/* Belady's MIN; next-use precomputation time reported separately. */
int opt_run(const struct trace *t, unsigned long frames,
	    struct sim_stats *st, double *precompute_seconds);

/* ---- twins.c: the BPF builds of the shared policy files ---- */

unsigned int sim_nr_twins(void);
/* Twin @i (NULL past the last), and the name of its C build. */
const struct aws_policy *sim_twin(unsigned int i, const char **c_name);
const struct aws_policy *sim_twin_find(const char *name);

/* ---- selftest.c ---- */

int sim_selftest(void);

/* ---- util ---- */

/*
 * Replay speed is measured in CPU time of this thread: the simulator is
 * single threaded, and wall time on a shared machine mostly measures the
 * neighbours.  main.c times the building of the trace with it, each
 * engine its own replay.
 */
static inline double sim_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif /* _AWS_SIM_H */
