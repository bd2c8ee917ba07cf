"""Registers, stack frame and spills of the GPU kernel, per configuration, as the compiler
reports them (no GPU needed).

Each configuration's kernel is built the way `uno-sim --backend gpu` builds it: NVRTC with
uno_sim.gpu's options and its specialisation defines (gpu.spec_defines, csrc/uno_spec.h), then
ptxas for sm_90 with -v (what the driver does with the PTX at load time).  `--nvcc` builds with
`nvcc -arch=sm_90 --resource-usage` instead (nvcc honours the engine's GCC attributes, such as
noinline, that NVRTC ignores: its figures are not the run's).  `--generic` adds the
unspecialised kernel; `--csrc DIR` measures another tree (e.g. a checkout of an older commit:
its kernel is built unspecialised when it has no csrc/uno_spec.h).

    python benchmarks/gpu_resources.py                  # the grid below, specialised
    python benchmarks/gpu_resources.py --only classic-4-greedy --generic
    python benchmarks/gpu_resources.py --csrc /tmp/old/csrc --only classic-4-greedy

Prints one markdown row per kernel: registers per thread, the stack frame (the thread's local
memory: the game's state, the engine's locals and any spills), spill stores and loads, the
functions left as calls in the PTX and whether their call graph has a cycle (a recursion:
then no stack size is safe; without one ptxas sizes the stack and the driver reserves it).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from uno_sim import gpu
from uno_sim.players.specs import seat_policies
from uno_sim.rules import Rules

# name -> (Rules keywords, policy spec): every variant at 4 players greedy, classic at 2, 4 and
# 10 players, random and strategic, the knobs that open paths, the house rules
GRID = {
    "classic-4-greedy": ({}, "greedy"),
    "classic-2-greedy": ({"players": 2}, "greedy"),
    "classic-10-greedy": ({"players": 10}, "greedy"),
    "classic-4-random": ({}, "random"),
    "classic-4-strategic": ({}, "strategic"),
    "classic-4-greedy-knobs": ({}, "greedy(bluff=0.3,challenge=0.4,forget_uno=0.2,catch=0.7)"),
    "classic-4-posterior": ({}, "strategic(challenge=posterior,challenge_prior=0.3)"),
    "flip-4-greedy": ({"variant": "flip"}, "greedy"),
    "flip-4-repair": ({"variant": "flip", "flip_pairing": "game"}, "greedy"),
    "extreme-4-greedy": ({"variant": "extreme"}, "greedy"),
    "hello-kitty-4-greedy": ({"variant": "hello-kitty"}, "greedy"),
    "house-2018-4-greedy": ({"variant": "house-2018"}, "greedy"),
    "classic-4-house-rules": ({"stacking": "both", "jump_in": True, "seven_o": True,
                               "draw_until_playable": True, "forced_play": True}, "greedy"),
    "classic-4-teams": ({"teams": True}, "greedy"),
    "classic-4-elimination": ({"scoring": "elimination"}, "greedy"),
    # a network seat (UNO_GPU_NET): weights of the shipped architecture (two hidden layers,
    # 256 and 128: NET_WIDTHS), random, written for the configuration's layout
    "classic-2-net": ({"players": 2}, ["net(weights={net})", "greedy"]),
    "classic-4-net": ({}, ["net(weights={net})", "greedy", "greedy", "greedy"]),
    "flip-4-net": ({"variant": "flip"}, "net(weights={net})"),
}
NET_WIDTHS = (256, 128)
PTXAS = re.compile(r"Used (\d+) registers")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
PTX_FUNC = re.compile(r"^(?:\.visible\s+|\.weak\s+)?\.(?:func|entry)\s+(?:\([^)]*\)\s*)?(\w+)",
                      re.M)
PTX_CALL = re.compile(r"\bcall(?:\.uni)?\s+(?:\([^)]*\),\s*)?(\w+)")


def ptx_calls(ptx: str) -> tuple[int, bool]:
    """(functions of the PTX that are called, whether its call graph has a cycle)."""
    heads = [(m.end(), m.group(1)) for m in PTX_FUNC.finditer(ptx)]
    graph = {name: set(PTX_CALL.findall(ptx[at:heads[k + 1][0] if k + 1 < len(heads) else None]))
             for k, (at, name) in enumerate(heads)}
    state = {}

    def cyclic(v) -> bool:
        state[v] = 1
        for w in graph.get(v, ()):
            if state.get(w) == 1 or (w not in state and cyclic(w)):
                return True
        state[v] = 2
        return False

    called = {w for ws in graph.values() for w in ws}
    return len(called), any(cyclic(v) for v in graph if v not in state)


def tool(name: str) -> str:
    found = shutil.which(name) or (f"/usr/local/cuda/bin/{name}"
                                   if Path(f"/usr/local/cuda/bin/{name}").is_file() else None)
    if not found:
        sys.exit(f"gpu_resources: {name} not found (a CUDA toolkit's bin on the PATH)")
    return found


def figures(report: str) -> dict:
    """The kernel's figures from ptxas -v output (the entry uno_gpu_games)."""
    at = report.find("Compiling entry function 'uno_gpu_games'")
    part = report[at:] if at >= 0 else report
    regs, frame = PTXAS.search(part), FRAME.search(part)
    if not regs or not frame:
        raise RuntimeError(f"no resource report in:\n{report[-2000:]}")
    return {"registers": int(regs.group(1)), "stack": int(frame.group(1)),
            "spill_stores": int(frame.group(2)), "spill_loads": int(frame.group(3)),
            "static": "cannot be statically determined" not in report}


