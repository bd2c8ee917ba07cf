"""Built-in policy specifications: `name(knob=value, ...)` strings and their defaults.

The decisions themselves are implemented twice, in C (`csrc/policy.c`) and in the
reference engine (`uno_sim/reference/policies.py`); this module only names, parses and
validates them.  Every knob is a decision of RULES.md P2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .rules import RulesError

COLOR_RULES = ("most", "random", "smart")
TARGET_RULES = ("most", "fewest", "next", "random")  # policy.c UNO_TARGET_*
AUTO = "auto"  # challenge=auto: challenge when the estimated P(bluff) > challenge_threshold
POSTERIOR = "posterior"  # challenge=posterior: when the posterior P(bluff) > challenge_threshold
ANY = "any"  # a state condition that always holds
ANY_SIZE = 9999  # uno.h UNO_ANY: ANY as a hand size
MAX_SIZE = 255  # the largest hand size a condition may name (a hand holds at most 255 cards)
# the state conditions: hand sizes (0..MAX_SIZE or any), and the suspect seat (0..9 or any)
SIZE_KNOBS = ("bluff_next", "bluff_own", "challenge_offender", "challenge_own")
SEAT_KNOBS = ("suspect",)

_COMMON = {"forget_uno": 0.05, "catch": 0.5, "challenge_threshold": 0.5}
_STATE = {"bluff_next": ANY, "bluff_own": ANY, "challenge_offender": ANY, "challenge_own": ANY,
          "suspect": ANY, "challenge_prior": 0.5}

# name -> (policy id in both engines, {knob: default})
POLICIES = {
    "random": (0, {
        "bluff": 0.5, "challenge": 0.5, **_COMMON, "play_drawn": 0.5, "voluntary_draw": 0.0,
        "color": "random", "target": "random", "stack": 0.5, "jump_in": 0.5, **_STATE,
    }),
    "greedy": (1, {
        "bluff": 0.0, "challenge": 0.0, **_COMMON, "play_drawn": 1.0, "voluntary_draw": 0.0,
        "color": "most", "target": "fewest", "stack": 1.0, "jump_in": 1.0, **_STATE,
    }),
    "strategic": (2, {
        "bluff": 0.0, "challenge": AUTO, **_COMMON, "challenge_threshold": 0.9,
        "play_drawn": 1.0, "voluntary_draw": 0.0, "color": "smart", "target": "fewest",
        "stack": 1.0, "jump_in": 1.0, **_STATE,
    }),
}
USER_POLICY_ID = 3  # a user's Python policy (uno_sim.userpolicy)

KNOB_HELP = {
    "bluff": "probability of playing a restricted wild (WD4) illegally when one is held "
             "and a card of the active color is too (C7, C12)",
    "challenge": "probability of challenging a WD4 played on this seat; auto: challenge "
                 "when the estimated probability that the player could bluff exceeds "
                 "challenge_threshold; posterior: when the posterior probability of a bluff "
                 "(that estimate combined with challenge_prior) exceeds it (C12)",
    "challenge_threshold": "with challenge=auto or posterior, the probability above which "
                           "to challenge (C12)",
    "challenge_prior": "with challenge=posterior, the assumed rate at which the player who "
                       "played the WD4 bluffs when it can (C12)",
    "bluff_next": "bluff only when the next player holds at most this many cards (any: always)",
    "bluff_own": "bluff only when this seat holds at most this many cards (any: always)",
    "challenge_offender": "challenge only when the player who played the WD4 holds at most "
                          "this many cards after it (any: always)",
    "challenge_own": "challenge only when this seat holds at most this many cards (any: always)",
    "suspect": "challenge only WD4s played by this seat (any: every player); for focal-seat "
               "studies where only one player bluffs",
    "forget_uno": "probability of forgetting to say UNO on the second-to-last card (C13)",
    "catch": "probability of catching an opponent who forgot UNO (C13)",
    "play_drawn": "probability of playing a legally playable drawn card when the rules leave "
                  "the choice (C8)",
    "voluntary_draw": "probability of drawing instead of playing when a colored card could be "
                      "played (greedy, strategic; random draws as one of its uniform "
                      "options) (C8)",
    "color": "color named on a wild: most (the color held most, ties to R,Y,G,B order), "
             "random, or smart (held, already played, and failed by the next player) (C9)",
    "target": "whom a targeted card picks: the opponent with the most or fewest cards, the "
              "next player, or a random opponent (P2; the hand-exchange wild of house-2018, "
              "the 7 of the Seven-O house rule C-H5)",
    "stack": "with the stacking house rule (C-H1), probability of answering a draw card "
             "with a draw card (random picks one uniformly, greedy and strategic the "
             "highest value) instead of drawing",
    "jump_in": "with the jump-in house rule (C-H4), probability of playing an identical "
               "card out of turn when holding one",
}

KNOB_RANGE = {"color": " | ".join(COLOR_RULES), "target": " | ".join(TARGET_RULES),
              "challenge": "0..1 | auto | posterior", "suspect": "0..9 | any",
              **{k: f"0..{MAX_SIZE} | any" for k in SIZE_KNOBS}}

POLICY_HELP = {
    "random": "uniform over the playable cards and drawing; uniform color",
    "greedy": "sheds the highest-value playable card, keeps wilds until nothing else "
              "plays (WD4 before Wild), names the color it holds most of",
    "strategic": "scores every legal card from visible information only: stays in the colors "
                 "it holds, plays colors the next player failed to follow, hits the next "
                 "player with Skip/Draw Two/WD4 when it is close to going out, keeps wilds "
                 "for the end, dumps high values when anyone is at two cards or fewer; "
                 "challenges a WD4 by its estimated bluff probability",
}


def knob_range(knob: str) -> str:
    return KNOB_RANGE.get(knob, "0..1")


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

    def c_knobs(self) -> dict:
        """The knobs as both engines read them: ANY as a number, challenge split into
        a probability and the auto / posterior flags."""
        k = self.knobs()
        mode = k["challenge"]
        k["challenge_auto"] = mode == AUTO
        k["challenge_posterior"] = mode == POSTERIOR
        k["challenge"] = 0.0 if mode in (AUTO, POSTERIOR) else float(mode)
        for key in SIZE_KNOBS:
            k[key] = ANY_SIZE if k[key] == ANY else int(k[key])
        k["suspect"] = -1 if k["suspect"] == ANY else int(k["suspect"])
        return k

    def __str__(self) -> str:
        if not self.params:
            return self.name
        inner = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}({inner})"


class UserPolicySpec:
    """A seat played by a user's Python policy (see uno_sim.userpolicy, docs/policies.md)."""

    name = "user"
    policy_id = USER_POLICY_ID

    def __init__(self, policy):
        self.policy = policy

    def __eq__(self, other):
        return isinstance(other, UserPolicySpec) and other.policy is self.policy

    def __hash__(self):
        return id(self.policy)

    def __str__(self) -> str:
        p = self.policy
        label = getattr(p, "name", None) or getattr(p, "__name__", None) or type(p).__name__
        return f"user:{label}"


