// SPDX-License-Identifier: GPL-2.0
/*
 * aws-sim --selftest: small hand-made traces with known answers, an
 * exhaustive check that OPT is optimal, trace file round trips, the
 * qualitative claims of the seed on scaled-down patterns, and hand-traced
 * runs of the MGLRU model (mglru.c). KTAP output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

struct st_ctx {
	int failed;
	char reason[200];
};

static void fail(struct st_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed++)
		return;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

static void trace_of(struct trace *t, const uint32_t *p, size_t n)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++)
		trace_push(t, p[i]);
}

static uint64_t run_opt(const struct trace *t, unsigned long frames)
{
	struct sim_stats st;
	double pre;

	if (opt_run(t, frames, &st, &pre))
		return UINT64_MAX;
	return st.faults;
}

static uint64_t run_lru(const struct trace *t, unsigned long frames)
{
	struct sim_stats st;

	if (lru_run(t, frames, &st))
		return UINT64_MAX;
	return st.faults;
}

static int run_lru2_ratio(const struct trace *t, const struct aws_policy *p,
			  unsigned long frames, unsigned int ratio,
			  struct sim_stats *st)
{
	struct lru2_params lp = {
		.policy = p, .frames = frames, .ratio = ratio,
		.bucket_order = -1,
	};

	return lru2_run(t, &lp, st);
}

static int run_lru2(const struct trace *t, const struct aws_policy *p,
		    unsigned long frames, struct sim_stats *st)
{
	return run_lru2_ratio(t, p, frames, 1, st);
}

static int run_mglru_opt(const struct trace *t, unsigned long frames,
			 bool batch, bool fault_young, struct sim_stats *st)
{
	struct mglru_params mp = {
		.frames = frames, .batch = batch, .fault_young = fault_young,
		.check = true,
	};

	return mglru_run(t, &mp, st);
}

static int run_mglru(const struct trace *t, unsigned long frames,
		     struct sim_stats *st)
{
	return run_mglru_opt(t, frames, false, false, st);
}

/*
 * A policy by name, for the tests about one policy's documented
 * behaviour; NULL (and a failure) if the registry has no such policy.
 */
static const struct aws_policy *policy(struct st_ctx *c, const char *name)
{
	const struct aws_policy *p = aws_policy_find(name, strlen(name));

	if (!p)
		fail(c, "no policy \"%s\" in the registry", name);
	return p;
}

/* Belady's example: 1 2 3 4 1 2 5 1 2 3 4 5 */
static void t_belady_example(struct st_ctx *c)
{
	static const uint32_t seq[] = { 1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5 };
	struct trace t;
	uint64_t o3, o4, l3, l4;

	trace_of(&t, seq, ARRAY_SIZE(seq));
	o3 = run_opt(&t, 3);
	o4 = run_opt(&t, 4);
	l3 = run_lru(&t, 3);
	l4 = run_lru(&t, 4);
	if (o3 != 7 || o4 != 6)
		fail(c, "OPT 3/4 frames: %llu/%llu, want 7/6",
		     (unsigned long long)o3, (unsigned long long)o4);
	if (l3 != 10 || l4 != 8)
		fail(c, "LRU 3/4 frames: %llu/%llu, want 10/8",
		     (unsigned long long)l3, (unsigned long long)l4);
	trace_free(&t);
}

/* Cyclic access to frames + 1 pages: LRU misses every time, OPT not. */
static void t_cyclic(struct st_ctx *c)
{
	struct trace t;
	uint64_t l, o;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < 100; i++)
		trace_push(&t, i % 5);
	l = run_lru(&t, 4);
	o = run_opt(&t, 4);
	if (l != 100)
		fail(c, "LRU cyclic faults %llu, want 100",
		     (unsigned long long)l);
	/*
	 * 4 cold misses, then one miss every 4 accesses: each miss evicts
	 * the page needed last, which buys 3 hits before the next miss.
	 */
	if (o != 4 + 96 / 4)
		fail(c, "OPT cyclic faults %llu, want 28",
		     (unsigned long long)o);
	trace_free(&t);
}

/* Minimum faults over every demand-paging eviction choice (DP). */
static uint64_t brute_min(const uint32_t *seq, unsigned int n,
			  unsigned int pages, unsigned int frames)
{
	uint64_t cost[1 << 6], ncost[1 << 6];
	unsigned int s, i, v, states = 1u << pages;

	for (s = 0; s < states; s++)
		cost[s] = UINT64_MAX;
	cost[0] = 0;
	for (i = 0; i < n; i++) {
		unsigned int bit = 1u << seq[i];

		for (s = 0; s < states; s++)
			ncost[s] = UINT64_MAX;
		for (s = 0; s < states; s++) {
			if (cost[s] == UINT64_MAX)
				continue;
			if (s & bit) {
				if (cost[s] < ncost[s])
					ncost[s] = cost[s];
				continue;
			}
			if ((unsigned int)__builtin_popcount(s) < frames) {
				if (cost[s] + 1 < ncost[s | bit])
					ncost[s | bit] = cost[s] + 1;
				continue;
			}
			for (v = 0; v < pages; v++) {
				unsigned int ns;

				if (!(s & (1u << v)))
					continue;
				ns = (s & ~(1u << v)) | bit;
				if (cost[s] + 1 < ncost[ns])
					ncost[ns] = cost[s] + 1;
			}
		}
		memcpy(cost, ncost, sizeof(cost));
	}
	v = UINT32_MAX;
	for (s = 0; s < states; s++)
		if (cost[s] < (uint64_t)v)
			v = (unsigned int)cost[s];
	return v;
}

/* OPT equals the exhaustive minimum; every other policy is >= OPT. */
static void t_opt_exhaustive(struct st_ctx *c)
{
	uint64_t rnd = 99;
	unsigned int iter;

	for (iter = 0; iter < 600 && !c->failed; iter++) {
		uint32_t seq[16];
		unsigned int n = 16, pages = 3 + iter % 4;
		unsigned int frames = 1 + iter % (pages - 1), i, p;
		struct trace t;
		uint64_t o, b;

		/* first appearances in order, so ids stay dense */
		for (i = 0; i < n; i++) {
			rnd = rnd * 6364136223846793005ULL +
			      1442695040888963407ULL;
			seq[i] = (uint32_t)((rnd >> 33) % pages);
		}
		trace_of(&t, seq, n);
		o = run_opt(&t, frames);
		b = brute_min(seq, n, t.npages, frames);
		if (o != b)
			fail(c, "trace %u: OPT %llu, exhaustive minimum %llu",
			     iter, (unsigned long long)o,
			     (unsigned long long)b);
		if (run_lru(&t, frames) < o)
			fail(c, "trace %u: LRU below OPT", iter);
		for (p = 0; p < aws_nr_policies; p++) {
			struct sim_stats st;

			if (run_lru2(&t, aws_policies[p], frames, &st) ||
			    st.faults < o)
				fail(c, "trace %u: %s below OPT", iter,
				     aws_policies[p]->name);
		}
		for (p = 0; p < 4; p++) {
			struct sim_stats st;

			if (run_mglru_opt(&t, frames, p & 1, p & 2, &st) ||
			    st.faults < o || st.model_errors)
				fail(c, "trace %u: MGLRU (mode %u) below OPT or inconsistent",
				     iter, p);
		}
		trace_free(&t);
	}
}

/* Everything fits: one cold miss per page for every model. */
static void t_no_reclaim(struct st_ctx *c)
{
	struct gen_params g;
	struct trace t;
	unsigned int p;

	gen_params_default(&g);
	g.zipf_pages = 1000;
	g.accesses = 20000;
	if (trace_generate(&t, "zipf", &g)) {
		fail(c, "zipf generator failed");
		return;
	}
	if (run_opt(&t, t.npages) != t.npages ||
	    run_lru(&t, t.npages) != t.npages)
		fail(c, "OPT/LRU fault on a fitting trace");
	for (p = 0; p < aws_nr_policies; p++) {
		struct sim_stats st;

		if (run_lru2(&t, aws_policies[p], t.npages, &st) ||
		    st.faults != t.npages || st.evictions)
			fail(c, "%s faults %llu on a fitting trace",
			     aws_policies[p]->name,
			     (unsigned long long)st.faults);
	}
	for (p = 0; p < 2; p++) {
		struct sim_stats st;

		if (run_mglru_opt(&t, t.npages, p, false, &st) ||
		    st.faults != t.npages || st.evictions || st.agings)
			fail(c, "MGLRU faults %llu, %llu agings on a fitting trace",
			     (unsigned long long)st.faults,
			     (unsigned long long)st.agings);
	}
	trace_free(&t);
}

