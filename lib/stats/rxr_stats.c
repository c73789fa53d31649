/* SPDX-License-Identifier: BSD-3-Clause */

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "rxr_stats.h"

/* Every split (sign vector) enumerated up to this many values (rounds);
 * random ones up to PERM_MC_MAX, the normal approximation above. */
#define PERM_EXACT_MAX 20
#define SIGNFLIP_EXACT_MAX 20
#define PERM_MC_MAX 60
#define PERM_RESAMPLES 20000
#define STR(x) #x
#define XSTR(x) STR(x)
/* The resampling tests' fixed seeds: the same data give the same figures. */
#define PERM_SEED 0x2545f4914f6cdd1dULL
#define SIGNFLIP_SEED 0x853c49e6748fea9bULL
/* Rounding a sum may leave, relative to its terms: a tie within this. */
#define TIE_TOL_REL 1e-9
/* The confidence of the interval of a description. */
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
		double m2 = 2.0 * m, del = 0;

		/* The even term of the fraction, then the odd one. */
		for (int odd = 0; odd < 2; odd++) {
			double aa = odd ? -(a + m) * (a + b + m) * x /
				((a + m2) * (a + m2 + 1)) :
				m * (b - m) * x / ((a + m2 - 1) * (a + m2));

			d = 1 + aa * d;
			d = fabs(d) < tiny ? tiny : d;
			c = 1 + aa / c;
			c = fabs(c) < tiny ? tiny : c;
			d = 1 / d;
			del = d * c;
			h *= del;
		}
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

/* Quantile q in (0.5, 1) of Student's t with df > 0. */
static double
t_quantile(double q, double df)
{
	double lo = 0, hi = 1;

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
rxr_stats_describe(const double *x, size_t n, struct rxr_stats_desc *d)
{
	double *v, half, ss = 0;
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
		for (size_t i = 0; m >= 2 && i < m; i++)
			ss += (v[i] - d->mean) * (v[i] - d->mean);
		d->stdev = m >= 2 ? sqrt(ss / (m - 1)) : NAN;
		d->median = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
		d->min = v[0];
		d->max = v[m - 1];
	}
	if (m >= 2) {
		half = t_quantile((1 + CI_LEVEL) / 2, (double)(m - 1)) *
			d->stdev / sqrt((double)m);
		d->ci_lo = d->mean - half;
		d->ci_hi = d->mean + half;
	}
	free(v);
	return 0;
}

/* The standard normal quantile of q in (0.5, 1), by bisection on erfc. */
static double
z_of(double q)
{
	double lo = 0, hi = 40;

	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(-mid / sqrt(2.0)) < q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * The tests below are of a shift delta: "x - delta and the base are
 * exchangeable" (delta of the logs for a ratio). Each rearrangement of
 * the data but the identity has one crossing: the delta at which its
 * statistic passes the observed one, at or below it for smaller delta,
 * at or above for larger. The identity ties at every delta, and so does
 * a random rearrangement that happens to be it. The test's p at delta
 * 0 counts the rearrangements on each side; the interval at alpha, the
 * deltas it does not reject, is two order statistics of the crossings.
 */
struct crossings {
	double *s;	/* the crossings */
	size_t m;
	size_t ties;	/* rearrangements tied at every delta */
	size_t total;	/* rearrangements: m + ties */
};

/* The k-th smallest of v[0..n), 0-based; v is reordered (Wirth). */
static double
kth(double *v, size_t n, size_t k)
{
	long l = 0, r = (long)n - 1, i, j;

	while (l < r) {
		double x = v[k], t;

		i = l;
		j = r;
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		} while (i <= j);
		if (j < (long)k)
			l = i;
		if ((long)k < i)
			r = j;
	}
	return v[k];
}

/* p at delta 0 and the interval at alpha, of the log-ratio or the difference. */
static void
crossings_decide(struct crossings *c, double tol, double alpha,
		struct rxr_stats_cmp *out)
{
	size_t le = c->ties, ge = c->ties, k = 1, j;

