/*
 * record.c - the decision recorder (uno_record_games, uno.h; docs/net.md "The decision
 * recorder"): plays seeded games with any policies, search players included, and at every
 * decision of the chosen seats with more than one legal answer writes a row: the seat's
 * observation and mask (observe.c, the layout the caller gives), the decision, the answer
 * as an action id, for a search seat its mean value and rollouts per action id, and once
 * the game is over the seat's outcome (the game won, the round won).  No Python runs per
 * decision: the rows go to arrays the recorder grows.
 *
 * A recorded game is the game played without the recorder: it is recorded the way a game
 * with a search seat is (search.c: every seat's policy wrapped, the seat's own policy
 * answering, a snapshot at every turn start), with a tap that reads the state at each
 * decision once the answer is known and before it is applied.  Those policies draw the
 * same numbers as unwrapped ones (tests/test_record.py plays both).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* Room for one more row (1), or 0 when memory ran out (rec->failed). */
static int grow(uno_record *rec)
{
    if (rec->n < rec->cap)
        return 1;
    int64_t cap = rec->cap ? 2 * rec->cap : 1024;
    const int64_t size = rec->L.size, acts = rec->L.n_actions;
    float *obs = (float *)realloc(rec->obs, (size_t)(cap * size) * sizeof *obs);
    if (obs)
        rec->obs = obs;
    int8_t *mask = (int8_t *)realloc(rec->mask, (size_t)(cap * acts));
    if (mask)
        rec->mask = mask;
    float *value = (float *)realloc(rec->value, (size_t)(cap * acts) * sizeof *value);
    if (value)
        rec->value = value;
    int32_t *count = (int32_t *)realloc(rec->count, (size_t)(cap * acts) * sizeof *count);
    if (count)
        rec->count = count;
    int32_t *cols[UNO_REC_COLUMNS];
    int ok = obs && mask && value && count;
    for (int c = 0; c < UNO_REC_COLUMNS; c++) {
        cols[c] = (int32_t *)realloc(rec->col[c], (size_t)cap * sizeof *cols[c]);
        if (cols[c])
            rec->col[c] = cols[c];
        ok = ok && cols[c];
    }
    if (!ok) {
        rec->failed = 1;
        return 0;
    }
    rec->cap = cap;
    return 1;
}

/* The recorded game's tap (search.c record_decide): one row per decision of a chosen seat
   with more than one legal answer. */
static void tap(void *ctx, uno_game *g, int seat, int decision, int arg, int answer,
                const uno_search_report *rep)
{
    uno_record *rec = (uno_record *)ctx;
    if (!((rec->seats >> seat) & 1) || rec->failed || !grow(rec))
        return;
    const uno_obs_layout *L = &rec->L;
    const int64_t i = rec->n, acts = L->n_actions;
    float *o = rec->obs + i * L->size;
    int8_t *m = rec->mask + i * acts;
    int16_t kind_index[UNO_MAX_KINDS];
    uno_observe(g, L, seat, decision, arg, o, m, kind_index);
    int legal = 0;
    for (int a = 0; a < acts; a++)
        legal += m[a] != 0;
    if (legal < 2)
        return; /* one legal answer: nothing was decided */
    const int act = uno_action_id(g, L, seat, decision, answer);
    float *v = rec->value + i * acts;
    int32_t *cnt = rec->count + i * acts;
    double total[UNO_NET_MAX_ACTIONS];
    for (int a = 0; a < acts; a++) {
        total[a] = 0.0;
        cnt[a] = 0;
    }
    for (int j = 0; rep && j < rep->m; j++) { /* answers of one kind pool their rollouts */
        int a = uno_action_id(g, L, seat, decision, rep->ans[j]);
        total[a] += rep->value[j] * rep->count[j];
        cnt[a] += rep->count[j];
    }
    for (int a = 0; a < acts; a++)
        v[a] = cnt[a] > 0 ? (float)(total[a] / cnt[a]) : (float)NAN;
    int32_t *const *col = rec->col;
    col[UNO_REC_GAME][i] = (int32_t)(g->game_no - rec->first_game);
    col[UNO_REC_ROUND][i] = g->rounds;
    col[UNO_REC_TURN][i] = g->turns;
    col[UNO_REC_SEAT][i] = seat;
    col[UNO_REC_DECISION][i] = decision;
    col[UNO_REC_ACTION][i] = act;
    col[UNO_REC_WON][i] = 0;
    col[UNO_REC_ROUND_WON][i] = 0;
    /* C12: the card challenged is a bluff when its player held the previous color (the
       cheating search's test, search.c) */
    col[UNO_REC_TRUTH][i] =
        decision == UNO_DEC_CHALLENGE
            ? (arg >> 8) > 0 && uno_bits_meet(&g->hand[arg & 0xff], uno_color_cards(g, (arg >> 8) - 1))
            : -1;
    rec->n++;
}

