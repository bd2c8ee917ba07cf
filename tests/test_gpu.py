"""The GPU build and `--backend gpu` (docs/engine.md "One source, two targets").

Without a GPU: the engine compiles as C++ and as CUDA device code (NVRTC, nvcc
when present), plain and specialised to a configuration (csrc/uno_spec.h); the
kernel's code, built for the CPU with each configuration's specialisation, plays
the CPU's games result for result; the state is small, and every refusal ends in
one line with status 2.  With a GPU (CuPy and a CUDA device): the kernel plays
every game of a grid of configurations (tests/gpu_check.py, each in a process of
its own) bit for bit as the CPU does; skipped visibly otherwise.

On a GPU machine: ``python -m pytest -p no:xdist --slow tests/test_gpu.py`` (the whole grid).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gpu_check
from uno_sim import gpu
from uno_sim.policies import seat_policies
from uno_sim.rules import Rules
from uno_sim.runner.errors import RunError
from uno_sim.runner.execute import _cut, gpu_blocks
from uno_sim.runner.storage import Plan

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
ENGINE_C = ["table.c", "draw.c", "round.c", "extras.c", "policy.c", "legal.c", "trace.c",
            "game.c", "aggregate.c"]
CXX = shutil.which("g++") or shutil.which("c++")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "uno_sim.cli", *args], capture_output=True,
                          text=True)


def _nvrtc():
    return gpu._libnvrtc() is not None


def _nvcc():
    found = shutil.which("nvcc")
    if found:
        return found
    try:
        import nvidia.cuda_nvcc as pkg
    except ImportError:
        return None
    for d in pkg.__path__:
        if (Path(d) / "bin" / "nvcc").is_file():
            return str(Path(d) / "bin" / "nvcc")
    return None


def _gpu_ready():
    try:
        gpu.require()
    except RunError as exc:
        return str(exc)
    return None


# --- one source, two targets -------------------------------------------------------------

@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
@pytest.mark.parametrize("name", ENGINE_C)
def test_engine_sources_are_valid_cxx(name):
    """The engine's files compile as C++ (the host side of the CUDA build): no implicit
    void * casts, no C-only initialisers, no C++ keywords as names."""
    for check in ([], ["-DUNO_CHECK=1"]):
        proc = subprocess.run([CXX, "-x", "c++", "-std=c++17", "-fsyntax-only", "-Wall",
                               "-I", str(CSRC), *check, str(CSRC / name)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(not _nvrtc(), reason="no libnvrtc: pip install nvidia-cuda-nvrtc-cu12 to "
                                         "check the engine as CUDA device code")
@pytest.mark.parametrize("defines", [(), ("UNO_CHECK=1",)], ids=["plain", "checking"])
def test_kernel_is_valid_device_code(defines):
    """csrc/gpu/kernel.cu (every engine file as device code) passes NVRTC's front end for
    sm_90: every function is UNO_HD, nothing CPU-only is left in device code."""
    ok, log = gpu.nvrtc_compile("compute_90", defines, syntax_only=True)
    assert ok, log


@pytest.mark.skipif(not _nvrtc(), reason="no libnvrtc: pip install nvidia-cuda-nvrtc-cu12")
def test_specialised_kernels_are_valid_device_code():
    """The kernel specialised to each configuration of the GPU grid (gpu.spec_defines) passes
    NVRTC's front end, without a warning: the defines make valid, unambiguous code."""
    for i in range(len(gpu_check.GRID)):
        rules, specs = gpu_check.setup(i)
        ok, log = gpu.nvrtc_compile("compute_90", gpu.spec_defines(rules, specs),
                                    syntax_only=True)
        assert ok and "warning" not in log, f"{gpu_check.label(i)}\n{log}"


def test_spec_lists_are_the_headers():
    """gpu.SPEC_CFG and SPEC_POL are csrc/uno_spec.h's lists (the fields uno_spec_matches
    checks), and every field of them has its default there."""
    import re

    text = (CSRC / "uno_spec.h").read_text()
    for name, fields in (("CFG", gpu.SPEC_CFG), ("POL", gpu.SPEC_POL)):
        body = re.search(rf"#define UNO_SPEC_{name}_LIST\(X\)(.*?)\n(?:\n|#)", text,
                         re.S).group(1)
        assert tuple(re.findall(r"X\((\w+)\)", body)) == fields
        for f in fields:
            assert f"#ifndef UNO_SPEC_{name}_{f}\n#define UNO_SPEC_{name}_{f} UNO_RT\n" in text, f


