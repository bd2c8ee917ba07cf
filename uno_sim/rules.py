"""Rules configuration: one keyword-only frozen dataclass, validated on creation.

Every switch is a `Switch` record of one table (`SWITCHES`): the common switches
below, and those each variant module declares (uno_sim/variants/).  The table gives
`Rules` its validation, its docstring's field table, `parse_rule_value` and what
`uno-sim rules` prints; `check_switches` makes a table that disagrees with the
dataclass's fields an import error.  Every switch names the docs/rules.md IDs it
implements.  ``edition`` sets the defaults of the switches the vintage text (text 000 of docs/rules.md)
decides differently; an explicit value always wins over the edition's default.
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields
from numbers import Integral

from .errors import RulesError
from .variants import Switch, variant_names, variant_of, variant_switches

VARIANTS = variant_names()  # the registered variants, by order (uno_sim/variants/)
EDITIONS = ("modern", "vintage")
DRAWN_CARD = ("may", "must")
CHALLENGE = ("modern", "vintage")
DEALER_DRAW = ("zero", "redraw")
SCORING = ("standard", "elimination", "lowest")
# C-H1: which draw cards may be stacked; the index is a bit mask (1: colored draw cards
# such as Draw Two, +1, +5; 2: fixed-amount wild draw cards such as WD4, Wild Draw Two)
STACKING = ("none", "draw2", "draw4", "both")
HOUSE_BOOLS = ("draw_until_playable", "forced_play", "jump_in", "seven_o")
HOUSE_RULES = ("stacking",) + HOUSE_BOOLS  # C-H1..C-H5: the switches beyond the printed rules
MIN_PLAYERS, MAX_PLAYERS = 2, 10
# Bounds that keep every score within the C engine's int32 (docs/rules.md, "Bounds"): a
# round scores at most 255 cards x VALUE_MAX = 2.55e8 points, on top of a score below
# TARGET_MAX, so no score, team score or sum of a round's points passes 1.26e9 < 2**31.
VALUE_MAX = 1_000_000  # a card's points (deck overrides, wd4_value)
TARGET_MAX = 1_000_000_000  # the target score; also bounds a scenario's starting scores

# edition -> defaults of the switches left as None
EDITION_DEFAULTS = {
    "modern": {"drawn_card": "may", "challenge": "modern", "wd4_value": 50, "dealer_draw": "zero"},
    "vintage": {"drawn_card": "must", "challenge": "vintage", "wd4_value": 70, "dealer_draw": "redraw"},
}


def _choice(name, value, allowed):
    if value not in allowed:
        raise RulesError(f"invalid {name} {value!r}: expected one of {', '.join(allowed)}")


def _weights(name, value, first: int, most: int) -> tuple:
    """A launcher weight table (E2): integers >= 0 as a tuple, a list or "1,2,3" text.

    Entry i weighs `first + i` cards; some entry for one card or more must be positive;
    at most `most` entries.
    """
    shown = value if isinstance(value, str) else ",".join(map(str, value)) \
        if isinstance(value, (list, tuple)) else value
    try:
        items = value.split(",") if isinstance(value, str) else list(value)
        w = tuple(int(x) if isinstance(x, (str, Integral)) and not isinstance(x, bool) else x
                  for x in items)
    except (TypeError, ValueError):
        w = None
    if (not w or len(w) > most
            or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in w)):
        raise RulesError(f"invalid {name} {shown!r}: expected 1 to {most} "
                         f"comma-separated integers >= 0")
    if sum(w) > 2**31 - 1:
        raise RulesError(f"invalid {name} {shown!r}: the weights add up to more than 2**31 - 1")
    if not any(w[i] for i in range(len(w)) if first + i >= 1):
        raise RulesError(f"invalid {name} {shown!r}: no weight on firing a card")
    return w


def _int(name, value, lo, hi=None):
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"invalid {name} {value!r}: expected an integer")
    if value < lo or (hi is not None and value > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise RulesError(f"invalid {name} {value!r}: expected {rng}")


def _bool(name, value):
    if not isinstance(value, bool):
        raise RulesError(f"invalid {name} {value!r}: expected true or false")


def _checked(s: Switch, value):
    """`value` of switch `s` as `Rules` keeps it; RulesError naming it otherwise."""
    if s.kind == "choice":
        _choice(s.name, value, s.choices())
    elif s.kind == "int":
        _int(s.name, value, s.lo, s.hi)
    elif s.kind == "bool":
        _bool(s.name, value)
    elif s.kind == "weights":
        return _weights(s.name, value, s.lo, s.hi)
    elif s.check is not None:
        return s.check(value)
    return value


# The switches every variant has (a variant's own come from its module).  `values` of
# `variant` is read from the registry when checked, so a registered variant is known.
COMMON_SWITCHES = (
    Switch(name="variant", kind="choice", values=variant_names, default="classic", rule="C1",
           meaning="deck and rule family", c_field=None),
    Switch(name="players", kind="int", lo=MIN_PLAYERS, hi=MAX_PLAYERS, default=4, rule="C2",
           meaning="2..10"),
    Switch(name="edition", kind="choice", values=EDITIONS, default="modern",
           rule="C3,C12,C16", meaning="modern | vintage: defaults below"),
    Switch(name="dealer_draw", kind="choice", values=DEALER_DRAW, default=None, rule="C3",
           meaning="zero (actions count 0) | redraw (vintage)"),
    Switch(name="drawn_card", kind="choice", values=DRAWN_CARD, default=None, rule="C8",
           meaning="may | must play a playable drawn card"),
    Switch(name="challenge", kind="choice", values=CHALLENGE, default=None, rule="C12",
           meaning="modern | vintage WD4 challenge outcome"),
    Switch(name="wd4_value", kind="int", lo=0, hi=VALUE_MAX, default=None, rule="C16",
           shown=">= 0", meaning="points of a WD4 in hand (50 / 70 vintage)"),
    Switch(name="scoring", kind="choice", values=SCORING, default="standard", rule="C17-C19",
           meaning="standard | elimination | lowest"),
    Switch(name="target", kind="int", lo=1, hi=TARGET_MAX, default=500, rule="C17",
           shown=">= 1", meaning="score that ends the game"),
    Switch(name="teams", kind="bool", default=False, rule="C20",
           meaning="two teams in alternating seats"),
    Switch(name="hand_size", kind="int", lo=1, hi=20, default=7, rule="C4",
           meaning="cards dealt to each player"),
    Switch(name="deck", kind="deck", default=(), rule="C1",
           shown="FILE.toml ([count], [value], [kind.X])",
           meaning="overrides of the deck table: (pattern, count, value) triples, None = as "
                   "printed, and new kinds (code, ((key, value), ...)) (`load_deck_file` "
                   "reads them from TOML)",
           check=lambda value: _deck_overrides(value), c_field=None),
    Switch(name="stacking", kind="choice", values=STACKING, default="none", rule="C-H1",
           meaning="none | draw2 | draw4 | both: draw cards answered with draw cards add up"),
    Switch(name="draw_until_playable", kind="bool", default=False, rule="C-H2",
           meaning="draw until a playable card (no legal play)"),
    Switch(name="forced_play", kind="bool", default=False, rule="C-H3",
           meaning="a legal play must be made"),
    Switch(name="jump_in", kind="bool", default=False, rule="C-H4",
           meaning="an identical card may be played out of turn"),
    Switch(name="seven_o", kind="bool", default=False, rule="C-H5",
           meaning="7 swaps hands, 0 passes every hand on"),
)
# Every switch by name (check_switches below puts them in field order as SWITCHES)
SWITCH = {s.name: s for s in COMMON_SWITCHES + variant_switches()}


def _default(name):
    return SWITCH[name].default


@dataclass(frozen=True, kw_only=True)
class Rules:
    # The field order is that of manifests, summary.json and to_dict(): a new switch is
    # added at the end.  The docstring (its field table) is written from SWITCHES below.
    variant: str = "classic"
    players: int = 4
    edition: str = "modern"
    dealer_draw: str | None = None
    drawn_card: str | None = None
    challenge: str | None = None
    wd4_value: int | None = None
    scoring: str = "standard"
    target: int = 500
    teams: bool = False
    hand_size: int = 7
    flip_pairing: str = "deck"  # F1 (variants/flip.py)
    deck_seed: int = 0
    deck: tuple = ()
    # S2, S3 (variants/house_2018.py)
    exchange: str = "swap"
    custom_wilds: str = _default("custom_wilds")
    # UNO Extreme (E2, E6; variants/extreme.py): the launcher's firing law
    launcher: str = "model"
    launcher_fire: int = 333
    launcher_max_silent: int = 5
    launcher_burst: tuple = _default("launcher_burst")
    launcher_weights: tuple = _default("launcher_weights")
    hit_target_presses: int = 0
    # house rules (C-H1..C-H5), all off by default
    stacking: str = "none"
    draw_until_playable: bool = False
    forced_play: bool = False
    jump_in: bool = False
    seven_o: bool = False
    # F2: a Flip card turned up as the starter (variants/flip.py)
    flip_starter: str = "return"

    def __post_init__(self):
        for s in SWITCHES:
            value = getattr(self, s.name)
            if value is None and s.name in EDITION_DEFAULTS["modern"]:
                value = EDITION_DEFAULTS[self.edition][s.name]  # edition is checked first
            new = _checked(s, value)
            if new is not getattr(self, s.name):
                object.__setattr__(self, s.name, new)
        for s in SWITCHES:
            if (s.only and s.owner != self.variant
                    and getattr(self, s.name) != s.default):
                raise RulesError(f"invalid {s.name} {getattr(self, s.name)!r} for variant "
                                 f"{self.variant!r}: {s.only}")
        if self.teams:
            if self.players % 2 or self.players < 4:
                raise RulesError(f"invalid players {self.players} for teams: expected 4, 6, 8 or 10")
            if self.scoring != "standard":
                raise RulesError(f"invalid scoring {self.scoring!r} for teams: expected standard")
        if not self.deck and self.players * self.hand_size + 1 > self.deck_size:
            raise RulesError(
                f"invalid hand_size {self.hand_size}: {self.players} hands of it do not fit the deck"
            )
        if self.deck:
            from .cards import DeckError, check_deck, deck_for

            try:
                check_deck(deck_for(self), self.players, self.hand_size)
            except DeckError as exc:
                raise RulesError(str(exc)) from None
        if self.stacking != "none" or self.seven_o:
            self._check_house_rules()
        spec = self.variant_spec
        if self.draw_until_playable and spec.draw_source == "launcher":
            raise RulesError(f"invalid draw_until_playable True for variant {self.variant!r}: "
                             f"the launcher replaces the draw pile (E3: one press, nothing is "
                             f"drawn to play)")
        if spec.check is not None:
            spec.check(self)

    def _check_house_rules(self):
        """C-H1 / C-H5 need cards the variant's deck may not have (checked by effect/face)."""
        from .cards import Effect, deck_for

        deck = deck_for(self)  # the cards actually in it (deck overrides may remove some)
        kinds = [deck.kinds[i] for i in set(deck.card_kind) | set(deck.dark_kind or ())]
        if self.stacking != "none":
            mask = STACKING.index(self.stacking)
            have = {1: any(k.effect == Effect.DRAW for k in kinds),
                    2: any(k.effect == Effect.WILD_DRAW for k in kinds)}
            for bit, what in ((1, "colored draw card (Draw Two, +1, +5)"),
                              (2, "wild draw card with a fixed amount (WD4, Wild Draw Two)")):
                if mask & bit and not have[bit]:
                    raise RulesError(f"invalid stacking {self.stacking!r} for variant "
                                     f"{self.variant!r}: its deck has no {what}")
        if self.seven_o and not any(k.effect == Effect.NUMBER and k.face in (0, 7)
                                    for k in kinds):
            raise RulesError(f"invalid seven_o True for variant {self.variant!r}: "
                             f"its deck has no 7 or 0")

    @property
    def deck_size(self) -> int:
        """Cards in the deck played (S3: 109 plus one per customizable wild used)."""
        from .cards import deck_for

        return deck_for(self).size

    @property
    def variant_spec(self):
        """The variant's record (uno_sim/variants/): its traits, switches, deck."""
        return variant_of(self.variant)

    def to_dict(self) -> dict:
        """The fields as plain JSON values (`deck` as a list of [card, count, value], the
        launcher weight tables as lists)."""
        d = asdict(self)
        d["deck"] = [list(t) for t in self.deck]
        d["launcher_burst"] = list(self.launcher_burst)
        d["launcher_weights"] = list(self.launcher_weights)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Rules":
        return cls(**d)  # `deck` may come back from JSON as lists: normalized on creation

    def changed(self) -> dict:
        """{field: value} of the switches set off the defaults of this variant and edition."""
        base = Rules(variant=self.variant, players=self.players, edition=self.edition).to_dict()
        return {k: v for k, v in self.to_dict().items() if base.get(k) != v}

    def replace(self, **changes) -> "Rules":
        """A copy with the given switches changed (checked like the constructor's)."""
        d = self.to_dict()
        if "edition" in changes:  # edition-derived switches follow a new edition
            for name in EDITION_DEFAULTS["modern"]:
                d[name] = None
        d.update(changes)
        return Rules(**d)


