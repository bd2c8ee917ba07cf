"""A rated league: every pairing of a set of players on paired deals, Bradley-Terry ratings.

Games.  For each variant and player count K, every pairing A vs B is played as
`uno_sim.players.tournament` plays it: the seats alternate A, B, A, B, ... (at 4 players A
holds seats 0 and 2, B seats 1 and 3) and every deal is played K times, once per
rotation of that assignment, with the same game number, so the same deals for every
rotation and every pairing.  A's score on a deal is its mean share of the win over the
K rotations, a number in [0, 1].

Ratings.  Per variant and player count, a Bradley-Terry model with fractional wins:
A's score on a deal counts as that fraction of a win over B (and the rest as B's win
over A), and P(A beats B) = 1 / (1 + exp(-(t_A - t_B + o))), where o = logit(e) and e
is A's share of the seats (o = 0 at an even player count).  The strengths t are the
maximum of that log-likelihood (scipy.optimize.minimize, trust-region Newton with its
gradient and Hessian), with one virtual drawn deal per pairing (half a win each way) so
that a pairing one side always wins (greedy vs random) gives a finite rating gap.
Ratings are on the Elo scale, 400 / ln 10 points per logit (a 400-point gap means odds
of 10 to 1), with one player anchored at 0 (greedy when it plays).  Intervals:
percentile 95% bootstrap over deals: the deals of each pairing are resampled with
replacement (numpy's Generator seeded by the seed and the table), the model refitted;
a seed fixes them.

Thinking time.  The engine does not count decisions, so each player's cost is
measured apart: it plays games against itself (every seat) on the same deals until
0.1 CPU-second or `TIMING_MAX_GAMES` games have passed; its time per decision is
those games' CPU seconds (process time of the process that played them) divided by
their turns, one decision taken per turn (the challenges, colors and UNO calls made
inside a turn are part of it).  The same figures give the estimate of the league's
cost printed before it is played.

Parallel work (`jobs`) is split into blocks of deals of one pairing whose game
numbers depend only on the deal count, so the ratings, intervals and shares are the
same at any number of workers; only the timings vary.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ..files import read_capped, writing
from .specs import parse_policy
from ..rules import Rules, RulesError
from ..runner.storage import MANIFEST_MAX_BYTES

ELO = 400 / math.log(10)  # Elo points per logit
PRIOR_DRAWS = 1.0  # virtual drawn deals per pairing (half a win each way)
MAX_DEALS = 10**6  # deals per pairing
MAX_BOOTSTRAP = 100_000
BLOCK_DEALS = 25  # deals per parallel block (more when a pairing has many deals)
MAX_BLOCKS = 200  # most blocks per pairing
TIMING_CPU = 0.1  # CPU seconds of self-play per player and table for its thinking time
TIMING_MAX_GAMES = 4096
DEFAULT_DEALS = 100
QUICK_DEALS = 12
DEFAULT_VARIANTS = ("classic", "flip")
DEFAULT_PLAYER_COUNTS = (2, 4)
DEFAULT_BOOTSTRAP = 1000
ANCHOR = "greedy"

# The default league, as (spec, spec in --quick).  The search players join only where
# uno_sim.players.specs knows them, the network player only where weights ship for every
# table (`default_players`).
DEFAULT_LEAGUE = (
    ("random", "random"),
    ("greedy", "greedy"),
    ("strategic", "strategic"),
    ("net", "net"),
    ("pimc(samples=4,rollouts=4)", "pimc(samples=2,rollouts=2)"),
    ("pimc(samples=8,rollouts=8)", "pimc(samples=4,rollouts=4)"),
    ("ismcts(iterations=100)", "ismcts(iterations=25)"),
    ("ismcts(iterations=400)", "ismcts(iterations=50)"),
    ("pimc(samples=4,rollouts=4,cheat=1)", "pimc(samples=2,rollouts=2,cheat=1)"),
    ("pimc(samples=8,rollouts=8,cheat=1)", "pimc(samples=4,rollouts=4,cheat=1)"),
    ("ismcts(iterations=100,cheat=1)", "ismcts(iterations=25,cheat=1)"),
    ("ismcts(iterations=400,cheat=1)", "ismcts(iterations=50,cheat=1)"),
)

LEAGUE_FILES = ("league.json", "league.md", "league.png", ".lock")  # .lock: in use
TMP_PREFIX = ".league-tmp-"  # a file being written (renamed into place when complete)
KIND = "uno-sim league"
BOUND_NOTE = ("* every pairing of this player was won by one side on every deal: its rating "
              "is set by the virtual drawn deals and moves away with more deals (a bound, not "
              "an estimate)")


class LeagueError(RulesError):
    """A league that cannot be played as asked (bad players, sizes or output folder)."""


def default_players(quick: bool = False, variants=DEFAULT_VARIANTS,
                    player_counts=DEFAULT_PLAYER_COUNTS) -> tuple[list[str], list[str]]:
    """(the default league's specs this installation knows, the specs it left out): a
    network player without an explicit weight file joins only when weights ship for every
    table (variant x player count) of the league."""
    from .net import WEIGHTS_DIR, shipped_name

    keep, left = [], []
    for full, fast in DEFAULT_LEAGUE:
        spec = fast if quick else full
        try:
            parsed = parse_policy(spec)
        except RulesError:
            left.append(spec)
            continue
        if parsed.name == "net" and "weights" not in parsed.params and not all(
                (WEIGHTS_DIR / shipped_name(v, k)).is_file()
                for v in variants for k in player_counts):
            left.append(spec)
            continue
        keep.append(spec)
    return keep, left


def check_players(players) -> list:
    """The players parsed (`policies.parse_policy`: spec strings, PolicySpec, user policies);
    LeagueError for fewer than 2, an unknown spec, a duplicate (two specs with the same name
    and knobs, or two players shown under the same name)."""
    if isinstance(players, str) or players is None:
        raise LeagueError(f"invalid players {players!r}: expected a list of policy specs")
    specs, seen, shown = [], {}, set()
    for p in players:
        spec = parse_policy(p)  # RulesError naming the bad spec
        key = (spec.name, repr(sorted(spec.knobs().items()))) if hasattr(spec, "knobs") \
            else spec
        if key in seen or str(spec) in shown:
            first = seen.get(key, str(spec))
            raise LeagueError(f"duplicate player {str(p)!r}: the same policy as {first!r}"
                              if key in seen else f"duplicate player name {str(spec)!r}")
        seen[key] = str(p)
        shown.add(str(spec))
        specs.append(spec)
    if len(specs) < 2:
        raise LeagueError(f"a league needs at least 2 players, got {len(specs)}")
    return specs


def _count(value, what: str, top: int, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not \
            low <= value <= top:
        raise LeagueError(f"invalid {what} {value!r}: expected a whole number {low}..{top}")
    return int(value)


def block_size(deals: int) -> int:
    """Deals per parallel block: a function of the deal count only (never of the jobs)."""
    return max(BLOCK_DEALS, -(-deals // MAX_BLOCKS))


def seat_masks(players: int) -> list[np.ndarray]:
    """A's seats in each rotation: A, B, A, B, ... rotated (as uno_sim.players.tournament)."""
    base = [s % 2 == 0 for s in range(players)]
    return [np.array(base[-r:] + base[:-r] if r else base) for r in range(players)]


# --- games ----------------------------------------------------------------------------

def _play_block(rules: Rules, a, b, seed: int, first: int, n: int,
                engine: str) -> dict:
    """Deals first .. first + n - 1 of pairing a vs b, every rotation: A's per-deal
    scores as (distinct values, counts), with the turns and the time they took."""
    from ..runner import play_columns, win_matrix

    sa, sb = parse_policy(a), parse_policy(b)
    k = rules.players
    score = np.zeros(n)
    turns = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for mine in seat_masks(k):
        cols = play_columns(rules, [sa if m else sb for m in mine], seed, first, n, engine=engine)
        wins = win_matrix(cols)
        # A's seats' share of the win (in team play each winning seat holds a 1)
        score += wins[:, mine].sum(axis=1) / wins.sum(axis=1)
        turns += int(cols["turns"].sum())
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    values, counts = np.unique(np.round(score / k, 12), return_counts=True)
    return {"values": values.tolist(), "counts": counts.tolist(), "turns": turns,
            "games": n * k, "cpu": cpu, "wall": wall}


def _time_player(rules: Rules, spec, seed: int, engine: str) -> dict:
    """Self-play of `spec` at every seat on games 0, 1, ... until TIMING_CPU CPU-seconds or
    TIMING_MAX_GAMES games: CPU and wall seconds, turns, games."""
    from ..runner import play_columns

    specs = [parse_policy(spec)] * rules.players
    games = turns = 0
    cpu = wall = 0.0
    n = 1
    while cpu < TIMING_CPU and games < TIMING_MAX_GAMES:
        c0, w0 = time.process_time(), time.perf_counter()
        cols = play_columns(rules, specs, seed, games, n, engine=engine)
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        turns += int(cols["turns"].sum())
        games += n
        n = min(2 * n, TIMING_MAX_GAMES - games)
    return {"cpu": cpu, "wall": wall, "turns": turns, "games": games}


def run_tasks(fn, tasks: list, jobs: int, desc: str, progress) -> list:
    """fn(*task) for every task, in task order, on `jobs` processes (the runner's local
    pool: Ctrl-C and SIGTERM end its workers with it), with a bar."""
    from contextlib import closing

    from ..progress import bar
    from ..runner.execute import local_map

    out = [None] * len(tasks)
    with bar(len(tasks), desc, unit="block", enabled=progress) as b:
        if jobs == 1 or len(tasks) == 1:
            for i, t in enumerate(tasks):
                out[i] = fn(*t)
                b.update(1)
        else:
            with closing(local_map(fn, tasks, jobs)) as results:
                for i, res in results:
                    out[i] = res
                    b.update(1)
    return out


# --- the Bradley-Terry fit ------------------------------------------------------------

def _nll(theta_free, free, n_players, i, j, wins, losses, offset):
    theta = np.zeros(n_players)
    theta[free] = theta_free
    d = theta[i] - theta[j] + offset
    # -[W log s(d) + L log s(-d)], s the logistic function
    nll = float(np.sum(wins * np.logaddexp(0.0, -d) + losses * np.logaddexp(0.0, d)))
    p = 0.5 * (1.0 + np.tanh(d / 2))  # s(d), without overflow
    g_d = (wins + losses) * p - wins
    grad = np.bincount(i, g_d, n_players) - np.bincount(j, g_d, n_players)
    return nll, grad[free]


def _hess(theta_free, free, n_players, i, j, wins, losses, offset):
    theta = np.zeros(n_players)
    theta[free] = theta_free
    p = 0.5 * (1.0 + np.tanh((theta[i] - theta[j] + offset) / 2))
    w = (wins + losses) * p * (1 - p)
    h = np.zeros((n_players, n_players))
    np.add.at(h, (i, j), -w)
    h += h.T
    h[np.diag_indices(n_players)] = -h.sum(axis=1)
    return h[np.ix_(free, free)]


def fit_bradley_terry(n_players: int, i, j, wins, n, anchor: int = 0, offset=None,
                      prior: float = PRIOR_DRAWS, x0=None) -> np.ndarray:
    """Bradley-Terry strengths (logits), `anchor`'s fixed at 0.

    Pairing p: player i[p] against j[p], `wins[p]` (fractional) wins of i[p] out of
    `n[p]` deals; P(i beats j) = logistic(t_i - t_j + offset[p]).  `prior` virtual deals
    per pairing, drawn (half a win each way), keep every strength finite.  Fitted by
    scipy.optimize.minimize (trust-region Newton-CG, `trust-ncg`, with the gradient and
    Hessian of the log-likelihood, which is concave).
    """
    from scipy.optimize import minimize

    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    won = np.asarray(wins, dtype=float)
    if not np.all((won >= 0) & (won <= np.asarray(n, dtype=float))):
        raise LeagueError("invalid wins: expected 0 <= wins <= deals in every pairing")
    wins, losses = won + prior / 2, np.asarray(n, dtype=float) - won + prior / 2
    scale = float(np.sum(wins + losses))  # the log-likelihood per deal: tolerances alike
    wins, losses = wins / scale, losses / scale
    offset = np.zeros(len(i)) if offset is None else np.asarray(offset, dtype=float)
    free = np.array([p for p in range(n_players) if p != anchor], dtype=np.int64)
    start = np.zeros(len(free)) if x0 is None else np.asarray(x0, dtype=float)[free]
    res = minimize(_nll, start, args=(free, n_players, i, j, wins, losses, offset), jac=True,
                   hess=_hess, method="trust-ncg", options={"gtol": 1e-9, "maxiter": 500})
    if not res.success and np.abs(res.jac).max() > 1e-7:
        raise LeagueError(f"the Bradley-Terry fit did not converge: {res.message}")
    theta = np.zeros(n_players)
    theta[free] = res.x
    return theta


def _logit(e: float) -> float:
    return math.log(e / (1 - e))


@dataclass
class PairStats:
    """A vs B at one variant and player count, over the deals played."""

    a: int
    b: int
    values: np.ndarray  # distinct per-deal scores of A
    counts: np.ndarray  # deals with each
    even: float  # A's share of the seats

    @property
    def deals(self) -> int:
        """The number of deals played."""
        return int(self.counts.sum())

    @property
    def total(self) -> float:
        """The sum of A's per-deal scores."""
        return float(self.values @ self.counts)

    def share_ci(self) -> tuple[float, float, float]:
        """A's mean score and its normal 95% interval over the deals, within [0, 1]."""
        from ..stats import Z95, wilson

        n = self.deals
        m = self.total / n
        var = float(self.counts @ (self.values - m) ** 2) / max(1, n - 1)
        if var == 0 and m in (0.0, 1.0) and n > 1:  # as stats.share_ci: not a zero width
            return (m, *wilson(m * n, n))
        half = Z95 * math.sqrt(var / n)
        return m, max(0.0, m - half), min(1.0, m + half)

    @property
    def one_sided(self) -> bool:
        """One side won every deal outright: the rating gap is set by the virtual draw."""
        return len(self.values) == 1 and float(self.values[0]) in (0.0, 1.0)


@dataclass
class Table:
    """The ratings of one variant and player count."""

    variant: str
    players: int
    rules: Rules
    names: list
    anchor: str
    pairs: list
    rating: np.ndarray  # Elo points
    low: np.ndarray
    high: np.ndarray
    share: np.ndarray  # mean score against the field
    games: np.ndarray
    decisions: np.ndarray  # timing self-play turns
    cpu_per_decision: np.ndarray  # seconds
    wall_per_decision: np.ndarray
    league_cpu: float = 0.0
    league_games: int = 0
    bootstrap: int = 0

    def order(self) -> list[int]:
        """The players, best rating first (ties by name)."""
        return sorted(range(len(self.names)), key=lambda p: (-self.rating[p], self.names[p]))

    def rows(self) -> list[dict]:
        """One record per player, best first: rating, its interval, share, games, thinking time."""
        bounded = self.bounded()
        return [{"player": self.names[p], "rating": float(self.rating[p]),
                 "low": float(self.low[p]), "high": float(self.high[p]),
                 "share": float(self.share[p]), "games": int(self.games[p]),
                 "timing_decisions": int(self.decisions[p]),
                 "cpu_seconds_per_decision": float(self.cpu_per_decision[p]),
                 "wall_seconds_per_decision": float(self.wall_per_decision[p]),
                 "bound": self.names[p] in bounded}
                for p in self.order()]

    def title(self) -> str:
        """The variant and player count, as the table is headed."""
        return f"{self.variant}, {self.players} players"

    def text(self) -> str:
        """The table as text."""
        w = max(len("player"), *(len(n) for n in self.names))
        lines = [f"{self.title()}: Bradley-Terry ratings, Elo scale, {self.anchor} = 0, "
                 f"95% bootstrap intervals over deals ({self.bootstrap} resamples)",
                 f"{'player':<{w}}  {'rating':>7}  {'95% interval':>16}  {'share':>6}  "
                 f"{'games':>7}  {'us/decision':>11}"]
        bounded = self.bounded()
        for r in self.rows():
            mark = "*" if r["player"] in bounded else " "
            lines.append(f"{r['player']:<{w}}{mark} {r['rating']:>+7.0f}  "
                         f"[{r['low']:>+6.0f}, {r['high']:>+6.0f}]  {r['share']:>6.3f}  "
                         f"{r['games']:>7}  {r['cpu_seconds_per_decision'] * 1e6:>11.3g}")
        if bounded:
            lines.append(BOUND_NOTE)
        return "\n".join(lines)

    def bounded(self) -> set:
        """The players all of whose pairings one side won on every deal
        (`PairStats.one_sided`): their ratings are bounds set by the virtual draws."""
        return {name for x, name in enumerate(self.names)
                if all(ps.one_sided for ps in self.pairs if x in (ps.a, ps.b))}

    def pair_rows(self) -> list[dict]:
        """One record per pairing: A, B, deals and A's mean score with its interval."""
        out = []
        for ps in self.pairs:
            m, lo, hi = ps.share_ci()
            out.append({"a": self.names[ps.a], "b": self.names[ps.b], "deals": ps.deals,
                        "share": m, "low": lo, "high": hi, "even": ps.even})
        return out

    def to_dict(self) -> dict:
        """The table as plain data."""
        return {"variant": self.variant, "players": self.players, "rules": self.rules.to_dict(),
                "anchor": self.anchor, "bootstrap": self.bootstrap, "ratings": self.rows(),
                "pairs": self.pair_rows(), "cpu_seconds": self.league_cpu,
                "games": self.league_games}


def rate(names: list, pairs: list, anchor: int, bootstrap: int, rng) -> tuple:
    """(ratings, low, high) in Elo points from `pairs` (PairStats), with percentile 95%
    bootstrap intervals: each pairing's deals resampled with replacement, refitted."""
    n_players = len(names)
    i = np.array([p.a for p in pairs])
    j = np.array([p.b for p in pairs])
    n = np.array([p.deals for p in pairs], dtype=float)
    off = np.array([_logit(p.even) for p in pairs])
    theta = fit_bradley_terry(n_players, i, j, [p.total for p in pairs], n, anchor, off)
    if bootstrap == 0:
        return theta * ELO, theta * ELO, theta * ELO
    # resampling a pairing's deals = multinomial counts over its distinct scores
    draws = np.stack([rng.multinomial(p.deals, p.counts / p.deals, size=bootstrap) @ p.values
                      for p in pairs], axis=1)  # (bootstrap, pairings)
    boot = np.array([fit_bradley_terry(n_players, i, j, w, n, anchor, off, x0=theta)
                     for w in draws])
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    return theta * ELO, low * ELO, high * ELO


# --- the league -----------------------------------------------------------------------

@dataclass
class League:
    """A played league: its settings, one rating Table per variant and player count, and its costs."""
    players: list
    variants: list
    player_counts: list
    deals: int
    seed: int
    bootstrap: int
    engine: str
    tables: list = field(default_factory=list)
    estimate: dict = field(default_factory=dict)
    timing: dict = field(default_factory=dict)  # {"classic 2p": {player: CPU-s per decision}}
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    jobs: int = 1

    def text(self) -> str:
        """The rating tables as `uno-sim league` prints them."""
        return "\n\n".join(t.text() for t in self.tables)

    def to_dict(self) -> dict:
        """The league as plain data (what league.json holds)."""
        return {"kind": KIND, "version": 1, "players": self.players, "variants": self.variants,
                "player_counts": self.player_counts, "deals": self.deals, "seed": self.seed,
                "bootstrap": self.bootstrap, "engine": self.engine, "elo_per_logit": ELO,
                "prior_draws": PRIOR_DRAWS, "jobs": self.jobs, "estimate": self.estimate,
                "cpu_seconds_per_decision": self.timing,
                "cpu_seconds": self.cpu_seconds, "wall_seconds": self.wall_seconds,
                "tables": [t.to_dict() for t in self.tables]}

    def markdown(self) -> str:
        """The league as Markdown (league.md): settings, rating tables and pairings."""
        lines = ["# League", "",
                 f"Players: {', '.join(f'`{p}`' for p in self.players)}; {self.deals} deals "
                 f"per pairing, each played once per seat rotation (seats A, B, A, B, ...); "
                 f"seed {self.seed}; {self.engine} engine.", "",
                 "Ratings: Bradley-Terry on per-deal scores (A's mean share of the win over "
                 "the rotations, counted as fractional wins), one virtual drawn deal per "
                 f"pairing; Elo scale ({ELO:.1f} points per logit); anchor = 0; percentile "
                 f"95% bootstrap intervals over deals ({self.bootstrap} resamples). "
                 "Thinking time: CPU microseconds per decision (one decision per turn) in "
                 "self-play. See docs/policies.md \"League\".", "",
                 f"CPU time of the league games: {self.cpu_seconds:.1f} s; wall time "
                 f"{self.wall_seconds:.1f} s on {self.jobs} job(s).", "",
                 "![strength against thinking time](league.png)", ""]
        for t in self.tables:
            lines += [f"## {t.title()}", "", f"Anchor: {t.anchor} = 0.", "",
                      "| player | rating | 95% interval | share | games | us/decision |",
                      "|---|---:|---:|---:|---:|---:|"]
            for r in t.rows():
                lines.append(f"| `{r['player']}`{' *' if r['bound'] else ''} | "
                             f"{r['rating']:+.0f} | [{r['low']:+.0f}, "
                             f"{r['high']:+.0f}] | {r['share']:.3f} | {r['games']} | "
                             f"{r['cpu_seconds_per_decision'] * 1e6:.3g} |")
            if t.bounded():
                lines += ["", BOUND_NOTE]
            lines += ["", "| A | B | deals | A's share | 95% interval | even |",
                      "|---|---|---:|---:|---:|---:|"]
            for r in t.pair_rows():
                lines.append(f"| `{r['a']}` | `{r['b']}` | {r['deals']} | {r['share']:.4f} | "
                             f"[{r['low']:.4f}, {r['high']:.4f}] | {r['even']:.3f} |")
            lines.append("")
        return "\n".join(lines)

    def plot(self, path: str) -> None:
        """Rating (with its interval) against CPU time per decision (log axis), one panel per
        variant and player count, saved as a PNG."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        n = len(self.tables)
        cols = min(2, n)
        rows = -(-n // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(8 * cols, 5 * rows), squeeze=False)
        for ax, t in zip(axes.flat, self.tables):
            x = np.maximum(t.cpu_per_decision, 1e-9) * 1e6
            yerr = np.vstack([t.rating - t.low, t.high - t.rating]).clip(min=0)
            ax.errorbar(x, t.rating, yerr=yerr, fmt="o", capsize=3)
            bounded = t.bounded()
            for p, name in enumerate(t.names):
                ax.annotate(name + (" *" if name in bounded else ""), (x[p], t.rating[p]),
                            textcoords="offset points",
                            xytext=(4, 4), fontsize=7)
            ax.set_xscale("log")
            ax.set_xlim(x.min() / 2, x.max() * 30)  # room for the labels on the right
            ax.set_xlabel("CPU time per decision (microseconds, log scale)")
            ax.set_ylabel(f"rating (Elo scale, {t.anchor} = 0)")
            ax.set_title(t.title() + (" (* a bound: won or lost every deal)" if bounded
                                      else ""), fontsize=10)
            ax.grid(True, alpha=0.3)
        for ax in list(axes.flat)[n:]:
            ax.axis("off")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)

    def write(self, out: str) -> None:
        """Write league.json, league.md and league.png into folder `out` (each atomically)."""
        os.makedirs(out, exist_ok=True)
        for name, write in (("league.json", lambda p: _write_text(
                p, json.dumps(self.to_dict(), indent=2))),
                            ("league.md", lambda p: _write_text(p, self.markdown())),
                            ("league.png", self.plot)):
            tmp = os.path.join(out, f"{TMP_PREFIX}{os.getpid()}-{name}")
            with writing(os.path.join(out, name)):
                write(tmp)
                os.replace(tmp, os.path.join(out, name))


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")


def check_out(out: str) -> None:
    """Refuse an output folder that is a file, or not empty and no league's (as run folders
    are refused); a folder holding only a league's files is written over."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise LeagueError(f"cannot write --out {out!r}: it is a file, not a directory")
    if not os.path.isdir(out):
        return
    try:
        entries = sorted(os.listdir(out))
    except OSError as exc:
        raise LeagueError(f"cannot read --out {out!r}: {exc.strerror}") from None
    foreign = [e for e in entries if e not in LEAGUE_FILES and not e.startswith(TMP_PREFIX)]
    if foreign:
        raise LeagueError(f"--out {out!r} is not empty and holds no uno-sim league (it has "
                          f"{foreign[0]!r}); use a new or empty directory")
    if [e for e in entries if e != ".lock" and not e.startswith(TMP_PREFIX)]:
        try:  # (a league stopped before its files leaves only those: taken again)
            ours = json.loads(read_capped(os.path.join(out, "league.json"),
                                          MANIFEST_MAX_BYTES)).get("kind") == KIND
        except (OSError, ValueError, AttributeError):
            ours = False
        if not ours:
            raise LeagueError(f"--out {out!r} is not empty and holds no uno-sim league (its "
                              f"league.json is missing or not a league's); use a new or empty "
                              f"directory")
    if not os.access(out, os.W_OK):
        raise LeagueError(f"cannot write --out {out!r}: permission denied")


