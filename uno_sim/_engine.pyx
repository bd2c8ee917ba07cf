# cython: language_level=3
"""Compiled UNO engine (Cython bindings to csrc/).

The binding is one extension module made of:

- ``_uno.pxd``: the C API (csrc/rng.h, csrc/uno.h), declared once and cimported here;
- ``_engine.pyx`` (this file): the Engine class, the user-policy callback and the
  RawState it builds;
- ``_envseat.pxi``: the learning seats of uno_sim.env (observation vector, action mask);
- ``_vecenv.pxi``: the core of uno_sim.vector_env (n_envs stepping games in C, csrc/env.c);
- ``_tracedecode.pxi``: uno_event records -> event dicts;
- ``_net.pxi``: the network player's C block, its file's checksum, its forward pass;
- ``_record.pxi``: the decision recorder (csrc/record.c);
- ``_rnghooks.pxi``: the PRNG test hooks (tests/test_rng.py only).

Compiler directives (boundscheck, wraparound, ...) are set in setup.py so
that ``UNO_SIM_DEBUG=1`` can switch on the checking build.
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from cpython.exc cimport PyErr_CheckSignals
from cpython.pythread cimport PyThread_get_thread_ident

from uno_sim._uno cimport *

from uno_sim.cards import COLORS, DrawReason
from uno_sim.results import GameLimitError, limit_message
from uno_sim.rules import RulesError
from uno_sim.players.user import DECISIONS, PolicyError, RawState

cnp.import_array()


# --- Stopping a long call (csrc/stop.c; docs/engine.md "Stopping") ---

import threading as _threading

cdef unsigned long _MAIN_THREAD = _threading.main_thread().ident


cdef bint _arm() except -1:
    """Arm the stop flag's handler for a long call of the main thread (where Python runs
    its signal handlers); False in another thread, which waits for the main one."""
    if PyThread_get_thread_ident() != _MAIN_THREAD:
        return False
    uno_stop_arm()
    return True


cdef void _disarm(bint armed):
    if armed:
        uno_stop_disarm()


cdef int _stopped(bint armed, bint replayable) except -1:
    """A long call ended with UNO_ERR_STOPPED.  In the main thread, Python's handler
    (already told of the signal by the chained C handler) runs now: KeyboardInterrupt,
    the CLI's Terminated...  A handler that returns lets the call go on: the caller calls
    again from its first unfinished game, which every game's seed makes the same game.
    Another thread's call, stopped by the flag the main thread's call raised, waits for
    that call to clear it, then goes on.  A game with a user seat cannot be played again
    (its policy would be asked twice): KeyboardInterrupt."""
    cdef int sig = uno_stop_requested()
    if armed:
        uno_stop_clear()
        PyErr_CheckSignals()
    else:
        with nogil:
            while uno_stop_requested():
                _nap()
    if not replayable:
        raise KeyboardInterrupt(f"stopped by signal {sig} in a game with a user seat")
    return 0


cdef bint _again(bint armed, bint replayable) except -1:
    """A one-game call stopped (`_stopped`): it is called again unarmed, so that the game,
    played whole, ends before the next signal can stop it.  Returns the new `armed`."""
    _stopped(armed, replayable)
    _disarm(armed)
    return False


cdef extern from *:
    """
    #if defined(_WIN32)
    #include <windows.h>
    static void _nap(void) { Sleep(1); }
    #else
    #include <time.h>
    static void _nap(void) { struct timespec t = {0, 1000000}; nanosleep(&t, NULL); }
    #endif
    #include <errno.h>
    static void _errno_clear(void) { errno = 0; }
    static int _errno_nomem(void) { return errno == ENOMEM; }
    """
    void _nap() nogil
    void _errno_clear()  # errno, around a call whose failure may be calloc's
    int _errno_nomem()


include "_rnghooks.pxi"


# --- The engine (csrc/uno.h) ---

_TABLE_COLUMNS = ("color", "face", "value", "effect", "amount", "restricted", "starter",
                  "reason")


MAX_TURNS = UNO_MAX_TURNS
MAX_ROUNDS = UNO_MAX_ROUNDS
MAX_GAME_TURNS = UNO_MAX_GAME_TURNS


def _agg_layout():
    """uno_agg's fields as {name: (first word, shape)} (csrc/uno.h; the GPU's records too)."""
    buf = np.zeros(UNO_AGG_WORDS, dtype=np.int64)
    cdef uno_agg *a = <uno_agg *>cnp.PyArray_DATA(buf)
    cdef char *b = <char *>a
    return {
        "games": ((<char *>&a.games - b) // 8, ()),
        "rounds": ((<char *>&a.rounds - b) // 8, ()),
        "turns": ((<char *>&a.turns - b) // 8, ()),
        "points": ((<char *>&a.points - b) // 8, ()),
        "reshuffles": ((<char *>&a.reshuffles - b) // 8, ()),
        "stalemates": ((<char *>&a.stalemates - b) // 8, ()),
        "over": ((<char *>&a.over - b) // 8, ()),
        "wins": ((<char *>&a.wins[0] - b) // 8, (UNO_MAX_PLAYERS,)),
        "team_wins": ((<char *>&a.team_wins[0] - b) // 8, (2,)),
        "counters": ((<char *>&a.counters[0][0] - b) // 8, (UNO_N_COUNTERS, UNO_MAX_PLAYERS)),
        "search": ((<char *>&a.search[0][0] - b) // 8, (UNO_MAX_PLAYERS, UNO_SEARCH_STATS)),
        "rounds_hist": ((<char *>&a.rounds_hist[0] - b) // 8, (UNO_AGG_ROUNDS,)),
        "turns_hist": ((<char *>&a.turns_hist[0] - b) // 8, (UNO_AGG_TURNS,)),
    }


AGG_WORDS = UNO_AGG_WORDS  # int64 words of an aggregate record (uno_agg)
AGG_WIN = UNO_AGG_WIN  # a game's win in units of the record's wins
AGG_LAYOUT = _agg_layout()


_ROUND_SCALARS = ("round", "dealer", "starter", "winner", "turns", "reshuffles")


def _round_columns(int64_t cap, int n):
    cols = {"game": np.empty(cap, dtype=np.int64)}
    for name in _ROUND_SCALARS:
        cols[name] = np.empty(cap, dtype=np.int32)
    cols["points"] = np.empty((cap, n), dtype=np.int32)
    cols["cards_left"] = np.empty((cap, n), dtype=np.int32)
    return cols


def _grown(a, int64_t cap):
    b = np.empty((cap,) + a.shape[1:], dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


cdef dict _forced(const uno_force *f):
    """What a forced game saw (uno_force): its decision points and the forced round."""
    cdef int i
    pts = [{"round": f.pt[i].round, "turn": f.pt[i].turn, "own": f.pt[i].own,
            "other": f.pt[i].other, "natural": f.pt[i].natural,
            "truth": f.pt[i].truth, "q": f.pt[i].q}
           for i in range(min(f.seen, UNO_CF_MAX))]
    return {"seen": f.seen, "points": pts, "hit_round": f.hit_round,
            "round_won": f.round_won, "round_points": f.round_points}


cdef void _point_rows(uno_round_rows *rows, dict cols, int64_t cap) except *:
    rows.cap = cap
    rows.agg = NULL  # rows, not an aggregate record
    rows.game = <int64_t *>cnp.PyArray_DATA(cols["game"])
    rows.round = <int32_t *>cnp.PyArray_DATA(cols["round"])
    rows.dealer = <int32_t *>cnp.PyArray_DATA(cols["dealer"])
    rows.starter = <int32_t *>cnp.PyArray_DATA(cols["starter"])
    rows.winner = <int32_t *>cnp.PyArray_DATA(cols["winner"])
    rows.turns = <int32_t *>cnp.PyArray_DATA(cols["turns"])
    rows.reshuffles = <int32_t *>cnp.PyArray_DATA(cols["reshuffles"])
    rows.points = <int32_t *>cnp.PyArray_DATA(cols["points"])
    rows.cards_left = <int32_t *>cnp.PyArray_DATA(cols["cards_left"])


cdef class _Bounded:
    """obs.randint's source: the seat's user stream (UNO_DK_USER), live during one decision."""

    cdef uno_game *g
    cdef int seat

    def __call__(self, uint32_t n):
        if self.g == NULL:
            raise RuntimeError("this observation is no longer live")
        if n < 1:
            raise ValueError("randint(n) needs 1 <= n < 2**32")
        return uno_dec_bounded(self.g, self.seat, UNO_DK_USER, n)


cdef list _hand(uno_game *g, int s):
    """Seat s's cards in hand order (card priority order, docs/policies.md)."""
    cdef uint8_t cards[256]
    cdef int n = uno_hand_cards(g, s, cards)
    return [cards[i] for i in range(n)]


