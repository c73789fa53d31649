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
#include <stdarg.h>
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
 * callback to fill the counters; each setting's default in its range,
 * above 0 (0 asks for the default) and a one-line help.
 */
static int
names_check(enum rxr_strategy s)
{
	const struct rxr_strategy_setting *set;
	const char * const *names;
	unsigned int n;

	n = rxr_strategy_counters(s, &names);
	RXR_TEST_ASSERT(n == 0 || names[n] == NULL,
		"%s: counter names end within the maximum",
		rxr_strategy_name(s));
	for (unsigned int i = 0; i < n; i++)
		RXR_TEST_ASSERT(names[i][0] != '\0' &&
			rxr_strategy_counter_index(s, names[i]) == (int)i,
			"%s: counter %u \"%s\" empty or repeated",
			rxr_strategy_name(s), i, names[i]);
	RXR_TEST_ASSERT(rxrp_strategy_get(s)->nb_settings <=
		RXR_STRATEGY_SETTINGS_MAX, "%s: settings fit the configuration",
		rxr_strategy_name(s));
	n = rxr_strategy_settings(s, &set);
	for (unsigned int i = 0; i < n; i++) {
		RXR_TEST_ASSERT(set[i].name[0] != '\0' &&
			strchr(set[i].name, '.') == NULL &&
			rxr_strategy_setting_index(s, set[i].name) == (int)i,
			"%s: setting %u \"%s\" empty, dotted or repeated",
			rxr_strategy_name(s), i, set[i].name);
		RXR_TEST_ASSERT(set[i].min >= 1 && set[i].min <= set[i].def &&
			set[i].def <= set[i].max, "%s.%s: %u <= %u <= %u, above 0",
			rxr_strategy_name(s), set[i].name, set[i].min,
			set[i].def, set[i].max);
		RXR_TEST_ASSERT(set[i].help != NULL && set[i].help[0] != '\0' &&
			strpbrk(set[i].help, "\t\n") == NULL,
			"%s.%s: one-line help", rxr_strategy_name(s),
			set[i].name);
	}
	RXR_TEST_ASSERT(rxr_strategy_counters(s, &names) == 0 ||
		rxrp_strategy_get(s)->stats != NULL,
		"%s: counters need a stats callback", rxr_strategy_name(s));
	return 0;
}

/* rxr_strategy_setting_parse() refuses key=value with a message holding
 * each of the needles (NULL-terminated). */
static int
parse_refused(const char *key, const char *value, ...)
{
	enum rxr_strategy s;
	unsigned int idx;
	uint32_t v;
	char why[512];
	const char *needle;
	va_list ap;

	RXR_TEST_ASSERT(rxr_strategy_setting_parse(key, value, &s, &idx, &v,
		why, sizeof(why)) == -EINVAL, "%s=%s refused", key, value);
	va_start(ap, value);
	while ((needle = va_arg(ap, const char *)) != NULL)
		if (strstr(why, needle) == NULL) {
			va_end(ap);
			RXR_TEST_ASSERT(false, "%s=%s: want \"%s\" in \"%s\"",
				key, value, needle, why);
		}
	va_end(ap);
	return 0;
}

/*
 * Settings as users give them: parsed by STRATEGY.NAME against the
 * registry, each in its range, with messages that name the input and
 * list what is valid.
 */
static int
test_settings_parse(void)
{
	const struct rxr_strategy_setting *set;
	int cache = rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE, "cache");
	int refill = rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE, "refill");
	int ring = rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE, "ring");
	enum rxr_strategy s;
	unsigned int idx;
	uint32_t v;
	char why[512];

	RXR_TEST_ASSERT_EQ(rxr_strategy_settings(RXR_STRATEGY_RECYCLE, &set),
		3, "recycle: cache, refill, ring");
	RXR_TEST_ASSERT(cache >= 0 && refill >= 0 && ring >= 0,
		"recycle's settings found by name");
	RXR_TEST_ASSERT_EQ(rxr_strategy_settings(RXR_STRATEGY_BH, &set), 0,
		"bh: none");
	RXR_TEST_ASSERT(set == NULL, "bh: no table");
	RXR_TEST_ASSERT_EQ(rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE,
		"nope"), -1, "unknown setting");

	RXR_TEST_ASSERT(rxr_strategy_setting_parse("recycle.ring", "2048", &s,
		&idx, &v, why, sizeof(why)) == 0, "recycle.ring=2048: %s", why);
	RXR_TEST_ASSERT(s == RXR_STRATEGY_RECYCLE && idx == (unsigned int)ring &&
		v == 2048, "recycle.ring=2048 parsed");
	RXR_TEST_ASSERT(rxr_strategy_setting_parse("RECYCLE.cache", "010", &s,
		&idx, &v, why, sizeof(why)) == 0 && v == 10,
		"strategy names as --strategy takes them, decimal 010: %s", why);
	if (parse_refused("foo.ring", "1", "unknown strategy 'foo'", "bh",
			"recycle.ring", NULL) != 0 ||
			parse_refused("none.x", "1", "unknown strategy 'none'",
				NULL) != 0 ||
			parse_refused("recycle", "1", "'recycle' is not "
				"STRATEGY.SETTING", "recycle.refill", NULL) != 0 ||
			parse_refused("recycle.rnig", "1", "no setting 'rnig'",
				"cache, refill, ring", NULL) != 0 ||
			parse_refused("bh.ring", "1", "bh has no settings",
				NULL) != 0 ||
			parse_refused("recycle.ring", "abc", "recycle.ring=abc",
				"decimal", "1..32768", NULL) != 0 ||
			parse_refused("recycle.ring", "-5", "1..32768", NULL) != 0 ||
			parse_refused("recycle.ring", "0", "1..32768", NULL) != 0 ||
			parse_refused("recycle.ring", "32769", "1..32768",
				NULL) != 0 ||
			parse_refused("recycle.ring", "99999999999999999999",
				"1..32768", NULL) != 0 ||
			parse_refused("recycle.ring", NULL, "'recycle.ring' has no value",
				NULL) != 0)
		return -1;

	return 0;
}

