/*
 * policy.c - the policies (RULES.md P2): the C twins of
 * reference.RandomPolicy, GreedyPolicy and StrategicPolicy, the calls
 * into a user's policy (UNO_POLICY_USER) through its callback and into the
 * network player (UNO_POLICY_NET, net.c).
 *
 * Each function must consume random numbers exactly as its Python twin:
 * the same calls, in the same order, under the same conditions, each from the
 * deciding seat's stream of that kind of decision (uno_dec_*, UNO_DK_*).  Two
 * shortcuts keep that promise: bernoulli(p) consumes nothing for p <= 0 or
 * p >= 1, and pick(1) consumes nothing.
 */
#include "uno.h"

/* the counterfactual paths, kept out of the hot turn (not inlined) */
#if defined(__GNUC__)
#define POLICY_COLD __attribute__((noinline, cold))
/* the greedy turn, inlined into uno_choose_play as when it had one call site */
#define POLICY_INLINE __attribute__((always_inline)) inline
#else
#define POLICY_COLD
#define POLICY_INLINE inline
#endif

UNO_HD static inline int pick(uno_game *g, int p, int kind, int n)
{
    return n == 1 ? 0 : (int)uno_dec_bounded(g, p, kind, (uint32_t)n);
}

/*
 * The bluff knob with its state conditions (reference.BuiltinPolicy.tries_bluff):
 * asked only when p holds a card that would be a bluff; nothing is drawn
 * unless the next player holds <= bluff_next cards and p <= bluff_own (or
 * either, with bluff_join UNO_JOIN_OR), and the cell of the two sizes is one of
 * bluff_cells.
 */
UNO_HD static inline int tries_bluff(uno_game *g, int p, const uno_policy *pol)
{
    int other = g->hand_n[uno_next(g, p)];
    int near = other <= UNO_POL(pol, bluff_next);
    int low = g->hand_n[p] <= UNO_POL(pol, bluff_own);
    if (UNO_POL(pol, bluff_join) == UNO_JOIN_OR ? !(near || low) : !(near && low))
        return 0;
    if (!((pol->bluff_cells >> uno_cell(other, g->hand_n[p])) & 1))
        return 0;
    return uno_dec_bernoulli(g, p, UNO_DK_BLUFF, UNO_POL(pol, bluff));
}

/* Whether p holds a restricted card that would be a bluff now (reference.holds_bluff). */
UNO_HD static inline int holds_bluff(const uno_game *g, int p, int has_color)
{
    return has_color && uno_bits_meet(&g->hand[p], &g->t->restricted_mask[g->side]);
}

/* p's first card in hand order (rank order) among `cards` (first W words), or UNO_DRAW. */
UNO_HD static inline int first_card_w(const uno_game *g, const uno_hand *cards, const int W)
{
    int r = uno_bits_first_w(cards, W);
    return r < 0 ? UNO_DRAW : uno_card_at(g, r);
}

UNO_HD static inline int first_card(const uno_game *g, const uno_hand *cards)
{
    return first_card_w(g, cards, UNO_HAND_WORDS);
}

/*
 * The highest-value playable colored card, ties by card priority (the first in
 * hand order: hands are in priority order); else UNO_DRAW.
 */
UNO_HD static inline int best_colored_w(const uno_game *g, int p, const int W)
{
    const uno_hand *wild = &g->t->color_mask[g->side][0];
    uno_hand ok = uno_playable_cards_w(g, &g->hand[p], W);
    for (int i = 0; i < W; i++)
        ok.w[i] &= ~wild->w[i];
    return first_card_w(g, &ok, W);
}

UNO_HD static inline int best_colored(const uno_game *g, int p)
{
    return best_colored_w(g, p, UNO_HAND_WORDS);
}

/* A legal restricted wild first (it also hurts the next player), else the first Wild. */
UNO_HD static inline int best_wild_w(const uno_game *g, int p, int has_color, const int W)
{
    const uno_hand *wild = &g->t->color_mask[g->side][0];
    const uno_hand *rs = &g->t->restricted_mask[g->side];
    uno_hand w = uno_bits_and(&g->hand[p], wild);
    if (!has_color) {
        uno_hand r = uno_bits_and(&w, rs);
        if (uno_bits_meet_w(&w, rs, W))
            return first_card_w(g, &r, W);
    }
    for (int i = 0; i < W; i++)
        w.w[i] &= ~rs->w[i];
    return first_card_w(g, &w, W);
}

UNO_HD static inline int best_wild(const uno_game *g, int p, int has_color)
{
    return best_wild_w(g, p, has_color, UNO_HAND_WORDS);
}

