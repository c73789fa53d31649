/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Several reports side by side: as text, and as an rxrefill-compare/1
 * JSON document made from the same model; the refill latency percentiles
 * of each, and the differences of their environments.
 */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"
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

	if (rxrr_model(&m, reports, labels, n, sel) != 0)
		return -ENOMEM;
	rxrr_line_add(&l, "rxrefill-compare: %u report%s (%s), ", n,
		n == 1 ? "" : "s", RXR_REPORT_SCHEMA);
	rxrr_line_add(&l, RXRR_SIGN_CONVENTION("report"));
	rxrr_line_put(&l, out);
	for (c = 0; c < n; c++) {
		const json_t *doc = reports[c]->doc;
		const json_t *env = json_object_get(doc, "env");

		rxrr_line_add(&l, "%s: created %s, host ", m.headers[c],
			json_string_value(json_object_get(doc, "created")));
		rxrr_line_clean(&l, json_string_value(json_object_get(env,
			"host")));
		rxrr_line_add(&l, ", ");
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

/* The per-column arrays of a row, in the order they are written. */
static const char *const cell_keys[] = {
	"values", "delta_pct", "p", "significant", "ratio", "difference",
	"ci_lo", "ci_hi", "test", "n", "p_unpaired",
};

/* Column c of row's array k (cell_keys). */
static json_t *
cell_json(const struct rxrr_row *row, unsigned int c, unsigned int k,
		double alpha)
{
	const struct rxr_stats_cmp *r = &row->cmp[c];
	bool has = row->tested && c > 0 && r->n > 0;

	switch (k) {
	case 0: return rxrr_jnum(row->v[c]);
	case 1: return rxrr_jnum(row->d[c]);
	case 2: return rxrr_jnum(r->p);
	/* Untested rows carry no verdict, not "false". */
	case 3: return c == 0 || !row->tested ? json_null() :
		json_boolean(r->p < alpha);
	case 4: return rxrr_jnum(has && r->ratio ? r->est : NAN);
	case 5: return rxrr_jnum(has && !r->ratio ? r->est : NAN);
	case 6: return rxrr_jnum(has ? r->lo : NAN);
	case 7: return rxrr_jnum(has ? r->hi : NAN);
	case 8: return has && !isnan(r->p) ? json_string(r->test) :
		json_null();
	case 9: return has ? json_pack("{s:b, s:I, s:I}", "paired", r->paired,
		"n", (json_int_t)r->n, "n_base", (json_int_t)r->n_base) :
		json_null();
	}
	return rxrr_jnum(row->p_unpaired[c]);
}

static json_t *
rows_json(const struct rxrr_model *m)
{
	static const char *const dir_names[] = {
		[RXRR_DIR_NONE] = NULL, [RXRR_DIR_HIGHER] = "higher",
		[RXRR_DIR_LOWER] = "lower",
	};
	json_t *rows = json_array();

	for (size_t i = 0; rows != NULL && i < m->nrows; i++) {
		const struct rxrr_row *row = &m->rows[i];
		char stat[16];
		unsigned int c, k;
		json_t *o;

		for (c = 0; c + 1 < sizeof(stat) && row->stat[c] != '\0'; c++)
			stat[c] = (char)tolower((unsigned char)row->stat[c]);
		stat[c] = '\0';
		o = json_pack("{s:s?, s:s, s:s, s:s?, s:b}", "config",
			row->config, "metric", row->metric, "stat", stat,
			"better", dir_names[row->dir], "tested", row->tested);
		for (k = 0; o != NULL && k < NELEMS(cell_keys); k++) {
			json_t *a = json_array();

			for (c = 0; a != NULL && c < m->ncols; c++)
				json_array_append_new(a, cell_json(row, c, k, m->alpha));
			if (rxrr_jset(o, cell_keys[k], a)) {
				json_decref(o);
				o = NULL;
			}
		}
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
				json_array_append_new(share, h->total[c] ?
					json_real(100.0 * (double)h->counts[c][b] /
					(double)h->total[c]) : json_null());
			/* o* steals share, also when packing fails. */
			if (json_array_append_new(buckets, json_pack(
					"{s:I, s:I, s:o*}",
					"lo", (json_int_t)rxrr_hist_lo(b),
					"hi", (json_int_t)rxrr_hist_hi(b),
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
	if (rxrr_model(&m, reports, n == 1 ? NULL : labels, n, sel) != 0)
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
				RXR_STATS_UNPAIRED_METHOD ", two-sided, unpaired",
			"paired", m.paired,
			"interval", RXR_STATS_CMP_CI_METHOD,
			"alpha", m.alpha,
			"reports", reps, "columns", columns_json(&m),
			"rows", rows_json(&m), "histograms", hists_json(&m));
	rxrr_model_free(&m);
	return doc;
}


/* Percentile p of configuration cfg in each report (cols), as a row. */
static json_t *
pct_row(const struct rxrr_group *cfg, unsigned int p,
		struct rxrr_group *const *cols, unsigned int n)
{
	json_t *v = json_array(), *lo = json_array(), *hi = json_array();
	json_t *row;
	char label[160];

	rxrr_group_label(cfg, label, sizeof(label));
	row = json_pack("{s:s, s:s, s:o*, s:o*, s:o*}", "config", label,
		"percentile", rxrr_pct_names[p], "ns", v, "lo", lo, "hi", hi);
	for (unsigned int c = 0; row != NULL && c < n; c++) {
		uint64_t sum[RXR_REPORT_HIST_BUCKETS];
		struct rxrr_pct pc;
		bool has = cols[c] != NULL && rxrr_group_hist(cols[c], sum) &&
			rxrr_percentile(sum, rxrr_pct_points[p], &pc) == 0;

		json_array_append_new(v, has ? json_real(pc.ns) : json_null());
		json_array_append_new(lo, has ? json_integer((json_int_t)pc.lo) :
			json_null());
		json_array_append_new(hi, has ? json_integer((json_int_t)pc.hi) :
			json_null());
	}
	return row;
}

json_t *
rxr_report_percentiles_json(struct rxr_report *const *reports,
		unsigned int n)
{
	json_t *rows = json_array();
	const struct rxrr_group *cfg;
	struct rxrr_configs cf;
	int ret = rxrr_configs_init(&cf, reports, n);

	while (ret == 0 && rows != NULL &&
			(cfg = rxrr_configs_next(&cf)) != NULL)
		for (unsigned int p = 0; ret == 0 && p < RXRR_PCT_N; p++)
			ret = json_array_append_new(rows, pct_row(cfg, p,
				cf.cols, n));
	rxrr_configs_free(&cf);
	if (ret != 0) {
		json_decref(rows);
		rows = NULL;
	}
	return rows;
}

/* A field of env as text for comparison: strings as they are, else JSON. */
static char *
env_text(const json_t *env, const char *path)
{
	const json_t *v = rxrr_path(env, path);

	if (v == NULL)
		return NULL;
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* The PMDs of a report's ports, "net_pcap,net_pcap"; NULL without ports. */
static char *
drivers_text(const json_t *env, const char *path)
{
	const json_t *p;
	char *s = NULL, *t;
	size_t i;

	json_array_foreach(json_object_get(env, path), i, p) {
		const char *d = json_string_value(json_object_get(p, "driver"));

		if (asprintf(&t, "%s%s%s", s != NULL ? s : "", i ? "," : "",
				d != NULL ? d : "?") < 0)
			t = NULL;
		free(s);
		if (t == NULL)
			return NULL;
		s = t;
	}
	return s;
}

/* The captures replayed: the argument of --replay on the command line,
 * "none" without it; NULL without a command line. */
static char *
captures_text(const json_t *env, const char *path)
{
	const char *argv = json_string_value(json_object_get(env, path));
	const char *p;

	if (argv == NULL)
		return NULL;
	p = strstr(argv, " --replay");
	if (p == NULL)
		return strdup("none");
	p += strlen(" --replay");
	p += strspn(p, " =");
	return strndup(p, strcspn(p, " "));
}

/*
 * The host is not here: the same figures from two identical machines are
 * what comparisons are for. The workload is what the runs did, as opposed
 * to where: options that change the work per packet, so that figures of
 * two workloads are not taken for a change of the allocator.
 */
static const struct {
	const char *path, *what;
	char *(*text)(const json_t *env, const char *path);
} env_fields[] = {
	{ "memory", "memory backing", env_text },
	{ "build.type", "build type", env_text },
	{ "build.debug_checks", "debug checks", env_text },
	{ "cpu_model", "CPU", env_text },
	{ "dpdk_version", "DPDK version", env_text },
	{ "rxrefill_version", "rxrefill version", env_text },
	{ "options.consumer", "workload: consumer", env_text },
	{ "options.main_polls", "workload: main lcore polling", env_text },
	{ "options.poll_lcores", "workload: poll lcores", env_text },
	{ "options.frame_size", "workload: frame size", env_text },
	{ "options.zero_policy", "workload: zeroing policy", env_text },
	{ "argv", "workload: captures", captures_text },
	{ "ports", "workload: PMD", drivers_text },
};

int
rxr_report_env_differences(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, FILE *out)
{
	const json_t *e0 = json_object_get(reports[0]->doc, "env");
	unsigned int i, k, diffs = 0;

	for (k = 0; k < NELEMS(env_fields); k++) {
		char *a = env_fields[k].text(e0, env_fields[k].path);

		for (i = 1; i < n; i++) {
			char *b = env_fields[k].text(json_object_get(
				reports[i]->doc, "env"), env_fields[k].path);

			/* A field an older report lacks is not a difference. */
			if (a != NULL && b != NULL && strcmp(a, b) != 0) {
				fprintf(out, "warning: %s differs: %s has "
					"\"%s\", %s has \"%s\"\n",
					env_fields[k].what, labels[0], a,
					labels[i], b);
				diffs++;
			}
			free(b);
		}
		free(a);
	}
	for (i = 0; i < n; i++) {
		const json_t *e = json_object_get(reports[i]->doc, "env");

		if (json_is_true(rxrr_path(e, "build.debug_checks"))) {
			fprintf(out, "warning: %s was measured with debug checks "
				"compiled in: its figures are not for "
				"comparison\n", labels[i]);
			diffs++;
		}
	}
	return (int)diffs;
}
