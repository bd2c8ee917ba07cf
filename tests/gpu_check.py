"""The GPU comparison grid: each configuration's games on the GPU against the CPU's.

tests/test_gpu.py runs every configuration of GRID in a process of its own (this file as a
script, one index), so that a kernel fault (an illegal address poisons the process's CUDA
context) fails that configuration alone and every other one is still compared.  By hand:

    python tests/gpu_check.py 6            # configuration 6, exit status 0 when equal
    python tests/gpu_check.py --list       # the grid, one index per line
    compute-sanitizer --tool memcheck python tests/gpu_check.py 6   # (UNO_SIM_GPU_LINEINFO=1:
                                           # the kernel built with line information)

The grid covers every variant, every house rule and switch the GPU accepts, every built-in
policy and knob (probabilities at 0, between and 1; auto and posterior challenges), 2 to 10
players, teams and elimination, seats with different policies, and the network player
(`{net}` in a spec: a small network of random weights made for the configuration's layout
by tests/test_net.py make_net, written into a directory of this process's own).
"""

from __future__ import annotations

import os
import sys

K = "bluff=0.4,challenge=0.5,forget_uno=0.3,catch=0.6,play_drawn=0.5"
# (variant, players, policy spec or one per seat, rule switches)
GRID = [
    ("classic", 4, "greedy", {}),
    ("classic", 2, "random", {}),
    ("classic", 3, "greedy(voluntary_draw=0.1)", {"drawn_card": "must", "dealer_draw": "redraw"}),
    ("classic", 10, "strategic(color=smart)", {}),
    ("classic", 4, f"greedy({K})", {"challenge": "vintage"}),
    ("classic", 5, "strategic(challenge=posterior,challenge_prior=0.3,challenge_threshold=0.4)",
     {}),
    ("classic", 4, "strategic(challenge_threshold=0.3,bluff=0.3)", {}),
    ("classic", 6, "random(color=random,target=random,bluff=0.5,challenge=0.5)",
     {"edition": "vintage"}),
    ("classic", 2, "greedy(bluff=1,challenge=1,forget_uno=1,catch=0,play_drawn=0)", {}),
    ("classic", 4, ["greedy", "random", "strategic", f"greedy({K})"], {}),
    ("classic", 4, "greedy(stack=0.8,jump_in=0.6)", {"stacking": "both", "jump_in": True,
                                                     "seven_o": True}),
    ("classic", 4, f"greedy({K},stack=0.8,jump_in=0.6)", {"stacking": "both", "jump_in": True,
                                                          "challenge": "vintage"}),
    ("classic", 3, "random(stack=0.5)", {"stacking": "draw2", "draw_until_playable": True,
                                         "forced_play": True}),
    ("classic", 7, "strategic(stack=1,jump_in=1,target=most)", {"stacking": "draw4",
                                                                "seven_o": True,
                                                                "jump_in": True}),
    ("classic", 5, "greedy", {"scoring": "elimination", "target": 200}),
    ("classic", 4, "random", {"scoring": "lowest", "target": 200}),
    ("classic", 6, "greedy(catch=0.9,forget_uno=0.5)", {"teams": True}),
    ("classic", 8, "strategic", {"hand_size": 5, "teams": True}),
    ("flip", 4, "greedy", {}),
    ("flip", 3, "strategic", {"flip_pairing": "game"}),
    ("flip", 5, f"random({K},stack=0.7)", {"flip_starter": "flip", "stacking": "both",
                                           "challenge": "vintage"}),
    ("flip", 9, "strategic(color=smart)", {"seven_o": True, "jump_in": True}),
    ("extreme", 4, "greedy", {}),
    ("extreme", 3, "strategic(target=random)", {"launcher": "dist", "hit_target_presses": 2}),
    ("extreme", 6, f"random({K},jump_in=0.5)", {"seven_o": True, "jump_in": True,
                                                "forced_play": True}),
    ("hello-kitty", 4, "greedy", {}),
    ("hello-kitty", 2, "strategic(bluff=0.5)", {"forced_play": True}),
    ("house-2018", 4, "strategic", {}),
    ("house-2018", 3, "random", {"exchange": "shuffle",
                                 "custom_wilds": "draw_color,wilds_down,three"}),
    ("house-2018", 5, "greedy", {"custom_wilds": "draw_three,extra_turn,seven",
                                 "stacking": "both"}),
    ("classic", 4, ["net(weights={net})", "greedy", f"strategic({K})", "random"],
     {"challenge": "vintage"}),
    ("flip", 3, ["net(weights={net},explore=0.1)", "net(weights={net})", "greedy"],
     {"stacking": "both", "jump_in": True}),
    ("extreme", 2, ["net(weights={net})", "greedy"], {}),
]
SEED, FIRST = 11, 5_000
GAMES = int(os.environ.get("UNO_SIM_GPU_GAMES", "2000"))


