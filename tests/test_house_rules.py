"""House rules C-H1..C-H5 (docs/rules.md "House rules"), one or more tests per rule ID.

Each scenario deals a chosen deck order (`uno_sim.arrange`), plays one round on
both engines (the ``engine`` fixture) and asserts the events in order.  The
dealer is seat 0, so seat 1 plays first; greedy's knobs are pinned (specs.py),
and the new knobs `stack` and `jump_in` are at their greedy default 1 unless a
test sets them.
"""

from __future__ import annotations

import pytest

import uno_sim
from specs import greedy, pinned
from uno_sim import Rules, RulesError, arrange
from uno_sim.rules import parse_rule_value
from uno_sim.trace import replay_lines
from uno_sim.userpolicy import DRAW_ACTION
from uno_sim.variants.classic import classic_kinds

G = greedy()
FRAME = {"game_start", "round_start", "round_end", "game_end", "dealer_draw"}


def play(engine, hands, starter="R3", draws=(), players=4, hand_size=3, policies=G,
         dealer=0, variant="classic", **switches):
    rules = Rules(variant=variant, players=players, hand_size=hand_size, **switches)
    deck = arrange(players=players, dealer=dealer, hands=hands, starter=starter, draws=draws,
                   hand_size=hand_size, rules=rules)
    return uno_sim.play_round(rules, policies, deck=deck, dealer=dealer, engine=engine)


def moves(res, n=None, uno=False):
    """In-round events as tuples of their values (a challenge's hand left out)."""
    out = []
    for e in res.events:
        if e["e"] in FRAME or (e["e"] == "uno" and not uno):
            continue
        out.append((e["e"],) + tuple(v for k, v in e.items() if k not in ("e", "hand")))
    return out if n is None else out[:n]


def ev(res, kind):
    return [e for e in res.events if e["e"] == kind]


def end(res):
    return ev(res, "round_end")[0]


def seats(players, default=G, **by_seat):
    out = [default] * players
    for key, spec in by_seat.items():
        out[int(key[1:])] = spec
    return out


D8 = ["G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8"]
D10 = D8 + ["G9", "Y1"]

# ---------------------------------------------------------------------------
# C-H1 stacking
# ---------------------------------------------------------------------------

DRAW2_HANDS = {1: ["R+2", "R1", "R2"], 2: ["G+2", "B5", "B6"], 3: ["Y7", "Y8", "Y9"],
               0: ["G5", "B7", "B8"]}


@pytest.mark.parametrize("mode", ["draw2", "both"])
def test_ch1_draw_two_answered_with_a_draw_two_passes_on_the_sum(engine, mode):
    res = play(engine, DRAW2_HANDS, draws=D8[:4], stacking=mode)
    assert moves(res, 6) == [
        ("play", 1, "R+2"), ("stack", 2, 2), ("play", 2, "G+2"),
        ("draw", 3, D8[:4], "stack"), ("skip", 3), ("play", 0, "G5")]


@pytest.mark.parametrize("mode", ["none", "draw4"])
def test_ch1_draw_two_not_stackable_without_draw2(engine, mode):
    res = play(engine, DRAW2_HANDS, draws=D8[:2], stacking=mode)
    assert moves(res, 3) == [("play", 1, "R+2"), ("draw", 2, D8[:2], "draw_two"), ("skip", 2)]
    assert not ev(res, "stack")


def test_ch1_three_draw_twos_add_up_to_six(engine):
    hands = {**DRAW2_HANDS, 3: ["B+2", "Y8", "Y9"], 0: ["G5", "B7", "B8"]}
    res = play(engine, hands, draws=D8[:6], stacking="draw2")
    assert moves(res, 7) == [
        ("play", 1, "R+2"), ("stack", 2, 2), ("play", 2, "G+2"), ("stack", 3, 4),
        ("play", 3, "B+2"), ("draw", 0, D8[:6], "stack"), ("skip", 0)]


def test_ch1_stack_knob_0_takes_the_cards(engine):
    res = play(engine, DRAW2_HANDS, draws=D8[:2], stacking="both",
               policies=seats(4, s2=greedy(stack=0)))
    assert moves(res, 3) == [("play", 1, "R+2"), ("draw", 2, D8[:2], "draw_two"), ("skip", 2)]


