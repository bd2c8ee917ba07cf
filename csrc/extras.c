/*
 * extras.c - the rules a plain game never reaches, each called from round.c
 * through a UNO_COLD declaration (engine_internal.h), so that none of them
 * weighs on the common turn: the launcher that replaces the draw pile
 * (E2-E7), the special wilds (H2 fewest draw; S2 hand exchange; S3
 * customizable wilds) and the house rules (C-H1 stacking, C-H2 draw until
 * playable, C-H4 jump-in, C-H5 Seven-O); rule IDs are those of
 * docs/rules.md.  Each function names its twin in uno_sim/reference/game.py.
 *
 * They draw through draw.c and never call round.c: a stack (C-H1) or a jump-in
 * (C-H4) names the card and its player, and round.c plays it.
 */
#if !defined(__CUDACC_RTC__) /* NVRTC: no C library (uno_port.h) */
#include <string.h>
#endif

#include "engine_internal.h"

/* reference.weighted: index i with probability w[i] / sum(w), one bounded draw (E2). */
UNO_HD static int weighted(uno_rng *r, const int32_t *w, int n)
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
UNO_HD static int launcher_law(uno_game *g)
{
    const uno_config *c = g->cfg;
    if (UNO_CFG(c, launcher) == UNO_LAUNCHER_DIST)
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
UNO_HD static UNO_COLD int press(uno_game *g, int by, int to, int reason)
{
    if (g->n_draw == 0)
        uno_reshuffle(g);
    uint8_t got[UNO_MAX_CARDS];
    int fired = -1;
    if (g->n_draw > 0) {
        uno_draw_settle(g); /* the law draws from the deal stream too */
        int k = launcher_law(g);
#if !UNO_DEVICE /* the search players: CPU only */
        if (UNO_UNLIKELY(g->search != NULL))
            k = g->cfg->search->press(g, k);
#endif
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

UNO_HD UNO_COLD void uno_presses(uno_game *g, int by, int to, int n, int reason)
{
    for (int i = 0; i < n; i++)
        press(g, by, to, reason);
}

/* reference.Game.draw_until_playable (C-H2): one at a time until a playable card. */
UNO_HD UNO_COLD int uno_draw_until_playable(uno_game *g, int p)
{
    uint8_t got[UNO_MAX_CARDS];
    int n = uno_draw_while(g, p, got, 1);
    g->last_drawn = n ? got[n - 1] : -1;
    g->counters[UNO_CT_CARDS_DRAWN][p] += n;
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_DRAW, p, UNO_R_UNTIL_PLAYABLE, 0, 0);
        uno_trace_cards(g->tr, got, n);
    }
    return n;
}

/* reference.Game.try_stack (C-H1): the victim may answer with a draw card; PLAY_STACK when
   it does (play_card plays the card next, engine_internal.h), else NO_STACK. */
UNO_HD UNO_COLD int uno_try_stack(uno_game *g, int victim, int k, int pend)
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
    return PLAY_STACK;
}

/* reference.Game.seven_o (C-H5): a 7 swaps p's hand with a target's, a 0 passes all on. */
UNO_HD UNO_COLD void uno_seven_o(uno_game *g, int p, int card, int face)
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
    uno_hand tmp_alt = g->hand_alt[UNO_HAS_ALT ? last : 0];
    for (int i = m - 1; i > 0; i--) {
        int to = order[i], from = order[i - 1];
        g->hand[to] = g->hand[from];
        if (UNO_HAS_ALT)
            g->hand_alt[to] = g->hand_alt[from];
        g->hand_n[to] = g->hand_n[from];
        g->failed[to] = g->failed[from];
    }
    g->hand[p] = tmp;
    if (UNO_HAS_ALT)
        g->hand_alt[p] = tmp_alt;
    g->hand_n[p] = n;
    g->failed[p] = f;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_ROTATE, p, g->direction, 0, 0);
}

