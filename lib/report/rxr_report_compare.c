/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Several reports side by side: as text, and as an rxrefill-compare/1
 * JSON document made from the same model.
 */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_model.h"
#include "rxr_stats.h"

int
rxr_report_compare_text(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, FILE *out,
		const struct rxr_report_select *sel)
{
	struct rxrr_line l = { .len = 0 };
	struct rxrr_model m;
	char prefix[300];
	unsigned int c;

	if (rxrr_model_compare(&m, reports, labels, n, sel) != 0)
		return -ENOMEM;
	rxrr_line_add(&l, "rxrefill-compare: %u report%s (%s), ", n,
		n == 1 ? "" : "s", RXR_REPORT_SCHEMA);
	rxrr_line_add(&l, RXRR_SIGN_CONVENTION("report"));
	rxrr_line_put(&l, out);
	for (c = 0; c < n; c++) {
		const json_t *doc = reports[c]->doc;
		const json_t *env = json_object_get(doc, "env");
		char *host = rxrr_clean_dup(json_string_value(json_object_get(env,
				"host")));

		rxrr_line_add(&l, "%s: created %s, host %s, ", m.headers[c],
			json_string_value(json_object_get(doc, "created")),
			host != NULL ? host : "");
		free(host);
		rxrr_print_env_line(doc, &l);
		rxrr_line_add(&l, ", %u runs%s", rxr_report_nb_runs(reports[c]),
			json_is_true(json_object_get(doc, "partial")) ?
				", partial (interrupted run)" : "");
		rxrr_line_put(&l, out);
		snprintf(prefix, sizeof(prefix), "%s: ", m.headers[c]);
		rxrr_print_cut_short(reports[c], prefix, &l, out);
		rxrr_print_disturbed(reports[c], prefix, &l, out);
	}
	if (m.nrows == 0 && m.nhists == 0) {
		rxrr_line_add(&l, "no runs to compare");
		rxrr_line_put(&l, out);
	}
	rxrr_print_model(&m, &l, out);
	if (m.ncols > 1 && m.nrows > 0) {
		fputc('\n', out);
		rxrr_print_verdict_model(&m, &l, out);
	}
	rxrr_model_free(&m);
	rxrr_line_free(&l);
	if (l.oom)
		return -ENOMEM;
	return ferror(out) ? -EIO : 0;
}

int
rxr_report_compare_worse(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel, double pct, FILE *out)
{
	struct rxrr_model m;
	size_t i;
	unsigned int c;
	int worse = 0;

	if (rxrr_model_compare(&m, reports, labels, n, sel) != 0)
		return -ENOMEM;
	for (i = 0; i < m.nrows; i++) {
		const struct rxrr_row *row = &m.rows[i];

		/* The tested row: Mean when there is one, else Median. */
		if (!row->tested)
			continue;
		for (c = 1; c < m.ncols; c++) {
			if (!row->sig[c] || isnan(row->d[c]) ||
					!(row->d[c] < -pct))
				continue;
			worse++;
			if (out != NULL)
				fprintf(out, "worse: %s %s: %.2f%% (p %.4g, %s)\n",
					row->name, m.headers[c], row->d[c],
					row->p[c], row->stat);
		}
	}
	rxrr_model_free(&m);
	return worse;
}

static json_t *
rows_json(const struct rxrr_model *m)
{
	static const char *const dir_names[] = {
		[RXRR_DIR_NONE] = NULL, [RXRR_DIR_HIGHER] = "higher",
		[RXRR_DIR_LOWER] = "lower",
	};
	json_t *rows = json_array();
	size_t i;
	unsigned int c;

	for (i = 0; rows != NULL && i < m->nrows; i++) {
		const struct rxrr_row *row = &m->rows[i];
		json_t *v = json_array(), *d = json_array();
		json_t *p = json_array(), *sig = json_array();
		json_t *ratio = json_array(), *lo = json_array();
		json_t *hi = json_array(), *test = json_array();
		json_t *cnt = json_array(), *pu = json_array();
		json_t *o;
		char stat[16];

		for (c = 0; v != NULL && d != NULL && p != NULL &&
				sig != NULL && ratio != NULL && lo != NULL &&
				hi != NULL && test != NULL && cnt != NULL &&
				pu != NULL && c < m->ncols; c++) {
			const struct rxr_stats_ratio *r = &row->cmp[c];
			bool has = row->tested && c > 0 && r->n > 0;

			json_array_append_new(v, rxrr_jnum(row->v[c]));
			json_array_append_new(d, rxrr_jnum(row->d[c]));
			json_array_append_new(p, rxrr_jnum(row->p[c]));
			/* Untested rows carry no verdict, not "false". */
			json_array_append_new(sig, c == 0 || !row->tested ?
				json_null() : json_boolean(row->sig[c]));
			json_array_append_new(ratio, rxrr_jnum(has ?
				r->ratio : NAN));
			json_array_append_new(lo, rxrr_jnum(has ? r->ci_lo :
				NAN));
			json_array_append_new(hi, rxrr_jnum(has ? r->ci_hi :
				NAN));
			json_array_append_new(test, has && !isnan(r->p) ?
				json_string(r->test) : json_null());
			json_array_append_new(cnt, has ? json_pack("{s:b, s:I, "
				"s:I}", "paired", r->paired, "n",
				(json_int_t)r->n, "n_base",
				(json_int_t)r->n_base) : json_null());
			json_array_append_new(pu, rxrr_jnum(
				row->p_unpaired[c]));
		}
		for (c = 0; c + 1 < sizeof(stat) && row->stat[c] != '\0'; c++)
			stat[c] = (char)tolower((unsigned char)row->stat[c]);
		stat[c] = '\0';
		o = json_pack("{s:s?, s:s, s:s, s:s?, s:b, s:o*, s:o*, s:o*, "
			"s:o*, s:o*, s:o*, s:o*, s:o*, s:o*, s:o*}",
			"config", row->config, "metric", row->metric,
			"stat", stat, "better", dir_names[row->dir],
			"tested", row->tested,
			"values", v, "delta_pct", d, "p", p,
			"significant", sig, "ratio", ratio, "ci_lo", lo,
			"ci_hi", hi, "test", test, "n", cnt,
			"p_unpaired", pu);
		if (o == NULL || json_array_append_new(rows, o) != 0) {
			json_decref(rows);
			return NULL;
		}
	}
	return rows;
}

