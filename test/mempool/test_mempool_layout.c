/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Frame layout of rxr_pktmbuf_pool_create(): with the default frame size
 * every frame carries DPDK's default mbuf buffer in less than 4 KiB, and
 * the mbuf headers (and the packet data after the headroom) of the pool's
 * frames spread over every set of a 64-set L1 data cache rather than all
 * landing in one.
 * And rxr_pktmbuf_free_bulk(): plain bursts straight to the pool, anything
 * else (a clone, a chain, another pool's mbuf) as rte_pktmbuf_free_bulk().
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
	/* The default: whole lines, an odd number of them, the fewest that
	 * hold the object header, the mbuf, its private area and DPDK's
	 * default buffer. */
	RXR_TEST_ASSERT(stride % (2 * RTE_CACHE_LINE_SIZE) ==
		RTE_CACHE_LINE_SIZE && stride - 2 * RTE_CACHE_LINE_SIZE <
		RTE_CACHE_LINE_SIZE + sizeof(struct rte_mbuf) + priv_size +
		RTE_MBUF_DEFAULT_BUF_SIZE, "default stride %u", stride);
	RXR_TEST_ASSERT(rte_pktmbuf_data_room_size(mp) >=
		RTE_MBUF_DEFAULT_BUF_SIZE,
		"DPDK's default mbuf buffer: data room %u",
		rte_pktmbuf_data_room_size(mp));
	RXR_TEST_ASSERT(stride < 4096, "a frame inside a 4 KiB page's "
		"span: stride %u", stride);
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
	struct rxr_mempool_conf c = { .pool = { .strategy = RXR_STRATEGY_BH,
		.nr_poll_lcores = 1, .poll_lcores = { rte_lcore_id() } } };
	struct rte_mempool *mp = rxr_pktmbuf_pool_create("rxr_default",
			NR_MBUFS, &c, SOCKET_ID_ANY);

	RXR_TEST_ASSERT(mp != NULL, "pool");
	RXR_TEST_ASSERT_EQ(mp->header_size + mp->elt_size + mp->trailer_size,
		RXR_MEMPOOL_FRAME_SIZE_DEFAULT, "the documented default");
	rte_mempool_free(mp);
	return layout(0);
}

static int
test_priv(void)
{
	/* 64 and 128 bytes of private area: the stride stays an odd number
	 * of lines whatever the area adds. */
	return layout(64) == 0 && layout(128) == 0 ? 0 : -1;
}

/* --- rxr_pktmbuf_free_bulk() ---------------------------------------------- */

#define BURST 32u

static struct rte_mempool *
bh_pool(const char *name)
{
	struct rxr_mempool_conf c = {
		.pool = { .strategy = RXR_STRATEGY_BH, .bulk = true,
			.nr_poll_lcores = 1, .poll_lcores = { rte_lcore_id() } },
	};

	return rxr_pktmbuf_pool_create(name, NR_MBUFS, &c, SOCKET_ID_ANY);
}

