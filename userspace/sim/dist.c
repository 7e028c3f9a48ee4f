// SPDX-License-Identifier: GPL-2.0
/*
 * dist.c - a distribution of workloads, drawn at random relative to memory
 *
 * A policy tuned on a handful of cells can win on them and lose on the
 * patterns beside them.  So instead of cells, policies are judged on
 * instances drawn from families of access patterns, every size relative
 * to the frames available, from a fixed rng seed: instance i of rng seed
 * S is always the same trace, and the whole distribution is the list of
 * instances 0..N-1.
 *
 * The families (instance i belongs to family i mod DIST_FAMILIES, so any
 * N >= DIST_FAMILIES covers each about equally):
 *
 *   zipf     stationary zipf, alpha 0.5-1.3, over 1.2x-4x memory;
 *   zipfmove zipf whose hot set moves: 2-6 phases, each shifting the
 *            ranks by 10 %-50 % of the region;
 *   slide    a window of 30 %-130 % of memory sliding over 4x memory,
 *            steps of 10 %-50 % of the window, each position read 2-4
 *            times;
 *   loop     a region of 1.02x-4x memory read 3-6 times in order;
 *   scanhot  a hot set of 20 %-90 % of memory re-read between used-once
 *            scans of 25 %-150 % of memory;
 *   thrash   the seed's test with drawn proportions: cold 1x-2.5x, hot-1
 *            and hot-2 10 %-40 %, slices 20 %-60 % of memory, and enough
 *            rounds that every cold slice comes back at least twice;
 *   mix      two of the families above in disjoint halves of the address
 *            space, each drawn for half of memory, interleaved in blocks
 *            in proportion to their lengths;
 *   randw    aws-randw's writes over 1.2x-4x memory, 1x-3x as many
 *            writes as pages.
 *
 * Every access counts: a trace's swap-ins are its misses on pages it
 * touched before (first touches are not swap-ins), over the whole trace.
 * The draw depends only on (rng seed, instance, frames); the parameters
 * are written out so that the worst instance can be rebuilt by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aws_rng.h"
#include "aws_zipf.h"
#include "sim.h"

static const char *const dist_names[DIST_FAMILIES] = {
	"zipf", "zipfmove", "slide", "loop", "scanhot", "thrash", "mix", "randw",
};

const char *dist_family_name(unsigned int family)
{
	return family < DIST_FAMILIES ? dist_names[family] : "?";
}

/* Uniform in [lo, hi). */
static double uniform(struct aws_rng *rng, double lo, double hi)
{
	return lo + (hi - lo) * aws_rng_double(rng);
}

/* Uniform integer in [lo, hi]. */
static unsigned long pick(struct aws_rng *rng, unsigned long lo,
			  unsigned long hi)
{
	return lo + (unsigned long)aws_rng_below(rng, hi - lo + 1);
}

static unsigned long at_least_one(double pages)
{
	return pages < 1 ? 1 : (unsigned long)pages;
}

static void emit_range(struct trace *t, uint32_t base, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		trace_push(t, base + (uint32_t)i);
}

/* Zipf records over @pages; @phases > 1 shifts the ranks each phase. */
static int draw_zipf(struct trace *t, struct aws_rng *rng, unsigned long frames,
		     unsigned int phases, char *p, size_t len)
{
	double alpha = uniform(rng, 0.5, 1.3);
	unsigned long pages = at_least_one(uniform(rng, 1.2, 4.0) * (double)frames);
	unsigned long accesses = 8 * pages, per_phase = accesses / phases;
	unsigned long shift = 0, ph, i;
	double shift_frac = phases > 1 ? uniform(rng, 0.1, 0.5) : 0;
	struct aws_rng stream;
	struct aws_zipf z;

	if (aws_zipf_init(&z, pages, 1, alpha, aws_rng_next(rng)))
		return -1;
	aws_zipf_stream_seed(&stream, aws_rng_next(rng), 0);
	emit_range(t, 0, pages);
	for (ph = 0; ph < phases; ph++) {
		for (i = 0; i < per_phase; i++) {
			size_t c = aws_zipf_next_chunk(&z, &stream);

			trace_push(t, (uint32_t)((c + shift) % pages));
		}
		shift += (unsigned long)(shift_frac * (double)pages);
	}
	aws_zipf_free(&z);
	snprintf(p, len, "alpha=%.3f pages=%.2fx accesses=%lu phases=%u shift=%.2f",
		 alpha, (double)pages / (double)frames, accesses, phases,
		 shift_frac);
	return 0;
}

