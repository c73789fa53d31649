/* SPDX-License-Identifier: BSD-3-Clause */

/* The table model: the metrics of a set of columns, their figures and
 * % against the first, and the refill latency histograms. */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"
#include "rxr_stats.h"

/* What a row is of: a run's figure, or a flow's packets or bytes. */
struct rxrr_metric {
	char *name;		/* "gbps", "drops.imissed", "streams.bytes[..]" */
	const json_t *stream;	/* the flow, for stream rows */
	const char *field;	/* "packets" or "bytes", for stream rows */
	char *key;		/* the flow's key in the runs' stream indexes */
	enum rxrr_dir dir;
	int prec;		/* decimals in text */
	bool optional;		/* a row only when some column has a value */
	bool spread;		/* Min and Max rows too, when reps > 1 */
};

/* The rows of the run figures and of the groups' fields (rxr_report.h). */
static const struct row_spec {
	const char *path;	/* "gbps", "pcp.hit_rate" */
	const char *group;	/* "pcp"; NULL: a figure */
	const char *name;	/* "hit_rate" */
	unsigned int group_id;
	enum rxrr_dir dir;
	int prec;
	bool optional;		/* a row only when some column has a value */
	bool number;		/* a NUMBER field: before the counts */
} row_specs[] = {
#define SPARSE_REQUIRED false
#define SPARSE_OPTIONAL false
#define SPARSE_SPARSE true
#define FIGURES (RXR_REPORT_GROUPS_NUM + 1)
#define FIGURE_(n, r, when, h) { #n, NULL, #n, FIGURES, RXRR_DIR_##r, 2, \
	SPARSE_##when, true },
	RXR_REPORT_FIGURES(FIGURE_)
#define NUMBER_COUNT false
#define NUMBER_NUMBER true
#define NUMBER_STRING false
#define ROW_NONE(g, f, t, p, opt)
#define ROW_(dir, g, f, t, p, opt) { #g "." #f, #g, #f, RXR_REPORT_GROUP_##g, \
	RXRR_DIR_##dir, p, opt, NUMBER_##t },
#define ROW_COUNT(...) ROW_(NONE, __VA_ARGS__)
#define ROW_HIGHER(...) ROW_(HIGHER, __VA_ARGS__)
#define ROW_LOWER(...) ROW_(LOWER, __VA_ARGS__)
#define ROW_ALWAYS(g, f, t, r, p, h) ROW_##r(g, f, t, p, false)
#define ROW_HAS(g, f, t, r, p, h) ROW_##r(g, f, t, p, true)
#define GROUP_(g, list, when) list(ROW_##when)
	RXR_REPORT_GROUPS(GROUP_)
	/* Per-stream fairness, the summary of the stream rows. */
#define FAIRNESS RXR_REPORT_GROUPS_NUM
#define FAIRNESS_(f, dir) { "fairness." #f, "fairness", #f, FAIRNESS, \
	RXRR_DIR_##dir, 4, true, true },
	FAIRNESS_(min_share, HIGHER)
	FAIRNESS_(max_share, LOWER)
	FAIRNESS_(jain, HIGHER)
};
_Static_assert(FIGURES < 32, "groups, fairness, figures fit a mask");

/* The table's rows in order: those of row_specs' groups, or one per key
 * of an object the runs carry. */
#define G(g) (1u << RXR_REPORT_GROUP_##g)
static const struct {
	unsigned int groups;	/* bits by group id (rows_groups()) */
	const char *keys;	/* else the object, "drops" */
	enum rxrr_dir dir;
} row_order[] = {
	{ 1u << FIGURES | G(pcp) | G(zone_lock), NULL, RXRR_DIR_NONE },
	{ 0, "drops", RXRR_DIR_LOWER },
	{ G(deferred), NULL, RXRR_DIR_NONE },
	/* A strategy's own counters, any names; "recycle" is what older
	 * reports carry for the recycle strategy's. */
	{ 0, "strategy_counters", RXRR_DIR_NONE },
	{ 0, "recycle", RXRR_DIR_NONE },
	{ G(zeroing) | G(poll) | G(zeroer), NULL, RXRR_DIR_NONE },
	{ 1u << FAIRNESS, NULL, RXRR_DIR_NONE },
};
#undef G

