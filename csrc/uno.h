/*
 * uno.h - the C engine of uno_sim: the one header that states its API.
 *
 * The engine plays exactly the game of uno_sim/reference.py (the executable
 * specification): from the same rules, policies, seed and game number it
 * draws the same random numbers in the same order, breaks every tie the same
 * way and therefore produces the same event trace and result, event for
 * event.  Nothing here includes Python.h; uno_sim/_engine.pyx is the binding.
 *
 * Encodings
 * ---------
 * card     A physical card id 0..n_cards-1 (uint8_t; n_cards <= 255).  Its
 *          kind is table->card_kind[side][card]; a kind is one row of the deck
 *          table of uno_sim/cards.py (DeckTable.arrays()), so a variant is
 *          data, never code.
 * side     A two-faced deck (docs/rules.md F1) has n_sides = 2: side 0
 *          (light) and side 1 (dark) each map every card to a kind.  Every
 *          card shows the same side (uno_game.side); all questions about a
 *          card are asked of that side.  One-sided decks have side 0 only.
 * color    0..3 = R, Y, G, B (a one-sided deck, a light side), 4..7 = P, T, O, V (a
 *          dark side: pink, teal, orange, purple); -1 (UNO_NO_COLOR) for a wild.
 * face     the matching symbol: 0..9 numbers, 10 Skip, 11 Reverse,
 *          12 Draw Two, 13 Wild, 14 WD4, 15 +1, 16 +5, 17 Skip Everyone,
 *          18 Flip, 19 Wild Draw Two, 20 Wild Draw Color, 21 Discard All,
 *          22 Hit 2, 23 Extreme Hit, 24 Badtz-Maru, 25 hand exchange,
 *          26..31 customizable wild of rule 0..5 (cards.FACE_*).
 *          Two cards match by symbol when their faces are equal.
 * effect   uno_effect (cards.Effect); starter: uno_starter (cards.Starter);
 *          reason: uno_reason (cards.DrawReason).
 * rank     table->rank[side][card]: the card's place in the card priority
 *          order of a side (docs/policies.md "Card priority"): higher value
 *          first, then lower kind id, then lower card id.
 * hand     a uno_hand: a bitset over the ranks of the side in play (bit r set
 *          when the card of rank r is held), the engine's one representation
 *          of a hand.  Hand order (what a hand index counts, what the trace
 *          and a user policy see) is rank order; a Flip turns every hand over
 *          into the other side's ranks.  hand_n[p] counts the set bits.
 * pile     uint8_t card ids, the top card last (draw pile and discard pile).
 * seat     0..players-1, clockwise; direction +1 is clockwise ("left").
 * action   what uno_choose_play returns: a card id = play that card,
 *          UNO_DRAW (-1) = draw a card (a user policy answers a hand index,
 *          turned into the card by uno_hand_card).
 * rules    uno_config: one int per field of uno_sim.rules.Rules, enums as
 *          their index in the tuples of rules.py (DEALER_DRAW, DRAWN_CARD,
 *          CHALLENGE, SCORING, ...).
 * policy   uno_policy: policy id (policies.POLICIES: 0 random, 1 greedy,
 *          2 strategic, 3 a user's Python policy), color rule
 *          (policies.COLOR_RULES: 0 most, 1 random, 2 smart), target rule
 *          (policies.TARGET_RULES) and the probability knobs.
 *
 * Trace
 * -----
 * When a uno_trace is given, every event of reference.Game.emit (except
 * game_start and game_end, which the binding writes from the arguments and
 * the result) is appended as one fixed-size uno_event record.  Lists go to
 * the trace's int32 data array: data[off .. off+len) holds the event's lists
 * one after the other, each as its length followed by its items.
 *
 *   type              p       a         b        c        lists
 *   DEALER_DRAW       -       dealer    -        -        draws: 2*k items, seat,card pairs
 *   ROUND_START       side    round     dealer   starter  deck (top first), one hand per
 *                    (F2: the side play starts on)      seat, returned starters as
 *                                                         card + 256 * the side read
 *   PLAY              seat    card      color    legal    -    (color -1 unless a wild;
 *                                                              legal -1 unless restricted)
 *   UNO               seat    called    -        -        -
 *   CAUGHT            seat    by        -        -        -
 *   DRAW              seat    reason    -        -        cards
 *   PASS, SKIP        seat    -         -        -        -
 *   REVERSE           seat    dir       -        -        -
 *   COLOR             seat    color     -        -        -
 *   CHALLENGE         victim  target    bluff    -        target's hand
 *   TAKE_BACK         seat    card      -        -        -
 *   RESHUFFLE         -       cards     -        -        -
 *   ROUND_END         winner  round     -        -        points, one hand per seat,
 *                    (-1: stalemate)                      scores, eliminated,
 *                                                         team_scores (teams only)
 *   FLIP              seat    side      top      -        -    (seat -1: the F2 switch's
 *                                                              starter Flip; F3: the side now in play
 *                                                              and the card come up)
 *   DRAW_UNTIL        seat    reason    color    -        cards (F4 Wild Draw Color, S3
 *                                                         draw_color)
 *   EXCHANGE          seat    target    -        -        -    (S2 swap: the two hands)
 *   SHUFFLE_HANDS     seat    -         -        -        one hand per seat, as dealt
 *                                                         (S2 exchange=shuffle)
 *   PUT_DOWN          seat    -         -        -        cards, now under the top of
 *                                                         the discard pile (S3)
 *   EXTRA_TURN        seat    -         -        -        -    (S3 extra_turn)
 *   PAIRING           -       -         -        -        dark kind per card (written
 *                                                         first when cfg->repair; no
 *                                                         event of its own in Python)
 *   PRESS             to      reason    by       left     cards fired (E2: one press of
 *                                                         the launcher by `by`, aimed at
 *                                                         `to`; left: cards it still holds)
 *   DISCARD_ALL       seat    -         -        -        cards put down under it (E4)
 *   AIM               seat    target    -        -        -    (E6 Extreme Hit)
 *   STACK             seat    total     -        -        -    (C-H1: the seat answers a
 *                                                              pending `total` with the
 *                                                              draw card played next)
 *   JUMP_IN           seat    card      -        -        -    (C-H4: the seat plays the
 *                                                              card identical to `card`
 *                                                              out of turn; a PLAY follows)
 *   SWAP              seat    target    -        -        -    (C-H5: a 7 swapped the hands)
 *   ROTATE            seat    dir       -        -        -    (C-H5: a 0 passed every hand
 *                                                              to the next seat in `dir`)
 *
 * Tracing costs nothing when off: every write is behind `if (g->tr)`.
 *
 * Checking build
 * --------------
 * Compiled with -DUNO_CHECK (or UNO_CHECK=1) the engine verifies card
 * conservation after the deal and starter and after every turn: every card
 * id is exactly once in the hands, the draw pile and the discard pile.  A
 * violation prints the seat, round and turn and aborts.
 */
#ifndef UNO_H
#define UNO_H

#include "uno_port.h"
#if !defined(__CUDACC_RTC__)
#include <setjmp.h>
#endif

#include "rng.h"

#define UNO_MAX_PLAYERS 10
#define UNO_MAX_CARDS 255 /* card ids are uint8_t */
#define UNO_VALUE_CLASSES 16 /* distinct card values a side lists (uno_table.value_of) */
#define UNO_MAX_KINDS 255
#define UNO_HAND_CAP 256 /* a hand can hold every card */
#define UNO_HAND_WORDS 4 /* a uno_hand's 64-bit words: one bit per card id up to 255 */
#define UNO_NO_COLOR (-1)
#define UNO_DRAW (-1)

/* A test that is almost always true, or false (the compiler lays its code out that way). */
#if defined(__GNUC__)
#define UNO_LIKELY(x) __builtin_expect(!!(x), 1)
#define UNO_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define UNO_LIKELY(x) (x)
#define UNO_UNLIKELY(x) (x)
#endif

/* An inline function the compiler must inline wherever it is called (its size budget
   would otherwise take it out of the engine's turn once the turn has several copies). */
#if defined(__GNUC__)
#define UNO_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define UNO_ALWAYS_INLINE inline
#endif
#define UNO_ANY 9999 /* a state condition that always holds */

/* cards.Effect */
enum uno_effect {
    UNO_NUMBER = 0,
    UNO_SKIP = 1,
    UNO_REVERSE = 2,
    UNO_DRAW_CARDS = 3,
    UNO_WILD = 4,
    UNO_WILD_DRAW = 5,
    UNO_SKIP_ALL = 6,       /* F4 Skip Everyone */
    UNO_FLIP = 7,           /* F3 */
    UNO_WILD_DRAW_COLOR = 8, /* F4: draw until the named color */
    UNO_DISCARD_ALL = 9,       /* E4: the rest of its color goes down with it */
    UNO_HIT = 10,              /* E5: next presses the launcher `amount` times, loses the turn */
    UNO_WILD_HIT = 11,         /* E6: names a color and a target; `amount` presses at it */
    UNO_WILD_FEWEST_DRAW = 12, /* H2 Badtz-Maru: the fewest cards draw `amount` */
    UNO_WILD_EXCHANGE = 13,    /* S2: swap hands with an opponent, or shuffle all hands */
    UNO_WILD_CUSTOM = 14       /* S3: customizable rule number `amount` (UNO_CUSTOM_*) */
};
#define UNO_EFFECT_MAX UNO_WILD_CUSTOM

/*
 * uno_table.card_fast: how the engine's turn plays a card by itself, without the effect
 * dispatcher, when it is not its player's last card (C14) and the game allows that class
 * (uno_game.fast_max); a card that leaves one card makes the UNO call (C13) as usual.
 * Each is an unrestricted card of one effect: a colored number (C9: nothing happens),
 * Skip or Reverse (C10, C11), a Wild (C9: its player names a color) or a colored draw
 * card of amount 1 or more (C9, no stacking).  The order is the order of what a game
 * must exclude: fast_max = UNO_FAST_WILD keeps draw cards out.
 */
enum uno_fast_class {
    UNO_FAST_NO = 0,
    UNO_FAST_NUMBER = 1,
    UNO_FAST_SKIP = 2,
    UNO_FAST_REVERSE = 3,
    UNO_FAST_WILD = 4,
    UNO_FAST_DRAW = 5
};

/* cards.CUSTOM_RULES: the rule of a UNO_WILD_CUSTOM kind (its amount). */
enum {
    UNO_CUSTOM_DRAW_COLOR = 0, /* next draws until the named color */
    UNO_CUSTOM_WILDS_DOWN = 1, /* every other seat puts its wilds under the top discard */
    UNO_CUSTOM_DRAW_THREE = 2, /* next, unable to play, draws 3 and loses the turn */
    UNO_CUSTOM_EXTRA_TURN = 3, /* the player plays again */
    UNO_CUSTOM_SEVEN = 4,      /* next draws or discards to 7 cards */
    UNO_CUSTOM_THREE = 5,      /* every seat draws or discards to 3 cards */
    UNO_CUSTOM_COUNT
};

/* cards.Starter */
enum uno_starter { UNO_STARTER_PLAY = 0, UNO_STARTER_RETURN = 1 };

/* cards.DrawReason */
enum uno_reason {
    UNO_R_CANNOT_PLAY = 0,
    UNO_R_VOLUNTARY = 1,
    UNO_R_DRAW_TWO = 2,
    UNO_R_WD4 = 3,
    UNO_R_CHALLENGE = 4,
    UNO_R_UNO_PENALTY = 5,
    UNO_R_DRAW_ONE = 6,
    UNO_R_DRAW_FIVE = 7,
    UNO_R_WILD_DRAW_TWO = 8,
    UNO_R_WILD_DRAW_COLOR = 9,
    UNO_R_HIT_TWO = 10,      /* E5 */
    UNO_R_EXTREME_HIT = 11,  /* E6; 12, 13 reserved for the launcher rules */
    UNO_R_BADTZ_MARU = 14,   /* H2 */
    UNO_R_CUSTOM_COLOR = 15, /* S3 draw_color */
    UNO_R_DRAW_THREE = 16,   /* S3 draw_three */
    UNO_R_HAND_SIZE = 17,    /* S3 seven, three */
    UNO_R_STACK = 18,         /* C-H1: the last victim of a stack draws the sum */
    UNO_R_UNTIL_PLAYABLE = 19 /* C-H2: drew until a playable card */
};
#define UNO_REASON_MAX UNO_R_HAND_SIZE

