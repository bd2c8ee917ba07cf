"""The studies: pipelines against hand-computed aggregates, the chi-square p-value, the
report, the CLI and the notebook."""

import json
import math
import os
import re

import numpy as np
import polars as pl
import pytest

pytest.importorskip("matplotlib")

from uno_sim.analysis import STUDIES, variants  # noqa: E402
from uno_sim.analysis.balance import (card_value, compound, deck_kinds, face_of,  # noqa: E402
                              first_to_play, house_rule_switches, kinds_of, length_stats,
                              position_shares, round_positions, trace_frames)
from uno_sim.analysis.common import (parse_players, parse_variants, paired_diff, seat_shares,  # noqa: E402
                             with_wins, StudyError)
from uno_sim.rules import Rules  # noqa: E402
from uno_sim.analysis.gamestats import (chi2_sf, chisquare_equal, diff_test, holm,  # noqa: E402
                                paired_ci, share_test)


# --- chi-square ---------------------------------------------------------------

@pytest.mark.parametrize("x,df,p", [(3.841458820694124, 1, 0.05), (5.991464547107979, 2, 0.05),
                                    (11.070497693516351, 5, 0.05), (23.209251158954356, 10, 0.01),
                                    (0.0, 3, 1.0)])
def test_chi2_sf_known_quantiles(x, df, p):
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 10.0, 40.0, 120.0])
def test_chi2_sf_closed_forms(x):
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10)
    for k in (1, 2, 3, 5, 9):  # even df: Q(k, y) = e^-y sum_{i<k} y^i / i!
        y = x / 2
        exact = math.exp(-y) * sum(y ** i / math.factorial(i) for i in range(k))
        assert chi2_sf(x, 2 * k) == pytest.approx(exact, rel=1e-10)


def test_chi2_sf_rejects_bad_df():
    with pytest.raises(ValueError, match="df 0"):
        chi2_sf(1.0, 0)


def test_chisquare_equal_textbook_example():
    stat, df, p = chisquare_equal([16, 18, 16, 14, 12, 12])
    assert (stat, df) == (pytest.approx(2.0), 5)
    assert p == pytest.approx(0.84914503608460956, rel=1e-9)
    assert chisquare_equal([7, 7, 7])[2] == pytest.approx(1.0)
    # fractional counts (shared wins): the statistic of the formula sum (o - e)^2 / e
    stat, df, p = chisquare_equal([10.5, 9.5, 5.0])
    e = 25 / 3
    assert stat == pytest.approx(((10.5 - e) ** 2 + (9.5 - e) ** 2 + (5 - e) ** 2) / e)
    assert p == pytest.approx(math.exp(-stat / 2))  # df 2: the sf is exp(-x/2)


def test_holm_hand_computed():
    # sorted 0.01, 0.02, 0.03, 0.5 -> 4*0.01, 3*0.02, 2*0.03 (kept >= previous), 1*0.5
    got = holm([0.03, 0.5, 0.01, 0.02])
    assert got == pytest.approx([0.06, 0.5, 0.04, 0.06])
    # the running maximum: a later smaller product is raised to the earlier one
    assert holm([0.01, 0.011]) == pytest.approx([0.02, 0.02])
    assert holm([0.4, 0.9]) == pytest.approx([0.8, 0.9])
    assert holm([0.6, 0.7, 0.8]) == pytest.approx([1.0, 1.0, 1.0])  # capped at 1
    nan = holm([math.nan, 0.01, 0.04])
    assert math.isnan(nan[0]) and nan[1:] == pytest.approx([0.02, 0.04])  # m = 2
    assert holm([]).size == 0


def test_holm_controls_the_familywise_rate_exactly_where_bonferroni_does():
    # the smallest p-value is always multiplied by m, as Bonferroni's
    p = np.array([0.001, 0.2, 0.3, 0.04, 0.5])
    assert holm(p).min() == pytest.approx(5 * 0.001)
    assert (holm(p) <= np.minimum(1, 5 * p) + 1e-15).all()


