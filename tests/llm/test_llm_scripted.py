"""The scripted model the harness tests use: queue, record, stream, fail loudly."""

from __future__ import annotations

import threading

import pytest

from app.llm.base import (
    ChatModel,
    ParsedReply,
    ParsedToolCall,
    TextDelta,
    TurnCompleted,
    TurnRequest,
)
from app.llm.scripted import ScriptedModel


def _req(text: str) -> TurnRequest:
    return TurnRequest(messages=({"role": "user", "content": text},))


def test_replies_in_order_and_records_requests() -> None:
    call = ParsedToolCall("read_file", {"path": "a.py"}, '{"path": "a.py"}')
    model = ScriptedModel([ParsedReply("", (call,)), "The answer is 42."])
    assert isinstance(model, ChatModel)
    first = list(model.generate(_req("q1")))
    second = list(model.generate(_req("q2")))
    assert first[-1].reply.tool_calls == (call,)
    assert "".join(e.text for e in second if isinstance(e, TextDelta)) == "The answer is 42."
    assert isinstance(second[-1], TurnCompleted) and second[-1].reply.content == "The answer is 42."
    assert [r.messages[0]["content"] for r in model.requests] == ["q1", "q2"]
    model.assert_all_used()


def test_asking_for_more_replies_fails_loudly() -> None:
    model = ScriptedModel(["only one"])
    list(model.generate(_req("a")))
    with pytest.raises(AssertionError, match="reply 2"):
        list(model.generate(_req("b")))


def test_unused_replies_are_reported() -> None:
    model = ScriptedModel(["a", "b"])
    list(model.generate(_req("x")))
    with pytest.raises(AssertionError, match="1 scripted"):
        model.assert_all_used()


def test_cancel_ends_with_cancelled_turn() -> None:
    cancel = threading.Event()
    model = ScriptedModel(["x" * 100], chunk_chars=10)
    events = []
    for event in model.generate(_req("go"), cancel):
        events.append(event)
        cancel.set()
    assert events[-1].stop_reason == "cancelled" and len(events) == 2


def test_prompt_is_visible_without_dialect() -> None:
    model = ScriptedModel(["ok"])
    list(model.generate(_req("where is main?")))
    assert "where is main?" in model.prompts[0]


def test_prompt_rendered_with_a_real_dialect() -> None:
    from app.llm.dialects import dialect_for_template

    model = ScriptedModel(["ok"], dialect=dialect_for_template(None))
    list(model.generate(TurnRequest(messages=(
        {"role": "user", "content": "find x"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "read_file", "arguments": {"path": "a.py"}}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "RESULT-TEXT-123"}))))
    assert "RESULT-TEXT-123" in model.prompts[0]
