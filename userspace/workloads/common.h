// SPDX-License-Identifier: GPL-2.0
/*
 * common.h - shared helpers for the anonymous-workingset workload programs
 * (aws-protect, aws-thrash, aws-zipf, aws-randw, aws-loop, aws-instance).
 *
 * One header for the programs; each section is one file's interface:
 *
 *   common.c    the run: global state, error exits, the aws_start() /
 *               aws_finish() bracket and the single
 *               "RESULT workload=<name> key=value ..." stdout line,
 *   options.c   the option table every program parses its command line
 *               with (the common options --thp, --seed, --corrupt-test,
 *               --save-trace, --describe, --help included), size / number
 *               parsing (exit 2 on garbage),
 *   describe.c  --describe: one JSON line saying what page trace the run
 *               has (exact, approximate with aws-sim's arguments, or none
 *               and why), printed instead of running,
 *   verify.c    anonymous regions (mmap + MADV_NOHUGEPAGE unless --thp)
 *               with a per-page generation array; page stamping and
 *               verification (aws_page_write / aws_page_check),
 *   trace.c     --save-trace: the page accesses verify.c makes, recorded
 *               as the run's page-access trace,
 *   workers.c   worker threads (the --threads / --seconds / --records
 *               programs), timing, getrusage major faults and /proc/vmstat.
 *
 * internal.h holds what these files share with each other only.
 *
 * Exit codes used by every program:
 *   0 success, 1 runtime error (mmap, threads, /proc), 2 usage error,
 *   3 at least one verification failure.
 */
#ifndef AWS_COMMON_H
#define AWS_COMMON_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "aws_rng.h"	/* the splitmix64 PRNG, shared with the simulator */

#define AWS_PAGE_SIZE	4096UL
#define AWS_MiB		(1024UL * 1024UL)

enum {
	AWS_EXIT_OK = 0,
	AWS_EXIT_ERROR = 1,
	AWS_EXIT_USAGE = 2,
	AWS_EXIT_VERIFY = 3,
};

/* ---- common.c: run state, errors, run bracket and RESULT line ---------- */

/* Global run state; filled by aws_init() and the common options. */
struct aws_state {
	const char *name;	/* workload name, e.g. "thrash" */
	const char *prog;	/* binary name, e.g. "aws-thrash" */
	int thp;		/* --thp: request THP instead of forbidding it */
	int corrupt_test;	/* --corrupt-test: self-test of the verifier */
	uint64_t seed;		/* --seed, default 1 */
	const char *save_trace;	/* --save-trace FILE, or NULL */
	int describe;		/* --describe: print the trace's description */
	int argc;		/* the command line, kept by aws_parse_options() */
	char **argv;
};
extern struct aws_state aws;

/* Name the program and catch SIGUSR1 (see aws_run_workers()). */
void aws_init(const char *name, const char *prog);

/* Print "<prog>: <msg>" plus a --help hint on stderr and exit 2. */
__attribute__((noreturn, format(printf, 1, 2)))
void aws_usage_error(const char *fmt, ...);

/* Print "<prog>: <msg>" on stderr and exit 1. */
__attribute__((noreturn, format(printf, 1, 2)))
void aws_fatal(const char *fmt, ...);

/*
 * Start the measured run: opens the --save-trace file, records the start
 * time and /proc/vmstat.
 */
void aws_start(void);

/* Workload-specific RESULT keys, printed in the order they are added. */
void aws_result_u64(const char *key, uint64_t val);
void aws_result_i64(const char *key, int64_t val);
void aws_result_double(const char *key, double val, int decimals);

/*
 * Print the RESULT line (workload keys, then verify_fail, pages_verified,
 * seconds, pswpin, pswpout, pgmajfault, workingset_refault_anon,
 * workingset_activate_anon) and return the exit code (0 or 3); completes
 * the --save-trace file.
 */
int aws_finish(void);

/* ---- options.c: the command line, sizes and numbers -------------------- */

/*
 * A program option, in a table ended by an entry with no name.  The type
 * is the one pointer set: @flag (no argument: set to 1), @str (the
 * argument, kept for the program to parse later: sizes), @u64
 * (aws_parse_u64() in [@min, @max]) or @dbl (aws_parse_double() in
 * (@dmin, @dmax]).  @given, if set, is set to 1 when the option is given.
 * A count (passes, rounds, waves) goes from @min to AWS_MAX_COUNT.
 */
struct aws_option {
	const char *name;	/* "--hot" */
	int *flag;
	const char **str;
	uint64_t *u64;
	double *dbl;
	uint64_t min, max;
	double dmin, dmax;
	int *given;
};

