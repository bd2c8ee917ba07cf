# The C engine's API as the binding sees it (csrc/rng.h, csrc/uno.h).
#
# Declared once here and cimported by uno_sim/_engine.pyx (and the .pxi files it
# includes); there is no Python module of this name.  Only the fields and
# functions the binding uses are declared: Cython reads a struct's fields by
# name, so the order and the omitted fields of the C structs do not matter.
# Array sizes are the C macros' values (UNO_MAX_PLAYERS 10, UNO_MAX_CARDS and
# UNO_MAX_KINDS 255, UNO_HAND_CAP 256, UNO_LAUNCH_MAX 32, UNO_N_COUNTERS 7,
# UNO_CF_MAX 64).

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t


cdef extern from "rng.h":
    ctypedef struct uno_rng:
        uint64_t s[4]  # the xoshiro256** state

    void uno_rng_seed(uno_rng *r, const uint64_t *key, uint64_t game) nogil
    void uno_rng_seed_deal(uno_rng *deal, const uno_rng *seeded, uint64_t round) nogil
    uint64_t uno_rng_next(uno_rng *r) nogil
    uint32_t uno_rng_bounded(uno_rng *r, uint32_t n) nogil
    double uno_rng_uniform(uno_rng *r) nogil
    int uno_rng_bernoulli(uno_rng *r, double p) nogil
    void uno_rng_shuffle_u8(uno_rng *r, uint8_t *a, int n) nogil
    uint64_t uno_rng_dec_round_key(const uno_rng *seeded, uint64_t round) nogil
    uint64_t uno_rng_dec_word(uint64_t round_key, int seat, int kind, uint32_t n) nogil


