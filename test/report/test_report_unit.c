/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * lib/report unit tests: builder, summary statistics, validation, text
 * rendering against golden files, histogram shape, comparison.
 * argv[1]: this folder in the source tree (for golden/).
 * RXR_GOLDEN_UPDATE=1 rewrites the golden files from the current output.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rxr_path.h"
#include "rxr_report.h"
#include "rxr_report_priv.h"
#include "rxr_test.h"
#include "report_fixture.h"

static const char *srcdir = ".";

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9 * (fabs(b) + 1))

/* The text a renderer prints, in a malloc'd string. */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *
cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	return c->f;
}

static char *
cap_close(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

static char *
read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf != NULL)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Exact comparison with golden/<name>; prints the first different line. */
static int
check_golden(const char *name, const char *actual)
{
	char path[1024];
	char *want;
	const char *a, *w;
	int line = 1;

	snprintf(path, sizeof(path), "%s/golden/%s", srcdir, name);
	if (getenv("RXR_GOLDEN_UPDATE") != NULL) {
		FILE *f = fopen(path, "w");

		if (f == NULL || fputs(actual, f) == EOF || fclose(f) != 0)
			return -1;
		printf("# updated %s\n", path);
		return 0;
	}
	want = read_file(path);
	if (want == NULL) {
		printf("# cannot read %s\n", path);
		return -1;
	}
	for (a = actual, w = want; *a != '\0' && *a == *w; a++, w++)
		if (*a == '\n')
			line++;
	if (*a != *w) {
		const char *ae = strchr(a, '\n'), *we = strchr(w, '\n');

		while (a > actual && a[-1] != '\n')
			a--;
		while (w > want && w[-1] != '\n')
			w--;
		printf("# %s differs at line %d\n# want: %.*s\n#  got: %.*s\n",
			name, line, we != NULL ? (int)(we - w) : (int)strlen(w),
			w, ae != NULL ? (int)(ae - a) : (int)strlen(a), a);
		printf("# (RXR_GOLDEN_UPDATE=1 rewrites golden files)\n");
		free(want);
		return -1;
	}
	free(want);
	return 0;
}

static int
test_hist_index(void)
{
	RXR_TEST_ASSERT_EQ(rxrr_hist_index(0), 0, "0 ns");
	RXR_TEST_ASSERT_EQ(rxrr_hist_index(1), 1, "1 ns");
	RXR_TEST_ASSERT_EQ(rxrr_hist_index(2), 2, "2 ns");
	RXR_TEST_ASSERT_EQ(rxrr_hist_index(3), 2, "3 ns");
	RXR_TEST_ASSERT_EQ(rxrr_hist_index(4), 3, "4 ns");
	RXR_TEST_ASSERT_EQ(rxrr_hist_index(1023), 10, "1023 ns");
	RXR_TEST_ASSERT_EQ(rxrr_hist_index(1024), 11, "1024 ns");
	RXR_TEST_ASSERT_EQ(rxrr_hist_index(UINT64_MAX),
		RXR_REPORT_HIST_BUCKETS - 1, "clamped");
	RXR_TEST_ASSERT_EQ(rxrr_hist_lo(0), 0, "lo 0");
	RXR_TEST_ASSERT_EQ(rxrr_hist_hi(0), 1, "hi 0");
	RXR_TEST_ASSERT_EQ(rxrr_hist_lo(1), 1, "lo 1");
	RXR_TEST_ASSERT_EQ(rxrr_hist_hi(1), 2, "hi 1");
	RXR_TEST_ASSERT_EQ(rxrr_hist_lo(11), 1024, "lo 11");
	RXR_TEST_ASSERT_EQ(rxrr_hist_hi(11), 2048, "hi 11");
	RXR_TEST_ASSERT_EQ(rxrr_hist_hi(47), 1LL << 47, "hi 47");
	return 0;
}

static int
test_schedule(void)
{
	static const unsigned int want_cfg[] = { 0, 1, 2, 0, 1, 2 };
	static const unsigned int want_rep[] = { 0, 0, 0, 1, 1, 1 };
	unsigned int s, cfg, rep;

	for (s = 0; s < 6; s++) {
		rxr_report_schedule(s, 3, &cfg, &rep);
		RXR_TEST_ASSERT(cfg == want_cfg[s] && rep == want_rep[s],
			"step %u: config %u rep %u", s, cfg, rep);
	}
	return 0;
}

static struct rxr_report *
env_report(void)
{
	static const unsigned int lcores[] = { 3 };
	static char *const argv[] = { "rxrefill", "-l", "3" };
	struct rxr_report_env env = {
		.dpdk_version = "DPDK 22.11.1", .host = "h", .cpu_model = "c",
		.lcores = lcores, .nb_lcores = 1, .argc = 3, .argv = argv,
	};
	struct rxr_report *r = rxr_report_create();

	if (r != NULL && rxr_report_set_env(r, &env, NULL, 0) != 0) {
		rxr_report_free(r);
		return NULL;
	}
	return r;
}

static int
test_builder_derived(void)
{
	struct rxr_report *r = env_report();
	struct rxr_report_run run = { 0 };
	char err[RXR_REPORT_ERR_LEN] = "";
	json_t *o, *b;

	RXR_TEST_ASSERT(r != NULL, "create");
	run.strategy = "bh";
	run.bulk = true;
	run.duration_s = 2.0;
	run.rx_packets = 1000000;
	run.rx_bytes = 1000000000;
	run.cycles_per_packet = NAN;
	run.refill_cycles_per_frame = 12.5;
	run.pcp.hits = 3;
	run.pcp.misses = 1;
	run.drops[0] = (struct rxr_report_drop){ "rx_nombuf", 7 };
	run.drops[1] = (struct rxr_report_drop){ "my.cause", 1 };
	run.nb_drops = 2;
	run.refill_latency_ns[2] = 5;
	run.refill_latency_ns[4] = 1;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) == 0,
		"add_run: %s", err);
	o = json_array_get(json_object_get(rxr_report_json(r), "runs"), 0);
	/* 1e9 B * 8 / 2 s = 4 Gbit/s; on the wire + 24 B * 1e6 frames. */
	RXR_TEST_ASSERT(NEAR(json_real_value(json_object_get(o, "gbps")), 4.0),
		"gbps");
	RXR_TEST_ASSERT(NEAR(json_real_value(json_object_get(o, "gbps_wire")),
		4.096), "gbps_wire %g",
		json_real_value(json_object_get(o, "gbps_wire")));
	RXR_TEST_ASSERT(NEAR(json_real_value(json_object_get(o, "mpps")), 0.5),
		"mpps");
	RXR_TEST_ASSERT(json_is_null(json_object_get(o, "cycles_per_packet")),
		"NaN must be written as null");
	RXR_TEST_ASSERT(NEAR(json_real_value(json_object_get(json_object_get(o,
		"pcp"), "hit_rate")), 0.75), "hit_rate");
	RXR_TEST_ASSERT_EQ(json_integer_value(json_object_get(json_object_get(
		o, "drops"), "my.cause")), 1, "drop with a dot in its name");
	RXR_TEST_ASSERT(json_object_get(o, "deferred") == NULL &&
		json_object_get(o, "recycle") == NULL &&
		json_object_get(o, "zeroing") == NULL &&
		json_object_get(o, "streams") == NULL,
		"optional sections must be absent unless asked for");
	/* Populated range only: [2,4) [4,8) [8,16), the zero in between kept. */
	b = json_object_get(json_object_get(o, "refill_latency_hist"),
		"buckets");
	RXR_TEST_ASSERT_EQ(json_array_size(b), 3, "buckets");
	RXR_TEST_ASSERT_EQ(json_integer_value(json_object_get(
		json_array_get(b, 0), "lo")), 2, "first lo");
	RXR_TEST_ASSERT_EQ(json_integer_value(json_object_get(
		json_array_get(b, 1), "count")), 0, "middle count");
	RXR_TEST_ASSERT_EQ(json_integer_value(json_object_get(
		json_array_get(b, 2), "hi")), 16, "last hi");
	RXR_TEST_ASSERT(rxr_report_validate(rxr_report_json(r), "t", err,
		sizeof(err)) == 0, "validate: %s", err);
	rxr_report_free(r);
	return 0;
}

