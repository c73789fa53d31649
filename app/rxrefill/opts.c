/* SPDX-License-Identifier: BSD-3-Clause */

/* The application's options: after EAL's, behind "--". */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_path.h"
#include "rxrefill.h"
#include "rxr_log.h"

/* net_pcap's RTE_PMD_PCAP_MAX_QUEUES: one RX queue per replayed file. */
#define PCAP_MAX_QUEUES 16

enum {
	OPT_STRATEGY = 256, OPT_BULK, OPT_REPS, OPT_WARMUP, OPT_DURATION,
	OPT_LOOPS, OPT_BURST, OPT_QUEUES, OPT_RXD, OPT_HIGH, OPT_BATCH,
	OPT_FRAME_SIZE, OPT_FRAMES, OPT_FAKE_NODES, OPT_CONSUMER,
	OPT_CONSUMERS, OPT_DEPTH, OPT_STALL, OPT_STATS_PERIOD,
	OPT_REPORT, OPT_NO_TABLE, OPT_NO_LATENCY, OPT_REPLAY, OPT_LIST,
	OPT_ZERO_POLICY, OPT_ZERO_METHOD, OPT_PROFILE, OPT_EXHAUST,
	OPT_HELP, OPT_MAIN_POLLS, OPT_LATENCY_EVERY, OPT_REFILL_DELAY,
	OPT_STREAM_ROWS, OPT_VERSION, OPT_METRICS_FILE, OPT_DETAIL,
	OPT_STREAM_COUNTING, OPT_DISTURBED, OPT_TABLE, OPT_PROGRESS,
};

static const struct option long_opts[] = {
	{ "strategy", required_argument, NULL, OPT_STRATEGY },
	{ "bulk", required_argument, NULL, OPT_BULK },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "loops", required_argument, NULL, OPT_LOOPS },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "queues", required_argument, NULL, OPT_QUEUES },
	{ "rxd", required_argument, NULL, OPT_RXD },
	{ "high", required_argument, NULL, OPT_HIGH },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "frame-size", required_argument, NULL, OPT_FRAME_SIZE },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "fake-nodes", required_argument, NULL, OPT_FAKE_NODES },
	{ "consumer", required_argument, NULL, OPT_CONSUMER },
	{ "consumers", required_argument, NULL, OPT_CONSUMERS },
	{ "consumer-depth", required_argument, NULL, OPT_DEPTH },
	{ "stall-consumer", required_argument, NULL, OPT_STALL },
	{ "stream-counting", required_argument, NULL, OPT_STREAM_COUNTING },
	{ "stats-period", required_argument, NULL, OPT_STATS_PERIOD },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "no-table", no_argument, NULL, OPT_NO_TABLE },
	{ "table", required_argument, NULL, OPT_TABLE },
	{ "progress", required_argument, NULL, OPT_PROGRESS },
	{ "no-latency", no_argument, NULL, OPT_NO_LATENCY },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "zero-policy", required_argument, NULL, OPT_ZERO_POLICY },
	{ "zero-method", required_argument, NULL, OPT_ZERO_METHOD },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "exhaust", required_argument, NULL, OPT_EXHAUST },
	{ "list-devices", no_argument, NULL, OPT_LIST },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "main-polls", no_argument, NULL, OPT_MAIN_POLLS },
	{ "latency-every", required_argument, NULL, OPT_LATENCY_EVERY },
	{ "test-refill-delay", required_argument, NULL, OPT_REFILL_DELAY },
	{ "stream-rows", no_argument, NULL, OPT_STREAM_ROWS },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
	{ "detail", no_argument, NULL, OPT_DETAIL },
	{ "disturbed", required_argument, NULL, OPT_DISTURBED },
	{ NULL, 0, NULL, 0 },
};

static const char * const stream_counting_names[] = {
	[STREAM_COUNTING_AUTO] = "auto",
	[STREAM_COUNTING_DEFERRED] = "deferred",
	[STREAM_COUNTING_INLINE] = "inline",
};

static const char * const disturbed_names[] = { "count", "exclude" };

static const char * const table_names[] = {
	[TABLE_NONE] = "none", [TABLE_BRIEF] = "brief", [TABLE_FULL] = "full",
};

static const char * const progress_names[] = {
	[PROGRESS_RUNS] = "runs", [PROGRESS_ROUNDS] = "rounds",
};

