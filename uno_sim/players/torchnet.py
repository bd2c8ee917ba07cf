"""The network player's weights (`.unonet`) as a torch module: load them, fine-tune, export.

The C player reads the observation of the game's own seats (docs/net.md); the vector
environment, and so every learner on it, hands a network ten seat slots.  A `TorchNet`
takes the vector env's observation as it comes and makes the cut training makes
(`model.input_columns`: each per-seat block kept to the network's `seats` slots, which a
game it fits leaves the rest of at zero anyway), then runs the file's network: hidden
ReLU layers, a policy head of one logit per action id of the network (K + 7 + seats) and
a value head.  Its logits are the vector env's action ids: the network's, then one per
target slot past its seats (never legal in a game the network fits) at logit 0, so a
mask over the env's actions applies as it is::

    from uno_sim.players import netfile, torchnet
    from uno_sim.players.net import WEIGHTS_DIR

    module = torchnet.TorchNet.from_net(netfile.read(WEIGHTS_DIR / "classic-2p.unonet"))
    logits, value = module(torch.as_tensor(obs["observation"]))   # a vector env's obs
    netfile.write("tuned.unonet", module.to_net({"variant": "classic", "players": 2}))

The arrays are copied as they are (W[in][out] in the file is a `Linear`'s weight
transposed), so a module read from a file and written back gives the same floats; torch's
matrix products may round a logit differently from the C player's loop in the last bits
(as `netfile.forward_batch` does), which changes an answer only at a near-tie.
`load_net` and `net_of` do the copies for modules a framework builds itself (the
Stable-Baselines3 policy of `uno_sim.sb3`).  Requires torch.
"""

from __future__ import annotations

import numpy as np

try:
    import torch
    from torch import nn
except ImportError as exc:  # pragma: no cover - exercised without torch
    raise ImportError(f"uno_sim.players.torchnet needs torch (pip install torch; a CPU build "
                      f"keeps it small): {exc}") from None

from .. import _engine
from . import netfile
from .model import input_columns

__all__ = ["SLOTS", "Trunk", "TorchNet", "env_layout", "load_net", "net_of"]

SLOTS = 10  # seat slots of the vector env's observation and target actions (vecenv.SEATS)


def env_layout(n_kinds: int, flip: bool, extreme: bool) -> list:
    """The vector env's observation blocks (name, offset, size) for a deck of `n_kinds`
    card kinds with or without the Flip and Extreme blocks: ten seat slots, written by the
    C engine's own layout function (csrc/observe.c)."""
    return _engine.EnvSeat(n_kinds, SLOTS, bool(flip), bool(extreme)).layout


class Trunk(nn.Module):
    """The column cut and the hidden ReLU layers of a network of `layout` (n_kinds,
    seats, flip, extreme) and `widths`: a vector env's observations (B, its size) in,
    the last hidden layer (B, widths[-1]) out."""

    def __init__(self, layout, widths):
        super().__init__()
        n_kinds, seats, flip, extreme = layout
        self.layout = (int(n_kinds), int(seats), bool(flip), bool(extreme))
        cols = input_columns(env_layout(n_kinds, flip, extreme), SLOTS, seats)
        if len(cols) != netfile.obs_size(*self.layout):
            raise ValueError(f"the column cut keeps {len(cols)} entries, the network reads "
                             f"{netfile.obs_size(*self.layout)}")
        self.register_buffer("cols", torch.as_tensor(cols, dtype=torch.long), persistent=False)
        sizes = [len(cols)] + [int(w) for w in widths]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))

    @property
    def widths(self) -> tuple:
        """The hidden layers' widths."""
        return tuple(lin.out_features for lin in self.layers)

    def forward(self, obs):
        """The last hidden layer's activations for the vector env's observations `obs`."""
        h = obs.index_select(-1, self.cols)
        for lin in self.layers:
            h = torch.relu(lin(h))
        return h


