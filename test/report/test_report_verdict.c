/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The verdict of lib/report: comparisons paired over the rounds the
 * configurations ran in, the findings under the table, significance marks
 * on tested rows only, --reps auto's stopping rule, compare's "cannot
 * decide", workload warnings and the exports of the ratios.
 *
 * The data are made here, round by round, with a block effect: each
 * round's level is the machine's mood (bimodal, about 5 or 12 Gbit/s, as
 * on the shared 2-vCPU VM of issue 20), and a configuration is a fixed
 * factor of the round's level with a little noise of its own.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report.h"
#include "rxr_test.h"
#include "report_fixture.h"

#define MAX_ROUNDS 32

/* Levels of the rounds: the shared machine's moods. */
static const double levels[MAX_ROUNDS] = {
	5.0, 12.1, 5.4, 11.2, 4.8, 13.0, 5.2, 12.4, 11.7, 4.9, 12.8, 5.6,
	5.1, 11.9, 4.7, 12.6, 5.3, 11.4, 12.2, 5.0, 4.6, 13.1, 5.5, 11.8,
	12.0, 5.2, 4.9, 12.9, 5.7, 11.1, 12.3, 4.8,
};

/* Per-round noise of one configuration, in [-n, n], deterministic. */
static double
noise(unsigned int cfg, unsigned int round, double n)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL * (cfg + 1) + round * 7919 + 1;

	rxr_test_xorshift(&s);
	rxr_test_xorshift(&s);
	return n * (2.0 * (double)(rxr_test_xorshift(&s) % 10001) / 10000 - 1);
}

struct cfg {
	const char *strategy;
	bool bulk;
	double factor;	/* of the round's level */
	double noise;	/* relative, each run */
};

static const char *consumer = "other-poll";

/*
 * A report of nc configurations over nr rounds: interleaved (A0 B0 A1 B1
 * ...) or one configuration after the other (A0 A1 ... B0 B1 ...).
 */
static struct rxr_report *
rounds_report(const struct cfg *cfg, unsigned int nc, unsigned int nr,
		bool interleaved, unsigned int seed)
{
	static const unsigned int lcores[] = { 0, 1 };
	static const struct rxr_report_port ports[] = {
		{ .port = 0, .driver = "net_pcap", .name = "net_pcap0" },
	};
	static char *const argv[] = { "rxrefill", "--", "--replay", "a.pcap" };
	struct rxr_report_env env = {
		.dpdk_version = "DPDK 22.11.1", .host = "hostA",
		.cpu_model = "Test CPU", .lcores = lcores, .nb_lcores = 2,
		.ports = ports, .nb_ports = 1, .argc = 4, .argv = argv,
	};
	struct rxr_report *r = rxr_report_create();
	char err[RXR_REPORT_ERR_LEN];

	if (r == NULL || rxr_report_set_env(r, &env, err, sizeof(err)) != 0 ||
			json_object_set_new(rxr_report_json(r), "created",
				json_string("2024-05-01T10:00:00Z")) != 0 ||
			rxr_report_set_option_str(r, "consumer", consumer) != 0) {
		fprintf(stderr, "cannot build a report\n");
		exit(EXIT_FAILURE);
	}
	for (unsigned int step = 0; step < nc * nr; step++) {
		unsigned int c = interleaved ? step % nc : step / nr;
		unsigned int k = interleaved ? step / nc : step % nr;
		double lvl = levels[(k + seed) % MAX_ROUNDS];
		double g = lvl * cfg[c].factor * (1 + noise(c + 10 * seed, k,
				cfg[c].noise));
		struct rxr_report_run run = {
			.strategy = cfg[c].strategy, .bulk = cfg[c].bulk,
			.rep = k, .duration_s = 1.0,
			.rx_bytes = (uint64_t)llround(g * 1e9 / 8),
			.rx_packets = (uint64_t)llround(g * 1e9 / 8 / 64),
			.cycles_per_packet = 1000 / g,
			.refill_cycles_per_frame = 100 / g,
			.allocator_cycles_per_packet = NAN,
			.consumer_free_cycles_per_packet = NAN,
		};

		if (rxr_report_add_run(r, &run, err, sizeof(err)) != 0) {
			fprintf(stderr, "add_run: %s\n", err);
			exit(EXIT_FAILURE);
		}
	}
	return r;
}

