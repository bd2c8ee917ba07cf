/*
 * table.c - a deck table from its columns (uno_table_init, cards.DeckTable
 * on the Python side), the derived per-side columns and masks
 * (uno_table_derive), and the check of a configuration against a table and
 * its policies (uno_config_check).  Nothing here plays.
 */
#if !defined(__CUDACC_RTC__) /* NVRTC: no C library (uno_port.h) */
#include <string.h>
#endif

#include "engine_internal.h"

UNO_HD int uno_table_init(uno_table *t, int n_kinds, const int32_t *color, const int32_t *face,
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
            (effect[k] == UNO_WILD_CUSTOM && amount[k] >= UNO_CUSTOM_COUNT) ||
            /* a draw card draws at least one card (cards.HOUSE_AMOUNT), which bounds a chain
               of plays (round.c play_chain) */
            ((effect[k] == UNO_DRAW_CARDS || effect[k] == UNO_WILD_DRAW) && amount[k] < 1))
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

/* The uno_fast_class of kind k (uno.h): unrestricted, a colored number, Skip or Reverse,
   a Wild, or a colored draw card of amount 1 or more. */
UNO_HD static int fast_class(const uno_table *t, int k)
{
    if (t->restricted[k])
        return UNO_FAST_NO;
    if (t->color[k] == UNO_NO_COLOR)
        return t->effect[k] == UNO_WILD ? UNO_FAST_WILD : UNO_FAST_NO;
    switch (t->effect[k]) {
    case UNO_NUMBER:
        return UNO_FAST_NUMBER;
    case UNO_SKIP:
        return UNO_FAST_SKIP;
    case UNO_REVERSE:
        return UNO_FAST_REVERSE;
    case UNO_DRAW_CARDS:
        return t->amount[k] >= 1 ? UNO_FAST_DRAW : UNO_FAST_NO;
    default:
        return UNO_FAST_NO;
    }
}

UNO_HD void uno_table_derive(uno_table *t, int side)
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
    memset(t->value_mask[side], 0, sizeof t->value_mask[side]);
    t->n_values[side] = 0;
    for (int c = 0; c < n; c++) {
        int k = t->card_kind[side][c], r = t->rank[side][c];
        t->card_color[side][c] = t->color[k];
        t->card_face[side][c] = t->face[k];
        t->card_restricted[side][c] = t->restricted[k];
        t->card_value[side][c] = t->value[k];
        t->card_fast[side][c] = (uint8_t)fast_class(t, k);
        if (t->restricted[k] && t->color[k] != UNO_NO_COLOR)
            t->restricted_colored[side] = 1;
        uno_bits_set(&t->color_mask[side][t->color[k] + 1], r);
        if (t->face[k] < 32)
            uno_bits_set(&t->face_mask[side][t->face[k]], r);
        else
            t->faces_ok[side] = 0;
        if (t->restricted[k])
            uno_bits_set(&t->restricted_mask[side], r);
        int v = t->value[k], j = 0, nv = t->n_values[side];
        while (j < nv && j < UNO_VALUE_CLASSES && t->value_of[side][j] != v)
            j++;
        if (v == 0 || nv > UNO_VALUE_CLASSES)
            continue;
        if (j == nv) { /* a new value */
            if (++t->n_values[side] > UNO_VALUE_CLASSES)
                continue;
            t->value_of[side][j] = v;
        }
        uno_bits_set(&t->value_mask[side][j], r);
    }
    memcpy(t->colored_mask[side], t->color_mask[side], sizeof t->colored_mask[side]);
    memset(&t->colored_mask[side][0], 0, sizeof t->colored_mask[side][0]);
    for (int f = 0; f < 32; f++)
        for (int i = 0; i < UNO_HAND_WORDS; i++)
            t->colored_face_mask[side][f].w[i] =
                t->face_mask[side][f].w[i] & ~t->color_mask[side][0].w[i];
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

