# The PRNG test hooks (included by _engine.pyx).
#
# Not part of the public API.  These expose the C generator (csrc/rng.h) so
# tests/test_rng.py can check it against the Python specification in
# uno_sim/rng.py.  ``key`` is a 4-tuple of uint64 (uno_sim.rng.key_from_seed);
# ``state`` is a raw 4-tuple xoshiro256** state.

cdef uno_rng _seeded(key, uint64_t game) except *:
    cdef uno_rng r
    cdef uint64_t k[4]
    cdef int i
    if len(key) != 4:
        raise ValueError("key must have four 64-bit words")
    for i in range(4):
        k[i] = key[i]
    uno_rng_seed(&r, k, game)
    return r


cdef uno_rng _raw(state) except *:
    cdef uno_rng r
    cdef int i
    if len(state) != 4:
        raise ValueError("state must have four 64-bit words")
    for i in range(4):
        r.s[i] = state[i]
    return r


cdef tuple _state(uno_rng *r):
    return (r.s[0], r.s[1], r.s[2], r.s[3])


cdef cnp.ndarray _next_array(uno_rng *r, Py_ssize_t n):
    cdef cnp.ndarray[cnp.uint64_t, ndim=1] out = np.empty(n, dtype=np.uint64)
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = uno_rng_next(r)
    return out


cdef cnp.ndarray _bounded_array(uno_rng *r, uint32_t bound, Py_ssize_t n):
    cdef cnp.ndarray[cnp.uint64_t, ndim=1] out = np.empty(n, dtype=np.uint64)
    cdef Py_ssize_t i
    if bound < 1:
        raise ValueError("bound must be >= 1")
    for i in range(n):
        out[i] = uno_rng_bounded(r, bound)
    return out


def rng_decision_words(key, uint64_t game, uint64_t round, int seat, int kind, Py_ssize_t n):
    """First ``n`` words of decision stream (seat, kind) of a round (uint64 array)."""
    cdef uno_rng r = _seeded(key, game)
    cdef uint64_t rk = uno_rng_dec_round_key(&r, round)
    cdef cnp.ndarray[cnp.uint64_t, ndim=1] out = np.empty(n, dtype=np.uint64)
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = uno_rng_dec_word(rk, seat, kind, <uint32_t>i)
    return out


def rng_seed_state(key, uint64_t game):
    """State after ``uno_rng_seed(key, game)``, as a 4-tuple."""
    cdef uno_rng r = _seeded(key, game)
    return _state(&r)


def rng_deal_state(key, uint64_t game, uint64_t round):
    """State of round ``round``'s deal stream of game ``game``, as a 4-tuple."""
    cdef uno_rng r = _seeded(key, game)
    cdef uno_rng d
    uno_rng_seed_deal(&d, &r, round)
    return _state(&d)


def rng_stream(key, uint64_t game, Py_ssize_t n):
    """First ``n`` ``uno_rng_next`` outputs of game ``game`` (uint64 array)."""
    cdef uno_rng r = _seeded(key, game)
    return _next_array(&r, n)


def rng_bounded_stream(key, uint64_t game, uint32_t bound, Py_ssize_t n):
    """``n`` draws of ``uno_rng_bounded(bound)`` (uint64 array)."""
    cdef uno_rng r = _seeded(key, game)
    return _bounded_array(&r, bound, n)


def rng_uniform_stream(key, uint64_t game, Py_ssize_t n):
    """``n`` draws of ``uno_rng_uniform()`` (float64 array)."""
    cdef uno_rng r = _seeded(key, game)
    cdef cnp.ndarray[cnp.float64_t, ndim=1] out = np.empty(n, dtype=np.float64)
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = uno_rng_uniform(&r)
    return out


def rng_bernoulli_stream(key, uint64_t game, double p, Py_ssize_t n):
    """``n`` draws of ``uno_rng_bernoulli(p)`` and the final state.

    Returns ``(bool array, state tuple)``.
    """
    cdef uno_rng r = _seeded(key, game)
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] out = np.empty(n, dtype=np.uint8)
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = uno_rng_bernoulli(&r, p)
    return out.astype(bool), _state(&r)


def rng_shuffle(key, uint64_t game, int n):
    """``uno_rng_shuffle_u8`` applied to ``range(n)`` (uint8 array, n <= 255)."""
    if not 0 <= n <= 255:
        raise ValueError("n must be in [0, 255]")
    cdef uno_rng r = _seeded(key, game)
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] out = np.arange(n, dtype=np.uint8)
    uno_rng_shuffle_u8(&r, <uint8_t *>cnp.PyArray_DATA(out), n)
    return out


def rng_raw_stream(state, Py_ssize_t n):
    """``n`` ``uno_rng_next`` outputs from a raw state; returns (array, final state)."""
    cdef uno_rng r = _raw(state)
    out = _next_array(&r, n)
    return out, _state(&r)


def rng_raw_bounded(state, uint32_t bound, Py_ssize_t n):
    """``n`` ``uno_rng_bounded(bound)`` draws from a raw state; returns (array, final state)."""
    cdef uno_rng r = _raw(state)
    out = _bounded_array(&r, bound, n)
    return out, _state(&r)
