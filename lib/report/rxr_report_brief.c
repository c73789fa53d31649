/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The brief table: one row per configuration, one column per metric that
 * decides between strategies, within 120 columns. The full table
 * (rxr_report_render_text) has every metric.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_model.h"
#include "rxr_stats.h"

/* The columns: a metric of the model, or the drops of every cause. */
static const struct {
	const char *metric;	/* NULL: drops, summed over causes */
	const char *header;
	bool delta;		/* % against the first configuration */
	bool share;		/* a fraction printed as a percentage */
} brief_cols[] = {
	{ "gbps", "Gbit/s", true, false },
	{ "mpps", "Mpps", false, false },
	{ "refill_cycles_per_frame", "refill cyc/frame", true, false },
	{ "allocator_cycles_per_packet", "alloc cyc/pkt", true, false },
	{ NULL, "drops", false, false },
	{ RXR_REPORT_PATH(zone_lock, wait_share), "zone wait", false, true },
};

#define NB_COLS (sizeof(brief_cols) / sizeof(brief_cols[0]))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* The model's row of metric: its Mean when it has one, else its Median. */
static const struct rxrr_row *
find_row(const struct rxrr_model *m, const char *metric)
{
	const struct rxrr_row *median = NULL;
	size_t i;

	for (i = 0; i < m->nrows; i++) {
		const struct rxrr_row *row = &m->rows[i];

		if (strcmp(row->metric, metric) != 0)
			continue;
		if (strcmp(row->stat, "Mean") == 0)
			return row;
		if (strcmp(row->stat, "Median") == 0)
			median = row;
	}
	return median;
}

/* Drops of every cause per complete repetition of column c, the mean. */
static double
drops_mean(const struct rxrr_group *g)
{
	double sum = 0;
	size_t r, n = 0;

	for (r = 0; r < g->nb_runs; r++) {
		const json_t *drops = json_object_get(g->runs[r], "drops");
		const char *key;
		json_t *v;

		if (!rxrr_run_complete(g->runs[r]))
			continue;
		json_object_foreach((json_t *)(uintptr_t)drops, key, v)
			sum += rxrr_num(v);
		n++;
	}
	return n != 0 ? sum / (double)n : NAN;
}

/* The value part of a cell. */
static void
fmt_cell_value(const struct rxrr_row *row, unsigned int c, bool share, char *buf,
		size_t len)
{
	if (row == NULL || isnan(row->v[c]))
		snprintf(buf, len, "-");
	else if (share)
		snprintf(buf, len, "%.2f%%", 100.0 * row->v[c]);
	else
		snprintf(buf, len, "%.*f", row->prec, row->v[c]);
}

/*
 * The % part: nothing for the first column, a row of zeros or no value;
 * "n.s." when tested and not significant, "n.t." when untested.
 */
static void
fmt_cell_delta(const struct rxrr_row *row, unsigned int c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (row == NULL || c == 0 || row->dir == RXRR_DIR_NONE ||
			isnan(row->v[c]) || isnan(row->d[c]))
		return;
	snprintf(buf, len, "%+.1f%%%s", row->d[c], row->sig[c] ? "" :
		isnan(row->p[c]) ? " n.t." : " n.s.");
}

/* The table's figures: a row per configuration, a column per metric. */
struct brief {
	const struct rxrr_model *m;
	const struct rxrr_row *rows[NB_COLS];	/* NULL: drops */
	double *drops;		/* per configuration: drops_mean() */
};

static bool
brief_label(const void *ctx, size_t c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct brief *)ctx)->m->headers[c]);
	return true;
}

/* Cell (configuration c, column i): its value and its % part. */
static void
brief_cell(const void *ctx, size_t c, unsigned int i, char *val, char *delta,
		size_t len)
{
	const struct brief *b = ctx;

	if (brief_cols[i].metric == NULL)
		snprintf(val, len, isnan(b->drops[c]) ? "-" : "%.0f",
			b->drops[c]);
	else
		fmt_cell_value(b->rows[i], (unsigned int)c, brief_cols[i].share,
			val, len);
	fmt_cell_delta(brief_cols[i].delta ? b->rows[i] : NULL,
		(unsigned int)c, delta, len);
}

