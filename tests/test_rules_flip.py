"""UNO Flip rules F1-F6 (docs/rules.md), one or more tests per rule ID, on both engines.

Scenarios are built with `uno_sim.arrange`, naming both faces of the cards that
matter (``"RF/T5"``: light Flip, dark teal 5); the order it returns also fixes
the pairing of the faces.  After a Flip the draw pile is turned over, so the
cards drawn next come from the *bottom* of the order: `deal(after_flip=...)`
puts them there.  Decisions are pinned with the greedy policy's knobs.
"""

from __future__ import annotations

from collections import Counter

import pytest

import uno_sim
from specs import greedy
from uno_sim import Rules, arrange
from uno_sim.trace import replay_lines




G = greedy()


def deal(players=3, hands=None, starter=None, draws=(), after_flip=(), hand_size=3, dealer=0,
         **switches):
    """(rules, deck order): `draws` come next from the top; `after_flip` are the next
    draws once the pile has been turned over (placed at the bottom)."""
    rules = Rules(variant="flip", players=players, hand_size=hand_size, **switches)
    order = arrange(players=players, dealer=dealer, hands=hands, starter=starter,
                    draws=list(draws) + list(after_flip), hand_size=hand_size, rules=rules)
    k = players * hand_size + 1 + len(draws)
    moved = order[k:k + len(after_flip)]
    del order[k:k + len(after_flip)]
    return rules, order + moved[::-1]


def run(engine, rules, deck, policies=G, dealer=0):
    return uno_sim.play_round(rules, policies, deck=deck, dealer=dealer, engine=engine)


def ev(res, kind):
    return [e for e in res.events if e["e"] == kind]


def turns(res):
    """The events after round_start, without the uno calls, as compact tuples."""
    out = []
    for e in res.events:
        if e["e"] in ("game_start", "round_start", "round_end", "uno"):
            continue
        out.append(tuple(v for k, v in e.items() if k != "hand"))
    return out


# --- F1 ------------------------------------------------------------------------

LIGHT = Counter({**{f"{c}{n}": 2 for c in "RYGB" for n in range(1, 10)},
                 **{f"{c}{a}": 2 for c in "RYGB" for a in ("+1", "R", "S", "F")},
                 "W": 4, "W+2": 4})
DARK = Counter({**{f"{c}{n}": 2 for c in "PTOV" for n in range(1, 10)},
                **{f"{c}{a}": 2 for c in "PTOV" for a in ("+5", "R", "SE", "F")},
                "DW": 4, "DW+C": 4})


def start_deck(engine, game=0, **switches):
    res = uno_sim.play_game(Rules(variant="flip", target=1, **switches), G, seed=3, game=game,
                            trace=True, engine=engine)
    return ev(res, "round_start")[0]["deck"]


def test_f1_deck_has_112_two_faced_cards(engine):
    deck = start_deck(engine)
    assert len(deck) == 112 and sum(LIGHT.values()) == sum(DARK.values()) == 112
    assert Counter(c.split("/")[0] for c in deck) == LIGHT
    assert Counter(c.split("/")[1] for c in deck) == DARK


def test_f1_pairing_fixed_by_the_deck_seed(engine):
    a, b = Counter(start_deck(engine, 0)), Counter(start_deck(engine, 1))
    assert a == b  # the same physical cards, dealt in another order
    assert Counter(start_deck(engine, 0, deck_seed=7)) != a


def test_f1_switch_repairs_every_game(engine):
    a = Counter(start_deck(engine, 0, flip_pairing="game"))
    b = Counter(start_deck(engine, 1, flip_pairing="game"))
    assert a != b
    for deck in (a, b):
        assert Counter(c.split("/")[0] for c in deck.elements()) == LIGHT
        assert Counter(c.split("/")[1] for c in deck.elements()) == DARK


# --- F2 ------------------------------------------------------------------------

def test_f2_play_starts_on_the_light_side_plus_one_starter(engine):
    rules, deck = deal(hands={1: ["B2/P3", "B3/O4", "B4/T5"], 2: ["R5/P6", "G2/P7", "G3/P8"],
                              0: ["Y5/T6", "Y6/T7", "Y7/T8"]},
                       starter="R+1/V7", draws=["G9/O9"])
    res = run(engine, rules, deck)
    start = ev(res, "round_start")[0]
    assert start["starter"] == "R+1"
    assert turns(res)[:3] == [("draw", 1, ["G9"], "draw_one"), ("skip", 1), ("play", 2, "R5")]


@pytest.mark.parametrize("starter", ["W+2", "RF"])
def test_f2_wild_draw_two_and_flip_starters_go_back(engine, starter):
    for seed in range(4):
        rules, deck = deal(starter=starter)
        res = uno_sim.play_round(rules, G, deck=deck, seed=seed, engine=engine)
        start = ev(res, "round_start")[0]
        assert start["returned"][0] == starter
        assert start["starter"] not in ("W+2", "RF", "YF", "GF", "BF")
        assert not ev(res, "flip") or ev(res, "play")


