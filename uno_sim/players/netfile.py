"""The network player's weight file (`.unonet`) and the numpy twin of its forward pass.

docs/net.md states the format and the forward pass; this module is their Python side:
`read` / `write` the file (every field checked on read: a bad file is one `NetFileError`
line naming the file and what is wrong), `Net.new` a network of random weights,
`forward` (the normative loop: float32, inputs equal to zero skipped, one product and
one sum per weight in input order, so that the C player, csrc/net.c, and the GPU kernel
give the same bits), `decide` (the player's answer from the logits) and `forward_batch`
(the same network on many observations at once with matrix products: fast, not
bit-exact).  Training writes its weights only through `write`.

A network reads the observation of the vector environment (docs/env.md,
"Observation", the vector env's scaling) for a deck of `n_kinds` card kinds and
`seats` seat slots, with the UNO Flip blocks when `flip` and UNO Extreme's when
`extreme`; it answers with one logit per action id (`n_actions` = n_kinds + 7 + seats)
and a value (the logit of winning the game).
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field

import numpy as np

from ..rules import RulesError

__all__ = ["MAGIC", "VERSION", "MAX_LAYERS", "MAX_WIDTH", "MAX_FILE_BYTES", "NetFileError",
           "Net", "obs_size", "fnv1a64", "read", "write", "from_bytes", "forward", "decide",
           "forward_batch", "win_probability"]

MAGIC = b"UNONET\0\0"
VERSION = 1
MAX_LAYERS = 4  # hidden layers (uno.h UNO_NET_MAX_LAYERS)
MAX_WIDTH = 1024  # units of a hidden layer (uno.h UNO_NET_MAX_WIDTH)
MAX_KINDS = 255  # card kinds of a deck (uno.h UNO_MAX_KINDS)
MAX_SEATS = 10  # seat slots (uno.h UNO_MAX_PLAYERS)
MAX_FILE_BYTES = 64 * 2**20  # the largest file read (the largest network is about 35 MB)
METADATA_MAX = 2**20  # bytes of metadata JSON
_PREAMBLE = struct.Struct("<8sII")  # magic, version, header bytes
_HEADER = struct.Struct("<11iI")  # n_kinds, seats, flip, extreme, obs_size, n_actions,
#                                   n_layers, widths[4]; metadata bytes
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK64 = (1 << 64) - 1


class NetFileError(RulesError):
    """A weight file that cannot be used: one line naming the file and the problem."""


def obs_size(n_kinds: int, seats: int, flip: bool, extreme: bool) -> int:
    """The observation's length for this layout (csrc/observe.c uno_obs_layout_init)."""
    k, s = n_kinds, seats
    size = 11 + k + k + 8 + 1 + s + s + s + 8 * s + s + 1 + k + 1 + 1 + 1 + 1 + s + 8 + s + k + s + k
    if flip:
        size += 1 + s * k + k
    if extreme:
        size += 1
    return size


def fnv1a64(data, h: int = _FNV_OFFSET) -> int:
    """FNV-1a 64 of `data` (bytes-like) from state `h` (the C engine computes it)."""
    from .. import _engine

    return _engine.fnv1a64(bytes(data) if not isinstance(data, (bytes, bytearray)) else data, h)


