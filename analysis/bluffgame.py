"""The bluff/challenge game over state-conditioned strategy families.

Players.  Seat 0 is the bluffer; the challenger is the next seat with two
players, and with K > 2 players every other seat (a focal-seat design: they
challenge only restricted cards played by seat 0, `suspect=0`, so they never
challenge each other's legal cards and every effect measured is seat 0's).
Every seat is `greedy`; a rule sets only the knobs named below (docs/rules.md C7,
C12; docs/policies.md).

Bluffing rules (seat 0), over the restricted cards of the variant (C7; UNO
Flip's Wild Draw Two and Wild Draw Color, F4):

* ``never``       plain greedy (bluff=0)
* ``next<=k``     bluff=1, bluff_next=k: bluff only when the next player holds <= k cards
* ``own<=m``      bluff=1, bluff_own=m: only when seat 0 itself holds <= m cards
* ``always``      bluff=1

Challenge rules (the other seats):

* ``never``        plain greedy (challenge=0)
* ``offender<=j``  challenge=1, challenge_offender=j: only when the offender holds <= j
  cards after playing the card
* ``posterior>t``  challenge=posterior, challenge_threshold=t: when the posterior
  P(bluff) = q b / (q b + 1 - q) exceeds t, q the hypergeometric chance that the
  offender held the previous color, b = challenge_prior (default 0.5)
* ``always``       challenge=1

Payoff: seat 0's share of the game's win (1, 0 or 1/k of a shared win), per
game; every pair of rules plays the same seed and game numbers with the
engine's per-decision streams, so the arms are paired game by game.  The game
is zero-sum between seat 0 and the table (the table minimizes seat 0's share;
with the opponents all on one rule, that is maximizing their mean share).
Solved by double oracle over the families (`equilibrium.double_oracle`), with
a finer grid where a family's best parameter lies between two grid points,
and a joint bootstrap over games for every derived number.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .common import StudyError, require_restricted, run_games
from .equilibrium import (BootstrapResult, DoubleOracleResult, PayoffCache, bootstrap,
                          double_oracle)

BLUFF_NEXT = (1, 2, 3, 5)
BLUFF_OWN = (2, 4)
CHALLENGE_OFFENDER = (1, 2, 3, 5)
POSTERIOR = (0.25, 0.5, 0.75)
# the order in which rules are listed: never first (the baseline), always last
_ORDER = {"never": 0, "next": 1, "own": 2, "offender": 1, "posterior": 2, "always": 3}


def greedy_spec(knobs: dict) -> str:
    """greedy with these knobs as a policy spec: "greedy(bluff=1,bluff_next=2)"."""
    return "greedy" + ("(" + ",".join(f"{a}={b}" for a, b in knobs.items()) + ")"
                       if knobs else "")


@dataclass(frozen=True)
class Rule:
    """One strategy of the bluffer (side "bluff") or of the challengers (side "challenge")."""

    side: str
    family: str
    param: float | None = None

    def __post_init__(self):
        fams = {"bluff": ("never", "next", "own", "always"),
                "challenge": ("never", "offender", "posterior", "always")}
        if self.side not in fams or self.family not in fams[self.side]:
            raise StudyError(f"invalid {self.side} rule family {self.family!r}")
        if (self.param is None) != (self.family in ("never", "always")):
            raise StudyError(f"invalid parameter {self.param!r} for the {self.family} rule")

    @property
    def label(self) -> str:
        if self.param is None:
            return self.family
        if self.family == "posterior":
            return f"posterior>{self.param:g}"
        return f"{self.family}<={int(self.param)}"

    def knobs(self, players: int = 2) -> dict:
        """The knobs this rule sets on a greedy seat (none for `never`)."""
        f, p = self.family, self.param
        if self.side == "bluff":
            k = {"never": {}, "always": {"bluff": "1"}}.get(f)
            if k is None:
                k = {"bluff": "1", f"bluff_{f}": str(int(p))}
            return k
        if f == "never":
            return {}
        k = {"challenge": "1"} if f in ("always", "offender") else \
            {"challenge": "posterior", "challenge_threshold": f"{p:g}"}
        if f == "offender":
            k["challenge_offender"] = str(int(p))
        if players > 2:
            k["suspect"] = "0"
        return k

    def spec(self, players: int = 2) -> str:
        """The greedy policy spec that plays this rule at `players` players."""
        return greedy_spec(self.knobs(players))

    def sort_key(self):
        return (_ORDER[self.family], self.param if self.param is not None else 0.0)

    def __str__(self) -> str:
        return self.label


# What each rule name means, for figure legends and tables: (side, family) -> the reading
# of its parameter X.  `own` is also a condition of the challengers' replies that the
# exploitability search finds (the challenger's own hand).
RULE_MEANINGS = {
    ("bluff", "never"): "never bluff",
    ("bluff", "always"): "bluff whenever a restricted card can be played",
    ("bluff", "next"): "bluff only when the next player holds at most X cards",
    ("bluff", "own"): "bluff only when the bluffer holds at most X cards",
    ("challenge", "never"): "never challenge",
    ("challenge", "always"): "challenge every restricted card",
    ("challenge", "offender"): "challenge only when the offender is left with at most X cards",
    ("challenge", "posterior"): "challenge when the estimated probability of a bluff (from "
                                "the offender's hand size and the unseen cards, prior 0.5) "
                                "exceeds X",
    ("challenge", "own"): "challenge only when the challenger holds at most X cards",
}


def rule_legend(side: str, labels) -> str:
    """What the rule names `labels` of one side mean, family by family, in their order of
    first appearance: "next<=X: bluff only when the next player holds at most X cards;
    ...".  A union or intersection ("next<=1 and own<=8") is read through its parts."""
    import re

    seen = {}
    for label in labels:
        for part in re.split(r" and | or ", str(label)):
            m = re.fullmatch(r"([a-z]+)(<=|>)?.*", part.strip())
            fam = m.group(1) if m else part
            if (side, fam) in RULE_MEANINGS and fam not in seen:
                seen[fam] = (f"{fam}{m.group(2)}X" if m and m.group(2) else fam)
    return "; ".join(f"{name}: {RULE_MEANINGS[(side, fam)]}" for fam, name in seen.items())


