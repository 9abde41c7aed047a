"""ToolExecutor: the gate between a proposed call and its execution. Nothing raises out of it."""

from __future__ import annotations

import json

import pytest

from app.harness.calls import ToolExecutor, parse_arguments
from app.settings import Settings
from app.tools.base import ToolOutput
from app.tools.registry import Tool, ToolRegistry, default_tools
from app.workspace import Workspace


def test_schemas_are_derived_strict_and_described() -> None:
    specs = default_tools().specs()
    assert [s["function"]["name"] for s in specs] == ["list_dir", "find_files", "search_text", "read_file",
                                                      "file_outline", "search_code", "find_references"]
    for spec in specs:
        params = spec["function"]["parameters"]
        assert spec["type"] == "function" and spec["function"]["description"].endswith(".")
        assert params["additionalProperties"] is False
        for name, prop in params["properties"].items():
            assert prop.get("description"), f"{spec['function']['name']}.{name} has no description"
    read = next(s for s in specs if s["function"]["name"] == "read_file")["function"]["parameters"]
    assert read["required"] == ["path"] and "title" not in read


@pytest.mark.parametrize("raw,fragment", [
    ('{"path": ', "not valid JSON"),
    ("[1, 2]", "must be a JSON object, not list"),
    ('"README.md"', "must be a JSON object, not str"),
    ("null", "must be a JSON object"),
    ('{"path": 5}', "argument 'path': Input should be a valid string"),
    ('{"path": "a", "start_line": 0}', "argument 'start_line': Input should be greater than or equal to 1"),
    ('{"path": "a", "lines": 3}', "unknown argument 'lines' (allowed: path, start_line, max_lines)"),
    ("{}", "missing required argument 'path'"),
])
def test_validation_failures_say_what_to_fix(make_executor, raw, fragment) -> None:
    ex = make_executor({"a": "x"})
    outcome = ex.run("c9", "read_file", raw)
    assert outcome.ok is False and outcome.refused is True and outcome.arguments is None
    assert fragment in outcome.content and outcome.call_id == "c9"


def test_unknown_tool_lists_known_ones(make_executor) -> None:
    outcome = make_executor({}).run("c1", "delete_file", "{}")
    assert outcome.refused and "list_dir, find_files, search_text, read_file, file_outline" in outcome.content


def test_lenient_on_empty_and_double_encoded_arguments(make_executor) -> None:
    ex = make_executor({"a": "x\n"})
    assert ex.run("c1", "list_dir", "").ok
    double = ex.run("c2", "read_file", json.dumps(json.dumps({"path": "a"})))
    assert double.ok and double.arguments == {"path": "a", "start_line": 1, "max_lines": 200}
    assert parse_arguments("  ") == {}


def test_a_crashing_tool_becomes_a_result(tmp_path) -> None:
    from pydantic import BaseModel

    class NoArgs(BaseModel):
        pass

    def explode(ws, args) -> ToolOutput:
        """Always fails."""
        raise RuntimeError("boom")

    ws = Workspace(tmp_path, Settings())
    ex = ToolExecutor(ws, Settings(), ToolRegistry((Tool("explode", NoArgs, explode),)))
    outcome = ex.run("c1", "explode", "{}")
    assert outcome.ok is False and "failed inside Burrow (RuntimeError)" in outcome.content
    ws.close()


@pytest.mark.parametrize("name,raw", [(None, "{}"), ("read_file", None), ("read_file", "{" * 10000),
                                      ("read_file", '{"path": "' + "a" * 100000 + '"}'), ("", "")])
def test_never_raises_on_garbage(make_executor, name, raw) -> None:
    outcome = make_executor({}).run("c1", name, raw)
    assert outcome.ok is False and outcome.content


def test_outcome_carries_arguments_spans_and_time(make_executor) -> None:
    outcome = make_executor({"a": "x\n"}).run("c1", "read_file", '{"path": "a"}')
    assert outcome.ok and outcome.arguments["path"] == "a" and outcome.spans and outcome.seconds >= 0
