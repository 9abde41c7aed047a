"""One hop of references: the top-level definitions a found chunk uses, from the same file.

A chunk often holds the question's words but not the value they stand for: `defaults = {limit:
RETRY_LIMIT, codes: retryCodes}` names constants set a few lines above it, and `set_key` writes
through a `rewrite()` helper defined elsewhere in its module. The symbol table knows where each
top-level name of a file is defined, so the lines that define the names a found chunk uses come
with it, cut to the definition itself when it sits in a longer stretch of module code.

A doc comment the chunker kept apart from its definition (a blank line between them) is found with
the definition under it: the comment holds the question's words, the code the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from app.index.store import Store
from app.index.values import ChunkHit, ChunkKind

REFERENCE_MAX_LINES = 25  # a longer definition is a subject of its own, not a value to look up
REFERENCES_PER_HIT = 2  # definitions brought along by one found chunk, at most
REFERENCE_WEIGHT = 0.5  # a brought definition's score: its referrer's times this
MIN_NAME_CHARS = 3  # shorter names (`i`, `fn`) are locals far more often than module names
STATEMENT_MAX_LINES = 25  # a constant's definition is cut to its statement, at most this long
COMMENT_GAP_LINES = 2  # blank lines between a doc comment and the definition it describes, at most
COMMENT_MARKS = ("#", "//", "/*", "*", "--", '"""', "'''")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_TOP_LEVEL = (ChunkKind.CODE, ChunkKind.FUNCTION, ChunkKind.CLASS)
_OPEN, _CLOSE = "([{", ")]}"


def referenced(store: Store, hit: ChunkHit, shown: list[ChunkHit]) -> list[ChunkHit]:
    """The top-level definitions in the hit's file of names the hit uses (in order of first use),
    apart from the hit's own and from chunks already in `shown`."""
    used = [m.group().lower() for m in _IDENTIFIER.finditer(hit.text)
            if not hit.text[max(0, m.start() - 1):m.start()] == "."]  # `self.x`, `this.x`: members
    order = {n: i for i, n in reversed(list(enumerate(used)))}
    own = {p.lower() for p in hit.symbol.split(".")}  # `app` in `app.render`: the module's own object
    names = [n for n in order if len(n) >= MIN_NAME_CHARS and n not in own]
    if not names:
        return []
    marks = ",".join("?" * len(names))
    kinds = ",".join("?" * len(_TOP_LEVEL))
    rows = store.execute(
        "SELECT s.name, c.start, c.end, c.kind, c.symbol, c.text FROM symbols s "
        "JOIN chunks c ON c.id = s.chunk_id JOIN files f ON f.id = c.file_id "
        f"WHERE f.path = ? AND s.name IN ({marks}) AND c.kind IN ({kinds})",
        (hit.path, *names, *(k.value for k in _TOP_LEVEL)),
    )
    found: list[ChunkHit] = []
    for name, start, end, kind, symbol, text in sorted(rows, key=lambda r: order[r[0]]):
        ref = _definition(ChunkHit(hit.path, start, end, ChunkKind(kind), symbol,
                                   hit.score * REFERENCE_WEIGHT, text), name)
        if ref is None or not _worth(ref) or any(overlap(ref, other) for other in [hit, *shown, *found]):
            continue
        found.append(ref)
        if len(found) == REFERENCES_PER_HIT:
            break
    return found


def _worth(ref: ChunkHit) -> bool:
    """Short enough to come along, more than a bare `class X:` line, and top level: `res.status`
    (a member defined on a module object) is not what a bare `status` in the code names."""
    lines = ref.end_line - ref.start_line + 1
    return (lines <= REFERENCE_MAX_LINES and (ref.kind is not ChunkKind.CLASS or lines > 1)
            and (ref.kind is ChunkKind.CODE or "." not in ref.symbol))


def _definition(chunk: ChunkHit, name: str) -> ChunkHit | None:
    """A definition chunk whole; in module code, only the statement that assigns `name`."""
    if chunk.kind is not ChunkKind.CODE:
        return chunk
    lines = chunk.text.split("\n")
    pattern = re.compile(rf"^\s*(?:export\s+)?(?:(?:const|let|var|final|static)\s+)*{re.escape(name)}\s*[:=(]",
                         re.IGNORECASE)
    first = next((i for i, line in enumerate(lines) if pattern.match(line)), None)
    if first is None:
        return None
    last = statement_end(lines, first)
    return replace(chunk, start_line=chunk.start_line + first, end_line=chunk.start_line + last,
                   kind=ChunkKind.CODE, symbol=name, text="\n".join(lines[first:last + 1]))


