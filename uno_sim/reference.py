"""The reference engine: the rules of RULES.md as plain Python.

This module is the executable specification.  The C engine (`csrc/`) must play
the very same game from the same seed, event for event: every random number is
drawn from `uno_sim.rng.Rng` in the order written here, every tie is broken as
written here, and both engines share the deck tables of `uno_sim.cards`.

Conventions shared with the C engine
------------------------------------
* Piles are lists whose *last* element is the top card.  Hands are lists kept
  in *hand order*: the card priority order of the side in play (docs/policies.md
  "Card priority": higher value first, then lower kind id, then lower card id;
  ``Game.ranks``).  A card that joins a hand takes its place in that order, a
  card that leaves it leaves the others in order, and a Flip re-sorts every hand
  by the new side.  "The first card in hand order" is therefore the first by
  card priority: every tie of the policies is broken by card priority, never by
  the order in which the cards arrived.
* Two kinds of random stream, both derived from the game's seed state.  The
  table's cards (dealer draw, the shuffle of each round, starter cards put
  back, reshuffles) come from ``deal``, a stream rebuilt at each round from
  the round number (``uno_sim.rng.deal_state``), so a (seed, game) deals every
  round the same whatever the policies do.  Each policy decision draws from
  the stream of its (round, seat, kind of decision) (``uno_sim.rng.
  DecisionStreams``, the ``DK_*`` kinds below), so a knob that draws one more
  number moves no other decision: true common random numbers.
* ``Rng.bernoulli(p)`` consumes nothing for p <= 0 or p >= 1, and ``pick(n)``
  consumes nothing for n == 1, so knobs at their extremes are free.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import (COLORS, CUSTOM_RULES, NO_COLOR, SIDES, DrawReason, Effect, Starter,
                    deck_for)
from .policies import PolicySpec, seat_policies
from .rng import (DK_BLUFF, DK_CATCH, DK_CHALLENGE, DK_COLOR, DK_JUMP, DK_PICK, DK_PLAY_DRAWN,
                  DK_STACK, DK_TARGET, DK_UNO, DK_VOLUNTARY, DecisionStreams, Rng, SeatStreams,
                  deal_state, key_from_seed)
from .rules import STACKING, Rules, RulesError

DRAW = -1  # the "draw a card" action of choose_play
# C5 / H2 / S2 / S3: the first player names the color; the card has no other effect
STARTER_WILDS = (Effect.WILD, Effect.WILD_FEWEST_DRAW, Effect.WILD_EXCHANGE, Effect.WILD_CUSTOM)
NO_STACK = -2  # Game.try_stack: the victim takes the cards


class Stalemate(Exception):
    pass


def weighted(rng: Rng, w) -> int:
    """Index i with probability w[i] / sum(w): one bounded draw (E2; engine.c weighted)."""
    r = rng.bounded(sum(w))
    for i, x in enumerate(w):
        if r < x:
            return i
        r -= x
    raise AssertionError("unreachable")
STACK_FAMILY = {Effect.DRAW: 1, Effect.WILD_DRAW: 2}  # C-H1: the bits of Rules.stacking


# ---------------------------------------------------------------------------
# Built-in policies (P2).  Each decision is a method; the C twins are in
# csrc/policy.c and must consume random numbers identically.
# ---------------------------------------------------------------------------


def target_candidates(g: "Game", p: int) -> list[int]:
    """The seats a targeted card of p may aim at: active opponents in play order from p."""
    out, q = [], p
    for _ in range(g.active_count() - 1):
        q = g.adv(q, 1)
        if not g.teammates(p, q):
            out.append(q)
    return out


class BuiltinPolicy:
    def __init__(self, spec: PolicySpec, rand: SeatStreams):
        self.spec = spec
        self.rand = rand  # this seat's decision streams
        k = spec.c_knobs()
        self.bluff = k["bluff"]
        self.challenge_p = k["challenge"]
        self.forget_p = k["forget_uno"]
        self.catch_p = k["catch"]
        self.play_drawn_p = k["play_drawn"]
        self.voluntary_p = k["voluntary_draw"]
        self.color_rule = k["color"]
        self.challenge_auto = k["challenge_auto"]
        self.challenge_posterior = k["challenge_posterior"]
        self.challenge_prior = k["challenge_prior"]
        self.challenge_threshold = k["challenge_threshold"]
        self.target_rule = k["target"]
        self.stack_p = k["stack"]
        self.jump_p = k["jump_in"]
        self.bluff_next, self.bluff_own = k["bluff_next"], k["bluff_own"]
        self.challenge_offender, self.challenge_own = k["challenge_offender"], k["challenge_own"]
        self.suspect = k["suspect"]

    def pick(self, n: int, kind: int = DK_PICK) -> int:
        return 0 if n == 1 else self.rand.bounded(kind, n)

    def tries_bluff(self, g: "Game", p: int) -> bool:
        """The bluff knob with its state conditions (policy.c tries_bluff).

        Asked only when p holds a card that would be a bluff; nothing is drawn
        unless the next player holds <= bluff_next cards and p <= bluff_own.
        """
        if len(g.hands[g.adv(p, 1)]) > self.bluff_next or len(g.hands[p]) > self.bluff_own:
            return False
        return self.rand.bernoulli(DK_BLUFF, self.bluff)

    def choose_color(self, g: "Game", p: int) -> int:
        """One of the four colors of the side in play (colors 4*side .. 4*side+3)."""
        base = 4 * g.side
        if self.color_rule == "random":
            return base + self.rand.bounded(DK_COLOR, 4)
        counts = color_counts(g, p)
        if self.color_rule == "smart":
            # held, already played (fewer left for the others), failed by the next player;
            # all of the side in play
            played = [0, 0, 0, 0]
            for c in g.discard:
                col = g.kind(c).color
                if col != NO_COLOR:
                    played[col - base] += 1
            nx = g.adv(p, 1)
            fail_nx = g.failed[nx]
            close = 25 if len(g.hands[nx]) <= 2 else 6
            counts = [10 * counts[c] + played[c] // 4
                      + (close if (fail_nx >> (base + c)) & 1 else 0)
                      for c in range(4)]
        best = 0
        for col in range(1, 4):
            if counts[col] > counts[best]:
                best = col
        return base + best

    def wants_challenge(self, g, p, offender, prev_color) -> bool:
        """C12: only a card of the suspect, in the chosen states; then auto, posterior or p.

        posterior: P(bluff | played) = q b / (q b + (1 - q)), q the estimate that
        the offender could bluff (bluff_probability), b its assumed bluff rate
        (challenge_prior); one who could not bluff plays the card when it holds one.
        """
        if ((self.suspect >= 0 and offender != self.suspect)
                or len(g.hands[offender]) > self.challenge_offender
                or len(g.hands[p]) > self.challenge_own):
            return False
        if self.challenge_auto:
            return bluff_probability(g, p, offender, prev_color) > self.challenge_threshold
        if self.challenge_posterior:
            q = bluff_probability(g, p, offender, prev_color)
            num = q * self.challenge_prior
            den = num + (1.0 - q)
            return den > 0.0 and num / den > self.challenge_threshold
        return self.rand.bernoulli(DK_CHALLENGE, self.challenge_p)

    def forgets_uno(self, g, p) -> bool:
        return self.rand.bernoulli(DK_UNO, self.forget_p)

    def catches(self, g, p, forgetter) -> bool:
        return self.rand.bernoulli(DK_CATCH, self.catch_p)

    def bluff_choice(self, g: "Game", p: int):
        """The bluff knob (C7, C12): index of a restricted card to play illegally, or None."""
        if g.holds_bluff(p) and self.tries_bluff(g, p):
            for i, c in enumerate(g.hands[p]):
                if g.is_bluff(p, c):
                    return i
        return None

    def plays_drawn(self, g, p, bluff: bool) -> bool:
        if bluff:
            return self.tries_bluff(g, p)
        return self.rand.bernoulli(DK_PLAY_DRAWN, self.play_drawn_p)

    def choose_discard(self, g: "Game", p: int, need: int) -> int:
        """S3 seven / three: the hand index of a card to put down (`need` still to go).

        Every built-in policy: the highest value first, the first in hand order
        on ties; no random number.
        """
        best, best_value = 0, -1
        for i, c in enumerate(g.hands[p]):
            v = g.kind(c).value
            if v > best_value:
                best, best_value = i, v
        return best

    def choose_stack(self, g: "Game", p: int, total: int) -> int:
        """C-H1: the hand index of a draw card to stack on the pending `total`, or DRAW.

        Built-in policies never stack a bluff; no random number is drawn
        without a legal answer.
        """
        opts = [i for i, c in enumerate(g.hands[p]) if g.can_stack(c) and not g.is_bluff(p, c)]
        if not opts or not self.rand.bernoulli(DK_STACK, self.stack_p):
            return DRAW
        return self.stack_pick(g, p, opts)

    def stack_pick(self, g, p, opts) -> int:
        """The highest-value answer, first in hand order on ties."""
        best = opts[0]
        for i in opts[1:]:
            if g.kind(g.hands[p][i]).value > g.kind(g.hands[p][best]).value:
                best = i
        return best

    def wants_jump(self, g: "Game", p: int, card: int) -> bool:
        """C-H4: jump in with the card identical to `card` (the top of the discard pile)."""
        return self.rand.bernoulli(DK_JUMP, self.jump_p)

    def choose_target(self, g: "Game", p: int, card: int) -> int:
        """P2: the opponent a targeted card aims at (the target knob).

        Candidates are the active opponents (teammates excluded, C20) in play
        order from p; ties go to the first.  p itself when there is none.
        """
        cand = target_candidates(g, p)
        if not cand:
            return p
        rule = self.target_rule
        if rule == "random":
            return cand[self.pick(len(cand), DK_TARGET)]
        if rule == "next":
            return cand[0]
        best = cand[0]
        for q in cand[1:]:
            n, b = len(g.hands[q]), len(g.hands[best])
            if (n > b) if rule == "most" else (n < b):
                best = q
        return best


class RandomPolicy(BuiltinPolicy):
    def choose_play(self, g: "Game", p: int) -> int:
        hand = g.hands[p]
        bluff_ok = g.holds_bluff(p) and self.tries_bluff(g, p)
        options = [i for i, c in enumerate(hand)
                   if g.playable(c) and (bluff_ok or not g.is_bluff(p, c))]
        options.append(DRAW)
        return options[self.pick(len(options))]

    def choose_replacement(self, g, p) -> int:
        options = [i for i, c in enumerate(g.hands[p]) if g.playable(c) and not g.is_bluff(p, c)]
        return options[self.pick(len(options))]

    def stack_pick(self, g, p, opts) -> int:
        return opts[self.pick(len(opts))]


class GreedyPolicy(BuiltinPolicy):
    def choose_play(self, g: "Game", p: int) -> int:
        bluff = self.bluff_choice(g, p)
        if bluff is not None:
            return bluff
        best = self.best_colored(g, p)
        if best != DRAW and self.rand.bernoulli(DK_VOLUNTARY, self.voluntary_p):
            return DRAW
        if best != DRAW:
            return best
        return self.best_wild(g, p)

    def choose_replacement(self, g, p) -> int:
        best = self.best_colored(g, p)
        return best if best != DRAW else self.best_wild(g, p)

    @staticmethod
    def best_colored(g, p) -> int:
        """The highest-value playable colored card (first in hand order on ties)."""
        best, best_value = DRAW, -1
        for i, c in enumerate(g.hands[p]):
            k = g.kind(c)
            if k.color != NO_COLOR and g.matches(k) and k.value > best_value:
                best, best_value = i, k.value
        return best

    @staticmethod
    def best_wild(g, p) -> int:
        """A legal restricted wild first (it also hurts the next player), else a Wild."""
        wild = DRAW
        for i, c in enumerate(g.hands[p]):
            k = g.kind(c)
            if k.color == NO_COLOR:
                if k.restricted:
                    if not g.is_bluff(p, c):
                        return i
                elif wild == DRAW:
                    wild = i
        return wild


def color_counts(g, p) -> list:
    """p's cards per color of the side in play (counts[c] is color 4 * side + c)."""
    base = 4 * g.side
    counts = [0, 0, 0, 0]
    for c in g.hands[p]:
        col = g.kind(c).color
        if col != NO_COLOR:
            counts[col - base] += 1
    return counts


