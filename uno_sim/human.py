"""Play at the table: one seat answered from the terminal, the others by built-in policies.

`play_human` runs one game on the reference engine (the same game, event for
event, as the C engine plays with the same seats), or on the C engine when an
opponent is a search player (pimc, ismcts) or the network player (net: the reference
engine has none), with a
user policy
(docs/policies.md) that, at each decision of the human's seat, prints what that
seat may see (docs/rules.md P1): what happened since its last decision (other
players' drawn cards hidden), its hand, the top card and active color, every
player's card count, and the legal choices numbered from 1; it reads the
choice's number from the input stream (a terminal, or a script: ``uno-sim play
--human 0 < moves.txt``).
"""

from __future__ import annotations

import os
import sys

from .cards import COLOR_NAMES, COLORS, color_names, deck_for
from .reference import Game
from .rng import Rng, key_from_seed
from .trace import describe
from .userpolicy import Action

MAX_LINE = 100  # characters of an answer looked at; a longer line is no choice
HIDDEN = ("draw", "draw_until", "press", "put_down")  # cards only their holder sees

# What follows a color letter in a card code, and the wilds' codes, as names (cards.py)
SYMBOLS = {"S": "Skip", "R": "Reverse", "+2": "Draw Two", "+1": "Draw One", "+5": "Draw Five",
           "SE": "Skip Everyone", "F": "Flip", "H2": "Hit 2", "DA": "Discard All"}
WILDS = {"W": "Wild", "W+4": "Wild Draw Four", "W+2": "Wild Draw Two", "DW": "Wild",
         "DW+C": "Wild Draw Color", "WH": "Extreme Hit", "WBM": "Badtz-Maru Wild",
         "WX": "Hand Exchange Wild"}
# ANSI foreground of each color by name (Hello Kitty's color 0 is pink: H1); wilds are bold
ANSI = {"red": "31", "yellow": "33", "green": "32", "blue": "34", "pink": "95", "teal": "36",
        "orange": "38;5;208", "purple": "35"}


def card_name(code: str, names=COLOR_NAMES) -> str:
    """A card code as words: ``R5`` "Red 5", ``W+4`` "Wild Draw Four", ``YS`` "Yellow Skip".

    `names`: the variant's color names (`cards.color_names`); a code it does not know
    (a house kind of a --deck file) is given back as it is.
    """
    if code in WILDS:
        return WILDS[code]
    if code.startswith("W:"):
        return f"Wild ({code[2:].replace('_', ' ')})"
    letter, rest = code[:1], code[1:]
    if letter in COLORS and (rest in SYMBOLS or rest.isdigit()):
        return f"{names[COLORS.index(letter)].capitalize()} {SYMBOLS.get(rest, rest)}"
    return code


def legend(codes, names=COLOR_NAMES) -> list[str]:
    """Lines that explain the card codes of a deck (the play-by-play writes codes)."""
    letters = sorted({c[0] for c in codes if c[:1] in COLORS and c not in WILDS},
                     key=COLORS.index)
    symbols = sorted({c[1:] for c in codes if c[:1] in COLORS and c[1:] in SYMBOLS})
    wilds = sorted({c for c in codes if c in WILDS or c.startswith("W:")})
    colors = ", ".join(f"{x} {names[COLORS.index(x)]}" for x in letters)
    return [f"card codes: a color letter ({colors}) then a digit or a symbol",
            "symbols: " + ", ".join(f"{x} {SYMBOLS[x]}" for x in symbols) + "; wilds: "
            + ", ".join(f"{w} {card_name(w, names)}" for w in wilds)]


class InputClosed(Exception):
    """The input stream ended before the game did."""


class Quit(Exception):
    """The player typed q (or quit): the game ends there, by choice."""


def _plural(n: int, what: str = "card") -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


