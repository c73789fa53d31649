/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A configuration's runs against a reference's as a ratio with its
 * interval and p-value: paired over the rounds they ran in when they did.
 */

#include <math.h>
#include <stdlib.h>

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

double
rxrr_get_path(const json_t *run, const void *path)
{
	return rxrr_num(rxrr_path(run, path));
}

/* The run of g with repetition index rep, or NULL. */
static const json_t *
run_of_rep(const struct rxrr_group *g, json_int_t rep)
{
	for (size_t i = 0; i < g->nb_runs; i++)
		if (json_integer_value(json_object_get(g->runs[i], "rep")) == rep)
			return g->runs[i];
	return NULL;
}

int
rxrr_ratio(const struct rxrr_group *g, const struct rxrr_group *ref,
		rxrr_getter get, const void *ctx, bool paired,
		struct rxr_stats_ratio *out)
{
	size_t n = g->nb_runs > ref->nb_runs ? g->nb_runs : ref->nb_runs;
	double *x = malloc((n + 1) * sizeof(*x));
	double *y = malloc((n + 1) * sizeof(*y));
	size_t k = 0, usable = 0, i;
	int ret = -1;

	*out = (struct rxr_stats_ratio){ .ratio = NAN, .ci_lo = NAN,
		.ci_hi = NAN, .p = NAN, .min_p = 1,
		.test = RXR_STATS_TEST_METHOD,
		.interval = RXR_STATS_UNPAIRED_CI_METHOD };
	if (x == NULL || y == NULL)
		goto out;
	if (paired) {
		for (i = 0; i < g->nb_runs; i++) {
			const json_t *r0 = run_of_rep(ref, json_integer_value(
					json_object_get(g->runs[i], "rep")));

			if (r0 == NULL)
				continue;
			x[k] = get(g->runs[i], ctx);
			y[k] = get(r0, ctx);
			usable += isfinite(x[k]) && x[k] > 0 &&
				isfinite(y[k]) && y[k] > 0;
			k++;
		}
		/* Few rounds, all usable: still pairs (no test yet). Rounds
		 * without a ratio (a count of 0): the unpaired test. */
		if (usable >= 2 || (usable == k && k > 0)) {
			ret = rxr_stats_paired(x, y, k, out);
			goto out;
		}
	}
	for (i = 0; i < g->nb_runs; i++)
		x[i] = get(g->runs[i], ctx);
	for (i = 0; i < ref->nb_runs; i++)
		y[i] = get(ref->runs[i], ctx);
	ret = rxr_stats_unpaired(x, g->nb_runs, y, ref->nb_runs, out);
out:
	free(x);
	free(y);
	return ret;
}

json_t *
rxrr_ratio_json(const struct rxr_stats_ratio *r, double alpha)
{
	json_t *o = json_object();

	if (o == NULL || rxrr_jset(o, "paired", json_boolean(r->paired)) ||
			rxrr_jset(o, "ratio", rxrr_jnum(r->ratio)) ||
			rxrr_jset(o, "ci_lo", rxrr_jnum(r->ci_lo)) ||
			rxrr_jset(o, "ci_hi", rxrr_jnum(r->ci_hi)) ||
			rxrr_jset(o, "p", rxrr_jnum(r->p)) ||
			rxrr_jset(o, "significant", json_boolean(!isnan(r->p) &&
				r->p < alpha)) ||
			rxrr_jset(o, "test", json_string(r->test)) ||
			rxrr_jset(o, "interval", json_string(r->interval)) ||
			rxrr_jset(o, "rounds", r->paired ? json_integer(r->n) :
				json_null()) ||
			rxrr_jset(o, "n", json_integer(r->n)) ||
			rxrr_jset(o, "n_base", json_integer(r->n_base)) ||
			rxrr_jset(o, "min_p", rxrr_jnum(r->min_p))) {
		json_decref(o);
		return NULL;
	}
	return o;
}
