/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The cold paths the owner's fast path leaves out of line: a single-frame
 * (bulk off) alloc that fails part-way gives back every frame it took (the
 * rollback), and the pcp's refills from and drains to the zone keep every
 * frame accounted for, for every strategy, bulk on and off.
 */

#include <stdlib.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include "rxr_strategy.h"
#include "rxr_test.h"
#include "test_pool_mem.h"

#define NR_FRAMES 512u

static struct rxr_pool *
pool_new(enum rxr_strategy s, bool bulk)
{
	struct rxr_pool_conf c = {
		.name = "slow", .strategy = s, .bulk = bulk,
		.socket_id = SOCKET_ID_ANY, .nr_poll_lcores = 1,
		.poll_lcores = { rte_lcore_id() }, .high = 48, .batch = 16,
	};
	struct rxr_pool *p = rxr_pool_create(&c, 4096, NR_FRAMES, 4);

	if (p == NULL) {
		printf("# rxr_pool_create: %s\n", rte_strerror(rte_errno));
		return NULL;
	}
	if (test_pool_fill(p, 4096, NR_FRAMES) != 0) {
		printf("# test_pool_fill failed\n");
		test_pool_destroy(p);
		return NULL;
	}
	return p;
}

static int
one(enum rxr_strategy s, bool bulk)
{
	static void *objs[NR_FRAMES + 1];
	struct rxr_pool *p = pool_new(s, bulk);
	unsigned int got = 0;

	RXR_TEST_ASSERT(p != NULL, "pool");
	/* Empty pcp: refills from the zone, burst after burst. */
	while (got + 32 <= NR_FRAMES &&
			rxr_pool_alloc_bulk(p, &objs[got], 32) == 0)
		got += 32;
	RXR_TEST_ASSERT_EQ(got, NR_FRAMES, "frames handed out in bursts");
	/* Full pcp: drains to the zone. */
	for (unsigned int i = 0; i < got; i += 32)
		rxr_pool_free_bulk(p, &objs[i], 32);
	rxr_pool_poll_end(p);
	/* One more than the pool holds: fails and takes nothing. */
	RXR_TEST_ASSERT(rxr_pool_alloc_bulk(p, objs, NR_FRAMES + 1) != 0,
		"%s bulk %s: an alloc above the pool's size fails",
		rxr_strategy_name(s), bulk ? "on" : "off");
	rxr_pool_poll_end(p);
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "conservation");
	RXR_TEST_ASSERT_EQ(rxr_pool_avail(p), NR_FRAMES,
		"every frame back after the failed alloc");
	test_pool_destroy(p);
	return 0;
}

static int
test_all(void)
{
	for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++)
		for (int bulk = 0; bulk < 2; bulk++)
			if (one(s, bulk) != 0)
				return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	rxr_test_eal_init(argv[0], "0", 128, NULL);
	rxr_test_run("zone refills, drains and a failed alloc's rollback keep "
		"every frame", test_all);
	return rxr_test_done();
}
