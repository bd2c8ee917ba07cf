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

Hello Kitty (docs/rules.md H1) keeps the classic codes: its pink color is color 0,
written ``R`` (``R7`` is the pink 7; `color_names` gives "pink"), and adds
``WBM``, the Badtz-Maru wild.  The hand-exchange deck (S1) adds ``WX``, the
hand-exchange wild, and one ``W:<rule>`` code per customizable wild
(``W:extra_turn``; the rules are `CUSTOM_RULES`).

UNO Flip (docs/rules.md F1) cards have two faces; a code names one face:

==========  ===========================================================
``R7``      light side: colors R, Y, G, B; digits 1-9
``B+1``     +1, ``GR`` Reverse, ``YS`` Skip, ``RF`` Flip
``W``       Wild (light), ``W+2`` Wild Draw Two
``T7``      dark side: colors P (pink), T (teal), O (orange), V (purple)
``O+5``     +5, ``PR`` Reverse, ``VSE`` Skip Everyone, ``TF`` Flip
``DW``      Wild (dark), ``DW+C`` Wild Draw Color
``R7/T+5``  a whole physical card: light face / dark face
==========  ===========================================================

UNO Extreme (docs/rules.md E1) has no 0s, no Draw Two and no WD4:

==========  ===========================================================
``R7``      colored number 1-9; ``GS`` Skip, ``BR`` Reverse
``YH2``     Hit 2, ``RDA`` Discard All
``W``       Wild, ``WH`` Extreme Hit
==========  ===========================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# The card kinds' vocabulary lives in a room below the variants (uno_sim.kinds); every
# name of it is given here too.
from .kinds import (COLOR_NAMES, COLORS, CUSTOM_REASONS, CUSTOM_RULES, FACE_BADTZ_MARU,  # noqa: F401
                    FACE_CUSTOM, FACE_DISCARD_ALL, FACE_DRAW_FIVE, FACE_DRAW_ONE, FACE_DRAW_TWO,
                    FACE_EXCHANGE, FACE_EXTREME_HIT, FACE_FLIP, FACE_HIT_TWO, FACE_REVERSE,
                    FACE_SKIP, FACE_SKIP_ALL, FACE_WILD, FACE_WILD_DRAW_COLOR,
                    FACE_WILD_DRAW_FOUR, FACE_WILD_DRAW_TWO, NO_COLOR, SIDES, DrawReason, Effect,
                    Kind, Starter)

# The deck seed's pairing of Flip faces is shuffled by the game stream of this number.
PAIRING_GAME = 0x464C4950  # "FLIP"


@dataclass(frozen=True)
class DeckTable:
    name: str
    kinds: tuple[Kind, ...]
    card_kind: tuple[int, ...]  # physical card id -> kind id (light side for Flip)
    dark_kind: tuple[int, ...] | None = None  # Flip: physical card id -> dark-side kind id

    @property
    def size(self) -> int:
        """The number of cards in the deck."""
        return len(self.card_kind)

    @property
    def sides(self) -> int:
        """1, or 2 for a two-faced (Flip) deck."""
        return 1 if self.dark_kind is None else 2

    def side_kinds(self, side: int) -> tuple[int, ...]:
        """The kind of each card on `side` (0 light, 1 dark)."""
        return self.dark_kind if side else self.card_kind

    def code(self, card: int, side: int = 0) -> str:
        """The code of card `card` on `side`."""
        return self.kinds[self.side_kinds(side)[card]].code

    def pair_code(self, card: int) -> str:
        """`R7/T+5` for a two-faced card (light/dark), else the plain code."""
        if self.dark_kind is None:
            return self.code(card)
        return f"{self.code(card, 0)}/{self.code(card, 1)}"

    def kind_of_code(self, code: str) -> int:
        """The kind index of code `code` (ValueError for a code the deck does not have)."""
        for i, k in enumerate(self.kinds):
            if k.code == code:
                return i
        raise ValueError(f"unknown card code {code!r}")

    def cards_from_codes(self, codes) -> list[int]:
        """Map codes to distinct physical card ids (copies taken in id order).

        For a two-faced deck a code names the light face (``R7``) or both
        faces (``R7/T+5``, only where the deck pairs them so).
        """
        free: dict[object, list[int]] = {}
        for card, kind in enumerate(self.card_kind):
            free.setdefault(kind, []).append(card)
            if self.dark_kind is not None:
                free.setdefault((kind, self.dark_kind[card]), []).append(card)
        for ids in free.values():
            ids.reverse()
        taken = set()
        out = []
        for code in codes:
            light, sep, dark = code.partition("/")
            key = self.kind_of_code(light)
            if sep:
                if self.dark_kind is None:
                    raise ValueError(f"invalid card code {code!r}: the {self.name} deck is one-sided")
                key = (key, self.kind_of_code(dark))
            ids = free.get(key, [])
            while ids and ids[-1] in taken:
                ids.pop()
            if not ids:
                raise ValueError(f"too many copies of card {code!r} for the {self.name} deck")
            taken.add(ids[-1])
            out.append(ids.pop())
        return out

    def with_pairing(self, pairs) -> "DeckTable":
        """This two-faced deck with its cards re-paired as `pairs` ("light/dark" codes).

        Card i of the new table is pairs[i]; both sides must hold the deck's cards.
        """
        if self.dark_kind is None:
            raise ValueError(f"the {self.name} deck is one-sided")
        light, dark = [], []
        for code in pairs:
            lc, sep, dc = code.partition("/")
            if not sep:
                raise ValueError(f"invalid card code {code!r}: expected light/dark")
            light.append(self.kind_of_code(lc))
            dark.append(self.kind_of_code(dc))
        if sorted(light) != sorted(self.card_kind) or sorted(dark) != sorted(self.dark_kind):
            raise ValueError(f"invalid deck: the faces given are not those of the {self.name} deck")
        return DeckTable(self.name, self.kinds, tuple(light), tuple(dark))

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
            "dark_kind": list(self.dark_kind or ()),
        }


