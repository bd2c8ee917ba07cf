"""Hand-exchange deck rules S1-S3 (docs/rules.md, text 004, variant house-2018), on both engines.

One or more tests per rule ID, per exchange mode and per customizable rule.
Scenarios come from a chosen deck order (`uno_sim.arrange`); decisions are
pinned with the greedy policy's knobs (a wild only when no colored card
plays; the color held most, ties in R, Y, G, B order).
"""

from __future__ import annotations

from collections import Counter

import pytest

import uno_sim
from specs import greedy
from uno_sim import Rules, RulesError, arrange
from uno_sim.cards import CUSTOM_RULES, deck_for

G = greedy()


def deal(players=3, hands=None, starter=None, draws=(), hand_size=3, dealer=0, **switches):
    rules = Rules(variant="house-2018", players=players, hand_size=hand_size, **switches)
    return rules, arrange(players=players, dealer=dealer, hands=hands, starter=starter,
                          draws=list(draws), hand_size=hand_size, rules=rules)


def run(engine, rules, deck, policies=G, dealer=0):
    return uno_sim.play_round(rules, policies, deck=deck, dealer=dealer, engine=engine)


def ev(res, kind):
    return [e for e in res.events if e["e"] == kind]


def turns(res, uno=False):
    """The events after round_start (without the uno calls unless `uno`), as tuples."""
    skip = ("game_start", "round_start", "round_end") + (() if uno else ("uno",))
    return [tuple(v for k, v in e.items() if k != "hand") for e in res.events
            if e["e"] not in skip]


CLASSIC = Counter({**{f"{c}0": 1 for c in "RYGB"},
                   **{f"{c}{n}": 2 for c in "RYGB" for n in range(1, 10)},
                   **{f"{c}{a}": 2 for c in "RYGB" for a in ("S", "R", "+2")},
                   "W": 4, "W+4": 4})


# --- S1 ------------------------------------------------------------------------

def test_s1_deck_is_the_classic_108_plus_exchange_and_three_customizable(engine):
    rules = Rules(variant="house-2018", target=1)
    res = uno_sim.play_game(rules, G, seed=3, trace=True, engine=engine)
    deck = ev(res, "round_start")[0]["deck"]
    assert len(deck) == 112 == rules.deck_size
    assert Counter(deck) == CLASSIC + Counter(
        {"WX": 1, "W:extra_turn": 1, "W:draw_three": 1, "W:seven": 1})


@pytest.mark.parametrize("custom,size", [("three", 110), ("seven,seven", 111),
                                         ("draw_color, wilds_down ,three", 112)])
def test_s1_one_to_three_customizable_wilds_per_copy(engine, custom, size):
    rules = Rules(variant="house-2018", custom_wilds=custom, target=1)
    res = uno_sim.play_game(rules, G, seed=5, trace=True, engine=engine)
    deck = Counter(ev(res, "round_start")[0]["deck"])
    assert sum(deck.values()) == size == rules.deck_size
    names = [n.strip() for n in custom.split(",")]
    assert {c: n for c, n in deck.items() if c.startswith("W:")} == {
        f"W:{n}": names.count(n) for n in names}


def test_s1_values_40_and_deck_cache_keys_on_the_rules():
    a = deck_for(Rules(variant="house-2018", custom_wilds="three,three,three"))
    b = deck_for(Rules(variant="house-2018"))
    assert a is not b and a is deck_for(Rules(variant="house-2018", custom_wilds="three,three,three"))
    values = {k.code: k.value for k in a.kinds}
    assert values["WX"] == 40 and values["W:three"] == 40 and values["W+4"] == 50
    assert {k.code: k.value for k in deck_for(Rules(variant="house-2018",
                                                    edition="vintage")).kinds}["W+4"] == 70


# --- S2: swap (the printed French rule) ----------------------------------------