static char *
render(const struct rxr_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	rxr_report_render_text(r, f, NULL);
	fclose(f);
	return rxr_test_unwrap(buf);
}

static const json_t *
summary_of(const struct rxr_report *r, size_t i, const char *metric,
		const char *key)
{
	return json_object_get(json_object_get(json_array_get(json_object_get(
		rxr_report_json(r), "summary"), i), metric), key);
}

static double
num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The line of text that starts with prefix, or NULL. */
static const char *
line_starting(const char *text, const char *prefix)
{
	const char *p = text;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			return p;
		p = strchr(p, '\n');
		p = p != NULL ? p + 1 : NULL;
	}
	return NULL;
}

/*
 * A planted 10% slowdown under a block effect that dwarfs it: the paired
 * test finds it in 8 rounds, the unpaired test of the means does not.
 */
static int
test_planted_shift(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.02 }, { "zone", true, 0.9, 0.02 },
	};
	struct rxr_report *r = rounds_report(cfg, 2, 8, true, 0);
	const json_t *pv = summary_of(r, 1, "gbps", "paired_vs_first");
	const json_t *uv = summary_of(r, 1, "gbps", "vs_first");
	char *text = render(r);
	const char *l;

	RXR_TEST_ASSERT(pv != NULL && json_is_true(json_object_get(pv,
		"paired")) && num(pv, "rounds") == 8, "paired_vs_first");
	RXR_TEST_ASSERT(num(pv, "p") < 0.05 && json_is_true(json_object_get(pv,
		"significant")), "paired p %g", num(pv, "p"));
	RXR_TEST_ASSERT(fabs(num(pv, "ratio") - 0.9) < 0.02 &&
		num(pv, "ci_lo") < num(pv, "ratio") &&
		num(pv, "ratio") < num(pv, "ci_hi") && num(pv, "ci_hi") < 1,
		"ratio %g [%g, %g]", num(pv, "ratio"), num(pv, "ci_lo"),
		num(pv, "ci_hi"));
	RXR_TEST_ASSERT(strncmp(json_string_value(json_object_get(pv, "test")),
		"exact sign-flip", 15) == 0, "test %s",
		json_string_value(json_object_get(pv, "test")));
	/* The second opinion misses it: the rounds' spread hides 10%. */
	RXR_TEST_ASSERT(num(uv, "p") > 0.05 && strncmp(json_string_value(
		json_object_get(uv, "test")), "exact permutation", 17) == 0,
		"unpaired p %g", num(uv, "p"));
	RXR_TEST_ASSERT(text != NULL, "render");
	l = line_starting(text, "  zone-bulk: 0.9");
	RXR_TEST_ASSERT(l != NULL && strstr(l, "x bh-bulk Gbit/s (95% CI 0.") ==
		strchr(l, 'x') && strstr(l, ", p 0.0078, 8 paired rounds)\n") ==
		strchr(l, '\n') - strlen(", p 0.0078, 8 paired rounds)"),
		"finding line:\n%s", text);
	/* The tested Mean row is significant: no mark; Min/Max never. */
	l = line_starting(text, "Mean     gbps ");
	RXR_TEST_ASSERT(l != NULL && strstr(l, "n.s.") > strchr(l, '\n'),
		"Mean row marked:\n%s", text);
	RXR_TEST_ASSERT(strstr(text, "warning:") == NULL, "a warning:\n%s",
		text);
	free(text);
	rxr_report_free(r);
	return 0;
}