def bluff_rules(next_sizes=BLUFF_NEXT, own_sizes=BLUFF_OWN) -> list[Rule]:
    return sorted([Rule("bluff", "never"), Rule("bluff", "always")]
                  + [Rule("bluff", "next", int(k)) for k in next_sizes]
                  + [Rule("bluff", "own", int(m)) for m in own_sizes], key=Rule.sort_key)


def challenge_rules(offender_sizes=CHALLENGE_OFFENDER, thresholds=POSTERIOR) -> list[Rule]:
    return sorted([Rule("challenge", "never"), Rule("challenge", "always")]
                  + [Rule("challenge", "offender", int(j)) for j in offender_sizes]
                  + [Rule("challenge", "posterior", float(t)) for t in thresholds],
                  key=Rule.sort_key)


def policies(bluffer: Rule, challenger: Rule, players: int) -> list[str]:
    """Per-seat specs: seat 0 the bluffing rule, every other seat the challenge rule."""
    return [bluffer.spec(players)] + [challenger.spec(players)] * (players - 1)


def setup_policies(players: int) -> str:
    """The setup line's policies: every knob that differs from a plain greedy seat."""
    who = "seat 1" if players == 2 else f"seats 1-{players - 1}"
    suspect = ", suspect=0 (challenge only seat 0's cards)" if players > 2 else ""
    return ("seat 0 greedy with a bluffing rule: never (plain greedy), next<=k "
            "(bluff=1,bluff_next=k), own<=m (bluff=1,bluff_own=m), always (bluff=1); "
            f"{who} greedy with a challenge rule: never (plain greedy), offender<=j "
            "(challenge=1,challenge_offender=j), posterior>t (challenge=posterior,"
            "challenge_threshold=t, challenge_prior=0.5), always (challenge=1)" + suspect)


