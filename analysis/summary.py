"""The report's first section: the answers, one screenful, from the studies' own results.

Three questions per variant and player count, each answered with 95% intervals and a link to
the section that holds the details:

- bluff: is bluffing a restricted card (a Wild Draw Four) worth it, and when;
- challenge: when should one challenge;
- balance: how balanced is the game (position from the dealer, game length).

Every number is read from the `StudyResult`s of the report (`Results`), never recomputed, so
the summary and the sections below it cannot disagree.  A later answer reads what it needs
there too: `results.get("challenge", variant, players).data["game"]` is the solved
bluff/challenge game (`bluffgame.FamilyGame`) of that variant and player count.

Later studies add their answers through `LATER_ANSWERS` (see there): a function of the
results (and of optional extra results) that returns an `Answer`, or None when its study did
not run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import polars as pl

from .common import fmt_ci
from .doc import Section, slug


@dataclass
class Answer:
    """One question of the summary: a bold question, a sentence on how to read the answer,
    and a table (one row per variant and player count; a `details` column of Markdown links
    to the sections)."""

    question: str
    text: str
    table: pl.DataFrame | None = None
    notes: list = field(default_factory=list)


class Results:
    """The report's study results, by (study, variant, players); players is None for a study
    over every player count at once (balance)."""

    def __init__(self):
        self._by = {}
        self.no_bluff: list[str] = []  # variants with no restricted card to bluff
        self.players: tuple = (2, 4)  # the player counts the summary's balance rows show

    def add(self, study: str, variant: str, players, result) -> None:
        self._by[(study, variant, players)] = result

    def get(self, study: str, variant: str, players=None):
        return self._by.get((study, variant, players))

    def keys(self, study: str) -> list[tuple]:
        """(variant, players) of every result of `study`, in the order they were added."""
        return [(v, k) for (s, v, k) in self._by if s == study]


def link(title: str, label: str) -> str:
    return f"[{label}](#{slug(title)})"


def _ok(*xs) -> bool:
    return all(x is not None and isinstance(x, (int, float)) and math.isfinite(x) for x in xs)


def _ci(row: dict, col: str, digits: int = 4, signed: bool = True) -> str:
    m, lo, hi = row.get(col), row.get(f"{col}_low"), row.get(f"{col}_high")
    return fmt_ci(m, lo, hi, digits, signed) if _ok(m, lo, hi) else "-"


def _row_of(frame, col: str, value) -> dict | None:
    if frame is None or frame.is_empty() or col not in frame.columns:
        return None
    sub = frame.filter(pl.col(col) == value)
    return sub.row(0, named=True) if sub.height else None


def _pays_when(by_next: pl.DataFrame | None, against: str) -> str:
    """The next player's hand sizes where a bluff's interval lies above zero."""
    if by_next is None or by_next.is_empty() or "against" not in by_next.columns:
        return "too few decisions"
    sub = by_next.filter(pl.col("against") == against)
    sizes = [r["other_size"] for r in sub.iter_rows(named=True)
             if _ok(r["d_game_win_low"]) and r["d_game_win_low"] > 0]
    if not sizes:
        return "no hand size"
    return "1 card" if sizes == ["1"] else ", ".join(sizes) + " cards"


def bluff_answer(results: Results) -> Answer | None:
    rows = []
    for v, k in results.keys("bluff"):
        r = results.get("bluff", v, k)
        d = r.data
        overall, game = d["values_overall"], d["game"]
        never = _row_of(overall, "against", "never") or {}
        eq = max(game.do.support("col").items(), key=lambda kv: kv[1])[0].label
        at_eq = _row_of(overall, "against", eq) or {}
        worth = game.boot.derived.get("worth_bluffing")
        rows.append({
            "variant": v, "players": k,
            "bluff vs a table that never challenges": _ci(never, "d_game_win"),
            "bluff vs the equilibrium challenger": (f"{_ci(at_eq, 'd_game_win')} ({eq})"
                                                   if at_eq else "-"),
            "pays when the next player holds": _pays_when(d.get("values_by_next"), eq),
            "option to bluff at equilibrium": fmt_ci(*worth) if worth and _ok(*worth) else "-",
            "details": link(r.sections[0].title, "bluff")})
    notes = [f"No restricted card, nothing to bluff or challenge: "
             f"{', '.join(results.no_bluff)}."] if results.no_bluff else []
    if not rows:
        return None
    return Answer(
        "Is bluffing a Wild Draw Four worth it, and when?",
        "Bluffing now instead of playing the honest card, in seat 0's game-win share: against "
        "a table that never challenges and against the challengers' main equilibrium rule, "
        "the next player's hand sizes where the latter pays (interval above zero), and what "
        "the option to bluff is worth at equilibrium.",
        pl.DataFrame(rows), notes)


def challenge_answer(results: Results) -> Answer | None:
    rows = []
    for v, k in results.keys("challenge"):
        r = results.get("challenge", v, k)
        d = r.data
        be = d["break_even"]
        o = be.row(0, named=True) if be is not None and not be.is_empty() else {}
        game = d["game"]
        worth = game.boot.derived.get("worth_challenging")
        val = game.boot.value
        if not o:
            p = "too few decisions"
        elif not _ok(o.get("p_star")):
            p = "never (V1 <= V0)"
        else:
            p = _ci(o, "p_star", signed=False)
        rows.append({
            "variant": v, "players": k,
            "challenge when P(bluff) exceeds": p,
            "challenging a bluff": _ci(o, "v1") if o else "-",
            "challenging a legal card": _ci(o, "v0") if o else "-",
            "option to challenge at equilibrium": fmt_ci(*worth) if worth and _ok(*worth)
            else "-",
            "equilibrium value (fair 1/K)": (f"{fmt_ci(*val, signed=False)} "
                                             f"({game.fair:.4f})") if _ok(*val) else "-",
            "details": link(r.sections[0].title, "challenge")})
    if not rows:
        return None
    return Answer(
        "When should one challenge?",
        "When the posterior probability of a bluff exceeds the break-even p*; the challenger's "
        "game-win share gained by challenging a bluff and a legal card; what the option to "
        "challenge is worth to the table at equilibrium; seat 0's equilibrium share.",
        pl.DataFrame(rows))


def balance_answer(results: Results, players=(2, 4)) -> Answer | None:
    rows = []
    for v, _ in results.keys("balance"):
        r = results.get("balance", v)
        d = r.data
        pos, play, ln = d["positions"], d["play_positions"], d["length"]
        ks = sorted(set(ln["players"].to_list()))
        shown = [k for k in ks if k in players] or [ks[0], ks[-1]]
        for k in dict.fromkeys(shown):
            p1 = pos.filter((pl.col("players") == k) & (pl.col("position") == 1))
            f1 = play.filter((pl.col("players") == k) & (pl.col("position") == 1))
            lr = _row_of(ln, "players", k) or {}

            def edge(t):
                if not t.height:
                    return "-"
                x = t.row(0, named=True)
                fair = 1 / k
                return fmt_ci(x["share"] - fair, x["low"] - fair, x["high"] - fair, 4)

            rows.append({"variant": v, "players": k,
                         "dealer's left (position 1): round share - 1/K": edge(p1),
                         "first to play: round share - 1/K": edge(f1),
                         "rounds per game": _ci(lr, "rounds_mean", 2, signed=False),
                         "details": link(r.sections[0].title, "balance")})
    if not rows:
        return None
    return Answer(
        "How balanced is the game?",
        "A round's edge over the fair share 1/K for the dealer's left and for the first to "
        "play (over a whole game the deal moves round, so every seat's share is 1/K: a check "
        "in each variant's section); mean rounds per game.",
        pl.DataFrame(rows))


# Later answers go here.  Each entry is a function (results, extra) -> Answer | None, where
# `extra` is a dict of results the report's own studies do not hold (None when absent).
# The studies that have one register it when they are imported ("do the answers hold
# for strong play?": uno_sim.analysis.strong; "how exploitable is the equilibrium?":
# uno_sim.analysis.exploit); this room never imports them.  Register with
# `LATER_ANSWERS.append(fn)`, or pass the functions to `answers(..., later=[fn])`.
LATER_ANSWERS: list[Callable[[Results, dict], Answer | None]] = []


def answers(results: Results, extra: dict | None = None, later=None) -> list[Answer]:
    """The summary's answers: bluff, challenge, balance, then every later answer (`later`,
    default `LATER_ANSWERS`) that its results support."""
    out = [bluff_answer(results), challenge_answer(results),
           balance_answer(results, results.players)]
    for fn in (LATER_ANSWERS if later is None else later):
        out.append(fn(results, extra or {}))
    return [a for a in out if a is not None]


def section(results: Results, intro: str, extra: dict | None = None, later=None,
            title: str = "Summary: the answers") -> Section:
    """The summary as a report section: `intro`, then per answer its question and reading
    (one paragraph) and its table."""
    sec = Section(title)
    sec.p(intro)
    for a in answers(results, extra, later):
        sec.p(f"**{a.question}** {a.text}" + "".join(" " + n for n in a.notes))
        if a.table is not None and a.table.height:
            sec.table("", a.table)
    return sec

