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


def play_pair(a, b, players: int = 2, deals: int = 1000, seed: int = 0, rules: Rules | None = None,
              engine: str = "c") -> PairResult:
    """A vs B over `deals` deals, each played once per seat rotation."""
    from ..runner import play_columns, win_matrix

    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
            or not 2 <= deals <= MAX_DEALS:
        raise RulesError(f"invalid deals {deals!r}: expected an integer 2..{count_text(MAX_DEALS)}")
    rules = (rules or Rules()).replace(players=players)
    sa, sb = parse_policy(a), parse_policy(b)
    base = [s % 2 == 0 for s in range(players)]  # True: an A seat
    score = np.zeros(deals)
    for r in range(players):
        mine = np.array(base[-r:] + base[:-r] if r else base)
        specs = [sa if m else sb for m in mine]
        for first in range(0, deals, DEAL_BATCH):  # each game has its own seed: same games
            k = min(DEAL_BATCH, deals - first)
            cols = play_columns(rules, specs, seed, first, k, engine=engine)
            w = win_matrix(cols)  # a team win (C20) credits both of its seats: normalise
            total = w.sum(axis=1)
            score[first:first + k] += np.divide(w[:, mine].sum(axis=1), total,
                                                out=np.zeros(k), where=total > 0)
    score /= players
    m, lo, hi = share_ci(list(score))
    return PairResult(str(sa), str(sb), players, deals, m, lo, hi, sum(base) / players)


def tournament(policies, players=(2, 4), deals: int = 1000, seed: int = 0,
               rules: Rules | None = None, engine: str = "c",
               progress: bool | None = False) -> list[PairResult]:
    """Every pairing of `policies` (earlier ones as A) at every player count.

    `progress`: a bar over the pairings on stderr (uno_sim.progress; None: on a terminal).
    """
    from ..progress import bar

    pairs = [(k, i, j) for k in players for i in range(len(policies))
             for j in range(i + 1, len(policies))]
    out = []
    with bar(len(pairs), "tournament", unit="pairing", enabled=progress) as b:
        for k, i, j in pairs:
            out.append(play_pair(policies[i], policies[j], k, deals, seed, rules, engine))
            b.update(1)
    return out
