"""Complete games per second per core of the C engine (the figures of `uno-sim bench`).

    python benchmarks/bench_engine.py                      # classic, 2/4/7/10 players
    python benchmarks/bench_engine.py --players 2 4 --games 50000 --record

``--record`` appends the table, with the machine and the commit, to
benchmarks/results.md.  One core, no runner and no I/O: the engine alone.
"""

from __future__ import annotations

import argparse
import datetime
import io
from pathlib import Path

from uno_sim.bench import run_bench
from uno_sim.rules import VARIANTS

RESULTS = Path(__file__).resolve().parent / "results.md"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", nargs="+", default=["classic"], choices=list(VARIANTS))
    ap.add_argument("--players", nargs="+", type=int, default=[2, 4, 7, 10])
    ap.add_argument("--policy", default="greedy")
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--reference-games", type=int, default=0,
                    help="also time the Python reference engine on this many games")
    ap.add_argument("--record", action="store_true", help="append the table to results.md")
    args = ap.parse_args(argv)
    buf = io.StringIO()

    def out(line=""):
        print(line)
        buf.write(line + "\n")

    run_bench(tuple(args.variants), tuple(args.players), args.policy, args.games, args.repeats,
              args.reference_games, out=out)
    if args.record:
        with RESULTS.open("a", encoding="utf-8") as f:
            f.write(f"\n### {datetime.date.today().isoformat()}: bench_engine\n\n```\n")
            f.write(buf.getvalue())
            f.write("```\n")


if __name__ == "__main__":
    main()
