// SPDX-License-Identifier: GPL-2.0
/*
 * options.c - the workloads' command lines.
 *
 * A program lists its options in a table of struct aws_option (common.h);
 * aws_parse_options() adds the common ones (--thp, --seed, --corrupt-test,
 * --save-trace, --describe, --help), runs getopt_long() and checks each
 * number as it comes, so every program has the same error messages and
 * exit code 2 for the same mistakes.  Sizes are kept as strings and parsed
 * by the program afterwards with aws_parse_size(), which takes bytes,
 * KiB/MiB/GiB, a multiple of MemTotal (<F>x) or a percentage of the memory
 * limit (<F>%).  A relative size is recorded: --describe says that such a
 * run has no fixed trace, as it depends on the guest's memory.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AWS_MAX_SIZE		(1ULL << 46)	/* 64 TiB sanity cap */
#define AWS_MAX_OPTIONS		16U	/* in one program's table */

/* getopt_long() codes: the program's option i is AWS_OPT_PROGRAM + i */
enum {
	AWS_OPT_THP = 0x1000,
	AWS_OPT_SEED,
	AWS_OPT_CORRUPT_TEST,
	AWS_OPT_SAVE_TRACE,
	AWS_OPT_DESCRIBE,
	AWS_OPT_HELP,
	AWS_OPT_PROGRAM = 0x2000,
};

static const struct option common_longopts[] = {
	{ "thp",          no_argument,       NULL, AWS_OPT_THP },
	{ "seed",         required_argument, NULL, AWS_OPT_SEED },
	{ "corrupt-test", no_argument,       NULL, AWS_OPT_CORRUPT_TEST },
	{ "save-trace",   required_argument, NULL, AWS_OPT_SAVE_TRACE },
	{ "describe",     no_argument,       NULL, AWS_OPT_DESCRIBE },
	{ "help",         no_argument,       NULL, AWS_OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* --describe: the sizes parsed relative to the machine's memory, in order */
#define AWS_MAX_RELATIVE	8U
static struct {
	const char *opt;
	const char *arg;
} relative[AWS_MAX_RELATIVE];
static unsigned int nrelative;

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

static void common_option(int opt, const char *arg, void (*usage)(FILE *))
{
	switch (opt) {
	case AWS_OPT_THP:
		aws.thp = 1;
		break;
	case AWS_OPT_SEED:
		aws.seed = aws_parse_u64("--seed", arg, 0, UINT64_MAX);
		break;
	case AWS_OPT_CORRUPT_TEST:
		aws.corrupt_test = 1;
		break;
	case AWS_OPT_SAVE_TRACE:
		aws.save_trace = arg;
		break;
	case AWS_OPT_DESCRIBE:
		aws.describe = 1;
		break;
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
		aws_usage_error("unhandled option");
	}
}

static void program_option(const struct aws_option *o, const char *arg)
{
	if (o->flag)
		*o->flag = 1;
	else if (o->str)
		*o->str = arg;
	else if (o->u64)
		*o->u64 = aws_parse_u64(o->name, arg, o->min, o->max);
	else
		*o->dbl = aws_parse_double(o->name, arg, o->dmin, o->dmax);
	if (o->given)
		*o->given = 1;
}

void aws_parse_options(int argc, char **argv, const struct aws_option *opts,
		       void (*usage)(FILE *))
{
	struct option longopts[AWS_MAX_OPTIONS + sizeof(common_longopts) /
			       sizeof(common_longopts[0])];
	unsigned int n;
	int opt;

	/* the program's options first: getopt_long's order for prefixes */
	for (n = 0; opts[n].name; n++) {
		if (n == AWS_MAX_OPTIONS || strncmp(opts[n].name, "--", 2))
			aws_fatal("internal error: option %s", opts[n].name);
		longopts[n] = (struct option){
			.name = opts[n].name + 2,
			.has_arg = opts[n].flag ? no_argument : required_argument,
			.val = AWS_OPT_PROGRAM + n,
		};
	}
	memcpy(longopts + n, common_longopts, sizeof(common_longopts));
	aws.argc = argc;
	aws.argv = argv;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt >= AWS_OPT_PROGRAM && opt < AWS_OPT_PROGRAM + (int)n)
			program_option(&opts[opt - AWS_OPT_PROGRAM], optarg);
		else
			common_option(opt, optarg, usage);
	}
	if (optind < argc)
		aws_usage_error("unexpected argument '%s'", argv[optind]);
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

/* The position of @arg in argv (argc if it is not there: a default). */
static int arg_position(const char *arg)
{
	int i;

	for (i = 1; i < aws.argc; i++) {
		const char *eq = strchr(aws.argv[i], '=');	/* --opt=ARG */

		if (aws.argv[i] == arg || (eq && eq + 1 == arg))
			return i;
	}
	return aws.argc;
}

int aws_first_relative_size(const char **opt, const char **arg,
			    int *is_default)
{
	int pos, first_pos = INT_MAX;
	unsigned int i, first = 0;

	for (i = 0; i < nrelative; i++) {
		pos = arg_position(relative[i].arg);
		if (pos < first_pos) {
			first_pos = pos;
			first = i;
		}
	}
	if (!nrelative)
		return 0;
	*opt = relative[first].opt;
	*arg = relative[first].arg;
	*is_default = first_pos >= aws.argc;
	return 1;
}
