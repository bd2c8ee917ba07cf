"""Interval estimates used by summaries and studies.

Each is the textbook closed form, pinned in tests/test_stats.py to SciPy's and
statsmodels' results for the same method (``scipy.stats.binomtest(k, n)
.proportion_ci(method="wilson")``, statsmodels' ``proportion_confint(method=
"wilson")`` and ``DescrStatsW.zconfint_mean``).  They are not computed by those
libraries at run time: every ``uno-sim run`` prints Wilson intervals, and
importing ``scipy.stats`` costs about four times the whole runner's import (1.3
against 0.3 CPU-seconds, measured on the shared 2-core test machine); and
`share_ci` needs the Wilson interval at a fractional effective sample size, which
``binomtest`` refuses (it takes whole counts).
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and keeps its
    coverage near 0 and 1, where seat shares of lopsided variants live.
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal-approximation 95% interval of a sample."""
    v = np.asarray(values, dtype=float)
    n = v.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(v.mean())
    if n == 1:
        return (m, math.nan, math.nan)
    half = z * math.sqrt(float(v.var(ddof=1)) / n)
    return (m, m - half, m + half)


def share_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean and 95% interval of per-unit shares in [0, 1] (e.g. a seat's share per deal).

    A Wilson interval for the mean share at the effective sample size the observed
    spread implies, n_eff = m (1 - m) / se^2 with se the standard error of the mean
    (Kish's design effect): for 0/1 units it is the Wilson interval of n - 1 trials
    (the sample variance's n - 1), for fractional units (a mean over seat rotations)
    it is as wide as their spread says, and it always stays inside [0, 1], unlike the
    normal interval near 0 and 1.  Where the units do not vary (every one scored the
    same), the Wilson interval of n units is given rather than a zero-width interval
    that would claim certainty.
    """
    m, lo, hi = mean_ci(values, z)
    n = len(values)
    if n < 2:
        return (m, lo, hi)
    se = (hi - m) / z
    n_eff = m * (1 - m) / (se * se) if se > 0 and 0 < m < 1 else n
    lo, hi = wilson(m * n_eff, n_eff, z)
    return (m, lo, hi)
