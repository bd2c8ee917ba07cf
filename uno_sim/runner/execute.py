"""Executing a run: workers, pools, Dask and Ray, and the entry points.

`simulate`, `resume` and `merge` plan a run, compute its missing shards
(`run_shard`, in this process or in workers that import it by this module's
path) and finalize it.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import time
from contextlib import contextmanager

import numpy as np

from ..api import engine_module, make_rules
from ..players.specs import UserPolicySpec, parse_policy, seat_policies
from ..rng import key_from_seed
from ..rules import Rules
from .aggregate import (RunResult, aggregate, merge_aggregates, play_aggregates,
                        record_aggregate)
from .columns import games_frame, play_columns, rounds_frame
from .errors import RunError
from .storage import (DEFAULT_SHARD, MAX_SHARDS, Check, Plan, _atomic_write_parquet,
                      _atomic_write_text, _clean_tmp, _read_manifest, _shard_base, _shard_ok,
                      check_run, check_weights, finalize, lock_out, make_manifest,
                      manifest_id,
                      parquet_metadata, prepare_out, record_digest, refuse_foreign,
                      remove_shard)

def run_shard(manifest: dict, i: int, out: str | None, keep_cols: bool = False,
              on_batch=None, cols: dict | None = None, agg: dict | None = None):
    """Compute shard i (or take its `cols` or, summary only, its `agg`, played elsewhere);
    write it under `out` if given.  Returns (aggregates, columns or None).

    A summary-only run of the C engine adds its games up in C as they are played
    (`play_aggregates`: no per-game columns); the aggregates are those of the columns."""
    rules = Rules.from_dict(manifest["rules"])
    first, n = Plan(manifest["games"], manifest["shard_size"]).shard(i)
    lean = manifest["summary_only"] and not keep_cols
    if agg is None and cols is None:
        specs = [parse_policy(s) for s in manifest["policies"]]
        check_weights(manifest, rules, specs)
        if lean and manifest["engine"] == "c":
            agg = play_aggregates(rules, specs, manifest["seed"], first, n, on_batch)
        else:
            cols = play_columns(rules, specs, manifest["seed"], first, n, manifest["engine"],
                                on_batch)
    if agg is None:
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
        record["sha256"] = record_digest(record)
        _atomic_write_text(base + ".json", json.dumps(record))
    return agg, (cols if keep_cols else None)


def _execute(manifest, shards, out, n_jobs, backend, scheduler, keep_cols, progress):
    """Run shards, yielding (shard, aggregates, columns) as they finish."""
    plan = Plan(manifest["games"], manifest["shard_size"])
    if n_jobs == 1 and backend == "local":  # the bar moves per batch of games
        for i in shards:
            agg, cols = run_shard(manifest, i, out, keep_cols,
                                  progress.update if not progress.disable else None)
            yield i, agg, cols
        return
    if backend == "gpu":
        yield from _gpu_shards(manifest, shards, out, keep_cols, progress)
        return
    if backend == "dask":
        client, own = dask_client(scheduler)
        try:
            for i, agg, cols in _dask_shards(client, manifest, shards, out, n_jobs, keep_cols):
                progress.update(plan.shard(i)[1])
                yield i, agg, cols
        finally:
            if own:
                client.close()
        return
    if backend == "ray":
        import joblib

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
        raise RunError(f"unknown backend {backend!r}: expected local, dask, ray or gpu")
    kind = _local_pool_kind(preload=out is not None and not manifest["summary_only"])
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


def gpu_blocks(plan: Plan, shards, most: int):
    """Runs of consecutive shards of at most `most` games in all (one GPU launch each)."""
    block, games = [], 0
    for i in shards:
        n = plan.shard(i)[1]
        if block and (i != block[-1] + 1 or games + n > most):
            yield block
            block, games = [], 0
        block.append(i)
        games += n
    if block:
        yield block


def _gpu_shards(manifest, shards, out, keep_cols, progress):
    """--backend gpu: blocks of consecutive shards, each played in one launch or a few
    (uno_sim.gpu).  Summary only, only aggregate records come back (one per shard with
    `out`, whose shard records they become; else one per block, the block's later shards
    then yielding None); otherwise the block's columns, cut into its shards, written and
    aggregated as run_shard does (the next block already runs on the GPU meanwhile)."""
    from .. import gpu

    rules = Rules.from_dict(manifest["rules"])
    specs = [parse_policy(s) for s in manifest["policies"]]
    plan = Plan(manifest["games"], manifest["shard_size"])
    seed = manifest["seed"]
    if manifest["summary_only"] and not keep_cols:
        per_shard = out is not None
        most = (plan.shard_size * max(1, min(gpu.AGG_SHARDS, gpu.AGG_BATCH // plan.shard_size))
                if per_shard else gpu.AGG_BATCH)
        for block in gpu_blocks(plan, shards, max(most, plan.shard_size)):
            first = plan.shard(block[0])[0]
            total = sum(plan.shard(i)[1] for i in block)
            records = gpu.play_aggregates(rules, specs, seed, first, total,
                                          plan.shard_size if per_shard else None)
            if not per_shard:
                agg = record_aggregate(records[0], rules.players, False)
                if agg is None:  # past the record's histograms: the CPU's exact path
                    agg = play_aggregates(rules, specs, seed, first, total)
                progress.update(total)
                yield block[0], agg, None
                for i in block[1:]:
                    yield i, None, None
                continue
            for j, i in enumerate(block):
                lo, n = plan.shard(i)
                agg = record_aggregate(records[j], rules.players, False)
                agg, _ = run_shard(manifest, i, out, cols=None, agg=agg)
                progress.update(n)
                yield i, agg, None
        return
    blocks = list(gpu_blocks(plan, shards, max(gpu.BATCH, plan.shard_size)))
    ranges = [(plan.shard(b[0])[0], sum(plan.shard(i)[1] for i in b)) for b in blocks]
    for block, (first, _), cols in zip(blocks, ranges, gpu.iter_games(rules, specs, seed,
                                                                      ranges)):
        for i in block:
            lo, n = plan.shard(i)
            part = _cut(cols, lo - first, n, lo)
            agg, kept = run_shard(manifest, i, out, keep_cols, cols=part)
            progress.update(n)
            yield i, agg, kept


def _cut(cols: dict, at: int, n: int, first_game: int) -> dict:
    """Games [at, at + n) of a block's columns, with their round rows (views, found by
    bisection of round_game: the rows are in game order)."""
    rg = cols["round_game"]
    lo, hi = np.searchsorted(rg, [first_game, first_game + n])
    return {k: (v[lo:hi] if k.startswith("round_") else v[at:at + n]) for k, v in cols.items()}


def check_backend(backend: str, rules, specs, engine: str) -> None:
    """Fail fast, in one line, on what --backend gpu cannot do (before anything is written)."""
    if backend == "gpu":
        from .. import gpu

        gpu.check_config(rules, specs, engine)
        gpu.require()


MAX_WORKER_DEATHS = 3  # worker processes lost (killed, out of memory) before a run gives up

# n_jobs=None: a local run of fewer games than this plays in this process.  About a second
# of greedy games on one core: below it a pool's start (where workers are fresh
# interpreters, about a second each) costs about what it saves.
AUTO_GAMES = 50_000


def auto_jobs(games: int, shards: int) -> int:
    """The workers of a local run given no `n_jobs` (`uno-sim run` without --jobs), to play
    `games` games in `shards` shards: one per core, never more than the shards; one (this
    process) for fewer than AUTO_GAMES games.  A shard's games are the same wherever they
    are played, so this changes how fast a run goes, never what it gives."""
    if games < AUTO_GAMES:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, shards))


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
        # the workers, forked after this, add their finished batches to a shared counter
        _FORK_GAMES = None if progress.disable else \
            multiprocessing.get_context("fork").Value("q", 0)
    ex = _start_pool(kind, n)
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
        _end_pool(ex, kind, ok)


def _start_pool(kind: str, n: int):
    """A local pool of n workers, "fork" or "loky" (`_local_pool_kind`), whose workers
    leave Ctrl-C to this process (`_worker_init`)."""
    if kind == "fork":
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_worker_init)
    # loky: fresh interpreters, an executor of this pool's own: loky's process-wide
    # reusable one would be taken over by joblib.Parallel, which cannot reuse a bare one
    from joblib.externals.loky import ProcessPoolExecutor as LokyExecutor

    _quiet_loky_tracker()
    return LokyExecutor(n, initializer=_worker_init)


def _end_pool(ex, kind: str, ok: bool) -> None:
    """Shut the pool down: when the caller was interrupted or the pool broke (not `ok`),
    end the workers now, not after their tasks."""
    if ok:
        ex.shutdown(wait=True)
    elif kind == "fork":
        procs = [p for p in getattr(ex, "_processes", {}).values() if p.is_alive()]
        for proc in procs:
            proc.terminate()
        for proc in procs:  # gone before the caller removes what they half wrote
            proc.join(timeout=2)
        ex.shutdown(wait=False, cancel_futures=True)
        # let the pool's manager thread end (it closes its wake-up pipe as it goes): Python
        # 3.11's exit hook wakes that thread without the pool's lock, and a pipe closed in
        # between is a "Bad file descriptor" traceback printed after the stop's one line
        manager = getattr(ex, "_executor_manager_thread", None)
        if manager is not None:
            manager.join(timeout=1)
    else:
        ex.shutdown(wait=False, kill_workers=True)


def local_map(fn, tasks: list, n_jobs: int):
    """fn(*task) for every task on a local pool of n_jobs workers (-1: all cores),
    yielding (index, result) as they finish; an interrupt or a failure ends the workers
    at once.  The pool is the runner's (`_local_pool_kind`, UNO_SIM_POOL), so a
    league's, a tournament's or a study's workers stop as a run's do."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    n = (os.cpu_count() or 1) if n_jobs == -1 else n_jobs
    n = max(1, min(n, len(tasks)))
    kind = _local_pool_kind(preload=False)
    ex = _start_pool(kind, n)
    ok = False
    try:
        futs = {ex.submit(_indexed_call, fn, i, t) for i, t in enumerate(tasks)}
        while futs:
            done, futs = wait(futs, return_when=FIRST_COMPLETED)
            for f in done:
                yield f.result()
        ok = True
    except BrokenProcessPool:
        raise RunError("a worker process died (killed, or out of memory); run it again") \
            from None
    finally:
        _end_pool(ex, kind, ok)


