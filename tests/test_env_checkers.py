"""Every environment class passes its framework's own checker at its defaults, without a
warning: Gymnasium's check_env (UnoGymEnv, UnoSingleEnv, both registered ids) and
PettingZoo's api_test (UnoEnv; its variants and seeds are in tests/test_env.py)."""

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")
pytest.importorskip("greenlet")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from uno_sim.env import UnoGymEnv, env  # noqa: E402
from uno_sim.vecenv import ENV_ID, GYM_ID, UnoSingleEnv  # noqa: E402


def _no_warnings(check, *args, **kwargs):
    """Run a checker and fail on any warning it (or the env) gives."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        check(*args, **kwargs)
    assert not got, [str(w.message) for w in got]


@pytest.mark.parametrize("make", [
    UnoGymEnv, UnoSingleEnv,
    lambda: gymnasium.make(ENV_ID).unwrapped, lambda: gymnasium.make(GYM_ID).unwrapped,
    lambda: UnoSingleEnv(variant="flip", players=3, seat=1, episode="round"),
], ids=["UnoGymEnv", "UnoSingleEnv", "make-Uno-v0", "make-UnoGym-v0", "UnoSingleEnv-flip3"])
def test_gymnasium_check_env_passes_at_the_defaults_without_a_warning(make):
    _no_warnings(check_env, make())  # the render check too: each env has its spec


def test_check_env_on_the_made_env_passes():
    # the wrapped env passes; the checker's one note is that it was handed a wrapper
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        check_env(gymnasium.make(ENV_ID))
    assert [w for w in got if "different from the unwrapped" not in str(w.message)] == []


def test_the_spec_builds_the_same_env_again():
    s = UnoSingleEnv(players=3, opponents="strategic", episode="round")
    again = gymnasium.make(s.spec).unwrapped
    assert (again.rules, again._c.episode, again._c.opponents) == \
        (s.rules, s._c.episode, s._c.opponents)
    o1, _ = s.reset(seed=4)
    o2, _ = again.reset(seed=4)
    assert np.array_equal(o1["observation"], o2["observation"])


def test_pettingzoo_api_test_at_the_defaults_without_a_warning():
    e = env(players=3, opponents={2: "greedy"})
    assert e.observation_space("player_0").__class__ is gymnasium.spaces.Box
    _no_warnings(api_test, e, num_cycles=200)


def test_mask_in_observation_is_the_same_game_with_the_mask_in_the_observation():
    a = env(players=2, mask_in="observation")
    b = env(players=2)  # mask_in="info"
    a.reset(seed=3)
    b.reset(seed=3)
    assert isinstance(a.observation_space("player_0"), gymnasium.spaces.Dict)
    steps = 0
    while a.agents:
        oa, ra, ta, tra, ia = a.last()
        ob, rb, tb, trb, ib = b.last()
        assert np.array_equal(oa["observation"], ob) and (ra, ta, tra) == (rb, tb, trb)
        assert np.array_equal(oa["action_mask"], ib["action_mask"]) and "action_mask" not in ia
        assert np.array_equal(ib["action_mask"], b.action_mask())
        legal = np.flatnonzero(ib["action_mask"])
        act = None if ta or tra else int(legal[steps % len(legal)])
        a.step(act)
        b.step(act)
        steps += 1
    assert steps > 20 and a.result == b.result
    with pytest.raises(ValueError, match="invalid mask_in 'obs'"):
        env(mask_in="obs")


def test_an_illegal_action_loses_by_default_and_raises_on_request():
    lose = UnoSingleEnv(players=2)
    obs, _ = lose.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, term, trunc, info = lose.step(bad)
    assert (reward, term, trunc, info) == (-1.0, True, False, {"illegal_action": True})
    assert not obs["action_mask"].any()
    strict = UnoSingleEnv(players=2, illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(ValueError, match=f"illegal action {bad} in env 0"):
        strict.step(bad)
