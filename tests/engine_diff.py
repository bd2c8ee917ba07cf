"""Helpers for comparing the C engine with the reference engine, game by game.

Some policy settings never let a round end, or stalemate every round so that
the game never ends (both engines then stop with GameLimitError, see
UNO_MAX_TURNS and UNO_MAX_ROUNDS in csrc/uno.h).  Both engines are run under
lower limits on the turns of a round and the rounds of a game, to keep such
games short, and when a limit is reached the traces are compared up to it.
"""

from __future__ import annotations

import hashlib
import os

from uno_sim import engine, reference
from uno_sim.rules import Rules

MAX_TURNS = 2000  # turns in one round, in both engines
MAX_ROUNDS = 300  # rounds in one game (some policies stalemate every round)


def reference_game(rules: Rules, policies, seed: int, game: int):
    """(GameResult or None when a limit was hit, events)."""
    try:
        res = reference.play_game(rules, policies, seed, game, trace=True,
                                  max_turns=MAX_TURNS, max_rounds=MAX_ROUNDS)
    except engine.GameLimitError as e:
        return None, e.events
    return res, res.events


def c_game(rules: Rules, policies, seed: int, game: int):
    try:
        res = engine.play_game(rules, policies, seed, game, trace=True, max_turns=MAX_TURNS,
                                 max_rounds=MAX_ROUNDS)
    except engine.GameLimitError as e:
        return None, e.events
    return res, res.events


def describe_mismatch(ev_c: list, ev_ref: list) -> str | None:
    """None when equal; else the first differing index and the events around it."""
    n = min(len(ev_c), len(ev_ref))
    i = next((k for k in range(n) if ev_c[k] != ev_ref[k]), None)
    if i is None:
        if len(ev_c) == len(ev_ref):
            return None
        i = n
    lines = [f"first difference at event {i} (C has {len(ev_c)} events, reference {len(ev_ref)})"]
    for k in range(max(0, i - 5), i):
        lines.append(f"  [{k}] both: {ev_ref[k]}")
    lines.append(f"  [{i}] C:    {ev_c[i] if i < len(ev_c) else '<end>'}")
    lines.append(f"  [{i}] ref:  {ev_ref[i] if i < len(ev_ref) else '<end>'}")
    for k in range(i + 1, min(i + 3, len(ev_ref))):
        lines.append(f"  [{k}] ref:  {ev_ref[k]}")
    return "\n".join(lines)


def compare_game(rules: Rules, policies, seed: int, game: int) -> bool:
    """Assert both engines play the same game; returns False when the limit was hit."""
    res_c, ev_c = c_game(rules, policies, seed, game)
    res_r, ev_r = reference_game(rules, policies, seed, game)
    where = f"rules={rules!r} policies={policies!r} seed={seed} game={game}"
    digest_to = os.environ.get("UNO_TRACE_DIGEST")
    if digest_to:  # one line per game: what was played and a hash of its trace
        with open(digest_to, "a") as f:
            f.write(f"{hashlib.sha256(repr(ev_c).encode()).hexdigest()} {where}\n")
    msg = describe_mismatch(ev_c, ev_r)
    assert msg is None, f"{where}\n{msg}"
    assert (res_c is None) == (res_r is None), f"{where}: only one engine hit the turn limit"
    if res_c is not None:
        assert res_c.summary() == res_r.summary(), f"{where}\nC:   {res_c.summary()}\nref: {res_r.summary()}"
        assert res_c == res_r, where
    return res_c is not None
