"""Fitting ranked chunks into a token budget line by line: the one fitter of the first prompt.

A chunk's tokens are the prompt's cost, and most of a chunk says nothing about the question:
imports, blank runs, decorators, comments and docstrings that hold none of its words, and in a long
function the lines far from where its words are. So each chunk is cut to the lines that carry the
question (with a few lines of context and the chunk's own definition line), lines an earlier chunk
already showed are shown once, and what is left out is marked. The chunks then fill the budget in
rank order; one that does not fit is narrowed further, or skipped for a smaller one after it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from app.index.terms import query_terms, related, terms
from app.index.values import ChunkKind
from app.tools.base import ChunkLines, TextHit

CONTEXT_LINES = 2  # shown around each line that holds a question word
SHORT_CHUNK_LINES = 30  # a chunk this short keeps all its code lines: cutting it saves little
MIN_CUT_LINES = 3  # a chunk narrowed below this many lines helps less than it costs
MIN_REPEAT_CHARS = 12  # shorter lines (`}`, `return x`) repeat by nature, not by copying
_CODE_KINDS = (ChunkKind.CLASS, ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CODE, ChunkKind.IMPORTS)


class LineRole(Enum):
    """What a line is, as far as showing it goes."""

    CODE = "code"
    BLANK = "blank"
    IMPORT = "import"
    COMMENT = "comment"  # comments and docstrings
    DECORATOR = "decorator"


_IMPORT = re.compile(
    r"^\s*(import\s|from\s+[\w.]+\s+import\s|#\s*include\b|using\s+[\w.]+;|use\s+[\w:{}, ]+;|"
    r"package\s+\w+|(var|let|const)\s+[\w{}\s,]+=\s*require\(['\"][^'\"]+['\"]\)[;,]?\s*$)"
)
_COMMENT_START = ("#", "//", "/*", "*", "--", ";;")
_DOC_QUOTES = ('"""', "'''")


@dataclass(frozen=True)
class FittedChunk:
    """What the prompt shows of one chunk: some of its lines, in order (gaps are marked)."""

    chunk: ChunkLines
    lines: tuple[TextHit, ...]


@dataclass(frozen=True)
class _Line:
    hit: TextHit
    role: LineRole
    weight: float  # how much of the question this line holds (rarer words weigh more)


Render = Callable[[FittedChunk], str]


def fit_chunks(chunks: Sequence[ChunkLines], question: str, budget: int,
               count_tokens: Callable[[str], int], render: Render) -> tuple[FittedChunk, ...]:
    """The chunks, each cut to the lines that carry the question, in rank order while the rendered
    blocks (joined by blank lines) fit `budget` tokens."""
    weigh = _weigher(question, chunks)
    shown_texts: set[str] = set()
    fitted: list[FittedChunk] = []
    used = 0
    for chunk in chunks:
        lines = [_Line(h, role, weigh(h.text)) for h, role in zip(chunk.lines, roles(chunk), strict=True)]
        for context in (CONTEXT_LINES, 0):
            piece = _cut(chunk, lines, shown_texts, context)
            cost = count_tokens(render(piece)) + 2 if piece else 0
            if piece and used + cost <= budget:
                break
        else:
            piece = _narrowed(chunk, lines, shown_texts, budget - used, count_tokens, render)
            cost = count_tokens(render(piece)) + 2 if piece else 0
        if piece is None:
            continue
        fitted.append(piece)
        used += cost
        shown_texts.update(_key(h.text) for h in piece.lines)
    return tuple(fitted)


def roles(chunk: ChunkLines) -> list[LineRole]:
    """Each line's role; prose and config chunks have only blank and other lines (`#` is a heading)."""
    if chunk.kind not in _CODE_KINDS:
        return [LineRole.BLANK if not h.text.strip() else LineRole.CODE for h in chunk.lines]
    out: list[LineRole] = []
    in_doc: str | None = None  # the quote that closes an open docstring
    in_block = False  # inside /* ... */
    for hit in chunk.lines:
        text = hit.text.strip()
        if in_doc or in_block:
            out.append(LineRole.COMMENT)
            if in_doc and in_doc in text:
                in_doc = None
            if in_block and "*/" in text:
                in_block = False
            continue
        out.append(_role(text))
        opener = next((q for q in _DOC_QUOTES if text.lstrip("rbuRBU").startswith(q)), None)
        if opener:  # a docstring: one line when it closes where it opens
            out[-1] = LineRole.COMMENT
            in_doc = opener if text.count(opener) == 1 else None
        if text.startswith("/*") and "*/" not in text:
            in_block = True
    return out


