/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef COMPARE_FORMAT_H
#define COMPARE_FORMAT_H

/* rxrefill-compare --format: the comparison as CSV or a Markdown table. */

#include <stdio.h>

#include <jansson.h>

enum compare_format {
	FORMAT_TEXT,
	FORMAT_JSON,
	FORMAT_CSV,
	FORMAT_MARKDOWN,
};

/* "text", "json", "csv", "markdown" (or "md"); -1 when unknown. */
int compare_format_parse(const char *s);

/*
 * From a rxrefill-compare/1 document: CSV, one row per configuration,
 * metric, statistic and report (the columns --format's help lists), or a
 * Markdown table, one column per report. 0, or -1 when writing failed.
 */
int compare_write_csv(const json_t *doc, FILE *out);
int compare_write_markdown(const json_t *doc, FILE *out);

/*
 * The percentile rows (rxr_report_percentiles_json()) of several reports
 * as a text table, one column per report. CSV and Markdown add the same
 * rows (metric refill_latency.<p>, statistic all_reps) when the document
 * holds them under "refill_latency_percentiles".
 */
int compare_write_percentiles_text(const json_t *pct,
		const char *const *labels, unsigned int n, FILE *out);

#endif /* COMPARE_FORMAT_H */
