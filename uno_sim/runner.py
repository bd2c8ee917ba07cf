"""Running many games: shards, workers, Parquet output, resume, array jobs.

Determinism.  Game g of a run with seed S is always seeded from (key(S), g)
(see `uno_sim.rng`), so a game's outcome depends on nothing but (rules,
policies, S, g).  The run is cut into fixed-size shards of consecutive games;
any number of workers, a Dask cluster or an array of separate jobs computes
the same shards, and merging them in shard order gives bit-identical tables.

Failure.  A worker writes each finished shard atomically (temporary name, then
rename), the shard's summary JSON last: a shard counts as done exactly when its
summary exists.  A run killed at any moment keeps every finished shard, and
`resume()` computes only the missing ones.

Layout of an output directory::

    DIR/manifest.json                 what the run is (rules, policies, seed, plan)
    DIR/shards/shard-000007.json      aggregates of shard 7 (its completion marker)
    DIR/shards/shard-000007.games.parquet / .rounds.parquet   (until merged)
    DIR/games.parquet/part-000007.parquet, DIR/rounds.parquet/part-000007.parquet,
    DIR/summary.json                  (when complete)

`games.parquet` and `rounds.parquet` are Parquet datasets: directories of one
part per shard, in game order by part name.  Polars (`pl.read_parquet`,
`pl.scan_parquet`), pandas and pyarrow read such a directory as one table.
Merging is a rename per shard, so it costs nothing however large the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from . import __version__
from .api import engine_module, make_rules
from .cards import deck_for, deck_text
from .policies import UserPolicySpec, parse_policy, seat_policies
from .results import SEAT_COUNTERS
from .rng import key_from_seed
from .rules import Rules, RulesError
from .stats import wilson

DEFAULT_SHARD = 10_000
BATCH = 20_000  # most games per call into C
PROGRESS_BATCH = 1_000  # games per call while a progress bar is drawn in this process
MANIFEST_FORMAT = 1
MAX_SHARDS = 1_000_000  # a run's plan, manifest checks and merge walk every shard
# Version of the layout of games.parquet, rounds.parquet and summary.json (docs/results.md):
# 2 made the seat columns Int8 in both tables and put nulls where a value does not apply.
SCHEMA_VERSION = 2



def launcher_text(r) -> str:
    """The UNO Extreme launcher law of a run (RULES.md E2), for the summary."""
    if r.launcher == "dist":
        return ("launcher: i.i.d. law, weights of firing 0, 1, 2, ... cards "
                + ",".join(map(str, r.launcher_weights)))
    return (f"launcher: model (not a measured law): fires on {r.launcher_fire}/1000 of the "
            f"presses, always after {r.launcher_max_silent} silent ones; bursts of 1, 2, ... "
            f"cards weighted " + ",".join(map(str, r.launcher_burst)))

class RunError(RulesError):
    """A run that cannot start or finish as asked (bad directory, missing shards...)."""


# ---------------------------------------------------------------------------
# Columns of one batch of games
# ---------------------------------------------------------------------------

ROUND_COLUMNS = ("round", "dealer", "starter", "winner", "turns", "reshuffles", "points",
                 "cards_left")


def reference_games(rules, policies, seed: int, first_game: int, n_games: int) -> dict:
    """The columns of `engine.play_games(rounds=True)`, computed with the reference engine."""
    from .reference import Game
    from .rng import Rng, key_from_seed

    p = rules.players
    key = key_from_seed(seed)
    cols = {k: [] for k in ("game", "winner", "team", "rounds", "turns", "reshuffles",
                            "stalemates", "scores", "team_scores", *SEAT_COUNTERS)}
    rows = {k: [] for k in ("game", *ROUND_COLUMNS)}
    for g in range(first_game, first_game + n_games):
        game = Game(rules, policies, Rng(key, g))
        r = game.play_game(seed=seed, game=g)
        for row in game.round_rows:
            rows["game"].append(g)
            for k in ROUND_COLUMNS:
                rows[k].append(row[k])
        for k in ("winner", "team", "rounds", "turns", "reshuffles", "stalemates", "scores",
                  "team_scores"):
            cols[k].append(getattr(r, k))
        cols["game"].append(g)
        for k in SEAT_COUNTERS:
            cols[k].append(r.seats[k])
    out = {k: np.asarray(v, dtype=np.int64 if k == "game" else np.int32) for k, v in cols.items()}
    for k in ("scores", *SEAT_COUNTERS):
        out[k] = out[k].reshape(n_games, p)
    out["team_scores"] = out["team_scores"].reshape(n_games, 2)
    out["round_game"] = np.asarray(rows.pop("game"), dtype=np.int64)
    for k, v in rows.items():
        a = np.asarray(v, dtype=np.int32)
        if k in ("points", "cards_left"):
            a = a.reshape(-1, p)
        out["round_" if k == "round" else f"round_{k}"] = a
    return out


def play_columns(rules, specs, seed, first_game, n_games, engine="c", on_batch=None) -> dict:
    """Columns of games first_game.. of the run `seed`; `on_batch(k)` after each k games.

    With `on_batch` (a progress bar) the games are played in batches of
    PROGRESS_BATCH; each game has its own seed, so batching changes nothing else.
    """
    step = BATCH if on_batch is None else PROGRESS_BATCH
    if engine == "reference":
        parts = []
        for start in range(first_game, first_game + n_games, step):
            k = min(step, first_game + n_games - start)
            parts.append(reference_games(rules, specs, seed, start, k))
            if on_batch is not None:
                on_batch(k)
        if len(parts) == 1:
            return parts[0]
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    mod = engine_module(engine)
    parts = []
    for start in range(first_game, first_game + n_games, step):
        k = min(step, first_game + n_games - start)
        parts.append(mod.play_games(rules, specs, seed=seed, first_game=start, n_games=k,
                                    rounds=True))
        if on_batch is not None:
            on_batch(k)
    if len(parts) == 1:
        return parts[0]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def win_matrix(cols: dict) -> np.ndarray:
    """Per game and seat, the share of the win (1, 0, or 1/k for a k-way shared win)."""
    n, p = cols["scores"].shape
    wins = np.zeros((n, p))
    seats = np.arange(p)
    team = cols["team"].astype(np.int64)
    winner = cols["winner"].astype(np.int64)
    single = (winner >= 0) & (team < 0)
    wins[np.flatnonzero(single), winner[single]] = 1.0
    t = team >= 0
    wins[t] = (seats[None, :] % 2 == team[t][:, None]).astype(float)
    shared = (winner < 0) & (team < 0)
    if shared.any():
        sc = cols["scores"][shared]
        low = sc == sc.min(axis=1, keepdims=True)
        wins[shared] = low / low.sum(axis=1, keepdims=True)
    return wins


def _seat_or_null(name: str, v: np.ndarray):
    """A seat or team column as Int8, null where the engines write -1 (docs/results.md)."""
    import polars as pl

    return pl.Series(name, v.astype(np.int8)).set(pl.Series(v < 0), None)


def games_frame(cols: dict):
    """One row per game as a Polars DataFrame; per-seat columns are suffixed _0.._{p-1}.

    `winner` is null when no single seat won (a team win, or a win shared by the
    lowest scores); `team` and `team_scores_*` are null outside team play.
    """
    import polars as pl

    data = {k: v for k, v in cols.items() if v.ndim == 1 and not k.startswith("round_")}
    for k, v in cols.items():
        if v.ndim == 2 and not k.startswith("round_"):
            for s in range(v.shape[1]):
                data[f"{k}_{s}"] = v[:, s]
    no_team = cols["team"] < 0
    for k in list(data):
        if k in ("winner", "team"):
            data[k] = _seat_or_null(k, data[k])
        elif k.startswith("team_scores_"):
            data[k] = pl.Series(k, data[k]).set(pl.Series(no_team), None)
    return pl.DataFrame(data)


def rounds_frame(cols: dict, rules: Rules | None = None):
    """One row per round (engines that report rounds put them in `round_*` columns).

    Columns: game, round (from 1), dealer, starter (the starter card's code
    when `rules` is given, else its kind index), winner (null: stalemate),
    turns, reshuffles, and per seat points_i (scored this round, C17-C19)
    and cards_left_i (docs/results.md).
    """
    import polars as pl

    codes = None
    if rules is not None:
        codes = np.array([k.code for k in deck_for(rules).kinds])
    data = {}
    for k, v in cols.items():
        if not k.startswith("round_"):
            continue
        name = k[len("round_"):] or "round"
        if name == "starter" and codes is not None:
            data[name] = pl.Series(name, codes[v], dtype=pl.String)
        elif name in ("winner", "dealer"):  # seats: Int8 as in the games table
            data[name] = _seat_or_null(name, v)
        elif v.ndim == 1:
            data[name] = v
        else:
            for s in range(v.shape[1]):
                data[f"{name}_{s}"] = v[:, s]
    return pl.DataFrame(data) if data else None


# ---------------------------------------------------------------------------
# Aggregates: exact, mergeable summaries of any number of games
# ---------------------------------------------------------------------------

def _hist_add(a: list, b: list) -> list:
    out = [0] * max(len(a), len(b))
    for i, v in enumerate(a):
        out[i] += v
    for i, v in enumerate(b):
        out[i] += v
    return out


def aggregate(cols: dict) -> dict:
    n, p = cols["scores"].shape
    agg = {
        "games": int(n),
        "wins": win_matrix(cols).sum(axis=0).tolist(),
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
    return agg


def merge_aggregates(aggs) -> dict:
    total = None
    for a in aggs:
        if total is None:
            total = json.loads(json.dumps(a))
            continue
        for k in ("games", "rounds", "turns", "points", "reshuffles", "stalemates"):
            total[k] += a[k]
        total["wins"] = [x + y for x, y in zip(total["wins"], a["wins"])]
        total["team_wins"] = [x + y for x, y in zip(total["team_wins"], a["team_wins"])]
        for k in ("rounds_hist", "turns_hist"):
            if k in a:
                total[k] = _hist_add(total.get(k, []), a[k])
        for k, v in a["seats"].items():
            total["seats"][k] = [x + y for x, y in zip(total["seats"][k], v)]
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


# ---------------------------------------------------------------------------
# The result of a run
# ---------------------------------------------------------------------------

class RunResult:
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
        path = os.path.join(self.out, f"{what}.parquet")
        if not os.path.exists(path):
            return None
        return pl.read_parquet(path)

    def win_shares(self):
        """[(seat, share, low, high)] with 95% Wilson intervals."""
        n = self.n_games
        return [(s, w / n, *wilson(w, n)) for s, w in enumerate(self.agg["wins"])]

    def summary(self) -> dict:
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
                          for s, sh, lo, hi in self.win_shares()],
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
        if r.variant == "extreme":
            lines.append(launcher_text(r))
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
        if "wall_seconds" in s:
            lines.append(f"wall time {s['wall_seconds']:.2f} s, "
                         f"{s['games_per_second']:,.0f} games/s"
                         + (f" ({s['games_played']:,} games played now, "
                            f"{s['games_already_done']:,} already done)"
                            if "games_played" in s else ""))
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# Plans, manifests and shard files
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    games: int
    shard_size: int

    @property
    def n_shards(self) -> int:
        return -(-self.games // self.shard_size)

    def shard(self, i: int) -> tuple[int, int]:
        first = i * self.shard_size
        return first, min(self.shard_size, self.games - first)

    def slice(self, k: int, m: int) -> range:
        """Shards of array task k of m: a contiguous block, sizes differing by at most one."""
        n = self.n_shards
        return range(k * n // m, (k + 1) * n // m)


def make_manifest(rules, specs, seed, games, shard_size, summary_only, engine) -> dict:
    return {
        "format": MANIFEST_FORMAT,
        "package": "uno-sim",
        "version": __version__,
        "variant": rules.variant,
        "rules": rules.to_dict(),
        "policies": [str(s) for s in specs],
        "seed": seed,
        "games": games,
        "shard_size": shard_size,
        "n_shards": Plan(games, shard_size).n_shards,
        "summary_only": bool(summary_only),
        "engine": engine,
    }


def manifest_id(manifest: dict) -> str:
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:16]


def _atomic_write_text(path: str, text: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def parquet_metadata(manifest: dict, table: str) -> dict:
    """The Parquet key-value metadata of every part: schema version, rules, policies, seed."""
    return {"uno_sim.schema": str(SCHEMA_VERSION), "uno_sim.table": table,
            "uno_sim.version": manifest["version"],
            "uno_sim.rules": json.dumps(manifest["rules"], sort_keys=True),
            "uno_sim.policies": json.dumps(manifest["policies"]),
            "uno_sim.seed": str(manifest["seed"])}


def _atomic_write_parquet(frame, path: str, metadata: dict | None = None) -> dict:
    """Write, fsync, rename; returns what the shard marker records of the file."""
    tmp = f"{path}.tmp{os.getpid()}"
    frame.write_parquet(tmp, metadata=metadata)
    with open(tmp, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return {"rows": frame.height, "bytes": os.path.getsize(path), "sha256": digest}


def _file_ok(path: str, info: dict) -> bool:
    try:
        if os.path.getsize(path) != info["bytes"]:
            return False
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest() == info["sha256"]
    except (OSError, KeyError, TypeError):
        return False


def _read_marker(out: str, i: int, mid: str) -> dict | None:
    """Shard i's completion record, or None when it is missing or unreadable (truncated)."""
    try:
        with open(_shard_base(out, i) + ".json", encoding="utf-8") as f:
            rec = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict) or not isinstance(rec.get("aggregates"), dict):
        return None
    if rec.get("manifest") != mid:
        raise RunError(f"shard {i} in {out!r} belongs to another run (manifest "
                       f"{rec.get('manifest')} != {mid})")
    return rec


