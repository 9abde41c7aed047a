"""Where a declared field gets its value: the statement that sets a field a found declaration describes.

An options interface or a struct documents each field in words ("The time in milliseconds that
unused/inactive cache data remains in memory"), so a value question's words find the declaration;
the value asked for is set elsewhere, in code that holds none of those words (`this.gcTime =
Math.max(..., newGcTime ?? (isServer ? Infinity : 5 * 60 * 1000))`). The held-out issue's TypeScript
misses had this shape: the declaration outranked the code that sets the values.

So for a question that asks for a value (a default, how many, how long), the field of a found
declaration whose doc comment and name hold most of the question's words is looked up in the
index's code, and the statement that sets it (a fallback `field ?? x`, `field || x`, an assignment
`x.field = 3`, an object literal's or struct literal's `field: 3`) comes right after the declaration.
"""

from __future__ import annotations

import re
from dataclasses import replace

from app.index.intent import is_copy_path, is_declaration_path, is_test_path
from app.index.one_hop import REFERENCE_WEIGHT, overlap, statement_end
from app.index.store import Store
from app.index.terms import terms
from app.index.values import ChunkHit, ChunkKind

VALUE_QUESTION = re.compile(r"\bdefault|\bhow\s+(?:many|long|much|often|big|large)\b|\b(?:maximum|minimum)\b",
                            re.IGNORECASE)
DECLARATION_HITS = 5  # the first found chunks looked at for a declaration
MIN_FIELD_TERMS = 2  # question words a field's doc comment and name must hold
SETTER_CHUNKS = 200  # code chunks naming the field looked at, at most
COMMENT_LINES = 2  # comment lines right above the setting statement shown with it
STATEMENT_LINES = 4  # lines of the setting statement shown, at most
LINE_MAX_CHARS = 400  # a chunk whose first lines are longer is minified code, no place to read a value
MIN_SETTING = 3  # a setter's weight (see _setting_patterns) and 1 for a value in its statement, at least

_FIELD = re.compile(r"^\s*(?:(?:readonly|public|private|protected|static|declare|pub(?:\([^)]*\))?)\s+)*"
                    r"([A-Za-z_$][\w$]*)\??\s*:\s*(?!=)[^\s=]")
_GO_FIELD = re.compile(r"^\s*([A-Za-z_]\w*)\s+[*\[\]]*[\w.]+(?:\s+`[^`]*`)?\s*(?://.*)?$")
_COMMENT = re.compile(r"^\s*(?://|/\*|\*|#(?![\[!])|--)")
_TRAILING_COMMENT = re.compile(r"\s(?://|#)\s*(.*)$")
# a value: a number, a string, a literal word, a CONSTANT or a named default (`defaultBacklogTimeout`)
_LITERAL = re.compile(r"\d|['\"`]|\b(?:true|false|True|False|None|nil|null|Infinity)\b|\b[A-Z][A-Z0-9_]{2,}\b|"
                      r"\b[dD]efault[A-Z_]\w*")
_CONTINUED = ("(", "[", "{", ",", "=", "?", ":", "&&", "||")  # a line that ends so goes on below
_BLOCK_HEAD = re.compile(r"(?:\)|=>|\belse|\btry|\bdo|\bfinally)\s*\{$")
_CODE_KINDS = (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CODE)


def with_setters(store: Store, hits: tuple[ChunkHit, ...], question: str, words: set[str]) -> tuple[ChunkHit, ...]:
    """The hits, with the statement that sets the asked field right after the first declaration
    among the first DECLARATION_HITS whose field matches the question (its `words`: query_terms)
    (at most one per question)."""
    if not VALUE_QUESTION.search(question):
        return hits
    for rank, hit in enumerate(hits[:DECLARATION_HITS]):
        if hit.kind is not ChunkKind.CLASS:
            continue
        field = asked_field(hit.text, words)
        if field is None:
            continue
        setter = setting_statement(store, field, hit, hits, words)
        if setter is not None:
            return (*hits[:rank + 1], setter, *hits[rank + 1:])
    return hits


def asked_field(text: str, words: set[str]) -> str | None:
    """The field of a declaration whose doc comment (the comment lines right above it, or after it
    on its line) and name hold the most question words, at least MIN_FIELD_TERMS and more than any
    other field; None when no field stands out, or when the field's line sets it already."""
    scored: list[tuple[int, str]] = []
    doc: list[str] = []
    lines = text.split("\n")[1:]  # the first line names the declaration itself
    for line, comment in zip(lines, _comments(lines), strict=True):
        if comment:
            doc.append(line)
            continue
        found = _FIELD.match(line) or _GO_FIELD.match(line)
        if found and "=" not in line.split("//")[0].replace("=>", ""):
            trailing = _TRAILING_COMMENT.search(line)
            said = set(terms(" ".join([*doc, found.group(1), trailing.group(1) if trailing else ""]),
                             keep_stop_words=False))
            scored.append((len(words & said), found.group(1)))
        doc = []
    scored.sort(reverse=True)
    if not scored or scored[0][0] < MIN_FIELD_TERMS or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


