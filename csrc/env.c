/*
 * env.c - what a learning seat sees and answers (uno_observe, uno_env_answer: the
 * observation vector and action mask of docs/env.md, shared by uno_sim.env's stepping
 * seat and the vector environment) and the vector of stepping games (uno_venv, uno.h).
 *
 * A uno_venv game stops at each decision of its learning seat.  The engine's decisions
 * happen deep inside a turn, so a stopped game cannot be resumed where it stopped;
 * instead every game keeps its state at the start of the learner's last turn (or of the
 * round: the uno_game.on_turn hook clones the game there) and the learner's answers
 * given since (the journal).  A step clones that snapshot, replays from it -- the learner's
 * decisions answered from the journal, then by the new answer; every other seat by its
 * own policy, which draws the same numbers again because its decision streams and their
 * counters are part of the cloned state -- and longjmps out of the engine at the
 * learner's next decision, after writing its observation and mask.  The replayed course
 * is the course the game would have taken with a learner that answered in place.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

#define JOURNAL_MAX 4096 /* learner answers between two snapshots; more: truncated */

/* ------------------------------------------------------------------------- */
/* Observation and mask                                                       */
/* ------------------------------------------------------------------------- */

void uno_obs_layout_init(uno_obs_layout *L, int n_kinds, int seats, int flip, int extreme)
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

static inline int rel(int seat, int q, int n)
{
    return (q - seat + n) % n;
}

