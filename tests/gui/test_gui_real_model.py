"""The window with the real default GGUF through the real loop: it streams an answer, lists the tool
calls, links citations to the viewer, and Stop cancels within half a second with the next question
working."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.gui.main_window import MainWindow
from app.harness.events import ToolCallCompleted

from .conftest import DEFAULT_MODEL, SAMPLE_PROJECT, needs_real_model
from .test_gui_runs import ask, click_first_citation

pytestmark = pytest.mark.real_model
STOP_LIMIT_S = 0.5


@pytest.fixture
def ready(window: MainWindow, qtbot) -> MainWindow:
    needs_real_model()
    if not SAMPLE_PROJECT.is_dir():
        pytest.skip("tests/fixtures/sample_project is missing")
    assert window.set_workspace(str(SAMPLE_PROJECT))
    with qtbot.waitSignal(window.modelLoaded, timeout=120000) as loaded:
        window.start_background()  # discovery + the default model, as at app start
    assert "SmolLM2" in loaded.args[0] or "smollm" in loaded.args[0].lower()
    assert window.model_picker.current_path() == str(DEFAULT_MODEL)
    assert "Ready" in window.model_picker.state.text()
    listed = window.model_picker.combo.currentText()
    assert "Q4_1" in listed and "ctx 8192" in listed and "dialect generic" in listed
    return window


def test_real_model_streams_an_answer_and_lists_tool_calls(ready: MainWindow, qtbot) -> None:
    stop = ask(ready, qtbot, "What does the notekeeper package do?", timeout=600000)
    assert stop is not None and stop.reason in ("answered", "step_budget", "repeated_call")
    runs = ready.runs
    assert runs.streamed_chunks > 0, "no answer text streamed"
    assert ready.activity.call_count() >= 1
    assert all(r[2] in ("ok", "error", "refused") for r in ready.activity.rows())
    assert any(isinstance(c, ToolCallCompleted) and c.ok for c in runs.calls)
    answer = runs.last_answer
    assert answer is not None and answer.text.strip()
    assert answer.text.split()[0] in ready.chat.toPlainText()
    if answer.citations:
        # the answer's first citation (a file the prose names is a link too, to its first line)
        span = answer.citations[0]
        with qtbot.waitSignal(ready.chat.citationClicked, timeout=5000):
            click_first_citation(ready, qtbot, f"cite:{span.path}:{span.start_line}-{span.end_line}")
        assert ready.viewer.isVisible() and ready.viewer.highlighted_lines() == (
            span.start_line, min(span.end_line, ready.viewer.text.document().blockCount()))
    assert len(ready.history.run_ids()) == 1


def test_stop_cancels_quickly_and_the_next_question_runs(ready: MainWindow, qtbot) -> None:
    from app.gui.diagnostics import StopLatency

    latency = StopLatency(ready)
    ready.question.setPlainText("Explain every function in notekeeper/store.py in detail.")
    with qtbot.waitSignal(ready.runFinished, timeout=600000) as finished:
        assert ready.runs.send()
        # stop while the answer streams (the model is generating token by token)
        qtbot.waitUntil(lambda: ready.runs.streamed_chunks > 0, timeout=300000)
        qtbot.keyClick(ready.question, Qt.Key.Key_Escape)
    assert finished.args[0] is not None and finished.args[0].reason == "cancelled"
    assert latency.seconds is not None and latency.seconds < STOP_LIMIT_S, \
        f"stop took {latency.seconds:.3f} s"
    print(f"stop latency: {latency.seconds * 1000:.0f} ms")  # shown with -s (docs/gui.md)
    assert "Stopped" in ready.chat.toPlainText()
    assert ready.send_button.isEnabled() and not ready.stop_button.isEnabled()
    stop = ask(ready, qtbot, "What is in the README?", timeout=600000)
    assert stop.reason != "cancelled" and ready.runs.last_answer is not None
    # the stopped question and the next are one chat, in the window and in History
    assert len(ready.chat.turns) == 2
    assert ready.history.count() == 1 and "2 questions" in ready.history.item(0).text()


def test_bad_model_then_the_default_loads_again(ready: MainWindow, qtbot, tmp_path: Path) -> None:
    bad = tmp_path / "truncated.gguf"
    bad.write_bytes(DEFAULT_MODEL.read_bytes()[:4096])
    with qtbot.waitSignal(ready.modelFailed, timeout=60000):
        ready.load_model(str(bad))
    assert "Still using" in ready.model_picker.state.text()
    assert ready.send_button.isEnabled()  # the previous model stays in use
    for box in list(ready.dialogs.open_boxes):
        box.accept()


def test_the_model_is_listed_at_once_and_its_header_is_read_off_the_ui_thread(
        window: MainWindow, qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    needs_real_model()
    import threading

    import app.llm.catalog as catalog

    readers: list[threading.Thread] = []
    real_describe = catalog.describe_model

    def describe(*args, **kwargs):
        readers.append(threading.current_thread())
        return real_describe(*args, **kwargs)

    monkeypatch.setattr(catalog, "describe_model", describe)
    with qtbot.waitSignal(window.modelLoaded, timeout=120000):
        window.load_model(str(DEFAULT_MODEL))
        # listed by file name straight away, before the header is read
        assert window.model_picker.combo.currentText().startswith(DEFAULT_MODEL.name)
    assert readers and threading.main_thread() not in readers
    assert "ctx 8192" in window.model_picker.combo.currentText()  # the label got the header's details
    assert window.model_picker.combo.count() == 1