static int
free_cases(struct rte_mempool *mp, struct rte_mempool *other)
{
	struct rte_mbuf *m[BURST], *tail, *foreign;
	const unsigned int full = rte_mempool_avail_count(mp);

	/* Plain: every frame home, through the pool's free. */
	RXR_TEST_ASSERT(rte_pktmbuf_alloc_bulk(mp, m, BURST) == 0, "alloc");
	for (unsigned int i = 0; i < BURST; i++)
		RXR_TEST_ASSERT_EQ(rxr_pktmbuf_not_plain(m[i], mp), 0,
			"a fresh mbuf is plain");
	rxr_pktmbuf_free_bulk(m, BURST);
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), full, "plain burst home");

	/* A clone's reference: that frame stays out until its last free. */
	RXR_TEST_ASSERT(rte_pktmbuf_alloc_bulk(mp, m, BURST) == 0, "alloc");
	rte_mbuf_refcnt_update(m[5], 1);
	RXR_TEST_ASSERT(rxr_pktmbuf_not_plain(m[5], mp) != 0, "refcnt 2 seen");
	rxr_pktmbuf_free_bulk(m, BURST);
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), full - 1,
		"a shared mbuf outlives one free");
	RXR_TEST_ASSERT_EQ(rte_mbuf_refcnt_read(m[5]), 1, "one reference left");
	rxr_pktmbuf_free_bulk(&m[5], 1);
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), full, "then home");

	/* A chain: every segment freed, not only the head. */
	RXR_TEST_ASSERT(rte_pktmbuf_alloc_bulk(mp, m, BURST) == 0, "alloc");
	tail = rte_pktmbuf_alloc(mp);
	RXR_TEST_ASSERT(tail != NULL, "alloc tail");
	RXR_TEST_ASSERT(rte_pktmbuf_chain(m[0], tail) == 0, "chain");
	RXR_TEST_ASSERT(rxr_pktmbuf_not_plain(m[0], mp) != 0, "2 segments seen");
	rxr_pktmbuf_free_bulk(m, BURST);
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), full,
		"every segment home");

	/* Another pool's mbuf in the burst goes back to that pool. */
	RXR_TEST_ASSERT(rte_pktmbuf_alloc_bulk(mp, m, BURST) == 0, "alloc");
	foreign = rte_pktmbuf_alloc(other);
	RXR_TEST_ASSERT(foreign != NULL, "alloc from the other pool");
	rte_pktmbuf_free(m[BURST - 1]);
	m[BURST - 1] = foreign;
	RXR_TEST_ASSERT(rxr_pktmbuf_not_plain(foreign, mp) != 0,
		"another pool seen");
	rxr_pktmbuf_free_bulk(m, BURST);
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), full, "ours home");
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(other), NR_MBUFS,
		"the other pool's home");

	/* A burst of the other pool alone never reaches ours. */
	RXR_TEST_ASSERT(rte_pktmbuf_alloc_bulk(other, m, BURST) == 0, "alloc");
	rxr_pktmbuf_free_bulk(m, BURST);
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(other), NR_MBUFS,
		"the other pool's burst home");
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), full, "ours untouched");
	return 0;
}

static int
test_free(void)
{
	struct rte_mempool *mp = bh_pool("rxr_free"), *other;
	int ret;

	RXR_TEST_ASSERT(mp != NULL, "pool: %s", rte_strerror(rte_errno));
	RXR_TEST_ASSERT(rxr_mempool_pool_fast(mp) == rxr_mempool_pool(mp),
		"the fast lookup finds the pool");
	other = rte_pktmbuf_pool_create_by_ops("rxr_free_ring", NR_MBUFS, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY, "ring_mp_mc");
	if (other == NULL) {
		rte_mempool_free(mp);
		RXR_TEST_ASSERT(false, "ring pool: %s", rte_strerror(rte_errno));
	}
	RXR_TEST_ASSERT(rxr_mempool_pool_fast(other) == NULL,
		"a ring pool is not ours");
	ret = free_cases(mp, other);
	rte_mempool_free(other);
	rte_mempool_free(mp);
	return ret;
}

/* A caller's scan that lied: one segment, yet a next (debug builds). */
static void
free_lie(void *arg)
{
	struct rte_mempool *mp = arg;
	struct rte_mbuf *m[2];

	if (mp == NULL || rte_pktmbuf_alloc_bulk(mp, m, 2) != 0)
		return;
	m[0]->next = m[1];
	rxr_pktmbuf_free_scanned(m, 1, 0);
}

/*
 * The pool is made here, not in the child: on hugepages EAL's memory is
 * shared with the child (MAP_SHARED), and a pool the child created went
 * into this process's heap, memzones and mempool list behind its back,
 * then died with the child; rte_eal_cleanup() at exit crashed on it. The
 * child's abort leaves this pool inconsistent: it is never used again.
 */
static int
test_free_debug(void)
{
	if (!RXR_DEBUG) {
		printf("# debug checks are off in this build\n");
		return 0;
	}
	return rxr_test_expect_abort(free_lie, bh_pool("rxr_free_lie"),
		"frame-state");
}

/*
 * Every refused frame size says the valid range, and every size it says
 * to try is taken, below the least as above it.
 */
