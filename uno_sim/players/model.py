"""The network that training fits, in numpy: a small MLP with a policy and a value head.

The shapes and the order of the arrays are those of the network player's weight file
(docs/net.md): hidden layers W[in][out] (input-major), b[out] with ReLU; a policy head
W[H_L][n_actions], b[n_actions]; a value head W[H_L][1], b[1].  `Net.arrays` lists them in
the file's order, so that `uno_sim.players.netfile` writes them as they are.

Everything is float32, as in the C player.  The batched forward here is plain matrix
products (BLAS): it may differ from the player's normative loop in the last bits of a logit
(another summation order), which only matters for the very rare ties; the shipped weights'
strength is always measured with the C player itself.

`Adam` is the optimiser written out (Kingma and Ba, 2015), one loop over the arrays, so that
every line of the learning rule is in view.
"""

from __future__ import annotations

import numpy as np

MAX_LAYERS = 4
MAX_WIDTH = 1024

# The observation's blocks with one entry (or one group of entries) per relative seat
# (docs/env.md "Observation"): the vector env pads them to 10 seats, the network reads the
# game's own seats only.
PER_SEAT_BLOCKS = ("hand_sizes", "active", "scores", "failed_colors", "next_seat",
                   "offender", "forgetter", "revealed_seat", "other_faces")


def input_columns(layout, slots: int, seats: int) -> np.ndarray:
    """The columns of a vector-env observation (layout: (name, offset, size) with `slots`
    seat slots per per-seat block) that make the observation of `seats` seats: the same
    blocks in the same order, each per-seat block cut to its first `seats` slots (the slots
    past the players are zero in the vector env)."""
    cols = []
    for name, off, size in layout:
        keep = size // slots * seats if name in PER_SEAT_BLOCKS else size
        cols.append(np.arange(off, off + keep))
    return np.concatenate(cols)


class Net:
    """An MLP: `widths` hidden ReLU layers, then a policy head and a value head, and with
    `aux` > 0 that many more linear outputs beside the value (heads training uses and the
    weight file leaves out: its arrays come after the file's)."""

    def __init__(self, obs_size: int, n_actions: int, widths, rng: np.random.Generator,
                 aux: int = 0):
        widths = [int(w) for w in widths]
        if not 1 <= len(widths) <= MAX_LAYERS or not all(1 <= w <= MAX_WIDTH for w in widths):
            raise ValueError(f"invalid widths {widths}: 1..{MAX_LAYERS} layers of "
                             f"1..{MAX_WIDTH} units")
        self.obs_size, self.n_actions, self.widths = int(obs_size), int(n_actions), widths
        self.arrays: list[np.ndarray] = []
        fan_in = self.obs_size
        for w in widths:  # He initialisation for ReLU layers, zero biases
            self.arrays += [(rng.standard_normal((fan_in, w)) * np.sqrt(2.0 / fan_in))
                            .astype(np.float32), np.zeros(w, np.float32)]
            fan_in = w
        # Small policy logits at first (a near-uniform policy), values of 0 (P(win) 1/2).
        self.arrays += [(rng.standard_normal((fan_in, self.n_actions)) * 0.01 / np.sqrt(fan_in))
                        .astype(np.float32), np.zeros(self.n_actions, np.float32)]
        for _ in range(1 + int(aux)):
            self.arrays += [np.zeros((fan_in, 1), np.float32), np.zeros(1, np.float32)]

    @property
    def n_values(self) -> int:
        """The value outputs: the value head's, then the auxiliary ones."""
        return (len(self.arrays) - 2 * len(self.widths) - 2) // 2

    def file_arrays(self) -> list[np.ndarray]:
        """The arrays of the weight file, in its order (no auxiliary head)."""
        return self.arrays[:2 * len(self.widths) + 4]

    def forward(self, x: np.ndarray, keep: bool = False):
        """(logits (B, n_actions), values (B, n_values): column 0 the value head's v_raw)
        for observations x (B, obs_size), and with `keep` the activations `backward`
        needs."""
        hs = [x]
        h = x
        for i in range(len(self.widths)):
            h = h @ self.arrays[2 * i] + self.arrays[2 * i + 1]
            np.maximum(h, 0, out=h)
            hs.append(h)
        k = 2 * len(self.widths)
        logits = h @ self.arrays[k] + self.arrays[k + 1]
        values = np.concatenate([h @ self.arrays[j] + self.arrays[j + 1]
                                 for j in range(k + 2, len(self.arrays), 2)], axis=1)
        return (logits, values, hs) if keep else (logits, values)

    def backward(self, hs, dlogits: np.ndarray, dvalues: np.ndarray) -> list[np.ndarray]:
        """The gradients of a loss, one per array, from its gradients with respect to the
        logits (B, n_actions) and to the values (B, n_values), given the activations of
        `forward`."""
        L = len(self.widths)
        k = 2 * L
        h = hs[-1]
        dlogits = dlogits.astype(np.float32, copy=False)
        dvalues = dvalues.astype(np.float32, copy=False).reshape(len(h), -1)
        grads = [None] * len(self.arrays)
        grads[k], grads[k + 1] = h.T @ dlogits, dlogits.sum(0)
        dh = dlogits @ self.arrays[k].T
        for c, j in enumerate(range(k + 2, len(self.arrays), 2)):
            dv = dvalues[:, c:c + 1]
            grads[j], grads[j + 1] = h.T @ dv, dv.sum(0)
            dh += dv @ self.arrays[j].T
        for i in range(L - 1, -1, -1):
            dh *= hs[i + 1] > 0  # through the ReLU
            grads[2 * i], grads[2 * i + 1] = hs[i].T @ dh, dh.sum(0)
            if i:
                dh = dh @ self.arrays[2 * i].T
        return grads


def masked_log_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """log pi(a) over the legal actions (mask True); -inf at the others."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def greedy_actions(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The legal action with the highest logit, ties to the lowest id (the player's rule)."""
    return np.where(mask, logits, -np.inf).argmax(axis=1)


def sample_actions(logp: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row drawn from exp(logp) (inverse CDF, one uniform per row)."""
    c = np.exp(logp).cumsum(axis=1)
    u = rng.random(len(c))[:, None] * c[:, -1:]
    return np.minimum((c < u).sum(axis=1), c.shape[1] - 1)


def sigmoid(x):
    """1 / (1 + exp(-x)), elementwise."""
    return 1.0 / (1.0 + np.exp(-x))


class Adam:
    """Adam on a list of float32 arrays, updated in place; its state is `m`, `v`, `t`."""

    def __init__(self, arrays, lr=3e-4, b1=0.9, b2=0.999, eps=1e-8):
        self.arrays, self.lr, self.b1, self.b2, self.eps = arrays, lr, b1, b2, eps
        self.m = [np.zeros_like(a) for a in arrays]
        self.v = [np.zeros_like(a) for a in arrays]
        self.t = 0

    def step(self, grads, lr=None, clip=None):
        """One step down `grads`; `clip`: scale them first so that their global norm is at
        most that."""
        lr = self.lr if lr is None else lr
        if clip is not None:
            norm = float(np.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in grads)))
            if norm > clip:
                grads = [g * np.float32(clip / norm) for g in grads]
        self.t += 1
        c1, c2 = 1 - self.b1 ** self.t, 1 - self.b2 ** self.t
        for a, g, m, v in zip(self.arrays, grads, self.m, self.v):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            a -= (lr / c1) * m / (np.sqrt(v / c2) + self.eps)
