"""UNO Extreme rules E1-E7 (docs/rules.md), one or more tests per rule ID, on both engines.

Scenarios are built with `uno_sim.arrange`; the launcher (E2) is made
deterministic with its own switches: ``launcher="dist"`` with a single positive
weight fires that many cards on every press (``"0,1"``: one card, like a
classic draw; ``"0,0,1"``: two), and the model law with ``launcher_fire=0``
never fires before ``launcher_max_silent`` silent presses in a row.  Policies
are greedy with every probability knob pinned.
"""

from __future__ import annotations

from collections import Counter

import pytest

import uno_sim
from specs import greedy
from uno_sim import Rules, RulesError, arrange
from uno_sim.cards import deck_for
from uno_sim.rng import Rng, key_from_seed
from uno_sim.userpolicy import DRAW_ACTION

G = greedy()
ONE = "0,1"  # dist law: every press fires exactly one card
TWO = "0,0,1"  # ... exactly two
SILENT = {"launcher": "model", "launcher_fire": 0, "launcher_max_silent": 1000}  # never fires


def deal(players=3, hands=None, starter=None, draws=(), hand_size=3, dealer=0, **switches):
    switches.setdefault("launcher", "dist")
    switches.setdefault("launcher_weights", ONE)
    rules = Rules(variant="extreme", players=players, hand_size=hand_size, **switches)
    order = arrange(players=players, dealer=dealer, hands=hands, starter=starter,
                    draws=list(draws), hand_size=hand_size, rules=rules)
    return rules, order


def run(engine, rules, deck, policies=G, dealer=0):
    return uno_sim.play_round(rules, policies, deck=deck, dealer=dealer, engine=engine)


def ev(res, kind):
    return [e for e in res.events if e["e"] == kind]


def one(res, kind):
    (e,) = ev(res, kind)
    return e


def turns(res, n=None):
    """The events after round_start, as compact tuples (press: p, by, cards, reason)."""
    out = []
    for e in res.events:
        if e["e"] in ("game_start", "round_start", "round_end", "uno"):
            continue
        if e["e"] == "press":
            out.append(("press", e["p"], e["by"], e["cards"], e["reason"]))
        else:
            out.append(tuple(v for k, v in e.items() if k != "hand"))
    return out[:n] if n else out


# --- E1 ------------------------------------------------------------------------

EXPECTED = Counter({**{f"{c}{n}": 2 for c in "RYGB" for n in range(1, 10)},
                    **{f"{c}{a}": 2 for c in "RYGB" for a in ("H2", "S", "R", "DA")},
                    "W": 4, "WH": 4})


def test_e1_deck_has_112_cards_without_zeros_draw_cards(engine):
    res = uno_sim.play_game(Rules(variant="extreme", target=1), G, seed=3, trace=True,
                            engine=engine)
    deck = ev(res, "round_start")[0]["deck"]
    assert len(deck) == 112 == sum(EXPECTED.values())
    assert Counter(deck) == EXPECTED
    assert not any(c.endswith(("0", "+2", "+4")) for c in deck)


# --- E2 launcher -----------------------------------------------------------------

def test_e2_fired_cards_go_to_the_presser(engine):
    rules, deck = deal(hands={1: ["G5", "B2", "Y3"]}, starter="R4", draws=["G8", "B9"],
                       launcher_weights=TWO)
    res = run(engine, rules, deck)
    assert turns(res, 2) == [("press", 1, 1, ["G8", "B9"], "cannot_play"), ("pass", 1)]


def _presses(engine, rules, games, policies="random", seed=5):
    out = []
    for g in range(games):
        res = uno_sim.play_game(rules, policies, seed=seed, game=g, trace=True, engine=engine)
        rounds = []
        for e in res.events:
            if e["e"] == "round_start":
                rounds.append([])
            elif e["e"] == "press":
                rounds[-1].append(e)
        out.extend(rounds)
    return out


def test_e2_iid_law_matches_its_weights(engine):
    w = (5, 3, 0, 2)  # 0, 1, 2, 3 cards
    rules = Rules(variant="extreme", players=4, launcher="dist", launcher_weights=w, target=150)
    counts, n = Counter(), 0
    games = 0
    while n < 3000:
        for rnd in _presses(engine, rules, 1, seed=11 + games):
            for e in rnd:
                if e["left"] + len(e["cards"]) >= 3:  # it held enough: no cap on this press
                    counts[len(e["cards"])] += 1
                    n += 1
        games += 1
    for k, wk in enumerate(w):
        assert abs(counts[k] / n - wk / sum(w)) < 0.035, (k, counts, n)
    assert counts[2] == 0


