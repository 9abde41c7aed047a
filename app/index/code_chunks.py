"""Definitions as chunks: each function and method with the comments and docstring that belong to
it; each class (struct, trait, impl, interface) as a header chunk of its own lines outside its
methods; module-level code between definitions as windows. The definitions come from
app.index.definitions, the walker file_outline uses too.
"""

from __future__ import annotations

import re

from app.index.definitions import Definition, Role
from app.index.values import Chunk, ChunkKind

# Module-level names worth finding by symbol: `MAX_ITEMS = 5000`, `const port = 80`, `var x int`.
_ASSIGNED = re.compile(
    r"^(?:export\s+)?(?:(?:pub\s+)?(?:const|let|var|static|final|public|private)\s+)*"
    r"(?:[\w<>\[\], ]+\s+)??([A-Za-z_]\w*)\s*(?::[^=\n]{0,80})?(?<![=!<>])=(?!=)",
    re.MULTILINE,
)


_IMPORT_LINE = re.compile(
    r"\s*(?:import\b|from\s+[\w.]+\s+import\b|#\s*include\b|use\s+[\w:]+|using\s+[\w.]+|"
    r"package\s+[\w.]+|(?:const|let|var)\s+[\w{}\s,]+=\s*require\(|[\w\s,]*,\s*$|\)\s*$|"
    r"\}\s*from\s|['\"][^'\"]+['\"];?\s*$)"
)
_REMARKS = ("#", "//", "/*", "*", "\"\"\"")  # licence headers, docstrings: not counted
IMPORTS_SHARE = 0.6  # this share of a code chunk's lines import something: a list of imports


def mostly_imports(text: str) -> bool:
    """Import lists match many names yet rarely answer a question; they rank lower."""
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith(_REMARKS)]
    hits = sum(1 for ln in lines if _IMPORT_LINE.match(ln))
    return bool(lines) and hits >= IMPORTS_SHARE * len(lines)


def assigned_names(text: str) -> tuple[str, ...]:
    """Names given a value at the start of a line (no indentation): constants and settings."""
    return tuple(dict.fromkeys(m.group(1) for m in _ASSIGNED.finditer(text)))


def field_names(text: str) -> tuple[str, ...]:
    """Names a class body gives a value (`n_ctx: int = Field(8192)`, `timeout = 5000;`): its fields
    with defaults, at the body's own indentation (not a call's keyword arguments continued below)."""
    rows = [(len(ln) - len(ln.lstrip()), ln) for ln in text.split("\n") if ln.strip()]
    body = min((indent for indent, _ in rows if indent), default=0)
    return assigned_names("\n".join(ln[body:] for indent, ln in rows if indent == body))


def code_chunks(lines: list[str], defs: list[Definition], max_lines: int, window: int, overlap: int) -> list[Chunk]:
    """Chunks for definitions (long ones split), class headers and the code between definitions."""
    chunks: list[Chunk] = []
    # owner of each line: '' module level, a class's name, or None inside a function
    covered: list[str | None] = [""] * len(lines)
    for d in defs:
        if d.role is Role.SCOPE:
            continue  # a namespace's lines belong to the definitions and code inside it
        if d.container:
            _mark(covered, d, d.name)
        else:
            _mark(covered, d, None)
            chunks += spans(lines, d.start, d.end, d.kind, d.name, d.doc, max_lines, overlap)
    docs = {d.name: d.doc for d in reversed(defs) if d.container}  # an impl's name may repeat
    for name, doc in docs.items():
        chunks += _leftovers(lines, covered, name, ChunkKind.CLASS, doc, max_lines, overlap)
    chunks += _leftovers(lines, covered, "", ChunkKind.CODE, "", window, overlap)
    return chunks


def _mark(covered: list[str | None], d: Definition, owner: str | None) -> None:
    for row in range(d.start, min(d.end, len(covered) - 1) + 1):
        covered[row] = owner


def _leftovers(lines: list[str], covered: list[str | None], owner: str, kind: ChunkKind, doc: str, window: int,
               overlap: int) -> list[Chunk]:
    """Windows over the runs of lines that belong to `owner` itself and are not all blank."""
    chunks: list[Chunk] = []
    for row, end in _runs(covered, owner):
        first, last = _trimmed(lines, row, end)
        if first <= last and any(any(ch.isalnum() for ch in lines[r]) for r in range(first, last + 1)):
            chunks += spans(lines, first, last, kind, owner, doc, window, overlap)
    return chunks


def _runs(covered: list[str | None], owner: str) -> list[tuple[int, int]]:
    """The first and last row of each unbroken run of rows that `owner` holds."""
    runs: list[tuple[int, int]] = []
    row = 0
    while row < len(covered):
        if covered[row] != owner:
            row += 1
            continue
        end = row
        while end + 1 < len(covered) and covered[end + 1] == owner:
            end += 1
        runs.append((row, end))
        row = end + 1
    return runs


def _trimmed(lines: list[str], first: int, last: int) -> tuple[int, int]:
    """The rows without blank lines at either end (first > last when they are all blank)."""
    while first <= last and not lines[first].strip():
        first += 1
    while last > first and not lines[last].strip():
        last -= 1
    return first, last


def spans(lines: list[str], start: int, end: int, kind: ChunkKind, symbol: str, doc: str, size: int,
          overlap: int) -> list[Chunk]:
    """One chunk for rows start..end, or overlapping windows of `size` when it is longer."""
    out: list[Chunk] = []
    while end > start and not lines[end].strip():
        end -= 1
    first = start
    while True:
        last = min(end, first + size - 1)
        out.append(_window(lines, first, last, kind, symbol, doc if first == start else ""))
        if last >= end:
            return out
        first = max(first + 1, last + 1 - overlap)


def _window(lines: list[str], first: int, last: int, kind: ChunkKind, symbol: str, doc: str) -> Chunk:
    text = "\n".join(lines[first : last + 1])
    names = assigned_names(text) if kind is ChunkKind.CODE else field_names(text) if kind is ChunkKind.CLASS else ()
    what = ChunkKind.IMPORTS if kind is ChunkKind.CODE and mostly_imports(text) else kind
    return Chunk(first + 1, last + 1, what, symbol, text, doc, names)
