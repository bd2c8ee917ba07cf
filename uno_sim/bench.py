"""`uno-sim bench`: complete games per second per core, per variant and player count.

Each figure is the median of several timed calls of one batch into the C engine
(one core, no runner, no I/O), after a warm-up call.  `games/s` is by the wall
clock; `games/CPU-s` divides by the CPU time the process used, which other
processes on a shared machine do not inflate (one thread: one core).  The machine and the
commit are printed with the table so that figures can be compared honestly.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time

from .options import count_text
from .rules import Rules, RulesError
from .runner.aggregate import SEARCH_STATS, search_counts_text

MAX_GAMES = 10**9  # games of one timed run (added up as they are played: no memory per game)
MAX_SLOW_GAMES = 10**6  # games of the reference engine or a Python policy (one at a time)
MAX_REPEATS = 1000


def machine() -> str:
    """The CPU model, core count and Python version, as the benchmark tables name the machine."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def commit() -> str:
    """The short git commit of the source tree, +changes when it has some (or "unknown")."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    if out.returncode != 0:
        return "unknown"
    return out.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def is_search(policy: str) -> bool:
    """Whether `policy` is a search player (pimc, ismcts): benched as seat 0 among greedy."""
    from .players.specs import parse_policy

    return getattr(parse_policy(policy), "is_search", False)


def time_games(rules: Rules, policy: str, games: int, repeats: int, seed: int = 1,
               backend: str = "cpu") -> dict:
    """Median wall time of `repeats` calls playing `games` complete games each.  A search
    player takes seat 0 only, the other seats greedy; `ms_per_search_turn` is then the
    time per turn of seat 0 (the games' turns / players: most of the time is its).
    The games are added up as they are played (an aggregate record, as a summary-only run
    does: no per-game columns).  `backend` gpu: on the GPU, the record copied back
    included; the warm-up call compiles the kernel."""
    from . import engine
    from .runner.aggregate import record_field

    search = is_search(policy)
    specs = [policy] + ["greedy"] * (rules.players - 1) if search else [policy] * rules.players

    def play(rules, specs, seed, first_game, n_games):
        return engine.play_aggregate(rules, specs, seed, first_game, n_games)
    if backend == "gpu":
        from . import gpu
        from .players.specs import parse_policy

        specs = [parse_policy(s) for s in specs]

        def play(rules, specs, seed, first_game, n_games):
            return gpu.play_aggregates(rules, specs, seed, first_game, n_games)[0]
    play(rules, specs, seed=seed, first_game=0, n_games=max(1, games // 10))
    times, cpu, rounds, turns, stats = [], [], 0, 0, []
    for r in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        record = play(rules, specs, seed=seed, first_game=r * games, n_games=games)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        rounds, turns = int(record_field(record, "rounds")), int(record_field(record, "turns"))
        if search:  # seat 0's counters, summed over the run's games
            stats.append(record_field(record, "search")[0])
    t = statistics.median(times)
    out = {"games_per_s": games / t, "games_per_cpu_s": games / statistics.median(cpu),
           "rounds_per_s": rounds / t, "ns_per_turn": 1e9 * t / turns,
           "turns_per_game": turns / games}
    if search:
        out["ms_per_search_turn"] = 1e3 * statistics.median(cpu) / (turns / rules.players)
    if stats:  # the last run's (the median's run is not known per counter)
        out["search"] = {k: int(v) for k, v in zip(SEARCH_STATS, stats[-1])}
        out["search"]["ms_per_decision"] = 1e3 * cpu[-1] / max(
            out["search"]["searched"] + out["search"]["fallback"], 1)
    return out


def search_line(s: dict) -> str:
    """The search counters of a bench cell in one line (docs/policies.md)."""
    counts = search_counts_text(*(s[k] for k in SEARCH_STATS))
    return f"  search: {counts}; {s['ms_per_decision']:.2f} ms (CPU) per decision"


def _games_per_s(play, rules: Rules, policies, games: int, seed: int) -> float:
    """Games per second of `play` (a play_game), one game at a time."""
    t0 = time.perf_counter()
    for g in range(games):
        play(rules, policies, seed=seed, game=g)
    return games / (time.perf_counter() - t0)


def time_reference(rules: Rules, policy: str, games: int, seed: int = 1) -> float:
    """Complete games per second of the Python reference engine on `games` games."""
    from .reference import play_game

    return _games_per_s(play_game, rules, policy, games, seed)


def first_action(obs):
    """The user policy timed by `--user-games`: the first legal action, in Python."""
    return obs.actions[0]


def time_user(rules: Rules, policy: str, games: int, seed: int = 1) -> float:
    """Games per second with seat 0 played by a Python policy (`first_action`)."""
    from .engine import play_game

    return _games_per_s(play_game, rules, [first_action] + [policy] * (rules.players - 1),
                        games, seed)


def run_bench(variants=("classic",), players=(2, 4, 7, 10), policy="greedy", games=20000,
              repeats=5, reference_games=0, user_games=0, out=print,
              progress: bool | None = False, backend: str = "cpu") -> list[dict]:
    """Time every (variant, players) cell; `progress`: a bar over the cells on stderr."""
    import sys

    from tqdm.auto import tqdm

    from .progress import bar

    for name, value, lo, hi in (("games", games, 1, MAX_GAMES),
                                ("repeats", repeats, 1, MAX_REPEATS),
                                ("reference-games", reference_games, 0, MAX_SLOW_GAMES),
                                ("user-games", user_games, 0, MAX_SLOW_GAMES)):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise RulesError(f"invalid {name.replace('-', '_')} {value!r}: expected an integer "
                             f"{lo}..{count_text(hi)}")
    extra = len(variants) * len(players) if reference_games or user_games else 0
    pbar = bar(len(variants) * len(players) + extra, "bench", unit="cell", enabled=progress)
    write = out

    def out(msg):  # a line of the table, with the bar cleared around it
        with tqdm.external_write_mode(file=sys.stderr):
            write(msg)

    try:
        return _run_bench(variants, players, policy, games, repeats, reference_games,
                          user_games, out, pbar, backend)
    finally:
        pbar.close()


def _run_bench(variants, players, policy, games, repeats, reference_games, user_games, out,
               pbar, backend="cpu") -> list[dict]:
    out(f"machine: {machine()}")
    out(f"commit:  {commit()}")
    who = "seat 0 (the others greedy)" if is_search(policy) else "every seat"
    where = "one core" if backend == "cpu" else "one GPU (games/CPU-s: the host's CPU time)"
    out(f"policy {policy} at {who}; complete games to 500; median of {repeats} runs of "
        f"{games} games; {where}")
    out("")
    out(f"{'variant':<12} {'players':>7} {'games/s':>10} {'games/CPU-s':>11} {'rounds/s':>11} "
        f"{'ns/turn':>8} {'turns/game':>10}")
    rows = []
    for v in variants:
        for p in players:
            rules = Rules(variant=v, players=p)
            r = time_games(rules, policy, games, repeats, backend=backend)
            row = {"variant": v, "players": p, **r}
            rows.append(row)
            pbar.update(1)
            out(f"{v:<12} {p:>7} {r['games_per_s']:>10,.0f} {r['games_per_cpu_s']:>11,.0f} "
                f"{r['rounds_per_s']:>11,.0f} {r['ns_per_turn']:>8.1f} "
                f"{r['turns_per_game']:>10.1f}" + (
                    f"  {r['ms_per_search_turn']:.2f} ms (CPU) per seat-0 turn"
                    if "ms_per_search_turn" in r else ""))
            if "search" in r:
                out(search_line(r["search"]))
    if reference_games or user_games:
        out("")
    for v in variants:
        for p in players if reference_games or user_games else ():
            c = next((r["games_per_s"] for r in rows if r["players"] == p
                      and r["variant"] == v), None)
            pbar.update(1)
            if reference_games:
                rate = time_reference(Rules(variant=v, players=p), policy, reference_games)
                ratio = f" (C engine {c / rate:,.0f}x faster)" if c else ""
                out(f"reference engine, {v}, {p} players: {rate:,.1f} games/s{ratio}")
            if user_games:
                rate = time_user(Rules(variant=v, players=p), policy, user_games)
                ratio = f" ({c / rate:,.0f}x slower than all {policy})" if c else ""
                out(f"C engine, {v}, {p} players, seat 0 a Python policy: "
                    f"{rate:,.1f} games/s{ratio}")
    return rows
