"""Read the imports of uno_sim's Python rooms and the calls between its C files from the
source, and find the circles among them (tests/test_layers.py; docs/contributing.md
"The layers").

Python: every `import` and `from ... import` of every module of uno_sim/ and analysis/
(installed as uno_sim.analysis), those inside functions too (a deferred import that runs
back up is still a circle), and the binding's Python imports (uno_sim/_engine.pyx and
the .pxi files it includes).  `from pkg import name` is an import of the module
pkg.name when there is one, else of pkg.  A module's parent packages, which Python
loads before it, are not counted as its imports, nor are imports by a computed name
(importlib: the variants' registry discovering its modules).

C: the functions and tables each csrc/*.c defines (not static) and every other file's
uses of their names, comments and strings left out; a header's inline functions count
for the files that use them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"uno_sim": "uno_sim", "uno_sim.analysis": "analysis"}  # package -> folder


# --- Python ---------------------------------------------------------------------------

def python_modules(root: Path = ROOT, packages: dict = PACKAGES) -> dict[str, list[Path]]:
    """{module: its source files} of every module of `packages` ({package: folder})."""
    mods: dict[str, list[Path]] = {}
    for pkg, folder in packages.items():
        base = root / folder
        for path in sorted(base.rglob("*.py")) + sorted(base.rglob("*.pyx")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([pkg] + parts)
            if name in mods and name not in packages:  # a module of a nested package
                continue
            files = [path]
            if path.suffix == ".pyx":  # Cython: its include "x.pxi" files are part of it
                text = path.read_text()
                files += [path.parent / inc for inc in re.findall(r'^include\s+"([^"]+)"', text,
                                                                   flags=re.M)]
            mods[name] = files
    return mods


_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+import\s+([^#\n]+)|import\s+([\w.]+))",
                            re.M)


def _imports_of(path: Path):
    """(level, module, [names], line) of every import in a file (ast; a regex for Cython,
    whose cimports are C declarations, not imports)."""
    text = path.read_text()
    if path.suffix in (".pyx", ".pxi"):
        for m in _CYTHON_IMPORT.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            if m.group(3):
                yield 0, m.group(3), [], line
            else:
                mod = m.group(1)
                level = len(mod) - len(mod.lstrip("."))
                names = [n.strip().split(" as ")[0] for n in m.group(2).strip("() \\").split(",")]
                yield level, mod.lstrip(".") or None, [n for n in names if n], line
        return
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield 0, a.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            yield node.level, node.module, [a.name for a in node.names], node.lineno


def python_graph(root: Path = ROOT, packages: dict = PACKAGES) -> dict:
    """{module: {imported module: (file, line) of the first such import}} among the
    modules of `packages`; imports of anything else are left out."""
    mods = python_modules(root, packages)
    folders = {folder.split("/")[0]: pkg for pkg, folder in packages.items()}

    def known(name):
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, dict] = {m: {} for m in mods}
    for mod, files in mods.items():
        is_pkg = files[0].name == "__init__.py"
        here = mod if is_pkg else mod.rpartition(".")[0]
        for path in files:
            for level, module, names, line in _imports_of(path):
                if level:
                    base = here.split(".")
                    base = base[:len(base) - (level - 1)]
                    target = ".".join(base + ([module] if module else []))
                else:
                    head = (module or "").split(".")[0]
                    if head in folders and head not in mods:  # `analysis` as installed
                        module = folders[head] + module[len(head):]
                    target = module or ""
                targets = ([f"{target}.{n}" if f"{target}.{n}" in mods else target
                            for n in names] or [target])
                for t in targets:
                    t = known(t)
                    if t and t != mod and t not in graph[mod]:
                        graph[mod][t] = (str(path.relative_to(root)), line)
    return graph


# --- C ----------------------------------------------------------------------------------

def _strip_c(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


_C_DEF = re.compile(r"^(?!static\b|UNO_HD\s+static\b|typedef\b|extern\b|#)[A-Za-z_][\w \t\*]*?"
                    r"\b([A-Za-z_]\w*)\s*(?:\([^;{]*\)\s*\{|(?:\[[^\]]*\])*\s*=)", re.M)
_C_INLINE = re.compile(r"^(?:UNO_HD\s+)?static\s+inline\b[^;{(]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{",
                       re.M)


def _bodies(text: str, start: int) -> str:
    """The brace-balanced body that opens at or after `start`."""
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i:j + 1]
    return text[i:]


def c_graph(csrc: Path = ROOT / "csrc") -> dict:
    """{file: {file it uses: [names]}} among csrc's .c files, through the headers' inline
    functions too."""
    texts = {p.name: _strip_c(p.read_text()) for p in sorted(csrc.glob("*.[ch]"))}
    owner: dict[str, str] = {}  # name -> the .c file that defines it
    inline: dict[str, str] = {}  # name -> the body of a header's inline function
    for name, text in texts.items():
        if name.endswith(".c"):
            for m in _C_DEF.finditer(text):
                owner.setdefault(m.group(1), name)
        else:
            for m in _C_INLINE.finditer(text):
                inline[m.group(1)] = _bodies(text, m.start())

    def uses(body: str, seen: set) -> dict:
        out: dict[str, set] = {}
        for tok in set(re.findall(r"\b[A-Za-z_]\w*\b", body)):
            if tok in owner:
                out.setdefault(owner[tok], set()).add(tok)
            elif tok in inline and tok not in seen:
                for f, names in uses(inline[tok], seen | {tok}).items():
                    out.setdefault(f, set()).update(names)
        return out

    graph = {}
    for name, text in texts.items():
        if name.endswith(".c"):
            graph[name] = {f: sorted(n) for f, n in uses(text, set()).items() if f != name}
    return graph


# --- circles ----------------------------------------------------------------------------

def circles(graph: dict, rooms: dict | None = None) -> list[list[str]]:
    """One circle (a list of nodes, the first repeated last) per strongly connected part
    of `graph` ({node: {node: ...}}) with more than one node.  `rooms` ({node: room})
    merges nodes into rooms first: a circle inside one room is no circle."""
    rooms = rooms or {}
    merged: dict[str, set] = {}
    for a, outs in graph.items():
        ra = rooms.get(a, a)
        merged.setdefault(ra, set())
        for b in outs:
            rb = rooms.get(b, b)
            if rb != ra:
                merged[ra].add(rb)
                merged.setdefault(rb, set())
    index, low, stack, on, parts = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components, iteratively
        work = [(v, iter(sorted(merged[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(merged[w]))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        part.append(w)
                        if w == node:
                            break
                    if len(part) > 1:
                        parts.append(sorted(part))

    for v in sorted(merged):
        if v not in index:
            visit(v)
    out = []
    for part in parts:  # a shortest way back from the part's first node to itself
        start, inside = part[0], set(part)
        prev, frontier = {}, [start]
        while start not in prev:
            nxt = []
            for a in frontier:
                for b in sorted(merged[a] & inside):
                    if b not in prev:
                        prev[b] = a
                        nxt.append(b)
            frontier = nxt
        path, node = [start], prev[start]
        while node != start:
            path.append(node)
            node = prev[node]
        out.append([start] + path[:0:-1] + [start])
    return out


def describe(circle: list[str], graph: dict) -> str:
    """`a -> b (file:line) -> a (file:line)` for a Python circle; the names used for a C
    one (a room `x.c+y.c` stands for its files)."""
    steps = [circle[0]]
    for a, b in zip(circle, circle[1:]):
        where = graph.get(a, {}).get(b)
        if where is None:  # rooms of several files
            where = sorted({n for f in a.split("+") for g, names in graph.get(f, {}).items()
                            if g in b.split("+") for n in names}) or None
        if isinstance(where, tuple):
            steps.append(f"{b} ({where[0]}:{where[1]})")
        elif where:
            steps.append(f"{b} ({', '.join(where[:4])})")
        else:
            steps.append(b)
    return " -> ".join(steps)


# --- the figure of docs/contributing.md --------------------------------------------------

def floors(doc: Path = ROOT / "docs" / "contributing.md") -> list[tuple[str, list[str]]]:
    """[(floor, [rooms])] of the figure under "The layers", top floor first."""
    text = doc.read_text()
    block = text[text.index("## The layers"):]
    block = block[block.index("```") + 3:]
    block = block[block.index("\n") + 1:block.index("```")]
    out: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if "│" not in line or "┼" in line:
            continue
        name, _, rooms = line.partition("│")
        if name.strip():
            out.append((name.strip(), []))
        out[-1][1].extend(rooms.split())
    return out


def place(names, figure) -> tuple[dict, dict, list]:
    """({name: floor number, 0 the lowest}, {file: room} for `a+b` rooms, [entries of the
    figure that name nothing]) for the names (modules, or csrc files) of `names`."""
    names = list(names)
    height = len(figure)
    where, rooms, stale = {}, {}, []
    best: dict[str, int] = {}  # how specific the entry that placed a name is
    for i, (_, entries) in enumerate(figure):
        level = height - 1 - i
        for entry in entries:
            if entry.startswith("csrc/"):
                files = entry[len("csrc/"):].split("+")
                for f in files[1:]:
                    files[files.index(f)] = f if "." in f else f + ".c"
                hit = [f for f in files if f in names]
                for f in hit:
                    where[f] = level
                    if len(files) > 1:
                        rooms[f] = "+".join(files)
                if len(hit) != len(files):
                    stale.append(entry)
                continue
            if entry.endswith(".*"):
                stem = entry[:-2]
                hit = [n for n in names if n == stem or n.startswith(stem + ".")]
                rank = len(stem)
            else:
                hit = [entry] if entry in names else []
                rank = 10_000
            if not hit:
                stale.append(entry)
            for n in hit:
                if rank >= best.get(n, -1):
                    best[n], where[n] = rank, level
    return where, rooms, stale


def upward(graph: dict, where: dict) -> list[str]:
    """Every use of a room on a higher floor than the user's, as `a -> b (where)`."""
    out = []
    for a, outs in sorted(graph.items()):
        for b, at in sorted(outs.items()):
            if a in where and b in where and where[b] > where[a]:
                out.append(describe([a, b], {a: {b: at}}))
    return out
