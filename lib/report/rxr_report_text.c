/* SPDX-License-Identifier: BSD-3-Clause */

/* Text: the model as mmtests-shaped tables and bpftrace-shaped
 * histograms, a report's header and extra tables, the brief table. */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"
#include "rxr_stats.h"

#define STAT_WIDTH 9	/* "Median   ", as mmtests' "Amean    " */
#define COL_SEP "    "

/* A row's value in column c; share: a fraction printed as a percentage. */
static void
fmt_value(const struct rxrr_row *row, unsigned int c, bool share, char *buf,
		size_t len)
{
	if (row == NULL || isnan(row->v[c]))
		snprintf(buf, len, "-");
	else if (share)
		snprintf(buf, len, "%.2f%%", 100.0 * row->v[c]);
	else
		snprintf(buf, len, "%.*f", row->prec, row->v[c]);
}

static void
fmt_delta(const struct rxrr_model *m, const struct rxrr_row *row,
		unsigned int c, char *buf, size_t len)
{
	if (row->dir == RXRR_DIR_NONE || isnan(row->v[c]))
		buf[0] = '\0';
	else if (isnan(row->d[c]))
		snprintf(buf, len, "(%7s)", "n/a");
	else if (c == 0 || row->cmp[c].p < m->alpha || !row->tested)
		snprintf(buf, len, "(%6.2f%%)", row->d[c]);
	else
		/* Noise must not read as a finding, nor an untested change
		 * (fewer than 2 values on a side) as a tested one. */
		snprintf(buf, len, "(%6.2f%%) %s", row->d[c],
			isnan(row->cmp[c].p) ? "n.t." : "n.s.");
}

/* A table of text: labels under corner, then per column sep, a value
 * and a note; row r when label() gives one. */
struct grid {
	const char *corner;
	const char *sep;
	bool right;		/* headers right-aligned (else left) */
	bool left;		/* values left-aligned, as the headers */
	const char *title;	/* a line under the headers */
	unsigned int ncols;
	const char *const *headers;
	size_t nrows;
	bool (*label)(const void *ctx, size_t r, char *buf, size_t len);
	void (*cell)(const void *ctx, size_t r, unsigned int c, char *val,
		char *note, size_t len);
	const void *ctx;
	const atomic_bool *stop;	/* set: end the rows early */
};

static void
print_grid(const struct grid *g, struct rxrr_line *l, FILE *out)
{
	/* Per column: its values' width, then its notes'. */
	size_t *valw = calloc(2 * (g->ncols + 1), sizeof(*valw)), *dw;
	size_t labelw = strlen(g->corner), r;
	char label[512], val[64], note[64];
	unsigned int c;

	if (valw == NULL) {
		l->oom = true;
		return;
	}
	dw = valw + g->ncols + 1;
	for (r = 0; r < g->nrows && !rxrr_stopped(g->stop); r++) {
		if (!g->label(g->ctx, r, label, sizeof(label)))
			continue;
		labelw = MAX(labelw, strlen(label));
		for (c = 0; c < g->ncols; c++) {
			g->cell(g->ctx, r, c, val, note, sizeof(val));
			valw[c] = MAX(valw[c], strlen(val));
			dw[c] = MAX(dw[c], strlen(note));
		}
	}
	/* A long header widens the values, right alignment holds. */
	for (c = 0; c < g->ncols; c++)
		valw[c] = MAX(valw[c], strlen(g->headers[c]) -
			MIN(strlen(g->headers[c]), dw[c] ? dw[c] + 1 : 0));
	rxrr_line_add(l, "%-*s", (int)labelw, g->corner);
	for (c = 0; c < g->ncols; c++)
		rxrr_line_add(l, g->right ? "%s%*s" : "%s%-*s", g->sep,
			(int)(valw[c] + (dw[c] ? dw[c] + 1 : 0)), g->headers[c]);
	rxrr_line_put(l, out);
	if (g->title != NULL) {
		rxrr_line_add(l, "%s", g->title);
		rxrr_line_put(l, out);
	}
	for (r = 0; r < g->nrows && !rxrr_stopped(g->stop); r++) {
		if (!g->label(g->ctx, r, label, sizeof(label)))
			continue;
		rxrr_line_add(l, "%-*s", (int)labelw, label);
		for (c = 0; c < g->ncols; c++) {
			g->cell(g->ctx, r, c, val, note, sizeof(val));
			rxrr_line_add(l, g->left ? "%s%-*s" : "%s%*s", g->sep,
				(int)valw[c], val);
			if (dw[c])
				rxrr_line_add(l, " %-*s", (int)dw[c], note);
		}
		rxrr_line_put(l, out);
	}
	free(valw);
}