/* The same runs, not in rounds: the unpaired fallback, said so. */
static int
test_not_interleaved(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.02 }, { "zone", true, 0.9, 0.02 },
	};
	struct rxr_report *r = rounds_report(cfg, 2, 8, false, 0);
	const json_t *pv = summary_of(r, 1, "gbps", "paired_vs_first");
	char *text = render(r);

	RXR_TEST_ASSERT(pv != NULL && json_is_false(json_object_get(pv,
		"paired")) && json_is_null(json_object_get(pv, "rounds")) &&
		num(pv, "n") == 8 && num(pv, "n_base") == 8 && num(pv, "p") > 0.05,
		"fallback: p %g", num(pv, "p"));
	RXR_TEST_ASSERT(text != NULL && strstr(text, "8 against 8 runs, "
		"unpaired)") != NULL && strstr(text, "not distinguishable from "
		"bh-bulk") != NULL, "text:\n%s", text);
	free(text);
	rxr_report_free(r);
	return 0;
}

/* Too few rounds: the findings say that no p could reach alpha. */
static int
test_few_rounds_warning(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.02 }, { "zone", true, 0.5, 0.02 },
		{ "irqsave", true, 1.0, 0.02 },
	};
	struct rxr_report *r = rounds_report(cfg, 3, 5, true, 0);
	char *text = render(r);

	/* 2 / 2^5 = 0.0625: even zone at half of bh cannot be found. */
	RXR_TEST_ASSERT(text != NULL && strstr(text, "warning: 2 comparisons "
		"cannot be significant at alpha 0.05") != NULL &&
		strstr(text, "the sign-flip test's smallest p is 0.0625); 6 "
		"rounds or more can (--reps 6, or --reps auto)") != NULL,
		"text:\n%s", text);
	/* No interval beside it: with 5 rounds the test rejects no ratio. */
	RXR_TEST_ASSERT(strstr(text, "  zone-bulk: 0.50x bh-bulk Gbit/s, cannot "
		"be significant with 5 paired rounds (p 0.062)") != NULL,
		"text:\n%s", text);
	free(text);
	rxr_report_free(r);
	return 0;
}

/*
 * A/A through the report: two configurations drawn alike, 8 rounds, over
 * 300 seeds of the rounds' levels and noise. The paired test comes out
 * significant at about alpha's rate (exactly 12/256 = 4.7% when the null
 * holds), within +- 3.5% (binomial standard error 1.2%).
 */
static int
test_aa_rate(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.05 }, { "irqsave", true, 1.0, 0.05 },
	};
	const unsigned int trials = 300;
	unsigned int hits = 0;

	for (unsigned int s = 0; s < trials; s++) {
		struct rxr_report *r = rounds_report(cfg, 2, 8, true, s);
		const json_t *pv = summary_of(r, 1, "gbps", "paired_vs_first");

		hits += json_is_true(json_object_get(pv, "significant"));
		rxr_report_free(r);
	}
	printf("# A/A through reports: %u of %u significant (%.3f)\n", hits,
		trials, (double)hits / trials);
	RXR_TEST_ASSERT(fabs((double)hits / trials - 12.0 / 256) < 0.035,
		"A/A rate %.3f", (double)hits / trials);
	return 0;
}

/* Bulk off against bulk on of the same strategy, paired too. */
static int
test_bulk_pair(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.02 }, { "zone", true, 0.7, 0.02 },
		{ "zone", false, 0.35, 0.02 },
	};
	struct rxr_report *r = rounds_report(cfg, 3, 8, true, 3);
	const json_t *pb = summary_of(r, 2, "gbps", "paired_vs_bulk");
	char *text = render(r);

	RXR_TEST_ASSERT(pb != NULL && fabs(num(pb, "ratio") - 0.5) < 0.02 &&
		num(pb, "p") < 0.05, "paired_vs_bulk ratio %g p %g",
		num(pb, "ratio"), num(pb, "p"));
	RXR_TEST_ASSERT(text != NULL && strstr(text, "  zone-nobulk: 0.50x "
		"zone-bulk Gbit/s (95% CI ") != NULL && strstr(text,
		"  zone-nobulk: 0.35x bh-bulk Gbit/s") != NULL, "text:\n%s",
		text);
	free(text);
	rxr_report_free(r);
	return 0;
}

