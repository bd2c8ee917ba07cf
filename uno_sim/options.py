"""Parsers of command-line values shared by `uno-sim` and its study commands.

A neutral room: `uno_sim.cli` and `uno_sim.analysis.cli` both import it, so the
studies never import the command line itself.
"""

from __future__ import annotations

import re


class UsageError(Exception):
    """A bad command-line value: the CLI prints its message on one line, exit status 2."""


_COUNT = re.compile(r"^\s*([0-9][0-9_]*(?:\.[0-9]+)?(?:e[0-9]+)?)\s*([kKmM]?)\s*$")


def count_text(n: int) -> str:
    """A bound as the count syntax writes it: 1e7 for 10**7, else 12,345."""
    e = len(str(n)) - 1
    return f"1e{e}" if n == 10**e and e >= 4 else f"{n:,}"


def parse_count(text: str, what: str = "games", most: int | None = None, why: str = "") -> int:
    """`1e6`, `1_000_000`, `250k`, `2M` -> int; positive integers only, at most `most`
    (default MAX_COUNT; `why` says why, after the bound)."""
    most = MAX_COUNT if most is None else most
    m = _COUNT.match(str(text))
    if not m:
        raise UsageError(f"invalid --{what} {text!r}: expected a positive count like 1000, 1e6, 250k")
    value = float(m.group(1).replace("_", "")) * {"": 1, "k": 1e3, "m": 1e6}[m.group(2).lower()]
    if not value <= most:  # also inf (1e400)
        raise UsageError(f"invalid --{what} {text!r}: at most {count_text(most)}"
                         + (f" ({why})" if why else ""))
    if value != int(value) or value < 1:
        raise UsageError(f"invalid --{what} {text!r}: expected a positive whole number")
    return int(value)


MAX_COUNT = 10**15  # games and the like; a run's shards are bounded apart (runner.MAX_SHARDS)


MAX_JOBS = 4096  # worker processes: a pool starts them all at once (as tournament, league)


def parse_jobs(text) -> int:
    """`--jobs`: a positive integer up to MAX_JOBS, or -1 for every core."""
    try:
        j = int(text)
    except ValueError:
        j = 0
    if j == 0 or j < -1:
        raise UsageError(f"invalid --jobs {text!r}: expected a positive integer or -1 (all cores)")
    if j > MAX_JOBS:
        raise UsageError(f"invalid --jobs {text!r}: at most {MAX_JOBS} worker processes "
                         f"(-1: one per core)")
    return j
