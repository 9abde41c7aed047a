"""Gemma 4: `<|tool_call>call:name{key:<|"|>text<|"|>,n:1}<tool_call|>`, thinking channel."""

from __future__ import annotations

import json
from typing import Any

from app.llm.base import ParsedReply, ParsedToolCall
from app.llm.dialects.template import TemplateDialect

_QUOTE = '<|"|>'
_OPEN, _CLOSE = "<|tool_call>", "<tool_call|>"


class _ArgReader:
    """Reads Gemma's argument syntax: unquoted keys, <|"|>-quoted strings, JSON-like scalars."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def value(self) -> Any:
        t = self.text
        if t.startswith(_QUOTE, self.pos):
            end = t.find(_QUOTE, self.pos + len(_QUOTE))
            end = len(t) if end < 0 else end
            start, self.pos = self.pos + len(_QUOTE), min(len(t), end + len(_QUOTE))
            return t[start:end]
        if t.startswith("{", self.pos):
            return self.mapping()
        if t.startswith("[", self.pos):
            return self.sequence()
        return self.scalar()

    def mapping(self) -> dict[str, Any]:
        self.pos += 1
        out: dict[str, Any] = {}
        while self.pos < len(self.text) and self.text[self.pos] != "}":
            colon = self.text.find(":", self.pos)
            if colon < 0:
                break
            key = self.text[self.pos:colon].strip().replace(_QUOTE, "")
            self.pos = colon + 1
            out[key] = self.value()
            self.pos += self.text[self.pos:self.pos + 1] == ","
        self.pos += 1
        return out

    def sequence(self) -> list[Any]:
        self.pos += 1
        out = []
        while self.pos < len(self.text) and self.text[self.pos] != "]":
            out.append(self.value())
            self.pos += self.text[self.pos:self.pos + 1] == ","
        self.pos += 1
        return out

    def scalar(self) -> Any:
        end = self.pos
        while end < len(self.text) and self.text[end] not in ",}]":
            end += 1
        word, self.pos = self.text[self.pos:end].strip(), end
        try:
            return json.loads(word)
        except json.JSONDecodeError:
            return word


def _gemma_call(block: str) -> ParsedToolCall | None:
    body = block.split(_CLOSE, 1)[0].strip().removeprefix("call:")
    brace = body.find("{")
    name = (body[:brace] if brace >= 0 else body).strip()
    if not name:
        return None
    arguments = _ArgReader(body[brace:]).mapping() if brace >= 0 else {}
    return ParsedToolCall(name, arguments, json.dumps(arguments, ensure_ascii=False))


class Gemma4Dialect(TemplateDialect):
    name = "gemma4"
    markers = (_OPEN,)
    think_tags = ("<|channel>", "<channel|>")
    end_markers = TemplateDialect.end_markers + ("<|tool_response>",)

    def parse(self, raw: str) -> ParsedReply:
        reply = super().parse(raw)
        reasoning = reply.reasoning.removeprefix("thought").strip()  # the channel's name
        return ParsedReply(reply.content, reply.tool_calls, reasoning)

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        before, *blocks = text.split(_OPEN)
        calls = [c for c in (_gemma_call(b) for b in blocks) if c is not None]
        return before, calls
