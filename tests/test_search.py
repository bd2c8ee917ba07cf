"""The search players pimc and ismcts (csrc/search.c, docs/policies.md "Search players").

What is checked: the record-and-replay machinery reproduces real games exactly (a fork
of a game at any decision, replayed from the start of its turn, ends as the game does);
a search seat decides from what its seat may see only (docs/rules.md P1: shuffling the
hidden cards never changes its decision); search games are reproducible at any number
of workers; every decision kind a search seat meets is answered legally in each deck
and house rule; bad knobs are one-line errors; the reference engine refuses search
seats; and (slow) the search beats the built-in greedy policy.
"""

import subprocess
import sys

import numpy as np
import pytest

from uno_sim.cards import deck_for
from uno_sim.engine import _setup, play_game, play_games
from uno_sim.policies import parse_policy
from uno_sim.rng import key_from_seed
from uno_sim.rules import Rules, RulesError

FAST = "pimc(samples=2,rollouts=1,value=round)"
FAST_TREE = "ismcts(iterations=8,value=round)"

VARIANTS = [
    ("classic", {}),
    ("flip", {}),
    ("extreme", {}),
    ("hello-kitty", {}),
    ("house-2018", {}),
    ("classic", {"stacking": "both", "jump_in": True, "seven_o": True}),
    ("classic", {"draw_until_playable": True, "forced_play": True}),
    ("flip", {"stacking": "draw2", "jump_in": True, "seven_o": True}),
]


def _rules(variant, house, players=3, **kw):
    return Rules(variant=variant, players=players, **house, **kw)


@pytest.mark.parametrize("variant,house", VARIANTS)
def test_fork_replays_the_game_exactly(variant, house):
    """uno_play_fork: the game recorded (every decision through the journal) is the game
    played plainly, and a clone of the start of a turn, replayed by the journal's script
    to a decision and played on, ends exactly as the game did (same result, scores,
    counters)."""
    rules = _rules(variant, house)
    _, _, eng = _setup(rules, ["greedy", "strategic", "random"])
    key = key_from_seed(11)
    forks = 0
    for game in range(2):
        base = eng.play_game(key, game)[0]
        for at in (0, 3, 17, 60, 151, 333):
            real, fork = eng.play_fork(key, game, at)
            assert real == base
            if isinstance(fork, int):
                assert fork == -1  # past the game's decisions, or before a turn began
                continue
            forks += 1
            assert fork == base, (game, at)
    assert forks >= 6


def _events_first_action(events, seat):
    for e in events:
        if e.get("p") == seat and e["e"] in ("play", "draw"):
            return (e["e"], e.get("card"))
    return None


def _starter_color(events, seat):
    """The color seat names for the round's starter (C5: the first event after the deal)."""
    for e in events:
        if e["e"] == "color":
            return ("color", e["color"]) if e.get("p") == seat else None
        if e["e"] not in ("round_start", "dealer_draw"):
            return None
    return None


def _hidden_shuffles(variant, spec, decks=3, perms=4, starter="number"):
    """Seat 0's first action in rounds whose hidden cards are permuted: the number of
    permutations that changed it, out of how many.  Seat 0 moves first in a round dealt
    from a chosen deck order (dealer 2, a number starter); the hidden cards are the other
    hands and the draw pile, permuted keeping every hand's size and, on the Flip deck,
    every card's visible other face (F6).  starter="wild": the starter is a Wild instead,
    and the action is the color seat 0 names for it before the first turn (C5)."""
    rules = Rules(variant=variant, players=3)
    _, _, eng = _setup(rules, [spec, "greedy", "greedy"])
    arrays = deck_for(rules).arrays()
    dark = np.asarray(arrays["dark_kind"]) if len(arrays["dark_kind"]) else None
    kinds = np.asarray(arrays["card_kind"])
    effect = np.asarray(arrays["effect"])
    face = np.asarray(arrays["face"])
    wild = int(effect[deck_for(rules).kind_of_code("W")])
    n, hand = 3, 7
    key = key_from_seed(3)
    rng = np.random.default_rng(7)
    tested = changed = 0
    action = _events_first_action if starter == "number" else _starter_color
    for _ in range(400):
        order = rng.permutation(eng.n_cards)
        k = kinds[order[n * hand]]
        if starter == "number" and (effect[k] != 0 or face[k] > 9):
            continue  # a number starter: seat 0 (left of dealer 2) opens
        if starter == "wild" and effect[k] != wild:
            continue  # a Wild starter: seat 0 (left of dealer 2) names its color
        hidden = [i for i in range(len(order)) if (i < n * hand and i % n != 0) or i > n * hand]
        base = action(eng.play_round(key, 0, list(order), 2, None)[1], 0)
        for _ in range(perms):
            new = order.copy()
            cards = order[hidden]
            if dark is None:
                new[hidden] = rng.permutation(cards)
            else:  # permute within each visible other face
                for d in np.unique(dark[cards]):
                    pos = [h for h, c in zip(hidden, cards) if dark[c] == d]
                    new[pos] = rng.permutation(order[pos])
            assert sorted(new) == sorted(order)
            got = action(eng.play_round(key, 0, list(new), 2, None)[1], 0)
            # a draw shows the card drawn, which the permutation may change
            changed += got != base if base[0] != "draw" else got[0] != "draw"
            tested += 1
        if tested == decks * perms:
            break
    assert tested == decks * perms
    return changed, tested


@pytest.mark.parametrize("variant", ["classic", "flip"])
@pytest.mark.parametrize("spec", ["pimc(samples=6,rollouts=1,value=round)",
                                  "ismcts(iterations=30,value=round)",
                                  "ismcts(iterations=30,c=0.7,value=round)",
                                  "ismcts(iterations=30,c=0.7,depth=4,value=round)"])