/* Rules switches, as indices into the tuples of rules.py. */
enum { UNO_DEALER_ZERO = 0, UNO_DEALER_REDRAW = 1 };
enum { UNO_DRAWN_MAY = 0, UNO_DRAWN_MUST = 1 };
enum { UNO_CHALLENGE_MODERN = 0, UNO_CHALLENGE_VINTAGE = 1 };
enum { UNO_SCORING_STANDARD = 0, UNO_SCORING_ELIMINATION = 1, UNO_SCORING_LOWEST = 2 };
/* uno_config.draw_source: where a seat's draws come from */
enum { UNO_DRAW_PILE = 0, UNO_DRAW_LAUNCHER = 1 /* E2: the launcher replaces the draw pile */ };
enum { UNO_LAUNCHER_MODEL = 0, UNO_LAUNCHER_DIST = 1 }; /* rules.LAUNCHER (E2) */
#define UNO_LAUNCH_MAX 32 /* rules.LAUNCHER_MAX: entries of a launcher weight table */
/* rules.STACKING (C-H1): a mask of the stackable families, 1 colored draw cards
   (UNO_DRAW_CARDS), 2 fixed-amount wild draw cards (UNO_WILD_DRAW) */
enum { UNO_STACK_NONE = 0, UNO_STACK_DRAW2 = 1, UNO_STACK_DRAW4 = 2, UNO_STACK_BOTH = 3 };

struct uno_search_hooks; /* below: the search's hooks, uno_config.search */
/* rules.Rules, field for field (see the Rules docstring for the rule IDs). */
typedef struct uno_config {
    int32_t draw_source; /* UNO_DRAW_PILE, or UNO_DRAW_LAUNCHER (E2) */
    int32_t players;     /* 2..10 */
    int32_t edition;     /* index into rules.EDITIONS (informational) */
    int32_t dealer_draw; /* UNO_DEALER_* (C3) */
    int32_t drawn_card;  /* UNO_DRAWN_* (C8) */
    int32_t challenge;   /* UNO_CHALLENGE_* (C12) */
    int32_t wd4_value;   /* informational: the value is in the deck table */
    int32_t scoring;     /* UNO_SCORING_* (C17-C19) */
    int32_t target;      /* score that ends the game */
    int32_t teams;       /* 0/1: two teams in alternating seats (C20) */
    int32_t hand_size;   /* cards dealt to each player (C4) */
    int32_t repair;      /* 1: a two-faced deck is re-paired every game (F1 flip_pairing) */
    /* not rules: the safety limits on turns in one round (0 = UNO_MAX_TURNS)
       and on rounds in one game (0 = UNO_MAX_ROUNDS) */
    int32_t max_turns;
    int32_t max_rounds;
    /* The hand-exchange wild (S2) */
    int32_t exchange; /* UNO_EXCHANGE_*: rules.EXCHANGE */
    /* The launcher (E2, read when draw_source is UNO_DRAW_LAUNCHER): its firing law (rules.Rules launcher_*) */
    int32_t launcher;            /* UNO_LAUNCHER_* */
    int32_t launcher_fire;       /* model: chance per mille that a press fires, 0..1000 */
    int32_t launcher_max_silent; /* model: a press fires after this many silent ones */
    int32_t launcher_n_burst;    /* model: entries of launcher_burst, 1..UNO_LAUNCH_MAX */
    int32_t launcher_burst[UNO_LAUNCH_MAX]; /* model: weight of a burst of i + 1 cards */
    int32_t launcher_n_weights;  /* dist: entries of launcher_weights, 1..UNO_LAUNCH_MAX */
    int32_t launcher_weights[UNO_LAUNCH_MAX]; /* dist: weight of firing i cards */
    int32_t hit_target_presses;  /* E6: the target's own presses before the attacker's, 0..10 */
    /* house rules C-H1..C-H5 (rules.Rules, same order), 0 = off */
    int32_t stacking;            /* UNO_STACK_* (C-H1) */
    int32_t draw_until_playable; /* 0/1 (C-H2) */
    int32_t forced_play;         /* 0/1 (C-H3) */
    int32_t jump_in;             /* 0/1 (C-H4) */
    int32_t seven_o;             /* 0/1 (C-H5) */
    /* F2: a Flip turned up as the starter: 0 put back, 1 turns the game over */
    int32_t flip_starter;
    /* The search's hooks (search.c's uno_search_players), required when a seat is a
       search player (pimc, ismcts); a game played with them is recorded (uno.h
       uno_search_hooks).  NULL otherwise.  Last, so that the rules' fields keep their
       places. */
    const struct uno_search_hooks *search;
} uno_config;
enum { UNO_EXCHANGE_SWAP = 0, UNO_EXCHANGE_SHUFFLE = 1 };

/*
 * The deck table.  Fill it with uno_table_init from the columns of
 * cards.DeckTable.arrays(); the per-card columns are derived from card_kind
 * so that the hot loop reads one byte per question.
 */
/* A hand: a bitset over the ranks of a side (see "hand" above). */
typedef struct uno_hand {
    uint64_t w[UNO_HAND_WORDS];
} uno_hand;

typedef struct uno_table {
    int32_t n_kinds, n_cards;
    int32_t n_sides; /* 1, or 2 for a two-faced deck (F1) */
    /* per kind */
    int8_t color[UNO_MAX_KINDS];
    uint8_t face[UNO_MAX_KINDS];
    int32_t value[UNO_MAX_KINDS];
    uint8_t effect[UNO_MAX_KINDS];
    uint8_t amount[UNO_MAX_KINDS];
    uint8_t restricted[UNO_MAX_KINDS];
    uint8_t starter[UNO_MAX_KINDS];
    uint8_t reason[UNO_MAX_KINDS];
    /* per side, per card (side 1 only when n_sides == 2) */
    uint8_t card_kind[2][UNO_MAX_CARDS];
    int8_t card_color[2][UNO_MAX_CARDS];
    uint8_t card_face[2][UNO_MAX_CARDS];
    uint8_t card_restricted[2][UNO_MAX_CARDS];
    int32_t card_value[2][UNO_MAX_CARDS];
    /* per side, per card: the uno_fast_class the engine's turn plays it as without the
       effect dispatcher (UNO_FAST_NO: through it) */
    uint8_t card_fast[2][UNO_MAX_CARDS];
    /* per side: 1 when some card of the side is restricted yet has a color (no stock deck
       has one); the policies' fast paths assume 0 */
    uint8_t restricted_colored[2];
    /* Card priority (docs/policies.md): kind_pos[k] orders the kinds by higher value
       first, then lower kind id; per side, rank[side][card] is the card's place in the
       priority order (kind_pos of its kind on that side, then lower card id) and
       unrank[side][r] the card of rank r.  Hands are bitsets over these ranks. */
    uint8_t kind_pos[UNO_MAX_KINDS];
    uint8_t rank[2][256];
    uint8_t unrank[2][256];
    /* Per side, bitsets over its ranks (uno_hand): the cards of color c - 1 (c = 0: the
       wilds, color -1; c = 1..8: colors 0..7), the cards of face f (f < 32, faces_ok[side]
       when every face of the side is below 32), the restricted cards and the cards whose
       other face is a wild (F6) */
    struct uno_hand color_mask[2][9], face_mask[2][32], restricted_mask[2], other_wild_mask[2];
    /* The same without the wilds (greedy's colored cards): colored_mask[side][c] is
       color_mask[side][c], but empty for c = 0; colored_face_mask[side][f] is
       face_mask[side][f] less the wilds */
    struct uno_hand colored_mask[2][9], colored_face_mask[2][32];
    /* Per side, the cards' nonzero values (C17) as n_values classes: value_of[k] and the
       cards worth it, value_mask[k]; n_values > UNO_VALUE_CLASSES: too many to list */
    int32_t n_values[2];
    int32_t value_of[2][UNO_VALUE_CLASSES];
    struct uno_hand value_mask[2][UNO_VALUE_CLASSES];
    uint8_t faces_ok[2];
} uno_table;

/*
 * Returns 0, or -1 when a column is out of range (sizes, ids, enums).
 * `dark_kind` (NULL for a one-sided deck) gives each card's side-1 kind.
 */
UNO_HD int uno_table_init(uno_table *t, int n_kinds, const int32_t *color, const int32_t *face,
                   const int32_t *value, const int32_t *effect, const int32_t *amount,
                   const int32_t *restricted, const int32_t *starter, const int32_t *reason,
                   int n_cards, const int32_t *card_kind, const int32_t *dark_kind);

/* Recomputes the per-card columns of `side` from t->card_kind[side] (after a re-pairing). */
UNO_HD void uno_table_derive(uno_table *t, int side);


/* A policy (policies.py, RULES.md P2): built in, or a user's Python policy. */
enum { UNO_POLICY_RANDOM = 0, UNO_POLICY_GREEDY = 1, UNO_POLICY_STRATEGIC = 2, UNO_POLICY_USER = 3 };
/* The search players (search.c, docs/policies.md "Search players"): every decision of the
   seat with more than one legal answer is searched by rollouts from sampled states. */
enum { UNO_POLICY_PIMC = 4, UNO_POLICY_ISMCTS = 5 };
/* The network player (net.c, docs/net.md): every decision with more than one legal answer
   is the legal action of highest logit of its network (uno_policy.net) on the seat's
   observation (observe.c). */
enum { UNO_POLICY_NET = 6 };
#define UNO_POLICY_MAX UNO_POLICY_NET
/* uno_policy.value: what a search's rollout is worth to its seat */
enum { UNO_VALUE_GAME = 0, UNO_VALUE_ROUND = 1, UNO_VALUE_TABLE = 2 };
#define UNO_SEARCH_DEPTH_MAX 64 /* ismcts's largest depth (uno_policy.depth) */
enum { UNO_COLOR_MOST = 0, UNO_COLOR_RANDOM = 1, UNO_COLOR_SMART = 2 };
/* policies.TARGET_RULES: whom a targeted card picks (uno_choose_target). */
enum { UNO_TARGET_MOST = 0, UNO_TARGET_FEWEST = 1, UNO_TARGET_NEXT = 2, UNO_TARGET_RANDOM = 3 };

/* The decisions of P2, as passed to a user policy's callback. */
enum uno_decision {
    UNO_DEC_PLAY = 0,        /* returns a hand index or UNO_DRAW */
    UNO_DEC_REPLACEMENT = 1, /* vintage challenge: a legal hand index */
    UNO_DEC_COLOR = 2,       /* returns a color of the side in play: 4 * side + 0..3 */
    UNO_DEC_CHALLENGE = 3,   /* arg = offender | (previous color + 1) << 8; returns 0/1 */
    UNO_DEC_FORGET_UNO = 4,  /* returns 1 to forget saying UNO */
    UNO_DEC_CATCH = 5,       /* arg = the seat that forgot; returns 0/1 */
    UNO_DEC_PLAY_DRAWN = 6,  /* arg = (1 when playing it would be a bluff) | the card drawn
                                << 1 (hand order is card priority: it is not the last card);
                                returns 0/1 */
    UNO_DEC_TARGET = 7,      /* arg = the targeting card id; returns an opponent's seat */
    UNO_DEC_STACK = 8,       /* C-H1: arg = the pending total; returns a hand index that
                                answers it (uno_can_stack) or UNO_DRAW to take the cards */
    UNO_DEC_JUMP_IN = 9,     /* C-H4: arg = the card just played; returns 0/1 */
    UNO_DEC_DISCARD = 10     /* S3: arg = cards still to put down; returns a hand index */
    /* 11 reserved; 12-13: the launcher rules (E) */
};
#define UNO_DECIDE_ABORT (-1000) /* a callback's "stop the game" (error kept by the caller) */

/*
 * The kinds of random decision: each (seat, kind) draws from a stream of its
 * own in every round (rng.h, "Decision streams"; reference.DK_*).
 */
enum uno_decision_kind {
    UNO_DK_PICK = 0,      /* random: the card or seat picked among the options */
    UNO_DK_BLUFF = 1,     /* bluff knob (also a drawn card that would be a bluff) */
    UNO_DK_VOLUNTARY = 2, /* voluntary_draw */
    UNO_DK_CHALLENGE = 3, /* challenge */
    UNO_DK_UNO = 4,       /* forget_uno */
    UNO_DK_CATCH = 5,     /* catch */
    UNO_DK_PLAY_DRAWN = 6, /* play_drawn */
    UNO_DK_COLOR = 7,     /* color=random */
    UNO_DK_TARGET = 8,    /* target=random */
    UNO_DK_STACK = 9,     /* stack */
    UNO_DK_JUMP = 10,     /* jump_in */
    UNO_DK_USER = 11,     /* a user policy's obs.randint */
    UNO_DK_SEARCH = 12,   /* a search player (search.c): one draw per searched decision */
    UNO_DK_NET = 13,      /* the network player's explore knob (net.c) */
    UNO_DK_COUNT
};

struct uno_game;
struct uno_net;
/*
 * A user policy's decisions: called for every decision of a seat whose id is
 * UNO_POLICY_USER.  It must return a legal answer (the binding validates it)
 * or UNO_DECIDE_ABORT, which ends the game with UNO_ERR_POLICY (so does an
 * answer out of range, uno_answer_ok).
 */
