# The trace decoder (included by _engine.pyx): uno_trace's uno_event records and
# their lists (the table at the top of csrc/uno.h) turned into the event dicts
# reference.Game.emit writes (docs/trace.md), card ids into card codes.

_SIDES = ("light", "dark")
_REASONS = {int(r): r.name.lower() for r in DrawReason}


cdef inline list _codes(const int32_t *d, int n, list codes):
    return [codes[d[i]] for i in range(n)]

cdef list _decode_trace(const uno_trace *tr, list sides, list pairs, dict dark_codes, int n,
                        bint teams):
    """The trace records as the dicts reference.Game.emit writes.

    ``sides``: per side, card id -> code of that face; ``pairs``: card id -> code of
    the whole card; ``dark_codes``: dark kind -> code (EV_PAIRING); ``n`` players.

    Card codes name the face in play, which the decoder follows from the
    round_start (light) and flip records; round_start shows whole cards.
    """
    cdef list events = []
    cdef list codes = sides[0]
    cdef int64_t i
    cdef const uno_event *e
    cdef const int32_t *d
    cdef int s, m, j
    cdef dict ev
    for i in range(tr.n_ev):
        e = &tr.ev[i]
        d = tr.data + e.off
        t = e.type
        if t == UNO_EV_PLAY:
            ev = {"e": "play", "p": e.p, "card": codes[e.a]}
            if e.b >= 0:
                ev["color"] = COLORS[e.b]
            if e.c >= 0:
                ev["legal"] = bool(e.c)
        elif t == UNO_EV_DRAW:
            ev = {"e": "draw", "p": e.p, "cards": _codes(d + 1, d[0], codes),
                  "reason": _REASONS[e.a]}
        elif t == UNO_EV_PASS:
            ev = {"e": "pass", "p": e.p}
        elif t == UNO_EV_SKIP:
            ev = {"e": "skip", "p": e.p}
        elif t == UNO_EV_UNO:
            ev = {"e": "uno", "p": e.p, "called": bool(e.a)}
        elif t == UNO_EV_CAUGHT:
            ev = {"e": "caught", "p": e.p, "by": e.a}
        elif t == UNO_EV_REVERSE:
            ev = {"e": "reverse", "p": e.p, "dir": e.a}
        elif t == UNO_EV_COLOR:
            ev = {"e": "color", "p": e.p, "color": COLORS[e.a]}
        elif t == UNO_EV_CHALLENGE:
            ev = {"e": "challenge", "p": e.p, "target": e.a, "bluff": bool(e.b),
                  "hand": _codes(d + 1, d[0], codes)}
        elif t == UNO_EV_TAKE_BACK:
            ev = {"e": "take_back", "p": e.p, "card": codes[e.a]}
        elif t == UNO_EV_RESHUFFLE:
            ev = {"e": "reshuffle", "cards": e.a}
        elif t == UNO_EV_DEALER_DRAW:
            m = d[0] // 2
            ev = {"e": "dealer_draw",
                  "draws": [[d[1 + 2 * j], codes[d[2 + 2 * j]]] for j in range(m)],
                  "dealer": e.a}
        elif t == UNO_EV_PAIRING:  # this game's own pairing of faces (F1 switch)
            sides = [sides[0], [dark_codes[d[1 + j]] for j in range(d[0])]]
            pairs = [f"{lc}/{dc}" for lc, dc in zip(sides[0], sides[1])]
            continue
        elif t == UNO_EV_PRESS:  # E2: one press of the launcher
            ev = {"e": "press", "p": e.p, "by": e.b,
                  "cards": _codes(d + 1, d[0], codes), "reason": _REASONS[e.a],
                  "left": e.c}
        elif t == UNO_EV_DISCARD_ALL:
            ev = {"e": "discard_all", "p": e.p, "cards": _codes(d + 1, d[0], codes)}
        elif t == UNO_EV_AIM:
            ev = {"e": "aim", "p": e.p, "target": e.a}
        elif t == UNO_EV_FLIP:
            codes = sides[e.a]
            ev = {"e": "flip", "p": e.p, "side": _SIDES[e.a], "top": codes[e.b]}
        elif t == UNO_EV_DRAW_UNTIL:
            ev = {"e": "draw_until", "p": e.p, "color": COLORS[e.b],
                  "cards": _codes(d + 1, d[0], codes), "reason": _REASONS[e.a]}
        elif t == UNO_EV_EXCHANGE:
            ev = {"e": "exchange", "p": e.p, "target": e.a}
        elif t == UNO_EV_SHUFFLE_HANDS:
            hands = []
            for s in range(n):
                hands.append(_codes(d + 1, d[0], codes))
                d += 1 + d[0]
            ev = {"e": "shuffle_hands", "p": e.p, "hands": hands}
        elif t == UNO_EV_PUT_DOWN:
            ev = {"e": "put_down", "p": e.p, "cards": _codes(d + 1, d[0], codes)}
        elif t == UNO_EV_EXTRA_TURN:
            ev = {"e": "extra_turn", "p": e.p}
        elif t == UNO_EV_STACK:
            ev = {"e": "stack", "p": e.p, "total": e.a}
        elif t == UNO_EV_JUMP_IN:
            ev = {"e": "jump_in", "p": e.p, "card": codes[e.a]}
        elif t == UNO_EV_SWAP:
            ev = {"e": "swap", "p": e.p, "target": e.a}
        elif t == UNO_EV_ROTATE:
            ev = {"e": "rotate", "p": e.p, "dir": e.a}
        elif t == UNO_EV_ROUND_START:
            codes = sides[e.p]  # the side play starts on (F2)
            deck = _codes(d + 1, d[0], pairs)
            d += 1 + d[0]
            hands = []
            for s in range(n):
                hands.append(_codes(d + 1, d[0], pairs))
                d += 1 + d[0]
            ev = {"e": "round_start", "round": e.a, "dealer": e.b, "deck": deck,
                  "hands": hands, "starter": codes[e.c],
                  "returned": [sides[d[1 + j] >> 8][d[1 + j] & 0xFF] for j in range(d[0])]}
        elif t == UNO_EV_ROUND_END:
            points = [d[1 + j] for j in range(d[0])]
            d += 1 + d[0]
            hands = []
            for s in range(n):
                hands.append(_codes(d + 1, d[0], codes))
                d += 1 + d[0]
            scores = [d[1 + j] for j in range(d[0])]
            d += 1 + d[0]
            eliminated = [d[1 + j] for j in range(d[0])]
            d += 1 + d[0]
            ev = {"e": "round_end", "round": e.a, "p": None if e.p < 0 else e.p,
                  "points": points, "hands": hands, "scores": scores,
                  "eliminated": eliminated}
            if teams:
                ev["team_scores"] = [d[1], d[2]]
        else:
            raise RuntimeError(f"unknown trace record type {t}")
        events.append(ev)
    return events
