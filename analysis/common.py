"""What every study shares: its setup line, runs as Polars frames, paired differences, figures."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from uno_sim.rules import VARIANTS, Rules, RulesError
from uno_sim.stats import Z95, wilson

from .errors import StudyError  # noqa: F401 (the studies take it from here)


def variants() -> tuple[str, ...]:
    """Every variant the engine knows (read from the code, never hard-coded here)."""
    return tuple(VARIANTS)


def restricted_cards(variant: str) -> list[str]:
    """Codes of the variant's restricted cards (C7, F4): what can be bluffed and challenged."""
    from uno_sim.cards import deck_for

    deck = deck_for(Rules(variant=variant))
    return [k.code for k in deck.kinds if k.restricted and k.count > 0]


def require_restricted(variant: str, study: str) -> None:
    """StudyError for a bluff or challenge study of a variant with nothing to bluff."""
    if not restricted_cards(variant):
        raise StudyError(f"invalid variant {variant!r} for the {study} study: it has no "
                         f"restricted card to bluff or challenge")


def parse_variants(text: str | None) -> list[str]:
    """`all`, `classic` or `classic,flip` -> validated list of variant names."""
    if text in (None, "all"):
        return list(variants())
    names = [v.strip() for v in str(text).split(",") if v.strip()]
    if not names:
        raise StudyError(f"invalid variants {text!r}: expected all or a comma list of variants")
    for v in names:
        if v not in variants():
            raise StudyError(f"unknown variant {v!r}: expected one of {', '.join(variants())} or all")
    return names


def parse_players(text, default=(4,)) -> list[int]:
    """`4`, `2,4,6` or `2-10` -> list of player counts in 2..10."""
    if text is None:
        return list(default)
    from uno_sim.rules import player_counts

    try:
        return player_counts(text)
    except RulesError as exc:
        raise StudyError(str(exc)) from None


def rules_text(rules: Rules) -> str:
    """The switches that differ from the defaults of the rules' edition, or `printed rules`."""
    diff = [f"{k}={v}" for k, v in rules.changed().items()]
    return f"{rules.edition} edition" + (", " + ", ".join(diff) if diff else "") + \
        f", {rules.scoring} scoring to {rules.target}"


def knobs_off_greedy(spec) -> dict:
    """The knobs of a seat's policy that differ from a plain `greedy` seat's defaults.

    `strategic` -> {challenge: auto, challenge_threshold: 0.9, color: smart} (with the
    policy's own defaults counted, not only the knobs written in the spec); a knob that
    greedy does not have always counts; a user policy has no knobs.
    """
    from uno_sim.players.specs import POLICIES, UserPolicySpec, parse_policy

    spec = parse_policy(spec)
    if isinstance(spec, UserPolicySpec):
        return {}
    greedy = POLICIES["greedy"][1]
    return {k: v for k, v in spec.knobs().items() if k not in greedy or greedy[k] != v}


def policy_text(spec) -> str:
    """A seat's policy with every knob that differs from a plain greedy seat:
    `greedy`, `greedy(bluff=1)`, `strategic(challenge=auto,challenge_threshold=0.9,color=smart)`."""
    from uno_sim.players.specs import parse_policy

    spec = parse_policy(spec)
    diff = knobs_off_greedy(spec)
    inner = ",".join(f"{k}={_knob(v)}" for k, v in diff.items())
    return f"{spec.name}({inner})" if inner else str(spec) if spec.name == "user" else spec.name


