"""The network's weight file and forward pass (docs/net.md): the file read back as written,
every bad file refused in one line naming it, and the C forward pass (csrc/net.c) equal bit
for bit to the numpy twin (uno_sim.players.netfile.forward) on many random networks and on
real observations of seeded games."""

import json
import struct

import numpy as np
import pytest

from uno_sim import _engine
from uno_sim.players import netfile
from uno_sim.players.netfile import Net, NetFileError

LAYOUTS = [  # (n_kinds, seats, flip, extreme) of the stock variants at 10 seats, and others
    (54, 10, False, False), (108, 10, True, False), (54, 10, False, True), (55, 4, False, False),
    (7, 2, True, True)]


def block(net):
    flat = np.concatenate([a.reshape(-1) for a in net.arrays()])
    return _engine.net_block(net.n_kinds, net.seats, int(net.flip), int(net.extreme),
                             list(net.widths), flat)


def sparse_obs(rng, size, density=0.1):
    x = rng.standard_normal(size).astype(np.float32)
    x[rng.random(size) >= density] = 0.0
    x[rng.random(size) < 0.05] = -0.0  # a negative zero is skipped too
    return x


def test_round_trip(tmp_path):
    net = Net.new(54, 10, False, False, [16, 8], seed=3, metadata={"variant": "classic", "n": 1})
    path = tmp_path / "a.unonet"
    checksum = netfile.write(path, net)
    back = netfile.read(path)
    assert back.checksum == checksum == net.checksum != 0
    assert back.layout() == net.layout() and back.widths == (16, 8)
    assert back.metadata == {"variant": "classic", "n": 1}
    for a, b in zip(net.arrays(), back.arrays()):
        assert a.dtype == b.dtype == np.float32 and a.shape == b.shape and (a == b).all()
    data = path.read_bytes()
    assert data[:8] == b"UNONET\0\0" and struct.unpack_from("<I", data, 8)[0] == 1
    head = struct.unpack_from("<I", data, 12)[0]
    assert (16 + head) % 8 == 0  # the weights start 8-aligned
    assert len(data) == 16 + head + 4 * sum(a.size for a in net.arrays()) + 8
    assert struct.unpack_from("<Q", data, len(data) - 8)[0] == netfile.fnv1a64(data[:-8])


def test_fnv1a64_reference_values():
    """The checksum is FNV-1a 64: its published test vectors."""
    assert netfile.fnv1a64(b"") == 0xCBF29CE484222325
    assert netfile.fnv1a64(b"a") == 0xAF63DC4C8601EC8C
    assert netfile.fnv1a64(b"foobar") == 0x85944171F73967E8


def _patched(data: bytes, at: int, new: bytes, fix_sum: bool = True) -> bytes:
    out = bytearray(data)
    out[at:at + len(new)] = new
    if fix_sum:
        out[-8:] = struct.pack("<Q", netfile.fnv1a64(bytes(out[:-8])))
    return bytes(out)


def test_bad_files_are_one_line_naming_the_file(tmp_path):
    net = Net.new(54, 10, False, False, [8], seed=1)
    good = net.to_bytes()
    head = struct.unpack_from("<I", good, 12)[0]
    body = 16 + head
    cases = {
        "too short": (good[:20], "only 20 bytes"),
        "magic": (_patched(good, 0, b"UNONOT\0\0"), "no UNONET magic"),
        "version": (_patched(good, 8, struct.pack("<I", 2)), "version 2"),
        "checksum": (_patched(good, body + 4, b"\x01", fix_sum=False), "checksum mismatch"),
        "truncated": (good[:-12] + good[-8:], "checksum mismatch"),
        "obs size": (_patched(good, 16 + 16, struct.pack("<i", 452)), "observation size 452"),
        "actions": (_patched(good, 16 + 20, struct.pack("<i", 70)), "70 actions"),
        "layers": (_patched(good, 16 + 24, struct.pack("<i", 5)), "5 hidden layers"),
        "widths": (_patched(good, 16 + 32, struct.pack("<i", 3)), "unused ones must be 0"),
        "width": (_patched(good, 16 + 28, struct.pack("<i", 2000)), "width 2000"),
        "flip": (_patched(good, 16 + 8, struct.pack("<i", 2)), "flip 2"),
        "nan": (_patched(good, body + 8, struct.pack("<f", float("nan"))), "not finite"),
        "inf": (_patched(good, body, struct.pack("<f", float("inf"))), "not finite"),
        "length": (_patched(good[:-8] + b"\0" * 4 + good[-8:], 0, b"UNONET"), "bytes, the header"),
        "metadata": (_patched(good, 16 + 44, struct.pack("<I", 10 ** 6)), "does not fit"),
    }
    for name, (data, what) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.unonet"
        path.write_bytes(data)
        with pytest.raises(NetFileError) as exc:
            netfile.read(path)
        msg = str(exc.value)
        assert "\n" not in msg and str(path) in msg and what in msg, (name, msg)
    with pytest.raises(NetFileError, match="cannot read"):
        netfile.read(tmp_path / "missing.unonet")
    with pytest.raises(NetFileError, match="directory"):
        netfile.read(tmp_path)


