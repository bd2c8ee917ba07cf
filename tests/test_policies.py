"""Policies (docs/rules.md P1, P2): every knob at its extremes through the event trace,
challenge=auto, user policies in Python (observation, hidden information,
errors), and the paired tournament.  Every test runs on both engines.
"""

from __future__ import annotations

import math

import pytest

import uno_sim
from specs import pinned as pol
from uno_sim import Rules, arrange
from uno_sim.policies import POLICIES, parse_policy
from uno_sim.userpolicy import DRAW_ACTION, PolicyError

NAMES = tuple(POLICIES)  # random, greedy, strategic


def games(engine, policies, n=12, players=3, **rules):
    rules.setdefault("target", 150)
    for g in range(n):
        yield uno_sim.play_game(players=players, policies=policies, seed=11, game=g, trace=True,
                                engine=engine, **rules).events


def plays(events):
    return [e for e in events if e["e"] == "play"]


# --- bluff (C7, C12) ----------------------------------------------------------

def bluff_deck():
    # seat 1 plays first on R3 holding R5 and W+4: W+4 would be a bluff
    return arrange(players=2, dealer=0, hands={1: ["W+4", "R5", "G1", "G2", "B1", "B2", "Y1"]},
                   starter="R3")


@pytest.mark.parametrize("name", ["greedy", "strategic"])
def test_c12_bluff_1_always_bluffs_when_it_can(engine, name):
    ev = uno_sim.play_round(players=2, policies=pol(name, bluff=1), deck=bluff_deck(),
                            engine=engine).events
    first = plays(ev)[0]
    assert first["p"] == 1 and first["card"] == "W+4" and first["legal"] is False


def test_c12_bluff_1_random_keeps_the_bluff_among_its_uniform_options(engine):
    # random: bluff is the probability that the illegal W+4 joins its uniform choice
    firsts = {plays(uno_sim.play_round(players=2, policies=pol("random", bluff=1),
                                       deck=bluff_deck(), seed=s, engine=engine).events)[0]
              .get("legal") for s in range(30)}
    assert False in firsts


@pytest.mark.parametrize("name", NAMES)
def test_c12_bluff_0_never_bluffs(engine, name):
    ev = uno_sim.play_round(players=2, policies=pol(name, bluff=0), deck=bluff_deck(),
                            engine=engine).events
    assert plays(ev)[0]["card"] != "W+4"
    for events in games(engine, pol(name, bluff=0), n=6):
        assert all(e.get("legal", True) for e in plays(events))


# --- challenge (C12) -------------------------------------------------------------

def after_wd4(events):
    """For each W+4 play that did not end the round: whether a challenge followed it."""
    out = []
    for i, e in enumerate(events):
        if e["e"] == "play" and e["card"] == "W+4":
            for f in events[i + 1:]:
                if f["e"] in ("challenge", "play", "pass", "round_end"):
                    if f["e"] != "round_end":
                        out.append(f["e"] == "challenge")
                    break
    return out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("p", [0, 1])
def test_c12_challenge_0_never_1_always(engine, name, p):
    seen = []
    for events in games(engine, pol(name, challenge=p), n=8):
        seen += after_wd4(events)
    assert seen and all(x == bool(p) for x in seen)


def auto_deck():
    # seat 1 holds no red and no 3: it must play its W+4 on R3, legally; seat 0 holds no red
    return arrange(players=2, dealer=0,
                   hands={0: ["Y2", "Y4", "Y5", "Y6", "B4", "B5", "B6"],
                          1: ["W+4", "G1", "G2", "G4", "B1", "B2", "Y1"]}, starter="R3")


def test_c12_challenge_auto_estimate_is_hypergeometric():
    # victim seat 0 sees its 7 cards and the discards R3, W+4: 99 unseen, 24 of them red;
    # the offender holds 6 cards
    from uno_sim import reference
    from uno_sim.rng import Rng, key_from_seed

    g = reference.Game(Rules(players=2), "greedy", Rng(key_from_seed(0)), trace=False)
    g.start_round(0, g.deck.cards_from_codes(auto_deck()))
    wd4 = g.deck.cards_from_codes(["W+4"])[0]
    g.hands[1].remove(wd4)  # seat 1 has just played it; seat 0 decides now
    g.discard.append(wd4)
    expected = 1 - math.comb(99 - 24, 6) / math.comb(99, 6)
    assert reference.bluff_probability(g, 0, 1, 0) == pytest.approx(expected, rel=1e-12)
    assert 0.8 < expected < 0.85