def _knob(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def seats_text(specs) -> str:
    """`greedy at every seat`, or the seats grouped by policy: `seat 0 greedy(bluff=1); seats
    1-3 greedy(challenge=0.5)`."""
    texts = [policy_text(s) for s in specs]
    if len(set(texts)) == 1:
        return f"{texts[0]} at every seat"
    groups = []
    for seat, t in enumerate(texts):
        if groups and groups[-1][1] == t and groups[-1][0][-1] == seat - 1:
            groups[-1][0].append(seat)
        else:
            groups.append(([seat], t))
    out = []
    for seats, t in groups:
        name = f"seat {seats[0]}" if len(seats) == 1 else f"seats {seats[0]}-{seats[-1]}"
        out.append(f"{name} {t}")
    return "; ".join(out)


@dataclass
class Setup:
    """The setup that every figure and table of a study states.

    `policies` is one policy spec for every seat (`greedy`, `strategic`), a list of
    specs, one per seat, or a free description of a grid of arms (kept as written).
    Specs are stated with every knob that differs from a plain greedy seat.
    """

    variant: str
    players: int | str
    games: int
    seed: int
    policies: object
    rules: str = ""
    unit: str = "games per arm"

    def _spec(self):
        from uno_sim.players.specs import parse_policy

        if isinstance(self.policies, (list, tuple)):
            return [parse_policy(p) for p in self.policies]
        try:
            return parse_policy(self.policies)
        except RulesError:
            return None  # a description of the arms

    def policies_text(self) -> str:
        spec = self._spec()
        if spec is None:
            return str(self.policies)
        if isinstance(spec, list):
            return seats_text(spec)
        return f"{policy_text(spec)} at every seat"

    def text(self) -> str:
        players = f"{self.players} players" if isinstance(self.players, int) else \
            f"players {self.players}"
        rules = self.rules or rules_text(Rules(variant=self.variant))
        unit = self.unit.replace("games", "game", 1) if self.games == 1 else self.unit
        return (f"variant {self.variant}; rules: {rules}; policies: {self.policies_text()}; "
                f"{players}; {self.games:,} {unit}; seed {self.seed}")

    def to_dict(self) -> dict:
        """The setup as plain data (study.json): policies per seat where the seats are known."""
        spec = self._spec()
        if isinstance(spec, list):
            seats = spec
        elif spec is not None and isinstance(self.players, int):
            seats = [spec] * self.players
        else:
            seats = None
        return {"variant": self.variant, "rules": self.rules or
                rules_text(Rules(variant=self.variant)), "players": self.players,
                "games": self.games, "unit": self.unit, "seed": self.seed,
                "policies": self.policies_text(),
                "seats": None if seats is None else
                [{"seat": i, "policy": policy_text(s), "knobs_off_greedy": knobs_off_greedy(s)}
                 for i, s in enumerate(seats)],
                "every_seat": None if spec is None or isinstance(spec, list) else
                {"policy": policy_text(spec), "knobs_off_greedy": knobs_off_greedy(spec)}}


# ---------------------------------------------------------------------------
# Runs as frames
# ---------------------------------------------------------------------------

def win_expr(seat: int, players: int) -> pl.Expr:
    """This seat's share of the game's win: 1 or 0, the team's win, or 1/k of a k-way tie.

    Same convention as `uno_sim.runner.win_matrix`: a team win (team not null) goes
    to every seat of the team; a null winner without a team is a win shared by the
    seats with the lowest score (docs/results.md).  A comparison with null is
    null, which `when` reads as false, so tables of schema 1 (-1 for none) read alike.
    """
    scores = [pl.col(f"scores_{s}") for s in range(players)]
    low = pl.min_horizontal(scores)
    n_low = pl.sum_horizontal([(c == low).cast(pl.Float64) for c in scores])
    return (
        pl.when(pl.col("team") >= 0).then((pl.lit(seat % 2) == pl.col("team")).cast(pl.Float64))
        .when(pl.col("winner") >= 0).then((pl.col("winner") == seat).cast(pl.Float64))
        .otherwise((pl.col(f"scores_{seat}") == low).cast(pl.Float64) / n_low)
        .alias(f"win_{seat}")
    )


def with_wins(games: pl.DataFrame, players: int) -> pl.DataFrame:
    """Add win_0..win_{p-1} (per-game win shares) to a games frame."""
    return games.with_columns([win_expr(s, players) for s in range(players)])


def run_games(variant: str, players: int, policies, games: int, seed: int, rules=None,
              n_jobs: int = 1) -> pl.DataFrame:
    """Simulate and return the games frame with win_i columns added."""
    from uno_sim.runner import simulate

    kw = {} if rules is None else {"rules": rules}
    if rules is None:
        kw.update(variant=variant, players=players)
    res = simulate(games=games, policies=policies, seed=seed, n_jobs=n_jobs,
                   progress=f"{variant} {players}p", **kw)  # a bar on a terminal or notebook
    return with_wins(res.games, players)


def seat_shares(games: pl.DataFrame, players: int) -> pl.DataFrame:
    """Seat, wins, games, share and 95% Wilson interval, from a frame with win_i columns."""
    n = games.height
    wins = games.select([pl.col(f"win_{s}").sum() for s in range(players)]).row(0)
    rows = [{"seat": s, "wins": float(w), "games": n, "share": w / n if n else math.nan,
             "low": wilson(w, n)[0], "high": wilson(w, n)[1]} for s, w in enumerate(wins)]
    return pl.DataFrame(rows)


def paired_diff(frame: pl.DataFrame, arm: str, baseline, metrics, keys=(), pair=("game",),
                z: float = Z95) -> pl.DataFrame:
    """Per-arm mean of paired differences against the baseline arm, with 95% intervals.

    `frame` holds one row per (arm value, keys..., pair...) with the metric
    columns.  Each row is matched with the baseline row (arm == baseline) that
    shares its keys and pair columns (the same game of the same run); the
    difference metric - metric at baseline is averaged per (arm, keys) with a
    normal interval mean +- z sd / sqrt(n).  Output columns: the arm, the keys,
    n, and for each metric d_<m>, d_<m>_low, d_<m>_high.  One pair (n = 1) gives no
    spread: its interval is NaN (undefined), not a zero-width one, except for the
    baseline itself, whose differences are 0 by construction.
    """
    keys, pair = list(keys), list(pair)
    base = (frame.filter(pl.col(arm) == baseline)
            .select(keys + pair + [pl.col(m).alias(f"{m}__base") for m in metrics]))
    joined = frame.join(base, on=keys + pair, how="inner")
    diffs = joined.with_columns([(pl.col(m) - pl.col(f"{m}__base")).alias(f"d_{m}")
                                 for m in metrics])
    aggs = [pl.len().alias("n")]
    for m in metrics:
        aggs += [pl.col(f"d_{m}").mean().alias(f"d_{m}"),
                 pl.col(f"d_{m}").std(ddof=1).alias(f"__sd_{m}")]
    out = diffs.group_by([arm] + keys).agg(aggs).sort([arm] + keys)
    out = out.with_columns([  # n = 1: no sd (null) -> NaN, but 0 for the baseline
        pl.when(pl.col(arm) == baseline).then(pl.lit(0.0))
        .otherwise(pl.col(f"__sd_{m}").fill_null(float("nan"))).alias(f"__sd_{m}")
        for m in metrics])
    half = {m: z * pl.col(f"__sd_{m}") / pl.col("n").cast(pl.Float64).sqrt() for m in metrics}
    out = out.with_columns(
        [(pl.col(f"d_{m}") - half[m]).alias(f"d_{m}_low") for m in metrics]
        + [(pl.col(f"d_{m}") + half[m]).alias(f"d_{m}_high") for m in metrics])
    cols = [arm] + keys + ["n"]
    for m in metrics:
        cols += [f"d_{m}", f"d_{m}_low", f"d_{m}_high"]
    return out.select(cols)


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------

def _matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise StudyError("the studies need matplotlib: pip install -e '.[analysis]' "
                         "in the uno-sim checkout") from None
    return matplotlib


def require_extras() -> None:
    """StudyError, before anything is computed, when the `analysis` extra is missing."""
    missing = []
    for mod in ("matplotlib", "scipy", "statsmodels"):
        try:
            __import__(mod)
        except ImportError:
            missing.append(mod)
    if missing:
        raise StudyError(f"the studies need {' and '.join(missing)}, which are not installed: "
                         "pip install -e '.[analysis]' in the uno-sim checkout")


def pyplot():
    """matplotlib.pyplot as the session has it: the backend is never switched."""
    _matplotlib()
    import matplotlib.pyplot as plt

    return plt


def new_figure(setup: Setup, title: str, ncols: int = 1, width: float = 6.4, height: float = 4.4,
               legend: str = ""):
    """A figure whose title names the study and whose footer states the setup (after
    `legend`, what the figure's names mean, where it has one).

    A bare `matplotlib.figure.Figure`, outside pyplot: drawing it needs no
    display and leaves the session's backend and its current figure alone.  Laid out by
    Matplotlib's constrained layout, which makes room for the title, the axis labels, the
    tick labels, colorbars and the footer (a figure-level x label), so none overlaps.
    """
    _matplotlib()
    import textwrap

    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols if ncols > 1 else width, height), layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)
    fig.suptitle(title, fontsize=11)
    chars = int(18 * width * max(ncols, 1))  # a 6.5-point footer: about 18 characters an inch
    lines = textwrap.wrap(legend, chars) + textwrap.wrap(setup.text(), chars)
    fig.supxlabel("\n".join(lines), fontsize=6.5, color="0.3", x=0.01, ha="left",
                  multialignment="left")
    return fig, axes[0]


