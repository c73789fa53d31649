/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * pcp tests: for random sequences of single and bulk calls, the number of
 * zone lock holds and frames moved is exactly what high and batch imply
 * (checked against an arithmetic model of the documented rules); LIFO
 * order; conservation; bulk and single paths agree.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_random.h>

#include "rxr_pcp.h"
#include "rxr_test.h"

#define FRAME 4096u
#define NR_FRAMES 4096u

static uint8_t *mem;

/* One frame, as the bulk calls take it. */
static void *
pcp_alloc1(struct rxr_pcp *pcp)
{
	void *f;

	return rxr_pcp_alloc_bulk(pcp, &f, 1) == 0 ? f : NULL;
}

static struct rxr_zone *
zone_new(uint32_t nr)
{
	struct rxr_zone_conf conf = {
		.name = "pcp", .socket_id = SOCKET_ID_ANY, .frame_size = FRAME,
		.max_frames = nr, .max_regions = 1,
	};
	struct rxr_zone *z = rxr_zone_create(&conf);

	if (z == NULL || rxr_zone_add_region(z, mem, (size_t)nr * FRAME,
			RXR_ZONE_REGION_FREE) != (int)nr)
		abort();
	return z;
}

/* The rules of rxr_pcp.h, as arithmetic. */
struct pcp_model {
	uint32_t count, high, batch;
	uint64_t zone_free, locks, refill, drain;
};

static bool
m_alloc(struct pcp_model *m, uint32_t n)
{
	uint32_t need;

	if (n <= m->count) {
		m->count -= n;
		return true;
	}
	need = n - m->count;
	m->locks++;
	if (m->zone_free < need)
		return false;
	m->zone_free -= need;
	m->count = RTE_MIN((uint64_t)m->batch, m->zone_free);
	m->zone_free -= m->count;
	m->refill += need + m->count;
	return true;
}

static void
m_free(struct pcp_model *m, uint32_t n)
{
	uint32_t total = m->count + n, out;

	if (total <= m->high) {
		m->count = total;
		return;
	}
	out = RTE_MIN((total - m->high + m->batch - 1) / m->batch * m->batch,
			total);
	m->locks++;
	m->drain += out;
	m->zone_free += out;
	m->count = total - out;
}

static int
check_model(const struct pcp_model *m, struct rxr_pcp *pcp,
		const struct rxr_zone_stats *z0)
{
	struct rxr_zone_stats st;

	rxr_zone_stats(pcp->zone, &st);
	RXR_TEST_ASSERT_EQ(pcp->count, m->count, "pcp count");
	RXR_TEST_ASSERT_EQ(st.lock.acquisitions - z0->lock.acquisitions,
		m->locks, "zone lock holds");
	RXR_TEST_ASSERT_EQ(st.nr_free, m->zone_free, "zone free frames");
	RXR_TEST_ASSERT_EQ(pcp->stats.refill_frames, m->refill, "frames refilled");
	RXR_TEST_ASSERT_EQ(pcp->stats.drain_frames, m->drain, "frames drained");
	return 0;
}

static int
run_sequence(uint32_t high, uint32_t batch, bool bulk, uint64_t seed)
{
	static void *held[NR_FRAMES];
	static void *burst[NR_FRAMES];
	struct rxr_zone *z = zone_new(NR_FRAMES);
	struct rxr_pcp *pcp = rxr_pcp_create(z, high, batch, SOCKET_ID_ANY);
	struct pcp_model m = { .high = high, .batch = batch,
		.zone_free = NR_FRAMES };
	struct rxr_zone_stats z0;
	uint32_t nheld = 0;

	RXR_TEST_ASSERT(pcp != NULL, "pcp create");
	rxr_zone_stats(z, &z0);
	rte_srand(seed);
	for (unsigned int s = 0; s < 20000; s++) {
		/* Bursts up to a few times high so every slow path is hit. */
		uint32_t n = bulk ? 1 + rte_rand_max(rte_rand_max(8) ? 64 : 3 * high) : 1;
		bool alloc = rte_rand_max(100) < (nheld < NR_FRAMES / 2 ? 55 : 45);

		if (alloc) {
			bool ok = m_alloc(&m, n);

			if (bulk) {
				int ret = rxr_pcp_alloc_bulk(pcp, burst, n);

				RXR_TEST_ASSERT(ok == (ret == 0),
					"step %u: alloc_bulk(%u) returned %d", s, n, ret);
			} else {
				burst[0] = pcp_alloc1(pcp);
				RXR_TEST_ASSERT(ok == (burst[0] != NULL),
					"step %u: alloc returned %p", s, burst[0]);
			}
			if (ok) {
				memcpy(&held[nheld], burst, n * sizeof(void *));
				nheld += n;
			}
		} else {
			n = RTE_MIN(n, nheld);
			if (n == 0)
				continue;
			nheld -= n;
			m_free(&m, n);
			if (bulk)
				rxr_pcp_free_bulk(pcp, &held[nheld], n);
			else
				rxr_pcp_free_bulk(pcp, &(void *){held[nheld]}, 1);
		}
		if (check_model(&m, pcp, &z0) != 0) {
			printf("# step %u (%s %u)\n", s, alloc ? "alloc" : "free", n);
			return -1;
		}
		/* Conservation at every step. */
		RXR_TEST_ASSERT_EQ(m.zone_free + pcp->count + nheld, NR_FRAMES,
			"frames accounted for");
	}
	rxr_pcp_free_bulk(pcp, held, nheld);
	rxr_pcp_drain(pcp);
	RXR_TEST_ASSERT_EQ(pcp->count, 0, "drained");
	RXR_TEST_ASSERT(rxr_zone_check(z, stdout) == 0, "buddy invariants");
	rxr_zone_stats(z, &z0);
	RXR_TEST_ASSERT_EQ(z0.nr_free, NR_FRAMES, "every frame back");
	RXR_TEST_ASSERT_EQ(z0.nr_blocks[RXR_ZONE_MAX_ORDER], NR_FRAMES / 1024,
		"fully merged");
	rxr_pcp_destroy(pcp);
	rxr_zone_destroy(z);
	return 0;
}

