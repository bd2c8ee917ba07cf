"""Training a network player from a seed (docs/training.md): `uno-sim train`.

The recipe, in two stages, every knob a field of `Recipe`:

1. Distillation (expert iteration): seeded games are played with a search player at the
   labelling seats and every decision with more than one legal answer is recorded by the
   engine's decision recorder (the observation, the legal actions, the search's answer and
   its per-answer values, and the game's outcome for the seat); the network's policy head
   is fitted to the search's answers, its value head to the outcomes (logistic loss: the
   value is the logit of P(win the game)).  Later rounds label with the search using the
   network, and fit again.
2. Self-play against a pool: proximal policy optimisation (PPO, Schulman et al. 2017)
   with generalised advantage estimation in the C vector environment
   (`uno_sim.vecenv.UnoVectorEnv`), the learning seat against the pool's policies (built-in
   ones, and snapshots of the network played by the C network player).  A step is one
   decision of the learning seat.

Determinism.  A seed fixes every result.  Every source of randomness is drawn from
``SeedSequence([seed, stage, k, ...])`` (numpy Generators) or is the engine's seeded games,
so a step depends only on the state the previous one left: the network's arrays, the
optimiser's state and, in self-play, the games in flight.  A label shard is kept (its
SHA-256 in train.json) as soon as it is recorded; the self-play games restart from new runs
every `segment` iterations, and a checkpoint (the arrays and the optimiser's state,
exactly) is written there.  A run stopped and resumed from its last checkpoint ends with
the very bits of one that was not; a stop loses at most the shard or segment in progress.
The matrix products run on one BLAS thread (threadpoolctl), the same machine and build
giving the same bits; another CPU or BLAS build may round differently (docs/training.md).

Files (the folder `out`): ``train.json`` (the run's id, the recipe, the command, the
curve, the CPU time, the shards and snapshots with their digests), ``checkpoint.npz`` (the
arrays and the optimiser's state, no pickled objects; the run's id, recipe and command,
which a resume checks against train.json's), each replaced by renaming a complete file
into place; ``labels-R-I.npz`` (shard I of round R), ``round-R.unonet`` (the network that
labels round R) and ``pool-K.unonet`` (the snapshot of iteration K in the pool); at the end
``net.unonet`` (the weight file) and ``curve.png``.  A folder that holds anything else is
refused before any work; `resume` reads only what this module wrote.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import shlex
import shutil
import tempfile
import time
import zipfile
from dataclasses import dataclass, field

import numpy as np

from ..rules import Rules, RulesError, parse_rule_switches
from .model import Adam, Net, input_columns
from .selfplay import Pool, selfplay_iteration

KIND = "uno-sim train"
FORMAT = 1
TRAIN_FILES = ("train.json", "checkpoint.npz", "net.unonet", "curve.png")
# the pool's snapshots, the networks of expert iteration's rounds, the label shards
SNAPSHOT = re.compile(r"(pool|round)-[0-9]{1,9}\.unonet|labels-[0-9]{1,4}-[0-9]{1,6}\.npz")
TMP_PREFIX = ".train-tmp-"
JSON_MAX_BYTES = 16 * 2**20
CHECKPOINT_MAX_BYTES = 2**30
EVAL_SEED = 9_000_000_000  # the curve's deals: runs EVAL_SEED + d, never trained on
MAX_ENVS = 2**20  # the vector env's most games (uno_sim.vecenv)
# Lower bounds for the memory check (`memory_needs`): a labelled game records 107 to 346
# decisions of its labelling seat in the shipped recipes (docs/training.md), an observation
# of classic at two players about 36 non-zero entries; a game of the curve keeps its
# columns (about 100 bytes) until its point is summed.
LABEL_ROWS_PER_GAME = 50
LABEL_NONZERO_PER_ROW = 20
EVAL_BYTES_PER_GAME = 64


class TrainError(RulesError):
    """A training run that cannot start or resume as asked (one line, exit 2 in the CLI)."""


TUPLES = ("widths", "opponents", "label_opponents", "rule")  # the recipe's list fields
# Fields added after runs were written, with the default that leaves them out of the JSON
LATER = {"label_play": "", "rule": (), "value_target": "game"}
VALUE_TARGETS = ("game", "search")  # what the value head is fitted to (distil.fit)
# Rule switches a recipe's `rule` may not set, and why: the recipe's own fields, and a deck
# read from a file the run would depend on
NOT_A_RULE = {"variant": "variant is not a rule switch of a recipe (--variant is)",
              "players": "players is not a rule switch of a recipe (--players is)",
              "deck": "deck is not a rule switch of a recipe"}


@dataclass(frozen=True)
class Recipe:
    """Every knob of a training run; the run is a function of the recipe alone."""

    variant: str = field(default="classic", metadata={"help": "the variant"})
    players: int = field(default=2, metadata={"help": "players at the table"})
    rule: tuple = field(default=(), metadata={
        "help": "rule switches of the games trained on, KEY=VALUE (uno-sim rules lists "
                "them): a network for a house rule learns its decisions"})
    seed: int = field(default=0, metadata={"help": "the seed: fixes every result"})
    widths: tuple = field(default=(256, 128), metadata={"help": "hidden layer widths"})
    # distillation (expert iteration)
    label_games: int = field(default=0, metadata={
        "help": "games whose labelling seat's decisions are recorded, per round (0: no "
                "distillation)"})
    label_rounds: int = field(default=1, metadata={"help": "rounds of expert iteration"})
    label_shard: int = field(default=32, metadata={
        "help": "games per label shard (the unit a resume keeps)"})
    label_policy: str = field(default="pimc", metadata={
        "help": "the labelling seat's policy (a search player, or any policy to imitate)"})
    label_next: str = field(default="", metadata={
        "help": "the labelling policy of the later rounds, {net} standing for the network's "
                "weight file (empty: label_policy)"})
    label_play: str = field(default="", metadata={
        "help": "the later rounds' played policy, {net} standing for the network's weight "
                "file: the labelling seat plays its answers, the labelling policy's are "
                "recorded (DAgger; empty: the labelling policy plays)"})
    label_opponents: tuple = field(default=("greedy", "strategic"), metadata={
        "help": "the other seats' policies in the labelled games, in turn"})
    distil_epochs: int = field(default=3, metadata={"help": "passes over the labels"})
    distil_lr: float = field(default=1e-3, metadata={"help": "Adam's step size when fitting"})
    distil_temp: float = field(default=0.0, metadata={
        "help": "0: fit the search's answer; above 0: the softmax of its per-answer values "
                "over this temperature"})
    challenge_break_even: float = field(default=0.0, metadata={
        "help": "0: fit the labelling policy's challenges; in (0, 1): fit the truth the "
                "recorder knows (was the card a bluff), weighted so that the network "
                "challenges when its P(bluff) exceeds this"})
    value_target: str = field(default="game", metadata={
        "help": "what the value head is fitted to: game (the labelled game's outcome) or "
                "search (the search's value of the answer it took: a value that ranks a "
                "state's answers, for a search's leaf, docs/policies.md)"})
    # self-play (PPO)
    iterations: int = field(default=200, metadata={"help": "PPO iterations"})
    round_reward: float = field(default=1.0, metadata={
        "help": "the policy's reward per round won (and minus it per round lost)"})
    game_reward: float = field(default=1.0, metadata={
        "help": "the policy's reward for the game won (and minus it for a game lost)"})
    envs: int = field(default=128, metadata={"help": "games stepped together"})
    steps: int = field(default=64, metadata={
        "help": "decisions of the learning seat per game and iteration"})
    segment: int = field(default=8, metadata={
        "help": "iterations between fresh games, where checkpoints are written"})
    epochs: int = field(default=3, metadata={"help": "passes over an iteration's decisions"})
    minibatch: int = field(default=2048, metadata={"help": "decisions per Adam step"})
    lr: float = field(default=3e-4, metadata={"help": "Adam's step size at the start"})
    lr_end: float = field(default=3e-5, metadata={
        "help": "Adam's step size at the end (linear decay)"})
    clip: float = field(default=0.2, metadata={"help": "PPO's ratio clip"})
    lam: float = field(default=0.95, metadata={"help": "GAE's lambda (gamma is 1)"})
    entropy: float = field(default=0.01, metadata={"help": "the entropy bonus' weight"})
    value_coef: float = field(default=1.0, metadata={"help": "the value loss' weight"})
    return_coef: float = field(default=0.25, metadata={
        "help": "the weight of the return head's loss (the policy's baseline)"})
    grad_clip: float = field(default=1.0, metadata={
        "help": "the most global gradient norm of a step"})
    opponents: tuple = field(default=("greedy", "strategic"), metadata={
        "help": "the pool's policies, the games shared evenly"})
    pool_every: int = field(default=0, metadata={
        "help": "iterations between snapshots of the network that join the pool (0: none; "
                "a multiple of segment)"})
    pool_size: int = field(default=2, metadata={"help": "the latest snapshots in the pool"})
    # the strength curve: paired deals against greedy, every eval_every iterations
    eval_every: int = field(default=20, metadata={
        "help": "iterations between the curve's points (0: none)"})
    eval_deals: int = field(default=200, metadata={
        "help": "paired deals against greedy per point of the curve"})

    def rules(self) -> Rules:
        """The rules of the games trained on."""
        return Rules(variant=self.variant, players=self.players, **self.switches())

    def switches(self) -> dict:
        """The `rule` switches as {key: value}; RulesError naming a malformed, repeated or
        refused one."""
        return parse_rule_switches(self.rule, "rule", NOT_A_RULE)

    def to_dict(self) -> dict:
        """The recipe as JSON-able fields (train.json, the weight file's metadata); a field
        added after runs were written (`LATER`) is left out at its default, so that those
        runs keep their id (`run_id`) and resume."""
        d = dataclasses.asdict(self)
        for k in TUPLES:
            d[k] = list(d[k])
        for k, default in LATER.items():
            if d[k] == (list(default) if isinstance(default, tuple) else default):
                del d[k]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Recipe":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise TrainError(f"invalid recipe: unknown field {unknown[0]!r}")
        d = dict(d)
        for k in TUPLES:
            if k in d:
                d[k] = tuple(d[k])
        return cls(**d).checked()

    def checked(self) -> "Recipe":
        """The recipe, or TrainError naming its first bad value."""
        try:
            self.rules()
        except RulesError as exc:
            raise TrainError(str(exc)) from None
        for name in ("iterations", "envs", "steps", "segment", "epochs", "minibatch",
                     "eval_every", "eval_deals", "pool_every", "pool_size", "label_games",
                     "label_rounds", "label_shard", "distil_epochs"):
            v = getattr(self, name)
            low = 0 if name in ("iterations", "eval_every", "pool_every", "pool_size",
                                "label_games") else 2 if name == "eval_deals" else 1
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= 10**9:
                raise TrainError(f"invalid {name} {v!r}: expected a whole number {low}..10^9")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise TrainError(f"invalid seed {self.seed!r}: expected a non-negative integer")
        for name in ("lr", "lr_end", "clip", "lam", "entropy", "value_coef", "return_coef",
                     "grad_clip", "round_reward", "game_reward", "distil_lr", "distil_temp",
                     "challenge_break_even"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 10:
                raise TrainError(f"invalid {name} {v!r}: expected a number 0..10")
        if not 1 <= len(self.widths) <= 4 or not all(
                isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= 1024
                for w in self.widths):
            raise TrainError(f"invalid widths {list(self.widths)}: 1 to 4 layers of 1..1024")
        if self.envs > MAX_ENVS:
            raise TrainError(f"invalid envs {self.envs}: at most {MAX_ENVS} (the vector "
                             f"env's most games)")
        if self.pool_every % self.segment:
            raise TrainError(f"invalid pool_every {self.pool_every}: a multiple of segment "
                             f"({self.segment}), where the games restart")
        if not self.opponents or len(self.opponents) > self.envs:
            raise TrainError(f"invalid opponents {list(self.opponents)}: 1 to envs specs")
        from .specs import parse_policy

        for spec in self.opponents + self.label_opponents + (self.label_policy,):
            parse_policy(spec)  # RulesError naming a bad spec
        if self.label_next:
            parse_policy(self.label_next.replace("{net}", "x.unonet"))
        if self.label_play:
            from .record import playable

            playable(self.label_play.replace("{net}", "x.unonet"), "label_play")
        if self.label_play and self.label_rounds < 2:
            raise TrainError(f"invalid label_play {self.label_play!r}: it plays the rounds "
                             f"after the first (label_rounds is {self.label_rounds})")
        if not self.label_opponents:
            raise TrainError("invalid label_opponents: at least one policy")
        if self.value_target not in VALUE_TARGETS:
            raise TrainError(f"invalid value_target {self.value_target!r}: expected "
                             f"{' or '.join(VALUE_TARGETS)}")
        return self


# The named recipes (`uno-sim train --recipe NAME`): a first run's, and those of the
# shipped weights (uno_sim/players/weights/, docs/training.md).

# Flip takes twice the labels: on the learning curve's deals, 0.860 at 9,600 games and 0.917
# at 19,200 at two players, 0.280 and 0.344 at four (docs/training.md, "How the recipe was
# chosen"); classic at two players four times, for the head-to-head against ismcts (0.388
# at 9,600 games, 0.405 at 19,200, 0.445 at 38,400 on the curve's deals; docs/training.md,
# "Head to head"), which against greedy alone it would not need
_LABEL_GAMES = {("flip", 2): 19200, ("flip", 4): 19200, ("classic", 2): 38400}


def _shipped(variant: str, players: int) -> Recipe:
    """The recipe of the shipped weights (docs/training.md, "How the recipe was chosen"):
    9,600 games of ismcts' labels (`_LABEL_GAMES` where it says otherwise) against greedy,
    strategic and a greedy that bluffs half the time it can, in turn; the policy fitted to
    the softmax of the search's per-answer values at temperature 0.001 (nearly the answer
    of highest value, its runners-up kept where they are as good), the challenge to the
    truth at a break-even of 0.3; no self-play."""
    return Recipe(variant=variant, players=players,
                  label_games=_LABEL_GAMES.get((variant, players), 9600), label_shard=50,
                  label_policy="ismcts",
                  label_opponents=("greedy", "strategic", "greedy(bluff=0.5)"),
                  challenge_break_even=0.3, distil_temp=0.001, distil_epochs=10,
                  minibatch=512, iterations=0, eval_every=25, eval_deals=300)


RECIPES = {
    # a first run: distil strategic's answers (labels cost next to nothing) in a third of
    # a CPU-minute; wins every game against random and about half against greedy
    "quick": Recipe(variant="classic", players=2, widths=(128, 128), label_games=1000,
                    label_shard=100, label_policy="strategic",
                    label_opponents=("greedy", "strategic", "random"), distil_epochs=8,
                    minibatch=512, iterations=0),
    **{f"{v}-{k}p": _shipped(v, k) for v in ("classic", "flip") for k in (2, 4)},
}


# --- the trainer's state ---------------------------------------------------------------

@dataclass
class State:
    """What a checkpoint holds: the network, the optimiser, the progress and the curve."""

    recipe: Recipe
    net: Net
    opt: Adam
    iteration: int = 0  # self-play iterations done
    steps: int = 0  # decisions of the learning seat trained on
    cpu_seconds: float = 0.0  # process CPU time spent, over every resume
    curve: list = field(default_factory=list)  # {"iteration", "steps", "cpu_seconds", share...}
    stats: list = field(default_factory=list)  # per iteration: losses, rewards
    pool: list = field(default_factory=list)  # snapshots: {"iteration", "checksum"}
    labels: list = field(default_factory=list)  # shards: {"round", "index", "sha256", "rows"}
    distilled: list = field(default_factory=list)  # per round fitted: its fit's figures


def new_state(recipe: Recipe) -> State:
    """The state before any training: the network initialised from the seed, Adam at 0."""
    rules = recipe.rules()
    obs_size, n_actions = layout_sizes(rules)
    rng = np.random.default_rng(np.random.SeedSequence([recipe.seed, 0]))
    net = Net(obs_size, n_actions, recipe.widths, rng, aux=1)  # aux: the return head
    return State(recipe, net, Adam(net.arrays, lr=recipe.lr))


def layout_sizes(rules: Rules) -> tuple[int, int]:
    """(the network's input size, its number of actions) for these rules: the observation
    of the game's own seats (`model.input_columns`) and the action ids of the vector env
    that a game of these players can use (K + 7 + players: the card kinds, draw, yes, no,
    four colors, a target per seat; docs/env.md "Actions")."""
    from ..vecenv import SEATS, UnoVectorEnv

    env = UnoVectorEnv(1, rules=rules, opponents="random")
    sizes = (len(input_columns(env.observation_layout, SEATS, rules.players)),
             len(env.card_codes) + 7 + rules.players)
    env.close()
    return sizes


def memory_needs(recipe: Recipe) -> list[tuple[int, str]]:
    """(bytes, what) per stage of the recipe: a lower bound of the memory the stage holds at
    once (its largest arrays alone), `what` naming the fields that size it."""
    from .. import _engine

    r = recipe
    n_in, n_act = layout_sizes(r.rules())
    needs = []
    if r.iterations:
        # per decision: the input (float32), the mask, action, log-probability, the two
        # values, reward, done, round result, cut; per game the C core
        per = 4 * n_in + n_act + 8 + 4 + 8 + 4 + 1 + 4 + 1
        env = _engine.venv_bytes(1) - _engine.venv_bytes(0) + 4 * n_in + n_act
        needs.append((r.steps * r.envs * per + r.envs * env,
                      f"steps {r.steps} x envs {r.envs} (the self-play rollout)"))
    if r.label_games:
        # a shard's rows as the recorder returns them: the observation dense (float32),
        # the mask (int8), the values (float32) and counts (int32) per action
        row = 4 * n_in + 9 * n_act + 24
        needs.append((r.label_shard * LABEL_ROWS_PER_GAME * row,
                      f"label_shard {r.label_shard} (a shard's recorded decisions)"))
        # every round's labels for the fit: the observations sparse, the mask (int8) and the
        # search's values (float16) per action
        row = 6 * LABEL_NONZERO_PER_ROW + 3 * n_act + 16
        rounds = f" x label_rounds {r.label_rounds}" if r.label_rounds > 1 else ""
        needs.append((r.label_games * r.label_rounds * LABEL_ROWS_PER_GAME * row,
                      f"label_games {r.label_games}{rounds} (the labels the fit holds)"))
    if r.eval_every:
        needs.append((r.eval_deals * EVAL_BYTES_PER_GAME,
                      f"eval_deals {r.eval_deals} (a point of the curve)"))
    return needs


def machine_memory() -> int | None:
    """The machine's physical memory in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(recipe: Recipe, available: int | None = None) -> None:
    """TrainError, before any work, when a stage of the recipe needs more memory than the
    machine has (`available`: its physical memory): one line naming the fields."""
    available = machine_memory() if available is None else available
    if not available:
        return
    need, what = max(memory_needs(recipe), default=(0, ""))
    if need > available:
        raise TrainError(f"cannot train: {what} needs at least {_size(need)} of memory, this "
                         f"machine has {_size(available)}")


def _size(n: int) -> str:
    """Bytes in words: "9.69 TiB"."""
    for unit, scale in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 2**10:.3g} KiB"


