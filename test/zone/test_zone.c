/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Zone tests: random alloc/free over orders 0..10 against a reference model,
 * with the buddy invariants checked after every step and conservation at
 * the end; bulk semantics; regions; lock accounting.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_memzone.h>
#include <rte_random.h>

#include "rxr_test.h"
#include "rxr_zone.h"

#define FRAME 4096u

/* Three regions with sizes that are not powers of two: edge blocks. */
static const uint32_t region_frames[] = { 1000, 2048 + 17, 3 * 1024 + 5 };
#define NR_REGIONS RTE_DIM(region_frames)

struct model {
	struct rxr_zone *z;
	uint8_t *mem[NR_REGIONS];
	uint8_t *used[NR_REGIONS];	/* per frame: 1 when allocated */
	uint64_t nr_free;
	uint64_t nr_frames;
};

static int
model_init(struct model *m, enum rxr_zone_region_state state)
{
	struct rxr_zone_conf conf = {
		.name = "test", .socket_id = SOCKET_ID_ANY, .frame_size = FRAME,
		.max_frames = 0, .max_regions = NR_REGIONS,
	};

	memset(m, 0, sizeof(*m));
	for (unsigned int r = 0; r < NR_REGIONS; r++)
		conf.max_frames += region_frames[r];
	m->z = rxr_zone_create(&conf);
	RXR_TEST_ASSERT(m->z != NULL, "rxr_zone_create");
	for (unsigned int r = 0; r < NR_REGIONS; r++) {
		/* The zone never touches frame memory: untouched pages. */
		m->mem[r] = aligned_alloc(FRAME, (size_t)region_frames[r] * FRAME);
		m->used[r] = calloc(region_frames[r], 1);
		RXR_TEST_ASSERT(m->mem[r] != NULL && m->used[r] != NULL, "memory");
		RXR_TEST_ASSERT_EQ(rxr_zone_add_region(m->z, m->mem[r],
			(size_t)region_frames[r] * FRAME, state),
			region_frames[r], "frames added");
		if (state == RXR_ZONE_REGION_ALLOCATED)
			memset(m->used[r], 1, region_frames[r]);
		m->nr_frames += region_frames[r];
	}
	m->nr_free = state == RXR_ZONE_REGION_FREE ? m->nr_frames : 0;
	return 0;
}

static void
model_fini(struct model *m)
{
	rxr_zone_destroy(m->z);
	for (unsigned int r = 0; r < NR_REGIONS; r++) {
		free(m->mem[r]);
		free(m->used[r]);
	}
}

/* Region and frame index of an address, per the model. */
static int
model_locate(const struct model *m, const void *p, unsigned int *r,
		uint32_t *i)
{
	for (*r = 0; *r < NR_REGIONS; (*r)++) {
		const uint8_t *b = m->mem[*r];

		if ((const uint8_t *)p >= b &&
				(const uint8_t *)p < b + (size_t)region_frames[*r] * FRAME) {
			RXR_TEST_ASSERT(((const uint8_t *)p - b) % FRAME == 0,
				"frame %p misaligned", p);
			*i = ((const uint8_t *)p - b) / FRAME;
			return 0;
		}
	}
	RXR_TEST_ASSERT(0, "%p is in no region", p);
	return -1;
}

/* Does any region hold an aligned, wholly free run of 2^order frames? */
static bool
model_can_alloc(const struct model *m, unsigned int order)
{
	uint32_t n = 1u << order;

	for (unsigned int r = 0; r < NR_REGIONS; r++)
		for (uint32_t i = 0; i + n <= region_frames[r]; i += n) {
			uint32_t j;

			for (j = 0; j < n && !m->used[r][i + j]; j++)
				;
			if (j == n)
				return true;
		}
	return false;
}

struct block {
	void *p;
	unsigned int order;
};

