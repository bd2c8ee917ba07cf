"""The `uno-sim study` and `uno-sim report` subcommands (hooked into uno_sim.cli)."""

from __future__ import annotations

import os
import shlex
import sys
from contextlib import contextmanager


def add_commands(sub, parse_count) -> None:
    from . import STUDIES

    p = sub.add_parser("study", help="run one study (bluff, challenge, exploit, balance) "
                                     "with figures",
                       description="Run one study over fresh simulations; print its readings "
                                   "and tables as Markdown and write the figures, study.md "
                                   "and study.json (its tables as records, and its setup) to "
                                   "--out. See docs/studies.md.")
    p.add_argument("name", choices=STUDIES, help="which study")
    p.add_argument("--games", default="1000", help="games per arm / player count (default 1000)")
    p.add_argument("--players", default=None,
                   help="player counts: 4, 2,4 or 2-10 (default 2,4; balance 2-10)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--variant", default="classic", help="variant (default classic)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="directory for figures, study.md and study.json (default studies/NAME)")
    p.add_argument("--jobs", default="1",
                   help="worker processes for the simulations, -1 for all cores (default 1)")
    p.add_argument("--boot", default="300",
                   help="bootstrap resamples of the bluff and challenge studies (default 300)")
    p.add_argument("--fresh-games", default=None,
                   help="exploit: fresh games that measure each best reply's gain (default "
                        "--games)")
    p.add_argument("--rounds", default=None,
                   help="exploit: double-oracle rounds at most (default 8; each round but "
                        "the last adds a candidate reply, so at most one more than there are)")
    p.add_argument("--select-games", default=None,
                   help="exploit: selection games that rank the candidate replies, on a seed "
                        "of their own (default --games)")
    p.add_argument("--value-games", default=None,
                   help="games of the counterfactual values (bluff, challenge: default "
                        "--games; exploit's screen: default min(--games, 500))")
    p.add_argument("--focal", metavar="SPEC", default=None,
                   help="bluff, challenge: the counterfactual values and decision tables with "
                        "this policy at the deciding seat (seat 0 bluffs, seat 1 challenges)")
    p.add_argument("--table", metavar="SPEC", default=None,
                   help="bluff, challenge: ... and this policy at every other seat (default "
                        "greedy)")
    p.add_argument("--every", default=None,
                   help="bluff, challenge with --focal/--table: replay one decision point in "
                        "N (default 1: every one; for expensive policies)")
    p.set_defaults(func=lambda args: _cmd_study(args, parse_count))

    p = sub.add_parser("report", help="run every study and write a Markdown and HTML report",
                       description="Run the bluff, challenge and balance studies for each "
                                   "variant and write report.md and report.html (a summary of "
                                   "the answers first; both link the PNG figures), "
                                   "report.json (the tables as records) and the PNG figures "
                                   "to --out.")
    p.add_argument("--variant", "--variants", dest="variants", default="all",
                   help="variants: all or a comma list (default all)")
    p.add_argument("--games", default="2000", help="games per arm / player count (default 2000)")
    p.add_argument("--players", default="2,4",
                   help="player counts of the bluff and challenge studies (default 2,4)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--out", metavar="DIR", default="reports/latest",
                   help="report directory (default reports/latest)")
    p.add_argument("--jobs", default="1",
                   help="worker processes for the simulations, -1 for all cores (default 1)")
    p.add_argument("--boot", default="300",
                   help="bootstrap resamples of the bluff and challenge studies (default 300)")
    p.add_argument("--value-games", default=None,
                   help="games of the counterfactual bluff and challenge values (default --games)")
    p.add_argument("--trace-games", default=None,
                   help="traced games per player count for turns and reshuffles (default "
                        "min(200, --games))")
    p.add_argument("--card-games", default=None,
                   help="traced four-player games for the card values (default "
                        "min(1000, --games))")
    p.add_argument("--exploit-games", default=None,
                   help="search games of the exploitability section, the first of --games "
                        "(default min(--games, 1000); 0 leaves the section out)")
    p.add_argument("--exploit-fresh", default=None,
                   help="fresh games that measure each best reply (default 2 x "
                        "--exploit-games)")
    p.add_argument("--exploit-rounds", default="2",
                   help="double-oracle rounds at most in the exploitability section "
                        "(default 2)")
    p.add_argument("--exploit-deep-games", default=None,
                   help="games of the classic two-player exploitability section: its "
                        "equilibrium solved and searched on them, as many selection games, "
                        "2.5 x fresh, 20 rounds (default min(40000, 4 x --games); 0: the "
                        "sizes of the others)")
    p.add_argument("--strong-deals", default=None,
                   help="deals per pairing of the strong-play league (default "
                        "min(48, --games))")
    p.add_argument("--strong-games", default=None,
                   help="games per table of the strong player's challenge arms of the "
                        "strong-play values, its bluff arms six times as many with a "
                        "sparser sample (default min(50000, 5 x --games))")
    p.add_argument("--strong-greedy-games", default=None,
                   help="games per table of greedy's arm of those values, every decision "
                        "point replayed (default min(10000, --games))")
    p.add_argument("--strong-player", default=None, metavar="SPEC",
                   help="the strong player of the strong-play sections (a policy spec; "
                        "default net, the shipped network player)")
    p.add_argument("--strong-search", default=None, metavar="SPEC",
                   help="the search check's player beside it at 2 players (a policy spec; "
                        "default ismcts(iterations=80))")
    p.add_argument("--strong-search-games", default=None,
                   help="games per table of the search check's arms (default min(2000, "
                        "--games); 0 leaves the check out)")
    p.add_argument("--no-strong", action="store_true",
                   help="leave out the strong-play sections (league, search player's values)")
    p.set_defaults(func=lambda args: _cmd_report(args, parse_count))


# `report`'s sizes when not given: these, or --games when it is smaller
REPORT_TRACE_GAMES, REPORT_CARD_GAMES, REPORT_STRONG_DEALS, REPORT_STRONG_GAMES = \
    200, 1000, 48, 50_000
REPORT_STRONG_GREEDY_GAMES, REPORT_STRONG_SEARCH_GAMES = 10_000, 2000

# A study keeps every game's rows (and the counterfactual runs' decision points) in
# memory; these bounds keep a typo such as 1e15 from running until memory runs out.
MAX_GAMES = 10**7
MAX_BOOT = 10**5
_IN_MEMORY = "a study keeps every game's rows in memory"


def _games(parse_count, text, what="games") -> int:
    return parse_count(text, what, MAX_GAMES, _IN_MEMORY)


def _boot(parse_count, text) -> int:
    return parse_count(text, "boot", MAX_BOOT, "bootstrap resamples")


def _rounds(parse_count, text, what) -> int:
    from .exploit import MAX_ROUNDS

    return parse_count(text, what, MAX_ROUNDS, f"each round but the last adds one of the "
                                               f"{MAX_ROUNDS - 1} candidate replies")


OUTPUT_MARK = ".uno-sim-output.json"  # in a study's or report's --out: the files it wrote
# What a study's or report's folder holds besides its files: the mark, the mark being
# written, the lock that keeps two commands out of one folder (runner.storage.lock_out)
_HOUSEKEEPING = (OUTPUT_MARK, OUTPUT_MARK + ".tmp", ".lock")


def _our_files(out: str) -> list[str]:
    """Every file under `out` but the mark and the lock, as paths relative to it."""
    found = []
    for root, dirs, files in os.walk(out):
        dirs.sort()
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(root, name), out)
            if rel not in _HOUSEKEEPING:
                found.append(rel)
    return found


