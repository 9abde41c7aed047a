"""GPT-OSS harmony: channels (analysis, commentary, final) and `to=functions.name` calls."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.llm.base import Message, ParsedReply, ParsedToolCall, ToolSpec
from app.llm.dialects.markup import hold_back, parse_loose_arguments
from app.llm.dialects.normalize import one_call_per_message
from app.llm.dialects.template import TemplateDialect

_MESSAGE_END = re.compile(r"<\|(?:end|call|return)\|>")
_RECIPIENT = re.compile(r"to=functions\.([^\s<]+)")
_CHANNEL = re.compile(r"<\|channel\|>\s*(\w+)")


def _recipient_lead(lead: str, arriving: bool) -> bool:
    """Whether text before the first special token opens the first message's header.

    The prompt ends with `<|start|>assistant`, so a call may go on with ` to=functions.x`
    before its channel (the order the gpt-oss template renders calls in). While streaming,
    text that may still grow into `to=` is held back too.
    """
    head = lead.lstrip()
    return head.startswith("to=") or (arriving and bool(head) and "to=".startswith(head))


def _messages(raw: str, streaming: bool = False) -> list[tuple[str, str, bool]]:
    """(header, body, complete) per harmony message; a missing end marker is forgiven.

    Text before the first special token (a model that skipped the header) counts as answer
    text unless it names a recipient; a header still arriving is left out until its
    <|message|> shows what it is.
    """
    out = []
    lead_end = raw.find("<|")
    lead = raw if lead_end < 0 else raw[:lead_end]
    if _recipient_lead(lead, streaming and lead_end < 0):
        raw, lead = "<|start|>assistant" + raw, ""
    if lead.strip():
        out.append(("", lead if lead_end >= 0 else hold_back(lead, ("<|",)), lead_end >= 0))
    for chunk in raw[len(lead):].split("<|start|>"):
        header, found, body = chunk.partition("<|message|>")
        if found:
            end = _MESSAGE_END.search(body)
            out.append((header, body[:end.start()] if end else body, end is not None))
    return out


def _shown(header: str) -> bool:
    """Answer text: the final channel, or a commentary preamble addressed to no tool."""
    channel = _CHANNEL.search(header)
    return not _RECIPIENT.search(header) and not (channel and channel.group(1) == "analysis")


def _thinking_field(msg: Message) -> Message:
    """The template wants reasoning in `thinking` and refuses channel tags in content."""
    thinking = msg.get("thinking") or msg.get("reasoning_content") or msg.get("reasoning")
    plain = {k: v for k, v in msg.items() if k not in ("reasoning_content", "reasoning")}
    if msg.get("role") == "assistant" and thinking:
        plain["thinking"] = thinking
        if msg.get("tool_calls"):
            plain["content"] = ""
    return plain


class HarmonyDialect(TemplateDialect):
    name = "harmony"
    markers = ("<|channel|>", "<|start|>")

    def prepare(self, messages: list[Message], tools: Sequence[ToolSpec]) -> list[Message]:
        return [_thinking_field(m) for m in one_call_per_message(messages)]

    def parse(self, raw: str) -> ParsedReply:
        content, reasoning, calls = [], [], []
        for header, body, _ in _messages(raw):
            recipient = _RECIPIENT.search(header)
            if recipient:
                arguments, raw_args = parse_loose_arguments(body)
                calls.append(ParsedToolCall(recipient.group(1), arguments, raw_args))
            elif _shown(header):
                content.append(body)
            else:
                reasoning.append(body.strip())
        return ParsedReply(self.clean("".join(content)), tuple(calls), "\n".join(reasoning))

    def visible_text(self, raw_so_far: str) -> str:
        shown = [body if complete else hold_back(body, ("<|end|>", "<|return|>", "<|call|>"))
                 for header, body, complete in _messages(raw_so_far, streaming=True)
                 if _shown(header)]
        return "".join(shown).lstrip()