def _intact_marker(out: str, i: int, manifest: dict, files: bool = True) -> dict | None:
    """Shard i's record when it is finished and intact: its marker reads, and (`files`) its
    row files, in shards/ or already moved into the datasets, have the size and checksum
    the marker recorded; else None."""
    rec = _read_marker(out, i, manifest_id(manifest))
    if rec is None or not files:
        return rec
    for what, info in (rec.get("files") or {}).items():
        src = _shard_base(out, i) + f".{what}.parquet"
        if not _file_ok(src if os.path.exists(src) else part_path(out, what, i), info):
            return None
    return rec


def _shard_ok(out: str, i: int, manifest: dict) -> bool:
    return _intact_marker(out, i, manifest) is not None


def _clean_tmp(out: str) -> None:
    """Remove the temporary files of writers that died (the caller holds the run's lock)."""
    for d in (out, os.path.join(out, "shards")):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for name in names:
            if ".tmp" in name and name.rpartition(".tmp")[2].isdigit():
                try:
                    os.unlink(os.path.join(d, name))
                except OSError:
                    pass


def _shard_base(out: str, i: int) -> str:
    return os.path.join(out, "shards", f"shard-{i:06d}")


def shard_done(out: str, i: int) -> bool:
    return os.path.exists(_shard_base(out, i) + ".json")


