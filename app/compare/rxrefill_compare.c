/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill-compare: several rxrefill reports side by side, % against the
 * first, in the shape of the mmtests tables of the page allocator thread.
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_build_config.h"
#include "rxr_report.h"
#include "rxr_stats.h"
#include "rxr_version.h"
#include "compare_format.h"

#define EXIT_BAD_REPORT 1
#define EXIT_USAGE 2
#define EXIT_WORSE 3
#define EXIT_UNDECIDED 4

static const char *prog = "rxrefill-compare";

/* Words of text on lines of at most width columns after indent spaces. */
static void
print_wrapped(FILE *out, const char *text, int indent, int width)
{
	const char *p = text;
	int col = 0;

	while (*p != '\0') {
		size_t n = strcspn(p, " ");

		if (col > 0 && col + 1 + (int)n > width) {
			fprintf(out, "\n");
			col = 0;
		}
		if (col == 0)
			fprintf(out, "%*s", indent, "");
		else
			col += fputc(' ', out) != EOF;
		fprintf(out, "%.*s", (int)n, p);
		col += (int)n;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static void
usage(FILE *out)
{
	fprintf(out,
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
"\n"
"Options:\n"
"  -m, --metric LIST  show only these rows: metric names or groups,\n"
"                     comma-separated, the option may be repeated;\n"
"                     default: every row. Names and groups:\n",
		prog, RXR_REPORT_SCHEMA);
	print_wrapped(out, rxr_report_metric_help(), 21, 56);
	fprintf(out,
"  -j, --json         print the comparison as JSON (schema %s):\n"
"                     reports, rows with values, delta_pct, p and\n"
"                     significant, histograms\n"
"  -a, --alpha A      significance level of the tests, in (0, 1);\n"
"                     default: the first report's (0.05 unless set)\n"
"  -w, --fail-if-worse PCT\n"
"                     exit with status %d when a selected metric is\n"
"                     significantly worse than in the first report by\n"
"                     more than PCT %% (on the mean), naming each one on\n"
"                     stderr; a gate for CI jobs. Exit %d when none is\n"
"                     worse but some comparison cannot be significant\n"
"                     with so few runs (e.g. 2 against 3): the data\n"
"                     cannot decide\n"
"  -s, --streams      print every stream's row (default: the fairness\n"
"                     summary: smallest and largest share, Jain's index)\n"
"  -f, --format FMT   text (default), json (as --json), csv (one row per\n"
"                     configuration, metric, statistic and report: config,\n"
"                     metric,statistic,report,value,delta_pct,better,p,\n"
"                     significant) or\n"
"                     markdown (a table, one column per report)\n"
"  -d, --detail       text: add the per-queue, per-lcore and extended\n"
"                     statistics tables of a single report\n"
"  -V, --version      print the version and exit\n"
"  -h, --help         print this help and exit\n"
"\n"
"Reports that differ in environment (memory backing, build type, debug\n"
"checks, CPU, DPDK or rxrefill version) or in workload (consumer, main\n"
"lcore polling, frame size, captures, zeroing policy, PMD) are compared\n"
"all the same, with a warning per difference on stderr.\n"
"\n"
"Statistics: each column is tested against the first, per configuration\n"
"and metric, from the reports' runs[] (runs marked cut short left out).\n"
"Separate reports were not measured in common rounds: the test is the\n"
"permutation test of the difference of means, two-sided, unpaired, and\n"
"the ratio is of geometric means with a Welch t interval. A single\n"
"report's configurations ran in interleaved rounds: there, the\n"
"sign-flip permutation test of the per-round log-ratios (paired). A\n"
"change that is not significant at alpha is marked n.s. on the row the\n"
"metric is tested on (Mean, else Median). Under the table, one line per\n"
"finding for Gbit/s: ratio, 95%% interval, p. With fewer than 2 runs on\n"
"a side nothing can be tested; 3 against 3 runs cannot go below p 0.1,\n"
"and fewer than 6 paired rounds not below 0.05.\n"
"\n"
"Reports must be regular files (a FIFO or a device is refused, never\n"
"read). Repetitions a report marks cut short are listed apart and left\n"
"out of every row.\n"
"\n"
"Exit status: 0 on success, %d when a report cannot be read or is not a\n"
"valid %s report (the message names the file), %d on bad usage (also\n"
"a --metric that no complete run of the reports has), %d when\n"
"--fail-if-worse found a regression, %d when it found none but the data\n"
"cannot decide.\n",
		RXR_REPORT_COMPARE_SCHEMA, EXIT_WORSE, EXIT_UNDECIDED,
		EXIT_BAD_REPORT, RXR_REPORT_SCHEMA, EXIT_USAGE, EXIT_WORSE,
		EXIT_UNDECIDED);
}

/* Split a --metric LIST into sel, checking every name. */
static int
add_metrics(const char *list, char ***metrics, unsigned int *n)
{
	char *copy = strdup(list), *tok, *save = NULL;
	const char *p;

	if (copy == NULL)
		return -ENOMEM;
	/* strtok_r would hide an empty name ("gbps,,mpps"): check first. */
	for (p = list; ; p++) {
		if (*p == ',' || *p == '\0') {
			if (p == list || p[-1] == ',') {
				fprintf(stderr, "%s: --metric \"%s\": empty "
					"metric name\n", prog, list);
				free(copy);
				return -EINVAL;
			}
			if (*p == '\0')
				break;
		}
	}
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		char **nm;

		if (!rxr_report_metric_known(tok)) {
			fprintf(stderr, "%s: --metric: unknown metric \"%s\"; "
				"known: %s\n", prog, tok,
				rxr_report_metric_help());
			free(copy);
			return -EINVAL;
		}
		nm = realloc(*metrics, (*n + 1) * sizeof(*nm));
		if (nm == NULL || (nm[*n] = strdup(tok)) == NULL) {
			if (nm != NULL)
				*metrics = nm;
			free(copy);
			return -ENOMEM;
		}
		*metrics = nm;
		(*n)++;
	}
	free(copy);
	return 0;
}

/* A number option in [lo, hi] (bounds excluded when open). */
static int
parse_num(const char *opt, const char *arg, double lo, double hi, bool open,
		double *out)
{
	char *end;
	double v;

	/* Decimal only: strtod() would also take hex, inf and blanks. */
	if (arg[0] == '\0' || arg[strspn(arg, "0123456789.eE+-")] != '\0' ||
			strchr("eE", arg[0]) != NULL) {
		fprintf(stderr, "%s: %s \"%s\": not a decimal number\n", prog,
			opt, arg);
		return -EINVAL;
	}
	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' || isnan(v) ||
			(open ? !(v > lo && v < hi) : !(v >= lo && v <= hi))) {
		fprintf(stderr, "%s: %s \"%s\": expected a number %s %g, %g %s\n",
			prog, opt, arg, open ? "in (" : "in [", lo, hi,
			open ? ")" : "]");
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/*
 * A metric name can be known and still match nothing in these reports
 * (drops.nosuch, recycle without a recycle run): name it rather than
 * print an empty table.
 */
/* A copy of s safe for a terminal: control characters as \xNN. */
static char *
escaped_dup(const char *s)
{
	size_t n = strlen(s), i, o = 0;
	char *out = malloc(4 * n + 1);

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

/*
 * The statistics take at most RXR_STATS_MAX_N runs per configuration:
 * above that every figure would be "-" and --fail-if-worse would pass, so
 * such a report is refused by name. 0, 1 when refused, -ENOMEM.
 */
static int
check_runs_per_config(const struct rxr_report *r, const char *path)
{
	const json_t *run;
	json_t *seen = json_object();
	size_t i;
	int ret = 0;

	if (seen == NULL)
		return -ENOMEM;
	json_array_foreach(json_object_get(rxr_report_json(r), "runs"), i,
			run) {
		const char *strategy = json_string_value(
				json_object_get(run, "strategy"));
		bool bulk = json_is_true(json_object_get(run, "bulk"));
		json_int_t nb;
		char *key;

		if (json_is_false(json_object_get(run, "complete")))
			continue;	/* cut short: not counted anywhere */
		if (asprintf(&key, "%s-%s", strategy, bulk ? "bulk" :
				"nobulk") < 0) {
			ret = -ENOMEM;
			break;
		}
		nb = json_integer_value(json_object_get(seen, key)) + 1;
		if (json_object_set_new_nocheck(seen, key,
				json_integer(nb)) != 0) {
			free(key);
			ret = -ENOMEM;
			break;
		}
		if (nb == RXR_STATS_MAX_N + 1) {
			char *shown = escaped_dup(key);

			fprintf(stderr, "%s: %s: configuration %s has more "
				"than %u complete runs: at most %u per "
				"configuration can be compared\n", prog, path,
				shown != NULL ? shown : "?", RXR_STATS_MAX_N,
				RXR_STATS_MAX_N);
			free(shown);
			ret = 1;
		}
		free(key);
	}
	json_decref(seen);
	return ret;
}

static int
check_metrics_present(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, char **metrics,
		unsigned int nb_metrics)
{
	int ret = 0;

	for (unsigned int i = 0; i < nb_metrics; i++) {
		struct rxr_report_select one = {
			.metrics = (const char *const *)&metrics[i],
			.nb_metrics = 1,
		};
		json_t *doc = rxr_report_compare_json(reports, labels, n, &one);

		if (doc == NULL)
			return -ENOMEM;
		if (json_array_size(json_object_get(doc, "rows")) == 0 &&
				json_array_size(json_object_get(doc,
					"histograms")) == 0) {
			fprintf(stderr, "%s: --metric %s: no complete run of %s "
				"has it\n", prog, metrics[i], n == 1 ?
				"this report" : "these reports");
			ret = -EINVAL;
		}
		json_decref(doc);
	}
	return ret;
}

/* Column label: the file name without directory and ".json". */
static char *
label_of(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	char *label, *shown;

	base = base != NULL && base[1] != '\0' ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".json") == 0)
		len -= 5;
	label = strndup(base, len);
	/* Printed in headers and warnings: no terminal escapes from names. */
	shown = label != NULL ? escaped_dup(label) : NULL;
	free(label);
	return shown;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "detail", no_argument, NULL, 'd' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "fail-if-worse", required_argument, NULL, 'w' },
		{ "streams", no_argument, NULL, 's' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rxr_report_select sel = { 0 };
	struct rxr_report **reports = NULL;
	char **metrics = NULL, **labels = NULL;
	char err[RXR_REPORT_ERR_LEN];
	unsigned int nb_metrics = 0, n = 0, i, j;
	bool dup = false, detail = false, want_pct;
	int format = FORMAT_TEXT;
	double worse_pct = NAN;
	int opt, ret = EXIT_SUCCESS, worse = 0;

	/* Each line as it is printed, never cut by a diagnostic on stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt_long(argc, argv, "m:jf:da:w:sVh", longopts,
			NULL)) != -1) {
		switch (opt) {
		case 'a':
			if (parse_num("--alpha", optarg, 0, 1, true,
					&sel.alpha) != 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'w':
			if (parse_num("--fail-if-worse", optarg, 0, 1e6, false,
					&worse_pct) != 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 's':
			sel.stream_rows = true;
			break;
		case 'm':
			if (add_metrics(optarg, &metrics, &nb_metrics) != 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'j':
			format = FORMAT_JSON;
			break;
		case 'f':
			format = compare_format_parse(optarg);
			if (format < 0) {
				fprintf(stderr, "%s: --format \"%s\": not one of "
					"text, json, csv, markdown\n", prog, optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'd':
			detail = true;
			break;
		case 'V':
			rxr_version_print(stdout, prog, NULL);
			printf("reads %s\n", RXR_REPORT_SCHEMA);
			goto out;
		case 'h':
			usage(stdout);
			goto out;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no report given\n", prog);
		fprintf(stderr, "Try '%s --help'.\n", prog);
		ret = EXIT_USAGE;
		goto out;
	}
	n = (unsigned int)(argc - optind);
	reports = calloc(n, sizeof(*reports));
	labels = calloc(n, sizeof(*labels));
	if (reports == NULL || labels == NULL)
		goto nomem;
	/* Every bad file is named, not only the first. */
	for (i = 0; i < n; i++) {
		reports[i] = rxr_report_load(argv[optind + i], err,
				sizeof(err));
		if (reports[i] == NULL) {
			char *shown = escaped_dup(err);

			fprintf(stderr, "%s: %s\n", prog, shown != NULL ? shown :
				err);
			free(shown);
			ret = EXIT_BAD_REPORT;
		}
		labels[i] = label_of(argv[optind + i]);
		if (labels[i] == NULL)
			goto nomem;
	}
	for (i = 0; i < n && reports[i] != NULL; i++) {
		int r = check_runs_per_config(reports[i], argv[optind + i]);

		if (r < 0)
			goto nomem;
		if (r > 0)
			ret = EXIT_BAD_REPORT;
	}
	if (ret != EXIT_SUCCESS)
		goto out;
	/* a/run.json and b/run.json: the base names would not tell them apart. */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			dup |= strcmp(labels[i], labels[j]) == 0;
	for (i = 0; dup && i < n; i++) {
		free(labels[i]);
		labels[i] = escaped_dup(argv[optind + i]);
		if (labels[i] == NULL)
			goto nomem;
	}
	want_pct = nb_metrics == 0;
	sel.metrics = (const char *const *)metrics;
	sel.nb_metrics = nb_metrics;
	switch (check_metrics_present(reports, (const char *const *)labels, n,
			metrics, nb_metrics)) {
	case 0:
		break;
	case -ENOMEM:
		goto nomem;
	default:
		ret = EXIT_USAGE;
		goto out;
	}
	/* Percentiles come with the histogram they are computed from. */
	for (i = 0; i < nb_metrics; i++)
		want_pct |= strncmp(metrics[i], "refill_latency", 14) == 0;

	/* stderr: the outputs stay machine-readable. */
	if (n > 1 || format == FORMAT_TEXT)
		rxr_report_env_differences(reports,
			(const char *const *)labels, n, stderr);
	if (format != FORMAT_TEXT) {
		json_t *doc = rxr_report_compare_json(reports,
				(const char *const *)labels, n, &sel);

		if (doc == NULL || (want_pct && json_object_set_new(doc,
				"refill_latency_percentiles",
				rxr_report_percentiles_json(reports, n)) != 0)) {
			json_decref(doc);
			goto nomem;
		}
		if (format == FORMAT_CSV)
			ret = compare_write_csv(doc, stdout) == 0 ?
				EXIT_SUCCESS : EXIT_FAILURE;
		else if (format == FORMAT_MARKDOWN)
			ret = compare_write_markdown(doc, stdout) == 0 ?
				EXIT_SUCCESS : EXIT_FAILURE;
		else if (json_dumpf(doc, stdout, JSON_INDENT(2) |
				JSON_REAL_PRECISION(12)) != 0 ||
				fputc('\n', stdout) == EOF)
			ret = EXIT_FAILURE;
		json_decref(doc);
	} else {
		/* Names from the files reach the terminal escaped. */
		FILE *out = fopencookie(stdout, "w", (cookie_io_functions_t){
			.write = terminal_safe_write });
		json_t *pct = NULL;
		int r = -ENOMEM;

		if (out == NULL)
			goto nomem;
		if (n == 1) {
			if (rxr_report_render_text(reports[0], out, &sel) !=
					-ENOMEM && rxr_report_render_extra(
					reports[0], out, detail) != -ENOMEM)
				r = 0;
		} else {
			pct = want_pct ? rxr_report_percentiles_json(reports,
				n) : json_array();
			if (pct != NULL && rxr_report_compare_text(reports,
					(const char *const *)labels, n, out,
					&sel) != -ENOMEM) {
				compare_write_percentiles_text(pct,
					(const char *const *)labels, n, out);
				r = 0;
			}
		}
		json_decref(pct);
		if (fclose(out) != 0 && r == 0)
			ret = EXIT_FAILURE;
		if (r != 0)
			goto nomem;
	}
	if (!isnan(worse_pct)) {
		int undecided = 0;

		worse = rxr_report_compare_worse(reports,
				(const char *const *)labels, n, &sel, worse_pct,
				stderr);
		if (worse == 0)
			undecided = rxr_report_compare_undecided(reports,
				(const char *const *)labels, n, &sel, stderr);
		if (worse < 0 || undecided < 0)
			goto nomem;
		if (worse > 0) {
			fprintf(stderr, "%s: %d metric%s significantly worse than "
				"in %s by more than %g%%\n", prog, worse,
				worse == 1 ? "" : "s", labels[0], worse_pct);
			ret = EXIT_WORSE;
		} else if (undecided > 0) {
			/* No regression found, but none could have been. */
			fprintf(stderr, "%s: --fail-if-worse cannot decide: %d "
				"comparison%s against %s cannot reach significance "
				"with these repetitions\n", prog, undecided,
				undecided == 1 ? "" : "s", labels[0]);
			ret = EXIT_UNDECIDED;
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: writing the output: %s\n", prog,
			strerror(errno));
		ret = EXIT_FAILURE;
	}
	goto out;
nomem:
	fprintf(stderr, "%s: out of memory\n", prog);
	ret = EXIT_FAILURE;
out:
	for (i = 0; reports != NULL && i < n; i++)
		rxr_report_free(reports[i]);
	for (i = 0; labels != NULL && i < n; i++)
		free(labels[i]);
	for (i = 0; i < nb_metrics; i++)
		free(metrics[i]);
	free(metrics);
	free(reports);
	free(labels);
	return ret;
}
