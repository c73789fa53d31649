/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * recycle: Linux's page_pool in front of bh. Per poll lcore an alloc cache
 * the owner alone touches, in its bh section, and a ptr_ring.
 *
 * - recycle_alloc() is page_pool_alloc_pages(): the cache, refilled from
 *   the ring (page_pool_refill_alloc_cache(), remote frames waived), then
 *   in bulk from the bh pcp (__page_pool_alloc_pages_slow()).
 * - recycle_free() is page_pool_put_page(): the owner's frames to the
 *   cache, the ring, then the pcp; others' to the ring (tried), else the
 *   deferred list, where page_pool would free them to the allocator.
 *
 * The cache is a lib/pcp stack, so the owner's fast path runs inline.
 */

#include <errno.h>

#include <rte_malloc.h>

#include "rxr_pool_private.h"

/* page_pool's counters, one line each: X(name, help). */
#define RECYCLE_COUNTERS(X) \
	X(alloc_fast, "frames served from the alloc cache") \
	X(alloc_slow, "refills from the pcp (bulk)") \
	X(alloc_empty, "refills that found ring and pcp empty") \
	X(alloc_refill, "refills of the cache from the ring") \
	X(alloc_waive, "remote-node frames sent to their zone") \
	X(recycle_cached, "owner frees kept in the cache") \
	X(recycle_cache_full, "owner frees that found it full") \
	X(recycle_ring, "frees put in the ring") \
	X(recycle_ring_full, "frees that found the ring full") \
	X(recycle_released_refcnt, \
		"frames released to the allocator instead of recycled")

RXRP_COUNTERS_DEFINE(RECYCLE_COUNTERS, recycle_counters);

/* Bounded multi-producer, single-consumer ring of frames (ptr_ring). */
struct ptr_ring {
	struct rxr_spinlock producer_lock;
	uint32_t producer;		/* next slot to fill, under the lock */
	uint64_t produced;		/* under the lock */
	uint64_t full;			/* frames that found no slot, same */
	uint32_t consumer __rte_cache_aligned; /* owner only */
	uint32_t mask;
	void **slots;			/* NULL = empty */
};

/* A poll lcore's page_pool, in rxrp_lcore.owner_data. */
struct page_pool {
	struct rxr_pcp *cache;		/* the alloc cache, owner only */
	uint32_t refill;		/* frames per refill of the cache */
	uint64_t refilled;		/* pushed onto the cache by refills */
	uint64_t emptied;		/* taken off it by drains */
	uint64_t stats[RXRP_NB_COUNTERS]; /* the owner's */
	struct ptr_ring ring;
};

/* Per poll lcore, other contexts' count: what they had to release. */
struct recycle_lcore {
	uint64_t released_remote;	/* atomic */
};
RXRP_LCORE_PRIV_CHECK(struct recycle_lcore);

#define PP_STAT(pp, name, v) RXR_STAT_ADD((pp)->stats[RXRP_C_##name], v)

static inline struct page_pool *
pp_of(const struct rxrp_lcore *ls)
{
	return ls->owner_data;
}

/* ptr_ring_produce(), the lock only tried. @return frames produced. */
static unsigned int
ring_produce(struct ptr_ring *r, void * const *objs, unsigned int n)
{
	unsigned int i;

	if (!rxr_spinlock_trylock(&r->producer_lock))
		return 0;
	for (i = 0; i < n; i++) {
		void **slot = &r->slots[r->producer & r->mask];

		/* The consumer clears a slot only after it read it. */
		if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != NULL)
			break;
		__atomic_store_n(slot, objs[i], __ATOMIC_RELEASE);
		r->producer++;
	}
	RXR_STAT_ADD(r->produced, i);
	RXR_STAT_ADD(r->full, n - i);
	rxr_spinlock_unlock(&r->producer_lock);
	return i;
}

/* ptr_ring_consume_batched(), by the owner. @return frames taken. */
static unsigned int
ring_consume(struct ptr_ring *r, void **objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		void **slot = &r->slots[r->consumer & r->mask];
		void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

		if (f == NULL)
			break;
		objs[i] = f;
		__atomic_store_n(slot, NULL, __ATOMIC_RELEASE);
		r->consumer++;
	}
	return i;
}

