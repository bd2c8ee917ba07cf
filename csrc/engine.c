/*
 * engine.c - the rules of RULES.md C1-C21 and F1-F6 (UNO Flip), the C twin of
 * uno_sim/reference.py.  Function for function it follows reference.Game;
 * each function names its Python twin.  Keep them in step: the differential
 * test (tests/test_differential.py) compares the two event by event.
 *
 * No allocation happens while playing: the whole state is one uno_game on
 * the caller's stack.  Tracing is behind `if (g->tr)`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uno.h"

/* UNO Extreme's code, kept out of the hot path of the other variants (not inlined). */
#if defined(__GNUC__)
#define UNO_COLD __attribute__((noinline, cold))
/* the effect dispatcher: inlined into play(), whatever the variants' cases add to its size */
#define UNO_INLINE __attribute__((always_inline)) inline
#else
#define UNO_COLD
#define UNO_INLINE inline
#endif

/* one copy of a function whatever its call sites' constants (no .constprop clone) */
#if defined(__GNUC__) && !defined(__clang__)
#define UNO_NOCLONE __attribute__((noclone))
#else
#define UNO_NOCLONE
#endif

#define ROUND_OVER (-1) /* take_turn: the player went out */
#define STALEMATE (-2)  /* take_turn: nobody can draw (reference.Stalemate) */
#define LIMIT (-2)      /* play_round: UNO_MAX_TURNS reached */

/* ------------------------------------------------------------------------- */
/* Tables                                                                     */
/* ------------------------------------------------------------------------- */

int uno_table_init(uno_table *t, int n_kinds, const int32_t *color, const int32_t *face,
                   const int32_t *value, const int32_t *effect, const int32_t *amount,
                   const int32_t *restricted, const int32_t *starter, const int32_t *reason,
                   int n_cards, const int32_t *card_kind, const int32_t *dark_kind)
{
    if (n_kinds < 1 || n_kinds > UNO_MAX_KINDS || n_cards < 1 || n_cards > UNO_MAX_CARDS)
        return -1;
    memset(t, 0, sizeof *t);
    t->n_kinds = n_kinds;
    t->n_cards = n_cards;
    for (int k = 0; k < n_kinds; k++) {
        if (color[k] < -1 || color[k] > 7 || face[k] < 0 || face[k] > 255 || effect[k] < 0 ||
            effect[k] > UNO_EFFECT_MAX || amount[k] < 0 || amount[k] > 255 || starter[k] < 0 ||
            starter[k] > UNO_STARTER_RETURN || reason[k] < 0 || reason[k] > UNO_REASON_MAX ||
            value[k] < 0 || value[k] > UNO_MAX_VALUE ||
            (effect[k] == UNO_WILD_CUSTOM && amount[k] >= UNO_CUSTOM_COUNT))
            return -1;
        t->color[k] = (int8_t)color[k];
        t->face[k] = (uint8_t)face[k];
        t->value[k] = value[k];
        t->effect[k] = (uint8_t)effect[k];
        t->amount[k] = (uint8_t)amount[k];
        t->restricted[k] = restricted[k] != 0;
        t->starter[k] = (uint8_t)starter[k];
        t->reason[k] = (uint8_t)reason[k];
    }
    /* card priority (docs/policies.md): higher value first, then lower kind id */
    uint8_t order[UNO_MAX_KINDS];
    for (int k = 0; k < n_kinds; k++) {
        int j = k;
        for (; j > 0 && t->value[order[j - 1]] < t->value[k]; j--)
            order[j] = order[j - 1];
        order[j] = (uint8_t)k;
    }
    for (int j = 0; j < n_kinds; j++)
        t->kind_pos[order[j]] = (uint8_t)j;
    t->n_sides = dark_kind ? 2 : 1;
    for (int side = 0; side < t->n_sides; side++) {
        const int32_t *kinds = side ? dark_kind : card_kind;
        for (int c = 0; c < n_cards; c++) {
            if (kinds[c] < 0 || kinds[c] >= n_kinds)
                return -1;
            t->card_kind[side][c] = (uint8_t)kinds[c];
        }
        uno_table_derive(t, side);
    }
    return 0;
}

void uno_table_derive(uno_table *t, int side)
{
    const int n = t->n_cards;
    t->restricted_colored[side] = 0;
    t->faces_ok[side] = 1;
    /* ranks: the cards by their kind's place in the priority order, then by card id */
    int start[UNO_MAX_KINDS + 1];
    memset(start, 0, sizeof start);
    for (int c = 0; c < n; c++)
        start[t->kind_pos[t->card_kind[side][c]] + 1]++;
    for (int j = 0; j < t->n_kinds; j++)
        start[j + 1] += start[j];
    for (int c = 0; c < n; c++) {
        int r = start[t->kind_pos[t->card_kind[side][c]]]++;
        t->rank[side][c] = (uint8_t)r;
        t->unrank[side][r] = (uint8_t)c;
    }
    memset(t->color_mask[side], 0, sizeof t->color_mask[side]);
    memset(t->face_mask[side], 0, sizeof t->face_mask[side]);
    memset(&t->restricted_mask[side], 0, sizeof t->restricted_mask[side]);
    for (int c = 0; c < n; c++) {
        int k = t->card_kind[side][c], r = t->rank[side][c];
        t->card_color[side][c] = t->color[k];
        t->card_face[side][c] = t->face[k];
        t->card_restricted[side][c] = t->restricted[k];
        t->card_value[side][c] = t->value[k];
        if (t->restricted[k] && t->color[k] != UNO_NO_COLOR)
            t->restricted_colored[side] = 1;
        uno_bits_set(&t->color_mask[side][t->color[k] + 1], r);
        if (t->face[k] < 32)
            uno_bits_set(&t->face_mask[side][t->face[k]], r);
        else
            t->faces_ok[side] = 0;
        if (t->restricted[k])
            uno_bits_set(&t->restricted_mask[side], r);
    }
    /* F6: the cards whose other face is a wild, over each side's ranks; both sides once
       the last one is derived (a re-pairing derives side 1 only, and both masks read it) */
    for (int s = 0; side == t->n_sides - 1 && s < t->n_sides; s++) {
        memset(&t->other_wild_mask[s], 0, sizeof t->other_wild_mask[s]);
        if (t->n_sides == 2)
            for (int c = 0; c < n; c++)
                if (t->color[t->card_kind[s ^ 1][c]] == UNO_NO_COLOR)
                    uno_bits_set(&t->other_wild_mask[s], t->rank[s][c]);
    }
}

void uno_classic_table(uno_table *t, int wd4_value)
{
    /* cards.classic_kinds: per color 0-9, Skip, Reverse, Draw Two; then W, W+4. */
    int32_t color[54], face[54], value[54], effect[54], amount[54], restricted[54], starter[54],
        reason[54], count[54], card_kind[108];
    int k = 0;
    for (int c = 0; c < 4; c++) {
        for (int f = 0; f < 13; f++, k++) {
            color[k] = c;
            face[k] = f;
            value[k] = f < 10 ? f : 20;
            effect[k] = f < 10 ? UNO_NUMBER : f == 10 ? UNO_SKIP : f == 11 ? UNO_REVERSE : UNO_DRAW_CARDS;
            amount[k] = f == 12 ? 2 : 0;
            restricted[k] = 0;
            starter[k] = UNO_STARTER_PLAY;
            reason[k] = f == 12 ? UNO_R_DRAW_TWO : UNO_R_CANNOT_PLAY;
            count[k] = f == 0 ? 1 : 2;
        }
    }
    color[k] = UNO_NO_COLOR, face[k] = 13, value[k] = 50, effect[k] = UNO_WILD, amount[k] = 0;
    restricted[k] = 0, starter[k] = UNO_STARTER_PLAY, reason[k] = UNO_R_CANNOT_PLAY, count[k] = 4;
    k++;
    color[k] = UNO_NO_COLOR, face[k] = 14, value[k] = wd4_value, effect[k] = UNO_WILD_DRAW;
    amount[k] = 4, restricted[k] = 1, starter[k] = UNO_STARTER_RETURN, reason[k] = UNO_R_WD4;
    count[k] = 4;
    k++;
    int n = 0;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < count[i]; j++)
            card_kind[n++] = i;
    uno_table_init(t, k, color, face, value, effect, amount, restricted, starter, reason, n,
                   card_kind, NULL);
}

void uno_extreme_table(uno_table *t)
{
    /* cards.extreme_kinds: per color 1-9, Hit 2, Skip, Reverse, Discard All; then W, WH. */
    static const int32_t act_face[4] = {22, 10, 11, 21}, act_value[4] = {20, 20, 20, 30};
    static const int32_t act_effect[4] = {UNO_HIT, UNO_SKIP, UNO_REVERSE, UNO_DISCARD_ALL};
    int32_t color[54], face[54], value[54], effect[54], amount[54], restricted[54], starter[54],
        reason[54], card_kind[112];
    int k = 0;
    for (int c = 0; c < 4; c++) {
        for (int f = 0; f < 13; f++, k++) {
            int a = f - 9; /* the action index, 0..3 */
            color[k] = c;
            face[k] = f < 9 ? f + 1 : act_face[a];
            value[k] = f < 9 ? f + 1 : act_value[a];
            effect[k] = f < 9 ? UNO_NUMBER : act_effect[a];
            amount[k] = f == 9 ? 2 : 0;
            restricted[k] = 0;
            starter[k] = UNO_STARTER_PLAY;
            reason[k] = f == 9 ? UNO_R_HIT_TWO : UNO_R_CANNOT_PLAY;
        }
    }
    color[k] = UNO_NO_COLOR, face[k] = 13, value[k] = 50, effect[k] = UNO_WILD, amount[k] = 0;
    restricted[k] = 0, starter[k] = UNO_STARTER_PLAY, reason[k] = UNO_R_CANNOT_PLAY;
    k++;
    color[k] = UNO_NO_COLOR, face[k] = 23, value[k] = 50, effect[k] = UNO_WILD_HIT, amount[k] = 2;
    restricted[k] = 0, starter[k] = UNO_STARTER_RETURN, reason[k] = UNO_R_EXTREME_HIT;
    k++;
    int n = 0;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < (i < 52 ? 2 : 4); j++)
            card_kind[n++] = i;
    uno_table_init(t, k, color, face, value, effect, amount, restricted, starter, reason, n,
                   card_kind, NULL);
}