def test_no_leak_hidden_cards_shuffled(variant, spec):
    """P1: a search seat's decision depends only on what it may see: permuting the hidden
    cards never changes its first decision, for a fixed sample stream (the same seed and
    game)."""
    assert _hidden_shuffles(variant, spec)[0] == 0


@pytest.mark.parametrize("spec", ["pimc(samples=6,rollouts=1,value=round)",
                                  "ismcts(iterations=30,value=round)"])
def test_no_leak_starter_color(spec):
    """P1 before the first turn (C5): the color a search seat names for a Wild starter,
    now searched from the round-start snapshot, never changes when the hidden cards are
    permuted."""
    assert _hidden_shuffles("classic", spec, starter="wild")[0] == 0


def _challenge_after_drawn_wd4(spec, bases=3, perms=6):
    """Seat 0's challenge of a Wild Draw Four that seat 1 drew and played at once (C7, C8,
    C12), in rounds whose hidden cards are permuted.  Two players, dealer 0: seat 1 opens
    on a number starter, draws (a Python policy) the Wild Draw Four put on top of the
    pile and plays it at once, legally or not depending on its hidden hand.  Returns
    (decisions changed, decisions tested, the legal flags met)."""
    from uno_sim.userpolicy import DRAW_ACTION

    state = {"first": True}

    def drawer(obs):  # seat 1: draws on its first turn, plays what it drew, then the first
        if obs.decision == "play" and state["first"]:
            state["first"] = False
            return DRAW_ACTION
        return True if obs.decision == "play_drawn" else obs.actions[0]

    rules = Rules(players=2)
    _, _, eng = _setup(rules, [spec, drawer])
    deck = deck_for(rules)
    arrays = deck.arrays()
    kinds = np.asarray(arrays["card_kind"])
    effect, face = np.asarray(arrays["effect"]), np.asarray(arrays["face"])
    wd4 = deck.kind_of_code("W+4")
    key = key_from_seed(3)
    rng = np.random.default_rng(11)
    hand1 = list(range(0, 14, 2))  # seat 1's cards in the deal
    pile = list(range(16, eng.n_cards))
    colorless = np.asarray(arrays["color"])[kinds] < 0

    def deal_hidden(order):
        """order with seat 1's hand and the pile (but its top) dealt again at random."""
        new = order.copy()
        cards = rng.permutation(order[hand1 + pile])
        plain = [c for c in cards if not colorless[c]]
        new[hand1] = plain[:7]
        rest = [c for c in cards if c not in set(plain[:7])]
        new[pile] = rest
        return new

    def decision(order):
        state["first"] = True
        events = eng.play_round(key, 0, [int(c) for c in order], 0, None)[1]
        at = next(i for i, e in enumerate(events) if e["e"] == "play")
        assert events[at]["p"] == 1 and events[at]["card"] == "W+4"
        nxt = events[at + 1]
        return nxt["e"] == "challenge" and nxt.get("p") == 0, events[at]["legal"]

    changed = tested = 0
    legal = set()
    for _ in range(bases):
        order = rng.permutation(eng.n_cards)
        for pos, want in ((15, lambda c: kinds[c] == wd4),
                          (14, lambda c: effect[kinds[c]] == 0 and face[kinds[c]] <= 9)):
            j = next(i for i in range(16, eng.n_cards) if want(order[i]))
            order[pos], order[j] = order[j], order[pos]
        order = deal_hidden(order)
        base, flag = decision(order)
        legal.add(flag)
        for _ in range(perms):
            got, flag = decision(deal_hidden(order))
            legal.add(flag)
            changed += got != base
            tested += 1
    return changed, tested, legal


def test_no_leak_challenge_of_a_drawn_wd4():
    """P1: whether the drawer of a Wild Draw Four played at once was bluffing depends on
    its hidden hand, which the replay of the turn must not compare: the challenge does
    not change when the hidden cards are permuted, although the play was a bluff in some
    permutations and legal in others."""
    changed, tested, legal = _challenge_after_drawn_wd4("pimc(samples=8,rollouts=1,value=round)")
    assert legal == {True, False}
    assert changed == 0, (changed, tested)


def test_the_drawn_wd4_check_catches_a_cheat():
    """The same check finds changed challenges for a seat that sees every hand."""
    changed, tested, legal = _challenge_after_drawn_wd4(
        "pimc(samples=8,rollouts=1,value=round,cheat=1)")
    assert changed > 0, tested


def test_the_starter_no_leak_check_catches_a_cheat():
    """The starter-color check can fail: a seat that sees every hand (cheat=1) names
    another color for some permutations of the hidden cards."""
    changed, tested = _hidden_shuffles("classic", "pimc(samples=6,rollouts=1,value=round,"
                                                  "cheat=1)", decks=6, starter="wild")
    assert changed > 0, tested


