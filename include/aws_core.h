/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aws_core.h - kernel-independent policy core of anon_workingset
 *
 * This header is compiled unchanged into the anon_workingset module and
 * into the userspace unit tests and trace simulator, and the policies
 * (include/aws_policy.h, module/policies/) build on it. It therefore
 * includes nothing but <linux/types.h>, calls nothing, and keeps no state:
 * every function is a pure computation on its arguments.
 *
 *		Background
 *
 * Until v5.8 every new or swapped-in anonymous page started its life on
 * the active list, and one young PTE seen by reclaim on the inactive list
 * promoted a swap-backed page again. The active list therefore grew with
 * every allocation, and rebalancing demoted the oldest active pages - the
 * hot ones - to make room for pages that might be used only once.
 *
 * Joonsoo Kim's 2020 series fixed this in two steps, which this module
 * lets an administrator switch between at run time:
 *
 *   protection - new and swapped-in anon pages start on the inactive list
 *     and must earn promotion with two references, exactly like file
 *     pages. Used-once pages can no longer push the active list out.
 *
 *   detection - protection alone thrashes on a new workingset whose reuse
 *     interval is longer than the inactive list but shorter than memory:
 *     those pages are evicted before their second reference, every time.
 *     Like the file LRU, remember evicted anon pages in a shadow entry
 *     (here: in the swap cache slot) and, on swap-in, promote the page if
 *     its refault distance shows it would have stayed resident had the
 *     inactive list been allowed to grow into the active list.
 *
 *		Refault distance
 *
 * The derivation is the one in mm/workingset.c, restated for anon. Keep
 * a per-lruvec clock that advances on every inactive-list eviction and on
 * every activation: both are events that move a page one slot further
 * towards the inactive tail. Stamp the clock into the shadow on eviction
 * (E) and read it again on refault (R). R - E is the number of slots the
 * page would have needed *in addition* to the inactive list to survive -
 * the refault distance. If that distance is no larger than the pages that
 * the inactive list could take over from the active list, i.e. the
 * workingset size, the page is part of the workingset and is activated
 * immediately, at the cost of aging the existing active pages.
 *
 * What "workingset size" means is a policy's choice: the seed compares
 * with the active list of the same type; 6.1 compares an anon refault with
 * all file pages plus active anon when swap is usable. Which clock is used
 * is another (enum aws_clock): the seed keeps one clock per LRU type, 6.1
 * shares one clock between anon and file.
 *
 *		Shadow layout
 *
 * Shadows are bit-compatible with pack_shadow() in mm/workingset.c so that
 * the stock decoder can always read a module shadow (and vice versa) and
 * find a valid node id in it. After the xarray value tag is stripped (the
 * caller does xa_mk_value()/xa_to_value()), least significant bit first:
 *
 *   bit 0                     PG_workingset of the evicted page
 *   node_bits                 node id
 *   memcg_bits                memcg id (0 bits without memcg)
 *   eviction_bits             clock >> bucket_order, truncated
 *   tag_bits                  the framework's tag (0 bits unless reserved)
 *
 * Two kinds of shadow share that layout, and the module stamps both: while
 * it is registered, every shadow in the swap caches is one it wrote (load
 * sweeps the ones it did not, unload sweeps its own before the stock code
 * stamps again).  The top bit of the stamp field tells them apart:
 *
 *   1  a policy's shadow: below the kind bit a tag (which policy stamped
 *      it, in which switch epoch; module/aws_hooks.c), then the stamp of
 *      that policy's clock, tag_bits fewer bits wide;
 *   0  a stock shadow: what workingset_eviction() would store, stamped on
 *      the shared clock, with its stamp's top bit cleared.  A refault puts
 *      the bit back (aws_stamp_extend()) before the stock code judges it.
 *
 * Nothing else can be read as a tag: a shadow stamped by anything but the
 * module never reaches it, at any clock value and across a wrap of the
 * clock.  The cost is one stamp bit for stock shadows: a stock refault
 * more than 2^(eviction_bits - 1) buckets after its eviction aliases to a
 * shorter distance, where stock aliases after 2^eviction_bits.
 *
 * With 63 value bits, 10 node bits and 16 memcg bits, 36 bits are left for
 * the timestamp. Machines with more than 2^36 pages would lap that range
 * within one memory's worth of evictions, so - as stock - the lowest
 * bucket_order clock bits are dropped and distances become multiples of
 * 2^bucket_order. Distances are computed in truncated units and masked,
 * which keeps them correct across wrap-around of both the clock and the
 * stored stamp, as long as a page refaults less than 2^eviction_bits
 * buckets after its eviction. Older shadows alias to a short distance;
 * like stock, this is tolerated: the worst case is one needless
 * activation.
 *
 *		Policies
 *
 * Each policy is one file in module/policies/ written against
 * include/aws_policy.h. Five stand for a real kernel, on both LRU types:
 * stock (the running kernel as shipped), baseline (5.8), protect (the
 * seed's patches 1-2), detect (the whole seed series), upstream (6.1's
 * algorithm run by the module); example, stable, hold and regret are the
 * project's own. Which events age which clock and what a refault
 * distance is compared with decide the file LRU's behaviour as much as
 * the anon one's, so each file says both.
 *
 * PG_workingset on swap-in (4.20 to the seed) marks only swap-ins through
 * the swap cache, never the SWP_SYNCHRONOUS_IO (zram) path, as in those
 * kernels; the framework checks which path a swap-in took.
 *
 * The inactive:active target is a separate knob (aws_inactive_ratio()):
 * the seed made it 1:1 for anon and later restored the sqrt rule.
 */
