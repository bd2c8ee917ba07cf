"""Progress bars (tqdm) for runs, studies, reports, tournaments and benchmarks.

A bar is drawn on stderr, never stdout, so piped results stay clean.  Whether
it is drawn: `enabled=True` or `False` decides; `None` (the default) draws it
when the environment variable UNO_SIM_PROGRESS is 1 (0: never), else when
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
    env = os.environ.get("UNO_SIM_PROGRESS", "").strip()
    if env in ("0", "1"):
        return env == "1"
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False
    return _in_jupyter_kernel()


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
