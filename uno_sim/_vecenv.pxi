# The vector environment's core (included by _engine.pyx): n_envs stepping games in C
# (csrc/env.c, uno_venv), one learning seat each, stepped by one call.  uno_sim.vector_env
# wraps it in a gymnasium VectorEnv; docs/env.md "The vector environment" documents it.


def venv_bytes(int n_envs):
    """What the C core of n_envs games allocates (csrc/env.c uno_venv_bytes), the
    observation and mask arrays aside: training's memory check reads it."""
    return uno_venv_bytes(n_envs)


cdef class VecCore:
    """n_envs games of one Engine's rules and policies; `seat` learns in each."""

    cdef uno_venv *v
    cdef uno_obs_layout L
    cdef uno_config cfg
    cdef Engine eng  # keeps the deck table and the policies alive
    cdef readonly int n_envs, obs_size, n_actions, players, seat
    cdef readonly list layout, action_layout
    cdef readonly cnp.ndarray obs, mask, reward, terminated, truncated, final_obs
    cdef cnp.ndarray _actions

    def __init__(self, Engine eng, int n_envs, int seat, int mode, int seats, bint flip,
                 bint extreme, dict scale, int max_turns):
        cdef int b
        self.eng = eng
        self.cfg = eng.cfg
        self.cfg.max_turns = max_turns
        self.n_envs, self.seat, self.players = n_envs, seat, eng.players
        uno_obs_layout_init(&self.L, eng.table.n_kinds, seats, flip, extreme)
        for name, value in scale.items():
            b = OBS_BLOCKS.index(name)
            self.L.scale[b] = value
        self.layout = _obs_blocks(&self.L)
        self.action_layout = _action_blocks(&self.L)
        self.obs_size, self.n_actions = self.L.size, self.L.n_actions
        self.obs = np.zeros((n_envs, self.obs_size), dtype=np.float32)
        self.mask = np.zeros((n_envs, self.n_actions), dtype=np.int8)
        self.final_obs = np.zeros((n_envs, self.obs_size), dtype=np.float32)
        self.reward = np.zeros(n_envs, dtype=np.float32)
        self.terminated = np.zeros(n_envs, dtype=np.bool_)
        self.truncated = np.zeros(n_envs, dtype=np.bool_)
        self._actions = np.zeros(n_envs, dtype=np.int32)
        _errno_clear()
        self.v = uno_venv_new(&self.cfg, &eng.table, eng.pol, seat, mode, n_envs, &self.L,
                              <float *>cnp.PyArray_DATA(self.obs),
                              <int8_t *>cnp.PyArray_DATA(self.mask))
        if self.v == NULL:
            if _errno_nomem():  # calloc's failure (the refusals leave errno alone)
                raise MemoryError(f"no memory for the vector environment: {n_envs:,} envs "
                                  f"need {uno_venv_bytes(n_envs) / 2**30:.3g} GiB (about "
                                  f"{uno_venv_bytes(1) // 1024} KiB each); use fewer envs")
            raise RulesError("invalid vector environment: the rules or policies are refused")

    def __dealloc__(self):
        uno_venv_free(self.v)
        self.v = NULL

    def reset(self, keys):
        """Start game 0 of run keys[i] (four uint64 words) in env i."""
        cdef cnp.ndarray k = np.ascontiguousarray(keys, dtype=np.uint64)
        if k.ndim != 2 or k.shape[0] != self.n_envs or k.shape[1] != 4:
            raise ValueError(f"invalid keys: expected shape ({self.n_envs}, 4)")
        with nogil:
            uno_venv_reset(self.v, <const uint64_t *>cnp.PyArray_DATA(k))

    def step(self, actions):
        """One step of every env; returns -1, or the first env whose action is illegal."""
        cdef cnp.ndarray a = actions if type(actions) is np.ndarray else None
        cdef int r
        if (a is None or a.dtype.num != cnp.NPY_INT32 or not cnp.PyArray_IS_C_CONTIGUOUS(a)
                or not a.dtype.isnative):  # >i4 from another machine: converted below
            given = np.asarray(actions)
            if given.dtype.kind not in "iu":  # 19.7 is not taken as 19, True not as 1
                raise ValueError(f"invalid actions: expected integer action ids, got "
                                 f"{given.dtype} values")
            if given.shape != (self.n_envs,):
                raise ValueError(f"invalid actions: expected shape ({self.n_envs},), "
                                 f"got {given.shape}")
            if given.size and (given.min() < -(1 << 31) or given.max() >= 1 << 31):
                raise ValueError("invalid actions: an action id out of range")
            a = self._actions
            a[...] = given
        elif a.ndim != 1 or a.shape[0] != self.n_envs:
            raise ValueError(f"invalid actions: expected shape ({self.n_envs},)")
        with nogil:
            r = uno_venv_step(self.v, <const int32_t *>cnp.PyArray_DATA(a),
                              <float *>cnp.PyArray_DATA(self.reward),
                              <uint8_t *>cnp.PyArray_DATA(self.terminated),
                              <uint8_t *>cnp.PyArray_DATA(self.truncated),
                              <float *>cnp.PyArray_DATA(self.final_obs))
        return r

    def decisions(self):
        """Each env's pending decision (enum uno_decision), an int8 array."""
        cdef int i
        out = np.empty(self.n_envs, dtype=np.int8)
        for i in range(self.n_envs):
            out[i] = uno_venv_decision(self.v, i)
        return out

    def episodes(self, int i):
        """How many episodes env i has finished."""
        return uno_venv_episodes(self.v, i)

    def last_result(self, int i):
        """Env i's last finished game: (winners, scores, rounds)."""
        cdef const uno_result *r = uno_venv_result(self.v, i)
        return ([r.winners[j] for j in range(r.n_winners)],
                [r.scores[j] for j in range(self.players)], r.rounds)

    def state(self, int i):
        """Env i's game now (round, turns, scores): for tests and displays."""
        cdef const uno_game *g = uno_venv_game(self.v, i)
        return {"round": g.rounds, "turns": g.turns,
                "scores": [g.scores[j] for j in range(self.players)]}
