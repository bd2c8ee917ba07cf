"""Aggregates: exact, mergeable summaries of any number of games, and `RunResult`."""

from __future__ import annotations

import json
import os

import numpy as np

from ..cards import deck_for, deck_text
from ..players.specs import parse_policy
from ..results import SEAT_COUNTERS
from ..rules import Rules
from ..stats import wilson
from .columns import (BATCH, PROGRESS_BATCH, SCHEMA_VERSION, WIN_UNIT, games_frame, rounds_frame,
                      win_units)
from .errors import RunError

# the search players' counters per seat, in the order of engine.play_games' search_stats
SEARCH_STATS = ("searched", "fallback", "samples", "dropped")


def search_counts_text(searched: int, fallback: int, samples: int, dropped: int) -> str:
    """A search seat's counters in words (the run summary, `uno-sim bench`)."""
    dec = searched + fallback
    return (f"{dec:,} decisions, {fallback:,} answered by the rollout policy "
            f"({100 * fallback / max(dec, 1):.2f}%); {samples:,} samples, {dropped:,} dropped "
            f"({100 * dropped / max(samples, 1):.2f}%)")


def _hist_add(a: list, b: list) -> list:
    out = [0] * max(len(a), len(b))
    for i, v in enumerate(a):
        out[i] += v
    for i, v in enumerate(b):
        out[i] += v
    return out


def aggregate(cols: dict) -> dict:
    """Exact, mergeable aggregates (counts and histograms) of the games in `cols`.

    `wins` per seat (a shared win counts 1/k to each of its k winners) are the exact
    `win_units` over WIN_UNIT, so that merged aggregates are exact whatever the shards."""
    n, p = cols["scores"].shape
    units = win_units(cols).sum(axis=0)
    agg = {
        "games": int(n),
        "wins": (units / WIN_UNIT).tolist(),
        "win_units": units.tolist(),
        "team_wins": np.bincount(cols["team"][cols["team"] >= 0].astype(np.int64),
                                 minlength=2).tolist(),
        "rounds": int(cols["rounds"].sum()),
        "turns": int(cols["turns"].sum()),
        "points": int(cols["scores"].sum()),
        "reshuffles": int(cols["reshuffles"].sum()),
        "stalemates": int(cols["stalemates"].sum()),
        "rounds_hist": np.bincount(cols["rounds"].astype(np.int64)).tolist(),
        "seats": {k: cols[k].sum(axis=0).astype(np.int64).tolist() for k in SEAT_COUNTERS},
    }
    if "round_turns" in cols:
        agg["turns_hist"] = np.bincount(cols["round_turns"].astype(np.int64)).tolist()
    if "search_stats" in cols:  # a search seat: per seat, its SEARCH_STATS counters
        agg["search"] = cols["search_stats"].sum(axis=0).astype(np.int64).tolist()
    return agg


def record_field(record: np.ndarray, name: str) -> np.ndarray:
    """A field of an aggregate record; a record may stop early in turns_hist, its last."""
    from ..engine import AGG_LAYOUT

    at, shape = AGG_LAYOUT[name]
    field = record[at:at + int(np.prod(shape, dtype=np.int64))]
    return field if len(shape) == 1 else field.reshape(shape)


def _trimmed(hist: np.ndarray) -> list:
    """A histogram up to its last nonzero bin (np.bincount's length)."""
    nz = np.flatnonzero(hist)
    return hist[:nz[-1] + 1].tolist() if nz.size else []


def record_aggregate(record: np.ndarray, players: int, search: bool) -> dict | None:
    """The aggregates of an aggregate record (engine.play_aggregate, the GPU's records): the
    dict `aggregate` computes from the same games' columns, key for key and number for
    number (`search`: a seat is a search player, as `search_stats` in the columns).  The
    record may stop after the last nonzero bin of turns_hist (the GPU's copies do).
    None when a value fell past the record's histograms (`over`; only with safety limits
    above the engine's): its medians would not be exact."""
    if int(record_field(record, "over")):
        return None
    p = players
    units = record_field(record, "wins")[:p]
    counters = record_field(record, "counters")
    agg = {
        "games": int(record_field(record, "games")),
        "wins": (units / WIN_UNIT).tolist(),
        "win_units": units.tolist(),
        "team_wins": record_field(record, "team_wins").tolist(),
        **{k: int(record_field(record, k))
           for k in ("rounds", "turns", "points", "reshuffles", "stalemates")},
        "rounds_hist": _trimmed(record_field(record, "rounds_hist")),
        "seats": {k: counters[c, :p].tolist() for c, k in enumerate(SEAT_COUNTERS)},
        "turns_hist": _trimmed(record_field(record, "turns_hist")),
    }
    if search:
        agg["search"] = record_field(record, "search")[:p].tolist()
    return agg


