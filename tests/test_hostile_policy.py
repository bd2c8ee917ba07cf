"""User policies that try to break the engines (docs/rules.md P1, P2; docs/policies.md).

A policy may rewrite its observation, return out-of-range indices, seats and
colors, or objects whose ``__eq__``/``__index__`` lie: every answer is checked
against the legal set the engine keeps out of the policy's reach, and the C
engine checks the bounds of whatever its callback returns.  A bad answer is a
PolicyError naming seat, round, turn and the answer, on both engines.
"""

from __future__ import annotations

import pytest

import uno_sim
from uno_sim.userpolicy import Action, PolicyError, UserSeat

ANSWER = r"seat \d+, round \d+, turn \d+"


def rewriting(decision, forged, prefer=None):
    """A policy that, at `decision`, writes `forged` into obs.actions and answers it."""

    def policy(obs):
        if obs.decision == decision:
            object.__setattr__(obs, "actions", obs.actions + (forged,))
            return forged
        if prefer is not None:
            for a in obs.actions:
                if isinstance(a, Action) and a.card is not None and prefer(a.card):
                    return a
        return obs.actions[0]

    return policy


def play_until_error(policy, engine, seeds=range(6), **rules):
    for seed in seeds:
        uno_sim.play_game(players=4, policies=[policy, "greedy", "greedy", "greedy"],
                          seed=seed, engine=engine, **rules)
    pytest.fail("the policy never reached the decision it forges")


@pytest.mark.parametrize("index", [100000, -5, 7, 2**40])
def test_p1_forged_hand_index_is_refused(engine, index):
    with pytest.raises(PolicyError, match=rf"illegal action Action\(kind='play', index={index}.*"
                                          rf"{ANSWER}"):
        play_until_error(rewriting("play", Action("play", index, "R5")), engine)


@pytest.mark.parametrize("seat", [9, -1, 0])  # 0: the deciding seat itself
def test_p2_forged_target_seat_is_refused(engine, seat):
    with pytest.raises(PolicyError, match=rf"illegal action {seat} .*{ANSWER}.*target"):
        play_until_error(rewriting("target", seat, prefer=lambda c: c.endswith("7")), engine,
                         seven_o=True)


def test_p1_illegal_card_forged_into_the_actions_is_refused(engine):
    def policy(obs):
        if obs.decision == "play":
            legal = {a.index for a in obs.actions}
            for i, code in enumerate(obs.hand):
                if i not in legal:
                    forged = Action("play", i, code)
                    object.__setattr__(obs, "actions", obs.actions + (forged,))
                    return forged
        return obs.actions[0]

    with pytest.raises(PolicyError, match=ANSWER):
        play_until_error(policy, engine)


def test_f3_color_of_the_other_flip_side_is_refused(engine):
    def policy(obs):
        if obs.decision == "color":
            forged = "P" if obs.side == "light" else "R"
            object.__setattr__(obs, "actions", obs.actions + (forged,))
            return forged
        return obs.actions[0]

    with pytest.raises(PolicyError, match=r"illegal action '[PR]'.*decision color"):
        play_until_error(policy, engine, variant="flip")


def test_p1_lying_eq_and_index_are_refused(engine):
    class Liar(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

        def __index__(self):
            return 100000

    def policy(obs):
        if obs.decision == "play":
            return Action("play", Liar(0), obs.actions[0].card)
        if obs.decision == "target":
            return Liar(9)
        return obs.actions[0]

    with pytest.raises(PolicyError, match=ANSWER):
        play_until_error(policy, engine)


@pytest.mark.parametrize("answer,decision", [(100000, "play"), (-5, "play"), (9, "target"),
                                             (-1, "target"), (7, "color"), (2, "call_uno"),
                                             (2**40, "play"), ("x", "play")])
def test_p1_c_engine_bounds_checks_what_its_callback_returns(monkeypatch, answer, decision):
    """Past the Python checks (the callback itself answers), the C engine still refuses."""
    honest = UserSeat.decide

    def decide(self, raw, d, arg, bounded=None):
        r = honest(self, raw, d, arg, bounded)
        from uno_sim.userpolicy import DECISIONS
        return answer if DECISIONS[d] == decision else r

    monkeypatch.setattr(UserSeat, "decide", decide)

    def policy(obs):
        for a in obs.actions:
            if isinstance(a, Action) and a.card and a.card.endswith("7"):
                return a
        return obs.actions[0]

    with pytest.raises(PolicyError, match=rf"illegal answer .*{ANSWER}.*out of range"):
        play_until_error(policy, "c", seven_o=True)


def test_p1_a_kept_randint_cannot_draw_after_its_decision(engine):
    kept = []

    def policy(obs):
        if kept:
            kept[0](3)
        kept.append(obs.randint)
        return obs.actions[0]

    with pytest.raises(RuntimeError, match="no longer live"):
        uno_sim.play_game(players=2, policies=[policy, "greedy"], engine=engine)


def test_p1_a_policy_writing_into_its_raw_state_does_not_change_the_game(engine):
    """The state a policy's frame reaches is a copy on both engines (the C engine's always was)."""
    import sys

    def vandal(obs):
        raw = sys._getframe(1).f_locals.get("raw")
        if raw is not None:
            for h in raw.hands:
                h.clear()
            raw.scores[:] = [10**9] * len(raw.scores)
        return obs.actions[0]

    def plain(obs):
        return obs.actions[0]

    a = uno_sim.play_game(players=3, policies=[vandal, "greedy", "greedy"], seed=3, trace=True,
                          engine=engine)
    b = uno_sim.play_game(players=3, policies=[plain, "greedy", "greedy"], seed=3, trace=True,
                          engine=engine)
    assert a.events[1:] == b.events[1:]


def _reachable_engine_state(start, depth=6):
    """Engine objects (reference.Game, rng.Rng) reachable from `start` through frames,
    their locals, closures, bound methods, attributes and containers, up to `depth`."""
    import types

    from uno_sim import reference, rng

    found, seen, layer = [], set(), [start]
    for _ in range(depth):
        nxt = []
        for x in layer:
            if id(x) in seen or x is None or isinstance(x, (int, float, str, bytes, bool)):
                continue
            seen.add(id(x))
            if isinstance(x, (reference.Game, rng.Rng)):
                found.append(type(x).__name__)
                continue
            if isinstance(x, types.ModuleType) or isinstance(x, type):
                continue  # modules and classes lead everywhere; instances are the question
            if isinstance(x, types.FrameType):
                nxt += [x.f_back, *x.f_locals.values()]
            elif isinstance(x, (list, tuple, set, frozenset)):
                nxt += list(x)[:64]
            elif isinstance(x, dict):
                nxt += list(x.values())[:64]
            else:
                nxt += [getattr(x, "__self__", None), getattr(x, "__func__", None)]
                for cell in getattr(x, "__closure__", None) or ():
                    nxt.append(cell.cell_contents)
                nxt += list(getattr(x, "__dict__", {}).values())
                for slot in getattr(type(x), "__slots__", ()):
                    nxt.append(getattr(x, slot, None))
        layer = nxt
    return found


def test_p1_reference_policy_reaches_no_more_engine_state_than_in_c(engine):
    """The calling frames and obs.randint lead to no Game or generator (C has none to show)."""
    import sys

    reached = []

    def snoop(obs):
        if not reached:
            reached.append(_reachable_engine_state(sys._getframe()))
            reached.append(_reachable_engine_state(obs))
        return obs.actions[0]

    uno_sim.play_game(players=2, policies=[snoop, "greedy"], engine=engine)
    assert reached == [[], []]
