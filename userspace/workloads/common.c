// SPDX-License-Identifier: GPL-2.0
/*
 * common.c - what every workload run goes through.
 *
 * aws_init() names the program; aws_usage_error() and aws_fatal() are its
 * two ways out (exit 2 and 1).  Between aws_start() and aws_finish() is
 * the measured run: its wall time and its /proc/vmstat deltas go to the
 * one RESULT line on stdout, after the program's own keys and the
 * verifier's counts; everything else a program prints goes to stderr.
 * aws_finish() returns 3 if any page failed verification.
 *
 * The other files: options.c (the command line), describe.c
 * (--describe), verify.c (regions and the page verifier), trace.c
 * (--save-trace) and workers.c (threads and timing); common.h says what
 * each offers.
 */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

struct aws_state aws = { .name = "unknown", .prog = "aws", .seed = 1 };

static struct aws_phase run;
static char result_buf[4096];
static size_t result_len;

void aws_init(const char *name, const char *prog)
{
	aws.name = name;
	aws.prog = prog;
	/* installed before any work, so an early SIGUSR1 cannot kill us */
	aws_catch_end_signal();
}

/* "<prog>: <msg>" on stderr, then @tail, and exit with @code */
__attribute__((noreturn))
static void die(int code, const char *tail, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", aws.prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, tail, aws.prog);
	exit(code);
}

void aws_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	die(AWS_EXIT_USAGE, "\nTry '%s --help' for more information.\n", fmt,
	    ap);
}

void aws_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	die(AWS_EXIT_ERROR, "\n", fmt, ap);
}

void aws_start(void)
{
	aws_trace_open();
	aws_phase_begin(&run);
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
	uint64_t fails;
	int i;

	aws_phase_end(&run);
	aws_thread_flush();
	fails = aws_verify_failures();
	aws_trace_close();

	aws_result_u64("verify_fail", fails);
	aws_result_u64("pages_verified", aws_pages_verified());
	aws_result_double("seconds", run.seconds, 3);
	for (i = 0; i < AWS_VM_NR; i++) {
		long long a = run.vm0.v[i], b = run.vm1.v[i];

		aws_result_i64(aws_vm_keys[i], (a < 0 || b < 0) ? -1 : b - a);
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
