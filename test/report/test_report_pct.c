/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Refill latency percentiles from the log2 histogram: nearest rank, the
 * bucket it falls in, the estimate inside it, at bucket boundaries and
 * at the edges; and their place in a report and its table.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report.h"
#include "rxr_report_priv.h"
#include "rxr_test.h"

static int
test_boundaries(void)
{
	uint64_t h[RXR_REPORT_HIST_BUCKETS] = { 0 };
	struct rxrr_pct pc;

	/* 50 in [4, 8), 50 in [8, 16): p50 is the 50th value, the last of
	 * the first bucket; p50.01 would be the 51st. */
	h[3] = 50;
	h[4] = 50;
	RXR_TEST_ASSERT(rxrr_percentile(h, 50, &pc) == 0, "p50");
	RXR_TEST_ASSERT(pc.lo == 4 && pc.hi == 8, "p50 in [%" PRIu64 ", %"
		PRIu64 ")", pc.lo, pc.hi);
	RXR_TEST_ASSERT(fabs(pc.ns - 8.0) < 1e-9, "p50 estimate %f", pc.ns);
	RXR_TEST_ASSERT(rxrr_percentile(h, 50.01, &pc) == 0 &&
		pc.lo == 8 && pc.hi == 16, "p50.01 in [%" PRIu64 ", %" PRIu64 ")",
		pc.lo, pc.hi);
	RXR_TEST_ASSERT(fabs(pc.ns - (8 + 8.0 / 50)) < 1e-9, "p50.01 %f", pc.ns);
	RXR_TEST_ASSERT(rxrr_percentile(h, 100, &pc) == 0 &&
		pc.lo == 8 && fabs(pc.ns - 16.0) < 1e-9, "p100 %f", pc.ns);
	/* One value in 1000 at 1 ms: p99.9 is the 999th, not it. */
	memset(h, 0, sizeof(h));
	h[5] = 999;
	h[20] = 1;
	RXR_TEST_ASSERT(rxrr_percentile(h, 99.9, &pc) == 0 &&
		pc.lo == 16, "p99.9 in [%" PRIu64 ", ...)", pc.lo);
	RXR_TEST_ASSERT(rxrr_percentile(h, 99.95, &pc) == 0 &&
		pc.lo == rxrr_hist_lo(20), "p99.95 in [%" PRIu64 ", ...)",
		pc.lo);
	/* Bucket 0 is [0, 1). */
	memset(h, 0, sizeof(h));
	h[0] = 10;
	RXR_TEST_ASSERT(rxrr_percentile(h, 90, &pc) == 0 &&
		pc.lo == 0 && pc.hi == 1, "bucket 0");
	return 0;
}

static int
test_refused(void)
{
	uint64_t h[RXR_REPORT_HIST_BUCKETS] = { 0 };
	struct rxrr_pct pc;

	RXR_TEST_ASSERT(rxrr_percentile(h, 50, &pc) == -EINVAL,
		"empty histogram");
	h[3] = 1;
	RXR_TEST_ASSERT(rxrr_percentile(h, 0, &pc) == -EINVAL, "p0");
	RXR_TEST_ASSERT(rxrr_percentile(h, 100.5, &pc) == -EINVAL,
		"p100.5");
	RXR_TEST_ASSERT(rxrr_percentile(h, NAN, &pc) == -EINVAL, "NaN");
	return 0;
}

static int
test_in_report_and_table(void)
{
	struct rxr_report *r = rxr_report_create();
	struct rxr_report_run run = { .strategy = "bh", .bulk = true,
		.duration_s = 1, .rx_packets = 10, .rx_bytes = 640 };
	const json_t *pc, *p99;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	RXR_TEST_ASSERT(r != NULL, "create");
	run.refill_latency_ns[6] = 90;	/* [32, 64) */
	run.refill_latency_ns[10] = 10;	/* [512, 1K) */
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, NULL, 0) == 0, "add");
	pc = json_object_get(json_array_get(json_object_get(
		rxr_report_json(r), "runs"), 0), "refill_latency_percentiles");
	p99 = json_object_get(pc, "p99");
	RXR_TEST_ASSERT(p99 != NULL, "p99 in the report");
	RXR_TEST_ASSERT(json_integer_value(json_object_get(p99, "lo")) == 512,
		"p99 bucket");
	RXR_TEST_ASSERT(json_integer_value(json_object_get(json_object_get(pc,
		"p50"), "hi")) == 64, "p50 bucket");
	f = open_memstream(&buf, &len);
	RXR_TEST_ASSERT(rxr_report_render_extra(r, f, false) == 0, "render");
	fclose(f);
	RXR_TEST_ASSERT(strstr(buf, "bh-bulk") != NULL &&
		strstr(buf, "[512, 1K)") != NULL && strstr(buf, "[32, 64)"),
		"table:\n%s", buf);
	free(buf);
	/* No histogram: no percentiles (not zeros). */
	memset(run.refill_latency_ns, 0, sizeof(run.refill_latency_ns));
	run.rep = 1;
	RXR_TEST_ASSERT(rxr_report_add_run(r, &run, NULL, 0) == 0, "add 2");
	RXR_TEST_ASSERT(json_object_get(json_array_get(json_object_get(
		rxr_report_json(r), "runs"), 1), "refill_latency_percentiles") ==
		NULL, "percentiles without a histogram");
	rxr_report_free(r);
	return 0;
}

int
main(void)
{
	rxr_test_run("boundaries", test_boundaries);
	rxr_test_run("refused", test_refused);
	rxr_test_run("in_report_and_table", test_in_report_and_table);
	return rxr_test_done();
}
