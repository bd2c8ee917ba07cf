"""Pseudo-random number generator: the executable specification.

This module is the reference for ``csrc/rng.h``; both must produce
bit-identical streams (``tests/test_rng.py`` checks this).  It is written for
clarity, not speed: plain Python integers, masked to 64 bits after every
operation that can overflow.

Generator: xoshiro256** (Blackman & Vigna), seeded through splitmix64's mix
function.  A run's seed is expanded into a 256-bit key with numpy's
``SeedSequence``; every game of the run then gets its own independent stream
derived from ``(key, game)``, so games can be simulated in any order, on any
number of workers, and replayed one at a time.
"""

from __future__ import annotations

import numpy as np

from .errors import RulesError

MASK64 = (1 << 64) - 1

# Odd multiplier that spreads the game number over all 64 bits before mixing.
GAME_MULTIPLIER = 0xD1B54A32D192ED03


def key_from_seed(seed: int) -> tuple[int, int, int, int]:
    """Expand a user seed into the run's 256-bit key (four uint64 words)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise RulesError(f"invalid seed {seed!r}: expected a non-negative integer")
    words = np.random.SeedSequence(seed).generate_state(4, dtype=np.uint64)
    return tuple(int(w) for w in words)  # type: ignore[return-value]


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


def mix(z: int) -> int:
    """splitmix64's output function: an avalanche mix of a 64-bit word."""
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def seed_state(key: tuple[int, int, int, int], game: int) -> tuple[int, int, int, int]:
    """The xoshiro256** state for game number ``game`` of the run ``key``."""
    g = (game * GAME_MULTIPLIER) & MASK64
    s = [mix(k ^ g) for k in key]
    if s == [0, 0, 0, 0]:
        # The all-zero state is xoshiro's only fixed point.
        s[0] = 1
    return tuple(s)  # type: ignore[return-value]


# The deal streams (see ``csrc/rng.h``, ``uno_rng_seed_deal``).
DEAL_TAG = 0x243F6A8885A308D3
ROUND_MULTIPLIER = 0x9E6C63D0676A9A99


def deal_state(seeded: tuple[int, int, int, int], round_: int) -> tuple[int, int, int, int]:
    """The state of round ``round_``'s deal stream (round 0: the dealer draw).

    ``seeded`` is the state the game's generator started from.  The table's
    randomness (dealer draw, shuffles, starter cards put back, reshuffles)
    comes from these streams and the policies' from the game's generator, so
    the same (seed, game) deals every round identically whatever the policies
    decide: the basis of paired designs.
    """
    r = DEAL_TAG ^ ((round_ * ROUND_MULTIPLIER) & MASK64)
    s = [mix(w ^ r) for w in seeded]
    if s == [0, 0, 0, 0]:
        s[0] = 1
    return tuple(s)  # type: ignore[return-value]


def bounded_from(next_word, n: int) -> int:
    """Uniform integer in ``[0, n)`` for ``1 <= n < 2**32`` from ``next_word()``, a source
    of uniform 64-bit words (a generator, or a decision stream).

    Lemire's multiply-and-reject method: unbiased, and in the common case
    a single multiplication with no division.
    """
    if not 1 <= n < 1 << 32:
        raise ValueError("bounded(n) needs 1 <= n < 2**32")
    m = next_word() * n
    low = m & MASK64
    if low < n:
        threshold = ((1 << 64) - n) % n
        while low < threshold:
            m = next_word() * n
            low = m & MASK64
    return m >> 64


def unit(word: int) -> float:
    """A 64-bit word as a float in ``[0, 1)``, from its top 53 bits."""
    return (word >> 11) * 2.0**-53


def bernoulli_from(next_word, p: float) -> bool:
    """True with probability ``p``.

    ``p <= 0`` and ``p >= 1`` are decided without consuming the source,
    so a deterministic decision leaves the rest of the game unchanged.
    """
    if p <= 0:
        return False
    if p >= 1:
        return True
    return unit(next_word()) < p