def _color_after_flip(spec, bases=3, perms=4):
    """The color seat 0 names in its first turn after a flip (F3), in rounds whose draw
    pile is permuted: the number of permutations that changed it, out of how many.  Three
    players, dealer 2: seat 0 holds a Flip of the starter's color and six cards that do
    not play; the starter's dark face is a wild, so once the Flip is played the discards
    turn over and seat 0 names a color, a decision after the flip within its turn (the
    search samples the state after the flip).  The draw pile is permuted but for its top
    and bottom cards (their other faces are seen before and after the flip, F6); the
    other hands are not (after the flip both faces of their cards have been seen)."""
    rules = Rules(variant="flip", players=3)
    _, _, eng = _setup(rules, [spec, "greedy", "greedy"])
    deck = deck_for(rules)
    a = deck.arrays()
    light, dark = np.asarray(a["card_kind"]), np.asarray(a["dark_kind"])
    effect, face, color = np.asarray(a["effect"]), np.asarray(a["face"]), np.asarray(a["color"])
    wild = effect[deck.kind_of_code("W")]
    flip = effect[deck.kind_of_code("RF")]
    key = key_from_seed(3)
    rng = np.random.default_rng(5)
    n = eng.n_cards
    starters = [c for c in range(n) if effect[light[c]] == 0 and face[light[c]] <= 9
                and effect[dark[c]] == wild]
    changed = tested = 0
    for _ in range(200):
        st = int(rng.choice(starters))
        c = color[light[st]]
        flips = [x for x in range(n) if effect[light[x]] == flip and color[light[x]] == c]
        other = [x for x in range(n) if x != st and color[light[x]] not in (c, -1)
                 and effect[light[x]] == 0 and face[light[x]] != face[light[st]]]
        f = int(rng.choice(flips))
        mine = [f] + [int(v) for v in rng.choice(other, 6, replace=False)]
        rest = [x for x in rng.permutation(n) if x != st and x not in mine]
        order = np.empty(n, dtype=np.int64)
        order[[0, 3, 6, 9, 12, 15, 18]] = mine
        others = [i for i in range(21) if i % 3]
        order[others] = rest[:14]
        order[21] = st
        order[22:] = rest[14:]

        def decision(o):
            ev = eng.play_round(key, 0, [int(v) for v in o], 2, None)[1]
            i = next((i for i, e in enumerate(ev) if e["e"] == "flip" and e.get("p") == 0), None)
            if i is None or ev[i + 1]["e"] != "color":
                return None
            return ev[i + 1]["color"]

        base = decision(order)
        if base is None:
            continue
        for _ in range(perms):
            new = order.copy()
            new[23:n - 1] = rng.permutation(order[23:n - 1])
            changed += decision(new) != base
            tested += 1
        if tested == bases * perms:
            break
    return changed, tested


@pytest.mark.parametrize("spec", ["pimc(samples=6,rollouts=1,value=round)",
                                  "ismcts(iterations=30,value=round)",
                                  "ismcts(iterations=30,c=0.7,depth=4,value=round)"])
def test_no_leak_after_a_flip_within_the_turn(spec):
    """P1 after a flip within the turn: the sample of the state after the flip replaces
    the true cards before the decision (a replay playing on the true draw pile would
    change the color with the permutation)."""
    changed, tested = _color_after_flip(spec)
    assert tested == 12 and changed == 0


def test_the_flip_no_leak_check_catches_a_cheat():
    changed, tested = _color_after_flip("pimc(samples=6,rollouts=1,value=round,cheat=1)")
    assert changed > 0, tested


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    """Small random networks (biased toward playing cards, so that rollouts end) for the
    classic and Flip decks: the machinery's test networks, not players."""
    from uno_sim.players import netfile
    from uno_sim.players.net import game_layout

    d = tmp_path_factory.mktemp("nets")
    paths = {}
    for variant in ("classic", "flip"):
        kinds, _, flip, extreme = game_layout(Rules(variant=variant, players=3))
        net = netfile.Net.new(kinds, 10, flip, extreme, [32, 16], seed=3)
        b = net.policy[1].copy()
        b[:kinds] += 2.0
        net.policy = (net.policy[0], b)
        paths[variant] = str(d / f"{variant}.unonet")
        netfile.write(paths[variant], net)
    return paths


NET_SPECS = ["pimc(samples=6,rollouts=1,value=round,rollout=net,weights={net})",
             "pimc(samples=6,rollouts=1,value=table,others=net,weights={net})",
             "pimc(samples=6,rollouts=1,leaf=0,weights={net})",
             "ismcts(iterations=30,leaf=2,value=game,weights={net})",
             "pimc(samples=6,rollouts=1,infer=1,leaf=1,weights={net})",
             "pimc(samples=6,rollouts=1,rollout=net,leaf=1,weights={net})",
             "ismcts(iterations=30,rollout=net,value=table,weights={net})",
             "ismcts(iterations=30,c=0,infer=1,rollout=net,leaf=1,weights={net})",
             "ismcts(iterations=30,leaf=0,mix=0.5,weights={net})"]


@pytest.mark.parametrize("variant", ["classic", "flip"])
@pytest.mark.parametrize("spec", NET_SPECS)
def test_no_leak_network_paths(variant, spec, nets):
    """P1 for the searches that read a network (rollouts, leaf values, inference):
    permuting the hidden cards never changes the first decision."""
    assert _hidden_shuffles(variant, spec.format(net=nets[variant]), decks=3)[0] == 0


def test_the_network_no_leak_check_catches_a_cheat(nets):
    spec = f"pimc(samples=6,rollouts=1,leaf=0,cheat=1,weights={nets['classic']})"
    changed, tested = _hidden_shuffles("classic", spec, decks=6)
    assert changed > 0, tested