static int
model_alloc(struct model *m, struct block *b, unsigned int order, bool *ok)
{
	bool possible = model_can_alloc(m, order);
	void *p = rxr_zone_alloc(m->z, order);
	unsigned int r;
	uint32_t i;

	/* Maximal merging means: fails exactly when no aligned run is free. */
	RXR_TEST_ASSERT((p != NULL) == possible,
		"order %u alloc %s but the model says %s", order,
		p ? "succeeded" : "failed", possible ? "possible" : "impossible");
	*ok = p != NULL;
	if (p == NULL)
		return 0;
	if (model_locate(m, p, &r, &i) != 0)
		return -1;
	RXR_TEST_ASSERT((i & ((1u << order) - 1)) == 0,
		"order %u block at frame %u is not aligned", order, i);
	RXR_TEST_ASSERT(i + (1u << order) <= region_frames[r],
		"order %u block at frame %u runs past region %u", order, i, r);
	for (uint32_t j = 0; j < (1u << order); j++) {
		RXR_TEST_ASSERT(!m->used[r][i + j],
			"frame %u of region %u handed out twice", i + j, r);
		m->used[r][i + j] = 1;
	}
	m->nr_free -= 1u << order;
	b->p = p;
	b->order = order;
	return 0;
}

static int
model_free(struct model *m, const struct block *b)
{
	unsigned int r;
	uint32_t i;

	if (model_locate(m, b->p, &r, &i) != 0)
		return -1;
	for (uint32_t j = 0; j < (1u << b->order); j++)
		m->used[r][i + j] = 0;
	rxr_zone_free(m->z, b->p, b->order);
	m->nr_free += 1u << b->order;
	return 0;
}

static int
model_verify(struct model *m)
{
	struct rxr_zone_stats st;

	RXR_TEST_ASSERT(rxr_zone_check(m->z, stdout) == 0, "buddy invariants");
	rxr_zone_stats(m->z, &st);
	RXR_TEST_ASSERT_EQ(st.nr_free, m->nr_free, "free frames");
	RXR_TEST_ASSERT_EQ(st.nr_frames, m->nr_frames, "frames");
	return 0;
}

/* Free blocks per order of a fresh zone over the same regions. */
static void
fresh_blocks(uint64_t blocks[RXR_ZONE_NR_ORDERS])
{
	memset(blocks, 0, sizeof(uint64_t) * RXR_ZONE_NR_ORDERS);
	for (unsigned int r = 0; r < NR_REGIONS; r++)
		for (uint32_t i = 0; i < region_frames[r];) {
			unsigned int o = RXR_ZONE_MAX_ORDER;

			while ((i & ((1u << o) - 1)) || i + (1u << o) > region_frames[r])
				o--;
			blocks[o]++;
			i += 1u << o;
		}
}

static int
verify_fully_merged(struct model *m)
{
	uint64_t want[RXR_ZONE_NR_ORDERS];
	struct rxr_zone_stats st;

	fresh_blocks(want);
	rxr_zone_stats(m->z, &st);
	RXR_TEST_ASSERT_EQ(st.nr_free, m->nr_frames, "all frames back");
	for (unsigned int o = 0; o < RXR_ZONE_NR_ORDERS; o++)
		RXR_TEST_ASSERT(st.nr_blocks[o] == want[o],
			"order %u: %" PRIu64 " free blocks, a fresh zone has %" PRIu64,
			o, st.nr_blocks[o], want[o]);
	return 0;
}

/*
 * A test's end: the zone as the model says, every frame back and merged as
 * in a fresh zone; the model released.
 */
static int
model_finish(struct model *m)
{
	int ret = model_verify(m) == 0 && verify_fully_merged(m) == 0 ? 0 : -1;

	model_fini(m);
	return ret;
}

static int
test_random_vs_model(void)
{
	enum { STEPS = 6000, MAX_HELD = 4096 };
	static struct block held[MAX_HELD];
	unsigned int nheld = 0;
	struct model m;

	rte_srand(12345);
	if (model_init(&m, RXR_ZONE_REGION_FREE) != 0)
		return -1;
	if (verify_fully_merged(&m) != 0)
		return -1;
	for (unsigned int s = 0; s < STEPS; s++) {
		/* Bias towards small orders, as real traffic is. */
		unsigned int order = rte_rand_max(4) == 0 ?
			rte_rand_max(RXR_ZONE_NR_ORDERS) : rte_rand_max(3);
		bool alloc = nheld == 0 || (nheld < MAX_HELD &&
			rte_rand_max(100) < (s < STEPS / 2 ? 60 : 40));

		if (alloc) {
			bool ok;

			if (model_alloc(&m, &held[nheld], order, &ok) != 0)
				return -1;
			nheld += ok;
		} else {
			unsigned int k = rte_rand_max(nheld);

			if (model_free(&m, &held[k]) != 0)
				return -1;
			held[k] = held[--nheld];
		}
		if (model_verify(&m) != 0) {
			printf("# after step %u\n", s);
			return -1;
		}
	}
	while (nheld > 0)
		if (model_free(&m, &held[--nheld]) != 0 || model_verify(&m) != 0)
			return -1;
	return model_finish(&m);
}