/* The model's table: which section's rows are printed. */
struct table {
	const struct rxrr_model *m;
	int section;
};

static bool
table_label(const void *ctx, size_t r, char *buf, size_t len)
{
	const struct table *t = ctx;
	const struct rxrr_row *row = &t->m->rows[r];

	if (row->section != t->section)
		return false;
	snprintf(buf, len, "%-*s%s", STAT_WIDTH, row->stat, row->name);
	return true;
}

static void
table_cell(const void *ctx, size_t r, unsigned int c, char *val, char *note,
		size_t len)
{
	const struct rxrr_model *m = ((const struct table *)ctx)->m;

	fmt_value(&m->rows[r], c, false, val, len);
	fmt_delta(m, &m->rows[r], c, note, len);
}

/* bpftrace's sizes: 1K = 1024 and so on; bucket bounds are powers of 2. */
static void
fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char suffix[] = "KMGTPE";
	int k = 0;

	while (v >= 1024 && v % 1024 == 0 && k < 6) {
		v /= 1024;
		k++;
	}
	if (k == 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v,
			suffix[k - 1]);
}

/* Row r of a histogram: bucket first + r; per column its share. */
static bool
hist_label(const void *ctx, size_t r, char *buf, size_t len)
{
	const unsigned int i = ((const struct rxrr_hist *)ctx)->first +
		(unsigned int)r;
	char lo[24], hi[24];

	fmt_size(rxrr_hist_lo(i), lo, sizeof(lo));
	fmt_size(rxrr_hist_hi(i), hi, sizeof(hi));
	if (i <= 1)
		snprintf(buf, len, "[%u]", i);
	else
		snprintf(buf, len, "[%s, %s)", lo, hi);
	return true;
}

static void
hist_cell(const void *ctx, size_t r, unsigned int c, char *val, char *note,
		size_t len)
{
	const struct rxrr_hist *h = ctx;
	const unsigned int i = h->first + (unsigned int)r;
	double share;

	note[0] = '\0';
	if (h->total[c] == 0) {
		snprintf(val, len, "-");
		return;
	}
	share = 100.0 * (double)h->counts[c][i] / (double)h->total[c];
	if (h->counts[c][i] == 0)
		snprintf(val, len, "0.00%%");
	else if (share < 0.1)
		snprintf(val, len, "< 0.1%%");
	else
		snprintf(val, len, "%.2f%%", share);
}

/* What n.s. and n.t. mean and the test that ran (by name when one
 * method ran for every comparison). */
