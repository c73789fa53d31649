/* SPDX-License-Identifier: BSD-3-Clause */

/* The statistics of runs: one configuration against another, a report's
 * summary, the refill latency histograms and their percentiles. */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"
#include "rxr_stats.h"

bool
rxrr_interleaved(const json_t *doc)
{
	const json_t *run;
	json_int_t last = 0;
	size_t i;

	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		json_int_t rep = json_integer_value(json_object_get(run, "rep"));

		if (rep < last)
			return false;
		last = rep;
	}
	return true;
}

/* The run of g of rep, or NULL: at index rep when in order, else found. */
static const json_t *
run_of_rep(const struct rxrr_group *g, json_int_t rep)
{
	if (rep >= 0 && (size_t)rep < g->nb_runs && json_integer_value(
			json_object_get(g->runs[rep], "rep")) == rep)
		return g->runs[rep];
	for (size_t i = 0; i < g->nb_runs; i++)
		if (json_integer_value(json_object_get(g->runs[i], "rep")) == rep)
			return g->runs[i];
	return NULL;
}

int
rxrr_ratio(const struct rxrr_group *g, const struct rxrr_group *ref,
		const char *metric, bool paired, bool diff,
		double alpha, struct rxr_stats_cmp *out)
{
	size_t n = g->nb_runs > ref->nb_runs ? g->nb_runs : ref->nb_runs;
	double *x = malloc((n + 1) * sizeof(*x));
	double *y = malloc((n + 1) * sizeof(*y));
	size_t k = 0, i;
	int ret = -1;

	if (x == NULL || y == NULL) {
		*out = (struct rxr_stats_cmp){ .est = NAN, .lo = NAN, .hi = NAN,
			.p = NAN, .min_p = 1, .test = RXR_STATS_UNPAIRED_METHOD };
		goto out;
	}
	/* Paired by round: the runs of the same rep. */
	for (i = 0; paired && i < g->nb_runs; i++) {
		const json_t *r0 = run_of_rep(ref, json_integer_value(
				json_object_get(g->runs[i], "rep")));

		if (r0 != NULL) {
			x[k] = rxrr_num(rxrr_path(g->runs[i], metric));
			y[k++] = rxrr_num(rxrr_path(r0, metric));
		}
	}
	if (k > 0 && rxr_stats_compare(x, k, y, k, true, diff, alpha,
			out) == 0) {
		ret = 0;
		goto out;
	}
	for (i = 0; i < g->nb_runs; i++)
		x[i] = rxrr_num(rxrr_path(g->runs[i], metric));
	for (i = 0; i < ref->nb_runs; i++)
		y[i] = rxrr_num(rxrr_path(ref->runs[i], metric));
	ret = rxr_stats_compare(x, g->nb_runs, y, ref->nb_runs, false, diff,
		alpha, out);
out:
	free(x);
	free(y);
	return ret;
}

const double rxrr_pct_points[RXRR_PCT_N] = { 50, 90, 99, 99.9 };
const char *const rxrr_pct_names[RXRR_PCT_N] = {
	"p50", "p90", "p99", "p99.9",
};

int
rxrr_percentile(const uint64_t *counts, double p,
		struct rxrr_pct *out)
{
	uint64_t total = 0, cum = 0, rank;
	unsigned int i;
	double x;

	for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++)
		total += counts[i];
	if (total == 0 || !(p > 0 && p <= 100))
		return -EINVAL;
	/*
	 * Nearest rank: the smallest value with at least p% at or below it.
	 * 99.9% of 1000 is 999, not the 1000 that rounding up 999.0000001
	 * would give: a relative epsilon absorbs the binary fraction.
	 */
	x = p * (double)total / 100.0;
	rank = (uint64_t)ceil(x - x * 1e-12);
	if (rank == 0)
		rank = 1;
	for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++) {
		if (cum + counts[i] >= rank)
			break;
		cum += counts[i];
	}
	if (i == RXR_REPORT_HIST_BUCKETS)
		i = RXR_REPORT_HIST_BUCKETS - 1;
	out->p = p;
	out->lo = rxrr_hist_lo(i);
	out->hi = rxrr_hist_hi(i);
	/* Linear within the bucket, as Prometheus' histogram_quantile(). */
	out->ns = (double)out->lo + (double)(out->hi - out->lo) *
		(double)(rank - cum) / (double)counts[i];
	return 0;
}

