"""The `uno-sim` command line: thin wrappers over the library.

Library errors (`RulesError`, bad input) become one line on stderr and exit
status 2; they never show a traceback.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap

from . import __version__
from .options import UsageError, parse_count, parse_jobs
from .players.specs import (KNOBS, NET_NAMES, POLICY_HELP, POLICY_NAMES, SEARCH_NAMES,
                            knob_table, seat_policies)
from .rules import RULE_KEYS, VARIANTS, Rules, RulesError, load_deck_file, parse_rule_switches
from .rules import player_counts as parse_player_counts


def player_counts(text) -> list[int]:
    """`--players`: `4`, `2,4,6` or `2-10`, the same forms for every command (rules.player_counts)."""
    try:
        return parse_player_counts(text)
    except RulesError as exc:
        raise UsageError(str(exc)) from None


def _one_player_count(text) -> int:
    counts = player_counts(text)
    if len(counts) != 1:
        raise UsageError(f"invalid --players {text!r}: this command plays one player count "
                         "(several: `uno-sim study`, `report`, `tournament`, `bench`)")
    return counts[0]


def _rule_switches(args) -> dict:
    """The --rule KEY=VALUE switches as {key: value}; a malformed or repeated one is one line
    (rules.parse_rule_switches)."""
    return parse_rule_switches(args.rule or [])


def _rules_from(args) -> Rules:
    switches = _rule_switches(args)
    players = None if args.players is None else _one_player_count(args.players)
    for key, flag in (("players", players), ("variant", args.variant)):
        if flag is None:
            continue
        if key in switches and switches[key] != flag:
            raise UsageError(f"invalid --{key} {flag!r}: --rule {key}={switches[key]} says "
                             f"otherwise; give one of them")
        switches[key] = flag
    deck = getattr(args, "deck", None)
    if deck is not None:  # a file name, or the tables of a --config file's [deck]
        if "deck" in switches:
            raise UsageError("invalid --deck: --rule deck=... is given too; give one of them")
        switches["deck"] = deck if isinstance(deck, dict) else load_deck_file(deck)
    return Rules(**switches)


def _policies_from(args, players: int):
    seats = {}
    for item in args.seat or []:
        seat, sep, spec = item.partition("=")
        if not sep or not re.fullmatch(r"-?[0-9]+", seat.strip()):  # not "²": ASCII digits
            raise UsageError(f"invalid --seat {item!r}: expected SEAT=SPEC, e.g. 2=greedy")
        if not 0 <= int(seat) < players:
            raise UsageError(f"invalid --seat {item!r}: seat {int(seat)} is not a seat of "
                             f"{players} players (0..{players - 1})")
        if int(seat) in seats:
            raise UsageError(f"invalid --seat {item!r}: seat {int(seat)} is given twice")
        seats[int(seat)] = spec
    return seat_policies(args.policy, players, seats)


# the --rule switches (variant, players and deck have their own flags)
RULE_SWITCHES = tuple(k for k in RULE_KEYS if k not in ("variant", "players", "deck"))


def _add_game_options(p):
    p.add_argument("--variant", default=None, help=f"deck and rule family ({', '.join(VARIANTS)})")
    p.add_argument("--players", default=None, help="number of players, 2-10 (default 4)")
    p.add_argument("--policy", default="greedy",
                   help="policy spec for every seat, e.g. 'greedy(bluff=0.3)' (default greedy)")
    p.add_argument("--seat", action="append", metavar="I=SPEC",
                   help="policy for one seat, e.g. --seat 2=random (repeatable)")
    p.add_argument("--rule", action="append", metavar="KEY=VALUE",
                   help=f"rule switch (repeatable): {', '.join(RULE_SWITCHES)}")
    p.add_argument("--deck", metavar="FILE",
                   help="TOML file overriding the deck table: [count] and [value] tables of "
                        "card = number, [kind.CODE] tables of new card kinds (docs/rules.md)")
    p.add_argument("--seed", type=int, default=0, help="seed that fixes every result (default 0)")
    p.add_argument("--engine", choices=("c", "reference"), default="c",
                   help="compiled engine (default) or the Python reference engine")


def _parse_shard(text):
    k, sep, m = str(text).partition("/")
    if not sep or not re.fullmatch(r"-?[0-9]+", k.strip()) \
            or not re.fullmatch(r"-?[0-9]+", m.strip()):
        raise UsageError(f"invalid --shard {text!r}: expected K/M, e.g. 7/100")
    k, m = int(k), int(m)
    if m < 1 or not 0 <= k < m:
        raise UsageError(f"invalid --shard {text!r}: expected 0 <= K < M")
    return k, m


CONFIG_KEYS = {"variant", "games", "players", "policy", "seat", "rule", "deck", "seed", "jobs", "out",
               "summary_only", "backend", "scheduler", "shard", "shard_size", "engine"}


class _Given(argparse.Namespace):
    """A namespace where every name reads as present (None until set): argparse fills in a
    default only where the namespace lacks the name, so after parsing it holds exactly the
    options given (an append or count option starts from None, as from no default)."""

    def __getattr__(self, name):
        if name.startswith("_"):  # argparse's own bookkeeping, dunders (copy, pickle)
            raise AttributeError(name)
        return None


def explicit_dests(parser: argparse.ArgumentParser, argv) -> set[str]:
    """The destinations of the options given on the command line `argv` (a command of
    `parser`, built by `build_parser`, and its options).

    The command's own parser reads `argv` again into a `_Given` namespace, which keeps
    every default out, so an option given with its default value still counts as given.
    """
    argv = list(argv)
    at = next(i for i, a in enumerate(argv) if a in parser.commands)
    given = parser.commands[argv[at]].parse_args(argv[at + 1:], namespace=_Given())
    return set(vars(given))


def _apply_config(args, parser, given=frozenset()):
    """`--config FILE.toml`: the same keys as the flags; flags given explicitly win.

    `given` names the flags given on the command line (`explicit_dests`): each of
    them keeps its value even when it equals the flag's default.
    """
    from .files import read_toml

    try:
        cfg = read_toml(args.config)
    except OSError as exc:
        raise UsageError(f"cannot read --config {args.config!r}: {exc.strerror}") from None
    except ValueError as exc:  # TOMLDecodeError, not UTF-8, not a regular file, too large
        raise UsageError(f"invalid --config {args.config!r}: {exc}") from None
    for key, value in cfg.items():
        dest = key.replace("-", "_")
        if dest not in CONFIG_KEYS:
            raise UsageError(f"unknown key {key!r} in --config {args.config!r}")
        kinds = CONFIG_TYPES[dest]
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            raise UsageError(f"invalid {key} = {value!r} in --config {args.config!r}: expected "
                             + " or ".join(CONFIG_TYPE_NAMES[k] for k in kinds))
        if dest in ("rule", "seat") and isinstance(value, list):
            bad = next((v for v in value if not isinstance(v, str)), None)
            if bad is not None:
                form = "KEY=VALUE" if dest == "rule" else "SEAT=SPEC"
                raise UsageError(f"invalid {key} = {_toml_text(value)} in --config "
                                 f"{args.config!r}: expected a list of \"{form}\" strings "
                                 f"or a table, not {bad!r}")
        if dest == "rule" and isinstance(value, dict):
            value = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in value.items()]
        if dest == "seat" and isinstance(value, dict):
            value = [f"{k}={v}" for k, v in value.items()]
        if dest in ("rule", "seat"):
            setattr(args, dest, list(value) + list(getattr(args, dest) or []))
        elif dest not in given and getattr(args, dest) == parser.get_default(dest):
            setattr(args, dest, str(value) if dest in ("games", "jobs", "shard") else value)


def _toml_text(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


CONFIG_TYPES = {"variant": (str,), "games": (int, str), "players": (int,), "policy": (str,),
                "seat": (list, dict), "rule": (list, dict), "deck": (str, dict), "seed": (int,),
                "jobs": (int, str), "out": (str,), "summary_only": (bool,), "backend": (str,),
                "scheduler": (str,), "shard": (str,), "shard_size": (int, str),
                "engine": (str,)}
CONFIG_TYPE_NAMES = {str: "a string", int: "an integer", bool: "true or false",
                     list: "a list", dict: "a table"}
# What `run --resume DIR` takes from DIR/manifest.json (so refuses as flags).
RUN_SETTINGS = ("games", "variant", "players", "policy", "seat", "rule", "deck", "seed",
                "engine", "out", "summary_only", "shard_size", "shard", "config")


def _check_run_flags(args, run_parser) -> None:
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError(f"invalid --scheduler {args.scheduler!r}: it needs --backend dask")
    if args.resume is None:
        return
    if not args.resume.strip():
        raise UsageError("invalid --resume '': expected the directory of a run")
    for dest in RUN_SETTINGS:
        if getattr(args, dest, None) != run_parser.get_default(dest):
            raise UsageError(f"invalid --{dest.replace('_', '-')} with --resume: a resumed run "
                             f"keeps the settings in {args.resume}/manifest.json")


def cmd_run(args) -> int:
    from .runner import resume, simulate

    jobs = None if args.jobs is None else parse_jobs(args.jobs)  # None: runner.auto_jobs
    _check_run_flags(args, build_parser().commands["run"])
    as_json = args.format == "json"
    if args.resume:
        res = resume(args.resume, n_jobs=jobs, backend=args.backend, scheduler=args.scheduler,
                     progress=None)
        said = sys.stderr if as_json else sys.stdout
        if res.repairs:  # what it did, a damaged finished run included
            print(f"resumed {args.resume}: " + "; ".join(res.repairs), file=said)
        else:
            print(f"nothing to do: all {res.n_games:,} games are done", file=said)
        print(_summary_json(res) if as_json else res.summary_text())
        return 0
    _a_name(args.out, "out", "a directory")
    n = parse_count(args.games)
    shard_size = parse_count(args.shard_size, "shard-size")
    rules = _rules_from(args)
    policies = _policies_from(args, rules.players)
    shard = _parse_shard(args.shard) if args.shard else None
    res = simulate(rules=rules, policies=policies, games=n, seed=args.seed, n_jobs=jobs,
                   out=args.out, summary_only=args.summary_only, shard_size=shard_size,
                   backend=args.backend, scheduler=args.scheduler, shard=shard,
                   engine=args.engine, progress=None)
    if res is None:
        if as_json:
            print(json.dumps({"shard": shard[0], "shards": shard[1], "out": args.out}))
        else:
            print(f"shard {shard[0]}/{shard[1]} done in {args.out}; "
                  f"run `uno-sim merge {args.out}` once every shard has finished")
        return 0
    if as_json:
        print(_summary_json(res))
        return 0
    print(res.summary_text())
    if args.out:
        print(f"results in {args.out}")
    return 0


def _summary_json(res) -> str:
    """`--format json`: the run's summary (as summary.json), its rules, policies, seed and
    output directory, on stdout."""
    doc = {"summary": res.summary(), "rules": res.rules.to_dict(),
           "policies": [str(p) for p in res.policies], "seed": res.seed, "out": res.out}
    return json.dumps(doc, indent=2)


def cmd_merge(args) -> int:
    from .runner import merge

    res = merge(args.dir)
    print(_summary_json(res) if args.format == "json" else res.summary_text())
    return 0


def cmd_verify(args) -> int:
    from .runner import verify

    check = verify(args.dir)
    if check.ok:
        m = check.manifest
        print(f"OK: {args.dir} holds a complete run of {m['games']:,} games, intact "
              f"({m['n_shards']:,} shards; {check.files:,} files checked: records, row files "
              f"and summary.json)")
        return 0
    for line in check.problems():
        print(f"uno-sim: {args.dir}: {line}", file=sys.stderr)
    return 1


def _one_game_events(args):
    from .api import play_game

    rules = _rules_from(args)
    policies = _policies_from(args, rules.players)
    return play_game(rules, policies, seed=args.seed, game=args.game, trace=True,
                     engine=args.engine).events


def _play_human(args) -> list | None:
    """The game's events, or None when the player quit."""
    from .players.human import InputClosed, Quit, play_human

    rules = _rules_from(args)
    if not 0 <= args.human < rules.players:
        raise UsageError(f"invalid --human {args.human}: expected a seat 0..{rules.players - 1}")
    if args.policy is None:  # the opponent to beat: the network player where weights ship
        from .players.net import shipped_path

        args.policy = "net" if shipped_path(rules).is_file() else "greedy"
    policies = _policies_from(args, rules.players)
    if args.seed is None:  # a new game each time: a seed from the OS, printed to replay it
        import secrets

        args.seed = secrets.randbits(32)
    try:
        return play_human(rules, policies, args.human, seed=args.seed, game=args.game).events
    except Quit:
        print(f"\nYou quit (seed {args.seed}).")
        return None
    except InputClosed as exc:
        raise UsageError(f"game abandoned: {exc}") from None