@pytest.mark.parametrize("threshold,challenged", [(0.5, True), (0.8, True), (0.85, False),
                                                   (1, False)])
def test_c12_challenge_auto_compares_estimate_with_threshold(engine, threshold, challenged):
    policies = [pol("greedy", challenge="auto", challenge_threshold=threshold), pol("greedy")]
    ev = uno_sim.play_round(players=2, policies=policies, deck=auto_deck(), engine=engine).events
    assert after_wd4(ev)[0] is challenged
    if challenged:  # the WD4 was legal: the challenger draws 6
        ch = next(e for e in ev if e["e"] == "challenge")
        assert ch["bluff"] is False and ch["hand"] and ch["p"] == 0


# --- forget_uno and catch (C13) --------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_c13_forget_uno_1_always_forgets_0_never(engine, name):
    for f in (0, 1):
        calls = [e["called"] for events in games(engine, pol(name, forget_uno=f), n=4)
                 for e in events if e["e"] == "uno"]
        assert calls and all(c == (f == 0) for c in calls)


@pytest.mark.parametrize("name", NAMES)
def test_c13_catch_1_always_catches_0_never(engine, name):
    for c in (0, 1):
        # seat 0 always forgets; the others catch with probability c
        policies = [pol(name, forget_uno=1), pol(name, catch=c), pol(name, catch=c)]
        n_forgot = n_caught = 0
        for events in games(engine, policies, n=4):
            for i, e in enumerate(events):
                if e["e"] == "uno" and not e["called"]:
                    n_forgot += 1
                    n_caught += events[i + 1]["e"] == "caught"
        assert n_forgot and n_caught == (n_forgot if c else 0)


# --- play_drawn and voluntary_draw (C8) --------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_c8_play_drawn_1_plays_0_never(engine, name):
    for p in (0, 1):
        played_drawn = 0
        for events in games(engine, pol(name, play_drawn=p), n=6):
            for i, e in enumerate(events[:-1]):
                if e["e"] == "draw" and e["reason"] in ("cannot_play", "voluntary"):
                    nxt = events[i + 1]
                    if nxt["e"] == "play" and nxt["p"] == e["p"]:
                        assert nxt["card"] == e["cards"][0]
                        played_drawn += 1
        assert (played_drawn > 0) == bool(p)


@pytest.mark.parametrize("name", ["greedy", "strategic"])
def test_c8_voluntary_draw_1_draws_although_it_could_play(engine, name):
    deck = arrange(players=2, dealer=0, hands={1: ["R5", "G1", "G2", "B1", "B2", "Y1", "Y2"]},
                   starter="R3")
    ev = uno_sim.play_round(players=2, policies=[pol(name), pol(name, voluntary_draw=1)],
                            deck=deck, engine=engine).events
    first = next(e for e in ev if e["e"] in ("draw", "play") and e["p"] == 1)
    assert first["e"] == "draw" and first["reason"] == "voluntary"
    ev0 = uno_sim.play_round(players=2, policies=pol(name), deck=deck, engine=engine).events
    assert not any(e["e"] == "draw" and e["reason"] == "voluntary" for e in ev0)


# --- knob parsing --------------------------------------------------------------------

def test_p2_every_policy_parses_every_knob_and_target():
    for name, (_, defaults) in POLICIES.items():
        s = parse_policy(f"{name}(challenge=auto,challenge_threshold=0.3,target=next)")
        assert s.knob("challenge") == "auto" and s.knob("target") == "next"
        assert set(s.knobs()) == set(defaults)
    with pytest.raises(uno_sim.RulesError, match="'sideways'"):
        parse_policy("greedy(target=sideways)")
    with pytest.raises(uno_sim.RulesError, match="'maybe'"):
        parse_policy("greedy(challenge=maybe)")


