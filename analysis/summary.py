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
    """One question of the summary: a bold question, the verdict (a sentence a game
    designer would quote, from the table's numbers), a sentence on how to read the table,
    and the table (one row per variant and player count; a `details` column of Markdown
    links to the sections)."""

    question: str
    text: str
    table: pl.DataFrame | None = None
    notes: list = field(default_factory=list)
    verdict: str = ""


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


def _paying_sizes(by_next: pl.DataFrame | None, against: str) -> list[str] | None:
    """The next player's hand sizes where a bluff's interval lies above zero (None: too
    few decisions to say)."""
    if by_next is None or by_next.is_empty() or "against" not in by_next.columns:
        return None
    sub = by_next.filter(pl.col("against") == against)
    return [r["other_size"] for r in sub.iter_rows(named=True)
            if _ok(r["d_game_win_low"]) and r["d_game_win_low"] > 0]


def _pays_when(by_next: pl.DataFrame | None, against: str) -> str:
    """The next player's hand sizes where a bluff's interval lies above zero, in words."""
    sizes = _paying_sizes(by_next, against)
    if sizes is None:
        return "too few decisions"
    if not sizes:
        return "no hand size"
    return "1 card" if sizes == ["1"] else ", ".join(sizes) + " cards"


# --- verdicts: the tables' numbers in a sentence ---------------------------------------
# Each takes plain numbers (estimate, low, high per variant and player count), so that the
# wording is tested on its own; a share difference is said in percentage points of
# game-win share.

def _pp(x: float) -> str:
    """A share difference in percentage points, without its sign: -0.0308 -> "3.1"."""
    return f"{abs(x) * 100:.1f}"


def _span(xs) -> str:
    """The range of |x| in percentage points: "1.4 to 4.8" (one number when they agree)."""
    a, b = _pp(min(xs, key=abs)), _pp(max(xs, key=abs))
    return a if a == b else f"{a} to {b}"


def _where(pairs) -> str:
    """"classic at 2 players and flip at 4 players"."""
    items = [f"{v} at {k} players" for v, k in pairs]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _of(n: int, total: int) -> str:
    return "every variant and player count" if n == total else f"{n} of {total} setups"


def _cards(sizes) -> str:
    """["1"] -> "1 card"; ["1", "2"] -> "1 or 2 cards"."""
    if sizes == ["1"]:
        return "1 card"
    return (sizes[0] if len(sizes) == 1 else ", ".join(sizes[:-1]) + " or " + sizes[-1]) \
        + " cards"


def bluff_verdict(rows: list[dict]) -> str:
    """rows: variant, players, `eq` (the bluff's value against the equilibrium challenger:
    estimate, low, high), `pays` (the next player's hand sizes where it pays)."""
    measured = [r for r in rows if _ok(*r["eq"])]
    if not measured:
        return ("Too few bluff decisions to say whether a bluff pays (more games would)."
                if rows else "")
    pays = [r for r in measured if r["pays"]]
    loses = [r for r in measured if r["eq"][2] < 0]
    gains = [r for r in measured if r["eq"][1] > 0]
    if not (pays or loses or gains):
        return ("No setup shows a bluff of a Wild Draw Four clearly paying or costing against "
                "a table that challenges by its equilibrium rule (every interval holds zero).")
    if pays:
        text = "Bluff a Wild Draw Four only when the next player holds " + "; ".join(
            f"{_cards(r['pays'])} ({r['variant']} at {r['players']} players)" for r in pays)
        text += "; taken over every point where one could bluff,"
    else:
        text = "Do not bluff a Wild Draw Four:" if loses and not gains else "Overall,"
    if loses:
        text += (f" a bluff costs {_span([r['eq'][0] for r in loses])} percentage points of "
                 f"game-win share against a table that challenges by its equilibrium rule "
                 f"(interval below zero in {_of(len(loses), len(measured))})")
    if gains:
        text += (" and" if loses else " a bluff") + (
            f" gains in {_where((r['variant'], r['players']) for r in gains)}")
    return text + "."


def challenge_verdict(rows: list[dict]) -> str:
    """rows: `p_star` (break-even posterior), `v1` (challenging a bluff), `v0` (challenging
    a legal card): each estimate, low, high."""
    ps = [r["p_star"][0] for r in rows if _ok(*r["p_star"])]
    v1 = [r["v1"][0] for r in rows if _ok(*r["v1"])]
    v0 = [r["v0"][0] for r in rows if _ok(*r["v0"])]
    never = sum(1 for r in rows if not _ok(*r["p_star"]) and _ok(*r["v1"], *r["v0"]))
    if not ps:
        if never:
            return (f"Challenging a Wild Draw Four does not pay in {_of(never, len(rows))}: "
                    f"catching a bluff gains no more than challenging a legal card costs.")
        return ("Too few challenge decisions to say when a challenge pays (more games would)."
                if rows else "")
    lo, hi = min(ps), max(ps)
    p = f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f} to {hi:.2f}"
    text = (f"Challenge a Wild Draw Four when the chance that it is a bluff is above about "
            f"{p} (the break-even by variant and player count)")
    if v1 and v0:
        text += (f": a bluff caught gains the challenger {_span(v1)} percentage points of "
                 f"game-win share, a legal card challenged costs {_span(v0)}")
    if never:
        text += f"; in {never} setup(s) challenging never pays"
    return text + "."


