/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * lib/stats against reference values computed independently by
 * test/stats/reference.py: the permutation test's p-values by
 * scipy.stats.permutation_test (Debian 12 python3-scipy 1.10.1, every
 * permutation, two-sided), the descriptions by numpy, the t intervals by
 * scipy.stats.t.interval, the sign-flip test over paired rounds by
 * scipy.stats.permutation_test (permutation_type='samples', every
 * arrangement) and by a plain enumeration of the sign vectors. The
 * intervals of the comparisons are checked against a plain sign-flip
 * test run at their ends here. The coverage and A/A simulations use a
 * fixed seed: the same figures every run.
 */

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rxr_stats.h"
#include "rxr_test.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

struct perm_case {
	double a[16], b[16];
	size_t na, nb;
	double p;	/* scipy */
};

/* The unpaired test of the values, as the tables' p_unpaired. */
static double
perm_p(const double *a, size_t na, const double *b, size_t nb)
{
	struct rxr_stats_cmp c;

	rxr_stats_compare(a, na, b, nb, false, true, 0.05, &c);
	return c.p;
}

static const struct perm_case perm_cases[] = {
	{ { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, 4, 4, 0.0285714286 },
	{ { 1, 2, 3 }, { 4, 5, 6 }, 3, 3, 0.1000000000 },
	{ { 1, 1, 2, 2, 3 }, { 2, 3, 3, 4, 4 }, 5, 5, 0.0793650794 },
	{ { 31.2, 29.8, 33.0, 30.5, 32.1 },
	  { 40.3, 38.9, 41.7, 39.5, 42.0, 37.2 }, 5, 6, 0.0043290043 },
	{ { 10.0, 12.5, 11.2, 9.8 }, { 10.5, 11.9, 12.2, 10.1 }, 4, 4,
	  0.7142857143 },
	{ { 5, 5, 5 }, { 5, 5, 5 }, 3, 3, 1.0 },
};

static int
test_perm_exact(void)
{
	for (size_t i = 0; i < (sizeof(perm_cases) / sizeof(perm_cases[0])); i++) {
		const struct perm_case *c = &perm_cases[i];
		double p = perm_p(c->a, c->na, c->b, c->nb);
		double q = perm_p(c->b, c->nb, c->a, c->na);

		RXR_TEST_ASSERT(NEAR(p, c->p, 1e-9), "case %zu: p %.10f, scipy %.10f",
			i, p, c->p);
		RXR_TEST_ASSERT(NEAR(q, c->p, 1e-9), "case %zu swapped: p %.10f", i, q);
	}
	return 0;
}

/* 11 + 11 values: past exact enumeration, Monte Carlo from a fixed seed. */
static int
test_perm_monte_carlo(void)
{
	double a[11], b[11], p;

	for (int i = 0; i < 11; i++) {
		a[i] = i;
		b[i] = i + 2.5;
	}
	p = perm_p(a, 11, b, 11);
	RXR_TEST_ASSERT(NEAR(p, 0.0988443961, 0.006), "p %.6f, scipy exact 0.0988",
		p);
	RXR_TEST_ASSERT(p == perm_p(a, 11, b, 11), "not repeatable");
	RXR_TEST_ASSERT(isnan(perm_p(a, 0, b, 11)), "empty sample");
	return 0;
}

/* 40 + 40 values: the normal approximation of the permutation test. */
static int
test_perm_large(void)
{
	double a[40], b[40], p;

	for (int i = 0; i < 40; i++) {
		a[i] = 10 + (i * 37 % 23) / 4.0;
		b[i] = 9.5 + (i * 53 % 29) / 4.0;
	}
	p = perm_p(a, 40, b, 40);
	/* scipy, 100000 random permutations: 0.4397 (+- 0.0016). */
	RXR_TEST_ASSERT(NEAR(p, 0.4397, 0.01), "p %.4f, scipy 0.4397", p);
	return 0;
}

struct desc_case {
	double x[16];
	size_t n;
	double mean, sd, median;	/* numpy */
	double tlo, thi;		/* scipy.stats.t.interval */
};

static const struct desc_case desc_cases[] = {
	{ { 1, 2, 4 }, 3, 2.3333333333, 1.5275252317, 2.0,
	  -1.4612497004, 6.1279163671 },
	{ { 22.1, 24.6, 24.8, 19.6, 21.9 }, 5, 22.6, 2.1552262062, 22.1,
	  19.9239332117, 25.2760667883 },
	{ { 31.2, 29.8, 33.0, 30.5, 32.1, 35.0, 28.4 }, 7, 31.4285714286,
	  2.1761696362, 31.2, 29.4159501948, 33.4411926623 },
};

static int
test_describe(void)
{
	for (size_t i = 0; i < (sizeof(desc_cases) / sizeof(desc_cases[0])); i++) {
		const struct desc_case *c = &desc_cases[i];
		struct rxr_stats_desc d;

		RXR_TEST_ASSERT(rxr_stats_describe(c->x, c->n, &d) == 0, "describe");
		RXR_TEST_ASSERT_EQ(d.n, c->n, "n");
		RXR_TEST_ASSERT(NEAR(d.mean, c->mean, 1e-9), "case %zu mean %.10f",
			i, d.mean);
		RXR_TEST_ASSERT(NEAR(d.stdev, c->sd, 1e-9), "case %zu sd %.10f",
			i, d.stdev);
		RXR_TEST_ASSERT(NEAR(d.median, c->median, 1e-9),
			"case %zu median %.10f", i, d.median);
		/* scipy's t.ppf is good to about 1e-9 (df 6: 2.4469118488,
		 * printed tables 2.4469118511): compare at 1e-8. */
		RXR_TEST_ASSERT(NEAR(d.ci_lo, c->tlo, 1e-8) &&
			NEAR(d.ci_hi, c->thi, 1e-8), "case %zu t ci [%.10f, %.10f], "
			"expected [%.10f, %.10f]", i, d.ci_lo, d.ci_hi, c->tlo,
			c->thi);
	}
	return 0;
}

/* Even n, NAN skipped, n < 2, min/max. */
static int
test_describe_edges(void)
{
	const double x[] = { 4, NAN, 1, 3, 2 };
	struct rxr_stats_desc d;

	rxr_stats_describe(x, 5, &d);
	RXR_TEST_ASSERT_EQ(d.n, 4, "NAN skipped");
	RXR_TEST_ASSERT(d.median == 2.5 && d.min == 1 && d.max == 4,
		"median %g min %g max %g", d.median, d.min, d.max);
	rxr_stats_describe(x, 1, &d);
	RXR_TEST_ASSERT(d.n == 1 && d.mean == 4 && isnan(d.stdev) &&
		isnan(d.ci_lo), "one value");
	rxr_stats_describe(x, 0, &d);
	RXR_TEST_ASSERT(d.n == 0 && isnan(d.mean), "no value");
	return 0;
}

/* Ties are judged at the spread: 1e9 + {0..3} against 1e9 + {4..7} is
 * 1..4 against 5..8 (scipy: 0.0285714286, reference.py "perm1e9"). */
static int
test_perm_ties_large_values(void)
{
	double a[4], b[4], p;

	for (int i = 0; i < 4; i++) {
		a[i] = 1e9 + i;
		b[i] = 1e9 + 4 + i;
	}
	p = perm_p(a, 4, b, 4);
	RXR_TEST_ASSERT(NEAR(p, 0.0285714286, 1e-9), "p %.10f, scipy "
		"0.0285714286", p);
	for (int i = 0; i < 4; i++)
		b[i] = a[i];
	p = perm_p(a, 4, b, 4);
	RXR_TEST_ASSERT(p == 1, "equal samples: p %.10f", p);
	return 0;
}

/* Paired comparison of x against y (n rounds) at alpha. */
static struct rxr_stats_cmp
paired(const double *x, const double *y, size_t n, double alpha)
{
	struct rxr_stats_cmp r;

	rxr_stats_compare(x, n, y, n, true, false, alpha, &r);
	return r;
}

/* The method names say what ran, by size and by scale. */
static int
test_method_names(void)
{
	double x[21], y[21], z[21];
	struct rxr_stats_cmp r;

	for (int i = 0; i < 21; i++) {
		x[i] = 1 + i;
		y[i] = 2 + i;
		z[i] = i;
	}
	/* Unpaired, by size: every split, random splits, the normal law. */
	for (int k = 0; k < 3; k++) {
		static const char *const want[] = { "exact permutation test, "
			"difference of means", "Monte Carlo permutation test, "
			"difference of means", "normal approximation of the "
			"permutation test, difference of means" };
		static const size_t size[] = { 4, 11, 40 };
		double v[40];

		for (int i = 0; i < 40; i++)
			v[i] = i % 7;
		rxr_stats_compare(v, size[k], v, size[k], false, true, 0.05, &r);
		RXR_TEST_ASSERT(strncmp(r.test, want[k], strlen(want[k])) == 0,
			"%zu+%zu: %s", size[k], size[k], r.test);
	}
	r = paired(x, y, 20, 0.05);
	RXR_TEST_ASSERT(strcmp(r.test, "exact sign-flip permutation test over "
		"paired rounds, mean log-ratio (all 2^n sign vectors)") == 0,
		"20 rounds: %s", r.test);
	r = paired(x, y, 21, 0.05);
	RXR_TEST_ASSERT(strncmp(r.test, "Monte Carlo", 11) == 0 && r.ratio,
		"21 rounds: %s", r.test);
	r = paired(x, z, 6, 0.05);
	RXR_TEST_ASSERT(!r.ratio && strstr(r.test, "mean difference") != NULL,
		"a 0: %s", r.test);
	rxr_stats_compare(x, 4, y, 4, false, false, 0.05, &r);
	RXR_TEST_ASSERT(r.ratio && strcmp(r.test, "exact permutation test, "
		"difference of mean logs (every split)") == 0, "%s", r.test);
	/* By hand: 2 / C(6, 3) = 0.1, 2 / C(8, 4) = 1/35, 2 / 2^5, 2 / 2^6. */
	rxr_stats_compare(x, 3, y, 3, false, false, 0.05, &r);
	RXR_TEST_ASSERT(NEAR(r.min_p, 0.1, 1e-12), "3+3 min p %g", r.min_p);
	rxr_stats_compare(x, 4, y, 4, false, false, 0.05, &r);
	RXR_TEST_ASSERT(NEAR(r.min_p, 2.0 / 70, 1e-12), "4+4 min p %g",
		r.min_p);
	RXR_TEST_ASSERT(NEAR(rxr_stats_signflip_min_p(5), 0.0625, 1e-12) &&
		NEAR(rxr_stats_signflip_min_p(6), 0.03125, 1e-12), "flip min p");
	RXR_TEST_ASSERT_EQ(rxr_stats_signflip_min_rounds(0.05), 6, "rounds "
		"for 0.05");
	RXR_TEST_ASSERT_EQ(rxr_stats_signflip_min_rounds(0.01), 8, "rounds "
		"for 0.01");
	return 0;
}

/*
 * t quantiles against printed tables (two-sided 95%: df 1, 7, 30), as
 * the interval of a description has them: half its width over sd/sqrt(n).
 */
static int
test_t_quantile(void)
{
	static const double want[][2] = { { 1, 12.7062047362 },
		{ 7, 2.3646242516 }, { 30, 2.0422724563 } };
	double x[31];

	for (int i = 0; i < 31; i++)
		x[i] = (i * 7919) % 13;
	for (size_t k = 0; k < 3; k++) {
		size_t n = (size_t)want[k][0] + 1;
		struct rxr_stats_desc d;
		double t;

		rxr_stats_describe(x, n, &d);
		t = (d.ci_hi - d.mean) / (d.stdev / sqrt((double)n));
		RXR_TEST_ASSERT(NEAR(t, want[k][1], 1e-6), "df %g: %.10f",
			want[k][0], t);
	}
	return 0;
}

struct paired_case {
	double x[12], y[12];
	size_t n;
	double p, ratio;	/* scipy (reference.py "paired") */
};

static const struct paired_case paired_cases[] = {
	{ { 5.1, 11.2, 4.9, 12.0, 5.3, 10.8, 11.5, 4.7 },
	  { 7.0, 15.1, 6.8, 16.3, 8.9, 14.0, 17.2, 7.9 }, 8,
	  0.0078125000, 0.6916748274 },
	{ { 10.2, 9.1, 11.5, 8.7, 10.9, 9.8 },
	  { 10.0, 9.5, 11.0, 9.0, 10.1, 10.2 }, 6,
	  0.8437500000, 1.0039339651 },
	{ { 1, 2, 3 }, { 1.1, 2.1, 3.3 }, 3,
	  0.2500000000, 0.9232977493 },
	{ { 4.5, 9.2, 13.1, 5.6, 11.0, 6.8, 14.9, 5.1, 10.3, 7.7, 12.6, 8.8 },
	  { 5.0, 10.3, 13.9, 6.4, 11.9, 7.2, 17.0, 5.4, 11.8, 8.1, 13.8, 10.1 },
	  12, 0.0004882812, 0.9085188386 },
};

/*
 * The sign-flip test of d - delta written plainly: every sign vector,
 * its sum against the observed one. Rejects at alpha?
 */
static bool
naive_signflip_rejects(const double *d, size_t n, double delta, double alpha)
{
	size_t le = 0, ge = 0, total = (size_t)1 << n;
	double t = 0, scale = 0;

	for (size_t i = 0; i < n; i++) {
		t += d[i] - delta;
		scale = fmax(scale, fabs(d[i] - delta));
	}
	for (size_t m = 0; m < total; m++) {
		double ti = 0;

		for (size_t i = 0; i < n; i++)
			ti += m >> i & 1 ? -(d[i] - delta) : d[i] - delta;
		le += ti <= t + 1e-9 * scale;
		ge += ti >= t - 1e-9 * scale;
	}
	return 2.0 * (le < ge ? le : ge) / total < alpha;
}

/*
 * Each case's p and ratio against scipy; its interval, the log-ratios
 * the test does not reject, against the plain test at and just past
 * each end.
 */
static int
test_paired(void)
{
	for (size_t i = 0; i < sizeof(paired_cases) / sizeof(paired_cases[0]);
			i++) {
		const struct paired_case *c = &paired_cases[i];
		struct rxr_stats_cmp r = paired(c->x, c->y, c->n, 0.05);
		double d[12], lo, hi, eps;

		RXR_TEST_ASSERT(r.paired && r.ratio && r.n == c->n, "case %zu: n "
			"%u", i, r.n);
		RXR_TEST_ASSERT(NEAR(r.p, c->p, 1e-9), "case %zu: p %.10f, scipy "
			"%.10f", i, r.p, c->p);
		RXR_TEST_ASSERT(NEAR(r.est, c->ratio, 1e-9), "case %zu: ratio "
			"%.10f, scipy %.10f", i, r.est, c->ratio);
		RXR_TEST_ASSERT(strncmp(r.test, "exact sign-flip", 15) == 0,
			"case %zu: %s", i, r.test);
		if (c->n < 6) {
			RXR_TEST_ASSERT(isnan(r.lo) && isnan(r.hi), "case %zu: "
				"%zu rounds reject no ratio: [%g, %g]", i, c->n,
				r.lo, r.hi);
			continue;
		}
		for (size_t k = 0; k < c->n; k++)
			d[k] = log(c->x[k]) - log(c->y[k]);
		lo = log(r.lo);
		hi = log(r.hi);
		eps = 1e-6 * (hi - lo);
		RXR_TEST_ASSERT(lo <= log(r.est) && log(r.est) <= hi &&
			!naive_signflip_rejects(d, c->n, lo + eps, 0.05) &&
			!naive_signflip_rejects(d, c->n, hi - eps, 0.05) &&
			naive_signflip_rejects(d, c->n, lo - eps, 0.05) &&
			naive_signflip_rejects(d, c->n, hi + eps, 0.05),
			"case %zu: [%.10f, %.10f] is not the test inverted", i,
			r.lo, r.hi);
	}
	return 0;
}

/* 24 rounds: Monte Carlo; reference.py "flip24" enumerates all 2^24. */
static int
test_signflip_monte_carlo(void)
{
	double x[24], y[24];
	struct rxr_stats_cmp r;

	for (int i = 0; i < 24; i++) {
		x[i] = exp(((i * 37) % 23 - 9) / 100.0);
		y[i] = 1;
	}
	r = paired(x, y, 24, 0.05);
	RXR_TEST_ASSERT(NEAR(r.p, 0.3019874096, 0.01), "p %.6f, exact 0.3020",
		r.p);
	RXR_TEST_ASSERT(r.p == paired(x, y, 24, 0.05).p, "not repeatable");
	RXR_TEST_ASSERT(r.lo < 1 && 1 < r.hi, "1 not in [%g, %g]", r.lo, r.hi);
	RXR_TEST_ASSERT(paired(y, y, 24, 0.05).p == 1, "all zero");
	RXR_TEST_ASSERT(rxr_stats_compare(x, 0, y, 0, true, false, 0.05, &r) == -1 &&
		isnan(r.p), "empty");
	return 0;
}

/*
 * Rounds without a value on a side (NAN) are left out of the pairs; a 0
 * puts the comparison on the difference, the unpaired one as well.
 */
static int
test_paired_edges(void)
{
	const double x[] = { 1, NAN, 3, 0, 5 }, y[] = { 1, 2, NAN, 4, 5 };
	struct rxr_stats_cmp r = paired(x, y, 5, 0.05);

	RXR_TEST_ASSERT(r.n == 3 && !r.ratio && NEAR(r.est, -4.0 / 3, 1e-12) &&
		r.p == 1, "n %u est %g p %g", r.n, r.est, r.p);
	RXR_TEST_ASSERT(rxr_stats_compare(x + 1, 1, y + 1, 1, true, false, 0.05, &r) ==
		-1 && r.n == 0 && isnan(r.p), "no usable round");
	RXR_TEST_ASSERT(rxr_stats_compare(x, 5, y, 5, false, false, 0.05, &r) == 0 &&
		r.n == 4 && r.n_base == 4 && !r.paired && !r.ratio &&
		!isnan(r.p) && strncmp(r.test, "exact permutation", 17) == 0,
		"unpaired: %s", r.test);
	return 0;
}

/*
 * Every interval printed beside a test is the test inverted: over random
 * data, paired and not, ratios and differences, exact, Monte Carlo and
 * normal, at several alphas, p < alpha exactly when the interval
 * excludes 1 (a ratio) or 0 (a difference).
 */
static int
test_interval_is_test_inverted(void)
{
	static const size_t sizes[] = { 6, 8, 12, 25, 40 };
	static const double alphas[] = { 0.05, 0.2, 0.01 };
	uint64_t seed = 0x1f2e3d4c5b6a7988ULL;
	int tried = 0;

	for (int t = 0; t < 300; t++) {
		size_t n = sizes[t % 5];
		double alpha = alphas[t % 3], x[40], y[40], none;
		bool pair = t % 2, zero = t % 7 == 0;
		struct rxr_stats_cmp r;

		for (size_t i = 0; i < n; i++) {
			double level = 10 + (rxr_test_xorshift(&seed) % 1000) /
				100.0;

			x[i] = level * (1 + ((int)(rxr_test_xorshift(&seed) % 41)
				- 20 + t % 9) / 100.0);
			y[i] = level;
		}
		if (zero)
			y[0] = 0;
		rxr_stats_compare(x, n, y, n, pair, false, alpha, &r);
		none = r.ratio ? 1 : 0;
		if (isnan(r.lo))
			continue;
		tried++;
		RXR_TEST_ASSERT((r.p < alpha) == (r.lo > none || r.hi < none),
			"case %d (%zu, %s, alpha %g): p %g, interval [%g, %g]", t,
			n, pair ? "paired" : "unpaired", alpha, r.p, r.lo, r.hi);
		RXR_TEST_ASSERT(r.ratio == !zero, "case %d: scale", t);
	}
	RXR_TEST_ASSERT(tried > 250, "%d intervals", tried);
	return 0;
}

/*
 * Values at the ends of what a double holds: 1e-300 against 1e300 was
 * "infx ... p 0" (the log of their ratio overflowed). The logs of each,
 * a ratio that stays a finite double, and a p never below 2 / 2^n.
 */
static int
test_extreme_values(void)
{
	double tiny[8], huge[8];
	struct rxr_stats_cmp r;

	for (int i = 0; i < 8; i++) {
		tiny[i] = 1e-300 * (1 + i);
		huge[i] = 1e300 * (1 + i);
	}
	r = paired(tiny, huge, 8, 0.05);
	RXR_TEST_ASSERT(isfinite(r.est) && r.est >= 0 && r.est < 1e-100 &&
		NEAR(r.p, 2.0 / 256, 1e-12) && r.p >= r.min_p, "tiny/huge: %g p "
		"%g", r.est, r.p);
	r = paired(huge, tiny, 8, 0.05);
	RXR_TEST_ASSERT(isfinite(r.est) && r.est > 1e300 && isfinite(r.hi) &&
		NEAR(r.p, 2.0 / 256, 1e-12), "huge/tiny: %g [%g, %g] p %g",
		r.est, r.lo, r.hi, r.p);
	rxr_stats_compare(huge, 8, tiny, 8, false, false, 0.05, &r);
	RXR_TEST_ASSERT(isfinite(r.est) && isfinite(r.lo) && isfinite(r.hi) &&
		r.p >= r.min_p && r.p > 0, "unpaired: %g [%g, %g] p %g", r.est,
		r.lo, r.hi, r.p);
	return 0;
}

/* A standard normal deviate (Box-Muller) from the test's xorshift. */
static double
normal(uint64_t *s)
{
	double u1 = ((rxr_test_xorshift(s) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((rxr_test_xorshift(s) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * Coverage of the 95% interval of the mean at n = 8, normal data: 20000
 * samples, the true mean inside the t interval 95% +- 1% of the time
 * (the binomial standard error is 0.15%).
 */
static int
test_coverage(void)
{
	uint64_t seed = 0x5eed5eed12345678ULL;
	const int trials = 20000;
	struct rxr_stats_desc d;
	double x[8];
	int hit = 0;

	for (int t = 0; t < trials; t++) {
		for (int i = 0; i < 8; i++)
			x[i] = 10 + 2 * normal(&seed);
		rxr_stats_describe(x, 8, &d);
		hit += d.ci_lo <= 10 && 10 <= d.ci_hi;
	}
	RXR_TEST_ASSERT(fabs((double)hit / trials - 0.95) <= 0.01,
		"t interval covers %.4f", (double)hit / trials);
	return 0;
}

/* A shared machine's moods: a round's level varies by about e^0.5. */
static double
level_moody(uint64_t *seed)
{
	return 10 * exp(0.5 * normal(seed));
}

/* A round is slow or fast. */
static double
level_bimodal(uint64_t *seed)
{
	return rxr_test_xorshift(seed) & 1 ? 5 : 12;
}

/*
 * One set of 8 paired rounds compared: each round's level from
 * @p level_of, the configuration @p ratio of it, each side with its own
 * lognormal noise of @p sigma.
 */
static void
paired_set(uint64_t *seed, double (*level_of)(uint64_t *seed), double ratio,
	double sigma, struct rxr_stats_cmp *r)
{
	double x[8], y[8];

	for (int i = 0; i < 8; i++) {
		double level = level_of(seed);

		x[i] = ratio * level * exp(sigma * normal(seed));
		y[i] = level * exp(sigma * normal(seed));
	}
	*r = paired(x, y, 8, 0.05);
}

/*
 * Paired rounds with a block effect: each round's level varies by a
 * factor of about e^0.5 (a shared machine's moods), the configuration is
 * 0.8 of its base with 10% noise on each. The interval of the ratio (the
 * test inverted, whose level with 8 rounds is 1 - 12/256) covers 0.8
 * 95% +- 1.5% of the time over 4000 sets of 8 rounds.
 */
static int
test_paired_coverage(void)
{
	uint64_t seed = 0x0ddba11cafef00dULL;
	const int trials = 4000;
	int hit = 0;

	for (int t = 0; t < trials; t++) {
		struct rxr_stats_cmp r;

		paired_set(&seed, level_moody, 0.8, 0.1, &r);
		hit += r.lo <= 0.8 && 0.8 <= r.hi;
	}
	RXR_TEST_ASSERT(fabs((double)hit / trials - 0.95) <= 0.015,
		"ratio interval covers %.4f", (double)hit / trials);
	return 0;
}

/*
 * A/A: both sides from the same distribution, bimodal (a round is slow or
 * fast, as on the VM of the issue) with a block effect. Over 4000 sets of
 * 8 rounds the paired test finds a difference at alpha 0.05 at its exact
 * level, 12/256 = 4.7% (p <= 0.047 is the largest p below 0.05), +- 1.2%.
 */
static int
test_aa_false_positives(void)
{
	uint64_t seed = 0xaa0aa0aa0aa0aa0ULL;
	const int trials = 4000;
	int fp = 0;

	for (int t = 0; t < trials; t++) {
		struct rxr_stats_cmp r;

		paired_set(&seed, level_bimodal, 1.0, 0.15, &r);
		fp += r.p < 0.05;
	}
	printf("# A/A false positives at alpha 0.05: %.4f\n",
		(double)fp / trials);
	RXR_TEST_ASSERT(fabs((double)fp / trials - 12.0 / 256) <= 0.012,
		"false positive rate %.4f", (double)fp / trials);
	return 0;
}

int
main(void)
{
	rxr_test_run("perm_exact", test_perm_exact);
	rxr_test_run("perm_monte_carlo", test_perm_monte_carlo);
	rxr_test_run("perm_large", test_perm_large);
	rxr_test_run("describe", test_describe);
	rxr_test_run("describe_edges", test_describe_edges);
	rxr_test_run("perm_ties_large_values", test_perm_ties_large_values);
	rxr_test_run("method_names", test_method_names);
	rxr_test_run("t_quantile", test_t_quantile);
	rxr_test_run("paired", test_paired);
	rxr_test_run("signflip_monte_carlo", test_signflip_monte_carlo);
	rxr_test_run("paired_edges", test_paired_edges);
	rxr_test_run("interval_is_test_inverted",
		test_interval_is_test_inverted);
	rxr_test_run("extreme_values", test_extreme_values);
	rxr_test_run("coverage", test_coverage);
	rxr_test_run("paired_coverage", test_paired_coverage);
	rxr_test_run("aa_false_positives", test_aa_false_positives);
	return rxr_test_done();
}
