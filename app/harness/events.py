"""Immutable events the loop yields. The CLI prints them, the GUI turns them into signals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.llm.base import Usage
from app.tools.base import LineSpan


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    question: str
    workspace: str
    model: str


@dataclass(frozen=True)
class PromptRendered:
    """The full prompt the model saw for one step (written to --trace as event 'prompt')."""

    step: int
    text: str
    tokens: int


@dataclass(frozen=True)
class ModelTextStreamed:
    step: int
    text: str


@dataclass(frozen=True)
class ModelTurnFinished:
    step: int
    raw: str
    usage: Usage


@dataclass(frozen=True)
class ToolCallProposed:
    step: int
    call_id: str
    name: str
    raw_arguments: str


@dataclass(frozen=True)
class ToolCallRefused:
    """Validation failed (unknown tool, bad JSON, bad arguments, repeated call)."""

    step: int
    call_id: str
    name: str
    raw_arguments: str
    message: str


@dataclass(frozen=True)
class ToolCallCompleted:
    step: int
    call_id: str
    name: str
    arguments: dict[str, Any]
    ok: bool
    content: str
    seconds: float
    spans: tuple[LineSpan, ...] = ()


@dataclass(frozen=True)
class ContextElided:
    """Older tool results were replaced by a marker to stay inside the context budget."""

    step: int
    elided_results: int
    tokens_freed: int


@dataclass(frozen=True)
class AnswerCompleted:
    text: str
    citations: tuple[LineSpan, ...]
    steps: int
    usage: Usage
    seconds: float
    evidence_added: bool = False  # citations came from evidence because the model cited none


@dataclass(frozen=True)
class RunStopped:
    """The run ended; reason is one of STOP_REASONS."""

    reason: str
    message: str = ""
    steps: int = 0
    usage: Usage = field(default_factory=Usage)


STOP_REASONS = ("answered", "step_budget", "repeated_call", "cancelled", "context_budget", "model_error")

RunEvent = (
    RunStarted
    | PromptRendered
    | ModelTextStreamed
    | ModelTurnFinished
    | ToolCallProposed
    | ToolCallRefused
    | ToolCallCompleted
    | ContextElided
    | AnswerCompleted
    | RunStopped
)
