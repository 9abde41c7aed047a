"""find_references: where a name is defined and where it is used or called, from the code index.

The index already knows every definition (tree-sitter, the symbols table) and which chunks hold a
name as a term (FTS), so this is a lookup, not a scan of the tree. The lines themselves are read
again through the Workspace, so a file that changed or became refused since indexing is shown as
it is now, or not at all. Each hit is a `path:line` an answer can cite, labelled with the
definition it sits in ("call in main"): a small model answers "who calls X?" from those labels.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from app.errors import ToolExecutionError
from app.index import ChunkHit
from app.index.definitions import Definition, Role, parse_definitions
from app.index.intent import is_copy_path
from app.index.languages import language_for
from app.index.values import ChunkKind
from app.tools.base import Reference, TextHit, ToolOutput
from app.tools.calls_text import call_text, cut_note
from app.tools.code_search import CodeSearch
from app.tools.reading import clip_line, current_lines
from app.values import LineSpan
from app.workspace import Workspace

_NAME = r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*"
_DEFINITIONS = (ChunkKind.CLASS, ChunkKind.FUNCTION, ChunkKind.METHOD)
CANDIDATE_CHUNKS = 400  # chunks holding the name's term that are read for its lines, at most
LINE_CHARS = 200  # a hit's line is cut here: the place and the call are what the model needs


class FindReferencesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str = Field(min_length=1, max_length=200, pattern=f"^{_NAME}$",
                      description="a function, class, method or variable name, e.g. 'load_config'")
    limit: int = Field(30, ge=1, le=200, description="uses and calls to list at most")


class References:
    """The find_references tool over a CodeSearch's index (shared with search_code)."""

    def __init__(self, code_search: CodeSearch) -> None:
        self._code_search = code_search

    def find_references(self, ws: Workspace, args: FindReferencesArgs) -> ToolOutput:
        """Find where a name is defined and every line that calls or uses it, as path:line.

        Args:
            symbol: the function, class, method or variable name.
            limit: how many uses to list at most.
        """
        bare = args.symbol.rsplit(".", 1)[-1]  # `Signer.sign` is called as `x.sign(...)`
        index = self._code_search.index_for(ws)
        defined = tuple(h for h in index.find_symbol(bare, 20) if _bare(h.symbol) == bare)
        chunks = index.mentions(bare, CANDIDATE_CHUNKS)
        defined = defined or inner_definitions(ws, bare, chunks)
        if not chunks and not defined:
            raise ToolExecutionError(f"the index has no definition or use of {args.symbol!r}; try "
                                     f"{call_text('search_code', query=args.symbol)}")
        word = re.compile(rf"(?<![\w$]){re.escape(bare)}(?![\w$])")
        heads = tuple(_head(d, word) for d in defined)
        own = {(h.span.path, n) for d, h in zip(defined, heads, strict=True)  # its head and the doc above it
               for n in range(min(d.start_line, h.span.start_line), h.span.start_line + 1)}
        uses = _uses(ws, bare, chunks, own)
        return _render(args, tuple(zip(defined, heads, strict=True)), uses,
                       min(args.limit, ws.settings.search_max_results))


def _bare(symbol: str) -> str:
    return symbol.rsplit(".", 1)[-1]


INNER_FILES = 8  # files looked inside for a definition the symbol table does not hold, at most


def inner_definitions(ws: Workspace, name: str, chunks: tuple[ChunkHit, ...]) -> tuple[ChunkHit, ...]:
    """`name` defined inside another function, which the symbol table does not hold (the index
    keeps a function's helpers in its chunks): debug's src/common.js defines the library's API
    inside `function setup(env)`, 270 lines, so "where is enable defined?" found no definition and
    an answer citing any line of the file passed. The outline's walker, over the files whose
    function chunks hold the name (`chunks`, from `mentions`), in file order; a build's copy
    (dist/cjs/index.cjs beside src/index.ts) only when the source has none."""
    bare = _bare(name)
    word = re.compile(rf"(?<![\w$]){re.escape(bare)}(?![\w$])")
    paths = dict.fromkeys(c.path for c in chunks if c.kind in (ChunkKind.FUNCTION, ChunkKind.METHOD)
                          and any(_is_definition_line(line, bare) or _assigned_function(line, bare)
                                  or _shorthand_method(line, bare)
                                  for line in c.text.split("\n") if word.search(line)))
    if any(not is_copy_path(path) for path in paths):  # a build's copy only when the source has none
        paths = dict.fromkeys(path for path in paths if not is_copy_path(path))
    found: list[ChunkHit] = []
    for path in list(paths)[:INNER_FILES]:
        lines = current_lines(ws, path)
        if lines is None:
            continue
        for d in _outline(path, lines) or ():
            if d.depth and d.role is Role.FUNCTION and _bare(d.name) == bare:
                found.append(ChunkHit(path, d.start + 1, d.end + 1, d.kind, d.name, 0.0,
                                      "\n".join(lines[d.start : d.end + 1])))
    return tuple(found)


