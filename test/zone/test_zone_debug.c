/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Each debug check fires on the fault it exists for. White-box: through
 * the zone's private header a test can corrupt the memmap the way a racing
 * writer would.
 */

#include <stdlib.h>

#include "rxr_test.h"
#include "rxr_zone_private.h"
#include "rxr_pcp.h"

/* One frame, as the bulk calls take it. */
static void *
pcp_alloc1(struct rxr_pcp *pcp)
{
	void *f;

	return rxr_pcp_alloc_bulk(pcp, &f, 1) == 0 ? f : NULL;
}

static struct rxr_zone *
small_zone(void)
{
	static uint8_t *mem;
	struct rxr_zone_conf conf = {
		.name = "dbg", .socket_id = SOCKET_ID_ANY, .frame_size = 4096,
		.max_frames = 256, .max_regions = 1,
	};
	struct rxr_zone *z = rxr_zone_create(&conf);

	if (mem == NULL)
		mem = aligned_alloc(4096, 256 * 4096);
	if (z == NULL || mem == NULL ||
			rxr_zone_add_region(z, mem, 256 * 4096,
				RXR_ZONE_REGION_FREE) != 256)
		abort();
	return z;
}

static void
double_free(void *arg)
{
	struct rxr_zone *z = small_zone();
	void *p = rxr_zone_alloc(z, 0);

	rxr_zone_free(z, p, 0);
	rxr_zone_free(z, p, 0);
}

static void
double_free_order(void *arg)
{
	struct rxr_zone *z = small_zone();
	uint8_t *p = rxr_zone_alloc(z, 2);

	/* Freeing a tail frame of an allocated block. */
	rxr_zone_free(z, p + 4096, 0);
}

static void
foreign(void *arg)
{
	struct rxr_zone *z = small_zone();
	static uint8_t other[8192];

	rxr_zone_free(z, other, 0);
}

static void
misaligned(void *arg)
{
	struct rxr_zone *z = small_zone();
	uint8_t *p = rxr_zone_alloc(z, 0);

	rxr_zone_free(z, p + 128, 0);
}

static void
wrong_order(void *arg)
{
	struct rxr_zone *z = small_zone();
	void *p = rxr_zone_alloc(z, 3);

	rxr_zone_free(z, p, 2);
}

static void
poison(void *arg)
{
	struct rxr_zone *z = small_zone();
	void *p = rxr_zone_alloc(z, 0);

	/* Something wrote into the metadata of a frame in use. */
	z->memmap[rxr_zone_frame_idx(z, p)].next = 7;
	rxr_zone_free(z, p, 0);
}

static void
list_corruption(void *arg)
{
	struct rxr_zone *z = small_zone();
	void *a = rxr_zone_alloc(z, 0), *b = rxr_zone_alloc(z, 0);
	void *c = rxr_zone_alloc(z, 0), *d = rxr_zone_alloc(z, 0);

	/* Two order-0 blocks whose buddies are in use: both stay listed. */
	rxr_zone_free(z, a, 0);
	rxr_zone_free(z, c, 0);
	RTE_SET_USED(b);
	RTE_SET_USED(d);
	/* A racing list_add left a's prev pointing at a stranger. */
	z->memmap[rxr_zone_frame_idx(z, a)].prev = 200;
	rxr_zone_alloc(z, 0);
	rxr_zone_alloc(z, 0);
}

static void
buddy_invariant(void *arg)
{
	struct rxr_zone *z = small_zone();

	/* The head of the order-8 list claims another order. */
	z->memmap[z->area[8].head].order = 3;
	rxr_zone_alloc(z, 0);
}

static void
pcp_double_free(void *arg)
{
	struct rxr_zone *z = small_zone();
	struct rxr_pcp *pcp = rxr_pcp_create(z, 12, 4, SOCKET_ID_ANY);
	void *p = pcp_alloc1(pcp);

	rxr_pcp_free_bulk(pcp, &(void *){p}, 1);
	rxr_pcp_free_bulk(pcp, &(void *){p}, 1);
}

static void
pcp_corrupt_list(void *arg)
{
	struct rxr_zone *z = small_zone();
	struct rxr_pcp *pcp = rxr_pcp_create(z, 12, 4, SOCKET_ID_ANY);
	void *p = pcp_alloc1(pcp);

	/* A racing writer duplicated a slot: the frame is handed out twice. */
	pcp->frames[pcp->count - 1] = p;
	pcp_alloc1(pcp);
}

/* always: the zone checks it in every build; else debug builds only. */
#define EXPECT(fn, check, always) \
static int \
test_##fn(void) \
{ \
	if (!RXR_DEBUG && !(always)) { \
		printf("# SKIP %s: needs -Ddebug_checks=true\n", #fn); \
		return 0; \
	} \
	return rxr_test_expect_abort(fn, NULL, \
		"debug check failed: " check ":"); \
}

EXPECT(double_free, RXR_CHECK_DOUBLE_FREE, true)
EXPECT(double_free_order, RXR_CHECK_DOUBLE_FREE, true)
EXPECT(foreign, RXR_CHECK_FOREIGN, true)
EXPECT(misaligned, RXR_CHECK_MISALIGNED, false)
EXPECT(wrong_order, RXR_CHECK_STATE, false)
EXPECT(poison, RXR_CHECK_POISON, false)
EXPECT(list_corruption, RXR_CHECK_LIST, false)
EXPECT(buddy_invariant, RXR_CHECK_BUDDY, false)
EXPECT(pcp_double_free, RXR_CHECK_DOUBLE_FREE, false)
EXPECT(pcp_corrupt_list, RXR_CHECK_STATE, false)

/* rxr_zone_check() reports what it finds without aborting. */
static int
test_check_reports(void)
{
	struct rxr_zone *z = small_zone();
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	RXR_TEST_ASSERT(rxr_zone_check(z, NULL) == 0, "fresh zone");
	z->nr_free--;
	RXR_TEST_ASSERT(rxr_zone_check(z, f) == -1, "miscount found");
	fclose(f);
	RXR_TEST_ASSERT(strstr(buf, "counted") != NULL, "message: %s", buf);
	z->nr_free++;
	rxr_zone_destroy(z);
	return 0;
}

int
main(int argc, char **argv)
{
	rxr_test_eal_init(argv[0], "0", 64, NULL);
	rxr_test_run("double free aborts", test_double_free);
	rxr_test_run("free of a tail frame aborts", test_double_free_order);
	rxr_test_run("free of a foreign frame aborts", test_foreign);
	rxr_test_run("free of a misaligned address aborts", test_misaligned);
	rxr_test_run("free with the wrong order aborts", test_wrong_order);
	rxr_test_run("overwritten metadata of a used frame aborts", test_poison);
	rxr_test_run("corrupt free list aborts on list_del", test_list_corruption);
	rxr_test_run("free list head of the wrong order aborts", test_buddy_invariant);
	rxr_test_run("double free through a pcp aborts", test_pcp_double_free);
	rxr_test_run("duplicated pcp slot aborts", test_pcp_corrupt_list);
	rxr_test_run("rxr_zone_check reports a miscount", test_check_reports);
	return rxr_test_done();
}
