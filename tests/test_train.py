"""Training a network player (uno_sim.players.train, docs/training.md): the gradients, the
observation the network reads, a tiny run that must learn, resume and reproducibility, and
the command line's refusals."""

from __future__ import annotations

import dataclasses
import json
import os
import re

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from uno_sim import Rules  # noqa: E402
from uno_sim.cli import main  # noqa: E402
from uno_sim.errors import RulesError  # noqa: E402
from uno_sim.players import netfile  # noqa: E402
from uno_sim.players.model import Adam, Net, input_columns, masked_log_softmax  # noqa: E402
from uno_sim.players import distil  # noqa: E402
from uno_sim.players.strength import net_scores  # noqa: E402
from uno_sim.players.train import (Recipe, TrainError, command_line, load, new_state,  # noqa: E402
                                   train)
from uno_sim.stats import mean_ci  # noqa: E402

# A tiny recipe: a 32-unit net, a few seconds of one core.
TINY = Recipe(widths=(32,), iterations=8, envs=48, steps=32, segment=2,
              minibatch=512, lr=3e-3, lr_end=3e-3, opponents=("greedy",), eval_every=3,
              eval_deals=20)


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    net = Net(12, 5, [8, 6], rng, aux=1)
    net.arrays = [rng.standard_normal(a.shape) * 0.5 for a in net.arrays]  # float64 copy
    x = rng.random((4, 12)) * (rng.random((4, 12)) < 0.5)
    m = rng.random((4, 5)) < 0.7
    m[:, 0] = True
    w, y, z = rng.standard_normal(4), rng.random(4), rng.standard_normal(4)

    def loss():
        logits, v = net.forward(x)
        sv = 1 / (1 + np.exp(-v[:, 0]))
        return -(w * masked_log_softmax(logits, m)[:, 0]).sum() \
            - (y * np.log(sv) + (1 - y) * np.log(1 - sv)).sum() + 0.5 * ((v[:, 1] - z) ** 2).sum()

    logits, v, hs = net.forward(x, keep=True)
    dz = np.exp(masked_log_softmax(logits, m)) * w[:, None]
    dz[:, 0] -= w
    grads = net.backward(hs, dz, np.stack([1 / (1 + np.exp(-v[:, 0])) - y, v[:, 1] - z], 1))
    for a, g in zip(net.arrays, grads):
        for _ in range(3):
            i = tuple(int(rng.integers(0, s)) for s in a.shape)
            old = a[i]
            a[i] = old + 1e-6
            up = loss()
            a[i] = old - 1e-6
            down = loss()
            a[i] = old
            assert (up - down) / 2e-6 == pytest.approx(float(g[i]), rel=1e-4, abs=1e-6)


def test_adam_is_written_out():
    """One step of Adam from zero moments moves each weight by lr against its gradient's
    sign (m / sqrt(v) = g / |g| after bias correction)."""
    a = [np.array([1.0, -2.0, 0.5], np.float32)]
    Adam(a, lr=0.1).step([np.array([3.0, -0.5, 0.0], np.float32)])
    assert a[0] == pytest.approx([0.9, -1.9, 0.5], abs=1e-6)


@pytest.mark.parametrize("variant,players", [("classic", 2), ("flip", 4)])
def test_input_columns_are_the_games_own_seats(variant, players):
    """The network reads the observation of the game's own seats: the blocks of the
    PettingZoo env's layout (seats = players), cut from the vector env's 10-seat one; the
    columns left out stay zero in play."""
    import uno_sim
    from uno_sim.env import env

    own = env(variant=variant, players=players).observation_layout
    venv = uno_sim.vector_env(32, variant=variant, players=players, copy=False)
    cols = input_columns(venv.observation_layout, 10, players)
    assert len(cols) == sum(size for _, _, size in own)
    at = 0
    for (name, off, size), (vname, voff, _) in zip(own, venv.observation_layout):
        assert name == vname and off == at
        assert list(cols[at:at + size]) == list(range(voff, voff + size))
        at += size
    left = np.setdiff1d(np.arange(venv.single_observation_space["observation"].shape[0]), cols)
    obs, _ = venv.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(50):
        assert not obs["observation"][:, left].any()
        m = obs["action_mask"].astype(bool)
        obs, *_ = venv.step((rng.random(m.shape) + m).argmax(1))