class HumanSeat:
    """A user policy that asks the person at `seat`; `game` is set once the Game exists."""

    name = "human"

    def __init__(self, seat: int, variant: str, inp=None, out=None, ansi=None):
        self.seat = seat
        self.names = color_names(variant)
        self.inp = inp if inp is not None else sys.stdin  # None: Python started without one
        self.out = out or sys.stdout
        # ANSI colors on a terminal (not in a file or pipe; NO_COLOR turns them off)
        self.ansi = (ansi if ansi is not None
                     else self.out.isatty() and not os.environ.get("NO_COLOR"))
        self.game = None  # reference.Game: its events so far are what happened
        self.seen = 0  # events already shown

    def say(self, text: str = "") -> None:
        """Print a line to the player."""
        print(text, file=self.out)

    def paint(self, text: str, letter: str | None) -> str:
        """`text` in the ANSI color of color `letter` (bold for None) on a terminal."""
        return f"\033[{ANSI.get(self.color(letter), '1')}m{text}\033[0m" if self.ansi else text

    def card(self, code: str) -> str:
        """A card's name, in its color on a terminal."""
        wild = code in WILDS or code.startswith("W:") or code[:1] not in COLORS
        return self.paint(card_name(code, self.names), None if wild else code[:1])

    def cards(self, codes) -> str:
        """Cards as names, comma-separated (none for an empty list)."""
        return ", ".join(self.card(c) for c in codes) if codes else "none"

    def color(self, letter) -> str:
        """The name of color `letter` in this variant (none for None)."""
        return self.names[COLORS.index(letter)] if letter in COLORS else "none"

    def public_line(self, e: dict) -> str | None:
        """An event as the human's seat sees it (others' drawn cards hidden, P1)."""
        t, me = e["e"], self.seat
        if t in ("game_start", "game_end"):
            return None
        if t == "round_start":
            return f"-- round {e['round']}, P{e['dealer']} deals; starter {e['starter']}"
        if t in HIDDEN and e.get("p") != me and e.get("cards"):
            n = len(e["cards"])
            if t == "press":
                return f"P{e.get('by', e['p'])} presses the launcher: {_plural(n)} at P{e['p']}"
            if t == "put_down":
                return f"P{e['p']} puts down {_plural(n)} (under the top card)"
            return f"P{e['p']} draws {_plural(n)}"
        if t == "play" and e["p"] != me and "legal" in e:  # a bluff shows only if challenged
            e = {k: v for k, v in e.items() if k != "legal"}
        if t == "challenge" and e["p"] != me:
            verdict = "a bluff" if e["bluff"] else "legal"
            return f"P{e['p']} challenges P{e['target']}: the play was {verdict}"
        if t in ("shuffle_hands",):
            return f"P{e['p']} shuffles all hands and deals them out again"
        if t == "draw" and e.get("p") == me and e.get("reason") == "cannot_play":
            # drawn because nothing could be played; the card drawn may well be playable
            return f"P{me} draws {' '.join(e['cards'])} (had nothing to play)"
        return describe(e, self.names)

    def news(self) -> list:
        """The lines of what happened since the last call, as this seat sees it."""
        events = self.game.events if self.game is not None else []
        lines = [line for e in events[self.seen:] if (line := self.public_line(e))]
        self.seen = len(events)
        return lines

    def choice_text(self, obs, a) -> str:
        """How choice `a` of decision `obs` reads in the menu."""
        d = obs.decision
        if isinstance(a, Action):
            if a.kind == "draw":
                return f"take the {obs.pending} cards" if d == "stack" else "draw"
            verb = {"discard": "put down", "stack": "answer with"}.get(d, "play")
            return (f"{verb} {self.card(a.card)}"
                    + (" (a bluff: you hold the active color)" if a.bluff else ""))
        if isinstance(a, bool):
            yes, no = {
                "challenge": (f"challenge P{obs.offender}'s {self.card(obs.top)}",
                              "accept the cards"),
                "call_uno": ("say UNO", "do not say UNO"),
                "catch": (f"catch P{obs.forgetter} (forgot UNO)", "let it go"),
                "play_drawn": (f"play the drawn {self.card(obs.drawn)}" if obs.drawn else "play it",
                               f"keep {self.card(obs.drawn)}" if obs.drawn else "keep it"),
                "jump_in": (f"jump in with {self.card(obs.card)}" if obs.card else "jump in",
                            "do not jump in"),
            }.get(d, ("yes", "no"))
            return yes if a else no
        if isinstance(a, str):
            return self.paint(self.color(a), a)
        return f"P{a} ({_plural(obs.hand_sizes[a])})"

    QUESTIONS = {
        "play": "Your turn", "replacement": "Your challenge failed: play a legal card instead",
        "color": "Name a color", "challenge": "A Wild Draw was played on you",
        "call_uno": "You are playing your second-to-last card",
        "catch": "Someone forgot to say UNO", "play_drawn": "You drew a playable card",
        "target": "Choose whom it aims at", "stack": "Cards are coming your way",
        "jump_in": "You hold the card just played", "discard": "Put cards down",
    }

    @staticmethod
    def distinct(actions) -> list:
        """The choices, each once: identical cards in hand are one choice (the first)."""
        seen, out = set(), []
        for a in actions:
            key = (a.kind, a.card, a.bluff) if isinstance(a, Action) else (type(a), a)
            if key not in seen:
                seen.add(key)
                out.append(a)
        return out

    def __call__(self, obs):
        for line in self.news():
            self.say(line)
        self.say("")
        self.say(f"== P{self.seat}: {self.QUESTIONS.get(obs.decision, obs.decision)}")
        side = f" ({obs.side} side)" if obs.side else ""
        self.say(f"top card {self.card(obs.top)} ({obs.top}), active color "
                 f"{self.paint(self.color(obs.color), obs.color)}{side}; "
                 f"draw pile {obs.draw_pile}")
        if obs.decision == "challenge" and obs.previous_color is not None:
            self.say(f"P{obs.offender} played {self.card(obs.top)} when the active color was "
                     f"{self.paint(self.color(obs.previous_color), obs.previous_color)}: "
                     f"a challenge wins if P{obs.offender} held a "
                     f"{self.color(obs.previous_color)} card")
        counts = ", ".join(f"P{s}: {n}" + ("" if obs.active[s] else " (out)")
                           for s, n in enumerate(obs.hand_sizes) if s != self.seat)
        self.say(f"cards held: {counts}; scores {list(obs.scores)}")
        if obs.other_faces is not None:  # F6: the other faces of their hands face you
            for s, faces in enumerate(obs.other_faces):
                if faces is not None:
                    self.say(f"P{s}'s hand shows you: {self.cards(faces)}")
        self.say(f"your hand: {self.cards(obs.hand)}")
        if obs.to_discard:
            self.say(f"cards still to put down: {obs.to_discard}")
        choices = self.distinct(obs.actions)
        if len(choices) == 1:  # nothing to decide: say what happens and go on
            self.say(f"  your only choice: {self.choice_text(obs, choices[0])}")
            return choices[0]
        for i, a in enumerate(choices, 1):
            self.say(f"  {i}) {self.choice_text(obs, a)}")
        n = len(choices)
        while True:
            print(f"choice [1-{n}]: ", end="", file=self.out, flush=True)
            line = self.read_line()
            if not line:
                raise InputClosed("the input ended before the game did")
            text = line.strip()
            if text.lower() in ("q", "quit"):
                raise Quit()
            if not self.interactive():  # a scripted game: show the answer in the transcript
                self.say(text[:MAX_LINE])
            # ASCII digits only: "²" and "٣" pass str.isdigit but are no choice number
            if len(text) <= MAX_LINE and text.isascii() and text.isdigit() \
                    and 1 <= int(text) <= n:
                return choices[int(text) - 1]
            shown = repr(text) if len(text) <= MAX_LINE else \
                f"{text[:20]!r}... (a line of more than {MAX_LINE} characters)"
            self.say(f"invalid choice {shown}: enter a number from 1 to {n} (q quits)")

    def read_line(self) -> str:
        """One line of input, at most MAX_LINE + 1 characters of it kept (the rest of a
        longer line is read and dropped, a bounded piece at a time); '' at the end of the
        input, when the stream is closed, or when there is none (stdin closed at start)."""
        if self.inp is None:
            return ""
        try:
            line = self.inp.readline(MAX_LINE + 1)
            if len(line) > MAX_LINE and not line.endswith("\n"):  # overlong: drop the rest
                while (rest := self.inp.readline(2**16)) and not rest.endswith("\n"):
                    pass
            return line
        except UnicodeDecodeError:
            return "(bytes that are not text)\n"
        except (ValueError, OSError):  # a closed stream ("I/O operation on closed file")
            return ""

    def interactive(self) -> bool:
        """Whether the input is a terminal (a person typing), not a script."""
        try:
            return self.inp is not None and self.inp.isatty()
        except (ValueError, OSError):
            return False


