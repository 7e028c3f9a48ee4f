// SPDX-License-Identifier: GPL-2.0
/*
 * common.c - shared helpers for the anonymous-workingset workload programs:
 * option and size parsing, anonymous regions with per-page generation
 * stamps and their verification, timing / fault / vmstat helpers and the
 * RESULT line printer. See common.h for the interface.
 *
 * Page pattern: every written 4 KiB page carries 8 u64 words at word
 * offsets 0, 73, 146, ..., 511 (first word, last word and 6 spread between
 * them). Each word is a hash of (per-run seed, region id, page index,
 * generation, word number), so stale, zero, misplaced or foreign pages are
 * all detected. A never-written page (generation 0) must read as zero.
 *
 * --save-trace records every access the page helpers make (common.h says
 * which), so the trace is the program's own sequence of page accesses, not
 * a model of it.
 *
 * --describe prints, instead of running, what trace the run has: common.h
 * gives the JSON line; the programs say what their arguments imply.
 */
#include "common.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#define AWS_WORDS_PER_PAGE	(AWS_PAGE_SIZE / sizeof(uint64_t))
#define AWS_CHECK_WORDS		8U
#define AWS_WORD_STRIDE		73U	/* 7 * 73 = 511 = last word */
#define AWS_MAX_FAIL_LINES	100U
#define AWS_MAX_SIZE		(1ULL << 46)	/* 64 TiB sanity cap */

_Static_assert((AWS_CHECK_WORDS - 1) * AWS_WORD_STRIDE ==
	       AWS_WORDS_PER_PAGE - 1, "last word must be checked");

struct aws_state aws = { .name = "unknown", .prog = "aws", .seed = 1 };

static _Atomic uint64_t total_failures;
static _Atomic uint64_t total_verified;
static _Atomic unsigned int fail_lines;
static _Thread_local uint64_t tl_verified;
static unsigned int region_count;

static FILE *trace_f;		/* --save-trace, open from aws_start() */
static uint64_t trace_len;
static uint64_t trace_next_base;	/* aws_region.trace_base of the next region */

/* --describe: the sizes parsed relative to the machine's memory, in order */
#define AWS_MAX_RELATIVE	8U
static struct {
	const char *opt;
	const char *arg;
} relative[AWS_MAX_RELATIVE];
static unsigned int nrelative;

static double t_start;
static struct aws_vmstat vm_start;
static char result_buf[4096];
static size_t result_len;

/* ---- errors and options ------------------------------------------------- */

static volatile sig_atomic_t end_requested;

static void on_end_signal(int sig)
{
	(void)sig;
	end_requested = 1;
}

void aws_init(const char *name, const char *prog)
{
	struct sigaction sa = { .sa_handler = on_end_signal };

	aws.name = name;
	aws.prog = prog;
	/* installed before any work, so an early SIGUSR1 cannot kill us */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		aws_fatal("sigaction: %s", strerror(errno));
}

void aws_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", aws.prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", aws.prog);
	exit(AWS_EXIT_USAGE);
}

void aws_fatal(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", aws.prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(AWS_EXIT_ERROR);
}

void aws_common_usage(FILE *f)
{
	fprintf(f,
		"Common options:\n"
		"  --seed N        per-run seed for page patterns and PRNGs (default 1)\n"
		"  --thp           request THP (MADV_HUGEPAGE) instead of MADV_NOHUGEPAGE\n"
		"  --corrupt-test  verifier self-test: run normally (use small sizes),\n"
		"                  but flip a byte of one written page behind the\n"
		"                  verifier's back; must print VERIFY_FAIL and exit 3\n"
		"  --save-trace FILE  write the run's page accesses to FILE in aws-sim's\n"
		"                  binary trace format (docs/trace-format.md); one\n"
		"                  worker thread only, not with --corrupt-test\n"
		"  --describe      parse and check the arguments, then instead of\n"
		"                  running print one JSON line on stdout: the run's\n"
		"                  page trace, \"exact\", \"approx\" (aws-sim's\n"
		"                  arguments for it) or \"n/a\" (with the reason)\n"
		"  --help          show this help\n"
		"\n"
		"Timed phases (--seconds) end early on SIGUSR1; the run is still\n"
		"verified and reported as usual.\n"
		"\n"
		"SIZE: <N> (MiB), <N>K, <N>M, <N>G, <F>x (F * MemTotal) or\n"
		"      <F>%% (F%% of $AWS_MEM_LIMIT_MB MiB if set, else of MemTotal);\n"
		"      N and F are decimals; sizes are rounded down to 4 KiB.\n"
		"\n"
		"Output: one 'RESULT workload=<name> key=value ...' line on stdout;\n"
		"everything else goes to stderr. Exit status: 0 ok, 1 runtime error,\n"
		"2 usage error, 3 verification failure (VERIFY_FAIL lines on stderr).\n");
}