def _decision_after_draws(spec, turn=3, bases=6, perms=4, wild4=False):
    """Seat 0's answer at its `turn`-th turn, 2 players, seat 1 a Python policy that draws
    every turn and keeps what it drew (with `wild4`, plays a Wild Draw Four instead when it
    holds one in the round's first dozen turns, a bluff or not, and is dealt one; later the
    round could go on forever, the four cards coming back to it): its decisions
    (inference's evidence) are in view, its hand is not.  The hidden cards (seat 1's hand, the pile below the starter) are
    permuted (with `wild4`, seat 1's other cards with the pile's below its 50th card, so
    that seat 1 plays its Wild Draw Four as before and seat 0 draws the same four cards,
    the play a bluff or not as seat 1's other cards fall); a permutation that changes what seat
    0 has seen (its own draws) is not compared.  Returns (decisions changed, decisions compared, of which after a Wild Draw
    Four)."""
    from uno_sim.userpolicy import DRAW_ACTION

    def drawer(obs):
        if obs.decision == "play":
            fours = [a for a in obs.actions
                     if wild4 and obs.turn < 12 and a != DRAW_ACTION and a.card == "W+4"]
            if fours:
                return fours[0]
            return DRAW_ACTION if DRAW_ACTION in obs.actions else obs.actions[0]
        return False if obs.decision == "play_drawn" else obs.actions[0]

    rules = Rules(players=2)
    _, _, eng = _setup(rules, [spec, drawer])
    key = key_from_seed(5)
    rng = np.random.default_rng(3)
    n, hand = 2, 7
    hidden = [i for i in range(eng.n_cards) if (i < n * hand and i % n == 1) or i > n * hand]
    deck = deck_for(rules)
    fours = [c for c in range(eng.n_cards) if deck.code(c) == "W+4"] if wild4 else []

    def seen(order):
        events = eng.play_round(key, 0, [int(c) for c in order], 1, None)[1]
        out, turns = [], 0
        for e in events:
            if e.get("p") == 0 and e["e"] in ("play", "draw") and e.get("reason", "") in (
                    "", "cannot_play", "voluntary"):
                turns += 1
                if turns == turn:
                    return out, (e["e"], e.get("card"))
            if e["e"] == "round_start":  # what seat 0 sees of the deal: its hand, the starter
                e = {"e": e["e"], "hand": e["hands"][0], "starter": e["starter"]}
            out.append({k: v for k, v in e.items() if not (e.get("p") == 1 and k == "cards")})
        return None, None

    changed = tested = after_four = 0
    for _ in range(60):
        order = rng.permutation(eng.n_cards)
        if fours:  # seat 1 is dealt a Wild Draw Four (its first card)
            j = int(np.flatnonzero(order == fours[0])[0])
            order[[1, j]] = order[[j, 1]]
        movable = [i for i in hidden
                   if not fours or ((i < n * hand or i > 50) and order[i] not in fours)]
        history, base = seen(order)
        if base is None:
            continue
        for _ in range(perms):
            new = order.copy()
            new[movable] = rng.permutation(order[movable])
            h2, got = seen(new)
            if h2 != history:
                continue  # seat 0 saw something else (a card it drew)
            changed += got != base
            tested += 1
            after_four += any(e.get("card") == "W+4" for e in history)
        if tested >= bases * perms:
            break
    return changed, tested, after_four


@pytest.mark.parametrize("search,reads", [("pimc(samples=8,rollouts=1", "infer=0.5"),
                                          ("ismcts(iterations=40,c=0", "infer=0.5"),
                                          ("ismcts(iterations=12,c=0.7", "voids=0"),
                                          ("pimc(samples=4,rollouts=1", "voids=0.3,colors=0"),
                                          ("pimc(samples=4,rollouts=1", "infer=2,resample=1"),
                                          ("pimc(samples=4,rollouts=1", "bluffs=0,voids=0.5")])
def test_no_leak_inference(nets, search, reads):
    """P1 for inference, voids and bluffs: the opponent's observed draws and Wild Draw
    Fours weigh (infer) or filter (voids, bluffs) seat 0's samples by hands rebuilt from
    what seat 0 saw only; permuting the hidden cards never changes seat 0's decision at its
    third turn (and the same check catches a seat that sees every hand)."""
    spec = f"{search},value=round,{reads},weights={nets['classic']})"
    changed, tested, fours = _decision_after_draws(spec, wild4="bluffs" in reads)
    assert tested >= 12 and changed == 0, (changed, tested)
    assert "bluffs" not in reads or fours >= 4, (fours, tested)
    cheat = f"pimc(samples=8,rollouts=1,value=round,cheat=1,weights={nets['classic']})"
    changed, tested, _ = _decision_after_draws(cheat)
    assert changed > 0, tested


def test_the_no_leak_check_catches_a_cheat():
    """The same check on a seat that sees every hand (cheat=1) finds changed decisions:
    the check can fail."""
    changed, tested = _hidden_shuffles("classic", "pimc(samples=6,rollouts=1,value=round,"
                                                  "cheat=1)", decks=6)
    assert changed > 0, tested


@pytest.mark.parametrize("spec", [FAST, FAST_TREE, "pimc(samples=1,rollouts=1,cheat=1)",
                                  "pimc(samples=2,rollouts=1,value=table)",
                                  "ismcts(iterations=8,value=game)",
                                  "ismcts(iterations=8,c=0.7,value=table)",
                                  "ismcts(iterations=8,c=0.7,depth=4,value=table)"])
def test_same_seed_same_games(spec):
    """A search draws only from its own decision stream: the same seed gives the same
    games, played one by one or as a batch."""
    rules = Rules(players=2)
    a = [play_game(rules, [spec, "greedy"], seed=4, game=g) for g in range(2)]
    b = [play_game(rules, [spec, "greedy"], seed=4, game=g) for g in range(2)]
    assert [(r.winner, r.scores, r.turns) for r in a] == [(r.winner, r.scores, r.turns) for r in b]
    cols = play_games(rules, [spec, "greedy"], seed=4, first_game=0, n_games=2)
    assert list(cols["turns"]) == [r.turns for r in a]