void uno_flip_table(uno_table *t, const uint64_t key[4])
{
    /*
     * cards.flip_kinds: per light color 1-9, +1, Reverse, Skip, Flip, then W,
     * W+2; per dark color 1-9, +5, Reverse, Skip Everyone, Flip, then DW, DW+C.
     * Every kind but the wilds has two copies.
     */
    int32_t color[108], face[108], value[108], effect[108], amount[108], restricted[108],
        starter[108], reason[108], count[108], card_kind[112], dark_kind[112];
    static const int32_t light_face[4] = {15, 11, 10, 18}, dark_face[4] = {16, 11, 17, 18};
    static const int32_t light_value[4] = {10, 20, 20, 20}, dark_value[4] = {20, 20, 30, 20};
    static const int32_t light_effect[4] = {UNO_DRAW_CARDS, UNO_REVERSE, UNO_SKIP, UNO_FLIP};
    static const int32_t dark_effect[4] = {UNO_DRAW_CARDS, UNO_REVERSE, UNO_SKIP_ALL, UNO_FLIP};
    int k = 0;
    for (int side = 0; side < 2; side++) {
        for (int c = 0; c < 4; c++) {
            for (int f = 0; f < 13; f++, k++) {
                int a = f - 9; /* the action index, 0..3 */
                color[k] = 4 * side + c;
                face[k] = f < 9 ? f + 1 : side ? dark_face[a] : light_face[a];
                value[k] = f < 9 ? f + 1 : side ? dark_value[a] : light_value[a];
                effect[k] = f < 9 ? UNO_NUMBER : side ? dark_effect[a] : light_effect[a];
                amount[k] = f == 9 ? (side ? 5 : 1) : 0;
                restricted[k] = 0;
                starter[k] = effect[k] == UNO_FLIP || effect[k] == UNO_SKIP_ALL;
                reason[k] = f == 9 ? (side ? UNO_R_DRAW_FIVE : UNO_R_DRAW_ONE) : UNO_R_CANNOT_PLAY;
                count[k] = 2;
            }
        }
        color[k] = UNO_NO_COLOR, face[k] = 13, value[k] = 40, effect[k] = UNO_WILD, amount[k] = 0;
        restricted[k] = 0, starter[k] = UNO_STARTER_PLAY, reason[k] = UNO_R_CANNOT_PLAY;
        count[k] = 4;
        k++;
        color[k] = UNO_NO_COLOR, face[k] = side ? 20 : 19, value[k] = side ? 60 : 50;
        effect[k] = side ? UNO_WILD_DRAW_COLOR : UNO_WILD_DRAW, amount[k] = side ? 0 : 2;
        restricted[k] = 1, starter[k] = UNO_STARTER_RETURN;
        reason[k] = side ? UNO_R_WILD_DRAW_COLOR : UNO_R_WILD_DRAW_TWO, count[k] = 4;
        k++;
    }
    int n = 0, m = 0;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < count[i]; j++) {
            if (i < k / 2)
                card_kind[n++] = i;
            else
                dark_kind[m++] = i;
        }
    uno_rng r;
    uno_rng_seed(&r, key, 0x464C4950u);
    for (int i = m - 1; i > 0; i--) { /* uno_rng_shuffle_u8, on int32 */
        uint32_t j = uno_rng_bounded(&r, (uint32_t)i + 1);
        int32_t tmp = dark_kind[i];
        dark_kind[i] = dark_kind[j];
        dark_kind[j] = tmp;
    }
    uno_table_init(t, k, color, face, value, effect, amount, restricted, starter, reason, n,
                   card_kind, dark_kind);
}

int uno_config_check(const uno_config *cfg, const uno_table *t, const uno_policy *pol)
{
    int n = cfg->players;
    if (n < 2 || n > UNO_MAX_PLAYERS || cfg->hand_size < 1 || n * cfg->hand_size + 1 > t->n_cards)
        return UNO_ERR_CONFIG;
    if (cfg->dealer_draw < 0 || cfg->dealer_draw > 1 || cfg->drawn_card < 0 || cfg->drawn_card > 1 ||
        cfg->challenge < 0 || cfg->challenge > 1 || cfg->scoring < 0 || cfg->scoring > 2 ||
        cfg->target < 1 || cfg->max_turns < 0 || cfg->max_rounds < 0 || cfg->repair < 0 ||
        cfg->target > UNO_MAX_TARGET || cfg->repair > 1 || cfg->exchange < 0 || cfg->exchange > 1)
        return UNO_ERR_CONFIG;
    if (cfg->stacking < 0 || cfg->stacking > UNO_STACK_BOTH || (unsigned)cfg->draw_until_playable > 1 ||
        (unsigned)cfg->forced_play > 1 || (unsigned)cfg->jump_in > 1 || (unsigned)cfg->seven_o > 1)
        return UNO_ERR_CONFIG;
    if (cfg->teams && (n % 2 || n < 4 || cfg->scoring != UNO_SCORING_STANDARD))
        return UNO_ERR_CONFIG;
    if (cfg->variant == UNO_VARIANT_EXTREME) { /* E2: the launcher's law (rules._weights) */
        if (cfg->launcher < 0 || cfg->launcher > UNO_LAUNCHER_DIST || cfg->launcher_fire < 0 ||
            cfg->launcher_fire > 1000 || cfg->launcher_max_silent < 0 ||
            cfg->launcher_n_burst < 1 || cfg->launcher_n_burst > UNO_LAUNCH_MAX ||
            cfg->launcher_n_weights < 1 || cfg->launcher_n_weights > UNO_LAUNCH_MAX ||
            cfg->hit_target_presses < 0 || cfg->hit_target_presses > 10)
            return UNO_ERR_CONFIG;
        int64_t burst = 0, any = 0, total = 0;
        for (int i = 0; i < cfg->launcher_n_burst; i++) {
            if (cfg->launcher_burst[i] < 0)
                return UNO_ERR_CONFIG;
            burst += cfg->launcher_burst[i];
        }
        for (int i = 0; i < cfg->launcher_n_weights; i++) {
            if (cfg->launcher_weights[i] < 0)
                return UNO_ERR_CONFIG;
            total += cfg->launcher_weights[i];
            any += i > 0 ? cfg->launcher_weights[i] : 0;
        }
        if (burst < 1 || burst > INT32_MAX || any < 1 || total > INT32_MAX)
            return UNO_ERR_CONFIG;
    }
    for (int s = 0; s < n; s++) {
        const uno_policy *q = &pol[s];
        if (q->id < 0 || q->id > UNO_POLICY_USER || q->color_rule < 0 ||
            q->color_rule > UNO_COLOR_SMART || q->target_rule < 0 ||
            q->target_rule > UNO_TARGET_RANDOM || !(q->challenge_threshold >= 0.0) ||
            q->challenge_threshold > 1.0 || (q->id == UNO_POLICY_USER && !q->decide) ||
            q->bluff_next < 0 || q->bluff_own < 0 || q->challenge_offender < 0 ||
            q->challenge_own < 0 || q->suspect < -1 || q->suspect >= n ||
            !(q->challenge_prior >= 0.0) || q->challenge_prior > 1.0)
            return UNO_ERR_CONFIG;
    }
    return UNO_OK;
}

/* ------------------------------------------------------------------------- */
/* Checking build: card conservation                                          */
/* ------------------------------------------------------------------------- */

#if UNO_CHECK
static void check_cards(const uno_game *g, int seat, const char *where)
{
    int seen[UNO_MAX_CARDS] = {0};
    int total = g->n_draw + g->n_discard;
    const char *bad = NULL;
    int card = -1;
    for (int s = 0; s < g->n; s++) {
        total += g->hand_n[s];
        if (uno_bits_count(&g->hand[s]) != g->hand_n[s] && !bad)
            bad = "a hand's count differs from its cards";
        uno_hand alt;
        memset(&alt, 0, sizeof alt);
        UNO_BITS_FOR(g->hand[s], r) {
            seen[uno_card_at(g, r)]++;
            uno_bits_set(&alt, g->t->rank[g->side ^ 1][uno_card_at(g, r)]);
        }
        if (g->two_sided && memcmp(&alt, &g->hand_alt[s], sizeof alt) != 0 && !bad)
            bad = "a hand's other-side bitset differs from its cards";
    }
    for (int i = 0; i < g->n_draw; i++)
        seen[g->draw[i]]++;
    for (int i = 0; i < g->n_discard; i++)
        seen[g->discard[i]]++;
    if (total != g->t->n_cards && !bad)
        bad = "card count differs from the deck size";
    for (int c = 0; c < g->t->n_cards && !bad; c++)
        if (seen[c] != 1) {
            bad = seen[c] ? "card held more than once" : "card missing";
            card = c;
        }
    if (g->n_discard < 1 && !bad)
        bad = "empty discard pile";
    if (bad) {
        fprintf(stderr,
                "uno_sim UNO_CHECK: card conservation violated %s: %s (card %d; %d cards counted, "
                "deck %d) at seat %d, round %d, turn %d\n",
                where, bad, card, total, g->t->n_cards, seat, g->rounds, g->turns);
        abort();
    }
}
#ifdef UNO_CHECK_INJECT_LOSS
/*
 * Self-test of the checker (tests/test_check_build.py): a card vanishes from
 * the mover's hand on turn UNO_CHECK_INJECT_LOSS, which must abort the run.
 */
