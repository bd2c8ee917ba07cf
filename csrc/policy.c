/*
 * policy.c - the built-in policies (RULES.md P2): the C twins of
 * reference.RandomPolicy and reference.GreedyPolicy.
 *
 * Each function must consume random numbers exactly as its Python twin:
 * the same calls, in the same order, under the same conditions.  Two
 * shortcuts keep that promise: bernoulli(p) consumes nothing for p <= 0 or
 * p >= 1, and pick(1) consumes nothing.
 */
#include "uno.h"

static inline int pick(uno_game *g, int n)
{
    return n == 1 ? 0 : (int)uno_rng_bounded(g->rng, (uint32_t)n);
}

/* Whether p holds a restricted card that would be a bluff now (reference.holds_bluff). */
static int holds_bluff(const uno_game *g, int p, int has_color)
{
    if (!has_color)
        return 0;
    const uint8_t *h = g->hand[p];
    for (int i = 0, n = g->hand_n[p]; i < n; i++)
        if (uno_restricted(g, h[i]))
            return 1;
    return 0;
}

/* The highest-value playable colored card, first in hand order on ties; else UNO_DRAW. */
static int best_colored(const uno_game *g, int p)
{
    const uint8_t *h = g->hand[p];
    int best = UNO_DRAW, best_value = -1;
    for (int i = 0, n = g->hand_n[p]; i < n; i++) {
        int c = h[i];
        if (uno_color(g, c) != UNO_NO_COLOR && uno_matches(g, c) && uno_value(g, c) > best_value) {
            best = i;
            best_value = uno_value(g, c);
        }
    }
    return best;
}

/* A legal restricted wild first (it also hurts the next player), else the first Wild. */
static int best_wild(const uno_game *g, int p, int has_color)
{
    const uint8_t *h = g->hand[p];
    int wild = UNO_DRAW;
    for (int i = 0, n = g->hand_n[p]; i < n; i++) {
        int c = h[i];
        if (uno_color(g, c) == UNO_NO_COLOR) {
            if (uno_restricted(g, c)) {
                if (!has_color)
                    return i;
            } else if (wild == UNO_DRAW) {
                wild = i;
            }
        }
    }
    return wild;
}

static int random_play(uno_game *g, int p, const uno_policy *pol)
{
    const uint8_t *h = g->hand[p];
    int n = g->hand_n[p];
    int has_color = uno_holds_color(g, p);
    int bluff_ok = holds_bluff(g, p, has_color) && uno_rng_bernoulli(g->rng, pol->bluff);
    int opts[UNO_HAND_CAP + 1];
    int m = 0;
    for (int i = 0; i < n; i++) {
        int c = h[i];
        if (uno_playable(g, c) && (bluff_ok || !(uno_restricted(g, c) && has_color)))
            opts[m++] = i;
    }
    opts[m++] = UNO_DRAW;
    return opts[pick(g, m)];
}

static int greedy_play(uno_game *g, int p, const uno_policy *pol)
{
    int has_color = uno_holds_color(g, p);
    if (holds_bluff(g, p, has_color) && uno_rng_bernoulli(g->rng, pol->bluff)) {
        const uint8_t *h = g->hand[p];
        for (int i = 0, n = g->hand_n[p]; i < n; i++)
            if (uno_restricted(g, h[i]))
                return i;
    }
    int best = best_colored(g, p);
    if (best != UNO_DRAW)
        return uno_rng_bernoulli(g->rng, pol->voluntary) ? UNO_DRAW : best;
    return best_wild(g, p, has_color);
}

int uno_choose_play(uno_game *g, int p)
{
    const uno_policy *pol = &g->pol[p];
    if (pol->id == UNO_POLICY_RANDOM)
        return random_play(g, p, pol);
    return greedy_play(g, p, pol);
}

int uno_choose_replacement(uno_game *g, int p)
{
    int has_color = uno_holds_color(g, p);
    if (g->pol[p].id == UNO_POLICY_RANDOM) {
        const uint8_t *h = g->hand[p];
        int opts[UNO_HAND_CAP];
        int m = 0;
        for (int i = 0, n = g->hand_n[p]; i < n; i++) {
            int c = h[i];
            if (uno_playable(g, c) && !(uno_restricted(g, c) && has_color))
                opts[m++] = i;
        }
#if UNO_CHECK
        assert(m > 0);
#endif
        return opts[pick(g, m)];
    }
    int best = best_colored(g, p);
    return best != UNO_DRAW ? best : best_wild(g, p, has_color);
}

/* One of the four colors of the side in play: 4 * side .. 4 * side + 3. */
int uno_choose_color(uno_game *g, int p)
{
    int base = 4 * g->side;
    if (g->pol[p].color_rule == UNO_COLOR_RANDOM)
        return base + (int)uno_rng_bounded(g->rng, 4);
    int counts[4] = {0, 0, 0, 0};
    const uint8_t *h = g->hand[p];
    const int8_t *col = g->t->card_color[g->side];
    for (int i = 0, n = g->hand_n[p]; i < n; i++)
        if (col[h[i]] != UNO_NO_COLOR)
            counts[col[h[i]] - base]++;
    int best = 0;
    for (int c = 1; c < 4; c++)
        if (counts[c] > counts[best])
            best = c;
    return base + best;
}
