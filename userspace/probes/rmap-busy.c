// SPDX-License-Identifier: GPL-2.0
/*
 * rmap-busy.c - keep an idle anonymous region's anon_vma lock busy
 *
 * usage: aws-rmap-busy SIZE_MB SECONDS
 *
 * Maps SIZE_MB of anonymous memory (no THP), writes every page once and
 * prints "READY".  Then, for SECONDS, it splits its mapping and merges it
 * again without ever touching the pages: an mprotect() of one page in the
 * middle to read-only and back.  Each split and each merge takes the
 * region's anon_vma lock for writing, so reclaim's walk of the region's
 * rmap (folio_referenced()) finds it taken now and then and reports
 * contention (-1) instead of a reference.  The fidelity suite uses it to
 * show that a policy which keeps referenced active pages (hold) never
 * keeps one whose rmap lock reclaim could not take.  Ends with
 * "RESULT changes=N".  Exit codes: 0 done, 1 runtime error, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static unsigned long parse(const char *what, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > 65536) {
		fprintf(stderr, "aws-rmap-busy: %s must be 1..65536, not '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long size, secs, changes = 0;
	long page = sysconf(_SC_PAGESIZE);
	char *region, *mid;
	double end;

	if (argc != 3) {
		fprintf(stderr, "usage: aws-rmap-busy SIZE_MB SECONDS\n");
		return 2;
	}
	size = parse("SIZE_MB", argv[1]) << 20;
	secs = parse("SECONDS", argv[2]);
	region = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("aws-rmap-busy: mmap");
		return 1;
	}
	if (madvise(region, size, MADV_NOHUGEPAGE)) {
		perror("aws-rmap-busy: madvise");
		return 1;
	}
	memset(region, 0x5a, size);
	printf("READY\n");
	fflush(stdout);

	mid = region + (size / 2 / page) * page;
	end = now() + secs;
	while (now() < end) {
		if (mprotect(mid, page, PROT_READ) || mprotect(mid, page, PROT_READ | PROT_WRITE)) {
			perror("aws-rmap-busy: mprotect");
			return 1;
		}
		changes += 2;
	}
	printf("RESULT changes=%lu\n", changes);
	return 0;
}