#define CHECK_CARDS(g, seat, where)                                                                \
    ((g)->turns == UNO_CHECK_INJECT_LOSS && (g)->hand_n[seat] > 0 ? (void)(g)->hand_n[seat]--      \
                                                                   : (void)0,                      \
     check_cards((g), (seat), (where)))
#else
#define CHECK_CARDS(g, seat, where) check_cards((g), (seat), (where))
#endif
#else
#define CHECK_CARDS(g, seat, where) ((void)0)
#endif

/* ------------------------------------------------------------------------- */
/* Helpers (reference.Game)                                                   */
/* ------------------------------------------------------------------------- */

static inline int adv(const uno_game *g, int p, int steps)
{
    for (int i = 0; i < steps; i++)
        p = uno_next(g, p);
    return p;
}

static inline int teammates(const uno_game *g, int p, int q)
{
    return g->cfg->teams && (p % 2 == q % 2);
}

/* One list of the trace: seat s's hand, in hand order. */
static void trace_hand(uno_game *g, int s)
{
    uint8_t cards[UNO_HAND_CAP];
    int n = uno_hand_cards(g, s, cards);
    uno_trace_cards(g->tr, cards, n);
}

/* reference.Game.reshuffle (C15): the discard pile but its top becomes the draw pile. */
static int reshuffle(uno_game *g)
{
    if (g->n_discard <= 1)
        return 0;
    int m = g->n_discard - 1;
    /* Only called with an empty draw pile, so the discards move over whole. */
    memcpy(g->draw, g->discard, (size_t)m);
    g->discard[0] = g->discard[m];
    g->n_discard = 1;
    uno_draw_shuffle(g, m); /* taken as the cards are drawn */
    g->reshuffles++;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_RESHUFFLE, -1, m, 0, 0);
    return 1;
}

/* reference.Game.draw: up to k cards (fewer when nothing is left, C15); returns the count. */
static UNO_NOCLONE int draw_cards(uno_game *g, int p, int k, int reason)
{
    uint8_t got[UNO_MAX_CARDS];
    int n = 0;
    for (int i = 0; i < k; i++) {
        if (g->n_draw == 0 && !reshuffle(g))
            break;
        int card = uno_draw_pop(g);
        uno_hand_add(g, p, card);
        got[n++] = (uint8_t)card;
    }
    g->last_drawn = n ? got[n - 1] : -1;
    g->counters[UNO_CT_CARDS_DRAWN][p] += n;
    if (reason != UNO_R_CANNOT_PLAY && reason != UNO_R_VOLUNTARY)
        g->failed[p] = 0; /* penalty cards: it may hold any color now */
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_DRAW, p, reason, 0, 0);
        uno_trace_cards(g->tr, got, n);
    }
    return n;
}

/* reference.weighted: index i with probability w[i] / sum(w), one bounded draw (E2). */
static int weighted(uno_rng *r, const int32_t *w, int n)
{
    uint32_t total = 0;
    for (int i = 0; i < n; i++)
        total += (uint32_t)w[i];
    uint32_t x = uno_rng_bounded(r, total);
    for (int i = 0; i < n; i++) {
        if (x < (uint32_t)w[i])
            return i;
        x -= (uint32_t)w[i];
    }
    return n - 1; /* unreachable */
}

/*
 * reference.Game.launcher_law (E2): the cards this press fires, before the cap
 * at what the launcher holds; the table's randomness (the deal stream).
 */
static int launcher_law(uno_game *g)
{
    const uno_config *c = g->cfg;
    if (c->launcher == UNO_LAUNCHER_DIST)
        return weighted(&g->deal, c->launcher_weights, c->launcher_n_weights);
    int fire = c->launcher_fire;
    if (g->silent >= c->launcher_max_silent || fire >= 1000 ||
        (fire > 0 && uno_rng_bounded(&g->deal, 1000) < (uint32_t)fire))
        return 1 + weighted(&g->deal, c->launcher_burst, c->launcher_n_burst);
    return 0;
}

/*
 * reference.Game.press (E2, E3, E7): `by` presses the launcher once, aimed at
 * `to`, who takes what it fires; an empty launcher is first reloaded with the
 * discards but the top card.  Returns the cards fired, -1 when it held nothing.
 */
static UNO_COLD int press(uno_game *g, int by, int to, int reason)
{
    if (g->n_draw == 0)
        reshuffle(g);
    uint8_t got[UNO_MAX_CARDS];
    int fired = -1;
    if (g->n_draw > 0) {
        uno_draw_settle(g); /* the law draws from the deal stream too */
        int k = launcher_law(g);
        g->silent = k ? 0 : g->silent + 1;
        if (k > g->n_draw)
            k = g->n_draw; /* never more than it holds */
        for (int i = 0; i < k; i++) {
            got[i] = (uint8_t)uno_draw_pop(g);
            uno_hand_add(g, to, got[i]);
        }
        g->counters[UNO_CT_CARDS_DRAWN][to] += k;
        if (reason != UNO_R_CANNOT_PLAY && reason != UNO_R_VOLUNTARY)
            g->failed[to] = 0; /* penalty cards: it may hold any color now */
        fired = k;
    }
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_PRESS, to, reason, by, g->n_draw);
        uno_trace_cards(g->tr, got, fired > 0 ? fired : 0);
    }
    return fired;
}

static UNO_COLD void presses(uno_game *g, int by, int to, int n, int reason)
{
    for (int i = 0; i < n; i++)
        press(g, by, to, reason);
}

/* reference.Game.draw_until (F4): draw until a card of the active color, or nothing is left. */
static void draw_until(uno_game *g, int p, int reason)
{
    uint8_t got[UNO_MAX_CARDS];
    int n = 0;
    while (g->n_draw > 0 || reshuffle(g)) {
        int card = uno_draw_pop(g);
        uno_hand_add(g, p, card);
        got[n++] = (uint8_t)card;
        if (uno_color(g, card) == g->color)
            break;
    }
    g->counters[UNO_CT_CARDS_DRAWN][p] += n;
    g->failed[p] = 0; /* penalty cards: it may hold any color now */
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_DRAW_UNTIL, p, reason, g->color, 0);
        uno_trace_cards(g->tr, got, n);
    }
}

/* reference.Game.draw_until_playable (C-H2): one at a time until a playable card. */
static UNO_COLD int draw_until_playable(uno_game *g, int p)
{
    uint8_t got[UNO_MAX_CARDS];
    int n = 0;
    while (g->n_draw > 0 || reshuffle(g)) {
        int card = uno_draw_pop(g);
        uno_hand_add(g, p, card);
        got[n++] = (uint8_t)card;
        if (uno_playable(g, card))
            break;
    }
    g->last_drawn = n ? got[n - 1] : -1;
    g->counters[UNO_CT_CARDS_DRAWN][p] += n;
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_DRAW, p, UNO_R_UNTIL_PLAYABLE, 0, 0);
        uno_trace_cards(g->tr, got, n);
    }
    return n;
}

/* reference.Game.penalty: what draw card kind k makes p draw, plus `extra`. */
static void penalty(uno_game *g, int p, int k, int reason, int extra)
{
    if (g->t->effect[k] == UNO_WILD_DRAW_COLOR) {
        draw_until(g, p, reason);
        if (extra)
            draw_cards(g, p, extra, reason);
    } else {
        draw_cards(g, p, g->t->amount[k] + extra, reason);
    }
}

static inline void skip(uno_game *g, int victim)
{
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_SKIP, victim, 0, 0, 0);
}

/* reference.Game.uno_check (C13). */
static void uno_check(uno_game *g, int p)
{
    int forgot = uno_forgets_uno(g, p);
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_UNO, p, !forgot, 0, 0);
    if (!forgot)
        return;
    g->counters[UNO_CT_UNO_FORGOTTEN][p]++;
    int q = p;
    for (int i = 0, m = g->n_active - 1; i < m; i++) {
        q = uno_next(g, q);
        if (teammates(g, p, q))
            continue;
        if (uno_catches(g, q, p)) {
            g->counters[UNO_CT_UNO_CAUGHT][p]++;
            if (g->tr)
                uno_trace_event(g->tr, UNO_EV_CAUGHT, p, q, 0, 0);
            if (g->launcher) /* E7: press twice instead of drawing 2 */
                presses(g, p, p, 2, UNO_R_UNO_PENALTY);
            else
                draw_cards(g, p, 2, UNO_R_UNO_PENALTY);
            return;
        }
    }
}

static int play(uno_game *g, int p, int i);

#define NO_STACK (-100) /* try_stack: the victim takes the cards */