static int
test_builder_unmeasured(void)
{
	struct rxr_report *r = env_report();
	struct rxr_report_run run = { .strategy = "zone" };
	json_t *o;

	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, NULL, 0) == 0, "add");
	o = json_array_get(json_object_get(rxr_report_json(r), "runs"), 0);
	/* Zero duration, zero allocations: nothing to divide by. */
	RXR_TEST_ASSERT(json_is_null(json_object_get(o, "gbps")) &&
		json_is_null(json_object_get(o, "mpps")) &&
		json_is_null(json_object_get(json_object_get(o, "pcp"),
			"hit_rate")), "unmeasured figures must be null");
	RXR_TEST_ASSERT(json_object_get(o, "refill_latency_hist") == NULL,
		"empty histogram must be absent");
	RXR_TEST_ASSERT(rxr_report_validate(rxr_report_json(r), "t", NULL,
		0) == 0, "validate");
	rxr_report_free(r);
	return 0;
}

/* fairness{}: shares of the bytes and Jain's index, (sum x)^2 / (n sum x^2). */
static int
test_builder_fairness(void)
{
	static const uint64_t bytes[][4] = { { 3, 3, 3, 3 }, { 0, 0, 8, 0 },
		{ 1, 3 } };
	static const double jain[] = { 1, 0.25, 0.8 }, lo[] = { 0.25, 0, 0.25 };
	static const double hi[] = { 0.25, 1, 0.75 };
	static const unsigned int n[] = { 4, 4, 2 };
	struct rxr_report *r = env_report();
	struct rxr_report_stream s[4];

	for (unsigned int k = 0; k < 3; k++) {
		struct rxr_report_run run = { .strategy = "bh", .rep = k,
			.streams = s, .nb_streams = n[k] };
		const json_t *f;

		for (unsigned int i = 0; i < 4; i++)
			s[i] = (struct rxr_report_stream){ .src = "a",
				.dst = "b", .bytes = bytes[k][i] };
		RXR_TEST_ASSERT(rxr_report_add_run(r, &run, NULL, 0) == 0,
			"add %u", k);
		f = json_object_get(json_array_get(json_object_get(
			rxr_report_json(r), "runs"), k), "fairness");
		RXR_TEST_ASSERT(NEAR(rxrr_num(json_object_get(f, "jain")),
			jain[k]) && NEAR(rxrr_num(json_object_get(f,
			"min_share")), lo[k]) && NEAR(rxrr_num(
			json_object_get(f, "max_share")), hi[k]),
			"fairness %u", k);
	}
	rxr_report_free(r);
	return 0;
}

static int
test_builder_rejects(void)
{
	struct rxr_report *r = env_report();
	struct rxr_report_stream s = { .src = NULL, .dst = "b" };
	struct rxr_report_run run = { .strategy = "bh", .rep = 1 };
	char err[RXR_REPORT_ERR_LEN];

	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) == 0,
		"first add");
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL && strstr(err, "already") != NULL,
		"duplicate run accepted: %s", err);
	run.rep = 2;
	run.strategy = "";
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL && strstr(err, "strategy") != NULL, "empty strategy");
	run.strategy = "bh";
	run.cycles_per_packet = -1;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL && strstr(err, "cycles_per_packet") != NULL,
		"negative figure: %s", err);
	run.cycles_per_packet = 0;
	run.drops[0] = (struct rxr_report_drop){ "imissed", 1 };
	run.drops[1] = (struct rxr_report_drop){ "imissed", 2 };
	run.nb_drops = 2;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL && strstr(err, "imissed") != NULL, "duplicate cause");
	run.drops[1].cause = "";
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL, "empty cause");
	run.nb_drops = RXR_REPORT_DROPS_MAX + 1;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL, "too many causes");
	run.nb_drops = 0;
	/* A strategy's counters are named once each, like drop causes. */
	run.strategy_counters[0] = (struct rxr_report_drop){ "c", 1 };
	run.strategy_counters[1] = (struct rxr_report_drop){ "c", 2 };
	run.nb_strategy_counters = 2;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL && strstr(err, "counter \"c\" twice") != NULL,
		"duplicate counter: %s", err);
	run.nb_strategy_counters = 0;
	run.streams = &s;
	run.nb_streams = 1;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL && strstr(err, "streams[0]") != NULL,
		"stream without address: %s", err);
	run.streams = NULL;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL && strstr(err, "1 streams but no array") != NULL,
		"streams without their array: %s", err);
	/* What the caller measured is checked as the schema checks a file:
	 * a run the report could not be written with is refused now. */
	run.nb_streams = 0;
	run.has_noise = true;
	run.noise.lcores = &(struct rxr_report_noise_lcore){
		.runqueue_wait_share = -0.5 };
	run.noise.nb_lcores = 1;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL && strstr(err, "runqueue_wait_share") != NULL,
		"negative noise share: %s", err);
	RXR_TEST_ASSERT_EQ(rxr_report_nb_runs(r), 1, "runs after rejects");
	rxr_report_free(r);
	return 0;
}

static int
test_env(void)
{
	static char *const argv[] = {
		"rxrefill", "-l", "1,2", "--vdev", "net_pcap0,rx_pcap=a b.pcap",
		"--name", "it's",
	};
	static const unsigned int lcores[] = { 1, 2 };
	struct rxr_report_env env = {
		.dpdk_version = "DPDK 22.11.1", .lcores = lcores,
		.nb_lcores = 2, .no_huge = true, .argc = 7, .argv = argv,
	};
	struct rxr_report *r = rxr_report_create();
	char err[RXR_REPORT_ERR_LEN];
	const char *key, *order[8];
	json_t *e, *v;
	int n = 0;

	/* Options may be set before env and must survive it. */
	RXR_TEST_ASSERT(rxr_report_set_option_bool(r, "bulk", true) == 0,
		"option");
	RXR_TEST_ASSERT(rxr_report_validate(rxr_report_json(r), "t", err,
		sizeof(err)) != 0 && strstr(err, "env.dpdk_version: missing"),
		"report without env must not validate: %s", err);
	RXR_TEST_ASSERT(rxr_report_set_env(r, &env, err, sizeof(err)) == 0,
		"set_env: %s", err);
	RXR_TEST_ASSERT(rxr_report_set_option_double(r, "high", 378) == 0 &&
		rxr_report_set_option_int(r, "batch", 63) == 0 &&
		rxr_report_set_option_str(r, "mode", "pcap") == 0, "options");
	e = json_object_get(rxr_report_json(r), "env");
	RXR_TEST_ASSERT(!strcmp(json_string_value(json_object_get(e, "argv")),
		"rxrefill -l 1,2 --vdev 'net_pcap0,rx_pcap=a b.pcap' --name "
		"'it'\\''s'"), "argv: %s",
		json_string_value(json_object_get(e, "argv")));
	RXR_TEST_ASSERT(!strcmp(json_string_value(json_object_get(e,
		"memory")), "no-huge"), "memory");
	RXR_TEST_ASSERT(json_string_length(json_object_get(e, "host")) > 0,
		"host looked up");
	RXR_TEST_ASSERT(json_string_length(json_object_get(e, "cpu_model")) > 0,
		"cpu model looked up");
	RXR_TEST_ASSERT(json_is_true(json_object_get(json_object_get(e,
		"options"), "bulk")), "option set before env lost");
	RXR_TEST_ASSERT_EQ(json_object_size(json_object_get(e, "options")), 4,
		"options");
	/* People read the file top down: env before runs. */
	json_object_foreach(rxr_report_json(r), key, v)
		if (n < 8)
			order[n++] = key;
	RXR_TEST_ASSERT(n == 7 && !strcmp(order[0], "schema") &&
		!strcmp(order[1], "partial") && !strcmp(order[2], "created") &&
		!strcmp(order[3], "env") && !strcmp(order[4], "runs") &&
		!strcmp(order[5], "summary") && !strcmp(order[6], "statistics"),
		"top-level key order");
	RXR_TEST_ASSERT(rxr_report_validate(rxr_report_json(r), "t", err,
		sizeof(err)) == 0, "validate: %s", err);
	rxr_report_free(r);
	return 0;
}

