/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Runs that did not run to their end, or ran while something else took
 * the machine: kept for the record, counted apart.
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"

static const char *const disturbance_names[RXR_REPORT_DISTURBED_CAUSES] = {
	"duration", "steal", "switches", "stopped",
};

const char *
rxr_report_disturbance_name(unsigned int i)
{
	return i < RXR_REPORT_DISTURBED_CAUSES ? disturbance_names[i] : NULL;
}

bool
rxrr_run_complete(const json_t *run)
{
	return !json_is_false(json_object_get(run, "complete"));
}

/* env.options.disturbed of a report is "exclude". */
static bool
disturbed_excluded(const json_t *doc)
{
	const char *p = json_string_value(json_object_get(json_object_get(
		json_object_get(doc, "env"), "options"), "disturbed"));

	return p != NULL && strcmp(p, "exclude") == 0;
}

unsigned int
rxr_report_nb_cut_short(const struct rxr_report *r)
{
	const json_t *run;
	unsigned int n = 0;
	size_t i;

	json_array_foreach(json_object_get(r->doc, "runs"), i, run)
		n += !rxrr_run_complete(run);
	return n;
}

int
rxrr_noise_count(json_t *doc)
{
	const json_t *run;
	json_int_t measured = 0, disturbed = 0;
	size_t i;

	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		if (json_object_get(run, "noise") == NULL)
			continue;
		measured++;
		disturbed += json_is_true(json_object_get(run, "disturbed"));
	}
	if (measured == 0) {
		json_object_del(doc, "noise");
		return 0;
	}
	return rxrr_jset(doc, "noise", json_pack("{s:I, s:I, s:b}",
		"repetitions", measured, "disturbed", disturbed, "counted",
		!disturbed_excluded(doc))) == 0 ? 0 : -1;
}

void
rxrr_print_disturbed(const struct rxr_report *r, const char *prefix,
		struct rxrr_line *l, FILE *out)
{
	const json_t *runs = json_object_get(r->doc, "runs"), *run;
	const bool excluded = disturbed_excluded(r->doc);
	const bool zero = rxrr_zero_listed(r->doc);
	size_t i;

	json_array_foreach(runs, i, run) {
		const json_t *noise = json_object_get(run, "noise"), *lc;
		char label[256], causes[64] = "";
		double wait, runnable;
		size_t k, off = 0;

		if (noise == NULL ||
				!json_is_true(json_object_get(run, "disturbed")))
			continue;
		rxrr_run_label(run, zero, label, sizeof(label));
		/* "duration+steal"; validated: no control characters. */
		json_array_foreach(json_object_get(run, "disturbed_by"), k, lc)
			if (json_is_string(lc) && off < sizeof(causes))
				off += snprintf(causes + off, sizeof(causes) - off,
					"%s%s", k ? "+" : "", json_string_value(lc));
		rxrr_line_add(l, "%sdisturbed, %s: %s rep %lld (%s; %.3f s measured",
			prefix, excluded ? "not counted" : "counted", label,
			(long long)json_integer_value(json_object_get(run, "rep")) +
			1, causes, rxrr_num(json_object_get(run, "duration_s")));
		if (!isnan(rxrr_num(json_object_get(noise, "asked_s"))))
			rxrr_line_add(l, " of %.3f s", rxrr_num(json_object_get(noise,
				"asked_s")));
		if (!isnan(rxrr_num(json_object_get(noise, "steal_share_max"))))
			rxrr_line_add(l, ", steal %.1f%%", 100 * rxrr_num(
				json_object_get(noise, "steal_share_max")));
		rxrr_line_add(l, ", %lld involuntary switches", (long long)
			json_integer_value(json_object_get(noise,
				"nonvoluntary_ctxt_switches")));
		/* The most waiting lcore, the least running one. */
		wait = NAN;
		runnable = NAN;
		json_array_foreach(json_object_get(noise, "lcores"), k, lc) {
			wait = fmax(wait, rxrr_num(json_object_get(lc,
				"runqueue_wait_share")));
			runnable = fmin(runnable, rxrr_num(json_object_get(lc,
				"runnable_share")));
		}
		if (!isnan(wait))
			rxrr_line_add(l, ", waiting for a CPU %.1f%% of the time",
				100 * wait);
		if (strstr(causes, "stopped") != NULL && runnable < 1)
			rxrr_line_add(l, ", stopped %.1f%% of the time polled",
				100 * (1 - runnable));
		rxrr_line_add(l, ")");
		rxrr_line_put_wrapped(l, out);
	}
	rxrr_print_noise_count(r, prefix, l, out);
}

