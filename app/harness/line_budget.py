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
from dataclasses import dataclass, replace
from enum import Enum

from app.index.one_hop import closing_lines
from app.index.terms import query_terms, related, terms
from app.index.values import ChunkKind
from app.tools.base import ChunkLines, TextHit

DOC_SHARE = 0.3  # tuning set: the same answers shown, mean tokens 987 -> 971 (0.5 lost two)
CONTEXT_LINES = 2  # shown around each line that holds a question word (in a lead chunk)
# The first chunks usually hold the answer (41 of 69 tuning questions at rank 1, 10 at rank 2):
# they keep all the code of a chunk up to SHORT_CHUNK_LINES code lines and CONTEXT_LINES around
# the question's words; later chunks are cut harder. Measured on the tuning set (bench/eval): the
# first prompt's median tokens 1134 -> 929 with the answer's keywords still in the evidence lines
# shown for the same 58 questions; one context line fewer for later chunks lost 4 of them, lead
# chunks cut from 20 lines lost 2, one lead chunk instead of two lost 1.
LEAD_CHUNKS = 2
SHORT_CHUNK_LINES = 30  # a lead chunk this short keeps all its code lines
TAIL_SHORT_LINES = 4  # ... a later one this short
TAIL_CONTEXT_LINES = 1
MIN_CUT_LINES = 3  # a chunk narrowed below this many lines helps less than it costs
MIN_REPEAT_CHARS = 12  # shorter lines (`}`, `return x`) repeat by nature, not by copying
REPEAT_RUN = 3  # repeated lines this many together are a copy, shown once
_CODE_KINDS = (ChunkKind.CLASS, ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CODE, ChunkKind.IMPORTS)


class LineRole(Enum):
    """What a line is, as far as showing it goes."""

    CODE = "code"
    BLANK = "blank"
    IMPORT = "import"
    COMMENT = "comment"  # comments and docstrings
    DECORATOR = "decorator"


_IMPORT = re.compile(
    r"^\s*(import\s*[({]?\s*$|import\s|from\s+[\w.]+\s+import\s|#\s*include\b|using\s+[\w.]+;|"
    r"use\s+[\w:{}, ]+(;|\{\s*$)|package\s+\w+|(var|let|const)\s+[\w{}\s,]+=\s*require\(['\"][^'\"]+['\"]\)[;,]?\s*$)"
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
               count_tokens: Callable[[str], int], render: Render,
               shown_before: Sequence[str] = ()) -> tuple[FittedChunk, ...]:
    """The chunks, each cut to the lines that carry the question, in rank order while the rendered
    blocks (joined by blank lines) fit `budget` tokens; runs of `shown_before` (the lines of an
    earlier read of the same prompt: the README's start) are not shown again."""
    weigh = _weigher(question, chunks)
    why = WHY_QUESTION.search(question) is not None
    shown = {_key(text) for text in shown_before}  # lines already shown, as _key
    fitted: list[FittedChunk] = []
    used = 0
    for rank, chunk in enumerate(chunks):
        lines = _paragraphs([_Line(h, role, weigh(h.text)) for h, role in zip(chunk.lines, roles(chunk), strict=True)])
        lines = _above_floor(lines, _reasons(lines) if why else set())
        piece, cost = _within(chunk, lines, shown, rank, budget - used, lambda p: count_tokens(render(p)) + 2)
        if piece is not None:
            fitted.append(piece)
            used += cost
            shown.update(_key(h.text) for h in piece.lines)
    return tuple(fitted)


def _within(chunk: ChunkLines, lines: list[_Line], shown: set[str], rank: int, left: int,
            cost_of: Callable[[FittedChunk], int]) -> tuple[FittedChunk | None, int]:
    """The chunk as its rank allows, narrowed until it costs at most `left` tokens; None if it cannot."""
    short, context = (SHORT_CHUNK_LINES, CONTEXT_LINES) if rank < LEAD_CHUNKS else (TAIL_SHORT_LINES,
                                                                                     TAIL_CONTEXT_LINES)
    for around in dict.fromkeys((context, 0)):
        piece = _cut(chunk, lines, shown, around, short)
        if piece is None:
            return None, 0
        cost = cost_of(piece)
        if cost <= left:
            return piece, cost
    piece = _narrowed(chunk, lines, shown, left, cost_of)
    return (piece, cost_of(piece)) if piece else (None, 0)


def roles(chunk: ChunkLines) -> list[LineRole]:
    """Each line's role; prose and config chunks have only blank and other lines (`#` is a heading)."""
    if chunk.kind not in _CODE_KINDS:
        return [LineRole.BLANK if not h.text.strip() else LineRole.CODE for h in chunk.lines]
    out: list[LineRole] = []
    open_role, closer = LineRole.CODE, ""  # inside a docstring, block comment or import list until `closer`
    for hit in chunk.lines:
        text = hit.text.strip()
        if closer:
            out.append(open_role)
            closer = "" if closer in text else closer
            continue
        out.append(_role(text))
        open_role, closer = _opened(text, out[-1])
        out[-1] = open_role if closer or open_role is LineRole.COMMENT else out[-1]
    return out


def _opened(text: str, role: LineRole) -> tuple[LineRole, str]:
    """What a line opens that goes on over the next lines: a docstring (or a one-line one), a block
    comment, an import list (Go's `import (`, Python's `from x import (`, JS's `import {`)."""
    quote = next((q for q in _DOC_QUOTES if text.lstrip("rbuRBU").startswith(q)), None)
    if quote:
        return LineRole.COMMENT, quote if text.count(quote) == 1 else ""
    if text.startswith("/*") and "*/" not in text:
        return LineRole.COMMENT, "*/"
    if role is LineRole.IMPORT and text.endswith(("(", "{")):
        return LineRole.IMPORT, ")" if text.endswith("(") else "}"
    return role, ""