static struct rxr_report *
reload(const struct rxr_report *r)
{
	char *s = json_dumps(rxr_report_json(r), 0);
	char err[RXR_REPORT_ERR_LEN];
	struct rxr_report *c = fixture_load_buffer(s, strlen(s), "copy",
			err, sizeof(err));

	free(s);
	return c;
}

/* The gbps Mean row of a comparison document. */
static const json_t *
mean_row(const json_t *doc, const char *config, const char *metric)
{
	const json_t *row;
	size_t i;

	json_array_foreach(json_object_get(doc, "rows"), i, row) {
		const char *c = json_string_value(json_object_get(row, "config"));

		if ((config == NULL ? c == NULL : c != NULL &&
				strcmp(c, config) == 0) &&
				strcmp(json_string_value(json_object_get(row,
					"metric")), metric) == 0 &&
				strcmp(json_string_value(json_object_get(row,
					"stat")), "mean") == 0)
			return row;
	}
	return NULL;
}

/*
 * Separate reports: unpaired. A report compared with itself: paired (its
 * rounds are the same rounds). One report: its configurations, paired,
 * with ratio, interval, p and test in the export.
 */
static int
test_compare_pairing(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.02 }, { "zone", true, 0.9, 0.02 },
	};
	const char *labels[] = { "a", "b" };
	struct rxr_report *a = rounds_report(cfg, 2, 8, true, 0);
	struct rxr_report *b = rounds_report(cfg, 2, 8, true, 5);
	struct rxr_report *a2 = reload(a);
	struct rxr_report *pair[2] = { a, b }, *self[2] = { a, a2 };
	json_t *doc;
	const json_t *row;

	RXR_TEST_ASSERT(a2 != NULL, "reload");
	doc = rxr_report_compare_json(pair, labels, 2, NULL);
	RXR_TEST_ASSERT(doc != NULL && json_is_false(json_object_get(doc,
		"paired")), "separate reports paired");
	row = mean_row(doc, "bh-bulk", "gbps");
	RXR_TEST_ASSERT(row != NULL && json_is_false(json_object_get(
		json_array_get(json_object_get(row, "n"), 1), "paired")) &&
		strncmp(json_string_value(json_array_get(json_object_get(row,
			"test"), 1)), "exact permutation", 17) == 0,
		"unpaired row");
	json_decref(doc);

	doc = rxr_report_compare_json(self, labels, 2, NULL);
	row = mean_row(doc, "zone-bulk", "gbps");
	RXR_TEST_ASSERT(doc != NULL && json_is_true(json_object_get(doc,
		"paired")) && row != NULL, "self comparison not paired");
	RXR_TEST_ASSERT(json_number_value(json_array_get(json_object_get(row,
		"ratio"), 1)) == 1 && json_number_value(json_array_get(
		json_object_get(row, "p"), 1)) == 1, "self: ratio 1, p 1");
	json_decref(doc);

	doc = rxr_report_compare_json(pair, labels, 1, NULL);
	row = mean_row(doc, NULL, "gbps");
	RXR_TEST_ASSERT(doc != NULL && json_array_size(json_object_get(doc,
		"columns")) == 2 && strcmp(json_string_value(json_array_get(
		json_object_get(doc, "columns"), 1)), "zone-bulk") == 0,
		"one report: columns are its configurations");
	RXR_TEST_ASSERT(row != NULL && json_is_true(json_object_get(row,
		"tested")) && json_number_value(json_array_get(json_object_get(
		row, "p"), 1)) < 0.05 && json_number_value(json_array_get(
		json_object_get(row, "ci_hi"), 1)) < 1 &&
		strncmp(json_string_value(json_array_get(json_object_get(row,
			"test"), 1)), "exact sign-flip", 15) == 0 &&
		json_number_value(json_array_get(json_object_get(row,
			"p_unpaired"), 1)) > 0.05, "one report's gbps row");
	json_decref(doc);
	rxr_report_free(a);
	rxr_report_free(a2);
	rxr_report_free(b);
	return 0;
}