	for (size_t i = 0; i < c->m; i++) {
		if (fabs(c->s[i]) <= tol)
			c->s[i] = 0;
		le += c->s[i] >= 0;
		ge += c->s[i] <= 0;
	}
	out->p = fmin(1, 2.0 * (le < ge ? le : ge) / c->total);
	/* Not rejected at delta: at least k on each side (p = 2k / total). */
	while (2.0 * k / c->total < alpha)
		k++;
	if (k <= c->ties || k - c->ties > c->m)
		return;		/* every delta or none: no interval */
	j = k - c->ties;
	out->lo = kth(c->s, c->m, j - 1);
	out->hi = kth(c->s, c->m, c->m - j);
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
 * Sign-flip test of the mean of d[0..n): flipping the signs of a set F
 * crosses the observed at delta = mean of d over F. Every sign vector up
 * to SIGNFLIP_EXACT_MAX rounds (the sums of the two halves'
 * subsets tabled), else PERM_RESAMPLES random ones.
 */
static int
signflip_crossings(const double *d, size_t n, struct crossings *c)
{
	size_t nl = n / 2, nh = n - nl;
	size_t sl = (size_t)1 << nl, sh = (size_t)1 << nh;
	double *lo = NULL, *hi = NULL;
	uint64_t seed = SIGNFLIP_SEED;

	*c = (struct crossings){ .ties = 1 };
	if (n > SIGNFLIP_EXACT_MAX) {
		c->s = malloc(PERM_RESAMPLES * sizeof(*c->s));
		for (size_t t = 0; c->s != NULL && t < PERM_RESAMPLES; t++) {
			double sum = 0;
			size_t cnt = 0;
			uint64_t bits = 0;

			for (size_t i = 0; i < n; i++) {
				if (i % 64 == 0)
					bits = xorshift(&seed);
				if (bits & 1) {
					sum += d[i];
					cnt++;
				}
				bits >>= 1;
			}
			if (cnt == 0)
				c->ties++;
			else
				c->s[c->m++] = sum / cnt;
		}
		c->total = PERM_RESAMPLES + 1;
		return c->s != NULL ? 0 : -1;
	}
	lo = malloc(sl * sizeof(*lo));
	hi = malloc(sh * sizeof(*hi));
	c->s = malloc(sl * sh * sizeof(*c->s));
	if (lo != NULL && hi != NULL && c->s != NULL) {
		subset_sums(d, nl, lo);
		subset_sums(d + nl, nh, hi);
		for (size_t mh = 0; mh < sh; mh++)
			for (size_t ml = mh == 0; ml < sl; ml++)
				c->s[c->m++] = (lo[ml] + hi[mh]) /
					(__builtin_popcountll(ml) +
					 __builtin_popcountll(mh));
		c->total = sl * sh;
	}
	free(lo);
	free(hi);
	return c->s != NULL && c->total != 0 ? 0 : -1;
}

/*
 * Two-sample test of mean(a) - mean(b), a and b in one array (a first):
 * a split S of na values crosses the observed at delta = the mean of the
 * a values out of S less the mean of the b values in it. Every split up
 * to PERM_EXACT_MAX values in all (Gosper's hack; the subset
 * sums of each sample tabled), else PERM_RESAMPLES random ones.
 */
static int
split_crossings(const double *pool, size_t na, size_t nb, struct crossings *c)
{
	size_t n = na + nb;
	double suma = 0, *ta = NULL, *tb = NULL;
	uint64_t seed = PERM_SEED;

	for (size_t i = 0; i < na; i++)
		suma += pool[i];
	*c = (struct crossings){ .ties = 1 };
	if (n > PERM_EXACT_MAX) {
		size_t idx[2 * RXR_STATS_MAX_N];

		c->s = malloc(PERM_RESAMPLES * sizeof(*c->s));
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
		for (size_t t = 0; c->s != NULL && t < PERM_RESAMPLES; t++) {
			double out = suma;
			size_t m = 0;

			/* Partial Fisher-Yates: the first na are a random split. */
			for (size_t i = 0; i < na; i++) {
				size_t j = i + xorshift(&seed) % (n - i), x;

				x = idx[i];
				idx[i] = idx[j];
				idx[j] = x;
				out -= pool[idx[i]];
				m += idx[i] >= na;
			}
			if (m == 0)
				c->ties++;
			else
				c->s[c->m++] = out / m;
		}
		c->total = PERM_RESAMPLES + 1;
		return c->s != NULL ? 0 : -1;
	}
	ta = malloc(((size_t)1 << na) * sizeof(*ta));
	tb = malloc(((size_t)1 << nb) * sizeof(*tb));
	c->s = malloc(((size_t)1 << n) * sizeof(*c->s));
	if (ta != NULL && tb != NULL && c->s != NULL) {
		uint32_t v = (1u << na) - 1, end = 1u << n, am = v, cc, r;

		subset_sums(pool, na, ta);
		subset_sums(pool + na, nb, tb);
		while (v < end) {
			size_t m = __builtin_popcount(v >> na);

			c->total++;
			if (m == 0)
				c->ties = 1;
			else
				c->s[c->m++] = (suma - ta[v & am] - tb[v >> na]) / m;
			/* Gosper's hack: the next mask with na bits set. */
			cc = v & -v;
			r = v + cc;
			v = (((r ^ v) >> 2) / cc) | r;
		}
	}
	free(ta);
	free(tb);
	return c->s != NULL && c->total != 0 ? 0 : -1;
}

/*
 * Past PERM_MC_MAX values: the permutation distribution of the
 * difference of means u is near normal, of variance c * s2, s2 the pooled
 * values' population variance, c = N / (N - 1) * (1/na + 1/nb). At delta,
 * s2 = W + u^2 na nb / N^2 (W the samples' own variances), so the test
 * and its inversion are closed forms.
 */
static void
normal_test(const double *pool, size_t na, size_t nb, double alpha,
		struct rxr_stats_cmp *out)
{
	double n = (double)(na + nb), ma = rxr_stats_mean(pool, na);
	double mb = rxr_stats_mean(pool + na, nb), w = 0, c, u = ma - mb, z, q;

