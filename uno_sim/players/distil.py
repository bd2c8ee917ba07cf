"""Distillation: fitting the network to a search player's decisions (docs/training.md).

Labels.  Seeded games are played with the labelling policy (a search player) at one seat
and the recipe's `label_opponents` at the others, and the engine's decision recorder
(`uno_sim.players.record`, csrc/record.c) writes one row per decision of that seat with
more than one legal answer: the seat's observation (the game's own seat slots: the
network's input), its legal actions, the answer the search took, its per-answer values
and the game's outcome for the seat.  Round r of expert iteration plays the games of run
`run_seed(seed, STAGE_DISTIL, r)`, cut into shards of `label_shard` games; shard i puts the
labelling seat at seat i mod players against opponent i // players mod (opponents), so
every seat and opponent take turns.  A shard is kept in the run's folder as a compressed
.npz of the observations' non-zero entries (an observation is mostly zeros), and its
SHA-256 is recorded in train.json, so that a resumed run uses it again, only it.

Fit.  The policy head is fitted to the search's answer (cross-entropy with the one-hot
answer, or with `distil_temp` > 0 the softmax of the searched answers' values over that
temperature), the value head to the game's outcome (logistic loss: the value is the logit
of P(win the game)), or with `value_target` search to the search's value of the answer it
took (`search_values`: a value that ranks a state's answers, where the outcome ranks none,
for a search's leaf); the return head (self-play's baseline) to the same target as an
expected reward, 2 won - 1.  One loop of minibatch Adam steps, in an order drawn from
SeedSequence([seed, STAGE_DISTIL, round, epoch]).
"""

from __future__ import annotations

import hashlib
import io
import os

import numpy as np

from .model import masked_log_softmax, sigmoid
from .selfplay import run_seed

STAGE_DISTIL = 1
SHARD_ARRAYS = ("cols", "vals", "ptr", "mask", "action", "won", "value", "truth")
SHARD_MAX_BYTES = 2**31