/* reference.Game.try_stack (C-H1): the victim may answer with a draw card. */
static UNO_COLD int try_stack(uno_game *g, int victim, int k, int pend)
{
    int total = pend + g->t->amount[k];
    int any = 0;
    UNO_BITS_FOR(g->hand[victim], r)
        if (!any)
            any = uno_can_stack(g, uno_card_at(g, r));
    if (!any)
        return NO_STACK;
    int card = uno_choose_stack(g, victim, total);
    if (card == UNO_DRAW)
        return NO_STACK;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_STACK, victim, total, 0, 0);
    g->turns++; /* the answer is the victim's turn */
    g->pending = total;
    g->last_player = victim;
    g->last_card = card;
    int r = play(g, victim, card);
    if (r == ROUND_OVER && g->round_winner < 0)
        g->round_winner = victim; /* it went out, or someone answering it did first */
    return r;
}

/* reference.Game.seven_o (C-H5): a 7 swaps p's hand with a target's, a 0 passes all on. */
static UNO_COLD void seven_o(uno_game *g, int p, int card, int face)
{
    uno_hand tmp;
    if (face == 7) {
        int t = uno_choose_target(g, p, card);
        if (t == p)
            return;
        uno_hands_swap(g, p, t);
        uint8_t f = g->failed[p]; /* the public failed colors follow the cards */
        g->failed[p] = g->failed[t];
        g->failed[t] = f;
        if (g->tr)
            uno_trace_event(g->tr, UNO_EV_SWAP, p, t, 0, 0);
        return;
    }
    /* seats in play order from p; each hand moves one seat on, the last one's to p */
    int order[UNO_MAX_PLAYERS], m = g->n_active;
    order[0] = p;
    for (int i = 1; i < m; i++)
        order[i] = uno_next(g, order[i - 1]);
    int last = order[m - 1], n = g->hand_n[last];
    uint8_t f = g->failed[last];
    tmp = g->hand[last];
    uno_hand tmp_alt = g->hand_alt[last];
    for (int i = m - 1; i > 0; i--) {
        int to = order[i], from = order[i - 1];
        g->hand[to] = g->hand[from];
        g->hand_alt[to] = g->hand_alt[from];
        g->hand_n[to] = g->hand_n[from];
        g->failed[to] = g->failed[from];
    }
    g->hand[p] = tmp;
    g->hand_alt[p] = tmp_alt;
    g->hand_n[p] = n;
    g->failed[p] = f;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_ROTATE, p, g->direction, 0, 0);
}

static void reverse_u8(uint8_t *a, int n)
{
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        uint8_t tmp = a[i];
        a[i] = a[j];
        a[j] = tmp;
    }
}

/*
 * reference.Game.flip (F3): every card turns over.  The discard pile and the
 * draw pile are turned as stacks (their order reverses); the former bottom
 * discard comes up on top and takes no effect; a wild there gets its color
 * from p (unless p went out).
 */
/* Every hand turns over (g->side has just changed): the other side's bitsets, kept in
   step, take over. */
static void hands_turn_over(uno_game *g)
{
    for (int s = 0; s < g->n; s++) {
        uno_hand h = g->hand[s];
        g->hand[s] = g->hand_alt[s];
        g->hand_alt[s] = h;
    }
}

static void flip(uno_game *g, int p, int out)
{
    g->side ^= 1;
    hands_turn_over(g);
    reverse_u8(g->discard, g->n_discard);
    uno_draw_settle(g); /* the pile turns over in its shuffled order */
    reverse_u8(g->draw, g->n_draw);
    int top = g->discard[g->n_discard - 1];
    g->top_face = uno_face(g, top);
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_FLIP, p, g->side, top, 0);
    int col = uno_color(g, top);
    if (col != UNO_NO_COLOR) {
        g->color = col;
    } else if (out) {
        g->color = UNO_NO_COLOR;
    } else {
        g->color = uno_choose_color(g, p);
        if (g->tr)
            uno_trace_event(g->tr, UNO_EV_COLOR, p, g->color, 0, 0);
    }
}

/* reference.Game.has_legal_play: a playable card that would not be a bluff (C7). */
static UNO_INLINE int has_legal_play_w(const uno_game *g, int p, const int W)
{
    uno_hand legal = uno_legal_cards_w(g, p, W);
    return uno_bits_first_w(&legal, W) >= 0;
}

static int has_legal_play(const uno_game *g, int p)
{
    return uno_narrow(g->t) ? has_legal_play_w(g, p, 2) : has_legal_play_w(g, p, 4);
}

/* ------------------------------------------------------------------------- */
/* Hello Kitty (H2) and the hand-exchange deck (S2, S3)                       */
/* ------------------------------------------------------------------------- */

/* reference.Game.fewest_draw (H2): the seats holding the fewest cards draw; p left out when
   it went out. */
static void fewest_draw(uno_game *g, int p, int k, int out)
{
    int seats[UNO_MAX_PLAYERS], m = 0, low = UNO_HAND_CAP + 1;
    for (int i = 0, q = p; i < g->n_active; i++, q = uno_next(g, q))
        if (!(out && q == p)) {
            seats[m++] = q;
            if (g->hand_n[q] < low)
                low = g->hand_n[q];
        }
    for (int i = 0; i < m; i++)
        if (g->hand_n[seats[i]] == low)
            draw_cards(g, seats[i], g->t->amount[k], g->t->reason[k]);
}

/* reference.Game.swap_hands (S2): p swaps hands with the opponent it picks. */
static void swap_hands(uno_game *g, int p, int card)
{
    int q = uno_choose_target(g, p, card);
    if (q == p)
        return;
    uno_hands_swap(g, p, q);
    uint8_t f = g->failed[p];
    g->failed[p] = g->failed[q];
    g->failed[q] = f;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_EXCHANGE, p, q, 0, 0);
}

/* reference.Game.shuffle_hands (S2 exchange=shuffle): every hand gathered in seat order,
   shuffled by the table, dealt one at a time clockwise from p's left. */
static void shuffle_hands(uno_game *g, int p)
{
    uint8_t pile[UNO_MAX_CARDS];
    int np = 0;
    for (int s = 0; s < g->n; s++) {
        np += uno_hand_cards(g, s, pile + np); /* in hand order */
        memset(&g->hand[s], 0, sizeof g->hand[s]);
        memset(&g->hand_alt[s], 0, sizeof g->hand_alt[s]);
        g->hand_n[s] = 0;
        g->failed[s] = 0; /* new hands: nothing is known of them */
    }
    uno_draw_settle(g); /* the deal stream serves this shuffle next */
    uno_rng_shuffle_u8(&g->deal, pile, np);
    int seats[UNO_MAX_PLAYERS], m = 0;
    for (int i = 0, q = p; i < g->n_active; i++)
        seats[m++] = q = g->next_seat[1][q];
    for (int i = 0; np > 0;) {
        uno_hand_add(g, seats[i], pile[--np]);
        i = i + 1 < m ? i + 1 : 0;
    }
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_SHUFFLE_HANDS, p, 0, 0, 0);
        for (int s = 0; s < g->n; s++)
            trace_hand(g, s);
    }
}

/* reference.Game.put_down (S3): cards go under the top of the discard pile. */
static void put_down(uno_game *g, int q, const uint8_t *cards, int m)
{
    int top = g->discard[g->n_discard - 1];
    memcpy(g->discard + g->n_discard - 1, cards, (size_t)m);
    g->n_discard += m;
    g->discard[g->n_discard - 1] = (uint8_t)top;
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_PUT_DOWN, q, 0, 0, 0);
        uno_trace_cards(g->tr, cards, m);
    }
}

/* reference.Game.to_size (S3 seven, three): draw or (not on a last card) discard to `size`. */
static void to_size(uno_game *g, int q, int size, int reason, int out)
{
    int n = g->hand_n[q];
    if (n < size) {
        draw_cards(g, q, size - n, reason);
    } else if (n > size && !out) { /* reference.Game.discard_to */
        uint8_t gone[UNO_HAND_CAP];
        int m = 0;
        for (int need = n - size; need > 0; need--) {
            int card = uno_choose_discard(g, q, need);
            gone[m++] = (uint8_t)card;
            uno_hand_remove(g, q, card);
        }
        put_down(g, q, gone, m);
    }
}

/* reference.Game.custom (S3): the customizable wild's rule; on a last card only its draws. */
static int custom(uno_game *g, int p, int k, int out)
{
    int victim = uno_next(g, p);
    int reason = g->t->reason[k];
    switch (g->t->amount[k]) {
    case UNO_CUSTOM_DRAW_COLOR:
        draw_until(g, victim, reason);
        break;
    case UNO_CUSTOM_WILDS_DOWN:
        if (out)
            break;
        for (int i = 0, q = p, m = g->n_active - 1; i < m; i++) {
            q = uno_next(g, q);
            uint8_t wilds[UNO_HAND_CAP];
            int nw = 0, n = g->hand_n[q];
            UNO_BITS_FOR(uno_bits_and(&g->hand[q], &g->t->color_mask[g->side][0]), r)
                wilds[nw++] = (uint8_t)uno_card_at(g, r); /* in hand order */
            if (nw == 0)
                continue;
            int keep = nw == n; /* a hand is never emptied out of turn: one wild stays */
            for (int j = keep; j < nw; j++)
                uno_hand_remove(g, q, wilds[j]);
            if (nw > keep)
                put_down(g, q, wilds + keep, nw - keep);
        }
        break;
    case UNO_CUSTOM_DRAW_THREE:
        if (!out && !has_legal_play(g, victim)) {
            draw_cards(g, victim, 3, reason);
            skip(g, victim);
            return adv(g, p, 2);
        }
        break;
    case UNO_CUSTOM_EXTRA_TURN:
        if (!out) {
            if (g->tr)
                uno_trace_event(g->tr, UNO_EV_EXTRA_TURN, p, 0, 0, 0);
            return p;
        }
        break;
    case UNO_CUSTOM_SEVEN:
        to_size(g, victim, 7, reason, out);
        break;
    default: /* UNO_CUSTOM_THREE: every seat, in play order from p */
        for (int i = 0, q = p, m = g->n_active; i < m; i++, q = uno_next(g, q))
            if (!(out && q == p))
                to_size(g, q, 3, reason, out);
        break;
    }
    return out ? ROUND_OVER : uno_next(g, p);
}