static bool same_trace(const struct trace *a, const struct trace *b)
{
	return a->len == b->len && a->npages == b->npages &&
	       !memcmp(a->pages, b->pages, a->len * sizeof(a->pages[0]));
}

/* Text and binary files round-trip; sparse ids are renamed densely. */
static void t_trace_files(struct st_ctx *c)
{
	char bin[] = "/tmp/aws-sim-selftest-XXXXXX";
	char txt[64];
	struct gen_params g;
	struct trace t, u;
	int fd = mkstemp(bin);
	FILE *f;

	if (fd < 0) {
		fail(c, "mkstemp");
		return;
	}
	close(fd);
	snprintf(txt, sizeof(txt), "%s.txt", bin);

	gen_params_default(&g);
	g.zipf_pages = 5000;
	g.accesses = 30000;
	g.seed = 5;
	trace_generate(&t, "zipf", &g);
	if (trace_save(&t, bin) || trace_load(&u, bin) || !same_trace(&t, &u))
		fail(c, "binary u32 round trip");
	trace_free(&u);
	if (trace_save(&t, txt) || trace_load(&u, txt) || !same_trace(&t, &u))
		fail(c, "text round trip");
	trace_free(&u);
	trace_free(&t);

	/* hand-written text: comments, blanks, hex, sparse and 64-bit ids */
	f = fopen(txt, "w");
	if (f) {
		static const uint32_t want[] = { 0, 1, 0, 2, 3, 1, 4 };

		fputs("# a comment\n\n  7\n0x7fffffffff000\n7 # again\n"
		      "18446744073709551615\n\t0\r\n0X7FFFFFFFFF000\n"
		      "0010\n", f);
		fclose(f);
		trace_of(&t, want, ARRAY_SIZE(want));
		if (trace_load(&u, txt) || !same_trace(&t, &u))
			fail(c, "hand-written text trace");
		trace_free(&u);

		/* the same as binary u64 */
		f = fopen(bin, "wb");
		if (f) {
			static const uint64_t raw[] = {
				7, 0x7fffffffff000ULL, 7, UINT64_MAX, 0,
				0x7fffffffff000ULL, 10,
			};
			unsigned char hdr[24] = "AWSTRACE";
			unsigned int i, j;

			hdr[8] = 1;
			hdr[12] = 8;
			hdr[16] = 7;
			fwrite(hdr, 1, sizeof(hdr), f);
			for (i = 0; i < 7; i++)
				for (j = 0; j < 8; j++)
					fputc((int)(raw[i] >> (8 * j)) & 0xff,
					      f);
			fclose(f);
			if (trace_load(&u, bin) || !same_trace(&t, &u))
				fail(c, "hand-written binary u64 trace");
			trace_free(&u);
		}
		trace_free(&t);
	}

	/* malformed input is rejected */
	{
		static const char * const bad[] = {
			"-1\n", "12abc\n", "0x\n", "0xg\n", "1 2\n", "abc\n",
			"+5\n", "99999999999999999999\n", "# only comments\n",
		};
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			f = fopen(txt, "w");
			if (!f)
				break;
			fputs(bad[i], f);
			fclose(f);
			trace_quiet = true;
			if (!trace_load(&u, txt)) {
				fail(c, "accepted bad text \"%s\"", bad[i]);
				trace_free(&u);
			}
			trace_quiet = false;
		}
	}
	unlink(bin);
	unlink(txt);
}

/* Swap-ins of a trace's measured phase under OPT and LRU. */
static void measured_opt_lru(const struct trace *t, unsigned long frames,
			     uint64_t *opt, uint64_t *lru)
{
	struct sim_stats st;
	double pre;

	*opt = *lru = UINT64_MAX;
	if (!opt_run(t, frames, &st, &pre))
		*opt = sim_measured_swapins(t, &st);
	if (!lru_run(t, frames, &st))
		*lru = sim_measured_swapins(t, &st);
}

/*
 * A generator's trace @t, small enough to write out: its pages are @want
 * (@n of them), its measured phase starts at @mark, and OPT and LRU take
 * @opt and @lru swap-ins in it in @frames frames.  Frees @t.
 */
static void expect_small(struct st_ctx *c, const char *what, struct trace *t,
			 const uint32_t *want, size_t n, size_t mark,
			 unsigned long frames, uint64_t opt, uint64_t lru)
{
	struct trace h;
	uint64_t o, l;

	trace_of(&h, want, n);
	if (!same_trace(t, &h) || t->mark != mark)
		fail(c, "%s: %zu accesses, mark %zu", what, t->len, t->mark);
	measured_opt_lru(t, frames, &o, &l);
	if (o != opt || l != lru)
		fail(c, "%s in %lu frames: OPT %llu LRU %llu, want %llu %llu",
		     what, frames, (unsigned long long)o,
		     (unsigned long long)l, (unsigned long long)opt,
		     (unsigned long long)lru);
	trace_free(&h);
	trace_free(t);
}

/*
 * The loop cell: the default loop (160 MiB, 4 loops) and its measured
 * swap-ins under OPT and LRU in 128 MiB; -1 if the generator failed.
 */
static int loop_cell(struct st_ctx *c, struct trace *t, uint64_t *o,
		     uint64_t *l)
{
	struct gen_params g;

	gen_params_default(&g);
	if (trace_generate(t, "loop", &g)) {
		fail(c, "loop generator failed");
		return -1;
	}
	measured_opt_lru(t, mb_to_pages(128, 1), o, l);
	return 0;
}

/*
 * loop: one first-touch pass, then `loops` passes in the same order; the
 * swap-ins of the loops. By hand, 3 pages in 2 frames, 4 loops: after the
 * first pass OPT misses every other access (each miss evicts the page
 * that will be used last, which buys one hit), 12 / 2 = 6 swap-ins; LRU
 * misses all 12. At the loop cell's size (160 MiB in 128 MiB, 4 loops):
 * OPT 32,768 and LRU 163,840.
 */
static void t_gen_loop(struct st_ctx *c)
{
	static const uint32_t want[] = { 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,
					 0, 1, 2 };
	struct gen_params g;
	struct trace t;
	uint64_t o, l;

	gen_params_default(&g);
	g.loop_mb = 3.0 / SIM_PAGES_PER_MB;
	if (trace_generate(&t, "loop", &g)) {
		fail(c, "loop generator failed");
		return;
	}
	expect_small(c, "loop of 3 pages", &t, want, ARRAY_SIZE(want), 3, 2,
		     6, 12);

	if (loop_cell(c, &t, &o, &l))
		return;
	if (o != 32768 || l != 163840)
		fail(c, "loop 160M x4 in 128M: OPT %llu LRU %llu, want 32768 163840",
		     (unsigned long long)o, (unsigned long long)l);
	trace_free(&t);
}

/*
 * scanhot: 4 hot pages, 3 rounds of 3 fresh pages then the hot set, in 6
 * frames. OPT keeps the hot set and streams each scan through the other
 * two frames: no swap-in. LRU: hot plus a scan is 7 pages, so each scan
 * pushes out the oldest hot page and the hot pass then evicts the next
 * one it needs: all 4 miss, every round.
 */
static void t_gen_scanhot(struct st_ctx *c)
{
	static const uint32_t want[] = { 0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3,
					 7, 8, 9, 0, 1, 2, 3, 10, 11, 12,
					 0, 1, 2, 3 };
	struct gen_params g;
	struct trace t;

	gen_params_default(&g);
	g.scan_hot_mb = 4.0 / SIM_PAGES_PER_MB;
	g.scan_mb = 3.0 / SIM_PAGES_PER_MB;
	g.rounds = 3;
	if (trace_generate(&t, "scanhot", &g)) {
		fail(c, "scanhot generator failed");
		return;
	}
	expect_small(c, "scanhot", &t, want, ARRAY_SIZE(want), 4, 6, 0, 12);
}

/*
 * zipf is aws-zipf's stream (the byte-for-byte comparison with aws-zipf is
 * in userspace/workloads/selftest.sh): the fill, pages 0..n-1, then the
 * records; with N threads, thread t's records are every N-th record from
 * the t-th, and thread 0's are those of the one-thread trace.
 */
