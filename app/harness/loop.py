"""The agent loop: question -> model turns and tool calls -> a verified answer, as a stream of events.

The model only proposes; the executor validates and runs every call. The loop runs until the model
answers without calling a tool, or stops with a named reason (events.StopReason): the step
budget, a repeated identical call, cancellation, a context that cannot be fitted, a model failure.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, Protocol

from app.harness import acting, prompts
from app.harness.calls import Toolbox
from app.harness.citations import StreamingCitationFilter, verify_answer
from app.harness.control import ANSWER_STOPS, NextTurn, Stage, tool_policy
from app.harness.events import (
    AnswerCompleted,
    AnswerSampled,
    ContextElided,
    ModelTextStreamed,
    ModelTurnFinished,
    PromptRendered,
    RunEvent,
    RunStarted,
    RunStopped,
    SecondStageStarted,
    StopReason,
    ToolCallCompleted,
    ToolCallProposed,
    ToolCallRefused,
)
from app.harness.first_prompt import callers_beyond, code_callers, more_callers
from app.harness.grounding import check_answer
from app.harness.run_state import CheckedAnswer, RunState, new_run_state
from app.harness.turn_guards import LinkedCancel, RepeatGuard, call_shaped
from app.harness.verdict import ShownLine
from app.llm.base import (
    ChatModel,
    Message,
    ParsedReply,
    ParsedToolCall,
    TextDelta,
    TurnCompleted,
    TurnEnd,
    TurnRequest,
)
from app.settings import Settings, ToolPolicy
from app.tools.base import Reference
from app.values import find_citations

__all__ = ["Recorder", "run_question", "tool_policy"]  # tool_policy: the eval labels runs with it

log = logging.getLogger(__name__)
SAMPLE_EXTRA_TOKENS = 16  # a sampled answer may run this far past the first answer's length


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
        model.warm(run.shared.messages, run.offer().tools, scope=run.shared.scope)
    except Exception:
        log.exception("warming the prompt prefix failed")
    for step in range(1, settings.max_steps + 1):
        run.steps = step
        if cancel.is_set():
            break
        if (yield from _step(run, step, cancel)):
            return
    yield from _give_up(run, StopReason.CANCELLED if cancel.is_set() else StopReason.STEP_BUDGET)


def _step(run: RunState, step: int, cancel: threading.Event) -> Iterator[RunEvent]:
    """One model turn and what follows from it; returns True when the run is over."""
    fit = run.budget.fit(run.messages, run.specs)
    if fit.elided_results:
        run.messages = list(fit.messages)
        yield ContextElided(step, fit.elided_results, fit.tokens_freed)
    if not fit.fits:
        yield from _give_up(run, StopReason.CONTEXT_BUDGET)
        return True
    if step == run.settings.max_steps and not run.next_turn.must_answer:
        run.next_turn = NextTurn.ANSWER_LAST
    turn = yield from _model_turn(run, step, cancel)
    if (ended := _turn_stop(turn)) is not None:
        yield from _give_up(run, ended)
        return True
    return (yield from _take_reply(run, step, turn.reply, cancel))


def _take_reply(run: RunState, step: int, reply: ParsedReply, cancel: threading.Event) -> Iterator[RunEvent]:
    """Run the turn's calls, or take its words as the answer; True when the run is over."""
    if reply.tool_calls:
        if run.next_turn is NextTurn.ANSWER_AFTER_REPEAT:
            yield from _give_up(run, StopReason.REPEATED_CALL)
            return True
        yield from _execute_calls(run, step, reply, cancel)
        return False
    # nothing said (Qwen 1.5B after a lookup that found no use) is no answer, as a call-shaped reply is not
    attempt = call_shaped(reply.content) if reply.content.strip() else "an empty reply"
    if attempt is None:
        yield from _sampled(run, step, cancel)
        return (yield from _answered(run, reply.content))
    if run.next_turn.must_answer:  # words were asked for and a call (or nothing) came again
        yield from _give_up(run, StopReason.NO_ANSWER)
        return True
    log.info("step %d: no answer the harness can take (%r): an answer is asked for", step, attempt)
    run.next_turn = NextTurn.ANSWER  # answer in words (a grammar rules out `{` where it can)
    return False


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