#ifndef _AWS_CORE_H
#define _AWS_CORE_H

#include <linux/types.h>

/* -EINVAL without <linux/errno.h>; EINVAL is 22 on every Linux arch. */
#define AWS_EINVAL		22

#define AWS_BITS_PER_LONG	((unsigned int)(8 * sizeof(unsigned long)))

/* ARRAY_SIZE() without <linux/kernel.h>, for the userspace build. */
#define AWS_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Local bit helpers: the kernel's fls_long()/ilog2() are not available to
 * the userspace build.
 */

/*
 * 1-based index of the most significant set bit, 0 for x == 0. The
 * builtin is a compiler intrinsic (one instruction on common targets), not
 * a library call.
 */
static inline unsigned int aws_fls_long(unsigned long x)
{
	return x ? AWS_BITS_PER_LONG - (unsigned int)__builtin_clzl(x) : 0;
}

/* Lowest @bits bits set; valid for 0 <= bits <= AWS_BITS_PER_LONG. */
static inline unsigned long aws_low_mask(unsigned int bits)
{
	if (bits >= AWS_BITS_PER_LONG)
		return ~0UL;
	return (1UL << bits) - 1;
}

/*
 *		Names and parameters
 */

/*
 * Longest policy name, without the terminating NUL: room for "b" and the
 * longest module policy's name, the name of its BPF build.
 */
#define AWS_POLICY_NAME_MAX	15

/*
 * Strip the single '\n' that echo(1) appends to a sysfs write. Anything
 * else (a second newline, spaces, a NUL) is left in place so that the
 * caller rejects it: a parameter should read back exactly as written.
 */
static inline size_t aws_strip_newline(const char *buf, size_t len)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return len;
}

/* Exact match of buf[0..len) against a NUL-terminated @word. */
static inline bool aws_word_eq(const char *buf, size_t len, const char *word)
{
	size_t i;

	for (i = 0; i < len; i++) {
		/* word[i] == '\0' means @word is shorter: mismatch */
		if (word[i] == '\0' || buf[i] != word[i])
			return false;
	}
	return word[len] == '\0';
}

/*
 *		Inactive:active ratio
 */

#define AWS_RATIO_AUTO		0
#define AWS_RATIO_MAX		1024

/*
 * Parse "auto" or a canonical decimal 1..AWS_RATIO_MAX. Leading zeros are
 * refused so that "010" cannot be mistaken for octal, and the digit loop
 * stops as soon as the value exceeds the maximum, so nothing overflows.
 */
