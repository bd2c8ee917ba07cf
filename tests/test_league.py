"""The rated league (uno_sim.league, `uno-sim league`): the Bradley-Terry fit, the ratings
of a tiny league, the same results at any number of workers, its folder, bad input."""

import json
import math

import numpy as np
import pytest

from uno_sim.cli import main
from uno_sim.league import (DEFAULT_LEAGUE, ELO, LEAGUE_FILES, LeagueError, PairStats,
                            default_players, fit_bradley_terry, play_league, rate)

TINY = dict(variants=["classic"], player_counts=[2], deals=30, bootstrap=100, seed=3)


def _synthetic(theta, deals, rng, offset=None):
    i, j = np.triu_indices(len(theta), 1)
    off = np.zeros(len(i)) if offset is None else offset(i, j)
    p = 1 / (1 + np.exp(-(theta[i] - theta[j] + off)))
    return i, j, rng.binomial(deals, p).astype(float), np.full(len(i), float(deals)), off


def test_bradley_terry_fit_recovers_known_strengths():
    theta = np.array([0.0, 0.8, -0.5, 1.5, -1.2])  # logits, player 0 the anchor
    i, j, wins, n, _ = _synthetic(theta, 20_000, np.random.default_rng(1))
    fit = fit_bradley_terry(5, i, j, wins, n, anchor=0)
    assert fit[0] == 0.0
    # each pairing has 20,000 deals: the standard error of a strength is about 0.015
    assert np.abs(fit - theta).max() < 0.06, fit


def test_bradley_terry_fit_takes_the_seat_offset_and_the_anchor():
    # at an odd player count A holds more seats: P = logistic(tA - tB + logit(even))
    theta = np.array([0.3, -0.4, 0.0, 1.0])
    offset = (lambda i, j: np.full(len(i), math.log(2)))  # even share 2/3
    i, j, wins, n, off = _synthetic(theta, 20_000, np.random.default_rng(2), offset)
    fit = fit_bradley_terry(4, i, j, wins, n, anchor=2, offset=off)
    assert fit[2] == 0.0
    assert np.abs(fit - theta).max() < 0.06, fit
    # ignoring the offset credits the A side (the lower index) with the seat advantage
    naive = fit_bradley_terry(4, i, j, wins, n, anchor=2)
    assert naive[0] - naive[3] > fit[0] - fit[3] + 0.3


def test_bradley_terry_refuses_more_wins_than_deals():
    with pytest.raises(LeagueError, match="wins"):
        fit_bradley_terry(2, [0], [1], [3.0], [2.0])


def test_bradley_terry_a_one_sided_pairing_stays_finite():
    # B never wins: without the virtual draw the maximum would lie at infinity
    fit = fit_bradley_terry(2, [0], [1], [500.0], [500.0], anchor=1)
    assert math.isfinite(fit[0]) and fit[0] == pytest.approx(math.log(500.5 / 0.5), rel=1e-6)


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_true_strengths():
    # 3 players, known strengths; per-deal scores 0, 1/2 or 1 (two rotations) from them
    theta = np.array([0.0, 0.4, -0.3])
    rng = np.random.default_rng(5)
    hits, trials = 0, 80
    for _ in range(trials):
        pairs = []
        for a, b in ((0, 1), (0, 2), (1, 2)):
            p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
            score = rng.binomial(2, p, 150) / 2
            vals, counts = np.unique(score, return_counts=True)
            pairs.append(PairStats(a, b, vals, counts, 0.5))
        _, low, high = rate(["a", "b", "c"], pairs, 0, 200, rng)
        hits += bool(low[1] <= theta[1] * ELO <= high[1])
    # 95% nominal; 80 trials: a coverage below 0.85 would be 4 standard errors short
    assert hits / trials >= 0.85, hits


@pytest.fixture(scope="module")
def tiny():
    return play_league(["random", "greedy", "strategic"], **TINY)


def test_tiny_league_orders_random_below_greedy_and_anchors_greedy(tiny):
    (t,) = tiny.tables
    rows = {r["player"]: r for r in t.rows()}
    assert t.anchor == "greedy"
    assert rows["greedy"]["rating"] == 0.0 and rows["greedy"]["low"] == rows["greedy"]["high"] == 0
    # random almost never wins a game to 500 (docs/policies.md "Tournament")
    assert rows["random"]["high"] < 0 < rows["strategic"]["rating"] - rows["random"]["rating"]
    assert rows["random"]["share"] < 0.05 and rows["random"]["bound"]
    for r in rows.values():
        assert r["low"] <= r["rating"] <= r["high"], r
        assert r["games"] == 30 * 2 * 2  # deals x rotations x opponents
        assert r["cpu_seconds_per_decision"] > 0
    # the mean shares against the field of a zero-sum pairing average to one half
    assert sum(r["share"] for r in rows.values()) == pytest.approx(1.5)
    assert "greedy" in t.text() and "Elo scale" in t.text()


