"""The agent loop: question -> model turns and tool calls -> a verified answer, as a stream of events.

The model only proposes; the executor validates and runs every call. The loop runs until the model
answers without calling a tool, or stops with a named reason (events.STOP_REASONS): the step
budget, a repeated identical call, cancellation, or a context that cannot be fitted.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from app.harness import prompts
from app.harness.citations import (
    Evidence,
    StreamingCitationFilter,
    content_fingerprint,
    read_args_for,
    verify_answer,
)
from app.harness.context import ContextBudget, best_hits, list_known_paths, question_stems
from app.harness.events import (
    AnswerCompleted,
    ContextElided,
    ModelTextStreamed,
    ModelTurnFinished,
    PromptRendered,
    RunEvent,
    RunStarted,
    RunStopped,
    ToolCallCompleted,
    ToolCallProposed,
    ToolCallRefused,
)
from app.llm.base import (
    ChatModel,
    Message,
    ParsedReply,
    ParsedToolCall,
    TextDelta,
    ToolSpec,
    TurnCompleted,
    TurnRequest,
    Usage,
)
from app.settings import Settings
from app.tools.base import LineSpan

log = logging.getLogger(__name__)


def run_question(question: str, *, workspace: Any, model: ChatModel, executor: Any,
                 settings: Settings, cancel: threading.Event | None = None,
                 recorder: Any = None) -> Iterator[RunEvent]:
    """Answer one question about the workspace; yields every event, the last one a RunStopped."""
    events = _run(question, workspace, model, executor, settings, cancel or threading.Event())
    if recorder is None:
        yield from events
        return
    try:
        for event in events:
            recorder.on_event(event)
            yield event
    finally:
        recorder.close()


def _run(question: str, workspace: Any, model: ChatModel, executor: Any, settings: Settings,
         cancel: threading.Event) -> Iterator[RunEvent]:
    run = new_run_state(question, workspace, model, executor, settings)
    yield RunStarted(run.run_id, question, run.workspace_label, model.name)
    yield from run.introduce()
    for step in range(1, settings.max_steps + 1):
        run.steps = step
        if cancel.is_set():
            break
        fit = run.budget.fit(run.messages, run.tools)
        if fit.elided_results:
            run.messages = list(fit.messages)
            yield ContextElided(step, fit.elided_results, fit.tokens_freed)
        if not fit.fits:
            yield from _stop(run, "context_budget")
            return
        if step == settings.max_steps and run.force_reason is None:
            run.force_reason = "step_budget"
        turn = yield from _model_turn(run, step, cancel)
        if turn is None or turn.stop_reason == "cancelled":
            yield from _stop(run, "cancelled" if turn is not None else "model_error")
            return
        if not turn.reply.tool_calls:
            yield from _answer(run, turn.reply.content)
            return
        if run.force_reason == "repeated_call":
            yield from _stop(run, "repeated_call")
            return
        yield from _execute_calls(run, step, turn.reply, cancel)
    yield from _stop(run, "cancelled" if cancel.is_set() else "step_budget")


def new_run_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


@dataclass
class RunState:
    """What one run knows as it goes; private to the loop (events are what leaves it)."""

    question: str
    workspace_label: str
    model: ChatModel
    executor: Any
    settings: Settings
    tools: tuple[ToolSpec, ...]
    known_paths: tuple[str, ...]
    budget: ContextBudget
    evidence: Evidence
    weak_model: bool
    workspace_layout: str = ""
    run_id: str = field(default_factory=new_run_id)
    messages: list[Message] = field(default_factory=list)
    seen_calls: set[tuple[str, str]] = field(default_factory=set)
    force_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    steps: int = 0
    error: str = ""
    started: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def add_tool_result(self, call_id: str, name: str, content: str) -> None:
        self.messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": content})

    def introduce(self) -> Iterator[RunEvent]:
        """The first prompt: layout, README start and (weak models) the lines a search of the
        question's words found, then the question. These calls go through the executor like any
        (as step 0), so their lines are evidence."""
        parts = [f"{prompts.LAYOUT_HEADER}\n{self.workspace_layout}"] if self.workspace_layout else []
        for index, (name, arguments, header) in enumerate(self._intro_calls()):
            outcome = self.executor.run(f"intro_{index}", name, json.dumps(arguments))
            if not outcome.ok:
                continue
            text, spans = outcome.content.strip(), outcome.spans
            if name == "search_text":
                hits = best_hits(outcome.content, question_stems(self.question), self.settings.intro_search_lines)
                text, spans = "\n".join(line for _, line in hits), tuple(span for span, _ in hits)
            if not text:
                continue
            self.evidence.add(spans, by_model=False)
            yield ToolCallProposed(0, outcome.call_id, name, outcome.raw_arguments)
            yield ToolCallCompleted(0, outcome.call_id, name, outcome.arguments or {}, True,
                                    outcome.content, outcome.seconds, spans)
            parts.append(f"{header}\n{text}")
        system = "\n\n".join([prompts.SYSTEM_PROMPT, *parts])
        # the question stands alone in its user turn: dialects restate the last user turn
        # after tool results, and that should be the question, not the whole introduction
        self.messages = [{"role": "system", "content": system},
                         {"role": "user", "content": self.question}]

    def _intro_calls(self) -> list[tuple[str, dict[str, Any], str]]:
        calls: list[tuple[str, dict[str, Any], str]] = []
        if not self.workspace_layout:
            calls.append(("list_dir", {"path": ".", "depth": 1}, prompts.LAYOUT_HEADER))
        lines = self.settings.intro_readme_lines
        readme = next((p for p in README_NAMES if p in self.known_paths), README_NAMES[0])
        if lines > 0:
            calls.append(("read_file", {"path": readme, "max_lines": lines},
                          prompts.README_HEADER.format(path=readme)))
        stems = question_stems(self.question)
        if self.weak_model and stems and self.settings.intro_search_lines > 0:
            pattern = "|".join(re.escape(stem) for stem in stems)
            calls.append(("search_text", {"pattern": pattern, "ignore_case": True}, prompts.SEARCH_HEADER))
        return calls


FIRST_CALL_TOOLS = ("read_file",)
README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md")


def new_run_state(question: str, workspace: Any, model: ChatModel, executor: Any,
                  settings: Settings) -> RunState:
    limit = min(settings.n_ctx, model.context_length or settings.n_ctx) - settings.context_reserve_tokens
    policy = settings.force_answer_after_read
    weak = policy == "always" or (policy == "auto" and model.dialect_name == "generic")
    return RunState(
        question=question, workspace_label=str(getattr(workspace, "root", workspace)), model=model,
        executor=executor, settings=settings, tools=tuple(executor.schemas()),
        known_paths=list_known_paths(workspace, executor, settings.known_paths_max),
        budget=ContextBudget(model.count_tokens, max(256, limit)),
        evidence=Evidence(lambda span: fingerprint_span(executor, span)), weak_model=weak,
        workspace_layout=_layout(workspace))


def _layout(workspace: Any) -> str:
    """The workspace's own short top-level view, when it offers one (else list_dir is called)."""
    summary = getattr(workspace, "top_level_summary", None)
    return summary() if callable(summary) else ""


