"""The search players' `voids` knob (docs/policies.md "Voids"): the opponents' draws of
the round (C8: a player who cannot play draws) read against each sampled state.

A state whose hand for the drawer, as it stood at the draw, held a card it could have
played contradicts that draw; under `voids=w` it is kept with probability w per draw it
contradicts, else dealt again (32 candidates at most, each counted as a sample)."""
import numpy as np
import pytest

from uno_sim.engine import play_games
from uno_sim.policies import parse_policy
from uno_sim.rules import Rules, RulesError
from uno_sim.userpolicy import DRAW_ACTION

SPEC = "ismcts(iterations=30,value=round{})"


def _drawer(obs):
    """Draws every turn it may, plays nothing it drew: it holds playable cards."""
    if obs.decision == "play":
        return DRAW_ACTION if DRAW_ACTION in obs.actions else obs.actions[0]
    return False if obs.decision == "play_drawn" else obs.actions[0]


def _stats(spec, other, games=3):
    cols = play_games(Rules(players=2), [spec, other], seed=8, first_game=0, n_games=games)
    searched, fallback, samples, dropped = cols["search_stats"][:, 0].sum(axis=0)
    return cols, searched, samples


def test_voids_one_is_off_and_the_default():
    """voids=1 (the default) reads no draw: the same games as without the knob; voids=0
    deals states again, and so plays other games."""
    base = _stats(SPEC.format(""), "greedy")[0]
    off = _stats(SPEC.format(",voids=1"), "greedy")[0]
    on = _stats(SPEC.format(",voids=0"), "greedy")[0]
    assert all(np.array_equal(base[k], off[k]) for k in ("turns", "winner", "scores"))
    assert not np.array_equal(base["turns"], on["turns"])
    assert parse_policy("ismcts").knob("voids") == 1.0


def test_a_draw_with_playable_cards_contradicts_nearly_every_state():
    """C8 read: an opponent that draws every turn holding cards it could play contradicts
    almost every state dealt to it, so under voids=0 nearly every state takes all 32
    candidates (the last kept); against greedy, which draws only when it cannot play, a
    state is dealt again only now and then."""
    _, searched_off, samples_off = _stats(SPEC.format(""), _drawer)
    _, searched_on, samples_on = _stats(SPEC.format(",voids=0"), _drawer)
    per_off, per_on = samples_off / searched_off, samples_on / searched_on
    assert per_on > 16 * per_off, (per_off, per_on)
    _, searched_off, samples_off = _stats(SPEC.format(""), "greedy")
    _, searched_on, samples_on = _stats(SPEC.format(",voids=0"), "greedy")
    per_off, per_on = samples_off / searched_off, samples_on / searched_on
    assert 1.02 * per_off < per_on < 8 * per_off, (per_off, per_on)


def test_voids_between_keeps_some_contradicting_states():
    """voids=w keeps a contradicting state with probability w per draw: at 0.5 fewer
    candidates are dealt than at 0 against the drawer, more than with the knob off."""
    _, s0, n0 = _stats(SPEC.format(",voids=0"), _drawer)
    _, s5, n5 = _stats(SPEC.format(",voids=0.5"), _drawer)
    _, s1, n1 = _stats(SPEC.format(""), _drawer)
    assert n1 / s1 < n5 / s5 < n0 / s0


@pytest.mark.parametrize("bad", ["-0.1", "1.5", "x"])
def test_voids_out_of_range_is_refused(bad):
    with pytest.raises(RulesError, match="voids"):
        parse_policy(f"ismcts(voids={bad})")
