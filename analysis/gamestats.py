"""Small numerical tools of the studies, on numpy and scipy.stats.

* `chi2_sf` / `chisquare_equal`: the chi-square test of equal shares
  (scipy.stats.chi2, scipy.stats.chisquare).
* `share_test`, `diff_test`: normal tests of a share against a value and of two
  shares against each other (statsmodels' `proportions_ztest`); `holm`: Holm's
  correction of a family of p-values (statsmodels' `multipletests`).
* `paired_ci`: mean and normal 95% interval of paired per-game differences
  (scipy.stats.sem).

statsmodels is imported by the functions that use it (the analysis extra), so
that importing the studies costs only SciPy's import.
"""

from __future__ import annotations

import math

import numpy as np

try:
    from scipy import stats
except ImportError:  # the studies' extra; `uno-sim run` never gets here
    from .errors import StudyError

    raise StudyError("the studies need scipy: pip install -e '.[analysis]' in the uno-sim "
                     "checkout") from None

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
    """Holm's step-down adjusted p-values for a family of tests (family-wise error rate):
    statsmodels' ``multipletests(method="holm")``.  NaN p-values stay NaN and do not
    count in the family's size."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = multipletests(p[ok], method="holm")[1]
    return out


def share_test(wins, n, p0: float) -> tuple[float, float]:
    """Two-sided score test that a share wins/n equals p0: (z, p-value).

    z = (wins/n - p0) / sqrt(p0 (1 - p0) / n), the variance under the null
    (statsmodels' ``proportions_ztest(wins, n, p0, prop_var=p0)``); `wins` may be
    fractional (shared wins).
    """
    from statsmodels.stats.proportion import proportions_ztest

    if n <= 0 or not 0 < p0 < 1:
        return (math.nan, math.nan)
    z, p = proportions_ztest(wins, n, value=p0, prop_var=p0)
    return float(z), float(p)


def diff_test(p1: float, n1: int, p2: float, n2: int) -> float:
    """Two-sided p-value of the pooled two-proportion z-test of p1 = p2 (statsmodels'
    ``proportions_ztest`` on the two counts)."""
    from statsmodels.stats.proportion import proportions_ztest

    if n1 <= 0 or n2 <= 0:
        return math.nan
    pool = (p1 * n1 + p2 * n2) / (n1 + n2)
    if not 0 < pool < 1:  # no spread under the null: both shares 0, or both 1
        return 1.0 if p1 == p2 else 0.0
    return float(proportions_ztest(np.array([p1 * n1, p2 * n2]), np.array([n1, n2]))[1])


def paired_ci(diffs, z: float = Z95) -> tuple[float, float, float]:
    """Mean of paired differences with its normal-approximation 95% interval."""
    d = np.asarray(diffs, dtype=float)
    if d.size == 0:
        return (math.nan, math.nan, math.nan)
    m = float(d.mean())
    if d.size == 1:
        return (m, math.nan, math.nan)
    half = z * float(stats.sem(d))
    return (m, m - half, m + half)