def _indexed_call(fn, i, task):
    return i, fn(*task)


LOKY_TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


def _quiet_loky_tracker() -> None:
    """loky's resource tracker, a process of its own started with the first pool, warns at
    exit about the queue locks of workers killed by an interrupt (locks already gone): lines
    that would follow the interrupt's one line.  Its warnings are filtered through the
    environment it starts with; nothing else is."""
    current = os.environ.get("PYTHONWARNINGS", "")
    if LOKY_TRACKER_QUIET not in current:
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [current, LOKY_TRACKER_QUIET]))


def _dask_shards(client, manifest, shards, out, n_jobs, keep_cols):
    """Shards on a Dask cluster, yielding results as they finish: a bounded window of
    futures in flight (twice the cluster's threads or --jobs, whichever is more), so a
    run of a million shards does not flood the scheduler.  A lost worker's shard is
    retried by the scheduler; a shard whose workers die more often than it allows
    (distributed.scheduler.allowed-failures) stops the run with one line."""
    from distributed import as_completed

    threads = sum(client.nthreads().values()) or 1
    window = 2 * max(threads, n_jobs if n_jobs > 0 else 1)
    todo = iter(shards)

    def submit(i):
        return client.submit(_run_shard_indexed, manifest, i, out, keep_cols, pure=False)

    running = [submit(i) for _, i in zip(range(window), todo)]
    done = as_completed(running, loop=client.loop)
    try:
        for fut in done:
            try:
                i, agg, cols = fut.result()
            except Exception as exc:
                if type(exc).__name__ != "KilledWorker":
                    raise
                where = (f"the finished shards are kept in {out}: `uno-sim run --resume "
                         f"{out}` computes the rest" if out else "run it again")
                raise RunError(f"Dask workers died running a shard, more often than the "
                               f"scheduler retries it; {where}") from None
            running.remove(fut)
            nxt = next(todo, None)
            if nxt is not None:
                fut2 = submit(nxt)
                running.append(fut2)
                done.add(fut2)
            yield i, agg, cols
    finally:
        if running:  # interrupted or failed: the shards in flight are not wanted
            client.cancel(running)


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
        raise RunError("--backend dask needs the dask extra: pip install -e '.[dask]' "
                       "in the uno-sim checkout") from None
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
        raise RunError("--backend ray needs the ray extra: pip install -e '.[ray]' "
                       "in the uno-sim checkout") from None
    register_ray()
    if not ray.is_initialized():
        try:
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise RunError(f"cannot start or reach Ray at {address or 'a local instance'!r}: "
                           f"{str(exc).splitlines()[0] if str(exc) else exc!r}") from None