static void
print_test_note(const struct rxrr_model *m, struct rxrr_line *l, FILE *out)
{
	const char *test = NULL;
	bool mixed = false, fallback = false;

	for (size_t i = 0; i < m->nrows; i++)
		for (unsigned int c = 1; m->rows[i].tested && c < m->ncols; c++) {
			const struct rxr_stats_cmp *r = &m->rows[i].cmp[c];

			if (isnan(r->p))
				continue;
			fallback |= m->paired && !r->paired;
			if (m->paired && !r->paired)
				continue;	/* named apart */
			if (test == NULL)
				test = r->test;
			else if (strcmp(test, r->test) != 0)
				mixed = true;
		}
	rxrr_line_add(l, "n.s.: not significant at alpha %g, on the row each metric "
		"is tested on (Mean, else Median), each column against the "
		"first: ", m->alpha);
	if (test == NULL || mixed)
		rxrr_line_add(l, "%s", m->paired ? RXR_STATS_PAIRED_METHOD :
			RXR_STATS_UNPAIRED_METHOD);
	else
		rxrr_line_add(l, "%s", test);
	rxrr_line_add(l, ", two-sided");
	if (m->paired && fallback)
		rxrr_line_add(l, "; the unpaired test where no round has "
			"values on both sides");
	if (!m->paired)
		rxrr_line_add(l, ", unpaired (the columns were not measured in "
			"common rounds)");
	if (mixed)
		rxrr_line_add(l, "; exact up to 20 %s, Monte Carlo above",
			m->paired ? "rounds" : "values in all");
	rxrr_line_add(l, "; n.t.: not tested, fewer than 2 values on a side");
	rxrr_line_put(l, out);
}

/* The figures' table, the histograms (the bpftrace shape of the THP NUMA
 * fault series, 003), the streams' table: each table's widths of its own. */
void
rxrr_print_model(const struct rxrr_model *m, struct rxrr_line *l, FILE *out)
{
	bool has[2] = { false, false };
	char title[300];
	struct table t = { m, 0 };
	const struct grid g = {
		.corner = "             ", .sep = COL_SEP, .right = true,
		.ncols = m->ncols, .headers = (const char *const *)m->headers,
		.nrows = m->nrows, .label = table_label, .cell = table_cell,
		.ctx = &t, .stop = m->stop,
	};
	size_t i;

	for (i = 0; i < m->nrows; i++)
		has[m->rows[i].section] = true;
	if (has[0]) {
		fputc('\n', out);
		print_grid(&g, l, out);
		if (m->ncols > 1)
			print_test_note(m, l, out);
	}
	for (i = 0; i < m->nhists; i++) {
		fputc('\n', out);
		snprintf(title, sizeof(title), m->hists[i].config != NULL ?
			"@refill_ns[%s]:" : "@refill_ns:", m->hists[i].config);
		print_grid(&(const struct grid){
			.corner = "            ", .sep = COL_SEP, .left = true,
			.title = title, .ncols = m->ncols, .headers = g.headers,
			.nrows = m->hists[i].last - m->hists[i].first + 1,
			.label = hist_label, .cell = hist_cell,
			.ctx = &m->hists[i],
		}, l, out);
	}
	if (has[1]) {
		fputc('\n', out);
		t.section = 1;
		print_grid(&g, l, out);
	}
}

void
rxrr_print_env_line(const json_t *doc, struct rxrr_line *l)
{
	const json_t *env = json_object_get(doc, "env");
	const json_t *v;
	size_t i;

	rxrr_line_clean(l, json_string_value(json_object_get(env,
		"dpdk_version")));
	rxrr_line_add(l, ", memory %s, lcores ",
		json_string_value(json_object_get(env, "memory")));
	json_array_foreach(json_object_get(env, "lcores"), i, v)
		rxrr_line_add(l, "%s%lld", i ? "," : "",
			(long long)json_integer_value(v));
	if (json_array_size(json_object_get(env, "lcores")) == 0)
		rxrr_line_add(l, "-");
}

void
rxrr_print_cut_short(const struct rxr_report *r, const char *prefix,
		struct rxrr_line *l, FILE *out)
{
	const bool zero = rxrr_zero_listed(r->doc);
	const json_t *run;
	size_t i;

	json_array_foreach(json_object_get(r->doc, "runs"), i, run) {
		char label[256];

		if (rxrr_run_complete(run))
			continue;
		rxrr_run_label(run, zero, label, sizeof(label));
		rxrr_line_add(l, "%scut short, not counted: %s rep %lld (", prefix,
			label, (long long)json_integer_value(json_object_get(run,
				"rep")) + 1);
		rxrr_line_clean(l, json_string_value(json_object_get(run,
			"cut_short")));
		rxrr_line_add(l, ", %.3f s measured)",
			rxrr_num(json_object_get(run, "duration_s")));
		rxrr_line_put(l, out);
	}
}

