"""The built-in policies of the reference engine (P2) and `make_policy`.

Each decision is a method; the C twins are in csrc/policy.c and must consume
random numbers identically.
"""

from __future__ import annotations

from ..cards import NO_COLOR, Effect
from ..policies import PolicySpec
from ..rng import (DK_BLUFF, DK_CATCH, DK_CHALLENGE, DK_COLOR, DK_JUMP, DK_PICK, DK_PLAY_DRAWN,
                   DK_STACK, DK_TARGET, DK_UNO, DK_VOLUNTARY, DecisionStreams, SeatStreams)
from ..userpolicy import DRAW  # the "draw a card" action of choose_play, as a user's


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
        # every knob as an attribute of its own name (policies.KNOBS, in the form of
        # PolicySpec.c_knobs: challenge also gives challenge_auto / challenge_posterior)
        for name, value in spec.c_knobs().items():
            setattr(self, name, value)

    def pick(self, n: int, kind: int = DK_PICK) -> int:
        return 0 if n == 1 else self.rand.bounded(kind, n)

    def tries_bluff(self, g: "Game", p: int) -> bool:
        """The bluff knob with its state conditions (policy.c tries_bluff).

        Asked only when p holds a card that would be a bluff; nothing is drawn
        unless the next player holds <= bluff_next cards and p <= bluff_own (either
        one with bluff_join "or").
        """
        near = len(g.hands[g.adv(p, 1)]) <= self.bluff_next
        low = len(g.hands[p]) <= self.bluff_own
        if not ((near or low) if self.bluff_join == "or" else (near and low)):
            return False
        return self.rand.bernoulli(DK_BLUFF, self.bluff)

    def choose_color(self, g: "Game", p: int) -> int:
        """One of the four colors of the side in play (colors 4*side .. 4*side+3)."""
        base = 4 * g.side
        if self.color == "random":
            return base + self.rand.bounded(DK_COLOR, 4)
        counts = color_counts(g, p)
        if self.color == "smart":
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
        near = len(g.hands[offender]) <= self.challenge_offender
        low = len(g.hands[p]) <= self.challenge_own
        if ((self.suspect >= 0 and offender != self.suspect)
                or not ((near or low) if self.challenge_join == "or" else (near and low))):
            return False
        if self.challenge_auto:
            return bluff_probability(g, p, offender, prev_color) > self.challenge_threshold
        if self.challenge_posterior:
            q = bluff_probability(g, p, offender, prev_color)
            num = q * self.challenge_prior
            den = num + (1.0 - q)
            return den > 0.0 and num / den > self.challenge_threshold
        return self.rand.bernoulli(DK_CHALLENGE, self.challenge)

    def forgets_uno(self, g, p) -> bool:
        return self.rand.bernoulli(DK_UNO, self.forget_uno)

    def catches(self, g, p, forgetter) -> bool:
        return self.rand.bernoulli(DK_CATCH, self.catch)

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
        return self.rand.bernoulli(DK_PLAY_DRAWN, self.play_drawn)

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
        if not opts or not self.rand.bernoulli(DK_STACK, self.stack):
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
        return self.rand.bernoulli(DK_JUMP, self.jump_in)

    def choose_target(self, g: "Game", p: int, card: int) -> int:
        """P2: the opponent a targeted card aims at (the target knob).

        Candidates are the active opponents (teammates excluded, C20) in play
        order from p; ties go to the first.  p itself when there is none.
        """
        cand = target_candidates(g, p)
        if not cand:
            return p
        rule = self.target
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
        if best != DRAW and self.rand.bernoulli(DK_VOLUNTARY, self.voluntary_draw):
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
                and self.rand.bernoulli(DK_VOLUNTARY, self.voluntary_draw):
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
        from ..userpolicy import ReferenceUserSeat
        return ReferenceUserSeat(spec, seat)
    if spec.name not in POLICY_CLASSES:  # pimc, ismcts: csrc/search.c; net: csrc/net.c
        from ..rules import RulesError
        what = "network player" if getattr(spec, "is_net", False) else "search players"
        raise RulesError(f"the reference engine has no {what}: {spec} needs the C "
                         f"engine (--engine c)")
    return POLICY_CLASSES[spec.name](spec, SeatStreams(streams, seat))