/* Exhaust every order, then give everything back. */
static int
test_exhaust(void)
{
	static struct block held[8192];
	unsigned int nheld = 0;
	struct model m;
	bool ok = true;

	if (model_init(&m, RXR_ZONE_REGION_FREE) != 0)
		return -1;
	for (int o = RXR_ZONE_MAX_ORDER; o >= 0; o--)
		do {
			if (model_alloc(&m, &held[nheld], o, &ok) != 0)
				return -1;
			nheld += ok;
		} while (ok);
	RXR_TEST_ASSERT_EQ(m.nr_free, 0, "model empty");
	RXR_TEST_ASSERT(rxr_zone_alloc(m.z, 0) == NULL, "empty zone allocates");
	if (model_verify(&m) != 0)
		return -1;
	while (nheld > 0)
		if (model_free(&m, &held[--nheld]) != 0)
			return -1;
	return model_finish(&m);
}

/* Populate-style regions: every frame starts allocated, frees merge. */
static int
test_region_allocated(void)
{
	struct model m;
	struct rxr_zone_stats st;

	if (model_init(&m, RXR_ZONE_REGION_ALLOCATED) != 0)
		return -1;
	rxr_zone_stats(m.z, &st);
	RXR_TEST_ASSERT_EQ(st.nr_free, 0, "allocated region free frames");
	/* Free in a scattered order to exercise every merge path. */
	for (unsigned int r = 0; r < NR_REGIONS; r++)
		for (uint32_t step = 0; step < 7; step++)
			for (uint32_t i = step; i < region_frames[r]; i += 7) {
				struct block b = { m.mem[r] + (size_t)i * FRAME, 0 };

				if (model_free(&m, &b) != 0)
					return -1;
			}
	return model_finish(&m);
}

static int
test_bulk(void)
{
	static void *objs[16384];
	struct rxr_zone_stats st0, st;
	struct model m;
	unsigned int n, total;

	if (model_init(&m, RXR_ZONE_REGION_FREE) != 0)
		return -1;
	total = m.nr_frames;
	rxr_zone_stats(m.z, &st0);

	n = rxr_zone_alloc_bulk(m.z, objs, 10, 100);
	RXR_TEST_ASSERT_EQ(n, 100, "bulk up to max");
	rxr_zone_stats(m.z, &st);
	RXR_TEST_ASSERT_EQ(st.lock.acquisitions - st0.lock.acquisitions, 1,
		"one lock hold per bulk call");
	/* All or nothing on the minimum. */
	n = rxr_zone_alloc_bulk(m.z, objs + 100, total, total);
	RXR_TEST_ASSERT_EQ(n, 0, "bulk above what is free");
	rxr_zone_stats(m.z, &st);
	RXR_TEST_ASSERT_EQ(st.nr_free, total - 100, "failed bulk took nothing");
	RXR_TEST_ASSERT_EQ(st.alloc_fail, 1, "failure counted");
	/* Min satisfied, max clipped to what is free. */
	n = rxr_zone_alloc_bulk(m.z, objs + 100, 1, 16384);
	RXR_TEST_ASSERT_EQ(n, total - 100, "bulk clipped to free frames");
	for (unsigned int i = 0; i < total; i++) {
		unsigned int r;
		uint32_t k;

		if (model_locate(&m, objs[i], &r, &k) != 0)
			return -1;
		RXR_TEST_ASSERT(!m.used[r][k], "frame handed out twice by bulk");
		m.used[r][k] = 1;
	}
	rxr_zone_stats(m.z, &st0);
	rxr_zone_free_bulk(m.z, objs, total);
	rxr_zone_stats(m.z, &st);
	RXR_TEST_ASSERT_EQ(st.lock.acquisitions - st0.lock.acquisitions, 1,
		"one lock hold for the bulk free");
	m.nr_free = total;
	for (unsigned int r = 0; r < NR_REGIONS; r++)
		memset(m.used[r], 0, region_frames[r]);
	return model_finish(&m);
}

