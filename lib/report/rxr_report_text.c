/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Text and comparison output. One model (rows of numbers, histograms) is
 * built from the reports, then printed as mmtests-shaped text or emitted
 * as JSON, so the two outputs can never disagree.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"

#define STAT_WIDTH 9	/* "Median   ", as mmtests' "Amean    " */
#define COL_SEP "    "

enum dir {
	DIR_NONE,	/* a counter: no better direction, no % */
	DIR_HIGHER,	/* a rate: higher is better */
	DIR_LOWER,	/* a cost: lower is better */
};

struct metric {
	char *name;		/* "gbps", "drops.imissed", "streams.bytes[..]" */
	const json_t *stream;	/* the flow, for stream rows */
	const char *field;	/* "packets" or "bytes", for stream rows */
	enum dir dir;
	int prec;		/* decimals in text */
	bool optional;		/* a row only when some column has a value */
	bool spread;		/* Min and Max rows too, when reps > 1 */
};

struct row {
	const char *stat;	/* "Min", "Median", "Max" */
	char *name;		/* "<config>." prefix (compare) + metric */
	char *config;		/* NULL for one report's table */
	char *metric;
	enum dir dir;
	int prec;
	int section;		/* 0: figures, 1: streams (own widths) */
	double *v;		/* per column; NaN: no value */
	double *d;		/* per column % better; NaN: n/a */
};

struct hist {
	char *config;		/* NULL for one report's table */
	unsigned int first, last;
	bool *present;		/* per column: some run has a histogram */
	uint64_t *total;	/* per column */
	uint64_t (*counts)[RXR_REPORT_HIST_BUCKETS];
};

struct model {
	unsigned int ncols;
	char **headers;
	bool minmax;		/* some column has more than one rep */
	struct row *rows;
	size_t nrows, caprows;
	struct hist *hists;
	size_t nhists;
};

/*
 * Core rows, always shown (in this order), then the optional ones. The
 * headline rates and costs get Min and Max rows over repetitions; for the
 * rest the median says enough and keeps the table readable.
 */
static const struct {
	const char *name;
	enum dir dir;
	int prec;
	bool spread;
} core_metrics[] = {
	{ "gbps", DIR_HIGHER, 2, true },
	{ "gbps_wire", DIR_HIGHER, 2, true },
	{ "mpps", DIR_HIGHER, 2, true },
	{ "cycles_per_packet", DIR_LOWER, 2, true },
	{ "refill_cycles_per_frame", DIR_LOWER, 2, true },
	{ "pcp.hit_rate", DIR_HIGHER, 4, false },
	{ "zone_lock.wait_share", DIR_LOWER, 4, false },
	{ "zone_lock.contended", DIR_LOWER, 0, false },
};

static const char *const deferred_names[] = {
	"deferred.queued", "deferred.drained",
};

static const char *const recycle_names[] = {
	"recycle.alloc_fast", "recycle.alloc_slow", "recycle.alloc_empty",
	"recycle.alloc_refill", "recycle.alloc_waive", "recycle.recycle_cached",
	"recycle.recycle_cache_full", "recycle.recycle_ring",
	"recycle.recycle_ring_full", "recycle.recycle_released_refcnt",
};

static const struct {
	const char *name;
	enum dir dir;
	int prec;
} zeroing_metrics[] = {
	{ "zeroing.gbps", DIR_HIGHER, 2 },
	{ "zeroing.max_poll_gap_us", DIR_LOWER, 2 },
};

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Names that select a group of rows rather than one. */
static const char *const metric_groups[] = {
	"pcp", "zone_lock", "drops", "deferred", "recycle", "zeroing",
	"streams", "streams.packets", "streams.bytes", "refill_latency_hist",
};

