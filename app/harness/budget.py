"""The context budget: keep the conversation inside the model's window by eliding old tool results.

Near the budget the oldest tool results are replaced by a short marker (the model can call the tool
again), then the newest ones are cut to fit. Only if the question and the first prompt alone do not
fit does the run stop with reason context_budget: a run never fails on a full context.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.harness import prompts
from app.llm.base import Message, ToolSpec

MESSAGE_OVERHEAD_TOKENS = 8  # role markers and separators a chat template adds around each message
MIN_KEPT_RESULT_CHARS = 200
CUT_MARGIN_TOKENS = 48  # room for the cut note itself


@dataclass(frozen=True)
class FitResult:
    messages: tuple[Message, ...]
    tokens: int
    fits: bool
    elided_results: int = 0
    tokens_freed: int = 0


@dataclass
class ContextBudget:
    """Counts tokens (cached per text) and fits a conversation into limit_tokens."""

    count_tokens: Callable[[str], int]
    limit_tokens: int
    correction: int = 0  # measured: the real prompt minus our estimate, from the last turn
    elided_ids: set[str] = field(default_factory=set)  # tool results already replaced by a marker
    _cache: dict[str, int] = field(default_factory=dict, repr=False)

    def tokens(self, text: str) -> int:
        if text not in self._cache:
            self._cache[text] = self.count_tokens(text) if text else 0
        return self._cache[text]

    def measure(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> int:
        total = self.tokens(json.dumps(list(tools))) if tools else 0
        for m in messages:
            total += MESSAGE_OVERHEAD_TOKENS + self.tokens(_text_of(m))
        return total + self.correction

    def calibrate(self, estimated: int, actual: int) -> None:
        """Learn how far our estimate is from the prompt the model really got."""
        if actual > 0:
            self.correction = max(0, self.correction + actual - estimated)

    def fit(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> FitResult:
        current = list(messages)
        before = self.measure(current, tools)
        if before <= self.limit_tokens:
            return FitResult(tuple(current), before, True)
        elided = 0
        for index in _tool_result_indexes(current)[:-1]:  # oldest first, newest kept for now
            if self.measure(current, tools) <= self.limit_tokens:
                break
            if current[index].get("tool_call_id") not in self.elided_ids:
                current[index] = self._elide(current[index])
                elided += 1
        for index in reversed(_tool_result_indexes(current)):
            over = self.measure(current, tools) - self.limit_tokens
            if over <= 0:
                break
            current[index] = self._shrink(current[index], over)
            elided += 1
        after = self.measure(current, tools)
        return FitResult(tuple(current), after, after <= self.limit_tokens, elided, max(0, before - after))

    def _elide(self, message: Message) -> Message:
        self.elided_ids.add(str(message.get("tool_call_id")))
        content = str(message.get("content") or "")
        marker = prompts.ELIDED_RESULT.format(chars=len(content), name=message.get("name", "a tool"))
        return {**message, "content": marker}

    def _shrink(self, message: Message, over_tokens: int) -> Message:
        """Cut a tool result by about over_tokens (plus a margin), or elide it if little would stay."""
        content = message.get("content") or ""
        ratio = len(content) / max(1, self.tokens(content))
        keep = int((self.tokens(content) - over_tokens - CUT_MARGIN_TOKENS) * ratio * 0.9)
        if keep < MIN_KEPT_RESULT_CHARS:
            return self._elide(message)
        note = prompts.TRUNCATED_RESULT.format(cut=len(content) - keep, total=len(content))
        return {**message, "content": content[:keep] + note}


def _text_of(message: Message) -> str:
    text = str(message.get("content") or "")
    calls = message.get("tool_calls")
    return text + json.dumps(calls) if calls else text


def _tool_result_indexes(messages: Sequence[Message]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.get("role") == "tool"]

