/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * zone: no per-lcore cache; every alloc and free takes the zone lock, as
 * __rmqueue() did for every order-0 request in the 4.11-rc1 regression
 * after Linux commit 374ad05ab64d.
 */

#include "rxr_pool_private.h"

static int
zone_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_alloc_frames(p, objs, n);
	if (likely(rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n) == 0))
		return 0;
	return rxrp_alloc_failed(p, objs, n);
}

static int
zone_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_free_frames(p, objs, n);
	rxrp_zone_free(p, objs, n);
	return 0;
}

const struct rxrp_strategy rxrp_strategy_zone = {
	.name = "zone",
	.alloc = zone_alloc,
	.free = zone_free,
};