def statement_end(lines: list[str], first: int) -> int:
    """The last line of the statement starting at `first`: where its brackets close."""
    depth = 0
    for i in range(first, min(len(lines), first + STATEMENT_MAX_LINES)):
        depth += bracket_depth(lines[i])
        if depth <= 0:
            return i
    return min(len(lines), first + STATEMENT_MAX_LINES) - 1


# A list or table a shown config line opens is shown to where it closes, this many lines more at
# most (search_code's focus and the first prompt's fitter; a user's check on textwrap: Cargo.toml's
# `default = [` was shown with two of its three features, and "smawk" was left out of the answer).
LIST_CLOSE_LINES = 3


def closing_lines(lines: Sequence[str], first: int, last: int, limit: int = LIST_CLOSE_LINES) -> list[int]:
    """The rows after `last` up to the one that closes the brackets rows `first`..`last` leave open
    (a list or table: `default = [` and its items); [] when nothing is left open or it does not
    close within `limit` rows."""
    depth = sum(bracket_depth(line) for line in lines[first:last + 1])
    more: list[int] = []
    for row in range(last + 1, min(len(lines), last + 1 + limit)):
        if depth <= 0:
            break
        more.append(row)
        depth += bracket_depth(lines[row])
    return more if depth <= 0 else []


def bracket_depth(text: str) -> int:
    """Brackets a line opens less those it closes (strings and comments not told apart)."""
    return sum(text.count(c) for c in _OPEN) - sum(text.count(c) for c in _CLOSE)


def overlap(a: ChunkHit, b: ChunkHit) -> bool:
    return a.path == b.path and a.start_line <= b.end_line and b.start_line <= a.end_line


def with_references(store: Store, hits: tuple[ChunkHit, ...], from_hits: int) -> tuple[ChunkHit, ...]:
    """The hits, each of the first `from_hits` followed by the definitions it uses."""
    out: list[ChunkHit] = []
    for rank, hit in enumerate(hits):
        if any(overlap(hit, other) for other in out):
            continue
        out.append(hit)
        if rank < from_hits:
            out += referenced(store, hit, [*out, *hits])
    return tuple(out)


def with_definitions_after_comments(store: Store, hits: tuple[ChunkHit, ...]) -> tuple[ChunkHit, ...]:
    """A found chunk of nothing but a comment (a doc comment the chunker kept apart from its
    definition: a blank line between them) becomes the comment and the definition under it."""
    out: list[ChunkHit] = []
    for hit in hits:
        after = _definition_after(store, hit) if _only_comments(hit.text) else None
        if after is None:
            out.append(hit)
        elif not any(overlap(after, other) for other in [*out, *hits]):
            gap = [""] * (after.start_line - hit.end_line - 1)
            out.append(replace(after, start_line=hit.start_line, score=hit.score,
                               text="\n".join([hit.text, *gap, after.text])))
    return tuple(out)


def _only_comments(text: str) -> bool:
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    return bool(lines) and all(line.startswith(COMMENT_MARKS) for line in lines)


def _definition_after(store: Store, hit: ChunkHit) -> ChunkHit | None:
    kinds = (ChunkKind.FUNCTION, ChunkKind.CLASS, ChunkKind.METHOD)
    rows = store.execute(
        "SELECT c.start, c.end, c.kind, c.symbol, c.text FROM chunks c JOIN files f ON f.id = c.file_id "
        "WHERE f.path = ? AND c.start > ? AND c.start <= ? AND c.kind IN (?, ?, ?) ORDER BY c.start LIMIT 1",
        (hit.path, hit.end_line, hit.end_line + 1 + COMMENT_GAP_LINES, *(k.value for k in kinds)),
    )
    if not rows:
        return None
    start, end, kind, symbol, text = rows[0]
    return ChunkHit(hit.path, start, end, ChunkKind(kind), symbol, hit.score, text)
