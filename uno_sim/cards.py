"""Card kinds and deck tables.

A variant is data: a table of card *kinds* (color, matching face, value, effect
opcode, restriction, starter rule, count) and the deck that lists one kind per
physical card.  Both engines read the same table; the C engine receives it as
flat integer arrays (see ``DeckTable.arrays``).

Card codes (used in traces, scenarios and the CLI)
--------------------------------------------------
==========  ===========================================================
``R7``      colored number: color letter (R, Y, G, B) then the digit
``GS``      Skip (``S``), ``BR`` Reverse (``R``), ``Y+2`` Draw Two
``W``       Wild
``W+4``     Wild Draw Four
==========  ===========================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

COLORS = ("R", "Y", "G", "B")
COLOR_NAMES = ("red", "yellow", "green", "blue")
NO_COLOR = -1


class Effect(IntEnum):
    """What playing a kind does (one dispatcher in each engine handles these)."""

    NUMBER = 0
    SKIP = 1  # next player loses the turn
    REVERSE = 2  # direction flips; acts as Skip when two players remain (C11)
    DRAW = 3  # next player draws `amount` and loses the turn
    WILD = 4  # the player names a color
    WILD_DRAW = 5  # names a color; next draws `amount`, loses the turn; challengeable


class Starter(IntEnum):
    """What a kind does when it is turned up as the starter card (C5)."""

    PLAY = 0  # its effect applies as described in C5
    RETURN = 1  # it is shuffled back into the draw pile and another is turned up


class DrawReason(IntEnum):
    """Why cards were drawn; the trace writes the lower-case name."""

    CANNOT_PLAY = 0
    VOLUNTARY = 1
    DRAW_TWO = 2
    WD4 = 3
    CHALLENGE = 4
    UNO_PENALTY = 5


# Faces beyond the digits 0..9.  Two cards "match by symbol" when faces are equal.
FACE_SKIP = 10
FACE_REVERSE = 11
FACE_DRAW_TWO = 12
FACE_WILD = 13
FACE_WILD_DRAW_FOUR = 14


@dataclass(frozen=True)
class Kind:
    code: str
    color: int  # 0..3, or NO_COLOR for wilds
    face: int  # matching symbol: 0..9 for numbers, FACE_* otherwise
    value: int  # points when left in a hand at the end of a round
    effect: Effect
    amount: int = 0  # cards drawn by the victim of DRAW / WILD_DRAW
    restricted: bool = False  # legal only without a card of the active color (C7)
    starter: Starter = Starter.PLAY
    reason: DrawReason = DrawReason.CANNOT_PLAY  # reason written for its victim's draw
    count: int = 1  # copies in the deck


@dataclass(frozen=True)
class DeckTable:
    name: str
    kinds: tuple[Kind, ...]
    card_kind: tuple[int, ...]  # physical card id -> kind id

    @property
    def size(self) -> int:
        return len(self.card_kind)

    def code(self, card: int) -> str:
        return self.kinds[self.card_kind[card]].code

    def kind_of_code(self, code: str) -> int:
        for i, k in enumerate(self.kinds):
            if k.code == code:
                return i
        raise ValueError(f"unknown card code {code!r}")

    def cards_from_codes(self, codes) -> list[int]:
        """Map codes to distinct physical card ids (copies taken in id order)."""
        free: dict[int, list[int]] = {}
        for card, kind in enumerate(self.card_kind):
            free.setdefault(kind, []).append(card)
        for ids in free.values():
            ids.reverse()
        out = []
        for code in codes:
            ids = free.get(self.kind_of_code(code))
            if not ids:
                raise ValueError(f"too many copies of card {code!r} for the {self.name} deck")
            out.append(ids.pop())
        return out

    def arrays(self) -> dict[str, list[int]]:
        """The table as flat integer columns, the form the C engine takes."""
        ks = self.kinds
        return {
            "color": [k.color for k in ks],
            "face": [k.face for k in ks],
            "value": [k.value for k in ks],
            "effect": [int(k.effect) for k in ks],
            "amount": [k.amount for k in ks],
            "restricted": [int(k.restricted) for k in ks],
            "starter": [int(k.starter) for k in ks],
            "reason": [int(k.reason) for k in ks],
            "card_kind": list(self.card_kind),
        }


def classic_kinds(wd4_value: int = 50) -> list[Kind]:
    """C1 / C16: per color one 0, two each of 1-9, Skip, Reverse, Draw Two; 4 Wild, 4 WD4."""
    kinds = []
    for c, letter in enumerate(COLORS):
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


def build_deck(name: str, kinds: list[Kind]) -> DeckTable:
    card_kind = []
    for i, k in enumerate(kinds):
        card_kind.extend([i] * k.count)
    return DeckTable(name, tuple(kinds), tuple(card_kind))


def deck_for(rules) -> DeckTable:
    """The deck table a rules object plays with."""
    if rules.variant == "classic":
        return build_deck("classic", classic_kinds(rules.wd4_value))
    raise ValueError(f"unknown variant {rules.variant!r}")