cdef object _raw_state(uno_game *g, int seat, int decision, int arg):
    cdef int s, i
    cdef int32_t legal[UNO_MAX_ACTIONS]
    cdef int n_legal = uno_legal_actions(g, seat, decision, arg, legal)
    return RawState(
        round=g.rounds, turn=g.turns, direction=g.direction, color=g.color,
        hands=[_hand(g, s) for s in range(g.n)],
        discard=[g.discard[i] for i in range(g.n_discard)], n_draw=g.n_draw,
        scores=[g.scores[s] for s in range(g.n)], active=[g.active[s] for s in range(g.n)],
        failed=[g.failed[s] for s in range(g.n)], reveal_from=g.reveal_from[seat],
        reveal=[g.reveal[seat][i] for i in range(g.reveal_n[seat])], side=g.side,
        dark_kind=tuple([g.t.card_kind[1][i] for i in range(g.t.n_cards)])
        if g.t.n_sides == 2 else None,
        draw_top=g.draw[g.n_draw - 1] if g.n_draw > 0 else -1,
        silent=g.silent if g.launcher else -1, legal=tuple([legal[i] for i in range(n_legal)]))


include "_envseat.pxi"
include "_vecenv.pxi"
include "_tracedecode.pxi"
include "_net.pxi"
include "_record.pxi"