static int
test_created(void)
{
	struct rxr_report *r = rxr_report_create();
	const char *c = json_string_value(json_object_get(rxr_report_json(r),
		"created"));

	RXR_TEST_ASSERT(c != NULL && strlen(c) == 20 && c[10] == 'T' &&
		c[19] == 'Z', "created %s", c != NULL ? c : "(none)");
	rxr_report_free(r);
	return 0;
}

static double
sum_stat(json_t *summary, size_t i, const char *metric, const char *stat)
{
	return json_number_value(json_object_get(json_object_get(
		json_array_get(summary, i), metric), stat));
}

static int
test_summary_interleaved(void)
{
	struct fixture_conf conf = { .host = "h", .scale = 1, .reps = 3 };
	struct rxr_report *r = fixture_report(&conf);
	json_t *runs = json_object_get(rxr_report_json(r), "runs");
	json_t *sum = json_object_get(rxr_report_json(r), "summary");

	/* Runs in the order they ran: zone bh zone bh zone bh. */
	RXR_TEST_ASSERT_EQ(json_array_size(runs), 6, "runs");
	RXR_TEST_ASSERT(!strcmp(json_string_value(json_object_get(
		json_array_get(runs, 1), "strategy")), "bh") &&
		json_integer_value(json_object_get(json_array_get(runs, 2),
		"rep")) == 1, "interleaved order");
	RXR_TEST_ASSERT_EQ(json_array_size(sum), 2, "summary entries");
	RXR_TEST_ASSERT(!strcmp(json_string_value(json_object_get(
		json_array_get(sum, 0), "strategy")), "zone"), "first config");
	RXR_TEST_ASSERT_EQ(json_integer_value(json_object_get(
		json_array_get(sum, 1), "reps")), 3, "reps");
	/* zone: 5e6 packets * (1, 1.02, 1.04) of 1500 B in 2 s. */
	RXR_TEST_ASSERT(NEAR(sum_stat(sum, 0, "gbps", "min"), 30.0) &&
		NEAR(sum_stat(sum, 0, "gbps", "median"), 30.6) &&
		NEAR(sum_stat(sum, 0, "gbps", "max"), 31.2), "zone gbps");
	RXR_TEST_ASSERT(NEAR(sum_stat(sum, 1, "cycles_per_packet", "median"),
		277.2), "bh cycles median");
	rxr_report_free(r);

	/* Even count: the mean of the two middle values. */
	conf.reps = 2;
	r = fixture_report(&conf);
	sum = json_object_get(rxr_report_json(r), "summary");
	RXR_TEST_ASSERT(NEAR(sum_stat(sum, 0, "mpps", "median"), 2.525),
		"even median %g", sum_stat(sum, 0, "mpps", "median"));
	rxr_report_free(r);
	return 0;
}

static json_t *
vs_first(json_t *summary, size_t i, const char *metric)
{
	return json_object_get(json_object_get(json_array_get(summary, i),
		metric), "vs_first");
}

/*
 * n, mean, stdev, ci95 and vs_first: 5 reps of disjoint values differ at
 * p = 2 / C(10, 5) (exact permutation test, by hand), 2 reps cannot
 * (smallest p 1/3); a run marked incomplete is in no statistic.
 */
static int
test_summary_statistics(void)
{
	struct fixture_conf conf = { .host = "h", .scale = 1, .reps = 5 };
	struct rxr_report *r = fixture_report(&conf);
	json_t *doc = rxr_report_json(r), *sum, *vs, *ci, *g;

	sum = json_object_get(doc, "summary");
	g = json_object_get(json_array_get(sum, 0), "gbps");
	/* zone: 30 * (1, 1.02, 1.04, 1.06, 1.08) Gbit/s. */
	RXR_TEST_ASSERT(json_integer_value(json_object_get(g, "n")) == 5 &&
		NEAR(json_number_value(json_object_get(g, "mean")), 31.2) &&
		NEAR(json_number_value(json_object_get(g, "stdev")),
			30 * 0.02 * sqrt(2.5)), "zone gbps n/mean/stdev");
	ci = json_object_get(g, "ci95");
	RXR_TEST_ASSERT(json_number_value(json_array_get(ci, 0)) < 31.2 &&
		json_number_value(json_array_get(ci, 1)) > 31.2, "ci95");
	RXR_TEST_ASSERT(vs_first(sum, 0, "gbps") == NULL, "first has vs_first");
	vs = vs_first(sum, 1, "gbps");
	RXR_TEST_ASSERT(NEAR(json_number_value(json_object_get(vs, "p")),
		2.0 / 252) && json_is_true(json_object_get(vs, "significant")) &&
		NEAR(json_number_value(json_object_get(vs, "delta_pct")), 200.0),
		"bh vs zone: p %g", json_number_value(json_object_get(vs, "p")));
	RXR_TEST_ASSERT(NEAR(json_number_value(json_object_get(json_object_get(
		doc, "statistics"), "alpha")), 0.05), "alpha");
	/* A stricter alpha than the p: not significant any more. */
	RXR_TEST_ASSERT(rxrr_set_alpha(r, 0.005) == 0, "set alpha");
	sum = json_object_get(rxr_report_json(r), "summary");
	RXR_TEST_ASSERT(json_is_false(json_object_get(vs_first(sum, 1, "gbps"),
		"significant")), "alpha 0.005");
	RXR_TEST_ASSERT(rxrr_set_alpha(r, 1.5) == -EINVAL, "alpha 1.5");
	/* Incomplete runs: kept in runs[], left out of the statistics. */
	json_object_set_new(json_array_get(json_object_get(doc, "runs"), 2),
		"complete", json_false());
	rxrr_summarize(r);
	sum = json_object_get(doc, "summary");
	RXR_TEST_ASSERT_EQ(json_integer_value(json_object_get(json_array_get(
		sum, 0), "reps")), 4, "incomplete run counted");
	rxr_report_free(r);

	/* Bulk off against bulk on of the same strategy: vs_bulk. */
	conf.with_nobulk = true;
	r = fixture_report(&conf);
	sum = json_object_get(rxr_report_json(r), "summary");
	vs = json_object_get(json_object_get(json_array_get(sum, 2), "gbps"),
		"vs_bulk");
	RXR_TEST_ASSERT(!json_is_true(json_object_get(json_array_get(sum, 2),
		"bulk")) && vs != NULL && json_is_number(json_object_get(vs, "p")),
		"bh-nobulk has no vs_bulk");
	RXR_TEST_ASSERT(vs_first(sum, 1, "gbps") != NULL &&
		json_object_get(json_object_get(json_array_get(sum, 1), "gbps"),
		"vs_bulk") == NULL, "a bulk entry has vs_bulk");
	{
		struct capture c;
		char *text;

		rxr_report_render_text(r, cap_open(&c), NULL);
		text = cap_close(&c);
		RXR_TEST_ASSERT(strstr(text, "  bh-nobulk: ") != NULL &&
			strstr(strstr(text, "  bh-nobulk: "), "bh-bulk") != NULL,
			"no bulk pair line:\n%s", text);
		free(text);
	}
	rxr_report_free(r);
	conf.with_nobulk = false;

	conf.reps = 2;
	r = fixture_report(&conf);
	sum = json_object_get(rxr_report_json(r), "summary");
	vs = vs_first(sum, 1, "gbps");
	RXR_TEST_ASSERT(NEAR(json_number_value(json_object_get(vs, "p")),
		1.0 / 3) && json_is_false(json_object_get(vs, "significant")),
		"2 reps: p %g", json_number_value(json_object_get(vs, "p")));
	rxr_report_free(r);
	return 0;
}

