"""The variant registry (uno_sim/variants/) and the switch table of rules.py."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from uno_sim import engine as c_engine
from uno_sim import reference
from uno_sim.cards import COLOR_NAMES, color_names, deck_for
from uno_sim.rules import (COMMON_SWITCHES, RULE_KEYS, SWITCHES, Rules, RulesError,
                           check_switches, parse_rule_value)
from uno_sim.variants import (Switch, discover, unregister, variant_names, variant_of,
                              variant_switches, variants)

# Deck sizes and color 0 as they were before the registry (C1, F1, E1, H1, S1)
BEFORE = {"classic": (108, "red"), "flip": (112, "red"), "extreme": (112, "red"),
          "hello-kitty": (112, "pink"), "house-2018": (112, "red")}


def test_registry_lists_the_variants_in_order():
    assert variant_names()[:5] == ("classic", "flip", "extreme", "hello-kitty", "house-2018")


@pytest.mark.parametrize("name", list(BEFORE))
def test_every_variant_builds_its_deck(name):
    size, color0 = BEFORE[name]
    v = variant_of(name)
    deck = deck_for(Rules(variant=name))
    assert deck.size == size == v.deck_size == Rules(variant=name).deck_size
    assert deck.name == name and deck.sides == (2 if v.two_faced else 1)
    assert color_names(name)[0] == color0 and color_names(name)[1:] == COLOR_NAMES[1:]


def test_traits_replace_the_names():
    assert [v.name for v in variants() if v.two_faced] == ["flip"]
    assert [v.name for v in variants() if v.draw_source == "launcher"] == ["extreme"]
    assert Rules(variant="extreme").variant_spec.summary(Rules(variant="extreme"))[0].startswith(
        "launcher: model")
    assert Rules().variant_spec.summary(Rules()) == []


def test_switch_table_agrees_with_the_rules_fields():
    assert tuple(s.name for s in SWITCHES) == RULE_KEYS
    for f in dataclasses.fields(Rules):
        assert f.default == next(s.default for s in SWITCHES if s.name == f.name)
    for v in variants():
        for s in v.switches:
            assert s.owner == v.name
    assert "launcher  " in Rules.__doc__ and "F2" in Rules.__doc__


@pytest.mark.parametrize("doctor,needle", [
    (lambda t: t[:-1], "field 'flip_starter' of Rules has no switch"),
    (lambda t: t + (Switch(name="nosuch", kind="bool", default=False),),
     "switch 'nosuch' is no field of Rules"),
    (lambda t: t + (t[0],), "switch 'variant' is declared twice"),
    (lambda t: tuple(dataclasses.replace(s, default=5) if s.name == "target" else s
                     for s in t), "switch 'target' defaults to 5"),
    (lambda t: tuple(dataclasses.replace(s, kind="int") if s.name == "teams" else s
                     for s in t), "switch 'teams' is of kind 'int'"),
])
def test_a_switch_table_that_disagrees_with_rules_is_caught(doctor, needle):
    table = COMMON_SWITCHES + variant_switches()
    assert check_switches(table) == SWITCHES
    with pytest.raises(TypeError, match=needle):
        check_switches(doctor(tuple(SWITCHES)))


def test_unknown_or_misplaced_variant_switch_is_refused_in_one_line():
    with pytest.raises(RulesError) as err:
        parse_rule_value("launcher_speed", "3")
    assert "\n" not in str(err.value) and "unknown rule 'launcher_speed'" in str(err.value)
    for kw, needle in ((dict(exchange="shuffle"), "invalid exchange 'shuffle' for variant "
                        "'classic': only the house-2018 deck has those cards (S2, S3)"),
                       (dict(variant="extreme", custom_wilds="three"),
                        "invalid custom_wilds 'three' for variant 'extreme'"),
                       (dict(variant="hello-kitty", flip_starter="flip"),
                        "invalid flip_starter 'flip' for variant 'hello-kitty': only UNO Flip"),
                       (dict(variant="extreme", draw_until_playable=True),
                        "invalid draw_until_playable True for variant 'extreme': the launcher")):
        with pytest.raises(RulesError) as err:
            Rules(**kw)
        assert needle in str(err.value) and "\n" not in str(err.value)
    assert parse_rule_value("launcher_fire", "12") == 12
    assert parse_rule_value("seven_o", "on") is True


def test_switch_encodings_for_the_c_engine():
    r = Rules(variant="flip", flip_pairing="game", flip_starter="flip", stacking="draw4",
              jump_in=True)
    cfg = dict(c_engine._config(r))
    assert cfg["draw_source"] == 0 and cfg["repair"] == 1 and cfg["flip_starter"] == 1
    assert dict(c_engine._config(Rules(variant="extreme")))["draw_source"] == 1  # E2
    assert cfg["stacking"] == 2 and cfg["jump_in"] == 1 and cfg["players"] == 4
    assert cfg["launcher_burst"] == tuple(r.launcher_burst)
    assert set(cfg) == set(c_engine.CONFIG_FIELDS)


THROWAWAY = '''
    """A throwaway variant: classic UNO with every 0 doubled and no Wild Draw Four."""
    import dataclasses

    from uno_sim.variants import Variant
    from uno_sim.variants.classic import classic_kinds


    def kinds(wd4_value=50):
        out = []
        for k in classic_kinds(wd4_value):
            if k.code == "W+4":
                continue
            out.append(k if k.face != 0 else dataclasses.replace(k, count=2))
        return out


    VARIANT = Variant(name="{name}", order=99, title="UNO Test", rule="C1", kinds=kinds,
                      deck_fields=("wd4_value",), color_names=("rot", "gelb", "grün", "blau"))
'''


@pytest.fixture
def throwaway(tmp_path):
    name = f"test-{tmp_path.name}".replace("_", "-")
    (tmp_path / "zeros.py").write_text(textwrap.dedent(THROWAWAY).replace("{name}", name))
    found = discover(tmp_path)
    yield name, found
    unregister(name)


def test_the_registry_discovers_a_new_variant_module(throwaway):
    name, found = throwaway
    assert [v.name for v in found] == [name] and variant_names()[-1] == name
    rules = Rules(variant=name, players=3)
    deck = deck_for(rules)
    assert deck.size == 108 - 4 + 4 == rules.deck_size
    assert color_names(name)[0] == "rot"
    with pytest.raises(RulesError, match="invalid exchange 'swap2'"):
        Rules(variant=name, exchange="swap2")
    with pytest.raises(RulesError, match=f"invalid stacking 'draw4' for variant '{name}'"):
        Rules(variant=name, stacking="draw4")  # its deck has no WD4 (checked by effect)


def test_a_new_variant_plays_the_same_games_in_both_engines(throwaway):
    name, _ = throwaway
    rules = Rules(variant=name, players=3, target=200)
    for game in range(3):
        ref = reference.play_game(rules, "greedy", seed=5, game=game, trace=True)
        c = c_engine.play_game(rules, "greedy", seed=5, game=game, trace=True)
        assert c == ref
    assert any(e.get("card") in ("R0", "Y0", "G0", "B0") for e in ref.events)
    unregister(name)
    with pytest.raises(RulesError, match=f"invalid variant '{name}'"):
        Rules(variant=name)
