"""The zero-sum solver on games with known solutions, the double oracle against the LP of
the full matrix, the bootstrap on distributions whose answer is known, and the paired
analysis of counterfactual decision values on synthetic frames with known effects."""

import math

import numpy as np
import polars as pl
import pytest

from uno_sim.analysis.equilibrium import (bootstrap, bootstrap_stat, double_oracle, percentile_interval,
                                  resample_indices, solve_zero_sum)


def _check_optimal(a, x, y, v):
    a = np.asarray(a, float)
    assert x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1)
    assert (x >= -1e-12).all() and (y >= -1e-12).all()
    assert (x @ a).min() == pytest.approx(v, abs=1e-9)  # x guarantees at least v
    assert (a @ y).max() == pytest.approx(v, abs=1e-9)  # y concedes at most v


# --- solver ---------------------------------------------------------------------

def test_matching_pennies():
    a = [[1, -1], [-1, 1]]
    x, y, v = solve_zero_sum(a)
    assert v == pytest.approx(0, abs=1e-12)
    assert x == pytest.approx([0.5, 0.5]) and y == pytest.approx([0.5, 0.5])
    _check_optimal(a, x, y, v)


def test_rock_paper_scissors():
    a = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    x, y, v = solve_zero_sum(a)
    assert v == pytest.approx(0, abs=1e-12)
    assert x == pytest.approx([1 / 3] * 3) and y == pytest.approx([1 / 3] * 3)


def test_dominated_strategies_give_a_saddle_point():
    a = [[3, 1, 4], [2, 0, 3], [1, -1, 2]]  # row 0 dominates; column 1 dominates for the minimizer
    x, y, v = solve_zero_sum(a)
    assert v == pytest.approx(1)
    assert x == pytest.approx([1, 0, 0]) and y == pytest.approx([0, 1, 0])


def test_two_by_two_mixed_solution():
    a = [[2, -1], [-1, 1]]  # v = (ad - bc) / (a + d - b - c) = 1/5, x = (2/5, 3/5)
    x, y, v = solve_zero_sum(a)
    assert v == pytest.approx(0.2)
    assert x == pytest.approx([0.4, 0.6]) and y == pytest.approx([0.4, 0.6])


def test_rectangular_game_with_a_shift():
    # adding a constant shifts the value and keeps the strategies
    a = np.array([[2.0, -1.0], [-1.0, 1.0], [-3.0, -3.0]]) + 7
    x, y, v = solve_zero_sum(a)
    assert v == pytest.approx(7.2)
    assert x == pytest.approx([0.4, 0.6, 0]) and y == pytest.approx([0.4, 0.6])


@pytest.mark.parametrize("seed", range(8))
def test_random_games_are_solved_optimally(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(rng.integers(1, 9), rng.integers(1, 9)))
    _check_optimal(a, *solve_zero_sum(a))


@pytest.mark.parametrize("bad", [[[1.0, math.nan]], [], [1.0, 2.0], [[math.inf]]])
def test_solver_rejects_bad_input(bad):
    with pytest.raises(ValueError, match="payoff matrix"):
        solve_zero_sum(bad)


# --- double oracle ----------------------------------------------------------------

def _oracle(matrix, games=1, noise=None):
    """An oracle over strategy names 'r{i}' x 'c{j}' with per-game payoffs matrix + noise."""
    calls = []

    def oracle(r, c):
        calls.append((r, c))
        base = matrix[int(r[1:]), int(c[1:])]
        return base + (noise if noise is not None else np.zeros(games))
    return oracle, calls