def test_anchor_and_z_defaults_play_the_same_games():
    """pimc's rule keeps the anchor's answer unless another leads it by z paired standard
    errors: z=1.645 and anchor=rollout are the defaults, and anchor=greedy is the default
    rollout policy itself, so all three play the default's games; z=0 (the best mean) and
    another anchor play others."""
    rules = Rules(players=2)
    specs = ("pimc(samples=6,rollouts=1)", "pimc(samples=6,rollouts=1,z=1.645)",
             "pimc(samples=6,rollouts=1,anchor=greedy)", "pimc(samples=6,rollouts=1,z=0)",
             "pimc(samples=6,rollouts=1,anchor=strategic)")
    cols = [play_games(rules, [spec, "greedy"], seed=4, first_game=0, n_games=3)
            for spec in specs]
    for same in cols[1:3]:
        assert all(np.array_equal(cols[0][k], same[k]) for k in ("turns", "winner", "scores"))
    for other in cols[3:]:
        assert not np.array_equal(cols[0]["turns"], other["turns"])


def test_z_sets_how_often_the_anchors_answer_is_kept():
    """On the states the anchor itself reaches (the recorder's play), the search's answers
    agree with the anchor's more the higher z: nearly always at z=100 (another answer is
    played only where every sampled state shows the same lead), least at z=0 (the best
    mean), for a greedy and a strategic anchor alike."""
    from uno_sim.players.record import record

    rules = Rules(players=2)
    for anchor in ("greedy", "strategic"):
        own = record(rules, [anchor, "greedy"], seats=[0], games=2, seed=6)["action"]
        agree = {}
        for z in (0, 1.645, 100):
            spec = f"ismcts(iterations=60,value=round,anchor={anchor},z={z})"
            rows = record(rules, [spec, "greedy"], seats=[0], games=2, seed=6,
                          play=[anchor, "greedy"])
            agree[z] = float((rows["action"] == own).mean())
        assert agree[0] < agree[1.645] < agree[100] and agree[100] > 0.97, (anchor, agree)


def test_rollouts_that_challenge_make_the_search_bluff_less():
    """C7/C12: greedy, the default rollout policy, never challenges, so in rollouts a bluffed
    Wild Draw Four always passes and the search bluffs freely; with rollout_challenge=1
    every seat of a rollout challenges, a bluff is caught there (four cards to the
    bluffer) and the search all but stops bluffing.  rollout_challenge=rollout (the
    default) plays the default's games."""
    rules = Rules(players=2)
    spec = "ismcts(iterations=60,value=round{})"
    cols = {k: play_games(rules, [spec.format(k), "greedy"], seed=8, first_game=0, n_games=16)
            for k in ("", ",rollout_challenge=rollout", ",rollout_challenge=1")}
    base, same, challenged = cols.values()
    assert all(np.array_equal(base[k], same[k]) for k in ("turns", "winner", "scores"))
    bluffs, fewer = base["bluffs"][:, 0].sum(), challenged["bluffs"][:, 0].sum()
    assert bluffs >= 8 and fewer <= bluffs / 4, (bluffs, fewer)
    with pytest.raises(RulesError, match="rollout_challenge"):
        parse_policy("ismcts(rollout_challenge=2)")


def test_anchor_net_reads_the_network(nets):
    """anchor=net loads the seat's network (weights) and plays other games than the
    default rollout anchor."""
    spec = parse_policy(f"pimc(samples=6,rollouts=1,anchor=net,weights={nets['classic']})")
    assert spec.reads_net()
    rules = Rules(players=2)
    a = play_games(rules, [str(spec), "greedy"], seed=4, first_game=0, n_games=3)
    b = play_games(rules, ["pimc(samples=6,rollouts=1)", "greedy"], seed=4, first_game=0,
                   n_games=3)
    assert not np.array_equal(a["turns"], b["turns"])
    with pytest.raises(RulesError, match="z is the rule of c=0"):
        parse_policy("ismcts(c=0.7,z=1)")


def test_mixed_leaf_weighs_the_network_with_the_rollout(nets):
    """mix: with leaf=k and mix=w below 1 the rollout is not stopped at the leaf, it plays
    on and is worth w times the network's value there plus 1 - w times its own.  So mix=0
    plays the games of the search without a leaf, result for result (the network read and
    given no weight); mix=1, the default, is the leaf that stops the rollout; a mix between
    plays other games than both.  mix without a leaf is refused."""
    rules = Rules(players=2)
    net = nets["classic"]
    specs = ("ismcts(iterations=30)", f"ismcts(iterations=30,leaf=0,mix=0,weights={net})",
             f"ismcts(iterations=30,leaf=0,weights={net})",
             f"ismcts(iterations=30,leaf=0,mix=1,weights={net})",
             f"ismcts(iterations=30,leaf=0,mix=0.5,weights={net})")
    cols = [play_games(rules, [spec, "greedy"], seed=4, first_game=0, n_games=4)
            for spec in specs]
    plain, unmixed, leaf, leaf_one, mixed = cols
    keys = ("turns", "winner", "scores")
    assert all(np.array_equal(plain[k], unmixed[k]) for k in keys)
    assert all(np.array_equal(leaf[k], leaf_one[k]) for k in keys)
    assert not np.array_equal(plain["turns"], leaf["turns"])
    assert not np.array_equal(mixed["turns"], plain["turns"])
    assert not np.array_equal(mixed["turns"], leaf["turns"])
    assert parse_policy(specs[-1]).reads_net()
    with pytest.raises(RulesError, match="mix weighs the network's value at the leaf"):
        parse_policy("ismcts(mix=0.5)")
    with pytest.raises(RulesError, match="invalid mix '1.5'"):
        parse_policy("ismcts(leaf=0,mix=1.5)")


def test_depth_one_is_the_default_and_a_tree_changes_games():
    """ismcts's depth knob: depth=1 plays exactly the default's games; a tree of the
    seat's own later decisions (depth above 1) changes what its rollouts play, and so
    the games."""
    rules = Rules(players=2)
    cols = {spec: play_games(rules, [spec, "greedy"], seed=4, first_game=0, n_games=3)
            for spec in ("ismcts(iterations=30,c=0.7)", "ismcts(iterations=30,c=0.7,depth=1)",
                         "ismcts(iterations=30,c=0.7,depth=4)")}
    a, b, tree = cols.values()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["turns"], tree["turns"])