def test_s2_swap_names_the_color_then_swaps_with_the_chosen_opponent(engine):
    # P1 cannot follow R3: plays the exchange wild, names green (B5/G6 tie -> G), aims at
    # the next opponent (target=next) and takes P2's hand; P2 then plays G6, once P1's
    rules, deck = deal(hands={1: ["WX", "B5", "G6"], 2: ["Y1", "Y2", "Y7"],
                              0: ["Y4", "Y5", "Y6"]}, starter="R3")
    res = run(engine, rules, deck, policies=greedy(target="next"))
    assert turns(res)[:3] == [("play", 1, "WX", "G"), ("exchange", 1, 2), ("play", 2, "G6")]


@pytest.mark.parametrize("target,seat", [("most", 2), ("fewest", 0), ("next", 2)])
def test_s2_swap_target_follows_the_target_knob(engine, target, seat):
    # dealer P2: P0 plays R7 first (4 -> 3 cards), then P1 plays the exchange wild with
    # P2 at 4 cards and P0 at 3
    rules, deck = deal(hands={1: ["WX", "B5", "G6", "B8"], 2: ["Y1", "Y2", "Y8", "G1"],
                              0: ["R7", "Y4", "Y5", "Y6"]}, starter="R3", hand_size=4,
                       dealer=2)
    res = run(engine, rules, deck, policies=[G, greedy(target=target), G], dealer=2)
    assert turns(res)[0] == ("play", 0, "R7")
    assert ev(res, "exchange")[0] == {"e": "exchange", "p": 1, "target": seat}


def test_s2_swap_user_policy_gets_the_target_decision(engine):
    seen = []

    def pol(obs):
        if obs.decision == "target":
            seen.append((obs.card, obs.actions))
            return obs.actions[-1]
        if obs.decision == "play":
            return next((a for a in obs.actions if a.kind == "play"), obs.actions[-1])
        return obs.actions[0]

    rules, deck = deal(hands={1: ["WX", "B5", "G6"]}, starter="R3")
    res = run(engine, rules, deck, policies=[G, pol, G])
    assert seen[0] == ("WX", (2, 0))
    assert ev(res, "exchange")[0]["target"] == 0


def test_s2_no_uno_call_on_the_exchange_wild(engine):
    # P1 plays WX as its second-to-last card and would forget UNO: no call is asked for,
    # nobody can catch it; P2 receives a one-card hand without an UNO call either
    rules, deck = deal(hands={1: ["WX", "B5"], 2: ["Y1", "Y2"], 0: ["Y4", "Y5"]},
                       starter="R3", hand_size=2)
    pols = [greedy(catch=1), greedy(forget_uno=1, target="next"), greedy(catch=1)]
    res = run(engine, rules, deck, policies=pols)
    assert turns(res, uno=True) == [("play", 1, "WX", "B"), ("exchange", 1, 2),
                                    ("play", 2, "B5")]  # P2 goes out with P1's last card
    assert ev(res, "round_end")[0]["p"] == 2


def test_s2_as_starter_first_player_names_the_color_nothing_exchanged(engine):
    rules, deck = deal(hands={1: ["B5", "B6", "G6"]}, starter="WX")
    res = run(engine, rules, deck)
    assert turns(res)[:2] == [("color", 1, "B"), ("play", 1, "B6")]
    assert not ev(res, "exchange")


def test_s2_as_last_card_the_round_ends_without_exchange(engine):
    rules, deck = deal(hands={1: ["WX"], 2: ["Y9"], 0: ["G2"]}, starter="R3", hand_size=1)
    res = run(engine, rules, deck)
    assert turns(res) == [("play", 1, "WX", "R")]
    assert ev(res, "round_end")[0]["points"][1] == 11


# --- S2: shuffle (the English printing, exchange=shuffle) ----------------------

