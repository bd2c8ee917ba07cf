/*
 * kernel.cu - the GPU build of the engine: the engine's own C sources compiled
 * as CUDA device code (uno_port.h, docs/engine.md "One source, two targets"),
 * and one kernel that plays games [first, first + n) of a run, one game per
 * thread, writing what uno_play_games writes (the per-game columns, the
 * per-seat counters and the per-round rows).  uno_sim/gpu.py compiles it at
 * run time (NVRTC, through CuPy) and turns the columns into the runner's.
 *
 * What cannot run on a GPU stays out (CPU only): traces, user policies
 * (callbacks), the setjmp of their aborts, the search players and the stepping
 * environment; the runner refuses such configurations before a launch.
 *
 * Compile with -I csrc (NVRTC through CuPy names the source after a cache file, so
 * its includes are found through the include path, never relative to this file).
 *
 * Specialised: gpu.py compiles it once per configuration with the UNO_SPEC_* defines of
 * csrc/uno_spec.h (the run's rules, deck and policies as constants), so that what the run
 * never does costs nothing; without them it plays any configuration.  No function of the
 * engine calls itself, directly or not (round.c play_chain), so the compiler knows the
 * stack a thread needs and the driver reserves it at launch.
 *
 * Rounding: every floating-point decision (uno_dec_bernoulli, the posterior
 * of uno_bluff_probability) is + - * / on doubles, compiled without fused
 * multiply-add (-fmad=false here, -ffp-contract=off on the CPU) and with
 * IEEE division: both targets round every operation the same way.
 */
/* The GPU build (uno.h UNO_OWN_TABLE): a game's re-paired table (the F1 switch) is this
   thread's room in the block's `uno_gpu_rooms`, not a field of every game's state. */
#define UNO_GPU_BUILD 1
/* aggregate.c: many threads add into one record, atomically (the device pass only) */
#define UNO_AGG_ATOMIC 1
struct uno_table;
__shared__ struct uno_table *uno_gpu_rooms; /* NULL without the switch */
#define UNO_GPU_ROOM() (uno_gpu_rooms + threadIdx.x)

#include "table.c"
#include "draw.c"
#include "round.c"
#include "extras.c"
#include "policy.c"
#include "net.c"
#include "observe.c"
#include "legal.c"
#include "trace.c"
#include "game.c"
#include "aggregate.c"

/* The output arrays, as device addresses in one array (uno_sim/gpu.py OUTPUTS, same order). */
enum {
    GP_GAME = 0, /* int64 per game */
    GP_WINNER,   /* int8 per game */
    GP_TEAM,     /* int8 per game */
    GP_ROUNDS,   /* int32 per game, and the next three */
    GP_TURNS,
    GP_RESHUFFLES,
    GP_STALEMATES,
    GP_SCORES,      /* int32 per game x players */
    GP_TEAM_SCORES, /* int32 per game x 2 */
    GP_COUNTERS,    /* UNO_N_COUNTERS arrays of int32 per game x players */
    GP_STATUS = GP_COUNTERS + UNO_N_COUNTERS, /* int32 per game: UNO_OK or the error */
    GP_N_ROWS,      /* int32 per game: its round rows */
    GP_R_GAME,      /* int64, rows_per_game slots per game; then the int32 row columns */
    GP_R_ROUND,
    GP_R_DEALER,
    GP_R_STARTER,
    GP_R_WINNER,
    GP_R_TURNS,
    GP_R_RESHUFFLES,
    GP_R_POINTS,     /* rows_per_game x players per game */
    GP_R_CARDS_LEFT, /* the same */
    GP_OWN,          /* 0, or one uno_table per thread: the F1 switch's re-paired table */
    GP_COUNT
};

/* Threads per block (uno_sim/gpu.py THREADS) and the blocks an SM should hold at least
   (__launch_bounds__: the register budget per thread follows from both). */
#ifndef UNO_GPU_THREADS
#define UNO_GPU_THREADS 128
#endif
#ifndef UNO_GPU_MIN_BLOCKS
#define UNO_GPU_MIN_BLOCKS 1
#endif

/* Copies n bytes (a multiple of 4) into shared memory with every thread of the block. */
__device__ static void uno_block_copy(void *dst, const void *src, size_t n)
{
    uint32_t *d = (uint32_t *)dst;
    const uint32_t *s = (const uint32_t *)src;
    for (size_t i = threadIdx.x; i < n / 4; i += blockDim.x)
        d[i] = s[i];
}

/* The block's shared copies of the host's configuration, deck table and policies, and the
   block's rooms (own: NULL, or the F1 switch's tables, one per thread of the grid). */
__device__ static void uno_gpu_block_setup(uno_config *c, uno_table *t, uno_policy *p,
                                           const uno_config *cfg, const uno_table *table,
                                           const uno_policy *pol, uno_table *own)
{
    uno_block_copy(t, table, sizeof *t);
    uno_block_copy(c, cfg, sizeof *c);
    uno_block_copy(p, pol, sizeof *p * UNO_MAX_PLAYERS);
    if (threadIdx.x == 0)
        uno_gpu_rooms = own ? own + (int64_t)blockIdx.x * blockDim.x : NULL;
    __syncthreads();
}

/* Game `game` of the run `k` into *res (rows: where its rounds go); play_game's status. */
__device__ static int uno_gpu_play(const uno_config *c, const uno_table *t, const uno_policy *p,
                                   const uint64_t *k, uint64_t game, uno_result *res,
                                   uno_round_rows *rows)
{
    uno_rng rng;
    uno_rng_seed(&rng, k, game);
    return play_game(c, t, p, &rng, NULL, res, rows, game, NULL, 1);
}

