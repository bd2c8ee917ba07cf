"""The reference engine's game: deal, turns, rounds and scoring (`Game`).

The effects of played and starter cards are `effects.Effects`, which `Game`
inherits; the built-in policies are in `policies`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import (COLORS, NO_COLOR, SIDES, STACK_FAMILY, DrawReason, Effect, Starter,
                     deck_for)
from ..players.specs import seat_policies
from ..results import (FORCE_POINTS, MAX_GAME_TURNS, MAX_ROUNDS, MAX_TURNS, SEAT_COUNTERS,
                       GameLimitError, GameResult, limit_message)
from ..rng import DK_BLUFF, DecisionStreams, Rng, deal_state, key_from_seed
from ..rules import STACKING, Rules, RulesError
from ..scenario import scenario_deck
from .effects import NO_STACK, Effects
from .policies import DRAW, bluff_probability, make_policy, target_candidates


class Stalemate(Exception):
    pass


def weighted(rng: Rng, w) -> int:
    """Index i with probability w[i] / sum(w): one bounded draw (E2; csrc/extras.c weighted)."""
    r = rng.bounded(sum(w))
    for i, x in enumerate(w):
        if r < x:
            return i
        r -= x
    raise AssertionError("unreachable")


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


class Game(Effects):
    # The C engine's safety limits (docs/engine.md "Safety limits"): past them the game
    # stops with GameLimitError at the same turn as in the C engine.
    max_turns = MAX_TURNS  # turns in one round
    max_rounds = MAX_ROUNDS  # rounds in one game
    max_game_turns = MAX_GAME_TURNS  # turns in one game, checked before each round
    limit_name = "the game"  # how GameLimitError names the game

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

    def legal_actions(self, p, decision: str) -> list[int]:
        """The legal actions of seat p at a user policy's `decision` (a name of
        players.user.DECISIONS), encoded as the C engine's uno_legal_actions writes them:
        2 * hand index + bluff for the cards (hand order) and DRAW for drawing, the
        colors 4 * side + c, the target seats, and 1, 0 for the yes/no questions."""
        hand = self.hands[p]
        if decision in ("play", "replacement", "stack"):
            out, fair = [], False
            for i, c in enumerate(hand):
                if not (self.can_stack(c) if decision == "stack" else self.playable(c)):
                    continue
                bluff = self.is_bluff(p, c)
                if decision == "replacement" and bluff:
                    continue
                fair = fair or not bluff
                out.append(2 * i + bluff)
            if decision == "stack" or (decision == "play"
                                       and not (self.rules.forced_play and fair)):
                out.append(DRAW)
            return out
        if decision == "discard":
            return [2 * i for i in range(len(hand))]
        if decision == "color":
            return [4 * self.side + c for c in range(4)]
        if decision == "target":
            return target_candidates(self, p)
        return [1, 0]

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
        self.receive(p, got, reason)
        self.emit("draw", p=p, cards=self.codes(got), reason=reason.name.lower())
        return got

    def receive(self, p: int, got: list, reason: DrawReason):
        """Seat p takes the cards `got` from the draw pile or the launcher (C8, C15, E3)."""
        self.hands[p].extend(got)
        self.arrange(p)
        self.counters["cards_drawn"][p] += len(got)
        if reason not in (DrawReason.CANNOT_PLAY, DrawReason.VOLUNTARY):
            self.failed[p] = 0  # penalty cards: it may hold any color now

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
        self.receive(to, got, reason)
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
        def is_number(k):  # a printed 0-9; a deck file's plain kind is not (docs/rules.md)
            return k.effect == Effect.NUMBER and k.face <= 9

        numbers = sum(1 for c in pile if is_number(self.kind(c)))
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
                    if is_number(k):
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
        return self.resolve(dealer, card, k, False, None, starter=True)

    def play_round(self, dealer: int, deck_order=None):
        """Play one round to its end; returns the winning seat or None (stalemate)."""
        turns0, reshuffles0 = self.turns, self.reshuffles
        p = self.start_round(dealer, deck_order)
        self.round_row = {"dealer": dealer, "starter": self.side_kinds[self.side][self.discard[0]],
                          "turns0": turns0, "reshuffles0": reshuffles0}
        taken = 0  # turns taken this round (jump-ins add to self.turns, not to this)
        try:
            while p is not None:
                if taken >= self.max_turns:
                    raise self.limit()
                taken += 1
                self.turns += 1
                p = self.take_turn(p)
            winner = self.last_player  # who played the last card (C-H4: maybe a jumper)
        except Stalemate:
            self.stalemates += 1
            return None
        return winner

    def limit(self) -> GameLimitError:
        """The error of a game past the safety limits, with the trace so far."""
        return GameLimitError(limit_message(self.limit_name, self.max_turns, self.max_rounds,
                                            self.max_game_turns), self.events)

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
            if self.rounds >= self.max_rounds or self.turns >= self.max_game_turns:
                raise self.limit()
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
              trace: bool = False, *, max_turns: int = 0, max_rounds: int = 0) -> GameResult:
    """Play one complete game with the reference engine.

    ``max_turns`` and ``max_rounds`` (0: the defaults) lower the safety limits as in
    `uno_sim.engine.play_game`; past a limit GameLimitError is raised, with the trace so
    far in its ``events`` when `trace` is on."""
    rules = rules or Rules()
    g = Game(rules, policies, Rng(key_from_seed(seed), game), trace=trace)
    if max_turns < 0 or max_rounds < 0:
        raise ValueError("max_turns and max_rounds must be >= 0")
    g.max_turns = max_turns or g.max_turns
    g.max_rounds = max_rounds or g.max_rounds
    return g.play_game(seed=seed, game=game)


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
    g.limit_name = f"game {game}"
    res = g.play_game(seed=seed, game=game)
    return res, g.force
