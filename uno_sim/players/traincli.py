"""`uno-sim train`: the command line of `uno_sim.players.train` (hooked into uno_sim.cli).

Every field of `train.Recipe` is a flag of its own (`--lr 3e-4`, `--widths 256,128`,
`--opponent greedy` repeatable); `--recipe NAME` starts from a named recipe (`quick`, a
first run, or one the shipped weights were made with) and the flags given override its
fields.
"""

from __future__ import annotations

import dataclasses
import shlex

from ..options import UsageError

EXAMPLES = [
    "uno-sim train --recipe quick --seed 0 --out runs/quick      # 0.3 CPU-min, docs/training.md",
    "uno-sim train --recipe quick --variant flip --players 4 --out runs/quick-flip4",
    "uno-sim train --recipe classic-2p --seed 1 --out runs/classic-2p",
    "uno-sim train --resume runs/classic-2p",
]


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_command(sub) -> None:
    """Adds `uno-sim train` to the CLI's subcommands."""
    from .train import RECIPES, Recipe

    p = sub.add_parser("train", help="train a network player from a seed (docs/training.md)",
                       description="Train a network player, reproducibly from its seed: "
                                   "distil the search players' decisions, then self-play "
                                   "(PPO) against a pool in the vector environment. Writes "
                                   "train.json (recipe, command, strength curve), "
                                   "checkpoint.npz, net.unonet and curve.png to --out; "
                                   "--resume DIR continues a stopped run to the same result. "
                                   "See docs/training.md.")
    p.add_argument("--out", metavar="DIR", help="a new (or empty) folder for the run's files")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR (its recipe)")
    p.add_argument("--labels-from", metavar="DIR",
                   help="take the first round's label shards from the run in DIR instead of "
                        "recording them (its labelling fields must be this recipe's: the "
                        "same shards, checked by their SHA-256, so the same weights)")
    p.add_argument("--recipe", choices=sorted(RECIPES),
                   help="start from a named recipe (quick: a first run of a third of a "
                        "CPU-minute; the others: the shipped weights'); flags override")
    base = Recipe()
    for f in dataclasses.fields(Recipe):
        default = getattr(base, f.name)
        what = f.metadata["help"]
        if f.name in ("opponents", "label_opponents"):
            p.add_argument(_flag(f.name[:-1]), action="append", metavar="SPEC", dest=f.name,
                           help=f"{what} (repeatable; default {', '.join(default)})")
        elif f.name == "rule":
            p.add_argument("--rule", action="append", metavar="KEY=VALUE", dest="rule",
                           help=f"{what} (repeatable; default none)")
        elif f.name == "widths":
            p.add_argument("--widths", metavar="H1,H2",
                           help=f"{what} (default {','.join(map(str, default))})")
        else:
            p.add_argument(_flag(f.name), dest=f.name,
                           metavar={int: "N", float: "X"}.get(type(default), "NAME"),
                           help=f"{what} (default {default})")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_train)
    p.epilog = "examples:\n" + "\n".join(f"  {e}" for e in EXAMPLES)


def _value(name: str, text: str, kind):
    try:
        if kind is int:
            v = float(text)
            if v != int(v):
                raise ValueError
            return int(v)
        if kind is float:
            return float(text)
        return str(text)
    except ValueError:
        raise UsageError(f"invalid {_flag(name)} {text!r}: expected "
                         f"{'a whole number' if kind is int else 'a number'}") from None


def recipe_from(args):
    """The recipe the flags ask for: --recipe's (or the defaults) with the flags given."""
    from .train import RECIPES, Recipe, TrainError

    recipe = RECIPES[args.recipe] if args.recipe else Recipe()
    changes = {}
    for f in dataclasses.fields(Recipe):
        text = getattr(args, f.name, None)
        if text is None:
            continue
        if f.name in ("opponents", "label_opponents", "rule"):
            changes[f.name] = tuple(text)
        elif f.name == "widths":
            try:
                changes[f.name] = tuple(int(w) for w in text.split(","))
            except ValueError:
                raise UsageError(f"invalid --widths {text!r}: expected widths like 256,128") \
                    from None
        else:
            changes[f.name] = _value(f.name, text, type(getattr(recipe, f.name)))
    try:
        return dataclasses.replace(recipe, **changes).checked()
    except TypeError as exc:
        raise TrainError(str(exc)) from None


def _given(args) -> list[str]:
    """The recipe flags given, as they would be typed (for the run's recorded command)."""
    from .train import Recipe

    out = [f"--recipe {args.recipe}"] if args.recipe else []
    for f in dataclasses.fields(Recipe):
        v = getattr(args, f.name, None)
        if v is None:
            continue
        if f.name in ("opponents", "label_opponents", "rule"):
            flag = _flag(f.name) if f.name == "rule" else _flag(f.name[:-1])
            out += [f"{flag} {shlex.quote(s)}" for s in v]
        else:
            out.append(f"{_flag(f.name)} {shlex.quote(str(v))}")
    return out


def cmd_train(args) -> int:
    """`uno-sim train`: a new run (--out) or a resumed one (--resume)."""
    from .train import train

    if args.resume:
        bad = _given(args) + (["--out"] if args.out else []) + \
            (["--labels-from"] if args.labels_from else [])
        if bad:
            raise UsageError(f"--resume takes the recipe written in {args.resume!r}: no "
                             f"other flag ({bad[0].split()[0]})")
        state = train(resume=args.resume, progress=False if args.quiet else None)
        out = args.resume
    else:
        if not args.out:
            raise UsageError("uno-sim train needs --out DIR (or --resume DIR)")
        recipe = recipe_from(args)
        command = " ".join(["uno-sim train"] + _given(args) + [f"--out {shlex.quote(args.out)}"])
        state = train(recipe, args.out, progress=False if args.quiet else None,
                      command=command, labels_from=args.labels_from)
        out = args.out
    last = state.curve[-1] if state.curve else None
    print(f"trained {state.iteration} iterations, {state.steps:,} decisions, "
          f"{state.cpu_seconds / 60:.1f} CPU-min; weights in {out}/net.unonet")
    if last:
        print(f"vs greedy (one seat, {last['deals']} paired deals, seats rotated): "
              f"{last['share']:.3f} [{last['low']:.3f}, {last['high']:.3f}]")
    for line in cut_lines(state):
        print(line)
    return 0


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def cut_lines(state) -> list[str]:
    """What the run cut at the engine's safety limits, one line per stage that cut any (a
    network can stall a game: the game ends there, without a winner, and the run goes
    on)."""
    out = []
    points = [p for p in state.curve if p.get("cut")]
    if points:
        games = sum(p["cut"] for p in points)
        out.append(f"curve: {_games(games)} cut at the engine's safety limits (no winner, "
                   f"scored 0) at {len(points)} of {len(state.curve)} points "
                   f"(train.json, curve[].cut)")
    games = sum(s.get("games_cut", 0) for s in state.stats)
    if games:
        out.append(f"self-play: {_games(games)} cut at the engine's safety limits (truncated, "
                   f"reward 0; train.json, stats[].games_cut)")
    games = sum(s.get("cut", 0) for s in state.labels)
    if games:
        out.append(f"labels: {_games(games)} cut at the engine's safety limits (no rows; "
                   f"train.json, labels[].cut)")
    return out