def _local_pool_kind(preload: bool = True) -> str:
    """How local workers start: "fork" or "loky" (environment UNO_SIM_POOL overrides).

    Forked workers start at once with everything the parent imported; loky
    workers are fresh interpreters (about a second to import numpy, Polars and
    the engine).  Forking is safe only before Polars has started its thread
    pool, so it is used on Linux when Polars is not loaded yet, and the runner
    then loads it (without using it) so that every worker inherits it; unless
    `preload` is false: the workers write no Parquet (--summary-only, or no --out),
    and the import (about 0.3 s before any worker starts) is saved.
    """
    kind = os.environ.get("UNO_SIM_POOL", "auto")
    if kind not in ("auto", "fork", "loky"):
        raise RunError(f"invalid UNO_SIM_POOL {kind!r}: expected auto, fork or loky")
    if kind == "auto":
        kind = "fork" if sys.platform.startswith("linux") and "polars" not in sys.modules else "loky"
    if kind == "fork" and preload:
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
        """Shard i's aggregates; None for a shard folded into an earlier one's (a GPU block)."""
        self.pending[i] = agg
        while self.at < len(self.order) and self.order[self.at] in self.pending:
            a = self.pending.pop(self.order[self.at])
            if a is not None:
                self.total = a if self.total is None else merge_aggregates([self.total, a])
            self.at += 1