/*
 * The launcher's cards of resolve (reference.Game.resolve): Hit 2 (E5; as a
 * starter p is the dealer and the first player presses) and Extreme Hit (E6).
 */
static UNO_COLD int resolve_hit(uno_game *g, int p, int card, int k, int out, int starter)
{
    const uno_table *t = g->t;
    int victim;
    if (t->effect[k] == UNO_HIT) {
        victim = uno_next(g, p);
        presses(g, victim, victim, t->amount[k], t->reason[k]);
        if (out)
            return ROUND_OVER;
        skip(g, victim);
        return adv(g, p, 2);
    }
    if (starter)
        return -3 - card;
    victim = uno_choose_target(g, p, card); /* aim at a player; the attacker presses at it */
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_AIM, p, victim, 0, 0);
    presses(g, victim, victim, g->cfg->hit_target_presses, t->reason[k]);
    presses(g, p, victim, t->amount[k], t->reason[k]);
    return out ? ROUND_OVER : uno_next(g, p);
}

/*
 * The one effect dispatcher (C9-C12, C11 at two players, C14 on a last
 * card), for plays (reference.Game.resolve) and for the starter card
 * (the tail of reference.Game.start_round, starter != 0, p = the dealer).
 * Returns the next seat to play, ROUND_OVER, or -3 - card for a card that
 * cannot start.
 */
static UNO_INLINE int resolve(uno_game *g, int p, int card, int bluff, int prev_color, int prev_face,
                   int starter)
{
    const uno_table *t = g->t;
    int k = t->card_kind[g->side][card];
    int out = !starter && g->hand_n[p] == 0;
    int victim;
    switch (t->effect[k]) {
    case UNO_NUMBER:
        if (out)
            return ROUND_OVER;
        if (g->cfg->seven_o && !starter && (t->face[k] == 7 || t->face[k] == 0))
            seven_o(g, p, card, t->face[k]);
        return uno_next(g, p);
    case UNO_DISCARD_ALL: /* E4: as a starter too, it is matched like any card */
        return out ? ROUND_OVER : uno_next(g, p);
    case UNO_HIT:
    case UNO_WILD_HIT:
        return resolve_hit(g, p, card, k, out, starter);
    case UNO_WILD:
    case UNO_WILD_FEWEST_DRAW:
    case UNO_WILD_EXCHANGE:
    case UNO_WILD_CUSTOM:
        if (starter) { /* the player left of the dealer names the color (H2, S2, S3 too) */
            int first = uno_next(g, p);
            g->color = uno_choose_color(g, first);
            if (g->tr)
                uno_trace_event(g->tr, UNO_EV_COLOR, first, g->color, 0, 0);
            return first;
        }
        switch (t->effect[k]) {
        case UNO_WILD_FEWEST_DRAW:
            fewest_draw(g, p, k, out);
            break;
        case UNO_WILD_EXCHANGE:
            if (out) /* the round is over: nothing to exchange */
                return ROUND_OVER;
            if (g->cfg->exchange == UNO_EXCHANGE_SWAP)
                swap_hands(g, p, card);
            else
                shuffle_hands(g, p);
            break;
        case UNO_WILD_CUSTOM:
            return custom(g, p, k, out);
        default:
            break;
        }
        return out ? ROUND_OVER : uno_next(g, p);
    case UNO_SKIP:
        if (out)
            return ROUND_OVER;
        skip(g, uno_next(g, p));
        return adv(g, p, 2);
    case UNO_SKIP_ALL: /* F4: everyone else loses a turn */
        if (starter)
            return -3 - card;
        if (out)
            return ROUND_OVER;
        victim = p;
        for (int i = 0, m = g->n_active - 1; i < m; i++) {
            victim = uno_next(g, victim);
            skip(g, victim);
        }
        return p;
    case UNO_FLIP: /* F3, also on a last card */
        if (starter)
            return -3 - card;
        flip(g, p, out);
        return out ? ROUND_OVER : uno_next(g, p);
    case UNO_REVERSE:
        if (out)
            return ROUND_OVER;
        g->direction = -g->direction;
        if (g->tr)
            uno_trace_event(g->tr, UNO_EV_REVERSE, p, g->direction, 0, 0);
        if (starter) /* the dealer plays first, then play goes to the right */
            return p;
        if (g->n_active == 2) {
            skip(g, uno_next(g, p));
            return adv(g, p, 2);
        }
        return uno_next(g, p);
    case UNO_DRAW_CARDS:
        victim = uno_next(g, p);
        if (g->cfg->stacking) { /* C-H1 */
            int pend = g->pending;
            g->pending = 0;
            if (!out && !starter) {
                int r = try_stack(g, victim, k, pend);
                if (r != NO_STACK)
                    return r;
            }
            draw_cards(g, victim, t->amount[k] + pend, pend ? UNO_R_STACK : t->reason[k]);
        } else {
            draw_cards(g, victim, t->amount[k], t->reason[k]);
        }
        if (out)
            return ROUND_OVER;
        skip(g, victim);
        return adv(g, p, 2);
    default: /* UNO_WILD_DRAW, UNO_WILD_DRAW_COLOR */
        break;
    }
    if (starter)
        return -3 - card;
    /* C12 / F4: a challenge, never on a last card (always legal, C14). */
    victim = uno_next(g, p);
    int pend = 0;
    if (g->cfg->stacking) { /* C-H1: the victim may stack instead of challenging */
        pend = g->pending;
        g->pending = 0;
        if (!out && t->effect[k] == UNO_WILD_DRAW) {
            int r = try_stack(g, victim, k, pend);
            if (r != NO_STACK)
                return r;
        }
    }
    if (out || !uno_wants_challenge(g, victim, p, prev_color)) {
        penalty(g, victim, k, pend ? UNO_R_STACK : t->reason[k], pend);
        if (out)
            return ROUND_OVER;
        skip(g, victim);
        return adv(g, p, 2);
    }
    g->counters[UNO_CT_CHALLENGES][victim]++;
    g->reveal_from[victim] = p; /* the challenger has seen the offender's hand */
    g->reveal_n[victim] = uno_hand_cards(g, p, g->reveal[victim]);
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_CHALLENGE, victim, p, bluff, 0);
        uno_trace_cards(g->tr, g->reveal[victim], g->reveal_n[victim]);
    }
    if (!bluff) {
        penalty(g, victim, k, UNO_R_CHALLENGE, 2 + pend);
        skip(g, victim);
        return adv(g, p, 2);
    }
    g->counters[UNO_CT_CHALLENGES_WON][victim]++;
    if (g->cfg->challenge == UNO_CHALLENGE_MODERN || pend) { /* C-H1: the stack, on the bluffer */
        penalty(g, p, k, UNO_R_CHALLENGE, pend);
        return victim;
    }
    /* vintage: take the card back, play a legal card instead (with its effect), draw */
    g->n_discard--;
    uno_hand_add(g, p, card);
    g->color = prev_color;
    g->top_face = prev_face;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_TAKE_BACK, p, card, 0, 0);
    int again = uno_choose_replacement(g, p);
    g->last_player = p;
    g->last_card = again;
    int nxt = play(g, p, again);
    penalty(g, p, k, UNO_R_CHALLENGE, 0);
    return nxt;
}

/*
 * The second half of reference.Game.play for a Discard All (E4), just played
 * and on top of the discard pile: the rest of its color goes under it, in
 * hand order (the others keep theirs); the trace shows them after the play.
 */
static UNO_COLD void discard_all(uno_game *g, int p, int card)
{
    const uno_table *t = g->t;
    const int side = g->side;
    if (t->effect[t->card_kind[side][card]] != UNO_DISCARD_ALL)
        return;
    const int col = t->card_color[side][card];
    int also = --g->n_discard;
    uno_hand same = uno_bits_and(&g->hand[p], &t->color_mask[side][col + 1]);
    UNO_BITS_FOR(same, r) { /* in hand order */
        int c = t->unrank[side][r];
        g->discard[g->n_discard++] = (uint8_t)c;
        uno_hand_remove(g, p, c);
    }
    g->discard[g->n_discard++] = (uint8_t)card;
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_DISCARD_ALL, p, 0, 0, 0);
        uno_trace_cards(g->tr, g->discard + also, g->n_discard - 1 - also);
    }
}