def test_f2_flip_starter_switch_turns_the_game_over(engine):
    """flip_starter=flip: the Flip starter turns the game to the dark side; its dark face
    (teal 7) is the starter, and the draw pile is turned over (its bottom card comes next)."""
    rules, deck = deal(hands={1: ["B2/O3", "B3/O4", "B4/P5"], 2: ["R5/T6", "G2/P7", "G3/P8"],
                              0: ["Y5/O6", "Y6/O7", "Y7/O8"]},
                       starter="RF/T7", after_flip=["G9/T1"], flip_starter="flip")
    res = run(engine, rules, deck)
    start = ev(res, "round_start")[0]
    assert start["starter"] == "T7" and start["returned"] == []
    assert turns(res)[:4] == [("flip", -1, "dark", "T7"), ("draw", 1, ["T1"], "cannot_play"),
                              ("play", 1, "T1"), ("play", 2, "T6")]


def test_f2_flip_starter_whose_dark_face_cannot_start_goes_back(engine):
    """The dark face Skip Everyone cannot start (F2): put back; the next card is read on the
    dark side, where play starts."""
    for seed in range(4):
        rules, deck = deal(starter="RF/PSE", flip_starter="flip")
        res = uno_sim.play_round(rules, G, deck=deck, seed=seed, engine=engine)
        start = ev(res, "round_start")[0]
        assert start["returned"][0] == "PSE"
        assert start["starter"][0] in "PTOV" or start["starter"] == "DW"
        assert turns(res)[0] == ("flip", -1, "dark", start["starter"])


def test_f2_flip_starter_turns_the_game_over_once(engine):
    """A card with a Flip on both faces flips once; its dark Flip goes back like WD4."""
    rules, deck = deal(starter="RF/TF", flip_starter="flip")
    res = run(engine, rules, deck)
    start = ev(res, "round_start")[0]
    assert start["returned"][0] == "TF" and start["starter"][0] in "PTOV" + "D"
    assert [e for e in res.events if e["e"] == "flip"][0]["p"] == -1


def test_f2_flip_starter_switch_needs_flip_cards():
    with pytest.raises(uno_sim.RulesError, match="invalid flip_starter 'flip' for variant "
                                                 "'classic': only UNO Flip has Flip cards"):
        Rules(flip_starter="flip")
    with pytest.raises(uno_sim.RulesError, match="invalid flip_starter 'dark'"):
        Rules(variant="flip", flip_starter="dark")


def test_f2_wild_starter_first_player_names_a_light_color(engine):
    rules, deck = deal(hands={1: ["B2/P3", "B3/O4", "G4/T5"]}, starter="W/V7")
    res = run(engine, rules, deck)
    assert turns(res)[:2] == [("color", 1, "B"), ("play", 1, "B3")]


# --- F3 ------------------------------------------------------------------------

HANDS = {1: ["RF/T5", "B2/P3", "Y3/O4"], 2: ["B5/T2", "B6/O3", "Y9/VF"],
         0: ["G5/P2", "G6/O1", "G7/T9"]}


def test_f3_flip_turns_the_discard_pile_over(engine):
    # Discards [R4/V7, RF/T5] turn into [RF/T5, R4/V7]: the starter's dark face
    # comes up; P2 flips back with VF: [B9/VF, R4/V7, RF/T5], the Flip card on top.
    rules, deck = deal(hands=HANDS, starter="R4/V7")
    res = run(engine, rules, deck)
    assert turns(res)[:4] == [("play", 1, "RF"), ("flip", 1, "dark", "V7"), ("play", 2, "VF"),
                              ("flip", 2, "light", "RF")]


def test_f3_draw_pile_and_hands_turn_over(engine):
    # After the flip P2 holds no purple and no 7: it draws the former bottom card, dark.
    hands = {**HANDS, 2: ["B5/T2", "B6/O3", "Y9/O8"]}
    rules, deck = deal(hands=hands, starter="R4/V7", draws=["Y1/P1"], after_flip=["G8/O9"])
    res = run(engine, rules, deck)
    assert turns(res)[:4] == [("play", 1, "RF"), ("flip", 1, "dark", "V7"),
                              ("draw", 2, ["O9"], "cannot_play"), ("pass", 2)]


def test_f3_matching_uses_the_active_side_only(engine):
    # P2's light faces are red (they would match R4) and its dark faces do not match V7.
    hands = {**HANDS, 2: ["R5/T2", "R6/O3", "R7/O8"]}
    rules, deck = deal(hands=hands, starter="R4/V7", after_flip=["G8/O9"])
    res = run(engine, rules, deck)
    assert turns(res)[2] == ("draw", 2, ["O9"], "cannot_play")


