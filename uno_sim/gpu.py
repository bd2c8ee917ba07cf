"""The GPU backend: the C engine's own sources as a CUDA kernel, one game per thread.

`play_games` plays games first_game .. first_game + n_games - 1 of a run on the
GPU and returns exactly the columns of `uno_sim.engine.play_games(...,
rounds=True)`: the kernel (csrc/gpu/kernel.cu) compiles the engine's C files as
device code (uno_port.h), so every game is the CPU's, bit for bit.  The kernel
is compiled at run time by NVRTC through CuPy (the optional extra
``gpu``, ``pip install -e '.[gpu]'``: cupy-cuda12x); nothing here is needed without a GPU.  It is
compiled once per configuration (`spec_defines`: the rules, the deck and the
policies as constants, csrc/uno_spec.h), cached in the process and by CuPy on
disk, so that the rules and knobs a run does not use cost nothing.

What cannot run on a GPU is refused in one line before anything starts:
user Python policies (callbacks), traces, the reference engine, and any
policy whose C id is not one of the built-in players (random, greedy,
strategic).  A game that does not end (GameLimitError), or a starter that
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
N_COUNTERS = len(SEAT_COUNTERS)
# The kernel's output arrays, in the order of kernel.cu's GP_* (the pointers it reads).
OUTPUTS = ("game", "winner", "team", "rounds", "turns", "reshuffles", "stalemates", "scores",
           "team_scores", *(f"counter{c}" for c in range(N_COUNTERS)), "status", "n_rows",
           "r_game", "r_round", "r_dealer", "r_starter", "r_winner", "r_turns", "r_reshuffles",
           "r_points", "r_cards_left", "own")
ROWS_PER_GAME = 32  # round-row slots per game at first; doubled for a batch that needs more
MAX_ROWS_PER_GAME = 4096  # past this a batch is played on the CPU instead
BATCH = 1 << 20  # games per launch at most
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
                       "checkout (cupy-cuda12x, with a CUDA 12 driver)") from None
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
        if pid not in BUILTIN_POLICY_IDS:
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
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _kernel(defines: tuple = ()):
    """The kernel compiled for `defines` (spec_defines), once per process; CuPy keeps the
    binary on disk too.  No engine function recurses, so the compiler sizes each thread's
    stack and the driver reserves it at launch: no stack limit to guess."""
    cupy = _cupy()
    # UNO_SIM_GPU_LINEINFO=1: source lines in the binary, for compute-sanitizer's reports
    lines = ("--generate-line-info",) if os.environ.get("UNO_SIM_GPU_LINEINFO") == "1" else ()
    mod = cupy.RawModule(code=KERNEL.read_text(), options=nvrtc_options(defines=defines) + lines,
                         backend="nvrtc")
    return mod.get_function("uno_gpu_games")


def require() -> None:
    """RunError in one line unless CuPy and a CUDA device are there."""
    _cupy()


def play_games(rules, specs, seed: int, first_game: int, n_games: int) -> dict:
    """The columns of `engine.play_games(rules, specs, seed, first_game, n_games, rounds=True)`,
    computed on the GPU (see the module docstring)."""
    from .engine import _setup
    from .rng import key_from_seed

    check_config(rules, specs)
    cupy = _cupy()
    _, _, eng = _setup(rules, list(specs))
    cfg_b, table_b, pol_b = eng.raw()
    dev = [cupy.asarray(np.frombuffer(b, dtype=np.uint8)) for b in (cfg_b, table_b, pol_b)]
    key = cupy.asarray(np.asarray(key_from_seed(seed), dtype=np.uint64))
    parts, start, end = [], first_game, first_game + n_games
    while start < end:
        k = min(BATCH, end - start)
        parts.append(_batch(cupy, eng, rules, specs, seed, dev, key, start, k, len(table_b),
                            _repairs(cfg_b, table_b)))
        start += k
    if not parts:
        from .engine import play_games as cpu_play

        return cpu_play(rules, specs, seed=seed, first_game=first_game, n_games=0, rounds=True)
    if len(parts) == 1:
        return parts[0]
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def _repairs(cfg_b: bytes, table_b: bytes) -> bool:
    """Whether games re-pair a two-faced deck (uno_config.repair, the F1 switch): each thread
    then needs room for its own table (the only case where it does)."""
    cfg = np.frombuffer(cfg_b, dtype=np.int32)
    n_sides = int(np.frombuffer(table_b, dtype=np.int32)[2])
    return bool(cfg[11]) and n_sides == 2


def _batch(cupy, eng, rules, specs, seed, dev, key, first, n, table_size, repair) -> dict:
    p = rules.players
    rows = ROWS_PER_GAME
    # the F1 switch gives every thread a table of its own (15 KB): fewer threads then
    blocks = min((n + THREADS - 1) // THREADS, REPAIR_BLOCKS if repair else BLOCKS)
    fn = _kernel(spec_defines(rules, specs))
    while True:
        out = alloc(cupy, n, p, rows)
        own = cupy.empty(blocks * THREADS * table_size, np.uint8) if repair else None
        ptrs = cupy.asarray(pointers(out, lambda a: a.data.ptr,
                                     own.data.ptr if own is not None else 0))
        fn((blocks,), (THREADS,), (dev[0], dev[1], dev[2], key, np.uint64(first), np.int64(n),
                                   ptrs, np.int32(rows)))
        status = cupy.asnumpy(out["status"])
        failed = np.flatnonzero((status != UNO_OK) & (status != UNO_ERR_FULL))
        if failed.size:  # the CPU replays the first failing game and raises its error
            from .engine import play_games as cpu_play

            g = first + int(failed[0])
            cpu_play(rules, specs, seed=seed, first_game=g, n_games=1)
            raise RunError(f"game {g} failed on the GPU (status {int(status[failed[0]])}) "
                           f"but not on the CPU")
        if (status == UNO_ERR_FULL).any():  # a game had more rounds than its slots
            if rows * 2 > MAX_ROWS_PER_GAME:
                from .engine import play_games as cpu_play

                return cpu_play(rules, specs, seed=seed, first_game=first, n_games=n, rounds=True)
            rows *= 2  # again, with twice the room
            continue
        break
    return columns({k: cupy.asnumpy(v) for k, v in out.items()}, rows)


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


def columns(host: dict, rows: int) -> dict:
    """The kernel's outputs (numpy) as engine.play_games(..., rounds=True)'s columns."""
    cols = {k: host[k] for k in ("game", "winner", "team", "rounds", "turns", "reshuffles",
                                 "stalemates", "scores", "team_scores")}
    for c, name in enumerate(SEAT_COUNTERS):
        cols[name] = host[f"counter{c}"]
    # each game's rows sit in its own slots: keep the first n_rows of each, in game order
    used = (np.arange(rows)[None, :] < host["n_rows"][:, None]).ravel()
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