@contextlib.contextmanager
def one_blas_thread():
    """BLAS on one thread while training: the same bits at every run of this machine."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _need(module: str) -> None:
    """TrainError when a module of the train extra is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise TrainError(f"uno-sim train needs {module}: pip install 'uno-sim[train]'")


# --- evaluation ------------------------------------------------------------------------

def evaluate(state: State) -> dict:
    """The curve's point now: the network, played by the C player, against greedy on the
    curve's paired deals (games 0 .. eval_deals - 1 of run EVAL_SEED, one seat each in
    turn: `strength.spec_share`).  A game the network stalls is cut at the engine's safety
    limits, scored 0 and counted in the point's `cut`: the curve goes on."""
    from . import netfile
    from .strength import spec_share

    r = state.recipe
    with tempfile.TemporaryDirectory(prefix="uno-train-") as tmp:  # a path a spec can hold
        path = os.path.join(tmp, f"eval-{state.iteration}.unonet")
        netfile.write(path, to_netfile(state.net, r.rules(), {"evaluation": state.iteration}))
        s = spec_share(f"net(weights={path})", r.rules(), r.eval_deals, EVAL_SEED)
    return {"iteration": state.iteration, "steps": state.steps,
            "cpu_seconds": state.cpu_seconds, **s.to_dict()}


