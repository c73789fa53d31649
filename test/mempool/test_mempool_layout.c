/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Frame layout of rxr_pktmbuf_pool_create(): with the default frame size
 * every frame carries a 4 KiB data buffer, and the mbuf headers (and the
 * packet data after the headroom) of the pool's frames spread over every
 * set of a 64-set L1 data cache rather than all landing in one.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rxr_mempool.h"
#include "rxr_test.h"

#define NR_MBUFS 2048u
#define L1_SETS 64u	/* 48 KiB 12-way or 32 KiB 8-way, 64-byte lines */

struct sets {
	unsigned int hdr[L1_SETS];
	unsigned int data[L1_SETS];
	unsigned int n;
};

static unsigned int
l1_set(const void *addr)
{
	return ((uintptr_t)addr / RTE_CACHE_LINE_SIZE) % L1_SETS;
}

static void
count_sets(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	struct sets *s = arg;
	struct rte_mbuf *m = obj;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	s->hdr[l1_set(m)]++;
	s->data[l1_set(rte_pktmbuf_mtod(m, void *))]++;
	s->n++;
}

/* Every set used, none holding more than twice its fair share. */
static int
spread_ok(const unsigned int *v, unsigned int n, const char *what)
{
	unsigned int fair = (n + L1_SETS - 1) / L1_SETS;

	for (unsigned int i = 0; i < L1_SETS; i++)
		RXR_TEST_ASSERT(v[i] > 0 && v[i] <= 2 * fair,
			"%s: L1 set %u holds %u of %u frames (fair share %u)",
			what, i, v[i], n, fair);
	return 0;
}

static int
check_pool(struct rte_mempool *mp, uint16_t priv_size)
{
	uint32_t stride = mp->header_size + mp->elt_size + mp->trailer_size;
	struct sets s = { 0 };

	printf("# priv %u: stride %u (%u lines), data room %u\n", priv_size,
		stride, stride / RTE_CACHE_LINE_SIZE,
		rte_pktmbuf_data_room_size(mp));
	rte_mempool_obj_iter(mp, count_sets, &s);
	RXR_TEST_ASSERT_EQ(s.n, NR_MBUFS, "objects");
	if (spread_ok(s.hdr, s.n, "mbuf headers") != 0 ||
			spread_ok(s.data, s.n, "packet data") != 0)
		return -1;
	RXR_TEST_ASSERT_EQ(stride, rxr_mempool_frame_size_default(priv_size),
		"default stride");
	RXR_TEST_ASSERT(rte_pktmbuf_data_room_size(mp) >= 4096,
		"a 4 KiB data buffer: data room %u",
		rte_pktmbuf_data_room_size(mp));
	RXR_TEST_ASSERT_EQ(rte_pktmbuf_priv_size(mp), priv_size, "private area");
	return 0;
}

static int
layout(uint16_t priv_size)
{
	struct rxr_mempool_conf c = {
		.pool = { .strategy = RXR_STRATEGY_BH, .bulk = true,
			.nr_poll_lcores = 1, .poll_lcores = { rte_lcore_id() } },
		.priv_size = priv_size,
	};
	struct rte_mempool *mp;
	int ret;

	mp = rxr_pktmbuf_pool_create("rxr_layout", NR_MBUFS, &c, SOCKET_ID_ANY);
	RXR_TEST_ASSERT(mp != NULL, "pool: %s", rte_strerror(rte_errno));
	ret = check_pool(mp, priv_size);
	rte_mempool_free(mp);
	return ret;
}

static int
test_default(void)
{
	RXR_TEST_ASSERT_EQ(rxr_mempool_frame_size_default(0),
		RXR_MEMPOOL_FRAME_SIZE_DEFAULT, "the documented default");
	return layout(0);
}

static int
test_priv(void)
{
	/* 64 and 128 bytes of private area: the stride stays an odd number
	 * of lines whatever the area adds. */
	return layout(64) == 0 && layout(128) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	rxr_test_eal_init(argv[0], "0", 256, NULL);
	rxr_test_run("default frames: 4 KiB of data, headers over every L1 set",
		test_default);
	rxr_test_run("with a private area: still every L1 set", test_priv);
	return rxr_test_done();
}
