"""Distillation: fitting the network to a search player's decisions (docs/training.md).

A label is one decision of a search seat with more than one legal answer, as the engine's
decision recorder writes it: the seat's observation and legal actions, the answer the
search took, its per-answer values (the mean outcome of each searched answer) and the
game's outcome for the seat.  The policy head is fitted to the search's answer
(cross-entropy with the one-hot answer, or with temperature `temp` > 0 the softmax of the
searched answers' values over `temp`), the value head to the outcome (the logistic loss:
the value is the logit of P(win the game)).  One loop, minibatches in an order drawn from
the run's seed, the optimiser of `model.Adam`.
"""

from __future__ import annotations

import numpy as np

from .model import masked_log_softmax, sigmoid


def policy_targets(mask: np.ndarray, action: np.ndarray, values: np.ndarray | None,
                   temp: float) -> np.ndarray:
    """(n, n_actions) target distributions: one-hot on `action`, or with temp > 0 and the
    values known the softmax of values / temp over the legal answers searched (those with a
    finite value; the answer taken always among them)."""
    n, a = mask.shape
    target = np.zeros((n, a), np.float32)
    rows = np.arange(n)
    if temp <= 0 or values is None:
        target[rows, action] = 1.0
        return target
    known = mask & np.isfinite(values)
    known[rows, action] = True
    z = np.where(known, np.nan_to_num(values, nan=0.0).astype(np.float64) / temp, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def fit(state, data: dict, epochs: int, minibatch: int, lr: float, rng: np.random.Generator,
        temp: float = 0.0, value_coef: float = 1.0, grad_clip: float | None = 1.0) -> dict:
    """`epochs` passes of minibatch Adam steps on the labels `data` (x, mask, action,
    values or None, outcome); returns the mean losses of the last pass and the share of
    the labels whose answer the network now ranks first."""
    x, mask, outcome = data["x"], data["mask"], data["outcome"].astype(np.float64)
    target = policy_targets(mask, data["action"], data.get("values"), temp)
    n = len(x)
    net, opt = state.net, state.opt
    for _ in range(epochs):
        order = rng.permutation(n)
        sums = np.zeros(3)
        for s in range(0, n, minibatch):
            i = order[s:s + minibatch]
            logits, v, hs = net.forward(x[i], keep=True)
            logp = masked_log_softmax(logits, mask[i])
            p = np.exp(logp)
            dz = (p - target[i]) / len(i)  # d cross-entropy / d logits (0 off the mask)
            sv = sigmoid(v[:, 0].astype(np.float64))
            dv = np.zeros(v.shape)
            dv[:, 0] = value_coef * (sv - outcome[i]) / len(i)
            opt.step(net.backward(hs, dz, dv), lr=lr, clip=grad_clip)
            ce = -(target[i] * np.where(mask[i], logp, 0.0)).sum(1).mean()
            eps = 1e-7
            vl = -(outcome[i] * np.log(sv + eps) + (1 - outcome[i]) * np.log(1 - sv + eps)).mean()
            agree = (np.where(mask[i], logits, -np.inf).argmax(1) == data["action"][i]).mean()
            sums += np.array([ce, vl, agree]) * len(i)
    ce, vl, agree = sums / max(1, n)
    return {"policy_loss": float(ce), "value_loss": float(vl), "agreement": float(agree)}