def test_bad_metadata_and_shapes(tmp_path):
    net = Net.new(54, 10, False, False, [8], seed=1, metadata={"a": 1})
    data = net.to_bytes()
    at = 16 + 48
    bad = _patched(data, at, b"[")  # {"a":1} -> ["a":1}
    path = tmp_path / "m.unonet"
    path.write_bytes(bad)
    with pytest.raises(NetFileError, match="metadata is not UTF-8 JSON"):
        netfile.read(path)
    net.hidden[0] = (net.hidden[0][0][:, :4], net.hidden[0][1])
    with pytest.raises(NetFileError, match="weight array 0"):
        net.to_bytes()
    with pytest.raises(NetFileError, match="11 seats"):
        Net.new(54, 11, False, False, [8])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_c_forward_equals_the_numpy_twin_on_random_networks(layout):
    """Bit for bit: logits and value, on random networks of every depth and random sparse
    observations (negative zeros, large and small values included)."""
    rng = np.random.default_rng(sum(layout) + 11)
    for depth in (1, 2, 3, 4):
        widths = [int(w) for w in rng.integers(1, 48, size=depth)]
        net = Net.new(*layout, widths, seed=int(rng.integers(1 << 30)))
        # biases and scales of every size, so that sums round
        net.hidden = [(w * np.float32(rng.uniform(0.1, 3)), rng.standard_normal(b.shape)
                       .astype(np.float32)) for w, b in net.hidden]
        net.policy = (net.policy[0], rng.standard_normal(net.policy[1].shape).astype(np.float32))
        blk = block(net)
        for _ in range(25):
            x = sparse_obs(rng, net.obs_size, float(rng.uniform(0.02, 0.6)))
            lc, vc = _engine.net_forward(blk, x)
            lp, vp = netfile.forward(net, x)
            assert lc.tobytes() == lp.tobytes() and np.float32(vc).tobytes() == vp.tobytes()


def test_c_forward_equals_the_numpy_twin_on_real_observations():
    """Observations of seeded games (the vector environment, random legal actions), a
    network of the shipped kind of sizes: the same bits, and the same decision."""
    from uno_sim.vecenv import UnoVectorEnv

    for variant, players in (("classic", 2), ("classic", 4), ("flip", 3), ("extreme", 2)):
        envs = UnoVectorEnv(16, variant=variant, players=players, opponents="greedy")
        obs, _ = envs.reset(seed=players)
        rng = np.random.default_rng(players)
        size = obs["observation"].shape[1]
        kinds = envs.single_action_space.n - 17
        net = Net.new(kinds, 10, variant == "flip", variant == "extreme", [64, 32], seed=5)
        assert net.obs_size == size
        blk = block(net)
        for _ in range(12):
            for x, m in zip(obs["observation"], obs["action_mask"]):
                lc, vc = _engine.net_forward(blk, x)
                lp, vp = netfile.forward(net, x)
                assert lc.tobytes() == lp.tobytes() and np.float32(vc) == vp
                assert netfile.decide(lc, m) == netfile.decide(lp, m) >= 0
            mask = obs["action_mask"].astype(bool)
            obs, *_ = envs.step((rng.random(mask.shape) + mask).argmax(1))


def test_forward_batch_is_close_and_decide_breaks_ties_low():
    net = Net.new(54, 4, False, False, [32, 16], seed=2)
    rng = np.random.default_rng(0)
    xs = np.stack([sparse_obs(rng, net.obs_size) for _ in range(40)])
    lb, vb = netfile.forward_batch(net, xs)
    for x, lrow, v in zip(xs, lb, vb):
        lp, vp = netfile.forward(net, x)
        assert np.allclose(lrow, lp, rtol=1e-4, atol=1e-5) and np.isclose(v, vp, atol=1e-5)
    logits = np.array([1.0, 3.0, 3.0, 2.0, np.nan, 3.0], np.float32)
    assert netfile.decide(logits, [1, 1, 1, 1, 1, 1]) == 1
    assert netfile.decide(logits, [0, 0, 1, 1, 1, 1]) == 2
    assert netfile.decide(logits, [0, 0, 0, 0, 1, 1]) == 4  # NaN first: never overtaken
    assert netfile.decide(logits, [0] * 6) == -1
    assert netfile.win_probability(0.0) == 0.5


def test_obs_size_matches_the_environments():
    from uno_sim.vecenv import UnoVectorEnv

    for variant, flip, extreme in (("classic", 0, 0), ("flip", 1, 0), ("extreme", 0, 1),
                                   ("hello-kitty", 0, 0)):
        env = UnoVectorEnv(1, variant=variant, players=2)
        kinds = env.single_action_space.n - 17
        assert netfile.obs_size(kinds, 10, flip, extreme) == env.single_observation_space[
            "observation"].shape[0]


def test_metadata_is_json(tmp_path):
    net = Net.new(54, 2, False, False, [4], metadata={"cmd": "uno-sim train", "seed": 1})
    path = tmp_path / "x.unonet"
    netfile.write(path, net)
    data = path.read_bytes()
    n = struct.unpack_from("<I", data, 16 + 44)[0]
    assert json.loads(data[16 + 48:16 + 48 + n]) == {"cmd": "uno-sim train", "seed": 1}
