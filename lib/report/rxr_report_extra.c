/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Additions to reports that the core builder does not know in detail:
 * extra env and run fields set as JSON, refill latency percentiles from
 * the log2 histogram, the percentile and detail tables, and the
 * environment differences between compared reports.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"

const double rxr_report_pct_points[RXR_REPORT_PCT_N] = { 50, 90, 99, 99.9 };
static const char *const pct_names[RXR_REPORT_PCT_N] = {
	"p50", "p90", "p99", "p99.9",
};

int
rxr_report_env_set(struct rxr_report *r, const char *key, json_t *v)
{
	json_t *env = json_object_get(r->doc, "env");

	if (env == NULL || v == NULL || key == NULL) {
		json_decref(v);
		return -EINVAL;
	}
	return json_object_set_new(env, key, v) == 0 ? 0 : -ENOMEM;
}

int
rxr_report_run_set(struct rxr_report *r, unsigned int idx, const char *key,
		json_t *v)
{
	json_t *run = json_array_get(json_object_get(r->doc, "runs"), idx);

	if (run == NULL || v == NULL || key == NULL) {
		json_decref(v);
		return -EINVAL;
	}
	return json_object_set_new(run, key, v) == 0 ? 0 : -ENOMEM;
}

int
rxr_report_percentile(const uint64_t *counts, double p,
		struct rxr_report_pct *out)
{
	uint64_t total = 0, cum = 0, rank;
	unsigned int i;
	double x;

	for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++)
		total += counts[i];
	if (total == 0 || !(p > 0 && p <= 100))
		return -EINVAL;
	/*
	 * Nearest rank: the smallest value with at least p% at or below it.
	 * 99.9% of 1000 is 999, not the 1000 that rounding up 999.0000001
	 * would give: a relative epsilon absorbs the binary fraction.
	 */
	x = p * (double)total / 100.0;
	rank = (uint64_t)ceil(x - x * 1e-12);
	if (rank == 0)
		rank = 1;
	for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++) {
		if (cum + counts[i] >= rank)
			break;
		cum += counts[i];
	}
	if (i == RXR_REPORT_HIST_BUCKETS)
		i = RXR_REPORT_HIST_BUCKETS - 1;
	out->p = p;
	out->lo = rxr_report_hist_lo(i);
	out->hi = rxr_report_hist_hi(i);
	/* Linear within the bucket, as Prometheus' histogram_quantile(). */
	out->ns = (double)out->lo + (double)(out->hi - out->lo) *
		(double)(rank - cum) / (double)counts[i];
	return 0;
}

/* A run's "refill_latency_hist" object back into counts; false if none. */
static bool
hist_counts(const json_t *h, uint64_t *counts)
{
	const json_t *b;
	size_t i;

	memset(counts, 0, sizeof(*counts) * RXR_REPORT_HIST_BUCKETS);
	if (h == NULL)
		return false;
	json_array_foreach(json_object_get(h, "buckets"), i, b) {
		json_int_t lo = json_integer_value(json_object_get(b, "lo"));
		json_int_t c = json_integer_value(json_object_get(b, "count"));
		unsigned int k = rxr_report_hist_index((uint64_t)lo);

		if (c > 0)
			counts[k] += (uint64_t)c;
	}
	return true;
}

