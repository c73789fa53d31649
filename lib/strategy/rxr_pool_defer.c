/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The deferred list: frees from contexts that may not touch a poll
 * lcore's pcp, pushed lock-free and drained by the owner at its bh-enable
 * point. A service of the core for strategies that defer frees
 * (RXR_STRATEGY_CAP_DEFERS_FREES).
 */

#include <rte_cycles.h>

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
 * Lock-free push of a linked batch (Treiber stack): one compare-and-swap
 * per call, never waits on another thread, so a signal handler may push.
 * The owner takes the whole list with one exchange, so there is no ABA.
 */
void
rxrp_defer_push(struct rxr_pool *p, struct rxrp_lcore *ls, void * const *objs,
		unsigned int n)
{
	uint32_t first, last, head;

	if (n == 0)
		return;
	first = last = global_idx(p, objs[0]);
	for (unsigned int i = 1; i < n; i++) {
		uint32_t g = global_idx(p, objs[i]);

		p->defer_next[last] = g;
		last = g;
	}
	head = __atomic_load_n(&ls->defer_head, __ATOMIC_RELAXED);
	do {
		p->defer_next[last] = head;
	} while (!__atomic_compare_exchange_n(&ls->defer_head, &head, first,
			true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

unsigned int
rxrp_defer_drain(struct rxr_pool *p, struct rxrp_lcore *ls,
		rxrp_local_free_t fn)
{
	void *tmp[RXRP_CHUNK];
	unsigned int k = 0, total = 0;
	uint32_t g;

	if (__atomic_load_n(&ls->defer_head, __ATOMIC_RELAXED) == RXRP_NIL)
		return 0;
	g = __atomic_exchange_n(&ls->defer_head, RXRP_NIL, __ATOMIC_ACQUIRE);
	while (g != RXRP_NIL) {
		tmp[k++] = global_frame(p, g);
		g = p->defer_next[g];
		if (k == RXRP_CHUNK || g == RXRP_NIL) {
			rxrp_split_local(p, ls, tmp, k, fn);
			total += k;
			k = 0;
		}
	}
	RXR_STAT_ADD(ls->deferred_drained, total);
	RXR_STAT_ADD(ls->deferred_drains, 1);
	return total;
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
