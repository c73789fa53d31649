/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_PCP_H
#define RXR_PCP_H

/**
 * @file
 * The per-lcore page cache (Linux's per_cpu_pages): a LIFO of order-0
 * frames in front of a zone, with count, high and batch.
 *
 * - An alloc that wants more frames than the pcp holds gets every held
 *   frame plus the shortfall from the zone, and the pcp is refilled with
 *   batch frames, all in one lock hold (rmqueue_bulk). A single alloc is
 *   the same rule with n = 1.
 * - A free that would take count above high first returns the coldest
 *   frames to the zone in one lock hold (free_pcppages_bulk), a multiple of
 *   batch, enough to make room.
 * - Hot frames are at the top: the last frame freed is the first handed out.
 *
 * These functions give no protection at all: only the owner may call them.
 * The refill strategies put their critical sections around them.
 */

#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_memcpy.h>

#include "rxr_common.h"
#include "rxr_spinlock.h"
#include "rxr_zone.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default batch, as Linux's pageset batch on a large zone. */
#define RXR_PCP_BATCH_DEFAULT 63u
/** Default high, as Linux's 6 * batch. */
#define RXR_PCP_HIGH_DEFAULT (6u * RXR_PCP_BATCH_DEFAULT)

/**
 * The pcp counters, one line each: X(name, help). struct rxr_pcp_stats,
 * its snapshot and the pool's sums (rxr_pool_lcore_stats_add()) are made
 * from this list.
 */
#define RXR_PCP_COUNTERS(X) \
	X(alloc, "frames handed out") \
	X(alloc_miss, "alloc calls that went to the zone") \
	X(alloc_fail, "alloc calls the zone could not serve") \
	X(free, "frames taken back") \
	X(free_drain, "free calls that went to the zone") \
	X(refill_frames, "frames brought in from the zone") \
	X(alloc_zone_frames, "of those, handed straight to callers") \
	X(drain_frames, "frames given back to the zone")

/** pcp counters, one per line of RXR_PCP_COUNTERS; written by the owner. */
struct rxr_pcp_stats {
#define RXR_PCP_FIELD(name, help) uint64_t name;
	RXR_PCP_COUNTERS(RXR_PCP_FIELD)
#undef RXR_PCP_FIELD
};

/** A per-lcore page cache. */
struct rxr_pcp {
	uint32_t count;		/**< frames held */
	uint32_t high;		/**< most frames held after any call */
	uint32_t batch;		/**< zone transfer unit */
	/**
	 * Nesting counter of the owner's critical section, for strategies
	 * that guard the pcp with one (bh's local_bh_disable analog; bh and
	 * recycle). With drain_req below it is the bh section's state, not
	 * the pcp's, but it stays here: bh's inline owner path
	 * (rxr_pool_alloc_inline()) reads it, drain_req and count through
	 * the one pcp pointer. Moved into the owner descriptor (struct
	 * rxr_pool_owner), the path keeps both the descriptor and the pcp
	 * live: the driver's bulk dequeue and its enqueue then save one more
	 * callee-saved register, a push and a pop per call (objdump).
	 */
	uint32_t bh_count;
	/**
	 * Set by another thread that wants to empty this pcp while the
	 * owner is outside its section (the pool's reclaim); read by the
	 * owner on entering its outermost section.
	 */
	uint32_t drain_req;
	struct rxr_zone *zone;	/**< where frames come from and go back */
	struct rxr_pcp_stats stats;
	void *frames[] __rte_cache_aligned; /**< [0] coldest, [count-1] hottest */
};

/** Bytes a pcp with this high needs (for rxr_pcp_init() memory). */
size_t rxr_pcp_size(uint32_t high);

/**
 * Initialize a pcp in caller memory of rxr_pcp_size(high) bytes,
 * cache-line aligned.
 * @return 0, or -EINVAL when batch is 0 or high < batch.
 */
int rxr_pcp_init(struct rxr_pcp *pcp, struct rxr_zone *zone, uint32_t high,
		uint32_t batch);

/** Allocate and initialize a pcp on a socket. NULL with rte_errno set. */
struct rxr_pcp *rxr_pcp_create(struct rxr_zone *zone, uint32_t high,
		uint32_t batch, int socket_id);

