/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The pool's entry points out of line (rxr_strategy.h has the inline
 * owner path): the call through the strategy and its layers, the slow path
 * that reclaims what other lcores hold before an allocation fails, and the
 * owner's bh-enable point. Calls the strategy's operations and the core's
 * services; nothing here is called back.
 */

#include <errno.h>

#include <rte_cycles.h>

#include "rxr_pool_private.h"

/*
 * Deferred lists to the zone, then, outside signal handlers, the caches
 * of every lcore the strategy lets another thread empty (its
 * lcore_reclaim) and its pool-wide caches (Linux's
 * drain_all_pages() before an allocation gives up).
 * @return frames brought back.
 */
static unsigned int
pool_reclaim(struct rxr_pool *p)
{
	unsigned int got = 0;

	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (p->lcore[lc] != NULL)
			got += rxrp_defer_drain(p, p->lcore[lc], NULL);
	if (rxr_in_irq())
		return got;
	rxr_spinlock_lock(&p->reclaim_lock);
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (p->lcore[lc] != NULL && p->strategy->lcore_reclaim != NULL)
			got += p->strategy->lcore_reclaim(p, p->lcore[lc]);
	if (p->priv != NULL && p->strategy->pool_reclaim != NULL)
		got += p->strategy->pool_reclaim(p);
	rxr_spinlock_unlock(&p->reclaim_lock);
	return got;
}

int
__rxr_pool_alloc_slow(struct rxr_pool *p, void **objs, unsigned int n)
{
	if (pool_reclaim(p) == 0)
		return -ENOBUFS;
	return __atomic_load_n(&p->fns.alloc, __ATOMIC_RELAXED)(p, objs, n) == 0 ?
		0 : -ENOBUFS;
}

/* The entry while a layer wraps the strategy: the top layer, then the
 * slow path. */
static int
alloc_layered(struct rxr_pool *p, void **objs, unsigned int n)
{
	/* Atomic: rxr_pool_sample() swaps the timing layer in and out. */
	if (likely(__atomic_load_n(&p->fns.alloc, __ATOMIC_RELAXED)(p, objs,
			n) == 0))
		return 0;
	return __rxr_pool_alloc_slow(p, objs, n);
}

static int
free_layered(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	__atomic_load_n(&p->fns.free, __ATOMIC_RELAXED)(p, objs, n);
	return 0;
}

void
rxrp_ops_set(struct rxr_pool *p, rxr_pool_alloc_t alloc, rxr_pool_free_t free)
{
	const struct rxrp_strategy *s = p->strategy;
	unsigned int b = p->conf.bulk;
	rxr_pool_alloc_t alloc_entry = alloc_layered;
	rxr_pool_free_entry_t free_entry = free_layered;

	if (alloc == s->alloc[b] && s->alloc_entry[b] != NULL)
		alloc_entry = s->alloc_entry[b];
	if (free == s->free[b] && s->free_entry[b] != NULL)
		free_entry = s->free_entry[b];
	/* The entries go to the layers first when one comes in, last when
	 * one goes: a caller that reads an entry and then fns runs a layer
	 * or skips it for one call, either being there to run. */
	__atomic_store_n(&p->ops.alloc, alloc_layered, __ATOMIC_RELAXED);
	__atomic_store_n(&p->ops.free, free_layered, __ATOMIC_RELAXED);
	__atomic_store_n(&p->fns.alloc, alloc, __ATOMIC_RELAXED);
	__atomic_store_n(&p->fns.free, free, __ATOMIC_RELAXED);
	__atomic_store_n(&p->ops.alloc, alloc_entry, __ATOMIC_RELAXED);
	__atomic_store_n(&p->ops.free, free_entry, __ATOMIC_RELAXED);
}

int
__rxr_pool_alloc_learn(struct rxr_pool *p, void **objs, unsigned int n)
{
	const struct rxr_pool_ops *ops = (const struct rxr_pool_ops *)p;

	/* Still unknown in a handler or a registered non-EAL thread: the
	 * entry itself, not __rxr_pool_alloc_entry(), which would come back. */
	rxr_ctx_lcore_learn();
	if (rxr_pool_alloc_inline(p, objs, n))
		return 0;
	return __atomic_load_n(&ops->alloc, __ATOMIC_RELAXED)(p, objs, n);
}

int
__rxr_pool_free_learn(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	const struct rxr_pool_ops *ops = (const struct rxr_pool_ops *)p;

	rxr_ctx_lcore_learn();
	if (rxr_pool_free_inline(p, objs, n))
		return 0;
	return __atomic_load_n(&ops->free, __ATOMIC_RELAXED)(p, objs, n);
}

int
rxr_pool_alloc_call(struct rxr_pool *p, void **objs, unsigned int n)
{
	return __rxr_pool_alloc_entry(p, objs, n);
}

void
rxr_pool_free_call(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	__rxr_pool_free_entry(p, objs, n);
}

/* The owner's bh-enable point: its deferred list into its pcp. */
unsigned int
__rxr_pool_poll_end(struct rxr_pool *p)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	unsigned int n;
	uint64_t t0;

	if (unlikely(ls == NULL))
		return 0;
	/* Nothing deferred (the usual case with no remote consumer): no
	 * call, one load of a line only remote frees write. */
	if (likely(RXRP_DEFER_HEAD(__atomic_load_n(&ls->defer_head,
			__ATOMIC_RELAXED)) == RXRP_NIL))
		return 0;
	if (likely(!ls->sampling))
		return rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	/* A latency sample: the drain is the allocator's work too. */
	t0 = rte_rdtsc();
	n = rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	RXR_STAT_ADD(ls->sample_cycles, rte_rdtsc() - t0);
	return n;
}