_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$")


def parse_policy(spec) -> PolicySpec:
    """Parse `greedy(bluff=0.3,challenge=1)`; a PolicySpec passes through.

    A user policy (any object that is not a string: a callable or an object with
    a ``decide`` method, see docs/policies.md) is wrapped in a UserPolicySpec.
    """
    if isinstance(spec, UserPolicySpec):
        return spec
    if isinstance(spec, PolicySpec):  # built by hand: its text must parse to the same
        if not isinstance(spec.name, str) or not isinstance(spec.params, dict) or any(
                isinstance(v, bool) or not isinstance(v, (int, float, str))
                for v in spec.params.values()):
            raise RulesError(f"invalid policy {spec!r}: expected a name and a dict of knobs")
        if parse_policy(str(spec)).knobs() != spec.knobs():
            raise RulesError(f"invalid policy {spec!r}: its knobs do not read back")
        return spec
    if not isinstance(spec, str):
        if callable(spec) or callable(getattr(spec, "decide", None)):
            return UserPolicySpec(spec)
        raise RulesError(f"invalid policy {spec!r}: expected a spec string or a user policy "
                         f"(a callable, or an object with a decide method)")
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
        if key in params:
            raise RulesError(f"invalid policy spec {spec!r}: {key} is given twice")
        if not sep or key not in defaults:
            raise RulesError(
                f"unknown parameter {key!r} for policy {name}: expected one of {', '.join(defaults)}"
            )
        if key in ("color", "target"):
            allowed = COLOR_RULES if key == "color" else TARGET_RULES
            if text not in allowed:
                raise RulesError(f"invalid {key} {text!r} for policy {name}: expected one of "
                                 f"{', '.join(allowed)}")
            params[key] = text
            continue
        if key == "challenge" and text in (AUTO, POSTERIOR):
            params[key] = text
            continue
        if key in SIZE_KNOBS or key in SEAT_KNOBS:
            top = MAX_SIZE if key in SIZE_KNOBS else 9
            if text == ANY:
                params[key] = ANY
                continue
            if not re.fullmatch(r"\d{1,4}", text) or int(text) > top:
                raise RulesError(f"invalid {key} {text!r} for policy {name}: expected an integer "
                                 f"0..{top} or {ANY}")
            params[key] = int(text)
            continue
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not 0.0 <= value <= 1.0:
            what = "a probability in [0, 1]" + (" or auto or posterior" if key == "challenge"
                                                else "")
            raise RulesError(f"invalid {key} {text!r} for policy {name}: expected {what}")
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
    for spec in specs:
        suspect = spec.params.get("suspect", ANY) if isinstance(spec, PolicySpec) else ANY
        if suspect != ANY and suspect >= players:
            raise RulesError(f"invalid suspect {suspect} in {spec}: expected a seat 0..{players - 1}"
                             f" or {ANY}")
    return specs