def measure_nvrtc(defines: tuple, csrc: Path, arch: str) -> dict:
    ok, log, ptx = gpu.nvrtc_compile(f"compute_{arch}", defines, csrc=csrc, ptx=True)
    if not ok:
        raise RuntimeError(log)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(ptx)
        proc = subprocess.run([tool("ptxas"), f"-arch=sm_{arch}", "-v", str(src), "-o",
                               str(Path(tmp) / "kernel.cubin")], capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr)
    f = figures(proc.stderr + proc.stdout)
    f["calls"], f["cycle"] = ptx_calls(ptx)
    return f


def measure_nvcc(defines: tuple, csrc: Path, arch: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([tool("nvcc"), f"-arch=sm_{arch}", "--resource-usage", "-cubin",
                               "-x", "cu", "-std=c++17", "-fmad=false", "--prec-div=true",
                               "--prec-sqrt=true", "-I", str(csrc),
                               *(f"-D{d}" for d in defines), str(csrc / "gpu" / "kernel.cu"),
                               "-o", str(Path(tmp) / "kernel.cubin")],
                              capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr)
    return figures(proc.stderr + proc.stdout)


def net_specs(pol, rules, directory: Path):
    """`pol` with `{net}` replaced by a file of random weights (NET_WIDTHS) for `rules`."""
    from uno_sim.players import net, netfile

    if "{net}" not in str(pol):
        return pol
    path = directory / f"{rules.variant}-{rules.players}.unonet"
    kinds, _, flip, extreme = net.game_layout(rules)
    netfile.write(path, netfile.Net.new(kinds, rules.players, flip, extreme, NET_WIDTHS))
    return [p.format(net=path) for p in pol] if isinstance(pol, list) else pol.format(net=path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=sorted(GRID), help="these configurations only")
    ap.add_argument("--generic", action="store_true", help="the unspecialised kernel too")
    ap.add_argument("--csrc", type=Path, default=gpu.CSRC, help="the engine's sources (csrc/)")
    ap.add_argument("--nvcc", action="store_true", help="build with nvcc instead of NVRTC")
    ap.add_argument("--arch", default="90", help="compute capability (default 90)")
    args = ap.parse_args(argv)
    csrc = args.csrc.resolve()
    if not (csrc / "gpu" / "kernel.cu").is_file():
        ap.error(f"invalid --csrc {args.csrc}: no gpu/kernel.cu there")
    if not args.nvcc and gpu._libnvrtc() is None:
        ap.error("no libnvrtc: pip install nvidia-cuda-nvrtc-cu12, or --nvcc")
    specialised = (csrc / "uno_spec.h").is_file()
    measure = measure_nvcc if args.nvcc else measure_nvrtc
    runs = [("generic (any configuration)", ())] if args.generic else []
    nets = tempfile.TemporaryDirectory()
    for name in args.only or GRID:
        kw, pol = GRID[name]
        rules = Rules(**kw)
        pol = net_specs(pol, rules, Path(nets.name))
        defines = gpu.spec_defines(rules, seat_policies(pol, rules.players)) if specialised else ()
        runs.append((name if specialised else f"{name} (unspecialised tree)", defines))
    via = "nvcc --resource-usage" if args.nvcc else "NVRTC + ptxas -v"
    print(f"kernel resources, sm_{args.arch}, {via}, sources {csrc}\n")
    print("| configuration | registers | stack frame (B) | spill stores / loads (B) "
          "| calls in the PTX | recursion | build (s) |")
    print("|---|---|---|---|---|---|---|")
    for name, defines in runs:
        t0 = time.perf_counter()
        f = measure(defines, csrc, args.arch)
        calls = f.get("calls", "-")
        cycle = f.get("cycle", not f["static"])
        print(f"| {name} | {f['registers']} | {f['stack']:,} | {f['spill_stores']} / "
              f"{f['spill_loads']} | {calls} | {'YES' if cycle else 'no'} "
              f"| {time.perf_counter() - t0:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