def _setting_patterns(name: str) -> list[tuple[re.Pattern[str], int]]:
    """How a line sets `name`, each with a weight: a fallback says the default itself."""
    n = re.escape(name)
    return [
        (re.compile(rf"(?<![\w$]){n}\s*(?:\?\?|\|\|)\s*\S|(?<![\w$]){n}\s+or\s+\S"), 3),
        (re.compile(rf"(?:\.|^\s*(?:(?:let|const|var)\s+)?){n}\s*=(?![=>])\s*\S"), 2),
        # a destructuring default (`{ max = 0, ttlResolution = 1 } = options`) or a keyword
        # parameter's (`def __init__(self, timeout: float = 5)`)
        (re.compile(rf"[({{,]\s*{n}\s*(?::\s*[^=,()]+?)?\s*=(?![=>])\s*\S"), 2),
        (re.compile(rf"(?:^\s*|[{{,]\s*){n}\s*:\s*\S"), 2),
    ]


def setting_statement(store: Store, name: str, declaration: ChunkHit, shown: tuple[ChunkHit, ...],
                      words: set[str]) -> ChunkHit | None:
    """The statement of the workspace's code (tests and build copies aside) that best sets `name`,
    with the comment lines right above it, unless a chunk in `shown` holds it: a fallback or an
    assignment of a value (an assignment of anything else is no default), then in the code that
    holds more of the question's `words` (a query's retry count, not a mutation's), then in the
    declaration's folder; None when nothing sets it with a value."""
    rows = store.execute(
        "SELECT c.start, c.end, c.kind, c.symbol, c.text, f.path FROM chunks c JOIN files f ON f.id = c.file_id "
        f"WHERE instr(c.text, ?) AND c.kind IN ({','.join('?' * len(_CODE_KINDS))}) LIMIT ?",
        (name, *(k.value for k in _CODE_KINDS), SETTER_CHUNKS + 1),
    )
    if len(rows) > SETTER_CHUNKS:  # a name set everywhere is not one field's
        return None
    folder = declaration.path.rpartition("/")[0]
    patterns = _setting_patterns(name)
    best: tuple[tuple[int, int, bool, int], ChunkHit] | None = None
    for start, end, kind, symbol, text, path in rows:
        copy = is_copy_path(path) and not is_copy_path(declaration.path)
        if is_test_path(path) or is_declaration_path(path) or copy:
            continue
        lines = text.split("\n")
        if any(len(line) > LINE_MAX_CHARS for line in lines[:3]):  # minified: `index.min.js`
            continue
        about = len(words & set(terms(f"{path} {symbol} {text}", keep_stop_words=False)))
        for i, line in _code_lines(lines):
            weight = max((w for pattern, w in patterns if pattern.search(line)), default=0)
            if not weight:
                continue
            piece = _statement(ChunkHit(path, start, end, ChunkKind(kind), symbol,
                                        declaration.score * REFERENCE_WEIGHT, text), lines, i)
            value = piece.text.split(name, 1)[-1]
            rank = (weight + bool(_LITERAL.search(value)), about, path.rpartition("/")[0] == folder, -i)
            if best is None or rank > best[0]:
                best = (rank, piece)
    if best is None or best[0][0] < MIN_SETTING or any(overlap(best[1], other) for other in shown):
        return None  # nothing sets it with a value, or a found chunk holds the statement already
    return best[1]


def _comments(lines: list[str]) -> list[bool]:
    """Whether each line is a comment: a line that starts as one, or any line inside a /* ... */
    comment (whose lines need not start with `*`)."""
    out, in_block = [], False
    for line in lines:
        comment = in_block or bool(_COMMENT.match(line))
        if comment:
            in_block = ("/*" in line or in_block) and "*/" not in line
        out.append(comment)
    return out


def _code_lines(lines: list[str]) -> list[tuple[int, str]]:
    """The lines that are code, by index (a doc comment's "via `options.autoStart = false`" sets
    nothing)."""
    return [(i, line) for i, (line, comment) in enumerate(zip(lines, _comments(lines), strict=True)) if not comment]


def _continues(line: str) -> bool:
    """The line goes on below it as one statement: it ends in an open bracket, a comma or an
    operator, but not as a block's head does (`constructor(options) {`, `} else {`)."""
    text = line.rstrip()
    return text.endswith(_CONTINUED) and not _BLOCK_HEAD.search(text)


def _statement(chunk: ChunkHit, lines: list[str], at: int) -> ChunkHit:
    """The chunk cut to the statement the line at index `at` is part of (from the line that opens
    it, when `at` continues one: `this.gcTime = Math.max(` above `this.gcTime || 0,`; its brackets
    closed, at most STATEMENT_LINES lines) and the comment lines right above it."""
    first = at
    while first > 0 and at - first < STATEMENT_LINES - 1 and _continues(lines[first - 1]):
        first -= 1
    top = first
    while top > 0 and first - top < COMMENT_LINES and _COMMENT.match(lines[top - 1]):
        top -= 1
    last = max(at, min(statement_end(lines, first), first + STATEMENT_LINES - 1))
    return replace(chunk, start_line=chunk.start_line + top, end_line=chunk.start_line + last,
                   text="\n".join(lines[top:last + 1]))
