/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The strategy interface, white-box: every registered strategy fills its
 * required operations and says what it can do; wrappers stack in the one
 * documented order and adoption comes off cleanly; the inline owner path is
 * on exactly when nothing wraps a strategy that asks for it; every rejected
 * configuration field gives one message naming field and value, and error
 * codes come through unchanged.
 */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "rxr_test.h"
#include "rxr_pool_private.h"

#define NR_FRAMES 1024u

static struct rxr_pool_conf
conf_of(enum rxr_strategy s, bool bulk)
{
	return (struct rxr_pool_conf){
		.name = "ops", .strategy = s, .bulk = bulk,
		.socket_id = SOCKET_ID_ANY, .nr_poll_lcores = 1,
		.poll_lcores = { 0 }, .high = 48, .batch = 16,
	};
}

/*
 * A strategy's own counters and settings: names that the report, telemetry
 * and metrics can key on (non-empty, distinct, found back by name), as
 * many as the lcore statistics and the configuration hold, and a stats
 * callback to fill the counters.
 */
static int
names_check(enum rxr_strategy s)
{
	const char * const *names;
	unsigned int n;

	for (int kind = 0; kind < 2; kind++) {
		n = kind == 0 ? rxr_strategy_counters(s, &names) :
			rxr_strategy_settings(s, &names);
		RXR_TEST_ASSERT(n == 0 || names[n] == NULL,
			"%s: %s names end within the maximum",
			rxr_strategy_name(s), kind == 0 ? "counter" : "setting");
		for (unsigned int i = 0; i < n; i++) {
			int back = kind == 0 ?
				rxr_strategy_counter_index(s, names[i]) :
				rxr_strategy_setting_index(s, names[i]);

			RXR_TEST_ASSERT(names[i][0] != '\0' &&
				back == (int)i, "%s: name %u \"%s\" empty or "
				"repeated", rxr_strategy_name(s), i, names[i]);
		}
	}
	RXR_TEST_ASSERT(rxr_strategy_counters(s, &names) == 0 ||
		rxrp_strategy_get(s)->stats != NULL,
		"%s: counters need a stats callback", rxr_strategy_name(s));
	return 0;
}

