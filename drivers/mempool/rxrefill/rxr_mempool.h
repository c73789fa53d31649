/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_MEMPOOL_H
#define RXR_MEMPOOL_H

/**
 * @file
 * rxrefill's DPDK mempool driver: every dequeue and enqueue of its pools
 * goes to the pool's strategy; the mempool cache is size 0.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rxr_strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RXR_MEMPOOL_OPS_NAME "rxrefill"

/**
 * Configures the pools an application creates itself (--mbuf-pool-ops-name
 * rxrefill), rte_kvargs syntax: strategy, bulk, high, batch, zero,
 * zero_method and STRATEGY.NAME settings. Unset: bh, bulk on, defaults.
 */
#define RXR_MEMPOOL_ENV "RXREFILL_POOL"

/** Read RXR_MEMPOOL_ENV into @p pc: 0, or -EINVAL explained in @p err. */
int rxr_mempool_env_conf(struct rxr_pool_conf *pc, char *err, size_t errlen);

/** Default stride: header, mbuf and default buffer, 37 lines (an odd
 * number walks every L1 set, doc/layout.md). */
#define RXR_MEMPOOL_FRAME_SIZE_DEFAULT 2368u

/** An mbuf pool with rxrefill behind it. */
struct rxr_mempool_conf {
	struct rxr_pool_conf pool;
	uint32_t frame_size;	/**< stride; 0: an odd number of lines */
	uint16_t priv_size;	/**< mbuf private area */
};

/** Create and populate an mbuf pool; NULL with rte_errno set, logged. */
struct rte_mempool *rxr_pktmbuf_pool_create(const char *name, unsigned int n,
		const struct rxr_mempool_conf *conf, int socket_id);

/** The rxrefill pool behind a mempool, or NULL when it is not ours. */
struct rxr_pool *rxr_mempool_pool(const struct rte_mempool *mp);

/** Data room (rte_pktmbuf_data_room_size) a frame size leaves. 0: too small. */
uint16_t rxr_mempool_data_room(uint32_t frame_size, uint16_t priv_size);

/** Largest frame size: data room is 16 bits in an mbuf. */
#define RXR_MEMPOOL_FRAME_SIZE_MAX 65536u

/** Least frame size for @p priv_size: 64 bytes of data room. */
uint32_t rxr_mempool_frame_size_min(uint16_t priv_size);

/**
 * Check a frame size: cache lines, from rxr_mempool_frame_size_min() to
 * RXR_MEMPOOL_FRAME_SIZE_MAX. @return 0, or -EINVAL with one line in @p err.
 */
int rxr_pktmbuf_frame_size_check(uint32_t frame_size, uint16_t priv_size,
		char *err, size_t errlen);

/** The rxrefill ops' index when this copy registered them, else -1. */
extern int rxr_mempool_ops_index;

/** rxr_mempool_pool() for a hot path: one compare of the ops index. */
static __rte_always_inline struct rxr_pool *
rxr_mempool_pool_fast(const struct rte_mempool *mp)
{
	return mp->ops_index == rxr_mempool_ops_index ? mp->pool_data : NULL;
}

/**
 * Zero when freeing @p m is only giving its object back to @p mp: from
 * @p mp, direct, one reference, one segment. Branch free (a burst's values
 * are or'ed), on the mbuf's first cache line only.
 */
static __rte_always_inline uint64_t
rxr_pktmbuf_not_plain(const struct rte_mbuf *m, const struct rte_mempool *mp)
{
	uint32_t refcnt_segs;

	/* refcnt and nb_segs in one load: each 1, in either byte order. */
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, nb_segs) !=
		offsetof(struct rte_mbuf, refcnt) + sizeof(uint16_t));
	memcpy(&refcnt_segs, &m->refcnt, sizeof(refcnt_segs));
	return ((uintptr_t)m->pool ^ (uintptr_t)mp) |
		(m->ol_flags & (RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL)) |
		(refcnt_segs ^ UINT32_C(0x00010001));
}

/**
 * Free @p n scanned mbufs (n >= 1; @p not_plain: rxr_pktmbuf_not_plain()
 * or'ed over them). Zero, and the pool is ours: straight to the pool's
 * free, RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE's assumptions checked per burst;
 * anything else to rte_pktmbuf_free_bulk().
 */
static __rte_always_inline void
rxr_pktmbuf_free_scanned(struct rte_mbuf **m, unsigned int n,
		uint64_t not_plain)
{
	const struct rte_mempool *mp = m[0]->pool;
	struct rxr_pool *pool = rxr_mempool_pool_fast(mp);

	if (unlikely(not_plain != 0 || pool == NULL)) {
		rte_pktmbuf_free_bulk(m, n);
		return;
	}
	/* The caller's scan, and a single segment ends its chain. */
	for (unsigned int i = 0; RXR_DEBUG && i < n; i++)
		RXR_DEBUG_CHECK(rxr_pktmbuf_not_plain(m[i], mp) == 0 &&
			m[i]->next == NULL, RXR_CHECK_STATE,
			"mbuf %p freed as plain: pool %s/%s refcnt %u segments "
			"%u ol_flags %#" PRIx64 " next %p", (void *)m[i],
			m[i]->pool->name, mp->name, rte_mbuf_refcnt_read(m[i]),
			m[i]->nb_segs, m[i]->ol_flags, (void *)m[i]->next);
	rxr_pool_free_bulk(pool, (void * const *)m, n);
}

/** Free @p n mbufs (n >= 1): a scan, then rxr_pktmbuf_free_scanned(). */
static __rte_always_inline void
rxr_pktmbuf_free_bulk(struct rte_mbuf **m, unsigned int n)
{
	const struct rte_mempool *mp = m[0]->pool;
	uint64_t not_plain = 0;

	for (unsigned int i = 0; i < n; i++)
		not_plain |= rxr_pktmbuf_not_plain(m[i], mp);
	rxr_pktmbuf_free_scanned(m, n, not_plain);
}

#ifdef __cplusplus
}
#endif

#endif /* RXR_MEMPOOL_H */
