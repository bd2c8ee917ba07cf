/*
 * engine_internal.h - what the engine's own files share, and nobody else:
 * the sentinels of the turn loop, the function attributes that keep the
 * rare rules off the hot path, the small helpers several files inline, and
 * the functions one file calls in another.  The public API is uno.h.
 *
 *   table.c    deck tables and the configuration check (uno_table_init, uno_config_check)
 *   draw.c     drawing: the reshuffle, a draw of k cards, draws until a card stops them
 *   legal.c    the legal actions of a decision, and whether a seat has a legal play
 *   round.c    one round of play: the deal, the turn loop and the common effects
 *   extras.c   the rules a plain game never reaches (launcher, special wilds, house rules)
 *   game.c     games and batches: the dealer draw, scoring, results, uno_play_*
 *
 * The search players (search.c) stand above these files: the engine calls them only
 * through the hooks uno_config.search points at (uno.h uno_search_hooks).
 *
 * round.c calls extras.c, and both call draw.c and legal.c; nothing calls back up
 * (tests/test_layers.py).  A rare rule that makes a play hands it back to round.c, as
 * the sentinels below say, rather than calling the dispatcher.  Calls from round.c
 * into extras.c go to functions declared UNO_COLD here, so the compiler lays those
 * paths out as unlikely in round.c as it did when they shared a file.  The turn's
 * common draw (round.c draw_one) stays inline: only a draw that reshuffles, is traced
 * or is a penalty the turn does not play by itself calls into draw.c.
 */
#ifndef UNO_ENGINE_INTERNAL_H
#define UNO_ENGINE_INTERNAL_H

#include "uno.h"

/* Off the hot path (not inlined, laid out as unlikely at every call). */
#if defined(__GNUC__)
#define UNO_COLD __attribute__((noinline, cold))
/* the effect dispatcher: inlined into play(), whatever the rare cases add to its size */
#define UNO_INLINE __attribute__((always_inline)) inline
/* a function of its own however small (a copy for constant arguments, called at one place) */
#define UNO_NOINLINE __attribute__((noinline))
#else
#define UNO_COLD
#define UNO_INLINE inline
#define UNO_NOINLINE
#endif

/* A function one engine file calls in another: not exported from a shared object, so that
   calls to it are direct (no PLT, no interposition) and may still be inlined in its file. */
#if defined(__GNUC__)
#define UNO_INTERNAL __attribute__((visibility("hidden")))
#else
#define UNO_INTERNAL
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
#define NO_STACK (-100) /* try_stack, jump_turn: nobody answers, the turn goes on */
/* (uno_jump_turn's other answer is the jumper's seat: take_turn plays its card, C-H4) */
/*
 * A play that makes another play (resolve's answer; play_card plays it next, in a loop, so
 * that no chain of plays recurses: the GPU build's stack stays what the compiler sizes):
 * PLAY_STACK, a stack (C-H1): g->last_player answers with g->last_card, set up by
 * uno_try_stack; PLAY_AGAIN - k, a vintage challenge won (C12): g->last_player plays its
 * replacement g->last_card, then draws the penalty of the bluffed kind k.
 */
#define PLAY_STACK (-1000)
#define PLAY_AGAIN (-1001) /* - k, k < UNO_MAX_KINDS */

/* ------------------------------------------------------------------------- */
/* Helpers (reference.Game)                                                   */
/* ------------------------------------------------------------------------- */

UNO_HD static inline int adv(const uno_game *g, int p, int steps)
{
    for (int i = 0; i < steps; i++)
        p = uno_next(g, p);
    return p;
}

/* One list of the trace: seat s's hand, in hand order. */
UNO_HD static inline void uno_trace_hand(uno_game *g, int s)
{
    uint8_t cards[UNO_HAND_CAP];
    int n = uno_hand_cards(g, s, cards);
    uno_trace_cards(g->tr, cards, n);
}

UNO_HD static inline void skip(uno_game *g, int victim)
{
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_SKIP, victim, 0, 0, 0);
}

/* reference.Game.has_legal_play: a playable card that would not be a bluff (C7). */
UNO_HD static UNO_INLINE int has_legal_play_w(const uno_game *g, int p, const int W)
{
    uno_hand legal = uno_legal_cards_w(g, p, W);
    return uno_bits_first_w(&legal, W) >= 0;
}

/* The same at the deck's width: inline in the turn, and behind uno_has_legal_play elsewhere. */
UNO_HD static UNO_INLINE int has_legal_play(const uno_game *g, int p)
{
    return uno_narrow(g->t) ? has_legal_play_w(g, p, 2) : has_legal_play_w(g, p, 4);
}

/* ------------------------------------------------------------------------- */
/* draw.c and legal.c: what the turn's rules and the rare ones both call      */
/* ------------------------------------------------------------------------- */

UNO_HD UNO_INTERNAL int uno_reshuffle(uno_game *g);                               /* C15 */
UNO_HD UNO_INTERNAL UNO_NOCLONE int uno_draw_cards(uno_game *g, int p, int k, int reason);
UNO_HD UNO_INTERNAL int uno_draw_while(uno_game *g, int p, uint8_t *got, int playable); /* C-H2, F4 */
UNO_HD UNO_INTERNAL void uno_draw_until(uno_game *g, int p, int reason);          /* F4 */
UNO_HD UNO_INTERNAL int uno_has_legal_play(const uno_game *g, int p);             /* C7 */