/* --fail-if-worse: too few runs to decide is said, not taken for "no
 * regression". */
static int
test_fail_if_worse_undecided(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.02 }, { "zone", true, 0.6, 0.02 },
	};
	const char *labels[] = { "a", "b" };
	const char *gbps = "gbps";
	const struct rxr_report_select sel = { .metrics = &gbps,
		.nb_metrics = 1 };
	struct rxr_report *few[2] = { rounds_report(cfg, 2, 2, true, 0),
		rounds_report(cfg, 2, 3, true, 1) };
	struct rxr_report *many[2] = { rounds_report(cfg, 2, 5, true, 0),
		rounds_report(cfg, 2, 5, true, 2) };
	int u;

	/* 2 against 3 runs: 2 / C(5, 2) = 0.2 at best, per configuration. */
	rxr_report_compare_gate(few, labels, 2, &sel, INFINITY, INFINITY, stderr,
		&u);
	RXR_TEST_ASSERT(u == 2, "2 against 3: %d undecided", u);
	rxr_report_compare_gate(many, labels, 2, &sel, INFINITY, INFINITY, stderr,
		&u);
	RXR_TEST_ASSERT(u == 0, "5 against 5: %d undecided", u);
	for (int i = 0; i < 2; i++) {
		rxr_report_free(few[i]);
		rxr_report_free(many[i]);
	}
	/* No configuration in common (other strategies): compared on
	 * nothing, which passed the gate. */
	{
		const struct cfg other[] = { { "recycle", true, 1.0, 0.02 } };
		struct rxr_report *apart[2] = { rounds_report(cfg, 2, 5, true, 0),
			rounds_report(other, 1, 5, true, 2) };

		rxr_report_compare_gate(apart, labels, 2, &sel, INFINITY,
			INFINITY, stderr, &u);
		RXR_TEST_ASSERT(u == 1, "nothing in common: %d undecided", u);
		for (int i = 0; i < 2; i++)
			rxr_report_free(apart[i]);
	}
	return 0;
}

/* Each run's figures changed by fn(run, index), on a copy of r's. */
static struct rxr_report *
edited(struct rxr_report *r, void (*fn)(json_t *run, size_t i))
{
	json_t *doc = json_deep_copy(rxr_report_json(r)), *run;
	char err[RXR_REPORT_ERR_LEN];
	size_t i;

	json_object_del(doc, "summary");
	json_array_foreach(json_object_get(doc, "runs"), i, run)
		fn(run, i);
	return rxr_report_of_json(doc, "edited", err, sizeof(err));
}

static void
no_refill_cost(json_t *run, size_t i)
{
	json_object_set_new(run, "refill_cycles_per_frame", json_real(0));
}

static void
some_refill_cost(json_t *run, size_t i)
{
	json_object_set_new(run, "refill_cycles_per_frame", json_real(5 + i % 3));
}

static void
unmeasured_refill(json_t *run, size_t i)
{
	json_object_set_new(run, "refill_cycles_per_frame", json_null());
}

/*
 * The gate tests a change from 0: a cost of 0 that became 5 cycles (it
 * was "n/a", untested, and passed); a metric the second report could not
 * measure is undecided, not passed.
 */
