#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reference values for test_stats.c, computed independently of lib/stats.

- permutation test: scipy.stats.permutation_test (Debian 12 python3-scipy
  1.10.1), independent samples, every permutation (n_resamples=inf),
  two-sided (scipy's definition: 2 * min of the one-sided p-values).
  The 40 + 40 case: 100000 random permutations (lib/stats uses its
  normal approximation there).
- bootstrap interval: brute force over all n^n ordered resamples
  (itertools.product), not the multiset enumeration lib/stats uses.
- describe: numpy mean, std(ddof=1), median.
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
BOOT = [
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


def boot(x, level=0.95):
    n = len(x)
    means = np.array([sum(c) / n for c in itertools.product(x, repeat=n)])
    means.sort()
    cum = np.arange(1, len(means) + 1) / len(means)
    lo = means[np.argmax(cum >= (1 - level) / 2 - 1e-12)]
    hi = means[np.argmax(cum >= (1 + level) / 2 - 1e-12)]
    return lo, hi


for x in BOOT:
    lo, hi = boot(x)
    print("boot", x, "mean %.10f sd %.10f median %.10f ci %.10f %.10f" %
          (np.mean(x), np.std(x, ddof=1), np.median(x), lo, hi))

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