void
rxrr_print_noise_count(const struct rxr_report *r, const char *prefix,
		struct rxrr_line *l, FILE *out)
{
	const json_t *runs = json_object_get(r->doc, "runs"), *run;
	unsigned int measured = 0, disturbed = 0;
	size_t i;

	json_array_foreach(runs, i, run) {
		measured += json_object_get(run, "noise") != NULL;
		disturbed += json_is_true(json_object_get(run, "disturbed"));
	}
	if (measured == 0)
		return;
	rxrr_line_add(l, "%snoise: %u of %u repetitions disturbed", prefix,
		disturbed, measured);
	if (disturbed != 0)
		rxrr_line_add(l, ", %s", disturbed_excluded(r->doc) ?
			"left out of the figures (--disturbed exclude)" :
			"counted in the figures (--disturbed count)");
	rxrr_line_put(l, out);
}

void
rxrr_groups_free(struct rxrr_group *groups, size_t nb)
{
	size_t i;

	for (i = 0; i < nb; i++)
		free(groups[i].runs);
	free(groups);
}

void
rxrr_group_label(const struct rxrr_group *g, char *buf, size_t len)
{
	rxrr_run_label(g->runs[0], g->zero, buf, len);
}

const struct rxrr_group *
rxrr_bulk_sibling(const struct rxrr_group *g, size_t n, size_t i)
{
	for (size_t j = 0; !g[i].bulk && j < n; j++)
		if (g[j].bulk && strcmp(g[j].strategy, g[i].strategy) == 0 &&
				(!g[i].zero || rxrr_same_zero(g[j].runs[0],
					g[i].runs[0])))
			return &g[j];
	return NULL;
}

int
rxrr_groups(const json_t *doc, struct rxrr_group **groups, size_t *nb)
{
	const json_t *runs = json_object_get(doc, "runs");
	const bool zero = rxrr_zero_listed(doc);
	const bool excluded = disturbed_excluded(doc);
	size_t n = 0, i, j, nruns = json_array_size(runs);
	/* At most a group per run, at most every run in one group. */
	struct rxrr_group *g = calloc(nruns + 1, sizeof(*g));

	*groups = NULL;
	*nb = 0;
	if (g == NULL)
		return -ENOMEM;
	for (i = 0; i < nruns; i++) {
		json_t *run = json_array_get(runs, i);
		const char *s = json_string_value(json_object_get(run, "strategy"));

		/* A run cut short (or disturbed, when excluded) is kept in
		 * runs[] but in no statistic. */
		if (s == NULL || !rxrr_run_complete(run) || (excluded &&
				json_is_true(json_object_get(run, "disturbed"))))
			continue;
		for (j = 0; j < n; j++)
			if (rxrr_same_config(g[j].runs[0], run, zero))
				break;
		if (j == n) {
			g[n] = (struct rxrr_group){ .strategy = s, .zero = zero,
				.bulk = json_is_true(json_object_get(run, "bulk")),
				.runs = calloc(nruns, sizeof(json_t *)) };
			if (g[n++].runs == NULL) {
				rxrr_groups_free(g, n);
				return -ENOMEM;
			}
		}
		g[j].runs[g[j].nb_runs++] = run;
	}
	*groups = g;
	*nb = n;
	return 0;
}
