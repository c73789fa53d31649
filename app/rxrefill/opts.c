/* SPDX-License-Identifier: BSD-3-Clause */

/* The application's options: after EAL's, behind "--". */

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rxr_opt.h"
#include "rxr_path.h"
#include "rxrefill.h"
#include "rxr_log.h"

/* net_pcap's RTE_PMD_PCAP_MAX_QUEUES: one RX queue per replayed file. */
#define PCAP_MAX_QUEUES 16

/*
 * The state of one parse: the options, and the strategies, bulk modes and
 * zeroings asked for until the configurations are built from them.
 */
struct opts_ctx {
	struct options o;
	unsigned int want[RXR_STRATEGY_USER_MAX];
	bool implied[RXR_STRATEGY_USER_MAX];
	unsigned int bulk;	/* bulk_names[] */
	/* The zeroings asked for, as want[]: a place from 1, or 0. */
	unsigned int zero_policy[RXR_ZERO_NR_POLICIES];
	unsigned int zero_method[RXR_ZERO_NR_METHODS];
};

/* Typed options: a field of struct options, or of the parse's state. */
#define OPT_FLAG(m, v) RXR_OPT_FLAG_OF(struct opts_ctx, o.m, v)
#define OPT_UINT(m, lo, hi) RXR_OPT_UINT_OF(struct opts_ctx, o.m, lo, hi)
#define OPT_SECONDS(m, lo, hi) \
	RXR_OPT_NUMBER_OF(struct opts_ctx, o.m, lo, hi, "seconds")
#define OPT_ENUM(m, list) RXR_OPT_ENUM_OF(struct opts_ctx, m, list)
#define OPT_PATH(m) RXR_OPT_PATH_OF(struct opts_ctx, o.m)

static const char * const stream_counting_names[] = {
	[STREAM_COUNTING_AUTO] = "auto",
	[STREAM_COUNTING_DEFERRED] = "deferred",
	[STREAM_COUNTING_INLINE] = "inline", NULL,
};

static const char * const disturbed_names[] = { "count", "exclude", NULL };

static const char * const table_names[] = {
	[TABLE_NONE] = "none", [TABLE_BRIEF] = "brief", [TABLE_FULL] = "full",
	NULL,
};

static const char * const progress_names[] = {
	[PROGRESS_RUNS] = "runs", [PROGRESS_ROUNDS] = "rounds", NULL,
};

static const char * const consumer_names[] = {
	[CONSUMER_NONE] = "none", [CONSUMER_INLINE] = "inline",
	[CONSUMER_SAME_CPU] = "same-cpu", [CONSUMER_OTHER_CPU] = "other-cpu",
	[CONSUMER_OTHER_POLL] = "other-poll", NULL,
};

/* --bulk: the index of each name says which modes run. */
static const char * const bulk_names[] = { "on", "off", "both", NULL };

const char *
consumer_mode_name(enum consumer_mode m)
{
	return consumer_names[m];
}

/*
 * --test-refill-delay CYCLES[@CONFIG]: CONFIG is a strategy (bulk on and
 * off) or one configuration, "bh-bulk" or "bh-nobulk"; without it every
 * configuration is slowed.
 */
static int
set_refill_delay(void *c, const char *arg, char *err, size_t errlen)
{
	struct options *o = &((struct opts_ctx *)c)->o;
	const char *at = strchr(arg, '@');
	size_t len = at != NULL ? (size_t)(at - arg) : strlen(arg);
	char num[32];
	uint64_t v;

	if (len >= sizeof(num)) {
		snprintf(err, errlen, "--test-refill-delay: '%s' is not a "
			"decimal whole number in 0..%u", arg, 1u << 30);
		return -1;
	}
	snprintf(num, sizeof(num), "%.*s", (int)len, arg);
	if (rxr_opt_uint("test-refill-delay", num, 0, 1u << 30, &v, err,
			errlen) != 0)
		return -1;
	o->test_refill_delay = v;
	o->test_refill_delay_config = at != NULL ? at + 1 : NULL;
	return 0;
}

/* --test-zero-delay CYCLES@METHOD: lib/zero plants it. */
static int
set_zero_delay(void *c, const char *arg, char *err, size_t errlen)
{
	struct options *o = &((struct opts_ctx *)c)->o;
	const char *at = strchr(arg, '@');
	char num[32], why[128];
	uint64_t v;

	if (at == NULL || (size_t)(at - arg) >= sizeof(num)) {
		snprintf(err, errlen, "--test-zero-delay: '%s' is not "
			"CYCLES@METHOD", arg);
		return -1;
	}
	snprintf(num, sizeof(num), "%.*s", (int)(at - arg), arg);
	if (rxr_opt_uint("test-zero-delay", num, 0, 1u << 30, &v, err,
			errlen) != 0)
		return -1;
	if (rxr_zero_method_parse(at + 1, &o->test_zero_delay_method, why,
			sizeof(why)) != 0 || rxr_zero_test_delay(
			o->test_zero_delay_method, v) != 0) {
		snprintf(err, errlen, "--test-zero-delay %s: not a method "
			"that clears (narrow, contig or nt)", arg);
		return -1;
	}
	o->test_zero_delay = v;
	return 0;
}

/* Whether --test-refill-delay slows configuration rc. */
bool
opts_refill_delayed(const struct options *o, const struct run_config *rc)
{
	const char *c = o->test_refill_delay_config;
	const char *name = rxr_strategy_name(rc->strategy);
	size_t n = strlen(name);

	if (c == NULL)
		return true;
	return strncmp(c, name, n) == 0 && (c[n] == '\0' ||
		strcmp(c + n, rc->bulk ? "-bulk" : "-nobulk") == 0);
}

/*
 * want[s]: 0, or the strategy's place in the list from 1 (column order);
 * implied[s]: added by a trailing 'all' ("bh,all": bh first, then every
 * other in the registry's order), left out with a note where it cannot run.
 */