/* A comparison that was not made. */
#define NO_CMP ((struct rxr_stats_cmp){ .est = NAN, .lo = NAN, .hi = NAN, \
	.p = NAN, .min_p = 1 })
/* Half the last of the two decimals a % is shown with. */
#define DELTA_ROUNDS_TO_ZERO 0.005

/* Names that select a group of rows rather than one. */
static const char *const metric_groups[] = {
	"drops", "recycle", "strategy_counters",
	"streams", "streams.packets", "streams.bytes", "refill_latency_hist",
};

bool
rxr_report_metric_known(const char *sel)
{
	size_t i;

	if (sel == NULL || *sel == '\0')
		return false;
	for (i = 0; i < NELEMS(row_specs); i++)
		if (strcmp(sel, row_specs[i].path) == 0 ||
				(row_specs[i].group != NULL &&
				 strcmp(sel, row_specs[i].group) == 0))
			return true;
	for (i = 0; i < NELEMS(metric_groups); i++)
		if (strcmp(sel, metric_groups[i]) == 0)
			return true;
	/* Any drop cause may appear in a report; so may any flow. */
	return (strncmp(sel, "drops.", 6) == 0 && sel[6] != '\0') ||
		(strncmp(sel, "strategy_counters.", 18) == 0 &&
			sel[18] != '\0') ||
		(strncmp(sel, "recycle.", 8) == 0 && sel[8] != '\0') ||
		strncmp(sel, "streams.packets[", 16) == 0 ||
		strncmp(sel, "streams.bytes[", 14) == 0;
}

static char metric_help[1024];
static pthread_once_t metric_help_once = PTHREAD_ONCE_INIT;

/* "gbps, ..., pcp[.hit_rate], zone_lock[.contended|.wait_share], ...". */
static void
metric_help_build(void)
{
	const struct row_spec *f;
	const char *group = NULL;
	size_t n = 0, i;

#define ADD(...) (n += (size_t)snprintf(metric_help + n, \
	n < sizeof(metric_help) ? sizeof(metric_help) - n : 0, __VA_ARGS__))
	/* The fairness rows are listed with the other groups of rows. */
	for (i = 0; i < NELEMS(row_specs) && row_specs[i].group_id != FAIRNESS;
			i++) {
		f = &row_specs[i];
		if (f->group == NULL)
			ADD("%s, ", f->name);
		else if (group == NULL || strcmp(group, f->group) != 0)
			ADD("%s%s[.%s", group != NULL ? "], " : "", f->group,
				f->name);
		else
			ADD("|.%s", f->name);
		group = f->group;
	}
	ADD("%sdrops[.<cause>], recycle[.<counter>], "
		"strategy_counters[.<counter>], "
		"fairness[.min_share|.max_share|.jain], "
		"streams[.packets|.bytes], refill_latency_hist",
		group != NULL ? "], " : "");
#undef ADD
}

const char *
rxr_report_metric_help(void)
{
	pthread_once(&metric_help_once, metric_help_build);
	return metric_help;
}

bool
rxrr_selected(const struct rxr_report_select *sel, const char *name)
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
		ret = asprintf(&out, "%s>%s/%s%s", src, dst,
			proto_name(proto, pbuf, sizeof(pbuf)),
			json_is_true(json_object_get(s, "fragments")) ?
			" frag" : "");
	else
		ret = asprintf(&out, "%s%s%s:%lld>%s%s%s:%lld/%s",
			v6 ? "[" : "", src, v6 ? "]" : "", (long long)sport,
			v6 ? "[" : "", dst, v6 ? "]" : "", (long long)dport,
			proto_name(proto, pbuf, sizeof(pbuf)));
	if (ret < 0)
		return NULL;
	c = rxrr_clean_dup(out);
	free(out);
	return c;
}