def point_text(point: dict) -> str:
    """A curve's point in a message: "vs greedy 0.412", and its games cut when any."""
    from .strength import cut_text

    text = f"vs greedy {point['share']:.3f}"
    if point.get("cut"):
        text += f" ({cut_text(point['cut'], point['deals'] * point['players'])})"
    return text


# --- files -----------------------------------------------------------------------------

def check_out(out: str, resume: bool = False) -> None:
    """Refuse an output folder that is a file, or (a new run) that is not empty, or (a
    resume) that holds no training run of this module; before any work."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise TrainError(f"cannot write {out!r}: it is a file, not a directory")
    entries = sorted(os.listdir(out)) if os.path.isdir(out) else []
    if resume:
        if "train.json" not in entries or "checkpoint.npz" not in entries:
            raise TrainError(f"cannot resume {out!r}: no train.json and checkpoint.npz of "
                             f"uno-sim train in it")
    elif entries:
        raise TrainError(f"--out {out!r} is not empty (it has {entries[0]!r}); use a new or "
                         f"empty directory, or --resume to continue a run")
    foreign = [e for e in entries if e not in TRAIN_FILES and not e.startswith(TMP_PREFIX)
               and not SNAPSHOT.fullmatch(e)]
    if foreign:
        raise TrainError(f"cannot resume {out!r}: it holds {foreign[0]!r}, which uno-sim "
                         f"train did not write")
    if os.path.isdir(out) and not os.access(out, os.W_OK):
        raise TrainError(f"cannot write {out!r}: permission denied")


def _replace(out: str, name: str, write) -> None:
    from ..files import writing

    tmp = os.path.join(out, f"{TMP_PREFIX}{os.getpid()}-{name}")
    with writing(os.path.join(out, name)):
        write(tmp)
        os.replace(tmp, os.path.join(out, name))


def canonical(recipe: Recipe) -> str:
    """The recipe's canonical JSON (sorted keys, no spaces): what a run id digests."""
    return json.dumps(recipe.to_dict(), sort_keys=True, separators=(",", ":"))


