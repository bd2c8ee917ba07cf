"""Hello Kitty rules H1-H3 (docs/rules.md, text 002), one or more tests per rule ID, on both engines.

Scenarios come from a chosen deck order (`uno_sim.arrange`); decisions are
pinned with the greedy policy's knobs, which plays its best colored card and
a wild only when no colored card plays.
"""

from __future__ import annotations

from collections import Counter

import pytest

import uno_sim
from specs import greedy
from uno_sim import Rules, arrange
from uno_sim.cards import color_names, deck_for
from uno_sim.trace import replay_lines

G = greedy()


def deal(players=3, hands=None, starter=None, draws=(), hand_size=3, dealer=0, **switches):
    rules = Rules(variant="hello-kitty", players=players, hand_size=hand_size, **switches)
    return rules, arrange(players=players, dealer=dealer, hands=hands, starter=starter,
                          draws=list(draws), hand_size=hand_size, rules=rules)


def run(engine, rules, deck, policies=G, dealer=0, **kw):
    return uno_sim.play_round(rules, policies, deck=deck, dealer=dealer, engine=engine, **kw)


def ev(res, kind):
    return [e for e in res.events if e["e"] == kind]


def turns(res):
    """The events after round_start, without the uno calls, as compact tuples."""
    return [tuple(v for k, v in e.items() if k != "hand") for e in res.events
            if e["e"] not in ("game_start", "round_start", "round_end", "uno")]


CLASSIC = Counter({**{f"{c}0": 1 for c in "RYGB"},
                   **{f"{c}{n}": 2 for c in "RYGB" for n in range(1, 10)},
                   **{f"{c}{a}": 2 for c in "RYGB" for a in ("S", "R", "+2")},
                   "W": 4, "W+4": 4})


# --- H1 ------------------------------------------------------------------------

def test_h1_deck_is_the_classic_108_plus_four_badtz_maru(engine):
    res = uno_sim.play_game(Rules(variant="hello-kitty", target=1), G, seed=3, trace=True,
                            engine=engine)
    deck = ev(res, "round_start")[0]["deck"]
    assert len(deck) == 112 == Rules(variant="hello-kitty").deck_size
    assert Counter(deck) == CLASSIC + Counter({"WBM": 4})


def test_h1_pink_is_color_zero_written_r():
    assert color_names("hello-kitty")[:4] == ("pink", "yellow", "green", "blue")
    assert color_names("classic")[0] == "red"
    lines = list(replay_lines([
        {"e": "game_start", "variant": "hello-kitty", "players": 2, "policies": []},
        {"e": "play", "p": 0, "card": "WBM", "color": "R"}]))
    assert lines[1] == "P0 plays WBM, names pink"


def test_h1_c_table_matches_the_python_table(engine):
    # the C engine takes the Python table: the codes of every card it deals are the deck's
    res = uno_sim.play_game(Rules(variant="hello-kitty", players=10, target=1), G, seed=9,
                            trace=True, engine=engine)
    table = deck_for(Rules(variant="hello-kitty"))
    assert Counter(ev(res, "round_start")[0]["deck"]) == Counter(
        table.code(c) for c in range(table.size))


# --- H2 ------------------------------------------------------------------------

def test_h2_badtz_maru_the_single_fewest_draws_four_even_the_player(engine):
    # P1 cannot follow R3: plays Badtz-Maru, names green (B5 and G6 tie: the first in
    # R, Y, G, B order), is left with 2 cards while the others hold 3: P1 alone draws 4
    rules, deck = deal(hands={1: ["WBM", "B5", "G6"], 2: ["Y1", "Y2", "G7"],
                              0: ["Y4", "Y5", "Y6"]},
                       starter="R3", draws=["B1", "B2", "B3", "B4"])
    res = run(engine, rules, deck)
    assert turns(res)[:3] == [("play", 1, "WBM", "G"),
                              ("draw", 1, ["B1", "B2", "B3", "B4"], "badtz_maru"),
                              ("play", 2, "G7")]


def test_h2_badtz_maru_every_tied_player_draws_in_play_order(engine):
    # dealer P2: P0 plays first (3 -> 2 cards); P1 plays Badtz-Maru (3 -> 2): P1 and P0
    # tie on the fewest and both draw 4, P1 first (play order from the player)
    rules, deck = deal(hands={0: ["R7", "Y1", "Y2"], 1: ["WBM", "B5", "B6"],
                              2: ["Y4", "Y5", "Y6"]},
                       starter="R3", draws=["G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8"],
                       dealer=2)
    res = run(engine, rules, deck, dealer=2)
    assert turns(res)[:4] == [("play", 0, "R7"), ("play", 1, "WBM", "B"),
                              ("draw", 1, ["G1", "G2", "G3", "G4"], "badtz_maru"),
                              ("draw", 0, ["G5", "G6", "G7", "G8"], "badtz_maru")]
    assert turns(res)[4][:2] == ("play", 2) or turns(res)[4][:2] == ("draw", 2)


