"""search_code: ranked chunks from the code index, each shown as numbered lines re-read from disk.

The index only says where to look (path, lines, kind, symbol). The lines shown are read again
through the Workspace, so a file that changed, vanished or became refused since the index saw it
is shown as it is now, or not at all: the tool never shows text the rules would not.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from app.errors import BurrowError
from app.index import ChunkHit, CodeIndex
from app.index.values import IndexStats, Progress
from app.tools.base import ChunkLines, TextHit, ToolOutput
from app.tools.calls_text import call_text, cut_note
from app.tools.reading import clip_line
from app.values import LineSpan
from app.workspace import Workspace

IndexOpener = Callable[[Workspace], CodeIndex]
# The best chunk brings the top-level definitions of its file that it uses (index/one_hop.py).
# Tuning set: answer keywords in the first prompt's evidence lines 58 -> 59 for +24 median tokens;
# from the first two chunks, no further question and +85 tokens.
REFERENCES_FROM = 1


class SearchCodeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=500,
                       description="words or names to find, e.g. 'where is the retry delay set'")
    limit: int = Field(8, ge=1, le=50, description="chunks to return at most")


def open_index(ws: Workspace) -> CodeIndex:
    return CodeIndex.open(ws, ws.settings)


class CodeSearch:
    """The search_code tool. Holds one index per workspace: brought up to date once (by a session
    before its question, with progress, or else when first asked), then reused, so later calls
    cost a query, not a walk of the tree."""

    def __init__(self, opener: IndexOpener = open_index) -> None:
        self._opener = opener
        self._indexes: weakref.WeakKeyDictionary[Workspace, CodeIndex] = weakref.WeakKeyDictionary()
        self._fresh: weakref.WeakSet[Workspace] = weakref.WeakSet()

    def refresh(self, ws: Workspace, progress: Progress | None = None,
                waiting: Progress | None = None) -> IndexStats:
        """Bring the workspace's index up to date: only changed, added and removed files (while
        another process indexes it, `waiting` hears that one's progress)."""
        if ws not in self._indexes:
            self._indexes[ws] = self._opener(ws)
        stats = self._indexes[ws].refresh(progress, waiting)
        self._fresh.add(ws)
        return stats

    def index_for(self, ws: Workspace) -> CodeIndex:
        if ws not in self._fresh:
            self.refresh(ws)
        return self._indexes[ws]

    def close(self) -> None:
        """Close the indexes this tool opened (their databases); a later search opens them again."""
        for index in list(self._indexes.values()):
            index.close()
        self._indexes.clear()
        self._fresh = weakref.WeakSet()

    def search_code(self, ws: Workspace, args: SearchCodeArgs) -> ToolOutput:
        """Find the code and docs that best match a question or a name.

        Args:
            query: what to find, in words or names.
            limit: how many ranked chunks to return at most (the best one may bring along the
                definitions it uses from its file).
        """
        limit = min(args.limit, ws.settings.search_code_max_results)
        hits = self.index_for(ws).search(args.query, limit, REFERENCES_FROM)
        if not hits:
            first = args.query.split()[0] if args.query.split() else args.query
            return ToolOutput(f"no indexed code or docs match {args.query!r}. Try other words, or "
                              f"{call_text('search_text', pattern=first)}")
        return render_hits(ws, args.query, hits)


def render_hits(ws: Workspace, query: str, hits: tuple[ChunkHit, ...]) -> ToolOutput:
    budget = [ws.settings.read_max_bytes, ws.settings.read_max_lines]  # bytes, lines left for the whole answer
    blocks = [_block(ws, hit, budget) for hit in hits]  # in rank order: the best hits take the budget first
    shown = [b for b in blocks if b is not None]
    skipped = [_skipped_note(hit) for hit, block in zip(hits, blocks, strict=True) if block is None]
    noun = "chunk" if len(hits) == 1 else "chunks"
    texts = [f"{len(hits)} {noun} for {query!r}, best first:", *(b.text for b in shown), *skipped]
    lines = tuple(line for b in shown for line in b.lines)
    chunks = tuple(ChunkLines(b.span, hit.kind, hit.symbol, b.lines)
                   for hit, b in zip(hits, blocks, strict=True) if b is not None)
    return ToolOutput("\n\n".join(texts), tuple(b.span for b in shown), hits=lines, chunks=chunks)


@dataclass(frozen=True)
class _Block:
    """One chunk as shown: its numbered lines, the span they cover and each line as data."""

    text: str
    span: LineSpan
    lines: tuple[TextHit, ...]