def _shorthand_method(text: str, name: str) -> bool:
    """`emit(event, ...args) {`: a method of an object literal (nanoevents' `createNanoEvents`
    returns `{ emit(...) {...}, on(...) {...} }`)."""
    return re.match(rf"\s*(?:async\s+)?\*?\s*{re.escape(name)}\s*\([^()]*\)\s*\{{", text) is not None


def _assigned_function(text: str, name: str) -> bool:
    """`const enable = (ns) => {`, `self.enable = function (ns) {`: a function given a name."""
    return re.search(rf"(?<![\w$]){re.escape(name)}\s*=\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|[\w$]+\s*=>)",
                     text) is not None


def _uses(ws: Workspace, name: str, chunks: tuple[ChunkHit, ...], heads: set[tuple[str, int]]) -> list[Reference]:
    """Every current line of those chunks holding `name` as a whole word, but the definitions'
    own heads, each once (windows overlap), calls before other uses, then in file order."""
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    call = re.compile(rf"(?<![\w$]){re.escape(name)}\s*\(")
    found: dict[tuple[str, int], Reference] = {}
    files: dict[str, list[str] | None] = {}
    outlines: dict[str, list[Definition] | None] = {}
    for chunk in chunks:
        lines = files.setdefault(chunk.path, current_lines(ws, chunk.path))
        for number in range(chunk.start_line, min(chunk.end_line, len(lines or ())) + 1):
            text = lines[number - 1]
            key = (chunk.path, number)
            if key in found or key in heads or not word.search(text) or _is_definition_line(text, name):
                continue
            if chunk.path not in outlines:
                outlines[chunk.path] = _outline(chunk.path, lines)
            inside, head = _enclosing(chunk, lines, number, outlines[chunk.path])
            how = "call" if call.search(text) and not _COMMENT.match(text) else "use"  # `* name()` in a doc comment
            found[key] = Reference(TextHit(LineSpan(chunk.path, number, number), text.strip()), how, inside, head)
    return sorted(found.values(), key=lambda r: (r.how != "call", r.hit.span.path, r.hit.span.start_line))


def _outline(path: str, lines: list[str] | None) -> list[Definition] | None:
    """Every definition in the file, nested ones too (tree-sitter), or None without a grammar."""
    language = language_for(path)
    if not language or lines is None:
        return None
    return parse_definitions("\n".join(lines).encode("utf-8", "replace"), language, everywhere=True)


def _enclosing(chunk: ChunkHit, lines: list[str], number: int,
               outline: list[Definition] | None) -> tuple[str, TextHit | None]:
    """The innermost definition around line `number` and its own line (`DraftMap.get`, not the
    `enableMapSet` whose chunk holds the class that holds it); the chunk's symbol without a grammar."""
    if outline is not None:
        around = [d for d in outline if d.start <= number - 1 <= d.end and d.line < number - 1
                  and d.role is not Role.SCOPE]
        if not around:
            return "", None
        inner = max(around, key=lambda d: (d.depth, d.line))
        return inner.name, TextHit(LineSpan(chunk.path, inner.line + 1, inner.line + 1), lines[inner.line].strip())
    if chunk.kind not in _DEFINITIONS:
        return "", None
    return chunk.symbol, _enclosing_head(chunk, lines, number)


def _enclosing_head(chunk: ChunkHit, lines: list[str], number: int) -> TextHit | None:
    """The line naming the definition a use sits in (its chunk may start at decorators)."""
    word = re.compile(rf"(?<![\w$]){re.escape(_bare(chunk.symbol))}(?![\w$])")
    offset = _first_naming(lines[chunk.start_line - 1:number - 1], word)
    if offset is None:
        return None
    line_no = chunk.start_line + offset
    return TextHit(LineSpan(chunk.path, line_no, line_no), lines[line_no - 1].strip())