@pytest.mark.parametrize("seed", range(10))
def test_double_oracle_reaches_the_lp_value_of_the_full_matrix(seed):
    rng = np.random.default_rng(100 + seed)
    m, n = rng.integers(2, 12, size=2)
    a = rng.normal(size=(m, n))
    rows, cols = [f"r{i}" for i in range(m)], [f"c{j}" for j in range(n)]
    oracle, calls = _oracle(a)
    res = double_oracle(oracle, rows, cols)
    _, _, v = solve_zero_sum(a)
    assert res.value == pytest.approx(v, abs=1e-7)
    assert len(calls) == len(set(calls))  # each pair evaluated once
    # the restricted solution is an equilibrium of the full game
    x = np.zeros(m)
    y = np.zeros(n)
    for r, w in zip(res.rows, res.row_mix):
        x[rows.index(r)] = w
    for c, w in zip(res.cols, res.col_mix):
        y[cols.index(c)] = w
    _check_optimal(a, x, y, v)
    assert set(res.support("row")) <= set(res.rows)


def test_double_oracle_finds_a_pure_equilibrium_without_evaluating_everything():
    # a saddle point at (r3, c0) in a 6 x 6 game: the method stops long before 36 pairs
    a = np.full((6, 6), 0.5)
    a[3, :] = 0.8
    a[:, 0] = 0.2
    a[3, 0] = 0.4
    oracle, calls = _oracle(a)
    res = double_oracle(oracle, [f"r{i}" for i in range(6)], [f"c{j}" for j in range(6)])
    assert res.value == pytest.approx(0.4)
    assert res.support("row") == {"r3": pytest.approx(1)}
    assert res.support("col") == {"c0": pytest.approx(1)}
    assert len(calls) < 36 and set(res.pairs) == set(calls)


def test_double_oracle_checks_its_input():
    oracle, _ = _oracle(np.eye(2))
    with pytest.raises(ValueError, match="r9"):
        double_oracle(oracle, ["r0", "r1"], ["c0", "c1"], start_rows=["r9"])
    with pytest.raises(ValueError, match="twice"):
        double_oracle(oracle, ["r0", "r0"], ["c0"])
    with pytest.raises(ValueError, match="games"):
        double_oracle(lambda r, c: np.zeros(3 if r == "r0" else 4), ["r0", "r1"], ["c0"],
                      start_rows=["r0", "r1"])


# --- bootstrap --------------------------------------------------------------------

def test_resample_indices_are_seeded():
    a = resample_indices(50, 3, seed=4)
    assert a.shape == (3, 50) and a.min() >= 0 and a.max() < 50
    assert (a == resample_indices(50, 3, seed=4)).all()
    assert not (a == resample_indices(50, 3, seed=5)).all()


def test_bootstrap_mean_of_a_normal_sample_matches_the_normal_interval():
    x = np.random.default_rng(7).normal(3.0, 2.0, size=2000)
    got = bootstrap_stat({"x": x}, lambda s: float(s["x"].mean()), n_boot=2000, seed=1)
    m, lo, hi = got["value"]
    se = x.std(ddof=1) / math.sqrt(x.size)
    assert m == pytest.approx(x.mean())
    assert lo == pytest.approx(m - 1.96 * se, abs=0.2 * se)
    assert hi == pytest.approx(m + 1.96 * se, abs=0.2 * se)


def test_bootstrap_interval_covers_the_true_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(11)
    hits = 0
    trials = 300
    for t in range(trials):
        x = rng.normal(0.0, 1.0, size=60)
        _, lo, hi = bootstrap_stat({"x": x}, lambda s: float(s["x"].mean()), n_boot=300,
                                   seed=t)["value"]
        hits += lo <= 0.0 <= hi
    # percentile intervals at n = 60 under-cover slightly; 95% +- 3.5 binomial sd
    assert 0.88 <= hits / trials <= 0.985


def test_bootstrap_stat_rejects_unpaired_samples():
    with pytest.raises(ValueError, match="lengths"):
        bootstrap_stat({"a": np.zeros(3), "b": np.zeros(4)}, lambda s: 0.0)


def test_percentile_interval():
    assert percentile_interval(np.arange(101), 0.9) == (pytest.approx(5.0), pytest.approx(95.0))
    assert all(math.isnan(v) for v in percentile_interval([math.nan]))