def is_import(line: str) -> bool:
    """An import, include, use or require line."""
    return bool(_IMPORT.match(line))


def is_comment(line: str) -> bool:
    """A comment line of code (`#`, `//`, `/*`, ` * `, `--`, `;;`; not `#!`, `#[...]`, `#include`)."""
    return _role(line.strip()) is LineRole.COMMENT


def _role(text: str) -> LineRole:
    if not text:
        return LineRole.BLANK
    if text.startswith(_COMMENT_START) and not text.startswith(("#!", "#[", "#include")):
        return LineRole.COMMENT
    if (text.startswith("@") and not text.startswith("@@")) or text.startswith("#["):
        return LineRole.DECORATOR  # Python and TypeScript decorators, Java annotations, Rust attributes
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


def _above_floor(lines: list[_Line], reasons: set[int] = frozenset()) -> list[_Line]:
    """Comment lines that hold less than DOC_SHARE of the chunk's weightiest line count as holding
    nothing: a doc paragraph that only names the class a question is about does not answer it.
    Asked why, the `reasons` (see _reasons) weigh at least the floor."""
    floor = DOC_SHARE * max((line.weight for line in lines), default=0.0)
    return [replace(line, weight=max(line.weight, floor)) if i in reasons
            else line if line.weight >= floor or line.role is LineRole.CODE else replace(line, weight=0.0)
            for i, line in enumerate(lines)]


# A question that asks for a reason.
WHY_QUESTION = re.compile(r"^\W*why\b|\bwhy\s+(?:does|do|is|are|did|was|were|would|should|can|must)\b", re.IGNORECASE)


def _reasons(lines: list[_Line]) -> set[int]:
    """The comment paragraphs right above a code line that holds a question word: why the code does
    what it does is said there, in words the question seldom uses (a user's check on structlog:
    "Why does the async aexception() ... call sys.exc_info() itself up front ...?" was shown
    `kw["exc_info"] = sys.exc_info()` without the two comment lines above it, "Exception info has to
    be extracted this early, because it is no longer available once control is passed to the
    executor", which held only the chunk's commonest word)."""
    out: set[int] = set()
    for i, line in enumerate(lines):
        if line.role is not LineRole.CODE or line.weight <= 0:
            continue
        j = i - 1
        while j >= 0 and lines[j].role is LineRole.COMMENT and lines[j].hit.text.strip():
            out.add(j)
            j -= 1
    return out


def _paragraphs(lines: list[_Line]) -> list[_Line]:
    """A comment or docstring paragraph weighs as its weightiest line: it is shown whole or not at
    all, as half a sentence misleads more than it tells."""
    out = list(lines)
    start = 0
    while start < len(out):
        end = start
        while end < len(out) and out[end].role is LineRole.COMMENT and out[end].hit.text.strip():
            end += 1
        if end > start:
            top = max(line.weight for line in out[start:end])
            out[start:end] = [replace(line, weight=top) for line in out[start:end]]
        start = end + 1
    return out


def _repeats(lines: list[_Line], shown: set[str]) -> set[int]:
    """Lines an earlier chunk showed, where at least REPEAT_RUN long ones come together (a copied
    block: a README section in the docs); a lone repeated line is common code. Blank and short lines
    inside or next to such a run go with it."""
    seen = [_key(line.hit.text) in shown or not line.hit.text.strip() for line in lines]
    long = [s and len(_key(line.hit.text)) >= MIN_REPEAT_CHARS for s, line in zip(seen, lines, strict=True)]
    out: set[int] = set()
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and seen[end]:
            end += 1
        if sum(long[start:end]) >= REPEAT_RUN:
            out.update(range(start, end))
        start = end + 1
    return out


def _key(text: str) -> str:
    return " ".join(text.split())


def _cut(chunk: ChunkLines, lines: list[_Line], shown: set[str], context: int,
         short: int = 0) -> FittedChunk | None:
    """The chunk's lines worth showing: code (all of a short chunk, else near the question's
    words), any line holding a question word, and the definition line; not lines shown before."""
    repeated = _repeats(lines, shown)
    keep = [i not in repeated and _worth(line) for i, line in enumerate(lines)]
    code = [i for i, line in enumerate(lines) if keep[i] and line.role is LineRole.CODE]
    if len(code) > short or context == 0:
        marked = [i for i, line in enumerate(lines) if keep[i] and line.weight > 0]
        near = {j for i in marked for j in range(i - context, i + context + 1)}
        # in a config chunk, a marked line's list or table shown to where it closes (one_hop.LIST_CLOSE_LINES;
        # in code it would change 283 of the 398 eval questions' first prompts: not measured, not done)
        if context and chunk.kind is ChunkKind.CONFIG:
            texts = [line.hit.text for line in lines]
            near.update(j for i in marked for j in closing_lines(texts, i, i + context))
        if not marked:  # nothing here names the question: its start says what it is
            near = set(code[:max(short, MIN_CUT_LINES)])
        keep = [k and (i in near or lines[i].weight > 0) for i, k in enumerate(keep)]
    head = _definition_line(lines)
    if head is not None and head not in repeated:
        keep[head] = True
    return _fitted(chunk, lines, keep)


def _worth(line: _Line) -> bool:
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
              cost_of: Callable[[FittedChunk], int]) -> FittedChunk | None:
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
        if cost_of(piece) <= left:
            return piece
        count = count // 2 if count > 8 else count - 1
    return None


def _weight_of(lines: list[_Line], hit: TextHit) -> float:
    return next((line.weight for line in lines if line.hit is hit), 0.0)