def other_side_wild(g, q) -> bool:
    """F6: whether the other faces of q's hand (public) hold a wild: q keeps one after a Flip."""
    return any(g.other_face(c).color == NO_COLOR for c in g.hands[q])


def bluff_probability(g, victim, offender, prev_color) -> float:
    """challenge=auto (C12): the victim's estimate that the offender held the previous color.

    The cards the victim cannot see are the deck less its own hand and the
    discard pile; the offender's hand is taken as a uniform draw from them
    (hypergeometric): P(bluff) = 1 - prod_{i<h} (U-K-i)/(U-i), U unseen cards,
    K of them of that color, h the offender's hand size.  policy.c evaluates
    the same expression in the same order.
    """
    if prev_color < 0:
        return 0.0
    color = [g.kind(c).color for c in range(g.deck.size)]
    unseen = g.deck.size - len(g.hands[victim]) - len(g.discard)
    k = (sum(1 for c in color if c == prev_color)
         - sum(1 for c in g.hands[victim] if color[c] == prev_color)
         - sum(1 for c in g.discard if color[c] == prev_color))
    q = 1.0
    for i in range(len(g.hands[offender])):
        if unseen - k - i <= 0 or unseen - i <= 0:
            q = 0.0
            break
        q = q * float(unseen - k - i) / float(unseen - i)
    return 1.0 - q