def run_id(recipe: Recipe, command: str) -> str:
    """The run's id: the first 16 hex digits of the SHA-256 of its recipe and command (as
    the runner's manifest id): two runs share it only when they are the same run, the same
    bits.  train.json and checkpoint.npz both hold it, the checkpoint with the recipe and
    the command themselves, and a resume checks them against each other (`load`)."""
    body = json.dumps({"recipe": json.loads(canonical(recipe)), "command": command},
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


def save(state: State, out: str, command: str) -> None:
    """checkpoint.npz then train.json, each complete before it replaces the former one;
    train.json names the iteration the checkpoint holds, and is checked against it; both
    name the run (`run_id`)."""
    arrays = {f"net{i}": a for i, a in enumerate(state.net.arrays)}
    arrays.update({f"m{i}": a for i, a in enumerate(state.opt.m)})
    arrays.update({f"v{i}": a for i, a in enumerate(state.opt.v)})
    arrays["progress"] = np.array([state.iteration, state.steps, state.opt.t], np.int64)
    rid = run_id(state.recipe, command)
    # 0-d unicode arrays: read back without pickle
    arrays.update({"run": np.array(rid), "recipe": np.array(canonical(state.recipe)),
                   "command": np.array(command)})

    def npz(path):
        with open(path, "wb") as f:
            np.savez(f, **arrays)

    meta = {"kind": KIND, "format": FORMAT, "run": rid, "command": command,
            "recipe": state.recipe.to_dict(), "iteration": state.iteration,
            "steps": state.steps, "optimizer_steps": state.opt.t,
            "cpu_seconds": state.cpu_seconds, "curve": state.curve, "stats": state.stats,
            "pool": state.pool, "labels": state.labels, "distilled": state.distilled}
    os.makedirs(out, exist_ok=True)
    _replace(out, "checkpoint.npz", npz)
    _replace(out, "train.json", lambda p: _write_text(p, json.dumps(meta, indent=1)))


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")


def load(out: str) -> tuple[State, str]:
    """(the state, the command) of the run in folder `out`; TrainError naming what is wrong."""
    from ..files import read_capped
    from . import netfile

    check_out(out, resume=True)
    path = os.path.join(out, "train.json")
    try:
        meta = json.loads(read_capped(path, JSON_MAX_BYTES))
        if meta.get("kind") != KIND or meta.get("format") != FORMAT:
            raise ValueError("not a run of uno-sim train")
        recipe = Recipe.from_dict(meta["recipe"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TrainError(f"cannot resume {out!r}: {path} is not uno-sim train's ({exc})") \
            from None
    state = new_state(recipe)
    n = len(state.net.arrays)
    path = os.path.join(out, "checkpoint.npz")
    try:
        if os.path.getsize(path) > CHECKPOINT_MAX_BYTES:
            raise ValueError("too large")
        with np.load(path, allow_pickle=False) as z:
            ident = {k: str(z[k][()]) for k in ("run", "recipe", "command") if k in z.files}
            if not _same_run(meta, recipe, ident):  # before any array is taken
                raise _Foreign(ident)
            for group, arrs in (("net", state.net.arrays), ("m", state.opt.m),
                                ("v", state.opt.v)):
                for i in range(n):
                    a = z[f"{group}{i}"]
                    if a.shape != arrs[i].shape or a.dtype != np.float32 or \
                            not np.isfinite(a).all():
                        raise ValueError(f"array {group}{i} is not the recipe's")
                    arrs[i][...] = a
            it, steps, t = (int(v) for v in z["progress"])
    except _Foreign as exc:
        _refuse_foreign(out, meta, recipe, exc.ident)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise TrainError(f"cannot resume {out!r}: {path} is damaged or not this run's "
                         f"({exc})") from None
    if it != meta.get("iteration") or steps != meta.get("steps") or \
            t != meta.get("optimizer_steps"):
        raise TrainError(f"cannot resume {out!r}: checkpoint.npz and train.json disagree "
                         f"(a write was cut short?)")
    state.iteration, state.steps, state.opt.t = it, steps, t
    state.cpu_seconds = float(meta.get("cpu_seconds", 0.0))
    state.curve, state.stats = list(meta.get("curve", [])), list(meta.get("stats", []))
    state.pool = list(meta.get("pool", []))
    state.labels = list(meta.get("labels", []))
    state.distilled = list(meta.get("distilled", []))
    # the networks this run wrote, unchanged (a round labelled by label_policy has none)
    for snap in state.pool + [d for d in state.distilled if "file" in d]:
        name = snap.get("file") or f"pool-{snap['iteration']}.unonet"
        try:
            checksum = netfile.read(os.path.join(out, name)).checksum
        except RulesError as exc:
            raise TrainError(f"cannot resume {out!r}: {exc}") from None
        if checksum != snap["checksum"]:
            raise TrainError(f"cannot resume {out!r}: {name} is not the snapshot this run "
                             f"wrote (its checksum differs)")
    return state, str(meta.get("command", ""))


class _Foreign(Exception):
    """A checkpoint whose run is not train.json's (raised and caught in `load`)."""

    def __init__(self, ident: dict):
        super().__init__()
        self.ident = ident


def _same_run(meta: dict, recipe: Recipe, ident: dict) -> bool:
    """Whether train.json (`meta`, its `recipe`) and the checkpoint (`ident`: its run id,
    recipe and command) are one run's: train.json's run id is the digest of its recipe and
    command (neither was edited), and the checkpoint holds that id, recipe and command.  A
    run written before run ids (neither file holds one) is taken as it is."""
    if "run" not in meta and not ident:
        return True
    command = str(meta.get("command", ""))
    return meta.get("run") == run_id(recipe, command) == ident.get("run") and \
        ident.get("recipe") == canonical(recipe) and ident.get("command") == command


def _refuse_foreign(out: str, meta: dict, recipe: Recipe, ident: dict):
    """The TrainError of a checkpoint and a train.json that are not one run's (`_same_run`):
    train.json changed since the run wrote it, or a checkpoint of another run."""
    command = str(meta.get("command", ""))
    differs = _difference(json.loads(ident["recipe"]), recipe.to_dict()) \
        if "recipe" in ident else None
    if "run" in meta and meta["run"] != run_id(recipe, command):
        why = f"its {differs[0]} is {differs[2]!r}, the checkpoint's {differs[1]!r}" \
            if differs else "its recipe or command is not the one the run was started with"
        raise TrainError(f"cannot resume {out!r}: train.json was changed after the run wrote "
                         f"it ({why}); a run resumes only with its own recipe") from None
    why = f"its {differs[0]} is {differs[1]!r}, train.json's {differs[2]!r}" if differs \
        else f"run {ident.get('run', 'unnamed')}, train.json's is {meta.get('run', 'unnamed')}"
    raise TrainError(f"cannot resume {out!r}: checkpoint.npz belongs to another run "
                     f"({why})") from None


def _difference(was: dict, now: dict):
    """(the first field, its value in `was`, in `now`) of two recipes, or None."""
    for k in sorted(set(was) | set(now)):
        if was.get(k) != now.get(k):
            return k, was.get(k), now.get(k)
    return None


# --- the run ---------------------------------------------------------------------------

def command_line(recipe: Recipe, out: str = "DIR") -> str:
    """The `uno-sim train` command that makes this recipe (its fields that differ from the
    defaults)."""
    base = Recipe()
    parts = ["uno-sim train"]
    for f in dataclasses.fields(Recipe):
        v = getattr(recipe, f.name)
        if v == getattr(base, f.name):
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.name in ("opponents", "label_opponents", "rule"):
            parts += [f"{flag if f.name == 'rule' else flag[:-1]} {shlex.quote(s)}" for s in v]
            continue
        text = ",".join(map(str, v)) if isinstance(v, tuple) else str(v)
        parts.append(f"{flag} {shlex.quote(text)}")
    return " ".join(parts + [f"--out {out}"])


# The fields a label shard of round 0 is a function of (with its index): distil.shard_setup
# and distil.label_shard read no other.
LABEL_FIELDS = ("variant", "players", "rule", "seed", "label_shard", "label_policy",
                "label_opponents")


def reuse_labels(state: State, out: str, source: str, command: str) -> int:
    """Copy into `out` the first-round label shards that the run in `source` recorded and
    this run would record (the same labelling fields, an index this run uses), each checked
    against the SHA-256 `source` recorded; returns how many.  A shard is a function of
    LABEL_FIELDS and its index, so the run ends with the bits it would have had recording
    them itself (tests/test_train.py checks it)."""
    from . import distil

    src, _ = load(source)
    r, s = state.recipe, src.recipe
    differ = [f for f in LABEL_FIELDS if getattr(r, f) != getattr(s, f)]
    if differ:
        raise TrainError(f"invalid --labels-from {source!r}: its {differ[0]} "
                         f"{getattr(s, differ[0])!r} is not this recipe's "
                         f"{getattr(r, differ[0])!r} (its labels are other games)")
    n = -(-r.label_games // r.label_shard) if r.label_games else 0
    have = {e["index"] for e in state.labels if e["round"] == 0}
    taken = 0
    for e in sorted(src.labels, key=lambda e: (e["round"], e["index"])):
        if e["round"] != 0 or e["index"] >= n or e["index"] in have:
            continue
        name = f"labels-0-{e['index']}.npz"
        try:
            data = distil.shard_data(os.path.join(source, name), e["sha256"])
        except (OSError, ValueError) as exc:
            raise TrainError(f"cannot use the labels in {source!r}: {exc}") from None
        if not distil.current_layout(data):  # a shard of an older layout: record anew
            continue
        _replace(out, name, lambda p: _write_bytes(p, data))
        entry = {"round": 0, "index": e["index"], "sha256": e["sha256"], "rows": e["rows"]}
        if e.get("cut"):  # the source's games cut at the safety limits: counted here too
            entry["cut"] = e["cut"]
        state.labels.append(entry)
        taken += 1
    save(state, out, command)
    return taken


def train(recipe: Recipe | None = None, out: str | None = None, resume: str | None = None,
          progress: bool | None = None, command: str | None = None,
          on_iteration=None, labels_from: str | None = None) -> State:
    """Run (or with `resume`, continue) a training run; returns the final state.

    `out`: the new folder of the run's files; `resume`: the folder of a run to continue
    (its recipe is the one written there); `labels_from`: a run whose first-round label
    shards this new run takes instead of recording them (`reuse_labels`: the same bits).
    A KeyboardInterrupt or SIGTERM leaves the last finished iteration's checkpoint in the
    folder and propagates.
    """
    from ..progress import bar

    for module in ("gymnasium", "threadpoolctl"):
        _need(module)
    if resume is not None:
        state, command = load(resume)
        check_memory(state.recipe)
        out = resume
    else:
        if recipe is None or out is None:
            raise TrainError("train needs a recipe and an output folder (or resume)")
        recipe = recipe.checked()
        check_memory(recipe)
        check_out(out)
        state = new_state(recipe)
        command = command or command_line(recipe, out)
        os.makedirs(out, exist_ok=True)
        save(state, out, command)
        if labels_from is not None:
            reuse_labels(state, out, labels_from, command)
    r = state.recipe
    with one_blas_thread(), bar(r.iterations, "training", unit=" iterations",
                                enabled=progress) as b:
        b.update(state.iteration)
        pool = None
        tmp = tempfile.TemporaryDirectory(prefix="uno-train-")  # the snapshots' copies
        try:
            if not state.curve and r.eval_every:
                state.curve.append(_timed(state, evaluate))
                save(state, out, command)
            for rnd in range(len(state.distilled), r.label_rounds if r.label_games else 0):
                distil_round(state, rnd, out, command, tmp.name, progress)
            while state.iteration < r.iterations:
                members = _pool_members(state, out, tmp.name)
                if pool is None or pool.members != members:
                    if pool is not None:
                        pool.close()
                    pool = Pool(r, members)
                stats = _timed(state, selfplay_iteration, pool)
                state.stats.append(_rounded(stats))
                if r.eval_every and (state.iteration % r.eval_every == 0
                                     or state.iteration == r.iterations):
                    state.curve.append(_timed(state, evaluate))
                    b.set_postfix_str(point_text(state.curve[-1]))
                if state.iteration % r.segment == 0 or state.iteration == r.iterations:
                    save(state, out, command)  # games restart here: a resume starts here
                b.update(1)
                if on_iteration is not None:
                    on_iteration(state)
        finally:
            if pool is not None:
                pool.close()
            tmp.cleanup()
    finish(state, out, command)
    return state


def distil_round(state: State, rnd: int, out: str, command: str, tmp: str,
                 progress) -> None:
    """Round `rnd` of expert iteration: the label shards not yet recorded (each kept and
    checkpointed as it is done), then the fit on every round's labels so far."""
    from ..progress import bar
    from . import distil, netfile

    r = state.recipe
    label, play = r.label_policy, ""
    if rnd and (r.label_next or r.label_play):  # the network as it stands, read or played
        name = f"round-{rnd}.unonet"
        path = os.path.join(tmp, name)
        if not os.path.exists(path):
            nf = to_netfile(state.net, r.rules(), {"round": rnd, "command": command})
            netfile.write(path, nf)
            shutil.copyfile(path, os.path.join(out, name))
        label = (r.label_next or r.label_policy).replace("{net}", path)
        play = r.label_play.replace("{net}", path)
    n = -(-r.label_games // r.label_shard)
    done = {s["index"] for s in state.labels if s["round"] == rnd}
    with bar(n, f"labels, round {rnd + 1}", unit=" shards", enabled=progress) as b:
        b.update(len(done))
        for index in range(n):
            if index in done:
                continue
            shard = _timed(state, lambda st: distil.label_shard(r, rnd, index, label,
                                                                play=play))
            data = distil.shard_bytes(shard)
            _replace(out, f"labels-{rnd}-{index}.npz", lambda p: _write_bytes(p, data))
            entry = {"round": rnd, "index": index, "sha256": distil.digest(data),
                     "rows": int(len(shard["action"]))}
            if shard["cut"]:  # games the engine's safety limits stopped: no rows
                entry["cut"] = shard["cut"]
            state.labels.append(entry)
            save(state, out, command)
            b.update(1)
    shards = []
    for s in state.labels:
        if s["round"] <= rnd:
            try:
                shards.append(distil.read_shard(
                    os.path.join(out, f"labels-{s['round']}-{s['index']}.npz"), s["sha256"]))
            except (OSError, ValueError) as exc:
                raise TrainError(f"cannot use the labels in {out!r}: {exc}") from None
    stats = _timed(state, distil.fit, distil.concat(shards), rnd)
    entry = {**_rounded(stats), "cpu_seconds": round(state.cpu_seconds, 1)}
    if rnd and (r.label_next or r.label_play):
        entry.update({"file": f"round-{rnd}.unonet",
                      "checksum": netfile.read(os.path.join(out, f"round-{rnd}.unonet"))
                      .checksum})
    state.distilled.append(entry)
    if r.eval_every:
        state.curve.append(_timed(state, evaluate))
    save(state, out, command)


def _write_bytes(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def _pool_members(state: State, out: str, tmp: str) -> list[str]:
    """The specs of the network's snapshots in the pool now, after writing the snapshot of
    this iteration when one is due (`pool_every`): `net(weights=...)` on copies in `tmp`
    (a path a spec can hold, whatever the run's folder is called)."""
    from . import netfile

    r, k = state.recipe, state.iteration
    if r.pool_every and k and k % r.pool_every == 0 and \
            not any(s["iteration"] == k for s in state.pool):
        nf = to_netfile(state.net, r.rules(), {"snapshot": k, "command": "uno-sim train"})
        _replace(out, f"pool-{k}.unonet", lambda p: netfile.write(p, nf))
        state.pool.append({"iteration": k, "checksum": nf.checksum})
    specs = []
    for snap in state.pool[-r.pool_size:] if r.pool_size else []:
        name = f"pool-{snap['iteration']}.unonet"
        copy = os.path.join(tmp, name)
        if not os.path.exists(copy):
            shutil.copyfile(os.path.join(out, name), copy)
        specs.append(f"net(weights={copy})")
    return specs


def _timed(state: State, fn, *args):
    t0 = time.process_time()
    out = fn(state, *args)
    state.cpu_seconds += time.process_time() - t0
    return out


def _rounded(d: dict) -> dict:
    return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in d.items()}


def finish(state: State, out: str, command: str) -> None:
    """The run's weight file and its strength-over-training figure."""
    _replace(out, "net.unonet", lambda p: write_weights(state, p, command))
    if state.curve:
        try:
            _replace(out, "curve.png", lambda p: plot_curve(state, p))
        except ImportError:  # matplotlib (the analysis extra) absent: the JSON holds it
            pass


# Fields of the run that vary from one run of a recipe to another (time spent, where the
# files went): train.json keeps them, the weight file does not, so that its bytes are a
# function of the recipe alone (docs/training.md "Reproducible from the seed").
RUN_VARYING = ("cpu_seconds",)


def metadata(state: State, command: str) -> dict:
    """The weight file's metadata: what made it and how strong it was when made, every
    field a function of the recipe (the command's output folder written DIR, no CPU time),
    so that a run stopped and resumed writes the very bytes of one never stopped."""
    r = state.recipe
    rules = r.rules()
    last = state.curve[-1] if state.curve else None
    if last is not None:
        last = {k: v for k, v in last.items() if k not in RUN_VARYING}
    return {"variant": r.variant, "players": r.players, "rules": rules.to_dict(),
            "command": folder_free(command), "seed": r.seed, "recipe": r.to_dict(),
            "trained": {"iterations": state.iteration, "steps": state.steps,
                        "vs_greedy": last}}


def folder_free(command: str) -> str:
    """`command` with the value of its --out written DIR (the folder makes no weight)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    for i, w in enumerate(words):
        if w == "--out" and i + 1 < len(words):
            words[i + 1] = "DIR"
        elif w.startswith("--out="):
            words[i] = "--out=DIR"
    return " ".join(shlex.quote(w) if i > 1 else w for i, w in enumerate(words))


def write_weights(state: State, path: str, command: str) -> None:
    """The weight file (docs/net.md), through the format's own writer (`netfile.write`)."""
    from . import netfile

    netfile.write(path, to_netfile(state.net, state.recipe.rules(), metadata(state, command)))


def to_netfile(net: Net, rules: Rules, meta: dict):
    """`net` as the weight format's network (netfile.Net) for games of `rules`: the layout
    of the game's own seats, the arrays in the file's order."""
    from ..cards import deck_for
    from . import netfile

    deck = deck_for(rules)
    a, L = net.file_arrays(), len(net.widths)
    return netfile.Net(len(deck.kinds), rules.players, deck.sides == 2,
                       rules.variant_spec.draw_source == "launcher",
                       [(a[2 * i], a[2 * i + 1]) for i in range(L)], (a[2 * L], a[2 * L + 1]),
                       (a[2 * L + 2], a[2 * L + 3]), meta)


def plot_curve(state: State, path: str) -> None:
    """Share of the game's win against greedy (95% interval) over the decisions trained on."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = state.curve
    x = np.array([p["steps"] for p in c], float) / 1e6
    y = np.array([p["share"] for p in c])
    lo, hi = np.array([p["low"] for p in c]), np.array([p["high"] for p in c])
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.fill_between(x, lo, hi, alpha=0.25, label="95% interval")
    ax.plot(x, y, marker="o", ms=3, label="net (highest logit)")
    ax.axhline(1 / state.recipe.players, color="grey", ls="--", lw=1, label="even share")
    ax.set_xlabel("decisions trained on (millions)")
    ax.set_ylabel("share of the game's win vs greedy")
    ax.set_title(f"{state.recipe.variant}, {state.recipe.players} players: "
                 f"{c[-1]['deals']} paired deals per point", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
