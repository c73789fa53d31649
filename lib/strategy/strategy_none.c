/* SPDX-License-Identifier: BSD-3-Clause */

/* none: the pcp with no protection, test only: the stress test proves the
 * debug checks catch the 2017 pcp regression's corruption. */

#include "rxr_pool_private.h"

/* As irqsave, minus the lock: a handler still never reaches the zone lock. */
static inline struct rxrp_lcore *
none_pcp(struct rxr_pool *p, bool alloc, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_self_lcore(p);

	if (ls == NULL)
		ls = rxrp_cpu_lcore(p);
	if (ls != NULL && unlikely(rxr_in_irq()) && !(alloc ?
			ls->pcp->count >= n : ls->pcp->count + n <= ls->pcp->high))
		return NULL;
	return ls;
}

static int
none_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct rxrp_lcore *ls;

	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_alloc_frames(p, objs, n);
	ls = none_pcp(p, true, n);
	if ((ls == NULL ? rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n) :
			rxr_pcp_alloc_bulk(ls->pcp, objs, n)) == 0)
		return 0;
	return rxrp_alloc_failed(p, objs, n);
}

static int
none_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rxrp_lcore *ls;

	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_free_frames(p, objs, n);
	ls = none_pcp(p, false, n);
	if (ls == NULL)
		rxrp_zone_free(p, objs, n);
	else
		rxrp_split_local(p, ls, objs, n, rxrp_pcp_free_local);
	return 0;
}

const struct rxrp_strategy rxrp_strategy_none = {
	.name = "none",
	.caps = RXR_STRATEGY_CAP_TEST_ONLY,
	.alloc = none_alloc,
	.free = none_free,
};
