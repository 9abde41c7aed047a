"""Qwen3-Coder / Qwen3.5 XML calls: <tool_call><function=name><parameter=x>v</parameter>..."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from app.llm.base import Message, ParsedToolCall, ToolSpec
from app.llm.dialects.template import TemplateDialect

_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_FUNCTION = re.compile(r"<function=([^>\n]+)>(.*?)(?:</function>|$)", re.DOTALL)
_PARAM = re.compile(r"<parameter=([^>\n]+)>\n?(.*?)\n?(?:</parameter>|(?=<parameter=)|$)", re.DOTALL)


def _value(text: str, declared: str | None) -> Any:
    """Parameter text as the schema declares it: strings stay strings, the rest is JSON."""
    if declared == "string":
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class QwenXmlDialect(TemplateDialect):
    name = "qwen3_coder"
    markers = ("<tool_call>", "<function=")

    def render(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (),
               add_generation_prompt: bool = True) -> str:
        # Parameter text carries no type, so parsing reads the schema of the tools offered.
        self._types = {t["function"]["name"]: {k: v.get("type") for k, v in
                       t["function"].get("parameters", {}).get("properties", {}).items()}
                       for t in tools if "function" in t}
        return super().render(messages, tools, add_generation_prompt)

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        calls = [self._call(name.strip(), body) for block in _CALL.findall(text)
                 for name, body in _FUNCTION.findall(block)]
        bare = text.split("<tool_call>", 1)[0]
        if not calls and "<function=" in bare:  # the opening <tool_call> is sometimes skipped
            calls = [self._call(n.strip(), b) for n, b in _FUNCTION.findall(bare)]
            bare = bare.split("<function=", 1)[0]
        return bare, calls

    def _call(self, name: str, body: str) -> ParsedToolCall:
        types = getattr(self, "_types", {}).get(name, {})
        arguments = {k.strip(): _value(v, types.get(k.strip())) for k, v in _PARAM.findall(body)}
        return ParsedToolCall(name=name, arguments=arguments,
                              raw_arguments=json.dumps(arguments, ensure_ascii=False))