def test_f3_a_wild_coming_up_takes_no_effect_the_flipper_names_the_color(engine):
    hands = {**HANDS, 1: ["RF/T5", "B2/P3", "Y3/P4"]}
    rules, deck = deal(hands=hands, starter="R4/DW+C")
    res = run(engine, rules, deck)
    assert turns(res)[:3] == [("play", 1, "RF"), ("flip", 1, "dark", "DW+C"), ("color", 1, "P")]
    # The Wild Draw Color does nothing: P2 is not made to draw, it takes its turn (no pink: draws one)
    assert turns(res)[3] == ("draw", 2, [turns(res)[3][2][0]], "cannot_play")


# --- F4 ------------------------------------------------------------------------

def test_f4_plus_one(engine):
    rules, deck = deal(hands={1: ["R+1/P3", "B3/O4", "G4/T5"]}, starter="R4/V7",
                       draws=["Y8/O8"])
    res = run(engine, rules, deck)
    assert turns(res)[:3] == [("play", 1, "R+1"), ("draw", 2, ["Y8"], "draw_one"), ("skip", 2)]
    assert turns(res)[3][1] == 0


def test_f4_plus_five(engine):
    hands = {**HANDS, 2: ["B5/V+5", "B6/O3", "Y9/O8"]}
    after = ["G1/O1", "G2/O2", "G3/O3", "G4/O4", "G5/O5"]
    rules, deck = deal(hands=hands, starter="R4/V7", after_flip=after)
    res = run(engine, rules, deck)
    assert turns(res)[2:5] == [("play", 2, "V+5"),
                               ("draw", 0, ["O1", "O2", "O3", "O4", "O5"], "draw_five"),
                               ("skip", 0)]
    assert turns(res)[5][1] == 1


def test_f4_skip_everyone(engine):
    hands = {1: ["RF/T5", "B2/P3", "Y3/V4"], 2: ["B5/VSE", "B6/V1", "Y9/O8"],
             3: ["G5/P2", "G6/O1", "G7/T9"], 0: ["G8/P2", "G9/O1", "Y7/T9"]}
    rules, deck = deal(players=4, hands=hands, starter="R4/V7")
    res = run(engine, rules, deck)
    assert turns(res)[2:6] == [("play", 2, "VSE"), ("skip", 3), ("skip", 0), ("skip", 1)]
    assert turns(res)[6] == ("play", 2, "V1")


def test_f4_wild_draw_two_is_restricted(engine):
    rules, deck = deal(hands={1: ["W+2/P3", "R9/O4", "G4/T5"]}, starter="R4/V7")
    assert turns(run(engine, rules, deck))[0] == ("play", 1, "R9")


def test_f4_wild_draw_two_bluff_caught(engine):
    rules, deck = deal(hands={1: ["W+2/P3", "R9/O4", "G4/T5"]}, starter="R4/V7",
                       draws=["Y1/O1", "Y2/O2"])
    pols = [G, greedy(bluff=1), greedy(challenge=1)]
    res = run(engine, rules, deck, pols)
    assert turns(res)[:3] == [("play", 1, "W+2", "R", False), ("challenge", 2, 1, True),
                              ("draw", 1, ["Y1", "Y2"], "challenge")]
    assert turns(res)[3][:2] == ("play", 2)  # the victim plays its turn


def test_f4_wild_draw_two_innocent_challenger_draws_four(engine):
    rules, deck = deal(hands={1: ["W+2/P3", "G9/O4", "G8/T5"]}, starter="R4/V7",
                       draws=["Y1/O1", "Y2/O2", "Y3/O3", "Y4/O4"])
    res = run(engine, rules, deck, [G, G, greedy(challenge=1)])
    assert turns(res)[:4] == [("play", 1, "W+2", "G", True), ("challenge", 2, 1, False),
                              ("draw", 2, ["Y1", "Y2", "Y3", "Y4"], "challenge"), ("skip", 2)]


# P1 flips to the dark side (top V7); P2 holds no purple: its Wild Draw Color is legal.
WDC = {1: ["RF/T5", "B2/P3", "Y3/V4"], 2: ["B5/T2", "B6/O3", "B3/DW+C"],
       0: ["G5/P2", "G6/O1", "G7/T9"]}


def test_f4_wild_draw_color_draws_until_the_color(engine):
    rules, deck = deal(hands=WDC, starter="R4/V7",
                       after_flip=["Y1/O5", "Y2/DW", "Y4/T8", "Y5/T1"])
    res = run(engine, rules, deck)
    assert turns(res)[2:5] == [("play", 2, "DW+C", "T", True),
                               ("draw_until", 0, "T", ["O5", "DW", "T8"], "wild_draw_color"),
                               ("skip", 0)]
    assert turns(res)[5][1] == 1  # play goes on after the victim


