/*
 * round.c - one round of play (reference.Game.start_round .. play_round): the
 * deal and the starter (C4, C5), the turn loop (C6-C8), drawing and the
 * reshuffle (C15), the UNO call (C13), the effect dispatcher (C9-C12, C14),
 * the challenge (C12) and the flip of a two-sided deck (F3, F4); rule IDs
 * are those of docs/rules.md.  Function for function it follows
 * reference.Game; each function names its Python twin.  Keep them in step:
 * the differential test (tests/test_differential.py) compares the two
 * event by event.
 *
 * These functions inline into each other (take_turn into the round loop,
 * resolve into play), so they share one file.  The rules a plain game never
 * reaches live in extras.c, behind UNO_COLD calls; both files draw through
 * draw.c, and neither calls back into this one: a rare rule that makes a play
 * hands the play back here (PLAY_STACK, a jump-in's seat).
 *
 * No allocation happens while playing: the whole state is one uno_game on
 * the caller's stack.  Tracing is behind `if (g->tr)`.
 */
#if !defined(__CUDACC_RTC__) /* NVRTC: no C library (uno_port.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

#include "engine_internal.h"

/* ------------------------------------------------------------------------- */
/* Checking build: card conservation                                          */
/* ------------------------------------------------------------------------- */

#if UNO_CHECK
UNO_HD static void check_cards(const uno_game *g, int seat, const char *where)
{
    int seen[UNO_MAX_CARDS] = {0};
    int total = g->n_draw + g->n_discard;
    const char *bad = NULL;
    int card = -1;
    for (int s = 0; s < UNO_N(g); s++) {
        total += g->hand_n[s];
        if (uno_bits_count(&g->hand[s]) != g->hand_n[s] && !bad)
            bad = "a hand's count differs from its cards";
        uno_hand alt;
        memset(&alt, 0, sizeof alt);
        UNO_BITS_FOR(g->hand[s], r) {
            seen[uno_card_at(g, r)]++;
            uno_bits_set(&alt, g->t->rank[g->side ^ 1][uno_card_at(g, r)]);
        }
        if (UNO_TWO_SIDED(g) && memcmp(&alt, &g->hand_alt[s], sizeof alt) != 0 && !bad)
            bad = "a hand's other-side bitset differs from its cards";
    }
    for (int i = 0; i < g->n_draw; i++)
        seen[g->draw[i]]++;
    for (int i = 0; i < g->n_discard; i++)
        seen[g->discard[i]]++;
    if (total != g->t->n_cards && !bad)
        bad = "card count differs from the deck size";
    for (int c = 0; c < g->t->n_cards && !bad; c++)
        if (seen[c] != 1) {
            bad = seen[c] ? "card held more than once" : "card missing";
            card = c;
        }
    if (g->n_discard < 1 && !bad)
        bad = "empty discard pile";
    if (bad) {
#if UNO_DEVICE
        printf("uno_sim UNO_CHECK: card conservation violated %s: %s (card %d; %d cards counted, "
               "deck %d) at seat %d, round %d, turn %d\n",
               where, bad, card, total, g->t->n_cards, seat, g->rounds, g->turns);
        __trap();
#else
        fprintf(stderr,
                "uno_sim UNO_CHECK: card conservation violated %s: %s (card %d; %d cards counted, "
                "deck %d) at seat %d, round %d, turn %d\n",
                where, bad, card, total, g->t->n_cards, seat, g->rounds, g->turns);
        abort();
#endif
    }
}
#ifdef UNO_CHECK_INJECT_LOSS
/*
 * Self-test of the checker (tests/test_check_build.py): a card vanishes from
 * the mover's hand on turn UNO_CHECK_INJECT_LOSS, which must abort the run.
 */
#define CHECK_CARDS(g, seat, where)                                                                \
    ((g)->turns == UNO_CHECK_INJECT_LOSS && (g)->hand_n[seat] > 0 ? (void)(g)->hand_n[seat]--      \
                                                                   : (void)0,                      \
     check_cards((g), (seat), (where)))
#else
#define CHECK_CARDS(g, seat, where) check_cards((g), (seat), (where))
#endif
#else
#define CHECK_CARDS(g, seat, where) ((void)0)
#endif

UNO_HD static inline int teammates(const uno_game *g, int p, int q)
{
    return UNO_CFG(g->cfg, teams) && (p % 2 == q % 2);
}

/* uno_draw_cards(g, p, 1, reason) for a turn's own draw (C8: no penalty) from a draw pile
   that is not empty, with no trace: the turn's common case, inline. */
UNO_HD static inline int draw_one(uno_game *g, int p)
{
    int card = uno_draw_pop(g);
    uno_hand_add(g, p, card);
    g->last_drawn = card;
    g->counters[UNO_CT_CARDS_DRAWN][p]++;
    return 1;
}

/* uno_choose_color, its most common case inline: a built-in policy (random, greedy,
   strategic; never a user seat nor the network) naming the color it
   holds most of, in a deck of at most 128 cards. */
