"""Issue 25 in the window, through the real loop, Session and workspace with a scripted model: the
index's skips show in the status line (fault 6), and a question with nothing to answer from is
refused with a clear message before the model runs (fault 9)."""

from __future__ import annotations

import os
from pathlib import Path

from app.gui.main_window import MainWindow
from app.llm.scripted import ScriptedModel
from tests.gui.test_gui_runs import ask


def use_model(window: MainWindow, replies: list[str]) -> ScriptedModel:
    window.controller.model = model = ScriptedModel(replies)
    window.update_buttons()
    return model


def test_the_status_line_says_what_the_index_skipped_and_names_the_folder(
        window: MainWindow, qtbot, project: Path) -> None:
    bad = project / os.fsdecode(b"d\xe9j\xe0")
    bad.mkdir()
    (bad / "inner.py").write_text("x = 1\n")
    (project / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    window.set_workspace(str(project))
    use_model(window, ["Numbers are added by add in src/calc.py."])
    ask(window, qtbot, "where are numbers added?")
    status = window.status.text()
    assert "Index: 3 files" in status and "skipped: 1 not UTF-8 (name), 1 binary" in status
    assert "d\\xe9j\\xe0/ (name not valid UTF-8)" in status


def test_an_empty_folder_is_refused_in_the_window_without_asking_the_model(
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    window.set_workspace(str(empty))
    model = use_model(window, [])
    ask(window, qtbot, "what does main.py do?")
    assert "There is nothing to answer from" in window.chat.toPlainText()
    assert "There is nothing to answer from" in window.notice.text()
    assert model.requests == []


def test_the_status_line_says_when_another_process_is_indexing(window: MainWindow) -> None:
    """Fault 8 in the window: the Session's IndexProgress(waiting=True) is another process's build."""
    from app.harness.events import IndexProgress

    window.status.begin("Answering")
    window.runs._on_worker_indexProgress(IndexProgress(5, 40, waiting=True))
    assert "Waiting for another Burrow process that is indexing this folder (5/40 files)" in window.status.text()


def test_a_question_too_long_for_the_model_is_refused_in_the_window(
        window: MainWindow, qtbot, project: Path) -> None:
    """Fault 4 in the window: said before the model runs, with the size and the limit."""
    from PySide6.QtCore import Qt

    window.set_workspace(str(project))
    model = use_model(window, [])
    window.question.setPlainText("why? " * 10_000)
    window.question.setFocus()
    with qtbot.waitSignal(window.runFinished, timeout=30000):
        qtbot.keyClick(window.question, Qt.Key.Key_Return)
    assert "The question is too long for the model" in window.notice.text()
    assert "(49,999 characters)" in window.chat.toPlainText() and model.requests == []
