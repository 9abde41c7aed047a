"""Between model and executor: validate a proposed call, then run it. Nothing raises out of here.

Use:

    executor = ToolExecutor(workspace, settings)
    executor.schemas() -> list[ToolSpec]            # OpenAI-style, derived from pydantic models
    executor.run(call_id, name, raw_arguments) -> CallOutcome
    executor.known_paths(limit), executor.layout()  # the workspace's own view, for the first prompt

A failure at any stage (unknown tool, arguments not a JSON object, pydantic refusal, execution
error) gives CallOutcome(ok=False) with a message that tells the model what to fix.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pydantic import ValidationError

from app.errors import BurrowError
from app.index import ChunkHit
from app.settings import Settings
from app.tools.base import ChunkLines, Reference, TextHit
from app.tools.calls_text import call_text
from app.tools.outline import outline_of
from app.tools.references import CANDIDATE_CHUNKS, inner_definitions, naming_offset
from app.tools.registry import Tool, ToolRegistry, default_tools
from app.values import LineSpan, ToolSpec
from app.workspace import MissingPathError, Workspace

log = logging.getLogger(__name__)
DEFINITION_LOOKUPS = 8  # symbol-table rows looked at for one name (definitions come first)
MEMBER_LOOKUPS = 64  # ... and for the members after them (`Name.method`), which say where it ends


@dataclass(frozen=True)
class CallOutcome:
    call_id: str
    name: str
    raw_arguments: str
    arguments: dict[str, Any] | None  # validated arguments, None when validation failed
    ok: bool
    content: str  # exactly what the model receives
    refused: bool = False  # True when validation (not execution) failed
    seconds: float = 0.0
    spans: tuple[LineSpan, ...] = ()
    hits: tuple[TextHit, ...] = ()  # search results as data (search_text)
    chunks: tuple[ChunkLines, ...] = ()  # ranked chunks as data (search_code)
    references: tuple[Reference, ...] = ()  # uses as data (find_references)
    definitions: tuple[TextHit, ...] = ()  # definition lines as data (find_references)


class Toolbox(Protocol):
    """What the loop acts through: tool schemas, validated execution, and the workspace's view."""

    @property
    def label(self) -> str: ...

    def schemas(self) -> list[ToolSpec]: ...

    def run(self, call_id: str, name: str, raw_arguments: str) -> CallOutcome: ...

    def known_paths(self, limit: int) -> tuple[str, ...]: ...

    def layout(self) -> str: ...


