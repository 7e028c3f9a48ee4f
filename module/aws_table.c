// SPDX-License-Identifier: GPL-2.0
/*
 * aws_table.c - per-memcg-id tables, allocated as memcg ids get used
 *
 * Policies keep private state and clocks per (memcg id, node), and the
 * module remembers which cgroup owns each memcg id.  Hooks look these up
 * by memcg id from reclaim and fault paths, often under a spinlock with
 * interrupts off, so a lookup must never sleep.  A table sized for every
 * possible memcg id (65,535) costs megabytes per node at insmod for a
 * host that may run ten cgroups; here a table is an array of pointers to
 * chunks of consecutive ids, and a chunk is allocated the first time a
 * hook needs one of its ids.
 *
 * The allocation is GFP_ATOMIC: hooks run in reclaim (which may use the
 * reserves) and with locks held.  If it fails, the lookup returns NULL,
 * which every caller treats as "no state here" (a policy falls back to
 * its stateless rule, a clock does not age), and the failure is counted
 * in /proc/anon_workingset (table_alloc_failed); a later lookup tries
 * again.  A chunk is zeroed, then every element gets the table's init,
 * then it is published with release semantics, so a reader that sees the
 * pointer sees an initialised chunk.  Two CPUs that race to fill one
 * chunk both allocate; the loser frees its copy.  Chunks live until the
 * table is freed (unload, or a BPF policy's detach after a grace period).
 *
 * A chunk holds 2^chunk_shift memcg ids of nr_node_ids elements each, as
 * many ids as fit a page (at least one), so that a chunk is an order-0
 * allocation wherever that is possible.
 */
#include <linux/atomic.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#include "anon_workingset.h"

atomic_long_t aws_table_bytes, aws_table_failures;

static size_t aws_chunk_bytes(const struct aws_table *t)
{
	return ((size_t)t->elem_size * nr_node_ids) << t->chunk_shift;
}

int aws_table_init(struct aws_table *t, unsigned int elem_size,
		   void (*init)(void *elem))
{
	size_t per_id = (size_t)elem_size * nr_node_ids;
	unsigned int ids = 1, nr_chunks;
	void **chunks;

	if (per_id && per_id <= PAGE_SIZE)
		ids = rounddown_pow_of_two(PAGE_SIZE / per_id);
	t->elem_size = elem_size;
	t->chunk_shift = min_t(unsigned int, ilog2(ids),
			       ilog2(roundup_pow_of_two(AWS_MEMCG_ID_MAX + 1)));
	t->init = init;
	nr_chunks = (AWS_MEMCG_ID_MAX + 1) >> t->chunk_shift;
	chunks = kvcalloc(nr_chunks, sizeof(*chunks), GFP_KERNEL);
	if (!chunks)
		return -ENOMEM;
	t->nr_chunks = nr_chunks;
	atomic_long_add(nr_chunks * sizeof(*chunks), &aws_table_bytes);
	WRITE_ONCE(t->chunks, chunks);
	return 0;
}

/*
 * Take the chunks away from lookups.  The caller waits until no hook can
 * hold them any more, then hands them to aws_table_free_chunks().
 */
void **aws_table_detach(struct aws_table *t)
{
	return xchg(&t->chunks, NULL);
}

void aws_table_free_chunks(struct aws_table *t, void **chunks)
{
	unsigned int i;

	if (!chunks)
		return;
	for (i = 0; i < t->nr_chunks; i++) {
		if (!chunks[i])
			continue;
		kfree(chunks[i]);
		atomic_long_sub(aws_chunk_bytes(t), &aws_table_bytes);
	}
	kvfree(chunks);
	atomic_long_sub(t->nr_chunks * sizeof(*chunks), &aws_table_bytes);
}

void aws_table_free(struct aws_table *t)
{
	aws_table_free_chunks(t, aws_table_detach(t));
}

static void *aws_table_fill(struct aws_table *t, void **slot)
{
	size_t bytes = aws_chunk_bytes(t), i;
	void *chunk, *old;

	chunk = kzalloc(bytes, GFP_ATOMIC | __GFP_NOWARN);
	if (!chunk) {
		atomic_long_inc(&aws_table_failures);
		return NULL;
	}
	for (i = 0; t->init && i < bytes; i += t->elem_size)
		t->init(chunk + i);
	/* Pairs with the acquire in aws_table_lookup(). */
	old = cmpxchg_release(slot, NULL, chunk);
	if (old) {
		kfree(chunk);
		return old;
	}
	atomic_long_add(bytes, &aws_table_bytes);
	return chunk;
}

static void *aws_table_lookup(struct aws_table *t, unsigned int id, int nid,
			      bool fill)
{
	void **chunks = READ_ONCE(t->chunks);
	void **slot;
	void *chunk;
	size_t i;

	if (!chunks || id > AWS_MEMCG_ID_MAX || nid >= nr_node_ids)
		return NULL;
	slot = &chunks[id >> t->chunk_shift];
	/* Pairs with aws_table_fill()'s release: a filled chunk. */
	chunk = smp_load_acquire(slot);
	if (!chunk && fill)
		chunk = aws_table_fill(t, slot);
	if (!chunk)
		return NULL;
	i = ((size_t)(id & ((1U << t->chunk_shift) - 1)) * nr_node_ids + nid);
	return chunk + i * t->elem_size;
}

/* The element of (@id, @nid), allocated if needed; NULL if that failed. */
void *aws_table_get(struct aws_table *t, unsigned int id, int nid)
{
	return aws_table_lookup(t, id, nid, true);
}

/* The element of (@id, @nid) if it was ever allocated, else NULL. */
void *aws_table_peek(struct aws_table *t, unsigned int id, int nid)
{
	return aws_table_lookup(t, id, nid, false);
}
