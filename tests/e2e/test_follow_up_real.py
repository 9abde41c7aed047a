"""A follow-up about the previous answer, with the real default model: it opens what that answer
pointed at (find_references or read_file) instead of searching for the follow-up's own words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_ask import ask

pytestmark = pytest.mark.real_model


def callers(project: Path, name: str) -> set[tuple[str, int]]:
    """Every (path, line) of the project that calls `name` (not its definition)."""
    found = set()
    for path in project.rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(rf"\b{name}\(", line) and not line.lstrip().startswith("def "):
                found.add((path.relative_to(project).as_posix(), number))
    return found


def test_who_calls_it_after_where_is_it_defined_opens_the_references_and_cites_a_caller(default_model, project,
                                                                                           tmp_path):
    first = ask(project, "Where is load_config defined?", "--json")
    assert first.code == 0, first.stderr
    assert "notekeeper/config.py" in first.stdout
    follow = ask(project, "Who calls it?", "--json", "--continue", "last", trace=tmp_path / "trace.jsonl")
    assert follow.code == 0, follow.stderr
    calls = [e for e in follow.trace if e["event"] == "tool_call"]
    assert calls and all(e["step"] > 0 for e in calls), "the follow-up was searched for its own words"
    assert {e["name"] for e in calls} <= {"find_references", "read_file"}
    expected = callers(project, "load_config")
    cited = {(c["path"], line) for c in follow.report["citations"]
             for line in range(c["start_line"], c["end_line"] + 1)}
    assert cited & expected, (follow.report["answer"], follow.report["citations"], calls, expected)