UNO_HD static inline int choose_color(uno_game *g, int p)
{
    const uno_policy *pol = &g->pol[p];
    if (UNO_POL(pol, id) <= UNO_POLICY_STRATEGIC && UNO_POL(pol, color) == UNO_COLOR_MOST &&
        uno_narrow(g->t)) {
        int mine[4];
        uno_color_counts_narrow(g, p, mine);
        return 4 * g->side + uno_best_color(mine);
    }
    return uno_choose_color(g, p);
}

/* reference.Game.penalty: what draw card kind k makes p draw, plus `extra`. */
UNO_HD static void penalty(uno_game *g, int p, int k, int reason, int extra)
{
    if (g->t->effect[k] == UNO_WILD_DRAW_COLOR) {
        uno_draw_until(g, p, reason);
        if (extra)
            uno_draw_cards(g, p, extra, reason);
    } else {
        uno_draw_cards(g, p, g->t->amount[k] + extra, reason);
    }
}

/* reference.Game.uno_check (C13). */
UNO_HD static void uno_check(uno_game *g, int p)
{
    int forgot = uno_forgets_uno(g, p);
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_UNO, p, !forgot, 0, 0);
    if (!forgot)
        return;
    g->counters[UNO_CT_UNO_FORGOTTEN][p]++;
    int q = p;
    for (int i = 0, m = g->n_active - 1; i < m; i++) {
        q = uno_next(g, q);
        if (teammates(g, p, q))
            continue;
        if (uno_catches(g, q, p)) {
            g->counters[UNO_CT_UNO_CAUGHT][p]++;
            if (g->tr)
                uno_trace_event(g->tr, UNO_EV_CAUGHT, p, q, 0, 0);
            if (UNO_LAUNCHER(g)) /* E7: press twice instead of drawing 2 */
                uno_presses(g, p, p, 2, UNO_R_UNO_PENALTY);
            else
                uno_draw_cards(g, p, 2, UNO_R_UNO_PENALTY);
            return;
        }
    }
}

UNO_HD static void reverse_u8(uint8_t *a, int n)
{
    int i = 0, j = n - 1;
#if defined(__GNUC__) && !UNO_DEVICE
    /* eight bytes from each end at a time, each word byte-reversed: a[i..i+8) and
       a[j-7..j] trade places while they do not overlap */
    for (; j - i >= 15; i += 8, j -= 8) {
        uint64_t lo, hi;
        memcpy(&lo, a + i, 8);
        memcpy(&hi, a + j - 7, 8);
        lo = __builtin_bswap64(lo);
        hi = __builtin_bswap64(hi);
        memcpy(a + i, &hi, 8);
        memcpy(a + j - 7, &lo, 8);
    }
#endif
    for (; i < j; i++, j--) {
        uint8_t tmp = a[i];
        a[i] = a[j];
        a[j] = tmp;
    }
}

/*
 * reference.Game.flip (F3): every card turns over.  The discard pile and the
 * draw pile are turned as stacks (their order reverses); the former bottom
 * discard comes up on top and takes no effect; a wild there gets its color
 * from p (unless p went out).
 */
/* Every hand turns over (g->side has just changed): the other side's bitsets, kept in
   step, take over. */
UNO_HD static void hands_turn_over(uno_game *g)
{
    for (int s = 0; UNO_HAS_ALT && s < UNO_N(g); s++) {
        uno_hand h = g->hand[s];
        g->hand[s] = g->hand_alt[s];
        g->hand_alt[s] = h;
    }
}

UNO_HD static void flip(uno_game *g, int p, int out)
{
    g->side ^= 1;
    hands_turn_over(g);
    reverse_u8(g->discard, g->n_discard);
    uno_draw_settle(g); /* the pile turns over in its shuffled order */
    reverse_u8(g->draw, g->n_draw);
    int top = g->discard[g->n_discard - 1];
    g->top_face = uno_face(g, top);
#if !UNO_DEVICE /* the search players: CPU only */
    if (UNO_UNLIKELY(g->search != NULL))
        g->cfg->search->event(g, 0);
#endif
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_FLIP, p, g->side, top, 0);
    int col = uno_color(g, top);
    if (col != UNO_NO_COLOR) {
        g->color = col;
    } else if (out) {
        g->color = UNO_NO_COLOR;
    } else {
        g->color = uno_choose_color(g, p);
        if (g->tr)
            uno_trace_event(g->tr, UNO_EV_COLOR, p, g->color, 0, 0);
    }
}

/*
 * The one effect dispatcher (C9-C12, C11 at two players, C14 on a last
 * card), for plays (reference.Game.resolve) and for the starter card
 * (the tail of reference.Game.start_round, starter != 0, p = the dealer).
 * Returns the next seat to play, ROUND_OVER, or -3 - card for a card that
 * cannot start.
 */
