/*
 * draw.c - drawing from the draw pile (reference.Game.draw, reshuffle, draw_until): the
 * reshuffle of the discards (C15), a draw of k cards and the draws one card at a time
 * until a card stops them (F4, C-H2).  Both the turn's rules (round.c) and the rare ones
 * (extras.c) draw; they stand on this file, which calls neither of them, so round.c
 * calls extras.c and nothing calls back up.
 *
 * The turn's own draw of one card (round.c draw_one) and the launcher that replaces the
 * draw pile (extras.c press, E2) stay with their rules; they take cards off the pile as
 * uno_draw_pop does here.
 */
#if !defined(__CUDACC_RTC__) /* NVRTC: no C library (uno_port.h) */
#include <string.h>
#endif

#include "engine_internal.h"

/* reference.Game.reshuffle (C15): the discard pile but its top becomes the draw pile. */
UNO_HD int uno_reshuffle(uno_game *g)
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
#if !UNO_DEVICE /* the search players: CPU only */
    if (UNO_UNLIKELY(g->search != NULL))
        g->cfg->search->event(g, 1);
#endif
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_RESHUFFLE, -1, m, 0, 0);
    return 1;
}

/* reference.Game.draw: up to k cards (fewer when nothing is left, C15); returns the count. */
UNO_HD UNO_NOCLONE int uno_draw_cards(uno_game *g, int p, int k, int reason)
{
    uint8_t got[UNO_MAX_CARDS]; /* for the trace only: without one, the build drops it */
    int n = 0, last = -1;
    for (int i = 0; i < k; i++) {
        if (g->n_draw == 0 && !uno_reshuffle(g))
            break;
        int card = uno_draw_pop(g);
        uno_hand_add(g, p, card);
        got[n++] = (uint8_t)card;
        last = card;
    }
    g->last_drawn = last;
    g->counters[UNO_CT_CARDS_DRAWN][p] += n;
    if (reason != UNO_R_CANNOT_PLAY && reason != UNO_R_VOLUNTARY)
        g->failed[p] = 0; /* penalty cards: it may hold any color now */
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_DRAW, p, reason, 0, 0);
        uno_trace_cards(g->tr, got, n);
    }
    return n;
}

/*
 * p draws one card at a time into got[] until a card stops it or nothing is left (C15):
 * a playable card when `playable` (C-H2), else a card of the active color (F4).  Returns
 * how many; the caller counts and traces them.
 */
UNO_HD int uno_draw_while(uno_game *g, int p, uint8_t *got, int playable)
{
    int n = 0;
    while (g->n_draw > 0 || uno_reshuffle(g)) {
        int card = uno_draw_pop(g);
        uno_hand_add(g, p, card);
        got[n++] = (uint8_t)card;
        if (playable ? uno_playable(g, card) : uno_color(g, card) == g->color)
            break;
    }
    return n;
}

/* reference.Game.draw_until (F4): draw until a card of the active color, or nothing is left. */
UNO_HD void uno_draw_until(uno_game *g, int p, int reason)
{
    uint8_t got[UNO_MAX_CARDS];
    int n = uno_draw_while(g, p, got, 0);
    g->counters[UNO_CT_CARDS_DRAWN][p] += n;
    g->failed[p] = 0; /* penalty cards: it may hold any color now */
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_DRAW_UNTIL, p, reason, g->color, 0);
        uno_trace_cards(g->tr, got, n);
    }
}