def shard_setup(recipe, rnd: int, index: int, label: str) -> tuple[list, int, int]:
    """(the specs of every seat, the labelled seat, the first game) of shard `index` of
    round `rnd`, the labelling seat playing `label`."""
    players = recipe.players
    seat = index % players
    opponent = recipe.label_opponents[index // players % len(recipe.label_opponents)]
    specs = [label if s == seat else opponent for s in range(players)]
    return specs, seat, index * recipe.label_shard


def label_shard(recipe, rnd: int, index: int, label: str, jobs: int = 1,
                play: str = "") -> dict:
    """The rows of shard `index` of round `rnd`, sparse (`to_sparse`), and `cut`: its games
    the engine's safety limits stopped (the recorder keeps no row of them).  With `play`,
    the labelling seat plays that policy's answers, `label`'s recorded (DAgger)."""
    from .record import record

    specs, seat, first = shard_setup(recipe, rnd, index, label)
    behave = shard_setup(recipe, rnd, index, play)[0] if play else None
    rows = record(recipe.rules(), specs, seats=[seat], games=recipe.label_shard,
                  seed=run_seed(recipe.seed, STAGE_DISTIL, rnd), n_jobs=jobs,
                  first_game=first, obs_seats=recipe.players, chunk=2, play=behave)
    out = to_sparse(rows, keep_values=True)
    out["cut"] = int(rows["games_failed"])
    return out


def to_sparse(rows: dict, keep_values: bool) -> dict:
    """The recorder's rows with the observations as their non-zero entries: `cols`
    (int16) and `vals` (float32) row after row, `ptr` (int64, n + 1) where each row
    starts; the search's per-answer values with `keep_values` (float16: they are means of
    0/1 outcomes over a few hundred rollouts), which label shards always keep, so that a fit
    to soft targets (distil_temp) can be tried on labels already recorded."""
    obs = rows["obs"]
    r, c = np.nonzero(obs)
    ptr = np.zeros(len(obs) + 1, np.int64)
    np.cumsum(np.bincount(r, minlength=len(obs)), out=ptr[1:])
    out = {"cols": c.astype(np.int16), "vals": obs[r, c].astype(np.float32), "ptr": ptr,
           "mask": rows["mask"].astype(np.int8), "action": rows["action"].astype(np.int16),
           "won": rows["won"].astype(np.int8), "truth": rows["truth"].astype(np.int8)}
    out["value"] = rows["value"].astype(np.float16) if keep_values else \
        np.zeros((0, 0), np.float16)
    return out


def shard_bytes(shard: dict) -> bytes:
    """A shard as the bytes of a compressed .npz (numpy arrays only)."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **{k: shard[k] for k in SHARD_ARRAYS})
    return buf.getvalue()


def digest(data: bytes) -> str:
    """The SHA-256 a shard's bytes are recorded under."""
    return hashlib.sha256(data).hexdigest()


def shard_data(path: str, sha256: str) -> bytes:
    """A shard's bytes as this run wrote them: ValueError unless they have the recorded
    SHA-256."""
    from ..files import read_capped

    data = read_capped(path, SHARD_MAX_BYTES)
    if digest(data) != sha256:
        raise ValueError(f"{os.path.basename(path)} is not the shard this run wrote (its "
                         f"SHA-256 differs)")
    return data


def current_layout(data: bytes) -> bool:
    """Whether a shard's bytes hold every array of SHARD_ARRAYS (one written before the
    recorder kept the truth does not)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return set(SHARD_ARRAYS) <= set(z.files)


def read_shard(path: str, sha256: str) -> dict:
    """A shard this run wrote: ValueError unless its bytes have the recorded SHA-256."""
    with np.load(io.BytesIO(shard_data(path, sha256)), allow_pickle=False) as z:
        out = {k: z[k] for k in SHARD_ARRAYS if k in z}
    missing = [k for k in SHARD_ARRAYS if k not in out and k != "truth"]
    if missing:
        raise ValueError(f"{os.path.basename(path)} has no array {missing[0]!r}")
    if "truth" not in out:  # a shard written before the recorder kept the truth: unknown
        out["truth"] = np.full(len(out["action"]), -1, np.int8)
    return out


def concat(shards: list) -> dict:
    """One set of labels from several shards."""
    out = {k: np.concatenate([s[k] for s in shards]) for k in SHARD_ARRAYS
           if k not in ("ptr", "value")}
    ptrs, at = [], 0
    for s in shards:
        ptrs.append(s["ptr"][:-1] + at)
        at += int(s["ptr"][-1])
    out["ptr"] = np.concatenate(ptrs + [np.array([at], np.int64)])
    values = [s["value"] for s in shards]
    out["value"] = np.concatenate(values) if all(v.size for v in values) else None
    return out


def dense(data: dict, rows: np.ndarray, obs_size: int) -> np.ndarray:
    """The observations of `rows` (B, obs_size) float32 from the sparse labels."""
    start, stop = data["ptr"][rows], data["ptr"][rows + 1]
    n = stop - start
    at = np.repeat(start - np.concatenate([[0], np.cumsum(n)[:-1]]), n) + np.arange(n.sum())
    x = np.zeros((len(rows), obs_size), np.float32)
    x[np.repeat(np.arange(len(rows)), n), data["cols"][at]] = data["vals"][at]
    return x


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


def yes_no(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(yes, no) action ids of rows whose two legal answers are yes and no (a challenge, a
    catch, ...): yes is the lower id of the two (csrc/observe.c: a_yes = a_no - 1)."""
    m = np.asarray(mask, bool)
    return m.argmax(1), m.shape[1] - 1 - m[:, ::-1].argmax(1)


def challenge_targets(target: np.ndarray, mask: np.ndarray, truth: np.ndarray,
                      break_even: float) -> np.ndarray:
    """With `break_even` in (0, 1): the rows of a challenge (truth 0 or 1) get the answer
    the truth calls for (challenge a bluff, let a legal card pass) in `target`, and the
    row weights returned make the cross-entropy's optimum challenge exactly when the
    network's P(bluff) exceeds `break_even`: 2 (1 - b) on a bluff, 2 b on a legal card
    (the cost-sensitive weighting of Elkan, 2001); every other row weighs 1."""
    w = np.ones(len(target), np.float32)
    if not 0 < break_even < 1:
        return w
    rows = np.flatnonzero(truth >= 0)
    bluff = truth[rows] == 1
    yes, no = yes_no(mask[rows])
    target[rows] = 0.0
    target[rows, np.where(bluff, yes, no)] = 1.0
    w[rows] = np.where(bluff, 2 * (1 - break_even), 2 * break_even)
    return w


def search_values(data: dict) -> np.ndarray:
    """The value head's targets of `value_target` search: per row, the search's value
    (P(win the game), in [0, 1]) of the answer it took; its best valued answer's where that
    one has none; the game's outcome where none has (labels recorded without the values:
    the outcome throughout)."""
    won = data["won"].astype(np.float64)
    if data["value"] is None:
        return won
    out = np.empty(len(won))
    for a in range(0, len(won), 1 << 18):  # in blocks: the values' float copies stay small
        v = data["value"][a:a + (1 << 18)].astype(np.float64)
        taken = v[np.arange(len(v)), data["action"][a:a + len(v)].astype(np.int64)]
        best = np.where(np.isfinite(v), v, -np.inf).max(1)
        out[a:a + len(v)] = np.where(np.isfinite(taken), taken, best)
    return np.where(np.isfinite(out), out, won).clip(0, 1)


def fit(state, data: dict, rnd: int) -> dict:
    """`distil_epochs` passes of minibatch Adam steps on the labels `data` (`concat`);
    returns the last pass' mean losses and the share of the labels whose answer the network
    ranks first."""
    r = state.recipe
    net, opt = state.net, state.opt
    n = len(data["action"])
    action = data["action"].astype(np.int64)
    won = (search_values(data) if r.value_target == "search" else data["won"]).astype(
        np.float64)
    sums = np.zeros(3)
    for epoch in range(r.distil_epochs):
        rng = np.random.default_rng(np.random.SeedSequence([r.seed, STAGE_DISTIL, rnd, epoch]))
        order = rng.permutation(n)
        sums[:] = 0
        for s in range(0, n, r.minibatch):
            i = order[s:s + r.minibatch]
            mask = data["mask"][i].astype(bool)
            values = None if data["value"] is None or r.distil_temp <= 0 else \
                data["value"][i].astype(np.float32)
            target = policy_targets(mask, action[i], values, r.distil_temp)
            weight = challenge_targets(target, mask, data["truth"][i], r.challenge_break_even)
            logits, v, hs = net.forward(dense(data, i, net.obs_size), keep=True)
            logp = masked_log_softmax(logits, mask)
            # d (weighted) cross-entropy / d logits (0 off mask)
            dz = (np.exp(logp) - target) * weight[:, None] / len(i)
            sv = sigmoid(v[:, 0].astype(np.float64))
            dv = np.zeros(v.shape)
            dv[:, 0] = r.value_coef * (sv - won[i]) / len(i)
            if v.shape[1] > 1:
                dv[:, 1] = r.return_coef * (v[:, 1] - (2 * won[i] - 1)) / len(i)
            opt.step(net.backward(hs, dz, dv), lr=r.distil_lr, clip=r.grad_clip)
            ce = -(target * np.where(mask, logp, 0.0)).sum(1).mean()
            eps = 1e-7
            vl = -(won[i] * np.log(sv + eps) + (1 - won[i]) * np.log(1 - sv + eps)).mean()
            agree = (np.where(mask, logits, -np.inf).argmax(1) == action[i]).mean()
            sums += np.array([ce, vl, agree]) * len(i)
    ce, vl, agree = sums / max(1, n)
    return {"round": rnd, "labels": n, "policy_loss": float(ce), "value_loss": float(vl),
            "agreement": float(agree)}
