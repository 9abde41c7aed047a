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
        calls = calls_from_json_text(body) or calls_from_json_text(body + "}")  # cut-off brace
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
        for candidate in (body, body + "]", body + "}]", body + "}}]"):
            calls = calls_from_json_text(candidate)
            if calls:
                return before, calls
        return before, []


class FunctionaryDialect(TemplateDialect):
    """Functionary v3.2: the prompt ends with '>>>', so output starts with a recipient line."""

    name = "functionary"
    markers = (">>>",)
    arguments_as_string = True  # its template concatenates the arguments string

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        content, calls = [], []
        for segment in (text if text.lstrip().startswith(">>>") else ">>>" + text).split(">>>")[1:]:
            recipient, _, body = segment.partition("\n")
            recipient, body = recipient.strip(), self.clean(body)
            if recipient in ("all", ""):
                content.append(body)
            else:
                arguments, raw = parse_loose_arguments(body)
                calls.append(ParsedToolCall(name=recipient, arguments=arguments, raw_arguments=raw))
        return "\n".join(content), calls

    def visible_text(self, raw_so_far: str) -> str:
        body = raw_so_far.lstrip().removeprefix(">>>")
        if not body.startswith("all\n"):
            return ""
        return visible_before(body[4:], self.markers + self.end_markers).lstrip()
