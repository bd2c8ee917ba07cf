"""Built-in policy specifications: `name(knob=value, ...)` strings and their defaults.

The decisions themselves are implemented twice, in C (`csrc/policy.c`) and in the
reference engine (`uno_sim/reference/policies.py`); this module only names, parses and
validates them.  Every knob is a decision of docs/rules.md P2.

Every knob is a `Knob` record of one table (`KNOBS`): its name (the same in a spec
string, in uno_policy's fields, as an attribute of the reference policies and in
docs/policies.md), its values, its default in each built-in policy, its help text and
the uno_policy fields it fills.  The table gives the spec parser, `PolicySpec`'s knobs,
what `uno-sim policies` prints and the uno_policy fill of `engine._policy`;
`check_knobs` makes a table that disagrees with uno_policy's fields an import error of
`uno_sim.engine`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..rules import RulesError

COLOR_RULES = ("most", "random", "smart")  # uno.h UNO_COLOR_*
TARGET_RULES = ("most", "fewest", "next", "random")  # uno.h UNO_TARGET_*
JOIN_RULES = ("and", "or")  # uno.h UNO_JOIN_*: how two size conditions combine
AUTO = "auto"  # challenge=auto: challenge when the estimated P(bluff) > challenge_threshold
POSTERIOR = "posterior"  # challenge=posterior: when the posterior P(bluff) > challenge_threshold
ANY = "any"  # a state condition that always holds
ANY_SIZE = 9999  # uno.h UNO_ANY: ANY as a hand size
MAX_SIZE = 255  # the largest hand size a condition may name (a hand holds at most 255 cards)
MAX_SEAT = 9  # the largest seat `suspect` may name (rules.MAX_PLAYERS - 1)
# the built-in policies, by id in both engines (uno.h UNO_POLICY_*)
POLICY_NAMES = ("random", "greedy", "strategic")
USER_POLICY_ID = 3  # a user's Python policy (uno_sim.players.user)
# the search players (csrc/search.c, docs/policies.md "Search players"), by id (uno.h)
SEARCH_NAMES = ("pimc", "ismcts")
SEARCH_IDS = {"pimc": 4, "ismcts": 5}
VALUES = ("game", "round", "table")  # uno.h UNO_VALUE_*: what a search's rollout is worth
COUNT_MAX = 100000  # the largest count a search knob takes (samples, rollouts, iterations)
C_MAX = 100.0  # the largest UCB constant
DEPTH_MAX = 64  # ismcts's largest depth (uno.h UNO_SEARCH_DEPTH_MAX)
# the network player (csrc/net.c, docs/net.md), by id (uno.h UNO_POLICY_NET)
NET_NAMES = ("net",)
NET_ID = 6
ROLLOUTS = POLICY_NAMES + NET_NAMES  # what a search's rollouts may play
OTHERS = ("same",) + ROLLOUTS  # what the other seats play in a search's rollouts
ANCHORS = ("rollout",) + ROLLOUTS  # whose answer a search keeps unless another leads it
OFF = "off"  # a limit knob turned off
KNOB_KINDS = ("prob", "choice", "size", "seat", "count", "real", "flag", "cells", "file",
              "limit")
# the policy families a knob's defaults may cover
FAMILIES = (POLICY_NAMES, SEARCH_NAMES, NET_NAMES + SEARCH_NAMES)


def _policy_id(name: str) -> int:
    """A rollout policy's engine id (uno.h UNO_POLICY_*)."""
    return NET_ID if name == "net" else POLICY_NAMES.index(name)


CELL_SIDE = 8  # uno.h UNO_CELL_SIDE: cells of hand sizes 1..8, the last for 8 and more
ALL_CELLS = (1 << (CELL_SIDE * CELL_SIDE)) - 1  # uno.h UNO_CELLS_ALL