def _first_naming(lines: list[str], word: re.Pattern[str]) -> int | None:
    return next((i for i, line in enumerate(lines) if word.search(line)), None)


_COMMENT = re.compile(r"^\s*(?://|/\*|\*|#(?![\[!])|--)")


def naming_offset(lines: list[str], word: re.Pattern[str]) -> int:
    """Which line of a definition's chunk names it: the first code line that does (a chunk starts
    at decorators and comments, and a Go doc comment starts with the name), else the first line
    that does, else its first line."""
    offset = _first_naming([line if not _COMMENT.match(line) else "" for line in lines], word)
    return offset if offset is not None else _first_naming(lines, word) or 0


def _head(definition: ChunkHit, word: re.Pattern[str]) -> TextHit:
    """The line of a definition that names it."""
    lines = definition.text.split("\n")
    offset = naming_offset(lines, word)
    number = definition.start_line + offset
    return TextHit(LineSpan(definition.path, number, number), lines[offset].strip() if lines else "")


def _is_definition_line(text: str, name: str) -> bool:
    """`def name(` / `function name(` / `class name` / `func (r *T) name(` anywhere: a definition, not a use."""
    return re.search(rf"\b(?:def|class|function|func|fn|interface|struct|type)\s+(?:\([^()]*\)\s*)?"
                     rf"{re.escape(name)}\b", text) is not None  # Go: `func (mx *Mux) Name(`


def _render(args: FindReferencesArgs, defined: tuple[tuple[ChunkHit, TextHit], ...], uses: list[Reference],
            cap: int) -> ToolOutput:
    lines = [f"{args.symbol!r}: defined in {len(defined)} place(s), used on {len(uses)} line(s)"]
    for chunk, head in defined:
        lines.append(f"{_where(head)}: defined ({chunk.kind.value} {chunk.symbol}, lines "
                     f"{chunk.start_line}-{chunk.end_line}): {clip_line(head.text, LINE_CHARS)}")
    shown = uses[:cap]
    for ref in shown:
        how = f"{ref.how} in {ref.inside}" if ref.inside else ref.how
        if ref.inside_head is not None:
            how += f" ({_where(ref.inside_head)})"
        lines.append(f"{_where(ref.hit)}: {how}: {clip_line(ref.hit.text, LINE_CHARS)}")
    body: tuple[TextHit, ...] = ()
    if not uses:
        lines.append("(no other line uses it)")
        body = _short_body(defined)
        if body:
            lines += [f"its lines, {body[0].span.path}:{body[0].span.start_line}-{body[-1].span.end_line}:", "```",
                      *(clip_line(h.text, LINE_CHARS) for h in body), "```"]
    if len(uses) > cap:
        lines.append(cut_note(f"showed {cap} of {len(uses)} uses",
                              call_text("find_references", symbol=args.symbol, limit=min(200, len(uses)))))
    heads = {r.inside_head.span: r.inside_head for r in shown if r.inside_head is not None}
    hits = tuple(head for _, head in defined) + tuple(r.hit for r in shown) + tuple(heads.values())
    heads_defined = {head.span for _, head in defined}
    hits += tuple(h for h in body if h.span not in heads_defined)
    return ToolOutput("\n".join(lines), tuple(h.span for h in hits), hits=hits, references=tuple(shown),
                      definitions=tuple(head for _, head in defined))


SHORT_BODY_LINES = 12  # a definition this short is shown whole when nothing uses its name


def _short_body(defined: tuple[tuple[ChunkHit, TextHit], ...]) -> tuple[TextHit, ...]:
    """The lines of the one definition, when it is short: nothing calls `OnInitialize`, and what
    it does with its arguments (`initializers = append(initializers, y...)`) is where a question
    about them goes next (tuning3's cobra-06 follow-up ended with an empty answer)."""
    if len(defined) != 1:
        return ()
    chunk = defined[0][0]
    texts = chunk.text.split("\n")
    if len(texts) > SHORT_BODY_LINES:
        return ()
    return tuple(TextHit(LineSpan(chunk.path, chunk.start_line + i, chunk.start_line + i), t.rstrip())
                 for i, t in enumerate(texts))


def _where(hit: TextHit) -> str:
    return f"{hit.span.path}:{hit.span.start_line}"