# The full device builds take minutes: run them on request (UNO_SIM_DEVICE_BUILDS=1).
DEVICE_BUILDS = os.environ.get("UNO_SIM_DEVICE_BUILDS") == "1"


@pytest.mark.slow
@pytest.mark.skipif(not DEVICE_BUILDS, reason="full device build: set UNO_SIM_DEVICE_BUILDS=1")
@pytest.mark.skipif(not _nvrtc(), reason="no libnvrtc: pip install nvidia-cuda-nvrtc-cu12")
def test_kernel_compiles_to_ptx():
    """The whole build to PTX, as CuPy's RawModule does it at run time (about a minute)."""
    ok, log = gpu.nvrtc_compile("compute_90")
    assert ok, log


@pytest.mark.slow
@pytest.mark.skipif(not DEVICE_BUILDS, reason="full device build: set UNO_SIM_DEVICE_BUILDS=1")
@pytest.mark.skipif(_nvcc() is None, reason="no nvcc (the nvidia-cuda-nvcc-cu12 wheel ships "
                                            "none since 12.4): the NVRTC test covers device code")
def test_kernel_compiles_with_nvcc(tmp_path):
    """The full CUDA build, host and device (a few minutes on 2 cores)."""
    proc = subprocess.run([_nvcc(), "-c", "-x", "cu", "--gpu-architecture=sm_90", "-fmad=false",
                           "-I", str(CSRC), str(CSRC / "gpu" / "kernel.cu"),
                           "-o", str(tmp_path / "kernel.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler")
def test_gpu_game_state_is_small(tmp_path):
    """In the GPU build (UNO_GPU_BUILD) a game's state holds no table of its own (the F1
    switch's re-paired table is a per-thread room of the kernel's) and none of what only the
    CPU reads (the hands a challenge revealed); specialised to classic at 4 players (the
    per-seat arrays for 4 seats, the piles for 108 cards, no second side) it is smaller still
    (docs/engine.md state sizes)."""
    src = tmp_path / "size.c"
    src.write_text('#include <stdio.h>\n#include "uno.h"\nint main(void) { printf("%zu %zu\\n",'
                   ' sizeof(uno_game), sizeof(uno_table)); return 0; }\n')
    spec = [f"-D{d}" for d in gpu.spec_defines(Rules(), seat_policies("greedy", 4))]
    sizes = {}
    for build, flags in (("cpu", []), ("gpu", ["-DUNO_GPU_BUILD=1"]),
                         ("spec", ["-DUNO_GPU_BUILD=1", *spec])):
        exe = tmp_path / build
        subprocess.run(["gcc", "-std=c99", *flags, "-I", str(CSRC), str(src), "-o", str(exe)],
                       check=True)
        sizes[build] = tuple(map(int, subprocess.run([str(exe)], capture_output=True, text=True,
                                                     check=True).stdout.split()))
    (cpu, table), (gpu_state, _), (spec_state, _) = sizes["cpu"], sizes["gpu"], sizes["spec"]
    reveal = 10 * 256 + 2 * 10 * 4
    assert cpu - gpu_state == table + reveal and gpu_state < table // 4, sizes
    assert spec_state < gpu_state // 2, sizes


# --- the kernel's own code, built for the CPU ---------------------------------------------

def _build_host_kernel(directory: Path, defines=(), flags=("-O1",), load=True):
    """csrc/gpu/kernel.cu built as a CPU shared object (tests/c/kernel_host.cpp: one block of
    one thread) with `defines` (gpu.spec_defines: the specialised kernel), called through
    ctypes with numpy arrays."""
    import ctypes

    so = directory / "kernel.so"
    subprocess.run([CXX, "-std=c++17", *flags, "-ffp-contract=off", "-shared", "-fPIC",
                    "-I", str(CSRC), *(f"-D{d}" for d in defines),
                    str(ROOT / "tests" / "c" / "kernel_host.cpp"), "-o", str(so)], check=True)
    if not load:
        return so
    lib = ctypes.CDLL(str(so))
    lib.uno_gpu_games.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                  ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int64,
                                  ctypes.c_void_p, ctypes.c_int]
    return lib


@pytest.fixture(scope="module")
def host_kernel(tmp_path_factory):
    if CXX is None:
        pytest.skip("no C++ compiler")
    return _build_host_kernel(tmp_path_factory.mktemp("kernel"))


def _host_play(lib, rules, specs, seed, first, n, rows):
    """(outputs, status) of the CPU-built kernel for games first .. first + n - 1."""
    from uno_sim.engine import _setup
    from uno_sim.rng import key_from_seed

    _, _, eng = _setup(rules, specs)
    cfg, table, pol = eng.raw()
    out = gpu.alloc(np, n, rules.players, rows)
    own = np.zeros(len(table), np.uint8)  # one thread: one table
    ptrs = gpu.pointers(out, lambda a: a.ctypes.data,
                        own.ctypes.data if gpu._repairs(cfg, table) else 0)
    key = np.asarray(key_from_seed(seed), np.uint64)
    lib.uno_gpu_games(cfg, table, pol, key.ctypes.data, first, n, ptrs.ctypes.data, rows)
    return out, out["status"]


HOST_GRID = [("classic", 4, "greedy", {}), ("flip", 3, "strategic", {"flip_pairing": "game"}),
             ("extreme", 4, "random", {}), ("classic", 4, "greedy", {"teams": True}),
             ("house-2018", 5, "strategic(color=smart)", {})]


@pytest.mark.parametrize("variant,players,policy,switches", HOST_GRID,
                         ids=[f"{v}-{p}-{s}-{sw}" for v, p, s, sw in HOST_GRID])
def test_kernel_code_plays_the_cpu_games(host_kernel, variant, players, policy, switches):
    """The kernel's loop, row slots and columns (gpu.columns) give engine.play_games'
    columns exactly (F1 flip_pairing=game: the per-thread table)."""
    from uno_sim import engine

    rules = Rules(variant=variant, players=players, **switches)
    specs = seat_policies(policy, players)
    out, status = _host_play(host_kernel, rules, specs, 7, 300, 60, 64)
    assert (status == gpu.UNO_OK).all()
    want = engine.play_games(rules, specs, seed=7, first_game=300, n_games=60, rounds=True)
    _equal_columns(gpu.columns(out, 64), want, variant)


def _equal_columns(got: dict, want: dict, where: str):
    assert got.keys() == want.keys(), where
    for k in want:
        assert got[k].dtype == want[k].dtype, f"{where}: {k}"
        np.testing.assert_array_equal(got[k], want[k], err_msg=f"{where}: {k}")


# The GPU grid's configurations whose specialised kernel code is checked on the CPU in the
# default run (every house rule, every variant, the knobs, mixed seats); the others: slow
SPEC_QUICK = [0, 9, 11, 14, 20, 23, 28, 30, 31]  # 30, 31: network seats


@pytest.fixture(scope="module")
def spec_kernel(tmp_path_factory):
    """The kernel's code specialised to (rules, specs), built for the CPU at -O0 once per set
    of defines for this file's tests (configuration 0 is also the other-configuration test's)."""
    built = {}

    def get(rules, specs):
        defines = tuple(gpu.spec_defines(rules, specs))
        if defines not in built:
            built[defines] = _build_host_kernel(tmp_path_factory.mktemp("spec"), defines,
                                                ("-O0",))
        return built[defines]
    return get


@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
@pytest.mark.parametrize("i", [pytest.param(i, marks=() if i in SPEC_QUICK else pytest.mark.slow)
                               for i in range(len(gpu_check.GRID))],
                         ids=[gpu_check.label(i) for i in range(len(gpu_check.GRID))])
def test_specialised_kernel_code_plays_the_cpu_games(spec_kernel, i):
    """The kernel's code specialised to configuration i of the GPU grid (its gpu.spec_defines,
    csrc/uno_spec.h), built for the CPU, plays the unspecialised engine's games result for
    result: the specialisation's proof without a GPU (at -O0: the defines' meaning does not
    depend on the optimiser, and the build is quick)."""
    from uno_sim import engine

    rules, specs = gpu_check.setup(i)
    lib = spec_kernel(rules, specs)
    out, status = _host_play(lib, rules, specs, 7, 300, 80, 64)
    assert (status == gpu.UNO_OK).all(), status
    want = engine.play_games(rules, specs, seed=7, first_game=300, n_games=80, rounds=True)
    _equal_columns(gpu.columns(out, 64), want, gpu_check.label(i))


@pytest.mark.slow  # a sanitizer build
@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
def test_specialised_kernel_code_is_memory_safe(tmp_path):
    """The house rules at 4 players (the per-seat arrays sized for 4, chains of plays: the
    grid's stacks, jump-ins and Seven-O) under AddressSanitizer and UBSan, in a process of
    its own (the sanitizer's runtime preloaded)."""
    i = 10
    rules, specs = gpu_check.setup(i)
    asan = subprocess.run([CXX, "-print-file-name=libasan.so"], capture_output=True,
                          text=True).stdout.strip()
    if not asan or not Path(asan).is_file():
        pytest.skip("no libasan.so here")
    try:
        _build_host_kernel(tmp_path, gpu.spec_defines(rules, specs),
                           ("-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"),
                           load=False)
    except (subprocess.CalledProcessError, OSError):
        pytest.skip("no sanitizer build here")
    code = (f"import sys, ctypes; sys.path[:0] = [{str(ROOT / 'tests')!r}, {str(ROOT)!r}]\n"
            "import gpu_check, test_gpu as t\n"
            "from uno_sim import gpu, engine\n"
            f"lib = ctypes.CDLL({str(tmp_path / 'kernel.so')!r})\n"
            "lib.uno_gpu_games.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_void_p, "
            "ctypes.c_uint64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int]\n"
            f"rules, specs = gpu_check.setup({i})\n"
            "out, status = t._host_play(lib, rules, specs, 7, 300, 40, 64)\n"
            "assert (status == gpu.UNO_OK).all(), status\n"
            "want = engine.play_games(rules, specs, seed=7, first_game=300, n_games=40, "
            "rounds=True)\n"
            "t._equal_columns(gpu.columns(out, 64), want, 'sanitized')\nprint('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "LD_PRELOAD": asan,
                               "ASAN_OPTIONS": "detect_leaks=0"})
    if "ReserveShadowMemoryRange" in proc.stderr or "failed to allocate" in proc.stderr:
        pytest.skip("no room for the sanitizer's shadow memory here")
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
def test_kernel_built_for_another_configuration_plays_nothing(spec_kernel):
    """A kernel specialised to 4 greedy seats, given 3 seats (or a random seat): every game
    ends UNO_ERR_CONFIG, none is played with the wrong constants."""
    rules, specs = Rules(), seat_policies("greedy", 4)
    lib = spec_kernel(rules, specs)
    for other, pol in ((Rules(players=3), seat_policies("greedy", 3)),
                       (rules, seat_policies(["greedy", "random", "greedy", "greedy"], 4))):
        out, status = _host_play(lib, other, pol, 7, 0, 5, 64)
        assert (status == gpu.UNO_ERR_CONFIG).all() and (out["n_rows"] == 0).all()
    out, status = _host_play(lib, rules, specs, 7, 0, 5, 64)
    assert (status == gpu.UNO_OK).all()