cdef extern from "uno.h":
    # Sizes, limits and status codes.
    enum:
        UNO_MAX_PLAYERS
        UNO_MAX_CARDS
        UNO_HAND_CAP
        UNO_N_COUNTERS
        UNO_SEARCH_STATS
        UNO_CF_MAX
        UNO_MAX_TURNS
        UNO_MAX_ROUNDS
        UNO_MAX_GAME_TURNS
        UNO_LAUNCH_MAX
        UNO_DRAW  # a play / stack answer: draw instead of playing (-1)
        UNO_MAX_ACTIONS  # room for uno_legal_actions' answer (UNO_HAND_CAP + 1)
        UNO_OK
        UNO_ERR_CONFIG
        UNO_ERR_STARTER
        UNO_ERR_LIMIT
        UNO_ERR_FULL
        UNO_ERR_POLICY
        UNO_ERR_STOPPED  # the stop flag ended the call (uno.h "Stopping a long call")
        UNO_POLICY_USER
        UNO_POLICY_PIMC
        UNO_POLICY_ISMCTS
        UNO_DECIDE_ABORT
        UNO_DK_USER

    # enum uno_decision: the decisions a user policy is asked (P2).
    enum:
        UNO_DEC_PLAY
        UNO_DEC_REPLACEMENT
        UNO_DEC_COLOR
        UNO_DEC_CHALLENGE
        UNO_DEC_FORGET_UNO
        UNO_DEC_CATCH
        UNO_DEC_PLAY_DRAWN
        UNO_DEC_TARGET
        UNO_DEC_STACK
        UNO_DEC_JUMP_IN
        UNO_DEC_DISCARD

    # enum uno_event_type: the trace records (the table at the top of uno.h).
    enum:
        UNO_EV_DEALER_DRAW
        UNO_EV_ROUND_START
        UNO_EV_PLAY
        UNO_EV_UNO
        UNO_EV_CAUGHT
        UNO_EV_DRAW
        UNO_EV_PASS
        UNO_EV_SKIP
        UNO_EV_REVERSE
        UNO_EV_COLOR
        UNO_EV_CHALLENGE
        UNO_EV_TAKE_BACK
        UNO_EV_RESHUFFLE
        UNO_EV_ROUND_END
        UNO_EV_FLIP
        UNO_EV_DRAW_UNTIL
        UNO_EV_PAIRING
        UNO_EV_PRESS
        UNO_EV_DISCARD_ALL
        UNO_EV_AIM
        UNO_EV_EXCHANGE
        UNO_EV_SHUFFLE_HANDS
        UNO_EV_PUT_DOWN
        UNO_EV_EXTRA_TURN
        UNO_EV_STACK
        UNO_EV_JUMP_IN
        UNO_EV_SWAP
        UNO_EV_ROTATE

    # The search players' hooks (search.c's uno_search_players): the engine's only way in.
    ctypedef struct uno_search_hooks:
        pass

    # rules.Rules, field for field (uno_sim.engine.CONFIG_FIELDS).
    ctypedef struct uno_config:
        int32_t draw_source  # UNO_DRAW_PILE, or UNO_DRAW_LAUNCHER (E2)
        int32_t players  # 2..10
        int32_t edition  # index into rules.EDITIONS (informational)
        int32_t dealer_draw  # UNO_DEALER_* (C3)
        int32_t drawn_card  # UNO_DRAWN_* (C8)
        int32_t challenge  # UNO_CHALLENGE_* (C12)
        int32_t wd4_value  # informational: the value is in the deck table
        int32_t scoring  # UNO_SCORING_* (C17-C19)
        int32_t target  # the score that ends the game
        int32_t teams  # 0/1: two teams in alternating seats (C20)
        int32_t hand_size  # cards dealt to each player (C4)
        int32_t repair  # 1: a two-faced deck is re-paired every game (F1)
        int32_t max_turns  # safety limit on turns in a round (0: UNO_MAX_TURNS)
        int32_t max_rounds  # safety limit on rounds in a game (0: UNO_MAX_ROUNDS)
        int32_t exchange  # UNO_EXCHANGE_* (S2)
        int32_t launcher  # UNO_LAUNCHER_*: the launcher's firing law (E2)
        int32_t launcher_fire  # model: chance per mille that a press fires
        int32_t launcher_max_silent  # model: a press fires after this many silent ones
        int32_t launcher_n_burst  # model: entries of launcher_burst
        int32_t launcher_burst[32]  # model: weight of a burst of i + 1 cards
        int32_t launcher_n_weights  # dist: entries of launcher_weights
        int32_t launcher_weights[32]  # dist: weight of firing i cards
        int32_t hit_target_presses  # E6: the target's own presses before the attacker's
        int32_t stacking  # UNO_STACK_*: a mask of the stackable families (C-H1)
        int32_t draw_until_playable  # 0/1 (C-H2)
        int32_t forced_play  # 0/1 (C-H3)
        int32_t jump_in  # 0/1 (C-H4)
        int32_t seven_o  # 0/1 (C-H5)
        int32_t flip_starter  # F2: a Flip starter is put back (0) or turns the game (1)
        const uno_search_hooks *search  # uno_search_players when a seat searches, else NULL

    # The deck table (cards.DeckTable.arrays()), filled by uno_table_init.
    ctypedef struct uno_table:
        int32_t n_kinds  # kinds of card
        int32_t n_cards  # cards in the deck (card ids 0..n_cards-1)
        int32_t n_sides  # 1, or 2 for a two-faced deck (F1)
        int8_t color[255]  # per kind: its color, -1 for a wild
        uint8_t face[255]  # per kind: its face
        int32_t value[255]  # per kind: its points
        uint8_t effect[255]  # per kind: enum uno_effect
        uint8_t amount[255]  # per kind: cards drawn or presses caused
        uint8_t restricted[255]  # per kind: 1 for a wild playable only without the color (C7)
        uint8_t starter[255]  # per kind: what it does turned up as the starter (C5)
        uint8_t reason[255]  # per kind: the DrawReason of the cards it makes drawn
        uint8_t card_kind[2][255]  # per side, per card id: its kind on that side

    # The state of one game (only the fields the binding reads).
    ctypedef struct uno_game:
        const uno_table *t  # the deck table (the game's re-paired copy under repair)
        const uno_config *cfg  # the rules
        uno_rng *rng  # the game's generator
        int n  # players
        int direction  # +1 clockwise, -1
        int color  # the active color
        int side  # the side in play (F1, F3); 0 for a one-sided deck
        int n_draw  # cards in the draw pile
        int n_discard  # cards in the discard pile
        int launcher  # E2: the draw pile is the launcher
        int silent  # E2: presses in a row that fired nothing, this round
        int32_t rounds  # rounds begun
        int32_t turns  # turns taken in the game
        uint8_t active[10]  # per seat: not eliminated (C18)
        int32_t scores[10]  # per seat: the score
        uint8_t failed[10]  # per seat: bit c, drew on its turn with color c active (P1)
        int reveal_from[10]  # per challenger: the offender whose hand it saw, or -1
        int reveal_n[10]  # per challenger: cards of that hand
        uint8_t reveal[10][256]  # per challenger: the hand it saw
        int hand_n[10]  # per seat: cards in hand
        uint8_t draw[255]  # the draw pile, top last
        uint8_t discard[255]  # the discard pile, top last

    # A user policy's callback (uno_policy.decide): a legal answer or UNO_DECIDE_ABORT.
    ctypedef int (*uno_decide_fn)(void *ctx, uno_game *g, int seat, int decision,
                                  int arg) noexcept

    # One seat's policy (uno_sim.engine.POLICY_FIELDS).
    ctypedef struct uno_policy:
        int32_t id  # UNO_POLICY_*
        int32_t color  # UNO_COLOR_*: the color named on a wild
        double bluff  # play a restricted wild illegally when it would be a bluff
        double challenge  # challenge a WD4 played on this seat
        double forget_uno  # forget to say UNO
        double catch  # catch an opponent who forgot
        double play_drawn  # play a legally playable drawn card when free to choose
        double voluntary_draw  # greedy/strategic: draw although a colored card could be played
        int32_t challenge_auto  # 1: challenge when P(bluff) > challenge_threshold
        double challenge_threshold  # see uno_bluff_probability
        int32_t target  # UNO_TARGET_*: whom a targeted card aims at
        double stack  # C-H1: answer a draw card with a draw card
        double jump_in  # C-H4: jump in with an identical card
        int32_t bluff_next  # bluff only when the next player holds <= this many cards
        int32_t bluff_own  # ... and this seat <= this many
        int32_t challenge_offender  # challenge only when the offender holds <= this many
        int32_t challenge_own  # ... and this seat <= this many
        int32_t suspect  # ... and the offender is this seat (-1: anyone)
        int32_t challenge_posterior  # 1: challenge on the posterior P(bluff)
        double challenge_prior  # the offender's assumed bluff rate, for the posterior
        int32_t bluff_join  # UNO_JOIN_*: bluff_next and bluff_own both (0) or either (1)
        int32_t challenge_join  # UNO_JOIN_*: challenge_offender and challenge_own likewise
        uint64_t bluff_cells  # the cells (other hand, own hand) where a bluff may be tried
        uint64_t challenge_cells  # ... and a challenge
        int32_t samples  # pimc: sampled states per decision
        int32_t rollouts  # pimc: rollouts per sampled state and legal answer
        int32_t iterations  # ismcts: iterations per decision
        double c  # ismcts: the UCB exploration constant
        int32_t depth  # ismcts: tree levels of the seat's own decisions (1: the root only)
        int32_t rollout  # the policy every seat plays in a rollout (built in, or the network)
        int32_t others  # -1: the other seats play `rollout` too; else their rollout policy
        int32_t leaf  # -1: rollouts to their end; k: cut at the seat's turn k turns on (value head)
        double mix  # with leaf: 1: stop there; w < 1: w * the value head + (1 - w) * the rollout
        double infer  # 0: no inference; T: states weighted by the opponents' answers under the net
        double voids  # 1: draws not read; w < 1: a state kept w per draw it contradicts
        double colors  # the same for named colors not the namer's most held
        double bluffs  # the same for restricted cards played unchallenged that it makes bluffs
        int32_t resample  # 1: infer deals states again (kept by likelihood) instead of weighing
        int32_t value  # UNO_VALUE_*: a rollout is worth its game or its round
        int32_t cheat  # 1: search the true state (an upper bound)
        int32_t anchor  # -1: the rollout policy's answer anchors pimc's rule; else this policy's
        double z  # pimc's rule: another answer must lead the anchor's by z standard errors
        double rollout_challenge  # < 0: the rollout policy's own; else rollouts' challenge rate
        uno_decide_fn decide  # UNO_POLICY_USER only: the callback
        void *ctx  # passed to decide
        double explore  # the network player: probability of a uniformly random legal answer
        const void *net  # the network (net.c): a uno_net block the binding owns, or NULL

    # Counterfactual decision points (uno_play_forced).
    ctypedef struct uno_cf_point:
        int32_t round  # the round (1-based)
        int32_t turn  # the game's turn count
        int32_t own  # cards held by the seat
        int32_t other  # cards of the next player (bluff) or the offender (challenge)
        int32_t natural  # the policy's own answer
        int32_t truth  # challenge: 1 when the card was a bluff
        double q  # challenge: uno_bluff_probability, the seat's estimate

    ctypedef struct uno_force:
        int32_t seat  # the seat whose decision point is forced
        int32_t kind  # 0 bluff, 1 challenge
        int32_t index  # which of its decision points (-1: none)
        int32_t value  # the answer forced there (-1: the policy's own)
        int32_t seen  # decision points met so far
        int32_t hit_round  # the round of the forced point, or 0
        int32_t round_won  # that round: whether `seat` won it
        int32_t round_points  # that round: its points
        uno_cf_point pt[64]  # the first UNO_CF_MAX points met

    # One trace record; its lists are data[off .. off + len).
    ctypedef struct uno_event:
        int32_t type  # enum uno_event_type
        int32_t p  # the seat (or the record's first field, uno.h's table)
        int32_t a  # the record's fields a, b, c (uno.h's table)
        int32_t b
        int32_t c
        int32_t off  # first of the record's list words in uno_trace.data
        int32_t len  # words of lists

    # A growable trace buffer owned by the caller.
    ctypedef struct uno_trace:
        uno_event *ev  # the records
        int32_t *data  # the records' lists
        int64_t n_ev  # records written
        int64_t cap_ev  # room in ev
        int64_t n_data  # list words written
        int64_t cap_data  # room in data
        int failed  # out of memory: later records were dropped

    # reference.GameResult.
    ctypedef struct uno_result:
        int32_t status  # UNO_OK or UNO_ERR_*
        int32_t error_card  # UNO_ERR_STARTER: the card id
        int32_t winner  # -1 for a shared win or a team win
        int32_t team  # the winning team in team play, else -1
        int32_t n_winners  # entries of winners
        int32_t winners[10]  # the winning seats
        int32_t scores[10]  # per seat: the final score
        int32_t team_scores[2]  # per team: the final score
        int32_t rounds  # rounds played
        int32_t turns  # turns taken
        int32_t reshuffles  # draw pile reshuffles
        int32_t stalemates  # rounds that ended with nothing left to draw
        int32_t counters[7][10]  # per counter (reference.SEAT_COUNTERS), per seat

    # The aggregate record of a batch of games (csrc/aggregate.c): int64 counts only, a
    # flat array of UNO_AGG_WORDS words that merges by addition.
    enum:
        UNO_AGG_WIN  # a game's win in units (a k-way shared win: UNO_AGG_WIN / k each)
        UNO_AGG_ROUNDS  # bins of rounds_hist
        UNO_AGG_TURNS  # bins of turns_hist
        UNO_AGG_WORDS  # int64 words of a record
    ctypedef struct uno_agg:
        int64_t games  # games added
        int64_t rounds, turns, points  # sums over the games (points: the final scores)
        int64_t reshuffles, stalemates  # sums over the games
        int64_t over  # values past a histogram's last bin
        int64_t wins[10]  # per seat, in 1 / UNO_AGG_WIN of a game
        int64_t team_wins[2]  # games won per team
        int64_t counters[7][10]  # per counter (SEAT_COUNTERS), per seat: sums
        int64_t search[10][4]  # per seat, the search counters (UNO_SS_*): sums
        int64_t rounds_hist[1001]  # UNO_AGG_ROUNDS bins: games by their rounds
        int64_t turns_hist[100001]  # UNO_AGG_TURNS bins: rounds by their turns (last field)

    # Per-round rows of uno_play_games (one per round, in play order).
    ctypedef struct uno_round_rows:
        int64_t cap  # rows of room in every array
        int64_t n  # rows written
        int64_t *game  # the game number
        int32_t *round  # the round number
        int32_t *dealer  # the dealer's seat
        int32_t *starter  # the starter's kind
        int32_t *winner  # who went out, or -1
        int32_t *turns  # turns in the round
        int32_t *reshuffles  # reshuffles in the round
        int32_t *points  # cap x players: what each seat scored
        int32_t *cards_left  # cap x players: cards in hand when the round ended
        uno_agg *agg  # NULL; else no row: each round is added to this record

    # Column outputs of uno_play_games: row i is game first_game + i.
    ctypedef struct uno_columns:
        int64_t *game  # the game number
        int8_t *winner  # uno_result.winner
        int8_t *team  # uno_result.team
        int32_t *rounds  # uno_result.rounds
        int32_t *turns  # uno_result.turns
        int32_t *reshuffles  # uno_result.reshuffles
        int32_t *stalemates  # uno_result.stalemates
        int32_t *scores  # n_games x players
        int32_t *team_scores  # n_games x 2
        int32_t *counters[7]  # per counter: n_games x players
        uno_round_rows *rows  # per-round rows, or NULL
        int64_t games_done  # complete games written
        uno_agg *agg  # NULL, or the aggregate record each game is added to (no rows then)


    int uno_table_init(uno_table *t, int n_kinds, const int32_t *color, const int32_t *face,
                       const int32_t *value, const int32_t *effect, const int32_t *amount,
                       const int32_t *restricted, const int32_t *starter, const int32_t *reason,
                       int n_cards, const int32_t *card_kind, const int32_t *dark_kind) nogil
    int uno_config_check(const uno_config *cfg, const uno_table *t, const uno_policy *pol) nogil
    void uno_trace_init(uno_trace *tr) nogil
    void uno_trace_free(uno_trace *tr) nogil
    void uno_trace_clear(uno_trace *tr) nogil
    int uno_play_game(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                      uno_rng *rng, uno_trace *tr, uno_result *res) nogil
    int uno_play_round(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                       uno_rng *rng, const uint8_t *deck, int dealer, const int32_t *scores,
                       uno_trace *tr, uno_result *res) nogil
    int uno_play_games(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                       const uint64_t *key, uint64_t first_game, int64_t n_games,
                       uno_columns *out) nogil
    int uno_play_games_search(const uno_config *cfg, const uno_table *t,
                              const uno_policy *pol, const uint64_t *key, uint64_t first_game,
                              int64_t n_games, uno_columns *out, int64_t *stats) nogil
    const uno_search_hooks uno_search_players  # uno_config.search when a seat searches
    void uno_agg_clear(uno_agg *a) nogil
    void uno_agg_merge(uno_agg *dst, const uno_agg *src) nogil
    # The stop flag (stop.c): the signal that asked to stop (0: none), raised by hand,
    # cleared; its SIGINT/SIGTERM handler armed around a long call and disarmed (nests).
    int uno_stop_requested() nogil
    void uno_stop_request(int sig) nogil
    void uno_stop_clear() nogil
    void uno_stop_arm()
    void uno_stop_disarm()
    int uno_play_fork(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                      const uint64_t *key, uint64_t game, int64_t at, uno_result *res,
                      uno_result *fork) nogil
    int uno_play_forced(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                        const uint64_t *key, uint64_t game, uno_force *force, uno_trace *tr,
                        uno_result *res) nogil
    int uno_play_forced_rows(const uno_config *cfg, const uno_table *t,
                             const uno_policy *pol, const uint64_t *key, uint64_t game,
                             uno_force *force, uno_round_rows *rows, uno_result *res) nogil
    int uno_play_round_of(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                          const uint64_t *key, uint64_t game, int round, int dealer,
                          const int32_t *scores, uno_result *res) nogil
    int uno_hand_cards(const uno_game *g, int p, uint8_t *out)  # p's cards in hand order
    uint32_t uno_dec_bounded(uno_game *g, int p, int k, uint32_t n) nogil
    int uno_answer_ok(const uno_game *g, int p, int decision, int r) nogil
    # The legal actions of p at `decision` into out[UNO_MAX_ACTIONS]; returns how many
    # (2 * hand index + bluff, UNO_DRAW; 4 * side + c; target seats; 1, 0: see uno.h).
    int uno_legal_actions(const uno_game *g, int p, int decision, int arg, int32_t *out) nogil

    # Observations and action masks of a learning seat (observe.c; docs/env.md)
    enum:
        UNO_OB_DECISION, UNO_OB_HAND, UNO_OB_TOP, UNO_OB_COLOR, UNO_OB_DIRECTION
        UNO_OB_HAND_SIZES, UNO_OB_ACTIVE, UNO_OB_SCORES, UNO_OB_FAILED, UNO_OB_NEXT_SEAT
        UNO_OB_DRAW_PILE, UNO_OB_DISCARDS, UNO_OB_ROUND, UNO_OB_TURN, UNO_OB_PENDING
        UNO_OB_TO_DISCARD, UNO_OB_OFFENDER, UNO_OB_PREVIOUS_COLOR, UNO_OB_FORGETTER, UNO_OB_CARD
        UNO_OB_REVEALED_SEAT, UNO_OB_REVEALED, UNO_OB_SIDE, UNO_OB_OTHER_FACES, UNO_OB_NEXT_DRAW
        UNO_OB_SILENT, UNO_OB_COUNT
        UNO_EPISODE_GAME, UNO_EPISODE_ROUND
    ctypedef struct uno_obs_layout:
        int32_t n_kinds, seats, flip, extreme
        int32_t size, n_actions
        int32_t off[26]
        int32_t len[26]
        float scale[26]
        int32_t a_draw, a_yes, a_no, a_color, a_target
    void uno_obs_layout_init(uno_obs_layout *L, int n_kinds, int seats, int flip, int extreme) nogil
    void uno_observe(const uno_game *g, const uno_obs_layout *L, int seat, int decision, int arg,
                     float *o, int8_t *m, int16_t *kind_index) nogil
    int uno_env_answer(const uno_obs_layout *L, int players, int side, int seat, int decision,
                       int action, const int16_t *kind_index) nogil
    void uno_obs_scale_env(uno_obs_layout *L, int target, int n_cards) nogil

    # The network player (net.c; docs/net.md): a header, the float32 weights `data` bytes on.
    ctypedef struct uno_net:
        uno_obs_layout L  # the observation it reads
        int32_t n_layers  # hidden layers
        int32_t in_ "in"[6]  # per layer (hidden..., policy head, value head): inputs
        int32_t out[6]  # ... and outputs
        int64_t w[6]  # ... and the float offsets of W and of b in the weights
        int64_t b[6]
        int64_t n_floats  # weights following the header
        int64_t data  # bytes from the block's start to the weights
    int64_t uno_net_setup(uno_net *net, int n_kinds, int seats, int flip, int extreme,
                          int n_layers, const int32_t *widths) nogil
    void uno_net_forward(const uno_net *net, const float *obs, float *logits, float *value) nogil
    int uno_net_decide(uno_game *g, int p, int decision, int arg, int honest) nogil
    uint64_t uno_fnv1a64(const void *p, size_t n, uint64_t h) nogil
    # The decision recorder (record.c; docs/net.md).
    enum:
        UNO_REC_COLUMNS
    ctypedef struct uno_record:
        uno_obs_layout L  # the rows' observation layout
        uint32_t seats  # the seats recorded (bit mask)
        const uno_policy *play  # DAgger: per seat, the policy the seats of play_seats play
        uint32_t play_seats
        int64_t n  # rows written
        int64_t cap  # rows of room
        float *obs  # n x L.size
        int8_t *mask  # n x L.n_actions
        float *value  # n x L.n_actions: a search seat's mean value per action id (NaN: none)
        int32_t *count  # n x L.n_actions: rollouts behind each value
        int32_t *col[9]  # UNO_REC_* columns (game, round, turn, seat, decision, action, won,
        #                  round_won, truth)
        int32_t *turns  # per game (NULL: not written): turns, rounds, winner, scores
        int32_t *rounds
        int32_t *winner
        int32_t *scores  # n_games x players
        uint64_t first_game
        int64_t games_done, games_failed
        int failed  # out of memory
    int uno_record_games(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                         const uint64_t *key, uint64_t first_game, int64_t n_games,
                         uno_record *rec) nogil
    void uno_record_free(uno_record *rec) nogil
    ctypedef struct uno_venv:
        pass
    size_t uno_venv_bytes(int n_envs)  # what uno_venv_new allocates
    uno_venv *uno_venv_new(const uno_config *cfg, const uno_table *t, const uno_policy *pol,
                           int seat, int mode, int n_envs, const uno_obs_layout *L, float *obs,
                           int8_t *mask) nogil
    void uno_venv_free(uno_venv *v) nogil
    void uno_venv_reset(uno_venv *v, const uint64_t *keys) nogil
    int uno_venv_step(uno_venv *v, const int32_t *actions, float *reward, uint8_t *terminated,
                      uint8_t *truncated, float *final) nogil
    int uno_venv_decision(const uno_venv *v, int i) nogil
    const uno_game *uno_venv_game(const uno_venv *v, int i) nogil
    int64_t uno_venv_episodes(const uno_venv *v, int i) nogil
    const uno_result *uno_venv_result(const uno_venv *v, int i) nogil
