"""`uno-sim report`: run every study for each variant and write Markdown and HTML.

The report directory holds report.md and report.html (both reference the PNG figures
beside them), report.json (every table as a list of records, and each study's setup) and
the PNGs.  The report opens with the answers (`uno_sim.analysis.summary`), read from the
same results as the sections below it; each section states its setup once and the methods
are stated once, in their own section.  Every reading in it is generated from the measured
numbers.

Adding a study: run it in `build` (per variant and player count next to bluff and
challenge, or per variant next to balance), `results.add(name, variant, players, result)`
and extend `sections`; its line in the summary is a function registered in
`summary.LATER_ANSWERS`.
"""

from __future__ import annotations

import datetime
import html
import os
import time

from .common import parse_players, parse_variants, restricted_cards
from .doc import (Section, StudyResult, link_repeated_setups, render_html, render_markdown,
                  sections_json, slug, split_methods, write_json)
from . import summary

from uno_sim import __version__
from uno_sim.files import writing


# The compounding model's games per edge (balance.compound): 20,000, or ten per game of
# the report when --games is smaller than 2,000, so that a small report is quick
MODEL_GAMES = 20_000

# The deep exploitability measurement: the classic two-player equilibrium, solved and searched
# on DEEP_GAMES games (the report's games first, the same seed), ranked on as many selection
# games and measured on DEEP_FRESH times as many fresh ones, DEEP_ROUNDS double-oracle rounds
# at most: the size that brings both sides within exploit.TARGET (docs/studies.md "exploit")
DEEP = ("classic", 2)
DEEP_GAMES, DEEP_FRESH, DEEP_ROUNDS = 40_000, 2.5, 20


