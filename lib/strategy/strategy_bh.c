/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * bh: only the owning poll lcore touches its pcp, between a plain nesting
 * counter and compiler barriers (local_bh_disable/enable): no atomics on the
 * owner's path. Any other context frees onto the owner's deferred list and
 * allocates from the zone; the owner drains the list at its bh-enable point,
 * rxr_pool_poll_end(), once per poll iteration, and also whenever its pcp
 * is short, before it would go to the zone (as mimalloc collects delayed
 * frees in its allocation slow path), so an application that never calls
 * the enable point still gets its frames back. No per-lcore state of its
 * own: the pcp and the deferred list are the core's.
 */

#include <errno.h>

#include "rxr_pool_private.h"

static __rte_always_inline int
bh_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	int ret;

	if (unlikely(ls == NULL))
		return rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n, true);
	rxrp_bh_disable(ls);
	if (unlikely(ls->pcp->count < n) && rxrp_defer_count(ls) != 0)
		rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	ret = rxr_pcp_alloc_bulk(ls->pcp, objs, n);
	rxrp_bh_enable(ls);
	return ret;
}

static __rte_always_inline void
bh_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);

	if (likely(ls != NULL))
		rxrp_split_local(p, ls, objs, n, rxrp_pcp_free_owner);
	else
		rxrp_defer_free(p, rxrp_task_target(p), objs, n);
}

RXRP_PER_FRAME_OPS(bh)

/* Lcore stop: inside the section, which keeps a reclaim out meanwhile. */
static void
bh_flush(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	rxrp_bh_disable(ls);
	rxrp_lcore_drain(p, ls);
	rxrp_bh_enable(ls);
}

/* The pool's reclaim: the pcp, while the owner is kept out. */
static unsigned int
bh_reclaim(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	return rxrp_bh_reclaim(p, ls, NULL);
}

const struct rxrp_strategy rxrp_strategy_bh = {
	.name = "bh",
	.caps = RXR_STRATEGY_CAP_DEFERS_FREES | RXR_STRATEGY_CAP_OWNER_INLINE,
	RXRP_OPS(bh),
	.flush = bh_flush,
	.lcore_reclaim = bh_reclaim,
};
