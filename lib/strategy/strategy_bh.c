/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * bh: only the owning poll lcore touches its pcp, between a plain nesting
 * counter and compiler barriers (local_bh_disable/enable): no atomics on the
 * owner's path. Any other context frees onto the owner's deferred list and
 * allocates from the zone; the owner drains the list at its bh-enable point,
 * rxr_pool_poll_end(), once per poll iteration, and also whenever its pcp
 * is short, before it would go to the zone (as mimalloc collects delayed
 * frees in its allocation slow path), so an application that never calls
 * the enable point still gets its frames back.
 */

#include <errno.h>

#include "rxr_pool_private.h"

void
bh_pcp_free(struct rxr_pool *p, struct pool_lcore *ls, void * const *objs,
		unsigned int n)
{
	bh_disable(ls);
	rxr_pcp_free_bulk(ls->pcp, objs, n);
	bh_enable(ls);
}

static int
bh_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct pool_lcore *ls = owner_lcore(p);
	int ret;

	if (unlikely(ls == NULL))
		return pool_zone_alloc(p, ctx_node(p), objs, n, true);
	bh_disable(ls);
	if (unlikely(ls->pcp->count < n) && pool_defer_count(ls) != 0)
		pool_defer_drain(p, ls, bh_pcp_free);
	ret = rxr_pcp_alloc_bulk(ls->pcp, objs, n);
	bh_enable(ls);
	return ret == 0 ? 0 : -ENOBUFS;
}

static void
bh_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct pool_lcore *ls = owner_lcore(p);

	if (likely(ls != NULL))
		split_local(p, ls, objs, n, bh_pcp_free);
	else
		pool_defer_push(p, task_target(p), objs, n);
}

static int
bh_alloc_single(struct rxr_pool *p, void **objs, unsigned int n)
{
	return per_frame_alloc(p, objs, n, bh_alloc_bulk, bh_free_bulk);
}

static void
bh_free_single(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	per_frame_free(p, objs, n, bh_free_bulk);
}

const struct rxr_pool_ops rxr_strategy_bh_ops[2] = {
	{ bh_alloc_single, bh_free_single },
	{ bh_alloc_bulk, bh_free_bulk },
};