RULE_KEYS = tuple(f.name for f in fields(Rules))


class UnknownSwitchError(RulesError, TypeError):
    """`Rules(bogus=1)`: a RulesError naming the switch, and the TypeError Python raises
    for an unexpected keyword argument."""


def _checked_init(init):
    import functools

    @functools.wraps(init)
    def __init__(self, *args, **switches):
        if args:
            raise UnknownSwitchError(f"invalid Rules{args!r}: the switches are keywords, "
                                     f"e.g. Rules(variant='flip', players=3)")
        for key in switches:
            if key not in RULE_KEYS:
                raise UnknownSwitchError(f"unknown rule switch {key!r}: expected one of "
                                         f"{', '.join(RULE_KEYS)}")
        init(self, **switches)

    return __init__


Rules.__init__ = _checked_init(Rules.__init__)

# Field type -> the switch kinds that may describe it
_KIND_OF_TYPE = {"str": ("choice", "text"), "str | None": ("choice",), "int": ("int",),
                 "int | None": ("int",), "bool": ("bool",), "tuple": ("weights", "deck")}


def check_switches(switches, cls=None) -> tuple:
    """The switches in the order of the fields of `cls` (default `Rules`); TypeError
    naming the first disagreement: a field without a switch or the other way round, a
    switch declared twice, a default or a type that differs."""
    cls = Rules if cls is None else cls
    by = {}
    for s in switches:
        if s.name in by:
            raise TypeError(f"switch {s.name!r} is declared twice")
        by[s.name] = s
    names = [f.name for f in fields(cls)]
    for name in by:
        if name not in names:
            raise TypeError(f"switch {name!r} is no field of {cls.__name__}")
    out = []
    for f in fields(cls):
        s = by.get(f.name)
        if s is None:
            raise TypeError(f"field {f.name!r} of {cls.__name__} has no switch")
        if f.default is MISSING or f.default != s.default:
            raise TypeError(f"switch {f.name!r} defaults to {s.default!r}, field "
                            f"{cls.__name__}.{f.name} to {f.default!r}")
        if s.kind not in _KIND_OF_TYPE.get(str(f.type), ()):
            raise TypeError(f"switch {f.name!r} is of kind {s.kind!r}, field "
                            f"{cls.__name__}.{f.name} of type {f.type}")
        out.append(s)
    return tuple(out)


