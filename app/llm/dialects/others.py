"""Granite 3.x `<|tool_call|>[...]`, DeepSeek-R1 `<｜tool▁call▁begin｜>`, LFM2 `[name(..)]`."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from app.llm.base import Message, ParsedToolCall, ToolSpec
from app.llm.dialects import prompts
from app.llm.dialects.markup import calls_from_json_text, parse_loose_arguments, visible_before
from app.llm.dialects.normalize import with_system_text
from app.llm.dialects.pycall import format_python_call, parse_python_calls
from app.llm.dialects.template import TemplateDialect


def _calls_as_text(msg: Message, render_calls) -> Message:
    """Templates that show only `content`: write the calls into it, as the model would."""
    if not msg.get("tool_calls"):
        return msg
    plain = {k: v for k, v in msg.items() if k != "tool_calls"}
    return {**plain, "content": msg["content"] + render_calls(msg["tool_calls"])}


def _json_list(calls: list[dict]) -> str:
    return json.dumps([{"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                       for c in calls], ensure_ascii=False)


class GraniteDialect(TemplateDialect):
    name = "granite"
    markers = ("<|tool_call|>",)

    def prepare(self, messages: list[Message], tools: Sequence[ToolSpec]) -> list[Message]:
        return [_calls_as_text(m, lambda calls: "<|tool_call|>" + _json_list(calls)) for m in messages]

    def visible_text(self, raw_so_far: str) -> str:
        # Granite's thinking mode wraps the answer in <response>...</response>.
        shown = super().visible_text(raw_so_far)
        if "<response>".startswith(shown):
            return ""
        shown = shown.removeprefix("<response>")
        return visible_before(shown, ("</response>",))

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        text = text.replace("<response>", "").replace("</response>", "")
        if "<|tool_call|>" not in text:
            return text, []
        before, body = text.split("<|tool_call|>", 1)
        body = self.clean(body)
        return before, calls_from_json_text(body)


_DS_CALL = re.compile(r"<｜tool▁call▁begin｜>(.*?)<｜tool▁sep｜>([^\n]*)\n(.*?)(?:<｜tool▁call▁end｜>|$)",
                      re.DOTALL)
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$")


class DeepSeekR1Dialect(TemplateDialect):
    """The R1 distill template renders calls and results but not the tool list: we add it."""

    name = "deepseek_r1"
    markers = ("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>")

    def prepare(self, messages: list[Message], tools: Sequence[ToolSpec]) -> list[Message]:
        # content None, not "", after calls: the template would otherwise open an empty turn
        out = [{**m, "content": None} if m.get("tool_calls") and not m["content"] else m
               for m in messages]
        return with_system_text(out, prompts.deepseek_tool_prompt(tools)) if tools else out

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        start = min((i for i in (text.find(m) for m in self.markers) if i >= 0), default=len(text))
        calls = []
        for _kind, name, body in _DS_CALL.findall(text[start:]):
            arguments, raw = parse_loose_arguments(_FENCE.sub("", body))
            calls.append(ParsedToolCall(name.strip(), arguments, raw))
        return text[:start], calls


class Lfm2Dialect(TemplateDialect):
    name = "lfm2"
    markers = ("<|tool_call_start|>",)

    def prepare(self, messages: list[Message], tools: Sequence[ToolSpec]) -> list[Message]:
        def as_text(calls: list[dict]) -> str:
            inner = ", ".join(format_python_call(c["function"]["name"], c["function"]["arguments"])
                              for c in calls)
            return f"<|tool_call_start|>[{inner}]<|tool_call_end|>"
        return [_calls_as_text(m, as_text) for m in messages]

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        before, *blocks = text.split("<|tool_call_start|>")
        calls, after = [], []
        for block in blocks:
            body, _, tail = block.partition("<|tool_call_end|>")
            calls.extend(parse_python_calls(body) or calls_from_json_text(body))
            after.append(tail)
        return before + "".join(after), calls


__all__ = ["GraniteDialect", "DeepSeekR1Dialect", "Lfm2Dialect", "parse_loose_arguments"]