/* The k-th card of `cards` in hand order. */
UNO_HD static inline int nth_card(const uno_game *g, const uno_hand *cards, int k)
{
    return uno_card_at(g, uno_bits_select(cards, k));
}

/*
 * uno_bits_select over a's first W words, for the random policy's pick: k is below
 * their count, so the last word holds the k-th bit without testing it (ab.py: the
 * random policy 2-4% slower through uno_bits_select's loop).
 */
UNO_HD static inline int select_w(const uno_hand *a, int k, const int W)
{
    for (int i = 0; i < W; i++) {
        uint64_t w = a->w[i];
        int c = uno_popcount64(w);
        if (i == W - 1 || k < c) {
            while (k-- > 0)
                w &= w - 1;
            return 64 * i + uno_ctz64(w);
        }
        k -= c;
    }
    return -1;
}

UNO_HD static POLICY_INLINE int random_play_w(uno_game *g, int p, const uno_policy *pol, const int W)
{
    int has_color = uno_holds_color_w(g, p, W);
    int bluff_ok = has_color && uno_bits_meet_w(&g->hand[p], &g->t->restricted_mask[g->side], W) &&
                   tries_bluff(g, p, pol);
    /* the playable cards (with a bluff: the restricted ones too) in hand order, then draw */
    uno_hand opts = uno_playable_cards_w(g, &g->hand[p], W);
    if (!bluff_ok && has_color) /* uno_legal_cards: no restricted card while holding the color */
        for (int i = 0; i < W; i++)
            opts.w[i] &= ~g->t->restricted_mask[g->side].w[i];
    int m = uno_bits_count_w(&opts, W);
    int k = pick(g, p, UNO_DK_PICK, m + 1);
    return k == m ? UNO_DRAW : uno_card_at(g, select_w(&opts, k, W));
}

UNO_HD static int random_play(uno_game *g, int p, const uno_policy *pol)
{
    return uno_narrow(g->t) ? random_play_w(g, p, pol, 2) : random_play_w(g, p, pol, 4);
}

/* The bluff knob (C7, C12): the restricted card to play illegally, or UNO_DRAW. */
UNO_HD static int bluff_choice(uno_game *g, int p, const uno_policy *pol, int has_color)
{
    if (holds_bluff(g, p, has_color) && tries_bluff(g, p, pol)) {
        uno_hand rs = uno_bits_and(&g->hand[p], &g->t->restricted_mask[g->side]);
        return first_card(g, &rs);
    }
    return UNO_DRAW;
}

/*
 * reference.GreedyPolicy.choose_play: a bluff when the knob says so; else the
 * best colored card (the first playable colored card in hand order: hands are in
 * priority order, highest value first), unless the voluntary_draw knob draws; else a
 * legal restricted wild, else a Wild.  Each question is one mask and one ctz.
 */
UNO_HD static POLICY_INLINE int greedy_play_w(uno_game *g, int p, const uno_policy *pol, const int W)
{
    int has_color = uno_holds_color_w(g, p, W);
    if (UNO_POL(pol, bluff) > 0.0) {
        int bluff = bluff_choice(g, p, pol, has_color);
        if (bluff != UNO_DRAW)
            return bluff;
    }
    return uno_greedy_honest_w(g, p, pol, has_color, W, 1);
}

UNO_HD static POLICY_INLINE int greedy_play(uno_game *g, int p, const uno_policy *pol)
{
    return uno_narrow(g->t) ? greedy_play_w(g, p, pol, 2) : greedy_play_w(g, p, pol, 4);
}

/*
 * Whether r is in range for seat p's `decision` (enum uno_decision): a hand
 * index of p (or UNO_DRAW where drawing is an answer), a color of the side in
 * play, 0/1, or an active opponent's seat.  The binding checks the answer
 * against the legal set first; this keeps a callback that returns anything
 * else from indexing past the engine's arrays.
 */
UNO_HD int uno_answer_ok(const uno_game *g, int p, int decision, int r)
{
    switch (decision) {
    case UNO_DEC_PLAY:
    case UNO_DEC_STACK:
        return r == UNO_DRAW || (r >= 0 && r < g->hand_n[p]);
    case UNO_DEC_REPLACEMENT:
    case UNO_DEC_DISCARD:
        return r >= 0 && r < g->hand_n[p];
    case UNO_DEC_COLOR:
        return r >= 4 * g->side && r < 4 * g->side + 4;
    case UNO_DEC_TARGET:
        return r >= 0 && r < UNO_N(g) && r != p && g->active[r] &&
               !(UNO_CFG(g->cfg, teams) && r % 2 == p % 2);
    default:
        return r == 0 || r == 1;
    }
}