static int
set_strategy(void *c, const char *s, char *err, size_t errlen)
{
	struct opts_ctx *x = c;
	char buf[256], names[128], *tok, *save = NULL;
	unsigned int n = 0;
	size_t len = strlen(s);

	memset(x->want, 0, sizeof(x->want));
	memset(x->implied, 0, sizeof(x->implied));
	rxr_strategy_user_names(names, sizeof(names));
	/* strtok_r would pass over "", "," and "bh,,zone" without a word. */
	if (len == 0 || s[0] == ',' || s[len - 1] == ',' ||
			strstr(s, ",,") != NULL) {
		snprintf(err, errlen, "--strategy '%s': an empty strategy name; "
			"give %s comma separated, or all", s, names);
		return -1;
	}
	if (len >= sizeof(buf)) {
		snprintf(err, errlen, "--strategy: list longer than %zu bytes",
			sizeof(buf) - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		enum rxr_strategy st;

		if (strcmp(tok, "all") == 0) {
			if (strtok_r(NULL, ",", &save) != NULL) {
				snprintf(err, errlen, "--strategy '%s': 'all' "
					"comes last (every strategy not named "
					"before it)", s);
				return -1;
			}
			for (int i = 0; i < RXR_STRATEGY_USER_MAX; i++)
				if (x->want[i] == 0) {
					x->want[i] = ++n;
					x->implied[i] = true;
				}
			break;
		}
		if (rxr_strategy_parse(tok, false, &st) != 0) {
			snprintf(err, errlen, "--strategy: unknown strategy '%s' "
				"(%s or all)", tok, names);
			return -1;
		}
		if (x->want[st] == 0)
			x->want[st] = ++n;
	}
	return 0;
}

/*
 * Strategy s's settings v, every one or only those given (non-zero),
 * appended at off: "recycle.cache=32,recycle.ring=64". @return the new
 * length, as snprintf.
 */
static size_t
settings_str(enum rxr_strategy s, const uint32_t *v, bool all, char *buf,
		size_t len, size_t off)
{
	const struct rxr_strategy_setting *set;
	unsigned int n = rxr_strategy_settings(s, &set);

	for (unsigned int i = 0; i < n; i++)
		if ((all || v[i] != 0) && off < len)
			off += snprintf(buf + off, len - off, "%s%s.%s=%u",
				off != 0 ? "," : "", rxr_strategy_name(s),
				set[i].name, v[i]);
	return off;
}

/*
 * --strategy-setting STRATEGY.NAME=VALUE[,...]: a strategy's own settings,
 * by the names the strategy declares (the registry checks them); "help"
 * lists them all. Given again, a setting takes the later value.
 */
static int
set_strategy_setting(void *c, const char *arg, char *err, size_t errlen)
{
	struct options *o = &((struct opts_ctx *)c)->o;
	char buf[256], why[512], *tok, *save = NULL;
	size_t len = strlen(arg);

	if (strcmp(arg, "help") == 0) {
		rxr_strategy_settings_print(stdout);
		o->help = true;
		return RXR_OPT_STOP;
	}
	if (len == 0 || len >= sizeof(buf) || arg[0] == ',' ||
			arg[len - 1] == ',' || strstr(arg, ",,") != NULL) {
		rxr_strategy_setting_keys(why, sizeof(why), ", ");
		snprintf(err, errlen, "--strategy-setting '%.300s': give "
			"STRATEGY.SETTING=VALUE, comma separated, at most %zu "
			"bytes (the settings: %s; 'help' lists them)", arg,
			sizeof(buf) - 1, why);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		enum rxr_strategy s;
		unsigned int i;
		uint32_t v;

		if (eq != NULL)
			*eq = '\0';
		if (rxr_strategy_setting_parse(tok, eq != NULL ? eq + 1 : NULL,
				&s, &i, &v, why, sizeof(why)) != 0) {
			snprintf(err, errlen, "--strategy-setting %s: %s", arg,
				why);
			return -1;
		}
		o->settings[s][i] = v;
	}
	return 0;
}

size_t
opts_settings_str(const struct options *o, char *buf, size_t len)
{
	bool done[RXR_STRATEGY_USER_MAX] = { false };
	size_t off = 0;

	if (len != 0)
		buf[0] = '\0';
	for (unsigned int k = 0; k < o->nb_configs; k++) {
		enum rxr_strategy s = o->configs[k].strategy;
		uint32_t v[RXR_STRATEGY_SETTINGS_MAX];
		char why[256];

		if (done[s])
			continue;
		done[s] = true;
		memcpy(v, o->settings[s], sizeof(v));
		/* Checked by opts_settings_check(): cannot fail here. */
		if (rxr_strategy_settings_fill(s, v, why, sizeof(why)) == 0)
			off = settings_str(s, v, true, buf, len, off);
	}
	return off;
}

static int
set_reps(void *c, const char *arg, char *err, size_t errlen)
{
	struct options *o = &((struct opts_ctx *)c)->o;
	uint64_t v;

	if (strncmp(arg, "auto", 4) == 0 && (arg[4] == '\0' || arg[4] == ':')) {
		v = REPS_AUTO_MAX;
		if (arg[4] == ':' && rxr_opt_uint("reps auto:MAX", arg + 5,
				REPS_AUTO_MIN, 1000, &v, err, errlen) != 0)
			return -1;
		o->reps_auto = true;
		o->reps = v;
		return 0;
	}
	if (rxr_opt_uint("reps", arg, 1, 1000, &v, err, errlen) != 0)
		return -1;
	o->reps_auto = false;
	o->reps = v;
	return 0;
}

static int
set_frame_size(void *c, const char *arg, char *err, size_t errlen)
{
	char why[256], range[64];
	uint64_t v;
	int ret;

	/* The limits are the driver's: say them, not a parser's 1..2^20. */
	snprintf(range, sizeof(range), "frame sizes are multiples of %u in "
		"%u..%u", RTE_CACHE_LINE_SIZE, rxr_mempool_frame_size_min(0),
		RXR_MEMPOOL_FRAME_SIZE_MAX);
	ret = rxr_parse_decimal(arg, 0, UINT32_MAX, &v);
	if (ret == -ERANGE) {
		snprintf(err, errlen, "--frame-size %s is above %u; %s", arg,
			RXR_MEMPOOL_FRAME_SIZE_MAX, range);
		return -1;
	}
	if (ret != 0) {
		snprintf(err, errlen, "--frame-size: '%s' is not a decimal "
			"whole number; %s", arg, range);
		return -1;
	}
	if (rxr_pktmbuf_frame_size_check(v, 0, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "--frame-size %s", why);
		return -1;
	}
	((struct opts_ctx *)c)->o.frame_size = v;
	return 0;
}

static int
set_stall(void *c, const char *arg, char *err, size_t errlen)
{
	struct options *o = &((struct opts_ctx *)c)->o;
	char buf[64], *colon;
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", arg);
	colon = strchr(buf, ':');
	if (colon != NULL) {
		*colon = '\0';
		if (rxr_opt_number("stall-consumer", colon + 1, 0.001, 86400,
				"seconds", &o->stall_s, err, errlen) != 0)
			return -1;
	}
	if (rxr_opt_uint("stall-consumer", buf, 0, MAX_CONSUMERS - 1, &v, err,
			errlen) != 0)
		return -1;
	o->stall_consumer = v;
	return 0;
}

static int
set_exhaust(void *c, const char *arg, char *err, size_t errlen)
{
	struct options *o = &((struct opts_ctx *)c)->o;
	char buf[64], *colon;

	snprintf(buf, sizeof(buf), "%s", arg);
	colon = strchr(buf, ':');
	if (colon == NULL) {
		snprintf(err, errlen, "--exhaust %s: give AT:SECONDS", arg);
		return -1;
	}
	*colon = '\0';
	if (rxr_opt_number("exhaust", buf, 0, 86400, "seconds",
			&o->exhaust_at_s, err, errlen) != 0 ||
			rxr_opt_number("exhaust", colon + 1, 0.001, 86400,
			"seconds", &o->exhaust_for_s, err, errlen) != 0)
		return -1;
	return 0;
}

/*
 * The file names are kept in place: arg is a word of the arguments
 * (struct opts_args), writable and alive as long as the options.
 */
static int
set_replay(void *c, const char *arg, char *err, size_t errlen)
{
	struct options *o = &((struct opts_ctx *)c)->o;
	char *s = (char *)(uintptr_t)arg, *tok, *save = NULL;
	size_t len = strlen(s);

	if (len == 0 || s[0] == ',' || s[len - 1] == ',' ||
			strstr(s, ",,") != NULL) {
		snprintf(err, errlen, "--replay '%s': an empty file name", s);
		return -1;
	}
	/* Given again (a profile's, then the command line's): the last wins. */
	o->nb_replay = 0;
	for (tok = strtok_r(s, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		if (o->nb_replay == PCAP_MAX_QUEUES) {
			snprintf(err, errlen, "--replay: more than %d files; "
				"net_pcap has one RX queue per file and at most "
				"%d queues per port", PCAP_MAX_QUEUES,
				PCAP_MAX_QUEUES);
			return -1;
		}
		/* A FIFO or a device would block net_pcap, or be read once. */
		if (rxr_path_check_input("--replay", tok, err, errlen) != 0)
			return -1;
		/* net_pcap's arguments are KEY=VALUE pairs: a second '='
		 * makes the device refuse them, saying only EPERM. */
		if (strchr(tok, '=') != NULL) {
			snprintf(err, errlen, "--replay %s: a file name with '=' "
				"cannot be passed to net_pcap (its arguments are "
				"rx_pcap=FILE); rename it or give a link to it",
				tok);
			return -1;
		}
		o->replay[o->nb_replay++] = tok;
	}
	return 0;
}

/*
 * --zero-policy and --zero-method: lists, like --strategy; each value is
 * parsed by lib/zero, which names what is valid.
 */
#define ZERO_SETTER(fn, opt, field, type, parse) \
static int \
fn(void *c, const char *arg, char *err, size_t errlen) \
{ \
	struct opts_ctx *x = c; \
	char buf[128], why[128], *word, *rest = buf; \
	unsigned int n = 0; \
	type v; \
\
	memset(x->field, 0, sizeof(x->field)); \
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf)) { \
		snprintf(err, errlen, "--" opt ": list longer than %zu " \
			"bytes", sizeof(buf) - 1); \
		return -1; \
	} \
	while ((word = strsep(&rest, ",")) != NULL) { \
		if (parse(word, &v, why, sizeof(why)) != 0) { \
			snprintf(err, errlen, "--" opt " '%s': %s", arg, why); \
			return -1; \
		} \
		if (x->field[v] == 0) \
			x->field[v] = ++n; \
	} \
	x->o.field = arg; \
	return 0; \
}

