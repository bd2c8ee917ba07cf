"""The `uno-sim` command line: thin wrappers over the library.

Library errors (`RulesError`, bad input) become one line on stderr and exit
status 2; they never show a traceback.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from . import __version__
from .options import UsageError, parse_count, parse_jobs
from .policies import KNOBS, POLICY_HELP, POLICY_NAMES, seat_policies
from .rules import RULE_KEYS, VARIANTS, Rules, RulesError, load_deck_file, parse_rule_value
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


def _rules_from(args) -> Rules:
    switches = {}
    for item in args.rule or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:
            raise UsageError(f"invalid --rule {item!r}: expected KEY=VALUE")
        if key in switches:
            raise UsageError(f"invalid --rule {item!r}: {key} is given twice")
        switches[key] = parse_rule_value(key, value.strip())
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
        if not sep or not seat.strip().isdigit():
            raise UsageError(f"invalid --seat {item!r}: expected SEAT=SPEC, e.g. 2=greedy")
        if int(seat) in seats:
            raise UsageError(f"invalid --seat {item!r}: seat {int(seat)} is given twice")
        seats[int(seat)] = spec
    return seat_policies(args.policy, players, seats)


def _add_game_options(p):
    p.add_argument("--variant", default=None, help=f"deck and rule family ({', '.join(VARIANTS)})")
    p.add_argument("--players", default=None, help="number of players, 2-10 (default 4)")
    p.add_argument("--policy", default="greedy",
                   help="policy spec for every seat, e.g. 'greedy(bluff=0.3)' (default greedy)")
    p.add_argument("--seat", action="append", metavar="I=SPEC",
                   help="policy for one seat, e.g. --seat 2=random (repeatable)")
    p.add_argument("--rule", action="append", metavar="KEY=VALUE",
                   help=f"rule switch (repeatable): {', '.join(RULE_KEYS)}")
    p.add_argument("--deck", metavar="FILE",
                   help="TOML file overriding the deck table: [count] and [value] tables of "
                        "card = number, [kind.CODE] tables of new card kinds (docs/rules.md)")
    p.add_argument("--seed", type=int, default=0, help="seed that fixes every result (default 0)")
    p.add_argument("--engine", choices=("c", "reference"), default="c",
                   help="compiled engine (default) or the Python reference engine")


def _parse_shard(text):
    k, sep, m = str(text).partition("/")
    if not sep or not k.strip().isdigit() or not m.strip().isdigit():
        raise UsageError(f"invalid --shard {text!r}: expected K/M, e.g. 7/100")
    k, m = int(k), int(m)
    if m < 1 or k >= m:
        raise UsageError(f"invalid --shard {text!r}: expected 0 <= K < M")
    return k, m


CONFIG_KEYS = {"variant", "games", "players", "policy", "seat", "rule", "deck", "seed", "jobs", "out",
               "summary_only", "backend", "scheduler", "shard", "shard_size", "engine"}


def explicit_dests(parser: argparse.ArgumentParser, argv) -> set[str]:
    """The destinations of the options given on the command line `argv`.

    `argv` is parsed again by a copy of the parser whose defaults are all
    suppressed, so an option given with its default value still counts as given.
    """
    import copy

    quiet = copy.deepcopy(parser)
    stack = [quiet]
    while stack:
        p = stack.pop()
        p.set_defaults(**{k: argparse.SUPPRESS for k in p._defaults})
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                stack.extend(a.choices.values())
            elif a.dest != "help":
                a.default = argparse.SUPPRESS
    return set(vars(quiet.parse_args(argv)))


def _apply_config(args, parser, given=frozenset()):
    """`--config FILE.toml`: the same keys as the flags; flags given explicitly win.

    `given` names the flags given on the command line (`explicit_dests`): each of
    them keeps its value even when it equals the flag's default.
    """
    import tomllib

    try:
        with open(args.config, "rb") as f:
            cfg = tomllib.load(f)
    except OSError as exc:
        raise UsageError(f"cannot read --config {args.config!r}: {exc.strerror}") from None
    except ValueError as exc:  # TOMLDecodeError, or bytes that are not UTF-8
        raise UsageError(f"invalid --config {args.config!r}: {exc}") from None
    defaults = {a.dest: a.default for a in parser._actions}
    for key, value in cfg.items():
        dest = key.replace("-", "_")
        if dest not in CONFIG_KEYS:
            raise UsageError(f"unknown key {key!r} in --config {args.config!r}")
        kinds = CONFIG_TYPES[dest]
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            raise UsageError(f"invalid {key} = {value!r} in --config {args.config!r}: expected "
                             + " or ".join(CONFIG_TYPE_NAMES[k] for k in kinds))
        if dest == "rule" and isinstance(value, dict):
            value = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in value.items()]
        if dest == "seat" and isinstance(value, dict):
            value = [f"{k}={v}" for k, v in value.items()]
        if dest in ("rule", "seat"):
            setattr(args, dest, list(value) + list(getattr(args, dest) or []))
        elif dest not in given and getattr(args, dest) == defaults.get(dest):
            setattr(args, dest, str(value) if dest in ("games", "jobs", "shard") else value)


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


def _check_run_flags(args, parser_defaults) -> None:
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError(f"invalid --scheduler {args.scheduler!r}: it needs --backend dask")
    if args.resume is None:
        return
    if not args.resume.strip():
        raise UsageError("invalid --resume '': expected the directory of a run")
    for dest in RUN_SETTINGS:
        if getattr(args, dest, None) != parser_defaults.get(dest):
            raise UsageError(f"invalid --{dest.replace('_', '-')} with --resume: a resumed run "
                             f"keeps the settings in {args.resume}/manifest.json")


def cmd_run(args) -> int:
    from .runner import resume, simulate

    jobs = parse_jobs(args.jobs)
    run_parser = build_parser()._subparsers._group_actions[0].choices["run"]
    _check_run_flags(args, {a.dest: a.default for a in run_parser._actions})
    as_json = args.format == "json"
    if args.resume:
        res = resume(args.resume, n_jobs=jobs, backend=args.backend, scheduler=args.scheduler,
                     progress=None)
        print(_summary_json(res) if as_json else res.summary_text())
        return 0
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


def _one_game_events(args):
    from .api import play_game

    rules = _rules_from(args)
    policies = _policies_from(args, rules.players)
    return play_game(rules, policies, seed=args.seed, game=args.game, trace=True,
                     engine=args.engine).events


def _play_human(args) -> list:
    from .human import InputClosed, play_human

    rules = _rules_from(args)
    if not 0 <= args.human < rules.players:
        raise UsageError(f"invalid --human {args.human}: expected a seat 0..{rules.players - 1}")
    policies = _policies_from(args, rules.players)
    try:
        return play_human(rules, policies, args.human, seed=args.seed, game=args.game).events
    except InputClosed as exc:
        raise UsageError(f"game abandoned: {exc}") from None


def cmd_play(args) -> int:
    from .trace import replay_lines, write_jsonl

    def write_trace(events):
        try:
            write_jsonl(events, args.trace)
        except OSError as exc:
            raise UsageError(f"cannot write --trace {args.trace!r}: {exc.strerror}") from None

    if args.human is not None:
        events = _play_human(args)
        if args.trace:
            write_trace(events)
        return 0
    events = _one_game_events(args)
    if args.trace:
        write_trace(events)
    else:
        for line in replay_lines(events):
            print(line)
    return 0


def cmd_replay(args) -> int:
    from .trace import read_jsonl, replay_lines

    if args.file:
        try:
            events = read_jsonl(sys.stdin if args.file == "-" else args.file)
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


def cmd_policies(args) -> int:
    for name in POLICY_NAMES:
        print(f"{name}: {POLICY_HELP[name]}")
        for k in KNOBS:
            print(f"    {k.name:<19} {k.range():<26} default {k.defaults[name]!s:<7} "
                  f"{k.help}")
    print("spec: NAME or NAME(KNOB=VALUE,...), e.g. 'greedy(bluff=0.3,challenge=auto)'; "
          "--policy for every seat, --seat I=SPEC for one")
    print("user policies: Python callables, through the API (docs/policies.md)")
    return 0


def cmd_tournament(args) -> int:
    from .policies import parse_policy
    from .tournament import tournament

    policies = args.policy or ["strategic", "greedy", "random"]
    for p in policies:
        parse_policy(p)
    if len(policies) < 2:
        raise UsageError("a tournament needs at least two --policy")
    rules = Rules(variant=args.variant)
    for item in args.rule or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"invalid --rule {item!r}: expected KEY=VALUE")
        rules = rules.replace(**{key.strip(): parse_rule_value(key.strip(), value.strip())})
    deals = parse_count(args.deals, "deals")
    for res in tournament(policies, player_counts(args.players), deals, args.seed, rules,
                          args.engine, progress=None):
        print(res.line())
    return 0


def _count_or_zero(text, what) -> int:
    return 0 if str(text).strip() == "0" else parse_count(text, what)


def cmd_bench(args) -> int:
    from .bench import run_bench

    players = player_counts(args.players)
    variants = list(VARIANTS) if args.variant == "all" else args.variant.split(",")
    for v in variants:
        Rules(variant=v)  # validates the name
    if args.backend == "gpu":  # fail fast, in one line, before any cell
        from . import gpu

        gpu.check_config(Rules(variant=variants[0], players=players[0]),
                         seat_policies(args.policy, players[0]))
        gpu.require()
    run_bench(variants=variants, players=players, policy=args.policy, backend=args.backend,
              games=parse_count(args.games), repeats=parse_count(args.repeats, "repeats"),
              reference_games=_count_or_zero(args.reference_games, "reference-games"),
              user_games=_count_or_zero(args.user_games, "user-games"), progress=None)
    return 0


# `--help` of each command ends with these examples (every one runs as written)
EXAMPLES = {
    "run": ["uno-sim run --games 1e5 --players 4 --jobs 2 --out runs/classic4",
            "uno-sim run --resume runs/classic4",
            "uno-sim run --variant flip --policy 'greedy(bluff=0.3)' --seat 0=strategic",
            "uno-sim run --rule edition=vintage --rule scoring=elimination --games 5000",
            "uno-sim run --config experiment.toml --players 4   # the flag wins over the file",
            "uno-sim run --games 2000 --format json > run.json"],
    "merge": ["uno-sim run --games 1e6 --shard-size 10000 --shard 0/2 --out runs/big",
              "uno-sim run --games 1e6 --shard-size 10000 --shard 1/2 --out runs/big",
              "uno-sim merge runs/big"],
    "play": ["uno-sim play --seed 7 --players 3",
             "uno-sim play --variant flip --seed 7 --game 12 --trace game.jsonl"],
    "replay": ["uno-sim replay game.jsonl", "uno-sim replay --seed 7 --players 3 --game 0",
               "cat game.jsonl | uno-sim replay -"],
    "bench": ["uno-sim bench --variant classic --players 4 --games 5000 --repeats 3",
              "uno-sim bench --players 2-10 --reference-games 50"],
    "policies": ["uno-sim policies"],
    "rules": ["uno-sim rules", "uno-sim rules --variant flip", "uno-sim rules --format json"],
    "tournament": ["uno-sim tournament --players 2,4 --deals 2000",
                   "uno-sim tournament --policy greedy --policy 'greedy(bluff=0.5)' --players 2-4",
                   "uno-sim tournament --variant flip --deals 500"],
    "completion": ["uno-sim completion bash > ~/.local/share/bash-completion/completions/uno-sim",
                   "source <(uno-sim completion bash)"],
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
        if len(values) == 1:
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


def completion_script(parser: argparse.ArgumentParser) -> str:
    """A bash completion script for `uno-sim`, generated from the parser itself."""
    from .policies import POLICIES
    from .rules import VARIANTS

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    cases, values = [], {}
    for name, p in sub.choices.items():
        opts = [o for a in p._actions for o in a.option_strings]
        cases.append(f'        {name}) opts="{" ".join(opts)}" ;;')
        for a in p._actions:
            for o in a.option_strings:
                if a.choices:
                    values[o] = " ".join(map(str, a.choices))
                elif o in ("--variant", "--variants"):
                    values[o] = " ".join(VARIANTS) + (" all" if name in ("bench", "report",
                                                                          "rules") else "")
                elif o == "--policy":
                    values[o] = " ".join(POLICIES)
                elif o == "--rule":
                    values[o] = " ".join(f"{k}=" for k in RULE_KEYS)
                elif a.metavar in ("FILE", "DIR") or o in ("--out", "--resume", "--config"):
                    values[o] = "__files__"
    value_cases = []
    for o, words in sorted(values.items()):
        if words == "__files__":
            value_cases.append(f'        {o}) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;')
        else:
            value_cases.append(f'        {o}) COMPREPLY=( $(compgen -W "{words}" -- "$cur") ); '
                               f'return ;;')
    return "\n".join([
        "# bash completion for uno-sim: source <(uno-sim completion bash)",
        "_uno_sim() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local cmd="${COMP_WORDS[1]}" opts',
        "    if [[ $COMP_CWORD -eq 1 ]]; then",
        f'        COMPREPLY=( $(compgen -W "{" ".join(sub.choices)} --help --version" -- "$cur") )',
        "        return",
        "    fi",
        '    case "$prev" in',
        *value_cases,
        "    esac",
        '    case "$cmd" in',
        *cases,
        '        *) opts="" ;;',
        "    esac",
        '    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )',
        "}",
        "complete -o default -F _uno_sim uno-sim",
        "",
    ])


def cmd_completion(args) -> int:
    print(completion_script(build_parser()), end="")
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (`uno-sim: error: ...`, exit 2), like the library's."""

    def error(self, message):
        self.exit(2, f"uno-sim: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="uno-sim", description="Monte Carlo simulation of UNO and its published variants.")
    parser.add_argument("--version", action="version", version=f"uno-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("run", help="simulate many complete games and summarize them",
                       description="Simulate complete games (rounds until the target score) on "
                                   "one or more cores or a Dask cluster; print a summary with "
                                   "95% Wilson intervals and write Parquet results with --out.")
    p.add_argument("--games", default="10000", help="number of games: 1000, 1e6, 250k (default 10000)")
    _add_game_options(p)
    p.add_argument("--jobs", default="1", help="worker processes, -1 for all cores (default 1)")
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
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("replay", help="print a trace as a readable play-by-play",
                       description="Print a JSON Lines trace (FILE, or - for stdin) as a "
                                   "play-by-play; without FILE, replay game --game of --seed.")
    p.add_argument("file", nargs="?", help="trace file written by `uno-sim play --trace`")
    p.add_argument("--game", type=int, default=0, help="game number within the seed's run (default 0)")
    _add_game_options(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("bench", help="measure complete games per second per core",
                       description="Measure complete games per second on one core for each "
                                   "variant and player count (median of several runs), with "
                                   "the machine and the commit.")
    p.add_argument("--variant", default="all",
                   help="variants, comma-separated, or all (default all)")
    p.add_argument("--players", default="2,4,7,10", help="player counts (default 2,4,7,10)")
    p.add_argument("--policy", default="greedy", help="policy spec for every seat (default greedy)")
    p.add_argument("--games", default="20000", help="games per timed run (default 20000)")
    p.add_argument("--repeats", default="5", help="timed runs; the median is shown (default 5)")
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
    p.set_defaults(func=cmd_tournament)

    try:  # `study` and `report` live in the analysis package (docs/studies.md)
        from .analysis.cli import add_commands
    except ImportError:
        pass
    else:
        add_commands(sub, parse_count)

    p = sub.add_parser("completion", help="print a shell completion script",
                       description="Print a bash completion script for uno-sim (zsh: load it "
                                   "after `autoload -U bashcompinit && bashcompinit`).")
    p.add_argument("shell", choices=("bash",), help="the shell (bash)")
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
    if getattr(args, "command", None) == "run" and out:
        return (f"uno-sim: {what}; the finished shards are kept in {out}: "
                f"`uno-sim run --resume {out}` computes the rest")
    return f"uno-sim: {what}"


def main(argv=None) -> int:
    import signal

    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread
        pass
    try:
        if getattr(args, "config", None):
            _apply_config(args, build_parser()._subparsers._group_actions[0].choices[args.command],
                          explicit_dests(parser, argv))
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
        where = f" {exc.filename!r}" if exc.filename else ""
        print(f"uno-sim: error: cannot write or read{where}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _quiet_threads()
        print(_stopped(args, "interrupted"), file=sys.stderr)
        return 130
    except Terminated:
        _quiet_threads()
        print(_stopped(args, "terminated"), file=sys.stderr)
        return 143


def _quiet_threads() -> None:
    """After an interrupt, a worker pool's management thread may still trip over the
    workers it lost (loky raises KeyError there); the one line printed says it all."""
    import threading

    threading.excepthook = lambda args: None


if __name__ == "__main__":
    sys.exit(main())
