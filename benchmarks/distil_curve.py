"""The learning curve of distillation: strength against the labelled games it was fitted to.

    python benchmarks/distil_curve.py runs/classic-2p --games 600 2400 --temp 0 0.05

Reads the label shards of a finished `uno-sim train` run (its folder: train.json and the
labels-0-I.npz it recorded, each checked against its SHA-256), fits a new network on the
first shards (those of the first N games, for each N of --games) with the run's own recipe
(its seed, widths and fit knobs; `--temp`: the soft-target temperature, 0 the search's
answer), and measures it as the run's curve does (`train.evaluate`: paired deals against
greedy on the curve's run, never trained on).  Each point is printed with the CPU time of
its labels (the shards' recorded cost, pro rata) and of its fit, so the figure reads as
strength against CPU-hours (docs/training.md, "How the recipe was chosen").

    python benchmarks/distil_curve.py runs/f2-19k --games 19200 --temp 0.001 --implied \
        --write runs/f2-implied.unonet

`--implied` (UNO Flip): the network is fitted with more inputs beside the observation: for
each other seat, the hand its other faces imply, and the draw pile's top card likewise
(each other face spread over the faces of the side in play it can be the back of, by the
deck's pairing, F1 and F6: `pairing_map`).  Those inputs are a linear map of the
observation's own `other_faces` and `next_draw` blocks, so after the fit they are folded
into the first layer (`ImpliedNet.folded`): the network written and played is the usual
one, the same function, in the usual weight file.  What changes is what the fit sees: the
search players read the other hands from the other faces (the league rates the Flip
search at two players as high as the cheating one), and this asks whether a network that
is handed the same reading learns to use it.

    python benchmarks/distil_curve.py runs/c2-38k --games 9600 --temp 0.001 \
        --value-target search --widths 32 --write runs/c2-v32.unonet

`--value-target search` fits the value head to the search's value of the answer it took
instead of the game's outcome: a value that ranks a state's answers, the leaf value of
`ismcts(leaf=0,mix=0.5,weights=FILE)` (docs/policies.md "With a network"); `--widths`
fits a narrower network than the run's, a cheaper leaf.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from uno_sim.players import distil  # noqa: E402
from uno_sim.players.model import Adam, Net, input_columns  # noqa: E402
from uno_sim.players.train import (Recipe, evaluate, new_state, one_blas_thread,  # noqa: E402
                                   to_netfile)


def pairing_map(rules) -> np.ndarray:
    """(K, K): row o is the distribution of the face in play of a card whose other face is
    kind o (the deck's pairing, F1: the cards of that other face, counted by their face on
    the other side).  Kinds of both sides are distinct ids, so one map serves both sides."""
    from uno_sim.cards import deck_for

    deck = deck_for(rules)
    k = len(deck.kinds)
    m = np.zeros((k, k))
    for light, dark in zip(deck.card_kind, deck.dark_kind):
        m[dark, light] += 1  # the light side in play: its dark face faces the table
        m[light, dark] += 1
    return (m / np.maximum(m.sum(1, keepdims=True), 1)).astype(np.float32)


def face_blocks(rules) -> list[int]:
    """The first input column of each K-wide block of other faces in the network's input
    (`model.input_columns`: per-seat blocks cut to the game's seats): one per seat of
    `other_faces`, then `next_draw`."""
    from uno_sim.vecenv import SEATS, UnoVectorEnv

    env = UnoVectorEnv(1, rules=rules, opponents="random")
    layout, k = env.observation_layout, len(env.card_codes)
    env.close()
    cols = input_columns(layout, SEATS, rules.players)
    at = {name: int(np.searchsorted(cols, off)) for name, off, _ in layout}
    return [at["other_faces"] + s * k for s in range(rules.players)] + [at["next_draw"]]


class ImpliedNet(Net):
    """A network of the observation and, beside it, the faces each block of other faces
    implies (`pairing_map`); `folded()` is the same function as a plain `Net` of the
    observation alone."""

    def __init__(self, obs_size, n_actions, widths, rng, pairing, blocks, aux=1):
        super().__init__(obs_size + len(blocks) * len(pairing), n_actions, widths, rng, aux)
        self.obs_size, self.pairing, self.blocks = obs_size, pairing, blocks

    def augment(self, x: np.ndarray) -> np.ndarray:
        k = len(self.pairing)
        return np.concatenate([x] + [x[:, b:b + k] @ self.pairing for b in self.blocks], 1)

    def forward(self, x, keep=False):
        return super().forward(self.augment(x), keep)

    def folded(self) -> Net:
        k, n = len(self.pairing), self.obs_size
        w = self.arrays[0]
        first = w[:n].copy()
        for j, b in enumerate(self.blocks):
            first[b:b + k] += self.pairing @ w[n + j * k:n + (j + 1) * k]
        net = Net.__new__(Net)
        net.obs_size, net.n_actions, net.widths = n, self.n_actions, self.widths
        net.arrays = [first] + [a.copy() for a in self.arrays[1:]]
        return net


def implied_state(state, rules):
    """`state` with its network an ImpliedNet of the same shape and seed, Adam anew."""
    net = state.net
    rng = np.random.default_rng(np.random.SeedSequence([state.recipe.seed, 0]))
    state.net = ImpliedNet(net.obs_size, net.n_actions, net.widths, rng,
                           pairing_map(rules), face_blocks(rules), aux=net.n_values - 1)
    state.opt = Adam(state.net.arrays, lr=state.recipe.lr)
    return state


def _bad_input(a, base) -> str | None:
    """What is wrong with the options, checked before any fit: --implied on a deck of one
    face, --widths the recipe refuses, --write where no file can go or over a file
    already there."""
    from uno_sim.cards import deck_for
    from uno_sim.players.train import TrainError

    if a.widths:
        try:
            dataclasses.replace(base, widths=tuple(a.widths)).checked()
        except TrainError as exc:
            return f"--widths: {exc}"
    if a.implied and deck_for(base.rules()).sides != 2:
        return f"--implied needs a two-faced deck (UNO Flip); {a.run} is {base.variant}"
    if a.write:
        folder = os.path.dirname(a.write) or "."
        if not os.path.isdir(folder):
            return f"--write {a.write}: no folder {folder}"
        if os.path.exists(a.write):
            return f"--write {a.write}: the file exists; name a new one"
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a finished run's folder (uno-sim train --out)")
    ap.add_argument("--games", type=int, nargs="+", required=True,
                    help="labelled games of each point (a multiple of the shard size)")
    ap.add_argument("--temp", type=float, nargs="+", default=[0.0],
                    help="soft-target temperatures to fit each point with")
    ap.add_argument("--deals", type=int, default=None, help="paired deals (default: the run's)")
    ap.add_argument("--implied", action="store_true",
                    help="UNO Flip: fit with the hands the other faces imply as inputs, folded "
                         "into the first layer after the fit (above)")
    ap.add_argument("--write", metavar="FILE", help="write the last point's weight file")
    ap.add_argument("--value-target", choices=("game", "search"), default="game",
                    help="the value head's target: the game's outcome (the recipe's) or the "
                         "search's value of the answer it took (its best valued answer "
                         "where that one has no value; the outcome where none has)")
    ap.add_argument("--widths", type=int, nargs="+", default=None,
                    help="hidden layers' widths (default: the run's recipe's); a narrow "
                         "network is a cheaper leaf value for a search (docs/policies.md "
                         "\"With a network\")")
    a = ap.parse_args(argv)
    meta = json.load(open(os.path.join(a.run, "train.json")))
    base = Recipe.from_dict(meta["recipe"])
    bad = _bad_input(a, base)
    if bad:
        print(f"distil_curve.py: {bad}", file=sys.stderr)
        return 2
    shards = sorted((s for s in meta["labels"] if s["round"] == 0), key=lambda s: s["index"])
    label_cpu = meta["distilled"][0]["cpu_seconds"] if meta.get("distilled") else None
    print(f"run {a.run}: {base.variant} {base.players}p, {len(shards)} shards of "
          f"{base.label_shard} games; the run's labels and fit took {label_cpu} CPU-s")
    for games in a.games:
        take = shards[:games // base.label_shard]
        data = distil.concat([distil.read_shard(
            os.path.join(a.run, f"labels-0-{s['index']}.npz"), s["sha256"]) for s in take])
        for temp in a.temp:
            r = dataclasses.replace(base, distil_temp=temp, widths=tuple(a.widths or base.widths),
                                    value_target=a.value_target,
                                    eval_deals=a.deals or base.eval_deals)
            state = new_state(r)
            if a.implied:
                implied_state(state, r.rules())
            t = time.process_time()
            with one_blas_thread():
                stats = distil.fit(state, data, 0)
            fit_cpu = time.process_time() - t
            if a.implied:  # fold, and check that the folded network is the same function
                x = distil.dense(data, np.arange(min(512, len(data["action"]))),
                                 state.net.obs_size)
                before = state.net.forward(x)
                state.net = state.net.folded()
                after = state.net.forward(x)
                err = max(float(np.abs(b - c).max()) for b, c in zip(before, after))
                assert err < 1e-3, f"the folded network differs by {err}"
            point = evaluate(state)
            print(f"games {games:6d} rows {stats['labels']:8d} temp {temp:<5g} agreement "
                  f"{stats['agreement']:.3f} fit {fit_cpu:6.0f} CPU-s  vs greedy "
                  f"{point['share']:.3f} [{point['low']:.3f}, {point['high']:.3f}] "
                  f"({point['deals']} deals)", flush=True)
            if a.write:
                from uno_sim.players import netfile

                netfile.write(a.write, to_netfile(state.net, r.rules(), {
                    "experiment": "benchmarks/distil_curve.py", "run": a.run, "games": games,
                    "temp": temp, "implied": a.implied, "value_target": a.value_target}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