class SimOracle:
    """Seat 0's per-game win share for a pair of rules, by simulation (the same
    seed and game numbers for every pair); `stats` keeps per pair the mean
    bluffs of seat 0 and challenges of the others per game."""

    def __init__(self, variant: str, players: int, games: int, seed: int, n_jobs: int = 1):
        require_restricted(variant, "bluff")
        self.variant, self.players, self.games, self.seed = variant, players, games, seed
        self.n_jobs = n_jobs
        self.stats: dict = {}

    def __call__(self, bluffer: Rule, challenger: Rule) -> np.ndarray:
        win, self.stats[(bluffer, challenger)] = _arm(self.variant, self.players, bluffer,
                                                      challenger, self.games, self.seed)
        return win

    def many(self, pairs) -> dict:
        """Every pair of `pairs` at once, the arms spread over `n_jobs` worker processes
        (one arm is one run, so results do not depend on `n_jobs`)."""
        pairs = list(pairs)
        if self.n_jobs == 1 or len(pairs) < 2:
            return {p: self(*p) for p in pairs}
        from joblib import Parallel, delayed

        got = Parallel(n_jobs=_workers(self.n_jobs, len(pairs)))(
            delayed(_arm)(self.variant, self.players, b, c, self.games, self.seed)
            for b, c in pairs)
        out = {}
        for p, (win, stats) in zip(pairs, got):
            out[p], self.stats[p] = win, stats
        return out


def _workers(n_jobs: int, tasks: int) -> int:
    """joblib's n_jobs for `tasks` arms: no more workers than arms (a pool starts all of
    its workers at once; each arm is one run, so the results are the same)."""
    import os

    n = (os.cpu_count() or 1) if n_jobs == -1 else n_jobs
    return max(1, min(n, tasks))


def _arm(variant: str, players: int, bluffer: Rule, challenger: Rule, games: int,
         seed: int) -> tuple[np.ndarray, dict]:
    """Seat 0's per-game win share and the arm's bluff and challenge counts per game.

    Some pairs of rules can make a game endless: a seat that bluffs whenever it can,
    against a table that challenges it every time, may take every card back into its
    hand and never shed one (UNO Flip, 4 players).  Such a game stops at the engine's
    safety limit (docs/engine.md); here it counts as a draw, 1/K of a win to every seat,
    and `stats["endless"]` says how many there were."""
    from uno_sim.engine import GameLimitError

    pols = policies(bluffer, challenger, players)
    try:
        g = run_games(variant, players, pols, games, seed)
    except GameLimitError:
        return _arm_by_game(variant, players, pols, games, seed)
    stats = {"bluffs": float(g["bluffs_0"].mean()),
             "challenges": float(sum(g[f"challenges_{s}"].mean() for s in range(1, players))),
             "rounds": float(g["rounds"].mean()), "endless": 0}
    return g["win_0"].to_numpy().astype(float), stats


ENDLESS_TURNS = 20_000  # turns in a round after which a study calls a game endless


def _arm_by_game(variant: str, players: int, pols: list, games: int,
                 seed: int) -> tuple[np.ndarray, dict]:
    """_arm one game at a time, an endless game scored 1/K to every seat."""
    from uno_sim.counterfactual import win_share
    from uno_sim.engine import GameLimitError, play_game
    from uno_sim.rules import Rules

    rules = Rules(variant=variant, players=players)
    win = np.full(games, 1.0 / players)
    bluffs = challenges = rounds = 0.0
    done = 0
    for game in range(games):
        try:
            r = play_game(rules, pols, seed=seed, game=game, max_turns=ENDLESS_TURNS)
        except GameLimitError:
            continue
        done += 1
        win[game] = win_share(r.winners, 0, rules.teams)
        bluffs += r.seats["bluffs"][0]
        challenges += sum(r.seats["challenges"][1:])
        rounds += r.rounds
    done = max(done, 1)
    return win, {"bluffs": bluffs / done, "challenges": challenges / done,
                 "rounds": rounds / done, "endless": games - done}


