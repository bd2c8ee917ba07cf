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
# The vectors are written by uno_observe (csrc/observe.c, shared with the vector
# environment of _vecenv.pxi); their layouts are documented in docs/env.md, and
# `layout` and `action_layout` list their blocks (name, offset, size).

from libc.string cimport memcpy, memset


# the blocks of uno_obs_layout (csrc/observe.c), in their order: (name, enum uno_obs_block)
OBS_BLOCKS = ("decision", "hand", "top", "color", "direction", "hand_sizes", "active", "scores",
              "failed_colors", "next_seat", "draw_pile", "discards", "round", "turn", "pending",
              "to_discard", "offender", "previous_color", "forgetter", "card", "revealed_seat",
              "revealed", "side", "other_faces", "next_draw", "silent_presses")


cdef list _obs_blocks(const uno_obs_layout *L):
    """(name, offset, size) of the blocks present in L, in order."""
    return [(OBS_BLOCKS[b], L.off[b], L.len[b]) for b in range(UNO_OB_COUNT) if L.len[b] > 0]


cdef list _action_blocks(const uno_obs_layout *L):
    cdef int K = L.n_kinds
    return [("card", 0, K), ("draw", K, 1), ("yes", K + 1, 1), ("no", K + 2, 1),
            ("color", K + 3, 4), ("target", K + 7, L.seats)]


cdef class EnvSeat:
    """The stepping seats of one uno_sim.env game: observation, mask and the answer."""

    cdef public object wait  # wait(seat) -> action id, the caller's answer to this decision
    cdef public cnp.ndarray obs  # (players, obs_size) float32: each seat's last observation
    cdef public cnp.ndarray mask  # (players, n_actions) int8: each seat's last action mask
    cdef public int decision  # the decision being asked (enum uno_decision), -1 none
    cdef public int decider  # the seat asked, -1 none
    cdef readonly int n_kinds, players, obs_size, n_actions
    cdef readonly list layout, action_layout
    cdef uno_obs_layout L  # the blocks (uno_observe writes them: csrc/observe.c)
    # this decision: card kind -> hand index (-1 none)
    cdef int16_t kind_index[256]
    cdef cnp.float32_t[:, ::1] O  # views of obs and mask
    cdef cnp.int8_t[:, ::1] M

    def __init__(self, int n_kinds, int players, bint flip, bint extreme):
        self.n_kinds, self.players = n_kinds, players
        uno_obs_layout_init(&self.L, n_kinds, players, flip, extreme)
        self.layout = _obs_blocks(&self.L)
        self.action_layout = _action_blocks(&self.L)
        self.obs_size = self.L.size
        self.n_actions = self.L.n_actions
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

    cdef int decide_game(self, uno_game *g, int seat, int decision, int arg) except? -2:
        """Write `seat`'s observation and mask, wait for the answer, return the engine's int."""
        cdef int side = g.side, a
        uno_observe(g, &self.L, seat, decision, arg, &self.O[seat, 0], &self.M[seat, 0],
                    self.kind_index)
        self.decision = decision
        self.decider = seat
        a = self.wait(seat)  # the caller checked it against the mask
        self.decision = -1
        self.decider = -1
        memset(&self.M[seat, 0], 0, self.n_actions * sizeof(cnp.int8_t))
        return uno_env_answer(&self.L, self.players, side, seat, decision, a, self.kind_index)
