/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Deferred flow counting against counting in place: the same packets go
 * through a log into one table and straight into another, and both tables
 * must hold the same flows with the same counts, in the same arrival order.
 * Drains of random size at random times; a log nobody drains (the appender
 * counts when it is full, nothing lost); a table without room for every
 * flow (what the log could not count is untracked, bytes included); reset;
 * bad arguments. "concurrent" (the stress suite, also under ThreadSanitizer)
 * appends from one thread while another drains.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_memory.h>
#include <rte_pause.h>

#include "flow_test_keys.h"
#include "rxr_flow_log.h"
#include "rxr_flow_table.h"
#include "rxr_test.h"

#define BURST_MAX 64

/* The entry of every seq 1..count of t (free()), or NULL (no memory). */
static const struct rxr_flow_entry **
by_seq(const struct rxr_flow_table *t)
{
	uint32_t count = rxr_flow_table_count(t), pos = 0;
	const struct rxr_flow_entry **s = calloc(count + 1, sizeof(*s));
	const struct rxr_flow_entry *e;

	while (s != NULL && (e = rxr_flow_table_next(t, &pos)) != NULL)
		if (e->seq >= 1 && e->seq <= count)
			s[e->seq] = e;
	return s;
}

/* The log's table and the reference table hold the same flows, counts and
 * arrival order. */
static int
same(const struct rxr_flow_table *got, const struct rxr_flow_table *want)
{
	const struct rxr_flow_entry **g, **w;
	uint32_t count = rxr_flow_table_count(want);

	RXR_TEST_ASSERT_EQ(rxr_flow_table_count(got), count, "flows");
	g = by_seq(got);
	w = by_seq(want);
	RXR_TEST_ASSERT(g != NULL && w != NULL, "no memory");
	for (uint32_t s = 1; s <= count; s++) {
		RXR_TEST_ASSERT(g[s] != NULL && w[s] != NULL &&
			memcmp(&g[s]->key, &w[s]->key, sizeof(w[s]->key)) == 0,
			"flow %u: entry %p, in place %p, or another key", s,
			(const void *)g[s], (const void *)w[s]);
		RXR_TEST_ASSERT_EQ(g[s]->packets, w[s]->packets,
			"packets of a flow");
		RXR_TEST_ASSERT_EQ(g[s]->bytes, w[s]->bytes, "bytes of a flow");
	}
	free(g);
	free(w);
	return 0;
}

/*
 * nb_packets in random bursts, skewed to a few hot keys, appended to the
 * log and counted in place in ref; drain_every: after about one burst in
 * that many, drain a random number of records (0: never drain).
 * *untracked gets the packets and bytes ref had no room for.
 */
static int
drive(struct rxr_flow_log *l, struct rxr_flow_table *ref,
		const struct rxr_flow_key *keys, unsigned int nb_keys,
		unsigned int nb_packets, unsigned int drain_every,
		uint64_t untracked[2])
{
	struct rxr_flow_key burst[BURST_MAX];
	struct rxr_flow_entry *out[BURST_MAX];
	uint32_t len[BURST_MAX];
	unsigned int sent = 0;

	while (sent < nb_packets) {
		unsigned int n = RTE_MIN(1 + (unsigned int)(rnd() % BURST_MAX),
				nb_packets - sent);

		for (unsigned int i = 0; i < n; i++) {
			unsigned int k = rnd() % 4 == 0 ?
				(unsigned int)(rnd() % 8) :
				(unsigned int)(rnd() % nb_keys);

			burst[i] = keys[k];
			len[i] = 60 + rnd() % 1455;
		}
		rxr_flow_log_append(l, burst, len, n);
		if (rxr_flow_table_update_bulk(ref, burst, len, n, out) != 0)
			for (unsigned int i = 0; i < n; i++)
				if (out[i] == NULL) {
					untracked[0]++;
					untracked[1] += len[i];
				}
		if (drain_every != 0 && rnd() % drain_every == 0)
			rxr_flow_log_drain(l, (unsigned int)(rnd() % 3000));
		sent += n;
	}
	return 0;
}