/* A flow's identity as one string: stream rows stay linear in streams. */
static char *
stream_key(const json_t *s)
{
	char *k;

	if (asprintf(&k, "%s\x1f%s\x1f%lld\x1f%lld\x1f%lld%s",
			json_string_value(json_object_get(s, "src")),
			json_string_value(json_object_get(s, "dst")),
			(long long)json_integer_value(json_object_get(s, "sport")),
			(long long)json_integer_value(json_object_get(s, "dport")),
			(long long)json_integer_value(json_object_get(s, "proto")),
			json_is_true(json_object_get(s, "fragments")) ? "f" : "")
			< 0)
		return NULL;
	return k;
}

/* A run's streams by key (the first of equal ones); json_null() without
 * streams, NULL when out of memory. */
static json_t *
stream_index(const json_t *run)
{
	const json_t *streams = json_object_get(run, "streams"), *s;
	json_t *idx;
	size_t i;

	if (streams == NULL)
		return json_null();
	idx = json_object();
	if (idx == NULL)
		return NULL;
	json_array_foreach(streams, i, s) {
		char *k = stream_key(s);

		if (k == NULL || (json_object_get(idx, k) == NULL &&
				json_object_set_nocheck(idx, k,
					(json_t *)(uintptr_t)s) != 0)) {
			free(k);
			json_decref(idx);
			return NULL;
		}
		free(k);
	}
	return idx;
}

/* index: the run's stream_index(), for stream rows. */
static double
metric_value(const json_t *run, const json_t *index, const struct rxrr_metric *mt)
{
	const json_t *s;

	if (mt->stream == NULL)
		return rxrr_num(rxrr_path(run, mt->name));
	if (index == NULL || json_is_null(index))
		return NAN;
	/* The run counted flows but saw none of this one: 0, not unknown. */
	s = json_object_get(index, mt->key);
	return s != NULL ? rxrr_num(json_object_get(s, mt->field)) : 0;
}

void
rxrr_model_free(struct rxrr_model *m)
{
	size_t i;

	for (i = 0; m->headers != NULL && i < m->ncols; i++)
		free(m->headers[i]);
	free(m->headers);
	for (i = 0; i < m->nrows; i++) {
		free(m->rows[i].name);
		free(m->rows[i].config);
		free(m->rows[i].metric);
		free(m->rows[i].cmp);	/* and the other arrays */
	}
	free(m->rows);
	for (i = 0; i < m->nhists; i++) {
		free(m->hists[i].config);
		free(m->hists[i].counts);	/* and the totals */
	}
	free(m->hists);
	rxrr_configs_free(&m->cf);
	memset(m, 0, sizeof(*m));
}

/* % better than the base: positive for higher rates and lower costs. */
static double
delta_pct(double base, double v, enum rxrr_dir dir)
{
	double d;

	if (isnan(base) || isnan(v))
		return NAN;
	/* From 0, any change is a change without end, better or worse. */
	if (base == 0)
		return v == 0 ? 0.0 : (v > 0) == (dir == RXRR_DIR_HIGHER) ?
			INFINITY : -INFINITY;
	d = dir == RXRR_DIR_HIGHER ? (v - base) / base * 100.0 :
		(base - v) / base * 100.0;
	/* No "-0.00%" for a change that rounds to nothing. */
	return fabs(d) < DELTA_ROUNDS_TO_ZERO ? 0.0 : d;
}

