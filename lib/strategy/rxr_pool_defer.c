/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The deferred list: frees from contexts that may not touch a poll
 * lcore's pcp, pushed lock-free and drained by the owner at its bh-enable
 * point. A service of the core for strategies that defer frees
 * (RXR_STRATEGY_CAP_DEFERS_FREES).
 */

#include <errno.h>

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include "rxr_pool_private.h"

static inline uint32_t
global_idx(const struct rxr_pool *p, const void *f)
{
	unsigned int node = rxrp_frame_node(p, f);

	return p->zone_base[node] + rxr_zone_frame_idx(p->zone[node], f);
}

static inline void *
global_frame(const struct rxr_pool *p, uint32_t g)
{
	unsigned int node = 0;

	while (g >= p->zone_base[node + 1])
		node++;
	return rxr_zone_frame_at(p->zone[node], g - p->zone_base[node]);
}

/*
 * Lock-free push of one free call's frames (Treiber stack of batches): the
 * frames are written into batch nodes first, then one compare-and-swap
 * links them all; it never waits on another thread, so a signal handler
 * may push, also over a push it interrupted. Nothing is held back between
 * calls, so no frame waits in a thread's partial batch. The word carries
 * the list's frame count, so the pool's count of available frames includes
 * frames waiting here. A drain takes the whole list at once, so there is
 * no ABA.
 */