def test_a_tiny_run_learns(tmp_path):
    """A 32-unit net trained for about a second of one core wins more first rounds against
    greedy than its initialisation on the same 100 deals, seats rotated: the paired
    difference's 95% interval is above +0.15 (the run reaches about +0.4)."""
    state = train(TINY, str(tmp_path / "run"), progress=False)
    rules = TINY.rules()
    before = net_scores(new_state(TINY).net, rules, 100, 777, episode="round")
    after = net_scores(state.net, rules, 100, 777, episode="round")
    m, lo, hi = mean_ci(list(after - before))
    assert lo > 0.15, (before.mean(), after.mean(), lo, hi)
    files = sorted(os.listdir(tmp_path / "run"))
    assert "checkpoint.npz" in files and "train.json" in files
    meta = json.loads((tmp_path / "run" / "train.json").read_text())
    assert [p["iteration"] for p in meta["curve"]] == [0, 3, 6, 8]
    assert meta["command"].startswith("uno-sim train ")


def _arrays(state):
    return state.net.arrays + state.opt.m + state.opt.v


def test_resume_gives_the_bits_of_an_uninterrupted_run(tmp_path):
    """Stopped by Ctrl-C during iteration 4 (the games restart every 2 iterations, where
    checkpoints are written) and resumed, the run ends with the very arrays, optimiser
    state and curve of one never stopped (a snapshot of the network joins the pool every
    2 iterations); the same seed again gives them too, another seed other weights."""
    recipe = dataclasses.replace(TINY, iterations=5, pool_every=2, pool_size=1)
    whole = train(recipe, str(tmp_path / "whole"), progress=False)

    def stop(state):
        if state.iteration == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(recipe, str(tmp_path / "cut"), progress=False, on_iteration=stop)
    kept, _ = load(str(tmp_path / "cut"))
    assert kept.iteration == 2  # the last checkpoint: the segment in progress is redone
    resumed = train(resume=str(tmp_path / "cut"), progress=False)
    again = train(recipe, str(tmp_path / "again"), progress=False)
    for a, b, c in zip(_arrays(whole), _arrays(resumed), _arrays(again)):
        assert a.dtype == np.float32
        assert np.array_equal(a, b) and np.array_equal(a, c)
    assert [p["share"] for p in whole.curve] == [p["share"] for p in resumed.curve]
    assert whole.steps == resumed.steps and whole.opt.t == resumed.opt.t
    assert [p["iteration"] for p in resumed.pool] == [2, 4] and resumed.pool == whole.pool
    # the weight file is the same bytes (`cmp`): its metadata keeps nothing of the run's
    # own (CPU time, the folder), which train.json keeps
    files = [(tmp_path / d / "net.unonet").read_bytes() for d in ("whole", "cut", "again")]
    assert files[0] == files[1] == files[2]
    meta = netfile.read(str(tmp_path / "cut" / "net.unonet")).metadata
    assert "cpu_seconds" not in json.dumps(meta) and meta["command"].endswith(" --out DIR")
    assert json.loads((tmp_path / "cut" / "train.json").read_text())["cpu_seconds"] > 0
    other = train(dataclasses.replace(recipe, seed=1), str(tmp_path / "other"), progress=False)
    assert not np.array_equal(other.net.arrays[0], whole.net.arrays[0])


FAST_SEARCH = "pimc(samples=3,rollouts=1,value=round)"


