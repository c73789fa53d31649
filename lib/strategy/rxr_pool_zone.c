/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * What every strategy's paths call, below the deferred list and the core
 * (which reaches the strategies): the zones and bulk off's per-frame calls.
 */

#include "rxr_pool_private.h"

int
rxrp_zone_alloc_other(struct rxr_pool *p, unsigned int node, void **objs,
		unsigned int n)
{
	for (unsigned int k = 1; k < p->nr_zones; k++)
		if (rxr_zone_alloc_bulk(p->zone[(node + k) % p->nr_zones],
				objs, n, n) == n)
			return 0;
	return -ENOBUFS;
}

/* Runs of the same node together. */
void
rxrp_zone_free_nodes(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	for (unsigned int i = 0; i < n;) {
		unsigned int node = rxrp_frame_node(p, objs[i]), j = i + 1;

		while (j < n && rxrp_frame_node(p, objs[j]) == node)
			j++;
		rxr_zone_free_bulk(p->zone[node], objs + i, j - i);
		i = j;
	}
}

/* --- bulk off: a call per frame ------------------------------------------ */

int
rxrp_alloc_frames(struct rxr_pool *p, void **objs, unsigned int n)
{
	const struct rxrp_strategy *st = p->strategy;

	for (unsigned int i = 0; i < n; i++)
		if (unlikely(st->alloc(p, &objs[i], 1) != 0)) {
			while (i-- > 0)
				st->free(p, &objs[i], 1);
			return -ENOBUFS;
		}
	return 0;
}

int
rxrp_free_frames(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p->strategy->free(p, &objs[i], 1);
	return 0;
}