UNO_HD static UNO_INLINE int resolve(uno_game *g, int p, int card, int bluff, int prev_color, int prev_face,
                   int starter, const int lean)
{
    const uno_table *t = g->t;
    int k = t->card_kind[g->side][card];
    int out = !starter && g->hand_n[p] == 0;
    int victim;
    switch (t->effect[k]) {
    case UNO_NUMBER:
        if (out)
            return ROUND_OVER;
        if (UNO_CFG(g->cfg, seven_o) && !starter && (t->face[k] == 7 || t->face[k] == 0))
            uno_seven_o(g, p, card, t->face[k]);
        return uno_next(g, p);
    case UNO_DISCARD_ALL: /* E4: as a starter too, it is matched like any card */
        return out ? ROUND_OVER : uno_next(g, p);
    case UNO_HIT:
    case UNO_WILD_HIT:
        return uno_resolve_hit(g, p, card, k, out, starter);
    case UNO_WILD:
    case UNO_WILD_FEWEST_DRAW:
    case UNO_WILD_EXCHANGE:
    case UNO_WILD_CUSTOM:
        if (starter) { /* the player left of the dealer names the color (H2, S2, S3 too) */
            int first = uno_next(g, p);
            g->color = uno_choose_color(g, first);
            if (g->tr)
                uno_trace_event(g->tr, UNO_EV_COLOR, first, g->color, 0, 0);
            return first;
        }
        switch (t->effect[k]) {
        case UNO_WILD_FEWEST_DRAW:
            uno_fewest_draw(g, p, k, out);
            break;
        case UNO_WILD_EXCHANGE:
            if (out) /* the round is over: nothing to exchange */
                return ROUND_OVER;
            if (UNO_CFG(g->cfg, exchange) == UNO_EXCHANGE_SWAP)
                uno_swap_hands(g, p, card);
            else
                uno_shuffle_hands(g, p);
            break;
        case UNO_WILD_CUSTOM:
            return uno_custom(g, p, k, out);
        default:
            break;
        }
        return out ? ROUND_OVER : uno_next(g, p);
    case UNO_SKIP:
        if (out)
            return ROUND_OVER;
        skip(g, uno_next(g, p));
        return adv(g, p, 2);
    case UNO_SKIP_ALL: /* F4: everyone else loses a turn */
        if (starter)
            return -3 - card;
        if (out)
            return ROUND_OVER;
        victim = p;
        for (int i = 0, m = g->n_active - 1; i < m; i++) {
            victim = uno_next(g, victim);
            skip(g, victim);
        }
        return p;
    case UNO_FLIP: /* F3, also on a last card */
        if (starter)
            return -3 - card;
        flip(g, p, out);
        return out ? ROUND_OVER : uno_next(g, p);
    case UNO_REVERSE:
        if (out)
            return ROUND_OVER;
        g->direction = -g->direction;
        if (!lean && g->tr)
            uno_trace_event(g->tr, UNO_EV_REVERSE, p, g->direction, 0, 0);
        if (starter) /* the dealer plays first, then play goes to the right */
            return p;
        if (g->n_active == 2) {
            skip(g, uno_next(g, p));
            return adv(g, p, 2);
        }
        return uno_next(g, p);
    case UNO_DRAW_CARDS:
        victim = uno_next(g, p);
        if (UNO_CFG(g->cfg, stacking)) { /* C-H1 */
            int pend = g->pending;
            g->pending = 0;
            if (!out && !starter) {
                int r = uno_try_stack(g, victim, k, pend);
                if (r != NO_STACK)
                    return r;
            }
            uno_draw_cards(g, victim, t->amount[k] + pend, pend ? UNO_R_STACK : t->reason[k]);
        } else {
            uno_draw_cards(g, victim, t->amount[k], t->reason[k]);
        }
        if (out)
            return ROUND_OVER;
        skip(g, victim);
        return adv(g, p, 2);
    default: /* UNO_WILD_DRAW, UNO_WILD_DRAW_COLOR */
        break;
    }
    if (starter)
        return -3 - card;
    /* C12 / F4: a challenge, never on a last card (always legal, C14). */
    victim = uno_next(g, p);
    int pend = 0;
    if (UNO_CFG(g->cfg, stacking)) { /* C-H1: the victim may stack instead of challenging */
        pend = g->pending;
        g->pending = 0;
        if (!out && t->effect[k] == UNO_WILD_DRAW) {
            int r = uno_try_stack(g, victim, k, pend);
            if (r != NO_STACK)
                return r;
        }
    }
    if (out || !uno_wants_challenge(g, victim, p, prev_color)) {
        penalty(g, victim, k, pend ? UNO_R_STACK : t->reason[k], pend);
        if (out)
            return ROUND_OVER;
        skip(g, victim);
        return adv(g, p, 2);
    }
    g->counters[UNO_CT_CHALLENGES][victim]++;
#if UNO_KEEPS_REVEAL /* only the CPU and a network seat read it (uno.h) */
    g->reveal_from[victim] = p; /* the challenger has seen the offender's hand */
    g->reveal_n[victim] = uno_hand_cards(g, p, g->reveal[victim]);
    if (g->tr) {
        uno_trace_event(g->tr, UNO_EV_CHALLENGE, victim, p, bluff, 0);
        uno_trace_cards(g->tr, g->reveal[victim], g->reveal_n[victim]);
    }
#endif
    if (!bluff) {
        penalty(g, victim, k, UNO_R_CHALLENGE, 2 + pend);
        skip(g, victim);
        return adv(g, p, 2);
    }
    g->counters[UNO_CT_CHALLENGES_WON][victim]++;
    /* C-H1: the stack, on the bluffer */
    if (UNO_CFG(g->cfg, challenge) == UNO_CHALLENGE_MODERN || pend) {
        penalty(g, p, k, UNO_R_CHALLENGE, pend);
        return victim;
    }
    /* vintage: take the card back, play a legal card instead (with its effect), draw */
    g->n_discard--;
    uno_hand_add(g, p, card);
    g->color = prev_color;
    g->top_face = prev_face;
    if (g->tr)
        uno_trace_event(g->tr, UNO_EV_TAKE_BACK, p, card, 0, 0);
    g->last_player = p;
    g->last_card = uno_choose_replacement(g, p);
    return PLAY_AGAIN - k; /* play_card plays it, then p draws the penalty */
}