typedef int (*uno_decide_fn)(void *ctx, struct uno_game *g, int seat, int decision, int arg);

/*
 * A search player's hooks: the engine reaches the search (search.c) only through this
 * table, which uno_config.search points at when a seat is a search player (search.c's
 * uno_search_players; the caller that wants search sets it), never by name, so that
 * the engine stands below the search and the GPU build needs nothing of search.c.
 * begin sets a game up to be recorded (its recorder in uno_game.search; 1, or 0: no
 * memory) and end releases it; stats adds its counters (UNO_SS_*) into
 * stats[players][UNO_SEARCH_STATS]; fork arms uno_play_fork's fork at the at-th
 * decision.  While a recorded game plays (g->search set), the engine calls, through
 * g->cfg->search, turn at the start of seat p's turn, start when a round's starter
 * turned up (C5) before its effect, event just after a reshuffle (C15) or a flip (F3),
 * and press before a launcher press (E2) fires k cards (it returns the cards to fire).
 * CPU only: the GPU build never calls them.
 */
struct uno_result;
typedef struct uno_search_hooks {
    int (*begin)(struct uno_game *g, int stoppable); /* stoppable: honours the stop flag */
    void (*end)(struct uno_game *g);
    void (*stats)(const struct uno_game *g, int64_t *stats);
    void (*fork)(struct uno_game *g, int64_t at, struct uno_result *fork);
    void (*turn)(struct uno_game *g, int p);
    void (*start)(struct uno_game *g, int dealer);
    void (*event)(struct uno_game *g, int reshuffle);
    int (*press)(struct uno_game *g, int k);
} uno_search_hooks;

/* uno_policy bluff_cells / challenge_cells: the bit of (other hand, own hand), each size
   from 1 to 8, 8 standing for 8 and more (a hand size of 0 counts as 1). */
#define UNO_CELLS_ALL UINT64_C(0xFFFFFFFFFFFFFFFF)
#define UNO_CELL_SIDE 8
UNO_HD static inline int uno_cell(int other, int own)
{
    other = other < 1 ? 1 : other > UNO_CELL_SIDE ? UNO_CELL_SIDE : other;
    own = own < 1 ? 1 : own > UNO_CELL_SIDE ? UNO_CELL_SIDE : own;
    return (other - 1) * UNO_CELL_SIDE + (own - 1);
}

/* How a policy's two size conditions combine (uno_policy bluff_join, challenge_join). */
enum { UNO_JOIN_AND = 0, UNO_JOIN_OR = 1 };

#if defined(__cplusplus)
/* C++ (the GPU build) reserves the word: the field below is uno_catch there, same layout */
#define catch uno_catch
#endif
typedef struct uno_policy {
    int32_t id;         /* UNO_POLICY_* */
    int32_t color;      /* UNO_COLOR_*: the color named on a wild */
    double bluff;       /* play a restricted wild illegally when it would be a bluff */
    double challenge;   /* challenge a WD4 played on this seat (unless challenge_auto) */
    double forget_uno;  /* forget to say UNO */
    double catch;       /* catch an opponent who forgot */
    double play_drawn;  /* play a legally playable drawn card when free to choose */
    double voluntary_draw; /* greedy/strategic: draw although a colored card could be played */
    int32_t challenge_auto;     /* 1: challenge when P(bluff) > challenge_threshold */
    double challenge_threshold; /* see uno_bluff_probability */
    int32_t target;             /* UNO_TARGET_* */
    double stack;               /* C-H1: answer a draw card with a draw card */
    double jump_in;             /* C-H4: jump in with an identical card */
    /* State conditions (UNO_ANY: none).  A bluff is tried only when the next player
       holds <= bluff_next cards and this seat <= bluff_own; a challenge only when the
       offender holds <= challenge_offender cards (after playing it), this seat <=
       challenge_own, and the offender is `suspect` (-1: anyone).  With bluff_join
       (challenge_join) UNO_JOIN_OR, either size condition is enough instead of both. */
    int32_t bluff_next, bluff_own, challenge_offender, challenge_own, suspect;
    int32_t challenge_posterior; /* 1: challenge when the posterior P(bluff) > threshold */
    double challenge_prior;      /* the offender's assumed bluff rate, for the posterior */
    int32_t bluff_join;          /* UNO_JOIN_*: how bluff_next and bluff_own combine */
    int32_t challenge_join;      /* UNO_JOIN_*: how challenge_offender and challenge_own do */
    /* Cells of (the other hand, its own) where a bluff / a challenge may be tried, as well
       as the conditions above: bit uno_cell(other, own) (UNO_CELLS_ALL: every cell). */
    uint64_t bluff_cells, challenge_cells;
    /* Search players (UNO_POLICY_PIMC, UNO_POLICY_ISMCTS; search.c).  The fields above hold
       the rollout policy's knobs: the seat's answer where nothing can be searched. */
    int32_t samples;    /* pimc: sampled states per decision, 1.. */
    int32_t rollouts;   /* pimc: rollouts per sampled state and legal answer, 1.. */
    int32_t iterations; /* ismcts: iterations per decision (one sampled state each), 1.. */
    double c;           /* ismcts: the UCB exploration constant, >= 0 */
    int32_t depth;      /* ismcts: 1 (no nodes below the root) .. UNO_SEARCH_DEPTH_MAX
                           levels of the seat's own decisions in the tree; > 1 needs c > 0 */
    int32_t rollout;    /* the policy (UNO_POLICY_RANDOM..STRATEGIC, or UNO_POLICY_NET with
                           this seat's `net`) every seat plays in a rollout */
    int32_t others;     /* -1: the other seats play `rollout` in a rollout too; else the
                           policy they play (the same ids) */
    int32_t leaf;       /* -1: rollouts play to their end; k >= 0: a rollout stops at the
                           seat's first turn k or more turns after the searched decision,
                           valued by `net`'s value head */
    double mix;         /* with leaf >= 0: 1: the rollout stops at the leaf, worth the value
                           head's estimate; w in [0, 1): it plays on to its end and is worth
                           w * that estimate + (1 - w) * its own value */
    double infer;       /* 0: sampled states count alike; T > 0: each is weighted by the
                           likelihood of the opponents' observed answers under `net` at
                           temperature T (search.c "Inference") */
    double voids;       /* 1: the opponents' draws are not read; w in [0, 1): a sampled
                           state is kept with probability w per draw of the round it
                           contradicts (the hand it gives the drawer then held a card it
                           could play), else dealt again (search.c "Voids") */
    double colors;      /* the same for the colors the opponents named (C9): a state is
                           kept with probability w per color named that the namer then held
                           fewer cards of than of another color */
    double bluffs;      /* the same for the restricted cards the opponents played
                           unchallenged (C7; UNO Flip, F4): a state is kept with probability
                           w per card it makes a bluff (the player then held a card of the
                           active color) */
    int32_t resample;   /* 0: infer weighs the sampled states; 1: infer deals them again
                           instead, a state kept with probability its likelihood over the
                           highest any state could have (search.c "Voids") */
    int32_t value;      /* UNO_VALUE_*: a rollout is worth its game (1 won), its round (1
                           won) or P(win the game | the scores after its round) (table;
                           under another scoring than standard, its game) */
    int32_t cheat;      /* 1: sample nothing, search the true state (an upper bound) */
    int32_t anchor;     /* -1: the rollout policy's answer anchors pimc's rule (and answers
                           where nothing can be searched); else the policy (the same ids)
                           whose answer does */
    double z;           /* pimc's rule: another answer replaces the anchor's only when it
                           leads it by this many paired standard errors */
    double rollout_challenge; /* < 0: the rollout policy challenges as its own knobs say;
                           else every seat of a rollout challenges a restricted card (C12)
                           with this probability */
    uno_decide_fn decide;       /* UNO_POLICY_USER only */
    void *ctx;                  /* passed to decide */
    /* The network player (UNO_POLICY_NET), and a search player whose rollouts, leaves or
       inference use one.  explore: the probability of a uniformly random legal answer
       instead of the network's (UNO_DK_NET).  net: the network, owned by the caller and
       read only (a uno_net and its weights in one block, net.c); in the GPU build the
       device address of a copy of that block */
    double explore;
    const struct uno_net *net;
} uno_policy;

/* A build specialised to one configuration (the GPU kernel): uno_spec.h. */
#include "uno_spec.h"

/* Whether the build's constants are the configuration (c, t, pol): every specialised field
   equals the struct's (a policy field at every seat). */