WD4_HANDS = {1: ["W+4", "B1", "B2"], 2: ["W+4", "G5", "G6"], 3: ["Y7", "Y8", "Y9"],
             0: ["G7", "B7", "B8"]}


@pytest.mark.parametrize("mode", ["draw4", "both"])
def test_ch1_wd4_on_wd4_passes_on_eight(engine, mode):
    res = play(engine, WD4_HANDS, draws=D8, stacking=mode)
    assert moves(res, 5) == [
        ("play", 1, "W+4", "B", True), ("stack", 2, 4), ("play", 2, "W+4", "G", True),
        ("draw", 3, D8, "stack"), ("skip", 3)]


@pytest.mark.parametrize("mode", ["none", "draw2"])
def test_ch1_wd4_not_stackable_without_draw4(engine, mode):
    res = play(engine, WD4_HANDS, draws=D8[:4], stacking=mode)
    assert moves(res, 3) == [("play", 1, "W+4", "B", True), ("draw", 2, D8[:4], "wd4"),
                             ("skip", 2)]


def test_ch1_both_a_wd4_answers_a_draw_two(engine):
    hands = {**DRAW2_HANDS, 2: ["W+4", "B5", "B6"]}
    res = play(engine, hands, draws=D8[:6], stacking="both")
    assert moves(res, 5) == [
        ("play", 1, "R+2"), ("stack", 2, 2), ("play", 2, "W+4", "B", True),
        ("draw", 3, D8[:6], "stack"), ("skip", 3)]
    res = play(engine, hands, draws=D8[:2], stacking="draw2")  # not in draw2 mode
    assert moves(res, 2) == [("play", 1, "R+2"), ("draw", 2, D8[:2], "draw_two")]


def test_ch1_both_a_draw_two_never_answers_a_wd4(engine):
    hands = {**WD4_HANDS, 2: ["B+2", "G5", "G6"]}  # B+2 is playable on blue, not stackable
    res = play(engine, hands, draws=D8[:4], stacking="both")
    assert moves(res, 3) == [("play", 1, "W+4", "B", True), ("draw", 2, D8[:4], "wd4"),
                             ("skip", 2)]


def test_ch1_greedy_answers_with_its_highest_value_draw_card(engine):
    hands = {**DRAW2_HANDS, 2: ["G+2", "W+4", "B5"]}
    res = play(engine, hands, draws=D8[:6], stacking="both")
    assert moves(res, 3) == [("play", 1, "R+2"), ("stack", 2, 2), ("play", 2, "W+4", "G", True)]


def test_ch1_stacked_legal_wd4_challenged_by_its_victim_draws_the_sum_plus_two(engine):
    # seat 2 could challenge but stacks instead; seat 3 challenges the stacked WD4
    pol = seats(4, s2=greedy(challenge=1), s3=greedy(challenge=1))
    res = play(engine, WD4_HANDS, draws=D10, stacking="draw4", policies=pol)
    assert moves(res, 6) == [
        ("play", 1, "W+4", "B", True), ("stack", 2, 4), ("play", 2, "W+4", "G", True),
        ("challenge", 3, 2, False), ("draw", 3, D10, "challenge"), ("skip", 3)]
    assert res.seats["challenges"] == [0, 0, 0, 1]


def test_ch1_victim_not_stacking_may_challenge_as_c12(engine):
    pol = seats(4, s2=greedy(challenge=1, stack=0))
    res = play(engine, WD4_HANDS, draws=D8[:6], stacking="draw4", policies=pol)
    assert moves(res, 4) == [("play", 1, "W+4", "B", True), ("challenge", 2, 1, False),
                             ("draw", 2, D8[:6], "challenge"), ("skip", 2)]


def bluff_stacker(obs):
    """Stacks whatever it can, bluff or not; otherwise the first legal answer."""
    if obs.decision == "stack":
        return obs.actions[0]
    if obs.decision in ("play", "replacement"):
        legal = [a for a in obs.actions if a != DRAW_ACTION and not a.bluff]
        return legal[0] if legal else obs.actions[-1]
    if obs.decision == "color":
        return "G"
    if obs.decision == "call_uno":
        return True
    if obs.decision in ("challenge", "catch", "jump_in"):
        return False
    return obs.actions[0]