def test_kernel_code_flags_games_past_their_row_slots(host_kernel):
    """A game with more rounds than its slots ends UNO_ERR_FULL (the batch is played again
    with more room); the others are complete."""
    from uno_sim import engine

    rules, specs = Rules(), seat_policies("greedy", 4)
    out, status = _host_play(host_kernel, rules, specs, 2, 0, 40, 12)
    rounds = engine.play_games(rules, specs, seed=2, first_game=0, n_games=40)["rounds"]
    assert (rounds > 12).any() and (rounds <= 12).any()
    np.testing.assert_array_equal(status, np.where(rounds > 12, gpu.UNO_ERR_FULL, gpu.UNO_OK))


# --- the host side of the backend, on the CPU-built kernel ------------------------------

class _DevArray(np.ndarray):
    """A numpy array standing for a CuPy device array (`.data.ptr`, `.get()`)."""

    @property
    def data(self):
        return type("Mem", (), {"ptr": self.ctypes.data})()

    def get(self, stream=None):
        return np.array(self)


def _dev(a):
    return np.ascontiguousarray(a).view(_DevArray)


class _Stream:
    def __init__(self, non_blocking=False):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def synchronize(self):
        pass


class _Event:
    t = 0.0

    def record(self, stream=None):
        import time

        self.t = time.perf_counter()

    def synchronize(self):
        pass


