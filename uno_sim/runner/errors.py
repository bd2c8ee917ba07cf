"""The error of a run that cannot start or finish as asked."""

from __future__ import annotations

from ..rules import RulesError

class RunError(RulesError):
    """A run that cannot start or finish as asked (bad directory, missing shards...)."""