/* Whether seat s (or its team) is among the game's winners. */
static int won_game(const uno_config *cfg, const uno_result *res, int s)
{
    if (cfg->teams && res->team >= 0)
        return res->team == s % 2;
    for (int i = 0; i < res->n_winners; i++)
        if (res->winners[i] == s)
            return 1;
    return 0;
}

/* Game `game` of run `key`, recorded through cfg->search (set); its rows' outcomes filled
   in, its result in *res.  A game that fails (a safety limit) keeps no row. */
static int record_game(uno_record *rec, const uno_config *cfg, const uno_table *t,
                       const uno_policy *pol, const uint64_t key[4], uint64_t game,
                       uno_result *res_out)
{
    int32_t r_winner[UNO_MAX_ROUNDS + 1], r_round[UNO_MAX_ROUNDS + 1];
    int32_t r_zero[UNO_MAX_ROUNDS + 1], r_seats[(UNO_MAX_ROUNDS + 1) * UNO_MAX_PLAYERS];
    int64_t r_game[UNO_MAX_ROUNDS + 1];
    uno_round_rows rows;
    rows.cap = UNO_MAX_ROUNDS + 1;
    rows.agg = NULL;
    rows.n = 0;
    rows.game = r_game;
    rows.round = r_round;
    rows.winner = r_winner;
    rows.dealer = rows.starter = rows.turns = rows.reshuffles = r_zero;
    rows.points = rows.cards_left = r_seats;
    uno_rng rng;
    uno_result res;
    uno_game g;
    res_out->status = UNO_ERR_CONFIG;
    const int64_t first_row = rec->n;
    uno_rng_seed(&rng, key, game);
    int dealer = uno_game_start(&g, cfg, t, pol, &rng); /* as uno_play_game's game */
    jmp_buf bail;
    g.bail = &bail;
    g.rows = &rows;
    g.game_no = game;
    if (!cfg->search->begin(&g, 0)) /* not stoppable: a recorded batch runs to its end */
        return UNO_ERR_CONFIG;
    uno_search_tap(&g, tap, rec);
    uno_search_play(&g, rec->play, rec->play_seats);
    if (setjmp(bail)) {
        cfg->search->end(&g);
        rec->n = first_row;
        return UNO_ERR_POLICY;
    }
    int st = uno_game_rounds(&g, dealer, &res);
    cfg->search->end(&g);
    if (st != UNO_OK) {
        rec->n = first_row;
        return st;
    }
    for (int64_t i = first_row; i < rec->n; i++) {
        const int s = rec->col[UNO_REC_SEAT][i], r = rec->col[UNO_REC_ROUND][i];
        rec->col[UNO_REC_WON][i] = won_game(cfg, &res, s);
        int w = -1;
        for (int64_t k = 0; k < rows.n; k++)
            if (r_round[k] == r)
                w = r_winner[k];
        rec->col[UNO_REC_ROUND_WON][i] =
            w < 0 ? -1 : (w == s || (cfg->teams && w % 2 == s % 2));
    }
    *res_out = res;
    return UNO_OK;
}

int uno_record_games(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                     const uint64_t key[4], uint64_t first_game, int64_t n_games,
                     uno_record *rec)
{
    uno_config c = *cfg;
    c.search = &uno_search_players; /* every game recorded, with or without a search seat */
    cfg = &c;
    if (uno_config_check(cfg, t, pol) != UNO_OK)
        return UNO_ERR_CONFIG;
    for (int s = 0; rec->play && s < cfg->players; s++) /* a search labels, is never played */
        if (((rec->play_seats >> s) & 1) &&
            (rec->play[s].id == UNO_POLICY_PIMC || rec->play[s].id == UNO_POLICY_ISMCTS))
            return UNO_ERR_CONFIG;
    rec->first_game = first_game;
    rec->games_done = rec->games_failed = 0;
    for (int64_t i = 0; i < n_games; i++) {
        uno_result res;
        int st = record_game(rec, cfg, t, pol, key, first_game + (uint64_t)i, &res);
        const int n = cfg->players;
        if (rec->turns)
            rec->turns[i] = st == UNO_OK ? res.turns : -1;
        if (rec->rounds)
            rec->rounds[i] = st == UNO_OK ? res.rounds : -1;
        if (rec->winner)
            rec->winner[i] = st == UNO_OK ? res.winner : -1;
        for (int s = 0; rec->scores && s < n; s++)
            rec->scores[i * n + s] = st == UNO_OK ? res.scores[s] : 0;
        if (rec->failed)
            return UNO_ERR_FULL;
        if (st == UNO_ERR_LIMIT)
            rec->games_failed++;
        else if (st != UNO_OK)
            return st;
        rec->games_done = i + 1;
    }
    return UNO_OK;
}

void uno_record_free(uno_record *rec)
{
    free(rec->obs);
    free(rec->mask);
    free(rec->value);
    free(rec->count);
    for (int c = 0; c < UNO_REC_COLUMNS; c++)
        free(rec->col[c]);
    memset(rec, 0, sizeof *rec);
}
