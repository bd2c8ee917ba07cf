"""A study's output as blocks that render to Markdown and to light HTML (figures as PNG files
beside it, referenced by relative paths)."""

from __future__ import annotations

import base64
import html
import json
import math
import os
import re
from dataclasses import dataclass, field

import polars as pl

from uno_sim.files import writing


@dataclass
class Section:
    """A titled list of blocks: ("p", text), ("table", caption, frame),
    ("figure", caption, path, alt), ("code", text), ("setup", text, label),
    ("method", key, text).

    A method block explains how a kind of section is computed: a single study prints it in
    place, a report states each method once, in its Methods section (`split_methods`).
    """

    title: str
    blocks: list = field(default_factory=list)

    def p(self, text: str) -> "Section":
        """Add a paragraph."""
        self.blocks.append(("p", text))
        return self

    def table(self, caption: str, frame: pl.DataFrame) -> "Section":
        """Add a table (a Polars frame) with its caption."""
        self.blocks.append(("table", caption, frame))
        return self

    def figure(self, caption: str, path: str, alt: str | None = None) -> "Section":
        """A figure: `caption` says what it shows and how to read it; `alt`, a short
        description of the image for a reader who cannot see it (default: the caption)."""
        self.blocks.append(("figure", caption, path, alt or caption))
        return self

    def setup(self, text: str, label: str = "") -> "Section":
        """The setup of what follows (variant, rules, policies, players, games, seed), stated
        once per section; a report links a setup already stated to where it was
        (`link_repeated_setups`)."""
        self.blocks.append(("setup", text, label))
        return self

    def method(self, key: str, text: str) -> "Section":
        """How this kind of section is computed; `key` names the method (one per kind)."""
        self.blocks.append(("method", key, text))
        return self

    def code(self, text: str) -> "Section":
        """Add a block of code or output."""
        self.blocks.append(("code", text))
        return self


@dataclass
class StudyResult:
    """What a study returns: sections for the report, frames for a notebook."""

    name: str
    sections: list
    data: dict = field(default_factory=dict)
    figures: list = field(default_factory=list)
    # the temporary folder of the figures of a call without `out` (analysis.run_study):
    # a tempfile.TemporaryDirectory, removed with the result
    tmp: object = field(default=None, repr=False, compare=False)

    def markdown(self, base: str | None = None) -> str:
        """The study as Markdown (figures linked, relative to `base` when given)."""
        return render_markdown(self.sections, base)

    def _repr_markdown_(self) -> str:
        """A notebook's view: the study's text, tables and figures (Markdown)."""
        return self.markdown()

    def _repr_html_(self) -> str:
        """A notebook's view: the study's text, tables and figures embedded (HTML: a notebook
        cannot load the PNG files by their paths)."""
        from dataclasses import replace

        def embedded(blk):
            if blk[0] != "figure":
                return blk
            with open(blk[2], "rb") as f:
                uri = "data:image/png;base64," + base64.b64encode(f.read()).decode("ascii")
            return (blk[0], blk[1], uri, *blk[3:])

        sections = [replace(sec, blocks=[embedded(b) for b in sec.blocks])
                    for sec in self.sections]
        page = render_html(sections, f"Study: {self.name}")
        return "<div>" + page[page.index("<body>") + 6:page.rindex("</body>")] + "</div>"

    def to_json(self, base: str | None = None) -> dict:
        """The study as plain data: its setup(s) and every table as a list of records.

        Setups are the `.data` values with a ``to_dict`` method (uno_sim.analysis.common.Setup):
        variant, rules, policies per seat, players, games, seed.
        """
        setups = [v.to_dict() for v in self.data.values() if callable(getattr(v, "to_dict", None))
                  and not isinstance(v, pl.DataFrame)]
        return {"study": self.name, "setup": setups[0] if setups else None,
                "setups": setups, **sections_json(self.sections, base)}

    def write(self, out: str) -> tuple[str, str]:
        """Write study.md and study.json into `out`; returns their paths."""
        os.makedirs(out, exist_ok=True)
        md, js = os.path.join(out, "study.md"), os.path.join(out, "study.json")
        text = self.markdown(base=out)
        with writing(md), open(md, "w", encoding="utf-8") as f:
            f.write(text)
        write_json(js, self.to_json(base=out))
        return md, js


