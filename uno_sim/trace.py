"""Event traces: JSON Lines files and a readable play-by-play (see docs/trace.md)."""

from __future__ import annotations

import json

from .cards import COLOR_NAMES, COLORS, color_names


def write_jsonl(events, path_or_file) -> None:
    """Write events, one JSON object per line (atomically when given a path)."""
    if hasattr(path_or_file, "write"):
        for e in events:
            path_or_file.write(json.dumps(e, separators=(",", ":")) + "\n")
        return
    import os

    from .files import writing

    tmp = f"{path_or_file}.tmp"
    with writing(path_or_file):
        with open(tmp, "w", encoding="utf-8") as f:
            write_jsonl(events, f)
        os.replace(tmp, path_or_file)


MAX_TRACE_BYTES = 256 * 2**20  # what read_jsonl reads at most (a long game's trace: ~1 MiB)


def read_jsonl(path_or_file, line_numbers: bool = False):
    """The events of a JSON Lines trace (a path, or an open stream such as stdin).

    ValueError naming the line for a line that is not an event; FileLimitError (a
    ValueError) for a file that is not a regular file or larger than MAX_TRACE_BYTES.
    See `validate` for the checks against the trace format.  `line_numbers`: return
    (events, the line number of each event) instead.
    """
    from .files import read_capped

    data = read_capped(path_or_file, MAX_TRACE_BYTES)
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None
    events, numbers = [], []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            e = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {n} is not JSON: {exc.msg}") from None
        except RecursionError:
            raise ValueError(f"line {n} is nested too deeply") from None
        if not isinstance(e, dict) or "e" not in e:
            raise ValueError(f"line {n} is not a trace event (no 'e' field)")
        events.append(e)
        numbers.append(n)
    return (events, numbers) if line_numbers else events


def _color(letter, names=COLOR_NAMES) -> str:
    return names[COLORS.index(letter)] if letter in COLORS else str(letter)


def _cards(cards) -> str:
    return " ".join(cards) if cards else "nothing"


def describe(e: dict, names=COLOR_NAMES) -> str | None:
    """One readable line for an event (None for events shown only in headers).

    `names`: the color names of the variant played (`cards.color_names`).
    """
    t = e["e"]
    p = f"P{e['p']}" if e.get("p") is not None else ""
    if t == "game_start":
        return (f"== game {e.get('game', 0)} (seed {e.get('seed')}): {e.get('variant')}, "
                f"{e.get('players')} players, policies {', '.join(e.get('policies', []))}")
    if t == "dealer_draw":
        draws = ", ".join(f"P{s} {c}" for s, c in e["draws"])
        return f"dealer draw: {draws} -> P{e['dealer']} deals"
    if t == "round_start":
        lines = [f"-- round {e['round']}, P{e['dealer']} deals"]
        for s, h in enumerate(e["hands"]):
            if h:
                lines.append(f"   P{s}: {' '.join(h)}")
        if e.get("returned"):
            lines.append(f"   returned to the pile: {' '.join(e['returned'])}")
        lines.append(f"   starter: {e['starter']}")
        return "\n".join(lines)
    if t == "play":
        s = f"{p} plays {e['card']}"
        if "color" in e:
            s += f", names {_color(e['color'], names)}"
        if e.get("legal") is False:
            s += " (bluff)"
        return s
    if t == "color":
        return f"{p} names {_color(e['color'], names)}"
    if t == "draw":
        return f"{p} draws {_cards(e['cards'])} ({e['reason'].replace('_', ' ')})"
    if t == "draw_until":
        return (f"{p} draws until {_color(e['color'], names)}: {_cards(e['cards'])} "
                f"({e['reason'].replace('_', ' ')})")
    if t == "exchange":
        return f"{p} swaps hands with P{e['target']}"
    if t == "shuffle_hands":
        sizes = " ".join(f"P{s}:{len(h)}" for s, h in enumerate(e["hands"]) if h)
        return f"{p} shuffles all hands and deals them out again ({sizes} cards)"
    if t == "put_down":
        return f"{p} puts down {_cards(e['cards'])} (under the top card)"
    if t == "extra_turn":
        return f"{p} plays an extra turn"
    if t == "flip" and e["p"] == -1:  # F2 switch: a Flip starter turned the game over
        return f"   the starter Flip turns the game over: play starts on the {e['side']} side"
    if t == "flip":
        return f"{p} flips: play goes on on the {e['side']} side, {e['top']} comes up"
    if t == "press":  # E2: one press of the UNO Extreme launcher
        own = e.get("by") in (None, e.get("p"))
        who = p if own else f"P{e['by']}"
        got = f"fires {_cards(e['cards'])}" if e["cards"] else "fires nothing"
        got += "" if own else f" at {p}"
        return f"{who} presses the launcher: {got} ({e['reason'].replace('_', ' ')})"
    if t == "discard_all":
        return f"{p} puts down with it: {_cards(e['cards'])}"
    if t == "aim":
        return f"{p} aims the launcher at P{e['target']}"
    if t == "pass":
        return f"{p} passes"
    if t == "skip":
        return f"{p} is skipped"
    if t == "reverse":
        return f"{p} reverses: play goes {'left' if e['dir'] == 1 else 'right'}"
    if t == "uno":
        return f"{p} says UNO" if e["called"] else f"{p} forgets to say UNO"
    if t == "caught":
        return f"P{e['by']} catches {p}"
    if t == "challenge":
        verdict = "a bluff" if e["bluff"] else "legal"
        return f"{p} challenges P{e['target']}: the play was {verdict} (hand: {_cards(e['hand'])})"
    if t == "take_back":
        return f"{p} takes back {e['card']}"
    if t == "stack":
        return f"{p} stacks on the {e['total']} cards pending"
    if t == "jump_in":
        return f"{p} jumps in on {e['card']}"
    if t == "swap":
        return f"{p} swaps hands with P{e['target']}"
    if t == "rotate":
        return f"{p}: every hand passes {'left' if e['dir'] == 1 else 'right'}"
    if t == "reshuffle":
        return f"discards reshuffled into a new draw pile of {e['cards']} cards"
    if t == "round_end":
        head = (f"-- round {e['round']} won by {p}" if e.get("p") is not None
                else f"-- round {e['round']} ends in a stalemate")
        pts = [f"P{s}:{v}" for s, v in enumerate(e["points"]) if v]
        tail = f"; points {' '.join(pts)}" if pts else ""
        s = f"{head}{tail}; scores {e['scores']}"
        if e.get("team_scores") is not None:
            s += f"; team scores {e['team_scores']}"
        if e.get("eliminated"):
            s += f"; eliminated {' '.join(f'P{x}' for x in e['eliminated'])}"
        return s
    if t == "game_end":
        if e.get("team", -1) >= 0:
            who = f"team {e['team']} ({' '.join(f'P{s}' for s in e['winners'])})"
        else:
            who = " and ".join(f"P{s}" for s in e["winners"])
        return f"== {who} won after {e['rounds']} rounds; scores {e['scores']}"
    return f"{t} {json.dumps({k: v for k, v in e.items() if k != 'e'})}"


