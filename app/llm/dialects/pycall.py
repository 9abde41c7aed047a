"""Python-style calls, read with ast (never eval): LFM2 `[name(a=1)]`, Llama `x.call(q="..")`."""

from __future__ import annotations

import ast
import json
from typing import Any

from app.llm.base import ParsedToolCall


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        if isinstance(node, ast.Name) and node.id in ("true", "false", "null"):  # JSON-isms
            return {"true": True, "false": False, "null": None}[node.id]
        return ast.unparse(node)


def _call(node: ast.AST) -> ParsedToolCall | None:
    if not isinstance(node, ast.Call):
        return None
    name = _dotted(node.func).removesuffix(".call")
    arguments = {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg}
    return ParsedToolCall(name=name, arguments=arguments,
                          raw_arguments=json.dumps(arguments, ensure_ascii=False)) if name else None


def parse_python_calls(text: str) -> list[ParsedToolCall]:
    """Calls from `name(k=v)`, `[a(..), b(..)]` or `a(..); b(..)`; a missing `]` is forgiven."""
    source = text.strip().replace(";", ",")
    for candidate in (source, source + "]", source + ")]", source + ")"):
        try:
            tree = ast.parse(candidate, mode="eval").body
        except SyntaxError:
            continue
        nodes = tree.elts if isinstance(tree, (ast.List, ast.Tuple)) else [tree]
        calls = [c for c in (_call(n) for n in nodes) if c is not None]
        if calls:
            return calls
    return []


def python_literal(value: Any) -> str:
    """A value written as Python source (for rendering calls back into LFM2 text)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def format_python_call(name: str, arguments: dict[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={python_literal(v)}" for k, v in arguments.items()) + ")"