def _model_turn(run: RunState, step: int, cancel: threading.Event) -> Iterator[RunEvent]:
    """Stream one model turn (citations checked as text arrives); returns its TurnCompleted."""
    offered = run.offer()
    forced = run.next_turn.must_answer
    messages = _without_refused(run) if forced else tuple(run.messages)
    request = TurnRequest(messages=messages, tools=offered.tools, known_paths=run.known_paths,
                          force_answer=forced, require_tool=offered.require_tool,
                          max_tokens=_answer_tokens(run), temperature=run.settings.temperature,
                          # the second stage keeps its question's prompt cached; a follow-up told its
                          # tools late made more calls and lost one of five (tuning2, docs/harness.md)
                          tools_late=run.stage is Stage.LOOKING)
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
    run.turn_logprobs = completed.token_logprobs
    run.last_request, run.last_tokens = request, completed.usage.completion_tokens
    run.budget.calibrate(estimated, completed.usage.prompt_total)
    yield PromptRendered(step, completed.prompt, completed.usage.prompt_total or estimated)
    yield ModelTurnFinished(step, completed.raw, completed.usage)
    return completed


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
            run.next_turn = NextTurn.ANSWER_AFTER_REPEAT
            continue
        run.seen_calls.add(key)
        outcome = run.tools.run(call_id, call.name, _capped(run, call))
        run.add_tool_result(call_id, call.name, outcome.content)
        if outcome.refused:
            run.refused_ids.add(call_id)
            yield ToolCallRefused(step, call_id, call.name, call.raw_arguments, outcome.content)
            continue
        run.evidence.add(outcome.spans, outcome.hits)
        called_ok = called_ok or outcome.ok
        yield ToolCallCompleted(step, call_id, call.name, outcome.arguments or {}, outcome.ok,
                                outcome.content, outcome.seconds, outcome.spans)
    if called_ok:
        run.stage_calls += 1
    if called_ok and run.next_turn is NextTurn.CHOOSE and _read_enough(run):
        run.next_turn = NextTurn.ANSWER


LOOKING_ANSWER_TOKENS = 256  # right first answers on both tuning sets: at most 198 tokens
# what the second stage's and a follow-up's calls show at most, per tool: the argument that sets it,
# and lines of acting_read_lines per unit (a search_code chunk shows up to ~20 lines, a reference one)
_STAGE_CAPS = {"read_file": ("max_lines", 1), "search_code": ("limit", 20), "find_references": ("limit", 4)}


def _answer_tokens(run: RunState) -> int:
    """The second stage answers briefly: what it found, not the lines it read (a 1.5B model
    forced to answer after a read copied 768 tokens of code, 100 s here)."""
    if run.stage is Stage.LOOKING:
        return min(run.settings.max_answer_tokens, LOOKING_ANSWER_TOKENS)
    return run.settings.max_answer_tokens


