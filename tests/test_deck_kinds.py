"""New card kinds defined by a deck file (`[kind.CODE]` tables, docs/rules.md "New card
kinds"): composed from the effect opcodes the engines already have, played identically by
both engines.  The rules are C1 (the deck), C5 (starters), C6 (matching by symbol), C7
(restricted wilds), C10 (draw cards), C12 (the challenge) with the designer's table in
place of the printed one."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import uno_sim
from engine_diff import compare_game
from specs import greedy
from uno_sim import Rules, arrange
from uno_sim.cards import FACE_HOUSE, Effect, Starter, deck_for
from uno_sim.rules import RulesError, load_deck_file

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "house-card.toml"
G = greedy()

HOUSE = {"kind": {"W+6": {"wild": True, "draw": 6, "restricted": True, "value": 50,
                          "count": 2},
                  "SR": {"colored": True, "skip": True, "value": 20, "count": 2}}}
# every effect a pile deck can compose, a few copies each
MANY = {"kind": {"+3": {"colored": True, "draw": 3, "count": 1},
                 "STAR": {"colored": True, "value": 15, "count": 1},
                 "SA": {"colored": True, "skip_all": True, "count": 1},
                 "RV": {"colored": True, "reverse": True, "count": 1},
                 "W+C": {"wild": True, "draw_until_color": True, "restricted": True,
                         "count": 2},
                 "WF3": {"wild": True, "fewest_draw": 3, "count": 2},
                 "WSW": {"wild": True, "swap_hands": True, "count": 2},
                 "W+1": {"wild": True, "draw": 1, "count": 2},
                 "WR": {"wild": True, "restricted": True, "count": 1}},
        "count": {"*+3": 2}}
EXTREME = {"kind": {"H3": {"colored": True, "hit": 3, "count": 1},
                    "DX": {"colored": True, "discard_all": True, "value": 40, "count": 1},
                    "WH1": {"wild": True, "hit": 1, "count": 2}}}
POLICIES = ["greedy(bluff=0.3,challenge=0.5)", "random", "greedy", "strategic"]


def kind_counts(rules) -> Counter:
    d = deck_for(rules)
    return Counter(d.kinds[k].code for k in d.card_kind)


# ---------------------------------------------------------------------------
# The table the deck file builds (C1)
# ---------------------------------------------------------------------------

def test_c1_new_kinds_join_the_deck_with_their_own_faces():
    rules = Rules(deck=HOUSE)
    d = deck_for(rules)
    counts = kind_counts(rules)
    assert d.size == 108 + 2 + 8
    assert counts["W+6"] == 2 and all(counts[f"{c}SR"] == 2 for c in "RYGB")
    w6 = d.kinds[d.kind_of_code("W+6")]
    assert (w6.color, w6.effect, w6.amount, w6.restricted, w6.starter) == (
        -1, Effect.WILD_DRAW, 6, True, Starter.RETURN)
    faces = {d.kinds[d.kind_of_code(f"{c}SR")].face for c in "RYGB"}
    assert faces == {FACE_HOUSE + 1} and w6.face == FACE_HOUSE  # above every printed face
    assert max(k.face for k in deck_for(Rules()).kinds) < FACE_HOUSE


def test_c1_count_and_value_tables_name_the_new_codes():
    rules = Rules(deck=HOUSE | {"count": {"*SR": 3, "W+6": 1}, "value": {"RSR": 5}})
    counts = kind_counts(rules)
    assert counts["W+6"] == 1 and counts["YSR"] == 3
    d = deck_for(rules)
    assert d.kinds[d.kind_of_code("RSR")].value == 5
    assert d.kinds[d.kind_of_code("GSR")].value == 20


def test_example_file_and_json_round_trip():
    deck = load_deck_file(EXAMPLE)
    rules = Rules(deck=deck)
    assert deck_for(rules).size == 116
    back = Rules.from_dict(json.loads(json.dumps(rules.to_dict())))
    assert back == rules and back.deck == rules.deck
    assert deck_for(back) is deck_for(rules)
    # the normalized form is its own normal form, defaults written out
    assert Rules(deck=rules.deck).deck == rules.deck
    assert Rules(deck={"kind": {"X": {"wild": True}}}).deck == (
        ("X", (("wild", True), ("value", 50), ("count", 1))),)


def test_starter_follows_the_effect_and_may_be_put_back():
    d = deck_for(Rules(deck=MANY))
    by = {k.code: k for k in d.kinds}
    assert by["R+3"].starter == Starter.PLAY and by["RSA"].starter == Starter.RETURN
    assert by["W+C"].starter == Starter.RETURN and by["WSW"].starter == Starter.PLAY
    d2 = deck_for(Rules(deck={"kind": {"Z": {"colored": True, "starter": "return"}}}))
    assert d2.kinds[d2.kind_of_code("RZ")].starter == Starter.RETURN


# ---------------------------------------------------------------------------
# Both engines, event for event
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("policy", POLICIES[:3])
def test_engines_agree_on_the_house_deck(players, policy):
    rules = Rules(players=players, target=200, deck=load_deck_file(EXAMPLE))
    for game in range(50):
        pool = [policy, POLICIES[(game + 1) % 4]] * players
        compare_game(rules, pool[:players], seed=5, game=game)


@pytest.mark.parametrize("variant,deck,switches", [
    ("classic", MANY, {}),
    ("classic", HOUSE, {"stacking": "both", "jump_in": True}),
    ("classic", MANY, {"edition": "vintage", "seven_o": True}),
    ("hello-kitty", HOUSE, {}),
    ("house-2018", MANY, {"exchange": "shuffle"}),
    ("extreme", EXTREME, {}),
])
def test_engines_agree_on_every_composition(variant, deck, switches):
    for players in (2, 4):
        rules = Rules(variant=variant, players=players, target=200, deck=deck, **switches)
        for game in range(12):
            pool = ["greedy(bluff=0.3,challenge=0.5)", "strategic", "random"] * 2
            compare_game(rules, pool[game % 3:game % 3 + players], seed=9, game=game)


# ---------------------------------------------------------------------------
# Scenarios on a chosen deck order
# ---------------------------------------------------------------------------

def _round(engine, hands, starter, draws=(), policies=G, **switches):
    hand_size = max(len(h) for h in hands.values())
    rules = Rules(players=4, hand_size=hand_size, deck=HOUSE, **switches)
    deck = arrange(players=4, dealer=0, hands=hands, starter=starter, draws=draws,
                   hand_size=hand_size, rules=rules)
    res = uno_sim.play_round(rules, policies, deck=deck, dealer=0, engine=engine)
    return [e for e in res.events if e["e"] in ("play", "draw", "skip", "challenge")]


def _short(e):
    if e["e"] == "play":
        return ("play", e["p"], e["card"]) + ((e["legal"],) if "legal" in e else ())
    if e["e"] == "draw":
        return ("draw", e["p"], len(e["cards"]), e["reason"])
    if e["e"] == "challenge":
        return ("challenge", e["p"], e["target"], e["bluff"])
    return (e["e"], e["p"])


SIX = ["B4", "B5", "B6", "B7", "B8", "B9", "Y4", "Y5"]


def test_c10_w6_next_player_draws_6_and_loses_the_turn(engine):
    hands = {1: ["W+6", "G5", "G9"], 2: ["R7", "B1", "B2"], 3: ["G7", "Y1", "Y2"],
             0: ["Y3", "Y6", "Y7"]}
    got = [_short(e) for e in _round(engine, hands, "R3", SIX)][:4]
    assert got == [("play", 1, "W+6", True), ("draw", 2, 6, "wd4"), ("skip", 2),
                   ("play", 3, "G7")]


def test_c12_bluffed_w6_challenged_offender_draws_6(engine):
    hands = {1: ["W+6", "R5", "G9"], 2: ["R7", "B1", "B2"], 3: ["G7", "Y1", "Y2"],
             0: ["Y3", "Y6", "Y7"]}
    pols = [G, greedy(bluff=1), greedy(challenge=1), G]
    got = [_short(e) for e in _round(engine, hands, "R3", SIX, policies=pols)][:4]
    assert got == [("play", 1, "W+6", False), ("challenge", 2, 1, True),
                   ("draw", 1, 6, "challenge"), ("play", 2, "R7")]


def test_c12_legal_w6_challenged_challenger_draws_8(engine):
    hands = {1: ["W+6", "G5", "G9"], 2: ["R7", "B1", "B2"], 3: ["G7", "Y1", "Y2"],
             0: ["Y3", "Y6", "Y7"]}
    pols = [G, G, greedy(challenge=1), G]
    got = [_short(e) for e in _round(engine, hands, "R3", SIX, policies=pols)][:4]
    assert got == [("play", 1, "W+6", True), ("challenge", 2, 1, False),
                   ("draw", 2, 8, "challenge"), ("skip", 2)]


def test_c6_c9_new_skip_matches_its_own_symbol_in_any_color(engine):
    hands = {1: ["RSR", "B1", "B2"], 2: ["R7", "B3", "B4"], 3: ["GSR", "Y1", "Y2"],
             0: ["Y3", "Y6", "Y7"]}
    got = [_short(e) for e in _round(engine, hands, "R3")][:4]
    # GSR is playable on RSR by symbol only (face >= 32: the C table's per-card path)
    assert got == [("play", 1, "RSR"), ("skip", 2), ("play", 3, "GSR"), ("skip", 0)]


def test_c5_w6_starter_is_put_back(engine):
    hands = {s: [f"{c}{n}" for n in (1, 2, 3)] for s, c in enumerate("RYGB")}
    rules = Rules(players=4, hand_size=3, deck=HOUSE)
    for seed in range(3):
        deck = arrange(players=4, dealer=0, hands=hands, starter="W+6", hand_size=3,
                       rules=rules)
        res = uno_sim.play_round(rules, G, deck=deck, dealer=0, seed=seed, engine=engine)
        rs = [e for e in res.events if e["e"] == "round_start"][0]
        assert rs["returned"][0] == "W+6" and rs["starter"] != "W+6"


# ---------------------------------------------------------------------------
# Refusals: one line naming the bad value
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("variant,kinds,message", [
    ("classic", {"X": {"colored": True, "skip": True, "reverse": True}},
     "skip and reverse together"),
    ("classic", {"X": {"colored": True, "restricted": True}},
     "invalid restricted of kind 'X': only a wild can be restricted"),
    ("classic", {"X": {"wild": True, "draw": 2, "swap_hands": True}},
     "draw and swap_hands together"),
    ("classic", {"X": {"colored": True, "draw": 2, "skip_all": True}},
     "draw and skip_all together"),
    ("classic", {"X": {"colored": True, "draw": 0}}, "invalid draw 0 of kind 'X': expected 1..20"),
    ("classic", {"X": {"wild": True, "draw": 21}}, "invalid draw 21 of kind 'X': expected 1..20"),
    ("classic", {"X": {"wild": True, "draw": True}}, "invalid draw True of kind 'X'"),
    ("classic", {"X": {"colored": True, "swap_hands": True}},
     "invalid swap_hands of kind 'X': it needs wild = true"),
    ("classic", {"X": {"wild": True, "skip": True}}, "invalid skip of kind 'X': it needs colored"),
    ("classic", {"X": {"colored": True, "hit": 2}},
     "invalid hit of kind 'X': it needs the launcher"),
    ("classic", {"X": {"colored": True, "discard_all": True}},
     "invalid discard_all of kind 'X': it needs the launcher"),
    ("classic", {"5": {"colored": True}}, "invalid kind code '5': R5 is already a card"),
    ("classic", {"W+4": {"wild": True}}, "W+4 is already a card"),
    ("classic", {"W 6": {"wild": True}}, "invalid kind code 'W 6'"),
    ("classic", {"R/7": {"wild": True}}, "invalid kind code 'R/7'"),
    ("classic", {"*X": {"wild": True}}, "invalid kind code '*X'"),
    ("flip", {"X": {"wild": True}}, "the flip deck is two-faced"),
    ("classic", {"X": {"wild": True, "colour": "red"}}, "unknown key 'colour' in kind 'X'"),
    ("classic", {"X": {"value": 3}}, "expected exactly one of wild = true"),
    ("classic", {"X": {"wild": True, "colored": True}}, "expected exactly one of wild"),
    ("classic", {"X": {"wild": True, "draw": 4, "starter": "play"}},
     "invalid starter 'play' of kind 'X': a WILD_DRAW card cannot start a round (C5)"),
    ("classic", {"X": {"wild": True, "value": -1}}, "invalid value -1 of kind 'X'"),
    ("classic", {"X": {"wild": True, "count": 300}}, "invalid count 300 of kind 'X'"),
    ("classic", {"X": {"colored": True, "skip": "yes"}}, "invalid skip 'yes' of kind 'X'"),
    ("classic", {"X": 3}, "invalid kind 'X': expected a table"),
])
def test_impossible_kinds_are_refused_with_one_line(variant, kinds, message):
    with pytest.raises(RulesError) as exc:
        Rules(variant=variant, deck={"kind": kinds})
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_kind_defined_twice_and_too_many_cards_are_refused():
    entry = ("X", (("wild", True),))
    with pytest.raises(RulesError, match="invalid kind 'X': defined twice"):
        Rules(deck=(entry, entry))
    with pytest.raises(RulesError, match="at most 255"):
        Rules(deck={"kind": {"X": {"colored": True, "count": 40}}})


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def _cli(*args):
    return subprocess.run([sys.executable, "-m", "uno_sim.cli", *args], capture_output=True,
                          text=True)


def test_cli_runs_the_example_house_deck(tmp_path):
    out = tmp_path / "run"
    r = _cli("run", "--deck", str(EXAMPLE), "--games", "200", "--seed", "4", "--out", str(out))
    assert r.returncode == 0, r.stderr
    line = ("deck (116 cards): W+6 new (wild, draw 6, restricted, value 50, count 2), "
            "SR new (colored, skip, value 20, count 2 per color), W+4 count 2")
    assert line in r.stdout
    merged = _cli("merge", str(out))  # the manifest keeps the new kinds
    assert merged.returncode == 0, merged.stderr
    assert line in merged.stdout


def test_cli_bad_kind_is_one_line(tmp_path):
    f = tmp_path / "deck.toml"
    f.write_text('[kind.X]\ncolored = true\nskip = true\nreverse = true\n')
    r = _cli("run", "--games", "10", "--deck", str(f))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "skip and reverse together" in r.stderr


# ---------------------------------------------------------------------------
# C3: a plain new kind is not a number card in the dealer draw
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dealer_draw", ["zero", "redraw"])
def test_c3_a_plain_new_kind_counts_as_an_action_card(engine, dealer_draw):
    # STAR: a colored kind with no effect and a face above 31; twelve copies per color so
    # that the dealer draw meets it often
    deck = {"kind": {"STAR": {"colored": True, "value": 15, "count": 12}}}
    rules = Rules(players=2, deck=deck, dealer_draw=dealer_draw, target=1)
    seen = 0
    for game in range(200):
        res = uno_sim.play_game(rules, "greedy", seed=5, game=game, trace=True, engine=engine)
        ev = next(e for e in res.events if e["e"] == "dealer_draw")
        codes = [c for _, c in ev["draws"]]
        if not any(c.endswith("STAR") for c in codes):
            continue
        seen += 1
        if dealer_draw == "zero":
            # one draw per seat and tie round: the last two draws decide, and a STAR (0)
            # never beats a number above 0
            (s0, c0), (s1, c1) = ev["draws"][-2:]
            if c0.endswith("STAR") and not c1.endswith("STAR"):
                assert ev["dealer"] == s1 or c1[1:] == "0", ev
            if c1.endswith("STAR") and not c0.endswith("STAR"):
                assert ev["dealer"] == s0 or c0[1:] == "0", ev
        else:  # a STAR goes back under the pack: every seat's last draw is a number
            last = {s: c for s, c in ev["draws"]}
            assert not any(c.endswith("STAR") for c in last.values()), ev
    assert seen > 20
