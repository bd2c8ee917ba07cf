"""The control variates of `uno_sim.analysis.luck` (AIVAT at the later rounds' deals) and
what they stand on: the round rows of a forced game, and the counterfactual values read
from the game itself for the alternative the policy chose.

What is checked: the forced game's round rows are the rounds uno_play_games writes for that
game; the values with the natural alternative read from the game equal those with both
alternatives replayed; the correction has mean 0 for each alternative (an unbiased
estimator on the same games as the plain one), a deliberately wrong expectation is caught
by the same check, and the variance falls (a ratio with its bootstrap interval below 1).
"""

import math

import numpy as np
import pytest

pytest.importorskip("scipy")

from uno_sim.analysis import luck  # noqa: E402
from uno_sim.analysis.counterfactual import clustered_se  # noqa: E402
from uno_sim.counterfactual import _chunk, decision_values  # noqa: E402
from uno_sim.engine import _setup  # noqa: E402
from uno_sim.rng import key_from_seed  # noqa: E402
from uno_sim.rules import Rules  # noqa: E402

POOLS = (1000, 1000)


def test_forced_round_rows_are_the_games_rounds():
    _, _, eng = _setup(Rules(players=3), ["greedy", "strategic", "greedy(bluff=1)"])
    key = key_from_seed(4)
    for game in range(3):
        res, f, rows = eng.play_forced_rounds(key, game, 0, 0)
        res2, f2, _ = eng.play_forced(key, game, 0, 0)
        assert (res, f) == (res2, f2)
        cols, _ = eng.play_games(key, game, 1, rounds=True)
        for name in ("round", "dealer", "winner", "points"):
            col = "round_" if name == "round" else f"round_{name}"
            assert np.array_equal(rows[name], cols[col]), name
        assert rows["points"].sum(axis=0).tolist() == res["scores"]


@pytest.mark.parametrize("pols,seat,kind", [
    (["greedy", "greedy"], 0, 0),
    (["greedy(bluff=1)", "strategic"], 1, 1),
    (["greedy"] * 4, 0, 0),
    (["pimc(samples=1,rollouts=1)", "greedy"], 0, 0),
])
def test_the_natural_alternative_read_from_the_game_equals_its_replay(pols, seat, kind):
    """C7, C12: the engine forced to the policy's own answer plays the game as it was
    played, so reading that alternative from the game changes no row."""
    rules = Rules(players=len(pols))
    a = _chunk(rules, pols, seat, kind, 7, range(4), 1, True, False)
    b = _chunk(rules, pols, seat, kind, 7, range(4), 1, True, True)
    assert len(a["game"]) > 10
    assert a == b


def _frame(kind="bluff", pols=("greedy", "greedy"), games=150, seed=3, every=1):
    seat = 0 if kind == "bluff" else 1
    return decision_values(kind, variant="classic", players=len(pols), policies=list(pols),
                           seat=seat, games=games, seed=seed, every=every, rounds=True)


def _z_mean(frame, m, alt):
    """The mean correction of one alternative with its 99.9% interval clustered by game."""
    z = luck.terms(m, frame[f"later_{alt}"].to_list(), frame["game"].to_numpy(),
                   frame["round"].to_numpy() + 1).mean(axis=1)
    half = 3.29 * clustered_se(z, frame["game"].to_numpy())
    return float(z.mean()), half


def test_the_correction_has_mean_zero_and_a_wrong_expectation_is_caught():
    """AIVAT's terms have expectation 0 under the true deal distribution: each
    alternative's correction covers 0 (99.9% interval, fixed seed); an expectation taken
    over the rounds the focal seat won (a wrong distribution) is clearly off."""
    f = _frame()
    m = luck.model("classic", 2, 0, ["greedy", "greedy"], seed=3, pool_games=POOLS)
    assert m.mode == "own"
    for alt in (0, 1):
        mean, half = _z_mean(f, m, alt)
        assert abs(mean) < half, (alt, mean, half)
    bad = luck.model("classic", 2, 0, ["greedy", "greedy"], seed=3, pool_games=POOLS)
    cols = luck._rounds("classic", 2, ["greedy", "greedy"], POOLS[1], 3 + 2 * luck.POOL_SEED)
    won = cols["round_winner"] == 0
    bad.F = luck._expectations({k: v[won] if k.startswith("round_") else v
                                for k, v in cols.items()}, bad)
    mean, half = _z_mean(f, bad, 0)
    assert mean < -half, (mean, half)