class _Device:
    def synchronize(self):
        pass


def _fake_cupy(lib):
    """A stand-in for CuPy over numpy whose kernels are kernel.cu built for the CPU (one
    block of one thread): uno_sim.gpu's own code (launches, streams, pinned copies, the
    compaction of rows, the records and their cut) runs as on a GPU."""
    import ctypes
    import types

    def asnumpy(a, stream=None, out=None, blocking=True):
        if out is None:
            return np.array(a)
        out[...] = np.asarray(a)
        return out

    cp = types.SimpleNamespace(
        asarray=lambda a, dtype=None: _dev(np.asarray(a, dtype)),
        zeros=lambda shape, dtype=float: _dev(np.zeros(shape, dtype)),
        empty=lambda shape, dtype=float: _dev(np.zeros(shape, dtype)),
        full=lambda shape, v, dtype=None: _dev(np.full(shape, v, dtype)),
        arange=lambda *a, **k: _dev(np.arange(*a, **k)),
        flatnonzero=lambda a: _dev(np.flatnonzero(a)),
        asnumpy=asnumpy,
        cuda=types.SimpleNamespace(Stream=_Stream, Event=_Event, Device=_Device,
                                   get_elapsed_time=lambda a, b: 1e3 * (b.t - a.t)))

    lib = ctypes.CDLL(lib._name)  # its own function objects: device pointers as integers
    vp, u64, i64 = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int64
    lib.uno_gpu_games.argtypes = [vp, vp, vp, vp, u64, i64, vp, ctypes.c_int]
    lib.uno_gpu_aggregates.argtypes = [vp, vp, vp, vp, u64, i64, i64, vp, vp, vp]

    def arg(v):
        return v.ctypes.data if isinstance(v, np.ndarray) else int(v)

    def kernel(name="uno_gpu_games", defines=()):  # the host build is the unspecialised one
        fn = getattr(lib, name)
        return lambda grid, block, args: fn(*(arg(v) for v in args))

    cupyx = types.SimpleNamespace(empty_pinned=lambda shape, dtype: np.empty(shape, dtype))
    return cp, kernel, cupyx


