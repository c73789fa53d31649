/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The two slow paths a PMD meets, for test_slow_path_bt.py to stop in
 * under gdb: an mbuf pool of rxrefill (strategy from argv, bulk on, the
 * pool's own memory and no zeroing), a burst allocated when the lcore's
 * cache is empty (the refill from the zone, in refill_miss()) and bursts
 * freed until the cache overflows (the drain to the zone, in
 * drain_overflow()), both through rte_pktmbuf_alloc_bulk() and
 * rte_pktmbuf_free_bulk() as a PMD calls them.
 */

#include <stdlib.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rxr_mempool.h"
#include "rxr_test.h"

#define BURST 32u

static struct rte_mbuf *m[8 * BURST];

static __rte_noinline int
refill_miss(struct rte_mempool *mp)
{
	return rte_pktmbuf_alloc_bulk(mp, m, BURST);
}

static __rte_noinline void
drain_overflow(struct rte_mempool *mp)
{
	rte_pktmbuf_alloc_bulk(mp, m + BURST, 7 * BURST);
	for (unsigned int i = 0; i < 8; i++)
		rte_pktmbuf_free_bulk(m + i * BURST, BURST);
}

int
main(int argc, char **argv)
{
	struct rxr_mempool_conf c = { .pool = {
		.bulk = true, .high = 96, .batch = 32, .nr_poll_lcores = 1,
	} };
	struct rte_mempool *mp;

	rxr_test_eal_init(argv[0], "0", 256, NULL);
	c.pool.poll_lcores[0] = rte_lcore_id();
	if (argc < 2 || rxr_strategy_parse(argv[1], false, &c.pool.strategy))
		return 2;
	mp = rxr_pktmbuf_pool_create("bt", 1024, &c, SOCKET_ID_ANY);
	if (mp == NULL || refill_miss(mp) != 0)
		return 1;
	drain_overflow(mp);
	rte_mempool_free(mp);
	return 0;
}
