"""Counterfactual decision points (uno_sim.counterfactual): forced answers in both engines."""

import polars as pl
import pytest

from uno_sim import _engine, counterfactual, reference
from uno_sim.counterfactual import decision_values
from uno_sim.engine import _setup
from uno_sim.rng import key_from_seed
from uno_sim.rules import Rules, RulesError

CASES = [
    (Rules(players=2), ["greedy", "greedy(challenge=0.5)"], 0, "bluff"),
    (Rules(players=4), ["strategic(bluff=0.3)", "random", "greedy", "greedy"], 0, "bluff"),
    (Rules(players=2), ["greedy", "random(bluff=0.6)"], 0, "challenge"),
    (Rules(players=3, variant="flip"), ["greedy(challenge=auto)", "greedy(bluff=1)", "random"],
     0, "challenge"),
    (Rules(players=3, variant="flip"), ["greedy(bluff=0.5)", "greedy(challenge=1)", "random"],
     0, "bluff"),
]


@pytest.mark.parametrize("rules,policies,seat,kind", CASES)
def test_forced_points_are_the_same_in_both_engines(rules, policies, seat, kind):
    """Counting, describing and forcing a decision point: C and the reference agree."""
    _, _, eng = _setup(rules, policies)
    key = key_from_seed(5)
    checked = 0
    for game in range(3):
        res_c, f_c, ev_c = eng.play_forced(key, game, seat, counterfactual.KINDS[kind],
                                           trace=True)
        res_r, f_r = reference.play_forced(rules, policies, seed=5, game=game, seat=seat,
                                           kind=kind, trace=True)
        assert res_c["scores"] == res_r.scores and f_c["seen"] == f_r.seen
        assert [(p["round"], p["turn"], p["own"], p["other"], p["natural"], p["truth"])
                for p in f_c["points"]] == [
            (p.round, p.turn, p.own, p.other, p.natural, p.truth) for p in f_r.points]
        for i in range(min(f_c["seen"], 3)):
            for value in (0, 1):
                rc, fc, _ = eng.play_forced(key, game, seat, counterfactual.KINDS[kind], i,
                                            value)
                rr, fr = reference.play_forced(rules, policies, seed=5, game=game, seat=seat,
                                               kind=kind, index=i, value=value)
                assert (rc["scores"], rc["rounds"]) == (rr.scores, rr.rounds)
                assert (fc["hit_round"], fc["round_won"], fc["round_points"]) == (
                    fr.hit_round, fr.round_won, fr.round_points)
                checked += 1
    assert checked > 0


def test_the_policys_own_answer_replays_the_game():
    """For greedy, forcing the answer the policy gives anyway plays the natural game."""
    rules = Rules(players=4)
    policies = ["greedy(bluff=0.4,voluntary_draw=0.1)", "greedy(challenge=0.5)", "random",
                "strategic"]
    _, _, eng = _setup(rules, policies)
    key = key_from_seed(8)
    n = 0
    for game in range(10):
        natural, seen, ev = eng.play_forced(key, game, 0, 0, trace=True)
        for i, pt in enumerate(seen["points"]):
            res, _, ev2 = eng.play_forced(key, game, 0, 0, i, pt["natural"], trace=True)
            assert ev2 == ev and res == natural
            n += 1
    assert n > 10


def test_decision_values_frame_and_jobs():
    a = decision_values("bluff", players=2, policies=["greedy", "greedy"], games=40, seed=3)
    b = decision_values("bluff", players=2, policies=["greedy", "greedy"], games=40, seed=3,
                        n_jobs=2)
    assert a.equals(b) and a.height > 40
    assert a.schema == pl.Schema(counterfactual.COLUMNS)
    assert a["could_bluff_p"].is_null().all() and a["truth"].is_null().all()
    # a bluff point: the seat holds a restricted card and the active color, so 2+ cards
    assert (a["own_size"] >= 2).all() and (a["other_size"] >= 1).all()
    c = decision_values("challenge", players=2, policies=["greedy", "greedy(bluff=1)"],
                        games=40, seed=3)
    assert c.height > 0 and c["truth"].is_in([0, 1]).all()
    assert ((c["could_bluff_p"] >= 0) & (c["could_bluff_p"] <= 1)).all()
    # the greedy challenger never challenges (challenge=0): natural is always 0
    assert (c["natural"] == 0).all()


def test_a_challenge_of_a_bluff_pays_and_of_a_legal_card_costs():
    """C12 modern: a successful challenge gives the offender 4 cards, a failed one 6 to us.

    Seed fixed: the round-win effects are about +0.15 (a bluff) and 0.00 (a legal card,
    -0.004 over 1000 games); with about 2000 legal-card points and a spread of 0.57 the
    standard error of the latter is 0.013, so "costs" is tested as "does not pay"."""
    c = decision_values("challenge", players=2, policies=["greedy", "greedy(bluff=0.5)"],
                        games=300, seed=2)
    d = c.with_columns(v=pl.col("round_win_1") - pl.col("round_win_0"))
    by = {t: v for t, v in d.group_by("truth").agg(pl.col("v").mean()).iter_rows()}
    assert by[1] > 0.05 and by[0] < 0.03 and by[1] - by[0] > 0.1


@pytest.mark.parametrize("bad,msg", [
    ({"kind": "lie"}, "invalid kind"),
    ({"seat": 5}, "invalid seat"),
    ({"games": -1}, "invalid games"),
    ({"n_jobs": 0}, "invalid n_jobs"),
])
def test_bad_arguments_are_one_line_errors(bad, msg):
    kw = {"kind": "bluff", "players": 2, "games": 2}
    kw.update(bad)
    with pytest.raises(RulesError, match=msg):
        decision_values(kw.pop("kind"), **kw)
