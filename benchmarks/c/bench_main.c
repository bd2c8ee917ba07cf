/*
 * bench_main.c - the C engine alone, no Python: complete greedy games per
 * second, for comparing compiler flags and engine changes.
 *
 *   python tests/c/make_tables.py build/tables.h
 *   gcc -O3 -ffp-contract=off -Icsrc -Ibuild csrc/*.c benchmarks/c/bench_main.c -o bench
 *   ./bench [players [games [repeats [classic|flip]]]]
 *
 * The decks come from tables.h, generated from uno_sim.cards (the Flip deck
 * with the pairing of deck_seed 0).
 *
 * Prints the median of `repeats` timed calls of uno_play_games (after one
 * warm-up call), as games/s and ns per turn.  The figures of `uno-sim bench`
 * add the binding's small per-call cost.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tables.h" /* generated: python tests/c/make_tables.py BUILD/tables.h */
#include "uno.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int players = argc > 1 ? atoi(argv[1]) : 4;
    long games = argc > 2 ? atol(argv[2]) : 20000;
    int repeats = argc > 3 ? atoi(argv[3]) : 5;
    int flip = argc > 4 && strcmp(argv[4], "flip") == 0;
    if (players < 2 || players > UNO_MAX_PLAYERS || games < 1 || repeats < 1 || repeats > 99) {
        fprintf(stderr, "usage: bench [players 2-10 [games [repeats [classic|flip]]]]\n");
        return 2;
    }
    static uno_table t;
    uint64_t key[4] = {1, 2, 3, 4};
    if (uno_deck_load(&t, flip ? "flip" : "classic-50") != 0) {
        fprintf(stderr, "bench: no such deck in tables.h\n");
        return 2;
    }
    uno_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.players = players;
    cfg.target = 500;
    cfg.hand_size = 7;
    cfg.wd4_value = 50;
    uno_policy pol[UNO_MAX_PLAYERS];
    memset(pol, 0, sizeof pol);
    for (int s = 0; s < players; s++) { /* greedy with its defaults (uno_sim/players/specs.py) */
        pol[s].id = UNO_POLICY_GREEDY;
        pol[s].color = UNO_COLOR_MOST;
        pol[s].forget_uno = 0.05;
        pol[s].catch = 0.5;
        pol[s].play_drawn = 1.0;
        pol[s].target = UNO_TARGET_FEWEST;
        pol[s].bluff_next = pol[s].bluff_own = UNO_ANY;
        pol[s].challenge_offender = pol[s].challenge_own = UNO_ANY;
        pol[s].suspect = -1;
        pol[s].challenge_prior = 0.5;
    }
    if (uno_config_check(&cfg, &t, pol) != UNO_OK) {
        fprintf(stderr, "bench: bad config\n");
        return 1;
    }
    int32_t *turns = malloc(sizeof(int32_t) * (size_t)games);
    uno_columns out;
    memset(&out, 0, sizeof out);
    out.turns = turns;
    double times[100];
    long total_turns = 0;
    uno_play_games(&cfg, &t, pol, key, 0, games / 10 + 1, &out); /* warm-up */
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        int st = uno_play_games(&cfg, &t, pol, key, (uint64_t)(r + 1) * (uint64_t)games, games, &out);
        times[r] = now() - t0;
        if (st != UNO_OK) {
            fprintf(stderr, "bench: status %d\n", st);
            return 1;
        }
        total_turns = 0;
        for (long i = 0; i < games; i++)
            total_turns += turns[i];
    }
    qsort(times, (size_t)repeats, sizeof times[0], cmp);
    double med = times[repeats / 2];
    printf("%s %d players: %.0f games/s, %.1f ns/turn (median of %d x %ld games)\n",
           flip ? "flip" : "classic", players, games / med, 1e9 * med / total_turns, repeats, games);
    free(turns);
    return 0;
}