json_t *
rxrr_percentiles_json(const uint64_t *counts)
{
	json_t *o = json_object();
	unsigned int i;

	for (i = 0; o != NULL && i < RXRR_PCT_N; i++) {
		struct rxrr_pct pc;

		if (rxrr_percentile(counts, rxrr_pct_points[i], &pc) != 0 ||
				json_object_set_new(o, rxrr_pct_names[i], json_pack(
				"{s:f, s:I, s:I}", "ns", pc.ns,
				"lo", (json_int_t)pc.lo,
				"hi", (json_int_t)pc.hi)) != 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* Every complete repetition of a configuration in one histogram. */
bool
rxrr_group_hist(const struct rxrr_group *g, uint64_t *sum)
{
	const json_t *h, *b;
	bool any = false;
	size_t i;

	memset(sum, 0, sizeof(*sum) * RXR_REPORT_HIST_BUCKETS);
	for (size_t k = 0; k < g->nb_runs; k++) {
		h = json_object_get(g->runs[k], "refill_latency_hist");
		any |= h != NULL;
		json_array_foreach(json_object_get(h, "buckets"), i, b) {
			uint64_t n = (uint64_t)json_integer_value(
				json_object_get(b, "count"));
			unsigned int idx = rxrr_hist_index((uint64_t)
				json_integer_value(json_object_get(b, "lo")));

			/* Saturate: past 2^64, shares would be nonsense. */
			sum[idx] = sum[idx] + n < sum[idx] ? UINT64_MAX :
				sum[idx] + n;
		}
	}
	return any;
}

int
rxrr_fresh(const struct rxr_report *r)
{
	/* The summary is a cache of the runs: computing it is not a change. */
	struct rxr_report *w = (struct rxr_report *)(uintptr_t)r;

	return w->stale ? rxrr_summarize(w) : 0;
}

/* The measured values of one metric over a group's runs. */
static size_t
group_values(const struct rxrr_group *g, const char *metric, double *buf)
{
	size_t i, n = 0;

	for (i = 0; i < g->nb_runs; i++) {
		double v = rxrr_num(json_object_get(g->runs[i], metric));

		if (!isnan(v))
			buf[n++] = v;
	}
	return n;
}

/*
 * g against ref into o: "vs_<to>", the means unpaired (delta_pct, p,
 * significant), and "paired_vs_<to>", paired over the rounds when paired.
 */
static int
vs_json(json_t *o, const char *to, const struct rxrr_group *g,
		const struct rxrr_group *ref, const char *metric, double alpha,
		bool paired, double *buf, double *base)
{
	size_t n = group_values(g, metric, buf), n0 = group_values(ref, metric,
			base);
	double m0 = rxr_stats_mean(base, n0);
	struct rxr_stats_cmp r;
	char key[32];

	rxr_stats_compare(buf, n, base, n0, false, true, alpha, &r);
	snprintf(key, sizeof(key), "vs_%s", to);
	if (rxrr_jset(o, key, json_pack("{s:o, s:o, s:b, s:o}", "delta_pct",
			rxrr_jnum(m0 != 0 ? r.est / fabs(m0) * 100.0 : NAN),
			"p", rxrr_jnum(r.p), "significant", !isnan(r.p) &&
			r.p < alpha, "test", isnan(r.p) ? json_null() :
			json_string(r.test))))
		return -1;
	rxrr_ratio(g, ref, metric, paired, false, alpha, &r);
	snprintf(key, sizeof(key), "paired_vs_%s", to);
	return rxrr_jset(o, key, json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, "
		"s:b, s:s, s:s, s:o, s:I, s:I, s:o}", "paired", r.paired,
		"ratio", rxrr_jnum(r.ratio ? r.est : NAN),
		"difference", rxrr_jnum(r.ratio ? NAN : r.est),
		"ci_lo", rxrr_jnum(r.lo), "ci_hi", rxrr_jnum(r.hi),
		"p", rxrr_jnum(r.p), "significant", !isnan(r.p) && r.p < alpha,
		"test", r.test, "interval", RXR_STATS_CMP_CI_METHOD,
		"rounds", r.paired ? json_integer(r.n) : json_null(),
		"n", (json_int_t)r.n, "n_base", (json_int_t)r.n_base,
		"min_p", rxrr_jnum(r.min_p)));
}

static json_t *
stats_json(const struct rxrr_group *g, const struct rxrr_group *first,
		const struct rxrr_group *bulk, const char *metric, double alpha,
		bool paired, double *buf, double *base)
{
	struct rxr_stats_desc d;
	json_t *o;

	rxr_stats_describe(buf, group_values(g, metric, buf), &d);
	o = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:[o,o]}", "n",
		(json_int_t)d.n, "min", rxrr_jnum(d.min), "median",
		rxrr_jnum(d.median), "max", rxrr_jnum(d.max), "mean",
		rxrr_jnum(d.mean), "stdev", rxrr_jnum(d.stdev), "ci95",
		rxrr_jnum(d.ci_lo), rxrr_jnum(d.ci_hi));
	if (o == NULL || (first != NULL && vs_json(o, "first", g, first,
				metric, alpha, paired, buf, base)) ||
			(bulk != NULL && bulk != first && vs_json(o, "bulk", g,
				bulk, metric, alpha, paired, buf, base))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
rxrr_set_alpha(struct rxr_report *r, double alpha)
{
	json_t *st;

	if (!(alpha > 0 && alpha < 1))
		return -EINVAL;
	st = json_pack("{s:s, s:s, s:s, s:s, s:f}", "ci95",
		RXR_STATS_CI_METHOD, "test", RXR_STATS_TEST_METHOD ", two-sided, "
		"against the first configuration (exact up to 20 values in all, "
		"Monte Carlo up to 60, normal approximation above; each "
		"comparison names what ran)", "paired_test",
		RXR_STATS_PAIRED_METHOD ", two-sided (exact up to 20 rounds, "
		"Monte Carlo above); the rounds of an interleaved run are its "
		"pairs", "paired_interval", RXR_STATS_CMP_CI_METHOD,
		"alpha", alpha);
	if (st == NULL || json_object_set_new(r->doc, "statistics", st))
		return -ENOMEM;
	return rxrr_summarize(r);
}

int
rxrr_summarize(struct rxr_report *r)
{
#define FIGURE_NAME_(n, row, when, help) #n,
	static const char *const figures[] = {
		RXR_REPORT_FIGURES(FIGURE_NAME_)
	};
	struct rxrr_group *g;
	json_t *summary, *z;
	size_t n, i, k, most = 1;
	double *buf = NULL, *base = NULL, alpha = rxrr_alpha(r->doc);
	bool paired = rxrr_interleaved(r->doc);
	int ret = -ENOMEM;

	if (json_object_get(r->doc, "statistics") == NULL &&
			rxrr_set_alpha(r, alpha) != 0)
		return -ENOMEM;
	if (rxrr_groups(r->doc, &g, &n) != 0)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (g[i].nb_runs > most)
			most = g[i].nb_runs;
	buf = malloc(most * sizeof(*buf));
	base = malloc(most * sizeof(*base));
	summary = json_array();
	if (buf == NULL || base == NULL || summary == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		json_t *o = json_object();

		if (o == NULL || json_array_append_new(summary, o) ||
				rxrr_jset(o, "strategy", json_string(g[i].strategy)) ||
				rxrr_jset(o, "bulk", json_boolean(g[i].bulk)) ||
				rxrr_jset(o, "reps", json_integer(g[i].nb_runs)))
			goto out;
		/* As its runs name it: zeroing{policy, method}, none without. */
		z = json_object_get(g[i].runs[0], "zeroing");
		if (g[i].zero && z != NULL && rxrr_jset(o, "zeroing", json_pack(
				"{s:O*, s:O*}", "policy", json_object_get(z,
				"policy"), "method", json_object_get(z, "method"))))
			goto out;
		for (k = 0; k < NELEMS(figures); k++)
			if (rxrr_jset(o, figures[k], stats_json(&g[i], i ? &g[0] :
						NULL, rxrr_bulk_sibling(g, n, i),
						figures[k], alpha, paired, buf,
						base)))
				goto out;
	}
	ret = json_object_set(r->doc, "summary", summary) == 0 ? 0 : -ENOMEM;
	r->stale = ret != 0;
out:
	json_decref(summary);
	free(buf);
	free(base);
	rxrr_groups_free(g, n);
	return ret;
}
