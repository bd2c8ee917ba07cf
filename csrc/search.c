/*
 * search.c - the search players pimc and ismcts (docs/policies.md "Search players") and
 * what they stand on: uno.h's "clone a game, force a decision, play on".
 *
 * A game with a search seat is recorded.  Every seat's policy is wrapped in a user
 * policy whose callback (record_decide) asks the seat's own policy (or the search) and
 * notes the answer in the journal of the turn; at the start of every turn the engine's
 * turn loop calls uno_search_turn, which keeps a snapshot of the game (uno_game_clone)
 * and empties the journal (and so does uno_search_start at a round's start, before the
 * starter's effect: the decisions before the first turn are searched too).  The engine
 * calls these through the hooks uno_config.search points at (uno_search_players, uno.h
 * uno_search_hooks), never by name: search.c stands above the engine.  The
 * wrapped policies answer exactly as the policies
 * themselves (the same functions, drawing the same random numbers): a game's course
 * does not depend on the recording (tests/test_search.py).
 *
 * To value an answer `a` at a decision of the search seat o, the search
 *   1. samples a state o cannot tell from the true one at the start of the turn
 *      (determinize: the snapshot with the cards o cannot see dealt again), or after
 *      the turn's last reshuffle or flip (uno_search_event, below);
 *   2. gives the copy new random streams from the search's own stream (its `seeded`,
 *      its deal stream, its decision streams), so that the true future never leaks;
 *   3. replays the turn: a uno_script answers the journal's decisions in order, then
 *      `a` at the decision being searched; an entry that does not fit the copy (the
 *      sampled state does not follow the public record) drops the sample, but another
 *      seat's declines that o cannot see need not fit (uno_script.observer);
 *   4. plays on, every seat by the rollout policy, to the end of the round or of the
 *      game (uno_policy.value), and scores it for o.
 * pimc averages each answer over samples x rollouts (the same sampled states and
 * streams for every answer: common random numbers); ismcts spends a budget of
 * iterations at the decision's information set, and with depth > 1 on a tree of o's
 * later decisions too (below).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

#define JOURNAL_MAX 1024 /* decisions in one turn; more: the turn is not searched */
#define PRESS_MAX 256    /* launcher presses in one turn; more: the turn is not searched */
#define TREE_ACTIONS 64  /* answers a tree node keeps (the first ones in legal order) */
#define TREE_DEPTH UNO_SEARCH_DEPTH_MAX /* the root and depth - 1 levels below it */
#define INFER_KEEP 64   /* the round's latest decisions kept for inference (a ring) */
#define INFER_POINTS 8  /* the latest usable ones each sampled state is weighed by */
#define VOIDS_TRIES 32  /* voids: candidates dealt for one sampled state at most */

/* sqrt and log of a positive finite double without libm (the engine links nothing else):
   Newton's iteration, and the exponent's bits plus the atanh series of the mantissa. */
static double s_sqrt(double x)
{
    if (!(x > 0.0))
        return 0.0;
    double r = x > 1.0 ? x : 1.0;
    for (int i = 0; i < 64; i++) {
        double nr = 0.5 * (r + x / r);
        if (nr >= r)
            break;
        r = nr;
    }
    return r;
}

static double s_log(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int e = (int)((b >> 52) & 0x7ff) - 1023;
    b = (b & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000);
    double m;
    memcpy(&m, &b, sizeof m); /* x = m * 2^e, 1 <= m < 2 */
    double z = (m - 1.0) / (m + 1.0), z2 = z * z, term = z, sum = 0.0;
    for (int k = 1; k < 60; k += 2) {
        sum += term / k;
        term *= z2;
    }
    return 2.0 * sum + e * 0.69314718055994530942;
}

/* e^x without libm: x = k ln 2 + r with |r| <= ln 2 / 2, e^r by its series, 2^k by the
   exponent's bits (x clamped to +-700, far past any value it is asked). */
static double s_exp(double x)
{
    if (!(x > -700.0))
        return 0.0;
    if (x > 700.0)
        x = 700.0;
    const double ln2 = 0.69314718055994530942;
    double kf = x / ln2;
    int k = (int)(kf < 0.0 ? kf - 0.5 : kf + 0.5);
    double r = x - k * ln2, term = 1.0, sum = 1.0;
    for (int i = 1; i < 40; i++) {
        term *= r / i;
        sum += term;
    }
    uint64_t b = (uint64_t)(k + 1023) << 52;
    double scale;
    memcpy(&scale, &b, sizeof scale);
    return sum * scale;
}

/* ------------------------------------------------------------------------- */
/* Cloning and scripts (uno.h)                                                */
/* ------------------------------------------------------------------------- */

void uno_game_clone(uno_game *dst, const uno_game *src)
{
    memcpy(dst, src, offsetof(uno_game, own));
}

static int is_search(const uno_policy *pol)
{
    return pol->id == UNO_POLICY_PIMC || pol->id == UNO_POLICY_ISMCTS;
}

static int holds(const uno_game *g, int p, int card)
{
    int r = uno_rank(g, card);
    return (int)((g->hand[p].w[r >> 6] >> (r & 63)) & 1);
}

/* An engine answer (card id or UNO_DRAW, color, seat, 0/1) as a user policy gives it. */
static int user_answer(const uno_game *g, int p, int decision, int ans)
{
    switch (decision) {
    case UNO_DEC_PLAY:
    case UNO_DEC_STACK:
        if (ans == UNO_DRAW)
            return UNO_DRAW;
        /* fall through */
    case UNO_DEC_REPLACEMENT:
    case UNO_DEC_DISCARD:
        return uno_hand_index(g, p, ans);
    default:
        return ans;
    }
}

/* Whether an engine answer fits seat p's decision in g (a card held and playable). */
static int answer_fits(const uno_game *g, int p, int decision, int ans)
{
    switch (decision) {
    case UNO_DEC_PLAY:
    case UNO_DEC_STACK:
        if (ans == UNO_DRAW)
            return 1;
        /* fall through */
    case UNO_DEC_REPLACEMENT:
        return ans >= 0 && ans < g->t->n_cards && holds(g, p, ans) && uno_playable(g, ans);
    case UNO_DEC_DISCARD:
        return ans >= 0 && ans < g->t->n_cards && holds(g, p, ans);
    default:
        return 1;
    }
}

/* A decision of another seat than s->observer that it is asked only because of the cards
   it holds (hidden from the observer), when declined: no one sees that it was asked. */
static int private_kind(const uno_script *s, int seat, int decision)
{
    return s->observer >= 0 && seat != s->observer &&
           (decision == UNO_DEC_JUMP_IN || decision == UNO_DEC_STACK ||
            decision == UNO_DEC_PLAY_DRAWN);
}

static int decline(int decision)
{
    return decision == UNO_DEC_STACK ? UNO_DRAW : 0;
}

/* Whether entry e answers the decision met (seat, decision, arg). */
static int entry_fits(const uno_script *s, const uno_script_entry *e, int seat, int decision,
                      int arg)
{
    if (e->seat != seat || e->decision != decision)
        return 0;
    if (decision == UNO_DEC_PLAY_DRAWN) /* the arg names the drawn card: o may not see it */
        return private_kind(s, seat, decision) || (e->arg & 1) == (arg & 1);
    return e->arg == arg;
}

/* The script's callback: every decision of a scripted game. */
static int script_decide(void *ctx, uno_game *g, int seat, int decision, int arg)
{
    uno_script *s = (uno_script *)ctx;
    int ans;
    for (;;) {
        if (s->next < s->n) {
            const uno_script_entry *e = &s->e[s->next];
            if (entry_fits(s, e, seat, decision, arg)) {
                s->next++;
                ans = e->answer;
                break;
            }
            if (private_kind(s, e->seat, e->decision) && e->answer == decline(e->decision)) {
                s->next++; /* declined, and not asked here: it changed nothing seen */
                continue;
            }
        }
        if (private_kind(s, seat, decision)) { /* asked here only: declined, as unseen */
            ans = decline(decision);
            break;
        }
        if (s->next < s->n || !s->hook)
            longjmp(*s->diverged, 1);
        ans = s->hook(s->ctx, g, seat, decision, arg);
        break;
    }
    if (!answer_fits(g, seat, decision, ans))
        longjmp(*s->diverged, 1);
    return user_answer(g, seat, decision, ans);
}

void uno_script_attach(uno_game *g, uno_script *s)
{
    for (int p = 0; p < g->n; p++) {
        memset(&s->pol[p], 0, sizeof s->pol[p]);
        s->pol[p].id = UNO_POLICY_USER;
        s->pol[p].challenge_threshold = 0.5;
        s->pol[p].suspect = -1;
        s->pol[p].decide = script_decide;
        s->pol[p].ctx = s;
    }
    g->pol = s->pol;
}

/* A decision of seat p by the policies `pols` (the public decision functions). */
static int dispatch(uno_game *g, const uno_policy *pols, int p, int decision, int arg)
{
    const uno_policy *keep = g->pol;
    int ans;
    g->pol = pols;
    switch (decision) {
    case UNO_DEC_PLAY:
        ans = uno_choose_play(g, p);
        break;
    case UNO_DEC_REPLACEMENT:
        ans = uno_choose_replacement(g, p);
        break;
    case UNO_DEC_COLOR:
        ans = uno_choose_color(g, p);
        break;
    case UNO_DEC_CHALLENGE:
        ans = uno_wants_challenge(g, p, arg & 0xff, (arg >> 8) - 1);
        break;
    case UNO_DEC_FORGET_UNO:
        ans = uno_forgets_uno(g, p);
        break;
    case UNO_DEC_CATCH:
        ans = uno_catches(g, p, arg);
        break;
    case UNO_DEC_PLAY_DRAWN:
        ans = uno_plays_drawn(g, p, arg & 1);
        break;
    case UNO_DEC_TARGET:
        ans = uno_choose_target(g, p, arg);
        break;
    case UNO_DEC_STACK:
        ans = uno_choose_stack(g, p, arg);
        break;
    case UNO_DEC_JUMP_IN:
        ans = uno_wants_jump(g, p, arg);
        break;
    default: /* UNO_DEC_DISCARD */
        ans = uno_choose_discard(g, p, arg);
        break;
    }
    g->pol = keep;
    return ans;
}

/* ------------------------------------------------------------------------- */
/* The recorder                                                               */
/* ------------------------------------------------------------------------- */

/* A decision of the round kept for inference: who, what, the answer, the decision count. */
typedef struct infer_point {
    int32_t seat, decision, arg, answer;
    int64_t seen;
} infer_point;

/* A node of ismcts's tree (depth > 1): one of the searching seat's later decisions. */
typedef struct tree_node {
    uint64_t key;
    int32_t m;                   /* answers kept */
    int32_t ans[TREE_ACTIONS];   /* engine answers */
    int32_t n[TREE_ACTIONS];     /* iterations that took the answer */
    int32_t avail[TREE_ACTIONS]; /* iterations in which it was legal here */
    double w[TREE_ACTIONS];      /* their total value */
} tree_node;

