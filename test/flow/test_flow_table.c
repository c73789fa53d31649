/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The per-lcore flow table against a brute-force reference: random keys
 * in bursts of random length (longer than the table's chunk of prefetches
 * too) with many packets of one flow in a burst, exact packet and byte
 * counts, the order flows arrived in and their consumers; a full table
 * (what it has no room for is counted as untracked, exactly, and nothing
 * twice); a flow whose probe window is full while the table has room;
 * iteration returning every entry once, in small tables too where
 * entries sit past the last home slot; reset.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_memory.h>

#include "flow_test_keys.h"
#include "rxr_flow_table.h"
#include "rxr_test.h"

#define BURST_MAX 200	/* more than the table hashes ahead at once */
#define CONSUMERS 3

/* Every entry of t in arrival order, by_seq[1..count] (free()); NULL when
 * out of memory or when two entries share a seq or one is out of range. */
static const struct rxr_flow_entry **
by_seq(const struct rxr_flow_table *t)
{
	uint32_t count = rxr_flow_table_count(t), pos = 0;
	const struct rxr_flow_entry **s = calloc(count + 1, sizeof(*s));
	const struct rxr_flow_entry *e;

	while (s != NULL && (e = rxr_flow_table_next(t, &pos)) != NULL) {
		if (e->seq == 0 || e->seq > count || s[e->seq] != NULL) {
			free(s);
			return NULL;
		}
		s[e->seq] = e;
	}
	return s;
}

/* The entry of key, found by walking every entry of t. */
static const struct rxr_flow_entry *
find(const struct rxr_flow_table *t, const struct rxr_flow_key *key)
{
	const struct rxr_flow_entry *e;
	uint32_t pos = 0;

	while ((e = rxr_flow_table_next(t, &pos)) != NULL)
		if (memcmp(&e->key, key, sizeof(*key)) == 0)
			return e;
	return NULL;
}

/* What the table should hold, counted one packet at a time. */
struct ref {
	unsigned int nb_keys;
	uint64_t *packets, *bytes;
	uint32_t *seq;		/* 0: never tracked */
	uint32_t nb_flows, max_flows;
	uint64_t untracked_packets, untracked_bytes;
};

static int
ref_init(struct ref *r, unsigned int nb_keys, uint32_t max_flows)
{
	memset(r, 0, sizeof(*r));
	r->nb_keys = nb_keys;
	r->max_flows = max_flows;
	r->packets = calloc(nb_keys, sizeof(*r->packets));
	r->bytes = calloc(nb_keys, sizeof(*r->bytes));
	r->seq = calloc(nb_keys, sizeof(*r->seq));
	return r->packets && r->bytes && r->seq ? 0 : -1;
}

static void
ref_fini(struct ref *r)
{
	free(r->packets);
	free(r->bytes);
	free(r->seq);
}

/*
 * A flow gets a row on its first packet when the table holds fewer than
 * max_flows, and never after (no deletions): with a window far larger than
 * these tables' probe lengths, that is all that decides.
 */
static void
ref_count(struct ref *r, unsigned int k, uint32_t len)
{
	if (r->seq[k] == 0 && r->packets[k] == 0 && r->nb_flows < r->max_flows)
		r->seq[k] = ++r->nb_flows;
	if (r->seq[k] == 0) {
		r->untracked_packets++;
		r->untracked_bytes += len;
	}
	r->packets[k]++;
	r->bytes[k] += len;
}

/*
 * Send nb_packets in random bursts; key draws are skewed to a few hot keys
 * so that one burst often has several packets of one new flow.
 */
