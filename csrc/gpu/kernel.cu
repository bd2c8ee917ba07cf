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
 * Rounding: every floating-point decision (uno_dec_bernoulli, the posterior
 * of uno_bluff_probability) is + - * / on doubles, compiled without fused
 * multiply-add (-fmad=false here, -ffp-contract=off on the CPU) and with
 * IEEE division: both targets round every operation the same way.
 */
/* The GPU build (uno.h UNO_OWN_TABLE): a game's re-paired table (the F1 switch) is this
   thread's room in the block's `uno_gpu_rooms`, not a field of every game's state. */
#define UNO_GPU_BUILD 1
struct uno_table;
__shared__ struct uno_table *uno_gpu_rooms; /* NULL without the switch */
#define UNO_GPU_ROOM() (uno_gpu_rooms + threadIdx.x)

#include "table.c"
#include "round.c"
#include "extras.c"
#include "policy.c"
#include "net.c"
#include "observe.c"
#include "legal.c"
#include "trace.c"
#include "game.c"

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

/* Copies n bytes (a multiple of 4) into shared memory with every thread of the block. */
__device__ static void uno_block_copy(void *dst, const void *src, size_t n)
{
    uint32_t *d = (uint32_t *)dst;
    const uint32_t *s = (const uint32_t *)src;
    for (size_t i = threadIdx.x; i < n / 4; i += blockDim.x)
        d[i] = s[i];
}

/*
 * Games first + i, i in [0, n), each thread a game at a time (grid-stride).
 * cfg, table, pol: the host's uno_config, uno_table and uno_policy[UNO_MAX_PLAYERS]
 * bytes (the same layout on both targets); they are read from shared memory.
 */
extern "C" __global__ void uno_gpu_games(const uno_config *cfg, const uno_table *table,
                                         const uno_policy *pol, const uint64_t *key,
                                         uint64_t first, int64_t n, const uint64_t *out,
                                         int rows_per_game)
{
    __shared__ uno_table t;
    __shared__ uno_config c;
    __shared__ uno_policy p[UNO_MAX_PLAYERS];
    uno_block_copy(&t, table, sizeof t);
    uno_block_copy(&c, cfg, sizeof c);
    uno_block_copy(p, pol, sizeof p);
    if (threadIdx.x == 0)
        uno_gpu_rooms = out[GP_OWN] ? (uno_table *)out[GP_OWN] + (int64_t)blockIdx.x * blockDim.x
                                    : NULL;
    __syncthreads();
    const int np = c.players;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
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
        uno_rng rng;
        uno_result res;
        const uint64_t game = first + (uint64_t)i;
        uno_rng_seed(&rng, k, game);
        int st = play_game(&c, &t, p, &rng, NULL, &res, &rows, game, NULL, 1, -1, NULL);
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
