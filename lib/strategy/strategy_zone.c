/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * zone: no per-lcore cache in the refill path. Every alloc and free takes
 * the zone lock: the 4.11-rc1 regression after Linux commit 374ad05ab64d
 * ("mm, page_alloc: only use per-cpu allocator for irq-safe requests"),
 * on purpose. No per-lcore state, no optional callback.
 */

#include <errno.h>

#include "rxr_pool_private.h"

static int
zone_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	return rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n, true);
}

static int
zone_alloc_single(struct rxr_pool *p, void **objs, unsigned int n)
{
	return rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n, false);
}

static void
zone_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	rxrp_zone_free(p, objs, n, true);
}

static void
zone_free_single(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	rxrp_zone_free(p, objs, n, false);
}

const struct rxrp_strategy rxrp_strategy_zone = {
	.name = "zone",
	RXRP_OPS(zone),
};