class StrategicPolicy(BuiltinPolicy):
    """The strongest built-in heuristic; integer scores on visible information only (P1).

    Mirrored in policy.c (strategic_*): every score is an int, ties go to the
    first card in hand order.
    """

    def choose_play(self, g: "Game", p: int) -> int:
        hand = g.hands[p]
        bluff = self.bluff_choice(g, p)
        if bluff is not None:
            return bluff
        best = self.best(g, p)
        if best != DRAW and g.kind(hand[best]).color != NO_COLOR \
                and self.rand.bernoulli(DK_VOLUNTARY, self.voluntary_p):
            return DRAW
        return best

    def choose_replacement(self, g, p) -> int:
        return self.best(g, p)

    def best(self, g, p) -> int:
        mine = color_counts(g, p)
        nx = g.adv(p, 1)
        g.direction = -g.direction
        pv = g.adv(p, 1)
        g.direction = -g.direction
        nx_n, pv_n = len(g.hands[nx]), len(g.hands[pv])
        low = min(len(g.hands[q]) for q in range(g.n) if q != p and g.active[q])
        fail_nx = g.failed[nx]
        best, best_score = DRAW, 0
        for i, c in enumerate(g.hands[p]):
            if not g.playable(c) or g.is_bluff(p, c):
                continue
            sc = self.score(g, p, c, mine, nx_n, pv_n, low, fail_nx)
            if best == DRAW or sc > best_score:
                best, best_score = i, sc
        return best

    @staticmethod
    def score(g, p, c, mine, nx_n, pv_n, low, fail_nx) -> int:
        k = g.kind(c)
        col, v, e = k.color, k.value, k.effect
        if col != NO_COLOR:
            s = 4 * (mine[col - 4 * g.side] - 1) + v  # stay in a color held; shed points
            if (fail_nx >> col) & 1:  # the next player could not follow this color
                s += 25
            if low <= 2:  # someone is about to go out: dump high values
                s += 2 * v
            if e in (Effect.SKIP, Effect.DRAW, Effect.HIT) or (
                    e == Effect.REVERSE and g.active_count() == 2):
                s += 80 if nx_n <= 2 else 10  # hit the next player, hardest when close
            elif e == Effect.DISCARD_ALL:  # E4: sheds the rest of its color too
                s += 4 * (mine[col - 4 * g.side] - 1)
            elif e == Effect.REVERSE:
                s += (40 if nx_n <= 2 else 0) - (40 if pv_n <= 2 else 0)
            elif e == Effect.SKIP_ALL:  # F4: every opponent loses a turn
                s += 80 if low <= 2 else 10
            elif e == Effect.FLIP and nx_n <= 2:  # F3/F6: flip a close next player's hand,
                s += -40 if other_side_wild(g, g.adv(p, 1)) else 40  # unless a wild is there
        else:
            hits = k.restricted or e == Effect.WILD_HIT  # E6: an Extreme Hit hurts too
            s = (150 if nx_n <= 2 else -40) if hits else -80  # keep wilds for the end
            if nx_n <= 2:
                s += 30  # change the color on a player about to go out
            if len(g.hands[p]) <= 2:
                s += 200  # finish with it
            if low <= 2:
                s += v
        return s


POLICY_CLASSES = {"random": RandomPolicy, "greedy": GreedyPolicy, "strategic": StrategicPolicy}


def make_policy(spec, streams: DecisionStreams, seat: int):
    if spec.name == "user":
        from .userpolicy import ReferenceUserSeat
        return ReferenceUserSeat(spec, seat)
    return POLICY_CLASSES[spec.name](spec, SeatStreams(streams, seat))


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------

SEAT_COUNTERS = ("cards_drawn", "bluffs", "challenges", "challenges_won",
                 "uno_forgotten", "uno_caught", "rounds_won")


@dataclass
class GameResult:
    winner: int  # the winning seat; -1 for a shared win (lowest) or a team win
    winners: list  # every winning seat (the whole team for team play)
    team: int  # winning team (0/1) in team play, else -1
    scores: list
    team_scores: list
    rounds: int
    turns: int
    reshuffles: int
    stalemates: int
    seats: dict = field(default_factory=dict)  # counter name -> list per seat
    events: list | None = None

    def summary(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k != "events"}
        return d


FORCE_POINTS = 64  # decision points described per game (uno.h UNO_CF_MAX)


@dataclass
class ForcePoint:
    """One decision point met under a Force (uno.h uno_cf_point)."""

    round: int
    turn: int
    own: int  # cards held by the seat
    other: int  # bluff: the next player's cards; challenge: the offender's, after playing
    natural: int  # the policy's own answer
    truth: int = -1  # challenge: 1 when the card was a bluff
    q: float = -1.0  # challenge: the seat's estimate that the offender could bluff


@dataclass
class Force:
    """Counterfactual forcing (uno.h uno_force).

    ``kind`` "bluff": a turn where ``seat`` holds a restricted card that would be
    a bluff; "challenge": a restricted card played on ``seat``.  The
    ``index``-th decision point gets the answer ``value`` (1 bluff / challenge,
    0 the honest card / accept, -1 the policy's own); every point is counted and
    the first FORCE_POINTS described.
    """

    seat: int
    kind: str
    index: int = -1
    value: int = -1
    seen: int = 0
    hit_round: int = 0
    round_won: int = 0
    round_points: int = 0
    points: list = field(default_factory=list)


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


