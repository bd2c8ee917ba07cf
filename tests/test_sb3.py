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


# --- the network player's weights as MaskablePPO's policy ------------------------------------

SHIPPED = [("classic", 2), ("classic", 4), ("flip", 2), ("flip", 4)]


def _near_tie(net, x, mask, eps=1e-4):
    """Whether the best two legal logits of `net` (the normative pass) are within eps."""
    from uno_sim.players import netfile

    logits, _ = netfile.forward(net, x)
    top = np.sort(logits[np.flatnonzero(mask[:net.n_actions])])[-2:]
    return len(top) == 2 and top[1] - top[0] < eps


@pytest.mark.parametrize("variant,players", SHIPPED)
def test_the_loaded_policy_answers_as_the_network_player(variant, players):
    """maskable_ppo(init="net"): its most likely legal action is the C network player's
    answer on the decisions the recorder takes from seeded games (the vector env's
    observation and mask), and netfile.forward_batch's on the vector env's observations;
    its logits are the network's (the column cut and the action ids applied)."""
    pytest.importorskip("sb3_contrib")
    import torch

    from uno_sim.players import netfile
    from uno_sim.players.model import input_columns
    from uno_sim.players.net import shipped_path
    from uno_sim.players.record import record
    from uno_sim.players.torchnet import env_layout
    from uno_sim.rules import Rules
    from uno_sim.sb3 import maskable_ppo

    torch.set_num_threads(1)
    rules = Rules(variant=variant, players=players)
    net = netfile.read(shipped_path(rules))
    sb = vec_env(16, variant=variant, players=players, opponents="greedy", seed=3)
    policy = maskable_ppo(sb, init="net", n_steps=16, seed=0, device="cpu").policy

    rows = record(rules, ["net"] + ["greedy"] * (players - 1), seats=[0], games=3, seed=1)
    mask = rows["mask"].astype(bool)
    assert len(rows["action"]) > 100
    got, _ = policy.predict(rows["obs"], action_masks=mask, deterministic=True)
    cols = input_columns(env_layout(net.n_kinds, net.flip, net.extreme), 10, net.seats)
    differ = np.flatnonzero(got != rows["action"])
    assert all(_near_tie(net, rows["obs"][i, cols], mask[i]) for i in differ), differ
    assert len(differ) <= len(got) // 100

    obs = sb.reset()
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(40):
        masks = sb.action_masks()
        got, _ = policy.predict(obs, action_masks=masks, deterministic=True)
        logits, values = netfile.forward_batch(net, obs[:, cols])
        want = np.where(masks[:, :net.n_actions], logits, -np.inf).argmax(1)
        differ = np.flatnonzero(got != want)
        assert all(_near_tie(net, obs[i, cols], masks[i]) for i in differ), differ
        with torch.no_grad():
            x = torch.as_tensor(obs)
            mine = policy.action_net(policy.extract_features(x))
            v = policy.predict_values(x)[:, 0]
        np.testing.assert_allclose(mine[:, :net.n_actions], logits, rtol=1e-4, atol=1e-4)
        assert not mine[:, net.n_actions:].any()  # target slots past the network's seats
        np.testing.assert_allclose(v, values, rtol=1e-4, atol=1e-4)
        compared += len(got)
        obs, *_ = sb.step(_legal(masks, rng))
    assert compared == 640


def test_export_reads_back_the_same_weights_and_plays(tmp_path):
    """export_net writes the policy as a .unonet: the loaded file's bytes again (with its
    metadata), and after some training the policy's weights bit for bit, which the C
    player plays."""
    pytest.importorskip("sb3_contrib")
    import torch

    import uno_sim
    from uno_sim.players import netfile
    from uno_sim.players.net import load, shipped_path
    from uno_sim.sb3 import export_net, maskable_ppo, policy_net

    torch.set_num_threads(1)
    sb = vec_env(8, seed=0, **KW)
    model = maskable_ppo(sb, init="net", n_steps=16, batch_size=64, n_epochs=1, seed=0,
                         device="cpu")
    shipped = netfile.read(shipped_path(sb.venv.rules))
    path = tmp_path / "same.unonet"
    export_net(model, path, shipped.metadata)
    back = netfile.read(path)
    assert back.layout() == shipped.layout() and back.metadata == shipped.metadata
    assert all(np.array_equal(a, b) for a, b in zip(back.arrays(), shipped.arrays()))
    assert path.read_bytes() == shipped_path(sb.venv.rules).read_bytes()  # the same file

    model.learn(2 * 8 * 16)  # fine-tune a little: the weights move, the export follows
    tuned = policy_net(model, {"variant": "classic", "players": 2})
    assert not all(np.array_equal(a, b) for a, b in zip(tuned.arrays(), shipped.arrays()))
    export_net(model, tmp_path / "tuned.unonet", {"variant": "classic", "players": 2})
    back = netfile.read(tmp_path / "tuned.unonet")
    assert all(np.array_equal(a, b) for a, b in zip(back.arrays(), tuned.arrays()))
    load(tmp_path / "tuned.unonet")  # the C player's block
    spec = f"net(weights={tmp_path / 'tuned.unonet'})"
    assert uno_sim.play_game(players=2, policies=[spec, "greedy"], seed=1).winner in (0, 1)


def test_scratch_and_refusals():
    """init="scratch" builds the network player's shape for the game (exportable);
    a file that does not fit the game, or a policy of another shape, is refused."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from uno_sim.players.net import shipped_path
    from uno_sim.rules import Rules, RulesError
    from uno_sim.sb3 import maskable_ppo, policy_net

    sb = vec_env(4, players=3, opponents="greedy")
    model = maskable_ppo(sb, init="scratch", widths=(32, 16), n_steps=8, device="cpu")
    net = policy_net(model)
    assert net.layout() == (54, 3, False, False) and net.widths == (32, 16)
    with pytest.raises(RulesError, match="does not fit this game: it reads 2 seats"):
        maskable_ppo(sb, init=str(shipped_path(Rules(players=2))), device="cpu")
    with pytest.raises(RulesError, match="no shipped network weights"):
        maskable_ppo(vec_env(4, players=3), init="net", device="cpu")
    with pytest.raises(TypeError, match="network player's shape"):
        policy_net(MaskablePPO("MlpPolicy", sb, n_steps=8, device="cpu"))