cdef int _user_decide(void *ctx, uno_game *g, int seat, int decision, int arg) noexcept with gil:
    """uno_policy.decide for a user seat: ask its UserSeat; keep any error for the caller."""
    cdef Engine eng = <Engine>ctx
    cdef _Bounded b
    cdef int er
    if type(eng.users[seat]) is EnvSeat:  # a learning seat of uno_sim.env
        try:
            er = (<EnvSeat>eng.users[seat]).decide_game(g, seat, decision, arg)
            if er != UNO_DECIDE_ABORT and not uno_answer_ok(g, seat, decision, er):
                raise PolicyError(
                    f"illegal answer {er} from the environment at seat {seat}, round "
                    f"{g.rounds}, turn {g.turns} (decision {DECISIONS[decision]}): out of range")
            return er
        except BaseException as exc:
            eng.error = exc
            return UNO_DECIDE_ABORT
    b = _Bounded()
    b.g = g
    b.seat = seat
    try:
        r = eng.users[seat].decide(_raw_state(g, seat, decision, arg), decision, arg, b)
        if (type(r) is not int or not -(1 << 30) < r < 1 << 30
                or not uno_answer_ok(g, seat, decision, r)):
            raise PolicyError(
                f"illegal answer {r!r} from the user policy at seat {seat}, round {g.rounds}, "
                f"turn {g.turns} (decision {DECISIONS[decision]}): out of range")
        return r
    except BaseException as exc:
        eng.error = exc
        return UNO_DECIDE_ABORT
    finally:
        b.g = NULL


cdef void _fill_config(uno_config *c, dict f) except *:
    """uno_config from its fields by name (uno_sim.engine.CONFIG_FIELDS), each exactly once."""
    cdef int i
    try:
        c.draw_source = f.pop("draw_source")
        c.players = f.pop("players")
        c.edition = f.pop("edition")
        c.dealer_draw = f.pop("dealer_draw")
        c.drawn_card = f.pop("drawn_card")
        c.challenge = f.pop("challenge")
        c.wd4_value = f.pop("wd4_value")
        c.scoring = f.pop("scoring")
        c.target = f.pop("target")
        c.teams = f.pop("teams")
        c.hand_size = f.pop("hand_size")
        c.repair = f.pop("repair")
        c.exchange = f.pop("exchange")
        c.launcher = f.pop("launcher")
        c.launcher_fire = f.pop("launcher_fire")
        c.launcher_max_silent = f.pop("launcher_max_silent")
        burst, weights = f.pop("launcher_burst"), f.pop("launcher_weights")
        c.hit_target_presses = f.pop("hit_target_presses")
        c.stacking = f.pop("stacking")
        c.draw_until_playable = f.pop("draw_until_playable")
        c.forced_play = f.pop("forced_play")
        c.jump_in = f.pop("jump_in")
        c.seven_o = f.pop("seven_o")
        c.flip_starter = f.pop("flip_starter")
    except KeyError as exc:
        raise RulesError(f"invalid rules fields: {exc.args[0]!r} missing") from None
    if f:
        raise RulesError(f"invalid rules fields: unknown {', '.join(map(repr, f))}")
    if not (1 <= len(burst) <= UNO_LAUNCH_MAX and 1 <= len(weights) <= UNO_LAUNCH_MAX):
        raise RulesError(f"invalid launcher weights: 1 to {UNO_LAUNCH_MAX} entries expected")
    c.launcher_n_burst = len(burst)
    c.launcher_n_weights = len(weights)
    for i in range(UNO_LAUNCH_MAX):
        c.launcher_burst[i] = burst[i] if i < len(burst) else 0
        c.launcher_weights[i] = weights[i] if i < len(weights) else 0