@contextmanager
def _output_folder(out: str, by: str):
    """--out for a study or a report (`by`), checked (`_writable_out`) and locked as a run
    folder is, before any game: a second command on the same folder is refused as "in use";
    its files are marked as uno-sim's however the command ends (`_mark_output`)."""
    from uno_sim.runner.storage import lock_out

    new = not os.path.exists(out)
    _writable_out(out)
    lock = lock_out(out, by=by)
    try:
        yield out
    finally:
        try:
            _mark_output(out)
        finally:
            os.close(lock)
            if new and not _our_files(out):  # refused before writing: leave no folder
                _remove_empty(out)


def _writable_out(out: str) -> str:
    """--out, created now: a file there, or a folder that cannot be written, is one line
    before any game is played.  A folder that is neither empty nor an earlier output of
    `study` or `report` (its mark lists every file in it) is refused: no file uno-sim did
    not write is ever overwritten."""
    import json

    from uno_sim.files import read_capped
    from uno_sim.runner.storage import MANIFEST_MAX_BYTES

    from .common import StudyError

    if not out.strip():
        raise StudyError(f"invalid --out {out!r}: expected the name of a directory")
    if os.path.isdir(out):
        held = _our_files(out)
        try:
            mark = json.loads(read_capped(os.path.join(out, OUTPUT_MARK), MANIFEST_MAX_BYTES))
            ours = set(mark["files"]) if mark.get("package") == "uno-sim" else None
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            ours = None
        stranger = next((f for f in held if ours is None or f not in ours), None)
        if stranger is not None and os.path.exists(os.path.join(out, "manifest.json")):
            raise StudyError(f"--out {out!r} holds a uno-sim run (`uno-sim run --out`); a "
                             "study or report writes a folder of its own: use a new or empty "
                             "directory")
        if stranger is not None and os.path.exists(os.path.join(out, "league.json")):
            raise StudyError(f"--out {out!r} holds a uno-sim league; a study or report writes "
                             "a folder of its own: use a new or empty directory")
        if stranger is not None:
            raise StudyError(f"--out {out!r} holds {stranger!r}, which uno-sim did not write; "
                             "use a new or empty directory")
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as exc:
        raise StudyError(f"cannot write --out {out!r}: {exc.strerror}") from None
    if not os.access(out, os.W_OK):
        raise StudyError(f"cannot write --out {out!r}: permission denied")
    return out