def test_s2_shuffle_gathers_shuffles_and_deals_from_the_players_left(engine):
    rules, deck = deal(hands={1: ["WX", "B5", "G6"], 2: ["Y1", "Y2", "Y7"],
                              0: ["Y4", "Y5", "Y6"]}, starter="R3", exchange="shuffle")
    res = run(engine, rules, deck)
    t = turns(res)
    assert t[0] == ("play", 1, "WX", "G")
    sh = ev(res, "shuffle_hands")[0]
    assert sh["p"] == 1 and not ev(res, "exchange")
    # 8 cards dealt one at a time from P1's left: P2, P0, P1, P2, P0, P1, P2, P0
    assert [len(h) for h in sh["hands"]] == [3, 2, 3]
    assert Counter(c for h in sh["hands"] for c in h) == Counter(
        ["B5", "G6", "Y1", "Y2", "Y7", "Y4", "Y5", "Y6"])


def test_s2_shuffle_uses_the_table_stream_not_the_policies(engine):
    rules, deck = deal(hands={1: ["WX", "B5", "G6"]}, starter="R3", exchange="shuffle")
    a = ev(run(engine, rules, deck), "shuffle_hands")[0]
    b = ev(run(engine, rules, deck, policies=[greedy(color="random"), G, G]),
           "shuffle_hands")[0]
    assert a == b


# --- S3: each customizable rule ------------------------------------------------

def custom(rule, **kw):
    return dict(custom_wilds=rule, **kw)


def test_s3_draw_color_next_draws_until_the_named_color_keeps_the_turn(engine):
    rules, deck = deal(hands={1: ["W:draw_color", "B5", "G6"], 2: ["Y1", "Y2", "Y7"]},
                       starter="R3", draws=["R1", "B2", "W", "G3"], **custom("draw_color"))
    res = run(engine, rules, deck)
    assert turns(res)[:3] == [("play", 1, "W:draw_color", "G"),
                              ("draw_until", 2, "G", ["R1", "B2", "W", "G3"], "custom_color"),
                              ("play", 2, "G3")]


def test_s3_wilds_down_others_put_their_wilds_under_the_top_card(engine):
    rules, deck = deal(hands={1: ["W:wilds_down", "B5", "G6"], 2: ["W", "Y2", "W+4"],
                              0: ["W", "W+4", "W"]}, starter="R3", **custom("wilds_down"))
    res = run(engine, rules, deck)
    t = turns(res)
    # P0 held only wilds: its first in hand order stays (W and W+4 are both worth 50;
    # the lower kind id, W, comes first), the others go down in hand order
    assert t[:3] == [("play", 1, "W:wilds_down", "G"), ("put_down", 2, ["W", "W+4"]),
                     ("put_down", 0, ["W", "W+4"])]
    assert t[3][:2] in (("draw", 2), ("play", 2))  # the color named stays active
    end = ev(res, "round_end")
    assert not end or "W" not in end[0]["hands"][2]


def test_s3_draw_three_next_player_unable_to_play_draws_three_and_loses_the_turn(engine):
    rules, deck = deal(hands={1: ["W:draw_three", "B5", "G6"], 2: ["Y1", "Y2", "Y7"]},
                       starter="R3", draws=["R1", "R2", "R4"], **custom("draw_three"))
    res = run(engine, rules, deck)
    assert turns(res)[:4] == [("play", 1, "W:draw_three", "G"),
                              ("draw", 2, ["R1", "R2", "R4"], "draw_three"), ("skip", 2),
                              turns(res)[3]]
    assert turns(res)[3][1] == 0


def test_s3_draw_three_next_player_able_to_play_draws_nothing(engine):
    rules, deck = deal(hands={1: ["W:draw_three", "B5", "G6"], 2: ["Y1", "Y2", "G7"]},
                       starter="R3", **custom("draw_three"))
    res = run(engine, rules, deck)
    assert turns(res)[:2] == [("play", 1, "W:draw_three", "G"), ("play", 2, "G7")]


def test_s3_extra_turn_the_player_plays_again(engine):
    rules, deck = deal(hands={1: ["W:extra_turn", "B5", "G6"]}, starter="R3",
                       **custom("extra_turn"))
    res = run(engine, rules, deck)
    assert turns(res)[:3] == [("play", 1, "W:extra_turn", "G"), ("extra_turn", 1),
                              ("play", 1, "G6")]