/* reference.Game.play up to the effect: p plays `card`, which it holds; resolve's answer,
   PLAY_STACK or PLAY_AGAIN included.  `lean`: a constant, see take_turn. */
UNO_HD static UNO_INLINE int play_one(uno_game *g, int p, int card, const int lean)
{
#if UNO_CHECK
    assert(card >= 0 && card < g->t->n_cards);
    assert((g->hand[p].w[uno_rank(g, card) >> 6] >> (uno_rank(g, card) & 63)) & 1);
#endif
    /* the card's columns before the uint8_t stores below (which may alias g->t, g->side) */
    const uno_table *t = g->t;
    const int side = g->side;
    const int restricted = t->card_restricted[side][card];
    const int col = t->card_color[side][card], face = t->card_face[side][card];
    uno_hand_remove(g, p, card);
    int bluff = restricted && uno_holds_color(g, p);
    int prev_color = g->color, prev_face = g->top_face;
    g->discard[g->n_discard++] = (uint8_t)card;
    g->top_face = face;
    int named = -1;
    if (col == UNO_NO_COLOR) {
        g->color = named = choose_color(g, p);
    } else {
        g->color = col;
        g->failed[p] &= (uint8_t)~(1u << col);
    }
    if (restricted)
        g->counters[UNO_CT_BLUFFS][p] += bluff;
    if (!lean && g->tr)
        uno_trace_event(g->tr, UNO_EV_PLAY, p, card, named, restricted ? !bluff : -1);
    if (!lean && UNO_LAUNCHER(g)) /* E4: one test of a flag where there is no launcher */
        uno_discard_all(g, p, card);
    if (g->hand_n[p] == 1) {
        int e = t->effect[t->card_kind[side][card]];
        /* S2: no UNO call on the hand-exchange wild, C-H5 nor on a Seven-O 7 or 0
           (docs/rules.md): the player's hand is about to change */
        if (e != UNO_WILD_EXCHANGE &&
            !(UNO_CFG(g->cfg, seven_o) && e == UNO_NUMBER && (face == 7 || face == 0)))
            uno_check(g, p);
    }
    return resolve(g, p, card, bluff, prev_color, prev_face, 0, lean);
}

/* play_one of the play after a play that makes one (PLAY_STACK, PLAY_AGAIN), in a function
   of its own: the chain's copy of the effect dispatcher stays off the turn's path. */
UNO_HD static UNO_NOINLINE int play_next(uno_game *g, int p, int card)
{
    return play_one(g, p, card, 0);
}

/*
 * The plays that a play makes (r: PLAY_STACK or PLAY_AGAIN - k), one after another, as
 * reference.Game.play's nested calls make them, and what each nested call did once the
 * innermost returned: a stacker that went out wins the round (unless a later answer's
 * player already did), and a vintage challenge's penalty is drawn last.  A loop, not a
 * recursion: whatever the chain's length, the stack is play_next's frame.
 *
 * At most one PLAY_AGAIN per chain: a vintage challenge needs a bluff (a restricted card)
 * with nothing pending (resolve's pend), and every play of a chain after its first is a
 * stack, with pend >= 1 (uno_table_init: a draw card draws at least one card), or the
 * replacement, which is no bluff (its player holds the previous color, C7).
 */
UNO_HD static UNO_NOINLINE int play_chain(uno_game *g, int r)
{
    int stacker = -1, owes = -1, owed_kind = 0;
    do {
        if (r == PLAY_STACK) {
            stacker = g->last_player;
        } else {
#if UNO_CHECK
            assert(owes < 0);
#endif
            owes = g->last_player;
            owed_kind = PLAY_AGAIN - r;
        }
        r = play_next(g, g->last_player, g->last_card);
    } while (r <= PLAY_STACK);
    if (stacker >= 0 && r == ROUND_OVER && g->round_winner < 0)
        g->round_winner = stacker; /* it went out, or someone answering it did first */
    if (owes >= 0)
        penalty(g, owes, owed_kind, UNO_R_CHALLENGE, 0);
    return r;
}

