/*
 * env.c - the vector of stepping games (uno_venv, uno.h): what a learning seat sees and
 * answers is observe.c's (uno_observe, uno_env_answer).
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
    if (v->search && !uno_search_begin(g))
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