/* ------------------------------------------------------------------------- */
/* round.c: what game.c and env.c call                                       */
/* ------------------------------------------------------------------------- */

/* reference.Game.play_round: the winning seat, -1 for a stalemate, LIMIT, or -3 - card */
UNO_HD UNO_INTERNAL int uno_round_play(uno_game *g, int dealer, const uint8_t *deck);

/* ------------------------------------------------------------------------- */
/* extras.c: the rare rules, each a cold call from round.c                    */
/* ------------------------------------------------------------------------- */

UNO_HD UNO_INTERNAL UNO_COLD void uno_presses(uno_game *g, int by, int to, int n, int reason);     /* E2, E7 */
UNO_HD UNO_INTERNAL UNO_COLD int uno_press_turn(uno_game *g, int p, int forced);                   /* E3 */
UNO_HD UNO_INTERNAL UNO_COLD int uno_resolve_hit(uno_game *g, int p, int card, int k, int out, int starter);
UNO_HD UNO_INTERNAL UNO_COLD void uno_discard_all(uno_game *g, int p, int card);                   /* E4 */
UNO_HD UNO_INTERNAL UNO_COLD void uno_fewest_draw(uno_game *g, int p, int k, int out);             /* H2 */
UNO_HD UNO_INTERNAL UNO_COLD void uno_swap_hands(uno_game *g, int p, int card);                    /* S2 */
UNO_HD UNO_INTERNAL UNO_COLD void uno_shuffle_hands(uno_game *g, int p);                           /* S2 */
UNO_HD UNO_INTERNAL UNO_COLD int uno_custom(uno_game *g, int p, int k, int out);                   /* S3 */
UNO_HD UNO_INTERNAL UNO_COLD int uno_try_stack(uno_game *g, int victim, int k, int pend);          /* C-H1 */
UNO_HD UNO_INTERNAL UNO_COLD int uno_draw_until_playable(uno_game *g, int p);                      /* C-H2 */
UNO_HD UNO_INTERNAL UNO_COLD int uno_jump_turn(uno_game *g);                                       /* C-H4 */
UNO_HD UNO_INTERNAL UNO_COLD void uno_seven_o(uno_game *g, int p, int card, int face);             /* C-H5 */

/* ------------------------------------------------------------------------- */
/* The search (search.c), reached through its hooks (uno.h uno_search_hooks)  */
/* ------------------------------------------------------------------------- */

#if !defined(__CUDACC_RTC__) /* CPU only (search.c, env.c): not in the GPU build */
/* Releases g's search recorder, if it has one (uno_search_hooks.end). */
static inline void uno_search_release(uno_game *g)
{
    if (g->search)
        g->cfg->search->end(g);
}
/* What search.c calls in the engine, beside uno.h's: */
/* game.c: score_round (1: the game is over), result */
/* The value of the longjmp(*g->bail, ...) that a stop (uno.h "Stopping a long call") makes
   in a search that honours the stop flag (uno_search_hooks.begin's `stoppable`; the vector
   env's games pass 0: a step is short and a slot cannot be left half stepped); a user
   policy's abort: 1. */
#define UNO_BAIL_STOP 2
UNO_INTERNAL int uno_round_score(uno_game *g, int winner);
UNO_INTERNAL void uno_game_result(const uno_game *g, uno_result *res);
/* game.c: game `game` of the run `key` recorded through cfg->search, forked at its at-th
   decision into *fork (search.c's uno_play_fork) */
UNO_INTERNAL int uno_play_game_fork(const uno_config *cfg, const uno_table *t,
                                    const uno_policy *pol, const uint64_t key[4], uint64_t game,
                                    int64_t at, uno_result *res, uno_result *fork);
/* policy.c: counterfactual forcing (uno_force) at a search seat, after its search */
UNO_INTERNAL UNO_COLD int uno_cf_bluff_point(uno_game *g, int p, int natural);
UNO_INTERNAL UNO_COLD int uno_cf_challenge_answer(uno_game *g, int victim, int offender,
                                                  int prev_color, int a);
/*
 * The decision recorder's tap (record.c): called by the recorded game at every decision
 * of every seat once the seat's policy has answered (`answer`, an engine answer) and
 * before the answer is applied, so that g is the state the seat decided in.  A search
 * seat's searched decision comes with its statistics per legal answer (else rep is NULL).
 */
typedef struct uno_search_report {
    int32_t m;                          /* legal answers (uno_legal_actions' order) */
    int32_t ans[UNO_MAX_ACTIONS];       /* their engine answers */
    double value[UNO_MAX_ACTIONS];      /* the mean value of each (its rollouts', weighted
                                           as the search weighs them) */
    int32_t count[UNO_MAX_ACTIONS];     /* the rollouts that valued it (0: not searched) */
} uno_search_report;
typedef void (*uno_decision_tap)(void *ctx, uno_game *g, int seat, int decision, int arg,
                                 int answer, const uno_search_report *rep);
/* Sets the tap of a game recorded by the search's hooks (NULL: none). */
UNO_INTERNAL void uno_search_tap(uno_game *g, uno_decision_tap tap, void *ctx);
/* Seats `seats` of a game recorded by the search's hooks play `play`'s answers (per seat),
   the tap still given their own policy's (DAgger: the decision recorder's `play`). */
UNO_INTERNAL void uno_search_play(uno_game *g, const uno_policy *play, uint32_t seats);
#endif

#endif /* UNO_ENGINE_INTERNAL_H */
