/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * none: every context uses the pcp of its CPU with no protection at all.
 * Test only: the stress test runs it to prove that the debug checks catch
 * the list corruption of the 2017 pcp regression (a free in one context racing a
 * refill in another on the same CPU).
 */

#include <errno.h>

#include "rxr_pool_private.h"

/* As irqsave, minus the lock: a handler still never reaches the zone lock. */
static inline struct pool_lcore *
none_pcp(struct rxr_pool *p, bool alloc, unsigned int n)
{
	struct pool_lcore *ls = self_lcore(p);

	if (ls == NULL)
		ls = cpu_lcore(p);
	if (ls != NULL && unlikely(rxr_in_irq()) && !(alloc ?
			ls->pcp->count >= n : ls->pcp->count + n <= ls->pcp->high))
		return NULL;
	return ls;
}

static void
pcp_free_local(struct rxr_pool *p, struct pool_lcore *ls, void * const *objs,
		unsigned int n)
{
	rxr_pcp_free_bulk(ls->pcp, objs, n);
}

static int
none_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct pool_lcore *ls = none_pcp(p, true, n);

	if (ls == NULL)
		return pool_zone_alloc(p, ctx_node(p), objs, n, true);
	return rxr_pcp_alloc_bulk(ls->pcp, objs, n) == 0 ? 0 : -ENOBUFS;
}

static void
none_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct pool_lcore *ls = none_pcp(p, false, n);

	if (ls == NULL)
		pool_zone_free(p, objs, n, true);
	else
		split_local(p, ls, objs, n, pcp_free_local);
}

static int
none_alloc_single(struct rxr_pool *p, void **objs, unsigned int n)
{
	return per_frame_alloc(p, objs, n, none_alloc_bulk, none_free_bulk);
}

static void
none_free_single(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	per_frame_free(p, objs, n, none_free_bulk);
}

const struct rxr_pool_ops rxr_strategy_none_ops[2] = {
	{ none_alloc_single, none_free_single },
	{ none_alloc_bulk, none_free_bulk },
};
