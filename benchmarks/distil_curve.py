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

from uno_sim.players import distil  # noqa: E402
from uno_sim.players.train import Recipe, evaluate, new_state, one_blas_thread  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a finished run's folder (uno-sim train --out)")
    ap.add_argument("--games", type=int, nargs="+", required=True,
                    help="labelled games of each point (a multiple of the shard size)")
    ap.add_argument("--temp", type=float, nargs="+", default=[0.0],
                    help="soft-target temperatures to fit each point with")
    ap.add_argument("--deals", type=int, default=None, help="paired deals (default: the run's)")
    a = ap.parse_args(argv)
    meta = json.load(open(os.path.join(a.run, "train.json")))
    base = Recipe.from_dict(meta["recipe"])
    shards = sorted((s for s in meta["labels"] if s["round"] == 0), key=lambda s: s["index"])
    label_cpu = meta["distilled"][0]["cpu_seconds"] if meta.get("distilled") else None
    print(f"run {a.run}: {base.variant} {base.players}p, {len(shards)} shards of "
          f"{base.label_shard} games; the run's labels and fit took {label_cpu} CPU-s")
    for games in a.games:
        take = shards[:games // base.label_shard]
        data = distil.concat([distil.read_shard(
            os.path.join(a.run, f"labels-0-{s['index']}.npz"), s["sha256"]) for s in take])
        for temp in a.temp:
            r = dataclasses.replace(base, distil_temp=temp,
                                    eval_deals=a.deals or base.eval_deals)
            state = new_state(r)
            t = time.process_time()
            with one_blas_thread():
                stats = distil.fit(state, data, 0)
            fit_cpu = time.process_time() - t
            point = evaluate(state)
            print(f"games {games:6d} rows {stats['labels']:8d} temp {temp:<5g} agreement "
                  f"{stats['agreement']:.3f} fit {fit_cpu:6.0f} CPU-s  vs greedy "
                  f"{point['share']:.3f} [{point['low']:.3f}, {point['high']:.3f}] "
                  f"({point['deals']} deals)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