struct uno_search {
    uno_game *g;                            /* the game recorded */
    const uno_policy *orig;                 /* the seats' own policies */
    uno_policy wrap[UNO_MAX_PLAYERS];       /* every seat: record_decide */
    uno_policy fallback[UNO_MAX_PLAYERS];   /* orig, a search seat as its rollout policy */
    uno_policy anchor[UNO_MAX_PLAYERS];     /* fallback, a search seat as its anchor */
    int has_snap, snap_seat;
    int snap_start; /* 1: the snapshot is the round's start (uno_search_start), snap_seat
                       its dealer; 0: the start of snap_seat's turn */
    int n_journal, overflow;
    int stoppable; /* the search honours the stop flag (uno_search_begin) */
    int64_t stats[UNO_MAX_PLAYERS][UNO_SEARCH_STATS]; /* per seat: uno.h UNO_SS_* */
    /* The turn's reshuffles and flips ("events", uno_search_event) and launcher presses
       (uno_search_press) so far: `mid` is the game just after the last event, the
       n_events-th; press_k[] what each press fired */
    int n_events, n_press, has_mid, mid_at; /* mid_at: journal entries before mid */
    int mid_pile; /* the last event was a reshuffle: mid's draw pile holds the discards */
    int32_t press_k[PRESS_MAX];
    uint8_t forbid[UNO_MAX_PLAYERS][UNO_MAX_CARDS]; /* sample_world: cards a seat lacks */
    /* A replay in progress (a clone whose `search` is this recorder, until its root):
       events and presses met so far; mid_ready: the sample's state holds the true turn
       start (x->world), and mid_world the sample of `mid` to put in at the n_events-th
       event (mid_due: not yet put in); cur_o: the searching seat */
    int sim_events, sim_press, mid_ready, mid_due, cur_o;
    /* uno_play_fork: the decision to fork at (-1 none), decisions seen, the fork's result */
    int64_t fork_at, seen;
    uno_result *fork_res;
    uno_script_entry journal[JOURNAL_MAX];
    /* ismcts's tree below the root (depth > 1); slot[] an open-addressing index */
    tree_node *nodes;
    int32_t *slot;
    int cap, used, slots;
    /* value=table: P(win the game | own score, best other score), by TABLE_STEP points */
    float *table;
    int table_n;
    /* the decision recorder's tap (record.c), and the last searched decision's statistics
       (rep_ok: filled by the decision being answered) */
    uno_decision_tap tap;
    void *tap_ctx;
    const uno_policy *play; /* uno_search_play: the answers seats of play_seats play */
    uint32_t play_seats;
    int rep_ok;
    uno_search_report rep;
    /* leaf (uno_policy.leaf): the rollout policies behind the searching seat's leaf
       wrapper, the root of the rollout in flight, and a leaf's value (leaf_hit: reached) */
    uno_policy leaf_pol[UNO_MAX_PLAYERS];
    const struct root_check *leaf_rc;
    int leaf_hit, leaf_mixed; /* mixed: the leaf's value taken, the rollout playing on */
    double leaf_v;
    /* infer (uno_policy.infer > 0 at some seat): the round's latest decisions (a ring of
       INFER_KEEP, inf_next the next slot) and the state at each (inf_state, malloc'ed);
       each seat's hand at the last decision seen, and the decision count from which its
       points may be used (before it, a card left its hand unseen); the side and round
       they are of; the decision count at the snapshot and at mid */
    int infer, inf_n, inf_next, inf_side, inf_rounds;
    infer_point inf[INFER_KEEP];
    uno_game *inf_state;
    uno_hand inf_hand[UNO_MAX_PLAYERS];
    int64_t inf_from[UNO_MAX_PLAYERS];
    int64_t snap_seen, mid_seen;
    uno_game snap;  /* the game at the start of the turn (up to `own`) */
    uno_game mid;       /* the game just after the turn's last reshuffle or flip */
    uno_game mid_world; /* a sampled state of mid (determinize) */
    uno_game world; /* a sampled state */
    uno_game sim;   /* a rollout */
};

static int search_decide(struct uno_search *x, uno_game *g, int o, int decision, int arg);
static void fork_here(struct uno_search *x, uno_game *g, int seat, int decision, int arg, int ans);
static void infer_check(struct uno_search *x, const uno_game *g);
static void infer_keep(struct uno_search *x, const uno_game *g, int seat, int decision, int arg,
                       int ans);

/* Every decision of a recorded game: the seat's own policy answers, the journal notes it;
   a seat of play_seats plays play's answer instead, the tap given its own policy's. */
static int record_decide(void *ctx, uno_game *g, int seat, int decision, int arg)
{
    struct uno_search *x = (struct uno_search *)ctx;
    x->rep_ok = 0;
    if (x->infer)
        infer_check(x, g);
    int ans = is_search(&x->orig[seat]) ? search_decide(x, g, seat, decision, arg)
                                        : dispatch(g, x->orig, seat, decision, arg);
    if (x->tap)
        x->tap(x->tap_ctx, g, seat, decision, arg, ans, x->rep_ok ? &x->rep : NULL);
    if (UNO_UNLIKELY((x->play_seats >> seat) & 1))
        ans = dispatch(g, x->play, seat, decision, arg);
    if (x->infer)
        infer_keep(x, g, seat, decision, arg, ans);
    if (UNO_UNLIKELY(x->seen++ == x->fork_at))
        fork_here(x, g, seat, decision, arg, ans);
    if (x->n_journal < JOURNAL_MAX) {
        uno_script_entry *e = &x->journal[x->n_journal++];
        e->seat = seat;
        e->decision = decision;
        e->arg = arg;
        e->answer = ans;
    } else {
        x->overflow = 1;
    }
    return user_answer(g, seat, decision, ans);
}

static int uno_search_begin(uno_game *g, int stoppable)
{
    struct uno_search *x = (struct uno_search *)calloc(1, sizeof *x);
    if (!x)
        return 0;
    x->g = g;
    x->stoppable = stoppable;
    x->orig = g->pol;
    x->fork_at = -1;
    for (int s = 0; s < g->n; s++) {
        x->wrap[s] = g->pol[s];
        x->wrap[s].id = UNO_POLICY_USER;
        x->wrap[s].decide = record_decide;
        x->wrap[s].ctx = x;
        x->fallback[s] = x->anchor[s] = g->pol[s];
        if (is_search(&g->pol[s])) {
            const uno_policy *q = &g->pol[s];
            x->fallback[s].id = q->rollout;
            x->anchor[s].id = q->anchor >= 0 ? q->anchor : q->rollout;
            if (q->rollout_challenge >= 0.0) { /* the rollouts' only, not the anchor's */
                x->fallback[s].challenge = q->rollout_challenge;
                x->fallback[s].challenge_auto = x->fallback[s].challenge_posterior = 0;
            }
        }
        x->infer |= is_search(&g->pol[s]) &&
                    (g->pol[s].infer > 0.0 || g->pol[s].voids < 1.0 || g->pol[s].colors < 1.0 ||
                     g->pol[s].bluffs < 1.0);
    }
    if (x->infer) {
        x->inf_state = (uno_game *)malloc(INFER_KEEP * sizeof *x->inf_state);
        if (!x->inf_state) {
            free(x);
            return 0;
        }
        x->inf_rounds = -1;
    }
    g->pol = x->wrap;
    g->search = x;
    return 1;
}

static void uno_search_stats(const uno_game *g, int64_t *stats)
{
    const struct uno_search *x = g->search;
    if (!x)
        return;
    for (int s = 0; s < g->n; s++)
        for (int k = 0; k < UNO_SEARCH_STATS; k++)
            stats[s * UNO_SEARCH_STATS + k] += x->stats[s][k];
}

void uno_search_tap(uno_game *g, uno_decision_tap tap, void *ctx)
{
    g->search->tap = tap;
    g->search->tap_ctx = ctx;
}

void uno_search_play(uno_game *g, const uno_policy *play, uint32_t seats)
{
    g->search->play = play;
    g->search->play_seats = play ? seats : 0;
}

static void uno_search_end(uno_game *g)
{
    struct uno_search *x = g->search;
    if (!x)
        return;
    g->pol = x->orig;
    g->search = NULL;
    free(x->inf_state);
    free(x->nodes);
    free(x->slot);
    free(x->table);
    free(x);
}

static void uno_search_turn(uno_game *g, int p)
{
    struct uno_search *x = g->search;
    if (g != x->g)
        return; /* a replay (uno_search_event) */
    uno_draw_settle(g); /* the pile's order is fixed from here: a sample may rebuild it */
    uno_game_clone(&x->snap, g);
    x->has_snap = 1;
    x->snap_seat = p;
    x->snap_start = 0;
    x->n_journal = 0;
    x->overflow = 0;
    x->n_events = x->n_press = x->has_mid = 0;
    x->snap_seen = x->seen;
}

static void uno_search_start(uno_game *g, int dealer)
{
    if (g != g->search->g)
        return; /* a replay */
    uno_search_turn(g, dealer);
    g->search->snap_start = 1;
    /* as uno_round_play sets it once the starter has acted (the starter is discard[0]) */
    g->search->snap.round_starter = g->t->card_kind[g->side][g->discard[0]];
}

/*
 * Within a turn, a reshuffle (C15) or a flip (F3) changes what the turn-start snapshot
 * says about the cards: the reshuffled pile's order is new, a flip shows the other faces.
 * The game keeps its state just after the turn's last such event (`mid`), and a search
 * samples that state instead (determinize from mid): the replay starts from the true
 * turn-start snapshot, follows the journal (the truth, so it meets the same events) and,
 * at that event, takes the sample's hidden cards (the other hands and the draw pile) in
 * place of the true ones, before any decision is asked of the true state; the rest of the
 * journal, the decision searched and the rollout play on the sample.  A replay that meets
 * the event in another public state, or reaches the decision without meeting it, is
 * dropped: it never plays on with the true cards.  What the engine computed from the true
 * cards before the event and still holds after it is public (the turn's outcome so far).
 */

/* Whether the replay g at an event shows what the game showed there (mid) to o. */
static int same_at_event(const uno_game *g, const uno_game *mid, int o)
{
    if (g->n_draw != mid->n_draw || g->n_discard != mid->n_discard || g->side != mid->side ||
        g->reshuffles != mid->reshuffles || g->discard[g->n_discard - 1] !=
        mid->discard[mid->n_discard - 1] ||
        memcmp(&g->hand[o], &mid->hand[o], sizeof g->hand[o]) != 0)
        return 0;
    for (int q = 0; q < g->n; q++)
        if (g->hand_n[q] != mid->hand_n[q])
            return 0;
    return 1;
}

static void uno_search_event(uno_game *g, int reshuffle)
{
    struct uno_search *x = g->search;
    if (g != x->g) { /* a replay: the sample goes in at the last event of the game's turn */
        if (x->mid_due && ++x->sim_events == x->n_events) {
            const int o = x->cur_o;
            if (!same_at_event(g, &x->mid, o))
                longjmp(*g->bail, 1);
            const uno_game *w = &x->mid_world;
            for (int q = 0; q < g->n; q++) {
                if (q == o)
                    continue;
                g->hand[q] = w->hand[q];
                g->hand_alt[q] = w->hand_alt[q];
            }
            memcpy(g->draw, w->draw, (size_t)g->n_draw);
            g->bag = 0;
            x->mid_due = 0;
        }
        return;
    }
    if (!x->has_snap)
        return;
    uno_draw_settle(g); /* as uno_search_turn */
    uno_game_clone(&x->mid, g);
    x->mid_seen = x->seen;
    x->has_mid = 1;
    x->mid_at = x->n_journal;
    x->mid_pile = reshuffle;
    x->n_events++;
}

static int uno_search_press(uno_game *g, int k)
{
    struct uno_search *x = g->search;
    if (g != x->g) /* a replay: the press fires what it fired in the game (public) */
        return x->sim_press < x->n_press ? x->press_k[x->sim_press++] : k;
    if (x->has_snap) {
        if (x->n_press < PRESS_MAX)
            x->press_k[x->n_press++] = k;
        else
            x->overflow = 1;
    }
    return k;
}

/* The snapshot's round, replayed by sim (a clone of it) on to its end (uno_round_*). */
static int continue_snapshot(const struct uno_search *x, uno_game *sim)
{
    return x->snap_start ? uno_round_continue_starter(sim, x->snap_seat)
                         : uno_round_continue(sim, x->snap_seat);
}

/* ------------------------------------------------------------------------- */
/* Determinization                                                            */
/* ------------------------------------------------------------------------- */

/*
 * A state seat o cannot tell from the true one (s: x->snap, the start of the turn or of
 * the round, or x->mid, just after the turn's last reshuffle or flip), given the game now
 * (`now`, at the decision), into w; 0 when the turn cannot be rebuilt from s.
 * The constraints, all of them public to o (docs/rules.md P1):
 *   1. o's own hand and the discard pile of the snapshot stay as they are;
 *   2. every other seat keeps its hand size, the draw pile its size;
 *   3. a card o sees now (its hand, the discard pile) that another seat held at the
 *      snapshot stays in that seat's hand (it was seen to leave it this turn: played,
 *      put down, or passed to o by an exchange);
 *   4. a card o sees now that was drawn this turn (the top of the snapshot's draw pile,
 *      in draw order) stays at its place in the pile;
 *   5. the cards a challenge showed o (uno_game.reveal, C12) that o has not seen since
 *      (not in its hand, not in the discard pile) go to the offender's hand while it
 *      has room (they may have left it unseen, e.g. through a reshuffle: a bias, never
 *      a leak);
 *   6. a two-sided deck (F6): a card in another seat's hand, and each card that was on
 *      top of the draw pile during the turn, is replaced only by a card with the same
 *      kind on its other face (those faces are visible);
 *   7. the rest (the hidden cards) is dealt uniformly at random over the free places;
 *   8. a seat q with cards it is known not to hold (any[q], forbid[q * UNO_MAX_CARDS +
 *      card]: sample_world) gets its unpinned cards among the others, first;
 *   9. pile_known (s just after a reshuffle, C15): s's draw pile holds exactly the
 *      former discards, in view until then: its free places get those cards, the other
 *      hands the rest (and a card a challenge showed is pinned only if it is not there).
 * Ignored: uno_game.failed (the colors a seat drew on: what it held then is not what
 * it holds now), the policies' past answers (no opponent model), which cards a
 * reshuffle of an earlier turn put in the draw pile and are still there (they are dealt
 * with the other unseen cards: a bias),
 * and the launcher's state, which the copy keeps as it is (uno_game.silent is public;
 * the replay fires what each press fired: uno_search_press).  A reshuffle (C15) or a
 * flip (F3) between s and now: 0 (the search samples x->mid instead, uno_search_event).
 */
