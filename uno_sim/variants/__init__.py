"""The variant registry: one module per variant, each a declarative `Variant` record.

A module of this package that defines ``VARIANT = Variant(...)`` is a variant: its card
kinds, the traits the engines read instead of its name (``two_faced``, ``draw_source``),
its own rule switches (`Switch` records), its color names and what a run's summary says
about it.  `discover()` imports every module of the package at import time, so adding a
variant is adding a module (docs/variants.md).  Variants are listed by ``order``.

Nothing outside this package tests a variant's name: code asks the record
(``variant_of(rules).draw_source == "launcher"``).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from dataclasses import dataclass, field
from typing import Callable

from ..kinds import COLOR_NAMES, Kind

SWITCH_KINDS = ("choice", "int", "bool", "weights", "text", "deck")
DRAW_SOURCES = ("pile", "launcher")  # where a player's drawn cards come from (C8; E2, E3)


@dataclass(frozen=True, kw_only=True)
class Switch:
    """One rule switch: a field of `rules.Rules`, how it is checked, shown and passed to C.

    kind      choice | int | bool | weights (E2 tables) | text | deck (the overrides)
    values    choice: the allowed values, in uno_config's encoding order (the index is
              what C receives); a zero-argument callable where the set can grow
    lo, hi    int: the allowed range (hi None: no upper bound); weights: the card
              count the first entry weighs
    default   the value a `Rules` gets when the switch is not set (None: the edition's)
    rule      rule IDs of docs/rules.md; meaning: one line for `uno-sim rules`
    shown     the values as `uno-sim rules` prints them, where the kind's own text
              (`a | b`, `lo..hi`, `true | false`) is not what to print
    owner     the variant whose cards the switch is about (None: every variant)
    only      set off its default for another variant, the switch is refused with
              this reason (None: accepted and ignored there)
    check     text and deck kinds: value -> normalized value, RulesError otherwise
    c_field   the uno_config field it fills ("": the switch's own name; None: none)
    """

    name: str
    kind: str
    default: object
    values: tuple | Callable[[], tuple] = ()
    lo: int | None = None
    hi: int | None = None
    rule: str = ""
    meaning: str = ""
    shown: str | None = None
    owner: str | None = None
    only: str | None = None
    check: Callable | None = None
    c_field: str | None = ""

    def __post_init__(self):
        if self.kind not in SWITCH_KINDS:
            raise ValueError(f"invalid kind {self.kind!r} of switch {self.name!r}: expected "
                             f"one of {', '.join(SWITCH_KINDS)}")
        if self.c_field == "":
            object.__setattr__(self, "c_field", self.name)

    def choices(self) -> tuple:
        """The values a choice switch takes (read from the registry when they are a function)."""
        return self.values() if callable(self.values) else self.values

    def values_text(self) -> str:
        """The values the switch takes, as text: `a | b`, `2..10`, `true | false`..."""
        if self.shown is not None:
            return self.shown
        if self.kind == "choice":
            return " | ".join(self.choices())
        if self.kind == "int":
            return f">= {self.lo}" if self.hi is None else f"{self.lo}..{self.hi}"
        if self.kind == "bool":
            return "true | false"
        return self.kind

    def encode(self, value):
        """The value as uno_config holds it: a choice's index, a bool as 0/1, a tuple."""
        if self.kind == "choice":
            return self.choices().index(value)
        if self.kind == "bool":
            return int(value)
        if self.kind == "weights":
            return tuple(value)
        return value


def _no_lines(rules) -> list[str]:
    """No summary lines: the default of Variant.summary."""
    return []


@dataclass(frozen=True, kw_only=True)
class Variant:
    """One variant, declared as data (docs/variants.md).

    name         what `Rules.variant` and `--variant` say
    order        place in listings (`uno-sim rules`, `--variant all`)
    title        the printed game's name; rule: its rule IDs in docs/rules.md
    kinds        the deck's card kinds (the light faces of a two-faced deck), called
                 with the `Rules` fields named by deck_fields as keywords
    dark_kinds   two-faced decks: the dark faces (F1); the pairing follows deck_seed
    deck_fields  the `Rules` fields the kinds depend on (the deck cache's key)
    draw_source  pile | launcher: where drawn cards come from (E2, E3)
    color_names  colors 0..7 as printed (H1: pink is color 0 in Hello Kitty)
    switches     the variant's own `Switch` records (fields of `rules.Rules`)
    check        cross-checks of a `Rules` of this variant: rules -> None or RulesError
    summary      rules -> the lines a run's summary adds about the variant
    """

    name: str
    order: int
    title: str
    rule: str
    kinds: Callable[..., list[Kind]]
    dark_kinds: Callable[[], list[Kind]] | None = None
    deck_fields: tuple[str, ...] = ()
    draw_source: str = "pile"
    color_names: tuple[str, ...] = COLOR_NAMES
    switches: tuple[Switch, ...] = ()
    check: Callable | None = None
    summary: Callable = field(default=_no_lines)

    def __post_init__(self):
        if self.draw_source not in DRAW_SOURCES:
            raise ValueError(f"invalid draw_source {self.draw_source!r} of variant "
                             f"{self.name!r}: expected one of {', '.join(DRAW_SOURCES)}")
        for s in self.switches:
            if s.owner != self.name:
                raise ValueError(f"invalid switch {s.name!r} of variant {self.name!r}: its "
                                 f"owner is {s.owner!r}")

    @property
    def two_faced(self) -> bool:
        """F1: every card has a light and a dark face."""
        return self.dark_kinds is not None

    def default_kinds(self) -> list[Kind]:
        """The kinds as printed (deck_fields at their defaults)."""
        return self.kinds()

    @property
    def deck_size(self) -> int:
        """Cards in the deck as printed (one per physical card, whatever its faces)."""
        return sum(k.count for k in self.default_kinds())


_REGISTRY: dict[str, Variant] = {}
_GENERATION = 0  # bumped at every change of the registry (`generation`)


def register(variant: Variant) -> Variant:
    """Add a variant to the registry (`discover` does it for the package's modules)."""
    if variant.name in _REGISTRY and _REGISTRY[variant.name] is not variant:
        raise ValueError(f"variant {variant.name!r} is declared twice")
    _REGISTRY[variant.name] = variant
    _changed()
    return variant


def unregister(name: str) -> None:
    """Remove a variant (a test's throwaway one)."""
    _REGISTRY.pop(name, None)
    _changed()


def generation() -> int:
    """A number that changes whenever a variant is registered or removed: part of the
    key of the deck cache (uno_sim.cards), so that a deck built before is never served."""
    return _GENERATION


def _changed():
    global _GENERATION
    _GENERATION += 1


def discover(path=None) -> list[Variant]:
    """Import every module under `path` (default: this package) and register the
    ``VARIANT`` each defines; returns the variants found."""
    found = []
    for info in pkgutil.iter_modules(__path__ if path is None else [str(path)]):
        if path is None:
            module = importlib.import_module(f"{__name__}.{info.name}")
        else:  # a folder outside the package: load the file itself
            spec = info.module_finder.find_spec(info.name)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        v = getattr(module, "VARIANT", None)
        if isinstance(v, Variant):
            found.append(register(v))
    return found


def variants() -> tuple[Variant, ...]:
    """Every registered variant, by order."""
    return tuple(sorted(_REGISTRY.values(), key=lambda v: (v.order, v.name)))


def variant_names() -> tuple[str, ...]:
    """The names of the registered variants, in registration order."""
    return tuple(v.name for v in variants())


def variant_of(rules_or_name) -> Variant:
    """The record of a variant, from its name or from a `Rules`."""
    name = getattr(rules_or_name, "variant", rules_or_name)
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown variant {name!r}") from None


def variant_switches() -> tuple[Switch, ...]:
    """The switches every registered variant declares, in registry order."""
    return tuple(s for v in variants() for s in v.switches)


discover()
