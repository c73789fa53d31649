/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill-compare: several rxrefill reports side by side, % against the
 * first, in the shape of the mmtests tables of the page allocator thread.
 */

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rxr_opt.h"
#include "rxr_path.h"
#include "rxr_report.h"
#include "rxr_version.h"

#define EXIT_BAD_REPORT 1
#define EXIT_USAGE 2
#define EXIT_WORSE 3
#define EXIT_UNDECIDED 4

/* --format, by name; "md" is markdown too. */
enum compare_format {
	FORMAT_TEXT,
	FORMAT_JSON,
	FORMAT_CSV,
	FORMAT_MARKDOWN,
};
static const char *const format_names[] = {
	"text", "json", "csv", "markdown", "md", NULL,
};

static const char *prog = "rxrefill-compare";

/* What the options ask for. */
struct cmp_opts {
	struct rxr_report_select sel;
	char **metrics;			/* --metric, each name checked: sel's */
	int format;
	bool detail;
	double worse_pct;		/* --fail-if-worse, NAN when not given */
	double drops_max;		/* --drops-threshold */
	const char *read;		/* --read KIND, NULL when not given */
	bool check_paths;		/* --check-paths */
};

/* Add a --metric LIST to the selection, checking every name. */
static int
set_metric(void *ctx, const char *list, char *err, size_t errlen)
{
	struct cmp_opts *c = ctx;
	size_t len = strlen(list);
	char *copy, *p, *tok;

	/* An empty name ("gbps,,mpps") is said before an unknown one. */
	if (len == 0 || list[0] == ',' || list[len - 1] == ',' ||
			strstr(list, ",,") != NULL) {
		snprintf(err, errlen, "--metric \"%s\": empty metric name", list);
		return -1;
	}
	p = copy = strdup(list);
	while ((tok = strsep(&p, ",")) != NULL) {
		char **nm;

		if (!rxr_report_metric_known(tok)) {
			snprintf(err, errlen, "--metric: unknown metric \"%s\"; "
				"known: %s", tok, rxr_report_metric_help());
			free(copy);
			return -1;
		}
		nm = realloc(c->metrics, (c->sel.nb_metrics + 1) * sizeof(*nm));
		if (nm != NULL)
			c->metrics = nm;
		if (nm == NULL || (nm[c->sel.nb_metrics] = strdup(tok)) == NULL)
			break;
		c->sel.nb_metrics++;
	}
	c->sel.metrics = (const char *const *)c->metrics;
	free(copy);
	if (copy == NULL || tok != NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* --alpha: in (0, 1), its bounds excluded. */
static int
set_alpha(void *ctx, const char *arg, char *err, size_t errlen)
{
	double *a = &((struct cmp_opts *)ctx)->sel.alpha;

	if (rxr_opt_number("alpha", arg, 0, 1, NULL, a, err, errlen) == 0 &&
			*a > 0 && *a < 1)
		return 0;
	snprintf(err, errlen, "--alpha: '%s' is not a decimal number in "
		"(0, 1)", arg);
	return -1;
}

/* Typed options: a field of struct cmp_opts. */
#define OPT_NUMBER(m, lo, hi) \
	RXR_OPT_NUMBER_OF(struct cmp_opts, m, lo, hi, NULL)
#define OPT_FLAG(m, v) RXR_OPT_FLAG_OF(struct cmp_opts, m, v)

static int
set_format(void *ctx, const char *arg, char *err, size_t errlen)
{
	struct cmp_opts *c = ctx;

	for (int i = 0; format_names[i] != NULL; i++)
		if (strcmp(arg, format_names[i]) == 0) {
			c->format = i > FORMAT_MARKDOWN ? FORMAT_MARKDOWN : i;
			return 0;
		}
	snprintf(err, errlen, "--format \"%s\": not one of text, json, csv, "
		"markdown", arg);
	return -1;
}

static int
set_read(void *ctx, const char *arg, char *err, size_t errlen)
{
	if (strcmp(arg, "report") != 0 && strcmp(arg, "json") != 0) {
		snprintf(err, errlen, "--read \"%s\": not report or json", arg);
		return -1;
	}
	((struct cmp_opts *)ctx)->read = arg;
	return 0;
}

static int
set_version(void *ctx, const char *arg, char *err, size_t errlen)
{
	rxr_version_print(stdout, prog, NULL);
	printf("reads %s\n", RXR_REPORT_SCHEMA);
	return RXR_OPT_STOP;
}

static int set_help(void *ctx, const char *arg, char *err, size_t errlen);

/* Texts made at run time: the metric names, exit statuses. */
static char metric_help[1024], metric_complete[1024], worse_help[600];

static const struct rxr_opt opt_list[] = {
	{ "metric", 'm', "LIST", NULL, metric_complete, "Options",
		metric_help, set_metric },
	{ "json", 'j', NULL, NULL, NULL, "Options", "print the comparison as "
		"JSON (schema " RXR_REPORT_COMPARE_SCHEMA "): reports, rows with "
		"values, delta_pct, p and significant, histograms",
		OPT_FLAG(format, FORMAT_JSON) },
	{ "alpha", 'a', "A", NULL, NULL, "Options",
		"significance level of the tests, in (0, 1); default: the "
		"first report's (0.05 unless set)", set_alpha },
	{ "fail-if-worse", 'w', "PCT", NULL, NULL, "Options", worse_help,
		OPT_NUMBER(worse_pct, 0, 1e6) },
	{ "drops-threshold", 0, "N", "0", NULL, "Options",
		"with --fail-if-worse: a drop cause is worse when it rises by "
		"more than N packets a repetition on average (paired by round "
		"when the reports are); 0: any rise",
		OPT_NUMBER(drops_max, 0, 1e18) },
	{ "streams", 's', NULL, NULL, NULL, "Options",
		"print every stream's row (default: the fairness summary: "
		"smallest and largest share, Jain's index)",
		OPT_FLAG(sel.stream_rows, true) },
	{ "format", 'f', "FMT", "text", "words:text,json,csv,markdown",
		"Options", "text, json (as --json), csv (one row per "
		"configuration, metric, statistic and report, columns config, "
		"metric, statistic, report, value, delta_pct, better, p, "
		"significant, ratio, ci_lo, ci_hi, test, paired, n, n_base, "
		"p_unpaired, difference) or markdown (a table, one column per "
		"report)",
		set_format },
	{ "detail", 'd', NULL, NULL, NULL, "Options",
		"text: add the per-queue, per-lcore and extended statistics "
		"tables of a single report", OPT_FLAG(detail, true) },
	{ "read", 0, "KIND", NULL, "words:report,json", "For scripts",
		"print each file given back as one line of JSON, read as the C "
		"programs read JSON (a regular file, UTF-8, no duplicate key, "
		"numbers in range) and, with KIND report, checked as every "
		"comparison checks a report; nothing is compared. "
		"rxrefill-plot and rxrefill-sweep read their inputs so",
		set_read },
	{ "check-paths", 0, NULL, NULL, NULL, "For scripts",
		"check the paths of {\"inputs\": [PATH...], \"outputs\": "
		"[[OPTION, PATH]...]} read from standard input as rxrefill "
		"checks its own: inputs regular files; outputs none of the "
		"inputs, no device, FIFO, directory or link to one, in a "
		"writable directory, no two the same file; exit 1 or 2 naming "
		"the first refused input or output",
		OPT_FLAG(check_paths, true) },
	{ "version", 'V', NULL, NULL, NULL, "Options",
		"print the version and exit", set_version },
	{ "help", 'h', NULL, NULL, NULL, "Options",
		"print this help and exit", set_help },
};

static const struct rxr_opt_table opt_table = {
	"rxrefill-compare", opt_list, sizeof(opt_list) / sizeof(opt_list[0]),
};

/*
 * The metric names and groups for completion: "a[.b|.c]" of the help
 * list spelled out as a,a.b,a.c; a placeholder ("drops[.<cause>]") is
 * left out.
 */
static void
metric_words(char *buf, size_t len)
{
	char help[1024], *tok, *save = NULL;
	size_t off = snprintf(buf, len, "list:");

	snprintf(help, sizeof(help), "%s", rxr_report_metric_help());
	for (tok = strtok_r(help, ", ", &save); tok != NULL && off < len;
			tok = strtok_r(NULL, ", ", &save)) {
		char *alt = strchr(tok, '['), *a, *save2 = NULL;
		int base = alt != NULL ? (int)(alt - tok) : (int)strlen(tok);

		off += snprintf(buf + off, len - off, "%s%.*s",
			buf[off - 1] == ':' ? "" : ",", base, tok);
		if (alt == NULL)
			continue;
		alt[strcspn(alt, "]")] = '\0';
		for (a = strtok_r(alt + 1, "|", &save2); a != NULL && off < len;
				a = strtok_r(NULL, "|", &save2))
			if (strchr(a, '<') == NULL)
				off += snprintf(buf + off, len - off, ",%.*s%s",
					base, tok, a);
	}
}

/* A copy of s's first n bytes safe for a terminal: control characters
 * as \xNN. */
static char *
escaped_dup(const char *s, size_t n)
{
	char *out = malloc(4 * n + 1);
	size_t i, o = 0;

	if (out == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == 0x7f)
			o += (size_t)sprintf(out + o, "\\x%02x", ch);
		else
			out[o++] = (char)ch;
	}
	out[o] = '\0';
	return out;
}

/* "prog: msg" on stderr, msg escaped (it may name a file). */
static void
say_escaped(const char *msg)
{
	char *e = escaped_dup(msg, strlen(msg));

	fprintf(stderr, "%s: %s\n", prog, e != NULL ? e : msg);
	free(e);
}

/* stdout through this: control characters but newline and tab as '?'. */
static ssize_t
terminal_safe_write(void *cookie, const char *buf, size_t size)
{
	FILE *f = cookie;
	size_t i;

	for (i = 0; i < size; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
			ch = '?';
		if (fputc_unlocked(ch, f) == EOF)
			return i > 0 ? (ssize_t)i : -1;
	}
	return (ssize_t)size;
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

static int
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

			/* One report's table: no config, columns are its
			 * configurations. */
			csv_head(out, json_string_value(json_object_get(row,
				"config")), json_string_value(json_object_get(row,
				"metric")), json_string_value(json_object_get(row,
				"stat")), col_label(doc, c));
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

static int
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
		md_text(out, json_string_value(json_object_get(row, "config")));
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

static void
compare_write_percentiles_text(const json_t *pct,
		const char *const *labels, unsigned int n, FILE *out)
{
	const json_t *row;
	size_t i;
	unsigned int c;

	if (json_array_size(pct) == 0)
		return;
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
}

/* Column label: the file name without directory and ".json". */
static char *
label_of(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base != NULL && base[1] != '\0' ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".json") == 0)
		len -= 5;
	/* Printed in headers and warnings: no terminal escapes from names. */
	return escaped_dup(base, len);
}