# ---------------------------------------------------------------------------
# Finer grids
# ---------------------------------------------------------------------------

def _between(a: float, b: float, integer: bool):
    mid = (a + b) / 2
    if integer:
        mid = float(int(round(mid)))
        return mid if min(a, b) < mid < max(a, b) else None
    mid = round(mid * 20) / 20  # thresholds on a 0.05 grid
    return mid if min(a, b) + 1e-9 < mid < max(a, b) - 1e-9 else None


def _pay(mean, rule: Rule, other: Rule) -> float:
    return mean(rule, other) if rule.side == "bluff" else mean(other, rule)


def refine(own: list[Rule], other: list[Rule], mean, maximize: bool) -> list[Rule]:
    """`own` with new rules in its parametric families, finer where the answer changes.

    For each opponent rule and each family with a parameter: the points
    halfway between the family's best parameter (for this side) and its grid
    neighbours; and where the paired effect against `never` changes sign
    between two neighbouring parameters, the point halfway between them
    (integers for hand sizes, a 0.05 grid for thresholds; none where the
    neighbours are already adjacent).  `mean(bluff rule, challenge rule)` is
    the mean payoff (seat 0's share, which the bluffer maximizes).
    """
    sign = 1.0 if maximize else -1.0
    never = next((r for r in own if r.family == "never"), None)
    new = []
    for fam in sorted({r.family for r in own if r.param is not None}):
        members = sorted((r for r in own if r.family == fam), key=lambda r: r.param)
        if len(members) < 2:
            continue
        integer = fam != "posterior"
        points = set()
        for o in other:
            pay = [sign * _pay(mean, r, o) for r in members]
            best = int(np.argmax(pay))
            for nb in (best - 1, best + 1):
                if 0 <= nb < len(members):
                    points.add(_between(members[best].param, members[nb].param, integer))
            if never is not None:
                base = sign * _pay(mean, never, o)
                eff = [p - base for p in pay]
                for i in range(len(members) - 1):
                    if eff[i] * eff[i + 1] < 0:
                        points.add(_between(members[i].param, members[i + 1].param, integer))
        have = {r.param for r in members}
        new += [Rule(members[0].side, fam, int(p) if integer else float(p))
                for p in sorted(points - {None}) if p not in have]
    return sorted(list(own) + new, key=Rule.sort_key)


# ---------------------------------------------------------------------------
# Solving
# ---------------------------------------------------------------------------

@dataclass
class FamilyGame:
    """The bluff/challenge game solved for one variant and player count.

    `rows` / `cols`: every bluffing / challenge rule evaluated (after the finer
    grids); `matrix`: seat 0's mean win share for each pair, `pairs` its
    per-game values; `do`: the double oracle's equilibrium, `do_pairs` the
    pairs it evaluated before converging on the first grids (`do_grid` rules
    by rules); `boot`: the joint bootstrap over
    games of the full matrix: value, mixes, best responses, and the derived
    numbers `edge` (the value less seat 0's share when nobody bluffs or
    challenges), `worth_bluffing`, `worth_challenging`; per challenge rule
    `best_<label>` (seat 0's share when it best-responds) and `gain_<label>`
    (that, less its share when it never bluffs); per bluff rule
    `worst_<label>` (seat 0's share against the table's best response) and
    `hold_<label>` (its share against never challenging, less that).
    `stats`: per pair, seat 0's bluffs and the table's challenges per game.
    """

    variant: str
    players: int
    games: int
    seed: int
    rows: list
    cols: list
    matrix: np.ndarray
    pairs: dict
    do: DoubleOracleResult
    boot: BootstrapResult
    do_pairs: int
    do_grid: tuple
    refined: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    @property
    def baseline(self) -> tuple[Rule, Rule]:
        """(never bluff, never challenge): the pair in which the seats are alike."""
        return (next(r for r in self.rows if r.family == "never"),
                next(c for c in self.cols if c.family == "never"))

    def mean(self, r: Rule, c: Rule) -> float:
        return float(self.matrix[self.rows.index(r), self.cols.index(c)])


