// SPDX-License-Identifier: GPL-2.0
/*
 * Reference policies: exact LRU and Belady's MIN (OPT).
 *
 * LRU: one intrusive list, move-to-front on every access.
 *
 * OPT: evict the resident page whose next use is farthest in the future
 * (never-used-again pages first). Next uses are precomputed in one
 * backward pass; resident pages sit in an indexed binary max-heap keyed by
 * next use. A hit only ever moves a page's key later, so it sifts up; a
 * miss pops the root. O(log frames) per access.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

int lru_run(const struct trace *t, unsigned long frames, struct sim_stats *st)
{
	uint32_t n = t->npages, h = t->npages;
	uint32_t *next, *prev;
	uint8_t *in;
	unsigned long resident = 0;
	double t0;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!frames)
		return -1;
	next = malloc(((size_t)n + 1) * sizeof(*next));
	prev = malloc(((size_t)n + 1) * sizeof(*prev));
	in = calloc((size_t)n + 1, 1);
	if (!next || !prev || !in) {
		free(next);
		free(prev);
		free(in);
		return -1;
	}
	next[h] = prev[h] = h;

	t0 = sim_now();
	for (i = 0; i < t->len; i++) {
		uint32_t p = t->pages[i];

		if (i == t->mark)
			st->faults_at_mark = st->faults;
		if (in[p]) {
			/* unlink */
			next[prev[p]] = next[p];
			prev[next[p]] = prev[p];
		} else {
			st->faults++;
			if (resident >= frames) {
				uint32_t v = prev[h];

				next[prev[v]] = h;
				prev[h] = prev[v];
				in[v] = 0;
				st->evictions++;
			} else {
				resident++;
			}
			in[p] = 1;
		}
		/* add at head */
		next[p] = next[h];
		prev[p] = h;
		prev[next[h]] = p;
		next[h] = p;
	}
	st->seconds = sim_now() - t0;
	st->accesses = t->len;
	if (t->mark >= t->len)
		st->faults_at_mark = st->faults;
	st->swapins = st->faults - (st->faults > n ? n : st->faults);
	free(next);
	free(prev);
	free(in);
	return 0;
}

/* ---- OPT ---- */

#define NEVER UINT32_MAX

struct opt_heap {
	uint32_t *page;		/* heap slot -> page */
	uint32_t *key;		/* heap slot -> next use (NEVER = infinity) */
	uint32_t *pos;		/* page -> heap slot, NEVER if not resident */
	unsigned long size;
};

static inline void heap_set(struct opt_heap *hp, unsigned long i, uint32_t p,
			    uint32_t k)
{
	hp->page[i] = p;
	hp->key[i] = k;
	hp->pos[p] = (uint32_t)i;
}

static void sift_up(struct opt_heap *hp, unsigned long i)
{
	uint32_t p = hp->page[i], k = hp->key[i];

	while (i) {
		unsigned long parent = (i - 1) / 2;

		if (hp->key[parent] >= k)
			break;
		heap_set(hp, i, hp->page[parent], hp->key[parent]);
		i = parent;
	}
	heap_set(hp, i, p, k);
}

static void sift_down(struct opt_heap *hp, unsigned long i)
{
	uint32_t p = hp->page[i], k = hp->key[i];

	for (;;) {
		unsigned long c = 2 * i + 1;

		if (c >= hp->size)
			break;
		if (c + 1 < hp->size && hp->key[c + 1] > hp->key[c])
			c++;
		if (hp->key[c] <= k)
			break;
		heap_set(hp, i, hp->page[c], hp->key[c]);
		i = c;
	}
	heap_set(hp, i, p, k);
}

int opt_run(const struct trace *t, unsigned long frames, struct sim_stats *st,
	    double *precompute_seconds)
{
	struct opt_heap hp = { 0 };
	uint32_t *nextuse, *last;
	double t0;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!frames || t->len >= NEVER)
		return -1;
	if (frames > t->npages)
		frames = t->npages ? t->npages : 1;

	nextuse = malloc((t->len ? t->len : 1) * sizeof(*nextuse));
	last = malloc(((size_t)t->npages + 1) * sizeof(*last));
	hp.page = malloc(frames * sizeof(*hp.page));
	hp.key = malloc(frames * sizeof(*hp.key));
	hp.pos = last;	/* reused after the backward pass */
	if (!nextuse || !last || !hp.page || !hp.key) {
		free(nextuse);
		free(last);
		free(hp.page);
		free(hp.key);
		return -1;
	}

	t0 = sim_now();
	memset(last, 0xff, ((size_t)t->npages + 1) * sizeof(*last));
	for (i = t->len; i-- > 0;) {
		uint32_t p = t->pages[i];

		nextuse[i] = last[p];
		last[p] = (uint32_t)i;
	}
	*precompute_seconds = sim_now() - t0;

	t0 = sim_now();
	memset(hp.pos, 0xff, ((size_t)t->npages + 1) * sizeof(*hp.pos));
	for (i = 0; i < t->len; i++) {
		uint32_t p = t->pages[i], k = nextuse[i];
		uint32_t slot = hp.pos[p];

		if (i == t->mark)
			st->faults_at_mark = st->faults;
		if (slot != NEVER) {
			hp.key[slot] = k;	/* later than before */
			sift_up(&hp, slot);
			continue;
		}
		st->faults++;
		if (hp.size >= frames) {
			/* evict the root: farthest next use */
			hp.pos[hp.page[0]] = NEVER;
			st->evictions++;
			hp.size--;
			if (hp.size) {
				heap_set(&hp, 0, hp.page[hp.size],
					 hp.key[hp.size]);
				sift_down(&hp, 0);
			}
		}
		heap_set(&hp, hp.size, p, k);
		hp.size++;
		sift_up(&hp, hp.size - 1);
	}
	st->seconds = sim_now() - t0;
	st->accesses = t->len;
	if (t->mark >= t->len)
		st->faults_at_mark = st->faults;
	st->swapins = st->faults - (st->faults > t->npages ? t->npages :
				    st->faults);
	free(nextuse);
	free(last);
	free(hp.page);
	free(hp.key);
	return 0;
}