def _game_pairs(a, games, seed, sd=1.0):
    """Per-game payoffs a[i, j] + a shared per-game shock + independent noise."""
    rng = np.random.default_rng(seed)
    shock = rng.normal(0, sd, size=games)
    return {(f"r{i}", f"c{j}"): a[i, j] + shock + rng.normal(0, 0.2 * sd, size=games)
            for i in range(a.shape[0]) for j in range(a.shape[1])}


def test_bootstrap_of_a_game_brackets_the_solution():
    a = np.array([[0.6, 0.3], [0.4, 0.5]])  # v = 0.45, x = (0.25, 0.75), y = (0.5, 0.5)
    rows, cols = ["r0", "r1"], ["c0", "c1"]
    pairs = _game_pairs(a, 4000, 3)
    res = bootstrap(pairs, rows, cols, n_boot=300, seed=2,
                    derived=lambda mean, v: {"gap": mean("r0", "c0") - mean("r1", "c0")})
    v, lo, hi = res.value
    assert lo < 0.45 < hi and lo < v < hi
    assert res.row_mix["r0"][1] < 0.25 < res.row_mix["r0"][2]
    assert res.col_mix["c0"][1] < 0.5 < res.col_mix["c0"][2]
    # against c0 the best row is r0 (0.6 vs 0.4), far beyond the noise
    assert res.row_br["c0"] == {"r0": 1.0} and res.col_br["r0"] == {"c1": 1.0}
    g, glo, ghi = res.derived["gap"]
    assert glo < 0.2 < ghi
    # joint resampling: the shared per-game shock cancels in the gap, so its interval is
    # much narrower than an interval of one arm's mean
    assert ghi - glo < 0.5 * (hi - lo)


def test_bootstrap_joint_resampling_cancels_shared_noise():
    a = np.array([[0.5, 0.5], [0.5, 0.5]])
    pairs = _game_pairs(a, 1000, 9, sd=1.0)
    res = bootstrap(pairs, ["r0", "r1"], ["c0", "c1"], n_boot=200, seed=0,
                    derived=lambda mean, v: {"d": mean("r0", "c0") - mean("r1", "c0"),
                                          "m": mean("r0", "c0")})
    width_d = res.derived["d"][2] - res.derived["d"][1]
    width_m = res.derived["m"][2] - res.derived["m"][1]
    # independent resampling would give width_d ~ 1.4 x width_m; jointly it is ~0.28 x
    assert width_d < 0.5 * width_m


def test_bootstrap_resamples_the_games_of_resample_indices_for_every_arm():
    # scipy.stats.bootstrap (paired) draws what resample_indices draws: each resample's
    # mean matrix is that of the same games for every arm, re-solved
    a = np.array([[0.6, 0.3, 0.5], [0.4, 0.5, 0.45]])
    rows, cols = ["r0", "r1"], ["c0", "c1", "c2"]
    pairs = _game_pairs(a, 60, 4)
    res = bootstrap(pairs, rows, cols, n_boot=40, seed=7)
    idx = resample_indices(60, 40, seed=7)
    for b in range(40):
        m = np.array([[pairs[(r, c)][idx[b]].mean() for c in cols] for r in rows])
        x, y, v = solve_zero_sum(m)
        assert res.draws["value"][b] == pytest.approx(v, abs=1e-12)
        assert res.draws["row_mix"][b] == pytest.approx(x, abs=1e-9)
        assert res.draws["col_mix"][b] == pytest.approx(y, abs=1e-9)
    assert res.value[1:] == pytest.approx(percentile_interval(res.draws["value"]))
    assert sum(res.row_br["c0"].values()) == pytest.approx(1.0)


def test_bootstrap_needs_every_pair():
    with pytest.raises(ValueError, match="r1"):
        bootstrap({("r0", "c0"): np.zeros(3)}, ["r0", "r1"], ["c0"])


# --- counterfactual decision values (synthetic frames) -------------------------------

