/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * recycle: page_pool in front of bh. The owner allocates from its alloc
 * cache, refilled from the ptr_ring (frames other contexts returned), then
 * from the pcp in bulk; frames of another node found in the ring are waived
 * to their zone. The owner's frees go to the cache, then the ring; other
 * contexts' frees go to the ring. What does not fit is released to the
 * allocator the bh way, and the owner collects it before its pcp would go
 * to the zone.
 */

#include <errno.h>
#include <string.h>

#include "rxr_pool_private.h"

/* Ring -> cache, waiving remote frames. @return frames taken off the ring. */
static unsigned int
cache_refill_from_ring(struct rxr_pool *p, struct pool_lcore *ls)
{
	struct rxr_page_pool *pp = ls->pp;
	struct rxr_alloc_cache *c = &pp->cache;
	void *tmp[CHUNK];
	unsigned int want = RTE_MIN(RTE_MIN(c->refill, c->size - c->count),
			(uint32_t)CHUNK);
	unsigned int got = rxr_ptr_ring_consume(&pp->ring, tmp, want);

	if (got == 0)
		return 0;
	RXR_STAT_ADD(pp->stats.alloc_refill, 1);
	for (unsigned int i = 0; i < got; i++) {
		unsigned int node = frame_node(p, tmp[i]);

		if (unlikely(node != ls->node)) {
			rxr_zone_free(p->zone[node], tmp[i], 0);
			RXR_STAT_ADD(pp->stats.alloc_waive, 1);
			continue;
		}
		c->frames[c->count++] = tmp[i];
	}
	return got;
}

static int
recycle_owner_alloc(struct rxr_pool *p, struct pool_lcore *ls, void **objs,
		unsigned int n)
{
	struct rxr_page_pool *pp = ls->pp;
	struct rxr_alloc_cache *c = &pp->cache;
	unsigned int room, k;

	if (likely(c->count >= n))
		goto fast;
	if (unlikely(n > c->size)) {
		/* Larger than the cache: straight from the pcp. */
		if (rxr_pcp_alloc_bulk(ls->pcp, objs, n) != 0) {
			RXR_STAT_ADD(pp->stats.alloc_empty, 1);
			return -ENOBUFS;
		}
		RXR_STAT_ADD(pp->stats.alloc_slow, 1);
		return 0;
	}
	while (c->count < n && cache_refill_from_ring(p, ls) != 0)
		;
	if (c->count < n && ls->pcp->count < n - c->count &&
			pool_defer_count(ls) != 0)
		pool_defer_drain(p, ls, bh_pcp_free);
	if (c->count < n) {
		room = c->size - c->count;
		k = RTE_MIN(c->refill, room);
		if (k < n - c->count || rxr_pcp_alloc_bulk(ls->pcp,
				&c->frames[c->count], k) != 0) {
			k = n - c->count;
			if (rxr_pcp_alloc_bulk(ls->pcp, &c->frames[c->count],
					k) != 0) {
				RXR_STAT_ADD(pp->stats.alloc_empty, 1);
				return -ENOBUFS;
			}
		}
		c->count += k;
		RXR_STAT_ADD(pp->stats.alloc_slow, 1);
	}
fast:
	c->count -= n;
	memcpy(objs, &c->frames[c->count], n * sizeof(*objs));
	RXR_STAT_ADD(pp->stats.alloc_fast, n);
	return 0;
}

/* Produce into ls's ring without ever waiting. @return frames produced. */
static unsigned int
ring_produce(struct rxr_page_pool *pp, void * const *objs, unsigned int n)
{
	unsigned int done;

	if (!rxr_spinlock_trylock(&pp->ring.producer_lock))
		return 0;
	done = rxr_ptr_ring_produce_locked(&pp->ring, objs, n);
	RXR_STAT_ADD(pp->ring_produced, done);
	RXR_STAT_ADD(pp->ring_full, n - done);
	rxr_spinlock_unlock(&pp->ring.producer_lock);
	return done;
}

/* Owner frees of local frames: cache, then ring, then the pcp. */
static void
recycle_owner_free_local(struct rxr_pool *p, struct pool_lcore *ls,
		void * const *objs, unsigned int n)
{
	struct rxr_page_pool *pp = ls->pp;
	struct rxr_alloc_cache *c = &pp->cache;
	unsigned int k = RTE_MIN(n, c->size - c->count), r;

	memcpy(&c->frames[c->count], objs, k * sizeof(*objs));
	c->count += k;
	RXR_STAT_ADD(pp->stats.recycle_cached, k);
	if (likely(k == n))
		return;
	RXR_STAT_ADD(pp->stats.recycle_cache_full, n - k);
	r = ring_produce(pp, objs + k, n - k);
	if (k + r == n)
		return;
	RXR_STAT_ADD(pp->stats.recycle_released_refcnt, n - k - r);
	rxr_pcp_free_bulk(ls->pcp, objs + k + r, n - k - r);
}

static int
recycle_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct pool_lcore *ls = owner_lcore(p);
	int ret;

	if (unlikely(ls == NULL))
		return pool_zone_alloc(p, ctx_node(p), objs, n, true);
	bh_disable(ls);
	ret = recycle_owner_alloc(p, ls, objs, n);
	bh_enable(ls);
	return ret;
}

static void
recycle_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct pool_lcore *ls = owner_lcore(p);
	unsigned int done;

	if (likely(ls != NULL)) {
		bh_disable(ls);
		split_local(p, ls, objs, n, recycle_owner_free_local);
		bh_enable(ls);
		return;
	}
	/* Another context: the owner's ring, else release the bh way. */
	ls = task_target(p);
	done = ring_produce(ls->pp, objs, n);
	if (done == n)
		return;
	__atomic_fetch_add(&ls->released_remote, n - done, __ATOMIC_RELAXED);
	pool_defer_push(p, ls, objs + done, n - done);
}

static int
recycle_alloc_single(struct rxr_pool *p, void **objs, unsigned int n)
{
	return per_frame_alloc(p, objs, n, recycle_alloc_bulk,
			recycle_free_bulk);
}

static void
recycle_free_single(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	per_frame_free(p, objs, n, recycle_free_bulk);
}

void
recycle_flush(struct rxr_pool *p, struct pool_lcore *ls)
{
	struct rxr_page_pool *pp = ls->pp;
	void *tmp[CHUNK];
	unsigned int got;

	bh_disable(ls);
	rxr_pcp_free_bulk(ls->pcp, pp->cache.frames, pp->cache.count);
	pp->cache.count = 0;
	while ((got = rxr_ptr_ring_consume(&pp->ring, tmp, CHUNK)) != 0)
		split_local(p, ls, tmp, got, bh_pcp_free);
	bh_enable(ls);
}

unsigned int
recycle_reclaim(struct rxr_pool *p, struct pool_lcore *ls)
{
	struct rxr_page_pool *pp = ls->pp;
	void *tmp[CHUNK];
	unsigned int got, total = pp->cache.count;

	pool_zone_free(p, pp->cache.frames, pp->cache.count, true);
	__atomic_store_n(&pp->cache.count, 0, __ATOMIC_RELAXED);
	while ((got = rxr_ptr_ring_consume(&pp->ring, tmp, CHUNK)) != 0) {
		pool_zone_free(p, tmp, got, true);
		total += got;
	}
	return total;
}

const struct rxr_pool_ops rxr_strategy_recycle_ops[2] = {
	{ recycle_alloc_single, recycle_free_single },
	{ recycle_alloc_bulk, recycle_free_bulk },
};