static void draw_slide(struct trace *t, struct aws_rng *rng,
		       unsigned long frames, char *p, size_t len)
{
	double wf = uniform(rng, 0.3, 1.3), sf = uniform(rng, 0.1, 0.5);
	unsigned long window = at_least_one(wf * (double)frames);
	unsigned long step = at_least_one(sf * (double)window);
	unsigned long region = 4 * frames, pos, k;
	unsigned int passes = (unsigned int)pick(rng, 2, 4);

	if (region < window)
		region = window;
	for (pos = 0; pos + window <= region; pos += step)
		for (k = 0; k < passes; k++)
			emit_range(t, (uint32_t)pos, window);
	snprintf(p, len, "window=%.2fx step=%.2fw passes=%u region=4x",
		 wf, sf, passes);
}

static void draw_loop(struct trace *t, struct aws_rng *rng,
		      unsigned long frames, char *p, size_t len)
{
	double sf = uniform(rng, 1.02, 4.0);
	unsigned long n = at_least_one(sf * (double)frames);
	unsigned int loops = (unsigned int)pick(rng, 3, 6), i;

	for (i = 0; i <= loops; i++)
		emit_range(t, 0, n);
	snprintf(p, len, "size=%.3fx loops=%u", sf, loops);
}

static void draw_scanhot(struct trace *t, struct aws_rng *rng,
			 unsigned long frames, char *p, size_t len)
{
	double hf = uniform(rng, 0.2, 0.9), sf = uniform(rng, 0.25, 1.5);
	unsigned long hot = at_least_one(hf * (double)frames);
	unsigned long scan = at_least_one(sf * (double)frames);
	unsigned int rounds = (unsigned int)pick(rng, 4, 10), i;
	uint32_t fresh = (uint32_t)hot;

	emit_range(t, 0, hot);
	for (i = 0; i < rounds; i++) {
		emit_range(t, fresh, scan);
		fresh += (uint32_t)scan;
		emit_range(t, 0, hot);
	}
	snprintf(p, len, "hot=%.2fx scan=%.2fx rounds=%u", hf, sf, rounds);
}

static int draw_thrash(struct trace *t, struct aws_rng *rng,
		       unsigned long frames, char *p, size_t len)
{
	double mb = (double)frames / (double)SIM_PAGES_PER_MB;
	double cf = uniform(rng, 1.0, 2.5), h1 = uniform(rng, 0.1, 0.4);
	double h2 = uniform(rng, 0.1, 0.4), sl = uniform(rng, 0.2, 0.6);
	unsigned int rounds = (unsigned int)(2 * cf / sl) + 2;
	struct gen_params g;

	gen_params_default(&g);
	g.cold_mb = cf * mb;
	g.hot1_mb = h1 * mb;
	g.hot2_mb = h2 * mb;
	g.slice_mb = sl * mb;
	g.warm_chunk_mb = sl * mb / 2;
	g.warmup = 4;
	g.rounds = rounds < 30 ? rounds : 30;
	if (trace_generate(t, "thrash", &g))
		return -1;
	snprintf(p, len, "cold=%.2fx hot1=%.2fx hot2=%.2fx slice=%.2fx rounds=%u",
		 cf, h1, h2, sl, g.rounds);
	return 0;
}