def test_e2_iid_law_draws_from_the_deal_stream():
    """The reference law alone, 20,000 presses: frequencies within 0.015 of the weights."""
    g = uno_sim.reference.Game(Rules(variant="extreme", launcher="dist",
                                     launcher_weights="1,2,3,0,4"), "greedy",
                               Rng(key_from_seed(1), 0))
    c = Counter(g.launcher_law() for _ in range(20000))
    for k, wk in enumerate((1, 2, 3, 0, 4)):
        assert abs(c[k] / 20000 - wk / 10) < 0.015, c


def test_e2_model_never_exceeds_its_silence_bound(engine):
    rules = Rules(variant="extreme", players=3, launcher_fire=100, launcher_max_silent=3,
                  launcher_burst="0,1,1", target=150)
    longest = 0
    fired = Counter()
    for rnd in _presses(engine, rules, 6):
        run_ = 0
        for e in rnd:
            if e["cards"]:
                fired[len(e["cards"])] += 1
                run_ = 0
            elif e["left"]:  # silent although it held cards
                run_ += 1
                longest = max(longest, run_)
    assert longest == 3  # reached, never exceeded
    assert set(fired) <= {1, 2, 3} and fired[3] > 0


def test_e2_default_model_fires_about_one_press_in_three(engine):
    presses = [e for rnd in _presses(engine, Rules(variant="extreme", target=200), 4)
               for e in rnd if e["left"] + len(e["cards"]) >= 12]
    share = sum(1 for e in presses if e["cards"]) / len(presses)
    assert 0.25 < share < 0.5, share
    assert max(len(e["cards"]) for e in presses) <= 12


def test_e2_never_fires_more_than_it_holds(engine):
    # 10 hands of 11 and the starter: the launcher holds one card
    rules, deck = deal(players=10, hand_size=11, starter="R4", launcher_weights="0,0,0,0,1",
                       hands={1: ["G5"] + ["B2", "Y3"] + ["G6"] * 0})
    res = run(engine, rules, deck, policies=[G] + [greedy(voluntary_draw=1)] * 9)
    first = ev(res, "press")[0]
    assert len(first["cards"]) == 1 and first["left"] == 0


# --- E3 turn ---------------------------------------------------------------------

def test_e3_cannot_play_presses_once_and_does_not_play_what_fires(engine):
    rules, deck = deal(hands={1: ["G5", "B2", "Y3"]}, starter="R4", draws=["R9"])
    res = run(engine, rules, deck)
    assert turns(res, 3) == [("press", 1, 1, ["R9"], "cannot_play"), ("pass", 1),
                             ("play", 2, ev(res, "play")[0]["card"])]
    assert ev(res, "play")[0]["p"] == 2  # the playable R9 was not played


def test_e3_nothing_fired_turn_passes(engine):
    rules, deck = deal(hands={1: ["G5", "B2", "Y3"]}, starter="R4", **SILENT)
    res = run(engine, rules, deck)
    assert turns(res, 2) == [("press", 1, 1, [], "cannot_play"), ("pass", 1)]
    assert res.seats["cards_drawn"][1] == 0


def test_e3_voluntary_press(engine):
    rules, deck = deal(hands={1: ["R5", "B2", "Y3"]}, starter="R4", draws=["G1"])
    res = run(engine, rules, deck, policies=[G, greedy(voluntary_draw=1), G])
    assert turns(res, 2) == [("press", 1, 1, ["G1"], "voluntary"), ("pass", 1)]


def always_press(obs):
    return DRAW_ACTION if obs.decision == "play" else obs.actions[0]


def test_e3_stalemate_when_the_launcher_and_discards_are_exhausted(engine):
    rules, deck = deal(hands={}, starter="R4", launcher_weights="0,0,0,0,0,1")
    res = run(engine, rules, deck, policies=[always_press] * 3)
    end = one(res, "round_end")
    assert end["p"] is None and res.stalemates == 1
    assert sum(len(h) for h in end["hands"]) == 111  # every card but the starter is held
    tail = ev(res, "press")[-3:]
    assert [e["cards"] for e in tail] == [[], [], []] and all(e["left"] == 0 for e in tail)


# --- E4 Discard All ------------------------------------------------------------------

