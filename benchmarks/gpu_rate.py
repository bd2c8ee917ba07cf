"""The GPU per configuration: the kernel alone, end to end, against one CPU core, and exact.

    python benchmarks/gpu_rate.py                       # the default cells
    python benchmarks/gpu_rate.py --games 4e6 --cells classic:4:greedy flip:4:greedy

For each cell (variant:players:policy), on one GPU (needs CuPy and a device):

  kernel agg   games/s of the aggregate kernel alone (CUDA events around one launch of
               --games games: gpu.time_kernel), what `--summary-only` and `bench` launch
  kernel rows  the same for the kernel of the columns and round rows (one launch of
               min(--games, gpu.BATCH) games), what `--out` launches
  end to end   games/s of gpu.play_aggregates(--games games) by the wall clock: set-up,
               launches, the records copied back
  CPU core     games/s of engine.play_aggregate on one core of this machine (--cpu-games)
  exact        whether the GPU's aggregate records of --check games (shards of 1,000) equal
               the CPU's word for word, and the columns of --check games the CPU's

Prints a Markdown table, a row per cell as it finishes (a kernel is compiled at its
configuration's first launch: that time is not in any figure).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CELLS = ["classic:4:greedy", "classic:2:greedy", "classic:10:greedy", "classic:4:random",
         "classic:4:strategic", "flip:4:greedy", "extreme:4:greedy", "hello-kitty:4:greedy",
         "house-2018:4:greedy"]


def cell(text: str):
    from uno_sim.policies import seat_policies
    from uno_sim.rules import Rules

    variant, players, policy = (text.split(":", 2) + ["greedy"])[:3]
    rules = Rules(variant=variant, players=int(players))
    return rules, seat_policies(policy, rules.players), f"{variant} {players}p {policy}"


def exact(rules, specs, n: int) -> str:
    from uno_sim import engine, gpu

    got = gpu.play_aggregates(rules, specs, 7, 10_000, n, shard_games=1_000)
    want = np.stack([engine.play_aggregate(rules, specs, 7, 10_000 + k, min(1_000, n - k))
                     for k in range(0, n, 1_000)])
    agg_ok = np.array_equal(np.pad(got, ((0, 0), (0, want.shape[1] - got.shape[1]))), want)
    cols = gpu.play_games(rules, specs, 7, 10_000, n)
    ref = engine.play_games(rules, specs, seed=7, first_game=10_000, n_games=n, rounds=True)
    rows_ok = cols.keys() == ref.keys() and all(np.array_equal(cols[k], ref[k]) for k in ref)
    return f"{'yes' if agg_ok else 'NO'} / {'yes' if rows_ok else 'NO'}"


def main() -> None:
    from uno_sim import engine, gpu
    from uno_sim.options import parse_count

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", nargs="+", default=CELLS, help="variant:players:policy")
    ap.add_argument("--games", default="2e6", help="games of a timed launch (default 2e6)")
    ap.add_argument("--cpu-games", default="20000", help="games timed on one CPU core")
    ap.add_argument("--check", default="3000", help="games compared with the CPU (0: none)")
    args = ap.parse_args()
    games = parse_count(args.games, "games", 10**9)
    cpu_games = parse_count(args.cpu_games, "cpu-games", 10**7)
    check = int(float(args.check))
    print("| cell | kernel agg g/s | kernel rows g/s | end to end g/s | CPU core g/s | "
          "GPU / core | exact (agg / rows) |")
    print("|---|---:|---:|---:|---:|---:|---|", flush=True)
    for text in args.cells:
        rules, specs, name = cell(text)
        t_agg = gpu.time_kernel(rules, specs, 1, games)
        n_rows = min(games, gpu.BATCH)
        t_rows = gpu.time_kernel(rules, specs, 1, n_rows, rows=True)
        gpu.play_aggregates(rules, specs, 1, 0, 10_000)  # set-up outside the timing
        t0 = time.perf_counter()
        gpu.play_aggregates(rules, specs, 1, 0, games)
        e2e = games / (time.perf_counter() - t0)
        engine.play_aggregate(rules, specs, 1, 0, cpu_games // 10 + 1)
        t0 = time.perf_counter()
        engine.play_aggregate(rules, specs, 1, 0, cpu_games)
        core = cpu_games / (time.perf_counter() - t0)
        ok = exact(rules, specs, check) if check else "-"
        print(f"| {name} | {games / t_agg:,.0f} | {n_rows / t_rows:,.0f} | {e2e:,.0f} | "
              f"{core:,.0f} | {e2e / core:,.1f} | {ok} |", flush=True)


if __name__ == "__main__":
    main()
