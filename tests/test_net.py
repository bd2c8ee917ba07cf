"""The network player `net` (csrc/net.c, docs/net.md) in the engine and everywhere a policy
spec is accepted.

What is checked: a game with a net seat is the game its numpy twin plays through the
vector environment (the same answers, decision for decision, so the same result), on
every stock variant and house rules; explore draws from a stream of its own; the weights
are found (shipped, or weights=FILE), refused in one line when missing, bad or not
fitting the game; the reference engine refuses the player; the envs, tournaments,
counterfactual forcing and runs take it (a resumed run refuses changed weights).
"""

import subprocess
import sys

import numpy as np
import pytest

import uno_sim
from uno_sim.engine import play_game, play_games
from uno_sim.players import net as netmod
from uno_sim.players import netfile
from uno_sim.policies import parse_policy
from uno_sim.rules import Rules, RulesError


def make_net(tmp_path, rules, widths=(32, 16), seed=0, seats=10, name="n.unonet"):
    kinds, _, flip, extreme = netmod.game_layout(rules)
    net = netfile.Net.new(kinds, seats, flip, extreme, list(widths), seed=seed,
                          metadata={"variant": rules.variant})
    # a bias toward playing over drawing, so that games end in a reasonable time
    b = net.policy[1].copy()
    b[:kinds] += 2.0
    net.policy = (net.policy[0], b)
    path = tmp_path / name
    netfile.write(path, net)
    return str(path), net


TWIN_CASES = [
    ("classic", 2, {}), ("classic", 4, {}), ("flip", 3, {}), ("extreme", 2, {}),
    ("hello-kitty", 3, {}), ("house-2018", 4, {}),
    ("classic", 3, {"stacking": "both", "jump_in": True, "seven_o": True}),
]


@pytest.mark.parametrize("variant,players,house", TWIN_CASES)
def test_the_c_player_plays_its_numpy_twin(tmp_path, variant, players, house):
    """Seat 0 played by the C player (play_game) and by netfile.forward + decide driving
    the vector environment's learning seat: the same decisions, so the same games."""
    from uno_sim.vecenv import UnoSingleEnv

    rules = Rules(variant=variant, players=players, **house)
    path, net = make_net(tmp_path, rules, seed=players)
    others = ["greedy", "strategic", "random"][: players - 1]
    while len(others) < players - 1:
        others.append("greedy")
    decisions = 0
    for seed in range(3):
        res = play_game(rules, [f"net(weights={path})"] + others, seed=seed)
        env = UnoSingleEnv(rules=rules, opponents=others, seat=0)
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            logits, _ = netfile.forward(net, obs["observation"])
            a = netfile.decide(logits, obs["action_mask"])
            obs, _, term, trunc, _ = env.step(a)
            done = term or trunc
            decisions += 1
        winners, scores, rounds = env._c.core.last_result(0)
        assert (winners, scores, rounds) == (res.winners, res.scores, res.rounds), seed
    assert decisions > 20


def test_explore_has_a_stream_of_its_own(tmp_path):
    """explore=0 and explore=1e-12 play the same games (the knob draws from UNO_DK_NET
    only); explore=1 plays uniformly random legal answers (other games)."""
    rules = Rules(players=3)
    path, _ = make_net(tmp_path, rules)
    pols = [f"net(weights={path})", "greedy", "random"]
    a = play_games(rules, pols, seed=4, n_games=40)
    b = play_games(rules, [f"net(weights={path},explore=1e-12)"] + pols[1:], seed=4, n_games=40)
    c = play_games(rules, [f"net(weights={path},explore=1)"] + pols[1:], seed=4, n_games=40)
    assert (a["turns"] == b["turns"]).all() and (a["scores"] == b["scores"]).all()
    assert (a["turns"] != c["turns"]).any()


def test_a_network_seat_is_deterministic_and_fast_paths_unchanged(tmp_path):
    rules = Rules(players=2)
    path, _ = make_net(tmp_path, rules)
    pols = [f"net(weights={path})", "greedy"]
    a = play_games(rules, pols, seed=9, n_games=30)
    b = play_games(rules, pols, seed=9, n_games=30)
    assert all((a[k] == b[k]).all() for k in ("winner", "turns", "scores"))
    for g in (0, 7, 29):  # one game alone: the same as in the batch
        r = play_game(rules, pols, seed=9, game=g)
        assert r.turns == a["turns"][g] and r.scores == list(a["scores"][g])


def test_shipped_weights(tmp_path, monkeypatch):
    rules = Rules(players=2)
    with pytest.raises(RulesError) as exc:
        monkeypatch.setattr(netmod, "WEIGHTS_DIR", tmp_path / "none")
        play_game(rules, ["net", "greedy"], seed=0)
    msg = str(exc.value)
    assert "\n" not in msg and "classic-2p.unonet" in msg and "weights=FILE" in msg
    monkeypatch.setattr(netmod, "WEIGHTS_DIR", tmp_path)
    path, _ = make_net(tmp_path, rules, name=netmod.shipped_name("classic", 2))
    r1 = play_game(rules, ["net", "greedy"], seed=1)
    r2 = play_game(rules, [f"net(weights={path})", "greedy"], seed=1)
    assert (r1.winners, r1.scores, r1.turns) == (r2.winners, r2.scores, r2.turns)