static int
run_case(uint32_t max_flows, unsigned int nb_keys, uint32_t log_size,
		unsigned int drain_every, int expect_self)
{
	struct rxr_flow_key *keys = make_keys(nb_keys);
	struct rxr_flow_table *t = rxr_flow_table_create(max_flows, 1,
			SOCKET_ID_ANY);
	struct rxr_flow_table *ref = rxr_flow_table_create(max_flows, 1,
			SOCKET_ID_ANY);
	struct rxr_flow_log *l = rxr_flow_log_create(t, log_size, SOCKET_ID_ANY);
	struct rxr_flow_log_stats st;
	uint64_t untracked[2] = { 0, 0 };
	const unsigned int packets = 200000;

	RXR_TEST_ASSERT(keys && t && ref && l, "setup: %s",
		rte_strerror(rte_errno));
	if (drive(l, ref, keys, nb_keys, packets, drain_every, untracked) != 0)
		return -1;
	rxr_flow_log_stats(l, &st);
	RXR_TEST_ASSERT_EQ(st.applied + st.pending, packets,
		"applied and pending");
	RXR_TEST_ASSERT(st.pending <= log_size, "%llu pending in a log of %u",
		(unsigned long long)st.pending, log_size);
	if (expect_self > 0)
		RXR_TEST_ASSERT(st.applied_by_appender > 0,
			"a log nobody drained was never counted by its appender");
	else if (expect_self == 0)
		RXR_TEST_ASSERT_EQ(st.applied_by_appender, 0,
			"appender counted though the log had room");
	while (rxr_flow_log_drain(l, 1 + rnd() % 5000) != 0)
		;
	rxr_flow_log_stats(l, &st);
	RXR_TEST_ASSERT_EQ(st.pending, 0, "pending after the last drain");
	RXR_TEST_ASSERT_EQ(st.applied, packets, "every record applied");
	RXR_TEST_ASSERT_EQ(st.untracked_packets, untracked[0],
		"untracked packets");
	RXR_TEST_ASSERT_EQ(st.untracked_bytes, untracked[1], "untracked bytes");
	if (same(t, ref) != 0)
		return -1;

	/* Reset: nothing pending, counters zero, the log works again. */
	rxr_flow_table_reset(t);
	rxr_flow_table_reset(ref);
	rxr_flow_log_reset(l);
	rxr_flow_log_stats(l, &st);
	RXR_TEST_ASSERT(st.applied == 0 && st.pending == 0 &&
		st.applied_by_appender == 0 && st.untracked_packets == 0,
		"counters after reset");
	untracked[0] = untracked[1] = 0;
	if (drive(l, ref, keys, nb_keys, 5000, drain_every, untracked) != 0)
		return -1;
	while (rxr_flow_log_drain(l, UINT32_MAX) != 0)
		;
	if (same(t, ref) != 0)
		return -1;
	rxr_flow_log_free(l);
	rxr_flow_table_free(t);
	rxr_flow_table_free(ref);
	free(keys);
	return 0;
}

/* A log with room for every record, or drained as it fills. */
static int
t_drained(void)
{
	return run_case(20000, 20000, 1u << 18, 0, 0) ||
		run_case(20000, 20000, 4096, 2, -1) ? -1 : 0;
}

/* Nobody drains: the appender counts, a quarter of the log at a time. */
static int
t_undrained(void)
{
	return run_case(20000, 20000, 64, 0, 1) ||
		run_case(20000, 20000, 1024, 0, 1) ? -1 : 0;
}

/* The table has room for 500 of 5000 flows: the rest is untracked. */
static int
t_full_table(void)
{
	return run_case(500, 5000, 1024, 3, -1);
}

static int
t_args(void)
{
	struct rxr_flow_table *t = rxr_flow_table_create(16, 1, SOCKET_ID_ANY);

	RXR_TEST_ASSERT(t != NULL, "table");
	RXR_TEST_ASSERT(rxr_flow_log_create(NULL, 64, SOCKET_ID_ANY) == NULL &&
		rte_errno == EINVAL, "no table");
	RXR_TEST_ASSERT(rxr_flow_log_create(t, 100, SOCKET_ID_ANY) == NULL &&
		rte_errno == EINVAL, "not a power of 2");
	RXR_TEST_ASSERT(rxr_flow_log_create(t, 32, SOCKET_ID_ANY) == NULL &&
		rte_errno == EINVAL, "too small");
	RXR_TEST_ASSERT(rxr_flow_log_create(t, 1u << 25, SOCKET_ID_ANY) ==
		NULL && rte_errno == EINVAL, "too large");
	rxr_flow_log_free(NULL);
	rxr_flow_table_free(t);
	return 0;
}