static int
test_gate_from_zero(void)
{
	const struct cfg cfg[] = { { "bh", true, 1.0, 0.02 } };
	const char *labels[] = { "a", "b" };
	const char *refill = "refill_cycles_per_frame";
	const struct rxr_report_select sel = { .metrics = &refill,
		.nb_metrics = 1 };
	struct rxr_report *base = rounds_report(cfg, 1, 6, true, 0);
	struct rxr_report *pair[2] = { edited(base, no_refill_cost),
		edited(base, some_refill_cost) };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int w, u;

	w = rxr_report_compare_gate(pair, labels, 2, &sel, 5, 0, f, &u);
	fclose(f);
	RXR_TEST_ASSERT(w == 1 && u == 0 && strstr(text, "worse: bh-bulk."
		"refill_cycles_per_frame b: -inf% (p ") != NULL, "%d worse: %s",
		w, text);
	free(text);
	/* Past any threshold: not worse, and decided all the same. */
	w = rxr_report_compare_gate(pair, labels, 2, &sel, INFINITY, INFINITY,
		stderr, &u);
	RXR_TEST_ASSERT(w == 0 && u == 0, "from 0: decided (%d, %d)", w, u);
	rxr_report_free(pair[1]);
	pair[1] = edited(base, unmeasured_refill);
	w = rxr_report_compare_gate(pair, labels, 2, &sel, 5, 0, stderr, &u);
	RXR_TEST_ASSERT(w == 0 && u == 1,
		"a metric b has no value of: undecided (%d, %d)", w, u);
	for (int i = 0; i < 2; i++)
		rxr_report_free(pair[i]);
	rxr_report_free(base);
	return 0;
}

/*
 * A finding never says "not distinguishable" beside an interval that
 * excludes 1, nor a ratio beside one that holds it: over many reports of
 * 6 to 12 rounds, the interval is the test inverted.
 */
static int
test_finding_and_interval_agree(void)
{
	int checked = 0;

	for (unsigned int seed = 0; seed < 60; seed++) {
		const struct cfg cfg[] = {
			{ "bh", true, 1.0, 0.1 },
			{ "zone", true, 0.85 + 0.005 * seed, 0.1 },
		};
		struct rxr_report *r = rounds_report(cfg, 2, 6 + seed % 7, true,
				seed);
		const json_t *pv = summary_of(r, 1, "gbps", "paired_vs_first");
		double lo = num(pv, "ci_lo"), hi = num(pv, "ci_hi");
		char *text = render(r), want[256];
		bool sig = json_is_true(json_object_get(pv, "significant"));

		RXR_TEST_ASSERT(!isnan(lo) && sig == (hi < 1 || lo > 1),
			"seed %u: p %g, interval [%g, %g]", seed, num(pv, "p"),
			lo, hi);
		snprintf(want, sizeof(want), "%s: not distinguishable", "zone-bulk");
		RXR_TEST_ASSERT(text != NULL && (strstr(text, want) != NULL) ==
			!sig, "seed %u:\n%s", seed, text);
		free(text);
		rxr_report_free(r);
		checked++;
	}
	RXR_TEST_ASSERT(checked == 60, "%d", checked);
	return 0;
}

/*
 * Values at the ends of a double (1e-300 against 1e300: "infx ... p 0"):
 * a ratio past the largest double is the largest, p is 2 / 2^8.
 */
static void
tiny_gbps(json_t *run, size_t i)
{
	bool first = strcmp(json_string_value(json_object_get(run,
		"strategy")), "bh") == 0;

	json_object_set_new(run, "gbps", json_real(first ? 1e-300 * (1 + i) :
		1e300 * (1 + i)));
}

static int
test_extreme_ratio(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.02 }, { "zone", true, 1.0, 0.02 },
	};
	struct rxr_report *base = rounds_report(cfg, 2, 8, true, 0);
	struct rxr_report *r = edited(base, tiny_gbps);
	char *text = render(r);

	RXR_TEST_ASSERT(text != NULL && strstr(text, "infx") == NULL &&
		strstr(text, "zone-bulk: 1.8e+308x bh-bulk Gbit/s") != NULL &&
		strstr(text, "p 0.0078, 8 paired rounds") != NULL, "%s", text);
	free(text);
	rxr_report_free(r);
	rxr_report_free(base);
	return 0;
}

