/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Allocator benchmark, in the shape of the page_bench tables of the netdev
 * thread "Page allocator order-0 optimizations merged" (2017): alloc, free
 * and total cycles per frame for batches 1 .. 16384 and orders 0..3, zone-only against pcp. Then, in the same run,
 * the pcp and zone bulk paths against DPDK's own rte_mempool with a
 * per-lcore cache and without one.
 *
 * Output: the mmtests-shaped table, then "bench:" and "ratio:" lines.
 * Usage: bench_alloc [--quick]
 */

#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "rxr_pcp.h"
#include "rxr_test.h"

#define MAX_BATCH 16384u
#define MAX_ORDER_BENCH 3u
#define NR_BATCHES 15

enum path { PATH_ZONE, PATH_PCP, NR_PATHS };
static const char * const path_name[] = { "zone", "pcp" };

static void *objs[MAX_BATCH];
static bool quick;
static double tsc_overhead;	/* cycles of an empty timed region */

/* One frame, as the bulk calls take it. */
static void *
pcp_alloc1(struct rxr_pcp *pcp)
{
	void *f;

	return rxr_pcp_alloc_bulk(pcp, &f, 1) == 0 ? f : NULL;
}

static void
calibrate(void)
{
	double best = 1e30;

	for (int i = 0; i < 1000; i++) {
		uint64_t t0 = rte_rdtsc_precise();

		best = RTE_MIN(best, (double)(rte_rdtsc_precise() - t0));
	}
	tsc_overhead = best;
	printf("# timer overhead %.0f cycles, subtracted from every timed phase\n",
		best);
}

/* Amean of per-iteration cycles/frame, as mmtests reports. */
struct cell {
	double alloc, free;
};

static struct cell
measure(struct rxr_zone *z, struct rxr_pcp *pcp, enum path path,
		unsigned int order, unsigned int batch)
{
	/* Enough iterations for ~2^17 frame operations, at least 5. */
	unsigned int iters = RTE_MAX(5u, (quick ? 1u << 13 : 1u << 17) / batch);
	double sa = 0, sf = 0;

	for (unsigned int it = 0; it < iters; it++) {
		uint64_t t0, t1, t2;
		unsigned int i;

		t0 = rte_rdtsc_precise();
		if (path == PATH_PCP && order == 0)
			for (i = 0; i < batch; i++)
				objs[i] = pcp_alloc1(pcp);
		else
			for (i = 0; i < batch; i++)
				objs[i] = rxr_zone_alloc(z, order);
		t1 = rte_rdtsc_precise();
		if (path == PATH_PCP && order == 0)
			for (i = 0; i < batch; i++)
				rxr_pcp_free_bulk(pcp, &(void *){objs[i]}, 1);
		else
			for (i = 0; i < batch; i++)
				rxr_zone_free(z, objs[i], order);
		t2 = rte_rdtsc_precise();
		sa += RTE_MAX((double)(t1 - t0) - tsc_overhead, 0.0) / batch;
		sf += RTE_MAX((double)(t2 - t1) - tsc_overhead, 0.0) / batch;
	}
	return (struct cell){ sa / iters, sf / iters };
}

static void
print_row(const char *what, unsigned int order, unsigned int batch,
		double zone, double pcp)
{
	char name[48];

	snprintf(name, sizeof(name), "%s-odr%u-%u", what, order, batch);
	/* mmtests: positive % means the second column is better (cheaper). */
	printf("Amean    %-22s %10.2f (  0.00%%) %10.2f (%6.2f%%)\n", name,
		zone, pcp, zone > 0 ? (zone - pcp) * 100.0 / zone : 0.0);
}

static int
page_bench_table(struct rxr_zone *z, struct rxr_pcp *pcp)
{
	static struct cell cells[MAX_ORDER_BENCH + 1][NR_BATCHES][NR_PATHS];
	unsigned int o, b, p;

	for (o = 0; o <= MAX_ORDER_BENCH; o++)
		for (b = 0; b < NR_BATCHES; b++) {
			unsigned int batch = 1u << b;

			if ((batch << o) > MAX_BATCH * 8)
				continue;
			/* Interleave the paths so that noise hits both. */
			for (p = 0; p < NR_PATHS; p++)
				cells[o][b][p] = measure(z, pcp, p, o, batch);
		}

	printf("# page_bench: cycles per frame (order-k block counts once), "
		"zone-only vs pcp; order > 0 bypasses the pcp as in Linux 4.11\n");
	printf("%-31s %21s %21s\n", "", path_name[0], path_name[1]);
	for (o = 0; o <= MAX_ORDER_BENCH; o++) {
		static const char * const what[] = { "alloc", "free", "total" };

		for (unsigned int w = 0; w < 3; w++)
			for (b = 0; b < NR_BATCHES; b++) {
				const struct cell *zc = &cells[o][b][PATH_ZONE];
				const struct cell *pc = &cells[o][b][PATH_PCP];
				double zv = w == 0 ? zc->alloc : w == 1 ? zc->free :
					zc->alloc + zc->free;
				double pv = w == 0 ? pc->alloc : w == 1 ? pc->free :
					pc->alloc + pc->free;

				print_row(what[w], o, 1u << b, zv, pv);
			}
	}
	for (o = 0; o <= MAX_ORDER_BENCH; o++)
		for (b = 0; b < NR_BATCHES; b += 5)
			for (p = 0; p < NR_PATHS; p++)
				printf("bench: %s.total.odr%u.batch%u %.2f cycles/frame\n",
					path_name[p], o, 1u << b,
					cells[o][b][p].alloc + cells[o][b][p].free);
	return 0;
}

