"""The error of a bad rule, scenario or argument, and the one check of an integer argument.

The lowest room of uno_sim: it imports nothing of it, so that every room can raise
`RulesError` (the generator's seed check, a variant's own switches, the rules, both
engines, the players) without reaching up to where the rules are defined.
`uno_sim.rules.RulesError` is this class.
"""

from __future__ import annotations

import numpy as np


class RulesError(ValueError):
    """Invalid rules or scenario; the message names the bad value."""


def whole(name, value, lo, hi):
    """An integer argument in [lo, hi] (numpy integers too; hi None: no bound above);
    RulesError otherwise, so that both engines refuse the same values instead of
    truncating or overflowing differently."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or value < lo or hi is not None and value > hi:
        expect = f"an integer {lo}..{hi}" if hi is not None else "a non-negative integer"
        raise RulesError(f"invalid {name} {value!r}: expected {expect}")
    return int(value)