/* "host <host>, cpu <model>" of a report. */
static void
print_host(const json_t *doc, const char *prefix, struct rxrr_line *l)
{
	const json_t *env = json_object_get(doc, "env");

	rxrr_line_add(l, "%shost ", prefix);
	rxrr_line_clean(l, json_string_value(json_object_get(env, "host")));
	rxrr_line_add(l, ", cpu ");
	rxrr_line_clean(l, json_string_value(json_object_get(env,
		"cpu_model")));
}

/* Whether the run was interrupted; the repetitions cut short. */
static void
print_partial(const struct rxr_report *r, struct rxrr_line *l, FILE *out)
{
	if (json_is_true(json_object_get(r->doc, "partial"))) {
		rxrr_line_add(l, "partial: the run was interrupted, only the "
			"repetitions that completed are shown");
		rxrr_line_put(l, out);
	}
	rxrr_print_cut_short(r, "", l, out);
}

int
rxr_report_render_text(const struct rxr_report *r, FILE *out,
		const struct rxr_report_select *sel)
{
	const json_t *env = json_object_get(r->doc, "env");
	const json_t *p;
	struct rxrr_line l = { .len = 0 };
	struct rxr_report *w = (struct rxr_report *)(uintptr_t)r;
	struct rxrr_model m;
	char *opts;
	size_t i;

	if (rxrr_model(&m, &w, NULL, 1, sel) != 0)
		return -ENOMEM;
	rxrr_line_add(&l, "rxrefill report (%s), created %s", RXR_REPORT_SCHEMA,
		json_string_value(json_object_get(r->doc, "created")));
	rxrr_line_put(&l, out);
	print_host(r->doc, "", &l);
	rxrr_line_put(&l, out);
	rxrr_print_env_line(r->doc, &l);
	rxrr_line_put(&l, out);
	rxrr_line_add(&l, "ports");
	json_array_foreach(json_object_get(env, "ports"), i, p) {
		rxrr_line_add(&l, "%s %lld ", i ? "," : "", (long long)
			json_integer_value(json_object_get(p, "port")));
		rxrr_line_clean(&l, json_string_value(json_object_get(p,
			"driver")));
		rxrr_line_add(&l, " ");
		rxrr_line_clean(&l, json_string_value(json_object_get(p,
			"name")));
	}
	if (json_array_size(json_object_get(env, "ports")) == 0)
		rxrr_line_add(&l, " -");
	rxrr_line_put(&l, out);
	opts = json_dumps(json_object_get(env, "options"), JSON_COMPACT |
		JSON_REAL_PRECISION(12));
	rxrr_line_add(&l, "options ");
	rxrr_line_clean(&l, opts);
	free(opts);
	rxrr_line_put(&l, out);
	rxrr_line_add(&l, "command ");
	rxrr_line_clean(&l, json_string_value(json_object_get(env, "argv")));
	rxrr_line_put(&l, out);
	print_partial(r, &l, out);
	rxrr_print_disturbed(r, "", &l, out);
	rxrr_line_add(&l, m.ncols == 0 ? "no runs" :
		RXRR_SIGN_CONVENTION("column"));
	rxrr_line_put(&l, out);
	rxrr_print_model(&m, &l, out);
	if (m.ncols > 1 && rxrr_selected(sel, "gbps")) {
		fputc('\n', out);
		rxrr_print_verdict_single(&m, &l, out);
	}
	rxrr_model_free(&m);
	rxrr_line_free(&l);
	if (l.oom)
		return -ENOMEM;
	return ferror(out) ? -EIO : 0;
}

