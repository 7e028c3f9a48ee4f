// SPDX-License-Identifier: GPL-2.0
/*
 * verify.c - anonymous regions and the page verifier.
 *
 * A workload touches memory only through a region: an anonymous private
 * mapping (MADV_NOHUGEPAGE, or MADV_HUGEPAGE with --thp) and an array of
 * per-page generations.  Writing a page stamps it with its generation;
 * reading it checks the stamp, so a page that swap, reclaim or a policy
 * lost, mixed up or brought back stale is caught, reported as a
 * VERIFY_FAIL line on stderr and counted: the run then exits 3.
 *
 * Page pattern: every written 4 KiB page carries 8 u64 words at word
 * offsets 0, 73, 146, ..., 511 (first word, last word and 6 spread between
 * them). Each word is a hash of (per-run seed, region id, page index,
 * generation, word number), so stale, zero, misplaced or foreign pages are
 * all detected. A never-written page (generation 0) must read as zero.
 *
 * Every access made here is what --save-trace records (trace.c), so the
 * trace is the program's own sequence of page accesses, not a model of it.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define AWS_WORDS_PER_PAGE	(AWS_PAGE_SIZE / sizeof(uint64_t))
#define AWS_CHECK_WORDS		8U
#define AWS_WORD_STRIDE		73U	/* 7 * 73 = 511 = last word */
#define AWS_MAX_FAIL_LINES	100U

_Static_assert((AWS_CHECK_WORDS - 1) * AWS_WORD_STRIDE ==
	       AWS_WORDS_PER_PAGE - 1, "last word must be checked");

static _Atomic uint64_t total_failures;
static _Atomic uint64_t total_verified;
static _Atomic unsigned int fail_lines;
static _Thread_local uint64_t tl_verified;
static unsigned int region_count;

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
	r->trace_base = aws_trace_region(r->npages);
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
	aws_trace_page(r, idx);
}

void aws_region_write_all(struct aws_region *r)
{
	size_t i;

	for (i = 0; i < r->npages; i++)
		aws_page_write(r, i, 1);
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
		aws_trace_page(r, idx);
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
				aws_trace_page(r, idx);
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

uint64_t aws_pages_verified(void)
{
	return atomic_load_explicit(&total_verified, memory_order_relaxed);
}
