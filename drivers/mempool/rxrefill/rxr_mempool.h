/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_MEMPOOL_H
#define RXR_MEMPOOL_H

/**
 * @file
 * The one DPDK mempool driver of rxrefill. Every dequeue (a PMD refilling
 * its RX descriptors with rte_mempool_get_bulk()) and every enqueue
 * (rte_pktmbuf_free_bulk()) of a pool created here goes to the pool's refill
 * strategy; the pool's own mempool cache is size 0 so that nothing is
 * served before it reaches us.
 *
 * Debian's DPDK plugins leave one free slot in the 16-entry ops table, so
 * there is exactly one ops, "rxrefill", and the strategy is chosen per pool.
 * Memory is populated with DPDK's standard helpers, so a PMD that registers
 * pool memory for DMA (mlx5's mr_mempool_reg_en) sees every chunk.
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

/** Name of the mempool ops. */
#define RXR_MEMPOOL_OPS_NAME "rxrefill"

/**
 * Environment variable that configures the pools an application creates
 * itself (rte_pktmbuf_pool_create() under --mbuf-pool-ops-name rxrefill):
 * rte_kvargs syntax, keys strategy (a name of the strategy registry, as
 * rxr_strategy_user_names() lists them), bulk (on, off), high, batch,
 * zero (none, alloc, free, background), zero_method, and the settings of
 * the pool's strategy as STRATEGY.NAME (the keys come from the registry:
 * rxr_strategy_settings(), e.g. recycle.ring).
 * Unset: bh, bulk on, the pcp defaults, no zeroing, the strategy's
 * defaults.
 */
#define RXR_MEMPOOL_ENV "RXREFILL_POOL"

/**
 * Read RXR_MEMPOOL_ENV into @p pc (zeroed first, then the defaults above).
 * @return 0, or -EINVAL with a message naming the bad key or value in
 *   @p err.
 */
int rxr_mempool_env_conf(struct rxr_pool_conf *pc, char *err, size_t errlen);

/**
 * Default frame stride with no mbuf private area: the mempool object
 * header (64 bytes), the mbuf (128) and DPDK's default mbuf buffer
 * (RTE_MBUF_DEFAULT_BUF_SIZE: 128 of headroom, 2048 of data room), 37
 * cache lines. At a stride of 4096 every mbuf header starts at the same
 * offset of a 4 KiB frame and all of them map to one set of a 64-set L1
 * data cache; an odd number of lines makes consecutive frames walk every
 * set. Below 4 KiB, a walk over consecutive frames stays inside 4 KiB
 * pages, where hardware stream prefetchers work, and a 2 MiB page holds
 * more frames, so more L2 sets (doc/layout.md has the measurements).
 */
#define RXR_MEMPOOL_FRAME_SIZE_DEFAULT 2368u

/** An mbuf pool with rxrefill behind it. */
struct rxr_mempool_conf {
	/** Strategy, bulk, pcp high/batch, poll lcores, ... */
	struct rxr_pool_conf pool;
	/**
	 * Frame stride in bytes: the mempool object header, the mbuf, its
	 * private area, headroom and data room. 0 takes the default: the
	 * header, the mbuf and its private area rounded up to cache lines,
	 * then RTE_MBUF_DEFAULT_BUF_SIZE, plus one line when the total is an even
	 * number of lines (RXR_MEMPOOL_FRAME_SIZE_DEFAULT without a private
	 * area). A stride that is a multiple of 4096 puts every mbuf header in
	 * one L1 cache set.
	 */
	uint32_t frame_size;
	uint16_t priv_size;	/**< mbuf private area */
};

/**
 * Create and populate an mbuf pool of @p n frames served by rxrefill.
 * @return the pool, or NULL with rte_errno set and a message naming the
 *   cause printed through the DPDK log.
 */
struct rte_mempool *rxr_pktmbuf_pool_create(const char *name, unsigned int n,
		const struct rxr_mempool_conf *conf, int socket_id);

/** The rxrefill pool behind a mempool, or NULL when it is not ours. */
struct rxr_pool *rxr_mempool_pool(const struct rte_mempool *mp);