	for (size_t i = 0; i < na + nb; i++)
		w += pow(pool[i] - (i < na ? ma : mb), 2);
	w /= n;
	c = n / (n - 1) * (1.0 / na + 1.0 / nb);
	out->p = c * w + u * u / (n - 1) > 0 ?
		erfc(fabs(u) / sqrt(2 * (c * w + u * u / (n - 1)))) : 1;
	out->p = fmax(out->p, out->min_p);
	z = z_of(1 - alpha / 2);
	q = 1 - z * z / (n - 1);
	if (q > 0) {
		out->lo = u - sqrt(z * z * c * w / q);
		out->hi = u + sqrt(z * z * c * w / q);
	}
}

/* The test of d (paired) or of a against b, into out; 0 or -1 (ENOMEM). */
static int
shift_test(const double *d, size_t na, size_t nb, bool paired, double alpha,
		struct rxr_stats_cmp *out)
{
	size_t n = paired ? na : na + nb;
	double lo = INFINITY, hi = -INFINITY, mid, tol, *v = malloc(n * sizeof(*v));
	struct crossings c = { 0 };
	int ret = -1;

	if (v == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, d[i]);
		hi = fmax(hi, d[i]);
	}
	/*
	 * Two samples centred at their midpoint: a crossing is a difference
	 * of means, the same after any common shift, and its rounding is then
	 * of the order of the spread, not of the values' size (1e9 + k).
	 */
	mid = paired ? 0 : lo + (hi - lo) / 2;
	for (size_t i = 0; i < n; i++)
		v[i] = d[i] - mid;
	tol = TIE_TOL_REL * n * (paired ? fmax(fabs(lo), fabs(hi)) : hi - lo);
	if (!paired && n > PERM_MC_MAX) {
		normal_test(v, na, nb, alpha, out);
		ret = 0;
	} else if ((paired ? signflip_crossings(v, n, &c) :
			split_crossings(v, na, nb, &c)) == 0) {
		crossings_decide(&c, tol, alpha, out);
		ret = 0;
	}
	free(c.s);
	free(v);
	return ret;
}

