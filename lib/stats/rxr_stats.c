/* SPDX-License-Identifier: BSD-3-Clause */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_stats.h"

#define BOOT_RESAMPLES 20000
#define PERM_RESAMPLES 20000
#define STR(x) #x
#define XSTR(x) STR(x)
/* The resampling tests' fixed seeds: the same data give the same figures. */
#define BOOT_SEED 0x9e3779b97f4a7c15ULL
#define PERM_SEED 0x2545f4914f6cdd1dULL
#define SIGNFLIP_SEED 0x853c49e6748fea9bULL
/* Rounding a sum may leave, relative to its terms: a tie within this. */
#define TIE_TOL_REL 1e-9
/* The confidence of the intervals in descriptions and comparisons. */
#define CI_LEVEL 0.95
/* Lentz's continued fraction of the incomplete beta: floor, precision,
 * the most terms (it converges in far fewer for the df seen here). */
#define BETA_CF_TINY 1e-300
#define BETA_CF_EPS 1e-15
#define BETA_CF_TERMS 300

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
		uint64_t seed = BOOT_SEED;

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
		rxr_stats_t_ci(v, m, CI_LEVEL, &d->ci_lo, &d->ci_hi);
	}
	free(v);
	return 0;
}

/*
 * A permutation test's pooled values (centered), the observed difference
 * of means t, the tolerance within which a split ties with it, and the
 * sizes of the two samples.
 */
struct perm {
	const double *pool;
	size_t na, nb, n;
	double sum, t, tol;
};

/* Two-sided p from the splits at or below and at or above t. */
static double
two_sided_p(size_t le, size_t ge, size_t total)
{
	return 2.0 * (le < ge ? le : ge) / total;
}

/* Sums of every subset of x[0..k), the subset as a bit mask. */
static void
subset_sums(const double *x, size_t k, double *sums)
{
	for (size_t m = 0; m < ((size_t)1 << k); m++) {
		sums[m] = 0;
		for (size_t i = 0; i < k; i++)
			if (m & ((size_t)1 << i))
				sums[m] += x[i];
	}
}

/*
 * Every subset of na of the n pooled values, as a bit mask. The sums of
 * the low and high halves' subsets are tabled: each split's sum is one
 * addition.
 */
static double
perm_exact(const struct perm *pm)
{
	size_t n = pm->n, na = pm->na, nb = pm->nb, le = 0, ge = 0, total = 0;
	uint32_t v = (1u << na) - 1, end = 1u << n;
	size_t nl = n / 2, nh = n - nl;
	double *lo_sum = malloc(((size_t)1 << nl) * sizeof(double));
	double *hi_sum = malloc(((size_t)1 << nh) * sizeof(double));

	if (lo_sum == NULL || hi_sum == NULL) {
		free(lo_sum);
		free(hi_sum);
		return NAN;
	}
	subset_sums(pm->pool, nl, lo_sum);
	subset_sums(pm->pool + nl, nh, hi_sum);
	while (v < end) {
		double sa = lo_sum[v & ((1u << nl) - 1)] + hi_sum[v >> nl];
		double ti;
		uint32_t c, r;

		ti = sa / na - (pm->sum - sa) / nb;
		le += ti <= pm->t + pm->tol;
		ge += ti >= pm->t - pm->tol;
		total++;
		/* Gosper's hack: the next mask with na bits set. */
		c = v & -v;
		r = v + c;
		v = (((r ^ v) >> 2) / c) | r;
	}
	free(lo_sum);
	free(hi_sum);
	return two_sided_p(le, ge, total);
}

/*
 * Large samples: the permutation distribution of the difference of
 * means is near normal, mean 0, variance s2 * N / (N - 1) * (1/na + 1/nb)
 * with s2 the pooled values' population variance.
 */
static double
perm_normal(const struct perm *pm)
{
	size_t n = pm->n;
	double m = pm->sum / n, s2 = 0, var;

	for (size_t i = 0; i < n; i++)
		s2 += (pm->pool[i] - m) * (pm->pool[i] - m);
	s2 /= n;
	var = s2 * n / (n - 1) * (1.0 / pm->na + 1.0 / pm->nb);
	return var > 0 ? erfc(fabs(pm->t) / sqrt(2 * var)) :
		(fabs(pm->t) <= pm->tol ? 1 : 0);
}

