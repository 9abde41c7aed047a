"""file_outline: classes, functions and methods with line numbers, parsed offline by tree-sitter."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from app.errors import ToolExecutionError
from app.index.languages import EXTENSIONS as _EXTENSIONS
from app.index.languages import GRAMMARS as _GRAMMARS
from app.index.languages import language_for
from app.tools.base import ToolOutput
from app.tools.calls_text import call_text, cut_note
from app.tools.reading import split_lines
from app.values import LineSpan
from app.workspace import Workspace

_JS = {"class_declaration": "class", "class": "class", "function_declaration": "function",
       "generator_function_declaration": "function", "method_definition": "method",
       "variable_declarator": "const"}
_TS = {**_JS, "interface_declaration": "interface", "type_alias_declaration": "type",
       "enum_declaration": "enum", "abstract_class_declaration": "class", "internal_module": "namespace",
       "function_signature": "function"}
_C = {"function_definition": "function", "struct_specifier": "struct", "enum_specifier": "enum",
      "union_specifier": "union"}
_CPP = {**_C, "class_specifier": "class", "namespace_definition": "namespace"}
_KINDS: dict[str, dict[str, str]] = {
    "python": {"class_definition": "class", "function_definition": "def"},
    "javascript": _JS, "typescript": _TS, "tsx": _TS,
    "go": {"function_declaration": "func", "method_declaration": "method", "type_spec": "type"},
    "rust": {"function_item": "fn", "function_signature_item": "fn", "struct_item": "struct", "enum_item": "enum",
             "trait_item": "trait", "impl_item": "impl", "mod_item": "mod", "macro_definition": "macro"},
    "java": {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
             "record_declaration": "record", "method_declaration": "method",
             "constructor_declaration": "constructor", "annotation_type_declaration": "@interface"},
    "c": _C, "cpp": _CPP,
}
_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}


class FileOutlineArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="source file relative to the workspace root, e.g. 'src/app.ts'")
    start_line: int = Field(1, ge=1, description="list only definitions starting at or after this line")


@dataclass(frozen=True)
class Definition:
    kind: str
    name: str
    start: int  # 1-based
    end: int
    depth: int


def file_outline(ws: Workspace, args: FileOutlineArgs) -> ToolOutput:
    """List the classes, functions and methods defined in a source file, with their line numbers.

    Args:
        path: source file relative to the workspace root.
        start_line: list only definitions starting at or after this line.
    """
    rel = ws.normalize(args.path)
    language = language_for(rel)
    if language is None:
        kinds = ", ".join(sorted(_EXTENSIONS))
        raise ToolExecutionError(f"file_outline does not know {rel}'s language (it knows {kinds}); "
                                 f"use {call_text('read_file', path=rel)}")
    doc = ws.read_text(rel)
    if doc.binary:
        raise ToolExecutionError(f"{rel} is a binary file ({doc.sniffed.kind}); it has no outline")
    found = [d for d in outline_text(doc.text, language) if d.start >= args.start_line]
    return _render(ws, rel, language, len(split_lines(doc.text)), found, args.start_line)


def outline_text(text: str, language: str) -> list[Definition]:
    import tree_sitter  # lazy: the grammars are only loaded when an outline is asked for

    module, func = _GRAMMARS[language]
    grammar = tree_sitter.Language(getattr(importlib.import_module(module), func)())
    tree = tree_sitter.Parser(grammar).parse(text.encode("utf-8", "replace"))
    found: list[Definition] = []
    _visit(tree.root_node, _KINDS[language], 0, found)
    return found


def _visit(node, kinds: dict[str, str], depth: int, found: list[Definition]) -> None:
    for child in node.named_children:
        kind = kinds.get(child.type)
        name = _name(child) if kind else None
        if kind and name and _is_definition(child):
            found.append(Definition(kind, name, child.start_point[0] + 1, child.end_point[0] + 1, depth))
            _visit(child, kinds, depth + 1, found)
        else:
            _visit(child, kinds, depth, found)


def _is_definition(node) -> bool:
    if node.type in ("struct_specifier", "enum_specifier", "union_specifier", "class_specifier"):
        return node.child_by_field_name("body") is not None  # not a mere `struct x *p;` reference
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        return value is not None and value.type in _FUNCTION_VALUES
    return True


def _name(node) -> str | None:
    if node.type == "impl_item":
        target, trait = node.child_by_field_name("type"), node.child_by_field_name("trait")
        return _text(target) if trait is None else f"{_text(trait)} for {_text(target)}"
    named = node.child_by_field_name("name")
    if named is not None:
        return _text(named) + _params(node)
    declarator = node.child_by_field_name("declarator")
    if declarator is not None:  # C/C++ functions: the declarator holds name and parameters
        return _text(declarator)
    return None


def _params(node) -> str:
    params = node.child_by_field_name("parameters")
    return _text(params) if params is not None else ""


def _text(node) -> str:
    text = " ".join(node.text.decode("utf-8", "replace").split())
    return text if len(text) <= 120 else text[:117] + "..."


def _render(ws: Workspace, rel: str, language: str, line_count: int, found: list[Definition],
            start_line: int) -> ToolOutput:
    cap = ws.settings.list_max_entries
    page = found[:cap]
    where = "" if start_line == 1 else f" from line {start_line}"
    lines = [f"{rel} ({language}, {line_count} lines): {len(found)} definitions{where}"]
    lines += [f"{'  ' * d.depth}{d.kind} {d.name}  L{d.start}-{d.end}" for d in page]
    if not found:
        lines.append(f"(no classes or functions found; try {call_text('read_file', path=rel)})")
    if len(found) > cap:
        nxt = found[cap].start
        lines.append(cut_note(f"showed {cap} of {len(found)} definitions",
                              call_text("file_outline", path=rel, start_line=nxt)))
    return ToolOutput("\n".join(lines), tuple(LineSpan(rel, d.start, d.start) for d in page))
