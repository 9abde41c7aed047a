"""Llama 3.x and its fine-tunes: Llama 3.1/3.2 JSON and <|python_tag|>, FireFunction v2
`functools[...]`, Functionary v3.2 `>>>name\\n{json}`."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from app.llm.base import Message, ParsedToolCall, ToolSpec
from app.llm.dialects.markup import (
    calls_from_json_text,
    parse_loose_arguments,
    visible_after_think,
    visible_before,
)
from app.llm.dialects.normalize import one_call_per_message
from app.llm.dialects.pycall import parse_python_calls
from app.llm.dialects.template import TemplateDialect

_JSON_CALL = re.compile(r'\{\s*"(?:name|type|function)"\s*:')
_PARTIAL_KEY = ('"name"', '"type"', '"function"')


def _partial_call_start(tail: str) -> bool:
    """Whether tail (from a '{') could still grow into the start of a JSON call."""
    rest = tail[1:].lstrip()
    return not rest or any(k.startswith(rest) or rest.startswith(k) and not rest[len(k):].strip(" :")
                           for k in _PARTIAL_KEY)


class Llama3Dialect(TemplateDialect):
    name = "llama3"
    markers = ("<|python_tag|>",)

    def prepare(self, messages: list[Message], tools: Sequence[ToolSpec]) -> list[Message]:
        return one_call_per_message(messages)  # the template raises on several calls per turn

    def template_variables(self, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        return {"date_string": self._moment.strftime("%d %b %Y")}

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        if "<|python_tag|>" in text:
            before, code = text.split("<|python_tag|>", 1)
            code = self.clean(code)
            calls = calls_from_json_text(code) or parse_python_calls(code)
            return before, calls or [ParsedToolCall("python", {"code": code}, json.dumps({"code": code}))]
        match = _JSON_CALL.search(text)
        if not match:
            return text, []
        body = self.clean(text[match.start():])
        calls = calls_from_json_text(body)
        return (text[:match.start()], calls) if calls else (text, [])

    def visible_text(self, raw_so_far: str) -> str:
        shown = super().visible_text(raw_so_far)
        match = _JSON_CALL.search(shown)
        if match:
            return shown[:match.start()]
        brace = shown.rfind("{")
        return shown[:brace] if brace >= 0 and _partial_call_start(shown[brace:]) else shown


class FireFunctionDialect(TemplateDialect):
    name = "firefunction"
    markers = ("functools[",)

    def template_variables(self, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        # This template reads `functions` (a JSON string) and `datetime`, not `tools`.
        specs = [t.get("function", t) for t in tools]
        return {"functions": json.dumps(specs, ensure_ascii=False, indent=4),
                "datetime": self._moment.strftime("%Y-%m-%d %H:%M")}

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        if "functools" not in text:
            return text, []
        before, body = text.split("functools", 1)
        body = self.clean(body)
        return before, calls_from_json_text(body)


_RECIPIENT = re.compile(r"([A-Za-z_][\w.-]*)\n")  # a recipient line: a name, then a newline
_NAME_SO_FAR = re.compile(r"[A-Za-z_][\w.-]*")


def _recipient_line(segment: str) -> tuple[str, str] | None:
    """(recipient, body) when the text right after the prompt's '>>>' addresses someone.

    As llama.cpp reads it: `all` (an answer), `python` (code), or a name whose body is JSON;
    anything else is text the model wrote without a recipient, i.e. content.
    """
    match = _RECIPIENT.match(segment)
    if not match:
        return None
    name, body = match.group(1), segment[match.end():]
    if name in ("all", "python") or not body.strip() or body.lstrip().startswith("{"):
        return name, body
    return None


def _undecided(segment: str) -> bool:
    """Whether streamed text may still turn into a recipient line (hold it back until then)."""
    match = _RECIPIENT.match(segment)
    if match:
        return not segment[match.end():].strip() and match.group(1) not in ("all", "python")
    return not segment or _NAME_SO_FAR.fullmatch(segment) is not None


class FunctionaryDialect(TemplateDialect):
    """Functionary v3.2: the prompt ends with '>>>', so output starts with a recipient line;
    text without one (after reasoning, say) is content, and only `>>>name` starts a call."""

    name = "functionary"
    markers = (">>>",)
    arguments_as_string = True  # its template concatenates the arguments string

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        first, *rest = text.lstrip().removeprefix(">>>").split(">>>")
        opening = _recipient_line(first)
        content = [] if opening else [first]
        segments = ([opening] if opening else []) + [s.partition("\n")[::2] for s in rest]
        calls = []
        for recipient, body in segments:
            recipient, body = recipient.strip(), self.clean(body)
            if recipient in ("all", ""):
                content.append(body)
            else:
                arguments, raw = parse_loose_arguments(body)
                calls.append(ParsedToolCall(name=recipient, arguments=arguments, raw_arguments=raw))
        return "\n".join(content), calls

    def visible_text(self, raw_so_far: str) -> str:
        tags = self.reasoning_tags(raw_so_far)
        text = visible_after_think(raw_so_far, self.opens_reasoning, (), *tags)
        first = text.removeprefix(">>>")
        if _undecided(first):
            return ""
        opening = _recipient_line(first)
        if opening and opening[0] != "all":
            return ""
        body = opening[1] if opening else first
        return visible_before(body, self.markers + self.end_markers).lstrip()