static int determinize(const uno_game *s, const uno_game *now, int o,
                       const uint8_t *forbid, const uint8_t *any,
                       int pile_known, uno_rng *r, uno_game *w)
{
    const uno_table *t = s->t;
    const int nc = t->n_cards, side = s->side, two = s->two_sided;
    uno_game_clone(w, s);
    if (now->reshuffles != s->reshuffles || now->side != s->side || now->rounds != s->rounds)
        return 0;
    const int k = s->n_draw - now->n_draw; /* cards drawn this turn */
    if (k < 0 || s->bag != 0)
        return 0;
    uint8_t known[UNO_MAX_CARDS + 1], vis[UNO_MAX_CARDS + 1];
    int8_t pin_seat[UNO_MAX_CARDS + 1];
    int16_t pin_pos[UNO_MAX_CARDS + 1];
    memset(known, 0, sizeof known);
    memset(vis, 0, sizeof vis);
    memset(pin_seat, -1, sizeof pin_seat);
    for (int i = 0; i <= UNO_MAX_CARDS; i++)
        pin_pos[i] = -1;
    UNO_BITS_FOR(s->hand[o], q)
        known[uno_card_at(s, q)] = 1;
    for (int i = 0; i < s->n_discard; i++)
        known[s->discard[i]] = 1;
    UNO_BITS_FOR(now->hand[o], q)
        vis[uno_card_at(now, q)] = 1;
    for (int i = 0; i < now->n_discard; i++)
        vis[now->discard[i]] = 1;
    /* each other seat's room and the other-face kinds of its unpinned cards (F6) */
    int room[UNO_MAX_PLAYERS];
    uint8_t kinds[UNO_MAX_PLAYERS][UNO_HAND_CAP];
    int n_kinds[UNO_MAX_PLAYERS];
    for (int q = 0; q < s->n; q++) {
        room[q] = 0;
        n_kinds[q] = 0;
        if (q == o)
            continue;
        room[q] = s->hand_n[q];
        UNO_BITS_FOR(s->hand[q], rk) {
            int c = uno_card_at(s, rk);
            if (vis[c] && !known[c]) { /* 3 */
                pin_seat[c] = (int8_t)q;
                room[q]--;
            } else if (two) {
                kinds[q][n_kinds[q]++] = t->card_kind[side ^ 1][c];
            }
        }
    }
    for (int j = 0; j < k; j++) { /* 4 */
        int pos = s->n_draw - 1 - j, c = s->draw[pos];
        if (vis[c] && !known[c] && pin_seat[c] < 0)
            pin_pos[c] = (int16_t)pos;
    }
    /* 9: the cards of s's draw pile, when they are public (just reshuffled: C15) */
    uint8_t in_pile[UNO_MAX_CARDS + 1];
    memset(in_pile, 0, sizeof in_pile);
    for (int i = 0; pile_known && i < s->n_draw; i++)
        in_pile[s->draw[i]] = 1;
    int off = s->reveal_from[o]; /* 5 */
    if (off >= 0 && off != o && off < s->n) {
        for (int i = 0; i < s->reveal_n[o] && room[off] > 0; i++) {
            int c = s->reveal[o][i];
            if (known[c] || vis[c] || pin_seat[c] >= 0 || pin_pos[c] >= 0 || in_pile[c])
                continue;
            if (two) { /* only where one of the offender's other faces shows its kind */
                int kd = t->card_kind[side ^ 1][c], f = -1;
                for (int i2 = 0; i2 < n_kinds[off] && f < 0; i2++)
                    if (kinds[off][i2] == kd)
                        f = i2;
                if (f < 0)
                    continue;
                kinds[off][f] = kinds[off][--n_kinds[off]];
            }
            pin_seat[c] = (int8_t)off;
            room[off]--;
        }
    }
    /* the pool: every card not known nor pinned, in card order, then shuffled */
    uint8_t pool[UNO_MAX_CARDS];
    int np = 0;
    for (int c = 0; c < nc; c++)
        if (!known[c] && pin_seat[c] < 0 && pin_pos[c] < 0)
            pool[np++] = (uint8_t)c;
    int slots = 0;
    for (int q = 0; q < s->n; q++)
        slots += room[q];
    int pile_free = s->n_draw;
    for (int c = 0; c < nc; c++)
        pile_free -= pin_pos[c] >= 0;
    if (slots + pile_free != np)
        return 0;
    if (pile_known) { /* 9: exactly the pile's free places get the pile's cards */
        int n_in = 0;
        for (int j = 0; j < np; j++)
            n_in += in_pile[pool[j]];
        if (n_in != pile_free)
            return 0;
    }
    uno_rng_shuffle_u8(r, pool, np);
    uint8_t used[UNO_MAX_CARDS];
    memset(used, 0, (size_t)np);
    /* the new hands and pile */
    for (int q = 0; q < s->n; q++) {
        if (q == o)
            continue;
        memset(&w->hand[q], 0, sizeof w->hand[q]);
        memset(&w->hand_alt[q], 0, sizeof w->hand_alt[q]);
        w->hand_n[q] = 0;
    }
    for (int c = 0; c < nc; c++)
        if (pin_seat[c] >= 0)
            uno_hand_add(w, pin_seat[c], c);
    uint8_t placed[UNO_MAX_CARDS]; /* pile places filled */
    memset(placed, 0, sizeof placed);
    for (int c = 0; c < nc; c++)
        if (pin_pos[c] >= 0) {
            w->draw[pin_pos[c]] = (uint8_t)c;
            placed[pin_pos[c]] = 1;
        }
    if (two) { /* 6: the places whose other face is seen, by kind */
        for (int q = 0; q < s->n; q++) {
            if (q == o)
                continue;
            /* in kind order: the places do not depend on which card shows which kind */
            int cnt[UNO_MAX_KINDS];
            memset(cnt, 0, sizeof cnt);
            for (int i = 0; i < n_kinds[q]; i++)
                cnt[kinds[q][i]]++;
            for (int kd = 0; kd < t->n_kinds; kd++)
                for (; cnt[kd] > 0; cnt[kd]--) {
                    int f = -1;
                    for (int i = 0; i < np && f < 0; i++)
                        if (!used[i] && !in_pile[pool[i]] && t->card_kind[side ^ 1][pool[i]] == kd)
                            f = i;
                    if (f < 0)
                        return 0;
                    used[f] = 1;
                    uno_hand_add(w, q, pool[f]);
                }
        }
        for (int j = 0; j <= k && s->n_draw - 1 - j >= 0; j++) {
            int pos = s->n_draw - 1 - j;
            if (placed[pos])
                continue;
            int kd = t->card_kind[side ^ 1][s->draw[pos]], f = -1;
            for (int i = 0; i < np && f < 0; i++)
                if (!used[i] && in_pile[pool[i]] == pile_known &&
                    t->card_kind[side ^ 1][pool[i]] == kd)
                    f = i;
            if (f < 0)
                return 0;
            used[f] = 1;
            w->draw[pos] = pool[f];
            placed[pos] = 1;
        }
    }
    for (int q = 0; q < s->n; q++) { /* 8: first the seats known not to hold some cards */
        if (q == o || !any[q])
            continue;
        for (int j = 0; j < np && w->hand_n[q] < s->hand_n[q]; j++) {
            if (used[j] || in_pile[pool[j]] || forbid[q * UNO_MAX_CARDS + pool[j]])
                continue;
            used[j] = 1;
            uno_hand_add(w, q, pool[j]);
        }
        if (w->hand_n[q] < s->hand_n[q])
            return 0;
    }
    int i = 0; /* 7 */
    for (int q = 0; q < s->n; q++) {
        if (q == o)
            continue;
        while (w->hand_n[q] < s->hand_n[q]) {
            while (used[i] || in_pile[pool[i]])
                i++;
            used[i] = 1;
            uno_hand_add(w, q, pool[i]);
        }
    }
    i = 0; /* every entry before i is used: the same as going on from i without 9 */
    for (int pos = 0; pos < s->n_draw; pos++) {
        if (placed[pos])
            continue;
        while (used[i] || in_pile[pool[i]] != pile_known)
            i++;
        used[i] = 1;
        w->draw[pos] = pool[i];
    }
    w->bag = 0;
    return 1;
}

/* ------------------------------------------------------------------------- */
/* value=table: P(win the game | scores)                                      */
/* ------------------------------------------------------------------------- */

/*
 * The chance that seat o wins the game from scores (a, b): a its own (its team's), b the
 * best other seat's (the other team's), both in steps of TABLE_STEP points below the
 * target.  A model, computed once per game by the engine itself: the points a round
 * scores follow their distribution in TABLE_ROUNDS rounds of this game's rules played
 * by the rollout policy at every seat (uno_play_round, a fixed seed); o wins a round
 * that scores with chance q (1 / players, 1/2 with teams), else its points go to the
 * best other score (the others taken as one: a pessimistic simplification with three
 * or more players); rounds that score nothing change nothing.  Then
 *   P(a, b) = q sum_k f(k) P(a + k, b) + (1 - q) sum_k f(k) P(a, b + k),
 * with P = 1 once a reaches the target and 0 once b does, solved from the top down.
 * Measured and not taken: the product over the other seats of two-seat races (q = 1/2
 * each) played about 0.02 better at four players, not clearly (benchmarks/results.md).
 */
#define TABLE_STEP 5
#define TABLE_ROUNDS 400

static void rollout_policies(const struct uno_search *x, int o, uno_policy *out);

static int table_build(struct uno_search *x, int o)
{
    const uno_game *g = x->g;
    const uno_config *cfg = g->cfg;
    int n = cfg->target > 0 ? (cfg->target + TABLE_STEP - 1) / TABLE_STEP : 1;
    if (n > 4096)
        n = 4096;
    double *f = (double *)calloc((size_t)n + 1, sizeof *f);
    float *tab = (float *)malloc((size_t)n * (size_t)n * sizeof *tab);
    if (!f || !tab) {
        free(f);
        free(tab);
        return 0;
    }
    uno_policy pols[UNO_MAX_PLAYERS];
    rollout_policies(x, o, pols);
    for (int s = 0; s < cfg->players; s++) /* a model of the round's points: greedy stands */
        if (pols[s].id == UNO_POLICY_NET) /* in for the network (cheaper, near enough) */
            pols[s].id = UNO_POLICY_GREEDY;
    uno_config c = *cfg;
    c.search = NULL; /* built-in policies only (uno_config_check) */
    if (c.max_turns <= 0 || c.max_turns > 3000)
        c.max_turns = 3000;
    const uint64_t key[4] = {UINT64_C(0x7461626C65), 1, 2, 3};
    double total = 0.0;
    for (int r = 0; r < TABLE_ROUNDS; r++) {
        uno_rng rng;
        uno_result res;
        uno_rng_seed(&rng, key, (uint64_t)r);
        if (uno_play_round(&c, g->t, pols, &rng, NULL, r % cfg->players, NULL, NULL, &res) !=
            UNO_OK)
            continue;
        int pts = 0;
        for (int s = 0; s < cfg->players; s++)
            pts = res.scores[s] > pts ? res.scores[s] : pts;
        if (cfg->teams)
            pts = res.team_scores[0] > res.team_scores[1] ? res.team_scores[0] : res.team_scores[1];
        if (pts <= 0)
            continue; /* changes nothing */
        int k = (pts + TABLE_STEP - 1) / TABLE_STEP;
        f[k > n ? n : k] += 1.0;
        total += 1.0;
    }
    if (total <= 0.0) {
        f[1] = 1.0;
        total = 1.0;
    }
    const double q = cfg->teams ? 0.5 : 1.0 / g->n_active;
    for (int a = n - 1; a >= 0; a--)
        for (int b = n - 1; b >= 0; b--) {
            double p = 0.0;
            for (int k = 1; k <= n; k++) {
                if (f[k] == 0.0)
                    continue;
                double w = f[k] / total;
                double up = a + k >= n ? 1.0 : tab[(a + k) * n + b];
                double down = b + k >= n ? 0.0 : tab[a * n + b + k];
                p += w * (q * up + (1.0 - q) * down);
            }
            tab[a * n + b] = (float)p;
        }
    free(f);
    x->table = tab;
    x->table_n = n;
    return 1;
}