def test_e4_discard_all_puts_down_every_card_of_its_color(engine):
    rules, deck = deal(hands={1: ["RDA", "R5", "G3", "R9", "B2"]}, starter="R3", hand_size=5)
    res = run(engine, rules, deck)
    # the rest of its color goes down in hand order (card priority: R9 before R5)
    assert turns(res, 2) == [("play", 1, "RDA"), ("discard_all", 1, ["R9", "R5"])]
    nxt = ev(res, "play")[1]
    assert nxt["p"] == 2  # red stays active: the Discard All is on top


def test_e4_discard_all_on_another_discard_all(engine):
    rules, deck = deal(hands={1: ["YDA", "B5", "B2"]}, starter="GDA")
    res = run(engine, rules, deck)
    assert turns(res, 2) == [("play", 1, "YDA"), ("discard_all", 1, [])]


def test_e4_discard_all_starter_first_player_matches_or_presses(engine):
    rules, deck = deal(hands={1: ["B5", "Y2", "B2"], 2: ["G5", "Y1", "B1"]}, starter="GDA",
                       draws=["Y9"])
    res = run(engine, rules, deck)
    assert turns(res, 3) == [("press", 1, 1, ["Y9"], "cannot_play"), ("pass", 1),
                             ("play", 2, "G5")]


def test_e4_discard_all_starter_a_wild_stays_playable(engine):
    rules, deck = deal(hands={1: ["W", "B5", "B2"]}, starter="GDA")
    res = run(engine, rules, deck)
    assert turns(res, 1) == [("play", 1, "W", "B")]


def test_e4_uno_when_the_discard_leaves_one_card(engine):
    rules, deck = deal(hands={1: ["RDA", "R5", "G3"]}, starter="R3")
    res = run(engine, rules, deck, policies=[G, greedy(forget_uno=1), greedy(catch=1)])
    assert [t[:4] if t[0] == "press" else t for t in turns(res, 6)] == [
        ("play", 1, "RDA"), ("discard_all", 1, ["R5"]), ("caught", 1, 2),
        ("press", 1, 1, ev(res, "press")[0]["cards"]), ("press", 1, 1, ev(res, "press")[1]["cards"]),
        ("play", 2, ev(res, "play")[1]["card"])]
    assert ev(res, "uno")[0] == {"e": "uno", "p": 1, "called": False}
    assert [len(e["cards"]) for e in ev(res, "press")[:2]] == [1, 1]


def test_e4_round_ends_when_the_discard_leaves_nothing(engine):
    rules, deck = deal(hands={1: ["RDA", "R5", "R7"], 2: ["G5", "Y1", "B1"],
                              0: ["B9", "YS", "W"]}, starter="R3")
    res = run(engine, rules, deck)
    end = one(res, "round_end")
    # hand order once the Discard All is taken out (its slot gets the last card, R7)
    assert turns(res) == [("play", 1, "RDA"), ("discard_all", 1, ["R7", "R5"])]
    assert end["p"] == 1 and end["points"] == [0, 5 + 1 + 1 + 9 + 20 + 50, 0]


# --- E5 Hit 2 ----------------------------------------------------------------------

def test_e5_hit2_next_presses_twice_and_loses_the_turn(engine):
    rules, deck = deal(hands={1: ["RH2", "B5", "B2"], 0: ["R8", "G1", "G2"]}, starter="R3",
                       draws=["Y4", "Y5"])
    res = run(engine, rules, deck)
    assert turns(res, 5) == [("play", 1, "RH2"), ("press", 2, 2, ["Y4"], "hit_two"),
                             ("press", 2, 2, ["Y5"], "hit_two"), ("skip", 2), ("play", 0, "R8")]


def test_e5_two_players_the_first_plays_again(engine):
    rules, deck = deal(players=2, hands={1: ["RH2", "R5", "B2"]}, starter="R3",
                       draws=["Y4", "Y5"])
    res = run(engine, rules, deck)
    assert turns(res, 5) == [("play", 1, "RH2"), ("press", 0, 0, ["Y4"], "hit_two"),
                             ("press", 0, 0, ["Y5"], "hit_two"), ("skip", 0), ("play", 1, "R5")]


def test_e5_hit2_as_last_card_still_makes_next_press(engine):
    rules, deck = deal(players=3, hands={1: ["RH2"], 2: ["G5"], 0: ["Y9"]}, hand_size=1,
                       starter="R3", draws=["R7", "Y8"])
    res = run(engine, rules, deck)
    assert turns(res) == [("play", 1, "RH2"), ("press", 2, 2, ["R7"], "hit_two"),
                          ("press", 2, 2, ["Y8"], "hit_two")]
    end = one(res, "round_end")
    assert end["p"] == 1 and end["points"] == [0, 9 + 5 + 7 + 8, 0]