int aws_common_option(int opt, const char *arg, void (*usage)(FILE *))
{
	switch (opt) {
	case AWS_OPT_THP:
		aws.thp = 1;
		return 1;
	case AWS_OPT_SEED:
		aws.seed = aws_parse_u64("--seed", arg, 0, UINT64_MAX);
		return 1;
	case AWS_OPT_CORRUPT_TEST:
		aws.corrupt_test = 1;
		return 1;
	case AWS_OPT_SAVE_TRACE:
		aws.save_trace = arg;
		return 1;
	case AWS_OPT_DESCRIBE:
		aws.describe = 1;
		return 1;
	case AWS_OPT_HELP:
		usage(stdout);
		exit(AWS_EXIT_OK);
	case '?':
	case ':':
		/* getopt_long already printed the reason */
		fprintf(stderr, "Try '%s --help' for more information.\n",
			aws.prog);
		exit(AWS_EXIT_USAGE);
	default:
		return 0;
	}
}

void aws_trace_single_thread(uint64_t threads)
{
	if (aws.save_trace && threads != 1)
		aws_usage_error("--save-trace needs one worker thread: threads interleave as the scheduler runs them");
}

void aws_no_operands(int argc, char **argv, int optind_)
{
	if (optind_ < argc)
		aws_usage_error("unexpected argument '%s'", argv[optind_]);
}

/*
 * Validate a plain non-negative decimal ("12", "0.5", ".5", "3.") at the
 * start of @s; return its length (0 if there is none).
 */
static size_t decimal_prefix(const char *s)
{
	size_t i = 0, digits = 0;
	int dot = 0;

	for (;; i++) {
		if (isdigit((unsigned char)s[i]))
			digits++;
		else if (s[i] == '.' && !dot)
			dot = 1;
		else
			break;
	}
	return digits ? i : 0;
}

static int parse_decimal(const char *s, size_t len, double *out)
{
	char buf[64];

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, NULL);
	if (errno || !isfinite(*out))
		return -1;
	return 0;
}

uint64_t aws_mem_total(void)
{
	static uint64_t cached;
	char line[256];
	unsigned long long kb;
	FILE *f;

	if (cached)
		return cached;
	f = fopen("/proc/meminfo", "r");
	if (!f)
		aws_fatal("cannot open /proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
			cached = (uint64_t)kb * 1024;
			break;
		}
	}
	fclose(f);
	if (!cached)
		aws_fatal("no MemTotal in /proc/meminfo");
	return cached;
}

static double mem_limit_bytes(void)
{
	const char *env = getenv("AWS_MEM_LIMIT_MB");
	size_t len;
	double mb;

	if (!env)
		return (double)aws_mem_total();
	len = decimal_prefix(env);
	if (len == 0 || env[len] != '\0' || parse_decimal(env, len, &mb) ||
	    mb <= 0)
		aws_usage_error("invalid AWS_MEM_LIMIT_MB='%s': expected a positive number of MiB",
				env);
	return mb * (double)AWS_MiB;
}