def _a_name(text, flag: str, what: str) -> None:
    """A file or directory name given empty (`--out ''`, a script's unset variable) is
    refused as such, before the system's error for it ("permission denied") can mislead."""
    if text is not None and not str(text).strip():
        raise UsageError(f"invalid --{flag} {text!r}: expected the name of {what}")


TRACE_HEAD = b'{"e":"game_start"'  # how every trace uno-sim writes begins


def _check_trace_out(path: str) -> None:
    """`--trace FILE`, checked before the game is played: its folder writable (a file
    made there and removed), and FILE new, empty or a trace uno-sim wrote (never another
    file written over)."""
    import os

    if os.path.isdir(path):
        raise UsageError(f"cannot write --trace {path!r}: it is a directory")
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        try:
            with open(path, "rb") as f:
                head = f.read(len(TRACE_HEAD))
        except OSError as exc:
            raise UsageError(f"cannot read --trace {path!r}: {exc.strerror}") from None
        if head != TRACE_HEAD:
            raise UsageError(f"--trace {path!r} exists and is not a uno-sim trace; give "
                             f"another file name")
    probe = f"{path}.tmp"  # the name write_jsonl writes first
    try:
        with open(probe, "w", encoding="utf-8"):
            pass
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"cannot write --trace {path!r}: {exc.strerror}") from None