def color_names(variant: str) -> tuple:
    """Names of the colors as a variant prints them (H1: color 0 is pink in Hello Kitty)."""
    from .variants import variant_of

    return variant_of(variant).color_names


def build_deck(name: str, kinds: list[Kind]) -> DeckTable:
    """A deck table of `kinds`, each repeated its count."""
    card_kind = []
    for i, k in enumerate(kinds):
        card_kind.extend([i] * k.count)
    return DeckTable(name, tuple(kinds), tuple(card_kind))


def build_flip_deck(deck_seed: int = 0, light=None, dark=None, name: str = "flip") -> DeckTable:
    """F1: two-faced cards; the pairing is a permutation fixed by `deck_seed`.

    Card ids follow the light kinds in table order; the dark kinds, in table
    order, are shuffled onto them by game PAIRING_GAME of the seed's stream.
    `light`/`dark` replace UNO Flip's kinds (deck overrides, other two-faced decks).
    """
    from .rng import Rng, key_from_seed

    if light is None:
        from .variants.flip import flip_kinds

        light, dark = flip_kinds()
    kinds = light + dark
    card_kind, dark_kind = [], []
    for i, k in enumerate(light):
        card_kind.extend([i] * k.count)
    for i, k in enumerate(dark, start=len(light)):
        dark_kind.extend([i] * k.count)
    Rng(key_from_seed(deck_seed), PAIRING_GAME).shuffle(dark_kind)
    return DeckTable(name, tuple(kinds), tuple(card_kind), tuple(dark_kind))


class DeckError(ValueError):
    """A deck override that names no card of the deck or leaves an impossible deck."""


# New card kinds from a deck file (docs/rules.md, "New card kinds").  Each effect key of a
# `[kind.X]` table maps onto an opcode of `Effect`: (colored opcode, wild opcode, whether
# the key's value is the amount, whether it needs the launcher of E2); None = not allowed.
# No effect key: a plain card, NUMBER (colored) or WILD.
HOUSE_EFFECTS = {
    "skip": (Effect.SKIP, None, False, False),
    "reverse": (Effect.REVERSE, None, False, False),
    "draw": (Effect.DRAW, Effect.WILD_DRAW, True, False),
    "skip_all": (Effect.SKIP_ALL, None, False, False),
    "draw_until_color": (None, Effect.WILD_DRAW_COLOR, False, False),
    "fewest_draw": (None, Effect.WILD_FEWEST_DRAW, True, False),
    "swap_hands": (None, Effect.WILD_EXCHANGE, False, False),
    "discard_all": (Effect.DISCARD_ALL, None, False, True),
    "hit": (Effect.HIT, Effect.WILD_HIT, True, True),
}
# The keys of a kind table, in the order of the normalized entry (Rules.deck)
KIND_KEYS = ("wild", "colored", *HOUSE_EFFECTS, "restricted", "starter", "value", "count")
HOUSE_AMOUNT = (1, 20)  # cards drawn or launcher presses of a new kind
HOUSE_VALUE = {False: 20, True: 50}  # C16: default points of a colored / a wild new kind
# C5: the opcodes both engines can resolve as the starter card; the others go back (RETURN)
STARTER_EFFECTS = frozenset({Effect.NUMBER, Effect.WILD, Effect.SKIP, Effect.REVERSE,
                             Effect.DRAW, Effect.WILD_FEWEST_DRAW, Effect.WILD_EXCHANGE,
                             Effect.DISCARD_ALL, Effect.HIT})
