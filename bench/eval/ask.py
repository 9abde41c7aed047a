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
    model_tool_calls: int  # calls the model chose (step > 0), not the harness's opening reads
    stop_reason: str
    seconds: float
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    support: str = "not_backed"  # backed | partly_backed | not_backed, as the harness judged it
    unverified: tuple[str, ...] = ()  # names in the answer the harness found nowhere


def ask(question: str, root: Path, model: Any, settings: Any) -> Asked:
    """Ask one question about the code base at root through the real harness (a Session), from a
    cold cache: the shared prompt prefix comes from its saved state, as after a fresh start."""
    from app.harness import events as ev
    from app.harness.session import Session

    model.reset()  # each question starts as a fresh `ask` would
    started = time.perf_counter()
    with Session.open(root, model, settings) as session:
        events = list(session.ask(question))
    seconds = time.perf_counter() - started
    answer = next((e for e in events if isinstance(e, ev.AnswerCompleted)), None)
    stopped = events[-1]
    text = answer.answer.strip() if answer else ""
    return Asked(
        text=text,
        citations=tuple(Cited(c.path, c.start_line, c.end_line) for c in
                        (answer.citations if answer else ())),
        evidence_added=bool(answer and answer.evidence_added),
        model_tool_calls=sum(1 for e in events
                             if isinstance(e, ev.ToolCallProposed) and e.step > 0),
        stop_reason=stopped.reason.value, seconds=seconds,
        prompt_tokens=stopped.usage.prompt_tokens, cached_tokens=stopped.usage.cached_tokens,
        completion_tokens=stopped.usage.completion_tokens,
        support=answer.support.value if answer else "not_backed",
        unverified=answer.unverified if answer else ())
