"""A run's directory: plan, manifest, shard markers, atomic writes, lock, final tables."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
from dataclasses import dataclass, field

from .._version import __version__
from ..files import read_capped, writing
from ..players.specs import parse_policy
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


def weights_checksums(rules, specs) -> list | None:
    """Per seat, the checksum (16 hex digits) of the network weights it reads (the spec's
    players.net.for_spec, docs/net.md), or None; None when no seat reads any."""
    from ..players import net

    nets = [net.for_spec(s, rules) for s in specs]
    if not any(n is not None for n in nets):
        return None
    return [f"{n.checksum:016x}" if n is not None else None for n in nets]


def check_weights(manifest: dict, rules, specs) -> None:
    """RunError unless every seat's network weights are the ones the run began with (the
    manifest's `weights`): a changed file would mix two players in one run."""
    now = weights_checksums(rules, specs)
    if now != manifest.get("weights"):
        was = manifest.get("weights") or [None] * len(specs)
        now = now or [None] * len(specs)
        seat = next(i for i, (a, b) in enumerate(zip(was, now)) if a != b)
        raise RunError(f"the network weights of seat {seat} ({specs[seat]}) changed since the "
                       f"run began (checksum {was[seat]}, now {now[seat]}): restore the file "
                       f"or start a new run")


def make_manifest(rules, specs, seed, games, shard_size, summary_only, engine) -> dict:
    weights = weights_checksums(rules, specs)
    return ({
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
    } | ({"weights": weights} if weights else {}))


def manifest_id(manifest: dict) -> str:
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:16]


class DiskError(RunError):
    """A write that failed for want of space or another I/O error (the finished shards
    are kept; a resume computes the rest)."""


