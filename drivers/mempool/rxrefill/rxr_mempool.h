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

#include <stdint.h>

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
 * rte_kvargs syntax, keys strategy (zone, irqsave, bh, recycle, rseq), bulk (on,
 * off), high, batch, zero (none, alloc, free, background) and zero_method.
 * Unset: bh, bulk on, the pcp defaults, no zeroing.
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
 * header (64 bytes), the mbuf (128) and a 4 KiB data buffer (headroom and
 * data room), 67 cache lines. At a stride of 4096 every mbuf header starts
 * at the same offset of a 4 KiB frame and all of them map to one set of a
 * 64-set L1 data cache; an odd number of lines makes consecutive frames
 * walk every set (doc/layout.md has the measurements).
 */
#define RXR_MEMPOOL_FRAME_SIZE_DEFAULT 4288u

/** An mbuf pool with rxrefill behind it. */
struct rxr_mempool_conf {
	/** Strategy, bulk, pcp high/batch, poll lcores, ... */
	struct rxr_pool_conf pool;
	/**
	 * Frame stride in bytes: the mempool object header, the mbuf, its
	 * private area, headroom and data room. 0 takes the default: the
	 * header, the mbuf and its private area rounded up to cache lines,
	 * then a 4 KiB data buffer, plus one line when the total is an even
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

/**
 * The default frame stride for an mbuf private area of @p priv_size bytes:
 * a 4 KiB data buffer after the mbuf, an odd number of cache lines in all.
 */
uint32_t rxr_mempool_frame_size_default(uint16_t priv_size);

/** Data room (rte_pktmbuf_data_room_size) a frame size leaves. 0: too small. */
uint16_t rxr_mempool_data_room(uint32_t frame_size, uint16_t priv_size);

/** Largest frame size the driver builds: data room is 16 bits in an mbuf. */
#define RXR_MEMPOOL_FRAME_SIZE_MAX 65536u

/**
 * Check a frame size against what the driver can build, before any memory
 * is touched: a multiple of RTE_CACHE_LINE_SIZE (the mempool rounds every
 * object up to one, so any other stride cannot be exact), at least the
 * object header + mbuf + @p priv_size + headroom + 64 bytes of data room,
 * at most RXR_MEMPOOL_FRAME_SIZE_MAX.
 * @return 0, or -EINVAL with one line in err naming the reason and the
 *   limit ("--frame-size" is not in it: the caller prefixes its option).
 */
int rxr_pktmbuf_frame_size_check(uint32_t frame_size, uint16_t priv_size,
		char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* RXR_MEMPOOL_H */