static int
drive(struct rxr_flow_table *t, struct ref *r, const struct rxr_flow_key *keys,
		unsigned int nb_packets, unsigned int first_key)
{
	struct rxr_flow_key burst[BURST_MAX];
	struct rxr_flow_entry *out[BURST_MAX];
	unsigned int which[BURST_MAX];
	uint32_t len[BURST_MAX];
	unsigned int sent = 0;

	while (sent < nb_packets) {
		unsigned int n = 1 + rnd() % BURST_MAX, untracked = 0, got;

		n = RTE_MIN(n, nb_packets - sent);
		for (unsigned int i = 0; i < n; i++) {
			unsigned int span = r->nb_keys - first_key;
			unsigned int k = first_key + (rnd() % 4 == 0 ?
				(unsigned int)(rnd() % RTE_MIN(span, 8u)) :
				(unsigned int)(rnd() % span));

			which[i] = k;
			burst[i] = keys[k];
			len[i] = 60 + rnd() % 1455;
		}
		got = rxr_flow_table_update_bulk(t, burst, len, n, out);
		for (unsigned int i = 0; i < n; i++) {
			ref_count(r, which[i], len[i]);
			if (r->seq[which[i]] == 0) {
				RXR_TEST_ASSERT(out[i] == NULL,
					"key %u has an entry past the table's room",
					which[i]);
				untracked++;
				continue;
			}
			RXR_TEST_ASSERT(out[i] != NULL, "key %u: no entry", which[i]);
			RXR_TEST_ASSERT(memcmp(&out[i]->key, &keys[which[i]],
				sizeof(keys[0])) == 0, "key %u: another flow's entry",
				which[i]);
			/* One flow, one entry, whatever the burst held. */
			for (unsigned int j = 0; j < i; j++)
				RXR_TEST_ASSERT((which[j] == which[i]) ==
					(out[j] == out[i]), "packets %u and %u "
					"of a burst: keys %u and %u, entries %p and %p",
					j, i, which[j], which[i], (void *)out[j],
					(void *)out[i]);
		}
		RXR_TEST_ASSERT_EQ(got, untracked, "untracked in a burst");
		sent += n;
	}
	return 0;
}

/* Every count, order and consumer of the table against the reference. */
static int
check(const struct rxr_flow_table *t, const struct ref *r,
		const struct rxr_flow_key *keys)
{
	uint64_t packets = 0, bytes = 0, all_packets = 0, all_bytes = 0;
	uint8_t *seen = calloc(r->nb_flows + 1, 1);
	const struct rxr_flow_entry *e, **seq;
	uint32_t pos = 0, n = 0;

	RXR_TEST_ASSERT(seen != NULL, "no memory");
	RXR_TEST_ASSERT_EQ(rxr_flow_table_count(t), r->nb_flows, "flows");
	seq = by_seq(t);
	RXR_TEST_ASSERT(seq != NULL, "no memory, or seqs not 1..count once");
	/* Every tracked key at its seq: an untracked one has none left. */
	for (unsigned int k = 0; k < r->nb_keys; k++) {
		all_packets += r->packets[k];
		all_bytes += r->bytes[k];
		if (r->seq[k] == 0)
			continue;
		e = seq[r->seq[k]];
		RXR_TEST_ASSERT(e != NULL && memcmp(&e->key, &keys[k],
			sizeof(keys[k])) == 0, "key %u: no entry", k);
		RXR_TEST_ASSERT_EQ(e->packets, r->packets[k], "packets of a flow");
		RXR_TEST_ASSERT_EQ(e->bytes, r->bytes[k], "bytes of a flow");
		RXR_TEST_ASSERT_EQ(e->seq, r->seq[k], "order of a flow");
		RXR_TEST_ASSERT_EQ(e->consumer, (r->seq[k] - 1) % CONSUMERS,
			"consumer of a flow");
	}
	/* Iteration: each entry once, and the counts add up exactly. */
	while ((e = rxr_flow_table_next(t, &pos)) != NULL) {
		RXR_TEST_ASSERT(e->seq >= 1 && e->seq <= r->nb_flows,
			"entry with seq %u of %u flows", e->seq, r->nb_flows);
		RXR_TEST_ASSERT(!seen[e->seq], "seq %u iterated twice", e->seq);
		RXR_TEST_ASSERT(seq[e->seq] == e,
			"an iterated entry is not its key's");
		seen[e->seq] = 1;
		packets += e->packets;
		bytes += e->bytes;
		n++;
	}
	free(seen);
	free(seq);
	RXR_TEST_ASSERT_EQ(n, r->nb_flows, "entries iterated");
	RXR_TEST_ASSERT_EQ(packets + r->untracked_packets, all_packets,
		"packets in entries + untracked");
	RXR_TEST_ASSERT_EQ(bytes + r->untracked_bytes, all_bytes,
		"bytes in entries + untracked");
	return 0;
}

static int
t_reference(void)
{
	const unsigned int nb_keys = 20000;
	struct rxr_flow_key *keys = make_keys(nb_keys);
	struct rxr_flow_table *t = rxr_flow_table_create(nb_keys, CONSUMERS,
			SOCKET_ID_ANY);
	struct ref r;
	int ret;

	RXR_TEST_ASSERT(keys != NULL && t != NULL, "no memory");
	RXR_TEST_ASSERT(ref_init(&r, nb_keys, nb_keys) == 0, "no memory");
	ret = drive(t, &r, keys, 200000, 0);
	if (ret == 0)
		ret = check(t, &r, keys);
	if (ret == 0 && r.untracked_packets != 0)
		ret = -1;
	rxr_flow_table_free(t);
	ref_fini(&r);
	free(keys);
	return ret;
}