static int
test_registry(void)
{
	enum rxr_strategy back;

	RXR_TEST_ASSERT_EQ(RXR_STRATEGY_USER_MAX, RXR_STRATEGY_MAX - 1,
		"one test-only strategy, last");
	for (int s = 0; s < RXR_STRATEGY_MAX; s++) {
		const struct rxrp_strategy *st = rxrp_strategy_get(s);

		RXR_TEST_ASSERT(st != NULL, "strategy %d registered", s);
		RXR_TEST_ASSERT(st->name != NULL && st->name[0] != '\0',
			"strategy %d has a name", s);
		RXR_TEST_ASSERT(st->alloc[0] != NULL && st->alloc[1] != NULL &&
			st->free[0] != NULL && st->free[1] != NULL,
			"%s: alloc and free, bulk on and off", st->name);
		RXR_TEST_ASSERT(strcmp(rxr_strategy_name(s), st->name) == 0,
			"%s: name", st->name);
		RXR_TEST_ASSERT(rxr_strategy_parse(st->name, true, &back) == 0 &&
			back == (enum rxr_strategy)s, "%s: parses back", st->name);
		RXR_TEST_ASSERT(((st->caps & RXR_STRATEGY_CAP_TEST_ONLY) != 0) ==
			(s >= RXR_STRATEGY_USER_MAX),
			"%s: test-only exactly when past RXR_STRATEGY_USER_MAX",
			st->name);
		RXR_TEST_ASSERT(st->lcore_priv_size <= RXRP_LCORE_PRIV_SIZE,
			"%s: lcore state fits", st->name);
		RXR_TEST_ASSERT((st->lcore_priv_size != 0) ||
			(st->lcore_init == NULL && st->lcore_fini == NULL),
			"%s: lcore hooks only with lcore state", st->name);
		if (names_check(s) != 0)
			return -1;
	}
	/* The list help texts show: every user strategy, nothing else. */
	{
		char names[256], small[6];
		size_t n = rxr_strategy_user_names(names, sizeof(names));

		RXR_TEST_ASSERT(n == strlen(names), "length %zu", n);
		for (int s = 0; s < RXR_STRATEGY_MAX; s++)
			RXR_TEST_ASSERT((strstr(names, rxr_strategy_name(s)) !=
				NULL) == (s < RXR_STRATEGY_USER_MAX),
				"%s in \"%s\"", rxr_strategy_name(s), names);
		RXR_TEST_ASSERT(strncmp(names, "zone, irqsave", 13) == 0,
			"order and separator: %s", names);
		RXR_TEST_ASSERT_EQ(rxr_strategy_user_names(small, sizeof(small)),
			n, "cut short, whole length");
		RXR_TEST_ASSERT(strcmp(small, "zone,") == 0, "cut: %s", small);
	}
	RXR_TEST_ASSERT(rxrp_strategy_get(RXR_STRATEGY_MAX) == NULL, "out of range");
	RXR_TEST_ASSERT_EQ(rxr_strategy_caps(RXR_STRATEGY_MAX), 0, "no caps");
	RXR_TEST_ASSERT(strcmp(rxr_strategy_name(RXR_STRATEGY_MAX), "?") == 0,
		"name out of range");
	/* What the application and the report ask for. */
	RXR_TEST_ASSERT(rxr_strategy_has(RXR_STRATEGY_BH,
		RXR_STRATEGY_CAP_DEFERS_FREES | RXR_STRATEGY_CAP_OWNER_INLINE),
		"bh defers frees, inline owner");
	RXR_TEST_ASSERT(rxr_strategy_has(RXR_STRATEGY_RECYCLE,
		RXR_STRATEGY_CAP_DEFERS_FREES | RXR_STRATEGY_CAP_RECYCLES |
		RXR_STRATEGY_CAP_OWNER_INLINE),
		"recycle defers frees, recycles, inline owner (its cache)");
	RXR_TEST_ASSERT(rxr_strategy_has(RXR_STRATEGY_IRQSAVE,
		RXR_STRATEGY_CAP_PCP_LOCK), "irqsave locks its pcp");
	RXR_TEST_ASSERT_EQ(rxr_strategy_caps(RXR_STRATEGY_ZONE), 0, "zone: none");
	return 0;
}

static struct rxr_pool *
pool_with(const struct rxr_pool_conf *c)
{
	struct rxr_pool *p = rxr_pool_create(c, 4096, NR_FRAMES, 8);

	if (p == NULL)
		printf("# rxr_pool_create: %s\n", rte_strerror(rte_errno));
	else if (rxr_pool_reserve(p, NR_FRAMES) != 0) {
		printf("# rxr_pool_reserve failed\n");
		rxr_pool_destroy(p);
		p = NULL;
	}
	return p;
}

