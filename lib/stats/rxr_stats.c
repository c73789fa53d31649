/* SPDX-License-Identifier: BSD-3-Clause */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_stats.h"

#define BOOT_RESAMPLES 20000
#define PERM_RESAMPLES 20000

/* Fixed-seed generator: the same data give the same figures. */
static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
rxr_stats_mean(const double *x, size_t n)
{
	double s = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / n;
}

double
rxr_stats_stdev(const double *x, size_t n)
{
	double m = rxr_stats_mean(x, n), s = 0;

	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (n - 1));
}

double
rxr_stats_median(const double *x, size_t n)
{
	double *v, m;

	if (n == 0 || (v = malloc(n * sizeof(*v))) == NULL)
		return NAN;
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return m;
}

double
rxr_stats_jain(const double *x, size_t n)
{
	double s = 0, s2 = 0;

	for (size_t i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return n != 0 && s2 > 0 ? s * s / (n * s2) : NAN;
}

/* A resampled mean and its probability. */
struct wmean {
	double m;
	double w;
};

static int
cmp_wmean(const void *a, const void *b)
{
	return cmp_double(&((const struct wmean *)a)->m,
			&((const struct wmean *)b)->m);
}

/*
 * Every multiset of n draws from x: counts k[0..n-1] summing to n, with
 * probability n! / (k0! ... kn-1!) / n^n. Walked in lexicographic order.
 */
static size_t
boot_enumerate(const double *x, size_t n, struct wmean *out)
{
	unsigned int k[RXR_STATS_EXACT_MAX] = { 0 };
	double lfact[RXR_STATS_EXACT_MAX + 1], base;
	size_t cnt = 0;

	lfact[0] = 0;
	for (size_t i = 1; i <= n; i++)
		lfact[i] = lfact[i - 1] + log((double)i);
	base = lfact[n] - n * log((double)n);
	k[0] = n;
	for (;;) {
		double s = 0, lw = base;
		unsigned int t;
		size_t j;

		for (size_t i = 0; i < n; i++) {
			s += k[i] * x[i];
			lw -= lfact[k[i]];
		}
		out[cnt].m = s / n;
		out[cnt].w = exp(lw);
		cnt++;
		/* Next composition: the tail's count plus one moves right of
		 * the last non-zero count before it. */
		t = k[n - 1];
		k[n - 1] = 0;
		j = n - 1;
		while (j > 0 && k[j - 1] == 0)
			j--;
		if (j == 0)
			break;
		k[j - 1]--;
		k[j] = t + 1;
	}
	return cnt;
}

/* The standard normal quantile of q in (0.5, 1), by bisection on erfc. */
static double
z_of(double q)
{
	double lo = 0, hi = 10;

	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(-mid / sqrt(2.0)) < q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static size_t
binom(size_t n, size_t k)
{
	double r = 1;

	for (size_t i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return (size_t)(r + 0.5);
}

int
rxr_stats_bootstrap_ci(const double *x, size_t n, double level, double *lo,
		double *hi)
{
	struct wmean *w;
	size_t cnt;
	double qlo = (1 - level) / 2, qhi = (1 + level) / 2, cum = 0;
	bool got_lo = false;

	*lo = *hi = NAN;
	if (n < 2 || n > RXR_STATS_MAX_N)
		return -1;
	if (n <= RXR_STATS_EXACT_MAX) {
		w = malloc(binom(2 * n - 1, n) * sizeof(*w));
		if (w == NULL)
			return -1;
		cnt = boot_enumerate(x, n, w);
	} else if (n > RXR_STATS_BOOT_MC_MAX) {
		/* Large sample: the mean is near normal (central limit). */
		double m = rxr_stats_mean(x, n), se = rxr_stats_stdev(x, n) /
			sqrt((double)n), z = z_of(qhi);

		*lo = m - z * se;
		*hi = m + z * se;
		return 0;
	} else {
		uint64_t seed = 0x9e3779b97f4a7c15ULL;

		w = malloc(BOOT_RESAMPLES * sizeof(*w));
		if (w == NULL)
			return -1;
		for (cnt = 0; cnt < BOOT_RESAMPLES; cnt++) {
			double s = 0;

			for (size_t i = 0; i < n; i++)
				s += x[xorshift(&seed) % n];
			w[cnt] = (struct wmean){ s / n, 1.0 / BOOT_RESAMPLES };
		}
	}
	qsort(w, cnt, sizeof(*w), cmp_wmean);
	for (size_t i = 0; i < cnt; i++) {
		cum += w[i].w;
		/* Tolerance: weights are exp(log) sums, not exact fractions. */
		if (!got_lo && cum >= qlo - 1e-12) {
			*lo = w[i].m;
			got_lo = true;
		}
		if (cum >= qhi - 1e-12) {
			*hi = w[i].m;
			break;
		}
	}
	if (isnan(*hi))
		*hi = w[cnt - 1].m;
	free(w);
	return 0;
}

int
rxr_stats_describe(const double *x, size_t n, struct rxr_stats_desc *d)
{
	double *v;
	size_t m = 0;

	*d = (struct rxr_stats_desc){ 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
	if (n > RXR_STATS_MAX_N)
		return -1;
	if (n == 0)
		return 0;
	v = malloc(n * sizeof(*v));
	if (v == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			v[m++] = x[i];
	d->n = m;
	if (m != 0) {
		qsort(v, m, sizeof(*v), cmp_double);
		d->mean = rxr_stats_mean(v, m);
		d->stdev = rxr_stats_stdev(v, m);
		d->median = rxr_stats_median(v, m);
		d->min = v[0];
		d->max = v[m - 1];
		rxr_stats_bootstrap_ci(v, m, 0.95, &d->ci_lo, &d->ci_hi);
	}
	free(v);
	return 0;
}

double
rxr_stats_perm_test(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb, le = 0, ge = 0, total = 0;
	double *pool, sum = 0, t, tol, scale = 0;
	double p;

	if (na == 0 || nb == 0 || na > RXR_STATS_MAX_N || nb > RXR_STATS_MAX_N)
		return NAN;
	pool = malloc(n * sizeof(*pool));
	if (pool == NULL)
		return NAN;
	memcpy(pool, a, na * sizeof(*a));
	memcpy(pool + na, b, nb * sizeof(*b));
	for (size_t i = 0; i < n; i++) {
		sum += pool[i];
		scale = fmax(scale, fabs(pool[i]));
	}
	t = rxr_stats_mean(a, na) - rxr_stats_mean(b, nb);
	/* Splits that tie with the observed one count on both sides. */
	tol = 1e-9 * (scale + 1e-300);
	if (n <= RXR_STATS_PERM_EXACT_MAX) {
		/* Every subset of na of the n pooled values, as a bit mask. */
		uint32_t v = (1u << na) - 1, end = 1u << n;

		while (v < end) {
			double sa = 0, ti;
			uint32_t c, r;

			for (size_t i = 0; i < n; i++)
				if (v & (1u << i))
					sa += pool[i];
			ti = sa / na - (sum - sa) / nb;
			le += ti <= t + tol;
			ge += ti >= t - tol;
			total++;
			/* Gosper's hack: the next mask with na bits set. */
			c = v & -v;
			r = v + c;
			v = (((r ^ v) >> 2) / c) | r;
		}
		p = 2.0 * (le < ge ? le : ge) / total;
	} else if (n > RXR_STATS_PERM_MC_MAX) {
		/*
		 * Large samples: the permutation distribution of the difference
		 * of means is near normal, mean 0, variance s2 * N / (N - 1) *
		 * (1/na + 1/nb) with s2 the pooled values' population variance.
		 */
		double m = sum / n, s2 = 0, var;

		for (size_t i = 0; i < n; i++)
			s2 += (pool[i] - m) * (pool[i] - m);
		s2 /= n;
		var = s2 * n / (n - 1) * (1.0 / na + 1.0 / nb);
		p = var > 0 ? erfc(fabs(t) / sqrt(2 * var)) :
			(fabs(t) <= tol ? 1 : 0);
	} else {
		uint64_t seed = 0x2545f4914f6cdd1dULL;
		double *w = malloc(n * sizeof(*w));

		if (w == NULL) {
			free(pool);
			return NAN;
		}
		for (total = 0; total < PERM_RESAMPLES; total++) {
			double sa = 0, ti;

			memcpy(w, pool, n * sizeof(*w));
			/* Partial Fisher-Yates: the first na are a random subset. */
			for (size_t i = 0; i < na; i++) {
				size_t j = i + xorshift(&seed) % (n - i);
				double tmp = w[i];

				w[i] = w[j];
				w[j] = tmp;
				sa += w[i];
			}
			ti = sa / na - (sum - sa) / nb;
			le += ti <= t + tol;
			ge += ti >= t - tol;
		}
		free(w);
		p = 2.0 * ((le < ge ? le : ge) + 1) / (total + 1);
	}
	free(pool);
	return p > 1 ? 1 : p;
}