size_t aws_parse_size(const char *opt, const char *arg, size_t bare_unit,
		      size_t min_bytes)
{
	size_t len = decimal_prefix(arg);
	const char *suffix = arg + len;
	double num, bytes;
	uint64_t b;

	if (len == 0 || parse_decimal(arg, len, &num) ||
	    (suffix[0] && suffix[1]))
		goto bad;

	switch (suffix[0]) {
	case '\0':
		bytes = num * (double)bare_unit;
		break;
	case 'K': case 'k':
		bytes = num * 1024.0;
		break;
	case 'M': case 'm':
		bytes = num * (double)AWS_MiB;
		break;
	case 'G': case 'g':
		bytes = num * 1024.0 * (double)AWS_MiB;
		break;
	case 'x':
		bytes = num * (double)aws_mem_total();
		break;
	case '%':
		bytes = num / 100.0 * mem_limit_bytes();
		break;
	default:
		goto bad;
	}
	if (!(bytes < (double)AWS_MAX_SIZE))
		aws_usage_error("size '%s' for %s is too large", arg, opt);
	b = (uint64_t)bytes & ~(uint64_t)(AWS_PAGE_SIZE - 1);
	if (b < min_bytes || b == 0)
		aws_usage_error("size '%s' for %s is too small (%" PRIu64
				" bytes after rounding down to 4 KiB; need at least %zu)",
				arg, opt, b,
				min_bytes ? min_bytes : AWS_PAGE_SIZE);
	if ((suffix[0] == 'x' || suffix[0] == '%') &&
	    nrelative < AWS_MAX_RELATIVE) {
		relative[nrelative].opt = opt;
		relative[nrelative].arg = arg;
		nrelative++;
	}
	return (size_t)b;
bad:
	aws_usage_error("invalid size '%s' for %s: expected <N> (%s), <N>K, <N>M, <N>G, <F>x (F * MemTotal) or <F>%% (of memory limit)",
			arg, opt, bare_unit == 1 ? "bytes" : "MiB");
}

uint64_t aws_parse_u64(const char *opt, const char *arg, uint64_t min,
		       uint64_t max)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)arg[0]))
		goto bad;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end != '\0')
		goto bad;
	if (v < min || v > max)
		aws_usage_error("value '%s' for %s out of range [%" PRIu64 ", %" PRIu64 "]",
				arg, opt, min, max);
	return v;
bad:
	aws_usage_error("invalid number '%s' for %s: expected a non-negative integer",
			arg, opt);
}

double aws_parse_double(const char *opt, const char *arg, double min_excl,
			double max)
{
	size_t len = decimal_prefix(arg);
	double v;

	if (len == 0 || arg[len] != '\0' || parse_decimal(arg, len, &v))
		aws_usage_error("invalid number '%s' for %s: expected a decimal like 1.5",
				arg, opt);
	if (!(v > min_excl && v <= max))
		aws_usage_error("value '%s' for %s out of range (%g, %g]", arg,
				opt, min_excl, max);
	return v;
}

/* ---- regions and page verification -------------------------------------- */

struct aws_region *aws_region_alloc(const char *label, size_t bytes)
{
	struct aws_region *r;
	void *p;

	if (bytes == 0 || bytes % AWS_PAGE_SIZE)
		aws_fatal("internal error: region %s size %zu not page aligned",
			  label, bytes);
	r = calloc(1, sizeof(*r));
	if (!r)
		aws_fatal("out of memory");
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		aws_fatal("mmap of %zu MiB for region %s failed: %s",
			  bytes / AWS_MiB, label, strerror(errno));
	if (madvise(p, bytes, aws.thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE)) {
		static int warned;

		if (!warned++)
			fprintf(stderr, "%s: warning: madvise(%s) failed: %s\n",
				aws.prog,
				aws.thp ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE",
				strerror(errno));
	}
	r->label = label;
	r->base = p;
	r->bytes = bytes;
	r->npages = bytes / AWS_PAGE_SIZE;
	r->gen = calloc(r->npages, sizeof(*r->gen));
	if (!r->gen)
		aws_fatal("out of memory for %zu page generations",
			  r->npages);
	r->key = aws_mix64(aws.seed ^ aws_mix64(++region_count));
	r->trace_base = trace_next_base;
	trace_next_base += r->npages;
	if (trace_f && trace_next_base > (uint64_t)UINT32_MAX + 1)
		aws_fatal("--save-trace: more than 2^32 pages");
	return r;
}

void aws_region_free(struct aws_region *r)
{
	if (!r)
		return;
	if (munmap(r->base, r->bytes))
		aws_fatal("munmap of region %s failed: %s", r->label,
			  strerror(errno));
	free(r->gen);
	free(r);
}

