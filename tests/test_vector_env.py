"""uno_sim.vecenv: the vector environment in C against the one-game environment of
uno_sim.env (same seeds, same actions: the same observations, masks, rewards and
terminations, step for step), its reproducibility, autoreset, round episodes, fixed
observation size, gymnasium's checks and registration, and its one-line errors."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("greenlet")
pytest.importorskip("pettingzoo")

import gymnasium  # noqa: E402

import uno_sim  # noqa: E402
from uno_sim.env import UnoGymEnv  # noqa: E402
from uno_sim.rules import RulesError  # noqa: E402
from uno_sim.vecenv import ENV_ID, SEATS, UnoSingleEnv, UnoVectorEnv  # noqa: E402

SHORT = {"target": 100}  # short games keep the checks quick
HOUSE = {"stacking": "both", "jump_in": True, "seven_o": True, "target": 100}


def random_actions(rng, mask):
    """A uniformly random legal action per env, vectorised."""
    return (rng.random(mask.shape, dtype=np.float32) + mask.astype(bool)).argmax(1)


def block(layout, name):
    for n, off, size in layout:
        if n == name:
            return off, size
    raise KeyError(name)


def view_map(vec_env, single_env):
    """Where each entry of the one-game env's observation sits in the vector env's (seat
    blocks padded to SEATS), and its scale (docs/env.md "Normalisation")."""
    scale = uno_sim.vecenv.scales(vec_env.rules, single_env.aec.deck.size)
    n = vec_env.rules.players
    idx, mul = [], []
    for name, off, size in single_env.aec.observation_layout:
        voff, vsize = block(vec_env.observation_layout, name)
        pos = np.arange(voff, voff + vsize)
        if vsize != size:  # a per-seat block of n * width entries
            pos = pos.reshape(SEATS, vsize // SEATS)[:n].reshape(-1)
        idx.append(pos)
        mul.append(np.full(size, scale.get(name, 1.0), dtype=np.float32))
    idx = np.concatenate(idx)
    rest = np.setdiff1d(np.arange(vec_env.single_observation_space["observation"].shape[0]), idx)
    k = len(vec_env.card_codes)
    return idx, np.concatenate(mul), rest, k, n


def same_view(m, vo, vm, so, sm):
    """The vector env's observation and mask equal the one-game env's."""
    idx, mul, rest, k, n = m
    np.testing.assert_allclose(vo[idx], so * mul, rtol=1e-6)
    assert not vo[rest].any()
    assert np.array_equal(vm[:k + 7], sm[:k + 7])
    assert np.array_equal(vm[k + 7:k + 7 + n], sm[k + 7:]) and not vm[k + 7 + n:].any()


CASES = [
    ("classic", 2, {}, "greedy"),
    ("classic", 4, SHORT, "strategic"),
    ("classic", 3, HOUSE, "greedy"),
    ("flip", 3, SHORT, "greedy"),
    ("extreme", 3, SHORT, "random"),
    ("classic", 4, {"scoring": "elimination", "target": 100}, "greedy"),
    ("classic", 2, SHORT, "pimc(samples=2,rollouts=1,value=round)"),
    ("house-2018", 4, SHORT, "greedy"),
    ("classic", 4, {"teams": True, "target": 100}, "greedy", 1),  # learning seat 1
    ("classic", 3, SHORT, "strategic", 2),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_matches_one_game_envs_step_for_step(case):
    """EnvPool's check: env i of the vector env is UnoGymEnv(seed + i), game after game."""
    variant, players, rules, opponents, seat = (case + (0,))[:5]
    n, seed, steps = 3, 20, 250
    kw = dict(variant=variant, players=players, rules=rules, opponents=opponents, seat=seat)
    vec = UnoVectorEnv(n, **kw)
    singles = [UnoGymEnv(**kw) for _ in range(n)]
    obs, _ = vec.reset(seed=seed)
    sobs = [g.reset(seed=seed + i)[0] for i, g in enumerate(singles)]
    rng = np.random.default_rng(1)
    ended = 0
    m = view_map(vec, singles[0])
    for _ in range(steps):
        for i in range(n):
            same_view(m, obs["observation"][i], obs["action_mask"][i],
                      sobs[i]["observation"], sobs[i]["action_mask"])
        actions = random_actions(rng, obs["action_mask"])
        obs, rew, term, trunc, info = vec.step(actions)
        for i in range(n):
            o, r, te, tr, _ = singles[i].step(int(actions[i]))
            assert (r, te, tr) == (rew[i], term[i], trunc[i])
            if te or tr:
                ended += 1
                # the final observation is the table at the end, no decision asked (the
                # one-game env repeats the seat's last decision instead)
                d_off, d_size = block(vec.observation_layout, "decision")
                assert info["_final_obs"][i]
                assert not info["final_obs"]["observation"][i, d_off:d_off + d_size].any()
                assert not info["final_obs"]["action_mask"][i].any()
                o, _ = singles[i].reset()  # the run's next game, as the vector env's autoreset
            sobs[i] = o
    assert ended > 0  # the comparison crossed episode ends


