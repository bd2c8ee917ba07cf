/*
 * game.c - whole games and batches of them (reference.Game.__init__,
 * choose_dealer, score_round, result and the public uno_play_game,
 * uno_play_forced, uno_play_round, uno_play_games): the dealer draw (C3),
 * the rounds one after another through uno_round_play (round.c), scoring
 * (C17-C20) and the result; rule IDs are those of docs/rules.md.
 */
#if !defined(__CUDACC_RTC__) /* NVRTC: no C library (uno_port.h) */
#include <string.h>
#endif

#include "engine_internal.h"

/* ------------------------------------------------------------------------- */
/* Rounds and games                                                           */
/* ------------------------------------------------------------------------- */

/* C3: a number card is a printed 0-9; a deck file's plain kind (face above 31) is not. */
UNO_HD static int is_number(const uno_table *t, int k)
{
    return t->effect[k] == UNO_NUMBER && t->face[k] <= 9;
}

/* reference.Game.choose_dealer (C3): highest number deals; ties draw again. */
UNO_HD static int choose_dealer(uno_game *g)
{
    const uno_table *t = g->t;
    int size = t->n_cards;
    uint8_t pile[UNO_MAX_CARDS];
    for (int i = 0; i < size; i++)
        pile[i] = (uint8_t)i;
    /* The round-0 deal stream, seeded by init_game (a re-pairing may have used it first),
       shuffles the pack; nothing draws from it after the dealer draw (each round seeds its
       own), so the shuffle's steps are taken as the cards are drawn, from the top down
       (uno_draw_pop's lazy shuffle): the cards drawn are the same.  The redraw rule puts
       cards back under the pack, so it shuffles the whole pack first. */
    int redraw = UNO_CFG(g->cfg, dealer_draw) == UNO_DEALER_REDRAW;
    int np = size, bag = size; /* pile[0..bag): still to be shuffled */
    if (redraw) {
        uno_rng_shuffle_u8(&g->deal, pile, size);
        bag = 0;
    }
    int numbers = 0; /* number cards left in the pack: only the redraw rule uses it */
    for (int i = 0; redraw && i < size; i++)
        numbers += is_number(t, t->card_kind[0][pile[i]]);
    int contenders[UNO_MAX_PLAYERS] = {0}, values[UNO_MAX_PLAYERS] = {0}, nc = 0;
    for (int s = 0; s < UNO_N(g); s++)
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
                int c = uno_rng_lazy_take(&g->deal, pile, --np, &bag);
                if (g->tr) {
                    uno_trace_push(g->tr, contenders[j]);
                    uno_trace_push(g->tr, c);
                }
                int k = t->card_kind[0][c]; /* the light side (F2) */
                if (is_number(t, k)) {
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

/* C17: the points of s's hand, as a count of its cards per value (uno_table.value_of). */
UNO_HD static inline int32_t hand_value_w(const uno_game *g, int s, const int W)
{
    const uno_table *t = g->t;
    const int side = g->side;
    const uno_hand *h = &g->hand[s];
    int32_t v = 0;
    for (int k = 0; k < t->n_values[side]; k++) {
        const uno_hand *m = &t->value_mask[side][k];
        int c = 0;
        for (int i = 0; i < W; i++)
            c += uno_popcount64(h->w[i] & m->w[i]);
        v += t->value_of[side][k] * c;
    }
    return v;
}

UNO_HD static int32_t hand_value(const uno_game *g, int s)
{
    if (g->t->n_values[g->side] <= UNO_VALUE_CLASSES) /* no loop over the hand's cards */
        return uno_narrow(g->t) ? hand_value_w(g, s, 2) : hand_value_w(g, s, 4);
    const int32_t *value = g->t->card_value[g->side];
    const uint8_t *un = g->t->unrank[g->side];
    int32_t v = 0;
    UNO_BITS_FOR(g->hand[s], r)
        v += value[un[r]];
    return v;
}

/* One row of uno_round_rows for the round just scored. */
UNO_HD static void round_row(uno_game *g, int winner, const int32_t *points)
{
    uno_round_rows *r = g->rows;
    if (r->agg) { /* aggregates only (uno_columns.agg) */
        uno_agg_round(r->agg, g->turns - g->round_turns0);
        return;
    }
    if (r->n >= r->cap) {
        g->rows_full = 1;
        return;
    }
    int64_t i = r->n++;
    int n = UNO_N(g);
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
UNO_HD static int score_round(uno_game *g, int winner)
{
    const uno_config *r = g->cfg;
    int n = UNO_N(g);
    int32_t points[UNO_MAX_PLAYERS] = {0};
    int32_t eliminated[UNO_MAX_PLAYERS];
    int n_elim = 0;
    int over = 0;
    if (winner >= 0) {
        g->counters[UNO_CT_ROUNDS_WON][winner]++;
        if (UNO_CFG(r, scoring) == UNO_SCORING_STANDARD) {
            int32_t won = 0;
            if (UNO_CFG(r, teams)) {
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
            if (UNO_CFG(r, scoring) == UNO_SCORING_ELIMINATION) {
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
            uno_trace_hand(g, s);
        uno_trace_ints(g->tr, g->scores, n);
        uno_trace_ints(g->tr, eliminated, n_elim);
        if (UNO_CFG(r, teams))
            uno_trace_ints(g->tr, g->team_scores, 2);
    }
    return over;
}

/* reference.Game.result */
UNO_HD static void result(const uno_game *g, uno_result *res)
{
    const uno_config *r = g->cfg;
    int n = UNO_N(g);
    memset(res, 0, sizeof *res); /* winners[] past n_winners too: results compare bytewise */
    res->status = UNO_OK;
    res->error_card = -1;
    res->team = -1;
    res->n_winners = 0;
    if (UNO_CFG(r, scoring) == UNO_SCORING_STANDARD && UNO_CFG(r, teams)) {
        res->team = g->team_scores[0] >= r->target ? 0 : 1;
        for (int s = 0; s < n; s++)
            if (s % 2 == res->team)
                res->winners[res->n_winners++] = s;
    } else if (UNO_CFG(r, scoring) == UNO_SCORING_STANDARD) {
        int best = 0;
        for (int s = 1; s < n; s++)
            if (g->scores[s] > g->scores[best])
                best = s;
        res->winners[res->n_winners++] = best;
    } else if (UNO_CFG(r, scoring) == UNO_SCORING_ELIMINATION) {
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
    memcpy(res->scores, g->scores, sizeof g->scores); /* UNO_SEATS of UNO_MAX_PLAYERS */
    memcpy(res->team_scores, g->team_scores, sizeof res->team_scores);
    res->rounds = g->rounds;
    res->turns = g->turns;
    res->reshuffles = g->reshuffles;
    res->stalemates = g->stalemates;
    for (int c = 0; c < UNO_N_COUNTERS; c++)
        memcpy(res->counters[c], g->counters[c], sizeof g->counters[c]);
}

/* reference.Game.__init__ */
UNO_HD static void init_game(uno_game *g, const uno_config *cfg, const uno_table *t,
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
    g->search = NULL;
    g->on_turn = NULL;
    g->on_turn_ctx = NULL;
    g->tr = tr;
    g->n = cfg->players;
    uno_dec_round(g, 0);
    g->n_active = g->n;
    g->direction = 1;
    g->color = UNO_NO_COLOR;
    g->top_face = -1;
    g->side = 0;
    g->idle = 0;
    g->launcher = cfg->draw_source == UNO_DRAW_LAUNCHER;
    /* a launcher (E2) replaces the draw pile, which the inline draws of draw cards use */
    g->fast_max = tr || cfg->seven_o                ? UNO_FAST_NO
                  : cfg->stacking || g->launcher    ? UNO_FAST_WILD
                                                    : UNO_FAST_DRAW;
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
#if UNO_KEEPS_REVEAL
    for (int s = 0; s < UNO_MAX_PLAYERS; s++) {
        g->reveal_from[s] = -1;
        g->reveal_n[s] = 0;
    }
#endif
    g->bail = NULL;
    g->n_draw = g->n_discard = g->bag = 0;
    g->pending = 0;
    g->last_player = g->last_card = -1;
    g->jump_open = 0;
}

UNO_HD static int fail(uno_result *res, int status, int card)
{
    memset(res, 0, sizeof *res);
    res->status = status;
    res->error_card = card;
    res->winner = res->team = -1;
    return status;
}

/* The deal passes to the left (C3): the dealer of the round after dealer's. */
UNO_HD static int next_dealer(uno_game *g, int dealer)
{
    int d = g->direction;
    g->direction = 1;
    dealer = uno_next(g, dealer);
    g->direction = d;
    return dealer;
}

/* The game's rounds from the one `dealer` deals to the end; fills res. */
UNO_HD static int play_rounds(uno_game *g, int dealer, uno_result *res)
{
    const uno_config *cfg = g->cfg;
    for (;;) {
        if (g->rounds >= (cfg->max_rounds > 0 ? cfg->max_rounds : UNO_MAX_ROUNDS) ||
            g->turns >= UNO_MAX_GAME_TURNS)
            return fail(res, UNO_ERR_LIMIT, -1);
        int winner = uno_round_play(g, dealer, NULL);
        if (winner <= -3)
            return fail(res, UNO_ERR_STARTER, -3 - winner);
        if (winner == LIMIT)
            return fail(res, UNO_ERR_LIMIT, -1);
        if (score_round(g, winner))
            break;
        dealer = next_dealer(g, dealer);
    }
    if (g->rows_full)
        return fail(res, UNO_ERR_FULL, -1);
    result(g, res);
    return UNO_OK;
}

#if !defined(__CUDACC_RTC__) /* search.c (CPU only): not in the GPU build */
/* search.c: score a clone's round (1: the game is over) and read its result. */
int uno_round_score(uno_game *g, int winner)
{
    return score_round(g, winner);
}

void uno_game_result(const uno_game *g, uno_result *res)
{
    result(g, res);
}
#endif

/* uno.h: the rest of a clone's game after its round ended with `winner`. */
UNO_HD int uno_game_finish(uno_game *g, int winner, uno_result *res)
{
    if (winner == LIMIT)
        return fail(res, UNO_ERR_LIMIT, -1);
    if (score_round(g, winner)) {
        result(g, res);
        return UNO_OK;
    }
    return play_rounds(g, next_dealer(g, g->round_dealer), res);
}

/* `checked`: the caller has already validated cfg against t and pol (once per batch).
   `stats` (CPU only, NULL: none): the game's search counters (uno_play_games_search).
   A game with the search's hooks (cfg->search: a search seat, or uno_play_fork) is
   recorded through them; with `fork`, forked at its fork_at-th decision. */
UNO_HD static int play_game_stats(const uno_config *cfg, const uno_table *t,
                                  const uno_policy *pol, uno_rng *rng, uno_trace *tr,
                                  uno_result *res, uno_round_rows *rows, uint64_t game_no,
                                  uno_force *force, int checked, int64_t fork_at,
                                  uno_result *fork, int64_t *stats)
{
    if (!checked && uno_config_check(cfg, t, pol) != UNO_OK)
        return fail(res, UNO_ERR_CONFIG, -1);
    uno_game g;
    init_game(&g, cfg, t, pol, rng, tr);
    g.force = force;
    g.rows = rows;
    g.game_no = game_no;
#if !UNO_DEVICE /* the search players and a user policy's abort: CPU only */
    jmp_buf bail;
    g.bail = &bail;
    if (UNO_UNLIKELY(cfg->search != NULL) && !cfg->search->begin(&g, 1))
        return fail(res, UNO_ERR_CONFIG, -1);
    if (fork)
        cfg->search->fork(&g, fork_at, fork);
    int why = setjmp(bail);
    if (why) {
        uno_search_release(&g);
        return fail(res, why == UNO_BAIL_STOP ? UNO_ERR_STOPPED : UNO_ERR_POLICY, -1);
    }
#else
    (void)fork_at;
#endif
    if (UNO_CFG(cfg, repair) && UNO_SPEC_OR(UNO_SPEC_TBL_sides, t->n_sides) == 2) {
        /* F1 switch: a new pairing every game.  The table's cards, so it draws from the
           round-0 deal stream (seeded by init_game) before the dealer draw continues it:
           two arms with different policies get the same pairing and deals. */
        uno_table *own = UNO_OWN_TABLE(&g);
        memcpy(own, t, sizeof *own);
        uno_rng_shuffle_u8(&g.deal, own->card_kind[1], t->n_cards);
        uno_table_derive(own, 1);
        g.t = own;
        if (tr) {
            uno_trace_event(tr, UNO_EV_PAIRING, -1, 0, 0, 0);
            uno_trace_cards(tr, own->card_kind[1], t->n_cards);
        }
    }
    int st = play_rounds(&g, choose_dealer(&g), res);
#if !UNO_DEVICE
    if (stats && g.search)
        cfg->search->stats(&g, stats);
    uno_search_release(&g);
#else
    (void)stats;
#endif
    return st;
}

UNO_HD static int play_game(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                     uno_rng *rng, uno_trace *tr, uno_result *res, uno_round_rows *rows,
                     uint64_t game_no, uno_force *force, int checked)
{
    return play_game_stats(cfg, t, pol, rng, tr, res, rows, game_no, force, checked, -1, NULL,
                           NULL);
}

UNO_HD int uno_play_game(const uno_config *cfg, const uno_table *t, const uno_policy *pol, uno_rng *rng,
                  uno_trace *tr, uno_result *res)
{
    return play_game(cfg, t, pol, rng, tr, res, NULL, 0, NULL, 0);
}

UNO_HD int uno_play_forced(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                    const uint64_t key[4], uint64_t game, uno_force *force, uno_trace *tr,
                    uno_result *res)
{
    uno_rng rng;
    uno_rng_seed(&rng, key, game);
    force->seen = 0;
    force->hit_round = 0;
    force->round_won = 0;
    force->round_points = 0;
    return play_game(cfg, t, pol, &rng, tr, res, NULL, game, force, 0);
}

UNO_HD int uno_play_forced_rows(const uno_config *cfg, const uno_table *t,
                                const uno_policy *pol, const uint64_t key[4], uint64_t game,
                                uno_force *force, uno_round_rows *rows, uno_result *res)
{
    uno_rng rng;
    uno_rng_seed(&rng, key, game);
    force->seen = 0;
    force->hit_round = 0;
    force->round_won = 0;
    force->round_points = 0;
    return play_game(cfg, t, pol, &rng, NULL, res, rows, game, force, 0);
}

#if !UNO_DEVICE && !defined(__CUDACC_RTC__)
/* search.c's uno_play_fork: game `game` of the run `key`, recorded and forked at its
   at-th decision through cfg->search, which must be set. */
int uno_play_game_fork(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                       const uint64_t key[4], uint64_t game, int64_t at, uno_result *res,
                       uno_result *fork)
{
    uno_rng rng;
    uno_rng_seed(&rng, key, game);
    if (!cfg->search)
        return fail(res, UNO_ERR_CONFIG, -1);
    return play_game_stats(cfg, t, pol, &rng, NULL, res, NULL, game, NULL, 0, at, fork, NULL);
}
#endif

/* uno_play_round and uno_play_round_of: round `round` (1-based) from `scores`. */
UNO_HD static int play_one_round(const uno_config *cfg, const uno_table *t,
                                 const uno_policy *pol, uno_rng *rng, const uint8_t *deck,
                                 int dealer, const int32_t *scores, int round, uno_trace *tr,
                                 uno_result *res)
{
    if (uno_config_check(cfg, t, pol) != UNO_OK || dealer < 0 || dealer >= cfg->players ||
        round < 1 || round > UNO_MAX_ROUNDS)
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
    init_game(&g, cfg, t, pol, rng, tr);
    g.rounds = round - 1; /* start_round deals round `round` from its own streams */
#if !UNO_DEVICE /* the search players and a user policy's abort: CPU only */
    jmp_buf bail;
    g.bail = &bail;
    if (cfg->search && !cfg->search->begin(&g, 1))
        return fail(res, UNO_ERR_CONFIG, -1);
    int why = setjmp(bail);
    if (why) {
        uno_search_release(&g);
        return fail(res, why == UNO_BAIL_STOP ? UNO_ERR_STOPPED : UNO_ERR_POLICY, -1);
    }
#endif
    if (scores)
        memcpy(g.scores, scores, (size_t)g.n * sizeof *scores);
    int winner = uno_round_play(&g, dealer, deck);
#if !UNO_DEVICE
    uno_search_release(&g);
#endif
    if (winner <= -3)
        return fail(res, UNO_ERR_STARTER, -3 - winner);
    if (winner == LIMIT)
        return fail(res, UNO_ERR_LIMIT, -1);
    score_round(&g, winner);
    result(&g, res);
    return UNO_OK;
}

UNO_HD int uno_play_round(const uno_config *cfg, const uno_table *t, const uno_policy *pol, uno_rng *rng,
                   const uint8_t *deck, int dealer, const int32_t *scores, uno_trace *tr,
                   uno_result *res)
{
    return play_one_round(cfg, t, pol, rng, deck, dealer, scores, 1, tr, res);
}

UNO_HD int uno_play_round_of(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                             const uint64_t key[4], uint64_t game, int round, int dealer,
                             const int32_t *scores, uno_result *res)
{
    uno_rng rng;
    uno_rng_seed(&rng, key, game);
    return play_one_round(cfg, t, pol, &rng, NULL, dealer, scores, round, NULL, res);
}

/* uno_play_games, and uno_play_games_search with `stats` (CPU only). */
UNO_HD static int play_games(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                             const uint64_t key[4], uint64_t first_game, int64_t n_games,
                             uno_columns *out, int64_t *stats)
{
    int n = cfg->players;
    uno_result res;
    out->games_done = 0;
    if (uno_config_check(cfg, t, pol) != UNO_OK) /* once for the whole batch */
        return UNO_ERR_CONFIG;
    uno_round_rows *rows = out->rows;
    uno_round_rows sink; /* aggregates only: each round to out->agg, no rows */
    int64_t agg_stats[UNO_MAX_PLAYERS * UNO_SEARCH_STATS];
    int agg_search = 0;
    if (out->agg) {
        memset(&sink, 0, sizeof sink);
        sink.agg = out->agg;
        rows = &sink;
#if !UNO_DEVICE
        agg_search = !stats && cfg->search != NULL; /* a seat searches (uno_config.search) */
#endif
    }
    for (int64_t i = 0; i < n_games; i++) {
        if (UNO_STOP_REQUESTED()) /* uno.h "Stopping a long call" */
            return UNO_ERR_STOPPED;
        uno_rng rng;
        uint64_t game = first_game + (uint64_t)i;
        int64_t rows_before = rows ? rows->n : 0;
        uno_rng_seed(&rng, key, game);
        int64_t *st_i = stats ? stats + i * n * UNO_SEARCH_STATS : agg_search ? agg_stats : NULL;
        if (st_i)
            memset(st_i, 0, (size_t)n * UNO_SEARCH_STATS * sizeof *st_i);
        int st = play_game_stats(cfg, t, pol, &rng, NULL, &res, rows, game, NULL, 1, -1,
                                 NULL, st_i);
        if (st != UNO_OK) {
            if (rows)
                rows->n = rows_before; /* only complete games keep their rows */
            return st;
        }
        if (out->agg) {
            uno_agg_game(out->agg, &res, n);
            if (st_i)
                uno_agg_search(out->agg, st_i, n);
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

UNO_HD int uno_play_games(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                   const uint64_t key[4], uint64_t first_game, int64_t n_games,
                   uno_columns *out)
{
    return play_games(cfg, t, pol, key, first_game, n_games, out, NULL);
}

#if !UNO_DEVICE && !defined(__CUDACC_RTC__)
int uno_play_games_search(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                          const uint64_t key[4], uint64_t first_game, int64_t n_games,
                          uno_columns *out, int64_t *stats)
{
    return play_games(cfg, t, pol, key, first_game, n_games, out, stats);
}
#endif

/* uno.h: a new game in g, up to its dealer draw (play_game without the batch's parts). */
UNO_HD int uno_game_start(uno_game *g, const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                   uno_rng *rng)
{
    init_game(g, cfg, t, pol, rng, NULL);
    /* as play_game */
    if (UNO_CFG(cfg, repair) && UNO_SPEC_OR(UNO_SPEC_TBL_sides, t->n_sides) == 2) {
        uno_table *own = UNO_OWN_TABLE(g);
        memcpy(own, t, sizeof *own);
        uno_rng_shuffle_u8(&g->deal, own->card_kind[1], t->n_cards);
        uno_table_derive(own, 1);
        g->t = own;
    }
    return choose_dealer(g);
}

/* uno.h: g's rounds from the one `dealer` deals to the end of the game. */
UNO_HD int uno_game_rounds(uno_game *g, int dealer, uno_result *res)
{
    return play_rounds(g, dealer, res);
}
