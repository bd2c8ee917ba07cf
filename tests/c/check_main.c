/*
 * check_main.c - a standalone harness for the checking build (no Python).
 *
 *   python tests/c/make_tables.py build/tables.h
 *   gcc -std=c99 -O1 -g -DUNO_CHECK -fsanitize=address,undefined \
 *       -fno-sanitize-recover=all -Icsrc -Ibuild csrc/*.c \
 *       tests/c/check_main.c -o check
 *   ./check [games_per_config [seed [classic|flip|hello-kitty|house-2018|extreme]]]
 *
 * Plays seeded games over a grid of configurations (classic and UNO Flip
 * decks, Flip with its pairing fixed and re-paired per game; the Hello Kitty
 * deck (H1); the hand-exchange deck (S1) with both exchange modes and every
 * customizable rule; the UNO Extreme deck with both launcher laws at default
 * and extreme parameters; players 2..10, both
 * editions, standard / elimination / lowest scoring and teams, random and
 * greedy policies with their knobs at 0, 0.5 and 1, default knobs, mixed
 * seats, strategic seats with challenge=auto; then the house rules C-H1..C-H5 in
 * every combination, with the stack and jump_in knobs at 0, 0.5 and 1).  With UNO_CHECK the engine aborts on any card-conservation
 * violation (for Flip: all 112 cards across every flip); the harness itself checks that results are consistent, that a
 * replayed game gives the same result, and that every trace record's lists
 * stay inside the trace.  Prints "N games ok" and exits 0 when all is well.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h" /* generated: python tests/c/make_tables.py BUILD/tables.h */
#include "uno.h"

#define MAX_TURNS 3000 /* some knob settings never end a round (see uno.h) */
/* ... or stalemate every round: UNO Extreme seats that always press (voluntary_draw=1)
   end up holding every card, round after round */
#define MAX_ROUNDS 300

static long failures = 0;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "check_main: " __VA_ARGS__);                                          \
            fprintf(stderr, " [%s]\n", #cond);                                                     \
            if (++failures > 20)                                                                   \
                exit(1);                                                                           \
        }                                                                                          \
    } while (0)

static void set_policy(uno_policy *p, int id, double knob, int color)
{
    memset(p, 0, sizeof *p);
    p->id = id;
    p->color = color;
    p->bluff = p->challenge = p->forget_uno = p->catch = p->play_drawn = p->voluntary_draw = knob;
    p->stack = p->jump_in = knob;
    p->target = (int)(knob * 2); /* most, next (0.5), next (1) */
    p->bluff_next = p->bluff_own = p->challenge_offender = p->challenge_own = UNO_ANY;
    p->suspect = -1;
    p->challenge_prior = 0.5;
    p->others = -1; /* a search's rollouts: every seat plays `rollout` */
    p->leaf = -1;   /* rollouts to their end (no network's leaf value) */
    p->mix = 1.0;   /* (unread without a leaf) */
    p->anchor = -1; /* the search keeps its rollout policy's answer unless another leads */
    p->z = 1.645;   /* by this many standard errors */
    p->rollout_challenge = -1.0; /* rollouts challenge as the rollout policy does */
}

static void default_policy(uno_policy *p, int id)
{
    if (id == UNO_POLICY_RANDOM) {
        set_policy(p, id, 0.5, UNO_COLOR_RANDOM);
        p->forget_uno = 0.05;
        p->voluntary_draw = 0.0;
    } else {
        set_policy(p, id, 0.0, UNO_COLOR_MOST);
        p->forget_uno = 0.05;
        p->catch = 0.5;
        p->play_drawn = 1.0;
    }
}

