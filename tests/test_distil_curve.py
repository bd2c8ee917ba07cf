"""The refitting experiments of benchmarks/distil_curve.py.

`--implied` (UNO Flip F1, F6): the pairing map reads each other face as the faces it can be
the back of, the blocks it reads are the observation's other faces, and the network folded
after the fit is the same function as the one fitted.  (`--value-target search` is the
recipe's `value_target`: tests/test_train.py.)"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from uno_sim.cards import deck_for
from uno_sim.players.model import input_columns
from uno_sim.rules import Rules

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "distil_curve.py"


@pytest.fixture(scope="module")
def curve():
    spec = importlib.util.spec_from_file_location("distil_curve", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_pairing_map_reads_an_other_face_as_its_possible_fronts(curve):
    """F1: every card has a light and a dark face; the map sends each face to the faces of
    the other side it is paired with, in proportion to the cards, and never to its own side."""
    rules = Rules(variant="flip", players=2)
    deck = deck_for(rules)
    m = curve.pairing_map(rules)
    light = len({*deck.card_kind})
    assert m.shape == (len(deck.kinds),) * 2
    assert np.allclose(m.sum(1), 1)
    assert not m[:light, :light].any() and not m[light:, light:].any()
    card = 5  # one physical card: its dark face maps onto its light face, and back
    lo, da = deck.card_kind[card], deck.dark_kind[card]
    assert m[da, lo] > 0 and m[lo, da] > 0
    fronts = [(m[k] > 0).sum() for k in range(len(deck.kinds))]
    assert set(fronts) <= {1, 2, 3, 4} and max(fronts) >= 2


@pytest.mark.parametrize("players", [2, 4])
def test_the_face_blocks_are_the_observations_other_faces(curve, players):
    """F6: the other seats' blocks count their hands' other faces, the own seat's is empty,
    and the draw pile's block is one card."""
    from uno_sim.vecenv import SEATS, UnoSingleEnv

    rules = Rules(variant="flip", players=players)
    env = UnoSingleEnv(rules=rules, opponents=["greedy"] * (players - 1), seat=0)
    cols = input_columns(env.observation_layout, SEATS, players)
    obs, _ = env.reset(seed=3)
    x = obs["observation"][cols]
    k = len(env.card_codes)
    blocks = curve.face_blocks(rules)
    assert len(blocks) == players + 1
    sums = [float(x[b:b + k].sum()) for b in blocks]
    layout = {name: (off, size) for name, off, size in env.observation_layout}
    o = obs["observation"]
    (hand, _), (sizes, _) = layout["hand"], layout["hand_sizes"]
    held = o[hand:hand + k].sum()  # the own hand's cards: the hand sizes' scale
    cards = np.rint(o[sizes:sizes + players] * held / o[sizes]).tolist()
    assert sums[0] == 0 and sums[1:players] == cards[1:] and min(cards) >= 1
    assert sums[-1] == 1


def test_the_folded_network_is_the_same_function(curve):
    rules = Rules(variant="flip", players=2)
    pairing = curve.pairing_map(rules)
    blocks = [10, 10 + len(pairing), 400]
    rng = np.random.default_rng(0)
    net = curve.ImpliedNet(600, 20, [32, 16], rng, pairing, blocks, aux=1)
    for a in net.arrays:  # not the zero heads of a new network: any weights
        a[...] = rng.standard_normal(a.shape) * 0.1
    x = rng.random((64, 600)).astype(np.float32)
    plain = net.folded()
    assert plain.obs_size == 600 and plain.arrays[0].shape == (600, 32)
    for before, after in zip(net.forward(x), plain.forward(x)):
        assert np.allclose(before, after, atol=1e-4)
    net.arrays[0][600:] = 0  # with no weight on the implied inputs, folding changes nothing
    assert np.array_equal(net.folded().arrays[0], net.arrays[0][:600])


def test_bad_options_are_one_line_and_exit_2_before_any_fit(curve, tmp_path, capsys):
    import json

    from uno_sim.players.train import Recipe

    run = tmp_path / "run"
    run.mkdir()
    (run / "train.json").write_text(json.dumps({"recipe": Recipe(variant="classic").to_dict(),
                                                "labels": []}))
    taken = tmp_path / "taken.unonet"
    taken.write_bytes(b"not ours")
    for extra, says in [(["--implied"], "two-faced deck"),
                        (["--write", str(tmp_path / "no" / "x.unonet")], "no folder"),
                        (["--write", str(taken)], "the file exists"),
                        (["--widths", "32", "0"], "invalid widths [32, 0]")]:
        assert curve.main([str(run), "--games", "50", *extra]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1
    assert taken.read_bytes() == b"not ours"