bool
rxr_report_metric_known(const char *sel)
{
	size_t i;

	if (sel == NULL || *sel == '\0')
		return false;
	for (i = 0; i < NELEMS(core_metrics); i++)
		if (strcmp(sel, core_metrics[i].name) == 0)
			return true;
	for (i = 0; i < NELEMS(deferred_names); i++)
		if (strcmp(sel, deferred_names[i]) == 0)
			return true;
	for (i = 0; i < NELEMS(recycle_names); i++)
		if (strcmp(sel, recycle_names[i]) == 0)
			return true;
	for (i = 0; i < NELEMS(zeroing_metrics); i++)
		if (strcmp(sel, zeroing_metrics[i].name) == 0)
			return true;
	for (i = 0; i < NELEMS(metric_groups); i++)
		if (strcmp(sel, metric_groups[i]) == 0)
			return true;
	/* Any drop cause may appear in a report; so may any flow. */
	return (strncmp(sel, "drops.", 6) == 0 && sel[6] != '\0') ||
		strncmp(sel, "streams.packets[", 16) == 0 ||
		strncmp(sel, "streams.bytes[", 14) == 0;
}

const char *
rxr_report_metric_help(void)
{
	return "gbps, gbps_wire, mpps, cycles_per_packet, "
		"refill_cycles_per_frame, pcp[.hit_rate], "
		"zone_lock[.wait_share|.contended], drops[.<cause>], "
		"deferred[.queued|.drained], recycle[.<counter>], "
		"zeroing[.gbps|.max_poll_gap_us], "
		"streams[.packets|.bytes], refill_latency_hist";
}

static bool
selected(const struct rxr_report_select *sel, const char *name)
{
	unsigned int i;

	if (sel == NULL || sel->nb_metrics == 0)
		return true;
	for (i = 0; i < sel->nb_metrics; i++) {
		size_t n = strlen(sel->metrics[i]);

		if (strncmp(name, sel->metrics[i], n) == 0 &&
				(name[n] == '\0' || name[n] == '.' ||
				 name[n] == '['))
			return true;
	}
	return false;
}

/* A copy safe to print: control characters from a file become '?'. */
static char *
clean_dup(const char *s)
{
	char *c = strdup(s != NULL ? s : "");
	char *p;

	if (c == NULL)
		return NULL;
	for (p = c; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return c;
}

static const char *
proto_name(json_int_t p, char *buf, size_t len)
{
	switch (p) {
	case 1: return "icmp";
	case 6: return "tcp";
	case 17: return "udp";
	case 58: return "icmpv6";
	case 132: return "sctp";
	}
	snprintf(buf, len, "proto%lld", (long long)p);
	return buf;
}

/* "10.0.0.1:1234>10.0.0.2:80/udp", "[fe80::1]:1>[fe80::2]:2/tcp" */
static char *
stream_label(const json_t *s)
{
	const char *src = json_string_value(json_object_get(s, "src"));
	const char *dst = json_string_value(json_object_get(s, "dst"));
	json_int_t sport = json_integer_value(json_object_get(s, "sport"));
	json_int_t dport = json_integer_value(json_object_get(s, "dport"));
	json_int_t proto = json_integer_value(json_object_get(s, "proto"));
	bool v6 = strchr(src, ':') != NULL || strchr(dst, ':') != NULL;
	char pbuf[16], *out = NULL, *c;
	int ret;

	if (sport == 0 && dport == 0)
		ret = asprintf(&out, "%s>%s/%s", src, dst,
			proto_name(proto, pbuf, sizeof(pbuf)));
	else
		ret = asprintf(&out, "%s%s%s:%lld>%s%s%s:%lld/%s",
			v6 ? "[" : "", src, v6 ? "]" : "", (long long)sport,
			v6 ? "[" : "", dst, v6 ? "]" : "", (long long)dport,
			proto_name(proto, pbuf, sizeof(pbuf)));
	if (ret < 0)
		return NULL;
	c = clean_dup(out);
	free(out);
	return c;
}

static bool
stream_eq(const json_t *a, const json_t *b)
{
	static const char *const nums[] = { "sport", "dport", "proto" };
	size_t i;

	for (i = 0; i < NELEMS(nums); i++)
		if (json_integer_value(json_object_get(a, nums[i])) !=
				json_integer_value(json_object_get(b, nums[i])))
			return false;
	return strcmp(json_string_value(json_object_get(a, "src")),
			json_string_value(json_object_get(b, "src"))) == 0 &&
		strcmp(json_string_value(json_object_get(a, "dst")),
			json_string_value(json_object_get(b, "dst"))) == 0;
}

static double
metric_value(const json_t *run, const struct metric *mt)
{
	const json_t *streams, *s;
	size_t i;

	if (mt->stream == NULL)
		return rr_num(rr_path(run, mt->name));
	streams = json_object_get(run, "streams");
	if (streams == NULL)
		return NAN;
	/* The run counted flows but saw none of this one: 0, not unknown. */
	json_array_foreach(streams, i, s)
		if (stream_eq(s, mt->stream))
			return rr_num(json_object_get(s, mt->field));
	return 0;
}

/* Metric list for a set of columns: core, then what the runs carry. */
struct mlist {
	struct metric *m;
	size_t n, cap;
};

static int
mlist_add(struct mlist *l, const char *name, enum dir dir, int prec,
		bool optional, const json_t *stream, const char *field)
{
	struct metric *mt;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct metric *nm = realloc(l->m, cap * sizeof(*nm));

		if (nm == NULL)
			return -ENOMEM;
		l->m = nm;
		l->cap = cap;
	}
	mt = &l->m[l->n];
	mt->name = strdup(name);
	if (mt->name == NULL)
		return -ENOMEM;
	mt->dir = dir;
	mt->prec = prec;
	mt->optional = optional;
	mt->spread = false;
	mt->stream = stream;
	mt->field = field;
	l->n++;
	return 0;
}