static void t_gen_zipf(struct st_ctx *c)
{
	const uint64_t cp = 4, nt = 3, recs = 200;
	struct gen_params g;
	struct trace one, three, bad;
	size_t n, r, i;

	gen_params_default(&g);
	g.zipf_pages = 1026;		/* 256 chunks of 4 pages, 2 left over */
	g.zipf_chunk = cp;
	g.accesses = recs * cp;
	g.seed = 11;
	if (trace_generate(&one, "zipf", &g)) {
		fail(c, "zipf generator failed");
		return;
	}
	g.zipf_threads = nt;
	g.accesses = recs * cp * nt;
	if (trace_generate(&three, "zipf", &g)) {
		fail(c, "zipf generator failed (3 threads)");
		trace_free(&one);
		return;
	}
	n = 256 * cp;
	if (one.mark != n || three.mark != n || one.len != n + recs * cp ||
	    three.len != n + nt * recs * cp || one.npages != n) {
		fail(c, "zipf: mark %zu / %zu, len %zu / %zu, npages %u",
		     one.mark, three.mark, one.len, three.len, one.npages);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (one.pages[i] != i || three.pages[i] != i) {
			fail(c, "zipf: fill out of order at %zu", i);
			goto out;
		}
	for (r = 0; r < recs; r++) {
		const uint32_t *a = one.pages + n + r * cp;
		const uint32_t *b = three.pages + n + r * nt * cp;

		if (a[0] % cp || memcmp(a, b, cp * sizeof(*a))) {
			fail(c, "zipf: record %zu of thread 0 differs", r);
			goto out;
		}
		for (i = 1; i < cp; i++)
			if (a[i] != a[0] + i)
				fail(c, "zipf: record %zu not a chunk", r);
	}
	if (three.pages[n + cp] == three.pages[n] &&
	    three.pages[n + 2 * cp] == three.pages[n])
		fail(c, "zipf: threads draw the same chunks");
	g.accesses = recs * cp * nt + 1;
	trace_quiet = true;
	if (!trace_generate(&bad, "zipf", &g))
		fail(c, "zipf: --accesses not a multiple of chunk x threads accepted");
	trace_free(&bad);
	trace_quiet = false;
out:
	trace_free(&one);
	trace_free(&three);
}

static bool same_stats(const struct sim_stats *a, const struct sim_stats *b)
{
	return a->faults == b->faults && a->evictions == b->evictions &&
	       a->refaults == b->refaults &&
	       a->refault_activations == b->refault_activations &&
	       a->restores == b->restores &&
	       a->reclaim_activations == b->reclaim_activations &&
	       a->deactivations == b->deactivations &&
	       !memcmp(a->hist, b->hist, sizeof(a->hist));
}

static int scaled(struct st_ctx *c, struct trace *t, const char *pattern,
		  double scale)
{
	struct gen_params g;

	gen_params_default(&g);
	g.scale = scale;
	if (trace_generate(t, pattern, &g)) {
		fail(c, "generator");
		return -1;
	}
	return 0;
}

/*
 * Cover letter, "workingset protection": used-once waves push the hot set
 * out of an active-first LRU, not out of an inactive-first one.
 */
static void t_protect_beats_baseline(struct st_ctx *c)
{
	const struct aws_policy *pb = policy(c, "baseline");
	const struct aws_policy *pp = policy(c, "protect");
	const struct aws_policy *pd = policy(c, "detect");
	struct sim_stats b, p, d;
	unsigned long frames = mb_to_pages(280, 1.0 / 64);
	struct trace t;

	if (!pb || !pp || !pd)
		return;
	if (scaled(c, &t, "protect", 1.0 / 64))
		return;
	if (run_lru2(&t, pb, frames, &b) || run_lru2(&t, pp, frames, &p) ||
	    run_lru2(&t, pd, frames, &d))
		fail(c, "run failed");
	if (!(p.faults < b.faults))
		fail(c, "protect %llu faults, baseline %llu",
		     (unsigned long long)p.faults,
		     (unsigned long long)b.faults);
	if (d.faults > p.faults)
		fail(c, "detect %llu faults > protect %llu",
		     (unsigned long long)d.faults,
		     (unsigned long long)p.faults);
	trace_free(&t);
}

/*
 * Cover letter, "workingset detection": hot-2's reuse interval is longer
 * than the inactive list but shorter than memory, so protection alone
 * thrashes and detection promotes it.
 */
static void t_detect_beats_protect(struct st_ctx *c)
{
	const struct aws_policy *pp = policy(c, "protect");
	const struct aws_policy *pd = policy(c, "detect");
	unsigned long frames = mb_to_pages(280, 1.0 / 16);
	struct sim_stats p, d;
	struct trace t;

	if (!pp || !pd)
		return;
	if (scaled(c, &t, "thrash", 1.0 / 16))
		return;
	if (run_lru2(&t, pp, frames, &p) || run_lru2(&t, pd, frames, &d))
		fail(c, "run failed");
	if (!(d.faults < p.faults))
		fail(c, "detect %llu faults, protect %llu",
		     (unsigned long long)d.faults,
		     (unsigned long long)p.faults);
	if (!d.refault_activations)
		fail(c, "detect activated no refault");
	trace_free(&t);
}

/*
 * With no page cache the two shadow policies (and stock, which runs
 * upstream's rules) coincide. Stock ignores the ratio parameter: below
 * 1 GiB 6.1's ratio is 1, so at ratio 3 stock keeps 1 and the others
 * do not.
 */
static void t_detect_equals_upstream(struct st_ctx *c)
{
	const struct aws_policy *pd = policy(c, "detect");
	const struct aws_policy *pu = policy(c, "upstream");
	const struct aws_policy *ps = policy(c, "stock");
	unsigned long frames = mb_to_pages(280, 1.0 / 16);
	struct sim_stats d, u, s, d3, u3, s3;
	struct trace t;

	if (!pd || !pu || !ps)
		return;
	if (scaled(c, &t, "thrash", 1.0 / 16))
		return;
	if (run_lru2_ratio(&t, pd, frames, AWS_RATIO_AUTO, &d) ||
	    run_lru2_ratio(&t, pu, frames, AWS_RATIO_AUTO, &u) ||
	    run_lru2_ratio(&t, ps, frames, AWS_RATIO_AUTO, &s) ||
	    run_lru2_ratio(&t, pd, frames, 3, &d3) ||
	    run_lru2_ratio(&t, pu, frames, 3, &u3) ||
	    run_lru2_ratio(&t, ps, frames, 3, &s3)) {
		fail(c, "run failed");
		trace_free(&t);
		return;
	}
	if (!same_stats(&d, &u) || !same_stats(&u, &s))
		fail(c, "detect/upstream/stock differ without file pages");
	if (!same_stats(&d3, &u3))
		fail(c, "detect/upstream differ at ratio 3");
	if (!same_stats(&s3, &s))
		fail(c, "stock took the ratio parameter");
	if (same_stats(&u3, &u))
		fail(c, "ratio 3 changes nothing: the check above is void");
	trace_free(&t);
}

/*
 * Every policy's decisions reach the model: swap-ins marked PG_workingset
 * only by a policy whose swapin() says so, refaults only where there are
 * shadows, reclaim activations on one look only with first_reference().
 */
static void t_decisions_reach_model(struct st_ctx *c)
{
	unsigned long frames = mb_to_pages(280, 1.0 / 16);
	const struct aws_folio f = { .nr_pages = 1, .swapbacked = true };
	struct trace t;
	unsigned int i;

	if (scaled(c, &t, "thrash", 1.0 / 16))
		return;
	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *p = aws_policies[i];
		bool marks = p->swapin && p->swapin(&f, NULL) == AWS_YES;
		bool shadows = !p->evict ||
			       (p->evict(&f, NULL) == AWS_YES &&
				p->clock != AWS_CLOCK_NONE);
		struct sim_stats st;

		if (p->state_size)	/* the calls above passed no state */
			continue;
		if (run_lru2(&t, p, frames, &st)) {
			fail(c, "%s: run failed", p->name);
			continue;
		}
		if (marks && st.psi_swapins < st.swapins)
			fail(c, "%s: %llu of %llu swap-ins marked", p->name,
			     (unsigned long long)st.psi_swapins,
			     (unsigned long long)st.swapins);
		if (!marks && st.psi_swapins != st.restores)
			fail(c, "%s: swap-ins marked without swapin()",
			     p->name);
		if (shadows != (st.refaults > 0))
			fail(c, "%s: %llu refaults, shadows %d", p->name,
			     (unsigned long long)st.refaults, shadows);
		if (!st.swapins || !st.evictions)
			fail(c, "%s: no reclaim", p->name);
	}
	trace_free(&t);
}