def cmd_play(args) -> int:
    from .trace import replay_lines, write_jsonl

    _a_name(args.trace, "trace", "a file")
    if args.trace:
        _check_trace_out(args.trace)  # before the game: a human's game is not thrown away

    def write_trace(events):
        try:
            write_jsonl(events, args.trace)
        except OSError as exc:
            raise UsageError(f"cannot write --trace {args.trace!r}: {exc.strerror}") from None

    if args.human is not None:
        events = _play_human(args)
        if args.trace and events is not None:
            write_trace(events)
        return 0
    if args.seed is None:
        args.seed = 0
    if args.policy is None:
        args.policy = "greedy"
    events = _one_game_events(args)
    if args.trace:
        write_trace(events)
    else:
        for line in replay_lines(events):
            print(line)
    return 0


# `replay`'s options that choose the game to play: with a trace FILE they have no use
REPLAY_GAME_OPTIONS = ("game", "variant", "players", "policy", "seat", "rule", "deck", "seed",
                       "engine")
REPLAY_DEFAULTS = {"game": 0, "policy": "greedy", "seed": 0, "engine": "c"}


def cmd_replay(args) -> int:
    from .trace import read_jsonl, replay_lines, validate

    if args.file:
        given = next((o for o in REPLAY_GAME_OPTIONS if getattr(args, o) is not None), None)
        if given is not None:
            raise UsageError(f"invalid --{given} with the trace {args.file!r}: a trace holds "
                             f"its own game (without FILE, replay plays game --game of --seed)")
    for o, value in REPLAY_DEFAULTS.items():
        if getattr(args, o) is None:
            setattr(args, o, value)
    if args.file:
        try:
            source = getattr(sys.stdin, "buffer", sys.stdin) if args.file == "-" else args.file
            events, lines = read_jsonl(source, line_numbers=True)
            validate(events, lines)
        except OSError as exc:
            raise UsageError(f"cannot read trace {args.file!r}: {exc.strerror}") from None
        except ValueError as exc:
            raise UsageError(f"invalid trace {args.file!r}: {exc}") from None
    else:
        events = _one_game_events(args)
    try:
        lines = list(replay_lines(events))
    except ValueError as exc:
        raise UsageError(f"invalid trace {args.file!r}: {exc}") from None
    for line in lines:
        print(line)
    return 0


POLICIES_WIDTH = 100  # `uno-sim policies` wraps its lines to this width


