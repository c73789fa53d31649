/* SPDX-License-Identifier: BSD-3-Clause */

/* rxrefill-compare --format csv|markdown, rendered from the JSON model. */

#include <math.h>
#include <string.h>

#include "compare_format.h"

int
compare_format_parse(const char *s)
{
	static const char *const names[] = {
		[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json",
		[FORMAT_CSV] = "csv", [FORMAT_MARKDOWN] = "markdown",
	};

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return strcmp(s, "md") == 0 ? FORMAT_MARKDOWN : -1;
}

/* RFC 4180: quoted when it holds a comma, a quote or a line break. */
static void
csv_field(FILE *out, const char *s)
{
	if (s == NULL)
		s = "";
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* A scalar of the document as a CSV field: numbers to 15 significant
 * digits (no binary noise), true or false, a string; empty when null. */
static void
scalar_field(FILE *out, const json_t *v)
{
	if (json_is_number(v))
		fprintf(out, "%.15g", json_number_value(v));
	else if (json_is_boolean(v))
		fputs(json_is_true(v) ? "true" : "false", out);
	else if (json_is_string(v))
		csv_field(out, json_string_value(v));
}

/* The CSV's columns after config, metric, statistic and report: a row's
 * own (r), its array per column (c), or a member of its n[] object (n). */
static const struct {
	const char *key;
	char at;
} csv_cols[] = {
	{ "values", 'c' }, { "delta_pct", 'c' }, { "better", 'r' },
	{ "p", 'c' }, { "significant", 'c' }, { "ratio", 'c' },
	{ "ci_lo", 'c' }, { "ci_hi", 'c' }, { "test", 'c' },
	{ "paired", 'n' }, { "n", 'n' }, { "n_base", 'n' },
	{ "p_unpaired", 'c' }, { "difference", 'c' },
};
#define NB_CSV_COLS (sizeof(csv_cols) / sizeof(csv_cols[0]))

static const char *
row_config(const json_t *row)
{
	const char *c = json_string_value(json_object_get(row, "config"));

	/* One report's table has no config column: the metric carries it. */
	return c != NULL ? c : "";
}

/* Lower latency is better: positive when v is below the first report's. */
static double
pct_delta(const json_t *vals, size_t c)
{
	double base = json_number_value(json_array_get(vals, 0));
	const json_t *v = json_array_get(vals, c);

	if (!json_is_number(v) || !json_is_number(json_array_get(vals, 0)) ||
			base == 0)
		return NAN;
	return (base - json_number_value(v)) / base * 100.0;
}

/* Report c's cell of a percentile row: "<ns><unit> [<lo>, <hi>)" and
 * its change past the first report; "-" without a value. */
static void
pct_cell(const json_t *row, size_t c, const char *unit, char *buf, size_t len)
{
	const json_t *v = json_array_get(json_object_get(row, "ns"), c);
	double d = pct_delta(json_object_get(row, "ns"), c);
	int n;

	if (!json_is_number(v)) {
		snprintf(buf, len, "-");
		return;
	}
	n = snprintf(buf, len, "%.0f%s [%lld, %lld)", json_number_value(v), unit,
		(long long)json_integer_value(json_array_get(json_object_get(row,
			"lo"), c)),
		(long long)json_integer_value(json_array_get(json_object_get(row,
			"hi"), c)));
	if (c > 0 && !isnan(d) && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (%+.2f%%)", d);
}

/* A column's label: "columns" (configurations of one report, or the
 * reports), else the report's label. */
static const char *
col_label(const json_t *doc, size_t c)
{
	const char *s = json_string_value(json_array_get(json_object_get(doc,
			"columns"), c));

	return s != NULL ? s : json_string_value(json_object_get(
		json_array_get(json_object_get(doc, "reports"), c), "label"));
}

static void
csv_head(FILE *out, const char *config, const char *metric,
		const char *stat, const char *report)
{
	csv_field(out, config);
	fputc(',', out);
	csv_field(out, metric);
	fprintf(out, ",%s,", stat);
	csv_field(out, report);
}

int
compare_write_csv(const json_t *doc, FILE *out)
{
	const json_t *reports = json_object_get(doc, "reports"), *row;
	char name[64];
	size_t i, c, k;

	fputs("config,metric,statistic,report", out);
	for (k = 0; k < NB_CSV_COLS; k++)
		fprintf(out, ",%s", k == 0 ? "value" : csv_cols[k].key);
	fputc('\n', out);
	json_array_foreach(json_object_get(doc, "rows"), i, row) {
		for (c = 0; c < json_array_size(json_object_get(row, "values"));
				c++) {
			const json_t *n = json_array_get(json_object_get(row,
				"n"), c);

			/* One report's table: columns are its configurations. */
			csv_head(out, row_config(row), json_string_value(
				json_object_get(row, "metric")), json_string_value(
				json_object_get(row, "stat")), col_label(doc, c));
			for (k = 0; k < NB_CSV_COLS; k++) {
				const char *key = csv_cols[k].key;

				fputc(',', out);
				scalar_field(out, csv_cols[k].at == 'r' ?
					json_object_get(row, key) :
					csv_cols[k].at == 'n' ?
					json_object_get(n, key) : json_array_get(
						json_object_get(row, key), c));
			}
			fputc('\n', out);
		}
	}
	/* The percentiles: value, change (lower is better), nothing else. */
	json_array_foreach(json_object_get(doc, "refill_latency_percentiles"),
			i, row) {
		const json_t *vals = json_object_get(row, "ns");

		for (c = 0; c < json_array_size(vals); c++) {
			double d = pct_delta(vals, c);

			snprintf(name, sizeof(name), "refill_latency.%s",
				json_string_value(json_object_get(row,
					"percentile")));
			csv_head(out, json_string_value(json_object_get(row,
				"config")), name, "all_reps", json_string_value(
				json_object_get(json_array_get(reports, c),
					"label")));
			fputc(',', out);
			scalar_field(out, json_array_get(vals, c));
			fputc(',', out);
			if (!isnan(d))
				fprintf(out, "%.15g", d);
			fputs(",lower", out);
			for (k = 3; k < NB_CSV_COLS; k++)
				fputc(',', out);
			fputc('\n', out);
		}
	}
	return ferror(out) ? -1 : 0;
}

/* Markdown cells: a '|' would end the cell. */
static void
md_text(FILE *out, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
}

static const json_t *
row_at(const json_t *row, const char *key, size_t c)
{
	return json_array_get(json_object_get(row, key), c);
}

/* Column c of a row: the value; past the first, its change (n.s., n.t.)
 * and, on the tested row, ratio, interval and p. */
static void
md_cell(const json_t *row, size_t c, FILE *out)
{
	const json_t *v = row_at(row, "values", c);
	const json_t *d = row_at(row, "delta_pct", c);
	const json_t *ratio = row_at(row, "ratio", c);
	const json_t *p = row_at(row, "p", c);

	if (!json_is_number(v)) {
		fputs(" - |", out);
		return;
	}
	if (c == 0 || !json_is_number(d)) {
		fprintf(out, " %.4g |", json_number_value(v));
		return;
	}
	fprintf(out, " %.4g (%+.2f%%%s)", json_number_value(v),
		json_number_value(d),
		!json_is_false(row_at(row, "significant", c)) ? "" :
		json_is_number(p) ? " n.s." : " n.t.");
	if (json_is_number(ratio))
		fprintf(out, " %.2fx", json_number_value(ratio));
	else if (json_is_number(row_at(row, "difference", c)))
		fprintf(out, " diff %+.3g", json_number_value(row_at(row,
			"difference", c)));
	if (json_is_number(row_at(row, "ci_lo", c)))
		fprintf(out, " CI %.2f-%.2f",
			json_number_value(row_at(row, "ci_lo", c)),
			json_number_value(row_at(row, "ci_hi", c)));
	if (json_is_number(p))
		fprintf(out, " p %.2g", json_number_value(p));
	fputs(" |", out);
}

/* A refill-latency percentile row, one report's value per column. */
static void
md_pct_row(const json_t *row, size_t ncols, FILE *out)
{
	char cell[128];
	size_t c;

	fputs("| ", out);
	md_text(out, json_string_value(json_object_get(row, "config")));
	fprintf(out, " | refill_latency.%s | all_reps |",
		json_string_value(json_object_get(row, "percentile")));
	for (c = 0; c < json_array_size(json_object_get(row, "ns")); c++) {
		pct_cell(row, c, " ns", cell, sizeof(cell));
		fprintf(out, " %s |", cell);
	}
	/* One report: one value under its configuration columns. */
	for (; c < ncols; c++)
		fputs("  |", out);
	fputc('\n', out);
}

int
compare_write_markdown(const json_t *doc, FILE *out)
{
	const json_t *row;
	size_t i, c;
	size_t ncols = json_array_size(json_object_get(doc, "columns"));

	if (ncols == 0)
		ncols = json_array_size(json_object_get(doc, "reports"));
	fputs("| config | metric | statistic |", out);
	for (c = 0; c < ncols; c++) {
		fputc(' ', out);
		md_text(out, col_label(doc, c));
		fputs(" |", out);
	}
	fputs("\n|---|---|---|", out);
	for (c = 0; c < ncols; c++)
		fputs("---:|", out);
	fputc('\n', out);
	json_array_foreach(json_object_get(doc, "rows"), i, row) {
		fputs("| ", out);
		md_text(out, row_config(row));
		fputs(" | ", out);
		md_text(out, json_string_value(json_object_get(row, "metric")));
		fputs(" | ", out);
		md_text(out, json_string_value(json_object_get(row, "stat")));
		fputs(" |", out);
		for (c = 0; c < json_array_size(json_object_get(row, "values"));
				c++)
			md_cell(row, c, out);
		fputc('\n', out);
	}
	json_array_foreach(json_object_get(doc, "refill_latency_percentiles"),
			i, row)
		md_pct_row(row, ncols, out);
	return ferror(out) ? -1 : 0;
}

int
compare_write_percentiles_text(const json_t *pct,
		const char *const *labels, unsigned int n, FILE *out)
{
	const json_t *row;
	size_t i;
	unsigned int c;

	if (json_array_size(pct) == 0)
		return 0;
	fprintf(out, "\nRefill latency percentiles, ns (estimate [bucket]), all "
		"repetitions; %% against the first, lower is better\n%-24s", "");
	for (c = 0; c < n; c++)
		fprintf(out, c + 1 < n ? " %-32s" : " %s", labels[c]);
	fputc('\n', out);
	json_array_foreach(pct, i, row) {
		char name[96], cell[128];

		snprintf(name, sizeof(name), "%s.%s",
			json_string_value(json_object_get(row, "config")),
			json_string_value(json_object_get(row, "percentile")));
		/* A name from a file never reaches the terminal raw. */
		for (char *p = name; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		fprintf(out, "%-24s", name);
		for (c = 0; c < n; c++) {
			pct_cell(row, c, "", cell, sizeof(cell));
			fprintf(out, c + 1 < n ? " %-32s" : " %s", cell);
		}
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}