static struct rxrr_row *
model_new_row(struct rxrr_model *m)
{
	struct rxrr_row *row;

	if (m->nrows == m->caprows) {
		size_t cap = m->caprows ? 2 * m->caprows : 64;
		struct rxrr_row *nr = realloc(m->rows, cap * sizeof(*nr));

		if (nr == NULL)
			return NULL;
		m->rows = nr;
		m->caprows = cap;
	}
	row = &m->rows[m->nrows];
	memset(row, 0, sizeof(*row));
	/* One allocation for the per-column arrays, widest type first. */
	row->cmp = calloc(m->ncols, sizeof(*row->cmp) + 3 * sizeof(double) +
		sizeof(bool));
	if (row->cmp == NULL)
		return NULL;
	row->v = (double *)(row->cmp + m->ncols);
	row->d = row->v + m->ncols;
	row->p_unpaired = row->d + m->ncols;
	row->has = (bool *)(row->p_unpaired + m->ncols);
	m->nrows++;
	return row;
}

/* The stats of a column's values, in the order of stat_names[]. */
#define STAT_OF(d) { (d)->min, (d)->median, (d)->mean, (d)->stdev, (d)->max }
static const char *const stat_names[] = {
	"Min", "Median", "Mean", "Stddev", "Max",
};

/* The rows of a set of columns being added: per column, the figures of
 * the metric at hand. */
struct colstats {
	struct rxrr_model *m;
	const char *config;
	struct rxrr_group *const *cols;
	const struct rxr_report_select *sel;
	size_t most;			/* the most runs of a column */
	double *buf;			/* per column: most values */
	size_t *nv;			/* per column: values in buf */
	double *p;			/* unpaired p against the first */
	struct rxr_stats_desc *st;
	struct rxr_stats_cmp *cmp;	/* against the first */
	json_t **index;			/* per column and run: stream_index() */
};

static void
colstats_free(struct colstats *cs)
{
	for (size_t i = 0; cs->index != NULL && i < cs->m->ncols * cs->most;
			i++)
		json_decref(cs->index[i]);
	free(cs->index);
	free(cs->st);	/* and the other arrays */
}

/* Scratch for cols; with stream rows, each run's stream index. */
static int
colstats_init(struct colstats *cs, struct rxrr_model *m, const char *config,
		struct rxrr_group *const *cols, const struct rxr_report_select *sel)
{
	const unsigned int ncols = m->ncols;
	unsigned int c;
	size_t i;

	*cs = (struct colstats){ .m = m, .config = config, .cols = cols,
		.sel = sel, .most = 1 };
	for (c = 0; c < ncols; c++)
		if (cols[c] != NULL && cols[c]->nb_runs > cs->most)
			cs->most = cols[c]->nb_runs;
	/* One allocation for the per-column arrays, widest type first. */
	cs->st = calloc(ncols, sizeof(*cs->st) + sizeof(*cs->cmp) +
		(cs->most + 1) * sizeof(double) + sizeof(size_t));
	if (cs->st == NULL)
		return -ENOMEM;
	cs->cmp = (struct rxr_stats_cmp *)(cs->st + ncols);
	cs->buf = (double *)(cs->cmp + ncols);
	cs->p = cs->buf + ncols * cs->most;
	cs->nv = (size_t *)(cs->p + ncols);
	if (!m->stream_rows)
		return 0;
	cs->index = calloc(ncols * cs->most, sizeof(*cs->index));
	if (cs->index == NULL)
		return -ENOMEM;
	for (c = 0; c < ncols; c++)
		for (i = 0; cols[c] != NULL && i < cols[c]->nb_runs; i++)
			if ((cs->index[c * cs->most + i] = stream_index(
					cols[c]->runs[i])) == NULL)
				return -ENOMEM;
	return 0;
}

/*
 * Describe metric mt in every column and compare each column after the
 * first with the first: unpaired p, and the ratio (paired over the rounds
 * when the model is). Whether some column has a value.
 */
