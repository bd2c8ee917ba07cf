/*
 * uno_spec.h - the engine specialised to one configuration: the GPU kernel
 * (csrc/gpu/kernel.cu) compiled for the run it plays (uno_sim/gpu.py
 * spec_defines writes the defines), or a C build for its tests.
 *
 * A run's rules, deck and seat policies are known before its first game.
 * Each UNO_SPEC_<struct>_<field> a build defines states one field as a
 * constant, and the engine reads the field through the macros below rather
 * than from memory: the compiler then drops every path the configuration
 * never takes (a house rule that is off, a policy no seat plays, a knob at 0
 * at every seat, the other side of a one-sided deck, the launcher of a deck
 * that has none) and sizes the game's per-seat and per-card arrays by the
 * player count and the deck.  A field the build leaves undefined reads as
 * the runtime field (UNO_SPEC_OR folds to it), so the CPU build and the
 * unspecialised kernel, which define none, are the engine as it always was.
 *
 *   UNO_SPEC_CFG_<f>   uno_config field f (any of the list below)
 *   UNO_SPEC_POL_<f>   uno_policy field f, the same at every seat
 *   UNO_SPEC_TBL_sides, UNO_SPEC_TBL_cards   the deck's n_sides and n_cards
 *
 * The defines must state the configuration the build plays: uno_spec_matches
 * (uno.h) compares them with the uploaded structs (the kernel fails every game
 * of a launch with UNO_ERR_CONFIG when they differ).
 */
#ifndef UNO_SPEC_H
#define UNO_SPEC_H

/* A value no field takes: "not specialised, read the field". */
#define UNO_RT (-0x7fffffff - 1)
enum { UNO_SPEC_RUNTIME = UNO_RT }; /* the same, for a debugger */
#define UNO_SPEC_OR(s, x) ((s) == UNO_RT ? (x) : (s))

/* Sizes of the game's arrays (uno_game): by the specialised player count and deck. */
#if defined(UNO_SPEC_CFG_players)
#define UNO_SEATS UNO_SPEC_CFG_players
#else
#define UNO_SEATS UNO_MAX_PLAYERS
#endif
#if defined(UNO_SPEC_TBL_cards)
#define UNO_PILE UNO_SPEC_TBL_cards
#else
#define UNO_PILE UNO_MAX_CARDS
#endif

/* The turn's own plays (uno_game.fast_max): a constant when what decides it is. */
#if defined(UNO_GPU_BUILD) && defined(UNO_SPEC_CFG_seven_o) && defined(UNO_SPEC_CFG_stacking) &&  \
    defined(UNO_SPEC_CFG_draw_source)
#define UNO_FAST_MAX(g)                                                                            \
    (UNO_SPEC_CFG_seven_o ? UNO_FAST_NO                                                            \
     : UNO_SPEC_CFG_stacking || UNO_SPEC_CFG_draw_source == UNO_DRAW_LAUNCHER ? UNO_FAST_WILD      \
                                                                              : UNO_FAST_DRAW)
#else
#define UNO_FAST_MAX(g) ((g)->fast_max)
#endif

/* uno_config */
#ifndef UNO_SPEC_CFG_players
#define UNO_SPEC_CFG_players UNO_RT
#endif
#ifndef UNO_SPEC_CFG_draw_source
#define UNO_SPEC_CFG_draw_source UNO_RT
#endif
#ifndef UNO_SPEC_CFG_dealer_draw
#define UNO_SPEC_CFG_dealer_draw UNO_RT
#endif
#ifndef UNO_SPEC_CFG_drawn_card
#define UNO_SPEC_CFG_drawn_card UNO_RT
#endif
#ifndef UNO_SPEC_CFG_challenge
#define UNO_SPEC_CFG_challenge UNO_RT
#endif
#ifndef UNO_SPEC_CFG_scoring
#define UNO_SPEC_CFG_scoring UNO_RT
#endif
#ifndef UNO_SPEC_CFG_teams
#define UNO_SPEC_CFG_teams UNO_RT
#endif
#ifndef UNO_SPEC_CFG_hand_size
#define UNO_SPEC_CFG_hand_size UNO_RT
#endif
#ifndef UNO_SPEC_CFG_repair
#define UNO_SPEC_CFG_repair UNO_RT
#endif
#ifndef UNO_SPEC_CFG_exchange
#define UNO_SPEC_CFG_exchange UNO_RT
#endif
#ifndef UNO_SPEC_CFG_launcher
#define UNO_SPEC_CFG_launcher UNO_RT
#endif
#ifndef UNO_SPEC_CFG_hit_target_presses
#define UNO_SPEC_CFG_hit_target_presses UNO_RT
#endif
#ifndef UNO_SPEC_CFG_stacking
#define UNO_SPEC_CFG_stacking UNO_RT
#endif
#ifndef UNO_SPEC_CFG_draw_until_playable
#define UNO_SPEC_CFG_draw_until_playable UNO_RT
#endif
#ifndef UNO_SPEC_CFG_forced_play
#define UNO_SPEC_CFG_forced_play UNO_RT
#endif
#ifndef UNO_SPEC_CFG_jump_in
#define UNO_SPEC_CFG_jump_in UNO_RT
#endif
#ifndef UNO_SPEC_CFG_seven_o
#define UNO_SPEC_CFG_seven_o UNO_RT
#endif
#ifndef UNO_SPEC_CFG_flip_starter
#define UNO_SPEC_CFG_flip_starter UNO_RT
#endif

