"""In-process, interleaved A/B timing of two builds of the C engine on one core.

    python benchmarks/ab.py                                  # HEAD's csrc/ against main
    python benchmarks/ab.py --base 4240f3d --variant flip --players 2 4 --policy random
    python benchmarks/ab.py --rounds 41 --policy "greedy(bluff=0.3)" --rule stacking=both
    python benchmarks/ab.py --base HEAD --flags-b="-fno-semantic-interposition"  # flags only

Both builds (csrc/ of the working tree, "B", and csrc/ of the commit --base, "A")
are compiled with the extension's flags (-O3 -ffp-contract=off) as shared objects
and loaded into this one process (dlopen, RTLD_LOCAL: each keeps its own symbols).
Every round times one batch of the same games (game numbers first .. first+games-1
of one key) through each build's uno_play_games, in turns (A then B, then B then A
in the next round, so neither always runs second), pinned to one core.  What is
reported per case: each build's median games/s over the rounds, and the speed-up
B/A as the median of the per-round ratios with its interquartile range and its
min..max, which say how noisy the machine was.  A shared machine slows both builds
of a round alike, which is why the ratio is taken per round.

The configurations come from uno_sim's own Rules and policy specs (engine._config,
engine._policy), and each build gets its deck table from its own uno_table_init, so
the two builds may differ in their table and game layouts; uno_config, uno_policy
and uno_columns must be the same in both (the harness checks the size of neither,
so keep those three structs compatible, or teach the harness the older layout); a
build older than uno_config's last field, `search` (the search's hooks, NULL here),
reads the same bytes without it.
Two older layouts of uno_policy are known: before the search players' fields
(samples .. cheat, before `decide`; Build.old_policy == "no-search") and before
ismcts's `depth` (after `c`; Build.old_policy == "no-depth"); a build whose uno.h
lacks them gets that layout.

One older layout is known: before uno_config had `draw_source` (UNO_DRAW_PILE or
UNO_DRAW_LAUNCHER), its first field was `variant`, the variant's index
(OLD_VARIANT_IDS: classic 0, flip 1, extreme 2, hello-kitty 3, house-2018 4),
with the same size and place.  A build whose uno.h still declares `variant` is
recognised and gets the variant's index in that field instead (Build.old_config).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from uno_sim.cards import deck_for  # noqa: E402
from uno_sim.engine import _config, _policy  # noqa: E402
from uno_sim.players.specs import seat_policies  # noqa: E402
from uno_sim.rules import Rules, RulesError, parse_rule_value  # noqa: E402

# the variant indices of the older uno_config layout (its `variant` field)
OLD_VARIANT_IDS = {"classic": 0, "flip": 1, "extreme": 2, "hello-kitty": 3, "house-2018": 4}

FLAGS = ["-O3", "-ffp-contract=off", "-shared", "-fPIC"]


def _has_popcnt() -> bool:
    """Whether setup.py's cpu_flags adds -mpopcnt to the extension on this machine."""
    if os.environ.get("UNO_SIM_PORTABLE", "") not in ("", "0") or platform.machine().lower() \
            not in ("x86_64", "amd64"):
        return False
    try:
        return " popcnt" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


if _has_popcnt():
    FLAGS.append("-mpopcnt")  # both builds, as the extension is compiled

TABLE_COLUMNS = ("color", "face", "value", "effect", "amount", "restricted", "starter",
                 "reason")
I32 = ctypes.c_int32
P = ctypes.c_void_p


SEARCH_IDS = (4, 5)  # uno.h UNO_POLICY_PIMC, UNO_POLICY_ISMCTS


class Config(ctypes.Structure):  # uno_config, field for field
    _fields_ = [(n, I32) for n in (
        "draw_source", "players", "edition", "dealer_draw", "drawn_card", "challenge",
        "wd4_value", "scoring", "target", "teams", "hand_size", "repair", "max_turns",
        "max_rounds", "exchange", "launcher", "launcher_fire", "launcher_max_silent",
        "launcher_n_burst")] + [("launcher_burst", I32 * 32), ("launcher_n_weights", I32),
                                ("launcher_weights", I32 * 32)] + [(n, I32) for n in (
        "hit_target_presses", "stacking", "draw_until_playable", "forced_play", "jump_in",
        "seven_o", "flip_starter")] + [("search", P)]  # the search's hooks: NULL, no search seat


