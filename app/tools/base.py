"""Values every tool shares: the lines a result showed (for citations) and the output itself."""

from __future__ import annotations

from dataclasses import dataclass

from app.index.values import ChunkKind
from app.values import LineSpan


@dataclass(frozen=True)
class TextHit:
    """One line a search found: where it is and its text (as the workspace reads it)."""

    span: LineSpan
    text: str


@dataclass(frozen=True)
class ChunkLines:
    """One ranked chunk as search_code showed it: where it is, what it is, and its lines as data
    (at most index_hit_max_lines: its start, or the ranking's `focus` lines of a longer chunk)."""

    span: LineSpan
    kind: ChunkKind
    symbol: str
    lines: tuple[TextHit, ...]


@dataclass(frozen=True)
class Reference:
    """One line that uses a name (find_references): where, how (call or use), inside which definition."""

    hit: TextHit
    how: str  # "call" | "use"
    inside: str  # the enclosing definition's name, or ""
    # the enclosing definition's first line: shown too, so an answer "called by main" rests on a
    # line the run showed that names `main`, not only on the tool's label
    inside_head: TextHit | None = None


@dataclass(frozen=True)
class ToolOutput:
    """What a tool returns: the text for the model, the file lines that text showed, and the same
    results as data (search hits) for callers that must not re-parse the text."""

    content: str
    spans: tuple[LineSpan, ...] = ()
    hits: tuple[TextHit, ...] = ()
    chunks: tuple[ChunkLines, ...] = ()  # search_code's chunks, in rank order
    references: tuple[Reference, ...] = ()  # find_references' uses, as listed
    definitions: tuple[TextHit, ...] = ()  # find_references' definition lines (each names the symbol)