class TorchNet(nn.Module):
    """A `.unonet` network on the vector env's observation: `trunk` (a `Trunk`), `policy`
    (K + 7 + seats logits) and `value` (one output) heads.  Calling it on observations
    (B, the vector env's size) gives (logits (B, K + 7 + 10), values (B,))."""

    def __init__(self, layout, widths):
        super().__init__()
        self.trunk = Trunk(layout, widths)
        n_kinds, seats = self.trunk.layout[:2]
        self.policy = nn.Linear(self.trunk.widths[-1], n_kinds + 7 + seats)
        self.value = nn.Linear(self.trunk.widths[-1], 1)
        self.n_actions = n_kinds + 7 + SLOTS  # the vector env's action ids

    @classmethod
    def from_net(cls, net: netfile.Net) -> "TorchNet":
        """The module holding `net`'s weights (a `netfile.Net`, e.g. `netfile.read(path)`)."""
        module = cls(net.layout(), net.widths)
        load_net(net, module.trunk, module.policy, module.value)
        return module

    def forward(self, obs):
        """(logits over the vector env's action ids, values) for observations `obs`."""
        h = self.trunk(obs)
        logits = self.policy(h)
        pad = self.n_actions - logits.shape[-1]  # the target slots past the network's seats
        return nn.functional.pad(logits, (0, pad)), self.value(h).squeeze(-1)

    def to_net(self, metadata: dict | None = None) -> netfile.Net:
        """The weights as a `netfile.Net` (`netfile.write` writes it) with `metadata`."""
        return net_of(self.trunk, self.policy, self.value, metadata)


def load_net(net: netfile.Net, trunk: Trunk, policy: nn.Linear, value: nn.Linear) -> None:
    """Copies `net`'s weights into `trunk` and the heads; `policy` may have the vector
    env's K + 7 + 10 outputs: those past the network's K + 7 + seats get weight 0 and
    bias 0 (target slots never legal in a game the network fits)."""
    if trunk.layout != net.layout() or trunk.widths != tuple(net.widths):
        raise ValueError(f"{net.name}: a network of layout {net.layout()} and widths "
                         f"{tuple(net.widths)}, the module has {trunk.layout} and "
                         f"{trunk.widths}")
    n = net.n_actions
    if not n <= policy.out_features <= net.n_kinds + 7 + SLOTS or value.out_features != 1:
        raise ValueError(f"{net.name}: heads of {policy.out_features} and "
                         f"{value.out_features} outputs, expected {n} (or up to "
                         f"{net.n_kinds + 7 + SLOTS}) and 1")
    def t(a):  # a Linear's weight is the file's W transposed
        return torch.tensor(np.asarray(a, np.float32))

    with torch.no_grad():
        for lin, (w, b) in zip(trunk.layers, net.hidden):
            lin.weight.copy_(t(w.T))
            lin.bias.copy_(t(b))
        policy.weight.zero_()
        policy.bias.zero_()
        policy.weight[:n].copy_(t(net.policy[0].T))
        policy.bias[:n].copy_(t(net.policy[1]))
        value.weight.copy_(t(net.value[0].T))
        value.bias.copy_(t(net.value[1]))


def net_of(trunk: Trunk, policy: nn.Linear, value: nn.Linear,
           metadata: dict | None = None) -> netfile.Net:
    """The `netfile.Net` of a trunk and its heads (the policy's outputs past the network's
    K + 7 + seats left out), with `metadata`."""
    def arr(t):
        return t.detach().to("cpu", torch.float32).numpy().copy()

    n_kinds, seats, flip, extreme = trunk.layout
    n = n_kinds + 7 + seats
    hidden = [(np.ascontiguousarray(arr(lin.weight).T), arr(lin.bias)) for lin in trunk.layers]
    net = netfile.Net(n_kinds, seats, flip, extreme, hidden,
                      (np.ascontiguousarray(arr(policy.weight)[:n].T), arr(policy.bias)[:n]),
                      (np.ascontiguousarray(arr(value.weight).T), arr(value.bias)),
                      dict(metadata or {}))
    net.check()
    return net