# Every switch, in the order of the `Rules` fields.
SWITCHES = check_switches(COMMON_SWITCHES + variant_switches())

# The values each choice and integer switch takes, as `Rules` validates them.
SWITCH_CHOICES = {s.name: s.choices() for s in SWITCHES if s.kind == "choice"}
SWITCH_RANGES = {s.name: (s.lo, s.hi) for s in SWITCHES if s.kind == "int"}


def _field_table(switches) -> str:
    """The reST table of the `Rules` docstring: field, meaning, rule IDs."""
    import textwrap

    w = (22, 42, 7)
    rule = "  ".join("=" * n for n in w)
    lines = [rule, "  ".join(h.ljust(n) for h, n in zip(("field", "meaning", "rule"), w)).rstrip(),
             rule]
    for s in switches:
        text = textwrap.wrap(s.meaning, w[1]) or [""]
        for i, part in enumerate(text):
            first = s.name if i == 0 else ""
            ids = s.rule if i == 0 else ""
            lines.append(f"{first:<{w[0]}}  {part:<{w[1]}}  {ids}".rstrip())
    lines.append(rule)
    return "\n".join("    " + ln for ln in lines)


Rules.__doc__ = ("A complete rule set: one field per switch of `SWITCHES` (uno-sim rules).\n\n"
                 + _field_table(SWITCHES) + "\n    ")