class ToolExecutor:
    """Validates a proposed call (name, JSON object, pydantic arguments) and runs it in the workspace."""

    def __init__(self, workspace: Workspace, settings: Settings, registry: ToolRegistry | None = None,
                 files: tuple[str, ...] | None = None) -> None:
        self._workspace = workspace
        self._settings = settings
        self._registry = registry or default_tools()
        self._files = files  # the workspace's files as a walk just found them; None: walk when asked

    def with_files(self, files: tuple[str, ...]) -> ToolExecutor:
        """The same tools, whose known_paths are `files` (a walk made for this question)."""
        return ToolExecutor(self._workspace, self._settings, self._registry, files)

    @property
    def workspace(self) -> Workspace:
        return self._workspace

    @property
    def label(self) -> str:
        """The workspace folder, as runs and records name it."""
        return str(self._workspace.root)

    def known_paths(self, limit: int) -> tuple[str, ...]:
        """Files a path argument may name (for a path grammar), under the workspace rules."""
        if limit <= 0:
            return ()
        return self._files[:limit] if self._files is not None else self._workspace.file_list(limit)

    def layout(self) -> str:
        """A short view of the workspace's top level, for the first prompt."""
        return self._workspace.top_level_summary()

    def definitions(self, name: str) -> tuple[LineSpan, ...]:
        """Where the index's symbol table says `name` is defined: from the line that names it to the
        end of its first chunk or of the last member the table lists for it in that file (a class's
        methods are chunks of their own); a name the table lacks, where a function defines it
        inside itself (references.inner_definitions); () without an index. The answer check
        compares a "where is X" answer with it."""
        hits, _ = self._defining(name)
        bare = name.rsplit(".", 1)[-1]
        ends: dict[tuple[str, str], int] = {}  # (path, owner) -> the last line of its members
        for h in hits:
            if h.symbol and "." in h.symbol:
                owner = h.symbol.rsplit(".", 1)[0].lower()
                ends[h.path, owner] = max(ends.get((h.path, owner), 0), h.end_line)
        return tuple(LineSpan(h.path, line, max(line, h.end_line, ends.get((h.path, h.symbol.lower()), 0)))
                     for h in hits[:DEFINITION_LOOKUPS] if _defines_name(h, name)
                     for line in [_line_naming(h.text, bare, h.start_line)])

    def helper_definitions(self, name: str) -> tuple[TextHit, ...]:
        """The line of each definition of `name` inside another function, when the symbol table
        has none of that name (references.inner_definitions); () otherwise or without an index."""
        hits, in_table = self._defining(name)
        bare = name.rsplit(".", 1)[-1]
        return () if in_table else tuple(
            TextHit(LineSpan(h.path, line, line), h.text.split("\n")[line - h.start_line].strip())
            for h in hits[:DEFINITION_LOOKUPS] for line in [_line_naming(h.text, bare, h.start_line)])

    def _defining(self, name: str) -> tuple[tuple[ChunkHit, ...], bool]:
        """The symbol table's hits for `name` and True when one defines it; else the definitions
        inside functions and False; ((), False) without an index or with a broken one."""
        index = self._registry.code_search
        if index is None:
            return (), False
        bare = name.rsplit(".", 1)[-1]
        try:
            code = index.index_for(self._workspace)
            hits = code.find_symbol(name, MEMBER_LOOKUPS)
            if any(_defines_name(h, name) for h in hits):
                return hits, True
            return inner_definitions(self._workspace, bare, code.mentions(bare, CANDIDATE_CHUNKS)), False
        except Exception:  # the index is a help: a broken one checks nothing
            log.exception("looking up %r in the symbol table failed", name)
            return (), False

    def definition_names(self) -> tuple[tuple[str, str], ...]:
        """(path, qualified name) of every definition in the index; () without one."""
        index = self._registry.code_search
        if index is None:
            return ()
        try:
            return index.index_for(self._workspace).definition_names()
        except Exception:  # the index is a help: a broken one checks nothing
            log.exception("listing the symbol table's definitions failed")
            return ()

    def defined_in(self, path: str) -> tuple[TextHit, ...]:
        """The definition lines of a workspace file (file_outline's, read under the workspace
        rules), each with its text; () for a file it cannot outline. The answer check cites, for a
        "which file defines X" answer that names the file, the ones that name X."""
        try:
            rel, _, lines, found = outline_of(self._workspace, path)
            return tuple(TextHit(LineSpan(rel, d.line + 1, d.line + 1), lines[d.line])
                         for d in found if d.line < len(lines))
        except Exception:  # a help for the check: an unreadable file or a missing grammar cites nothing
            log.debug("no outline of %r for the answer check", path, exc_info=True)
            return ()

    def schemas(self) -> list[ToolSpec]:
        return self._registry.specs()

    def run(self, call_id: str, name: str, raw_arguments: str) -> CallOutcome:
        started = time.perf_counter()
        try:
            outcome = self._run(call_id, name, raw_arguments)
        except Exception as exc:  # a bug of ours must still not kill the loop: the model gets a result
            log.exception("tool %s crashed", name)
            outcome = _failed(call_id, name, raw_arguments, None,
                              f"{name} failed inside Burrow ({type(exc).__name__}); "
                              "try a different call")
        return replace(outcome, seconds=time.perf_counter() - started)

    def _run(self, call_id: str, name: str, raw_arguments: str) -> CallOutcome:
        tool = self._registry.get(name) if isinstance(name, str) else None
        if tool is None:
            known = ", ".join(self._registry.names)
            return _refused(call_id, name, raw_arguments, f"Unknown tool {name!r}. Available tools: {known}.")
        parsed = parse_arguments(raw_arguments)
        if isinstance(parsed, str):
            return _refused(call_id, name, raw_arguments, f"{name}: {parsed} {_example(tool)}")
        try:
            args = tool.args_model.model_validate(parsed)
        except ValidationError as exc:
            return _refused(call_id, name, raw_arguments, f"{name}: {describe_validation(exc, tool)}")
        arguments = args.model_dump()
        try:
            out = tool.fn(self._workspace, args)
        except MissingPathError as exc:
            return _failed(call_id, name, raw_arguments, arguments, f"{exc}. {_find_hint(arguments)}")
        except BurrowError as exc:
            return _failed(call_id, name, raw_arguments, arguments, str(exc))
        return CallOutcome(call_id, name, raw_arguments, arguments, True, out.content, spans=out.spans,
                           hits=out.hits, chunks=out.chunks, references=out.references,
                           definitions=out.definitions)