static int
print_percentiles(const struct rxr_report *r, FILE *out)
{
	struct rxrr_group *g;
	size_t n, i;
	bool header = false;
	int w;

	if (rxrr_groups(r->doc, &g, &n) != 0)
		return -ENOMEM;
	/* "recycle-nobulk", or "recycle-nobulk zero=background/contig". */
	w = n != 0 && g[0].zero ? 38 : 18;
	for (i = 0; i < n; i++) {
		uint64_t sum[RXR_REPORT_HIST_BUCKETS];
		char label[160], lo[24], hi[24], *clean;
		unsigned int p;

		if (!rxrr_group_hist(&g[i], sum))
			continue;
		if (!header) {
			fprintf(out, "\nRefill latency percentiles (ns; estimate "
				"[bucket]), all repetitions\n%-*s", w, "");
			for (p = 0; p < RXRR_PCT_N; p++)
				fprintf(out, p + 1 < RXRR_PCT_N ? " %-22s" :
					" %s", rxrr_pct_names[p]);
			fputc('\n', out);
			header = true;
		}
		rxrr_group_label(&g[i], label, sizeof(label));
		/* A name from a file never reaches the terminal raw. */
		clean = rxrr_clean_dup(label);
		fprintf(out, "%-*s", w, clean != NULL ? clean : "?");
		free(clean);
		for (p = 0; p < RXRR_PCT_N; p++) {
			struct rxrr_pct pc;
			char cell[80];

			if (rxrr_percentile(sum, rxrr_pct_points[p],
					&pc) != 0) {
				fprintf(out, " %-22s", "-");
				continue;
			}
			fmt_size(pc.lo, lo, sizeof(lo));
			fmt_size(pc.hi, hi, sizeof(hi));
			snprintf(cell, sizeof(cell), "%.0f [%s, %s)", pc.ns, lo,
				hi);
			fprintf(out, p + 1 < RXRR_PCT_N ? " %-22s" : " %s",
				cell);
		}
		fputc('\n', out);
	}
	rxrr_groups_free(g, n);
	return 0;
}

static const char *
run_label(const json_t *run, bool zero, char *buf, size_t len)
{
	char cfg[160];

	rxrr_run_label(run, zero, cfg, sizeof(cfg));
	/* Printed from 1, as the progress lines count; 0-based in JSON. */
	snprintf(buf, len, "%s rep %lld", cfg,
		(long long)json_integer_value(json_object_get(run, "rep")) + 1);
	return buf;
}