def fingerprint_span(executor: Any, span: LineSpan) -> str | None:
    """A hash of what read_file shows for exactly these lines now (None when it cannot read them)."""
    outcome = executor.run("verify", "read_file", read_args_for(span))
    return content_fingerprint(outcome.content) if outcome.ok else None


def _model_turn(run: RunState, step: int, cancel: threading.Event) -> Iterator[RunEvent]:
    """Stream one model turn (citations checked as text arrives); returns its TurnCompleted."""
    policy = run.settings.weak_model_tools if run.weak_model else "offered"
    tools = () if policy == "off" else run.tools
    require_tool = policy == "first_call" and not run.seen_calls and run.force_reason is None
    if require_tool:  # layout and README are in the prompt already: the useful first move is a read
        tools = tuple(t for t in tools if t["function"]["name"] in FIRST_CALL_TOOLS) or tools
    request = TurnRequest(messages=tuple(run.messages), tools=tools, known_paths=run.known_paths,
                          force_answer=run.force_reason is not None, require_tool=require_tool,
                          max_tokens=run.settings.max_answer_tokens, temperature=run.settings.temperature)
    estimated = run.budget.measure(request.messages, request.tools)
    shown = StreamingCitationFilter(run.evidence)
    turn_cancel, repeats = _LinkedCancel(cancel), RepeatGuard(run.settings.repeat_guard_chars)
    completed: TurnCompleted | None = None
    try:
        for event in run.model.generate(request, turn_cancel):
            if isinstance(event, TextDelta):
                if repeats.feed(event.text):
                    turn_cancel.set()  # a small model looping on itself: keep what came before
                if text := shown.feed(event.text):
                    yield ModelTextStreamed(step, text)
            elif isinstance(event, TurnCompleted):
                completed = event
    except Exception as exc:  # a model failure ends this run with a reason, never the app
        log.exception("model turn %d failed", step)
        run.error = str(exc) or type(exc).__name__
        return None
    if tail := shown.flush():
        yield ModelTextStreamed(step, tail)
    if completed is None:
        run.error = "the model ended its turn without a result"
        return None
    if repeats.tripped and not cancel.is_set():
        reply = replace(completed.reply, content=repeats.kept())
        completed = replace(completed, reply=reply, stop_reason="repeated_text")
    run.usage += completed.usage
    run.budget.calibrate(estimated, completed.usage.prompt_total)
    yield PromptRendered(step, completed.prompt, completed.usage.prompt_total or estimated)
    yield ModelTurnFinished(step, completed.raw, completed.usage)
    return completed


