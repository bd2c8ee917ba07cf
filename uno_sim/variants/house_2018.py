"""The 2018 deck with house-rule cards (docs/rules.md S1-S3): a hand-exchange wild and
customizable wilds on top of classic UNO."""

from __future__ import annotations

from ..errors import RulesError
from ..kinds import CUSTOM_REASONS, CUSTOM_RULES, FACE_CUSTOM, FACE_EXCHANGE, NO_COLOR, Effect, Kind
from . import Switch, Variant
from .classic import classic_kinds

EXCHANGE = ("swap", "shuffle")  # S2: the French hand exchange | the English "Wild Shuffle Hands"
CUSTOM_WILDS_DEFAULT = "extra_turn,draw_three,seven"  # S3: one rule per customizable wild


def house_2018_kinds(wd4_value: int = 50,
                     custom_wilds=CUSTOM_WILDS_DEFAULT) -> list[Kind]:
    """S1: the classic 108, 1 hand-exchange wild (S2) and the customizable wilds (S3).

    `custom_wilds` names one rule of CUSTOM_RULES per copy (1 to 3 copies, a comma list
    or a sequence); a rule named twice is one kind with two copies.  Both value 40.
    """
    custom = custom_wilds.split(",") if isinstance(custom_wilds, str) else list(custom_wilds)
    kinds = classic_kinds(wd4_value)
    kinds.append(Kind("WX", NO_COLOR, FACE_EXCHANGE, 40, Effect.WILD_EXCHANGE, count=1))
    for r, name in enumerate(CUSTOM_RULES):
        n = custom.count(name)
        if n:
            kinds.append(Kind(f"W:{name}", NO_COLOR, FACE_CUSTOM + r, 40, Effect.WILD_CUSTOM,
                              amount=r, reason=CUSTOM_REASONS[r], count=n))
    return kinds


def custom_wilds(value) -> str:
    """S3: 1 to 3 rule names (a comma list, or a list/tuple), as a canonical comma list."""
    names = value.split(",") if isinstance(value, str) else value
    try:
        names = [str(n).strip() for n in names]
    except TypeError:
        raise RulesError(f"invalid custom_wilds {value!r}: expected a comma list of rule "
                         f"names") from None
    if not 1 <= len(names) <= 3:
        raise RulesError(f"invalid custom_wilds {value!r}: expected 1 to 3 rule names "
                         f"(one per customizable wild)")
    for n in names:
        if n not in CUSTOM_RULES:
            raise RulesError(f"invalid custom_wilds rule {n!r}: expected one of "
                             f"{', '.join(CUSTOM_RULES)}")
    return ",".join(names)


ONLY = "only the house-2018 deck has those cards (S2, S3)"
SWITCHES = (
    Switch(name="exchange", kind="choice", values=EXCHANGE, default="swap", rule="S2",
           meaning="house-2018 hand-exchange wild: swap with one opponent | shuffle all hands",
           owner="house-2018", only=ONLY),
    Switch(name="custom_wilds", kind="text", default=CUSTOM_WILDS_DEFAULT, rule="S3",
           meaning="house-2018: the rule of each customizable wild, a comma list of 1 to 3 "
                   "names of cards.CUSTOM_RULES",
           shown="1-3 of " + ",".join(CUSTOM_RULES), owner="house-2018", only=ONLY,
           check=custom_wilds, c_field=None),
)

VARIANT = Variant(name="house-2018", order=4, title="UNO (2018 house-rule cards)", rule="S1",
                  kinds=house_2018_kinds, deck_fields=("wd4_value", "custom_wilds"),
                  switches=SWITCHES)