def _remove_empty(out: str) -> None:
    """The folder `_output_folder` made, holding only its lock: removed (a refused command
    leaves nothing behind)."""
    for name in _HOUSEKEEPING:
        try:
            os.remove(os.path.join(out, name))
        except OSError:
            pass
    try:
        os.rmdir(out)
    except OSError:  # something else is there after all: keep it
        pass


def _mark_output(out: str) -> None:
    """Record every file now in `out` as written by uno-sim (after a command wrote there,
    however it ended, so a command cut off halfway leaves a folder it may write again);
    a folder it wrote nothing into gets no mark."""
    import json

    from .common import StudyError

    if not _our_files(out):
        return
    path = os.path.join(out, OUTPUT_MARK)
    try:  # whole or not at all: an interrupt never leaves a mark that disowns the folder
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"package": "uno-sim", "files": _our_files(out)}, f, indent=1)
        os.replace(path + ".tmp", path)
    except OSError as exc:
        raise StudyError(f"cannot write {path!r}: {exc.strerror}") from None


def _cmd_study(args, parse_count) -> int:
    from uno_sim.options import parse_jobs  # the same --jobs as `uno-sim run`

    from . import run_study
    from .common import parse_variants, require_extras

    require_extras()
    games = _games(parse_count, args.games)
    variant = parse_variants(args.variant)
    if len(variant) != 1:
        from .common import StudyError
        raise StudyError(f"invalid --variant {args.variant!r}: a study takes one variant")
    kw = {} if args.name == "balance" else {"n_boot": _boot(parse_count, args.boot)}
    if args.value_games is not None and args.name != "balance":
        kw["value_games"] = _games(parse_count, args.value_games, "value-games")
    for opt, names in (("fresh_games", ("exploit",)), ("select_games", ("exploit",)),
                       ("rounds", ("exploit",)),
                       ("every", ("bluff", "challenge")),
                       ("focal", ("bluff", "challenge")), ("table", ("bluff", "challenge"))):
        val = getattr(args, opt)
        if val is None:
            continue
        flag = "--" + opt.replace("_", "-")
        if args.name not in names:
            from .common import StudyError
            raise StudyError(f"invalid {flag} for the {args.name} study: only for "
                             f"{' and '.join(names)}")
        if opt in ("fresh_games", "select_games"):
            val = _games(parse_count, val, opt.replace("_", "-"))
        elif opt == "rounds":
            val = _rounds(parse_count, val, "rounds")
        elif opt == "every":
            val = parse_count(val, opt)
        else:
            from uno_sim.players.specs import parse_policy

            parse_policy(val)  # a bad spec is one line before anything runs
        kw[opt] = val
    jobs = parse_jobs(args.jobs)  # every value checked before --out is touched
    out = os.path.join("studies", args.name) if args.out is None else args.out
    with _output_folder(out, "study"):
        res = run_study(args.name, variant[0], args.players, games, args.seed, out,
                        n_jobs=jobs, **kw)
        res.write(out)
    print(res.markdown(base=out))
    print(f"figures, study.md and study.json in {out}")
    return 0


