"""`python -m app ask` as a user runs it (a subprocess, real files, the small real model): the
faults of issue 25 that end before or around the model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.harness.records import workspace_key
from app.paths import app_paths, project_root

ROOT = project_root()
SMALL_MODEL = ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def small_model() -> Path:
    if not SMALL_MODEL.is_file():
        pytest.skip("the small test model is not installed (run `make setup`)")
    return SMALL_MODEL


def ask(home: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"BURROW_HOME": str(home), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"}
    argv = [sys.executable, "-m", "app", "ask", "--workspace", str(workspace), "--model", str(SMALL_MODEL), *args]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=150)


@pytest.mark.parametrize("already_set_aside", [False, True])
def test_continuing_a_corrupt_run_says_it_exists_and_where_it_was_moved(
        small_model: Path, project: Path, burrow_home: Path, already_set_aside: bool) -> None:
    """Fault 7: not "no saved run named ...", whether this ask or an earlier one set it aside."""
    run_id = "20261201-101500-abcdef"
    folder = app_paths().runs_dir / workspace_key(project)
    folder.mkdir(parents=True)
    record = folder / f"{run_id}.json"
    record.write_text('{"id": "20261201-101500-abcdef", "question": "half a fi', encoding="utf-8")
    aside = record.with_name(record.name + ".corrupt")
    if already_set_aside:
        record.rename(aside)
    done = ask(burrow_home, project, "--continue", run_id, "and then?")
    assert done.returncode == 2, done.stderr
    assert f"saved run {run_id} exists but could not be read" in done.stderr
    assert str(aside) in done.stderr and aside.is_file() and not record.exists()
    assert "no saved run named" not in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_question_stopped_by_ctrl_c_stays_in_the_chat_that_continue_last_goes_on_with(
        small_model: Path, project: Path, burrow_home: Path, tmp_path: Path) -> None:
    """Fault 2: the interrupted question and its partial answer, marked as cut short, are in the
    prompt of `ask --continue last`, so "go on" has something to go on from."""
    from app.harness import events as ev
    from app.harness.session import Session
    from app.llm.scripted import ScriptedModel
    from app.settings import Settings

    question = "Which function trims the title of a note?"
    model = ScriptedModel(["The title is trimmed by normalise_title in notekeeper/models.py, which"], chunk_chars=6)
    with Session.open(project, model, Settings(n_threads=1), paths=app_paths()) as session:
        run, said = session.ask(question), ""
        for event in run:
            said += event.text if isinstance(event, ev.ModelTextStreamed) else ""
            if "trimmed by" in said:
                with pytest.raises(KeyboardInterrupt):
                    run.throw(KeyboardInterrupt)  # Ctrl-C while the answer streams, as in `ask`
                break
    done = ask(burrow_home, project, "--continue", "last", "--max-steps", "1", "--trace",
               str(tmp_path / "trace.jsonl"), "Go on where you stopped.")
    assert done.returncode == 0, done.stderr
    trace = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    first_prompt = next(e["text"] for e in trace if e["event"] == "prompt")
    assert question in first_prompt and "The title is trimmed by" in first_prompt
    assert "[interrupted before the answer was finished: Stopped on request.]" in first_prompt
    assert first_prompt.index(question) < first_prompt.index("Go on where you stopped.")


def test_a_question_too_long_for_the_model_is_refused_before_it_runs(
        small_model: Path, project: Path, burrow_home: Path, tmp_path: Path) -> None:
    """Fault 4: exit 2 with the question's size and the limit; no run, no prompt, no empty answer."""
    from app.harness.records import RunStore

    question = "Why does the note store keep a list? " * 1352  # 50,024 characters
    done = ask(burrow_home, project, "--json", "--trace", str(tmp_path / "trace.jsonl"), question)
    assert done.returncode == 2, done.stderr
    assert "The question is too long for the model:" in done.stderr
    assert f"({len(question.strip()):,} characters)" in done.stderr
    assert "at most " in done.stderr and "context of " in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == "" and RunStore(app_paths()).list_runs(project) == []
    events = [json.loads(line)["event"] for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert "prompt" not in events and "run_started" not in events


@pytest.mark.parametrize("files", [{}, {"logo.png": b"\x89PNG\r\n\x1a\n\x00\x00", "empty.py": b""}])
def test_a_folder_with_nothing_readable_is_said_so_without_asking_the_model(
        small_model: Path, tmp_path: Path, burrow_home: Path, files: dict[str, bytes]) -> None:
    """Fault 9: no invented 'main.py, lines 1-5'; exit 2 and why."""
    from app.harness.records import RunStore

    folder = tmp_path / "empty"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    done = ask(burrow_home, folder, "--trace", str(tmp_path / "trace.jsonl"), "What does main.py do?")
    assert done.returncode == 2, done.stderr
    assert f"There is nothing to answer from: the folder {folder} has no readable text files" in done.stderr
    assert ("1 binary" in done.stderr) == bool(files) and done.stdout == ""
    assert "prompt" not in (tmp_path / "trace.jsonl").read_text()
    assert RunStore(app_paths()).list_runs(folder) == []


def test_the_session_refuses_both_before_the_model_so_the_window_shows_why(tmp_path: Path, project: Path) -> None:
    """Faults 4 and 9 through the Session the window runs its questions with (its worker shows a
    BurrowError's message in the chat and the notice bar)."""
    from app.harness.session import QuestionRefusedError, Session
    from app.llm.scripted import ScriptedModel
    from app.settings import Settings

    empty = tmp_path / "empty"
    empty.mkdir()
    for folder, question, words in [(empty, "What is this?", "There is nothing to answer from"),
                                    (project, "why? " * 10_000, "The question is too long for the model")]:
        model = ScriptedModel([], context_length=4096)
        with Session.open(folder, model, Settings(n_threads=1), paths=app_paths()) as session:
            with pytest.raises(QuestionRefusedError, match=words):
                list(session.ask(question))
        assert model.requests == [] and model.warmed == []


def test_ask_goes_on_past_an_unreadable_folder_as_a_user_without_root(
        small_model: Path, project: Path, burrow_home: Path) -> None:
    """Fault 1: a `chmod 000` folder once ended every ask in a traceback (ToolExecutionError)."""
    from tests.workspace._nonroot import as_non_root

    locked = project / "locked"
    locked.mkdir()
    (locked / "notes.py").write_text("MAX_NOTE_LENGTH = 1\n")
    os.chmod(locked, 0)
    try:
        env = {"BURROW_HOME": str(burrow_home), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"}
        argv = [sys.executable, "-m", "app", "ask", "--workspace", str(project), "--model", str(small_model),
                "--json", "--max-steps", "2", "What is the default maximum note length?"]
        done = subprocess.run(as_non_root(argv), cwd=ROOT, env=env, capture_output=True, text=True, timeout=150)
    finally:
        os.chmod(locked, 0o755)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "permission denied" not in done.stderr
    report = json.loads(done.stdout)
    assert report["stopped_reason"] in ("answered", "step_budget") and report["tool_calls"]
    assert all(call["ok"] for call in report["tool_calls"])