def balance_verdict(rows: list[dict]) -> str:
    """rows: variant, players, `first` (the first player's round share less 1/K: estimate,
    low, high)."""
    measured = [r for r in rows if _ok(*r["first"])]
    if not measured:
        return "Too few rounds to say whether a position is favoured." if rows else ""
    ahead = [r for r in measured if r["first"][1] > 0]
    edges = [r["first"][0] for r in ahead]
    if len(ahead) == len(measured):
        text = (f"No variant is position-fair within a round: the first to play wins "
                f"{_span(edges)} percentage points more of the rounds than the fair share 1/K "
                f"(interval above zero in {_of(len(ahead), len(measured))})")
    elif ahead:
        text = (f"The first to play wins more rounds than the fair share 1/K in "
                f"{_where((r['variant'], r['players']) for r in ahead)} (by {_span(edges)} "
                f"percentage points); elsewhere the interval holds the fair share")
    else:
        text = "No setup shows the first to play winning clearly more rounds than 1/K"
    return text + "; over a whole game the deal moves round, so every seat's share is fair."


def exploit_verdict(rows: list[dict]) -> str:
    """rows: `row`, `col` (the bluffer's and the challengers' best reply to the reported
    equilibrium: gain, low, high on fresh games) and `row_after`, `col_after` (after the
    double-oracle rounds); None where no reply was measured."""
    def part(key):
        got = [r[key] for r in rows if r.get(key) is not None and _ok(*r[key])]
        if not got:
            return None
        top = max(g[0] for g in got)
        clear = sum(g[1] > 0 for g in got)
        return (f"{'+' if top > 0 else '-'}{_pp(top)}", clear, len(got))

    first = [part("row"), part("col")]
    after = [part("row_after"), part("col_after")]
    if None in first:
        return ""
    text = (f"Against the equilibrium as reported, the best replies found beyond the rule "
            f"families gain at most {first[0][0]} percentage points of win share for the "
            f"bluffer and {first[1][0]} for the challengers on fresh games (clearly above "
            f"zero in {first[0][1] + first[1][1]} of {first[0][2] + first[1][2]} replies)")
    if None not in after:
        text += (f"; after the double-oracle rounds, at most {after[0][0]} and "
                 f"{after[1][0]} (clearly above zero in {after[0][1] + after[1][1]} of "
                 f"{after[0][2] + after[1][2]})")
    return text + "."


def bluff_answer(results: Results) -> Answer | None:
    rows, facts = [], []
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
        facts.append({"variant": v, "players": k,
                      "eq": tuple(at_eq.get(c) for c in ("d_game_win", "d_game_win_low",
                                                          "d_game_win_high")),
                      "pays": _paying_sizes(d.get("values_by_next"), eq) or []})
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
        pl.DataFrame(rows), notes, verdict=bluff_verdict(facts))


def challenge_answer(results: Results) -> Answer | None:
    rows, facts = [], []
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
        facts.append({c: tuple(o.get(f"{c}{x}") for x in ("", "_low", "_high"))
                      for c in ("p_star", "v1", "v0")})
    if not rows:
        return None
    return Answer(
        "When should one challenge?",
        "When the posterior probability of a bluff exceeds the break-even p*; the challenger's "
        "game-win share gained by challenging a bluff and a legal card; what the option to "
        "challenge is worth to the table at equilibrium; seat 0's equilibrium share.",
        pl.DataFrame(rows), verdict=challenge_verdict(facts))


def balance_answer(results: Results, players=(2, 4)) -> Answer | None:
    rows, facts = [], []
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

            if f1.height:
                x = f1.row(0, named=True)
                facts.append({"variant": v, "players": k, "first": tuple(
                    x[c] - 1 / k for c in ("share", "low", "high"))})
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
        pl.DataFrame(rows), verdict=balance_verdict(facts))


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
    """The summary as a report section: `intro`, then per answer its question and verdict
    (one paragraph), how to read its table (one paragraph) and the table."""
    sec = Section(title)
    sec.p(intro)
    for a in answers(results, extra, later):
        if a.verdict:
            sec.p(f"**{a.question}** {a.verdict}")
            sec.p(a.text + "".join(" " + n for n in a.notes))
        else:
            sec.p(f"**{a.question}** {a.text}" + "".join(" " + n for n in a.notes))
        if a.table is not None and a.table.height:
            sec.table("", a.table)
    return sec

