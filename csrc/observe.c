/*
 * observe.c - what a learning seat sees and answers: the observation vector and action
 * mask of docs/env.md (uno_observe, with its layout uno_obs_layout_init) and the answer an
 * action id stands for (uno_env_answer).  uno_sim.env's stepping seats, the vector
 * environment (env.c) and the network player (net.c) read the same function.  It asks
 * only the legality queries (legal.c, uno.h), never the turn: one source for the CPU and
 * the GPU build.
 */
#include "uno.h"

UNO_HD void uno_obs_layout_init(uno_obs_layout *L, int n_kinds, int seats, int flip, int extreme)
{
    const int K = n_kinds, S = seats;
    const int32_t len[UNO_OB_COUNT] = {
        UNO_ENV_DECISIONS, K, K, 8, 1, S, S, S, 8 * S, S, 1, K, 1, 1, 1, 1, S, 8, S, K, S, K,
        flip ? 1 : 0, flip ? S * K : 0, flip ? K : 0, extreme ? 1 : 0};
    int off = 0;
    memset(L, 0, sizeof *L);
    L->n_kinds = K;
    L->seats = S;
    L->flip = flip;
    L->extreme = extreme;
    for (int b = 0; b < UNO_OB_COUNT; b++) {
        L->len[b] = len[b];
        L->off[b] = len[b] ? off : -1;
        L->scale[b] = 1.0f;
        off += len[b];
    }
    L->size = off;
    L->a_draw = K;
    L->a_yes = K + 1;
    L->a_no = K + 2;
    L->a_color = K + 3;
    L->a_target = K + 7;
    L->n_actions = K + 7 + S;
}

UNO_HD void uno_obs_scale_env(uno_obs_layout *L, int target, int n_cards)
{
    /* (float) of the double, as the binding stores uno_sim.vecenv.scales' Python floats */
    L->scale[UNO_OB_HAND_SIZES] = (float)0.1;
    L->scale[UNO_OB_SCORES] = (float)(1.0 / (double)(target > 1 ? target : 1));
    L->scale[UNO_OB_DRAW_PILE] = (float)(1.0 / (double)(n_cards > 1 ? n_cards : 1));
    L->scale[UNO_OB_ROUND] = (float)0.1;
    L->scale[UNO_OB_TURN] = (float)0.01;
    L->scale[UNO_OB_PENDING] = (float)0.1;
    L->scale[UNO_OB_TO_DISCARD] = (float)0.1;
    L->scale[UNO_OB_SILENT] = (float)0.1;
}

UNO_HD static inline int rel(int seat, int q, int n)
{
    return (q - seat + n) % n;
}