/* Policy set `k` for n seats; `r` draws the mixed seats. */
#define N_POLICY_SETS 10
static void policy_set(uno_policy *pol, int n, int k, uno_rng *r)
{
    static const double levels[] = {0.0, 0.5, 1.0};
    static const double mixed[] = {0.0, 0.2, 0.5, 0.9, 1.0};
    for (int s = 0; s < n; s++) {
        if (k < 6) /* random / greedy with every knob at 0, 0.5, 1 */
            set_policy(&pol[s], k / 3, levels[k % 3], s % 2);
        else if (k < 8)
            default_policy(&pol[s], k - 6);
        else if (k == 9) { /* strategic (policies.py defaults), greedy on odd seats */
            set_policy(&pol[s], s % 2 ? UNO_POLICY_GREEDY : UNO_POLICY_STRATEGIC, 0.0,
                       s % 2 ? UNO_COLOR_MOST : UNO_COLOR_SMART);
            pol[s].forget_uno = 0.05;
            pol[s].catch = 0.5;
            pol[s].play_drawn = 1.0;
            pol[s].challenge_auto = s % 2 == 0;
            pol[s].challenge_threshold = 0.9;
        } else {
            set_policy(&pol[s], (int)uno_rng_bounded(r, 2), 0.0, (int)uno_rng_bounded(r, 2));
            pol[s].bluff = mixed[uno_rng_bounded(r, 5)];
            pol[s].challenge = mixed[uno_rng_bounded(r, 5)];
            pol[s].forget_uno = mixed[uno_rng_bounded(r, 5)];
            pol[s].catch = mixed[uno_rng_bounded(r, 5)];
            pol[s].play_drawn = mixed[uno_rng_bounded(r, 5)];
            pol[s].voluntary_draw = mixed[uno_rng_bounded(r, 5)];
            pol[s].stack = mixed[uno_rng_bounded(r, 5)];
            pol[s].jump_in = mixed[uno_rng_bounded(r, 5)];
            pol[s].target = (int)uno_rng_bounded(r, 4);
            /* the state conditions and the posterior challenge */
            static const int32_t sizes[] = {0, 1, 2, 4, UNO_ANY};
            pol[s].bluff_next = sizes[uno_rng_bounded(r, 5)];
            pol[s].bluff_own = sizes[uno_rng_bounded(r, 5)];
            pol[s].challenge_offender = sizes[uno_rng_bounded(r, 5)];
            pol[s].challenge_own = sizes[uno_rng_bounded(r, 5)];
            pol[s].suspect = (int)uno_rng_bounded(r, (uint32_t)n + 1) - 1;
            pol[s].challenge_posterior = (int)uno_rng_bounded(r, 2);
            pol[s].challenge_prior = mixed[uno_rng_bounded(r, 5)];
            pol[s].challenge_threshold = mixed[uno_rng_bounded(r, 5)];
        }
        pol[s].target = (s + k) % 4; /* every UNO_TARGET_* (S2 swap) */
    }
}

/* Every record's lists lie inside the data array, and its counts add up. */
static void check_trace(const uno_trace *tr, int n)
{
    EXPECT(!tr->failed, "trace allocation failed");
    for (int64_t i = 0; i < tr->n_ev; i++) {
        const uno_event *e = &tr->ev[i];
        EXPECT(e->type >= 0 && e->type < UNO_EV_COUNT, "bad event type %d", e->type);
        EXPECT(e->off >= 0 && e->len >= 0 && e->off + e->len <= tr->n_data, "event %ld out of the trace", (long)i);
        int64_t at = e->off, end = (int64_t)e->off + e->len;
        int lists = 0;
        while (at < end) {
            at += 1 + tr->data[at];
            lists++;
        }
        EXPECT(at == end, "event %ld: lists overrun their record", (long)i);
        int want = e->type == UNO_EV_ROUND_START ? n + 2
                 : e->type == UNO_EV_ROUND_END ? -1
                 : e->type == UNO_EV_SHUFFLE_HANDS ? n
                 : (e->type == UNO_EV_DRAW || e->type == UNO_EV_CHALLENGE || e->type == UNO_EV_DEALER_DRAW ||
                    e->type == UNO_EV_DRAW_UNTIL || e->type == UNO_EV_PAIRING ||
                    e->type == UNO_EV_PUT_DOWN || e->type == UNO_EV_PRESS ||
                    e->type == UNO_EV_DISCARD_ALL) ? 1
                 : 0;
        if (want >= 0)
            EXPECT(lists == want, "event %ld (type %d): %d lists, %d expected", (long)i, e->type, lists, want);
        else
            EXPECT(lists == n + 3 || lists == n + 4, "round_end with %d lists", lists);
    }
}