/* The table's value of g's scores for o (the round just scored, the game not over). */
static double table_value(const struct uno_search *x, const uno_game *g, int o)
{
    int a, b = 0;
    if (g->cfg->teams) {
        a = g->team_scores[o % 2];
        b = g->team_scores[1 - o % 2];
    } else {
        a = g->scores[o];
        for (int s = 0; s < g->n; s++)
            if (s != o && g->scores[s] > b)
                b = g->scores[s];
    }
    int n = x->table_n;
    a /= TABLE_STEP;
    b /= TABLE_STEP;
    if (a >= n)
        return 1.0;
    if (b >= n)
        return 0.0;
    return x->table[a * n + b];
}

/* ------------------------------------------------------------------------- */
/* Rollouts                                                                   */
/* ------------------------------------------------------------------------- */

/* The copy's own random streams (its seed state, deal stream and decision streams). */
static void reseed(uno_game *g, const uint64_t key[4], uint64_t idx)
{
    uno_rng_seed(&g->seeded, key, idx);
    uno_rng_seed_deal(&g->deal, &g->seeded, (uint64_t)g->rounds);
    uno_dec_round(g, (uint64_t)g->rounds);
}

/* Whether the copy at the searched decision shows what the true game shows. */
static int same_public(const uno_game *a, const uno_game *b)
{
    if (a->n_draw != b->n_draw || a->n_discard != b->n_discard || a->color != b->color ||
        a->top_face != b->top_face || a->side != b->side || a->direction != b->direction ||
        a->discard[a->n_discard - 1] != b->discard[b->n_discard - 1])
        return 0;
    for (int q = 0; q < a->n; q++)
        if (a->hand_n[q] != b->hand_n[q])
            return 0;
    return 1;
}

/* What a finished rollout is worth to seat o: 1 won, 0 lost (shared wins count as won). */
static double game_value(const uno_game *g, const uno_result *res, int o)
{
    if (res->status != UNO_OK)
        return 0.0;
    if (g->cfg->teams && res->team >= 0)
        return res->team == o % 2;
    for (int i = 0; i < res->n_winners; i++)
        if (res->winners[i] == o)
            return 1.0;
    return 0.0;
}

/* The root decision's check, common to both searches' hooks. */
typedef struct root_check {
    const uno_game *real;
    int o, decision, arg, reached;
    int t0; /* the copy's turns when it reached the decision (leaf) */
} root_check;

static int at_root(root_check *rc, uno_game *g, int seat, int decision, int arg)
{
    /* a replay with hooks: the sample must be in (uno_search_event), and none is needed
       in the rollout */
    if (g->search && g->search->mid_due)
        return 0;
    /* and o holds what it holds in the game (a sample that dealt o other cards, e.g. by
       a shuffle of the hands on the copy's own stream, S2, is not o's situation) */
    int ok = !rc->reached && seat == rc->o && decision == rc->decision && arg == rc->arg &&
             same_public(g, rc->real) &&
             memcmp(&g->hand[rc->o], &rc->real->hand[rc->o], sizeof g->hand[rc->o]) == 0;
    if (ok) {
        g->search = NULL;
        rc->t0 = g->turns;
    }
    return ok;
}

/* What the rollout that ended its round with winner w (LIMIT: cut short) is worth to o. */
static double rollout_value(const struct uno_search *x, uno_game *sim, int o, int value, int w)
{
    if (value == UNO_VALUE_ROUND)
        return w >= 0 && (w == o || (sim->cfg->teams && w % 2 == o % 2));
    uno_result res;
    if (value == UNO_VALUE_TABLE && sim->cfg->scoring == UNO_SCORING_STANDARD) {
        if (w == LIMIT)
            return 0.0;
        if (!uno_round_score(sim, w))
            return table_value(x, sim, o);
        uno_game_result(sim, &res);
        return game_value(sim, &res, o);
    }
    uno_game_finish(sim, w, &res);
    return game_value(sim, &res, o);
}

/*
 * Plays the copy x->sim (scripted by sc, hooked at the searched decision) to the end of
 * its round or game; its value for o into *v.  0: it diverged (the sample is dropped).
 */
static int run(struct uno_search *x, uno_script *sc, root_check *rc, int value, double *v)
{
    uno_game *sim = &x->sim;
    jmp_buf jb;
    sc->diverged = &jb;
    sc->next = 0;
    sc->observer = rc->o; /* only what o sees must follow the record */
    sim->bail = &jb;
    /* the replay's hooks (uno_search_event, uno_search_press) until the root */
    x->sim_events = x->sim_press = 0;
    x->mid_due = x->mid_ready;
    sim->search = x->mid_ready || x->n_press ? x : NULL;
    sim->tr = NULL;
    sim->rows = NULL;
    sim->force = NULL;
    sim->fast_max = sim->cfg->seven_o                    ? UNO_FAST_NO
                    : sim->cfg->stacking || sim->launcher ? UNO_FAST_WILD
                                                          : UNO_FAST_DRAW;
    uno_script_attach(sim, sc);
    x->leaf_rc = rc;
    x->leaf_hit = x->leaf_mixed = 0;
    if (setjmp(jb)) {
        if (x->leaf_hit) { /* a leaf: the network's value of the state it reached */
            *v = x->leaf_v;
            return 1;
        }
        x->stats[rc->o][UNO_SS_DROPPED]++;
        return 0;
    }
    int w = continue_snapshot(x, sim);
    if (!rc->reached) {
        x->stats[rc->o][UNO_SS_DROPPED]++;
        return 0;
    }
    *v = rollout_value(x, sim, rc->o, value, w);
    if (x->leaf_mixed) { /* mix < 1: the leaf's value weighed with the rollout's */
        const double m = x->orig[rc->o].mix;
        *v = m * x->leaf_v + (1.0 - m) * *v;
    }
    return 1;
}

/* Every seat of a rollout: seat o's rollout policy (its knobs as fallback[o] holds them);
   the other seats the `others` policy instead when o's knob names one. */
static void rollout_policies(const struct uno_search *x, int o, uno_policy *out)
{
    const int others = x->orig[o].others;
    for (int s = 0; s < x->g->n; s++) {
        out[s] = x->fallback[o];
        if (s != o && others >= 0)
            out[s].id = others;
    }
}

/*
 * leaf (uno_policy.leaf = k >= 0): the searching seat o plays its rollouts through a
 * wrapper that, at o's first play decision (the start of its turn) k or more turns after
 * the searched decision, stops the rollout and values it by o's network: P(win the game) =
 * 1 / (1 + exp(-v)) of the value head on o's observation there.  The rollout's state is a
 * sampled one, so the value reads nothing o could not see in that world.  Before that,
 * o's decisions are its rollout policy's.  With mix = w < 1 the rollout is not stopped:
 * it plays on to its end and is worth w times that value plus 1 - w times its own (run),
 * the mixed leaf evaluation of AlphaGo (Silver et al. 2016).
 */
static int leaf_decide(void *ctx, uno_game *g, int seat, int decision, int arg)
{
    struct uno_search *x = (struct uno_search *)ctx;
    const uno_policy *pol = &x->orig[seat];
    if (decision == UNO_DEC_PLAY && !x->leaf_mixed && g->turns - x->leaf_rc->t0 >= pol->leaf) {
        double v = uno_net_value(g, pol->net, seat, UNO_DEC_PLAY, 0);
        x->leaf_v = 1.0 / (1.0 + s_exp(-v));
        if (pol->mix >= 1.0) {
            x->leaf_hit = 1;
            longjmp(*g->bail, 1);
        }
        x->leaf_mixed = 1;
    }
    return user_answer(g, seat, decision, dispatch(g, x->leaf_pol, seat, decision, arg));
}

/* The rollout policies `after` of seat o's search, o's wrapped by leaf_decide when its
   leaf knob is on. */
static void leaf_arm(struct uno_search *x, int o, uno_policy *after)
{
    if (x->orig[o].leaf < 0)
        return;
    memcpy(x->leaf_pol, after, sizeof x->leaf_pol);
    memset(&after[o], 0, sizeof after[o]);
    after[o].id = UNO_POLICY_USER;
    after[o].challenge_threshold = 0.5;
    after[o].suspect = -1;
    after[o].decide = leaf_decide;
    after[o].ctx = x;
}

/* ------------------------------------------------------------------------- */
/* pimc                                                                       */
/* ------------------------------------------------------------------------- */

typedef struct pimc_hook {
    root_check rc;
    int answer;
    const uno_policy *after;
} pimc_hook;

static int pimc_answer(void *ctx, uno_game *g, int seat, int decision, int arg)
{
    pimc_hook *h = (pimc_hook *)ctx;
    if (!at_root(&h->rc, g, seat, decision, arg))
        longjmp(*g->bail, 1);
    h->rc.reached = 1;
    g->pol = h->after; /* the rollout policies from here on */
    return h->answer;
}

/* h, set to answer `answer` at o's decision (decision, arg) of the real game g. */
static void hook_arm(pimc_hook *h, const uno_game *g, int o, int decision, int arg, int answer)
{
    h->rc.real = g;
    h->rc.o = o;
    h->rc.decision = decision;
    h->rc.arg = arg;
    h->rc.reached = 0;
    h->answer = answer;
}

/* A script that replays this turn's journal, then answers from `hook`. */
static void journal_script(uno_script *sc, const struct uno_search *x, uno_script_hook hook,
                           void *ctx)
{
    memset(sc, 0, sizeof *sc);
    sc->observer = -1; /* run() names the searching seat */
    sc->e = x->journal;
    sc->n = x->n_journal;
    sc->hook = hook;
    sc->ctx = ctx;
}

/* The index of the turn's first journal entry from i on that is not a declined jump-in
   (those change nothing), or x->n_journal. */
static int first_decided(const struct uno_search *x, int i)
{
    while (i < x->n_journal && x->journal[i].decision == UNO_DEC_JUMP_IN &&
           x->journal[i].answer == 0)
        i++;
    return i;
}

/*
 * The s-th state a search of seat o starts from, into x->world: under `cheat` the true
 * turn-start state, every hand as it is, with the cards still in the draw pile at the
 * decision dealt again in a random order (those the turn drew so far stay on top, so the
 * replay meets the true state at the decision); else a sample of it (determinize).  0 when
 * the sample failed.  The pile's order is the future, not the state: with the true order
 * and rollout policies that draw no random number (greedy), every sample played the same
 * future, and a challenge was chosen on that one game's luck (a legal Wild Draw Four
 * challenged because the six cards it would draw happened to win the round).
 */
