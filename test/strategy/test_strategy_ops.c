/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The strategy interface, white-box: every registered strategy fills its
 * required operations and says what it can do; the pool's entries are the
 * strategy's own unless the pool zeroes or slows refills down, memory
 * added leaves them, and the inline owner path is on exactly when nothing
 * wraps a strategy that asks for it; every rejected configuration field
 * gives one message naming field and value, and error codes come through
 * unchanged.
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
#include "test_pool_mem.h"
#include "rxr_pool_private.h"

#define NR_FRAMES 1024u

/* Index of strategy s's setting name, -1 when it has none. */
static int
setting_index(enum rxr_strategy s, const char *name)
{
	const struct rxr_strategy_setting *set;
	unsigned int n = rxr_strategy_settings(s, &set);

	for (unsigned int i = 0; i < n; i++)
		if (strcmp(set[i].name, name) == 0)
			return (int)i;
	return -1;
}

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
		for (unsigned int j = 0; j <= i; j++)
			RXR_TEST_ASSERT(names[i][0] != '\0' && (i == j ||
				strcmp(names[i], names[j]) != 0),
				"%s: counter %u \"%s\" empty or repeated",
				rxr_strategy_name(s), i, names[i]);
	n = rxr_strategy_settings(s, &set);
	RXR_TEST_ASSERT(set == NULL || set[n].name == NULL,
		"%s: settings fit the configuration", rxr_strategy_name(s));
	for (unsigned int i = 0; i < n; i++) {
		RXR_TEST_ASSERT(set[i].name[0] != '\0' &&
			strchr(set[i].name, '.') == NULL &&
			setting_index(s, set[i].name) == (int)i,
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
	int cache = setting_index(RXR_STRATEGY_RECYCLE, "cache");
	int refill = setting_index(RXR_STRATEGY_RECYCLE, "refill");
	int ring = setting_index(RXR_STRATEGY_RECYCLE, "ring");
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
	RXR_TEST_ASSERT_EQ(setting_index(RXR_STRATEGY_RECYCLE,
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
	int cache = setting_index(RXR_STRATEGY_RECYCLE, "cache");
	int refill = setting_index(RXR_STRATEGY_RECYCLE, "refill");
	int ring = setting_index(RXR_STRATEGY_RECYCLE, "ring");
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
	RXR_TEST_ASSERT(rxr_pool_get_conf(p)->settings[cache] == 16 &&
		rxr_pool_get_conf(p)->settings[refill] == 16 &&
		rxr_pool_get_conf(p)->settings[ring] == 64,
		"settings read back: %u %u %u", rxr_pool_get_conf(p)->settings[cache],
		rxr_pool_get_conf(p)->settings[refill],
		rxr_pool_get_conf(p)->settings[ring]);
	test_pool_destroy(p);
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
		RXR_TEST_ASSERT(st->alloc != NULL && st->free != NULL,
			"%s: alloc and free", st->name);
		RXR_TEST_ASSERT(strcmp(rxr_strategy_name(s), st->name) == 0,
			"%s: name", st->name);
		RXR_TEST_ASSERT(rxr_strategy_parse(st->name, true, &back) == 0 &&
			back == (enum rxr_strategy)s, "%s: parses back", st->name);
		RXR_TEST_ASSERT(((st->caps & RXR_STRATEGY_CAP_TEST_ONLY) != 0) ==
			(s >= RXR_STRATEGY_USER_MAX),
			"%s: test-only exactly when past RXR_STRATEGY_USER_MAX",
			st->name);
		RXR_TEST_ASSERT((st->init == NULL) == (st->fini == NULL),
			"%s: init and fini go together", st->name);
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
	RXR_TEST_ASSERT(!rxr_strategy_has(RXR_STRATEGY_MAX, 0), "no caps");
	RXR_TEST_ASSERT(strcmp(rxr_strategy_name(RXR_STRATEGY_MAX), "?") == 0,
		"name out of range");
	/* What the application and the report ask for. */
	RXR_TEST_ASSERT(rxr_strategy_has(RXR_STRATEGY_BH,
		RXR_STRATEGY_CAP_DEFERS_FREES | RXR_STRATEGY_CAP_OWNER_INLINE),
		"bh defers frees, inline owner");
	RXR_TEST_ASSERT(rxr_strategy_has(RXR_STRATEGY_RECYCLE,
		RXR_STRATEGY_CAP_DEFERS_FREES | RXR_STRATEGY_CAP_OWNER_INLINE),
		"recycle defers frees, inline owner (its cache)");
	for (uint32_t cap = 1; cap <= RXR_STRATEGY_CAP_TEST_ONLY; cap <<= 1)
		RXR_TEST_ASSERT(!rxr_strategy_has(RXR_STRATEGY_IRQSAVE, cap),
			"irqsave: none");
	for (uint32_t cap = 1; cap <= RXR_STRATEGY_CAP_TEST_ONLY; cap <<= 1)
		RXR_TEST_ASSERT(!rxr_strategy_has(RXR_STRATEGY_ZONE, cap),
			"zone: none");
	return 0;
}

static struct rxr_pool *
pool_with(const struct rxr_pool_conf *c)
{
	struct rxr_pool *p = rxr_pool_create(c, 4096, NR_FRAMES, 8);

	if (p == NULL)
		printf("# rxr_pool_create: %s\n", rte_strerror(rte_errno));
	else if (test_pool_fill(p, 4096, NR_FRAMES) != 0) {
		printf("# test_pool_fill failed\n");
		test_pool_destroy(p);
		p = NULL;
	}
	return p;
}

static int
test_entries(void)
{
	const struct rxrp_strategy *bh = rxrp_strategy_get(RXR_STRATEGY_BH);
	struct rxr_pool_conf c = conf_of(RXR_STRATEGY_BH, true);
	struct rxr_pool_ops before;
	struct rxr_pool *p;
	static void *objs[NR_FRAMES + 1];	/* room for the refused call */

	/* Nothing to wrap: the strategy itself, and bh's owner path inline. */
	p = pool_with(&c);
	RXR_TEST_ASSERT(p != NULL, "pool");
	RXR_TEST_ASSERT(p->ops.alloc == bh->alloc && p->ops.free == bh->free,
		"the strategy's functions");
	RXR_TEST_ASSERT(p->ops.owner != NULL, "inline owner path");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, objs, NR_FRAMES + 1), -ENOBUFS,
		"the pcp's code, unchanged");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, objs, 32), 0, "alloc");

	/* Memory added later leaves the entries as they were. */
	before = p->ops;
	RXR_TEST_ASSERT_EQ(rxr_pool_add_frames(p, objs[0], 0), 0, "no frames");
	RXR_TEST_ASSERT(memcmp(&p->ops, &before, sizeof(before)) == 0,
		"entries kept");
	rxr_pool_free_bulk(p, objs, 32);
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "conservation");
	test_pool_destroy(p);

	/* Zeroing or the testing slowdown: the wrapper, nothing inline;
	 * latency sampling alone keeps both the strategy and the path. */
	for (int k = 0; k < 3; k++) {
		c = conf_of(RXR_STRATEGY_BH, true);
		c.latency = true;
		c.zero_policy = k == 0 ? RXR_ZERO_POLICY_ALLOC :
			RXR_ZERO_POLICY_NONE;
		c.test_refill_delay = k == 1 ? 100 : 0;
		p = pool_with(&c);
		RXR_TEST_ASSERT(p != NULL, "pool");
		RXR_TEST_ASSERT((p->ops.alloc == bh->alloc) == (k == 2) &&
			(p->ops.free == bh->free) == (k == 2) &&
			(p->ops.owner != NULL) == (k == 2),
			"case %d: wrapped exactly with zeroing or a slowdown", k);
		test_pool_destroy(p);
	}

	/* Only a strategy that asks for it gets the inline path. */
	for (int s = 0; s < RXR_STRATEGY_MAX; s++)
		for (int bulk = 0; bulk < 2; bulk++) {
			c = conf_of(s, bulk);
			p = pool_with(&c);
			RXR_TEST_ASSERT(p != NULL, "pool");
			RXR_TEST_ASSERT((p->ops.owner != NULL) ==
				rxr_strategy_has(s, RXR_STRATEGY_CAP_OWNER_INLINE),
				"%s bulk %d: inline path", rxr_strategy_name(s), bulk);
			/* Bulk off: one frame per section, as the strategy
			 * splits every call. */
			RXR_TEST_ASSERT(p->ops.section_max == (bulk ? UINT_MAX : 1),
				"%s bulk %d: sections of up to %u frames",
				rxr_strategy_name(s), bulk, p->ops.section_max);
			RXR_TEST_ASSERT(p->ops.alloc == rxrp_strategy_get(s)->alloc,
				"%s bulk %d: the strategy's entries",
				rxr_strategy_name(s), bulk);
			RXR_TEST_ASSERT(p->ops.defers == rxr_strategy_has(s,
				RXR_STRATEGY_CAP_DEFERS_FREES),
				"%s bulk %d: poll end", rxr_strategy_name(s), bulk);
			test_pool_destroy(p);
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
		test_pool_destroy(p);
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
		c.settings[setting_index(RXR_STRATEGY_RECYCLE,
			"cache")] = 100,
		c.settings[setting_index(RXR_STRATEGY_RECYCLE,
			"refill")] = 200), NR_FRAMES, EINVAL,
		"recycle setting refill 200 is over cache 100");
	REFUSED((c.strategy = RXR_STRATEGY_RECYCLE,
		c.settings[setting_index(RXR_STRATEGY_RECYCLE,
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
	rxr_test_run("entries: the strategy's, the wrapper, memory added; inline "
		"path", test_entries);
	rxr_test_run("one reason per error, codes unchanged", test_errors);
	rxr_test_run("settings: parsed by name, in range, errors say what is "
		"valid", test_settings_parse);
	rxr_test_run("settings: checked together, defaults, pool sizing, read "
		"back", test_settings_fill);
	return rxr_test_done();
}