def _capped(run: RunState, call: ParsedToolCall) -> str:
    """The call's arguments, with what it shows capped by acting_read_lines after the first answer
    (the model asked for more; the result's cut note says how to read on)."""
    cap = _STAGE_CAPS.get(call.name)
    if run.stage is Stage.FIRST or cap is None:
        return call.raw_arguments
    try:
        arguments = json.loads(call.raw_arguments)
    except ValueError:
        return call.raw_arguments  # the executor says what is wrong with it
    if not isinstance(arguments, dict):
        return call.raw_arguments
    name, per = cap
    most = max(1, run.settings.acting_read_lines // per)
    given = arguments.get(name)
    arguments[name] = min(given, most) if isinstance(given, int) and not isinstance(given, bool) else most
    return json.dumps(arguments)


def _read_enough(run: RunState) -> bool:
    """A model without native calls answers best right after its first good call; in the second
    stage or a follow-up, a small model loses the thread after a few calls."""
    if run.answer_after_read:
        return True
    return run.stage is not Stage.FIRST and run.stage_calls >= run.settings.acting_max_calls


def _answered(run: RunState, raw_text: str) -> Iterator[RunEvent]:
    """The model answered in words: checked, then either the run's answer or, when the lines shown
    do not back a first answer, the start of the second stage. True when the run is over."""
    run.messages.append({"role": "assistant", "content": raw_text})  # as the model said it: the KV cache holds that
    answer = _checked(run, raw_text)
    if _looks_further(run, answer):
        note = acting.missing_note(run.question, answer.text, answer.check)
        run.begin_looking(answer, note)
        yield SecondStageStarted(run.steps, answer.text, answer.check.support, note, round(run.elapsed(), 3))
        yield ModelTextStreamed(run.steps, "\n\n")  # what streams next is a second answer, not more of the first
        return False
    first = run.first_answer
    kept = first if first is not None and acting.keeps_first(first.raw, first.check, answer.raw, answer.check) \
        else answer
    yield from _finish(run, kept, ANSWER_STOPS[run.next_turn])
    return True


def _sampled(run: RunState, step: int, cancel: threading.Event) -> Iterator[RunEvent]:
    """settings.answer_samples more answers to the first answer's prompt, each with its own seed at
    sample_temperature; the prompt is still in the model's cache, so only their tokens cost. Each
    stops a few tokens past the first answer's length: what matters is whether it says the same."""
    settings, request = run.settings, run.last_request
    if not settings.answer_samples or request is None or run.stage is not Stage.FIRST:
        return
    started, samples = time.monotonic(), []
    limit = min(settings.max_answer_tokens, run.last_tokens + SAMPLE_EXTRA_TOKENS)
    for index in range(settings.answer_samples):
        if cancel.is_set():
            return
        again = replace(request, temperature=settings.sample_temperature, max_tokens=limit,
                        seed=settings.seed + 1 + index)
        try:
            done = [e for e in run.model.generate(again, LinkedCancel(cancel)) if isinstance(e, TurnCompleted)]
        except Exception:  # a sample is a check: its failure leaves the answer as it is
            log.exception("sampling another answer failed")
            return
        if done and done[-1].stop_reason in (TurnEnd.STOP, TurnEnd.LENGTH):
            samples.append(done[-1].reply.content)
    yield AnswerSampled(step, tuple(samples), round(time.monotonic() - started, 3))


def _looks_further(run: RunState, answer: CheckedAnswer) -> bool:
    """A first answer under the retrieval policy that the lines do not back, with room for a call
    and an answer left in the step budget."""
    return (run.settings.second_stage and run.stage is Stage.FIRST and run.tool_policy is ToolPolicy.RETRIEVAL
            and not run.next_turn.must_answer and run.steps + 2 <= run.settings.max_steps
            and acting.wants_second_stage(answer.check, answer.text))


def _checked(run: RunState, raw_text: str) -> CheckedAnswer:
    text, cited = verify_answer(raw_text, run.evidence)
    if not text and (references := find_citations(raw_text)):  # never an empty answer
        text = prompts.ONLY_UNCHECKED.format(references=", ".join(f"`{r.text}`" for r in references))
    settings = run.settings
    extra = more_callers(text, run.callers)  # a deterministic fact: callers the index finds, unnamed
    calls = () if extra else _call_lines(code_callers(run.callers))
    names = run.names()
    beyond = callers_beyond(text, run.callers, run.question, names.has_symbol) if calls else ()
    check = check_answer(text, run.subject or run.question, cited, run.evidence, names,
                         settings.verify_max_names, settings.max_evidence_citations, run.turn_logprobs,
                         complete=not extra, calls=calls, uncalled=run.uncalled,
                         listed=_call_lines(run.callers), not_callers=beyond)
    added = tuple(s for s in check.sources if s not in cited)
    notes = prompts.answer_notes(check, added)
    left_out = tuple(ShownLine(r.hit.span, r.inside) for r in extra)
    return CheckedAnswer(raw_text, text, check, added, notes, run.turn_logprobs, left_out)


def _call_lines(refs: Sequence[Reference]) -> tuple[ShownLine, ...]:
    return tuple(ShownLine(r.hit.span, r.hit.text) for r in refs)


def _finish(run: RunState, answer: CheckedAnswer, reason: StopReason) -> Iterator[RunEvent]:
    full = "\n\n".join(part for part in (answer.text, answer.notes) if part)
    verdict = answer.check.verdict
    yield AnswerCompleted(full, answer.check.sources, run.steps, run.usage, run.elapsed(), bool(answer.added),
                          answer.check.support, answer.check.unverified, answer.notes, _transcript(run, answer),
                          verdict.backing, verdict.closest, verdict.found, verdict.missing, answer.check.links,
                          answer.token_logprobs, verdict.doubt, answer.left_out)
    yield RunStopped(reason, prompts.stop_message(reason, steps=run.steps, detail=run.error), run.steps, run.usage)


def _transcript(run: RunState, answer: CheckedAnswer) -> tuple[Message, ...]:
    """This question's messages, to continue the chat from. The sources the harness found go after
    the last answer's own words, so a follow-up knows which lines "it" is (a few new tokens: the
    model's own words are still what its cache holds)."""
    own = [dict(m) for m in run.messages[run.first_own:]]
    if answer.added and own and own[-1].get("role") == "assistant":
        sources = prompts.SOURCES_LINE.format(citations=", ".join(map(str, answer.added)))
        own[-1]["content"] = f"{answer.raw}\n\n{sources}"
    return tuple(own)


def _give_up(run: RunState, reason: StopReason) -> Iterator[RunEvent]:
    """The run stops without a new answer: the first answer stands when the second stage had one."""
    if run.first_answer is not None:
        yield from _finish(run, run.first_answer, reason)
        return
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


