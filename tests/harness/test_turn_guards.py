"""call_shaped: replies that are a tool call object, not an answer."""

from __future__ import annotations

import pytest

from app.harness.turn_guards import call_shaped


@pytest.mark.parametrize(("text", "name"), [
    ('{"name": "find_files", "arguments": {"pattern": "*.py"}}', "find_files"),
    ('```json\n{\n  "name": "SHA-1 is fine",\n  "arguments": {"path": "a.py"}\n}\n```', "SHA-1 is fine"),
    ('[{"name": "read_file", "parameters": {"path": "a.py"}}]', "read_file"),
    ('{"name": "dotenv_values", "arguments": {"dotenv_path": "src/dotenv/main.py", "stream', "dotenv_values"),
    ("<tool_call>\n{garbage", "tool_call"),
])
def test_call_objects_are_recognised(text: str, name: str) -> None:
    assert call_shaped(text) == name


@pytest.mark.parametrize("text", [
    "The default is 500 characters (notekeeper/config.py:12-12).",
    '{"name": "Ada"} is the config format the README shows.',
    '```json\n{"name": "burrow", "version": "0.1.0"}\n```',  # a JSON answer, not a call
    "",
    "{not json at all",
])
def test_answers_are_not(text: str) -> None:
    assert call_shaped(text) is None


def test_a_turns_cancel_is_set_and_waited_on_through_the_runs() -> None:
    import threading

    from app.harness.turn_guards import LinkedCancel

    parent = threading.Event()
    turn = LinkedCancel(parent)
    assert not turn.is_set() and turn.wait(timeout=0) is False
    setter = threading.Thread(target=parent.set)
    setter.start()
    assert turn.wait(timeout=30)  # woken by the run's Stop, long before the timeout
    setter.join()
    assert turn.is_set() and not LinkedCancel(threading.Event()).wait(timeout=0.01)