def test_share_and_difference_tests_against_normal_values():
    from scipy.stats import norm

    from uno_sim.analysis.gamestats import Z95
    from uno_sim.stats import Z95 as RUN_Z95  # the runner's constant, without SciPy

    assert Z95 == norm.ppf(0.975) and RUN_Z95 == pytest.approx(Z95, rel=1e-15)
    # 60 wins of 100 against 1/2: z = 0.1 / 0.05 = 2
    z, p = share_test(60, 100, 0.5)
    assert z == pytest.approx(2.0) and p == pytest.approx(0.04550026389635842, rel=1e-9)
    assert share_test(25, 100, 0.25) == (pytest.approx(0.0), pytest.approx(1.0))
    assert all(math.isnan(v) for v in share_test(1, 0, 0.5))
    # 0.6 of 100 against 0.4 of 100: pooled 0.5, se = sqrt(0.25 * 0.02), z = 2 * sqrt(2)
    assert diff_test(0.6, 100, 0.4, 100) == pytest.approx(2 * norm.sf(2 * math.sqrt(2)))
    assert diff_test(0.3, 10, 0.3, 20) == pytest.approx(1.0)
    assert math.isnan(diff_test(0.3, 0, 0.3, 20))


# --- pipelines on hand-made frames ------------------------------------------------

def _games(rows, players=3):
    cols = ["game", "winner", "team"] + [f"scores_{s}" for s in range(players)]
    return pl.DataFrame([dict(zip(cols, r)) for r in rows])


def test_win_shares_single_team_and_shared_wins():
    g = with_wins(_games([(0, 1, -1, 10, 500, 20),    # seat 1 wins
                          (1, -1, -1, 30, 30, 90),    # lowest score shared by seats 0 and 1
                          (2, 2, -1, 0, 0, 520)]), 3)
    assert g["win_0"].to_list() == [0, 0.5, 0]
    assert g["win_1"].to_list() == [1, 0.5, 0]
    assert g["win_2"].to_list() == [0, 0, 1]
    sh = seat_shares(g, 3)
    assert sh["wins"].to_list() == [0.5, 1.5, 1.0]
    assert sh["share"].to_list() == pytest.approx([0.5 / 3, 0.5, 1 / 3])
    t = with_wins(_games([(0, -1, 1, 0, 600, 0, 10)], 4), 4)
    assert [t[f"win_{s}"][0] for s in range(4)] == [0, 1, 0, 1]
    # schema 2 (docs/results.md): null, not -1, where no single seat or no team won
    n = with_wins(_games([(0, 1, None, 10, 500, 20), (1, None, None, 30, 30, 90)]), 3)
    assert n["win_0"].to_list() == [0, 0.5] and n["win_1"].to_list() == [1, 0.5]
    t = with_wins(_games([(0, None, 1, 0, 600, 0, 10)], 4), 4)
    assert [t[f"win_{s}"][0] for s in range(4)] == [0, 1, 0, 1]


def test_paired_diff_hand_computed():
    f = pl.DataFrame({"b": [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0],
                      "c": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0],
                      "game": [0, 1, 2, 0, 1, 2, 0, 0],
                      "win": [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]})
    d = paired_diff(f, "b", 0.0, ["win"], keys=["c"])
    row = d.filter((pl.col("b") == 1) & (pl.col("c") == 0)).row(0, named=True)
    diffs = [-1.0, 1.0, 1.0]
    m, lo, hi = paired_ci(diffs)
    assert row["n"] == 3 and row["d_win"] == pytest.approx(1 / 3) == pytest.approx(m)
    assert (row["d_win_low"], row["d_win_high"]) == (pytest.approx(lo), pytest.approx(hi))
    sd = math.sqrt(sum((x - 1 / 3) ** 2 for x in diffs) / 2)
    assert hi - m == pytest.approx(1.959963984540054 * sd / math.sqrt(3))
    base = d.filter(pl.col("b") == 0)
    assert base["d_win"].to_list() == [0, 0] and base["d_win_low"].to_list() == [0, 0]
    one = d.filter((pl.col("b") == 1) & (pl.col("c") == 1)).row(0, named=True)
    assert one["n"] == 1 and one["d_win"] == 0
    # one pair gives no spread: the interval is undefined, not zero-wide
    assert math.isnan(one["d_win_low"]) and math.isnan(one["d_win_high"])


