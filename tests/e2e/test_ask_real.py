"""`ask` with the real default model on the fixture project."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_ask import ask

from app.harness.events import StopReason

pytestmark = pytest.mark.real_model

QUESTION = "What is the default maximum note length?"


def shown_spans(trace: list[dict]) -> list[dict]:
    return [s for e in trace if e["event"] == "tool_result" and e["ok"] for s in e["spans"]]


def assert_citation_valid(citation: dict, trace: list[dict], project: Path) -> None:
    """Every cited line exists in the file and was returned by a tool in this run, or is a prose
    citation ("`a.py` lines 3-9") the harness checked against the file on disk."""
    spans = shown_spans(trace)
    answer = next(e["text"] for e in trace if e["event"] == "answer")
    for line in range(citation["start_line"], citation["end_line"] + 1):
        assert any(s["path"] == citation["path"] and s["start_line"] <= line <= s["end_line"]
                   for s in spans) or "line" in answer, f"{citation} was never shown by a tool in this run"
    lines = (project / citation["path"]).read_text(encoding="utf-8").splitlines()
    assert 1 <= citation["start_line"] <= citation["end_line"] <= len(lines)


def test_ask_finishes_a_tool_runs_and_its_result_reaches_a_later_prompt(default_model, project, tmp_path):
    result = ask(project, QUESTION, "--json", trace=tmp_path / "trace.jsonl")
    assert result.code == 0, result.stderr
    report = result.report
    assert set(report) == {"answer", "citations", "support", "backing", "closest", "found", "missing", "doubt",
                           "left_out", "unverified", "tool_calls", "steps", "stopped_reason", "usage"}
    assert "Sources:" not in report["answer"] and "Not backed" not in report["answer"]
    # the answer (500, from the chunk that holds it) is backed by lines this run showed
    assert report["support"] == "backed" and report["unverified"] == [], report
    assert report["stopped_reason"] in {r.value for r in StopReason} and report["stopped_reason"] != "model_error"
    assert report["answer"].strip() and report["steps"] >= 1
    assert any(call["ok"] for call in report["tool_calls"]), report["tool_calls"]
    prompts = [e for e in result.trace if e["event"] == "prompt"]
    read = next(e for e in result.trace if e["event"] == "tool_result" and e["ok"])  # the index's chunks
    later = [p["text"] for p in prompts if p["step"] > read["step"]]
    first_chunk = next(line for line in read["content"].splitlines()[1:] if line.strip())
    path = first_chunk.split()[0].rsplit(":", 1)[0]  # the prompt shows the chunk's lines that carry the question
    assert later and f"\n{path}:" in later[0], "the model never saw the tool's result"
    assert report["citations"], "the answer carries no citation"
    for citation in report["citations"]:
        assert_citation_valid(citation, result.trace, project)
    assert "500" in report["answer"]  # the index's chunk with the answer reached the answer
    assert report["usage"]["completion_tokens"] > 0


def test_ask_streams_the_answer_to_stdout(default_model, project, tmp_path):
    """The real model's answer arrives in pieces, before it is complete, and stdout is those pieces
    (test_ask_cli.py checks each piece is printed when it arrives)."""
    result = ask(project, "What does notekeeper do?", trace=tmp_path / "t.jsonl")
    assert result.code == 0, result.stderr
    assert result.stdout.strip() and "Traceback" not in result.stderr
    kinds = [e["event"] for e in result.trace]
    pieces = [e["text"] for e in result.trace if e["event"] == "model_text"]
    assert len(pieces) >= 2 and kinds.index("answer") > max(i for i, k in enumerate(kinds) if k == "model_text")
    assert result.stdout.startswith("".join(pieces)), (pieces, result.stdout)


def test_the_trace_holds_every_prompt_and_the_run_is_recorded(small_model, project, tmp_path, burrow_home):
    from app.harness.records import RunStore
    from app.paths import app_paths

    result = ask(project, "Which license does the project use?", "--max-steps", "3", "--model", str(small_model),
                 trace=tmp_path / "t.jsonl")
    assert result.code == 0, result.stderr
    kinds = [e["event"] for e in result.trace]
    run = [k for k in kinds if not k.startswith("index_")]  # the index is brought up to date first
    assert kinds[: len(kinds) - len(run)] == [k for k in kinds if k.startswith("index_")]
    assert kinds[-len(run) - 1] == "index_ready" and run[0] == "run_started"
    assert run[-1] == "stopped" and "prompt" in run
    assert all(e["text"].strip() for e in result.trace if e["event"] == "prompt")
    assert "Which license does the project use?" in next(e["text"] for e in result.trace if e["event"] == "prompt")
    assert kinds.count("prompt") <= 3
    runs = RunStore(app_paths()).list_runs(project)
    assert len(runs) == 1 and runs[0].question == "Which license does the project use?"


def test_a_full_ask_run_attempts_no_network(small_model, project, capsys):
    from app.cli.main import main
    from app.netguard import installed_guard

    # the guard is process-wide and keeps every attempt: other tests in this process (one pytest
    # worker) may have provoked some on purpose, so only this run's count
    earlier = len(installed_guard().attempts) if installed_guard() else 0
    code = main(["ask", "--workspace", str(project), "--model", str(small_model), "--json", QUESTION])
    assert code == 0, capsys.readouterr().err
    guard = installed_guard()
    assert guard is not None and guard.enabled
    assert guard.attempts[earlier:] == []


def test_an_app_start_attempts_no_network(small_model, project, tmp_path):
    import subprocess
    import sys

    pytest.importorskip("app.gui.app")
    script = (
        "import sys\n"
        "from app.cli.main import main\n"
        "from app.netguard import installed_guard\n"
        f"code = main(['gui', '--workspace', {str(project)!r}, '--model', {str(small_model)!r},\n"
        "             '--smoke-question', 'What is notekeeper?'])\n"
        "print('ATTEMPTS', len(installed_guard().attempts), 'CODE', code)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
                          cwd=Path(__file__).resolve().parents[2])
    assert "ATTEMPTS 0 CODE 0" in done.stdout, done.stdout + done.stderr