@pytest.fixture
def host_gpu(host_kernel, monkeypatch):
    """uno_sim.gpu as if a GPU were there, its kernels run on the CPU (_fake_cupy)."""
    cp, kernel, cupyx = _fake_cupy(host_kernel)
    monkeypatch.setattr(gpu, "_cupy", lambda: cp)
    monkeypatch.setattr(gpu, "_kernel", kernel)
    monkeypatch.setitem(sys.modules, "cupyx", cupyx)
    return gpu


def _padded(records, words):
    return np.pad(records, ((0, 0), (0, words - records.shape[1])))


AGG_GRID = HOST_GRID + [("classic", 4, "greedy", {"scoring": "lowest", "target": 60}),
                        ("classic", 3, "random", {"scoring": "elimination", "target": 100})]


NET_GRID = [i for i, (_, _, pol, _) in enumerate(gpu_check.GRID) if "{net}" in str(pol)]


@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
def test_gpu_path_plays_network_seats(tmp_path, monkeypatch):
    """Network seats through uno_sim.gpu's own code (the weights copied to "device" memory
    once per file, uno_policy.net set to the copy: gpu.device_policies), the kernel built
    with UNO_GPU_NET for the CPU: the columns and the aggregates of the CPU's games."""
    from uno_sim import engine

    lib = _build_host_kernel(tmp_path, ("UNO_GPU_NET=1",))
    cp, kernel, cupyx = _fake_cupy(lib)
    monkeypatch.setattr(gpu, "_cupy", lambda: cp)
    monkeypatch.setattr(gpu, "_kernel", kernel)
    monkeypatch.setitem(sys.modules, "cupyx", cupyx)
    for i in NET_GRID:
        rules, specs = gpu_check.setup(i)
        gpu.check_config(rules, specs)
        want = engine.play_games(rules, specs, seed=5, first_game=40, n_games=30, rounds=True)
        _equal_columns(gpu.play_games(rules, specs, 5, 40, 30), want, gpu_check.label(i))
        got = gpu.play_aggregates(rules, specs, 5, 40, 30)
        rec = engine.play_aggregate(rules, specs, 5, 40, 30)
        np.testing.assert_array_equal(_padded(got, engine.AGG_WORDS)[0], rec)