def test_card_value_hand_computed():
    obs = pl.DataFrame({"game": [0] * 4, "round": [1, 1, 2, 2], "seat": [0, 1, 0, 1],
                        "won": [1, 0, 0, 1]})
    hold = pl.DataFrame({"game": [0, 0, 0], "round": [1, 1, 2], "seat": [0, 1, 1],
                         "face": ["Wild", "7", "Wild"], "count": [2, 1, 1]})
    cv = card_value(obs, hold)
    w = cv.filter(pl.col("face") == "Wild").row(0, named=True)
    assert (w["p_with"], w["n_with"], w["p_without"], w["n_without"]) == (1.0, 2, 0.0, 2)
    s = cv.filter(pl.col("face") == "7").row(0, named=True)
    assert (s["p_with"], s["n_with"], s["p_without"], s["n_without"]) == \
        (0.0, 1, pytest.approx(2 / 3), 3)
    assert s["effect"] == pytest.approx(-2 / 3)
    assert w["p"] == pytest.approx(diff_test(1.0, 2, 0.0, 2))
    assert cv.sort("face")["p_holm"].to_list() == pytest.approx(
        list(holm(cv.sort("face")["p"].to_list())))


def test_card_value_leaves_out_a_kind_in_every_hand():
    obs = pl.DataFrame({"game": [0, 0], "round": [1, 1], "seat": [0, 1], "won": [1, 0]})
    hold = pl.DataFrame({"game": [0, 0, 0], "round": [1, 1, 1], "seat": [0, 1, 0],
                         "face": ["Wild", "Wild", "7"], "count": [1, 1, 1]})
    assert card_value(obs, hold)["face"].to_list() == ["7"]


def test_flip_kinds_are_printed_faces_of_each_side():
    assert kinds_of("R7/T2") == ["light 7", "dark 2"]
    assert kinds_of("W+2/OSE") == ["light Wild Draw Two", "dark Skip Everyone"]
    assert kinds_of("GF/DW+C") == ["light Flip", "dark Wild Draw Color"]
    assert kinds_of("B5") == ["5"]
    from uno_sim.rules import Rules

    flip = deck_kinds(Rules(variant="flip"))
    assert "light Wild Draw Two" in flip and "dark Wild Draw Color" in flip
    assert not [k for k in flip if "/" in k] and len(flip) == 15 + 15
    assert len(deck_kinds(Rules(variant="classic"))) == 15


def test_trace_frames_pool_flip_cards_by_printed_kind():
    import uno_sim

    res = uno_sim.play_game(variant="flip", players=3, seed=4, game=0, trace=True)
    _, _, hold = trace_frames(res.events, 0)
    first = [h for h in hold if h["round"] == 1]
    light = sum(h["count"] for h in first if h["face"].startswith("light "))
    dark = sum(h["count"] for h in first if h["face"].startswith("dark "))
    assert light == dark == 3 * 7  # each card once per side, no paired kinds


# --- positions from the dealer ------------------------------------------------------

def test_first_to_play_follows_c5():
    from uno_sim.cards import Effect

    assert first_to_play(2, Effect.NUMBER, 4) == (3, 1)
    assert first_to_play(3, Effect.WILD, 4) == (0, 1)
    assert first_to_play(2, Effect.SKIP, 4) == (0, 1)  # the dealer's left is skipped
    assert first_to_play(2, Effect.DRAW, 4) == (0, 1)
    assert first_to_play(2, Effect.REVERSE, 4) == (2, -1)  # the dealer, then to the right
    assert first_to_play(1, Effect.SKIP, 2) == (1, 1)


def test_round_positions_hand_computed():
    from uno_sim.rules import Rules

    r = pl.DataFrame({"game": [0] * 5, "round": [1, 2, 3, 4, 5], "dealer": [3, 0, 1, 2, 3],
                      "starter": ["R5", "GS", "BR", "Y+2", "W"], "winner": [0, 2, 1, 3, None]})
    p = round_positions(r, 4, Rules(variant="classic", players=4))
    assert p.height == 4  # the stalemate has no winner
    # dealer 3 -> seat 0 is position 1; dealer 0 -> seat 2 is 2; dealer 1 -> seat 1 is 4 (dealer)
    assert p["position"].to_list() == [1, 2, 4, 1]
    # R5: seat 0 plays first; GS: seat 2 plays first; BR: the dealer first, then to the right;
    # Y+2: dealer 2 -> seat 0 first, seat 3 the last
    assert p["play_position"].to_list() == [1, 1, 1, 4]