class _LinkedCancel(threading.Event):
    """Set for this turn only, or when the run's own cancel event is set."""

    def __init__(self, parent: threading.Event) -> None:
        super().__init__()
        self._parent = parent

    def is_set(self) -> bool:
        return super().is_set() or self._parent.is_set()


class RepeatGuard:
    """Trips when the last `window` characters of a reply already appeared earlier in it."""

    def __init__(self, window: int) -> None:
        self.window, self.text, self.tripped = window, "", False

    def feed(self, text: str) -> bool:
        self.text += text
        if self.window and not self.tripped and len(self.text) >= 3 * self.window:
            self.tripped = self.text.find(self.text[-self.window:], 0, len(self.text) - 1) >= 0
        return self.tripped

    def kept(self) -> str:
        """The reply up to where it began repeating, ended at the last full sentence."""
        head = self.text[: len(self.text) - self.window]
        end = max(head.rfind(". "), head.rfind(".\n"), head.rfind("\n\n"))
        return (head[: end + 1] if end > 0 else head).strip()


def _execute_calls(run: RunState, step: int, reply: ParsedReply,
                   cancel: threading.Event) -> Iterator[RunEvent]:
    """Run every call of a turn; each result becomes a `tool` message with the call's id."""
    calls = reply.tool_calls
    ids = [call.id or f"call_{step}_{i}" for i, call in enumerate(calls)]
    run.messages.append(_assistant_message(reply.content, calls, ids))
    called_ok = False
    for call, call_id in zip(calls, ids, strict=True):
        if cancel.is_set():
            return
        yield ToolCallProposed(step, call_id, call.name, call.raw_arguments)
        key = (call.name, _canonical_arguments(call))
        if key in run.seen_calls:
            message = prompts.REPEATED_CALL.format(name=call.name)
            yield ToolCallRefused(step, call_id, call.name, call.raw_arguments, message)
            run.add_tool_result(call_id, call.name, message)
            run.force_reason = "repeated_call"
            continue
        run.seen_calls.add(key)
        outcome = run.executor.run(call_id, call.name, call.raw_arguments)
        run.add_tool_result(call_id, call.name, outcome.content)
        if outcome.refused:
            yield ToolCallRefused(step, call_id, call.name, call.raw_arguments, outcome.content)
            continue
        run.evidence.add(outcome.spans)
        called_ok = called_ok or outcome.ok
        yield ToolCallCompleted(step, call_id, call.name, outcome.arguments or {}, outcome.ok,
                                outcome.content, outcome.seconds, outcome.spans)
    if called_ok and run.weak_model and run.force_reason is None:
        run.force_reason = "answered"  # a weak model answers best right after its first good call


def _answer(run: RunState, text: str) -> Iterator[RunEvent]:
    text, citations = verify_answer(text, run.evidence)
    evidence_added = False
    if not citations:
        citations = run.evidence.fallback(run.settings.max_evidence_citations)
        evidence_added = bool(citations)
        if evidence_added:
            sources = prompts.SOURCES_LINE.format(citations=", ".join(map(str, citations)))
            text = f"{text}\n\n{sources}" if text else sources
    yield AnswerCompleted(text, citations, run.steps, run.usage, run.elapsed(), evidence_added)
    reason = run.force_reason if run.force_reason in ("step_budget", "repeated_call") else "answered"
    yield RunStopped(reason, prompts.stop_message(reason, steps=run.steps), run.steps, run.usage)


def _stop(run: RunState, reason: str) -> Iterator[RunEvent]:
    message = prompts.stop_message(reason, steps=run.steps, detail=run.error)
    yield RunStopped(reason, message, run.steps, run.usage)


def _assistant_message(text: str, calls: tuple[ParsedToolCall, ...], ids: list[str]) -> dict[str, Any]:
    tool_calls = [
        {"id": call_id, "type": "function",
         "function": {"name": call.name, "arguments": call.raw_arguments}}
        for call, call_id in zip(calls, ids, strict=True)
    ]
    return {"role": "assistant", "content": text, "tool_calls": tool_calls}


def _canonical_arguments(call: ParsedToolCall) -> str:
    """Same call, same key: parsed arguments with sorted keys, else the raw text."""
    if call.arguments:
        return json.dumps(call.arguments, sort_keys=True)
    return call.raw_arguments.strip()


