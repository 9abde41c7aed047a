"""Run history: every run saved, listed, reopened; corrupt files set aside, never fatal."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from app.errors import BurrowError
from app.harness import events as ev
from app.harness.loop import run_question
from app.harness.records import RunRecorder, RunStore, event_from_dict, event_to_dict, workspace_key
from app.llm.base import ParsedReply, ParsedToolCall
from app.llm.scripted import ScriptedModel
from app.paths import app_paths


def ask(tools, settings, question: str, *replies) -> list:
    model = ScriptedModel(list(replies))
    return list(run_question(question, tools=tools, model=model, settings=settings,
                             recorder=RunRecorder(app_paths())))


def read_call() -> ParsedReply:
    raw = json.dumps({"path": "pyproject.toml"})
    return ParsedReply("", (ParsedToolCall("read_file", {"path": "pyproject.toml"}, raw, "c1"),))


def test_a_run_is_recorded_with_prompts_calls_answer_and_citations(tools, settings, project: Path):
    events = ask(tools, settings, "Which license?", read_call(), "MIT (pyproject.toml:10)")
    run_id = events[0].run_id
    files = list((app_paths().runs_dir / workspace_key(project)).glob("*.json"))
    assert [f.name for f in files] == [f"{run_id}.json"]
    record = RunStore(app_paths()).load(run_id)
    assert record.question == "Which license?" and record.answer == "MIT (pyproject.toml:10)"
    assert record.citations == [{"path": "pyproject.toml", "start_line": 10, "end_line": 10}]
    assert record.stop_reason == "answered" and record.steps == 2
    assert [p.step for p in record.prompts] == [1, 2] and all(p.chars > 0 for p in record.prompts)
    call = [c for c in record.calls if c.step == 1][0]
    assert call.name == "read_file" and call.arguments["path"] == "pyproject.toml" and call.ok
    assert call.result_chars > 100 and call.seconds >= 0


def test_runs_are_listed_newest_first_and_reopen_with_their_events(tools, settings, project: Path):
    first = ask(tools, settings, "first question", "one")[0].run_id
    second = ask(tools, settings, "second question", "two")[0].run_id
    summaries = RunStore(app_paths()).list_runs(project)
    assert {s.id for s in summaries} == {first, second}
    assert summaries[0].started_at >= summaries[1].started_at
    reopened = RunStore(app_paths()).load(second).run_events()
    assert isinstance(reopened[0], ev.RunStarted) and reopened[0].question == "second question"
    assert isinstance(reopened[-1], ev.RunStopped) and reopened[-1].reason == "answered"
    answer = [e for e in reopened if isinstance(e, ev.AnswerCompleted)][0]
    assert answer.text.startswith("two")


def test_a_corrupt_record_is_set_aside_with_a_warning(tools, settings, project: Path, caplog):
    run_id = ask(tools, settings, "q", "a")[0].run_id
    store = RunStore(app_paths())
    path = store.folder(project) / f"{run_id}.json"
    path.write_text('{"id": "half a fi', encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert store.list_runs(project) == []
    assert path.with_name(path.name + ".corrupt").exists() and not path.exists()
    assert "corrupt" in caplog.text
    with pytest.raises(BurrowError):
        store.load(run_id)


def test_unknown_run_ids_are_a_clear_error_not_a_path(tmp_path):
    store = RunStore(app_paths())
    for bad in ("nope", "../../etc/passwd", ""):
        with pytest.raises(BurrowError):
            store.load(bad)


def test_every_event_survives_the_round_trip():
    from app.llm.base import Usage
    from app.values import LineSpan
    from app.workspace import SkippedFolder

    spans = (LineSpan("a.py", 1, 3),)
    samples = [ev.RunStarted("r", "q", "/w", "m"), ev.PromptRendered(1, "p", 3),
               ev.ToolCallCompleted(1, "c", "read_file", {"path": "a.py"}, True, "x", 0.1, spans),
               ev.AnswerCompleted("t", spans, 2, Usage(1, 2, 3, 4.0), 1.5, True),
               ev.RunStopped("answered", "", 2, Usage(5)),
               ev.IndexReady(3, 9, 1, 0, 0.5, (("unreadable", 2), ("binary", 1)),
                             (SkippedFolder("locked", "unreadable"),))]
    for event in samples:
        assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event