static void
mlist_free(struct mlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->m[i].name);
	free(l->m);
}

static bool
mlist_has(const struct mlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->m[i].name, name) == 0)
			return true;
	return false;
}

static int
mlist_build(struct mlist *l, struct rr_group *const *cols, unsigned int ncols)
{
	/* Flows first seen, to keep their order across columns. */
	const json_t **flows = NULL;
	size_t nflows = 0, i, j, f;
	unsigned int c;
	char *name;
	int ret = -ENOMEM;

	for (i = 0; i < NELEMS(core_metrics); i++)
		if (mlist_add(l, core_metrics[i].name, core_metrics[i].dir,
				core_metrics[i].prec, false, NULL, NULL))
			return -ENOMEM;
		else
			l->m[l->n - 1].spread = core_metrics[i].spread;
	/* Every drop cause any run of any column reported. */
	for (c = 0; c < ncols; c++) {
		for (i = 0; cols[c] != NULL && i < cols[c]->nb_runs; i++) {
			const json_t *drops = json_object_get(cols[c]->runs[i],
					"drops");
			const char *key;
			json_t *v;

			json_object_foreach((json_t *)(uintptr_t)drops, key, v) {
				if (asprintf(&name, "drops.%s", key) < 0)
					return -ENOMEM;
				ret = mlist_has(l, name) ? 0 : mlist_add(l, name,
					DIR_LOWER, 0, true, NULL, NULL);
				free(name);
				if (ret)
					return ret;
			}
		}
	}
	for (i = 0; i < NELEMS(deferred_names); i++)
		if (mlist_add(l, deferred_names[i], DIR_NONE, 0, true, NULL,
				NULL))
			return -ENOMEM;
	for (i = 0; i < NELEMS(recycle_names); i++)
		if (mlist_add(l, recycle_names[i], DIR_NONE, 0, true, NULL,
				NULL))
			return -ENOMEM;
	for (i = 0; i < NELEMS(zeroing_metrics); i++)
		if (mlist_add(l, zeroing_metrics[i].name,
				zeroing_metrics[i].dir, zeroing_metrics[i].prec,
				true, NULL, NULL))
			return -ENOMEM;
	for (c = 0; c < ncols; c++) {
		for (i = 0; cols[c] != NULL && i < cols[c]->nb_runs; i++) {
			const json_t *streams = json_object_get(
					cols[c]->runs[i], "streams");
			const json_t *s;

			json_array_foreach(streams, j, s) {
				const json_t **nf;

				for (f = 0; f < nflows; f++)
					if (stream_eq(flows[f], s))
						break;
				if (f < nflows)
					continue;
				nf = realloc(flows, (nflows + 1) * sizeof(*nf));
				if (nf == NULL)
					goto out;
				flows = nf;
				flows[nflows++] = s;
			}
		}
	}
	ret = 0;
	for (f = 0; f < nflows && ret == 0; f++) {
		char *label = stream_label(flows[f]);

		ret = -ENOMEM;
		if (label == NULL)
			break;
		if (asprintf(&name, "streams.packets[%s]", label) >= 0) {
			ret = mlist_add(l, name, DIR_HIGHER, 0, true, flows[f],
				"packets");
			free(name);
		}
		if (ret == 0 && asprintf(&name, "streams.bytes[%s]",
				label) >= 0) {
			ret = mlist_add(l, name, DIR_HIGHER, 0, true, flows[f],
				"bytes");
			free(name);
		} else {
			ret = -ENOMEM;
		}
		free(label);
	}
out:
	free(flows);
	return ret;
}

