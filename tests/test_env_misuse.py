"""The RL environment misused: every mistake is one clear exception naming the bad value,
and an env dropped without close() is freed with its game."""

from __future__ import annotations

import gc

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")
pytest.importorskip("greenlet")

from uno_sim.env import UnoGymEnv, env  # noqa: E402
from uno_sim.rules import RulesError  # noqa: E402


def _legal(e) -> int:
    return int(np.flatnonzero(e.infos[e.agent_selection]["action_mask"])[0])


@pytest.mark.parametrize("bad", [19.7, 1.0, True, "1", None, np.float64(2.0), [1]])
def test_step_takes_integers_only(bad):
    e = env(players=2)
    e.reset(seed=1)
    before = e.agent_selection, e._seat.decision
    with pytest.raises(ValueError, match="invalid action .*expected an integer"):
        e.step(bad)
    assert (e.agent_selection, e._seat.decision) == before  # nothing was played


def test_step_takes_numpy_integers():
    e = env(players=2)
    e.reset(seed=1)
    e.step(np.int64(_legal(e)))
    e.step(np.array(_legal(e)))  # a 0-d integer array, as some policies return


def test_gym_step_takes_integers_only():
    g = UnoGymEnv(players=2)
    g.reset(seed=1)
    legal = int(np.flatnonzero(g.action_masks())[0])
    with pytest.raises(ValueError, match="invalid action .*expected an integer"):
        g.step(legal + 0.7)


def test_before_reset_and_after_the_end():
    e = env(players=2)
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        e.step(0)
    with pytest.raises(RuntimeError, match=r"last\(\) before reset\(\)"):
        e.last()
    e.reset(seed=1)
    while not any(e.terminations.values()):
        e.step(_legal(e))
    with pytest.raises(ValueError, match=r"game is over.*step\(None\)"):
        e.step(0)
    for _ in list(e.agents):  # PettingZoo: a finished agent takes step(None)
        e.last()
        e.step(None)
    with pytest.raises(RuntimeError, match="every agent left"):
        e.last()
    with pytest.raises(RuntimeError, match="every agent left"):
        e.step(None)
    e.reset()  # and the next game starts
    assert e.agents


@pytest.mark.parametrize("kwargs,needle", [
    ({"max_turns": "x"}, "invalid max_turns 'x'"),
    ({"max_turns": -1}, "invalid max_turns -1"),
    ({"max_turns": 2.5}, "invalid max_turns 2.5"),
    ({"max_turns": 2**40}, "invalid max_turns"),
    ({"rules": {"bogus": 1}}, "unknown rule switch 'bogus'"),
    ({"rules": [1]}, "invalid rules [1]"),
])
def test_constructor_arguments_are_checked(kwargs, needle):
    with pytest.raises(RulesError) as info:
        env(**kwargs)
    assert needle in str(info.value)


@pytest.mark.parametrize("backend", ["greenlet", "thread"])
def test_an_env_dropped_mid_game_is_freed(backend):
    """No close(): the game in flight held the env (through its greenlet's frame, or its
    thread) and about 70 KB per env stayed; its finalizer now stops the game."""
    import threading
    import tracemalloc
    import weakref

    def one():
        e = env(players=2, backend=backend)
        e.reset(seed=1)
        e.step(_legal(e))
        return weakref.ref(e)

    one()
    gc.collect()
    threads = threading.active_count()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        refs = [one() for _ in range(20)]
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    assert all(r() is None for r in refs)
    grown = sum(d.size_diff for d in after.compare_to(before, "filename"))
    assert grown / 20 < 5_000, grown
    assert threading.active_count() == threads
