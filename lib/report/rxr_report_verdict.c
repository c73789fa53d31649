/* SPDX-License-Identifier: BSD-3-Clause */

/* The verdict: each configuration against the first and bulk on, a line
 * per finding; when --reps auto may stop; whether a gate can decide. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"
#include "rxr_stats.h"

/* --reps auto: a ratio is decided when its interval excludes 1 or is within
 * +- AUTO_RATIO_PCT %; one configuration, its interval of the mean within
 * AUTO_MEAN_PCT % of it. */
#define AUTO_RATIO_PCT 20.0
#define AUTO_MEAN_PCT 2.0

/* "8 paired rounds", "5 against 4 runs, unpaired". */
static void
count_text(const struct rxr_stats_cmp *r, char *buf, size_t len)
{
	if (r->paired)
		snprintf(buf, len, "%u paired round%s", r->n,
			r->n == 1 ? "" : "s");
	else
		snprintf(buf, len, "%u against %u run%s, unpaired", r->n,
			r->n_base, r->n_base == 1 ? "" : "s");
}

/* A ratio with two decimals (three figures far from 1), or a difference. */
static void
fmt_est(const struct rxr_stats_cmp *r, double v, char *buf, size_t len)
{
	if (!r->ratio)
		snprintf(buf, len, "%+.3g", v);
	else
		snprintf(buf, len, v >= 0.01 && v < 1e4 ? "%.2f" : "%.3g", v);
}

/* One finding, hyperfine's way: "zone-bulk: 0.66x bh-bulk Gbit/s (95% CI
 * 0.55-0.79, p 0.016, 8 paired rounds)", or "not distinguishable from". */
static void
verdict_line(struct rxrr_line *l, FILE *out, const char *name, const char *base,
		const char *unit, const struct rxr_stats_cmp *r, double alpha)
{
	char cnt[64], ci[96] = "", est[32], lo[32], hi[32], what[700];

	count_text(r, cnt, sizeof(cnt));
	if (isnan(r->est)) {
		rxrr_line_add(l, "  %s: no %s to compare with %s (%s)", name, unit,
			base, cnt);
		rxrr_line_put_wrapped(l, out);
		return;
	}
	fmt_est(r, r->est, est, sizeof(est));
	fmt_est(r, r->lo, lo, sizeof(lo));
	fmt_est(r, r->hi, hi, sizeof(hi));
	if (!isnan(r->lo))
		snprintf(ci, sizeof(ci), "CI %s%s%s, ", lo, r->ratio ? "-" :
			" to ", hi);
	if (r->ratio)
		snprintf(what, sizeof(what), "%sx %s %s", est, base, unit);
	else
		snprintf(what, sizeof(what), "%s %s against %s", est, unit, base);
	if (isnan(r->p))
		rxrr_line_add(l, "  %s: %s, untested (%s%s)", name, what, ci, cnt);
	else if (r->min_p >= alpha)
		/* No data could have made it significant: say so, not "no
		 * difference". */
		rxrr_line_add(l, "  %s: %s, cannot be significant with %s "
			"(%sp %.2g)", name, what, cnt, ci, r->p);
	else if (r->p < alpha)
		rxrr_line_add(l, "  %s: %s (%g%% %sp %.2g, %s)", name, what,
			100 * (1 - alpha), ci, r->p, cnt);
	else
		rxrr_line_add(l, "  %s: not distinguishable from %s (%s%s, %sp "
			"%.2g, %s)", name, base, est, r->ratio ? "x" : "", ci,
			r->p, cnt);
	rxrr_line_put_wrapped(l, out);
}

/* Gathered first: the header names the test that ran for all. */
struct finding {
	char name[512];
	char base[256];
	struct rxr_stats_cmp r;
};

struct findings {
	struct finding *f;
	size_t n;
};

static void
findings_add(struct findings *fs, const char *name, const char *base,
		const struct rxr_stats_cmp *r)
{
	struct finding *f = &fs->f[fs->n++];

	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->base, sizeof(f->base), "%s", base);
	f->r = *r;
}

/* The header (naming the test when one method ran for every tested
 * line), the lines, and the warning when some cannot be significant. */
