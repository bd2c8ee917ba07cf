"""The GPU backend: the C engine's own sources as a CUDA kernel, one game per thread.

`play_games` plays games first_game .. first_game + n_games - 1 of a run on the
GPU and returns exactly the columns of `uno_sim.engine.play_games(...,
rounds=True)`: the kernel (csrc/gpu/kernel.cu) compiles the engine's C files as
device code (uno_port.h), so every game is the CPU's, bit for bit.  The kernel
is compiled at run time by NVRTC through CuPy (the optional extra
``gpu``, ``pip install -e '.[gpu]'``: cupy-cuda12x; ``'.[gpu-cuda13]'``: cupy-cuda13x);
nothing here is needed without a GPU.  It is compiled once per configuration
(`spec_defines`: the rules, the deck and the policies as constants, csrc/uno_spec.h),
cached in the process and by CuPy on disk, so that the rules and knobs a run does not
use cost nothing.

What cannot run on a GPU is refused in one line before anything starts:
user Python policies (callbacks), traces, the reference engine, and any
policy whose C id is not one of the built-in players (random, greedy,
strategic) or the network player (`net`: its weights are copied once to device
memory, one read-only block per file that the seats playing it point at, and the
kernel is built with UNO_GPU_NET: csrc/net.c's forward pass as device code, the same
bits as the CPU's, docs/net.md).  A game that does not end (GameLimitError), or a starter that
cannot start, is reported by replaying that one game on the CPU, which raises
the engine's own error.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from .results import SEAT_COUNTERS
from .runner.errors import RunError

# The kernel's sources: csrc/ beside the package (a source checkout or an editable install).
CSRC = Path(__file__).resolve().parent.parent / "csrc"
KERNEL = CSRC / "gpu" / "kernel.cu"
# NVRTC options: no fused multiply-add (the CPU build has -ffp-contract=off), IEEE division
# and square root (NVRTC's default; never --use_fast_math): floating-point decisions round
# the same on both targets.
NVRTC_OPTIONS = ("--std=c++17", "-fmad=false", "--prec-div=true", "--prec-sqrt=true")
BUILTIN_POLICY_IDS = (0, 1, 2)  # random, greedy, strategic (uno.h UNO_POLICY_*)
NET_POLICY_ID = 6  # the network player (uno.h UNO_POLICY_NET)
N_COUNTERS = len(SEAT_COUNTERS)
# The kernel's output arrays, in the order of kernel.cu's GP_* (the pointers it reads).
OUTPUTS = ("game", "winner", "team", "rounds", "turns", "reshuffles", "stalemates", "scores",
           "team_scores", *(f"counter{c}" for c in range(N_COUNTERS)), "status", "n_rows",
           "r_game", "r_round", "r_dealer", "r_starter", "r_winner", "r_turns", "r_reshuffles",
           "r_points", "r_cards_left", "own")
ROWS_PER_GAME = 32  # round-row slots per game at first; doubled for a batch that needs more
MAX_ROWS_PER_GAME = 4096  # past this a batch is played on the CPU instead
BATCH = 1 << 20  # games per launch at most
# Aggregates only: games per launch at most (one record for them all, or one per shard and
# at most AGG_SHARDS shards: 0.8 MB of device memory each)
AGG_BATCH = 1 << 23
AGG_SHARDS = 256
THREADS = 128  # threads per block
BLOCKS = 4096  # blocks at most (each thread plays games first + tid, + stride, ...)
REPAIR_BLOCKS = 512  # with the F1 switch: 64K threads, 1 GB of re-paired tables
UNO_OK, UNO_ERR_CONFIG, UNO_ERR_FULL = 0, 1, 4
# csrc/uno_spec.h UNO_SPEC_CFG_LIST and UNO_SPEC_POL_LIST: the uno_config fields a kernel is
# specialised on, and the uno_policy fields it is specialised on when every seat has the same
SPEC_CFG = ("players", "draw_source", "dealer_draw", "drawn_card", "challenge", "scoring",
            "teams", "hand_size", "repair", "exchange", "launcher", "hit_target_presses",
            "stacking", "draw_until_playable", "forced_play", "jump_in", "seven_o",
            "flip_starter")
SPEC_POL = ("id", "color", "target", "bluff", "challenge", "forget_uno", "catch", "play_drawn",
            "voluntary_draw", "challenge_auto", "challenge_posterior", "stack", "jump_in",
            "bluff_next", "bluff_own", "challenge_offender", "challenge_own", "suspect",
            "bluff_join", "challenge_join")
# the probabilities among them (doubles): constants only at 0 or 1, where they decide a
# path; between, the knob stays a runtime value, so that a sweep of it shares one kernel
SPEC_PROBABILITIES = frozenset({"bluff", "challenge", "forget_uno", "catch", "play_drawn",
                                "voluntary_draw", "stack", "jump_in"})


def _cupy():
    """The cupy module with a usable device, or RunError in one line naming what is missing."""
    try:
        import cupy
    except ImportError:
        raise RunError("--backend gpu needs CuPy: pip install -e '.[gpu]' in the uno-sim "
                       "checkout (cupy-cuda12x, CUDA 12) or -e '.[gpu-cuda13]' (cupy-cuda13x, "
                       "CUDA 13)") from None
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver or device
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RunError(f"--backend gpu found no usable CUDA device ({why})") from None
    if n < 1:
        raise RunError("--backend gpu found no CUDA device")
    return cupy


def check_config(rules, specs, engine: str = "c", trace: bool = False) -> None:
    """RunError in one line when the GPU cannot play this configuration (CPU only)."""
    if engine != "c":
        raise RunError(f"--backend gpu plays the C engine only, not engine {engine!r}")
    if trace:
        raise RunError("--backend gpu records no traces (CPU only): drop the trace")
    for s in specs:
        if getattr(s, "name", None) == "user":
            raise RunError("--backend gpu cannot run a Python user policy (a callback: CPU only)")
    from .engine import _setup

    _, _, eng = _setup(rules, list(specs))
    pol = np.frombuffer(eng.raw()[2], dtype=np.int32)
    size = len(eng.raw()[2]) // 10 // 4
    for seat in range(rules.players):
        pid = int(pol[seat * size])
        if pid not in BUILTIN_POLICY_IDS and not (pid == NET_POLICY_ID and eng.nets[seat] is not None):
            raise RunError(f"--backend gpu cannot run seat {seat}'s policy {specs[seat]} "
                           f"(CPU only)")
    if not KERNEL.is_file():
        raise RunError(f"--backend gpu needs the engine's sources, {KERNEL} is missing "
                       f"(install from a source checkout)")


def nvrtc_options(arch: str | None = None, defines: tuple = (), csrc: Path = CSRC) -> tuple:
    """NVRTC's options for the kernel: IEEE rounding (no fused multiply-add, no fast math),
    the engine's headers, the target architecture when given and the defines (spec_defines)."""
    opts = (*NVRTC_OPTIONS, f"-I{csrc}")
    return (opts + ((f"--gpu-architecture={arch}",) if arch else ())
            + tuple(f"-D{d}" for d in defines))