/* Whether seat p's decisions are asked as a user policy's are: its callback, or the
   network player (which answers in the same terms: a hand index, a color, a seat, 0/1). */
UNO_HD static inline int asks(const uno_policy *pol)
{
    return UNO_POL(pol, id) == UNO_POLICY_USER || UNO_POL(pol, id) == UNO_POLICY_NET;
}

/* A user policy's decision (or the network player's, net.c); an abort or an answer out of
   range ends the game (uno_play_game's setjmp). */
UNO_HD static int call_user(uno_game *g, int p, int decision, int arg)
{
    if (UNO_POL(&g->pol[p], id) == UNO_POLICY_NET)
        return uno_net_decide(g, p, decision, arg, 0);
#if UNO_DEVICE
    /* CPU only (no callback, no longjmp on a GPU): the GPU runner refuses user policies
       before a game starts.  No indirect call in device code keeps the stack static. */
    (void)g, (void)p, (void)decision, (void)arg;
    __trap();
    return UNO_DRAW;
#else
    const uno_policy *pol = &g->pol[p];
    uno_draw_settle(g); /* the observation shows the draw pile's top (F6) */
    int r = pol->decide(pol->ctx, g, p, decision, arg);
    if (r == UNO_DECIDE_ABORT || !uno_answer_ok(g, p, decision, r))
        longjmp(*g->bail, 1);
    return r;
#endif
}

/* A user policy's hand index (or UNO_DRAW) as the card it names. */
UNO_HD static inline int user_card(const uno_game *g, int p, int i)
{
    return i == UNO_DRAW ? UNO_DRAW : uno_hand_card(g, p, i);
}

/* ------------------------------------------------------------------------- */
/* Strategic (reference.StrategicPolicy): integer scores, visible state only.  */
/* ------------------------------------------------------------------------- */

/* The seat before p in the current direction (the one who plays after a Reverse). */
UNO_HD static inline int prev_seat(const uno_game *g, int p)
{
    return g->next_seat[g->direction < 0][p]; /* the next seat the other way */
}

/* Fewest cards held by an opponent of p (reference.fewest_opponent). */
UNO_HD static inline int fewest_opponent(const uno_game *g, int p)
{
    int low = UNO_HAND_CAP + 1;
    for (int q = 0; q < UNO_N(g); q++) { /* a minimum without a branch on the counts */
        int n = (q != p && g->active[q]) ? g->hand_n[q] : UNO_HAND_CAP + 1;
        low = n < low ? n : low;
    }
    return low;
}

/* p's cards per color of the side in play (mine[c] counts color 4 * side + c). */
UNO_HD static POLICY_INLINE void color_counts_w(const uno_game *g, int p, int mine[4], const int W)
{
    const int8_t *col = g->t->card_color[g->side];
    const uint8_t *un = g->t->unrank[g->side];
    const uno_hand *wild = &g->t->color_mask[g->side][0];
    int base = 4 * g->side;
    if (W == 2) {
        uno_color_counts_narrow(g, p, mine);
        return;
    }
    uno_hand h;
    for (int i = 0; i < W; i++)
        h.w[i] = g->hand[p].w[i] & ~wild->w[i];
    mine[0] = mine[1] = mine[2] = mine[3] = 0;
    UNO_BITS_FOR_W(h, r, W)
        mine[col[un[r]] - base]++;
}

UNO_HD static void color_counts(const uno_game *g, int p, int mine[4])
{
    if (uno_narrow(g->t))
        color_counts_w(g, p, mine, 2);
    else
        color_counts_w(g, p, mine, 4);
}

UNO_HD void uno_color_counts(const uno_game *g, int p, int mine[4])
{
    color_counts(g, p, mine);
}

/*
 * F6: whether the other faces of q's hand (public: they face the table) hold
 * a wild, i.e. whether q keeps a wild after a Flip (reference.other_side_wild).
 */
UNO_HD static int other_side_wild(const uno_game *g, int q)
{
    return uno_bits_meet(&g->hand[q], &g->t->other_wild_mask[g->side]);
}

/*
 * reference.StrategicPolicy.score, split in two: what depends on the turn only
 * (strategic_turn, once per decision) and what depends on the card (strategic_score).
 */
typedef struct strategic_view {
    int mine[4];            /* p's cards per color of the side in play */
    int base;               /* 4 * side: the side's first color */
    int low2;               /* an opponent holds <= 2 cards */
    int fail_nx;            /* colors the next player could not follow */
    int wild_score;         /* a wild's score, less its hit and its value */
    int wild_hit;           /* what a hitting wild (restricted, E6) scores instead of -80 */
    int bonus[UNO_WILD_CUSTOM + 1]; /* a colored card's score by its effect */
} strategic_view;