ZERO_SETTER(set_zero_policy, "zero-policy", zero_policy, enum rxr_zero_policy,
	rxr_zero_policy_parse)
ZERO_SETTER(set_zero_method, "zero-method", zero_method, enum rxr_zero_method,
	rxr_zero_method_parse)

/* --stream-rows and --detail need the full table. */
static int
set_full_table(void *c, const char *arg, char *err, size_t errlen)
{
	struct options *o = &((struct opts_ctx *)c)->o;

	if (o->table == TABLE_BRIEF)
		o->table = TABLE_FULL;
	return 0;
}

/* After a flag that ends the parse: --version. */
static int
opt_stop(void *c, const char *arg, char *err, size_t errlen)
{
	return RXR_OPT_STOP;
}

/* --help: the usage, after the table it prints. */
static int set_help(void *c, const char *arg, char *err, size_t errlen);

/* opts_parse() takes --profile out of the command line before parsing. */
static int
set_profile(void *c, const char *arg, char *err, size_t errlen)
{
	snprintf(err, errlen, "--profile may not be nested in a profile");
	return -1;
}

/* Texts made at run time: from the registry, or of defaults that are
 * expressions. */
static char strategy_help[320], strategy_complete[128], high_help[64],
	batch_def[16], frame_size_def[16], policy_complete[64],
	method_complete[64], setting_help[512], setting_complete[256];

#define S_STRATEGIES "Strategies"
#define S_RUNS "Runs"
#define S_PORTS "Ports and memory"
#define S_ZEROING "Zeroing"
#define S_CONSUMERS "Consumers"
#define S_OUTPUT "Output"