def cells_mask(cells) -> int:
    """The mask of a set of (other hand, own hand) cells, sizes 1..CELL_SIDE (the last
    standing for that and more): bit (other - 1) * CELL_SIDE + (own - 1)."""
    mask = 0
    for other, own in cells:
        if not (1 <= other <= CELL_SIDE and 1 <= own <= CELL_SIDE):
            raise ValueError(f"invalid cell ({other}, {own}): sizes 1..{CELL_SIDE}")
        mask |= 1 << ((other - 1) * CELL_SIDE + (own - 1))
    return mask


def mask_cells(mask: int) -> list:
    """The (other, own) cells of a mask (cells_mask's inverse)."""
    return [(i // CELL_SIDE + 1, i % CELL_SIDE + 1) for i in range(CELL_SIDE * CELL_SIDE)
            if (mask >> i) & 1]


def _challenge_fields(value) -> dict:
    """challenge: a probability, or a mode (auto, posterior) as its flag."""
    return {"challenge": 0.0 if value in (AUTO, POSTERIOR) else float(value),
            "challenge_auto": int(value == AUTO),
            "challenge_posterior": int(value == POSTERIOR)}


@dataclass(frozen=True)
class Knob:
    """One knob of the built-in policies.

    kind: prob (a probability 0..1, or one of `values`: words with a meaning of
    their own), choice (one of `values`; uno_policy holds its index), size (a hand
    size 0..MAX_SIZE or any), seat (a seat 0..MAX_SEAT or any), count (an integer
    1..COUNT_MAX, or 1..`high` when given), real (a number 0..C_MAX), flag (0 or 1),
    cells (a mask of (other hand, own hand) cells, `cells_mask`, in hexadecimal 0x...,
    or any), file (a file name; it fills no uno_policy field: the engine reads the file),
    limit (an integer 0..COUNT_MAX, or off: -1 for the engine).
    `defaults` holds the value in each built-in policy (POLICY_NAMES), or in each search player
    (SEARCH_NAMES) for a knob of SEARCH_KNOBS, or in the network player and the search
    players (NET_NAMES + SEARCH_NAMES) for a knob of NET_KNOBS; `only`, when given, names the
    policies that take the knob (the others fill its fields with the default).  `fields` are
    the uno_policy fields it fills (default: its own name; none for a file); `encode`, when
    given, maps a value to {field: value} (default: the value in the kind's engine form,
    `engine_value`).
    """

    name: str
    kind: str
    defaults: dict
    help: str
    values: tuple = ()
    fields: tuple = ()
    encode: object = None
    only: tuple = ()
    high: int = 0  # a count knob's largest value (0: COUNT_MAX)
    codes: tuple = ()  # a choice's engine numbers, one per value (default: their index)

    def __post_init__(self):
        if self.kind not in KNOB_KINDS:
            raise ValueError(f"knob {self.name}: unknown kind {self.kind!r}")
        if set(self.defaults) not in [set(f) for f in FAMILIES]:
            raise ValueError(f"knob {self.name}: a default for each of {', '.join(POLICY_NAMES)}"
                             f" (or of {', '.join(SEARCH_NAMES)}, or of "
                             f"{', '.join(NET_NAMES + SEARCH_NAMES)})")
        if not self.only:
            object.__setattr__(self, "only", tuple(self.defaults))
        if not self.fields and self.kind != "file":
            object.__setattr__(self, "fields", (self.name,))

    @property
    def top(self) -> int:
        """The largest number a size or seat knob takes."""
        return MAX_SIZE if self.kind == "size" else MAX_SEAT

    def alternatives(self) -> tuple:
        """The values as words: a range ("0..1") and / or the words it takes."""
        if self.kind == "choice":
            return self.values
        if self.kind == "count":
            return (f"1..{self.high or COUNT_MAX}",)
        if self.kind == "real":
            return (f"0..{C_MAX:g}",)
        if self.kind == "flag":
            return ("0", "1")
        if self.kind == "cells":
            return (f"0x0..0x{ALL_CELLS:x}", ANY)
        if self.kind == "file":
            return ("FILE",)
        if self.kind == "limit":
            return (f"0..{COUNT_MAX}", OFF)
        if self.kind == "prob":
            return ("0..1",) + self.values
        return (f"0..{self.top}", ANY)

    def range(self) -> str:
        """The values the knob takes, as `uno-sim policies` prints them."""
        return " | ".join(self.alternatives())

    def parse(self, text: str, policy: str):
        """The value of spec text `text`; RulesError naming it otherwise."""
        if self.kind == "choice":
            if text not in self.values:
                raise RulesError(f"invalid {self.name} {text!r} for policy {policy}: expected "
                                 f"one of {', '.join(self.values)}")
            return text
        if self.kind == "file":
            if not text or any(c in text for c in ",=()") or text != text.strip():
                raise RulesError(f"invalid {self.name} {text!r} for policy {policy}: expected "
                                 f"a file name (without commas, parentheses or =)")
            return text
        if self.kind == "limit":
            if text == OFF:
                return OFF
            if not re.fullmatch(r"\d{1,6}", text) or int(text) > COUNT_MAX:
                raise RulesError(f"invalid {self.name} {text!r} for policy {policy}: expected "
                                 f"an integer 0..{COUNT_MAX} or {OFF}")
            return int(text)
        if self.kind in ("count", "flag"):
            top = (self.high or COUNT_MAX) if self.kind == "count" else 1
            low = 1 if self.kind == "count" else 0
            if not re.fullmatch(r"\d{1,6}", text) or not low <= int(text) <= top:
                raise RulesError(f"invalid {self.name} {text!r} for policy {policy}: expected "
                                 f"an integer {low}..{top}")
            return int(text)
        if self.kind == "cells":
            if text == ANY:
                return text
            if not re.fullmatch(r"0x[0-9a-f]{1,16}", text):
                raise RulesError(f"invalid {self.name} {text!r} for policy {policy}: expected "
                                 f"a cell mask 0x0..0x{ALL_CELLS:x} (hexadecimal) or {ANY}")
            return text
        if self.kind == "real":
            try:
                value = float(text)
            except ValueError:
                value = float("nan")
            if not 0.0 <= value <= C_MAX:
                raise RulesError(f"invalid {self.name} {text!r} for policy {policy}: expected "
                                 f"a number in [0, {C_MAX:g}]")
            return value
        if text in self.values or (self.kind in ("size", "seat") and text == ANY):
            return text
        if self.kind in ("size", "seat"):
            if not re.fullmatch(r"\d{1,4}", text) or int(text) > self.top:
                raise RulesError(f"invalid {self.name} {text!r} for policy {policy}: expected "
                                 f"an integer 0..{self.top} or {ANY}")
            return int(text)
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not 0.0 <= value <= 1.0:
            what = " or ".join(("a probability in [0, 1]",) + self.values)
            raise RulesError(f"invalid {self.name} {text!r} for policy {policy}: expected {what}")
        return value

    def engine_value(self, value):
        """The value as both engines read it: a probability as a float, a choice as its
        word, ANY as a number (ANY_SIZE, or -1 for a seat)."""
        if self.kind in ("prob", "real"):
            return float(value)
        if self.kind in ("count", "flag"):
            return int(value)
        if self.kind == "limit":
            return -1 if value == OFF else int(value)
        if self.kind in ("choice", "file"):
            return value
        if self.kind == "cells":
            return ALL_CELLS if value == ANY else int(value, 16)
        if value == ANY:
            return ANY_SIZE if self.kind == "size" else -1
        return int(value)

    def engine_fields(self, value) -> dict:
        """{field: value} as the reference policies read them (choices as words)."""
        if self.encode is not None:
            return self.encode(value)
        if self.kind == "file":
            return {}
        return {self.name: self.engine_value(value)}

    def c_fields(self, value) -> dict:
        """{uno_policy field: value}: as `engine_fields`, a choice as its index."""
        d = self.engine_fields(value)
        if self.kind == "choice":
            code = self.codes or range(len(self.values))
            d = {f: code[self.values.index(v)] for f, v in d.items()}
        return d


def _defaults(random, greedy, strategic) -> dict:
    return dict(zip(POLICY_NAMES, (random, greedy, strategic)))


def _same(value) -> dict:
    return dict.fromkeys(POLICY_NAMES, value)


# Every knob, in the order `uno-sim policies` and docs/policies.md list them.
KNOBS = (
    Knob("bluff", "prob", _defaults(0.5, 0.0, 0.0),
         "probability of playing a restricted wild (WD4) illegally when one is held "
         "and a card of the active color is too (C7, C12)"),
    Knob("challenge", "prob", _defaults(0.5, 0.0, AUTO),
         "probability of challenging a WD4 played on this seat; auto: challenge "
         "when the estimated probability that the player could bluff exceeds "
         "challenge_threshold; posterior: when the posterior probability of a bluff "
         "(that estimate combined with challenge_prior) exceeds it (C12)",
         values=(AUTO, POSTERIOR), fields=("challenge", "challenge_auto", "challenge_posterior"),
         encode=_challenge_fields),
    Knob("forget_uno", "prob", _same(0.05),
         "probability of forgetting to say UNO on the second-to-last card (C13)"),
    Knob("catch", "prob", _same(0.5),
         "probability of catching an opponent who forgot UNO (C13)"),
    Knob("challenge_threshold", "prob", _defaults(0.5, 0.5, 0.9),
         "with challenge=auto or posterior, the probability above which to challenge (C12)"),
    Knob("play_drawn", "prob", _defaults(0.5, 1.0, 1.0),
         "probability of playing a legally playable drawn card when the rules leave "
         "the choice (C8)"),
    Knob("voluntary_draw", "prob", _same(0.0),
         "probability of drawing instead of playing when a colored card could be "
         "played (greedy, strategic; random draws as one of its uniform options) (C8)"),
    Knob("color", "choice", _defaults("random", "most", "smart"),
         "color named on a wild: most (the color held most, ties to R,Y,G,B order), "
         "random, or smart (held, already played, and failed by the next player) (C9)",
         values=COLOR_RULES),
    Knob("target", "choice", _defaults("random", "fewest", "fewest"),
         "whom a targeted card picks: the opponent with the most or fewest cards, the "
         "next player, or a random opponent (P2; the hand-exchange wild of house-2018 S2, "
         "the Extreme Hit E6, the 7 of the Seven-O house rule C-H5)",
         values=TARGET_RULES),
    Knob("stack", "prob", _defaults(0.5, 1.0, 1.0),
         "with the stacking house rule (C-H1), probability of answering a draw card "
         "with a draw card (random picks one uniformly, greedy and strategic the "
         "highest value) instead of drawing"),
    Knob("jump_in", "prob", _defaults(0.5, 1.0, 1.0),
         "with the jump-in house rule (C-H4), probability of playing an identical "
         "card out of turn when holding one"),
    Knob("bluff_next", "size", _same(ANY),
         "bluff only when the next player holds at most this many cards (any: always)"),
    Knob("bluff_own", "size", _same(ANY),
         "bluff only when this seat holds at most this many cards (any: always)"),
    Knob("challenge_offender", "size", _same(ANY),
         "challenge only when the player who played the WD4 holds at most "
         "this many cards after it (any: always)"),
    Knob("challenge_own", "size", _same(ANY),
         "challenge only when this seat holds at most this many cards (any: always)"),
    Knob("suspect", "seat", _same(ANY),
         "challenge only WD4s played by this seat (any: every player); for focal-seat "
         "studies where only one player bluffs"),
    Knob("challenge_prior", "prob", _same(0.5),
         "with challenge=posterior, the assumed rate at which the player who "
         "played the WD4 bluffs when it can (C12)"),
    Knob("bluff_join", "choice", _same("and"),
         "how bluff_next and bluff_own combine: and (both must hold) or or (either is "
         "enough)", values=JOIN_RULES),
    Knob("challenge_join", "choice", _same("and"),
         "how challenge_offender and challenge_own combine: and (both) or or (either)",
         values=JOIN_RULES),
    Knob("bluff_cells", "cells", _same(ANY),
         "bluff only in these cells of (the next player's hand, this seat's), as well as "
         "the conditions above: a hexadecimal mask, bit (next - 1) * 8 + (own - 1) for sizes "
         "1..8, 8 standing for 8 and more (any: every cell)"),
    Knob("challenge_cells", "cells", _same(ANY),
         "challenge only in these cells of (the offender's hand, this seat's), as well as "
         "the conditions above: the same mask (any: every cell)"),
)
KNOB = {k.name: k for k in KNOBS}


def _rollout_challenge_fields(value) -> dict:
    """The rollout_challenge knob as uno_policy reads it: -1 for the rollout policy's own."""
    return {"rollout_challenge": -1.0 if value == "rollout" else float(value)}


def _search(pimc, ismcts) -> dict:
    return dict(zip(SEARCH_NAMES, (pimc, ismcts)))


# The search players' knobs (docs/policies.md "Search players"), in the order listed.
SEARCH_KNOBS = (
    Knob("samples", "count", _search(256, 256),
         "pimc: states sampled per decision (the hidden cards dealt again, P1)",
         only=("pimc",)),
    Knob("rollouts", "count", _search(4, 4),
         "pimc: rollouts per sampled state and legal answer", only=("pimc",)),
    Knob("iterations", "count", _search(1000, 1000),
         "ismcts: rollouts per decision, each on a sampled state", only=("ismcts",)),
    Knob("c", "real", _search(0.0, 0.0),
         "ismcts: 0: every answer once per sampled state, paired (iterations / answers "
         "states); above 0: UCB1 with this exploration constant (values in [0, 1]), one "
         "state per iteration, the most visited answer played", only=("ismcts",)),
    Knob("depth", "count", _search(1, 1),
         "ismcts: 1: statistics at the decision only; above 1: a tree of this seat's own "
         "later decisions, keyed by what it observes there, this many levels deep "
         "(the root counted), UCB at every node; needs c above 0", only=("ismcts",),
         high=DEPTH_MAX),
    Knob("rollout", "choice", _search("greedy", "greedy"),
         "the policy every seat plays in a rollout (a built-in policy with its default knobs, "
         "or net: the network of weights, docs/net.md); also this seat's answer where "
         "nothing can be searched", values=ROLLOUTS, codes=(0, 1, 2, NET_ID)),
    Knob("others", "choice", _search("same", "same"),
         "what the other seats play in a rollout: same (the rollout policy) or a policy of "
         "its own (net: the network of weights)", values=OTHERS, codes=(-1, 0, 1, 2, NET_ID)),
    Knob("leaf", "limit", _search(OFF, OFF),
         "off: rollouts play to their end (value); k: a rollout stops at this seat's first "
         "turn k or more turns after the decision and is worth the network's value there "
         "(its estimate of winning the game; needs value=game or table)"),
    Knob("mix", "prob", _search(1.0, 1.0),
         "with leaf: 1: the rollout stops at the leaf, worth the network's value there; w "
         "below 1: the rollout plays on to its end and is worth w times the network's value "
         "at the leaf plus (1 - w) times its own (a mixed leaf evaluation)"),
    Knob("infer", "real", _search(0.0, 0.0),
         "0: every sampled state counts alike; T > 0: each is weighted by how likely the "
         "opponents' answers seen this round were under the network at temperature T "
         "(policy-based inference)"),
    Knob("voids", "prob", _search(1.0, 1.0),
         "1: the opponents' draws are not read; w below 1: a sampled state is kept with "
         "probability w for each draw of the round it contradicts (the hand it gives the "
         "drawer then held a card it could have played), else dealt again (0: never kept)"),
    Knob("colors", "prob", _search(1.0, 1.0),
         "1: the colors the opponents named are not read; w below 1: a sampled state is kept "
         "with probability w for each color named this round that the namer then held fewer "
         "cards of than of another color, else dealt again"),
    Knob("bluffs", "prob", _search(1.0, 1.0),
         "1: the opponents' Wild Draw Fours (UNO Flip: restricted cards) are taken as they "
         "come; w below 1: a sampled state is kept with probability w for each one played "
         "unchallenged this round that it makes a bluff (the hand it gives the player then "
         "held a card of the active color, C7), else dealt again (0: opponents never bluff)"),
    Knob("resample", "flag", _search(0, 0),
         "0: infer weighs the sampled states; 1: infer deals them again instead, a state "
         "kept with probability its likelihood over the highest any state could have (any c)"),
    Knob("value", "choice", _search("table", "table"),
         "what a rollout is worth: game (played to the end of the game, 1 won), round "
         "(1 for winning the round) or table (played to the end of the round, then the "
         "chance of winning the game from the scores, by a table the engine computes; "
         "under elimination or lowest scoring: game)", values=VALUES),
    Knob("anchor", "choice", _search("rollout", "rollout"),
         "the answer the search keeps unless another leads it by z paired standard errors "
         "(pimc, ismcts with c=0), and plays where nothing can be searched: the rollout "
         "policy's (rollout) or another policy's (net: the network of weights)",
         values=ANCHORS, codes=(-1, 0, 1, 2, NET_ID)),
    Knob("z", "real", _search(1.645, 1.645),
         "how many paired standard errors another answer must lead the anchor's by to be "
         "played instead (pimc, ismcts with c=0; 0: the best mean)"),
    Knob("rollout_challenge", "prob", _search("rollout", "rollout"),
         "how every seat of a rollout answers a Wild Draw Four played on it (UNO Flip: a "
         "restricted card): rollout, as the rollout policy's own knobs say (greedy never "
         "challenges); p, challenge with probability p (a model of challenging opponents)",
         values=("rollout",),
         encode=_rollout_challenge_fields),
    Knob("cheat", "flag", _search(0, 0),
         "1: search the true state (every hand and the draw pile) instead of sampled "
         "ones: an upper bound, not a fair player"),
)
SEARCH_KNOB = {k.name: k for k in SEARCH_KNOBS}


def _netted(net, pimc, ismcts) -> dict:
    return dict(zip(NET_NAMES + SEARCH_NAMES, (net, pimc, ismcts)))


# The network's knobs (docs/net.md): the network player's, and a search player's whose
# rollouts, leaves or inference read a network.
NET_KNOBS = (
    Knob("weights", "file", _netted("", "", ""),
         "the weight file (docs/net.md); default: the weights shipped for the game's "
         "variant and player count"),
    Knob("explore", "prob", _netted(0.0, 0.0, 0.0),
         "probability of a uniformly random legal answer instead of the network's"),
)
NET_KNOB = {k.name: k for k in NET_KNOBS}


def check_knobs(knobs, policy_fields) -> tuple:
    """The knob table, checked against uno_policy's fields (engine.POLICY_FIELDS):
    every field but `id` filled by exactly one knob; ValueError otherwise."""
    filled = [f for k in knobs for f in k.fields]
    twice = sorted({f for f in filled if filled.count(f) > 1})
    missing = [f for f in policy_fields if f != "id" and f not in filled]
    unknown = [f for f in filled if f not in policy_fields or f == "id"]
    names = [k.name for k in knobs]
    if twice or missing or unknown or len(set(names)) != len(names):
        raise ValueError(f"the knob table disagrees with uno_policy: fields filled twice "
                         f"{twice}, by no knob {missing}, unknown {unknown}; knob names {names}")
    for k in knobs:
        for name, value in k.defaults.items():
            if set(k.c_fields(value)) != set(k.fields):
                raise ValueError(f"knob {k.name}: its {name} default does not fill {k.fields}")
    return tuple(knobs)


# name -> (policy id in both engines, {knob: default}), from the knob table
POLICIES = {name: (i, {k.name: k.defaults[name] for k in KNOBS})
            for i, name in enumerate(POLICY_NAMES)}

# name -> (policy id, {knob: default}) of the search players
SEARCH_POLICIES = {name: (SEARCH_IDS[name], {k.name: k.defaults[name] for k in SEARCH_KNOBS
                                             if name in k.only})
                   for name in SEARCH_NAMES}

# name -> (policy id, {knob: default}) of the network player
NET_POLICIES = {name: (NET_ID, {k.name: k.defaults[name] for k in NET_KNOBS})
                for name in NET_NAMES}


def knob_table(name: str) -> dict:
    """{knob name: Knob} of the knobs policy `name` takes, in the order listed."""
    if name in POLICIES:
        return dict(KNOB)
    if name in NET_NAMES:
        return dict(NET_KNOB)
    return {**{k: v for k, v in SEARCH_KNOB.items() if name in v.only}, **NET_KNOB}


POLICY_HELP = {
    "random": "uniform over the playable cards and drawing; uniform color",
    "greedy": "sheds the highest-value playable card, keeps wilds until nothing else "
              "plays (WD4 before Wild), names the color it holds most of",
    "strategic": "scores every legal card from visible information only: stays in the colors "
                 "it holds, plays colors the next player failed to follow, hits the next "
                 "player with Skip/Draw Two/WD4 when it is close to going out, keeps wilds "
                 "for the end, dumps high values when anyone is at two cards or fewer; "
                 "challenges a WD4 by its estimated bluff probability",
    "pimc": "search: every decision with more than one legal answer is tried on sampled "
            "states of the hidden cards, each answer followed by rollouts of the rollout "
            "policy; the answer with the best mean value is played (C engine only)",
    "ismcts": "search: information-set Monte Carlo search at the decision's information "
              "set, a budget of iterations (rollouts by the rollout policy on sampled "
              "states) shared by the answers in turn on common states (c=0) or by UCB1 "
              "(c>0); with depth above 1, a tree of this seat's own later decisions "
              "(C engine only)",
    "net": "a learned network (docs/net.md): every decision with more than one legal answer "
           "is the legal action of highest logit on the seat's observation; the weights "
           "shipped for the variant and player count, or weights=FILE (C engine only)",
}


@dataclass(frozen=True)
class PolicySpec:
    name: str
    params: dict = field(default_factory=dict)

    @property
    def policy_id(self) -> int:
        """The engine number of the policy (its row of POLICIES, SEARCH_IDS or NET_ID)."""
        if self.is_net:
            return NET_ID
        return SEARCH_IDS[self.name] if self.is_search else POLICIES[self.name][0]

    @property
    def is_search(self) -> bool:
        """Whether this is a search player (pimc, ismcts): C engine only."""
        return self.name in SEARCH_NAMES

    @property
    def is_net(self) -> bool:
        """Whether this is the network player (net): C engine only."""
        return self.name in NET_NAMES

    @property
    def engine_only(self) -> bool:
        """Whether only the C engine plays it (the search players, the network player)."""
        return self.is_search or self.is_net

    def knob(self, key):
        """The value of knob `key`: the one given in the spec, else the policy's default."""
        table = (NET_KNOB if self.is_net else {**SEARCH_KNOB, **NET_KNOB} if self.is_search
                 else KNOB)
        return self.params.get(key, table[key].defaults[self.name])

    def knobs(self) -> dict:
        """Every knob with its value: {name: value}."""
        return {k: self.knob(k) for k in knob_table(self.name)}

    def reads_net(self) -> bool:
        """Whether the seat reads a network: the network player, or a search player whose
        rollouts, leaves or inference use one."""
        if self.is_net:
            return True
        if not self.is_search:
            return False
        return ("net" in (self.knob("rollout"), self.knob("others"), self.knob("anchor")) or
                self.knob("leaf") != OFF or self.knob("infer") > 0)

    def rollout_spec(self) -> "PolicySpec":
        """A search player's rollout policy (its answer where nothing can be searched)."""
        return PolicySpec(self.knob("rollout"))

    def c_knobs(self) -> dict:
        """The knobs as the reference policies read them, by uno_policy field
        (`Knob.engine_fields`): ANY as a number, challenge split into a probability and
        the auto / posterior flags, a choice as its word."""
        return {f: v for k in KNOBS for f, v in k.engine_fields(self.knob(k.name)).items()}

    def c_fields(self) -> dict:
        """uno_policy's fields but `id` (`Knob.c_fields`): as `c_knobs`, a choice as its
        index.  A search player: its own knobs and its rollout policy's; a built-in
        policy: the search knobs' fields at their pimc defaults (unread); the network
        player: the built-in knobs at greedy's defaults and the search knobs' at pimc's
        (unread), its own."""
        if self.is_search:
            rollout = self.rollout_spec()
            d = (PolicySpec("greedy") if rollout.is_net else rollout).c_fields()
            d.update({f: v for k in SEARCH_KNOBS
                      for f, v in k.c_fields(self.knob(k.name)).items()})
            d.update({f: v for k in NET_KNOBS for f, v in k.c_fields(self.knob(k.name)).items()})
            return d
        if self.is_net:
            d = PolicySpec("greedy").c_fields()
            d.update({f: v for k in NET_KNOBS for f, v in k.c_fields(self.knob(k.name)).items()})
            return d
        d = {f: v for k in SEARCH_KNOBS for f, v in k.c_fields(k.defaults["pimc"]).items()}
        d.update({f: v for k in NET_KNOBS for f, v in k.c_fields(k.defaults["net"]).items()})
        d.update({f: v for k in KNOBS for f, v in k.c_fields(self.knob(k.name)).items()})
        return d

    def __str__(self) -> str:
        if not self.params:
            return self.name
        inner = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}({inner})"