def interval_bars(ax, pos, est, low, high, horizontal: bool = False, capsize: float = 2,
                  color=None, lw: float = 0.8, **point_style) -> int:
    """Draw estimates `est` at positions `pos` with their intervals [low, high] as given.

    The bars span the intervals themselves, not offsets from the estimate: a
    bootstrap percentile interval need not contain its estimate, and rounding can
    put an estimate a hair outside its interval, so matplotlib's offset error bars
    (which refuse negative offsets) cannot draw them honestly.  An undefined
    interval (NaN: one game gives no spread) is drawn as none; the number of them
    is returned so the caller can say so (`note_undefined`).  `point_style` goes
    to the plot of the estimates (marker, ls, label...); with ``marker=None, ls="none"``
    only the intervals are drawn.
    """
    pos, est = np.asarray(pos, float), np.asarray(est, float)
    low, high = np.asarray(low, float), np.asarray(high, float)
    if point_style.get("marker", "o") is not None or point_style.get("ls", "-") != "none":
        x, y = (est, pos) if horizontal else (pos, est)
        (line,) = ax.plot(x, y, **({"color": color} if color is not None else {}),
                          **point_style)
        color = line.get_color()
    ok = np.isfinite(low) & np.isfinite(high)
    if ok.any():
        mid = (low[ok] + high[ok]) / 2
        half = np.maximum(high[ok] - low[ok], 0.0) / 2
        err = {"xerr" if horizontal else "yerr": half}
        x, y = (mid, pos[ok]) if horizontal else (pos[ok], mid)
        ax.errorbar(x, y, **err, fmt="none", ecolor=color or "k", capsize=capsize, lw=lw)
    return int((~ok).sum())