def test_the_same_seed_gives_the_same_table_at_one_and_two_jobs(tiny):
    two = play_league(["random", "greedy", "strategic"], jobs=2, **TINY)
    timing = ("cpu_seconds_per_decision", "wall_seconds_per_decision", "timing_decisions")

    def without_timing(league):
        return [[{k: v for k, v in r.items() if k not in timing} for r in t.rows()]
                + t.pair_rows() for t in league.tables]

    assert without_timing(two) == without_timing(tiny)
    other = play_league(["random", "greedy", "strategic"], **{**TINY, "seed": 4})
    assert without_timing(other) != without_timing(tiny)


def test_team_play_scores_are_shares_of_the_win():
    # team play (C20): both seats of the winning team hold a win; A's score stays a share
    lg = play_league(["greedy", "strategic"], variants=["classic"], player_counts=[4], deals=20,
                     bootstrap=20, rules={"teams": True})
    (pair,) = lg.tables[0].pair_rows()
    assert 0 < pair["share"] < 1 and pair["high"] <= 1


def first_action(obs):
    return obs.actions[0]


def test_a_user_policy_plays_in_the_api_under_its_name():
    lg = play_league(["greedy", first_action], variants=["classic"], player_counts=[2],
                     deals=5, bootstrap=10)
    assert {r["player"] for r in lg.tables[0].rows()} == {"greedy", "user:first_action"}
    with pytest.raises(LeagueError, match="duplicate"):
        play_league([first_action, "greedy", first_action], deals=5)


def test_league_folder_is_written_and_a_foreign_one_refused(tmp_path, capsys):
    out = tmp_path / "lg"
    args = ["league", "--policy", "greedy", "--policy", "strategic", "--players", "2",
            "--variant", "classic", "--deals", "10", "--bootstrap", "50", "--out", str(out)]
    assert main(args) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(LEAGUE_FILES)
    doc = json.loads((out / "league.json").read_text())
    assert doc["kind"] == "uno-sim league" and doc["elo_per_logit"] == pytest.approx(ELO)
    assert doc["tables"][0]["anchor"] == "greedy"
    assert (out / "league.png").read_bytes()[:4] == b"\x89PNG"
    assert main(args) == 0  # a former league's folder is written over
    (out / "notes.txt").write_text("mine")
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "notes.txt" in err[0]
    (out / "notes.txt").unlink()
    (out / "league.json").unlink()
    (out / "league.json").symlink_to("/dev/zero")  # never read whole: refused in one line
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "league.json" in err[0]


def test_estimate_prints_the_cost_and_each_players_time_and_plays_no_league(capsys):
    assert main(["league", "--policy", "greedy", "--policy", "random", "--players", "2",
                 "--variant", "classic", "--estimate"]) == 0
    out, err = capsys.readouterr()
    assert "estimated" in err and "2 players, 1 pairing(s)" in err
    assert "classic 2p" in out and "greedy" in out and "rating" not in out


def test_default_league_is_one_constant_and_leaves_out_unknown_players():
    keep, left = default_players()
    assert keep[:3] == ["random", "greedy", "strategic"]
    assert len(keep) + len(left) == len(DEFAULT_LEAGUE)
    quick, _ = default_players(quick=True)
    assert len(quick) == len(keep)
    assert "net" in keep  # weights ship for classic and Flip at 2 and 4 players
    keep, left = default_players(False, ["extreme"], [2])  # none ship for Extreme
    assert "net" in left and "net" not in keep


@pytest.mark.parametrize("args,needle", [
    (["--policy", "nosuch", "--policy", "greedy"], "'nosuch'"),
    (["--policy", "greedy", "--policy", "greedy"], "duplicate player 'greedy'"),
    (["--policy", "greedy", "--policy", "greedy(bluff=0)"], "duplicate player"),
    (["--policy", "greedy"], "at least 2 players"),
    (["--deals", "0"], "'0'"),
    (["--deals", "1e15"], "deals 1000000000000000"),
    (["--bootstrap", "1e15"], "bootstrap 1000000000000000"),
    (["--policy", "random", "--policy", "greedy", "--anchor", "strategic"], "anchor"),
    (["--policy", "random", "--policy", "greedy", "--rule", "players=3"], "players"),
    (["--policy", "random", "--policy", "greedy", "--rule", "variant=flip"], "variant"),
    (["--policy", "random", "--policy", "greedy", "--players", "2,2"], "[2, 2]"),
    (["--variant", "bogus"], "'bogus'"),
])
def test_bad_league_input_is_one_line_and_status_2(args, needle, capsys):
    assert main(["league", *args]) == 2
    err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert len(err) == 1 and needle in err[0], err


def test_bad_api_input_raises_a_league_error():
    with pytest.raises(LeagueError, match="deals"):
        play_league(["random", "greedy"], deals=10**15)
    with pytest.raises(LeagueError, match="player count"):
        play_league(["random", "greedy"], player_counts=[1])