static bool
colstats_metric(struct colstats *cs, const struct rxrr_metric *mt)
{
	const struct rxrr_model *m = cs->m;
	struct rxrr_group *const *cols = cs->cols;
	bool any = false;
	unsigned int c;

	for (c = 0; c < m->ncols; c++) {
		size_t r, nr = cols[c] != NULL ? cols[c]->nb_runs : 0;
		double *v = cs->buf + c * cs->most;
		struct rxr_stats_cmp unpaired;
		size_t *nv = cs->nv;

		nv[c] = 0;
		for (r = 0; r < nr; r++) {
			v[nv[c]] = metric_value(cols[c]->runs[r],
				cs->index != NULL ? cs->index[c * cs->most + r] :
				NULL, mt);
			nv[c] += !isnan(v[nv[c]]);
		}
		rxr_stats_describe(v, nv[c], &cs->st[c]);
		any |= cs->st[c].n > 0;
		/* The unpaired test of the values, a second opinion. */
		unpaired = NO_CMP;
		if (c > 0 && mt->dir != RXRR_DIR_NONE)
			rxr_stats_compare(v, nv[c], cs->buf, nv[0], false, true,
				m->alpha, &unpaired);
		cs->p[c] = unpaired.p;
		cs->cmp[c] = NO_CMP;
		if (c > 0 && mt->dir != RXRR_DIR_NONE && mt->stream == NULL &&
				cols[c] != NULL && cols[0] != NULL)
			/* Counts: their change per round, from 0 too. */
			rxrr_ratio(cols[c], cols[0], mt->name, m->paired,
				strncmp(mt->name, "drops.", 6) == 0, m->alpha,
				&cs->cmp[c]);
	}
	return any;
}

/* Row stat_names[k] of metric mt from its column figures. */
static int
model_add_row(struct colstats *cs, const struct rxrr_metric *mt, size_t k,
		bool zeros)
{
	struct rxrr_model *m = cs->m;
	bool has_mean = m->minmax && mt->spread;
	struct rxrr_row *row = model_new_row(m);
	unsigned int c;

	if (row == NULL)
		return -ENOMEM;
	row->stat = stat_names[k];
	/* A spread has no better direction. */
	row->dir = k == 3 || zeros ? RXRR_DIR_NONE : mt->dir;
	row->prec = mt->prec;
	row->section = mt->stream != NULL;
	row->metric = strdup(mt->name);
	if (cs->config != NULL) {
		row->config = strdup(cs->config);
		if (asprintf(&row->name, "%s.%s", cs->config, mt->name) < 0)
			row->name = NULL;
	} else {
		row->name = strdup(mt->name);
	}
	if (row->metric == NULL || row->name == NULL ||
			(cs->config != NULL && row->config == NULL))
		return -ENOMEM;
	row->tested = row->dir != RXRR_DIR_NONE && k == (has_mean ? 2 : 1);
	for (c = 0; c < m->ncols; c++) {
		row->v[c] = ((const double[])STAT_OF(&cs->st[c]))[k];
		row->d[c] = row->dir == RXRR_DIR_NONE ? NAN :
			delta_pct(row->v[0], row->v[c], row->dir);
		row->p_unpaired[c] = row->tested ? cs->p[c] : NAN;
		row->has[c] = cs->cols[c] != NULL;
		row->cmp[c] = row->tested ? cs->cmp[c] : NO_CMP;
	}
	return 0;
}

/*
 * The rows of metric mt, if selected: its Median, and with several
 * repetitions and a spread its Min, Mean, Stddev and Max too; none for
 * an optional metric no column has a value of.
 */
static int
metric_rows(struct colstats *cs, const struct rxrr_metric *mt)
{
	const struct rxrr_model *m = cs->m;
	bool any, zeros;
	unsigned int c;
	size_t k;
	int ret = 0;

	if (rxrr_stopped(m->stop) || !rxrr_selected(cs->sel, mt->name))
		return 0;
	any = colstats_metric(cs, mt);
	if (mt->optional && !any)
		return 0;
	/* Zeros in every column: nothing to test, no % to give. */
	zeros = any;
	for (c = 0; c < m->ncols && zeros; c++)
		zeros = cs->st[c].n == 0 ||
			(cs->st[c].min == 0 && cs->st[c].max == 0);
	for (k = 0; ret == 0 && k < NELEMS(stat_names); k++)
		if (k == 1 || (m->minmax && mt->spread))
			ret = model_add_row(cs, mt, k, zeros);
	return ret;
}