@dataclass
class Net:
    """A network: its observation layout, its hidden layers (W input-major [in][out], b
    [out], float32), its policy head (W [H_L][n_actions], b) and value head (W [H_L][1],
    b [1]), and free-form metadata (JSON-able).  `checksum` is the file's trailer (0 for
    a network not read from or written to a file); `name` names it in messages."""

    n_kinds: int
    seats: int
    flip: bool
    extreme: bool
    hidden: list  # [(W, b), ...], 1..MAX_LAYERS
    policy: tuple  # (W, b)
    value: tuple  # (W, b)
    metadata: dict = field(default_factory=dict)
    checksum: int = 0
    name: str = "<network>"

    @property
    def obs_size(self) -> int:
        """The observation's length (the first layer's inputs)."""
        return obs_size(self.n_kinds, self.seats, self.flip, self.extreme)

    @property
    def n_actions(self) -> int:
        """Action ids: n_kinds + 7 + seats (the policy head's outputs)."""
        return self.n_kinds + 7 + self.seats

    @property
    def widths(self) -> tuple:
        """The hidden layers' widths."""
        return tuple(int(b.shape[0]) for _, b in self.hidden)

    def arrays(self) -> list:
        """Every weight array in file order: W, b per hidden layer, then the policy head's
        and the value head's."""
        out = []
        for w, b in list(self.hidden) + [self.policy, self.value]:
            out += [w, b]
        return out

    def layout(self) -> tuple:
        """(n_kinds, seats, flip, extreme): what a game must match to use the network."""
        return (self.n_kinds, self.seats, bool(self.flip), bool(self.extreme))

    @classmethod
    def new(cls, n_kinds: int, seats: int, flip: bool, extreme: bool, widths, seed: int = 0,
            metadata: dict | None = None) -> "Net":
        """Random weights (He-scaled normal W from numpy's Generator seeded by `seed`, zero
        biases), e.g. a network training starts from or a test's network."""
        rng = np.random.default_rng(seed)
        sizes = [obs_size(n_kinds, seats, flip, extreme)] + [int(w) for w in widths]
        _check_shape("<new>", n_kinds, seats, len(widths), list(widths))
        layers = []
        for i in range(len(widths)):
            w = rng.standard_normal((sizes[i], sizes[i + 1])) * math.sqrt(2.0 / sizes[i])
            layers.append((w.astype(np.float32), np.zeros(sizes[i + 1], np.float32)))
        h = sizes[-1]
        n_act = n_kinds + 7 + seats
        pw = (rng.standard_normal((h, n_act)) * math.sqrt(1.0 / h)).astype(np.float32)
        vw = (rng.standard_normal((h, 1)) * math.sqrt(1.0 / h)).astype(np.float32)
        return cls(n_kinds, seats, bool(flip), bool(extreme), layers,
                   (pw, np.zeros(n_act, np.float32)), (vw, np.zeros(1, np.float32)),
                   dict(metadata or {}))

    def to_bytes(self) -> bytes:
        """The file's bytes (docs/net.md "The weight file"); checks the shapes first."""
        self.check()
        meta = json.dumps(self.metadata, sort_keys=True, separators=(",", ":")).encode("utf-8")
        if len(meta) > METADATA_MAX:
            raise NetFileError(f"{self.name}: metadata of {len(meta)} bytes, at most "
                               f"{METADATA_MAX}")
        widths = list(self.widths) + [0] * (MAX_LAYERS - len(self.hidden))
        head = _HEADER.pack(self.n_kinds, self.seats, int(self.flip), int(self.extreme),
                            self.obs_size, self.n_actions, len(self.hidden), *widths, len(meta))
        head += meta + b"\0" * (-(len(head) + len(meta)) % 8)  # floats start 8-aligned
        body = b"".join(np.ascontiguousarray(a, dtype="<f4").tobytes() for a in self.arrays())
        data = _PREAMBLE.pack(MAGIC, VERSION, len(head)) + head + body
        return data + struct.pack("<Q", fnv1a64(data))

    def check(self) -> None:
        """NetFileError unless every array has the shape the layout and widths give, and
        every weight is a finite float32."""
        _check_shape(self.name, self.n_kinds, self.seats, len(self.hidden), list(self.widths))
        sizes = [self.obs_size] + list(self.widths)
        want = []
        for i in range(len(self.hidden)):
            want += [(sizes[i], sizes[i + 1]), (sizes[i + 1],)]
        want += [(sizes[-1], self.n_actions), (self.n_actions,), (sizes[-1], 1), (1,)]
        for j, (a, shape) in enumerate(zip(self.arrays(), want)):
            if not isinstance(a, np.ndarray) or a.dtype != np.float32 or a.shape != shape:
                got = (a.dtype, a.shape) if isinstance(a, np.ndarray) else type(a).__name__
                raise NetFileError(f"{self.name}: weight array {j} is {got}, expected float32 "
                                   f"{shape}")
            if not np.isfinite(a).all():
                raise NetFileError(f"{self.name}: weight array {j} holds a value that is not "
                                   f"finite")