static int
test_regions(void)
{
	struct rxr_zone_conf conf = {
		.name = "reg", .socket_id = SOCKET_ID_ANY, .frame_size = 2176,
		.max_frames = 100, .max_regions = 3,
	};
	struct rxr_zone *z = rxr_zone_create(&conf);
	uint8_t *mem = malloc(200 * 2176);
	void *p;

	RXR_TEST_ASSERT(z != NULL && mem != NULL, "create");
	/* A non-power-of-two stride, as an mbuf pool's objects have. */
	RXR_TEST_ASSERT_EQ(rxr_zone_add_region(z, mem + 10 * 2176, 40 * 2176 + 100,
		RXR_ZONE_REGION_FREE), 40, "first region");
	RXR_TEST_ASSERT_EQ(rxr_zone_add_region(z, mem + 20 * 2176, 2176,
		RXR_ZONE_REGION_FREE), -EINVAL, "overlap rejected");
	RXR_TEST_ASSERT_EQ(rxr_zone_add_region(z, mem, 5 * 2176,
		RXR_ZONE_REGION_FREE), 5, "region below the first");
	RXR_TEST_ASSERT_EQ(rxr_zone_add_region(z, mem + 100 * 2176, 60 * 2176,
		RXR_ZONE_REGION_FREE), -ENOSPC, "memmap full");
	RXR_TEST_ASSERT_EQ(rxr_zone_add_region(z, mem, 100,
		RXR_ZONE_REGION_FREE), -EINVAL, "less than a frame");
	RXR_TEST_ASSERT(rxr_zone_owns(z, mem + 12 * 2176), "owns a frame");
	RXR_TEST_ASSERT(!rxr_zone_owns(z, mem + 12 * 2176 + 8), "inside a frame");
	RXR_TEST_ASSERT(!rxr_zone_owns(z, mem + 7 * 2176), "between regions");
	RXR_TEST_ASSERT(rxr_zone_check(z, stdout) == 0, "invariants");
	p = rxr_zone_alloc(z, 5);
	RXR_TEST_ASSERT(p == mem + 10 * 2176 || p == mem + 42 * 2176,
		"order 5 block from the 40-frame region: %p", p);
	rxr_zone_free(z, p, 5);
	RXR_TEST_ASSERT(rxr_zone_alloc(z, 6) == NULL, "no 64-frame block fits");
	RXR_TEST_ASSERT(rxr_zone_check(z, stdout) == 0, "invariants");
	rxr_zone_destroy(z);
	free(mem);
	return 0;
}

/* Memory from EAL: hugepages when there are, else ordinary. */
static int
test_reserve(void)
{
	struct rxr_zone_conf conf = {
		.name = "rsv", .socket_id = SOCKET_ID_ANY, .frame_size = FRAME,
		.max_frames = 4096, .max_regions = 2,
	};
	struct rxr_zone *z = rxr_zone_create(&conf);
	const struct rte_memzone *mz = rte_memzone_reserve_aligned("rsv",
			2048 * FRAME, SOCKET_ID_ANY, 0, FRAME);
	struct rxr_zone_stats st;
	uint8_t *p;

	RXR_TEST_ASSERT(z != NULL && mz != NULL, "create");
	RXR_TEST_ASSERT_EQ(rxr_zone_add_region(z, mz->addr, 2048 * FRAME,
		RXR_ZONE_REGION_FREE), 2048, "reserve");
	rxr_zone_stats(z, &st);
	RXR_TEST_ASSERT_EQ(st.nr_free, 2048, "reserved frames free");
	p = rxr_zone_alloc(z, 0);
	RXR_TEST_ASSERT(p != NULL && ((uintptr_t)p & (FRAME - 1)) == 0,
		"4 KiB frames are 4 KiB aligned");
	memset(p, 0x5a, FRAME);
	rxr_zone_free(z, p, 0);
	RXR_TEST_ASSERT(rxr_zone_check(z, stdout) == 0, "invariants");
	rxr_zone_destroy(z);
	rte_memzone_free(mz);
	return 0;
}

int
main(int argc, char **argv)
{
	rxr_test_eal_init(argv[0], "0", 256, NULL);
	rxr_test_run("random alloc/free over orders 0..10 against a model", test_random_vs_model);
	rxr_test_run("exhaust every order then merge back", test_exhaust);
	rxr_test_run("populate-style allocated region merges on free", test_region_allocated);
	rxr_test_run("bulk alloc/free: one lock hold, all or nothing", test_bulk);
	rxr_test_run("regions: stride, overlap, capacity, ownership", test_regions);
	rxr_test_run("reserve EAL memory for frames", test_reserve);
	return rxr_test_done();
}
