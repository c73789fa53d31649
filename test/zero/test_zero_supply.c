/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The background supply: frames handed out have a zero payload and an
 * untouched header and trailer, counters add up, and after a drain every
 * frame is back in the zone (conservation), also with the service running
 * in another thread while the consumer takes and returns frames.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "rxr_test.h"
#include "rxr_zero.h"

#define FRAME 4096u
#define NR_FRAMES 1024u
/* A pretend mbuf header before the payload, and a trailer after it. */
#define PL_OFF 192u
#define PL_LEN 3000u
#define HDR 0x5A
#define DIRT 0xA5

static struct rxr_zone *zone;
static uint8_t *region;

/* Header and trailer bytes keep HDR; the payload is dirty. */
static void
frame_dirty(uint8_t *f)
{
	memset(f, HDR, PL_OFF);
	memset(f + PL_OFF, DIRT, PL_LEN);
	memset(f + PL_OFF + PL_LEN, HDR, FRAME - PL_OFF - PL_LEN);
}

/* 0 when the payload is zero and the rest still HDR. */
static int
frame_check(const uint8_t *f)
{
	for (uint32_t i = 0; i < FRAME; i++) {
		uint8_t want = (i >= PL_OFF && i < PL_OFF + PL_LEN) ? 0 : HDR;

		if (f[i] != want) {
			printf("# frame %p byte %u is 0x%02x, expected 0x%02x\n",
				(const void *)f, i, f[i], want);
			return -1;
		}
	}
	return 0;
}

static uint64_t
zone_free(void)
{
	struct rxr_zone_stats st;

	rxr_zone_stats(zone, &st);
	return st.nr_free;
}

static int
setup(void)
{
	struct rxr_zone_conf zc = {
		.name = "zero",
		.socket_id = SOCKET_ID_ANY,
		.frame_size = FRAME,
		.max_frames = NR_FRAMES,
		.max_regions = 1,
	};

	zone = rxr_zone_create(&zc);
	RXR_TEST_ASSERT(zone != NULL, "zone: %s", rte_strerror(rte_errno));
	/* Our own region: the test can dirty every frame behind the
	 * supply's back. */
	region = rte_malloc("zero_region", (size_t)NR_FRAMES * FRAME, FRAME);
	RXR_TEST_ASSERT(region != NULL, "region");
	for (uint32_t i = 0; i < NR_FRAMES; i++)
		frame_dirty(region + (size_t)i * FRAME);
	RXR_TEST_ASSERT_EQ(rxr_zone_add_region(zone, region,
		(size_t)NR_FRAMES * FRAME, RXR_ZONE_REGION_FREE), NR_FRAMES, "frames added");
	return 0;
}

static struct rxr_zero_supply *
supply_new(uint32_t capacity, enum rxr_zero_method m)
{
	struct rxr_zero_supply_conf c = {
		.name = "test",
		.zone = zone,
		.capacity = capacity,
		.payload_offset = PL_OFF,
		.payload_len = PL_LEN,
		.method = m,
		.socket_id = SOCKET_ID_ANY,
	};

	return rxr_zero_supply_create(&c);
}

static int
test_create_invalid(void)
{
	struct rxr_zero_supply_conf c = {
		.zone = zone, .capacity = 8, .payload_offset = PL_OFF,
		.payload_len = FRAME - PL_OFF + 1, .socket_id = SOCKET_ID_ANY,
	};

	RXR_TEST_ASSERT(rxr_zero_supply_create(&c) == NULL &&
		rte_errno == EINVAL, "payload past the frame refused");
	c.payload_len = 10;
	c.capacity = 0;
	RXR_TEST_ASSERT(rxr_zero_supply_create(&c) == NULL, "no capacity");
	c.capacity = 8;
	c.zone = NULL;
	RXR_TEST_ASSERT(rxr_zero_supply_create(&c) == NULL, "no zone");
	RXR_TEST_ASSERT(rxr_zero_supply_create(NULL) == NULL, "no conf");
	return 0;
}