static void
model_free(struct model *m)
{
	size_t i;

	for (i = 0; m->headers != NULL && i < m->ncols; i++)
		free(m->headers[i]);
	free(m->headers);
	for (i = 0; i < m->nrows; i++) {
		free(m->rows[i].name);
		free(m->rows[i].config);
		free(m->rows[i].metric);
		free(m->rows[i].v);
		free(m->rows[i].d);
	}
	free(m->rows);
	for (i = 0; i < m->nhists; i++) {
		free(m->hists[i].config);
		free(m->hists[i].present);
		free(m->hists[i].total);
		free(m->hists[i].counts);
	}
	free(m->hists);
	memset(m, 0, sizeof(*m));
}

/* % better than the base: positive for higher rates and lower costs. */
static double
delta_pct(double base, double v, enum dir dir)
{
	double d;

	if (isnan(base) || isnan(v))
		return NAN;
	if (base == 0)
		return v == 0 ? 0.0 : NAN;
	d = dir == DIR_HIGHER ? (v - base) / base * 100.0 :
		(base - v) / base * 100.0;
	/* No "-0.00%" for a change that rounds to nothing. */
	return fabs(d) < 0.005 ? 0.0 : d;
}

static struct row *
model_new_row(struct model *m)
{
	struct row *row;

	if (m->nrows == m->caprows) {
		size_t cap = m->caprows ? 2 * m->caprows : 64;
		struct row *nr = realloc(m->rows, cap * sizeof(*nr));

		if (nr == NULL)
			return NULL;
		m->rows = nr;
		m->caprows = cap;
	}
	row = &m->rows[m->nrows];
	memset(row, 0, sizeof(*row));
	row->v = calloc(m->ncols, sizeof(double));
	row->d = calloc(m->ncols, sizeof(double));
	if (row->v == NULL || row->d == NULL) {
		free(row->v);
		free(row->d);
		return NULL;
	}
	m->nrows++;
	return row;
}

/* Rows of one set of columns (a report's groups, or one config). */
static int
model_add_rows(struct model *m, const char *config,
		struct rr_group *const *cols, const struct rxr_report_select *sel)
{
	static const char *const stat_names[] = { "Min", "Median", "Max" };
	struct rxr_report_stats *st = NULL;
	struct mlist l = { 0 };
	double *buf = NULL;
	size_t most = 1, i, k;
	unsigned int c;
	int ret = -ENOMEM;

	for (c = 0; c < m->ncols; c++)
		if (cols[c] != NULL && cols[c]->nb_runs > most)
			most = cols[c]->nb_runs;
	buf = malloc(most * sizeof(*buf));
	st = calloc(m->ncols, sizeof(*st));
	if (buf == NULL || st == NULL || mlist_build(&l, cols, m->ncols))
		goto out;
	for (i = 0; i < l.n; i++) {
		const struct metric *mt = &l.m[i];
		bool any = false;

		if (!selected(sel, mt->name))
			continue;
		for (c = 0; c < m->ncols; c++) {
			size_t r, nr = cols[c] != NULL ? cols[c]->nb_runs : 0;

			for (r = 0; r < nr; r++)
				buf[r] = metric_value(cols[c]->runs[r], mt);
			rxr_report_stats(buf, nr, &st[c]);
			any |= st[c].n > 0;
		}
		if (mt->optional && !any)
			continue;
		for (k = 0; k < NELEMS(stat_names); k++) {
			struct row *row;

			if (k != 1 && !(m->minmax && mt->spread))
				continue;
			row = model_new_row(m);
			if (row == NULL)
				goto out;
			row->stat = stat_names[k];
			row->dir = mt->dir;
			row->prec = mt->prec;
			row->section = mt->stream != NULL;
			row->metric = strdup(mt->name);
			if (config != NULL) {
				row->config = strdup(config);
				if (asprintf(&row->name, "%s.%s", config,
						mt->name) < 0)
					row->name = NULL;
			} else {
				row->name = strdup(mt->name);
			}
			if (row->metric == NULL || row->name == NULL ||
					(config != NULL && row->config == NULL))
				goto out;
			for (c = 0; c < m->ncols; c++) {
				row->v[c] = k == 0 ? st[c].min :
					k == 1 ? st[c].median : st[c].max;
				row->d[c] = mt->dir == DIR_NONE ? NAN :
					delta_pct(row->v[0], row->v[c],
						mt->dir);
			}
		}
	}
	ret = 0;
out:
	mlist_free(&l);
	free(buf);
	free(st);
	return ret;
}