def play_aggregates(rules, specs, seed: int, first_game: int, n_games: int,
                    on_batch=None) -> dict:
    """The aggregates of games first_game.. of the run `seed`, added up in C as the games
    are played (engine.play_aggregate: no per-game columns); `on_batch(k)` after each k
    games (batches of PROGRESS_BATCH then).  Equal to `aggregate` of the same games'
    columns; a record whose histograms overflowed (see `record_aggregate`) is played again
    through the columns."""
    from .. import engine
    from .columns import play_columns

    step = BATCH if on_batch is None else PROGRESS_BATCH
    record = np.zeros(engine.AGG_WORDS, dtype=np.int64)
    for start in range(first_game, first_game + n_games, step):
        k = min(step, first_game + n_games - start)
        engine.play_aggregate(rules, specs, seed, start, k, record)
        if on_batch is not None:
            on_batch(k)
    agg = record_aggregate(record, rules.players, engine.has_search(rules, specs))
    if agg is None:
        return aggregate(play_columns(rules, specs, seed, first_game, n_games))
    return agg


def merge_aggregates(aggs) -> dict:
    """The aggregates of the union of the games of each of `aggs` (shards of one run).

    Wins are summed as exact units where every part has them (`win_units`); records
    written before the units were kept are summed as floats."""
    total = None
    for a in aggs:
        if total is None:
            total = json.loads(json.dumps(a))
            continue
        for k in ("games", "rounds", "turns", "points", "reshuffles", "stalemates"):
            total[k] += a[k]
        if "win_units" in total and "win_units" in a:
            total["win_units"] = [x + y for x, y in zip(total["win_units"], a["win_units"])]
            total["wins"] = [x / WIN_UNIT for x in total["win_units"]]
        else:
            total.pop("win_units", None)
            total["wins"] = [x + y for x, y in zip(total["wins"], a["wins"])]
        total["team_wins"] = [x + y for x, y in zip(total["team_wins"], a["team_wins"])]
        for k in ("rounds_hist", "turns_hist"):
            if k in a:
                total[k] = _hist_add(total.get(k, []), a[k])
        for k, v in a["seats"].items():
            total["seats"][k] = [x + y for x, y in zip(total["seats"][k], v)]
        if "search" in a and "search" in total:
            total["search"] = [[x + y for x, y in zip(r, s)]
                               for r, s in zip(total["search"], a["search"])]
        elif "search" in a:
            total["search"] = a["search"]
    return total