/*
 * Games first + i, i in [0, n), each thread a game at a time (grid-stride).
 * cfg, table, pol: the host's uno_config, uno_table and uno_policy[UNO_MAX_PLAYERS]
 * bytes (the same layout on both targets); they are read from shared memory.
 */
extern "C" __global__ void __launch_bounds__(UNO_GPU_THREADS, UNO_GPU_MIN_BLOCKS)
uno_gpu_games(const uno_config *cfg, const uno_table *table,
                                         const uno_policy *pol, const uint64_t *key,
                                         uint64_t first, int64_t n, const uint64_t *out,
                                         int rows_per_game)
{
    __shared__ uno_table t;
    __shared__ uno_config c;
    __shared__ uno_policy p[UNO_MAX_PLAYERS];
    uno_gpu_block_setup(&c, &t, p, cfg, table, pol, (uno_table *)out[GP_OWN]);
    const int np = c.players;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    if (!uno_spec_matches(&c, &t, p)) { /* built for another configuration: play nothing */
        for (int64_t i = tid; i < n; i += stride) {
            ((int32_t *)out[GP_STATUS])[i] = UNO_ERR_CONFIG;
            ((int32_t *)out[GP_N_ROWS])[i] = 0;
        }
        return;
    }
    const uint64_t k[4] = {key[0], key[1], key[2], key[3]};
    for (int64_t i = tid; i < n; i += stride) {
        const int64_t r0 = i * rows_per_game;
        uno_round_rows rows;
        rows.cap = rows_per_game;
        rows.n = 0;
        rows.game = (int64_t *)out[GP_R_GAME] + r0;
        rows.round = (int32_t *)out[GP_R_ROUND] + r0;
        rows.dealer = (int32_t *)out[GP_R_DEALER] + r0;
        rows.starter = (int32_t *)out[GP_R_STARTER] + r0;
        rows.winner = (int32_t *)out[GP_R_WINNER] + r0;
        rows.turns = (int32_t *)out[GP_R_TURNS] + r0;
        rows.reshuffles = (int32_t *)out[GP_R_RESHUFFLES] + r0;
        rows.points = (int32_t *)out[GP_R_POINTS] + r0 * np;
        rows.cards_left = (int32_t *)out[GP_R_CARDS_LEFT] + r0 * np;
        rows.agg = NULL;
        uno_result res;
        const uint64_t game = first + (uint64_t)i;
        int st = uno_gpu_play(&c, &t, p, k, game, &res, &rows);
        ((int32_t *)out[GP_STATUS])[i] = st;
        ((int32_t *)out[GP_N_ROWS])[i] = (int32_t)rows.n;
        ((int64_t *)out[GP_GAME])[i] = (int64_t)game;
        if (st != UNO_OK)
            continue;
        ((int8_t *)out[GP_WINNER])[i] = (int8_t)res.winner;
        ((int8_t *)out[GP_TEAM])[i] = (int8_t)res.team;
        ((int32_t *)out[GP_ROUNDS])[i] = res.rounds;
        ((int32_t *)out[GP_TURNS])[i] = res.turns;
        ((int32_t *)out[GP_RESHUFFLES])[i] = res.reshuffles;
        ((int32_t *)out[GP_STALEMATES])[i] = res.stalemates;
        for (int s = 0; s < np; s++)
            ((int32_t *)out[GP_SCORES])[i * np + s] = res.scores[s];
        for (int s = 0; s < 2; s++)
            ((int32_t *)out[GP_TEAM_SCORES])[i * 2 + s] = res.team_scores[s];
        for (int ct = 0; ct < UNO_N_COUNTERS; ct++)
            for (int s = 0; s < np; s++)
                ((int32_t *)out[GP_COUNTERS + ct])[i * np + s] = res.counters[ct][s];
    }
}

/*
 * Aggregates only (--summary-only, bench: uno_sim/gpu.py play_aggregates): games first + i,
 * i in [0, n), each thread a game at a time (grid-stride), each game added to the record of
 * its shard, records[i / shard_games] (uno_agg, csrc/aggregate.c: atomic adds, so that the
 * records do not depend on which thread played what, and equal the CPU's word for word).
 * Nothing per game comes back: `failed` holds the first game (index i) that did not end
 * UNO_OK (initially n; the host replays it on the CPU, which raises the engine's error),
 * and that game's shard record is then incomplete.  own: as GP_OWN above.
 */
extern "C" __global__ void __launch_bounds__(UNO_GPU_THREADS, UNO_GPU_MIN_BLOCKS)
uno_gpu_aggregates(const uno_config *cfg, const uno_table *table,
                                              const uno_policy *pol, const uint64_t *key,
                                              uint64_t first, int64_t n, int64_t shard_games,
                                              uno_agg *records, unsigned long long *failed,
                                              uno_table *own)
{
    __shared__ uno_table t;
    __shared__ uno_config c;
    __shared__ uno_policy p[UNO_MAX_PLAYERS];
    uno_gpu_block_setup(&c, &t, p, cfg, table, pol, own);
    if (!uno_spec_matches(&c, &t, p)) { /* built for another configuration: play nothing */
        if (n > 0)
            atomicMin(failed, 0ULL);
        return;
    }
    const uint64_t k[4] = {key[0], key[1], key[2], key[3]};
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uno_agg *rec = records + i / shard_games;
        uno_round_rows sink; /* each round's turns to the record, no rows */
        memset(&sink, 0, sizeof sink);
        sink.agg = rec;
        uno_result res;
        if (uno_gpu_play(&c, &t, p, k, first + (uint64_t)i, &res, &sink) != UNO_OK) {
            atomicMin(failed, (unsigned long long)i);
            continue;
        }
        uno_agg_game(rec, &res, c.players);
    }
}