UNO_HD void uno_observe(const uno_game *g, const uno_obs_layout *L, int seat, int decision, int arg,
                 float *o, int8_t *m, int16_t *kind_index)
{
    const uno_table *t = g->t;
    const int K = L->n_kinds, N = g->n, side = g->side;
    const int32_t *off = L->off;
    const float *sc = L->scale;
    uint8_t cards[UNO_HAND_CAP];
    int32_t legal[UNO_MAX_ACTIONS];
    memset(o, 0, (size_t)L->size * sizeof *o);
    memset(m, 0, (size_t)L->n_actions);
    for (int k = 0; k < K; k++)
        kind_index[k] = -1;
    /* public and own state (P1) */
    if (decision >= 0)
        o[off[UNO_OB_DECISION] + decision] = 1.0f;
    int n_hand = uno_hand_cards(g, seat, cards);
    for (int i = n_hand - 1; i >= 0; i--) { /* the first hand index of each kind wins */
        int k = t->card_kind[side][cards[i]];
        o[off[UNO_OB_HAND] + k] += 1.0f;
        kind_index[k] = (int16_t)i;
    }
    o[off[UNO_OB_TOP] + t->card_kind[side][g->discard[g->n_discard - 1]]] = 1.0f;
    if (g->color >= 0)
        o[off[UNO_OB_COLOR] + g->color] = 1.0f;
    o[off[UNO_OB_DIRECTION]] = (float)g->direction;
    for (int q = 0; q < N; q++) {
        int r = rel(seat, q, N);
        o[off[UNO_OB_HAND_SIZES] + r] = (float)g->hand_n[q] * sc[UNO_OB_HAND_SIZES];
        o[off[UNO_OB_ACTIVE] + r] = (float)g->active[q];
        o[off[UNO_OB_SCORES] + r] = (float)g->scores[q] * sc[UNO_OB_SCORES];
        for (int c = 0; c < 8; c++)
            if ((g->failed[q] >> c) & 1)
                o[off[UNO_OB_FAILED] + 8 * r + c] = 1.0f;
    }
    int q = seat;
    for (int i = 0; i < N; i++) { /* the next active seat in the direction of play */
        q = (q + g->direction + N) % N;
        if (g->active[q])
            break;
    }
    o[off[UNO_OB_NEXT_SEAT] + rel(seat, q, N)] = 1.0f;
    o[off[UNO_OB_DRAW_PILE]] = (float)g->n_draw * sc[UNO_OB_DRAW_PILE];
    for (int i = 0; i < g->n_discard; i++)
        o[off[UNO_OB_DISCARDS] + t->card_kind[side][g->discard[i]]] += 1.0f;
    o[off[UNO_OB_ROUND]] = (float)g->rounds * sc[UNO_OB_ROUND];
    o[off[UNO_OB_TURN]] = (float)g->turns * sc[UNO_OB_TURN];
    if (g->reveal_from[seat] >= 0) {
        o[off[UNO_OB_REVEALED_SEAT] + rel(seat, g->reveal_from[seat], N)] = 1.0f;
        for (int i = 0; i < g->reveal_n[seat]; i++)
            o[off[UNO_OB_REVEALED] + t->card_kind[side][g->reveal[seat][i]]] += 1.0f;
    }
    if (L->flip) { /* F6: what faces the table */
        o[off[UNO_OB_SIDE]] = (float)side;
        for (int p = 0; p < N; p++)
            if (p != seat && g->active[p]) {
                int r = rel(seat, p, N), n = uno_hand_cards(g, p, cards);
                for (int i = 0; i < n; i++)
                    o[off[UNO_OB_OTHER_FACES] + r * K + t->card_kind[side ^ 1][cards[i]]] += 1.0f;
            }
        if (g->n_draw > 0)
            o[off[UNO_OB_NEXT_DRAW] + t->card_kind[side ^ 1][g->draw[g->n_draw - 1]]] = 1.0f;
    }
    if (L->extreme && g->launcher)
        o[off[UNO_OB_SILENT]] = (float)g->silent * sc[UNO_OB_SILENT];
    if (decision < 0) /* no decision: an episode's last observation */
        return;
    /* the legal actions (uno_legal_actions, the list a user policy's obs.actions is built
       from): a card's action is its kind's, a target's its relative seat */
    switch (decision) {
    case UNO_DEC_PLAY:
    case UNO_DEC_REPLACEMENT:
    case UNO_DEC_COLOR:
    case UNO_DEC_TARGET:
    case UNO_DEC_STACK:
    case UNO_DEC_DISCARD: {
        int n_legal = uno_legal_actions(g, seat, decision, arg, legal);
        uno_hand_cards(g, seat, cards);
        for (int i = 0; i < n_legal; i++) {
            int x = legal[i];
            if (decision == UNO_DEC_COLOR)
                m[L->a_color + x - 4 * side] = 1;
            else if (decision == UNO_DEC_TARGET)
                m[L->a_target + rel(seat, x, N)] = 1;
            else if (x == UNO_DRAW)
                m[L->a_draw] = 1;
            else
                m[t->card_kind[side][cards[x >> 1]]] = 1;
        }
        break;
    }
    default:
        m[L->a_yes] = 1;
        m[L->a_no] = 1;
        break;
    }
    /* the decision's own facts */
    switch (decision) {
    case UNO_DEC_STACK: /* C-H1 */
        o[off[UNO_OB_PENDING]] = (float)arg * sc[UNO_OB_PENDING];
        break;
    case UNO_DEC_DISCARD: /* S3 */
        o[off[UNO_OB_TO_DISCARD]] = (float)arg * sc[UNO_OB_TO_DISCARD];
        break;
    case UNO_DEC_TARGET: /* P2: the card that aims */
        o[off[UNO_OB_CARD] + t->card_kind[side][arg]] = 1.0f;
        break;
    case UNO_DEC_CHALLENGE:
        o[off[UNO_OB_OFFENDER] + rel(seat, arg & 0xFF, N)] = 1.0f;
        if ((arg >> 8) > 0)
            o[off[UNO_OB_PREVIOUS_COLOR] + (arg >> 8) - 1] = 1.0f;
        break;
    case UNO_DEC_CATCH:
        o[off[UNO_OB_FORGETTER] + rel(seat, arg, N)] = 1.0f;
        break;
    case UNO_DEC_PLAY_DRAWN: /* the card drawn */
        o[off[UNO_OB_CARD] + t->card_kind[side][arg >> 1]] = 1.0f;
        break;
    case UNO_DEC_JUMP_IN: /* the card just played */
        o[off[UNO_OB_CARD] + t->card_kind[side][arg]] = 1.0f;
        break;
    default:
        break;
    }
}

UNO_HD int uno_env_answer(const uno_obs_layout *L, int players, int side, int seat, int decision,
                   int action, const int16_t *kind_index)
{
    switch (decision) {
    case UNO_DEC_PLAY:
    case UNO_DEC_REPLACEMENT:
    case UNO_DEC_STACK:
    case UNO_DEC_DISCARD:
        if (action == L->a_draw)
            return UNO_DRAW;
        return action >= 0 && action < L->n_kinds ? kind_index[action] : -1;
    case UNO_DEC_COLOR:
        return action >= L->a_color && action < L->a_color + 4 ? 4 * side + action - L->a_color
                                                                : -1;
    case UNO_DEC_TARGET:
        return action >= L->a_target && action < L->a_target + players
                   ? (seat + action - L->a_target) % players
                   : -1;
    default: {
        if (action != L->a_yes && action != L->a_no)
            return -1;
        int yes = action == L->a_yes;
        return decision == UNO_DEC_FORGET_UNO ? !yes : yes; /* the engine asks "forgets?" */
    }
    }
}

UNO_HD int uno_action_id(const uno_game *g, const uno_obs_layout *L, int seat, int decision,
                         int answer)
{
    switch (decision) {
    case UNO_DEC_PLAY:
    case UNO_DEC_REPLACEMENT:
    case UNO_DEC_STACK:
    case UNO_DEC_DISCARD:
        return answer == UNO_DRAW ? L->a_draw : g->t->card_kind[g->side][answer];
    case UNO_DEC_COLOR:
        return L->a_color + answer - 4 * g->side;
    case UNO_DEC_TARGET:
        return L->a_target + rel(seat, answer, g->n);
    case UNO_DEC_FORGET_UNO: /* the engine asks "forgets?": yes is saying UNO */
        return answer ? L->a_no : L->a_yes;
    default:
        return answer ? L->a_yes : L->a_no;
    }
}