static long long
jint(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

static void
print_detail(const struct rxr_report *r, FILE *out)
{
	const json_t *runs = json_object_get(r->doc, "runs"), *run, *v;
	const bool zero = rxrr_zero_listed(r->doc);
	char label[200];
	size_t i, j;
	const char *key;

	fprintf(out, "\nPer queue: port queue lcore packets bytes | ethdev "
		"q_ipackets q_ibytes q_errors (- where the PMD has none)\n");
	json_array_foreach(runs, i, run) {
		run_label(run, zero, label, sizeof(label));
		json_array_foreach(json_object_get(run, "queues"), j, v) {
			fprintf(out, "%-24s %4lld %5lld %5lld %12lld %14lld |",
				label, jint(v, "port"), jint(v, "queue"),
				jint(v, "lcore"), jint(v, "packets"),
				jint(v, "bytes"));
			if (json_object_get(v, "q_ipackets") != NULL)
				fprintf(out, " %12lld %14lld %8lld\n",
					jint(v, "q_ipackets"),
					jint(v, "q_ibytes"), jint(v, "q_errors"));
			else
				fprintf(out, " -\n");
		}
	}
	fprintf(out, "\nPer poll lcore: lcore cpu cycles busy_share\n");
	json_array_foreach(runs, i, run) {
		run_label(run, zero, label, sizeof(label));
		json_array_foreach(json_object_get(run, "lcores"), j, v)
			fprintf(out, "%-24s %5lld %4lld %14lld %8.3f\n", label,
				jint(v, "lcore"), jint(v, "cpu"),
				jint(v, "cycles"),
				rxrr_num(json_object_get(v, "busy_share")));
	}
	fprintf(out, "\nExtended statistics that changed: port name delta\n");
	json_array_foreach(runs, i, run) {
		const json_t *ports;

		run_label(run, zero, label, sizeof(label));
		ports = json_object_get(run, "xstats");
		json_array_foreach(ports, j, v) {
			const json_t *c;

			json_object_foreach((json_t *)(uintptr_t)
					json_object_get(v, "changed"), key, c)
				fprintf(out, "%-24s %4lld %-32s %14lld\n", label,
					jint(v, "port"), key,
					(long long)json_integer_value(c));
		}
	}
}

int
rxr_report_render_extra(const struct rxr_report *r, FILE *out, bool detail)
{
	const json_t *env = json_object_get(r->doc, "env");

	if (json_is_true(rxrr_path(env, "build.debug_checks")))
		fprintf(out, "\nnote: built with debug checks: these figures "
			"are not for comparison\n");
	if (print_percentiles(r, out) != 0)
		return -ENOMEM;
	if (detail)
		print_detail(r, out);
	return ferror(out) ? -EIO : 0;
}

/*
 * The brief table's columns: a metric of the model, or the drops of every
 * cause. A report of several zeroings per strategy and bulk has the poll
 * lcore's clear and rest cycles instead of the allocator's.
 */
enum brief_when { BRIEF_ALWAYS, BRIEF_PLAIN, BRIEF_ZERO };
static const struct {
	const char *metric;	/* NULL: drops, summed over causes */
	const char *header;
	bool delta;		/* % against the first configuration */
	bool share;		/* a fraction printed as a percentage */
	enum brief_when when;
} brief_cols[] = {
	{ "gbps", "Gbit/s", true, false, BRIEF_ALWAYS },
	{ "mpps", "Mpps", false, false, BRIEF_ALWAYS },
	{ "refill_cycles_per_frame", "refill cyc/frame", true, false,
		BRIEF_PLAIN },
	{ "allocator_cycles_per_packet", "alloc cyc/pkt", true, false,
		BRIEF_PLAIN },
	{ RXR_REPORT_PATH(poll, clear_cycles_per_packet), "clear cyc/pkt",
		false, false, BRIEF_ZERO },
	{ RXR_REPORT_PATH(poll, rest_cycles_per_packet), "rest cyc/pkt",
		true, false, BRIEF_ZERO },
	{ NULL, "drops", false, false, BRIEF_ALWAYS },
	{ RXR_REPORT_PATH(zone_lock, wait_share), "zone wait", false, true,
		BRIEF_PLAIN },
};

#define NB_COLS NELEMS(brief_cols)

/* The model's row of metric: its Mean when it has one, else its Median. */
static const struct rxrr_row *
find_row(const struct rxrr_model *m, const char *metric)
{
	for (size_t i = 0; i < m->nrows; i++)
		if (strcmp(m->rows[i].metric, metric) == 0)
			/* Min, Median, Mean, Stddev, Max; or a Median alone. */
			return &m->rows[strcmp(m->rows[i].stat, "Min") == 0 ?
				i + 2 : i];
	return NULL;
}

/* The table's figures: a row per configuration, a column per metric. */
struct brief {
	const struct rxrr_model *m;
	unsigned int col[NB_COLS], ncols;	/* of brief_cols[] */
	const struct rxrr_row *rows[NB_COLS];	/* NULL: drops */
};

static bool
brief_label(const void *ctx, size_t c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct brief *)ctx)->m->headers[c]);
	return true;
}

/* Cell (configuration c, column i): its value and its % part, "n.s."
 * when not significant, "n.t." when untested. */
static void
brief_cell(const void *ctx, size_t c, unsigned int i, char *val, char *delta,
		size_t len)
{
	const struct brief *b = ctx;
	const struct rxrr_row *row = b->rows[i];
	const struct rxrr_group *g = &b->m->cf.g[0][c];
	double drops = 0;
	const char *key;
	json_t *v;

	fmt_value(row, (unsigned int)c, brief_cols[b->col[i]].share, val, len);
	if (brief_cols[b->col[i]].metric == NULL) {
		/* Drops of every cause, the mean of a repetition. */
		for (size_t r = 0; r < g->nb_runs; r++)
			json_object_foreach(json_object_get(g->runs[r], "drops"),
					key, v)
				drops += rxrr_num(v);
		snprintf(val, len, "%.0f", drops / (double)g->nb_runs);
	}
	delta[0] = '\0';
	if (brief_cols[b->col[i]].delta && c != 0 && row != NULL &&
			row->dir != RXRR_DIR_NONE && !isnan(row->v[c]) &&
			!isnan(row->d[c]))
		snprintf(delta, len, "%+.1f%%%s", row->d[c],
			row->cmp[c].p < b->m->alpha ? "" :
			isnan(row->cmp[c].p) ? " n.t." : " n.s.");
}