/* Counts of the bucket [lo, hi) into counts[] (validated on load). */
static void
hist_accumulate(const json_t *h, uint64_t *counts, uint64_t *total)
{
	const json_t *b;
	size_t i;

	json_array_foreach(json_object_get(h, "buckets"), i, b) {
		json_int_t lo = json_integer_value(json_object_get(b, "lo"));
		json_int_t n = json_integer_value(json_object_get(b, "count"));
		unsigned int idx = rxr_report_hist_index((uint64_t)lo);

		/* Saturate: a sum past 2^64 would turn shares into nonsense. */
		counts[idx] = counts[idx] + (uint64_t)n < counts[idx] ?
			UINT64_MAX : counts[idx] + (uint64_t)n;
		*total = *total + (uint64_t)n < *total ? UINT64_MAX :
			*total + (uint64_t)n;
	}
}

static int
model_add_hist(struct model *m, const char *config,
		struct rr_group *const *cols)
{
	struct hist *h, *nh;
	int first = -1, last = -1, i;
	unsigned int c;
	size_t r;

	nh = realloc(m->hists, (m->nhists + 1) * sizeof(*nh));
	if (nh == NULL)
		return -ENOMEM;
	m->hists = nh;
	h = &m->hists[m->nhists];
	memset(h, 0, sizeof(*h));
	h->present = calloc(m->ncols, sizeof(*h->present));
	h->total = calloc(m->ncols, sizeof(*h->total));
	h->counts = calloc(m->ncols, sizeof(*h->counts));
	h->config = config != NULL ? strdup(config) : NULL;
	if (h->present == NULL || h->total == NULL || h->counts == NULL ||
			(config != NULL && h->config == NULL)) {
		free(h->present);
		free(h->total);
		free(h->counts);
		free(h->config);
		return -ENOMEM;
	}
	for (c = 0; c < m->ncols; c++) {
		for (r = 0; cols[c] != NULL && r < cols[c]->nb_runs; r++) {
			const json_t *j = json_object_get(cols[c]->runs[r],
					"refill_latency_hist");

			if (j == NULL)
				continue;
			h->present[c] = true;
			hist_accumulate(j, h->counts[c], &h->total[c]);
		}
		for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++) {
			if (h->counts[c][i] == 0)
				continue;
			if (first < 0 || i < first)
				first = i;
			if (i > last)
				last = i;
		}
	}
	/* Nothing populated anywhere: no histogram at all. */
	if (first < 0) {
		free(h->present);
		free(h->total);
		free(h->counts);
		free(h->config);
		return 0;
	}
	h->first = (unsigned int)first;
	h->last = (unsigned int)last;
	m->nhists++;
	return 0;
}

static bool
any_minmax(struct rr_group *const *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cols[i] != NULL && cols[i]->nb_runs > 1)
			return true;
	return false;
}

