"""Small numerical tools of the studies, written with numpy and math only.

* `chi2_sf` / `chisquare_equal`: the chi-square test of equal shares.  The
  p-value is the regularized upper incomplete gamma function Q(k/2, x/2),
  computed by its power series below a + 1 and by Lentz's continued fraction
  above (Numerical Recipes 6.2), to about 1e-14 relative accuracy.
* `paired_ci`: mean and normal 95% interval of paired per-game differences.
"""

from __future__ import annotations

import math

import numpy as np

from uno_sim.stats import Z95

_EPS = 1e-15
_TINY = 1e-300


def gammaincc(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a), a > 0, x >= 0."""
    if a <= 0:
        raise ValueError(f"invalid a {a!r}: expected a > 0")
    if x < 0:
        raise ValueError(f"invalid x {x!r}: expected x >= 0")
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    log_pre = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        # P(a, x) = x^a e^-x / Gamma(a+1) * sum_n x^n / ((a+1)...(a+n))
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * _EPS:
                break
        return max(0.0, 1.0 - total * math.exp(log_pre))
    # Q(a, x) = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1(1-a)/(x + 3 - a - ...)), modified Lentz
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPS:
            break
    return min(1.0, math.exp(log_pre) * h)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with `df` degrees of freedom."""
    if df < 1:
        raise ValueError(f"invalid df {df!r}: expected >= 1")
    return gammaincc(df / 2, max(0.0, x) / 2)


def chisquare_equal(counts) -> tuple[float, int, float]:
    """Pearson's test that `counts` come from equal shares: (statistic, df, p-value)."""
    obs = np.asarray(counts, dtype=float)
    k = obs.size
    if k < 2:
        raise ValueError("chi-square test needs at least two categories")
    expected = obs.sum() / k
    if expected <= 0:
        return (math.nan, k - 1, math.nan)
    stat = float(((obs - expected) ** 2 / expected).sum())
    return stat, k - 1, chi2_sf(stat, k - 1)


def paired_ci(diffs, z: float = Z95) -> tuple[float, float, float]:
    """Mean of paired differences with its normal-approximation 95% interval."""
    d = np.asarray(diffs, dtype=float)
    if d.size == 0:
        return (math.nan, math.nan, math.nan)
    m = float(d.mean())
    if d.size == 1:
        return (m, math.nan, math.nan)
    half = z * float(d.std(ddof=1)) / math.sqrt(d.size)
    return (m, m - half, m + half)