/*
 * The rows of the groups in mask (bits by group id): their figures
 * (NUMBER) first, then their counts, each in list order. A group written
 * in every run has its rows always; another only where a run has values.
 */
static int
rows_groups(struct colstats *cs, unsigned int mask)
{
	const struct row_spec *f;
	unsigned int pass, i;
	int ret = 0;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; ret == 0 && i < NELEMS(row_specs); i++) {
			f = &row_specs[i];
			if ((mask & 1u << f->group_id) && f->number == (pass == 0))
				ret = metric_rows(cs, &(struct rxrr_metric){
					.name = (char *)(uintptr_t)f->path,
					.dir = f->dir, .prec = f->prec,
					.optional = f->optional,
					.spread = f->group_id == FIGURES });
		}
	return ret;
}

/* A "<field>.<key>" row unless seen. */
static int
key_rows(struct colstats *cs, json_t *seen, const char *field,
		const char *key, enum rxrr_dir dir)
{
	char *name;
	int ret;

	if (json_object_get(seen, key) != NULL)
		return 0;
	if (json_object_set_new_nocheck(seen, key, json_true()) != 0 ||
			asprintf(&name, "%s.%s", field, key) < 0)
		return -ENOMEM;
	ret = metric_rows(cs, &(struct rxrr_metric){ .name = name, .dir = dir,
		.optional = true });
	free(name);
	return ret;
}

/* A packets and a bytes row for flow s unless seen, keyed by its key. */
static int
flow_rows(struct colstats *cs, json_t *seen, const json_t *s)
{
	static const char *const fields[] = { "packets", "bytes" };
	char *k = stream_key(s), *label = NULL, *name;
	int ret = k == NULL ? -ENOMEM : 0;

	if (ret == 0 && json_object_get(seen, k) == NULL) {
		label = stream_label(s);
		if (label == NULL || json_object_set_new_nocheck(seen, k,
				json_true()) != 0)
			ret = -ENOMEM;
		for (size_t f = 0; ret == 0 && f < NELEMS(fields); f++) {
			ret = -ENOMEM;
			if (asprintf(&name, "streams.%s[%s]", fields[f],
					label) < 0)
				break;
			ret = metric_rows(cs, &(struct rxrr_metric){
				.name = name, .dir = RXRR_DIR_HIGHER,
				.optional = true, .stream = s,
				.field = fields[f], .key = k });
			free(name);
		}
	}
	free(label);
	free(k);
	return ret;
}

/*
 * The rows of what the columns' runs carry in field, in order of first
 * sight: of "streams", a packets and a bytes row per flow; of an object
 * ("drops"), a row per key.
 */
static int
rows_seen(struct colstats *cs, const char *field, enum rxrr_dir dir)
{
	const bool flows = strcmp(field, "streams") == 0;
	json_t *seen = json_object();
	int ret = seen == NULL ? -ENOMEM : 0;

	for (unsigned int c = 0; ret == 0 && c < cs->m->ncols; c++)
		for (size_t i = 0; ret == 0 && cs->cols[c] != NULL &&
				i < cs->cols[c]->nb_runs; i++) {
			json_t *v = json_object_get(cs->cols[c]->runs[i], field);
			const char *key;
			json_t *e;
			size_t j;

			json_array_foreach(flows ? v : NULL, j, e)
				if (ret == 0)
					ret = flow_rows(cs, seen, e);
			json_object_foreach(flows ? NULL : v, key, e)
				if (ret == 0)
					ret = key_rows(cs, seen, field, key, dir);
		}
	json_decref(seen);
	return ret;
}

/* The refill latency histogram of each column, nothing when all are empty. */
static int
model_add_hist(struct rxrr_model *m, const char *config,
		struct rxrr_group *const *cols)
{
	struct rxrr_hist *h, *nh;
	unsigned int c, i, first = RXR_REPORT_HIST_BUCKETS, last = 0;