/* reference.Game.play: p plays `card`, which it holds; the next seat or ROUND_OVER. */
UNO_HD static UNO_INLINE int play_card(uno_game *g, int p, int card, const int lean)
{
    int r = play_one(g, p, card, lean);
    return UNO_LIKELY(r > PLAY_STACK) ? r : play_chain(g, r);
}

/* reference.Game.play, in a function of its own (the turn's plays that play() leaves to
   the dispatcher, a jump-in) */
UNO_HD static UNO_NOINLINE int uno_play_card(uno_game *g, int p, int card)
{
    return play_card(g, p, card, 0);
}

/* uno_play_card in a lean round (take_turn) */
UNO_HD static UNO_NOINLINE int play_card_lean(uno_game *g, int p, int card)
{
    return play_card(g, p, card, 1);
}

/*
 * A Skip, a Reverse, a Wild or a colored draw card that play() has just put down for p:
 * resolve's UNO_SKIP, UNO_REVERSE, UNO_WILD and UNO_DRAW_CARDS cases (C9-C11), with
 * play_card's color and UNO call (C13), for a card that is not p's last, in a game
 * without a trace (and without stacking for a draw card).
 */
UNO_HD static inline int play_action(uno_game *g, int p, int card, int f)
{
    const uno_table *t = g->t;
    const int side = g->side;
    if (f == UNO_FAST_WILD) {
        g->color = choose_color(g, p);
        if (g->hand_n[p] == 1) /* C13, as play_card */
            uno_check(g, p);
        return uno_next(g, p);
    }
    const int col = t->card_color[side][card];
    g->color = col;
    g->failed[p] &= (uint8_t)~(1u << col);
    if (g->hand_n[p] == 1)
        uno_check(g, p);
    int d = g->direction;
    if (f == UNO_FAST_REVERSE) {
        d = -d;
        g->direction = d;
        if (g->n_active != 2) /* C11: at two players a Reverse is a Skip */
            return g->next_seat[d > 0][p];
    }
    const int victim = g->next_seat[d > 0][p];
    if (f == UNO_FAST_DRAW) {
        const int k = t->card_kind[side][card], amount = t->amount[k];
        if (UNO_LIKELY(g->n_draw >= amount)) { /* uno_draw_cards without a reshuffle */
            for (int i = 0; i < amount; i++)
                draw_one(g, victim);
            g->failed[victim] = 0; /* penalty cards: it may hold any color now */
        } else {
            uno_draw_cards(g, victim, amount, t->reason[k]);
        }
    }
    return g->next_seat[d > 0][victim];
}

/*
 * uno_play_card for the turn's common cases: a card of a uno_fast_class up to
 * g->fast_max that is not p's last card (C14, going out, stays with play_card): the
 * UNO call (C13) as play_card makes it, nothing traced, and an effect play_action
 * resolves, if any.  `lean`: a constant, see take_turn.
 */
UNO_HD static inline int play(uno_game *g, int p, int card, const int lean)
{
    const uno_table *t = g->t;
    const int side = g->side;
    const int f = t->card_fast[side][card];
    if (!(f && f <= UNO_FAST_MAX(g) && g->hand_n[p] > 1))
        return lean ? play_card_lean(g, p, card) : uno_play_card(g, p, card);
    uno_hand_remove(g, p, card);
    g->discard[g->n_discard++] = (uint8_t)card;
    g->top_face = t->card_face[side][card];
    if (UNO_LIKELY(f == UNO_FAST_NUMBER)) {
        const int col = t->card_color[side][card];
        g->color = col;
        g->failed[p] &= (uint8_t)~(1u << col);
        if (UNO_UNLIKELY(g->hand_n[p] == 1)) /* C13, as play_card */
            uno_check(g, p);
        return uno_next(g, p);
    }
    return play_action(g, p, card, f);
}

/* C-H4: the jumper q that uno_jump_turn found plays its identical card (g->last_card) as
   its turn; a play that ends the round is q's win unless its chain named a winner first
   (a stacker, play_chain). */
UNO_HD static UNO_COLD int jump_in(uno_game *g, int q)
{
    int r = uno_play_card(g, q, g->last_card);
    if (r == ROUND_OVER && g->round_winner < 0)
        g->round_winner = q;
    return r;
}

/* C-H4: p is about to play `card`; the next turn first offers a jump-in on it. */
UNO_HD static inline void open_jump(uno_game *g, int p, int card)
{
    g->jump_open = 1;
    g->last_player = p;
    g->last_card = card;
}

/*
 * reference.Game.take_turn: returns the next seat, ROUND_OVER or STALEMATE.
 * `house` and `lean` are constants at each call.  `house`: whether any house
 * rule C-H1..C-H5 is on (play_round calls a copy without their tests when none
 * is).  `lean`: the round is known to be lean_round's kind, so its tests go.
 */
