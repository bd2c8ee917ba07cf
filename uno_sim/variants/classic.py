"""Classic UNO (docs/rules.md C1-C20): the 108-card deck every other variant starts from."""

from __future__ import annotations

from ..kinds import (COLORS, FACE_DRAW_TWO, FACE_REVERSE, FACE_SKIP, FACE_WILD,
                     FACE_WILD_DRAW_FOUR, NO_COLOR, DrawReason, Effect, Kind, Starter)
from . import Variant


def classic_kinds(wd4_value: int = 50) -> list[Kind]:
    """C1 / C16: per color one 0, two each of 1-9, Skip, Reverse, Draw Two; 4 Wild, 4 WD4."""
    kinds = []
    for c, letter in enumerate(COLORS[:4]):
        for n in range(10):
            kinds.append(Kind(f"{letter}{n}", c, n, n, Effect.NUMBER, count=1 if n == 0 else 2))
        kinds.append(Kind(f"{letter}S", c, FACE_SKIP, 20, Effect.SKIP, count=2))
        kinds.append(Kind(f"{letter}R", c, FACE_REVERSE, 20, Effect.REVERSE, count=2))
        kinds.append(
            Kind(f"{letter}+2", c, FACE_DRAW_TWO, 20, Effect.DRAW, amount=2,
                 reason=DrawReason.DRAW_TWO, count=2)
        )
    kinds.append(Kind("W", NO_COLOR, FACE_WILD, 50, Effect.WILD, count=4))
    kinds.append(
        Kind("W+4", NO_COLOR, FACE_WILD_DRAW_FOUR, wd4_value, Effect.WILD_DRAW, amount=4,
             restricted=True, starter=Starter.RETURN, reason=DrawReason.WD4, count=4)
    )
    return kinds


VARIANT = Variant(name="classic", order=0, title="UNO", rule="C1", kinds=classic_kinds,
                  deck_fields=("wd4_value",))
