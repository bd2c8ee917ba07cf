"""Deck tables overridden by the user (counts per kind, values): `Rules(deck=...)`,
`--deck FILE.toml`, on both engines.  The rule is C1 (the deck) / C16 (values) with
the user's table in place of the printed one."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

import uno_sim
from engine_diff import compare_game
from specs import greedy
from uno_sim import Rules, arrange
from uno_sim.cards import deck_for
from uno_sim.rules import RulesError, load_deck_file

G = greedy()


def kind_counts(rules) -> Counter:
    d = deck_for(rules)
    return Counter(d.kinds[k].code for k in d.card_kind)


def test_c1_deck_override_counts_by_code_and_by_face():
    rules = Rules(deck={"count": {"W+4": 0, "*0": 2, "R7": 5}})
    counts = kind_counts(rules)
    assert counts["W+4"] == 0
    assert all(counts[f"{c}0"] == 2 for c in "RYGB")
    assert counts["R7"] == 5 and counts["Y7"] == 2
    assert deck_for(rules).size == 108 - 4 + 4 + 3


def test_c1_face_pattern_matches_colored_cards_only():
    counts = kind_counts(Rules(deck={"count": {"*+2": 0}}))
    assert all(counts[f"{c}+2"] == 0 for c in "RYGB")
    assert counts["W+4"] == 4 and counts["W"] == 4


def test_c1_later_entries_win():
    rules = Rules(deck=(("*5", 3, None), ("G5", 1, None)))
    counts = kind_counts(rules)
    assert counts["G5"] == 1 and counts["R5"] == 3


def test_no_override_is_the_printed_deck():
    assert deck_for(Rules(deck=())) is deck_for(Rules())
    assert deck_for(Rules(deck={"count": {}})) is deck_for(Rules())


def test_c16_overridden_values_score_in_both_engines(engine):
    rules = Rules(players=4, hand_size=1, deck={"value": {"W": 7, "*S": 1, "B9": 90}})
    deck = arrange(players=4, dealer=0, hands={1: ["R5"], 2: ["W"], 3: ["GS"], 0: ["B9"]},
                   starter="R3", hand_size=1, rules=rules)
    res = uno_sim.play_round(rules, G, deck=deck, dealer=0, engine=engine)
    end = [e for e in res.events if e["e"] == "round_end"][0]
    assert end["p"] == 1
    assert end["points"][1] == 7 + 1 + 90


def test_c1_removed_kind_never_appears(engine):
    rules = Rules(players=4, deck={"count": {"W+4": 0, "*+2": 0}})
    res = uno_sim.play_game(rules, "greedy", seed=3, trace=True, engine=engine)
    played = {e["card"] for e in res.events if e["e"] == "play"}
    assert played and not any(c in ("W+4",) or c.endswith("+2") for c in played)


@pytest.mark.parametrize("variant,deck", [
    ("classic", {"count": {"W+4": 0, "*0": 2, "*9": 3}, "value": {"W": 40, "*R": 30}}),
    ("classic", {"count": {"W": 12, "*S": 4}}),
    ("flip", {"value": {"W": 45, "DW+C": 80}, "count": {"*F": 1}}),
    ("flip", {"count": {"W+2": 8, "DW+C": 8}}),
])
def test_engines_agree_on_overridden_decks(variant, deck):
    for players in (2, 4, 7):
        rules = Rules(variant=variant, players=players, target=200, deck=deck)
        for game in range(20):
            pool = ["greedy(bluff=0.3,challenge=0.5)", "strategic", "random"] * 3
            compare_game(rules, pool[:players], seed=11, game=game)


# C17: the C engine counts a hand's points per distinct card value (at most 16 per
# side, csrc/table.c) and loops over the cards past that.  The classic deck has 11
# nonzero values (1-9, 20, 50); each of R1..Rn below gets a value of its own.
def _many_values(n_new):
    return {"value": {f"R{i}": 100 + i for i in range(1, n_new + 1)}}


@pytest.mark.parametrize("n_new,classes", [(5, 16), (6, 17), (9, 20)])
def test_c17_scores_past_the_value_classes_agree(n_new, classes):
    rules = Rules(players=4, target=300, deck=_many_values(n_new))
    kinds = deck_for(rules).kinds
    assert len({k.value for k in kinds if k.value}) == classes  # nonzero values
    for game in range(6):
        c = uno_sim.play_game(rules, "greedy", seed=21, game=game, engine="c")
        r = uno_sim.play_game(rules, "greedy", seed=21, game=game, engine="reference")
        assert c == r, f"game {game}"
    compare_game(rules, "greedy", seed=21, game=0)


def test_flip_override_keeps_both_sides_equal():
    rules = Rules(variant="flip", deck={"count": {"*F": 1}})
    d = deck_for(rules)
    assert d.size == 112 - 4  # two Flip cards per color become one, on each side
    light = Counter(d.kinds[k].code for k in d.card_kind)
    dark = Counter(d.kinds[k].code for k in d.dark_kind)
    assert light["RF"] == 1 and dark["TF"] == 1
    assert sum(light.values()) == sum(dark.values())


@pytest.mark.parametrize("variant,deck,message", [
    ("classic", {"count": {"X9": 1}}, "unknown card kind 'X9' for the classic deck"),
    ("classic", {"count": {"R5": -1}}, "invalid count of R5 -1"),
    ("classic", {"count": {"R5": 256}}, "invalid count of R5 256"),
    ("classic", {"value": {"W": "ten"}}, "invalid value of W 'ten'"),
    ("classic", {"value": {"W": 10**7}}, "invalid value of W 10000000: expected 0..1000000"),
    ("classic", {"colour": {"W": 1}}, "unknown table 'colour'"),
    ("classic", {"count": {f"*{n}": 0 for n in range(10)} | {"*S": 0, "*R": 0, "*+2": 0}},
     "too few to deal 4 hands of 7"),
    ("classic", {"count": {f"*{n}": 0 for n in range(10)} | {"*S": 0, "*R": 0, "W": 0,
                                                              "W+4": 30}},
     "cards can start a round (C5)"),
    ("flip", {"count": {"*SE": 1}}, "the light side has 112 cards and the dark side 108"),
    ("classic", {"count": {"W": 200}}, "at most 255"),
])
def test_impossible_decks_are_refused_with_one_line(variant, deck, message):
    with pytest.raises(RulesError) as exc:
        Rules(variant=variant, deck=deck)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_too_few_cards_for_the_players_and_hand_size():
    Rules(players=10, hand_size=10, deck={"count": {"W": 4}})
    with pytest.raises(RulesError, match="too few to deal 10 hands of 10"):
        Rules(players=10, hand_size=10, deck={"count": {"*9": 0}})


def test_deck_file_and_round_trip(tmp_path):
    f = tmp_path / "deck.toml"
    f.write_text('[count]\n"W+4" = 0\n"*0" = 2\n[value]\nW = 40\n')
    deck = load_deck_file(f)
    assert deck == (("W+4", 0, None), ("*0", 2, None), ("W", None, 40))
    rules = Rules(deck=deck)
    import json

    back = Rules.from_dict(json.loads(json.dumps(rules.to_dict())))
    assert back == rules and deck_for(back) is deck_for(rules)


def test_deck_file_errors(tmp_path):
    with pytest.raises(RulesError, match="cannot read deck file"):
        load_deck_file(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[count\n")
    with pytest.raises(RulesError, match="invalid deck file"):
        load_deck_file(bad)


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "uno_sim.cli", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_cli_deck_option_and_run_dir(tmp_path):
    f = tmp_path / "deck.toml"
    f.write_text('[count]\n"W+4" = 0\n')
    out = tmp_path / "run"
    r = _cli("run", "--games", "300", "--seed", "2", "--deck", str(f), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "deck (104 cards): W+4 count 0" in r.stdout
    r2 = _cli("merge", str(out))
    assert r2.returncode == 0, r2.stderr
    assert "deck (104 cards): W+4 count 0" in r2.stdout
    same = _cli("run", "--games", "300", "--seed", "2", "--rule", f"deck={f}")
    assert same.stdout.splitlines()[:8] == r.stdout.splitlines()[:8]


def test_cli_bad_deck_is_one_line(tmp_path):
    f = tmp_path / "deck.toml"
    f.write_text("[count]\nX9 = 1\n")
    r = _cli("run", "--games", "10", "--deck", str(f))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "unknown card kind 'X9'" in r.stderr
    assert "Traceback" not in r.stderr


def test_run_config_file_takes_a_deck(tmp_path):
    f = tmp_path / "deck.toml"
    f.write_text('[count]\n"W+4" = 0\n')
    by_name = tmp_path / "a.toml"
    by_name.write_text(f'games = 100\ndeck = "{f}"\n')
    inline = tmp_path / "b.toml"
    inline.write_text('games = 100\n[deck.count]\n"W+4" = 0\n')
    a = _cli("run", "--config", str(by_name))
    b = _cli("run", "--config", str(inline))
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert "deck (104 cards): W+4 count 0" in a.stdout
    assert a.stdout.splitlines()[:8] == b.stdout.splitlines()[:8]