/* One thread, every method: fill, get, short and empty gets, drain. */
static int
test_single_thread(void)
{
	uint64_t free0 = zone_free();
	void *got[300];

	for (unsigned int m = 0; m < RXR_ZERO_NR_METHODS; m++) {
		struct rxr_zero_supply *s = supply_new(256, m);
		struct rxr_zero_supply_stats st;
		unsigned int n, total = 0;

		RXR_TEST_ASSERT(s != NULL, "create %s", rxr_zero_method_name(m));
		RXR_TEST_ASSERT_EQ(rxr_zero_supply_get_bulk(s, got, 4), 0,
			"nothing ready yet");
		RXR_TEST_ASSERT_EQ(rxr_zero_supply_service(s, 100), 100,
			"budget respected");
		/* Never more than the capacity. */
		RXR_TEST_ASSERT_EQ(rxr_zero_supply_service(s, 1000), 156,
			"filled to capacity");
		RXR_TEST_ASSERT_EQ(rxr_zero_supply_service(s, 1000), 0, "full");
		RXR_TEST_ASSERT_EQ(rxr_zero_supply_service(s,
			RXR_ZERO_SUPPLY_SERVICE_BUDGET), 0, "service has no work");
		RXR_TEST_ASSERT_EQ(zone_free(), free0 - 256, "taken from zone");

		n = rxr_zero_supply_get_bulk(s, got, 64);
		RXR_TEST_ASSERT_EQ(n, 64, "get 64");
		total += n;
		RXR_TEST_ASSERT_EQ(rxr_zero_supply_service(s,
			RXR_ZERO_SUPPLY_SERVICE_BUDGET), 32, "service refills");
		n = rxr_zero_supply_get_bulk(s, got + total, 236);
		RXR_TEST_ASSERT_EQ(n, 224, "short get");
		total += n;
		for (unsigned int i = 0; i < total; i++)
			if (frame_check(got[i]) != 0)
				return -1;
		/* Return the frames dirty, as a consumer would. */
		for (unsigned int i = 0; i < total; i++)
			frame_dirty(got[i]);
		rxr_zone_free_bulk(zone, got, total);

		rxr_zero_supply_stats(s, &st);
		RXR_TEST_ASSERT_EQ(st.ready, 0, "ready");
		RXR_TEST_ASSERT_EQ(st.frames_supplied, 288, "supplied");
		RXR_TEST_ASSERT_EQ(st.get_frames, 288, "got");
		RXR_TEST_ASSERT_EQ(st.get_calls, 3, "get calls");
		RXR_TEST_ASSERT_EQ(st.get_empty, 1, "empty gets");
		RXR_TEST_ASSERT_EQ(st.get_short, 2, "short gets");
		RXR_TEST_ASSERT_EQ(st.bytes_cleared, 288ull * PL_LEN, "bytes");
		RXR_TEST_ASSERT(st.clear_cycles > 0, "cycles counted");

		/* Drain a partly full ring that has wrapped. */
		RXR_TEST_ASSERT_EQ(rxr_zero_supply_service(s, 200), 200, "refill");
		RXR_TEST_ASSERT_EQ(rxr_zero_supply_drain(s), 200, "drained");
		RXR_TEST_ASSERT_EQ(rxr_zero_supply_drain(s), 0, "drained twice");
		RXR_TEST_ASSERT_EQ(zone_free(), free0, "conservation");
		rxr_zero_supply_stats(s, &st);
		RXR_TEST_ASSERT_EQ(st.drained, 200, "drained counter");
		RXR_TEST_ASSERT_EQ(st.frames_supplied, st.get_frames + st.drained,
			"supplied = got + drained");
		rxr_zero_supply_destroy(s);
		RXR_TEST_ASSERT(rxr_zone_check(zone, stdout) == 0, "buddy");
	}
	return 0;
}

/* A capacity above the zone: the service stops at the zone's end. */
static int
test_zone_empty(void)
{
	uint64_t free0 = zone_free();
	struct rxr_zero_supply *s = supply_new(NR_FRAMES + 100, RXR_ZERO_AUTO);
	struct rxr_zero_supply_stats st;

	RXR_TEST_ASSERT(s != NULL, "create");
	RXR_TEST_ASSERT_EQ(rxr_zero_supply_service(s, 2 * NR_FRAMES), free0,
		"every free frame");
	RXR_TEST_ASSERT_EQ(zone_free(), 0, "zone empty");
	RXR_TEST_ASSERT_EQ(rxr_zero_supply_service(s, 10), 0, "nothing left");
	rxr_zero_supply_stats(s, &st);
	RXR_TEST_ASSERT_EQ(st.zone_empty, 2, "zone empty counted");
	RXR_TEST_ASSERT_EQ(st.ready, free0, "ready");
	/* Destroy drains. */
	rxr_zero_supply_destroy(s);
	RXR_TEST_ASSERT_EQ(zone_free(), free0, "conservation after destroy");
	return 0;
}