def test_position_shares_against_scipy():
    from scipy.stats import chisquare

    pos = pl.DataFrame({"position": [1] * 40 + [2] * 25 + [3] * 35})
    t, chi = position_shares(pos, 3)
    assert t["wins"].to_list() == [40, 25, 35] and t["rounds"].to_list() == [100] * 3
    assert t["edge"].to_list() == pytest.approx([0.4 - 1 / 3, 0.25 - 1 / 3, 0.35 - 1 / 3])
    assert t["p"][0] == pytest.approx(share_test(40, 100, 1 / 3)[1])
    assert t["p_holm"].to_list() == pytest.approx(list(holm(t["p"].to_list())))
    ref = chisquare([40, 25, 35])
    assert (chi["chi2"], chi["df"], chi["p"]) == (pytest.approx(ref.statistic), 2,
                                                   pytest.approx(ref.pvalue))
    lo, hi = t["low"][1], t["high"][1]
    assert lo < 0.25 < hi


def test_compound_model_against_closed_forms():
    # one round decides the game: the game share is the round share
    one = compound([500], 2, [0.1], target=500, games=4000, seed=3)
    assert one["round_edge"].to_list() == [0.0, 0.1]
    r = one.row(1, named=True)
    assert r["low"] < 0.6 < r["high"]
    # two won rounds needed, 2 players: a race to 2, P = q^2 (3 - 2q)
    two = compound([250], 2, [0.1], target=500, games=4000, seed=3)
    r = two.row(1, named=True)
    assert r["low"] < 0.36 * 1.8 < r["high"]
    assert r["gain"] == pytest.approx(r["game_edge"] / 0.1)
    assert two.row(0, named=True)["game_edge"] == 0
    with pytest.raises(ValueError, match="delta"):
        compound([100], 4, [0.8])


def test_face_of():
    assert [face_of(c) for c in ("R7", "GS", "BR", "Y+2", "W", "W+4", "B0")] == \
        ["7", "Skip", "Reverse", "Draw Two", "Wild", "Wild Draw Four", "0"]


def test_length_stats_hand_computed():
    g = pl.DataFrame({"rounds": [2, 4, 6], "turns": [20, 40, 60], "reshuffles": [0, 1, 2],
                      "scores_0": [500, 0, 100], "scores_1": [100, 520, 500]})
    s = length_stats(g)
    assert s["rounds_mean"] == 4 and s["rounds_median"] == 4
    assert s["turns_per_round"] == 10 and s["reshuffles_per_round"] == 0.25
    assert s["points_per_round"] == pytest.approx(1720 / 12)


def test_trace_frames_agree_with_the_game_counters():
    import uno_sim

    for game in range(5):
        res = uno_sim.play_game(players=3, seed=11, game=game, trace=True)
        rounds, obs, hold = trace_frames(res.events, game)
        assert len(rounds) == res.rounds and len(obs) == 3 * res.rounds
        assert sum(r["turns"] for r in rounds) == res.turns
        assert sum(r["reshuffles"] for r in rounds) == res.reshuffles
        assert sum(o["won"] for o in obs) == res.rounds - res.stalemates
        first = [h for h in hold if h["round"] == 1]
        assert sum(h["count"] for h in first) == 3 * 7


# --- setup lines and machine-readable outputs ----------------------------------------

def test_policy_text_states_every_knob_off_greedy():
    from uno_sim.analysis.common import knobs_off_greedy, policy_text, seats_text
    from uno_sim.policies import POLICIES, parse_policy

    assert policy_text("greedy") == "greedy" and policy_text("greedy(bluff=0)") == "greedy"
    assert policy_text("greedy(bluff=0.25,challenge=1)") == "greedy(bluff=0.25,challenge=1)"
    assert policy_text("strategic") == \
        "strategic(challenge=auto,challenge_threshold=0.9,color=smart)"
    greedy = POLICIES["greedy"][1]
    for name, (_, defaults) in POLICIES.items():  # every policy, every knob, from the code
        diff = knobs_off_greedy(name)
        assert diff == {k: v for k, v in defaults.items() if greedy.get(k) != v}
        for k in diff:
            assert f"{k}=" in policy_text(name)
        for k, v in greedy.items():
            if isinstance(v, float):
                other = 0.5 if v != 0.5 else 0.25
                spec = parse_policy(f"{name}({k}={other})")
                assert (f"{k}=" in policy_text(spec)) == (spec.knob(k) != v)
    assert seats_text(["greedy"] * 3) == "greedy at every seat"
    assert seats_text(["greedy(bluff=1)", "greedy(challenge=0.5)", "greedy(challenge=0.5)",
                       "greedy"]) == \
        "seat 0 greedy(bluff=1); seats 1-2 greedy(challenge=0.5); seat 3 greedy"


