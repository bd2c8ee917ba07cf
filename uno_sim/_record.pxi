# The decision recorder's binding (included by _engine.pyx): csrc/record.c plays seeded
# games and writes one row per decision of the chosen seats; uno_sim.players.record
# shards it over processes and documents the columns (docs/net.md).

_REC_COLUMNS = ("game", "round", "turn", "seat", "decision", "action", "won", "round_won",
                "truth")
_REC_DTYPES = (np.int64, np.int32, np.int32, np.int8, np.int8, np.int16, np.int8, np.int8,
               np.int8)


def record_games(Engine eng, key, uint64_t first_game, int64_t n_games, uint32_t seats,
                 int obs_seats, Engine play=None):
    """Rows of the decisions of `seats` (a bit mask) in games first_game .. + n_games - 1
    (uno_record_games): a dict of numpy arrays (obs, mask, value, count and the columns
    of _REC_COLUMNS), the games' results (game_turns, game_rounds, game_winner,
    game_scores: turns -1 for a game that failed) and games_failed.  With `play` (an
    engine of the same rules), `seats` play its policies' answers while their own
    policies' answers are the rows' (DAgger)."""
    cdef uint64_t k[4]
    cdef uno_record rec
    cdef int st, c
    cdef int64_t n, size, acts
    _key(key, k)
    memset(&rec, 0, sizeof(rec))
    uno_obs_layout_init(&rec.L, eng.table.n_kinds, obs_seats, eng.table.n_sides == 2,
                        eng.cfg.draw_source == 1)
    uno_obs_scale_env(&rec.L, eng.cfg.target, eng.table.n_cards)
    rec.seats = seats
    if play is not None:
        rec.play = play.pol
        rec.play_seats = seats
    results = {"turns": np.empty(n_games, dtype=np.int32),
               "rounds": np.empty(n_games, dtype=np.int32),
               "winner": np.empty(n_games, dtype=np.int32),
               "scores": np.empty((n_games, eng.players), dtype=np.int32)}
    rec.turns = <int32_t *>cnp.PyArray_DATA(results["turns"])
    rec.rounds = <int32_t *>cnp.PyArray_DATA(results["rounds"])
    rec.winner = <int32_t *>cnp.PyArray_DATA(results["winner"])
    rec.scores = <int32_t *>cnp.PyArray_DATA(results["scores"])
    try:
        with nogil:
            st = uno_record_games(&eng.cfg, &eng.table, eng.pol, k, first_game, n_games, &rec)
        if st == UNO_ERR_FULL:
            raise MemoryError("out of memory while recording decisions")
        if st == UNO_ERR_STARTER:
            raise RulesError("a card turned up cannot start a round (C5)")
        eng._check(st, NULL, NULL, &eng.cfg)
        n, size, acts = rec.n, rec.L.size, rec.L.n_actions
        out = {"obs": np.empty((n, size), dtype=np.float32),
               "mask": np.empty((n, acts), dtype=np.int8),
               "value": np.empty((n, acts), dtype=np.float32),
               "count": np.empty((n, acts), dtype=np.int32)}
        if n:
            memcpy(cnp.PyArray_DATA(out["obs"]), rec.obs, n * size * sizeof(float))
            memcpy(cnp.PyArray_DATA(out["mask"]), rec.mask, n * acts)
            memcpy(cnp.PyArray_DATA(out["value"]), rec.value, n * acts * sizeof(float))
            memcpy(cnp.PyArray_DATA(out["count"]), rec.count, n * acts * sizeof(int32_t))
        for c in range(UNO_REC_COLUMNS):
            col = np.empty(n, dtype=np.int32)
            if n:
                memcpy(cnp.PyArray_DATA(col), rec.col[c], n * sizeof(int32_t))
            out[_REC_COLUMNS[c]] = col.astype(_REC_DTYPES[c])
        out["game"] += first_game
        out["games_failed"] = rec.games_failed
        for name, a in results.items():
            out[f"game_{name}"] = a
        return out
    finally:
        uno_record_free(&rec)
