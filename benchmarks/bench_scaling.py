"""Parallel scaling: the runner against the machine's own ceiling.

    python benchmarks/bench_scaling.py --jobs 1 2 --repeats 3      # a 2-core machine
    python benchmarks/bench_scaling.py --jobs 1 8 16 --games-per-job 300000

For each N of --jobs, on the same machine, --repeats rounds of the two below in turns
(bare first in odd rounds, the runner first in even ones, so that a drift of the
machine's load falls on both):

  bare    N copies of benchmarks/c/bench_main.c (the C engine alone, no Python, built
          with the extension's own flags) started together; their games/s summed.  What
          N cores can give at all (memory bandwidth, shared caches, turbo and SMT included).
  runner  `uno-sim run --summary-only --jobs N` on N x --games-per-job games, timed by
          the wall clock of the whole command (interpreter start, imports, workers,
          shards, aggregation: `cmd`) and by the run's own wall (its summary's
          games_per_second: `own`).

Printed per N: the median games/s of each, the efficiency of bare against N times its
1-job figure, and the two ratios runner/bare (own and cmd) as the median over the rounds
with their range (each round's runner against the bare run next to it).  `cpu` is the
same ratio by CPU time (games per CPU-second of the runner's processes against bare's),
which a loaded machine disturbs less than wall clocks.  The load average is printed
before each N.  Classic 4-player greedy games; the run writes only its shard records and
summary (--out in a temporary folder).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def extension_flags() -> list[str]:
    """The C flags setup.py compiles the engine with (-O3, no FMA, -mpopcnt where the CPU has
    it), so that bare and the runner play the same machine code."""
    flags = ["-O3", "-ffp-contract=off"]
    try:
        with open("/proc/cpuinfo") as f:
            if " popcnt" in next((ln for ln in f if ln.startswith("flags")), ""):
                flags.append("-mpopcnt")
    except OSError:
        pass
    return flags


def build_bare(tmp: str) -> str:
    """benchmarks/c/bench_main.c built as the engine's extension is."""
    subprocess.run([sys.executable, str(ROOT / "tests" / "c" / "make_tables.py"),
                    os.path.join(tmp, "tables.h")], check=True)
    exe = os.path.join(tmp, "bench")
    subprocess.run(["gcc", *extension_flags(), "-I", str(ROOT / "csrc"),
                    "-I", tmp, *map(str, sorted((ROOT / "csrc").glob("*.c"))),
                    str(ROOT / "benchmarks" / "c" / "bench_main.c"), "-o", exe, "-lm"],
                   check=True)
    return exe


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def bare(exe: str, n: int, games: int) -> tuple[float, float]:
    """(summed games/s of n copies started together, each a warm-up then 3 timed calls of
    games / 3; games per CPU-second of all copies, warm-ups included)."""
    per = max(1, games // 3)
    c0 = _children_cpu()
    total = summed_rate([subprocess.Popen([exe, "4", str(per), "3"], stdout=subprocess.PIPE,
                                          text=True) for _ in range(n)])
    played = n * (3 * per + per // 10 + 1)
    return total, played / (_children_cpu() - c0)


def summed_rate(procs) -> float:
    """The sum of the rates (`N games/s` or `N steps/s`) the processes print."""
    total = 0.0
    for p in procs:
        out, _ = p.communicate()
        m = re.search(r"([\d.]+) (games|steps)/s", out)
        if p.returncode or not m:
            raise SystemExit(f"{' '.join(map(str, p.args))} failed: {out!r}")
        total += float(m.group(1))
    return total


def runner(n: int, games: int, shard: int | None) -> tuple[float, float, float]:
    """(games/s by the command's wall clock, by the run's own wall, games per CPU-second of
    the command's processes)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        cmd = [sys.executable, "-m", "uno_sim.cli", "run", "--games", str(games), "--seed", "1",
               "--jobs", str(n), "--summary-only", "--out", out]
        if shard:
            cmd += ["--shard-size", str(shard)]
        c0 = _children_cpu()
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        wall = time.perf_counter() - t0
        cpu = _children_cpu() - c0
        with open(os.path.join(out, "summary.json")) as f:
            own = json.load(f).get("games_per_second", float("nan"))
    return games / wall, own, games / cpu


def _load() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def _spread(values: list[float]) -> str:
    return (f"{statistics.median(values):.3f} [{min(values):.3f}, {max(values):.3f}]"
            if len(values) > 1 else f"{values[0]:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--games-per-job", type=int, default=1_000_000)
    ap.add_argument("--shard-size", type=int, default=None, help="the runner's (default its own)")
    ap.add_argument("--repeats", type=int, default=1, help="rounds of bare and runner per N")
    args = ap.parse_args()
    jobs = sorted(set(args.jobs))
    if 1 not in jobs:
        jobs = [1] + jobs
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_bare(tmp)
        print(f"machine: {os.cpu_count()} cores; {args.games_per_job:,} games per job; "
              f"{args.repeats} rounds per N, bare and runner in turns")
        print(f"{'jobs':>4} {'bare g/s':>11} {'eff':>5} {'cmd g/s':>11} {'own g/s':>11}  "
              f"{'own/bare':<22} {'cmd/bare':<22} {'cpu':<22} load")
        base = None
        for n in jobs:
            games = n * args.games_per_job
            load = _load()
            rows = []
            for r in range(args.repeats):
                if r % 2 == 0:
                    b = bare(exe, n, games // n)
                    x = runner(n, games, args.shard_size)
                else:
                    x = runner(n, games, args.shard_size)
                    b = bare(exe, n, games // n)
                rows.append((b, x))
            b = statistics.median(r[0][0] for r in rows)
            cmd = statistics.median(r[1][0] for r in rows)
            own = statistics.median(r[1][1] for r in rows)
            if base is None:
                base = b
            print(f"{n:>4} {b:>11,.0f} {b / (n * base):>5.2f} {cmd:>11,.0f} {own:>11,.0f}  "
                  f"{_spread([x[1] / bb[0] for bb, x in rows]):<22} "
                  f"{_spread([x[0] / bb[0] for bb, x in rows]):<22} "
                  f"{_spread([x[2] / bb[1] for bb, x in rows]):<22} {load}", flush=True)


if __name__ == "__main__":
    main()