def cmd_policies(args) -> int:
    def say(text, indent=""):  # every line within POLICIES_WIDTH characters
        print(textwrap.fill(text, POLICIES_WIDTH, initial_indent=indent,
                            subsequent_indent=indent + "    "))

    for name in POLICY_NAMES:
        say(f"{name}: {POLICY_HELP[name]}")
        for k in KNOBS:
            say(f"{k.name:<19} {k.range():<26} default {k.defaults[name]!s}", "    ")
            say(k.help, "        ")
    for name in SEARCH_NAMES + NET_NAMES:
        say(f"{name}: {POLICY_HELP[name]}")
        for k in knob_table(name).values():
            default = k.defaults[name] if k.defaults[name] != "" else "shipped"
            say(f"{k.name:<19} {k.range():<26} default {default!s}", "    ")
            say(k.help, "        ")
    say("spec: NAME or NAME(KNOB=VALUE,...), e.g. 'greedy(bluff=0.3,challenge=auto)'; "
        "--policy for every seat, --seat I=SPEC for one")
    say("user policies: Python callables, through the API (docs/policies.md)")
    return 0


def cmd_tournament(args) -> int:
    from .players.specs import parse_policy
    from .players.tournament import tournament

    policies = args.policy or ["strategic", "greedy", "random"]
    for p in policies:
        parse_policy(p)
    if len(policies) < 2:
        raise UsageError("a tournament needs at least two --policy")
    for item in args.rule or []:
        key, sep, value = item.partition("=")
        if sep and key.strip() == "players":  # each pairing plays every count of --players
            raise UsageError(f"invalid --rule {item!r}: a tournament takes its player counts "
                             f"from --players (e.g. --players {value.strip()})")
    rules = Rules(variant=args.variant).replace(**_rule_switches(args))
    from .players.tournament import HEADER, MAX_DEALS

    deals = parse_count(args.deals, "deals", MAX_DEALS, "deals per pairing and player count")
    counts = player_counts(args.players)
    jobs = parse_jobs(args.jobs)
    if args.estimate:
        from .players.tournament import estimate

        e = estimate(policies, counts, deals, args.seed, rules, args.engine, jobs)
        n = len(policies)
        print(f"tournament: {n * (n - 1) // 2} pairing(s) x {len(counts)} player count(s) "
              f"({','.join(map(str, counts))}), {deals} deals each, {e['games']:,} games: "
              f"estimated {e['cpu_seconds']:.3g} CPU-s, about {e['wall_seconds'] / 60:.3g} min "
              f"on {e['jobs']} job(s) (from {e['sample_cpu_seconds']:.2g} CPU-s of sample "
              f"games)")
        return 0
    table = tournament(policies, counts, deals, args.seed, rules, args.engine, progress=None,
                       jobs=jobs)
    print(textwrap.fill(HEADER, POLICIES_WIDTH))  # after the games: an error is its line alone
    for res in table:
        print(res.line())
    return 0


def _league_estimate_line(league, left_out) -> str:
    e = league.estimate
    n = len(league.players)
    pairings = n * (n - 1) // 2
    tables = len(league.variants) * len(league.player_counts)
    wall = e["wall_seconds"]
    left = f" (left out, unknown to this installation or without weights for a table: " \
        f"{', '.join(left_out)})" if left_out \
        else ""
    return (f"league: {n} players{left}, {pairings} pairing(s) x {tables} table(s) "
            f"({', '.join(league.variants)} at {','.join(map(str, league.player_counts))} "
            f"players), {league.deals} deals each: estimated {e['cpu_seconds']:.3g} CPU-s of "
            f"games, about {wall / 60:.3g} min on {league.jobs} job(s) (from "
            f"{e['timing_cpu_seconds']:.2g} CPU-s of self-play timing)"
            + ("; over 30 min: --quick plays fewer deals at lower search budgets, --jobs N "
               "shares the work" if wall > 1800 else ""))


def cmd_league(args) -> int:
    from .players.league import default_players, play_league

    variants = list(VARIANTS) if args.variant == "all" else [
        v.strip() for v in args.variant.split(",")]
    for v in variants:
        Rules(variant=v)  # validates the name
    left_out = []
    if args.policy:
        players = args.policy
    else:
        players, left_out = default_players(args.quick, variants,
                                            player_counts(args.players))
    deals = None if args.deals is None else parse_count(args.deals, "deals")
    bootstrap = 0 if str(args.bootstrap).strip() == "0" else parse_count(args.bootstrap,
                                                                          "bootstrap")
    switches = _rule_switches(args)

    def estimate(league):
        print(_league_estimate_line(league, left_out), file=sys.stderr, flush=True)

    league = play_league(players, variants=variants, player_counts=player_counts(args.players),
                         deals=deals, quick=args.quick, seed=args.seed, rules=switches,
                         bootstrap=bootstrap, anchor=args.anchor, jobs=parse_jobs(args.jobs),
                         engine=args.engine, out=args.out, progress=None,
                         on_estimate=estimate, estimate_only=args.estimate)
    if args.estimate:
        tables = list(league.timing)
        w = max(len("player"), *(len(n) for n in league.players))
        print(f"{'player':<{w}}  " + "  ".join(f"{t:>12}" for t in tables)
              + "   (CPU microseconds per decision, self-play)")
        for name in league.players:
            print(f"{name:<{w}}  " + "  ".join(f"{league.timing[t][name] * 1e6:>12.3g}"
                                                for t in tables))
        return 0
    print(league.text())
    print(f"\nleague games: {league.cpu_seconds:.1f} CPU-s; wall time {league.wall_seconds:.1f} s "
          f"on {league.jobs} job(s)")
    if args.out:
        print(f"results in {args.out} (league.json, league.md, league.png)")
    return 0


def _count_or_zero(text, what, most=None, why="") -> int:
    return 0 if str(text).strip() == "0" else parse_count(text, what, most, why)


