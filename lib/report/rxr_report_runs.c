/* SPDX-License-Identifier: BSD-3-Clause */

/* Runs that did not run to their end: kept for the record, counted apart. */

#include "rxr_report_priv.h"

bool
rxr_report_run_complete(const json_t *run)
{
	return !json_is_false(json_object_get(run, "complete"));
}

unsigned int
rxr_report_nb_cut_short(const struct rxr_report *r)
{
	const json_t *run;
	unsigned int n = 0;
	size_t i;

	json_array_foreach(json_object_get(r->doc, "runs"), i, run)
		n += !rxr_report_run_complete(run);
	return n;
}

int
rr_run_mark(json_t *o, const struct rxr_report_run *run, char *err,
		size_t errlen)
{
	if (run->cut_short != NULL && *run->cut_short == '\0') {
		rr_err(err, errlen, "run %s: cut short without a reason",
			run->strategy);
		return -1;
	}
	if (json_object_set_new(o, "complete",
			json_boolean(run->cut_short == NULL)) != 0 ||
			(run->cut_short != NULL && json_object_set_new(o,
				"cut_short", rr_jstr(run->cut_short)) != 0)) {
		rr_err(err, errlen, "run: out of memory");
		return -1;
	}
	return 0;
}
