"""A scripted ChatModel for the harness's unit tests: a queue of replies, and a record of requests.

Only loop plumbing is tested with it; real behaviour is tested with the real GGUF.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence

from app.llm.base import (
    Message,
    ModelEvent,
    ParsedReply,
    PrefixWarm,
    TextDelta,
    ToolSpec,
    TurnCompleted,
    TurnEnd,
    TurnRequest,
    Usage,
)
from app.llm.dialects.base import Dialect


class ScriptedModel:
    """Replies, in order, with what it was given; fails loudly when the script runs out.

    A str reply is raw model output: with a dialect it is parsed by that dialect (so a test can
    script real tool-call markup); without one it is a plain answer. A ParsedReply is used as is.
    A TurnEnd ends that turn with nothing said, for that reason (e.g. CONTEXT_FULL, as the real
    backend reports a prompt that does not fit). `logprobs[i]`, where given, are reply i's tokens
    with their log-probabilities, as the in-process backend reports them.
    """

    def __init__(self, replies: Sequence[str | ParsedReply | TurnEnd], dialect: Dialect | None = None,
                 name: str = "scripted", context_length: int = 8192, chunk_chars: int = 8,
                 logprobs: Sequence[Sequence[tuple[str, float]]] = ()) -> None:
        self._replies = list(replies)
        self._logprobs = [tuple(map(tuple, t)) for t in logprobs]
        self._dialect = dialect
        self._name = name
        self._context_length = context_length
        self._chunk = max(1, chunk_chars)
        self.requests: list[TurnRequest] = []
        self.prompts: list[str] = []  # rendered prompt of each request (with a dialect)
        self.warmed: list[tuple[tuple[Message, ...], tuple[ToolSpec, ...]]] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def dialect_name(self) -> str:
        return self._dialect.name if self._dialect else "scripted"

    @property
    def native_tool_calls(self) -> bool:
        return self._dialect.supports_tools if self._dialect else True

    @property
    def context_length(self) -> int:
        return self._context_length

    @property
    def remaining(self) -> int:
        return len(self._replies) - len(self.requests)

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4) if text else 0  # roughly a real tokenizer's ratio

    def render(self, request: TurnRequest) -> str:
        """The prompt text a real model with this dialect would see (JSON lines without one)."""
        if self._dialect is not None:
            return self._dialect.render(list(request.messages), list(request.tools))
        import json

        return "\n".join(json.dumps(m, ensure_ascii=False, sort_keys=True) for m in request.messages)

    def warm(self, messages: Sequence[Message], tools: Sequence[ToolSpec], scope: str = "") -> PrefixWarm:
        self.warmed.append((tuple(messages), tuple(tools)))
        return PrefixWarm()

    def generate(self, request: TurnRequest, cancel: threading.Event | None = None) -> Iterator[ModelEvent]:
        index = len(self.requests)
        if index >= len(self._replies):
            raise AssertionError(f"ScriptedModel was asked for reply {index + 1} but has only "
                                 f"{len(self._replies)}; last request: {request.messages[-1:]}")
        self.requests.append(request)
        prompt = self.render(request)
        self.prompts.append(prompt)
        item = self._replies[index]
        if isinstance(item, TurnEnd):
            yield TurnCompleted("", ParsedReply(""), self._usage(prompt, 0), prompt, item)
            return
        raw, reply = self._reply(item)
        yield from self._stream(raw, reply, prompt, request, cancel)

    def _reply(self, item: str | ParsedReply) -> tuple[str, ParsedReply]:
        if isinstance(item, ParsedReply):
            return item.content, item
        reply = self._dialect.parse(item) if self._dialect else ParsedReply(item)
        return item, reply

    def _stream(self, raw: str, reply: ParsedReply, prompt: str, request: TurnRequest,
                cancel: threading.Event | None) -> Iterator[ModelEvent]:
        text, shown = reply.content, 0
        while shown < len(text):
            if cancel is not None and cancel.is_set():
                partial = ParsedReply(text[:shown])
                yield TurnCompleted(text[:shown], partial, self._usage(prompt, shown), prompt,
                                    TurnEnd.CANCELLED)
                return
            yield TextDelta(text[shown:shown + self._chunk])
            shown += self._chunk
        index = len(self.requests) - 1
        tokens = self._logprobs[index] if index < len(self._logprobs) else ()
        yield TurnCompleted(raw, reply, self._usage(prompt, len(raw)), prompt, TurnEnd.STOP, tokens)

    def _usage(self, prompt: str, generated_chars: int) -> Usage:
        return Usage(prompt_tokens=self.count_tokens(prompt),
                     completion_tokens=max(0, generated_chars // 4))

    def assert_all_used(self) -> None:
        if self.remaining:
            raise AssertionError(f"ScriptedModel: {self.remaining} scripted replies were never asked for")