/* Two runs of one (strategy, bulk, rep) were paired by position. */
static void
twice(json_t *run, size_t i)
{
	if (i == 3)
		json_object_set_new(run, "rep", json_integer(0));
}

static int
test_duplicate_runs_refused(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.02 }, { "zone", true, 1.0, 0.02 },
	};
	struct rxr_report *base = rounds_report(cfg, 2, 3, true, 0);
	json_t *doc = json_deep_copy(rxr_report_json(base));
	char err[RXR_REPORT_ERR_LEN];

	twice(json_array_get(json_object_get(doc, "runs"), 3), 3);
	RXR_TEST_ASSERT(rxr_report_validate(doc, "d.json", err, sizeof(err)) !=
		0 && strstr(err, "d.json: runs[3]: zone-bulk rep 0 again, as "
		"runs[1]") != NULL, "%s", err);
	json_decref(doc);
	rxr_report_free(base);
	return 0;
}

/* --reps auto: stop when every ratio to the first is decided. */
static int
test_reps_auto(void)
{
	const struct cfg clear[] = {
		{ "bh", true, 1.0, 0.02 }, { "zone", true, 0.7, 0.02 },
		{ "irqsave", true, 1.0, 0.02 },
	};
	const struct cfg noisy[] = {
		{ "bh", true, 1.0, 0.3 }, { "zone", true, 0.95, 0.3 },
	};
	struct rxr_report *r;
	char why[512];
	bool done;

	/* 5 rounds: p cannot reach 0.05, so no ratio has an interval. */
	r = rounds_report(clear, 3, 5, true, 0);
	done = rxr_report_reps_auto(r, 5, 10, why, sizeof(why));
	RXR_TEST_ASSERT(!done && strstr(why, "round 5: 2 ratios undecided, "
		"widest ") != NULL && strstr(why, "no interval yet") != NULL,
		"5 rounds: %s", why);
	rxr_report_free(r);
	r = rounds_report(clear, 3, 6, true, 0);
	done = rxr_report_reps_auto(r, 6, 10, why, sizeof(why));
	RXR_TEST_ASSERT(done && strstr(why, "after 6 rounds every ratio of "
		"Gbit/s to bh-bulk is decided") != NULL, "6 rounds: %s", why);
	rxr_report_free(r);
	/* 30% noise per run, 5% apart: undecided, stops at the most. */
	r = rounds_report(noisy, 2, 6, true, 0);
	done = rxr_report_reps_auto(r, 6, 10, why, sizeof(why));
	RXR_TEST_ASSERT(!done && strstr(why, "round 6: 1 ratio undecided, "
		"widest zone-bulk ") != NULL, "noisy, 6 rounds: %s", why);
	done = rxr_report_reps_auto(r, 6, 6, why, sizeof(why));
	RXR_TEST_ASSERT(done && strstr(why, "6 rounds, the most asked for; 1 "
		"of 1 ratios to bh-bulk undecided") != NULL, "at the most: %s",
		why);
	rxr_report_free(r);
	return 0;
}

/*
 * --reps auto stops on what it sees, which lets chance stop it early: A/A
 * over 200 seeds (two configurations alike, 30% noise per run), stopping
 * by the rule from 6 to 10 rounds, the paired test at the stop comes out
 * significant at most 10% of the time (alpha 0.05; a simulation of the
 * rule with normal noise gives 3.4% to 6.5% for log-ratio spreads of 0.05
 * to 0.4).
 */
