// SPDX-License-Identifier: GPL-2.0
/*
 * Traces: built-in generators and the file formats of docs/trace-format.md.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aws_randw.h"
#include "aws_zipf.h"
#include "sim.h"

#define TRACE_MAGIC	"AWSTRACE"
#define TRACE_HDR_LEN	24
#define TRACE_VERSION	1

/* The self test feeds bad files on purpose and silences the complaints. */
bool trace_quiet;

#define trace_err(...)							\
	do {								\
		if (!trace_quiet)					\
			fprintf(stderr, __VA_ARGS__);			\
	} while (0)

void trace_push(struct trace *t, uint32_t page)
{
	if (t->len == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1 << 16;
		uint32_t *np = realloc(t->pages, cap * sizeof(*np));

		if (!np) {
			fprintf(stderr, "aws-sim: out of memory (trace)\n");
			exit(2);
		}
		t->pages = np;
		t->cap = cap;
	}
	t->pages[t->len++] = page;
	if (page >= t->npages)
		t->npages = page + 1;
}

void trace_free(struct trace *t)
{
	free(t->pages);
	memset(t, 0, sizeof(*t));
}

/* ---- generators ---- */

void gen_params_default(struct gen_params *g)
{
	memset(g, 0, sizeof(*g));
	g->scale = 1.0;
	g->rounds = 20;
	g->warmup = 8;
	g->seed = 1;
	/* the seed's thrash test (cover letter, "workingset detection") */
	g->cold_mb = 512;
	g->hot1_mb = 96;
	g->hot2_mb = 96;
	g->slice_mb = 128;
	g->warm_chunk_mb = 64;
	/*
	 * The cover letter's protection example (50 hot pages, two waves of
	 * 50 used-once pages, 100 frames) scaled to the 280 MiB test box,
	 * with the hot set rounded down to 128 MiB so it fits the active
	 * half under a 1:1 ratio with some slack.
	 */
	g->hot_mb = 128;
	g->wave_mb = 128;
	g->waves = 2;
	/* design cell: a 160 MiB region looped 4 times, in 128 MiB */
	g->loop_mb = 160;
	g->loops = 4;
	/* design cell: a 96 MiB hot set, 64 MiB used-once scans, in 128 MiB */
	g->scan_hot_mb = 96;
	g->scan_mb = 64;
	g->alpha = 0.9;
	g->zipf_pages = 0;	/* default: 2x frames, set by the caller */
	g->zipf_chunk = 1;	/* aws-zipf --chunk 4K */
	g->zipf_threads = 1;
	g->randw_pages = 0;	/* default: 2x frames, set by the caller */
	g->randw_threads = 1;
	g->accesses = 10000000;
}

unsigned long mb_to_pages(double mb, double scale)
{
	double p = mb * scale * (double)SIM_PAGES_PER_MB + 0.5;

	return p < 1 ? 1 : (unsigned long)p;
}

static void emit_range(struct trace *t, uint32_t first, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		trace_push(t, first + (uint32_t)i);
}

/* @n used-once pages: the @n from *@fresh on, never touched before */
static void emit_fresh(struct trace *t, uint32_t *fresh, unsigned long n)
{
	emit_range(t, *fresh, n);
	*fresh += (uint32_t)n;
}

/* n pages of a region [base, base + size) from a wrapping cursor */
static void emit_cursor(struct trace *t, uint32_t base, unsigned long size,
			unsigned long *cursor, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		trace_push(t, base + (uint32_t)*cursor);
		if (++*cursor == size)
			*cursor = 0;
	}
}

/*
 * The seed's test program (cover letter, "workingset detection"):
 *   1. allocate cold memory (512 MiB)
 *   2. allocate hot-1 memory (96 MiB)
 *   3. activate hot-1: re-reference it while reclaim runs - here
 *      `warmup` passes of (all of hot-1, then the next 64 MiB of cold),
 *      a 160 MiB reuse interval that earns two young looks under every
 *      policy
 *   4. allocate hot-2 memory (96 MiB)
 *   5. access the next 128 MiB slice of cold memory (cycling through it)
 *   6. access hot-2 memory
 *   7. repeat 5, 6 `rounds` times
 */