/** Drain and free a pcp made by rxr_pcp_create(). */
void rxr_pcp_destroy(struct rxr_pcp *pcp);

/** Return every frame held to the zone in one lock hold (lcore stop). */
void rxr_pcp_drain(struct rxr_pcp *pcp);

/*
 * Slow paths: zone transfers, once per batch at most. Cold and out of line,
 * so that the owner's fast paths below stay a few instructions wherever
 * they are inlined.
 */
__rte_noinline __rte_cold void *__rxr_pcp_alloc_refill(struct rxr_pcp *pcp);
__rte_noinline __rte_cold int __rxr_pcp_alloc_bulk_refill(struct rxr_pcp *pcp,
		void **objs, unsigned int n);
__rte_noinline __rte_cold void __rxr_pcp_free_drain(struct rxr_pcp *pcp,
		void * const *objs, unsigned int n);

static inline void
__rxr_pcp_debug_out(struct rxr_pcp *pcp, void * const *objs, unsigned int n)
{
	if (RXR_DEBUG)
		for (unsigned int i = 0; i < n; i++)
			rxr_zone_debug_from_pcp(pcp->zone, objs[i]);
}

static inline void
__rxr_pcp_debug_in(struct rxr_pcp *pcp, void * const *objs, unsigned int n)
{
	if (RXR_DEBUG)
		for (unsigned int i = 0; i < n; i++)
			rxr_zone_debug_to_pcp(pcp->zone, objs[i]);
}

/**
 * Allocate one order-0 frame.
 * @return the hottest frame, or NULL when the zone is exhausted.
 */
static __rte_always_inline void *
rxr_pcp_alloc(struct rxr_pcp *pcp)
{
	void *f;

	if (unlikely(pcp->count == 0))
		return __rxr_pcp_alloc_refill(pcp);
	f = pcp->frames[--pcp->count];
	RXR_STAT_ADD(pcp->stats.alloc, 1);
	__rxr_pcp_debug_out(pcp, &f, 1);
	return f;
}

/** Free one order-0 frame. */
static __rte_always_inline void
rxr_pcp_free(struct rxr_pcp *pcp, void *frame)
{
	if (unlikely(pcp->count == pcp->high)) {
		__rxr_pcp_free_drain(pcp, &frame, 1);
		return;
	}
	__rxr_pcp_debug_in(pcp, &frame, 1);
	pcp->frames[pcp->count++] = frame;
	RXR_STAT_ADD(pcp->stats.free, 1);
}

/**
 * Allocate @p n order-0 frames: the top n of the pcp, in the order they
 * were freed (objs[n-1] is the hottest), so that a burst freed with
 * rxr_pcp_free_bulk() comes back as it went. All or nothing.
 * @return 0, or -ENOBUFS (the zone is short) with nothing allocated.
 */
static inline int
rxr_pcp_alloc_bulk(struct rxr_pcp *pcp, void **objs, unsigned int n)
{
	if (unlikely(n > pcp->count))
		return __rxr_pcp_alloc_bulk_refill(pcp, objs, n);
	pcp->count -= n;
	rte_memcpy(objs, &pcp->frames[pcp->count], n * sizeof(*objs));
	RXR_STAT_ADD(pcp->stats.alloc, n);
	__rxr_pcp_debug_out(pcp, objs, n);
	return 0;
}

/** Free @p n order-0 frames; objs[n-1] becomes the hottest. */
static inline void
rxr_pcp_free_bulk(struct rxr_pcp *pcp, void * const *objs, unsigned int n)
{
	if (unlikely(pcp->count + n > pcp->high)) {
		__rxr_pcp_free_drain(pcp, objs, n);
		return;
	}
	__rxr_pcp_debug_in(pcp, objs, n);
	rte_memcpy(&pcp->frames[pcp->count], objs, n * sizeof(*objs));
	pcp->count += n;
	RXR_STAT_ADD(pcp->stats.free, n);
}

/** Relaxed snapshot of the counters, safe from another thread. */
void rxr_pcp_stats(const struct rxr_pcp *pcp, struct rxr_pcp_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* RXR_PCP_H */