/* Mutate a valid report and expect a message naming the field. */
static int
expect_invalid(json_t *doc, const char *needle)
{
	char err[RXR_REPORT_ERR_LEN] = "";
	int ret = rxr_report_validate(doc, "x.json", err, sizeof(err));

	json_decref(doc);
	RXR_TEST_ASSERT(ret == -EINVAL, "accepted, expected \"%s\"", needle);
	RXR_TEST_ASSERT(strncmp(err, "x.json: ", 8) == 0 &&
		strstr(err, needle) != NULL, "message \"%s\" lacks \"%s\"",
		err, needle);
	return 0;
}

static int
test_validate(void)
{
	struct fixture_conf conf = { .host = "h", .scale = 1, .reps = 1,
		.with_recycle = true };
	struct rxr_report *r = fixture_report(&conf);
	const json_t *good = rxr_report_json(r);
	char err[RXR_REPORT_ERR_LEN];
	json_t *d, *run;

	RXR_TEST_ASSERT(rxr_report_validate(good, "x", err, sizeof(err)) == 0,
		"fixture: %s", err);
#define RUN(doc, i) json_array_get(json_object_get(doc, "runs"), i)
	d = json_deep_copy(good);
	json_object_del(json_object_get(RUN(d, 0), "pcp"), "hits");
	if (expect_invalid(d, "runs[0].pcp.hits: missing"))
		return -1;
	d = json_deep_copy(good);
	json_object_set_new(RUN(d, 1), "gbps", json_string("fast"));
	if (expect_invalid(d, "runs[1].gbps: expected a number >= 0 or null, "
			"found a string"))
		return -1;
	d = json_deep_copy(good);
	json_object_set_new(RUN(d, 0), "rx_packets", json_integer(-1));
	if (expect_invalid(d, "runs[0].rx_packets: expected an integer >= 0"))
		return -1;
	d = json_deep_copy(good);
	json_object_set_new(d, "schema", json_string("rxrefill-report/2"));
	if (expect_invalid(d, "schema \"rxrefill-report/2\" is not supported"))
		return -1;
	d = json_deep_copy(good);
	json_object_del(d, "schema");
	if (expect_invalid(d, "no \"schema\" field"))
		return -1;
	/* How the summary was computed: an object, alpha a level. */
	d = json_deep_copy(good);
	json_object_set_new(d, "statistics", json_string("x"));
	if (expect_invalid(d, "statistics: expected an object"))
		return -1;
	d = json_deep_copy(good);
	json_object_set_new(d, "statistics", json_pack("{s:f}", "alpha", 5.0));
	if (expect_invalid(d, "statistics.alpha: 5 is not a significance"))
		return -1;
	d = json_deep_copy(good);
	json_object_set_new(d, "statistics", json_pack("{s:i}", "ci95", 1));
	if (expect_invalid(d, "statistics.ci95: expected a string"))
		return -1;
	d = json_deep_copy(good);
	json_object_set_new(json_object_get(d, "env"), "memory",
		json_string("lots"));
	if (expect_invalid(d, "env.memory"))
		return -1;
	d = json_deep_copy(good);
	json_object_del(d, "env");
	if (expect_invalid(d, "env: missing"))
		return -1;
	d = json_deep_copy(good);
	run = json_array_get(json_object_get(json_object_get(RUN(d, 0),
		"refill_latency_hist"), "buckets"), 0);
	json_object_set_new(run, "lo", json_integer(3));
	json_object_set_new(run, "hi", json_integer(6));
	if (expect_invalid(d, "[3, 6) is not a log2 bucket"))
		return -1;
	d = json_deep_copy(good);
	run = json_object_get(json_object_get(RUN(d, 0), "refill_latency_hist"),
		"buckets");
	json_array_append(run, json_array_get(run, 0));
	if (expect_invalid(d, "listed twice"))
		return -1;
	d = json_deep_copy(good);
	json_object_set_new(json_array_get(json_object_get(RUN(d, 2),
		"streams"), 1), "dport", json_integer(70000));
	if (expect_invalid(d, "runs[2].streams[1]"))
		return -1;
	d = json_deep_copy(good);
	json_object_set_new(json_object_get(RUN(d, 2), "strategy_counters"),
		"alloc_fast", json_real(1.5));
	if (expect_invalid(d, "runs[2].strategy_counters.alloc_fast"))
		return -1;
	/* Older reports carry recycle's counters as recycle{}: still read,
	 * still checked. */
	d = json_deep_copy(good);
	json_object_set_new(RUN(d, 2), "recycle", json_pack("{s:i}",
		"alloc_fast", 5));
	RXR_TEST_ASSERT(rxr_report_validate(d, "x", err, sizeof(err)) == 0,
		"an older report's recycle{}: %s", err);
	json_object_set_new(json_object_get(RUN(d, 2), "recycle"),
		"alloc_fast", json_real(1.5));
	if (expect_invalid(d, "runs[2].recycle.alloc_fast"))
		return -1;
	d = json_deep_copy(good);
	json_object_set_new(RUN(d, 1), "streams_counted_by_poll",
		json_integer(-3));
	if (expect_invalid(d, "runs[1].streams_counted_by_poll: expected an "
			"integer >= 0"))
		return -1;
	d = json_deep_copy(good);
	json_array_set_new(json_object_get(d, "runs"), 0, json_true());
	if (expect_invalid(d, "runs[0]: expected an object, found true"))
		return -1;
	if (expect_invalid(json_array(), "an array, not an rxrefill report"))
		return -1;
#undef RUN
	rxr_report_free(r);
	return 0;
}