@pytest.mark.parametrize("challenge", ["modern", "vintage"])
def test_ch1_stacked_bluff_challenged_the_bluffer_draws_the_whole_stack(engine, challenge):
    hands = {**WD4_HANDS, 2: ["W+4", "B5", "G6"], 3: ["Y7", "G8", "Y9"]}
    pol = seats(4, s2=bluff_stacker, s3=greedy(challenge=1))
    res = play(engine, hands, draws=D8, stacking="draw4", policies=pol, challenge=challenge)
    assert moves(res, 6) == [
        ("play", 1, "W+4", "B", True), ("stack", 2, 4), ("play", 2, "W+4", "G", False),
        ("challenge", 3, 2, True), ("draw", 2, D8, "challenge"), ("play", 3, "G8")]


def test_ch1_stacking_with_the_last_card_wins_and_the_next_draws_the_sum(engine):
    hands = {1: ["B1"], 2: ["G+2"], 3: ["Y7"], 0: ["Y8"]}
    res = play(engine, hands, draws=["R+2"] + D8[:4], hand_size=1, stacking="draw2")
    assert moves(res, uno=True) == [
        ("draw", 1, ["R+2"], "cannot_play"), ("play", 1, "R+2"), ("uno", 1, True),
        ("stack", 2, 2), ("play", 2, "G+2"), ("draw", 3, D8[:4], "stack")]
    assert end(res)["p"] == 2 and end(res)["points"][2] == 1 + 7 + 8 + 1 + 2 + 3 + 4


def test_ch1_a_last_draw_card_cannot_be_answered(engine):
    res = play(engine, {1: ["R+2"], 2: ["G+2"]}, draws=D8[:2], hand_size=1, stacking="both")
    assert moves(res) == [("play", 1, "R+2"), ("draw", 2, D8[:2], "draw_two")]
    assert end(res)["p"] == 1


def test_ch1_two_players_the_stacker_plays_again(engine):
    hands = {1: ["R+2", "R5", "R6"], 0: ["G+2", "G7", "B2"]}
    res = play(engine, hands, draws=D8[:4], players=2, stacking="draw2")
    assert moves(res, 6) == [
        ("play", 1, "R+2"), ("stack", 0, 2), ("play", 0, "G+2"), ("draw", 1, D8[:4], "stack"),
        ("skip", 1), ("play", 0, "G7")]


def test_ch1_flip_plus_one_and_wild_draw_two_families(engine):
    hands = {1: ["R+1", "R1", "R2"], 2: ["G+1", "B5", "B6"], 0: ["Y7", "Y8", "Y9"]}
    res = play(engine, hands, players=3, draws=D8[:2], variant="flip", stacking="draw2")
    assert moves(res, 5) == [("play", 1, "R+1"), ("stack", 2, 1), ("play", 2, "G+1"),
                             ("draw", 0, D8[:2], "stack"), ("skip", 0)]
    hands = {1: ["W+2", "B1", "B2"], 2: ["W+2", "G5", "G6"], 0: ["Y7", "Y8", "Y9"]}
    res = play(engine, hands, players=3, draws=D8[:4], variant="flip", stacking="draw4")
    assert moves(res, 5) == [("play", 1, "W+2", "B", True), ("stack", 2, 2),
                             ("play", 2, "W+2", "G", True), ("draw", 0, D8[:4], "stack"),
                             ("skip", 0)]
    hands = {1: ["R+1", "R1", "R2"], 2: ["W+2", "G5", "G6"], 0: ["Y7", "Y8", "Y9"]}
    res = play(engine, hands, players=3, draws=D8[:3], variant="flip", stacking="both")
    assert moves(res, 4) == [("play", 1, "R+1"), ("stack", 2, 1),
                             ("play", 2, "W+2", "G", True), ("draw", 0, D8[:3], "stack")]


# ---------------------------------------------------------------------------
# C-H2 draw until playable
# ---------------------------------------------------------------------------

NOPLAY = {1: ["B1", "B2", "B4"], 2: ["G7", "G8", "G9"], 3: ["Y7", "Y8", "Y9"],
          0: ["B7", "B8", "B9"]}