/** Data room (rte_pktmbuf_data_room_size) a frame size leaves. 0: too small. */
uint16_t rxr_mempool_data_room(uint32_t frame_size, uint16_t priv_size);

/** Largest frame size the driver builds: data room is 16 bits in an mbuf. */
#define RXR_MEMPOOL_FRAME_SIZE_MAX 65536u

/**
 * Least frame size for an mbuf private area of @p priv_size bytes: the
 * object header, an mbuf, the private area, the headroom and 64 bytes of
 * data room, in whole cache lines (384 with no private area).
 */
uint32_t rxr_mempool_frame_size_min(uint16_t priv_size);

/**
 * Check a frame size against what the driver can build, before any memory
 * is touched: a multiple of RTE_CACHE_LINE_SIZE (the mempool rounds every
 * object up to one, so any other stride cannot be exact), at least the
 * object header + mbuf + @p priv_size + headroom + 64 bytes of data room,
 * at most RXR_MEMPOOL_FRAME_SIZE_MAX.
 * @return 0, or -EINVAL with one line in err naming the reason and the
 *   limit, and a valid size to try when there is a near one
 *   ("--frame-size" is not in it: the caller prefixes its option).
 */
int rxr_pktmbuf_frame_size_check(uint32_t frame_size, uint16_t priv_size,
		char *err, size_t errlen);

/**
 * Index of the rxrefill ops in DPDK's ops table, set when this copy of the
 * driver registered them; -1 when it did not (another copy, a plugin,
 * registered the name first), and then rxr_mempool_pool_fast() finds no
 * pool and rxr_pktmbuf_free_bulk() takes DPDK's path.
 */
extern int rxr_mempool_ops_index;

/**
 * rxr_mempool_pool() for a hot path: one compare of the ops index, no
 * string compare. NULL when the pool is not ours.
 */
static __rte_always_inline struct rxr_pool *
rxr_mempool_pool_fast(const struct rte_mempool *mp)
{
	return mp->ops_index == rxr_mempool_ops_index ? mp->pool_data : NULL;
}

/**
 * Zero when freeing @p m needs nothing but giving its object back to
 * @p mp: it comes from @p mp, is direct (no attached or external buffer),
 * has one reference and one segment; else not zero. Branch free, so that
 * a burst's values are or'ed together and tested once. The fields are all
 * on the mbuf's first cache line, the line a receive path reads anyway
 * (pkt_len, data_off).
 */
static __rte_always_inline uint64_t
rxr_pktmbuf_not_plain(const struct rte_mbuf *m, const struct rte_mempool *mp)
{
	uint32_t refcnt_segs;

	/*
	 * refcnt and nb_segs are adjacent: one load and one compare for
	 * both. Each half must be 1, so the constant is the same in either
	 * byte order.
	 */
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, nb_segs) !=
		offsetof(struct rte_mbuf, refcnt) + sizeof(uint16_t));
	memcpy(&refcnt_segs, &m->refcnt, sizeof(refcnt_segs));
	return ((uintptr_t)m->pool ^ (uintptr_t)mp) |
		(m->ol_flags & (RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL)) |
		(refcnt_segs ^ UINT32_C(0x00010001));
}

/**
 * Free @p n mbufs (n >= 1) that the caller has scanned: @p not_plain is
 * rxr_pktmbuf_not_plain(m[i], m[0]->pool) or'ed over the burst. Zero, and
 * the pool is rxrefill's: the burst goes to the pool's free as it is,
 * inline on a poll lcore's owner path, which is what
 * rte_pktmbuf_free_bulk() does for such a burst without its per-mbuf
 * reference handling, its read of the second cache line (m->next), its
 * copy into a pending array, its thread-local lookup of a mempool cache
 * and its call through the ops table. These are the assumptions of
 * RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, checked per burst, not trusted;
 * anything else (segments, clones, external buffers, another pool) goes
 * to rte_pktmbuf_free_bulk().
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

/**
 * Free @p n mbufs (n >= 1): rxr_pktmbuf_free_scanned() after a scan of
 * their first cache lines.
 */
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