def test_search_stats_columns():
    """play_games reports each search seat's counters (docs/policies.md "Search players"):
    per game and seat, decisions searched, answered by the rollout policy, samples drawn,
    samples dropped; zeros for the other seats; no such column without a search seat."""
    rules = Rules(players=3)
    cols = play_games(rules, [FAST, "greedy", FAST_TREE], seed=4, first_game=0, n_games=2)
    st = cols["search_stats"]
    assert st.shape == (2, 3, 4) and st.dtype == np.int64
    assert (st[:, 1] == 0).all()
    searched, fallback, samples, dropped = st[:, 0].sum(axis=0)
    assert searched > 0 and 0 <= dropped <= samples
    assert samples >= 2 * searched and samples % 2 == 0  # pimc: its samples per search
    searched, fallback, samples, dropped = st[:, 2].sum(axis=0)
    assert searched > 0 and 0 <= dropped <= samples
    # ismcts (c=0): ceil(iterations / answers) samples per search, answers >= 2
    assert searched <= samples <= 4 * searched
    st = play_games(rules, [FAST, "greedy", "ismcts(iterations=8,c=0.7,value=round)"],
                    seed=4, first_game=0, n_games=2)["search_stats"]
    searched, fallback, samples, dropped = st[:, 2].sum(axis=0)
    assert searched > 0 and samples >= 8 * searched and samples % 8 == 0  # c > 0: iterations
    st = play_games(rules, [FAST, "greedy", "ismcts(iterations=8,c=0.7,depth=3,value=round)"],
                    seed=4, first_game=0, n_games=2)["search_stats"]
    searched, fallback, samples, dropped = st[:, 2].sum(axis=0)
    assert searched > 0 and samples >= 8 * searched and samples % 8 == 0  # the tree: likewise
    assert "search_stats" not in play_games(rules, "greedy", seed=4, n_games=2)


@pytest.mark.parametrize("variant,house", [("classic", {}),
                                           ("classic", {"stacking": "both", "jump_in": True})])
def test_unseen_declines_keep_samples(variant, house):
    """P1: another seat's decisions asked only because of the cards it holds (a jump-in,
    C-H4; a stack, C-H1; playing a drawn card, C8, and whether that would be a bluff, C7)
    are not seen by the search seat, so a sample in which that seat would not have been
    asked, or would have bluffed, is kept (declined again), not dropped: dropping it
    would tell the search what that seat holds.  Hardly any sample is dropped then (one
    in 200 or more was before, most of them for these decisions)."""
    rules = _rules(variant, house, players=2)
    cols = play_games(rules, [FAST, "greedy(bluff=0.3)"], seed=6, first_game=0, n_games=6)
    searched, fallback, samples, dropped = cols["search_stats"][:, 0].sum(axis=0)
    assert samples > 2000 and dropped / samples < 0.002, (dropped, samples)


def test_decisions_after_a_flip_are_searched():
    """F3 within a turn (a Flip played, then the color of the wild it turned up, and the
    rest of the turn): the search samples the state just after the flip (the other faces
    now seen, F6) and replays the turn through it, so no such decision is left to the
    rollout policy and no sample is dropped (two fell back in these games before)."""
    rules = Rules(variant="flip", players=2)
    cols = play_games(rules, [FAST, "greedy"], seed=3, first_game=0, n_games=8)
    searched, fallback, samples, dropped = cols["search_stats"][:, 0].sum(axis=0)
    assert searched > 1000 and fallback == 0 and dropped == 0


def test_discard_all_constrains_samples():
    """E4: a seat that played a Discard All held no other card of its color (they went
    with it, seen): the samples respect it, so none of them has that seat go out by
    the Discard All and the turn's replay never stops short of the decision (23 samples
    were dropped so in these games before)."""
    rules = Rules(variant="extreme", players=3)
    cols = play_games(rules, ["ismcts(iterations=16,value=round)"] +
                      ["greedy(forget_uno=0.5)"] * 2, seed=1, first_game=0, n_games=6)
    searched, fallback, samples, dropped = cols["search_stats"][:, 0].sum(axis=0)
    assert searched > 300 and dropped == 0, (samples, dropped)


def test_forced_play_draw_constrains_samples():
    """C-H3: under forced_play a seat that drew at the start of its turn (and was not
    made to play a replacement) held no playable card: the samples respect it, so no
    replay asks that seat for a replacement it was never asked in the game, and no
    sample is dropped (33 were in these games before, 14 decisions fell back)."""
    rules = Rules(players=2, forced_play=True)
    cols = play_games(rules, [FAST, "greedy"], seed=7, first_game=0, n_games=6)
    searched, fallback, samples, dropped = cols["search_stats"][:, 0].sum(axis=0)
    assert searched > 500 and fallback == 0 and dropped == 0, (fallback, samples, dropped)


def _wild_starter_games(rules, spec, games):
    """Game numbers of run 5 whose first round starts on a Wild whose color seat 0 names
    (C5: the player left of the dealer; seat 1 deals at two players)."""
    cols = play_games(rules, [spec, "greedy"], seed=5, first_game=0, n_games=games, rounds=True)
    first = np.flatnonzero(cols["round_"] == 1)
    wild = deck_for(rules).kind_of_code("W")
    hit = (cols["round_starter"][first] == wild) & (cols["round_dealer"][first] == 1)
    return cols, cols["round_game"][first][hit].tolist()