def spec_defines(rules, specs) -> tuple:
    """The kernel's specialisation to (rules, specs), as NVRTC defines NAME=VALUE
    (csrc/uno_spec.h): every field of SPEC_CFG, the deck's sides and cards, and each field of
    SPEC_POL that every seat shares (a probability only at 0 or 1).  The kernel checks them
    against the structs it is given (uno_spec_matches)."""
    from .cards import deck_for
    from .engine import _config, _policy
    from .players.specs import seat_policies

    cfg = dict(_config(rules))
    deck = deck_for(rules)
    out = [f"UNO_SPEC_CFG_{f}=({int(cfg[f])})" for f in SPEC_CFG]
    out += [f"UNO_SPEC_TBL_sides=({deck.sides})", f"UNO_SPEC_TBL_cards=({deck.size})"]
    pols = [dict(_policy(s)) for s in seat_policies(list(specs), rules.players)]
    for f in SPEC_POL:
        values = {p[f] for p in pols}
        if len(values) != 1:
            continue
        v = values.pop()
        if f not in SPEC_PROBABILITIES:
            out.append(f"UNO_SPEC_POL_{f}=({int(v)})")
        elif v in (0, 1):
            out.append(f"UNO_SPEC_POL_{f}={float(v)!r}")
    return tuple(out) + net_defines(rules, specs)


