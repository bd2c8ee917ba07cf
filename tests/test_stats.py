"""uno_sim.stats and the studies' tests against SciPy's and statsmodels' results for the
same methods: the closed forms of the runner must give the libraries' numbers."""

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import DescrStatsW

from uno_sim.stats import Z95, mean_ci, share_ci, wilson


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1_000, 123_457, 10**8])
def test_wilson_is_scipys_binomtest_interval(n):
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson(k, n) == pytest.approx((ci.low, ci.high), rel=1e-12, abs=1e-15)
    # another level through z: 99%
    z99 = stats.norm.ppf(0.995)
    ci = stats.binomtest(n // 3, n).proportion_ci(confidence_level=0.99, method="wilson")
    assert wilson(n // 3, n, z99) == pytest.approx((ci.low, ci.high), rel=1e-12, abs=1e-15)


def test_wilson_at_fractional_counts_is_statsmodels_interval():
    # shared wins count 1/k to each seat, and share_ci asks at an effective size
    for k, n in [(0.5, 3), (30.5, 100), (2.25, 7.5), (4999.5, 10_000.0)]:
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert wilson(k, n) == pytest.approx((lo, hi), rel=1e-12)
    assert wilson(0, 0) == (0.0, 1.0)  # nothing observed: every share is possible
    assert Z95 == pytest.approx(stats.norm.ppf(0.975), rel=1e-15)


def test_mean_ci_is_the_normal_interval_of_statsmodels():
    rng = np.random.default_rng(3)
    for x in (rng.normal(0.2, 1.0, 50), rng.integers(-1, 2, 1001).astype(float), [1.0, 4.0]):
        m, lo, hi = mean_ci(list(x))
        assert m == pytest.approx(np.mean(x), rel=1e-12)
        assert (lo, hi) == pytest.approx(DescrStatsW(np.asarray(x)).zconfint_mean(0.05),
                                         rel=1e-12, abs=1e-15)
    assert all(math.isnan(v) for v in mean_ci([]))
    m, lo, hi = mean_ci([0.25])
    assert m == 0.25 and math.isnan(lo) and math.isnan(hi)  # one unit: no spread known


def test_share_ci_is_statsmodels_wilson_interval_at_the_effective_size():
    # 0/1 units: the sample variance (n - 1) makes the effective size n - 1
    x = [1.0] * 37 + [0.0] * 63
    m, lo, hi = share_ci(x)
    assert m == pytest.approx(0.37)
    assert (lo, hi) == pytest.approx(proportion_confint(0.37 * 99, 99, method="wilson"),
                                     rel=1e-9)
    # fractional units: statsmodels' Wilson interval at n_eff = m (1 - m) / se^2
    y = np.random.default_rng(5).choice([0.0, 0.25, 0.5, 0.75, 1.0], 400)
    se = y.std(ddof=1) / math.sqrt(y.size)
    n_eff = y.mean() * (1 - y.mean()) / se**2
    m, lo, hi = share_ci(list(y))
    assert (lo, hi) == pytest.approx(
        proportion_confint(y.mean() * n_eff, n_eff, method="wilson"), rel=1e-9)