def test_setup_states_policies_per_seat():
    from uno_sim.analysis.common import Setup

    s = Setup("classic", 3, 100, 7, ["greedy(bluff=1)", "strategic", "greedy"])
    assert "policies: seat 0 greedy(bluff=1); seat 1 strategic(challenge=auto," in s.text()
    d = s.to_dict()
    assert [x["policy"] for x in d["seats"]] == ["greedy(bluff=1)", policy_text_of("strategic"),
                                                 "greedy"]
    assert d["seats"][0]["knobs_off_greedy"] == {"bluff": 1.0} and d["every_seat"] is None
    assert (d["variant"], d["players"], d["games"], d["seed"]) == ("classic", 3, 100, 7)
    one = Setup("flip", 4, 10, 0, "greedy(color=random)").to_dict()
    assert len(one["seats"]) == 4 and one["every_seat"]["knobs_off_greedy"] == \
        {"color": "random"}
    grid = Setup("classic", 4, 10, 0, "seat 0 greedy(bluff=b), others greedy(challenge=c)")
    assert grid.to_dict()["seats"] is None and "bluff=b" in grid.text()


def policy_text_of(spec):
    from uno_sim.analysis.common import policy_text

    return policy_text(spec)


def test_study_json_is_strict_json_with_records(tmp_path):
    import json

    from uno_sim.analysis.common import Setup
    from uno_sim.analysis.doc import Section, StudyResult

    sec = Section("T").p("reading").table("cap", pl.DataFrame({"a": [1, 2],
                                                              "b": [0.5, math.nan]}))
    res = StudyResult("x", [sec], data={"setup": Setup("classic", 2, 5, 1, "greedy"),
                                        "frame": pl.DataFrame({"z": [1]})})
    md, js = res.write(str(tmp_path))
    text = open(js, encoding="utf-8").read()
    assert "NaN" not in text
    data = json.loads(text)
    assert data["sections"][0]["tables"][0] == {"caption": "cap", "columns": ["a", "b"],
                                                "records": [{"a": 1, "b": 0.5},
                                                            {"a": 2, "b": None}]}
    assert data["sections"][0]["paragraphs"] == ["reading"]
    assert data["setup"]["seats"][1] == {"seat": 1, "policy": "greedy", "knobs_off_greedy": {}}
    assert open(md, encoding="utf-8").read().startswith("## T")


# --- options, detection -----------------------------------------------------

def test_variants_come_from_the_code():
    from uno_sim.rules import VARIANTS

    assert variants() == tuple(VARIANTS)
    assert parse_variants("all") == list(VARIANTS)
    with pytest.raises(StudyError, match="nope"):
        parse_variants("nope")


def test_parse_players():
    assert parse_players("2-4,7") == [2, 3, 4, 7]
    assert parse_players(None, (4,)) == [4]
    with pytest.raises(StudyError):
        parse_players("11")


def test_house_rules_detected_from_rules_fields():
    from dataclasses import fields

    from uno_sim.rules import Rules

    names = {f.name for f in fields(Rules)}
    for key, values in house_rule_switches().items():
        assert key in names and values


# --- studies, report, CLI, notebook on small runs --------------------------------