_POLICY_HEAD = [("id", I32), ("color", I32)] + [
    (n, ctypes.c_double) for n in ("bluff", "challenge", "forget_uno", "catch",
                                   "play_drawn", "voluntary_draw")] + [
    ("challenge_auto", I32), ("challenge_threshold", ctypes.c_double),
    ("target", I32), ("stack", ctypes.c_double), ("jump_in", ctypes.c_double)] + [
    (n, I32) for n in ("bluff_next", "bluff_own", "challenge_offender", "challenge_own",
                       "suspect", "challenge_posterior")] + [
    ("challenge_prior", ctypes.c_double)]


class Policy(ctypes.Structure):  # uno_policy, field for field
    _fields_ = _POLICY_HEAD + [
        ("bluff_join", I32), ("challenge_join", I32),
        ("samples", I32), ("rollouts", I32), ("iterations", I32), ("c", ctypes.c_double),
        ("depth", I32), ("rollout", I32), ("value", I32), ("cheat", I32), ("decide", P),
        ("ctx", P)]


class NoDepthPolicy(ctypes.Structure):  # uno_policy before ismcts's depth
    _fields_ = [f for f in Policy._fields_ if f[0] != "depth"]


class OldPolicy(ctypes.Structure):  # uno_policy before the search and join fields
    _fields_ = _POLICY_HEAD + [("decide", P), ("ctx", P)]


OLD_POLICIES = {"no-search": OldPolicy, "no-depth": NoDepthPolicy}


class Columns(ctypes.Structure):  # uno_columns
    _fields_ = [("game", P), ("winner", P), ("team", P), ("rounds", P), ("turns", P),
                ("reshuffles", P), ("stalemates", P), ("scores", P), ("team_scores", P),
                ("counters", P * 7), ("rows", P), ("games_done", ctypes.c_int64)]


def _usage_error(message: str) -> None:
    """One line on stderr and exit status 2, as argparse does for a bad argument."""
    print(f"ab: {message}", file=sys.stderr)
    raise SystemExit(2)


def build(src: Path, out: Path, extra: list[str] = ()) -> Path:
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise SystemExit("ab: no C compiler")
    cmd = [cc, *FLAGS, *extra, "-I", str(src), *map(str, sorted(src.glob("*.c"))), "-o",
           str(out)]
    if subprocess.run(cmd).returncode != 0:  # the compiler has said why on stderr
        _usage_error(f"the build of {src} failed (extra flags: {' '.join(extra) or 'none'})")
    return out


def base_sources(rev: str, tmp: Path) -> Path:
    """csrc/ of commit `rev`, extracted with git archive."""
    dest = tmp / "base"
    dest.mkdir()
    arc = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "csrc"],
                         capture_output=True)
    if arc.returncode != 0:
        _usage_error(f"--base {rev!r}: no such commit with a csrc/ folder")
    subprocess.run(["tar", "-x", "-C", str(dest)], input=arc.stdout, check=True)
    return dest / "csrc"


# What a batch is timed by: wall time (time.perf_counter), or with --clock cpu this
# thread's CPU time (time.thread_time), which leaves out the time the core was given to
# other processes (a shared machine), though not their effect on the caches.
CLOCK = time.perf_counter


class LimitError(Exception):
    """A batch stopped early: status 3 is UNO_ERR_LIMIT (a game that never ends)."""