UNO_HD static UNO_INLINE int take_turn(uno_game *g, int p, const int house, const int lean)
{
    const uno_config *cfg = g->cfg;
    if (house && g->jump_open) { /* C-H4: a jump-in on the last card played takes this turn */
        int q = uno_jump_turn(g);
        if (q != NO_STACK)
            return jump_in(g, q);
    }
    /* a greedy seat that never bluffs, nothing forced: the greedy choice right here */
    const uno_policy *pol = &g->pol[p];
    int action;
    int forced = -1; /* whether p has no legal play; -1: not known yet */
    if (lean) {
        action = uno_greedy_honest_w(g, p, pol, -1, 2, 0);
        forced = action == UNO_DRAW;
    } else if (UNO_POL(pol, id) == UNO_POLICY_GREEDY && UNO_POL(pol, bluff) <= 0.0 && !g->force) {
        action = uno_narrow(g->t)
                     ? uno_greedy_honest_w(g, p, pol, -1, 2, 1)
                     : uno_greedy_honest_w(g, p, pol, -1, 4, 1);
        /* without the voluntary_draw knob, greedy draws only when nothing is legal */
        if (action == UNO_DRAW && UNO_POL(pol, voluntary_draw) <= 0.0)
            forced = 1;
    } else {
        action = uno_choose_play(g, p);
    }
    if (house && action == UNO_DRAW && UNO_CFG(cfg, forced_play) && forced != 1 &&
        uno_has_legal_play(g, p))
        action = uno_choose_replacement(g, p); /* C-H3: no voluntary draw */
    if (action != UNO_DRAW) {
        g->idle = 0;
        if (house && UNO_CFG(cfg, jump_in))
            open_jump(g, p, action);
        return play(g, p, action, lean);
    }
    if (g->color >= 0) /* public: p drew on this color */
        g->failed[p] |= (uint8_t)(1u << g->color);
    if (forced < 0)
        forced = !has_legal_play(g, p);
    if (!lean && UNO_LAUNCHER(g))
        return uno_press_turn(g, p, forced);
    int got;
    if (house && forced && UNO_CFG(cfg, draw_until_playable)) /* C-H2 */
        got = uno_draw_until_playable(g, p);
    else if (g->n_draw > 0 && (lean || !g->tr)) /* uno_draw_cards' one card, inline */
        got = draw_one(g, p);
    else
        got = uno_draw_cards(g, p, 1, forced ? UNO_R_CANNOT_PLAY : UNO_R_VOLUNTARY);
    if (got) {
        g->idle = 0;
        int card = g->last_drawn;
        if (uno_playable(g, card)) {
            int bluff = uno_restricted(g, card) && uno_holds_color(g, p);
            int play_it;
            if (!bluff && ((forced && UNO_CFG(cfg, drawn_card) == UNO_DRAWN_MUST) ||
                           (house && UNO_CFG(cfg, forced_play))))
                play_it = 1;
            else
                play_it = uno_plays_drawn(g, p, bluff);
            if (play_it) {
                if (house && UNO_CFG(cfg, jump_in))
                    open_jump(g, p, card);
                return play(g, p, card, lean);
            }
        }
    } else if (++g->idle >= g->n_active) {
        return STALEMATE;
    }
    if (!lean && g->tr)
        uno_trace_event(g->tr, UNO_EV_PASS, p, 0, 0, 0);
    return uno_next(g, p);
}

/*
 * C4: hand_size cards to each of the n_deal seats of order[], one at a time (pass r gives
 * each seat its r-th card), popped as uno_draw_pop does, on the light side (F2).  The
 * generator and the pile's ends are locals here: through g, every byte stored into the
 * pile or word into a hand could alias them and would reload them card by card.
 */
UNO_HD static UNO_INLINE void deal(uno_game *g, const int *order, int n_deal, int hand_size,
                            const int two_sided)
{
    const uint8_t *rank = g->t->rank[0], *dark = g->t->rank[1];
    uno_rng rng = g->deal;
    uint8_t *pile = g->draw;
    int i = g->n_draw, bag = g->bag;
    for (int r = 0; r < hand_size; r++)
        for (int j = 0; j < n_deal; j++) {
            int card = uno_rng_lazy_take(&rng, pile, --i, &bag); /* as uno_draw_pop */
            uno_bits_set(&g->hand[order[j]], rank[card]);
            if (two_sided)
                uno_bits_set(&g->hand_alt[order[j]], dark[card]);
        }
    g->deal = rng;
    g->n_draw = i;
    g->bag = bag;
}

#if !UNO_DEVICE
/* 0, 1, .., 255: a new round's draw pile before its shuffle, copied at once. */
static const uint8_t uno_identity[UNO_MAX_CARDS + 1] = {
#define UNO_ID4(i) (i), (i) + 1, (i) + 2, (i) + 3
#define UNO_ID16(i) UNO_ID4(i), UNO_ID4((i) + 4), UNO_ID4((i) + 8), UNO_ID4((i) + 12)
#define UNO_ID64(i) UNO_ID16(i), UNO_ID16((i) + 16), UNO_ID16((i) + 32), UNO_ID16((i) + 48)
    UNO_ID64(0), UNO_ID64(64), UNO_ID64(128), UNO_ID64(192)
#undef UNO_ID64
#undef UNO_ID16
#undef UNO_ID4
};
#endif

