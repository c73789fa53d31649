/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_REPORT_PRIV_H
#define RXR_REPORT_PRIV_H

/*
 * Internals shared by the report sources, grouped by the file that defines
 * them, bottom layer first: a file calls only the groups above its own
 * (the order of lib/report/meson.build; report_layers.py checks it).
 */

#include <stdarg.h>

#include "rxr_report.h"
#include "rxr_stats.h"

/* A report is its JSON document: built here or loaded, one code path. */
struct rxr_report {
	json_t *doc;
	bool stale;	/* runs added since the summary was computed */
};

/*
 * Log2 bucket of a latency: 0 -> 0, 1 -> 1, 2..3 -> 2, 4..7 -> 3, ...;
 * values past the last bucket count in the last one. Its bounds: [lo, hi).
 */
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

/* Number of v (integer or real), NaN when missing or null. */
double rxrr_num(const json_t *v);

/* obj.a or obj.a.b for a path "a" or "a.b" (split at the first dot). */
const json_t *rxrr_path(const json_t *obj, const char *path);

/*
 * A configuration is a strategy, bulk on or off and, in a report that
 * runs several per strategy and bulk, a zeroing{} policy and method.
 */
/* A run's zeroing{}.policy or .method, NULL without zeroing{}. */
const char *rxrr_zero_of(const json_t *run, const char *key);
/* Runs a and b zero alike (policy and method, or neither zeroes). */
bool rxrr_same_zero(const json_t *a, const json_t *b);
/* Runs a and b are of one configuration (zero: their zeroing too). */
bool rxrr_same_config(const json_t *a, const json_t *b, bool zero);
/* Whether doc runs several zeroings of one strategy and bulk. */
bool rxrr_zero_listed(const json_t *doc);
/* A run's configuration: "bh-bulk", with zero "bh-bulk zero=alloc/nt"
 * (none: "bh-bulk"). */
void rxrr_run_label(const json_t *run, bool zero, char *buf, size_t len);

/* A JSON string of s; bytes that are not UTF-8 become '?'. */
json_t *rxrr_jstr(const char *s);

/* json_object_set_new() failing on a NULL value; a number (null unless
 * finite); a counter, clamped to JSON's signed 64 bits. */
int rxrr_jset(json_t *obj, const char *key, json_t *v);
json_t *rxrr_jnum(double d);
json_t *rxrr_jcount(uint64_t c);

/* statistics.alpha of a report, or RXR_REPORT_ALPHA_DEFAULT. */
double rxrr_alpha(const json_t *doc);

/* A copy safe to print: control characters from a file become '?'. */
char *rxrr_clean_dup(const char *s);

/* A growing line, printed with trailing blanks removed. */
struct rxrr_line {
	char buf[4096];
	size_t len;
	char *big;	/* when a line outgrows buf */
	size_t cap;
	bool oom;
};

