/*
 * rng.h - the simulator's pseudo-random number generator.
 *
 * xoshiro256** (Blackman & Vigna, https://prng.di.unimi.it/) seeded through
 * splitmix64.  Everything is `static inline` on purpose: the engine draws a
 * random number several times per turn, so a call through a separate
 * translation unit would cost more than the generator itself.
 *
 * The Python module uno_sim/rng.py is the executable specification of this
 * file; the two must produce bit-identical streams (tests/test_rng.py checks
 * it).  Any change here must be mirrored there, and vice versa.
 */
#ifndef UNO_RNG_H
#define UNO_RNG_H

#include "uno_port.h"

#ifndef UNO_CHECK
#define UNO_CHECK 0
#endif
#if UNO_CHECK && !UNO_DEVICE
#include <assert.h>
#endif

typedef struct uno_rng {
    uint64_t s[4];
} uno_rng;

UNO_HD static inline uint64_t uno_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/*
 * splitmix64's output function.  xoshiro must not start from a state with
 * structure (e.g. mostly zero bits, or states of neighbouring games that
 * differ in only a few bits), or its first outputs are visibly correlated;
 * this avalanche mix spreads every input bit over the whole word.
 */
UNO_HD static inline uint64_t uno_rng_mix(uint64_t z)
{
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/*
 * Seed the generator for game number `game` of a run whose 256-bit key comes
 * from numpy.random.SeedSequence(seed).generate_state(4, uint64).
 *
 * Each game gets its own stream derived only from (key, game), so games can
 * be simulated in any order, on any number of workers, and any single game
 * can be replayed in isolation.  The game number is spread by an odd
 * multiplier before mixing so that consecutive games do not feed mix()
 * inputs that differ in a single low bit.
 */
UNO_HD static inline void uno_rng_seed(uno_rng *r, const uint64_t key[4], uint64_t game)
{
    uint64_t g = game * UINT64_C(0xD1B54A32D192ED03);
    for (int i = 0; i < 4; i++)
        r->s[i] = uno_rng_mix(key[i] ^ g);
    /* The all-zero state is xoshiro's only fixed point; never start there. */
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = 1;
}

/*
 * The deal stream of round `round` of a game whose generator was seeded to
 * the state `seeded` (round 0 is the dealer draw).
 *
 * A game draws from two kinds of stream.  Policy decisions (bluffs,
 * challenges, random moves) consume the game's own generator; everything
 * the table does with the cards (the dealer draw, each round's shuffle, the
 * starter cards put back, the reshuffles of C15) consumes a stream of its
 * own, rebuilt at the start of every round from the game's seed state and
 * the round number alone.  Two runs of the same (seed, game) therefore deal
 * every round identically, whatever the policies did before: this is what
 * makes paired comparisons (the same deals for both arms) possible.
 */
#define UNO_RNG_DEAL_TAG UINT64_C(0x243F6A8885A308D3)   /* pi's fraction */
#define UNO_RNG_ROUND_MULTIPLIER UINT64_C(0x9E6C63D0676A9A99)

UNO_HD static inline void uno_rng_seed_deal(uno_rng *deal, const uno_rng *seeded, uint64_t round)
{
    uint64_t r = UNO_RNG_DEAL_TAG ^ (round * UNO_RNG_ROUND_MULTIPLIER);
    for (int i = 0; i < 4; i++)
        deal->s[i] = uno_rng_mix(seeded->s[i] ^ r);
    if ((deal->s[0] | deal->s[1] | deal->s[2] | deal->s[3]) == 0)
        deal->s[0] = 1;
}

/*
 * Decision streams: true common random numbers for the policies.
 *
 * Every random decision of a policy draws from a stream of its own, keyed by
 * (run key, game, round, seat, kind of decision): the n-th draw of seat s's
 * stream of kind k in round r is
 *
 *     mix(stream + n * GAMMA),  stream = mix(round_key ^ (s * UNO_DK_SLOTS + k + 1) * MULT),
 *     round_key = mix(seeded[0] ^ mix(seeded[1] ^ (DEC_TAG ^ r * ROUND_MULTIPLIER)))
 *
 * i.e. a splitmix64 sequence per stream, started from a key that depends on
 * nothing but the game's seed state and the stream's coordinates.  Two runs
 * whose policies differ in one knob therefore give every other decision
 * exactly the same numbers: an extra draw (a bluff knob at 1e-12 instead of
 * 0) moves only the bluff stream of that seat in that round, where a single
 * shared stream would shift every later decision of the game.  Counter-based
 * on purpose: a round touches a handful of streams, and deriving a key per
 * draw costs less than seeding every stream at every round.
 */
#define UNO_RNG_DEC_TAG UINT64_C(0x13198A2E03707344) /* pi's fraction, continued */
#define UNO_RNG_DEC_MULT UINT64_C(0xA0761D6478BD642F)
#define UNO_RNG_GAMMA UINT64_C(0x9E3779B97F4A7C15)
#define UNO_DK_SLOTS 16 /* streams per seat; the kinds are uno_decision_kind (uno.h) */

UNO_HD static inline uint64_t uno_rng_dec_round_key(const uno_rng *seeded, uint64_t round)
{
    uint64_t r = UNO_RNG_DEC_TAG ^ (round * UNO_RNG_ROUND_MULTIPLIER);
    return uno_rng_mix(seeded->s[0] ^ uno_rng_mix(seeded->s[1] ^ r));
}

/* The n-th 64-bit word of stream (seat, kind) of the round whose key is `round_key`. */
UNO_HD static inline uint64_t uno_rng_dec_word(uint64_t round_key, int seat, int kind, uint32_t n)
{
    uint64_t id = (uint64_t)(seat * UNO_DK_SLOTS + kind + 1);
    uint64_t stream = uno_rng_mix(round_key ^ (id * UNO_RNG_DEC_MULT));
    return uno_rng_mix(stream + (uint64_t)n * UNO_RNG_GAMMA);
}

/* Raw xoshiro256** step: one uniformly distributed 64-bit word. */
UNO_HD static inline uint64_t uno_rng_next(uno_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = uno_rng_rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = uno_rng_rotl(s[3], 45);
    return result;
}

/* High and low 64 bits of x * n. */
UNO_HD static inline uint64_t uno_rng_mul_hi_lo(uint64_t x, uint32_t n, uint64_t *lo)
{
#if UNO_DEVICE
    *lo = x * n;
    return __umul64hi(x, n);
#elif defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 uno_u128;
    uno_u128 m = (uno_u128)x * n;
    *lo = (uint64_t)m;
    return (uint64_t)(m >> 64);
#else
    /* Portable fallback (e.g. MSVC): n < 2^32 so two 64-bit products do. */
    uint64_t a = (x & UINT64_C(0xFFFFFFFF)) * n;
    uint64_t b = (x >> 32) * n + (a >> 32);
    *lo = (b << 32) | (a & UINT64_C(0xFFFFFFFF));
    return b >> 32;
#endif
}

/*
 * Uniform integer in [0, n), 1 <= n < 2^32.
 *
 * Lemire's multiply-and-reject method ("Fast random integer generation in
 * an interval", 2019): exactly unbiased like rejection sampling, but the
 * common path is one multiply and no division.  The modulo that computes
 * the rejection threshold only runs when the low word falls below n, which
 * for the small n used by card games almost never happens.  `x % n` would
 * be both slower and biased.
 */
UNO_HD static inline uint32_t uno_rng_bounded(uno_rng *r, uint32_t n)
{
#if UNO_CHECK && !UNO_DEVICE
    assert(n >= 1);
#endif
    uint64_t l;
    uint64_t hi = uno_rng_mul_hi_lo(uno_rng_next(r), n, &l);
    if (l < n) {
        /* (2^64 - n) mod n, computed in 64-bit arithmetic. */
        const uint64_t t = (0 - (uint64_t)n) % n;
        while (l < t)
            hi = uno_rng_mul_hi_lo(uno_rng_next(r), n, &l);
    }
    return (uint32_t)hi;
}

/*
 * Uniform double in [0, 1) with 53 random bits.  The top bits are used
 * because they are the best bits of xoshiro256**'s output, and 53 bits is
 * exactly what a double's mantissa can hold, so every value is a multiple of
 * 2^-53 and the result is never rounded up to 1.0.
 */
UNO_HD static inline double uno_rng_uniform(uno_rng *r)
{
    return (double)(uno_rng_next(r) >> 11) * 0x1.0p-53;
}

/*
 * True with probability p.  p <= 0 and p >= 1 are decided without drawing:
 * strategies are often parameterised by probabilities that are exactly 0 or
 * 1 (deterministic players), and not consuming the stream then means that
 * such a player leaves the rest of the game's randomness exactly as if the
 * decision had not been random at all - it keeps runs comparable across
 * strategy settings, and a deterministic strategy costs nothing.
 */
UNO_HD static inline int uno_rng_bernoulli(uno_rng *r, double p)
{
    if (p <= 0.0)
        return 0;
    if (p >= 1.0)
        return 1;
    return uno_rng_uniform(r) < p;
}

/*
 * Fisher-Yates shuffle of n card ids, in the fixed order i = n-1 .. 1 so the
 * Python reference engine can reproduce the exact same permutation.
 */
UNO_HD static inline void uno_rng_shuffle_u8(uno_rng *r, uint8_t *a, int n)
{
    /* The state lives in a local copy while shuffling: stores through a
       uint8_t pointer may alias anything, so with r->s the compiler would
       reload and store the state around every swap.  Same draws, same order. */
    uno_rng local = *r;
    for (int i = n - 1; i > 0; i--) {
        uint32_t j = uno_rng_bounded(&local, (uint32_t)i + 1);
        uint8_t tmp = a[i];
        a[i] = a[j];
        a[j] = tmp;
    }
    *r = local;
}

/*
 * The same shuffle taken lazily, a card at a time from the top down: a[i] is the top
 * card of a pile a[0..i] whose positions below *bag still wait for their steps.  Takes
 * step i if it is pending (the steps run i = n-1 .. 1, as above, and a step never moves
 * a card above it), then returns the card.  Drawing the cards one by one this way gives
 * the cards and the generator's numbers of uno_rng_shuffle_u8 in the same order.
 */
UNO_HD static inline int uno_rng_lazy_take(uno_rng *r, uint8_t *a, int i, int *bag)
{
    if (*bag > i) {
        if (i > 0) {
            uint32_t j = uno_rng_bounded(r, (uint32_t)i + 1);
            uint8_t tmp = a[i];
            a[i] = a[j];
            a[j] = tmp;
        }
        *bag = i;
    }
    return a[i];
}

#endif /* UNO_RNG_H */