class Game:
    def __init__(self, rules: Rules, policies, rng: Rng, trace: bool = False, deck=None):
        self.rules = rules
        self.deck = deck or deck_for(rules)
        self.kinds = self.deck.kinds
        # Per side, physical card id -> kind id.  F1: the dark side of a Flip deck;
        # `card_kind` is always the side in play (`side`), which every query reads.
        self.side_kinds = [list(self.deck.side_kinds(s)) for s in range(self.deck.sides)]
        self.side = 0
        self.card_kind = self.side_kinds[0]
        self.set_ranks()
        self.n = rules.players
        self.seeded = rng.state  # every stream derives from it
        self.deal = rng.deal(0)  # the table's cards: dealer draw, shuffles
        self.dec = DecisionStreams(self.seeded)  # the policies' decisions
        self.force = None  # a Force: a decision point answered for a counterfactual
        specs = seat_policies(policies, self.n)
        self.specs = specs
        self.policies = [make_policy(s, self.dec, i) for i, s in enumerate(specs)]
        self.events = [] if trace else None
        self.scores = [0] * self.n
        self.team_scores = [0, 0]
        self.active = [True] * self.n
        self.counters = {name: [0] * self.n for name in SEAT_COUNTERS}
        self.rounds = self.turns = self.reshuffles = self.stalemates = 0
        self.direction = 1
        # E2: UNO Extreme's launcher replaces the draw pile (draw_pile holds its cards);
        # `silent` counts the presses in a row that fired nothing (the model law's state)
        self.launcher = rules.variant_spec.draw_source == "launcher"
        self.silent = 0
        self.pending = 0  # C-H1: cards passed on by the stack being answered
        self.last_player = self.last_card = -1  # the last card played, and by whom
        self.jump_open = False  # C-H4: the next turn first offers a jump-in
        # One dict per round scored: what engine.play_games(rounds=True) reports.
        self.round_rows = []

    # -- helpers ----------------------------------------------------------
    def set_ranks(self):
        """Card priority (docs/policies.md): per side, card -> its place in hand order.

        Kinds in order of higher value first, then lower kind id; the cards of one
        kind by card id.  Recomputed when a re-pairing changes the dark side (F1).
        """
        order = sorted(range(len(self.kinds)), key=lambda k: (-self.kinds[k].value, k))
        pos = [0] * len(self.kinds)
        for j, k in enumerate(order):
            pos[k] = j
        self.ranks = []
        for kinds in self.side_kinds:
            rank = [0] * len(kinds)
            for r, c in enumerate(sorted(range(len(kinds)), key=lambda c: (pos[kinds[c]], c))):
                rank[c] = r
            self.ranks.append(rank)

    def arrange(self, p: int):
        """Put p's hand back in hand order (card priority of the side in play)."""
        self.hands[p].sort(key=self.ranks[self.side].__getitem__)

    def kind(self, card):
        return self.kinds[self.card_kind[card]]

    def code(self, card) -> str:
        return self.kinds[self.card_kind[card]].code

    def codes(self, cards) -> list:
        return [self.code(c) for c in cards]

    def pair_codes(self, cards) -> list:
        """Codes of whole cards: `light/dark` for a two-faced deck (round_start)."""
        if len(self.side_kinds) == 1:
            return self.codes(cards)
        light, dark = self.side_kinds
        return [f"{self.kinds[light[c]].code}/{self.kinds[dark[c]].code}" for c in cards]

    # -- visible information (F6) ---------------------------------------------
    def other_face(self, card):
        """The kind on the face of `card` not in play (None for a one-sided deck).

        F6: public for the cards in the *other* players' hands and for the top
        of the draw pile; a policy must not ask it about its own hand.
        """
        if len(self.side_kinds) == 1:
            return None
        return self.kinds[self.side_kinds[self.side ^ 1][card]]

    def visible_other_faces(self, p) -> dict:
        """F6: seat -> the other faces of its hand, for every seat but p."""
        return {q: [self.other_face(c) for c in self.hands[q]]
                for q in range(self.n) if q != p and self.active[q]}

    def next_draw_other_face(self):
        """F6: the other face of the next card to be drawn (None if unknown or none)."""
        if not self.draw_pile:
            return None
        return self.other_face(self.draw_pile[-1])

    def emit(self, e: str, **fields):
        if self.events is not None:
            self.events.append({"e": e, **fields})

    def active_count(self) -> int:
        return sum(self.active)

    def adv(self, p: int, steps: int) -> int:
        """The seat `steps` active seats after p in the current direction."""
        for _ in range(steps):
            p = (p + self.direction) % self.n
            while not self.active[p]:
                p = (p + self.direction) % self.n
        return p

    def matches(self, k) -> bool:
        """C6 without the wild clause: same color as the active one, or same face."""
        return k.color == self.color or k.face == self.top_face

    def playable(self, card) -> bool:
        k = self.kind(card)
        return k.color == NO_COLOR or self.matches(k)

    def is_bluff(self, p, card) -> bool:
        """C7: a restricted card is illegal while p holds a card of the active color."""
        if not self.kind(card).restricted:
            return False
        return any(self.kind(c).color == self.color for c in self.hands[p])

    def holds_bluff(self, p) -> bool:
        return any(self.is_bluff(p, c) for c in self.hands[p])

    def has_legal_play(self, p) -> bool:
        return any(self.playable(c) and not self.is_bluff(p, c) for c in self.hands[p])

    def can_stack(self, card) -> bool:
        """C-H1: whether `card` may answer the draw card on top of the discard pile.

        Families: 1 colored draw cards (effect DRAW), 2 fixed-amount wild draw
        cards (WILD_DRAW); the `stacking` mode is a mask of them.  A card answers
        its own family, and under `both` a wild draw card also answers a colored
        one (never the reverse); it must be playable (C6).
        """
        mode = STACKING.index(self.rules.stacking)
        f = STACK_FAMILY.get(self.kind(card).effect, 0)
        top = STACK_FAMILY.get(self.kind(self.discard[-1]).effect, 0)
        return bool(mode & f and mode & top and f >= top and self.playable(card))

    def teammates(self, p, q) -> bool:
        return self.rules.teams and p % 2 == q % 2

    # -- piles --------------------------------------------------------------
    def reshuffle(self) -> bool:
        """C15: the discard pile but its top card becomes the new draw pile."""
        if len(self.discard) <= 1:
            return False
        top = self.discard.pop()
        pile, self.discard = self.discard, [top]
        self.deal.shuffle(pile)
        self.draw_pile = pile
        self.reshuffles += 1
        self.emit("reshuffle", cards=len(pile))
        return True

    def draw(self, p: int, k: int, reason: DrawReason) -> list:
        got = []
        for _ in range(k):
            if not self.draw_pile and not self.reshuffle():
                break
            got.append(self.draw_pile.pop())
        self.hands[p].extend(got)
        self.arrange(p)
        self.counters["cards_drawn"][p] += len(got)
        if reason not in (DrawReason.CANNOT_PLAY, DrawReason.VOLUNTARY):
            self.failed[p] = 0  # penalty cards: it may hold any color now
        self.emit("draw", p=p, cards=self.codes(got), reason=reason.name.lower())
        return got

    def launcher_law(self) -> int:
        """E2: how many cards this press fires, before capping at what the launcher holds.

        The table's randomness (the deal stream).  `model`: after launcher_max_silent
        silent presses in a row it fires; else it fires with probability
        launcher_fire / 1000; a firing press fires a burst of 1, 2, ... cards weighted by
        launcher_burst.  `dist`: i.i.d., 0, 1, 2, ... cards weighted by launcher_weights.
        """
        r = self.rules
        if r.launcher == "dist":
            return weighted(self.deal, r.launcher_weights)
        fire = r.launcher_fire
        if self.silent >= r.launcher_max_silent or fire >= 1000 or (
                fire > 0 and self.deal.bounded(1000) < fire):
            return 1 + weighted(self.deal, r.launcher_burst)
        return 0

    def press(self, by: int, to: int, reason: DrawReason) -> int | None:
        """E2, E3: `by` presses the launcher once, aimed at `to`, who takes what it fires.

        An empty launcher is first reloaded with the discards but the top card (E7).
        Returns the number of cards fired, or None when the launcher held nothing.
        """
        if not self.draw_pile:
            self.reshuffle()
        if not self.draw_pile:
            self.emit("press", p=to, by=by, cards=[], reason=reason.name.lower(), left=0)
            return None
        k = self.launcher_law()
        self.silent = 0 if k else self.silent + 1
        got = []
        for _ in range(min(k, len(self.draw_pile))):
            got.append(self.draw_pile.pop())
        self.hands[to].extend(got)
        self.arrange(to)
        self.counters["cards_drawn"][to] += len(got)
        if reason not in (DrawReason.CANNOT_PLAY, DrawReason.VOLUNTARY):
            self.failed[to] = 0  # penalty cards: it may hold any color now
        self.emit("press", p=to, by=by, cards=self.codes(got), reason=reason.name.lower(),
                  left=len(self.draw_pile))
        return len(got)

    def presses(self, by: int, to: int, n: int, reason: DrawReason):
        for _ in range(n):
            self.press(by, to, reason)

    def draw_until(self, p: int, reason: DrawReason) -> list:
        """F4 Wild Draw Color: draw until a card of the active color (a wild is not one).

        Stops early when neither the draw pile nor the discards can give a card.
        """
        got = []
        while self.draw_pile or self.reshuffle():
            card = self.draw_pile.pop()
            got.append(card)
            if self.kind(card).color == self.color:
                break
        self.hands[p].extend(got)
        self.arrange(p)
        self.counters["cards_drawn"][p] += len(got)
        self.failed[p] = 0  # penalty cards: it may hold any color now
        self.emit("draw_until", p=p, color=COLORS[self.color], cards=self.codes(got),
                  reason=reason.name.lower())
        return got

    def draw_until_playable(self, p: int) -> list:
        """C-H2: draw one card at a time until a playable one, or until nothing is left."""
        got = []
        while self.draw_pile or self.reshuffle():
            card = self.draw_pile.pop()
            got.append(card)
            if self.playable(card):
                break
        self.hands[p].extend(got)
        self.arrange(p)
        self.counters["cards_drawn"][p] += len(got)
        self.emit("draw", p=p, cards=self.codes(got), reason="until_playable")
        return got

    def penalty(self, p: int, k, reason: DrawReason, extra: int = 0):
        """What a draw card makes p draw (F4: until the color for Wild Draw Color), plus `extra`."""
        if k.effect == Effect.WILD_DRAW_COLOR:
            self.draw_until(p, reason)
            if extra:
                self.draw(p, extra, reason)
        else:
            self.draw(p, k.amount + extra, reason)

    def flip(self, p: int, out: bool):
        """F3: turn the discard pile, the draw pile and every hand over.

        The former bottom of the discard pile comes up on top and takes no
        effect; if it is a wild, p names the color (not when p went out).
        """
        self.side ^= 1
        self.card_kind = self.side_kinds[self.side]
        for q in range(self.n):  # every hand turns over: hand order of the new side
            self.arrange(q)
        self.discard.reverse()
        self.draw_pile.reverse()
        k = self.kind(self.discard[-1])
        self.top_face = k.face
        self.emit("flip", p=p, side=SIDES[self.side], top=k.code)
        if k.color != NO_COLOR:
            self.color = k.color
        elif out:
            self.color = NO_COLOR
        else:
            self.color = self.policies[p].choose_color(self, p)
            self.emit("color", p=p, color=COLORS[self.color])

    # -- a turn ---------------------------------------------------------------
    def take_turn(self, p: int):
        """Play p's turn; returns the next seat, or None when the round is over."""
        r = self.rules
        if self.jump_open:  # C-H4: a jump-in on the last card played takes this turn
            nxt = self.jump_turn()
            if nxt != NO_STACK:
                return nxt
        pol = self.policies[p]
        force = self.force
        if (force and force.kind == "bluff" and force.seat == p and self.holds_bluff(p)
                and self.specs[p].name != "user"):
            action = self.forced_play(p)
        else:
            action = pol.choose_play(self, p)
        if action == DRAW and r.forced_play and self.has_legal_play(p):
            action = pol.choose_replacement(self, p)  # C-H3: no voluntary draw
        if action != DRAW:
            self.idle = 0
            self.jump_open = r.jump_in
            return self.play(p, action)
        if self.color >= 0:  # public: p drew on this color
            self.failed[p] |= 1 << self.color
        forced = not self.has_legal_play(p)
        if self.launcher:  # E3: press once; what fires joins the hand; the turn passes
            got = self.press(p, p, DrawReason.CANNOT_PLAY if forced else DrawReason.VOLUNTARY)
            if got is None:  # nothing left to fire, nothing to reload
                self.idle += 1
                if self.idle >= self.active_count():
                    raise Stalemate
            else:
                self.idle = 0
            self.emit("pass", p=p)
            return self.adv(p, 1)
        if forced and r.draw_until_playable:  # C-H2
            got = self.draw_until_playable(p)
        else:
            got = self.draw(p, 1, DrawReason.CANNOT_PLAY if forced else DrawReason.VOLUNTARY)
        if got:
            self.idle = 0
            card = got[-1]
            if self.playable(card):
                bluff = self.is_bluff(p, card)
                if not bluff and ((forced and r.drawn_card == "must") or r.forced_play):
                    play_it = True
                else:
                    self.last_drawn = card  # a user policy's `drawn`
                    play_it = pol.plays_drawn(self, p, bluff)
                if play_it:
                    self.jump_open = r.jump_in
                    return self.play(p, self.hands[p].index(card))
        else:
            self.idle += 1
            if self.idle >= self.active_count():
                raise Stalemate
        self.emit("pass", p=p)
        return self.adv(p, 1)

    def jump_turn(self):
        """C-H4: a jump-in on the card just played, as a turn of the jumper; NO_STACK if none.

        Candidates are asked in play order from the player after the one who
        played it; the first who holds the identical card (same kind on the side
        in play, legal) and wants to jump plays it, and play goes on from there.
        None when the top of the discard pile is no longer the card played (a Flip).
        """
        self.jump_open = False
        top = self.discard[-1]
        if top != self.last_card:
            return NO_STACK
        kind = self.card_kind[top]
        q = self.last_player
        for _ in range(self.active_count() - 1):
            q = self.adv(q, 1)
            for i, c in enumerate(self.hands[q]):
                if self.card_kind[c] == kind and not self.is_bluff(q, c):
                    if self.policies[q].wants_jump(self, q, top):
                        self.idle = 0
                        self.emit("jump_in", p=q, card=self.code(top))
                        self.jump_open = True
                        return self.play(q, i)
                    break
        return NO_STACK

    def try_stack(self, victim: int, k, pend: int):
        """C-H1: the victim may answer with a draw card; returns the next seat, or NO_STACK."""
        total = pend + k.amount
        if not any(self.can_stack(c) for c in self.hands[victim]):
            return NO_STACK
        i = self.policies[victim].choose_stack(self, victim, total)
        if i == DRAW:
            return NO_STACK
        self.emit("stack", p=victim, total=total)
        self.turns += 1  # the answer is the victim's turn
        self.pending = total
        return self.play(victim, i)

    def seven_o(self, p: int, card: int, face: int):
        """C-H5: a 7 swaps p's hand with a target's; a 0 passes every hand on."""
        if face == 7:
            t = self.policies[p].choose_target(self, p, card)
            if t != p:  # the public failed colors follow the cards
                self.hands[p], self.hands[t] = self.hands[t], self.hands[p]
                self.failed[p], self.failed[t] = self.failed[t], self.failed[p]
                self.emit("swap", p=p, target=t)
            return
        new, failed = list(self.hands), list(self.failed)
        for s in range(self.n):
            if self.active[s]:
                new[self.adv(s, 1)] = self.hands[s]
                failed[self.adv(s, 1)] = self.failed[s]
        self.hands[:] = new
        self.failed[:] = failed
        self.emit("rotate", p=p, dir=self.direction)

    def play(self, p: int, i: int):
        hand = self.hands[p]
        card = hand[i]
        self.last_player, self.last_card = p, card
        del hand[i]  # the others keep hand order
        k = self.kind(card)
        bluff = k.restricted and any(self.kind(c).color == self.color for c in hand)
        prev = (self.color, self.top_face)
        also = None
        if self.launcher and k.effect == Effect.DISCARD_ALL:  # E4: the rest of its color goes down first
            also = [c for c in hand if self.kind(c).color == k.color]
            hand[:] = [c for c in hand if self.kind(c).color != k.color]
            self.discard.extend(also)
        self.discard.append(card)
        self.top_face = k.face
        fields = {}
        if k.color == NO_COLOR:
            self.color = self.policies[p].choose_color(self, p)
            fields["color"] = COLORS[self.color]
        else:
            self.color = k.color
            self.failed[p] &= ~(1 << k.color)
        if k.restricted:
            fields["legal"] = not bluff
            self.counters["bluffs"][p] += bluff
        self.emit("play", p=p, card=k.code, **fields)
        if also is not None:
            self.emit("discard_all", p=p, cards=self.codes(also))
        if len(hand) == 1 and k.effect != Effect.WILD_EXCHANGE and not (  # S2: no UNO call
                self.rules.seven_o and k.effect == Effect.NUMBER and k.face in (0, 7)):  # C-H5
            self.uno_check(p)
        return self.resolve(p, card, k, bluff, prev)

    def uno_check(self, p: int):
        """C13: p may forget UNO; opponents, in turn order from p's next, may catch it."""
        forgot = self.policies[p].forgets_uno(self, p)
        self.emit("uno", p=p, called=not forgot)
        if not forgot:
            return
        self.counters["uno_forgotten"][p] += 1
        q = p
        for _ in range(self.active_count() - 1):
            q = self.adv(q, 1)
            if self.teammates(p, q):
                continue
            if self.policies[q].catches(self, q, p):
                self.counters["uno_caught"][p] += 1
                self.emit("caught", p=p, by=q)
                if self.launcher:  # E7: press twice instead of drawing 2
                    self.presses(p, p, 2, DrawReason.UNO_PENALTY)
                else:
                    self.draw(p, 2, DrawReason.UNO_PENALTY)
                return

    def skip(self, victim: int):
        self.emit("skip", p=victim)

    def resolve(self, p, card, k, bluff, prev):
        """The effect dispatcher of C9-C12 (and C11 at two players, C14 on a last card)."""
        out = not self.hands[p]
        e = k.effect
        if e in (Effect.WILD, Effect.DISCARD_ALL):
            return None if out else self.adv(p, 1)
        if e == Effect.HIT:  # E5: the next player presses twice and loses the turn
            victim = self.adv(p, 1)
            self.presses(victim, victim, k.amount, k.reason)
            if out:
                return None
            self.skip(victim)
            return self.adv(p, 2)
        if e == Effect.WILD_HIT:  # E6: aim at a player; the attacker presses twice at it
            target = self.policies[p].choose_target(self, p, card)
            self.emit("aim", p=p, target=target)
            self.presses(target, target, self.rules.hit_target_presses, k.reason)
            self.presses(p, target, k.amount, k.reason)
            return None if out else self.adv(p, 1)
        if e == Effect.NUMBER:
            if out:
                return None
            if self.rules.seven_o and k.face in (0, 7):
                self.seven_o(p, card, k.face)
            return self.adv(p, 1)
        if e == Effect.SKIP:
            if out:
                return None
            self.skip(self.adv(p, 1))
            return self.adv(p, 2)
        if e == Effect.SKIP_ALL:  # F4: everyone else loses a turn
            if out:
                return None
            q = p
            for _ in range(self.active_count() - 1):
                q = self.adv(q, 1)
                self.skip(q)
            return p
        if e == Effect.FLIP:  # F3 (also on a last card: the hands left are scored flipped)
            self.flip(p, out)
            return None if out else self.adv(p, 1)
        if e == Effect.REVERSE:
            if out:
                return None
            self.direction = -self.direction
            self.emit("reverse", p=p, dir=self.direction)
            if self.active_count() == 2:
                self.skip(self.adv(p, 1))
                return self.adv(p, 2)
            return self.adv(p, 1)
        if e == Effect.WILD_FEWEST_DRAW:
            self.fewest_draw(p, k, out)
            return None if out else self.adv(p, 1)
        if e == Effect.WILD_EXCHANGE:
            if out:  # the round is over: nothing to exchange
                return None
            if self.rules.exchange == "swap":
                self.swap_hands(p, card)
            else:
                self.shuffle_hands(p)
            return self.adv(p, 1)
        if e == Effect.WILD_CUSTOM:
            return self.custom(p, k, out)
        victim = self.adv(p, 1)
        pend, self.pending = self.pending, 0
        if not out and e in STACK_FAMILY and self.rules.stacking != "none":
            nxt = self.try_stack(victim, k, pend)
            if nxt != NO_STACK:
                return nxt
        reason = DrawReason.STACK if pend else k.reason
        if e == Effect.DRAW:
            self.draw(victim, k.amount + pend, reason)
            if out:
                return None
            self.skip(victim)
            return self.adv(p, 2)
        # WILD_DRAW, WILD_DRAW_COLOR: C12 / F4 challenge (never on a last card, which is
        # always legal: C14)
        if out or not self.wants_challenge(victim, p, prev[0]):
            self.penalty(victim, k, reason, pend)
            if out:
                return None
            self.skip(victim)
            return self.adv(p, 2)
        self.counters["challenges"][victim] += 1
        self.emit("challenge", p=victim, target=p, bluff=bluff, hand=self.codes(self.hands[p]))
        self.revealed[victim] = (p, list(self.hands[p]))  # the challenger saw the hand
        if not bluff:
            self.penalty(victim, k, DrawReason.CHALLENGE, extra=2 + pend)
            self.skip(victim)
            return self.adv(p, 2)
        self.counters["challenges_won"][victim] += 1
        if self.rules.challenge == "modern" or pend:  # C-H1: a stacked bluff draws the stack
            self.penalty(p, k, DrawReason.CHALLENGE, pend)
            return victim
        # vintage: take the card back, play a legal card instead (with its effect), draw
        self.discard.pop()
        self.hands[p].append(card)
        self.arrange(p)
        self.color, self.top_face = prev
        self.emit("take_back", p=p, card=k.code)
        nxt = self.play(p, self.policies[p].choose_replacement(self, p))
        self.penalty(p, k, DrawReason.CHALLENGE)
        return nxt

    # -- Hello Kitty, house-2018 ------------------------------------------------
    def fewest_draw(self, p: int, k, out: bool):
        """H2 Badtz-Maru: every seat holding the fewest cards draws `k.amount`.

        Counted after the card is placed, p included; in play order from p.  On
        p's last card the round is over: p is left out, the others still draw
        and the cards count in the score (as C14).
        """
        seats, q = [], p
        for _ in range(self.active_count()):
            if not (out and q == p):
                seats.append(q)
            q = self.adv(q, 1)
        low = min(len(self.hands[q]) for q in seats)
        for q in seats:
            if len(self.hands[q]) == low:
                self.draw(q, k.amount, k.reason)

    def swap_hands(self, p: int, card: int):
        """S2: p swaps hands with the opponent it picks (the target decision)."""
        q = self.policies[p].choose_target(self, p, card)
        if q == p:
            return
        self.hands[p], self.hands[q] = self.hands[q], self.hands[p]
        self.failed[p], self.failed[q] = self.failed[q], self.failed[p]  # they follow the cards
        self.emit("exchange", p=p, target=q)

    def shuffle_hands(self, p: int):
        """S2 exchange=shuffle: every hand gathered (seat order), shuffled by the table,
        dealt one at a time from p's left (clockwise) until none is left."""
        pile = []
        for h in self.hands:
            pile.extend(h)
        self.deal.shuffle(pile)
        seats, q = [], p
        for _ in range(self.active_count()):
            q = (q + 1) % self.n
            while not self.active[q]:
                q = (q + 1) % self.n
            seats.append(q)
        self.hands = [[] for _ in range(self.n)]
        i = 0
        while pile:
            self.hands[seats[i]].append(pile.pop())
            i = i + 1 if i + 1 < len(seats) else 0
        for q in range(self.n):
            self.arrange(q)
        self.failed = [0] * self.n  # new hands: nothing is known of them
        self.emit("shuffle_hands", p=p, hands=[self.codes(h) for h in self.hands])

    def put_down(self, q: int, cards: list):
        """S3: cards leave q's hand for the discard pile, under its top card (the active
        color stays)."""
        top = self.discard.pop()
        self.discard.extend(cards)
        self.discard.append(top)
        self.emit("put_down", p=q, cards=self.codes(cards))

    def discard_to(self, q: int, size: int):
        """S3 seven / three: q puts down cards of its choice until it holds `size`."""
        hand = self.hands[q]
        need = len(hand) - size
        out = []
        while need > 0:
            i = self.policies[q].choose_discard(self, q, need)
            out.append(hand[i])
            del hand[i]
            need -= 1
        self.put_down(q, out)

    def to_size(self, q: int, size: int, reason, out: bool):
        """S3: q draws or discards to `size` cards (on a last card, only the draws: C14)."""
        n = len(self.hands[q])
        if n < size:
            self.draw(q, size - n, reason)
        elif n > size and not out:
            self.discard_to(q, size)

    def custom(self, p: int, k, out: bool):
        """S3: the customizable wild's rule (k.amount indexes CUSTOM_RULES).

        On a last card the round is over: only the draws of the rule still
        happen (C14); discards, the extra turn and the draw-three check do not.
        """
        rule = CUSTOM_RULES[k.amount]
        victim = self.adv(p, 1)
        if rule == "draw_color":
            self.draw_until(victim, k.reason)
        elif rule == "wilds_down":
            if not out:
                q = p
                for _ in range(self.active_count() - 1):
                    q = self.adv(q, 1)
                    hand = self.hands[q]
                    wilds = [c for c in hand if self.kind(c).color == NO_COLOR]
                    if not wilds:
                        continue
                    keep = [c for c in hand if self.kind(c).color != NO_COLOR]
                    if not keep:  # a hand is never emptied out of turn: one wild stays
                        keep = wilds[:1]
                        wilds = wilds[1:]
                        if not wilds:
                            continue
                    self.hands[q] = keep
                    self.put_down(q, wilds)
        elif rule == "draw_three":
            if not out and not self.has_legal_play(victim):
                self.draw(victim, 3, k.reason)
                self.skip(victim)
                return self.adv(p, 2)
        elif rule == "extra_turn":
            if not out:
                self.emit("extra_turn", p=p)
                return p
        elif rule == "seven":
            self.to_size(victim, 7, k.reason, out)
        else:  # three: every player, in play order from p
            q = p
            for _ in range(self.active_count()):
                if not (out and q == p):
                    self.to_size(q, 3, k.reason, out)
                q = self.adv(q, 1)
        return None if out else self.adv(p, 1)

    # -- counterfactual decision points (Force) ------------------------------------
    def forced_play(self, p: int) -> int:
        """A bluff decision point of the seat being forced (policy.c forced_play).

        The policy decides first, drawing as usual; at the forced point every
        stream of p but the bluff stream is wound back, and the answer is the
        first restricted card (bluff) or the policy's choice with the bluff knob
        off (the honest card, or a draw).
        """
        f, pol = self.force, self.policies[p]
        saved = {k: v for k, v in self.dec.n.items() if k[0] == p}
        a = pol.choose_play(self, p)
        if not self.forced_point(len(self.hands[p]), len(self.hands[self.adv(p, 1)]),
                                 int(a >= 0 and self.kind(self.hands[p][a]).restricted)):
            return a
        bluffs = self.dec.n.get((p, DK_BLUFF), 0)
        for k in [k for k in self.dec.n if k[0] == p]:
            del self.dec.n[k]
        self.dec.n.update(saved)
        self.dec.n[(p, DK_BLUFF)] = bluffs
        if f.value:
            for j, c in enumerate(self.hands[p]):
                if self.kind(c).restricted:
                    return j
        bluff, pol.bluff = pol.bluff, 0.0
        try:
            return pol.choose_play(self, p)
        finally:
            pol.bluff = bluff

    def wants_challenge(self, victim: int, offender: int, prev_color: int) -> bool:
        """The victim's challenge (C12), a decision point when it is the seat being forced."""
        a = self.policies[victim].wants_challenge(self, victim, offender, prev_color)
        f = self.force
        if not f or f.kind != "challenge" or f.seat != victim or self.specs[victim].name == "user":
            return a
        truth = prev_color >= 0 and any(self.kind(c).color == prev_color
                                        for c in self.hands[offender])
        q = bluff_probability(self, victim, offender, prev_color)
        if not self.forced_point(len(self.hands[victim]), len(self.hands[offender]), int(a),
                                 int(truth), q):
            return a
        return bool(f.value)

    def forced_point(self, own: int, other: int, natural: int, truth: int = -1,
                     q: float = -1.0) -> bool:
        """A decision point of the seat being forced (policy.c cf_point): counted,
        described when among the first FORCE_POINTS, True when it is the one to force."""
        f = self.force
        i = f.seen
        f.seen += 1
        if i < FORCE_POINTS:
            f.points.append(ForcePoint(round=self.rounds, turn=self.turns, own=own, other=other,
                                       natural=natural, truth=truth, q=q))
        if i != f.index or f.value < 0:
            return False
        f.hit_round = self.rounds
        return True

    # -- a round ----------------------------------------------------------------
    def choose_dealer(self) -> int:
        """C3: each player draws; highest number deals; ties draw again."""
        # the round-0 deal stream of __init__ (a re-pairing may have used it first)
        pile = list(range(self.deck.size))
        self.deal.shuffle(pile)
        redraw = self.rules.dealer_draw == "redraw"
        numbers = sum(1 for c in pile if self.kind(c).effect == Effect.NUMBER)
        contenders = [s for s in range(self.n) if self.active[s]]
        draws = []
        while len(contenders) > 1:
            if (numbers if redraw else len(pile)) < len(contenders):
                break  # nothing left to break the tie: the first contender deals
            values = []
            for s in contenders:
                while True:
                    c = pile.pop()
                    draws.append([s, self.code(c)])
                    k = self.kind(c)
                    if k.effect == Effect.NUMBER:
                        numbers -= 1
                        values.append(k.face)
                        break
                    if redraw:
                        pile.insert(0, c)  # put back under the pack, draw again
                        continue
                    values.append(0)
                    break
            top = max(values)
            contenders = [s for s, v in zip(contenders, values) if v == top]
        self.emit("dealer_draw", draws=draws, dealer=contenders[0])
        return contenders[0]

    def start_round(self, dealer: int, deck_order=None) -> int:
        """Shuffle (or take `deck_order`, top card first), deal, turn up the starter.

        Returns the first player to take a turn.
        """
        self.rounds += 1
        self.direction = 1
        self.idle = 0
        self.silent = 0  # E2: the launcher's state is per round
        self.jump_open = False
        self.deal = Rng.from_state(deal_state(self.seeded, self.rounds))
        self.dec.new_round(self.rounds)
        self.side = 0  # F2: every round starts on the light side
        self.card_kind = self.side_kinds[0]
        if deck_order is None:
            pile = list(range(self.deck.size))
            self.deal.shuffle(pile)
        else:
            pile = list(reversed(deck_order))
        deck_codes = self.pair_codes(reversed(pile))
        self.hands = [[] for _ in range(self.n)]
        self.failed = [0] * self.n  # public history (P1): bit c = drew on color c
        self.revealed = [None] * self.n  # challenger -> (offender, hand it saw)
        for _ in range(self.rules.hand_size):  # C4: one at a time from the dealer's left
            q = dealer
            for _ in range(self.active_count()):
                q = self.adv(q, 1)
                self.hands[q].append(pile.pop())
        for q in range(self.n):
            self.arrange(q)
        returned = []
        flipped = False
        while True:  # C5
            card = pile.pop()
            k = self.kind(card)
            if k.effect == Effect.FLIP and self.rules.flip_starter == "flip" and not flipped:
                # F2 switch: the Flip turns the game over once (the draw pile as a stack,
                # every hand); its other face is then read as the starter
                flipped = True
                self.side ^= 1
                self.card_kind = self.side_kinds[self.side]
                for q in range(self.n):
                    self.arrange(q)
                pile.reverse()
                k = self.kind(card)
            if k.starter != Starter.RETURN:
                break
            returned.append(k.code)
            pile.append(card)
            self.deal.shuffle(pile)
        self.draw_pile = pile
        self.discard = [card]
        self.color, self.top_face = k.color, k.face
        self.emit("round_start", round=self.rounds, dealer=dealer, deck=deck_codes,
                  hands=[self.pair_codes(h) for h in self.hands], starter=k.code,
                  returned=returned)
        if flipped:
            self.emit("flip", p=-1, side=SIDES[self.side], top=k.code)
        first = self.adv(dealer, 1)
        e = k.effect
        if e in STARTER_WILDS:  # H2, S2, S3 as starter: a plain Wild, nobody draws
            self.color = self.policies[first].choose_color(self, first)
            self.emit("color", p=first, color=COLORS[self.color])
            return first
        if e == Effect.SKIP:
            self.skip(first)
            return self.adv(dealer, 2)
        if e == Effect.REVERSE:
            self.direction = -1
            self.emit("reverse", p=dealer, dir=-1)
            return dealer
        if e == Effect.DRAW:
            self.draw(first, k.amount, k.reason)
            self.skip(first)
            return self.adv(dealer, 2)
        if e == Effect.HIT:  # E5: the first player presses twice, the next one starts
            self.presses(first, first, k.amount, k.reason)
            self.skip(first)
            return self.adv(dealer, 2)
        if e not in (Effect.NUMBER, Effect.DISCARD_ALL):  # E4: a Discard All is matched
            raise RulesError(f"card {k.code} cannot be a starter")
        return first

    def play_round(self, dealer: int, deck_order=None):
        """Play one round to its end; returns the winning seat or None (stalemate)."""
        turns0, reshuffles0 = self.turns, self.reshuffles
        p = self.start_round(dealer, deck_order)
        self.round_row = {"dealer": dealer, "starter": self.side_kinds[self.side][self.discard[0]],
                          "turns0": turns0, "reshuffles0": reshuffles0}
        try:
            while p is not None:
                self.turns += 1
                p = self.take_turn(p)
            winner = self.last_player  # who played the last card (C-H4: maybe a jumper)
        except Stalemate:
            self.stalemates += 1
            return None
        return winner

    def hand_value(self, s: int) -> int:
        return sum(self.kind(c).value for c in self.hands[s])

    def score_round(self, winner) -> bool:
        """C17-C20: score the round; returns True when the game is over."""
        r = self.rules
        points = [0] * self.n
        eliminated = []
        over = False
        if winner is not None:
            self.counters["rounds_won"][winner] += 1
            if r.scoring == "standard":
                if r.teams:
                    won = sum(self.hand_value(s) for s in range(self.n) if s % 2 != winner % 2)
                    self.team_scores[winner % 2] += won
                    over = self.team_scores[winner % 2] >= r.target
                else:
                    won = sum(self.hand_value(s) for s in range(self.n) if s != winner)
                    over = self.scores[winner] + won >= r.target
                points[winner] = won
                self.scores[winner] += won
            else:
                for s in range(self.n):
                    if self.active[s]:
                        points[s] = self.hand_value(s)
                        self.scores[s] += points[s]
                if r.scoring == "elimination":
                    for s in range(self.n):
                        if self.active[s] and self.scores[s] >= r.target:
                            self.active[s] = False
                            eliminated.append(s)
                    over = self.active_count() == 1
                else:
                    over = any(sc >= r.target for sc in self.scores)
        f = self.force
        if f and f.hit_round == self.rounds:  # the forced decision's round
            f.round_won = int(winner == f.seat)
            f.round_points = points[f.seat]
        row = self.round_row
        self.round_rows.append({
            "round": self.rounds, "dealer": row["dealer"], "starter": row["starter"],
            "winner": -1 if winner is None else winner,
            "turns": self.turns - row["turns0"],
            "reshuffles": self.reshuffles - row["reshuffles0"],
            "points": points, "cards_left": [len(h) for h in self.hands]})
        fields = {"team_scores": list(self.team_scores)} if r.teams else {}
        self.emit("round_end", round=self.rounds, p=winner, points=points,
                  hands=[self.codes(h) for h in self.hands], scores=list(self.scores),
                  eliminated=eliminated, **fields)
        return over

    def result(self) -> GameResult:
        r = self.rules
        team = -1
        if r.scoring == "standard" and r.teams:
            team = 0 if self.team_scores[0] >= r.target else 1
            winners = [s for s in range(self.n) if s % 2 == team]
        elif r.scoring == "standard":
            winners = [max(range(self.n), key=lambda s: self.scores[s])]
        elif r.scoring == "elimination":
            winners = [s for s in range(self.n) if self.active[s]]
        else:
            low = min(self.scores)
            winners = [s for s in range(self.n) if self.scores[s] == low]
        winner = winners[0] if len(winners) == 1 else -1
        return GameResult(
            winner=winner, winners=winners, team=team, scores=list(self.scores),
            team_scores=list(self.team_scores), rounds=self.rounds, turns=self.turns,
            reshuffles=self.reshuffles, stalemates=self.stalemates,
            seats={k: list(v) for k, v in self.counters.items()}, events=self.events,
        )

    def play_game(self, seed=None, game=0) -> GameResult:
        self.emit("game_start", seed=seed, game=game, variant=self.rules.variant,
                  rules=self.rules.to_dict(), players=self.n,
                  policies=[str(s) for s in self.specs])
        if self.rules.flip_pairing == "game" and len(self.side_kinds) == 2:
            # F1 switch: a new pairing every game.  The table's cards: drawn from the round-0
            # deal stream before the dealer draw, so arms with other policies get it too.
            self.deal.shuffle(self.side_kinds[1])
            self.set_ranks()
        dealer = self.choose_dealer()
        while True:
            winner = self.play_round(dealer)
            if self.score_round(winner):
                break
            d = self.direction
            self.direction = 1  # the deal always passes to the left
            dealer = self.adv(dealer, 1)
            self.direction = d
        res = self.result()
        self.emit("game_end", winner=res.winner, winners=res.winners, team=res.team,
                  scores=res.scores, team_scores=res.team_scores, rounds=self.rounds)
        return res