/*
 * keep_active reaches the model: on zipf, with the faulting access young,
 * a policy that keeps referenced active pages keeps some (and its
 * results differ from the same policy without the callback), one that
 * declines keeps none.
 */
static void t_keep_active(struct st_ctx *c)
{
	const struct aws_policy *hold = policy(c, "hold");
	struct aws_policy without;
	struct lru2_params lp = {
		.frames = mb_to_pages(128, 1.0 / 16), .ratio = AWS_RATIO_AUTO,
		.bucket_order = -1, .fault_young = true,
	};
	struct sim_stats with, none;
	struct gen_params g;
	struct trace t;

	if (!hold)
		return;
	gen_params_default(&g);
	g.zipf_pages = 2 * lp.frames;	/* zipf(0.9) at 2x memory */
	g.accesses = 200000;
	if (trace_generate(&t, "zipf", &g)) {
		fail(c, "generator");
		return;
	}
	without = *hold;
	without.keep_active = NULL;
	lp.policy = hold;
	if (lru2_run(&t, &lp, &with))
		fail(c, "run with keep_active failed");
	lp.policy = &without;
	if (lru2_run(&t, &lp, &none))
		fail(c, "run without keep_active failed");
	if (!with.active_kept)
		fail(c, "hold kept no referenced active page");
	if (none.active_kept)
		fail(c, "%llu pages kept with keep_active declined",
		     (unsigned long long)none.active_kept);
	if (same_stats(&with, &none))
		fail(c, "keep_active changed nothing");
	trace_free(&t);
}

/*
 * What a policy sees of who and where (struct aws_folio's memcg_id, nid
 * and id, struct aws_lru_sizes' memcg_id and nid): a probe that marks
 * each id evict() gets in a bitmap and checks at refault that the id was
 * evicted, and that every folio and lruvec is the root memcg's on node 0.
 */
#define PROBE_PAGES 4096
static struct {
	unsigned char evicted[PROBE_PAGES];
	unsigned long evicts, refaults, matched, bad_where, swapin_ids;
} probe;

static bool probe_where(unsigned int memcg_id, unsigned int nid)
{
	if (memcg_id == 1 && nid == 0)
		return true;
	probe.bad_where++;
	return false;
}

static enum aws_decision probe_evict(const struct aws_folio *f, void *st)
{
	(void)st;
	probe.evicts++;
	probe_where(f->memcg_id, f->nid);
	if (f->id && f->id <= PROBE_PAGES)
		probe.evicted[f->id - 1] = 1;
	return AWS_YES;
}

static enum aws_decision probe_swapin(const struct aws_folio *f, void *st)
{
	(void)st;
	if (f->id)
		probe.swapin_ids++;
	return AWS_NO;
}

static enum aws_decision probe_refault(struct aws_refault *r, void *st)
{
	(void)st;
	probe.refaults++;
	probe_where(r->sizes.memcg_id, r->sizes.nid);
	if (r->id && r->id <= PROBE_PAGES && probe.evicted[r->id - 1])
		probe.matched++;
	r->workingset_size = r->sizes.active_anon;
	return r->distance <= r->sizes.active_anon ? AWS_YES : AWS_NO;
}

static enum aws_decision probe_new(const struct aws_folio *f, void *st)
{
	(void)st;
	probe_where(f->memcg_id, f->nid);
	if (f->id)		/* a new page has no swap slot */
		probe.bad_where++;
	return AWS_NO;
}

static void t_identity_reaches_policy(struct st_ctx *c)
{
	const struct aws_policy pol = {
		.name = "probe", .clock = AWS_CLOCK_ANON,
		.new_anon = probe_new, .swapin = probe_swapin,
		.evict = probe_evict, .refault = probe_refault,
	};
	struct lru2_params lp = {
		.policy = &pol, .frames = 1024, .ratio = 1, .bucket_order = -1,
	};
	struct sim_stats st;
	struct trace t;
	unsigned int pass, i;

	memset(&probe, 0, sizeof(probe));
	memset(&t, 0, sizeof(t));
	for (pass = 0; pass < 3; pass++)	/* a loop of 1.5x the frames */
		for (i = 0; i < 1536; i++)
			trace_push(&t, i);
	if (lru2_run(&t, &lp, &st)) {
		fail(c, "run failed");
		return;
	}
	if (!probe.evicts || !probe.refaults)
		fail(c, "no eviction (%lu) or refault (%lu)", probe.evicts, probe.refaults);
	if (probe.matched != probe.refaults)
		fail(c, "%lu of %lu refaults carried an id evict() saw", probe.matched,
		     probe.refaults);
	if (probe.swapin_ids != st.swapins)
		fail(c, "%lu of %llu swap-ins carried an id", probe.swapin_ids,
		     (unsigned long long)st.swapins);
	if (probe.bad_where)
		fail(c, "%lu decisions saw another memcg or node, or a new page with an id",
		     probe.bad_where);
	trace_free(&t);
}

/*
 * --batch: one memcg reclaim on a trace of @n pages each touched once
 * (never young), under @pol with ratio 1; @batch off is one page per fault.
 */
static int batch_run(struct st_ctx *c, const char *pol, unsigned long frames,
		     unsigned int n, bool batch, struct sim_stats *st)
{
	struct lru2_params lp = {
		.policy = policy(c, pol), .frames = frames, .ratio = 1,
		.bucket_order = -1, .batch = batch,
	};
	struct trace t;
	unsigned int i;
	int ret;

	if (!lp.policy)
		return -1;
	memset(&t, 0, sizeof(t));
	for (i = 0; i < n; i++)
		trace_push(&t, i);
	ret = lru2_run(&t, &lp, st);
	trace_free(&t);
	if (ret)
		fail(c, "%s run failed", pol);
	return ret;
}

/*
 * The kernel's batches, traced by hand from try_to_free_mem_cgroup_pages()
 * (32 to reclaim), do_try_to_free_pages()'s priorities, get_scan_count()'s
 * SCAN_FRACT (swappiness 60; anon cost 0 gives 60/200 of size >> prio,
 * then the written pages raise the cost) and shrink_lruvec()'s chunks of
 * 32.
 *
 * stock, 64 frames, 65 pages (all inactive, unreferenced): nothing is
 * scanned until priority 4 ((64 >> 4) x 60/200 = 1 page), then 1, 3 and
 * 5 pages at priorities 3, 2 and 1 as the cost grows (10 in all), and
 * priority 0 scans the whole list in chunks of 32 until the call has
 * reclaimed 32: 42 evicted by the one reclaim, 23 resident at the end;
 * the one-page model evicts 1.
 *
 * baseline (new pages start active), 128 frames, 129 pages: the inactive
 * list is empty, so priorities 12 and 11 each deactivate one chunk of 32
 * (inactive_is_low() after shrink_lruvec(); 32:96 is still low, 64:64 is
 * not: the one-page model moves 64 at once); priority 4 evicts 1, which
 * makes the list low again: a third chunk (95:32); then 2, 4, 8 and the
 * 32 of priority 0: 47 evicted, 96 deactivated.  With 40 frames, the
 * first chunk takes 32 of the 40 (32:8 is not low), then 1 + 1 + 3
 * pages and priority 0's remaining 27 make 32, and the inactive list,
 * empty again, takes the last 8: 40 deactivated in two chunks.
 */