class Build:
    """One build of the engine, loaded with its own table for each case."""

    def __init__(self, path: Path, src: Path):
        self.lib = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL | os.RTLD_NOW)
        # uno_config's first field was `variant` before it was `draw_source`
        self.old_config = "int32_t variant;" in (src / "uno.h").read_text()
        # uno_policy had no search fields (samples, ...) before the search players
        header = (src / "uno.h").read_text()
        self.old_policy = ("no-search" if "int32_t samples;" not in header else
                           "no-depth" if "int32_t depth;" not in header else None)
        self.lib.uno_play_games.restype = ctypes.c_int
        self.lib.uno_table_init.restype = ctypes.c_int
        self.lib.uno_config_check.restype = ctypes.c_int

    def table(self, rules: Rules):
        arrays = deck_for(rules).arrays()
        buf = ctypes.create_string_buffer(1 << 18)  # larger than any uno_table
        cols = [np.ascontiguousarray(arrays[n], dtype=np.int32) for n in TABLE_COLUMNS]
        kind = np.ascontiguousarray(arrays["card_kind"], dtype=np.int32)
        dark = np.ascontiguousarray(arrays["dark_kind"], dtype=np.int32)
        args = [buf, len(cols[0])] + [c.ctypes.data_as(P) for c in cols] + [
            len(kind), kind.ctypes.data_as(P), dark.ctypes.data_as(P) if len(dark) else None]
        if self.lib.uno_table_init(*args) != 0:
            raise RulesError("invalid deck table")
        self._keep = (cols, kind, dark)
        return buf

    def policies(self, pols):
        """pols as this build reads them (without the search fields in the older layout)."""
        if not self.old_policy:
            return pols
        layout = OLD_POLICIES[self.old_policy]
        old = (layout * 10)()
        for s in range(10):
            for name, _ in layout._fields_:
                setattr(old[s], name, getattr(pols[s], name))
        return old

    def config(self, cfg: Config, rules: Rules, pols=None) -> Config:
        """cfg as this build reads it (its first field in the older layout); with a search
        seat in pols, this build's own search hooks (uno_config.search)."""
        if pols is not None and any(pols[s].id in SEARCH_IDS for s in range(rules.players)):
            try:
                hooks = ctypes.addressof(ctypes.c_char.in_dll(self.lib, "uno_search_players"))
            except ValueError:  # a build from before the hooks: it calls its search by name
                hooks = None
            if hooks:
                cfg = Config.from_buffer_copy(cfg)
                cfg.search = hooks
        if not self.old_config:
            return cfg
        old = Config.from_buffer_copy(cfg)
        old.draw_source = OLD_VARIANT_IDS[rules.variant]  # the `variant` field of that layout
        return old


def case_setup(rules: Rules, policy: str):
    cfg = Config()
    c = dict(_config(rules))  # by name (engine.CONFIG_FIELDS)
    burst, weights = c.pop("launcher_burst"), c.pop("launcher_weights")
    for name, value in c.items():
        setattr(cfg, name, value)
    cfg.launcher_n_burst, cfg.launcher_n_weights = len(burst), len(weights)
    for i, w in enumerate(burst):
        cfg.launcher_burst[i] = w
    for i, w in enumerate(weights):
        cfg.launcher_weights[i] = w
    pols = (Policy * 10)()
    for s, spec in enumerate(seat_policies(policy, rules.players)):
        for name, value in _policy(spec):
            setattr(pols[s], name, value)
    return cfg, pols


def time_batch(b: Build, table, cfg, pols, key, first, games, turns) -> float:
    out = Columns()
    out.turns = turns.ctypes.data_as(P)
    t0 = CLOCK()
    st = b.lib.uno_play_games(ctypes.byref(cfg), table, pols, key, ctypes.c_uint64(first),
                              ctypes.c_int64(games), ctypes.byref(out))
    dt = CLOCK() - t0
    if st != 0:
        raise LimitError(st)
    return dt


def quartiles(xs):
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return q[0], q[2]