def note_undefined(ax, n: int, why: str = "fewer than two games") -> None:
    """Say on the axes how many intervals `interval_bars` left undrawn, and why."""
    if n:
        ax.text(0.01, 0.99, f"{n} interval{'s' if n > 1 else ''} undefined ({why}): not drawn",
                transform=ax.transAxes, fontsize=6, va="top", color="0.3")


def save(fig, path: str) -> str:
    """PNG at 110 dpi; the box is fitted to what was drawn, so long tick labels (a Flip
    card's name, "Wild Draw Four") and the setup footer are never cut off."""
    from uno_sim.files import writing

    with writing(path):
        fig.savefig(path, dpi=110, bbox_inches="tight", pad_inches=0.15)
    return path


def temp_out(prefix: str) -> str:
    """A temporary folder for the figures of a study called without `out`.

    It is removed when the interpreter exits (a notebook kernel's shutdown);
    `analysis.run_study` removes its own as soon as its result is dropped.
    """
    import tempfile

    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    _TEMP_DIRS.append(tmp)
    return tmp.name


_TEMP_DIRS: list = []


def fmt(x: float, digits: int = 3) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def fmt_ci(m: float, lo: float, hi: float, digits: int = 4, signed: bool = True) -> str:
    """`+0.0141 [+0.0102, +0.0180]`: the estimate and its interval with the same digits (4
    decimals by default, as every share and effect on a share in the studies' readings; a
    value that rounds to zero prints as +0.0000, never -0.0000)."""
    sign = "+" if signed else ""
    m, lo, hi = (round(x, digits) + 0.0 for x in (m, lo, hi))
    return f"{m:{sign}.{digits}f} [{lo:{sign}.{digits}f}, {hi:{sign}.{digits}f}]"


def chisq_table_row(players: int, shares: pl.DataFrame) -> dict:
    """One row of the chi-square table from a seat_shares frame."""
    from .gamestats import chisquare_equal

    stat, df, p = chisquare_equal(shares["wins"].to_numpy())
    return {"players": players, "games": int(shares["games"][0]), "chi2": stat, "df": df, "p": p}