def test_bluff_and_challenge_studies_small(tmp_path):
    from uno_sim.analysis import bluff, bluffgame, challenge
    from uno_sim.analysis.bluffgame import Rule

    rows = [Rule("bluff", "never"), Rule("bluff", "own", 1), Rule("bluff", "next", 2),
            Rule("bluff", "always")]
    cols = [Rule("challenge", "never"), Rule("challenge", "posterior", 0.5),
            Rule("challenge", "always")]
    game = bluffgame.solve("classic", 2, 40, 5, rows=rows, cols=cols, n_boot=20)
    assert game.matrix.shape == (4, 3) and all(len(v) == 40 for v in game.pairs.values())
    # own<=1 never bluffs (a bluff needs the restricted card and a card of the active
    # color): with common random numbers it plays exactly the games of never bluffing
    for c in cols:
        assert (game.pairs[(rows[0], c)] == game.pairs[(rows[1], c)]).all()
    r = bluff.study("classic", 2, 40, 5, str(tmp_path), game=game, value_games=20, n_boot=20)
    assert all(os.path.exists(f) for f in r.figures)
    assert {"never", "always"} <= set(r.data["values"]["against"].unique().to_list())
    c = challenge.study("classic", 2, 40, 5, str(tmp_path), game=game, value_games=20,
                        n_boot=20)
    v, lo, hi = game.boot.value
    assert 0 <= lo <= v <= hi <= 1
    md = c.markdown()
    assert "fair share" in md and "variant classic" in md and "seed 5" in md


def test_four_player_focal_seat_design():
    from uno_sim.analysis import bluffgame
    from uno_sim.analysis.bluffgame import Rule
    from uno_sim.analysis.common import run_games

    rows = [Rule("bluff", "never"), Rule("bluff", "always")]
    cols = [Rule("challenge", "never"), Rule("challenge", "always")]
    game = bluffgame.solve("flip", 4, 30, 2, rows=rows, cols=cols, n_boot=10, finer=False)
    assert game.stats[(rows[1], cols[1])]["challenges"] > 0
    assert game.stats[(rows[1], cols[0])]["challenges"] == 0
    # suspect=0: opponents that bluff and challenge everything never challenge each other,
    # so against an honest seat 0 none of their challenges succeeds
    table = "greedy(bluff=1,challenge=1{})"
    won = []
    for suspect in (",suspect=0", ""):
        g = run_games("classic", 4, ["greedy"] + [table.format(suspect)] * 3, 60, 3)
        won.append(sum(int(g[f"challenges_won_{s}"].sum()) for s in (1, 2, 3)))
    assert won[0] == 0 < won[1]


def test_balance_study_small(tmp_path):
    from uno_sim.analysis import balance

    r = balance.study("classic", [2, 3], 60, 2, str(tmp_path), trace_games=10, card_games=20,
                      model_games=500)
    shares = r.data["shares"]
    assert shares.group_by("players").agg(pl.col("share").sum())["share"].to_list() == \
        pytest.approx([1, 1])
    assert set(r.data["chisq"]["players"].to_list()) == {2, 3}
    assert all(0 <= p <= 1 for p in r.data["chisq"]["p"])
    assert all(0 <= p <= 1 for p in shares["p_holm"])
    pos = r.data["positions"]
    assert pos.group_by("players").agg(pl.col("share").sum())["share"].to_list() == \
        pytest.approx([1, 1])
    assert sorted(pos.filter(pl.col("players") == 3)["position"].to_list()) == [1, 2, 3]
    rounds = pos.group_by("players").agg(pl.col("wins").sum()).sort("players")["wins"]
    assert rounds.to_list() == r.data["positions_chisq"].sort("players")["rounds"].to_list()
    assert r.data["compound"].height >= 4 and r.data["compound_players"] == 2
    cv = r.data["card_value"]
    assert cv.height > 10 and set(cv["face"]) <= set(deck_kinds(Rules(variant="classic")))
    assert all(0 <= p <= 1 for p in cv["p_holm"])
    house = r.data["house"]
    assert "d_win_0" not in house.columns and (house["games_changed"] > 0).all()
    assert not set(house["arm"]) & set(r.data["house_unchanged"])
    assert all(os.path.exists(f) for f in r.figures)
    md = r.markdown()
    assert "by construction" in md and "Holm" in md and "compounds" in md
    import json

    md_path, js_path = r.write(str(tmp_path / "out"))
    data = json.load(open(js_path, encoding="utf-8"))
    assert os.path.dirname(md_path) == os.path.dirname(js_path)
    assert data["study"] == "balance"
    su = data["setup"]
    assert (su["variant"], su["players"], su["games"], su["seed"]) == ("classic", "2-3", 60, 2)
    assert su["every_seat"] == {"policy": "greedy", "knobs_off_greedy": {}}
    tables = [t for sec in data["sections"] for t in sec["tables"]]
    pos = next(t for t in tables if t["caption"].startswith("Round win share by position"))
    assert pos["records"] == json.loads(json.dumps(
        [dict(zip(pos["columns"], row)) for row in
         r.data["positions"].drop("rounds").rows()]))
    assert all(f["path"].endswith(".png") and not os.path.isabs(f["path"])
               for sec in data["sections"] for f in sec["figures"])