def derived_numbers(rows: list[Rule], cols: list[Rule]):
    """The `derived` function of the bootstrap: what bluffing and challenging are worth."""
    never_b = next(r for r in rows if r.family == "never")
    never_c = next(c for c in cols if c.family == "never")

    def f(mean, v: float) -> dict:
        m = np.array([[mean(r, c) for c in cols] for r in rows])
        out = {
            # the value less seat 0's share when nobody bluffs or challenges (the same
            # games, whose expectation is the fair share 1/K: the seats are alike then)
            "edge": v - m[rows.index(never_b), cols.index(never_c)],
            # the value minus what seat 0 can guarantee without ever bluffing
            "worth_bluffing": v - m[rows.index(never_b)].min(),
            # what the table would concede without ever challenging, minus the value
            "worth_challenging": m[:, cols.index(never_c)].max() - v}
        for j, c in enumerate(cols):
            out[f"best_{c.label}"] = m[:, j].max()
            out[f"gain_{c.label}"] = m[:, j].max() - m[rows.index(never_b), j]
        for i, r in enumerate(rows):
            out[f"worst_{r.label}"] = m[i].min()
            out[f"hold_{r.label}"] = m[i, cols.index(never_c)] - m[i].min()
        return out
    return f


def solve(variant: str, players: int, games: int, seed: int, *, oracle=None,
          rows: list[Rule] | None = None, cols: list[Rule] | None = None, n_boot: int = 300,
          n_jobs: int = 1, finer: bool = True) -> FamilyGame:
    """Evaluate the families, refine their grids, solve by double oracle, bootstrap."""
    if players < 2:
        raise StudyError(f"invalid players {players!r}: expected 2..10")
    oracle = oracle or SimOracle(variant, players, games, seed, n_jobs)
    rows = list(rows or bluff_rules())
    cols = list(cols or challenge_rules())
    cache = PayoffCache(oracle)

    def prefetch(rs, cs):
        # with worker processes, evaluate the whole grid at once (the double oracle then
        # reads the cache; `do.pairs` still lists only the pairs it needed)
        if getattr(oracle, "n_jobs", 1) != 1 and hasattr(oracle, "many"):
            todo = [(r, c) for r in rs for c in cs if (r, c) not in cache.pairs]
            cache.pairs.update(oracle.many(todo))

    prefetch(rows, cols)
    do = double_oracle(cache, rows, cols, start_rows=[rows[0]], start_cols=[cols[0]])
    do_pairs, do_grid = len(do.pairs), (len(rows), len(cols))
    refined = []
    if finer:
        new_rows = refine(rows, cols, cache.mean, maximize=True)
        prefetch(new_rows, cols)
        new_cols = refine(cols, new_rows, cache.mean, maximize=False)
        prefetch(new_rows, new_cols)
        refined = [r for r in new_rows if r not in rows] + [c for c in new_cols if c not in cols]
        rows, cols = new_rows, new_cols
        if refined:
            do = double_oracle(cache, rows, cols, start_rows=do.rows, start_cols=do.cols)
    matrix = cache.matrix(rows, cols)  # every pair: the best-response tables need them
    pairs = {(r, c): cache(r, c) for r in rows for c in cols}
    boot = bootstrap(pairs, rows, cols, n_boot=n_boot, seed=seed,
                     derived=derived_numbers(rows, cols))
    return FamilyGame(variant, players, games, seed, rows, cols, matrix, pairs, do, boot,
                      do_pairs, do_grid, refined, getattr(oracle, "stats", {}))