static const char * const consumer_names[] = {
	[CONSUMER_NONE] = "none", [CONSUMER_INLINE] = "inline",
	[CONSUMER_SAME_CPU] = "same-cpu", [CONSUMER_OTHER_CPU] = "other-cpu",
	[CONSUMER_OTHER_POLL] = "other-poll",
};

const char *
consumer_mode_name(enum consumer_mode m)
{
	return consumer_names[m];
}

void
opts_usage(FILE *f)
{
	char names[128];

	rxr_strategy_user_names(names, sizeof(names));
	fprintf(f,
"Usage: " APP " [EAL options] -- [options]\n"
"\n"
"Receives on every probed port (mlx5: -a <PCI>[,devargs]; virtual: --vdev ...)\n"
"or on captures replayed through net_pcap (--replay), once per refill\n"
"strategy, and reports Gbit/s, Mpps and the allocator's costs side by side.\n"
"Memory: hugepages when usable, else --no-huge is added (say which ran).\n"
"\n"
"Strategies:\n"
"  --strategy LIST      %s, comma separated, or 'all'\n"
"                       (default all), last in a list for every other one\n"
"                       ('bh,all'); columns follow the list, bulk on first,\n"
"                       and every column is tested against the first\n"
"  --bulk on|off|both   bulk alloc/free (one critical section per call) or one\n"
"                       frame at a time (default both)\n"
"  --high N             pcp high (default %u)\n"
"  --batch N            pcp batch (default %u)\n"
"  --reps N|auto[:MAX]  repetitions; strategies interleave A B C A B C (one\n"
"                       round each) and the report gives n, mean, stdev,\n"
"                       median, min, max, a 95%% interval and, against the\n"
"                       first, the ratio over paired rounds with its interval\n"
"                       and p-value (default 3, which warns: fewer than 6\n"
"                       rounds can never be significant). auto: rounds until\n"
"                       every Gbit/s ratio to the first is decided (its 95%%\n"
"                       paired interval excludes 1 or is within +-20%%), at\n"
"                       least 6 and at most MAX (default 10); says what it\n"
"                       reached when it stops\n"
"\n"
"Runs:\n"
"  --warmup SEC         unmeasured time before each run (default 0.5; none\n"
"                       with --loops)\n"
"  --duration SEC       measured time of each run (default 2)\n"
"  --loops N            finite replay: each queue's capture exactly N times,\n"
"                       until every packet is received or dropped with a cause\n"
"                       (with --replay only; replaces --duration)\n"
"  --burst N            rx_burst size, 1..%u (default 32)\n"
"                       (numbers are decimal: 010 is ten)\n"
"  --stats-period SEC   progress line period, 0 for none (default 1); with\n"
"                       --main-polls no line is printed while measuring\n"
"  --disturbed count|exclude\n"
"                       whether repetitions marked disturbed count in the\n"
"                       figures (default count; the run says how many were).\n"
"                       Disturbed: measured more than 5%% longer than asked\n"
"                       (stopped or starved), a poll CPU's steal time above\n"
"                       5%%, or a poll lcore with a CPU of its own switched\n"
"                       out more than 100 times a second or waiting for its\n"
"                       CPU more than 5%% of the time\n"
"  --progress WHAT      runs: a line when each run starts and one with its\n"
"                       result; rounds: one line per round of every\n"
"                       configuration, disturbed runs counted in it (default\n"
"                       runs). Runs cut short or too short to trust get a\n"
"                       line either way\n"
"  --main-polls         the main lcore polls too, as in l2fwd (a 2-CPU machine\n"
"                       runs two poll lcores with -l 0-1); it also ends the\n"
"                       run, checking the clock from its poll loop\n"
"\n"
"Ports and memory:\n"
"  --replay FILES       replay captures on net_pcap, one file per RX queue,\n"
"                       comma separated, at most 16 (net_pcap's queues per\n"
"                       port); regular files only (see rxrefill-gen)\n"
"  --queues N           RX queues per port (default: one per poll lcore; the\n"
"                       number of files with --replay); RSS with mlx5's\n"
"                       default Toeplitz key when N > 1\n"
"  --rxd N              RX descriptors per queue (default 1024)\n"
"  --frame-size BYTES   frame stride: mbuf, headroom and data room, a multiple\n"
"                       of 64 from 384 to 65536 (default %u)\n"
"  --frames N           frames per port's pool (default: sized from queues,\n"
"                       descriptors, caches and consumers)\n"
"  --fake-nodes N       split each pool into N fake NUMA nodes (testing the\n"
"                       remote-node paths on a one-node machine)\n"
"\n"
"Zeroing:\n"
"  --zero-policy P      none, alloc (clear before handing out, __GFP_ZERO),\n"
"                       free (clear when freed, init_on_free), background (a\n"
"                       thread keeps pre-zeroed frames per poll lcore)\n"
"                       (default none)\n"
"  --zero-method M      auto, narrow, contig, nt (default auto); pool memory\n"
"                       is cleared with it before frames are set up\n"
"\n"
"Consumers (task context: holds packets like a socket receive queue):\n"
"  --consumer MODE      none (free at once: rxonly), inline (run to completion\n"
"                       in the poll lcore), same-cpu (a thread on the poll\n"
"                       lcore's CPU), other-cpu (a thread on another CPU),\n"
"                       other-poll (the next poll lcore frees each packet in\n"
"                       its own poll loop: softirq on another CPU; needs two\n"
"                       poll lcores) (default inline)\n"
"  --consumers N        consumers per poll lcore; streams are spread over them\n"
"                       (default 1)\n"
"  --consumer-depth N   receive queue depth in packets (default 256)\n"
"  --stream-counting M  deferred: the poll lcore logs each packet's flow and\n"
"                       length, the main lcore counts them into the poll\n"
"                       lcore's stream table (the poll lcore does when its\n"
"                       log is full); inline: the poll lcore counts in place;\n"
"                       auto: deferred when the main lcore does not poll and\n"
"                       shares no CPU with a poll lcore, else inline. With\n"
"                       --consumers above 1 a flow's entry steers its\n"
"                       packets: inline (default auto)\n"
"  --stall-consumer I[:SEC]\n"
"                       testing: consumer I of each poll lcore stops reading\n"
"                       (for SEC seconds, else for the whole run)\n"
"  --exhaust AT:SEC     testing: AT seconds into each run, take every frame\n"
"                       the zones of every pool can give for SEC seconds (the\n"
"                       zone runs out: refills the poll lcore's own cache\n"
"                       cannot serve fail). PMDs that count the failures show\n"
"                       them as rx_nombuf (net_pcap in finite replay, mlx5);\n"
"                       net_pcap's infinite replay and net_null return an\n"
"                       empty burst without counting it (a note says so):\n"
"                       with --replay, use --loops\n"
"\n"
"Output:\n"
"  --report FILE        JSON report, written atomically after every\n"
"                       repetition, first when one has completed (default\n"
"                       rxrefill-report.json); '-': standard output, once at\n"
"                       the end (progress and table go to standard error).\n"
"                       A device, FIFO, directory or an input is refused\n"
"  --table WHAT         the text table at the end: brief (one row per\n"
"                       configuration: Gbit/s, Mpps, refill and allocator\n"
"                       cycles, drops, zone lock wait), full (every metric,\n"
"                       min to max, the latency histogram and percentiles)\n"
"                       or none (default brief)\n"
"  --no-table           the same as --table none\n"
"  --no-latency         time nothing (no latency histogram, no\n"
"                       refill_cycles_per_frame, allocator_cycles_per_packet)\n"
"  --latency-every N    time the refills, frees and drains of one poll\n"
"                       iteration in N (default 64; 1: every iteration, which\n"
"                       costs throughput and bh its inline path)\n"
"  --stream-rows        print every stream's row (default: the fairness\n"
"                       summary: smallest and largest share, Jain's index;\n"
"                       implies --table full)\n"
"  --test-refill-delay CYCLES[@CONFIG]\n"
"                       testing: about CYCLES TSC cycles of work in every\n"
"                       refill (the same CPU time however busy the machine),\n"
"                       a known slowdown (the statistics must find it),\n"
"                       counted in refill_cycles_per_frame where refills are\n"
"                       timed; @CONFIG: in that one only (bh: bulk on and\n"
"                       off, bh-bulk, bh-nobulk), the others do 1 cycle (the\n"
"                       same code path: only the work differs)\n"
"  --detail             add per-queue, per-lcore and extended statistics\n"
"                       tables to the text table (implies --table full)\n"
"  --metrics-file FILE  write live figures in Prometheus text format to FILE,\n"
"                       atomically, every stats period (node-exporter's\n"
"                       textfile collector)\n"
"  --list-devices       list RDMA devices (mlx5) with port state, PCI address\n"
"                       and NUMA node, then exit; no EAL options needed\n"
"  --profile FILE|NAME  read options from FILE (a regular file) first, one\n"
"                       per line without the leading '--' ('strategy\n"
"                       bh,zone'); '#' starts a comment; options given after\n"
"                       it on the command line win. A NAME without '/' that\n"
"                       is no file is looked up as NAME.profile in the\n"
"                       installed profiles (share/rxrefill/profiles next to\n"
"                       the program, or %s)\n"
"  --version            print the version of rxrefill and DPDK, then exit\n"
"  --help               this text\n\n"
"Live figures: rte_telemetry commands /rxrefill/status and /rxrefill/stats\n"
"(dpdk-telemetry.py -f <file-prefix>); diagnostics go through rte_log\n"
"(--log-level=rxrefill:debug).\n"
"\n"
"Exit status: 0 when every run completed and every frame came home; 1 on\n"
"a runtime error (EAL could not start, a capture could not be read, a run\n"
"failed or stalled with packets unaccounted, frames were lost, the report\n"
"could not be written); 2 on bad usage (an unknown option or a bad value,\n"
"a --report, --metrics-file, --profile or --replay path that cannot serve,\n"
"fewer lcores than the options need); 128+N when stopped by signal N (the\n"
"report is kept, marked partial).\n",
		names, RXR_PCP_HIGH_DEFAULT, RXR_PCP_BATCH_DEFAULT, MAX_BURST,
		RXR_MEMPOOL_FRAME_SIZE_DEFAULT, RXR_PROFILE_DIR);
}