def test_e5_starter_hit2_first_presses_twice_next_starts(engine):
    rules, deck = deal(hands={2: ["G5", "G6", "G7"]}, starter="BH2", draws=["Y4", "Y5"])
    res = run(engine, rules, deck)
    assert turns(res, 4) == [("press", 1, 1, ["Y4"], "hit_two"),
                             ("press", 1, 1, ["Y5"], "hit_two"), ("skip", 1),
                             ("press", 2, 2, ev(res, "press")[2]["cards"], "cannot_play")]


# --- E6 Extreme Hit -------------------------------------------------------------------

def test_e6_extreme_hit_target_takes_what_the_attacker_fires(engine):
    rules, deck = deal(players=4, hands={1: ["WH", "B5", "B2"], 2: ["B7", "G2", "G3"],
                                         3: ["R5", "R6"], 0: ["Y1", "Y2", "Y3"]},
                       starter="R3", draws=["Y4", "Y5", "G9"], hand_size=3)
    # target=next aims at seat 2, who plays next all the same
    res = run(engine, rules, deck, policies=[G, greedy(target="next"), G, G])
    assert turns(res, 5) == [("play", 1, "WH", "B"), ("aim", 1, 2),
                             ("press", 2, 1, ["Y4"], "extreme_hit"),
                             ("press", 2, 1, ["Y5"], "extreme_hit"),
                             ("play", 2, ev(res, "play")[1]["card"])]
    # play continues with the player after the attacker, the target itself here
    assert ev(res, "play")[1]["p"] == 2


@pytest.mark.parametrize("rule,target", [("most", 1), ("fewest", 3), ("next", 3)])
def test_e6_target_follows_the_knob(engine, rule, target):
    # the Hit 2 starter gives seat 1 two more cards; seat 2 then plays the Extreme Hit
    rules, deck = deal(players=4, hands={2: ["WH", "G1", "G2", "G3"]}, starter="BH2",
                       hand_size=4)
    res = run(engine, rules, deck, policies=[G, G, greedy(target=rule), G])
    assert turns(res, 5)[3:] == [("play", 2, "WH", "G"), ("aim", 2, target)]
    assert [(e["p"], e["by"]) for e in ev(res, "press")[2:4]] == [(target, 2)] * 2


def test_e6_target_presses_first_with_the_seeds_literal_reading(engine):
    rules, deck = deal(players=4, hands={1: ["WH", "B5", "B2"], 2: ["B7", "G2", "G3"]},
                       starter="R3", draws=["Y4", "Y5", "G9"], hit_target_presses=1)
    res = run(engine, rules, deck, policies=[G, greedy(target="next"), G, G])
    assert turns(res, 5) == [("play", 1, "WH", "B"), ("aim", 1, 2),
                             ("press", 2, 2, ["Y4"], "extreme_hit"),
                             ("press", 2, 1, ["Y5"], "extreme_hit"),
                             ("press", 2, 1, ["G9"], "extreme_hit")]


def test_e6_extreme_hit_as_last_card_still_fires_and_counts(engine):
    rules, deck = deal(players=3, hands={1: ["WH"], 2: ["G5"], 0: ["Y9"]}, hand_size=1,
                       starter="R3", draws=["R7", "Y8"])
    res = run(engine, rules, deck, policies=[G, greedy(target="most"), G])
    assert turns(res) == [("play", 1, "WH", "R"), ("aim", 1, 2),
                          ("press", 2, 1, ["R7"], "extreme_hit"),
                          ("press", 2, 1, ["Y8"], "extreme_hit")]
    end = one(res, "round_end")
    assert end["p"] == 1 and end["points"] == [0, 9 + 5 + 7 + 8, 0]


def test_e6_starter_extreme_hit_is_put_back(engine):
    rules, deck = deal(starter="WH")
    res = run(engine, rules, deck)
    start = one(res, "round_start")
    assert start["returned"][0] == "WH" and start["starter"] != "WH"


# --- E7 --------------------------------------------------------------------------------