/* ---- --save-trace ------------------------------------------------------- */

static void put_le(unsigned char *b, uint64_t v, unsigned int width)
{
	unsigned int i;

	for (i = 0; i < width; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

/* The 24-byte header of docs/trace-format.md: version 1, u32 records. */
static void trace_header(void)
{
	unsigned char hdr[24];

	memcpy(hdr, "AWSTRACE", 8);
	put_le(hdr + 8, 1, 4);
	put_le(hdr + 12, 4, 4);
	put_le(hdr + 16, trace_len, 8);
	if (fwrite(hdr, 1, sizeof(hdr), trace_f) != sizeof(hdr))
		aws_fatal("--save-trace: write error");
}

/* Options that exclude --save-trace: exit 2 (a run does, from aws_start()). */
static void trace_check_options(void)
{
	if (aws.save_trace && aws.corrupt_test)
		aws_usage_error("--save-trace and --corrupt-test exclude each other");
}

static void trace_open(void)
{
	if (!aws.save_trace)
		return;
	trace_check_options();
	if (trace_next_base)
		aws_fatal("internal error: --save-trace opened after a region");
	/* stdio's buffer, not the regions' memory cgroup's anon memory */
	trace_f = fopen(aws.save_trace, "wb");
	if (!trace_f)
		aws_fatal("--save-trace: cannot create %s: %s", aws.save_trace,
			  strerror(errno));
	trace_header();		/* the count is written at the end */
}

static void trace_close(void)
{
	if (!trace_f)
		return;
	if (fseek(trace_f, 0, SEEK_SET))
		aws_fatal("--save-trace: cannot rewind %s", aws.save_trace);
	trace_header();
	if (fclose(trace_f))
		aws_fatal("--save-trace: write error on %s", aws.save_trace);
	trace_f = NULL;
}

static inline void trace_page(const struct aws_region *r, size_t idx)
{
	unsigned char rec[4];

	if (!trace_f)
		return;
	put_le(rec, r->trace_base + idx, 4);
	if (fwrite(rec, 1, sizeof(rec), trace_f) != sizeof(rec))
		aws_fatal("--save-trace: write error on %s", aws.save_trace);
	trace_len++;
}

/* ---- --describe --------------------------------------------------------- */

struct json_buf {
	char s[4096];
	size_t len;
};

static struct json_buf desc_sim, desc_expect;

static void json_printf(struct json_buf *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void json_printf(struct json_buf *j, const char *fmt, ...)
{
	size_t room = sizeof(j->s) - j->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(j->s + j->len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		aws_fatal("internal error: --describe line too long");
	j->len += n;
}

/* @str as a JSON string: quoted; '"', '\' and control characters escaped */
static void json_string(struct json_buf *j, const char *str)
{
	const unsigned char *c;

	json_printf(j, "\"");
	for (c = (const unsigned char *)str; *c; c++) {
		switch (*c) {
		case '"':
		case '\\':
			json_printf(j, "\\%c", *c);
			break;
		case '\b':
			json_printf(j, "\\b");
			break;
		case '\f':
			json_printf(j, "\\f");
			break;
		case '\n':
			json_printf(j, "\\n");
			break;
		case '\r':
			json_printf(j, "\\r");
			break;
		case '\t':
			json_printf(j, "\\t");
			break;
		default:
			if (*c < 0x20)
				json_printf(j, "\\u%04x", *c);
			else
				json_printf(j, "%c", *c);
		}
	}
	json_printf(j, "\"");
}

/* Print the line, with "sim" and "expect" only for approx, and exit 0. */
__attribute__((noreturn))
static void describe_line(const char *trace, const char *note)
{
	int approx = !strcmp(trace, "approx");
	struct json_buf line = { .len = 0 };

	json_printf(&line, "{\"workload\": ");
	json_string(&line, aws.name);
	json_printf(&line, ", \"trace\": ");
	json_string(&line, trace);
	json_printf(&line, ", \"note\": ");
	json_string(&line, note);
	json_printf(&line, ", \"sim\": [%s], \"expect\": {%s}}\n",
		    approx ? desc_sim.s : "", approx ? desc_expect.s : "");
	if (fputs(line.s, stdout) == EOF || fflush(stdout))
		aws_fatal("--describe: write error on stdout");
	exit(AWS_EXIT_OK);
}

/* The position of @arg in argv (argc if it is not there: a default). */
static int arg_position(int argc, char **argv, const char *arg)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');	/* --opt=ARG */

		if (argv[i] == arg || (eq && eq + 1 == arg))
			return i;
	}
	return argc;
}

void aws_describe_common(int argc, char **argv, int seconds_given)
{
	int pos, first_pos = INT_MAX;
	unsigned int i, first = 0;

	trace_check_options();
	if (seconds_given)
		aws_describe_na("timed (--seconds): the number of accesses depends on the run's speed");
	for (i = 0; i < nrelative; i++) {
		pos = arg_position(argc, argv, relative[i].arg);
		if (pos < first_pos) {
			first_pos = pos;
			first = i;
		}
	}
	if (nrelative)
		aws_describe_na("%s %s%s is relative to the guest's memory",
				relative[first].opt, relative[first].arg,
				first_pos < argc ? "" : " (the default)");
	if (aws.corrupt_test || aws.thp)
		aws_describe_na("--corrupt-test/--thp runs are not traced");
}

void aws_describe_na(const char *fmt, ...)
{
	char note[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(note))
		aws_fatal("internal error: --describe note too long");
	describe_line("n/a", note);
}

void aws_describe_exact(void)
{
	describe_line("exact", "");
}

void aws_describe_sim(const char *opt, const char *fmt, ...)
{
	char val[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(val))
		aws_fatal("internal error: --describe value too long");
	json_printf(&desc_sim, "%s", desc_sim.len ? ", " : "");
	json_string(&desc_sim, opt);
	json_printf(&desc_sim, ", ");
	json_string(&desc_sim, val);
}

void aws_describe_expect(const char *key, uint64_t val)
{
	json_printf(&desc_expect, "%s", desc_expect.len ? ", " : "");
	json_string(&desc_expect, key);
	json_printf(&desc_expect, ": %" PRIu64, val);
}

void aws_describe_approx(uint64_t threads, const char *what)
{
	char note[256];

	snprintf(note, sizeof(note),
		 "approximate: %" PRIu64 " threads' %s taken round-robin, one each; the guest's scheduler interleaves them otherwise",
		 threads, what);
	describe_line("approx", note);
}

/* ---- page patterns ------------------------------------------------------ */

static inline uint64_t page_key(const struct aws_region *r, size_t idx,
				uint32_t gen)
{
	return aws_mix64(aws_mix64(r->key ^ (uint64_t)idx) ^ gen);
}

static inline uint64_t word_value(uint64_t pkey, unsigned int w)
{
	return aws_mix64(pkey + w);
}

static inline uint64_t *page_words(const struct aws_region *r, size_t idx)
{
	return (uint64_t *)(r->base + idx * AWS_PAGE_SIZE);
}

static void page_stamp(struct aws_region *r, size_t idx, uint32_t gen)
{
	uint64_t *p = page_words(r, idx);
	uint64_t pkey = page_key(r, idx, gen);
	unsigned int w;

	if (gen == 0 || idx >= r->npages)
		aws_fatal("internal error: page_write(%s, %zu, %u)", r->label,
			  idx, gen);
	for (w = 0; w < AWS_CHECK_WORDS; w++)
		p[w * AWS_WORD_STRIDE] = word_value(pkey, w);
	r->gen[idx] = gen;
}

void aws_page_write(struct aws_region *r, size_t idx, uint32_t gen)
{
	page_stamp(r, idx, gen);
	trace_page(r, idx);
}

static uint64_t expected_word(const struct aws_region *r, size_t idx,
			      uint32_t gen, unsigned int w)
{
	return gen ? word_value(page_key(r, idx, gen), w) : 0;
}

/* Best-effort guess of which generation the bad word belongs to. */
static void guess_gen(const struct aws_region *r, size_t idx, uint32_t exp,
		      unsigned int w, uint64_t got, char *buf, size_t len)
{
	int64_t d;

	snprintf(buf, len, "?");
	if (got == 0) {
		snprintf(buf, len, "0");
		return;
	}
	for (d = -4; d <= 4; d++) {
		int64_t g = (int64_t)exp + d;

		if (d == 0 || g <= 0 || g > UINT32_MAX)
			continue;
		if (expected_word(r, idx, (uint32_t)g, w) == got) {
			snprintf(buf, len, "%" PRId64, g);
			return;
		}
	}
}

int aws_page_check(const struct aws_region *r, size_t idx,
		   uint32_t expected_gen)
{
	const uint64_t *p = page_words(r, idx);
	uint64_t pkey = page_key(r, idx, expected_gen);
	unsigned int w;

	tl_verified++;
	/* a never-written page reads the shared zero page: no frame */
	if (expected_gen)
		trace_page(r, idx);
	for (w = 0; w < AWS_CHECK_WORDS; w++) {
		uint64_t got = p[w * AWS_WORD_STRIDE];
		uint64_t exp = expected_gen ? word_value(pkey, w) : 0;
		char gbuf[24];
		unsigned int n;

		if (got == exp)
			continue;
		atomic_fetch_add_explicit(&total_failures, 1,
					  memory_order_relaxed);
		n = atomic_fetch_add_explicit(&fail_lines, 1,
					      memory_order_relaxed);
		if (n < AWS_MAX_FAIL_LINES) {
			guess_gen(r, idx, expected_gen, w, got, gbuf,
				  sizeof(gbuf));
			fprintf(stderr,
				"VERIFY_FAIL workload=%s page=%zu expected=0x%016" PRIx64
				" got=0x%016" PRIx64 " region=%s word=%u expected_gen=%u got_gen=%s\n",
				aws.name, idx, exp, got, r->label,
				w * AWS_WORD_STRIDE, expected_gen, gbuf);
		} else if (n == AWS_MAX_FAIL_LINES) {
			fprintf(stderr,
				"%s: further VERIFY_FAIL lines suppressed (still counted)\n",
				aws.prog);
		}
		return 0;
	}
	return 1;
}

void aws_access_range(struct aws_region *r, size_t first, size_t count,
		      int rewrite)
{
	size_t i, idx = first % r->npages;

	for (i = 0; i < count; i++) {
		uint32_t gen = r->gen[idx];

		aws_page_verify(r, idx);
		/* one access, traced once: by the verify of a written page */
		if (rewrite) {
			page_stamp(r, idx, aws_next_gen(gen));
			if (!gen)
				trace_page(r, idx);
		}
		if (++idx == r->npages)
			idx = 0;
	}
}

void aws_corrupt_page(struct aws_region *r, size_t idx)
{
	/* a byte of the last verified word, i.e. the last word of the page */
	volatile unsigned char *b = r->base + idx * AWS_PAGE_SIZE +
		AWS_PAGE_SIZE - sizeof(uint64_t) + 3;

	if (idx >= r->npages || r->gen[idx] == 0)
		aws_fatal("internal error: corrupt_page(%s, %zu) on unwritten page",
			  r->label, idx);
	*b ^= 0x5a;
	fprintf(stderr, "%s: --corrupt-test: flipped a byte of %s page %zu\n",
		aws.prog, r->label, idx);
}

void aws_thread_flush(void)
{
	atomic_fetch_add_explicit(&total_verified, tl_verified,
				  memory_order_relaxed);
	tl_verified = 0;
}

uint64_t aws_verify_failures(void)
{
	return atomic_load_explicit(&total_failures, memory_order_relaxed);
}

/* ---- timing, faults, vmstat --------------------------------------------- */

double aws_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void aws_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

long aws_majflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_majflt;
}

struct worker_slot {
	void *(*fn)(void *);
	void *arg;
	atomic_uint *done;
	pthread_t tid;
};

static void *worker_trampoline(void *p)
{
	struct worker_slot *slot = p;
	void *ret = slot->fn(slot->arg);

	aws_thread_flush();
	atomic_fetch_add_explicit(slot->done, 1, memory_order_release);
	return ret;
}

double aws_run_workers(unsigned int n, void *(*fn)(void *), void *args,
		       size_t arg_size, double seconds, atomic_int *stop)
{
	struct worker_slot *slots = calloc(n, sizeof(*slots));
	atomic_uint done = 0;
	double t0, deadline;
	unsigned int i;
	int err;

	if (!slots)
		aws_fatal("out of memory");
	atomic_store(stop, 0);
	t0 = aws_now();
	deadline = seconds > 0 ? t0 + seconds : 0;
	for (i = 0; i < n; i++) {
		slots[i].fn = fn;
		slots[i].arg = (char *)args + i * arg_size;
		slots[i].done = &done;
		err = pthread_create(&slots[i].tid, NULL, worker_trampoline,
				     &slots[i]);
		if (err)
			aws_fatal("pthread_create: %s", strerror(err));
	}
	while (atomic_load_explicit(&done, memory_order_acquire) < n) {
		double now = aws_now();

		if (end_requested || (deadline && now >= deadline))
			break;
		aws_sleep(deadline && deadline - now < 0.01 ?
			  deadline - now : 0.01);
	}
	atomic_store(stop, 1);
	for (i = 0; i < n; i++) {
		err = pthread_join(slots[i].tid, NULL);
		if (err)
			aws_fatal("pthread_join: %s", strerror(err));
	}
	free(slots);
	return aws_now() - t0;
}

static const char *const vm_keys[AWS_VM_NR] = {
	[AWS_VM_PSWPIN] = "pswpin",
	[AWS_VM_PSWPOUT] = "pswpout",
	[AWS_VM_PGMAJFAULT] = "pgmajfault",
	[AWS_VM_WS_REFAULT_ANON] = "workingset_refault_anon",
	[AWS_VM_WS_ACTIVATE_ANON] = "workingset_activate_anon",
};

void aws_vmstat_read(struct aws_vmstat *vm)
{
	char key[64];
	long long val;
	FILE *f;
	int i;

	for (i = 0; i < AWS_VM_NR; i++)
		vm->v[i] = -1;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return;
	while (fscanf(f, "%63s %lld", key, &val) == 2) {
		for (i = 0; i < AWS_VM_NR; i++)
			if (!strcmp(key, vm_keys[i]))
				vm->v[i] = val;
	}
	fclose(f);
}

/* ---- run bracket and RESULT line ---------------------------------------- */

void aws_start(void)
{
	trace_open();
	aws_vmstat_read(&vm_start);
	t_start = aws_now();
}

static void result_append(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void result_append(const char *key, const char *fmt, ...)
{
	size_t room = sizeof(result_buf) - result_len;
	va_list ap;
	int n;

	n = snprintf(result_buf + result_len, room, " %s=", key);
	if (n < 0 || (size_t)n >= room)
		aws_fatal("internal error: RESULT line too long");
	result_len += n;
	room -= n;
	va_start(ap, fmt);
	n = vsnprintf(result_buf + result_len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		aws_fatal("internal error: RESULT line too long");
	result_len += n;
}

void aws_result_u64(const char *key, uint64_t val)
{
	result_append(key, "%" PRIu64, val);
}

void aws_result_i64(const char *key, int64_t val)
{
	result_append(key, "%" PRId64, val);
}

void aws_result_double(const char *key, double val, int decimals)
{
	if (!isfinite(val))
		val = 0;
	result_append(key, "%.*f", decimals, val);
}

int aws_finish(void)
{
	struct aws_vmstat vm_end;
	double secs = aws_now() - t_start;
	uint64_t fails;
	int i;

	aws_vmstat_read(&vm_end);
	aws_thread_flush();
	fails = aws_verify_failures();
	trace_close();

	aws_result_u64("verify_fail", fails);
	aws_result_u64("pages_verified",
		       atomic_load_explicit(&total_verified,
					    memory_order_relaxed));
	aws_result_double("seconds", secs, 3);
	for (i = 0; i < AWS_VM_NR; i++) {
		long long a = vm_start.v[i], b = vm_end.v[i];

		aws_result_i64(vm_keys[i], (a < 0 || b < 0) ? -1 : b - a);
	}
	printf("RESULT workload=%s%s\n", aws.name, result_buf);
	fflush(stdout);
	if (fails) {
		fprintf(stderr, "%s: %" PRIu64 " verification failure(s)\n",
			aws.prog, fails);
		return AWS_EXIT_VERIFY;
	}
	return AWS_EXIT_OK;
}