/*
 * reference.Game.start_round: shuffle (or take `deck`, top card first),
 * deal (C4), turn up the starter (C5).  Returns the first player, or
 * -3 - card for a starter that cannot start.
 */
UNO_HD static int start_round(uno_game *g, int dealer, const uint8_t *deck)
{
    const uno_table *t = g->t;
    int size = t->n_cards;
    g->rounds++;
    g->direction = 1;
    g->idle = 0;
    g->jump_open = 0;
    g->round_winner = -1;
    g->silent = 0; /* E2: the launcher's state is per round */
    g->side = 0; /* F2: every round starts on the light side */
    uint8_t *pile = g->draw; /* the draw pile from the start: top last */
    uno_rng_seed_deal(&g->deal, &g->seeded, (uint64_t)g->rounds);
    uno_dec_round(g, (uint64_t)g->rounds);
    g->n_draw = size;
    g->bag = 0;
    if (!deck) {
#if UNO_DEVICE
        for (int i = 0; i < size; i++) /* no host table on a GPU */
            pile[i] = (uint8_t)i;
#else
        memcpy(pile, uno_identity, (size_t)size); /* pile[i] = i */
#endif
        uno_draw_shuffle(g, size);
        if (g->tr) /* the trace records the whole deck order */
            uno_draw_settle(g);
    } else {
        for (int i = 0; i < size; i++)
            pile[i] = deck[size - 1 - i];
    }
    int64_t ev = 0;
    if (g->tr) {
        ev = g->tr->n_ev;
        uno_trace_event(g->tr, UNO_EV_ROUND_START, -1, g->rounds, dealer, 0);
        int64_t at = uno_trace_open(g->tr);
        for (int i = size - 1; i >= 0; i--)
            uno_trace_push(g->tr, pile[i]);
        uno_trace_close(g->tr, at);
    }
    for (int s = 0; s < UNO_N(g); s++) {
        g->hand_n[s] = 0;
        memset(&g->hand[s], 0, sizeof g->hand[s]);
        if (UNO_HAS_ALT)
            memset(&g->hand_alt[s], 0, sizeof g->hand_alt[s]);
        g->failed[s] = 0;
#if UNO_KEEPS_REVEAL
        g->reveal_from[s] = -1;
        g->reveal_n[s] = 0;
#endif
    }
    /* One at a time from the dealer's left: the seats in dealing order, each of them
       gets its r-th card in pass r (the hands were emptied above). */
    int order[UNO_MAX_PLAYERS];
    const int n_deal = g->n_active, hand_size = UNO_CFG(g->cfg, hand_size);
    for (int j = 0, q = dealer; j < n_deal; j++)
        order[j] = q = uno_next(g, q);
    if (UNO_TWO_SIDED(g))
        deal(g, order, n_deal, hand_size, 1);
    else
        deal(g, order, n_deal, hand_size, 0);
    for (int j = 0; j < n_deal; j++)
        g->hand_n[order[j]] = hand_size;
    int32_t returned[UNO_MAX_CARDS]; /* card + 256 * the side it was read on */
    int n_returned = 0;
    int card, flipped = 0;
    for (;;) { /* C5 */
        card = uno_draw_pop(g);
        int k = t->card_kind[g->side][card];
        if (t->effect[k] == UNO_FLIP && UNO_CFG(g->cfg, flip_starter) && !flipped) {
            /* F2 switch: the Flip turns the game over once (the draw pile as a stack, every
               hand); its other face is then read as the starter */
            flipped = 1;
            g->side ^= 1;
            hands_turn_over(g);
            uno_draw_settle(g);
            reverse_u8(pile, g->n_draw);
            k = t->card_kind[g->side][card];
        }
        if (t->starter[k] != UNO_STARTER_RETURN)
            break;
        if (n_returned < UNO_MAX_CARDS)
            returned[n_returned++] = card + 256 * g->side;
        uno_draw_settle(g); /* the first shuffle's last steps, then this one */
        pile[g->n_draw++] = (uint8_t)card;
        uno_rng_shuffle_u8(&g->deal, pile, g->n_draw);
    }
    g->discard[0] = (uint8_t)card;
    g->n_discard = 1;
    g->color = uno_color(g, card);
    g->top_face = uno_face(g, card);
    if (g->tr) {
        if (!g->tr->failed) {
            g->tr->ev[ev].c = card;
            g->tr->ev[ev].p = g->side;
        }
        for (int s = 0; s < UNO_N(g); s++)
            uno_trace_hand(g, s);
        uno_trace_ints(g->tr, returned, n_returned);
        if (flipped) /* F2 switch: the starter turned the game over */
            uno_trace_event(g->tr, UNO_EV_FLIP, -1, g->side, card, 0);
    }
#if !UNO_DEVICE /* the search players: CPU only */
    if (UNO_UNLIKELY(g->search != NULL)) /* the starter's decisions may be searched */
        g->cfg->search->start(g, dealer);
#endif
    int first = resolve(g, dealer, card, 0, g->color, g->top_face, 1, 0);
    CHECK_CARDS(g, dealer, "after the deal");
    return first;
}

