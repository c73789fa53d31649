/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The zone paths every strategy shares: allocations that fall back to the
 * other nodes (the kernel's zonelist) and frees that go home, bulk or one
 * frame at a time, never waiting on the zone lock in irq context.
 */

#include "rxr_pool_private.h"

static int
zone_alloc_from(struct rxr_zone *z, void **objs, unsigned int n, bool bulk)
{
	unsigned int i;

	/* A handler may have interrupted the lock holder: never wait. */
	if (unlikely(rxr_in_irq()))
		return rxr_zone_alloc_bulk_nowait(z, objs, n, n) == n ? 0 : -ENOBUFS;
	if (bulk)
		return rxr_zone_alloc_bulk(z, objs, n, n) == n ? 0 : -ENOBUFS;
	for (i = 0; i < n; i++) {
		objs[i] = rxr_zone_alloc(z, 0);
		if (unlikely(objs[i] == NULL))
			break;
	}
	if (likely(i == n))
		return 0;
	while (i-- > 0)
		rxr_zone_free(z, objs[i], 0);
	return -ENOBUFS;
}

int
rxrp_zone_alloc(struct rxr_pool *p, unsigned int node, void **objs,
		unsigned int n, bool bulk)
{
	if (likely(zone_alloc_from(p->zone[node], objs, n, bulk) == 0))
		return 0;
	/* The zonelist: other nodes before failing, as the kernel does. */
	for (unsigned int k = 1; k < p->nr_zones; k++)
		if (zone_alloc_from(p->zone[(node + k) % p->nr_zones], objs, n,
				bulk) == 0)
			return 0;
	return -ENOBUFS;
}

static inline void
zone_free_to(struct rxr_zone *z, void * const *objs, unsigned int n,
		bool bulk)
{
	if (unlikely(rxr_in_irq()))
		rxr_zone_free_bulk_nowait(z, objs, n);
	else if (bulk)
		rxr_zone_free_bulk(z, objs, n);
	else
		for (unsigned int i = 0; i < n; i++)
			rxr_zone_free(z, objs[i], 0);
}

void
rxrp_zone_free(struct rxr_pool *p, void * const *objs, unsigned int n,
		bool bulk)
{
	if (likely(p->nr_zones == 1)) {
		zone_free_to(p->zone[0], objs, n, bulk);
		return;
	}
	/* Runs of the same node together. */
	for (unsigned int i = 0; i < n;) {
		unsigned int node = rxrp_frame_node(p, objs[i]), j = i + 1;

		while (j < n && rxrp_frame_node(p, objs[j]) == node)
			j++;
		zone_free_to(p->zone[node], objs + i, j - i, bulk);
		i = j;
	}
}