def cmd_bench(args) -> int:
    from .bench import MAX_GAMES, MAX_REPEATS, MAX_SLOW_GAMES, run_bench

    held = "the games of one timed run"

    players = player_counts(args.players)
    variants = list(VARIANTS) if args.variant == "all" else args.variant.split(",")
    for v in variants:
        Rules(variant=v)  # validates the name
    if args.backend == "gpu":  # fail fast, in one line, before any cell
        from . import gpu

        gpu.check_config(Rules(variant=variants[0], players=players[0]),
                         seat_policies(args.policy, players[0]))
        gpu.require()
    from .bench import is_search

    search = is_search(args.policy)  # a search player: a few games by default
    games = args.games or ("20" if search else "20000")
    repeats = args.repeats or ("1" if search else "5")
    run_bench(variants=variants, players=players, policy=args.policy, backend=args.backend,
              games=parse_count(games, "games", MAX_GAMES, held),
              repeats=parse_count(repeats, "repeats", MAX_REPEATS),
              reference_games=_count_or_zero(args.reference_games, "reference-games",
                                             MAX_SLOW_GAMES),
              user_games=_count_or_zero(args.user_games, "user-games", MAX_SLOW_GAMES),
              progress=None)
    return 0


# `--help` of each command ends with these examples (every one runs as written)
EXAMPLES = {
    "run": ["uno-sim run --games 1e5 --players 4 --out runs/classic4   # every core",
            "uno-sim run --resume runs/classic4",
            "uno-sim run --variant flip --policy 'greedy(bluff=0.3)' --seat 0=strategic",
            "uno-sim run --rule edition=vintage --rule scoring=elimination --games 5000",
            "uno-sim run --config experiment.toml --players 4   # the flag wins over the file",
            "uno-sim run --games 2000 --format json > run.json"],
    "merge": ["uno-sim run --games 1e6 --shard-size 10000 --shard 0/2 --out runs/big",
              "uno-sim run --games 1e6 --shard-size 10000 --shard 1/2 --out runs/big",
              "uno-sim merge runs/big"],
    "verify": ["uno-sim verify runs/classic4",
               "uno-sim verify runs/big || uno-sim run --resume runs/big"],
    "play": ["uno-sim play --seed 7 --players 3",
             "uno-sim play --variant flip --seed 7 --game 12 --trace game.jsonl"],
    "replay": ["uno-sim replay game.jsonl", "uno-sim replay --seed 7 --players 3 --game 0",
               "cat game.jsonl | uno-sim replay -"],
    "bench": ["uno-sim bench --variant classic --players 4 --games 5000 --repeats 3",
              "uno-sim bench --players 2-10 --reference-games 50"],
    "policies": ["uno-sim policies"],
    "rules": ["uno-sim rules", "uno-sim rules --variant flip", "uno-sim rules --format json"],
    "tournament": ["uno-sim tournament --players 2,4 --deals 2000 --jobs 2",
                   "uno-sim tournament --policy pimc --policy greedy --deals 500 --estimate",
                   "uno-sim tournament --policy greedy --policy 'greedy(bluff=0.5)' --players 2-4",
                   "uno-sim tournament --variant flip --deals 500"],
    "league": ["uno-sim league --quick --jobs 2 --out leagues/quick",
               "uno-sim league --policy random --policy greedy --policy strategic "
               "--players 2 --variant classic --deals 500",
               "uno-sim league --estimate"],
    "completion": ["uno-sim completion bash > ~/.local/share/bash-completion/completions/uno-sim",
                   "source <(uno-sim completion bash)",
                   "uno-sim completion zsh > ~/.zfunc/_uno-sim",
                   "uno-sim completion fish > ~/.config/fish/completions/uno-sim.fish"],
    "study": ["uno-sim study bluff --games 500 --out studies/bluff",
              "uno-sim study balance --variant flip --players 2-6 --games 1000"],
    "report": ["uno-sim report --variant classic --games 500 --out reports/quick",
               "uno-sim report --games 2000 --jobs -1"],
}


class _Formatter(argparse.HelpFormatter):
    """Wraps descriptions as usual; keeps a text that has line breaks (the examples) as is."""

    def _fill_text(self, text, width, indent):
        if "\n" in text:
            return "".join(indent + line + "\n" for line in text.splitlines())
        return super()._fill_text(text, width, indent)


def cmd_rules(args) -> int:
    from .rules import switch_table

    variants = list(VARIANTS) if args.variant in (None, "all") else [args.variant]
    for v in variants:
        Rules(variant=v)  # validates the name
    rows = switch_table(variants)
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0

    def shown(value):
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, (list, tuple)):
            return ",".join(map(str, value)) or "(none)"
        return str(value)

    for r in rows:
        values = {shown(x) for x in r["default"].values()}
        if r["switch"] == "variant" and len(values) > 1:  # the default of --variant itself
            default = Rules().variant
        elif len(values) == 1:
            default = values.pop()
        else:
            default = "; ".join(f"{v}: {shown(x)}" for v, x in r["default"].items())
        print(f"{r['switch']}  [{r['rule']}]  {r['meaning']}")
        print(f"    values: {r['values']}")
        print(f"    default: {default}")
    from .rules import EDITION_DEFAULTS

    vintage = ", ".join(f"{k}={v}" for k, v in EDITION_DEFAULTS["vintage"].items())
    print(f"edition=vintage changes the defaults: {vintage} (an explicit --rule wins)")
    print("set with --rule KEY=VALUE (repeatable) or a [rule] table in --config; "
          "docs/rules.md explains each rule ID")
    return 0


SHELLS = ("bash", "zsh", "fish")  # `uno-sim completion SHELL` (argcomplete writes the script)


def completion_script(shell: str = "bash") -> str:
    """The completion script of `uno-sim` for `shell` (argcomplete's; it calls uno-sim back)."""
    try:
        import argcomplete
    except ImportError:  # an install that predates the dependency
        raise UsageError("shell completion needs argcomplete: pip install argcomplete") from None
    return argcomplete.shellcode(["uno-sim"], shell=shell)