/* The service in another thread, the consumer here, frames recycled. */
struct producer {
	struct rxr_zero_supply *s;
	atomic_bool stop;
	unsigned long supplied;
};

static void *
producer_main(void *arg)
{
	struct producer *p = arg;

	while (!atomic_load_explicit(&p->stop, memory_order_relaxed))
		p->supplied += rxr_zero_supply_service(p->s, 16);
	return NULL;
}

static int
test_concurrent(void)
{
	enum { WANT = 30000, BURST = 32 };
	uint64_t free0 = zone_free(), deadline;
	unsigned long taken = 0, tries = 0;
	struct producer p = { 0 };
	struct rxr_zero_supply_stats st;
	void *got[BURST];
	pthread_t th;
	unsigned int drained;

	/* Smaller than the zone, so that frames recycle through it. */
	p.s = supply_new(128, RXR_ZERO_NT);
	RXR_TEST_ASSERT(p.s != NULL, "create");
	RXR_TEST_ASSERT_EQ(pthread_create(&th, NULL, producer_main, &p), 0,
		"thread");
	/* Bounded in time: two cores are shared with others. */
	deadline = rte_rdtsc() + rte_get_tsc_hz() * 2;
	while (taken < WANT && rte_rdtsc() < deadline) {
		unsigned int n = rxr_zero_supply_get_bulk(p.s, got, BURST);

		tries++;
		for (unsigned int i = 0; i < n; i++) {
			if (frame_check(got[i]) != 0) {
				atomic_store_explicit(&p.stop, true, memory_order_relaxed);
				pthread_join(th, NULL);
				return -1;
			}
			frame_dirty(got[i]);
		}
		rxr_zone_free_bulk(zone, got, n);
		taken += n;
		if (n == 0)
			sched_yield();
	}
	atomic_store_explicit(&p.stop, true, memory_order_relaxed);
	pthread_join(th, NULL);
	printf("# concurrent: %lu frames checked in %lu gets\n", taken, tries);
	RXR_TEST_ASSERT(taken > 1000, "too few frames went through (%lu)",
		taken);
	drained = rxr_zero_supply_drain(p.s);
	rxr_zero_supply_stats(p.s, &st);
	RXR_TEST_ASSERT_EQ(st.frames_supplied, p.supplied, "supplied");
	RXR_TEST_ASSERT_EQ(st.get_frames, taken, "got");
	RXR_TEST_ASSERT_EQ(st.frames_supplied, taken + drained,
		"supplied = got + drained");
	RXR_TEST_ASSERT_EQ(st.bytes_cleared, st.frames_supplied * PL_LEN,
		"bytes");
	RXR_TEST_ASSERT_EQ(zone_free(), free0, "conservation");
	RXR_TEST_ASSERT(rxr_zone_check(zone, stdout) == 0, "buddy");
	rxr_zero_supply_destroy(p.s);
	return 0;
}

/* Debug builds: a dirty frame in the supply is caught when handed out. */
static void
hand_out_dirty(void *arg)
{
	struct rxr_zero_supply *s = supply_new(8, RXR_ZERO_CONTIG);
	void *got[8];

	(void)arg;
	rxr_zero_supply_service(s, 8);
	/* Dirty every frame of the region behind the supply's back. */
	for (uint32_t i = 0; i < NR_FRAMES; i++)
		frame_dirty(region + (size_t)i * FRAME);
	rxr_zero_supply_get_bulk(s, got, 8);
}

static int
test_debug_dirty(void)
{
	if (!RXR_DEBUG) {
		printf("# debug checks off: dirty-frame check not built\n");
		return 0;
	}
	return rxr_test_expect_abort(hand_out_dirty, NULL, RXR_CHECK_DIRTY);
}

int
main(int argc, char **argv)
{
	(void)argc;
	rxr_test_eal_init(argv[0], "0", 64, NULL);
	if (setup() != 0) {
		printf("Bail out! setup\n");
		return EXIT_FAILURE;
	}
	rxr_test_run("create refuses bad confs", test_create_invalid);
	rxr_test_run("single thread, every method", test_single_thread);
	rxr_test_run("zone runs empty", test_zone_empty);
	rxr_test_run("service thread and consumer", test_concurrent);
	rxr_test_run("debug: dirty frame caught", test_debug_dirty);
	return rxr_test_done();
}
