"""The main job end to end: `uno-sim run` wall time, scaling with workers, peak memory.

    python benchmarks/bench_run.py --games 1000000 --jobs 1 2
    python benchmarks/bench_run.py --games 10000000 --summary-only --jobs 2

Each configuration runs `uno-sim run` in a fresh process (so that peak RSS,
read from the children's rusage, is that run's own) writing Parquet to a
temporary directory, unless --summary-only.  Prints games per second,
parallel efficiency against the first --jobs value, and peak memory.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def one_run(args, jobs: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "uno_sim.cli", "run", "--variant", args.variant,
               "--games", str(args.games), "--players", str(args.players), "--seed", "1",
               "--jobs", str(jobs), "--out", os.path.join(tmp, "run")]
        if args.summary_only:
            cmd.append("--summary-only")
        # A wrapper process reports the largest RSS among its own descendants,
        # so that every configuration is measured apart.
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _WRAPPER, *cmd], check=True,
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
    return wall, int(proc.stdout.split()[-1]) / 1024  # ru_maxrss is in KiB on Linux


_WRAPPER = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--summary-only", action="store_true")
    args = ap.parse_args(argv)
    base = None
    print(f"{args.variant}, {args.players} players, {args.games:,} games"
          f"{', summary only' if args.summary_only else ', Parquet output'}")
    print(f"{'jobs':>4} {'wall s':>8} {'games/s':>10} {'efficiency':>10} {'peak MiB':>9}")
    for j in args.jobs:
        wall, peak = one_run(args, j)
        rate = args.games / wall
        if base is None:
            base = (j, rate)
        eff = rate / (base[1] * j / base[0])
        print(f"{j:>4} {wall:>8.2f} {rate:>10,.0f} {eff:>10.0%} {peak:>9.0f}")


if __name__ == "__main__":
    main()
