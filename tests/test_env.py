"""uno_sim.env: PettingZoo's own API and seed tests on every variant (any warning they
give fails), and the masks and actions checked against the
user-policy path (uno_sim.userpolicy), which asks the same questions of the same games."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")
pytest.importorskip("greenlet")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from uno_sim import engine  # noqa: E402
from uno_sim.cards import COLORS  # noqa: E402
from uno_sim.env import UnoGymEnv, env, raw_env  # noqa: E402
from uno_sim.rules import VARIANTS, RulesError  # noqa: E402
from uno_sim.userpolicy import DRAW_ACTION, Action  # noqa: E402

# Short games (target 100) keep the whole-game checks quick.
HOUSE = {"stacking": "both", "jump_in": True, "seven_o": True, "forced_play": True}
# (variant, switches and the test's seed, decisions the game must reach beyond play and color)
CONFIGS = [
    ("classic", {}, {"call_uno", "catch", "challenge", "play_drawn"}),
    ("classic", {"edition": "vintage", "target": 100, "seed": 6}, {"challenge", "replacement"}),
    ("classic", {"draw_until_playable": True, "target": 100}, set()),
    ("classic", {**HOUSE, "target": 100}, {"stack", "jump_in", "target"}),
    ("classic", {"teams": True, "target": 100}, set()),
    ("classic", {"scoring": "elimination", "players": 3}, set()),
    ("flip", {"target": 100}, {"call_uno", "challenge"}),
    ("flip", {"flip_pairing": "game", "flip_starter": "flip", "target": 100}, set()),
    ("extreme", {"target": 100}, {"target"}),
    ("hello-kitty", {"target": 100}, set()),
    ("house-2018", {"target": 100}, {"target"}),
    ("house-2018", {"exchange": "shuffle", "target": 100, "seed": 11}, {"discard"}),
]


@pytest.mark.filterwarnings("error")  # the checkers' warnings fail the test
@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api_and_seed(variant):
    api_test(env(variant=variant), num_cycles=300)
    seed_test(lambda: env(variant=variant), num_cycles=300)
    # learning seats mixed with built-in opponents
    api_test(env(variant=variant, players=3, opponents={1: "strategic"}), num_cycles=100)


@pytest.mark.filterwarnings("error")
def test_house_rules_api():
    api_test(env(rules={**HOUSE, "target": 100}), num_cycles=300)
    api_test(env(rules={"teams": True}, opponents="greedy"), num_cycles=100)
    api_test(env(players=2, rules={"seven_o": True}), num_cycles=200)
    api_test(env(variant="extreme", players=10, rules={"hand_size": 5}), num_cycles=100)


def _pick(legal, step):
    """A fixed, varied choice among legal action ids (the same on both sides)."""
    return legal[(7 * step + 3) % len(legal)]


class _Mirror:
    """A user policy that answers like the env agent: maps obs.actions to env action ids."""

    def __init__(self, e):
        self.e = e
        self.kind = {code: i for i, code in enumerate(e.card_codes)}
        self.log = []

    def ids(self, obs):
        e, n = self.e, len(obs.hand_sizes)
        off = {name: o for name, o, _ in e.action_layout}
        out = {}
        for a in obs.actions:
            if a == DRAW_ACTION:
                i = off["draw"]
            elif isinstance(a, Action):
                i = off["card"] + self.kind[a.card]
                if i in out and obs.hand.index(a.card) != a.index:
                    continue  # the env plays the first card of a kind in hand order
            elif isinstance(a, bool):
                i = off["yes"] if a else off["no"]
            elif isinstance(a, str):
                i = off["color"] + COLORS.index(a) % 4
            else:
                i = off["target"] + (a - obs.seat) % n
            out[i] = a
        return out

    def __call__(self, obs):
        ids = self.ids(obs)
        legal = sorted(ids)
        self.log.append((obs.seat, obs.decision, legal))
        return ids[_pick(legal, len(self.log))]


@pytest.mark.parametrize("variant,switches,reached", CONFIGS)
def test_masks_match_user_policy_path(variant, switches, reached):
    """Same game twice: the env's agents, and user policies answering the same way.
    Every decision must show the same legal actions, and the games must be identical."""
    switches = dict(switches)
    players = switches.pop("players", 4)
    seed = switches.pop("seed", 5)
    opp = {1: "strategic"}
    e = raw_env(variant=variant, players=players, rules=switches, opponents=opp)
    e.reset(seed=seed)
    log = []
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = [int(a) for a in np.flatnonzero(info["action_mask"])]
        log.append((e._seat_of[agent], e.decision(), legal))
        e.step(_pick(legal, len(log)))
    mirror = _Mirror(e)
    pols = [mirror if s is None else str(s) for s in e.seat_specs]
    res = engine.play_game(e.rules, pols, seed=seed, game=0)
    assert log == mirror.log
    assert res.winners == e.result["winners"] and res.scores == e.result["scores"]
    assert {"play", "color"} | reached <= {d for _, d, _ in log}


def test_observation_is_the_seats_own_view():
    e = raw_env(opponents="greedy")
    e.reset(seed=3)
    obs = e.observe("player_0")
    lay = {name: (o, n) for name, o, n in e.observation_layout}
    o, n = lay["hand"]
    assert obs[o:o + n].sum() == 7  # own hand: 7 cards as counts per kind
    o, n = lay["hand_sizes"]
    assert list(obs[o:o + n]) == [7, 7, 7, 7] or obs[o] == 7
    assert "other_faces" not in lay  # the backs of hands face the table only in UNO Flip
    assert e.possible_agents == ["player_0"]


def test_reset_seed_replays_and_next_game_differs():
    def first_obs(seed=None, e=None):
        e = e or raw_env()
        e.reset(seed=seed)
        return e, e.observe(e.agent_selection)

    e, a = first_obs(11)
    _, b = first_obs(11)
    assert np.array_equal(a, b)
    e.reset()  # the run's next game
    assert not np.array_equal(a, e.observe(e.agent_selection))


def _play_last_legal(e, seed):
    e.reset(seed=seed)
    while not (e.terminations["player_0"] or e.truncations["player_0"]):
        e.step(int(np.flatnonzero(e.action_mask("player_0"))[-1]))
    return e.result


def test_backends_play_the_same_game():
    results = []
    for backend in ("greenlet", "thread"):
        e = raw_env(variant="flip", opponents="random", backend=backend)
        results.append(_play_last_legal(e, 2))
        e.reset()  # a game in flight is stopped cleanly by the next reset and by close
        e.step(int(np.flatnonzero(e.action_mask("player_0"))[0]))
        e.reset()
        e.close()
    assert results[0] is not None and results[0] == results[1]


def test_illegal_action_and_bad_arguments():
    e = raw_env()
    e.reset(seed=0)
    mask = e.infos[e.agent_selection]["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=f"illegal action {bad}"):
        e.step(bad)
    with pytest.raises(RulesError, match="invalid variant 'uno'"):
        raw_env(variant="uno")
    with pytest.raises(RulesError, match="unknown policy 'smart'"):
        raw_env(opponents="smart")
    with pytest.raises(RulesError, match="no agent is left"):
        raw_env(players=2, opponents=["greedy", "greedy"])
    with pytest.raises(ValueError, match="invalid backend 'fiber'"):
        raw_env(backend="fiber")


def test_gymnasium_wrapper():  # its check_env: tests/test_env_checkers.py
    g = UnoGymEnv(variant="classic", opponents="strategic", seat=2, rules={"target": 100},
                  illegal_action="raise")
    obs, _ = g.reset(seed=4)
    total, done, steps = 0.0, False, 0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, r, term, trunc, _ = g.step(int(legal[0]))
        total += r
        done = term or trunc
        steps += 1
    assert steps > 1 and total == (1.0 if 2 in g.aec.result["winners"] else -1.0)
    with pytest.raises(RuntimeError, match="after the episode ended"):
        g.step(0)
    obs, _ = g.reset(seed=4)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"illegal action {bad} for player_2"):
        g.step(bad)
    lose = UnoGymEnv()  # illegal_action="lose", the default
    obs, _ = lose.reset(seed=4)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    assert lose.step(bad)[1:4] == (-1.0, True, False)


def test_games_are_dealt_as_uno_sim_play_deals_them():
    e = raw_env(opponents="greedy")
    e.reset(seed=9)
    obs = e.observe("player_0")
    o = dict((name, off) for name, off, _ in e.observation_layout)["hand"]
    hand = sorted(c for i, c in enumerate(e.card_codes) for _ in range(int(obs[o + i])))
    events = engine.play_game(e.rules, "greedy", seed=9, trace=True).events
    first = next(ev for ev in events if ev["e"] == "round_start")
    assert e.decision() == "play" and hand == sorted(first["hands"][0])
