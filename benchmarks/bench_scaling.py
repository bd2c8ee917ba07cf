"""Parallel scaling: the runner against the machine's own ceiling.

    python benchmarks/bench_scaling.py --jobs 1 2            # a 2-core machine
    python benchmarks/bench_scaling.py --jobs 1 8 16 --games-per-job 400000

For each N of --jobs, on the same machine:

  bare    N copies of benchmarks/c/bench_main.c (the C engine alone, no Python)
          started together; their games/s summed.  What N cores can give at all
          (memory bandwidth, shared caches, turbo and SMT included).
  runner  `uno-sim run --summary-only --jobs N` on N x --games-per-job games, timed by
          the wall clock of the whole command (interpreter start, workers, shards,
          aggregation) and by the run's own wall (its summary's games_per_second).

Efficiencies are against N times the 1-job figure of the same column; `runner/bare`
is the share of the ceiling the runner reaches.  Classic 4-player greedy games.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_bare(tmp: str) -> str:
    """benchmarks/c/bench_main.c built as the engine's extension is (-O3, no FMA)."""
    subprocess.run([sys.executable, str(ROOT / "tests" / "c" / "make_tables.py"),
                    os.path.join(tmp, "tables.h")], check=True)
    exe = os.path.join(tmp, "bench")
    subprocess.run(["gcc", "-O3", "-ffp-contract=off", "-march=native", "-I", str(ROOT / "csrc"),
                    "-I", tmp, *map(str, sorted((ROOT / "csrc").glob("*.c"))),
                    str(ROOT / "benchmarks" / "c" / "bench_main.c"), "-o", exe, "-lm"],
                   check=True)
    return exe


def bare(exe: str, n: int, games: int) -> float:
    """Summed games/s of n copies started together (each: a warm-up, then 3 timed calls)."""
    per = max(1, games // 3)
    procs = [subprocess.Popen([exe, "4", str(per), "3"], stdout=subprocess.PIPE, text=True)
             for _ in range(n)]
    total = 0.0
    for p in procs:
        out, _ = p.communicate()
        m = re.search(r"([\d.]+) games/s", out)
        if p.returncode or not m:
            raise SystemExit(f"bench_main failed: {out!r}")
        total += float(m.group(1))
    return total


def runner(n: int, games: int, shard: int | None) -> tuple[float, float]:
    """(games/s by the command's wall clock, games/s by the run's own wall)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        cmd = [sys.executable, "-m", "uno_sim.cli", "run", "--games", str(games), "--seed", "1",
               "--jobs", str(n), "--summary-only", "--out", out]
        if shard:
            cmd += ["--shard-size", str(shard)]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        wall = time.perf_counter() - t0
        with open(os.path.join(out, "summary.json")) as f:
            own = json.load(f).get("games_per_second", float("nan"))
    return games / wall, own


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--games-per-job", type=int, default=200_000)
    ap.add_argument("--shard-size", type=int, default=None, help="the runner's (default its own)")
    ap.add_argument("--repeats", type=int, default=1, help="runs per cell; the best is kept")
    args = ap.parse_args()
    jobs = sorted(set(args.jobs))
    if 1 not in jobs:
        jobs = [1] + jobs
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_bare(tmp)
        print(f"machine: {os.cpu_count()} cores; {args.games_per_job:,} games per job; "
              f"best of {args.repeats}")
        print(f"{'jobs':>4} {'bare g/s':>12} {'bare eff':>8} {'runner g/s':>12} {'eff':>6} "
              f"{'own g/s':>12} {'runner/bare':>11}")
        base = None
        for n in jobs:
            games = n * args.games_per_job
            b = max(bare(exe, n, games // n) for _ in range(args.repeats))
            r = max((runner(n, games, args.shard_size) for _ in range(args.repeats)),
                    key=lambda x: x[0])
            if base is None:
                base = (b, r[0])
            print(f"{n:>4} {b:>12,.0f} {b / (n * base[0]):>8.2f} {r[0]:>12,.0f} "
                  f"{r[0] / (n * base[1]):>6.2f} {r[1]:>12,.0f} {r[0] / b:>11.2f}", flush=True)


if __name__ == "__main__":
    main()