	nh = realloc(m->hists, (m->nhists + 1) * sizeof(*nh));
	if (nh == NULL)
		return -ENOMEM;
	m->hists = nh;
	/* Kept on failure: the model's free frees it. */
	h = &m->hists[m->nhists++];
	*h = (struct rxrr_hist){
		.config = config != NULL ? strdup(config) : NULL,
		.counts = calloc(m->ncols, sizeof(*h->counts) +
			sizeof(*h->total)),
	};
	if (h->counts == NULL || (config != NULL && h->config == NULL))
		return -ENOMEM;
	h->total = (uint64_t *)(h->counts + m->ncols);
	for (c = 0; c < m->ncols; c++) {
		if (cols[c] != NULL)
			rxrr_group_hist(cols[c], h->counts[c]);
		for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++) {
			/* Saturating, as each bucket's sum. */
			h->total[c] = h->total[c] + h->counts[c][i] < h->total[c] ?
				UINT64_MAX : h->total[c] + h->counts[c][i];
			if (h->counts[c][i] != 0) {
				first = MIN(first, i);
				last = MAX(last, i);
			}
		}
	}
	if (first == RXR_REPORT_HIST_BUCKETS) {
		free(h->config);
		free(h->counts);
		m->nhists--;
		return 0;
	}
	h->first = first;
	h->last = last;
	return 0;
}

/*
 * Rows of one set of columns (a report's groups, or one config) in
 * row_order, then its histograms. Each column after the first is
 * compared with the first on every metric with a direction (paired over
 * the rounds when the model is); the metric's tested row (Mean, else
 * Median) carries the result.
 */
static int
model_add_rows(struct rxrr_model *m, const char *config,
		struct rxrr_group *const *cols, const struct rxr_report_select *sel)
{
	struct colstats cs;
	size_t i;
	int ret;

	ret = colstats_init(&cs, m, config, cols, sel);
	for (i = 0; ret == 0 && i < NELEMS(row_order); i++)
		ret = row_order[i].keys != NULL ? rows_seen(&cs,
			row_order[i].keys, row_order[i].dir) :
			rows_groups(&cs, row_order[i].groups);
	if (ret == 0 && m->stream_rows)
		ret = rows_seen(&cs, "streams", RXRR_DIR_HIGHER);
	colstats_free(&cs);
	if (ret == 0 && rxrr_selected(sel, "refill_latency_hist"))
		ret = model_add_hist(m, config, cols);
	return ret;
}

/*
 * Separate reports ran in separate rounds: unpaired. A report compared
 * with itself ran in its own rounds: paired.
 */
static bool
reports_paired(struct rxr_report *const *reports, unsigned int n)
{
	static const char *const same[] = { "created", "env", "runs" };
	bool paired = n > 1 && rxrr_interleaved(reports[0]->doc);
	unsigned int c;

	for (c = 1; c < n && paired; c++)
		for (size_t k = 0; k < NELEMS(same) && paired; k++)
			paired = json_equal(json_object_get(reports[c]->doc,
					same[k]), json_object_get(reports[0]->doc,
					same[k]));
	return paired;
}

int
rxrr_configs_init(struct rxrr_configs *cf, struct rxr_report *const *reports,
		unsigned int n)
{
	bool zero = false;
	unsigned int c;
	size_t i;

	*cf = (struct rxrr_configs){ .n = n, .g = calloc(n + 1, sizeof(*cf->g)),
		.ng = calloc(n + 1, sizeof(*cf->ng)),
		.cols = calloc(n + 1, sizeof(*cf->cols)) };
	if (cf->g == NULL || cf->ng == NULL || cf->cols == NULL)
		return -ENOMEM;
	for (c = 0; c < n; c++)
		if (rxrr_groups(reports[c]->doc, &cf->g[c], &cf->ng[c]) != 0)
			return -ENOMEM;
	for (c = 0; c < n; c++)
		for (i = 0; i < cf->ng[c]; i++)
			zero |= cf->g[c][i].zero;
	for (c = 0; c < n; c++)
		for (i = 0; i < cf->ng[c]; i++)
			cf->g[c][i].zero = zero;
	return 0;
}