# C5 / H2 / S2 / S3: as the starter, the first player names the color; no other effect
STARTER_WILDS = frozenset({Effect.WILD, Effect.WILD_FEWEST_DRAW, Effect.WILD_EXCHANGE,
                           Effect.WILD_CUSTOM})
# C-H1: the stacking family of a draw card, a bit of Rules.stacking's index (uno.h
# uno_stack_family); an effect not here never stacks
STACK_FAMILY = {Effect.DRAW: 1, Effect.WILD_DRAW: 2}
# The trace's reason for the victim's draw: that of the printed card of the same opcode
# (the C engine's reasons are a closed list, cards.DrawReason)
HOUSE_REASONS = {Effect.DRAW: DrawReason.DRAW_TWO, Effect.WILD_DRAW_COLOR: DrawReason.WILD_DRAW_COLOR,
                 Effect.WILD_FEWEST_DRAW: DrawReason.BADTZ_MARU, Effect.HIT: DrawReason.HIT_TWO,
                 Effect.WILD_HIT: DrawReason.EXTREME_HIT}
FACE_HOUSE = FACE_CUSTOM + 6  # 32: the first face of a new kind (faces >= 32 match by the
FACE_MAX = 255  # C table's per-card path, `faces_ok`); the C table holds faces up to 255
_CODE = re.compile(r"[A-Za-z0-9+][A-Za-z0-9+#!-]{0,7}")