static inline int aws_ratio_parse(const char *buf, size_t len,
				  unsigned int *out)
{
	unsigned int val = 0;
	size_t i;

	len = aws_strip_newline(buf, len);
	if (!len)
		return -AWS_EINVAL;

	if (aws_word_eq(buf, len, "auto")) {
		*out = AWS_RATIO_AUTO;
		return 0;
	}

	if (buf[0] == '0')
		return -AWS_EINVAL;

	for (i = 0; i < len; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -AWS_EINVAL;
		val = val * 10 + (unsigned int)(buf[i] - '0');
		if (val > AWS_RATIO_MAX)
			return -AWS_EINVAL;
	}

	*out = val;
	return 0;
}

/*
 * The anon list is "low" when inactive * ratio < active. @stock_ratio is
 * what 6.1's inactive_is_low() computed (int_sqrt(10 * GiB), or 1 below
 * 1 GiB); AWS_RATIO_AUTO keeps it, any other value overrides it (1 is the
 * seed's 1:1). Never return 0: that would make the inactive list never
 * low and stop deactivation altogether.
 */
static inline unsigned long aws_inactive_ratio(unsigned int ratio_param,
					       unsigned long stock_ratio)
{
	if (ratio_param == AWS_RATIO_AUTO)
		return stock_ratio ? stock_ratio : 1;
	if (ratio_param > AWS_RATIO_MAX)
		return AWS_RATIO_MAX;
	return ratio_param;
}

/* Which non-resident clock a policy's anon events age and stamp. */
enum aws_clock {
	AWS_CLOCK_NONE,		/* anon events age nothing */
	AWS_CLOCK_ANON,		/* the module's private anon clock */
	AWS_CLOCK_SHARED,	/* the stock shared nonresident_age */
};

/*
 *		Shadow entries
 */

struct aws_shadow_layout {
	unsigned int value_bits;	/* BITS_PER_XA_VALUE */
	unsigned int node_bits;		/* NODES_SHIFT */
	unsigned int memcg_bits;	/* MEM_CGROUP_ID_SHIFT, or 0 */
	unsigned int bucket_order;	/* clock bits dropped per stamp */
	unsigned int eviction_bits;	/* derived: timestamp width */
	unsigned long eviction_mask;	/* derived: low eviction_bits set */
	unsigned int tag_bits;		/* above the stamp; 0 unless reserved */
};

/*
 * Derive the timestamp width. Refuse layouts that do not fit an xarray
 * value (at most BITS_PER_LONG - 1 bits), that leave no timestamp bit, or
 * whose bucket_order would push an unpacked stamp past the top of an
 * unsigned long (stock keeps bucket_order + eviction_bits <= max_order).
 */
static inline int aws_layout_init(struct aws_shadow_layout *l,
				  unsigned int value_bits,
				  unsigned int node_bits,
				  unsigned int memcg_bits,
				  unsigned int bucket_order)
{
	unsigned int eviction_bits;

	if (value_bits > AWS_BITS_PER_LONG - 1)
		return -AWS_EINVAL;
	/* each term is checked on its own so the sum cannot wrap */
	if (node_bits >= value_bits || memcg_bits >= value_bits ||
	    1 + node_bits + memcg_bits >= value_bits)
		return -AWS_EINVAL;

	eviction_bits = value_bits - 1 - node_bits - memcg_bits;
	if (bucket_order > AWS_BITS_PER_LONG - eviction_bits)
		return -AWS_EINVAL;

	l->value_bits = value_bits;
	l->node_bits = node_bits;
	l->memcg_bits = memcg_bits;
	l->bucket_order = bucket_order;
	l->eviction_bits = eviction_bits;
	l->eviction_mask = aws_low_mask(eviction_bits);
	l->tag_bits = 0;
	return 0;
}

/*
 * Take the top @bits of the timestamp for a tag (struct aws_shadow's tag).
 * At least one timestamp bit must be left.
 */
static inline int aws_layout_reserve_tag(struct aws_shadow_layout *l,
					 unsigned int bits)
{
	if (l->tag_bits || bits >= l->eviction_bits)
		return -AWS_EINVAL;
	l->tag_bits = bits;
	l->eviction_bits -= bits;
	l->eviction_mask = aws_low_mask(l->eviction_bits);
	return 0;
}