static void
findings_print(struct findings *fs, const char *against, double alpha,
		struct rxrr_line *l, FILE *out)
{
	const struct rxr_stats_cmp *w;
	unsigned int nweak = 0;
	size_t weak = 0;
	const char *test = NULL;
	char cnt[64];
	bool mixed = false, paired = false, unpaired = false;

	if (fs->n == 0)
		return;
	for (size_t i = 0; i < fs->n; i++) {
		const struct rxr_stats_cmp *r = &fs->f[i].r;

		if (r->n > 0) {
			paired |= r->paired;
			unpaired |= !r->paired;
		}
		if (isnan(r->p))
			continue;
		if (test == NULL)
			test = r->test;
		else if (strcmp(test, r->test) != 0)
			mixed = true;
	}
	rxrr_line_add(l, "Findings, Gbit/s against %s (x: %s, with its %g%% "
		"interval, the ratios the test does not reject; p: ", against,
		paired && !unpaired ? "geometric mean of the per-round ratios" :
		!paired ? "ratio of geometric means" :
		"ratio, per line paired or not", 100 * (1 - alpha));
	if (test == NULL)
		rxrr_line_add(l, "none, too few values; alpha %g):", alpha);
	else
		rxrr_line_add(l, "%s, two-sided; alpha %g):", !mixed ? test :
			paired && !unpaired ? RXR_STATS_PAIRED_METHOD
			" (exact up to 20 rounds, Monte Carlo above)" :
			"the permutation test of each line's kind, exact up to "
			"20 values, Monte Carlo above", alpha);
	rxrr_line_put_wrapped(l, out);
	for (size_t i = 0; i < fs->n; i++) {
		const struct rxr_stats_cmp *r = &fs->f[i].r;

		verdict_line(l, out, fs->f[i].name, fs->f[i].base, "Gbit/s", r,
			alpha);
		/* The comparisons that cannot reach alpha, and the weakest. */
		if (r->n > 0 && r->min_p >= alpha && (nweak++ == 0 ||
				r->min_p > fs->f[weak].r.min_p))
			weak = i;
	}
	if (nweak == 0)
		return;
	w = &fs->f[weak].r;
	count_text(w, cnt, sizeof(cnt));
	rxrr_line_add(l, "warning: %u comparison%s cannot be significant at alpha "
		"%g, whatever the data (%s: with %s the %s test's smallest p is "
		"%.3g)", nweak, nweak == 1 ? "" : "s", alpha, fs->f[weak].name,
		cnt, w->paired ? "sign-flip" : "permutation", w->min_p);
	if (w->paired)
		rxrr_line_add(l, "; %u rounds or more can (--reps %u, or --reps "
			"auto)", rxr_stats_signflip_min_rounds(alpha),
			rxr_stats_signflip_min_rounds(alpha));
	else
		rxrr_line_add(l, "; use more repetitions");
	rxrr_line_put_wrapped(l, out);
}

/* The zeroing trade-off, as in the kernel's clear_huge_page() threads:
 * " clear +12% (CI +8.1% to +16%, p 0.0039)", the change of g against ref
 * in the poll lcore's clear cycles (system time), its other cycles (user
 * time) and Gbit/s. */
static void
change_add(struct rxrr_line *l, const char *what, const struct rxrr_group *g,
		const struct rxrr_group *ref, const char *metric, bool paired,
		double alpha, struct rxr_stats_cmp *r)
{
	double k, o;
	const char *u;

	rxrr_ratio(g, ref, metric, paired, false, alpha, r);
	/* A ratio as a change in %, else the difference (a value of 0). */
	k = r->ratio ? 100 : 1;
	o = r->ratio ? 1 : 0;
	u = r->ratio ? "%" : strcmp(metric, "gbps") == 0 ? " Gbit/s" :
		" cycles";
	rxrr_line_add(l, "%s %+.3g%s", what, k * (r->est - o), u);
	if (!isnan(r->lo))
		rxrr_line_add(l, " (CI %+.3g%s to %+.3g%s, p %.2g)",
			k * (r->lo - o), u, k * (r->hi - o), u, r->p);
	else
		rxrr_line_add(l, " (no interval)");
}