def _house_int(code, key, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise DeckError(f"invalid {key} {value!r} of kind {code!r}: expected {lo}..{hi}")


def _house_effect(props: dict, wild: bool) -> tuple:
    """(effect key or None, opcode) of a new kind's table: its effect key mapped onto the
    opcode of a wild or of a colored card (None: not allowed); no key: a plain card."""
    key = next((k for k in HOUSE_EFFECTS if props.get(k, False) is not False), None)
    if key is None:
        return None, Effect.WILD if wild else Effect.NUMBER
    return key, HOUSE_EFFECTS[key][1 if wild else 0]


def _house_starter(effect) -> str:
    """C5: a new kind starts a round as its opcode can, unless its table says otherwise."""
    return "play" if effect in STARTER_EFFECTS else "return"


def house_entry(code, props, value_max: int) -> tuple:
    """One new kind of a deck file as `Rules.deck` keeps it: (code, ((key, value), ...)).

    `props` is the `[kind.CODE]` table (a mapping, or the pairs of an entry already
    normalized); DeckError naming the bad key or value otherwise.  The checks here need
    no variant; `house_kinds` does the rest.
    """
    if not isinstance(code, str) or not _CODE.fullmatch(code):
        raise DeckError(f"invalid kind code {code!r}: expected 1-8 letters, digits or + # ! -, "
                        f"not starting with # ! -")
    if isinstance(props, (list, tuple)):
        try:
            props = dict(props)
        except (TypeError, ValueError):
            props = None
    if not isinstance(props, dict):
        raise DeckError(f"invalid kind {code!r}: expected a table of key = value")
    for key in props:
        if key not in KIND_KEYS:
            raise DeckError(f"unknown key {key!r} in kind {code!r}: expected one of "
                            f"{', '.join(KIND_KEYS)}")
    for key in ("wild", "colored", "restricted") + tuple(
            k for k, e in HOUSE_EFFECTS.items() if not e[2]):
        if key in props and not isinstance(props[key], bool):
            raise DeckError(f"invalid {key} {props[key]!r} of kind {code!r}: expected true or false")
    wild, colored = props.get("wild", False), props.get("colored", False)
    if wild == colored:
        raise DeckError(f"invalid kind {code!r}: expected exactly one of wild = true "
                        f"(names a color) or colored = true (one kind per color)")
    effects = [k for k in HOUSE_EFFECTS if props.get(k, False) is not False]
    if len(effects) > 1:
        raise DeckError(f"invalid kind {code!r}: {' and '.join(effects)} together; a kind has "
                        f"one effect (draw makes the next player lose the turn by itself)")
    key, effect = _house_effect(props, wild)
    if key is not None:
        opcodes = HOUSE_EFFECTS[key]
        if effect is None:
            need = "wild = true" if opcodes[1] is not None else "colored = true"
            raise DeckError(f"invalid {key} of kind {code!r}: it needs {need}")
        if opcodes[2]:
            _house_int(code, key, props[key], *HOUSE_AMOUNT)
    restricted = props.get("restricted", False)
    if restricted and not wild:
        raise DeckError(f"invalid restricted of kind {code!r}: only a wild can be restricted "
                        f"(C7: legal only without a card of the active color)")
    starter = props.get("starter", _house_starter(effect))
    if starter not in ("play", "return"):
        raise DeckError(f"invalid starter {starter!r} of kind {code!r}: expected play or return")
    if starter == "play" and effect not in STARTER_EFFECTS:
        raise DeckError(f"invalid starter 'play' of kind {code!r}: a {effect.name} card cannot "
                        f"start a round (C5); expected return")
    value = props.get("value", HOUSE_VALUE[wild])
    _house_int(code, "value", value, 0, value_max)
    count = props.get("count", 1)
    _house_int(code, "count", count, 0, 255)
    full = dict(props, value=value, count=count)
    if starter == _house_starter(effect):
        full.pop("starter", None)  # as its effect sets it: one form per kind
    return code, tuple((k, full[k]) for k in KIND_KEYS if full.get(k, False) is not False
                       or k in ("value", "count"))


def is_house_entry(entry) -> bool:
    """Whether an entry of `Rules.deck` defines a new kind (else it is a (pattern, count,
    value) override)."""
    return len(entry) == 2


def house_kinds(entries, kinds: list[Kind], variant) -> list[Kind]:
    """The new kinds of `entries` (normalized by `house_entry`) for a one-sided deck of
    `kinds`, faces from FACE_HOUSE on; DeckError for what the variant cannot play."""
    if variant.two_faced:
        raise DeckError(f"invalid kind {entries[0][0]!r}: the {variant.name} deck is two-faced "
                        f"and new kinds are one-sided")
    colors = sorted({k.color for k in kinds if k.color != NO_COLOR})
    codes = {k.code for k in kinds}
    out = []
    for n, (code, pairs) in enumerate(entries):
        p = dict(pairs)
        wild = p.get("wild", False)
        face = FACE_HOUSE + n
        key, effect = _house_effect(p, wild)
        if key is not None and HOUSE_EFFECTS[key][3] and variant.draw_source != "launcher":
            raise DeckError(f"invalid {key} of kind {code!r}: it needs the launcher (E2, E4), "
                            f"and the {variant.name} deck draws from a pile")
        if face > FACE_MAX:
            raise DeckError(f"invalid kind {code!r}: at most {FACE_MAX - FACE_HOUSE + 1} new kinds")
        amount = 0 if key is None or p[key] is True else p[key]
        restricted = p.get("restricted", False)
        if effect == Effect.WILD_DRAW:
            reason = DrawReason.WD4 if restricted else DrawReason.WILD_DRAW_TWO
        else:
            reason = HOUSE_REASONS.get(effect, DrawReason.CANNOT_PLAY)
        starter = Starter.PLAY if p.get("starter", _house_starter(effect)) == "play" \
            else Starter.RETURN
        for c in ([NO_COLOR] if wild else colors):
            full = code if wild else COLORS[c] + code
            if full in codes:
                raise DeckError(f"invalid kind code {code!r}: {full} is already a card of the "
                                f"{variant.name} deck")
            codes.add(full)
            out.append(Kind(full, c, face, p["value"], effect, amount, restricted, starter,
                            reason, p["count"]))
    if len(kinds) + len(out) > 255:
        raise DeckError(f"invalid deck: {len(kinds) + len(out)} card kinds, at most 255")
    return out


def house_text(code: str, pairs) -> str:
    """`W+6 new (wild, draw 6, restricted, value 50, count 2)` for a summary line."""
    p = dict(pairs)
    words = [k if v is True else f"{k} {v}" for k, v in pairs if k not in ("value", "count")]
    per = "" if p.get("wild") else " per color"
    return f"{code} new ({', '.join(words)}, value {p['value']}, count {p['count']}{per})"


def override_kinds(kinds: list[Kind], overrides, deck: str) -> list[Kind]:
    """`kinds` with the counts and values of `overrides` applied.

    `overrides` is a sequence of (pattern, count, value) with None for "as
    printed"; a pattern is a card code of the deck (``R7``, ``W+4``) or ``*``
    followed by the code without its color letter (``*7``: every colored 7,
    ``*+2``: every Draw Two).  Later entries win.
    """
    out = list(kinds)
    for pattern, count, value in overrides:
        if pattern.startswith("*"):
            rest = pattern[1:]
            hits = [i for i, k in enumerate(out)
                    if k.color != NO_COLOR and k.code[1:] == rest]
        else:
            hits = [i for i, k in enumerate(out) if k.code == pattern]
        if not hits:
            known = ", ".join(k.code for k in kinds)
            raise DeckError(f"unknown card kind {pattern!r} for the {deck} deck: expected one "
                            f"of {known} (or *X for every color)")
        for i in hits:
            k = out[i]
            out[i] = Kind(k.code, k.color, k.face, k.value if value is None else value,
                          k.effect, k.amount, k.restricted, k.starter, k.reason,
                          k.count if count is None else count)
    return out


def deck_text(overrides) -> str:
    """`W+4 count 0, *0 count 2, W value 40`: deck overrides for a summary line."""
    parts = []
    for entry in overrides:
        if is_house_entry(entry):
            parts.append(house_text(*entry))
            continue
        pattern, count, value = entry
        if count is not None:
            parts.append(f"{pattern} count {count}")
        if value is not None:
            parts.append(f"{pattern} value {value}")
    return ", ".join(parts)


def deck_for(rules) -> DeckTable:
    """The deck table a rules object plays with (built once per distinct deck)."""
    from .variants import generation, variant_of

    v = variant_of(rules)
    args = tuple(getattr(rules, f) for f in v.deck_fields)
    return _deck(rules.variant, args, rules.deck_seed if v.two_faced else 0, rules.deck,
                 generation())


@lru_cache(maxsize=None)
def _deck(variant: str, args: tuple, deck_seed: int, overrides=(), _generation=0) -> DeckTable:
    # DeckTable is frozen and made of tuples, so one instance serves every game; the
    # registry's generation (variants.generation) keeps a re-registered variant's deck new.
    from .variants import variant_of

    v = variant_of(variant)
    light = v.kinds(**dict(zip(v.deck_fields, args)))
    new = [e for e in overrides if is_house_entry(e)]
    if new:  # new kinds first, so that the overrides may name them
        light = light + house_kinds(new, light, v)
        overrides = tuple(e for e in overrides if not is_house_entry(e))
    if not v.two_faced:
        return build_deck(variant, override_kinds(light, overrides, variant))
    dark = v.dark_kinds()
    if overrides:
        both = override_kinds(light + dark, overrides, variant)
        light, dark = both[:len(light)], both[len(light):]
    n_light, n_dark = sum(k.count for k in light), sum(k.count for k in dark)
    if n_light != n_dark:
        raise DeckError(f"invalid deck: the light side has {n_light} cards and the dark "
                        f"side {n_dark}; every card has both faces")
    return build_flip_deck(deck_seed, light, dark, variant)


def deck_cache_clear() -> None:
    """Forget the decks built (the registry changed)."""
    _deck.cache_clear()


def check_deck(table: DeckTable, players: int, hand_size: int) -> None:
    """DeckError unless `players` hands of `hand_size` and a starter can come from `table`."""
    if table.size > 255:
        raise DeckError(f"invalid deck: {table.size} cards, at most 255")
    need = players * hand_size + 1
    if table.size < need:
        raise DeckError(f"invalid deck: {table.size} cards, too few to deal {players} hands of "
                        f"{hand_size} and a starter (need {need})")
    starters = sum(table.kinds[k].starter != Starter.RETURN for k in table.card_kind)
    if starters <= players * hand_size:
        raise DeckError(f"invalid deck: {starters} cards can start a round (C5), too few to be "
                        f"sure one is left after dealing {players} hands of {hand_size}")
