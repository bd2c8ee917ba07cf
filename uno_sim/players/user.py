"""User policies in Python: the observation, the legal actions, the checks.

A user policy is a callable ``policy(obs) -> action`` or an object with a
``decide(obs) -> action`` method (docs/policies.md).  It is called for every
decision of the seats it plays (docs/rules.md P2) with an `Observation` holding
exactly what P1 lets that player see, and must return one of
``obs.actions``.

Both engines go through `UserSeat.decide` with the same raw state, so they
build the same observation, ask the same question and apply the same answer:
the reference engine from its `Game`, the C engine from its ``uno_game``
through a callback (``uno_policy.decide``, set by uno_sim/_engine.pyx) -- the
built-in seats of the same game stay in C.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable, NamedTuple

import numpy as np

from ..cards import COLORS, SIDES
from ..rng import DK_USER
from ..rules import RulesError

# The decisions, in the order of enum uno_decision (csrc/uno.h).
DECISIONS = ("play", "replacement", "color", "challenge", "call_uno", "catch", "play_drawn",
             "target", "stack", "jump_in", "discard", "_reserved11")
DRAW = -1


class PolicyError(RulesError):
    """A user policy returned an action that is not one of the legal actions."""


class Action(NamedTuple):
    """A play-decision action: ``kind`` "play" (hand ``index``, ``card`` code) or "draw"."""

    kind: str
    index: int = DRAW
    card: str | None = None
    bluff: bool = False  # a restricted wild played while holding the active color (C7)


DRAW_ACTION = Action("draw")
YES_NO = (True, False)


@dataclass(frozen=True)
class Observation:
    """What seat `seat` sees when it must take `decision` (P1), and its legal `actions`.

    Card codes name the face in play (UNO Flip: the side `side`).  In UNO Flip
    (docs/rules.md F6) the other faces of the other players' hands and of the next
    card to be drawn face the table: `other_faces` and `next_draw` hold them.

    Decisions and their actions:

    ``play``         your turn: `Action` tuples, each playable card and DRAW_ACTION
                     (no DRAW_ACTION under forced_play while a legal card is held, C-H3)
    ``replacement``  vintage challenge lost: a legal card to play instead (`Action`)
    ``color``        the color to name: "R", "Y", "G", "B" (UNO Flip dark side: "P", "T",
                     "O", "V")
    ``challenge``    challenge the WD4 `offender` just played on you? True / False
    ``call_uno``     you are playing your second-to-last card: say UNO? True / False
    ``catch``        `forgetter` did not say UNO: catch it? True / False
    ``play_drawn``   play the card just drawn (`drawn`)? True / False
    ``target``       whom the targeted card `card` aims at: the seats of the active
                     opponents (teammates excluded), in play order
    ``discard``      a customizable wild makes you put cards down (house-2018 S3 seven /
                     three): `Action("discard", index, card)` for every card in hand;
                     asked once per card, `to_discard` cards still to go
    ``stack``        C-H1: a draw card was played on you and `pending` cards are due:
                     `Action` tuples, each draw card that may answer it, and DRAW_ACTION
                     (take the cards)
    ``jump_in``      C-H4: you hold a card identical to `card`, just played: play it out
                     of turn? True / False
    """

    seat: int
    decision: str
    actions: tuple
    hand: tuple  # own cards (codes), in hand order (Action.index indexes it)
    top: str  # the discard pile's top card
    color: str | None  # active color, None only before a starter Wild's color is named
    direction: int  # +1 clockwise, -1
    hand_sizes: tuple  # every seat's card count
    scores: tuple
    active: tuple  # seats still in the game (elimination scoring)
    round: int
    turn: int  # turns played in the game so far
    discards: tuple  # the discard pile, bottom first (every card in it was played face up)
    draw_pile: int  # cards left in the draw pile
    failed_colors: tuple  # per seat: colors it drew on this round and has not shown since
    revealed: tuple | None  # (seat, hand codes) that your last challenge this round showed you
    next_seat: int
    offender: int | None = None  # challenge: who played the WD4
    previous_color: str | None = None  # challenge: the active color before the WD4
    forgetter: int | None = None  # catch: who forgot to say UNO
    drawn: str | None = None  # play_drawn: the card just drawn (also in `hand`)
    to_discard: int | None = None  # discard: cards still to put down, this one included
    card: str | None = None  # target: the card that aims; jump_in: the card just played
    pending: int | None = None  # stack: the cards the stack makes you draw if you take it
    # UNO Flip only (None for a one-sided deck):
    side: str | None = None  # the side in play, "light" or "dark" (F1, F3)
    # F6: per seat, the other faces of its hand in hand order; None for your own seat
    # (you do not see the backs of your own cards) and for seats out of the game
    other_faces: tuple | None = None
    next_draw: str | None = None  # F6: the other face of the draw pile's top card
    # UNO Extreme only (None otherwise): presses in a row this round that fired nothing
    # although the launcher held cards (public: everyone sees the presses; E2)
    silent_presses: int | None = None
    _bounded: Callable | None = field(default=None, repr=False, compare=False)

    def randint(self, n: int) -> int:
        """Uniform integer in [0, n) from the game's seeded generator (reproducible)."""
        if self._bounded is None:
            raise RuntimeError("this observation is no longer live")
        # checked here, for both engines alike: the C one would truncate 2.5 to 2
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"invalid randint({n!r}): n must be an integer 1 <= n < 2**32")
        if not 1 <= n < 1 << 32:
            raise ValueError(f"invalid randint({n!r}): n must be an integer 1 <= n < 2**32")
        return int(self._bounded(int(n)))