void rxrr_line_add(struct rxrr_line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s, NULL as "", added with control characters as '?': text from a file
 * never reaches the terminal raw. */
void rxrr_line_clean(struct rxrr_line *l, const char *s);
void rxrr_line_put(struct rxrr_line *l, FILE *out);
/* rxrr_line_put() of a sentence, broken at spaces within 120 columns. */
void rxrr_line_put_wrapped(struct rxrr_line *l, FILE *out);
void rxrr_line_free(struct rxrr_line *l);

/* rxr_report_runs.c: runs and their groups. */

/* Whether a run ran to its end (reports before "complete" did). */
bool rxrr_run_complete(const json_t *run);

/* The runs of one configuration, in the order they ran. */
struct rxrr_group {
	const char *strategy;
	bool bulk;
	bool zero;	/* its zeroing is part of it (rxrr_zero_listed()) */
	size_t nb_runs;
	json_t **runs;
};

/* A group's label (rxrr_run_label()). */
void rxrr_group_label(const struct rxrr_group *g, char *buf, size_t len);
/* For bulk-off g[i], its strategy and zeroing with bulk on; else NULL. */
const struct rxrr_group *rxrr_bulk_sibling(const struct rxrr_group *g,
		size_t n, size_t i);

/*
 * doc's runs by configuration in order of first appearance; without the
 * runs cut short, nor the disturbed ones under --disturbed exclude.
 */
int rxrr_groups(const json_t *doc, struct rxrr_group **groups, size_t *nb);
/* n reports' groups: when one report's zeroing is part of its
 * configurations, it is of every report's (labels, matches). */
void rxrr_groups_zero(struct rxrr_group *const *g, const size_t *ng,
		unsigned int n);
void rxrr_groups_free(struct rxrr_group *groups, size_t nb);

/* doc's "noise": the repetitions with a noise record and the disturbed
 * ones (none: no "noise"). 0, or -1 when out of memory. */
int rxrr_noise_count(json_t *doc);

/* The disturbed repetitions, one line each, and how many of how many. */
void rxrr_print_disturbed(const struct rxr_report *r, const char *prefix,
		struct rxrr_line *l, FILE *out);
/* How many repetitions were disturbed, one line (the brief table). */
void rxrr_print_noise_count(const struct rxr_report *r, const char *prefix,
		struct rxrr_line *l, FILE *out);

/* rxr_report_summary.c: one configuration's runs against another's, the
 * summary, the latency percentiles. */

/* Whether doc's runs ran in interleaved rounds (rep never goes back):
 * runs of one rep of two configurations form a pair. */
bool rxrr_interleaved(const json_t *doc);

/* A run's value of what is compared; NaN when it has none. */
typedef double (*rxrr_getter)(const json_t *run, const void *ctx);

/* A run's value of a metric path ("gbps", "pcp.hit_rate"). */
double rxrr_get_path(const json_t *run, const void *path);

/*
 * g against ref at alpha: paired by rep when paired and a round has values
 * on both sides, else unpaired; a ratio, or a difference where a value is
 * 0 or diff is set. 0, or -1 when nothing could be compared.
 */
int rxrr_ratio(const struct rxrr_group *g, const struct rxrr_group *ref,
		rxrr_getter get, const void *ctx, bool paired, bool diff,
		double alpha, struct rxr_stats_cmp *out);

/* Recompute the summary if runs were added since; 0 or -ENOMEM. */
int rxrr_fresh(const struct rxr_report *r);

/* Recompute "summary" from "runs"; 0 or -ENOMEM. */
int rxrr_summarize(struct rxr_report *r);

/* Set statistics with alpha, recompute the summary; 0, -EINVAL (alpha
 * not in (0, 1)) or -ENOMEM. */
int rxrr_set_alpha(struct rxr_report *r, double alpha);

/* Refill latency percentiles: p50 p90 p99 p99.9, their names. */
#define RXRR_PCT_N 4
extern const double rxrr_pct_points[RXRR_PCT_N];

/* A percentile of a log2 histogram and the bucket it falls in. */
struct rxrr_pct {
	double p;	/* percentile, 0 < p <= 100 */
	uint64_t lo;	/* bucket lower bound, ns, inclusive */
	uint64_t hi;	/* bucket upper bound, ns, exclusive */
	double ns;	/* estimate: linear interpolation inside the bucket */
};

/* Percentile p of a log2 histogram, nearest rank; 0, or -EINVAL when it
 * is empty or p is out of range. */
int rxrr_percentile(const uint64_t *counts, double p, struct rxrr_pct *out);

/* "p50", "p90", "p99", "p99.9". */
extern const char *const rxrr_pct_names[RXRR_PCT_N];

/* Refill latency percentiles of a histogram as JSON; NULL when empty. */
json_t *rxrr_percentiles_json(const uint64_t *counts);

/* A run's refill_latency_hist object added into counts and total. */
void rxrr_hist_add(const json_t *h, uint64_t *counts, uint64_t *total);

/* Every repetition of g in one histogram; false when none has one. */
bool rxrr_group_hist(const struct rxrr_group *g, uint64_t *sum);

/*
 * rxr_report_model.c and above: the table model shared by the text
 * printer and the comparison output, rows of numbers and histograms built
 * once from the reports, so that the two outputs can never disagree.
 */

enum rxrr_dir {
	RXRR_DIR_NONE,	/* a counter: no better direction, no % */
	RXRR_DIR_HIGHER,	/* a rate: higher is better */
	RXRR_DIR_LOWER,	/* a cost: lower is better */
};

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
	double *p;		/* per column p against the first; NaN: untested */
	bool *sig;		/* per column: p < the model's alpha */
	/*
	 * The row that carries its metric's test (Mean, else Median): only
	 * it has p, sig, cmp and p_unpaired; Min, Max and a Median under a
	 * Mean show no mark.
	 */
	bool tested;
	/* per column: the comparison against the first, paired over rounds
	 * when the model is (n == 0: none); p is cmp[c].p */
	struct rxr_stats_cmp *cmp;
	/* per column: the unpaired permutation test, the second opinion */
	double *p_unpaired;
	bool *has;	/* per column: it has the row's configuration */
};