@pytest.mark.slow
def test_report_renders(tmp_path):
    from uno_sim.analysis.report import build

    out = str(tmp_path / "rep")
    # 20 bootstrap resamples: the test reads the report's form, not its intervals (the
    # default 300 made it the suite's costliest test)
    res = build("all", games=30, seed=3, out=out, players="2", balance_players="2,3",
                trace_games=10, card_games=20, n_boot=20, command="uno-sim report --games 30")
    md = open(res["md"], encoding="utf-8").read()
    html = open(res["html"], encoding="utf-8").read()
    assert md.splitlines()[0].startswith("# ")
    # the command on the first line (reports/README.md says so), then the answers
    # ... with the wall and CPU time it took
    assert re.fullmatch(r"Made by `uno-sim report --games 30` in \d+ minutes of wall time and "
                        r"\d+ CPU-minutes with 1 job\(s\) on a \d+-core machine "
                        r"\(\[how\]\(#how-this-report-was-made\)\)\.", md.splitlines()[2])
    rj = json.load(open(res["json"], encoding="utf-8"))
    assert rj["wall_seconds"] > 0 and rj["cpu_seconds"] > 0 and rj["jobs"] == 1
    assert "<p>Made by <code>uno-sim report --games 30</code>" in html
    assert md.split("\n## ")[1].startswith("Summary")  # the answers come first
    assert "uno-sim report --games 30" in md.split("\n## ")[2]  # then how it was made
    for name in ("Bluff", "Challenge", "Exploitability", "Balance"):
        assert name in md and name in html
    assert "Exploitability: classic, 2 players" in md
    assert "How exploitable is the reported equilibrium?" in md.split("\n## ")[1]
    assert "data:image" not in html and html.count('<img alt="') >= 4

    js = json.load(open(res["json"], encoding="utf-8"))
    assert js["command"] == "uno-sim report --games 30" and js["seed"] == 3
    assert {s["variant"] for s in js["setups"]} == set(js["variants"])
    n_tables = sum(1 for line in md.splitlines() if line.startswith("|---"))
    assert sum(len(sec["tables"]) for sec in js["sections"]) == n_tables > 0
    pngs = [f for f in os.listdir(out) if f.endswith(".png")]
    assert len(pngs) >= 4 and all(p in md for p in pngs)
    from uno_sim.rules import VARIANTS

    for v in VARIANTS:  # every variant has its balance study
        assert f"Balance: round wins by position from the dealer, {v}" in md, v
        assert f"Balance: seat win shares over whole games (a check), {v}" in md, v
    # E1: no restricted card in Extreme, so its bluff and challenge studies are skipped
    assert "## Bluff and challenge: extreme" in md and "Bluff: extreme" not in md


def test_cli_study_and_report(tmp_path, capsys, monkeypatch):
    from uno_sim.cli import main

    assert main(["study", "bluff", "--games", "20", "--players", "2", "--seed", "1",
                 "--out", str(tmp_path / "s")]) == 0
    assert "Bluff: classic, 2 players" in capsys.readouterr().out
    assert os.path.exists(tmp_path / "s" / "study.md")
    import json

    js = json.load(open(tmp_path / "s" / "study.json", encoding="utf-8"))
    assert js["study"] == "bluff" and js["setup"]["players"] == 2 and js["setup"]["seed"] == 1
    assert js["setup"]["games"] == 20 and js["setup"]["variant"] == "classic"
    from uno_sim.analysis.bluffgame import setup_policies

    assert setup_policies(2) in [s["policies"] for s in js["setups"]]
    assert all(t["records"] and set(t["records"][0]) == set(t["columns"])
               for sec in js["sections"] for t in sec["tables"])
    # refusals: --out in tmp_path (the default, studies/NAME, is the checkout's own folder,
    # whose lock the output check took)
    bad = ["--out", str(tmp_path / "refused")]
    assert main(["study", "balance", "--variant", "nope", *bad]) == 2
    assert "nope" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)  # the default --out, studies/bluff, is made here
    assert main(["study", "bluff", "--variant", "extreme", "--games", "10"]) == 2
    assert "no restricted card" in capsys.readouterr().err
    assert not (tmp_path / "studies" / "bluff").exists()  # a refused study leaves no folder
    assert main(["report", "--games", "0"]) == 2
    assert main(["report", "--jobs", "0"]) == 2
    assert "invalid --jobs '0'" in capsys.readouterr().err
    assert set(STUDIES) == {"bluff", "challenge", "exploit", "balance"}


