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

    tmp = f"{path_or_file}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        write_jsonl(events, f)
    os.replace(tmp, path_or_file)


def read_jsonl(path_or_file) -> list[dict]:
    """The events of a JSON Lines trace (a path or an open file); ValueError names a bad line."""
    if hasattr(path_or_file, "read"):
        lines = path_or_file.read().splitlines()
    else:
        with open(path_or_file, encoding="utf-8") as f:
            lines = f.read().splitlines()
    events = []
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
    return events


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