static void t_lru2_batch(struct st_ctx *c)
{
	static const struct {
		const char *policy;
		unsigned long frames;
		bool batch;
		uint64_t evictions, deactivations, resident;
	} cases[] = {
		{ "stock", 64, true, 42, 0, 23 },
		{ "stock", 64, false, 1, 0, 64 },
		{ "baseline", 128, true, 47, 96, 82 },
		{ "baseline", 128, false, 1, 64, 128 },
		{ "baseline", 40, true, 32, 40, 9 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sim_stats st;
		uint64_t resident;

		if (batch_run(c, cases[i].policy, cases[i].frames,
			      cases[i].frames + 1, cases[i].batch, &st))
			return;
		resident = cases[i].frames + 1 - st.evictions;
		if (st.evictions != cases[i].evictions ||
		    st.deactivations != cases[i].deactivations ||
		    resident != cases[i].resident)
			fail(c, "%s %lu frames%s: evicted/deactivated/resident %llu/%llu/%llu, want %llu/%llu/%llu",
			     cases[i].policy, cases[i].frames,
			     cases[i].batch ? " batch" : "",
			     (unsigned long long)st.evictions,
			     (unsigned long long)st.deactivations,
			     (unsigned long long)resident,
			     (unsigned long long)cases[i].evictions,
			     (unsigned long long)cases[i].deactivations,
			     (unsigned long long)cases[i].resident);
	}
}

/*
 * --batch on the patterns, every policy: a run repeats exactly, resident
 * stays within the frames, a reclaim runs only when they are full, and
 * each reclaim call frees a batch (at least 32 pages) unless the
 * priorities run out before (never here).
 */
static void t_lru2_batch_patterns(struct st_ctx *c)
{
	static const char *const pats[] = { "thrash", "protect", "loop" };
	unsigned long frames = mb_to_pages(280, 1.0 / 16);
	unsigned int i, p;

	for (i = 0; i < ARRAY_SIZE(pats); i++) {
		struct trace t;

		if (scaled(c, &t, pats[i], 1.0 / 16))
			return;
		for (p = 0; p < aws_nr_policies; p++) {
			struct lru2_params lp = {
				.policy = aws_policies[p], .frames = frames,
				.ratio = AWS_RATIO_AUTO, .bucket_order = -1,
				.batch = true,
			};
			struct sim_stats a, b;

			if (lru2_run(&t, &lp, &a) || lru2_run(&t, &lp, &b)) {
				fail(c, "%s run failed", pats[i]);
				break;
			}
			if (!same_stats(&a, &b))
				fail(c, "%s %s: two runs differ", pats[i],
				     aws_policies[p]->name);
			if (a.resident > frames ||
			    (a.faults > frames) != (a.reclaims > 0) ||
			    a.faults - a.evictions != a.resident ||
			    a.evictions < SIM_RECLAIM_BATCH * a.reclaims)
				fail(c, "%s %s: %llu faults, %llu evictions in %llu reclaims, %llu resident, %lu frames",
				     pats[i], aws_policies[p]->name,
				     (unsigned long long)a.faults,
				     (unsigned long long)a.evictions,
				     (unsigned long long)a.reclaims,
				     (unsigned long long)a.resident, frames);
		}
		trace_free(&t);
	}
}

/* Results do not depend on where the clock starts (wrap-safe distance). */
static void t_clock_wrap(struct st_ctx *c)
{
	static const unsigned long starts[] = {
		~0UL - 1000,			/* the unsigned long wraps */
		(1UL << 36) - 1000,		/* the 36-bit stamp wraps */
		(1UL << 36) * 5 - 77,
	};
	unsigned long frames = mb_to_pages(280, 1.0 / 16);
	struct lru2_params lp = {
		.policy = policy(c, "detect"), .frames = frames, .ratio = 1,
		.bucket_order = -1,
	};
	struct sim_stats ref, st;
	struct trace t;
	unsigned int i;

	if (!lp.policy)
		return;
	if (scaled(c, &t, "thrash", 1.0 / 16))
		return;
	lru2_run(&t, &lp, &ref);
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		lp.clock_start = starts[i];
		lru2_run(&t, &lp, &st);
		if (!same_stats(&ref, &st))
			fail(c, "clock start %#lx changes the result",
			     starts[i]);
	}
	/* a coarse bucket_order only blurs distances, stays close */
	lp.clock_start = 0;
	lp.bucket_order = 4;
	lru2_run(&t, &lp, &st);
	if (st.faults > ref.faults + ref.faults / 20 ||
	    st.faults + ref.faults / 20 < ref.faults)
		fail(c, "bucket_order 4: %llu faults vs %llu",
		     (unsigned long long)st.faults,
		     (unsigned long long)ref.faults);
	trace_free(&t);
}

/* OPT is a lower bound on the scaled patterns too. */
static void t_opt_lower_bound(struct st_ctx *c)
{
	static const char * const pats[] = { "thrash", "protect" };
	unsigned int i, p;

	for (i = 0; i < 2; i++) {
		unsigned long frames = mb_to_pages(280, 1.0 / 32);
		struct trace t;
		uint64_t o;

		if (scaled(c, &t, pats[i], 1.0 / 32))
			return;
		o = run_opt(&t, frames);
		if (run_lru(&t, frames) < o)
			fail(c, "%s: LRU below OPT", pats[i]);
		for (p = 0; p < aws_nr_policies; p++) {
			struct sim_stats st;

			if (run_lru2(&t, aws_policies[p], frames, &st) ||
			    st.faults < o)
				fail(c, "%s: %s below OPT", pats[i],
				     aws_policies[p]->name);
		}
		for (p = 0; p < 2; p++) {
			struct mglru_params mp = {
				.frames = frames, .batch = p,
			};
			struct sim_stats st;

			if (mglru_run(&t, &mp, &st) || st.faults < o)
				fail(c, "%s: MGLRU (mode %u) below OPT", pats[i],
				     p);
		}
		trace_free(&t);
	}
}

/*
 * The workload distribution: instance i of an rng seed is always the same
 * trace, another seed gives another one, and the first DIST_FAMILIES
 * instances are one of each family.
 */
static void t_dist_deterministic(struct st_ctx *c)
{
	struct dist_instance d1, d2;
	unsigned int i, seen = 0;
	struct trace a, b;

	for (i = 0; i < 2 * DIST_FAMILIES; i++) {
		if (dist_draw(&a, 1, i, 1024, &d1) ||
		    dist_draw(&b, 1, i, 1024, &d2)) {
			fail(c, "instance %u: draw failed", i);
			return;
		}
		if (!a.len || !same_trace(&a, &b) || strcmp(d1.params, d2.params))
			fail(c, "instance %u (%s): two draws differ", i,
			     dist_family_name(d1.family));
		seen |= 1U << d1.family;
		trace_free(&a);
		trace_free(&b);
		if (dist_draw(&a, 2, i, 1024, &d2)) {
			fail(c, "instance %u of rng seed 2: draw failed", i);
			return;
		}
		if (!strcmp(d1.params, d2.params))
			fail(c, "instance %u: rng seeds 1 and 2 drew the same %s",
			     i, d1.params);
		trace_free(&a);
	}
	if (seen != (1U << DIST_FAMILIES) - 1)
		fail(c, "families seen: mask %#x", seen);
}

/*
 * A window that slides over memory and fits in it never needs a page
 * back: LRU and OPT have no swap-in on it.  One that does not fit loses
 * pages under LRU but never fewer than OPT.
 */
static void t_dist_slide(struct st_ctx *c)
{
	unsigned int i, fits = 0, over = 0;
	struct dist_instance d;
	struct trace t;
	uint64_t o, l;
	double w;

	for (i = 2; i < 40 * DIST_FAMILIES; i += DIST_FAMILIES) {
		if (dist_draw(&t, 1, i, 1024, &d) ||
		    sscanf(d.params, "window=%lfx", &w) != 1) {
			fail(c, "slide instance %u: %s", i, d.params);
			return;
		}
		measured_opt_lru(&t, 1024, &o, &l);
		if (w <= 0.95 && (o || l))
			fail(c, "instance %u (%s) fits: OPT %llu LRU %llu", i,
			     d.params, (unsigned long long)o,
			     (unsigned long long)l);
		if (o > l)
			fail(c, "instance %u: OPT %llu above LRU %llu", i,
			     (unsigned long long)o, (unsigned long long)l);
		fits += w <= 0.95;
		over += w > 1.05 && l > 0;
		trace_free(&t);
	}
	if (!fits || !over)
		fail(c, "%u windows that fit, %u larger ones that swap", fits,
		     over);
}


/* ---- the MGLRU model (mglru.c): hand-traced runs ---- */

/*
 * Faults, swap-ins, recent refaults, pages protected by sort_folio(),
 * pages young at the rmap check and agings of an MGLRU run, as expected.
 */
static void expect_mglru(struct st_ctx *c, const char *what,
			 const struct sim_stats *st, const uint64_t want[6])
{
	const uint64_t got[6] = {
		st->faults, st->swapins, st->refaults,
		st->refault_activations, st->reclaim_activations, st->agings,
	};
	char g[120], w[120];
	int i, n = 0, k = 0;

	if (!memcmp(got, want, sizeof(got)) && !st->model_errors)
		return;
	for (i = 0; i < 6; i++) {
		n += snprintf(g + n, sizeof(g) - (size_t)n, " %llu",
			      (unsigned long long)got[i]);
		k += snprintf(w + k, sizeof(w) - (size_t)k, " %llu",
			      (unsigned long long)want[i]);
	}
	fail(c, "%s (faults swap-ins refaults protected young agings):%s, want%s, %llu errors",
	     what, g, w, (unsigned long long)st->model_errors);
}