static int draw_randw(struct trace *t, struct aws_rng *rng,
		      unsigned long frames, char *p, size_t len)
{
	double pf = uniform(rng, 1.2, 4.0), wf = uniform(rng, 1.0, 3.0);
	struct gen_params g;

	gen_params_default(&g);
	g.randw_pages = at_least_one(pf * (double)frames);
	g.randw_threads = 1;
	g.accesses = at_least_one(wf * (double)g.randw_pages);
	g.seed = aws_rng_next(rng);
	if (trace_generate(t, "randw", &g))
		return -1;
	snprintf(p, len, "pages=%.2fx writes=%.2fx", pf, wf);
	return 0;
}

static int draw_family(struct trace *t, unsigned int family,
		       struct aws_rng *rng, unsigned long frames,
		       char *p, size_t len);

/* Two families in disjoint halves, interleaved by progress. */
static int draw_mix(struct trace *t, struct aws_rng *rng,
		    unsigned long frames, char *p, size_t len)
{
	unsigned int fa = (unsigned int)aws_rng_below(rng, DIST_MIX_FAMILIES);
	unsigned int fb = (unsigned int)aws_rng_below(rng, DIST_MIX_FAMILIES);
	char pa[160], pb[160];
	struct trace a, b;
	size_t ia = 0, ib = 0, k;
	int ret = -1;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (draw_family(&a, fa, rng, frames / 2, pa, sizeof(pa)) ||
	    draw_family(&b, fb, rng, frames / 2, pb, sizeof(pb)))
		goto out;
	while (ia < a.len || ib < b.len) {
		/* the one behind in its own length goes next, 64 at a time */
		bool take_a = ib == b.len ||
			(ia < a.len && (double)ia / (double)a.len <=
				       (double)ib / (double)b.len);

		for (k = 0; k < 64; k++) {
			if (take_a && ia < a.len)
				trace_push(t, a.pages[ia++]);
			else if (!take_a && ib < b.len)
				trace_push(t, a.npages + b.pages[ib++]);
		}
	}
	snprintf(p, len, "a=%s(%s) b=%s(%s)", dist_names[fa], pa,
		 dist_names[fb], pb);
	ret = 0;
out:
	trace_free(&a);
	trace_free(&b);
	return ret;
}

static int draw_family(struct trace *t, unsigned int family,
		       struct aws_rng *rng, unsigned long frames,
		       char *p, size_t len)
{
	switch (family) {
	case 0:
		return draw_zipf(t, rng, frames, 1, p, len);
	case 1:
		return draw_zipf(t, rng, frames, (unsigned int)pick(rng, 2, 6),
				 p, len);
	case 2:
		draw_slide(t, rng, frames, p, len);
		return 0;
	case 3:
		draw_loop(t, rng, frames, p, len);
		return 0;
	case 4:
		draw_scanhot(t, rng, frames, p, len);
		return 0;
	case 5:
		return draw_thrash(t, rng, frames, p, len);
	case 6:
		return draw_mix(t, rng, frames, p, len);
	case 7:
		return draw_randw(t, rng, frames, p, len);
	}
	return -1;
}

int dist_draw(struct trace *t, uint64_t rng_seed, unsigned int index,
	      unsigned long frames, struct dist_instance *d)
{
	struct aws_rng rng;

	memset(t, 0, sizeof(*t));
	memset(d, 0, sizeof(*d));
	d->family = index % DIST_FAMILIES;
	aws_rng_seed(&rng, rng_seed, index);
	if (draw_family(t, d->family, &rng, frames, d->params,
			sizeof(d->params))) {
		trace_free(t);
		return -1;
	}
	/* every access counts: swap-ins are misses on pages seen before */
	t->mark = 0;
	snprintf(t->name, sizeof(t->name), "%s-%u", dist_names[d->family],
		 index);
	snprintf(t->desc, sizeof(t->desc), "%s: %.170s", dist_names[d->family],
		 d->params);
	return 0;
}
