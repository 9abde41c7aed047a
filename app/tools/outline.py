"""file_outline: classes, functions and methods with line numbers, parsed offline by tree-sitter."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.errors import ToolExecutionError
from app.index.definitions import Definition, parse_definitions
from app.index.languages import EXTENSIONS as _EXTENSIONS
from app.index.languages import language_for
from app.tools.base import ToolOutput
from app.tools.calls_text import call_text, cut_note
from app.tools.reading import split_lines
from app.values import LineSpan
from app.workspace import Workspace


class FileOutlineArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="source file relative to the workspace root, e.g. 'src/app.ts'")
    start_line: int = Field(1, ge=1, description="list only definitions starting at or after this line")


def file_outline(ws: Workspace, args: FileOutlineArgs) -> ToolOutput:
    """List the classes, functions and methods defined in a source file, with their line numbers.

    Args:
        path: source file relative to the workspace root.
        start_line: list only definitions starting at or after this line.
    """
    rel, language, lines, found = outline_of(ws, args.path)
    found = [d for d in found if d.line + 1 >= args.start_line]
    return _render(ws, rel, language, len(lines), found, args.start_line)


def outline_of(ws: Workspace, path: str) -> tuple[str, str, list[str], list[Definition]]:
    """(the path as the workspace names it, its language, its lines, every definition in it),
    read under the workspace rules; ToolExecutionError for a file it cannot outline."""
    rel = ws.normalize(path)
    language = language_for(rel)
    if language is None:
        kinds = ", ".join(sorted(_EXTENSIONS))
        raise ToolExecutionError(f"file_outline does not know {rel}'s language (it knows {kinds}); "
                                 f"use {call_text('read_file', path=rel)}")
    doc = ws.read_text(rel)
    if doc.binary:
        raise ToolExecutionError(f"{rel} is a binary file ({doc.sniffed.kind}); it has no outline")
    return rel, language, split_lines(doc.text), outline_text(doc.text, language)


def outline_text(text: str, language: str) -> list[Definition]:
    """Every definition, nested ones too; the grammar and its parser are loaded once, when first asked."""
    found = parse_definitions(text.encode("utf-8", "replace"), language, everywhere=True)
    if found is None:
        raise ToolExecutionError(f"the {language} grammar is not installed; use read_file")
    return found


def _render(ws: Workspace, rel: str, language: str, line_count: int, found: list[Definition],
            start_line: int) -> ToolOutput:
    cap = ws.settings.list_max_entries
    page = found[:cap]
    where = "" if start_line == 1 else f" from line {start_line}"
    lines = [f"{rel} ({language}, {line_count} lines): {len(found)} definitions{where}"]
    lines += [f"{'  ' * d.depth}{d.word} {d.label}  L{d.line + 1}-{d.end + 1}" for d in page]
    if not found:
        lines.append(f"(no classes or functions found; try {call_text('read_file', path=rel)})")
    if len(found) > cap:
        nxt = found[cap].line + 1
        lines.append(cut_note(f"showed {cap} of {len(found)} definitions",
                              call_text("file_outline", path=rel, start_line=nxt)))
    return ToolOutput("\n".join(lines), tuple(LineSpan(rel, d.line + 1, d.line + 1) for d in page))
