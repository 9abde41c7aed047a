"""Small text helpers shared by the dialect parsers: JSON scanning, reasoning, stream hold-back."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from app.llm.base import ParsedToolCall

_DECODER = json.JSONDecoder()


def decode_json_at(text: str, start: int) -> tuple[Any, int] | None:
    """The JSON value starting at text[start] (after whitespace) and where it ends, or None."""
    pos = start
    while pos < len(text) and text[pos].isspace():
        pos += 1
    try:
        return _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError:
        return None


def iter_json_values(text: str, separators: str = " \t\r\n,;") -> Iterator[Any]:
    """Consecutive JSON values separated by whitespace, commas or semicolons; stops at junk."""
    pos = 0
    while pos < len(text):
        while pos < len(text) and text[pos] in separators:
            pos += 1
        decoded = decode_json_at(text, pos) if pos < len(text) else None
        if decoded is None:
            return
        value, pos = decoded
        yield value


def arguments_from(value: Any) -> tuple[dict[str, Any], str]:
    """Arguments as a dict plus the raw JSON text; double-encoded JSON strings are unwrapped."""
    if isinstance(value, str):
        decoded = decode_json_at(value, 0)
        parsed = decoded[0] if decoded else None
        return (parsed if isinstance(parsed, dict) else {}), value
    if isinstance(value, dict):
        return value, json.dumps(value, ensure_ascii=False)
    return {}, json.dumps(value, ensure_ascii=False)


def call_from_object(obj: Any, args_keys: Iterable[str] = ("arguments", "parameters")) -> ParsedToolCall | None:
    """A call from {"name": .., "arguments"|"parameters": ..} (OpenAI-style "function" nesting too)."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        return call_from_object({**obj["function"], "id": obj.get("id", "")}, args_keys)
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return None
    raw_args = next((obj[k] for k in args_keys if k in obj), {})
    arguments, raw = arguments_from(raw_args)
    return ParsedToolCall(name=name, arguments=arguments, raw_arguments=raw, id=str(obj.get("id") or ""))


def close_json(text: str) -> str:
    """JSON cut off at the end (a model stopped early, or a stop string ate the closers), closed:
    an open string gets its quote, then every open bracket its closer, innermost first."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            escaped, in_string = (not escaped and ch == "\\"), in_string and (escaped or ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack and stack[-1] == ch:
            stack.pop()
    return text + ('"' if in_string else "") + "".join(reversed(stack))


def calls_from_json_text(text: str) -> list[ParsedToolCall]:
    """Calls from one or more JSON objects or lists of objects in text; a cut-off end is closed."""
    return _calls_in(text) or _calls_in(close_json(text.rstrip()))


def _calls_in(text: str) -> list[ParsedToolCall]:
    calls: list[ParsedToolCall] = []
    for value in iter_json_values(text):
        for item in value if isinstance(value, list) else [value]:
            call = call_from_object(item)
            if call is not None:
                calls.append(call)
    return calls


def parse_loose_arguments(text: str) -> tuple[dict[str, Any], str]:
    """Arguments JSON that may be cut off at the end (a missing closing brace is forgiven);
    the raw text returned is the repaired JSON, so it validates like what the model meant."""
    stripped = text.strip()
    for candidate in (stripped, close_json(stripped)):
        decoded = decode_json_at(candidate, 0)
        if decoded and isinstance(decoded[0], dict) and not candidate[decoded[1]:].strip():
            return decoded[0], candidate
    return {}, stripped


def split_think(raw: str, opened: bool, open_tag: str = "<think>",
                close_tag: str = "</think>") -> tuple[str, str]:
    """(reasoning, rest). `opened`: the prompt already opened the reasoning block."""
    head = raw.lstrip()
    if head.startswith(open_tag):
        opened, raw = True, head[len(open_tag):]
    if close_tag in raw:
        reasoning, rest = raw.split(close_tag, 1)
        return reasoning.strip(), rest
    if opened:
        return raw.strip(), ""
    return "", raw


def strip_markers(text: str, markers: Iterable[str]) -> str:
    for marker in markers:
        text = text.replace(marker, "")
    return text


def first_index(text: str, markers: Iterable[str]) -> int:
    """Index of the earliest marker in text, or len(text)."""
    found = [i for i in (text.find(m) for m in markers if m) if i >= 0]
    return min(found, default=len(text))


def hold_back(text: str, markers: Iterable[str]) -> str:
    """Text minus a tail that could be the start of a marker still arriving."""
    starts, longest = _marker_starts(tuple(markers))
    for size in range(min(len(text), longest), 0, -1):
        if text[-size:] in starts:
            return text[:-size]
    return text


@lru_cache(maxsize=64)
def _marker_starts(markers: tuple[str, ...]) -> tuple[frozenset[str], int]:
    """Every non-empty start of every marker, and the longest marker's length: hold_back runs on
    every streamed token, and a set lookup per tail length beats testing each marker."""
    found = [m for m in markers if m]
    return frozenset(m[:n] for m in found for n in range(1, len(m) + 1)), max(map(len, found), default=0)


def visible_before(text: str, markers: Iterable[str]) -> str:
    """The part of streamed text before any marker, with a possible partial marker held back."""
    markers = list(markers)
    cut = first_index(text, markers)
    return hold_back(text[:cut], markers) if cut == len(text) else text[:cut]


def visible_after_think(raw: str, opened: bool, markers: Iterable[str],
                        open_tag: str = "<think>", close_tag: str = "</think>") -> str:
    """Streaming text for <think>-style dialects: nothing until reasoning is closed."""
    head = raw.lstrip()
    if not head or (open_tag.startswith(head) and not opened):
        return ""
    if head.startswith(open_tag) or opened:
        if close_tag not in raw:
            return ""
        raw = raw.split(close_tag, 1)[1]
    return visible_before(raw, markers).lstrip()