/* PERM_RESAMPLES random splits from a fixed seed. */
static double
perm_monte_carlo(const struct perm *pm)
{
	size_t n = pm->n, na = pm->na, le = 0, ge = 0, total;
	uint64_t seed = PERM_SEED;
	double *w = malloc(n * sizeof(*w));

	if (w == NULL)
		return NAN;
	for (total = 0; total < PERM_RESAMPLES; total++) {
		double sa = 0, ti;

		memcpy(w, pm->pool, n * sizeof(*w));
		/* Partial Fisher-Yates: the first na are a random subset. */
		for (size_t i = 0; i < na; i++) {
			size_t j = i + xorshift(&seed) % (n - i);
			double tmp = w[i];

			w[i] = w[j];
			w[j] = tmp;
			sa += w[i];
		}
		ti = sa / na - (pm->sum - sa) / pm->nb;
		le += ti <= pm->t + pm->tol;
		ge += ti >= pm->t - pm->tol;
	}
	free(w);
	return two_sided_p(le + 1, ge + 1, total + 1);
}

double
rxr_stats_perm_test(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	double *pool, sum = 0, lo = INFINITY, hi = -INFINITY, c, p;
	struct perm pm;

	if (na == 0 || nb == 0 || na > RXR_STATS_MAX_N || nb > RXR_STATS_MAX_N)
		return NAN;
	pool = malloc(n * sizeof(*pool));
	if (pool == NULL)
		return NAN;
	memcpy(pool, a, na * sizeof(*a));
	memcpy(pool + na, b, nb * sizeof(*b));
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, pool[i]);
		hi = fmax(hi, pool[i]);
	}
	if (!(hi > lo)) {
		/* Every value equal: every split ties with the observed one. */
		free(pool);
		return 1;
	}
	/*
	 * Centered values: the sums below then carry rounding errors of the
	 * order of the spread, not of the values' size (1e9 + k).
	 */
	c = lo + (hi - lo) / 2;
	for (size_t i = 0; i < n; i++) {
		pool[i] -= c;
		sum += pool[i];
	}
	pm = (struct perm){ .pool = pool, .na = na, .nb = nb, .n = n,
		.sum = sum,
		.t = rxr_stats_mean(pool, na) - rxr_stats_mean(pool + na, nb),
		/* Splits that tie with the observed one count on both sides. */
		.tol = TIE_TOL_REL * (hi - lo) };
	if (n <= RXR_STATS_PERM_EXACT_MAX)
		p = perm_exact(&pm);
	else if (n > RXR_STATS_PERM_MC_MAX)
		p = perm_normal(&pm);
	else
		p = perm_monte_carlo(&pm);
	free(pool);
	return p > 1 ? 1 : p;
}

const char *
rxr_stats_perm_method(size_t na, size_t nb)
{
	if (na + nb <= RXR_STATS_PERM_EXACT_MAX)
		return "exact permutation test, difference of means (every split)";
	if (na + nb <= RXR_STATS_PERM_MC_MAX)
		return "Monte Carlo permutation test, difference of means "
			"(" XSTR(PERM_RESAMPLES) " random splits, fixed seed)";
	return "normal approximation of the permutation test, difference of "
		"means";
}

double
rxr_stats_perm_min_p(size_t na, size_t nb)
{
	double p;

	if (na == 0 || nb == 0)
		return 1;
	if (na + nb > RXR_STATS_PERM_EXACT_MAX)
		return 2.0 / (PERM_RESAMPLES + 1);
	p = 2.0 / (double)binom(na + nb, na);
	return p > 1 ? 1 : p;
}

/* Student t: the regularized incomplete beta I_x(a, b) by Lentz's
 * continued fraction (converges fast for x < (a + 1) / (a + b + 2)). */
static double
beta_cf(double a, double b, double x)
{
	const double tiny = BETA_CF_TINY;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= BETA_CF_TERMS; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < BETA_CF_EPS)
			break;
	}
	return h;
}

