/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_STATS_H
#define RXR_STATS_H

/**
 * @file
 * Statistics for a handful of repetitions (3-10 is the usual case), with
 * no assumption of normality:
 *
 * - a description of one sample: n, mean, sample standard deviation,
 *   median, min, max and a 95% percentile bootstrap interval of the mean.
 *   Up to RXR_STATS_EXACT_MAX values the bootstrap distribution is
 *   enumerated exactly (every multiset of n draws with its multinomial
 *   weight), so the interval is a property of the data, not of a seed;
 *   up to RXR_STATS_BOOT_MC_MAX, 20000 resamples from a fixed seed;
 *   above, mean +- z * sd / sqrt(n) (central limit).
 * - a two-sample test: the exact permutation test of the difference of
 *   means (every split of the pooled values enumerated), two-sided as
 *   2 * min(P(T <= t), P(T >= t)), capped at 1. With 3 against 3 values
 *   the smallest p it can give is 0.1: at least 4 values per side are
 *   needed to reach 0.05.
 *
 * Plain C, no DPDK: reports are read by tools that never start EAL.
 */

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest sample whose bootstrap distribution is enumerated exactly. */
#define RXR_STATS_EXACT_MAX 10
/** Largest n1 + n2 for which the permutation test enumerates every split. */
#define RXR_STATS_PERM_EXACT_MAX 20
/** Above: the interval of the mean by the normal approximation. */
#define RXR_STATS_BOOT_MC_MAX 30
/** Above (n1 + n2): the permutation test by its normal approximation. */
#define RXR_STATS_PERM_MC_MAX 60
/** Most values a sample may have. */
#define RXR_STATS_MAX_N 4096

/** Name of the interval method, for reports. */
#define RXR_STATS_CI_METHOD "bootstrap percentile (exact enumeration)"
/** Name of the two-sample test, for reports. */
#define RXR_STATS_TEST_METHOD "exact permutation test, difference of means"

/** Description of one sample. Fields are NAN where undefined. */
struct rxr_stats_desc {
	unsigned int n;
	double mean;
	double stdev;	/**< sample standard deviation (n - 1); NAN for n < 2 */
	double median;
	double min;
	double max;
	double ci_lo;	/**< 95% interval of the mean; NAN for n < 2 */
	double ci_hi;
};

/**
 * Describe the first @p n values of @p x (NAN values are skipped).
 * @return 0, or -1 when @p n exceeds RXR_STATS_MAX_N.
 */
int rxr_stats_describe(const double *x, size_t n, struct rxr_stats_desc *d);

/**
 * Percentile bootstrap interval of the mean at confidence @p level
 * (e.g. 0.95): the lower bound is the smallest resampled mean m with
 * P(mean* <= m) >= (1 - level) / 2, the upper the smallest with
 * P(mean* <= m) >= (1 + level) / 2.
 * @return 0, or -1 for n < 2 or n > RXR_STATS_MAX_N (bounds set to NAN).
 */
int rxr_stats_bootstrap_ci(const double *x, size_t n, double level,
		double *lo, double *hi);

/**
 * Two-sided p-value of the exact permutation test of mean(a) - mean(b).
 * Above RXR_STATS_PERM_EXACT_MAX values in all, 20000 random splits
 * from a fixed seed (Monte Carlo, (k + 1) / (N + 1)); above
 * RXR_STATS_PERM_MC_MAX, the normal approximation of the permutation
 * distribution.
 * @return p in (0, 1], or NAN when either sample is empty.
 */
double rxr_stats_perm_test(const double *a, size_t na, const double *b,
		size_t nb);

/** Mean, NAN when n is 0. */
double rxr_stats_mean(const double *x, size_t n);

/** Median (mean of the two middle values for even n), NAN when n is 0. */
double rxr_stats_median(const double *x, size_t n);

/** Sample standard deviation, NAN for n < 2. */
double rxr_stats_stdev(const double *x, size_t n);

/**
 * Jain's fairness index of n shares: (sum x)^2 / (n * sum x^2), 1 when
 * all are equal, 1/n when one takes everything. NAN when n is 0 or all
 * are 0.
 */
double rxr_stats_jain(const double *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* RXR_STATS_H */
