"""What the harness knows of a model: the ChatModel protocol and the values that cross it.

Messages and tools are OpenAI-style dicts (the format chat templates expect); everything the
backend hands back is a frozen dataclass.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from app.values import Message, ToolSpec

__all__ = ["ChatModel", "Message", "ModelEvent", "ModelInfo", "ParsedReply", "ParsedToolCall", "PrefixWarm",
           "TextDelta", "ToolSpec", "TurnCompleted", "TurnEnd", "TurnRequest", "Usage"]


@dataclass(frozen=True)
class ParsedToolCall:
    """One tool call read out of the model's raw output."""

    name: str
    arguments: dict[str, Any]  # parsed; {} when the model's JSON did not parse
    raw_arguments: str  # exactly what the model wrote (validated by the harness)
    id: str = ""  # the model's id when its dialect has one; the harness assigns one otherwise


@dataclass(frozen=True)
class ParsedReply:
    """A model turn split into answer text, reasoning and tool calls."""

    content: str
    tool_calls: tuple[ParsedToolCall, ...] = ()
    reasoning: str = ""


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0  # tokens evaluated for this prompt (new work)
    cached_tokens: int = 0  # prompt tokens reused from the KV cache
    completion_tokens: int = 0
    seconds: float = 0.0
    first_token_seconds: float = 0.0  # from request to the first generated token

    @property
    def prompt_total(self) -> int:
        return self.prompt_tokens + self.cached_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.cached_tokens + other.cached_tokens,
            self.completion_tokens + other.completion_tokens,
            self.seconds + other.seconds,
            self.first_token_seconds + other.first_token_seconds,
        )


@dataclass(frozen=True)
class TurnRequest:
    """One call of the model: the conversation so far and what it may do next."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    known_paths: tuple[str, ...] = ()  # workspace paths a path argument may take (generic dialect grammar)
    force_answer: bool = False  # no tool calls allowed in this turn
    require_tool: bool = False  # this turn must be a tool call (like tool_choice="required")
    max_tokens: int = 768
    temperature: float = 0.2
    seed: int | None = None  # None: the settings' seed
    # the tools are described at the end of the last user message instead of where the template puts
    # them (its system turn), so a backend that caches the prompt keeps all it evaluated before them
    # (the second stage: only the note and the tools are new). Backends that cannot ignore it.
    tools_late: bool = False


@dataclass(frozen=True)
class TextDelta:
    """Visible answer text as it streams (tool-call markup and reasoning never appear here)."""

    text: str


class TurnEnd(str, Enum):
    """Why a model turn ended."""

    STOP = "stop"  # end-of-generation token or a stop string
    LENGTH = "length"  # max_tokens reached
    CANCELLED = "cancelled"  # the caller's cancel event was set
    CONTEXT_FULL = "context_full"  # the prompt (or prompt + reply) does not fit the context
    REPEATED_TEXT = "repeated_text"  # the harness cut a reply that began repeating itself
    FAILED = "failed"  # the backend could not finish the turn (a server dropped, garbage reply)


@dataclass(frozen=True)
class TurnCompleted:
    raw: str  # the model's output with special tokens kept
    reply: ParsedReply
    usage: Usage
    prompt: str  # the full prompt text the model saw for this turn
    stop_reason: TurnEnd = TurnEnd.STOP
    # each generated token's text and log-probability, where the backend knows them (in-process)
    token_logprobs: tuple[tuple[str, float], ...] = ()


ModelEvent = (
    TextDelta
    | TurnCompleted
)


@dataclass(frozen=True)
class ModelInfo:
    """What we know of a GGUF file from its header alone."""

    path: str
    name: str
    size_bytes: int
    architecture: str = ""
    parameters: str = ""  # e.g. "135M"
    quantization: str = ""  # e.g. "Q4_1"
    context_length: int = 0
    chat_template: str | None = None
    dialect: str = ""
    source: str = ""  # default | catalog | user | lmstudio | gpt4all | jan | huggingface | ollama
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def size_text(self) -> str:
        return model_size_text(self.size_bytes)


def model_size_text(n: int) -> str:
    """A model file's size in decimal units, as file managers show it: the picker and `models`
    both use this, so one file has one size everywhere."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


@dataclass(frozen=True)
class PrefixWarm:
    """What warming a shared prompt prefix did."""

    tokens: int = 0  # prefix length in tokens (0: the model keeps no prefix)
    evaluated: int = 0  # tokens evaluated now (0 when it was cached in memory or on disk)
    loaded: bool = False  # the prefix's state came from disk
    seconds: float = 0.0


@runtime_checkable
class ChatModel(Protocol):
    """A loaded model the harness can talk to."""

    @property
    def name(self) -> str: ...

    @property
    def dialect_name(self) -> str: ...

    @property
    def native_tool_calls(self) -> bool:
        """The model was trained to call tools in its template's own format (it gets tool schemas
        and may call freely); False for a model prompted through the generic fallback, which only
        calls under a grammar and answers best right after its first good read."""
        ...

    @property
    def context_length(self) -> int: ...

    def count_tokens(self, text: str) -> int: ...

    def generate(self, request: TurnRequest, cancel: threading.Event | None = None) -> Iterator[ModelEvent]:
        """Stream one turn: TextDelta events, then exactly one TurnCompleted (also when cancelled)."""
        ...

    def warm(self, messages: Sequence[Message], tools: Sequence[ToolSpec], scope: str = "") -> PrefixWarm:
        """Make the prompt prefix that `messages` (the shared system turn, then optionally a user
        message that is the opening of the question's own: the workspace layout) and `tools` render
        to ready, so the next turn evaluates only what follows it. `scope` (the workspace) keys a
        kept state that changes with that opening. A no-op where nothing is cached."""
        ...