def _plain(v):
    """A JSON value: NaN and infinities become null, numpy scalars Python numbers."""
    if hasattr(v, "item") and not isinstance(v, (list, dict, str)):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def records(frame: pl.DataFrame) -> list[dict]:
    """A frame as a list of {column: value} records, JSON-ready."""
    return [_plain(r) for r in frame.to_dicts()]


def sections_json(sections, base: str | None = None) -> dict:
    """{"sections": [{title, paragraphs, tables: [{caption, columns, records}], figures}]}."""
    out = []
    for sec in sections:
        item = {"title": sec.title, "paragraphs": [], "tables": [], "figures": []}
        for blk in sec.blocks:
            if blk[0] in ("p", "setup"):
                item["paragraphs"].append(_setup_text(blk) if blk[0] == "setup" else blk[1])
            elif blk[0] == "method":
                item["paragraphs"].append(blk[2])
            elif blk[0] == "table":
                item["tables"].append({"caption": blk[1], "columns": blk[2].columns,
                                       "records": records(blk[2])})
            elif blk[0] == "figure":
                path = os.path.relpath(blk[2], base) if base else blk[2]
                item["figures"].append({"caption": blk[1], "alt": blk[3], "path": path})
        out.append(item)
    return {"sections": out}


def write_json(path: str, data: dict) -> str:
    """Write `data` as JSON to `path` (NaN as null); returns `path`."""
    text = json.dumps(_plain(data), indent=1, allow_nan=False)
    with writing(path), open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return path


# ---------------------------------------------------------------------------
# Numbers: one format per column
# ---------------------------------------------------------------------------

P_COLUMNS = ("p", "p_holm")


def _interval_base(col: str, columns: list[str]) -> str:
    """The column whose estimate an interval column bounds: `share_low` -> `share`; a bare
    `low`/`high` bounds the nearest column to its left that is not an interval bound."""
    for end in ("_low", "_high"):
        if col.endswith(end) and col[: -len(end)] in columns:
            return col[: -len(end)]
    if col in ("low", "high"):
        for c in reversed(columns[: columns.index(col)]):
            if c not in ("low", "high") and not c.endswith(("_low", "_high")):
                return c
    return col


def _finite(values) -> list[float]:
    return [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v)]


def _decimals(values: list[float]) -> int:
    """Decimals for a group of numbers: 4 when they all lie in [-1, 1] (shares, effects,
    weights), else about four significant digits of the largest, 0 for whole numbers."""
    if not values:
        return 0
    if all(abs(v) <= 1 for v in values):
        return 4
    if all(float(v).is_integer() for v in values):
        return 0
    big = max(abs(v) for v in values)
    return max(1, min(4, 3 - math.floor(math.log10(big))))


def _p_text(v: float) -> str:
    return "<0.0001" if v < 0.0001 else f"{v:.4f}"


def column_formats(frame: pl.DataFrame) -> dict:
    """{column: function value -> text}: every cell of a column in one format.

    Integer columns: thousands separators (12,345). p-values: 4 decimals, `<0.0001` below.
    Other numbers: 4 decimals when the column and its interval columns all lie in [-1, 1],
    else one number of decimals chosen from the largest value; an interval column
    (`x_low`, `x_high`, or `low`/`high` after `x`) takes the format of its estimate `x`.
    Missing and non-finite values print as `-`.
    """
    cols = frame.columns
    groups: dict = {}
    for c in cols:
        groups.setdefault(_interval_base(c, cols), []).append(c)
    fmts = {}
    for base, members in groups.items():
        dtypes = [frame.schema[c] for c in members]
        if all(d.is_integer() for d in dtypes):
            f = lambda v: f"{v:,}"  # noqa: E731
        elif base in P_COLUMNS:
            f = _p_text
        elif all(d.is_numeric() for d in dtypes):
            vals = _finite([v for c in members for v in frame[c].to_list()])
            d = _decimals(vals)
            f = (lambda d: lambda v: f"{v:,.{d}f}")(d)
        else:
            f = str
        for c in members:
            fmts[c] = f
    return fmts


