"""The cheating search players (`cheat=1`) are an upper bound: they see the true state at
every decision, the challenge included (docs/policies.md "Search players", C12).

A seat that sees the offender's hand knows whether a Wild Draw Four was a bluff: it
challenges every bluff and no legal card.  Pinned on scripted rounds (the offender plays
its Wild Draw Four on its first turn, holding a card of the starter's color or not) and
on ordinary games against `greedy(bluff=1)`.
"""

import numpy as np
import pytest

from uno_sim.cards import deck_for
from uno_sim.engine import _setup, play_game
from uno_sim.rng import key_from_seed
from uno_sim.rules import Rules

CHEATS = ["pimc(cheat=1)", "ismcts(cheat=1)", "pimc(cheat=1,value=round)"]


def _offender(obs):
    """Seat 1: its first play is the Wild Draw Four, then the first legal action."""
    if obs.decision == "play":
        for a in obs.actions:
            if a.kind == "play" and a.card == "W+4":
                return a
    return obs.actions[0]


def _scripted_deck(codes, rng, bluff: bool) -> list:
    """A deck (top first) for two players, dealer 0: seat 1 (deck positions 0, 2, .., 12)
    holds a Wild Draw Four and six numbers of yellow, green or blue, and (bluff) a red
    number in place of one of them; the starter (position 14) is the red 5 (C4, C5, C7)."""
    order = [int(c) for c in rng.permutation(len(codes))]
    used = set()

    def take(ok):
        c = next(c for c in order if c not in used and ok(codes[c]))
        used.add(c)
        return c

    starter = take(lambda s: s == "R5")
    hand1 = [take(lambda s: s == "W+4")]
    if bluff:
        hand1.append(take(lambda s: s[0] == "R" and s[1:].isdigit()))
    while len(hand1) < 7:
        hand1.append(take(lambda s: s[0] in "YGB" and s[1:].isdigit()))
    rest = [c for c in order if c not in used]
    deck = [None] * len(codes)
    deck[0:14:2] = hand1
    deck[1:14:2] = rest[:7]
    deck[14] = starter
    deck[15:] = rest[7:]
    return deck


def _scripted_challenges(spec: str, rounds: int = 10) -> dict:
    """{bluff: (challenged, rounds)} for seat 0 playing `spec` against the scripted
    offender, `rounds` rounds each with a bluff and with a legal card."""
    rules = Rules(players=2)
    _, _, eng = _setup(rules, [spec, _offender])
    deck = deck_for(rules)
    codes = [deck.code(c) for c in range(eng.n_cards)]
    rng = np.random.default_rng(5)
    out = {True: [0, 0], False: [0, 0]}
    for i in range(2 * rounds):
        bluff = i % 2 == 0
        events = eng.play_round(key_from_seed(i), i, _scripted_deck(codes, rng, bluff), 0,
                                None)[1]
        at = next(j for j, e in enumerate(events) if e["e"] == "play")
        assert events[at]["p"] == 1 and events[at]["card"] == "W+4"
        assert events[at]["legal"] is (not bluff)
        out[bluff][0] += events[at + 1]["e"] == "challenge"
        out[bluff][1] += 1
    return {k: tuple(v) for k, v in out.items()}


@pytest.mark.parametrize("spec", CHEATS)
def test_cheat_challenges_every_visible_bluff_and_no_legal_card(spec):
    got = _scripted_challenges(spec)
    assert got[True] == (10, 10), got   # every bluff it can see is challenged
    assert got[False] == (0, 10), got   # no legal Wild Draw Four is


def test_the_fair_search_cannot_tell_the_scripted_cards_apart():
    """The check can fail: the same search without cheat=1 sees only the offender's hand
    size, so its answers do not follow the truth card for card."""
    got = _scripted_challenges("pimc(samples=8,rollouts=1,value=round)")
    assert got[True][0] < 10 or got[False][0] > 0, got


def test_cheat_challenges_exactly_the_bluffs_of_ordinary_games():
    """Whole games against a table that bluffs whenever it can: every Wild Draw Four
    played on the cheating seat that can be challenged (not a last card, C14) is
    challenged exactly when it was a bluff."""
    bluffs = legal = 0
    for game in range(3):
        ev = play_game(Rules(players=2), ["pimc(samples=4,rollouts=1,cheat=1)",
                                          "greedy(bluff=1)"], seed=3, game=game,
                       trace=True).events
        for i, e in enumerate(ev):
            if e["e"] != "play" or e.get("p") != 1 or "legal" not in e:
                continue
            nxt = next(x for x in ev[i + 1:] if x["e"] in ("challenge", "draw", "round_end"))
            if nxt["e"] == "round_end":
                continue  # a last card: always legal, never challenged
            assert (nxt["e"] == "challenge") is (not e["legal"]), (game, i)
            bluffs += not e["legal"]
            legal += e["legal"]
    assert bluffs >= 5 and legal >= 5, (bluffs, legal)
