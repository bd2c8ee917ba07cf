"""Rules and policy specs: defaults, edition switches, validation messages."""

import pytest

from uno_sim import Rules, RulesError, parse_policy
from uno_sim.policies import seat_policies
from uno_sim.stats import wilson


def test_edition_sets_defaults_and_explicit_switch_wins():
    v = Rules(edition="vintage")
    assert (v.drawn_card, v.challenge, v.wd4_value, v.dealer_draw) == ("must", "vintage", 70, "redraw")
    m = Rules()
    assert (m.drawn_card, m.challenge, m.wd4_value, m.dealer_draw) == ("may", "modern", 50, "zero")
    assert Rules(edition="vintage", challenge="modern").challenge == "modern"
    assert v.replace(edition="modern").wd4_value == 50


@pytest.mark.parametrize("kw,needle", [
    ({"players": 11}, "players 11"), ({"players": 1}, "players 1"),
    ({"teams": True, "players": 5}, "players 5"), ({"teams": True, "players": 2}, "players 2"),
    ({"edition": "retro"}, "'retro'"), ({"drawn_card": "never"}, "'never'"),
    ({"scoring": "golf"}, "'golf'"), ({"target": 0}, "target 0"), ({"target": -5}, "target -5"),
    ({"variant": "uno-dos"}, "'uno-dos'"), ({"teams": True, "scoring": "lowest"}, "'lowest'"),
])
def test_invalid_rules_name_the_bad_value(kw, needle):
    with pytest.raises(RulesError, match=needle):
        Rules(**kw)


def test_policy_spec_parses_knobs_and_keeps_defaults():
    s = parse_policy("greedy(bluff=0.3, challenge=1,color=random)")
    assert s.knob("bluff") == 0.3 and s.knob("challenge") == 1.0 and s.knob("color") == "random"
    assert s.knob("catch") == 0.5
    assert str(parse_policy(str(s))) == str(s)


@pytest.mark.parametrize("spec,needle", [("smart", "'smart'"), ("greedy(x=1)", "'x'"),
                                         ("greedy(bluff=-0.1)", "'-0.1'"),
                                         ("greedy(bluff=abc)", "'abc'"), ("greedy(", "greedy(")])
def test_bad_policy_spec_names_the_value(spec, needle):
    with pytest.raises(RulesError, match=needle.replace("(", r"\(")):
        parse_policy(spec)


def test_seat_overrides():
    specs = seat_policies("greedy", 4, {2: "random"})
    assert [s.name for s in specs] == ["greedy", "greedy", "random", "greedy"]


def test_wilson_interval_known_values():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.40383, abs=1e-5) and hi == pytest.approx(0.59617, abs=1e-5)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.27753, abs=1e-5)


def test_share_ci_never_claims_certainty():
    from uno_sim.stats import share_ci
    m, lo, hi = share_ci([1.0] * 400)
    assert m == 1.0 and hi > 1 - 1e-12 and 0.98 < lo < 0.995  # Wilson, not [1, 1]
    m, lo, hi = share_ci([0.0, 1.0] * 50)
    assert m == 0.5 and lo < 0.41 and hi > 0.59  # the normal interval otherwise
