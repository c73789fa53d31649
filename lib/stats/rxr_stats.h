/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_STATS_H
#define RXR_STATS_H

/**
 * @file
 * Statistics for a handful of repetitions (3-10 is the usual case):
 *
 * - a description of one sample: n, mean, sample standard deviation,
 *   median, min, max and a 95% Student t interval of the mean (its
 *   coverage holds at small n for near-normal data; the percentile
 *   bootstrap, kept as rxr_stats_bootstrap_ci(), covers about 89% at
 *   n = 8).
 * - a two-sample test: the permutation test of the difference of means
 *   (every split of the pooled values enumerated up to
 *   RXR_STATS_PERM_EXACT_MAX values), two-sided as
 *   2 * min(P(T <= t), P(T >= t)), capped at 1. With 3 against 3 values
 *   the smallest p it can give is 0.1: at least 4 values per side are
 *   needed to reach 0.05.
 * - a paired comparison over rounds (blocks): per-round log-ratios of a
 *   configuration against a base, their geometric-mean ratio with a t
 *   interval, and the sign-flip permutation test of the mean log-ratio
 *   (every one of the 2^n sign vectors up to RXR_STATS_SIGNFLIP_EXACT_MAX
 *   rounds). With n rounds its smallest p is 2 / 2^n: at least 6 rounds
 *   are needed to reach 0.05.
 *
 * Every test says which method ran (rxr_stats_perm_method(), the test
 * field of struct rxr_stats_ratio), so a report never calls "exact" what
 * was resampled or approximated. Ties between a resampled statistic and
 * the observed one are judged relative to the data's spread, not to the
 * size of the values.
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

/** Largest number of rounds whose 2^n sign vectors are all enumerated. */
#define RXR_STATS_SIGNFLIP_EXACT_MAX 20

/** Name of the interval of rxr_stats_describe(), for reports. */
#define RXR_STATS_CI_METHOD "Student t interval of the mean"
/** Name of the two-sample test family, for reports (the method that ran
 * for given sizes: rxr_stats_perm_method()). */
#define RXR_STATS_TEST_METHOD "permutation test, difference of means"
/** Name of the paired test family, for reports. */
#define RXR_STATS_PAIRED_METHOD "sign-flip permutation test over paired " \
	"rounds, mean log-ratio"
/** Name of the interval of a ratio from paired rounds. */
#define RXR_STATS_PAIRED_CI_METHOD "t interval of the mean per-round " \
	"log-ratio, exponentiated (geometric-mean ratio)"
/** Name of the interval of a ratio from unpaired samples. */
#define RXR_STATS_UNPAIRED_CI_METHOD "Welch t interval of the difference " \
	"of mean log values, exponentiated (ratio of geometric means)"

/** Description of one sample. Fields are NAN where undefined. */
struct rxr_stats_desc {
	unsigned int n;
	double mean;
	double stdev;	/**< sample standard deviation (n - 1); NAN for n < 2 */
	double median;
	double min;
	double max;
	double ci_lo;	/**< 95% t interval of the mean; NAN for n < 2 */
	double ci_hi;
};

/**
 * Describe the first @p n values of @p x (NAN values are skipped).
 * @return 0, or -1 when @p n exceeds RXR_STATS_MAX_N.
 */
int rxr_stats_describe(const double *x, size_t n, struct rxr_stats_desc *d);

/**
 * Student t interval of the mean at confidence @p level:
 * mean +- t(n - 1, (1 + level) / 2) * sd / sqrt(n).
 * @return 0, or -1 for n < 2 (bounds set to NAN).
 */
int rxr_stats_t_ci(const double *x, size_t n, double level, double *lo,
		double *hi);

/**
 * Quantile q of Student's t distribution with @p df degrees of freedom
 * (df > 0, 0 < q < 1); NAN otherwise.
 */
double rxr_stats_t_quantile(double q, double df);

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

/**
 * The method rxr_stats_perm_test() runs for samples of @p na and @p nb
 * values: "exact permutation test, difference of means (every split)",
 * "Monte Carlo permutation test, ..." or "normal approximation of the
 * permutation test, ...". A static string.
 */
const char *rxr_stats_perm_method(size_t na, size_t nb);

/**
 * Smallest two-sided p rxr_stats_perm_test() can give with exact
 * enumeration of @p na against @p nb values without ties:
 * 2 / C(na + nb, na), capped at 1; for sizes past exact enumeration,
 * the Monte Carlo floor 2 / (20000 + 1). 1 when either side is empty.
 */
double rxr_stats_perm_min_p(size_t na, size_t nb);

/**
 * Two-sided p-value of the sign-flip permutation test of the mean of
 * @p d (the per-round differences, e.g. log-ratios): under "no
 * difference" each d[i] is as likely to have either sign. Up to
 * RXR_STATS_SIGNFLIP_EXACT_MAX values every sign vector is enumerated;
 * above, 20000 random sign vectors from a fixed seed ((k + 1) / (N + 1)).
 * 2 * min(P(T <= t), P(T >= t)), capped at 1.
 * @return p in (0, 1], or NAN when n is 0.
 */
double rxr_stats_signflip_test(const double *d, size_t n);

/** The method rxr_stats_signflip_test() runs for n values (static). */
const char *rxr_stats_signflip_method(size_t n);

/** Smallest p of the sign-flip test with n values: 2 / 2^n (capped at 1;
 * the Monte Carlo floor above exact enumeration). */
double rxr_stats_signflip_min_p(size_t n);

/** Fewest rounds whose sign-flip test can give p < @p alpha (6 for 0.05). */
unsigned int rxr_stats_signflip_min_rounds(double alpha);

/** A ratio of a configuration to a base, with its interval and test. */
struct rxr_stats_ratio {
	unsigned int n;		/**< rounds (paired) or values of x tested */
	unsigned int n_base;	/**< values of the base (= n when paired) */
	bool paired;
	double ratio;		/**< geometric-mean ratio x / base */
	double ci_lo;		/**< 95% interval of the ratio; NAN: none */
	double ci_hi;
	double p;		/**< two-sided; NAN: untested */
	double min_p;		/**< smallest p these sizes can give */
	const char *test;	/**< the test that ran (static string) */
	const char *interval;	/**< the interval's method (static string) */
};

/**
 * Paired comparison: x[i] and base[i] were measured in round i. Uses the
 * rounds where both are finite and > 0; ratio = exp(mean(log(x / base))),
 * its 95% t interval (needs 2 rounds), and the sign-flip test of the
 * log-ratios (rxr_stats_signflip_test()).
 * @return 0, or -1 when fewer than 1 round is usable (out->n = 0,
 *   figures NAN).
 */
int rxr_stats_paired(const double *x, const double *base, size_t n,
		struct rxr_stats_ratio *out);

/**
 * Unpaired comparison, for values not measured in common rounds: the
 * permutation test of the difference of means of the finite values
 * (rxr_stats_perm_test(); n and n_base count them), and from the values
 * > 0 the ratio of geometric means with a Welch t interval of the
 * difference of mean logs.
 * @return 0, or -1 when a side has no finite value.
 */
int rxr_stats_unpaired(const double *x, size_t nx, const double *base,
		size_t nb, struct rxr_stats_ratio *out);

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
