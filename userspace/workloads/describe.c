// SPDX-License-Identifier: GPL-2.0
/*
 * describe.c - --describe: what page trace a run has, said instead of
 * running it.
 *
 * A program with --describe parses and checks its arguments as for a run,
 * then prints one JSON line on stdout and exits 0 without allocating: the
 * trace is "exact" (the run's arguments and --seed alone fix its pages,
 * and --save-trace writes them), "approx" (aws-sim's generator, with the
 * arguments in "sim", gives one like it; "expect" holds the RESULT keys
 * the run must report for it to be its own) or "n/a" (with the reason).
 * common.h gives the line; harness/experiment/opt.py reads it to find the
 * trace for Belady's OPT.  The n/a cases of every program are here; a
 * program adds its own.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	static const char short_escape[] = {
		['"'] = '"', ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f',
		['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
	};
	const unsigned char *c;

	json_printf(j, "\"");
	for (c = (const unsigned char *)str; *c; c++) {
		if (*c < sizeof(short_escape) && short_escape[*c])
			json_printf(j, "\\%c", short_escape[*c]);
		else if (*c < 0x20)
			json_printf(j, "\\u%04x", *c);
		else
			json_printf(j, "%c", *c);
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

void aws_describe_common(int seconds_given)
{
	const char *opt, *arg;
	int is_default;

	aws_trace_check_options();
	if (seconds_given)
		aws_describe_na("timed (--seconds): the number of accesses depends on the run's speed");
	if (aws_first_relative_size(&opt, &arg, &is_default))
		aws_describe_na("%s %s%s is relative to the guest's memory", opt,
				arg, is_default ? " (the default)" : "");
	if (aws.corrupt_test || aws.thp)
		aws_describe_na("--corrupt-test/--thp runs are not traced");
}

void aws_describe_fixed(void)
{
	if (!aws.describe)
		return;
	aws_describe_common(0);
	aws_describe_exact();
}

/* vsnprintf() into @buf, whole: the values are short (@what: for the error) */
static void format_value(char *buf, size_t size, const char *what,
			 const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if (n < 0 || (size_t)n >= size)
		aws_fatal("internal error: --describe %s too long", what);
}

void aws_describe_na(const char *fmt, ...)
{
	char note[512];
	va_list ap;

	va_start(ap, fmt);
	format_value(note, sizeof(note), "note", fmt, ap);
	va_end(ap);
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

	va_start(ap, fmt);
	format_value(val, sizeof(val), "value", fmt, ap);
	va_end(ap);
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

