/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libFuzzer target: report loading and validation, then everything
 * rxrefill-compare does with a report that passed: its own table, a
 * comparison with itself and with a well-formed fixture, the JSON
 * comparison, percentiles, detail tables and environment differences, a
 * summary recomputed from its runs. A loaded report is
 * untrusted input; none of this may crash, leak or read out of bounds.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rxr_report.h"
#include "rxr_report_priv.h"
#include "report_fixture.h"

static struct rxr_report *baseline;
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct fixture_conf conf = { .host = "base", .scale = 1, .reps = 2,
		.with_recycle = true, .with_nobulk = true };

	baseline = fixture_report(&conf);
	sink = fopen("/dev/null", "w");
	return baseline != NULL && sink != NULL ? 0 : -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const labels[] = { "fuzz", "base" };
	static const char *const some[] = { "drops", "streams.bytes",
		"refill_latency_hist", "zone_lock" };
	struct rxr_report_select sel = { some, 4 };
	char err[RXR_REPORT_ERR_LEN];
	struct rxr_report *r, *pair[2];
	json_t *j;

	r = fixture_load_buffer((const char *)data, size, "fuzz", err,
			sizeof(err));
	if (r == NULL)
		return 0;
	rxr_report_render_text(r, sink, NULL);
	rxr_report_render_text(r, sink, &sel);
	pair[0] = r;
	pair[1] = baseline;
	rxr_report_compare_text(pair, labels, 2, sink, NULL);
	pair[0] = baseline;
	pair[1] = r;
	rxr_report_compare_text(pair, labels, 2, sink, &sel);
	j = rxr_report_compare_json(pair, labels, 2, NULL);
	json_decref(j);
	/* Percentiles, detail tables, environment differences. */
	rxr_report_render_extra(r, sink, true);
	j = rxr_report_percentiles_json(pair, 2);
	json_decref(j);
	rxr_report_env_differences(pair, labels, 2, sink);
	rxrr_summarize(r);
	rxr_report_free(r);
	return 0;
}