/*
 * Enough granularity to tell apart every distance up to the whole of
 * memory: drop as many low clock bits as the timestamp is short of
 * covering totalram pages. Computed like workingset_init() so module and
 * stock shadows share one bucket size.
 */
static inline unsigned int aws_bucket_order(unsigned long totalram_pages,
					    unsigned int eviction_bits)
{
	unsigned int max_order = aws_fls_long(totalram_pages - 1);

	return max_order > eviction_bits ? max_order - eviction_bits : 0;
}

struct aws_shadow {
	unsigned long eviction;	/* full clock value, not yet shifted */
	unsigned int memcgid;
	unsigned int nid;
	bool workingset;
	unsigned long tag;	/* tag_bits wide */
};

/*
 * The result stays below 2^value_bits whatever the inputs: the stamp is
 * masked to its width and the ids to theirs, so xa_mk_value() never
 * warns and a bogus id can never spill into a neighbouring field.
 */
static inline unsigned long aws_pack_shadow(const struct aws_shadow_layout *l,
					    const struct aws_shadow *s)
{
	unsigned long v;

	v = s->tag & aws_low_mask(l->tag_bits);
	v = (v << l->eviction_bits) |
	    ((s->eviction >> l->bucket_order) & l->eviction_mask);
	v = (v << l->memcg_bits) | (s->memcgid & aws_low_mask(l->memcg_bits));
	v = (v << l->node_bits) | (s->nid & aws_low_mask(l->node_bits));
	v = (v << 1) | (s->workingset ? 1 : 0);
	return v;
}

static inline void aws_unpack_shadow(const struct aws_shadow_layout *l,
				     unsigned long value, struct aws_shadow *s)
{
	s->workingset = value & 1;
	value >>= 1;
	s->nid = value & aws_low_mask(l->node_bits);
	value >>= l->node_bits;
	s->memcgid = value & aws_low_mask(l->memcg_bits);
	value >>= l->memcg_bits;
	s->eviction = (value & l->eviction_mask) << l->bucket_order;
	value >>= l->eviction_bits;
	s->tag = value & aws_low_mask(l->tag_bits);
}

/*
 * Clock ticks between eviction and now, in whole buckets. Subtracting the
 * truncated values and masking the difference gives the right answer even
 * when the clock or the stamp wrapped in between (modular arithmetic), as
 * long as fewer than 2^eviction_bits buckets passed.
 *
 * Stock 6.1 masks the unshifted difference instead; the two agree when
 * bucket_order is 0, which is every machine below 2^36 pages.
 */
static inline unsigned long
aws_refault_distance(const struct aws_shadow_layout *l, unsigned long now,
		     unsigned long eviction)
{
	unsigned long delta;

	delta = (now >> l->bucket_order) - (eviction >> l->bucket_order);
	return (delta & l->eviction_mask) << l->bucket_order;
}

/*
 * The full clock value a @stamp truncated to @l's width stands for: the
 * latest one, not after @now, that truncates to it (both unshifted). Exact
 * for every stamp less than 2^eviction_bits buckets old, across a wrap of
 * the clock too; an older one aliases, as any stamp does.
 */
static inline unsigned long
aws_stamp_extend(const struct aws_shadow_layout *l, unsigned long now,
		 unsigned long stamp)
{
	unsigned long back = aws_refault_distance(l, now, stamp) >>
			     l->bucket_order;

	return ((now >> l->bucket_order) - back) << l->bucket_order;
}

/*
 * The kind bit of a shadow value: the top bit of the stamp field of @raw,
 * the layout with no tag.
 */
static inline bool aws_shadow_kind(const struct aws_shadow_layout *raw,
				   unsigned long value)
{
	unsigned int top = 1 + raw->node_bits + raw->memcg_bits +
			   raw->eviction_bits - 1;

	return (value >> top) & 1;
}