/* Onto the cache by a refill (not an owner free: not recycle_cached). */
static inline void
cache_fill(struct page_pool *pp, void * const *objs, unsigned int n)
{
	rxr_pcp_push(pp->cache, objs, n);
	RXR_STAT_ADD(pp->refilled, n);
}

/* page_pool_refill_alloc_cache(): the ring into the cache, waiving
 * remote frames. @return frames taken off the ring. */
static unsigned int
cache_refill_from_ring(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	struct page_pool *pp = pp_of(ls);
	struct rxr_pcp *c = pp->cache;
	void *tmp[RXRP_CHUNK];
	unsigned int got, k = 0;

	got = ring_consume(&pp->ring, tmp, RTE_MIN(RTE_MIN(pp->refill,
		c->high - c->count), (uint32_t)RXRP_CHUNK));
	if (got == 0)
		return 0;
	PP_STAT(pp, alloc_refill, 1);
	for (unsigned int i = 0; i < got; i++) {
		unsigned int node = rxrp_frame_node(p, tmp[i]);

		if (unlikely(node != ls->node)) {
			rxr_zone_free(p->zone[node], tmp[i], 0);
			PP_STAT(pp, alloc_waive, 1);
			continue;
		}
		tmp[k++] = tmp[i];
	}
	cache_fill(pp, tmp, k);
	return got;
}

/* __page_pool_alloc_pages_slow(): a refill's worth from the pcp (at least
 * n; just n when the zone is short). @return 0, or -ENOBUFS. */
static int
cache_refill_from_pcp(struct rxrp_lcore *ls, unsigned int n)
{
	struct page_pool *pp = pp_of(ls);
	struct rxr_pcp *c = pp->cache;
	unsigned int want = c->count + RTE_MAX(RTE_MIN(pp->refill,
		c->high - c->count), n - c->count);
	void *tmp[RXRP_CHUNK];

	while (c->count < want) {
		unsigned int k = RTE_MIN(want - c->count, (uint32_t)RXRP_CHUNK);

		if (rxr_pcp_alloc_bulk(ls->pcp, tmp, k) == 0) {
			cache_fill(pp, tmp, k);
		} else if (want > n && c->count < n) {
			want = n;
		} else {
			break;
		}
	}
	if (c->count < n) {
		PP_STAT(pp, alloc_empty, 1);
		return -ENOBUFS;
	}
	PP_STAT(pp, alloc_slow, 1);
	return 0;
}

/* The cache short: the ring, the deferred frees, the pcp. */
static __rte_noinline int
recycle_alloc_slow(struct rxr_pool *p, struct rxrp_lcore *ls, void **objs,
		unsigned int n)
{
	struct page_pool *pp = pp_of(ls);
	struct rxr_pcp *c = pp->cache;

	if (unlikely(n > c->high)) {
		/* Larger than the cache: straight from the pcp. */
		if (rxr_pcp_alloc_bulk(ls->pcp, objs, n) != 0) {
			PP_STAT(pp, alloc_empty, 1);
			return -ENOBUFS;
		}
		PP_STAT(pp, alloc_slow, 1);
		return 0;
	}
	while (c->count < n && cache_refill_from_ring(p, ls) != 0)
		;
	/* Frames released the bh way, before the pcp goes to the zone. */
	if (c->count < n && ls->pcp->count < n - c->count &&
			rxrp_defer_count(ls) != 0)
		rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	if (c->count < n && cache_refill_from_pcp(ls, n) != 0)
		return -ENOBUFS;
	rxr_pcp_pop(c, objs, n);
	return 0;
}

/* page_pool_alloc_pages(): the cache under the bh section; others the zone. */
static int
recycle_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	int ret = 0;

	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_alloc_frames(p, objs, n);
	if (unlikely(ls == NULL)) {
		ret = rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n);
	} else {
		rxr_pool_bh_disable(ls->bh);
		if (unlikely(!rxr_pcp_pop(pp_of(ls)->cache, objs, n)))
			ret = recycle_alloc_slow(p, ls, objs, n);
		rxr_pool_bh_enable(ls->bh);
	}
	return likely(ret == 0) ? 0 : rxrp_alloc_failed(p, objs, n);
}

