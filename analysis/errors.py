"""The studies' error, in a room below every study module: `gamestats` (the lowest)
raises it too.  `uno_sim.analysis.common.StudyError` is this class."""

from __future__ import annotations

from uno_sim.rules import RulesError


class StudyError(RulesError):
    """A study that cannot run as asked; the CLI prints it on one line."""
