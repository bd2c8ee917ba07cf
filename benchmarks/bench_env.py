"""Environment steps per second with random masked actions: uno_sim.env against RLCard's uno.

    pip install -e '.[bench]'        # RLCard, PettingZoo, Gymnasium, greenlet
    python benchmarks/bench_env.py --seconds 5 --repeats 3
    python benchmarks/bench_env.py --only rlcard,vector    # RLCard and the vector env only

RLCard is timed in the same run as uno_sim, in turns with it, so that the ratio between
them holds on a busy machine where the absolute rates do not: quote a figure with the
machine it ran on (the first line printed) and its ratio to RLCard's from the same run.
Without RLCard its row is skipped and the others are timed alone.

Every configuration plays whole games in one process for --seconds, --repeats
times (interleaved), and reports the median steps/s (one step: one decision of a learning
agent answered by ``step``) and games/s.  Both sides pick uniformly among the
legal actions with the same numpy generator call.

Rates are per second of this process's CPU time by default (``--clock cpu``): on
a shared machine wall time also counts the waits for a core, which other users'
load makes vary by a factor of two; ``--clock wall`` uses wall time.  Every
configuration but ``thread`` runs on one thread (the thread backend's two
threads take turns, so its CPU time is its wall time less the waits).

- ``rlcard uno``: ``rlcard.make("uno")``; its game is one hand of simplified
  rules (no challenge, no UNO call, no scoring) between 2 players, both agents
  (RLCard's uno has 2 players: it ignores ``game_num_players``).
- ``uno_sim AEC``: ``uno_sim.env.env()`` (PettingZoo AEC), the full game to 500
  points, every seat an agent; the AEC loop ``agent_iter`` / ``last`` / ``step``.
  ``wrapped``: inside PettingZoo's OrderEnforcingWrapper; ``thread``: the game
  runs in a thread instead of a greenlet.
- ``uno_sim gym``: ``UnoGymEnv``, one learning seat against greedy opponents
  played in C (a step covers the opponents' turns too).
- ``uno_sim vector``: ``uno_sim.vector_env(N)`` (uno_sim.vecenv), N games with one
  learning seat each against greedy opponents, stepped in C by one call; the random
  legal actions are drawn for all N games at once in numpy (their time counts).  One
  call is N steps; games/s counts the ended episodes.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

CLOCK = time.process_time  # --clock: CPU time of this process (default) or wall time


def bench_rlcard(seconds: float, seed: int):
    import rlcard

    env = rlcard.make("uno", config={"seed": seed})
    rng = np.random.default_rng(seed)
    steps = games = 0
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
    dt = CLOCK() - t0
    return steps / dt, games / dt


def bench_aec(seconds: float, seed: int, wrapped: bool = False, **kwargs):
    from uno_sim.env import env

    e = env(**kwargs)
    if wrapped:
        from pettingzoo.utils.wrappers import OrderEnforcingWrapper

        e = OrderEnforcingWrapper(e)
    rng = np.random.default_rng(seed)
    steps = games = 0
    e.reset(seed=seed)
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        for _ in e.agent_iter():
            obs, _, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = info["action_mask"].nonzero()[0]
            e.step(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
        e.reset()
    dt = CLOCK() - t0
    e.close()
    return steps / dt, games / dt


def bench_gym(seconds: float, seed: int, **kwargs):
    from uno_sim.env import UnoGymEnv

    g = UnoGymEnv(**kwargs)
    rng = np.random.default_rng(seed)
    steps = games = 0
    obs, _ = g.reset(seed=seed)
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:  # the clock is read once per game, as in the others
        done = False
        while not done:
            legal = obs["action_mask"].nonzero()[0]
            obs, _, term, trunc, _ = g.step(legal[rng.integers(len(legal))])
            steps += 1
            done = term or trunc
        games += 1
        obs, _ = g.reset()
    dt = CLOCK() - t0
    return steps / dt, games / dt


def bench_vector(seconds: float, seed: int, num_envs: int, **kwargs):
    import uno_sim

    v = uno_sim.vector_env(num_envs, copy=False, **kwargs)
    rng = np.random.default_rng(seed)
    steps = games = 0
    obs, _ = v.reset(seed=seed)
    mask = obs["action_mask"].view(bool)  # the env's own buffer: updated in place
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        for _ in range(20):
            # a uniform legal action per game: legal entries score in [1, 2), others [0, 1)
            actions = (rng.random(mask.shape, dtype=np.float32) + mask).argmax(1)
            _, _, term, trunc, _ = v.step(actions)
            games += int(np.count_nonzero(term | trunc))
        steps += 20 * num_envs
    dt = CLOCK() - t0
    return steps / dt, games / dt


CONFIGS = {
    "rlcard uno (1 hand, 2 agents)": lambda s, seed: bench_rlcard(s, seed),
    "uno_sim AEC classic, 4 agents": lambda s, seed: bench_aec(s, seed),
    "uno_sim AEC classic, 4 agents, wrapped": lambda s, seed: bench_aec(s, seed, wrapped=True),
    "uno_sim AEC classic, 4 agents, thread": lambda s, seed: bench_aec(s, seed, backend="thread"),
    "uno_sim AEC flip, 4 agents": lambda s, seed: bench_aec(s, seed, variant="flip"),
    "uno_sim gym classic, 1 agent + 3 greedy": lambda s, seed: bench_gym(s, seed),
    "uno_sim gym classic, 1 agent + 1 greedy": lambda s, seed: bench_gym(s, seed, players=2),
    "uno_sim vector classic, 256 envs, 1 agent + 1 greedy":
        lambda s, seed: bench_vector(s, seed, 256, players=2),
    "uno_sim vector classic, 1024 envs, 1 agent + 1 greedy":
        lambda s, seed: bench_vector(s, seed, 1024, players=2),
    "uno_sim vector classic, 1024 envs, 1 agent + 3 greedy":
        lambda s, seed: bench_vector(s, seed, 1024, players=4),
    "uno_sim vector classic, 1024 envs, 1 agent + 1 greedy, rounds":
        lambda s, seed: bench_vector(s, seed, 1024, players=2, episode="round"),
}


def machine() -> str:
    """The CPU model, the cores and the load: the line a figure is quoted with."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = ""
    if hasattr(os, "getloadavg"):
        load = ", load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    return f"{model}, {os.cpu_count()} cores{load}"