def _check_shape(name, n_kinds, seats, n_layers, widths) -> None:
    if not 1 <= n_kinds <= MAX_KINDS:
        raise NetFileError(f"{name}: {n_kinds} card kinds, expected 1..{MAX_KINDS}")
    if not 2 <= seats <= MAX_SEATS:
        raise NetFileError(f"{name}: {seats} seats, expected 2..{MAX_SEATS}")
    if not 1 <= n_layers <= MAX_LAYERS:
        raise NetFileError(f"{name}: {n_layers} hidden layers, expected 1..{MAX_LAYERS}")
    for w in widths:
        if not 1 <= w <= MAX_WIDTH:
            raise NetFileError(f"{name}: a hidden layer of width {w}, expected 1..{MAX_WIDTH}")


def from_bytes(data: bytes, name: str = "<bytes>") -> Net:
    """The network a file's bytes hold; NetFileError (naming `name`) when anything is
    wrong: magic, version, sizes, file length, non-finite weights, checksum."""
    def bad(what):
        return NetFileError(f"{name}: {what}")

    if len(data) < _PREAMBLE.size + _HEADER.size + 8:
        raise bad(f"not a network weight file (only {len(data)} bytes)")
    magic, version, head_len = _PREAMBLE.unpack_from(data, 0)
    if magic != MAGIC:
        raise bad("not a network weight file (no UNONET magic)")
    if version != VERSION:
        raise bad(f"weight file version {version}, this uno_sim reads version {VERSION}")
    stored = struct.unpack_from("<Q", data, len(data) - 8)[0]
    if fnv1a64(memoryview(data)[:-8]) != stored:
        raise bad("checksum mismatch (the file is damaged or was changed)")
    if head_len < _HEADER.size or _PREAMBLE.size + head_len > len(data) - 8:
        raise bad(f"header length {head_len} does not fit the file")
    fields = _HEADER.unpack_from(data, _PREAMBLE.size)
    n_kinds, seats, flip, extreme, size, n_act, n_layers = fields[:7]
    widths, meta_len = list(fields[7:11]), fields[11]
    if flip not in (0, 1) or extreme not in (0, 1):
        raise bad(f"flip {flip} and extreme {extreme}: each 0 or 1 expected")
    if not 1 <= n_layers <= MAX_LAYERS:
        raise bad(f"{n_layers} hidden layers, expected 1..{MAX_LAYERS}")
    if any(w != 0 for w in widths[n_layers:]):
        raise bad(f"widths {widths}: the unused ones must be 0")
    _check_shape(name, n_kinds, seats, n_layers, widths[:n_layers])
    if size != obs_size(n_kinds, seats, flip, extreme):
        raise bad(f"observation size {size}, the layout (kinds {n_kinds}, seats {seats}, "
                  f"flip {flip}, extreme {extreme}) has {obs_size(n_kinds, seats, flip, extreme)}")
    if n_act != n_kinds + 7 + seats:
        raise bad(f"{n_act} actions, the layout has {n_kinds + 7 + seats}")
    if meta_len > head_len - _HEADER.size:
        raise bad(f"metadata of {meta_len} bytes does not fit the header")
    at = _PREAMBLE.size + _HEADER.size
    try:
        metadata = json.loads(data[at:at + meta_len].decode("utf-8")) if meta_len else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise bad(f"metadata is not UTF-8 JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(metadata, dict):
        raise bad("metadata is not a JSON object")
    sizes = [size] + widths[:n_layers]
    shapes = []
    for i in range(n_layers):
        shapes += [(sizes[i], sizes[i + 1]), (sizes[i + 1],)]
    shapes += [(sizes[-1], n_act), (n_act,), (sizes[-1], 1), (1,)]
    n_floats = sum(math.prod(s) for s in shapes)
    body = _PREAMBLE.size + head_len
    if len(data) != body + 4 * n_floats + 8:
        raise bad(f"{len(data)} bytes, the header's sizes need {body + 4 * n_floats + 8}")
    flat = np.frombuffer(data, dtype="<f4", count=n_floats, offset=body).astype(np.float32)
    if not np.isfinite(flat).all():
        raise bad("a weight is not finite")
    arrays, at = [], 0
    for s in shapes:
        n = math.prod(s)
        arrays.append(flat[at:at + n].reshape(s))
        at += n
    hidden = [(arrays[2 * i], arrays[2 * i + 1]) for i in range(n_layers)]
    return Net(n_kinds, seats, bool(flip), bool(extreme), hidden,
               (arrays[-4], arrays[-3]), (arrays[-2], arrays[-1]), metadata, stored, name)


def read(path) -> Net:
    """The network in file `path`; NetFileError (one line naming the file) otherwise."""
    from ..files import FileLimitError, read_capped

    try:
        data = read_capped(path, MAX_FILE_BYTES)
    except FileLimitError as exc:
        raise NetFileError(f"{path}: {exc}") from None
    except OSError as exc:
        raise NetFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    return from_bytes(data, str(path))


def write(path, net: Net) -> int:
    """Writes `net` to `path` (replacing it atomically); returns the checksum, which is
    also set on `net`."""
    import os

    from ..files import writing

    data = net.to_bytes()
    tmp = f"{path}.tmp{os.getpid()}"
    with writing(path):
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    net.checksum = struct.unpack_from("<Q", data, len(data) - 8)[0]
    return net.checksum


def _layer(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The normative loop of one layer: a = b, then for each input i in order with
    x[i] != 0, a = a + x[i] * W[i] (one float32 product, one float32 sum per weight)."""
    a = b.astype(np.float32, copy=True)
    for i in np.flatnonzero(x != 0):
        a = a + x[i] * w[i]
    return a


def forward(net: Net, x) -> tuple:
    """(logits float32 [n_actions], value float32): the normative forward pass on one
    observation, bit for bit what the C player computes."""
    h = np.asarray(x, dtype=np.float32).reshape(-1)
    if h.shape[0] != net.obs_size:
        raise ValueError(f"observation of {h.shape[0]} entries, the network reads {net.obs_size}")
    for w, b in net.hidden:
        a = _layer(h, w, b)
        h = np.where(a > 0, a, np.float32(0)).astype(np.float32)
    return _layer(h, *net.policy), _layer(h, *net.value)[0]


def decide(logits, mask) -> int:
    """The player's answer: the legal action (mask != 0) with the highest logit, the lowest
    action id among equals (a scan in id order that takes a strictly greater logit); -1
    when nothing is legal."""
    best = -1
    for a in np.flatnonzero(np.asarray(mask) != 0):
        if best < 0 or logits[a] > logits[best]:
            best = int(a)
    return best


def forward_batch(net: Net, obs) -> tuple:
    """(logits [n, n_actions], values [n]) float32 for a batch of observations [n, obs_size]:
    matrix products (fast; rounding may differ from `forward` in the last bits)."""
    h = np.asarray(obs, dtype=np.float32)
    for w, b in net.hidden:
        h = np.maximum(h @ w + b, np.float32(0))
    return h @ net.policy[0] + net.policy[1], (h @ net.value[0] + net.value[1])[:, 0]


def win_probability(value) -> float:
    """P(win the game) from the value head's output: 1 / (1 + exp(-v)) in double."""
    return 1.0 / (1.0 + math.exp(-float(value)))