def test_p2_knob_table_matches_uno_policy():
    """One knob table (policies.KNOBS, SEARCH_KNOBS for the search players and NET_KNOBS
    for the network) fills uno_policy by name; a table that leaves a field unfilled, fills
    one twice or names one uno_policy lacks is an error."""
    from dataclasses import replace

    from uno_sim.engine import POLICY_FIELDS
    from uno_sim.policies import KNOB, NET_KNOBS, SEARCH_KNOBS, check_knobs
    from uno_sim.policies import KNOBS as BUILTIN

    search_fields = {f for k in SEARCH_KNOBS + NET_KNOBS for f in k.fields}
    KNOBS = BUILTIN + SEARCH_KNOBS + NET_KNOBS
    assert check_knobs(KNOBS, POLICY_FIELDS) == KNOBS
    assert KNOB["challenge"].fields == ("challenge", "challenge_auto", "challenge_posterior")
    without_catch = tuple(k for k in KNOBS if k.name != "catch")
    with pytest.raises(ValueError, match="by no knob \\['catch'\\]"):
        check_knobs(without_catch, POLICY_FIELDS)
    with pytest.raises(ValueError, match="filled twice \\['bluff'\\]"):
        check_knobs(KNOBS + (replace(KNOB["bluff"], name="bluff2", fields=("bluff",)),),
                    POLICY_FIELDS)
    renamed = tuple(replace(k, name="colour", fields=()) if k.name == "color" else k
                    for k in KNOBS)
    with pytest.raises(ValueError, match="unknown \\['colour'\\]"):
        check_knobs(renamed, POLICY_FIELDS)
    # the reference policies read every knob by its own name
    from uno_sim.reference.policies import StrategicPolicy

    ref = StrategicPolicy(parse_policy("strategic(target=next,challenge=posterior)"), None)
    assert {f: getattr(ref, f) for f in POLICY_FIELDS
            if f != "id" and f not in search_fields} == ref.spec.c_knobs()
    assert (ref.target, ref.color, ref.challenge_posterior) == ("next", "smart", 1)



def test_p2_docs_knob_table_matches_the_knob_table():
    """docs/policies.md has one row per knob of policies.KNOBS, in its order, with the
    knob's values and its default in each built-in policy."""
    from pathlib import Path

    from uno_sim.policies import KNOBS, POLICY_NAMES

    text = (Path(__file__).parent.parent / "docs" / "policies.md").read_text()
    lines = text.splitlines()
    head = "| knob | values | " + " | ".join(POLICY_NAMES) + " | meaning |"
    assert lines.count(head) == 1
    i = lines.index(head) + 2
    rows = []
    while lines[i].startswith("| `"):
        rows.append([c.strip().replace("`", "") for c in lines[i].strip("|").split(" | ")])
        i += 1
    assert [r[0] for r in rows] == [k.name for k in KNOBS]
    for k, row in zip(KNOBS, rows):
        assert row[1].split(", ") == list(k.alternatives()), k.name
        for name, cell in zip(POLICY_NAMES, row[2:5]):
            assert k.parse(cell, name) == k.defaults[name], (k.name, name)
        assert row[5], k.name

# --- user policies (P1) --------------------------------------------------------------

class Recorder:
    """A deterministic user policy that keeps every observation it is given."""

    name = "recorder"

    def __init__(self):
        self.seen = []

    def decide(self, obs):
        self.seen.append(obs)
        if obs.decision in ("play", "replacement"):
            legal = [a for a in obs.actions if a != DRAW_ACTION and not a.bluff]
            return legal[obs.randint(len(legal))] if legal else obs.actions[-1]
        return obs.actions[obs.randint(len(obs.actions))]


def test_p1_user_policy_same_game_and_observations_on_both_engines():
    rules = Rules(players=3, target=150)
    out = {}
    for engine in ("reference", "c"):
        rec = Recorder()
        res = uno_sim.play_game(rules, [rec, "strategic", "random"], seed=3, game=1, trace=True,
                                engine=engine)
        out[engine] = (res, rec.seen)
    (r_ref, o_ref), (r_c, o_c) = out["reference"], out["c"]
    assert r_ref == r_c
    assert len(o_ref) > 20 and o_ref == o_c
    decisions = {o.decision for o in o_ref}
    assert {"play", "color"} <= decisions