@dataclass
class RawState:
    """The engine state a `UserSeat` reads (card ids); built by either engine."""

    round: int
    turn: int
    direction: int
    color: int
    hands: list  # every hand (only the decider's own cards reach the observation)
    discard: list
    n_draw: int
    scores: list
    active: list
    failed: list
    reveal_from: int  # for the decider, or -1
    reveal: list
    side: int = 0  # the side in play (UNO Flip)
    dark_kind: tuple | None = None  # this game's pairing: card id -> dark kind (Flip), else None
    draw_top: int = -1  # the draw pile's top card, -1 when it is empty
    silent: int = -1  # UNO Extreme (E2): the launcher's silent presses in a row, else -1
    # the legal actions of this decision, from the engine: the C engine's uno_legal_actions
    # or the reference engine's Game.legal_actions (2 * hand index + bluff for a card,
    # DRAW for drawing, 4 * side + c for a color, the seats for a target)
    legal: tuple = ()


class UserSeat:
    """One seat played by a user policy; the same code serves both engines."""

    def __init__(self, spec, seat: int, deck):
        self.spec = spec
        self.policy = spec.policy
        self.seat = seat
        self.deck = deck
        self._tables = {}  # pairing (RawState.dark_kind) -> per-side card tables
        method = getattr(self.policy, "decide", None)
        self.call = method if callable(method) else self.policy

    def _side_tables(self, dark_kind) -> list:
        """Per side: card id -> code of that face, for this pairing."""
        t = self._tables.get(dark_kind)
        if t is None:
            kinds, n = self.deck.kinds, self.deck.size
            t = [[kinds[ck[c]].code for c in range(n)]
                 for ck in (self.deck.card_kind,) + ((dark_kind,) if dark_kind is not None else ())]
            if len(self._tables) >= 16:
                self._tables.clear()
            self._tables[dark_kind] = t
        return t

    def _next(self, raw: RawState) -> int:
        n = len(raw.hands)
        p = self.seat
        while True:
            p = (p + raw.direction) % n
            if raw.active[p]:
                return p

    def decide(self, raw: RawState, decision: int, arg: int, bounded=None) -> int:
        """The user policy's answer to `decision` (argument `arg`) in `raw`, engine-coded."""
        p = self.seat
        name = DECISIONS[decision]
        hand = raw.hands[p]
        tables = self._side_tables(raw.dark_kind)
        code = tables[raw.side]
        top = raw.discard[-1]
        extra = {}
        if name in ("play", "replacement", "stack"):
            actions = [DRAW_ACTION if x == DRAW else
                       Action("play", x >> 1, code[hand[x >> 1]], bool(x & 1))
                       for x in raw.legal]
            if name == "stack":
                extra = {"pending": arg}
        elif name == "color":
            actions = [COLORS[x] for x in raw.legal]
        elif name == "discard":  # S3: any card of the hand
            actions = [Action("discard", x >> 1, code[hand[x >> 1]]) for x in raw.legal]
            extra = {"to_discard": arg}
        elif name == "target":  # P2: the opponents a targeted card may aim at
            actions = list(raw.legal)
            extra = {"card": code[arg]}
        elif name == "jump_in":
            actions = list(YES_NO)
            extra = {"card": code[arg]}
        else:
            actions = list(YES_NO)
            if name == "challenge":
                prev = (arg >> 8) - 1
                extra = {"offender": arg & 0xFF,
                         "previous_color": COLORS[prev] if prev >= 0 else None}
            elif name == "catch":
                extra = {"forgetter": arg}
            elif name == "play_drawn":
                extra = {"drawn": code[arg >> 1]}  # bit 0: a bluff; the card drawn above it
        failed = tuple("".join(COLORS[c] for c in range(len(COLORS)) if (f >> c) & 1)
                       for f in raw.failed)
        if len(tables) == 2:  # F6: what faces the table
            other = tables[raw.side ^ 1]
            extra["side"] = SIDES[raw.side]
            extra["other_faces"] = tuple(
                None if q == p or not raw.active[q] else tuple(other[c] for c in raw.hands[q])
                for q in range(len(raw.hands)))
            extra["next_draw"] = other[raw.draw_top] if raw.draw_top >= 0 else None
        if raw.silent >= 0:
            extra["silent_presses"] = raw.silent
        live = _Live(bounded) if bounded is not None else None
        revealed = None
        if raw.reveal_from >= 0:
            revealed = (raw.reveal_from, tuple(code[c] for c in raw.reveal))
        obs = Observation(
            seat=p, decision=name, actions=tuple(actions), hand=tuple(code[c] for c in hand),
            top=code[top], color=COLORS[raw.color] if raw.color >= 0 else None,
            direction=raw.direction, hand_sizes=tuple(len(h) for h in raw.hands),
            scores=tuple(raw.scores), active=tuple(bool(a) for a in raw.active),
            round=raw.round, turn=raw.turn, discards=tuple(code[c] for c in raw.discard),
            draw_pile=raw.n_draw, failed_colors=failed, revealed=revealed,
            next_seat=self._next(raw), _bounded=live, **extra)
        legal = obs.actions  # kept here: the policy may rewrite its observation
        try:
            action = self.call(obs)
        finally:
            live.fn = None  # a policy that kept obs.randint cannot draw after its decision
            object.__setattr__(obs, "_bounded", None)
        return self.encode(name, legal, action, raw.round, raw.turn)

    def encode(self, decision: str, legal: tuple, action, round_: int, turn: int) -> int:
        """The engine's int for the legal action equal to `action`; PolicyError for anything
        else.  The int comes from the engine's own `legal` entry, never from `action` (whose
        type's ``__eq__`` or ``__index__`` the policy may have written)."""
        match = next((a for a in legal if _same(action, a)), None)
        if match is None:
            shown = ", ".join(_short_repr(a) for a in legal[:12])
            more = ", ..." if len(legal) > 12 else ""
            raise PolicyError(
                f"illegal action {_short_repr(action)} from user policy {self.spec} at seat "
                f"{self.seat}, round {round_}, turn {turn} (decision {decision}): expected one "
                f"of {shown}{more}")
        if decision in ("play", "replacement", "stack", "discard"):
            return match.index
        if decision == "color":
            return COLORS.index(match)
        if decision == "target":
            return match
        if decision == "call_uno":
            return 0 if match else 1  # the engine asks "forgets?"
        return 1 if match else 0


