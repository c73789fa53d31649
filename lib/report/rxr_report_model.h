/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_REPORT_MODEL_H
#define RXR_REPORT_MODEL_H

/*
 * The table model shared by the text printer and the comparison output:
 * rows of numbers and histograms built once from the reports, so that the
 * two outputs can never disagree. Not installed, not API.
 */

#include "rxr_report_priv.h"

enum dir {
	DIR_NONE,	/* a counter: no better direction, no % */
	DIR_HIGHER,	/* a rate: higher is better */
	DIR_LOWER,	/* a cost: lower is better */
};

struct metric {
	char *name;		/* "gbps", "drops.imissed", "streams.bytes[..]" */
	const json_t *stream;	/* the flow, for stream rows */
	const char *field;	/* "packets" or "bytes", for stream rows */
	char *key;		/* the flow's key in the runs' stream indexes */
	enum dir dir;
	int prec;		/* decimals in text */
	bool optional;		/* a row only when some column has a value */
	bool spread;		/* Min and Max rows too, when reps > 1 */
};

struct row {
	const char *stat;	/* "Min", "Median", "Mean", "Stddev", "Max" */
	char *name;		/* "<config>." prefix (compare) + metric */
	char *config;		/* NULL for one report's table */
	char *metric;
	enum dir dir;
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
	struct rxr_stats_ratio *cmp;
	/* per column: the unpaired permutation test, the second opinion */
	double *p_unpaired;
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
	double alpha;		/* significance level of the marks */
	/* columns ran in the same rounds (one report's configurations, or
	 * a report compared with itself): comparisons are paired */
	bool paired;
	bool stream_rows;	/* every stream's row, not only fairness */
	const volatile bool *stop;	/* set: end the rows early */
	struct row *rows;
	size_t nrows, caprows;
	struct hist *hists;
	size_t nhists;
};

/* One report: a column per (strategy, bulk). */
int model_single(struct model *m, const struct rxr_report *r,
		const struct rxr_report_select *sel);
/* Several reports: a column per report, rows per (strategy, bulk). */
int model_compare(struct model *m, struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel);
void model_free(struct model *m);

/* Whether sel picks the metric name (everything when sel is empty). */
bool selected(const struct rxr_report_select *sel, const char *name);
/* A copy safe to print: control characters from a file become '?'. */
char *clean_dup(const char *s);

/* A growing line; printed with trailing blanks removed. */
struct line {
	char buf[4096];
	size_t len;
	char *big;	/* when a line outgrows buf */
	size_t cap;
	bool oom;
};

void line_add(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void line_put(struct line *l, FILE *out);
/* line_put() of a sentence, broken at spaces within 120 columns. */
void line_put_wrapped(struct line *l, FILE *out);
void line_free(struct line *l);

#define SIGN_CONVENTION(first) "%% against the first " first "; positive %% = " \
	"better (rates: higher is better, costs: lower is better)"

/* The model's tables and histograms. */
void print_model(const struct model *m, struct line *l, FILE *out);
/* The repetitions that did not run to their end, one line each. */
void print_cut_short(const struct rxr_report *r, const char *prefix,
		struct line *l, FILE *out);
/* The disturbed repetitions, one line each, and how many of how many. */
void print_disturbed(const struct rxr_report *r, const char *prefix,
		struct line *l, FILE *out);
/* How many repetitions were disturbed, one line (the brief table). */
void print_noise_count(const struct rxr_report *r, const char *prefix,
		struct line *l, FILE *out);
/* "<dpdk>, memory <m>, lcores <list>" of a report. */
void print_env_line(const json_t *doc, struct line *l);

/* Findings, one line each, of one report (Gbit/s against the first
 * configuration, bulk off against on) and of a comparison model. */
void rr_print_verdict_single(const struct rxr_report *r, double alpha,
		struct line *l, FILE *out);
void rr_print_verdict_model(const struct model *m, struct line *l,
		FILE *out);

#endif /* RXR_REPORT_MODEL_H */