/* One report: a column per (strategy, bulk). */
static int
model_single(struct model *m, const struct rxr_report *r,
		const struct rxr_report_select *sel)
{
	struct rr_group *g, **cols = NULL;
	char label[256];
	size_t n, i;
	int ret = -ENOMEM;

	memset(m, 0, sizeof(*m));
	if (rr_groups(r->doc, &g, &n) != 0)
		return -ENOMEM;
	m->ncols = (unsigned int)n;
	m->headers = calloc(n + 1, sizeof(char *));
	cols = calloc(n + 1, sizeof(*cols));
	if (m->headers == NULL || cols == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		rr_group_label(g[i].strategy, g[i].bulk, label, sizeof(label));
		m->headers[i] = clean_dup(label);
		if (m->headers[i] == NULL)
			goto out;
		cols[i] = &g[i];
	}
	m->minmax = any_minmax(cols, n);
	if (n > 0 && (model_add_rows(m, NULL, cols, sel) ||
			(selected(sel, "refill_latency_hist") &&
			 model_add_hist(m, NULL, cols))))
		goto out;
	ret = 0;
out:
	free(cols);
	rr_groups_free(g, n);
	if (ret)
		model_free(m);
	return ret;
}

/* Several reports: a column per report, rows per (strategy, bulk). */
static int
model_compare(struct model *m, struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel)
{
	struct rr_group **g = NULL, **cols = NULL;
	size_t *ng = NULL, i, j, k;
	unsigned int c;
	char label[256];
	int ret = -ENOMEM;

	memset(m, 0, sizeof(*m));
	m->ncols = n;
	m->headers = calloc(n + 1, sizeof(char *));
	g = calloc(n + 1, sizeof(*g));
	ng = calloc(n + 1, sizeof(*ng));
	cols = calloc(n + 1, sizeof(*cols));
	if (m->headers == NULL || g == NULL || ng == NULL || cols == NULL)
		goto out;
	for (c = 0; c < n; c++) {
		m->headers[c] = clean_dup(labels[c]);
		if (m->headers[c] == NULL ||
				rr_groups(reports[c]->doc, &g[c], &ng[c]))
			goto out;
		for (i = 0; i < ng[c]; i++)
			m->minmax |= g[c][i].nb_runs > 1;
	}
	/* Configs in order of first appearance, first report first. */
	for (c = 0; c < n; c++) {
		for (i = 0; i < ng[c]; i++) {
			const struct rr_group *cfg = &g[c][i];
			bool seen = false;
			unsigned int o;
			char *clean;

			for (o = 0; o < c && !seen; o++)
				for (j = 0; j < ng[o] && !seen; j++)
					seen = g[o][j].bulk == cfg->bulk &&
						!strcmp(g[o][j].strategy,
							cfg->strategy);
			if (seen)
				continue;
			for (o = 0; o < n; o++) {
				cols[o] = NULL;
				for (k = 0; k < ng[o]; k++)
					if (g[o][k].bulk == cfg->bulk &&
							!strcmp(g[o][k].strategy,
								cfg->strategy))
						cols[o] = &g[o][k];
			}
			rr_group_label(cfg->strategy, cfg->bulk, label,
				sizeof(label));
			clean = clean_dup(label);
			if (clean == NULL)
				goto out;
			ret = model_add_rows(m, clean, cols, sel);
			if (ret == 0 && selected(sel, "refill_latency_hist"))
				ret = model_add_hist(m, clean, cols);
			free(clean);
			if (ret)
				goto out;
			ret = -ENOMEM;
		}
	}
	ret = 0;
out:
	for (c = 0; g != NULL && c < n; c++)
		rr_groups_free(g[c], ng[c]);
	free(g);
	free(ng);
	free(cols);
	if (ret)
		model_free(m);
	return ret;
}

/* A growing line; printed with trailing blanks removed. */
struct line {
	char buf[4096];
	size_t len;
	char *big;	/* when a line outgrows buf */
	size_t cap;
	bool oom;
};

static void
line_add(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
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

static void
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

static void
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
	else
		snprintf(buf, len, "(%6.2f%%)", row->d[c]);
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
	for (i = 0; i < m->nrows; i++) {
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

static void
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

#define SIGN_CONVENTION(first) "%% against the first " first "; positive %% = " \
	"better (rates: higher is better, costs: lower is better)"

static void
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
static void
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
				json_object_get(run, "rep")),
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
	if (m.ncols == 0) {
		line_add(&l, "no runs");
		line_put(&l, out);
	} else {
		line_add(&l, SIGN_CONVENTION("column"));
		line_put(&l, out);
	}
	print_model(&m, &l, out);
	model_free(&m);
	line_free(&l);
	if (l.oom)
		return -ENOMEM;
	return ferror(out) ? -EIO : 0;
}