class _Live:
    """obs.randint's source for one decision: the game's generator until revoked."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, n):
        if self.fn is None:
            raise RuntimeError("this observation is no longer live")
        return self.fn(n)


def _same(x, a) -> bool:
    """x is the legal action a: the same built-in types all through, equal values."""
    if type(x) is not type(a):
        return False
    if type(a) is Action:
        return len(x) == len(a) and all(type(u) is type(v) and u == v for u, v in zip(x, a))
    return x == a


def _short_repr(x, limit: int = 80) -> str:
    """repr(x) cut to `limit` characters; a failing __repr__ is named, not raised."""
    try:
        text = repr(x)
    except Exception:
        text = f"<{type(x).__name__} object>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


class _Isolated:
    """A UserSeat whose policy runs in a thread of its own.

    A policy's calling frames would otherwise lead to the reference engine's
    `Game` (its generator, the draw pile) and its `obs.randint` to the generator
    itself; in the C engine they lead to no engine state.  Here the policy's frames
    end at this thread's loop, and `obs.randint` is a request the engine's thread
    answers: the policy reaches what it reaches in the C engine (its RawState copy).
    """

    def __init__(self, user: UserSeat):
        import queue
        import threading
        import weakref

        self.requests, self.replies, self.draws = (queue.SimpleQueue() for _ in range(3))
        threading.Thread(target=_serve, args=(user, self.requests, self.replies, self.draws),
                         name=f"uno-sim user seat {user.seat}", daemon=True).start()
        weakref.finalize(self, self.requests.put, None)  # ends the thread with the seat

    def decide(self, raw: RawState, decision: int, arg: int, bounded) -> int:
        self.requests.put((raw, decision, arg))
        while True:
            kind, value = self.replies.get()
            if kind == "draw":  # obs.randint(value), drawn here from the game's generator
                try:
                    self.draws.put(bounded(value))
                except BaseException as exc:  # noqa: BLE001  (handed to the policy's thread)
                    self.draws.put(exc)
            elif kind == "done":
                return value
            else:
                raise value


def _serve(user: UserSeat, requests, replies, draws) -> None:
    while True:
        job = requests.get()
        if job is None:
            return
        raw, decision, arg = job

        def draw(n):
            replies.put(("draw", n))
            r = draws.get()
            if isinstance(r, BaseException):
                raise r
            return r

        try:
            replies.put(("done", user.decide(raw, decision, arg, draw)))
        except BaseException as exc:  # noqa: BLE001  (re-raised in the engine's thread)
            replies.put(("error", exc))
        del job, raw, draw


class ReferenceUserSeat:
    """The reference engine's side: `reference.Game` -> RawState -> UserSeat."""

    def __init__(self, spec, seat: int):
        self.spec = spec
        self.seat = seat
        self.user = None

    def _ask(self, g, decision: str, arg: int = 0) -> int:
        if self.user is None:
            self.user = _Isolated(UserSeat(self.spec, self.seat, g.deck))
        p = self.seat
        rev = g.revealed[p]
        two = len(g.side_kinds) == 2
        raw = RawState(round=g.rounds, turn=g.turns, direction=g.direction, color=g.color,
                       hands=[list(h) for h in g.hands], discard=list(g.discard),
                       n_draw=len(g.draw_pile), scores=list(g.scores), active=list(g.active),
                       failed=list(g.failed), reveal_from=rev[0] if rev else -1,
                       reveal=list(rev[1]) if rev else [],
                       side=g.side, dark_kind=tuple(g.side_kinds[1]) if two else None,
                       draw_top=g.draw_pile[-1] if g.draw_pile else -1,
                       silent=g.silent if g.launcher else -1,
                       legal=tuple(g.legal_actions(p, decision)))
        return self.user.decide(raw, DECISIONS.index(decision), arg,
                                partial(g.dec.bounded, p, DK_USER))

    def choose_play(self, g, p) -> int:
        """The play decision (a hand index or draw), asked of the user policy."""
        return self._ask(g, "play")

    def choose_replacement(self, g, p) -> int:
        """The legal card after a failed challenge, asked of the user policy."""
        return self._ask(g, "replacement")

    def choose_color(self, g, p) -> int:
        """The color to name, asked of the user policy."""
        return self._ask(g, "color")

    def wants_challenge(self, g, p, offender, prev_color) -> bool:
        """Whether to challenge the Wild Draw of `offender`, asked of the user policy."""
        return bool(self._ask(g, "challenge", offender | (prev_color + 1) << 8))

    def forgets_uno(self, g, p) -> bool:
        """Whether the seat forgets to say UNO, asked of the user policy."""
        return bool(self._ask(g, "call_uno"))

    def catches(self, g, p, forgetter) -> bool:
        """Whether to catch `forgetter`, asked of the user policy."""
        return bool(self._ask(g, "catch", forgetter))

    def plays_drawn(self, g, p, bluff: bool) -> bool:
        """Whether to play the card just drawn, asked of the user policy."""
        return bool(self._ask(g, "play_drawn", int(bluff) | g.last_drawn << 1))

    def choose_target(self, g, p, card) -> int:
        """Whom `card` aims at, asked of the user policy."""
        return self._ask(g, "target", card)

    def choose_discard(self, g, p, need) -> int:
        """The card to put down (`need` to go), asked of the user policy."""
        return self._ask(g, "discard", need)
    def choose_stack(self, g, p, total) -> int:
        """Stack on the `total` cards pending or take them, asked of the user policy."""
        return self._ask(g, "stack", total)

    def wants_jump(self, g, p, card) -> bool:
        """Whether to jump in with `card`, asked of the user policy."""
        return bool(self._ask(g, "jump_in", card))
