"""The decision recorder (csrc/record.c, uno_sim.players.record, docs/net.md).

What is checked: a recorded game is the game played without the recorder (every stock
variant, house rules, search and network seats); every row's answer is legal and a
network seat's recorded answer is its numpy twin's on the recorded observation (the C
player checked bit for bit on real observations); a search seat's rows carry values and
rollout counts on exactly its legal actions; the same seed gives the same rows at any
number of workers and chunk size; the outcomes are the games' own.
"""

import numpy as np
import pytest

from uno_sim.engine import play_games
from uno_sim.players import netfile
from uno_sim.players.record import record
from uno_sim.rules import Rules, RulesError

from test_net import make_net

FAST = "pimc(samples=3,rollouts=1,value=round)"

CASES = [
    ("classic", 2, {}, ["greedy", "random"]),
    ("classic", 4, {}, ["strategic", "greedy", "random", "greedy(bluff=0.5)"]),
    ("flip", 3, {}, ["random", "strategic", "greedy"]),
    ("extreme", 2, {}, ["strategic", "random"]),
    ("hello-kitty", 2, {}, ["random", "greedy"]),
    ("house-2018", 3, {}, ["random", "greedy", "strategic"]),
    ("classic", 3, {"stacking": "both", "jump_in": True, "seven_o": True},
     ["random", "greedy", "strategic"]),
    ("classic", 2, {}, [FAST, "greedy"]),
    ("flip", 2, {}, ["ismcts(iterations=6,value=round)", "random"]),
]


@pytest.mark.parametrize("variant,players,house,pols", CASES)
def test_recorded_games_are_the_games(variant, players, house, pols):
    rules = Rules(variant=variant, players=players, **house)
    games = 6 if any("(" in p and p.split("(")[0] in ("pimc", "ismcts") for p in pols) else 30
    rows = record(rules, pols, games=games, seed=7)
    plain = play_games(rules, pols, seed=7, n_games=games)
    assert (rows["game_turns"] == plain["turns"]).all()
    assert (rows["game_rounds"] == plain["rounds"]).all()
    assert (rows["game_winner"] == plain["winner"]).all()
    assert (rows["game_scores"] == plain["scores"]).all()
    n = len(rows["action"])
    assert n > 5 * games and rows["games_failed"] == 0
    assert rows["mask"][np.arange(n), rows["action"]].all()  # the answer given is legal
    assert (rows["mask"].sum(1) >= 2).all()  # one legal answer is no decision
    for g in range(games):  # the outcomes are the game's
        sel = rows["game"] == g
        won = rows["seat"][sel] == plain["winner"][g]
        if plain["winner"][g] >= 0:
            assert (rows["won"][sel] == won).all()
        assert (np.diff(rows["turn"][sel]) >= 0).all()


def test_search_rows_carry_values_on_the_legal_actions():
    rules = Rules(players=2)
    rows = record(rules, [FAST, "greedy"], seats=[0], games=4, seed=3)
    assert (rows["seat"] == 0).all()
    searched = rows["count"].sum(1) > 0
    assert searched.mean() > 0.9
    v, c, m = rows["value"][searched], rows["count"][searched], rows["mask"][searched]
    assert ((c > 0) == (m > 0)).all()  # every legal action valued, nothing else
    assert np.isnan(v[c == 0]).all() and ((v[c > 0] >= 0) & (v[c > 0] <= 1)).all()
    assert (c[c > 0] % 3 == 0).all()  # 3 samples x 1 rollout per answer (kinds pool)
    greedy = record(rules, [FAST, "greedy"], seats=[1], games=2, seed=3)
    assert (greedy["count"] == 0).all() and np.isnan(greedy["value"]).all()


def test_same_rows_at_any_number_of_workers():
    rules = Rules(players=3)
    pols = ["random", "greedy", "strategic"]
    a = record(rules, pols, games=40, seed=11)
    b = record(rules, pols, games=40, seed=11, n_jobs=2, chunk=7)
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k], equal_nan=True), k
    c = record(rules, pols, games=10, seed=11, first_game=30)
    sel = a["game"] >= 30
    assert np.array_equal(c["obs"], a["obs"][sel]) and np.array_equal(c["game"], a["game"][sel])


def test_network_rows_are_the_numpy_twin(tmp_path):
    """The net seat's recorded answers are netfile.decide(netfile.forward(obs)) on the
    recorded observations: the C player and its twin agree on thousands of real states."""
    for variant, players in (("classic", 2), ("flip", 4), ("extreme", 3)):
        rules = Rules(variant=variant, players=players)
        path, net = make_net(tmp_path, rules, widths=(48, 24), seed=players,
                             name=f"{variant}.unonet")
        pols = [f"net(weights={path})"] + ["greedy"] * (players - 1)
        rows = record(rules, pols, seats=[0], games=6, seed=1)
        assert len(rows["action"]) > 100
        for x, m, a in zip(rows["obs"], rows["mask"], rows["action"]):
            logits, _ = netfile.forward(net, x)
            assert netfile.decide(logits, m) == a