def test_e7_forgotten_uno_caught_presses_twice(engine):
    rules, deck = deal(hands={1: ["R5", "R6", "G3"]}, starter="R3", draws=["Y7", "Y8"],
                       hand_size=3)
    # seat 1 plays R6 (highest), then R5 on its next turn: UNO there
    res = run(engine, rules, deck, policies=[greedy(catch=1), greedy(forget_uno=1), G])
    i = next(k for k, t in enumerate(turns(res)) if t[0] == "caught")
    tail = turns(res)[i:i + 3]
    assert tail[0] == ("caught", 1, 0)  # the first catcher in turn order from seat 2
    assert [t[:3] + (t[4],) for t in tail[1:]] == [("press", 1, 1, "uno_penalty")] * 2


def test_e7_reshuffle_when_the_launcher_runs_empty(engine):
    # the launcher holds one card: the first press empties it, the next reloads the
    # discards but the top card
    rules, deck = deal(players=10, hand_size=11, starter="R4", launcher_weights=ONE,
                       hands={1: ["R5"]})
    res = run(engine, rules, deck, policies=[G, G] + [always_press] * 8)
    evs = [e for e in res.events if e["e"] in ("play", "press", "reshuffle")][:4]
    assert [e["e"] for e in evs] == ["play", "press", "reshuffle", "press"]
    assert evs[1]["left"] == 0 and evs[2]["cards"] == 1 and len(evs[3]["cards"]) == 1


VALUES = {"H2": 20, "S": 20, "R": 20, "DA": 30}  # E7, written independently of cards.py


def value(code):
    if code in ("W", "WH"):
        return 50
    return int(code[1:]) if code[1:].isdigit() else VALUES[code[1:]]


def test_e7_card_values(engine):
    held = ["RH2", "YS", "GR", "BDA", "W", "WH"]
    rules, deck = deal(players=2, hands={1: ["R5", "R6", "R7", "R8", "R9", "R1"], 0: held},
                       starter="R3", hand_size=6)
    res = run(engine, rules, deck, policies=[always_press, G])
    end = one(res, "round_end")
    assert end["p"] == 1 and Counter(held) <= Counter(end["hands"][0])
    assert end["points"][1] == 20 + 20 + 20 + 30 + 50 + 50 + sum(
        value(c) for c in end["hands"][0][6:])
    assert end["points"][end["p"]] == sum(value(c) for s, h in enumerate(end["hands"])
                                          for c in h if s != end["p"])
    res = uno_sim.play_game(Rules(variant="extreme", players=3), "random", seed=8, trace=True,
                            engine=engine)
    for end in ev(res, "round_end"):
        if end["p"] is not None:
            assert end["points"][end["p"]] == sum(value(c) for h in end["hands"] for c in h)


def test_e7_elimination_scoring_is_the_jeu_defi_option(engine):
    res = uno_sim.play_game(Rules(variant="extreme", players=4, scoring="elimination",
                                  target=60), "greedy", seed=2, engine=engine)
    assert len(res.winners) == 1 and res.rounds >= 1
    assert Rules(variant="extreme").scoring == "standard"  # the default stays standard


def test_e7_vintage_edition_redraws_action_cards_for_the_dealer(engine):
    res = uno_sim.play_game(Rules(variant="extreme", edition="vintage", target=50), G, seed=4,
                            trace=True, engine=engine)
    last = {}
    for s, c in one(res, "dealer_draw")["draws"]:
        last[s] = c
    assert all(c[1:].isdigit() for c in last.values())
    assert res.winner >= 0


# --- switches -----------------------------------------------------------------------------

@pytest.mark.parametrize("kw,needle", [
    ({"launcher": "toy"}, "launcher 'toy'"),
    ({"launcher_fire": 1001}, "launcher_fire 1001"),
    ({"launcher_fire": -1}, "launcher_fire -1"),
    ({"launcher_max_silent": -2}, "launcher_max_silent -2"),
    ({"launcher_weights": "3"}, "launcher_weights '3'"),
    ({"launcher_weights": "1,x"}, "launcher_weights '1,x'"),
    ({"launcher_weights": "1,-2"}, "launcher_weights '1,-2'"),
    ({"launcher_weights": ",".join(["1"] * 33)}, "launcher_weights"),
    ({"launcher_burst": "0,0"}, "launcher_burst '0,0'"),
    ({"launcher_burst": ""}, "launcher_burst ''"),
    ({"hit_target_presses": 11}, "hit_target_presses 11"),
])
def test_bad_launcher_parameters_are_one_line_errors(kw, needle):
    with pytest.raises(RulesError, match=needle) as exc:
        Rules(variant="extreme", **kw)
    assert "\n" not in str(exc.value)


