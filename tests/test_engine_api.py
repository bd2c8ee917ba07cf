"""The batch API of the C engine: play_games against play_game and the reference engine."""

import numpy as np
import pytest

from uno_sim import engine
from uno_sim.results import SEAT_COUNTERS
from uno_sim.rules import Rules
from uno_sim.runner import reference_games

CASES = [
    (Rules(players=4), "greedy"),
    (Rules(players=2, edition="vintage"), "random"),
    (Rules(players=6, teams=True, target=200), ["greedy", "random(bluff=0.5)"] * 3),
    (Rules(players=5, scoring="elimination", target=80), "greedy(challenge=0.5,bluff=0.3)"),
    (Rules(players=3, scoring="lowest", target=150), "random"),
    (Rules(variant="flip", players=4, flip_pairing="game", target=200),
     ["strategic", "greedy(color=smart)", "strategic(challenge=auto)", "random"]),
]
IDS = ["4p", "2p-vintage", "6p-teams", "5p-elimination", "3p-lowest", "4p-flip-strategic"]


@pytest.mark.parametrize("rules,policies", CASES, ids=IDS)
def test_play_games_rows_equal_play_game(rules, policies):
    cols = engine.play_games(rules, policies, seed=5, first_game=100, n_games=40)
    for i in range(40):
        r = engine.play_game(rules, policies, seed=5, game=100 + i)
        assert cols["game"][i] == 100 + i
        assert (cols["winner"][i], cols["team"][i]) == (r.winner, r.team)
        assert (cols["rounds"][i], cols["turns"][i]) == (r.rounds, r.turns)
        assert cols["scores"][i].tolist() == r.scores
        assert cols["team_scores"][i].tolist() == r.team_scores
        for k in SEAT_COUNTERS:
            assert cols[k][i].tolist() == r.seats[k]


@pytest.mark.parametrize("rules,policies", CASES, ids=IDS)
def test_round_rows_equal_the_reference_engine(rules, policies):
    c = engine.play_games(rules, policies, seed=8, first_game=0, n_games=12, rounds=True)
    ref = reference_games(rules, policies, 8, 0, 12)
    for k, v in ref.items():
        assert np.array_equal(c[k], v), k


def test_round_rows_are_consistent_with_the_games():
    rules = Rules(players=4)
    c = engine.play_games(rules, "greedy", seed=3, n_games=200, rounds=True)
    per_game = np.bincount(c["round_game"], minlength=200)
    assert per_game.tolist() == c["rounds"].tolist()
    assert np.bincount(c["round_game"], weights=c["round_turns"]).astype(int).tolist() == \
        c["turns"].tolist()
    pts = np.zeros((200, 4), dtype=np.int64)
    np.add.at(pts, c["round_game"], c["round_points"])
    assert pts.tolist() == c["scores"].tolist()
    won = c["round_winner"] >= 0
    assert (c["round_cards_left"][won, c["round_winner"][won]] == 0).all()


def test_round_rows_grow_past_the_first_guess():
    # Lowest-score games to a high target run to hundreds of rounds, far past the
    # 16 rows per game first allotted: the batch must grow and resume exactly.
    rules = Rules(players=2, scoring="lowest", target=3000)
    c = engine.play_games(rules, "greedy", seed=1, n_games=3, rounds=True)
    assert c["rounds"].sum() > 16 * 3 + 64
    assert len(c["round_game"]) == c["rounds"].sum()
    one = [engine.play_games(rules, "greedy", seed=1, first_game=g, n_games=1, rounds=True)
           for g in range(3)]
    for k in c:
        assert np.array_equal(c[k], np.concatenate([o[k] for o in one])), k


def test_limit_errors_name_the_limit_that_applied():
    with pytest.raises(engine.GameLimitError, match=r"within 100000 turns in a round, 1 rounds"):
        engine.play_game(Rules(players=4), "greedy", seed=1, max_rounds=1)
    with pytest.raises(engine.GameLimitError, match=r"within 5 turns in a round") as e:
        engine.play_game(Rules(players=4), "greedy", seed=1, max_turns=5, trace=True)
    assert e.value.events  # the trace up to the limit


def test_the_boundary_fills_every_c_field_by_name():
    """uno_config and uno_policy cross into C by field name: a field missing or unknown is
    a one-line RulesError, never a silently shifted field."""
    import pytest

    from uno_sim import _engine
    from uno_sim.cards import deck_for
    from uno_sim.engine import CONFIG_FIELDS, POLICY_FIELDS, _config, _policy
    from uno_sim.policies import parse_policy
    from uno_sim.rules import Rules, RulesError

    rules = Rules(players=2)
    deck = deck_for(rules)
    codes = [[deck.code(c, 0) for c in range(deck.size)]]
    cfg = _config(rules)
    pol = _policy(parse_policy("greedy"))
    assert [k for k, _ in cfg] == list(CONFIG_FIELDS)
    assert [k for k, _ in pol] == list(POLICY_FIELDS)
    _engine.Engine(cfg, deck.arrays(), [pol, pol], codes)
    with pytest.raises(RulesError, match="'target' missing"):
        _engine.Engine(tuple(kv for kv in cfg if kv[0] != "target"), deck.arrays(),
                       [pol, pol], codes)
    with pytest.raises(RulesError, match="unknown 'speed'"):
        _engine.Engine(cfg + (("speed", 1),), deck.arrays(), [pol, pol], codes)
    with pytest.raises(RulesError, match="'suspect' missing"):
        _engine.Engine(cfg, deck.arrays(), [tuple(kv for kv in pol if kv[0] != "suspect")] * 2,
                       codes)
