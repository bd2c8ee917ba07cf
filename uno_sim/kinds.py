"""Card kinds: the vocabulary every deck table is written in.

Colors and their names, the effect opcodes both engines dispatch on (`Effect`, the C
engine's `enum uno_effect`, same numbers), what a starter does (`Starter`), why cards
are drawn (`DrawReason`), the matching faces beyond the digits, the customizable wilds'
rules (S3), and the `Kind` record of one card kind.  A low room: the variants' modules
(uno_sim/variants/) write their kinds in it and `uno_sim.cards` builds decks from them;
it imports nothing of uno_sim.  `uno_sim.cards` gives every name here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

# Colors 0..3 are the classic (and Flip light-side) colors, 4..7 the Flip dark side.
COLORS = ("R", "Y", "G", "B", "P", "T", "O", "V")
COLOR_NAMES = ("red", "yellow", "green", "blue", "pink", "teal", "orange", "purple")
NO_COLOR = -1
SIDES = ("light", "dark")  # F1: the two faces of a Flip card; play starts light (F2)


class Effect(IntEnum):
    """What playing a kind does (one dispatcher in each engine handles these)."""

    NUMBER = 0
    SKIP = 1  # next player loses the turn
    REVERSE = 2  # direction flips; acts as Skip when two players remain (C11)
    DRAW = 3  # next player draws `amount` and loses the turn
    WILD = 4  # the player names a color
    WILD_DRAW = 5  # names a color; next draws `amount`, loses the turn; challengeable
    SKIP_ALL = 6  # every other player loses a turn; the same player plays again (F4)
    FLIP = 7  # every card turns over; the new top takes no effect (F3)
    WILD_DRAW_COLOR = 8  # names a color; next draws until that color, loses the turn (F4)
    DISCARD_ALL = 9  # every card of its color in the hand goes down with it (E4)
    HIT = 10  # next player presses the launcher `amount` times and loses the turn (E5)
    WILD_HIT = 11  # names a color and a target; the player presses `amount` times at it (E6)
    WILD_FEWEST_DRAW = 12  # names a color; every holder of the fewest cards draws `amount` (H2)
    WILD_EXCHANGE = 13  # names a color; swaps hands with an opponent, or shuffles all hands (S2)
    WILD_CUSTOM = 14  # names a color; then the customizable rule number `amount` (S3)


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
    DRAW_ONE = 6  # Flip +1
    DRAW_FIVE = 7  # Flip +5
    WILD_DRAW_TWO = 8
    WILD_DRAW_COLOR = 9
    HIT_TWO = 10  # Extreme: the victim of a Hit 2 presses the launcher (E5)
    EXTREME_HIT = 11  # Extreme: the launcher fires at the target of an Extreme Hit (E6)
    # 12, 13: reserved for UNO Extreme
    BADTZ_MARU = 14  # H2: fewest cards, draw 4
    CUSTOM_COLOR = 15  # S3 draw_color: draw until the named color
    DRAW_THREE = 16  # S3 draw_three: the next player could not play
    HAND_SIZE = 17  # S3 seven / three: drawn up to the hand size the rule sets
    # 10-17: other variants' draw cards
    STACK = 18  # C-H1: the last victim of a stack draws the sum
    UNTIL_PLAYABLE = 19  # C-H2: drew until a playable card (no legal play)


# Faces beyond the digits 0..9.  Two cards "match by symbol" when faces are equal.
FACE_SKIP = 10
FACE_REVERSE = 11
FACE_DRAW_TWO = 12
FACE_WILD = 13
FACE_WILD_DRAW_FOUR = 14
FACE_DRAW_ONE = 15
FACE_DRAW_FIVE = 16
FACE_SKIP_ALL = 17
FACE_FLIP = 18
FACE_WILD_DRAW_TWO = 19
FACE_WILD_DRAW_COLOR = 20
FACE_DISCARD_ALL = 21
FACE_HIT_TWO = 22
FACE_EXTREME_HIT = 23
FACE_BADTZ_MARU = 24  # H2
FACE_EXCHANGE = 25  # S2
FACE_CUSTOM = 26  # S3: the customizable wild of rule r has face FACE_CUSTOM + r (26..31)

# S3: the customizable rules, by number (the `amount` of a WILD_CUSTOM kind):
#   draw_color  the next player draws until the named color
#   wilds_down  every other player puts their wild cards under the top of the discard pile
#   draw_three  the next player, if unable to play, draws three and loses the turn
#   extra_turn  the player plays again
#   seven       the next player draws or discards until holding 7 cards
#   three       every player draws or discards until holding exactly 3 cards
CUSTOM_RULES = ("draw_color", "wilds_down", "draw_three", "extra_turn", "seven", "three")
CUSTOM_REASONS = (DrawReason.CUSTOM_COLOR, DrawReason.CANNOT_PLAY, DrawReason.DRAW_THREE,
                  DrawReason.CANNOT_PLAY, DrawReason.HAND_SIZE, DrawReason.HAND_SIZE)


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
