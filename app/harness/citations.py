"""Citations: `path:start-end` references an answer may keep only if this run really showed them.

A citation survives when (1) a tool result in this run showed those lines, and (2) the lines still
read the same on disk as when they were shown (a fingerprint is taken when a result arrives and
compared when the answer is checked). Anything else is cut from the text before a user sees it,
also while the answer streams; of a citation of a shown file whose lines were not shown, the
path stays, as plain text. A citation that names a shown file by the end of its path only
(`parser.py:172`) is that file's, written in full.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from app.tools.base import TextHit
from app.values import CitationMatch, LineSpan, find_citations

Fingerprinter = Callable[[LineSpan], "str | None"]


@dataclass
class Evidence:
    """The lines tool results showed in this run, each with a fingerprint of its content."""

    fingerprint: Fingerprinter
    shown: dict[LineSpan, str | None] = field(default_factory=dict)
    lines: dict[LineSpan, str] = field(default_factory=dict)  # single lines shown, with their text

    def add(self, spans: Iterable[LineSpan], hits: Iterable[TextHit] = ()) -> None:
        for hit in hits:
            self.lines.setdefault(hit.span, hit.text)
        for span in spans:
            if span not in self.shown:
                self.shown[span] = self.fingerprint(span)

    def resolve(self, citation: LineSpan) -> LineSpan:
        """The citation with its full path when it names a shown file by the end of its path
        (`parser.py:172` for src/dotenv/parser.py, the only shown file so named); else as it is."""
        path = resolve_path(tuple(dict.fromkeys(span.path for span in self.shown)), citation.path)
        return citation if path is None or path == citation.path else replace(citation, path=path)

    def checked(self, match: CitationMatch) -> tuple[str, LineSpan] | None:
        """A citation as the answer keeps it: its text (the path in full) and its span; None when
        it is invalid."""
        span = self.resolve(match.span)
        if not self.is_valid(span):
            return None
        return (match.text if span == match.span else match.text.replace(match.span.path, span.path, 1)), span

    def kept_text(self, match: CitationMatch) -> str:
        """What the answer keeps of a citation: all of it when valid (the path in full), only the
        path when the run showed that file but not those lines ("set to 1024 in lib/ultrajson.h:
        273-274" keeps "lib/ultrajson.h", where cutting it all left "in the file."), else nothing."""
        if (kept := self.checked(match)) is not None:
            return kept[0]
        path = self.resolve(match.span).path
        return path if any(span.path == path for span in self.shown) else ""

    def is_valid(self, citation: LineSpan) -> bool:
        """Shown in this run, sensible, and still the same on disk."""
        if citation.start_line < 1 or citation.end_line < citation.start_line:
            return False
        return any(
            _covers(shown, citation) and digest is not None and self.fingerprint(shown) == digest
            for shown, digest in self.shown.items()
        )


def _covers(outer: LineSpan, inner: LineSpan) -> bool:
    return outer.path == inner.path and outer.start_line <= inner.start_line and inner.end_line <= outer.end_line


def merge_spans(spans: Iterable[LineSpan]) -> tuple[LineSpan, ...]:
    """Overlapping or adjacent spans of one path merged, in order of first appearance."""
    by_path: dict[str, list[LineSpan]] = {}
    for span in spans:
        by_path.setdefault(span.path, []).append(span)
    merged: list[LineSpan] = []
    for path, group in by_path.items():
        group.sort()
        current = group[0]
        for span in group[1:]:
            if span.start_line <= current.end_line + 1:
                current = LineSpan(path, current.start_line, max(current.end_line, span.end_line))
            else:
                merged.append(current)
                current = span
        merged.append(current)
    return tuple(merged)


def verify_answer(text: str, evidence: Evidence) -> tuple[str, tuple[LineSpan, ...]]:
    """The text with invalid citations cut out, and the valid ones in order (no duplicates)."""
    kept: list[LineSpan] = []
    pieces: list[str] = []
    last, cut = 0, False
    for match in find_citations(text):
        pieces.append(text[last:match.start])
        pieces.append(kept_text := evidence.kept_text(match))
        cut = cut or kept_text != text[match.start:match.end]
        if (kept_as := evidence.checked(match)) is not None and kept_as[1] not in kept:
            kept.append(kept_as[1])
        last = match.end
    pieces.append(text[last:])
    joined = "".join(pieces)
    return (tidy(joined) if cut else joined.strip()), tuple(kept)


def tidy(text: str) -> str:
    """Remove brackets and separators left empty where a citation was cut out (prose only: fenced
    code keeps its fences and indentation, and inline code its `()` and `[]`: `() => respond(ctx)`
    and `= []` had lost them in a user's check on koa and tenacity)."""
    parts = re.split(r"(```.*?(?:```|$)|`[^`\n]+`)", text, flags=re.DOTALL)
    out = [part if part.startswith("`") else _tidy_prose(part) for part in parts]
    # a cut right after inline code leaves two spaces at the start of the prose after it
    return "".join(p if i == 0 or not out[i - 1].startswith("`") else re.sub(r"^[ \t]{2,}", " ", p)
                   for i, p in enumerate(out)).strip()


def _tidy_prose(text: str) -> str:
    text = re.sub(r"\(\s*[,;]?\s*\)|\[\s*[,;]?\s*\]|(?<!`)``(?!`)", "", text)
    text = re.sub(r"[ \t]+([.,;:])", r"\1", text)
    return re.sub(r"(?<=\S)[ \t]{2,}", " ", text)


class StreamingCitationFilter:
    """Feeds streamed text through, holding back the last word until citations in it are checked."""

    def __init__(self, evidence: Evidence) -> None:
        self._evidence = evidence
        self._pending = ""

    def feed(self, text: str) -> str:
        self._pending += text
        cut = max(self._pending.rfind(" "), self._pending.rfind("\n"))
        if cut < 0:
            return ""
        ready, self._pending = self._pending[: cut + 1], self._pending[cut + 1 :]
        return self._clean(ready)

    def flush(self) -> str:
        ready, self._pending = self._pending, ""
        return self._clean(ready)

    def _clean(self, text: str) -> str:
        for match in reversed(find_citations(text)):
            text = text[: match.start] + self._evidence.kept_text(match) + text[match.end :]
        return text


def resolve_path(files: tuple[str, ...], name: str) -> str | None:
    """The file a written name means: itself, else the one file it ends (None when none or
    several do)."""
    name = name.strip().strip("`").removeprefix("./")
    if name in files:
        return name
    tails = [f for f in files if f.endswith("/" + name)]
    return tails[0] if len(tails) == 1 else None


def content_fingerprint(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def read_args_for(span: LineSpan) -> str:
    """Arguments of the read_file call that shows exactly a span (used to fingerprint it)."""
    count = span.end_line - span.start_line + 1
    return json.dumps({"path": span.path, "start_line": span.start_line, "max_lines": count})


# Citations written in prose: models write "`src/app.py` lines 12-30", "src/app.py, line 9", "in
# src/app.py (lines 12–30)", "lines 3-9 of src/app.py", "src/app.py#L12-L30". The path is as written
# (often a bare file name); the caller resolves it against the workspace.
_PROSE_PATH = r"`?(?P<path§>(?:[\w@+~.\-]+/)*[\w@+~\-][\w@+~.\-]*\.[A-Za-z][A-Za-z0-9_]*)`?"
# Lines are a list, one citation a range: "lines 23 and 283-294 of the uuid.go file" (a user's check
# on google/uuid: "294" was read as a value the answer stated, and the answer of 256 bytes was not
# backed), "`a.py`, lines 5, 7 and 10-12".
_TO = r"\s*(?:-|\u2013|\u2014|to|through)\s*(?:line\s+)?"  # between a range's first and last line
_SPAN = rf"\d{{1,7}}(?:{_TO}\d{{1,7}})?"
_RANGES = (r"(?:starting\s+)?(?:(?:at|on|in|from)\s+)?(?:the\s+)?lines?\s+"
           rf"(?P<list§>{_SPAN}(?:\s*(?:,\s*(?:and\s+)?|and\s+)(?:lines?\s+)?{_SPAN})*)(?![\w])")
PROSE_CITATION_RE = re.compile(
    "(?<![\\w/.\\-])(?:"
    + _PROSE_PATH.replace("§", "1") + r"#L(?P<start1>\d{1,7})(?:-L?(?P<end1>\d{1,7}))?(?![\w])"
    + "|" + _PROSE_PATH.replace("§", "2") + r"(?:[ \t]+(?:file|module))?[ \t]*[,(]?[ \t]*"
    + r"(?:(?:it|this|which)\s+(?:is|are)\s+)?(?:(?:located|defined|found|implemented)\s+)?"
    + _RANGES.replace("§", "2")
    + "|" + _RANGES.replace("§", "3") + r"\s+(?:of|in)\s+(?:the\s+)?(?:file\s+)?" + _PROSE_PATH.replace("§", "3")
    + ")", re.IGNORECASE)
_ONE_RANGE = re.compile(rf"(\d{{1,7}})(?:{_TO}(\d{{1,7}}))?")


@dataclass(frozen=True)
class ProseCitation:
    """A citation written in prose: the path as written, its lines, and where it sits in the text."""

    path: str
    start_line: int
    end_line: int
    start: int
    end: int


def find_prose_citations(text: str) -> list[ProseCitation]:
    """Every prose citation in text, in order (a `path:line` citation is not one of them)."""
    found = []
    for m in PROSE_CITATION_RE.finditer(text):
        n = next(i for i in (1, 2, 3) if m.group(f"path{i}"))
        if n == 1:
            ranges = [(int(m.group("start1")), int(m.group("end1") or m.group("start1")))]
        else:  # a list of lines and ranges: one citation each
            ranges = [(int(a), int(b or a)) for a, b in _ONE_RANGE.findall(m.group(f"list{n}"))]
        found += [ProseCitation(m.group(f"path{n}"), min(first, last), max(first, last), m.start(), m.end())
                  for first, last in ranges]
    return found