UNO_HD static POLICY_INLINE void strategic_turn(const uno_game *g, int p, strategic_view *v, const int W)
{
    color_counts_w(g, p, v->mine, W);
    int nx = uno_next(g, p);
    int nx2 = g->hand_n[nx] <= 2, pv2 = g->hand_n[prev_seat(g, p)] <= 2;
    v->base = 4 * g->side;
    v->low2 = fewest_opponent(g, p) <= 2;
    v->fail_nx = g->failed[nx];
    int hit = nx2 ? 80 : 10; /* hit the next player, hardest when it is close */
    memset(v->bonus, 0, sizeof v->bonus);
    v->bonus[UNO_SKIP] = v->bonus[UNO_DRAW_CARDS] = v->bonus[UNO_HIT] = hit;
    v->bonus[UNO_REVERSE] = g->n_active == 2 ? hit : (nx2 ? 40 : 0) - (pv2 ? 40 : 0);
    v->bonus[UNO_SKIP_ALL] = v->low2 ? 80 : 10; /* F4: every opponent loses a turn */
    if (nx2) /* F3/F6: flip a close next player's hand over, */
        v->bonus[UNO_FLIP] = other_side_wild(g, nx) ? -40 : 40; /* unless a wild is there */
    /* keep wilds for the end; change the color on a player about to go out; finish
       with a wild */
    v->wild_score = (nx2 ? 30 : 0) + (g->hand_n[p] <= 2 ? 200 : 0);
    v->wild_hit = nx2 ? 150 : -40;
}

/* How much p likes playing card c now, given the turn's view. */
UNO_HD static inline int strategic_score(const uno_game *g, int c, const strategic_view *v)
{
    const uno_table *t = g->t;
    int col = uno_color(g, c), val = uno_value(g, c), e = t->effect[t->card_kind[g->side][c]];
    if (col != UNO_NO_COLOR) {
        int held = v->mine[col - v->base] - 1;
        int s = 4 * held + val + v->bonus[e]; /* stay in a color held; shed points */
        s += ((v->fail_nx >> col) & 1) * 25; /* the next player could not follow this color */
        s += v->low2 * 2 * val; /* someone is about to go out: dump high values */
        if (e == UNO_DISCARD_ALL) /* E4: sheds the rest of its color too */
            s += 4 * held;
        return s;
    }
    int hits = uno_restricted(g, c) || e == UNO_WILD_HIT; /* E6: an Extreme Hit hurts too */
    return (hits ? v->wild_hit : -80) + v->wild_score + v->low2 * val;
}

/* The best legal (never bluffing) card by strategic_score, first in hand order on ties;
   else UNO_DRAW. */
UNO_HD static POLICY_INLINE int strategic_best_w(const uno_game *g, int p, const int W)
{
    int best = UNO_DRAW, best_score = 0;
    uno_hand legal = uno_legal_cards_w(g, p, W);
    if (!uno_bits_meet_w(&legal, &legal, W))
        return UNO_DRAW;
    strategic_view v;
    strategic_turn(g, p, &v, W);
    UNO_BITS_FOR_W(legal, r, W) {
        int c = uno_card_at(g, r);
        int sc = strategic_score(g, c, &v);
        if (best == UNO_DRAW || sc > best_score) {
            best = c;
            best_score = sc;
        }
    }
    return best;
}

UNO_HD static int strategic_best(const uno_game *g, int p)
{
    return uno_narrow(g->t) ? strategic_best_w(g, p, 2) : strategic_best_w(g, p, 4);
}

UNO_HD static POLICY_INLINE int strategic_play_w(uno_game *g, int p, const uno_policy *pol, const int W)
{
    if (UNO_POL(pol, bluff) > 0.0) { /* bluff knob 0: tries_bluff draws nothing, never bluffs */
        int bluff = bluff_choice(g, p, pol, uno_holds_color_w(g, p, W));
        if (bluff != UNO_DRAW)
            return bluff;
    }
    int best = strategic_best_w(g, p, W);
    if (best != UNO_DRAW && uno_color(g, best) != UNO_NO_COLOR &&
        uno_dec_bernoulli(g, p, UNO_DK_VOLUNTARY, UNO_POL(pol, voluntary_draw)))
        return UNO_DRAW;
    return best;
}

UNO_HD static int strategic_play(uno_game *g, int p, const uno_policy *pol)
{
    return uno_narrow(g->t) ? strategic_play_w(g, p, pol, 2) : strategic_play_w(g, p, pol, 4);
}