cdef void _fill_policy(uno_policy *q, dict f) except *:
    """uno_policy from its fields by name (uno_sim.engine.POLICY_FIELDS), each exactly once."""
    try:
        q.id = f.pop("id")
        q.color = f.pop("color")
        q.bluff = f.pop("bluff")
        q.challenge = f.pop("challenge")
        q.forget_uno = f.pop("forget_uno")
        q.catch = f.pop("catch")
        q.play_drawn = f.pop("play_drawn")
        q.voluntary_draw = f.pop("voluntary_draw")
        q.challenge_auto = f.pop("challenge_auto")
        q.challenge_threshold = f.pop("challenge_threshold")
        q.target = f.pop("target")
        q.stack = f.pop("stack")
        q.jump_in = f.pop("jump_in")
        q.bluff_next = f.pop("bluff_next")
        q.bluff_own = f.pop("bluff_own")
        q.challenge_offender = f.pop("challenge_offender")
        q.challenge_own = f.pop("challenge_own")
        q.suspect = f.pop("suspect")
        q.challenge_posterior = f.pop("challenge_posterior")
        q.challenge_prior = f.pop("challenge_prior")
        q.bluff_join = f.pop("bluff_join")
        q.challenge_join = f.pop("challenge_join")
        q.bluff_cells = f.pop("bluff_cells")
        q.challenge_cells = f.pop("challenge_cells")
        q.samples = f.pop("samples")
        q.rollouts = f.pop("rollouts")
        q.iterations = f.pop("iterations")
        q.c = f.pop("c")
        q.depth = f.pop("depth")
        q.rollout = f.pop("rollout")
        q.others = f.pop("others")
        q.leaf = f.pop("leaf")
        q.mix = f.pop("mix")
        q.infer = f.pop("infer")
        q.voids = f.pop("voids")
        q.colors = f.pop("colors")
        q.bluffs = f.pop("bluffs")
        q.resample = f.pop("resample")
        q.value = f.pop("value")
        q.cheat = f.pop("cheat")
        q.anchor = f.pop("anchor")
        q.z = f.pop("z")
        q.rollout_challenge = f.pop("rollout_challenge")
        q.explore = f.pop("explore")
    except KeyError as exc:
        raise RulesError(f"invalid policy fields: {exc.args[0]!r} missing") from None
    if f:
        raise RulesError(f"invalid policy fields: unknown {', '.join(map(repr, f))}")


cdef void _key(key, uint64_t *k) except *:
    cdef int i
    if len(key) != 4:
        raise ValueError("key must have four 64-bit words")
    for i in range(4):
        k[i] = key[i]