def _complete_rule(prefix, **kwargs):
    """--rule: the switch names with their `=`, then the values of the switch named."""
    from .rules import SWITCH

    key, sep, _ = prefix.partition("=")
    if not sep:
        return [f"{k}=" for k in RULE_SWITCHES if k.startswith(prefix)]
    s = SWITCH.get(key)
    if s is None:
        return []
    if s.kind == "bool":
        values = ["true", "false"]
    elif s.kind == "choice":
        values = [str(v) for v in s.choices()]
    elif s.kind == "int" and s.hi is not None and s.hi - s.lo <= 20:
        values = [str(v) for v in range(s.lo, s.hi + 1)]
    else:
        values = []
    return [f"{key}={v}" for v in values if f"{key}={v}".startswith(prefix)]


def _add_completers(parser: argparse.ArgumentParser) -> None:
    """Values argcomplete offers where argparse has no `choices`: variants, policies, rules."""
    from argcomplete.completers import ChoicesCompleter

    from .players.specs import POLICIES

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        for a in p._actions:
            opts = set(a.option_strings)
            if opts & {"--variant", "--variants"}:
                extra = ["all"] if name in ("bench", "league", "report", "rules") else []
                a.completer = ChoicesCompleter(list(VARIANTS) + extra)
            elif "--policy" in opts:
                a.completer = ChoicesCompleter(list(POLICIES) + list(SEARCH_NAMES) + list(NET_NAMES))
            elif "--rule" in opts:
                a.completer = _complete_rule


def _autocomplete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell's completion request, if this run is one (then exit)."""
    import os

    if "_ARGCOMPLETE" not in os.environ:
        return
    try:
        import argcomplete
    except ImportError:  # nothing to complete with: let the shell fall back to file names
        sys.exit(1)
    _add_completers(parser)
    argcomplete.autocomplete(parser)


