"""UNO Hello Kitty (docs/rules.md H1-H3): classic UNO, pink for red, plus Badtz-Maru wilds."""

from __future__ import annotations

from ..kinds import COLOR_NAMES, FACE_BADTZ_MARU, NO_COLOR, DrawReason, Effect, Kind
from . import Variant
from .classic import classic_kinds


def hello_kitty_kinds(wd4_value: int = 50) -> list[Kind]:
    """H1 / H3: the classic 108 (pink is color 0) plus 4 Badtz-Maru wilds (value 50)."""
    return classic_kinds(wd4_value) + [
        Kind("WBM", NO_COLOR, FACE_BADTZ_MARU, 50, Effect.WILD_FEWEST_DRAW, amount=4,
             reason=DrawReason.BADTZ_MARU, count=4)]


VARIANT = Variant(name="hello-kitty", order=3, title="UNO Hello Kitty", rule="H1",
                  kinds=hello_kitty_kinds, deck_fields=("wd4_value",),
                  color_names=("pink",) + COLOR_NAMES[1:])