@pytest.mark.parametrize("variant,players,policy,switches", AGG_GRID,
                         ids=[f"{v}-{p}-{s}-{sw}" for v, p, s, sw in AGG_GRID])
def test_gpu_aggregates_equal_the_cpu_records(host_gpu, monkeypatch, variant, players, policy,
                                              switches):
    """The aggregate kernel's records (atomic adds into one record per shard, on the device)
    equal engine.play_aggregate's shard by shard, word for word, across launches (AGG_SHARDS
    made small); one record for all (no shards) is their sum."""
    from uno_sim import engine

    rules = Rules(variant=variant, players=players, **switches)
    specs = seat_policies(policy, players)
    monkeypatch.setattr(gpu, "AGG_SHARDS", 2)
    got = gpu.play_aggregates(rules, specs, 5, 70, 230, shard_games=40)
    assert got.shape[0] == 6 and got.shape[1] < engine.AGG_WORDS
    want = np.stack([engine.play_aggregate(rules, specs, seed=5, first_game=70 + 40 * k,
                                           n_games=min(40, 230 - 40 * k)) for k in range(6)])
    np.testing.assert_array_equal(_padded(got, engine.AGG_WORDS), want)
    whole = gpu.play_aggregates(rules, specs, 5, 70, 230)
    np.testing.assert_array_equal(_padded(whole, engine.AGG_WORDS)[0], want.sum(axis=0))


def test_gpu_aggregates_of_shards_larger_than_a_launch(host_gpu, monkeypatch):
    """A shard of more games than a launch plays (AGG_BATCH) is played in pieces whose
    records are added up: the shard's record all the same."""
    from uno_sim import engine

    rules, specs = Rules(players=3), seat_policies("strategic", 3)
    monkeypatch.setattr(gpu, "AGG_BATCH", 50)
    got = gpu.play_aggregates(rules, specs, 2, 5, 260, shard_games=120)
    want = np.stack([engine.play_aggregate(rules, specs, 2, 5 + k, min(120, 260 - k))
                     for k in (0, 120, 240)])
    np.testing.assert_array_equal(_padded(got, engine.AGG_WORDS), want)


def test_gpu_aggregates_report_a_failed_game(host_gpu):
    """A game that fails on the device is replayed on the CPU, which raises its error."""
    from uno_sim.engine import GameLimitError

    rules, specs = Rules(players=2, drawn_card="must"), seat_policies("greedy(voluntary_draw=1)", 2)
    with pytest.raises(GameLimitError, match="game"):
        gpu.play_aggregates(rules, specs, 1, 0, 50)


@pytest.mark.parametrize("batch,rows", [(1 << 20, 32), (37, 32), (50, 4)],
                         ids=["one-launch", "pieces", "pieces-regrown"])
def test_gpu_iter_games_equal_cpu_columns(host_gpu, monkeypatch, batch, rows):
    """iter_games' two streams, pinned copies and rows gathered on the device give
    engine.play_games' columns for each range, in order, with ranges cut into launches
    (BATCH) and launches played again with more row slots (ROWS_PER_GAME)."""
    from uno_sim import engine

    monkeypatch.setattr(gpu, "BATCH", batch)
    monkeypatch.setattr(gpu, "ROWS_PER_GAME", rows)
    rules, specs = Rules(players=4), seat_policies("greedy(bluff=0.2)", 4)
    ranges = [(10, 80), (90, 45), (300, 7)]
    got = list(gpu.iter_games(rules, specs, 3, ranges))
    assert len(got) == len(ranges)
    for (first, n), cols in zip(ranges, got):
        want = engine.play_games(rules, specs, seed=3, first_game=first, n_games=n, rounds=True)
        assert cols.keys() == want.keys()
        for k in want:
            assert cols[k].dtype == want[k].dtype, k
            np.testing.assert_array_equal(cols[k], want[k], err_msg=k)


@pytest.mark.parametrize("rows", [False, True], ids=["aggregates", "rows"])
def test_time_kernel_times_one_launch(host_gpu, rows):
    """time_kernel launches through the same code as the runs, and times the kernel alone."""
    t = gpu.time_kernel(Rules(players=4), seat_policies("greedy", 4), 1, 300, rows=rows)
    assert 0 < t < 60


@pytest.mark.parametrize("summary_only,out", [(True, False), (True, True), (False, True)],
                         ids=["summary", "summary-out", "rows-out"])