/* ------------------------------------------------------------------------- */
/* The special wilds: fewest draw (H2), hand exchange (S2), customizable (S3) */
/* ------------------------------------------------------------------------- */

/* reference.Game.fewest_draw (H2): the seats holding the fewest cards draw; p left out when
   it went out. */
UNO_HD UNO_COLD void uno_fewest_draw(uno_game *g, int p, int k, int out)
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
            uno_draw_cards(g, seats[i], g->t->amount[k], g->t->reason[k]);
}

/* reference.Game.swap_hands (S2): p swaps hands with the opponent it picks. */
UNO_HD UNO_COLD void uno_swap_hands(uno_game *g, int p, int card)
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
UNO_HD UNO_COLD void uno_shuffle_hands(uno_game *g, int p)
{
    uint8_t pile[UNO_MAX_CARDS];
    int np = 0;
    for (int s = 0; s < UNO_N(g); s++) {
        np += uno_hand_cards(g, s, pile + np); /* in hand order */
        memset(&g->hand[s], 0, sizeof g->hand[s]);
        if (UNO_HAS_ALT)
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
        for (int s = 0; s < UNO_N(g); s++)
            uno_trace_hand(g, s);
    }
}

/* reference.Game.put_down (S3): cards go under the top of the discard pile. */
UNO_HD static void put_down(uno_game *g, int q, const uint8_t *cards, int m)
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
UNO_HD static void to_size(uno_game *g, int q, int size, int reason, int out)
{
    int n = g->hand_n[q];
    if (n < size) {
        uno_draw_cards(g, q, size - n, reason);
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
UNO_HD UNO_COLD int uno_custom(uno_game *g, int p, int k, int out)
{
    int victim = uno_next(g, p);
    int reason = g->t->reason[k];
    switch (g->t->amount[k]) {
    case UNO_CUSTOM_DRAW_COLOR:
        uno_draw_until(g, victim, reason);
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
        if (!out && !uno_has_legal_play(g, victim)) {
            uno_draw_cards(g, victim, 3, reason);
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
UNO_HD UNO_COLD int uno_resolve_hit(uno_game *g, int p, int card, int k, int out, int starter)
{
    const uno_table *t = g->t;
    int victim;
    if (t->effect[k] == UNO_HIT) {
        victim = uno_next(g, p);
        uno_presses(g, victim, victim, t->amount[k], t->reason[k]);
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
    uno_presses(g, victim, victim, UNO_CFG(g->cfg, hit_target_presses), t->reason[k]);
    uno_presses(g, p, victim, t->amount[k], t->reason[k]);
    return out ? ROUND_OVER : uno_next(g, p);
}

/*
 * The second half of reference.Game.play for a Discard All (E4), just played
 * and on top of the discard pile: the rest of its color goes under it, in
 * hand order (the others keep theirs); the trace shows them after the play.
 */
UNO_HD UNO_COLD void uno_discard_all(uno_game *g, int p, int card)
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

/*
 * reference.Game.jump_turn (C-H4): a jump-in on the card just played, as a
 * turn of the jumper, asked in play order from the seat after its player.
 * Returns the jumper, whose identical card is g->last_card (take_turn plays
 * it: round.c jump_in), or NO_STACK when nobody jumps.
 */
UNO_HD UNO_COLD int uno_jump_turn(uno_game *g)
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
        return q;
    }
    return NO_STACK;
}

/* E3 (reference.Game.take_turn): press once; what fires joins the hand; the turn passes. */
UNO_HD UNO_COLD int uno_press_turn(uno_game *g, int p, int forced)
{
    if (press(g, p, p, forced ? UNO_R_CANNOT_PLAY : UNO_R_VOLUNTARY) >= 0)
        g->idle = 0;
    else if (++g->idle >= g->n_active) /* nothing left to fire, nothing to reload */
        return STALEMATE;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_PASS, p, 0, 0, 0);
    return uno_next(g, p);
}