/* E2: the launcher law of game j (rotates the laws and their parameters). */
static void set_launcher(uno_config *cfg, int j)
{
    static const int32_t burst[12] = {1, 2, 5, 7, 7, 7, 6, 5, 2, 1, 1, 1};
    cfg->launcher = j % 4 == 1 ? UNO_LAUNCHER_DIST : UNO_LAUNCHER_MODEL;
    cfg->launcher_fire = j % 4 == 2 ? 0 : j % 4 == 3 ? 1000 : 333;
    cfg->launcher_max_silent = j % 4 == 2 ? 3 : 5;
    cfg->launcher_n_burst = j % 4 == 3 ? 32 : 12;
    for (int i = 0; i < 32; i++)
        cfg->launcher_burst[i] = i < 12 ? burst[i] : 1;
    cfg->launcher_n_weights = 13;
    cfg->hit_target_presses = j % 3 == 2;
    cfg->launcher_weights[0] = 92;
    for (int i = 1; i < 13; i++)
        cfg->launcher_weights[i] = burst[i - 1];
}

static void check_result(const uno_config *cfg, const uno_result *res, const char *where)
{
    int n = cfg->players;
    EXPECT(res->n_winners >= 1 && res->n_winners <= n, "%s: %d winners", where, res->n_winners);
    EXPECT(res->winner >= -1 && res->winner < n, "%s: winner %d", where, res->winner);
    EXPECT(res->rounds >= 1 && res->turns >= res->rounds, "%s: rounds %d turns %d", where, res->rounds, res->turns);
    long won = 0;
    for (int s = 0; s < n; s++)
        won += res->counters[UNO_CT_ROUNDS_WON][s];
    EXPECT(won + res->stalemates == res->rounds, "%s: %ld rounds won + %d stalemates != %d rounds", where,
           won, res->stalemates, res->rounds);
    if (cfg->scoring == UNO_SCORING_STANDARD && !cfg->teams)
        EXPECT(res->winner >= 0 && res->scores[res->winner] >= cfg->target, "%s: standard winner below target", where);
    if (cfg->teams)
        EXPECT(res->team_scores[res->team] >= cfg->target, "%s: team below target", where);
}

static long games = 0, limited = 0, traced = 0;

/*
 * Plays game `game_no` twice, the first time traced when `tr` is given: the
 * replay must give the same result, the trace must be well formed and the
 * result consistent (a game stopped at the limits is counted apart).
 */
static void play_checked(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                         const uint64_t key[4], uint64_t game_no, uno_trace *tr, const char *where)
{
    uno_rng r1, r2;
    uno_result a, b;
    uno_rng_seed(&r1, key, game_no);
    uno_rng_seed(&r2, key, game_no);
    if (tr)
        uno_trace_clear(tr);
    int st = uno_play_game(cfg, t, pol, &r1, tr, &a);
    int st2 = uno_play_game(cfg, t, pol, &r2, NULL, &b);
    EXPECT(st == st2 && memcmp(&a, &b, sizeof a) == 0, "%s: a replay differs", where);
    EXPECT(st == UNO_OK || st == UNO_ERR_LIMIT, "%s: status %d", where, st);
    if (tr) {
        check_trace(tr, cfg->players);
        traced++;
    }
    if (st == UNO_OK)
        check_result(cfg, &a, where);
    else
        limited++;
    games++;
}

