#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reference values for test_stats.c, computed independently of lib/stats.

- permutation test: scipy.stats.permutation_test (Debian 12 python3-scipy
  1.10.1), independent samples, every permutation (n_resamples=inf),
  two-sided (scipy's definition: 2 * min of the one-sided p-values).
  The 40 + 40 case: 100000 random permutations (lib/stats uses its
  normal approximation there).
- describe: numpy mean, std(ddof=1), median; the 95% interval of the
  mean: scipy.stats.t.interval(0.95, n - 1, mean, sem).
- ties at large values: the same permutation test on 1e9 + {0..3}
  against 1e9 + {4..7}.
- sign-flip test over paired rounds: scipy.stats.permutation_test with
  permutation_type='samples' (each round's pair swapped or not, which
  flips the sign of its log-ratio), statistic mean(log(x / y)), every
  one of the 2^n arrangements (n_resamples=inf), two-sided; checked
  against a plain enumeration of the 2^n sign vectors (itertools). The
  24-round case: the plain enumeration only (2^24 vectors, numpy).
- ratio: exp(mean log-ratio). Its interval, the sign-flip test
  inverted, is checked in test_stats.c against a plain sign-flip test run
  at its ends.
Run: /usr/bin/python3 test/stats/reference.py
"""
import itertools
import numpy as np
import scipy
from scipy import stats

PERM = [
    ([1, 2, 3, 4], [5, 6, 7, 8]),
    ([1, 2, 3], [4, 5, 6]),
    ([1, 1, 2, 2, 3], [2, 3, 3, 4, 4]),
    ([31.2, 29.8, 33.0, 30.5, 32.1], [40.3, 38.9, 41.7, 39.5, 42.0, 37.2]),
    ([10.0, 12.5, 11.2, 9.8], [10.5, 11.9, 12.2, 10.1]),
    ([5.0, 5.0, 5.0], [5.0, 5.0, 5.0]),
    ([float(v) for v in range(11)], [float(v) + 2.5 for v in range(11)]),
]
DESC = [
    [1.0, 2.0, 4.0],
    [22.1, 24.6, 24.8, 19.6, 21.9],
    [31.2, 29.8, 33.0, 30.5, 32.1, 35.0, 28.4],
]

print("scipy", scipy.__version__)
for a, b in PERM:
    r = stats.permutation_test((a, b), lambda x, y: np.mean(x) - np.mean(y),
                               permutation_type='independent', vectorized=False,
                               n_resamples=np.inf, alternative='two-sided')
    print("perm", a, b, "%.10f" % r.pvalue)


for x in DESC:
    print("desc", x, "mean %.10f sd %.10f median %.10f" %
          (np.mean(x), np.std(x, ddof=1), np.median(x)))

# Large samples (normal approximation in lib/stats): scipy's randomized
# permutation test with many resamples.
rng = np.random.default_rng(7)
a = [10 + (i * 37 % 23) / 4 for i in range(40)]
b = [9.5 + (i * 53 % 29) / 4 for i in range(40)]
r = stats.permutation_test((a, b), lambda x, y: np.mean(x) - np.mean(y),
                           permutation_type='independent', vectorized=False,
                           n_resamples=100000, alternative='two-sided',
                           random_state=rng)
print("perm40", "%.4f" % r.pvalue)

# Ties judged at the data's spread, not at the values' size.
a = [1e9 + v for v in range(4)]
b = [1e9 + v for v in range(4, 8)]
r = stats.permutation_test((a, b), lambda x, y: np.mean(x) - np.mean(y),
                           permutation_type='independent', vectorized=False,
                           n_resamples=np.inf, alternative='two-sided')
print("perm1e9", "%.10f" % r.pvalue)

for x in DESC:
    n = len(x)
    lo, hi = stats.t.interval(0.95, n - 1, loc=np.mean(x),
                              scale=stats.sem(x))
    print("tci", x, "%.10f %.10f" % (lo, hi))

PAIRED = [
    # 8 rounds, the configuration below its base in every round.
    ([5.1, 11.2, 4.9, 12.0, 5.3, 10.8, 11.5, 4.7],
     [7.0, 15.1, 6.8, 16.3, 8.9, 14.0, 17.2, 7.9]),
    # 6 rounds, mixed signs.
    ([10.2, 9.1, 11.5, 8.7, 10.9, 9.8], [10.0, 9.5, 11.0, 9.0, 10.1, 10.2]),
    # 3 rounds: 2 / 2^3 = 0.25 at best.
    ([1.0, 2.0, 3.0], [1.1, 2.1, 3.3]),
    # 12 rounds, a block effect (each round's level) and a 10% shift
    # with noise.
    ([4.5, 9.2, 13.1, 5.6, 11.0, 6.8, 14.9, 5.1, 10.3, 7.7, 12.6, 8.8],
     [5.0, 10.3, 13.9, 6.4, 11.9, 7.2, 17.0, 5.4, 11.8, 8.1, 13.8, 10.1]),
]


def flip_enum(d):
    d = np.array(d)
    t = d.sum()
    tol = 1e-9 * len(d) * np.abs(d).max()
    le = ge = 0
    for s in itertools.product((1, -1), repeat=len(d)):
        ti = float(np.dot(s, d))
        le += ti <= t + tol
        ge += ti >= t - tol
    return min(1.0, 2 * min(le, ge) / 2 ** len(d))


for x, y in PAIRED:
    d = np.log(np.array(x) / np.array(y))
    r = stats.permutation_test((x, y),
                               lambda u, v: np.mean(np.log(u / v)),
                               permutation_type='samples', vectorized=False,
                               n_resamples=np.inf, alternative='two-sided')
    print("paired n %d p %.10f enum %.10f ratio %.10f" %
          (len(d), r.pvalue, flip_enum(d), np.exp(d.mean())))

# 24 rounds (Monte Carlo in lib/stats): the exact p by enumeration.
d = np.array([((i * 37) % 23 - 9) / 100.0 for i in range(24)])
signs = ((np.arange(2 ** 24)[:, None] >> np.arange(24)) & 1) * -2 + 1
tot = np.empty(2 ** 24)
for k in range(0, 2 ** 24, 2 ** 20):
    tot[k:k + 2 ** 20] = signs[k:k + 2 ** 20] @ d
t = d.sum()
tol = 1e-9 * 24 * np.abs(d).max()
p = 2 * min((tot <= t + tol).sum(), (tot >= t - tol).sum()) / 2 ** 24
print("flip24", list(d), "%.10f" % min(p, 1))
