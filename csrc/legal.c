/*
 * The legal actions of a decision (uno_legal_actions, uno.h): what a user
 * policy's obs.actions and the RL environment's action mask are built from.
 * Built on the engine's own legality queries (uno_playable, uno_holds_color,
 * uno_can_stack, uno_target_candidates), so the rules are not written again.
 * And whether a seat has a legal play at all (uno_has_legal_play), which the
 * turn (round.c) and a customizable wild (extras.c) ask.
 */
#include "engine_internal.h"

/* has_legal_play (engine_internal.h) in a function of its own: C-H3 (round.c take_turn), S3. */
UNO_HD int uno_has_legal_play(const uno_game *g, int p)
{
    return has_legal_play(g, p);
}

/*
 * P2: the seats a targeted card of p may aim at: the active opponents (teammates
 * excluded, C20) in play order from p, written into cand[] (uno.h); returns how many.
 */
UNO_HD int uno_target_candidates(const uno_game *g, int p, int *cand)
{
    int m = 0;
    for (int i = 0, q = p, n = g->n_active - 1; i < n; i++) {
        q = uno_next(g, q);
        if (!(UNO_CFG(g->cfg, teams) && q % 2 == p % 2))
            cand[m++] = q;
    }
    return m;
}

UNO_HD int uno_legal_actions(const uno_game *g, int p, int decision, int arg, int32_t *out)
{
    uint8_t cards[UNO_HAND_CAP];
    int n = 0, m, i, fair = 0;
    (void)arg;
    switch (decision) {
    case UNO_DEC_PLAY:
    case UNO_DEC_REPLACEMENT:
    case UNO_DEC_STACK: {
        const int has_color = uno_holds_color(g, p);
        m = uno_hand_cards(g, p, cards);
        for (i = 0; i < m; i++) {
            const int c = cards[i];
            if (decision == UNO_DEC_STACK ? !uno_can_stack(g, c) : !uno_playable(g, c))
                continue;
            const int bluff = uno_restricted(g, c) && has_color;
            if (decision == UNO_DEC_REPLACEMENT && bluff)
                continue;
            fair |= !bluff;
            out[n++] = 2 * i + bluff;
        }
        if (decision == UNO_DEC_STACK ||
            (decision == UNO_DEC_PLAY && !(g->cfg->forced_play && fair)))
            out[n++] = UNO_DRAW;
        return n;
    }
    case UNO_DEC_DISCARD:
        m = g->hand_n[p];
        for (i = 0; i < m; i++)
            out[n++] = 2 * i;
        return n;
    case UNO_DEC_COLOR:
        for (i = 0; i < 4; i++)
            out[n++] = 4 * g->side + i;
        return n;
    case UNO_DEC_TARGET: {
        int cand[UNO_MAX_PLAYERS];
        m = uno_target_candidates(g, p, cand);
        for (i = 0; i < m; i++)
            out[n++] = cand[i];
        return n;
    }
    default:
        out[0] = 1;
        out[1] = 0;
        return 2;
    }
}
