"""The C generator (csrc/rng.h) against its Python specification (uno_sim/rng.py)."""

import numpy as np
import pytest

from uno_sim import _engine
from uno_sim.rng import MASK64, Rng, key_from_seed, mix

SEEDS = [0, 1, 12345, 2**63 + 7]
GAMES = [0, 1, 2, 1000, 2**64 - 1]
BOUNDS = [1, 2, 3, 7, 52, 108, 2**31 + 5]


def keys_and_games():
    for seed in SEEDS:
        key = key_from_seed(seed)
        for game in GAMES:
            yield key, game


CASES = list(keys_and_games())
CASE_IDS = [f"key{i // len(GAMES)}-game{g}" for i, (_, g) in enumerate(CASES)]


# --- reference values -------------------------------------------------------

def test_xoshiro_reference_sequence_python():
    # Published xoshiro256** outputs from the raw state {1, 2, 3, 4}.
    rng = Rng.from_state((1, 2, 3, 4))
    got = [rng.next_u64() for _ in range(4)]
    assert got == [11520, 0, 1509978240, 1215971899390074240]


def test_xoshiro_reference_sequence_c():
    got, _ = _engine.rng_raw_stream((1, 2, 3, 4), 4)
    assert got.tolist() == [11520, 0, 1509978240, 1215971899390074240]


def test_golden_seeded_outputs():
    # Pinned: changing these changes every simulation result ever published.
    key = key_from_seed(12345)
    rng = Rng(key, 0)
    assert [rng.next_u64() for _ in range(3)] == GOLDEN_12345_GAME0
    assert _engine.rng_stream(key, 0, 3).tolist() == GOLDEN_12345_GAME0


GOLDEN_12345_GAME0 = [4472184323796860381, 14760367215524709064, 17534148818933915045]


def test_mix_is_splitmix64():
    # splitmix64 seeded with 0 outputs mix(0), mix(golden), ... ; published
    # first outputs: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4.
    assert mix(0) == 0xE220A8397B1DCDAF
    assert mix(0x9E3779B97F4A7C15) == 0x6E789E6AA1B965F4


# --- C == Python ------------------------------------------------------------

@pytest.mark.parametrize("key,game", CASES, ids=CASE_IDS)
def test_seed_state_matches(key, game):
    assert _engine.rng_seed_state(key, game) == Rng(key, game).state


@pytest.mark.parametrize("key,game", CASES, ids=CASE_IDS)
def test_next_u64_matches(key, game):
    rng = Rng(key, game)
    expected = [rng.next_u64() for _ in range(1000)]
    got = _engine.rng_stream(key, game, 1000)
    assert got.dtype == np.uint64
    assert got.tolist() == expected


@pytest.mark.parametrize("bound", BOUNDS)
@pytest.mark.parametrize("key,game", CASES[::3], ids=CASE_IDS[::3])
def test_bounded_matches(key, game, bound):
    rng = Rng(key, game)
    expected = [rng.bounded(bound) for _ in range(1000)]
    got = _engine.rng_bounded_stream(key, game, bound, 1000)
    assert got.tolist() == expected
    assert all(0 <= v < bound for v in expected)


def test_bounded_matches_long_stream_large_bound():
    key = key_from_seed(7)
    n = 2**31 + 5
    rng = Rng(key, 3)
    expected = [rng.bounded(n) for _ in range(100_000)]
    assert _engine.rng_bounded_stream(key, 3, n, 100_000).tolist() == expected


def _inverse_output(x):
    """The s[1] word whose xoshiro256** output is ``x``.

    The output rotl(s1 * 5, 7) * 9 depends on s[1] only and every step is a
    bijection mod 2**64, so it can be inverted exactly.
    """
    y = (x * pow(9, -1, 2**64)) & MASK64
    y = ((y >> 7) | (y << 57)) & MASK64
    return (y * pow(5, -1, 2**64)) & MASK64