def test_bad_weights_are_one_line(tmp_path):
    bad = tmp_path / "bad.unonet"
    bad.write_bytes(b"UNONET\0\0" + b"\0" * 100)
    with pytest.raises(RulesError) as exc:
        parse_policy(f"net(weights={bad})")
    assert str(bad) in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(RulesError, match="cannot read the weights"):
        parse_policy(f"net(weights={tmp_path / 'missing.unonet'})")
    # a network of another layout: refused with the game
    path, _ = make_net(tmp_path, Rules(variant="flip", players=2), name="flip.unonet")
    with pytest.raises(RulesError, match="does not fit this game"):
        play_game(Rules(players=2), [f"net(weights={path})", "greedy"])
    small, _ = make_net(tmp_path, Rules(players=2), seats=2, name="two.unonet")
    with pytest.raises(RulesError, match="reads 2 seats, the game has 3 players"):
        play_game(Rules(players=3), [f"net(weights={small})", "greedy", "greedy"])
    play_game(Rules(players=2), [f"net(weights={small})", "greedy"])  # fits 2 players
    for spec, what in ((f"net(weights={path},explore=2)", "explore"),
                       ("net(weights=)", "weights"), ("net(depth=2)", "depth")):
        with pytest.raises(RulesError, match=what):
            parse_policy(spec)


def test_reference_engine_refuses_the_network(tmp_path):
    path, _ = make_net(tmp_path, Rules(players=2))
    with pytest.raises(RulesError, match="reference engine has no network player"):
        uno_sim.play_game(players=2, policies=[f"net(weights={path})", "greedy"],
                          engine="reference")


def test_cli_exit_2_names_the_file(tmp_path):
    bad = tmp_path / "bad.unonet"
    bad.write_bytes(b"junk")
    out = subprocess.run([sys.executable, "-m", "uno_sim", "run", "--players", "2", "--policy",
                          f"net(weights={bad})", "--games", "2", "--summary-only"],
                         capture_output=True, text=True)
    assert out.returncode == 2
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and str(bad) in lines[0] and "Traceback" not in out.stderr


def test_envs_take_network_opponents(tmp_path):
    from uno_sim.env import UnoEnv
    from uno_sim.vecenv import UnoVectorEnv

    rules = Rules(players=3)
    path, _ = make_net(tmp_path, rules)
    spec = f"net(weights={path})"
    envs = UnoVectorEnv(4, players=3, opponents=[spec, "greedy"])
    obs, _ = envs.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(50):
        mask = obs["action_mask"].astype(bool)
        obs, *_ = envs.step((rng.random(mask.shape) + mask).argmax(1))
    env = UnoEnv(players=3, opponents={1: spec, 2: "greedy"})
    env.reset(seed=2)
    for agent in env.agent_iter(max_iter=200):
        ob, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(ob["action_mask"])[0]))


def test_counterfactual_forcing_of_a_network_seat(tmp_path):
    """A bluff decision point of a net seat forced both ways (counterfactual studies'
    focal seat): the alternative that agrees with the network's own answer replays the
    game exactly."""
    from uno_sim.counterfactual import decision_values

    rules = Rules(players=2)
    path, _ = make_net(tmp_path, rules)
    pols = [f"net(weights={path})", "greedy"]
    frame = decision_values("bluff", rules=rules, policies=pols, seat=0, games=40, seed=3)
    assert frame.height > 5 and set(frame["natural"]) <= {0, 1}
    plain = play_games(rules, pols, seed=3, n_games=40)
    for row in frame.iter_rows(named=True):
        won = float(plain["winner"][row["game"]] == 0)
        assert row[f"game_win_{row['natural']}"] == won, row


def test_run_records_the_weights_and_resume_refuses_a_change(tmp_path):
    """A run with a net seat: the same rows at 1 and 2 workers; its manifest records the
    weights' checksum; a resume after the file changed is refused in one line."""
    import json
    import os

    from uno_sim.runner import resume, simulate
    from uno_sim.runner.errors import RunError

    rules = Rules(players=2)
    path, _ = make_net(tmp_path, rules)
    pols = [f"net(weights={path})", "greedy"]
    one = simulate(games=40, players=2, policies=pols, seed=5, shard_size=10)
    two = simulate(games=40, players=2, policies=pols, seed=5, shard_size=10, n_jobs=2)
    assert one.games.equals(two.games)
    out = str(tmp_path / "run")
    simulate(games=40, players=2, policies=pols, seed=5, shard_size=10, out=out)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    checksum = netfile.read(path).checksum
    assert manifest["weights"] == [f"{checksum:016x}", None]
    os.unlink(tmp_path / "run" / "summary.json")
    for f in (tmp_path / "run" / "shards").glob("shard-000003*"):
        f.unlink()
    make_net(tmp_path, rules, seed=99)  # the same file name, other weights
    with pytest.raises(RunError, match="weights of seat 0 .* changed since the run began"):
        resume(out)