static int
test_layers(void)
{
	const struct rxrp_strategy *bh = rxrp_strategy_get(RXR_STRATEGY_BH);
	struct rxr_pool_conf c = conf_of(RXR_STRATEGY_BH, true);
	struct rxr_pool_ops before;
	struct rxr_pool *p;
	static void *objs[NR_FRAMES + 1];	/* room for the refused call */

	/* Nothing to wrap: the strategy itself, and bh's owner path inline. */
	p = pool_with(&c);
	RXR_TEST_ASSERT(p != NULL, "pool");
	RXR_TEST_ASSERT_EQ(p->top, RXRP_LAYER_STRATEGY + 1, "one layer");
	RXR_TEST_ASSERT(p->ops.alloc == bh->alloc[1] && p->ops.free == bh->free[1],
		"the strategy's bulk functions");
	RXR_TEST_ASSERT(p->ops.owner != NULL, "inline owner path");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, objs, NR_FRAMES + 1), -ENOBUFS,
		"the pcp's code, unchanged");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, objs, 32), 0, "alloc");

	/* Adoption goes on top and comes off leaving the pool as it was. */
	before = p->ops;
	RXR_TEST_ASSERT_EQ(rxr_pool_adopt_begin(p, 64), 0, "adopt begin");
	RXR_TEST_ASSERT_EQ(p->top, RXRP_LAYER_ADOPT + 1, "adoption outermost");
	RXR_TEST_ASSERT(p->ops.owner == NULL, "no inline path while adopting");
	RXR_TEST_ASSERT(p->ops.free != before.free, "frees gathered");
	RXR_TEST_ASSERT(p->ops.alloc == before.alloc, "allocs untouched");
	RXR_TEST_ASSERT_EQ(rxr_pool_adopt_end(p), 0, "nothing adopted");
	RXR_TEST_ASSERT(memcmp(&p->ops, &before, sizeof(before)) == 0,
		"ops restored");
	RXR_TEST_ASSERT_EQ(p->top, RXRP_LAYER_STRATEGY + 1, "layers restored");
	rxr_pool_free_bulk(p, objs, 32);
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "conservation");
	rxr_pool_destroy(p);

	/* Zeroing, then timing, in that order; nothing inline. */
	c.zero_policy = RXR_ZERO_POLICY_ALLOC;
	c.latency = true;
	p = pool_with(&c);
	RXR_TEST_ASSERT(p != NULL, "pool");
	RXR_TEST_ASSERT_EQ(p->top, RXRP_LAYER_TIMING + 1, "three layers");
	RXR_TEST_ASSERT(rxrp_below(p, RXRP_LAYER_ZERO)->alloc == bh->alloc[1],
		"zeroing wraps the strategy");
	RXR_TEST_ASSERT(rxrp_below(p, RXRP_LAYER_TIMING)->alloc != bh->alloc[1] &&
		rxrp_below(p, RXRP_LAYER_TIMING)->alloc != NULL,
		"timing wraps zeroing");
	/* The timing layer is in ops only while a poll lcore samples. */
	RXR_TEST_ASSERT(p->ops.free == bh->free[1] &&
		p->ops.alloc == rxrp_below(p, RXRP_LAYER_TIMING)->alloc,
		"no window open: the timing layer out of the calls");
	rxr_pool_sample(p, true);
	RXR_TEST_ASSERT(p->ops.free != bh->free[1] &&
		rxrp_below(p, RXRP_LAYER_TIMING)->free == bh->free[1],
		"timing wraps the free (sampled frees), zeroing alloc does not");
	RXR_TEST_ASSERT(p->ops.alloc != rxrp_below(p, RXRP_LAYER_TIMING)->alloc,
		"a window puts the timing layer in");
	rxr_pool_sample(p, false);
	RXR_TEST_ASSERT(p->ops.free == bh->free[1], "and takes it out");
	RXR_TEST_ASSERT(p->ops.owner == NULL, "no inline path under wrappers");
	RXR_TEST_ASSERT_EQ(rxrp_layer_push(p, RXRP_LAYER_ZERO, NULL, NULL),
		-EINVAL, "a layer under an installed one is refused");
	rxr_pool_destroy(p);

	/* Latency sampling alone keeps the inline path. */
	c.zero_policy = RXR_ZERO_POLICY_NONE;
	p = pool_with(&c);
	RXR_TEST_ASSERT(p != NULL && p->top == RXRP_LAYER_TIMING + 1 &&
		p->ops.owner != NULL, "sampling turned the inline path off");
	rxr_pool_destroy(p);

	/* Only a strategy that asks for it gets the inline path. */
	for (int s = 0; s < RXR_STRATEGY_MAX; s++)
		for (int bulk = 0; bulk < 2; bulk++) {
			c = conf_of(s, bulk);
			p = pool_with(&c);
			RXR_TEST_ASSERT(p != NULL, "pool");
			RXR_TEST_ASSERT((p->ops.owner != NULL) ==
				rxr_strategy_has(s, RXR_STRATEGY_CAP_OWNER_INLINE),
				"%s bulk %d: inline path", rxr_strategy_name(s), bulk);
			/* Bulk off: one-frame calls only, as the strategy
			 * splits every call. */
			RXR_TEST_ASSERT(p->ops.owner == NULL ||
				p->ops.owner_max == (bulk ? UINT_MAX : 1),
				"%s bulk %d: inline up to %u frames",
				rxr_strategy_name(s), bulk, p->ops.owner_max);
			rxr_pool_destroy(p);
		}
	return 0;
}

/* --- one reason per error ------------------------------------------------- */

static char *logbuf;
static size_t loglen;

/* Create a pool from c, expecting a refusal with errno want and one log line
 * holding needle. */