def _state_forcing_rejection(n, times):
    """A raw state whose first ``times`` (1 or 2) outputs bounded(n) rejects.

    Rejection happens when low64(x * n) < t = 2**64 mod n, which a random x
    hits with probability below 2**-32, so it is constructed: write
    n = 2**a * m (m odd) and solve x * n = l (mod 2**64) for the largest
    multiple l of 2**a below t - the hardest case, right at the boundary.
    An output depends on s[1] alone, and the next step's s[1] is
    s[0] ^ s[1] ^ s[2], so s[2] picks the second output.
    """
    threshold = ((1 << 64) - n) % n
    assert threshold > 0, "powers of two never reject"
    pow2 = n & -n
    odd = n // pow2
    low = (threshold - 1) // pow2 * pow2
    x = (low // pow2) * pow(odd, -1, 2**64) & MASK64
    assert (x * n) & MASK64 == low < threshold
    s0, s1, s3 = 0x0123456789ABCDEF, _inverse_output(x), 0xFEDCBA9876543210
    if times == 1:
        s2 = 42
    else:
        s2 = s0 ^ s1 ^ _inverse_output(x)  # second output is x again
    return (s0, s1, s2, s3)


@pytest.mark.parametrize("times", [1, 2])
@pytest.mark.parametrize("bound", [3, 7, 52, 108, 2**31 + 5, 2**32 - 1])
def test_bounded_rejection_loop_matches(bound, times):
    state = _state_forcing_rejection(bound, times)
    # The Python side really rejects: bounded() consumes times + 1 outputs.
    rng = Rng.from_state(state)
    value = rng.bounded(bound)
    stepped = Rng.from_state(state)
    outputs = [stepped.next_u64() for _ in range(times + 1)]
    assert rng.state == stepped.state
    assert value == (outputs[-1] * bound) >> 64
    # ... and C does exactly the same, here and on the draws that follow.
    py = Rng.from_state(state)
    expected = [py.bounded(bound) for _ in range(50)]
    got, final = _engine.rng_raw_bounded(state, bound, 50)
    assert got.tolist() == expected
    assert final == py.state


@pytest.mark.parametrize("key,game", CASES[::2], ids=CASE_IDS[::2])
def test_uniform_matches(key, game):
    rng = Rng(key, game)
    expected = [rng.uniform() for _ in range(1000)]
    got = _engine.rng_uniform_stream(key, game, 1000)
    assert got.dtype == np.float64
    assert got.tolist() == expected  # exact: both are (x >> 11) * 2**-53
    assert all(0.0 <= v < 1.0 for v in expected)


@pytest.mark.parametrize("n", [0, 1, 2, 52, 108, 255])
@pytest.mark.parametrize("key,game", CASES[::4], ids=CASE_IDS[::4])
def test_shuffle_matches(key, game, n):
    items = list(range(n))
    Rng(key, game).shuffle(items)
    got = _engine.rng_shuffle(key, game, n)
    assert got.dtype == np.uint8
    assert got.tolist() == items
    assert sorted(items) == list(range(n))


@pytest.mark.parametrize("p", [0.0, 0.25, 0.5, 0.999])
def test_bernoulli_matches(p):
    key = key_from_seed(99)
    rng = Rng(key, 5)
    expected = [rng.bernoulli(p) for _ in range(1000)]
    got, final = _engine.rng_bernoulli_stream(key, 5, p, 1000)
    assert got.tolist() == expected
    assert final == rng.state


# --- behaviour ----------------------------------------------------------------

@pytest.mark.parametrize("p", [0.0, -0.5, 1.0, 1.5])
def test_bernoulli_certain_consumes_nothing(p):
    key = key_from_seed(2024)
    rng = Rng(key, 11)
    before = rng.state
    assert all(rng.bernoulli(p) == (p >= 1) for _ in range(10))
    assert rng.state == before
    got, final = _engine.rng_bernoulli_stream(key, 11, p, 10)
    assert got.tolist() == [p >= 1] * 10
    assert final == before


def test_bounded_unbiased_chi_square():
    draws = _engine.rng_bounded_stream(key_from_seed(31337), 0, 6, 60_000)
    counts = np.bincount(draws.astype(np.int64), minlength=6)
    assert counts.sum() == 60_000 and len(counts) == 6
    expected = 60_000 / 6
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    # 5 degrees of freedom: P(chi2 > 25.7) = 1e-4.  The seed is fixed, so the
    # test is deterministic; the threshold only guards against gross bias.
    assert chi2 < 25.7, (chi2, counts)


def test_games_get_distinct_streams():
    key = key_from_seed(1)
    firsts = {Rng(key, g).next_u64() for g in range(1000)}
    assert len(firsts) == 1000


def test_key_from_seed_matches_seedsequence():
    key = key_from_seed(12345)
    assert len(key) == 4 and all(isinstance(k, int) for k in key)
    ref = np.random.SeedSequence(12345).generate_state(4, dtype=np.uint64)
    assert key == tuple(int(w) for w in ref)
    assert key_from_seed(12346) != key


# --- deal streams (paired designs) -------------------------------------------

@pytest.mark.parametrize("key,game", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("round_", [0, 1, 2, 37])
def test_deal_state_matches(key, game, round_):
    assert _engine.rng_deal_state(key, game, round_) == Rng(key, game).deal(round_).state


def test_deal_streams_are_distinct_per_round_and_from_the_play_stream():
    rng = Rng(key_from_seed(3), 5)
    states = {rng.state} | {rng.deal(r).state for r in range(50)}
    assert len(states) == 51


@pytest.mark.parametrize("engine", ["reference", "c"])
def test_same_seed_deals_every_round_alike_whatever_the_policies(engine):
    """The paired-design guarantee: round r's deck depends on (seed, game, r) only."""
    import uno_sim

    def decks(policies):
        res = uno_sim.play_game(players=3, target=150, seed=9, game=11, policies=policies,
                                trace=True, engine=engine)
        return [e["deck"] for e in res.events if e["e"] == "round_start"]

    a = decks("greedy")
    b = decks(["random(bluff=0.5,challenge=0.5)", "greedy(forget_uno=0.5)", "random"])
    n = min(len(a), len(b))
    assert n >= 2
    assert a[:n] == b[:n]


def test_shuffle_is_uniform_on_small_decks():
    """Every permutation of 4 items equally likely (chi-square, 23 degrees of freedom)."""
    from collections import Counter

    rng = Rng(key_from_seed(11), 0)
    n = 24_000
    counts = Counter()
    for _ in range(n):
        items = [0, 1, 2, 3]
        rng.shuffle(items)
        counts[tuple(items)] += 1
    assert len(counts) == 24
    chi2 = sum((c - n / 24) ** 2 / (n / 24) for c in counts.values())
    assert chi2 < 49.7  # the 0.999 quantile of chi-square(23)


def test_shuffle_positions_are_uniform_on_108_cards():
    """Where card 0 and card 107 land over many C shuffles (chi-square, 107 d.o.f.)."""
    key = key_from_seed(12)
    n = 21_600
    for card in (0, 107):
        pos = np.zeros(108)
        for g in range(n):
            pos[_engine.rng_shuffle(key, g, 108).tolist().index(card)] += 1
        chi2 = (((pos - n / 108) ** 2) / (n / 108)).sum()
        assert chi2 < 161.0, (card, chi2)  # the 0.9995 quantile of chi-square(107)


# --- decision streams (true common random numbers) ------------------------------

@pytest.mark.parametrize("key,game", CASES[::3], ids=CASE_IDS[::3])
@pytest.mark.parametrize("round_,seat,kind", [(0, 0, 0), (1, 3, 1), (12, 9, 11), (2**40, 5, 15)])
def test_decision_words_match(key, game, round_, seat, kind):
    from uno_sim.rng import DecisionStreams, seed_state

    got = _engine.rng_decision_words(key, game, round_, seat, kind, 20).tolist()
    streams = DecisionStreams(seed_state(key, game))
    streams.new_round(round_)
    assert got == [streams.word(seat, kind) for _ in range(20)]


def test_decision_streams_are_distinct_and_look_independent():
    """Every (round, seat, kind) stream differs, and their uniforms are uncorrelated."""
    from scipy import stats

    key = key_from_seed(77)
    first = {}
    for game in range(3):
        for round_ in range(4):
            for seat in range(10):
                for kind in range(12):
                    w = _engine.rng_decision_words(key, game, round_, seat, kind, 1)[0]
                    first[(game, round_, seat, kind)] = int(w)
    assert len(set(first.values())) == len(first)
    # neighbouring streams (seat s and s + 1, kind k and k + 1, round r and r + 1) give
    # uncorrelated uniforms, and each is uniform (Kolmogorov-Smirnov)
    n = 4000
    u = {c: (_engine.rng_decision_words(key, 0, c[0], c[1], c[2], n) >> np.uint64(11))
         .astype(np.float64) * 2.0**-53 for c in [(1, 0, 1), (1, 1, 1), (1, 0, 2), (2, 0, 1)]}
    base = u[(1, 0, 1)]
    for c, x in u.items():
        assert stats.kstest(x, "uniform").pvalue > 1e-4
        if c != (1, 0, 1):
            r = np.corrcoef(base, x)[0, 1]
            assert abs(r) < 4 / np.sqrt(n), (c, r)  # 4 standard errors


@pytest.mark.parametrize("engine", ["reference", "c"])
def test_an_extra_draw_moves_no_other_decision(engine):
    """A bluff knob at 1e-12 draws from the bluff stream only: the game is the same."""
    import uno_sim

    for game in range(3):
        a = uno_sim.play_game(players=4, seed=3, game=game, trace=True, engine=engine,
                              policies=["greedy(bluff=0)", "random", "greedy", "strategic"])
        b = uno_sim.play_game(players=4, seed=3, game=game, trace=True, engine=engine,
                              policies=["greedy(bluff=1e-12)", "random", "greedy", "strategic"])
        assert a.events[1:] == b.events[1:]  # all but game_start, which names the policies