def trajectory(seed, episode="game", steps=200, n=4, players=2):
    vec = UnoVectorEnv(n, players=players, rules=SHORT, episode=episode)
    obs, _ = vec.reset(seed=seed)
    rng = np.random.default_rng(5)
    out = []
    for _ in range(steps):
        a = random_actions(rng, obs["action_mask"])
        obs, r, te, tr, _ = vec.step(a)
        out.append((obs["observation"], obs["action_mask"], r, te, tr))
    return out


def test_same_seed_same_trajectories():
    a, b, c = trajectory(3), trajectory(3), trajectory(4)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            assert np.array_equal(u, v)
    assert any(not np.array_equal(x[0], y[0]) for x, y in zip(a, c))


def test_seed_argument_is_the_first_reset_seed():
    a, _ = UnoVectorEnv(2, players=3, seed=7).reset()
    b, _ = UnoVectorEnv(2, players=3).reset(seed=7)
    assert np.array_equal(a["observation"], b["observation"])
    with pytest.raises(RulesError, match="invalid seed -1"):
        UnoVectorEnv(2, seed=-1)


def test_autoreset_starts_the_next_game():
    """Same-step autoreset: at an episode's end the observation is the next game's first."""
    vec = UnoVectorEnv(8, players=2, rules=SHORT)
    assert vec.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, _ = vec.reset(seed=1)
    rng = np.random.default_rng(0)
    r_off, _ = block(vec.observation_layout, "round")
    s_off, _ = block(vec.observation_layout, "scores")
    seen = 0
    for _ in range(400):
        obs, rew, term, trunc, info = vec.step(random_actions(rng, obs["action_mask"]))
        for i in np.flatnonzero(term | trunc):
            seen += 1
            assert info["_final_obs"][i] and rew[i] in (1.0, -1.0)
            assert obs["observation"][i, r_off] == pytest.approx(0.1)  # round 1, scaled
            assert not obs["observation"][i, s_off:s_off + SEATS].any()  # new scores
            assert obs["action_mask"][i].any()
            assert not info["final_obs"]["action_mask"][i].any()
        assert obs["action_mask"].any(axis=1).all()
    assert seen > 0


def test_round_episodes_split_the_same_games():
    """episode='round': the same course as whole games, cut at every round's end."""
    games, rounds = trajectory(9, "game", 300), trajectory(9, "round", 300)
    n_game = n_round = 0
    for g, r in zip(games, rounds):
        assert np.array_equal(g[0], r[0]) and np.array_equal(g[1], r[1])
        assert set(np.unique(r[2])) <= {-1.0, 0.0, 1.0}
        assert not (g[3] & ~r[3]).any()  # a game's end is a round's end
        n_game += g[3].sum()
        n_round += r[3].sum()
    assert n_round > n_game > 0


def test_round_episode_final_observation_is_scored():
    """A round episode's last observation shows the scores with the round's points: those
    the next round (same game) starts from."""
    vec = UnoVectorEnv(16, players=2, episode="round")
    obs, _ = vec.reset(seed=2)
    rng = np.random.default_rng(0)
    s_off, _ = block(vec.observation_layout, "scores")
    r_off, _ = block(vec.observation_layout, "round")
    checked = 0
    for _ in range(300):
        obs, rew, term, trunc, info = vec.step(random_actions(rng, obs["action_mask"]))
        for i in np.flatnonzero(term):
            final = info["final_obs"]["observation"][i]
            scores = final[s_off:s_off + SEATS]
            assert scores.any()  # somebody scored the round
            if obs["observation"][i, r_off] > final[r_off]:  # the game's next round
                assert np.array_equal(obs["observation"][i, s_off:s_off + SEATS], scores)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("players", [2, 10])
def test_observation_size_fixed_across_player_counts(players):
    vec = UnoVectorEnv(2, players=players, rules=SHORT)
    ref = UnoVectorEnv(2, players=4, rules=SHORT)
    assert vec.single_observation_space == ref.single_observation_space
    assert vec.single_action_space == ref.single_action_space
    obs, _ = vec.reset(seed=0)
    assert obs["observation"].shape == (2, ref.single_observation_space["observation"].shape[0])
    assert vec.observation_space.contains(obs)
    act_off, act_n = block(vec.observation_layout, "active")
    assert act_n == SEATS and obs["observation"][0, act_off:act_off + SEATS].sum() == players


def test_gymnasium_registration():  # check_env: tests/test_env_checkers.py
    single = gymnasium.make(ENV_ID, rules=SHORT)
    obs, _ = single.reset(seed=2)
    assert single.observation_space.contains(obs)
    vec = gymnasium.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point",
                             rules=SHORT)
    assert isinstance(vec.unwrapped, UnoVectorEnv) and vec.num_envs == 4
    obs, _ = vec.reset(seed=2)
    assert vec.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    for _ in range(50):
        obs, rew, term, trunc, _ = vec.step(random_actions(rng, obs["action_mask"]))
        assert vec.observation_space.contains(obs)
        assert rew.dtype == np.float32 and rew.shape == (4,)
        assert term.dtype == np.bool_ and trunc.dtype == np.bool_
    # env 0 of the vector env is the single env of the same seed
    s = UnoSingleEnv(rules=SHORT)
    o1, _ = s.reset(seed=2)
    o2, _ = UnoVectorEnv(1, rules=SHORT).reset(seed=2)
    assert np.array_equal(o1["observation"], o2["observation"][0])