/* the deck */
#ifndef UNO_SPEC_TBL_sides
#define UNO_SPEC_TBL_sides UNO_RT
#endif
#ifndef UNO_SPEC_TBL_cards
#define UNO_SPEC_TBL_cards UNO_RT
#endif

/* uno_policy, the same at every seat */
#ifndef UNO_SPEC_POL_id
#define UNO_SPEC_POL_id UNO_RT
#endif
#ifndef UNO_SPEC_POL_color
#define UNO_SPEC_POL_color UNO_RT
#endif
#ifndef UNO_SPEC_POL_target
#define UNO_SPEC_POL_target UNO_RT
#endif
#ifndef UNO_SPEC_POL_bluff
#define UNO_SPEC_POL_bluff UNO_RT
#endif
#ifndef UNO_SPEC_POL_challenge
#define UNO_SPEC_POL_challenge UNO_RT
#endif
#ifndef UNO_SPEC_POL_forget_uno
#define UNO_SPEC_POL_forget_uno UNO_RT
#endif
#ifndef UNO_SPEC_POL_catch
#define UNO_SPEC_POL_catch UNO_RT
#endif
#ifndef UNO_SPEC_POL_play_drawn
#define UNO_SPEC_POL_play_drawn UNO_RT
#endif
#ifndef UNO_SPEC_POL_voluntary_draw
#define UNO_SPEC_POL_voluntary_draw UNO_RT
#endif
#ifndef UNO_SPEC_POL_challenge_auto
#define UNO_SPEC_POL_challenge_auto UNO_RT
#endif
#ifndef UNO_SPEC_POL_challenge_posterior
#define UNO_SPEC_POL_challenge_posterior UNO_RT
#endif
#ifndef UNO_SPEC_POL_stack
#define UNO_SPEC_POL_stack UNO_RT
#endif
#ifndef UNO_SPEC_POL_jump_in
#define UNO_SPEC_POL_jump_in UNO_RT
#endif
#ifndef UNO_SPEC_POL_bluff_next
#define UNO_SPEC_POL_bluff_next UNO_RT
#endif
#ifndef UNO_SPEC_POL_bluff_own
#define UNO_SPEC_POL_bluff_own UNO_RT
#endif
#ifndef UNO_SPEC_POL_challenge_offender
#define UNO_SPEC_POL_challenge_offender UNO_RT
#endif
#ifndef UNO_SPEC_POL_challenge_own
#define UNO_SPEC_POL_challenge_own UNO_RT
#endif
#ifndef UNO_SPEC_POL_suspect
#define UNO_SPEC_POL_suspect UNO_RT
#endif
#ifndef UNO_SPEC_POL_bluff_join
#define UNO_SPEC_POL_bluff_join UNO_RT
#endif
#ifndef UNO_SPEC_POL_challenge_join
#define UNO_SPEC_POL_challenge_join UNO_RT
#endif

/* A field of uno_config c / of uno_policy p: its specialised value, else the field. */
#define UNO_CFG(c, f) UNO_SPEC_OR(UNO_SPEC_CFG_##f, (c)->f)
#define UNO_POL(p, f) UNO_SPEC_OR(UNO_SPEC_POL_##f, (p)->f)
/* The players (uno_game.n), whether the deck is two-faced (uno_game.two_sided), whether
   the draw pile is the launcher (uno_game.launcher, E2). */
#define UNO_N(g) UNO_SPEC_OR(UNO_SPEC_CFG_players, (g)->n)
#define UNO_TWO_SIDED(g)                                                                           \
    (UNO_SPEC_TBL_sides == UNO_RT ? (g)->two_sided : UNO_SPEC_TBL_sides == 2)
#define UNO_LAUNCHER(g)                                                                            \
    (UNO_SPEC_CFG_draw_source == UNO_RT ? (g)->launcher                                            \
                                        : UNO_SPEC_CFG_draw_source == UNO_DRAW_LAUNCHER)

/* The fields a build may specialise, for uno_spec_matches. */
#define UNO_SPEC_CFG_LIST(X)                                                                       \
    X(players) X(draw_source) X(dealer_draw) X(drawn_card) X(challenge) X(scoring) X(teams)       \
    X(hand_size) X(repair) X(exchange) X(launcher) X(hit_target_presses) X(stacking)              \
    X(draw_until_playable) X(forced_play) X(jump_in) X(seven_o) X(flip_starter)
#define UNO_SPEC_POL_LIST(X)                                                                       \
    X(id) X(color) X(target) X(bluff) X(challenge) X(forget_uno) X(catch) X(play_drawn)           \
    X(voluntary_draw) X(challenge_auto) X(challenge_posterior) X(stack) X(jump_in) X(bluff_next)  \
    X(bluff_own) X(challenge_offender) X(challenge_own) X(suspect) X(bluff_join) X(challenge_join)

#endif /* UNO_SPEC_H */