static void gen_thrash(struct trace *t, const struct gen_params *g)
{
	unsigned long cold = mb_to_pages(g->cold_mb, g->scale);
	unsigned long hot1 = mb_to_pages(g->hot1_mb, g->scale);
	unsigned long hot2 = mb_to_pages(g->hot2_mb, g->scale);
	unsigned long slice = mb_to_pages(g->slice_mb, g->scale);
	unsigned long chunk = mb_to_pages(g->warm_chunk_mb, g->scale);
	uint32_t cold_base = 0, hot1_base = (uint32_t)cold;
	uint32_t hot2_base = (uint32_t)(cold + hot1);
	unsigned long cursor = 0;
	unsigned int i;

	emit_range(t, cold_base, cold);
	emit_range(t, hot1_base, hot1);
	for (i = 0; i < g->warmup; i++) {
		emit_range(t, hot1_base, hot1);
		emit_cursor(t, cold_base, cold, &cursor, chunk);
	}
	emit_range(t, hot2_base, hot2);
	t->mark = t->len;	/* hold's goals count the rounds' swap-ins */
	for (i = 0; i < g->rounds; i++) {
		emit_cursor(t, cold_base, cold, &cursor, slice);
		emit_range(t, hot2_base, hot2);
	}
	snprintf(t->desc, sizeof(t->desc),
		 "thrash: cold %lu, hot1 %lu, hot2 %lu, slice %lu pages, %u warmup passes (+%lu cold), %u rounds",
		 cold, hot1, hot2, slice, g->warmup, chunk, g->rounds);
}

/*
 * Workingset protection (cover letter, "workingset protection"): a hot
 * set is established, then each round streams `waves` waves of used-once
 * pages (never touched again) and re-references the hot set.
 */
static void gen_protect(struct trace *t, const struct gen_params *g)
{
	unsigned long hot = mb_to_pages(g->hot_mb, g->scale);
	unsigned long wave = mb_to_pages(g->wave_mb, g->scale);
	unsigned long chunk = mb_to_pages(g->warm_chunk_mb, g->scale);
	uint32_t fresh = (uint32_t)hot;
	unsigned int i, w;

	emit_range(t, 0, hot);
	for (i = 0; i < g->warmup; i++) {
		emit_range(t, 0, hot);
		emit_fresh(t, &fresh, chunk);
	}
	t->mark = t->len;
	for (i = 0; i < g->rounds; i++) {
		for (w = 0; w < g->waves; w++) {
			emit_fresh(t, &fresh, wave);
		}
		emit_range(t, 0, hot);
	}
	snprintf(t->desc, sizeof(t->desc),
		 "protect: hot %lu pages, %u warmup passes (+%lu used-once), %u rounds of %u x %lu used-once + hot",
		 hot, g->warmup, chunk, g->rounds, g->waves, wave);
}

/*
 * A region of `loop_mb` first touched in one pass (a program writing its
 * data), then read `loops` times in the same order. The measured phase
 * (the mark) is the loops: with F frames and a region of N > F pages,
 * plain LRU misses every access of it (N x loops swap-ins) and OPT about
 * N - F per loop (one miss every (N - 1) / (N - F) accesses once the
 * first pass has filled memory).
 */
static void gen_loop(struct trace *t, const struct gen_params *g)
{
	unsigned long n = mb_to_pages(g->loop_mb, g->scale);
	unsigned int i;

	emit_range(t, 0, n);
	t->mark = t->len;
	for (i = 0; i < g->loops; i++)
		emit_range(t, 0, n);
	snprintf(t->desc, sizeof(t->desc),
		 "loop: %lu pages first touched, then looped %u times",
		 n, g->loops);
}

/*
 * A hot set re-referenced between used-once scans: the hot set is first
 * touched, then each of `rounds` rounds scans `scan_mb` of fresh pages
 * (never touched again) and reads the whole hot set. When the hot set
 * plus one scan exceeds memory, an LRU loses the hot set every round;
 * OPT keeps it all and streams the scans through what is left. The
 * measured phase is the rounds.
 */
static void gen_scanhot(struct trace *t, const struct gen_params *g)
{
	unsigned long hot = mb_to_pages(g->scan_hot_mb, g->scale);
	unsigned long scan = mb_to_pages(g->scan_mb, g->scale);
	uint32_t fresh = (uint32_t)hot;
	unsigned int i;

	emit_range(t, 0, hot);
	t->mark = t->len;
	for (i = 0; i < g->rounds; i++) {
		emit_fresh(t, &fresh, scan);
		emit_range(t, 0, hot);
	}
	snprintf(t->desc, sizeof(t->desc),
		 "scanhot: hot %lu pages, %u rounds of %lu used-once + hot",
		 hot, g->rounds, scan);
}

