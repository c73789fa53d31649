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
		json_t *diff = json_array();
		json_t *o;
		char stat[16];

		for (c = 0; v != NULL && d != NULL && p != NULL &&
				sig != NULL && ratio != NULL && lo != NULL &&
				hi != NULL && test != NULL && cnt != NULL &&
				pu != NULL && diff != NULL && c < m->ncols; c++) {
			const struct rxr_stats_cmp *r = &row->cmp[c];
			bool has = row->tested && c > 0 && r->n > 0;

			json_array_append_new(v, rxrr_jnum(row->v[c]));
			json_array_append_new(d, rxrr_jnum(row->d[c]));
			json_array_append_new(p, rxrr_jnum(row->p[c]));
			/* Untested rows carry no verdict, not "false". */
			json_array_append_new(sig, c == 0 || !row->tested ?
				json_null() : json_boolean(row->sig[c]));
			json_array_append_new(ratio, rxrr_jnum(has && r->ratio ?
				r->est : NAN));
			json_array_append_new(diff, rxrr_jnum(has && !r->ratio ?
				r->est : NAN));
			json_array_append_new(lo, rxrr_jnum(has ? r->lo : NAN));
			json_array_append_new(hi, rxrr_jnum(has ? r->hi : NAN));
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
			"s:o*, s:o*, s:o*, s:o*, s:o*, s:o*, s:o*, s:o*}",
			"config", row->config, "metric", row->metric,
			"stat", stat, "better", dir_names[row->dir],
			"tested", row->tested,
			"values", v, "delta_pct", d, "p", p,
			"significant", sig, "ratio", ratio, "difference", diff,
			"ci_lo", lo, "ci_hi", hi, "test", test, "n", cnt,
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
				RXR_STATS_UNPAIRED_METHOD ", two-sided, unpaired",
			"paired", m.paired,
			"interval", RXR_STATS_CMP_CI_METHOD,
			"alpha", m.alpha,
			"reports", reps, "columns", columns_json(&m),
			"rows", rows_json(&m), "histograms", hists_json(&m));
	rxrr_model_free(&m);
	return doc;
}


/* The labels of the reports' configurations, in order of first sight. */
static json_t *
config_labels(struct rxrr_group *const *g, const size_t *ng, unsigned int n)
{
	json_t *labels = json_array();
	unsigned int c;
	size_t i, j;

	if (labels == NULL)
		return NULL;
	for (c = 0; c < n; c++)
		for (i = 0; i < ng[c]; i++) {
			char label[160];
			bool seen = false;
			json_t *l;

			rxrr_group_label(&g[c][i], label, sizeof(label));
			json_array_foreach(labels, j, l)
				seen |= strcmp(json_string_value(l), label) == 0;
			if (!seen && json_array_append_new(labels,
					json_string(label)) != 0) {
				json_decref(labels);
				return NULL;
			}
		}
	return labels;
}

/* The group of g[0..ng) labelled label, or NULL. */
static const struct rxrr_group *
group_of_label(const struct rxrr_group *g, size_t ng, const char *label)
{
	const struct rxrr_group *found = NULL;
	char l2[160];

	for (size_t j = 0; j < ng; j++) {
		rxrr_group_label(&g[j], l2, sizeof(l2));
		if (strcmp(l2, label) == 0)
			found = &g[j];
	}
	return found;
}

/* Percentile p of configuration label in each report, as a row. */
static json_t *
pct_row(const char *label, unsigned int p, struct rxrr_group *const *g,
		const size_t *ng, unsigned int n)
{
	json_t *v = json_array(), *lo = json_array(), *hi = json_array();
	json_t *row = json_pack("{s:s, s:s, s:o*, s:o*, s:o*}",
		"config", label, "percentile", rxrr_pct_names[p],
		"ns", v, "lo", lo, "hi", hi);
	unsigned int c;

	for (c = 0; row != NULL && c < n; c++) {
		const struct rxrr_group *gg = group_of_label(g[c], ng[c], label);
		uint64_t sum[RXR_REPORT_HIST_BUCKETS];
		struct rxrr_pct pc;

		if (gg != NULL && rxrr_group_hist(gg, sum) &&
				rxrr_percentile(sum,
				rxrr_pct_points[p], &pc) == 0) {
			json_array_append_new(v, json_real(pc.ns));
			json_array_append_new(lo,
				json_integer((json_int_t)pc.lo));
			json_array_append_new(hi,
				json_integer((json_int_t)pc.hi));
		} else {
			json_array_append_new(v, json_null());
			json_array_append_new(lo, json_null());
			json_array_append_new(hi, json_null());
		}
	}
	return row;
}