static const struct rxr_opt opt_list[] = {
	{ "strategy", 0, "LIST", "all", strategy_complete, S_STRATEGIES,
		strategy_help, set_strategy },
	{ "bulk", 0, "on|off|both", "both", NULL, S_STRATEGIES,
		"bulk alloc/free (one critical section per call) or one frame "
		"at a time", OPT_ENUM(bulk, bulk_names) },
	{ "high", 0, "N", NULL, NULL, S_STRATEGIES, high_help,
		OPT_UINT(high, 1, 1u << 20) },
	{ "batch", 0, "N", batch_def, NULL, S_STRATEGIES, "pcp batch",
		OPT_UINT(batch, 1, 1u << 20) },
	{ "strategy-setting", 0, "STRATEGY.NAME=N", NULL, setting_complete,
		S_STRATEGIES, setting_help, set_strategy_setting },
	{ "reps", 0, "N|auto[:MAX]", "3", NULL, S_STRATEGIES,
		"repetitions; strategies interleave A B C A B C (one round "
		"each) and the report gives n, mean, stdev, median, min, max, "
		"a 95% interval and, against the first, the ratio over paired "
		"rounds with its interval and p-value (fewer than 6 rounds "
		"can never be significant: a warning says so). auto: rounds until "
		"every Gbit/s ratio to the first is decided (its 95% paired "
		"interval excludes 1 or is within +-20%), at least 6 and at "
		"most MAX (" RTE_STR(REPS_AUTO_MAX) " without :MAX); says what it "
		"reached when it stops", set_reps },
	{ "warmup", 0, "SEC", "0.5", NULL, S_RUNS,
		"unmeasured time before each run; none with --loops",
		OPT_SECONDS(warmup_s, 0, 3600) },
	{ "duration", 0, "SEC", "2", NULL, S_RUNS,
		"measured time of each run",
		OPT_SECONDS(duration_s, 0.01, 86400) },
	{ "loops", 0, "N", NULL, NULL, S_RUNS,
		"finite replay: each queue's capture exactly N times, until "
		"every packet is received or dropped with a cause (with "
		"--replay only; replaces --duration)",
		OPT_UINT(loops, 1, 1000000) },
	{ "burst", 0, "N", "32", NULL, S_RUNS,
		"rx_burst size, 1.." RTE_STR(MAX_BURST) "; numbers are "
		"decimal: 010 is ten", OPT_UINT(burst, 1, MAX_BURST) },
	{ "stats-period", 0, "SEC", "1", NULL, S_RUNS,
		"progress line period, 0 for none; with --main-polls no line "
		"is printed while measuring",
		OPT_SECONDS(stats_period_s, 0, 3600) },
	{ "disturbed", 0, "count|exclude", "count", NULL, S_RUNS,
		"whether repetitions marked disturbed count in the figures "
		"(the run says how many were). Disturbed: measured more than "
		"5% longer than asked (stopped or starved), a poll CPU's steal "
		"time above 5%, or a poll lcore with a CPU of its own switched "
		"out more than 100 times a second or waiting for its CPU more "
		"than 5% of the time",
		OPT_ENUM(o.disturbed_exclude, disturbed_names) },
	{ "progress", 0, "WHAT", "runs", NULL, S_RUNS,
		"runs: a line when each run starts and one with its result; "
		"rounds: one line per round of every configuration, disturbed "
		"runs counted in it. Runs cut short or too short to trust get "
		"a line either way",
		OPT_ENUM(o.progress, progress_names) },
	{ "main-polls", 0, NULL, NULL, NULL, S_RUNS,
		"the main lcore polls too, as in l2fwd (a 2-CPU machine runs "
		"two poll lcores with -l 0-1); it also ends the run, checking "
		"the clock from its poll loop", OPT_FLAG(main_polls, true) },
	{ "replay", 0, "FILES", NULL, "files:pcap,pcapng", S_PORTS,
		"replay captures on net_pcap, one file per RX queue, comma "
		"separated, at most " RTE_STR(PCAP_MAX_QUEUES) " (net_pcap's "
		"queues per port); regular files only; pcap or pcapng, "
		"Ethernet or a link type tcpdump writes on Linux (see "
		"rxrefill-gen)",
		set_replay },
	{ "queues", 0, "N", NULL, NULL, S_PORTS,
		"RX queues per port (default: one per poll lcore; the number "
		"of files with --replay or a net_pcap device's rx_pcap); RSS "
		"with mlx5's default Toeplitz key when N > 1",
		OPT_UINT(queues, 1, MAX_QUEUES) },
	{ "rxd", 0, "N", "1024", NULL, S_PORTS, "RX descriptors per queue",
		OPT_UINT(rxd, 16, 65536) },
	{ "frame-size", 0, "BYTES", frame_size_def, NULL, S_PORTS,
		"frame stride: mbuf, headroom and data room, a multiple of 64 "
		"from 384 to 65536", set_frame_size },
	{ "frames", 0, "N", NULL, NULL, S_PORTS,
		"frames per port's pool (default: sized from queues, "
		"descriptors, caches and consumers)",
		OPT_UINT(frames, 64, 1u << 26) },
	{ "fake-nodes", 0, "N", "1", NULL, S_PORTS,
		"split each pool into N fake NUMA nodes, testing the "
		"remote-node paths on a one-node machine",
		OPT_UINT(fake_nodes, 1, RXR_POOL_MAX_NODES) },
	{ "zero-policy", 0, "LIST", "none", policy_complete, S_ZEROING,
		"none; alloc: clear before handing out (__GFP_ZERO); free: "
		"clear when freed (init_on_free); background: a thread keeps "
		"pre-zeroed frames per poll lcore; several: each a "
		"configuration of every strategy, as --bulk both",
		set_zero_policy },
	{ "zero-method", 0, "LIST", "auto", method_complete, S_ZEROING,
		"auto, narrow, contig, nt, each a configuration of every "
		"policy but none; pool memory is cleared with it before "
		"frames are set up", set_zero_method },
	{ "consumer", 0, "MODE", "inline", NULL, S_CONSUMERS,
		"what holds the received packets, in task context like a "
		"socket receive queue: none (free at once: rxonly), inline "
		"(run to completion in the poll lcore), same-cpu (a thread on "
		"the poll lcore's CPU), other-cpu (a thread on another CPU: one "
		"no poll lcore runs on when the process has one, in turn), "
		"other-poll (the next poll lcore frees each packet in its own "
		"poll loop: softirq on another CPU; needs two poll lcores)",
		OPT_ENUM(o.consumer, consumer_names) },
	{ "consumers", 0, "N", "1", NULL, S_CONSUMERS,
		"consumers per poll lcore; streams are spread over them",
		OPT_UINT(consumers, 1, MAX_CONSUMERS) },
	{ "consumer-depth", 0, "N", "256", NULL, S_CONSUMERS,
		"receive queue depth in packets (other-poll: at least --burst)",
		OPT_UINT(consumer_depth, 1, 1u << 20) },
	{ "stream-counting", 0, "M", "auto", NULL, S_CONSUMERS,
		"deferred: the poll lcore logs each packet's flow and length, "
		"the main lcore counts them into the poll lcore's stream table "
		"(the poll lcore does when its log is full); inline: the poll "
		"lcore counts in place; auto: deferred when the main lcore "
		"does not poll and shares no CPU with a poll lcore, else "
		"inline. With --consumers above 1 a flow's entry steers its "
		"packets: inline",
		OPT_ENUM(o.stream_counting, stream_counting_names) },
	{ "stall-consumer", 0, "I[:SEC]", NULL, NULL, S_CONSUMERS,
		"testing: consumer I of each poll lcore stops reading (for SEC "
		"seconds, else for the whole run); a consumer thread's only "
		"(--consumer same-cpu, other-cpu)", set_stall },
	{ "test-consumer-lag", 0, "US", NULL, NULL, S_CONSUMERS,
		"testing: a consumer that finds its queue empty waits US "
		"microseconds before it acts on a stop, while the poll lcore "
		"fills the queue: the widest window a run's end must close "
		"without a packet left behind (--consumer same-cpu, "
		"other-cpu)", OPT_UINT(consumer_lag_us, 1, 1000000) },
	{ "exhaust", 0, "AT:SEC", NULL, NULL, S_CONSUMERS,
		"testing: AT seconds into each run, take every frame the zones "
		"of every pool can give for SEC seconds (the zone runs out: "
		"refills the poll lcore's own cache cannot serve fail). PMDs "
		"that count the failures show them as rx_nombuf (net_pcap in "
		"finite replay, mlx5); net_pcap's infinite replay and net_null "
		"return an empty burst without counting it (a note says so): "
		"with --replay, use --loops", set_exhaust },
	{ "report", 0, "FILE", "rxrefill-report.json", "file:json", S_OUTPUT,
		"JSON report, written atomically after every repetition, first "
		"when one has completed; '-': standard output, once at the end "
		"(progress and table go to standard error). A device, FIFO, "
		"directory or an input is refused", OPT_PATH(report_path) },
	{ "table", 0, "WHAT", "brief", NULL, S_OUTPUT,
		"the text table at the end: brief (one row per configuration: "
		"Gbit/s, Mpps, refill and allocator cycles, drops, zone lock "
		"wait), full (every metric, min to max, the latency histogram "
		"and percentiles) or none", OPT_ENUM(o.table, table_names) },
	{ "no-table", 0, NULL, NULL, NULL, S_OUTPUT,
		"the same as --table none", OPT_FLAG(table, TABLE_NONE) },
	{ "no-latency", 0, NULL, NULL, NULL, S_OUTPUT,
		"time nothing (no latency histogram, no "
		"refill_cycles_per_frame, allocator_cycles_per_packet)",
		OPT_FLAG(latency, false) },
	{ "latency-every", 0, "N", "256", NULL, S_OUTPUT,
		"time the refills, frees and drains of one poll iteration in "
		"N, or of the next that receives when it is idle (1: every "
		"iteration, which costs throughput and bh its inline path)",
		OPT_UINT(latency_every, 1, 1u << 30) },
	{ "stream-rows", 0, NULL, NULL, NULL, S_OUTPUT,
		"print every stream's row (default: the fairness summary: "
		"smallest and largest share, Jain's index; implies --table "
		"full)", OPT_FLAG(stream_rows, true),
		.set = set_full_table },
	{ "test-refill-delay", 0, "CYCLES[@CONFIG]", NULL, NULL, S_OUTPUT,
		"testing: about CYCLES TSC cycles of work in every refill (the "
		"same CPU time however busy the machine), a known slowdown "
		"(the statistics must find it), counted in "
		"refill_cycles_per_frame where refills are timed; @CONFIG: in "
		"that one only (bh: bulk on and off, bh-bulk, bh-nobulk), the "
		"others do 1 cycle (the same code path: only the work differs)",
		set_refill_delay },
	{ "test-zero-delay", 0, "CYCLES@METHOD", NULL, NULL, S_OUTPUT,
		"testing: about CYCLES TSC cycles of work added to the clear "
		"of every frame cleared with METHOD (narrow, contig or nt), "
		"a known clear cost the statistics must find",
		set_zero_delay },
	{ "detail", 0, NULL, NULL, NULL, S_OUTPUT,
		"add per-queue, per-lcore and extended statistics tables to "
		"the text table (implies --table full)",
		OPT_FLAG(detail, true), .set = set_full_table },
	{ "metrics-file", 0, "FILE", NULL, "file", S_OUTPUT,
		"write live figures in Prometheus text format to FILE, "
		"atomically, every stats period (node-exporter's textfile "
		"collector)", OPT_PATH(metrics_path) },
	{ "list-devices", 0, NULL, NULL, NULL, S_OUTPUT,
		"list RDMA devices (mlx5) with port state, PCI address and "
		"NUMA node, then exit; no EAL options needed",
		OPT_FLAG(list_devices, true) },
	{ "profile", 0, "FILE|NAME", NULL, "profile", S_OUTPUT,
		"read options from FILE (a regular file) first, one per line "
		"without the leading '--' ('strategy bh,zone'); '#' starts a "
		"comment; options given after it on the command line win. A "
		"NAME without '/' that is no file is looked up as NAME.profile "
		"in the installed profiles (share/rxrefill/profiles next to "
		"the program, or " RXR_PROFILE_DIR ")", set_profile },
	{ "version", 0, NULL, NULL, NULL, S_OUTPUT,
		"print the version of rxrefill and DPDK, then exit",
		OPT_FLAG(version, true), .set = opt_stop },
	{ "help", 0, NULL, NULL, NULL, S_OUTPUT, "this text",
		OPT_FLAG(help, true), .set = set_help },
};