def test_example_notebook_runs():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    here = os.path.dirname(__file__)
    path = os.path.join(here, "..", "analysis", "example.ipynb")
    nb = nbformat.read(path, as_version=4)
    params = next(c for c in nb.cells if c.cell_type == "code")
    assert "GAMES =" in params.source
    params.source = "GAMES = 30\nPLAYERS = 3\nSEED = 1"
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.join(here, "..")}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)


def test_house_rule_arms_are_the_house_rules_only():
    """The balance study's house-rule arms are C-H1..C-H5, not the readings of printed rules."""
    from uno_sim.analysis.balance import house_rule_switches
    from uno_sim.rules import HOUSE_RULES

    sw = house_rule_switches()
    assert set(sw) == set(HOUSE_RULES)
    assert sw["stacking"] == ["draw2", "draw4", "both"] and sw["jump_in"] == [True]


def test_run_does_not_import_scipy():
    """SciPy is the studies' dependency (the `analysis` extra), never `uno-sim run`'s."""
    import subprocess
    import sys

    code = ("import sys; from uno_sim.cli import main; main(['run', '--games', '5']); "
            "print('scipy' in sys.modules, 'uno_sim.analysis.gamestats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[-2:] == ["False", "False"]


def test_report_headers_are_readable_and_the_report_has_contents():
    from uno_sim.analysis.doc import Section, header, render_html, render_markdown, slug

    assert header("game_edge_low") == "game edge (95% low)"
    assert header("p_holm") == "p (Holm)"
    assert header("d_win_high") == "effect on win (95% high)"
    assert header("bluff rule") == "bluff rule"
    a, b = Section("Bluff: classic, 2 players"), Section("Balance: card value, flip, 4 players")
    a.table("t", pl.DataFrame({"share_low": [0.1]}))
    md = render_markdown([a, b], toc_after=0)
    assert "- [Bluff: classic, 2 players](#bluff-classic-2-players)" in md
    assert "| share (95% low) |" in md
    html = render_html([a, b], "r", toc_after=0)
    assert f'id="{slug(b.title)}"' in html and f'href="#{slug(b.title)}"' in html


def test_a_missing_extra_fails_before_anything_is_computed(monkeypatch, capsys):
    import builtins

    from uno_sim.cli import main

    real = builtins.__import__

    def no_scipy(name, *a, **k):
        if name == "scipy" or name.startswith("scipy."):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_scipy)
    assert main(["report", "--games", "5", "--out", "/nonexistent/never-written"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "pip install -e '.[analysis]'" in err


def test_an_endless_game_of_the_bluff_game_counts_as_a_draw():
    """UNO Flip, 4 players, game 2304 of seed 1: seat 0 bluffs at every chance, the table
    challenges it every time, and seat 0 takes the whole deck back into its hand."""
    from uno_sim.analysis.bluffgame import Rule, _arm
    from uno_sim.engine import GameLimitError, play_game
    from uno_sim.rules import Rules
    from uno_sim.analysis.bluffgame import policies

    b, c = Rule("bluff", "always"), Rule("challenge", "posterior", 0.5)
    pols = policies(b, c, 4)
    with pytest.raises(GameLimitError):
        play_game(Rules(variant="flip", players=4), pols, seed=1, game=2304, max_turns=20000)
    win, stats = _arm("flip", 4, b, c, 2305, 1)
    assert stats["endless"] >= 1 and win[2304] == 0.25 and len(win) == 2305