/* reference.Game.play: p plays `card`, which it holds. */
static int play(uno_game *g, int p, int card)
{
#if UNO_CHECK
    assert(card >= 0 && card < g->t->n_cards);
    assert((g->hand[p].w[uno_rank(g, card) >> 6] >> (uno_rank(g, card) & 63)) & 1);
#endif
    /* the card's columns before the uint8_t stores below (which may alias g->t, g->side) */
    const uno_table *t = g->t;
    const int side = g->side;
    const int restricted = t->card_restricted[side][card];
    const int col = t->card_color[side][card], face = t->card_face[side][card];
    uno_hand_remove(g, p, card);
    int bluff = restricted && uno_holds_color(g, p);
    int prev_color = g->color, prev_face = g->top_face;
    g->discard[g->n_discard++] = (uint8_t)card;
    g->top_face = face;
    int named = -1;
    if (col == UNO_NO_COLOR) {
        g->color = named = uno_choose_color(g, p);
    } else {
        g->color = col;
        g->failed[p] &= (uint8_t)~(1u << col);
    }
    if (restricted)
        g->counters[UNO_CT_BLUFFS][p] += bluff;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_PLAY, p, card, named, restricted ? !bluff : -1);
    if (g->launcher) /* UNO Extreme only: one test of a flag in every other game */
        discard_all(g, p, card);
    if (g->hand_n[p] == 1) {
        int e = t->effect[t->card_kind[side][card]];
        /* S2: no UNO call on the hand-exchange wild, C-H5 nor on a Seven-O 7 or 0
           (docs/rules.md): the player's hand is about to change */
        if (e != UNO_WILD_EXCHANGE &&
            !(g->cfg->seven_o && e == UNO_NUMBER && (face == 7 || face == 0)))
            uno_check(g, p);
    }
    return resolve(g, p, card, bluff, prev_color, prev_face, 0);
}

/*
 * reference.Game.jump_turn (C-H4): a jump-in on the card just played, as a
 * turn of the jumper, asked in play order from the seat after its player;
 * NO_STACK when nobody jumps.
 */
static UNO_COLD int jump_turn(uno_game *g)
{
    g->jump_open = 0;
    int top = g->discard[g->n_discard - 1];
    if (top != g->last_card)
        return NO_STACK; /* a Flip: the card played is no longer on top */
    const uno_table *t = g->t;
    const int side = g->side;
    const uint8_t *kinds = t->card_kind[side];
    int kind = kinds[top], q = g->last_player, face = t->card_face[side][top];
    /* an identical card has the top's color and face: only those bits are looked at */
    uno_hand same = t->color_mask[side][t->card_color[side][top] + 1];
    if (t->faces_ok[side])
        same = uno_bits_and(&same, &t->face_mask[side][face]);
    const int W = uno_narrow(t) ? 2 : 4;
    for (int j = 0, m = g->n_active - 1; j < m; j++) {
        q = uno_next(g, q);
        int card = -1; /* its first identical card in hand order that is not a bluff */
        uno_hand c = uno_bits_and(&g->hand[q], &same);
        for (int r = uno_bits_first_w(&c, W); r >= 0; r = uno_bits_first_w(&c, W)) {
            int x = uno_card_at(g, r);
            if (kinds[x] == kind && !(uno_restricted(g, x) && uno_holds_color(g, q))) {
                card = x;
                break;
            }
            uno_bits_clear(&c, r);
        }
        if (card < 0)
            continue;
        if (!uno_wants_jump(g, q, top))
            continue;
        g->idle = 0;
        if (g->tr)
            uno_trace_event(g->tr, UNO_EV_JUMP_IN, q, top, 0, 0);
        g->jump_open = 1;
        g->last_player = q;
        g->last_card = card;
        int r = play(g, q, card);
        if (r == ROUND_OVER && g->round_winner < 0)
            g->round_winner = q;
        return r;
    }
    return NO_STACK;
}

/* E3 (reference.Game.take_turn): press once; what fires joins the hand; the turn passes. */
static UNO_COLD int press_turn(uno_game *g, int p, int forced)
{
    if (press(g, p, p, forced ? UNO_R_CANNOT_PLAY : UNO_R_VOLUNTARY) >= 0)
        g->idle = 0;
    else if (++g->idle >= g->n_active) /* nothing left to fire, nothing to reload */
        return STALEMATE;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_PASS, p, 0, 0, 0);
    return uno_next(g, p);
}

/* C-H4: p is about to play `card`; the next turn first offers a jump-in on it. */
static inline void open_jump(uno_game *g, int p, int card)
{
    g->jump_open = 1;
    g->last_player = p;
    g->last_card = card;
}

/*
 * reference.Game.take_turn: returns the next seat, ROUND_OVER or STALEMATE.
 * `house` (a constant at each call) is whether any house rule C-H1..C-H5 is on:
 * play_round calls a copy without their tests when none is.
 */
static UNO_INLINE int take_turn(uno_game *g, int p, const int house)
{
    const uno_config *cfg = g->cfg;
    if (house && g->jump_open) { /* C-H4: a jump-in on the last card played takes this turn */
        int r = jump_turn(g);
        if (r != NO_STACK)
            return r;
    }
    /* a greedy seat that never bluffs, nothing forced: the greedy choice right here */
    const uno_policy *pol = &g->pol[p];
    int action;
    if (pol->id == UNO_POLICY_GREEDY && pol->bluff <= 0.0 && !g->force)
        action = uno_narrow(g->t)
                     ? uno_greedy_honest_w(g, p, pol, uno_holds_color_w(g, p, 2), 2)
                     : uno_greedy_honest_w(g, p, pol, uno_holds_color_w(g, p, 4), 4);
    else
        action = uno_choose_play(g, p);
    if (house && action == UNO_DRAW && cfg->forced_play && has_legal_play(g, p))
        action = uno_choose_replacement(g, p); /* C-H3: no voluntary draw */
    if (action != UNO_DRAW) {
        g->idle = 0;
        if (house && cfg->jump_in)
            open_jump(g, p, action);
        return play(g, p, action);
    }
    if (g->color >= 0) /* public: p drew on this color */
        g->failed[p] |= (uint8_t)(1u << g->color);
    int forced = !has_legal_play(g, p);
    if (g->launcher)
        return press_turn(g, p, forced);
    int got;
    if (house && forced && cfg->draw_until_playable) /* C-H2 */
        got = draw_until_playable(g, p);
    else
        got = draw_cards(g, p, 1, forced ? UNO_R_CANNOT_PLAY : UNO_R_VOLUNTARY);
    if (got) {
        g->idle = 0;
        int card = g->last_drawn;
        if (uno_playable(g, card)) {
            int bluff = uno_restricted(g, card) && uno_holds_color(g, p);
            int play_it;
            if (!bluff && ((forced && cfg->drawn_card == UNO_DRAWN_MUST) ||
                           (house && cfg->forced_play)))
                play_it = 1;
            else
                play_it = uno_plays_drawn(g, p, bluff);
            if (play_it) {
                if (house && cfg->jump_in)
                    open_jump(g, p, card);
                return play(g, p, card);
            }
        }
    } else if (++g->idle >= g->n_active) {
        return STALEMATE;
    }
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_PASS, p, 0, 0, 0);
    return uno_next(g, p);
}

/* ------------------------------------------------------------------------- */
/* Rounds and games                                                           */
/* ------------------------------------------------------------------------- */

/* reference.Game.choose_dealer (C3): highest number deals; ties draw again. */
static int choose_dealer(uno_game *g)
{
    const uno_table *t = g->t;
    int size = t->n_cards;
    uint8_t pile[UNO_MAX_CARDS];
    for (int i = 0; i < size; i++)
        pile[i] = (uint8_t)i;
    /* the round-0 deal stream, seeded by init_game (a re-pairing may have used it first) */
    uno_rng_shuffle_u8(&g->deal, pile, size);
    int np = size;
    int redraw = g->cfg->dealer_draw == UNO_DEALER_REDRAW;
    int numbers = 0; /* number cards left in the pack: only the redraw rule uses it */
    for (int i = 0; redraw && i < size; i++)
        numbers += t->effect[t->card_kind[0][pile[i]]] == UNO_NUMBER;
    int contenders[UNO_MAX_PLAYERS] = {0}, values[UNO_MAX_PLAYERS] = {0}, nc = 0;
    for (int s = 0; s < g->n; s++)
        if (g->active[s])
            contenders[nc++] = s;
    int64_t list = -1;
    int64_t ev = 0;
    if (g->tr) {
        ev = g->tr->n_ev;
        uno_trace_event(g->tr, UNO_EV_DEALER_DRAW, -1, 0, 0, 0);
        list = uno_trace_open(g->tr);
    }
    while (nc > 1) {
        if ((redraw ? numbers : np) < nc)
            break; /* nothing left to break the tie: the first contender deals */
        for (int j = 0; j < nc; j++) {
            for (;;) {
                int c = pile[--np];
                if (g->tr) {
                    uno_trace_push(g->tr, contenders[j]);
                    uno_trace_push(g->tr, c);
                }
                int k = t->card_kind[0][c]; /* the light side (F2) */
                if (t->effect[k] == UNO_NUMBER) {
                    numbers--;
                    values[j] = t->face[k];
                    break;
                }
                if (redraw) { /* put back under the pack, draw again */
                    memmove(pile + 1, pile, (size_t)np);
                    pile[0] = (uint8_t)c;
                    np++;
                    continue;
                }
                values[j] = 0;
                break;
            }
        }
        int top = values[0];
        for (int j = 1; j < nc; j++)
            if (values[j] > top)
                top = values[j];
        int m = 0;
        for (int j = 0; j < nc; j++)
            if (values[j] == top)
                contenders[m++] = contenders[j];
        nc = m;
    }
    if (g->tr) {
        uno_trace_close(g->tr, list);
        if (!g->tr->failed)
            g->tr->ev[ev].a = contenders[0];
    }
    return contenders[0];
}

/*
 * reference.Game.start_round: shuffle (or take `deck`, top card first),
 * deal (C4), turn up the starter (C5).  Returns the first player, or
 * -3 - card for a starter that cannot start.
 */