static int sample_once(struct uno_search *x, const uno_game *g, int o, const uno_policy *pol,
                       const uint64_t key[4], uint64_t s)
{
    x->stats[o][UNO_SS_SAMPLES]++;
    x->mid_ready = 0;
    x->cur_o = o;
    uno_rng r;
    uno_rng_seed(&r, key, s);
    if (pol->cheat) {
        uno_game_clone(&x->world, &x->snap);
        if (!x->has_mid && x->world.bag == 0 && g->n_draw <= x->world.n_draw)
            uno_rng_shuffle_u8(&r, x->world.draw, g->n_draw); /* draw[0..n): the pile now */
        return 1;
    }
    /* Cards a seat is known not to hold in the state sampled (determinize's 8):
       E4: a seat that played a Discard All since then held no other card of its color
       (they went with it, seen);
       C-H3: under forced_play, the turn's seat that drew at the start of its turn (and
       was not made to play a replacement) held no playable card (else it could not
       have drawn). */
    const uno_game *from = x->has_mid ? &x->mid : &x->snap;
    const uno_table *t = from->t;
    uint8_t any[UNO_MAX_PLAYERS];
    memset(any, 0, sizeof any);
    for (int i = x->has_mid ? x->mid_at : 0; i < x->n_journal; i++) {
        const uno_script_entry *e = &x->journal[i];
        if (e->seat == o || e->answer < 0 || e->answer >= t->n_cards ||
            (e->decision != UNO_DEC_PLAY && e->decision != UNO_DEC_REPLACEMENT))
            continue;
        int kd = t->card_kind[from->side][e->answer], col = t->card_color[from->side][e->answer];
        if (t->effect[kd] == UNO_DISCARD_ALL && col != UNO_NO_COLOR) {
            if (!any[e->seat])
                memset(x->forbid[e->seat], 0, sizeof x->forbid[e->seat]);
            any[e->seat] = 1;
            for (int c = 0; c < t->n_cards; c++)
                x->forbid[e->seat][c] |= t->card_color[from->side][c] == col;
        }
    }
    const int p = x->snap_seat;
    if (g->cfg->forced_play && !x->has_mid && !x->snap_start && p != o) {
        const int i = first_decided(x, 0);
        const uno_script_entry *e = i < x->n_journal ? &x->journal[i] : NULL;
        const uno_script_entry *next = i + 1 < x->n_journal ? &x->journal[i + 1] : NULL;
        if (e && e->seat == p && e->decision == UNO_DEC_PLAY && e->answer == UNO_DRAW &&
            !(next && next->seat == p && next->decision == UNO_DEC_REPLACEMENT)) {
            if (!any[p])
                memset(x->forbid[p], 0, sizeof x->forbid[p]);
            any[p] = 1;
            for (int c = 0; c < t->n_cards; c++)
                x->forbid[p][c] |= (uint8_t)uno_playable(&x->snap, c);
        }
    }
    const uint8_t *forbid = &x->forbid[0][0]; /* [seat * UNO_MAX_CARDS + card] */
    if (x->has_mid) { /* the true turn start, and a sample of the state after the event */
        if (determinize(&x->mid, g, o, forbid, any, x->mid_pile, &r, &x->mid_world)) {
            uno_game_clone(&x->world, &x->snap);
            x->mid_ready = 1;
            return 1;
        }
    } else if (determinize(&x->snap, g, o, forbid, any, 0, &r, &x->world)) {
        return 1;
    }
    x->stats[o][UNO_SS_DROPPED]++;
    return 0;
}

static void voids_contradicted(struct uno_search *x, int o, uno_rng *r, int bluffs, int *k);
static double infer_logw(struct uno_search *x, int o, const uno_policy *pol, uno_rng *r,
                         int ratio);

/*
 * The s-th state a search of seat o starts from (sample_once), read against the
 * opponents' draws and named colors of the round under `voids` or `colors` below 1
 * (search.c "Voids"): a state that contradicts k draws and j colors is kept with
 * probability voids^k colors^j, else the state is dealt again (candidate i of state s:
 * s + i * 2^40), up to VOIDS_TRIES candidates, the last one kept whatever it contradicts.
 * Under `resample` (with infer) a state is also kept only with probability its infer
 * likelihood over the highest any state could have (each decision's softmax at its answer
 * over its largest), instead of being weighed by it.  Each candidate counts as a sample.
 * The draws and colors, and the likelihood, each choose which of a sampled hand's cards
 * were gained since on their own (from the same stream, one after the other): the filter
 * is the product of the two readings' chances, an approximation of their joint one.
 */
static int sample_world(struct uno_search *x, const uno_game *g, int o, const uno_policy *pol,
                        const uint64_t key[4], uint64_t s)
{
    const int resample = pol->resample && pol->infer > 0.0;
    if (pol->cheat || !(pol->voids < 1.0 || pol->colors < 1.0 || pol->bluffs < 1.0 || resample))
        return sample_once(x, g, o, pol, key, s);
    const uint64_t keyv[4] = {key[0], UINT64_C(0x5345415243480004), key[2], 4};
    int got = 0;
    for (int j = 0; j < VOIDS_TRIES; j++) {
        const uint64_t sj = s + ((uint64_t)j << 40);
        if (!sample_once(x, g, o, pol, key, sj))
            continue;
        got = 1;
        uno_rng r;
        uno_rng_seed(&r, keyv, sj);
        int k[3] = {0, 0, 0}, keep = 1;
        voids_contradicted(x, o, &r, pol->bluffs < 1.0, k);
        for (int i = 0; i < k[0] && keep; i++)
            keep = uno_rng_bernoulli(&r, pol->voids);
        for (int i = 0; i < k[1] && keep; i++)
            keep = uno_rng_bernoulli(&r, pol->colors);
        for (int i = 0; i < k[2] && keep; i++)
            keep = uno_rng_bernoulli(&r, pol->bluffs);
        if (keep && resample) {
            const double lw = infer_logw(x, o, pol, &r, 1);
            keep = lw > -1e299 && uno_rng_bernoulli(&r, s_exp(lw));
        }
        if (keep)
            return 1;
    }
    return got;
}

/*
 * The index of the answer to play among the m answers, or -1 when every sample was
 * dropped.  Each sampled state gives every answer the same rollout streams (common
 * random numbers), so answers are compared sample by sample: the answer with the best
 * mean is played only when its mean lead over the anchor's answer `def` (the rollout
 * policy's, or the policy `anchor` names) is above `z` standard errors of that paired
 * difference (by default 1.645, one-sided 95%); else `def` is.  A single game's outcome
 * is a noisy measure of one decision, and without this guard the noise alone picks a weak
 * answer (a draw instead of a play) about once in m decisions.
 */

/* The searched decision's statistics for the recorder's tap: per answer its total value
   over `weight` (its rollouts, or their total weight under infer) and its rollouts. */
static void report(struct uno_search *x, const int *ans, int m, const double *total,
                   const double *weight, const int *n)
{
    if (!x->tap)
        return;
    uno_search_report *r = &x->rep;
    r->m = m;
    for (int a = 0; a < m; a++) {
        r->ans[a] = ans[a];
        r->count[a] = n[a];
        r->value[a] = n[a] > 0 && weight[a] > 0.0 ? total[a] / weight[a] : 0.0;
    }
    x->rep_ok = 1;
}

/* The paired differences of each answer's value against def's on one sampled state. */
static void paired_add(const double *v, int m, int def, double *d1, double *d2)
{
    for (int a = 0; a < m; a++) {
        double d = v[a] - v[def];
        d1[a] += d;
        d2[a] += d * d;
    }
}

/*
 * pimc's rule: the answer with the best `score` (def first among equals), if its paired
 * lead over def (d1, d2: sums of the differences and of their squares over `kept`
 * sampled states) exceeds z standard errors (the seat's `z`); else def.  -1: no state
 * was kept.
 */
static int paired_rule(const double *score, const double *d1, const double *d2, int kept,
                       int m, int def, double z)
{
    if (!kept)
        return -1;
    int best = def;
    for (int a = 0; a < m; a++)
        if (score[a] > score[best])
            best = a;
    if (best != def) { /* the paired lead over def, in standard errors */
        double mean = d1[best] / kept, var = kept > 1 ? (d2[best] - kept * mean * mean) / (kept - 1) : 0.0;
        double se = s_sqrt(var > 0.0 ? var / kept : 0.0);
        if (!(kept > 1 && mean > z * se))
            best = def;
    }
    return best;
}

/* ------------------------------------------------------------------------- */
/* Inference                                                                  */
/* ------------------------------------------------------------------------- */

/*
 * infer = T > 0 (pimc, and ismcts with c = 0): each sampled state is weighted by the
 * likelihood of the opponents' latest decisions of the round (up to INFER_POINTS, before
 * the snapshot the state is sampled at) under the seat's network: the product over them
 * of softmax(logits / T) at the answer given, each evaluated on the decision's state with
 * the opponent's hand as the sampled state implies it (policy-based inference, as in Skat
 * search).  That hand is rebuilt without reading anything hidden:
 *   held then = (held in the sample) less the d cards it gained since (a random d of its
 *   sampled hand, nested: one random order per opponent and sample) plus the cards it lost
 *   since (each seen going to the discard pile: public),
 * d the public count (its hand sizes and those losses).  A point is used only if every
 * card that left the opponent's hand since went to the discard pile in view (infer_check
 * keeps, per seat, the decision count from which that holds), only in the round and on
 * the side of the sample, never a decision the searching seat could not see being asked
 * (a declined jump-in, stack or drawn card: search.c private_kind), and with the
 * opponent's challenge view of another seat's hand blanked.  An answer the rebuilt hand
 * could not give weighs the state 0.  The weights multiply each state's values (pimc's
 * paired rule on the weighted differences, with their effective number of states).
 */

/* Each seat's hand since the last decision: a card that left it for anywhere but the
   discard pile closes its points kept so far; a new side or round closes them all. */
static void infer_check(struct uno_search *x, const uno_game *g)
{
    if (g->side != x->inf_side || g->rounds != x->inf_rounds) {
        x->inf_n = x->inf_next = 0;
        x->inf_side = g->side;
        x->inf_rounds = g->rounds;
        for (int q = 0; q < g->n; q++) {
            x->inf_hand[q] = g->hand[q];
            x->inf_from[q] = x->seen;
        }
        return;
    }
    for (int q = 0; q < g->n; q++) {
        uno_hand left;
        int any = 0;
        for (int i = 0; i < UNO_HAND_WORDS; i++) {
            left.w[i] = x->inf_hand[q].w[i] & ~g->hand[q].w[i];
            any |= left.w[i] != 0;
        }
        if (any) {
            UNO_BITS_FOR(left, r) {
                int c = uno_card_at(g, r), seen = 0;
                for (int i = 0; i < g->n_discard && !seen; i++)
                    seen = g->discard[i] == c;
                if (!seen)
                    x->inf_from[q] = x->seen;
            }
        }
        x->inf_hand[q] = g->hand[q];
    }
}

/* Keeps a decision and its state (the real game's, before the answer is applied). */
static void infer_keep(struct uno_search *x, const uno_game *g, int seat, int decision, int arg,
                       int ans)
{
    if (decision == UNO_DEC_FORGET_UNO || decision == UNO_DEC_CATCH ||
        ((decision == UNO_DEC_JUMP_IN || decision == UNO_DEC_STACK ||
          decision == UNO_DEC_PLAY_DRAWN) && ans == decline(decision)))
        return; /* little to learn, or asked unseen */
    infer_point *p = &x->inf[x->inf_next];
    p->seat = seat;
    p->decision = decision;
    p->arg = arg;
    p->answer = ans;
    p->seen = x->seen;
    uno_game_clone(&x->inf_state[x->inf_next], g);
    x->inf_next = (x->inf_next + 1) % INFER_KEEP;
    if (x->inf_n < INFER_KEEP)
        x->inf_n++;
}

/* log of a sum of exp(z[i]) over the n entries, in double. */
static double log_sum_exp(const double *z, int n)
{
    double top = z[0], s = 0.0;
    for (int i = 1; i < n; i++)
        top = z[i] > top ? z[i] : top;
    for (int i = 0; i < n; i++)
        s += s_exp(z[i] - top);
    return top + s_log(s);
}

/* The ring's k-th latest kept decision (0: the latest). */
static int infer_at(const struct uno_search *x, int k)
{
    return (x->inf_next - 1 - k + 2 * INFER_KEEP) % INFER_KEEP;
}

/* Whether kept point p (at slot `at`) of another seat than o can be read in the sampled
   state: before the snapshot the state is sampled at (t_seen), after the last card left
   its seat's hand unseen, in the sample's round and side. */
static int infer_usable(const struct uno_search *x, int o, int at, const uno_game *W,
                        int64_t t_seen)
{
    const infer_point *p = &x->inf[at];
    const uno_game *C = &x->inf_state[at];
    return p->seat != o && p->seen < t_seen && p->seen >= x->inf_from[p->seat] &&
           C->side == W->side && C->rounds == W->rounds;
}

/*
 * The hand seat q held at kept point `at` as the sampled state W implies it, into h:
 * W's hand less the d cards it gained since (a random d of it, nested: one random order
 * of each seat's sampled hand per state, drawn from `r` at the seat's first point, in
 * n_order / order) plus the cards it lost since (each seen going to the discard pile:
 * public), d the public count.  0 when the counts cannot be reconciled.
 */
