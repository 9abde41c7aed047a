"""Immutable events the loop yields. The CLI prints them, the GUI turns them into signals."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from app.harness.certainty import Certainty
from app.harness.grounding import PathLink
from app.harness.verdict import ShownLine, Support
from app.llm.base import Usage
from app.values import LineSpan, Message
from app.workspace import SkippedFolder


class StopReason(str, Enum):
    """Why a run ended; the user-facing words for each are in prompts.STOP_MESSAGES."""

    ANSWERED = "answered"
    STEP_BUDGET = "step_budget"
    REPEATED_CALL = "repeated_call"
    CANCELLED = "cancelled"
    CONTEXT_BUDGET = "context_budget"
    MODEL_ERROR = "model_error"
    NO_ANSWER = "no_answer"  # asked to answer in words, the model wrote a tool call again, or nothing


@dataclass(frozen=True)
class IndexProgress:
    """The code index is being brought up to date before a question (files done of files to do).
    With `waiting`, another process is building it: this one waits, and those are its figures."""

    done: int
    total: int
    waiting: bool = False


@dataclass(frozen=True)
class IndexReady:
    """The code index is up to date: what it holds and what this refresh did."""

    files: int
    chunks: int
    changed: int
    removed: int
    seconds: float
    skipped: tuple[tuple[str, int], ...] = ()  # (reason, files and folders): keys of index SKIP_WORDS
    skipped_folders: tuple[SkippedFolder, ...] = ()  # folders left out whole, named


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    question: str
    workspace: str
    model: str
    chat_id: str = ""  # the chat this question continues ("" for a new chat: the run is its first)


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
    evidence_added: bool = False  # some citations are lines Burrow matched, not the model's own
    support: Support = Support.NOT_BACKED
    unverified: tuple[str, ...] = ()  # files and symbols named in the answer the workspace lacks
    notes: str = ""  # the end of `text` the harness wrote (sources, unverified names, no source)
    transcript: tuple[Message, ...] = ()  # this question's messages, to continue the chat from
    backing: tuple[ShownLine, ...] = ()  # backed: the lines that state the answer's claim
    closest: tuple[ShownLine, ...] = ()  # short of backed: the nearest lines Burrow found
    found: tuple[str, ...] = ()  # the answer's claims found in those lines
    missing: tuple[str, ...] = ()  # its claims found nowhere
    links: tuple[PathLink, ...] = ()  # workspace files the answer's text names, to link
    token_logprobs: tuple[tuple[str, float], ...] = ()  # the answer's tokens and log-probabilities
    doubt: Certainty | None = None  # the key claim the model was unsure of, under a verdict short of backed
    # "what calls X": the callers the index found that the answer does not name (each the call's
    # line and the caller's name); such an answer is at most partly backed
    left_out: tuple[ShownLine, ...] = ()

    @property
    def answer(self) -> str:
        """The model's answer alone, without the notes the harness appended."""
        notes = self.notes.strip()
        if notes and self.text.rstrip().endswith(notes):
            return self.text.rstrip()[: -len(notes)].rstrip()
        return self.text


@dataclass(frozen=True)
class AnswerSampled:
    """Other answers the model gave to the first prompt, sampled after the answer (answer_samples):
    whether it says the same again is a sign of how sure it is."""

    step: int
    samples: tuple[str, ...]
    seconds: float


@dataclass(frozen=True)
class SecondStageStarted:
    """The first answer was not backed (or said the lines do not show it): the model is offered the
    tools with a note of what is missing. The first answer stands unless a better-backed one comes."""

    step: int
    first_answer: str  # the model's words
    support: Support
    note: str  # what the model was told is missing
    seconds: float  # since the run started


@dataclass(frozen=True)
class RunStopped:
    """The run ended, for a named reason."""

    reason: StopReason
    message: str = ""
    steps: int = 0
    usage: Usage = field(default_factory=Usage)


RunEvent = (
    IndexProgress
    | IndexReady
    | RunStarted
    | PromptRendered
    | ModelTextStreamed
    | ModelTurnFinished
    | ToolCallProposed
    | ToolCallRefused
    | ToolCallCompleted
    | ContextElided
    | AnswerCompleted
    | AnswerSampled
    | SecondStageStarted
    | RunStopped
)