def net_defines(rules, specs) -> tuple:
    """What a kernel that plays network seats needs (none without one): UNO_GPU_NET (the
    state keeps the hands a challenge revealed, which the observation shows: uno.h) and
    the observation and hidden layer sizes of the largest of its networks, so that a
    thread's buffers are sized for them and not for uno.h's maxima."""
    from .players import net

    nets = [n.net for n in (net.for_spec(s, rules) for s in specs) if n is not None]
    if not nets:
        return ()
    return ("UNO_GPU_NET=1", f"UNO_NET_MAX_OBS={max(n.obs_size for n in nets)}",
            f"UNO_NET_MAX_WIDTH={max(max(n.widths) for n in nets)}")


def device_policies(cupy, eng) -> tuple:
    """(the uno_policy[10] bytes on the device, the network blocks there): each seat's
    network (eng.nets) copied once per block to device memory and its uno_policy.net set
    to the copy's device address (the host's address otherwise)."""
    from . import _engine

    pol = bytearray(eng.raw()[2])
    size = _engine.POLICY_SIZE
    blocks, held = {}, []
    for seat, block in enumerate(eng.nets):
        if block is None:
            continue
        if id(block) not in blocks:
            held.append(cupy.asarray(block))
            blocks[id(block)] = int(held[-1].data.ptr)
        at = seat * size + _engine.POLICY_NET_OFFSET
        pol[at:at + 8] = blocks[id(block)].to_bytes(8, "little")
    return cupy.asarray(np.frombuffer(bytes(pol), dtype=np.uint8)), held


@functools.lru_cache(maxsize=64)
def _module(defines: tuple = ()):
    """kernel.cu compiled for `defines` (spec_defines), once per process; CuPy keeps the
    binary on disk too.  No engine function recurses, so the compiler sizes each thread's
    stack and the driver reserves it at launch: no stack limit to guess."""
    cupy = _cupy()
    # UNO_SIM_GPU_LINEINFO=1: source lines in the binary, for compute-sanitizer's reports
    lines = ("--generate-line-info",) if os.environ.get("UNO_SIM_GPU_LINEINFO") == "1" else ()
    return cupy.RawModule(code=KERNEL.read_text(), options=nvrtc_options(defines=defines) + lines,
                          backend="nvrtc")


def _kernel(name: str = "uno_gpu_games", defines: tuple = ()):
    """One of kernel.cu's kernels, built for `defines`: uno_gpu_games (columns and round
    rows) or uno_gpu_aggregates (aggregate records only)."""
    return _module(defines).get_function(name)


def require() -> None:
    """RunError in one line unless CuPy and a CUDA device are there."""
    _cupy()


def _repairs(cfg_b: bytes, table_b: bytes) -> bool:
    """Whether games re-pair a two-faced deck (uno_config.repair, the F1 switch): each thread
    then needs room for its own table (the only case where it does)."""
    cfg = np.frombuffer(cfg_b, dtype=np.int32)
    n_sides = int(np.frombuffer(table_b, dtype=np.int32)[2])
    return bool(cfg[11]) and n_sides == 2