def test_f4_wild_draw_color_bluff_caught_offender_draws_until_the_color(engine):
    hands = {**WDC, 2: ["B5/T2", "B6/V3", "B3/DW+C"]}
    rules, deck = deal(hands=hands, starter="R4/V7", after_flip=["Y1/O5", "Y4/T8"])
    res = run(engine, rules, deck, [greedy(challenge=1), G, greedy(bluff=1)])
    assert turns(res)[2:5] == [("play", 2, "DW+C", "T", False), ("challenge", 0, 2, True),
                               ("draw_until", 2, "T", ["O5", "T8"], "challenge")]
    assert turns(res)[5][:2] in (("play", 0), ("draw", 0))  # the victim plays its turn


def test_f4_wild_draw_color_innocent_challenger_draws_until_plus_two(engine):
    rules, deck = deal(hands=WDC, starter="R4/V7",
                       after_flip=["Y1/O5", "Y4/T8", "Y5/P5", "Y6/P6"])
    res = run(engine, rules, deck, [greedy(challenge=1), G, G])
    assert turns(res)[2:7] == [("play", 2, "DW+C", "T", True), ("challenge", 0, 2, False),
                               ("draw_until", 0, "T", ["O5", "T8"], "challenge"),
                               ("draw", 0, ["P5", "P6"], "challenge"), ("skip", 0)]


# --- F5 / F6 -------------------------------------------------------------------

def test_f5_light_values(engine):
    rules, deck = deal(players=2, hands={1: ["RS/P1", "RS/P2", "R5/P3"],
                                         0: ["G+1/T1", "W/T2", "W+2/T3"]}, starter="R4/V7")
    res = run(engine, rules, deck)
    end = ev(res, "round_end")[0]
    assert end["p"] == 1 and end["points"] == [0, 10 + 40 + 50]


def test_f5_dark_values_score_the_side_in_play(engine):
    hands = {1: ["RF/T5", "B1/VSE", "B2/V9"], 0: ["G1/P+5", "G2/TSE", "G3/OF"]}
    rules, deck = deal(players=2, hands=hands, starter="R4/V7", after_flip=["R1/O2"])
    res = run(engine, rules, deck)
    end = ev(res, "round_end")[0]
    # hand order on the dark side: Skip Everyone (30), then +5 and Flip (20; lower kind id
    # first), then the number
    assert end["hands"][0] == ["TSE", "P+5", "OF", "O2"]
    assert end["p"] == 1 and end["points"] == [0, 20 + 30 + 20 + 2]


def test_f3_f5_flip_as_last_card_scores_the_new_side(engine):
    rules, deck = deal(players=2, hand_size=1, hands={1: ["RF/T5"], 0: ["G1/DW+C"]},
                       starter="R4/V7")
    res = run(engine, rules, deck)
    end = ev(res, "round_end")[0]
    assert turns(res)[:2] == [("play", 1, "RF"), ("flip", 1, "dark", "V7")]
    assert end["points"] == [0, 60]


def test_f6_pending_draw_on_a_last_card_counts(engine):
    rules, deck = deal(hand_size=1, hands={1: ["R+1/P3"], 2: ["G1/P4"], 0: ["G2/P5"]},
                       starter="R4/V7", draws=["W+2/T1"])
    res = run(engine, rules, deck)
    assert turns(res)[:2] == [("play", 1, "R+1"), ("draw", 2, ["W+2"], "draw_one")]
    assert ev(res, "round_end")[0]["points"] == [0, 1 + 50 + 2, 0]


def test_f6_visible_information():
    from uno_sim.reference import Game
    from uno_sim.rng import Rng, key_from_seed
    rules, deck = deal(hands=HANDS, starter="R4/V7", draws=["Y1/P1"])
    table, order = uno_sim.reference.scenario_deck(rules, deck)
    g = Game(rules, G, Rng(key_from_seed(0), 0), deck=table)
    g.start_round(0, order)
    seen = g.visible_other_faces(1)
    assert sorted(seen) == [0, 2]
    # in seat 2's hand order (light side: Y9, B6, B5 by card priority)
    assert [k.code for k in seen[2]] == ["VF", "O3", "T2"]
    assert g.next_draw_other_face().code == "P1"
    assert g.other_face(g.hands[1][0]).code == "T5"


def test_replay_shows_flips_and_draw_until():
    rules, deck = deal(hands=WDC, starter="R4/V7",
                       after_flip=["Y1/O5", "Y2/DW", "Y4/T8", "Y5/T1"])
    lines = list(replay_lines(run("c", rules, deck).events))
    assert "P1 flips: play goes on on the dark side, V7 comes up" in lines
    assert "P0 draws until teal: O5 DW T8 (wild draw color)" in lines