/* A policy a search's rollouts may play (uno_policy.rollout, others): built in, or the network. */
UNO_HD static inline int rollout_ok(int id)
{
    return (id >= UNO_POLICY_RANDOM && id <= UNO_POLICY_STRATEGIC) || id == UNO_POLICY_NET;
}

UNO_HD int uno_config_check(const uno_config *cfg, const uno_table *t, const uno_policy *pol)
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
    if ((unsigned)cfg->draw_source > UNO_DRAW_LAUNCHER)
        return UNO_ERR_CONFIG;
    if (cfg->draw_source == UNO_DRAW_LAUNCHER) { /* E2: the launcher's law (rules._weights) */
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
    int search = 0; /* seats that search: they need the search's hooks (cfg->search) */
    for (int s = 0; s < n; s++) {
        const uno_policy *q = &pol[s];
        search += q->id == UNO_POLICY_PIMC || q->id == UNO_POLICY_ISMCTS;
        if (q->id < 0 || q->id > UNO_POLICY_MAX || q->color < 0 ||
            q->color > UNO_COLOR_SMART || q->target < 0 ||
            q->target > UNO_TARGET_RANDOM || !(q->challenge_threshold >= 0.0) ||
            q->challenge_threshold > 1.0 || (q->id == UNO_POLICY_USER && !q->decide) ||
            q->bluff_next < 0 || q->bluff_own < 0 || q->challenge_offender < 0 ||
            q->challenge_own < 0 || q->suspect < -1 || q->suspect >= n ||
            !(q->challenge_prior >= 0.0) || q->challenge_prior > 1.0 ||
            q->bluff_join < UNO_JOIN_AND || q->bluff_join > UNO_JOIN_OR ||
            q->challenge_join < UNO_JOIN_AND || q->challenge_join > UNO_JOIN_OR)
            return UNO_ERR_CONFIG;
        const int search = q->id == UNO_POLICY_PIMC || q->id == UNO_POLICY_ISMCTS;
        if (search &&
            (q->samples < 1 || q->rollouts < 1 || q->iterations < 1 || !(q->c >= 0.0) ||
             q->c > 1e6 || !rollout_ok(q->rollout) ||
             (q->others != -1 && !rollout_ok(q->others)) || q->leaf < -1 ||
             !(q->mix >= 0.0) || q->mix > 1.0 ||
             !(q->infer >= 0.0) || q->infer > 1e6 || !(q->voids >= 0.0) || q->voids > 1.0 ||
             !(q->colors >= 0.0) || q->colors > 1.0 || !(q->bluffs >= 0.0) || q->bluffs > 1.0 ||
             q->resample < 0 || q->resample > 1 ||
             q->value < UNO_VALUE_GAME || q->value > UNO_VALUE_TABLE || q->cheat < 0 ||
             q->cheat > 1 || q->depth < 1 || q->depth > UNO_SEARCH_DEPTH_MAX ||
             (q->anchor != -1 && !rollout_ok(q->anchor)) || !(q->z >= 0.0) || q->z > 100.0 ||
             !(q->rollout_challenge >= -1.0) || q->rollout_challenge > 1.0 ||
             (q->id == UNO_POLICY_ISMCTS && q->depth > 1 && !(q->c > 0.0))))
            return UNO_ERR_CONFIG;
        /* a network read by the seat (net.c): it must read this game's observation */
        const int reads_net =
            q->id == UNO_POLICY_NET ||
            (search && (q->rollout == UNO_POLICY_NET || q->others == UNO_POLICY_NET ||
                        q->anchor == UNO_POLICY_NET || q->leaf >= 0 || q->infer > 0.0));
        if (reads_net && (!uno_net_fits(q->net, cfg, t) || !(q->explore >= 0.0) ||
                          q->explore > 1.0))
            return UNO_ERR_CONFIG;
    }
    if (search > 0 && cfg->search == NULL)
        return UNO_ERR_CONFIG;
    return UNO_OK;
}