@pytest.mark.parametrize("variant", ["classic", "flip"])
def test_ch2_draws_until_a_playable_card_then_plays_it(engine, variant):
    res = play(engine, NOPLAY, draws=["Y5", "G6", "R9"], draw_until_playable=True,
               variant=variant)
    assert moves(res, 2) == [("draw", 1, ["Y5", "G6", "R9"], "until_playable"),
                             ("play", 1, "R9")]


def test_ch2_the_drawn_card_rule_c8_applies_to_the_playable_card(engine):
    pol = seats(4, s1=greedy(play_drawn=0))
    res = play(engine, NOPLAY, draws=["Y5", "R9"], draw_until_playable=True, policies=pol)
    assert moves(res, 2) == [("draw", 1, ["Y5", "R9"], "until_playable"), ("pass", 1)]
    res = play(engine, NOPLAY, draws=["Y5", "R9"], draw_until_playable=True, policies=pol,
               drawn_card="must")
    assert moves(res, 2) == [("draw", 1, ["Y5", "R9"], "until_playable"), ("play", 1, "R9")]


def test_ch2_a_voluntary_draw_is_still_one_card(engine):
    hands = {**NOPLAY, 1: ["R1", "B1", "B2"]}
    # play_drawn=0: a seat that always draws and plays what it drew could keep a round
    # going for ever (the round must end for the test to see it)
    res = play(engine, hands, draws=["Y5", "G6", "R9"], draw_until_playable=True,
               policies=seats(4, s1=greedy(voluntary_draw=1, play_drawn=0)))
    assert moves(res, 2) == [("draw", 1, ["Y5"], "voluntary"), ("pass", 1)]


def test_ch2_stops_when_nothing_is_left_to_draw(engine):
    # 10 hands of 10 and the starter leave 7 cards, none playable; the discard pile holds
    # only the starter, so there is nothing to reshuffle (C15)
    hand = ["B1", "B2", "B4", "B5", "B6", "B7", "B8", "B9", "G1", "G2"]
    pile = ["G4", "G5", "G6", "G7", "G8", "G9", "Y1"]
    res = play(engine, {1: hand}, draws=pile, players=10, hand_size=10,
               draw_until_playable=True)
    assert moves(res, 2) == [("draw", 1, pile, "until_playable"), ("pass", 1)]


# ---------------------------------------------------------------------------
# C-H3 forced play
# ---------------------------------------------------------------------------

def test_ch3_a_player_holding_a_legal_card_cannot_draw(engine):
    hands = {**NOPLAY, 1: ["R1", "B1", "B2"]}
    pol = seats(4, s1=greedy(voluntary_draw=1))
    res = play(engine, hands, draws=["Y5"], policies=pol)
    assert moves(res, 1) == [("draw", 1, ["Y5"], "voluntary")]
    res = play(engine, hands, draws=["Y5"], policies=pol, forced_play=True)
    assert moves(res, 1) == [("play", 1, "R1")]


def test_ch3_a_playable_drawn_card_must_be_played(engine):
    pol = seats(4, s1=greedy(play_drawn=0))
    res = play(engine, NOPLAY, draws=["R9"], policies=pol)
    assert moves(res, 2) == [("draw", 1, ["R9"], "cannot_play"), ("pass", 1)]
    res = play(engine, NOPLAY, draws=["R9"], policies=pol, forced_play=True)
    assert moves(res, 2) == [("draw", 1, ["R9"], "cannot_play"), ("play", 1, "R9")]


def test_ch3_random_policy_never_draws_voluntarily(engine):
    rules = Rules(players=3, target=100, forced_play=True)
    pol = "random(play_drawn=0.5)"
    for g in range(6):
        events = uno_sim.play_game(rules, pol, seed=4, game=g, trace=True, engine=engine).events
        assert not [e for e in events if e["e"] == "draw" and e["reason"] == "voluntary"]
    free = uno_sim.play_game(rules.replace(forced_play=False), pol, seed=4, game=0, trace=True,
                             engine=engine).events
    assert [e for e in free if e["e"] == "draw" and e["reason"] == "voluntary"]