def switch_values(name: str) -> str:
    """The values switch `name` takes, as text: `a | b`, `2..10`, `true | false`..."""
    return SWITCH[name].values_text()


def switch_table(variants=None) -> list[dict]:
    """Every rule switch: name, values, default per variant, meaning and rule IDs."""
    variants = variant_names() if variants is None else variants
    defaults = {v: Rules(variant=v).to_dict() for v in variants}
    rows = []
    for s in SWITCHES:
        rows.append({"switch": s.name, "values": s.values_text(),
                     # under variant v, the switch `variant` is v itself
                     "default": {v: v if s.name == "variant" else defaults[v][s.name]
                                 for v in variants},
                     "rule": s.rule, "meaning": s.meaning})
    return rows


def _deck_overrides(deck) -> tuple:
    """Normalize deck overrides to a tuple of new kinds and (pattern, count, value) triples.

    Accepts that tuple form (or lists, as JSON gives back) or the mapping of a deck
    file: {"kind": {code: {key: value}}, "count": {pattern: n}, "value": {pattern: v}}.
    A new kind is (code, ((key, value), ...)) in the key order of `cards.KIND_KEYS`
    (docs/rules.md, "New card kinds"); the new kinds come first.
    """
    from .cards import DeckError, house_entry

    if isinstance(deck, dict):
        return _deck_from_tables(deck, "deck")
    out, new = [], []
    try:
        items = list(deck)
    except TypeError:
        raise RulesError(f"invalid deck {deck!r}: expected (card, count, value) triples") from None
    for item in items:
        if isinstance(item, (tuple, list)) and len(item) == 2:
            try:
                new.append(house_entry(item[0], item[1], VALUE_MAX))
            except DeckError as exc:
                raise RulesError(str(exc)) from None
            if [c for c, _ in new].count(new[-1][0]) > 1:
                raise RulesError(f"invalid kind {new[-1][0]!r}: defined twice")
            continue
        if not isinstance(item, (tuple, list)) or len(item) != 3 or not isinstance(item[0], str):
            raise RulesError(f"invalid deck entry {item!r}: expected (card, count, value)")
        pattern, count, value = item
        if count is not None:
            _int(f"count of {pattern}", count, 0, 255)
        if value is not None:
            _int(f"value of {pattern}", value, 0, VALUE_MAX)
        out.append((pattern, count, value))
    return tuple(new + out)


