"""The bluff and challenge studies: rule families and their specs, the finer grids, the
solved game and the study pipelines on a stand-in oracle and stand-in decision values with
known answers (the runs on the engine are in test_analysis.py)."""

import os

import numpy as np
import polars as pl
import pytest

pytest.importorskip("matplotlib")

from uno_sim.analysis import bluff, bluffgame, challenge  # noqa: E402
from uno_sim.analysis.bluffgame import Rule, bluff_rules, challenge_rules, refine  # noqa: E402
from uno_sim.analysis.common import StudyError  # noqa: E402
from uno_sim.analysis.equilibrium import solve_zero_sum  # noqa: E402


def _value(b: Rule, c: Rule) -> float:
    """A known bluff/challenge game: bluffing gains up to next<=3 and loses against
    aggressive challenge rules; challenging costs the table a little."""
    gain = {"never": 0.0, "always": 0.02, "next": 0.01 * min(b.param or 0, 3),
            "own": 0.005 * (b.param or 0)}[b.family]
    agg = {"never": 0.0, "always": 1.0, "offender": 0.15 * (c.param or 0),
           "posterior": 1 - (c.param or 0)}[c.family]
    return 0.5 + gain * (1 - 1.5 * agg) - 0.01 * agg


def fake_oracle(games=600, seed=0):
    """Per-game win (0/1) with a shared uniform per game: common random numbers."""
    u = np.random.default_rng(seed).random(games)
    return lambda b, c: (u < _value(b, c)).astype(float)