def _skipped_note(hit: ChunkHit) -> str:
    return cut_note(
        f"{_title(hit)} not shown (output limit)",
        call_text("read_file", path=hit.path, start_line=hit.start_line),
    )


def _lines_of(text: str, first: int, last: int) -> list[str]:
    """Lines first..last (1-based) of text as split_lines counts them; the rest is not split."""
    parts = text.split("\n", last)  # lines 1..last, then the rest of the file in one piece
    if len(parts) > last:
        del parts[last:]
    elif parts and parts[-1] == "":
        parts.pop()  # the file's final newline ends its last line, it starts none
    return [line[:-1] if line.endswith("\r") else line for line in parts[first - 1:]]


def _title(hit: ChunkHit) -> str:
    name = f"  {hit.kind.value} {hit.symbol}".rstrip()
    return f"{hit.path}:{hit.start_line}-{hit.end_line}{name}"


def _block(ws: Workspace, hit: ChunkHit, budget: list[int]) -> _Block | None:
    """The chunk's current lines, numbered and capped like read_file; None when nothing fits. A
    chunk longer than the cap shows its first lines, or the lines the ranking chose (`focus`: its
    first line and those holding the question's words), each gap marked."""
    lines = _current_lines(ws, hit)
    numbers = _shown_numbers(hit, len(lines), ws.settings.index_hit_max_lines)
    rows = _numbered_rows(lines, hit.start_line, numbers, ws.settings.read_max_line_chars, budget)
    if not rows:
        return None
    numbers = numbers[:len(rows)]
    shown = tuple(TextHit(LineSpan(hit.path, n, n), lines[n - hit.start_line]) for n in numbers)
    width = len(str(numbers[-1]))
    marked: list[str] = []
    for i, row in enumerate(rows):
        if i and numbers[i] > numbers[i - 1] + 1:
            marked.append(f"{' ' * width}  {OMITTED}")
        marked.append(row)
    text = "\n".join([_title(hit), *marked, *_rest_note(hit, numbers, hit.start_line + len(lines) - 1)])
    return _Block(text, LineSpan(hit.path, hit.start_line, numbers[-1]), shown)


OMITTED = "…"  # lines left out between two shown ones (as the first prompt marks them)


def _shown_numbers(hit: ChunkHit, count: int, cap: int) -> list[int]:
    """The line numbers shown of a chunk that now has `count` lines, at most `cap`: its start, or
    the lines of `hit.focus` it still has."""
    last = hit.start_line + count - 1
    focus = [n for n in hit.focus if n <= last][:cap]
    if count <= cap or not focus:
        return list(range(hit.start_line, min(last, hit.start_line + cap - 1) + 1))
    return focus


def _current_lines(ws: Workspace, hit: ChunkHit) -> list[str]:
    """The chunk's lines as the file holds them now (fewer when it has shrunk, none when it is gone
    or refused since indexing); the lines around it are never split."""
    try:
        doc = ws.read_text(hit.path)
    except BurrowError:
        return []
    return _lines_of(doc.text, hit.start_line, hit.end_line)


def _numbered_rows(lines: list[str], start: int, numbers: list[int], max_chars: int, budget: list[int]) -> list[str]:
    """The lines `numbers` as `N| text` (lines[0] is line start), while the shared byte and line
    budget lasts (taken from it)."""
    width = len(str(numbers[-1])) if numbers else 1
    rows: list[str] = []
    for number in numbers:
        row = f"{number:>{width}}| {clip_line(lines[number - start], max_chars)}"
        cost = len(row.encode("utf-8")) + 1
        if budget[0] - cost < 0 or budget[1] < 1:
            break
        budget[0] -= cost
        budget[1] -= 1
        rows.append(row)
    return rows


def _rest_note(hit: ChunkHit, numbers: list[int], total: int) -> list[str]:
    """A pointer to the rest of the chunk when the rows left some of it out: the first line they
    skipped, or the line after the last row."""
    last = min(hit.end_line, total)
    skipped = next((n for n, after in zip(numbers, numbers[1:], strict=False) if after > n + 1), None)
    if skipped is not None:
        return [cut_note(f"showed {len(numbers)} of lines {hit.start_line}-{last} of this chunk",
                         call_text("read_file", path=hit.path, start_line=skipped + 1))]
    if numbers[-1] >= last:
        return []
    return [cut_note(f"showed lines {hit.start_line}-{numbers[-1]} of this chunk",
                     call_text("read_file", path=hit.path, start_line=numbers[-1] + 1))]