def test_the_variance_falls_and_the_value_stays():
    """Classic, 2 players, greedy's bluffs: the control variate's value lies within the
    plain one's interval, and the ratio of their clustered variances (bootstrap interval)
    is well below 1."""
    f = _frame(games=200, every=2)
    a = luck.adjust(f, luck.model("classic", 2, 0, ["greedy", "greedy"], seed=3,
                                  pool_games=POOLS))
    d = (a["raw_game_win_1"] - a["raw_game_win_0"]).to_numpy()
    y = (a["game_win_1"] - a["game_win_0"]).to_numpy()
    g = a["game"].to_numpy()
    se_d, se_y = clustered_se(d, g), clustered_se(y, g)
    assert abs(y.mean() - d.mean()) < 2.58 * se_d
    ratio, low, high = luck.variance_ratio(a, n_resamples=300)
    assert ratio == pytest.approx((se_y / se_d) ** 2)
    assert low < ratio < high < 0.5, (ratio, low, high)
    assert 0 <= luck.pool_se(a) < 0.1 * se_y


def test_a_seat_that_reads_the_scores_takes_its_rounds_replayed_from_zero():
    """A search player valuing by the game-win table reads the scores: its control variate
    replays each later round (the same deal and streams) from scores of 0, which for a
    seat blind to the scores is the round itself."""
    assert not luck.score_blind("pimc(samples=1,rollouts=1)")
    assert luck.score_blind("greedy(bluff=1)") and luck.score_blind("strategic")
    pols = ["pimc(samples=1,rollouts=1)", "greedy"]
    f = _frame(pols=pols, games=6, every=3)
    m = luck.model("classic", 2, 0, pols, seed=3, replay_rounds=300)
    assert m.mode == "replay" and m.pool_rounds == 200
    a = luck.adjust(f, m)
    assert np.isfinite(a["game_win_1"].to_numpy()).all()
    assert {g for g, _ in m.replays} == set(f["game"].to_list())
    # the same rounds replayed for a blind table equal the game's own: own and replay agree
    g = _frame(games=8, every=2)
    own = luck.model("classic", 2, 0, ["greedy", "greedy"], seed=3, pool_games=POOLS)
    rep = luck.model("classic", 2, 0, ["greedy", "greedy"], seed=3, replay=True,
                     replay_rounds=300)
    rep.T, rep.F = own.T, own.F
    assert np.allclose(luck.adjust(g, own)["luck"], luck.adjust(g, rep)["luck"])


def test_other_scorings_have_no_control_variate():
    assert luck.model("classic", 2, 0, ["greedy"] * 2, pool_games=POOLS) is not None
    from uno_sim.rules import Rules as R

    assert not luck.supported(R(players=2, scoring="elimination"))
    a = luck.adjust(_frame(games=3), None)
    assert (a["luck"] == 0).all() and a["game_win_1"].equals(a["raw_game_win_1"])


@pytest.mark.slow
def test_the_correction_is_unbiased_over_many_seeds():
    """Over 20 seeds (60 games each, classic at 2 players): the per-seed mean corrections
    of alternative 1 have an overall mean whose 99% interval covers 0, and their 95%
    intervals cover 0 about 95% of the time (a binomial test does not reject)."""
    from scipy import stats

    means, covered = [], 0
    for seed in range(20):
        f = _frame(games=60, seed=100 + seed, every=2)
        m = luck.model("classic", 2, 0, ["greedy", "greedy"], seed=100 + seed,
                       pool_games=POOLS)
        z = luck.terms(m, f["later_1"].to_list(), f["game"].to_numpy(),
                       f["round"].to_numpy() + 1).mean(axis=1)
        se = clustered_se(z, f["game"].to_numpy())
        means.append(z.mean())
        covered += abs(z.mean()) < 1.96 * se
    means = np.array(means)
    assert abs(means.mean()) < 2.58 * means.std(ddof=1) / math.sqrt(len(means))
    assert stats.binomtest(covered, len(means), 0.95).pvalue > 0.01, covered