def _deck_from_tables(tables: dict, where: str) -> tuple:
    for key in tables:
        if key not in ("kind", "count", "value"):
            raise RulesError(f"unknown table {key!r} in {where}: expected kind, count, value")
    kinds = tables.get("kind", {})
    if not isinstance(kinds, dict):
        raise RulesError(f"invalid kind in {where}: expected [kind.CODE] tables")
    new = [(code, props) for code, props in kinds.items()]
    merged: dict[str, list] = {}
    for key, slot in (("count", 0), ("value", 1)):
        table = tables.get(key, {})
        if not isinstance(table, dict):
            raise RulesError(f"invalid {key} in {where}: expected a table of card = number")
        for pattern, n in table.items():
            merged.setdefault(str(pattern), [None, None])[slot] = n
    return _deck_overrides(new + [(p, c, v) for p, (c, v) in merged.items()])


def load_deck_file(path) -> tuple:
    """Read deck overrides from a TOML file: [kind.CODE] tables of new kinds, a [count]
    and/or a [value] table (docs/rules.md, "Deck overrides").

    ```toml
    [kind."W+6"]   # a new wild: the next player draws 6, challengeable as a WD4
    wild = true
    draw = 6
    restricted = true
    [count]
    "W+4" = 0      # no Wild Draw Four
    "*0" = 2       # two 0s of every color
    [value]
    W = 40
    ```
    """
    import os

    from .files import read_toml

    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise RulesError(f"invalid deck file {path!r}: expected a file name")
    try:
        tables = read_toml(path)
    except OSError as exc:
        raise RulesError(f"cannot read deck file {str(path)!r}: {exc.strerror}") from None
    except ValueError as exc:  # TOMLDecodeError, not UTF-8, not a regular file, too large
        raise RulesError(f"invalid deck file {str(path)!r}: {exc}") from None
    return _deck_from_tables(tables, f"deck file {str(path)!r}")


