"""Build a deck order that deals a chosen situation.

``arrange(...)`` returns the full deck, top card first, such that dealing it
(C4: one card at a time from the dealer's left) gives each seat the hand asked
for, then turns up the chosen starter, then serves the chosen cards to the
next draws.  The rest of the deck follows in table order, so a scenario never
depends on a shuffle until the draw pile runs out.

    deck = arrange(players=3, dealer=0, hands={1: ["R5", "W+4"], 2: ["B1"]},
                   starter="R3", draws=["G7"], hand_size=2)
    play_round(rules, "greedy", deck=deck, dealer=0)

For a two-faced deck (UNO Flip) every chosen card may name both faces
(``"RF/T5"``) or only its light face (``"R5"``: a dark number is put on the
back); the order returned names every card as ``light/dark``, so that it also
fixes the pairing of the faces for the round.
"""

from __future__ import annotations

from .cards import deck_for
from .errors import whole as _whole
from .rules import Rules, RulesError


def arrange(players: int = 4, dealer: int = 0, hands: dict | None = None, starter: str | None = None,
            draws=(), hand_size: int = 7, rules: Rules | None = None, filler=None) -> list[str]:
    """The deck order (codes, top first) that deals `hands` and turns up `starter`.

    Seats missing from `hands`, and hands shorter than `hand_size`, are completed
    from the rest of the deck: from `filler` (codes, in order) first, then in
    table order skipping wilds and action cards, so that filler cards do not
    interfere with the situation under test.
    """
    rules = rules or Rules(players=players, hand_size=hand_size)
    _whole("players", players, 2, 10)
    _whole("dealer", dealer, 0, players - 1)
    _whole("hand_size", hand_size, 1, 20)
    if hands is not None and not isinstance(hands, dict):
        raise RulesError(f"invalid hands {hands!r}: expected a {{seat: [card codes]}} dict")
    table = deck_for(rules)
    two = table.sides == 2
    hands = {s: list(h) for s, h in (hands or {}).items()}
    for s, h in hands.items():
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < players:
            raise RulesError(f"invalid seat {s!r}: expected 0..{players - 1}")
        if len(h) > hand_size:
            raise RulesError(f"invalid hand for seat {s}: {len(h)} cards, hand_size is {hand_size}")
    chosen = [c for h in hands.values() for c in h] + ([starter] if starter else []) + list(draws)
    lights = [c.split("/")[0] for c in chosen]
    table.cards_from_codes(lights)  # raises on a card asked for too often
    darks = [table.code(c, 1) for c in range(table.size)] if two else []
    for code in chosen:
        light, sep, dark = code.partition("/")
        if sep:
            if not two or dark not in darks:
                raise RulesError(f"invalid card {code!r}: no such face left in the {table.name} deck")
            darks.remove(dark)

    remaining = [table.code(c) for c in range(table.size)]
    for code in lights:
        remaining.remove(code)
    plain = [c for c in remaining if _is_plain(table, c)]
    rest = [c for c in remaining if not _is_plain(table, c)]
    pool = []
    for code in filler or ():
        (plain if code in plain else rest).remove(code)
        pool.append(code)
    pool += plain + rest

    def take():
        return pool.pop(0)

    for s in range(players):
        h = hands.setdefault(s, [])
        while len(h) < hand_size:
            h.append(take())
    order = []
    for i in range(hand_size):
        for k in range(1, players + 1):
            order.append(hands[(dealer + k) % players][i])
    order.append(starter if starter else take())
    order += list(draws)
    order += pool
    if two:  # backs for the cards named by their light face: dark numbers first
        darks.sort(key=lambda c: (not _is_plain(table, c), table.kind_of_code(c)))
        order = [c if "/" in c else f"{c}/{darks.pop(0)}" for c in order]
    return order


def hand_order(rules: Rules, codes, side: int = 0) -> list[str]:
    """`codes` in hand order: the order the trace and a user policy show a hand in.

    Card priority (docs/policies.md): higher value first, then the lower kind id,
    of the face on `side` (for a two-faced code ``"light/dark"``, its light or dark
    part); the sort is stable, so cards of one kind keep the order given (in a
    game they are ordered by card id).
    """
    table = deck_for(rules)

    def key(code):
        face = code.split("/")[side] if "/" in code else code
        k = table.kind_of_code(face)
        return (-table.kinds[k].value, k)

    return sorted(codes, key=key)


def _is_plain(table, code) -> bool:
    k = table.kinds[table.kind_of_code(code)]
    return k.effect == 0 and k.color >= 0


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