static int
test_reps_auto_aa(void)
{
	const struct cfg cfg[] = {
		{ "bh", true, 1.0, 0.3 }, { "irqsave", true, 1.0, 0.3 },
	};
	const unsigned int trials = 200;
	unsigned int hits = 0, rounds = 0;
	char why[512];

	for (unsigned int s = 0; s < trials; s++) {
		for (unsigned int n = 6; n <= 10; n++) {
			struct rxr_report *r = rounds_report(cfg, 2, n, true,
					s + 1000);
			bool done = rxr_report_reps_auto(r, n, 10, why,
					sizeof(why));

			if (done) {
				hits += json_is_true(json_object_get(summary_of(
					r, 1, "gbps", "paired_vs_first"),
					"significant"));
				rounds += n;
			}
			rxr_report_free(r);
			if (done)
				break;
		}
	}
	printf("# A/A under --reps auto: %u of %u significant (%.3f), %.1f "
		"rounds on average\n", hits, trials, (double)hits / trials,
		(double)rounds / trials);
	RXR_TEST_ASSERT((double)hits / trials <= 0.10, "A/A rate %.3f",
		(double)hits / trials);
	return 0;
}

/* Workloads that differ are named, not only environments. */
static int
test_workload_differs(void)
{
	const struct cfg cfg[] = { { "bh", true, 1.0, 0.02 } };
	const char *labels[] = { "a", "b" };
	struct rxr_report *a = rounds_report(cfg, 1, 3, true, 0), *b, *p[2];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int n;

	consumer = "inline";
	b = rounds_report(cfg, 1, 3, true, 0);
	consumer = "other-poll";
	p[0] = a;
	p[1] = b;
	f = open_memstream(&buf, &len);
	n = rxr_report_env_differences(p, labels, 2, f);
	fclose(f);
	RXR_TEST_ASSERT(n == 1 && strstr(buf, "warning: workload: consumer "
		"differs: a has \"other-poll\", b has \"inline\"") != NULL,
		"%d warnings: %s", n, buf);
	free(buf);
	/* Other captures, another PMD. */
	{
		json_t *env = json_object_get(rxr_report_json(b), "env");

		json_object_set_new(env, "argv", json_string("rxrefill -- "
			"--replay=b.pcap --reps 3"));
		json_object_set_new(json_array_get(json_object_get(env,
			"ports"), 0), "driver", json_string("net_null"));
	}
	buf = NULL;
	f = open_memstream(&buf, &len);
	n = rxr_report_env_differences(p, labels, 2, f);
	fclose(f);
	RXR_TEST_ASSERT(n == 3 && strstr(buf, "warning: workload: captures "
		"differs: a has \"a.pcap\", b has \"b.pcap\"") != NULL &&
		strstr(buf, "warning: workload: PMD differs: a has \"net_pcap\", "
		"b has \"net_null\"") != NULL, "%d warnings: %s", n, buf);
	free(buf);
	rxr_report_free(a);
	rxr_report_free(b);
	return 0;
}

int
main(void)
{
	rxr_test_run("planted_shift", test_planted_shift);
	rxr_test_run("not_interleaved", test_not_interleaved);
	rxr_test_run("few_rounds_warning", test_few_rounds_warning);
	rxr_test_run("aa_rate", test_aa_rate);
	rxr_test_run("bulk_pair", test_bulk_pair);
	rxr_test_run("compare_pairing", test_compare_pairing);
	rxr_test_run("fail_if_worse_undecided", test_fail_if_worse_undecided);
	rxr_test_run("reps_auto", test_reps_auto);
	rxr_test_run("reps_auto_aa", test_reps_auto_aa);
	rxr_test_run("workload_differs", test_workload_differs);
	rxr_test_run("gate_from_zero", test_gate_from_zero);
	rxr_test_run("finding_and_interval_agree",
		test_finding_and_interval_agree);
	rxr_test_run("extreme_ratio", test_extreme_ratio);
	rxr_test_run("duplicate_runs_refused", test_duplicate_runs_refused);
	return rxr_test_done();
}