static int
set_help(void *ctx, const char *arg, char *err, size_t errlen)
{
	printf(
"Usage: %s [options] REPORT.json [REPORT.json ...]\n"
"\n"
"Print rxrefill reports (schema %s) side by side: one column per\n"
"report, rows <strategy>-<bulk|nobulk>.<metric> matched by strategy and\n"
"bulk, '-' where a report lacks that strategy, and the change against\n"
"the first report in parentheses. Positive %% = better: higher for rates\n"
"(gbps, mpps, hit rate), lower for costs (cycles, lock wait, drops).\n"
"Min and Max rows appear when some report has more than one repetition.\n"
"With a single report, print that report's own table instead: its\n"
"strategies side by side, %% against the first strategy.\n"
"\n", prog, RXR_REPORT_SCHEMA);
	rxr_opt_help(&opt_table, stdout);
	printf(
"\n"
"Reports that differ in environment (memory backing, build type, debug\n"
"checks, CPU, DPDK or rxrefill version) or in workload (consumer, main\n"
"lcore polling, frame size, captures, zeroing policy, PMD) are compared\n"
"all the same, with a warning per difference on stderr.\n"
"\n"
"Statistics: each column is tested against the first, per configuration\n"
"and metric, from the reports' runs[] (runs marked cut short left out),\n"
"on the ratio of the values (their logs), or on their difference where a\n"
"value is 0 and for drops. Separate reports were not measured in common\n"
"rounds: the permutation test of the difference of means, two-sided,\n"
"unpaired. A single report's configurations ran in interleaved rounds:\n"
"there, the sign-flip permutation test over the rounds (paired). Each\n"
"interval is its test inverted (the ratios it does not reject at\n"
"alpha): it excludes 1 exactly when p < alpha. A change that is not\n"
"significant is marked n.s. on the row the metric is tested on (Mean,\n"
"else Median); from 0 it is +-inf%%. Under the table, one line per\n"
"finding for Gbit/s: ratio, interval, p. With fewer than 2 runs on a\n"
"side nothing can be tested (marked n.t.); 3 against 3 runs cannot go\n"
"below p 0.1, and fewer than 6 paired rounds not below 0.05 (and have\n"
"no interval).\n"
"\n"
"Reports must be regular files (a FIFO or a device is refused, never\n"
"read), with one run per strategy, bulk and rep. Repetitions a report\n"
"marks cut short are listed apart and left out of every row.\n"
"\n"
"Exit status: 0 on success, %d when a report cannot be read or is not a\n"
"valid %s report (the message names the file), %d on bad\n"
"usage (also a --metric that no complete run of the reports has), %d\n"
"when --fail-if-worse found a regression, %d when it found none but the\n"
"data cannot decide.\n",
		EXIT_BAD_REPORT, RXR_REPORT_SCHEMA, EXIT_USAGE, EXIT_WORSE,
		EXIT_UNDECIDED);
	return RXR_OPT_STOP;
}