def test_ch3_user_policy_is_not_offered_the_draw_while_holding_a_legal_card():
    seen = {}
    for engine in ("reference", "c"):
        obs_list = []

        def user(obs, obs_list=obs_list):
            obs_list.append(obs)
            return bluff_stacker(obs)

        uno_sim.play_game(Rules(players=3, target=60, forced_play=True), [user, "greedy", "random"],
                          seed=2, game=0, engine=engine)
        seen[engine] = obs_list
    assert seen["reference"] == seen["c"]
    plays = [o for o in seen["c"] if o.decision == "play"]
    assert plays and all((DRAW_ACTION in o.actions) == all(a.bluff for a in o.actions
                                                           if a != DRAW_ACTION) for o in plays)


# ---------------------------------------------------------------------------
# C-H4 jump-in
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["classic", "flip"])
def test_ch4_identical_card_jumps_in_and_play_continues_after_the_jumper(engine, variant):
    hands = {1: ["R5", "B1", "B2"], 2: ["R7", "G1", "G2"], 3: ["R5", "Y1", "Y2"],
             0: ["R6", "G8", "G9"]}
    res = play(engine, hands, jump_in=True, variant=variant)
    assert moves(res, 4) == [("play", 1, "R5"), ("jump_in", 3, "R5"), ("play", 3, "R5"),
                             ("play", 0, "R6")]
    res = play(engine, hands, jump_in=True, variant=variant,
               policies=seats(4, s3=greedy(jump_in=0)))
    assert moves(res, 2) == [("play", 1, "R5"), ("play", 2, "R7")]
    res = play(engine, hands, variant=variant)  # switch off
    assert moves(res, 2) == [("play", 1, "R5"), ("play", 2, "R7")]


WILD_HANDS = {1: ["W", "B1", "B2"], 2: ["W", "G1", "G2"], 3: ["W", "Y1", "Y2"],
              0: ["Y6", "G8", "G9"]}


def test_ch4_the_first_in_play_order_jumps_first_and_jumps_chain(engine):
    res = play(engine, WILD_HANDS, jump_in=True)
    assert moves(res, 6) == [
        ("play", 1, "W", "B"), ("jump_in", 2, "W"), ("play", 2, "W", "G"),
        ("jump_in", 3, "W"), ("play", 3, "W", "Y"), ("play", 0, "Y6")]
    res = play(engine, WILD_HANDS, jump_in=True, policies=seats(4, s2=greedy(jump_in=0)))
    assert moves(res, 4) == [("play", 1, "W", "B"), ("jump_in", 3, "W"), ("play", 3, "W", "Y"),
                             ("play", 0, "Y6")]


def test_ch4_jump_order_follows_the_direction_after_a_reverse(engine):
    hands = {1: ["RR", "B1", "B2"], 2: ["RR", "G1", "G2"], 3: ["R6", "Y1", "Y2"],
             0: ["G7", "G8", "G9"]}
    res = play(engine, hands, jump_in=True)
    assert moves(res, 6) == [("play", 1, "RR"), ("reverse", 1, -1), ("jump_in", 2, "RR"),
                             ("play", 2, "RR"), ("reverse", 2, 1), ("play", 3, "R6")]


def test_ch4_jump_on_a_draw_two_hits_the_player_after_the_jumper(engine):
    hands = {1: ["R+2", "B1", "B2"], 2: ["G1", "G2", "G4"], 3: ["R+2", "Y1", "Y2"],
             0: ["B7", "B8", "B9"]}
    res = play(engine, hands, draws=D8[:4], jump_in=True)
    assert moves(res, 7) == [
        ("play", 1, "R+2"), ("draw", 2, D8[:2], "draw_two"), ("skip", 2), ("jump_in", 3, "R+2"),
        ("play", 3, "R+2"), ("draw", 0, D8[2:4], "draw_two"), ("skip", 0)]


def test_ch4_identical_wd4_jumps_only_when_legal(engine):
    hands = {1: ["W+4", "B1", "B2"], 2: ["G1", "G2", "G4"], 3: ["W+4", "Y1", "Y2"],
             0: ["G7", "G8", "G9"]}
    res = play(engine, hands, draws=D8, jump_in=True)
    assert moves(res, 7) == [
        ("play", 1, "W+4", "B", True), ("draw", 2, D8[:4], "wd4"), ("skip", 2),
        ("jump_in", 3, "W+4"), ("play", 3, "W+4", "Y", True), ("draw", 0, D8[4:], "wd4"),
        ("skip", 0)]
    hands[3] = ["W+4", "B7", "Y2"]  # it would be a bluff on blue: no jump
    res = play(engine, hands, draws=D8, jump_in=True)
    assert moves(res, 4) == [("play", 1, "W+4", "B", True), ("draw", 2, D8[:4], "wd4"),
                             ("skip", 2), ("play", 3, "B7")]