static int
test_load_errors(void)
{
	static const char malformed[] =
		"{\n  \"schema\": \"rxrefill-report/1\",\n  oops\n}\n";
	static const char dup[] =
		"{\"schema\": \"rxrefill-report/1\", \"schema\": \"x\"}";
	char err[RXR_REPORT_ERR_LEN];

	RXR_TEST_ASSERT(fixture_load_buffer("", 0, "e.json", err,
		sizeof(err)) == NULL && !strcmp(err,
		"e.json: empty file, not a report"), "empty: %s", err);
	RXR_TEST_ASSERT(fixture_load_buffer(malformed, strlen(malformed),
		"m.json", err, sizeof(err)) == NULL &&
		strncmp(err, "m.json:3:", 9) == 0 &&
		strstr(err, "malformed JSON") != NULL,
		"malformed: %s", err);
	RXR_TEST_ASSERT(fixture_load_buffer(dup, strlen(dup), "d.json", err,
		sizeof(err)) == NULL && strstr(err, "duplicate") != NULL,
		"duplicate key: %s", err);
	RXR_TEST_ASSERT(rxr_report_load("/nonexistent/r.json", err,
		sizeof(err)) == NULL && !strcmp(err,
		"/nonexistent/r.json: No such file or directory"),
		"missing file: %s", err);
	RXR_TEST_ASSERT(rxr_report_load("/", err, sizeof(err)) == NULL &&
		strstr(err, "is a directory, not a regular file") != NULL,
		"directory: %s", err);
	return 0;
}

static char *
render(const struct rxr_report *r, const struct rxr_report_select *sel)
{
	struct capture c;

	if (cap_open(&c) == NULL)
		return NULL;
	if (rxr_report_render_text(r, c.f, sel) != 0) {
		free(cap_close(&c));
		return NULL;
	}
	return cap_close(&c);
}

static int
test_render_golden(void)
{
	struct fixture_conf conf = { .host = "hostA", .scale = 1, .reps = 2 };
	struct rxr_report *r = fixture_report(&conf);
	char *text = render(r, NULL);
	int ret;

	RXR_TEST_ASSERT(text != NULL, "render");
	ret = check_golden("report.txt", text);
	free(text);
	rxr_report_free(r);
	return ret;
}

/*
 * The brief table: every configuration a row, every deciding metric a
 * column, no line past 120 columns, and no "n.s." on a column of zeros.
 */
static int
test_render_brief(void)
{
	static const char *const want[] = {
		"Gbit/s", "Mpps", "refill cyc/frame", "alloc cyc/pkt", "drops",
		"zone wait", "\nzone-bulk ", "\nbh-bulk ", "\nrecycle-bulk ",
		"\nbh-nobulk ", "n.s.",
	};
	struct fixture_conf conf = { .host = "hostA", .scale = 1, .reps = 2,
		.with_recycle = true, .with_nobulk = true };
	struct rxr_report *r = fixture_report(&conf);
	struct capture c;
	const char *line;
	char *text;
	size_t i;

	RXR_TEST_ASSERT(cap_open(&c) != NULL, "capture");
	RXR_TEST_ASSERT_EQ(rxr_report_render_brief(r, c.f), 0, "render");
	text = cap_close(&c);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		RXR_TEST_ASSERT(strstr(text, want[i]) != NULL, "no '%s' in\n%s",
			want[i], text);
	for (line = text; *line != '\0'; ) {
		size_t n = strcspn(line, "\n");

		RXR_TEST_ASSERT(n <= 120, "%zu columns: %.*s", n, (int)n, line);
		line += n + (line[n] == '\n');
	}
	free(text);
	rxr_report_free(r);
	return 0;
}

static int
test_compare_golden(void)
{
	static const char *const metrics[] = {
		"gbps", "cycles_per_packet", "drops", "refill_latency_hist",
		"streams.packets",
	};
	struct rxr_report_select sel = { metrics, 5 };
	struct fixture_conf ca = { .host = "hostA", .scale = 1, .reps = 2,
		.with_recycle = true };
	struct fixture_conf cb = { .host = "hostB", .scale = 1.1, .reps = 1,
		.with_nobulk = true, .partial = true };
	struct rxr_report *r[2] = { fixture_report(&ca), fixture_report(&cb) };
	static const char *const labels[] = { "monday", "tuesday" };
	struct capture c;
	char *text;
	int ret;

	RXR_TEST_ASSERT(cap_open(&c) != NULL, "memstream");
	ret = rxr_report_compare_text(r, labels, 2, c.f, &sel);
	text = cap_close(&c);
	RXR_TEST_ASSERT(ret == 0, "compare_text: %d", ret);
	ret = check_golden("compare.txt", text);
	free(text);
	rxr_report_free(r[0]);
	rxr_report_free(r[1]);
	return ret;
}

/* A report with one run whose histogram spans [0] .. [1M, 2M). */
static int
test_hist_shape(void)
{
	struct rxr_report *r = env_report();
	struct rxr_report_run a = { .strategy = "zone", .duration_s = 1 };
	struct rxr_report_run b = { .strategy = "bh", .duration_s = 1 };
	static const char *const only_hist[] = { "refill_latency_hist" };
	struct rxr_report_select sel = { only_hist, 1 };
	char *text, *p;

	a.refill_latency_ns[0] = 100;		/* 1% */
	a.refill_latency_ns[1] = 5000;		/* 50% */
	a.refill_latency_ns[2] = 4889;		/* 48.89% */
	a.refill_latency_ns[11] = 10;		/* [1K, 2K) 0.1% */
	a.refill_latency_ns[21] = 1;		/* [1M, 2M) 0.01% */
	b.refill_latency_ns[rxrr_hist_index(3)] = 3;	/* [2, 4) */
	b.refill_latency_ns[rxrr_hist_index(UINT64_MAX)] = 1;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &a, NULL, 0) == 0 &&
		rxr_report_add_run(r, &b, NULL, 0) == 0, "add");
	text = render(r, &sel);
	RXR_TEST_ASSERT(text != NULL, "render");
	/* The table is not selected: the histogram comes right after. */
	p = strstr(text, "\n\n");
	RXR_TEST_ASSERT(p != NULL && strstr(text, "Median") == NULL,
		"only the histogram was asked for:\n%s", text);
	p += 2;
	/* 003's shape: header row, map name, one row per bucket, trimmed. */
#define LINE(want) do { \
	size_t n_ = strcspn(p, "\n"); \
	RXR_TEST_ASSERT(strlen(want) == n_ && !strncmp(p, want, n_), \
		"line \"%.*s\", expected \"%s\"", (int)n_, p, want); \
	p += n_ + 1; \
} while (0)
	LINE("                zone-nobulk    bh-nobulk");
	LINE("@refill_ns:");
	LINE("[0]             1.00%          0.00%");
	LINE("[1]             50.00%         0.00%");
	LINE("[2, 4)          48.89%         75.00%");
	LINE("[4, 8)          0.00%          0.00%");
	p = strstr(p, "[512, 1K)");
	RXR_TEST_ASSERT(p != NULL, "[512, 1K) row");
	LINE("[512, 1K)       0.00%          0.00%");
	LINE("[1K, 2K)        0.10%          0.00%");
	p = strstr(p, "[1M, 2M)");
	RXR_TEST_ASSERT(p != NULL, "[1M, 2M) row");
	LINE("[1M, 2M)        < 0.1%         0.00%");
	p = strstr(p, "[32T, 64T)");
	RXR_TEST_ASSERT(p != NULL, "[32T, 64T) row");
	LINE("[32T, 64T)      0.00%          0.00%");
	LINE("[64T, 128T)     0.00%          25.00%");
	RXR_TEST_ASSERT(*p == '\0', "rows past the last populated bucket: %s",
		p);