/*
 * A loop of frames + 1 pages. Plain LRU misses every access after the
 * first pass; 6.1's MGLRU does not quite: a swap-in whose shadow is from
 * the current min_seq is a recent refault, which gives the page
 * PG_workingset and every refs bit, and sort_folio() then protects it
 * once, moving it to the tail of the next generation. That reorders the
 * oldest generation and lets a page survive to its next use.
 *
 * Pages 0-4 in 4 frames, three passes, fault-young off. "g: [a b]" is
 * generation g's list from head to tail; max_seq 3, min_seq 0 at start.
 * Under 4096 pages a reclaim also ages when the youngest generation
 * holds more than half of the pages (should_run_aging()); where no aging
 * is said, the youngest holds at most half, the oldest at least a
 * quarter.
 *
 * pass 0: 0-3 fault into 3: [3 2 1 0]. 4: full; 0 is empty, min_seq
 *   passes to 2, which leaves 2 generations: age (nothing young), max 4;
 *   2 is empty: min 3, age again, max 5. Evict 0 (shadow 3). 5: [4].
 * pass 1: 0: evict 1 (shadow 3); 0's shadow is min_seq 3: recent, so
 *   protected once. 5: [0 4], 3: [3 2].
 *   1: evict 2 (shadow 3); 1 recent. 5: [1 0 4], 3: [3].
 *   2: the youngest holds 3 of 4: age, max 6. Isolating 3 empties
 *   generation 3, min_seq goes to 5 first (4 is empty), then 3 is
 *   evicted with shadow 5; 2's shadow 3 is not recent. 6: [2].
 *   3: 2 generations: age, max 7. Evict 4 (shadow 5); 3 recent. 7: [3].
 *   4: tail of 5 is 0, protected: to the tail of 6, flags cleared; so is
 *   1: 6: [2 0 1]. 5 is empty: min 6, age, max 8. Evict 1 (shadow 6);
 *   4's shadow 5 is not recent. 8: [4].
 * pass 2: 0: a hit (young).
 *   1: tail of 6 is 0, young: look-around, back to the head of 8. Then
 *   2: isolating it empties 6: min 7; evicted with shadow 7. 1's shadow
 *   6 is not recent. 8: [1 0 4].
 *   2: 2 generations: age, max 9. Tail of 7 is 3, protected (to the tail
 *   of 8); 7 empty, min 8, age, max 10. Evict 3 (shadow 8). 10: [2].
 *   3: evict 4 (shadow 8); 3 recent. 4: evict 0 (shadow 8); 4 recent.
 *
 * Faults 5 + 5 + 4 = 14, 9 swap-ins, recent refaults 0 1 3 3 4 = 5,
 * protected 0 1 3 = 3, young at the rmap check 1, agings 2+3+2 = 7.
 * LRU: 15 faults. On the loop cell (160 MiB looped 4 times in 128 MiB)
 * MGLRU lands between OPT and LRU.
 */
static void t_mglru_loop(struct st_ctx *c)
{
	static const uint64_t want[6] = { 14, 9, 5, 3, 1, 7 };
	struct mglru_params cell = { .frames = mb_to_pages(128, 1) };
	struct sim_stats st;
	struct trace t;
	unsigned int i;
	uint64_t o, l;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < 15; i++)
		trace_push(&t, i % 5);
	if (run_mglru(&t, 4, &st))
		fail(c, "run failed");
	expect_mglru(c, "loop of 5 in 4", &st, want);
	if (run_lru(&t, 4) != 15)
		fail(c, "LRU on the loop of 5 in 4: not 15 faults");
	trace_free(&t);

	if (loop_cell(c, &t, &o, &l))
		return;
	if (mglru_run(&t, &cell, &st))	/* no check: 40,960 pages */
		fail(c, "run failed");
	if (!(sim_measured_swapins(&t, &st) > o &&
	      sim_measured_swapins(&t, &st) < l) || st.model_errors)
		fail(c, "loop cell: MGLRU %llu, OPT %llu, LRU %llu",
		     (unsigned long long)sim_measured_swapins(&t, &st),
		     (unsigned long long)o, (unsigned long long)l);
	trace_free(&t);
}

/*
 * A used-once scan does not push out pages with young PTEs: memory is
 * first filled with used-once pages, then 3 hot pages are read after
 * every page of a scan of 200 fresh pages; 8, 64 and 200 frames (batch
 * mode only from 64: it reclaims 32 pages per charge, which in 8 frames
 * is all of them, hot or not, as 6.1 would).
 *
 * Between two faults every hot page is accessed, so whenever reclaim
 * looks at one (the walk, the rmap check at the oldest tail) its PTE is
 * young; the look clears the bit and moves the page to the youngest
 * generation, and within one reclaim it cannot come back to the oldest
 * tail while older, unreferenced pages of the scan are there. So the hot
 * pages fault once each: frames + 3 + scan faults, no swap-in. A FIFO
 * (young bits ignored) or a walk that dropped young pages would evict
 * them.
 *
 * Why the fill: a fresh memcg's first reclaim ages twice in a row (its
 * generations start empty), and the first walk, which takes every page
 * table, clears every young bit while all pages sit in one generation,
 * so that reclaim cannot tell hot pages from cold; in batch mode the hot
 * pages, faulted in second to fourth, would go with the first 64. And
 * not with fault-young: there every scan page is young too until looked
 * at, and in 8 frames one look-around can clear every bit at once.
 */
static void t_mglru_used_once(struct st_ctx *c)
{
	static const unsigned long frames[] = { 8, 64, 200 };
	const unsigned int scan = 200;
	struct sim_stats st;
	unsigned int i, f, b;

	for (f = 0; f < ARRAY_SIZE(frames); f++) {
		uint32_t fill = 3 + scan;
		struct trace t;

		memset(&t, 0, sizeof(t));
		for (i = 0; i < frames[f]; i++)
			trace_push(&t, fill + i);
		for (i = 0; i < scan; i++) {
			trace_push(&t, 3 + i);
			trace_push(&t, 0);
			trace_push(&t, 1);
			trace_push(&t, 2);
		}
		for (b = 0; b < 2; b++) {
			if (b && frames[f] < 64)
				continue;
			if (run_mglru_opt(&t, frames[f], b, false, &st))
				fail(c, "run failed");
			if (st.faults != frames[f] + 3 + scan || st.swapins ||
			    st.model_errors)
				fail(c, "%lu frames, mode %u: %llu faults %llu swapins, want %lu 0",
				     frames[f], b, (unsigned long long)st.faults,
				     (unsigned long long)st.swapins,
				     frames[f] + 3 + scan);
		}
		trace_free(&t);
	}
}

/*
 * A page not accessed since the last aging goes before one that was,
 * though it is younger in the list. 4 frames:
 *   0 1 2 3   fault into 3: [3 2 1 0]
 *   1 2       young
 *   4         full: min_seq to 2, age: the first walk takes every table,
 *             1 and 2 are young: they stay in 3 (the youngest), bits
 *             cleared; max 4, min 3, age again, max 5. Evict 0 (tail).
 *   1         young again (since the last aging); 2 is not
 *   5         the youngest holds 1 of 4, the oldest 3: no aging. Tail
 *             of 3 is 1: young, look-around (no other young page),
 *             back to 5. Next tail 2: old, evicted.
 *   1         a hit
 *   2         a swap-in: the youngest (5: 5 1 4) holds 3 of 4: age (the
 *             walk takes table 0, which the look-around put in the
 *             filter, and clears 1's bit), max 6. Evict 3, which empties
 *             3: min_seq passes the empty 4 to 5, so 2's shadow (3) is
 *             not recent.
 * Faults 7, one swap-in, no recent refault, one page young at the rmap
 * check, 3 agings. Had the walk not cleared 2's bit, 2 would have gone
 * back to 5 with 1, 3 would have been evicted at 5, and 2 would hit.
 */
static void t_mglru_aging_order(struct st_ctx *c)
{
	static const uint32_t seq[] = { 0, 1, 2, 3, 1, 2, 4, 1, 5, 1, 2 };
	static const uint64_t want[6] = { 7, 1, 0, 0, 1, 3 };
	struct sim_stats st;
	struct trace t;

	trace_of(&t, seq, ARRAY_SIZE(seq));
	if (run_mglru(&t, 4, &st))
		fail(c, "run failed");
	expect_mglru(c, "aging order", &st, want);
	trace_free(&t);
}