/* The mean of a run figure over g's runs; NaN without one. */
static double
group_mean(const struct rxrr_group *g, const char *metric)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < g->nb_runs; i++) {
		double v = rxrr_num(rxrr_path(g->runs[i], metric));

		if (!isnan(v)) {
			sum += v;
			n++;
		}
	}
	return n != 0 ? sum / (double)n : NAN;
}

/* The group of g[0..n) of ref's strategy and bulk zeroing with policy
 * (NULL: none) and method; else NULL. */
static const struct rxrr_group *
zero_find(const struct rxrr_group *g, size_t n, const struct rxrr_group *ref,
		const char *policy, const char *method)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = rxrr_zero_of(g[i].runs[0], "policy");
		const char *m = rxrr_zero_of(g[i].runs[0], "method");

		if (g[i].bulk == ref->bulk && !strcmp(g[i].strategy,
				ref->strategy) && (policy == NULL ? p == NULL :
				p != NULL && !strcmp(p, policy) && m != NULL &&
				!strcmp(m, method)))
			return &g[i];
	}
	return NULL;
}

/* Background bg against alloc al of its method: what it wins back of
 * what al costs against none, and where its zeroing thread ran. */
static void
background_add(struct rxrr_line *l, const struct rxrr_group *g, size_t n,
		const struct rxrr_group *bg, const struct rxrr_group *al,
		const struct rxr_stats_cmp *won, bool paired, double alpha)
{
	const struct rxrr_group *none = zero_find(g, n, bg, NULL, NULL);
	double empty = 0, shared = group_mean(bg, "zeroer.poll_lcores_on_cpu");
	struct rxr_stats_cmp cost;

	for (size_t i = 0; i < bg->nb_runs; i++)
		empty += rxrr_num(rxrr_path(bg->runs[i], "zeroer.get_empty"));
	if (none != NULL)
		rxrr_ratio(al, none, "gbps", paired, false, alpha, &cost);
	/* Shares of the log ratios, 100% all of alloc's cost back; of a
	 * cost the test found only. */
	if (none != NULL && won->ratio && cost.ratio && cost.hi < 1)
		rxrr_line_add(l, "; of the %.3g%% Gbit/s alloc costs against "
			"none it wins back %.0f%%", 100 * (cost.est - 1),
			100 * log(won->est) / -log(cost.est));
	rxrr_line_add(l, "; its zeroing thread ran on CPU %.0f with %.0f poll "
		"lcore%s, clearing %.0f%% of the window, %.1f cycles a packet; "
		"allocations that found no pre-zeroed frame: %.0f in %zu "
		"repetition%s", group_mean(bg, "zeroer.cpu"), shared,
		shared == 1 ? "" : "s",
		100 * group_mean(bg, "zeroer.busy_share"),
		group_mean(bg, "zeroer.clear_cycles_per_packet"), empty,
		bg->nb_runs, bg->nb_runs == 1 ? "" : "s");
}

/* Each zeroing against each other of its policy, strategy and bulk, and
 * background against alloc of its method. */
static void
print_tradeoff(const struct rxrr_group *g, size_t n, bool paired,
		double alpha, struct rxrr_line *l, FILE *out)
{
	static const char *const what[] = { " clear", ", rest", ", Gbit/s" };
	static const char *const metric[] = { "poll.clear_cycles_per_packet",
		"poll.rest_cycles_per_packet", "gbps" };
	struct rxr_stats_cmp r;
	char name[256];
	bool header = false;

	for (size_t i = 1; i < n; i++) {
		const char *pi = rxrr_zero_of(g[i].runs[0], "policy");
		const char *mi = rxrr_zero_of(g[i].runs[0], "method");
		const bool bg = pi != NULL && strcmp(pi, "background") == 0;

		for (size_t j = 0; pi != NULL && j <= i; j++) {
			const struct rxrr_group *ref = j < i ? &g[j] :
				zero_find(g, n, &g[i], "alloc", mi);
			const char *pj = ref ? rxrr_zero_of(ref->runs[0],
				"policy") : NULL;

			if (pj == NULL || (j < i && (strcmp(pi, pj) != 0 ||
					!rxrr_same_config(g[i].runs[0],
					g[j].runs[0], false))) || (j == i && !bg))
				continue;
			if (!header) {
				fputc('\n', out);
				rxrr_line_add(l, "Zeroing, the trade-off (paired "
					"over the rounds: change, %g%% interval, p): "
					"clear: the poll lcore's cycles clearing, "
					"per packet; rest: its other cycles per "
					"packet", 100 * (1 - alpha));
				rxrr_line_put_wrapped(l, out);
			}
			header = true;
			rxrr_group_label(&g[i], name, sizeof(name));
			rxrr_line_add(l, "  %s against %s/%s:", name, pj,
				rxrr_zero_of(ref->runs[0], "method"));
			/* Gbit/s last: background_add() takes its ratio. */
			for (size_t k = 0; k < NELEMS(what); k++)
				change_add(l, what[k], &g[i], ref, metric[k],
					paired, alpha, &r);
			if (j == i)
				background_add(l, g, n, &g[i], ref, &r, paired,
					alpha);
			rxrr_line_put_wrapped(l, out);
		}
	}
}