class Rng:
    """xoshiro256** generator for one game.

    ``Rng(key, game)`` seeds from a run key (see :func:`key_from_seed`) and a
    game number.  ``Rng.from_state(s)`` starts from a raw state instead, which
    is only useful for testing against published reference outputs.
    """

    def __init__(self, key, game: int = 0):
        if len(key) != 4:
            raise ValueError("key must have four 64-bit words")
        key = tuple(int(k) & MASK64 for k in key)
        self._s = list(seed_state(key, int(game) & MASK64))

    @classmethod
    def from_state(cls, state) -> "Rng":
        """A generator whose raw xoshiro256** state is exactly ``state``."""
        if len(state) != 4:
            raise ValueError("state must have four 64-bit words")
        rng = cls.__new__(cls)
        rng._s = [int(w) & MASK64 for w in state]
        return rng

    def deal(self, round_: int) -> "Rng":
        """Round ``round_``'s deal stream, derived from this generator's state."""
        return Rng.from_state(deal_state(self.state, round_))

    @property
    def state(self) -> tuple[int, int, int, int]:
        """The four 64-bit words of the generator state."""
        return tuple(self._s)  # type: ignore[return-value]

    def next_u64(self) -> int:
        """One raw xoshiro256** output: a uniform 64-bit unsigned integer."""
        s = self._s
        result = (_rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def bounded(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` for ``1 <= n < 2**32`` (`bounded_from`)."""
        return bounded_from(self.next_u64, n)

    def uniform(self) -> float:
        """Uniform float in ``[0, 1)`` built from the top 53 bits."""
        return unit(self.next_u64())

    def bernoulli(self, p: float) -> bool:
        """True with probability ``p`` (`bernoulli_from`)."""
        return bernoulli_from(self.next_u64, p)

    def shuffle(self, items: list) -> None:
        """Fisher-Yates shuffle in place, swapping from the end downwards."""
        for i in range(len(items) - 1, 0, -1):
            j = self.bounded(i + 1)
            items[i], items[j] = items[j], items[i]


# The decision streams (see ``csrc/rng.h``, "Decision streams").
DEC_TAG = 0x13198A2E03707344
DEC_MULTIPLIER = 0xA0761D6478BD642F
GAMMA = 0x9E3779B97F4A7C15
DK_SLOTS = 16  # streams per seat
# The kinds of random decision, each a stream per (round, seat) (uno.h UNO_DK_*).
(DK_PICK, DK_BLUFF, DK_VOLUNTARY, DK_CHALLENGE, DK_UNO, DK_CATCH, DK_PLAY_DRAWN, DK_COLOR,
 DK_TARGET, DK_STACK, DK_JUMP, DK_USER, DK_SEARCH) = range(13)  # DK_SEARCH: the C engine's
# search players only (csrc/search.c); the reference engine has none


def dec_round_key(seeded: tuple[int, int, int, int], round_: int) -> int:
    """The key of round ``round_``'s decision streams (``uno_rng_dec_round_key``)."""
    r = DEC_TAG ^ ((round_ * ROUND_MULTIPLIER) & MASK64)
    return mix(seeded[0] ^ mix(seeded[1] ^ r))


def dec_word(round_key: int, seat: int, kind: int, n: int) -> int:
    """The ``n``-th word of stream (seat, kind) of a round (``uno_rng_dec_word``)."""
    sid = seat * DK_SLOTS + kind + 1
    stream = mix(round_key ^ ((sid * DEC_MULTIPLIER) & MASK64))
    return mix((stream + n * GAMMA) & MASK64)


class DecisionStreams:
    """The policies' random numbers: one stream per (round, seat, kind of decision).

    Every random decision draws from the stream of the deciding seat and the
    kind of decision (``DK_*`` above, ``uno.h`` ``UNO_DK_*``), numbered from
    0 in each round, so two runs whose policies differ in one knob give every
    other decision the same numbers (true common random numbers).
    """

    def __init__(self, seeded: tuple[int, int, int, int]):
        self.seeded = seeded
        self.new_round(0)

    def new_round(self, round_: int) -> None:
        """Key the streams of round `round_` (every stream starts afresh)."""
        self.key = dec_round_key(self.seeded, round_)
        self.n: dict = {}

    def word(self, seat: int, kind: int) -> int:
        """The next 64-bit word of stream (seat, kind) in this round."""
        i = self.n.get((seat, kind), 0)
        self.n[(seat, kind)] = i + 1
        return dec_word(self.key, seat, kind, i)

    def bounded(self, seat: int, kind: int, n: int) -> int:
        """Uniform integer in ``[0, n)`` from stream (seat, kind) (`bounded_from`)."""
        return bounded_from(lambda: self.word(seat, kind), n)

    def bernoulli(self, seat: int, kind: int, p: float) -> bool:
        """True with probability ``p`` from stream (seat, kind) (`bernoulli_from`)."""
        return bernoulli_from(lambda: self.word(seat, kind), p)


class SeatStreams:
    """One seat's view of the decision streams: what its policy draws from."""

    def __init__(self, streams: DecisionStreams, seat: int):
        self.streams = streams
        self.seat = seat

    def bounded(self, kind: int, n: int) -> int:
        """Uniform integer in [0, n) from this seat's stream `kind`."""
        return self.streams.bounded(self.seat, kind, n)

    def bernoulli(self, kind: int, p: float) -> bool:
        """True with probability p from this seat's stream `kind`."""
        return self.streams.bernoulli(self.seat, kind, p)