class UserPolicySpec:
    """A seat played by a user's Python policy (see uno_sim.players.user, docs/policies.md)."""

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
    if name not in POLICIES and name not in SEARCH_POLICIES and name not in NET_POLICIES:
        raise RulesError(f"unknown policy {name!r}: expected one of "
                         f"{', '.join(tuple(POLICIES) + SEARCH_NAMES + NET_NAMES)}")
    table = knob_table(name)
    params = {}
    for item in filter(None, (s.strip() for s in (inner or "").split(","))):
        key, sep, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if key in params:
            raise RulesError(f"invalid policy spec {spec!r}: {key} is given twice")
        if not sep or key not in table:
            raise RulesError(
                f"unknown parameter {key!r} for policy {name}: expected one of {', '.join(table)}"
            )
        params[key] = table[key].parse(text, name)
    spec_ = PolicySpec(name, params)
    if name == "ismcts" and spec_.knob("depth") > 1 and not spec_.knob("c") > 0:
        raise RulesError(f"invalid policy spec {spec!r}: depth {spec_.knob('depth')} needs c "
                         f"above 0 (UCB at every node of the tree)")
    if (name == "ismcts" and spec_.knob("infer") > 0 and spec_.knob("c") > 0
            and not spec_.knob("resample")):
        raise RulesError(f"invalid policy spec {spec!r}: infer weighs the paired states of "
                         f"c=0 (ismcts with c above 0 takes no weights; resample=1 deals "
                         f"the states again instead)")
    if name == "ismcts" and "z" in params and spec_.knob("c") > 0:
        raise RulesError(f"invalid policy spec {spec!r}: z is the rule of c=0 (ismcts with c "
                         f"above 0 plays its most visited answer)")
    if spec_.is_search and "mix" in params and spec_.knob("leaf") == OFF:
        raise RulesError(f"invalid policy spec {spec!r}: mix weighs the network's value at "
                         f"the leaf (it needs leaf=k)")
    if spec_.is_search and spec_.knob("leaf") != OFF and spec_.knob("value") == "round":
        raise RulesError(f"invalid policy spec {spec!r}: leaf needs value=game or table (the "
                         f"network values the game, not the round)")
    return spec_


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