def _cell(v, f) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (int, float)):
        return f(v)
    return str(v)


def _rows(frame: pl.DataFrame):
    fmts = column_formats(frame)
    cols = frame.columns
    return [[_cell(v, fmts[c]) for c, v in zip(cols, row)] for row in frame.iter_rows()]


# Column names as the tables print them (the JSON keeps the names of the frames).
HEADER_WORDS = {"low": "95% low", "high": "95% high", "p": "p", "p_holm": "p (Holm)",
                "d": "effect", "n": "n", "se": "SE"}


def header(col: str) -> str:
    """A readable column header: `game_edge_low` -> `game edge (95% low)`, `p_holm` ->
    `p (Holm)`; names with spaces already are kept."""
    if " " in col or col in ("p",):
        return col
    if col in HEADER_WORDS:
        return HEADER_WORDS[col]
    parts = col.split("_")
    tail = ""
    if len(parts) > 1 and parts[-1] in ("low", "high"):
        tail = f" (95% {parts.pop()})"
    if len(parts) > 1 and parts[-1] == "holm":
        parts.pop()
        tail = " (Holm)" + tail
    if parts and parts[0] == "d" and len(parts) > 1:
        parts = ["effect on"] + parts[1:]
    return " ".join(parts) + tail


def slug(title: str) -> str:
    """The anchor GitHub (and report.html) gives a heading."""
    s = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -_")
    return s.replace(" ", "-")


def table_of_contents(sections) -> str:
    """A Markdown list of links to the sections."""
    return "\n".join(f"- [{sec.title}](#{slug(sec.title)})" for sec in sections) + "\n"


def _setup_text(blk) -> str:
    """A setup block as a paragraph: `**Setup (label).** text`, or the link that replaced it."""
    _, text, label = blk
    if text.startswith("**Setup"):
        return text
    return f"**Setup{f' ({label})' if label else ''}.** {text}"


def link_repeated_setups(sections) -> list:
    """The sections with each setup stated once: a setup block whose text an earlier section
    already states becomes a link to that section."""
    first, out = {}, []
    for sec in sections:
        blocks = []
        for blk in sec.blocks:
            if blk[0] == "setup" and blk[1] in first and first[blk[1]] != sec.title:
                t = first[blk[1]]
                lab = f" ({blk[2]})" if blk[2] else ""
                blk = ("setup", f"**Setup{lab}:** the runs of [{t}](#{slug(t)}).", blk[2])
            elif blk[0] == "setup":
                first.setdefault(blk[1], sec.title)
            blocks.append(blk)
        out.append(Section(sec.title, blocks))
    return out


def split_methods(sections) -> tuple[list, dict]:
    """The sections without their method blocks, and {key: text} of every method in the order
    first met (a report states each method once, in its own section)."""
    methods, out = {}, []
    for sec in sections:
        kept = []
        for blk in sec.blocks:
            if blk[0] == "method":
                methods.setdefault(blk[1], blk[2])
            else:
                kept.append(blk)
        out.append(Section(sec.title, kept))
    return out, methods


def render_markdown(sections, base: str | None = None, level: int = 2,
                    toc_after: int | None = None) -> str:
    """Markdown of `sections`; with `toc_after` = n, a table of contents of the sections
    after the first n stands after them."""
    out = []
    for n, sec in enumerate(sections):
        if n == toc_after:
            out.append(f"{'#' * level} Contents\n")
            out.append(table_of_contents(sections[n:]))
        out.append(f"{'#' * level} {sec.title}\n")
        for blk in sec.blocks:
            kind = blk[0]
            if kind == "p":
                out.append(blk[1] + "\n")
            elif kind == "setup":
                out.append(_setup_text(blk) + "\n")
            elif kind == "method":
                out.append(blk[2] + "\n")
            elif kind == "code":
                out.append("```\n" + blk[1] + "\n```\n")
            elif kind == "table":
                _, caption, frame = blk
                if caption:
                    out.append(f"*{caption}*\n")
                out.append("| " + " | ".join(header(c) for c in frame.columns) + " |")
                out.append("|" + "---|" * len(frame.columns))
                out += ["| " + " | ".join(r) + " |" for r in _rows(frame)]
                out.append("")
            elif kind == "figure":
                _, caption, path, alt = blk
                rel = os.path.relpath(path, base) if base else path
                out.append(f"![{alt}]({rel})\n\n*{caption}*\n")
    return "\n".join(out)


