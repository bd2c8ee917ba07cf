/*
 * engine_internal.h - what the engine's own files share, and nobody else:
 * the sentinels of the turn loop, the function attributes that keep the
 * rare rules off the hot path, the small helpers several files inline, and
 * the functions one file calls in another.  The public API is uno.h.
 *
 *   table.c    deck tables and the configuration check (uno_table_init, uno_config_check)
 *   round.c    one round of play: the deal, the turn loop and the common effects
 *   extras.c   the rules a plain game never reaches (launcher, special wilds, house rules)
 *   game.c     games and batches: the dealer draw, scoring, results, uno_play_*
 *
 * Calls from round.c into extras.c go to functions declared UNO_COLD here,
 * so the compiler lays those paths out as unlikely in round.c as it did when
 * they shared a file; nothing on the hot path crosses a file.
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

/* ------------------------------------------------------------------------- */
/* round.c: what the rare rules call back into                                */
/* ------------------------------------------------------------------------- */

UNO_HD UNO_INTERNAL int uno_reshuffle(uno_game *g);                               /* C15 */
UNO_HD UNO_INTERNAL UNO_NOCLONE int uno_draw_cards(uno_game *g, int p, int k, int reason);
UNO_HD UNO_INTERNAL int uno_draw_while(uno_game *g, int p, uint8_t *got, int playable); /* C-H2, F4 */
UNO_HD UNO_INTERNAL void uno_draw_until(uno_game *g, int p, int reason);          /* F4 */
UNO_HD UNO_INTERNAL int uno_has_legal_play(const uno_game *g, int p);             /* C7 */
UNO_HD UNO_INTERNAL int uno_play_card(uno_game *g, int p, int card);              /* reference.Game.play */
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
/* search.c: the recorder of a game with a search seat                        */
/* ------------------------------------------------------------------------- */

/* The start of seat p's turn in a game with a search seat (g->search): its snapshot. */
#if !defined(__CUDACC_RTC__) /* CPU only (search.c, env.c): not in the GPU build */
UNO_INTERNAL UNO_COLD void uno_search_turn(uno_game *g, int p);
/* A round's starter turned up, before its effect (C5; dealer deals): the round-start
   snapshot, from which a search rebuilds the decisions before the first turn. */
UNO_INTERNAL UNO_COLD void uno_search_start(uno_game *g, int dealer);
/* A reshuffle (C15) or a flip (F3) has just happened in a game with a search seat (or in
   a search's replay of the turn): the state from which a search samples the rest of the
   turn (search.c). */
UNO_INTERNAL UNO_COLD void uno_search_event(uno_game *g, int reshuffle);
/* A launcher press (E2) about to fire k cards in a game with a search seat: the cards it
   fires (k; in a search's replay of the turn, what the press fired in the game). */
UNO_INTERNAL UNO_COLD int uno_search_press(uno_game *g, int k);
/* play_game / uno_play_round with a search seat: set up (1) or fail to (0, no memory),
   and release. */
UNO_INTERNAL int uno_search_begin(uno_game *g);
UNO_INTERNAL void uno_search_end(uno_game *g);
/* Adds the game's search counters (uno.h UNO_SS_*) into stats[players][UNO_SEARCH_STATS]. */
UNO_INTERNAL void uno_search_stats(const uno_game *g, int64_t *stats);
/* game.c for search.c: score_round (1: the game is over), result */
UNO_INTERNAL int uno_round_score(uno_game *g, int winner);
UNO_INTERNAL void uno_game_result(const uno_game *g, uno_result *res);
/* policy.c: counterfactual forcing (uno_force) at a search seat, after its search */
UNO_INTERNAL UNO_COLD int uno_cf_bluff_point(uno_game *g, int p, int natural);
UNO_INTERNAL UNO_COLD int uno_cf_challenge_answer(uno_game *g, int victim, int offender,
                                                  int prev_color, int a);
/* uno_play_fork: fork the recorded game at its at-th decision into *fork. */
UNO_INTERNAL void uno_search_fork(uno_game *g, int64_t at, uno_result *fork);
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
/* Sets the tap of a game recorded by uno_search_begin (NULL: none). */
UNO_INTERNAL void uno_search_tap(uno_game *g, uno_decision_tap tap, void *ctx);
#endif

#endif /* UNO_ENGINE_INTERNAL_H */