/*
 * Whether this round is the common kind that take_turn has a copy for (`lean`):
 * every seat greedy without the bluff and voluntary_draw knobs, no decision
 * forced (counterfactuals), no trace, a draw pile (no launcher), a deck of at most
 * 128 cards (uno_narrow); play_round adds: no house rule.
 */
UNO_HD static int lean_round(const uno_game *g)
{
    if (g->tr || g->force || UNO_LAUNCHER(g) || !uno_narrow(g->t))
        return 0;
    for (int s = 0; s < UNO_N(g); s++) {
        const uno_policy *pol = &g->pol[s];
        if (UNO_POL(pol, id) != UNO_POLICY_GREEDY || UNO_POL(pol, bluff) > 0.0 ||
            UNO_POL(pol, voluntary_draw) > 0.0)
            return 0;
    }
    return 1;
}

/* uno_round_play's loop for a lean round (lean_round), in a function of its own: in the
   same function as the other copies it would share their registers and slow them. */
UNO_HD static UNO_NOINLINE int turns_lean(uno_game *g, int p, int32_t limit)
{
    for (int32_t turn = 0;; turn++) {
        if (turn >= limit)
            return LIMIT;
        g->turns++;
        int next = take_turn(g, p, 0, 1);
        CHECK_CARDS(g, p, "after a turn");
        if (next == ROUND_OVER) /* as uno_round_play's loop, though no house rule is on here */
            return g->round_winner >= 0 ? g->round_winner : p;
        if (next == STALEMATE) {
            g->stalemates++;
            return -1;
        }
        p = next;
    }
}

/*
 * The turn loop of a round from the start of seat p's turn: the winning seat, -1 for a
 * stalemate, or LIMIT after `limit` turns.  `house`: a constant (see take_turn).  A game
 * with a search seat (g->search) notes the state at the start of every turn first.
 */
UNO_HD static UNO_INLINE int turns_from(uno_game *g, int p, int32_t limit, const int house)
{
    for (int32_t turn = 0;; turn++) {
        if (turn >= limit)
            return LIMIT;
#if !UNO_DEVICE /* the search players and the environment's hook: CPU only */
        if (UNO_UNLIKELY(g->search != NULL))
            g->cfg->search->turn(g, p);
        if (UNO_UNLIKELY(g->on_turn != NULL))
            g->on_turn(g->on_turn_ctx, g, p);
#endif
        g->turns++;
        int next = take_turn(g, p, house, 0);
        CHECK_CARDS(g, p, "after a turn");
        if (next == ROUND_OVER) /* C-H1, C-H4: a stacker or a jumper may have gone out */
            return g->round_winner >= 0 ? g->round_winner : p;
        if (next == STALEMATE) {
            g->stalemates++;
            return -1;
        }
        p = next;
    }
}

UNO_HD static int house_rules(const uno_config *cfg)
{
    return UNO_CFG(cfg, stacking) || UNO_CFG(cfg, draw_until_playable) ||
           UNO_CFG(cfg, forced_play) || UNO_CFG(cfg, jump_in) || UNO_CFG(cfg, seven_o);
}

/*
 * reference.Game.play_round: the winning seat, -1 for a stalemate, LIMIT,
 * or -3 - card.
 */
UNO_HD int uno_round_play(uno_game *g, int dealer, const uint8_t *deck)
{
#if !UNO_DEVICE /* the environment's hook: CPU only */
    if (UNO_UNLIKELY(g->on_turn != NULL))
        g->on_turn(g->on_turn_ctx, g, -1 - dealer);
#endif
    g->round_dealer = dealer;
    g->round_turns0 = g->turns;
    g->round_reshuffles0 = g->reshuffles;
    int p = start_round(g, dealer, deck);
    g->round_starter = g->t->card_kind[g->side][g->discard[0]]; /* the side play starts on */
    if (p <= -3)
        return p;
    const uno_config *cfg = g->cfg;
    int32_t limit = cfg->max_turns > 0 ? cfg->max_turns : UNO_MAX_TURNS;
    const int house = house_rules(cfg);
    if (!house && lean_round(g))
        return turns_lean(g, p, limit);
    return house ? turns_from(g, p, limit, 1) : turns_from(g, p, limit, 0);
}

/* uno.h: the round of g (a clone taken as its starter is turned up, before the starter's
   effect: the search's start hook) on from there; `dealer` deals it. */
UNO_HD int uno_round_continue_starter(uno_game *g, int dealer)
{
    int first = resolve(g, dealer, g->discard[0], 0, g->color, g->top_face, 1, 0);
    if (first <= -3)
        return first;
    return uno_round_continue(g, first);
}

/* uno.h: the round of g (a clone) on from the start of seat p's turn. */
UNO_HD int uno_round_continue(uno_game *g, int p)
{
    const uno_config *cfg = g->cfg;
    int32_t limit = cfg->max_turns > 0 ? cfg->max_turns : UNO_MAX_TURNS;
    return house_rules(cfg) ? turns_from(g, p, limit, 1) : turns_from(g, p, limit, 0);
}
