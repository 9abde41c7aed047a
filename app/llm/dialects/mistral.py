"""Mistral: `[TOOL_CALLS][{...}]` (Nemo) and `[TOOL_CALLS]name[CALL_ID]id[ARGS]{...}` (Devstral,
Small 3.2). Templates demand 9-character alphanumeric call ids and strict role alternation."""

from __future__ import annotations

from collections.abc import Sequence

from app.llm.base import Message, ParsedToolCall, ToolSpec
from app.llm.dialects.markup import calls_from_json_text, decode_json_at, parse_loose_arguments
from app.llm.dialects.normalize import strictly_alternating, with_mistral_ids
from app.llm.dialects.template import TemplateDialect


def _named_call(segment: str) -> ParsedToolCall | None:
    head, _, args = segment.partition("[ARGS]")
    name, _, call_id = head.partition("[CALL_ID]")
    if not name.strip():
        return None
    decoded = decode_json_at(args, 0)
    if decoded and isinstance(decoded[0], dict):
        return ParsedToolCall(name.strip(), decoded[0], args[:decoded[1]].strip(), call_id.strip())
    arguments, raw = parse_loose_arguments(args)
    return ParsedToolCall(name.strip(), arguments, raw, call_id.strip())


def _list_calls(segment: str) -> list[ParsedToolCall]:
    return calls_from_json_text(segment)


class MistralDialect(TemplateDialect):
    name = "mistral"
    markers = ("[TOOL_CALLS]",)
    think_tags = ("[THINK]", "[/THINK]")
    other_think_tags = (("<think>", "</think>"),)  # Magistral 2506 and fine-tunes: plain text

    def prepare(self, messages: list[Message], tools: Sequence[ToolSpec]) -> list[Message]:
        return strictly_alternating(with_mistral_ids(messages))

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        before, *segments = text.split("[TOOL_CALLS]")
        calls: list[ParsedToolCall] = []
        for segment in (self.clean(s) for s in segments):
            if segment.startswith(("[", "{")):
                calls.extend(_list_calls(segment))
            elif (call := _named_call(segment)) is not None:
                calls.append(call)
        return before, calls