json_t *
rxr_report_percentiles_json(struct rxr_report *const *reports,
		unsigned int n)
{
	struct rxrr_group **g = calloc(n, sizeof(*g));
	size_t *ng = calloc(n, sizeof(*ng));
	json_t *rows = json_array(), *labels = NULL;
	unsigned int c, p;
	size_t i;

	if (g == NULL || ng == NULL || rows == NULL)
		goto nomem;
	for (c = 0; c < n; c++)
		if (rxrr_groups(reports[c]->doc, &g[c], &ng[c]) != 0)
			goto nomem;
	rxrr_groups_zero(g, ng, n);
	labels = config_labels(g, ng, n);
	if (labels == NULL)
		goto nomem;
	for (i = 0; i < json_array_size(labels); i++)
		for (p = 0; p < RXRR_PCT_N; p++)
			if (json_array_append_new(rows, pct_row(json_string_value(
					json_array_get(labels, i)), p, g, ng,
					n)) != 0)
				goto nomem;
	goto out;
nomem:
	json_decref(rows);
	rows = NULL;
out:
	for (c = 0; g != NULL && c < n; c++)
		rxrr_groups_free(g[c], ng[c]);
	free(g);
	free(ng);
	json_decref(labels);
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
drivers_text(const json_t *env)
{
	const json_t *ports = json_object_get(env, "ports"), *p;
	char *s = NULL, *t;
	size_t i;

	json_array_foreach(ports, i, p) {
		const char *d = json_string_value(json_object_get(p, "driver"));

		if (asprintf(&t, "%s%s%s", s != NULL ? s : "", i ? "," : "",
				d != NULL ? d : "?") < 0) {
			free(s);
			return NULL;
		}
		free(s);
		s = t;
	}
	return s;
}

/* The captures replayed: the argument of --replay on the command line,
 * "none" without it; NULL without a command line. */
static char *
captures_text(const json_t *env)
{
	const char *argv = json_string_value(json_object_get(env, "argv"));
	const char *p;
	size_t n;

	if (argv == NULL)
		return NULL;
	p = strstr(argv, " --replay");
	if (p == NULL)
		return strdup("none");
	p += strlen(" --replay");
	p += strspn(p, " =");
	n = strcspn(p, " ");
	return strndup(p, n);
}

/* What the runs did, as opposed to where: options that change the work
 * per packet, so that figures of two workloads are not taken for a
 * change of the allocator. */
static const struct {
	const char *path, *what;
} workload_fields[] = {
	{ "options.consumer", "workload: consumer" },
	{ "options.main_polls", "workload: main lcore polling" },
	{ "options.poll_lcores", "workload: poll lcores" },
	{ "options.frame_size", "workload: frame size" },
	{ "options.zero_policy", "workload: zeroing policy" },
	{ "", "workload: captures" },
	{ "", "workload: PMD" },
};

static char *
workload_text(const json_t *env, size_t k)
{
	if (workload_fields[k].path[0] != '\0')
		return env_text(env, workload_fields[k].path);
	return strcmp(workload_fields[k].what, "workload: PMD") == 0 ?
		drivers_text(env) : captures_text(env);
}

/* The host is not here: the same figures from two identical machines are
 * what comparisons are for. */
int
rxr_report_env_differences(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, FILE *out)
{
	static const struct {
		const char *path, *what;
	} fields[] = {
		{ "memory", "memory backing" },
		{ "build.type", "build type" },
		{ "build.debug_checks", "debug checks" },
		{ "cpu_model", "CPU" },
		{ "dpdk_version", "DPDK version" },
		{ "rxrefill_version", "rxrefill version" },
	};
	const json_t *e0 = json_object_get(reports[0]->doc, "env");
	unsigned int i, k, diffs = 0;

	for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
		char *a = env_text(e0, fields[k].path);

		for (i = 1; i < n; i++) {
			const json_t *e = json_object_get(reports[i]->doc, "env");
			char *b = env_text(e, fields[k].path);

			/* A field an older report lacks is not a difference. */
			if (a != NULL && b != NULL && strcmp(a, b) != 0) {
				fprintf(out, "warning: %s differs: %s has "
					"\"%s\", %s has \"%s\"\n", fields[k].what,
					labels[0], a, labels[i], b);
				diffs++;
			}
			free(b);
		}
		free(a);
	}
	for (k = 0; k < sizeof(workload_fields) / sizeof(workload_fields[0]);
			k++) {
		char *a = workload_text(e0, k);

		for (i = 1; i < n; i++) {
			char *b = workload_text(json_object_get(reports[i]->doc,
					"env"), k);

			if (a != NULL && b != NULL && strcmp(a, b) != 0) {
				fprintf(out, "warning: %s differs: %s has "
					"\"%s\", %s has \"%s\"\n",
					workload_fields[k].what, labels[0], a,
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