cdef class Engine:
    """One rules + policies configuration, ready to play (used by uno_sim.engine).

    ``config``: uno_config's fields as (name, value) pairs (uno_sim.engine.CONFIG_FIELDS:
    every field once, max_turns and max_rounds apart); ``arrays``: DeckTable.arrays();
    ``policies``: per seat, uno_policy's fields as (name, value) pairs
    (uno_sim.engine.POLICY_FIELDS); ``codes``: per side, card id -> card code; ``nets``:
    per seat, the network block (uno_sim.players.net.Loaded.block) a seat that reads a
    network points at, or None.
    """

    cdef uno_config cfg
    cdef uno_table table
    cdef uno_policy pol[10]
    cdef readonly int players
    cdef readonly int n_cards
    cdef list codes  # per side: card id -> code of that face
    cdef list pairs  # card id -> code of the whole card (round_start)
    cdef dict dark_codes  # kind id -> code, for the dark kinds (UNO_EV_PAIRING)
    cdef public list users  # per seat: a players.user.UserSeat, or None for a built-in
    cdef readonly list nets  # per seat: the network block its uno_policy.net points at, or None
    cdef public object error  # the exception that stopped the last game, if any
    cdef uno_trace *live  # the trace of the game being played by play_game, or NULL
    cdef bint replayable  # no user seat: a game stopped by a signal can be played again
    cdef bint search  # a search seat: one game can be long (its calls arm the stop flag)

    def __init__(self, config, dict arrays, policies, codes, users=None, nets=None):
        cdef int32_t *cols[10]
        cdef list bufs = []
        cdef cnp.ndarray[cnp.int32_t, ndim=1] a
        cdef int i
        _fill_config(&self.cfg, dict(config))
        self.cfg.max_turns = 0
        self.cfg.max_rounds = 0
        names = _TABLE_COLUMNS + ("card_kind", "dark_kind")
        for i in range(10):
            a = np.ascontiguousarray(arrays[names[i]], dtype=np.int32)
            bufs.append(a)
            cols[i] = <int32_t *>cnp.PyArray_DATA(a)
        n_kinds = len(arrays["color"])
        for i in range(8):
            if len(bufs[i]) != n_kinds:
                raise RulesError(f"invalid deck table: column {names[i]} has the wrong length")
        if uno_table_init(&self.table, n_kinds, cols[0], cols[1], cols[2], cols[3], cols[4],
                          cols[5], cols[6], cols[7], len(bufs[8]), cols[8],
                          cols[9] if len(bufs[9]) else NULL) != 0:
            raise RulesError("invalid deck table: a column is out of range")
        if not 2 <= self.cfg.players <= UNO_MAX_PLAYERS or len(policies) != self.cfg.players:
            raise RulesError("invalid players or policies for the C engine")
        memset(self.pol, 0, sizeof(self.pol))
        for i, p in enumerate(policies):
            _fill_policy(&self.pol[i], dict(p))
        self.users = list(users) if users is not None else [None] * len(policies)
        self.nets = list(nets) if nets is not None else [None] * len(policies)
        if len(self.nets) != len(policies):
            raise RulesError("invalid networks: one entry per seat expected")
        for i in range(len(policies)):
            if self.nets[i] is not None:
                self.nets[i] = _net_of(self.nets[i])
                self.pol[i].net = <const void *>cnp.PyArray_DATA(self.nets[i])
        self.error = None
        for i in range(len(policies)):
            if self.pol[i].id == UNO_POLICY_USER:
                if self.users[i] is None:
                    raise RulesError(f"invalid policies: seat {i} has no user policy")
                self.pol[i].decide = _user_decide
                self.pol[i].ctx = <void *>self
        # the engine reaches the search players through their hooks (search.c)
        self.cfg.search = NULL
        for i in range(len(policies)):
            if self.pol[i].id == UNO_POLICY_PIMC or self.pol[i].id == UNO_POLICY_ISMCTS:
                self.cfg.search = &uno_search_players
        if uno_config_check(&self.cfg, &self.table, self.pol) != UNO_OK:
            raise RulesError("invalid rules or policies for the C engine")
        self.replayable = all(self.pol[i].id != UNO_POLICY_USER for i in range(len(policies)))
        self.search = self.cfg.search != NULL  # a seat searches (its hooks are set)
        self.players = self.cfg.players
        self.n_cards = self.table.n_cards
        self.codes = [list(side) for side in codes]
        if (len(self.codes) != self.table.n_sides or len(bufs[9]) not in (0, self.n_cards)
                or any(len(side) != self.n_cards for side in self.codes)):
            raise RulesError("invalid card codes: one per card and side expected")
        self.dark_codes = {}
        if self.table.n_sides == 2:
            for i in range(self.n_cards):
                self.dark_codes[self.table.card_kind[1][i]] = self.codes[1][i]
        if self.table.n_sides == 2:
            self.pairs = [f"{lc}/{dc}" for lc, dc in zip(self.codes[0], self.codes[1])]
        else:
            self.pairs = self.codes[0]

    cdef _check(self, int status, uno_result *res, uno_trace *tr, const uno_config *cfg,
                int64_t game=-1):
        if status == UNO_ERR_POLICY:
            err, self.error = self.error, None
            raise err if err is not None else PolicyError(
                "a user policy's answer was out of range for the C engine")
        if status == UNO_ERR_STARTER:
            raise RulesError(f"card {self.codes[0][res.error_card]} cannot be a starter")
        if status == UNO_ERR_LIMIT:
            which = "the game" if game < 0 else f"game {game}"
            raise GameLimitError(
                limit_message(which, cfg.max_turns or UNO_MAX_TURNS,
                              cfg.max_rounds or UNO_MAX_ROUNDS, UNO_MAX_GAME_TURNS),
                self._decode(tr) if tr != NULL and not tr.failed else None,
                None if game < 0 else game)
        if status != UNO_OK:
            raise RulesError(f"the C engine rejected the configuration (status {status})")
        if tr != NULL and tr.failed:
            raise MemoryError("out of memory while recording the trace")

    def raw(self):
        """The bytes of what the C engine plays: (uno_config, uno_table, uno_policy[10]).

        The GPU runner (uno_sim.gpu) uploads them as they are: the structs have the
        same layout on both targets (uno_port.h).
        """
        return ((<char *>&self.cfg)[:sizeof(uno_config)],
                (<char *>&self.table)[:sizeof(uno_table)],
                (<char *>self.pol)[:sizeof(uno_policy) * 10])

    cdef dict _result(self, uno_result *res):
        cdef int n = self.cfg.players
        return {
            "winner": res.winner,
            "winners": [res.winners[i] for i in range(res.n_winners)],
            "team": res.team,
            "scores": [res.scores[i] for i in range(n)],
            "team_scores": [res.team_scores[0], res.team_scores[1]],
            "rounds": res.rounds,
            "turns": res.turns,
            "reshuffles": res.reshuffles,
            "stalemates": res.stalemates,
            "counters": [[res.counters[c][i] for i in range(n)] for c in range(UNO_N_COUNTERS)],
        }

    def play_game(self, key, uint64_t game, bint trace=False, int32_t max_turns=0,
                  int32_t max_rounds=0):
        """One game; returns (result dict, events list or None).

        ``max_turns`` > 0 lowers the safety limit on turns in a round, and
        ``max_rounds`` > 0 the one on rounds in the game; past either
        GameLimitError is raised, carrying the events so far.
        """
        cdef uint64_t k[4]
        cdef uno_rng rng
        cdef uno_result res
        cdef uno_trace tr
        cdef uno_trace *trp = NULL
        cdef uno_config cfg = self.cfg
        cdef int st
        if max_turns < 0 or max_rounds < 0:
            raise ValueError("max_turns and max_rounds must be >= 0")
        cfg.max_turns = max_turns
        cfg.max_rounds = max_rounds
        _key(key, k)
        uno_trace_init(&tr)
        if trace:
            trp = &tr
        cdef bint armed = _arm() if self.search else False
        try:
            self.live = trp
            while True:
                uno_rng_seed(&rng, k, game)
                with nogil:
                    st = uno_play_game(&cfg, &self.table, self.pol, &rng, trp, &res)
                if st != UNO_ERR_STOPPED:
                    break
                armed = _again(armed, self.replayable)
                uno_trace_clear(&tr)
            self.live = NULL
            self._check(st, &res, trp, &cfg)
            return self._result(&res), (self._decode(trp) if trace else None)
        finally:
            _disarm(armed)
            self.live = NULL
            uno_trace_free(&tr)

    def live_events(self):
        """The events so far of the traced game being played (from a user policy's
        decision: `uno-sim play --human` on the C engine), or []."""
        if self.live == NULL:
            return []
        return self._decode(self.live)

    def play_fork(self, key, uint64_t game, int64_t at):
        """Game ``game`` recorded, forked at its ``at``-th decision (uno_play_fork): returns
        (the game's result dict, the fork's result dict, or its status when it has none:
        -1 no such decision or no snapshot there, -2 / -3 the replay did not follow)."""
        cdef uint64_t k[4]
        cdef uno_result res, fork
        cdef int st
        _key(key, k)
        cdef bint armed = _arm() if self.search else False
        try:
            while True:
                with nogil:
                    st = uno_play_fork(&self.cfg, &self.table, self.pol, k, game, at, &res,
                                       &fork)
                if st != UNO_ERR_STOPPED:
                    break
                armed = _again(armed, self.replayable)
        finally:
            _disarm(armed)
        self._check(st, &res, NULL, &self.cfg, game)
        if fork.status < 0:
            return self._result(&res), fork.status
        self._check(fork.status, &fork, NULL, &self.cfg, game)
        return self._result(&res), self._result(&fork)

    def play_forced(self, key, uint64_t game, int seat, int kind, int index=-1, int value=-1,
                    bint trace=False):
        """Game ``game`` with a decision point forced (uno_play_forced, reference.Force).

        ``kind`` 0 bluff, 1 challenge; the ``index``-th decision point of ``seat``
        is answered ``value`` (-1: the policy's own).  Returns (result dict, force
        dict, events or None): the force dict has ``seen`` (points met), ``points``
        (the first UNO_CF_MAX, each a dict of uno_cf_point), ``hit_round``,
        ``round_won`` and ``round_points``.
        """
        cdef uint64_t k[4]
        cdef uno_result res
        cdef uno_force f
        cdef uno_trace tr
        cdef uno_trace *trp = NULL
        cdef int st
        if not 0 <= seat < self.cfg.players or kind not in (0, 1):
            raise RulesError(f"invalid decision point: seat {seat}, kind {kind}")
        if self.pol[seat].id == UNO_POLICY_USER:
            raise RulesError(f"invalid seat {seat}: counterfactuals need a built-in policy")
        _key(key, k)
        memset(&f, 0, sizeof(f))
        f.seat, f.kind, f.index, f.value = seat, kind, index, value
        uno_trace_init(&tr)
        if trace:
            trp = &tr
        cdef bint armed = _arm() if self.search else False
        try:
            while True:
                with nogil:
                    st = uno_play_forced(&self.cfg, &self.table, self.pol, k, game, &f, trp,
                                         &res)
                if st != UNO_ERR_STOPPED:
                    break
                armed = _again(armed, self.replayable)
                uno_trace_clear(&tr)
            self._check(st, &res, trp, &self.cfg, game)
            return self._result(&res), _forced(&f), (self._decode(trp) if trace else None)
        finally:
            _disarm(armed)
            uno_trace_free(&tr)

    def play_forced_rounds(self, key, uint64_t game, int seat, int kind, int index=-1,
                           int value=-1):
        """play_forced (no trace) with the game's round rows (uno_play_forced_rows): returns
        (result dict, force dict, round columns as play_games(rounds=True) names them
        without the ``round_`` prefix: round, dealer, winner, points (rounds x players),
        ...)."""
        cdef uint64_t k[4]
        cdef uno_result res
        cdef uno_force f
        cdef uno_round_rows rows
        cdef int st
        cdef int64_t cap = UNO_MAX_ROUNDS + 1
        if not 0 <= seat < self.cfg.players or kind not in (0, 1):
            raise RulesError(f"invalid decision point: seat {seat}, kind {kind}")
        if self.pol[seat].id == UNO_POLICY_USER:
            raise RulesError(f"invalid seat {seat}: counterfactuals need a built-in policy")
        _key(key, k)
        memset(&f, 0, sizeof(f))
        f.seat, f.kind, f.index, f.value = seat, kind, index, value
        rcols = _round_columns(cap, self.cfg.players)
        _point_rows(&rows, rcols, cap)
        rows.n = 0
        with nogil:
            st = uno_play_forced_rows(&self.cfg, &self.table, self.pol, k, game, &f, &rows,
                                      &res)
        self._check(st, &res, NULL, &self.cfg, game)
        return (self._result(&res), _forced(&f),
                {name: col[:rows.n].copy() for name, col in rcols.items()})

    def play_round_of(self, key, uint64_t game, int round, int dealer, scores):
        """Round ``round`` of game ``game`` as that game deals it (uno_play_round_of), dealt
        by ``dealer`` from ``scores`` (one per seat); returns the result dict (its scores
        are ``scores`` plus what the round scored)."""
        cdef uint64_t k[4]
        cdef uno_result res
        cdef int32_t sc[10]
        cdef int i, st
        if len(scores) != self.cfg.players:
            raise RulesError(f"invalid scores: {len(scores)} given for {self.cfg.players} "
                             "players")
        for i in range(self.cfg.players):
            sc[i] = scores[i]
        _key(key, k)
        with nogil:
            st = uno_play_round_of(&self.cfg, &self.table, self.pol, k, game, round, dealer,
                                   sc, &res)
        self._check(st, &res, NULL, &self.cfg, game)
        return self._result(&res)

    def play_round(self, key, uint64_t game, deck, int dealer, scores, int32_t max_turns=0):
        """One round from ``deck`` (card ids, top first, or None); returns (result, events)."""
        cdef uint64_t k[4]
        cdef uno_rng rng
        cdef uno_result res
        cdef uno_trace tr
        cdef uno_config cfg = self.cfg
        cdef uint8_t d[255]
        cdef int32_t sc[10]
        cdef const uint8_t *dp = NULL
        cdef const int32_t *sp = NULL
        cdef int i, st
        if max_turns < 0:
            raise ValueError("max_turns must be >= 0")
        cfg.max_turns = max_turns
        _key(key, k)
        if deck is not None:
            if len(deck) != self.n_cards:
                raise RulesError(f"invalid deck: {len(deck)} cards given, {self.n_cards} expected")
            for i in range(self.n_cards):
                d[i] = deck[i]
            dp = d
        if scores is not None:
            if len(scores) != self.cfg.players:
                raise RulesError(
                    f"invalid scores: {len(scores)} given for {self.cfg.players} players")
            for i in range(self.cfg.players):
                sc[i] = scores[i]
            sp = sc
        uno_trace_init(&tr)
        cdef bint armed = _arm() if self.search else False
        try:
            while True:
                uno_rng_seed(&rng, k, game)
                with nogil:
                    st = uno_play_round(&cfg, &self.table, self.pol, &rng, dp, dealer, sp,
                                        &tr, &res)
                if st != UNO_ERR_STOPPED:
                    break
                armed = _again(armed, self.replayable)
                uno_trace_clear(&tr)
            self._check(st, &res, &tr, &cfg)
            return self._result(&res), self._decode(&tr)
        finally:
            _disarm(armed)
            uno_trace_free(&tr)

    def play_games(self, key, uint64_t first_game, int64_t n_games, bint rounds=False):
        """Games first_game .. first_game + n_games - 1 as columns (one call, GIL released).

        With ``rounds``, also one row per round: ``round_*`` columns (game,
        round, dealer, starter kind, winner, turns, reshuffles, and per seat
        points and cards_left).  With a search seat (pimc, ismcts), also
        ``search_stats``: per game and seat the search counters (uno.h UNO_SS_*:
        decisions searched, answered by the rollout policy for want of a sample,
        samples drawn, samples dropped), an int64 array n_games x players x 4.
        """
        cdef uint64_t k[4]
        cdef uno_columns out
        cdef uno_round_rows rows
        cdef int n = self.cfg.players
        cdef int st, c
        cdef int64_t done = 0, cap
        cdef uno_result dummy
        cdef bint search, armed, once
        cdef int64_t *stats = NULL, todo
        _key(key, k)
        if n_games < 0:
            raise ValueError("n_games must be >= 0")
        cols = {
            "game": np.empty(n_games, dtype=np.int64),
            "winner": np.empty(n_games, dtype=np.int8),
            "team": np.empty(n_games, dtype=np.int8),
            "rounds": np.empty(n_games, dtype=np.int32),
            "turns": np.empty(n_games, dtype=np.int32),
            "reshuffles": np.empty(n_games, dtype=np.int32),
            "stalemates": np.empty(n_games, dtype=np.int32),
            "scores": np.empty((n_games, n), dtype=np.int32),
            "team_scores": np.empty((n_games, 2), dtype=np.int32),
        }
        counters = [np.empty((n_games, n), dtype=np.int32) for c in range(UNO_N_COUNTERS)]
        search = self.cfg.search != NULL
        if search:
            cols["search_stats"] = np.zeros((n_games, n, UNO_SEARCH_STATS), dtype=np.int64)
        rcols = {}
        out.rows = NULL
        out.agg = NULL
        rows.n = 0
        rows.agg = NULL
        if rounds:
            cap = 16 * n_games + 64
            rcols = _round_columns(cap, n)
            _point_rows(&rows, rcols, cap)
            out.rows = &rows
        armed = _arm()
        once = False  # the next call plays one game, unarmed (after a stop, below)
        try:
            while True:
                out.game = <int64_t *>cnp.PyArray_DATA(cols["game"]) + done
                out.winner = <int8_t *>cnp.PyArray_DATA(cols["winner"]) + done
                out.team = <int8_t *>cnp.PyArray_DATA(cols["team"]) + done
                out.rounds = <int32_t *>cnp.PyArray_DATA(cols["rounds"]) + done
                out.turns = <int32_t *>cnp.PyArray_DATA(cols["turns"]) + done
                out.reshuffles = <int32_t *>cnp.PyArray_DATA(cols["reshuffles"]) + done
                out.stalemates = <int32_t *>cnp.PyArray_DATA(cols["stalemates"]) + done
                out.scores = <int32_t *>cnp.PyArray_DATA(cols["scores"]) + done * n
                out.team_scores = <int32_t *>cnp.PyArray_DATA(cols["team_scores"]) + done * 2
                for c in range(UNO_N_COUNTERS):
                    out.counters[c] = <int32_t *>cnp.PyArray_DATA(counters[c]) + done * n
                todo = 1 if once else n_games - done
                if once:
                    _disarm(armed)
                if search:
                    stats = <int64_t *>cnp.PyArray_DATA(cols["search_stats"]) + (
                        done * n * UNO_SEARCH_STATS)
                    with nogil:
                        st = uno_play_games_search(&self.cfg, &self.table, self.pol, k,
                                                   first_game + done, todo, &out, stats)
                else:
                    with nogil:
                        st = uno_play_games(&self.cfg, &self.table, self.pol, k,
                                            first_game + done, todo, &out)
                if once:
                    armed, once = _arm(), False
                done += out.games_done
                if st == UNO_ERR_STOPPED:  # the games done are kept; the rest played on,
                    _stopped(armed, self.replayable)
                    # the game stopped first, whole: a signal every few milliseconds to a
                    # handler that returns cannot hold the batch in one game for ever
                    once = True
                    continue
                if st == UNO_OK and done < n_games:  # after that one game
                    continue
                if st != UNO_ERR_FULL or not rounds:
                    break
                # No room for the next game's rounds: grow and go on from there.
                cap = 2 * rows.cap
                rcols = {name: _grown(a, cap) for name, a in rcols.items()}
                _point_rows(&rows, rcols, cap)
        finally:
            _disarm(armed)
        if st != UNO_OK:
            memset(&dummy, 0, sizeof(dummy))
            self._check(st, &dummy, NULL, &self.cfg, first_game + done)
        if rounds:
            # "round_" is the round number (runner.rounds_frame names it "round").
            cols.update({"round_" + ("" if name == "round" else name): a[:rows.n]
                         for name, a in rcols.items()})
        return cols, counters

    def has_search(self):
        """Whether a seat is a search player (pimc, ismcts): the search's hooks are set."""
        return self.cfg.search != NULL

    def play_aggregate(self, key, uint64_t first_game, int64_t n_games,
                       cnp.ndarray[cnp.int64_t, ndim=1] record):
        """Adds games first_game .. first_game + n_games - 1 to `record` (UNO_AGG_WORDS int64
        words, a uno_agg: csrc/aggregate.c), writing no columns (one call, GIL released).
        A game that fails raises as play_games does; the record is then partial."""
        cdef uint64_t k[4]
        cdef uno_columns out
        cdef uno_result dummy
        cdef int st
        _key(key, k)
        if record.shape[0] != UNO_AGG_WORDS or not record.flags.c_contiguous:
            raise ValueError(f"record must be {UNO_AGG_WORDS} contiguous int64 words")
        if n_games < 0:
            raise ValueError("n_games must be >= 0")
        memset(&out, 0, sizeof(out))
        out.agg = <uno_agg *>cnp.PyArray_DATA(record)
        with nogil:
            st = uno_play_games(&self.cfg, &self.table, self.pol, k, first_game, n_games, &out)
        if st != UNO_OK:
            memset(&dummy, 0, sizeof(dummy))
            self._check(st, &dummy, NULL, &self.cfg, first_game + out.games_done)

    cdef list _decode(self, const uno_trace *tr):
        """The trace records as the dicts reference.Game.emit writes (_tracedecode.pxi)."""
        return _decode_trace(tr, self.codes, self.pairs, self.dark_codes, self.cfg.players,
                             self.cfg.teams)