/*
 * Settings checked together with the defaults filled in, the words users
 * see, the frames they let an lcore hold, and what a pool made with them
 * reads back.
 */
static int
test_settings_fill(void)
{
	const struct rxr_strategy_setting *set;
	uint32_t st[RXR_STRATEGY_SETTINGS_MAX] = { 0 };
	int cache = rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE, "cache");
	int refill = rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE, "refill");
	int ring = rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE, "ring");
	struct rxr_pool_conf c = conf_of(RXR_STRATEGY_RECYCLE, true);
	struct rxr_pool *p;
	char why[512];

	/* Defaults filled; the default refill follows a smaller cache. */
	RXR_TEST_ASSERT(rxr_strategy_settings_fill(RXR_STRATEGY_RECYCLE, st,
		why, sizeof(why)) == 0, "defaults: %s", why);
	rxr_strategy_settings(RXR_STRATEGY_RECYCLE, &set);
	RXR_TEST_ASSERT(st[cache] == set[cache].def && st[refill] ==
		set[refill].def && st[ring] == set[ring].def, "defaults");
	memset(st, 0, sizeof(st));
	st[cache] = 16;
	RXR_TEST_ASSERT(rxr_strategy_settings_fill(RXR_STRATEGY_RECYCLE, st,
		why, sizeof(why)) == 0 && st[refill] == 16,
		"refill follows cache 16: %u", st[refill]);
	memset(st, 0, sizeof(st));
	st[refill] = set[cache].def + 1;
	RXR_TEST_ASSERT(rxr_strategy_settings_fill(RXR_STRATEGY_RECYCLE, st,
		why, sizeof(why)) == -EINVAL && strstr(why, "(the default)"),
		"refill over the default cache: %s", why);
	memset(st, 0, sizeof(st));
	st[ring] = 40000;
	RXR_TEST_ASSERT(rxr_strategy_settings_fill(RXR_STRATEGY_RECYCLE, st,
		why, sizeof(why)) == -EINVAL &&
		strstr(why, "ring 40000 is out of 1..32768") != NULL,
		"out of range: %s", why);
	memset(st, 0, sizeof(st));
	st[0] = 3;
	RXR_TEST_ASSERT(rxr_strategy_settings_fill(RXR_STRATEGY_BH, st,
		why, sizeof(why)) == -EINVAL, "bh has no setting 0");

	rxr_strategy_setting_keys(why, sizeof(why), " ");
	RXR_TEST_ASSERT(strcmp(why, "recycle.cache recycle.refill "
		"recycle.ring") == 0, "keys: %s", why);
	memset(st, 0, sizeof(st));
	RXR_TEST_ASSERT_EQ(rxr_strategy_lcore_frames(RXR_STRATEGY_RECYCLE, st),
		set[cache].def + set[ring].def, "recycle holds cache and ring");
	st[cache] = 16;
	st[ring] = 64;
	RXR_TEST_ASSERT_EQ(rxr_strategy_lcore_frames(RXR_STRATEGY_RECYCLE, st),
		80, "given cache and ring");
	RXR_TEST_ASSERT_EQ(rxr_strategy_lcore_frames(RXR_STRATEGY_BH, st), 0,
		"bh holds nothing of its own");

	/* A pool takes them, defaults filled in. */
	c.settings[cache] = 16;
	c.settings[ring] = 64;
	p = rxr_pool_create(&c, 4096, NR_FRAMES, 8);
	RXR_TEST_ASSERT(p != NULL, "recycle pool with cache 16, ring 64");
	RXR_TEST_ASSERT(rxr_pool_conf(p)->settings[cache] == 16 &&
		rxr_pool_conf(p)->settings[refill] == 16 &&
		rxr_pool_conf(p)->settings[ring] == 64,
		"settings read back: %u %u %u", rxr_pool_conf(p)->settings[cache],
		rxr_pool_conf(p)->settings[refill],
		rxr_pool_conf(p)->settings[ring]);
	rxr_pool_destroy(p);
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
	struct rxrp_fns before_fns;
	struct rxr_pool *p;
	static void *objs[NR_FRAMES + 1];	/* room for the refused call */

	/* Nothing to wrap: the strategy itself, and bh's owner path inline. */
	p = pool_with(&c);
	RXR_TEST_ASSERT(p != NULL, "pool");
	RXR_TEST_ASSERT_EQ(p->top, RXRP_LAYER_STRATEGY + 1, "one layer");
	RXR_TEST_ASSERT(p->fns.alloc == bh->alloc[1] && p->fns.free == bh->free[1],
		"the strategy's bulk functions");
	RXR_TEST_ASSERT(p->ops.owner != NULL, "inline owner path");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, objs, NR_FRAMES + 1), -ENOBUFS,
		"the pcp's code, unchanged");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, objs, 32), 0, "alloc");

	/* Adoption goes on top and comes off leaving the pool as it was. */
	before = p->ops;
	before_fns = p->fns;
	RXR_TEST_ASSERT_EQ(rxr_pool_adopt_begin(p, 64), 0, "adopt begin");
	RXR_TEST_ASSERT_EQ(p->top, RXRP_LAYER_ADOPT + 1, "adoption outermost");
	RXR_TEST_ASSERT(p->ops.owner == NULL, "no inline path while adopting");
	RXR_TEST_ASSERT(p->fns.free != before_fns.free, "frees gathered");
	RXR_TEST_ASSERT(p->fns.alloc == before_fns.alloc, "allocs untouched");
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
	RXR_TEST_ASSERT(p->fns.free == bh->free[1] &&
		p->fns.alloc == rxrp_below(p, RXRP_LAYER_TIMING)->alloc,
		"no window open: the timing layer out of the calls");
	rxr_pool_sample(p, true);
	RXR_TEST_ASSERT(p->fns.free != bh->free[1] &&
		rxrp_below(p, RXRP_LAYER_TIMING)->free == bh->free[1],
		"timing wraps the free (sampled frees), zeroing alloc does not");
	RXR_TEST_ASSERT(p->fns.alloc != rxrp_below(p, RXRP_LAYER_TIMING)->alloc,
		"a window puts the timing layer in");
	rxr_pool_sample(p, false);
	RXR_TEST_ASSERT(p->fns.free == bh->free[1], "and takes it out");
	RXR_TEST_ASSERT(p->ops.owner == NULL, "no inline path under wrappers");
	RXR_TEST_ASSERT(p->ops.alloc != bh->alloc[1] && p->ops.alloc != NULL,
		"the entry runs the layers");
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
			/* Nothing wraps it: the strategy's own entry when it
			 * has one; a poll end only where frees are deferred. */
			RXR_TEST_ASSERT(rxrp_strategy_get(s)->alloc_entry[bulk] ==
				NULL || (p->ops.alloc ==
				rxrp_strategy_get(s)->alloc_entry[bulk] &&
				p->ops.free ==
				rxrp_strategy_get(s)->free_entry[bulk]),
				"%s bulk %d: the strategy's entries",
				rxr_strategy_name(s), bulk);
			RXR_TEST_ASSERT(p->ops.defers == rxr_strategy_has(s,
				RXR_STRATEGY_CAP_DEFERS_FREES),
				"%s bulk %d: poll end", rxr_strategy_name(s), bulk);
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
	/* A strategy's own settings: one message naming setting and value. */
	REFUSED((c.strategy = RXR_STRATEGY_RECYCLE,
		c.settings[rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE,
			"cache")] = 100,
		c.settings[rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE,
			"refill")] = 200), NR_FRAMES, EINVAL,
		"recycle setting refill 200 is over cache 100");
	REFUSED((c.strategy = RXR_STRATEGY_RECYCLE,
		c.settings[rxr_strategy_setting_index(RXR_STRATEGY_RECYCLE,
			"ring")] = 1u << 30), NR_FRAMES, EINVAL,
		"recycle setting ring 1073741824 is out of 1..32768");
	REFUSED(c.settings[0] = 7, NR_FRAMES, EINVAL,
		"bh setting #0 = 7: bh has only 0 settings");
	REFUSED((c.zero_policy = RXR_ZERO_POLICY_ALLOC, c.payload_offset = 5000),
		NR_FRAMES, EINVAL, "payload_offset 5000 ");
	REFUSED((c.zero_policy = RXR_ZERO_POLICY_FREE,
		c.zero_method = (enum rxr_zero_method)42), NR_FRAMES, EINVAL,
		"zero_method 42 ");
	REFUSED((void)0, 0, EINVAL, "max_frames is 0");
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
	rxr_test_run("settings: parsed by name, in range, errors say what is "
		"valid", test_settings_parse);
	rxr_test_run("settings: checked together, defaults, pool sizing, read "
		"back", test_settings_fill);
	return rxr_test_done();
}