#define AWS_MAX_COUNT		1000000

#define AWS_OPT_FLAG(n, p)	{ .name = (n), .flag = (p) }
#define AWS_OPT_STR(n, p)	{ .name = (n), .str = (p) }
#define AWS_OPT_COUNT(n, p, lo) \
	{ .name = (n), .u64 = (p), .min = (lo), .max = AWS_MAX_COUNT }
#define AWS_OPT_U64(n, p, lo, hi) \
	{ .name = (n), .u64 = (p), .min = (lo), .max = (hi) }
#define AWS_OPT_U64_GIVEN(n, p, lo, hi, g) \
	{ .name = (n), .u64 = (p), .min = (lo), .max = (hi), .given = (g) }
#define AWS_OPT_DOUBLE(n, p, lo, hi) \
	{ .name = (n), .dbl = (p), .dmin = (lo), .dmax = (hi) }
#define AWS_OPT_DOUBLE_GIVEN(n, p, lo, hi, g) \
	{ .name = (n), .dbl = (p), .dmin = (lo), .dmax = (hi), .given = (g) }
#define AWS_OPT_END		{ .name = NULL }

/*
 * Parse the command line: @opts, then the common options (--thp, --seed,
 * --corrupt-test, --save-trace, --describe, --help), with getopt_long(),
 * each number checked as it comes.  --help calls @usage(stdout) and exits
 * 0; an unknown option, a missing argument, a bad number or a positional
 * argument exits 2.  Keeps argc and argv in aws for --describe.
 */
void aws_parse_options(int argc, char **argv, const struct aws_option *opts,
		       void (*usage)(FILE *));

/* Print the description of the common options (for --help texts). */
void aws_common_usage(FILE *f);

/*
 * Parse a size:
 *   <N>    N * @bare_unit (AWS_MiB for region sizes, 1 for byte counts)
 *   <N>K, <N>M, <N>G   KiB / MiB / GiB
 *   <F>x   F * MemTotal (from /proc/meminfo)
 *   <F>%   F/100 * memory limit (AWS_MEM_LIMIT_MB MiB if set, else MemTotal)
 * N and F are non-negative decimals ("12", "0.5"). The result is rounded
 * down to a multiple of 4 KiB and must be at least @min_bytes.
 * Garbage exits 2 with a message naming @opt. An <F>x or <F>% size is
 * recorded (@opt and @arg, which must outlive the call: an argv string or
 * a literal default) for aws_describe_common().
 */
size_t aws_parse_size(const char *opt, const char *arg, size_t bare_unit,
		      size_t min_bytes);

/* Parse an unsigned decimal integer in [min, max]; exits 2 on garbage. */
uint64_t aws_parse_u64(const char *opt, const char *arg, uint64_t min,
		       uint64_t max);

/* Parse a decimal number in (min_excl, max]; exits 2 on garbage. */
double aws_parse_double(const char *opt, const char *arg, double min_excl,
			double max);

/* MemTotal in bytes (exits 1 if /proc/meminfo is unreadable). */
uint64_t aws_mem_total(void);

/* ---- describe.c: --describe -------------------------------------------- */

/*
 * --describe: once every argument is parsed and checked exactly as for a
 * run (a bad one exits 2 first), a program with aws.describe set prints one
 * JSON line on stdout and exits 0, having allocated nothing:
 *
 *   {"workload": "<name>", "trace": "exact" | "approx" | "n/a",
 *    "note": "<why: empty for exact>", "sim": [<aws-sim arguments>],
 *    "expect": {<RESULT key>: <integer the trace implies>, ...}}
 *
 * "exact": the run's pages depend on its arguments and --seed alone, and
 * the run itself with --save-trace writes them.  "approx": aws-sim's
 * generator with the "sim" arguments gives a trace like the run's (the
 * threads' streams taken round-robin); "expect" holds the RESULT keys the
 * run must report for that trace to be its own.  "n/a": no fixed trace.
 * "sim" and "expect" are always present, empty but for "approx".
 * harness/experiment/opt.py's trace_recipe() reads this line instead of
 * parsing the run's arguments itself.
 *
 * A program whose arguments fix its trace calls aws_describe_fixed(); one
 * run by workers aws_describe_workers() (workers.c); any other
 * aws_describe_common(), then its own n/a cases (aws_describe_na()), then
 * aws_describe_exact() or, after its aws_describe_sim() and
 * aws_describe_expect() calls, aws_describe_approx().
 */

/*
 * The n/a cases common to all programs, in this order: @seconds_given (an
 * explicit --seconds: timed), a size relative to the machine's memory (the
 * one given first on the command line; a relative default counts too),
 * --corrupt-test or --thp.  Returns if none holds.  Exits 2, as a run
 * would, on --save-trace with --corrupt-test.
 */