#undef LINE
	free(text);
	rxr_report_free(r);
	return 0;
}

static int
test_select(void)
{
	static const char *const known[] = {
		"gbps", "gbps_wire", "mpps", "cycles_per_packet",
		"refill_cycles_per_frame", "pcp", "pcp.hit_rate", "zone_lock",
		"zone_lock.wait_share", "drops", "drops.rx_out_of_buffer",
		"recycle", "recycle.alloc_waive", "strategy_counters.alloc_fast",
		"deferred.drained", "zeroing",
		"streams", "streams.bytes", "refill_latency_hist",
	};
	static const char *const unknown[] = {
		"", "gbp", "drops.", "pcp.hits", "recycle.", "deferred.nope",
		"strategy_counters.", "Gbps",
	};
	static const char *const pick[] = { "mpps", "drops" };
	struct rxr_report_select sel = { pick, 2 };
	struct fixture_conf conf = { .host = "h", .scale = 1, .reps = 1 };
	struct rxr_report *r;
	char *text;
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		RXR_TEST_ASSERT(rxr_report_metric_known(known[i]),
			"\"%s\" should be known", known[i]);
	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		RXR_TEST_ASSERT(!rxr_report_metric_known(unknown[i]),
			"\"%s\" should be unknown", unknown[i]);
	r = fixture_report(&conf);
	text = render(r, &sel);
	RXR_TEST_ASSERT(text != NULL, "render");
	RXR_TEST_ASSERT(strstr(text, "Median   mpps") != NULL &&
		strstr(text, "Median   drops.imissed") != NULL &&
		strstr(text, "Median   drops.rx_nombuf") != NULL &&
		strstr(text, "gbps ") == NULL && strstr(text, "@refill") == NULL &&
		strstr(text, "streams") == NULL, "selection:\n%s", text);
	free(text);
	rxr_report_free(r);
	return 0;
}

static int
test_compare_json(void)
{
	struct fixture_conf ca = { .host = "a", .scale = 1, .reps = 1,
		.with_recycle = true };
	struct fixture_conf cb = { .host = "b", .scale = 0.5, .reps = 1 };
	struct rxr_report *r[2] = { fixture_report(&ca), fixture_report(&cb) };
	static const char *const labels[] = { "a", "b" };
	json_t *doc = rxr_report_compare_json(r, labels, 2, NULL);
	json_t *row;
	bool seen_missing = false, seen_gbps = false;
	size_t i;

	RXR_TEST_ASSERT(doc != NULL, "compare_json");
	RXR_TEST_ASSERT(!strcmp(json_string_value(json_object_get(doc,
		"schema")), RXR_REPORT_COMPARE_SCHEMA), "schema");
	RXR_TEST_ASSERT_EQ(json_array_size(json_object_get(doc, "reports")), 2,
		"reports");
	json_array_foreach(json_object_get(doc, "rows"), i, row) {
		json_t *v = json_object_get(row, "values");
		json_t *d = json_object_get(row, "delta_pct");
		const char *cfg = json_string_value(json_object_get(row,
				"config"));
		const char *metric = json_string_value(json_object_get(row,
				"metric"));

		RXR_TEST_ASSERT(json_array_size(v) == 2 &&
			json_array_size(d) == 2, "row %zu arrays", i);
		if (!strcmp(cfg, "recycle-bulk"))
			seen_missing |= json_is_null(json_array_get(v, 1));
		if (!strcmp(cfg, "zone-bulk") && !strcmp(metric, "gbps")) {
			seen_gbps = true;
			/* Half the packets: -50% for a rate. */
			RXR_TEST_ASSERT(NEAR(json_real_value(json_array_get(d,
				1)), -50.0) && json_real_value(
				json_array_get(d, 0)) == 0.0, "gbps delta");
			RXR_TEST_ASSERT(!strcmp(json_string_value(
				json_object_get(row, "better")), "higher") &&
				!strcmp(json_string_value(json_object_get(row,
				"stat")), "median"), "gbps row");
		}
	}
	RXR_TEST_ASSERT(seen_missing, "recycle missing in b must be null");
	RXR_TEST_ASSERT(seen_gbps, "zone-bulk gbps row");
	RXR_TEST_ASSERT(json_array_size(json_object_get(doc, "histograms")) == 3,
		"one histogram per config");
	json_decref(doc);
	rxr_report_free(r[0]);
	rxr_report_free(r[1]);
	return 0;
}

/* Control characters from a file must not reach the terminal. */
static int
test_render_sanitizes(void)
{
	struct rxr_report *r = env_report();
	struct rxr_report_run run = { .strategy = "bad\033[2Jname",
		.duration_s = 1 };
	char *text;

	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, NULL, 0) == 0, "add");
	text = render(r, NULL);
	RXR_TEST_ASSERT(text != NULL && strchr(text, '\033') == NULL &&
		strstr(text, "bad?[2Jname-nobulk") != NULL, "escape printed");
	free(text);
	rxr_report_free(r);
	return 0;
}

static int
test_write_errors(void)
{
	struct fixture_conf conf = { .host = "h", .scale = 1, .reps = 1 };
	struct rxr_report *r = fixture_report(&conf);
	struct rxr_report *bare = rxr_report_create();
	char dir[] = "/tmp/rxr_report_unit.XXXXXX", path[64];
	char err[RXR_REPORT_ERR_LEN];

	RXR_TEST_ASSERT(rxr_report_write_atomic(r, "/nonexistent/dir/r.json",
		err, sizeof(err)) == -ENOENT, "missing directory");
	RXR_TEST_ASSERT(strstr(err, "/nonexistent/dir/r.json") != NULL &&
		strstr(err, "No such file or directory") != NULL,
		"message: %s", err);
	RXR_TEST_ASSERT(rxr_report_write_atomic(r, "/tmp/", err,
		sizeof(err)) == -EINVAL, "directory as target");
	/* Never write what could not be loaded back. */
	RXR_TEST_ASSERT(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/never.json", dir);
	RXR_TEST_ASSERT(rxr_report_write_atomic(bare, path, err,
		sizeof(err)) == -EINVAL && strstr(err, "env.") != NULL,
		"incomplete report written: %s", err);
	RXR_TEST_ASSERT(access(path, F_OK) != 0, "file created");
	RXR_TEST_ASSERT(rmdir(dir) == 0, "directory not empty: %s",
		strerror(errno));
	rxr_report_free(bare);
	rxr_report_free(r);
	return 0;
}

static int
test_write_roundtrip(void)
{
	struct fixture_conf conf = { .host = "h", .scale = 1, .reps = 2,
		.with_recycle = true, .with_nobulk = true };
	struct rxr_report *r = fixture_report(&conf), *back;
	char dir[] = "/tmp/rxr_report_unit.XXXXXX", path[64];
	char err[RXR_REPORT_ERR_LEN];
	char *before, *after;
	struct stat st;

	RXR_TEST_ASSERT(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	RXR_TEST_ASSERT(rxr_report_write_atomic(r, path, err, sizeof(err)) == 0,
		"write: %s", err);
	RXR_TEST_ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
		"new report mode %o", st.st_mode & 0777);
	/* A replaced report keeps its mode. */
	chmod(path, 0640);
	RXR_TEST_ASSERT(rxr_report_write_atomic(r, path, err, sizeof(err)) == 0,
		"rewrite: %s", err);
	RXR_TEST_ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640,
		"mode not kept: %o", st.st_mode & 0777);
	back = rxr_report_load(path, err, sizeof(err));
	RXR_TEST_ASSERT(back != NULL, "load: %s", err);
	/* What was saved reads back as the same tables. */
	before = render(r, NULL);
	after = render(back, NULL);
	RXR_TEST_ASSERT(before != NULL && after != NULL &&
		strcmp(before, after) == 0, "render differs after a round trip");
	free(before);
	free(after);
	rxr_report_free(back);
	rxr_report_free(r);
	unlink(path);
	rmdir(dir);
	return 0;
}

