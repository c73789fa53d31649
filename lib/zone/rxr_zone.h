/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_ZONE_H
#define RXR_ZONE_H

/**
 * @file
 * The zone: a buddy allocator over frames at a stride in regions the
 * caller hands over, one per NUMA node, behind one spinlock.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_memory.h>

#include "rxr_common.h"
#include "rxr_spinlock.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Highest order of a block: 2^10 frames, as MAX_ORDER - 1 in Linux. */
#define RXR_ZONE_MAX_ORDER 10
#define RXR_ZONE_NR_ORDERS (RXR_ZONE_MAX_ORDER + 1)

struct rxr_zone;

/** How a zone is created. */
struct rxr_zone_conf {
	const char *name;
	int socket_id;		/**< of the memory and memmap */
	uint32_t frame_size;	/**< stride between frames, bytes (any) */
	uint32_t max_frames;	/**< memmap capacity over all regions */
	uint32_t max_regions;	/**< regions that may be added */
};

/** Initial state of the frames of an added region. */
enum rxr_zone_region_state {
	RXR_ZONE_REGION_FREE,
	RXR_ZONE_REGION_ALLOCATED,	/**< order 0, to be freed by the caller */
};

/** A snapshot of a zone's counters. */
struct rxr_zone_stats {
	uint64_t nr_frames;
	uint64_t nr_free;
	uint64_t nr_blocks[RXR_ZONE_NR_ORDERS]; /**< free blocks per order */
	uint64_t alloc_frames;	/**< frames handed out, all orders */
	uint64_t free_frames;	/**< frames taken back, all orders */
	uint64_t alloc_fail;
	struct rxr_lock_stats lock;
};

/** Create an empty zone: NULL with rte_errno set (EINVAL, ENOMEM). */
struct rxr_zone *rxr_zone_create(const struct rxr_zone_conf *conf);

/** Destroy a zone and its memmap (the regions are the caller's). */
void rxr_zone_destroy(struct rxr_zone *zone);

/**
 * Hand the zone a region of len / frame_size frames at @p addr.
 * @return frames added, -EINVAL (bad or overlapping) or -ENOSPC (full).
 */
int rxr_zone_add_region(struct rxr_zone *zone, void *addr, size_t len,
		enum rxr_zone_region_state state);

/** Allocate a block of 2^order frames. @return its first frame or NULL. */
void *rxr_zone_alloc(struct rxr_zone *zone, unsigned int order);

/** Free a block of 2^order frames allocated with the same order. */
void rxr_zone_free(struct rxr_zone *zone, void *frame, unsigned int order);

/**
 * rmqueue_bulk: @p min to @p max order-0 frames in one lock hold, or none.
 * In a signal handler the lock is only tried. @return frames stored.
 */
unsigned int rxr_zone_alloc_bulk(struct rxr_zone *zone, void **objs,
		unsigned int min, unsigned int max);

/** free_pcppages_bulk: free @p n order-0 frames in one lock hold; in a
 * handler that finds the lock held, onto a lock-free pending list. */
void rxr_zone_free_bulk(struct rxr_zone *zone, void * const *objs,
		unsigned int n);

/** @name Explicit lock holds, to move several arrays in one. @{ */
void rxr_zone_lock(struct rxr_zone *zone);
void rxr_zone_unlock(struct rxr_zone *zone);
/** rxr_zone_alloc_bulk() with the lock already held. */
unsigned int rxr_zone_alloc_bulk_locked(struct rxr_zone *zone, void **objs,
		unsigned int min, unsigned int max);
/** rxr_zone_free_bulk() with the lock already held. */
void rxr_zone_free_bulk_locked(struct rxr_zone *zone, void * const *objs,
		unsigned int n);
/** @} */

/** Take a snapshot of the counters; safe while other lcores allocate. */
void rxr_zone_stats(const struct rxr_zone *zone, struct rxr_zone_stats *st);

int rxr_zone_socket(const struct rxr_zone *zone);
uint32_t rxr_zone_frame_size(const struct rxr_zone *zone);

/** Memmap index of a frame, in [0, max_frames), for side arrays. */
uint32_t rxr_zone_frame_idx(const struct rxr_zone *zone, const void *frame);

/** The frame of a memmap index returned by rxr_zone_frame_idx(). */
void *rxr_zone_frame_at(const struct rxr_zone *zone, uint32_t idx);

/** True when @p addr is a frame address of this zone (any state). */
bool rxr_zone_owns(const struct rxr_zone *zone, const void *addr);

/** Verify every buddy invariant: 0, or -1 with the first told on @p out. */
int rxr_zone_check(struct rxr_zone *zone, FILE *out);

/** Debug builds: a frame moves into a pcp (@p in) or out (double frees). */
void rxr_zone_debug_pcp(struct rxr_zone *zone, void *frame, bool in);

#ifdef __cplusplus
}
#endif

#endif /* RXR_ZONE_H */