void aws_describe_common(int seconds_given);

/*
 * With --describe, a program whose trace its arguments fix: the common
 * n/a cases, else "exact"; exits 0.  Returns without --describe.
 */
void aws_describe_fixed(void);

/* Print the "n/a" line with the note @fmt and exit 0. */
__attribute__((noreturn, format(printf, 1, 2)))
void aws_describe_na(const char *fmt, ...);

/* Print the "exact" line and exit 0. */
__attribute__((noreturn))
void aws_describe_exact(void);

/* Append aws-sim's option @opt and its value (@fmt) to "sim". */
__attribute__((format(printf, 2, 3)))
void aws_describe_sim(const char *opt, const char *fmt, ...);

/* Append @key: @val to "expect". */
void aws_describe_expect(const char *key, uint64_t val);

/*
 * Print the "approx" line (@threads threads' @what, e.g. "records", taken
 * round-robin) and exit 0.
 */
__attribute__((noreturn))
void aws_describe_approx(uint64_t threads, const char *what);

/* ---- verify.c: regions and page verification --------------------------- */

struct aws_region {
	const char *label;	/* for messages, e.g. "hot2" */
	unsigned char *base;
	size_t bytes;
	size_t npages;
	uint32_t *gen;		/* per-page generation, 0 = never written */
	uint64_t key;		/* per-region pattern key (seed + region id) */
	uint64_t trace_base;	/* --save-trace number of page 0 */
};

/* mmap(MAP_PRIVATE|MAP_ANONYMOUS) @bytes (multiple of 4 KiB); exits 1 on failure. */
struct aws_region *aws_region_alloc(const char *label, size_t bytes);
void aws_region_free(struct aws_region *r);

/* Stamp page @idx with generation @gen (>= 1) and record it in r->gen[]. */
void aws_page_write(struct aws_region *r, size_t idx, uint32_t gen);

/* Stamp every page of @r, in order, with generation 1. */
void aws_region_write_all(struct aws_region *r);

/*
 * Check page @idx against generation @expected_gen (0: page must read as
 * zero). Returns 1 if it matches; on mismatch prints VERIFY_FAIL to stderr,
 * counts the failure and returns 0. Thread-safe for concurrent readers.
 */
int aws_page_check(const struct aws_region *r, size_t idx,
		   uint32_t expected_gen);

/* aws_page_check() against the recorded generation r->gen[idx]. */
static inline int aws_page_verify(const struct aws_region *r, size_t idx)
{
	return aws_page_check(r, idx, r->gen[idx]);
}

/* Next generation after @gen (skips 0 on wrap-around). */
static inline uint32_t aws_next_gen(uint32_t gen)
{
	return gen + 1 ? gen + 1 : 1;
}

/*
 * Access @count pages starting at @first (wrapping around the region end):
 * verify each page and, if @rewrite, stamp it with the next generation.
 */
void aws_access_range(struct aws_region *r, size_t first, size_t count,
		      int rewrite);

/*
 * --corrupt-test: flip one byte of a verified word of written page @idx
 * behind the verifier's back (r->gen[] is left untouched).
 */
void aws_corrupt_page(struct aws_region *r, size_t idx);

/*
 * Worker threads count pages_verified in thread-local storage; each worker
 * must call this before it returns (aws_run_workers() does). aws_finish()
 * flushes the main thread.
 */
void aws_thread_flush(void);

uint64_t aws_verify_failures(void);

/* ---- trace.c: --save-trace --------------------------------------------- */

/*
 * --save-trace: the page accesses of a run, in aws-sim's binary trace
 * format (docs/trace-format.md), one u32 record per access.  Every access
 * the verify.c helpers make to a region's memory is recorded, and nothing
 * else: aws_page_write(), aws_page_check() of a written page (a read of a
 * never-written page maps the shared zero page and takes no frame, so it
 * is left out) and each page of aws_access_range() once.  A page is
 * numbered by its region: region k's page i is the sum of the sizes, in
 * pages, of the regions allocated before it, plus i, so a region freed and
 * another mapped at its address are distinct pages, as they are to the
 * kernel.  aws_start() opens the file, aws_finish() completes its header.
 * Only one thread may touch regions while a trace is written (programs
 * refuse --save-trace with more than one worker thread), and not with
 * --corrupt-test (refused by aws_start()).
 */

/*
 * --save-trace with @threads worker threads: exit 2 unless @threads is 1
 * (threads interleave as the scheduler runs them: no one trace).
 */
