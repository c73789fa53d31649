/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_ZONE_PRIVATE_H
#define RXR_ZONE_PRIVATE_H

/* PRIVATE to lib/zone and its white-box tests: the zone's layout. */

#include <rte_memzone.h>
#include <rte_reciprocal.h>

#include "rxr_zone.h"

/* One memmap entry: 12 bytes per frame. */
struct rxr_page {
	uint32_t next;
	uint32_t prev;
	uint16_t region;
	uint8_t order;
	uint8_t state;
};

struct rxr_zone_region {
	uintptr_t base;		/* address of the first frame */
	uintptr_t end;		/* base + nr * frame_size */
	uint32_t first;		/* memmap index of the first frame */
	uint32_t nr;		/* frames */
};

struct rxr_zone_free_area {
	uint32_t head;
	uint32_t nr_blocks;
};

struct rxr_zone {
	/* Written under the lock, on the lock's cache line. */
	struct rxr_spinlock lock;
	uint64_t nr_free;
	uint64_t alloc_frames;
	uint64_t free_frames;
	uint64_t alloc_fail;
	struct rxr_zone_free_area area[RXR_ZONE_NR_ORDERS];
	/* Frames freed by handlers that found the lock held (memmap links). */
	uint32_t pending;

	/* Read-mostly after set-up. */
	struct rxr_page *memmap __rte_cache_aligned;
	struct rxr_zone_region *regions;	/* sorted by base */
	uint32_t nr_regions;
	uint32_t max_regions;
	uint32_t nr_frames;
	uint32_t max_frames;
	uint32_t frame_size;
	struct rte_reciprocal_u64 frame_div;
	int socket_id;
	char name[RTE_MEMZONE_NAMESIZE];
};

#endif /* RXR_ZONE_PRIVATE_H */