def test_p1_observation_unchanged_when_hidden_cards_are_permuted():
    from uno_sim import reference
    from uno_sim.rng import Rng, key_from_seed

    rec = Recorder()
    g = reference.Game(Rules(players=4), [rec, "greedy", "greedy", "greedy"],
                       Rng(key_from_seed(5)), trace=False)
    g.start_round(3)
    g.failed[2] = 0b101  # some public history
    g.policies[0].choose_play(g, 0)
    before = rec.seen[-1]
    # permute the opponents' cards among them (sizes kept) and the draw pile
    pool = [c for s in (1, 2, 3) for c in g.hands[s]]
    pool.reverse()
    sizes = [len(g.hands[s]) for s in (1, 2, 3)]
    for s, k in zip((1, 2, 3), sizes):
        g.hands[s], pool = pool[:k], pool[k:]
    g.draw_pile.reverse()
    g.policies[0].choose_play(g, 0)
    after = rec.seen[-1]
    assert before == after
    assert before.hand_sizes == tuple(len(h) for h in g.hands)
    fields = set(type(before).__dataclass_fields__)
    assert not {"hands", "draw", "deck"} & fields  # nothing hidden is even named


def test_p1_illegal_action_names_seat_round_turn_and_action(engine):
    def cheat(obs):
        return "W+4" if obs.decision == "play" else obs.actions[0]

    with pytest.raises(PolicyError, match=r"illegal action 'W\+4'.* seat 1, round 1, turn \d+"):
        uno_sim.play_game(players=2, policies=["greedy", cheat], engine=engine)


def test_p1_exception_in_user_code_propagates_with_its_traceback(engine):
    def broken_policy(obs):
        return 1 // 0

    with pytest.raises(ZeroDivisionError) as info:
        uno_sim.play_game(players=2, policies=[broken_policy, "greedy"], engine=engine)
    assert any(t.name == "broken_policy" for t in info.traceback)


def test_p1_play_games_calls_user_seats_and_matches_play_game():
    from uno_sim import engine as ceng

    cols = ceng.play_games(Rules(players=2, target=100), [Recorder(), "greedy"], seed=2,
                           n_games=3)
    for g in range(3):
        r = ceng.play_game(Rules(players=2, target=100), [Recorder(), "greedy"], seed=2, game=g)
        assert cols["winner"][g] == r.winner and list(cols["scores"][g]) == r.scores


# --- tournament ----------------------------------------------------------------------

def test_tournament_is_paired_and_strategic_beats_random():
    from uno_sim.tournament import play_pair

    res = play_pair("strategic", "random", players=2, deals=60, seed=1)
    assert res.even == 0.5 and res.low > 0.5
    assert play_pair("greedy", "greedy", players=3, deals=20, seed=1).even == pytest.approx(2 / 3)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
def test_tournament_strategic_beats_greedy_beats_random(players):
    from uno_sim.tournament import play_pair

    assert play_pair("strategic", "greedy", players, deals=6000, seed=1).low > 0.5
    assert play_pair("greedy", "random", players, deals=300, seed=1).low > 0.5


# --- UNO Flip (F1-F6) ------------------------------------------------------------------

def test_p1_f6_user_policy_in_flip_same_observations_on_both_engines():
    """The observation follows the side in play and the game's pairing, and shows F6."""
    rules = Rules(variant="flip", players=3, target=150, flip_pairing="game")
    out = {}
    for engine in ("reference", "c"):
        rec = Recorder()
        res = uno_sim.play_game(rules, [rec, "strategic(challenge=auto)", "greedy(color=smart)"],
                                seed=4, game=2, trace=True, engine=engine)
        out[engine] = (res, rec.seen)
    (r_ref, o_ref), (r_c, o_c) = out["reference"], out["c"]
    assert r_ref == r_c
    assert len(o_ref) > 20 and o_ref == o_c
    assert {o.side for o in o_ref} == {"light", "dark"}
    for o in o_ref:
        assert o.other_faces[o.seat] is None
        assert all(len(f) == n for q, (f, n) in enumerate(zip(o.other_faces, o.hand_sizes))
                   if q != o.seat)
        assert (o.next_draw is None) == (o.draw_pile == 0)
        if o.decision == "color":
            assert o.actions == (("R", "Y", "G", "B") if o.side == "light" else
                                 ("P", "T", "O", "V"))
        if o.decision == "play":
            assert all(a.card is None or a.card in o.hand for a in o.actions)


