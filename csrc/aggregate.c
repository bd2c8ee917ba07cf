/*
 * aggregate.c - the aggregate record of a batch of games (uno.h uno_agg): what the
 * run summary needs (wins, rounds, turns, points, the per-seat counters, the
 * histograms of its medians, the search counters), added up game by game as
 * uno_play_games plays them with uno_columns.agg set.
 *
 * The same functions run on both targets.  In the GPU build (csrc/gpu/kernel.cu,
 * UNO_AGG_ATOMIC) many threads add into one record, so every addition there is an
 * atomic add (a reduction the threads never wait for); on the CPU it is a plain +=.
 * Addition is exact and commutative on the int64 counts, so a record does not depend
 * on the order in which its games were added: the GPU's records equal the CPU's.
 */
#include "uno.h"

#if UNO_DEVICE && defined(UNO_AGG_ATOMIC)
#define ADD(lv, v) atomicAdd((unsigned long long *)&(lv), (unsigned long long)(v))
#else
#define ADD(lv, v) ((lv) += (v))
#endif

UNO_HD void uno_agg_clear(uno_agg *a)
{
    memset(a, 0, sizeof *a);
}

/* A histogram's bin, or the record's `over` count past its last bin. */
UNO_HD static void bin(uno_agg *a, int64_t *hist, int64_t bins, int64_t v)
{
    if (v >= 0 && v < bins)
        ADD(hist[v], 1);
    else
        ADD(a->over, 1);
}

UNO_HD void uno_agg_game(uno_agg *a, const uno_result *res, int players)
{
    int n = players;
    int64_t points = 0;
    for (int s = 0; s < n; s++)
        points += res->scores[s];
    ADD(a->games, 1);
    ADD(a->rounds, res->rounds);
    ADD(a->turns, res->turns);
    ADD(a->points, points);
    ADD(a->reshuffles, res->reshuffles);
    ADD(a->stalemates, res->stalemates);
    bin(a, a->rounds_hist, UNO_AGG_ROUNDS, res->rounds);
    /* the shares of runner.columns.win_matrix: the single winner; every seat of the winning
       team; else the lowest scores, 1/k each of k (C20) */
    if (res->team >= 0) {
        ADD(a->team_wins[res->team], 1);
        for (int s = res->team; s < n; s += 2)
            ADD(a->wins[s], UNO_AGG_WIN);
    } else if (res->winner >= 0) {
        ADD(a->wins[res->winner], UNO_AGG_WIN);
    } else {
        int32_t low = res->scores[0];
        int k = 0;
        for (int s = 1; s < n; s++)
            if (res->scores[s] < low)
                low = res->scores[s];
        for (int s = 0; s < n; s++)
            k += res->scores[s] == low;
        for (int s = 0; s < n; s++)
            if (res->scores[s] == low)
                ADD(a->wins[s], UNO_AGG_WIN / k);
    }
    for (int c = 0; c < UNO_N_COUNTERS; c++)
        for (int s = 0; s < n; s++)
            if (res->counters[c][s])
                ADD(a->counters[c][s], res->counters[c][s]);
}

UNO_HD void uno_agg_round(uno_agg *a, int64_t turns)
{
    bin(a, a->turns_hist, UNO_AGG_TURNS, turns);
}

UNO_HD void uno_agg_search(uno_agg *a, const int64_t *stats, int players)
{
    for (int s = 0; s < players; s++)
        for (int k = 0; k < UNO_SEARCH_STATS; k++)
            ADD(a->search[s][k], stats[s * UNO_SEARCH_STATS + k]);
}

UNO_HD void uno_agg_merge(uno_agg *dst, const uno_agg *src)
{
    int64_t *d = (int64_t *)dst;
    const int64_t *s = (const int64_t *)src;
    for (int64_t i = 0; i < UNO_AGG_WORDS; i++)
        if (s[i])
            ADD(d[i], s[i]);
}
