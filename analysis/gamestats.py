"""Small numerical tools of the studies, on numpy and scipy.stats.

* `chi2_sf` / `chisquare_equal`: the chi-square test of equal shares
  (scipy.stats.chi2, scipy.stats.chisquare).
* `share_test`, `diff_test`: normal tests of a share against a value and of two
  shares against each other (scipy.stats.norm); `holm`: Holm's correction of a
  family of p-values.
* `paired_ci`: mean and normal 95% interval of paired per-game differences.
"""

from __future__ import annotations

import math

import numpy as np

try:
    from scipy import stats
except ImportError:  # the studies' extra; `uno-sim run` never gets here
    from .errors import StudyError

    raise StudyError("the studies need scipy: pip install 'uno-sim[analysis]'") from None

Z95 = float(stats.norm.ppf(0.975))  # the 95% two-sided normal quantile


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with `df` degrees of freedom (scipy.stats.chi2)."""
    if df < 1:
        raise ValueError(f"invalid df {df!r}: expected >= 1")
    return float(stats.chi2.sf(max(0.0, x), df))


def chisquare_equal(counts) -> tuple[float, int, float]:
    """Pearson's test that `counts` come from equal shares: (statistic, df, p-value).

    scipy.stats.chisquare; the counts may be fractional (a shared win counts
    1/k to each of its k seats).
    """
    obs = np.asarray(counts, dtype=float)
    k = obs.size
    if k < 2:
        raise ValueError("chi-square test needs at least two categories")
    if obs.sum() <= 0:
        return (math.nan, k - 1, math.nan)
    res = stats.chisquare(obs)
    return float(res.statistic), k - 1, float(res.pvalue)


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values for a family of tests (family-wise error rate).

    SciPy has only Benjamini-Hochberg/Yekutieli (`false_discovery_control`, which
    bound the false discovery rate, not the family-wise error rate), and
    statsmodels' `multipletests` is not a dependency, so the step-down is here:
    sort ascending, multiply the i-th smallest (from 0) by m - i, take the
    running maximum, cap at 1.  NaN p-values stay NaN and do not count in m.
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = order.size
    out[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    return out


def share_test(wins, n, p0: float) -> tuple[float, float]:
    """Two-sided score test that a share wins/n equals p0: (z, p-value).

    z = (wins/n - p0) / sqrt(p0 (1 - p0) / n), p = 2 P(Z > |z|) from
    scipy.stats.norm; `wins` may be fractional (shared wins).
    """
    if n <= 0 or not 0 < p0 < 1:
        return (math.nan, math.nan)
    z = (wins / n - p0) / math.sqrt(p0 * (1 - p0) / n)
    return z, float(2 * stats.norm.sf(abs(z)))


def diff_test(p1: float, n1: int, p2: float, n2: int) -> float:
    """Two-sided p-value of the pooled two-proportion z-test of p1 = p2 (scipy.stats.norm)."""
    if n1 <= 0 or n2 <= 0:
        return math.nan
    pool = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0 if p1 == p2 else 0.0
    return float(2 * stats.norm.sf(abs(p1 - p2) / se))


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