def test_played_answers_are_the_networks_the_rows_the_searchs(tmp_path):
    """DAgger (`play`): the recorded seat plays the network's answers, so the games, and
    the states of the rows, are those of the network's games (the rows of the network's
    own recording, state for state); each row's answer and values are the search's at that
    state, which differs from the network's answer on many rows."""
    rules = Rules(players=2)
    path, net = make_net(tmp_path, rules, widths=(48, 24), seed=3)
    spec = f"net(weights={path})"
    dag = record(rules, [FAST, "greedy"], seats=[0], games=6, seed=5, play=[spec, "greedy"])
    own = record(rules, [spec, "greedy"], seats=[0], games=6, seed=5)
    plain = play_games(rules, [spec, "greedy"], seed=5, n_games=6)
    for k in ("turns", "rounds", "winner", "scores"):
        assert (dag[f"game_{k}"] == plain[k]).all(), k
    for k in ("obs", "mask", "game", "round", "turn", "decision", "won", "truth"):
        assert np.array_equal(dag[k], own[k]), k
    assert len(dag["action"]) > 100
    assert (dag["count"].sum(1) > 0).mean() > 0.9  # the search's values
    assert dag["mask"][np.arange(len(dag["action"])), dag["action"]].all()
    assert (dag["action"] != own["action"]).mean() > 0.2  # the search's answers, not the net's
    searched = record(rules, [FAST, "greedy"], seats=[0], games=6, seed=5)
    assert not np.array_equal(searched["game_turns"], dag["game_turns"])


def test_the_engine_refuses_a_search_to_play():
    """Below the recorder's check, csrc/record.c refuses a search player in `play` (its
    answers are the rows'; played, it would be dispatched as a plain policy)."""
    from uno_sim import _engine
    from uno_sim.engine import _setup
    from uno_sim.rng import key_from_seed

    rules = Rules(players=2)
    eng = _setup(rules, [FAST, "greedy"])[2]
    search = _setup(rules, ["pimc(samples=2,rollouts=1)", "greedy"])[2]
    with pytest.raises(RulesError):
        _engine.record_games(eng, key_from_seed(1), 0, 1, 1, 2, search)


def test_bad_arguments_are_one_line():
    for kw, what in (({"seats": [2]}, "seats"), ({"games": -1}, "games"),
                     ({"obs_seats": 1}, "obs_seats"), ({"n_jobs": 0}, "n_jobs"),
                     ({"policies": [lambda obs: 0, "greedy"]}, "user policies"),
                     ({"play": [lambda obs: 0, "greedy"]}, "invalid play"),
                     ({"play": "nosuch"}, "nosuch"),
                     ({"play": ["ismcts", "greedy"]}, "a search player labels")):
        with pytest.raises(RulesError, match=what):
            record(Rules(players=2), **{"policies": "greedy", **kw})


def test_rows_to_an_npz_file(tmp_path):
    out = tmp_path / "rows.npz"
    rows = record(Rules(players=2), "greedy", games=3, seed=2, out=str(out))
    back = np.load(out)
    assert np.array_equal(back["obs"], rows["obs"]) and np.array_equal(back["won"], rows["won"])


@pytest.mark.parametrize("table", ["greedy", "greedy(bluff=1)"])
def test_truth_is_what_the_challenge_revealed(table):
    """C12: the recorder's `truth` of a challenge row is whether the card was a bluff, as
    the challenge itself reveals it (the trace's challenge event, game by game, in order);
    -1 at every other decision; a table that never bluffs shows no bluff."""
    from uno_sim.engine import play_game

    rules = Rules(variant="classic", players=2)
    specs = ["greedy(challenge=1)", table]
    rows = record(rules, specs, seats=[0], games=12, seed=5, obs_seats=2)
    challenge = rows["decision"] == 3
    assert (rows["truth"][~challenge] == -1).all()
    for g in range(12):
        events = play_game(rules, specs, seed=5, game=g, trace=True).events
        seen = [e["bluff"] for e in events if e["e"] == "challenge" and e["p"] == 0]
        assert rows["truth"][challenge & (rows["game"] == g)].tolist() == [int(b) for b in seen]
    if table == "greedy":
        assert challenge.sum() > 5 and not rows["truth"][challenge].any()
    else:
        assert set(rows["truth"][challenge].tolist()) == {0, 1}
