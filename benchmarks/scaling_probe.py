"""Why the engine keeps less of its one-copy rate at many copies than a bare loop does.

    python benchmarks/scaling_probe.py              # a few minutes at most on 16 CPUs
    python benchmarks/scaling_probe.py --seconds 2  # shorter runs

No profiler needed.  On this machine it prints:

  topology   logical CPUs, physical cores, threads per core (SMT siblings), the caches and
             which CPUs share them (/sys/devices/system/cpu)
  state      the sizes of what a game works on: uno_game (the CPU build keeps a 15 KB
             re-paired table in it), uno_table, the configuration and policies
  placements for three programs, copies started together and pinned with taskset:
               one     1 copy on one CPU
               cores   one copy on each physical core (its first thread)
               pair    2 copies on the two threads of one core (where there is SMT)
               all     one copy on each logical CPU
               free    as many copies as logical CPUs, not pinned (what bench_scaling does)
             the summed rate, and each copy's rate against `one`
  programs   engine: benchmarks/c/bench_main.c (classic 4-player greedy games, the
             extension's flags); alu: a loop of integer arithmetic and branches on a few
             registers (no memory: what turbo and SMT alone do); touch: the same loop reading
             and writing a 20 KB buffer at random (a game's working set, nothing else)

How to read it: cores / (P x one) below 1 for all three programs is frequency (turbo
falling as cores wake) or the host; for the engine alone, shared caches and memory.
pair / one is what SMT gives one core; all / cores the same with every core busy.  If
the engine's SMT gain is well below alu's and near touch's, the two threads of a core
compete for its L1 and L2 with their 20 KB states and tables: the engine's 16-copy
figure on 8 cores x 2 threads is then 8 cores times that gain, not 16 cores.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scaling import build_bare, extension_flags, summed_rate  # noqa: E402

LOOP_C = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
/* loop [bytes [seconds]]: xorshift steps with data-dependent branches; with bytes > 0 each
   step also reads and writes a random word of a buffer of that size.  Prints steps/s. */
int main(int argc, char **argv)
{
    long bytes = argc > 1 ? atol(argv[1]) : 0;
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    long words = bytes / 8;
    uint64_t *buf = words ? calloc((size_t)words, 8) : NULL;
    uint64_t x = 88172645463325252ULL, acc = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long steps = 0;
    for (;;) {
        for (int i = 0; i < 1 << 20; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            if (x & 1) acc += x >> 3; else acc ^= x << 1;
            if ((x >> 9) % 3 == 0) acc = acc * 5 + 1;
            if (words) { uint64_t *w = buf + (x >> 20) % (uint64_t)words; *w += acc; acc ^= *w; }
        }
        steps += 1 << 20;
        clock_gettime(CLOCK_MONOTONIC, &t);
        double dt = (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
        if (dt >= seconds) {
            printf("%.0f steps/s %llu\n", steps / dt, (unsigned long long)(acc & 1));
            return 0;
        }
    }
}
"""

SIZES_C = r"""
#include <stdio.h>
#include "uno.h"
int main(void)
{
    printf("uno_game %zu\nuno_table %zu\nuno_config %zu\nuno_policy x 10 %zu\nuno_agg %zu\n",
           sizeof(uno_game), sizeof(uno_table), sizeof(uno_config), 10 * sizeof(uno_policy),
           sizeof(uno_agg));
    return 0;
}
"""


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def topology() -> tuple[list[int], list[list[int]]]:
    """(the first thread of each physical core, the sibling groups), from sysfs."""
    cpus = sorted(int(m.group(1)) for d in os.listdir("/sys/devices/system/cpu")
                  if (m := re.fullmatch(r"cpu(\d+)", d)))
    groups = {}
    for c in cpus:
        sib = _read(f"/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list") or str(c)
        groups.setdefault(sib, []).append(c)
    siblings = sorted(groups.values())
    return [g[0] for g in siblings], siblings


def caches() -> list[str]:
    out = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    for d in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        if d.startswith("index"):
            p = f"{base}/{d}"
            out.append(f"L{_read(p + '/level')} {_read(p + '/type').lower()}: "
                       f"{_read(p + '/size')}, shared by CPUs {_read(p + '/shared_cpu_list')}")
    return out


def mhz() -> float:
    vals = [float(m.group(1)) for m in re.finditer(r"cpu MHz\s*:\s*([\d.]+)",
                                                   _read("/proc/cpuinfo"))]
    return sum(vals) / len(vals) if vals else float("nan")


def run(cmd: list[str], cpus: list[int] | None, copies: int) -> tuple[float, float]:
    """(summed rate of `copies` copies of cmd, each pinned to cpus[i] if given; mean MHz
    sampled while they run)."""
    procs = []
    for i in range(copies):
        pre = ["taskset", "-c", str(cpus[i])] if cpus else []
        procs.append(subprocess.Popen(pre + cmd, stdout=subprocess.PIPE, text=True))
    time.sleep(0.5)
    freq = mhz()
    return summed_rate(procs), freq


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="length of each run")
    args = ap.parse_args()
    firsts, siblings = topology()
    n_cpu = sum(len(g) for g in siblings)
    smt = max(len(g) for g in siblings)
    print(f"topology: {n_cpu} logical CPUs, {len(firsts)} physical cores, {smt} thread(s) per "
          f"core; siblings {' '.join(','.join(map(str, g)) for g in siblings)}")
    for line in caches():
        print(f"  {line}")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "sizes.c")
        src.write_text(SIZES_C)
        subprocess.run(["gcc", "-I", str(ROOT / "csrc"), str(src), "-o", f"{tmp}/sizes"],
                       check=True)
        print("state (bytes): " + "; ".join(
            subprocess.run([f"{tmp}/sizes"], capture_output=True, text=True,
                           check=True).stdout.strip().splitlines()))
        Path(tmp, "loop.c").write_text(LOOP_C)
        subprocess.run(["gcc", *extension_flags(), f"{tmp}/loop.c", "-o", f"{tmp}/loop"],
                       check=True)
        engine = build_bare(tmp)
        # engine: calibrate its games for about --seconds per timed call
        rate, _ = run([engine, "4", "2000", "1"], None, 1)
        per = max(1000, int(rate * args.seconds / 3))
        programs = {
            "engine": [engine, "4", str(per), "3"],
            "alu": [f"{tmp}/loop", "0", str(args.seconds)],
            "touch": [f"{tmp}/loop", "20480", str(args.seconds)],
        }
        pair = siblings[0][:2] if smt > 1 else None
        placements = [("one", [firsts[0]], 1), ("cores", firsts, len(firsts))]
        if pair:
            placements.append(("pair", pair, 2))
        placements += [("all", [c for g in siblings for c in g], n_cpu), ("free", None, n_cpu)]
        print(f"\n{'program':<8} {'placement':<9} {'copies':>6} {'summed rate':>14} "
              f"{'per copy / one':>14} {'MHz':>7}")
        for name, cmd in programs.items():
            one = None
            for label, cpus, copies in placements:
                total, freq = run(cmd, cpus, copies)
                one = total if one is None else one
                print(f"{name:<8} {label:<9} {copies:>6} {total:>14,.0f} "
                      f"{total / copies / one:>14.2f} {freq:>7.0f}", flush=True)
        if not pair:
            print("\nno SMT siblings here: the pair placement is left out")


if __name__ == "__main__":
    main()
