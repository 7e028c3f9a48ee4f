// SPDX-License-Identifier: GPL-2.0
/*
 * common.h - shared helpers for the anonymous-workingset workload programs
 * (aws-protect, aws-thrash, aws-zipf, aws-randw, aws-loop).
 *
 * Provides:
 *   - option helpers: size / number parsing (exit 2 on garbage), the common
 *     options (--thp, --seed, --corrupt-test, --save-trace, --describe,
 *     --help),
 *   - --describe: one JSON line saying what page trace the run has (exact,
 *     approximate with aws-sim's arguments, or none and why), printed
 *     instead of running,
 *   - anonymous regions (mmap + MADV_NOHUGEPAGE unless --thp) with a
 *     per-page generation array,
 *   - page stamping / verification (aws_page_write / aws_page_check),
 *     which --save-trace records as the run's page-access trace,
 *   - timing, getrusage major-fault and /proc/vmstat helpers,
 *   - the single "RESULT workload=<name> key=value ..." stdout line.
 *
 * Exit codes used by every program:
 *   0 success, 1 runtime error (mmap, threads, /proc), 2 usage error,
 *   3 at least one verification failure.
 */
#ifndef AWS_COMMON_H
#define AWS_COMMON_H

#include <getopt.h>
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

/* Long-option codes of the common options (program options use < 256). */
enum {
	AWS_OPT_THP = 0x1000,
	AWS_OPT_SEED,
	AWS_OPT_CORRUPT_TEST,
	AWS_OPT_SAVE_TRACE,
	AWS_OPT_DESCRIBE,
	AWS_OPT_HELP,
	AWS_OPT_PROGRAM_BASE = 0x2000,	/* first code free for programs */
};

#define AWS_COMMON_LONGOPTS						\
	{ "thp",          no_argument,       NULL, AWS_OPT_THP },	\
	{ "seed",         required_argument, NULL, AWS_OPT_SEED },	\
	{ "corrupt-test", no_argument,       NULL, AWS_OPT_CORRUPT_TEST }, \
	{ "save-trace",   required_argument, NULL, AWS_OPT_SAVE_TRACE },	\
	{ "describe",     no_argument,       NULL, AWS_OPT_DESCRIBE },	\
	{ "help",         no_argument,       NULL, AWS_OPT_HELP }

/* Global run state; filled by aws_init() and the common options. */
struct aws_state {
	const char *name;	/* workload name, e.g. "thrash" */
	const char *prog;	/* binary name, e.g. "aws-thrash" */
	int thp;		/* --thp: request THP instead of forbidding it */
	int corrupt_test;	/* --corrupt-test: self-test of the verifier */
	uint64_t seed;		/* --seed, default 1 */
	const char *save_trace;	/* --save-trace FILE, or NULL */
	int describe;		/* --describe: print the trace's description */
};
extern struct aws_state aws;

/* ---- setup / options ---------------------------------------------------- */

void aws_init(const char *name, const char *prog);

/*
 * Handle a common option returned by getopt_long(). Returns 1 if handled,
 * 0 if @opt is not a common option. --help calls @usage(stdout) and exits 0.
 * '?' and ':' (getopt errors) exit 2.
 */
int aws_common_option(int opt, const char *arg, void (*usage)(FILE *));

/* Print the description of the common options (for --help texts). */
void aws_common_usage(FILE *f);

/*
 * --save-trace with @threads worker threads: exit 2 unless @threads is 1
 * (threads interleave as the scheduler runs them: no one trace).
 */
void aws_trace_single_thread(uint64_t threads);

/* Reject positional arguments left after getopt_long(); exits 2. */
void aws_no_operands(int argc, char **argv, int optind_);

/* Print "<prog>: <msg>" plus a --help hint on stderr and exit 2. */
__attribute__((noreturn, format(printf, 1, 2)))
void aws_usage_error(const char *fmt, ...);

/* Print "<prog>: <msg>" on stderr and exit 1. */
__attribute__((noreturn, format(printf, 1, 2)))
void aws_fatal(const char *fmt, ...);

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

/* ---- --describe --------------------------------------------------------- */

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
 * A program calls aws_describe_common(), then its own n/a cases
 * (aws_describe_na()), then aws_describe_exact() or, after its
 * aws_describe_sim() and aws_describe_expect() calls,
 * aws_describe_approx().
 */

/*
 * The n/a cases common to all programs, in this order: @seconds_given (an
 * explicit --seconds: timed), a size relative to the machine's memory (the
 * one given first on the command line; a relative default counts too),
 * --corrupt-test or --thp.  Returns if none holds.  Exits 2, as a run
 * would, on --save-trace with --corrupt-test.
 */
void aws_describe_common(int argc, char **argv, int seconds_given);

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

/* ---- regions and page verification -------------------------------------- */

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

/*
 * --save-trace: the page accesses of a run, in aws-sim's binary trace
 * format (docs/trace-format.md), one u32 record per access.  Every access
 * the helpers below make to a region's memory is recorded, and nothing
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

/* Stamp page @idx with generation @gen (>= 1) and record it in r->gen[]. */
void aws_page_write(struct aws_region *r, size_t idx, uint32_t gen);

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
 * must call this before it returns. aws_finish() flushes the main thread.
 */
void aws_thread_flush(void);

uint64_t aws_verify_failures(void);

/* ---- timing, faults, vmstat --------------------------------------------- */

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

void aws_vmstat_read(struct aws_vmstat *vm);

/*
 * Start @n threads running @fn(args + i * arg_size). Once they have all
 * returned, or @seconds (> 0; <= 0 means no limit) have elapsed, or SIGUSR1
 * has arrived, set *@stop (workers poll it) and join them. Returns the elapsed wall time in seconds.
 * Exits 1 if a thread cannot be created.
 */
double aws_run_workers(unsigned int n, void *(*fn)(void *), void *args,
		       size_t arg_size, double seconds, atomic_int *stop);

/* ---- run bracket and RESULT line ---------------------------------------- */

/*
 * Start the measured run: records the start time and /proc/vmstat; opens
 * the --save-trace file.
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

#endif /* AWS_COMMON_H */