/* The options into c: -1 to carry on with the reports, else the status. */
static int
parse_args(int argc, char **argv, struct cmp_opts *c)
{
	char err[2048];
	int ret;

	snprintf(metric_help, sizeof(metric_help), "show only these rows: "
		"metric names or groups, comma-separated, the option may be "
		"repeated; default: every row. Names and groups: %s",
		rxr_report_metric_help());
	metric_words(metric_complete, sizeof(metric_complete));
	snprintf(worse_help, sizeof(worse_help), "exit with status %d when a "
		"selected metric is significantly worse than in the first report "
		"by more than PCT %% (on the mean; from 0, any change), or a drop "
		"cause rises (--drops-threshold), naming each one on stderr; a "
		"gate for CI jobs. Exit %d when none is worse but some comparison "
		"cannot decide: too few runs (e.g. 2 against 3), or a metric a "
		"report has no value of", EXIT_WORSE, EXIT_UNDECIDED);
	c->worse_pct = NAN;
	ret = rxr_opt_parse(&opt_table, c, argc, argv, NULL, err, sizeof(err));
	if (ret == RXR_OPT_STOP)
		return EXIT_SUCCESS;
	if (ret == 0 && optind >= argc && !c->check_paths) {
		snprintf(err, sizeof(err), "no report given");
	} else if (ret == 0 && !isnan(c->worse_pct) && argc - optind < 2 &&
			!c->check_paths && c->read == NULL) {
		/* One report has no first report to be worse than: its table
		 * compares strategies, which is no regression. */
		snprintf(err, sizeof(err), "--fail-if-worse compares reports "
			"with the first: give two or more (a baseline, then the "
			"runs to gate)");
		ret = RXR_OPT_BAD_VALUE;	/* no hint to --help */
	} else if (ret == 0) {
		return -1;
	}
	fprintf(stderr, "%s: %s\n", prog, err);
	if (ret != RXR_OPT_BAD_VALUE)
		fprintf(stderr, "Try '%s --help'.\n", prog);
	return EXIT_USAGE;
}