static const struct rxr_opt_table opt_table = {
	APP, opt_list, RTE_DIM(opt_list),
};

/* "list:a,b,c" from names[0..n). */
static void
list_of(char *buf, size_t len, const char * const *names, unsigned int n)
{
	size_t off = snprintf(buf, len, "list:");

	for (unsigned int i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? "," : "",
			names[i]);
}

/* The texts the table points to that are made at run time, once. */
RTE_INIT(opts_table_init)
{
	const char *names[16];
	char list[128], keys[256];
	int s, n;

	RTE_BUILD_BUG_ON(RXR_STRATEGY_USER_MAX + 1 > RTE_DIM(names) ||
		RXR_ZERO_NR_POLICIES > RTE_DIM(names) ||
		RXR_ZERO_NR_METHODS > RTE_DIM(names));

	rxr_strategy_user_names(list, sizeof(list));
	snprintf(strategy_help, sizeof(strategy_help), "%s, comma separated, "
		"or 'all', last in a list for every other one ('bh,all'); "
		"columns follow the list, bulk on first, and every column is "
		"tested against the first", list);
	for (s = 0; s < RXR_STRATEGY_USER_MAX; s++)
		names[s] = rxr_strategy_name(s);
	names[s] = "all";
	list_of(strategy_complete, sizeof(strategy_complete), names, s + 1);
	for (s = 0; s < RXR_ZERO_NR_POLICIES; s++)
		names[s] = rxr_zero_policy_name(s);
	list_of(policy_complete, sizeof(policy_complete), names, s);
	for (s = 0; s < RXR_ZERO_NR_METHODS; s++)
		names[s] = rxr_zero_method_name(s);
	list_of(method_complete, sizeof(method_complete), names, s);
	n = snprintf(setting_complete, sizeof(setting_complete), "list:help,");
	rxr_strategy_setting_keys(setting_complete + n,
		sizeof(setting_complete) - n, ",");
	rxr_strategy_setting_keys(keys, sizeof(keys), ", ");
	snprintf(setting_help, sizeof(setting_help), "a strategy's own "
		"settings, comma separated, repeatable (%s); 'help' lists each "
		"with its range, default and meaning; a strategy that does not "
		"run ignores its settings", keys);
	/* 0 until given: the pool takes the larger of this and --batch. */
	snprintf(high_help, sizeof(high_help), "pcp high (default %u, or "
		"--batch when larger)", RXR_PCP_HIGH_DEFAULT);
	snprintf(batch_def, sizeof(batch_def), "%u", RXR_PCP_BATCH_DEFAULT);
	snprintf(frame_size_def, sizeof(frame_size_def), "%u",
		RXR_MEMPOOL_FRAME_SIZE_DEFAULT);
}