void
rxrp_defer_push(struct rxr_pool *p, struct rxrp_lcore *ls, void * const *objs,
		unsigned int n)
{
	struct rxrp_defer_link *tail = NULL;
	uint32_t first = RXRP_NIL;
	uint64_t head, want;

	if (n == 0)
		return;
	for (unsigned int i = 0; i < n; i += RXRP_DEFER_BATCH) {
		unsigned int k = RTE_MIN(n - i, (unsigned int)RXRP_DEFER_BATCH);
		uint32_t g = global_idx(p, objs[i]);
		struct rxrp_defer_link *l = &p->defer_link[g];
		uint32_t *rest = p->defer_rest[g].idx;

		l->n = k;
		for (unsigned int j = 1; j < k; j++)
			rest[j - 1] = global_idx(p, objs[i + j]);
		if (tail != NULL)
			tail->next = g;
		else
			first = g;
		tail = l;
	}
	head = __atomic_load_n(&ls->defer_head, __ATOMIC_RELAXED);
	do {
		tail->next = RXRP_DEFER_HEAD(head);
		want = ((uint64_t)first << 32) | (RXRP_DEFER_COUNT(head) + n);
	} while (!__atomic_compare_exchange_n(&ls->defer_head, &head, want,
			true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* tmp[0..k) to fn (NULL: to the zone). */
static inline void
defer_hand(struct rxr_pool *p, struct rxrp_lcore *ls, void **tmp,
		unsigned int k, rxrp_local_free_t fn)
{
	if (fn != NULL)
		rxrp_split_local(p, ls, tmp, k, fn);
	else
		rxrp_zone_free(p, tmp, k, true);
}

/*
 * Take ls's whole list and hand it to fn in chunks (fn NULL: to the zone).
 * A batch is read whole before any of its frames leaves (a freed frame may
 * be pushed again, into the same slots). The next batch's link is
 * prefetched while this one is read. The count drops only once the frames are where
 * fn put them. Any thread may drain any list.
 */
unsigned int
rxrp_defer_drain(struct rxr_pool *p, struct rxrp_lcore *ls,
		rxrp_local_free_t fn)
{
	void *tmp[RXRP_CHUNK];
	unsigned int k = 0, total = 0;
	uint64_t head;
	uint32_t g;

	static_assert(RXRP_CHUNK >= RXRP_DEFER_BATCH,
		"a chunk holds a batch");
	head = __atomic_load_n(&ls->defer_head, __ATOMIC_RELAXED);
	do {
		if (RXRP_DEFER_HEAD(head) == RXRP_NIL)
			return 0;
	} while (!__atomic_compare_exchange_n(&ls->defer_head, &head,
			RXRP_DEFER_EMPTY | RXRP_DEFER_COUNT(head), true,
			__ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	g = RXRP_DEFER_HEAD(head);
	while (g != RXRP_NIL) {
		const uint32_t *rest = p->defer_rest[g].idx;
		uint32_t next, m;

		rte_prefetch0(rest);
		rte_prefetch0(rest + RTE_CACHE_LINE_SIZE / sizeof(*rest));
		next = p->defer_link[g].next;
		m = p->defer_link[g].n;
		if (next != RXRP_NIL)
			rte_prefetch0(&p->defer_link[next]);
		if (k + m > RXRP_CHUNK) {
			defer_hand(p, ls, tmp, k, fn);
			total += k;
			k = 0;
		}
		tmp[k++] = global_frame(p, g);
		for (uint32_t j = 1; j < m; j++)
			tmp[k++] = global_frame(p, rest[j - 1]);
		g = next;
	}
	if (k != 0) {
		defer_hand(p, ls, tmp, k, fn);
		total += k;
	}
	__atomic_fetch_sub(&ls->defer_head, (uint64_t)total, __ATOMIC_RELEASE);
	if (fn != NULL) {
		RXR_STAT_ADD(ls->deferred_drained, total);
		RXR_STAT_ADD(ls->deferred_drains, 1);
	}
	return total;
}

/* --- reclaim: nothing stays out of reach when an allocation would fail --- */

void
__rxr_pool_bh_wait(struct rxr_pcp *pcp)
{
	do {
		__atomic_store_n(&pcp->bh_count, pcp->bh_count - 1,
				__ATOMIC_RELEASE);
		while (__atomic_load_n(&pcp->drain_req, __ATOMIC_ACQUIRE) != 0)
			rte_pause();
		__atomic_store_n(&pcp->bh_count, pcp->bh_count + 1,
				__ATOMIC_RELAXED);
		rte_compiler_barrier();
	} while (__atomic_load_n(&pcp->drain_req, __ATOMIC_ACQUIRE) != 0);
}

/*
 * Empty an owner's caches from another thread when the owner takes no
 * atomics (Dekker's pattern with an asymmetric barrier): publish the
 * request, make every thread of the process execute a full barrier, then
 * read the owner's section counter. Zero: the owner is outside and will
 * see the request before it enters, so its caches are ours until the
 * request is cleared. Not zero: it is working (or stopping) with them;
 * leave them.
 */
static unsigned int
reclaim_owner_caches(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	struct rxr_pcp *pcp = ls->pcp;
	unsigned int got = 0;

	__atomic_store_n(&pcp->drain_req, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0 &&
			__atomic_load_n(&pcp->bh_count, __ATOMIC_ACQUIRE) == 0) {
		if (p->strategy->reclaim != NULL)
			got = p->strategy->reclaim(p, ls);
		got += pcp->count;
		rxr_pcp_drain(pcp);
	}
	__atomic_store_n(&pcp->drain_req, 0, __ATOMIC_RELEASE);
	return got;
}

/* irqsave: every context takes the pcp lock, so a reclaim may too. */
static unsigned int
reclaim_locked_pcp(struct rxrp_lcore *ls)
{
	struct rxr_spinlock *l = rxrp_irqsave_lock_of(ls);
	unsigned int got;

	rxr_spinlock_lock(l);
	got = ls->pcp->count;
	rxr_pcp_drain(ls->pcp);
	rxr_spinlock_unlock(l);
	return got;
}

/*
 * Deferred lists to the zone, then, outside signal handlers, the caches
 * of every lcore the strategy lets another thread empty (Linux's
 * drain_all_pages() before an allocation gives up).
 * @return frames brought back.
 */
static unsigned int
pool_reclaim(struct rxr_pool *p)
{
	uint32_t caps = p->strategy->caps;
	unsigned int got = 0;

	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (p->lcore[lc] != NULL)
			got += rxrp_defer_drain(p, p->lcore[lc], NULL);
	if (rxr_in_irq())
		return got;
	rxr_spinlock_lock(&p->reclaim_lock);
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		struct rxrp_lcore *ls = p->lcore[lc];

		if (ls == NULL)
			continue;
		if (caps & RXR_STRATEGY_CAP_PCP_LOCK)
			got += reclaim_locked_pcp(ls);
		else if ((caps & RXR_STRATEGY_CAP_DEFERS_FREES) &&
				p->remote_drain)
			got += reclaim_owner_caches(p, ls);
	}
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
	return __atomic_load_n(&p->ops.alloc, __ATOMIC_RELAXED)(p, objs, n) == 0 ?
		0 : -ENOBUFS;
}

int
rxr_pool_alloc_call(struct rxr_pool *p, void **objs, unsigned int n)
{
	/* Atomic: rxr_pool_sample() swaps the timing layer in and out. */
	if (likely(__atomic_load_n(&p->ops.alloc, __ATOMIC_RELAXED)(p, objs,
			n) == 0))
		return 0;
	return __rxr_pool_alloc_slow(p, objs, n);
}

void
rxr_pool_free_call(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	__atomic_load_n(&p->ops.free, __ATOMIC_RELAXED)(p, objs, n);
}

/* The owner's bh-enable point: its deferred list into its pcp. */
unsigned int
rxr_pool_poll_end(struct rxr_pool *p)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	unsigned int n;
	uint64_t t0;

	if (unlikely(ls == NULL))
		return 0;
	if (likely(!ls->sampling))
		return rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	/* A latency sample: the drain is the allocator's work too. */
	t0 = rte_rdtsc();
	n = rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	RXR_STAT_ADD(ls->sample_cycles, rte_rdtsc() - t0);
	return n;
}