/* One appender thread, the test's thread drains meanwhile. */
struct appender {
	struct rxr_flow_log *l;
	const struct rxr_flow_key *keys;
	unsigned int nb_keys, packets;
	atomic_bool done;
};

static void *
appender_main(void *arg)
{
	struct appender *a = arg;
	struct rxr_flow_key burst[BURST_MAX];
	uint32_t len[BURST_MAX];
	uint64_t x = 88172645463325252ull;

	for (unsigned int sent = 0; sent < a->packets; ) {
		unsigned int n = RTE_MIN(1 + sent % BURST_MAX, a->packets - sent);

		for (unsigned int i = 0; i < n; i++) {
			burst[i] = a->keys[rxr_test_xorshift(&x) % a->nb_keys];
			/* The length says which packet it was: sums check it. */
			len[i] = 1;
		}
		/* About what parsing takes, so the drainer keeps pace. */
		for (unsigned int i = 0; i < 40 * n; i++)
			rte_pause();
		rxr_flow_log_append(a->l, burst, len, n);
		sent += n;
	}
	atomic_store_explicit(&a->done, true, memory_order_release);
	return NULL;
}

static int
t_concurrent(void)
{
	const char *s = getenv("RXR_STRESS_SCALE");
	unsigned int scale = s != NULL && atoi(s) > 1 ? (unsigned int)atoi(s) : 1;
	struct appender a = { .nb_keys = 50000, .packets = 4000000 / scale };
	struct rxr_flow_key *keys = make_keys(a.nb_keys);
	struct rxr_flow_table *t = rxr_flow_table_create(a.nb_keys, 1,
			SOCKET_ID_ANY);
	struct rxr_flow_log_stats st;
	const struct rxr_flow_entry *e;
	uint64_t packets = 0, bytes = 0, drained = 0;
	uint32_t pos = 0;
	pthread_t th;

	RXR_TEST_ASSERT(keys != NULL && t != NULL, "setup");
	a.keys = keys;
	a.l = rxr_flow_log_create(t, 4096, SOCKET_ID_ANY);
	RXR_TEST_ASSERT(a.l != NULL, "log");
	RXR_TEST_ASSERT(pthread_create(&th, NULL, appender_main, &a) == 0,
		"thread");
	while (!atomic_load_explicit(&a.done, memory_order_acquire))
		drained += rxr_flow_log_drain(a.l, 1 + rnd() % 2048);
	pthread_join(th, NULL);
	while (rxr_flow_log_drain(a.l, UINT32_MAX) != 0)
		;
	rxr_flow_log_stats(a.l, &st);
	RXR_TEST_ASSERT_EQ(st.applied, a.packets, "applied");
	RXR_TEST_ASSERT_EQ(st.pending, 0, "pending");
	RXR_TEST_ASSERT(drained > 0, "the drainer never drained");
	while ((e = rxr_flow_table_next(t, &pos)) != NULL) {
		packets += e->packets;
		bytes += e->bytes;
	}
	RXR_TEST_ASSERT_EQ(packets, a.packets, "packets in the table");
	RXR_TEST_ASSERT_EQ(bytes, a.packets, "bytes in the table");
	printf("# %u packets, %llu drained by the other thread, %llu by the "
		"appender\n", a.packets, (unsigned long long)drained,
		(unsigned long long)st.applied_by_appender);
	rxr_flow_log_free(a.l);
	rxr_flow_table_free(t);
	free(keys);
	return 0;
}

int
main(int argc, char **argv)
{
	bool concurrent = argc > 1 && strcmp(argv[1], "concurrent") == 0;

	rng = 0x9e3779b97f4a7c15ull;
	rxr_test_eal_init(argv[0], "0", 128, NULL);
	if (concurrent) {
		rxr_test_run("concurrent", t_concurrent);
		return rxr_test_done();
	}
	rxr_test_run("drained", t_drained);
	rxr_test_run("undrained", t_undrained);
	rxr_test_run("full_table", t_full_table);
	rxr_test_run("args", t_args);
	return rxr_test_done();
}