def _role(text: str) -> LineRole:
    if not text:
        return LineRole.BLANK
    if text.startswith(_COMMENT_START) and not text.startswith(("#!", "#[", "#include")):
        return LineRole.COMMENT
    if text.startswith("@") and not text.startswith("@@"):
        return LineRole.DECORATOR
    if _IMPORT.match(text):
        return LineRole.IMPORT
    return LineRole.CODE


def _weigher(question: str, chunks: Sequence[ChunkLines]) -> Callable[[str], float]:
    """A line's weight: the question words it holds, each by its rarity among the chunks' lines,
    so the project's own name (on every line) counts for little and a rare word for much."""
    groups = [{w, *related(w)} for w in query_terms(question)]
    line_terms = [set(terms(h.text)) for c in chunks for h in c.lines]
    total = len(line_terms) or 1
    weights = [math.log(1 + total / (1 + sum(bool(g & t) for t in line_terms))) for g in groups]

    def weigh(text: str) -> float:
        present = set(terms(text))
        return sum(w for g, w in zip(groups, weights, strict=True) if g & present)

    return weigh


def _key(text: str) -> str:
    return " ".join(text.split())


def _cut(chunk: ChunkLines, lines: list[_Line], shown: set[str], context: int) -> FittedChunk | None:
    """The chunk's lines worth showing: code (all of a short chunk, else near the question's
    words), any line holding a question word, and the definition line; not lines shown before."""
    keep = [_worth(line, shown) for line in lines]
    code = [i for i, line in enumerate(lines) if keep[i] and line.role is LineRole.CODE]
    if len(code) > SHORT_CHUNK_LINES or context == 0:
        marked = [i for i, line in enumerate(lines) if keep[i] and line.weight > 0]
        near = {j for i in marked for j in range(i - context, i + context + 1)}
        if not marked:  # nothing here names the question: its start says what it is
            near = set(code[:SHORT_CHUNK_LINES])
        keep = [k and (i in near or lines[i].weight > 0) for i, k in enumerate(keep)]
    head = _definition_line(lines)
    if head is not None and _key(lines[head].hit.text) not in shown:
        keep[head] = True
    return _fitted(chunk, lines, keep)


def _worth(line: _Line, shown: set[str]) -> bool:
    if len(_key(line.hit.text)) >= MIN_REPEAT_CHARS and _key(line.hit.text) in shown:
        return False
    return line.role is LineRole.CODE or (line.weight > 0 and line.role is not LineRole.BLANK)


def _definition_line(lines: list[_Line]) -> int | None:
    """The first code line: a function's or class's own line, which says what the rest is."""
    return next((i for i, line in enumerate(lines) if line.role is LineRole.CODE), None)


def _fitted(chunk: ChunkLines, lines: list[_Line], keep: list[bool]) -> FittedChunk | None:
    """The kept lines, with a lone blank line kept between two kept lines (it costs next to nothing
    and keeps paragraphs apart); None when nothing is left."""
    kept = [i for i, k in enumerate(keep) if k]
    for i in range(1, len(lines) - 1):
        if lines[i].role is LineRole.BLANK and keep[i - 1] and keep[i + 1]:
            kept.append(i)
    kept.sort()
    return FittedChunk(chunk, tuple(lines[i].hit for i in kept)) if kept else None


def _narrowed(chunk: ChunkLines, lines: list[_Line], shown: set[str], left: int,
              count_tokens: Callable[[str], int], render: Render) -> FittedChunk | None:
    """The chunk cut to its definition line and its weightiest lines, as many as fit `left`."""
    base = _cut(chunk, lines, shown, 0)
    if base is None:
        return None
    order = {h.span.start_line: i for i, h in enumerate(base.lines)}
    by_weight = sorted(base.lines, key=lambda h: (-_weight_of(lines, h), order[h.span.start_line]))
    head = base.lines[0]
    count = len(by_weight)
    while count >= MIN_CUT_LINES:
        chosen = {head.span.start_line, *(h.span.start_line for h in by_weight[: count - 1])}
        piece = FittedChunk(chunk, tuple(h for h in base.lines if h.span.start_line in chosen))
        if count_tokens(render(piece)) + 2 <= left:
            return piece
        count = count // 2 if count > 8 else count - 1
    return None


def _weight_of(lines: list[_Line], hit: TextHit) -> float:
    return next((line.weight for line in lines if line.hit is hit), 0.0)