def _disk_error(path: str, exc: BaseException) -> DiskError:
    """One line for a write that failed: a full disk says to free space and resume."""
    out = os.path.dirname(os.path.dirname(path)) if os.path.basename(
        os.path.dirname(path)) == "shards" else os.path.dirname(path)
    full = getattr(exc, "errno", None) in (errno.ENOSPC, errno.EDQUOT)
    why = "no space left on the device" if full else (exc.strerror or str(exc))
    return DiskError(f"cannot write {path!r}: {why}; the finished shards are kept: "
                     f"{'free some space, then ' if full else ''}"
                     f"`uno-sim run --resume {out}` computes the rest")


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _atomic_write_text(path: str, text: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        _unlink_quietly(tmp)
        raise _disk_error(path, exc) from None


def parquet_metadata(manifest: dict, table: str) -> dict:
    """The Parquet key-value metadata of every part: schema version, rules, policies, seed."""
    return {"uno_sim.schema": str(SCHEMA_VERSION), "uno_sim.table": table,
            "uno_sim.version": manifest["version"],
            "uno_sim.rules": json.dumps(manifest["rules"], sort_keys=True),
            "uno_sim.policies": json.dumps(manifest["policies"]),
            "uno_sim.seed": str(manifest["seed"])}


def _atomic_write_parquet(frame, path: str, metadata: dict | None = None) -> dict:
    """Write, fsync, rename; returns what the shard marker records of the file.

    The Parquet bytes are made in memory (a shard is small) and written by Python, so a
    full disk is an OSError (ENOSPC) here, never a writer's error from halfway through a
    file; the temporary file is removed whatever happens."""
    import io

    buf = io.BytesIO()
    frame.write_parquet(buf, metadata=metadata)
    data = buf.getvalue()
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        _write_bytes(tmp, data)
        os.replace(tmp, path)
    except OSError as exc:
        _unlink_quietly(tmp)
        raise _disk_error(path, exc) from None
    return {"rows": frame.height, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _write_bytes(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _sha256_file(f) -> str:
    h = hashlib.sha256()
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
    return h.hexdigest()


def _file_ok(path: str, info: dict) -> bool:
    try:
        if os.path.getsize(path) != info["bytes"]:
            return False
        with open(path, "rb") as f:
            return _sha256_file(f) == info["sha256"]
    except (OSError, KeyError, TypeError):
        return False


def record_digest(rec: dict) -> str:
    """The SHA-256 a shard record carries of itself (every key but "sha256")."""
    body = {k: v for k, v in rec.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class ForeignRecord(RunError):
    """A shard record of another run (another manifest) in this run's folder."""


def _examine_record(out: str, i: int, manifest: dict, mid: str):
    """(shard i's record, None) when it reads and is intact, else (None, why): why is
    "missing", or what is wrong with it.  A record of another run raises ForeignRecord."""
    path = _shard_base(out, i) + ".json"
    try:  # bounded, like the manifest: a record linked to /dev/zero is damage, not a hang
        rec = json.loads(read_capped(path, MANIFEST_MAX_BYTES))
    except FileNotFoundError:
        return None, "missing"
    except (OSError, ValueError):
        return None, "unreadable (truncated, not JSON, or not a regular file)"
    if not isinstance(rec, dict) or not isinstance(rec.get("aggregates"), dict):
        return None, "not a shard record"
    if rec.get("manifest") != mid:
        raise ForeignRecord(f"shard {i} in {out!r} belongs to another run (manifest "
                            f"{rec.get('manifest')} != {mid})")
    if rec.get("sha256") != record_digest(rec):
        return None, "edited or damaged (its SHA-256 differs)"
    first, n = Plan(manifest["games"], manifest["shard_size"]).shard(i)
    if (rec.get("shard"), rec.get("first_game"), rec.get("games")) != (i, first, n):
        return None, f"the record of another shard (shard {rec.get('shard')!r})"
    files = rec.get("files")
    if not isinstance(files, dict) or (not manifest["summary_only"] and "games" not in files):
        return None, "lists no row files"
    return rec, None


def _read_marker(out: str, i: int, mid: str, manifest: dict | None = None) -> dict | None:
    """Shard i's completion record, or None when it is missing, unreadable (truncated) or
    altered (its checksum differs)."""
    if manifest is None:
        manifest = _read_manifest(out)
    return _examine_record(out, i, manifest, mid)[0]


def _examine_files(out: str, i: int, rec: dict) -> str | None:
    """None when shard i's row files, in shards/ or moved into the datasets, have the size
    and checksum its record holds; else what is wrong."""
    for what, info in rec["files"].items():
        src = _shard_base(out, i) + f".{what}.parquet"
        path = src if os.path.exists(src) else part_path(out, what, i)
        if not os.path.exists(path):
            return f"its {what} rows ({os.path.relpath(path, out)}) are missing"
        if not _file_ok(path, info):
            return (f"its {what} rows ({os.path.relpath(path, out)}) differ from its record "
                    f"(truncated, altered or another run's)")
    return None


def _intact_marker(out: str, i: int, manifest: dict, files: bool = True) -> dict | None:
    """Shard i's record when it is finished and intact: its marker reads and carries its
    own checksum, and (`files`) its row files, in shards/ or already moved into the
    datasets, have the size and checksum the marker recorded; else None."""
    rec, _ = _examine_record(out, i, manifest, manifest_id(manifest))
    if rec is None or not files:
        return rec
    return rec if _examine_files(out, i, rec) is None else None


def _shard_ok(out: str, i: int, manifest: dict) -> bool:
    return _intact_marker(out, i, manifest) is not None


# The names a run writes: in DIR, in DIR/shards and in the datasets (a writer's temporary
# file is one of them followed by .tmpPID).
_TOP_FILES = ("manifest.json", "summary.json", ".lock")
_SHARD_NAME = re.compile(r"shard-(\d{6,})\.(json|games\.parquet|rounds\.parquet)(\.tmp\d+)?")
_PART_NAME = re.compile(r"part-(\d{6,})\.parquet")
_TMP = re.compile(r"(manifest\.json|summary\.json)\.tmp\d+")
# What summary.json holds besides what the shard records determine: the timing of the call
# that finished the run.
_TIMING_KEYS = {"wall_seconds", "games_per_second", "games_played", "games_already_done"}


@dataclass
class Check:
    """What `check_run` found in a run folder.

    `missing`: shards without a record (not computed yet: an unfinished run, or deleted);
    `damaged`: {shard: what is wrong} for records or row files the run wrote that are
    no longer what it wrote; `foreign`: lines naming files the run did not write (never
    read, removed or overwritten); `leftovers`: temporary files of writers that died;
    `summary`: what is wrong with summary.json, if anything; `total`: the aggregate of
    the intact shards."""

    out: str
    manifest: dict
    complete: bool
    total: dict | None = None
    missing: list = field(default_factory=list)
    damaged: dict = field(default_factory=dict)
    foreign: list = field(default_factory=list)
    leftovers: list = field(default_factory=list)
    summary: str | None = None
    files: int = 0
    no_shards: bool = False  # DIR/shards, the folder of the shard records, is gone

    @property
    def intact(self) -> bool:
        """Nothing damaged, missing, foreign or left over (complete or not)."""
        return not (self.missing or self.damaged or self.foreign or self.leftovers
                    or self.summary)

    @property
    def ok(self) -> bool:
        """A complete run, intact."""
        return self.complete and self.intact

    def problems(self) -> list[str]:
        """One line per problem, each saying what to do."""
        out, n = self.out, self.manifest["n_shards"]
        lines = [f"{f}; move it out of {out} (a run folder holds only what uno-sim wrote)"
                 for f in self.foreign]
        if self.no_shards:
            lines.append(f"shards/ is missing (the folder of the shard records): "
                         f"`uno-sim run --resume {out}` computes every shard again")
        for i, why in sorted(self.damaged.items()):
            lines.append(f"shard {i}: {why}; `uno-sim run --resume {out}` computes it again")
        if self.missing and not self.no_shards:
            head = ", ".join(str(i) for i in self.missing[:10]) + \
                (" ..." if len(self.missing) > 10 else "")
            state = "deleted from a finished run" if self.complete else "not computed yet"
            which = f"shard {head}" if len(self.missing) == 1 else f"shards {head}"
            lines.append(f"{len(self.missing)} of {n} shards have no record ({state}): "
                         f"{which}; `uno-sim run --resume {out}` computes them")
        for path in self.leftovers:
            lines.append(f"{os.path.relpath(path, out)}: a temporary file of a writer that "
                         f"died; `uno-sim run --resume {out}` removes it")
        if self.summary:
            lines.append(f"summary.json: {self.summary}; `uno-sim run --resume {out}` "
                         f"writes it again")
        if not self.complete and not (self.missing or self.damaged):
            lines.append(f"every shard is done but the run is not merged yet: "
                         f"`uno-sim merge {out}` merges it")
        return lines


def _foreign_entries(out: str, manifest: dict, check: Check) -> None:
    """Every entry of the run folder that the run did not write goes to check.foreign,
    every temporary file of a dead writer to check.leftovers."""
    n = manifest["n_shards"]
    datasets = () if manifest["summary_only"] else ("games.parquet", "rounds.parquet")

    def foreign(rel: str, why: str = "not a file of this run") -> None:
        check.foreign.append(f"{rel}: {why}")

    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        isdir = os.path.isdir(path) and not os.path.islink(path)
        if name in _TOP_FILES and not isdir or name == "shards" and isdir:
            continue
        if _TMP.fullmatch(name) and not isdir:
            check.leftovers.append(path)
        elif name in datasets and isdir:
            for part in sorted(os.listdir(path)):
                m = _PART_NAME.fullmatch(part)
                if not m or int(m.group(1)) >= n or not os.path.isfile(
                        os.path.join(path, part)):
                    foreign(f"{name}/{part}")
        else:
            foreign(name)
    shards = os.path.join(out, "shards")
    if not os.path.isdir(shards):  # deleted: every record is missing (a file there: foreign)
        check.no_shards = True
        return
    for name in sorted(os.listdir(shards)):
        m = _SHARD_NAME.fullmatch(name)
        if not m or int(m.group(1)) >= n or not os.path.isfile(os.path.join(shards, name)) \
                or manifest["summary_only"] and m.group(2) != "json":
            foreign(f"shards/{name}")
        elif m.group(3):
            check.leftovers.append(os.path.join(shards, name))


def check_run(out: str, manifest: dict, files: bool = True) -> Check:
    """Check the run folder `out` against its manifest: every shard record (its own
    SHA-256, its shard, its run), with `files` every row file (size and SHA-256 as its
    record holds), every name in the folder, and summary.json against the records.

    Reads one record at a time, so memory does not grow with the run; raises
    ForeignRecord for a record of another run."""
    mid = manifest_id(manifest)
    check = Check(out, manifest, is_complete(out))
    try:
        _foreign_entries(out, manifest, check)
    except OSError as exc:
        raise RunError(f"cannot read {out!r}: {exc.strerror}") from None
    for i in range(manifest["n_shards"]):
        rec, why = _examine_record(out, i, manifest, mid)
        if rec is not None and files:
            why = _examine_files(out, i, rec)
        if why == "missing":
            check.missing.append(i)
        elif why is not None:
            check.damaged[i] = f"its record {why}" if rec is None else why
        else:
            check.files += 1 + len(rec["files"])
            agg = rec["aggregates"]
            check.total = agg if check.total is None else merge_aggregates([check.total, agg])
    if check.complete:
        check.summary = _summary_problem(out, manifest, check.total,
                                         not check.missing and not check.damaged)
        check.files += not check.summary
    return check


def _summary_problem(out: str, manifest: dict, total: dict, whole: bool) -> str | None:
    """None when summary.json holds the summary of the records (and a timing); when
    some records are damaged (not `whole`), only that it reads."""
    try:
        doc = json.loads(read_capped(os.path.join(out, "summary.json"), MANIFEST_MAX_BYTES))
    except (OSError, ValueError):
        return "unreadable (truncated, not JSON, or not a regular file)"
    if not isinstance(doc, dict):
        return "not a summary"
    if not whole:
        return None
    want = json.loads(json.dumps(RunResult(manifest, total).summary()))
    if any(doc.get(k) != v for k, v in want.items()) or set(doc) - set(want) - _TIMING_KEYS:
        return "differs from the summary of the shard records (edited or damaged)"
    return None


def _clean_tmp(out: str) -> None:
    """Remove the temporary files of writers that died (the caller holds the run's lock):
    only names the run writes, never a file of anyone else."""
    for d, pattern in ((out, _TMP), (os.path.join(out, "shards"), _SHARD_NAME)):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for name in names:
            m = pattern.fullmatch(name)
            if m and name.rpartition(".tmp")[2].isdigit() and ".tmp" in name:
                _unlink_quietly(os.path.join(d, name))


def remove_shard(out: str, i: int) -> None:
    """Remove shard i's record and row files (the run's own names), so it is computed
    again."""
    _unlink_quietly(_shard_base(out, i) + ".json")
    for what in ("games", "rounds"):
        _unlink_quietly(_shard_base(out, i) + f".{what}.parquet")
        _unlink_quietly(part_path(out, what, i))


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


def _not_yet_a_run(out: str) -> str | None:
    """None when the folder `out`, which has no manifest, holds nothing but what a run
    leaves before its manifest (its lock, an empty shards/, the manifest's temporary
    file); else the first entry it holds that no run wrote."""
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        if name == ".lock" and os.path.isfile(path) or _TMP.fullmatch(name):
            continue
        if name == "shards" and os.path.isdir(path) and not os.listdir(path):
            continue
        return name
    return None


def lock_out(out: str, shared: bool = False, by: str = "run"):
    """Hold `out` for this process: an exclusive lock for a run, a shared one for an array
    task (array tasks of one run share the directory).  Returns the open lock file, to keep
    open as long as the run writes there; the lock goes with the process however it ends.
    `by`: what holds the folder (a run; a study, a report, a league lock theirs too),
    written in the lock file so that a command refused can say what holds it."""
    import fcntl

    try:
        fd = os.open(os.path.join(out, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise RunError(f"cannot write --out {out!r}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = os.read(fd, 64).decode("ascii", "replace").split()[:1]
        except OSError:
            holder = []
        os.close(fd)
        what = holder[0] if holder and holder[0] in LOCK_HOLDERS else "run"
        raise RunError(f"--out {out!r} is in use by another uno-sim {what}; wait for it to "
                       "end or use another directory") from None
    if not shared:
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{by} {os.getpid()}\n".encode())
        except OSError:
            pass  # the lock holds all the same
    return fd


LOCK_HOLDERS = ("run", "study", "report", "league")


def _claim_manifest(out: str, manifest: dict) -> bool:
    """Write manifest.json unless it exists (atomically: a hard link never overwrites).
    True when this call wrote it."""
    path = os.path.join(out, "manifest.json")
    tmp = f"{path}.tmp{os.getpid()}"
    with writing(path):
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(json.dumps(manifest, indent=2))
                f.flush()
                os.fsync(f.fileno())
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
        finally:
            _unlink_quietly(tmp)


def prepare_out(out: str, manifest: dict, allow_same: bool, shared: bool = False):
    """Create and lock `out` for this run, or accept it when it already holds this very run.

    Returns the lock (see `lock_out`).  A directory that is neither empty nor a
    uno-sim run is refused before anything is written into it."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise RunError(f"cannot write --out {out!r}: it is a file, not a directory")
    try:
        if os.path.isdir(out) and not os.path.exists(os.path.join(out, "manifest.json")):
            foreign = _not_yet_a_run(out)
            if foreign is not None:
                raise RunError(f"--out {out!r} is not empty and holds no uno-sim run (it has "
                               f"{foreign!r}); use a new or empty directory")
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
            raise RunError(f"cannot write {exc.filename!r}: {exc.strerror}") from None
        old = _read_manifest(out)  # another array task claimed it first
    if old != manifest:
        raise RunError(f"--out {out!r} holds another run ({_describe_difference(old, manifest)}); "
                       "use another directory")
    if not allow_same:
        raise RunError(f"--out {out!r} already holds this run; use --resume {out}")


def _shard_aggregates(out: str, manifest: dict, files: bool = True):
    """(aggregate of the intact shards in shard order, indices of the missing or damaged
    shards); see `check_run`."""
    check = check_run(out, manifest, files)
    return check.total, sorted(check.missing + list(check.damaged))


def refuse_foreign(check: Check) -> None:
    """One line when the run folder holds files the run did not write: they are never
    read, removed or overwritten, so the run cannot go on until they are moved out."""
    if check.foreign:
        more = f" (and {len(check.foreign) - 1} more)" if len(check.foreign) > 1 else ""
        raise RunError(f"{check.out!r} holds files uno-sim did not write: "
                       f"{check.foreign[0]}{more}; move them out of the run folder")


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
    """Make a complete run's shards into DIR/games.parquet, rounds.parquet and summary.json
    (the caller holds the run's lock): every shard is checked first (`check_run`), and
    the temporary files of writers that died are removed."""
    check = check_run(out, manifest)
    refuse_foreign(check)
    _clean_tmp(out)
    missing = sorted(check.missing + list(check.damaged))
    if check.no_shards:
        raise RunError(f"{out!r} has no shards/ folder (the shard records): `uno-sim run "
                       f"--resume {out}` computes every shard again")
    if missing:
        head = ", ".join(str(i) for i in missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise RunError(f"{out!r} is missing {len(missing)} of {manifest['n_shards']} shards: "
                       f"{head} (absent or damaged); `uno-sim run --resume {out}` computes them")
    if not manifest["summary_only"]:
        for what in ("games", "rounds"):
            _move_parts(out, manifest["n_shards"], what)
    res = RunResult(manifest, check.total, out=out, wall=wall, played=played)
    summary = res.summary()
    _atomic_write_text(os.path.join(out, "summary.json"), json.dumps(summary, indent=2))
    return res


def is_complete(out: str) -> bool:
    """Whether the run in `out` has finished (its summary.json is written last)."""
    return os.path.exists(os.path.join(out, "summary.json"))


def load(out: str) -> RunResult:
    """Open a finished run directory (its records checked, not its row files: see
    `check_run` and `uno-sim verify`)."""
    manifest = _read_manifest(out)
    if manifest is None:
        raise RunError(f"{out!r} holds no run (no manifest.json)")
    if not is_complete(out):
        raise RunError(f"{out!r} is not complete; use resume or merge")
    agg, missing = _shard_aggregates(out, manifest, files=False)
    if missing:
        raise RunError(f"{out!r} is damaged: shard {missing[0]}'s record is missing, "
                       f"unreadable or altered; `uno-sim verify {out}` lists the damage")
    return RunResult(manifest, agg, out=out)