def test_starter_color_is_searched():
    """A decision before the round's first turn (C5: the color of a Wild starter) is
    searched from the round-start snapshot: in one-round games (target 1) that start so,
    the search seat's decisions answered by the rollout policy are fewer than those
    games (each would count one)."""
    rules = Rules(players=2, target=1)
    cols, found = _wild_starter_games(rules, FAST, 400)
    assert len(found) >= 3
    fallback = cols["search_stats"][found, 0, 1]
    assert fallback.sum() < len(found), fallback


def test_fork_at_the_starter_color():
    """uno_play_fork at the first decision of a game, the color of a Wild starter: the
    round-start snapshot replays it (the fork was refused before: no turn had begun)."""
    rules = Rules(players=2, target=1)
    _, found = _wild_starter_games(rules, "greedy", 400)
    _, _, eng = _setup(rules, ["greedy", "greedy"])
    assert found
    for g in found[:3]:
        real, fork = eng.play_fork(key_from_seed(5), g, 0)
        assert not isinstance(fork, int) and fork == real


@pytest.mark.parametrize("scoring", ["elimination", "lowest"])
def test_table_value_under_other_scoring_plays_the_game(scoring):
    """value=table has no table without standard scoring (C17-C19): the rollouts play to
    the end of the game instead, and the games finish."""
    rules = Rules(players=3, scoring=scoring, target=100)
    for g in range(2):
        r = play_game(rules, ["pimc(samples=2,rollouts=1,value=table)", "greedy", "greedy"],
                      seed=8, game=g)
        assert r.rounds >= 1


def test_jobs_do_not_change_search_games():
    """The same run at --jobs 1 and --jobs 2 gives identical games."""
    from uno_sim.runner.execute import simulate

    kw = dict(variant="classic", games=4, players=2, policies=[FAST, "greedy"], seed=9,
              shard_size=2, progress=False)
    one = simulate(n_jobs=1, **kw).games
    two = simulate(n_jobs=2, **kw).games
    assert one.equals(two)


def test_run_result_search_stats():
    """RunResult.search_stats(): the search seat's counters summed over the run's shards
    (the same at --jobs 1 and 2, and as play_games gives them), and a line of the summary
    text; no row without a search seat."""
    from uno_sim.runner.execute import simulate

    kw = dict(variant="classic", games=4, players=2, policies=[FAST, "greedy"], seed=9,
              shard_size=2, progress=False)
    one, two = simulate(n_jobs=1, **kw), simulate(n_jobs=2, **kw)
    assert one.search_stats().equals(two.search_stats())
    row = one.search_stats().row(0, named=True)
    cols = play_games(Rules(players=2), [FAST, "greedy"], seed=9, first_game=0, n_games=4)
    assert [row[k] for k in ("searched", "fallback", "samples", "dropped")] == \
        cols["search_stats"][:, 0].sum(axis=0).tolist()
    assert row["seat"] == 0 and row["searched"] > 0
    assert "search seat 0:" in one.summary_text()
    plain = simulate(variant="classic", games=2, players=2, policies=["greedy"] * 2, seed=9,
                     progress=False)
    assert plain.search_stats().height == 0 and "search seat" not in plain.summary_text()


# (decision trace event, what shows that seat 0 answered that decision)
KINDS = {
    "color": lambda e: e["e"] == "color" or (e["e"] == "play" and e.get("color") is not None),
    "play_drawn": lambda e: e["e"] in ("play", "pass"),
    "target": lambda e: e["e"] in ("aim", "exchange", "swap"),
    "challenge": lambda e: e["e"] == "challenge",
    "stack": lambda e: e["e"] == "stack",
    "jump_in": lambda e: e["e"] == "jump_in",
    "discard": lambda e: e["e"] == "put_down",
}


@pytest.mark.parametrize("variant,house,want", [
    ("classic", {}, {"color", "challenge"}),
    ("flip", {}, {"color"}),
    ("extreme", {}, {"color", "target"}),
    ("hello-kitty", {}, {"color"}),
    ("house-2018", {}, {"color", "target", "discard"}),
    ("classic", {"stacking": "both", "jump_in": True, "seven_o": True},
     {"color", "stack", "jump_in", "target"}),
])
@pytest.mark.parametrize("spec", [FAST, FAST_TREE,
                                  "ismcts(iterations=8,c=0.7,depth=4,value=round)"])
def test_every_decision_kind_is_answered(variant, house, want, spec):
    """A search seat among built-in ones finishes its games (an illegal answer would stop
    them) and meets the decisions of each deck and house rule: the trace shows seat 0
    naming colors, choosing targets, challenging, stacking, jumping in, putting down."""
    rules = _rules(variant, house, players=3, target=150)
    _, specs, eng = _setup(rules, [spec, "random(challenge=0.5)", "greedy(bluff=0.5)"])
    key = key_from_seed(21)
    seen = set()
    for game in range(16):
        _, events = eng.play_game(key, game, trace=True)
        for e in events:
            if e.get("p") == 0 or (e["e"] == "challenge" and e.get("p") == 0):
                for kind, hit in KINDS.items():
                    if hit(e):
                        seen.add(kind)
        if want <= seen:
            break
    assert want <= seen, want - seen