UNO_HD static inline int uno_spec_matches(const uno_config *c, const struct uno_table *t,
                                          const uno_policy *pol)
{
#define UNO_SPEC_CFG_OK(f)                                                                         \
    if (UNO_SPEC_CFG_##f != UNO_RT && UNO_SPEC_CFG_##f != c->f)                                    \
        return 0;
    UNO_SPEC_CFG_LIST(UNO_SPEC_CFG_OK)
#undef UNO_SPEC_CFG_OK
    if ((UNO_SPEC_TBL_sides != UNO_RT && UNO_SPEC_TBL_sides != t->n_sides) ||
        (UNO_SPEC_TBL_cards != UNO_RT && UNO_SPEC_TBL_cards != t->n_cards))
        return 0;
    for (int s = 0; s < c->players; s++) {
        const uno_policy *p = &pol[s];
#define UNO_SPEC_POL_OK(f)                                                                         \
    if (UNO_SPEC_POL_##f != UNO_RT && UNO_SPEC_POL_##f != p->f)                                    \
        return 0;
        UNO_SPEC_POL_LIST(UNO_SPEC_POL_OK)
#undef UNO_SPEC_POL_OK
    }
    return 1;
}

/* Trace records (see the table at the top). */
enum uno_event_type {
    UNO_EV_DEALER_DRAW = 0,
    UNO_EV_ROUND_START,
    UNO_EV_PLAY,
    UNO_EV_UNO,
    UNO_EV_CAUGHT,
    UNO_EV_DRAW,
    UNO_EV_PASS,
    UNO_EV_SKIP,
    UNO_EV_REVERSE,
    UNO_EV_COLOR,
    UNO_EV_CHALLENGE,
    UNO_EV_TAKE_BACK,
    UNO_EV_RESHUFFLE,
    UNO_EV_ROUND_END,
    UNO_EV_FLIP,
    UNO_EV_DRAW_UNTIL,
    UNO_EV_PAIRING,
    UNO_EV_PRESS = 17,         /* E2 */
    UNO_EV_DISCARD_ALL = 18,   /* E4 */
    UNO_EV_AIM = 19,           /* E6 */
    UNO_EV_EXCHANGE = 20,      /* S2 */
    UNO_EV_SHUFFLE_HANDS = 21, /* S2 exchange=shuffle */
    UNO_EV_PUT_DOWN = 22,      /* S3 */
    UNO_EV_EXTRA_TURN = 23,    /* S3 */
    UNO_EV_STACK = 24,   /* C-H1 */
    UNO_EV_JUMP_IN = 25, /* C-H4 */
    UNO_EV_SWAP = 26,    /* C-H5 */
    UNO_EV_ROTATE = 27,  /* C-H5 */
    UNO_EV_COUNT
};

typedef struct uno_event {
    int32_t type, p, a, b, c;
    int32_t off, len; /* the event's lists: data[off .. off+len) */
} uno_event;

/*
 * A growable trace buffer owned by the caller: zero it (or uno_trace_init),
 * pass it to any number of games, read it, uno_trace_free it.  The engine
 * grows it with realloc; if that fails, `failed` is set and later records
 * are dropped (the game itself is unaffected).
 */
typedef struct uno_trace {
    uno_event *ev;
    int32_t *data;
    int64_t n_ev, cap_ev, n_data, cap_data;
    int failed;
} uno_trace;

UNO_HD void uno_trace_init(uno_trace *tr);
UNO_HD void uno_trace_free(uno_trace *tr);
UNO_HD void uno_trace_clear(uno_trace *tr);
/* Append an event; its lists (below) follow until the next event. */
UNO_HD void uno_trace_event(uno_trace *tr, int type, int p, int a, int b, int c);
UNO_HD void uno_trace_cards(uno_trace *tr, const uint8_t *cards, int n); /* one list */
UNO_HD void uno_trace_ints(uno_trace *tr, const int32_t *v, int n);      /* one list */
/* A list of unknown length: open it, push items, close it. */
UNO_HD int64_t uno_trace_open(uno_trace *tr);
UNO_HD void uno_trace_push(uno_trace *tr, int32_t v);
UNO_HD void uno_trace_close(uno_trace *tr, int64_t at);

/* Per-seat counters, in the order of reference.SEAT_COUNTERS. */
enum {
    UNO_CT_CARDS_DRAWN = 0,
    UNO_CT_BLUFFS,
    UNO_CT_CHALLENGES,
    UNO_CT_CHALLENGES_WON,
    UNO_CT_UNO_FORGOTTEN,
    UNO_CT_UNO_CAUGHT,
    UNO_CT_ROUNDS_WON,
    UNO_N_COUNTERS
};

/* Status codes of the uno_play_* functions. */
enum {
    UNO_OK = 0,
    UNO_ERR_CONFIG = 1,  /* rules or policies out of range */
    UNO_ERR_STARTER = 2, /* res->error_card was turned up but cannot start (C5) */
    UNO_ERR_LIMIT = 3,   /* the game ran past UNO_MAX_TURNS / UNO_MAX_ROUNDS */
    UNO_ERR_FULL = 4,    /* uno_play_games: no room left for round rows (see uno_columns) */
    UNO_ERR_POLICY = 5,  /* a user policy's callback returned UNO_DECIDE_ABORT */
    UNO_ERR_STOPPED = 6, /* the stop flag was raised (below): the game was left unfinished */
};

/*
 * Stopping a long call (stop.c; docs/engine.md "Stopping").  A process-wide flag that a
 * signal handler raises and the long loops read: uno_play_games and its variants between
 * games, a search seat's search between samples and rollouts.  A loop that sees it stops
 * with UNO_ERR_STOPPED: the games finished before are complete (games_done counts them,
 * their rows kept), the one in play is dropped, never counted.  Every game depends only
 * on its seed and number, so the caller may call again from the first unfinished game
 * and get the same results.
 *
 * uno_stop_arm() installs the handler for SIGINT and SIGTERM where the process has a
 * handler of its own (never over the default action or an ignored signal), calling
 * that handler in turn; uno_stop_disarm() puts it back and clears the flag; arming
 * nests, and the caller serialises the two (the binding: under the GIL, around its long
 * calls).  uno_stop_requested() is the flag (the signal number, or 0); a long loop of
 * the engine tests it with UNO_STOP_REQUESTED(), which is 0 in device code.
 * uno_stop_request(sig) raises the flag by hand (tests, or a driver's own handler).
 */
#if !defined(__CUDACC_RTC__)
int uno_stop_requested(void);
void uno_stop_request(int sig);
void uno_stop_clear(void);
void uno_stop_arm(void);
void uno_stop_disarm(void);
#endif
#if UNO_DEVICE
#define UNO_STOP_REQUESTED() 0
#else
#define UNO_STOP_REQUESTED() UNO_UNLIKELY(uno_stop_requested() != 0)
#endif

/*
 * Safety limits.  Some policies never end a round: when every seat always
 * draws and always plays the drawn card (greedy with voluntary_draw=1), one
 * Wild can go round the table forever (reshuffle, draw, play); with
 * drawn_card=must two Reverses can bounce between two seats forever.  Both
 * engines stop there, at the same turn, with UNO_ERR_LIMIT (GameLimitError in
 * Python, keeping the trace so far).  No game that ends below the limits is
 * affected.
 */
/* Bounds that keep every score in int32 (rules.VALUE_MAX, rules.TARGET_MAX): a round
   scores at most UNO_MAX_CARDS * UNO_MAX_VALUE on top of a score below UNO_MAX_TARGET. */
#define UNO_MAX_VALUE 1000000
#define UNO_MAX_TARGET 1000000000
#define UNO_MAX_TURNS 100000  /* turns in one round (uno_config.max_turns) */
#define UNO_MAX_ROUNDS 1000   /* rounds in one game (uno_config.max_rounds) */
/* Turns in one game, counted between rounds: a game that has taken this many turns when a
   round ends stops there.  With UNO_MAX_ROUNDS it bounds an endless game's work (a policy
   that stalemates every round, in Python through a user seat, gives up within seconds)
   and keeps the int32 turn counts far from overflowing.  The reference engine
   (uno_sim/reference/game.py, `Game.max_game_turns`) stops at the same points. */
#define UNO_MAX_GAME_TURNS 1000000

/* reference.GameResult. */
typedef struct uno_result {
    int32_t status;
    int32_t error_card;  /* UNO_ERR_STARTER: the card id */
    int32_t winner;      /* -1 for a shared win or a team win */
    int32_t team;        /* winning team in team play, else -1 */
    int32_t n_winners;
    int32_t winners[UNO_MAX_PLAYERS];
    int32_t scores[UNO_MAX_PLAYERS];
    int32_t team_scores[2];
    int32_t rounds, turns, reshuffles, stalemates;
    int32_t counters[UNO_N_COUNTERS][UNO_MAX_PLAYERS];
} uno_result;

/*
 * The state of one game.  Public so that the policies (policy.c) can read
 * it; only the engine files (table.c, round.c, extras.c, game.c) write it.
 *
 * Invariant (checked by UNO_CHECK): the hands, draw[0..n_draw) and
 * discard[0..n_discard) together hold every card id exactly once.
 */
typedef struct uno_round_rows uno_round_rows; /* defined with uno_play_games */

/*
 * Counterfactual forcing (uno_cf_*): the `index`-th decision point of kind
 * `kind` (UNO_CF_BLUFF: a turn where `seat` holds a restricted card that would
 * be a bluff; UNO_CF_CHALLENGE: a restricted card played on `seat`) gets the
 * answer `value` (1 bluff / challenge, 0 the honest card / accept; -1: the
 * policy's own).  The policy draws its random numbers as usual first, so the
 * rest of the game sees the same streams.  Every decision point is counted,
 * and the first UNO_CF_MAX are described in `pt`.
 * A search seat (pimc, ismcts) is forced after its search has answered (search.c
 * forced_search).
 */
enum { UNO_CF_BLUFF = 0, UNO_CF_CHALLENGE = 1 };
#define UNO_CF_MAX 64
typedef struct uno_cf_point {
    int32_t round, turn;  /* where: the round (1-based) and the game's turn count */
    int32_t own, other;   /* cards held by the seat, and by the next player (bluff) or the
                             offender after playing (challenge) */
    int32_t natural;      /* the policy's own answer */
    int32_t truth;        /* challenge: 1 when the card was a bluff */
    double q;             /* challenge: uno_bluff_probability, the seat's estimate */
} uno_cf_point;
typedef struct uno_force {
    int32_t seat, kind, index, value;
    int32_t seen;                /* decision points met so far */
    int32_t hit_round;           /* the round of the forced point, or 0 */
    int32_t round_won, round_points; /* that round: whether `seat` won it, its points */
    uno_cf_point pt[UNO_CF_MAX];
} uno_force;

/*
 * The GPU build records no trace and forces no decision (uno_sim/gpu.py refuses both): there
 * `tr` and `force` are null pointers the compiler knows (a field of a type that converts to
 * a null pointer and ignores what is stored in it), so that every `if (g->tr)` and
 * `if (g->force)` is compiled out with what it guards.  C++ only, as device code is.
 */
#if defined(UNO_GPU_BUILD) && defined(__cplusplus)
template <typename T> struct uno_null {
    UNO_HD constexpr operator T *() const { return nullptr; }
    UNO_HD T *operator->() const { return nullptr; }
    UNO_HD uno_null &operator=(T *) { return *this; }
};
#define UNO_NULLABLE(T) uno_null<T>
#else
#define UNO_NULLABLE(T) T *
#endif

/*
 * Per-seat arrays have UNO_SEATS rows and the piles UNO_PILE cards: UNO_MAX_PLAYERS and
 * UNO_MAX_CARDS, unless the build is specialised (uno_spec.h).  A specialised GPU build
 * also leaves out what only the CPU reads (the hands a challenge revealed) and, for a
 * one-sided deck, the other side's hands.
 */
#if UNO_SPEC_TBL_sides == 1
#define UNO_HAS_ALT 0 /* hand_alt is never read nor written */
#define UNO_ALT_SEATS 1
#else
#define UNO_HAS_ALT 1
#define UNO_ALT_SEATS UNO_SEATS
#endif

/* The hands a challenge revealed (uno_game.reveal_from, reveal_n, reveal): kept on the CPU,
   and in a GPU build that plays a network seat (UNO_GPU_NET: its observation shows them,
   observe.c); a GPU build without one leaves them out. */
#if !defined(UNO_GPU_BUILD) || defined(UNO_GPU_NET)
#define UNO_KEEPS_REVEAL 1
#else
#define UNO_KEEPS_REVEAL 0
#endif

typedef struct uno_game {
    const uno_config *cfg;
    const uno_table *t;
    const uno_policy *pol; /* one per seat */
    uno_rng *rng;    /* the game's generator (seeds `seeded`; decisions use dec_*) */
    uno_rng seeded;  /* rng's state when the game began */
    uint64_t dec_key; /* this round's decision streams (uno_rng_dec_round_key) */
    uint32_t dec_n[UNO_SEATS][UNO_DK_SLOTS]; /* draws taken per stream this round */
    UNO_NULLABLE(uno_force) force; /* NULL, or a decision to force and record (counterfactuals) */
    uno_rng deal;    /* the table's cards this round: uno_rng_seed_deal */
    UNO_NULLABLE(uno_trace) tr; /* NULL: no trace */
    uno_round_rows *rows; /* NULL: no round rows */
    uint64_t game_no;     /* the game number written in round rows */
    int rows_full;        /* a round row found no room */
    int32_t round_dealer, round_starter, round_turns0, round_reshuffles0;
    int n;         /* players */
    int n_active;  /* seats not eliminated (C18) */
    int direction; /* +1 clockwise, -1 */
    int color;     /* the active color */
    int top_face;  /* face of the discard pile's top card */
    int side;      /* the side every card shows (F1, F3); 0 for a one-sided deck */
    int idle;      /* consecutive turns on which nothing could be drawn */
    int pending;     /* C-H1: cards passed on by the stack being answered */
    int last_player; /* C-H1, C-H4: who played last_card (kept when those rules are on) */
    int last_card;   /* C-H4: the last card played, what a jump-in answers */
    int round_winner; /* C-H1, C-H4: who went out when it was not the turn's player, or -1 */
    int jump_open;   /* C-H4: the next turn first offers a jump-in on last_card */
    int32_t rounds, turns, reshuffles, stalemates;
    uint8_t active[UNO_SEATS];
    /* next_seat[direction > 0][p]: uno_next's answer, kept by uno_seats_update whenever
       active[] changes */
    int8_t next_seat[2][UNO_SEATS];
    int32_t scores[UNO_SEATS];
    int32_t team_scores[2];
    int32_t counters[UNO_N_COUNTERS][UNO_SEATS];
    /* Public history of the round (P1), reset by start_round. */
    uint8_t failed[UNO_SEATS]; /* bit c: the seat drew on its turn with c active and has
                                  not drawn penalty cards nor played color c since */
#if UNO_KEEPS_REVEAL /* read by the observations (observe.c) and the searches (search.c) */
    int reveal_from[UNO_MAX_PLAYERS]; /* challenger -> offender whose hand it saw, or -1 */
    int reveal_n[UNO_MAX_PLAYERS];
    uint8_t reveal[UNO_MAX_PLAYERS][UNO_HAND_CAP];
#endif
#if defined(__CUDACC_RTC__)
    void *bail; /* no setjmp on a GPU: never set there */
#else
    jmp_buf *bail; /* longjmp target when a user policy aborts (CPU only) */
#endif
    int hand_n[UNO_SEATS];
    int last_drawn; /* the last card drawn by draw_cards / draw_until_playable, or -1 */
    int n_draw, n_discard;
    /* draw[0..bag) is not shuffled yet: the pending steps of its Fisher-Yates shuffle are
       taken one at a time as cards are drawn (uno_draw_pop), or all at once before the
       order matters or the deal stream serves anything else (uno_draw_settle) */
    int bag;
    uint8_t draw[UNO_PILE];
    uint8_t discard[UNO_PILE];
    uno_hand hand[UNO_SEATS]; /* over the ranks of g->side */
    /* A two-faced deck (F1) only: the same hands over the ranks of the other side, kept
       in step card by card, so that a Flip (F3) turns every hand over by swapping the
       two arrays' roles rather than re-ranking every card */
    uno_hand hand_alt[UNO_ALT_SEATS];
    int two_sided;
    int launcher;  /* E2: the draw pile is the launcher (cfg->draw_source) */
    int fast_max;  /* the highest uno_fast_class the turn plays by itself (round.c play):
                      UNO_FAST_NO with a trace or Seven-O (C-H5), UNO_FAST_WILD
                      with stacking (C-H1) or a launcher (E2), else UNO_FAST_DRAW */
    int silent;    /* E2: presses in a row that fired nothing, this round */
    /* A game with a search seat (search.c): its recorder, which keeps the snapshot of the
       turn and the turn's journal (the engine calls it through cfg->search); NULL
       otherwise */
    struct uno_search *search;
    /* A stepping environment's turn hook (env.c), NULL otherwise: called at the start of
       every turn of the round loop (p >= 0: seat p's turn, after the search's snapshot)
       and at the start of every round before the deal (p = -1 - dealer).  A clone carries
       it: the hook must check that g is the game it was set on */
    void (*on_turn)(void *ctx, struct uno_game *g, int p);
    void *on_turn_ctx;
    /* the game's re-paired copy of the table (cfg->repair); t points to it.  Last: a
       snapshot of the game (uno_game_clone) copies every field before it */
#if !defined(UNO_GPU_BUILD)
    uno_table own;
#endif
} uno_game;

/* Room for a game's re-paired table (the F1 switch): its `own` field on the CPU; in the GPU
   build (csrc/gpu/kernel.cu) a table per thread that the kernel provides only when the
   switch is on, so that a game's state stays small there. */
#if defined(UNO_GPU_BUILD)
#define UNO_OWN_TABLE(g) UNO_GPU_ROOM()
#else
#define UNO_OWN_TABLE(g) (&(g)->own)
#endif

/* Decision draws (rng.h, "Decision streams"): seat p's stream of kind k this round. */
UNO_HD static inline uint64_t uno_dec_next(uno_game *g, int p, int k)
{
    return uno_rng_dec_word(g->dec_key, p, k, g->dec_n[p][k]++);
}

/* Uniform integer in [0, n) from seat p's stream k: uno_rng_bounded's method. */
UNO_HD static inline uint32_t uno_dec_bounded(uno_game *g, int p, int k, uint32_t n)
{
    uint64_t l;
    uint64_t hi = uno_rng_mul_hi_lo(uno_dec_next(g, p, k), n, &l);
    if (l < n) {
        const uint64_t t = (0 - (uint64_t)n) % n;
        while (l < t)
            hi = uno_rng_mul_hi_lo(uno_dec_next(g, p, k), n, &l);
    }
    return (uint32_t)hi;
}

/* True with probability q from seat p's stream k; q <= 0 or >= 1 draws nothing. */
UNO_HD static inline int uno_dec_bernoulli(uno_game *g, int p, int k, double q)
{
    if (q <= 0.0)
        return 0;
    if (q >= 1.0)
        return 1;
    return (double)(uno_dec_next(g, p, k) >> 11) * 0x1.0p-53 < q;
}

/* A new round's decision streams (start_round, init_game). */
UNO_HD static inline void uno_dec_round(uno_game *g, uint64_t round)
{
    g->dec_key = uno_rng_dec_round_key(&g->seeded, round);
    memset(g->dec_n, 0, (size_t)UNO_N(g) * sizeof g->dec_n[0]);
}

/* Queries on a state, shared by the engine and the policies. */

/* The color / face / value / restriction of a card on the side in play. */
UNO_HD static inline int uno_color(const uno_game *g, int card)
{
    return g->t->card_color[g->side][card];
}

UNO_HD static inline int uno_face(const uno_game *g, int card)
{
    return g->t->card_face[g->side][card];
}

UNO_HD static inline int uno_value(const uno_game *g, int card)
{
    return g->t->card_value[g->side][card];
}

UNO_HD static inline int uno_restricted(const uno_game *g, int card)
{
    return g->t->card_restricted[g->side][card];
}

/*
 * F6 visible information: the kind on a card's face that is not in play.
 * Public for the cards in the other players' hands and the top of the draw
 * pile (draw[n_draw - 1]); a policy must not ask it about its own hand.
 * One-sided decks: the card's only kind.
 */
UNO_HD static inline int uno_other_kind(const uno_game *g, int card)
{
    const int two = UNO_SPEC_OR(UNO_SPEC_TBL_sides, g->t->n_sides) == 2;
    return g->t->card_kind[two ? g->side ^ 1 : 0][card];
}

/* C6 without the wild clause: the active color, or the top card's face. */
UNO_HD static inline int uno_matches(const uno_game *g, int card)
{
    return uno_color(g, card) == g->color || uno_face(g, card) == g->top_face;
}

UNO_HD static inline int uno_playable(const uno_game *g, int card)
{
    return uno_color(g, card) == UNO_NO_COLOR || uno_matches(g, card);
}

/* C-H1: the stacking family of a card, the bit of uno_config.stacking it belongs to. */
UNO_HD static inline int uno_stack_family(const uno_game *g, int card)
{
    int e = g->t->effect[g->t->card_kind[g->side][card]];
    return e == UNO_DRAW_CARDS ? 1 : e == UNO_WILD_DRAW ? 2 : 0;
}

/*
 * C-H1: whether `card` may answer the draw card on top of the discard pile:
 * both families enabled, the same family or (under both) a wild draw card on
 * a colored one, and playable (C6).  reference.Game.can_stack.
 */
UNO_HD static inline int uno_can_stack(const uno_game *g, int card)
{
    int mode = UNO_CFG(g->cfg, stacking), f = uno_stack_family(g, card);
    int top = uno_stack_family(g, g->discard[g->n_discard - 1]);
    return (mode & f) && (mode & top) && f >= top && uno_playable(g, card);
}

/* Bitsets over ranks (uno_hand). */
UNO_HD static UNO_ALWAYS_INLINE int uno_ctz64(uint64_t x)
{
#if UNO_DEVICE
    return __ffsll((long long)x) - 1;
#elif defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* The popcnt instruction where the target has it; else an inline SWAR count (GCC's
   __builtin_popcountll would be a libgcc call there). */
UNO_HD static UNO_ALWAYS_INLINE int uno_popcount64(uint64_t x)
{
#if UNO_DEVICE
    return __popcll(x);
#elif defined(__GNUC__) && defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

/* a & m */
UNO_HD static inline uno_hand uno_bits_and(const uno_hand *a, const uno_hand *m)
{
    uno_hand r;
    for (int i = 0; i < UNO_HAND_WORDS; i++)
        r.w[i] = a->w[i] & m->w[i];
    return r;
}

UNO_HD static inline int uno_bits_any(const uno_hand *a)
{
    uint64_t x = 0;
    for (int i = 0; i < UNO_HAND_WORDS; i++)
        x |= a->w[i];
    return x != 0;
}

/*
 * Width: a deck of at most 128 cards has ranks below 128, so only the first two
 * words of its bitsets are ever set.  The hot functions take the words to read
 * as a constant W (2 or 4, chosen once per call by uno_narrow) so that each is
 * compiled for both widths from one source; the others read all four.
 */
UNO_HD static inline int uno_narrow(const uno_table *t)
{
    return UNO_SPEC_OR(UNO_SPEC_TBL_cards, t->n_cards) <= 128;
}

UNO_HD static UNO_ALWAYS_INLINE int uno_bits_meet_w(const uno_hand *a, const uno_hand *m, const int W)
{
    uint64_t x = 0;
    for (int i = 0; i < W; i++)
        x |= a->w[i] & m->w[i];
    return x != 0;
}

UNO_HD static inline int uno_bits_meet(const uno_hand *a, const uno_hand *m)
{
    return uno_bits_meet_w(a, m, UNO_HAND_WORDS);
}

UNO_HD static UNO_ALWAYS_INLINE int uno_bits_count_w(const uno_hand *a, const int W)
{
    int n = 0;
    for (int i = 0; i < W; i++)
        n += uno_popcount64(a->w[i]);
    return n;
}

UNO_HD static inline int uno_bits_count(const uno_hand *a)
{
    return uno_bits_count_w(a, UNO_HAND_WORDS);
}

/* The lowest set rank of a (its first W words), or -1 when they are empty. */
UNO_HD static UNO_ALWAYS_INLINE int uno_bits_first_w(const uno_hand *a, const int W)
{
    if (W == 2) { /* no branch on which word holds it (data-dependent, mispredicted) */
        const uint64_t w0 = a->w[0], w1 = a->w[1];
        const uint64_t low_empty = (uint64_t)0 - (uint64_t)(w0 == 0);
        const uint64_t x = w0 | (w1 & low_empty);
        return x ? (int)(low_empty & 64) + uno_ctz64(x) : -1;
    }
    for (int i = 0; i < W; i++)
        if (a->w[i])
            return 64 * i + uno_ctz64(a->w[i]);
    return -1;
}

UNO_HD static inline int uno_bits_first(const uno_hand *a)
{
    return uno_bits_first_w(a, UNO_HAND_WORDS);
}

/* The rank of the k-th set bit of a (k < uno_bits_count(a)). */
UNO_HD static inline int uno_bits_select(const uno_hand *a, int k)
{
    for (int i = 0; i < UNO_HAND_WORDS; i++) {
        uint64_t w = a->w[i];
        int c = uno_popcount64(w);
        if (k < c) {
            while (k-- > 0)
                w &= w - 1;
            return 64 * i + uno_ctz64(w);
        }
        k -= c;
    }
    return -1;
}

/* How many set bits of a lie below rank r: a card's hand index. */
UNO_HD static inline int uno_bits_below(const uno_hand *a, int r)
{
    int n = 0;
    for (int i = 0; i < r >> 6; i++)
        n += uno_popcount64(a->w[i]);
    if (r & 63)
        n += uno_popcount64(a->w[r >> 6] & ((UINT64_C(1) << (r & 63)) - 1));
    return n;
}

UNO_HD static UNO_ALWAYS_INLINE void uno_bits_set(uno_hand *a, int r)
{
    a->w[r >> 6] |= UINT64_C(1) << (r & 63);
}

UNO_HD static UNO_ALWAYS_INLINE void uno_bits_clear(uno_hand *a, int r)
{
    a->w[r >> 6] &= ~(UINT64_C(1) << (r & 63));
}

/* Iterates the set ranks of the uno_hand expression `a` in rank order: `r` is each rank. */
#define UNO_BITS_FOR(a, r) UNO_BITS_FOR_W(a, r, UNO_HAND_WORDS)
/* The same over the first W words only (a constant: see uno_narrow). */
#define UNO_BITS_FOR_W(a, r, W)                                                                    \
    for (int uno_i_ = 0; uno_i_ < (W); uno_i_++)                                                   \
        for (uint64_t uno_w_ = (a).w[uno_i_]; uno_w_; uno_w_ &= uno_w_ - 1)                        \
            for (int r = 64 * uno_i_ + uno_ctz64(uno_w_), uno_once_ = 1; uno_once_; uno_once_ = 0)

/* Cards of a hand (ranks of the side in play). */
UNO_HD static inline int uno_rank(const uno_game *g, int card)
{
    return g->t->rank[g->side][card];
}

UNO_HD static UNO_ALWAYS_INLINE int uno_card_at(const uno_game *g, int r)
{
    return g->t->unrank[g->side][r];
}

/* p now holds `card` (never held before). */
UNO_HD static UNO_ALWAYS_INLINE void uno_hand_add(uno_game *g, int p, int card)
{
    uno_bits_set(&g->hand[p], g->t->rank[g->side][card]);
    if (UNO_TWO_SIDED(g))
        uno_bits_set(&g->hand_alt[p], g->t->rank[g->side ^ 1][card]);
    g->hand_n[p]++;
}

/* p gives up `card` (held). */
UNO_HD static UNO_ALWAYS_INLINE void uno_hand_remove(uno_game *g, int p, int card)
{
    uno_bits_clear(&g->hand[p], g->t->rank[g->side][card]);
    if (UNO_TWO_SIDED(g))
        uno_bits_clear(&g->hand_alt[p], g->t->rank[g->side ^ 1][card]);
    g->hand_n[p]--;
}

/* Seats a and b exchange their hands (both representations). */
UNO_HD static inline void uno_hands_swap(uno_game *g, int a, int b)
{
    uno_hand tmp = g->hand[a];
    g->hand[a] = g->hand[b];
    g->hand[b] = tmp;
    if (UNO_HAS_ALT) {
        tmp = g->hand_alt[a];
        g->hand_alt[a] = g->hand_alt[b];
        g->hand_alt[b] = tmp;
    }
    int n = g->hand_n[a];
    g->hand_n[a] = g->hand_n[b];
    g->hand_n[b] = n;
}

/* The card at hand index i of p (0 <= i < hand_n[p]): the i-th in rank order. */
UNO_HD static inline int uno_hand_card(const uno_game *g, int p, int i)
{
    return g->t->unrank[g->side][uno_bits_select(&g->hand[p], i)];
}

/* The hand index of a card p holds. */
UNO_HD static inline int uno_hand_index(const uno_game *g, int p, int card)
{
    return uno_bits_below(&g->hand[p], g->t->rank[g->side][card]);
}

/* p's cards in hand order (rank order) into out[]; returns how many. */
UNO_HD static inline int uno_hand_cards(const uno_game *g, int p, uint8_t *out)
{
    const uint8_t *un = g->t->unrank[g->side];
    int n = 0;
    UNO_BITS_FOR(g->hand[p], r)
        out[n++] = un[r];
    return n;
}

/* The cards of the active color (a colorless card when there is none), on the side in play. */
UNO_HD static UNO_ALWAYS_INLINE const uno_hand *uno_color_cards(const uno_game *g, int color)
{
    return &g->t->color_mask[g->side][color + 1];
}

/* A deck of at most 128 cards (uno_narrow): p's count of each of the four colors of the
   side in play, as four popcounts (no loop whose length is the hand's). */
UNO_HD static UNO_ALWAYS_INLINE void uno_color_counts_narrow(const uno_game *g, int p, int mine[4])
{
    const uno_hand *m = &g->t->color_mask[g->side][1 + 4 * g->side], *h = &g->hand[p];
    for (int c = 0; c < 4; c++)
        mine[c] = uno_popcount64(h->w[0] & m[c].w[0]) + uno_popcount64(h->w[1] & m[c].w[1]);
}

/* The first of the four colors with the highest score. */
UNO_HD static UNO_ALWAYS_INLINE int uno_best_color(const int score[4])
{
    int best = 0;
    for (int c = 1; c < 4; c++)
        if (score[c] > score[best])
            best = c;
    return best;
}

/* Whether p holds a card of the active color: what makes a restricted card a bluff (C7). */
UNO_HD static UNO_ALWAYS_INLINE int uno_holds_color_w(const uno_game *g, int p, const int W)
{
    return uno_bits_meet_w(&g->hand[p], uno_color_cards(g, g->color), W);
}

UNO_HD static inline int uno_holds_color(const uno_game *g, int p)
{
    return uno_holds_color_w(g, p, UNO_HAND_WORDS);
}

/*
 * The cards of hand h that are playable now (C6: a wild, the active color or the
 * top card's face); words W.. of the answer are zero.
 */
UNO_HD static UNO_ALWAYS_INLINE uno_hand uno_playable_cards_w(const uno_game *g, const uno_hand *h, const int W)
{
    const uno_table *t = g->t;
    const int side = g->side;
    const uno_hand *wild = &t->color_mask[side][0], *col = &t->color_mask[side][g->color + 1];
    uno_hand r;
    for (int i = W; i < UNO_HAND_WORDS; i++)
        r.w[i] = 0;
    if (UNO_LIKELY(t->faces_ok[side] && g->top_face < 32)) { /* every stock deck */
        const uno_hand *face = &t->face_mask[side][g->top_face];
        for (int i = 0; i < W; i++)
            r.w[i] = h->w[i] & (wild->w[i] | col->w[i] | face->w[i]);
        return r;
    }
    for (int i = 0; i < W; i++)
        r.w[i] = h->w[i] & (wild->w[i] | col->w[i]);
    const uint8_t *face = t->card_face[side], *un = t->unrank[side];
    UNO_BITS_FOR(*h, q)
        if (face[un[q]] == g->top_face)
            uno_bits_set(&r, q);
    return r;
}

UNO_HD static inline uno_hand uno_playable_cards(const uno_game *g, const uno_hand *h)
{
    return uno_playable_cards_w(g, h, UNO_HAND_WORDS);
}

/*
 * The legal plays of p (reference.Game.has_legal_play's cards): playable and not a
 * bluff (a restricted card while holding the active color, C7).
 */
UNO_HD static UNO_ALWAYS_INLINE uno_hand uno_legal_cards_w(const uno_game *g, int p, const int W)
{
    uno_hand r = uno_playable_cards_w(g, &g->hand[p], W);
    if (uno_holds_color_w(g, p, W)) {
        const uno_hand *rs = &g->t->restricted_mask[g->side];
        for (int i = 0; i < W; i++)
            r.w[i] &= ~rs->w[i];
    }
    return r;
}

UNO_HD static inline uno_hand uno_legal_cards(const uno_game *g, int p)
{
    return uno_legal_cards_w(g, p, UNO_HAND_WORDS);
}

/* The card of the lowest rank among `cards` (its first W words), or UNO_DRAW when none. */
UNO_HD static UNO_ALWAYS_INLINE int uno_first_card_w(const uno_game *g, const uno_hand *cards, const int W)
{
    int r = uno_bits_first_w(cards, W);
    return r < 0 ? UNO_DRAW : uno_card_at(g, r);
}

/*
 * reference.GreedyPolicy.choose_play after its bluff question (policy.c greedy_play):
 * the best colored card (the first playable colored card in hand order: hands are
 * in priority order, highest value first) unless the voluntary_draw knob draws; else a
 * legal restricted wild, else a Wild, else UNO_DRAW.  Inline here so that the
 * engine's turn calls it directly for a greedy seat that never bluffs.  has_color:
 * uno_holds_color_w's answer, or -1 to have it asked only when no colored card plays.
 * volunteer (a constant): 0 where the caller knows the voluntary_draw knob to be 0.
 */
UNO_HD static UNO_ALWAYS_INLINE int uno_greedy_honest_w(uno_game *g, int p, const uno_policy *pol,
                                                 int has_color,
                                      const int W, const int volunteer)
{
    const uno_table *t = g->t;
    const int side = g->side;
    const uno_hand *wild = &t->color_mask[side][0], *h = &g->hand[p];
    uno_hand ok; /* the playable colored cards: uno_playable_cards_w less the wilds */
    if (UNO_LIKELY(t->faces_ok[side] && g->top_face < 32)) { /* every stock deck */
        const uno_hand *col = &t->colored_mask[side][g->color + 1],
                       *face = &t->colored_face_mask[side][g->top_face];
        for (int i = 0; i < W; i++)
            ok.w[i] = h->w[i] & (col->w[i] | face->w[i]);
    } else {
        ok = uno_playable_cards_w(g, h, W);
        for (int i = 0; i < W; i++)
            ok.w[i] &= ~wild->w[i];
    }
    int best = uno_first_card_w(g, &ok, W);
    if (best != UNO_DRAW)
        return volunteer && uno_dec_bernoulli(g, p, UNO_DK_VOLUNTARY, UNO_POL(pol, voluntary_draw))
                   ? UNO_DRAW
                   : best;
    const uno_hand *rs = &t->restricted_mask[g->side];
    uno_hand w;
    for (int i = 0; i < W; i++)
        w.w[i] = g->hand[p].w[i] & wild->w[i];
    if (has_color < 0) /* not asked yet: only this branch needs it */
        has_color = uno_holds_color_w(g, p, W);
    if (!has_color) { /* a legal restricted wild first: it also hurts the next player */
        uno_hand r;
        for (int i = 0; i < W; i++)
            r.w[i] = w.w[i] & rs->w[i];
        best = uno_first_card_w(g, &r, W);
        if (best != UNO_DRAW)
            return best;
    }
    for (int i = 0; i < W; i++)
        w.w[i] &= ~rs->w[i];
    return uno_first_card_w(g, &w, W);
}

/*
 * Recomputes g->next_seat from g->active (the engine calls it whenever a
 * seat's active flag changes): for each seat and direction, the next active
 * seat walking that way.
 */
UNO_HD static inline void uno_seats_update(uno_game *g)
{
    for (int d = 0; d < 2; d++) {
        int step = d ? 1 : -1;
        for (int s = 0; s < UNO_N(g); s++) {
            int p = s;
            for (int k = 0; k < UNO_N(g); k++) { /* at most n steps: never spins */
                p += step;
                if (p >= UNO_N(g))
                    p = 0;
                else if (p < 0)
                    p = UNO_N(g) - 1;
                if (g->active[p])
                    break;
            }
            g->next_seat[d][s] = (int8_t)p;
        }
    }
}

/*
 * The draw pile's shuffle, taken lazily.  uno_rng_shuffle_u8 takes its steps
 * i = n-1 .. 1 from the top of the pile down; the cards drawn in a round are
 * mostly far fewer than the pile, so the engine takes step i only when card i
 * is about to be drawn.  The deal stream gives the same numbers in the same
 * order as the eager shuffle as long as every other use of it (and every look
 * at the pile's order) first settles the pending steps: the games are the same.
 */
UNO_HD static inline void uno_draw_settle(uno_game *g)
{
    /* the pending steps i = bag-1 .. 1 are exactly a shuffle of draw[0..bag) */
    uno_rng_shuffle_u8(&g->deal, g->draw, g->bag);
    g->bag = 0;
}

/* The draw pile's n cards (draw[0..n)) are to be shuffled by the deal stream. */
UNO_HD static inline void uno_draw_shuffle(uno_game *g, int n)
{
    g->n_draw = n;
    g->bag = n;
}

/* Takes the top card of the (non-empty) draw pile. */
UNO_HD static UNO_ALWAYS_INLINE int uno_draw_pop(uno_game *g)
{
    int i = --g->n_draw;
    return uno_rng_lazy_take(&g->deal, g->draw, i, &g->bag);
}

/* The seat after p in the current direction, skipping eliminated seats. */
UNO_HD static UNO_ALWAYS_INLINE int uno_next(const uno_game *g, int p)
{
    return g->next_seat[g->direction > 0][p];
}

/* Validates a config against a table; returns UNO_OK or UNO_ERR_CONFIG. */
UNO_HD int uno_config_check(const uno_config *cfg, const uno_table *t, const uno_policy *pol);

/*
 * Play one complete game (reference.play_game) with the generator `rng`
 * (seeded by the caller: uno_rng_seed(rng, key, game)).  `pol` holds one
 * policy per seat; `tr` may be NULL.  Returns res->status.
 */
UNO_HD int uno_play_game(const uno_config *cfg, const uno_table *t, const uno_policy *pol, uno_rng *rng,
                  uno_trace *tr, uno_result *res);

/*
 * Scenario API (reference.play_round): one round from `deck` (card ids, top
 * card first; NULL: shuffled) dealt by `dealer`, starting from `scores`
 * (NULL: zeros), then scored.  Returns res->status.
 */
UNO_HD int uno_play_round(const uno_config *cfg, const uno_table *t, const uno_policy *pol, uno_rng *rng,
                   const uint8_t *deck, int dealer, const int32_t *scores, uno_trace *tr,
                   uno_result *res);
/* Round `round` (1-based) of game `game` of the run `key` as that game would deal it (a
   round's deal and decision streams depend on its game and number only, docs/engine.md),
   dealt by `dealer` from `scores`, then scored: the studies' control variates play a
   game's round again from other scores. */
UNO_HD int uno_play_round_of(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                             const uint64_t key[4], uint64_t game, int round, int dealer,
                             const int32_t *scores, uno_result *res);

/*
 * Column outputs of uno_play_games: row i describes game first_game + i.
 * Any pointer may be NULL.  Per-seat columns are n_games x players,
 * row-major.
 */
struct uno_round_rows {
    int64_t cap;          /* rows of room in every array */
    int64_t n;            /* rows written */
    int64_t *game;
    int32_t *round, *dealer, *starter, *winner, *turns, *reshuffles;
    int32_t *points;      /* cap x players: what each seat scored (C17-C19) */
    int32_t *cards_left;  /* cap x players: cards in hand when the round ended */
    struct uno_agg *agg;  /* NULL; else no row is written: each round is added to this
                             aggregate record (uno_agg_round) instead (uno_columns.agg) */
};

typedef struct uno_columns {
    int64_t *game;
    int8_t *winner, *team;
    int32_t *rounds, *turns, *reshuffles, *stalemates;
    int32_t *scores;      /* n_games x players */
    int32_t *team_scores; /* n_games x 2 */
    int32_t *counters[UNO_N_COUNTERS];
    /*
     * Per-round rows (NULL: none), one per round in play order.  When the
     * next game's rounds would not fit, uno_play_games stops before that game
     * with UNO_ERR_FULL, rows->n and games_done counting only the complete
     * games: grow the arrays and call again from first_game + games_done.
     */
    uno_round_rows *rows;
    int64_t games_done;
    /*
     * NULL, or the aggregate record (uno_agg, below) each game is added to as it
     * ends, its rounds as they end: then no round rows are written (`rows` is not
     * read) and the columns may all be NULL.  With a search seat (CPU), the game's
     * search counters are added too.  A batch that fails leaves the record partial.
     */
    struct uno_agg *agg;
} uno_columns;

/*
 * Play games first_game .. first_game + n_games - 1 of the run `key`, game g
 * with uno_rng_seed(key, g).  Returns UNO_OK, or the first failing status
 * (stopping there); UNO_ERR_CONFIG before any game when the configuration is
 * invalid (checked once for the batch); UNO_ERR_STOPPED before a game when the
 * stop flag is raised ("Stopping a long call"; games_done counts the complete games).
 */
UNO_HD int uno_play_games(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                   const uint64_t key[4], uint64_t first_game, int64_t n_games,
                   uno_columns *out);

/*
 * Policy decisions (policy.c), the C twins of the policy classes of
 * reference.py.  Each dispatches on g->pol[p].id; a user policy's decision
 * goes through its callback (an abort longjmps to g->bail).
 */
UNO_HD int uno_choose_play(uno_game *g, int p);
UNO_HD int uno_choose_replacement(uno_game *g, int p);
UNO_HD int uno_choose_color(uno_game *g, int p);
/* p's count of each of the four colors of the side in play (wilds not counted): what the
   built-in policies name a color by (C9). */
UNO_HD void uno_color_counts(const uno_game *g, int p, int mine[4]);
UNO_HD int uno_wants_challenge(uno_game *g, int victim, int offender, int prev_color);
UNO_HD int uno_forgets_uno(uno_game *g, int p);
UNO_HD int uno_catches(uno_game *g, int q, int p);
UNO_HD int uno_plays_drawn(uno_game *g, int p, int bluff);
/* P2: the opponent a targeted card of p aims at (see policy.c). */
UNO_HD int uno_choose_target(uno_game *g, int p, int card);
/* P2: the seats a targeted card of p may aim at, in play order, into cand[UNO_MAX_PLAYERS];
   returns how many (see legal.c). */
UNO_HD int uno_target_candidates(const uno_game *g, int p, int *cand);
/* S3: the hand index of a card p puts down, `need` still to go (see policy.c). */
UNO_HD int uno_choose_discard(uno_game *g, int p, int need);
/* C-H1: a hand index answering a pending `total`, or UNO_DRAW (see policy.c). */
UNO_HD int uno_choose_stack(uno_game *g, int p, int total);
/* C-H4: whether p jumps in with its card identical to `card`. */
UNO_HD int uno_wants_jump(uno_game *g, int p, int card);
/*
 * Plays game `game` of the run `key` (as uno_play_games does) with `force`
 * (see uno_force): its decision points are counted and described, and the
 * `force->index`-th one answered `force->value`.  Returns res->status.
 */
UNO_HD int uno_play_forced(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                    const uint64_t key[4], uint64_t game, uno_force *force, uno_trace *tr,
                    uno_result *res);
/* uno_play_forced with one row per round of the game in `rows` (as uno_play_games writes
   them; UNO_ERR_FULL when they do not fit): what the studies' control variates read. */
UNO_HD int uno_play_forced_rows(const uno_config *cfg, const uno_table *t,
                                const uno_policy *pol, const uint64_t key[4], uint64_t game,
                                uno_force *force, uno_round_rows *rows, uno_result *res);

/* Whether a user policy's answer r to `decision` is in range for seat p (see policy.c). */
UNO_HD int uno_answer_ok(const uno_game *g, int p, int decision, int r);

/*
 * The legal actions of seat p at `decision` (enum uno_decision; `arg` as passed to
 * the callback), written into the caller's out[UNO_MAX_ACTIONS] in the order a user
 * policy's obs.actions lists them; returns how many (legal.c).  Encoding:
 *
 *   PLAY, REPLACEMENT,   2 * hand index + bluff for each card that may be played, in
 *   STACK, DISCARD       hand order (bluff: a restricted card while holding the active
 *                        color, C7), then UNO_DRAW when drawing is allowed:
 *                        PLAY   every playable card (C6), UNO_DRAW unless forced_play
 *                               (C-H3) and a card that is not a bluff is held
 *                        REPLACEMENT  the playable cards that are not bluffs (C12)
 *                        STACK  the cards that may answer (uno_can_stack, C-H1), UNO_DRAW
 *                        DISCARD  every card of the hand (S3), no bluff flag
 *   COLOR                4 * side + c, c = 0..3
 *   TARGET               the candidate seats (uno_target_candidates)
 *   the others (yes/no)  1, 0
 */
#define UNO_MAX_ACTIONS (UNO_HAND_CAP + 1)
UNO_HD int uno_legal_actions(const uno_game *g, int p, int decision, int arg, int32_t *out);
/* reference.bluff_probability: what `victim` can estimate (see policy.c). */
UNO_HD double uno_bluff_probability(const uno_game *g, int victim, int offender, int prev_color);

/*
 * Clone a game, force a decision, play on (search.c).
 *
 * The engine's decisions happen deep inside a turn (take_turn, resolve), so a state in
 * the middle of a turn cannot be resumed directly.  Instead a game is cloned as it
 * stood at the start of a turn and the turn is replayed: a uno_script answers every
 * decision of the clone, first from its entries (the answers given since the start of
 * that turn, any seat), then from its hook, which is called at each decision once the
 * entries are spent and may hand the game back to built-in policies by pointing g->pol
 * elsewhere.  A search player (pimc, ismcts) uses it with a sampled state and a hook
 * that answers the decision being searched and plays on by rollout policies; a stepping
 * environment could use the same pieces with a hook that stops at every decision.
 *
 *   uno_game_clone(dst, src)     copies the game up to (not including) its `own` table;
 *                                dst->t still points at src's table
 *   uno_script_attach(g, s)      every seat of g answers from the script s (s->pol)
 *   uno_round_continue(g, p)     plays g's round on from the start of seat p's turn:
 *                                the winner, -1 for a stalemate, or UNO_CONTINUE_LIMIT
 *   uno_game_finish(g, w, res)   scores the round w won, plays the game's later rounds
 *                                and fills res (returns res->status)
 *
 * Answers are the engine's: a card id (or UNO_DRAW) where a user policy answers a hand
 * index, else the user policy's answer.  An entry that does not fit the decision met
 * (another seat or decision, a card not held or not playable) longjmps to *s->diverged:
 * the clone does not follow the record (but see `observer`).
 */
typedef struct uno_script_entry {
    int32_t seat, decision, arg, answer;
} uno_script_entry;
typedef int (*uno_script_hook)(void *ctx, struct uno_game *g, int seat, int decision, int arg);
typedef struct uno_script {
    const uno_script_entry *e; /* the entries, answered in order */
    int n, next;               /* how many; the next to answer */
    uno_script_hook hook;      /* answers once they are spent (NULL: the clone diverged) */
    void *ctx;                 /* passed to hook */
    /* -1: every entry must fit exactly.  A seat o: the clone is a state o cannot tell
       from the true one, and only what o sees must fit: another seat's decisions that
       are asked only because of the cards it holds (a jump-in, C-H4; a stack, C-H1;
       playing a drawn card, C8) and were declined may be asked or not (declined again),
       and whether its drawn card would be a bluff (C7) is not compared */
    int observer;
#if defined(__CUDACC_RTC__)
    void *diverged; /* no setjmp on a GPU: CPU only */
#else
    jmp_buf *diverged;         /* longjmp target of an entry that does not fit */
#endif
    uno_policy pol[UNO_MAX_PLAYERS]; /* filled by uno_script_attach: every seat calls the script */
} uno_script;
#define UNO_CONTINUE_LIMIT (-2)
#if !defined(__CUDACC_RTC__) /* CPU only (search.c, env.c): not in the GPU build */
void uno_game_clone(struct uno_game *dst, const struct uno_game *src);
void uno_script_attach(struct uno_game *g, uno_script *s);
#endif
UNO_HD int uno_round_continue(struct uno_game *g, int p);
/* The same from a clone of a round's start, its starter turned up but not yet resolved
   (C5): the starter's effect, then the turns (the search's round-start snapshot). */
UNO_HD int uno_round_continue_starter(struct uno_game *g, int dealer);
UNO_HD int uno_game_finish(struct uno_game *g, int winner, uno_result *res);
/*
 * A check of the above on a real game: plays game `game` of the run `key` recorded, and
 * at its at-th decision (0-based, every seat's decisions counted) clones the game as it
 * stood at the start of that turn (no sampling, the same streams), replays the turn
 * with a script of the record, answers the decision as the game did and plays the
 * clone to its end with the seats' own policies into *fork (status -1: the decision
 * was not reached or had no snapshot; -2, -3: the replay did not follow).  The game's
 * own result goes to *res: both must equal uno_play_game's (tests/test_search.py).
 */
#if !defined(__CUDACC_RTC__) /* CPU only (search.c): not in the GPU build */
int uno_play_fork(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                  const uint64_t key[4], uint64_t game, int64_t at, uno_result *res,
                  uno_result *fork);
#endif
/*
 * The search players' counters, per seat (docs/policies.md "Search players"):
 * decisions searched (more than one legal answer, answered from the samples), decisions
 * answered by the rollout policy instead because no sample could be built, samples
 * drawn (pimc's samples, ismcts's iterations) and samples dropped (the sampled state
 * could not be built, or the replay of the turn did not follow the record).
 */
enum {
    UNO_SS_SEARCHED = 0,
    UNO_SS_FALLBACK,
    UNO_SS_SAMPLES,
    UNO_SS_DROPPED,
    UNO_SEARCH_STATS
};
#if !defined(__CUDACC_RTC__) /* CPU only (search.c, env.c): not in the GPU build */
/* The search players' hooks (search.c), for uno_config.search when a seat searches. */
extern const uno_search_hooks uno_search_players;

/*
 * uno_play_games, and each game's search counters into stats (n_games x players x
 * UNO_SEARCH_STATS, row-major; zeros for a seat that is not a search player).
 */
int uno_play_games_search(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                          const uint64_t key[4], uint64_t first_game, int64_t n_games,
                          uno_columns *out, int64_t *stats);
#endif

/*
 * Aggregates (aggregate.c): what the run summary needs of a batch of games, added up as
 * the games are played, with no per-game columns (uno_sim/runner/aggregate.py turns a
 * record into the summary's aggregates, equal number for number to those computed from
 * the columns).  Every field is an int64 count, so that a record is a flat array of
 * UNO_AGG_WORDS words and records of any parts of a run (shards, threads, GPU blocks)
 * merge by adding word to word, in any order: exact, whatever the partition.
 *
 * Wins are counted in units of 1 / UNO_AGG_WIN of a game: a win shared by k seats (the
 * lowest scores, C20) gives each UNO_AGG_WIN / k, exact for k <= UNO_MAX_PLAYERS.  The
 * histograms cover every value the engine's limits allow (rounds per game up to
 * UNO_MAX_ROUNDS, turns per round up to UNO_MAX_TURNS), so that medians are exact; a
 * value past them (only with uno_config limits above the engine's) counts in `over`.
 * turns_hist comes last: a copy may stop after its last nonzero bin.
 */
#define UNO_AGG_WIN 2520 /* lcm(1..10) */
#define UNO_AGG_ROUNDS (UNO_MAX_ROUNDS + 1)
#define UNO_AGG_TURNS (UNO_MAX_TURNS + 1)
typedef struct uno_agg {
    int64_t games;
    int64_t rounds, turns, points; /* sums over the games (points: every seat's final score) */
    int64_t reshuffles, stalemates;
    int64_t over;                  /* values past a histogram's last bin */
    int64_t wins[UNO_MAX_PLAYERS]; /* per seat, in 1 / UNO_AGG_WIN of a game */
    int64_t team_wins[2];          /* games won per team (team play) */
    int64_t counters[UNO_N_COUNTERS][UNO_MAX_PLAYERS];       /* sums of uno_result.counters */
    int64_t search[UNO_MAX_PLAYERS][UNO_SEARCH_STATS];        /* sums of the search counters */
    int64_t rounds_hist[UNO_AGG_ROUNDS]; /* games by their number of rounds */
    int64_t turns_hist[UNO_AGG_TURNS];   /* rounds by their number of turns */
} uno_agg;
#define UNO_AGG_WORDS ((int64_t)(sizeof(uno_agg) / sizeof(int64_t)))

/* Every count 0. */
UNO_HD void uno_agg_clear(uno_agg *a);
/* Adds one game that ended UNO_OK (its rounds go through uno_agg_round as they end). */
UNO_HD void uno_agg_game(uno_agg *a, const uno_result *res, int players);
/* Adds one round of `turns` turns. */
UNO_HD void uno_agg_round(uno_agg *a, int64_t turns);
/* Adds one game's search counters (players x UNO_SEARCH_STATS, row-major). */
UNO_HD void uno_agg_search(uno_agg *a, const int64_t *stats, int players);
/* dst += src, word by word. */
UNO_HD void uno_agg_merge(uno_agg *dst, const uno_agg *src);

/*
 * Game pieces for a stepping environment (game.c): a new game in g as uno_play_game
 * begins one (the generator rng seeded by the caller; no trace, no rows; the re-pairing
 * of F1 into g->own), returning the first dealer; and g's rounds from the one `dealer`
 * deals to the end of the game (what uno_play_game plays after the dealer draw).
 */
UNO_HD int uno_game_start(struct uno_game *g, const uno_config *cfg, const uno_table *t,
                   const uno_policy *pol, uno_rng *rng);
UNO_HD int uno_game_rounds(struct uno_game *g, int dealer, uno_result *res);

/*
 * Observations and action masks of a learning seat (observe.c; docs/env.md "Observation",
 * "Actions").  A uno_obs_layout fixes the blocks' offsets for a deck of n_kinds kinds and
 * `seats` seat slots (the players, or more: the slots past the players stay zero, so
 * that one size fits every player count); `scale[b]` multiplies block b's counts (1: the
 * raw counts).  uno_observe writes seat's observation o[size] and mask m[n_actions] at
 * `decision` (arg as passed to a user policy) and, per card kind, the hand index of the
 * first card of that kind (-1 none) into kind_index[n_kinds]; uno_env_answer turns a
 * legal action id into the answer a user policy returns.
 */
enum uno_obs_block {
    UNO_OB_DECISION = 0, UNO_OB_HAND, UNO_OB_TOP, UNO_OB_COLOR, UNO_OB_DIRECTION,
    UNO_OB_HAND_SIZES, UNO_OB_ACTIVE, UNO_OB_SCORES, UNO_OB_FAILED, UNO_OB_NEXT_SEAT,
    UNO_OB_DRAW_PILE, UNO_OB_DISCARDS, UNO_OB_ROUND, UNO_OB_TURN, UNO_OB_PENDING,
    UNO_OB_TO_DISCARD, UNO_OB_OFFENDER, UNO_OB_PREVIOUS_COLOR, UNO_OB_FORGETTER, UNO_OB_CARD,
    UNO_OB_REVEALED_SEAT, UNO_OB_REVEALED, UNO_OB_SIDE, UNO_OB_OTHER_FACES, UNO_OB_NEXT_DRAW,
    UNO_OB_SILENT, UNO_OB_COUNT
};
#define UNO_ENV_DECISIONS 11 /* the decision block: enum uno_decision 0..10 */
typedef struct uno_obs_layout {
    int32_t n_kinds, seats, flip, extreme;
    int32_t size, n_actions;
    int32_t off[UNO_OB_COUNT];  /* -1: the block is absent (side.. only with flip, ...) */
    int32_t len[UNO_OB_COUNT];
    float scale[UNO_OB_COUNT];
    int32_t a_draw, a_yes, a_no, a_color, a_target; /* first ids of the action blocks */
} uno_obs_layout;
UNO_HD void uno_obs_layout_init(uno_obs_layout *L, int n_kinds, int seats, int flip, int extreme);
UNO_HD void uno_observe(const struct uno_game *g, const uno_obs_layout *L, int seat, int decision,
                        int arg, float *o, int8_t *m, int16_t *kind_index);
/* The action id of L that an engine answer (a card id or UNO_DRAW, a color, a seat, 0/1)
   to seat's decision in g stands for: uno_env_answer's inverse. */
UNO_HD int uno_action_id(const struct uno_game *g, const uno_obs_layout *L, int seat,
                         int decision, int answer);
/* -1 when `action` is out of range for the decision (the caller checks it with the mask) */
UNO_HD int uno_env_answer(const uno_obs_layout *L, int players, int side, int seat, int decision,
                          int action, const int16_t *kind_index);

/* The vector environment's scaling of the count blocks (docs/env.md "Normalisation";
   uno_sim.vecenv.scales): hand sizes, rounds, pending and the like x 0.1, scores / target,
   the draw pile / the deck's cards, turns x 0.01.  Every other block stays as it is. */
UNO_HD void uno_obs_scale_env(uno_obs_layout *L, int target, int n_cards);

/*
 * The network player (net.c; docs/net.md).  A uno_net is the header of one block of memory
 * whose float32 weights follow it, `data` bytes from its start: copy the block and the copy
 * works as it is (the GPU build reads it from device memory).  The network reads the
 * observation of `L` (the layout of its file: n_kinds, seats, flip, extreme) with the
 * vector environment's scaling of the game it plays, and writes one logit per action id
 * and a value.  Layer l (hidden 0..n_layers-1, then the policy head, then the value head)
 * has in[l] inputs and out[l] outputs, its weights W[in][out] at float w[l] and its bias
 * at float b[l] of the weights.
 */
#define UNO_NET_MAX_LAYERS 4     /* hidden layers */
#ifndef UNO_NET_MAX_WIDTH        /* a build may lower it to its networks' widest layer */
#define UNO_NET_MAX_WIDTH 1024   /* units of a hidden layer */
#endif
#ifndef UNO_NET_MAX_OBS          /* a build may lower it to its networks' largest */
#define UNO_NET_MAX_OBS 4352     /* the largest observation: 255 kinds, 10 seats, Flip */
#endif
#define UNO_NET_MAX_ACTIONS (UNO_MAX_KINDS + 7 + UNO_MAX_PLAYERS)
typedef struct uno_net {
    uno_obs_layout L;   /* the observation it reads (scales 1: the game's are applied) */
    int32_t n_layers;   /* hidden layers, 1..UNO_NET_MAX_LAYERS */
    int32_t in[UNO_NET_MAX_LAYERS + 2], out[UNO_NET_MAX_LAYERS + 2];
    int64_t w[UNO_NET_MAX_LAYERS + 2], b[UNO_NET_MAX_LAYERS + 2];
    int64_t n_floats;   /* weights following the header */
    int64_t data;       /* bytes from the start of the block to the weights */
} uno_net;
/* Fills the header of a network of this layout and hidden widths; returns the number of
   weights that must follow it (`data` bytes from its start), or -1 for sizes out of range. */
UNO_HD int64_t uno_net_setup(uno_net *net, int n_kinds, int seats, int flip, int extreme,
                             int n_layers, const int32_t *widths);
/* The forward pass of docs/net.md on observation obs[L.size] (inputs equal to 0 skipped,
   float32, no fused multiply-add): logits[L.n_actions] (NULL: not computed) and the value
   head's output (NULL: not computed). */
UNO_HD void uno_net_forward(const uno_net *net, const float *obs, float *logits, float *value);
/* The network player's answer to seat p's decision (a user policy's answer: a hand index
   or UNO_DRAW, a color, a seat, 0/1), from g->pol[p].net and g->pol[p].explore; `honest`:
   among the answers that are not a bluff (C7; a counterfactual's forced alternative). */
UNO_HD int uno_net_decide(struct uno_game *g, int p, int decision, int arg, int honest);
/* The value head's output (the logit of winning the game) for seat p's observation at
   `decision` (the search's leaf value: P(win) = 1 / (1 + exp(-v))). */
UNO_HD float uno_net_value(struct uno_game *g, const uno_net *net, int p, int decision, int arg);
/* Whether a network reads the observation of this game (same card kinds, the Flip and
   Extreme blocks as the game's, seats for every player). */
UNO_HD int uno_net_fits(const uno_net *net, const uno_config *cfg, const uno_table *t);

#if !defined(__CUDACC_RTC__) /* CPU only (search.c, env.c): not in the GPU build */
/* FNV-1a 64 of n bytes from state h (start: 0xCBF29CE484222325): the weight file's checksum. */
uint64_t uno_fnv1a64(const void *p, size_t n, uint64_t h);

/*
 * The decision recorder (record.c; docs/net.md): games first_game .. first_game + n_games
 * - 1 of the run `key`, each played as uno_play_game plays it, and one row per decision
 * with more than one legal answer of the seats in the bit mask `seats`: the observation
 * (L's layout and scales: set them before the call) and mask, and the int32 columns
 * below.  The arrays grow as rows come (realloc); a game past a safety limit keeps no
 * row (games_failed counts it).  Returns UNO_OK, UNO_ERR_FULL when memory ran out, or the
 * first other failing status.  uno_record_free releases the arrays.
 */
enum {
    UNO_REC_GAME = 0,  /* the game, counted from first_game */
    UNO_REC_ROUND,     /* the round (1-based) */
    UNO_REC_TURN,      /* turns played in the game so far */
    UNO_REC_SEAT,
    UNO_REC_DECISION,  /* enum uno_decision */
    UNO_REC_ACTION,    /* the answer, as an action id of L */
    UNO_REC_WON,       /* 1: the seat (its team) won the game, 0: lost */
    UNO_REC_ROUND_WON, /* the decision's round: 1 won, 0 lost, -1 nobody won (stalemate) */
    UNO_REC_TRUTH,     /* what the seat could not see: at a challenge, 1 when the card was a
                          bluff (the offender held the previous color, C12), 0 when legal;
                          -1 at every other decision */
    UNO_REC_COLUMNS
};
typedef struct uno_record {
    uno_obs_layout L;   /* the rows' observation layout (the caller's) */
    uint32_t seats;     /* the seats recorded, bit s for seat s */
    /* DAgger (NULL: none): per seat, the policy whose answer a seat of play_seats plays,
       its own policy's answer (the search's, with its values) being the row's; the game is
       the one `play` plays at those seats (a search player there: UNO_ERR_CONFIG) */
    const uno_policy *play;
    uint32_t play_seats;
    int64_t n, cap;     /* rows written, rows of room */
    float *obs;         /* n x L.size */
    int8_t *mask;       /* n x L.n_actions */
    float *value;       /* n x L.n_actions: a search seat's mean value per action id (its
                           answers of one id pooled), NaN where not searched */
    int32_t *count;     /* n x L.n_actions: the rollouts behind each value (0: none) */
    int32_t *col[UNO_REC_COLUMNS];
    /* per game i (first_game + i; NULL: not written): its turns, its rounds, its winner
       (-1: none or a team) and its scores (n_games x players); a failed game's turns -1 */
    int32_t *turns, *rounds, *winner, *scores;
    uint64_t first_game;
    int64_t games_done, games_failed;
    int failed;         /* out of memory */
} uno_record;
int uno_record_games(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                     const uint64_t key[4], uint64_t first_game, int64_t n_games,
                     uno_record *rec);
void uno_record_free(uno_record *rec);

/*
 * A vector of stepping games (env.c): n_envs games of one configuration, each with one
 * learning seat whose every decision is asked of the caller; the other seats play `pol`
 * (built-in policies or search players).  Mechanism: each game keeps a snapshot of the
 * learner's last turn start (or round start, via uno_game.on_turn) and its answers since
 * (the journal); a step clones the snapshot, replays the turn with the journal and the
 * new answer (the built-in policies draw the same numbers again: their streams are part
 * of the state), and stops (longjmp) at the learner's next decision after writing its
 * observation and mask, or ends the episode and starts the next one at once.
 *
 *   mode UNO_EPISODE_GAME: an episode is a game: reward +1 when the seat is among the
 *        winners, -1 otherwise; UNO_EPISODE_ROUND: an episode is a round, the next one
 *        is the game's next round (a new game after the last): reward +1 when the seat
 *        (or its team) won the round, -1 when another did, 0 for a stalemate.
 * Env i plays the games 0, 1, 2, ... of its run, in order.  Buffers (the caller's, row i
 * for env i): obs[n_envs][L->size], mask[n_envs][L->n_actions].
 */
enum { UNO_EPISODE_GAME = 0, UNO_EPISODE_ROUND = 1 };
typedef struct uno_venv uno_venv;
/* NULL: no memory, or a config that uno_config_check refuses (uno_venv_bytes(n_envs):
   what the first needs) */
size_t uno_venv_bytes(int n_envs);
uno_venv *uno_venv_new(const uno_config *cfg, const uno_table *t, const uno_policy *pol, int seat,
                       int mode, int n_envs, const uno_obs_layout *L, float *obs, int8_t *mask);
void uno_venv_free(uno_venv *v);
/* Starts every env's game 0 of its run (keys[4 * i .. 4 * i + 3] for env i). */
void uno_venv_reset(uno_venv *v, const uint64_t *keys);
/*
 * One step of every env: actions[i] (an action id of the layout) answers env i's
 * pending decision.  Writes reward, terminated, truncated (a game past a safety limit)
 * and, for an env whose episode ended, its last observation (the table at the end, the
 * round scored, decision block and mask zero) into row i of final (NULL: not written);
 * the row of obs / mask then holds the next episode's first decision.  Returns -1, or
 * the first env whose action is outside its mask (nothing is stepped then).
 */
int uno_venv_step(uno_venv *v, const int32_t *actions, float *reward, uint8_t *terminated,
                  uint8_t *truncated, float *final);
/* Env i's pending decision (enum uno_decision) and its game's state (read only). */
int uno_venv_decision(const uno_venv *v, int i);
const struct uno_game *uno_venv_game(const uno_venv *v, int i);
/* Env i's count of finished episodes, and the result of its last finished game. */
int64_t uno_venv_episodes(const uno_venv *v, int i);
const uno_result *uno_venv_result(const uno_venv *v, int i);
#endif

#endif /* UNO_H */