/*
 * The guest's memcg reclaim (batch mode): 32 pages per charge, checked
 * 64 at a time, from priority 12 down, each priority scanning
 * total >> priority.
 *
 * 100 frames, pages 0-99 then 100: 100 >> p is 0 down to priority 7; at
 * 6 the oldest generation 0 is empty, min_seq goes to 2 and 2
 * generations are left (nothing evicted); at 5 age (max 4), 2 is empty,
 * min 3, 2 left again; at 4 age (max 5), isolate 64 pages of 3 (0-63),
 * none young: 64 evicted, 37 resident after 100 faults in.
 *
 * Then 64 and 65 read, and 101-164 fault in (no reclaim until 100 are
 * resident again). 164: at priority 6 the youngest (100-163) holds 64
 * of 100: age. The walk takes only tables in the Bloom filter, which the
 * previous walk left empty (it found nothing young), so 64 and 65 stay
 * young and unmoved. Isolate the 36 pages left in 3 (64-99), min_seq to
 * 5; 64 is young at the rmap check: look-around clears 65's bit too and,
 * 65 being isolated, sets its PG_referenced, which keeps it (6.1 keeps a
 * mapped page with PG_referenced under MGLRU). 34 evicted, 64 and 65
 * back to the youngest generation. Then both hit. Faults 101 + 64 = 165,
 * 98 evictions, 3 agings, one page young at the rmap check, one kept by
 * look-around, none moved by the walk (it would have taken both, had it
 * ignored the filter).
 */
static void t_mglru_batch(struct st_ctx *c)
{
	static const uint64_t want[6] = { 165, 0, 0, 0, 1, 3 };
	struct sim_stats st;
	struct trace t;
	uint32_t i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i <= 100; i++)
		trace_push(&t, i);
	if (run_mglru_opt(&t, 100, true, false, &st))
		fail(c, "run failed");
	if (st.faults != 101 || st.evictions != 64 || st.resident != 37 ||
	    st.agings != 2 || st.model_errors)
		fail(c, "first batch: faults/out/in/agings %llu/%llu/%llu/%llu, not 101/64/37/2",
		     (unsigned long long)st.faults,
		     (unsigned long long)st.evictions,
		     (unsigned long long)st.resident,
		     (unsigned long long)st.agings);
	trace_push(&t, 64);
	trace_push(&t, 65);
	for (i = 101; i <= 164; i++)
		trace_push(&t, i);
	trace_push(&t, 64);
	trace_push(&t, 65);
	if (run_mglru_opt(&t, 100, true, false, &st))
		fail(c, "run failed");
	expect_mglru(c, "batch", &st, want);
	if (st.evictions != 98 || st.walk_promotions ||
	    st.lookaround_promotions != 1)
		fail(c, "batch: %llu evicted, %llu by the walk, %llu by look-around, want 98 0 1",
		     (unsigned long long)st.evictions,
		     (unsigned long long)st.walk_promotions,
		     (unsigned long long)st.lookaround_promotions);
	trace_free(&t);
}

/*
 * On every kind of trace, both reclaim modes, fault-young or not: the
 * lists stay consistent after every reclaim (mglru.c's check), there are
 * always 2 to 4 generations and both bounds are reached; a fault is a
 * first touch or a swap-in; what faulted in and is not resident was
 * evicted; one page at a time keeps every frame used.
 */
static uint64_t distinct_pages(const struct trace *t)
{
	uint8_t *seen = calloc((size_t)t->npages + 1, 1);
	uint64_t n = 0;
	size_t i;

	if (!seen)
		return UINT64_MAX;
	for (i = 0; i < t->len; i++) {
		if (!seen[t->pages[i]]) {
			seen[t->pages[i]] = 1;
			n++;
		}
	}
	free(seen);
	return n;
}

static void t_mglru_invariants(struct st_ctx *c)
{
	static const char * const pats[] = { "thrash", "protect", "loop",
					     "scanhot", "zipf", "randw" };
	unsigned int i, mode;
	uint64_t lo = UINT64_MAX, hi = 0;

	for (i = 0; i < ARRAY_SIZE(pats) + 4; i++) {
		struct trace t;
		struct dist_instance d;
		unsigned long frames;

		if (i < ARRAY_SIZE(pats)) {
			struct gen_params g;

			gen_params_default(&g);
			g.scale = 1.0 / 64;
			g.loop_mb = 400;	/* more than memory */
			g.zipf_pages = 2 * mb_to_pages(280, g.scale);
			g.randw_pages = g.zipf_pages;
			g.accesses = 40000;
			frames = mb_to_pages(280, g.scale);
			if (trace_generate(&t, pats[i], &g)) {
				fail(c, "%s generator failed", pats[i]);
				return;
			}
		} else {
			frames = 700;
			if (dist_draw(&t, 3, i, frames, &d)) {
				fail(c, "draw failed");
				return;
			}
		}
		for (mode = 0; mode < 4; mode++) {
			uint64_t touched = distinct_pages(&t);
			struct sim_stats st;

			if (run_mglru_opt(&t, frames, mode & 1, mode & 2, &st)) {
				fail(c, "%s: run failed", t.name);
				continue;
			}
			if (st.model_errors || st.gens_min < 2 || st.gens_max > 4)
				fail(c, "%s mode %u: %llu errors, generations %llu-%llu",
				     t.name, mode,
				     (unsigned long long)st.model_errors,
				     (unsigned long long)st.gens_min,
				     (unsigned long long)st.gens_max);
			if (st.faults != touched + st.swapins ||
			    st.evictions != st.faults - st.resident ||
			    st.resident > frames ||
			    (!(mode & 1) && st.resident !=
			     (touched < frames ? touched : frames)) ||
			    st.accesses != t.len)
				fail(c, "%s/%u: faults %llu, %llu+%llu, out %llu, in %llu",
				     t.name, mode,
				     (unsigned long long)st.faults,
				     (unsigned long long)touched,
				     (unsigned long long)st.swapins,
				     (unsigned long long)st.evictions,
				     (unsigned long long)st.resident);
			if (st.gens_min < lo)
				lo = st.gens_min;
			if (st.gens_max > hi)
				hi = st.gens_max;
		}
		trace_free(&t);
	}
	if (lo != 2 || hi != 4)
		fail(c, "generations seen %llu-%llu: the bounds are never reached",
		     (unsigned long long)lo, (unsigned long long)hi);
}

/*
 * The C and BPF builds of a shared policy file (twins.c) take the same
 * decisions: a recorder between the model and the policy folds every
 * decision asked, with what it was told and what it answered, into a
 * digest, and both builds must give the same digest and the same counts
 * on the seed's patterns and on drawn instances of every family, in both
 * reclaim models.  A BPF build that lost its state, read a field at the
 * wrong place or left a member out answers differently somewhere.
 */
static const struct aws_policy *rec_inner;
static uint64_t rec_digest, rec_calls;

static void rec_mix(uint64_t v)
{
	rec_digest = (rec_digest ^ v) * 0x100000001b3ULL;
}

static void rec_folio(unsigned int member, const struct aws_folio *f,
		      enum aws_decision d)
{
	rec_calls++;
	rec_mix(member);
	rec_mix(f->nr_pages);
	rec_mix(f->workingset);
	rec_mix(f->id);
	rec_mix(d);
}

#define REC_FOLIO(member, nr)						\
static enum aws_decision rec_##member(const struct aws_folio *f, void *st) \
{									\
	enum aws_decision d = rec_inner->member(f, st);			\
									\
	rec_folio(nr, f, d);						\
	return d;							\
}
REC_FOLIO(new_anon, 1)
REC_FOLIO(swapin, 2)
REC_FOLIO(swapin_mapped, 3)
REC_FOLIO(evict, 4)
REC_FOLIO(age, 5)
REC_FOLIO(first_reference, 6)
REC_FOLIO(keep_active, 7)

static enum aws_decision rec_refault(struct aws_refault *r, void *st)
{
	enum aws_decision d = rec_inner->refault(r, st);

	rec_calls++;
	rec_mix(8);
	rec_mix(r->distance);
	rec_mix(r->id);
	rec_mix(r->workingset_size);
	rec_mix(r->quiet);
	rec_mix(d);
	return d;
}

static unsigned long rec_inactive_ratio(const struct aws_lru_sizes *z,
					unsigned long stock_ratio, void *st)
{
	unsigned long v = rec_inner->inactive_ratio(z, stock_ratio, st);

	rec_calls++;
	rec_mix(9);
	rec_mix(z->inactive_anon);
	rec_mix(v);
	return v;
}