static double
binom(size_t n, size_t k)
{
	double r = 1;

	for (size_t i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return r;
}

double
rxr_stats_signflip_min_p(size_t n)
{
	if (n == 0)
		return 1;
	if (n > SIGNFLIP_EXACT_MAX)
		return 2.0 / (PERM_RESAMPLES + 1);
	return n == 1 ? 1 : 2.0 / (double)((size_t)1 << n);
}

unsigned int
rxr_stats_signflip_min_rounds(double alpha)
{
	unsigned int n = 1;

	if (!(alpha > 0 && alpha < 1))
		return 0;
	while (n <= SIGNFLIP_EXACT_MAX &&
			!(rxr_stats_signflip_min_p(n) < alpha))
		n++;
	return n;
}

/* Smallest p of the permutation test of na against nb values. */
static double
perm_min_p(size_t na, size_t nb)
{
	if (na == 0 || nb == 0)
		return 1;
	if (na + nb <= PERM_EXACT_MAX)
		return fmin(1, 2.0 / binom(na + nb, na));
	if (na + nb <= PERM_MC_MAX)
		return 2.0 / (PERM_RESAMPLES + 1);
	return exp(log(2.0) - lgamma(na + nb + 1.0) + lgamma(na + 1.0) +
		lgamma(nb + 1.0));
}

/* The method that ran, by kind, size and scale: a static string. */
static const char *
method(bool paired, size_t na, size_t nb, bool ratio)
{
#define PAIRED(pre, post) { pre "mean difference" post, \
	pre "mean log-ratio" post }
#define SPLIT(pre, post) { pre "difference of means" post, \
	pre "difference of mean logs" post }
	static const char *const names[][2] = {
		PAIRED("exact sign-flip permutation test over paired rounds, ",
			" (all 2^n sign vectors)"),
		PAIRED("Monte Carlo sign-flip permutation test over paired "
			"rounds, ", " (" XSTR(PERM_RESAMPLES) " random sign "
			"vectors, fixed seed)"),
		SPLIT("exact permutation test, ", " (every split)"),
		SPLIT("Monte Carlo permutation test, ", " ("
			XSTR(PERM_RESAMPLES) " random splits, fixed seed)"),
		SPLIT("normal approximation of the permutation test, ", ""),
	};
#undef SPLIT
#undef PAIRED
	size_t kind = paired ? na > SIGNFLIP_EXACT_MAX :
		na + nb <= PERM_EXACT_MAX ? 2 :
		na + nb <= PERM_MC_MAX ? 3 : 4;

	return names[kind][ratio];
}

/* A ratio from its log, never past the largest double; NAN stays. */
static double
ratio_of(double logr)
{
	return isnan(logr) ? NAN : exp(fmin(logr, log(DBL_MAX)));
}

int
rxr_stats_compare(const double *x, size_t nx, const double *base,
		size_t nb, bool paired, bool diff, double alpha,
		struct rxr_stats_cmp *out)
{
	double *v = malloc((nx + nb + 1) * sizeof(*v));
	size_t na = 0, nbv = 0;
	bool ratio = !diff;
	int ret = -1;

	*out = (struct rxr_stats_cmp){ .paired = paired, .est = NAN,
		.lo = NAN, .hi = NAN, .p = NAN, .min_p = 1,
		.test = paired ? RXR_STATS_PAIRED_METHOD :
			RXR_STATS_UNPAIRED_METHOD };
	if (v == NULL || nx > RXR_STATS_MAX_N || nb > RXR_STATS_MAX_N ||
			(paired && nx != nb))
		goto out;
	/* v: the values of x used, then the base's (paired: in pairs). */
	for (size_t i = 0; i < nx; i++)
		if (isfinite(x[i]) && (!paired || isfinite(base[i])))
			v[na++] = x[i];
	for (size_t i = 0; i < nb; i++)
		if (isfinite(base[i]) && (!paired || isfinite(x[i])))
			v[na + nbv++] = base[i];
	for (size_t i = 0; i < na + nbv; i++)
		ratio &= v[i] > 0;
	/* Logs of each value, never of a ratio: 1e-300 against 1e300. */
	for (size_t i = 0; ratio && i < na + nbv; i++)
		v[i] = log(v[i]);
	out->ratio = ratio;
	out->n = (unsigned int)na;
	out->n_base = (unsigned int)nbv;
	if (na == 0 || nbv == 0)
		goto out;
	ret = 0;
	if (paired) {
		for (size_t i = 0; i < na; i++)
			v[i] -= v[na + i];
		out->est = rxr_stats_mean(v, na);
		out->min_p = rxr_stats_signflip_min_p(na);
	} else {
		out->est = rxr_stats_mean(v, na) - rxr_stats_mean(v + na, nbv);
		out->min_p = nbv >= 2 && na >= 2 ? perm_min_p(na, nbv) : 1;
	}
	if (na >= 2 && nbv >= 2) {
		out->test = method(paired, na, nbv, ratio);
		ret = shift_test(v, na, nbv, paired, alpha, out);
	}
	if (ratio) {
		out->est = ratio_of(out->est);
		out->lo = ratio_of(out->lo);
		out->hi = ratio_of(out->hi);
	}
out:
	free(v);
	return ret;
}
