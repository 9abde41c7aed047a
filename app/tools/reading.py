"""read_file: numbered lines of one file, sized for a small model's context."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.errors import BurrowError, ToolExecutionError
from app.tools.base import TextHit, ToolOutput
from app.tools.calls_text import call_text, cut_note
from app.values import LineSpan
from app.workspace import TextFile, Workspace, human_size
from app.workspace.values import split_lines


class ReadFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="file path relative to the workspace root, e.g. 'src/main.py'")
    start_line: int = Field(1, ge=1, description="first line to show (1-based)")
    max_lines: int = Field(200, ge=1, description="how many lines to show at most (also capped by settings)")


def current_lines(ws: Workspace, rel: str) -> list[str] | None:
    """A file's lines as they read now, for a tool that found it earlier (rg, the index): None when
    it is gone, refused or binary since, so nothing of it is shown."""
    try:
        doc = ws.read_text(rel)
    except BurrowError:
        return None
    return None if doc.binary else split_lines(doc.text)


def clip_line(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return f"{line[:limit]} [... line cut: {len(line)} chars, showing the first {limit}]"


def read_file(ws: Workspace, args: ReadFileArgs) -> ToolOutput:
    """Read a text file and return numbered lines with a header giving the file's line count.

    Args:
        path: file path relative to the workspace root.
        start_line: first line to show (1-based).
        max_lines: how many lines to show at most.
    """
    doc = ws.read_text(args.path)
    if doc.binary:
        return _binary_note(doc)
    lines = split_lines(doc.text)
    if not lines:
        return ToolOutput(f"{doc.rel} (empty file, 0 lines)")
    return _numbered(ws, doc, lines, args)


def _binary_note(doc: TextFile) -> ToolOutput:
    return ToolOutput(f"{doc.rel}: binary file ({doc.sniffed.kind}, {human_size(doc.size)}); "
                      "its bytes are not shown.")


def _numbered(ws: Workspace, doc: TextFile, lines: list[str], args: ReadFileArgs) -> ToolOutput:
    """The lines asked for under a header, with a pointer to the rest when they were cut."""
    total = _total_text(doc, len(lines), ws.settings.file_scan_max_bytes)
    if args.start_line > len(lines):
        last = max(1, len(lines) - ws.settings.read_max_lines + 1)
        raise ToolExecutionError(f"{doc.rel} has {total} lines; start_line={args.start_line} is past the end. "
                                 f"Try {call_text('read_file', path=doc.rel, start_line=last)}")
    shown, body = _window(ws, lines, args)
    end = args.start_line + shown - 1
    hits = tuple(TextHit(LineSpan(doc.rel, n, n), lines[n - 1]) for n in range(args.start_line, end + 1))
    header = f"{doc.rel} (lines {args.start_line}-{end} of {total}, {human_size(doc.size)}{_bom_note(doc)})"
    parts = [header, *body, *_rest_note(doc, args.start_line, end, len(lines), total)]
    return ToolOutput("\n".join(parts), (LineSpan(doc.rel, args.start_line, end),), hits=hits)


def _rest_note(doc: TextFile, start: int, end: int, count: int, total: str) -> list[str]:
    """A pointer to the next line when the lines shown stop before the end of the file."""
    if end >= count and doc.complete:
        return []
    more = call_text("read_file", path=doc.rel, start_line=end + 1)
    return [cut_note(f"showed lines {start}-{end} of {total}", more)]


def _window(ws: Workspace, lines: list[str], args: ReadFileArgs) -> tuple[int, list[str]]:
    """Numbered lines from start_line, stopping at the line cap or the byte cap, whichever comes first."""
    settings = ws.settings
    limit = min(args.max_lines, settings.read_max_lines)
    stop = min(len(lines), args.start_line - 1 + limit)
    width = len(str(stop))
    budget = settings.read_max_bytes
    body: list[str] = []
    for number in range(args.start_line, stop + 1):
        row = f"{number:>{width}}| {clip_line(lines[number - 1], settings.read_max_line_chars)}"
        budget -= len(row.encode("utf-8")) + 1
        if budget < 0 and body:
            break
        body.append(row)
    return len(body), body


def _total_text(doc: TextFile, count: int, scanned: int) -> str:
    if doc.complete:
        return str(count)
    return f"at least {count} (only the first {human_size(scanned)} were read)"


def _bom_note(doc: TextFile) -> str:
    return f", {doc.sniffed.encoding} with BOM" if doc.sniffed.bom_length else ""