def _cmd_report(args, parse_count) -> int:
    from uno_sim.options import parse_jobs

    from .report import build

    from .common import require_extras

    require_extras()
    games = _games(parse_count, args.games)
    value_games = _games(parse_count, args.value_games, "value-games") \
        if args.value_games else None
    def size(text, what, default, most=MAX_GAMES):
        """A size given, or its default; at most --games when not given, so that a small
        --games is a small, quick report."""
        return min(default, games) if text is None else parse_count(text, what, most,
                                                                     _IN_MEMORY)

    trace_games = size(args.trace_games, "trace-games", REPORT_TRACE_GAMES)
    card_games = size(args.card_games, "card-games", REPORT_CARD_GAMES)
    jobs, boot = parse_jobs(args.jobs), _boot(parse_count, args.boot)
    exploit_games = None if args.exploit_games is None else \
        (0 if str(args.exploit_games).strip() == "0" else
         _games(parse_count, args.exploit_games, "exploit-games"))
    exploit_fresh = _games(parse_count, args.exploit_fresh, "exploit-fresh") \
        if args.exploit_fresh else None
    exploit_rounds = _rounds(parse_count, args.exploit_rounds, "exploit-rounds")
    exploit_deep = None if args.exploit_deep_games is None else \
        (0 if str(args.exploit_deep_games).strip() == "0" else
         parse_count(args.exploit_deep_games, "exploit-deep-games", MAX_GAMES, _IN_MEMORY))
    from .strong import FOCAL, MAX_SIZE, SEARCH, check_player

    strong = None if args.no_strong else {
        "deals": size(args.strong_deals, "strong-deals", REPORT_STRONG_DEALS, MAX_SIZE),
        # the strong player's challenge arms sample one point in four: five times --games at
        # most (its bluff arms six times that, one point in 16: strong.SPREAD)
        "games": min(REPORT_STRONG_GAMES, 5 * games) if args.strong_games is None else
        size(args.strong_games, "strong-games", REPORT_STRONG_GAMES, MAX_SIZE),
        "greedy_games": size(args.strong_greedy_games, "strong-greedy-games",
                             REPORT_STRONG_GREEDY_GAMES, MAX_SIZE),
        "focal": check_player(args.strong_player or FOCAL),
        "search": check_player(args.strong_search or SEARCH, "search player"),
        "search_games": 0 if str(args.strong_search_games).strip() == "0" else
        size(args.strong_search_games, "strong-search-games", REPORT_STRONG_SEARCH_GAMES,
             MAX_SIZE)}
    cmd = "uno-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:]) \
        if sys.argv and "report" in sys.argv[1:] else None
    with _output_folder(args.out, "report"):  # after every value is checked
        res = build(args.variants, games, args.seed, args.out, args.players, command=cmd,
                    n_jobs=jobs, n_boot=boot,
                    value_games=value_games, trace_games=trace_games, card_games=card_games,
                    progress=None, exploit_games=exploit_games, exploit_fresh=exploit_fresh,
                    exploit_rounds=exploit_rounds, strong=strong, exploit_deep=exploit_deep)
    print(f"report in {res['md']}, {res['html']} and {res['json']} ({res['seconds']:.0f} s)")
    return 0