static json_t *
columns_json(const struct rxrr_model *m)
{
	json_t *a = json_array();

	for (unsigned int c = 0; a != NULL && c < m->ncols; c++)
		if (json_array_append_new(a, rxrr_jstr(m->headers[c])) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *
hists_json(const struct rxrr_model *m)
{
	json_t *hists = json_array();
	size_t i;
	unsigned int b, c;

	for (i = 0; hists != NULL && i < m->nhists; i++) {
		const struct rxrr_hist *h = &m->hists[i];
		json_t *buckets = json_array(), *o;

		for (b = h->first; buckets != NULL && b <= h->last; b++) {
			json_t *share = json_array();

			for (c = 0; share != NULL && c < m->ncols; c++)
				json_array_append_new(share, h->present[c] &&
					h->total[c] ? json_real(100.0 *
					(double)h->counts[c][b] /
					(double)h->total[c]) : json_null());
			/* o* steals share, also when packing fails. */
			if (json_array_append_new(buckets, json_pack(
					"{s:I, s:I, s:o*}",
					"lo", (json_int_t)rxr_report_hist_lo(b),
					"hi", (json_int_t)rxr_report_hist_hi(b),
					"share_pct", share)) != 0) {
				json_decref(buckets);
				buckets = NULL;
			}
		}
		o = json_pack("{s:s?, s:s, s:o*}", "config", h->config,
			"unit", "ns", "buckets", buckets);
		if (o == NULL || json_array_append_new(hists, o) != 0) {
			json_decref(hists);
			return NULL;
		}
	}
	return hists;
}

json_t *
rxr_report_compare_json(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel)
{
	json_t *doc = NULL, *reps;
	struct rxrr_model m;
	unsigned int c;

	/* One report: its configurations are the columns, as in its table. */
	if ((n == 1 ? rxrr_model_single(&m, reports[0], sel) :
			rxrr_model_compare(&m, reports, labels, n, sel)) != 0)
		return NULL;
	reps = json_array();
	for (c = 0; reps != NULL && c < n; c++) {
		const json_t *d = reports[c]->doc;
		const json_t *env = json_object_get(d, "env");

		if (json_array_append_new(reps, json_pack(
				"{s:o, s:O, s:O, s:O, s:O, s:O, s:I, s:I}",
				"label", rxrr_jstr(labels[c]),
				"created", json_object_get(d, "created"),
				"partial", json_object_get(d, "partial"),
				"host", json_object_get(env, "host"),
				"dpdk_version", json_object_get(env,
					"dpdk_version"),
				"memory", json_object_get(env, "memory"),
				"runs", (json_int_t)rxr_report_nb_runs(
					reports[c]),
				"cut_short", (json_int_t)rxr_report_nb_cut_short(
					reports[c]))) != 0) {
			json_decref(reps);
			reps = NULL;
		}
	}
	if (reps != NULL)
		doc = json_pack("{s:s, s:s, s:s, s:b, s:s, s:f, s:o, s:o*, "
			"s:o*, s:o*}",
			"schema", RXR_REPORT_COMPARE_SCHEMA,
			"sign", "delta_pct > 0 is better: higher for rates, "
				"lower for costs; against the first column",
			"test", m.paired ? RXR_STATS_PAIRED_METHOD ", two-sided" :
				RXR_STATS_TEST_METHOD ", two-sided, unpaired",
			"paired", m.paired,
			"interval", m.paired ? RXR_STATS_PAIRED_CI_METHOD :
				RXR_STATS_UNPAIRED_CI_METHOD,
			"alpha", m.alpha,
			"reports", reps, "columns", columns_json(&m),
			"rows", rows_json(&m), "histograms", hists_json(&m));
	rxrr_model_free(&m);
	return doc;
}

