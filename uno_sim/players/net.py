"""The network player's weights as the C engine reads them: found, loaded once, shared.

`net` with no `weights=` plays the weights shipped for the game's variant and player
count: the package file ``uno_sim/players/weights/<variant>-<players>p.unonet`` (for
example ``classic-2p.unonet``, ``flip-4p.unonet``).  `net(weights=FILE)` plays another
file.  A file is read and checked once per process (`load`, cached by its path, size and
modification time) and turned into the block csrc/net.c reads (a `uno_net` header and
its float32 weights, `Loaded.block`); every engine of the process that plays it points
at that one block.  A worker process loads the file again by its path.

Errors are one line (`RulesError`, the CLI's exit 2) naming the file and what is wrong:
a missing shipped file, a file that is not a weight file, a network whose observation is
not the game's (other card kinds, the Flip or Extreme blocks, fewer seats).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..rules import RulesError
from . import netfile

__all__ = ["WEIGHTS_DIR", "Loaded", "shipped_name", "shipped_path", "load", "for_rules",
           "game_layout", "check_fits"]

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
_CACHE: dict = {}  # realpath -> (size, mtime_ns, Loaded)


def shipped_name(variant: str, players: int) -> str:
    """The shipped file's name for a variant and a player count."""
    return f"{variant}-{players}p.unonet"


def shipped_path(rules) -> Path:
    """Where the shipped weights for these rules' variant and player count live."""
    return WEIGHTS_DIR / shipped_name(rules.variant, rules.players)


@dataclass(frozen=True, eq=False)
class Loaded:
    """A weight file read and checked: its `net` (netfile.Net), its `checksum` (the file's
    trailer, FNV-1a 64), its resolved `path` and the C block (`block`, uint8, kept alive as
    long as any engine points at it)."""

    path: str
    checksum: int
    net: object
    block: np.ndarray

    @property
    def key(self) -> tuple:
        """What identifies the weights in a cache key or a manifest: (path, checksum)."""
        return (self.path, self.checksum)

    def __eq__(self, other):
        return isinstance(other, Loaded) and other.key == self.key

    def __hash__(self):
        return hash(self.key)


def _block(net) -> np.ndarray:
    from .. import _engine

    flat = np.concatenate([np.ascontiguousarray(a, dtype=np.float32).reshape(-1)
                           for a in net.arrays()])
    return _engine.net_block(net.n_kinds, net.seats, int(net.flip), int(net.extreme),
                             list(net.widths), flat)


def load(path) -> Loaded:
    """The weights of file `path`, read once per process (again only when the file's size
    or modification time changed); RulesError naming the file otherwise."""
    text = os.fspath(path)
    try:
        real = os.path.realpath(text)
        st = os.stat(real)
    except OSError as exc:
        raise RulesError(f"{text}: cannot read the weights ({exc.strerror or exc})") from None
    hit = _CACHE.get(real)
    if hit is not None and hit[:2] == (st.st_size, st.st_mtime_ns):
        return hit[2]
    net = netfile.read(text)
    loaded = Loaded(real, net.checksum, net, _block(net))
    _CACHE[real] = (st.st_size, st.st_mtime_ns, loaded)
    return loaded


def game_layout(rules) -> tuple:
    """(n_kinds, players, flip, extreme) of a game's observation (docs/net.md)."""
    from ..cards import deck_for

    deck = deck_for(rules)
    return (len(deck.kinds), rules.players, deck.sides == 2,
            rules.variant_spec.draw_source == "launcher")


def check_fits(loaded, rules) -> None:
    """RulesError unless the network (a `Loaded`, or a `netfile.Net` named by its `name`)
    reads this game's observation."""
    kinds, players, flip, extreme = game_layout(rules)
    n = getattr(loaded, "net", loaded)
    why = None
    if n.n_kinds != kinds:
        why = f"it reads {n.n_kinds} card kinds, the {rules.variant} deck has {kinds}"
    elif bool(n.flip) != flip:
        why = f"it was made {'with' if n.flip else 'without'} UNO Flip's blocks"
    elif bool(n.extreme) != extreme:
        why = f"it was made {'with' if n.extreme else 'without'} UNO Extreme's launcher block"
    elif n.seats < players:
        why = f"it reads {n.seats} seats, the game has {players} players"
    if why:
        where = loaded.path if isinstance(loaded, Loaded) else n.name
        raise RulesError(f"{where}: the network does not fit this game: {why}")


def for_rules(weights: str, rules) -> Loaded:
    """The weights a net-reading seat plays in a game of `rules`: the file `weights`, or
    (empty) the shipped file for the variant and player count; checked to fit the game."""
    if not weights:
        path = shipped_path(rules)
        if not path.is_file():
            raise RulesError(f"no shipped network weights for {rules.variant} at "
                             f"{rules.players} players (missing {path.name}): give one with "
                             f"net(weights=FILE)")
        weights = str(path)
    loaded = load(weights)
    check_fits(loaded, rules)
    return loaded


def for_spec(spec, rules) -> Loaded | None:
    """The weights seat `spec` (a players.specs.PolicySpec, or a user policy's spec) reads
    in a game of `rules` (`for_rules` of its `weights`), or None for a seat that reads
    none; RulesError naming the file when they cannot be used.  The file is checked here,
    where the spec meets a game, before any game is played: a file the spec names is
    checked even where its knobs never read it (`pimc(weights=FILE)` with no rollout,
    leaf or inference on the network), so a missing or damaged file never passes unseen."""
    if not (hasattr(spec, "reads_net") and spec.reads_net()):
        named = getattr(spec, "params", {}).get("weights")
        if named:
            for_rules(named, rules)
        return None
    return for_rules(spec.knob("weights"), rules)
