"""Paired tournaments between policies.

For a pairing A vs B at K players, seats alternate A, B, A, B, ... (an odd K
gives A one seat more, which the even share accounts for) and every deal is
played K times, once per rotation of that assignment, with the same game
number: the same seed, so the same dealer draw and the same deal of every
round for every rotation (the deals come from their own random streams,
whatever the policies decide; see docs/engine.md).
A's score on a deal is the mean, over its K rotations, of the share of the
game won by A's seats; the reported 95% interval is a Wilson interval for the
mean of that per-deal score at the effective sample size its spread over the
deals implies (`stats.share_ci`): it respects the pairing and stays inside
[0, 1].  The even share is the fraction of seats A holds: what A wins when both
policies play alike.

Parallel work (`jobs`) is split into blocks of deals of one pairing whose size depends
only on the deal count (`league.block_size`); each deal's score is computed whole in one
block and the scores are put back in deal order, so the table is the same at any number
of workers.  `estimate` times a small sample of each pairing's games (at least one game,
up to SAMPLE_CPU CPU-seconds) and scales it to the deals asked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..options import count_text
from .specs import parse_policy
from ..rules import Rules, RulesError
from ..stats import share_ci


HEADER = ("A wins: A's share of the wins per deal, the mean over the seat rotations, with a "
          "95% interval (Wilson at the effective sample size); even: A's share of the seats, "
          "what A wins if both play alike")

# At most this many deals per pairing: the per-deal scores are kept (8 bytes each), the
# games' columns only a batch at a time.
MAX_DEALS = 10**7
DEAL_BATCH = 100_000
SAMPLE_CPU = 0.05  # CPU seconds of games timed per pairing and player count by `estimate`
SAMPLE_MAX_GAMES = 256


@dataclass
class PairResult:
    """A vs B at `players` players: A's mean share of the wins, its interval and the even share."""

    a: str
    b: str
    players: int
    deals: int
    share: float  # A's mean share of the wins
    low: float
    high: float
    even: float  # A's share if both played alike

    def line(self) -> str:
        """One line of `uno-sim tournament`: A's share, its interval, the even share, a verdict."""
        verdict = "A better" if self.low > self.even else "B better" if self.high < self.even \
            else "no clear difference"
        return (f"{self.players}p  {self.a:<28} vs {self.b:<28} A wins {self.share:.4f} "
                f"[{self.low:.4f}, {self.high:.4f}] (even {self.even:.3f}, {self.deals} deals, "
                f"{verdict})")


def _check_deals(deals) -> int:
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
            or not 2 <= deals <= MAX_DEALS:
        raise RulesError(f"invalid deals {deals!r}: expected an integer 2..{count_text(MAX_DEALS)}")
    return int(deals)


def _rotations(sa, sb, players: int):
    """Per seat rotation: the seats' specs and A's seats (a mask)."""
    base = [s % 2 == 0 for s in range(players)]  # True: an A seat
    for r in range(players):
        mine = np.array(base[-r:] + base[:-r] if r else base)
        yield [sa if m else sb for m in mine], mine


def deal_scores(a, b, rules: Rules, seed: int, first: int, n: int, engine: str = "c"
                ) -> np.ndarray:
    """A's score on deals first .. first + n - 1 of pairing A vs B at `rules.players`
    players: its share of the win averaged over the seat rotations (one block of work)."""
    from ..runner import play_columns, win_matrix

    players = rules.players
    score = np.zeros(n)
    for specs, mine in _rotations(parse_policy(a), parse_policy(b), players):
        for lo in range(0, n, DEAL_BATCH):  # each game has its own seed: same games
            k = min(DEAL_BATCH, n - lo)
            cols = play_columns(rules, specs, seed, first + lo, k, engine=engine)
            w = win_matrix(cols)  # a team win (C20) credits both of its seats: normalise
            total = w.sum(axis=1)
            score[lo:lo + k] += np.divide(w[:, mine].sum(axis=1), total,
                                          out=np.zeros(k), where=total > 0)
    return score / players