int
rxr_report_render_brief(const struct rxr_report *r, FILE *out)
{
	const char *metrics[NB_COLS], *headers[NB_COLS];
	struct rxr_report_select sel = { .metrics = metrics };
	struct rxrr_line l = { .len = 0 };
	struct brief b = { .m = NULL };
	struct rxr_report *w = (struct rxr_report *)(uintptr_t)r;
	const struct rxrr_group *g;
	struct rxrr_model m;
	size_t i, most = 0;

	/* The model's rows the columns take: every metric but the drops. */
	for (i = 0; i < NB_COLS; i++)
		if (brief_cols[i].metric != NULL)
			metrics[sel.nb_metrics++] = brief_cols[i].metric;
	if (rxrr_model(&m, &w, NULL, 1, &sel) != 0)
		return -ENOMEM;
	g = m.cf.g[0];
	/* The machine, partial, cut short, noise, checks. */
	print_host(r->doc, "report: ", &l);
	rxrr_line_add(&l, ", ");
	rxrr_print_env_line(r->doc, &l);
	rxrr_line_put(&l, out);
	print_partial(r, &l, out);
	rxrr_print_noise_count(r, "", &l, out);
	if (json_is_true(rxrr_path(json_object_get(r->doc, "env"),
			"build.debug_checks"))) {
		rxrr_line_add(&l, "note: built with debug checks: these figures "
			"are not for comparison");
		rxrr_line_put(&l, out);
	}
	if (m.ncols == 0) {
		rxrr_line_add(&l, "no runs");
		rxrr_line_put(&l, out);
		goto out;
	}
	b.m = &m;
	for (i = 0; i < NB_COLS; i++) {
		if (brief_cols[i].when != BRIEF_ALWAYS &&
				(brief_cols[i].when == BRIEF_ZERO) != g[0].zero)
			continue;
		headers[b.ncols] = brief_cols[i].header;
		b.rows[b.ncols] = brief_cols[i].metric != NULL ?
			find_row(&m, brief_cols[i].metric) : NULL;
		b.col[b.ncols++] = (unsigned int)i;
	}
	for (i = 0; i < m.ncols; i++)
		most = MAX(most, g[i].nb_runs);
	rxrr_line_add(&l, "%s of up to %zu repetition%s per configuration%s; "
		"%% against %s, positive = better",
		m.minmax ? "mean" : "median", most, most == 1 ? "" : "s",
		g[0].zero ? "" : " (zone wait: median)", m.headers[0]);
	rxrr_line_put(&l, out);
	print_grid(&(const struct grid){
		.corner = "configuration", .sep = "  ", .right = false,
		.ncols = b.ncols, .headers = headers, .nrows = m.ncols,
		.label = brief_label, .cell = brief_cell, .ctx = &b,
	}, &l, out);
	if (m.ncols > 1) {
		rxrr_line_add(&l, "n.s.: not significant at alpha %g, each against "
			"the first (%s); n.t.: not tested", m.alpha, m.paired ?
			"sign-flip test over paired rounds" :
			"permutation test of the means, unpaired");
		rxrr_line_put_wrapped(&l, out);
		fputc('\n', out);
		rxrr_print_verdict_single(&m, &l, out);
	}
out:
	rxrr_model_free(&m);
	rxrr_line_free(&l);
	if (l.oom)
		return -ENOMEM;
	return ferror(out) ? -EIO : 0;
}