/* ------------------------------------------------------------------------- */
/* The decisions                                                              */
/* ------------------------------------------------------------------------- */

UNO_HD static inline int builtin_play(uno_game *g, int p, const uno_policy *pol)
{
    switch (UNO_POL(pol, id)) {
    case UNO_POLICY_RANDOM:
        return random_play(g, p, pol);
    case UNO_POLICY_GREEDY:
        return greedy_play(g, p, pol);
    default:
        return strategic_play(g, p, pol);
    }
}

/*
 * A bluff decision point of the seat being forced (uno_force,
 * reference.Game.forced_play): p holds a restricted card that would be a
 * bluff.  The policy decides first, drawing as usual; then, at the forced
 * point, every stream but the bluff stream is wound back and the answer is
 * either the first restricted card (bluff) or the policy's choice with the
 * bluff knob off (the honest card, or a draw), drawing what that choice draws.
 * Both alternatives thus leave the bluff stream where the policy left it, and
 * the alternative that agrees with the policy's own choice replays it exactly.
 */
/*
 * A decision point of the seat being forced (uno_force): counted, described when
 * it is among the first UNO_CF_MAX, and 1 when it is the point to force (its
 * round noted), else 0.
 */
UNO_HD static POLICY_COLD int cf_point(uno_game *g, int own, int other, int natural, int truth,
                                double q)
{
    uno_force *f = g->force;
    int i = f->seen++;
    if (i < UNO_CF_MAX) {
        uno_cf_point *pt = &f->pt[i];
        pt->round = g->rounds;
        pt->turn = g->turns;
        pt->own = own;
        pt->other = other;
        pt->natural = natural;
        pt->truth = truth;
        pt->q = q;
    }
    if (i != f->index || f->value < 0)
        return 0;
    f->hit_round = g->rounds;
    return 1;
}

UNO_HD static POLICY_COLD int forced_play(uno_game *g, int p, const uno_policy *pol)
{
    uno_force *f = g->force;
    if (!holds_bluff(g, p, uno_holds_color(g, p)))
        return builtin_play(g, p, pol);
    uint32_t saved[UNO_DK_SLOTS];
    memcpy(saved, g->dec_n[p], sizeof saved);
    int a = builtin_play(g, p, pol);
    if (!cf_point(g, g->hand_n[p], g->hand_n[uno_next(g, p)], a >= 0 && uno_restricted(g, a),
                  -1, -1.0))
        return a;
    uint32_t bluffs = g->dec_n[p][UNO_DK_BLUFF];
    memcpy(g->dec_n[p], saved, sizeof saved);
    g->dec_n[p][UNO_DK_BLUFF] = bluffs;
    if (f->value) {
        uno_hand rs = uno_bits_and(&g->hand[p], &g->t->restricted_mask[g->side]);
        return first_card(g, &rs);
    }
    uno_policy honest = *pol;
    honest.bluff = 0.0;
    return builtin_play(g, p, &honest);
}

#if !defined(UNO_GPU_BUILD) /* search.c is host code */
/* A bluff decision point of a search seat being forced (search.c): as forced_play, with
   the search's own answer `natural` already made; 1 when it is the point to force. */
int uno_cf_bluff_point(uno_game *g, int p, int natural)
{
    if (!holds_bluff(g, p, uno_holds_color(g, p)))
        return 0;
    return cf_point(g, g->hand_n[p], g->hand_n[uno_next(g, p)],
                    natural >= 0 && uno_restricted(g, natural), -1, -1.0);
}
#endif

/*
 * A bluff decision point of a network seat being forced: the network answers first
 * (drawing its explore number as usual); at the forced point 1 plays the first restricted
 * card (the natural answer when it is one), 0 the natural answer when it is honest, else
 * the network's best answer that is not a bluff, its explore draw wound back and taken again.
 */
UNO_HD static POLICY_COLD int forced_net(uno_game *g, int p)
{
    uno_force *f = g->force;
    uint32_t saved[UNO_DK_SLOTS];
    memcpy(saved, g->dec_n[p], sizeof saved);
    int a = user_card(g, p, uno_net_decide(g, p, UNO_DEC_PLAY, 0, 0));
    int bluffed = a >= 0 && uno_restricted(g, a);
    if (!holds_bluff(g, p, uno_holds_color(g, p)) ||
        !cf_point(g, g->hand_n[p], g->hand_n[uno_next(g, p)], bluffed, -1, -1.0) ||
        f->value == bluffed)
        return a;
    if (f->value) {
        uno_hand rs = uno_bits_and(&g->hand[p], &g->t->restricted_mask[g->side]);
        return first_card(g, &rs);
    }
    memcpy(g->dec_n[p], saved, sizeof saved);
    return user_card(g, p, uno_net_decide(g, p, UNO_DEC_PLAY, 0, 1));
}