def test_ch4_jumper_says_uno_and_wins_with_a_jumped_last_card(engine):
    hands = {1: ["R5", "B1"], 2: ["R7", "G1"], 3: ["R5", "Y1"], 0: ["R6", "G8"]}
    res = play(engine, hands, hand_size=2, jump_in=True)
    assert moves(res, 5, uno=True) == [("play", 1, "R5"), ("uno", 1, True), ("jump_in", 3, "R5"),
                                       ("play", 3, "R5"), ("uno", 3, True)]
    res = play(engine, {1: ["B1"], 2: ["G7"], 3: ["R5"], 0: ["G8"]}, draws=["R5"], hand_size=1,
               jump_in=True)
    assert moves(res) == [("draw", 1, ["R5"], "cannot_play"), ("play", 1, "R5"),
                          ("jump_in", 3, "R5"), ("play", 3, "R5")]
    assert end(res)["p"] == 3 and end(res)["points"][3] == 1 + 7 + 8


def test_ch4_flip_no_jump_on_a_flip_card(engine):
    hands = {1: ["RF", "B1", "B2"], 2: ["RF", "G1", "G2"], 0: ["Y7", "Y8", "Y9"]}
    res = play(engine, hands, players=3, jump_in=True, variant="flip")
    first = moves(res, 3)
    assert first[0] == ("play", 1, "RF") and first[1][0] == "flip"
    assert not [m for m in first if m[0] == "jump_in"]


# ---------------------------------------------------------------------------
# C-H5 Seven-O
# ---------------------------------------------------------------------------

SEVEN = {1: ["B1"], 2: ["G1"], 0: ["R5"]}


@pytest.mark.parametrize("variant", ["classic", "flip"])
def test_ch5_seven_swaps_with_the_target_knob_most(engine, variant):
    res = play(engine, SEVEN, draws=["B2", "R7"], players=3, hand_size=1, seven_o=True,
               variant=variant, policies=greedy(target="most"))
    assert moves(res, uno=True) == [
        ("draw", 1, ["B2"], "cannot_play"), ("pass", 1), ("draw", 2, ["R7"], "cannot_play"),
        ("play", 2, "R7"), ("swap", 2, 1), ("play", 0, "R5")]
    # no UNO call: neither on the 7 (a new hand comes) nor by seat 1 receiving one card
    assert end(res)["hands"] == [[], ["G1"], ["B2", "B1"]]  # in hand order


@pytest.mark.parametrize("target", ["fewest", "next"])
def test_ch5_seven_target_fewest_and_next(engine, target):
    res = play(engine, SEVEN, draws=["B2", "R7", "Y2", "Y4"], players=3, hand_size=1,
               seven_o=True, policies=greedy(target=target))
    assert ev(res, "swap")[0] == {"e": "swap", "p": 2, "target": 0}


def test_ch5_seven_does_nothing_with_the_switch_off(engine):
    res = play(engine, SEVEN, draws=["B2", "R7", "Y2"], players=3, hand_size=1)
    assert not ev(res, "swap")


def test_ch5_seven_as_last_card_ends_the_round_without_swap(engine):
    res = play(engine, {1: ["R7"]}, players=3, hand_size=1, seven_o=True)
    assert moves(res) == [("play", 1, "R7")] and end(res)["p"] == 1


def test_ch5_zero_passes_every_hand_on_in_the_direction_of_play(engine):
    hands = {1: ["R0", "G0"], 2: ["B7", "B8"], 0: ["Y7", "Y8"]}
    res = play(engine, hands, players=3, hand_size=2, seven_o=True)
    assert moves(res, uno=True) == [("play", 1, "R0"), ("rotate", 1, 1),
                                    ("play", 2, "G0")]
    assert end(res)["hands"] == [["B8", "B7"], ["Y8", "Y7"], []]  # in hand order