static int
test_model_single_default(void)
{
	return run_sequence(RXR_PCP_HIGH_DEFAULT, RXR_PCP_BATCH_DEFAULT, false, 1);
}

static int
test_model_bulk_default(void)
{
	return run_sequence(RXR_PCP_HIGH_DEFAULT, RXR_PCP_BATCH_DEFAULT, true, 2);
}

static int
test_model_small(void)
{
	return run_sequence(12, 4, false, 3) || run_sequence(12, 4, true, 4) ||
		run_sequence(7, 7, true, 5) || run_sequence(100, 1, true, 6);
}

/* Hand-computed figures for the simplest sequence, no model involved. */
static int
test_exact_figures(void)
{
	struct rxr_zone *z = zone_new(1024);
	struct rxr_pcp *pcp = rxr_pcp_create(z, 12, 4, SOCKET_ID_ANY);
	struct rxr_zone_stats st0, st;
	void *f[16];

	rxr_zone_stats(z, &st0);
	for (int i = 0; i < 13; i++)
		f[i] = pcp_alloc1(pcp);
	/* Misses at 1, 6 and 11, each taking 1 + batch 4 frames. */
	rxr_zone_stats(z, &st);
	RXR_TEST_ASSERT_EQ(st.lock.acquisitions - st0.lock.acquisitions, 3, "refills");
	RXR_TEST_ASSERT_EQ(pcp->count, 2, "left after 13 allocs");
	for (int i = 0; i < 13; i++)
		rxr_pcp_free_bulk(pcp, &(void *){f[i]}, 1);
	/* 2 + 13 = 15 > 12: the 11th free finds 12 held, 4 go back (-> 9). */
	rxr_zone_stats(z, &st);
	RXR_TEST_ASSERT_EQ(st.lock.acquisitions - st0.lock.acquisitions, 4, "drain");
	RXR_TEST_ASSERT_EQ(pcp->count, 11, "count after frees");
	RXR_TEST_ASSERT_EQ(pcp->stats.drain_frames, 4, "drained frames");
	/* LIFO: the last frame freed is the first handed out. */
	RXR_TEST_ASSERT(pcp_alloc1(pcp) == f[12], "hottest first");
	rxr_pcp_free_bulk(pcp, &(void *){f[12]}, 1);
	rxr_pcp_free_bulk(pcp, &(void *){rxr_zone_alloc(z, 0)}, 1);
	RXR_TEST_ASSERT_EQ(rxr_pcp_alloc_bulk(pcp, f, 2), 0, "bulk 2");
	RXR_TEST_ASSERT(f[0] != NULL && f[1] != NULL && f[0] != f[1], "distinct");
	rxr_pcp_free_bulk(pcp, f, 2);
	/* A burst comes back in the order it was freed. */
	RXR_TEST_ASSERT_EQ(rxr_pcp_alloc_bulk(pcp, f + 2, 2), 0, "bulk 2 again");
	RXR_TEST_ASSERT(f[2] == f[0] && f[3] == f[1], "burst order kept");
	rxr_pcp_free_bulk(pcp, f, 2);
	/* Bulk free of 8 over high 12 with 12 held: out = roundup(8, 4) = 8. */
	RXR_TEST_ASSERT_EQ(rxr_pcp_alloc_bulk(pcp, f, 8), 0, "bulk 8");
	rxr_pcp_free_bulk(pcp, f, 8);
	RXR_TEST_ASSERT_EQ(pcp->count, 12, "count is back");
	rxr_pcp_destroy(pcp);
	rxr_zone_stats(z, &st);
	RXR_TEST_ASSERT_EQ(st.nr_free, 1024, "conservation");
	rxr_zone_destroy(z);
	return 0;
}