def replay_lines(events):
    """The play-by-play, line by line; ValueError naming the event for a malformed one."""
    names = COLOR_NAMES
    for n, e in enumerate(events, 1):
        try:
            if e["e"] == "game_start":
                names = color_names(e.get("variant", "classic"))
            line = describe(e, names)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError,
                RecursionError) as exc:
            kind = e.get("e") if isinstance(e, dict) else None
            why = f"no field {exc}" if isinstance(exc, KeyError) else "a field of the wrong type"
            raise ValueError(f"event {n} ({str(kind)[:40]!r}) is malformed: {why}") from None
        if line is not None:
            yield line


# --- checking a trace against the format (docs/trace.md) ---

class TraceError(ValueError):
    """A trace that does not follow docs/trace.md; the message names the event."""


# What each field holds: a check on (value, context) -> the reason it is wrong, or None.
_SEAT, _SEAT_OR_NULL, _SEAT_OR_M1, _COUNT, _POS, _INT, _BOOL = (
    "seat", "seat or null", "seat or -1", "count", "positive", "int", "bool")
_CARD, _CARDS, _COLOR, _REASON, _DIR, _SIDE, _HANDS, _PER_SEAT, _SEATS, _DRAWS = (
    "card", "cards", "color", "reason", "dir", "side", "hands", "per seat", "seats", "draws")
_TEAM, _TEAMS, _STR, _DICT, _LIST = "team", "team scores", "str", "dict", "list"