/*
 * The rounds of a generator whose threads take turns, @per_round accesses
 * a round (@what: the options that make it): --accesses must be a
 * multiple of it.
 */
static int split_rounds(const struct gen_params *g, uint64_t per_round,
			const char *what, uint64_t *rounds)
{
	if (g->accesses % per_round) {
		trace_err("aws-sim: --accesses %llu is not a multiple of %s (%llu)\n",
			  (unsigned long long)g->accesses, what,
			  (unsigned long long)per_round);
		return -1;
	}
	*rounds = g->accesses / per_round;
	return 0;
}

/*
 * aws-zipf's stream (userspace/streams/aws_zipf.h): the fill, pages 0..n-1
 * once each, then the records, each `zipf_chunk` pages of a chunk drawn
 * from zipf(alpha) over the chunks of `zipf_pages`, `accesses` page
 * accesses in all. One thread is exactly "aws-zipf --threads 1"; N threads
 * draw from the N workers' streams and take turns one record each
 * (round-robin), an approximation of the guest, where the scheduler
 * interleaves them. The measured phase is the records.
 */
static int gen_zipf(struct trace *t, const struct gen_params *g)
{
	uint64_t cp = g->zipf_chunk, nt = g->zipf_threads;
	uint64_t nchunks = cp ? g->zipf_pages / cp : 0, per_round = cp * nt;
	struct aws_rng *rng;
	struct aws_zipf z;
	uint64_t r, rounds;
	unsigned int i;

	if (!nchunks || nchunks * cp >= SIM_NO_PAGE || !nt) {
		trace_err("aws-sim: zipf needs 1 <= --zipf-chunk <= --zipf-pages < 2^32 and --zipf-threads >= 1\n");
		return -1;
	}
	if (split_rounds(g, per_round, "--zipf-chunk x --zipf-threads",
			 &rounds))
		return -1;
	rng = calloc(nt, sizeof(*rng));
	if (!rng || aws_zipf_init(&z, nchunks, cp, g->alpha, g->seed)) {
		free(rng);
		return -1;
	}
	for (i = 0; i < nt; i++)
		aws_zipf_stream_seed(&rng[i], g->seed, i);

	emit_range(t, 0, nchunks * cp);
	t->mark = t->len;
	for (r = 0; r < rounds; r++)
		for (i = 0; i < nt; i++)
			emit_range(t, (uint32_t)aws_zipf_first_page(&z,
					aws_zipf_next_chunk(&z, &rng[i])), cp);
	snprintf(t->desc, sizeof(t->desc),
		 "zipf: alpha %.2f over %llu chunks of %llu pages, filled, then %llu accesses (%llu records x %llu threads), seed %llu",
		 g->alpha, (unsigned long long)nchunks,
		 (unsigned long long)cp, (unsigned long long)g->accesses,
		 (unsigned long long)rounds, (unsigned long long)nt,
		 (unsigned long long)g->seed);
	aws_zipf_free(&z);
	free(rng);
	return 0;
}

/*
 * aws-randw's stream (userspace/streams/aws_randw.h): `accesses` page
 * writes in all over a region of `randw_pages` pages, each of
 * `randw_threads` threads writing its own pages, taken round-robin one
 * write each (one thread is exactly "aws-randw --threads 1"; more
 * approximate the guest, where the scheduler interleaves them), then
 * aws-randw's verification pass: every page written, in page order (a
 * page never written reads the shared zero page and takes no frame, so
 * it is not an access here).  No fill and no mark: the guest's pswpin
 * covers the whole run, and so does the measured figure.
 */
static int gen_randw(struct trace *t, const struct gen_params *g)
{
	uint64_t n = g->randw_pages, nt = g->randw_threads, r, rounds;
	struct aws_randw *s;
	uint8_t *written;
	unsigned int i;

	if (!nt || n < nt || n >= SIM_NO_PAGE) {
		trace_err("aws-sim: randw needs 1 <= --randw-threads <= --randw-pages < 2^32\n");
		return -1;
	}
	if (split_rounds(g, nt, "--randw-threads", &rounds))
		return -1;
	s = calloc(nt, sizeof(*s));
	written = calloc(n, 1);
	if (!s || !written) {
		free(s);
		free(written);
		return -1;
	}
	for (i = 0; i < nt; i++)
		aws_randw_init(&s[i], n, nt, i, g->seed);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nt; i++) {
			uint64_t p = aws_randw_next(&s[i]);

			written[p] = 1;
			trace_push(t, (uint32_t)p);
		}
	}
	for (r = 0; r < n; r++)
		if (written[r])
			trace_push(t, (uint32_t)r);
	snprintf(t->desc, sizeof(t->desc),
		 "randw: %llu writes (%llu x %llu threads) over %llu pages, then the written pages verified, seed %llu",
		 (unsigned long long)g->accesses, (unsigned long long)rounds,
		 (unsigned long long)nt, (unsigned long long)n,
		 (unsigned long long)g->seed);
	free(written);
	free(s);
	return 0;
}