static int held_then(const struct uno_search *x, int at, const uno_game *T, const uno_game *W,
                     int *n_order, uint8_t (*order)[UNO_HAND_CAP], uno_rng *r, uno_hand *h)
{
    const int q = x->inf[at].seat;
    const uno_game *C = &x->inf_state[at];
    uno_hand lost;
    int n_lost = 0;
    for (int i = 0; i < UNO_HAND_WORDS; i++) {
        lost.w[i] = C->hand[q].w[i] & ~T->hand[q].w[i];
        n_lost += uno_popcount64(lost.w[i]);
    }
    const int d = T->hand_n[q] - C->hand_n[q] + n_lost; /* cards gained since */
    if (d < 0 || d > W->hand_n[q])
        return 0;
    if (n_order[q] < 0) {
        n_order[q] = 0;
        UNO_BITS_FOR(W->hand[q], rk)
            order[q][n_order[q]++] = (uint8_t)rk;
        uno_rng_shuffle_u8(r, order[q], n_order[q]);
    }
    *h = W->hand[q];
    for (int j = 0; j < d; j++)
        h->w[order[q][j] >> 6] &= ~(UINT64_C(1) << (order[q][j] & 63));
    for (int i = 0; i < UNO_HAND_WORDS; i++)
        h->w[i] |= lost.w[i];
    return 1;
}

/* The log likelihood of the opponents' latest usable decisions in the sampled state (x's
   world, or mid_world), or -1e300 when an answer could not have been given there; `r`
   draws which of an opponent's sampled cards it gained since each decision.  `ratio`:
   each decision's probability taken over the highest of its answers' (at most 0). */
static double infer_logw(struct uno_search *x, int o, const uno_policy *pol, uno_rng *r,
                         int ratio)
{
    const uno_game *T = x->has_mid ? &x->mid : &x->snap;
    const uno_game *W = x->mid_ready ? &x->mid_world : &x->world;
    const int64_t t_seen = x->has_mid ? x->mid_seen : x->snap_seen;
    const uno_net *net = pol->net;
    int n_order[UNO_MAX_PLAYERS];
    uint8_t order[UNO_MAX_PLAYERS][UNO_HAND_CAP]; /* ranks of each sampled hand, shuffled */
    for (int q = 0; q < T->n; q++)
        n_order[q] = -1;
    double logw = 0.0;
    for (int k = 0, used = 0; k < x->inf_n && used < INFER_POINTS; k++) {
        const int at = infer_at(x, k);
        const infer_point *p = &x->inf[at];
        const int q = p->seat;
        uno_hand h;
        if (!infer_usable(x, o, at, W, t_seen) || !held_then(x, at, T, W, n_order, order, r, &h))
            continue;
        uno_game *C = &x->inf_state[at];
        /* the decision's state with that hand, the opponent's view of a challenged hand
           blanked (it is not the searching seat's to see) */
        const uno_hand keep = C->hand[q];
        const int keep_from = C->reveal_from[q];
        C->hand[q] = h;
        if (keep_from >= 0 && keep_from != o)
            C->reveal_from[q] = -1;
        uno_obs_layout L;
        float obs[UNO_NET_MAX_OBS], logits[UNO_NET_MAX_ACTIONS];
        int8_t mask[UNO_NET_MAX_ACTIONS];
        int16_t kind_index[UNO_MAX_KINDS];
        L = net->L;
        uno_obs_scale_env(&L, C->cfg->target, C->t->n_cards);
        uno_observe(C, &L, q, p->decision, p->arg, obs, mask, kind_index);
        const int a = uno_action_id(C, &L, q, p->decision, p->answer);
        C->hand[q] = keep;
        C->reveal_from[q] = keep_from;
        used++;
        if (a < 0 || a >= L.n_actions || !mask[a])
            return -1e300; /* this state's hand could not have given that answer */
        double z[UNO_NET_MAX_ACTIONS], za = 0.0, zmax = -1e300;
        int n = 0;
        uno_net_forward(net, obs, logits, NULL);
        for (int b = 0; b < L.n_actions; b++)
            if (mask[b]) {
                z[n] = (double)logits[b] / pol->infer;
                if (b == a)
                    za = z[n];
                zmax = z[n] > zmax ? z[n] : zmax;
                n++;
            }
        logw += ratio ? za - zmax : za - log_sum_exp(z, n);
    }
    return logw;
}

/* Whether the restricted card played at the ring's k-th latest decision was challenged
   afterwards, in its turn: the challenge's outcome showed whether it was a bluff (C12) to
   every seat. */
static int bluff_challenged(const struct uno_search *x, int k)
{
    for (int j = k - 1; j >= 0; j--) {
        const infer_point *p = &x->inf[infer_at(x, j)];
        if (p->decision == UNO_DEC_PLAY)
            return 0; /* the next turn */
        if (p->decision == UNO_DEC_CHALLENGE && p->answer != 0)
            return 1;
    }
    return 0;
}

/* The sampled state's opponents' bluffs of the turn under way: its first decision (the
   declined jump-ins aside), when another seat than o played a restricted card (C7; UNO
   Flip's, F4) then, unchallenged so far, with the hand the state gives it at the turn's
   start (or at mid, after the turn's last event) holding a card of the active color. */
static int bluffs_now(const struct uno_search *x, int o, const uno_game *W)
{
    const int i = first_decided(x, x->has_mid ? x->mid_at : 0);
    if (i >= x->n_journal)
        return 0;
    const uno_script_entry *e = &x->journal[i];
    if (e->seat == o || e->decision != UNO_DEC_PLAY || e->answer < 0 ||
        e->answer >= W->t->n_cards || !uno_restricted(W, e->answer))
        return 0;
    for (int j = i + 1; j < x->n_journal; j++)
        if (x->journal[j].decision == UNO_DEC_CHALLENGE && x->journal[j].answer != 0)
            return 0; /* its outcome was seen */
    return uno_holds_color(W, e->seat);
}

/*
 * Voids: how many of the opponents' draws (k[0]) and named colors (k[1]) of the round
 * the sampled state contradicts, and how many of their restricted cards it makes bluffs
 * (k[2]).  A draw is an opponent's play decision answered by
 * drawing (C8), a named color its answer to a color decision (C9), each kept and usable
 * as for inference (infer_usable: the whole round's ring, not only its latest
 * INFER_POINTS).  With the hand the state gives the opponent then (held_then, from `r`),
 * the state contradicts a draw when that hand held a card it could legally have played
 * instead (uno_legal_actions, the Wild Draw Four included), and a named color when that
 * hand held fewer cards of it than of another color of the side.  Players who play when
 * they can (greedy, the searches) draw only with no such card, and greedy names the color
 * it holds most.  A restricted card played unchallenged (a challenge shows the truth to
 * every seat, C12) is a bluff in the state when that hand held a card of the color then
 * active (C7; UNO Flip, F4), in an earlier turn of the round or in the turn under way
 * (bluffs_now): what `bluffs` reads, counted only when `bluffs` is set (a rebuilt hand
 * draws from `r`: unread, they leave the other readings' draws as they were).
 */
static void voids_contradicted(struct uno_search *x, int o, uno_rng *r, int bluffs, int *k)
{
    const uno_game *T = x->has_mid ? &x->mid : &x->snap;
    const uno_game *W = x->mid_ready ? &x->mid_world : &x->world;
    const int64_t t_seen = x->has_mid ? x->mid_seen : x->snap_seen;
    int n_order[UNO_MAX_PLAYERS];
    uint8_t order[UNO_MAX_PLAYERS][UNO_HAND_CAP];
    for (int q = 0; q < T->n; q++)
        n_order[q] = -1;
    for (int i = 0; i < x->inf_n; i++) {
        const int at = infer_at(x, i);
        const infer_point *p = &x->inf[at];
        uno_game *C = &x->inf_state[at];
        const int draw = p->decision == UNO_DEC_PLAY && p->answer == UNO_DRAW;
        const int named = p->decision == UNO_DEC_COLOR;
        const int wild4 = bluffs && p->decision == UNO_DEC_PLAY && p->answer >= 0 &&
                          p->answer < C->t->n_cards && uno_restricted(C, p->answer) &&
                          !bluff_challenged(x, i);
        uno_hand h;
        if (!(draw || named || wild4) || !infer_usable(x, o, at, W, t_seen) ||
            !held_then(x, at, T, W, n_order, order, r, &h))
            continue;
        const uno_hand keep = C->hand[p->seat];
        C->hand[p->seat] = h;
        if (wild4) {
            k[2] += uno_holds_color(C, p->seat);
        } else if (named) { /* the engine's own count, the one greedy names a color by */
            int cnt[4];
            uno_color_counts(C, p->seat, cnt);
            const int c = p->answer - 4 * C->side;
            k[1] += c >= 0 && c < 4 && cnt[c] < cnt[uno_best_color(cnt)];
        } else {
            int32_t acts[UNO_MAX_ACTIONS];
            const int n = uno_legal_actions(C, p->seat, p->decision, p->arg, acts);
            int j = 0;
            while (j < n && acts[j] == UNO_DRAW)
                j++;
            k[0] += j < n;
        }
        C->hand[p->seat] = keep;
    }
    if (bluffs)
        k[2] += bluffs_now(x, o, W);
}

/*
 * The weights of the n_states states a search of seat o samples (w[s], 0 for a state
 * that cannot be built or could not have given the answers seen), scaled so that the
 * largest is 1; the samples are drawn again by the search itself (the same ones: seeded
 * by (key, s)).
 */
static void infer_weights(struct uno_search *x, const uno_game *g, int o, const uno_policy *pol,
                          const uint64_t key[4], int n_states, double *w)
{
    int64_t keep[UNO_SEARCH_STATS];
    memcpy(keep, x->stats[o], sizeof keep); /* counted when the search draws them */
    const uint64_t key3[4] = {key[0], UINT64_C(0x5345415243480003), key[2], 3};
    double top = -1e300;
    for (int s = 0; s < n_states; s++) {
        w[s] = -1e300;
        if (!sample_world(x, g, o, pol, key, (uint64_t)s))
            continue;
        uno_rng r;
        uno_rng_seed(&r, key3, (uint64_t)s);
        w[s] = infer_logw(x, o, pol, &r, 0);
        top = w[s] > top ? w[s] : top;
    }
    memcpy(x->stats[o], keep, sizeof keep);
    for (int s = 0; s < n_states; s++)
        w[s] = top > -1e299 && w[s] > -1e299 ? s_exp(w[s] - top) : 0.0;
}

/* pimc's rule (paired_rule) on weighted paired differences: d1, d2 the sums of w d and
   w d^2, w1 and w2 of the weights and of their squares. */
static int paired_rule_w(const double *score, const double *d1, const double *d2, double w1,
                         double w2, int m, int def, double z)
{
    if (!(w1 > 0.0))
        return -1;
    int best = def;
    for (int a = 0; a < m; a++)
        if (score[a] > score[best])
            best = a;
    if (best != def) {
        double mean = d1[best] / w1, var = d2[best] / w1 - mean * mean;
        double n_eff = w1 * w1 / w2;
        double se = n_eff > 1.0 && var > 0.0 ? s_sqrt(var / (n_eff - 1.0)) : 0.0;
        if (!(n_eff > 1.0 && mean > z * se))
            best = def;
    }
    return best;
}

/* The stop flag (uno.h "Stopping a long call"), read between samples and rollouts: a
   search that sees it returns SEARCH_STOPPED, and search_decide ends the game. */
#define SEARCH_STOPPED (-2)

static int stop_now(const struct uno_search *x)
{
    return x->stoppable && UNO_STOP_REQUESTED();
}