def test_ch5_zero_passes_hands_to_the_right_after_a_reverse(engine):
    hands = {0: ["R0", "G0"], 1: ["B7", "B8"], 2: ["Y7", "Y8"]}
    res = play(engine, hands, starter="RR", players=3, hand_size=2, seven_o=True)
    assert moves(res, uno=True) == [("reverse", 0, -1), ("play", 0, "R0"), ("rotate", 0, -1),
                                    ("play", 2, "G0")]
    assert end(res)["hands"] == [["B8", "B7"], ["Y8", "Y7"], []]  # in hand order


# ---------------------------------------------------------------------------
# Switches, validation, trace, CLI
# ---------------------------------------------------------------------------

def test_house_switches_default_off_and_parse():
    r = Rules()
    assert (r.stacking, r.draw_until_playable, r.forced_play, r.jump_in, r.seven_o) == (
        "none", False, False, False, False)
    assert parse_rule_value("seven_o", "true") is True
    assert parse_rule_value("jump_in", "0") is False
    assert parse_rule_value("stacking", "both") == "both"


@pytest.mark.parametrize("kw,needle", [
    ({"stacking": "all"}, "invalid stacking 'all'"),
    ({"jump_in": "yes"}, "invalid jump_in 'yes'"),
    ({"seven_o": 1}, "invalid seven_o 1"),
    ({"forced_play": None}, "invalid forced_play None"),
])
def test_house_switch_values_are_validated(kw, needle):
    with pytest.raises(RulesError, match=needle):
        Rules(**kw)
    with pytest.raises(RulesError, match="invalid forced_play 'maybe'"):
        parse_rule_value("forced_play", "maybe")


def test_house_rules_need_the_cards_they_act_on(monkeypatch):
    """A deck without draw cards, 7s or 0s (as a variant may have) rejects the switches."""
    import uno_sim.cards as cards

    classic = cards.deck_for(Rules())
    kinds = [k for k in classic_kinds() if k.effect not in (cards.Effect.DRAW,)
             and k.face not in (0, 7)]
    bare = cards.build_deck("classic", kinds)
    monkeypatch.setattr(cards, "deck_for", lambda rules: bare)
    with pytest.raises(RulesError, match="invalid stacking 'draw2' for variant 'classic'.*"
                                         "no colored draw card"):
        Rules(stacking="draw2")
    with pytest.raises(RulesError, match="invalid stacking 'both'"):
        Rules(stacking="both")
    Rules(stacking="draw4")  # the WD4 is still there
    with pytest.raises(RulesError, match="invalid seven_o True .*no 7 or 0"):
        Rules(seven_o=True)
    assert classic.size == 108


def test_house_rules_check_the_cards_left_by_deck_overrides():
    with pytest.raises(RulesError, match="invalid stacking 'draw2' for variant 'classic'"):
        Rules(stacking="draw2", deck={"count": {"*+2": 0}})
    with pytest.raises(RulesError, match="invalid stacking 'draw4'.*no wild draw card"):
        Rules(stacking="draw4", deck={"count": {"W+4": 0}})
    with pytest.raises(RulesError, match="invalid seven_o True"):
        Rules(seven_o=True, deck={"count": {"*7": 0, "*0": 0}})
    Rules(seven_o=True, deck={"count": {"*7": 0}})  # the 0s are enough


def test_house_events_are_rendered(engine):
    res = play(engine, DRAW2_HANDS, draws=D8[:4], stacking="draw2")
    lines = "\n".join(replay_lines(res.events))
    assert "P2 stacks on the 2 cards pending" in lines and "(stack)" in lines
    res = play(engine, WILD_HANDS, jump_in=True)
    assert "P2 jumps in on W" in "\n".join(replay_lines(res.events))
    res = play(engine, SEVEN, draws=["B2", "R7"], players=3, hand_size=1, seven_o=True,
               policies=greedy(target="most"))
    assert "P2 swaps hands with P1" in "\n".join(replay_lines(res.events))
    res = play(engine, {1: ["R0", "G0"]}, players=3, hand_size=2, seven_o=True)
    assert "P1: every hand passes left" in "\n".join(replay_lines(res.events))
    res = play(engine, NOPLAY, draws=["Y5", "R9"], draw_until_playable=True)
    assert "(until playable)" in "\n".join(replay_lines(res.events))