def test_h2_badtz_maru_as_starter_first_player_names_the_color_nobody_draws(engine):
    rules, deck = deal(hands={1: ["B5", "B6", "G6"]}, starter="WBM")
    res = run(engine, rules, deck)
    assert turns(res)[:2] == [("color", 1, "B"), ("play", 1, "B6")]
    assert not [e for e in ev(res, "draw") if e["reason"] == "badtz_maru"]


def test_h2_badtz_maru_as_last_card_the_others_draw_and_it_counts(engine):
    # P1 goes out on Badtz-Maru: the round is over, yet the fewest of the others (P2 and P0,
    # one card each) draw 4 first, and those cards count in P1's points (as C14)
    rules, deck = deal(hands={1: ["WBM"], 2: ["Y9"], 0: ["G2"]}, starter="R3", hand_size=1,
                       draws=["B1", "B2", "B3", "B4", "Y1", "Y2", "Y3", "Y4"])
    res = run(engine, rules, deck)
    assert turns(res) == [("play", 1, "WBM", "R"),
                          ("draw", 2, ["B1", "B2", "B3", "B4"], "badtz_maru"),
                          ("draw", 0, ["Y1", "Y2", "Y3", "Y4"], "badtz_maru")]
    end = ev(res, "round_end")[0]
    assert end["p"] == 1 and end["points"][1] == 9 + 10 + 2 + 10


def test_h2_badtz_maru_play_then_passes_normally(engine):
    # after the draws, play goes on with the next player, who is not skipped
    rules, deck = deal(hands={1: ["WBM", "Y7", "G6"], 2: ["G1", "Y2"], 0: ["Y4", "Y5", "Y6"]},
                       starter="R3", draws=["B1", "B2", "B3", "B4"])
    res = run(engine, rules, deck)
    t = turns(res)
    assert t[0] == ("play", 1, "WBM", "Y")
    assert t[1] == ("draw", 1, ["B1", "B2", "B3", "B4"], "badtz_maru")
    assert t[2] == ("play", 2, "Y2")


# --- H3 ------------------------------------------------------------------------

def test_h3_badtz_maru_is_worth_50(engine):
    rules, deck = deal(hands={1: ["R5"], 2: ["WBM"], 0: ["G2"]}, starter="R3", hand_size=1)
    res = run(engine, rules, deck)
    end = ev(res, "round_end")[0]
    assert end["p"] == 1 and end["points"][1] == 52


@pytest.mark.parametrize("switches", [
    {"edition": "vintage"}, {"scoring": "elimination", "target": 200},
    {"scoring": "lowest", "target": 200}, {"players": 4, "teams": True},
    {"players": 6, "hand_size": 10}])
def test_h3_everything_else_classic_every_switch_plays(engine, switches):
    kw = {"players": 3, **switches}
    rules = Rules(variant="hello-kitty", **kw)
    res = uno_sim.play_game(rules, "strategic", seed=4, trace=True, engine=engine)
    assert res.rounds >= 1 and res.events[-1]["e"] == "game_end"
    values = {k.code: k.value for k in deck_for(rules).kinds}
    assert values["WBM"] == 50 and values["W"] == 50
    assert values["W+4"] == (70 if rules.edition == "vintage" else 50)


def test_h3_wd4_challenge_unchanged(engine):
    # the WD4 of Hello Kitty is the classic one: a legal WD4 challenged costs 6
    rules, deck = deal(hands={1: ["W+4", "B5", "G6"], 2: ["Y1", "Y2", "G7"]}, starter="R3",
                       draws=list("Y3 Y4 Y5 Y6 Y7 Y8".split()))
    res = run(engine, rules, deck, policies=[G, G, greedy(challenge=1)])
    t = turns(res)
    assert t[0][:3] == ("play", 1, "W+4")
    assert t[1][:2] == ("challenge", 2) and t[2] == ("draw", 2, "Y3 Y4 Y5 Y6 Y7 Y8".split(),
                                                     "challenge")


def test_h1_deck_overrides_apply_to_badtz_maru(engine):
    rules = Rules(variant="hello-kitty", target=1, deck=(("WBM", 2, 30),))
    assert rules.deck_size == 110
    res = uno_sim.play_game(rules, G, seed=2, trace=True, engine=engine)
    assert Counter(ev(res, "round_start")[0]["deck"])["WBM"] == 2