def test_s3_seven_next_player_draws_up_to_seven(engine):
    rules, deck = deal(hands={1: ["W:seven", "B5", "G6"]}, starter="R3",
                       draws=["R1", "R2", "R4", "R5"], **custom("seven"))
    res = run(engine, rules, deck)
    assert turns(res)[:3] == [("play", 1, "W:seven", "G"),
                              ("draw", 2, ["R1", "R2", "R4", "R5"], "hand_size"),
                              turns(res)[2]]
    assert turns(res)[2][1] == 2  # not skipped


def test_s3_seven_next_player_discards_down_to_seven_highest_values_first(engine):
    hand2 = ["Y1", "Y2", "G7", "YS", "Y3", "W", "Y4", "Y5", "Y6"]
    rules, deck = deal(hands={1: ["W:seven", "B5", "B6", "B7", "B8", "B9", "B4", "B3", "B2"],
                              2: hand2}, starter="R1", hand_size=9, **custom("seven"))
    res = run(engine, rules, deck)
    assert turns(res)[:2] == [("play", 1, "W:seven", "B"), ("put_down", 2, ["W", "YS"])]


def test_s3_seven_user_policy_chooses_the_discards(engine):
    asked = []

    def pol(obs):
        if obs.decision == "discard":
            asked.append((obs.to_discard, len(obs.actions)))
            return obs.actions[0]
        if obs.decision == "play":
            return next((a for a in obs.actions if a.kind == "play"), obs.actions[-1])
        return obs.actions[0]

    hand2 = ["Y1", "Y2", "G7", "YS", "Y3", "W", "Y4", "Y5", "Y6"]
    rules, deck = deal(hands={1: ["W:seven", "B5", "B6", "B7", "B8", "B9", "B4", "B3", "B2"],
                              2: hand2}, starter="R1", hand_size=9, **custom("seven"))
    res = run(engine, rules, deck, policies=[G, G, pol])
    assert asked == [(2, 9), (1, 8)]
    # index 0 each time: the first card in hand order (card priority), W then YS
    assert ev(res, "put_down")[0] == {"e": "put_down", "p": 2, "cards": ["W", "YS"]}


def test_s3_three_everyone_draws_or_discards_to_exactly_three(engine):
    rules, deck = deal(hands={1: ["W:three", "B5", "B6", "G7", "B8"],
                              2: ["Y1", "Y2"], 0: ["Y4", "Y5", "Y6", "Y7", "R9"]},
                       starter="R3", hand_size=5, draws=["G1"], **custom("three"))
    res = run(engine, rules, deck)
    # in play order from P1: P1 (4 -> 3), P2 (5 -> 3), P0 (5 -> 3); P2's hand is
    # the 5 dealt (Y1 Y2 and 3 filler cards)
    t = turns(res)
    assert t[0] == ("play", 1, "W:three", "B")
    assert t[1] == ("put_down", 1, ["B8"])
    assert t[2][:2] == ("put_down", 2) and len(t[2][2]) == 2
    assert t[3] == ("put_down", 0, ["R9", "Y7"])


def test_s3_three_short_hands_draw_up(engine):
    rules, deck = deal(hands={1: ["W:three", "B5"], 2: ["Y1", "Y2"], 0: ["Y4", "Y5"]},
                       starter="R3", hand_size=2, draws=["G1", "G2", "G3", "G4", "G5"],
                       **custom("three"))
    res = run(engine, rules, deck, policies=greedy())
    t = turns(res)
    assert t[:4] == [("play", 1, "W:three", "B"), ("draw", 1, ["G1", "G2"], "hand_size"),
                     ("draw", 2, ["G3"], "hand_size"), ("draw", 0, ["G4"], "hand_size")]


@pytest.mark.parametrize("rule", CUSTOM_RULES)
def test_s3_as_starter_first_player_names_the_color_no_rule(engine, rule):
    rules, deck = deal(hands={1: ["B5", "B6", "G6"]}, starter=f"W:{rule}", **custom(rule))
    res = run(engine, rules, deck)
    assert turns(res)[:2] == [("color", 1, "B"), ("play", 1, "B6")]