def test_house_knobs_parse_and_user_decisions_match_on_both_engines():
    from uno_sim.policies import parse_policy

    spec = parse_policy("random(stack=0.25,jump_in=0)")
    assert spec.knob("stack") == 0.25 and spec.knob("jump_in") == 0
    assert parse_policy("greedy").knob("stack") == 1 and parse_policy("strategic").knob(
        "jump_in") == 1
    with pytest.raises(RulesError, match="invalid stack '2'"):
        parse_policy("greedy(stack=2)")
    rules = Rules(players=3, target=150, stacking="both", jump_in=True, seven_o=True,
                  draw_until_playable=True)
    seen = {}
    for engine in ("reference", "c"):
        obs = []

        def user(o, obs=obs):
            obs.append(o)
            if o.decision in ("stack", "jump_in"):
                return o.actions[o.randint(len(o.actions))]
            return bluff_stacker(o)

        res = uno_sim.play_game(rules, [user, "greedy", "random"], seed=8, game=0, trace=True,
                                engine=engine)
        seen[engine] = (res, obs)
    assert seen["reference"] == seen["c"]
    decisions = {o.decision for o in seen["c"][1]}
    assert {"stack", "jump_in", "target"} <= decisions
    stack_obs = [o for o in seen["c"][1] if o.decision == "stack"]
    assert all(o.pending >= 1 and o.actions[-1] == DRAW_ACTION for o in stack_obs)


def test_cli_run_with_house_rules(capsys):
    from uno_sim.cli import main

    assert main(["run", "--games", "200", "--seed", "1", "--rule", "stacking=both",
                 "--rule", "jump_in=true", "--rule", "seven_o=true"]) == 0
    out = capsys.readouterr().out
    assert "200 games" in out


def test_cli_rejects_a_bad_house_value_in_one_line(capsys):
    from uno_sim.cli import main

    assert main(["run", "--games", "5", "--rule", "stacking=sometimes"]) == 2
    err = capsys.readouterr().err.strip()
    assert "invalid stacking 'sometimes'" in err and len(err.splitlines()) == 1


def test_stack_answers_and_jump_ins_count_as_turns(engine):
    """A turn is one player's move: every play or pass, stack answers and jump-ins included."""
    rules = Rules(players=4, target=150, stacking="both", jump_in=True, seven_o=True)
    for g in range(4):
        res = uno_sim.play_game(rules, "random(stack=0.8,jump_in=0.8)", seed=5, game=g,
                                trace=True, engine=engine)
        kinds = [e["e"] for e in res.events]
        assert res.turns == kinds.count("play") + kinds.count("pass") - kinds.count("take_back")
        assert "stack" in kinds or g < 3


def test_cli_policies_lists_the_house_knobs(capsys):
    from uno_sim.cli import main

    assert main(["policies"]) == 0
    out = capsys.readouterr().out
    assert "stack " in out and "jump_in " in out and "C-H1" in out and "C-H4" in out


def test_house_rules_on_uno_extreme():
    """Extreme has no Draw Two-like card nor WD4 (stacking is refused), no draw pile to draw
    from until playable (E3: one press), 7s but no 0s (Seven-O swaps only)."""
    with pytest.raises(RulesError, match="invalid stacking 'draw2' for variant 'extreme'"):
        Rules(variant="extreme", stacking="draw2")
    with pytest.raises(RulesError, match="invalid stacking 'both' for variant 'extreme'"):
        Rules(variant="extreme", stacking="both")
    with pytest.raises(RulesError, match="invalid draw_until_playable True for variant 'extreme'"):
        Rules(variant="extreme", draw_until_playable=True)
    rules = Rules(variant="extreme", players=4, target=200, seven_o=True, jump_in=True,
                  forced_play=True)
    for g in range(3):
        a = uno_sim.play_game(rules, "random(jump_in=0.7)", seed=6, game=g, trace=True)
        b = uno_sim.play_game(rules, "random(jump_in=0.7)", seed=6, game=g, trace=True,
                              engine="reference")
        assert a == b and a.events == b.events
        kinds = {e["e"] for e in a.events}
        assert "rotate" not in kinds and ("swap" in kinds or g < 2)