/*
 * Every report and its column label; every bad file is named, not only
 * the first. 0, EXIT_BAD_REPORT or -ENOMEM.
 */
static int
load_reports(char **paths, unsigned int n, struct rxr_report **reports,
		char **labels)
{
	char err[RXR_REPORT_ERR_LEN];
	unsigned int i, j;
	bool dup = false;
	int ret = 0;

	for (i = 0; i < n; i++) {
		reports[i] = rxr_report_load(paths[i], err, sizeof(err));
		if (reports[i] == NULL) {
			say_escaped(err);
			ret = EXIT_BAD_REPORT;
		}
		labels[i] = label_of(paths[i]);
		if (labels[i] == NULL)
			return -ENOMEM;
	}
	if (ret != 0)
		return ret;
	/* a/run.json and b/run.json: the base names would not tell them apart. */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			dup |= strcmp(labels[i], labels[j]) == 0;
	for (i = 0; dup && i < n; i++) {
		free(labels[i]);
		labels[i] = escaped_dup(paths[i], strlen(paths[i]));
		if (labels[i] == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* --read KIND: each file back as a line of JSON; the status, or -ENOMEM. */
static int
read_files(const char *kind, char **paths, unsigned int n)
{
	char err[RXR_REPORT_ERR_LEN];
	int ret = EXIT_SUCCESS;

	for (unsigned int i = 0; i < n; i++) {
		struct rxr_report *r = NULL;
		json_t *doc;

		if (strcmp(kind, "report") == 0) {
			r = rxr_report_load(paths[i], err, sizeof(err));
			doc = r != NULL ? rxr_report_json(r) : NULL;
		} else {
			doc = rxr_report_json_load(paths[i], err, sizeof(err));
		}
		if (doc == NULL) {
			say_escaped(err);
			ret = EXIT_BAD_REPORT;
		} else if (json_dumpf(doc, stdout, JSON_COMPACT) != 0 ||
				fputc('\n', stdout) == EOF) {
			ret = EXIT_BAD_REPORT;
		}
		if (r != NULL)
			rxr_report_free(r);
		else
			json_decref(doc);
	}
	if (fflush(stdout) != 0 && ret == EXIT_SUCCESS) {
		fprintf(stderr, "%s: writing the output: %s\n", prog,
			strerror(errno));
		ret = EXIT_FAILURE;
	}
	return ret;
}

/* --check-paths: the status, after a message when a path is refused. */
static int
check_paths(void)
{
	static char buf[1 << 20];
	size_t len = fread(buf, 1, sizeof(buf), stdin), i, j;
	char err[RXR_REPORT_ERR_LEN + 2 * RXR_PATH_SHOWN_LEN];
	char shown[2][RXR_PATH_SHOWN_LEN];
	json_t *req = rxr_report_json_loadb(buf, len, "standard input", err,
			sizeof(err));
	const json_t *ins = json_object_get(req, "inputs");
	const json_t *outs = json_object_get(req, "outputs");
	const size_t nin = json_array_size(ins), nout = json_array_size(outs);
	const char **in = calloc(nin + 1, sizeof(*in));
	const char *(*out)[2] = calloc(nout + 1, sizeof(*out));	/* option, path */
	bool ok = in != NULL && out != NULL && json_is_array(ins) &&
		json_is_array(outs);
	int ret = EXIT_SUCCESS;

	for (i = 0; ok && i < nin; i++)
		ok = (in[i] = json_string_value(json_array_get(ins, i))) != NULL;
	for (i = 0; ok && i < nout; i++)
		ok = json_unpack(json_array_get(outs, i), "[ss!]", &out[i][0],
			&out[i][1]) == 0;
	if (!ok) {
		fprintf(stderr, "%s: --check-paths: %s\n", prog, req == NULL ? err :
			"standard input is not {\"inputs\": [PATH...], "
			"\"outputs\": [[OPTION, PATH]...]}");
		ret = EXIT_USAGE;
	}
	for (i = 0; ret == 0 && i < nin; i++)
		if (rxr_path_check_input(NULL, in[i], err, sizeof(err)) != 0)
			ret = EXIT_BAD_REPORT;
	for (i = 0; ret == 0 && i < nout; i++) {
		for (j = 0; ret == 0 && j < i; j++)
			if (rxr_path_same(out[j][1], out[i][1])) {
				snprintf(err, sizeof(err), "%s %s: named twice as "
					"an output (also as %s %s)", out[i][0],
					rxr_path_shown(out[i][1], shown[0],
						sizeof(shown[0])), out[j][0],
					rxr_path_shown(out[j][1], shown[1],
						sizeof(shown[1])));
				ret = EXIT_USAGE;
			}
		if (ret == 0 && rxr_path_check_output(out[i][0], out[i][1], in,
				(unsigned int)nin, 0, err, sizeof(err)) != 0)
			ret = EXIT_USAGE;
	}
	if (ret != 0 && ok)
		say_escaped(err);
	free(in);
	free(out);
	json_decref(req);
	return ret;
}

/* json, csv, markdown: EXIT_SUCCESS, EXIT_FAILURE or -ENOMEM. */
static int
render_doc(const struct cmp_opts *c, struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, bool want_pct)
{
	json_t *doc = rxr_report_compare_json(reports, labels, n, &c->sel);
	int ret = EXIT_SUCCESS;

	if (doc == NULL || (want_pct && json_object_set_new(doc,
			"refill_latency_percentiles",
			rxr_report_percentiles_json(reports, n)) != 0)) {
		json_decref(doc);
		return -ENOMEM;
	}
	if (c->format == FORMAT_CSV)
		ret = compare_write_csv(doc, stdout) == 0 ? EXIT_SUCCESS :
			EXIT_FAILURE;
	else if (c->format == FORMAT_MARKDOWN)
		ret = compare_write_markdown(doc, stdout) == 0 ? EXIT_SUCCESS :
			EXIT_FAILURE;
	else if (json_dumpf(doc, stdout, JSON_INDENT(2) |
			JSON_REAL_PRECISION(12)) != 0 || fputc('\n', stdout) == EOF)
		ret = EXIT_FAILURE;
	json_decref(doc);
	return ret;
}

/* The text tables: EXIT_SUCCESS, EXIT_FAILURE or -ENOMEM. */
static int
render_text(const struct cmp_opts *c, struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, bool want_pct)
{
	/* Names from the files reach the terminal escaped. */
	FILE *out = fopencookie(stdout, "w", (cookie_io_functions_t){
		.write = terminal_safe_write });
	json_t *pct = NULL;
	int r = -ENOMEM, ret = EXIT_SUCCESS;

	if (out == NULL)
		return -ENOMEM;
	if (n == 1) {
		if (rxr_report_render_text(reports[0], out, &c->sel) !=
				-ENOMEM && rxr_report_render_extra(reports[0],
				out, c->detail) != -ENOMEM)
			r = 0;
	} else {
		pct = want_pct ? rxr_report_percentiles_json(reports, n) :
			json_array();
		if (pct != NULL && rxr_report_compare_text(reports, labels, n,
				out, &c->sel) != -ENOMEM) {
			compare_write_percentiles_text(pct, labels, n, out);
			r = 0;
		}
	}
	json_decref(pct);
	if (fclose(out) != 0 && r == 0)
		ret = EXIT_FAILURE;
	return r != 0 ? r : ret;
}

/* The loaded reports: output, then the gate. The status, or -ENOMEM. */
static int
compare_loaded(struct cmp_opts *c, struct rxr_report *const *reports,
		const char *const *labels, unsigned int n)
{
	bool want_pct = c->sel.nb_metrics == 0, missing = false;
	int ret;

	/* Each --metric alone: one that selects no row is a usage error. */
	for (unsigned int i = 0; i < c->sel.nb_metrics; i++) {
		struct rxr_report_select one = {
			.metrics = &c->sel.metrics[i], .nb_metrics = 1,
		};
		json_t *doc = rxr_report_compare_json(reports, labels, n, &one);

		if (doc == NULL)
			return -ENOMEM;
		if (json_array_size(json_object_get(doc, "rows")) == 0 &&
				json_array_size(json_object_get(doc,
					"histograms")) == 0) {
			fprintf(stderr, "%s: --metric %s: no complete run of %s "
				"has it\n", prog, c->metrics[i], n == 1 ?
				"this report" : "these reports");
			missing = true;
		}
		json_decref(doc);
		/* Percentiles come with the histogram they are computed from. */
		want_pct |= strncmp(c->metrics[i], "refill_latency", 14) == 0;
	}
	if (missing)
		return EXIT_USAGE;
	/* stderr: the outputs stay machine-readable. */
	if (n > 1 || c->format == FORMAT_TEXT)
		rxr_report_env_differences(reports, labels, n, stderr);
	ret = c->format != FORMAT_TEXT ?
		render_doc(c, reports, labels, n, want_pct) :
		render_text(c, reports, labels, n, want_pct);
	if (ret >= 0 && !isnan(c->worse_pct)) {
		int undecided, worse = rxr_report_compare_gate(reports, labels,
			n, &c->sel, c->worse_pct, c->drops_max, stderr,
			&undecided);

		if (worse < 0)
			return -ENOMEM;
		if (worse > 0) {
			fprintf(stderr, "%s: %d metric%s worse than in %s "
				"(significantly by more than %g%%, or drops rising "
				"by more than %g a repetition)\n", prog, worse,
				worse == 1 ? "" : "s", labels[0], c->worse_pct,
				c->drops_max);
			ret = EXIT_WORSE;
		} else if (undecided > 0) {
			/* No regression found, but none could have been. */
			fprintf(stderr, "%s: --fail-if-worse cannot decide: %d "
				"comparison%s against %s cannot reach "
				"significance with these repetitions\n", prog,
				undecided, undecided == 1 ? "" : "s", labels[0]);
			ret = EXIT_UNDECIDED;
		}
	}
	if (ret >= 0 && (fflush(stdout) != 0 || ferror(stdout))) {
		fprintf(stderr, "%s: writing the output: %s\n", prog,
			strerror(errno));
		ret = EXIT_FAILURE;
	}
	return ret;
}

int
main(int argc, char **argv)
{
	struct cmp_opts c = { .format = FORMAT_TEXT };
	struct rxr_report **reports = NULL;
	char **labels = NULL;
	unsigned int n = 0, i;
	int ret;

	/* Each line as it is printed, never cut by a diagnostic on stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A file past ulimit -f is a write error (EFBIG), said as one. */
	signal(SIGXFSZ, SIG_IGN);
	ret = parse_args(argc, argv, &c);
	n = (unsigned int)(argc - optind);
	if (ret < 0 && c.check_paths) {
		ret = check_paths();
	} else if (ret < 0 && c.read != NULL) {
		ret = read_files(c.read, argv + optind, n);
	} else if (ret < 0) {
		reports = calloc(n, sizeof(*reports));
		labels = calloc(n, sizeof(*labels));
		ret = reports == NULL || labels == NULL ? -ENOMEM :
			load_reports(argv + optind, n, reports, labels);
		if (ret == 0)
			ret = compare_loaded(&c, reports,
				(const char *const *)labels, n);
	}
	if (ret == -ENOMEM) {
		fprintf(stderr, "%s: out of memory\n", prog);
		ret = EXIT_FAILURE;
	}
	for (i = 0; reports != NULL && labels != NULL && i < n; i++) {
		rxr_report_free(reports[i]);
		free(labels[i]);
	}
	for (i = 0; i < c.sel.nb_metrics; i++)
		free(c.metrics[i]);
	free(c.metrics);
	free(reports);
	free(labels);
	return ret;
}
