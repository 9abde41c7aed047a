"""The Dialect interface: how one family of models is prompted and how its tool calls are read.

A dialect renders OpenAI-style messages and tools into prompt text (with the model's own chat
template where it has one), parses raw output (special tokens kept) into a ParsedReply, tells the
streamer which part of the output is safe to show, and, for templates without tool support,
supplies a GBNF grammar that constrains the reply to one valid tool call or a final answer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from app.llm.base import Message, ParsedReply, ToolSpec


class Dialect(ABC):
    name: str = "base"
    supports_tools: bool = True  # the template renders tools natively

    def __init__(self, template: str | None, *, bos_token: str = "", eos_token: str = "") -> None:
        self.template = template
        self.bos_token = bos_token
        self.eos_token = eos_token

    @abstractmethod
    def render(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (),
               add_generation_prompt: bool = True) -> str:
        """The prompt text for these messages; every tool result appears in it."""

    @abstractmethod
    def parse(self, raw: str) -> ParsedReply:
        """Split raw model output (special tokens kept) into content, reasoning and tool calls."""

    def visible_text(self, raw_so_far: str) -> str:
        """The prefix of the answer text that is safe to show while streaming.

        Tool-call markup and reasoning never appear; a possible partial marker at the end is held
        back. Called with the growing raw text; must be monotonic (each result extends the last).
        """
        return self.parse(raw_so_far).content

    def grammar(self, tools: Sequence[ToolSpec], known_paths: Sequence[str] = (),
                force_answer: bool = False, require_tool: bool = False,
                messages: Sequence[Message] = ()) -> str | None:
        """GBNF constraining the reply, or None to let the model speak its native format."""
        return None

    def late_tool_prompt(self, tools: Sequence[ToolSpec]) -> str | None:
        """The tools as text the model reads at the end of a user message (TurnRequest.tools_late),
        in the words its template would use; None where the dialect has no such text."""
        return None

    def stop_strings(self) -> list[str]:
        """Text that ends a turn besides the model's end-of-generation token."""
        return []
