/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rxr_recycle.h"

unsigned int
rxr_ptr_ring_count(const struct rxr_ptr_ring *r)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i <= r->mask; i++)
		n += __atomic_load_n(&r->slots[i], __ATOMIC_RELAXED) != NULL;
	return n;
}

struct rxr_page_pool *
rxr_page_pool_create(uint32_t cache_size, uint32_t refill, uint32_t ring_size,
		int socket_id)
{
	struct rxr_page_pool *pp;
	uint32_t slots = rte_align32pow2(RTE_MAX(ring_size, 2u));

	if (cache_size == 0 || refill == 0 || refill > cache_size ||
			ring_size == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	pp = rte_zmalloc_socket("rxr_page_pool", sizeof(*pp),
			RTE_CACHE_LINE_SIZE, socket_id);
	if (pp == NULL)
		goto nomem;
	pp->cache.frames = rte_malloc_socket("rxr_alloc_cache",
			cache_size * sizeof(void *), RTE_CACHE_LINE_SIZE, socket_id);
	pp->ring.slots = rte_zmalloc_socket("rxr_ptr_ring",
			slots * sizeof(void *), RTE_CACHE_LINE_SIZE, socket_id);
	if (pp->cache.frames == NULL || pp->ring.slots == NULL)
		goto nomem;
	pp->cache.size = cache_size;
	pp->cache.refill = refill;
	pp->ring.mask = slots - 1;
	return pp;
nomem:
	rxr_page_pool_destroy(pp);
	rte_errno = ENOMEM;
	return NULL;
}

void
rxr_page_pool_destroy(struct rxr_page_pool *pp)
{
	if (pp == NULL)
		return;
	rte_free(pp->cache.frames);
	rte_free(pp->ring.slots);
	rte_free(pp);
}

void
rxr_page_pool_stats(const struct rxr_page_pool *pp,
		struct rxr_recycle_stats *st)
{
#define RXR_RECYCLE_READ(name, help) \
	st->name = __atomic_load_n(&pp->stats.name, __ATOMIC_RELAXED);
	RXR_RECYCLE_COUNTERS(RXR_RECYCLE_READ)
#undef RXR_RECYCLE_READ
	/* Producers from other contexts count under the producer lock. */
	st->recycle_ring += RXR_STAT_READ(pp->ring_produced);
	st->recycle_ring_full += RXR_STAT_READ(pp->ring_full);
}
