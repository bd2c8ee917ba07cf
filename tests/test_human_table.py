"""`uno-sim play --human SEAT` as a player meets it: a new deal each time, q, the menus,
card names and colors (scripted through stdin, as the CLI reads it)."""

import io
import re
import subprocess
import sys

import pytest

from uno_sim.rules import Rules


def _play(args, stdin):
    return subprocess.run([sys.executable, "-m", "uno_sim.cli", "play", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


# others always bluff (C7, C12), so Wild Draw Fours come at the human seat
GAME = ["--human", "0", "--players", "3", "--rule", "target=100", "--policy",
        "greedy(bluff=1)", "--seed", "1"]


@pytest.fixture(scope="module")
def transcript():
    p = _play(GAME, "1\n" * 3000)
    assert p.returncode == 0, p.stderr
    return p.stdout


def _menus(out):
    """Each decision block: (question, hand line, choice texts, the lines after the choice)."""
    blocks = out.split("\n== P0: ")[1:]
    for b in blocks:
        lines = b.splitlines()
        choices = [m.group(1) for line in lines if (m := re.match(r"  \d+\) (.*)", line))]
        yield lines[0], next(x for x in lines if x.startswith("your hand: ")), choices, lines


def test_no_seed_deals_a_new_game_and_prints_its_seed():
    seeds = []
    for _ in range(2):
        p = _play(["--human", "0", "--players", "3"], "1\n1\n1\nq\n")
        assert p.returncode == 0, p.stderr
        seeds.append(int(re.search(r"^seed (\d+): `--seed \1` deals this game again",
                                   p.stdout, re.M).group(1)))
    assert seeds[0] != seeds[1]  # two draws from the OS (equal once in 2**32)
    again = _play(["--human", "0", "--players", "3", "--seed", str(seeds[1])],
                  "1\n1\n1\nq\n")
    assert again.stdout == p.stdout  # the printed seed deals the very same game


def test_q_quits_with_status_0_and_no_error():
    p = _play(["--human", "0", "--seed", "4"], "q\n")
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.rstrip().endswith("You quit (seed 4).")


def test_a_draw_for_want_of_a_play_does_not_say_cannot_play(transcript):
    # C8: a player who cannot play draws; the card drawn may be playable
    assert "P0 draws" in transcript and "(had nothing to play)" in transcript
    assert not re.search(r"^P0 draws .*\(cannot play\)", transcript, re.M)
    assert "You drew a playable card" in transcript


def test_identical_cards_are_one_choice(transcript):
    doubled = 0
    for _, hand, choices, _ in _menus(transcript):
        assert len(choices) == len(set(choices)), choices
        names = hand.removeprefix("your hand: ").split(", ")
        doubled += len(names) != len(set(names))
    assert doubled  # hands held twin cards, so the menus had something to merge


def test_a_single_forced_choice_is_played_and_said(transcript):
    assert "choice [1-1]" not in transcript
    forced = [lines for _, _, choices, lines in _menus(transcript) if not choices]
    assert forced and all(any(x.startswith("  your only choice: ") for x in lines)
                          for lines in forced)


def test_the_challenge_prompt_shows_the_color_before_the_wild_draw_four(transcript):
    # C12: the challenge is won when the offender held a card of the previous color
    asked = [lines for q, _, _, lines in _menus(transcript) if q.startswith("A Wild Draw")]
    assert asked
    for lines in asked:
        said = next(x for x in lines if "when the active color was" in x)
        assert re.search(r"played Wild Draw Four when the active color was (\w+): a challenge "
                         r"wins if P\d held a \1 card", said), said


def test_cards_have_names_and_a_legend_without_color_codes_in_a_pipe(transcript):
    assert "card codes: a color letter (R red, Y yellow, G green, B blue)" in transcript
    assert "wilds: W Wild, W+4 Wild Draw Four" in transcript
    hands = re.findall(r"^your hand: (.*)$", transcript, re.M)
    assert all(re.fullmatch(r"((Red|Yellow|Green|Blue) (\d|Skip|Reverse|Draw Two)|Wild|"
                            r"Wild Draw Four)", c) for h in hands for c in h.split(", "))
    assert "\033[" not in transcript


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_cards_are_in_color_on_a_terminal(monkeypatch):
    from uno_sim.human import play_human

    monkeypatch.delenv("NO_COLOR", raising=False)
    out = _Tty()
    play_human(Rules(players=2, target=50), ["greedy", "greedy"], 0, seed=2,
               inp=io.StringIO("1\n" * 2000), out=out)
    text = out.getvalue()
    assert re.search(r"your hand: .*\033\[3[1-4]m(Red|Yellow|Green|Blue) ", text)
    assert re.search(r"\033\[1mWild", text)