def _drive(manifest, shards, out, n_jobs, backend, scheduler, progress, keep_cols):
    """Run `shards`; returns (aggregate of them all, {shard: columns} if keep_cols, wall)."""
    from ..progress import bar as progress_bar

    t0 = time.perf_counter()
    plan = Plan(manifest["games"], manifest["shard_size"])
    last = plan.n_shards - 1  # the only shard that may be short
    total = len(shards) * plan.shard_size
    if len(shards) and last in shards:
        total -= plan.shard_size - plan.shard(last)[1]
    if n_jobs is None:  # the machine's cores for a local run of many games (auto_jobs)
        n_jobs = auto_jobs(total, len(shards)) if backend == "local" else 1
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
             policies="greedy", rules=None, seed: int = 0, n_jobs: int | None = 1, *,
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

    `n_jobs`: worker processes (-1: one per core); None: one per core for a local run of
    many games, one for a small run (`auto_jobs`).  The games are the same at any number.
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
    _check_jobs(n_jobs)
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
    check_backend(backend, rules, specs, engine)
    manifest = make_manifest(rules, specs, seed, int(games), shard_size, summary_only, engine)
    plan = Plan(int(games), shard_size)
    if shard is not None:
        if not (isinstance(shard, (tuple, list)) and len(shard) == 2
                and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                        for x in shard)):
            raise RunError(f"invalid shard {shard!r}: expected a pair of integers (K, M), "
                           f"e.g. (7, 100) for task 7 of 100")
        k, m = (int(x) for x in shard)
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
    except BaseException:
        if lock is not None:  # the workers are gone: what they half wrote goes too
            _clean_tmp(out)
        raise
    finally:
        if lock is not None:
            os.close(lock)
    cols = None
    if keep:
        order = range(plan.n_shards)
        cols = {k: np.concatenate([parts[i][k] for i in order]) for k in parts[0]}
    return RunResult(manifest, agg, cols=cols, wall=wall)


def _check_jobs(n_jobs) -> None:
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int)
                               or n_jobs == 0 or n_jobs < -1):
        raise RunError(f"invalid jobs {n_jobs!r}: expected a positive integer, -1 (all cores) "
                       f"or None (auto_jobs: the cores for a run of many games)")


@contextmanager
def _held_run(out: str, verb: str, shared: bool = False):
    """The manifest of the run in `out`, with `out` locked for this process meanwhile;
    RunError naming `verb` when there is no run there."""
    if not os.path.isdir(out):
        raise RunError(f"cannot {verb} {out!r}: {_why_not_a_dir(out)}")
    manifest = _read_manifest(out)
    if manifest is None:
        raise RunError(f"cannot {verb} {out!r}: no manifest.json there")
    lock = lock_out(out, shared)
    try:
        yield manifest
    finally:
        os.close(lock)


