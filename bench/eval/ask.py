"""The eval's one call into the harness: ask a question about a code base, get typed facts back.

Everything the eval knows about the harness (how a run is wired, which events carry what) is in
this module (it goes through app.harness.session.Session, like the CLI and the window).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Cited:
    path: str
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.path}:{self.start}-{self.end}"


@dataclass(frozen=True)
class Asked:
    """What one question produced: the model's text, kept citations and the run's costs."""

    text: str  # the answer without the harness's appended "Sources:" line
    citations: tuple[Cited, ...]
    evidence_added: bool  # citations are the harness's evidence because the model cited none
    stop_reason: str
    seconds: float
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    support: str = "not_backed"  # backed | partly_backed | not_backed, as the harness judged it
    unverified: tuple[str, ...] = ()  # names in the answer the harness found nowhere
    token_logprobs: tuple[tuple[str, float], ...] = ()  # the answer turn's tokens (in-process models)
    samples: tuple[str, ...] = ()  # other answers sampled from the first prompt (answer_samples)
    sample_seconds: float = 0.0
    # the second stage: the first answer it started from (None when it did not start)
    first_text: str | None = None
    first_support: str = ""
    first_seconds: float = 0.0
    # the calls the model chose (step > 0, not the harness's opening reads) as (step, tool, raw
    # arguments), so a replay can make them again
    tool_calls: tuple[tuple[int, str, str], ...] = ()

    @property
    def model_tool_calls(self) -> int:
        return len(self.tool_calls)


def ask(question: str, root: Path, model: Any, settings: Any) -> Asked:
    """Ask one question about the code base at root through the real harness (a Session), from a
    cold cache: the shared prompt prefix comes from its saved state, as after a fresh start."""
    return ask_chat((question,), root, model, settings)[0]


def ask_chat(questions: tuple[str, ...], root: Path, model: Any, settings: Any) -> list[Asked]:
    """Ask questions one after another in one chat, as a user types a follow-up ("who calls
    it?") after an answer: each later question has the earlier turns in its history. An in-process
    model's cache is reset once, before the first; a follow-up reuses what the chat left in it."""
    from app.harness.records import ChatSoFar
    from app.harness.session import Session

    if hasattr(model, "reset"):  # a server model keeps (or not) its own cache
        model.reset()  # each chat starts as a fresh `ask` would
    asked: list[Asked] = []
    chat: ChatSoFar | None = None
    with Session.open(root, model, settings) as session:
        for question in questions:
            started = time.perf_counter()
            events = list(session.ask(question, chat=chat))
            asked.append(_asked(events, time.perf_counter() - started))
            chat = chat_after(chat, events)
    return asked


def chat_after(chat: Any, events: list[Any]) -> Any:
    """The chat a follow-up continues: `chat` (None before the first question) with this run's
    question, calls and answer added; unchanged when the run gave no answer."""
    from app.harness import events as ev
    from app.harness.records import ChatSoFar

    begun = next((e for e in events if isinstance(e, ev.RunStarted)), None)
    answer = next((e for e in events if isinstance(e, ev.AnswerCompleted)), None)
    if begun is None or answer is None:
        return chat
    return ChatSoFar(begun.chat_id, (chat.history if chat else ()) + answer.transcript)


def _asked(events: list[Any], seconds: float) -> Asked:
    from app.harness import events as ev

    answer = next((e for e in events if isinstance(e, ev.AnswerCompleted)), None)
    sampled = next((e for e in events if isinstance(e, ev.AnswerSampled)), None)
    looked = next((e for e in events if isinstance(e, ev.SecondStageStarted)), None)
    stopped = events[-1]
    calls = tuple((e.step, e.name, e.raw_arguments) for e in events
                  if isinstance(e, ev.ToolCallProposed) and e.step > 0)  # the model's own, not the opening reads
    text = answer.answer.strip() if answer else ""
    return Asked(
        text=text,
        citations=tuple(Cited(c.path, c.start_line, c.end_line) for c in
                        (answer.citations if answer else ())),
        evidence_added=bool(answer and answer.evidence_added),
        stop_reason=stopped.reason.value, seconds=seconds,
        prompt_tokens=stopped.usage.prompt_tokens, cached_tokens=stopped.usage.cached_tokens,
        completion_tokens=stopped.usage.completion_tokens,
        support=answer.support.value if answer else "not_backed",
        unverified=answer.unverified if answer else (),
        token_logprobs=answer.token_logprobs if answer else (),
        samples=sampled.samples if sampled else (), sample_seconds=sampled.seconds if sampled else 0.0,
        first_text=looked.first_answer.strip() if looked else None,
        first_support=looked.support.value if looked else "", first_seconds=looked.seconds if looked else 0.0,
        tool_calls=calls)
