"""The legal actions a user policy is offered come from the engine: the C engine's
uno_legal_actions and the reference engine's Game.legal_actions must list the same
actions, in the same order, at every decision of every variant and house rule.

``N_LEGAL_GAMES=20 pytest tests/test_legal_actions.py`` plays more games per case (default 3).
"""

from __future__ import annotations

import os

import pytest

import uno_sim
from uno_sim.rules import Rules, RulesError

VARIANTS = ("classic", "flip", "extreme", "hello-kitty", "house-2018")
HOUSE = ({}, {"stacking": "both", "forced_play": True, "jump_in": True},
         {"stacking": "draw2", "seven_o": True}, {"stacking": "draw4", "challenge": "vintage"},
         {"teams": True, "players": 4}, {"challenge": "vintage", "forced_play": True})


GAMES = int(os.environ.get("N_LEGAL_GAMES", "3"))


class RandomRecorder:
    """Records every decision's obs.actions and picks one with obs.randint."""

    def __init__(self):
        self.seen = []

    def decide(self, obs):
        self.seen.append((obs.decision, obs.round, obs.turn, obs.actions))
        return obs.actions[obs.randint(len(obs.actions))]


def _rules(variant, house):
    fields = {"players": 3, "target": 100, **house}
    try:
        return Rules(variant=variant, **fields)
    except RulesError:
        return None


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("house", range(len(HOUSE)))
def test_c_and_reference_offer_the_same_legal_actions(variant, house):
    rules = _rules(variant, HOUSE[house])
    if rules is None:
        pytest.skip("a house rule this variant does not have")
    kinds = set()
    for game in range(GAMES):
        out = {}
        for engine in ("reference", "c"):
            seats = [RandomRecorder() for _ in range(rules.players)]
            res = uno_sim.play_game(rules, seats, seed=11, game=game, trace=True, engine=engine)
            out[engine] = (res, [s.seen for s in seats])
        (r_ref, seen_ref), (r_c, seen_c) = out["reference"], out["c"]
        assert seen_ref == seen_c
        assert r_ref.events == r_c.events
        kinds |= {d for seen in seen_c for d, *_ in seen}
    assert {"play", "color"} <= kinds
