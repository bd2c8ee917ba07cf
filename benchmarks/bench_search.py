"""Strength and cost of the search players (benchmarks/results.md, "Search players").

    python benchmarks/bench_search.py --deals 100 --seed 1 [--players 2,4] [SPEC ...]

For each spec (default: pimc, pimc(value=round), ismcts) and player count, every deal
(a game number of the run `--seed`) is played once per seat the search player can take,
the other seats greedy, with the same game number: the same dealer draw and deals for
every seat and every spec (paired, common random numbers).  The search player's score on
a deal is its mean share of the wins over those seatings; the interval is the normal 95%
interval over deals (uno_sim.stats.share_ci), the even share 1 / players.  Two specs are
compared on the same deals by the paired difference of their per-deal scores, with a
bootstrap 95% interval (scipy.stats.bootstrap).  The CPU time per decision turn of the
search seat is the CPU time of its games over their turns / players; the CPU time per
decision is that of its games over the search seat's decisions (searched, or answered by
the rollout policy: the search counters), which counts the greedy seats' few microseconds
too.  Specs may name network weights (`pimc(rollout=net,leaf=2,weights=FILE)`,
docs/policies.md "With a network"); `net(weights=FILE)` is measured the same way.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from uno_sim.bench import machine  # noqa: E402
from uno_sim.rules import Rules  # noqa: E402
from uno_sim.runner import play_columns, win_matrix  # noqa: E402
from uno_sim.stats import share_ci  # noqa: E402


def scores(spec: str, players: int, deals: int, seed: int) -> tuple[np.ndarray, float, float]:
    """Per deal, the search seat's mean share of the wins over its seatings; CPU s/turn;
    CPU s per decision of the search seat (NaN for a seat without search counters)."""
    rules = Rules(players=players)
    score = np.zeros(deals)
    cpu, turns, decisions = 0.0, 0, 0
    for seat in range(players):
        specs = ["greedy"] * players
        specs[seat] = spec
        c0 = time.process_time()
        cols = play_columns(rules, specs, seed, 0, deals)
        cpu += time.process_time() - c0
        turns += int(cols["turns"].sum())
        if "search_stats" in cols:  # searched + answered by the rollout policy
            decisions += int(cols["search_stats"][:, seat, :2].sum())
        score += win_matrix(cols)[:, seat]
    return score / players, cpu / (turns / players), cpu / decisions if decisions else np.nan


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="*", default=["pimc", "pimc(value=round)", "ismcts"])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", default="2,4")
    args = ap.parse_args(argv)
    from scipy.stats import bootstrap

    print(f"machine: {machine()}; classic; {args.deals} deals of run {args.seed}; "
          f"each deal once per seat of the search player, the others greedy")
    print(f"{'players':>7}  {'spec':<34} {'share':>6}  {'95% interval':<17} {'even':>5}  "
          f"{'ms CPU/turn':>11}  {'ms CPU/decision':>15}")
    for p in map(int, args.players.split(",")):
        got = {}
        for spec in args.specs:
            s, per_turn, per_dec = scores(spec, p, args.deals, args.seed)
            got[spec] = s
            m, lo, hi = share_ci(list(s))
            print(f"{p:>7}  {spec:<34} {m:6.3f}  [{lo:.3f}, {hi:.3f}]    {1 / p:5.3f}  "
                  f"{1e3 * per_turn:11.2f}  {1e3 * per_dec:15.3f}", flush=True)
        for a, b in itertools.combinations(args.specs, 2):
            d = got[a] - got[b]
            ci = bootstrap((d,), np.mean, n_resamples=2000, random_state=0,
                           method="percentile").confidence_interval
            print(f"{p:>7}  paired {a} - {b}: {d.mean():+.3f} [{ci.low:+.3f}, {ci.high:+.3f}]",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