# event -> (required fields, optional fields); every field with its kind
EVENT_FIELDS = {
    "game_start": ({"seed": _COUNT, "game": _COUNT, "variant": _STR, "rules": _DICT,
                    "players": _POS, "policies": _LIST}, {}),
    "dealer_draw": ({"draws": _DRAWS, "dealer": _SEAT}, {}),
    "round_start": ({"round": _POS, "dealer": _SEAT, "deck": _CARDS, "hands": _HANDS,
                     "starter": _CARD}, {"returned": _CARDS}),
    "color": ({"p": _SEAT, "color": _COLOR}, {}),
    "play": ({"p": _SEAT, "card": _CARD}, {"color": _COLOR, "legal": _BOOL}),
    "uno": ({"p": _SEAT, "called": _BOOL}, {}),
    "caught": ({"p": _SEAT, "by": _SEAT}, {}),
    "draw": ({"p": _SEAT, "cards": _CARDS, "reason": _REASON}, {}),
    "pass": ({"p": _SEAT}, {}),
    "skip": ({"p": _SEAT}, {}),
    "reverse": ({"p": _SEAT, "dir": _DIR}, {}),
    "challenge": ({"p": _SEAT, "target": _SEAT, "bluff": _BOOL, "hand": _CARDS}, {}),
    "take_back": ({"p": _SEAT, "card": _CARD}, {}),
    "reshuffle": ({"cards": _COUNT}, {}),
    "flip": ({"p": _SEAT_OR_M1, "side": _SIDE, "top": _CARD}, {}),
    "draw_until": ({"p": _SEAT, "color": _COLOR, "cards": _CARDS, "reason": _REASON}, {}),
    "press": ({"p": _SEAT, "cards": _CARDS, "reason": _REASON, "left": _COUNT},
              {"by": _SEAT}),
    "discard_all": ({"p": _SEAT, "cards": _CARDS}, {}),
    "aim": ({"p": _SEAT, "target": _SEAT}, {}),
    "exchange": ({"p": _SEAT, "target": _SEAT}, {}),
    "shuffle_hands": ({"p": _SEAT, "hands": _HANDS}, {}),
    "put_down": ({"p": _SEAT, "cards": _CARDS}, {}),
    "extra_turn": ({"p": _SEAT}, {}),
    "stack": ({"p": _SEAT, "total": _COUNT}, {}),
    "jump_in": ({"p": _SEAT, "card": _CARD}, {}),
    "swap": ({"p": _SEAT, "target": _SEAT}, {}),
    "rotate": ({"p": _SEAT, "dir": _DIR}, {}),
    "round_end": ({"round": _POS, "p": _SEAT_OR_NULL, "points": _PER_SEAT, "hands": _HANDS,
                   "scores": _PER_SEAT}, {"team_scores": _TEAMS, "eliminated": _SEATS}),
    "game_end": ({"winner": _SEAT_OR_M1, "winners": _SEATS, "team": _TEAM,
                  "scores": _PER_SEAT, "rounds": _POS}, {"team_scores": _TEAMS}),
}
# Events of one deck's cards only (the card codes catch the rest)
_ONLY = {"flip": ("two-sided", "UNO Flip"), "press": ("launcher", "UNO Extreme"),
         "aim": ("launcher", "UNO Extreme"), "discard_all": ("launcher", "UNO Extreme")}


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _wrong_plain(kind, v) -> str | None:
    """Why `v` is not a value of a kind that needs no game (counts, strings...), or None."""
    if kind == _COUNT:
        return None if _is_int(v) and v >= 0 else "not an integer >= 0"
    if kind == _POS:
        return None if _is_int(v) and v >= 1 else "not an integer >= 1"
    if kind == _STR:
        return None if isinstance(v, str) else "not a string"
    if kind == _DICT:
        return None if isinstance(v, dict) else "not an object"
    if kind == _LIST:
        return None if isinstance(v, list) else "not a list"
    raise AssertionError(kind)