static unsigned long rec_file_workingset(const struct aws_lru_sizes *z,
					 unsigned long stock_size)
{
	unsigned long v = rec_inner->file_workingset(z, stock_size);

	rec_calls++;
	rec_mix(10);
	rec_mix(v);
	return v;
}

/* @p with every decision it takes passed through the recorder. */
static struct aws_policy recorder_of(const struct aws_policy *p)
{
	struct aws_policy r = *p;

#define REC(member) (r.member = p->member ? rec_##member : NULL)
	REC(new_anon);
	REC(swapin);
	REC(swapin_mapped);
	REC(evict);
	REC(refault);
	REC(age);
	REC(first_reference);
	REC(keep_active);
	REC(inactive_ratio);
	REC(file_workingset);
#undef REC
	return r;
}

static int recorded_run(const struct trace *t, const struct aws_policy *p,
			unsigned long frames, bool batch, uint64_t *digest,
			uint64_t *calls, struct sim_stats *st)
{
	struct aws_policy r = recorder_of(p);
	struct lru2_params lp = {
		.policy = &r, .frames = frames, .ratio = AWS_RATIO_AUTO,
		.bucket_order = -1, .fault_young = true, .batch = batch,
		.refault_deactivate = true,
	};
	int ret;

	rec_inner = p;
	rec_digest = 0xcbf29ce484222325ULL;
	rec_calls = 0;
	ret = lru2_run(t, &lp, st);
	*digest = rec_digest;
	*calls = rec_calls;
	return ret;
}

/* Both builds of twin @i on @t: the same digest and counts. */
static void twins_alike(struct st_ctx *c, unsigned int i,
			const struct trace *t, unsigned long frames,
			const char *what, uint64_t *calls_total)
{
	const char *c_name;
	const struct aws_policy *b = sim_twin(i, &c_name);
	const struct aws_policy *p = policy(c, c_name);
	uint64_t dc, db, nc, nb;
	struct sim_stats sc, sb;
	int batch;

	if (!p)
		return;
	for (batch = 0; batch <= 1; batch++) {
		if (recorded_run(t, p, frames, batch, &dc, &nc, &sc) ||
		    recorded_run(t, b, frames, batch, &db, &nb, &sb)) {
			fail(c, "%s on %s: run failed", b->name, what);
			return;
		}
		if (dc != db || nc != nb || !same_stats(&sc, &sb) ||
		    sc.quiet_activations != sb.quiet_activations ||
		    sc.active_kept != sb.active_kept)
			fail(c, "%s and %s differ on %s%s: %llu and %llu decisions, %llu and %llu swap-ins",
			     c_name, b->name, what, batch ? " (batch)" : "",
			     (unsigned long long)nc, (unsigned long long)nb,
			     (unsigned long long)sc.swapins,
			     (unsigned long long)sb.swapins);
		*calls_total += nc;
	}
}

static void t_bpf_twins(struct st_ctx *c)
{
	static const char *const pats[] = {
		"thrash", "protect", "loop", "scanhot",
	};
	unsigned int i, k;
	uint64_t calls = 0;
	struct dist_instance d;
	struct trace t;

	if (!sim_nr_twins())
		fail(c, "no twin: userspace/bpf/Makefile's SHARED list is empty");
	for (k = 0; k < ARRAY_SIZE(pats); k++) {
		if (scaled(c, &t, pats[k], 1.0 / 16))
			return;
		for (i = 0; i < sim_nr_twins(); i++)
			twins_alike(c, i, &t, mb_to_pages(280, 1.0 / 16),
				    pats[k], &calls);
		trace_free(&t);
	}
	for (k = 0; k < 2 * DIST_FAMILIES; k++) {
		if (dist_draw(&t, 1, k, 512, &d)) {
			fail(c, "instance %u: draw failed", k);
			return;
		}
		for (i = 0; i < sim_nr_twins(); i++)
			twins_alike(c, i, &t, 512, d.params, &calls);
		trace_free(&t);
	}
	if (!calls)
		fail(c, "no decision was recorded");
}

/*
 * --notes: regret notes each refault it judges, one line naming it and
 * one of its three rules (v0 1..3), with the lists of that refault; hold
 * notes nothing.  The guest sample's scanhot-44 (rng seed 41, 4096
 * frames: a hot set and a scan that nearly fit), run as make sim does.
 */
static void t_notes(struct st_ctx *c)
{
	static const char *const names[] = { "regret", "hold" };
	struct lru2_params lp = {
		.frames = 4096, .ratio = AWS_RATIO_AUTO, .bucket_order = -1,
		.fault_young = true, .refault_deactivate = true, .batch = true,
	};
	unsigned long act, inact, rule, lines, bad;
	struct dist_instance d;
	struct sim_stats st;
	struct trace t;
	char pol[32], line[512];
	unsigned int i, inst;
	int ws;

	if (dist_draw(&t, 41, 44, lp.frames, &d)) {
		fail(c, "cannot draw instance 44");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		lp.policy = policy(c, names[i]);
		sim_notes = tmpfile();
		if (!lp.policy || !sim_notes) {
			fail(c, "no %s or no temporary file", names[i]);
			break;
		}
		sim_notes_instance = 44;
		if (lru2_run(&t, &lp, &st)) {
			fail(c, "%s failed", names[i]);
			break;
		}
		rewind(sim_notes);
		lines = bad = 0;
		while (fgets(line, sizeof(line), sim_notes)) {
			lines++;
			if (sscanf(line, "%u %31s %lu %lu %d %lu", &inst, pol,
				   &act, &inact, &ws, &rule) != 6 ||
			    inst != 44 || strcmp(pol, names[i]) ||
			    act + inact > lp.frames || rule < 1 || rule > 3)
				bad++;
		}
		fclose(sim_notes);
		sim_notes = NULL;
		if (i == 0 && (lines != st.refaults || st.refaults < 1000 ||
			       bad))
			fail(c, "regret: %lu notes (%lu malformed) for %llu "
			     "refaults, want one each and 1000 or more", lines,
			     bad, (unsigned long long)st.refaults);
		if (i == 1 && lines)
			fail(c, "hold: %lu notes, it makes none", lines);
	}
	if (sim_notes)
		fclose(sim_notes);
	sim_notes = NULL;
	trace_free(&t);
}

static const struct {
	const char *name;
	void (*fn)(struct st_ctx *c);
} tests[] = {
	{ "belady_example", t_belady_example },
	{ "cyclic_lru_vs_opt", t_cyclic },
	{ "opt_exhaustive", t_opt_exhaustive },
	{ "opt_lower_bound_patterns", t_opt_lower_bound },
	{ "no_reclaim", t_no_reclaim },
	{ "trace_files", t_trace_files },
	{ "gen_loop", t_gen_loop },
	{ "gen_scanhot", t_gen_scanhot },
	{ "gen_zipf_is_aws_zipf", t_gen_zipf },
	{ "protect_beats_baseline", t_protect_beats_baseline },
	{ "detect_beats_protect_thrash", t_detect_beats_protect },
	{ "detect_equals_upstream_no_file", t_detect_equals_upstream },
	{ "decisions_reach_model", t_decisions_reach_model },
	{ "clock_wrap_invariance", t_clock_wrap },
	{ "keep_active_reaches_model", t_keep_active },
	{ "identity_reaches_policy", t_identity_reaches_policy },
	{ "lru2_batch", t_lru2_batch },
	{ "lru2_batch_patterns", t_lru2_batch_patterns },
	{ "dist_deterministic", t_dist_deterministic },
	{ "dist_slide_window", t_dist_slide },
	{ "mglru_loop", t_mglru_loop },
	{ "mglru_used_once_scan", t_mglru_used_once },
	{ "mglru_aging_order", t_mglru_aging_order },
	{ "mglru_batch", t_mglru_batch },
	{ "mglru_invariants", t_mglru_invariants },
	{ "bpf_twins_decide_alike", t_bpf_twins },
	{ "notes_one_per_refault", t_notes },
};

int sim_selftest(void)
{
	unsigned int i, n = ARRAY_SIZE(tests), failed = 0;

	printf("KTAP version 1\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		struct st_ctx c = { 0 };

		tests[i].fn(&c);
		if (c.failed) {
			failed++;
			printf("not ok %u %s # %s\n", i + 1, tests[i].name,
			       c.reason);
		} else {
			printf("ok %u %s\n", i + 1, tests[i].name);
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n",
	       n - failed, failed);
	printf("aws-sim-selftest: %u passed, %u failed\n", n - failed, failed);
	return failed ? 1 : 0;
}