/* get+put of n objects, per object, best of a few trials. */
typedef void (*pair_fn)(void *ctx, unsigned int n);

static double
pair_cost(pair_fn fn, void *ctx, unsigned int n)
{
	unsigned int reps = (quick ? 1u << 14 : 1u << 18) / n + 16;
	double best = 1e30;

	for (int trial = 0; trial < 5; trial++) {
		uint64_t t0 = rte_rdtsc_precise();

		for (unsigned int r = 0; r < reps; r++)
			fn(ctx, n);
		best = RTE_MIN(best, (double)(rte_rdtsc_precise() - t0) /
			((double)reps * n));
	}
	return best;
}

static void
pcp_pair(void *ctx, unsigned int n)
{
	struct rxr_pcp *pcp = ctx;

	if (unlikely(rxr_pcp_alloc_bulk(pcp, objs, n) != 0))
		abort();
	rxr_pcp_free_bulk(pcp, objs, n);
}

static void
zone_pair(void *ctx, unsigned int n)
{
	struct rxr_zone *z = ctx;

	if (unlikely(rxr_zone_alloc_bulk(z, objs, n, n) != n))
		abort();
	rxr_zone_free_bulk(z, objs, n);
}

static void
mempool_pair(void *ctx, unsigned int n)
{
	struct rte_mempool *mp = ctx;

	if (unlikely(rte_mempool_get_bulk(mp, objs, n) != 0))
		abort();
	rte_mempool_put_bulk(mp, objs, n);
}

static int
mempool_compare(struct rxr_zone *z, struct rxr_pcp *pcp)
{
	static const unsigned int bulks[] = { 1, 8, 32, 128 };
	struct rte_mempool *cached, *nocache;

	/* DPDK's defaults: ring_mp_mc, per-lcore cache of 256. */
	cached = rte_mempool_create("bench_cache", 8191, 64, 256, 0, NULL, NULL,
			NULL, NULL, SOCKET_ID_ANY, 0);
	nocache = rte_mempool_create("bench_nocache", 8191, 64, 0, 0, NULL, NULL,
			NULL, NULL, SOCKET_ID_ANY, 0);
	if (cached == NULL || nocache == NULL) {
		printf("# cannot create the peer mempools: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	printf("# peer: rte_mempool %s, cache 256 and cache 0, same lcore\n",
		cached->ops_index >= 0 ?
		rte_mempool_get_ops(cached->ops_index)->name : "?");
	for (unsigned int i = 0; i < RTE_DIM(bulks); i++) {
		unsigned int n = bulks[i];
		double ours, peer, zone, ring;

		ours = pair_cost(pcp_pair, pcp, n);
		peer = pair_cost(mempool_pair, cached, n);
		zone = pair_cost(zone_pair, z, n);
		ring = pair_cost(mempool_pair, nocache, n);
		printf("bench: pcp.alloc_free.bulk%u %.2f cycles/frame\n", n, ours);
		printf("bench: mempool_cache.get_put.bulk%u %.2f cycles/obj\n", n, peer);
		printf("bench: zone.alloc_free.bulk%u %.2f cycles/frame\n", n, zone);
		printf("bench: mempool_nocache.get_put.bulk%u %.2f cycles/obj\n", n, ring);
		printf("ratio: pcp_over_mempool_cache.bulk%u %.2f\n", n, ours / peer);
		printf("ratio: zone_over_mempool_nocache.bulk%u %.2f\n", n, zone / ring);
	}
	printf("bench: mempool_cache.bytes_per_lcore %zu bytes\n",
		sizeof(struct rte_mempool_cache));
	rte_mempool_free(cached);
	rte_mempool_free(nocache);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rxr_zone_conf conf = {
		.name = "bench", .socket_id = (int)rte_socket_id(),
		.frame_size = 4096,	/* a page: the analogy exact */
		.max_frames = MAX_BATCH * 8 + 1024, .max_regions = 1,
	};
	const struct rte_memzone *mz;
	struct rxr_zone *z;
	struct rxr_pcp *pcp;
	int ret;

	quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	/* 132096 frames of 4 KiB: the memory is reserved but never touched. */
	rxr_test_eal_init(argv[0], "0", 1024, NULL);
	conf.socket_id = (int)rte_socket_id();
	z = rxr_zone_create(&conf);
	mz = rte_memzone_reserve_aligned("bench", (size_t)conf.max_frames *
			conf.frame_size, conf.socket_id, 0, conf.frame_size);
	if (z == NULL || mz == NULL || rxr_zone_add_region(z, mz->addr,
			mz->len, RXR_ZONE_REGION_FREE) != (int)conf.max_frames) {
		printf("# cannot reserve %u frames: %s\n", conf.max_frames,
			rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	pcp = rxr_pcp_create(z, RXR_PCP_HIGH_DEFAULT, RXR_PCP_BATCH_DEFAULT,
			conf.socket_id);
	if (pcp == NULL)
		return EXIT_FAILURE;
	printf("# memory: %s, TSC %" PRIu64 " Hz, pcp high %u batch %u\n",
		rte_eal_has_hugepages() ? "hugepages" : "no-huge",
		rte_get_tsc_hz(), pcp->high, pcp->batch);

	calibrate();
	ret = page_bench_table(z, pcp);
	ret |= mempool_compare(z, pcp);
	printf("bench: pcp.bytes_per_lcore %zu bytes\n",
		sizeof(*pcp) + RXR_PCP_HIGH_DEFAULT * sizeof(void *));
	rxr_pcp_destroy(pcp);
	rxr_zone_destroy(z);
	rte_memzone_free(mz);
	return ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