class _Setup:
    """A configuration on the device: the engine's structs (uno_config, uno_table, uno_policy)
    as bytes there, the run's key, and what a launch needs to know of them."""

    def __init__(self, cupy, rules, specs, seed: int):
        from .engine import _setup
        from .rng import key_from_seed

        check_config(rules, specs)
        self.rules, self.specs, self.seed = rules, list(specs), seed
        _, _, eng = _setup(rules, self.specs)
        cfg_b, table_b, _ = eng.raw()
        pol, self.nets = device_policies(cupy, eng)  # self.nets: the blocks, held
        self.dev = [cupy.asarray(np.frombuffer(b, dtype=np.uint8))
                    for b in (cfg_b, table_b)] + [pol]
        self.key = cupy.asarray(np.asarray(key_from_seed(seed), dtype=np.uint64))
        self.table_size = len(table_b)
        self.repair = _repairs(cfg_b, table_b)
        self.defines = spec_defines(rules, self.specs)  # the kernel built for this configuration

    def blocks(self, n: int) -> int:
        # the F1 switch gives every thread a table of its own (15 KB): fewer threads then
        return min((n + THREADS - 1) // THREADS, REPAIR_BLOCKS if self.repair else BLOCKS)

    def rooms(self, cupy, blocks: int):
        """The F1 switch's per-thread tables (None without it)."""
        return cupy.empty(blocks * THREADS * self.table_size, np.uint8) if self.repair else None

    def replay_failure(self, game: int) -> None:
        """The CPU replays a game the GPU reported as failed: it raises the engine's error."""
        from .engine import play_games as cpu_play

        cpu_play(self.rules, self.specs, seed=self.seed, first_game=game, n_games=1)
        raise RunError(f"game {game} failed on the GPU but not on the CPU")


def play_games(rules, specs, seed: int, first_game: int, n_games: int) -> dict:
    """The columns of `engine.play_games(rules, specs, seed, first_game, n_games, rounds=True)`,
    computed on the GPU (see the module docstring)."""
    if n_games <= 0:
        from .engine import play_games as cpu_play

        return cpu_play(rules, specs, seed=seed, first_game=first_game, n_games=0, rounds=True)
    return next(iter_games(rules, specs, seed, [(first_game, n_games)]))


def iter_games(rules, specs, seed: int, ranges):
    """For each (first_game, n_games) of `ranges` in turn, its columns as `play_games` returns
    them.  Launches of BATCH games at most alternate between two CUDA streams: while the
    host takes one launch's rows (compacted on the device, copied through pinned memory)
    and the caller uses them, the next launch already runs."""
    from collections import deque

    cupy = _cupy()
    setup = _Setup(cupy, rules, specs, seed)
    pieces = [(r, start, min(BATCH, first + n - start))
              for r, (first, n) in enumerate(ranges) for start in range(first, first + n, BATCH)]
    last = {r: j for j, (r, _, _) in enumerate(pieces)}  # each range's last piece
    slots = [_Slot(cupy), _Slot(cupy)]
    state = {"rows": ROWS_PER_GAME}
    flight, parts = deque(), []  # launched pieces (index, launch), oldest first

    def finish_oldest():
        j, launch = flight.popleft()
        parts.append(slots[j % 2].finish(setup, launch, state))
        if last[pieces[j][0]] == j:
            done = _joined(parts)
            parts.clear()
            return done
        return None

    for j, (_, first, n) in enumerate(pieces):
        flight.append((j, slots[j % 2].launch(setup, first, n, state["rows"])))
        if len(flight) == 2:  # one launch runs ahead while the older one is taken
            done = finish_oldest()
            if done is not None:
                yield done
    while flight:
        done = finish_oldest()
        if done is not None:
            yield done


def _joined(parts: list) -> dict:
    if len(parts) == 1:
        return parts[0]
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


class _Launch:
    def __init__(self, first, n, rows, out, own):
        self.first, self.n, self.rows, self.out, self.own = first, n, rows, out, own


class _Slot:
    """One of the two streams of `iter_games`, with its pinned host buffers (kept between
    launches, grown when a launch needs more)."""

    def __init__(self, cupy):
        self.cupy = cupy
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.pinned = {}

    def launch(self, setup, first: int, n: int, rows: int, events=None) -> _Launch:
        """Launches games first .. first + n - 1 on this slot's stream; `events` (start,
        stop): CUDA events recorded around the kernel alone (time_kernel)."""
        cupy = self.cupy
        p = setup.rules.players
        blocks = setup.blocks(n)
        with self.stream:
            out = alloc(cupy, n, p, rows)
            own = setup.rooms(cupy, blocks)
            ptrs = cupy.asarray(pointers(out, lambda a: a.data.ptr,
                                         own.data.ptr if own is not None else 0))
            if events:
                events[0].record(self.stream)
            _kernel("uno_gpu_games", setup.defines)((blocks,), (THREADS,),
                      (setup.dev[0], setup.dev[1], setup.dev[2], setup.key, np.uint64(first),
                       np.int64(n), ptrs, np.int32(rows)))
            if events:
                events[1].record(self.stream)
        return _Launch(first, n, rows, out, own)

    def _host(self, name: str, a):
        """a (device) copied into this slot's pinned buffer `name`, without waiting."""
        cupy = self.cupy
        buf = self.pinned.get(name)
        if buf is None or buf.size < a.size or buf.dtype != a.dtype:
            import cupyx

            buf = self.pinned[name] = cupyx.empty_pinned(max(a.size, 1), a.dtype)
        view = buf[:a.size].reshape(a.shape)
        cupy.asnumpy(a, stream=self.stream, out=view, blocking=False)
        return view

    def finish(self, setup, launch: _Launch, state: dict) -> dict:
        """The columns of a launch (played again with more row slots while a game had more
        rounds than its slots; on the CPU past MAX_ROWS_PER_GAME)."""
        cupy = self.cupy
        while True:
            with self.stream:
                status = cupy.asnumpy(launch.out["status"], stream=self.stream)
            failed = np.flatnonzero((status != UNO_OK) & (status != UNO_ERR_FULL))
            if failed.size:  # the CPU replays the first failing game and raises its error
                setup.replay_failure(launch.first + int(failed[0]))
            if not (status == UNO_ERR_FULL).any():
                break
            rows = max(state["rows"], 2 * launch.rows)  # again, with twice the room
            if rows > MAX_ROWS_PER_GAME:
                from .engine import play_games as cpu_play

                return cpu_play(setup.rules, setup.specs, seed=setup.seed,
                                first_game=launch.first, n_games=launch.n, rounds=True)
            state["rows"] = rows
            launch = self.launch(setup, launch.first, launch.n, rows)
        out = launch.out
        with self.stream:
            # each game's rows sit in its own slots: keep the first n_rows of each, in game
            # order, gathered on the device so that only the rows played cross the bus
            used = cupy.flatnonzero((cupy.arange(launch.rows, dtype=np.int32)[None, :]
                                     < out["n_rows"][:, None]).ravel())
            host = {k: self._host(k, v) for k, v in out.items() if not k.startswith("r_")}
            host.update({k: self._host(k, v[used]) for k, v in out.items()
                         if k.startswith("r_")})
        self.stream.synchronize()
        # copied out of the pinned buffers, which the launch after next reuses
        return columns({k: np.array(v) for k, v in host.items()}, None)


def play_aggregates(rules, specs, seed: int, first_game: int, n_games: int,
                    shard_games: int | None = None) -> np.ndarray:
    """Aggregate records (csrc/uno.h uno_agg, as `engine.play_aggregate` makes them) of games
    first_game .. first_game + n_games - 1, played on the GPU: one record per `shard_games`
    consecutive games (one for them all when None), as the rows of an int64 array.  Only
    the records cross the bus, each cut after the last nonzero bin of turns_hist (its last
    field) of them all: `runner.aggregate.record_aggregate` reads such a row.

    A launch plays at most AGG_BATCH games: whole shards, at most AGG_SHARDS of them, or a
    piece of one shard larger than that (the pieces' records are added up)."""
    from .engine import AGG_LAYOUT

    cupy = _cupy()
    setup = _Setup(cupy, rules, specs, seed)
    hist_at = AGG_LAYOUT["turns_hist"][0]
    shard = max(1, n_games if shard_games is None else shard_games)
    launches = []  # (first game, games, games per record, index of its first record)
    if shard <= AGG_BATCH:
        per = shard * max(1, min(AGG_SHARDS, AGG_BATCH // shard))
        launches = [(first_game + k, min(per, n_games - k), shard, k // shard)
                    for k in range(0, n_games, per)]
    else:
        for k in range(0, n_games, shard):
            size = min(shard, n_games - k)
            launches += [(first_game + k + j, min(AGG_BATCH, size - j),
                          min(AGG_BATCH, size - j), k // shard) for j in range(0, size, AGG_BATCH)]
    out = {}  # record index -> its words so far
    for start, n, per_record, at in launches:
        records, failed = _launch_aggregates(cupy, setup, start, n, per_record)
        bad = int(failed.get()[0])
        if bad < n:
            setup.replay_failure(start + bad)
        nz = cupy.flatnonzero(records[:, hist_at:].any(axis=0))
        m = int(nz[-1]) + 1 if nz.size else 0
        for j, words in enumerate(cupy.asnumpy(records[:, :hist_at + m])):
            old = out.get(at + j)
            if old is not None and len(old) < len(words):
                old, words = words, old
            if old is not None:
                old[:len(words)] += words
                words = old
            out[at + j] = words
    width = max((len(w) for w in out.values()), default=hist_at)
    table = np.zeros((len(out), width), np.int64)
    for i, words in out.items():
        table[i, :len(words)] = words
    return table.sum(axis=0, keepdims=True) if shard_games is None else table


def _launch_aggregates(cupy, setup, first: int, n: int, shard: int, events=None):
    """One launch of uno_gpu_aggregates: (records, failed) on the device, one record per
    `shard` games; `events` (start, stop): CUDA events recorded around the kernel alone."""
    from .engine import AGG_WORDS

    records = cupy.zeros((-(-n // shard), AGG_WORDS), np.int64)
    failed = cupy.full(1, n, np.uint64)
    blocks = setup.blocks(n)
    own = setup.rooms(cupy, blocks)
    if events:
        events[0].record()
    _kernel("uno_gpu_aggregates", setup.defines)(
        (blocks,), (THREADS,),
        (setup.dev[0], setup.dev[1], setup.dev[2], setup.key, np.uint64(first), np.int64(n),
         np.int64(shard), records, failed, own if own is not None else np.uint64(0)))
    if events:
        events[1].record()
    return records, failed


def time_kernel(rules, specs, seed: int, n_games: int, rows: bool = False) -> float:
    """Seconds the device spends in the kernel of one launch of n_games games (CUDA events
    around the kernel alone: no allocation, no copy, no host work): the aggregate kernel,
    or with `rows` the kernel of the columns and round rows (ROWS_PER_GAME slots; at most
    BATCH games).  A small launch compiles the kernel and warms the device first."""
    cupy = _cupy()
    setup = _Setup(cupy, rules, specs, seed)
    slot = _Slot(cupy)

    def launch(n, events=None):
        if rows:
            slot.launch(setup, 0, n, ROWS_PER_GAME, events)
        else:
            _launch_aggregates(cupy, setup, 0, n, n, events)

    launch(min(n_games, 4096))
    cupy.cuda.Device().synchronize()
    events = (cupy.cuda.Event(), cupy.cuda.Event())
    launch(n_games, events)
    events[1].synchronize()
    return cupy.cuda.get_elapsed_time(*events) / 1e3


def alloc(xp, n: int, p: int, rows: int) -> dict:
    """The kernel's output arrays (OUTPUTS less `own`) for n games of p seats, `rows` round
    slots per game; `xp`: cupy, or numpy for the kernel built for the CPU (the tests)."""
    return {
        "game": xp.empty(n, np.int64), "winner": xp.empty(n, np.int8),
        "team": xp.empty(n, np.int8), "rounds": xp.empty(n, np.int32),
        "turns": xp.empty(n, np.int32), "reshuffles": xp.empty(n, np.int32),
        "stalemates": xp.empty(n, np.int32), "scores": xp.empty((n, p), np.int32),
        "team_scores": xp.empty((n, 2), np.int32),
        **{f"counter{c}": xp.empty((n, p), np.int32) for c in range(N_COUNTERS)},
        "status": xp.empty(n, np.int32), "n_rows": xp.empty(n, np.int32),
        "r_game": xp.empty(n * rows, np.int64),
        **{f"r_{k}": xp.empty(n * rows, np.int32)
           for k in ("round", "dealer", "starter", "winner", "turns", "reshuffles")},
        "r_points": xp.empty((n * rows, p), np.int32),
        "r_cards_left": xp.empty((n * rows, p), np.int32),
    }


def pointers(out: dict, address, own: int = 0) -> np.ndarray:
    """The kernel's `out` argument: the arrays' addresses in OUTPUTS order, then `own`."""
    return np.asarray([address(out[k]) for k in OUTPUTS[:-1]] + [own], np.uint64)


def columns(host: dict, rows: int | None) -> dict:
    """The kernel's outputs (numpy) as engine.play_games(..., rounds=True)'s columns; `rows`:
    the round-row slots per game, or None when the rows are already the games' own, in
    game order (gathered on the device)."""
    cols = {k: host[k] for k in ("game", "winner", "team", "rounds", "turns", "reshuffles",
                                 "stalemates", "scores", "team_scores")}
    for c, name in enumerate(SEAT_COUNTERS):
        cols[name] = host[f"counter{c}"]
    # each game's rows sit in its own slots: keep the first n_rows of each, in game order
    used = (slice(None) if rows is None
            else (np.arange(rows)[None, :] < host["n_rows"][:, None]).ravel())
    cols["round_game"] = host["r_game"][used]
    for k in ("round", "dealer", "starter", "winner", "turns", "reshuffles"):
        cols["round_" if k == "round" else f"round_{k}"] = host[f"r_{k}"][used]
    cols["round_points"] = host["r_points"][used]
    cols["round_cards_left"] = host["r_cards_left"][used]
    return cols

def _libnvrtc():
    """libnvrtc through ctypes (the nvidia-cuda-nvrtc-cu12 wheel, or the system's), or None."""
    import ctypes
    import ctypes.util

    names = []
    try:
        import nvidia.cuda_nvrtc as pkg

        names += sorted(str(p) for d in pkg.__path__ for p in Path(d, "lib").glob("libnvrtc.so*"))
    except ImportError:
        pass
    found = ctypes.util.find_library("nvrtc")
    names += [found] if found else []
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def nvrtc_compile(arch: str = "compute_90", defines: tuple = (), syntax_only: bool = False,
                  csrc: Path = CSRC, ptx: bool = False):
    """Compile the kernel with NVRTC, no GPU needed: (ok, the compiler's log), and the PTX
    with `ptx` (ok, log, ptx).  What the run-time build does (CuPy's RawModule calls the same
    NVRTC with nvrtc_options); the tests use it to check the engine as device code on any
    machine with libnvrtc, benchmarks/gpu_resources.py to measure the kernel (`csrc`:
    another tree's sources)."""
    import ctypes

    lib = _libnvrtc()
    if lib is None:
        raise FileNotFoundError("libnvrtc not found (pip install nvidia-cuda-nvrtc-cu12)")
    prog = ctypes.c_void_p()
    kernel = Path(csrc) / "gpu" / "kernel.cu"
    src = kernel.read_bytes()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), src, str(kernel).encode(), 0, None, None):
        return (False, "nvrtcCreateProgram failed") + (("",) if ptx else ())
    extra = ("--fdevice-syntax-only",) if syntax_only else ()
    opts = [o.encode() for o in (*nvrtc_options(arch, defines, Path(csrc)), *extra)]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    text = ""
    if ptx and rc == 0:
        lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetPTX(prog, buf)
        text = buf.value.decode()
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    out = (rc == 0, log.value.decode(errors="replace"))
    return out + (text,) if ptx else out