def test_distillation_fits_the_search_and_resumes(tmp_path):
    """A round of distillation from a cheap search player: the network ranks the search's
    answer first on many more labels than at its start (on the labels themselves: this
    checks the fit, not the strength), its value head has learned (logistic loss below
    log 2), and a run stopped
    between two label shards and resumed ends with the very weights of one never
    stopped."""
    pytest.importorskip("uno_sim.players.record")
    recipe = dataclasses.replace(TINY, iterations=0, label_games=12, label_shard=4,
                                 label_policy=FAST_SEARCH, label_opponents=("greedy",),
                                 distil_epochs=4, distil_lr=3e-3, eval_every=0)
    whole = train(recipe, str(tmp_path / "whole"), progress=False)
    fit = whole.distilled[0]
    assert fit["labels"] > 200 and fit["value_loss"] < 0.69

    from uno_sim.players import distil

    data = distil.concat([distil.read_shard(str(tmp_path / "whole" / f"labels-0-{s['index']}.npz"),
                                            s["sha256"]) for s in whole.labels])
    x = distil.dense(data, np.arange(len(data["action"])), whole.net.obs_size)
    mask = data["mask"].astype(bool)
    agree = [(np.where(mask, net.forward(x)[0], -np.inf).argmax(1) == data["action"]).mean()
             for net in (new_state(recipe).net, whole.net)]
    assert agree[1] > agree[0] + 0.25, agree  # about 0.32 -> 0.84
    assert len(whole.labels) == 3 and sorted(os.listdir(tmp_path / "whole"))[1:4] == [
        "labels-0-0.npz", "labels-0-1.npz", "labels-0-2.npz"]
    # a finished round (labelled by label_policy: no round network) resumes too
    assert load(str(tmp_path / "whole"))[0].distilled == whole.distilled

    calls = []
    real = distil.label_shard

    def stop_second(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    distil.label_shard = stop_second
    try:
        with pytest.raises(KeyboardInterrupt):
            train(recipe, str(tmp_path / "cut"), progress=False)
    finally:
        distil.label_shard = real
    assert len(load(str(tmp_path / "cut"))[0].labels) == 1
    resumed = train(resume=str(tmp_path / "cut"), progress=False)
    for a, b in zip(_arrays(whole), _arrays(resumed)):
        assert np.array_equal(a, b)
    assert resumed.labels == whole.labels


def test_labels_from_another_run_give_the_same_bits(tmp_path):
    """--labels-from takes another run's first-round shards (the same labelling fields:
    the same games) instead of recording them: the fit to soft targets and to the
    challenge's truth (a recipe the source run did not have) ends with the very weights a
    run recording its own labels ends with; a source of other games is refused."""
    pytest.importorskip("uno_sim.players.record")
    source = dataclasses.replace(TINY, iterations=0, label_games=8, label_shard=4,
                                 label_policy=FAST_SEARCH,
                                 label_opponents=("greedy(bluff=0.5)",), distil_epochs=2,
                                 eval_every=0)
    train(source, str(tmp_path / "src"), progress=False)
    recipe = dataclasses.replace(source, distil_temp=0.001, challenge_break_even=0.3)
    own = train(recipe, str(tmp_path / "own"), progress=False)
    calls = []
    real = distil.label_shard
    distil.label_shard = lambda *a, **k: calls.append(a) or real(*a, **k)
    try:
        taken = train(recipe, str(tmp_path / "taken"), progress=False,
                      labels_from=str(tmp_path / "src"))
    finally:
        distil.label_shard = real
    assert not calls and taken.labels == own.labels
    for a, b in zip(_arrays(own), _arrays(taken)):
        assert np.array_equal(a, b)
    with pytest.raises(TrainError, match="its seed 0 is not this recipe's 1"):
        train(dataclasses.replace(recipe, seed=1), str(tmp_path / "other"), progress=False,
              labels_from=str(tmp_path / "src"))


def test_the_search_value_target_and_its_fallbacks():
    nan = np.nan
    data = {"value": np.array([[0.2, 0.7, nan], [nan, 0.4, 0.9], [nan, nan, nan]], np.float16),
            "action": np.array([1, 0, 2], np.int8), "won": np.array([0, 1, 1], np.int8)}
    # row 0: the answer taken has a value; row 1: it has none, the best one's; row 2: none
    # has one, the game's outcome
    assert np.allclose(distil.search_values(data), [0.7, 0.9, 1.0], atol=1e-3)
    # labels recorded without the values: the outcome throughout
    assert np.array_equal(distil.search_values({**data, "value": None}), [0, 1, 1])


def test_the_value_head_fits_the_searchs_values(tmp_path):
    """value_target: "game" (the default) fits the value head to the labelled game's
    outcome, "search" to the search's value of the answer it took (distil.search_values):
    each head is nearer its own target on the labels than the other head is, the policy
    is fitted either way, and the field is written only when it is not the default (runs
    written before it keep their id)."""
    pytest.importorskip("uno_sim.players.record")
    game = dataclasses.replace(TINY, iterations=0, label_games=8, label_shard=4,
                               label_policy=FAST_SEARCH, label_opponents=("greedy",),
                               distil_epochs=6, distil_lr=3e-3, eval_every=0)
    search = dataclasses.replace(game, value_target="search")
    assert "value_target" not in game.to_dict()
    assert search.to_dict()["value_target"] == "search"
    assert Recipe.from_dict(search.to_dict()) == search
    nets = {"game": train(game, str(tmp_path / "game"), progress=False),
            "search": train(search, str(tmp_path / "search"), progress=False,
                            labels_from=str(tmp_path / "game"))}
    data = distil.concat([distil.read_shard(str(tmp_path / "game" / f"labels-0-{s['index']}.npz"),
                                            s["sha256"]) for s in nets["game"].labels])
    targets = {"game": data["won"].astype(np.float64), "search": distil.search_values(data)}
    assert np.abs(targets["game"] - targets["search"]).mean() > 0.1  # two different targets
    x = distil.dense(data, np.arange(len(data["action"])), nets["game"].net.obs_size)
    p = {k: 1 / (1 + np.exp(-state.net.forward(x)[1][:, 0].astype(np.float64)))
         for k, state in nets.items()}
    err = {(head, target): float(((p[head] - targets[target]) ** 2).mean())
           for head in p for target in targets}
    assert err["search", "search"] < err["game", "search"], err
    assert err["game", "game"] < err["search", "game"], err
    assert nets["search"].distilled[0]["agreement"] > 0.5
    with pytest.raises(TrainError, match="invalid value_target 'points'"):
        dataclasses.replace(game, value_target="points").checked()


def test_dagger_rounds_label_the_states_the_network_reaches(tmp_path):
    """label_play="net(weights={net})": the rounds after the first play the network as it
    stands at the labelling seat (round-1.unonet) and record the labelling search's answers
    there: a shard of round 1 is the recorder's rows with that file playing, not those of
    the search playing; label_play without a later round, or naming a search player, is
    refused before any work."""
    pytest.importorskip("uno_sim.players.record")
    recipe = dataclasses.replace(TINY, iterations=0, label_games=8, label_shard=4,
                                 label_rounds=2, label_play="net(weights={net})",
                                 label_policy=FAST_SEARCH, label_opponents=("greedy",),
                                 distil_epochs=2, eval_every=0)
    out = tmp_path / "run"
    state = train(recipe, str(out), progress=False)
    assert [d.get("file") for d in state.distilled] == [None, "round-1.unonet"]
    entry = next(s for s in state.labels if s["round"] == 1 and s["index"] == 0)
    stored = distil.read_shard(str(out / "labels-1-0.npz"), entry["sha256"])
    played = distil.label_shard(recipe, 1, 0, FAST_SEARCH,
                                play=f"net(weights={out / 'round-1.unonet'})")
    searched = distil.label_shard(recipe, 1, 0, FAST_SEARCH)
    for k in ("cols", "vals", "ptr", "action", "value"):
        assert np.array_equal(stored[k], played[k], equal_nan=True), k
    assert len(searched["action"]) != len(stored["action"]) or \
        not np.array_equal(searched["cols"], stored["cols"])
    with pytest.raises(TrainError, match="invalid label_play"):
        dataclasses.replace(recipe, label_rounds=1).checked()
    with pytest.raises(RulesError, match="a search player labels"):
        dataclasses.replace(recipe, label_play="ismcts").checked()


def test_challenge_rows_learn_the_truth_at_the_break_even():
    """challenge_break_even: a challenge row's target is the truth the recorder knows (C12:
    challenge a bluff, let a legal card pass), weighted so that the weighted cross-entropy
    is least where P(yes) equals the break-even's odds; other rows keep their targets."""
    mask = np.zeros((3, 6), bool)
    mask[:, [1, 2]] = True
    target = np.zeros((3, 6), np.float32)
    target[:, 1] = 1.0  # the teacher said yes everywhere
    w = distil.challenge_targets(target, mask, np.array([1, 0, -1], np.int8), 0.3)
    assert target[0].tolist() == [0, 1, 0, 0, 0, 0] and target[1].tolist() == [0, 0, 1, 0, 0, 0]
    assert target[2].tolist() == [0, 1, 0, 0, 0, 0]
    assert w.tolist() == pytest.approx([1.4, 0.6, 1.0])
    # a state that is a bluff with probability p: the weighted loss is least at
    # P(yes) = p w_bluff / (p w_bluff + (1 - p) w_legal), above 1/2 exactly when p > 0.3
    for p, above in ((0.25, False), (0.35, True)):
        q = p * 1.4 / (p * 1.4 + (1 - p) * 0.6)
        assert (q > 0.5) == above


def test_output_folders_are_checked_before_any_work(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    with pytest.raises(TrainError, match="not empty"):
        train(TINY, str(tmp_path / "full"), progress=False)
    with pytest.raises(TrainError, match="no train.json"):
        train(resume=str(tmp_path / "full"), progress=False)
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "train.json").write_text('{"kind": "something else"}')
    (tmp_path / "fake" / "checkpoint.npz").write_bytes(b"not a zip")
    with pytest.raises(TrainError, match="not uno-sim train's"):
        train(resume=str(tmp_path / "fake"), progress=False)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(TrainError, match="is a file"):
        train(TINY, str(tmp_path / "afile"), progress=False)


def test_a_damaged_checkpoint_is_refused(tmp_path):
    recipe = dataclasses.replace(TINY, iterations=2, eval_every=0)
    train(recipe, str(tmp_path / "run"), progress=False)
    path = tmp_path / "run" / "checkpoint.npz"
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(TrainError, match="damaged"):
        load(str(tmp_path / "run"))


def test_a_changed_snapshot_is_refused(tmp_path):
    """The pool's snapshots are part of the run: a resume refuses one whose checksum is not
    the one the run recorded."""
    recipe = dataclasses.replace(TINY, iterations=3, pool_every=2, eval_every=0)
    train(recipe, str(tmp_path / "run"), progress=False)
    path = tmp_path / "run" / "pool-2.unonet"
    net = netfile.read(str(path))
    net.metadata = {"changed": True}
    netfile.write(str(path), net)
    with pytest.raises(TrainError, match="pool-2.unonet is not the snapshot"):
        load(str(tmp_path / "run"))


@pytest.mark.parametrize("argv,words", [
    (["--lr", "abc"], "invalid --lr 'abc'"),
    (["--widths", "64,x"], "invalid --widths"),
    (["--widths", "5000"], "invalid widths"),
    (["--iterations", "-3"], "invalid iterations"),
    (["--opponent", "nosuch"], "nosuch"),
    (["--players", "11"], "players"),
    (["--value-target", "points"], "invalid value_target 'points'"),
])
def test_cli_refuses_bad_values_in_one_line(tmp_path, capsys, argv, words):
    assert main(["train", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err
    assert not (tmp_path / "o").exists()


def test_cli_trains_and_resume_takes_no_other_flag(tmp_path, capsys):
    out = str(tmp_path / "o")
    assert main(["train", "--out", out, "--widths", "16", "--iterations", "2",
                 "--envs", "16", "--steps", "8", "--segment", "1", "--eval-every", "0",
                 "--quiet"]) == 0
    assert "trained 2 iterations" in capsys.readouterr().out
    meta = json.loads(open(os.path.join(out, "train.json")).read())
    assert meta["command"] == (f"uno-sim train --widths 16 --iterations 2 --envs 16 "
                               f"--steps 8 --segment 1 --eval-every 0 --out {out}")
    assert main(["train", "--resume", out, "--lr", "0.1"]) == 2
    assert "no other flag (--lr)" in capsys.readouterr().err
    assert main(["train", "--out", out]) == 2  # not empty
    assert main(["train", "--resume", out, "--quiet"]) == 0  # done already: nothing to do


def test_rules_of_the_recipe():
    assert TINY.rules() == Rules(players=2)
    with pytest.raises(TrainError, match="invalid variant"):
        dataclasses.replace(TINY, variant="nope").checked()
    # C-H1, C-H4: house rules are the recipe's `rule` switches, in its command and its JSON
    house = dataclasses.replace(TINY, rule=("stacking=both", "jump_in=true"))
    assert house.rules() == Rules(players=2, stacking="both", jump_in=True)
    assert "--rule stacking=both --rule jump_in=true" in command_line(house)
    assert Recipe.from_dict(house.to_dict()) == house
    assert "rule" not in TINY.to_dict()  # a run written before the field keeps its id
    for bad, words in ((("stacking",), "invalid rule 'stacking': expected KEY=VALUE"),
                       (("=both",), "invalid rule '=both': expected KEY=VALUE"),
                       (("players=3",), "players is not a rule switch of a recipe"),
                       (("deck=x.csv",), "deck is not a rule switch"),
                       (("jump_in=2",), "invalid jump_in '2'"),
                       (("stacking=both", "stacking=none"), "stacking is given twice")):
        with pytest.raises(TrainError, match=re.escape(words)):
            dataclasses.replace(TINY, rule=bad).checked()


HOUSE = ("stacking=both", "jump_in=true", "seven_o=true")  # C-H1, C-H4, C-H5
STACK, TARGET, JUMP_IN = 8, 7, 9  # their decisions (uno.h)


def test_a_recipe_learns_its_house_rules_decisions(tmp_path):
    """C-H1, C-H4, C-H5 in training: the labelled games are played by the recipe's rules,
    so a network distilled from a search answers the house rules' decisions (stack, jump
    in, the 7's target) as its teacher does on fresh games far more often than at its
    start; its weight file names the rules."""
    from uno_sim.players.record import record

    recipe = dataclasses.replace(TINY, players=3, rule=HOUSE, iterations=0, label_games=48,
                                 label_shard=8, label_policy=FAST_SEARCH,
                                 label_opponents=("greedy",), distil_epochs=6,
                                 distil_lr=3e-3, eval_every=0)
    out = tmp_path / "house"
    state = train(recipe, str(out), progress=False)
    rules = recipe.rules()
    meta = netfile.read(str(out / "net.unonet")).metadata
    assert Rules.from_dict(meta["rules"]) == rules and meta["recipe"]["rule"] == list(HOUSE)
    rows = record(rules, [FAST_SEARCH, "greedy", "greedy"], seats=[0], games=16, seed=4242,
                  obs_seats=3)
    mask = rows["mask"].astype(bool)
    agree, pred = {}, None
    for name, net in (("start", new_state(recipe).net), ("trained", state.net)):
        pred = np.where(mask, net.forward(rows["obs"])[0], -np.inf).argmax(1)
        agree[name] = {k: (pred == rows["action"])[rows["decision"] == k].mean()
                       for k in (STACK, TARGET, JUMP_IN)}
    # about 0.61 -> 0.78 (stack), 0.48 -> 0.95 (jump in); the cheap teacher's target is
    # close to a coin flip between two opponents of like value: 0.43 -> 0.54
    for k, gain in ((STACK, 0.1), (JUMP_IN, 0.3), (TARGET, 0.05)):
        s = rows["decision"] == k
        assert s.sum() >= 20, k
        assert agree["trained"][k] > agree["start"][k] + gain, (k, agree)
        if k != JUMP_IN:  # the teacher jumps in 0.95 of the time: one answer is right
            assert len(np.unique(pred[s])) >= 2, k  # the network's answers: not one


# A young network that stalls games against greedy: seed 0, widths 128,128, untrained
# (issue 39: its first curve point stopped `uno-sim train --seed 0 --widths 128,128`).
STALLER = Recipe(seed=0, widths=(128, 128), iterations=0, eval_deals=20)


def test_a_game_the_network_stalls_is_cut_and_counted(tmp_path):
    """The young network at seat 0 against greedy stalls game 80 of the curve's run: the
    games around it are played as one batch, game 80 is cut (no winner: every seat 0) and
    counted, and every other game is the one the engine plays alone; the limit's message
    names no policy knob."""
    from uno_sim.engine import GameLimitError
    from uno_sim.players.strength import win_shares
    from uno_sim.players.train import EVAL_SEED, to_netfile
    from uno_sim.runner import play_columns, win_matrix

    rules = STALLER.rules()
    path = str(tmp_path / "young.unonet")
    netfile.write(path, to_netfile(new_state(STALLER).net, rules, {}))
    specs = [f"net(weights={path})", "greedy"]
    with pytest.raises(GameLimitError) as e:
        play_columns(rules, specs, EVAL_SEED, 78, 5)
    assert e.value.game == 80 and "voluntary_draw" not in str(e.value)
    w, cut = win_shares(rules, specs, EVAL_SEED, 78, 5)
    assert cut == 1 and not w[2].any()
    for i in (0, 1, 3, 4):
        assert np.array_equal(w[i], win_matrix(play_columns(rules, specs, EVAL_SEED, 78 + i, 1))[0])


def test_training_goes_on_past_a_stalled_game_and_says_so(tmp_path, capsys):
    """`uno-sim train --seed 0 --widths 128,128` once stopped at its first curve point:
    now the point counts the games cut (train.json), the command says so and exits 0;
    a run that failed there (its folder holding the start's checkpoint, no point) resumes
    to the same result."""
    from uno_sim.engine import GameLimitError
    from uno_sim.players import train as trainmod

    out = str(tmp_path / "o")
    assert main(["train", "--seed", "0", "--widths", "128,128", "--iterations", "0",
                 "--eval-deals", "20", "--quiet", "--out", out]) == 0
    text = capsys.readouterr().out
    assert "curve: 2 games cut at the engine's safety limits" in text
    point = json.loads(open(os.path.join(out, "train.json")).read())["curve"][0]
    assert point["cut"] == 2 and point["share"] == 0.0

    real = trainmod.evaluate

    def fail(state):
        raise GameLimitError("game 0 did not end")

    trainmod.evaluate = fail  # the failure of the version before
    try:
        with pytest.raises(GameLimitError):
            train(STALLER, str(tmp_path / "failed"), progress=False)
    finally:
        trainmod.evaluate = real
    resumed = train(resume=str(tmp_path / "failed"), progress=False)
    assert resumed.curve == [{**point, "cpu_seconds": resumed.curve[0]["cpu_seconds"]}]


def test_resume_takes_only_the_runs_own_checkpoint_and_recipe(tmp_path, capsys):
    """train.json and checkpoint.npz name their run (the digest of its recipe and command;
    the checkpoint holds both): a checkpoint of another run of the same recipe (another
    seed) is refused, as `run --resume` refuses a shard of another run, and so is a
    train.json whose recipe or command was edited; a run written before run ids (neither
    file names one) still resumes."""
    recipe = dataclasses.replace(TINY, iterations=2, eval_every=0)
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    train(recipe, a, progress=False)
    train(dataclasses.replace(recipe, seed=7), b, progress=False)
    good = open(os.path.join(a, "checkpoint.npz"), "rb").read()
    other = open(os.path.join(b, "checkpoint.npz"), "rb").read()
    open(os.path.join(a, "checkpoint.npz"), "wb").write(other)
    assert main(["train", "--resume", a, "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "checkpoint.npz belongs to another run (its seed is 7, train.json's 0)" in err
    assert "\n" not in err
    open(os.path.join(a, "checkpoint.npz"), "wb").write(good)
    path = os.path.join(a, "train.json")
    meta = json.loads(open(path).read())
    for key, value in (("recipe", {**meta["recipe"], "lr": 0.1}),
                       ("recipe", {**meta["recipe"], "iterations": 9}),
                       ("command", meta["command"] + " --lr 0.1")):
        open(path, "w").write(json.dumps({**meta, key: value}))
        with pytest.raises(TrainError, match="train.json was changed after the run wrote it"):
            load(a)
    open(path, "w").write(json.dumps(meta))
    assert load(a)[0].iteration == 2
    # a run of the version before run ids: neither file names one
    legacy = {k: v for k, v in meta.items() if k != "run"}
    open(path, "w").write(json.dumps(legacy))
    with np.load(os.path.join(a, "checkpoint.npz")) as z:
        arrays = {k: z[k] for k in z.files if k not in ("run", "recipe", "command")}
    np.savez(os.path.join(a, "checkpoint.npz"), **arrays)
    assert load(a)[0].iteration == 2
    open(os.path.join(a, "checkpoint.npz"), "wb").write(good)  # one file names a run
    with pytest.raises(TrainError, match="belongs to another run"):
        load(a)


@pytest.mark.parametrize("argv,words", [
    (["--steps", "1000000000", "--envs", "8"], "steps 1000000000 x envs 8"),
    (["--label-games", "1000000000", "--label-shard", "1000000000"], "label_shard 1000000000"),
    (["--label-games", "1000000000", "--label-shard", "50"], "label_games 1000000000"),
    (["--envs", "2000000"], "invalid envs 2000000"),
])
def test_sizes_that_cannot_be_allocated_are_refused_before_any_work(tmp_path, capsys, argv,
                                                                    words):
    """A recipe whose stage needs more memory than the machine has (terabytes here) is one
    line naming the fields, exit 2, before the folder is made."""
    assert main(["train", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err
    assert not (tmp_path / "o").exists()


def test_the_memory_check_is_a_lower_bound_of_each_stage():
    """The estimate grows with each stage's fields and a small recipe fits a small machine:
    TINY and the shipped recipes pass with 1 GiB, a rollout of a million steps of 8 games
    (about 11 GB of inputs) does not."""
    from uno_sim.players.train import RECIPES, check_memory, memory_needs

    for recipe in [TINY, *RECIPES.values()]:
        check_memory(recipe, available=2**30)
    big = dataclasses.replace(TINY, steps=10**6, envs=8)
    need, what = max(memory_needs(big))
    n_in = new_state(TINY).net.obs_size
    assert need >= 10**6 * 8 * 4 * n_in and what.startswith("steps 1000000 x envs 8")
    with pytest.raises(TrainError, match="needs at least .* GiB of memory, this machine has "
                                         "1 GiB"):
        check_memory(big, available=2**30)


def test_the_quick_recipe_learns_in_seconds(tmp_path):
    """The --help's first example, `--recipe quick`: strategic's answers distilled.  A tenth
    of its labelled games (two seconds of one core) already make a player that wins every
    game against random and holds its own against greedy on fresh deals (the whole recipe:
    docs/training.md "A first run"), where the untrained network wins nothing."""
    from uno_sim.players.strength import spec_share
    from uno_sim.players.train import RECIPES
    from uno_sim.players.traincli import EXAMPLES

    assert EXAMPLES[0].startswith("uno-sim train --recipe quick --seed 0 --out runs/quick")
    recipe = dataclasses.replace(RECIPES["quick"], label_games=100, label_shard=50,
                                 eval_deals=40)
    state = train(recipe, str(tmp_path / "q"), progress=False)
    assert state.curve[0]["share"] < 0.05  # the untrained network, on the curve's deals
    spec = f"net(weights={tmp_path / 'q' / 'net.unonet'})"
    rules = recipe.rules()
    assert spec_share(spec, rules, 100, 5, "random").low > 0.9
    assert spec_share(spec, rules, 100, 5, "greedy").low > 0.3
