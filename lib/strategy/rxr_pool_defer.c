/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The deferred list: frees from contexts that may not touch a poll lcore's
 * pcp, pushed lock-free and drained by the owner at its bh-enable point;
 * rxrp_lcore_drain(), what every quiet drain ends with; and the reclaim.
 */

#include <errno.h>

#include <rte_prefetch.h>

#include "rxr_pool_private.h"

static inline uint32_t
global_idx(const struct rxr_pool *p, const void *f)
{
	unsigned int node;

	/* One zone, one region: a division (debug builds keep the zone's
	 * lookup, which checks that f is one of its frames). */
	if (likely(p->flat_base != 0) && likely(!RXR_DEBUG))
		return (uint32_t)rte_reciprocal_divide_u64((uintptr_t)f -
				p->flat_base, &p->frame_div);
	node = rxrp_frame_node(p, f);

	return p->zone_base[node] + rxr_zone_frame_idx(p->zone[node], f);
}

static inline void *
global_frame(const struct rxr_pool *p, uint32_t g)
{
	unsigned int node = 0;

	if (likely(p->flat_base != 0))
		return (void *)(p->flat_base + (uintptr_t)g * p->frame_size);
	while (g >= p->zone_base[node + 1])
		node++;
	return rxr_zone_frame_at(p->zone[node], g - p->zone_base[node]);
}

/*
 * objs[0..n) into batches under their first frames' slots, linked from
 * *first to *tail (tail->next left to the publisher); an unpublished,
 * unfilled *tail of the caller's own is filled up first.
 */
static inline void
defer_chain(struct rxr_pool *p, void * const *objs, unsigned int n,
		uint32_t *first, struct rxrp_defer_link **tail)
{
	struct rxrp_defer_link *t = *tail;
	unsigned int i = 0;

	if (t != NULL && t->n < RXRP_DEFER_BATCH) {
		/* The batch's own index: t is &p->defer_link[g]. */
		uint32_t *rest = p->defer_rest[t - p->defer_link].idx;

		for (; i < n && t->n < RXRP_DEFER_BATCH; i++)
			rest[t->n++ - 1] = global_idx(p, objs[i]);
	}
	while (i < n) {
		unsigned int k = RTE_MIN(n - i, (unsigned int)RXRP_DEFER_BATCH);
		uint32_t g = global_idx(p, objs[i]);
		struct rxrp_defer_link *l = &p->defer_link[g];
		uint32_t *rest = p->defer_rest[g].idx;

		l->n = k;
		for (unsigned int j = 1; j < k; j++)
			rest[j - 1] = global_idx(p, objs[i + j]);
		if (t != NULL)
			t->next = g;
		else
			*first = g;
		t = l;
		i += k;
	}
	*tail = t;
}

/* Link a chain of n frames onto ls's list: one compare-and-swap. */
static inline void
defer_publish(struct rxrp_lcore *ls, uint32_t first,
		struct rxrp_defer_link *tail, unsigned int n)
{
	uint64_t head, want;