static int pimc(struct uno_search *x, uno_game *g, int o, int decision, int arg, const int *ans,
                int m, int def, const uint64_t key[4], const uint64_t key2[4])
{
    const uno_policy *pol = &x->orig[o];
    uno_policy after[UNO_MAX_PLAYERS];
    rollout_policies(x, o, after);
    leaf_arm(x, o, after);
    double sum[UNO_MAX_ACTIONS], tmp[UNO_MAX_ACTIONS], d1[UNO_MAX_ACTIONS], d2[UNO_MAX_ACTIONS];
    double wr[UNO_MAX_ACTIONS];
    int n_rep[UNO_MAX_ACTIONS];
    for (int a = 0; a < m; a++)
        sum[a] = d1[a] = d2[a] = 0.0;
    int kept = 0;
    double w1 = 0.0, w2 = 0.0, *wt = NULL; /* infer: the states' weights */
    if (pol->infer > 0.0 && !pol->resample) {
        wt = (double *)malloc((size_t)pol->samples * sizeof *wt);
        if (!wt)
            return -1;
        infer_weights(x, g, o, pol, key, pol->samples, wt);
    }
    pimc_hook h;
    uno_script sc;
    journal_script(&sc, x, pimc_answer, &h);
    h.after = after;
    for (int s = 0; s < pol->samples; s++) {
        if (stop_now(x)) {
            free(wt); /* infer's weights, or NULL */
            return SEARCH_STOPPED;
        }
        if ((wt && !(wt[s] > 0.0)) || !sample_world(x, g, o, pol, key, (uint64_t)s))
            continue;
        int ok = 1;
        for (int a = 0; a < m; a++)
            tmp[a] = 0.0;
        for (int k = 0; k < pol->rollouts && ok; k++) {
            if (stop_now(x)) {
                free(wt);
                return SEARCH_STOPPED;
            }
            for (int a = 0; a < m && ok; a++) {
                uno_game_clone(&x->sim, &x->world);
                reseed(&x->sim, key2, (uint64_t)s * (uint64_t)pol->rollouts + (uint64_t)k);
                hook_arm(&h, g, o, decision, arg, ans[a]);
                double v = 0.0;
                ok = run(x, &sc, &h.rc, pol->value, &v);
                tmp[a] += v;
            }
        }
        if (!ok)
            continue;
        kept++;
        if (wt) { /* the state's weight on its values and paired differences */
            const double ws = wt[s];
            for (int a = 0; a < m; a++) {
                double d = tmp[a] - tmp[def];
                sum[a] += ws * tmp[a];
                d1[a] += ws * d;
                d2[a] += ws * d * d;
            }
            w1 += ws;
            w2 += ws * ws;
            continue;
        }
        for (int a = 0; a < m; a++)
            sum[a] += tmp[a];
        paired_add(tmp, m, def, d1, d2);
    }
    for (int a = 0; a < m; a++) {
        n_rep[a] = kept * pol->rollouts;
        wr[a] = (wt ? w1 : kept) * pol->rollouts;
    }
    report(x, ans, m, sum, wr, n_rep);
    if (!wt)
        return paired_rule(sum, d1, d2, kept, m, def, pol->z);
    free(wt);
    return paired_rule_w(sum, d1, d2, w1, w2, m, def, pol->z);
}

/* ------------------------------------------------------------------------- */
/* ismcts                                                                     */
/* ------------------------------------------------------------------------- */

/*
 * Information-set Monte Carlo search, one node deep: the statistics are those of the
 * decision's information set (every state o cannot tell from the true one shares them),
 * `iterations` rollouts in all, each on a sampled state (determinize) with the turn
 * replayed, one answer taken at the decision and every seat by the rollout policy
 * after it.  At depth 1 (the default) o's later decisions have no nodes of their own:
 * a tree of them (depth > 1, below; keyed by what o observes there, grown one node per
 * iteration, UCB at every node) played worse than the rollout policy there
 * (benchmarks/results.md, "ismcts").
 *   c == 0 (the default): the answers share each sampled state, every answer once on it
 *     with the same rollout streams (ceil(iterations / m) states; common random
 *     numbers), and the answer is chosen by pimc's rule (the best mean, if it leads the
 *     anchor's answer `def` by z paired standard errors; else `def`).
 *   c > 0: UCB1, one state per iteration: an answer not yet taken first (in legal
 *     order), else the best mean value plus c * sqrt(ln(iterations so far) / visits);
 *     the most visited answer is played.  Values from different states are not paired,
 *     so no guard: a guard on their unpaired standard error almost never let the search
 *     leave `def` (3 decisions in 1000).
 */
static int ucb_pick(const int *n, const double *w, int m, int total, double c)
{
    int best = -1;
    double best_s = 0.0;
    for (int a = 0; a < m; a++) {
        if (n[a] == 0)
            return a;
        double s = w[a] / n[a] + c * s_sqrt(s_log((double)total) / n[a]);
        if (best < 0 || s > best_s) {
            best = a;
            best_s = s;
        }
    }
    return best;
}

/*
 * depth > 1: a single-observer ISMCTS tree below the root, over o's own later decisions
 * (up to depth - 1 levels).  A node is keyed by its parent, the answer that led to it
 * and what o observes there (the decision, its own hand, the top card, the color, the
 * direction, the side, every hand's size, the draw pile's size): states that differ
 * only in cards o cannot see share it.  An iteration answers at the root by UCB1 (as
 * c > 0 above), then at each of o's decisions with a node: the rollout policy's answer
 * until the node has been visited twice per legal answer, then UCB (mean value plus
 * c * sqrt(ln(availability) / visits), availability counting the iterations in which the
 * answer was legal there; an answer not yet taken first); it adds one node (and plays
 * the rollout policy after it), and backs the value up its path.  The other seats play
 * the rollout policy throughout.
 */
typedef struct tree_iter {
    pimc_hook h; /* the root's answer; h.after: the rollout policies */
    struct uno_search *x;
    uno_policy tree_pol[UNO_MAX_PLAYERS]; /* o by tree_decide, the others by h.after */
    double c;
    int levels;   /* nodes a path holds below the root at most (depth - 1) */
    uint64_t key; /* the key of the node just left, with its answer */
    int depth;
    int path_node[TREE_DEPTH], path_act[TREE_DEPTH];
} tree_iter;

#define TREE_GOLDEN UINT64_C(0x9E3779B97F4A7C15)

static uint64_t observe(const uno_game *g, int o, int decision, int arg)
{
    uint64_t h = uno_rng_mix((uint64_t)decision * 131u + (uint64_t)(uint32_t)arg);
    for (int i = 0; i < UNO_HAND_WORDS; i++)
        h = uno_rng_mix(h ^ g->hand[o].w[i]);
    h = uno_rng_mix(h ^ ((uint64_t)g->discard[g->n_discard - 1] << 8) ^
                    ((uint64_t)(g->color + 1) << 16) ^ ((uint64_t)(g->direction + 1) << 24) ^
                    ((uint64_t)g->side << 28) ^ ((uint64_t)g->n_draw << 32));
    for (int q = 0; q < g->n; q++)
        h = uno_rng_mix(h ^ ((uint64_t)g->hand_n[q] << (8 * (q & 3))) ^ (uint64_t)q << 40);
    return h;
}

/* The node of `key`, or a new one (*created) with the answers ans[0..m); -1: no room. */
static int tree_node_for(struct uno_search *x, uint64_t key, const int *ans, int m, int *created)
{
    uint32_t mask = (uint32_t)x->slots - 1, i = (uint32_t)key & mask;
    *created = 0;
    for (;; i = (i + 1) & mask) {
        int32_t at = x->slot[i];
        if (at < 0)
            break;
        if (x->nodes[at].key == key)
            return at;
    }
    if (x->used >= x->cap)
        return -1;
    int at = x->used++;
    tree_node *nd = &x->nodes[at];
    nd->key = key;
    nd->m = m < TREE_ACTIONS ? m : TREE_ACTIONS;
    for (int a = 0; a < nd->m; a++) {
        nd->ans[a] = ans[a];
        nd->n[a] = nd->avail[a] = 0;
        nd->w[a] = 0.0;
    }
    x->slot[i] = at;
    *created = 1;
    return at;
}

/* An empty tree with room for `cap` nodes; 0: out of memory. */
static int tree_alloc(struct uno_search *x, int cap)
{
    if (x->cap < cap) {
        free(x->nodes);
        free(x->slot);
        x->nodes = (tree_node *)malloc((size_t)cap * sizeof *x->nodes);
        int slots = 1;
        while (slots < 2 * cap)
            slots *= 2;
        x->slot = (int32_t *)malloc((size_t)slots * sizeof *x->slot);
        if (!x->nodes || !x->slot) {
            free(x->nodes);
            free(x->slot);
            x->nodes = NULL;
            x->slot = NULL;
            x->cap = 0;
            return 0;
        }
        x->cap = cap;
        x->slots = slots;
    }
    x->used = 0;
    memset(x->slot, -1, (size_t)x->slots * sizeof *x->slot);
    return 1;
}

static int legal_answers(const uno_game *g, int o, int decision, int arg, int *ans);

/* One of o's decisions below the root: its answer (an engine answer). */
static int tree_step(tree_iter *it, uno_game *g, int decision, int arg)
{
    struct uno_search *x = it->x;
    const int o = it->h.rc.o;
    if (decision == UNO_DEC_FORGET_UNO)
        return 0; /* a search player never forgets UNO */
    int ans[UNO_MAX_ACTIONS];
    int m = legal_answers(g, o, decision, arg, ans);
    if (m == 1)
        return ans[0];
    uint64_t key = uno_rng_mix(it->key ^ observe(g, o, decision, arg));
    int created = 0;
    int at = it->depth < it->levels ? tree_node_for(x, key, ans, m, &created) : -1;
    if (at < 0) { /* below the depth, or no room: the rollout policy from here on */
        g->pol = it->h.after;
        return dispatch(g, it->h.after, o, decision, arg);
    }
    tree_node *nd = &x->nodes[at];
    int legal[TREE_ACTIONS], nl = 0, visits = 0;
    for (int a = 0; a < nd->m; a++) {
        visits += nd->n[a];
        for (int j = 0; j < m; j++)
            if (ans[j] == nd->ans[a]) {
                legal[nl++] = a;
                nd->avail[a]++;
                break;
            }
    }
    int pick = -1;
    if (visits < 2 * nl) { /* young: the rollout policy's answer */
        int own = dispatch(g, it->h.after, o, decision, arg);
        for (int j = 0; j < nl; j++)
            if (nd->ans[legal[j]] == own)
                pick = legal[j];
        if (pick < 0) { /* not among the node's answers: leave the tree */
            g->pol = it->h.after;
            return own;
        }
    } else {
        double best_s = 0.0;
        for (int j = 0; j < nl; j++) {
            int a = legal[j];
            if (nd->n[a] == 0) {
                pick = a; /* an answer not yet taken first, in legal order */
                break;
            }
            double s = nd->w[a] / nd->n[a] + it->c * s_sqrt(s_log((double)nd->avail[a]) / nd->n[a]);
            if (pick < 0 || s > best_s) {
                pick = a;
                best_s = s;
            }
        }
        if (pick < 0) { /* none of the node's answers is legal here (a key collision) */
            g->pol = it->h.after;
            return dispatch(g, it->h.after, o, decision, arg);
        }
    }
    it->path_node[it->depth] = at;
    it->path_act[it->depth++] = pick;
    it->key = uno_rng_mix(key + (uint64_t)(nd->ans[pick] + 2) * TREE_GOLDEN);
    if (created)
        g->pol = it->h.after; /* one new node per iteration */
    return nd->ans[pick];
}

/* The root of a tree iteration: its answer, then o by tree_decide. */
static int tree_root(void *ctx, uno_game *g, int seat, int decision, int arg)
{
    tree_iter *it = (tree_iter *)ctx;
    if (!at_root(&it->h.rc, g, seat, decision, arg))
        longjmp(*g->bail, 1);
    it->h.rc.reached = 1;
    it->key = uno_rng_mix((uint64_t)(it->h.answer + 2) * TREE_GOLDEN);
    g->pol = it->tree_pol;
    return it->h.answer;
}

/* o's decisions below the root (a user policy's callback: a user answer). */
static int tree_decide(void *ctx, uno_game *g, int seat, int decision, int arg)
{
    tree_iter *it = (tree_iter *)ctx;
    return user_answer(g, seat, decision, tree_step(it, g, decision, arg));
}