def test_gpu_run_equals_cpu_run_on_host_kernel(host_gpu, monkeypatch, tmp_path, summary_only,
                                               out):
    """simulate(backend="gpu") through the host kernel: the summary and the shard records
    (and the rows) of the CPU's run; blocks of several launches and shards."""
    from uno_sim.runner.execute import simulate

    monkeypatch.setattr(gpu, "AGG_BATCH", 500)
    monkeypatch.setattr(gpu, "AGG_SHARDS", 2)
    monkeypatch.setattr(gpu, "BATCH", 300)
    kw = dict(games=1_250, shard_size=200, seed=4, progress=False, summary_only=summary_only,
              rules=Rules(players=4, scoring="lowest", target=80))
    cpu = simulate(out=str(tmp_path / "cpu") if out else None, **kw)
    dev = simulate(backend="gpu", out=str(tmp_path / "gpu") if out else None, **kw)
    strip = ("wall_seconds", "games_per_second")
    assert ({k: v for k, v in cpu.summary().items() if k not in strip}
            == {k: v for k, v in dev.summary().items() if k not in strip})
    if out:
        for i in range(7):
            name = f"shard-{i:06d}.json"
            a = (tmp_path / "cpu" / "shards" / name).read_text()
            b = (tmp_path / "gpu" / "shards" / name).read_text()
            assert a == b
    if not summary_only:
        assert cpu.games.equals(dev.games) and cpu.rounds.equals(dev.rounds)


# --- refusals (no GPU needed) ------------------------------------------------------------

def test_no_cupy_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    with pytest.raises(RunError, match=r"needs CuPy: pip install -e '\.\[gpu\]'"):
        gpu.require()


def test_no_device_is_one_line(monkeypatch):
    class Runtime:
        @staticmethod
        def getDeviceCount():
            raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected\nmore")

    fake = type(sys)("cupy")
    fake.cuda = type(sys)("cupy.cuda")
    fake.cuda.runtime = Runtime
    monkeypatch.setitem(sys.modules, "cupy", fake)
    with pytest.raises(RunError) as info:
        gpu.require()
    assert str(info.value) == ("--backend gpu found no usable CUDA device (cudaErrorNoDevice: "
                               "no CUDA-capable device is detected)")


def test_cli_run_without_gpu_fails_fast():
    if _gpu_ready() is None:
        pytest.skip("a GPU is present: nothing is missing")
    proc = _cli("run", "--games", "10", "--backend", "gpu", "--summary-only")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "--backend gpu" in proc.stderr
    assert proc.stdout == ""


def test_cli_bench_without_gpu_fails_fast():
    if _gpu_ready() is None:
        pytest.skip("a GPU is present: nothing is missing")
    proc = _cli("bench", "--backend", "gpu", "--variant", "classic", "--players", "4")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "--backend gpu" in proc.stderr


def test_cli_backend_choices():
    proc = _cli("run", "--games", "10", "--backend", "tpu")
    assert proc.returncode == 2 and "gpu" in proc.stderr
    proc = _cli("bench", "--backend", "tpu")
    assert proc.returncode == 2 and "'cpu', 'gpu'" in proc.stderr


@pytest.mark.parametrize("engine,match", [("reference", "C engine only")])
def test_refuses_other_engines(engine, match):
    with pytest.raises(RunError, match=match):
        gpu.check_config(Rules(), seat_policies("greedy", 4), engine=engine)


def test_refuses_traces():
    with pytest.raises(RunError, match="no traces"):
        gpu.check_config(Rules(), seat_policies("greedy", 4), trace=True)


def test_refuses_user_policies():
    specs = seat_policies([lambda obs: obs.actions[0]] + ["greedy"] * 3, 4)
    with pytest.raises(RunError, match="Python user policy"):
        gpu.check_config(Rules(), specs)


@pytest.mark.parametrize("player", ["pimc", "ismcts"])
def test_refuses_search_players(player):
    """The search players (search.c) are CPU only: refused in one line naming the seat."""
    with pytest.raises(RunError, match=f"seat 1's policy {player}.*CPU only"):
        gpu.check_config(Rules(), seat_policies(["greedy", player, "greedy", "greedy"], 4))


def test_cli_refuses_search_players_in_one_line():
    proc = _cli("run", "--games", "10", "--backend", "gpu", "--policy", "pimc",
                "--summary-only")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == ("uno-sim: error: --backend gpu cannot run seat 0's policy "
                                   "pimc (CPU only)")


