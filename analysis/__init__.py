"""Studies over uno_sim runs: Polars pipelines plus Matplotlib figures (bare Figures: a
study never switches the session's backend).

Each study is a function ``study(variant, players, games, seed, out, ...)`` that
returns a `StudyResult` (sections for a report, frames in ``.data``), runnable
as ``uno-sim study NAME`` and importable in a notebook::

    from uno_sim.analysis import bluff
    res = bluff.study(variant="classic", players=2, games=500, seed=1)
    res.data["values_by_next"]   # Polars frame: value of a bluff by the next player's hand

See docs/studies.md.
"""

from __future__ import annotations

STUDIES = ("bluff", "challenge", "exploit", "balance")


def __getattr__(name):
    # StudyError and variants live in .common, which loads Polars: only on first use, so
    # that `uno-sim` commands other than study/report start without it.
    if name in ("StudyError", "variants"):
        from . import common

        return getattr(common, name)
    raise AttributeError(f"module 'uno_sim.analysis' has no attribute {name!r}")

__all__ = ["STUDIES", "StudyError", "variants", "run_study"]


def run_study(name: str, variant: str = "classic", players=None, games: int = 1000,
              seed: int = 0, out: str | None = None, **kw):
    """Run one study by name; `players` is a count or a list (default 2 and 4; balance
    2..10)."""
    from .common import StudyError, parse_players

    if name not in STUDIES:
        raise StudyError(f"unknown study {name!r}: expected one of {', '.join(STUDIES)}")
    if out is None:  # figures in a folder that goes when the result goes
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix=f"uno-{name}-")
        res = run_study(name, variant, players, games, seed, tmp.name, **kw)
        res.tmp = tmp
        return res
    if name == "balance":
        from . import balance

        return balance.study(variant, parse_players(players, range(2, 11)), games, seed, out,
                             **kw)
    from . import bluff, challenge, exploit

    ks = parse_players(players, (2, 4))
    mod = {"bluff": bluff, "challenge": challenge, "exploit": exploit}[name]
    results = [mod.study(variant, k, games, seed, out, **kw) for k in ks]
    if len(results) == 1:
        return results[0]
    first = results[0]
    for r in results[1:]:
        first.sections += r.sections
        first.figures += r.figures
        first.data = {**first.data, **{f"{k}_{r.data['setup'].players}p": v
                                       for k, v in r.data.items()}}
    return first
