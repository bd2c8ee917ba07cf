"""Strength and cost of the network player's weights (docs/training.md, "The shipped weights").

    python benchmarks/bench_net.py --deals 1000 --seed 1            # the shipped weights
    python benchmarks/bench_net.py --weights runs/x/net.unonet --variant flip --players 4
    python benchmarks/bench_net.py --opponent ismcts --deals 200 --no-strategic
    python benchmarks/bench_net.py --weights runs/quick/net.unonet --opponent random \
        --opponent greedy                                          # a first run's weights

For each weight file: one seat of `net(weights=FILE)` against greedy (or each --opponent)
at every other seat, every deal (a game number of run `--seed`) played once per seat of
the network, the other seats the opponent, with the same game number (paired deals, seats
rotated: uno_sim.players.strength.spec_share; a game that does not end is cut there and
counted, its share 0).  Its score on a deal is its mean share of the game's
win over those seatings; the figure is the mean score with its 95% interval
(uno_sim.stats.share_ci), against the even share 1 / players.  The same deals are played
with `strategic` and with the search players `pimc` and `ismcts` (their defaults) at the
network's seat when --search is given, for comparison.  The cost: the CPU time of the games
with the network seat less that of the same games all greedy, over the network's own turns
(half the turns at 2 players, a quarter at 4; a turn's nested decisions, colour and UNO
calls, are part of it), best of --repeats; and the same over the network's decisions with
more than one legal answer, the ones it evaluates the network for (counted in the same
games by the decision recorder, `uno_sim.players.record`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from uno_sim.bench import machine  # noqa: E402
from uno_sim.players.strength import spec_share  # noqa: E402
from uno_sim.rules import Rules  # noqa: E402
from uno_sim.runner import play_columns  # noqa: E402

SHIPPED = [("classic", 2), ("classic", 4), ("flip", 2), ("flip", 4)]


def cost_per_turn(spec: str, rules: Rules, games: int, seed: int,
                  repeats: int) -> tuple[float, float]:
    """CPU seconds per own turn of `spec` at seat 0 among greedy, less greedy's own cost,
    and the same per decision of that seat with more than one legal answer."""
    from uno_sim.players.record import record

    from uno_sim.policies import parse_policy

    def timed(specs):
        best = float("inf")
        for _ in range(repeats):
            c = time.process_time()
            cols = play_columns(rules, specs, seed, 0, games)
            best = min(best, time.process_time() - c)
        return best, int(cols["turns"].sum())

    others = [parse_policy("greedy")] * (rules.players - 1)
    with_net, turns = timed([parse_policy(spec)] + others)
    base, base_turns = timed([parse_policy("greedy")] + others)
    # the all-greedy games are other games: scale their cost per turn to these turns
    extra = with_net - base * turns / base_turns
    decisions = len(record(rules, [spec] + ["greedy"] * (rules.players - 1), seats=[0],
                           games=games, seed=seed, obs_seats=rules.players)["action"])
    return extra / (turns / rules.players), extra / decisions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", help="one weight file (default: the shipped ones)")
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cost-games", type=int, default=300)
    ap.add_argument("--opponent", action="append", metavar="SPEC",
                    help="the policy at every other seat (repeatable: each in turn; default "
                         "greedy; e.g. ismcts)")
    ap.add_argument("--no-strategic", dest="strategic", action="store_false",
                    help="leave out strategic's line")
    ap.add_argument("--search", action="store_true",
                    help="also the search players at the same seat on the same deals")
    args = ap.parse_args(argv)
    opponents = args.opponent or ["greedy"]
    if args.weights:
        cells = [(args.variant, args.players, f"net(weights={args.weights})")]
    else:
        cells = [(v, k, "net") for v, k in SHIPPED]
    print(f"machine: {machine()}; {args.deals} deals of run {args.seed}, one seat against "
          f"{' / '.join(opponents)} at every other seat, each deal once per seat")
    for variant, k, spec in cells:
        rules = Rules(variant=variant, players=k)
        focal = [spec] + (["strategic"] if args.strategic else []) + \
            (["pimc", "ismcts"] if args.search else [])
        for f, o in ((f, o) for o in opponents for f in focal):
            c = time.process_time()
            s = spec_share(f, rules, args.deals, args.seed, o)
            cpu = time.process_time() - c
            vs = f" vs {o}" if args.opponent else ""
            cut = f", {s.cut} games cut" if s.cut else ""
            line = (f"{variant} {k}p  {f:<28}{vs} {s.share:.3f} [{s.low:.3f}, {s.high:.3f}] "
                    f"(even {1 / k:.3f}; {cpu:.1f} CPU-s{cut})")
            if f == spec and o == opponents[0]:
                turn, decision = cost_per_turn(spec, rules, args.cost_games, args.seed,
                                               args.repeats)
                line += (f"; {turn * 1e6:.1f} us of CPU per own turn, "
                         f"{decision * 1e6:.1f} per decision")
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
