"""The verdict tools of `uno_sim.analysis.verdict`: Holm intervals that agree with Holm's
test, the difference of two arms on common games, shares with honest intervals at 0,
ceilings and empty cells, the size that would settle a question, the designer's sentence."""

import math

import numpy as np
import pytest

pytest.importorskip("scipy")
pytest.importorskip("statsmodels")

from uno_sim.analysis import verdict  # noqa: E402
from uno_sim.analysis.counterfactual import clustered_se  # noqa: E402
from uno_sim.analysis.gamestats import holm  # noqa: E402


def test_holm_intervals_agree_with_holms_test(monkeypatch):
    """A value is rejected exactly when its Holm interval excludes 0, the adjusted p-values
    are Holm's (statsmodels, the same as gamestats.holm), and a corrected interval is never
    narrower than the plain 95% one."""
    import gc

    # multipletests runs gc.collect() per Holm call: in a test worker's full heap that cost
    # 36 s for these 25 families; collecting changes no number
    monkeypatch.setattr(gc, "collect", lambda *a: 0)
    rng = np.random.default_rng(1)
    for _ in range(25):
        m = int(rng.integers(1, 12))
        est = rng.normal(0, 1, m) * rng.choice([0.2, 1, 3], m)
        se = rng.uniform(0.3, 1.5, m)
        rows = verdict.holm_intervals(est, se)
        p = np.array([r["p"] for r in rows])
        assert np.allclose([r["p_holm"] for r in rows], holm(p))
        for r in rows:
            excludes = r["holm_low"] > 0 or r["holm_high"] < 0
            assert excludes == r["reject"], r
            assert r["holm_high"] - r["holm_low"] >= r["high"] - r["low"] - 1e-12
            assert r["reject"] == (r["p_holm"] < 0.05)


def test_a_value_without_spread_is_outside_the_family():
    rows = verdict.holm_intervals([0.0, -0.05, 0.01], [0.0, 0.01, math.nan])
    assert [r["family"] for r in rows] == [1, 1, 1]
    assert math.isnan(rows[0]["p_holm"]) and not rows[0]["reject"]
    assert rows[1]["reject"] and rows[1]["level"] == pytest.approx(0.05)


def test_the_difference_of_arms_on_common_games():
    """One point per game in each arm: the SE is that of the per-game differences; points
    of one game in both arms share a cluster (their common luck cancels)."""
    rng = np.random.default_rng(2)
    g = np.arange(400)
    luck = rng.normal(0, 1, g.size)
    a, b = luck + rng.normal(0, 0.1, g.size), luck + 0.3 + rng.normal(0, 0.1, g.size)
    d, se = verdict.arm_difference(b, g, a, g)
    assert d == pytest.approx(0.3, abs=0.03)
    assert se == pytest.approx(np.std(b - a, ddof=1) / math.sqrt(g.size), rel=1e-9)
    # with several points per game in one arm: the clustered SE of one arm when the other
    # is constant
    gb = np.repeat(np.arange(100), 3)
    vb = rng.normal(0, 1, gb.size) + np.repeat(rng.normal(0, 1, 100), 3)
    d, se = verdict.arm_difference(vb, gb, np.zeros(100), np.arange(100))
    assert se == pytest.approx(clustered_se(vb, gb), rel=1e-9)
    assert math.isnan(verdict.arm_difference([], [], a, g)[0])


def test_a_share_of_zero_has_an_upper_bound():
    """0 acts in 300 points: Wilson's upper bound 0.0126, not 0; clustering widens it."""
    share, lo, hi = verdict.share_interval(np.zeros(300), np.arange(300))
    assert (share, lo) == (0.0, 0.0) and hi == pytest.approx(0.01264, abs=1e-4)
    x = np.repeat([0, 1, 0, 0, 1], 60).astype(float)  # whole games act or not
    s1 = verdict.share_interval(x, np.repeat(np.arange(5), 60))
    s2 = verdict.share_interval(x, np.arange(300))
    assert s1[2] - s1[1] > 2 * (s2[2] - s2[1])


def test_ceilings_and_empty_cells_are_named():
    assert verdict.cell_state([], []) == "empty"
    assert verdict.cell_state([1, 1, 1], [1, 1, 1]) == "ceiling"
    assert verdict.cell_state([0, 0], [0, 0]) == "ceiling"
    assert verdict.cell_state([1, 0], [1, 0]) == "unchanged"  # no point changed its game
    assert verdict.cell_state([1, 1], [1, 0]) == "measured"


def test_games_to_settle():
    """At the size returned the interval at the family's level excludes 0 with 80% power:
    an estimate of 2 SE at 100 games settles at (z + z_power)^2 / 4 * 100."""
    from scipy import stats

    z = stats.norm.isf(0.025) + stats.norm.ppf(0.8)
    assert verdict.games_to_settle(0.02, 0.01, 100) == pytest.approx(100 * (z / 2) ** 2)
    assert verdict.games_to_settle(0.02, 0.01, 100, family=10) > \
        verdict.games_to_settle(0.02, 0.01, 100)
    assert verdict.games_to_settle(0.0, 0.01, 100) == math.inf
    assert verdict.round_size(12345.6) == "12,000"
    assert verdict.round_size(math.inf).startswith("no size")


def _row(v, lo, hi, reject, state="all", cell="measured"):
    return {"state": state, "value": v, "holm_low": lo, "holm_high": hi, "reject": reject,
            "cell": cell}


def test_advice_speaks_to_a_designer():
    card = "Wild Draw Four"
    neg = _row(-0.05, -0.08, -0.02, True)
    s = verdict.advice("bluff", card, "a strong player", "greedy", neg,
                       [_row(0.04, 0.01, 0.07, True, "1"), _row(-0.06, -0.09, -0.03, True, "6+")])
    assert s.startswith("a strong player should not bluff with a Wild Draw Four against greedy")
    assert "except when the next player holds 1 card, where it pays" in s
    s = verdict.advice("challenge", card, "X", "Y", _row(0.03, 0.01, 0.05, True), [])
    assert "X should challenge a Wild Draw Four against Y" in s and "gains" in s
    s = verdict.advice("bluff", card, "X", "Y", _row(0.01, -0.02, 0.04, False), [],
                       settle=12345.0)
    assert "not settled" in s and "12,000 games per arm would settle it" in s
    assert "ceiling" in verdict.advice("challenge", card, "X", "Y",
                                       _row(0.0, 0.0, 0.0, False, cell="ceiling"), [])
    assert "did the answer change who won" in verdict.advice(
        "challenge", card, "X", "Y", _row(0.0, math.nan, math.nan, False, cell="unchanged"), [])
    assert "no challenge decision point" in verdict.advice(
        "challenge", card, "X", "Y", _row(math.nan, math.nan, math.nan, False, cell="empty"),
        [])