def _decisions(n_games=400, seed=0, effect=lambda size: 0.1 * (2 - size), truth=False):
    """One to three decision points per game; outcome under alt 0 is a shared per-game
    level plus noise, alt 1 adds effect(other_size) (challenge frames: +0.3 on a bluff,
    -0.1 on a legal card)."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_games):
        level = rng.normal()
        for point in range(int(rng.integers(1, 4))):
            size = int(rng.integers(1, 9))
            t = int(rng.random() < 0.3)
            base = level + rng.normal(0, 0.1)
            eff = (0.3 if t else -0.1) if truth else effect(size)
            row = {"game": g, "point": point, "variant": "classic", "players": 2,
                   "other_size": size, "own_size": 3, "natural": 0, "truth": t}
            for m in ("round_win", "points", "game_win"):
                row[f"{m}_0"] = base
                row[f"{m}_1"] = base + eff + rng.normal(0, 0.05)
            rows.append(row)
    return pl.DataFrame(rows)


def test_clustered_se_reduces_to_the_plain_se_with_one_point_per_game():
    from uno_sim.analysis.counterfactual import clustered_se

    x = np.random.default_rng(1).normal(size=200)
    assert clustered_se(x, np.arange(200)) == pytest.approx(x.std(ddof=1) / math.sqrt(200))
    # two identical copies of every point: the clustered SE is the SE of the 200 games
    xx = np.repeat(x, 2)
    assert clustered_se(xx, np.repeat(np.arange(200), 2)) == \
        pytest.approx(x.std(ddof=1) / math.sqrt(200))
    assert math.isnan(clustered_se([1.0], [0]))


def test_decision_effects_recover_the_effect_by_state_and_pairing_pays():
    from uno_sim.analysis.counterfactual import by_state, decision_effects

    f = _decisions()
    overall = decision_effects(f).row(0, named=True)
    assert overall["points"] == f.height and overall["games"] == 400
    # the shared per-game level cancels in the paired difference only
    assert overall["vr_game_win"] > 50
    assert overall["se_unpaired_game_win"] > 5 * overall["se_game_win"]
    st = by_state(f, "other_size", min_points=10)
    assert st["other_size"].to_list() == ["1", "2", "3", "4", "5", "6+"]
    for r in st.iter_rows(named=True):
        size = 6.5 if r["other_size"] == "6+" else int(r["other_size"])
        if size < 6:
            assert r["d_game_win_low"] < 0.1 * (2 - size) < r["d_game_win_high"]
    one = st.filter(pl.col("other_size") == "1").row(0, named=True)
    assert one["d_points_low"] > 0  # bluffing into a 1-card hand gains in this frame
    with pytest.raises(Exception, match="points_1"):
        decision_effects(f.drop("points_1"))


def test_break_even_posterior_recovers_the_known_threshold():
    from uno_sim.analysis.counterfactual import break_even_posterior

    f = _decisions(n_games=600, truth=True)
    r = break_even_posterior(f, n_boot=300).row(0, named=True)
    # V1 = 0.3, V0 = -0.1: p* = 0.1 / 0.4 = 0.25
    assert r["v1"] == pytest.approx(0.3, abs=0.01) and r["v0"] == pytest.approx(-0.1, abs=0.01)
    assert r["p_star_low"] < 0.25 < r["p_star_high"]
    assert r["p_star_high"] - r["p_star_low"] < 0.05
    assert r["bluffs"] + r["legal"] == f.height
    # too few bluffs in a group: left out
    assert break_even_posterior(f.head(30), min_each=20).is_empty()


def test_bootstrap_of_one_game_repeats_it():
    # one game: every resample is that game (a study of one game runs, with no spread)
    a = np.array([[0.6, 0.3], [0.4, 0.5]])
    pairs = {k: v[:1] for k, v in _game_pairs(a, 5, 1).items()}
    res = bootstrap(pairs, ["r0", "r1"], ["c0", "c1"], n_boot=7, seed=3)
    v, lo, hi = res.value
    assert lo == hi == v and res.draws["value"].shape == (7,)