/* The owner's local frames: the cache, then the ring, then the pcp. */
static void
recycle_free_local(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n)
{
	struct page_pool *pp = pp_of(ls);
	unsigned int k = RTE_MIN(n, pp->cache->high - pp->cache->count), r;

	rxr_pcp_push(pp->cache, objs, k);
	if (likely(k == n))
		return;
	PP_STAT(pp, recycle_cache_full, n - k);
	r = ring_produce(&pp->ring, objs + k, n - k);
	if (k + r == n)
		return;
	PP_STAT(pp, recycle_released_refcnt, n - k - r);
	rxr_pcp_free_bulk(ls->pcp, objs + k + r, n - k - r);
}

static int
recycle_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	struct recycle_lcore *rl;
	unsigned int done;

	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_free_frames(p, objs, n);
	if (likely(ls != NULL)) {
		rxr_pool_bh_disable(ls->bh);
		rxrp_split_local(p, ls, objs, n, recycle_free_local);
		rxr_pool_bh_enable(ls->bh);
		return 0;
	}
	/* Another context: the owner's ring, else released the bh way. */
	ls = rxrp_task_target(p);
	rl = rxrp_lcore_priv(ls);
	done = ring_produce(&pp_of(ls)->ring, objs, n);
	if (done != n) {
		__atomic_fetch_add(&rl->released_remote, n - done,
			__ATOMIC_RELAXED);
		rxrp_defer_push(p, ls, objs + done, n - done);
	}
	return 0;
}

/* Up to RXRP_CHUNK frames for a drain: off the cache (not an alloc), then
 * off the ring. */
static unsigned int
pp_take(struct page_pool *pp, void **tmp)
{
	unsigned int k = RTE_MIN(pp->cache->count, (uint32_t)RXRP_CHUNK);

	if (k == 0)
		return ring_consume(&pp->ring, tmp, RXRP_CHUNK);
	rxr_pcp_pop(pp->cache, tmp, k);
	RXR_STAT_ADD(pp->emptied, k);
	return k;
}

/* The pool's reclaim, the owner kept out: cache and ring to the zone. */
static unsigned int
recycle_reclaim_caches(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	void *tmp[RXRP_CHUNK];
	unsigned int got, total = 0;

	while ((got = pp_take(pp_of(ls), tmp)) != 0) {
		rxrp_zone_free(p, tmp, got);
		total += got;
	}
	return total;
}

/* Quiet: cache and ring to the pcp, then all to the zone, in the section. */
static unsigned int
recycle_drain(struct rxr_pool *p, struct rxrp_lcore *ls, bool quiet)
{
	void *tmp[RXRP_CHUNK];
	unsigned int got;

	if (ls == NULL || pp_of(ls) == NULL)
		return 0;
	if (!quiet)
		return rxrp_bh_reclaim(p, ls, recycle_reclaim_caches);
	rxr_pool_bh_disable(ls->bh);
	while ((got = pp_take(pp_of(ls), tmp)) != 0)
		rxrp_split_local(p, ls, tmp, got, rxrp_pcp_free_owner);
	got = rxrp_lcore_drain(p, ls);
	rxr_pool_bh_enable(ls->bh);
	return got;
}

/* page_pool's defaults; the ring's limit is page_pool_init()'s. */
enum { RECYCLE_S_cache, RECYCLE_S_refill, RECYCLE_S_ring };

static const struct rxr_strategy_setting recycle_settings[] = {
	[RECYCLE_S_cache] = { .name = "cache", .def = 128, .min = 1,
		.max = 8192, .holds_frames = true,
		.help = "frames in the owner's alloc cache (page_pool's "
			"PP_ALLOC_CACHE_SIZE)" },
	[RECYCLE_S_refill] = { .name = "refill", .def = 64, .min = 1,
		.max = 8192, .at_most = "cache",
		.help = "frames per refill of the cache, at most cache "
			"(default: PP_ALLOC_CACHE_REFILL, or cache when "
			"smaller)" },
	[RECYCLE_S_ring] = { .name = "ring", .def = 1024, .min = 1,
		.max = 32768, .holds_frames = true, .pow2 = true,
		.help = "slots of the ring that takes frames freed by other "
			"contexts, rounded up to a power of two (page_pool's "
			"pool_size)" },
	{ .name = NULL },
};