def _hist_median(hist) -> float:
    counts = np.asarray(hist, dtype=np.int64)
    n = counts.sum()
    if n == 0:
        return float("nan")
    cum = np.cumsum(counts)
    lo = int(np.searchsorted(cum, (n + 1) // 2))
    hi = int(np.searchsorted(cum, n // 2 + 1))
    return (lo + hi) / 2


class RunResult:
    """The result of a run: its settings, exact aggregates and, unless summary_only, its games.

    Tables (Polars frames): `win_shares()` per seat with 95% Wilson intervals, `seats()` one
    row per seat with every counter, `summary_frame()` the summary as metric/value rows,
    `games` and `rounds` one row per game / round.  `summary()` is the same summary as a
    dict (summary.json), `summary_text()` as the CLI prints it.  In a notebook the result
    shows itself as its settings and the table of win shares.
    """

    def __init__(self, manifest: dict, agg: dict, cols: dict | None = None,
                 out: str | None = None, wall: float | None = None,
                 played: int | None = None):
        self.manifest = manifest
        self.rules = Rules.from_dict(manifest["rules"])
        self.policies = [parse_policy(s) for s in manifest["policies"]]
        self.seed = manifest["seed"]
        self.agg = agg
        self.cols = cols
        self.out = out
        self.wall = wall
        # games computed by the call that made this result (a resume plays only the
        # missing shards); the rate is theirs over the wall time of that call
        self.played = agg["games"] if played is None else played

    @property
    def n_games(self) -> int:
        """The number of games in the run."""
        return self.agg["games"]

    @property
    def games(self):
        """One row per game (Polars DataFrame); `.to_pandas()` for pandas."""
        if self.cols is not None:
            return games_frame(self.cols)
        return self._read("games")

    @property
    def rounds(self):
        """One row per round (Polars DataFrame)."""
        if self.cols is not None:
            return rounds_frame(self.cols, self.rules)
        return self._read("rounds")

    def _read(self, what):
        import polars as pl

        if self.out is None or self.manifest.get("summary_only"):
            raise RunError("this run kept aggregates only (summary_only): no per-game rows")
        # the run's own parts, by name, in game order: never another file in the folder
        n = self.manifest["n_shards"]
        parts = [os.path.join(self.out, f"{what}.parquet", f"part-{i:06d}.parquet")
                 for i in range(n)]
        parts = [p for p in parts if os.path.exists(p)]
        if not parts:
            return None
        return pl.read_parquet(parts)

    def _shares(self) -> list[tuple]:
        n = self.n_games
        return [(s, w / n, *wilson(w, n)) for s, w in enumerate(self.agg["wins"])]

    def win_shares(self):
        """Per seat: its policy, wins, share of the games won and its 95% Wilson interval
        (Polars DataFrame: seat, policy, wins, share, low, high).

        A shared win counts 1/k to each of its k winners; ``.rows()`` gives the
        (seat, policy, wins, share, low, high) tuples.
        """
        import polars as pl

        return pl.DataFrame(
            [(s, str(self.policies[s]), float(self.agg["wins"][s]), sh, lo, hi)
             for s, sh, lo, hi in self._shares()],
            schema=[("seat", pl.Int64), ("policy", pl.Utf8), ("wins", pl.Float64),
                    ("share", pl.Float64), ("low", pl.Float64), ("high", pl.Float64)],
            orient="row")

    def seats(self):
        """The long per-seat table: one row per seat with its policy, win share and interval,
        and every per-seat counter (totals over the run, and per game: `_per_game`)."""
        import polars as pl

        n = self.n_games
        frame = self.win_shares()
        counters = {k: v for k, v in self.agg["seats"].items()}
        return frame.with_columns(
            [pl.Series(k, v, dtype=pl.Int64) for k, v in counters.items()]
            + [pl.Series(f"{k}_per_game", [x / n for x in v], dtype=pl.Float64)
               for k, v in counters.items()])

    def search_stats(self):
        """The search players' counters (docs/policies.md "Search players"): one row per
        search seat (pimc, ismcts) with its policy, its decisions searched, those answered
        by the rollout policy because no sample could be built (`fallback`), the samples
        drawn and dropped, and the shares `fallback_share` (of its decisions with more than
        one legal answer) and `dropped_share` (of its samples).  No row without a search
        seat."""
        import polars as pl

        return pl.DataFrame(self._search_rows(), orient="row", schema=[
            ("seat", pl.Int64), ("policy", pl.Utf8), *((k, pl.Int64) for k in SEARCH_STATS),
            ("fallback_share", pl.Float64), ("dropped_share", pl.Float64)])

    def _search_rows(self) -> list[tuple]:
        """search_stats' rows as tuples (no Polars: the summary text needs only these)."""
        rows = []
        for seat, st in enumerate(self.agg.get("search", [])):
            if not getattr(self.policies[seat], "is_search", False):
                continue
            searched, fallback, samples, dropped = (int(v) for v in st)
            rows.append((seat, str(self.policies[seat]), searched, fallback, samples, dropped,
                         fallback / max(1, searched + fallback), dropped / max(1, samples)))
        return rows

    def summary_frame(self):
        """The summary as a Polars DataFrame of (metric, value) rows: the run's figures, then
        each seat's win share with its interval (`win_share_S`, `win_share_S_low`...)."""
        import polars as pl

        s = self.summary()
        rows = [(k, float(v)) for k, v in s.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)]
        for w in s["win_share"]:
            rows += [(f"win_share_{w['seat']}", w["share"]),
                     (f"win_share_{w['seat']}_low", w["low"]),
                     (f"win_share_{w['seat']}_high", w["high"])]
        for w in s.get("team_win_share", []):
            rows += [(f"team_win_share_{w['team']}", w["share"]),
                     (f"team_win_share_{w['team']}_low", w["low"]),
                     (f"team_win_share_{w['team']}_high", w["high"])]
        return pl.DataFrame(rows, schema=[("metric", pl.Utf8), ("value", pl.Float64)],
                            orient="row")

    def _settings_line(self) -> str:
        r = self.rules
        return (f"{r.variant}, {r.players} players, {r.scoring} scoring to {r.target}; "
                f"policies {', '.join(str(p) for p in self.policies)}; seed {self.seed}; "
                f"{self.n_games:,} games")

    def _repr_markdown_(self) -> str:
        """A notebook's view: the settings and the table of win shares (Markdown)."""
        lines = [f"**uno-sim run**: {self._settings_line()}", "",
                 "| seat | policy | win share | 95% interval |", "|---:|---|---:|---|"]
        for seat, policy, _, share, lo, hi in self.win_shares().rows():
            lines.append(f"| {seat} | {policy} | {share:.4f} | [{lo:.4f}, {hi:.4f}] |")
        return "\n".join(lines) + "\n"

    def _repr_html_(self) -> str:
        """A notebook's view: the settings and the table of win shares (HTML)."""
        import html

        rows = "".join(
            f"<tr><td>{seat}</td><td>{html.escape(policy)}</td><td>{share:.4f}</td>"
            f"<td>[{lo:.4f}, {hi:.4f}]</td></tr>"
            for seat, policy, _, share, lo, hi in self.win_shares().rows())
        return (f"<div><p><b>uno-sim run</b>: {html.escape(self._settings_line())}</p>"
                "<table><thead><tr><th>seat</th><th>policy</th><th>win share</th>"
                f"<th>95% interval</th></tr></thead><tbody>{rows}</tbody></table></div>")

    def summary(self) -> dict:
        """The summary as a dict (what summary.json holds and `--format json` prints)."""
        a, n = self.agg, self.n_games
        out = {
            "schema_version": SCHEMA_VERSION,
            "rules": self.rules.to_dict(),
            "policies": [str(p) for p in self.policies],
            "seed": self.seed,
            "games": n,
            "rounds": a["rounds"],
            "rounds_per_game_mean": a["rounds"] / n,
            "rounds_per_game_median": _hist_median(a["rounds_hist"]),
            "turns_per_round_mean": a["turns"] / max(1, a["rounds"]),
            "points_per_round": a["points"] / max(1, a["rounds"]),
            "win_share": [{"seat": s, "share": sh, "low": lo, "high": hi}
                          for s, sh, lo, hi in self._shares()],
            "reshuffles": a["reshuffles"],
            "stalemates": a["stalemates"],
            **{k: sum(v) for k, v in a["seats"].items() if k != "rounds_won"},
        }
        if "turns_hist" in a:
            out["turns_per_round_median"] = _hist_median(a["turns_hist"])
        if self.rules.teams:
            out["team_win_share"] = [{"team": t, "share": w / n, "low": wilson(w, n)[0],
                                      "high": wilson(w, n)[1]}
                                     for t, w in enumerate(a["team_wins"])]
        if self.wall:
            out["wall_seconds"] = self.wall
            out["games_per_second"] = self.played / self.wall
            if self.played != n:
                out["games_played"] = self.played
                out["games_already_done"] = n - self.played
        return out

    def summary_text(self) -> str:
        """The summary as `uno-sim run` prints it."""
        s, r = self.summary(), self.rules
        med_turns = (f", median {s['turns_per_round_median']:g}"
                     if "turns_per_round_median" in s else "")
        lines = [
            f"variant {r.variant}, {r.players} players, {r.scoring} scoring to {r.target}"
            + (", teams" if r.teams else "") + f", edition {r.edition}",
        ]
        shown = {"variant", "players", "edition", "scoring", "target", "teams", "deck"}
        other = [f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                 for k, v in r.changed().items()
                 if k not in shown and not k.startswith("launcher")]
        if other:
            lines.append("rules: " + ", ".join(other))
        if r.deck:
            lines.append(f"deck ({deck_for(r).size} cards): " + deck_text(r.deck))
        lines += r.variant_spec.summary(r)
        lines += [
            f"policies: {', '.join(str(p) for p in self.policies)}",
            f"seed {self.seed}: {s['games']:,} games, {s['rounds']:,} rounds",
            f"rounds per game: mean {s['rounds_per_game_mean']:.2f}, "
            f"median {s['rounds_per_game_median']:g}",
            f"turns per round: mean {s['turns_per_round_mean']:.1f}{med_turns}",
            f"points per round: {s['points_per_round']:.1f}",
            "",
            "seat  win share  95% interval",
        ]
        for w in s["win_share"]:
            lines.append(f"{w['seat']:>4}  {w['share']:9.4f}  [{w['low']:.4f}, {w['high']:.4f}]")
        for w in s.get("team_win_share", []):
            lines.append(f"team {w['team']}  {w['share']:7.4f}  [{w['low']:.4f}, {w['high']:.4f}]")
        lines += [
            "",
            f"bluffs {s['bluffs']:,}; challenges {s['challenges']:,} (won {s['challenges_won']:,}); "
            f"UNO forgotten {s['uno_forgotten']:,} (caught {s['uno_caught']:,}); "
            f"reshuffles {s['reshuffles']:,}; stalemates {s['stalemates']:,}",
        ]
        for seat, _, *counts, _, _ in self._search_rows():
            lines.append(f"search seat {seat}: {search_counts_text(*counts)}")
        if "wall_seconds" in s:
            lines.append(f"wall time {s['wall_seconds']:.2f} s, "
                         f"{s['games_per_second']:,.0f} games/s"
                         + (f" ({s['games_played']:,} games played now, "
                            f"{s['games_already_done']:,} already done)"
                            if "games_played" in s else ""))
        return "\n".join(lines)
