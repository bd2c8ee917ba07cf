"""Built-in policy specifications: `name(knob=value, ...)` strings and their defaults.

The decisions themselves are implemented twice, in C (`csrc/policy.c`) and in the
reference engine (`uno_sim/reference.py`); this module only names, parses and
validates them.  Every knob is a decision of RULES.md P2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .rules import RulesError

COLOR_RULES = ("most", "random")

# name -> (policy id in both engines, {knob: default})
POLICIES = {
    "random": (0, {
        "bluff": 0.5, "challenge": 0.5, "forget_uno": 0.05, "catch": 0.5,
        "play_drawn": 0.5, "voluntary_draw": 0.0, "color": "random",
    }),
    "greedy": (1, {
        "bluff": 0.0, "challenge": 0.0, "forget_uno": 0.05, "catch": 0.5,
        "play_drawn": 1.0, "voluntary_draw": 0.0, "color": "most",
    }),
}

KNOB_HELP = {
    "bluff": "probability of playing a restricted wild (WD4) illegally when one is held "
             "and a card of the active color is too (C7, C12)",
    "challenge": "probability of challenging a WD4 played on this seat (C12)",
    "forget_uno": "probability of forgetting to say UNO on the second-to-last card (C13)",
    "catch": "probability of catching an opponent who forgot UNO (C13)",
    "play_drawn": "probability of playing a legally playable drawn card when the rules leave "
                  "the choice (C8)",
    "voluntary_draw": "probability of drawing instead of playing when a card could be played "
                      "(greedy only; random draws as one of its uniform options) (C8)",
    "color": "color named on a wild: most (the color held most, ties to R,Y,G,B order) or "
             "random (C9)",
}

POLICY_HELP = {
    "random": "uniform over the playable cards and drawing; uniform color",
    "greedy": "sheds the highest-value playable card, keeps wilds until nothing else "
              "plays (WD4 before Wild), names the color it holds most of",
}


@dataclass(frozen=True)
class PolicySpec:
    name: str
    params: dict = field(default_factory=dict)

    @property
    def policy_id(self) -> int:
        return POLICIES[self.name][0]

    def knob(self, key):
        return self.params.get(key, POLICIES[self.name][1][key])

    def knobs(self) -> dict:
        return {k: self.knob(k) for k in POLICIES[self.name][1]}

    def __str__(self) -> str:
        if not self.params:
            return self.name
        inner = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}({inner})"


_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$")


def parse_policy(spec) -> PolicySpec:
    """Parse `greedy(bluff=0.3,challenge=1)`; a PolicySpec passes through."""
    if isinstance(spec, PolicySpec):
        return spec
    m = _SPEC.match(str(spec))
    if not m:
        raise RulesError(f"invalid policy spec {spec!r}: expected name or name(key=value,...)")
    name, inner = m.group(1), m.group(2)
    if name not in POLICIES:
        raise RulesError(f"unknown policy {name!r}: expected one of {', '.join(POLICIES)}")
    defaults = POLICIES[name][1]
    params = {}
    for item in filter(None, (s.strip() for s in (inner or "").split(","))):
        key, sep, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or key not in defaults:
            raise RulesError(
                f"unknown parameter {key!r} for policy {name}: expected one of {', '.join(defaults)}"
            )
        if key == "color":
            if text not in COLOR_RULES:
                raise RulesError(f"invalid color {text!r} for policy {name}: expected most or random")
            params[key] = text
            continue
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not 0.0 <= value <= 1.0:
            raise RulesError(f"invalid {key} {text!r} for policy {name}: expected a probability in [0, 1]")
        params[key] = value
    return PolicySpec(name, params)


def seat_policies(policy, players: int, seats: dict | None = None) -> list[PolicySpec]:
    """One spec per seat: `policy` for all (or a list), `seats` {seat: spec} overrides."""
    if isinstance(policy, (list, tuple)):
        if len(policy) != players:
            raise RulesError(f"invalid policies: {len(policy)} given for {players} players")
        specs = [parse_policy(p) for p in policy]
    else:
        specs = [parse_policy(policy)] * players
    for seat, spec in (seats or {}).items():
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise RulesError(f"invalid seat {seat!r}: expected 0..{players - 1}")
        specs[seat] = parse_policy(spec)
    return specs