def test_launcher_switches_round_trip_and_reach_both_engines():
    r = Rules(variant="extreme", launcher="dist", launcher_weights=[3, 0, 1])
    assert r.launcher_weights == (3, 0, 1) and Rules.from_dict(r.to_dict()) == r
    assert Rules(variant="extreme", launcher="dist", launcher_weights="3,0,1") == r
    a = uno_sim.play_game(r, "random", seed=9, trace=True, engine="c")
    b = uno_sim.play_game(r, "random", seed=9, trace=True, engine="reference")
    assert a == b
    # the law fires 0 or 2 cards; 1 only when that emptied the launcher
    assert all(len(e["cards"]) in (0, 2) or (len(e["cards"]) == 1 and e["left"] == 0)
               for e in a.events if e["e"] == "press")


def test_cli_runs_the_extreme_variant(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "uno_sim.cli", "run", "--variant", "extreme",
                        "--games", "200", "--seed", "1", "--out", str(tmp_path / "out")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "variant extreme" in r.stdout and "200 games" in r.stdout
    assert "launcher: model (not a measured law)" in r.stdout
    r = subprocess.run([sys.executable, "-m", "uno_sim.cli", "run", "--variant", "extreme",
                        "--games", "20", "--rule", "launcher=dist",
                        "--rule", "launcher_weights=2,0,1", "--out", str(tmp_path / "o2")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "uno_sim.cli", "run", "--variant", "extreme",
                        "--games", "3", "--rule", "launcher_weights=2,x"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "launcher_weights '2,x'" in r.stderr


def test_bench_takes_the_extreme_variant(capsys):
    from uno_sim.cli import main
    assert main(["bench", "--variant", "extreme", "--players", "2,4,7,10", "--games", "20",
                 "--repeats", "1"]) == 0
    rows = [l for l in capsys.readouterr().out.splitlines() if l.startswith("extreme ")]
    assert len(rows) == 4


class Recorder:
    """A user policy that keeps every observation (P1, P2 in UNO Extreme)."""

    def __init__(self):
        self.seen = []

    def __call__(self, obs):
        self.seen.append(obs)
        if obs.decision == "play":
            legal = [a for a in obs.actions if a != DRAW_ACTION]
            return legal[obs.randint(len(legal))] if legal else DRAW_ACTION
        return obs.actions[obs.randint(len(obs.actions))]


def test_user_policy_sees_the_launcher_and_aims_on_both_engines():
    rules = Rules(variant="extreme", players=3, target=200)
    out = {}
    for engine in ("reference", "c"):
        rec = Recorder()
        res = uno_sim.play_game(rules, [rec, "strategic", "random"], seed=4, game=2,
                                trace=True, engine=engine)
        out[engine] = (res, rec.seen)
    (r_ref, o_ref), (r_c, o_c) = out["reference"], out["c"]
    assert r_ref == r_c and o_ref == o_c
    decisions = Counter(o.decision for o in o_ref)
    assert decisions["play"] > 0 and "play_drawn" not in decisions  # E3: never asked
    assert decisions["target"] >= 1  # E6: the user picks the Extreme Hit's target
    for t in [o for o in o_ref if o.decision == "target"]:
        assert t.card == "WH" and set(t.actions) == {1, 2}
    aims = [e for e in r_ref.events if e["e"] == "aim" and e["p"] == 0]
    assert len(aims) == decisions["target"]
    # draw_pile counts the cards in the launcher: what the trace says it holds
    presses = [e for e in r_ref.events if e["e"] == "press" and e["by"] == 0
               and e["reason"] in ("cannot_play", "voluntary")]
    assert presses and all(o.draw_pile >= 0 for o in o_ref)
    assert all(o.silent_presses is not None and 0 <= o.silent_presses <= 5 for o in o_ref)
    assert any(o.silent_presses > 0 for o in o_ref)
    for o in o_ref:
        assert DRAW_ACTION in o.actions if o.decision == "play" else True


def test_replay_renders_the_extreme_events(engine):
    from uno_sim.trace import replay_lines
    rules, deck = deal(players=4, hands={2: ["WH", "G1", "G2", "G3"], 1: ["RDA", "R5", "B1", "B2"]},
                       starter="RH2", hand_size=4)
    res = run(engine, rules, deck, policies=[G, G, greedy(target="next"), G])
    text = "\n".join(replay_lines(res.events))
    assert "P1 presses the launcher: fires " in text and "(hit two)" in text
    assert "P2 aims the launcher at P3" in text
    assert "P2 presses the launcher: fires " in text and " at P3 (extreme hit)" in text
    assert "{" not in text  # every event has its own line, none falls back to JSON