static int
t_full(void)
{
	const unsigned int nb_keys = 3000, room = 1000;
	struct rxr_flow_key *keys = make_keys(nb_keys);
	struct rxr_flow_table *t = rxr_flow_table_create(room, CONSUMERS,
			SOCKET_ID_ANY);
	struct ref r;
	int ret;

	RXR_TEST_ASSERT(keys != NULL && t != NULL, "no memory");
	RXR_TEST_ASSERT(ref_init(&r, nb_keys, room) == 0, "no memory");
	ret = drive(t, &r, keys, 50000, 0);
	if (ret == 0)
		ret = check(t, &r, keys);
	if (ret == 0) {
		RXR_TEST_ASSERT_EQ(rxr_flow_table_count(t), room, "a full table");
		RXR_TEST_ASSERT(r.untracked_packets != 0, "nothing untracked");
	}
	rxr_flow_table_free(t);
	ref_fini(&r);
	free(keys);
	return ret;
}

/* The last free row and a burst of two new flows, each twice. */
static int
t_last_row(void)
{
	struct rxr_flow_key *keys = make_keys(3);
	struct rxr_flow_table *t = rxr_flow_table_create(2, CONSUMERS,
			SOCKET_ID_ANY);
	struct rxr_flow_key burst[5];
	struct rxr_flow_entry *out[5];
	uint32_t len[5] = { 100, 200, 300, 400, 500 };

	RXR_TEST_ASSERT(keys != NULL && t != NULL, "no memory");
	RXR_TEST_ASSERT_EQ(rxr_flow_table_update_bulk(t, &keys[0], len, 1, out),
		0, "untracked of the first flow");
	burst[0] = keys[1];
	burst[1] = keys[2];
	burst[2] = keys[1];
	burst[3] = keys[2];
	burst[4] = keys[0];
	RXR_TEST_ASSERT_EQ(rxr_flow_table_update_bulk(t, burst, len, 5, out),
		2, "untracked of the burst");
	RXR_TEST_ASSERT(out[0] != NULL && out[0] == out[2], "flow 1: one entry");
	RXR_TEST_ASSERT(out[1] == NULL && out[3] == NULL, "flow 2 has an entry");
	RXR_TEST_ASSERT_EQ(out[0]->packets, 2, "flow 1 packets");
	RXR_TEST_ASSERT_EQ(out[0]->bytes, 400, "flow 1 bytes");
	RXR_TEST_ASSERT_EQ(out[4]->packets, 2, "flow 0 packets");
	RXR_TEST_ASSERT_EQ(out[4]->bytes, 600, "flow 0 bytes");
	RXR_TEST_ASSERT_EQ(rxr_flow_table_count(t), 2, "flows");
	rxr_flow_table_reset(t);
	RXR_TEST_ASSERT_EQ(rxr_flow_table_count(t), 0, "flows after reset");
	RXR_TEST_ASSERT(find(t, &keys[0]) == NULL, "a flow after reset");
	RXR_TEST_ASSERT_EQ(rxr_flow_table_update_bulk(t, &keys[2], len, 1, out),
		0, "untracked after reset");
	RXR_TEST_ASSERT_EQ(out[0]->seq, 1, "first seq after reset");
	RXR_TEST_ASSERT_EQ(out[0]->consumer, 0, "first consumer after reset");
	rxr_flow_table_free(t);
	free(keys);
	return 0;
}

static int
t_small(void)
{
	const unsigned int rounds = 500, room = 4;
	struct rxr_flow_key *keys = make_keys(rounds * room);
	uint32_t len[4] = { 64, 64, 64, 64 };
	struct rxr_flow_entry *out[4];

	RXR_TEST_ASSERT(keys != NULL, "no memory");
	for (unsigned int i = 0; i < rounds; i++) {
		struct rxr_flow_table *t = rxr_flow_table_create(room, 1,
				SOCKET_ID_ANY);
		const struct rxr_flow_entry *e;
		uint32_t pos = 0, n = 0;

		RXR_TEST_ASSERT(t != NULL, "no memory");
		RXR_TEST_ASSERT_EQ(rxr_flow_table_update_bulk(t, &keys[i * room],
			len, room, out), 0, "untracked in a table with room");
		while ((e = rxr_flow_table_next(t, &pos)) != NULL)
			n++;
		for (unsigned int k = 0; k < room; k++)
			RXR_TEST_ASSERT(find(t, &keys[i * room + k]) ==
				out[k], "lookup");
		rxr_flow_table_free(t);
		RXR_TEST_ASSERT_EQ(n, room, "entries iterated");
	}
	free(keys);
	return 0;
}

