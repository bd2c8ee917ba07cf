"""A study's output as blocks that render to Markdown and to self-contained HTML."""

from __future__ import annotations

import base64
import html
import json
import math
import os
from dataclasses import dataclass, field

import polars as pl


@dataclass
class Section:
    """A titled list of blocks: ("p", text), ("table", caption, frame), ("figure", caption, path),
    ("code", text)."""

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

    def figure(self, caption: str, path: str) -> "Section":
        """Add a figure (a PNG file) with its caption."""
        self.blocks.append(("figure", caption, path))
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
        """A notebook's view: the study's text, tables and figures embedded (HTML)."""
        page = render_html(self.sections, f"Study: {self.name}")
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
        with open(md, "w", encoding="utf-8") as f:
            f.write(self.markdown(base=out))
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
            if blk[0] == "p":
                item["paragraphs"].append(blk[1])
            elif blk[0] == "table":
                item["tables"].append({"caption": blk[1], "columns": blk[2].columns,
                                       "records": records(blk[2])})
            elif blk[0] == "figure":
                path = os.path.relpath(blk[2], base) if base else blk[2]
                item["figures"].append({"caption": blk[1], "path": path})
        out.append(item)
    return {"sections": out}


def write_json(path: str, data: dict) -> str:
    """Write `data` as JSON to `path` (NaN as null); returns `path`."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(_plain(data), f, indent=1, allow_nan=False)
        f.write("\n")
    return path


def _cell(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.2e}"
    return str(v)


def _rows(frame: pl.DataFrame):
    return [[_cell(v) for v in row] for row in frame.iter_rows()]


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
            elif kind == "code":
                out.append("```\n" + blk[1] + "\n```\n")
            elif kind == "table":
                _, caption, frame = blk
                out.append(f"*{caption}*\n")
                out.append("| " + " | ".join(header(c) for c in frame.columns) + " |")
                out.append("|" + "---|" * len(frame.columns))
                out += ["| " + " | ".join(r) + " |" for r in _rows(frame)]
                out.append("")
            elif kind == "figure":
                _, caption, path = blk
                rel = os.path.relpath(path, base) if base else path
                out.append(f"![{caption}]({rel})\n\n*{caption}*\n")
    return "\n".join(out)


def render_html(sections, title: str, preamble: str = "", level: int = 2,
                toc_after: int | None = None) -> str:
    """A self-contained HTML page of `sections` (figures embedded), titled `title`."""
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
            if kind == "p":
                body.append(f"<p>{e(blk[1])}</p>")
            elif kind == "code":
                body.append(f"<pre>{e(blk[1])}</pre>")
            elif kind == "table":
                _, caption, frame = blk
                head = "".join(f"<th>{e(header(c))}</th>" for c in frame.columns)
                rows = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                               for r in _rows(frame))
                body.append(f"<table><caption>{e(caption)}</caption><thead><tr>{head}</tr></thead>"
                            f"<tbody>{rows}</tbody></table>")
            elif kind == "figure":
                _, caption, path = blk
                with open(path, "rb") as f:
                    data = base64.b64encode(f.read()).decode("ascii")
                body.append(f'<figure><img alt="{e(caption)}" src="data:image/png;base64,{data}">'
                            f"<figcaption>{e(caption)}</figcaption></figure>")
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;"
             "line-height:1.4}table{border-collapse:collapse;margin:1em 0;font-size:90%}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
             "caption{text-align:left;font-style:italic;padding:4px 0}"
             "img{max-width:100%}figcaption{font-style:italic;font-size:90%}"
             "pre{background:#f4f4f4;padding:0.5em;overflow-x:auto}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{e(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