static void
recycle_fini(struct rxr_pool *p)
{
	struct rxrp_lcore *ls;

	RXRP_FOREACH_LCORE(p, ls, lc) {
		struct page_pool *pp = pp_of(ls);

		if (pp == NULL)
			continue;
		rxr_pcp_destroy(pp->cache);
		rte_free(pp->ring.slots);
		rte_free(pp);
		ls->owner_data = NULL;
	}
}

/* A page_pool per poll lcore; its alloc cache is the inline path's stack. */
static int
recycle_init(struct rxr_pool *p)
{
	const uint32_t *set = p->conf.settings;
	struct rxrp_lcore *ls;

	RXRP_FOREACH_LCORE(p, ls, lc) {
		int socket = rxr_zone_socket(p->zone[ls->node]);
		struct page_pool *pp;

		pp = rte_zmalloc_socket("rxr_page_pool", sizeof(*pp),
				RTE_CACHE_LINE_SIZE, socket);
		if (pp == NULL)
			return -ENOMEM;
		ls->owner_data = pp;
		pp->refill = set[RECYCLE_S_refill];
		pp->cache = rxr_pcp_create(p->zone[ls->node],
				set[RECYCLE_S_cache], set[RECYCLE_S_refill],
				socket);
		pp->ring.slots = rte_zmalloc_socket("rxr_ptr_ring",
				set[RECYCLE_S_ring] * sizeof(void *),
				RTE_CACHE_LINE_SIZE, socket);
		if (pp->cache == NULL || pp->ring.slots == NULL)
			return -ENOMEM;
		pp->ring.mask = set[RECYCLE_S_ring] - 1;
		p->owner[lc].stack = pp->cache;
	}
	return 0;
}

static uint64_t
recycle_held(const struct rxr_pool *p, const struct rxrp_lcore *ls)
{
	const struct page_pool *pp;
	uint64_t n;

	if (ls == NULL || (pp = pp_of(ls)) == NULL)
		return 0;
	n = __atomic_load_n(&pp->cache->count, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i <= pp->ring.mask; i++)
		n += __atomic_load_n(&pp->ring.slots[i], __ATOMIC_RELAXED) !=
			NULL;
	return n;
}

static void
recycle_stats(const struct rxr_pool *p, const struct rxrp_lcore *ls,
		struct rxr_pool_lcore_stats *o)
{
	const struct recycle_lcore *rl = rxrp_lcore_priv(ls);
	const struct page_pool *pp = pp_of(ls);
	uint64_t *c = o->counters;

	for (unsigned int i = 0; i < RXRP_NB_COUNTERS; i++)
		c[i] += RXR_STAT_READ(pp->stats[i]);
	c[RXRP_C_alloc_fast] += RXR_STAT_READ(pp->cache->stats.alloc) -
		RXR_STAT_READ(pp->emptied);
	c[RXRP_C_recycle_cached] += RXR_STAT_READ(pp->cache->stats.free) -
		RXR_STAT_READ(pp->refilled);
	/* Producers from other contexts count under the producer lock. */
	c[RXRP_C_recycle_ring] += RXR_STAT_READ(pp->ring.produced);
	c[RXRP_C_recycle_ring_full] += RXR_STAT_READ(pp->ring.full);
	c[RXRP_C_recycle_released_refcnt] +=
		RXR_STAT_READ(rl->released_remote);
}

const struct rxrp_strategy rxrp_strategy_recycle = {
	.name = "recycle",
	.caps = RXR_STRATEGY_CAP_DEFERS_FREES | RXR_STRATEGY_CAP_OWNER_INLINE,
	.alloc = recycle_alloc,
	.free = recycle_free,
	.init = recycle_init,
	.fini = recycle_fini,
	.drain = recycle_drain,
	.held = recycle_held,
	.stats = recycle_stats,
	.counters = recycle_counters,
	.settings = recycle_settings,
};
