/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Text output: the model printed as mmtests-shaped tables and bpftrace
 * shaped histograms, and one report's header.
 */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_model.h"
#include "rxr_stats.h"

#define STAT_WIDTH 9	/* "Median   ", as mmtests' "Amean    " */
#define COL_SEP "    "
#define TEXT_COLUMNS 120	/* what a line of the brief output fits in */



void
line_add(struct line *l, const char *fmt, ...)
{
	char *dst = l->big != NULL ? l->big : l->buf;
	size_t cap = l->big != NULL ? l->cap : sizeof(l->buf);
	va_list ap;
	int n;

	if (l->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(dst + l->len, cap - l->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		l->oom = true;
		return;
	}
	if (l->len + (size_t)n >= cap) {
		size_t ncap = 2 * (l->len + (size_t)n + 1);
		char *nb = realloc(l->big, ncap);

		if (nb == NULL) {
			l->oom = true;
			return;
		}
		if (l->big == NULL)
			memcpy(nb, l->buf, l->len);
		l->big = nb;
		l->cap = ncap;
		va_start(ap, fmt);
		vsnprintf(l->big + l->len, ncap - l->len, fmt, ap);
		va_end(ap);
	}
	l->len += (size_t)n;
}

void
line_put(struct line *l, FILE *out)
{
	char *s = l->big != NULL ? l->big : l->buf;

	while (l->len > 0 && s[l->len - 1] == ' ')
		l->len--;
	s[l->len] = '\0';
	fputs(s, out);
	fputc('\n', out);
	l->len = 0;
}

/*
 * A sentence line within TEXT_COLUMNS: broken at spaces, the rest indented
 * by four (lists indent their items by two). A word longer than a line
 * stays whole.
 */
void
line_put_wrapped(struct line *l, FILE *out)
{
	char *s = l->big != NULL ? l->big : l->buf;
	size_t start = 0, width = TEXT_COLUMNS;

	while (l->len > 0 && s[l->len - 1] == ' ')
		l->len--;
	s[l->len] = '\0';
	while (l->len - start > width) {
		size_t cut = start + width;

		while (cut > start && s[cut] != ' ')
			cut--;
		if (cut == start) {
			cut = start + width;
			while (cut < l->len && s[cut] != ' ')
				cut++;
			if (cut == l->len)
				break;
		}
		fprintf(out, "%s%.*s\n", start == 0 ? "" : "    ",
			(int)(cut - start), s + start);
		start = cut + 1;
		width = TEXT_COLUMNS - 4;
	}
	fprintf(out, "%s%s\n", start == 0 ? "" : "    ", s + start);
	l->len = 0;
}

void
line_free(struct line *l)
{
	free(l->big);
	l->big = NULL;
}

static void
fmt_value(const struct row *row, unsigned int c, char *buf, size_t len)
{
	if (isnan(row->v[c]))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", row->prec, row->v[c]);
}

static void
fmt_delta(const struct row *row, unsigned int c, char *buf, size_t len)
{
	if (row->dir == DIR_NONE || isnan(row->v[c]))
		buf[0] = '\0';
	else if (isnan(row->d[c]))
		snprintf(buf, len, "(%7s)", "n/a");
	else if (c == 0 || row->sig[c] || !row->tested)
		snprintf(buf, len, "(%6.2f%%)", row->d[c]);
	else
		/* Noise must not read as a finding. */
		snprintf(buf, len, "(%6.2f%%) n.s.", row->d[c]);
}

/* The rows of one section, widths of their own. */
static void
print_table(const struct model *m, int section, struct line *l, FILE *out)
{
	size_t *valw, *dw, *colw, namew = 4, i;
	char val[64], delta[64];
	unsigned int c;

	valw = calloc(m->ncols, sizeof(*valw));
	dw = calloc(m->ncols, sizeof(*dw));
	colw = calloc(m->ncols, sizeof(*colw));
	if (valw == NULL || dw == NULL || colw == NULL) {
		l->oom = true;
		goto out;
	}
	for (i = 0; i < m->nrows; i++) {
		const struct row *row = &m->rows[i];

		if (row->section != section)
			continue;
		if (strlen(row->name) > namew)
			namew = strlen(row->name);
		for (c = 0; c < m->ncols; c++) {
			fmt_value(row, c, val, sizeof(val));
			fmt_delta(row, c, delta, sizeof(delta));
			if (strlen(val) > valw[c])
				valw[c] = strlen(val);
			if (strlen(delta) > dw[c])
				dw[c] = strlen(delta);
		}
	}
	for (c = 0; c < m->ncols; c++) {
		colw[c] = valw[c] + (dw[c] ? 1 + dw[c] : 0);
		/* A long header widens the values, right alignment holds. */
		if (strlen(m->headers[c]) > colw[c]) {
			valw[c] += strlen(m->headers[c]) - colw[c];
			colw[c] = strlen(m->headers[c]);
		}
	}
	line_add(l, "%*s", (int)(STAT_WIDTH + namew), "");
	for (c = 0; c < m->ncols; c++)
		line_add(l, COL_SEP "%*s", (int)colw[c], m->headers[c]);
	line_put(l, out);
	for (i = 0; i < m->nrows && (m->stop == NULL || !*m->stop); i++) {
		const struct row *row = &m->rows[i];

		if (row->section != section)
			continue;
		line_add(l, "%-*s%-*s", STAT_WIDTH, row->stat, (int)namew,
			row->name);
		for (c = 0; c < m->ncols; c++) {
			fmt_value(row, c, val, sizeof(val));
			fmt_delta(row, c, delta, sizeof(delta));
			line_add(l, COL_SEP "%*s", (int)valw[c], val);
			if (dw[c])
				line_add(l, " %-*s", (int)dw[c], delta);
		}
		line_put(l, out);
	}
out:
	free(valw);
	free(dw);
	free(colw);
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

static void
fmt_bucket(unsigned int i, char *buf, size_t len)
{
	char lo[24], hi[24];

	if (i <= 1) {
		snprintf(buf, len, "[%u]", i);
		return;
	}
	fmt_size(rxr_report_hist_lo(i), lo, sizeof(lo));
	fmt_size(rxr_report_hist_hi(i), hi, sizeof(hi));
	snprintf(buf, len, "[%s, %s)", lo, hi);
}

static void
fmt_share(const struct hist *h, unsigned int c, unsigned int i, char *buf,
		size_t len)
{
	double share;

	if (!h->present[c] || h->total[c] == 0) {
		snprintf(buf, len, "-");
		return;
	}
	share = 100.0 * (double)h->counts[c][i] / (double)h->total[c];
	if (h->counts[c][i] == 0)
		snprintf(buf, len, "0.00%%");
	else if (share < 0.1)
		snprintf(buf, len, "< 0.1%%");
	else
		snprintf(buf, len, "%.2f%%", share);
}

/* The bpftrace histogram shape of the THP NUMA fault series (003). */
static void
print_hist(const struct model *m, const struct hist *h, struct line *l,
		FILE *out)
{
	size_t labelw = 12, *colw;
	char cell[64];
	unsigned int c, i;

	colw = calloc(m->ncols, sizeof(*colw));
	if (colw == NULL) {
		l->oom = true;
		return;
	}
	for (i = h->first; i <= h->last; i++) {
		fmt_bucket(i, cell, sizeof(cell));
		if (strlen(cell) > labelw)
			labelw = strlen(cell);
	}
	labelw += 4;
	for (c = 0; c < m->ncols; c++) {
		colw[c] = strlen(m->headers[c]);
		for (i = h->first; i <= h->last; i++) {
			fmt_share(h, c, i, cell, sizeof(cell));
			if (strlen(cell) > colw[c])
				colw[c] = strlen(cell);
		}
		colw[c] += 4;
	}
	line_add(l, "%*s", (int)labelw, "");
	for (c = 0; c < m->ncols; c++)
		line_add(l, "%-*s", (int)colw[c], m->headers[c]);
	line_put(l, out);
	if (h->config != NULL)
		line_add(l, "@refill_ns[%s]:", h->config);
	else
		line_add(l, "@refill_ns:");
	line_put(l, out);
	for (i = h->first; i <= h->last; i++) {
		fmt_bucket(i, cell, sizeof(cell));
		line_add(l, "%-*s", (int)labelw, cell);
		for (c = 0; c < m->ncols; c++) {
			fmt_share(h, c, i, cell, sizeof(cell));
			line_add(l, "%-*s", (int)colw[c], cell);
		}
		line_put(l, out);
	}
	free(colw);
}

/*
 * The line under the table: what n.s. means, on which rows, and the test
 * that ran (by name when one method ran for every comparison).
 */
static void
print_test_note(const struct model *m, struct line *l, FILE *out)
{
	const char *test = NULL;
	bool mixed = false, fallback = false;

	for (size_t i = 0; i < m->nrows; i++)
		for (unsigned int c = 1; m->rows[i].tested && c < m->ncols; c++) {
			const struct rxr_stats_ratio *r = &m->rows[i].cmp[c];

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
	line_add(l, "n.s.: not significant at alpha %g, on the row each metric "
		"is tested on (Mean, else Median), each column against the "
		"first: ", m->alpha);
	if (test == NULL || mixed)
		line_add(l, "%s", m->paired ? RXR_STATS_PAIRED_METHOD :
			RXR_STATS_TEST_METHOD);
	else
		line_add(l, "%s", test);
	line_add(l, ", two-sided");
	if (m->paired && fallback)
		line_add(l, "; the unpaired permutation test of the means where "
			"fewer than 2 rounds have a ratio (a count of 0)");
	if (!m->paired)
		line_add(l, ", unpaired (the columns were not measured in "
			"common rounds)");
	if (mixed)
		line_add(l, "; exact up to 20 %s, Monte Carlo above",
			m->paired ? "rounds" : "values in all");
	line_add(l, "; fewer than 2 values on a side: untested");
	line_put(l, out);
}

void
print_model(const struct model *m, struct line *l, FILE *out)
{
	bool has[2] = { false, false };
	size_t i;
	int sec;

	for (i = 0; i < m->nrows; i++)
		has[m->rows[i].section] = true;
	if (has[0]) {
		fputc('\n', out);
		print_table(m, 0, l, out);
		if (m->ncols > 1)
			print_test_note(m, l, out);
	}
	for (i = 0; i < m->nhists; i++) {
		fputc('\n', out);
		print_hist(m, &m->hists[i], l, out);
	}
	for (sec = 1; sec < 2; sec++) {
		if (!has[sec])
			continue;
		fputc('\n', out);
		print_table(m, sec, l, out);
	}
}

void
print_env_line(const json_t *doc, struct line *l)
{
	const json_t *env = json_object_get(doc, "env");
	const json_t *v;
	char *s;
	size_t i;

	s = clean_dup(json_string_value(json_object_get(env, "dpdk_version")));
	line_add(l, "%s, memory %s, lcores ", s != NULL ? s : "",
		json_string_value(json_object_get(env, "memory")));
	free(s);
	json_array_foreach(json_object_get(env, "lcores"), i, v)
		line_add(l, "%s%lld", i ? "," : "",
			(long long)json_integer_value(v));
	if (json_array_size(json_object_get(env, "lcores")) == 0)
		line_add(l, "-");
}

/* The repetitions that did not run to their end, one line each. */
void
print_cut_short(const struct rxr_report *r, const char *prefix,
		struct line *l, FILE *out)
{
	const json_t *run;
	size_t i;

	json_array_foreach(json_object_get(r->doc, "runs"), i, run) {
		char label[256], *why;

		if (rxr_report_run_complete(run))
			continue;
		rr_group_label(json_string_value(json_object_get(run,
				"strategy")), json_is_true(json_object_get(run,
				"bulk")), label, sizeof(label));
		why = clean_dup(json_string_value(json_object_get(run,
				"cut_short")));
		line_add(l, "%scut short, not counted: %s rep %lld (%s, %.3f s "
			"measured)", prefix, label, (long long)json_integer_value(
				json_object_get(run, "rep")) + 1,
			why != NULL ? why : "?",
			rr_num(json_object_get(run, "duration_s")));
		free(why);
		line_put(l, out);
	}
}

int
rxr_report_render_text(const struct rxr_report *r, FILE *out,
		const struct rxr_report_select *sel)
{
	const json_t *env = json_object_get(r->doc, "env");
	const json_t *p, *opts;
	struct line l = { .len = 0 };
	struct model m;
	char *s, *t, *u;
	size_t i;

	if (model_single(&m, r, sel) != 0)
		return -ENOMEM;
	line_add(&l, "rxrefill report (%s), created %s", RXR_REPORT_SCHEMA,
		json_string_value(json_object_get(r->doc, "created")));
	line_put(&l, out);
	s = clean_dup(json_string_value(json_object_get(env, "host")));
	t = clean_dup(json_string_value(json_object_get(env, "cpu_model")));
	line_add(&l, "host %s, cpu %s", s != NULL ? s : "", t != NULL ? t : "");
	free(s);
	free(t);
	line_put(&l, out);
	print_env_line(r->doc, &l);
	line_put(&l, out);
	line_add(&l, "ports");
	json_array_foreach(json_object_get(env, "ports"), i, p) {
		s = clean_dup(json_string_value(json_object_get(p, "driver")));
		t = clean_dup(json_string_value(json_object_get(p, "name")));
		line_add(&l, "%s %lld %s %s", i ? "," : "",
			(long long)json_integer_value(json_object_get(p,
				"port")), s != NULL ? s : "",
			t != NULL ? t : "");
		free(s);
		free(t);
	}
	if (json_array_size(json_object_get(env, "ports")) == 0)
		line_add(&l, " -");
	line_put(&l, out);
	opts = json_object_get(env, "options");
	u = json_dumps(opts, JSON_COMPACT | JSON_REAL_PRECISION(12));
	s = clean_dup(u);
	free(u);
	line_add(&l, "options %s", s != NULL ? s : "{}");
	free(s);
	line_put(&l, out);
	s = clean_dup(json_string_value(json_object_get(env, "argv")));
	line_add(&l, "command %s", s != NULL ? s : "");
	free(s);
	line_put(&l, out);
	if (json_is_true(json_object_get(r->doc, "partial"))) {
		line_add(&l, "partial: the run was interrupted, only the "
			"repetitions that completed are shown");
		line_put(&l, out);
	}
	print_cut_short(r, "", &l, out);
	print_disturbed(r, "", &l, out);
	if (m.ncols == 0) {
		line_add(&l, "no runs");
		line_put(&l, out);
	} else {
		line_add(&l, SIGN_CONVENTION("column"));
		line_put(&l, out);
	}
	print_model(&m, &l, out);
	if (m.ncols > 1 && selected(sel, "gbps")) {
		fputc('\n', out);
		rr_print_verdict_single(r, m.alpha, &l, out);
	}
	model_free(&m);
	line_free(&l);
	if (l.oom)
		return -ENOMEM;
	return ferror(out) ? -EIO : 0;
}
