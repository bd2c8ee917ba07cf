"""A run's directory: plan, manifest, shard markers, atomic writes, lock, final tables."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass

from .. import __version__
from ..files import read_capped
from ..policies import parse_policy
from ..rng import key_from_seed
from ..rules import Rules, RulesError
from .aggregate import RunResult, merge_aggregates
from .columns import SCHEMA_VERSION
from .errors import RunError

DEFAULT_SHARD = 10_000
MANIFEST_FORMAT = 1
MANIFEST_MAX_BYTES = 16 * 2**20  # a manifest is a few KB (more with a large deck table)
MAX_SHARDS = 1_000_000  # a run's plan, manifest checks and merge walk every shard


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


def _read_manifest(out: str) -> dict | None:
    path = os.path.join(out, "manifest.json")
    if not os.path.exists(path):
        return None
    try:  # bounded: a manifest.json linked to /dev/zero is refused, not read forever
        manifest = json.loads(read_capped(path, MANIFEST_MAX_BYTES))
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
    """Whether the run in `out` has finished (its summary.json is written last)."""
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
