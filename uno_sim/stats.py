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

    The normal interval of `mean_ci`, except where every unit scored the same 0
    or 1: a zero-width interval would claim certainty, so the Wilson interval of
    that many all-or-nothing trials is given instead.
    """
    m, lo, hi = mean_ci(values, z)
    if len(values) > 1 and lo == hi and m in (0.0, 1.0):
        lo, hi = wilson(m * len(values), len(values), z)
    return (m, lo, hi)
