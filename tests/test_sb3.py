"""uno_sim.sb3: Stable-Baselines3's VecEnv interface over the C vector environment, step
for step the vector env's games, and sb3-contrib's MaskablePPO training on it (skipped
without stable-baselines3 and sb3-contrib, which bring torch: not in the test extra)."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("stable_baselines3")

from uno_sim.sb3 import UnoSB3VecEnv, vec_env  # noqa: E402
from uno_sim.vecenv import UnoVectorEnv  # noqa: E402

KW = dict(players=2, opponents="greedy", episode="round", rules={"target": 100})


def _legal(masks, rng):
    return (rng.random(masks.shape) + masks).argmax(1)  # a random legal action each


def test_steps_are_the_vector_envs_with_sb3s_conventions():
    sb = vec_env(8, **KW)
    ref = UnoVectorEnv(8, **KW)
    assert sb.observation_space == ref.single_observation_space["observation"]
    assert sb.action_space == ref.single_action_space and sb.num_envs == 8
    sb.seed(5)
    obs = sb.reset()
    ref_obs, _ = ref.reset(seed=5)  # env i plays run 5 + i
    assert np.array_equal(obs, ref_obs["observation"])
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(400):
        masks = sb.env_method("action_masks")
        assert np.array_equal(np.stack(masks), ref_obs["action_mask"].astype(bool))
        actions = _legal(np.stack(masks), rng)
        obs, rew, done, infos = sb.step(actions)
        ref_obs, ref_rew, term, trunc, info = ref.step(actions)
        assert np.array_equal(obs, ref_obs["observation"]) and np.array_equal(rew, ref_rew)
        assert np.array_equal(done, term | trunc) and rew.dtype == np.float32
        for i in np.flatnonzero(done):
            assert np.array_equal(infos[i]["terminal_observation"],
                                  info["final_obs"]["observation"][i])
            assert infos[i]["TimeLimit.truncated"] == bool(trunc[i] and not term[i])
            ended += 1
        assert all(not infos[i] for i in np.flatnonzero(~done))
    assert ended > 8
    # no seed: the next runs, as the vector env's reset() without one
    assert np.array_equal(sb.reset(), ref.reset()[0]["observation"])


def test_attributes_methods_and_bad_use():
    sb = vec_env(3, **KW)
    sb.reset()
    assert sb.get_attr("episode") == ["round"] * 3 and sb.get_attr("num_envs", 1) == [3]
    assert sb.env_is_wrapped(object) == [False] * 3
    assert sb.env_method("decisions")[0] == sb.venv.decisions()
    assert np.array_equal(sb.env_method("action_masks", indices=[2])[0], sb.action_masks()[2])
    with pytest.raises(ValueError, match="for all of them"):
        sb.set_attr("copy", False, indices=[0])
    sb.set_attr("copy", False)
    assert sb.venv.copy is False
    with pytest.raises(TypeError, match="expected a uno_sim UnoVectorEnv"):
        UnoSB3VecEnv("games")
    with pytest.raises(ValueError, match="illegal action"):
        sb.step(np.full(3, -1))


def test_maskable_ppo_trains_on_it_and_plays_legal_moves():
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecCheckNan, VecMonitor

    torch.set_num_threads(1)  # the suite's workers share the cores
    sb = vec_env(16, seed=0, **KW)
    assert is_masking_supported(sb) and get_action_masks(sb).shape == (16, sb.action_space.n)
    venv = VecCheckNan(VecMonitor(sb), raise_exception=True)  # SB3's own checks on the data
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=128, n_epochs=1, seed=0,
                        device="cpu")
    model.learn(total_timesteps=2 * 16 * 32)
    assert model.num_timesteps == 2 * 16 * 32
    obs = sb.reset()
    for _ in range(50):
        masks = sb.action_masks()
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(16), actions].all()
        obs, *_ = sb.step(actions)


def test_sb3s_env_checker_passes_on_the_single_env_without_a_warning():
    import warnings

    from stable_baselines3.common.env_checker import check_env

    from uno_sim.vecenv import UnoSingleEnv

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        check_env(UnoSingleEnv(players=2))
    assert not got, [str(w.message) for w in got]