def parse_arguments(raw: str) -> dict[str, Any] | str:
    """The arguments as a dict, or a hint saying why they are not a JSON object."""
    if not isinstance(raw, str):
        return "arguments must be a JSON object string."
    if not raw.strip():
        return {}  # models often send "" for a call whose arguments all have defaults
    try:
        value = json.loads(raw)
        if isinstance(value, str) and value.strip().startswith("{"):
            value = json.loads(value)  # double-encoded JSON: a common small-model slip, unambiguous
    except json.JSONDecodeError as exc:
        return f"arguments are not valid JSON ({exc.msg} at character {exc.pos})."
    if not isinstance(value, dict):
        return f"arguments must be a JSON object, not {type(value).__name__}."
    return value


def describe_validation(exc: ValidationError, tool: Tool) -> str:
    """Which field is wrong and what is expected, for each pydantic error."""
    allowed = ", ".join(tool.args_model.model_fields)
    problems = []
    for err in exc.errors()[:5]:
        field = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        if err["type"] == "extra_forbidden":
            problems.append(f"unknown argument {field!r} (allowed: {allowed})")
        elif err["type"] == "missing":
            problems.append(f"missing required argument {field!r}")
        else:
            problems.append(f"argument {field!r}: {err['msg']} (got {json.dumps(err.get('input'), default=str)[:80]})")
    return "; ".join(problems) + ". " + _example(tool)


def _example(tool: Tool) -> str:
    required = tool.args_model.model_json_schema().get("required", [])
    sample = {k: _SAMPLES.get(k, "...") for k in required}
    return f"Send a JSON object such as {json.dumps(sample)}."


_SAMPLES = {"path": "README.md", "pattern": "TODO"}


def _find_hint(arguments: dict[str, Any]) -> str:
    path = str(arguments.get("path", ""))
    name = path.rsplit("/", 1)[-1] or "*"
    return f"Find it with {call_text('find_files', pattern=name)} or list a folder with list_dir."


def _refused(call_id: str, name: str, raw: str, message: str) -> CallOutcome:
    return CallOutcome(call_id, str(name), raw, None, False, message, refused=True)


def _failed(call_id: str, name: str, raw: str, arguments: dict[str, Any] | None, message: str) -> CallOutcome:
    return CallOutcome(call_id, str(name), raw, arguments, False, message)


def _defines_name(hit: ChunkHit, name: str) -> bool:
    """A symbol-table hit is a definition of `name` (or of its last part: `Mux.Use` for `Use`)."""
    return bool(hit.symbol) and (hit.symbol == name or hit.symbol.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1])


def _line_naming(text: str, name: str, first: int) -> int:
    """The line of a chunk that names `name` (its definition line, not a doc comment above it that
    names it too), else the chunk's first line."""
    pattern = re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])")
    return first + naming_offset(text.split("\n"), pattern)