static int ismcts(struct uno_search *x, uno_game *g, int o, int decision, int arg, const int *ans,
                  int m, int def, const uint64_t key[4], const uint64_t key2[4])
{
    const uno_policy *pol = &x->orig[o];
    uno_policy after[UNO_MAX_PLAYERS];
    rollout_policies(x, o, after);
    leaf_arm(x, o, after);
    int n[UNO_MAX_ACTIONS];
    double w[UNO_MAX_ACTIONS], tmp[UNO_MAX_ACTIONS], d1[UNO_MAX_ACTIONS], d2[UNO_MAX_ACTIONS];
    for (int a = 0; a < m; a++) {
        n[a] = 0;
        w[a] = d1[a] = d2[a] = 0.0;
    }
    const int tree = pol->depth > 1; /* c > 0 (uno_config_check) */
    tree_iter it;
    memset(&it, 0, sizeof it);
    pimc_hook *hp = &it.h;
    uno_script sc;
    journal_script(&sc, x, tree ? tree_root : pimc_answer, tree ? (void *)&it : (void *)hp);
    it.h.after = after;
    if (tree) {
        if (!tree_alloc(x, pol->iterations))
            return -1;
        it.x = x;
        it.c = pol->c;
        it.levels = pol->depth - 1;
        for (int s = 0; s < g->n; s++)
            it.tree_pol[s] = after[s];
        memset(&it.tree_pol[o], 0, sizeof it.tree_pol[o]);
        it.tree_pol[o].id = UNO_POLICY_USER;
        it.tree_pol[o].challenge_threshold = 0.5;
        it.tree_pol[o].suspect = -1;
        it.tree_pol[o].decide = tree_decide;
        it.tree_pol[o].ctx = &it;
    }
    const int paired = !(pol->c > 0.0);
    const int states = paired ? (pol->iterations + m - 1) / m : pol->iterations;
    int kept = 0, total = 0;
    double w1 = 0.0, w2 = 0.0, wn[UNO_MAX_ACTIONS], *wt = NULL; /* infer (c = 0): weights */
    if (paired && pol->infer > 0.0 && !pol->resample) {
        wt = (double *)malloc((size_t)states * sizeof *wt);
        if (!wt)
            return -1;
        infer_weights(x, g, o, pol, key, states, wt);
    }
    for (int a = 0; a < m; a++)
        wn[a] = 0.0;
    for (int s = 0; s < states; s++) {
        if (stop_now(x)) {
            free(wt); /* infer's weights, or NULL */
            return SEARCH_STOPPED;
        }
        if ((wt && !(wt[s] > 0.0)) || !sample_world(x, g, o, pol, key, (uint64_t)s))
            continue;
        int ok = 1;
        for (int j = 0; j < (paired ? m : 1) && ok; j++) {
            int a = paired ? j : ucb_pick(n, w, m, total + 1, pol->c);
            uno_game_clone(&x->sim, &x->world);
            reseed(&x->sim, key2, (uint64_t)s);
            hook_arm(hp, g, o, decision, arg, ans[a]);
            it.depth = 0;
            double v = 0.0;
            ok = run(x, &sc, &hp->rc, pol->value, &v);
            if (ok) {
                tmp[a] = v;
                n[a]++;
                w[a] += v;
                total++;
                for (int d = 0; d < it.depth; d++) { /* the tree's path (depth > 1) */
                    tree_node *nd = &x->nodes[it.path_node[d]];
                    nd->n[it.path_act[d]]++;
                    nd->w[it.path_act[d]] += v;
                }
            }
        }
        if (paired && ok && wt) { /* the state's weight on its values and differences */
            const double ws = wt[s];
            kept++;
            for (int a = 0; a < m; a++) {
                double d = tmp[a] - tmp[def];
                w[a] += (ws - 1.0) * tmp[a]; /* taken once above at weight 1 */
                wn[a] += ws;
                d1[a] += ws * d;
                d2[a] += ws * d * d;
            }
            w1 += ws;
            w2 += ws * ws;
        } else if (paired && ok) {
            kept++;
            paired_add(tmp, m, def, d1, d2);
        }
    }
    if (!wt)
        for (int a = 0; a < m; a++)
            wn[a] = n[a];
    report(x, ans, m, w, wn, n);
    if (wt) {
        free(wt);
        return paired_rule_w(d1, d1, d2, w1, w2, m, def, pol->z);
    }
    if (paired) /* pimc's rule over the paired differences */
        return paired_rule(d1, d1, d2, kept, m, def, pol->z);
    int best = -1;
    for (int a = 0; a < m; a++) /* the most visited, the first of equals */
        if (n[a] > 0 && (best < 0 || n[a] > n[best]))
            best = a;
    return best;
}

/* ------------------------------------------------------------------------- */
/* The search player's decisions                                              */
/* ------------------------------------------------------------------------- */

/* The legal answers of o's decision as engine answers (uno_legal_actions' order). */
static int legal_answers(const uno_game *g, int o, int decision, int arg, int *ans)
{
    int32_t acts[UNO_MAX_ACTIONS];
    int m = uno_legal_actions(g, o, decision, arg, acts);
    for (int i = 0; i < m; i++) {
        int a = acts[i];
        switch (decision) {
        case UNO_DEC_PLAY:
        case UNO_DEC_REPLACEMENT:
        case UNO_DEC_STACK:
        case UNO_DEC_DISCARD:
            ans[i] = a == UNO_DRAW ? UNO_DRAW : uno_hand_card(g, o, a >> 1);
            break;
        default:
            ans[i] = a;
        }
    }
    return m;
}

/*
 * A decision point of the search seat being forced (uno_force, counterfactuals): the
 * search has answered `natural` (drawing its one search number as usual, so both
 * alternatives see the same streams after it).  A bluff point: 1 plays the natural answer
 * when it is a restricted card, else the first restricted card; 0 the natural answer when
 * it is honest, else the search's best honest answer (the same search over the answers
 * that are not restricted, from the same samples).  A challenge point: the forced answer.
 * The alternative that agrees with the search's own answer replays the game exactly.
 */
static int forced_search(struct uno_search *x, uno_game *g, int o, int decision, int arg,
                         const int *ans, int m, int natural, int own, const uint64_t key[4],
                         const uint64_t key2[4])
{
    uno_force *f = g->force;
    if (f->kind == UNO_CF_CHALLENGE && decision == UNO_DEC_CHALLENGE)
        return uno_cf_challenge_answer(g, o, arg & 0xff, (arg >> 8) - 1, natural);
    if (f->kind != UNO_CF_BLUFF || decision != UNO_DEC_PLAY ||
        !uno_cf_bluff_point(g, o, natural))
        return natural;
    int bluffed = natural >= 0 && uno_restricted(g, natural);
    if (f->value == bluffed)
        return natural;
    int honest[UNO_MAX_ACTIONS], h = 0, first_r = -1;
    for (int i = 0; i < m; i++) {
        if (ans[i] >= 0 && uno_restricted(g, ans[i])) {
            if (first_r < 0)
                first_r = ans[i];
        } else {
            honest[h++] = ans[i];
        }
    }
    if (f->value)
        return first_r >= 0 ? first_r : natural;
    if (h == 0)
        return natural;
    if (h == 1)
        return honest[0];
    int def = 0; /* the rollout policy's answer among the honest ones, if it is one */
    for (int i = 0; i < h; i++)
        if (honest[i] == own)
            def = i;
    int b = x->orig[o].id == UNO_POLICY_PIMC
                ? pimc(x, g, o, decision, arg, honest, h, def, key, key2)
                : ismcts(x, g, o, decision, arg, honest, h, def, key, key2);
    if (b == SEARCH_STOPPED)
        longjmp(*g->bail, UNO_BAIL_STOP);
    return b >= 0 ? honest[b] : honest[0];
}

static int search_decide(struct uno_search *x, uno_game *g, int o, int decision, int arg)
{
    const uno_policy *pol = &x->orig[o];
    if (decision == UNO_DEC_FORGET_UNO)
        return 0; /* never forgets: forgetting can only cost (C13) */
    int ans[UNO_MAX_ACTIONS];
    int m = legal_answers(g, o, decision, arg, ans);
    if (m == 1)
        return ans[0];
    /* one draw of the seat's search stream per searched decision: every sample and
       rollout derives from it, nothing from the game's own streams */
    uint64_t w = uno_dec_next(g, o, UNO_DK_SEARCH);
    if (m < 1 || !x->has_snap || x->overflow || x->snap.rounds != g->rounds ||
        (pol->value == UNO_VALUE_TABLE && g->cfg->scoring == UNO_SCORING_STANDARD &&
         !x->table && !table_build(x, o))) {
        x->stats[o][UNO_SS_FALLBACK]++;
        return dispatch(g, x->anchor, o, decision, arg);
    }
    const uint64_t key[4] = {w, UINT64_C(0x5345415243480001), (uint64_t)decision, 1};
    const uint64_t key2[4] = {w, UINT64_C(0x5345415243480002), (uint64_t)decision, 2};
    /* the anchor's answer (the rollout policy's unless `anchor` names another), its random
       draws wound back (and no decision point of a forced game counted: the search's own
       answer is the one forced below) */
    uint32_t saved[UNO_DK_SLOTS];
    memcpy(saved, g->dec_n[o], sizeof saved);
    uno_force *force = g->force;
    g->force = NULL;
    int own = dispatch(g, x->anchor, o, decision, arg), def = 0;
    g->force = force;
    memcpy(g->dec_n[o], saved, sizeof saved);
    /* cheat: o sees the offender's hand, so it knows what a challenge does (C12, F4): a
       bluff caught puts the draw on the offender instead of o (and, modern, o keeps its
       turn), a legal card challenged adds two cards to o's draw.  It challenges exactly the
       bluffs, unsearched: the search's noise could only sometimes get that wrong. */
    const int truth = pol->cheat && decision == UNO_DEC_CHALLENGE;
    if (truth)
        own = (arg >> 8) > 0 &&
              uno_bits_meet(&g->hand[arg & 0xff], uno_color_cards(g, (arg >> 8) - 1));
    for (int i = 0; i < m; i++)
        if (ans[i] == own)
            def = i;
    int best = truth                        ? def
               : pol->id == UNO_POLICY_PIMC ? pimc(x, g, o, decision, arg, ans, m, def, key, key2)
                                            : ismcts(x, g, o, decision, arg, ans, m, def, key, key2);
    if (best == SEARCH_STOPPED) /* the stop flag: the game is dropped (uno.h) */
        longjmp(*g->bail, UNO_BAIL_STOP);
    if (best < 0) {
        x->stats[o][UNO_SS_FALLBACK]++;
        return dispatch(g, x->anchor, o, decision, arg); /* forced there, if it must be */
    }
    x->stats[o][UNO_SS_SEARCHED]++;
    if (UNO_UNLIKELY(force != NULL) && force->seat == o)
        return forced_search(x, g, o, decision, arg, ans, m, ans[best], own, key, key2);
    return ans[best];
}

/* ------------------------------------------------------------------------- */
/* The fork check (uno_play_fork)                                             */
/* ------------------------------------------------------------------------- */

typedef struct fork_hook {
    root_check rc;
    int answer;
    const uno_game *real;
    const uno_policy *after;
} fork_hook;

/* The forked decision: the real answer; then the seats' own policies, with the decision
   streams where the real game's stand after it. */
static int fork_answer(void *ctx, uno_game *g, int seat, int decision, int arg)
{
    fork_hook *h = (fork_hook *)ctx;
    if (!at_root(&h->rc, g, seat, decision, arg))
        longjmp(*g->bail, 1);
    h->rc.reached = 1;
    memcpy(g->dec_n, h->real->dec_n, sizeof g->dec_n);
    g->pol = h->after;
    return h->answer;
}

/* The true state at the start of the turn, replayed to this decision, played to the end. */
static void fork_here(struct uno_search *x, uno_game *g, int seat, int decision, int arg, int ans)
{
    uno_result *res = x->fork_res;
    res->status = -1;
    if (!x->has_snap || x->overflow || x->snap.rounds != g->rounds)
        return;
    fork_hook h;
    uno_script sc;
    memset(&h, 0, sizeof h);
    journal_script(&sc, x, fork_answer, &h); /* the true state: every entry fits exactly */
    h.rc.real = g;
    h.rc.o = seat;
    h.rc.decision = decision;
    h.rc.arg = arg;
    h.answer = ans;
    h.real = g;
    h.after = x->orig;
    uno_game_clone(&x->sim, &x->snap);
    uno_game *sim = &x->sim;
    jmp_buf jb;
    sc.diverged = &jb;
    sim->bail = &jb;
    sim->search = NULL;
    sim->tr = NULL;
    sim->rows = NULL;
    sim->fast_max = sim->cfg->seven_o                    ? UNO_FAST_NO
                    : sim->cfg->stacking || sim->launcher ? UNO_FAST_WILD
                                                          : UNO_FAST_DRAW;
    uno_script_attach(sim, &sc);
    if (setjmp(jb)) {
        res->status = -2;
        return;
    }
    int w = continue_snapshot(x, sim);
    if (!h.rc.reached) {
        res->status = -3;
        return;
    }
    uno_game_finish(sim, w, res);
}

static void uno_search_fork(uno_game *g, int64_t at, uno_result *fork)
{
    g->search->fork_at = at;
    g->search->fork_res = fork;
    fork->status = -1;
}

int uno_play_fork(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                  const uint64_t key[4], uint64_t game, int64_t at, uno_result *res,
                  uno_result *fork)
{
    uno_config c = *cfg;
    c.search = &uno_search_players; /* recorded, with or without a search seat */
    return uno_play_game_fork(&c, t, pol, key, game, at, res, fork);
}

/* ------------------------------------------------------------------------- */
/* The hooks the engine calls (uno.h uno_search_hooks)                        */
/* ------------------------------------------------------------------------- */

const uno_search_hooks uno_search_players = {
    uno_search_begin, uno_search_end,   uno_search_stats, uno_search_fork,
    uno_search_turn,  uno_search_start, uno_search_event, uno_search_press,
};