def build(variants="all", games: int = 2000, seed: int = 0, out: str = "reports/latest",
          players="2,4", balance_players="2-10", trace_games: int = 200, card_games: int = 1000,
          command: str | None = None, n_jobs: int = 1, log=None, n_boot: int = 300,
          value_games: int | None = None, progress: bool | None = None,
          exploit_games: int | None = None, exploit_fresh: int | None = None,
          exploit_rounds: int = 2, extra: dict | None = None,
          strong: dict | None = None, exploit_deep: int | None = None) -> dict:
    """Run the studies and write the report; returns {'md', 'html', 'json': paths, 'seconds'}.

    The bluff and challenge studies share one solved game per variant and
    player count (`games` per pair of rules) and run their counterfactual
    values over `value_games` games (default `games`).  `progress`: a bar over
    the steps (a study of a variant) on stderr or in a notebook (uno_sim.progress;
    None: when one of them is there).  The exploitability section of each variant and
    player count (`uno_sim.analysis.exploit`) searches on the first `exploit_games`
    games of the same game (default min(games, 1000); 0 leaves it out), measures on
    `exploit_fresh` fresh games (default twice that) and runs `exploit_rounds`
    double-oracle rounds at most; the classic two-player section (`DEEP`) instead
    measures on `exploit_deep` games (default min(DEEP_GAMES, 4 x games); 0: as the others):
    its family game solved on them (the report's games first), as many selection games,
    DEEP_FRESH times as many fresh ones, DEEP_ROUNDS rounds.  `extra`: results the report's
    own studies do not hold, for the summary's later answers (`summary.LATER_ANSWERS`).
    `strong`: {'deals', 'games', and optionally 'greedy_games', 'focal' (the strong
    player's spec), 'search' and 'search_games' (the search check)} of the strong-play
    sections (`uno_sim.analysis.strong`; None: left
    out).  The balance sections' compounding model plays min(MODEL_GAMES, 10 x games)
    model games per edge.
    """
    from uno_sim.progress import bar

    from . import balance, bluff, bluffgame, challenge, exploit

    names = parse_variants(variants)
    ks = parse_players(players, (2, 4))
    vg = value_games or games
    eg = min(games, 1000) if exploit_games is None else min(exploit_games, games)
    ef = exploit_fresh or 2 * eg
    deep = min(DEEP_GAMES, 4 * games) if exploit_deep is None else exploit_deep
    deep = deep if eg and DEEP[0] in names and DEEP[1] in ks else 0
    bks = parse_players(balance_players, range(2, 11))
    os.makedirs(out, exist_ok=True)
    t0, c0 = time.perf_counter(), _cpu_seconds()
    sections, setups = [], []
    steps = sum(1 + (len(ks) if restricted_cards(v) else 0) for v in names)
    pbar = bar(steps, "report", unit="step", enabled=progress)

    def say(msg):
        pbar.set_postfix_str(msg, refresh=True)
        if log:
            log(msg)

    results = summary.Results()
    results.players = tuple(ks)
    equilibria = {}  # (variant, players): the equilibrium the strong-play sections compare to
    for v in names:
        if not restricted_cards(v):
            results.no_bluff.append(v)
            sec = Section(f"Bluff and challenge: {v}")
            sec.p(f"The {v} deck has no restricted card (no Wild Draw Four or other card "
                  "that is legal only without the active color), so there is nothing to bluff "
                  "or to challenge: these two studies do not apply.")
            sections.append(sec)
        for k in ks if restricted_cards(v) else ():
            say(f"bluff/challenge game: {v}, {k} players")
            game = bluffgame.solve(v, k, games, seed, n_boot=n_boot, n_jobs=n_jobs)
            for mod in (bluff, challenge):
                r = mod.study(v, k, games, seed, out, game=game, value_games=vg, n_boot=n_boot,
                              n_jobs=n_jobs)
                results.add(r.name, v, k, r)
                sections += r.sections
                setups += r.to_json()["setups"]
            if eg:
                say(f"exploitability: {v}, {k} players")
                if deep and (v, k) == DEEP:
                    ex = exploit.solve(v, k, deep, seed, game=game if deep <= games else None,
                                       fresh_games=int(DEEP_FRESH * deep), rounds=DEEP_ROUNDS,
                                       value_games=min(deep, 2000), select_games=deep,
                                       n_boot=n_boot, n_jobs=n_jobs)
                else:
                    ex = exploit.solve(v, k, eg, seed, game=game, fresh_games=ef,
                                       rounds=exploit_rounds, n_boot=n_boot, n_jobs=n_jobs)
                sec = exploit.section(ex)
                results.add("exploit", v, k, StudyResult("exploit", [sec], data={"exploit": ex}))
                sections.append(sec)
                r_ = ex.result
                equilibria[(v, k)] = (r_.rows, r_.x, r_.cols, r_.y)
            else:
                from .equilibrium import solve_zero_sum

                x, y, _ = solve_zero_sum(game.matrix)
                equilibria[(v, k)] = (game.rows, x, game.cols, y)
            pbar.update(1)
        say(f"balance: {v}, players {bks[0]}-{bks[-1]}")
        r = balance.study(v, bks, games, seed, out, trace_games=trace_games,
                          card_players=4 if 4 in bks else bks[0], card_games=card_games,
                          n_jobs=n_jobs, model_games=min(MODEL_GAMES, 10 * games))
        results.add(r.name, v, None, r)
        sections += r.sections
        setups += r.to_json()["setups"]
        pbar.update(1)
    if strong:
        from . import strong as strong_mod

        say("strong play: league and strong player's values")
        t_strong = time.perf_counter()
        sr = strong_mod.study(strong["deals"], strong["games"], seed, out, n_jobs,
                              focal=strong.get("focal", strong_mod.FOCAL),
                              greedy_games=strong.get("greedy_games"),
                              search=strong.get("search", strong_mod.SEARCH),
                              search_games=strong.get("search_games", 0),
                              equilibria={key: strong_mod.mixes_of(*m)
                                          for key, m in equilibria.items()})
        sections += sr["sections"]
        sr["seconds"] = time.perf_counter() - t_strong
        extra = {**(extra or {}), "strong": sr}
    pbar.close()
    seconds = time.perf_counter() - t0
    cpu = _cpu_seconds(shutdown=n_jobs != 1) - c0
    cmd = command or (f"uno-sim report --variants {','.join(names)} --games {games} "
                      f"--seed {seed} --players {','.join(map(str, ks))} --boot {n_boot} "
                      f"--exploit-games {eg} --exploit-fresh {ef} --exploit-rounds "
                      f"{exploit_rounds} --exploit-deep-games {deep} --out {out}")
    head = Section("How this report was made")
    head.code(cmd)
    head.p(f"uno-sim {__version__}; variants {', '.join(names)}; {games:,} games per arm and "
           f"per player count ({vg:,} for the counterfactual bluff and challenge values"
           + (f"; the exploitability sections search on the first {eg:,} of them and measure "
              f"on {ef:,} fresh games, {exploit_rounds} double-oracle round(s) at most"
              + (f", and {DEEP[0]} at {DEEP[1]} players on {deep:,} games (its family game "
                 f"solved on them, {deep:,} selection games, {int(DEEP_FRESH * deep):,} fresh, "
                 f"{DEEP_ROUNDS} rounds at most)" if deep else "")
              if eg else "; no exploitability section") + "); "
           f"{n_boot} bootstrap resamples; seed {seed}; "
           + (f"strong play with `{sr['focal']}`: {strong['deals']} deals per league "
              f"pairing, {sr['greedy_games']:,} games for greedy's arm and {sr['games']:,} for "
              f"the strong player's challenge arms per table "
              f"({sr['games'] * strong_mod.SPREAD['bluff'][0]:,} for its bluff arms)"
              + (f", {sr['search_games']:,} for the search check `{sr['search']}`'s"
                 if sr.get("search") else "")
              + f", {sr['seconds']:.0f} s of the run; "
              if strong else "")
           + f"computed in {seconds:.0f} s of wall time ({seconds / 60:.0f} minutes) and "
           f"{cpu / 60:.0f} CPU-minutes with {n_jobs} job(s) on {os.cpu_count()} cores, "
           f"{datetime.date.today().isoformat()}. Every number, figure and reading of this "
           "report comes from this run; the same command reproduces it exactly.")
    sections, methods = split_methods(link_repeated_setups(sections))
    meth = Section("Methods")
    meth.p("How each kind of section below is computed; each section states its own setup "
           "(variant, rules, policies, players, games, seed), and its figures repeat it in "
           "their footer. Intervals are 95% throughout.")
    for text in methods.values():
        meth.p(text)
    first = summary.section(
        results, "Each answer below comes from the runs of the sections further down, linked "
                 f"on its row ({games:,} games per arm, seed {seed}); numbers are estimates "
                 "with their 95% intervals, win shares are fractions of the games.",
        extra=extra)
    all_secs = [first, head, meth] + sections
    title = "uno-sim studies report"
    took = (f"in {seconds / 60:.0f} minutes of wall time and {cpu / 60:.0f} CPU-minutes with "
            f"{n_jobs} job(s) on a {os.cpu_count()}-core machine")
    made = f"Made by `{cmd}` {took} ([how](#{slug(head.title)}))."  # the command, first
    md = f"# {title}\n\n{made}\n\n" + render_markdown(all_secs, base=out, toc_after=2)
    write_json(os.path.join(out, "report.json"),
               {"command": cmd, "version": __version__, "variants": names, "games": games,
                "seed": seed, "wall_seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
                "jobs": n_jobs, "cores": os.cpu_count(), "setups": setups,
                **sections_json(all_secs, base=out)})
    md_path = os.path.join(out, "report.md")
    html_path = os.path.join(out, "report.html")
    page = render_html(all_secs, title, toc_after=2, base=out, preamble=(
        f'<p>Made by <code>{html.escape(cmd)}</code> {took} (<a href="#{slug(head.title)}">'
        f'how</a>).</p>'))
    for path, text in ((md_path, md), (html_path, page)):
        with writing(path), open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return {"md": md_path, "html": html_path, "json": os.path.join(out, "report.json"),
            "seconds": seconds, "cpu_seconds": cpu}


def _cpu_seconds(shutdown: bool = False) -> float:
    """CPU seconds of this process and its reaped children; `shutdown`: first stop the
    reusable worker pool (joblib's loky executor) so that its workers' CPU is counted."""
    import resource

    if shutdown:  # the pool joblib keeps between calls, if one runs (else nothing to stop)
        from joblib.externals.loky import reusable_executor

        pool = getattr(reusable_executor, "_executor", None)
        if pool is not None:
            pool.shutdown(wait=True)
    t = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        u = resource.getrusage(who)
        t += u.ru_utime + u.ru_stime
    return t