/* A cut-short run is recorded, marked, and counted nowhere. */
static int
test_cut_short(void)
{
	struct fixture_conf conf = { .host = "h", .scale = 1, .reps = 2 };
	struct rxr_report *r = fixture_report(&conf);
	struct rxr_report_run run = {
		.strategy = "zone", .bulk = true, .rep = 2, .duration_s = 0.0019,
		.rx_packets = 19872, .rx_bytes = 19872 * 1500,
	};
	json_t *doc = rxr_report_json(r), *sum, *last, *bad;
	char err[RXR_REPORT_ERR_LEN];
	char *text;

	run.cut_short = "SIGINT";
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) == 0,
		"add: %s", err);
	last = json_array_get(json_object_get(doc, "runs"), 4);
	RXR_TEST_ASSERT(json_is_false(json_object_get(last, "complete")) &&
		!strcmp(json_string_value(json_object_get(last, "cut_short")),
			"SIGINT"), "marked");
	RXR_TEST_ASSERT(json_is_true(json_object_get(json_array_get(
		json_object_get(doc, "runs"), 0), "complete")), "whole run");
	RXR_TEST_ASSERT_EQ(rxr_report_nb_runs(r), 5, "kept in runs");
	RXR_TEST_ASSERT_EQ(rxr_report_nb_cut_short(r), 1, "counted apart");
	/* zone's summary: the two whole runs, its figures unchanged. */
	sum = json_object_get(doc, "summary");
	RXR_TEST_ASSERT_EQ(json_integer_value(json_object_get(
		json_array_get(sum, 0), "reps")), 2, "summary reps");
	RXR_TEST_ASSERT(NEAR(sum_stat(sum, 0, "gbps", "min"), 30.0),
		"summary min %g", sum_stat(sum, 0, "gbps", "min"));
	text = render(r, NULL);
	RXR_TEST_ASSERT(text != NULL && strstr(text, "cut short, not counted: "
		"zone-bulk rep 3 (SIGINT, 0.002 s measured)") != NULL,
		"table: %s", text != NULL ? text : "");
	free(text);
	/* A reason is required, and only on a run marked cut short. */
	run.rep = 3;
	run.cut_short = "";
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL, "empty reason accepted");
	bad = json_deep_copy(doc);
	json_object_del(json_array_get(json_object_get(bad, "runs"), 4),
		"cut_short");
	if (expect_invalid(bad, "runs[4].cut_short: missing"))
		return -1;
	bad = json_deep_copy(doc);
	json_object_set_new(json_array_get(json_object_get(bad, "runs"), 0),
		"cut_short", json_string("SIGTERM"));
	if (expect_invalid(bad, "runs[0].cut_short: on a run not marked"))
		return -1;
	rxr_report_free(r);
	return 0;
}

/*
 * A disturbed run is recorded with its causes and noise; it counts in the
 * summary unless env.options.disturbed is "exclude".
 */
static int
test_disturbed(void)
{
	struct fixture_conf conf = { .host = "h", .scale = 1, .reps = 2 };
	struct rxr_report *r = fixture_report(&conf);
	static const struct rxr_report_noise_cpu cpus[] = { { 1, 0.25 } };
	static const struct rxr_report_noise_lcore lcores[] = {
		{ .lcore = 1, .tid = 77, .own_cpu = true,
		  .nonvoluntary_ctxt_switches = 9, .migrations = 1,
		  .runqueue_wait_share = 0.125 },
	};
	static const struct rxr_report_noise_task tasks[] = {
		{ .pid = 5, .comm = "cc1", .cpu = 1, .cpu_share = 0.5 },
	};
	struct rxr_report_run run = {
		.strategy = "zone", .bulk = true, .rep = 2, .duration_s = 3.0,
		.rx_packets = 1000, .rx_bytes = 1000 * 1500, .has_noise = true,
		.noise = { .asked_s = 2.0, .cpus = cpus, .nb_cpus = 1,
			.lcores = lcores, .nb_lcores = 1, .busy_tasks = tasks,
			.nb_busy_tasks = 1,
			.disturbed = RXR_REPORT_DISTURBED_DURATION |
				RXR_REPORT_DISTURBED_STEAL },
	};
	json_t *doc = rxr_report_json(r), *last, *noise, *bad;
	char err[RXR_REPORT_ERR_LEN];
	char *text;

	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) == 0,
		"add: %s", err);
	last = json_array_get(json_object_get(doc, "runs"), 4);
	noise = json_object_get(last, "noise");
	RXR_TEST_ASSERT(json_is_true(json_object_get(last, "disturbed")) &&
		json_array_size(json_object_get(last, "disturbed_by")) == 2 &&
		!strcmp(json_string_value(json_array_get(json_object_get(last,
			"disturbed_by"), 0)), "duration") &&
		!strcmp(json_string_value(json_array_get(json_object_get(last,
			"disturbed_by"), 1)), "steal"), "causes");
	RXR_TEST_ASSERT(NEAR(json_number_value(json_object_get(noise,
		"duration_excess")), 0.5) && NEAR(json_number_value(
		json_object_get(noise, "steal_share_max")), 0.25) &&
		json_integer_value(json_object_get(noise,
			"nonvoluntary_ctxt_switches")) == 9 &&
		json_integer_value(json_object_get(noise, "migrations")) == 1 &&
		json_array_size(json_object_get(noise, "busy_tasks")) == 1,
		"noise figures");
	RXR_TEST_ASSERT(json_object_get(json_array_get(json_object_get(doc,
		"runs"), 0), "disturbed") == NULL, "no record, no mark");
	/* Counted by default: zone has three runs in its summary. */
	RXR_TEST_ASSERT_EQ(json_integer_value(json_object_get(json_array_get(
		json_object_get(rxr_report_json(r), "summary"), 0), "reps")), 3,
		"counted reps");
	text = rxr_test_unwrap(render(r, NULL));
	/* Repetitions are counted from 1 on screen: rep 2 is the third. */
	RXR_TEST_ASSERT(text != NULL && strstr(text, "disturbed, counted: "
		"zone-bulk rep 3 (duration+steal; 3.000 s measured of 2.000 s, "
		"steal 25.0%, 9 involuntary switches, waiting for a CPU 12.5% of "
		"the time)") != NULL &&
		strstr(text, "noise: 1 of 1 repetitions disturbed, counted in "
		"the figures (--disturbed count)") != NULL, "table: %s",
		text != NULL ? text : "");
	free(text);
	/* Excluded: left out of the summary, and the table says so. */
	RXR_TEST_ASSERT(rxr_report_set_option_str(r, "disturbed", "exclude") ==
		0 && rxrr_summarize(r) == 0, "exclude");
	RXR_TEST_ASSERT_EQ(json_integer_value(json_object_get(json_array_get(
		json_object_get(doc, "summary"), 0), "reps")), 2, "excluded reps");
	text = rxr_test_unwrap(render(r, NULL));
	RXR_TEST_ASSERT(text != NULL && strstr(text, "disturbed, not counted: "
		"zone-bulk rep 3") != NULL && strstr(text, "left out of the "
		"figures (--disturbed exclude)") != NULL, "table: %s",
		text != NULL ? text : "");
	free(text);
	/* Causes name a known cause and go with the mark. */
	bad = json_deep_copy(doc);
	json_array_set_new(json_object_get(json_array_get(json_object_get(bad,
		"runs"), 4), "disturbed_by"), 0, json_string("cosmic rays"));
	if (expect_invalid(bad, "runs[4].disturbed_by[0]: not duration"))
		return -1;
	bad = json_deep_copy(doc);
	json_object_set_new(json_array_get(json_object_get(bad, "runs"), 4),
		"disturbed", json_false());
	if (expect_invalid(bad, "runs[4].disturbed_by: causes on a run not "
			"disturbed"))
		return -1;
	bad = json_deep_copy(doc);
	json_object_del(json_array_get(json_object_get(bad, "runs"), 4),
		"noise");
	if (expect_invalid(bad, "runs[4].noise: missing"))
		return -1;
	bad = json_deep_copy(doc);
	json_object_set_new(json_array_get(json_object_get(json_object_get(
		json_array_get(json_object_get(bad, "runs"), 4), "noise"),
		"lcores"), 0), "migrations", json_integer(-1));
	if (expect_invalid(bad, "runs[4].noise.lcores[0].migrations"))
		return -1;
	/* Unknown cause bits are refused when building. */
	run.rep = 3;
	run.noise.disturbed = 1u << RXR_REPORT_DISTURBED_CAUSES;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, err, sizeof(err)) ==
		-EINVAL, "unknown cause accepted");
	rxr_report_free(r);
	return 0;
}

