/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_STATS_H
#define RXR_STATS_H

/**
 * @file
 * Statistics of a handful of repetitions: a sample's description and its
 * comparison with a base, on the ratio (or the difference), by the
 * sign-flip test over paired rounds or the permutation test; each interval
 * is its test inverted, excluding 1 (0) exactly when p < alpha.
 */

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most values a sample may have. */
#define RXR_STATS_MAX_N 4096

/** Name of the interval of rxr_stats_describe(), for reports. */
#define RXR_STATS_CI_METHOD "Student t interval of the mean"
/** Name of the unpaired test on values (diff), for reports. */
#define RXR_STATS_TEST_METHOD "permutation test, difference of means"
/** Name of the unpaired comparison's family. */
#define RXR_STATS_UNPAIRED_METHOD "permutation test, difference of mean " \
	"logs (of means where a value is 0)"
/** Name of the paired test family. */
#define RXR_STATS_PAIRED_METHOD "sign-flip permutation test over paired " \
	"rounds, mean log-ratio (mean difference where a value is 0)"
/** Name of the interval of every comparison. */
#define RXR_STATS_CMP_CI_METHOD "the test inverted: the shifts of the " \
	"log-ratios (differences) it does not reject at alpha, exponentiated " \
	"for a ratio"

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

/** Describe x[0..n), NaN skipped; 0, or -1 past RXR_STATS_MAX_N. */
int rxr_stats_describe(const double *x, size_t n, struct rxr_stats_desc *d);

/** A configuration against a base: a ratio or a difference, tested. */
struct rxr_stats_cmp {
	unsigned int n;		/**< rounds (paired) or values of x tested */
	unsigned int n_base;	/**< values of the base (= n when paired) */
	bool paired;
	bool ratio;		/**< est is x / base; else x - base */
	double est;		/**< geometric-mean ratio, or mean difference */
	double lo, hi;		/**< the interval, as est is; NAN: none */
	double p;		/**< two-sided; NAN: untested */
	double min_p;		/**< smallest p these sizes can give */
	const char *test;	/**< the test that ran (static string) */
};

/** Compare x with base, paired by round (nx == nb) or not, on the ratio
 * unless diff or a value is not above 0; tested from 2 values a side.
 * 0, or -1 when a side has no finite value. */
int rxr_stats_compare(const double *x, size_t nx, const double *base,
		size_t nb, bool paired, bool diff, double alpha,
		struct rxr_stats_cmp *out);

/** Smallest p of the sign-flip test with n rounds (2 / 2^n), and the
 * fewest rounds that can give p < alpha (6 for 0.05). */
double rxr_stats_signflip_min_p(size_t n);
unsigned int rxr_stats_signflip_min_rounds(double alpha);

/** Mean, NAN when n is 0. */
double rxr_stats_mean(const double *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* RXR_STATS_H */