int main(int argc, char **argv)
{
    int per_config = argc > 1 ? atoi(argv[1]) : 4;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 2024;
    static const char *deck_names[] = {"classic", "flip", "hello-kitty", "house-2018", "extreme"};
    int only = -1; /* -1: every deck */
    for (int d = 0; argc > 3 && d < 5; d++)
        if (strcmp(argv[3], deck_names[d]) == 0)
            only = d;
    uint64_t key[4] = {seed, 0x9E3779B97F4A7C15u ^ seed, 0xD1B54A32D192ED03u, 12345u};
    /* 0-1 classic (WD4 50, 70), 2 flip, 3-4 hello-kitty, 5-10 house-2018: custom rule
       sets by game (j % 3), WD4 50 / 70; 11 extreme (tables.h, from uno_sim.cards) */
    static const char *table_names[12] = {
        "classic-50", "classic-70", "flip", "hello-kitty-50", "hello-kitty-70",
        "house-2018-50-012", "house-2018-50-345", "house-2018-50-510",
        "house-2018-70-012", "house-2018-70-345", "house-2018-70-510", "extreme"};
    static uno_table tables[12];
    for (int i = 0; i < 12; i++)
        if (uno_deck_load(&tables[i], table_names[i]) != 0) {
            fprintf(stderr, "check_main: no deck %s in tables.h\n", table_names[i]);
            return 1;
        }
    uno_trace tr;
    uno_trace_init(&tr);
    uno_rng mix;
    uno_rng_seed(&mix, key, 999);
    uint64_t game_no = 0;

    for (int deck = 0; deck < 5; deck++)
    for (int players = 2; players <= 10 && (only < 0 || only == deck); players++) {
        const int flip = deck == 1;
        for (int edition = 0; edition < 2; edition++) {
            for (int mode = 0; mode < 4; mode++) { /* standard, elimination, lowest, teams */
                if (mode == 3 && (players < 4 || players % 2))
                    continue;
                for (int ps = 0; ps < N_POLICY_SETS; ps++) {
                    uno_policy pol[UNO_MAX_PLAYERS];
                    policy_set(pol, players, ps, &mix);
                    for (int j = 0; j < per_config; j++, game_no++) {
                        uno_config cfg;
                        memset(&cfg, 0, sizeof cfg);
                        cfg.players = players;
                        cfg.edition = edition;
                        cfg.dealer_draw = edition ^ (j % 4 == 3);
                        cfg.drawn_card = edition ^ (j % 2);
                        cfg.challenge = edition ^ (j % 4 >= 2);
                        cfg.wd4_value = edition ? 70 : 50;
                        cfg.scoring = mode == 3 ? UNO_SCORING_STANDARD : mode;
                        cfg.teams = mode == 3;
                        cfg.target = mode == 1 ? 200 : 500;
                        cfg.draw_source = deck == 4 ? UNO_DRAW_LAUNCHER : UNO_DRAW_PILE;
                        cfg.repair = flip && j % 2;
                        cfg.flip_starter = flip && (j / 2) % 2; /* F2 switch */
                        cfg.exchange = deck == 3 && (j + players) % 2;
                        if (deck == 4)
                            set_launcher(&cfg, j + players);
                        const uno_table *t = deck == 0 ? &tables[edition]
                                           : deck == 1 ? &tables[2]
                                           : deck == 2 ? &tables[3 + edition]
                                           : deck == 3 ? &tables[5 + 3 * edition + (j + ps) % 3]
                                                       : &tables[11];
                        cfg.hand_size = j % 5 == 4 ? 1 + (int)(game_no % 20) : 7;
                        if (players * cfg.hand_size + 1 > t->n_cards)
                            cfg.hand_size = (t->n_cards - 1) / players;
                        cfg.max_turns = MAX_TURNS;
                        cfg.max_rounds = MAX_ROUNDS;
                        char where[128];
                        snprintf(where, sizeof where,
                                 "deck %d players %d edition %d mode %d policies %d game %lu", deck,
                                 players, edition, mode, ps, (unsigned long)game_no);
                        play_checked(&cfg, t, pol, key, game_no, j % 3 == 0 ? &tr : NULL, where);
                    }
                }
            }
        }
    }

    /* House rules C-H1..C-H5: every combination of the switches in turn, both decks. */
    for (int flip = 0; flip < 2; flip++)
    for (int players = 2; players <= 10 && (only < 0 || only == flip); players++) {
        for (int ps = 0; ps < N_POLICY_SETS; ps++) {
            uno_policy pol[UNO_MAX_PLAYERS];
            policy_set(pol, players, ps, &mix);
            for (int j = 0; j < 2 * per_config; j++, game_no++) {
                uno_config cfg;
                memset(&cfg, 0, sizeof cfg);
                cfg.players = players;
                cfg.edition = cfg.dealer_draw = cfg.drawn_card = cfg.challenge = (int)(game_no % 2);
                cfg.wd4_value = 50;
                cfg.scoring = (int)(game_no / 2 % 3);
                cfg.target = cfg.scoring == UNO_SCORING_ELIMINATION ? 150 : 300;
                cfg.hand_size = 7;
                cfg.repair = flip && j % 2;
                cfg.max_turns = MAX_TURNS;
                unsigned bits = (unsigned)(game_no * 2654435761u >> 7);
                cfg.stacking = (int)(bits & 3);
                cfg.draw_until_playable = (bits >> 2) & 1;
                cfg.forced_play = (bits >> 3) & 1;
                cfg.jump_in = (bits >> 4) & 1;
                cfg.seven_o = (bits >> 5) & 1;
                cfg.flip_starter = flip && (bits >> 6) & 1;
                const uno_table *t = &tables[flip ? 2 : 0];
                char where[160];
                snprintf(where, sizeof where,
                         "house flip %d players %d policies %d switches %u game %lu", flip,
                         players, ps, bits & 63, (unsigned long)game_no);
                play_checked(&cfg, t, pol, key, game_no, &tr, where);
            }
        }
    }

    /* Search players (search.c): a pimc or ismcts seat among built-in ones, every deck,
       the house rules on the classic and Flip decks; their rollouts and sampled states
       run through the same checked turn loop.  Small budgets: this checks cards, not
       strength. */
    for (int deck = 0; deck < 7; deck++)
    for (int players = 2; players <= 4 && (only < 0 || only == deck % 5); players += 2) {
        for (int j = 0; j < per_config + 1; j++, game_no++) {
            uno_config cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.players = players;
            cfg.wd4_value = 50;
            cfg.target = 200;
            cfg.hand_size = 7;
            cfg.challenge = j % 2;
            cfg.draw_source = deck == 4 ? UNO_DRAW_LAUNCHER : UNO_DRAW_PILE;
            cfg.repair = deck == 1 && j % 2;
            cfg.exchange = deck == 3 && j % 2;
            if (deck == 4)
                set_launcher(&cfg, j + players);
            if (deck >= 5) { /* the house rules, classic (5) and Flip (6) */
                unsigned bits = (unsigned)(game_no * 2654435761u >> 7);
                cfg.stacking = 1 + (int)(bits % 3);
                cfg.draw_until_playable = (bits >> 2) & 1;
                cfg.forced_play = (bits >> 3) & 1;
                cfg.jump_in = 1;
                cfg.seven_o = 1;
            }
            cfg.max_turns = MAX_TURNS;
            cfg.max_rounds = MAX_ROUNDS;
            const uno_table *t = deck == 0 || deck == 5 ? &tables[0]
                               : deck == 1 || deck == 6 ? &tables[2]
                               : deck == 2 ? &tables[3]
                               : deck == 3 ? &tables[5 + j % 3]
                                           : &tables[11];
            uno_policy pol[UNO_MAX_PLAYERS];
            for (int s = 0; s < players; s++)
                default_policy(&pol[s], s % 2 ? UNO_POLICY_STRATEGIC : UNO_POLICY_GREEDY);
            int seat = j % players;
            pol[seat].id = j % 2 ? UNO_POLICY_ISMCTS : UNO_POLICY_PIMC;
            pol[seat].samples = 2;
            pol[seat].rollouts = 1;
            pol[seat].iterations = 6;
            /* ismcts: both answer rules, and the tree of its own decisions, by turns
               over the decks (every one of them at one game per configuration) */
            int mode = (deck + j / 2) % 3;
            pol[seat].c = mode == 0 ? 0.0 : 0.7;
            pol[seat].depth = mode == 2 ? 3 : 1;
            pol[seat].rollout = UNO_POLICY_GREEDY;
            pol[seat].value = j % 3 == 2 ? UNO_VALUE_GAME : UNO_VALUE_ROUND;
            pol[seat].cheat = j % 4 == 3;
            char where[128];
            snprintf(where, sizeof where, "search deck %d players %d game %lu", deck, players,
                     (unsigned long)game_no);
            cfg.search = &uno_search_players; /* the engine reaches the search through it */
            play_checked(&cfg, t, pol, key, game_no, j % 2 ? &tr : NULL, where);
            cfg.search = NULL; /* the plain games below have no search seat */
            /* a fork of the game at a decision replays it exactly */
            uno_result real, fork;
            uno_policy plain[UNO_MAX_PLAYERS];
            for (int s = 0; s < players; s++)
                default_policy(&plain[s], s % 2 ? UNO_POLICY_STRATEGIC : UNO_POLICY_GREEDY);
            int st = uno_play_fork(&cfg, t, plain, key, game_no, 7 + 13 * j, &real, &fork);
            uno_rng r1;
            uno_result base;
            uno_rng_seed(&r1, key, game_no);
            int st2 = uno_play_game(&cfg, t, plain, &r1, NULL, &base);
            EXPECT(st == st2 && memcmp(&real, &base, sizeof real) == 0,
                   "%s: a recorded game differs", where);
            EXPECT(fork.status < 0 || memcmp(&fork, &base, sizeof fork) == 0,
                   "%s: a fork differs", where);
            games++;
        }
    }

    /* Scenario rounds from a fixed deck order, every dealer. */
    {
        uno_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.players = 4;
        cfg.target = 500;
        cfg.hand_size = 7;
        cfg.max_turns = MAX_TURNS;
        uno_policy pol[UNO_MAX_PLAYERS];
        policy_set(pol, 4, 7, &mix);
        uint8_t deck[108];
        for (int i = 0; i < 108; i++)
            deck[i] = (uint8_t)((i * 37) % 108);
        int32_t scores[4] = {100, 0, 250, 499};
        for (int dealer = 0; dealer < 4; dealer++) {
            uno_rng r;
            uno_result res;
            uno_rng_seed(&r, key, (uint64_t)dealer);
            uno_trace_clear(&tr);
            int st = uno_play_round(&cfg, &tables[0], pol, &r, deck, dealer, scores, &tr, &res);
            EXPECT(st == UNO_OK, "scenario round, dealer %d: status %d", dealer, st);
            check_trace(&tr, 4);
            games++;
        }
        deck[5] = deck[6]; /* not a permutation any more */
        uno_rng r;
        uno_result res;
        uno_rng_seed(&r, key, 0);
        EXPECT(uno_play_round(&cfg, &tables[0], pol, &r, deck, 0, NULL, NULL, &res) == UNO_ERR_CONFIG,
               "a deck with a duplicate card was accepted");
    }

    uno_trace_free(&tr);
    if (failures) {
        fprintf(stderr, "check_main: %ld failures\n", failures);
        return 1;
    }
    printf("%ld games ok (%ld traced, %ld stopped at the turn limit)\n", games, traced, limited);
    return 0;
}