json_t *
rxrr_percentiles_json(const uint64_t *counts)
{
	json_t *o = json_object();
	unsigned int i;

	for (i = 0; o != NULL && i < RXR_REPORT_PCT_N; i++) {
		struct rxr_report_pct pc;

		if (rxr_report_percentile(counts, rxr_report_pct_points[i],
				&pc) != 0) {
			json_decref(o);
			return NULL;
		}
		if (json_object_set_new(o, pct_names[i], json_pack(
				"{s:f, s:I, s:I}", "ns", pc.ns,
				"lo", (json_int_t)pc.lo,
				"hi", (json_int_t)pc.hi)) != 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* "512", "1K", "2M": bucket bounds as the histogram prints them. */
static void
fmt_bound(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (v >= 1024 && v % 1024 == 0 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "%" PRIu64 "%c", v, units[u]);
}

/* Every complete repetition of a configuration in one histogram. */
static bool
group_hist(const struct rxrr_group *g, uint64_t *sum)
{
	uint64_t c[RXR_REPORT_HIST_BUCKETS];
	bool any = false;
	size_t k;
	unsigned int b;

	memset(sum, 0, sizeof(*sum) * RXR_REPORT_HIST_BUCKETS);
	for (k = 0; k < g->nb_runs; k++) {
		if (json_object_get(g->runs[k], "complete") == json_false())
			continue;
		if (!hist_counts(json_object_get(g->runs[k],
				"refill_latency_hist"), c))
			continue;
		any = true;
		for (b = 0; b < RXR_REPORT_HIST_BUCKETS; b++)
			sum[b] += c[b];
	}
	return any;
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
			char label[96];
			bool seen = false;
			json_t *l;

			rxrr_group_label(g[c][i].strategy, g[c][i].bulk, label,
				sizeof(label));
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
	char l2[96];

	for (size_t j = 0; j < ng; j++) {
		rxrr_group_label(g[j].strategy, g[j].bulk, l2, sizeof(l2));
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
		"config", label, "percentile", pct_names[p],
		"ns", v, "lo", lo, "hi", hi);
	unsigned int c;

	for (c = 0; row != NULL && c < n; c++) {
		const struct rxrr_group *gg = group_of_label(g[c], ng[c], label);
		uint64_t sum[RXR_REPORT_HIST_BUCKETS];
		struct rxr_report_pct pc;

		if (gg != NULL && group_hist(gg, sum) &&
				rxr_report_percentile(sum,
				rxr_report_pct_points[p], &pc) == 0) {
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
	labels = config_labels(g, ng, n);
	if (labels == NULL)
		goto nomem;
	for (i = 0; i < json_array_size(labels); i++)
		for (p = 0; p < RXR_REPORT_PCT_N; p++)
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

static int
print_percentiles(const struct rxr_report *r, FILE *out)
{
	struct rxrr_group *g;
	size_t n, i;
	bool header = false;

	if (rxrr_groups(r->doc, &g, &n) != 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t sum[RXR_REPORT_HIST_BUCKETS];
		char label[96], lo[24], hi[24];
		unsigned int p;

		if (!group_hist(&g[i], sum))
			continue;
		if (!header) {
			fprintf(out, "\nRefill latency percentiles (ns; estimate "
				"[bucket]), all repetitions\n%-18s", "");
			for (p = 0; p < RXR_REPORT_PCT_N; p++)
				fprintf(out, p + 1 < RXR_REPORT_PCT_N ? " %-22s" :
					" %s", pct_names[p]);
			fputc('\n', out);
			header = true;
		}
		rxrr_group_label(g[i].strategy, g[i].bulk, label, sizeof(label));
		/* A name from a file never reaches the terminal raw. */
		for (char *c = label; *c != '\0'; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		fprintf(out, "%-18s", label);
		for (p = 0; p < RXR_REPORT_PCT_N; p++) {
			struct rxr_report_pct pc;
			char cell[80];

			if (rxr_report_percentile(sum, rxr_report_pct_points[p],
					&pc) != 0) {
				fprintf(out, " %-22s", "-");
				continue;
			}
			fmt_bound(pc.lo, lo, sizeof(lo));
			fmt_bound(pc.hi, hi, sizeof(hi));
			snprintf(cell, sizeof(cell), "%.0f [%s, %s)", pc.ns, lo,
				hi);
			fprintf(out, p + 1 < RXR_REPORT_PCT_N ? " %-22s" : " %s",
				cell);
		}
		fputc('\n', out);
	}
	rxrr_groups_free(g, n);
	return 0;
}

static const char *
run_label(const json_t *run, char *buf, size_t len)
{
	char cfg[80];

	rxrr_group_label(json_string_value(json_object_get(run, "strategy")),
		json_is_true(json_object_get(run, "bulk")), cfg, sizeof(cfg));
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
	char label[112];
	size_t i, j;
	const char *key;

	fprintf(out, "\nPer queue: port queue lcore packets bytes | ethdev "
		"q_ipackets q_ibytes q_errors (- where the PMD has none)\n");
	json_array_foreach(runs, i, run) {
		run_label(run, label, sizeof(label));
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
		run_label(run, label, sizeof(label));
		json_array_foreach(json_object_get(run, "lcores"), j, v)
			fprintf(out, "%-24s %5lld %4lld %14lld %8.3f\n", label,
				jint(v, "lcore"), jint(v, "cpu"),
				jint(v, "cycles"),
				rxrr_num(json_object_get(v, "busy_share")));
	}
	fprintf(out, "\nExtended statistics that changed: port name delta\n");
	json_array_foreach(runs, i, run) {
		const json_t *ports;

		run_label(run, label, sizeof(label));
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