def fake_values(kind, *, variant, players, policies, seat, games, seed, n_jobs=1):
    """Decision points whose value is known: a bluff gains 0.3 when the next player holds
    one card and loses 0.2 from five cards up; a challenge gains 0.3 on a bluff and costs
    0.1 on a legal card (p* = 0.25)."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        for p in range(int(rng.integers(1, 4))):
            other = int(rng.integers(1, 9))
            truth = int(rng.random() < 0.4)
            base = rng.normal()
            if kind == "challenge":
                eff = 0.3 if truth else -0.1
            else:
                eff = 0.3 if other == 1 else -0.2 if other >= 5 else 0.0
            r = {"game": g, "point": p, "round": 1, "turn": p, "players": players,
                 "variant": variant, "own_size": int(rng.integers(1, 9)), "other_size": other,
                 "natural": 0}
            if kind == "challenge":
                r.update(could_bluff_p=0.5, truth=truth)
            for m in ("round_win", "points", "game_win"):
                r[f"{m}_0"] = base
                r[f"{m}_1"] = base + eff + rng.normal(0, 0.02)
            rows.append(r)
    return pl.DataFrame(rows)


# --- rules ------------------------------------------------------------------------

def test_rule_specs_state_every_knob():
    assert Rule("bluff", "never").spec(2) == "greedy"
    assert Rule("bluff", "always").spec(4) == "greedy(bluff=1)"
    assert Rule("bluff", "next", 2).spec(2) == "greedy(bluff=1,bluff_next=2)"
    assert Rule("bluff", "own", 3).spec(4) == "greedy(bluff=1,bluff_own=3)"
    assert Rule("challenge", "never").spec(4) == "greedy"
    assert Rule("challenge", "always").spec(2) == "greedy(challenge=1)"
    assert Rule("challenge", "always").spec(4) == "greedy(challenge=1,suspect=0)"
    assert Rule("challenge", "offender", 1).spec(2) == \
        "greedy(challenge=1,challenge_offender=1)"
    assert Rule("challenge", "posterior", 0.35).spec(4) == \
        "greedy(challenge=posterior,challenge_threshold=0.35,suspect=0)"
    assert Rule("challenge", "posterior", 0.35).label == "posterior>0.35"
    assert Rule("bluff", "next", 2).label == "next<=2"
    assert bluffgame.policies(Rule("bluff", "always"), Rule("challenge", "always"), 3) == \
        ["greedy(bluff=1)"] + ["greedy(challenge=1,suspect=0)"] * 2
    with pytest.raises(StudyError, match="offender"):
        Rule("bluff", "offender", 1)
    with pytest.raises(StudyError, match="parameter"):
        Rule("bluff", "next")


@pytest.mark.parametrize("players", [2, 4])
def test_every_rule_is_a_valid_engine_spec(players):
    from uno_sim.policies import parse_policy

    for r in bluff_rules() + challenge_rules() + refine(
            bluff_rules(), [Rule("challenge", "never")], lambda r, c: -(r.param or 0),
            maximize=True):
        knobs = parse_policy(r.spec(players)).knobs()
        defaults = parse_policy("greedy").knobs()
        changed = {k: v for k, v in knobs.items() if v != defaults[k]}
        # the rule changes exactly the knobs it names (a threshold may equal the default)
        assert set(changed) <= set(r.knobs(players))
        assert set(r.knobs(players)) - set(changed) <= {"challenge_threshold"}
        for k, v in r.knobs(players).items():
            assert str(knobs[k]) == v or float(knobs[k]) == float(v)


def test_families_are_ordered_never_first_always_last():
    rows = [r.label for r in bluff_rules()]
    cols = [c.label for c in challenge_rules()]
    assert rows[0] == "never" and rows[-1] == "always" and "next<=3" in rows
    assert cols[0] == "never" and cols[-1] == "always" and "posterior>0.5" in cols


def test_refine_adds_points_where_the_best_parameter_lies_between_grid_points():
    rows = [Rule("bluff", "never"), Rule("bluff", "next", 1), Rule("bluff", "next", 5),
            Rule("bluff", "next", 9), Rule("bluff", "always")]
    cols = [Rule("challenge", "never")]
    # payoff peaks at next<=5 (between 1 and 9): 3 and 7 join the grid
    out = refine(rows, cols, lambda r, c: -abs((r.param or 0) - 5), maximize=True)
    assert [r.param for r in out if r.family == "next"] == [1, 3, 5, 7, 9]
    # sign change of the effect against never between thresholds 0.25 and 0.5: 0.35 (0.05 grid)
    cs = [Rule("challenge", "never"), Rule("challenge", "posterior", 0.25),
          Rule("challenge", "posterior", 0.5), Rule("challenge", "posterior", 0.75)]
    pay = {None: 0.0, 0.25: -0.1, 0.5: 0.1, 0.75: 0.2}  # seat-0 share: lower is better here
    out = refine(cs, [Rule("bluff", "never")], lambda r, c: pay[c.param], maximize=False)
    assert [c.param for c in out if c.family == "posterior"] == [0.25, 0.4, 0.5, 0.75]
    # adjacent integers leave nothing to add
    tight = [Rule("bluff", "next", 1), Rule("bluff", "next", 2)]
    assert refine(tight, cols, lambda r, c: r.param, maximize=True) == tight


def test_solve_reaches_the_lp_solution_of_the_full_matrix():
    g = bluffgame.solve("classic", 2, 600, 1, oracle=fake_oracle(), n_boot=50)
    x, y, v = solve_zero_sum(g.matrix)
    assert g.do.value == pytest.approx(v, abs=1e-9)
    assert g.boot.value[0] == pytest.approx(v, abs=1e-9)
    assert g.matrix.shape == (len(g.rows), len(g.cols))
    assert g.do_pairs <= len(g.rows) * len(g.cols)
    assert all(len(p) == 600 for p in g.pairs.values())
    # against a table that never challenges, the best bluff rule gains: next<=3 or more
    nev = g.cols.index(Rule("challenge", "never"))
    assert g.rows[int(np.argmax(g.matrix[:, nev]))].label in {"next<=3", "next<=4", "next<=5"}
    for key in ("worth_bluffing", "worth_challenging", "gain_never", "hold_always"):
        est, lo, hi = g.boot.derived[key]
        assert lo <= est + 1e-12 and est <= hi + 1e-12


# --- studies on stand-ins ------------------------------------------------------------

@pytest.fixture(scope="module")
def game():
    return bluffgame.solve("classic", 2, 600, 1, oracle=fake_oracle(), n_boot=50)


def test_bluff_study_on_stand_ins(game, tmp_path):
    r = bluff.study("classic", 2, 600, 1, str(tmp_path), game=game, values=fake_values,
                    value_games=400, n_boot=50)
    assert all(os.path.exists(f) for f in r.figures)
    st = r.data["values_by_next"].filter(pl.col("against") == "never")
    one = st.filter(pl.col("other_size") == "1").row(0, named=True)
    assert one["d_game_win_low"] < 0.3 < one["d_game_win_high"]
    md = r.markdown()
    # the reading names where a bluff pays and costs, from the numbers
    assert "it pays (interval above zero) when the next player holds 1 card;" in md
    assert "it costs (interval below zero) when the next player holds 5, 6+ cards" in md
    # the setup states every knob that differs from greedy
    for knob in ("bluff_next=k", "bluff_own=m", "challenge_offender=j",
                 "challenge=posterior", "greedy(challenge=1)"):
        assert knob in md
    br = r.data["best_response"]
    assert br["challenge rule"].to_list() == [c.label for c in game.cols]
    assert "variance of the estimated value by a factor" in md


def test_challenge_study_on_stand_ins(game, tmp_path):
    c = challenge.study("classic", 2, 600, 1, str(tmp_path), game=game, values=fake_values,
                        value_games=400, n_boot=100)
    be = c.data["break_even"].row(0, named=True)
    assert be["p_star_low"] < 0.25 < be["p_star_high"]
    md = c.markdown()
    assert "A challenge pays when the posterior probability of a bluff exceeds p* = 0.2" in md
    assert "(fair share 0.5000)" in md and "nobody bluffs or challenges" in md
    e, lo, hi = game.boot.derived["edge"]
    assert e == pytest.approx(game.boot.value[0] - game.mean(*game.baseline))
    mix = c.data["mixes"]
    for side in ("bluffer", "challengers"):
        assert mix.filter(pl.col("side") == side)["weight"].sum() == pytest.approx(1)
    assert c.data["best_response"].height == len(game.rows)
    assert all(os.path.exists(f) for f in c.figures)


def test_studies_refuse_a_variant_without_restricted_cards(game):
    with pytest.raises(StudyError, match="no restricted card"):
        bluff.study("extreme", 2, 10, 1, game=game, values=fake_values)
    with pytest.raises(StudyError, match="no restricted card"):
        challenge.study("extreme", 4, 10, 1, game=game, values=fake_values)


# --- statistical checks on the engine (long) ---------------------------------------------

@pytest.mark.slow
def test_bluffing_into_a_one_card_hand_pays_in_two_player_classic():
    """Against a table that never challenges, a bluff when the next player holds one card
    gains (counterfactual value and the next<=1 rule both), and a challenge has a
    break-even posterior strictly inside (0, 1)."""
    from uno_sim.analysis.counterfactual import by_state
    from uno_sim.analysis.gamestats import paired_ci

    values = bluff.bluff_values("classic", 2, 3000, 7, against=[Rule("challenge", "never")])
    one = by_state(values, "other_size").filter(pl.col("other_size") == "1").row(0, named=True)
    assert one["d_game_win_low"] > 0
    assert one["vr_game_win"] > 2  # pairing pays
    oracle = bluffgame.SimOracle("classic", 2, 6000, 7)
    never = Rule("challenge", "never")
    gain = oracle(Rule("bluff", "next", 1), never) - oracle(Rule("bluff", "never"), never)
    assert paired_ci(gain)[1] > 0
    frame = challenge.challenge_values("classic", 2, 3000, 7)
    be, _ = challenge.break_even_tables(frame, n_boot=200, seed=7)
    r = be.row(0, named=True)
    assert 0 < r["p_star_low"] <= r["p_star"] <= r["p_star_high"] < 1
