"""Interval estimates used by summaries and studies."""

from __future__ import annotations

import math

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
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = sum(values) / n
    if n == 1:
        return (m, math.nan, math.nan)
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return (m, m - half, m + half)


def share_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean and 95% interval of per-unit shares in [0, 1] (e.g. a seat's share per deal).

    A Wilson interval for the mean share at the effective sample size the observed
    spread implies, n_eff = m (1 - m) / se^2 with se the standard error of the mean
    (Kish's design effect): for 0/1 units it is the plain Wilson interval of n trials,
    for fractional units (a mean over seat rotations) it is as wide as their spread
    says, and it always stays inside [0, 1], unlike the normal interval near 0 and 1.
    Where the units do not vary (every one scored the same), the Wilson interval of n
    units is given rather than a zero-width interval that would claim certainty.
    """
    m, lo, hi = mean_ci(values, z)
    n = len(values)
    if n < 2:
        return (m, lo, hi)
    se = (hi - m) / z
    n_eff = m * (1 - m) / (se * se) if se > 0 and 0 < m < 1 else n
    lo, hi = wilson(m * n_eff, n_eff, z)
    return (m, lo, hi)