static int
set_help(void *c, const char *arg, char *err, size_t errlen)
{
	printf("Usage: " APP " [EAL options] -- [options]\n"
"\n"
"Receives on every probed port (mlx5: -a <PCI>[,devargs]; virtual: --vdev ...)\n"
"or on captures replayed through net_pcap (--replay), once per refill\n"
"strategy, and reports Gbit/s, Mpps and the allocator's costs side by side.\n"
"Memory: hugepages when usable, else --no-huge is added (say which ran).\n"
"\n");
	rxr_opt_help(&opt_table, stdout);
	printf("\n"
"Live figures: rte_telemetry commands /rxrefill/status and /rxrefill/stats\n"
"(dpdk-telemetry.py -f <file-prefix>); diagnostics go through rte_log\n"
"(--log-level=rxrefill:debug).\n"
"\n"
"Exit status: 0 when every run completed and every frame came home; 1 on\n"
"a runtime error (EAL could not start, a capture could not be read or\n"
"changed while replayed, a run failed, stalled with packets unaccounted or\n"
"received nothing of its captures, frames were lost, the report could not\n"
"be written); 2 on bad usage (an unknown option or a bad value,\n"
"a --report, --metrics-file, --profile or --replay path that cannot serve,\n"
"fewer lcores than the options need); 128+N when stopped by signal N (the\n"
"report is kept, marked partial).\n");
	return RXR_OPT_STOP;
}

int
opts_print_table(FILE *f)
{
	char err[256];
	int ret = rxr_opt_print_table(&opt_table, f, err, sizeof(err));

	if (ret != 0)
		RXR_LOG(ERR, "%s", err);
	return ret;
}

/* The checks of options against each other, once all are known. */
static int
opts_check(struct options *o, bool warmup_given, bool duration_given)
{
	if (o->loops != 0 && o->nb_replay == 0) {
		RXR_LOG(ERR, "--loops needs --replay (finite replay of captures)");
		return -1;
	}
	if (o->high != 0 && o->high < o->batch) {
		RXR_LOG(ERR, "--high %u is below --batch %u", o->high,
			o->batch);
		return -1;
	}
	/* --replay makes net_pcap's port: one RX queue per file. */
	if (o->nb_replay != 0 && o->queues != 0 && o->queues != o->nb_replay) {
		RXR_LOG(ERR, "--queues %u, but --replay gives %u file%s: "
			"net_pcap has one RX queue per file", o->queues,
			o->nb_replay, o->nb_replay == 1 ? "" : "s");
		return -1;
	}
	/* The poll lcore receives only when a whole burst fits its ring. */
	if (o->consumer == CONSUMER_OTHER_POLL &&
			o->consumer_depth < o->burst) {
		RXR_LOG(ERR, "--consumer-depth %u is below --burst %u: with "
			"--consumer other-poll a poll lcore receives a burst "
			"only when the consumer's ring has room for all of it",
			o->consumer_depth, o->burst);
		return -1;
	}
	/* Only a consumer thread can be stopped or made to lag. */
	if ((o->stall_consumer >= 0 || o->consumer_lag_us != 0) &&
			o->consumer != CONSUMER_SAME_CPU &&
			o->consumer != CONSUMER_OTHER_CPU) {
		RXR_LOG(ERR, "%s: needs a consumer thread (--consumer same-cpu "
			"or other-cpu); --consumer %s has none",
			o->stall_consumer >= 0 ? "--stall-consumer" :
			"--test-consumer-lag", consumer_mode_name(o->consumer));
		return -1;
	}
	if (o->stall_consumer >= (int)o->consumers) {
		RXR_LOG(ERR, "--stall-consumer %d: there are only %u consumers",
			o->stall_consumer, o->consumers);
		return -1;
	}
	/* Finite replay has no warm-up: say so, and record none. */
	if (o->loops != 0) {
		if (warmup_given && o->warmup_s > 0)
			RXR_LOG(NOTICE, "note: --warmup is not used with "
				"--loops (finite replay measures every packet)");
		if (duration_given)
			RXR_LOG(NOTICE, "note: --duration is not used with "
				"--loops (a run lasts until every packet of "
				"--loops replays is received or dropped)");
		o->warmup_s = 0;
	}
	return 0;
}

/*
 * The configurations to run: a strategy this process cannot run is
 * refused when named, left out of 'all' with the reason; bulk on first,
 * strategies, then zero policies and methods in the order given: the
 * first column is the one every other is compared with.
 */
static unsigned int
listed(const unsigned int *want, unsigned int n, unsigned int *out)
{
	unsigned int m = 0;

	for (unsigned int k = 1; k <= n; k++)
		for (unsigned int i = 0; i < n; i++)
			if (want[i] == k)
				out[m++] = i;
	return m;
}

static int
opts_configs(struct opts_ctx *x)
{
	unsigned int pol[RXR_ZERO_NR_POLICIES], meth[RXR_ZERO_NR_METHODS];
	unsigned int nb_p, nb_m, none;
	struct options *o = &x->o;

	for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++) {
		char why[160];

		if (x->want[s] == 0 || rxr_strategy_available(s, why, sizeof(why)))
			continue;
		if (!x->implied[s]) {
			RXR_LOG(ERR, "--strategy %s: not available here: %s",
				rxr_strategy_name(s), why);
			return -1;
		}
		RXR_LOG(NOTICE, "note: strategy %s left out of all: %s",
			rxr_strategy_name(s), why);
		x->want[s] = 0;
	}
	nb_p = listed(x->zero_policy, RXR_ZERO_NR_POLICIES, pol);
	nb_m = listed(x->zero_method, RXR_ZERO_NR_METHODS, meth);
	none = x->zero_policy[RXR_ZERO_POLICY_NONE] != 0;
	o->nb_zeroings = none + (nb_p - none) * nb_m;
	for (int b = 1; b >= 0; b--)
		for (unsigned int k = 1; k <= RXR_STRATEGY_USER_MAX; k++)
			for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++)
				for (unsigned int i = 0; x->want[s] == k &&
						x->bulk != (unsigned int)b &&
						i < nb_p * nb_m; i++) {
					/* none clears nothing: one method. */
					if (pol[i / nb_m] == RXR_ZERO_POLICY_NONE &&
							i % nb_m != 0)
						continue;
					o->configs[o->nb_configs++] =
						(struct run_config){ s, b != 0,
						pol[i / nb_m], meth[i % nb_m] };
					o->zero_policies |= 1u << pol[i / nb_m];
				}
	for (unsigned int i = 0; o->test_refill_delay_config != NULL; i++) {
		if (i == o->nb_configs) {
			RXR_LOG(ERR, "--test-refill-delay: '%s' is not a "
				"configuration of this run (a strategy, or "
				"STRATEGY-bulk, STRATEGY-nobulk)",
				o->test_refill_delay_config);
			return -1;
		}
		if (opts_refill_delayed(o, &o->configs[i]))
			break;
	}
	return 0;
}