@pytest.mark.parametrize("spec,message", [
    ("pimc(samples=0)", "invalid samples '0' for policy pimc"),
    ("pimc(rollouts=x)", "invalid rollouts 'x' for policy pimc"),
    ("ismcts(c=-1)", "invalid c '-1' for policy ismcts"),
    ("pimc(iterations=5)", "unknown parameter 'iterations' for policy pimc"),
    ("ismcts(samples=5)", "unknown parameter 'samples' for policy ismcts"),
    ("pimc(value=points)", "invalid value 'points' for policy pimc"),
    ("pimc(rollout=pimc)", "invalid rollout 'pimc' for policy pimc"),
    ("ismcts(cheat=2)", "invalid cheat '2' for policy ismcts"),
    ("pimc(bluff=0.5)", "unknown parameter 'bluff' for policy pimc"),
    ("ismcts(depth=0,c=1)", "invalid depth '0' for policy ismcts: expected an integer 1..64"),
    ("ismcts(depth=65,c=1)", "invalid depth '65' for policy ismcts"),
    ("pimc(depth=2)", "unknown parameter 'depth' for policy pimc"),
    ("ismcts(depth=4)", "depth 4 needs c above 0"),
    ("ismcts(c=0,depth=2)", "depth 2 needs c above 0"),
])
def test_bad_knobs_are_one_line_errors(spec, message):
    with pytest.raises(RulesError) as exc:
        parse_policy(spec)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_knobs_read_back():
    spec = parse_policy("ismcts(iterations=50,c=1.5,rollout=strategic,value=round,cheat=1)")
    net = {"others": "same", "leaf": "off", "mix": 1.0, "infer": 0.0, "voids": 1.0, "colors": 1.0,
           "bluffs": 1.0, "resample": 0, "anchor": "rollout", "z": 1.645,
           "rollout_challenge": "rollout", "weights": "", "explore": 0.0}
    assert spec.knobs() == {"iterations": 50, "c": 1.5, "depth": 1, "rollout": "strategic",
                            "value": "round", "cheat": 1, **net}
    tree = parse_policy("ismcts(c=0.7,depth=4)")
    assert tree.knob("depth") == 4 and parse_policy(str(tree)) == tree
    assert parse_policy(str(spec)) == spec
    assert parse_policy("pimc").knobs() == {"samples": 256, "rollouts": 4, "rollout": "greedy",
                                            "value": "table", "cheat": 0, **net}


def test_cli_refuses_search_on_the_reference_engine():
    proc = subprocess.run([sys.executable, "-m", "uno_sim", "run", "--games", "2", "--engine",
                           "reference", "--seat", "0=pimc"], capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "reference engine has no search players" in lines[0]


def test_human_plays_against_a_search_player():
    """`play --human` with a search opponent runs on the C engine: the human sees the
    game's news as it goes (the other seat's drawn cards hidden, P1) and the game ends."""
    import io

    from uno_sim.human import play_human

    out = io.StringIO()
    res = play_human(Rules(players=2, target=30), ["greedy", "pimc(samples=4,rollouts=1)"], 0,
                     seed=3, inp=io.StringIO("1\n" * 2000), out=out)
    text = out.getvalue()
    assert res.events[0]["e"] == "game_start" and res.events[-1]["e"] == "game_end"
    assert "P1 plays" in text and "== P0: Your turn" in text
    assert ("You won!" in text) == (0 in res.winners)


def test_env_opponent_is_a_search_player():
    """The RL environment's opponents may be search players (their games run in C)."""
    pytest.importorskip("pettingzoo")
    from uno_sim.env import env

    e = env(players=2, opponents="pimc(samples=4,rollouts=1)")
    e.reset(seed=1)
    steps = 0
    for _ in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(info["action_mask"])[0]))
        steps += 1
        assert steps < 20000
    assert steps > 10


def test_cli_lists_search_policies():
    out = subprocess.run([sys.executable, "-m", "uno_sim", "policies"], capture_output=True,
                         text=True, check=True).stdout
    for word in ("pimc:", "ismcts:", "samples", "iterations", "rollout", "cheat"):
        assert word in out


def test_cheat_search_is_strong():
    """The machinery does what a search should: with every hand and the draw pile in
    view (cheat=1, an upper bound) a small search wins most 2-player games against
    greedy (paired deals, both seats)."""
    from uno_sim.tournament import play_pair

    r = play_pair("pimc(samples=4,rollouts=1,cheat=1,value=round)", "greedy", 2, deals=12,
                  seed=5)
    assert r.low > 0.5, r.line()


@pytest.mark.slow
def test_pimc_beats_greedy():
    """Strength sanity (benchmarks/results.md has the full figures): pimc at a quarter of
    its default budget wins clearly more than half of the 2-player games against greedy over paired
    deals (the lower end of the 95% interval above one half).  30 deals: it wins about 3 in
    4 (0.77 [0.63, 0.87] at seed 2; 0.76 [0.70, 0.81] over 100 deals, for three times the
    cost), so the interval clears one half with room to spare."""
    from uno_sim.tournament import play_pair

    r = play_pair("pimc(samples=64)", "greedy", 2, deals=30, seed=2)
    assert r.low > 0.5, r.line()


@pytest.mark.slow
def test_ismcts_beats_greedy():
    """Strength sanity (benchmarks/results.md, "ismcts"): ismcts at a quarter of its
    default budget wins clearly more than half of the 2-player games against greedy over
    paired deals (the lower end of the 95% interval above one half): 0.80 [0.70, 0.87] over
    30 deals at seed 2 (0.80 [0.75, 0.85] over 100, for three times the cost)."""
    from uno_sim.tournament import play_pair

    r = play_pair("ismcts(iterations=250)", "greedy", 2, deals=30, seed=2)
    assert r.low > 0.5, r.line()


def test_bench_prints_the_search_counters(capsys):
    """`uno-sim bench --policy pimc`: each cell has a line of the search seat's counters
    (decisions, answered by the rollout policy, samples, dropped, CPU ms per decision)."""
    from uno_sim.cli import main

    assert main(["bench", "--policy", FAST, "--variant", "classic", "--players", "2",
                 "--games", "2", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("search:"))
    assert "answered by the rollout policy" in line and "dropped" in line
    assert "ms (CPU) per decision" in line