/* What the figures are, the header and a row per configuration. */
static void
brief_table(const struct brief *b, const struct rxrr_group *g,
		struct rxrr_line *l, FILE *out)
{
	const struct rxrr_model *m = b->m;
	const char *headers[NB_COLS];
	const struct rxrr_grid grid = {
		.corner = "configuration", .sep = "  ", .right = false,
		.ncols = NB_COLS, .headers = headers, .nrows = m->ncols,
		.label = brief_label, .cell = brief_cell, .ctx = b,
	};
	size_t most = 0;

	for (unsigned int c = 0; c < m->ncols; c++)
		most = MAX(most, g[c].nb_runs);
	for (size_t i = 0; i < NB_COLS; i++)
		headers[i] = brief_cols[i].header;
	rxrr_line_add(l, "%s of up to %zu repetition%s per configuration (zone "
		"wait: median); %% against %s, positive = better",
		m->minmax ? "mean" : "median", most, most == 1 ? "" : "s",
		m->headers[0]);
	rxrr_line_put(l, out);
	rxrr_print_grid(&grid, l, out);
}

/* The lines above the table: machine, partial, cut short, noise, checks. */
static void
brief_header(const struct rxr_report *r, struct rxrr_line *l, FILE *out)
{
	const json_t *env = json_object_get(r->doc, "env");
	char *s, *t;

	s = rxrr_clean_dup(json_string_value(json_object_get(env, "host")));
	t = rxrr_clean_dup(json_string_value(json_object_get(env, "cpu_model")));
	rxrr_line_add(l, "report: host %s, cpu %s, ", s != NULL ? s : "",
		t != NULL ? t : "");
	free(s);
	free(t);
	rxrr_print_env_line(r->doc, l);
	rxrr_line_put(l, out);
	if (json_is_true(json_object_get(r->doc, "partial"))) {
		rxrr_line_add(l, "partial: the run was interrupted, only the "
			"repetitions that completed are shown");
		rxrr_line_put(l, out);
	}
	rxrr_print_cut_short(r, "", l, out);
	rxrr_print_noise_count(r, "", l, out);
	if (json_is_true(rxrr_path(env, "build.debug_checks"))) {
		rxrr_line_add(l, "note: built with debug checks: these figures "
			"are not for comparison");
		rxrr_line_put(l, out);
	}
}

int
rxr_report_render_brief(const struct rxr_report *r, FILE *out)
{
	const char *metrics[NB_COLS];
	struct rxr_report_select sel = { .metrics = metrics };
	struct rxrr_line l = { .len = 0 };
	struct brief b = { .m = NULL };
	struct rxrr_group *g = NULL;
	struct rxrr_model m;
	size_t i, ng = 0;
	int ret = -ENOMEM;

	/* The model's rows the columns take: every metric but the drops. */
	for (i = 0; i < NB_COLS; i++)
		if (brief_cols[i].metric != NULL)
			metrics[sel.nb_metrics++] = brief_cols[i].metric;
	if (rxrr_model_single(&m, r, &sel) != 0)
		return -ENOMEM;
	if (rxrr_groups(r->doc, &g, &ng) != 0)
		goto out;
	brief_header(r, &l, out);
	if (m.ncols == 0 || ng != m.ncols) {
		rxrr_line_add(&l, "no runs");
		rxrr_line_put(&l, out);
		ret = 0;
		goto out;
	}
	b = (struct brief){ .m = &m };
	b.drops = calloc(m.ncols + 1, sizeof(*b.drops));
	if (b.drops == NULL)
		goto out;
	for (i = 0; i < NB_COLS; i++)
		b.rows[i] = brief_cols[i].metric != NULL ?
			find_row(&m, brief_cols[i].metric) : NULL;
	for (unsigned int c = 0; c < m.ncols; c++)
		b.drops[c] = drops_mean(&g[c]);
	brief_table(&b, g, &l, out);
	if (m.ncols > 1) {
		rxrr_line_add(&l, "n.s.: not significant at alpha %g, each against "
			"the first (%s); n.t.: not tested", m.alpha, m.paired ?
			"sign-flip test over paired rounds" :
			"permutation test of the means, unpaired");
		rxrr_line_put_wrapped(&l, out);
		fputc('\n', out);
		rxrr_print_verdict_single(r, m.alpha, &l, out);
	}
	ret = 0;
out:
	free(b.drops);
	rxrr_groups_free(g, ng);
	rxrr_model_free(&m);
	rxrr_line_free(&l);
	if (ret == 0 && l.oom)
		ret = -ENOMEM;
	if (ret == 0 && ferror(out))
		ret = -EIO;
	return ret;
}