def label(i: int) -> str:
    variant, players, policy, switches = GRID[i]
    return f"{i}-{variant}-{players}-{policy}-{switches}"


_NET_DIR = []  # this process's directory for the networks of `{net}` specs


def _net_file(rules) -> str:
    """A network of random weights (the seed fixed) for the layout of `rules`, in a file."""
    import tempfile
    from pathlib import Path

    from test_net import make_net

    if not _NET_DIR:
        _NET_DIR.append(Path(tempfile.mkdtemp(prefix="uno_sim_gpu_check_")))
    name = f"{rules.variant}-{rules.players}.unonet"
    path = _NET_DIR[0] / name
    if not path.is_file():
        make_net(_NET_DIR[0], rules, seed=rules.players, name=name)
    return str(path)


def setup(i: int):
    from uno_sim.policies import seat_policies
    from uno_sim.rules import Rules

    variant, players, policy, switches = GRID[i]
    rules = Rules(variant=variant, players=players, **switches)
    if "{net}" in str(policy):
        path = _net_file(rules)
        policy = ([p.format(net=path) for p in policy] if isinstance(policy, list)
                  else policy.format(net=path))
    return rules, seat_policies(policy, players)


def warm(i: int) -> None:
    """Compiles configuration i's kernel (CuPy keeps it on disk for the process that
    compares); a failure is left for that process to report."""
    from uno_sim import gpu

    try:
        gpu._module(gpu.spec_defines(*setup(i)))
    except Exception:
        pass


def compare(i: int, games: int = GAMES) -> str | None:
    """None when the GPU plays games FIRST .. FIRST + games - 1 of configuration i exactly as
    the CPU does; else what differs first."""
    import numpy as np

    from uno_sim import engine, gpu

    rules, specs = setup(i)
    want = engine.play_games(rules, specs, seed=SEED, first_game=FIRST, n_games=games,
                             rounds=True)
    got = gpu.play_games(rules, specs, SEED, FIRST, games)
    if got.keys() != want.keys():
        return f"columns differ: {sorted(got)} != {sorted(want)}"
    for k in want:
        if got[k].dtype != want[k].dtype:
            return f"{k}: dtype {got[k].dtype} != {want[k].dtype}"
        if got[k].shape != want[k].shape or not np.array_equal(got[k], want[k]):
            bad = np.flatnonzero((got[k] != want[k]).reshape(len(got[k]), -1).any(axis=1)) \
                if got[k].shape == want[k].shape else []
            return f"{k} differs (shape {got[k].shape} vs {want[k].shape}; rows {list(bad[:5])})"
    return None


def main(argv: list[str]) -> int:
    if argv == ["--list"]:
        for i in range(len(GRID)):
            print(label(i))
        return 0
    if len(argv) != 1 or not argv[0].isdigit() or int(argv[0]) >= len(GRID):
        print(f"usage: gpu_check.py INDEX (0..{len(GRID) - 1}) | --list", file=sys.stderr)
        return 2
    i = int(argv[0])
    why = compare(i)
    print(f"{label(i)}: {'equal' if why is None else why}")
    return 0 if why is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