static int
expect_refused(const struct rxr_pool_conf *c, uint32_t max_frames, int want,
		const char *needle)
{
	FILE *f = open_memstream(&logbuf, &loglen);
	struct rxr_pool *p;
	unsigned int lines = 0;

	RXR_TEST_ASSERT(f != NULL, "memstream");
	rte_openlog_stream(f);
	rte_errno = 0;
	p = rxr_pool_create(c, 4096, max_frames, 8);
	rte_openlog_stream(NULL);
	fclose(f);
	if (p != NULL)
		rxr_pool_destroy(p);
	RXR_TEST_ASSERT(p == NULL, "refused: %s", needle);
	RXR_TEST_ASSERT(rte_errno == want, "%s: rte_errno %d (%s), expected %d",
		needle, rte_errno, rte_strerror(rte_errno), want);
	if (needle != NULL) {
		for (const char *q = logbuf; *q != '\0'; q++)
			lines += *q == '\n';
		RXR_TEST_ASSERT(strstr(logbuf, needle) != NULL,
			"message names field and value: want \"%s\", got \"%s\"",
			needle, logbuf);
		RXR_TEST_ASSERT(lines == 1, "one message, got %u: %s", lines,
			logbuf);
	}
	free(logbuf);
	logbuf = NULL;
	return 0;
}

static int
test_errors(void)
{
	struct rxr_pool_conf c;
	const char * const *names;

#define REFUSED(field_set, frames, want, needle) do { \
	c = conf_of(RXR_STRATEGY_BH, true); \
	field_set; \
	if (expect_refused(&c, frames, want, needle) != 0) \
		return -1; \
} while (0)
	REFUSED(c.strategy = (enum rxr_strategy)99, NR_FRAMES, EINVAL,
		"strategy 99 ");
	REFUSED((c.high = 8, c.batch = 16), NR_FRAMES, EINVAL,
		"high 8 is below batch 16");
	REFUSED(c.fake_nodes = 9, NR_FRAMES, EINVAL, "fake_nodes 9 ");
	REFUSED(c.zero_policy = (enum rxr_zero_policy)7, NR_FRAMES, EINVAL,
		"zero_policy 7 ");
	REFUSED(c.nr_poll_lcores = RTE_MAX_LCORE + 1, NR_FRAMES, EINVAL,
		"nr_poll_lcores ");
	REFUSED((c.nr_poll_lcores = 2, c.poll_lcores[1] = RTE_MAX_LCORE + 3),
		NR_FRAMES, EINVAL, "poll_lcores[1] ");
	/* A strategy's own settings, by the names it gives them. */
	RXR_TEST_ASSERT_EQ(rxr_strategy_settings(RXR_STRATEGY_RECYCLE, &names),
		3, "recycle: cache, refill, ring");
	RXR_TEST_ASSERT_EQ(rxr_strategy_settings(RXR_STRATEGY_BH, &names), 0,
		"bh: none");
	RXR_TEST_ASSERT_EQ(rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE,
		"nope"), -1, "unknown setting");
	REFUSED((c.strategy = RXR_STRATEGY_RECYCLE,
		c.settings[rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE,
			"cache")] = 100,
		c.settings[rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE,
			"refill")] = 200), NR_FRAMES, EINVAL,
		"recycle setting refill 200 is over cache 100");
	REFUSED((c.zero_policy = RXR_ZERO_POLICY_ALLOC, c.payload_offset = 5000),
		NR_FRAMES, EINVAL, "payload_offset 5000 ");
	REFUSED((c.zero_policy = RXR_ZERO_POLICY_FREE,
		c.zero_method = (enum rxr_zero_method)42), NR_FRAMES, EINVAL,
		"zero_method 42 ");
	REFUSED((void)0, 0, EINVAL, "max_frames is 0");
	/* An allocation failing in a strategy's lcore_init keeps its code. */
	REFUSED((c.strategy = RXR_STRATEGY_RECYCLE,
		c.settings[rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE,
			"ring")] = 1u << 30),
		NR_FRAMES, ENOMEM, NULL);
#undef REFUSED
	return 0;
}

int
main(int argc, char **argv)
{
	rxr_test_eal_init(argv[0], "0-1", 256, NULL);
	rxr_test_run("registry: every strategy complete, caps as documented",
		test_registry);
	rxr_test_run("layers: strategy, zeroing, timing, adoption; inline path",
		test_layers);
	rxr_test_run("one reason per error, codes unchanged", test_errors);
	return rxr_test_done();
}