static int start_round(uno_game *g, int dealer, const uint8_t *deck)
{
    const uno_table *t = g->t;
    int size = t->n_cards;
    g->rounds++;
    g->direction = 1;
    g->idle = 0;
    g->jump_open = 0;
    g->round_winner = -1;
    g->silent = 0; /* E2: the launcher's state is per round */
    g->side = 0; /* F2: every round starts on the light side */
    uint8_t *pile = g->draw; /* the draw pile from the start: top last */
    uno_rng_seed_deal(&g->deal, &g->seeded, (uint64_t)g->rounds);
    uno_dec_round(g, (uint64_t)g->rounds);
    g->n_draw = size;
    g->bag = 0;
    if (!deck) {
        for (int i = 0; i < size; i++)
            pile[i] = (uint8_t)i;
        uno_draw_shuffle(g, size);
        if (g->tr) /* the trace records the whole deck order */
            uno_draw_settle(g);
    } else {
        for (int i = 0; i < size; i++)
            pile[i] = deck[size - 1 - i];
    }
    int64_t ev = 0;
    if (g->tr) {
        ev = g->tr->n_ev;
        uno_trace_event(g->tr, UNO_EV_ROUND_START, -1, g->rounds, dealer, 0);
        int64_t at = uno_trace_open(g->tr);
        for (int i = size - 1; i >= 0; i--)
            uno_trace_push(g->tr, pile[i]);
        uno_trace_close(g->tr, at);
    }
    for (int s = 0; s < g->n; s++) {
        g->hand_n[s] = 0;
        memset(&g->hand[s], 0, sizeof g->hand[s]);
        memset(&g->hand_alt[s], 0, sizeof g->hand_alt[s]);
        g->failed[s] = 0;
        g->reveal_from[s] = -1;
        g->reveal_n[s] = 0;
    }
    /* One at a time from the dealer's left: the seats in dealing order, each of them
       gets its r-th card in pass r (the hands were emptied above). */
    int order[UNO_MAX_PLAYERS];
    const int n_deal = g->n_active, hand_size = g->cfg->hand_size;
    for (int j = 0, q = dealer; j < n_deal; j++)
        order[j] = q = uno_next(g, q);
    const uint8_t *rank = t->rank[0], *dark = t->rank[1]; /* dealt on the light side (F2) */
    for (int r = 0; r < hand_size; r++)
        for (int j = 0; j < n_deal; j++) {
            int card = uno_draw_pop(g);
            uno_bits_set(&g->hand[order[j]], rank[card]);
            if (g->two_sided)
                uno_bits_set(&g->hand_alt[order[j]], dark[card]);
        }
    for (int j = 0; j < n_deal; j++)
        g->hand_n[order[j]] = hand_size;
    int32_t returned[UNO_MAX_CARDS]; /* card + 256 * the side it was read on */
    int n_returned = 0;
    int card, flipped = 0;
    for (;;) { /* C5 */
        card = uno_draw_pop(g);
        int k = t->card_kind[g->side][card];
        if (t->effect[k] == UNO_FLIP && g->cfg->flip_starter && !flipped) {
            /* F2 switch: the Flip turns the game over once (the draw pile as a stack, every
               hand); its other face is then read as the starter */
            flipped = 1;
            g->side ^= 1;
            hands_turn_over(g);
            uno_draw_settle(g);
            reverse_u8(pile, g->n_draw);
            k = t->card_kind[g->side][card];
        }
        if (t->starter[k] != UNO_STARTER_RETURN)
            break;
        if (n_returned < UNO_MAX_CARDS)
            returned[n_returned++] = card + 256 * g->side;
        uno_draw_settle(g); /* the first shuffle's last steps, then this one */
        pile[g->n_draw++] = (uint8_t)card;
        uno_rng_shuffle_u8(&g->deal, pile, g->n_draw);
    }
    g->discard[0] = (uint8_t)card;
    g->n_discard = 1;
    g->color = uno_color(g, card);
    g->top_face = uno_face(g, card);
    if (g->tr) {
        if (!g->tr->failed) {
            g->tr->ev[ev].c = card;
            g->tr->ev[ev].p = g->side;
        }
        for (int s = 0; s < g->n; s++)
            trace_hand(g, s);
        uno_trace_ints(g->tr, returned, n_returned);
        if (flipped) /* F2 switch: the starter turned the game over */
            uno_trace_event(g->tr, UNO_EV_FLIP, -1, g->side, card, 0);
    }
    int first = resolve(g, dealer, card, 0, g->color, g->top_face, 1);
    CHECK_CARDS(g, dealer, "after the deal");
    return first;
}

/*
 * reference.Game.play_round: the winning seat, -1 for a stalemate, LIMIT,
 * or -3 - card.
 */
static int play_round(uno_game *g, int dealer, const uint8_t *deck)
{
    g->round_dealer = dealer;
    g->round_turns0 = g->turns;
    g->round_reshuffles0 = g->reshuffles;
    int p = start_round(g, dealer, deck);
    g->round_starter = g->t->card_kind[g->side][g->discard[0]]; /* the side play starts on */
    if (p <= -3)
        return p;
    const uno_config *cfg = g->cfg;
    int32_t limit = cfg->max_turns > 0 ? cfg->max_turns : UNO_MAX_TURNS;
    const int house = cfg->stacking || cfg->draw_until_playable || cfg->forced_play ||
                      cfg->jump_in || cfg->seven_o;
    for (int32_t turn = 0;; turn++) {
        if (turn >= limit)
            return LIMIT;
        g->turns++;
        int next = house ? take_turn(g, p, 1) : take_turn(g, p, 0);
        CHECK_CARDS(g, p, "after a turn");
        if (next == ROUND_OVER) /* C-H1, C-H4: a stacker or a jumper may have gone out */
            return g->round_winner >= 0 ? g->round_winner : p;
        if (next == STALEMATE) {
            g->stalemates++;
            return -1;
        }
        p = next;
    }
}

static int32_t hand_value(const uno_game *g, int s)
{
    const int32_t *value = g->t->card_value[g->side];
    const uint8_t *un = g->t->unrank[g->side];
    int32_t v = 0;
    UNO_BITS_FOR(g->hand[s], r)
        v += value[un[r]];
    return v;
}

/* One row of uno_round_rows for the round just scored. */
static void round_row(uno_game *g, int winner, const int32_t *points)
{
    uno_round_rows *r = g->rows;
    if (r->n >= r->cap) {
        g->rows_full = 1;
        return;
    }
    int64_t i = r->n++;
    int n = g->n;
    r->game[i] = (int64_t)g->game_no;
    r->round[i] = g->rounds;
    r->dealer[i] = g->round_dealer;
    r->starter[i] = g->round_starter;
    r->winner[i] = winner;
    r->turns[i] = g->turns - g->round_turns0;
    r->reshuffles[i] = g->reshuffles - g->round_reshuffles0;
    memcpy(r->points + i * n, points, (size_t)n * sizeof *points);
    for (int s = 0; s < n; s++)
        r->cards_left[i * n + s] = g->hand_n[s];
}

/* reference.Game.score_round (C17-C20): returns 1 when the game is over. */
static int score_round(uno_game *g, int winner)
{
    const uno_config *r = g->cfg;
    int n = g->n;
    int32_t points[UNO_MAX_PLAYERS] = {0};
    int32_t eliminated[UNO_MAX_PLAYERS];
    int n_elim = 0;
    int over = 0;
    if (winner >= 0) {
        g->counters[UNO_CT_ROUNDS_WON][winner]++;
        if (r->scoring == UNO_SCORING_STANDARD) {
            int32_t won = 0;
            if (r->teams) {
                for (int s = 0; s < n; s++)
                    if (s % 2 != winner % 2)
                        won += hand_value(g, s);
                g->team_scores[winner % 2] += won;
                over = g->team_scores[winner % 2] >= r->target;
            } else {
                for (int s = 0; s < n; s++)
                    if (s != winner)
                        won += hand_value(g, s);
                over = g->scores[winner] + won >= r->target;
            }
            points[winner] = won;
            g->scores[winner] += won;
        } else {
            for (int s = 0; s < n; s++)
                if (g->active[s]) {
                    points[s] = hand_value(g, s);
                    g->scores[s] += points[s];
                }
            if (r->scoring == UNO_SCORING_ELIMINATION) {
                for (int s = 0; s < n; s++)
                    if (g->active[s] && g->scores[s] >= r->target) {
                        g->active[s] = 0;
                        g->n_active--;
                        eliminated[n_elim++] = s;
                    }
                uno_seats_update(g);
                over = g->n_active == 1;
            } else {
                for (int s = 0; s < n; s++)
                    if (g->scores[s] >= r->target)
                        over = 1;
            }
        }
    }
    if (g->rows)
        round_row(g, winner, points);
    if (g->force && g->force->hit_round == g->rounds) { /* the forced decision's round */
        g->force->round_won = winner == g->force->seat;
        g->force->round_points = points[g->force->seat];
    }
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_ROUND_END, winner, g->rounds, 0, 0);
        uno_trace_ints(g->tr, points, n);
        for (int s = 0; s < n; s++)
            trace_hand(g, s);
        uno_trace_ints(g->tr, g->scores, n);
        uno_trace_ints(g->tr, eliminated, n_elim);
        if (r->teams)
            uno_trace_ints(g->tr, g->team_scores, 2);
    }
    return over;
}