/*
 * Each strategy's settings together, as its pools will take them: refused
 * here, with what was given, rather than at the first pool. A strategy
 * given settings that does not run gets a note.
 */
static int
opts_settings_check(const struct options *o)
{
	for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++) {
		uint32_t v[RXR_STRATEGY_SETTINGS_MAX];
		char why[256], given[256];
		bool runs = false;

		if (settings_str(s, o->settings[s], false, given,
				sizeof(given), 0) == 0)
			continue;
		memcpy(v, o->settings[s], sizeof(v));
		if (rxr_strategy_settings_fill(s, v, why, sizeof(why)) != 0) {
			RXR_LOG(ERR, "--strategy-setting %s: refused by %s: %s",
				given, rxr_strategy_name(s), why);
			return -1;
		}
		for (unsigned int k = 0; k < o->nb_configs; k++)
			runs |= o->configs[k].strategy == (enum rxr_strategy)s;
		if (!runs)
			RXR_LOG(NOTICE, "note: --strategy-setting %s: strategy "
				"%s does not run", given, rxr_strategy_name(s));
	}
	return 0;
}

static int
opts_parse_argv(const struct opts_args *a, struct opts_ctx *x)
{
	unsigned int seen[RTE_DIM(opt_list)] = { 0 };
	struct options *o = &x->o;
	char err[PATH_MAX + 256];
	int ret;

	ret = rxr_opt_parse(&opt_table, x, a->argc, a->argv, seen, err,
		sizeof(err));
	if (ret == RXR_OPT_STOP)
		return 0;
	/* A profile's line is one word: the one getopt has just passed. */
	if (ret == RXR_OPT_BAD_VALUE && optind >= 1 &&
			optind <= a->argc && a->from[optind - 1].file != NULL) {
		RXR_LOG(ERR, "--profile %s:%u: %s", a->from[optind - 1].file,
			a->from[optind - 1].line, err);
		return -1;
	}
	if (ret != 0) {
		RXR_LOG(ERR, "%s%s", err, ret == RXR_OPT_BAD_OPTION ?
			"; see --help" : "");
		return -1;
	}
	if (optind < a->argc) {
		RXR_LOG(ERR, "unexpected argument '%s'; see --help",
			a->argv[optind]);
		return -1;
	}
	o->frame_size_set = seen[rxr_opt_find(&opt_table, "frame-size")] != 0;
	if (opts_check(o, seen[rxr_opt_find(&opt_table, "warmup")] != 0,
			seen[rxr_opt_find(&opt_table, "duration")] != 0) != 0)
		return -1;
	if (opts_configs(x) != 0)
		return -1;
	return opts_settings_check(o);
}

/*
 * --profile NAME: a path or an existing file as given, else NAME.profile
 * (or NAME) among the installed profiles, next to the program first (a
 * relocated install finds its own). NULL, said, when found nowhere.
 */
static const char *
profile_find(const char *name, char *buf, size_t len)
{
	char dir[PATH_MAX + 64] = "", exe[PATH_MAX];
	const char *dirs[] = { dir, RXR_PROFILE_DIR };
	ssize_t n;
	int err;

	if (strchr(name, '/') != NULL || access(name, F_OK) == 0 ||
			name[0] == '\0')
		return name;
	err = errno;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(dir, sizeof(dir), "%s/%s", dirname(exe),
			RXR_PROFILE_RELDIR);
	}
	for (unsigned int d = n > 0 ? 0 : 1; d < RTE_DIM(dirs); d++)
		for (int ext = 1; ext >= 0; ext--)
			if ((size_t)snprintf(buf, len, "%s/%s%s", dirs[d], name,
					ext ? ".profile" : "") < len &&
					access(buf, F_OK) == 0)
				return buf;
	/* Not there for another reason: the caller's error names it. */
	if (err != ENOENT)
		return name;
	RXR_LOG(ERR, "--profile %s: no such file, and no %s.profile among the "
		"installed profiles (%s%s%s)", name, name, dir,
		dir[0] != '\0' ? ", " : "", RXR_PROFILE_DIR);
	return NULL;
}

/* Arguments read from a profile live as long as the options that point in. */
void
opts_args_free(struct opts_args *a)
{
	for (int i = 0; i < a->argc; i++)
		free(a->argv[i]);
	free(a->argv);
	free(a->from);
	memset(a, 0, sizeof(*a));
}

/* A copy of s, from line of profile file (NULL, 0: the command line), at
 * the end of a's argument vector, which stays NULL-terminated. */
static int
opts_args_push(struct opts_args *a, const char *s, const char *file,
		unsigned int line)
{
	if (a->argc + 2 > a->cap) {
		int cap = a->cap != 0 ? 2 * a->cap : 16;
		char **nv = realloc(a->argv, cap * sizeof(*nv));
		struct opts_arg_from *nf;

		if (nv == NULL)
			return -1;
		a->argv = nv;
		nf = realloc(a->from, cap * sizeof(*nf));
		if (nf == NULL)
			return -1;
		a->from = nf;
		a->cap = cap;
	}
	a->from[a->argc] = (struct opts_arg_from){ file, line };
	a->argv[a->argc] = strdup(s);
	if (a->argv[a->argc] == NULL)
		return -1;
	a->argv[++a->argc] = NULL;
	return 0;
}

/*
 * Line number @p line of profile @p name, @p n bytes at @p l: an option of
 * the table named in full, with a value when it takes one and without when
 * it takes none, becomes one word "--name=value": a line never lends its
 * option the next word of the command line.
 */
static int
profile_line(const char *l, size_t n, const char *name, unsigned int line,
		struct opts_args *a)
{
	const struct rxr_opt *o;
	size_t k, v;
	char opt[64], *w;
	int i, ret;

