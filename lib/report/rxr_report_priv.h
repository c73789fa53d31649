/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_REPORT_PRIV_H
#define RXR_REPORT_PRIV_H

/* Internals by defining file, bottom layer first: a file calls only the
 * groups above its own (report_layers.py). */

#include <stdarg.h>

#include "rxr_report.h"
#include "rxr_stats.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* A report is its JSON document: built here or loaded, one code path. */
struct rxr_report {
	json_t *doc;
	bool stale;	/* runs added since the summary was computed */
};

/* Log2 bucket of a latency (the last takes the rest), its bounds [lo, hi). */
static inline unsigned int
rxrr_hist_index(uint64_t ns)
{
	unsigned int i;

	if (ns == 0)
		return 0;
	i = 64 - (unsigned int)__builtin_clzll(ns);
	return i < RXR_REPORT_HIST_BUCKETS ? i : RXR_REPORT_HIST_BUCKETS - 1;
}

static inline uint64_t
rxrr_hist_lo(unsigned int i)
{
	return i == 0 ? 0 : UINT64_C(1) << (i - 1);
}

static inline uint64_t
rxrr_hist_hi(unsigned int i)
{
	return UINT64_C(1) << i;
}

/* rxr_report_util.c: errors, numbers and paths, JSON values. */

void rxrr_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A number, NaN when missing or null; obj.a or obj.a.b of "a.b". */
double rxrr_num(const json_t *v);
const json_t *rxrr_path(const json_t *obj, const char *path);

/* A configuration: strategy, bulk and, where a report runs several per
 * strategy and bulk (rxrr_zero_listed()), zeroing; "bh-bulk zero=alloc/nt". */
const char *rxrr_zero_of(const json_t *run, const char *key);
bool rxrr_same_zero(const json_t *a, const json_t *b);
bool rxrr_same_config(const json_t *a, const json_t *b, bool zero);
bool rxrr_zero_listed(const json_t *doc);
void rxrr_run_label(const json_t *run, bool zero, char *buf, size_t len);

/* JSON values: a string, not UTF-8 as '?'; set failing on NULL; a number,
 * null unless finite; a counter, clamped to int64. */
json_t *rxrr_jstr(const char *s);
int rxrr_jset(json_t *obj, const char *key, json_t *v);
json_t *rxrr_jnum(double d);
json_t *rxrr_jcount(uint64_t c);

double rxrr_alpha(const json_t *doc);
/* A copy safe to print: control characters become '?'. */
char *rxrr_clean_dup(const char *s);

/* A growing line, printed with trailing blanks removed. */
struct rxrr_line {
	char *buf;
	size_t len;
	size_t cap;
	bool oom;
};

