/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A configuration's runs against a reference's as a ratio (a difference
 * where a value is 0) with its interval and p-value: paired over the
 * rounds they ran in when they did.
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

/* The run of g with repetition index rep, or NULL: where a group holding
 * every rep in order keeps it, else found by a scan. */
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
		rxrr_getter get, const void *ctx, bool paired, bool diff,
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
			x[k] = get(g->runs[i], ctx);
			y[k++] = get(r0, ctx);
		}
	}
	if (k > 0 && rxr_stats_compare(x, k, y, k, true, diff, alpha,
			out) == 0) {
		ret = 0;
		goto out;
	}
	for (i = 0; i < g->nb_runs; i++)
		x[i] = get(g->runs[i], ctx);
	for (i = 0; i < ref->nb_runs; i++)
		y[i] = get(ref->runs[i], ctx);
	ret = rxr_stats_compare(x, g->nb_runs, y, ref->nb_runs, false, diff,
		alpha, out);
out:
	free(x);
	free(y);
	return ret;
}

json_t *
rxrr_ratio_json(const struct rxr_stats_cmp *r, double alpha)
{
	json_t *o = json_object();

	if (o == NULL || rxrr_jset(o, "paired", json_boolean(r->paired)) ||
			rxrr_jset(o, "ratio", rxrr_jnum(r->ratio ? r->est : NAN)) ||
			rxrr_jset(o, "difference", rxrr_jnum(r->ratio ? NAN :
				r->est)) ||
			rxrr_jset(o, "ci_lo", rxrr_jnum(r->lo)) ||
			rxrr_jset(o, "ci_hi", rxrr_jnum(r->hi)) ||
			rxrr_jset(o, "p", rxrr_jnum(r->p)) ||
			rxrr_jset(o, "significant", json_boolean(!isnan(r->p) &&
				r->p < alpha)) ||
			rxrr_jset(o, "test", json_string(r->test)) ||
			rxrr_jset(o, "interval", json_string(
				RXR_STATS_CMP_CI_METHOD)) ||
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
