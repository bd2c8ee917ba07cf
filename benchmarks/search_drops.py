"""How often the search players cannot use a sample (benchmarks/results.md, "Search players").

    python benchmarks/search_drops.py --games 20 --seed 1 [--players 2] [--spec SPEC]

For each rule set (classic, flip, extreme and a few house rules) the search player (seat 0,
the other seats greedy) plays `--games` complete games of the run `--seed`; its counters
(engine.play_games' `search_stats`, docs/policies.md "Search players") give the share of
its decisions with more than one legal answer that the rollout policy answered because no
sample could be built, and the share of the samples drawn that were dropped.  Intervals:
bootstrap 95% over games (scipy.stats.bootstrap; a game's decisions and samples are not
independent).  "ms/dec": the search seat's CPU time per decision it searched or fell back
on (the games' process time over those decisions: the greedy seats' time is negligible).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from uno_sim.bench import machine  # noqa: E402
from uno_sim.engine import play_games  # noqa: E402
from uno_sim.rules import Rules  # noqa: E402

CASES = [
    ("classic", {}),
    ("flip", {}),
    ("extreme", {}),
    ("house-2018", {}),
    ("classic", {"stacking": "both", "jump_in": True, "seven_o": True}),
    ("classic", {"draw_until_playable": True, "forced_play": True}),
]


def _ratio_ci(num: np.ndarray, den: np.ndarray) -> tuple[float, float, float]:
    """sum(num) / sum(den) over games, with a bootstrap 95% interval over games."""
    from scipy.stats import bootstrap

    total = den.sum()
    if total == 0:
        return float("nan"), float("nan"), float("nan")
    est = num.sum() / total
    if num.sum() == 0 or len(num) < 2:
        return est, est, est
    res = bootstrap((num, den), lambda a, b: a.sum() / max(b.sum(), 1), paired=True,
                    vectorized=False, n_resamples=999, method="percentile",
                    random_state=np.random.default_rng(0))
    return est, res.confidence_interval.low, res.confidence_interval.high


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default="pimc(samples=16,rollouts=1)")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, default=2)
    args = ap.parse_args(argv)
    print(f"machine: {machine()}; {args.spec} at seat 0, the others greedy; "
          f"{args.games} games of run {args.seed}, {args.players} players")
    print(f"{'rules':<50} {'decisions':>9} {'fallback %':>20} {'samples':>8} "
          f"{'dropped %':>20} {'ms/dec':>7}")
    for variant, house in CASES:
        rules = Rules(variant=variant, players=args.players, **house)
        c0 = time.process_time()
        cols = play_games(rules, [args.spec] + ["greedy"] * (args.players - 1), seed=args.seed,
                          first_game=0, n_games=args.games)
        cpu = time.process_time() - c0
        st = cols["search_stats"][:, 0, :].astype(float)
        dec = st[:, 0] + st[:, 1]
        fb = _ratio_ci(st[:, 1], dec)
        dr = _ratio_ci(st[:, 3], st[:, 2])
        name = variant + "".join(f" {k}={v}" for k, v in house.items())
        print(f"{name:<50} {int(dec.sum()):>9} "
              f"{100 * fb[0]:>6.2f} [{100 * fb[1]:.2f}, {100 * fb[2]:.2f}] "
              f"{int(st[:, 2].sum()):>8} "
              f"{100 * dr[0]:>6.2f} [{100 * dr[1]:.2f}, {100 * dr[2]:.2f}] "
              f"{1e3 * cpu / max(dec.sum(), 1):>7.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
