"""GBNF for the generic dialect: one schema-valid tool call, or a plain answer.

Whitespace and key order are fixed (schema order, json.dumps separators), so the text the model
produced under the grammar is exactly what the dialect renders back for that turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from app.llm.base import ToolSpec

PATH_ARGUMENTS = frozenset({"path", "file", "file_path", "filename", "directory", "dir"})

BASE_RULES = r'''
string ::= "\"" char* "\""
char ::= [^"\\\x00-\x1f] | "\\" ["\\nt]
integer ::= "-"? [0-9]{1,10}
number ::= integer ("." [0-9]{1,10})?
boolean ::= "true" | "false"
value ::= string | number | boolean | "null"
string-list ::= "[" (string (", " string)*)? "]"
'''


def gbnf_literal(text: str) -> str:
    """A GBNF string literal matching exactly `text`."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def rule_name(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower() or "x"


def _value_rule(name: str, schema: dict[str, Any], known_paths: Sequence[str]) -> str:
    """The right-hand side for one argument value."""
    if "enum" in schema:
        return " | ".join(gbnf_literal(json.dumps(v, ensure_ascii=False)) for v in schema["enum"])
    kind = schema.get("type")
    if kind is None and "anyOf" in schema:  # Optional[X] from pydantic
        kinds = [s for s in schema["anyOf"] if s.get("type") != "null"]
        return _value_rule(name, kinds[0], known_paths) if kinds else "value"
    if kind == "string" and name in PATH_ARGUMENTS and known_paths:
        return " | ".join(gbnf_literal(json.dumps(p, ensure_ascii=False)) for p in known_paths)
    simple = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean"}
    if kind in simple:
        return simple[kind]
    if kind == "array" and schema.get("items", {}).get("type") == "string":
        return "string-list"
    return "value"


def _pair(key: str) -> str:
    return gbnf_literal(json.dumps(key) + ": ")


def _object_rule(prefix: str, params: dict[str, Any], rules: list[str],
                 known_paths: Sequence[str]) -> str:
    """Rules for an argument object: required keys in order, then each optional one or not."""
    props = params.get("properties", {})
    required = [k for k in props if k in set(params.get("required", []))]
    optional = [k for k in props if k not in required]
    for key in props:
        rules.append(f"{prefix}-{rule_name(key)} ::= {_pair(key)} "
                     f"({_value_rule(key, props[key], known_paths)})")
    head = ' ", " '.join(f"{prefix}-{rule_name(k)}" for k in required)
    if required:
        tail = " ".join(f'(", " {prefix}-{rule_name(k)})?' for k in optional)
        return f'"{{" {head} {tail} "}}"'
    return _any_subset(prefix, optional)


def _any_subset(prefix: str, optional: list[str]) -> str:
    """No required key: any in-order subset of the optional ones, commas only between."""
    if not optional:
        return '"{}"'
    choices = []
    for i, key in enumerate(optional):
        rest = " ".join(f'(", " {prefix}-{rule_name(k)})?' for k in optional[i + 1:])
        choices.append(f"{prefix}-{rule_name(key)} {rest}")
    return '"{" (' + " | ".join(f"({c})" for c in choices) + ')? "}"'


def arguments_rules(tool: ToolSpec, known_paths: Sequence[str]) -> tuple[str, list[str]]:
    """(rule name, rules) for one tool's argument object."""
    fn = tool.get("function", tool)
    prefix = "args-" + rule_name(fn["name"])
    rules: list[str] = []
    body = _object_rule(prefix, fn.get("parameters", {}), rules, known_paths)
    rules.append(f"{prefix} ::= {body}")
    return prefix, rules