int trace_generate(struct trace *t, const char *pattern,
		   const struct gen_params *g)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", pattern);
	if (!strcmp(pattern, "thrash"))
		gen_thrash(t, g);
	else if (!strcmp(pattern, "protect"))
		gen_protect(t, g);
	else if (!strcmp(pattern, "loop"))
		gen_loop(t, g);
	else if (!strcmp(pattern, "scanhot"))
		gen_scanhot(t, g);
	else if (!strcmp(pattern, "zipf"))
		return gen_zipf(t, g);
	else if (!strcmp(pattern, "randw"))
		return gen_randw(t, g);
	else
		return -1;
	return 0;
}

uint64_t trace_first_touches_after_mark(const struct trace *t)
{
	uint8_t *seen = calloc((size_t)t->npages + 1, 1);
	uint64_t n = 0;
	size_t i;

	if (!seen) {
		fprintf(stderr, "aws-sim: out of memory (mark)\n");
		exit(2);
	}
	for (i = 0; i < t->len; i++) {
		uint32_t p = t->pages[i];

		if (!seen[p]) {
			seen[p] = 1;
			n += i >= t->mark;
		}
	}
	free(seen);
	return n;
}

uint64_t sim_measured_swapins(const struct trace *t,
			      const struct sim_stats *st)
{
	return st->faults - st->faults_at_mark -
	       trace_first_touches_after_mark(t);
}

/* ---- renaming sparse page numbers to dense ids ---- */

struct rename_map {
	uint64_t *keys;
	uint32_t *vals;		/* SIM_NO_PAGE = empty slot */
	size_t cap, used;
};

