"""The Python API: one entry point per task, either engine behind it.

``engine="c"`` (default) runs the compiled engine; ``engine="reference"`` runs
the plain-Python executable specification.  Both return the same
`GameResult` for the same arguments.
"""

from __future__ import annotations

from .rules import Rules, RulesError

ENGINES = ("c", "reference")


def engine_module(engine: str):
    if engine == "c":
        from . import engine as mod
    elif engine == "reference":
        from . import reference as mod
    else:
        raise RulesError(f"unknown engine {engine!r}: expected one of {', '.join(ENGINES)}")
    return mod


def make_rules(rules=None, **switches) -> Rules:
    """A Rules object from a Rules, a dict, and/or keyword switches."""
    if rules is None:
        return Rules(**switches)
    if isinstance(rules, dict):
        return Rules(**{**rules, **switches})
    if not isinstance(rules, Rules):
        raise RulesError(f"invalid rules {rules!r}: expected a Rules object or a dict")
    return rules.replace(**switches) if switches else rules


def play_game(rules=None, policies="greedy", seed: int = 0, game: int = 0, trace: bool = False,
              engine: str = "c", **switches):
    """Play one complete game (rounds until the target); `trace=True` keeps the events.

    >>> play_game(players=3, seed=7).winner in range(3)
    True
    """
    return engine_module(engine).play_game(make_rules(rules, **switches), policies, seed=seed,
                                           game=game, trace=trace)


def play_round(rules=None, policies="greedy", deck=None, dealer: int = 0, seed: int = 0,
               game: int = 0, scores=None, engine: str = "c", **switches):
    """Scenario API: play one round from a chosen deck order (card codes, top first).

    See `uno_sim.scenario.arrange` to build the order from chosen hands.
    """
    return engine_module(engine).play_round(make_rules(rules, **switches), policies, deck=deck,
                                            dealer=dealer, seed=seed, game=game, scores=scores)