def test_s3_last_card_only_the_draws_happen_and_count(engine):
    rules, deck = deal(hands={1: ["W:seven"], 2: ["Y9"], 0: ["G2"]}, starter="R3",
                       hand_size=1, draws=["B1", "B2", "B3", "B4", "B5", "B6"],
                       **custom("seven"))
    res = run(engine, rules, deck)
    assert turns(res) == [("play", 1, "W:seven", "R"),
                          ("draw", 2, ["B1", "B2", "B3", "B4", "B5", "B6"], "hand_size")]
    assert ev(res, "round_end")[0]["points"][1] == 9 + 21 + 2


@pytest.mark.parametrize("rule", ["wilds_down", "extra_turn", "draw_three"])
def test_s3_last_card_without_draws_ends_the_round_at_once(engine, rule):
    rules, deck = deal(hands={1: [f"W:{rule}"], 2: ["W"], 0: ["G2"]}, starter="R3",
                       hand_size=1, **custom(rule))
    res = run(engine, rules, deck)
    assert turns(res) == [("play", 1, f"W:{rule}", "R")]
    assert ev(res, "round_end")[0]["points"][1] == 52


# --- config ------------------------------------------------------------------

@pytest.mark.parametrize("value,needle", [
    ("seven,bogus", "'bogus'"), ("", "''"), ("seven,seven,seven,seven", "1 to 3"),
    (42, "42")])
def test_custom_wilds_bad_names_are_one_line_errors(value, needle):
    with pytest.raises(RulesError) as e:
        Rules(variant="house-2018", custom_wilds=value)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_exchange_bad_value_is_an_error():
    with pytest.raises(RulesError, match="invalid exchange 'trade'"):
        Rules(variant="house-2018", exchange="trade")


def test_custom_wilds_list_is_canonical():
    assert Rules(variant="house-2018", custom_wilds=["seven", "three"]).custom_wilds == \
        "seven,three"
    assert Rules(variant="house-2018", custom_wilds=" seven , three").custom_wilds == \
        "seven,three"


@pytest.mark.parametrize("switches", [
    {"edition": "vintage"}, {"scoring": "elimination", "target": 200},
    {"scoring": "lowest", "target": 200}, {"players": 4, "teams": True},
    {"players": 6, "hand_size": 10}, {"exchange": "shuffle", "custom_wilds": "three,seven"}])
def test_every_classic_switch_plays(engine, switches):
    kw = {"players": 3, **switches}
    res = uno_sim.play_game(Rules(variant="house-2018", **kw), "strategic", seed=4,
                            trace=True, engine=engine)
    assert res.rounds >= 1 and res.events[-1]["e"] == "game_end"


def test_s1_deck_overrides_apply_to_the_new_wilds(engine):
    rules = Rules(variant="house-2018", custom_wilds="three,three", target=1,
                  deck=(("W:three", None, 60), ("WX", 0, None)))
    assert rules.deck_size == 110
    assert {k.code: k.value for k in deck_for(rules).kinds}["W:three"] == 60
    res = uno_sim.play_game(rules, G, seed=2, trace=True, engine=engine)
    deck = Counter(ev(res, "round_start")[0]["deck"])
    assert deck["W:three"] == 2 and "WX" not in deck


def test_replay_renders_the_new_events():
    from uno_sim.trace import describe
    assert describe({"e": "exchange", "p": 1, "target": 3}) == "P1 swaps hands with P3"
    assert describe({"e": "shuffle_hands", "p": 0, "hands": [["R1"], ["W", "G2"], []]}) == (
        "P0 shuffles all hands and deals them out again (P0:1 P1:2 cards)")
    assert describe({"e": "put_down", "p": 2, "cards": ["W", "W+4"]}) == (
        "P2 puts down W W+4 (under the top card)")
    assert describe({"e": "extra_turn", "p": 2}) == "P2 plays an extra turn"
    assert describe({"e": "draw", "p": 2, "cards": ["R1"], "reason": "hand_size"}) == (
        "P2 draws R1 (hand size)")