def hold_out(out: str):
    """--out checked (`check_out`), made and locked before any game, as a run folder is:
    a read-only disk is one line now, not after the games, and a second league on the
    same folder is refused as "in use".  Returns the lock (runner.storage.lock_out)."""
    from ..runner.storage import lock_out

    check_out(out)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as exc:
        raise LeagueError(f"cannot write --out {out!r}: {exc.strerror}") from None
    lock = lock_out(out, by="league")
    for name in os.listdir(out):  # what a league stopped while writing left
        if name.startswith(TMP_PREFIX):
            os.unlink(os.path.join(out, name))
    return lock


def _need(module: str) -> None:
    """LeagueError when an optional dependency (the analysis extra) is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise LeagueError(f"the league needs {module}: pip install -e '.[analysis]' "
                          "in the uno-sim checkout")


def _table_rules(variant: str, players: int, rules: dict | None) -> Rules:
    base = Rules(variant=variant)
    changes = dict(rules or {})
    for key, arg in (("variant", "variants"), ("players", "player_counts")):
        if key in changes:
            raise LeagueError(f"invalid rule {key}: a league sets it itself (--{key}, or "
                              f"{arg}= in Python)")
    return base.replace(**changes, players=players)


def estimate_cost(players: list, counts: list, deals: int, timing: dict) -> dict:
    """CPU seconds the league's games should take, from the self-play timings: per
    pairing, deals x turns per game x (A's seats x A's seconds per turn + B's ...), the
    turns per game the fewer of the two players' self-play games."""
    total = 0.0
    for (variant, k), per in timing.items():
        for a in range(len(players)):
            for b in range(a + 1, len(players)):
                ta, tb = per[a], per[b]
                # a game ends when one side reaches the target: about as soon as the
                # faster-finishing player's self-play games do
                turns = min(ta["turns"] / ta["games"], tb["turns"] / tb["games"])
                na = (k + 1) // 2
                total += deals * turns * (na * ta["cpu"] / ta["turns"]
                                          + (k - na) * tb["cpu"] / tb["turns"])
    return {"cpu_seconds": total}


def play_league(players=None, *, variants=DEFAULT_VARIANTS, player_counts=DEFAULT_PLAYER_COUNTS,
                deals: int | None = None, seed: int = 0, rules: dict | None = None,
                bootstrap: int = DEFAULT_BOOTSTRAP, anchor: str | None = None, jobs: int = 1,
                engine: str = "c", out: str | None = None, quick: bool = False,
                progress: bool | None = False, on_estimate=None, estimate_only: bool = False
                ) -> League:
    """Play every pairing of `players` (policy specs; default: the default league) at every
    variant and player count, and rate them (see the module docstring).

    deals: per pairing and table (default DEFAULT_DEALS, QUICK_DEALS with `quick`).
    rules: rule switches {key: value} applied to every variant.  anchor: the player rated 0
    (default greedy when it plays, else the first).  jobs: worker processes (-1: all
    cores); the results but the timings are the same at any number.  out: a folder for
    league.json, league.md and league.png.  quick: the default league's lower budgets and
    fewer deals.
    on_estimate(league): called with the cost estimate before the games (league.estimate).
    estimate_only: stop after the estimate (no games, no tables).
    """
    t_start = time.perf_counter()
    if players is None:
        players = default_players(quick)[0]
    specs = check_players(players)
    names = [str(p) for p in specs]
    if isinstance(variants, str):
        variants = [variants]
    variants = list(variants)
    if not variants:
        raise LeagueError("invalid variants: expected at least one")
    counts = [_count(k, "player count", 10, 2) for k in player_counts]
    if not counts or len(set(counts)) != len(counts):
        raise LeagueError(f"invalid player counts {list(player_counts)!r}: expected distinct "
                          f"counts 2..10")
    if deals is None:
        deals = QUICK_DEALS if quick else DEFAULT_DEALS
    deals = _count(deals, "deals", MAX_DEALS)
    bootstrap = _count(bootstrap, "bootstrap", MAX_BOOTSTRAP, 0)
    if jobs == -1:
        jobs = os.cpu_count() or 1
    jobs = _count(jobs, "jobs", 4096)
    from ..rng import key_from_seed

    key_from_seed(seed)  # validates it
    if engine not in ("c", "reference"):
        raise LeagueError(f"invalid engine {engine!r}: expected c or reference")
    if anchor is None:
        a_index = names.index(ANCHOR) if ANCHOR in names else 0
    else:
        a_spec = str(parse_policy(anchor))
        if a_spec not in names:  # a user policy: its name
            raise LeagueError(f"invalid anchor {anchor!r}: not one of the players")
        a_index = names.index(a_spec)
    table_rules = {(v, k): _table_rules(v, k, rules) for v in variants for k in counts}
    _need("scipy")
    if out is not None:
        _need("matplotlib")
    lock = hold_out(out) if out is not None and not estimate_only else None
    if out is not None and estimate_only:
        check_out(out)  # refused now rather than when the league is played
    try:
        league = League(names, variants, counts, deals, seed, bootstrap, engine, jobs=jobs)
        # thinking time (and the estimate): self-play of every player at every table
        t_tasks = [(table_rules[t], p, seed, engine) for t in table_rules for p in specs]
        t_res = run_tasks(_time_player, t_tasks, jobs, "league timing", progress)
        timing = {}
        for n_t, t in enumerate(table_rules):
            timing[t] = t_res[n_t * len(names):(n_t + 1) * len(names)]
        league.timing = {f"{v} {k}p": {names[p]: per[p]["cpu"] / max(1, per[p]["turns"])
                                       for p in range(len(names))}
                         for (v, k), per in timing.items()}
        league.estimate = estimate_cost(names, counts, deals, timing)
        league.estimate["wall_seconds"] = league.estimate["cpu_seconds"] / min(
            jobs, os.cpu_count() or 1)
        league.estimate["timing_cpu_seconds"] = float(sum(r["cpu"] for r in t_res))
        if on_estimate is not None:
            on_estimate(league)
        if estimate_only:
            return league

        size = block_size(deals)
        tasks, where = [], []
        for t, r in table_rules.items():
            for a in range(len(names)):
                for b in range(a + 1, len(names)):
                    for first in range(0, deals, size):
                        tasks.append((r, specs[a], specs[b], seed, first, min(size, deals - first),
                                      engine))
                        where.append((t, a, b))
        results = run_tasks(_play_block, tasks, jobs, "league", progress)
        agg: dict = {}
        for (t, a, b), res in zip(where, results):
            d = agg.setdefault((t, a, b), {"hist": {}, "cpu": 0.0, "games": 0})
            for v, c in zip(res["values"], res["counts"]):
                d["hist"][v] = d["hist"].get(v, 0) + c
            d["cpu"] += res["cpu"]
            d["games"] += res["games"]
        league.cpu_seconds = float(sum(r["cpu"] for r in results))

        for n_t, (t, r) in enumerate(table_rules.items()):
            variant, k = t
            pairs = []
            for a in range(len(names)):
                for b in range(a + 1, len(names)):
                    hist = agg[(t, a, b)]["hist"]
                    vals = np.array(sorted(hist))
                    pairs.append(PairStats(a, b, vals, np.array([hist[v] for v in vals]),
                                           ((k + 1) // 2) / k))
            rng = np.random.default_rng([seed, n_t])
            rating, low, high = rate(names, pairs, a_index, bootstrap, rng)
            share = np.zeros(len(names))
            for ps in pairs:
                m = ps.total / ps.deals
                share[ps.a] += m / (len(names) - 1)
                share[ps.b] += (1 - m) / (len(names) - 1)
            per = timing[t]
            table = Table(variant, k, r, names, names[a_index], pairs, rating, low, high, share,
                          games=np.full(len(names), deals * k * (len(names) - 1)),
                          decisions=np.array([p["turns"] for p in per]),
                          cpu_per_decision=np.array([p["cpu"] / max(1, p["turns"]) for p in per]),
                          wall_per_decision=np.array([p["wall"] / max(1, p["turns"]) for p in per]),
                          league_cpu=float(sum(agg[(t, a, b)]["cpu"] for (tt, a, b) in agg
                                               if tt == t)),
                          league_games=int(sum(agg[(t, a, b)]["games"] for (tt, a, b) in agg
                                               if tt == t)),
                          bootstrap=bootstrap)
            league.tables.append(table)
        league.wall_seconds = time.perf_counter() - t_start
        if out is not None:
            league.write(out)
        return league
    finally:
        if lock is not None:
            os.close(lock)