def test_single_env_plays_games_to_their_end():
    env = UnoSingleEnv(players=2, rules=SHORT)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    rewards = []
    for _ in range(3000):
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        assert env.action_masks()[a]
        obs, r, te, tr, _ = env.step(a)
        if te or tr:
            rewards.append(r)
            obs, _ = env.reset()
    assert rewards and set(rewards) <= {1.0, -1.0}


@pytest.mark.parametrize("kwargs,message", [
    ({"num_envs": 0}, "invalid num_envs 0"),
    ({"episode": "turn"}, "invalid episode 'turn'"),
    ({"opponents": "nobody"}, "nobody"),
    ({"seat": 4, "players": 2}, "invalid seat 4"),
    ({"opponents": ["greedy"], "players": 3}, "invalid opponents"),
    ({"players": 11}, "players"),
])
def test_bad_arguments_one_line(kwargs, message):
    with pytest.raises((RulesError, ValueError)) as exc:
        UnoVectorEnv(**kwargs)
    text = str(exc.value)
    assert message in text and "\n" not in text


def test_illegal_action_names_the_env():
    vec = UnoVectorEnv(3, players=2)
    obs, _ = vec.reset(seed=0)
    actions = obs["action_mask"].argmax(1)
    bad = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    actions[1] = bad
    with pytest.raises(ValueError, match=f"illegal action {bad} in env 1"):
        vec.step(actions)
    with pytest.raises(RuntimeError, match="before reset"):
        UnoVectorEnv(1).step(np.zeros(1, dtype=np.int64))
    for bad_actions, message in [(actions + 0.5, "expected integer action ids"),
                                 (actions[:2], r"expected shape \(3,\)"),
                                 (int(actions[0]), r"expected shape \(3,\)"),
                                 ([0.5, 1, 2], "expected integer action ids")]:
        with pytest.raises(ValueError, match=message):
            vec.step(bad_actions)
    obs, _ = vec.reset(seed=0)  # a list of ints is taken as an array
    vec.step([int(x) for x in obs["action_mask"].argmax(1)])
    single = UnoSingleEnv(players=2)
    single.reset(seed=0)
    for bad in (19.7, True, "3", None):
        with pytest.raises(ValueError, match="invalid action"):
            single.step(bad)


@pytest.mark.slow
def test_training_example_learns():
    """docs/examples/train_masked_pg.py, small: after 10 iterations of A2C its share of
    rounds won against greedy is above a random legal action's (95% intervals apart,
    the same rounds for both: common random numbers)."""
    pytest.importorskip("scipy")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "docs" / "examples" / "train_masked_pg.py"
    spec = importlib.util.spec_from_file_location("train_masked_pg", path)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    agent, curve = ex.train(iterations=10, num_envs=256, steps=16, seed=0, lr=0.05)
    assert len(curve) == 10
    trained = ex.interval(*ex.evaluate(agent, rounds=600, num_envs=100))
    random = ex.interval(*ex.evaluate(None, rounds=600, num_envs=100))
    assert trained[1] > random[2], (trained, random)


@pytest.mark.slow
def test_c_driver_in_the_checking_build(tmp_path):
    """tests/c/venv_main.c: the vector env's snapshots, lean clones, replays and longjmps
    under card conservation (UNO_CHECK) and AddressSanitizer / UBSan, on four decks,
    2-10 players, house rules, both episode modes; the same keys replay the same."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, str(root / "tests" / "c" / "make_tables.py"),
                    str(tmp_path / "tables.h")], check=True)
    sources = [str(p) for p in sorted((root / "csrc").glob("*.c"))]
    exe = tmp_path / "venv"

    def build(*flags):
        cmd = [cc, "-std=c99", "-O0", "-DUNO_CHECK=1", "-I", str(root / "csrc"), "-I",
               str(tmp_path), *flags, *sources, str(root / "tests" / "c" / "venv_main.c"),
               "-lm", "-o", str(exe)]
        return subprocess.run(cmd, capture_output=True, text=True)

    sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    proc = build(*sanitize)
    run = subprocess.run([str(exe), "20"], capture_output=True, text=True, timeout=600) \
        if proc.returncode == 0 else None
    if run is None or "Sanitizer" in run.stderr and "ERROR" not in run.stderr:
        proc = build()  # no sanitizer runtime here: the plain checking build
        assert proc.returncode == 0, proc.stderr[-2000:]
        run = subprocess.run([str(exe), "20"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "steps ok" in run.stdout