class _Game:
    """What the checks of one event need from the trace's game_start."""

    def __init__(self, start: dict):
        from .cards import deck_for
        from .rules import Rules, RulesError

        try:
            rules = Rules.from_dict(start["rules"])
        except (RulesError, TypeError) as exc:
            raise TraceError(f"its rules are not valid: {exc}") from None
        for key in ("variant", "players"):
            if start[key] != getattr(rules, key):
                raise TraceError(f"{key} {start[key]!r} differs from its rules' "
                                 f"{key} {getattr(rules, key)!r}")
        if len(start["policies"]) != rules.players:
            raise TraceError(f"{len(start['policies'])} policies for {rules.players} players")
        deck = deck_for(rules)
        self.players = rules.players
        self.variant = rules.variant
        self.codes = {k.code for k in deck.kinds}
        self.sides = deck.sides
        self.launcher = rules.variant_spec.draw_source == "launcher"

    def card_ok(self, v) -> bool:
        if not isinstance(v, str):
            return False
        if v in self.codes:
            return True
        light, sep, dark = v.partition("/")  # a whole Flip card (round_start)
        return bool(sep) and self.sides == 2 and light in self.codes and dark in self.codes

    def wrong(self, kind, v) -> str | None:
        """Why `v` is not a value of `kind`, or None."""
        from .cards import COLORS, DrawReason

        if kind in (_COUNT, _POS, _STR, _DICT, _LIST):
            return _wrong_plain(kind, v)
        n = self.players
        if kind in (_SEAT, _SEAT_OR_NULL, _SEAT_OR_M1):
            if v is None and kind == _SEAT_OR_NULL or v == -1 and kind == _SEAT_OR_M1:
                return None
            return None if _is_int(v) and 0 <= v < n else f"not a seat of {n} players (0..{n - 1})"
        if kind == _TEAM:
            return None if _is_int(v) and -1 <= v <= 1 else "not a team (0, 1 or -1)"
        if kind == _BOOL:
            return None if isinstance(v, bool) else "not true or false"
        if kind == _CARD:
            return None if self.card_ok(v) else f"not a card of variant {self.variant}"
        if kind == _CARDS:
            if not isinstance(v, list):
                return "not a list of cards"
            bad = next((c for c in v if not self.card_ok(c)), None)
            return None if bad is None else f"holds {bad!r}, not a card of variant {self.variant}"
        if kind == _COLOR:
            return None if isinstance(v, str) and v in COLORS else "not a color letter"
        if kind == _REASON:
            return None if isinstance(v, str) and v.upper() in DrawReason.__members__ \
                else "not a draw reason (docs/trace.md)"
        if kind == _DIR:
            return None if v in (1, -1) and not isinstance(v, bool) else "not 1 or -1"
        if kind == _SIDE:
            return None if v in ("light", "dark") else "not light or dark"
        if kind == _HANDS:
            if not isinstance(v, list) or len(v) != n:
                return f"not a list of {n} hands"
            for h in v:
                if (why := self.wrong(_CARDS, h)) is not None:
                    return why
            return None
        if kind in (_PER_SEAT, _TEAMS):
            if kind == _TEAMS and v is None:
                return None
            m = n if kind == _PER_SEAT else 2
            return None if isinstance(v, list) and len(v) == m and all(map(_is_int, v)) \
                else f"not a list of {m} integers"
        if kind == _SEATS:
            return None if isinstance(v, list) and all(self.wrong(_SEAT, s) is None for s in v) \
                else f"not a list of seats 0..{n - 1}"
        if kind == _DRAWS:
            ok = isinstance(v, list) and all(
                isinstance(d, list) and len(d) == 2 and self.wrong(_SEAT, d[0]) is None
                and self.card_ok(d[1]) for d in v)
            return None if ok else "not a list of [seat, card] pairs"
        raise AssertionError(kind)


def validate(events, lines=None) -> None:
    """Check a trace against docs/trace.md; TraceError naming the first thing wrong.

    Checked: it starts with one `game_start` whose variant and players agree with its
    rules, ends with one `game_end`, and every event between is of a known type with
    its fields present and of the right kind (seats within the game, card codes of the
    variant's deck, color letters, draw reasons).  Not checked: that the game it
    records follows the rules (replaying it through an engine does that).
    `lines`: the line number of each event in its file, for the messages.
    """
    events = list(events)
    if not events:
        raise TraceError("the trace is empty: no events (expected game_start ... game_end)")

    def where(i, e):
        at = f"line {lines[i]}, " if lines else ""
        return f"{at}event {i + 1} ({str(e.get('e'))[:40]!r})"

    game = None
    for i, e in enumerate(events):
        if not isinstance(e, dict) or "e" not in e:
            raise TraceError(f"event {i + 1} is not a trace event (no 'e' field)")
        t = e["e"]
        if not isinstance(t, str) or t not in EVENT_FIELDS:
            raise TraceError(f"{where(i, e)}: unknown event type (docs/trace.md lists them)")
        if (i == 0) != (t == "game_start"):
            raise TraceError(f"{where(i, e)}: " + ("a trace starts with game_start" if i == 0
                                                    else "a second game_start"))
        if t == "game_end" and i != len(events) - 1:
            raise TraceError(f"{where(i + 1, events[i + 1])}: an event after game_end")
        required, optional = EVENT_FIELDS[t]
        for key in required:
            if key not in e:
                raise TraceError(f"{where(i, e)}: no field {key!r}")
        if t == "game_start":
            for key, kind in required.items():
                if (why := _wrong_plain(kind, e[key])) is not None:
                    raise TraceError(f"{where(i, e)}: {key} {_short(e[key])} is {why}")
            try:
                game = _Game(e)
            except TraceError as exc:
                raise TraceError(f"{where(i, e)}: {exc}") from None
            continue
        if t in _ONLY:
            trait, name = _ONLY[t]
            if not (game.sides == 2 if trait == "two-sided" else game.launcher):
                raise TraceError(f"{where(i, e)}: an event of {name}, not of variant "
                                 f"{game.variant}")
        for key, kind in {**required, **{k: v for k, v in optional.items() if k in e}}.items():
            if (why := game.wrong(kind, e[key])) is not None:
                raise TraceError(f"{where(i, e)}: {key} {_short(e[key])} is {why}")
    last = events[-1]
    if last["e"] != "game_end":
        raise TraceError(f"the trace stops at {where(len(events) - 1, last)} without "
                         f"game_end: truncated?")


def _short(v) -> str:
    text = json.dumps(v) if not isinstance(v, str) else repr(v)
    return text if len(text) <= 40 else text[:37] + "..."