def play_pair(a, b, players: int = 2, deals: int = 1000, seed: int = 0, rules: Rules | None = None,
              engine: str = "c", jobs: int = 1) -> PairResult:
    """A vs B over `deals` deals, each played once per seat rotation."""
    return tournament([a, b], [players], deals, seed, rules, engine, jobs=jobs)[0]


def _pairings(policies, players) -> list:
    return [(k, i, j) for k in players for i in range(len(policies))
            for j in range(i + 1, len(policies))]


def tournament(policies, players=(2, 4), deals: int = 1000, seed: int = 0,
               rules: Rules | None = None, engine: str = "c",
               progress: bool | None = False, jobs: int = 1) -> list[PairResult]:
    """Every pairing of `policies` (earlier ones as A) at every player count.

    `progress`: a bar over the blocks of deals on stderr (uno_sim.progress; None: on a
    terminal).  `jobs`: worker processes (-1: all cores); the same table at any number.
    """
    from .league import block_size, run_tasks

    deals = _check_deals(deals)
    specs = [parse_policy(p) for p in policies]
    rules = rules or Rules()
    size = block_size(deals)
    tasks, where = [], []
    for k, i, j in _pairings(specs, players):
        for first in range(0, deals, size):
            tasks.append((specs[i], specs[j], rules.replace(players=k), seed, first,
                          min(size, deals - first), engine))
            where.append((k, i, j))
    scores = run_tasks(deal_scores, tasks, _jobs(jobs), "tournament", progress)
    out = []
    for k, i, j in _pairings(specs, players):
        score = np.concatenate([sc for w, sc in zip(where, scores) if w == (k, i, j)])
        m, lo, hi = share_ci(list(score))
        out.append(PairResult(str(specs[i]), str(specs[j]), k, deals, m, lo, hi,
                              ((k + 1) // 2) / k))
    return out


def _jobs(jobs) -> int:
    import os

    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or \
            not (jobs == -1 or 1 <= jobs <= 4096):
        raise RulesError(f"invalid jobs {jobs!r}: expected a positive integer or -1 (all cores)")
    return (os.cpu_count() or 1) if jobs == -1 else int(jobs)


def estimate(policies, players=(2, 4), deals: int = 1000, seed: int = 0,
             rules: Rules | None = None, engine: str = "c", jobs: int = 1) -> dict:
    """What `tournament` would cost, from a sample: per pairing and player count, games of
    its first seat rotation on its first deals (at least one, until SAMPLE_CPU CPU-seconds
    or SAMPLE_MAX_GAMES games), scaled to deals x rotations.  Returns cpu_seconds,
    wall_seconds (on min(jobs, cores) workers), sample_cpu_seconds, games."""
    import os
    import time

    from ..runner import play_columns

    deals = _check_deals(deals)
    jobs = _jobs(jobs)
    specs = [parse_policy(p) for p in policies]
    rules = rules or Rules()
    total = sample = 0.0
    games = 0
    for k, i, j in _pairings(specs, players):
        seats = next(_rotations(specs[i], specs[j], k))[0]
        cpu, n, played = 0.0, 1, 0
        while played < min(deals, SAMPLE_MAX_GAMES) and (played == 0 or cpu < SAMPLE_CPU):
            n = min(n, deals - played, SAMPLE_MAX_GAMES - played)
            c0 = time.process_time()
            play_columns(rules.replace(players=k), seats, seed, played, n, engine=engine)
            cpu += time.process_time() - c0
            played += n
            n *= 2
        total += cpu / played * deals * k
        sample += cpu
        games += deals * k
    return {"cpu_seconds": total, "wall_seconds": total / min(jobs, os.cpu_count() or 1),
            "sample_cpu_seconds": sample, "games": games, "jobs": jobs}
