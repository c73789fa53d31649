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

/* For white-box tests only: the core never takes it. */
struct rxr_spinlock *
rxrp_irqsave_lock_of(struct rxrp_lcore *ls)
{
	return &irqsave_of(ls)->pcp_lock;
}

/*
 * Lock the pcp the caller may use; NULL: use the zone. @p need is the
 * room the call needs without a zone transfer: a signal handler holding the
 * pcp lock must not go on to spin on the zone lock (its interrupted thread
 * may hold it), so it uses the pcp only when no transfer is needed.
 */
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

static int
irqsave_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct rxrp_lcore *ls = irqsave_lock(p, true, n);
	int ret;

	if (ls == NULL)
		return rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n, true);
	ret = rxr_pcp_alloc_bulk(ls->pcp, objs, n);
	rxr_spinlock_unlock(&irqsave_of(ls)->pcp_lock);
	return ret;
}

static void
irqsave_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rxrp_lcore *ls = irqsave_lock(p, false, n);

	if (ls == NULL) {
		rxrp_zone_free(p, objs, n, true);
		return;
	}
	rxrp_split_local(p, ls, objs, n, rxrp_pcp_free_raw);
	rxr_spinlock_unlock(&irqsave_of(ls)->pcp_lock);
}

RXRP_PER_FRAME_OPS(irqsave)

/*
 * A thread or handler on the same CPU may be using this pcp while the owner
 * stops: drain it inside the same lock they take.
 */
static void
irqsave_flush(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	struct irqsave_lcore *il = irqsave_of(ls);

	rxr_spinlock_lock(&il->pcp_lock);
	rxrp_lcore_drain(p, ls);
	rxr_spinlock_unlock(&il->pcp_lock);
}

/* Its own counters, in the order of irqsave_counter_names. */
#define IRQSAVE_COUNTERS(X) \
	X(zone_fallback, "lock held by another context, zone used") \
	X(lock_acquisitions, "per-pcp lock acquisitions") \
	X(lock_contended, "acquisitions that found it held") \
	X(lock_wait_cycles, "TSC cycles spent waiting for it")

enum {
#define IRQSAVE_ENUM(name, help) IRQSAVE_C_##name,
	IRQSAVE_COUNTERS(IRQSAVE_ENUM)
#undef IRQSAVE_ENUM
	IRQSAVE_NB_COUNTERS,
};
static_assert(IRQSAVE_NB_COUNTERS <= RXR_STRATEGY_COUNTERS_MAX,
	"irqsave counters do not fit rxr_pool_lcore_stats.counters");

static const char * const irqsave_counter_names[] = {
#define IRQSAVE_NAME(name, help) #name,
	IRQSAVE_COUNTERS(IRQSAVE_NAME)
#undef IRQSAVE_NAME
	NULL,
};

/* The pool's reclaim: every context takes the pcp lock, so it may too. */
static unsigned int
irqsave_reclaim(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	struct irqsave_lcore *il = irqsave_of(ls);
	unsigned int got;

	RTE_SET_USED(p);
	rxr_spinlock_lock(&il->pcp_lock);
	got = ls->pcp->count;
	rxr_pcp_drain(ls->pcp);
	rxr_spinlock_unlock(&il->pcp_lock);
	return got;
}

static void
irqsave_stats(const struct rxr_pool *p, const struct rxrp_lcore *ls,
		struct rxr_pool_lcore_stats *o)
{
	const struct irqsave_lcore *il = irqsave_of(ls);
	struct rxr_lock_stats lock;

	rxr_spinlock_stats(&il->pcp_lock, &lock);
	o->counters[IRQSAVE_C_zone_fallback] = RXR_STAT_READ(il->zone_fallback);
	o->counters[IRQSAVE_C_lock_acquisitions] = lock.acquisitions;
	o->counters[IRQSAVE_C_lock_contended] = lock.contended;
	o->counters[IRQSAVE_C_lock_wait_cycles] = lock.wait_cycles;
}

const struct rxrp_strategy rxrp_strategy_irqsave = {
	.name = "irqsave",
	.caps = RXR_STRATEGY_CAP_PCP_LOCK,
	RXRP_OPS(irqsave),
	.lcore_priv_size = sizeof(struct irqsave_lcore),
	.flush = irqsave_flush,
	.lcore_reclaim = irqsave_reclaim,
	.stats = irqsave_stats,
	.counter_names = irqsave_counter_names,
};
