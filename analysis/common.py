"""What every study shares: its setup line, runs as Polars frames, paired differences, figures."""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from uno_sim.rules import VARIANTS, Rules, RulesError
from uno_sim.stats import Z95, wilson


class StudyError(RulesError):
    """A study that cannot run as asked; the CLI prints it on one line."""


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
    if isinstance(text, int):
        items = [text]
    elif isinstance(text, (list, tuple)):
        items = list(text)
    else:
        items = []
        for part in str(text).split(","):
            lo, sep, hi = part.strip().partition("-")
            if not (lo.isdigit() and (not sep or hi.isdigit())):
                raise StudyError(f"invalid --players {text!r}: expected e.g. 4, 2,4,6 or 2-10")
            if sep and int(hi) < int(lo):
                raise StudyError(f"invalid --players {text!r}: the range {part.strip()} is empty")
            items += list(range(int(lo), int(hi) + 1)) if sep else [int(lo)]
    if not items:
        raise StudyError(f"invalid --players {text!r}: expected e.g. 4, 2,4,6 or 2-10")
    for k in items:
        if not isinstance(k, int) or not 2 <= k <= 10:
            raise StudyError(f"invalid --players {k!r}: expected numbers 2..10")
    return items


def rules_text(rules: Rules) -> str:
    """The switches that differ from the defaults of the rules' edition, or `printed rules`."""
    diff = [f"{k}={v}" for k, v in rules.changed().items()]
    return f"{rules.edition} edition" + (", " + ", ".join(diff) if diff else "") + \
        f", {rules.scoring} scoring to {rules.target}"


@dataclass
class Setup:
    """The setup that every figure and table of a study states."""

    variant: str
    players: int | str
    games: int
    seed: int
    policies: str
    rules: str = ""
    unit: str = "games per arm"

    def text(self) -> str:
        players = f"{self.players} players" if isinstance(self.players, int) else \
            f"players {self.players}"
        rules = self.rules or rules_text(Rules(variant=self.variant))
        return (f"variant {self.variant}; rules: {rules}; policies: {self.policies}; "
                f"{players}; {self.games:,} {self.unit}; seed {self.seed}")


# ---------------------------------------------------------------------------
# Runs as frames
# ---------------------------------------------------------------------------

def win_expr(seat: int, players: int) -> pl.Expr:
    """This seat's share of the game's win: 1 or 0, the team's win, or 1/k of a k-way tie.

    Same convention as `uno_sim.runner.win_matrix`: a team win (team >= 0) goes
    to every seat of the team; winner -1 without a team is a win shared by the
    seats with the lowest score.
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
    res = simulate(games=games, policies=policies, seed=seed, n_jobs=n_jobs, **kw)
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
    n, and for each metric d_<m>, d_<m>_low, d_<m>_high.
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
                 pl.col(f"d_{m}").std(ddof=1).fill_null(0.0).alias(f"__sd_{m}")]
    out = diffs.group_by([arm] + keys).agg(aggs).sort([arm] + keys)
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

def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    try:
        import matplotlib
    except ImportError:
        raise StudyError("the studies need matplotlib: pip install 'uno-sim[analysis]'") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def new_figure(setup: Setup, title: str, ncols: int = 1, width: float = 6.4, height: float = 4.4):
    """A figure whose title names the study and whose footer states the setup."""
    plt = pyplot()
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols if ncols > 1 else width, height),
                             squeeze=False)
    fig.suptitle(title, fontsize=11)
    import textwrap

    fig.text(0.01, 0.01, "\n".join(textwrap.wrap(setup.text(), 110 if ncols > 1 else 95)),
             fontsize=6.5, color="0.3", va="bottom")
    fig.subplots_adjust(bottom=0.2, top=0.88)
    return fig, axes[0]


def save(fig, path: str) -> str:
    fig.savefig(path, dpi=110)
    pyplot().close(fig)
    return path


def fmt(x: float, digits: int = 3) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def fmt_ci(m: float, lo: float, hi: float, digits: int = 3, signed: bool = True) -> str:
    sign = "+" if signed else ""
    return f"{m:{sign}.{digits}f} [{lo:{sign}.{digits}f}, {hi:{sign}.{digits}f}]"


def chisq_table_row(players: int, shares: pl.DataFrame) -> dict:
    """One row of the chi-square table from a seat_shares frame."""
    from .gamestats import chisquare_equal

    stat, df, p = chisquare_equal(shares["wins"].to_numpy())
    return {"players": players, "games": int(shares["games"][0]), "chi2": stat, "df": df, "p": p}