def run_shard(manifest: dict, i: int, out: str | None, keep_cols: bool = False,
              on_batch=None):
    """Compute shard i; write it under `out` if given.  Returns (aggregates, columns or None)."""
    rules = Rules.from_dict(manifest["rules"])
    specs = [parse_policy(s) for s in manifest["policies"]]
    first, n = Plan(manifest["games"], manifest["shard_size"]).shard(i)
    cols = play_columns(rules, specs, manifest["seed"], first, n, manifest["engine"], on_batch)
    agg = aggregate(cols)
    if out is not None:
        base = _shard_base(out, i)
        files = {}
        if not manifest["summary_only"]:
            files["games"] = _atomic_write_parquet(games_frame(cols), base + ".games.parquet",
                                                   parquet_metadata(manifest, "games"))
            rf = rounds_frame(cols, rules)
            if rf is not None:
                files["rounds"] = _atomic_write_parquet(rf, base + ".rounds.parquet",
                                                        parquet_metadata(manifest, "rounds"))
        record = {"shard": i, "manifest": manifest_id(manifest), "first_game": first,
                  "games": n, "aggregates": agg, "files": files}
        _atomic_write_text(base + ".json", json.dumps(record))
    return agg, (cols if keep_cols else None)


def _read_manifest(out: str) -> dict | None:
    path = os.path.join(out, "manifest.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as exc:
        raise RunError(f"cannot read manifest {path!r}: {exc}") from None
    if not isinstance(manifest, dict):
        raise RunError(f"invalid manifest {path!r}: a JSON object expected, not "
                       f"{type(manifest).__name__}")
    for key, kind in MANIFEST_KEYS.items():
        v = manifest.get(key)
        if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
            raise RunError(f"invalid manifest {path!r}: {key} missing or not a "
                           f"{kind.__name__}")
    if manifest["n_shards"] != Plan(max(1, manifest["games"]),
                                    max(1, manifest["shard_size"])).n_shards:
        raise RunError(f"invalid manifest {path!r}: n_shards does not match games / shard_size")
    try:
        Rules.from_dict(manifest["rules"])
        [parse_policy(p) for p in manifest["policies"]]
        key_from_seed(manifest["seed"])
    except (RulesError, TypeError, ValueError) as exc:
        raise RunError(f"invalid manifest {path!r}: {exc}") from None
    return manifest


MANIFEST_KEYS = {"rules": dict, "policies": list, "seed": int, "games": int, "shard_size": int,
                 "n_shards": int, "summary_only": bool, "engine": str}


def _describe_difference(old: dict, new: dict, prefix: str = "") -> str:
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if a != b:
            if isinstance(a, dict) and isinstance(b, dict):
                return _describe_difference(a, b, f"{prefix}{k}.")
            return f"{prefix}{k} {a!r} != {b!r}"
    return "identical"


# What a run directory may hold besides its manifest (the module docstring's layout).
RUN_ENTRIES = {"manifest.json", "shards", "games.parquet", "rounds.parquet", "summary.json",
               ".lock"}


def lock_out(out: str, shared: bool = False):
    """Hold `out` for this process: an exclusive lock for a run, a shared one for an array
    task (array tasks of one run share the directory).  Returns the open lock file, to keep
    open as long as the run writes there; the lock goes with the process however it ends."""
    import fcntl

    try:
        fd = os.open(os.path.join(out, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise RunError(f"cannot write --out {out!r}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise RunError(f"--out {out!r} is in use by another uno-sim run; wait for it to end "
                       "or use another directory") from None
    return fd


def _claim_manifest(out: str, manifest: dict) -> bool:
    """Write manifest.json unless it exists (atomically: a hard link never overwrites).
    True when this call wrote it."""
    path = os.path.join(out, "manifest.json")
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, indent=2))
        f.flush()
        os.fsync(f.fileno())
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(tmp)


def prepare_out(out: str, manifest: dict, allow_same: bool, shared: bool = False):
    """Create and lock `out` for this run, or accept it when it already holds this very run.

    Returns the lock (see `lock_out`).  A directory that is neither empty nor a
    uno-sim run is refused before anything is written into it."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise RunError(f"cannot write --out {out!r}: it is a file, not a directory")
    try:
        if os.path.isdir(out):
            foreign = sorted(set(os.listdir(out)) - RUN_ENTRIES)
            if foreign and "manifest.json" not in os.listdir(out):
                raise RunError(f"--out {out!r} is not empty and holds no uno-sim run (it has "
                               f"{foreign[0]!r}); use a new or empty directory")
        os.makedirs(os.path.join(out, "shards"), exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot write --out {out!r}: {exc.strerror}") from None
    if not os.access(out, os.W_OK):
        raise RunError(f"cannot write --out {out!r}: permission denied")
    lock = lock_out(out, shared)
    try:
        _check_out(out, manifest, allow_same)
    except BaseException:
        os.close(lock)
        raise
    return lock


def _check_out(out: str, manifest: dict, allow_same: bool) -> None:
    old = _read_manifest(out)
    if old is None:
        if any(f.endswith(".json") for f in os.listdir(os.path.join(out, "shards"))):
            raise RunError(f"--out {out!r} holds shards without a manifest; use another directory")
        try:
            if _claim_manifest(out, manifest):
                return
        except OSError as exc:
            raise RunError(f"cannot write --out {out!r}: {exc.strerror}") from None
        old = _read_manifest(out)  # another array task claimed it first
    if old != manifest:
        raise RunError(f"--out {out!r} holds another run ({_describe_difference(old, manifest)}); "
                       "use another directory")
    if not allow_same:
        raise RunError(f"--out {out!r} already holds this run; use --resume {out}")


# ---------------------------------------------------------------------------
# Execution
# ---------------------------------------------------------------------------

def _execute(manifest, shards, out, n_jobs, backend, scheduler, keep_cols, progress):
    """Run shards, yielding (shard, aggregates, columns) as they finish."""
    plan = Plan(manifest["games"], manifest["shard_size"])
    if n_jobs == 1 and backend == "local":  # the bar moves per batch of games
        for i in shards:
            agg, cols = run_shard(manifest, i, out, keep_cols,
                                  progress.update if not progress.disable else None)
            yield i, agg, cols
        return
    import joblib

    def tasks():
        return (joblib.delayed(_run_shard_indexed)(manifest, i, out, keep_cols) for i in shards)

    if backend == "dask":
        client, own = dask_client(scheduler)
        try:
            with joblib.parallel_config(backend="dask", client=client):
                for i, agg, cols in joblib.Parallel(n_jobs=n_jobs, return_as="generator")(tasks()):
                    progress.update(plan.shard(i)[1])
                    yield i, agg, cols
        finally:
            if own:
                client.close()
        return
    if backend == "ray":
        _ray_backend(scheduler)
        # joblib's Ray backend returns lists only: the shards go in blocks, so that the
        # progress bar moves and finished blocks are folded while later ones run
        todo = list(shards)
        with joblib.parallel_config(backend="ray"), joblib.Parallel(n_jobs=n_jobs) as par:
            for start in range(0, len(todo), RAY_BLOCK):
                block = todo[start:start + RAY_BLOCK]
                for i, agg, cols in par(joblib.delayed(_run_shard_indexed)(manifest, i, out,
                                                                           keep_cols)
                                        for i in block):
                    progress.update(plan.shard(i)[1])
                    yield i, agg, cols
        return
    if backend != "local":
        raise RunError(f"unknown backend {backend!r}: expected local, dask or ray")
    kind = _local_pool_kind()
    pending, deaths = dict.fromkeys(shards), 0
    while pending:
        try:
            for i, agg, cols in _pool_pass(kind, manifest, list(pending), out, n_jobs, keep_cols,
                                           progress):
                if i in pending:  # a shard computed twice (after a death) counts once
                    del pending[i]
                    if kind != "fork" or progress.disable:  # forked workers count batches
                        progress.update(plan.shard(i)[1])
                    yield i, agg, cols
        except _WorkerDied as exc:
            deaths += 1
            if deaths > MAX_WORKER_DEATHS:
                where = (f"the finished shards are kept in {out}: `uno-sim run --resume {out}` "
                         f"computes the rest" if out else "run it again")
                raise RunError(f"a worker process died {deaths} times ({exc}); {where}") from None
            # the lost shards are computed again: a shard's games depend on nothing else


MAX_WORKER_DEATHS = 3  # worker processes lost (killed, out of memory) before a run gives up


class _WorkerDied(Exception):
    pass


def _worker_init() -> None:
    """Workers leave Ctrl-C and SIGTERM to the main process (which ends them) and die quietly
    on a broken pipe when it is gone, instead of printing tracebacks."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if sys.platform.startswith("linux"):  # end with the main process, not linger as orphans
        import ctypes

        parent = os.getppid()
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
        if os.getppid() != parent:  # it died before the call
            os._exit(1)


def _pool_pass(kind, manifest, shards, out, n_jobs, keep_cols, progress):
    """One pass of a local pool over `shards`, yielding results as they finish; a worker
    that dies raises _WorkerDied (the pool is then gone, the finished results kept).
    Forked workers add their finished batches of games to a shared counter (_FORK_GAMES),
    which moves the bar every 0.2 s in between."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    global _FORK_GAMES

    n = (os.cpu_count() or 1) if n_jobs == -1 else n_jobs
    n = max(1, min(n, len(shards)))
    if kind == "fork":
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("fork")
        # the workers, forked after this, add their finished batches to a shared counter
        _FORK_GAMES = None if progress.disable else ctx.Value("q", 0)
        ex = ProcessPoolExecutor(n, mp_context=ctx, initializer=_worker_init)
    else:  # loky: fresh interpreters
        # an executor of this pass's own: loky's process-wide reusable one would be taken
        # over by joblib.Parallel (the studies), which cannot reuse a bare loky executor
        from joblib.externals.loky import ProcessPoolExecutor as LokyExecutor

        _quiet_loky_tracker()
        ex = LokyExecutor(n, initializer=_worker_init)
    ok = False
    try:
        futs = {ex.submit(_run_shard_indexed, manifest, i, out, keep_cols) for i in shards}
        counted = progress.n
        try:
            while futs:
                done, futs = wait(futs, timeout=0.2, return_when=FIRST_COMPLETED)
                if _FORK_GAMES is not None:
                    now = min(progress.total or 0, counted + _FORK_GAMES.value)
                    if now > progress.n:
                        progress.update(now - progress.n)
                for f in done:
                    yield f.result()
        except BrokenProcessPool:  # loky's TerminatedWorkerError too
            raise _WorkerDied("lost with its shard") from None
        ok = True
    finally:
        _FORK_GAMES = None
        if not ok:  # interrupted or broken: end the workers now, not after their shards
            if kind == "fork":
                for proc in list(getattr(ex, "_processes", {}).values()):
                    if proc.is_alive():
                        proc.terminate()
                ex.shutdown(wait=False, cancel_futures=True)
            else:
                ex.shutdown(wait=False, kill_workers=True)
        else:
            ex.shutdown(wait=True)


LOKY_TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


def _quiet_loky_tracker() -> None:
    """loky's resource tracker, a process of its own started with the first pool, warns at
    exit about the queue locks of workers killed by an interrupt (locks already gone): lines
    that would follow the interrupt's one line.  Its warnings are filtered through the
    environment it starts with; nothing else is."""
    current = os.environ.get("PYTHONWARNINGS", "")
    if LOKY_TRACKER_QUIET not in current:
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [current, LOKY_TRACKER_QUIET]))


RAY_BLOCK = 64  # shards per joblib call on Ray
DASK_CONNECT_TIMEOUT = 10  # seconds to reach --scheduler (UNO_SIM_DASK_TIMEOUT overrides)


def dask_client(scheduler: str | None):
    """(client, whether this run made it and closes it).

    Without an address, the client the user already runs (`distributed.get_client()`,
    a notebook's `Client(...)`) is used, never a second cluster behind it; only when
    there is none does the run start a local cluster of its own.  With an address,
    a running client already connected to it is reused; otherwise a new one must
    reach it within DASK_CONNECT_TIMEOUT seconds, or the run fails with one line.
    """
    try:
        import distributed
    except ImportError:
        raise RunError("--backend dask needs the dask extra: pip install 'uno-sim[dask]'") from None
    try:
        current = distributed.get_client()
    except ValueError:  # no client in this process
        current = None
    if current is not None and current.status == "running":
        if scheduler is None or _same_address(current.scheduler.address, scheduler):
            return current, False
    if scheduler is None:
        return distributed.Client(processes=True, dashboard_address=None), True
    timeout = float(os.environ.get("UNO_SIM_DASK_TIMEOUT", DASK_CONNECT_TIMEOUT))
    try:
        _probe_scheduler(scheduler, timeout)
        return distributed.Client(scheduler, timeout=timeout, set_as_default=False), True
    except (OSError, ValueError, TypeError) as exc:  # TimeoutError is an OSError
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RunError(f"cannot reach --scheduler {scheduler!r}: {why}") from None


def _probe_scheduler(address: str, timeout: float) -> None:
    """Fail at once on an address Dask cannot use or a TCP port nobody listens on
    (a Dask client would retry until its timeout)."""
    import socket

    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port
    from distributed.comm.registry import get_backend

    scheme, loc = parse_address(address)
    get_backend(scheme)  # ValueError naming the known schemes
    if scheme in ("tcp", "tls"):
        host, port = parse_host_port(loc)
        socket.create_connection((host, port), timeout=timeout).close()


def _same_address(a: str, b: str) -> bool:
    strip = lambda x: x.split("://", 1)[-1].rstrip("/")  # noqa: E731
    return strip(a) == strip(b)


def _ray_backend(address: str | None) -> None:
    """Register joblib's Ray backend (`ray.util.joblib`), joining `address` or a running
    Ray instance, or starting a local one."""
    try:
        import ray
        from ray.util.joblib import register_ray
    except ImportError:
        raise RunError("--backend ray needs the ray extra: pip install 'uno-sim[ray]'") from None
    register_ray()
    if not ray.is_initialized():
        try:
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise RunError(f"cannot start or reach Ray at {address or 'a local instance'!r}: "
                           f"{str(exc).splitlines()[0] if str(exc) else exc!r}") from None


def _local_pool_kind() -> str:
    """How local workers start: "fork" or "loky" (environment UNO_SIM_POOL overrides).

    Forked workers start at once with everything the parent imported; loky
    workers are fresh interpreters (about a second to import numpy, Polars and
    the engine).  Forking is safe only before Polars has started its thread
    pool, so it is used on Linux when Polars is not loaded yet, and the runner
    then loads it (without using it) so that every worker inherits it.
    """
    kind = os.environ.get("UNO_SIM_POOL", "auto")
    if kind not in ("auto", "fork", "loky"):
        raise RunError(f"invalid UNO_SIM_POOL {kind!r}: expected auto, fork or loky")
    if kind == "auto":
        kind = "fork" if sys.platform.startswith("linux") and "polars" not in sys.modules else "loky"
    if kind == "fork":
        import polars  # noqa: F401  (loaded, not used: the workers inherit it)
    return kind


def _run_shard_indexed(manifest, i, out, keep_cols):
    counter = _FORK_GAMES  # set in forked workers while a bar is drawn

    def batch_done(k):
        with counter.get_lock():
            counter.value += k

    agg, cols = run_shard(manifest, i, out, keep_cols, batch_done if counter is not None else None)
    return i, agg, cols


_FORK_GAMES = None  # multiprocessing.Value: games the forked workers have finished


def _shard_aggregates(out: str, manifest: dict, files: bool = True):
    """(aggregate of the finished shards in shard order, indices of the missing shards).

    Reads one shard record at a time, so memory does not grow with the run.
    """
    total, missing = None, []
    for i in range(manifest["n_shards"]):
        rec = _intact_marker(out, i, manifest, files)
        if rec is None:
            missing.append(i)
            continue
        agg = rec["aggregates"]
        total = agg if total is None else merge_aggregates([total, agg])
    return total, missing


def part_path(out: str, what: str, i: int) -> str:
    """Where shard i's rows of `what` (games, rounds) lie in a complete run."""
    return os.path.join(out, f"{what}.parquet", f"part-{i:06d}.parquet")


def _move_parts(out: str, n_shards: int, what: str) -> None:
    """Shard files become the parts of DIR/{what}.parquet (a rename each; idempotent)."""
    moves, missing = [], []
    for i in range(n_shards):
        src, dst = _shard_base(out, i) + f".{what}.parquet", part_path(out, what, i)
        if os.path.exists(src):
            moves.append((src, dst))
        elif not os.path.exists(dst):
            missing.append(i)
    if len(missing) == n_shards:
        return  # an engine that reports no rounds writes no round rows
    if missing:
        raise RunError(f"{out!r} is missing the {what} rows of {len(missing)} finished shards "
                       f"(first: shard {missing[0]})")
    if moves:
        os.makedirs(os.path.join(out, f"{what}.parquet"), exist_ok=True)
    for src, dst in moves:
        os.replace(src, dst)


def finalize(out: str, manifest: dict, wall: float | None = None,
             played: int | None = None) -> RunResult:
    """Make a complete run's shards into DIR/games.parquet, rounds.parquet and summary.json."""
    agg, missing = _shard_aggregates(out, manifest)
    if missing:
        head = ", ".join(str(i) for i in missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise RunError(f"{out!r} is missing {len(missing)} of {manifest['n_shards']} shards: "
                       f"{head} (absent or damaged); `uno-sim run --resume {out}` computes them")
    if not manifest["summary_only"]:
        for what in ("games", "rounds"):
            _move_parts(out, manifest["n_shards"], what)
    res = RunResult(manifest, agg, out=out, wall=wall, played=played)
    summary = res.summary()
    _atomic_write_text(os.path.join(out, "summary.json"), json.dumps(summary, indent=2))
    return res


def is_complete(out: str) -> bool:
    return os.path.exists(os.path.join(out, "summary.json"))


def load(out: str) -> RunResult:
    """Open a finished run directory."""
    manifest = _read_manifest(out)
    if manifest is None:
        raise RunError(f"{out!r} holds no run (no manifest.json)")
    if not is_complete(out):
        raise RunError(f"{out!r} is not complete; use resume or merge")
    agg, missing = _shard_aggregates(out, manifest, files=False)
    if missing:
        raise RunError(f"{out!r} is damaged: shard {missing[0]}'s record is missing or "
                       f"unreadable")
    return RunResult(manifest, agg, out=out)


class _Fold:
    """Merges shard aggregates in shard order as they arrive in any order.

    Only the shards that finished ahead of an earlier one wait in memory, so a
    run of any length holds a bounded number of aggregates; merging in shard
    order keeps the floating-point win sums identical for any number of workers.
    """

    def __init__(self, shards):
        self.order = list(shards)
        self.at = 0
        self.pending = {}
        self.total = None

    def add(self, i, agg) -> None:
        self.pending[i] = agg
        while self.at < len(self.order) and self.order[self.at] in self.pending:
            a = self.pending.pop(self.order[self.at])
            self.total = a if self.total is None else merge_aggregates([self.total, a])
            self.at += 1


def _drive(manifest, shards, out, n_jobs, backend, scheduler, progress, keep_cols):
    """Run `shards`; returns (aggregate of them all, {shard: columns} if keep_cols, wall)."""
    from .progress import bar as progress_bar

    t0 = time.perf_counter()
    plan = Plan(manifest["games"], manifest["shard_size"])
    last = plan.n_shards - 1  # the only shard that may be short
    total = len(shards) * plan.shard_size
    if len(shards) and last in shards:
        total -= plan.shard_size - plan.shard(last)[1]
    label = progress if isinstance(progress, str) else "games"
    bar = progress_bar(total, label, enabled=None if isinstance(progress, str) else progress,
                       leave=not isinstance(progress, str))
    fold, cols_by_shard = _Fold(shards), {}
    try:
        for i, agg, cols in _execute(manifest, shards, out, n_jobs, backend, scheduler,
                                     keep_cols, bar):
            fold.add(i, agg)
            if keep_cols:
                cols_by_shard[i] = cols
    finally:
        bar.close()
    return fold.total, cols_by_shard, time.perf_counter() - t0


def simulate(variant: str | None = None, games: int = 1000, players: int | None = None,
             policies="greedy", rules=None, seed: int = 0, n_jobs: int = 1, *,
             seats: dict | None = None, out: str | None = None, summary_only: bool = False,
             shard_size: int = DEFAULT_SHARD, backend: str = "local", scheduler: str | None = None,
             shard: tuple[int, int] | None = None, engine: str = "c",
             progress: bool | str | None = None, **switches) -> RunResult | None:
    """Simulate `games` complete games of the run `seed`.

    Returns a RunResult whose `.games` / `.rounds` are Polars DataFrames and whose
    `.summary()` is the summary table.  With `out`, everything is written there
    as the run goes (see the module docstring).  With `shard=(k, m)`, only array
    task k of m runs (into `out`); it returns None, and `merge(out)` completes
    the run once every task has finished.

    `progress`: a tqdm bar on stderr (a widget in Jupyter); None draws it on a
    terminal or in a notebook (uno_sim.progress), True or False decide, and a
    string draws it when None would, with that label, and clears it when done.
    """
    if variant is not None:
        switches["variant"] = variant
    if players is not None:
        switches["players"] = players
    rules = make_rules(rules, **switches)
    specs = seat_policies(policies, rules.players, seats)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise RunError(f"invalid games {games!r}: expected a positive integer")
    if isinstance(shard_size, bool) or not isinstance(shard_size, int) or shard_size < 1:
        raise RunError(f"invalid shard_size {shard_size!r}: expected a positive integer")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise RunError(f"invalid jobs {n_jobs!r}: expected a positive integer or -1 (all cores)")
    if Plan(int(games), shard_size).n_shards > MAX_SHARDS:
        raise RunError(f"invalid games {games!r}: {Plan(int(games), shard_size).n_shards:,} "
                       f"shards of {shard_size:,} games, at most {MAX_SHARDS:,}; raise the "
                       f"shard size")
    engine_module(engine)  # validates the name
    key_from_seed(seed)  # validates the seed, before anything is written
    if any(isinstance(s, UserPolicySpec) for s in specs):
        raise RunError("invalid policies: a Python user policy cannot run through simulate "
                       "(workers and manifests name policies by spec); use "
                       "uno_sim.engine.play_games")
    if not isinstance(summary_only, bool):
        raise RunError(f"invalid summary_only {summary_only!r}: expected true or false")
    manifest = make_manifest(rules, specs, seed, int(games), shard_size, summary_only, engine)
    plan = Plan(int(games), shard_size)
    if shard is not None:
        k, m = shard
        if out is None:
            raise RunError("--shard needs --out: the array tasks meet in one directory")
        if not (isinstance(m, int) and m >= 1 and isinstance(k, int) and 0 <= k < m):
            raise RunError(f"invalid shard {k}/{m}: expected K/M with 0 <= K < M")
        lock = prepare_out(out, manifest, allow_same=True, shared=True)
        try:
            todo = [i for i in plan.slice(k, m) if not _shard_ok(out, i, manifest)]
            _drive(manifest, todo, out, n_jobs, backend, scheduler, progress, False)
        finally:
            os.close(lock)
        return None
    lock = prepare_out(out, manifest, allow_same=False) if out is not None else None
    try:
        keep = out is None and not summary_only
        agg, parts, wall = _drive(manifest, range(plan.n_shards), out, n_jobs, backend,
                                  scheduler, progress, keep)
        if out is not None:
            return finalize(out, manifest, wall)
    finally:
        if lock is not None:
            os.close(lock)
    cols = None
    if keep:
        order = range(plan.n_shards)
        cols = {k: np.concatenate([parts[i][k] for i in order]) for k in parts[0]}
    return RunResult(manifest, agg, cols=cols, wall=wall)


def resume(out: str, n_jobs: int = 1, backend: str = "local", scheduler: str | None = None,
           progress: bool | None = None) -> RunResult:
    """Finish an interrupted run: compute only the shards missing from `out`, then merge."""
    manifest = _read_manifest(out)
    if manifest is None:
        raise RunError(f"cannot resume {out!r}: no manifest.json there")
    lock = lock_out(out)
    try:
        if is_complete(out):
            return load(out)
        _clean_tmp(out)
        todo = [i for i in range(manifest["n_shards"]) if not _shard_ok(out, i, manifest)]
        _, _, wall = _drive(manifest, todo, out, n_jobs, backend, scheduler, progress, False)
        plan = Plan(manifest["games"], manifest["shard_size"])
        last = plan.n_shards - 1
        played = len(todo) * plan.shard_size
        if todo and last in todo:
            played -= plan.shard_size - plan.shard(last)[1]
        return finalize(out, manifest, wall, played=played)
    finally:
        os.close(lock)


def merge(out: str) -> RunResult:
    """Check that every shard of an array-job run is present and from one manifest; merge."""
    manifest = _read_manifest(out)
    if manifest is None:
        raise RunError(f"cannot merge {out!r}: no manifest.json there")
    lock = lock_out(out)
    try:
        if is_complete(out):
            return load(out)
        return finalize(out, manifest)
    finally:
        os.close(lock)
