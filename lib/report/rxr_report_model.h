/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_REPORT_MODEL_H
#define RXR_REPORT_MODEL_H

/*
 * The table model shared by the text printer and the comparison output:
 * rows of numbers and histograms built once from the reports, so that the
 * two outputs can never disagree. Not installed, not API.
 */

#include "rxr_report_priv.h"

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

#endif /* RXR_REPORT_MODEL_H */
