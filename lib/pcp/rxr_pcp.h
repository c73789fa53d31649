/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_PCP_H
#define RXR_PCP_H

/**
 * @file
 * The per-lcore page cache (per_cpu_pages): a LIFO of order-0 frames in
 * front of a zone. No protection: the strategies put their sections around.
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

/** The pcp counters, X(name, help): struct rxr_pcp_stats and its sums. */
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

/** Create a pcp; NULL with rte_errno EINVAL (batch 0, high < batch), ENOMEM. */
struct rxr_pcp *rxr_pcp_create(struct rxr_zone *zone, uint32_t high,
		uint32_t batch, int socket_id);

/** Drain and free a pcp made by rxr_pcp_create(). */
void rxr_pcp_destroy(struct rxr_pcp *pcp);

/** Return every frame held to the zone in one lock hold (lcore stop). */
void rxr_pcp_drain(struct rxr_pcp *pcp);

/* The zone transfers, out of line so that the fast paths stay small. */
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
		rxr_zone_debug_pcp(pcp->zone, objs[i], in);
}

/* n frame pointers; one without a call. */
static __rte_always_inline void
rxr_pcp_copy(void **dst, void * const *src, unsigned int n)
{
	if (n == 1)
		dst[0] = src[0];
	else
		memcpy(dst, src, n * sizeof(*dst));
}

/** Take the top @p n frames (objs[n-1] the hottest); false when short. */
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

/** Push @p n frames (objs[n-1] the hottest); false past high. */
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

/** Allocate @p n frames, refilled from the zone when short: 0 or -ENOBUFS. */
static __rte_always_inline int
rxr_pcp_alloc_bulk(struct rxr_pcp *pcp, void **objs, unsigned int n)
{
	if (likely(rxr_pcp_pop(pcp, objs, n)))
		return 0;
	return __rxr_pcp_refill(pcp, objs, n);
}

/** Free @p n frames; the coldest to the zone first past high. */
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