/* The verdict lines of one report: Gbit/s of each configuration against
 * the first, and of bulk off against bulk on. */
void
rxrr_print_verdict_single(const struct rxrr_model *m,
		struct rxrr_line *l, FILE *out)
{
	const struct rxrr_group *g = m->cf.g[0];
	const size_t n = m->cf.ng[0];
	struct findings fs = { .f = calloc(2 * n + 1, sizeof(*fs.f)) };
	const double alpha = m->alpha;
	const bool paired = m->paired;
	char name[256], base[256], first[256] = "";
	size_t i;

	if (fs.f == NULL) {
		l->oom = true;
		return;
	}
	if (n > 0)
		rxrr_group_label(&g[0], first, sizeof(first));
	for (i = 1; i < n; i++) {
		const struct rxrr_group *on = rxrr_bulk_sibling(g, n, i);
		struct rxr_stats_cmp rt;

		rxrr_group_label(&g[i], name, sizeof(name));
		rxrr_ratio(&g[i], &g[0], "gbps", paired, false, alpha, &rt);
		findings_add(&fs, name, first, &rt);
		if (on == NULL || on == &g[0])
			continue;
		rxrr_group_label(on, base, sizeof(base));
		rxrr_ratio(&g[i], on, "gbps", paired, false, alpha, &rt);
		findings_add(&fs, name, base, &rt);
	}
	findings_print(&fs, first, alpha, l, out);
	if (n > 1 && g[0].zero)
		print_tradeoff(g, n, paired, alpha, l, out);
	free(fs.f);
}

/* The verdict lines of a comparison of reports: the Gbit/s row of each
 * configuration, each report against the first. */
void
rxrr_print_verdict_model(const struct rxrr_model *m, struct rxrr_line *l, FILE *out)
{
	struct findings fs = { .n = 0 };
	size_t most = 1;
	char name[512];

	for (size_t i = 0; i < m->nrows; i++)
		most += m->ncols * m->rows[i].tested;
	fs.f = calloc(most, sizeof(*fs.f));
	if (fs.f == NULL) {
		l->oom = true;
		return;
	}
	for (size_t i = 0; i < m->nrows; i++) {
		const struct rxrr_row *row = &m->rows[i];

		if (!row->tested || strcmp(row->metric, "gbps") != 0)
			continue;
		for (unsigned int c = 1; c < m->ncols; c++) {
			/* A configuration one of the two reports lacks. */
			if (isnan(row->v[0]) || isnan(row->v[c]))
				continue;
			snprintf(name, sizeof(name), "%s %s", row->config != NULL ?
				row->config : "", m->headers[c]);
			findings_add(&fs, name, m->headers[0], &row->cmp[c]);
		}
	}
	findings_print(&fs, m->headers[0], m->alpha, l, out);
	free(fs.f);
}

/* A count of the gate (drops by cause): judged by its rise per round. */
static bool
is_count(const struct rxrr_row *row)
{
	return strncmp(row->metric, "drops.", 6) == 0;
}