class _LiveC:
    """The C engine's game in play, as HumanSeat reads it: its events so far."""

    def __init__(self, eng, start: dict):
        self.eng, self.start = eng, start

    @property
    def events(self) -> list:
        return [self.start] + self.eng.live_events()


def _play_c(rules, seats, human, seed: int, game: int):
    """The game on the C engine (a search opponent), the human a user policy."""
    from . import engine

    rules, specs, eng = engine._setup(rules, seats)
    start = engine._game_start(rules, specs, seed, game)
    human.game = _LiveC(eng, start)
    r, events = eng.play_game(key_from_seed(seed), int(game), True)
    res = engine._result(r, None)
    res.events = [start] + events + [{
        "e": "game_end", "winner": res.winner, "winners": res.winners, "team": res.team,
        "scores": res.scores, "team_scores": res.team_scores, "rounds": res.rounds}]
    human.game = res
    return res


def play_human(rules, policies, seat: int, seed: int = 0, game: int = 0, inp=None, out=None,
               ansi=None):
    """Play game `game` of run `seed` with `seat` asked through `inp` / `out`.

    `policies`: one built-in or search spec per seat (the human's entry is replaced).
    `ansi`: cards in color (default: when `out` is a terminal and NO_COLOR is unset).
    Returns the engine's GameResult (the reference engine's, or the C engine's when an
    opponent is a search player), with the trace in ``events``; raises `Quit` when the
    player types q, `InputClosed` when the input ends first.
    """
    from .policies import parse_policy

    human = HumanSeat(seat, rules.variant, inp, out, ansi)
    seats = list(policies)
    seats[seat] = human
    others = ", ".join(str(p) for i, p in enumerate(policies) if i != seat)
    human.say(f"UNO ({rules.variant}, {rules.players} players, to {rules.target} points): "
              f"you are P{seat}; the others play {others}")
    again = f" --game {game}" if game else ""
    human.say(f"seed {seed}: `--seed {seed}{again}` deals this game again; q quits")
    for line in legend({k.code for k in deck_for(rules).kinds}, human.names):
        human.say(line)
    if any(getattr(parse_policy(p), "engine_only", False)
           for i, p in enumerate(policies) if i != seat):
        res = _play_c(rules, seats, human, seed, game)
    else:
        g = Game(rules, seats, Rng(key_from_seed(seed), game), trace=True)
        human.game = g
        res = g.play_game(seed=seed, game=game)
    for line in human.news():
        human.say(line)
    won = seat in res.winners
    human.say(describe(res.events[-1], human.names))
    human.say("You won!" if won else "You lost.")
    return res
