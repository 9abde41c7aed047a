"""The eval's one call into the harness: ask a question about a code base, get typed facts back.

Everything the eval knows about the harness (how a run is wired, which events carry what) is in
this module, so that when the harness gets a session object only `ask` changes.
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


def ask(question: str, root: Path, model: Any, settings: Any) -> Asked:
    """Ask one question about the code base at root through the real harness, from a cold cache."""
    from app.harness import events as ev
    from app.harness.calls import ToolExecutor
    from app.harness.loop import run_question
    from app.workspace import Workspace

    reset = getattr(model, "reset", None)
    if callable(reset):
        reset()  # each question starts cold, as a fresh `ask` would
    started = time.perf_counter()
    with Workspace(root, settings) as workspace:
        executor = ToolExecutor(workspace, settings)
        events = list(run_question(question, workspace=workspace, model=model,
                                   executor=executor, settings=settings))
    seconds = time.perf_counter() - started
    answer = next((e for e in events if isinstance(e, ev.AnswerCompleted)), None)
    stopped = events[-1]
    text = answer.text if answer else ""
    if answer and answer.evidence_added:
        text = text.rsplit("\n\nSources: ", 1)[0] if "\n\nSources: " in text else ""
    return Asked(
        text=text,
        citations=tuple(Cited(c.path, c.start_line, c.end_line) for c in
                        (answer.citations if answer else ())),
        evidence_added=bool(answer and answer.evidence_added),
        model_tool_calls=sum(1 for e in events
                             if isinstance(e, ev.ToolCallProposed) and e.step > 0),
        stop_reason=str(getattr(stopped.reason, "value", stopped.reason)), seconds=seconds,
        prompt_tokens=stopped.usage.prompt_tokens, cached_tokens=stopped.usage.cached_tokens,
        completion_tokens=stopped.usage.completion_tokens)