struct rxrr_hist {
	char *config;		/* NULL for one report's table */
	unsigned int first, last;
	bool *present;		/* per column: some run has a histogram */
	uint64_t *total;	/* per column */
	uint64_t (*counts)[RXR_REPORT_HIST_BUCKETS];
};

struct rxrr_model {
	unsigned int ncols;
	char **headers;
	bool minmax;		/* some column has more than one rep */
	double alpha;		/* significance level of the marks */
	/* columns ran in the same rounds (one report's configurations, or
	 * a report compared with itself): comparisons are paired */
	bool paired;
	bool stream_rows;	/* every stream's row, not only fairness */
	const atomic_bool *stop;	/* set: end the rows early */
	struct rxrr_row *rows;
	size_t nrows, caprows;
	struct rxrr_hist *hists;
	size_t nhists;
};

/* The caller's stop flag is set (a signal during a long listing). */
static inline bool
rxrr_stopped(const atomic_bool *stop)
{
	return stop != NULL && atomic_load_explicit(stop, memory_order_relaxed);
}

/* One report: a column per (strategy, bulk). */
int rxrr_model_single(struct rxrr_model *m, const struct rxr_report *r,
		const struct rxr_report_select *sel);
/* Several reports: a column per report, rows per (strategy, bulk). */
int rxrr_model_compare(struct rxrr_model *m, struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel);
void rxrr_model_free(struct rxrr_model *m);
/* The group of g[0..ng) of cfg's configuration, or NULL. */
struct rxrr_group *rxrr_group_find(struct rxrr_group *g, size_t ng,
		const struct rxrr_group *cfg);

/* Whether sel picks the metric name (everything when sel is empty). */
bool rxrr_selected(const struct rxr_report_select *sel, const char *name);
#define RXRR_SIGN_CONVENTION(first) "%% against the first " first "; positive %% = " \
	"better (rates: higher is better, costs: lower is better)"

/*
 * A table of text, the one shape every table is printed in: a column of
 * labels under corner, then columns of a value (right-aligned) and a
 * note (left-aligned, often empty) each, sep before each column. Row r
 * is printed when label() gives it a label.
 */
struct rxrr_grid {
	const char *corner;
	const char *sep;
	bool right;		/* headers right-aligned (else left) */
	unsigned int ncols;
	const char *const *headers;
	size_t nrows;
	bool (*label)(const void *ctx, size_t r, char *buf, size_t len);
	void (*cell)(const void *ctx, size_t r, unsigned int c, char *val,
		char *note, size_t len);
	const void *ctx;
	const atomic_bool *stop;	/* set: end the rows early */
};

/* The model's tables and histograms. */
void rxrr_print_model(const struct rxrr_model *m, struct rxrr_line *l, FILE *out);
/* The repetitions that did not run to their end, one line each. */
void rxrr_print_cut_short(const struct rxr_report *r, const char *prefix,
		struct rxrr_line *l, FILE *out);
/* "<dpdk>, memory <m>, lcores <list>" of a report. */
void rxrr_print_env_line(const json_t *doc, struct rxrr_line *l);

/* Findings, one line each, of one report (Gbit/s against the first
 * configuration, bulk off against on) and of a comparison model. */
void rxrr_print_verdict_single(const struct rxr_report *r, double alpha,
		struct rxrr_line *l, FILE *out);
void rxrr_print_verdict_model(const struct rxrr_model *m, struct rxrr_line *l,
		FILE *out);

#endif /* RXR_REPORT_PRIV_H */
