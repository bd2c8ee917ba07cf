"""Progress bars (tqdm) for runs, studies, reports, tournaments and benchmarks.

A bar is drawn on stderr, never stdout, so piped results stay clean.  Whether
it is drawn: `enabled=True` or `False` decides; `None` (the default) draws it
when the environment variable UNO_SIM_PROGRESS is 1, yes, true or on (0, no, false,
off: never; anything else is an error), else when
stderr is a terminal or the code runs in a Jupyter kernel, where `tqdm.auto`
gives a notebook widget.
"""

from __future__ import annotations

import os
import sys


def wanted(enabled: bool | None = None) -> bool:
    """Whether to draw a bar (see the module docstring)."""
    if enabled is not None:
        return bool(enabled)
    env = env_setting()
    if env is not None:
        return env
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False
    return _in_jupyter_kernel()


ON, OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def env_setting() -> bool | None:
    """UNO_SIM_PROGRESS: True (1, true, yes, on), False (0, false, no, off; any case), None
    when unset or empty; RulesError naming any other value (a typo is not ignored)."""
    env = os.environ.get("UNO_SIM_PROGRESS", "").strip()
    if not env:
        return None
    if env.lower() in ON + OFF:
        return env.lower() in ON
    from .rules import RulesError

    raise RulesError(f"invalid UNO_SIM_PROGRESS={env[:40]!r}: expected 1 or 0 (also yes/no, "
                     f"true/false, on/off), or unset for a bar on a terminal only")


def _in_jupyter_kernel() -> bool:
    """True inside a Jupyter kernel (not merely when ipykernel has been imported)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") \
        else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def bar(total: int | None, desc: str, unit: str = "game", enabled: bool | None = None,
        leave: bool = True):
    """A tqdm bar over `total` units (elapsed, rate and time left), or a silent one."""
    from tqdm.auto import tqdm

    on = wanted(enabled)
    return tqdm(total=total, desc=desc, unit=" games" if unit == "game" else unit,
                unit_scale=unit == "game", leave=leave,
                disable=not on, file=sys.stderr, dynamic_ncols=True, smoothing=0.1)
