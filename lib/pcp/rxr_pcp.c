/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The per-lcore page cache: creation, drain and the out-of-line refill
 * and drain paths behind rxr_pcp.h's inline fast paths.
 */

#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rxr_pcp.h"

struct rxr_pcp *
rxr_pcp_create(struct rxr_zone *zone, uint32_t high, uint32_t batch,
		int socket_id)
{
	struct rxr_pcp *pcp;

	if (zone == NULL || batch == 0 || high < batch) {
		rte_errno = EINVAL;
		return NULL;
	}
	pcp = rte_zmalloc_socket("rxr_pcp", sizeof(*pcp) +
			(size_t)high * sizeof(void *), RTE_CACHE_LINE_SIZE,
			socket_id);
	if (pcp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	pcp->zone = zone;
	pcp->high = high;
	pcp->batch = batch;
	return pcp;
}

void
rxr_pcp_destroy(struct rxr_pcp *pcp)
{
	if (pcp == NULL)
		return;
	rxr_pcp_drain(pcp);
	rte_free(pcp);
}

void
rxr_pcp_drain(struct rxr_pcp *pcp)
{
	if (pcp->count == 0)
		return;
	rxr_zone_free_bulk(pcp->zone, pcp->frames, pcp->count);
	RXR_STAT_ADD(pcp->stats.drain_frames, pcp->count);
	pcp->count = 0;
}

/* More wanted than held: every held frame and the shortfall from the
 * zone, and a batch for the pcp, in one lock hold. */
int
__rxr_pcp_refill(struct rxr_pcp *pcp, void **objs, unsigned int n)
{
	unsigned int held = pcp->count, need = n - held, got;

	/* Read-only copy: on failure the pcp is left as it was. */
	memcpy(objs, pcp->frames, held * sizeof(*objs));

	rxr_zone_lock(pcp->zone);
	if (rxr_zone_alloc_bulk_locked(pcp->zone, objs + held, need, need) == 0) {
		rxr_zone_unlock(pcp->zone);
		RXR_STAT_ADD(pcp->stats.alloc_miss, 1);
		RXR_STAT_ADD(pcp->stats.alloc_fail, 1);
		return -ENOBUFS;
	}
	got = rxr_zone_alloc_bulk_locked(pcp->zone, pcp->frames, 0, pcp->batch);
	rxr_zone_unlock(pcp->zone);

	__rxr_pcp_debug(pcp, objs, held, false);
	__rxr_pcp_debug(pcp, pcp->frames, got, true);
	pcp->count = got;
	RXR_STAT_ADD(pcp->stats.alloc, n);
	RXR_STAT_ADD(pcp->stats.alloc_miss, 1);
	RXR_STAT_ADD(pcp->stats.refill_frames, need + got);
	RXR_STAT_ADD(pcp->stats.alloc_zone_frames, need);
	return 0;
}

/* Past high: free_pcppages_bulk of the coldest batches, the pcp's
 * bottom first, then the burst's start. */
void
__rxr_pcp_drain(struct rxr_pcp *pcp, void * const *objs, unsigned int n)
{
	unsigned int total = pcp->count + n;
	unsigned int out = RTE_MIN(rxr_roundup(total - pcp->high, pcp->batch),
			total);
	unsigned int from_pcp = RTE_MIN(out, pcp->count);
	unsigned int from_objs = out - from_pcp;

	rxr_zone_lock(pcp->zone);
	rxr_zone_free_bulk_locked(pcp->zone, pcp->frames, from_pcp);
	rxr_zone_free_bulk_locked(pcp->zone, objs, from_objs);
	rxr_zone_unlock(pcp->zone);

	pcp->count -= from_pcp;
	memmove(pcp->frames, pcp->frames + from_pcp,
			pcp->count * sizeof(*pcp->frames));
	__rxr_pcp_debug(pcp, objs + from_objs, n - from_objs, true);
	memcpy(&pcp->frames[pcp->count], objs + from_objs,
			(n - from_objs) * sizeof(*objs));
	pcp->count += n - from_objs;
	RXR_STAT_ADD(pcp->stats.free, n);
	RXR_STAT_ADD(pcp->stats.free_drain, 1);
	RXR_STAT_ADD(pcp->stats.drain_frames, out);
}

void
rxr_pcp_stats(const struct rxr_pcp *pcp, struct rxr_pcp_stats *st)
{
#define RXR_PCP_READ(name, help) st->name = RXR_STAT_READ(pcp->stats.name);
	RXR_PCP_COUNTERS(RXR_PCP_READ)
#undef RXR_PCP_READ
}
