"""The agent loop: question -> model turns and tool calls -> a verified answer, as a stream of events.

The model only proposes; the executor validates and runs every call. The loop runs until the model
answers without calling a tool, or stops with a named reason (events.StopReason): the step
budget, a repeated identical call, cancellation, a context that cannot be fitted, a model failure.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from app.harness import prompts
from app.harness.calls import Toolbox
from app.harness.citations import (
    Evidence,
    StreamingCitationFilter,
    content_fingerprint,
    read_args_for,
    verify_answer,
)
from app.harness.budget import ContextBudget
from app.harness.events import (
    AnswerCompleted,
    ContextElided,
    ModelTextStreamed,
    ModelTurnFinished,
    PromptRendered,
    RunEvent,
    RunStarted,
    RunStopped,
    StopReason,
    ToolCallCompleted,
    ToolCallProposed,
    ToolCallRefused,
)
from app.harness.first_prompt import IntroRead, intro_reads, question_message, system_message
from app.harness.grounding import NameLookup, check_answer
from app.harness.verdict import ShownLine
from app.harness.turn_guards import LinkedCancel, RepeatGuard, call_shaped
from app.llm.base import (
    ChatModel,
    Message,
    ParsedReply,
    ParsedToolCall,
    TextDelta,
    ToolSpec,
    TurnCompleted,
    TurnEnd,
    TurnRequest,
    Usage,
)
from app.llm.catalog import measured_policy
from app.settings import Settings
from app.values import LineSpan

log = logging.getLogger(__name__)


class Recorder(Protocol):
    def on_event(self, event: RunEvent) -> None: ...

    def close(self) -> None: ...


def run_question(question: str, *, tools: Toolbox, model: ChatModel, settings: Settings,
                 cancel: threading.Event | None = None, recorder: Recorder | None = None,
                 history: tuple[Message, ...] = (), chat_id: str = "") -> Iterator[RunEvent]:
    """Answer one question about the workspace; yields every event, the last one a RunStopped.

    `history` is the chat so far (earlier questions, calls, results and answers, as the previous
    AnswerCompleted.transcript gave them), so a follow-up question sees them."""
    events = _run(question, tools, model, settings, cancel or threading.Event(), history, chat_id)
    if recorder is None:
        yield from events
        return
    stopped = False
    try:
        for event in events:
            recorder.on_event(event)
            stopped = isinstance(event, RunStopped)
            yield event
    except BaseException:  # Ctrl-C or a consumer that let go: the record still says how it ended
        if not stopped:
            reason = StopReason.CANCELLED
            recorder.on_event(RunStopped(reason, prompts.stop_message(reason)))
        raise
    finally:
        recorder.close()


def _run(question: str, tools: Toolbox, model: ChatModel, settings: Settings,
         cancel: threading.Event, history: tuple[Message, ...], chat_id: str) -> Iterator[RunEvent]:
    run = new_run_state(question, tools, model, settings)
    yield RunStarted(run.run_id, question, tools.label, model.name, chat_id or run.run_id)
    yield from run.introduce(history)
    try:  # the shared prefix: evaluated once per model (a failure only costs the first turn time)
        model.warm(run.messages[:1], _offered(run)[0])
    except Exception:
        log.exception("warming the prompt prefix failed")
    for step in range(1, settings.max_steps + 1):
        run.steps = step
        if cancel.is_set():
            break
        fit = run.budget.fit(run.messages, run.specs)
        if fit.elided_results:
            run.messages = list(fit.messages)
            yield ContextElided(step, fit.elided_results, fit.tokens_freed)
        if not fit.fits:
            yield from _stop(run, StopReason.CONTEXT_BUDGET)
            return
        if step == settings.max_steps and run.force_reason is None:
            run.force_reason = StopReason.STEP_BUDGET
        turn = yield from _model_turn(run, step, cancel)
        ended = _turn_stop(turn)
        if ended is not None:
            yield from _stop(run, ended)
            return
        if not turn.reply.tool_calls:
            attempt = call_shaped(turn.reply.content)
            if attempt is None:
                yield from _answer(run, turn.reply.content)
                return
            if run.force_reason is not None:  # words were asked for and a call came again
                yield from _stop(run, StopReason.NO_ANSWER)
                return
            log.info("step %d: a call the harness cannot run (%r): an answer is asked for", step, attempt)
            run.force_reason = StopReason.ANSWERED  # answer in words (a grammar rules out `{` where it can)
            continue
        if run.force_reason is StopReason.REPEATED_CALL:
            yield from _stop(run, StopReason.REPEATED_CALL)
            return
        yield from _execute_calls(run, step, turn.reply, cancel)
    yield from _stop(run, StopReason.CANCELLED if cancel.is_set() else StopReason.STEP_BUDGET)


def _turn_stop(turn: TurnCompleted | None) -> StopReason | None:
    """The run's stop reason when a turn's end leaves nothing to answer with, else None."""
    if turn is None:
        return StopReason.MODEL_ERROR
    match turn.stop_reason:
        case TurnEnd.CANCELLED:
            return StopReason.CANCELLED
        case TurnEnd.CONTEXT_FULL:
            return StopReason.CONTEXT_BUDGET
        case TurnEnd.FAILED:
            return StopReason.MODEL_ERROR
        case TurnEnd.STOP | TurnEnd.LENGTH | TurnEnd.REPEATED_TEXT:
            return None


def new_run_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


@dataclass
class RunState:
    """What one run knows as it goes; private to the loop (events are what leaves it)."""

    question: str
    model: ChatModel
    tools: Toolbox
    settings: Settings
    specs: tuple[ToolSpec, ...]
    files: tuple[str, ...]  # the workspace's files (one walk a question), for names an answer uses
    budget: ContextBudget
    evidence: Evidence
    weak_model: bool
    tool_policy: str  # retrieval | offered | first_call, resolved for this model
    first_own: int = 1  # index of this run's first message (earlier ones are the chat so far)
    run_id: str = field(default_factory=new_run_id)
    messages: list[Message] = field(default_factory=list)
    seen_calls: set[tuple[str, str]] = field(default_factory=set)
    refused_ids: set[str] = field(default_factory=set)  # calls validation refused or repeated
    force_reason: StopReason | None = None  # why the next turn must answer
    usage: Usage = field(default_factory=Usage)
    steps: int = 0
    error: str = ""
    started: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def names(self) -> NameLookup:
        """Lookups of the names an answer mentions: files through the workspace listing, symbols
        through a literal search (both under the workspace rules)."""
        definitions = getattr(self.tools, "definitions", lambda name: ())  # a toolbox with an index
        return NameLookup(lambda name: _has_path(self.files, name), self._has_symbol,
                          lambda name: resolve_path(self.files, name), self._read_lines, definitions)

    def _read_lines(self, span: LineSpan) -> tuple[ShownLine, ...]:
        """The lines of a span read now (a prose citation's range this run never showed)."""
        outcome = self.tools.run("verify", "read_file", read_args_for(span))
        if not outcome.ok or not outcome.hits:
            return ()
        if outcome.hits[-1].span.start_line < span.end_line:  # cut by the read limits, or past the end
            last = LineSpan(span.path, span.end_line, span.end_line)
            if not self.tools.run("verify", "read_file", read_args_for(last)).hits:
                return ()
        return tuple(ShownLine(hit.span, hit.text) for hit in outcome.hits)

    @property
    def known_paths(self) -> tuple[str, ...]:
        """The files a path argument may name (the path grammar's list)."""
        return self.files[: self.settings.known_paths_max]

    def _has_symbol(self, name: str) -> bool:
        last = name.rsplit(".", 1)[-1]
        arguments = json.dumps({"pattern": last, "fixed_strings": True})
        return bool(self.tools.run("verify", "search_text", arguments).hits)

    def add_tool_result(self, call_id: str, name: str, content: str) -> None:
        self.messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": content})

    def introduce(self, history: tuple[Message, ...]) -> Iterator[RunEvent]:
        """The first prompt: the system text, the chat so far, then the question with what the
        harness read for it."""
        reads = []
        for item in intro_reads(self.question, self.tools, self.settings, self.known_paths,
                                self.weak_model, self.budget.tokens):
            if isinstance(item, IntroRead):
                self.evidence.add(item.spans, item.hits)
                reads.append(item)
            else:
                yield item
        layout = "" if history else self.tools.layout()  # a follow-up has it in the chat already
        self.messages = [system_message(), *history, question_message(self.question, layout, reads)]
        self.first_own = len(history) + 1


def resolve_path(files: tuple[str, ...], name: str) -> str | None:
    """The workspace file a written name means: itself, else the one file it ends (None when
    none or several do)."""
    name = name.strip().strip("`").removeprefix("./")
    if name in files:
        return name
    tails = [f for f in files if f.endswith("/" + name)]
    return tails[0] if len(tails) == 1 else None


def _has_path(files: tuple[str, ...], name: str) -> bool:
    name = name.strip().removeprefix("./").rstrip("/")
    return any(f == name or f.endswith("/" + name) or f.startswith(name + "/") for f in files)


FIRST_CALL_TOOLS = ("read_file",)


def new_run_state(question: str, tools: Toolbox, model: ChatModel, settings: Settings) -> RunState:
    limit = min(settings.n_ctx, model.context_length or settings.n_ctx) - settings.context_reserve_tokens
    policy = settings.force_answer_after_read
    weak = policy == "always" or (policy == "auto" and model.dialect_name == "generic")
    return RunState(
        question=question, model=model, tools=tools, settings=settings,
        tool_policy=tool_policy(settings, model),
        specs=tuple(tools.schemas()),
        files=tools.known_paths(max(settings.known_paths_max, settings.verify_paths_max)),
        budget=ContextBudget(model.count_tokens, max(256, limit)),
        evidence=Evidence(lambda span: fingerprint_span(tools, span)), weak_model=weak)


def fingerprint_span(tools: Toolbox, span: LineSpan) -> str | None:
    """A hash of what read_file shows for exactly these lines now (None when it cannot read them)."""
    outcome = tools.run("verify", "read_file", read_args_for(span))
    return content_fingerprint(outcome.content) if outcome.ok else None


def _model_turn(run: RunState, step: int, cancel: threading.Event) -> Iterator[RunEvent]:
    """Stream one model turn (citations checked as text arrives); returns its TurnCompleted."""
    tools, require_tool = _offered(run)
    messages = _without_refused(run) if run.force_reason is not None else tuple(run.messages)
    request = TurnRequest(messages=messages, tools=tools, known_paths=run.known_paths,
                          force_answer=run.force_reason is not None, require_tool=require_tool,
                          max_tokens=run.settings.max_answer_tokens, temperature=run.settings.temperature)
    estimated = run.budget.measure(request.messages, request.tools)
    shown = StreamingCitationFilter(run.evidence)
    turn_cancel, repeats = LinkedCancel(cancel), RepeatGuard(run.settings.repeat_guard_chars)
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
        completed = replace(completed, reply=reply, stop_reason=TurnEnd.REPEATED_TEXT)
    run.usage += completed.usage
    run.budget.calibrate(estimated, completed.usage.prompt_total)
    yield PromptRendered(step, completed.prompt, completed.usage.prompt_total or estimated)
    yield ModelTurnFinished(step, completed.raw, completed.usage)
    return completed


def tool_policy(settings: Settings, model: ChatModel) -> str:
    """The setting, or for "auto" the model's measured best, else its dialect's default: a model
    without native tool calls answers from the first prompt, the others may call tools."""
    if settings.tool_policy != "auto":
        return settings.tool_policy
    return measured_policy(model.name) or ("retrieval" if model.dialect_name == "generic" else "offered")


def _without_refused(run: RunState) -> tuple[Message, ...]:
    """The conversation without turns whose every call was refused (an unknown tool, bad
    arguments, a repeat) and their results: when an answer is forced, a small model otherwise
    answers about its own failed calls instead of the question."""
    def refused(message: Message) -> bool:
        if message.get("role") == "tool":
            return message.get("tool_call_id") in run.refused_ids
        calls = message.get("tool_calls") or []
        return bool(calls) and all(c.get("id") in run.refused_ids for c in calls)

    return tuple(m for m in run.messages if not refused(m))


def _offered(run: RunState) -> tuple[tuple[ToolSpec, ...], bool]:
    """The tools this turn may call, and whether it must call one (the model's tool policy)."""
    policy = run.tool_policy
    tools = () if policy == "retrieval" else run.specs
    require_tool = policy == "first_call" and not run.seen_calls and run.force_reason is None
    if require_tool:  # layout and README are in the prompt already: the useful first move is a read
        tools = tuple(t for t in tools if t["function"]["name"] in FIRST_CALL_TOOLS) or tools
    return tools, require_tool


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
            run.refused_ids.add(call_id)
            run.force_reason = StopReason.REPEATED_CALL
            continue
        run.seen_calls.add(key)
        outcome = run.tools.run(call_id, call.name, call.raw_arguments)
        run.add_tool_result(call_id, call.name, outcome.content)
        if outcome.refused:
            run.refused_ids.add(call_id)
            yield ToolCallRefused(step, call_id, call.name, call.raw_arguments, outcome.content)
            continue
        run.evidence.add(outcome.spans, outcome.hits)
        called_ok = called_ok or outcome.ok
        yield ToolCallCompleted(step, call_id, call.name, outcome.arguments or {}, outcome.ok,
                                outcome.content, outcome.seconds, outcome.spans)
    if called_ok and run.weak_model and run.force_reason is None:
        run.force_reason = StopReason.ANSWERED  # a weak model answers best right after its first good call


def _answer(run: RunState, raw_text: str) -> Iterator[RunEvent]:
    run.messages.append({"role": "assistant", "content": raw_text})  # as the model said it: the KV cache holds that
    text, cited = verify_answer(raw_text, run.evidence)
    settings = run.settings
    check = check_answer(text, run.question, cited, run.evidence, run.names(),
                         settings.verify_max_names, settings.max_evidence_citations)
    added = check.sources[len(cited):]
    notes = prompts.answer_notes(check, added)
    full = "\n\n".join(part for part in (text, notes) if part)
    verdict = check.verdict
    yield AnswerCompleted(full, check.sources, run.steps, run.usage, run.elapsed(), bool(added),
                          check.support, check.unverified, notes, tuple(run.messages[run.first_own:]),
                          verdict.backing, verdict.closest, verdict.found, verdict.missing, check.links)
    forced = (StopReason.STEP_BUDGET, StopReason.REPEATED_CALL)
    reason = run.force_reason if run.force_reason in forced else StopReason.ANSWERED
    yield RunStopped(reason, prompts.stop_message(reason, steps=run.steps), run.steps, run.usage)


def _stop(run: RunState, reason: StopReason) -> Iterator[RunEvent]:
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