/* Decimal only, and the paths every program checks. */
static int
test_paths(void)
{
	char dir[] = "/tmp/rxr_report_unit.XXXXXX", p[96], q[96], r[160];
	char err[RXR_REPORT_ERR_LEN];
	const char *in[1];
	uint64_t v;
	FILE *f;

	RXR_TEST_ASSERT(rxr_parse_decimal("010", 0, 100, &v) == 0 && v == 10,
		"010 is ten");
	RXR_TEST_ASSERT(rxr_parse_decimal("0x10", 0, 100, &v) == -EINVAL &&
		rxr_parse_decimal("+1", 0, 100, &v) == -EINVAL &&
		rxr_parse_decimal(" 1", 0, 100, &v) == -EINVAL &&
		rxr_parse_decimal("", 0, 100, &v) == -EINVAL, "not decimal");
	RXR_TEST_ASSERT(rxr_parse_decimal("101", 0, 100, &v) == -ERANGE &&
		rxr_parse_decimal("99999999999999999999", 0, UINT64_MAX,
			&v) == -ERANGE, "range");
	RXR_TEST_ASSERT(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(p, sizeof(p), "%s/fifo", dir);
	RXR_TEST_ASSERT(mkfifo(p, 0600) == 0, "mkfifo");
	RXR_TEST_ASSERT(rxr_path_check_input("--x", p, err, sizeof(err)) != 0 &&
		strstr(err, "is a FIFO") != NULL, "fifo input: %s", err);
	RXR_TEST_ASSERT(rxr_path_check_output("--y", p, NULL, 0, 0, err,
		sizeof(err)) != 0 && strstr(err, "refusing to replace") != NULL,
		"fifo output: %s", err);
	RXR_TEST_ASSERT(rxr_path_check_input("--x", dir, err, sizeof(err)) ==
		-EISDIR, "dir input");
	RXR_TEST_ASSERT(rxr_path_check_output("--y", dir, NULL, 0, 0, err,
		sizeof(err)) == -EISDIR, "dir output");
	unlink(p);
	snprintf(p, sizeof(p), "%s/in", dir);
	snprintf(q, sizeof(q), "%s/link", dir);
	f = fopen(p, "w");
	RXR_TEST_ASSERT(f != NULL && fclose(f) == 0, "create");
	RXR_TEST_ASSERT(link(p, q) == 0, "link");
	in[0] = p;
	RXR_TEST_ASSERT(rxr_path_check_output("--y", q, in, 1, 0, err,
		sizeof(err)) == -EEXIST && strstr(err, "is also the input"),
		"same inode: %s", err);
	unlink(q);
	/* The input named through a symbolic link, the output that link. */
	RXR_TEST_ASSERT(symlink(p, q) == 0, "symlink");
	in[0] = q;
	RXR_TEST_ASSERT(rxr_path_check_output("--y", q, in, 1, 0, err,
		sizeof(err)) == -EEXIST &&
		strstr(err, "symbolic link to the input") != NULL,
		"the input's link: %s", err);
	in[0] = p;
	RXR_TEST_ASSERT(rxr_path_check_output("--y", q, in, 1, 0, err,
		sizeof(err)) == -EEXIST &&
		strstr(err, "symbolic link to the input") != NULL,
		"a link to the input: %s", err);
	unlink(q);
	RXR_TEST_ASSERT(rxr_path_check_output("--y", q, in, 1, 0, err,
		sizeof(err)) == 0, "new file: %s", err);
	/* One output under two spellings, before and after it exists. */
	snprintf(r, sizeof(r), "%s/../%s/./link", dir, strrchr(dir, '/') + 1);
	RXR_TEST_ASSERT(rxr_path_same(q, r), "%s is %s", r, q);
	RXR_TEST_ASSERT(!rxr_path_same(q, p), "%s is not %s", q, p);
	RXR_TEST_ASSERT(link(p, q) == 0, "link");
	RXR_TEST_ASSERT(rxr_path_same(q, p), "a hard link is the file");
	unlink(q);
	RXR_TEST_ASSERT(rxr_path_check_output("--y", q, in, 1, UINT64_MAX,
		err, sizeof(err)) == -ENOSPC, "free space");
	RXR_TEST_ASSERT(rxr_path_check_output("--y", "-", in, 1, UINT64_MAX,
		err, sizeof(err)) == 0, "stdout");
	unlink(p);
	rmdir(dir);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		srcdir = argv[1];
	rxr_test_run("hist_index", test_hist_index);
	rxr_test_run("schedule", test_schedule);
	rxr_test_run("builder_derived", test_builder_derived);
	rxr_test_run("builder_unmeasured", test_builder_unmeasured);
	rxr_test_run("builder_fairness", test_builder_fairness);
	rxr_test_run("builder_rejects", test_builder_rejects);
	rxr_test_run("env", test_env);
	rxr_test_run("created", test_created);
	rxr_test_run("summary_interleaved", test_summary_interleaved);
	rxr_test_run("summary_statistics", test_summary_statistics);
	rxr_test_run("validate", test_validate);
	rxr_test_run("load_errors", test_load_errors);
	rxr_test_run("render_golden", test_render_golden);
	rxr_test_run("render_brief", test_render_brief);
	rxr_test_run("compare_golden", test_compare_golden);
	rxr_test_run("hist_shape", test_hist_shape);
	rxr_test_run("select", test_select);
	rxr_test_run("compare_json", test_compare_json);
	rxr_test_run("render_sanitizes", test_render_sanitizes);
	rxr_test_run("write_errors", test_write_errors);
	rxr_test_run("write_roundtrip", test_write_roundtrip);
	rxr_test_run("cut_short", test_cut_short);
	rxr_test_run("disturbed", test_disturbed);
	rxr_test_run("paths", test_paths);
	return rxr_test_done();
}
