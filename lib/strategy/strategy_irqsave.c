/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * irqsave: any context uses the pcp of the CPU it runs on, each access a
 * critical section safe against every same-CPU interruption. In user space
 * that is a per-pcp lock taken with an atomic. The owner waits for it (the
 * holder runs on another CPU); any other context only tries it, because the
 * holder may be the very thread it interrupted or preempted, and uses the
 * zone when it is held (local_irq_save has no such case: it is the price
 * of doing this without disabling interrupts).
 */

#include <errno.h>

#include "rxr_pool_private.h"

/*
 * Lock the pcp the caller may use; NULL: use the zone. @p need is the
 * room the call needs without a zone transfer: a signal handler holding the
 * pcp lock must not go on to spin on the zone lock (its interrupted thread
 * may hold it), so it uses the pcp only when no transfer is needed.
 */
static inline struct pool_lcore *
irqsave_lock(struct rxr_pool *p, bool alloc, unsigned int n)
{
	struct pool_lcore *ls = owner_lcore(p);

	if (likely(ls != NULL)) {
		rxr_spinlock_lock(&ls->pcp_lock);
		return ls;
	}
	ls = cpu_lcore(p);
	if (ls == NULL)
		return NULL;
	if (rxr_spinlock_trylock(&ls->pcp_lock)) {
		if (likely(!rxr_in_irq()) || (alloc ? ls->pcp->count >= n :
				ls->pcp->count + n <= ls->pcp->high))
			return ls;
		rxr_spinlock_unlock(&ls->pcp_lock);
	}
	__atomic_fetch_add(&ls->zone_fallback, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void
pcp_free_local(struct rxr_pool *p, struct pool_lcore *ls, void * const *objs,
		unsigned int n)
{
	rxr_pcp_free_bulk(ls->pcp, objs, n);
}

static int
irqsave_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct pool_lcore *ls = irqsave_lock(p, true, n);
	int ret;

	if (ls == NULL)
		return pool_zone_alloc(p, ctx_node(p), objs, n, true);
	ret = rxr_pcp_alloc_bulk(ls->pcp, objs, n);
	rxr_spinlock_unlock(&ls->pcp_lock);
	return ret == 0 ? 0 : -ENOBUFS;
}

static void
irqsave_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct pool_lcore *ls = irqsave_lock(p, false, n);

	if (ls == NULL) {
		pool_zone_free(p, objs, n, true);
		return;
	}
	split_local(p, ls, objs, n, pcp_free_local);
	rxr_spinlock_unlock(&ls->pcp_lock);
}

static int
irqsave_alloc_single(struct rxr_pool *p, void **objs, unsigned int n)
{
	return per_frame_alloc(p, objs, n, irqsave_alloc_bulk, irqsave_free_bulk);
}

static void
irqsave_free_single(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	per_frame_free(p, objs, n, irqsave_free_bulk);
}

const struct rxr_pool_ops rxr_strategy_irqsave_ops[2] = {
	{ irqsave_alloc_single, irqsave_free_single },
	{ irqsave_alloc_bulk, irqsave_free_bulk },
};