static double
ibeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with df degrees of freedom. */
static double
t_cdf(double t, double df)
{
	double tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

double
rxr_stats_t_quantile(double q, double df)
{
	double lo = 0, hi = 1;

	if (!(df > 0) || !(q > 0 && q < 1))
		return NAN;
	if (q < 0.5)
		return -rxr_stats_t_quantile(1 - q, df);
	if (q == 0.5)
		return 0;
	/* Bracket by doubling, then bisect to the last bits. */
	while (t_cdf(hi, df) < q && hi < 1e300) {
		lo = hi;
		hi *= 2;
	}
	for (int i = 0; i < 64 && hi - lo > 1e-15 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (t_cdf(mid, df) < q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int
rxr_stats_t_ci(const double *x, size_t n, double level, double *lo,
		double *hi)
{
	double m, half;

	*lo = *hi = NAN;
	if (n < 2 || !(level > 0 && level < 1))
		return -1;
	m = rxr_stats_mean(x, n);
	half = rxr_stats_t_quantile((1 + level) / 2, (double)(n - 1)) *
		rxr_stats_stdev(x, n) / sqrt((double)n);
	*lo = m - half;
	*hi = m + half;
	return 0;
}

double
rxr_stats_signflip_test(const double *d, size_t n)
{
	size_t le = 0, ge = 0, total;
	double t = 0, tol = 0, p;

	if (n == 0 || n > RXR_STATS_MAX_N)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		t += d[i];
		tol = fmax(tol, fabs(d[i]));
	}
	if (tol == 0)
		return 1;	/* every difference 0: every sign vector ties */
	/* Rounding of a sum of n terms, relative to the largest one. */
	tol *= TIE_TOL_REL * (double)n;
	if (n <= RXR_STATS_SIGNFLIP_EXACT_MAX) {
		/*
		 * Every sign vector as a mask (bit set: sign flipped). Sums of
		 * the low and high halves are tabled, so each of the 2^n
		 * sums is one addition, not a running update.
		 */
		size_t nl = n / 2, nh = n - nl;
		size_t sl = (size_t)1 << nl, sh = (size_t)1 << nh;
		double *lo = malloc(sl * sizeof(*lo)), *hi = malloc(sh *
				sizeof(*hi));

		if (lo == NULL || hi == NULL) {
			free(lo);
			free(hi);
			return NAN;
		}
		for (size_t m = 0; m < sl; m++) {
			lo[m] = 0;
			for (size_t i = 0; i < nl; i++)
				lo[m] += m & ((size_t)1 << i) ? -d[i] : d[i];
		}
		for (size_t m = 0; m < sh; m++) {
			hi[m] = 0;
			for (size_t i = 0; i < nh; i++)
				hi[m] += m & ((size_t)1 << i) ? -d[nl + i] :
					d[nl + i];
		}
		for (size_t mh = 0; mh < sh; mh++)
			for (size_t ml = 0; ml < sl; ml++) {
				double ti = lo[ml] + hi[mh];

				le += ti <= t + tol;
				ge += ti >= t - tol;
			}
		total = sl * sh;
		free(lo);
		free(hi);
		p = two_sided_p(le, ge, total);
	} else {
		uint64_t seed = SIGNFLIP_SEED;

		for (total = 0; total < PERM_RESAMPLES; total++) {
			double ti = 0;
			uint64_t bits = 0;

			for (size_t i = 0; i < n; i++) {
				if (i % 64 == 0)
					bits = xorshift(&seed);
				ti += bits & 1 ? -d[i] : d[i];
				bits >>= 1;
			}
			le += ti <= t + tol;
			ge += ti >= t - tol;
		}
		p = two_sided_p(le + 1, ge + 1, total + 1);
	}
	return p > 1 ? 1 : p;
}

const char *
rxr_stats_signflip_method(size_t n)
{
	if (n <= RXR_STATS_SIGNFLIP_EXACT_MAX)
		return "exact sign-flip permutation test over paired rounds, "
			"mean log-ratio (all 2^n sign vectors)";
	return "Monte Carlo sign-flip permutation test over paired rounds, "
		"mean log-ratio (" XSTR(PERM_RESAMPLES) " random sign vectors, "
		"fixed seed)";
}

double
rxr_stats_signflip_min_p(size_t n)
{
	if (n == 0)
		return 1;
	if (n > RXR_STATS_SIGNFLIP_EXACT_MAX)
		return 2.0 / (PERM_RESAMPLES + 1);
	return n == 1 ? 1 : 2.0 / (double)((size_t)1 << n);
}

unsigned int
rxr_stats_signflip_min_rounds(double alpha)
{
	unsigned int n = 1;

	if (!(alpha > 0 && alpha < 1))
		return 0;
	while (n <= RXR_STATS_SIGNFLIP_EXACT_MAX &&
			!(rxr_stats_signflip_min_p(n) < alpha))
		n++;
	return n;
}

static bool
positive(double v)
{
	return isfinite(v) && v > 0;
}

int
rxr_stats_paired(const double *x, const double *base, size_t n,
		struct rxr_stats_ratio *out)
{
	double *d, m;
	size_t k = 0;

	*out = (struct rxr_stats_ratio){ .ratio = NAN, .ci_lo = NAN,
		.ci_hi = NAN, .p = NAN, .min_p = 1, .paired = true,
		.test = RXR_STATS_PAIRED_METHOD,
		.interval = RXR_STATS_PAIRED_CI_METHOD };
	if (n == 0 || n > RXR_STATS_MAX_N)
		return -1;
	d = malloc(n * sizeof(*d));
	if (d == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (positive(x[i]) && positive(base[i]))
			d[k++] = log(x[i] / base[i]);
	out->n = out->n_base = (unsigned int)k;
	if (k == 0) {
		free(d);
		return -1;
	}
	m = rxr_stats_mean(d, k);
	out->ratio = exp(m);
	if (rxr_stats_t_ci(d, k, CI_LEVEL, &out->ci_lo, &out->ci_hi) == 0) {
		out->ci_lo = exp(out->ci_lo);
		out->ci_hi = exp(out->ci_hi);
	}
	if (k >= 2) {
		out->p = rxr_stats_signflip_test(d, k);
		out->test = rxr_stats_signflip_method(k);
	}
	out->min_p = rxr_stats_signflip_min_p(k);
	free(d);
	return 0;
}

int
rxr_stats_unpaired(const double *x, size_t nx, const double *base,
		size_t nb, struct rxr_stats_ratio *out)
{
	double *fx, *fb, *lx, *lb, mx, mb, vx, vb, se, df, t;
	size_t kx = 0, kb = 0, gx = 0, gb = 0;
	int ret = -1;

	*out = (struct rxr_stats_ratio){ .ratio = NAN, .ci_lo = NAN,
		.ci_hi = NAN, .p = NAN, .min_p = 1, .paired = false,
		.test = RXR_STATS_TEST_METHOD,
		.interval = RXR_STATS_UNPAIRED_CI_METHOD };
	if (nx > RXR_STATS_MAX_N || nb > RXR_STATS_MAX_N)
		return -1;
	fx = malloc((nx + 1) * sizeof(*fx));
	fb = malloc((nb + 1) * sizeof(*fb));
	lx = malloc((nx + 1) * sizeof(*lx));
	lb = malloc((nb + 1) * sizeof(*lb));
	if (fx == NULL || fb == NULL || lx == NULL || lb == NULL)
		goto out;
	/* The test: every finite value; the ratio: the positive ones. */
	for (size_t i = 0; i < nx; i++) {
		if (isfinite(x[i]))
			fx[gx++] = x[i];
		if (positive(x[i]))
			lx[kx++] = log(x[i]);
	}
	for (size_t i = 0; i < nb; i++) {
		if (isfinite(base[i]))
			fb[gb++] = base[i];
		if (positive(base[i]))
			lb[kb++] = log(base[i]);
	}
	out->n = (unsigned int)gx;
	out->n_base = (unsigned int)gb;
	if (gx == 0 || gb == 0)
		goto out;
	ret = 0;
	if (gx >= 2 && gb >= 2) {
		out->p = rxr_stats_perm_test(fx, gx, fb, gb);
		out->test = rxr_stats_perm_method(gx, gb);
		out->min_p = rxr_stats_perm_min_p(gx, gb);
	}
	if (kx == 0 || kb == 0)
		goto out;
	mx = rxr_stats_mean(lx, kx);
	mb = rxr_stats_mean(lb, kb);
	out->ratio = exp(mx - mb);
	if (kx < 2 || kb < 2)
		goto out;
	vx = rxr_stats_stdev(lx, kx);
	vb = rxr_stats_stdev(lb, kb);
	vx = vx * vx / kx;
	vb = vb * vb / kb;
	se = sqrt(vx + vb);
	if (se > 0) {
		/* Welch-Satterthwaite degrees of freedom. */
		df = (vx + vb) * (vx + vb) / (vx * vx / (kx - 1) + vb * vb /
			(kb - 1));
		t = rxr_stats_t_quantile((1 + CI_LEVEL) / 2, df);
		out->ci_lo = exp(mx - mb - t * se);
		out->ci_hi = exp(mx - mb + t * se);
	} else {
		out->ci_lo = out->ci_hi = out->ratio;
	}
out:
	free(fx);
	free(fb);
	free(lx);
	free(lb);
	return ret;
}