def render_html(sections, title: str, preamble: str = "", level: int = 2,
                toc_after: int | None = None, base: str | None = None) -> str:
    """Light HTML of `sections`: figures are `<img>` links to the PNG files (paths relative to
    `base`, the HTML file's folder), never embedded."""
    e = html.escape
    body = [f"<h1>{e(title)}</h1>", preamble]
    for n, sec in enumerate(sections):
        if n == toc_after:
            body.append(f"<h{level}>Contents</h{level}><ul>" + "".join(
                f'<li><a href="#{e(slug(s.title))}">{e(s.title)}</a></li>'
                for s in sections[n:]) + "</ul>")
        body.append(f'<h{level} id="{e(slug(sec.title))}">{e(sec.title)}</h{level}>')
        for blk in sec.blocks:
            kind = blk[0]
            if kind in ("p", "method"):
                body.append(f"<p>{_inline_html(blk[-1])}</p>")
            elif kind == "setup":
                body.append(f"<p>{_inline_html(_setup_text(blk))}</p>")
            elif kind == "code":
                body.append(f"<pre>{e(blk[1])}</pre>")
            elif kind == "table":
                _, caption, frame = blk
                head = "".join(f"<th>{e(header(c))}</th>" for c in frame.columns)
                rows = "".join("<tr>" + "".join(f"<td>{_inline_html(c)}</td>" for c in r)
                               + "</tr>" for r in _rows(frame))
                cap = f"<caption>{e(caption)}</caption>" if caption else ""
                body.append(f"<table>{cap}<thead><tr>{head}</tr></thead>"
                            f"<tbody>{rows}</tbody></table>")
            elif kind == "figure":
                _, caption, path, alt = blk
                rel = os.path.relpath(path, base) if base else path
                src = "/".join(rel.split(os.sep))
                body.append(f'<figure><img alt="{e(alt)}" src="{e(src)}" loading="lazy">'
                            f"<figcaption>{e(caption)}</figcaption></figure>")
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;"
             "line-height:1.4}table{border-collapse:collapse;margin:1em 0;font-size:90%}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
             "caption{text-align:left;font-style:italic;padding:4px 0}"
             "img{max-width:100%}figcaption{font-style:italic;font-size:90%}"
             "pre{background:#f4f4f4;padding:0.5em;overflow-x:auto}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{e(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


# A Markdown code span: a run of backticks, the code, the same run (CommonMark: one space
# each side is dropped when both are there, so that `` `x` `` can hold a backtick).
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)


def _inline_html(text: str) -> str:
    """Escaped text with Markdown code spans (`` `greedy(bluff=0.3)` ``), links
    `[label](#anchor)` and `**bold**` as HTML; a code span's text is kept as it is (no link
    or bold inside), and a link or bold may hold code spans."""
    codes = []

    def keep(m):
        code = m.group(2)
        if code[0] == code[-1] == " " and code.strip():
            code = code[1:-1]
        codes.append(f"<code>{html.escape(code, quote=False)}</code>")
        return f"\0{len(codes) - 1}\0"

    t = html.escape(_CODE_SPAN.sub(keep, text.replace("\0", "")), quote=False)
    t = re.sub(r"\[([^\]]+)\]\((#[^)\s]+)\)", r'<a href="\2">\1</a>', t)
    t = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", t)
    return re.sub("\0([0-9]+)\0", lambda m: codes[int(m.group(1))], t)
