"""The effects of played and starter cards in the reference engine (C5-C14 and the variants').

`Effects` is a mixin of `game.Game`: its methods read and change the game's
state, draw through the game and ask the game's policies.  One dispatcher,
`resolve`, for a played card and for the starter, as `resolve` in csrc/round.c.
"""

from __future__ import annotations

from ..cards import (COLORS, CUSTOM_RULES, NO_COLOR, SIDES, STACK_FAMILY, STARTER_EFFECTS,
                     STARTER_WILDS, DrawReason, Effect)
from ..rules import RulesError
from .policies import DRAW

NO_STACK = -2  # Game.try_stack: the victim takes the cards


class Effects:
    """Card effects, mixed into `game.Game`.  The dispatcher `resolve` (a played card or
    the starter) returns the next seat to play, None when the round is over; the other
    methods are its steps."""

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

    def skip(self, victim: int):
        self.emit("skip", p=victim)

    def resolve(self, p, card, k, bluff, prev, starter=False):
        """The effect dispatcher of C9-C12 (and C11 at two players, C14 on a last card).

        With `starter`, the effect of the starter card (C5; the tail of
        `Game.start_round`): p is the dealer, and the first player to take a turn
        is returned.
        """
        e = k.effect
        if starter and e not in STARTER_EFFECTS and e not in STARTER_WILDS:
            raise RulesError(f"card {k.code} cannot be a starter")
        out = not starter and not self.hands[p]
        if starter and e in STARTER_WILDS:  # the player left of the dealer names the color
            first = self.adv(p, 1)  # (H2, S2, S3 too: a plain Wild, nobody draws)
            self.color = self.policies[first].choose_color(self, first)
            self.emit("color", p=first, color=COLORS[self.color])
            return first
        if e in (Effect.WILD, Effect.DISCARD_ALL):  # E4: as a starter, matched like any card
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
            if self.rules.seven_o and not starter and k.face in (0, 7):
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
            if starter:  # the dealer plays first, then play goes to the right
                return p
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
        if not out and not starter and e in STACK_FAMILY and self.rules.stacking != "none":
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
