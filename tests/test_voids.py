"""The search players' `voids`, `colors` and `bluffs` knobs (docs/policies.md "What the
opponents' draws and colors show"): the opponents' draws (C8: a player who cannot play
draws), named colors (C9) and Wild Draw Fours (C7, C12) of the round read against each
sampled state.

A state whose hand for the drawer, as it stood at the draw, held a card it could have
played contradicts that draw; one whose hand for a namer held fewer cards of the named
color than of another contradicts the color; one whose hand for a player of an
unchallenged Wild Draw Four held a card of the color then active makes it a bluff.
Under `voids=w` (`colors=w`, `bluffs=w`) a state is kept with probability w per draw
(color, bluff), else dealt again (32 candidates at most, each counted as a sample)."""
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


def _least_namer(obs):
    """Plays as it can (greedy's first legal card), names the color it holds the fewest of
    (C9), so its named colors contradict most hands."""
    if obs.decision == "play":
        legal = [a for a in obs.actions if a.kind == "play" and not a.bluff]
        return legal[0] if legal else DRAW_ACTION
    if obs.decision == "color":
        held = [c[0] for c in obs.hand if c[0] in "RYGB"]
        return min("RYGB", key=held.count)
    return obs.actions[0]


def _most_namer(obs):
    """The same player naming the color it holds the most of, as greedy does."""
    if obs.decision == "color":
        held = [c[0] for c in obs.hand if c[0] in "RYGB"]
        return max("RYGB", key=held.count)
    return _least_namer(obs)


def _wild4er(obs):
    """Plays a Wild Draw Four whenever it holds one, a bluff or not (C7), else as
    _least_namer; names the color it holds the most of."""
    if obs.decision == "play":
        fours = [a for a in obs.actions if a != DRAW_ACTION and a.card == "W+4"]
        if fours:
            return fours[0]
    return _most_namer(obs)


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


def test_named_colors_are_read():
    """C9 read: under colors=0 a state whose namer held more of another color is dealt
    again, so a namer of the color it holds the most of (its true hands agree) makes a few
    states dealt again, one that names the color it holds the fewest of (hardly any hand
    agrees) several times more; colors=1 (the default) reads nothing."""
    spec = SPEC.format(",colors=0")
    per = {}
    for name, other in (("least", _least_namer), ("most", _most_namer)):
        _, searched, samples = _stats(spec, other, games=4)
        _, searched_off, samples_off = _stats(SPEC.format(""), other, games=4)
        per[name] = (samples / searched) / (samples_off / searched_off)
    assert per["least"] > 3 * per["most"] and per["most"] > 1.05, per
    base = _stats(SPEC.format(""), _least_namer)[0]
    off = _stats(SPEC.format(",colors=1"), _least_namer)[0]
    assert all(np.array_equal(base[k], off[k]) for k in ("turns", "winner", "scores"))


@pytest.fixture(scope="module")
def classic_net(tmp_path_factory):
    """A small random network for the classic deck (biased toward playing cards): the
    machinery's test network, not a player."""
    from uno_sim.players import netfile
    from uno_sim.players.net import game_layout

    kinds, _, flip, extreme = game_layout(Rules(players=2))
    net = netfile.Net.new(kinds, 10, flip, extreme, [32, 16], seed=3)
    b = net.policy[1].copy()
    b[:kinds] += 2.0
    net.policy = (net.policy[0], b)
    path = str(tmp_path_factory.mktemp("nets") / "classic.unonet")
    netfile.write(path, net)
    return path


def test_resample_deals_again_instead_of_weighing(classic_net):
    """infer with resample=1 keeps each state with probability its likelihood over the
    highest (dealt again otherwise, as voids): against the drawer more candidates are dealt
    than states searched; resample=0 (the default) weighs the states as before, dealing
    none again; and with c above 0, which takes no weights, it is refused unless
    resample=1."""
    spec = "ismcts(iterations=30,value=round,infer=1,weights={})".format(classic_net)
    _, searched, samples = _stats(spec, _drawer)
    _, searched_rs, samples_rs = _stats(spec[:-1] + ",resample=1)", _drawer)
    assert samples_rs / searched_rs > 2 * samples / searched, (samples, samples_rs)
    assert parse_policy("ismcts").knob("resample") == 0
    with pytest.raises(RulesError, match="infer"):
        parse_policy("ismcts(c=0.7,infer=1)")
    assert parse_policy("ismcts(c=0.7,infer=1,resample=1)").knob("resample") == 1


def test_bluffs_one_is_off_and_the_default():
    """bluffs=1 (the default) reads no Wild Draw Four: the same games as without it."""
    base = _stats(SPEC.format(""), _wild4er)[0]
    off = _stats(SPEC.format(",bluffs=1"), _wild4er)[0]
    assert all(np.array_equal(base[k], off[k]) for k in ("turns", "winner", "scores"))
    assert parse_policy("ismcts").knob("bluffs") == 1.0


def test_a_seat_told_nobody_bluffs_challenges_less():
    """C7/C12 read: a uniformly dealt hand mostly holds a card of the active color, so the
    default search takes many Wild Draw Fours for bluffs and challenges them; under
    bluffs=0 its states are dealt again until the player held none (a legal card, whose
    challenge costs two more cards), so against a player of every Wild Draw Four it holds
    it challenges far less, and deals more candidates than with the knob off."""
    cols, searched, samples = _stats(SPEC.format(""), _wild4er, games=6)
    cols0, searched0, samples0 = _stats(SPEC.format(",bluffs=0"), _wild4er, games=6)
    asked, asked0 = cols["challenges"][:, 0].sum(), cols0["challenges"][:, 0].sum()
    assert cols["bluffs"][:, 1].sum() >= 20 and asked >= 10, (cols["bluffs"], asked)
    assert asked0 < 0.6 * asked, (asked, asked0)
    assert samples0 / searched0 > 2 * samples / searched, (samples, samples0)


@pytest.mark.parametrize("knob", ["voids", "colors", "bluffs"])
@pytest.mark.parametrize("bad", ["-0.1", "1.5", "x"])
def test_out_of_range_is_refused(knob, bad):
    with pytest.raises(RulesError, match=knob):
        parse_policy(f"ismcts({knob}={bad})")