def run_case(a: Build, b: Build, rules: Rules, policy: str, games: int, rounds: int):
    cfg, pols = case_setup(rules, policy)
    cfgs = {a: a.config(cfg, rules, pols), b: b.config(cfg, rules, pols)}
    polss = {a: a.policies(pols), b: b.policies(pols)}
    ta, tb = a.table(rules), b.table(rules)
    key = (ctypes.c_uint64 * 4)(1, 2, 3, 4)
    turns = np.zeros(games, dtype=np.int32)
    for build, table in ((a, ta), (b, tb)):  # warm-up, and a check of the config
        if build.lib.uno_config_check(ctypes.byref(cfgs[build]), table, polss[build]) != 0:
            raise RulesError("the C engine rejects this configuration")
        time_batch(build, table, cfgs[build], polss[build], key, 0, max(1, games // 10), turns)
    rate_a, rate_b, ratio = [], [], []
    turns_b = 0
    for r in range(rounds):
        first = 1_000_000 + r * games
        order = ((a, ta), (b, tb)) if r % 2 == 0 else ((b, tb), (a, ta))
        dt = {}
        for build, table in order:
            dt[build] = time_batch(build, table, cfgs[build], polss[build], key, first, games,
                                   turns)
            if build is b:
                turns_b += int(turns.sum())
        rate_a.append(games / dt[a])
        rate_b.append(games / dt[b])
        ratio.append(dt[a] / dt[b])
    lo, hi = quartiles(ratio)
    return {"a": statistics.median(rate_a), "b": statistics.median(rate_b),
            "ratio": statistics.median(ratio), "q1": lo, "q3": hi, "min": min(ratio),
            "max": max(ratio), "ns_turn_b": 1e9 * statistics.median(
                [games / rb for rb in rate_b]) / (turns_b / rounds)}


def parse_kv(items):
    out = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep:
            raise SystemExit(f"ab: expected name=value, got {item!r}")
        out[k.strip()] = parse_rule_value(k.strip(), v.strip())
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="main", help="the commit whose csrc/ is build A")
    ap.add_argument("--variant", nargs="+", default=["classic"])
    ap.add_argument("--players", nargs="+", type=int, default=[2, 4])
    ap.add_argument("--policy", nargs="+", default=["greedy"],
                    help="policy specs, as `uno-sim run --policy` takes them")
    ap.add_argument("--rule", action="append", default=[],
                    help="a Rules field as name=value (every case)")
    ap.add_argument("--games", type=int, default=2000, help="games per batch")
    ap.add_argument("--rounds", type=int, default=21, help="batches per build, in turns")
    ap.add_argument("--cpu", type=int, default=None, help="the core to pin to")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time batches by wall time or by this thread's CPU time")
    ap.add_argument("--flags-a", default="", help="extra compiler flags for build A only")
    ap.add_argument("--flags-b", default="", help="extra compiler flags for build B only")
    args = ap.parse_args(argv)
    global CLOCK
    CLOCK = time.thread_time if args.clock == "cpu" else time.perf_counter
    if hasattr(os, "sched_setaffinity"):
        cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    rules_kw = parse_kv(args.rule)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        src_a = base_sources(args.base, tmp)
        a = Build(build(src_a, tmp / "a.so", args.flags_a.split()), src_a)
        b = Build(build(ROOT / "csrc", tmp / "b.so", args.flags_b.split()), ROOT / "csrc")
        base = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.base],
                              capture_output=True, text=True).stdout.strip()
        print(f"A/B: A = csrc/ of {base}, B = csrc/ of the working tree; {args.rounds} rounds "
              f"of {args.games} games per build, interleaved, one core, "
              f"{args.clock} time")
        if rules_kw:
            print("rules: " + " ".join(args.rule))
        print(f"{'variant':10} {'pl':>2} {'policy':24} {'A games/s':>10} {'B games/s':>10} "
              f"{'B/A':>6} {'IQR':>13} {'min..max':>13} {'B ns/turn':>9}")
        for variant in args.variant:
            for players in args.players:
                for policy in args.policy:
                    rules = Rules(**{**rules_kw, "variant": variant, "players": players})
                    try:
                        r = run_case(a, b, rules, policy, args.games, args.rounds)
                    except LimitError as exc:
                        print(f"{variant:10} {players:>2} {policy:24} a batch stopped with "
                              f"status {exc.args[0]} (a game past the turn limit): not timed")
                        continue
                    print(f"{variant:10} {players:>2} {policy:24} {r['a']:>10,.0f} "
                          f"{r['b']:>10,.0f} {r['ratio']:>6.2f} "
                          f"{r['q1']:>6.2f}..{r['q3']:<5.2f} {r['min']:>6.2f}..{r['max']:<5.2f} "
                          f"{r['ns_turn_b']:>9.1f}", flush=True)


if __name__ == "__main__":
    main()