def play_game(rules: Rules | None = None, policies="greedy", seed: int = 0, game: int = 0,
              trace: bool = False) -> GameResult:
    """Play one complete game with the reference engine."""
    rules = rules or Rules()
    g = Game(rules, policies, Rng(key_from_seed(seed), game), trace=trace)
    return g.play_game(seed=seed, game=game)


def scenario_deck(rules: Rules, deck):
    """(table, card ids) for a scenario deck given as codes, top card first.

    For a two-faced deck given entirely as `light/dark` codes, the deck also
    fixes the pairing (card i is deck[i]); plain codes keep the rules' pairing.
    """
    table = deck_for(rules)
    if deck is None:
        return table, None
    deck = list(deck)
    if table.sides == 2 and deck and all("/" in c for c in deck):
        if len(deck) != table.size:
            raise RulesError(
                f"invalid deck: {len(deck)} cards given, the {table.name} deck has {table.size}")
        try:
            return table.with_pairing(deck), list(range(table.size))
        except ValueError as exc:
            raise RulesError(str(exc)) from None
    try:
        return table, table.cards_from_codes(deck)
    except ValueError as exc:
        raise RulesError(str(exc)) from None


def play_round(rules: Rules | None = None, policies="greedy", deck=None, dealer: int = 0,
               seed: int = 0, game: int = 0, scores=None) -> GameResult:
    """Scenario API: play one round from a chosen deck order (codes, top card first).

    The trace is always kept.  `scores` sets the scores before the round.
    """
    rules = rules or Rules()
    table, order = scenario_deck(rules, deck)
    g = Game(rules, policies, Rng(key_from_seed(seed), game), trace=True, deck=table)
    if order is not None:
        if len(order) != g.deck.size:
            raise RulesError(
                f"invalid deck: {len(order)} cards given, the {g.deck.name} deck has {g.deck.size}"
            )
    if not 0 <= dealer < g.n:
        raise RulesError(f"invalid dealer {dealer}: expected 0..{g.n - 1}")
    if scores is not None:
        g.scores = list(scores)
    g.emit("game_start", seed=seed, game=game, variant=rules.variant, rules=rules.to_dict(),
           players=g.n, policies=[str(s) for s in g.specs])
    winner = g.play_round(dealer, order)
    g.score_round(winner)
    return g.result()


def play_forced(rules: Rules | None = None, policies="greedy", seed: int = 0, game: int = 0, *,
                seat: int, kind: str, index: int = -1, value: int = -1,
                trace: bool = False) -> tuple[GameResult, Force]:
    """A complete game with a Force: decision point `index` of `seat` answered `value`.

    The C twin is ``_engine.Engine.play_forced`` (used by uno_sim.counterfactual).
    """
    rules = rules or Rules()
    g = Game(rules, policies, Rng(key_from_seed(seed), game), trace=trace)
    if g.specs[seat].name == "user":
        raise RulesError(f"invalid seat {seat}: counterfactuals need a built-in policy")
    g.force = Force(seat=seat, kind=kind, index=index, value=value)
    res = g.play_game(seed=seed, game=game)
    return res, g.force