static int
test_frame_size_hints(void)
{
	static const uint16_t privs[] = { 0, 64 };
	char err[512], range[64];
	const char *p;
	unsigned int a, b;

	for (unsigned int k = 0; k < RTE_DIM(privs); k++) {
		uint32_t min = rxr_mempool_frame_size_min(privs[k]);

		snprintf(range, sizeof(range), "multiples of %u in %u..%u",
			RTE_CACHE_LINE_SIZE, min, RXR_MEMPOOL_FRAME_SIZE_MAX);
		RXR_TEST_ASSERT(rxr_pktmbuf_frame_size_check(min, privs[k],
			err, sizeof(err)) == 0, "least size %u: %s", min, err);
		for (uint32_t f = 0; f <= RXR_MEMPOOL_FRAME_SIZE_MAX + 128;
				f++) {
			if (rxr_pktmbuf_frame_size_check(f, privs[k], err,
					sizeof(err)) == 0)
				continue;
			p = strstr(err, "try ");
			RXR_TEST_ASSERT(p != NULL ||
				f > RXR_MEMPOOL_FRAME_SIZE_MAX,
				"%u: no size to try: %s", f, err);
			RXR_TEST_ASSERT(f < min ||
				strstr(err, range) != NULL,
				"%u: no range: %s", f, err);
			if (p == NULL)
				continue;
			a = b = 0;
			if (sscanf(p, "try %u or %u", &a, &b) < 1)
				RXR_TEST_ASSERT(false, "%u: %s", f, err);
			RXR_TEST_ASSERT(rxr_pktmbuf_frame_size_check(a, privs[k],
				NULL, 0) == 0 && (b == 0 ||
				rxr_pktmbuf_frame_size_check(b, privs[k], NULL,
				0) == 0), "%u: suggests %u, %u: %s", f, a, b,
				err);
		}
	}
	/* The small values of the report. */
	RXR_TEST_ASSERT(rxr_pktmbuf_frame_size_check(1, 0, err,
		sizeof(err)) != 0 && strstr(err, "1 is below 384") != NULL &&
		strstr(err, "try 384") != NULL, "1: %s", err);
	RXR_TEST_ASSERT(rxr_pktmbuf_frame_size_check(100, 0, err,
		sizeof(err)) != 0 && strstr(err, "try 384") != NULL &&
		strstr(err, "try 64") == NULL, "100: %s", err);
	return 0;
}

/* With DPDK's ops table full, a pool cannot be made: said, not "EINVAL". */
static int
test_ops_unregistered(void)
{
	struct rxr_mempool_conf c = { .pool = { .strategy = RXR_STRATEGY_BH } };
	int idx = rxr_mempool_ops_index;
	struct rte_mempool *mp;

	rxr_mempool_ops_index = -1;
	mp = rxr_pktmbuf_pool_create("rxrt_noops", 64, &c, SOCKET_ID_ANY);
	rxr_mempool_ops_index = idx;
	RXR_TEST_ASSERT(mp == NULL && rte_errno == ENOENT,
		"made with the driver unregistered, or errno %d", rte_errno);
	mp = rxr_pktmbuf_pool_create("rxrt_noops", 64, &c, SOCKET_ID_ANY);
	RXR_TEST_ASSERT(mp != NULL, "not made again: %s",
		rte_strerror(rte_errno));
	rte_mempool_free(mp);
	return 0;
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	rxr_test_eal_init(argv[0], "0", 256, NULL);
	rxr_test_run("default frames: 2 KiB of data, headers over every L1 set",
		test_default);
	rxr_test_run("with a private area: still every L1 set", test_priv);
	rxr_test_run("rxr_pktmbuf_free_bulk: plain bursts to the pool, "
		"clones, chains and other pools as DPDK frees them", test_free);
	rxr_test_run("rxr_pktmbuf_free_scanned: a plain burst with a next "
		"fails the debug check", test_free_debug);
	rxr_test_run("a refused frame size names the range and suggests "
		"only sizes that are taken", test_frame_size_hints);
	rxr_test_run("the driver unregistered (DPDK's ops table full): "
		"no pool, ENOENT", test_ops_unregistered);
	return rxr_test_done();
}
