/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * irqsave: rmqueue_pcplist() and free_unref_page() under local_irq_save(),
 * as before Linux 5.14: any context uses its CPU's pcp under a per-pcp lock
 * (an atomic). The owner waits for it; any other context only tries it (it
 * may have interrupted the holder) and uses the zone when it is held. A
 * handler uses the pcp only when no zone transfer is needed.
 */

#include "rxr_pool_private.h"

/* Per poll lcore: the lock other contexts try, and how often they fail. */
struct irqsave_lcore {
	struct rxr_spinlock pcp_lock;
	uint64_t zone_fallback;		/* atomic: any context */
};
RXRP_LCORE_PRIV_CHECK(struct irqsave_lcore);

static inline struct irqsave_lcore *
irqsave_of(const struct rxrp_lcore *ls)
{
	return rxrp_lcore_priv(ls);
}

/* local_irq_save(): the pcp the caller may use, locked; NULL: the zone. */
static inline struct rxrp_lcore *
irqsave_lock(struct rxr_pool *p, bool alloc, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	struct irqsave_lcore *il;

	if (likely(ls != NULL)) {
		rxr_spinlock_lock(&irqsave_of(ls)->pcp_lock);
		return ls;
	}
	ls = rxrp_cpu_lcore(p);
	if (ls == NULL)
		return NULL;
	il = irqsave_of(ls);
	if (rxr_spinlock_trylock(&il->pcp_lock)) {
		if (likely(!rxr_in_irq()) || (alloc ? ls->pcp->count >= n :
				ls->pcp->count + n <= ls->pcp->high))
			return ls;
		rxr_spinlock_unlock(&il->pcp_lock);
	}
	__atomic_fetch_add(&il->zone_fallback, 1, __ATOMIC_RELAXED);
	return NULL;
}

static inline void
irqsave_unlock(struct rxrp_lcore *ls)
{
	rxr_spinlock_unlock(&irqsave_of(ls)->pcp_lock);
}

/* rmqueue_pcplist(): the pcp, refilled from the zone when short. */
static int
irqsave_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct rxrp_lcore *ls;
	int ret;

	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_alloc_frames(p, objs, n);
	ls = irqsave_lock(p, true, n);
	if (ls == NULL) {
		ret = rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n);
	} else {
		ret = rxr_pcp_alloc_bulk(ls->pcp, objs, n);
		irqsave_unlock(ls);
	}
	return likely(ret == 0) ? 0 : rxrp_alloc_failed(p, objs, n);
}

/* free_unref_page(): onto the pcp, draining to the zone when full. */
static int
irqsave_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rxrp_lcore *ls;

	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_free_frames(p, objs, n);
	ls = irqsave_lock(p, false, n);
	if (ls == NULL) {
		rxrp_zone_free(p, objs, n);
		return 0;
	}
	rxrp_split_local(p, ls, objs, n, rxrp_pcp_free_local);
	irqsave_unlock(ls);
	return 0;
}

/* Every context takes the pcp lock, a reclaim and a quiet drain too. */
static unsigned int
irqsave_drain(struct rxr_pool *p, struct rxrp_lcore *ls, bool quiet)
{
	unsigned int got;

	if (ls == NULL)
		return 0;
	rxr_spinlock_lock(&irqsave_of(ls)->pcp_lock);
	got = ls->pcp->count;
	if (quiet)
		got = rxrp_lcore_drain(p, ls);
	else
		rxr_pcp_drain(ls->pcp);
	irqsave_unlock(ls);
	return got;
}

/* Its own counters, in the order of irqsave_counters[]. */
#define IRQSAVE_COUNTERS(X) \
	X(zone_fallback, "lock held by another context, zone used") \
	X(lock_acquisitions, "per-pcp lock acquisitions") \
	X(lock_contended, "acquisitions that found it held") \
	X(lock_wait_cycles, "TSC cycles spent waiting for it")

RXRP_COUNTERS_DEFINE(IRQSAVE_COUNTERS, irqsave_counters);

static void
irqsave_stats(const struct rxr_pool *p, const struct rxrp_lcore *ls,
		struct rxr_pool_lcore_stats *o)
{
	const struct irqsave_lcore *il = irqsave_of(ls);
	struct rxr_lock_stats lock;

	rxr_spinlock_stats(&il->pcp_lock, &lock);
	o->counters[RXRP_C_zone_fallback] = RXR_STAT_READ(il->zone_fallback);
	o->counters[RXRP_C_lock_acquisitions] = lock.acquisitions;
	o->counters[RXRP_C_lock_contended] = lock.contended;
	o->counters[RXRP_C_lock_wait_cycles] = lock.wait_cycles;
}

const struct rxrp_strategy rxrp_strategy_irqsave = {
	.name = "irqsave",
	.alloc = irqsave_alloc,
	.free = irqsave_free,
	.drain = irqsave_drain,
	.stats = irqsave_stats,
	.counters = irqsave_counters,
};