def cmd_completion(args) -> int:
    print(completion_script(args.shell), end="")
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (`uno-sim: error: ...`, exit 2), like the library's."""

    def error(self, message):
        self.exit(2, f"uno-sim: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    from .runner.execute import AUTO_GAMES

    parser = _Parser(
        prog="uno-sim", description="Monte Carlo simulation of UNO and its published variants.")
    parser.add_argument("--version", action="version", version=f"uno-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices  # command name -> its parser (filled by add_parser below)

    p = sub.add_parser("run", help="simulate many complete games and summarize them",
                       description="Simulate complete games (rounds until the target score) on "
                                   "one or more cores or a Dask cluster; print a summary with "
                                   "95% Wilson intervals and write Parquet results with --out.")
    p.add_argument("--games", default="10000", help="number of games: 1000, 1e6, 250k (default 10000)")
    _add_game_options(p)
    p.add_argument("--jobs", default=None,
                   help="worker processes, -1 for all cores (default: one per core, at most "
                        f"one per shard, for a local run of {AUTO_GAMES:,} games or more; "
                        "else 1); the games are the same at any number")
    p.add_argument("--out", metavar="DIR", help="write manifest, shards, games.parquet, "
                                                "rounds.parquet and summary.json to DIR")
    p.add_argument("--resume", metavar="DIR", help="finish the interrupted run in DIR")
    p.add_argument("--summary-only", action="store_true",
                   help="keep aggregates only, in constant memory (no per-game rows)")
    p.add_argument("--shard-size", default=str(10_000), help="games per shard (default 10000)")
    p.add_argument("--backend", choices=("local", "dask", "ray", "gpu"), default="local",
                   help="local processes (joblib), a dask.distributed cluster, Ray (through "
                        "joblib; the ray extra) or one CUDA GPU (the gpu extra; the same games "
                        "bit for bit)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler, e.g. tcp://host:8786, or Ray address (default: the "
                        "running client, else a local cluster)")
    p.add_argument("--shard", metavar="K/M", help="array job: run only slice K of M (0-based) into --out")
    p.add_argument("--config", metavar="FILE",
                   help="TOML file with the same keys as these flags; flags given on the "
                        "command line win (docs/cli.md)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="the summary as text (default) or as JSON on stdout")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("merge", help="merge the shards of an array-job run",
                       description="Check that every shard of the run in DIR is present and "
                                   "shares its manifest, then write games.parquet, "
                                   "rounds.parquet and summary.json.")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="the summary as text (default) or as JSON on stdout")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("verify", help="check a run folder for damage and foreign files",
                       description="Check the run in DIR without changing it: every shard "
                                   "record against its own SHA-256, every row file against "
                                   "the size and SHA-256 its record holds, every name in the "
                                   "folder, and summary.json against the records. Prints one "
                                   "OK line (exit status 0), or one line per problem on "
                                   "stderr saying what to do (exit status 1); a folder that "
                                   "holds no run is one line and exit status 2.")
    p.add_argument("dir", metavar="DIR")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("play", help="play one game and print it (or write its trace)",
                       description="Play one complete game; print a play-by-play, or write the "
                                   "JSON Lines trace (docs/trace.md) with --trace FILE.")
    p.add_argument("--game", type=int, default=0, help="game number within the seed's run (default 0)")
    p.add_argument("--trace", metavar="FILE", help="write the event trace to FILE (JSON Lines)")
    p.add_argument("--human", type=int, metavar="SEAT",
                   help="play seat SEAT yourself at the terminal against the policies of the "
                        "other seats: type the number of a choice (read from stdin, so a file "
                        "of numbers can script a game; q quits); played on the reference "
                        "engine, the same game as the C engine's")
    _add_game_options(p)
    # --human without --seed deals a new game each time (the seed is printed); else seed 0.
    # --human without --policy seats the network player (the opponent to beat) where weights
    # ship for the variant and player count; else greedy
    p.set_defaults(func=cmd_play, seed=None, policy=None)
    next(a for a in p._actions if a.dest == "policy").help = (
        "policy spec for every seat, e.g. 'greedy(bluff=0.3)' (default greedy; with --human, "
        "net, the learned player, where its weights ship for the variant and player count)")
    next(a for a in p._actions if a.dest == "seed").help = (
        "seed that fixes the game (default 0; with --human, a new seed each time, printed)")

    p = sub.add_parser("replay", help="print a trace as a readable play-by-play",
                       description="Print a JSON Lines trace (FILE, or - for stdin) as a "
                                   "play-by-play; without FILE, replay game --game of --seed.")
    p.add_argument("file", nargs="?", help="trace file written by `uno-sim play --trace`")
    p.add_argument("--game", type=int, default=0, help="game number within the seed's run (default 0)")
    _add_game_options(p)
    # None: not given, so that a game option given with a trace FILE is refused, not ignored
    p.set_defaults(func=cmd_replay, **dict.fromkeys(REPLAY_GAME_OPTIONS))

    p = sub.add_parser("bench", help="measure complete games per second per core",
                       description="Measure complete games per second on one core for each "
                                   "variant and player count (median of several runs), with "
                                   "the machine and the commit.")
    p.add_argument("--variant", default="all",
                   help="variants, comma-separated, or all (default all)")
    p.add_argument("--players", default="2,4,7,10", help="player counts (default 2,4,7,10)")
    p.add_argument("--policy", default="greedy",
                   help="policy spec for every seat (default greedy); a search player (pimc, "
                        "ismcts) takes seat 0 only, the others greedy")
    p.add_argument("--games", default=None,
                   help="games per timed run (default 20000; 20 for a search player)")
    p.add_argument("--repeats", default=None,
                   help="timed runs; the median is shown (default 5; 1 for a search player)")
    p.add_argument("--backend", choices=("cpu", "gpu"), default="cpu",
                   help="time the C engine on one core (cpu, default) or the GPU kernel on one "
                        "CUDA device (gpu: the gpu extra)")
    p.add_argument("--reference-games", default="0",
                   help="also time the Python reference engine on this many games")
    p.add_argument("--user-games", default="0",
                   help="also time the C engine with seat 0 played by a Python policy on this "
                        "many games")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("policies", help="list the built-in policies and their knobs",
                       description="List every built-in policy with its parameters, ranges and "
                                   "defaults.")
    p.set_defaults(func=cmd_policies)

    p = sub.add_parser("rules", help="list every rule switch, its values and defaults",
                       description="List every rule switch (--rule KEY=VALUE) with the values "
                                   "it takes, its default in each variant, its meaning and "
                                   "its rule IDs (docs/rules.md).")
    p.add_argument("--variant", default="all", help="one variant, or all (default all)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or JSON records")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("tournament", help="paired tournament between policies",
                       description="Play every pairing of the policies on the same deals with "
                                   "the seats rotated; print A's win share with a 95% interval "
                                   "against the even share.")
    p.add_argument("--policy", action="append", metavar="SPEC",
                   help="a contestant (repeatable; default strategic, greedy, random)")
    p.add_argument("--players", default="2,4", help="player counts (default 2,4)")
    p.add_argument("--deals", default="2000", help="deals per pairing and player count "
                                                   "(each played once per rotation; default 2000)")
    p.add_argument("--variant", default="classic", help="variant (default classic)")
    p.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule switch (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--engine", choices=("c", "reference"), default="c",
                   help="compiled engine (default) or the Python reference engine")
    p.add_argument("--jobs", default="1", help="worker processes, -1 for all cores; the "
                                               "table is the same at any number (default 1)")
    p.add_argument("--estimate", action="store_true",
                   help="time a sample of each pairing's games, print the estimated cost "
                        "and stop")
    p.set_defaults(func=cmd_tournament)

    from .players.league import DEFAULT_DEALS, QUICK_DEALS

    p = sub.add_parser("league", help="rated league: every pairing, Bradley-Terry ratings",
                       description="Play every pairing of the players on the same deals with "
                                   "the seats rotated (A, B, A, B, ...), at each variant and "
                                   "player count; fit Bradley-Terry ratings on the Elo scale "
                                   "(one player anchored at 0, greedy by default) with 95% "
                                   "bootstrap intervals over deals; measure each player's CPU "
                                   "time per decision. Prints the tables and the estimated "
                                   "cost first; --out DIR writes league.json, league.md and "
                                   "league.png (rating against thinking time).")
    p.add_argument("--policy", action="append", metavar="SPEC",
                   help="a player (repeatable; default: the default league, "
                        "uno_sim.players.league.DEFAULT_LEAGUE: random, greedy, strategic and the "
                        "search players this installation has)")
    p.add_argument("--players", default="2,4", help="player counts (default 2,4)")
    p.add_argument("--variant", default="classic,flip",
                   help="variants, comma-separated, or all (default classic,flip)")
    p.add_argument("--rule", action="append", metavar="KEY=VALUE",
                   help="rule switch for every variant (repeatable)")
    p.add_argument("--deals", default=None,
                   help="deals per pairing and table, each played once per rotation "
                        f"(default {DEFAULT_DEALS}; {QUICK_DEALS} with --quick)")
    p.add_argument("--quick", action="store_true",
                   help="fewer deals and the default league's lower search budgets")
    p.add_argument("--bootstrap", default="1000",
                   help="bootstrap resamples for the intervals (0: none; default 1000)")
    p.add_argument("--anchor", metavar="SPEC", help="the player rated 0 (default greedy)")
    p.add_argument("--seed", type=int, default=0, help="seed that fixes every result (default 0)")
    p.add_argument("--jobs", default="1", help="worker processes, -1 for all cores; the "
                                               "results are the same at any number (default 1)")
    p.add_argument("--engine", choices=("c", "reference"), default="c",
                   help="compiled engine (default) or the Python reference engine")
    p.add_argument("--out", metavar="DIR",
                   help="write league.json, league.md and league.png to DIR (new, empty, or "
                        "a former league's)")
    p.add_argument("--estimate", action="store_true",
                   help="time the players, print the estimated cost and stop")
    p.set_defaults(func=cmd_league)

    try:  # `study` and `report` live in the analysis package (docs/studies.md)
        from .analysis.cli import add_commands
    except ImportError:
        pass
    else:
        add_commands(sub, parse_count)

    from .players.traincli import add_command as add_train

    add_train(sub)  # `uno-sim train` (docs/training.md)

    p = sub.add_parser("completion", help="print a shell completion script",
                       description="Print the completion script of uno-sim for bash, zsh "
                                   "or fish (argcomplete): commands, options, variants, "
                                   "policies, rule switches and their values, studies, files.")
    p.add_argument("shell", choices=SHELLS, help="the shell: " + ", ".join(SHELLS))
    p.set_defaults(func=cmd_completion)

    parser.formatter_class = _Formatter
    for name, p in sub.choices.items():
        p.formatter_class = _Formatter
        if name in EXAMPLES:
            p.epilog = "examples:\n" + "\n".join(f"  {e}" for e in EXAMPLES[name])
    return parser


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt."""


def _on_sigterm(signum, frame):
    raise Terminated()


def _stopped(args, what: str) -> str:
    out = getattr(args, "resume", None) or getattr(args, "out", None)
    if getattr(args, "command", None) == "train" and out:
        return (f"uno-sim: {what}; the last checkpoint is kept in {out}: "
                f"`uno-sim train --resume {out}` continues to the same result")
    if getattr(args, "command", None) == "run" and out:
        return (f"uno-sim: {what}; the finished shards are kept in {out}: "
                f"`uno-sim run --resume {out}` computes the rest")
    return f"uno-sim: {what}"


def _glue_dash_values(parser, argv: list) -> list:
    """`--seat -1=greedy`, `--shard -1/2`: argparse takes a value that starts with a dash
    for an option and says "expected one argument"; glued as `--seat=-1=greedy` it reaches
    the check that names what is wrong with it.  A value is glued when it starts with a
    single dash and is no option of the command (`--seat --policy x` still lacks one)."""
    sub = getattr(parser, "commands", {})
    if not argv or argv[0] not in sub:
        return argv
    p = sub[argv[0]]
    takes = {o for a in p._actions if type(a) in (argparse._StoreAction, argparse._AppendAction)
             and a.nargs is None for o in a.option_strings}
    out, i = [argv[0]], 1
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return out + argv[i:]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if a in takes and nxt is not None and nxt.startswith("-") and len(nxt) > 1 \
                and not nxt.startswith("--") and nxt not in p._option_string_actions:
            out.append(f"{a}={nxt}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def main(argv=None) -> int:
    import signal

    try:
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread
        pass
    try:  # a signal while the options are read: one line too
        parser = build_parser()
        _autocomplete(parser)  # a shell asking for completions (uno-sim completion) ends here
        argv = sys.argv[1:] if argv is None else list(argv)
        argv = _glue_dash_values(parser, argv)
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("uno-sim: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("uno-sim: terminated", file=sys.stderr)
        return 143
    if not getattr(args, "func", None):  # `uno-sim` alone: an error, on stderr like the rest
        print(f"uno-sim: error: a command is required: {', '.join(parser.commands)} (see "
              f"`uno-sim --help`)", file=sys.stderr)
        return 2
    try:
        from .progress import env_setting

        env_setting()  # a bad UNO_SIM_PROGRESS is one line before any work
        if getattr(args, "config", None):
            _apply_config(args, build_parser().commands[args.command], explicit_dests(parser, argv))
        return args.func(args)
    except (UsageError, RulesError) as exc:
        print(f"uno-sim: error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        from .engine import GameLimitError

        if not isinstance(exc, GameLimitError):  # policies that never let a game end
            raise
        print(f"uno-sim: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except OSError as exc:  # a full or read-only disk, a vanished directory...
        print(f"uno-sim: error: {_os_error_line(exc, args)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _quiet_threads()
        print(_stopped(args, "interrupted"), file=sys.stderr)
        return 130
    except Terminated:
        _quiet_threads()
        print(_stopped(args, "terminated"), file=sys.stderr)
        return 143


def _os_error_line(exc: OSError, args) -> str:
    """What failed, on which file: the file the error names (the writers name theirs:
    files.writing), else the folder the command writes into."""
    import errno

    verb = "write" if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS) else "write or read"
    out = getattr(args, "resume", None) or getattr(args, "out", None) \
        or getattr(args, "trace", None)
    where = f" {exc.filename!r}" if exc.filename else f" in {out!r}" if out else ""
    return f"cannot {verb}{where}: {exc.strerror or exc}"


def _quiet_threads() -> None:
    """After an interrupt, a worker pool's management thread may still trip over the
    workers it lost (loky raises KeyError there), and at exit the process pool's hook may
    wake that thread through a pipe already closed (concurrent.futures: "Exception ignored
    in: <module 'threading'>", OSError, reported as unraisable); the one line printed says
    it all."""
    import threading

    threading.excepthook = lambda args: None
    sys.unraisablehook = lambda unraisable: None


if __name__ == "__main__":
    sys.exit(main())