const struct rxrr_group *
rxrr_configs_next(struct rxrr_configs *cf)
{
	while (cf->c < cf->n) {
		const struct rxrr_group *cfg;
		bool seen = false;

		if (cf->i == cf->ng[cf->c]) {
			cf->c++;
			cf->i = 0;
			continue;
		}
		cfg = &cf->g[cf->c][cf->i++];
		/* Each report's group of cfg's configuration, or NULL. */
		for (unsigned int o = 0; o < cf->n; o++) {
			cf->cols[o] = NULL;
			for (size_t k = 0; k < cf->ng[o] && !cf->cols[o]; k++)
				if (rxrr_same_config(cf->g[o][k].runs[0],
						cfg->runs[0], cfg->zero))
					cf->cols[o] = &cf->g[o][k];
			seen |= o < cf->c && cf->cols[o] != NULL;
		}
		if (!seen)
			return cfg;
	}
	return NULL;
}

void
rxrr_configs_free(struct rxrr_configs *cf)
{
	for (unsigned int c = 0; cf->g != NULL && cf->ng != NULL && c < cf->n;
			c++)
		rxrr_groups_free(cf->g[c], cf->ng[c]);
	free(cf->g);
	free(cf->ng);
	free(cf->cols);
}

int
rxrr_model(struct rxrr_model *m, struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel)
{
	const json_t *doc = n > 0 ? reports[0]->doc : NULL;
	struct rxrr_configs *cf = &m->cf;
	struct rxrr_group **cols = NULL;
	const struct rxrr_group *cfg;
	char label[256], *clean;
	unsigned int c;
	size_t i;
	int ret = -ENOMEM;

	*m = (struct rxrr_model){
		.alpha = sel != NULL && sel->alpha > 0 && sel->alpha < 1 ?
			sel->alpha : doc != NULL ? rxrr_alpha(doc) :
			RXR_REPORT_ALPHA_DEFAULT,
		.stream_rows = sel != NULL && sel->stream_rows,
		.stop = sel != NULL ? sel->stop : NULL,
	};
	for (i = 0; sel != NULL && i < sel->nb_metrics; i++)
		m->stream_rows |= strncmp(sel->metrics[i], "streams", 7) == 0;
	if (rxrr_configs_init(cf, reports, labels != NULL ? n : 1) != 0)
		goto out;
	for (c = 0; c < cf->n; c++)
		for (i = 0; i < cf->ng[c]; i++)
			m->minmax |= cf->g[c][i].nb_runs > 1;
	m->ncols = labels != NULL ? n : (unsigned int)cf->ng[0];
	m->paired = labels != NULL ? reports_paired(reports, n) :
		rxrr_interleaved(doc);
	m->headers = calloc(m->ncols + 1, sizeof(char *));
	cols = calloc(m->ncols + 1, sizeof(*cols));
	if (m->headers == NULL || cols == NULL)
		goto out;
	for (c = 0; c < m->ncols; c++) {
		if (labels == NULL) {
			rxrr_group_label(&cf->g[0][c], label, sizeof(label));
			cols[c] = &cf->g[0][c];
		}
		m->headers[c] = rxrr_clean_dup(labels != NULL ? labels[c] :
			label);
		if (m->headers[c] == NULL)
			goto out;
	}
	ret = 0;
	if (labels == NULL) {
		if (m->ncols > 0)
			ret = model_add_rows(m, NULL, cols, sel);
		goto out;
	}
	while (ret == 0 && (cfg = rxrr_configs_next(cf)) != NULL) {
		rxrr_group_label(cfg, label, sizeof(label));
		clean = rxrr_clean_dup(label);
		ret = clean != NULL ? model_add_rows(m, clean, cf->cols, sel) :
			-ENOMEM;
		free(clean);
	}
out:
	free(cols);
	if (ret)
		rxrr_model_free(m);
	return ret;
}