/* Decimal only: "010" is ten and "0x10" an error, as in any other tool. */
static int
parse_uint(const char *opt, const char *s, unsigned long min, unsigned long max,
		unsigned long *v)
{
	uint64_t n;

	if (rxr_parse_decimal(s, min, max, &n) != 0) {
		RXR_LOG(ERR, "--%s: '%s' is not a decimal whole number "
			"in %lu..%lu", opt, s, min, max);
		return -1;
	}
	*v = (unsigned long)n;
	return 0;
}

/* Decimal seconds: digits, one point, an exponent; no hex, inf or nan. */
static int
parse_seconds(const char *opt, const char *s, double min, double max,
		double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' ||
			strspn(s, "0123456789.eE+-") != strlen(s) ||
			!(*v >= min && *v <= max)) {
		RXR_LOG(ERR, "--%s: '%s' is not a decimal number of "
			"seconds in %g..%g", opt, s, min, max);
		return -1;
	}
	return 0;
}

/* One of names[0..n): *v gets its index; the error lists them all. */
static int
parse_name(const char *opt, const char *s, const char * const *names,
		unsigned int n, unsigned long *v)
{
	char list[256];
	size_t off = 0;

	for (*v = 0; *v < n; (*v)++)
		if (strcmp(s, names[*v]) == 0)
			return 0;
	for (unsigned int i = 0; i < n && off < sizeof(list); i++)
		off += snprintf(list + off, sizeof(list) - off, "%s%s",
			i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	RXR_LOG(ERR, "--%s: '%s' is not %s", opt, s, list);
	return -1;
}

/*
 * want[s]: 0, or the strategy's place in the list from 1 (column order);
 * implied[s]: added by a trailing 'all' ("bh,all": bh first, then every
 * other in the registry's order), left out with a note where it cannot run.
 */
static int
parse_strategies(const char *s, unsigned int *want, bool *implied)
{
	char buf[256], names[128], *tok, *save = NULL;
	unsigned int n = 0;
	size_t len = strlen(s);

	/* strtok_r would pass over "", "," and "bh,,zone" without a word. */
	if (len == 0 || s[0] == ',' || s[len - 1] == ',' ||
			strstr(s, ",,") != NULL) {
		rxr_strategy_user_names(names, sizeof(names));
		RXR_LOG(ERR, "--strategy '%s': an empty strategy name; "
			"give %s comma separated, or all", s, names);
		return -1;
	}
	if (len >= sizeof(buf)) {
		RXR_LOG(ERR, "--strategy: list longer than %zu bytes",
			sizeof(buf) - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		enum rxr_strategy st;

		if (strcmp(tok, "all") == 0) {
			if (strtok_r(NULL, ",", &save) != NULL) {
				RXR_LOG(ERR, "--strategy '%s': 'all' comes "
					"last (every strategy not named before "
					"it)", s);
				return -1;
			}
			for (int i = 0; i < RXR_STRATEGY_USER_MAX; i++)
				if (want[i] == 0) {
					want[i] = ++n;
					implied[i] = true;
				}
			break;
		}
		if (rxr_strategy_parse(tok, false, &st) != 0) {
			rxr_strategy_user_names(names, sizeof(names));
			RXR_LOG(ERR, "--strategy: unknown strategy '%s' "
				"(%s or all)", tok, names);
			return -1;
		}
		if (want[st] == 0)
			want[st] = ++n;
	}
	return 0;
}

/*
 * --test-refill-delay CYCLES[@CONFIG]: CONFIG is a strategy (bulk on and
 * off) or one configuration, "bh-bulk" or "bh-nobulk"; without it every
 * configuration is slowed.
 */
static int
parse_refill_delay(const char *s, struct options *o)
{
	const char *at = strchr(s, '@');
	size_t len = at != NULL ? (size_t)(at - s) : strlen(s);
	char num[32];
	unsigned long v;

	if (len >= sizeof(num)) {
		RXR_LOG(ERR, "--test-refill-delay: '%s' is not a decimal "
			"whole number in 0..%u", s, 1u << 30);
		return -1;
	}
	snprintf(num, sizeof(num), "%.*s", (int)len, s);
	if (parse_uint("test-refill-delay", num, 0, 1u << 30, &v) != 0)
		return -1;
	o->test_refill_delay = v;
	o->test_refill_delay_config = at != NULL ? at + 1 : NULL;
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

static int
parse_replay(char *s, struct options *o)
{
	char *tok, *save = NULL, err[PATH_MAX + 128];
	size_t len = strlen(s);

	if (len == 0 || s[0] == ',' || s[len - 1] == ',' ||
			strstr(s, ",,") != NULL) {
		RXR_LOG(ERR, "--replay '%s': an empty file name", s);
		return -1;
	}
	for (tok = strtok_r(s, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		if (o->nb_replay == PCAP_MAX_QUEUES) {
			RXR_LOG(ERR, "--replay: more than %d files; "
				"net_pcap has one RX queue per file and at most "
				"%d queues per port", PCAP_MAX_QUEUES,
				PCAP_MAX_QUEUES);
			return -1;
		}
		/* A FIFO or a device would block net_pcap, or be read once. */
		if (rxr_path_check_input("--replay", tok, err, sizeof(err)) != 0) {
			RXR_LOG(ERR, "%s", err);
			return -1;
		}
		o->replay[o->nb_replay++] = tok;
	}
	return 0;
}

static int
opts_parse_argv(int argc, char **argv, struct options *o)
{
	unsigned int want[RXR_STRATEGY_USER_MAX];
	bool bulk_on = true, bulk_off = true, warmup_given = false;
	bool implied[RXR_STRATEGY_USER_MAX];
	unsigned long v;
	int c;

	for (int i = 0; i < RXR_STRATEGY_USER_MAX; i++) {
		want[i] = i + 1;	/* every strategy, in order */
		implied[i] = true;
	}
	memset(o, 0, sizeof(*o));
	o->reps = 3;
	o->warmup_s = 0.5;
	o->duration_s = 2;
	o->burst = 32;
	o->rxd = 1024;
	o->frame_size = RXR_MEMPOOL_FRAME_SIZE_DEFAULT;
	o->consumer = CONSUMER_INLINE;
	o->consumers = 1;
	o->consumer_depth = 256;
	o->stall_consumer = -1;
	o->stats_period_s = 1;
	o->report_path = "rxrefill-report.json";
	o->table = TABLE_BRIEF;
	o->latency = true;
	o->latency_every = 64;
	o->fake_nodes = 1;

	optind = 0;	/* glibc: a full re-initialization, so parsing can repeat */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_STRATEGY:
			memset(want, 0, sizeof(want));
			memset(implied, 0, sizeof(implied));
			if (parse_strategies(optarg, want, implied) != 0)
				return -1;
			break;
		case OPT_BULK:
			if (strcmp(optarg, "on") == 0) {
				bulk_on = true;
				bulk_off = false;
			} else if (strcmp(optarg, "off") == 0) {
				bulk_on = false;
				bulk_off = true;
			} else if (strcmp(optarg, "both") == 0) {
				bulk_on = bulk_off = true;
			} else {
				RXR_LOG(ERR, "--bulk: '%s' is not on, off or both",
					optarg);
				return -1;
			}
			break;
		case OPT_REPS:
			if (strncmp(optarg, "auto", 4) == 0 &&
					(optarg[4] == '\0' || optarg[4] == ':')) {
				o->reps_auto = true;
				o->reps = REPS_AUTO_MAX;
				if (optarg[4] == ':' && parse_uint("reps auto:MAX",
						optarg + 5, REPS_AUTO_MIN, 1000, &v) != 0)
					return -1;
				if (optarg[4] == ':')
					o->reps = v;
				break;
			}
			if (parse_uint("reps", optarg, 1, 1000, &v) != 0)
				return -1;
			o->reps_auto = false;
			o->reps = v;
			break;
		case OPT_MAIN_POLLS:
			o->main_polls = true;
			break;
		case OPT_DISTURBED:
			if (parse_name("disturbed", optarg, disturbed_names,
					RTE_DIM(disturbed_names), &v) != 0)
				return -1;
			o->disturbed_exclude = v == 1;
			break;
		case OPT_LATENCY_EVERY:
			if (parse_uint("latency-every", optarg, 1, 1u << 30, &v) != 0)
				return -1;
			o->latency_every = v;
			break;
		case OPT_REFILL_DELAY:
			if (parse_refill_delay(optarg, o) != 0)
				return -1;
			break;
		case OPT_STREAM_ROWS:
			o->stream_rows = true;
			if (o->table == TABLE_BRIEF)
				o->table = TABLE_FULL;
			break;
		case OPT_WARMUP:
			if (parse_seconds("warmup", optarg, 0, 3600, &o->warmup_s) != 0)
				return -1;
			warmup_given = true;
			break;
		case OPT_DURATION:
			if (parse_seconds("duration", optarg, 0.01, 86400,
					&o->duration_s) != 0)
				return -1;
			break;
		case OPT_LOOPS:
			if (parse_uint("loops", optarg, 1, 1000000, &v) != 0)
				return -1;
			o->loops = v;
			break;
		case OPT_BURST:
			if (parse_uint("burst", optarg, 1, MAX_BURST, &v) != 0)
				return -1;
			o->burst = v;
			break;
		case OPT_QUEUES:
			if (parse_uint("queues", optarg, 1, MAX_QUEUES, &v) != 0)
				return -1;
			o->queues = v;
			break;
		case OPT_RXD:
			if (parse_uint("rxd", optarg, 16, 65536, &v) != 0)
				return -1;
			o->rxd = v;
			break;
		case OPT_HIGH:
			if (parse_uint("high", optarg, 1, 1u << 20, &v) != 0)
				return -1;
			o->high = v;
			break;
		case OPT_BATCH:
			if (parse_uint("batch", optarg, 1, 1u << 20, &v) != 0)
				return -1;
			o->batch = v;
			break;
		case OPT_FRAME_SIZE: {
			char err[256];

			if (parse_uint("frame-size", optarg, 1, 1u << 20, &v) != 0)
				return -1;
			if (rxr_pktmbuf_frame_size_check(v, 0, err,
					sizeof(err)) != 0) {
				RXR_LOG(ERR, "--frame-size %s", err);
				return -1;
			}
			o->frame_size = v;
			o->frame_size_set = true;
			break;
		}
		case OPT_FRAMES:
			if (parse_uint("frames", optarg, 64, 1u << 26, &v) != 0)
				return -1;
			o->frames = v;
			break;
		case OPT_FAKE_NODES:
			if (parse_uint("fake-nodes", optarg, 1, RXR_POOL_MAX_NODES,
					&v) != 0)
				return -1;
			o->fake_nodes = v;
			break;
		case OPT_CONSUMER:
			if (parse_name("consumer", optarg, consumer_names,
					RTE_DIM(consumer_names), &v) != 0)
				return -1;
			o->consumer = v;
			break;
		case OPT_CONSUMERS:
			if (parse_uint("consumers", optarg, 1, MAX_CONSUMERS, &v) != 0)
				return -1;
			o->consumers = v;
			break;
		case OPT_DEPTH:
			if (parse_uint("consumer-depth", optarg, 1, 1u << 20, &v) != 0)
				return -1;
			o->consumer_depth = v;
			break;
		case OPT_STALL: {
			char *colon = strchr(optarg, ':');

			if (colon != NULL) {
				*colon = '\0';
				if (parse_seconds("stall-consumer", colon + 1, 0.001,
						86400, &o->stall_s) != 0)
					return -1;
			}
			if (parse_uint("stall-consumer", optarg, 0, MAX_CONSUMERS - 1,
					&v) != 0)
				return -1;
			o->stall_consumer = v;
			break;
		}
		case OPT_STREAM_COUNTING:
			if (parse_name("stream-counting", optarg,
					stream_counting_names,
					RTE_DIM(stream_counting_names), &v) != 0)
				return -1;
			o->stream_counting = v;
			break;
		case OPT_EXHAUST: {
			char *colon = strchr(optarg, ':');

			if (colon == NULL) {
				RXR_LOG(ERR, "--exhaust %s: give AT:SECONDS",
					optarg);
				return -1;
			}
			*colon = '\0';
			if (parse_seconds("exhaust", optarg, 0, 86400,
					&o->exhaust_at_s) != 0 ||
					parse_seconds("exhaust", colon + 1, 0.001, 86400,
						&o->exhaust_for_s) != 0)
				return -1;
			break;
		}
		case OPT_STATS_PERIOD:
			if (parse_seconds("stats-period", optarg, 0, 3600,
					&o->stats_period_s) != 0)
				return -1;
			break;
		case OPT_REPORT:
			if (optarg[0] == '\0') {
				RXR_LOG(ERR, "--report: empty path");
				return -1;
			}
			o->report_path = optarg;
			break;
		case OPT_NO_TABLE:
			o->table = TABLE_NONE;
			break;
		case OPT_TABLE:
			if (parse_name("table", optarg, table_names,
					RTE_DIM(table_names), &v) != 0)
				return -1;
			o->table = (enum table_mode)v;
			break;
		case OPT_PROGRESS:
			if (parse_name("progress", optarg, progress_names,
					RTE_DIM(progress_names), &v) != 0)
				return -1;
			o->progress = (enum progress_mode)v;
			break;
		case OPT_NO_LATENCY:
			o->latency = false;
			break;
		case OPT_DETAIL:
			o->detail = true;
			if (o->table == TABLE_BRIEF)
				o->table = TABLE_FULL;
			break;
		case OPT_METRICS_FILE:
			if (optarg[0] == '\0') {
				RXR_LOG(ERR, "--metrics-file: empty path");
				return -1;
			}
			o->metrics_path = optarg;
			break;
		case OPT_VERSION:
			o->version = true;
			return 0;
		case OPT_REPLAY:
			if (parse_replay(optarg, o) != 0)
				return -1;
			break;
		case OPT_LIST:
			o->list_devices = true;
			break;
		case OPT_ZERO_POLICY: {
			char err[128];

			if (rxr_zero_policy_parse(optarg, &o->zero_policy, err,
					sizeof(err)) != 0) {
				RXR_LOG(ERR, "--zero-policy: %s", err);
				return -1;
			}
			break;
		}
		case OPT_ZERO_METHOD: {
			char err[128];

			if (rxr_zero_method_parse(optarg, &o->zero_method, err,
					sizeof(err)) != 0) {
				RXR_LOG(ERR, "--zero-method: %s", err);
				return -1;
			}
			break;
		}
		case OPT_HELP:
			opts_usage(stdout);
			o->help = true;
			return 0;
		case OPT_PROFILE:
			RXR_LOG(ERR, "--profile may not be nested in a profile");
			return -1;
		case ':':
			RXR_LOG(ERR, "option '%s' needs a value; see --help",
				argv[optind - 1]);
			return -1;
		default:
			/* Short options have no place here; a long one is whole. */
			if (optopt > 0 && optopt < 256)
				RXR_LOG(ERR, "unknown option '-%c'; see --help",
					optopt);
			else
				RXR_LOG(ERR, "unknown option '%s'; see --help",
					optind > 0 && optind <= argc ? argv[optind - 1] : "?");
			return -1;
		}
	}
	if (optind < argc) {
		RXR_LOG(ERR, "unexpected argument '%s'; see --help",
			argv[optind]);
		return -1;
	}
	if (o->loops != 0 && o->nb_replay == 0) {
		RXR_LOG(ERR, "--loops needs --replay (finite replay of captures)");
		return -1;
	}
	if (o->high != 0 && o->batch != 0 && o->high < o->batch) {
		RXR_LOG(ERR, "--high %u is below --batch %u", o->high,
			o->batch);
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
		o->warmup_s = 0;
	}
	/* A strategy this process cannot run: refused when named, left
	 * out of 'all' with the reason. */
	for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++) {
		char why[160];

		if (want[s] == 0 || rxr_strategy_available(s, why, sizeof(why)))
			continue;
		if (!implied[s]) {
			RXR_LOG(ERR, "--strategy %s: not available here: %s",
				rxr_strategy_name(s), why);
			return -1;
		}
		RXR_LOG(NOTICE, "note: strategy %s left out of all: %s",
			rxr_strategy_name(s), why);
		want[s] = 0;
	}
	/* Bulk on first, strategies in the order given: the first column is
	 * the one every other is compared with. */
	for (int b = 1; b >= 0; b--)
		for (unsigned int k = 1; k <= RXR_STRATEGY_USER_MAX; k++)
			for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++)
				if (want[s] == k && (b ? bulk_on : bulk_off))
					o->configs[o->nb_configs++] =
						(struct run_config){ s, b != 0 };
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
 * A profile line is "--name" or "--name=value": an option that needs a
 * value and has none would take the next word of the command line.
 */
static int
profile_values_given(const char *file, const struct opts_args *a, int first)
{
	for (int i = first; i < a->argc; i++) {
		const char *name = a->argv[i] + 2;

		if (strncmp(a->argv[i], "--", 2) != 0 ||
				strchr(name, '=') != NULL)
			continue;
		for (const struct option *lo = long_opts; lo->name != NULL;
				lo++) {
			if (strcmp(lo->name, name) != 0 ||
					lo->has_arg != required_argument)
				continue;
			RXR_LOG(ERR, "--profile %s: '%s' needs a value on its "
				"line ('%s VALUE')", file, name, name);
			return -1;
		}
	}
	return 0;
}

/*
 * Options from --profile files come first, the rest of the command line
 * after them, so that what the user typed wins.
 */
int
opts_parse(int argc, char **argv, struct options *o, struct opts_args *a)
{
	const char *profiles[MAX_PROFILES];
	unsigned int nb_profiles = 0;
	int ret, first;

	memset(a, 0, sizeof(*a));
	if (opts_args_push(a, argc > 0 ? argv[0] : APP, strlen(argc > 0 ? argv[0] : APP)) != 0)
		return -1;
	for (int i = 1; i < argc; i++) {
		const char *f = NULL;

		if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
			f = argv[++i];
		else if (strncmp(argv[i], "--profile=", 10) == 0)
			f = argv[i] + 10;
		if (f == NULL)
			continue;
		if (nb_profiles == MAX_PROFILES) {
			RXR_LOG(ERR, "more than %d --profile files",
				MAX_PROFILES);
			return -1;
		}
		profiles[nb_profiles++] = f;
		first = a->argc;
		if (opts_profile_load(f, a) != 0 ||
				profile_values_given(f, a, first) != 0)
			return -1;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--profile=", 10) == 0)
			continue;
		if (opts_args_push(a, argv[i], strlen(argv[i])) != 0)
			return -1;
	}
	ret = opts_parse_argv(a->argc, a->argv, o);
	for (unsigned int i = 0; ret == 0 && i < nb_profiles; i++)
		o->profiles[o->nb_profiles++] = profiles[i];
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
		size_t n;

		if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
			continue;
		n = strcspn(arg + 2, "=");
		for (const struct option *lo = long_opts; lo->name != NULL; lo++) {
			/* EAL has its own --help. */
			if (lo->val == OPT_HELP || strlen(lo->name) != n ||
					strncmp(lo->name, arg + 2, n) != 0)
				continue;
			RXR_LOG(ERR, "'%s' is an option of " APP ", not "
				"of EAL: put it after '--' (" APP " [EAL options] "
				"-- [options], e.g. " APP " -l 0-1 --no-pci -- "
				"%s ...)", arg, arg);
			return -1;
		}
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