def test_simulate_refuses_before_writing(tmp_path):
    from uno_sim.runner.execute import simulate

    with pytest.raises(RunError, match="--backend gpu"):
        simulate(games=10, backend="gpu", out=str(tmp_path / "run"), engine="reference")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("variant", ["classic", "flip", "extreme"])
def test_builtin_policies_pass_the_check(variant):
    for spec in ("random", "greedy", "strategic(color=smart)"):
        gpu.check_config(Rules(variant=variant), seat_policies(spec, 4))


# --- how the runner cuts launches into shards --------------------------------------------

def test_gpu_blocks_are_runs_of_consecutive_shards():
    plan = Plan(95, 10)  # 10 shards, the last of 5 games
    assert list(gpu_blocks(plan, range(10), 30)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert list(gpu_blocks(plan, [0, 1, 4, 5, 9], 100)) == [[0, 1], [4, 5], [9]]


def test_cut_keeps_each_shards_rows():
    from uno_sim import engine

    cols = engine.play_games(Rules(), "greedy", seed=3, first_game=100, n_games=6, rounds=True)
    part = _cut(cols, 2, 3, 102)
    alone = engine.play_games(Rules(), "greedy", seed=3, first_game=102, n_games=3, rounds=True)
    assert part.keys() == alone.keys()
    for k in alone:
        np.testing.assert_array_equal(part[k], alone[k], err_msg=k)


# --- bit for bit on a GPU ----------------------------------------------------------------

def test_grid_is_playable_on_the_gpu_path():
    """Every configuration of the GPU comparison (tests/gpu_check.py) is valid and passes the
    GPU checks (so that the comparison, run on a GPU machine, tests what it names)."""
    for i in range(len(gpu_check.GRID)):
        gpu.check_config(*gpu_check.setup(i))


@pytest.fixture(scope="module")
def warm_kernels():
    """Every grid configuration's kernel compiled first, several at a time (CuPy keeps them
    on disk), so that each configuration's own process only loads its kernel."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawned, not forked: this process has initialised CUDA (the skip conditions)
    with ProcessPoolExecutor(max_workers=min(8, os.cpu_count() or 1),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(gpu_check.warm, range(len(gpu_check.GRID))))


@pytest.mark.skipif(_gpu_ready() is not None, reason=f"no GPU: {_gpu_ready()}")
@pytest.mark.parametrize("i", range(len(gpu_check.GRID)),
                         ids=[gpu_check.label(i) for i in range(len(gpu_check.GRID))])
def test_gpu_games_equal_cpu_games(warm_kernels, i):
    """Configuration i's games on the GPU equal the CPU's, column for column; in a process of
    its own, so that a fault in one configuration cannot fail the others."""
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "gpu_check.py"), str(i)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]


@pytest.mark.skipif(_gpu_ready() is not None, reason=f"no GPU: {_gpu_ready()}")
@pytest.mark.parametrize("variant,players,policy,switches", AGG_GRID,
                         ids=[f"{v}-{p}-{s}-{sw}" for v, p, s, sw in AGG_GRID])
def test_gpu_aggregate_records_equal_cpu_records(variant, players, policy, switches):
    """On the device (atomic adds from every thread): each shard's record is the CPU's,
    word for word."""
    from uno_sim import engine

    rules = Rules(variant=variant, players=players, **switches)
    specs = seat_policies(policy, players)
    got = gpu.play_aggregates(rules, specs, 11, 5_000, 3_000, shard_games=1_000)
    want = np.stack([engine.play_aggregate(rules, specs, 11, 5_000 + k, 1_000)
                     for k in range(0, 3_000, 1_000)])
    np.testing.assert_array_equal(_padded(got, engine.AGG_WORDS), want)


@pytest.mark.skipif(_gpu_ready() is not None, reason=f"no GPU: {_gpu_ready()}")
def test_gpu_run_equals_cpu_run(tmp_path):
    from uno_sim.runner.execute import simulate

    cpu = simulate(games=600, shard_size=250, seed=4, progress=False)
    dev = simulate(games=600, shard_size=250, seed=4, backend="gpu", progress=False)
    assert cpu.summary() == dev.summary()
    assert cpu.games.equals(dev.games) and cpu.rounds.equals(dev.rounds)
