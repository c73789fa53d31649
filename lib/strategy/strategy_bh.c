/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * bh: rmqueue_pcplist() and free_unref_page() with the pcp guarded by
 * local_bh_disable(), as Linux commit 374ad05ab64d (4.11-rc1) did: only the
 * owning poll lcore touches its pcp, inside a plain nesting counter. Unlike
 * the kernel, other contexts cannot be kept off the CPU: they free onto the
 * owner's deferred list, drained at rxr_pool_poll_end() and when the pcp
 * runs short (as mimalloc's delayed frees), and allocate from the zone.
 * Fast paths: the pcp's stack, also inline; slow: lib/pcp's rmqueue_bulk
 * and free_pcppages_bulk.
 */

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_pause.h>

#include "rxr_pool_private.h"

/* The pcp short: deferred frees first, then rmqueue_bulk from the zone. */
static __rte_noinline int
bh_alloc_refill(struct rxr_pool *p, struct rxrp_lcore *ls, void **objs,
		unsigned int n)
{
	if (rxrp_defer_count(ls) != 0) {
		rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
		if (rxr_pcp_pop(ls->pcp, objs, n))
			return 0;
	}
	return __rxr_pcp_refill(ls->pcp, objs, n);
}

/* rmqueue_pcplist(): the pcp under the bh section; others the zone. */
static int
bh_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	int ret = 0;

	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_alloc_frames(p, objs, n);
	if (unlikely(ls == NULL)) {
		ret = rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n);
	} else {
		rxr_pool_bh_disable(ls->bh);
		if (unlikely(!rxr_pcp_pop(ls->pcp, objs, n)))
			ret = bh_alloc_refill(p, ls, objs, n);
		rxr_pool_bh_enable(ls->bh);
	}
	return likely(ret == 0) ? 0 : rxrp_alloc_failed(p, objs, n);
}

static int
bh_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);

	if (unlikely(rxrp_per_frame(p, n)))
		return rxrp_free_frames(p, objs, n);
	if (likely(ls != NULL))
		rxrp_split_local(p, ls, objs, n, rxrp_pcp_free_owner);
	else
		rxrp_defer_free(p, rxrp_task_target(p), objs, n);
	return 0;
}

/* An outermost entry met a reclaim's request: out again until it is done. */
void
__rxr_pool_bh_wait(struct rxr_pool_bh *bh)
{
	do {
		__atomic_store_n(&bh->count, bh->count - 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&bh->drain_req, __ATOMIC_ACQUIRE) != 0)
			rte_pause();
		__atomic_store_n(&bh->count, bh->count + 1, __ATOMIC_RELAXED);
		rte_compiler_barrier();
	} while (__atomic_load_n(&bh->drain_req, __ATOMIC_ACQUIRE) != 0);
}

/*
 * Empty an owner's caches from another thread, the owner taking no atomics
 * (Dekker's pattern, asymmetric barrier): publish the request, membarrier,
 * read the owner's counter. Zero: the owner will see the request before it
 * enters. Not zero: wait until it leaves, as drain_all_pages() waits.
 */
unsigned int
rxrp_bh_reclaim(struct rxr_pool *p, struct rxrp_lcore *ls,
		unsigned int (*own)(struct rxr_pool *p, struct rxrp_lcore *ls))
{
	struct rxr_pool_bh *bh = ls->bh;
	unsigned int got = 0;

	/* Registered the first time it is needed; none: out of reach. */
	if (p->remote_drain == 0)
		p->remote_drain = syscall(__NR_membarrier,
			MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ?
			1 : -1;
	if (p->remote_drain < 0)
		return 0;
	__atomic_store_n(&bh->drain_req, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		goto out;
	/* Not its own: the owner itself would wait for ever. */
	while (__atomic_load_n(&bh->count, __ATOMIC_ACQUIRE) != 0 &&
			ls != rxrp_self_lcore(p))
		rte_pause();
	if (__atomic_load_n(&bh->count, __ATOMIC_ACQUIRE) == 0) {
		if (own != NULL)
			got = own(p, ls);
		got += ls->pcp->count;
		rxr_pcp_drain(ls->pcp);
	}
out:
	__atomic_store_n(&bh->drain_req, 0, __ATOMIC_RELEASE);
	return got;
}

/* Quiet: the owner drains inside its section, keeping a reclaim out. */
static unsigned int
bh_drain(struct rxr_pool *p, struct rxrp_lcore *ls, bool quiet)
{
	unsigned int got;

	if (ls == NULL)
		return 0;
	if (!quiet)
		return rxrp_bh_reclaim(p, ls, NULL);
	rxr_pool_bh_disable(ls->bh);
	got = rxrp_lcore_drain(p, ls);
	rxr_pool_bh_enable(ls->bh);
	return got;
}

const struct rxrp_strategy rxrp_strategy_bh = {
	.name = "bh",
	.caps = RXR_STRATEGY_CAP_DEFERS_FREES | RXR_STRATEGY_CAP_OWNER_INLINE,
	.alloc = bh_alloc,
	.free = bh_free,
	.drain = bh_drain,
};
