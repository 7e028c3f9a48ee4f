// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - --save-trace: the run's page accesses, written as it makes
 * them.
 *
 * The file is aws-sim's binary trace (docs/trace-format.md): a 24-byte
 * header, then one u32 record per access, the page's number.  Each region
 * takes the next npages numbers when it is mapped (aws_trace_region()), so
 * a page mapped after another was freed is a new page, as it is to the
 * kernel.  verify.c records every access it makes (common.h says which);
 * the header's count is written when aws_finish() closes the file.
 * harness/experiment/opt.py replays the file for Belady's OPT, and the
 * self-test compares it with aws-sim's generators.  One thread only (the
 * records are not ordered between threads) and not with --corrupt-test.
 */
#include "internal.h"

#include <errno.h>
#include <string.h>

FILE *aws_trace_file;
static uint64_t trace_len;
static uint64_t trace_next_base;	/* aws_region.trace_base of the next region */

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
	if (fwrite(hdr, 1, sizeof(hdr), aws_trace_file) != sizeof(hdr))
		aws_fatal("--save-trace: write error");
}

void aws_trace_check_options(void)
{
	if (aws.save_trace && aws.corrupt_test)
		aws_usage_error("--save-trace and --corrupt-test exclude each other");
}

void aws_trace_single_thread(uint64_t threads)
{
	if (aws.save_trace && threads != 1)
		aws_usage_error("--save-trace needs one worker thread: threads interleave as the scheduler runs them");
}

void aws_trace_open(void)
{
	if (!aws.save_trace)
		return;
	aws_trace_check_options();
	if (trace_next_base)
		aws_fatal("internal error: --save-trace opened after a region");
	/* stdio's buffer, not the regions' memory cgroup's anon memory */
	aws_trace_file = fopen(aws.save_trace, "wb");
	if (!aws_trace_file)
		aws_fatal("--save-trace: cannot create %s: %s", aws.save_trace,
			  strerror(errno));
	trace_header();		/* the count is written at the end */
}

void aws_trace_close(void)
{
	if (!aws_trace_file)
		return;
	if (fseek(aws_trace_file, 0, SEEK_SET))
		aws_fatal("--save-trace: cannot rewind %s", aws.save_trace);
	trace_header();
	if (fclose(aws_trace_file))
		aws_fatal("--save-trace: write error on %s", aws.save_trace);
	aws_trace_file = NULL;
}

uint64_t aws_trace_region(size_t npages)
{
	uint64_t base = trace_next_base;

	trace_next_base += npages;
	if (aws_trace_file && trace_next_base > (uint64_t)UINT32_MAX + 1)
		aws_fatal("--save-trace: more than 2^32 pages");
	return base;
}

void aws_trace_record(uint64_t page)
{
	unsigned char rec[4];

	put_le(rec, page, 4);
	if (fwrite(rec, 1, sizeof(rec), aws_trace_file) != sizeof(rec))
		aws_fatal("--save-trace: write error on %s", aws.save_trace);
	trace_len++;
}