/*
 * A window with no free slot while the table has room for more flows:
 * RXR_FLOW_TABLE_PROBE_MAX + 1 flows with one home slot. In an empty
 * table a flow lands on its home slot, which finds them.
 */
static int
t_window(void)
{
	const unsigned int room = 130, want = RXR_FLOW_TABLE_PROBE_MAX + 1;
	const unsigned int nb_keys = 400000;
	struct rxr_flow_key *keys = make_keys(nb_keys), *same, other = { 0 };
	struct rxr_flow_table *t = rxr_flow_table_create(room, 1, SOCKET_ID_ANY);
	struct rxr_flow_entry *out[2], *home = NULL;
	uint32_t len[2] = { 100, 100 };
	unsigned int n = 0;

	same = calloc(want, sizeof(*same));
	RXR_TEST_ASSERT(keys != NULL && t != NULL && same != NULL, "no memory");
	for (unsigned int k = 0; k < nb_keys && n < want; k++) {
		rxr_flow_table_update_bulk(t, &keys[k], len, 1, out);
		if (home == NULL)
			home = out[0];
		if (out[0] == home)
			same[n++] = keys[k];
		else
			other = keys[k];
		rxr_flow_table_reset(t);
	}
	RXR_TEST_ASSERT(n == want, "only %u keys of one home in %u", n, nb_keys);
	for (unsigned int i = 0; i + 1 < want; i++)
		RXR_TEST_ASSERT_EQ(rxr_flow_table_update_bulk(t, &same[i], len, 1,
			out), 0, "untracked with room in the window");
	/* The window is full, the table is not: untracked, now and later. */
	for (unsigned int i = 0; i < 2; i++) {
		RXR_TEST_ASSERT_EQ(rxr_flow_table_update_bulk(t, &same[want - 1],
			len, 1, out), 1, "untracked past a full window");
		RXR_TEST_ASSERT(out[0] == NULL, "an entry past a full window");
	}
	RXR_TEST_ASSERT_EQ(rxr_flow_table_count(t), want - 1, "flows");
	RXR_TEST_ASSERT(find(t, &same[want - 1]) == NULL,
		"lookup of a flow with no room");
	for (unsigned int i = 0; i + 1 < want; i++) {
		const struct rxr_flow_entry *e = find(t, &same[i]);

		RXR_TEST_ASSERT(e != NULL && e->packets == 1, "flow %u", i);
	}
	/* Another home still takes a new flow. */
	RXR_TEST_ASSERT_EQ(rxr_flow_table_update_bulk(t, &other, len, 1, out), 0,
		"untracked elsewhere");
	rxr_flow_table_free(t);
	free(same);
	free(keys);
	return 0;
}

static int
t_args(void)
{
	RXR_TEST_ASSERT(rxr_flow_table_create(0, 1, SOCKET_ID_ANY) == NULL &&
		rte_errno == EINVAL, "0 flows");
	RXR_TEST_ASSERT(rxr_flow_table_create(1, 0, SOCKET_ID_ANY) == NULL &&
		rte_errno == EINVAL, "0 consumers");
	RXR_TEST_ASSERT(rxr_flow_table_create(RXR_FLOW_TABLE_FLOWS_MAX + 1, 1,
		SOCKET_ID_ANY) == NULL && rte_errno == EINVAL, "too many flows");
	rxr_flow_table_free(NULL);
	return 0;
}

int
main(int argc, char **argv)
{
	(void)argc;
	rng = 0x2545f4914f6cdd1dull;
	rxr_test_eal_init(argv[0], "0", 128, NULL);
	rxr_test_run("reference", t_reference);
	rxr_test_run("full", t_full);
	rxr_test_run("last_row", t_last_row);
	rxr_test_run("small", t_small);
	rxr_test_run("window", t_window);
	rxr_test_run("args", t_args);
	return rxr_test_done();
}
