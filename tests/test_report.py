"""The studies report as a reader meets it: the answers first, each setup once, one number
format per column, light HTML, readable figures, the example notebook with its outputs."""

import collections
import json
import os
import re

import polars as pl
import pytest

pytest.importorskip("matplotlib")

HERE = os.path.dirname(__file__)
INTERVAL = re.compile(r"([+-]?\d+\.(\d+)) \[([+-]?\d+\.(\d+)), ([+-]?\d+\.(\d+))\]")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A small report: one variant with a restricted card, one without (E1)."""
    from uno_sim.analysis.report import build

    out = str(tmp_path_factory.mktemp("report"))
    res = build("classic,extreme", games=30, seed=1, out=out, players="2",
                balance_players="2,3", trace_games=10, card_games=20, n_boot=20,
                command="uno-sim report --games 30", progress=False)
    md = open(res["md"], encoding="utf-8").read()
    html = open(res["html"], encoding="utf-8").read()
    js = json.load(open(res["json"], encoding="utf-8"))
    return {"out": out, "md": md, "html": html, "json": js}


def _sections(md: str) -> list[tuple[int, str, list[str]]]:
    """(line number of the heading, title, lines) of each `## ` section."""
    out = []
    for n, line in enumerate(md.splitlines()):
        if line.startswith("## "):
            out.append((n, line[3:], []))
        elif out:
            out[-1][2].append(line)
    return out


def _tables(lines):
    """Each Markdown table of `lines` as (header cells, rows of cells)."""
    tables, cur = [], None
    for line in lines:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cur is None:
                cur = (cells, [])
                tables.append(cur)
            elif not set(line) <= set("|-"):
                cur[1].append(cells)
        else:
            cur = None
    return tables


@pytest.mark.slow
def test_the_report_opens_with_the_answers_and_their_intervals(report):
    secs = _sections(report["md"])
    line, title, lines = secs[0]
    assert title.startswith("Summary") and line < 10
    assert len(lines) <= 45  # one screenful
    tables = _tables(lines)
    assert len(tables) == 4  # bluff, challenge, balance, exploitability
    for head, rows in tables:
        assert rows and "details" in head
        assert all(INTERVAL.search(" ".join(r)) for r in rows)
    # every link of the summary leads to a section of the report
    titles = {t for _, t, _ in secs}
    from uno_sim.analysis.doc import slug

    anchors = set(re.findall(r"\]\(#([^)]+)\)", "\n".join(lines)))
    assert anchors and anchors <= {slug(t) for t in titles}
    assert "No restricted card, nothing to bluff or challenge: extreme." in "\n".join(lines)


@pytest.mark.slow
def test_each_answer_opens_with_its_verdict(report):
    text = "\n".join(_sections(report["md"])[0][2])
    for question, starts in (
            ("Is bluffing a Wild Draw Four worth it, and when?",
             ("Bluff a Wild Draw Four only", "Do not bluff", "No setup shows", "Overall,",
              "Too few bluff decisions")),
            ("When should one challenge?", ("Challenge a Wild Draw Four when",
                                            "Challenging a Wild Draw Four does not pay",
                                            "Too few challenge decisions")),
            ("How balanced is the game?", ("No variant is position-fair", "The first to play",
                                           "No setup shows", "Too few rounds")),
            ("How exploitable is the reported equilibrium?", ("Against the equilibrium",))):
        after = text.split(f"**{question}** ", 1)[1]
        assert after.startswith(starts), (question, after[:80])
        assert after.split("\n", 1)[0].endswith(".")  # one sentence, then the reading


@pytest.mark.slow
def test_the_summary_reads_the_numbers_of_the_sections(report):
    """No separate numbers: the summary's bluff value is the section's table, formatted."""
    from uno_sim.analysis.common import fmt_ci

    secs = report["json"]["sections"]
    summary, bluff = secs[0], next(s for s in secs if s["title"] == "Bluff: classic, 2 players")
    overall = next(t for t in bluff["tables"]
                   if t["caption"].startswith("Value of a bluff overall"))
    never = next(r for r in overall["records"] if r["against"] == "never")
    row = summary["tables"][0]["records"][0]
    assert row["bluff vs a table that never challenges"] == fmt_ci(
        never["d_game_win"], never["d_game_win_low"], never["d_game_win_high"])
    length = next(t for s in secs if s["title"].startswith("Balance: game length")
                  for t in s["tables"] if t["caption"].startswith("Game length"))
    two = next(r for r in length["records"] if r["players"] == 2)
    bal = next(r for r in summary["tables"][2]["records"] if r["players"] == 2)
    assert bal["rounds per game"] == fmt_ci(two["rounds_mean"], two["rounds_mean_low"],
                                            two["rounds_mean_high"], 2, signed=False)


@pytest.mark.slow
def test_no_sentence_is_repeated_and_captions_do_not_restate_the_setup(report):
    md = report["md"]
    texts = []
    for line in md.splitlines():
        if not line.strip() or line.startswith(("|", "#", "```")):
            continue
        m = re.match(r"!\[(.*)\]\((.*)\)", line)
        texts.append(m.group(1) if m else line.strip("*"))
    sentences = collections.Counter(s.strip() for t in texts
                                    for s in re.split(r"(?<=\.)\s+(?=[A-Z*])", t)
                                    if len(s.strip()) > 30)
    worst = sentences.most_common(1)[0]
    assert worst[1] <= 3, worst
    captions = re.findall(r"^\*([^*].*)\*$", md, flags=re.M)
    alts = re.findall(r"^!\[(.*?)\]", md, flags=re.M)
    assert captions and alts
    for text in captions + alts:  # the setup is stated by the section, not by every caption
        assert "seed" not in text and "policies:" not in text, text
    assert all(len(a) <= 120 for a in alts)
    # each section states its setup once
    for _, title, lines in _sections(md):
        setups = [ln for ln in lines if ln.startswith("**Setup")]
        assert len(setups) <= 2, title


@pytest.mark.slow
def test_a_column_prints_its_numbers_one_way(report):
    number = re.compile(r"^[+-]?[\d,]+(\.(\d+))?$")
    checked = 0
    for head, rows in _tables(report["md"].splitlines()):
        for j, col in enumerate(head):
            cells = [r[j] for r in rows if j < len(r) and number.match(r[j])]
            assert not [r[j] for r in rows if j < len(r) and re.search(r"\de[+-]\d", r[j])], col
            decimals = {len(m.group(2) or "") for c in cells for m in [number.match(c)]}
            assert len(decimals) <= 1, (col, decimals)
            checked += bool(cells)
            for r in rows:  # an interval has the digits of its estimate
                for m in INTERVAL.finditer(r[j] if j < len(r) else ""):
                    assert len({len(m.group(2)), len(m.group(4)), len(m.group(6))}) == 1
    assert checked > 50


@pytest.mark.slow
def test_the_html_links_its_figures(report):
    html, out = report["html"], report["out"]
    assert "data:image" not in html
    srcs = re.findall(r'<img alt="[^"]+" src="([^"]+)"', html)
    assert srcs and all(os.path.exists(os.path.join(out, s)) for s in srcs)
    assert len(html) < 2 * len(report["md"])
    assert '<a href="#bluff-classic-2-players">' in html  # the summary's links work there too


class _Cells:
    """What a parser of the page (html.parser, as a browser reads the markup) finds in each
    table cell and paragraph: its text, and the text of each <code>, <b>, <a> in it."""

    def __init__(self, page):
        from html.parser import HTMLParser

        self.blocks, open_ = [], []
        cells = self

        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                if tag in ("td", "p"):
                    cells.blocks.append({"tag": tag, "text": "", "code": [], "b": [],
                                         "a": []})
                open_.append((tag, dict(attrs)))

            def handle_endtag(self, tag):
                while open_ and open_.pop()[0] != tag:
                    pass

            def handle_data(self, data):
                tags = [t for t, _ in open_]
                if cells.blocks and ("td" in tags or "p" in tags):
                    blk = cells.blocks[-1]
                    blk["text"] += data
                    for t in ("code", "b", "a"):
                        if t in tags:
                            blk[t].append(data)

        P().feed(page)


def test_code_spans_are_code_in_the_html_in_table_cells_and_paragraphs():
    """The report's Markdown writes a policy spec as a code span (`pimc(samples=16,...)`);
    its HTML shows it as <code>, never as raw backticks, in a table cell as in a paragraph
    (a code span inside bold or a link included, and no bold or link inside a code span)."""
    from uno_sim.analysis.doc import Section, render_html, render_markdown

    sec = Section("Strong play")
    sec.table("players", pl.DataFrame({
        "player": ["`pimc(samples=16,rollouts=2)` +53 [+11, +90]", "`a<b&c` and `x**y**`"],
        "games": [48, 48]}))
    sec.p("Every pairing of `random`, **`greedy`** and [`net`](#strong-play); `` a`b ``.")
    page = render_html([sec], "report")
    assert "`" not in re.sub(r"<code>.*?</code>", "", page)  # (a`b: a backtick in code)
    td = [b for b in _Cells(page).blocks if b["tag"] == "td"]
    assert td[0]["code"] == ["pimc(samples=16,rollouts=2)"]
    assert td[0]["text"] == "pimc(samples=16,rollouts=2) +53 [+11, +90]"
    assert td[2]["code"] == ["a<b&c", "x**y**"] and td[2]["b"] == []
    (para,) = [b for b in _Cells(page).blocks if b["tag"] == "p"]
    assert para["code"] == ["random", "greedy", "net", "a`b"]
    assert para["b"] == ["greedy"] and para["a"] == ["net"]
    assert "| `pimc(samples=16,rollouts=2)` +53 [+11, +90] |" in render_markdown([sec])


def test_the_example_report_shows_no_raw_code_span():
    page = open(os.path.join(HERE, "..", "reports", "example-10k", "report.html"),
                encoding="utf-8").read()
    assert "`" not in re.sub(r"<pre>.*?</pre>", "", page, flags=re.S)
    assert "<code>pimc(samples=16,rollouts=2)</code>" in page


def test_column_formats():
    from uno_sim.analysis.doc import _rows

    f = pl.DataFrame({"rule": ["a", "b"], "points": [193748, 12], "share": [0.5, 0.06343],
                      "share_low": [0.49, -0.000648], "share_high": [0.51, 0.07],
                      "d_points": [-34.86, -2.618], "d_points_low": [-40.1, -5.0],
                      "d_points_high": [-30.0, 0.1], "p": [0.03, 1e-7],
                      "weight": [0.5, None], "low": [0.1, None], "high": [0.9, float("nan")]})
    rows = _rows(f)
    assert rows[0] == ["a", "193,748", "0.5000", "0.4900", "0.5100", "-34.86", "-40.10",
                       "-30.00", "0.0300", "0.5000", "0.1000", "0.9000"]
    assert rows[1] == ["b", "12", "0.0634", "-0.0006", "0.0700", "-2.62", "-5.00", "0.10",
                       "<0.0001", "-", "-", "-"]


def test_fmt_ci_never_prints_minus_zero():
    from uno_sim.analysis.common import fmt_ci

    assert fmt_ci(0.0123, -0.00004, 0.02) == "+0.0123 [+0.0000, +0.0200]"
    assert fmt_ci(0.0123, -0.0004, 0.02, 3) == "+0.012 [+0.000, +0.020]"


def test_later_answers_plug_into_the_summary():
    from uno_sim.analysis import summary

    def strongest(results, extra):
        if "strongest" not in extra:
            return None
        return summary.Answer("Do the answers hold for the strongest player?", extra["strongest"])

    sec = summary.section(summary.Results(), "intro", extra={"strongest": "Yes [0.1, 0.2]."},
                          later=[strongest])
    texts = [b[1] for b in sec.blocks if b[0] == "p"]
    assert texts[-1].startswith("**Do the answers hold for the strongest player?** Yes")
    assert len(summary.section(summary.Results(), "intro", later=[strongest]).blocks) == 1


def test_a_long_setup_footer_does_not_overlap_the_axis_label():
    """The footer of a figure with a long setup (4-player bluff values) stays clear of the
    x-axis label and its tick labels."""
    from uno_sim.analysis.common import Setup, new_figure

    setup = Setup("classic", 4, 10_000, 1, "seat 0 plain greedy (each bluff decision replayed "
                  "both ways); " + "; ".join(f"table rule{i}: greedy(challenge=posterior,"
                                              f"challenge_threshold=0.{i},suspect=0)"
                                              for i in range(6)), unit="games")
    fig, axes = new_figure(setup, "title", ncols=2, width=5.0, height=4.4)
    for ax in axes:
        ax.set_xticks(range(6), ["1", "2", "3", "4", "5", "6+"])
        ax.set_xlabel("next player's hand size")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    foot = fig._supxlabel.get_window_extent(r)
    for ax in axes:
        label = ax.xaxis.label.get_window_extent(r)
        assert label.y0 > foot.y1  # the label sits above the footer


def test_card_kinds_print_names_not_codes():
    from uno_sim.analysis.balance import deck_kinds
    from uno_sim.rules import Rules

    for v in ("house-2018", "hello-kitty"):
        kinds = deck_kinds(Rules(variant=v))
        assert not [k for k in kinds if ":" in k or k in ("WX", "WBM")], kinds
    assert "Custom Wild (draw three)" in deck_kinds(Rules(variant="house-2018"))


def test_the_example_notebook_is_committed_with_its_outputs():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(os.path.join(HERE, "..", "analysis", "example.ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code)
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)


def test_the_committed_notebook_keeps_no_progress_output():
    """A progress bar run in Jupyter is saved as a widget (or as text on stderr): stale
    the moment the notebook is opened elsewhere.  The committed notebook has none."""
    import json

    with open(os.path.join(HERE, "..", "analysis", "example.ipynb"), encoding="utf-8") as f:
        nb = json.load(f)
    assert "widgets" not in nb.get("metadata", {})
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            assert not any("widget" in kind for kind in o.get("data", {})), o
            assert not (o.get("output_type") == "stream" and o.get("name") == "stderr"), o


def test_the_notebook_extras_have_the_progress_widget():
    """tqdm.auto draws a widget in a Jupyter kernel: it needs ipywidgets."""
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(HERE, "..", "pyproject.toml"), "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    for name in ("analysis", "test"):
        assert any(d.split(">")[0].split("=")[0].strip() == "ipywidgets" for d in extras[name])


def test_the_verdicts_say_the_numbers_in_a_sentence():
    from uno_sim.analysis.summary import (balance_verdict, bluff_verdict, challenge_verdict,
                                          exploit_verdict)

    pays = dict(variant="classic", players=2, eq=(-0.0308, -0.0345, -0.0271), pays=["1"])
    costs = dict(variant="flip", players=4, eq=(-0.0254, -0.0307, -0.0202), pays=[])
    unclear = dict(variant="flip", players=2, eq=(-0.0019, -0.0060, 0.0022), pays=[])
    assert bluff_verdict([pays, costs, unclear]) == (
        "Bluff a Wild Draw Four only when the next player holds 1 card (classic at 2 "
        "players); taken over every point where one could bluff, a bluff costs 2.5 to 3.1 "
        "percentage points of game-win share against a table that challenges by its "
        "equilibrium rule (interval below zero in 2 of 3 setups).")
    assert bluff_verdict([costs]).startswith("Do not bluff a Wild Draw Four: a bluff costs 2.5")
    assert "every interval holds zero" in bluff_verdict([unclear])
    assert challenge_verdict([
        dict(p_star=(0.31, 0.25, 0.37), v1=(0.036, 0.03, 0.04), v0=(-0.016, -0.02, -0.01)),
        dict(p_star=(0.22, 0.16, 0.29), v1=(0.039, 0.03, 0.04), v0=(-0.011, -0.02, -0.01))]) \
        == ("Challenge a Wild Draw Four when the chance that it is a bluff is above about "
            "0.22 to 0.31 (the break-even by variant and player count): a bluff caught gains "
            "the challenger 3.6 to 3.9 percentage points of game-win share, a legal card "
            "challenged costs 1.1 to 1.6.")
    fair = [dict(variant="classic", players=2, first=(0.0177, 0.0156, 0.0199)),
            dict(variant="extreme", players=4, first=(0.0116, 0.0079, 0.0153))]
    assert balance_verdict(fair).startswith(
        "No variant is position-fair within a round: the first to play wins 1.2 to 1.8 "
        "percentage points more of the rounds than the fair share 1/K (interval above zero "
        "in every variant and player count)")
    one = balance_verdict(fair + [dict(variant="hello-kitty", players=4,
                                       first=(0.001, -0.002, 0.004))])
    assert one.startswith("The first to play wins more rounds than the fair share 1/K in "
                          "classic at 2 players and extreme at 4 players")
    assert exploit_verdict([dict(row=(0.0077, 0.0014, 0.0141), col=(0.0152, 0.0064, 0.0241),
                                 row_after=None, col_after=None)]) == (
        "Against the equilibrium as reported, the best replies found beyond the rule "
        "families gain at most +0.8 percentage points of win share for the bluffer and +1.5 "
        "for the challengers on fresh games (clearly above zero in 2 of 2 replies).")
    assert bluff_verdict([]) == challenge_verdict([]) == balance_verdict([]) == ""
    nan = float("nan")
    assert challenge_verdict([dict(p_star=(nan, nan, nan), v1=(-0.01, -0.02, 0.0),
                                   v0=(-0.01, -0.02, 0.0))]).startswith(
        "Challenging a Wild Draw Four does not pay in every variant and player count")


def test_rule_names_are_explained_below_the_charts():
    from uno_sim.analysis.bluffgame import bluff_rules, challenge_rules, rule_legend
    from uno_sim.analysis.common import Setup, new_figure

    text = rule_legend("bluff", [r.label for r in bluff_rules()])
    assert text.startswith("never: never bluff; next<=X: bluff only when the next player")
    assert "own<=X: bluff only when the bluffer holds at most X cards" in text
    text = rule_legend("challenge", [r.label for r in challenge_rules()] + ["own<=1 and "
                                                                           "offender<=2"])
    for name in ("never:", "offender<=X:", "posterior>X: challenge when the estimated "
                 "probability of a bluff", "always:", "own<=X: challenge only when"):
        assert name in text, name
    setup = Setup("classic", 2, 10, 1, "greedy")
    fig, _ = new_figure(setup, "title", legend=f"Challenge rules: {text}.")
    footer = fig.get_supxlabel().replace("\n", " ")
    assert "posterior>X: challenge when" in footer and setup.text()[:20] in footer
