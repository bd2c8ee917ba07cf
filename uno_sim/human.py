"""Play at the table: one seat answered from the terminal, the others by built-in policies.

`play_human` runs one game on the reference engine (the same game, event for
event, as the C engine plays with the same seats), or on the C engine when an
opponent is a search player (pimc, ismcts: the reference engine has none), with a
user policy
(docs/policies.md) that, at each decision of the human's seat, prints what that
seat may see (docs/rules.md P1): what happened since its last decision (other
players' drawn cards hidden), its hand, the top card and active color, every
player's card count, and the legal choices numbered from 1; it reads the
choice's number from the input stream (a terminal, or a script: ``uno-sim play
--human 0 < moves.txt``).
"""

from __future__ import annotations

import sys

from .cards import COLORS, color_names
from .reference import Game
from .rng import Rng, key_from_seed
from .trace import describe
from .userpolicy import Action

HIDDEN = ("draw", "draw_until", "press", "put_down")  # cards only their holder sees


class InputClosed(Exception):
    """The input stream ended (or said quit) before the game did."""


def _plural(n: int, what: str = "card") -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


class HumanSeat:
    """A user policy that asks the person at `seat`; `game` is set once the Game exists."""

    name = "human"

    def __init__(self, seat: int, variant: str, inp=None, out=None):
        self.seat = seat
        self.names = color_names(variant)
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        self.game = None  # reference.Game: its events so far are what happened
        self.seen = 0  # events already shown

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def color(self, letter) -> str:
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
        return describe(e, self.names)

    def news(self) -> list:
        events = self.game.events if self.game is not None else []
        lines = [line for e in events[self.seen:] if (line := self.public_line(e))]
        self.seen = len(events)
        return lines

    def choice_text(self, obs, a) -> str:
        d = obs.decision
        if isinstance(a, Action):
            if a.kind == "draw":
                return f"take the {obs.pending} cards" if d == "stack" else "draw"
            verb = {"discard": "put down", "stack": "answer with"}.get(d, "play")
            return f"{verb} {a.card}" + (" (a bluff: you hold the active color)" if a.bluff else "")
        if isinstance(a, bool):
            yes, no = {
                "challenge": (f"challenge P{obs.offender}'s Wild Draw", "accept the cards"),
                "call_uno": ("say UNO", "do not say UNO"),
                "catch": (f"catch P{obs.forgetter} (forgot UNO)", "let it go"),
                "play_drawn": (f"play the drawn {obs.drawn}", f"keep {obs.drawn}"),
                "jump_in": (f"jump in with {obs.card}", "do not jump in"),
            }.get(d, ("yes", "no"))
            return yes if a else no
        if isinstance(a, str):
            return self.color(a)
        return f"P{a} ({_plural(obs.hand_sizes[a])})"

    QUESTIONS = {
        "play": "Your turn", "replacement": "Your challenge failed: play a legal card instead",
        "color": "Name a color", "challenge": "A Wild Draw was played on you",
        "call_uno": "You are playing your second-to-last card",
        "catch": "Someone forgot to say UNO", "play_drawn": "You drew a playable card",
        "target": "Choose whom it aims at", "stack": "Cards are coming your way",
        "jump_in": "You hold the card just played", "discard": "Put cards down",
    }

    def __call__(self, obs):
        for line in self.news():
            self.say(line)
        self.say("")
        self.say(f"== P{self.seat}: {self.QUESTIONS.get(obs.decision, obs.decision)}")
        side = f" ({obs.side} side)" if obs.side else ""
        self.say(f"top card {obs.top}, active color {self.color(obs.color)}{side}; "
                 f"draw pile {obs.draw_pile}")
        counts = ", ".join(f"P{s}: {n}" + ("" if obs.active[s] else " (out)")
                           for s, n in enumerate(obs.hand_sizes) if s != self.seat)
        self.say(f"cards held: {counts}; scores {list(obs.scores)}")
        if obs.other_faces is not None:  # F6: the other faces of their hands face you
            for s, faces in enumerate(obs.other_faces):
                if faces is not None:
                    self.say(f"P{s}'s hand shows you: {' '.join(faces)}")
        self.say(f"your hand: {' '.join(obs.hand)}")
        if obs.to_discard:
            self.say(f"cards still to put down: {obs.to_discard}")
        for i, a in enumerate(obs.actions, 1):
            self.say(f"  {i}) {self.choice_text(obs, a)}")
        n = len(obs.actions)
        while True:
            print(f"choice [1-{n}]: ", end="", file=self.out, flush=True)
            line = self.inp.readline()
            if not line or line.strip().lower() in ("q", "quit"):
                raise InputClosed("the input ended before the game did")
            text = line.strip()
            if not self.inp.isatty():  # a scripted game: show the answer in the transcript
                self.say(text)
            if text.isdigit() and 1 <= int(text) <= n:
                return obs.actions[int(text) - 1]
            self.say(f"invalid choice {text!r}: enter a number from 1 to {n} (q quits)")


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


def play_human(rules, policies, seat: int, seed: int = 0, game: int = 0, inp=None, out=None):
    """Play game `game` of run `seed` with `seat` asked through `inp` / `out`.

    `policies`: one built-in or search spec per seat (the human's entry is replaced).
    Returns the engine's GameResult (the reference engine's, or the C engine's when an
    opponent is a search player), with the trace in ``events``.
    """
    from .policies import parse_policy

    human = HumanSeat(seat, rules.variant, inp, out)
    seats = list(policies)
    seats[seat] = human
    human.say(f"UNO ({rules.variant}, {rules.players} players, to {rules.target} points): "
              f"you are P{seat}; the others play {', '.join(str(p) for i, p in enumerate(policies) if i != seat)}")
    if any(getattr(parse_policy(p), "is_search", False)
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