UNO_HD int uno_choose_play(uno_game *g, int p)
{
    const uno_policy *pol = &g->pol[p];
    if (__builtin_expect(g->force != NULL, 0) && g->force->kind == UNO_CF_BLUFF &&
        g->force->seat == p && UNO_POL(pol, id) != UNO_POLICY_USER)
        return UNO_POL(pol, id) == UNO_POLICY_NET ? forced_net(g, p) : forced_play(g, p, pol);
    switch (UNO_POL(pol, id)) {
    case UNO_POLICY_RANDOM:
        return random_play(g, p, pol);
    case UNO_POLICY_GREEDY:
        return greedy_play(g, p, pol);
    case UNO_POLICY_STRATEGIC:
        return strategic_play(g, p, pol);
    default:
        return user_card(g, p, call_user(g, p, UNO_DEC_PLAY, 0));
    }
}

UNO_HD int uno_choose_replacement(uno_game *g, int p)
{
    int has_color = uno_holds_color(g, p);
    int id = UNO_POL(&g->pol[p], id);
    if (asks(&g->pol[p]))
        return user_card(g, p, call_user(g, p, UNO_DEC_REPLACEMENT, 0));
    if (id == UNO_POLICY_STRATEGIC)
        return strategic_best(g, p);
    if (id == UNO_POLICY_RANDOM) {
        uno_hand opts = uno_legal_cards(g, p); /* in hand order */
        int m = uno_bits_count(&opts);
#if UNO_CHECK
        assert(m > 0);
#endif
        return nth_card(g, &opts, pick(g, p, UNO_DK_PICK, m));
    }
    int best = best_colored(g, p);
    return best != UNO_DRAW ? best : best_wild(g, p, has_color);
}

/* One of the four colors of the side in play: 4 * side .. 4 * side + 3. */
UNO_HD int uno_choose_color(uno_game *g, int p)
{
    const uno_policy *pol = &g->pol[p];
    if (asks(pol))
        return call_user(g, p, UNO_DEC_COLOR, 0);
    int base = 4 * g->side;
    if (UNO_POL(pol, color) == UNO_COLOR_RANDOM)
        return base + (int)uno_dec_bounded(g, p, UNO_DK_COLOR, 4);
    int mine[4];
    color_counts(g, p, mine);
    int score[4] = {mine[0], mine[1], mine[2], mine[3]};
    if (UNO_POL(pol, color) == UNO_COLOR_SMART) {
        /* colors held, colors already played (fewer left for the others), colors the next
           player could not follow (reference.BuiltinPolicy.choose_color); all of the side
           in play */
        int played[4] = {0, 0, 0, 0};
        const int8_t *col = g->t->card_color[g->side];
        for (int i = 0; i < g->n_discard; i++)
            if (col[g->discard[i]] != UNO_NO_COLOR)
                played[col[g->discard[i]] - base]++;
        int nx = uno_next(g, p);
        int fail_nx = g->failed[nx], close = g->hand_n[nx] <= 2 ? 25 : 6;
        for (int c = 0; c < 4; c++)
            score[c] = 10 * mine[c] + played[c] / 4 + (((fail_nx >> (base + c)) & 1) ? close : 0);
    }
    return base + uno_best_color(score);
}

/*
 * reference.bluff_probability (C12, challenge=auto): the victim's estimate that
 * the offender held a card of the previous active color.  The cards the victim
 * cannot see are the deck less its own hand and the discard pile; the
 * offender's hand is taken as a uniform draw from them (hypergeometric):
 * P(bluff) = 1 - prod_{i<h} (U-K-i)/(U-i), with U unseen cards, K of them of
 * that color, h the offender's hand size.  Evaluated in this exact order in
 * both engines (no contraction: -ffp-contract=off).
 */
