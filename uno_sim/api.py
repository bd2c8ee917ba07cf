"""The Python API: one entry point per task, either engine behind it.

``engine="c"`` (default) runs the compiled engine; ``engine="reference"`` runs
the plain-Python executable specification.  Both return the same
`GameResult` for the same arguments.
"""

from __future__ import annotations

from .errors import whole as _whole
from .rules import RULE_KEYS, TARGET_MAX, Rules, RulesError

ENGINES = ("c", "reference")


def engine_module(engine: str):
    """The module of an engine: uno_sim.engine for "c", uno_sim.reference for "reference"."""
    if engine == "c":
        from . import engine as mod
    elif engine == "reference":
        from . import reference as mod
    else:
        raise RulesError(f"unknown engine {engine!r}: expected one of {', '.join(ENGINES)}")
    return mod


def make_rules(rules=None, **switches) -> Rules:
    """A Rules object from a Rules, a dict, and/or keyword switches."""
    names = list(switches) + (list(rules) if isinstance(rules, dict) else [])
    unknown = [k for k in names if k not in RULE_KEYS]
    if unknown:
        raise RulesError(f"unknown rule switch {unknown[0]!r}: expected one of "
                         f"{', '.join(RULE_KEYS)}")
    if rules is None:
        return Rules(**switches)
    if isinstance(rules, dict):
        return Rules(**{**rules, **switches})
    if not isinstance(rules, Rules):
        raise RulesError(f"invalid rules {rules!r}: expected a Rules object or a dict")
    return rules.replace(**switches) if switches else rules


def _check_args(rules, seed, game, dealer=None, scores=None):
    _whole("seed", seed, 0, None)
    _whole("game", game, 0, 2**64 - 1)
    if dealer is not None:
        _whole("dealer", dealer, 0, rules.players - 1)
    if scores is not None:
        if isinstance(scores, (str, bytes)) or not hasattr(scores, "__len__") \
                or len(scores) != rules.players:
            raise RulesError(f"invalid scores {scores!r}: expected {rules.players} integers")
        for s in scores:
            _whole("score", s, 0, TARGET_MAX)


def play_game(rules=None, policies="greedy", seed: int = 0, game: int = 0, trace: bool = False,
              engine: str = "c", **switches):
    """Play one complete game (rounds until the target); `trace=True` keeps the events.

    >>> play_game(players=3, seed=7).winner in range(3)
    True
    """
    mod, rules = engine_module(engine), make_rules(rules, **switches)
    _check_args(rules, seed, game)
    return mod.play_game(rules, policies, seed=seed, game=game, trace=trace)


def play_round(rules=None, policies="greedy", deck=None, dealer: int = 0, seed: int = 0,
               game: int = 0, scores=None, engine: str = "c", **switches):
    """Scenario API: play one round from a chosen deck order (card codes, top first).

    See `uno_sim.scenario.arrange` to build the order from chosen hands.
    """
    mod, rules = engine_module(engine), make_rules(rules, **switches)
    _whole("dealer", dealer, 0, rules.players - 1)  # None too: a round has a dealer
    _check_args(rules, seed, game, dealer, scores)
    if deck is not None:
        deck = None if isinstance(deck, (str, bytes)) else list(deck) \
            if hasattr(deck, "__iter__") else None
        if deck is None or not all(isinstance(c, str) for c in deck):
            raise RulesError("invalid deck: expected a list of card codes, top card first")
    return mod.play_round(rules, policies, deck=deck, dealer=dealer, seed=seed, game=game,
                          scores=scores)
