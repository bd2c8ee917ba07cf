"""Moved to `uno_sim.players.specs` (docs/contributing.md "What moved"); this name stays so
that existing imports keep working: it is that very module, so setting an attribute here
sets it there.  Nothing inside uno_sim imports this name."""

import sys

from uno_sim.players import specs

sys.modules[__name__] = specs
