/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * lib/stats against reference values computed independently by
 * test/stats/reference.py: the permutation test's p-values by
 * scipy.stats.permutation_test (Debian 12 python3-scipy 1.10.1, every
 * permutation, two-sided), the bootstrap intervals by brute force over all
 * n^n ordered resamples, the descriptions by numpy.
 */

#include <math.h>
#include <stddef.h>

#include "rxr_stats.h"
#include "rxr_test.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

struct perm_case {
	double a[16], b[16];
	size_t na, nb;
	double p;	/* scipy */
};

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
		double p = rxr_stats_perm_test(c->a, c->na, c->b, c->nb);
		double q = rxr_stats_perm_test(c->b, c->nb, c->a, c->na);

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
	p = rxr_stats_perm_test(a, 11, b, 11);
	RXR_TEST_ASSERT(NEAR(p, 0.0988443961, 0.006), "p %.6f, scipy exact 0.0988",
		p);
	RXR_TEST_ASSERT(p == rxr_stats_perm_test(a, 11, b, 11), "not repeatable");
	RXR_TEST_ASSERT(isnan(rxr_stats_perm_test(a, 0, b, 11)), "empty sample");
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
	p = rxr_stats_perm_test(a, 40, b, 40);
	/* scipy, 100000 random permutations: 0.4397 (+- 0.0016). */
	RXR_TEST_ASSERT(NEAR(p, 0.4397, 0.01), "p %.4f, scipy 0.4397", p);
	return 0;
}

struct boot_case {
	double x[16];
	size_t n;
	double mean, sd, median, lo, hi;	/* numpy, brute force */
};

static const struct boot_case boot_cases[] = {
	{ { 1, 2, 4 }, 3, 2.3333333333, 1.5275252317, 2.0, 1.0, 4.0 },
	{ { 22.1, 24.6, 24.8, 19.6, 21.9 }, 5, 22.6, 2.1552262062, 22.1,
	  21.02, 24.18 },
	{ { 31.2, 29.8, 33.0, 30.5, 32.1, 35.0, 28.4 }, 7, 31.4285714286,
	  2.1761696362, 31.2, 29.9857142857, 32.9571428571 },
};

static int
test_describe(void)
{
	for (size_t i = 0; i < (sizeof(boot_cases) / sizeof(boot_cases[0])); i++) {
		const struct boot_case *c = &boot_cases[i];
		struct rxr_stats_desc d;

		RXR_TEST_ASSERT(rxr_stats_describe(c->x, c->n, &d) == 0, "describe");
		RXR_TEST_ASSERT_EQ(d.n, c->n, "n");
		RXR_TEST_ASSERT(NEAR(d.mean, c->mean, 1e-9), "case %zu mean %.10f",
			i, d.mean);
		RXR_TEST_ASSERT(NEAR(d.stdev, c->sd, 1e-9), "case %zu sd %.10f",
			i, d.stdev);
		RXR_TEST_ASSERT(NEAR(d.median, c->median, 1e-9),
			"case %zu median %.10f", i, d.median);
		RXR_TEST_ASSERT(NEAR(d.ci_lo, c->lo, 1e-9) &&
			NEAR(d.ci_hi, c->hi, 1e-9), "case %zu ci [%.10f, %.10f], "
			"expected [%.10f, %.10f]", i, d.ci_lo, d.ci_hi, c->lo, c->hi);
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

/* n = 10: exact enumeration at its largest; 30: Monte Carlo; 60: normal. */
static int
test_bootstrap_sizes(void)
{
	double x[60], lo, hi, m;

	for (int i = 0; i < 60; i++)
		x[i] = 100 + (i * 7919 % 13);
	for (size_t n = 10; n <= 60; n += n == 10 ? 20 : 30) {
		m = rxr_stats_mean(x, n);
		RXR_TEST_ASSERT(rxr_stats_bootstrap_ci(x, n, 0.95, &lo, &hi) == 0,
			"n %zu", n);
		RXR_TEST_ASSERT(lo < m && m < hi, "n %zu: %g not in [%g, %g]", n, m,
			lo, hi);
		/* Near mean +- 1.96 sd / sqrt(n) for a flat sample this size. */
		RXR_TEST_ASSERT(NEAR(hi - lo, 2 * 1.96 * rxr_stats_stdev(x, n) /
			sqrt(n), 0.25 * (hi - lo)), "n %zu: width %g", n, hi - lo);
	}
	return 0;
}

static int
test_jain(void)
{
	const double eq[] = { 3, 3, 3, 3 }, one[] = { 0, 0, 8, 0 };
	const double two[] = { 1, 3 };

	RXR_TEST_ASSERT(NEAR(rxr_stats_jain(eq, 4), 1, 1e-12), "equal");
	RXR_TEST_ASSERT(NEAR(rxr_stats_jain(one, 4), 0.25, 1e-12), "one");
	/* (1 + 3)^2 / (2 * (1 + 9)) = 0.8, by hand. */
	RXR_TEST_ASSERT(NEAR(rxr_stats_jain(two, 2), 0.8, 1e-12), "two");
	RXR_TEST_ASSERT(isnan(rxr_stats_jain(one, 0)), "none");
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
	rxr_test_run("bootstrap_sizes", test_bootstrap_sizes);
	rxr_test_run("jain", test_jain);
	return rxr_test_done();
}