UNO_HD double uno_bluff_probability(const uno_game *g, int victim, int offender, int prev_color)
{
    if (prev_color < 0)
        return 0.0;
    const int8_t *col = g->t->card_color[g->side]; /* F1: the side in play */
    int unseen = g->t->n_cards - g->hand_n[victim] - g->n_discard;
    int k = 0;
    for (int c = 0; c < g->t->n_cards; c++)
        k += col[c] == prev_color;
    if (prev_color < 8) {
        uno_hand mine = uno_bits_and(&g->hand[victim], uno_color_cards(g, prev_color));
        k -= uno_bits_count(&mine);
    }
    for (int i = 0; i < g->n_discard; i++)
        k -= col[g->discard[i]] == prev_color;
    double q = 1.0;
    for (int i = 0, h = g->hand_n[offender]; i < h; i++) {
        if (unseen - k - i <= 0 || unseen - i <= 0) {
            q = 0.0;
            break;
        }
        q = q * (double)(unseen - k - i) / (double)(unseen - i);
    }
    return 1.0 - q;
}

/*
 * reference.BuiltinPolicy.wants_challenge: only a card played by the suspect
 * (any seat when suspect < 0), only in the chosen states (offender <=
 * challenge_offender and victim <= challenge_own, or either with
 * challenge_join UNO_JOIN_OR; and their cell one of challenge_cells); then by the estimate
 * (auto), by the posterior (posterior) or with probability `challenge`.
 *
 * The posterior P(bluff | the card was played) = q b / (q b + (1 - q)): q the
 * victim's estimate that the offender held the previous color (could bluff),
 * b the offender's assumed bluff rate when it could; a player who could not
 * bluff is taken to play the card whenever it holds one.
 */
UNO_HD static int builtin_challenge(uno_game *g, int victim, int offender, int prev_color,
                             const uno_policy *pol)
{
    int near = g->hand_n[offender] <= UNO_POL(pol, challenge_offender);
    int low = g->hand_n[victim] <= UNO_POL(pol, challenge_own);
    if ((UNO_POL(pol, suspect) >= 0 && offender != UNO_POL(pol, suspect)) ||
        (UNO_POL(pol, challenge_join) == UNO_JOIN_OR ? !(near || low) : !(near && low)) ||
        !((pol->challenge_cells >> uno_cell(g->hand_n[offender], g->hand_n[victim])) & 1))
        return 0;
    if (UNO_POL(pol, challenge_auto))
        return uno_bluff_probability(g, victim, offender, prev_color) > pol->challenge_threshold;
    if (UNO_POL(pol, challenge_posterior)) {
        double q = uno_bluff_probability(g, victim, offender, prev_color);
        double num = q * pol->challenge_prior;
        double den = num + (1.0 - q);
        return den > 0.0 && num / den > pol->challenge_threshold;
    }
    return uno_dec_bernoulli(g, victim, UNO_DK_CHALLENGE, UNO_POL(pol, challenge));
}

/* Whether p holds a card of `color` (a WD4 played with it in hand was a bluff, C7). */
UNO_HD static int holds_that_color(const uno_game *g, int p, int color)
{
    return uno_bits_meet(&g->hand[p], uno_color_cards(g, color));
}

UNO_HD static POLICY_COLD int forced_challenge(uno_game *g, int victim, int offender, int prev_color,
                                        int a);

UNO_HD int uno_wants_challenge(uno_game *g, int victim, int offender, int prev_color)
{
    const uno_policy *pol = &g->pol[victim];
    if (UNO_POL(pol, id) == UNO_POLICY_USER)
        return call_user(g, victim, UNO_DEC_CHALLENGE, offender | (prev_color + 1) << 8);
    int a = UNO_POL(pol, id) == UNO_POLICY_NET
                ? call_user(g, victim, UNO_DEC_CHALLENGE, offender | (prev_color + 1) << 8)
                : builtin_challenge(g, victim, offender, prev_color, pol);
    uno_force *f = g->force;
    if (!f || f->kind != UNO_CF_CHALLENGE || f->seat != victim)
        return a;
    return forced_challenge(g, victim, offender, prev_color, a);
}

/* A challenge decision point of the seat being forced (see forced_play). */
UNO_HD static POLICY_COLD int forced_challenge(uno_game *g, int victim, int offender, int prev_color,
                                        int a)
{
    int truth = prev_color >= 0 && holds_that_color(g, offender, prev_color);
    double q = uno_bluff_probability(g, victim, offender, prev_color);
    return cf_point(g, g->hand_n[victim], g->hand_n[offender], a, truth, q) ? g->force->value
                                                                           : a;
}

#if !defined(UNO_GPU_BUILD) /* search.c is host code */
/* A challenge decision point of a search seat being forced (search.c): the search's own
   answer `a`, or the forced one. */
int uno_cf_challenge_answer(uno_game *g, int victim, int offender, int prev_color, int a)
{
    return forced_challenge(g, victim, offender, prev_color, a);
}
#endif

