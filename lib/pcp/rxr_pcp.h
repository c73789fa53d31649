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
 *   batch frames, all in one lock hold (rmqueue_bulk).
 * - A free that would take count above high first returns the coldest
 *   frames to the zone in one lock hold (free_pcppages_bulk), a multiple of
 *   batch, enough to make room.
 * - Hot frames are at the top: the last frame freed is the first handed out.
 *
 * rxr_pcp_pop() and rxr_pcp_push() are the stack alone, with no zone
 * behind it: every strategy's fast path, and recycle's alloc cache.
 * These functions give no protection at all: only the owner may call them.
 * The refill strategies put their critical sections around them.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

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
	uint32_t count;		/**< frames held (offset 0: rseq's sections) */
	uint32_t high;		/**< most frames held after any call */
	uint32_t batch;		/**< zone transfer unit */
	struct rxr_zone *zone;	/**< where frames come from and go back */
	struct rxr_pcp_stats stats;
	void *frames[] __rte_cache_aligned; /**< [0] coldest, [count-1] hottest */
};

/**
 * Allocate and initialize a pcp on a socket. NULL with rte_errno set:
 * EINVAL when batch is 0 or high < batch, ENOMEM.
 */
struct rxr_pcp *rxr_pcp_create(struct rxr_zone *zone, uint32_t high,
		uint32_t batch, int socket_id);

/** Drain and free a pcp made by rxr_pcp_create(). */
void rxr_pcp_destroy(struct rxr_pcp *pcp);

/** Return every frame held to the zone in one lock hold (lcore stop). */
void rxr_pcp_drain(struct rxr_pcp *pcp);

/*
 * Slow paths: zone transfers, once per batch at most, cold and out of line
 * so that the fast paths below stay a few instructions wherever they are
 * inlined.
 */
__rte_noinline __rte_cold int __rxr_pcp_refill(struct rxr_pcp *pcp,
		void **objs, unsigned int n);
__rte_noinline __rte_cold void __rxr_pcp_drain(struct rxr_pcp *pcp,
		void * const *objs, unsigned int n);

/* Debug builds: each frame's zone told it entered (or left) a pcp. */
static __rte_always_inline void
__rxr_pcp_debug(struct rxr_pcp *pcp, void * const *objs, unsigned int n,
		bool in)
{
	for (unsigned int i = 0; RXR_DEBUG && i < n; i++)
		(in ? rxr_zone_debug_to_pcp : rxr_zone_debug_from_pcp)(pcp->zone,
			objs[i]);
}

/* n frame pointers; one, what a driver refilling one descriptor asks
 * for, without a call. */
static __rte_always_inline void
rxr_pcp_copy(void **dst, void * const *src, unsigned int n)
{
	if (n == 1)
		dst[0] = src[0];
	else
		memcpy(dst, src, n * sizeof(*dst));
}

/**
 * Take the top @p n frames of the stack, in the order they were pushed
 * (objs[n-1] the hottest). No zone behind it.
 * @return false, nothing taken, when it holds fewer than @p n.
 */
static __rte_always_inline bool
rxr_pcp_pop(struct rxr_pcp *pcp, void **objs, unsigned int n)
{
	uint32_t c = pcp->count;

	if (unlikely(c < n))
		return false;
	c -= n;
	pcp->count = c;
	rxr_pcp_copy(objs, &pcp->frames[c], n);
	RXR_STAT_ADD(pcp->stats.alloc, n);
	__rxr_pcp_debug(pcp, objs, n, false);
	return true;
}

/**
 * Push @p n frames, objs[n-1] becoming the hottest. No zone behind it.
 * @return false, nothing pushed, when count + n would pass high.
 */
static __rte_always_inline bool
rxr_pcp_push(struct rxr_pcp *pcp, void * const *objs, unsigned int n)
{
	uint32_t c = pcp->count;

	if (unlikely(c + n > pcp->high))
		return false;
	__rxr_pcp_debug(pcp, objs, n, true);
	rxr_pcp_copy(&pcp->frames[c], objs, n);
	pcp->count = c + n;
	RXR_STAT_ADD(pcp->stats.free, n);
	return true;
}

/**
 * Allocate @p n order-0 frames: the top n of the pcp, refilled from the
 * zone when it holds fewer (rmqueue_bulk). All or nothing.
 * @return 0, or -ENOBUFS (the zone is short) with nothing allocated.
 */
static __rte_always_inline int
rxr_pcp_alloc_bulk(struct rxr_pcp *pcp, void **objs, unsigned int n)
{
	if (likely(rxr_pcp_pop(pcp, objs, n)))
		return 0;
	return __rxr_pcp_refill(pcp, objs, n);
}

/**
 * Free @p n order-0 frames; objs[n-1] becomes the hottest. The coldest go
 * to the zone first when the pcp would pass high (free_pcppages_bulk).
 */
static __rte_always_inline void
rxr_pcp_free_bulk(struct rxr_pcp *pcp, void * const *objs, unsigned int n)
{
	if (unlikely(!rxr_pcp_push(pcp, objs, n)))
		__rxr_pcp_drain(pcp, objs, n);
}

/** Relaxed snapshot of the counters, safe from another thread. */
void rxr_pcp_stats(const struct rxr_pcp *pcp, struct rxr_pcp_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* RXR_PCP_H */