def parse_rule_switches(items, flag: str = "--rule", refused: dict | None = None) -> dict:
    """`KEY=VALUE` texts as {key: value} (`parse_rule_value`); RulesError naming the first
    malformed or repeated one as `flag`, or one whose key `refused` maps to why it is
    not taken there."""
    switches = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        key = key.strip()
        if not sep or not key:
            raise RulesError(f"invalid {flag} {item!r}: expected KEY=VALUE")
        if refused and key in refused:
            raise RulesError(f"invalid {flag} {item!r}: {refused[key]}")
        if key in switches:
            raise RulesError(f"invalid {flag} {item!r}: {key} is given twice")
        switches[key] = parse_rule_value(key, value.strip())
    return switches


def parse_rule_value(key: str, text: str):
    """Parse `--rule KEY=VALUE` text into the field's type."""
    if key == "deck":
        return load_deck_file(text)
    if key not in RULE_KEYS:
        raise RulesError(f"unknown rule {key!r}: expected one of {', '.join(RULE_KEYS)}")
    kind = SWITCH[key].kind
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise RulesError(f"invalid {key} {text!r}: expected an integer") from None
    if kind == "bool":
        low = text.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise RulesError(f"invalid {key} {text!r}: expected true or false")
    return text


def _digits(text: str) -> bool:
    """ASCII digits only ("²" passes str.isdigit, and int() refuses it)."""
    return text.isascii() and text.isdigit()


def player_counts(text) -> list[int]:
    """`--players`: `4`, `2,4,6` or `2-10` (a count, or a list or tuple of counts) -> the
    player counts, each 2..10; RulesError naming the bad value otherwise."""
    if isinstance(text, bool):
        items = None
    elif isinstance(text, int):
        items = [text]
    elif isinstance(text, (list, tuple)):
        items = list(text)
    else:
        items = []
        for part in str(text).split(","):
            lo, sep, hi = part.strip().partition("-")
            if not (_digits(lo) and (not sep or _digits(hi))):
                items = None
                break
            if sep and int(hi) < int(lo):
                raise RulesError(f"invalid --players {text!r}: the range {part.strip()} is empty")
            items += list(range(int(lo), int(hi) + 1)) if sep else [int(lo)]
    if not items:
        raise RulesError(f"invalid --players {text!r}: expected e.g. 4, 2,4,6 or 2-10")
    for k in items:
        if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= 10:
            raise RulesError(f"invalid players {k!r}: expected 2..10")
    return items