/* The same frames, in single and bulk calls, end in the same accounting. */
static int
test_single_bulk_agree(void)
{
	static void *a[600], *b[600];
	struct rxr_zone *z = zone_new(NR_FRAMES);
	struct rxr_pcp *p1 = rxr_pcp_create(z, RXR_PCP_HIGH_DEFAULT,
			RXR_PCP_BATCH_DEFAULT, SOCKET_ID_ANY);
	struct rxr_pcp *p2 = rxr_pcp_create(z, RXR_PCP_HIGH_DEFAULT,
			RXR_PCP_BATCH_DEFAULT, SOCKET_ID_ANY);
	struct rxr_zone_stats st;

	for (int i = 0; i < 600; i++)
		a[i] = pcp_alloc1(p1);
	RXR_TEST_ASSERT_EQ(rxr_pcp_alloc_bulk(p2, b, 600), 0, "bulk 600");
	for (int i = 0; i < 600; i++)
		for (int j = 0; j < 600; j++)
			RXR_TEST_ASSERT(a[i] != b[j], "frame in two pcps' hands");
	rxr_zone_stats(z, &st);
	RXR_TEST_ASSERT_EQ(st.nr_free + p1->count + p2->count + 1200, NR_FRAMES,
		"conservation");
	RXR_TEST_ASSERT_EQ(p1->stats.alloc, p2->stats.alloc, "alloc counts agree");
	for (int i = 0; i < 600; i++)
		rxr_pcp_free_bulk(p1, &(void *){a[i]}, 1);
	rxr_pcp_free_bulk(p2, b, 600);
	RXR_TEST_ASSERT_EQ(p1->stats.free, p2->stats.free, "free counts agree");
	RXR_TEST_ASSERT(p1->count <= p1->high && p2->count <= p2->high, "high");
	rxr_pcp_destroy(p1);
	rxr_pcp_destroy(p2);
	rxr_zone_stats(z, &st);
	RXR_TEST_ASSERT_EQ(st.nr_free, NR_FRAMES, "conservation after drain");
	rxr_zone_destroy(z);
	return 0;
}

static int
test_exhaustion(void)
{
	static void *f[300];
	struct rxr_zone *z = zone_new(100);
	struct rxr_pcp *pcp = rxr_pcp_create(z, 12, 4, SOCKET_ID_ANY);
	int i;

	RXR_TEST_ASSERT_EQ(rxr_pcp_alloc_bulk(pcp, f, 101), -ENOBUFS, "over capacity");
	RXR_TEST_ASSERT_EQ(pcp->count, 0, "failed bulk left the pcp alone");
	for (i = 0; i < 300 && (f[i] = pcp_alloc1(pcp)) != NULL; i++)
		;
	RXR_TEST_ASSERT_EQ(i, 100, "every frame, then NULL");
	RXR_TEST_ASSERT(pcp->stats.alloc_fail >= 2, "failures counted");
	rxr_pcp_free_bulk(pcp, f, 100);
	RXR_TEST_ASSERT_EQ(rxr_pcp_alloc_bulk(pcp, f, 100), 0, "all again");
	rxr_pcp_free_bulk(pcp, f, 100);
	rxr_pcp_destroy(pcp);
	rxr_zone_destroy(z);
	return 0;
}

static int
test_bad_conf(void)
{
	struct rxr_zone *z = zone_new(64);

	RXR_TEST_ASSERT(rxr_pcp_create(z, 10, 0, SOCKET_ID_ANY) == NULL, "batch 0");
	RXR_TEST_ASSERT(rxr_pcp_create(z, 10, 11, SOCKET_ID_ANY) == NULL,
		"high below batch");
	RXR_TEST_ASSERT(sizeof(struct rxr_pcp) + RXR_PCP_HIGH_DEFAULT *
		sizeof(void *) <= 8256, "a pcp larger than a mempool cache");
	rxr_zone_destroy(z);
	return 0;
}

int
main(int argc, char **argv)
{
	rxr_test_eal_init(argv[0], "0", 128, NULL);
	mem = aligned_alloc(FRAME, (size_t)NR_FRAMES * FRAME);
	rxr_test_run("model: single calls, default high/batch", test_model_single_default);
	rxr_test_run("model: bulk calls, default high/batch", test_model_bulk_default);
	rxr_test_run("model: small and odd high/batch", test_model_small);
	rxr_test_run("exact lock holds and frames for a fixed sequence", test_exact_figures);
	rxr_test_run("single and bulk paths agree", test_single_bulk_agree);
	rxr_test_run("exhaustion: all or nothing, then recovery", test_exhaustion);
	rxr_test_run("bad high/batch rejected; size bound", test_bad_conf);
	return rxr_test_done();
}