def _why_not_a_dir(path: str) -> str:
    """Why `path` is no directory, in words: missing, a file, a link to nothing, a loop."""
    try:
        os.stat(path)
    except OSError as exc:
        if os.path.islink(path):
            if exc.errno == errno.ELOOP:
                return "a loop of symbolic links"
            return "a symbolic link to nothing" if isinstance(exc, FileNotFoundError) else \
                f"a symbolic link that cannot be followed ({exc.strerror})"
        return "no such directory" if isinstance(exc, FileNotFoundError) else \
            f"cannot read it ({exc.strerror})"
    return "it is a file, not a run directory"


def resume(out: str, n_jobs: int | None = 1, backend: str = "local",
           scheduler: str | None = None, progress: bool | None = None) -> RunResult:
    """Finish an interrupted run, or repair a damaged one: every shard record and row
    file is checked (`check_run`); the shards missing or damaged are computed again, then
    the run is merged.  A folder holding files the run did not write is refused.
    `n_jobs` as `simulate`'s."""
    _check_jobs(n_jobs)
    with _held_run(out, "resume") as manifest:
        check = check_run(out, manifest)
        refuse_foreign(check)
        if check.ok:
            res = RunResult(manifest, check.total, out=out)
            res.repairs = []
            return res
        rules, specs = Rules.from_dict(manifest["rules"]), [parse_policy(s) for s in
                                                            manifest["policies"]]
        check_backend(backend, rules, specs, manifest["engine"])
        check_weights(manifest, rules, specs)
        repairs = _repairs(check)
        _clean_tmp(out)
        os.makedirs(os.path.join(out, "shards"), exist_ok=True)
        todo = sorted(check.missing + list(check.damaged))
        if todo and check.complete:  # no longer complete until the damage is repaired
            os.unlink(os.path.join(out, "summary.json"))
        for i in check.damaged:
            remove_shard(out, i)
        try:
            _, _, wall = _drive(manifest, todo, out, n_jobs, backend, scheduler, progress,
                                False)
        except BaseException:
            _clean_tmp(out)  # the workers are gone: what they half wrote goes too
            raise
        plan = Plan(manifest["games"], manifest["shard_size"])
        last = plan.n_shards - 1
        played = len(todo) * plan.shard_size
        if todo and last in todo:
            played -= plan.shard_size - plan.shard(last)[1]
        res = finalize(out, manifest, wall, played=played)
        res.repairs = repairs
        return res


def _repairs(check: Check) -> list[str]:
    """What `resume` does to the folder `check` describes, one phrase each (the CLI says
    it, so that a finished run repaired is not reported as a run with nothing to do)."""
    done = []
    if check.missing:
        which = _shard_list(check.missing)
        done.append(f"computed {which} ({'deleted' if check.complete else 'not computed yet'})")
    for i, why in sorted(check.damaged.items()):
        done.append(f"computed shard {i} again ({why})")
    if check.leftovers:
        done.append(f"removed {len(check.leftovers)} temporary file(s) of writers that died")
    if check.summary:
        done.append(f"wrote summary.json again ({check.summary})")
    elif check.complete and (check.missing or check.damaged):
        done.append("wrote summary.json again")
    return done


def _shard_list(shards: list) -> str:
    head = ", ".join(str(i) for i in shards[:10]) + (" ..." if len(shards) > 10 else "")
    return f"shard {head}" if len(shards) == 1 else f"{len(shards)} shards ({head})"


def merge(out: str) -> RunResult:
    """Check that every shard of an array-job run is present, intact and from one
    manifest; merge.  A damaged shard or a foreign file is one line (`--resume` computes
    damaged shards again)."""
    with _held_run(out, "merge") as manifest:
        check = check_run(out, manifest)
        refuse_foreign(check)
        if check.ok:
            return RunResult(manifest, check.total, out=out)
        return finalize(out, manifest)


def verify(out: str) -> Check:
    """Check the run in `out` without changing it: every record, row file, name and the
    summary (`check_run`).  Returns the Check; its `.problems()` are one line each."""
    with _held_run(out, "verify", shared=True) as manifest:
        return check_run(out, manifest)