static size_t hash64(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static int rename_grow(struct rename_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1 << 16, i;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	memset(vals, 0xff, cap * sizeof(*vals));
	for (i = 0; i < m->cap; i++) {
		size_t h;

		if (m->vals[i] == SIM_NO_PAGE)
			continue;
		for (h = hash64(m->keys[i], cap); vals[h] != SIM_NO_PAGE;
		     h = (h + 1) & (cap - 1))
			;
		keys[h] = m->keys[i];
		vals[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

static int rename_page(struct rename_map *m, uint64_t key, uint32_t *id)
{
	size_t h;

	if (2 * (m->used + 1) > m->cap && rename_grow(m))
		return -1;
	for (h = hash64(key, m->cap); m->vals[h] != SIM_NO_PAGE;
	     h = (h + 1) & (m->cap - 1)) {
		if (m->keys[h] == key) {
			*id = m->vals[h];
			return 0;
		}
	}
	if (m->used >= SIM_NO_PAGE - 1)
		return -1;
	m->keys[h] = key;
	m->vals[h] = (uint32_t)m->used++;
	*id = m->vals[h];
	return 0;
}

static void rename_free(struct rename_map *m)
{
	free(m->keys);
	free(m->vals);
}

int trace_from_raw(struct trace *t, const uint64_t *raw, size_t n)
{
	struct rename_map m = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t id;

		if (rename_page(&m, raw[i], &id)) {
			rename_free(&m);
			return -1;
		}
		trace_push(t, id);
	}
	rename_free(&m);
	return 0;
}

/* ---- files ---- */

static uint64_t get_le(const unsigned char *b, unsigned int width)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < width; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static void put_le(unsigned char *b, uint64_t v, unsigned int width)
{
	unsigned int i;

	for (i = 0; i < width; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static int load_binary(struct trace *t, const unsigned char *buf, size_t size,
		       const char *path)
{
	struct rename_map m = { 0 };
	unsigned int version, width;
	uint64_t count, i;

	if (size < TRACE_HDR_LEN) {
		trace_err("%s: truncated header\n", path);
		return -1;
	}
	version = (unsigned int)get_le(buf + 8, 4);
	width = (unsigned int)get_le(buf + 12, 4);
	count = get_le(buf + 16, 8);
	if (version != TRACE_VERSION || (width != 4 && width != 8)) {
		trace_err("%s: unsupported version %u / width %u\n", path,
			version, width);
		return -1;
	}
	if ((size - TRACE_HDR_LEN) % width ||
	    count != (size - TRACE_HDR_LEN) / width) {
		trace_err("%s: header says %llu records, file holds %.1f\n",
			path, (unsigned long long)count,
			(double)(size - TRACE_HDR_LEN) / width);
		return -1;
	}
	for (i = 0; i < count; i++) {
		uint32_t id;

		if (rename_page(&m, get_le(buf + TRACE_HDR_LEN + i * width,
					   width), &id)) {
			rename_free(&m);
			trace_err("%s: too many distinct pages\n", path);
			return -1;
		}
		trace_push(t, id);
	}
	rename_free(&m);
	return 0;
}

static int load_text(struct trace *t, char *buf, size_t size,
		     const char *path)
{
	struct rename_map m = { 0 };
	unsigned long line = 0;
	char *p = buf, *end = buf + size;

	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		char *q, *num_end;
		unsigned long long v;
		uint32_t id;

		if (!eol)
			eol = end;
		*eol = '\0';
		line++;
		q = p;
		p = eol + 1;

		while (*q == ' ' || *q == '\t' || *q == '\r')
			q++;
		if (*q == '\0' || *q == '#')
			continue;
		/* decimal, or hex with 0x; never octal */
		errno = 0;
		if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
			if (!isxdigit((unsigned char)q[2]))
				goto bad;
			v = strtoull(q + 2, &num_end, 16);
		} else {
			if (!isdigit((unsigned char)q[0]))
				goto bad;
			v = strtoull(q, &num_end, 10);
		}
		if (errno)
			goto bad;
		while (*num_end == ' ' || *num_end == '\t' || *num_end == '\r')
			num_end++;
		if (*num_end != '\0' && *num_end != '#')
			goto bad;
		if (rename_page(&m, v, &id)) {
			rename_free(&m);
			trace_err("%s: too many distinct pages\n", path);
			return -1;
		}
		trace_push(t, id);
		continue;
bad:
		rename_free(&m);
		trace_err("%s:%lu: not a page number: \"%.40s\"\n", path,
			line, q);
		return -1;
	}
	rename_free(&m);
	return 0;
}

int trace_load(struct trace *t, const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t size = 0, cap = 0, n;
	const char *base;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!f) {
		trace_err("%s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (size == cap) {
			unsigned char *nb;

			cap = cap ? cap * 2 : 1 << 20;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + size, 1, cap - size, f);
		size += n;
	} while (n);
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);

	if (size >= 8 && !memcmp(buf, TRACE_MAGIC, 8))
		ret = load_binary(t, buf, size, path);
	else
		ret = load_text(t, (char *)buf, size, path);
	free(buf);
	if (ret)
		return ret;
	if (!t->len) {
		trace_err("%s: empty trace\n", path);
		return -1;
	}
	base = strrchr(path, '/');
	snprintf(t->name, sizeof(t->name), "%s", base ? base + 1 : path);
	snprintf(t->desc, sizeof(t->desc), "file %s", path);
	return 0;
}

/* Binary (u32 records) unless the name ends in ".txt". */
int trace_save(const struct trace *t, const char *path)
{
	size_t len = strlen(path), i;
	bool text = len > 4 && !strcmp(path + len - 4, ".txt");
	FILE *f = fopen(path, "wb");
	int ok = 1;

	if (!f) {
		trace_err("%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (text) {
		ok = fprintf(f, "# aws-sim trace: %s\n", t->desc) > 0;
		for (i = 0; ok && i < t->len; i++)
			ok = fprintf(f, "%u\n", t->pages[i]) > 0;
	} else {
		unsigned char hdr[TRACE_HDR_LEN], rec[4];

		memcpy(hdr, TRACE_MAGIC, 8);
		put_le(hdr + 8, TRACE_VERSION, 4);
		put_le(hdr + 12, 4, 4);
		put_le(hdr + 16, t->len, 8);
		ok = fwrite(hdr, 1, sizeof(hdr), f) == sizeof(hdr);
		for (i = 0; ok && i < t->len; i++) {
			put_le(rec, t->pages[i], 4);
			ok = fwrite(rec, 1, 4, f) == 4;
		}
	}
	if (fclose(f) || !ok) {
		trace_err("%s: write error\n", path);
		return -1;
	}
	return 0;
}