def test_p1_f6_other_faces_are_those_of_the_game():
    from uno_sim import reference
    from uno_sim.rng import Rng, key_from_seed

    rec = Recorder()
    g = reference.Game(Rules(variant="flip", players=3, flip_pairing="game"),
                       [rec, "greedy", "greedy"], Rng(key_from_seed(5), 1))
    g.deal.shuffle(g.side_kinds[1])
    g.start_round(2)
    for side in (0, 1):
        g.side, g.card_kind = side, g.side_kinds[side]
        g.color = 4 * side
        g.policies[0].choose_play(g, 0)
        o = rec.seen[-1]
        assert o.side == ("light", "dark")[side]
        assert o.hand == tuple(g.codes(g.hands[0]))
        assert o.other_faces[1:] == tuple(tuple(k.code for k in g.visible_other_faces(0)[q])
                                          for q in (1, 2))
        assert o.next_draw == g.next_draw_other_face().code
    classic = Recorder()
    uno_sim.play_game(players=2, policies=[classic, "greedy"], engine="c", target=50)
    assert all(o.side is None and o.other_faces is None and o.next_draw is None
               for o in classic.seen)


@pytest.mark.parametrize("engine", ["reference", "c"])
def test_f1_repairing_comes_from_the_deal_stream_whatever_the_policies(engine):
    """flip_pairing=game: the same pairing and deals for both arms of a paired design."""
    def decks(policies, game):
        res = uno_sim.play_game(variant="flip", flip_pairing="game", players=3, target=150,
                                seed=9, game=game, policies=policies, trace=True, engine=engine)
        return [e["deck"] for e in res.events if e["e"] == "round_start"]

    compared = 0
    for game in range(4, 24):
        a = decks("greedy", game)
        b = decks(["random(bluff=0.5,challenge=0.5)", "strategic", "random"], game)
        n = min(len(a), len(b))
        assert a[:n] == b[:n]
        compared += n >= 2
    assert compared >= 2  # games where both arms dealt at least two rounds
    def pairs(pairing, game):  # the multiset of light/dark pairs of a game's first deal
        res = uno_sim.play_game(variant="flip", flip_pairing=pairing, players=3, target=50,
                                seed=9, game=game, policies="greedy", trace=True, engine=engine)
        return sorted(next(e["deck"] for e in res.events if e["e"] == "round_start"))

    assert pairs("game", 4) == sorted(decks("greedy", 4)[0]) != pairs("game", 5)
    assert pairs("deck", 4) == pairs("deck", 5)


@pytest.mark.parametrize("players", [2, 4])
def test_tournament_flip_strategic_beats_greedy(players):
    from uno_sim.tournament import play_pair

    rules = Rules(variant="flip")
    assert play_pair("strategic", "greedy", players, deals=3000, seed=1, rules=rules).low > 0.5


@pytest.mark.parametrize("engine", ["reference", "c"])
def test_play_drawn_shows_the_card_just_drawn(engine):
    """P2 play_drawn: `drawn` is the card the seat just drew (hand order is card priority,
    so it need not be the last card of `hand`)."""
    from collections import Counter

    from uno_sim.userpolicy import DRAW_ACTION

    before, seen = [], []

    def drawer(obs):  # draws whenever it may, then keeps the card
        if obs.decision == "play":
            before[:] = obs.hand
            return DRAW_ACTION if DRAW_ACTION in obs.actions else obs.actions[0]
        if obs.decision == "play_drawn":
            seen.append((Counter(obs.hand) - Counter(before), obs.drawn, obs.hand))
            return False
        return obs.actions[0]

    uno_sim.play_game(players=2, policies=[drawer, "greedy"], seed=3, target=60, engine=engine)
    assert len(seen) >= 2
    for new, drawn, hand in seen:
        assert new == Counter([drawn])  # the one card that joined the hand
    assert any(hand[-1] != drawn for _, drawn, hand in seen)
