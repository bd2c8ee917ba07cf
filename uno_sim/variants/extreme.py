"""UNO Extreme (docs/rules.md E1-E7): the launcher replaces the draw pile."""

from __future__ import annotations

from ..kinds import (COLORS, FACE_DISCARD_ALL, FACE_EXTREME_HIT, FACE_HIT_TWO, FACE_REVERSE,
                     FACE_SKIP, FACE_WILD, NO_COLOR, DrawReason, Effect, Kind, Starter)
from . import Switch, Variant

LAUNCHER = ("model", "dist")  # E2: the launcher's firing law
LAUNCHER_MAX = 32  # E2: most entries in a launcher weight table
# E2 defaults: a model, not a measurement (no firing law is published; docs/rules.md)
LAUNCHER_BURST = (1, 2, 5, 7, 7, 7, 6, 5, 2, 1, 1, 1)  # burst of 1..12 cards: mostly 3-8
LAUNCHER_WEIGHTS = (92,) + LAUNCHER_BURST  # dist: 0..12 cards, fires on 1 press in 3


def extreme_kinds() -> list[Kind]:
    """E1 / E7: per color two each of 1-9, Hit 2, Skip, Reverse, Discard All; 4 Wild,
    4 Extreme Hit (112 cards; the seed gives no counts, docs/rules.md E1 decides them)."""
    kinds = []
    for c, letter in enumerate(COLORS[:4]):
        for n in range(1, 10):
            kinds.append(Kind(f"{letter}{n}", c, n, n, Effect.NUMBER, count=2))
        kinds.append(Kind(f"{letter}H2", c, FACE_HIT_TWO, 20, Effect.HIT, amount=2,
                          reason=DrawReason.HIT_TWO, count=2))
        kinds.append(Kind(f"{letter}S", c, FACE_SKIP, 20, Effect.SKIP, count=2))
        kinds.append(Kind(f"{letter}R", c, FACE_REVERSE, 20, Effect.REVERSE, count=2))
        kinds.append(Kind(f"{letter}DA", c, FACE_DISCARD_ALL, 30, Effect.DISCARD_ALL, count=2))
    kinds.append(Kind("W", NO_COLOR, FACE_WILD, 50, Effect.WILD, count=4))
    kinds.append(Kind("WH", NO_COLOR, FACE_EXTREME_HIT, 50, Effect.WILD_HIT, amount=2,
                      starter=Starter.RETURN, reason=DrawReason.EXTREME_HIT, count=4))
    return kinds


def launcher_text(r) -> str:
    """The launcher law of a run (E2), for the summary."""
    if r.launcher == "dist":
        return ("launcher: i.i.d. law, weights of firing 0, 1, 2, ... cards "
                + ",".join(map(str, r.launcher_weights)))
    return (f"launcher: model (not a measured law): fires on {r.launcher_fire}/1000 of the "
            f"presses, always after {r.launcher_max_silent} silent ones; bursts of 1, 2, ... "
            f"cards weighted " + ",".join(map(str, r.launcher_burst)))


WEIGHTS = f"1-{LAUNCHER_MAX} integers >= 0"
SWITCHES = (
    Switch(name="launcher", kind="choice", values=LAUNCHER, default="model", rule="E2",
           meaning="Extreme launcher law: model (stateful schedule, default) | dist (i.i.d. "
                   "per press)", owner="extreme"),
    Switch(name="launcher_fire", kind="int", lo=0, hi=1000, default=333, rule="E2",
           meaning="model: chance per mille that a press fires", owner="extreme"),
    Switch(name="launcher_max_silent", kind="int", lo=0, hi=1000, default=5, rule="E2",
           meaning="model: a press fires after this many silent presses in a row",
           owner="extreme"),
    Switch(name="launcher_burst", kind="weights", lo=1, hi=LAUNCHER_MAX,
           default=LAUNCHER_BURST, rule="E2", shown=WEIGHTS,
           meaning="model: weights of bursts of 1, 2, ... cards", owner="extreme"),
    Switch(name="launcher_weights", kind="weights", lo=0, hi=LAUNCHER_MAX,
           default=LAUNCHER_WEIGHTS, rule="E2", shown=WEIGHTS,
           meaning="dist: weights of firing 0, 1, 2, ... cards", owner="extreme"),
    Switch(name="hit_target_presses", kind="int", lo=0, hi=10, default=0, rule="E6",
           meaning="presses the target of an Extreme Hit makes itself before the attacker's "
                   "two (0; 1 is text 001's literal \"le désigné appuie\")", owner="extreme"),
)

VARIANT = Variant(name="extreme", order=2, title="UNO Extreme", rule="E1",
                  kinds=extreme_kinds, draw_source="launcher", switches=SWITCHES,
                  summary=lambda r: [launcher_text(r)])
