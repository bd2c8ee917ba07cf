"""What the network player learned, decision kind by decision kind (docs/training.md).

    python benchmarks/net_kinds.py --variant classic --players 2 --games 200 --seed 5
    python benchmarks/net_kinds.py --weights runs/x/net.unonet --teacher ismcts
    python benchmarks/net_kinds.py --weights runs/h/net.unonet --rule stacking=both \
        --rule jump_in=true --rule seven_o=true

Two measures, on seeded games never used in training (run `--seed`, far from the training
and curve runs):

1. Agreement with the teacher, per decision kind.  The teacher (a search player, `ismcts`
   by default) plays one seat against greedy (and strategic, in turn), and the engine's
   decision recorder (uno_sim.players.record) writes every decision of that seat with more
   than one legal answer; the network then answers each recorded observation (the numpy
   twin of the C player, netfile.forward_batch: the highest legal logit).  Per kind: the
   number of decisions, the share the network answers as the teacher did, and how many
   distinct answers each gives (a kind that collapsed to one answer shows 1).
2. The challenge, against a table that never bluffs (greedy) and one that bluffs half the
   time it can (`greedy(bluff=0.5)`): the share of the Wild Draw Fours played on the seat
   that it challenged, split by what the card was (a bluff or legal, the recorder's
   `truth`), for the network and for each search player given with --search.

Each share comes with its 95% interval (uno_sim.stats.wilson at the row count: the rows of
one game are not independent, so the interval is a guide).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from uno_sim.bench import machine  # noqa: E402
from uno_sim.players import netfile  # noqa: E402
from uno_sim.players.distil import yes_no  # noqa: E402
from uno_sim.players.net import check_fits, shipped_path  # noqa: E402
from uno_sim.players.record import record  # noqa: E402
from uno_sim.rules import Rules, RulesError, parse_rule_switches  # noqa: E402
from uno_sim.stats import wilson  # noqa: E402

KINDS = ("play", "replacement", "color", "challenge", "call UNO", "catch", "play drawn",
         "target", "stack", "jump-in", "discard")
CHALLENGE = 3


def _ci(k: int, n: int) -> str:
    if not n:
        return "-"
    lo, hi = wilson(k, n)
    return f"{k / n:.3f} [{lo:.3f}, {hi:.3f}] ({n})"


def table_rows(rules: Rules, focal: str, opponents: list[str], games: int, seed: int) -> dict:
    """The decisions of `focal` at seat i against opponent i // players in turn, pooled."""
    parts = []
    per = max(1, games // (rules.players * len(opponents)))
    k = 0
    for opp in opponents:
        for seat in range(rules.players):
            specs = [focal if s == seat else opp for s in range(rules.players)]
            parts.append(record(rules, specs, seats=[seat], games=per, seed=seed,
                                first_game=k * per, obs_seats=rules.players))
            k += 1
    keys = ("obs", "mask", "decision", "action", "truth")
    return {c: np.concatenate([p[c] for p in parts]) for c in keys}


def agreement(net, rows: dict) -> list[tuple]:
    """(kind, n, agreement, chance, the teacher's distinct answers, the network's); chance:
    the agreement of a uniformly random legal answer (the mean of 1 / legal answers)."""
    mask = rows["mask"].astype(bool)
    logits, _ = netfile.forward_batch(net, rows["obs"])
    pred = np.where(mask, logits, -np.inf).argmax(1)
    chance = 1.0 / mask.sum(1)
    out = []
    for d, name in enumerate(KINDS):
        s = rows["decision"] == d
        if s.any():
            agree = int((pred[s] == rows["action"][s]).sum())
            out.append((name, int(s.sum()), agree, float(chance[s].mean()),
                        len(np.unique(rows["action"][s])), len(np.unique(pred[s]))))
    return out


def challenge_rates(rows: dict) -> tuple[tuple[int, int], tuple[int, int]]:
    """((challenged, met) on bluffs, (challenged, met) on legal cards) of a seat's rows."""
    s = np.flatnonzero(rows["decision"] == CHALLENGE)
    said = rows["action"][s] == yes_no(rows["mask"][s])[0]
    truth = rows["truth"][s]
    return ((int(said[truth == 1].sum()), int((truth == 1).sum())),
            (int(said[truth == 0].sum()), int((truth == 0).sum())))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--weights", help="a weight file (default: the shipped one)")
    ap.add_argument("--teacher", default="ismcts")
    ap.add_argument("--games", type=int, default=200, help="games per measure")
    ap.add_argument("--search", action="append", default=[],
                    help="a search player whose challenges are measured too (repeatable)")
    ap.add_argument("--seed", type=int, default=5_000_000_000)
    ap.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                    help="a rule switch of the games (repeatable): the house rules' decisions")
    a = ap.parse_args(argv)
    try:
        rules = Rules(variant=a.variant, players=a.players, **parse_rule_switches(a.rule))
        path = a.weights or str(shipped_path(rules))
        net = netfile.read(path)
        check_fits(net, rules)
    except RulesError as exc:  # a bad rule, or a file that reads another game: one line
        print(exc, file=sys.stderr)
        return 2
    print(f"machine: {machine()}; {a.variant} {a.players}p{''.join(' ' + r for r in a.rule)}, "
          f"weights {path}, "
          f"run {a.seed}, {a.games} games per measure")
    t = time.process_time()
    rows = table_rows(rules, a.teacher, ["greedy", "strategic"], a.games, a.seed)
    print(f"\nagreement with {a.teacher} on its own decisions "
          f"({time.process_time() - t:.0f} CPU-s of labels)")
    print(f"{'kind':12s} {'agreement [95%] (decisions)':34s} {'chance':7s} "
          "answers: teacher, net")
    for name, n, agree, chance, ta, na in agreement(net, rows):
        print(f"{name:12s} {_ci(agree, n):34s} {chance:<7.3f} {ta}, {na}")
    print("\nchallenges: share of the Wild Draw Fours played on the seat that it challenged")
    print(f"{'player':28s} {'table':18s} {'on bluffs':26s} {'on legal cards':26s}")
    players = [(f"net(weights={path})", "net")] + [(s, s) for s in a.search]
    for spec, name in players:
        for table in ("greedy", "greedy(bluff=0.5)"):
            n = a.games if name == "net" else max(a.players * 2, a.games // 4)
            r = table_rows(rules, spec, [table], n, a.seed + 1)
            (yb, nb), (yl, nl) = challenge_rates(r)
            print(f"{name:28s} {table:18s} {_ci(yb, nb):26s} {_ci(yl, nl):26s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