	head = __atomic_load_n(&ls->defer_head, __ATOMIC_RELAXED);
	do {
		tail->next = RXRP_DEFER_HEAD(head);
		want = ((uint64_t)first << 32) | (RXRP_DEFER_COUNT(head) + n);
	} while (!__atomic_compare_exchange_n(&ls->defer_head, &head, want,
			true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/*
 * Lock-free push of one call's frames (a Treiber stack of batches): one
 * compare-and-swap, never waiting, so a handler may push over a push it
 * interrupted. A drain takes the whole list at once: no ABA.
 */
void
rxrp_defer_push(struct rxr_pool *p, struct rxrp_lcore *ls, void * const *objs,
		unsigned int n)
{
	struct rxrp_defer_link *tail = NULL;
	uint32_t first = RXRP_NIL;

	if (n == 0)
		return;
	defer_chain(p, objs, n, &first, &tail);
	defer_publish(ls, first, tail, n);
}

/* A thread's binding (rxr_pool_task_bind()), read by rxrp_task_target(). */
RTE_DEFINE_PER_LCORE(struct rxr_pool *, rxrp_bind_pool);
RTE_DEFINE_PER_LCORE(struct rxrp_lcore *, rxrp_bind_lcore);

int
rxr_pool_task_bind(struct rxr_pool *p, unsigned int lcore)
{
	if (lcore >= RTE_MAX_LCORE || p->lcore[lcore] == NULL)
		return -EINVAL;
	RTE_PER_LCORE(rxrp_bind_pool) = p;
	RTE_PER_LCORE(rxrp_bind_lcore) = p->lcore[lcore];
	return 0;
}

/* A task thread's unpublished frees (rxr_pool_task_batch()): a chain in
 * full batches, published with one compare-and-swap at max frames. */
struct rxrp_task_batch {
	struct rxr_pool *pool;		/* NULL: no batch asked for */
	struct rxrp_lcore *ls;		/* whose list the chain goes to */
	struct rxrp_defer_link *tail;	/* NULL: empty */
	uint32_t first;
	uint32_t count;
	uint32_t max;
};

static RTE_DEFINE_PER_LCORE(struct rxrp_task_batch, rxrp_task_batch);

static void
task_batch_publish(struct rxrp_task_batch *tb)
{
	if (tb->tail == NULL)
		return;
	defer_publish(tb->ls, tb->first, tb->tail, tb->count);
	tb->tail = NULL;
	tb->first = RXRP_NIL;
	tb->count = 0;
}

void
rxrp_defer_free(struct rxr_pool *p, struct rxrp_lcore *ls, void * const *objs,
		unsigned int n)
{
	struct rxrp_task_batch *tb = &RTE_PER_LCORE(rxrp_task_batch);

	/* A handler may interrupt the thread's own batch: it pushes. */
	if (likely(tb->pool != p) || n == 0 || rxr_in_irq()) {
		rxrp_defer_push(p, ls, objs, n);
		return;
	}
	if (tb->ls != ls) {
		task_batch_publish(tb);
		tb->ls = ls;
	}
	defer_chain(p, objs, n, &tb->first, &tb->tail);
	tb->count += n;
	if (tb->count >= tb->max)
		task_batch_publish(tb);
}

int
rxr_pool_task_batch(struct rxr_pool *p, unsigned int max)
{
	struct rxrp_task_batch *tb = &RTE_PER_LCORE(rxrp_task_batch);

	if (max > RXR_POOL_TASK_BATCH_MAX)
		return -EINVAL;
	if (tb->pool != NULL)
		task_batch_publish(tb);
	tb->pool = max > 1 ? p : NULL;
	tb->ls = NULL;
	tb->max = max;
	return 0;
}

void
rxr_pool_task_flush(struct rxr_pool *p)
{
	struct rxrp_task_batch *tb = &RTE_PER_LCORE(rxrp_task_batch);

	if (tb->pool == p)
		task_batch_publish(tb);
}

/* tmp[0..k) to fn (NULL: to the zone). */
static inline void
defer_hand(struct rxr_pool *p, struct rxrp_lcore *ls, void **tmp,
		unsigned int k, rxrp_local_free_t fn)
{
	if (fn != NULL)
		rxrp_split_local(p, ls, tmp, k, fn);
	else
		rxrp_zone_free(p, tmp, k);
}

/* Batches whose links a drain reads before it reads their frames. */
#define DRAIN_AHEAD 8u

/*
 * Take ls's whole list to fn in chunks (NULL: the zone), any thread. A
 * batch is read whole before its frames leave (they may come back into the
 * same slots); DRAIN_AHEAD links are followed first, their batches
 * prefetched, so that the misses overlap. The count drops last.
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
		uint32_t win[DRAIN_AHEAD], wn[DRAIN_AHEAD];
		unsigned int nw = 0;

		do {
			const uint32_t *rest = p->defer_rest[g].idx;

			rte_prefetch0(rest);
			rte_prefetch0(rest + RTE_CACHE_LINE_SIZE / sizeof(*rest));
			win[nw] = g;
			wn[nw++] = p->defer_link[g].n;
			g = p->defer_link[g].next;
		} while (g != RXRP_NIL && nw < DRAIN_AHEAD);
		for (unsigned int b = 0; b < nw; b++) {
			const uint32_t *rest = p->defer_rest[win[b]].idx;
			uint32_t m = wn[b];

			if (k + m > RXRP_CHUNK) {
				defer_hand(p, ls, tmp, k, fn);
				total += k;
				k = 0;
			}
			tmp[k++] = global_frame(p, win[b]);
			for (uint32_t j = 1; j < m; j++)
				tmp[k++] = global_frame(p, rest[j - 1]);
		}
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

unsigned int
rxrp_lcore_drain(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	unsigned int n = ls->pcp->count;

	if (ls->supply != NULL)
		rxr_zero_supply_drain(ls->supply);
	n += rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	rxr_pcp_drain(ls->pcp);
	return n;
}

/* --- the reclaim: drain_all_pages() -------------------------------------- */

/* Deferred lists to the zone, then (not in a handler) what the strategy
 * can take from the running lcores' caches. @return frames brought back. */
static unsigned int
pool_reclaim(struct rxr_pool *p)
{
	const struct rxrp_strategy *st = p->strategy;
	struct rxrp_lcore *ls;
	unsigned int got = 0;

	RXRP_FOREACH_LCORE(p, ls, lc)
		got += rxrp_defer_drain(p, ls, NULL);
	if (rxr_in_irq() || st->drain == NULL)
		return got;
	rxr_spinlock_lock(&p->reclaim_lock);
	RXRP_FOREACH_LCORE(p, ls, lc)
		got += st->drain(p, ls, false);
	got += st->drain(p, NULL, false);
	rxr_spinlock_unlock(&p->reclaim_lock);
	return got;
}

/* A thread's reclaim under way: the retry does not reclaim again. */
static RTE_DEFINE_PER_LCORE(bool, rxrp_reclaiming);

int
rxrp_alloc_failed(struct rxr_pool *p, void **objs, unsigned int n)
{
	int ret;

	if (RTE_PER_LCORE(rxrp_reclaiming) || pool_reclaim(p) == 0)
		return -ENOBUFS;
	RTE_PER_LCORE(rxrp_reclaiming) = true;
	ret = p->strategy->alloc(p, objs, n);
	RTE_PER_LCORE(rxrp_reclaiming) = false;
	return ret;
}