def versions() -> str:
    """uno_sim's and the compared libraries' versions."""
    from importlib import metadata

    out = [f"Python {platform.python_version()}"]
    for dist in ("uno-sim", "numpy", "rlcard", "pettingzoo", "gymnasium", "greenlet"):
        try:
            out.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            out.append(f"{dist} absent")
    return ", ".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per run (default 5)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per configuration (default 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="rates per second of process CPU time (default) or of wall time")
    ap.add_argument("--only", help="run the configurations whose name contains one of these "
                                   "comma-separated texts (e.g. rlcard,vector)")
    args = ap.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"machine: {machine()}")
    print(f"{versions()}; {args.clock} time, {args.repeats} x {args.seconds:g} s per "
          f"configuration")
    print("| environment | steps/s | games/s |\n|---|---|---|")
    only = args.only.split(",") if args.only else None
    names = [n for n in CONFIGS if not only or any(o in n for o in only)]
    runs = {n: [] for n in names}
    for i in range(args.repeats):  # interleaved, so that a busy spell hits every one alike
        for name in list(names):
            try:
                runs[name].append(CONFIGS[name](args.seconds, args.seed + i))
            except ImportError as exc:
                print(f"| {name} | skipped: {exc} | |")
                names.remove(name)
    rates = {}
    for name in names:
        steps = statistics.median(r[0] for r in runs[name])
        games = statistics.median(r[1] for r in runs[name])
        rates[name] = steps
        print(f"| {name} | {steps:,.0f} | {games:,.1f} |", flush=True)
    base = next((k for k in rates if k.startswith("rlcard")), None)
    if base:  # runs of one repeat ran side by side: their ratios pair them
        for name in names:
            if name != base:
                ratios = [a[0] / b[0] for a, b in zip(runs[name], runs[base])]
                print(f"{name}: {statistics.median(ratios):.2f}x RLCard's steps/s (median of "
                      f"paired runs; range {min(ratios):.2f}-{max(ratios):.2f})")
        print("a step: rlcard, one move of either player; uno_sim AEC, one decision of any "
              "seat; uno_sim gym and vector, one decision of the learning seat (its "
              "opponents' turns run inside it)")
    if hasattr(os, "getloadavg"):
        print("load average at the end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
