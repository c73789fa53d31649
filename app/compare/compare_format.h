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

/* A --format name ("md": markdown); -1 when unknown. */
int compare_format_parse(const char *s);

/* An rxrefill-compare/1 document as CSV or Markdown (as --help says);
 * 0, or -1 when writing failed. */
int compare_write_csv(const json_t *doc, FILE *out);
int compare_write_markdown(const json_t *doc, FILE *out);

/* rxr_report_percentiles_json() as text, a column per report (CSV and
 * Markdown print the document's refill_latency_percentiles too). */
int compare_write_percentiles_text(const json_t *pct,
		const char *const *labels, unsigned int n, FILE *out);

#endif /* COMPARE_FORMAT_H */