/*
 * Whether a sweep of the shadows that the policy tagged @stamper stamped
 * on the lruvecs of @memcgs (a bitmap of memcg ids; NULL: of any memcg)
 * takes the shadow @value: a policy shadow (@raw's kind bit set) whose
 * tag, in layout @l, has @stamper in its low @policy_bits bits, and whose
 * memcg id is in @memcgs, which must have a bit for every id @l's memcg
 * field can hold (1 << memcg_bits).  A stock shadow never: stock judges
 * it, on the shared clock, whoever runs.
 */
static inline bool aws_sweep_takes(const struct aws_shadow_layout *raw,
				   const struct aws_shadow_layout *l,
				   unsigned int policy_bits,
				   unsigned int stamper,
				   const unsigned long *memcgs,
				   unsigned long value)
{
	struct aws_shadow s;

	if (!aws_shadow_kind(raw, value))
		return false;
	aws_unpack_shadow(l, value, &s);
	if ((s.tag & aws_low_mask(policy_bits)) != stamper)
		return false;
	return !memcgs || ((memcgs[s.memcgid / AWS_BITS_PER_LONG] >>
			    (s.memcgid % AWS_BITS_PER_LONG)) & 1);
}

/* The LRU sizes of one lruvec, as a refault decision sees them. */
struct aws_lru_sizes {
	unsigned long active_anon;
	unsigned long inactive_anon;
	unsigned long active_file;
	unsigned long inactive_file;
	bool swap_available;
	/* which lruvec: its memory cgroup's id (0 with memcg disabled), node */
	unsigned int memcg_id;
	unsigned int nid;
};

/*
 *		Refault distance histogram
 *
 * Distances are reported relative to the workingset size on a log2 scale:
 * bucket i < 17 counts refaults with distance / ws < 2^(i - 8) that did
 * not fit a lower bucket, bucket 17 everything beyond 2^8 (and ws == 0).
 * The boundaries are exact: both sides are compared as integers, shifting
 * whichever side gets bigger and treating a shift that would overflow as
 * "larger than anything representable".
 */
#define AWS_HIST_MIN_LOG	(-8)
#define AWS_HIST_MAX_LOG	8
#define AWS_HIST_BUCKETS	18

/* distance < ws * 2^k, exactly, for -8 <= k <= 8 */
static inline bool aws_dist_below(unsigned long distance, unsigned long ws,
				  int k)
{
	unsigned int s;

	if (k < 0) {
		/* d < ws / 2^s  <=>  d * 2^s < ws (both sides exact) */
		s = -k;
		if (distance > (~0UL >> s))
			return false;	/* d * 2^s exceeds any ws */
		return (distance << s) < ws;
	}
	s = k;
	if (ws > (~0UL >> s))
		return true;		/* ws * 2^s exceeds any distance */
	return distance < (ws << s);
}

/*
 * With bit lengths ld and lw, 2^(ld-1) <= d < 2^ld and 2^(lw-1) <= ws < 2^lw,
 * so d / ws lies in (2^(ld-lw-1), 2^(ld-lw+1)): the first k with
 * d < ws * 2^k is ld - lw or ld - lw + 1, and one exact comparison tells
 * which. This runs on every refault, hence no loop over the buckets.
 */
static inline unsigned int aws_hist_bucket(unsigned long distance,
					   unsigned long workingset_size)
{
	int k;

	if (!workingset_size)
		return AWS_HIST_BUCKETS - 1;
	if (!distance)
		return 0;	/* the bit-length bound needs d >= 1 */

	k = (int)aws_fls_long(distance) - (int)aws_fls_long(workingset_size);
	if (k < AWS_HIST_MIN_LOG)
		return 0;
	if (k > AWS_HIST_MAX_LOG)
		return AWS_HIST_BUCKETS - 1;
	if (!aws_dist_below(distance, workingset_size, k))
		k++;
	/* k <= AWS_HIST_MAX_LOG + 1 lands in the overflow bucket */
	return k - AWS_HIST_MIN_LOG;
}

static inline int aws_hist_bucket_log(unsigned int bucket)
{
	if (bucket >= AWS_HIST_BUCKETS - 1)
		return AWS_HIST_MAX_LOG + 1;
	return (int)bucket + AWS_HIST_MIN_LOG;
}

#endif /* _AWS_CORE_H */
