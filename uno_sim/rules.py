"""Rules configuration: one keyword-only frozen dataclass, validated on creation.

Every switch names the RULES.md ID it implements.  ``edition`` sets the
defaults of the switches the vintage text (seed 000) decides differently; an
explicit value always wins over the edition's default.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from numbers import Integral

VARIANTS = ("classic", "flip", "extreme", "hello-kitty", "house-2018")
# uno_config.variant: fixed numbers, whatever variants a build has (2 is UNO Extreme)
VARIANT_IDS = {"classic": 0, "flip": 1, "extreme": 2, "hello-kitty": 3, "house-2018": 4}
EDITIONS = ("modern", "vintage")
DRAWN_CARD = ("may", "must")
CHALLENGE = ("modern", "vintage")
DEALER_DRAW = ("zero", "redraw")
SCORING = ("standard", "elimination", "lowest")
FLIP_PAIRING = ("deck", "game")
FLIP_STARTER = ("return", "flip")  # F2: a Flip turned up as the starter
LAUNCHER = ("model", "dist")  # E2: the launcher's firing law
LAUNCHER_MAX = 32  # E2: most entries in a launcher weight table
# E2 defaults: a model, not a measurement (no firing law is published; docs/rules.md)
LAUNCHER_BURST = (1, 2, 5, 7, 7, 7, 6, 5, 2, 1, 1, 1)  # burst of 1..12 cards: mostly 3-8
LAUNCHER_WEIGHTS = (92,) + LAUNCHER_BURST  # dist: 0..12 cards, fires on 1 press in 3
DECK_SIZE = {"classic": 108, "flip": 112, "extreme": 112, "hello-kitty": 112, "house-2018": 112}
EXCHANGE = ("swap", "shuffle")  # S2: the French hand exchange | the English "Wild Shuffle Hands"
CUSTOM_WILDS_DEFAULT = "extra_turn,draw_three,seven"  # S3: one rule per customizable wild
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


class RulesError(ValueError):
    """Invalid rules or scenario; the message names the bad value."""


def _choice(name, value, allowed):
    if value not in allowed:
        raise RulesError(f"invalid {name} {value!r}: expected one of {', '.join(allowed)}")


def _weights(name, value, first: int) -> tuple:
    """A launcher weight table (E2): integers >= 0 as a tuple, a list or "1,2,3" text.

    Entry i weighs `first + i` cards; some entry for one card or more must be positive.
    """
    shown = value if isinstance(value, str) else ",".join(map(str, value)) \
        if isinstance(value, (list, tuple)) else value
    try:
        items = value.split(",") if isinstance(value, str) else list(value)
        w = tuple(int(x) if isinstance(x, (str, Integral)) and not isinstance(x, bool) else x
                  for x in items)
    except (TypeError, ValueError):
        w = None
    if (not w or len(w) > LAUNCHER_MAX
            or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in w)):
        raise RulesError(f"invalid {name} {shown!r}: expected 1 to {LAUNCHER_MAX} "
                         f"comma-separated integers >= 0")
    if sum(w) > 2**31 - 1:
        raise RulesError(f"invalid {name} {shown!r}: the weights add up to more than 2**31 - 1")
    if not any(w[i] for i in range(len(w)) if first + i >= 1):
        raise RulesError(f"invalid {name} {shown!r}: no weight on firing a card")
    return w
def _custom_wilds(value) -> str:
    """S3: 1 to 3 rule names (a comma list, or a list/tuple), as a canonical comma list."""
    from .cards import CUSTOM_RULES

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


def _int(name, value, lo, hi=None):
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"invalid {name} {value!r}: expected an integer")
    if value < lo or (hi is not None and value > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise RulesError(f"invalid {name} {value!r}: expected {rng}")


@dataclass(frozen=True, kw_only=True)
class Rules:
    """A complete rule set.

    ======================  ==========================================  =======
    field                   meaning                                     rule
    ======================  ==========================================  =======
    variant                 deck and rule family                        C1
    players                 2..10                                       C2
    edition                 modern | vintage: defaults below            C3,C12,C16
    dealer_draw             zero (actions count 0) | redraw (vintage)   C3
    drawn_card              may | must play a playable drawn card       C8
    challenge               modern | vintage WD4 challenge outcome      C12
    wd4_value               points of a WD4 in hand (50 / 70 vintage)   C16
    scoring                 standard | elimination | lowest             C17-C19
    target                  score that ends the game                    C17
    teams                   two teams in alternating seats              C20
    hand_size               cards dealt to each player                  C4
    flip_pairing            Flip faces paired once per deck_seed        F1
                            (deck) | re-paired every game (game)
    deck_seed               seed of the deck's light/dark pairing       F1
    deck                    overrides of the deck table: (pattern,      C1
                            count, value) triples, None = as printed
                            (`load_deck_file` reads them from TOML)
    exchange                house-2018 hand-exchange wild: swap with    S2
                            one opponent | shuffle all hands
    custom_wilds            house-2018: the rule of each customizable   S3
                            wild, a comma list of 1 to 3 names of
                            cards.CUSTOM_RULES
    launcher                Extreme launcher law: model (stateful       E2
                            schedule, default) | dist (i.i.d. per press)
    launcher_fire           model: chance per mille that a press fires  E2
    launcher_max_silent     model: a press fires after this many silent E2
                            presses in a row
    launcher_burst          model: weights of bursts of 1, 2, ... cards E2
    launcher_weights        dist: weights of firing 0, 1, 2, ... cards  E2
    hit_target_presses      presses the target of an Extreme Hit makes  E6
                            itself before the attacker's two (0; 1 is
                            seed 001's literal "le désigné appuie")
    stacking                none | draw2 | draw4 | both: draw cards     C-H1
                            answered with draw cards add up
    draw_until_playable     draw until a playable card (no legal play)  C-H2
    forced_play             a legal play must be made                   C-H3
    jump_in                 an identical card may be played out of turn C-H4
    seven_o                 7 swaps hands, 0 passes every hand on       C-H5
    flip_starter            a Flip starter is put back (return) or      F2
                            turns the game to the dark side (flip)
    ======================  ==========================================  =======
    """

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
    flip_pairing: str = "deck"
    deck_seed: int = 0
    deck: tuple = ()
    # S2, S3 (variant house-2018)
    exchange: str = "swap"
    custom_wilds: str = CUSTOM_WILDS_DEFAULT
    # UNO Extreme (E2): the launcher's firing law
    launcher: str = "model"
    launcher_fire: int = 333
    launcher_max_silent: int = 5
    launcher_burst: tuple = LAUNCHER_BURST
    launcher_weights: tuple = LAUNCHER_WEIGHTS
    hit_target_presses: int = 0  # E6
    # house rules (C-H1..C-H5), all off by default
    stacking: str = "none"
    draw_until_playable: bool = False
    forced_play: bool = False
    jump_in: bool = False
    seven_o: bool = False
    # F2: a Flip card turned up as the starter
    flip_starter: str = "return"

    def __post_init__(self):
        _choice("variant", self.variant, VARIANTS)
        _int("players", self.players, MIN_PLAYERS, MAX_PLAYERS)
        _choice("edition", self.edition, EDITIONS)
        for name, value in EDITION_DEFAULTS[self.edition].items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        _choice("dealer_draw", self.dealer_draw, DEALER_DRAW)
        _choice("drawn_card", self.drawn_card, DRAWN_CARD)
        _choice("challenge", self.challenge, CHALLENGE)
        _int("wd4_value", self.wd4_value, 0, VALUE_MAX)
        _choice("scoring", self.scoring, SCORING)
        _int("target", self.target, 1, TARGET_MAX)
        _int("hand_size", self.hand_size, 1, 20)
        _choice("flip_pairing", self.flip_pairing, FLIP_PAIRING)
        _int("deck_seed", self.deck_seed, 0, 2**63 - 1)
        _choice("exchange", self.exchange, EXCHANGE)
        object.__setattr__(self, "custom_wilds", _custom_wilds(self.custom_wilds))
        _choice("launcher", self.launcher, LAUNCHER)
        _int("launcher_fire", self.launcher_fire, 0, 1000)
        _int("launcher_max_silent", self.launcher_max_silent, 0, 1000)
        object.__setattr__(self, "launcher_burst", _weights("launcher_burst", self.launcher_burst, 1))
        object.__setattr__(self, "launcher_weights",
                           _weights("launcher_weights", self.launcher_weights, 0))
        _int("hit_target_presses", self.hit_target_presses, 0, 10)
        _choice("flip_starter", self.flip_starter, FLIP_STARTER)
        if self.flip_starter == "flip" and self.variant != "flip":
            raise RulesError(f"invalid flip_starter 'flip' for variant {self.variant!r}: only "
                             f"UNO Flip has Flip cards")
        if not isinstance(self.teams, bool):
            raise RulesError(f"invalid teams {self.teams!r}: expected true or false")
        if self.teams:
            if self.players % 2 or self.players < 4:
                raise RulesError(f"invalid players {self.players} for teams: expected 4, 6, 8 or 10")
            if self.scoring != "standard":
                raise RulesError(f"invalid scoring {self.scoring!r} for teams: expected standard")
        _choice("stacking", self.stacking, STACKING)
        for name in HOUSE_BOOLS:
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"invalid {name} {getattr(self, name)!r}: expected true or false")
        object.__setattr__(self, "deck", _deck_overrides(self.deck))
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
        for name, default in (("custom_wilds", CUSTOM_WILDS_DEFAULT), ("exchange", EXCHANGE[0])):
            if self.variant != "house-2018" and getattr(self, name) != default:
                raise RulesError(f"invalid {name} {getattr(self, name)!r} for variant "
                                 f"{self.variant!r}: only the house-2018 deck has those cards "
                                 f"(S2, S3)")
        if self.draw_until_playable and self.variant == "extreme":
            raise RulesError("invalid draw_until_playable True for variant 'extreme': the "
                             "launcher replaces the draw pile (E3: one press, nothing is drawn "
                             "to play)")

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
        if self.deck:
            from .cards import deck_for

            return deck_for(self).size
        if self.variant == "house-2018":
            return 109 + len(self.custom_wilds.split(","))
        return DECK_SIZE[self.variant]

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
        d = self.to_dict()
        if "edition" in changes:  # edition-derived switches follow a new edition
            for name in EDITION_DEFAULTS["modern"]:
                d[name] = None
        d.update(changes)
        return Rules(**d)


RULE_KEYS = tuple(f.name for f in fields(Rules))


# The values each switch takes, as `Rules` validates them (tests/test_usability.py checks
# that they agree), for `uno-sim rules` and docs.
SWITCH_CHOICES = {"variant": VARIANTS, "edition": EDITIONS, "dealer_draw": DEALER_DRAW,
                  "drawn_card": DRAWN_CARD, "challenge": CHALLENGE, "scoring": SCORING,
                  "flip_pairing": FLIP_PAIRING, "exchange": EXCHANGE, "launcher": LAUNCHER,
                  "stacking": STACKING, "flip_starter": FLIP_STARTER}
SWITCH_RANGES = {"players": (MIN_PLAYERS, MAX_PLAYERS), "wd4_value": (0, None),
                 "target": (1, None), "hand_size": (1, 20), "deck_seed": (0, 2**63 - 1),
                 "launcher_fire": (0, 1000), "launcher_max_silent": (0, 1000),
                 "hit_target_presses": (0, 10)}


def _docstring_table() -> dict:
    """{field: (meaning, rule IDs)} read from the table in the `Rules` docstring."""
    lines = (Rules.__doc__ or "").splitlines()
    marks = [i for i, ln in enumerate(lines) if ln.strip().startswith("=====")]
    if len(marks) < 3:
        return {}
    cols = [j for j, ch in enumerate(lines[marks[0]]) if ch == "=" and
            (j == 0 or lines[marks[0]][j - 1] == " ")]
    out, last = {}, None
    for ln in lines[marks[1] + 1:marks[2]]:
        name = ln[cols[0]:cols[1]].strip()
        meaning, rule = ln[cols[1]:cols[2]].strip(), ln[cols[2]:].strip()
        if name:
            out[name], last = [meaning, rule], name
        elif last:
            out[last][0] += " " + meaning
            out[last][1] += rule
    return {k: (m, r) for k, (m, r) in out.items()}


def switch_values(name: str) -> str:
    """The values switch `name` takes, as text: `a | b`, `2..10`, `true | false`..."""
    if name in SWITCH_CHOICES:
        return " | ".join(SWITCH_CHOICES[name])
    if name in SWITCH_RANGES:
        lo, hi = SWITCH_RANGES[name]
        return f">= {lo}" if hi is None else f"{lo}..{hi}"
    kind = {f.name: f.type for f in fields(Rules)}[name]
    if kind == "bool":
        return "true | false"
    if name == "custom_wilds":
        from .cards import CUSTOM_RULES

        return "1-3 of " + ",".join(CUSTOM_RULES)
    if name in ("launcher_burst", "launcher_weights"):
        return f"1-{LAUNCHER_MAX} integers >= 0"
    if name == "deck":
        return "FILE.toml ([count], [value])"
    return str(kind)


def switch_table(variants=VARIANTS) -> list[dict]:
    """Every rule switch: name, values, default per variant, meaning and rule IDs."""
    doc = _docstring_table()
    defaults = {v: Rules(variant=v).to_dict() for v in variants}
    rows = []
    for name in RULE_KEYS:
        meaning, rule = doc.get(name, ("", ""))
        rows.append({"switch": name, "values": switch_values(name),
                     # `variant` names the variant; its own default is the dataclass's
                     "default": {v: Rules().variant if name == "variant" else defaults[v][name]
                                 for v in variants},
                     "rule": rule, "meaning": meaning})
    return rows


def _deck_overrides(deck) -> tuple:
    """Normalize deck overrides to a tuple of (pattern, count, value) triples.

    Accepts that tuple form (or lists of 3, as JSON gives back) or the mapping
    of a deck file: {"count": {pattern: n}, "value": {pattern: v}}.
    """
    if isinstance(deck, dict):
        return _deck_from_tables(deck, "deck")
    out = []
    try:
        items = list(deck)
    except TypeError:
        raise RulesError(f"invalid deck {deck!r}: expected (card, count, value) triples") from None
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 3 or not isinstance(item[0], str):
            raise RulesError(f"invalid deck entry {item!r}: expected (card, count, value)")
        pattern, count, value = item
        if count is not None:
            _int(f"count of {pattern}", count, 0, 255)
        if value is not None:
            _int(f"value of {pattern}", value, 0, VALUE_MAX)
        out.append((pattern, count, value))
    return tuple(out)


def _deck_from_tables(tables: dict, where: str) -> tuple:
    for key in tables:
        if key not in ("count", "value"):
            raise RulesError(f"unknown table {key!r} in {where}: expected count, value")
    merged: dict[str, list] = {}
    for key, slot in (("count", 0), ("value", 1)):
        table = tables.get(key, {})
        if not isinstance(table, dict):
            raise RulesError(f"invalid {key} in {where}: expected a table of card = number")
        for pattern, n in table.items():
            merged.setdefault(str(pattern), [None, None])[slot] = n
    return _deck_overrides([(p, c, v) for p, (c, v) in merged.items()])


def load_deck_file(path) -> tuple:
    """Read deck overrides from a TOML file: a [count] and/or a [value] table.

    ```toml
    [count]
    "W+4" = 0      # no Wild Draw Four
    "*0" = 2       # two 0s of every color
    [value]
    W = 40
    ```
    """
    import os
    import tomllib

    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise RulesError(f"invalid deck file {path!r}: expected a file name")
    try:
        with open(path, "rb") as f:
            tables = tomllib.load(f)
    except OSError as exc:
        raise RulesError(f"cannot read deck file {str(path)!r}: {exc.strerror}") from None
    except ValueError as exc:  # TOMLDecodeError, or bytes that are not UTF-8
        raise RulesError(f"invalid deck file {str(path)!r}: {exc}") from None
    return _deck_from_tables(tables, f"deck file {str(path)!r}")


def parse_rule_value(key: str, text: str):
    """Parse `--rule KEY=VALUE` text into the field's type."""
    if key == "deck":
        return load_deck_file(text)
    if key not in RULE_KEYS:
        raise RulesError(f"unknown rule {key!r}: expected one of {', '.join(RULE_KEYS)}")
    if key in ("players", "target", "hand_size", "wd4_value", "deck_seed", "launcher_fire",
               "launcher_max_silent", "hit_target_presses"):
        try:
            return int(text)
        except ValueError:
            raise RulesError(f"invalid {key} {text!r}: expected an integer") from None
    if key == "teams" or key in HOUSE_BOOLS:
        low = text.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise RulesError(f"invalid {key} {text!r}: expected true or false")
    return text


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
            if not (lo.isdigit() and (not sep or hi.isdigit())):
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
