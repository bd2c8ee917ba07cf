"""Progress bars (tqdm) for runs, studies, reports, tournaments and benchmarks.

A bar is drawn on stderr, never stdout, so piped results stay clean.  Whether
it is drawn: `enabled=True` or `False` decides; `None` (the default) draws it
when the environment variable UNO_SIM_PROGRESS is 1, yes, true or on (0, no, false,
off: never; anything else is an error), else when
stderr is a terminal or the code runs in a Jupyter kernel, where `tqdm.auto`
gives a notebook widget.

Progress is best effort, the work it shows is not: the bar writes through
`BestEffort`, which drops what a closed, broken or full stderr cannot take at
once (a pipe nobody reads, `2>&-`) instead of raising or blocking.
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


class BestEffort:
    """A text stream around `stream` (stderr) whose writes never fail nor block.

    A write the stream cannot take at once is dropped: a pipe that is full (its reader
    stopped reading: `select` says it would block), closed or broken, a closed or absent
    stream.  After an error nothing more is written.
    """

    def __init__(self, stream):
        self.stream = stream
        self.dead = stream is None

    def _ready(self) -> bool:
        import select

        try:
            fd = self.stream.fileno()
        except (OSError, ValueError, AttributeError):  # a notebook's stream: no descriptor
            return True
        return bool(select.select([], [fd], [], 0)[1])

    def write(self, text: str) -> int:
        """Writes `text` if the stream takes it at once; returns the characters written."""
        if self.dead:
            return 0
        try:
            if not self._ready():
                return 0  # full: this frame of the bar is dropped
            n = self.stream.write(text)
            self.stream.flush()
            return n
        except (OSError, ValueError, AttributeError):  # closed, broken pipe, no space...
            self.dead = True
            return 0

    def flush(self) -> None:
        """Flushes the stream; an error marks it dead instead of raising."""
        if not self.dead:
            try:
                self.stream.flush()
            except (OSError, ValueError, AttributeError):
                self.dead = True

    def isatty(self) -> bool:
        """Whether the live stream is a terminal (False once dead)."""
        try:
            return not self.dead and self.stream.isatty()
        except (OSError, ValueError, AttributeError):
            return False

    def fileno(self) -> int:
        """The stream's file descriptor."""
        return self.stream.fileno()

    def __getattr__(self, name):  # encoding and the like
        return getattr(self.stream, name)


class Silent:
    """The bar that is not drawn: counts what a tqdm bar counts (`n`, `total`, `disable`)
    without importing tqdm (about 0.1 s of a run's start-up)."""

    disable = True

    def __init__(self, total: int | None = None):
        self.total, self.n = total, 0

    def update(self, n: int = 1) -> None:
        """Counts n more units."""
        self.n += n

    def close(self) -> None:
        """Nothing to clear."""

    def set_postfix_str(self, *args, **kwargs) -> None:
        """Nothing to show."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def bar(total: int | None, desc: str, unit: str = "game", enabled: bool | None = None,
        leave: bool = True):
    """A tqdm bar over `total` units (elapsed, rate and time left), or a silent one;
    it writes through `BestEffort`, so a bar can never stop the work it shows."""
    on = wanted(enabled) and sys.stderr is not None
    if not on:
        return Silent(total)
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=" games" if unit == "game" else unit,
                unit_scale=unit == "game", leave=leave, disable=False,
                file=BestEffort(sys.stderr), dynamic_ncols=True, smoothing=0.1)
