"""uno_sim.players.torchnet: a .unonet as a torch module on the vector env's observation
(the network the CleanRL example trains), answering as the network player does, and
written back to the same file (skipped without torch, which the test extra leaves out)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("gymnasium")

from uno_sim.players import netfile  # noqa: E402
from uno_sim.players.model import input_columns  # noqa: E402
from uno_sim.players.net import WEIGHTS_DIR, game_layout  # noqa: E402
from uno_sim.players.torchnet import SLOTS, TorchNet, env_layout  # noqa: E402
from uno_sim.vecenv import SEATS, UnoVectorEnv  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "cleanrl_ppo.py"


def test_slots_and_layout_are_the_vector_envs():
    env = UnoVectorEnv(1, variant="flip", players=3)
    assert SLOTS == SEATS
    assert env_layout(108, True, False) == list(env.observation_layout)
    assert TorchNet(game_layout(env.rules), [8]).n_actions == env.single_action_space.n


@pytest.mark.parametrize("name", ["classic-2p", "flip-4p"])
def test_the_module_is_the_file_on_the_vector_envs_observation(name, tmp_path):
    """The logits and values are forward_batch's on the column cut, the target slots past
    the network's seats at 0; the greedy legal answer is the network's (but at a
    near-tie); to_net gives the file's bytes back."""
    torch.set_num_threads(1)
    path = WEIGHTS_DIR / f"{name}.unonet"
    net = netfile.read(path)
    module = TorchNet.from_net(net)
    variant, players = name.split("-")
    env = UnoVectorEnv(32, variant=variant, players=int(players[0]), opponents="greedy")
    obs, _ = env.reset(seed=2)
    cols = input_columns(env.observation_layout, SEATS, net.seats)
    rng = np.random.default_rng(0)
    for _ in range(20):
        x, mask = obs["observation"], obs["action_mask"].astype(bool)
        with torch.no_grad():
            logits, v = module(torch.as_tensor(x))
        want, values = netfile.forward_batch(net, x[:, cols])
        np.testing.assert_allclose(logits[:, :net.n_actions], want, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(v, values, rtol=1e-4, atol=1e-4)
        assert logits.shape[1] == mask.shape[1] and not logits[:, net.n_actions:].any()
        mine = np.where(mask, logits.numpy(), -np.inf).argmax(1)
        for i in np.flatnonzero(mine != np.where(mask[:, :net.n_actions], want, -np.inf).argmax(1)):
            top = np.sort(want[i][mask[i, :net.n_actions]])[-2:]
            assert top[1] - top[0] < 1e-4, (i, top)
        obs, *_ = env.step((rng.random(mask.shape) + mask).argmax(1))
    netfile.write(tmp_path / "back.unonet", module.to_net(net.metadata))
    assert (tmp_path / "back.unonet").read_bytes() == path.read_bytes()


def test_a_module_refuses_another_network():
    from uno_sim.players.torchnet import load_net

    net = netfile.read(WEIGHTS_DIR / "classic-2p.unonet")
    other = TorchNet((54, 2, False, False), [16])
    with pytest.raises(ValueError, match="widths"):
        load_net(net, other.trunk, other.policy, other.value)


def test_the_cleanrl_examples_network_starts_from_net():
    """docs/examples/cleanrl_ppo.py: --init net is the shipped network (its greedy answer
    the network's), --init scratch the same shape; both export as the game's .unonet."""
    pytest.importorskip("scipy")
    import sys

    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        spec = importlib.util.spec_from_file_location("cleanrl_ppo", EXAMPLE)
        ex = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ex)
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    env = UnoVectorEnv(16, players=2, opponents="greedy", episode="round")
    net = netfile.read(WEIGHTS_DIR / "classic-2p.unonet")
    agent = ex.Agent(ex.make_net("net", env.rules, [8]))
    scratch = ex.make_net("scratch", env.rules, [24, 12])
    assert scratch.to_net().layout() == net.layout() and scratch.to_net().widths == (24, 12)
    obs, _ = env.reset(seed=0)
    cols = input_columns(env.observation_layout, SEATS, net.seats)
    x, mask = obs["observation"], obs["action_mask"].astype(bool)
    want = np.where(mask[:, :net.n_actions], netfile.forward_batch(net, x[:, cols])[0],
                    -np.inf).argmax(1)
    assert np.array_equal(agent.act(x, mask, greedy=True), want)
    assert all(np.array_equal(a, b) for a, b in zip(agent.net.to_net().arrays(), net.arrays()))