void aws_trace_single_thread(uint64_t threads);

/* ---- workers.c: worker threads, timing, faults, vmstat ----------------- */

double aws_now(void);			/* CLOCK_MONOTONIC seconds */
void aws_sleep(double seconds);
long aws_majflt(void);			/* getrusage(RUSAGE_SELF).ru_majflt */

enum {
	AWS_VM_PSWPIN,
	AWS_VM_PSWPOUT,
	AWS_VM_PGMAJFAULT,
	AWS_VM_WS_REFAULT_ANON,
	AWS_VM_WS_ACTIVATE_ANON,
	AWS_VM_NR,
};

struct aws_vmstat {
	long long v[AWS_VM_NR];		/* -1 = key missing / unreadable */
};

/* The /proc/vmstat keys, indexed by AWS_VM_*. */
extern const char *const aws_vm_keys[AWS_VM_NR];

void aws_vmstat_read(struct aws_vmstat *vm);

/*
 * A measured phase: aws_phase_begin() reads /proc/vmstat, ru_majflt and
 * the clock, aws_phase_end() the same in reverse order and sets the deltas.
 */
struct aws_phase {
	struct aws_vmstat vm0, vm1;
	long majflt0;
	double t0;
	double seconds;		/* wall time */
	long majfaults;		/* ru_majflt delta */
	long long pswpin;	/* the system's pswpin delta, -1 if unreadable */
};

void aws_phase_begin(struct aws_phase *p);
void aws_phase_end(struct aws_phase *p);

/* Run time of a worker program without --seconds or its count option. */
#define AWS_DEF_SECONDS	10

/*
 * A program run by worker threads: --threads N, --seconds T and a count
 * per thread (zipf's --records, randw's --writes), in the program's option
 * table; aws_workers_check() once they are parsed, aws_run_workers() to run.
 */
struct aws_workers {
	uint64_t threads;	/* --threads */
	int threads_given;
	int threads_online;	/* the default is the CPUs online */
	double seconds;		/* --seconds, or AWS_DEF_SECONDS; 0: no limit */
	int seconds_given;
	uint64_t max_ops;	/* per thread; 0: until stopped */
	atomic_int stop;	/* set when the run ends; workers poll it */
	/* set by aws_run_workers() */
	uint64_t ops;		/* every thread's operations */
	double run_seconds;	/* wall time of the run */
	long majfaults;		/* ru_majflt over the run, all threads */
};

/* One worker thread, handed to the program's function. */
struct aws_worker {
	unsigned int id;		/* 0 .. threads - 1 */
	struct aws_workers *wk;
	void *ctx;			/* the program's shared state */
	uint64_t ops;			/* set from the function's return */
};

/* Whether worker @w, having done @done operations, does another. */
static inline int aws_worker_continue(const struct aws_worker *w,
				      uint64_t done)
{
	if (atomic_load_explicit(&w->wk->stop, memory_order_relaxed))
		return 0;
	return !w->wk->max_ops || done < w->wk->max_ops;
}

/*
 * Defaults for the struct: one thread (@online: the CPUs online),
 * AWS_DEF_SECONDS.
 */
void aws_workers_init(struct aws_workers *wk, int online);

/*
 * Once the options are parsed: a count without --seconds has no time
 * limit; --save-trace needs one thread (aws_trace_single_thread()).
 */
void aws_workers_check(struct aws_workers *wk);

/*
 * --describe of a worker program: the common n/a cases, a timed run (no
 * @count_opt), the CPUs online by default; one thread is "exact".  Else
 * returns the total of operations, every thread's, and sets *@accesses to
 * it times @accesses_per_op (more than 2^64 of either is n/a), having
 * added aws-sim's --seed and --pattern @pattern; the program adds its own
 * aws_describe_sim() and aws_describe_expect() and aws_describe_approx().
 */
uint64_t aws_describe_workers(const struct aws_workers *wk,
			      const char *count_opt, const char *pattern,
			      uint64_t accesses_per_op, uint64_t *accesses);

/*
 * Start wk->threads threads, thread i running @fn on a struct aws_worker
 * of id i and @ctx; each returns its number of operations.  Once they
 * have all returned, or wk->seconds (> 0; <= 0 means no limit) have
 * elapsed, or SIGUSR1 has arrived, set wk->stop and join them.  Sets
 * wk->ops, wk->run_seconds and wk->majfaults.  Exits 1 if a thread cannot
 * be created.
 */
void aws_run_workers(struct aws_workers *wk,
		     uint64_t (*fn)(const struct aws_worker *w), void *ctx);

#endif /* AWS_COMMON_H */
