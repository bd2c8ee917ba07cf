"""UNO Flip (docs/rules.md F1-F5): two-faced cards, a light and a dark side."""

from __future__ import annotations

from ..kinds import (COLORS, FACE_DRAW_FIVE, FACE_DRAW_ONE, FACE_FLIP, FACE_REVERSE,
                     FACE_SKIP, FACE_SKIP_ALL, FACE_WILD, FACE_WILD_DRAW_COLOR,
                     FACE_WILD_DRAW_TWO, NO_COLOR, DrawReason, Effect, Kind, Starter)
from . import Switch, Variant

FLIP_PAIRING = ("deck", "game")  # F1: faces paired once per deck_seed | every game
FLIP_STARTER = ("return", "flip")  # F2: a Flip turned up as the starter


def light_kinds() -> list[Kind]:
    """F1 / F5: the light kinds of UNO Flip (112 cards)."""
    light = []
    for c, letter in enumerate(COLORS[:4]):
        for n in range(1, 10):
            light.append(Kind(f"{letter}{n}", c, n, n, Effect.NUMBER, count=2))
        light.append(Kind(f"{letter}+1", c, FACE_DRAW_ONE, 10, Effect.DRAW, amount=1,
                          reason=DrawReason.DRAW_ONE, count=2))
        light.append(Kind(f"{letter}R", c, FACE_REVERSE, 20, Effect.REVERSE, count=2))
        light.append(Kind(f"{letter}S", c, FACE_SKIP, 20, Effect.SKIP, count=2))
        light.append(Kind(f"{letter}F", c, FACE_FLIP, 20, Effect.FLIP, starter=Starter.RETURN,
                          count=2))
    light.append(Kind("W", NO_COLOR, FACE_WILD, 40, Effect.WILD, count=4))
    light.append(Kind("W+2", NO_COLOR, FACE_WILD_DRAW_TWO, 50, Effect.WILD_DRAW, amount=2,
                      restricted=True, starter=Starter.RETURN, reason=DrawReason.WILD_DRAW_TWO,
                      count=4))
    return light


def dark_kinds() -> list[Kind]:
    """F1 / F5: the dark kinds of UNO Flip (112 cards)."""
    dark = []
    for c, letter in enumerate(COLORS[4:], start=4):
        for n in range(1, 10):
            dark.append(Kind(f"{letter}{n}", c, n, n, Effect.NUMBER, count=2))
        dark.append(Kind(f"{letter}+5", c, FACE_DRAW_FIVE, 20, Effect.DRAW, amount=5,
                         reason=DrawReason.DRAW_FIVE, count=2))
        dark.append(Kind(f"{letter}R", c, FACE_REVERSE, 20, Effect.REVERSE, count=2))
        dark.append(Kind(f"{letter}SE", c, FACE_SKIP_ALL, 30, Effect.SKIP_ALL,
                         starter=Starter.RETURN, count=2))
        dark.append(Kind(f"{letter}F", c, FACE_FLIP, 20, Effect.FLIP, starter=Starter.RETURN,
                         count=2))
    dark.append(Kind("DW", NO_COLOR, FACE_WILD, 40, Effect.WILD, count=4))
    dark.append(Kind("DW+C", NO_COLOR, FACE_WILD_DRAW_COLOR, 60, Effect.WILD_DRAW_COLOR,
                     restricted=True, starter=Starter.RETURN,
                     reason=DrawReason.WILD_DRAW_COLOR, count=4))
    return dark


def flip_kinds() -> tuple[list[Kind], list[Kind]]:
    """F1 / F5: the light and the dark kinds of UNO Flip (counts per side, 112 each)."""
    return light_kinds(), dark_kinds()


SWITCHES = (
    Switch(name="flip_pairing", kind="choice", values=FLIP_PAIRING, default="deck", rule="F1",
           meaning="Flip faces paired once per deck_seed (deck) | re-paired every game (game)",
           owner="flip", c_field="repair"),
    Switch(name="deck_seed", kind="int", lo=0, hi=2**63 - 1, default=0, rule="F1",
           meaning="seed of the deck's light/dark pairing", owner="flip", c_field=None),
    Switch(name="flip_starter", kind="choice", values=FLIP_STARTER, default="return",
           rule="F2", owner="flip", only="only UNO Flip has Flip cards",
           meaning="a Flip starter is put back (return) or turns the game to the dark side "
                   "(flip)"),
)

VARIANT = Variant(name="flip", order=1, title="UNO Flip", rule="F1", kinds=light_kinds,
                  dark_kinds=dark_kinds, switches=SWITCHES)
