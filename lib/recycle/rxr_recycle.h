/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_RECYCLE_H
#define RXR_RECYCLE_H

/**
 * @file
 * page_pool-style recycling (net/core/page_pool.c), in front of the bh
 * strategy: per poll lcore an alloc cache for frames the owner frees, and a
 * bounded ptr_ring for frames returned from other contexts.
 *
 * The alloc cache is touched by its owner only, inside its bh section. The
 * ptr_ring has one consumer (the owner) and a producer lock, as ptr_ring's
 * producer_lock; a signal handler only ever trylocks it.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "rxr_spinlock.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RXR_RECYCLE_CACHE_SIZE 128u	/**< PP_ALLOC_CACHE_SIZE */
#define RXR_RECYCLE_CACHE_REFILL 64u	/**< PP_ALLOC_CACHE_REFILL */
#define RXR_RECYCLE_RING_SIZE 1024u	/**< page_pool's default pool_size */

/**
 * The recycling counters, named as page_pool names them, one line each:
 * X(name, help). struct rxr_recycle_stats, its snapshot and the counters
 * the recycle strategy reports (reports, telemetry, the metrics file) are
 * all made from this list; a new counter is one more line here.
 */
#define RXR_RECYCLE_COUNTERS(X) \
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

/** Index of each counter in RXR_RECYCLE_COUNTERS order. */
enum rxr_recycle_counter {
#define RXR_RECYCLE_ENUM(name, help) RXR_RECYCLE_C_##name,
	RXR_RECYCLE_COUNTERS(RXR_RECYCLE_ENUM)
#undef RXR_RECYCLE_ENUM
	RXR_RECYCLE_NB_COUNTERS,
};

/** Statistics, one field per line of RXR_RECYCLE_COUNTERS. */
struct rxr_recycle_stats {
#define RXR_RECYCLE_FIELD(name, help) uint64_t name;
	RXR_RECYCLE_COUNTERS(RXR_RECYCLE_FIELD)
#undef RXR_RECYCLE_FIELD
};

/** Bounded multi-producer, single-consumer ring of frame pointers. */
struct rxr_ptr_ring {
	struct rxr_spinlock producer_lock;
	uint32_t producer;		/**< next slot to fill, under the lock */
	uint32_t consumer __rte_cache_aligned; /**< owner only */
	uint32_t mask;
	void **slots;			/**< NULL = empty */
};

/**
 * Produce n frames with the producer lock held (ptr_ring_produce). Stops at
 * the first full slot. @return frames produced.
 */
static inline unsigned int
rxr_ptr_ring_produce_locked(struct rxr_ptr_ring *r, void * const *objs,
		unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		void **slot = &r->slots[r->producer & r->mask];

		/* The consumer clears a slot only after it read it. */
		if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != NULL)
			break;
		__atomic_store_n(slot, objs[i], __ATOMIC_RELEASE);
		r->producer++;
	}
	return i;
}

/** Consume up to n frames (owner only). @return frames taken. */
static inline unsigned int
rxr_ptr_ring_consume(struct rxr_ptr_ring *r, void **objs, unsigned int n)
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

/** Frames in the ring (exact when no producer runs). */
unsigned int rxr_ptr_ring_count(const struct rxr_ptr_ring *r);

/** The owner's alloc cache. */
struct rxr_alloc_cache {
	uint32_t count;
	uint32_t size;
	uint32_t refill;
	void **frames;
};

/** Per poll lcore recycling state. */
struct rxr_page_pool {
	struct rxr_alloc_cache cache;	/**< owner only */
	struct rxr_recycle_stats stats;	/**< owner's counters */
	struct rxr_ptr_ring ring;
	uint64_t ring_produced;		/**< under producer_lock */
	uint64_t ring_full;		/**< under producer_lock */
};

/**
 * Create recycling state with a cache of cache_size, refilled refill at a
 * time, and a ring of ring_size (rounded up to a power of two).
 * @return NULL with rte_errno set on failure.
 */
struct rxr_page_pool *rxr_page_pool_create(uint32_t cache_size,
		uint32_t refill, uint32_t ring_size, int socket_id);

/** Free recycling state; the caller has taken every frame out first. */
void rxr_page_pool_destroy(struct rxr_page_pool *pp);

/** Relaxed snapshot of the counters, ring counters included. */
void rxr_page_pool_stats(const struct rxr_page_pool *pp,
		struct rxr_recycle_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* RXR_RECYCLE_H */