	/* Control characters other than tabs and CRLF: not text (a message
	 * would echo them to the terminal). */
	for (k = 0; k < n; k++) {
		unsigned char c = (unsigned char)l[k];

		if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') ||
				c == 0x7f) {
			RXR_LOG(ERR, "--profile %s:%u: not a text file "
				"(byte 0x%02x)", name, line, c);
			return -1;
		}
	}
	/* Trim, drop comments. */
	for (k = 0; k < n && l[k] != '#'; k++)
		;
	n = k;
	while (n > 0 && strchr(" \t\r\n", l[n - 1]) != NULL)
		n--;
	for (k = 0; k < n && strchr(" \t", l[k]) != NULL; k++)
		;
	if (k == n)
		return 0;
	for (v = k; v < n && strchr(" \t=", l[v]) == NULL; v++)
		;
	if (v - k + 3 > sizeof(opt) || (l[k] == '-')) {
		RXR_LOG(ERR, "--profile %s:%u: '%.*s' is not an option "
			"name (write options without the leading '--')", name,
			line, (int)RTE_MIN(v - k, (size_t)60), l + k);
		return -1;
	}
	snprintf(opt, sizeof(opt), "--%.*s", (int)(v - k), l + k);
	while (v < n && strchr(" \t=", l[v]) != NULL)
		v++;
	i = rxr_opt_find(&opt_table, opt + 2);
	o = i >= 0 ? &opt_list[i] : NULL;
	if (o == NULL) {
		RXR_LOG(ERR, "--profile %s:%u: unknown option '%s'; see --help",
			name, line, opt + 2);
		return -1;
	}
	if (o->arg != NULL && o->arg[0] != '[' && v == n) {
		RXR_LOG(ERR, "--profile %s: '%s' needs a value on its line "
			"('%s VALUE')", name, o->name, o->name);
		return -1;
	}
	if (o->arg == NULL && v < n) {
		RXR_LOG(ERR, "--profile %s:%u: '%s' takes no value", name,
			line, o->name);
		return -1;
	}
	if (asprintf(&w, "%s%s%.*s", opt, v < n ? "=" : "", (int)(n - v),
			l + v) < 0)
		return -1;
	ret = opts_args_push(a, w, name, line);
	free(w);
	return ret;
}

int
opts_profile_parse(FILE *f, const char *name, struct opts_args *a)
{
	unsigned int line = 0;
	size_t cap = 0;
	char *l = NULL;
	ssize_t n;
	int ret = 0;

	while (ret == 0 && (n = getline(&l, &cap, f)) > 0)
		ret = profile_line(l, n, name, ++line, a);
	free(l);
	return ret;
}

/* The profile NAME (a path or an installed name), read into a. */
static int
opts_profile_load(const char *name, struct opts_args *a)
{
	char found[PATH_MAX], err[PATH_MAX + 128];
	const char *path = profile_find(name, found, sizeof(found));
	int ret, first;
	FILE *f;

	if (path == NULL)
		return -1;
	/* A directory is no empty profile, and a FIFO would block. */
	if (rxr_path_check_input("--profile", path, err, sizeof(err)) != 0) {
		RXR_LOG(ERR, "%s", err);
		return -1;
	}
	f = fopen(path, "r");
	if (f == NULL) {
		RXR_LOG(ERR, "--profile %s: %s", path, strerror(errno));
		return -1;
	}
	first = a->argc;
	ret = opts_profile_parse(f, path, a);
	fclose(f);
	/* path may be found[] here: the words keep the name as given. */
	for (int i = first; i < a->argc; i++)
		a->from[i].file = name;
	return ret;
}

/* FILE of "--profile FILE" or "--profile=FILE" at argv[*i], *i past it;
 * NULL when argv[*i] is no --profile. */
static const char *
profile_arg(int argc, char **argv, int *i)
{
	if (strcmp(argv[*i], "--profile") == 0 && *i + 1 < argc)
		return argv[++*i];
	return strncmp(argv[*i], "--profile=", 10) == 0 ? argv[*i] + 10 : NULL;
}

/*
 * Options from --profile files come first, the rest of the command line
 * after them, so that what the user typed wins.
 */
int
opts_parse(int argc, char **argv, struct options *o, struct opts_args *a)
{
	struct opts_ctx x = { 0 };
	int ret;

	memset(a, 0, sizeof(*a));
	if (opts_args_push(a, argc > 0 ? argv[0] : APP, NULL, 0) != 0)
		return -1;
	for (int i = 1; i < argc; i++) {
		const char *f = profile_arg(argc, argv, &i);

		if (f == NULL)
			continue;
		if (x.o.nb_profiles == MAX_PROFILES) {
			RXR_LOG(ERR, "more than %d --profile files",
				MAX_PROFILES);
			return -1;
		}
		x.o.profiles[x.o.nb_profiles++] = f;
		if (opts_profile_load(f, a) != 0)
			return -1;
	}
	for (int i = 1; i < argc; i++)
		if (profile_arg(argc, argv, &i) == NULL &&
				opts_args_push(a, argv[i], NULL, 0) != 0)
			return -1;
	/* No consumer stalled, latency timed: unless an option says so. */
	x.o.stall_consumer = -1;
	x.o.latency = true;
	ret = opts_parse_argv(a, &x);
	*o = x.o;
	return ret;
}

/*
 * Without "--", everything goes to EAL, which answers one of our options
 * with a page of its usage. Name the option and where it belongs instead.
 */
int
opts_check_dashdash(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		char name[64];

		if (strncmp(arg, "--", 2) != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg + 2, "="),
			arg + 2);
		/* EAL has its own --help. */
		if (rxr_opt_find(&opt_table, name) < 0 ||
				strcmp(name, "help") == 0)
			continue;
		RXR_LOG(ERR, "'%s' is an option of " APP ", not of EAL: put it "
			"after '--' (" APP " [EAL options] -- [options], e.g. "
			APP " -l 0-1 --no-pci -- %s ...)", arg, arg);
		return -1;
	}
	return 0;
}

/*
 * --exhaust makes refills fail; whether that shows as rx_nombuf is the
 * PMD's doing. DPDK 22.11's net_pcap counts it only in finite replay
 * (eth_pcap_rx); its infinite replay (eth_pcap_rx_infinite) and net_null
 * (eth_null_rx) return an empty burst without a count. Say so up front.
 */
void
opts_check_ports(const struct app *a)
{
	if (a->opt.exhaust_for_s <= 0)
		return;
	for (unsigned int i = 0; i < a->nb_ports; i++) {
		const struct port *p = &a->ports[i];
		bool silent = strcmp(p->driver, "net_null") == 0 ||
			(strcmp(p->driver, "net_pcap") == 0 && !p->finite);

		if (silent)
			RXR_LOG(NOTICE, "note: --exhaust: port %u (%s%s) does "
				"not count failed refills as rx_nombuf: it drops "
				"the burst without a count, so only the rate shows "
				"the zone running out%s", p->id, p->driver,
				p->replay ? ", infinite replay" : "",
				p->replay ? "; with --loops it counts them" : "");
	}
}