void uno_observe(const uno_game *g, const uno_obs_layout *L, int seat, int decision, int arg,
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

int uno_env_answer(const uno_obs_layout *L, int players, int side, int seat, int decision,
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

/* ------------------------------------------------------------------------- */
/* The vector of stepping games                                               */
/* ------------------------------------------------------------------------- */

typedef struct venv_slot {
    uno_game work; /* the game being played (its `own` table when re-paired, F1) */
    uno_game snap; /* work at the last turn or round start (up to `own`) */
    struct uno_venv *v;
    int index;
    int snap_p;    /* the snapshot's turn: seat p's turn, or -1 - dealer: a round start */
    int skip;      /* the replay's own first hook call: the snapshot's turn itself */
    int n_journal, pos;
    int decision, arg, side;
    float *final; /* where the ended round's last observation goes, at the next round start */
    uint64_t key[4], game_no;
    int64_t episodes;
    uno_rng rng;
    uno_result res;
    uno_policy pol[UNO_MAX_PLAYERS];
    int16_t kind_index[UNO_MAX_KINDS];
    int32_t journal[JOURNAL_MAX];
} venv_slot;

struct uno_venv {
    uno_config cfg;
    const uno_table *t;
    uno_obs_layout L;
    int seat, mode, n_envs, search;
    float *obs;
    int8_t *mask;
    venv_slot *slot;
};

#define OBS_ROW(v, i) ((v)->obs + (size_t)(i) * (size_t)(v)->L.size)
#define MASK_ROW(v, i) ((v)->mask + (size_t)(i) * (size_t)(v)->L.n_actions)

/* The learning seat's decisions: the journal's answers, then stop at the first new one. */
static int learner_decide(void *ctx, uno_game *g, int seat, int decision, int arg)
{
    venv_slot *s = (venv_slot *)ctx;
    if (s->pos < s->n_journal)
        return s->journal[s->pos++];
    s->decision = decision;
    s->arg = arg;
    s->side = g->side;
    uno_observe(g, &s->v->L, seat, decision, arg, OBS_ROW(s->v, s->index),
                MASK_ROW(s->v, s->index), s->kind_index);
    longjmp(*g->bail, 1);
}

/* Copies bytes [a, b) of the game. */
static inline void copy_span(uno_game *dst, const uno_game *src, size_t a, size_t b)
{
    memcpy((char *)dst + a, (const char *)src + a, b - a);
}

/*
 * uno_game_clone without the bytes nobody reads: the rows of the per-seat arrays past
 * the players (decision counters, challenge reveals, hands), the reveal rows past
 * reveal_n and the draw and discard piles past n_draw and n_discard (a classic game of
 * 2 players copies about a third of uno_game_clone's bytes).  Every field is copied,
 * so the clone plays as the source does.
 */
static void clone_lean(uno_game *dst, const uno_game *src)
{
    const int n = src->n;
    const size_t dn0 = offsetof(uno_game, dec_n), dn1 = dn0 + sizeof src->dec_n;
    const size_t r0 = offsetof(uno_game, reveal), r1 = r0 + sizeof src->reveal;
    const size_t d0 = offsetof(uno_game, draw);
    const size_t e1 = offsetof(uno_game, discard) + sizeof src->discard;
    const size_t h0 = offsetof(uno_game, hand), h1 = h0 + sizeof src->hand;
    const size_t a0 = offsetof(uno_game, hand_alt), a1 = a0 + sizeof src->hand_alt;
    copy_span(dst, src, 0, dn0);
    memcpy(dst->dec_n, src->dec_n, (size_t)n * sizeof src->dec_n[0]);
    copy_span(dst, src, dn1, r0);
    for (int p = 0; p < n; p++)
        if (src->reveal_n[p] > 0)
            memcpy(dst->reveal[p], src->reveal[p], (size_t)src->reveal_n[p]);
    copy_span(dst, src, r1, d0);
    memcpy(dst->draw, src->draw, (size_t)src->n_draw);
    memcpy(dst->discard, src->discard, (size_t)src->n_discard);
    copy_span(dst, src, e1, h0);
    memcpy(dst->hand, src->hand, (size_t)n * sizeof src->hand[0]);
    copy_span(dst, src, h1, a0);
    memcpy(dst->hand_alt, src->hand_alt, (size_t)n * sizeof src->hand_alt[0]);
    copy_span(dst, src, a1, offsetof(uno_game, own));
}

/*
 * uno_game.on_turn: the snapshot of the slot's game at every turn of the learning seat
 * and every round start.  The other seats' turns need none: a decision of the learner
 * in one of them (a challenge, a catch, a jump-in) is replayed from the learner's last
 * turn start, the journal holding every answer it gave since.
 */
static void on_turn(void *ctx, uno_game *g, int p)
{
    venv_slot *s = (venv_slot *)ctx;
    if (g != &s->work || (p >= 0 && p != s->v->seat)) /* a search's copy, another's turn */
        return;
    if (s->skip) {
        s->skip = 0;
        return;
    }
    if (p < 0 && s->final) { /* a round episode's end, scored: its last observation */
        uno_observe(g, &s->v->L, s->v->seat, -1, 0, s->final, MASK_ROW(s->v, s->index),
                    s->kind_index);
        s->final = NULL;
    }
    clone_lean(&s->snap, g);
    s->snap_p = p;
    s->n_journal = 0;
    s->pos = 0;
}

/* The outcomes of running a slot's game until something happens. */
enum { RUN_STOPPED = 0, RUN_ROUND_END = 1, RUN_GAME_END = 2, RUN_FAILED = 3 };

/* Replays from the snapshot: stopped at the learner, or the round's end (*w). */
static int replay(venv_slot *s, int *w)
{
    jmp_buf jb;
    uno_game *g = &s->work;
    clone_lean(g, &s->snap);
    g->bail = &jb;
    s->pos = 0;
    s->skip = 1;
    if (setjmp(jb))
        return RUN_STOPPED;
    *w = s->snap_p >= 0 ? uno_round_continue(g, s->snap_p)
                        : uno_round_play(g, -1 - s->snap_p, NULL);
    return *w == LIMIT || *w <= -3 ? RUN_FAILED : RUN_ROUND_END;
}

/* The rest of the game after its round ended with w: stopped, or the game's end. */
static int finish(venv_slot *s, int w)
{
    jmp_buf jb;
    s->work.bail = &jb;
    s->skip = 0;
    if (setjmp(jb))
        return RUN_STOPPED;
    return uno_game_finish(&s->work, w, &s->res) == UNO_OK ? RUN_GAME_END : RUN_FAILED;
}

/* The slot's next game: stopped at the learner's first decision, or (rarely) its end. */
static int begin(venv_slot *s)
{
    jmp_buf jb;
    uno_venv *v = s->v;
    uno_game *g = &s->work;
    if (g->search)
        uno_search_end(g);
    uno_rng_seed(&s->rng, s->key, s->game_no);
    int dealer = uno_game_start(g, &v->cfg, v->t, s->pol, &s->rng);
    if (v->search && !uno_search_begin(g, 0))
        return RUN_FAILED;
    g->on_turn = on_turn;
    g->on_turn_ctx = s;
    g->bail = &jb;
    s->skip = 0;
    s->n_journal = s->pos = 0;
    if (setjmp(jb))
        return RUN_STOPPED;
    return uno_game_rounds(g, dealer, &s->res) == UNO_OK ? RUN_GAME_END : RUN_FAILED;
}

/* The learner's reward for a finished game (res) or round (winner w). */
static float game_reward(const venv_slot *s)
{
    for (int i = 0; i < s->res.n_winners; i++)
        if (s->res.winners[i] == s->v->seat)
            return 1.0f;
    return -1.0f;
}

static float round_reward(const venv_slot *s, int w)
{
    int seat = s->v->seat;
    if (w < 0)
        return 0.0f;
    return w == seat || (s->v->cfg.teams && w % 2 == seat % 2) ? 1.0f : -1.0f;
}

/* Starts games until one stops at a learner decision (a game that ends first is played
   through: it has nothing to ask the learner). */
static void next_game(venv_slot *s)
{
    for (int tries = 0; tries < 64; tries++) {
        int r = begin(s);
        s->game_no++;
        if (r == RUN_STOPPED)
            return;
    }
    s->decision = -1; /* never: every seat decides in its first turn */
}

void uno_venv_reset(uno_venv *v, const uint64_t *keys)
{
    for (int i = 0; i < v->n_envs; i++) {
        venv_slot *s = &v->slot[i];
        memcpy(s->key, keys + 4 * (size_t)i, sizeof s->key);
        s->game_no = 0;
        s->episodes = 0;
        next_game(s);
    }
}

/* One env's step with the learner's answer ans. */
static void step_one(uno_venv *v, venv_slot *s, int ans, float *reward, uint8_t *term,
                     uint8_t *trunc, float *final)
{
    int w = 0, r;
    *reward = 0.0f;
    *term = *trunc = 0;
    if (s->n_journal >= JOURNAL_MAX) {
        r = RUN_FAILED;
    } else {
        s->journal[s->n_journal++] = ans;
        r = replay(s, &w);
    }
    if (r == RUN_STOPPED)
        return;
    if (r == RUN_ROUND_END) {
        if (v->mode == UNO_EPISODE_ROUND) {
            *reward = round_reward(s, w);
            *term = 1;
            s->episodes++;
            s->final = final; /* written by on_turn at the next round's start */
            r = finish(s, w);
            if (r == RUN_STOPPED) {
                s->final = NULL;
                return;
            }
            s->final = NULL;
            if (final) /* the game's last round: the table as the game ended */
                uno_observe(&s->work, &v->L, v->seat, -1, 0, final, MASK_ROW(v, s->index),
                            s->kind_index);
            if (r == RUN_FAILED) { /* a limit after the round: the episode truncated */
                *term = 0;
                *trunc = 1;
            }
            next_game(s);
            return;
        }
        r = finish(s, w);
        if (r == RUN_STOPPED)
            return;
    }
    if (r == RUN_GAME_END) {
        *reward = game_reward(s);
        *term = 1;
    } else {
        *trunc = 1;
    }
    if (final)
        uno_observe(&s->work, &v->L, v->seat, -1, 0, final, MASK_ROW(v, s->index), s->kind_index);
    s->episodes++;
    next_game(s);
}

int uno_venv_step(uno_venv *v, const int32_t *actions, float *reward, uint8_t *terminated,
                  uint8_t *truncated, float *final)
{
    const int A = v->L.n_actions;
    for (int i = 0; i < v->n_envs; i++) {
        int a = actions[i];
        if (a < 0 || a >= A || !MASK_ROW(v, i)[a] || v->slot[i].decision < 0)
            return i;
    }
    for (int i = 0; i < v->n_envs; i++) {
        venv_slot *s = &v->slot[i];
        int ans = uno_env_answer(&v->L, v->cfg.players, s->side, v->seat, s->decision, actions[i],
                                 s->kind_index);
        step_one(v, s, ans, &reward[i], &terminated[i], &truncated[i],
                 final ? final + (size_t)i * (size_t)v->L.size : NULL);
    }
    return -1;
}

size_t uno_venv_bytes(int n_envs)
{
    return sizeof(uno_venv) + (size_t)(n_envs > 0 ? n_envs : 0) * sizeof(venv_slot);
}

uno_venv *uno_venv_new(const uno_config *cfg, const uno_table *t, const uno_policy *pol, int seat,
                       int mode, int n_envs, const uno_obs_layout *L, float *obs, int8_t *mask)
{
    if (n_envs < 1 || seat < 0 || seat >= cfg->players || cfg->players > UNO_MAX_PLAYERS ||
        L->seats < cfg->players || L->n_kinds != t->n_kinds)
        return NULL;
    uno_venv *v = (uno_venv *)calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->slot = (venv_slot *)calloc((size_t)n_envs, sizeof *v->slot);
    if (!v->slot) {
        free(v);
        return NULL;
    }
    v->cfg = *cfg;
    v->t = t;
    v->L = *L;
    v->seat = seat;
    v->mode = mode;
    v->n_envs = n_envs;
    v->obs = obs;
    v->mask = mask;
    v->search = uno_search_any(pol, cfg->players);
    for (int i = 0; i < n_envs; i++) {
        venv_slot *s = &v->slot[i];
        s->v = v;
        s->index = i;
        s->decision = -1;
        memcpy(s->pol, pol, (size_t)cfg->players * sizeof *pol);
        s->pol[seat].id = UNO_POLICY_USER; /* the caller's user policy spec, its knobs kept */
        s->pol[seat].decide = learner_decide;
        s->pol[seat].ctx = s;
    }
    if (uno_config_check(&v->cfg, t, v->slot[0].pol) != UNO_OK) {
        free(v->slot);
        free(v);
        return NULL;
    }
    return v;
}

void uno_venv_free(uno_venv *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->n_envs; i++)
        if (v->slot[i].work.search)
            uno_search_end(&v->slot[i].work);
    free(v->slot);
    free(v);
}

int uno_venv_decision(const uno_venv *v, int i)
{
    return v->slot[i].decision;
}

const uno_game *uno_venv_game(const uno_venv *v, int i)
{
    return &v->slot[i].work;
}

int64_t uno_venv_episodes(const uno_venv *v, int i)
{
    return v->slot[i].episodes;
}

const uno_result *uno_venv_result(const uno_venv *v, int i)
{
    return &v->slot[i].res;
}