/* The regressions of m, each printed on out. */
static int
model_worse(const struct rxrr_model *m, double pct, double drops, FILE *out)
{
	int worse = 0;

	for (size_t i = 0; i < m->nrows; i++) {
		const struct rxrr_row *row = &m->rows[i];

		/* The tested row: Mean when there is one, else Median. */
		for (unsigned int c = 1; row->tested && c < m->ncols; c++) {
			const struct rxr_stats_cmp *r = &row->cmp[c];

			if (is_count(row) ? !(r->n > 0 && r->est > drops) :
					!(r->p < m->alpha) || !(row->d[c] < -pct))
				continue;
			worse++;
			if (is_count(row))
				fprintf(out, "worse: %s %s: %+.6g a repetition, "
					"more than the %g allowed (%s %.6g, %s "
					"%.6g)\n", row->name, m->headers[c],
					r->est, drops, m->headers[0], row->v[0],
					m->headers[c], row->v[c]);
			else
				fprintf(out, "worse: %s %s: %.2f%% (p %.4g, %s)\n",
					row->name, m->headers[c], row->d[c],
					r->p, row->stat);
		}
	}
	return worse;
}

/* The comparisons of m that cannot decide, each printed on out. */
static int
model_undecided(const struct rxrr_model *m, bool *compared, FILE *out)
{
	int undecided = 0;

	for (size_t i = 0; i < m->nrows; i++) {
		const struct rxrr_row *row = &m->rows[i];

		for (unsigned int c = 1; c < m->ncols; c++) {
			const struct rxr_stats_cmp *r = &row->cmp[c];
			char cnt[64];

			/* A configuration one report lacks: nothing to decide.
			 * Zeros on both sides (not tested) are no change. */
			if (!row->has[0] || !row->has[c])
				continue;
			compared[c] |= row->tested ||
				(row->v[0] == 0 && row->v[c] == 0);
			if (!row->tested)
				continue;
			/* A metric a side has no value of: nothing tested. */
			if (r->n == 0 || r->n_base == 0) {
				undecided++;
				fprintf(out, "undecided: %s %s: no value in %s: "
					"nothing compared\n", row->name,
					m->headers[c], m->headers[r->n_base == 0 ?
					0 : c]);
				continue;
			}
			/* A count has its threshold (worse), not a test. */
			if (r->min_p < m->alpha || is_count(row))
				continue;
			undecided++;
			count_text(r, cnt, sizeof(cnt));
			fprintf(out, "undecided: %s %s: %s, the smallest p the "
				"test can give is %.3g, not below alpha %g\n",
				row->name, m->headers[c], cnt, r->min_p, m->alpha);
		}
	}
	/*
	 * A report with no configuration (of complete runs) in common with
	 * the first was compared on nothing: "no regression" would be a gate
	 * that passes on no data (other strategies, every run cut short).
	 */
	for (unsigned int c = 1; c < m->ncols; c++) {
		if (compared[c])
			continue;
		undecided++;
		fprintf(out, "undecided: %s: no configuration with complete runs "
			"in common with %s: nothing compared\n", m->headers[c],
			m->headers[0]);
	}
	return undecided;
}

int
rxr_report_compare_gate(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel, double pct, double drops,
		FILE *out, int *undecided)
{
	struct rxrr_model m;
	bool *compared;
	int worse;

	*undecided = 0;
	if (rxrr_model(&m, reports, labels, n, sel) != 0)
		return -ENOMEM;
	compared = calloc(m.ncols + 1, sizeof(*compared));
	worse = compared != NULL ? model_worse(&m, pct, drops, out) : -ENOMEM;
	*undecided = worse == 0 ? model_undecided(&m, compared, out) : 0;
	free(compared);
	rxrr_model_free(&m);
	return worse;
}

/* --reps auto with one configuration (or none): its interval of the mean. */
static bool
reps_auto_one(const struct rxrr_group *g, size_t n, unsigned int rounds,
		unsigned int least, unsigned int max, char *why, size_t len)
{
	struct rxr_stats_desc d = { 0 };
	double v[RXR_STATS_MAX_N], wide;
	size_t i, k = 0;

	for (i = 0; n == 1 && i < g[0].nb_runs && k < RXR_STATS_MAX_N; i++)
		v[k++] = rxrr_num(json_object_get(g[0].runs[i], "gbps"));
	rxr_stats_describe(v, k, &d);
	wide = d.n >= 2 && d.mean > 0 ? (d.ci_hi - d.mean) / d.mean * 100 :
		INFINITY;
	if (rounds >= least && wide <= AUTO_MEAN_PCT) {
		snprintf(why, len, "one configuration, %u rounds; its 95%% "
			"interval of Gbit/s is within %.1f%% of its mean "
			"(%.2f%%)", rounds, AUTO_MEAN_PCT, wide);
		return true;
	}
	snprintf(why, len, "%u rounds%s: one configuration; its 95%% "
		"interval of Gbit/s %.2f%% of its mean (target %.1f%%)",
		rounds, rounds >= max ? ", the most asked for" : "",
		wide, AUTO_MEAN_PCT);
	return rounds >= max;
}