UNO_HD int uno_forgets_uno(uno_game *g, int p)
{
    const uno_policy *pol = &g->pol[p];
    if (asks(pol))
        return call_user(g, p, UNO_DEC_FORGET_UNO, 0);
    return uno_dec_bernoulli(g, p, UNO_DK_UNO, UNO_POL(pol, forget_uno));
}

UNO_HD int uno_catches(uno_game *g, int q, int p)
{
    const uno_policy *pol = &g->pol[q];
    if (asks(pol))
        return call_user(g, q, UNO_DEC_CATCH, p);
    return uno_dec_bernoulli(g, q, UNO_DK_CATCH, UNO_POL(pol, catch));
}

/*
 * P2: the seat a targeted card of p aims at (reference.BuiltinPolicy.choose_target), among
 * uno_target_candidates (legal.c).  `card` is the card that targets (passed to a user
 * policy).  Returns p itself only when there is no candidate.
 */
UNO_HD int uno_choose_target(uno_game *g, int p, int card)
{
    const uno_policy *pol = &g->pol[p];
    if (asks(pol))
        return call_user(g, p, UNO_DEC_TARGET, card);
    int cand[UNO_MAX_PLAYERS];
    int m = uno_target_candidates(g, p, cand);
    if (m == 0)
        return p;
    int best = 0;
    switch (UNO_POL(pol, target)) {
    case UNO_TARGET_RANDOM:
        return cand[pick(g, p, UNO_DK_TARGET, m)];
    case UNO_TARGET_NEXT:
        return cand[0];
    case UNO_TARGET_MOST:
        for (int i = 1; i < m; i++)
            if (g->hand_n[cand[i]] > g->hand_n[cand[best]])
                best = i;
        return cand[best];
    default: /* UNO_TARGET_FEWEST */
        for (int i = 1; i < m; i++)
            if (g->hand_n[cand[i]] < g->hand_n[cand[best]])
                best = i;
        return cand[best];
    }
}

/*
 * C-H1 (reference.BuiltinPolicy.choose_stack): a legal draw card answering the
 * pending `total`, with probability pol->stack; random picks uniformly, greedy
 * and strategic the highest value (first in hand order on ties).  Nothing is
 * drawn from the generator without a legal answer.
 */
UNO_HD int uno_choose_stack(uno_game *g, int p, int total)
{
    const uno_policy *pol = &g->pol[p];
    if (asks(pol))
        return user_card(g, p, call_user(g, p, UNO_DEC_STACK, total));
    int has_color = uno_holds_color(g, p);
    uint8_t opts[UNO_HAND_CAP]; /* in hand order */
    int m = 0;
    UNO_BITS_FOR(g->hand[p], r) {
        int c = uno_card_at(g, r);
        if (uno_can_stack(g, c) && !(uno_restricted(g, c) && has_color))
            opts[m++] = (uint8_t)c;
    }
    if (m == 0 || !uno_dec_bernoulli(g, p, UNO_DK_STACK, UNO_POL(pol, stack)))
        return UNO_DRAW;
    if (UNO_POL(pol, id) == UNO_POLICY_RANDOM)
        return opts[pick(g, p, UNO_DK_PICK, m)];
    return opts[0]; /* the highest value: hands are in priority order */
}

/* C-H4 (reference.BuiltinPolicy.wants_jump). */
UNO_HD int uno_wants_jump(uno_game *g, int p, int card)
{
    const uno_policy *pol = &g->pol[p];
    if (asks(pol))
        return call_user(g, p, UNO_DEC_JUMP_IN, card);
    return uno_dec_bernoulli(g, p, UNO_DK_JUMP, UNO_POL(pol, jump_in));
}

UNO_HD int uno_plays_drawn(uno_game *g, int p, int bluff)
{
    const uno_policy *pol = &g->pol[p];
    if (asks(pol))
        return call_user(g, p, UNO_DEC_PLAY_DRAWN, bluff | g->last_drawn << 1);
    if (bluff)
        return tries_bluff(g, p, pol);
    return uno_dec_bernoulli(g, p, UNO_DK_PLAY_DRAWN, UNO_POL(pol, play_drawn));
}

/*
 * S3 seven / three (reference.BuiltinPolicy.choose_discard): the hand index of
 * a card p puts down, `need` cards still to go.  Every built-in policy puts
 * down its highest-value card, the first in hand order on ties, and draws no
 * random number.
 */
UNO_HD int uno_choose_discard(uno_game *g, int p, int need)
{
    const uno_policy *pol = &g->pol[p];
    if (asks(pol))
        return user_card(g, p, call_user(g, p, UNO_DEC_DISCARD, need));
    return uno_hand_card(g, p, 0); /* the highest value: hands are in priority order */
}