/* reference.Game.result */
static void result(const uno_game *g, uno_result *res)
{
    const uno_config *r = g->cfg;
    int n = g->n;
    memset(res, 0, sizeof *res); /* winners[] past n_winners too: results compare bytewise */
    res->status = UNO_OK;
    res->error_card = -1;
    res->team = -1;
    res->n_winners = 0;
    if (r->scoring == UNO_SCORING_STANDARD && r->teams) {
        res->team = g->team_scores[0] >= r->target ? 0 : 1;
        for (int s = 0; s < n; s++)
            if (s % 2 == res->team)
                res->winners[res->n_winners++] = s;
    } else if (r->scoring == UNO_SCORING_STANDARD) {
        int best = 0;
        for (int s = 1; s < n; s++)
            if (g->scores[s] > g->scores[best])
                best = s;
        res->winners[res->n_winners++] = best;
    } else if (r->scoring == UNO_SCORING_ELIMINATION) {
        for (int s = 0; s < n; s++)
            if (g->active[s])
                res->winners[res->n_winners++] = s;
    } else {
        int32_t low = g->scores[0];
        for (int s = 1; s < n; s++)
            if (g->scores[s] < low)
                low = g->scores[s];
        for (int s = 0; s < n; s++)
            if (g->scores[s] == low)
                res->winners[res->n_winners++] = s;
    }
    res->winner = res->n_winners == 1 ? res->winners[0] : -1;
    memcpy(res->scores, g->scores, sizeof res->scores);
    memcpy(res->team_scores, g->team_scores, sizeof res->team_scores);
    res->rounds = g->rounds;
    res->turns = g->turns;
    res->reshuffles = g->reshuffles;
    res->stalemates = g->stalemates;
    memcpy(res->counters, g->counters, sizeof res->counters);
}

/* reference.Game.__init__ */
static void init_game(uno_game *g, const uno_config *cfg, const uno_table *t,
                      const uno_policy *pol, uno_rng *rng, uno_trace *tr)
{
    g->cfg = cfg;
    g->t = t;
    g->two_sided = t->n_sides == 2;
    g->pol = pol;
    g->rng = rng;
    g->rows = NULL;
    g->rows_full = 0;
    g->game_no = 0;
    g->seeded = *rng;
    uno_rng_seed_deal(&g->deal, &g->seeded, 0);
    g->force = NULL;
    g->tr = tr;
    g->n = cfg->players;
    uno_dec_round(g, 0);
    g->n_active = g->n;
    g->direction = 1;
    g->color = UNO_NO_COLOR;
    g->top_face = -1;
    g->side = 0;
    g->idle = 0;
    g->launcher = cfg->variant == UNO_VARIANT_EXTREME;
    g->silent = 0;
    g->rounds = g->turns = g->reshuffles = g->stalemates = 0;
    memset(g->active, 0, sizeof g->active);
    memset(g->active, 1, (size_t)g->n);
    uno_seats_update(g);
    memset(g->scores, 0, sizeof g->scores);
    memset(g->team_scores, 0, sizeof g->team_scores);
    memset(g->counters, 0, sizeof g->counters);
    memset(g->hand_n, 0, sizeof g->hand_n);
    memset(g->failed, 0, sizeof g->failed);
    for (int s = 0; s < UNO_MAX_PLAYERS; s++) {
        g->reveal_from[s] = -1;
        g->reveal_n[s] = 0;
    }
    g->bail = NULL;
    g->n_draw = g->n_discard = g->bag = 0;
    g->pending = 0;
    g->last_player = g->last_card = -1;
    g->jump_open = 0;
}

static int fail(uno_result *res, int status, int card)
{
    memset(res, 0, sizeof *res);
    res->status = status;
    res->error_card = card;
    res->winner = res->team = -1;
    return status;
}

static int play_game(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                     uno_rng *rng, uno_trace *tr, uno_result *res, uno_round_rows *rows,
                     uint64_t game_no, uno_force *force)
{
    if (uno_config_check(cfg, t, pol) != UNO_OK)
        return fail(res, UNO_ERR_CONFIG, -1);
    uno_game g;
    jmp_buf bail;
    init_game(&g, cfg, t, pol, rng, tr);
    g.force = force;
    g.rows = rows;
    g.game_no = game_no;
    g.bail = &bail;
    if (setjmp(bail))
        return fail(res, UNO_ERR_POLICY, -1);
    if (cfg->repair && t->n_sides == 2) {
        /* F1 switch: a new pairing every game.  The table's cards, so it draws from the
           round-0 deal stream (seeded by init_game) before the dealer draw continues it:
           two arms with different policies get the same pairing and deals. */
        memcpy(&g.own, t, sizeof g.own);
        uno_rng_shuffle_u8(&g.deal, g.own.card_kind[1], t->n_cards);
        uno_table_derive(&g.own, 1);
        g.t = &g.own;
        if (tr) {
            uno_trace_event(tr, UNO_EV_PAIRING, -1, 0, 0, 0);
            uno_trace_cards(tr, g.own.card_kind[1], t->n_cards);
        }
    }
    int dealer = choose_dealer(&g);
    for (;;) {
        if (g.rounds >= (cfg->max_rounds > 0 ? cfg->max_rounds : UNO_MAX_ROUNDS))
            return fail(res, UNO_ERR_LIMIT, -1);
        int winner = play_round(&g, dealer, NULL);
        if (winner <= -3)
            return fail(res, UNO_ERR_STARTER, -3 - winner);
        if (winner == LIMIT)
            return fail(res, UNO_ERR_LIMIT, -1);
        if (score_round(&g, winner))
            break;
        int d = g.direction;
        g.direction = 1; /* the deal always passes to the left */
        dealer = uno_next(&g, dealer);
        g.direction = d;
    }
    if (g.rows_full)
        return fail(res, UNO_ERR_FULL, -1);
    result(&g, res);
    return UNO_OK;
}

int uno_play_game(const uno_config *cfg, const uno_table *t, const uno_policy *pol, uno_rng *rng,
                  uno_trace *tr, uno_result *res)
{
    return play_game(cfg, t, pol, rng, tr, res, NULL, 0, NULL);
}

int uno_play_forced(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                    const uint64_t key[4], uint64_t game, uno_force *force, uno_trace *tr,
                    uno_result *res)
{
    uno_rng rng;
    uno_rng_seed(&rng, key, game);
    force->seen = 0;
    force->hit_round = 0;
    force->round_won = 0;
    force->round_points = 0;
    return play_game(cfg, t, pol, &rng, tr, res, NULL, game, force);
}

int uno_play_round(const uno_config *cfg, const uno_table *t, const uno_policy *pol, uno_rng *rng,
                   const uint8_t *deck, int dealer, const int32_t *scores, uno_trace *tr,
                   uno_result *res)
{
    if (uno_config_check(cfg, t, pol) != UNO_OK || dealer < 0 || dealer >= cfg->players)
        return fail(res, UNO_ERR_CONFIG, -1);
    if (deck) { /* a permutation of the deck */
        uint8_t seen[UNO_MAX_CARDS] = {0};
        for (int i = 0; i < t->n_cards; i++) {
            if (deck[i] >= t->n_cards || seen[deck[i]])
                return fail(res, UNO_ERR_CONFIG, -1);
            seen[deck[i]] = 1;
        }
    }
    for (int s = 0; scores && s < cfg->players; s++)
        if (scores[s] < 0 || scores[s] > UNO_MAX_TARGET) /* keeps the sums in int32 */
            return fail(res, UNO_ERR_CONFIG, -1);
    uno_game g;
    jmp_buf bail;
    init_game(&g, cfg, t, pol, rng, tr);
    g.bail = &bail;
    if (setjmp(bail))
        return fail(res, UNO_ERR_POLICY, -1);
    if (scores)
        memcpy(g.scores, scores, (size_t)g.n * sizeof *scores);
    int winner = play_round(&g, dealer, deck);
    if (winner <= -3)
        return fail(res, UNO_ERR_STARTER, -3 - winner);
    if (winner == LIMIT)
        return fail(res, UNO_ERR_LIMIT, -1);
    score_round(&g, winner);
    result(&g, res);
    return UNO_OK;
}

int uno_play_games(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                   const uint64_t key[4], uint64_t first_game, int64_t n_games,
                   uno_columns *out)
{
    int n = cfg->players;
    uno_result res;
    out->games_done = 0;
    for (int64_t i = 0; i < n_games; i++) {
        uno_rng rng;
        uint64_t game = first_game + (uint64_t)i;
        int64_t rows_before = out->rows ? out->rows->n : 0;
        uno_rng_seed(&rng, key, game);
        int st = play_game(cfg, t, pol, &rng, NULL, &res, out->rows, game, NULL);
        if (st != UNO_OK) {
            if (out->rows)
                out->rows->n = rows_before; /* only complete games keep their rows */
            return st;
        }
        if (out->game)
            out->game[i] = (int64_t)game;
        if (out->winner)
            out->winner[i] = (int8_t)res.winner;
        if (out->team)
            out->team[i] = (int8_t)res.team;
        if (out->rounds)
            out->rounds[i] = res.rounds;
        if (out->turns)
            out->turns[i] = res.turns;
        if (out->reshuffles)
            out->reshuffles[i] = res.reshuffles;
        if (out->stalemates)
            out->stalemates[i] = res.stalemates;
        if (out->scores)
            memcpy(out->scores + i * n, res.scores, (size_t)n * sizeof(int32_t));
        if (out->team_scores)
            memcpy(out->team_scores + i * 2, res.team_scores, 2 * sizeof(int32_t));
        for (int c = 0; c < UNO_N_COUNTERS; c++)
            if (out->counters[c])
                memcpy(out->counters[c] + i * n, res.counters[c], (size_t)n * sizeof(int32_t));
        out->games_done = i + 1;
    }
    return UNO_OK;
}
