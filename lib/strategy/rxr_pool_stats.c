/* SPDX-License-Identifier: BSD-3-Clause */

/* The pool's statistics, made from the counter lists (RXR_PCP_COUNTERS,
 * RXR_POOL_LCORE_COUNTERS): a counter added there needs no change here. */

#include <string.h>

#include "rxr_pool_private.h"

/* The frames of all zones (@p nr_free false), or the free ones. */
static uint64_t
zones_frames(const struct rxr_pool *p, bool nr_free)
{
	uint64_t n = 0;

	for (unsigned int z = 0; z < p->nr_zones; z++) {
		struct rxr_zone_stats zs;

		rxr_zone_stats(p->zone[z], &zs);
		n += nr_free ? zs.nr_free : zs.nr_frames;
	}
	return n;
}

uint64_t
rxr_pool_avail(const struct rxr_pool *p)
{
	uint64_t n = zones_frames(p, true);
	struct rxrp_lcore *ls;

	RXRP_FOREACH_LCORE(p, ls, lc) {
		n += rxrp_defer_count(ls);
		n += __atomic_load_n(&ls->pcp->count, __ATOMIC_RELAXED);
		if (ls->supply != NULL) {
			struct rxr_zero_supply_stats ss;

			rxr_zero_supply_stats(ls->supply, &ss);
			n += ss.ready;
		}
		if (p->strategy->held != NULL)
			n += p->strategy->held(p, ls);
	}
	if (p->strategy->held != NULL)
		n += p->strategy->held(p, NULL);
	return n;
}

uint64_t
rxr_pool_nr_frames(const struct rxr_pool *p)
{
	return zones_frames(p, false);
}

void
rxr_pool_stats(const struct rxr_pool *p, struct rxr_pool_stats *st)
{
	struct rxrp_lcore *ls;

	memset(st, 0, sizeof(*st));
	st->nr_zones = p->nr_zones;
	for (unsigned int z = 0; z < p->nr_zones; z++) {
		rxr_zone_stats(p->zone[z], &st->zone[z]);
		st->nr_frames += st->zone[z].nr_frames;
	}
	st->avail = rxr_pool_avail(p);
	RXRP_FOREACH_LCORE(p, ls, lc) {
		struct rxr_pool_lcore_stats *o = &st->lcore[st->nr_lcores++];

		o->lcore = ls->lcore;
		o->node = ls->node;
		rxr_pcp_stats(ls->pcp, &o->pcp);
#define RXRP_LCORE_READ(name, help) o->name = RXR_STAT_READ(ls->name);
		RXR_POOL_LCORE_COUNTERS(RXRP_LCORE_READ)
#undef RXRP_LCORE_READ
		o->deferred_queued = o->deferred_drained + rxrp_defer_count(ls);
		for (unsigned int b = 0; b < RXR_HIST_BUCKETS; b++)
			o->refill_hist[b] = RXR_STAT_READ(ls->hist[b]);
		if (ls->supply != NULL)
			rxr_zero_supply_stats(ls->supply, &o->supply);
		/* Last: a strategy may add to the core's (remote_frees). */
		if (p->strategy->stats != NULL)
			p->strategy->stats(p, ls, o);
	}
	st->zero_bytes_other = RXR_STAT_READ(p->zero_bytes_other);
	st->zero_cycles_other = RXR_STAT_READ(p->zero_cycles_other);
}

void
rxr_pool_lcore_stats_add(struct rxr_pool_lcore_stats *sum,
		const struct rxr_pool_lcore_stats *a,
		const struct rxr_pool_lcore_stats *b)
{
	static const struct rxr_pool_lcore_stats zero;

	if (a == NULL)
		a = &zero;
#define RXRP_ADD(field) sum->field += b->field - a->field;
#define RXRP_ADD_PCP(name, help) RXRP_ADD(pcp.name)
#define RXRP_ADD_LCORE(name, help) RXRP_ADD(name)
	RXR_PCP_COUNTERS(RXRP_ADD_PCP)
	RXR_POOL_LCORE_COUNTERS(RXRP_ADD_LCORE)
	RXRP_ADD(deferred_queued)
#undef RXRP_ADD_LCORE
#undef RXRP_ADD_PCP
#undef RXRP_ADD
	for (unsigned int h = 0; h < RXR_HIST_BUCKETS; h++)
		sum->refill_hist[h] += b->refill_hist[h] - a->refill_hist[h];
	for (unsigned int c = 0; c < RXR_STRATEGY_COUNTERS_MAX; c++)
		sum->counters[c] += b->counters[c] - a->counters[c];
}

void
rxr_pool_pcp_hits(const struct rxr_pool_stats *a,
		const struct rxr_pool_stats *b, uint64_t *hits, uint64_t *misses)
{
	struct rxr_pool_lcore_stats sum = { 0 };
	uint64_t zone_alloc = 0, into_pcp;

	for (unsigned int z = 0; z < b->nr_zones; z++)
		zone_alloc += b->zone[z].alloc_frames -
			(a != NULL ? a->zone[z].alloc_frames : 0);
	for (unsigned int l = 0; l < b->nr_lcores; l++)
		rxr_pool_lcore_stats_add(&sum, a != NULL ? &a->lcore[l] : NULL,
			&b->lcore[l]);
	/* Frames the zones handed out beyond the pcps' refills: misses. */
	*hits = sum.pcp.alloc - sum.pcp.alloc_zone_frames;
	into_pcp = sum.pcp.refill_frames - sum.pcp.alloc_zone_frames;
	*misses = zone_alloc > into_pcp ? zone_alloc - into_pcp : 0;
}
