/*
 * venv_main.c - the vector environment (csrc/env.c, uno_venv) in the checking build,
 * without Python: snapshots, lean clones, replays and longjmps under UNO_CHECK's card
 * conservation and, where the compiler has them, AddressSanitizer and UBSan.
 *
 *   python tests/c/make_tables.py build/tables.h
 *   gcc -std=c99 -O1 -g -DUNO_CHECK -fsanitize=address,undefined -Icsrc -Ibuild \
 *       (every csrc .c file) tests/c/venv_main.c -lm -o venv
 *   ./venv [steps]
 *
 * For each deck (classic, Flip re-paired per game, house-2018, Extreme), 2..10 players,
 * house rules off and on, game and round episodes: 8 envs, one learning seat answering
 * a uniformly random legal action (from the mask), the other seats random, greedy or
 * strategic.  Checks that every env always has a decision with a legal action, that
 * rewards and terminations are consistent, and that the same keys replay the same
 * observations.  Prints "N steps ok" and exits 0 when all is well.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h" /* generated: python tests/c/make_tables.py BUILD/tables.h */
#include "uno.h"

#define ENVS 8

static void policy(uno_policy *p, int id)
{
    memset(p, 0, sizeof *p);
    p->id = id;
    p->color = id == UNO_POLICY_RANDOM ? UNO_COLOR_RANDOM : UNO_COLOR_MOST;
    p->forget_uno = 0.1;
    p->catch = 0.5;
    p->play_drawn = 1.0;
    p->challenge = 0.3;
    p->stack = p->jump_in = 0.5;
    p->bluff_next = p->bluff_own = p->challenge_offender = p->challenge_own = UNO_ANY;
    p->suspect = -1;
    p->challenge_threshold = 0.5;
    p->challenge_prior = 0.5;
}

/* Runs `steps` steps; returns a checksum of the observations (0 on a failed check). */
static double run(const uno_config *cfg, const uno_table *t, const uno_policy *pol, int mode,
                  int steps, uint64_t seed, long *n_steps)
{
    uno_obs_layout L;
    uno_obs_layout_init(&L, t->n_kinds, UNO_MAX_PLAYERS, t->n_sides == 2,
                        cfg->draw_source == UNO_DRAW_LAUNCHER);
    float *obs = calloc((size_t)ENVS * (size_t)L.size, sizeof *obs);
    float *fin = calloc((size_t)ENVS * (size_t)L.size, sizeof *fin);
    int8_t *mask = calloc((size_t)ENVS * (size_t)L.n_actions, 1);
    uno_venv *v = uno_venv_new(cfg, t, pol, 0, mode, ENVS, &L, obs, mask);
    if (!v || !obs || !fin || !mask) {
        fprintf(stderr, "venv_main: uno_venv_new failed (players %d, %d kinds, %p)\n",
                cfg->players, t->n_kinds, (void *)v);
        exit(1);
    }
    uint64_t keys[4 * ENVS];
    for (int i = 0; i < 4 * ENVS; i++)
        keys[i] = seed * 0x9E3779B97F4A7C15u + (uint64_t)i;
    uno_venv_reset(v, keys);
    uint64_t k0[4] = {seed, 1, 2, 3};
    uno_rng r;
    uno_rng_seed(&r, k0, 0);
    int32_t act[ENVS];
    float rew[ENVS];
    uint8_t term[ENVS], trunc[ENVS];
    double sum = 0.0;
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < ENVS; i++) {
            const int8_t *m = mask + (size_t)i * (size_t)L.n_actions;
            int legal[512], n = 0;
            for (int a = 0; a < L.n_actions; a++)
                if (m[a])
                    legal[n++] = a;
            if (n == 0 || uno_venv_decision(v, i) < 0) {
                fprintf(stderr, "venv_main: env %d has no legal action\n", i);
                exit(1);
            }
            act[i] = legal[uno_rng_bounded(&r, (uint32_t)n)];
        }
        if (uno_venv_step(v, act, rew, term, trunc, fin) != -1) {
            fprintf(stderr, "venv_main: a legal action was refused\n");
            exit(1);
        }
        for (int i = 0; i < ENVS; i++) {
            if ((term[i] && trunc[i]) || (!term[i] && rew[i] != 0.0f) ||
                (mode == UNO_EPISODE_GAME && term[i] && fabsf(rew[i]) != 1.0f)) {
                fprintf(stderr, "venv_main: reward %g terminated %d truncated %d\n",
                        (double)rew[i], term[i], trunc[i]);
                exit(1);
            }
            for (int j = 0; j < L.size; j++)
                sum += obs[(size_t)i * (size_t)L.size + (size_t)j] * (double)(j % 7 + 1);
        }
        *n_steps += ENVS;
    }
    uno_venv_free(v);
    free(obs);
    free(fin);
    free(mask);
    return sum;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 60;
    static const char *names[] = {"classic-50", "flip", "house-2018-50-012", "extreme"};
    static uno_table tables[4];
    long n_steps = 0;
    for (int d = 0; d < 4; d++)
        if (uno_deck_load(&tables[d], names[d]) != 0) {
            fprintf(stderr, "venv_main: no deck %s in tables.h\n", names[d]);
            return 1;
        }
    for (int d = 0; d < 4; d++)
        for (int players = 2; players <= 10; players++)
            for (int house = 0; house < 2; house++)
                for (int mode = 0; mode < 2; mode++) {
                    uno_config cfg;
                    memset(&cfg, 0, sizeof cfg);
                    cfg.players = players;
                    cfg.wd4_value = 50;
                    cfg.target = 200;
                    cfg.hand_size = 7;
                    cfg.repair = d == 1;
                    cfg.draw_source = d == 3 ? UNO_DRAW_LAUNCHER : UNO_DRAW_PILE;
                    if (d == 3) { /* a plain launcher law: fires every other press, 1-3 cards */
                        cfg.launcher = UNO_LAUNCHER_MODEL;
                        cfg.launcher_fire = 500;
                        cfg.launcher_max_silent = 3;
                        cfg.launcher_n_burst = 3;
                        cfg.launcher_burst[0] = cfg.launcher_burst[1] = cfg.launcher_burst[2] = 1;
                        cfg.launcher_n_weights = 3; /* dist law: 0, 1 or 2 cards */
                        cfg.launcher_weights[0] = cfg.launcher_weights[1] = 1;
                        cfg.launcher_weights[2] = 1;
                    }
                    if (house && d != 3) {
                        cfg.stacking = UNO_STACK_BOTH;
                        cfg.jump_in = cfg.seven_o = 1;
                        cfg.draw_until_playable = players % 2;
                    }
                    cfg.max_turns = 3000;
                    cfg.max_rounds = 300;
                    uno_policy pol[UNO_MAX_PLAYERS];
                    for (int s = 0; s < players; s++)
                        policy(&pol[s], s == 0 ? UNO_POLICY_USER : (s + d) % 3);
                    uint64_t seed = (uint64_t)(d * 1000 + players * 10 + house * 2 + mode);
                    double a = run(&cfg, &tables[d], pol, mode, steps, seed, &n_steps);
                    double b = run(&cfg, &tables[d], pol, mode, steps, seed, &n_steps);
                    if (a != b) {
                        fprintf(stderr, "venv_main: deck %s players %d house %d mode %d: the same "
                                "keys gave other observations\n", names[d], players, house, mode);
                        return 1;
                    }
                }
    printf("%ld steps ok\n", n_steps);
    return 0;
}
