"""Tool definitions: a typed function plus its pydantic argument model; schemas are derived."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from app.tools.base import ToolOutput
from app.values import ToolSpec
from app.workspace import Workspace

if TYPE_CHECKING:  # the index (tree-sitter, sqlite) loads only when the tools are made
    from app.tools.code_search import CodeSearch


@dataclass(frozen=True)
class Tool:
    """One tool the model may call: `fn(workspace, args)` with args already validated."""

    name: str
    args_model: type[BaseModel]
    fn: Callable[[Workspace, Any], ToolOutput]

    @property
    def description(self) -> str:
        doc = inspect.getdoc(self.fn) or self.name
        return doc.split("\n\n", 1)[0].replace("\n", " ").strip()

    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments, without pydantic's titles (tokens a small model pays for)."""
        return _strip_titles(self.args_model.model_json_schema())

    def spec(self) -> ToolSpec:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters()}}


@dataclass(frozen=True)
class ToolRegistry:
    """The tools offered to the model, in the order they are presented."""

    tools: tuple[Tool, ...]
    code_search: CodeSearch | None = None  # the index behind search_code, for its symbol table

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools)

    def get(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    def specs(self) -> list[ToolSpec]:
        return [t.spec() for t in self.tools]


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def default_tools(code_search: CodeSearch | None = None) -> ToolRegistry:
    """The seven read-only tools, in the order a model should usually reach for them. A session passes
    its own CodeSearch, to bring the index up to date (with progress) before a question; the
    references tool reads the same index."""
    from app.tools.code_search import CodeSearch, SearchCodeArgs
    from app.tools.listing import FindFilesArgs, ListDirArgs, find_files, list_dir
    from app.tools.outline import FileOutlineArgs, file_outline
    from app.tools.reading import ReadFileArgs, read_file
    from app.tools.references import FindReferencesArgs, References
    from app.tools.search import SearchTextArgs, search_text

    code_search = code_search or CodeSearch()
    return ToolRegistry((
        Tool("list_dir", ListDirArgs, list_dir),
        Tool("find_files", FindFilesArgs, find_files),
        Tool("search_text", SearchTextArgs, search_text),
        Tool("read_file", ReadFileArgs, read_file),
        Tool("file_outline", FileOutlineArgs, file_outline),
        Tool("search_code", SearchCodeArgs, code_search.search_code),
        Tool("find_references", FindReferencesArgs, References(code_search).find_references),
    ), code_search)