/* How many Gbit/s ratios to the first are undecided; the widest. */
static unsigned int
reps_auto_open(const struct rxrr_group *g, size_t n, bool paired,
		double alpha, char *widest, size_t wlen)
{
	unsigned int open = 0;
	double wide = 0;
	size_t i;

	for (i = 1; i < n; i++) {
		struct rxr_stats_cmp rt;
		char name[160], est[24], lo[24], hi[24];
		double w;
		bool decided;

		rxrr_ratio(&g[i], &g[0], "gbps", paired, false, alpha, &rt);
		/* Decided: the interval excludes 1 (which side is known), or
		 * pins the ratio down to +-target (no larger difference); a
		 * difference (a round at 0 Gbit/s), when it excludes 0. */
		w = isnan(rt.lo) || !rt.ratio ? INFINITY : log(rt.hi / rt.lo) / 2;
		decided = !isnan(rt.lo) && (rt.ratio ? rt.hi < 1 || rt.lo > 1 ||
			w <= log1p(AUTO_RATIO_PCT / 100) :
			rt.hi < 0 || rt.lo > 0);
		open += !decided;
		if (!decided && w >= wide) {
			wide = w;
			rxrr_group_label(&g[i], name, sizeof(name));
			fmt_est(&rt, rt.est, est, sizeof(est));
			fmt_est(&rt, rt.lo, lo, sizeof(lo));
			fmt_est(&rt, rt.hi, hi, sizeof(hi));
			if (isnan(rt.lo))
				snprintf(widest, wlen, "%s: no interval yet",
					name);
			else
				snprintf(widest, wlen, "%s %s%s (CI %s%s%s)", name,
					est, rt.ratio ? "x" : "", lo, rt.ratio ?
					"-" : " to ", hi);
		}
	}
	return open;
}

bool
rxr_report_reps_auto(const struct rxr_report *r, unsigned int rounds,
		unsigned int max, char *why, size_t len)
{
	double alpha = rxrr_alpha(r->doc);
	unsigned int least = rxr_stats_signflip_min_rounds(alpha);
	bool paired = rxrr_interleaved(r->doc), stop = true;
	char widest[320] = "", first[160];
	struct rxrr_group *g;
	unsigned int open;
	size_t n;

	if (rxrr_groups(r->doc, &g, &n) != 0) {
		snprintf(why, len, "out of memory");
		return true;
	}
	if (n < 2) {
		/* Nothing to compare: the interval of the mean alone. */
		stop = reps_auto_one(g, n, rounds, least, max, why, len);
		rxrr_groups_free(g, n);
		return stop;
	}
	open = reps_auto_open(g, n, paired, alpha, widest, sizeof(widest));
	rxrr_group_label(&g[0], first, sizeof(first));
	/* An interval is there only once the test can reject (least rounds). */
	if (open == 0)
		snprintf(why, len, "after %u rounds every ratio of Gbit/s to "
			"%s is decided; its %g%% %s interval excludes 1 or "
			"is within +-%.0f%%", rounds, first, 100 * (1 - alpha),
			paired ? "paired" : "unpaired",
			AUTO_RATIO_PCT);
	else if (rounds >= max)
		snprintf(why, len, "%u rounds, the most asked for; %u of "
			"%zu ratios to %s undecided (%g%% interval across 1 "
			"and wider than +-%.0f%%); widest %s", rounds, open,
			n - 1, first, 100 * (1 - alpha),
			AUTO_RATIO_PCT, widest);
	else
		snprintf(why, len, "round %u: %u ratio%s undecided, widest %s",
			rounds, open, open == 1 ? "" : "s", widest);
	stop = open == 0 || rounds >= max;
	rxrr_groups_free(g, n);
	return stop;
}