void rxrr_line_add(struct rxrr_line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s with control characters as '?': file text never reaches a tty raw. */
void rxrr_line_clean(struct rxrr_line *l, const char *s);
void rxrr_line_put(struct rxrr_line *l, FILE *out);
void rxrr_line_put_wrapped(struct rxrr_line *l, FILE *out);
void rxrr_line_free(struct rxrr_line *l);

/* rxr_report_runs.c: runs and their groups. */

bool rxrr_run_complete(const json_t *run);

/* The runs of one configuration, in the order they ran. */
struct rxrr_group {
	const char *strategy;
	bool bulk;
	bool zero;	/* its zeroing is part of it (rxrr_zero_listed()) */
	size_t nb_runs;
	json_t **runs;
};

void rxrr_group_label(const struct rxrr_group *g, char *buf, size_t len);
/* For bulk-off g[i], its strategy and zeroing with bulk on; else NULL. */
const struct rxrr_group *rxrr_bulk_sibling(const struct rxrr_group *g,
		size_t n, size_t i);

/* doc's complete runs by configuration in order of first appearance
 * (--disturbed exclude: without the disturbed ones). */
int rxrr_groups(const json_t *doc, struct rxrr_group **groups, size_t *nb);
void rxrr_groups_free(struct rxrr_group *groups, size_t nb);

/* doc's "noise": repetitions with a noise record, disturbed ones. */
int rxrr_noise_count(json_t *doc);

/* The disturbed repetitions, a line each; how many, one line. */
void rxrr_print_disturbed(const struct rxr_report *r, const char *prefix,
		struct rxrr_line *l, FILE *out);
void rxrr_print_noise_count(const struct rxr_report *r, const char *prefix,
		struct rxrr_line *l, FILE *out);

/* rxr_report_summary.c: configurations compared, the summary, the
 * latency percentiles. */

/* Runs in interleaved rounds (rep never goes back): a rep pairs runs. */
bool rxrr_interleaved(const json_t *doc);

/* g against ref on metric (a run's path): paired by rep when paired, a
 * ratio or (diff, a 0) a difference; 0, or -1 when nothing could be
 * compared. */
int rxrr_ratio(const struct rxrr_group *g, const struct rxrr_group *ref,
		const char *metric, bool paired, bool diff, double alpha,
		struct rxr_stats_cmp *out);

/* The summary: recomputed if runs were added (fresh), always, or with
 * a new alpha (-EINVAL unless in (0, 1)); 0 or -ENOMEM. */
int rxrr_fresh(const struct rxr_report *r);
int rxrr_summarize(struct rxr_report *r);
int rxrr_set_alpha(struct rxr_report *r, double alpha);

/* Refill latency percentiles: p50 p90 p99 p99.9 and their names. */
#define RXRR_PCT_N 4
extern const double rxrr_pct_points[RXRR_PCT_N];
extern const char *const rxrr_pct_names[RXRR_PCT_N];

/* Percentile p of a log2 histogram, its bucket [lo, hi) and ns
 * interpolated inside it. */
struct rxrr_pct {
	double p;
	uint64_t lo;
	uint64_t hi;
	double ns;
};

/* Nearest rank; 0, or -EINVAL when empty or p is out of (0, 100]. */
int rxrr_percentile(const uint64_t *counts, double p, struct rxrr_pct *out);
/* The percentiles as JSON; NULL when empty. */
json_t *rxrr_percentiles_json(const uint64_t *counts);
/* Every repetition of g in one histogram; false when none has one. */
bool rxrr_group_hist(const struct rxrr_group *g, uint64_t *sum);

/* rxr_report_model.c and above: the table model, built once for the text
 * and the JSON outputs so that they never disagree. */

enum rxrr_dir {
	RXRR_DIR_NONE,	/* a counter: no better direction, no % */
	RXRR_DIR_HIGHER,	/* a rate: higher is better */
	RXRR_DIR_LOWER,	/* a cost: lower is better */
};

struct rxrr_row {
	const char *stat;	/* "Min", "Median", "Mean", "Stddev", "Max" */
	char *name;		/* "<config>." prefix (compare) + metric */
	char *config;		/* NULL for one report's table */
	char *metric;
	enum rxrr_dir dir;
	int prec;
	int section;		/* 0: figures, 1: streams (own widths) */
	double *v;		/* per column; NaN: no value */
	double *d;		/* per column % better; NaN: n/a */
	/* The row with its metric's test (Mean, else Median): the only one
	 * with cmp and p_unpaired. */
	bool tested;
	/* per column, against the first: the comparison (paired when the
	 * model is; n == 0: none; p NaN: untested, significant below the
	 * model's alpha), the unpaired test of the values */
	struct rxr_stats_cmp *cmp;
	double *p_unpaired;
	bool *has;	/* per column: it has the row's configuration */
};

struct rxrr_hist {
	char *config;		/* NULL for one report's table */
	unsigned int first, last;
	uint64_t *total;	/* per column; 0: no histogram */
	uint64_t (*counts)[RXR_REPORT_HIST_BUCKETS];
};

/*
 * The configurations of n reports: their rxrr_groups(), a zeroing part of
 * every report's if of one's. rxrr_configs_next() gives them in order of
 * first sight, first report first, cols[c] report c's group of it or
 * NULL; NULL after the last.
 */
struct rxrr_configs {
	unsigned int n;
	struct rxrr_group **g;
	size_t *ng;
	struct rxrr_group **cols;
	unsigned int c;		/* the next: group i of report c */
	size_t i;
};

int rxrr_configs_init(struct rxrr_configs *cf,
		struct rxr_report *const *reports, unsigned int n);
const struct rxrr_group *rxrr_configs_next(struct rxrr_configs *cf);
void rxrr_configs_free(struct rxrr_configs *cf);

struct rxrr_model {
	unsigned int ncols;
	char **headers;
	bool minmax;		/* some column has more than one rep */
	double alpha;		/* significance level of the marks */
	bool paired;		/* columns ran in the same rounds */
	bool stream_rows;	/* every stream's row, not only fairness */
	const atomic_bool *stop;	/* set: end the rows early */
	struct rxrr_row *rows;
	size_t nrows, caprows;
	struct rxrr_hist *hists;
	size_t nhists;
	/* The configurations; of one report, a column each (cf.g[0]). */
	struct rxrr_configs cf;
};

/* The caller's stop flag is set (a signal during a long listing). */
static inline bool
rxrr_stopped(const atomic_bool *stop)
{
	return stop != NULL && atomic_load_explicit(stop, memory_order_relaxed);
}

/* With labels, a column per report and rows per configuration (in
 * rxrr_configs_next() order); without, a column per configuration of
 * reports[0]. Stream rows when asked for; alpha from sel, else the first
 * report's. */
int rxrr_model(struct rxrr_model *m, struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel);
void rxrr_model_free(struct rxrr_model *m);

/* Whether sel picks the metric name (everything when sel is empty). */
bool rxrr_selected(const struct rxr_report_select *sel, const char *name);
#define RXRR_SIGN_CONVENTION(first) "%% against the first " first "; positive %% = " \
	"better (rates: higher is better, costs: lower is better)"

void rxrr_print_model(const struct rxrr_model *m, struct rxrr_line *l, FILE *out);
void rxrr_print_cut_short(const struct rxr_report *r, const char *prefix,
		struct rxrr_line *l, FILE *out);
/* "<dpdk>, memory <m>, lcores <list>" of a report. */
void rxrr_print_env_line(const json_t *doc, struct rxrr_line *l);

/* Findings: of one report's model, Gbit/s against its first
 * configuration and bulk on; of a comparison model, its Gbit/s rows. */
void rxrr_print_verdict_single(const struct rxrr_model *m,
		struct rxrr_line *l, FILE *out);
void rxrr_print_verdict_model(const struct rxrr_model *m, struct rxrr_line *l,
		FILE *out);

#endif /* RXR_REPORT_PRIV_H */
