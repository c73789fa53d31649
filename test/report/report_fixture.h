/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef REPORT_FIXTURE_H
#define REPORT_FIXTURE_H

/* Deterministic reports for the report tests: no clock, no host lookup. */

#include <stdbool.h>

#include "rxr_report.h"

/** What a fixture report holds. */
struct fixture_conf {
	const char *host;	/**< env.host */
	double scale;		/**< multiplies packets (and so every rate) */
	unsigned int reps;	/**< repetitions of each strategy */
	bool with_recycle;	/**< add the recycle strategy */
	bool with_nobulk;	/**< add bh with bulk off */
	bool partial;		/**< mark the report interrupted */
};

/**
 * A report with zone-bulk and bh-bulk (and recycle-bulk, bh-nobulk when
 * asked), reps interleaved, created 2024-05-01T10:00:00Z, with drops,
 * deferred, recycle, latency histograms and two streams.
 * Exits the test program on failure.
 */
struct rxr_report *fixture_report(const struct fixture_conf *conf);

/** rxr_report_of_json() of rxr_report_json_loadb(): a report from memory. */
struct rxr_report *fixture_load_buffer(const char *buf, size_t len,
		const char *name, char *err, size_t errlen);

#endif /* REPORT_FIXTURE_H */