int
rxr_report_compare_text(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, FILE *out,
		const struct rxr_report_select *sel)
{
	struct line l = { .len = 0 };
	struct model m;
	char prefix[300];
	unsigned int c;

	if (model_compare(&m, reports, labels, n, sel) != 0)
		return -ENOMEM;
	line_add(&l, "rxrefill-compare: %u report%s (%s), ", n,
		n == 1 ? "" : "s", RXR_REPORT_SCHEMA);
	line_add(&l, SIGN_CONVENTION("report"));
	line_put(&l, out);
	for (c = 0; c < n; c++) {
		const json_t *doc = reports[c]->doc;
		const json_t *env = json_object_get(doc, "env");
		char *host = clean_dup(json_string_value(json_object_get(env,
				"host")));

		line_add(&l, "%s: created %s, host %s, ", m.headers[c],
			json_string_value(json_object_get(doc, "created")),
			host != NULL ? host : "");
		free(host);
		print_env_line(doc, &l);
		line_add(&l, ", %u runs%s", rxr_report_nb_runs(reports[c]),
			json_is_true(json_object_get(doc, "partial")) ?
				", partial (interrupted run)" : "");
		line_put(&l, out);
		snprintf(prefix, sizeof(prefix), "%s: ", m.headers[c]);
		print_cut_short(reports[c], prefix, &l, out);
	}
	if (m.nrows == 0 && m.nhists == 0) {
		line_add(&l, "no runs to compare");
		line_put(&l, out);
	}
	print_model(&m, &l, out);
	model_free(&m);
	line_free(&l);
	if (l.oom)
		return -ENOMEM;
	return ferror(out) ? -EIO : 0;
}

static json_t *
jnum_or_null(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

static json_t *
rows_json(const struct model *m)
{
	static const char *const dir_names[] = {
		[DIR_NONE] = NULL, [DIR_HIGHER] = "higher",
		[DIR_LOWER] = "lower",
	};
	json_t *rows = json_array();
	size_t i;
	unsigned int c;

	for (i = 0; rows != NULL && i < m->nrows; i++) {
		const struct row *row = &m->rows[i];
		json_t *v = json_array(), *d = json_array();
		json_t *o;

		for (c = 0; v != NULL && d != NULL && c < m->ncols; c++) {
			json_array_append_new(v, jnum_or_null(row->v[c]));
			json_array_append_new(d, jnum_or_null(row->d[c]));
		}
		o = json_pack("{s:s?, s:s, s:s, s:s?, s:o*, s:o*}",
			"config", row->config, "metric", row->metric,
			"stat", row->stat[1] == 'i' ? "min" :
				row->stat[1] == 'e' ? "median" : "max",
			"better", dir_names[row->dir],
			"values", v, "delta_pct", d);
		if (o == NULL || json_array_append_new(rows, o) != 0) {
			json_decref(rows);
			return NULL;
		}
	}
	return rows;
}

static json_t *
hists_json(const struct model *m)
{
	json_t *hists = json_array();
	size_t i;
	unsigned int b, c;

	for (i = 0; hists != NULL && i < m->nhists; i++) {
		const struct hist *h = &m->hists[i];
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
	struct model m;
	unsigned int c;

	if (model_compare(&m, reports, labels, n, sel) != 0)
		return NULL;
	reps = json_array();
	for (c = 0; reps != NULL && c < n; c++) {
		const json_t *d = reports[c]->doc;
		const json_t *env = json_object_get(d, "env");

		if (json_array_append_new(reps, json_pack(
				"{s:o, s:O, s:O, s:O, s:O, s:O, s:I, s:I}",
				"label", rr_jstr(labels[c]),
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
		doc = json_pack("{s:s, s:s, s:o, s:o*, s:o*}",
			"schema", RXR_REPORT_COMPARE_SCHEMA,
			"sign", "delta_pct > 0 is better: higher for rates, "
				"lower for costs; against the first report",
			"reports", reps, "rows", rows_json(&m),
			"histograms", hists_json(&m));
	model_free(&m);
	return doc;
}
