# The learning seats of uno_sim.env (included by _engine.pyx).
#
# An EnvSeat stands in a user seat of an Engine (Engine.users): at each decision of
# a learning seat the engine's callback hands it the live game, it writes that
# seat's observation vector and action mask straight from the uno_game (what the
# seat may see, docs/rules.md P1; the legal actions from uno_legal_actions, the list a
# user policy's obs.actions is built from),
# then asks `wait(seat)` for the action: uno_sim.env runs the game in a greenlet
# (or a thread) and `wait` switches back to the caller of env.step().
#
# The layouts of both vectors are documented in docs/env.md; `layout` and
# `action_layout` list their blocks (name, offset, size).

from libc.string cimport memcpy, memset


cdef enum:
    ENV_NDEC = 11  # decisions 0..10 of enum uno_decision


cdef class EnvSeat:
    """The stepping seats of one uno_sim.env game: observation, mask and the answer."""

    cdef public object wait  # wait(seat) -> action id, the caller's answer to this decision
    cdef public cnp.ndarray obs  # (players, obs_size) float32: each seat's last observation
    cdef public cnp.ndarray mask  # (players, n_actions) int8: each seat's last action mask
    cdef public int decision  # the decision being asked (enum uno_decision), -1 none
    cdef public int decider  # the seat asked, -1 none
    cdef readonly int n_kinds, players, obs_size, n_actions
    cdef readonly list layout, action_layout
    cdef int flip, extreme
    # block offsets of the observation
    cdef int o_dec, o_hand, o_top, o_color, o_dir, o_sizes, o_active, o_scores, o_failed
    cdef int o_next, o_draw, o_discards, o_round, o_turn, o_pending, o_to_discard
    cdef int o_offender, o_prev, o_forgetter, o_card, o_rev_seat, o_revealed
    cdef int o_side, o_other, o_next_draw, o_silent
    # first offsets of the action blocks
    cdef int a_draw, a_yes, a_no, a_color, a_target
    # this decision: card kind -> hand index (-1 none), relative seat -> seat
    cdef int kind_index[256]
    cdef int side
    cdef cnp.float32_t[:, ::1] O  # views of obs and mask
    cdef cnp.int8_t[:, ::1] M

    def __init__(self, int n_kinds, int players, bint flip, bint extreme):
        cdef int off = 0
        K, N = n_kinds, players
        self.n_kinds, self.players = n_kinds, players
        self.flip, self.extreme = flip, extreme
        blocks = [("decision", ENV_NDEC), ("hand", K), ("top", K), ("color", 8),
                  ("direction", 1), ("hand_sizes", N), ("active", N), ("scores", N),
                  ("failed_colors", 8 * N), ("next_seat", N), ("draw_pile", 1),
                  ("discards", K), ("round", 1), ("turn", 1), ("pending", 1),
                  ("to_discard", 1), ("offender", N), ("previous_color", 8),
                  ("forgetter", N), ("card", K), ("revealed_seat", N), ("revealed", K)]
        if flip:
            blocks += [("side", 1), ("other_faces", N * K), ("next_draw", K)]
        if extreme:
            blocks += [("silent_presses", 1)]
        self.layout = []
        offs = {}
        for name, size in blocks:
            self.layout.append((name, off, size))
            offs[name] = off
            off += size
        self.obs_size = off
        g = offs.get
        (self.o_dec, self.o_hand, self.o_top, self.o_color, self.o_dir, self.o_sizes,
         self.o_active, self.o_scores, self.o_failed, self.o_next, self.o_draw,
         self.o_discards, self.o_round, self.o_turn, self.o_pending, self.o_to_discard,
         self.o_offender, self.o_prev, self.o_forgetter, self.o_card, self.o_rev_seat,
         self.o_revealed) = [offs[b[0]] for b in blocks[:22]]
        self.o_side, self.o_other, self.o_next_draw = g("side", -1), g("other_faces", -1), g("next_draw", -1)
        self.o_silent = g("silent_presses", -1)
        self.a_draw, self.a_yes, self.a_no, self.a_color, self.a_target = K, K + 1, K + 2, K + 3, K + 7
        self.n_actions = K + 7 + N
        self.action_layout = [("card", 0, K), ("draw", K, 1), ("yes", K + 1, 1), ("no", K + 2, 1),
                              ("color", K + 3, 4), ("target", K + 7, N)]
        self.obs = np.zeros((players, self.obs_size), dtype=np.float32)
        self.mask = np.zeros((players, self.n_actions), dtype=np.int8)
        self.O = self.obs
        self.M = self.mask
        self.decision = -1
        self.decider = -1
        self.wait = None

    def legal(self, int seat, a):
        """Whether action `a` (an integer) is allowed by `seat`'s current mask."""
        cdef long i = a
        return 0 <= i < self.n_actions and self.M[seat, i] != 0

    def observe(self, int seat):
        """`seat`'s observation dict (copies): {"observation": ..., "action_mask": ...}."""
        cdef cnp.npy_intp n_obs = self.obs_size, n_act = self.n_actions
        cdef cnp.ndarray o = cnp.PyArray_EMPTY(1, &n_obs, cnp.NPY_FLOAT32, 0)
        cdef cnp.ndarray m = cnp.PyArray_EMPTY(1, &n_act, cnp.NPY_INT8, 0)
        if not 0 <= seat < self.players:
            raise IndexError(f"invalid seat {seat}")
        memcpy(cnp.PyArray_DATA(o), &self.O[seat, 0], n_obs * sizeof(cnp.float32_t))
        memcpy(cnp.PyArray_DATA(m), &self.M[seat, 0], n_act * sizeof(cnp.int8_t))
        return {"observation": o, "action_mask": m}

    cdef inline int _rel(self, int seat, int q):
        return (q - seat + self.players) % self.players

    cdef int decide_game(self, uno_game *g, int seat, int decision, int arg) except? -2:
        """Write `seat`'s observation and mask, wait for the answer, return the engine's int."""
        cdef cnp.float32_t[::1] o = self.O[seat]
        cdef cnp.int8_t[::1] m = self.M[seat]
        cdef int K = self.n_kinds, N = self.players, side = g.side, i, q, c, k, r
        cdef int top = g.discard[g.n_discard - 1]
        cdef int top_kind = g.t.card_kind[side][top]
        cdef int n_hand, n_legal, x
        cdef int a, ans
        cdef uint8_t cards[256]  # a hand in hand order (uno_hand_cards)
        cdef int32_t legal[UNO_MAX_ACTIONS]  # uno_legal_actions' answer
        memset(&o[0], 0, self.obs_size * sizeof(cnp.float32_t))
        memset(&m[0], 0, self.n_actions * sizeof(cnp.int8_t))
        for k in range(K):
            self.kind_index[k] = -1
        self.side = side
        # public and own state (P1)
        o[self.o_dec + decision] = 1
        n_hand = uno_hand_cards(g, seat, cards)
        for i in range(n_hand - 1, -1, -1):  # the first hand index of each kind wins
            k = g.t.card_kind[side][cards[i]]
            o[self.o_hand + k] += 1
            self.kind_index[k] = i
        o[self.o_top + top_kind] = 1
        if g.color >= 0:
            o[self.o_color + g.color] = 1
        o[self.o_dir] = g.direction
        for q in range(N):
            r = self._rel(seat, q)
            o[self.o_sizes + r] = g.hand_n[q]
            o[self.o_active + r] = g.active[q]
            o[self.o_scores + r] = g.scores[q]
            for c in range(8):
                if (g.failed[q] >> c) & 1:
                    o[self.o_failed + 8 * r + c] = 1
        q = seat
        while True:
            q = (q + g.direction + N) % N
            if g.active[q]:
                break
        o[self.o_next + self._rel(seat, q)] = 1
        o[self.o_draw] = g.n_draw
        for i in range(g.n_discard):
            o[self.o_discards + g.t.card_kind[side][g.discard[i]]] += 1
        o[self.o_round] = g.rounds
        o[self.o_turn] = g.turns
        if g.reveal_from[seat] >= 0:
            o[self.o_rev_seat + self._rel(seat, g.reveal_from[seat])] = 1
            for i in range(g.reveal_n[seat]):
                o[self.o_revealed + g.t.card_kind[side][g.reveal[seat][i]]] += 1
        if self.flip:  # F6: what faces the table
            o[self.o_side] = side
            for q in range(N):
                if q != seat and g.active[q]:
                    r = self._rel(seat, q)
                    for i in range(uno_hand_cards(g, q, cards)):
                        o[self.o_other + r * K + g.t.card_kind[side ^ 1][cards[i]]] += 1
            if g.n_draw > 0:
                o[self.o_next_draw + g.t.card_kind[side ^ 1][g.draw[g.n_draw - 1]]] = 1
        if self.extreme and g.launcher:
            o[self.o_silent] = g.silent
        # the legal actions (uno_legal_actions: the list a user policy's obs.actions is
        # built from): a card's action is its kind's, a target's its relative seat
        if decision == UNO_DEC_PLAY or decision == UNO_DEC_REPLACEMENT \
                or decision == UNO_DEC_COLOR or decision == UNO_DEC_TARGET \
                or decision == UNO_DEC_STACK or decision == UNO_DEC_DISCARD:
            n_legal = uno_legal_actions(g, seat, decision, arg, legal)
            uno_hand_cards(g, seat, cards)
            for i in range(n_legal):
                x = legal[i]
                if decision == UNO_DEC_COLOR:
                    m[self.a_color + x - 4 * side] = 1
                elif decision == UNO_DEC_TARGET:
                    m[self.a_target + self._rel(seat, x)] = 1
                elif x == UNO_DRAW:
                    m[self.a_draw] = 1
                else:
                    m[g.t.card_kind[side][cards[x >> 1]]] = 1
        # the decision's own facts
        if decision == UNO_DEC_PLAY or decision == UNO_DEC_REPLACEMENT \
                or decision == UNO_DEC_COLOR:
            pass
        elif decision == UNO_DEC_STACK:  # C-H1
            o[self.o_pending] = arg
        elif decision == UNO_DEC_DISCARD:  # S3
            o[self.o_to_discard] = arg
        elif decision == UNO_DEC_TARGET:  # P2
            o[self.o_card + g.t.card_kind[side][arg]] = 1
        else:  # yes / no
            m[self.a_yes] = 1
            m[self.a_no] = 1
            if decision == 3:  # challenge
                o[self.o_offender + self._rel(seat, arg & 0xFF)] = 1
                if (arg >> 8) > 0:
                    o[self.o_prev + (arg >> 8) - 1] = 1
            elif decision == 5:  # catch
                o[self.o_forgetter + self._rel(seat, arg)] = 1
            elif decision == 6:  # play_drawn
                o[self.o_card + g.t.card_kind[side][arg >> 1]] = 1  # the card drawn
            elif decision == 9:  # jump_in
                o[self.o_card + g.t.card_kind[side][arg]] = 1
        self.decision = decision
        self.decider = seat
        a = self.wait(seat)  # the caller checked it against the mask
        self.decision = -1
        self.decider = -1
        memset(&m[0], 0, self.n_actions * sizeof(cnp.int8_t))
        if decision in (0, 1, 8, 10):
            if a == self.a_draw:
                return -1  # UNO_DRAW
            return self.kind_index[a]  # the first card of that kind in hand order
        if decision == 2:
            return 4 * side + (a - self.a_color)
        if decision == 7:
            return (seat + a - self.a_target) % N
        ans = 1 if a == self.a_yes else 0
        if decision == 4:  # the engine asks "forgets?"
            return 1 - ans
        return ans
