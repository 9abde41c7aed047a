"""The main window, offscreen: drops, keys, settings, dialogs, accessible names."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QShortcut
from PySide6.QtWidgets import QAbstractButton, QApplication, QComboBox, QMessageBox

from app.gui.controller import SessionController
from app.gui.main_window import MainWindow
from app.paths import app_paths

# PySide6 marks the QPoint drag-event constructor deprecated but offers no other for tests
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def drop(window: MainWindow, urls: list[QUrl]) -> bool:
    """Drag and drop the urls onto the drop zone as a file manager would."""
    mime = QMimeData()
    mime.setUrls(urls)
    zone = window.drop_zone
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(zone, enter)
    if not enter.isAccepted():
        return False
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(zone, event)
    return True


def test_dropping_a_folder_sets_the_workspace(window: MainWindow, project: Path) -> None:
    assert drop(window, [QUrl.fromLocalFile(str(project))])
    assert window.controller.workspace == project.resolve()
    assert "proj" in window.drop_zone._label.text()
    assert window.recent.itemData(0) == str(project.resolve())
    assert window.notice.isHidden()


def test_bad_drops_are_refused_with_a_visible_message(window: MainWindow, project: Path) -> None:
    cases = {
        "is a file": [QUrl.fromLocalFile(str(project / "README.md"))],
        "one folder at a time": [QUrl.fromLocalFile(str(project)), QUrl.fromLocalFile(str(project / "src"))],
        "does not exist": [QUrl.fromLocalFile(str(project / "deleted"))],
        "on this computer": [QUrl("https://example.com/repo")],
    }
    for expected, urls in cases.items():
        drop(window, urls)
        assert window.notice.isVisible(), expected
        assert expected in window.notice.text()
        assert window.controller.workspace is None


def test_a_recent_workspace_reopens(qtbot, home: Path, project: Path, tmp_path: Path) -> None:
    SessionController(app_paths()).set_workspace(project)
    win = MainWindow(SessionController(app_paths(), models_home=tmp_path))
    qtbot.addWidget(win)
    assert win.recent.count() == 1
    win.recent.activated.emit(0)
    assert win.controller.workspace == project.resolve()


def test_enter_sends_shift_enter_adds_a_line_escape_stops(window: MainWindow, qtbot,
                                                          project: Path) -> None:
    sent = []
    window.question.submitted.connect(lambda: sent.append(1))
    qtbot.keyClicks(window.question, "first")
    qtbot.keyClick(window.question, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(window.question, "second")
    assert window.question.toPlainText() == "first\nsecond" and not sent
    window.question.submitted.disconnect(window.runs.send)  # no model here: only count the send
    qtbot.keyClick(window.question, Qt.Key.Key_Return)
    assert sent == [1]
    window.set_workspace(str(project))
    window.controller.model = object()
    cancel = window.controller.start_run()  # as if a run were going
    qtbot.keyClick(window.question, Qt.Key.Key_Escape)
    assert cancel.is_set()
    window.controller.finish_run()


def test_asking_without_a_workspace_says_what_to_do(window: MainWindow, qtbot) -> None:
    window.controller.model = object()
    window.question.setPlainText("what is this?")
    assert not window.runs.send()
    assert "workspace" in window.notice.text().lower()


def test_controls_have_accessible_names(window: MainWindow) -> None:
    for widget in window.findChildren(QAbstractButton) + window.findChildren(QComboBox):
        if widget.isVisibleTo(window) and not widget.objectName().startswith("qt_"):
            assert widget.accessibleName(), widget
    for w in (window.chat, window.question, window.activity, window.history, window.drop_zone):
        assert w.accessibleName()


def test_fits_a_1280x720_screen(window: MainWindow) -> None:
    window.resize(1280, 720)
    assert window.minimumSizeHint().width() <= 1280 and window.minimumSizeHint().height() <= 720
    assert window.send_button.isVisible() and window.stop_button.isVisible()


def test_settings_dialog_refuses_invalid_values_then_saves(window: MainWindow, home: Path) -> None:
    dialog = window.open_settings()
    dialog.values = lambda: {"n_ctx": 100}  # a value the spin box cannot hold (see the range test)
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    assert dialog.isVisible() and "Context size" in dialog.error.text()
    assert "n_ctx" not in dialog.error.text()  # the field as the user sees it
    assert not app_paths().settings_file.exists()
    del dialog.values
    dialog.n_ctx.setValue(4096)
    dialog.temperature.setValue(0.5)
    dialog.theme.setCurrentText("dark")
    assert dialog.decode_threads.value() == 0 and dialog.decode_threads.text() == "half of the threads"
    dialog.decode_threads.setValue(1)
    assert dialog.respect_gitignore.isChecked()
    dialog.respect_gitignore.setChecked(False)  # an sdist whose .gitignore names its own sources
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    assert not dialog.isVisible()
    reloaded = SessionController(app_paths()).settings
    assert (reloaded.n_ctx, reloaded.temperature, reloaded.theme) == (4096, 0.5, "dark")
    assert reloaded.respect_gitignore is False and reloaded.decode_threads == 1
    assert window.dark


def test_corrupt_settings_file_shows_a_notice(qtbot, home: Path, tmp_path: Path) -> None:
    app_paths().ensure().settings_file.write_text("[1, 2", encoding="utf-8")
    win = MainWindow(SessionController(app_paths(), models_home=tmp_path))
    qtbot.addWidget(win)
    win.show()
    assert win.notice.isVisible() and "defaults" in win.notice.text()
    assert win.controller.settings.n_ctx == 8192


def test_a_bad_model_file_shows_a_dialog_and_the_app_stays_usable(window: MainWindow, qtbot,
                                                                 tmp_path: Path, project: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"this is not a model" * 100)
    with qtbot.waitSignal(window.modelFailed, timeout=20000) as failed:
        window.load_model(str(bad))
    assert "GGUF" in failed.args[0] or "gguf" in failed.args[0]
    boxes = window.findChildren(QMessageBox)
    assert boxes and boxes[-1].isVisible() and "could not be loaded" in boxes[-1].windowTitle()
    boxes[-1].accept()
    assert "failed" in window.model_picker.state.text().lower()
    assert window.model_picker.combo.isEnabled() and window.controller.state.value == "idle"
    assert window.set_workspace(str(project))  # still usable


def test_the_launched_window_paints_first_and_builds_its_views_right_after(qtbot, home: Path,
                                                                            project: Path) -> None:
    from app.gui.app import LaunchOptions, open_window

    window = open_window(QApplication.instance(), LaunchOptions(workspace=str(project)))
    qtbot.addWidget(window)
    assert not window.built and window.centralWidget() is None  # nothing heavy before the paint
    with qtbot.waitSignal(window.viewsBuilt, timeout=10000):
        qtbot.waitExposed(window)
    assert window.question.isVisible() and window.send_button.isVisible()
    qtbot.waitUntil(lambda: window.controller.workspace == project.resolve(), timeout=10000)
    assert window.recent.itemText(0) == project.name  # --workspace went through the built views
    # the presenters came on the turn after the views painted: the buttons and shortcuts act
    assert len(window.findChildren(QShortcut)) == 3
    window.clear_button.click()
    assert window.status.label.text() == "Cleared."


def ask_without_a_workspace(window: MainWindow) -> None:
    window.controller.model = object()
    window.question.setPlainText("what is this?")
    assert not window.runs.send()
    assert window.notice.isVisible() and "Choose a workspace folder first" in window.notice.text()


def test_the_workspace_notice_goes_when_a_folder_is_browsed_for(window: MainWindow,
                                                                project: Path) -> None:
    ask_without_a_workspace(window)
    window.dialogs.choose_folder = lambda: str(project)
    window.browse_button.click()
    assert window.controller.workspace == project.resolve()
    assert window.notice.isHidden() and "workspace" not in window.notice.text().lower()


def test_the_workspace_notice_goes_when_a_folder_is_dropped(window: MainWindow,
                                                            project: Path) -> None:
    ask_without_a_workspace(window)
    assert drop(window, [QUrl.fromLocalFile(str(project))])
    assert window.notice.isHidden()


def test_the_workspace_notice_goes_when_a_recent_folder_is_chosen(qtbot, home: Path, project: Path,
                                                                  tmp_path: Path) -> None:
    SessionController(app_paths()).set_workspace(project)
    win = MainWindow(SessionController(app_paths(), models_home=tmp_path))
    qtbot.addWidget(win)
    win.show()
    ask_without_a_workspace(win)
    win.recent.activated.emit(0)
    assert win.controller.workspace == project.resolve() and win.notice.isHidden()


def test_an_empty_recent_list_says_it_is_empty(window: MainWindow, project: Path) -> None:
    assert window.recent.count() == 0 and window.recent.isEnabled()
    assert window.recent.placeholderText() == "No recent folders yet"
    assert window.recent.currentText() == ""  # the placeholder is what is drawn
    window.set_workspace(str(project))
    assert window.recent.count() == 1 and window.recent.placeholderText() == "Recent workspaces"


def test_a_very_long_question_takes_one_line_in_history(window: MainWindow) -> None:
    from app.harness.records import RunSummary

    question = "why does\nthis question " + "go on and on " * 3900  # about 50,000 characters
    window.history.show_runs([
        RunSummary(id="r2", question=question, started_at="2026-01-02T10:00:00",
                   answer_excerpt="Because.", stop_reason="answered", chat_id="r2"),
        RunSummary(id="r1", question="short one?", started_at="2026-01-01T10:00:00",
                   answer_excerpt="Yes.", stop_reason="answered", chat_id="r1"),
    ])
    long_row, short_row = window.history.item(0), window.history.item(1)
    title = long_row.text().split("\n")[0]
    assert title.startswith("why does this question go on") and title.endswith("…")
    assert len(long_row.text().split("\n")) == 2  # the title, then when and how it ended
    height = window.history.visualItemRect(long_row).height()
    assert height == window.history.visualItemRect(short_row).height()
    assert height < 4 * window.history.fontMetrics().lineSpacing()
    # elided at the pane's edge: no wider than the pane, nothing to scroll sideways to
    assert window.history.visualItemRect(long_row).width() <= window.history.viewport().width()
    assert window.history.horizontalScrollBar().maximum() == 0
    tip = long_row.toolTip()
    assert tip.startswith("why does\nthis question go on") and "Because." in tip
    assert len(tip) < 3000 and f"{len(question):,} characters" in tip  # bounded, and says so


def test_history_says_how_a_chat_ended_in_words(window: MainWindow) -> None:
    from app.harness.records import RunSummary

    window.history.show_runs([
        RunSummary(id="r2", question="why?", started_at="2026-01-02T10:00:00", answer_excerpt="",
                   stop_reason="context_budget", chat_id="r2"),
        RunSummary(id="r1", question="where?", started_at="2026-01-01T10:00:00", answer_excerpt="",
                   stop_reason="cancelled", chat_id="r1"),
    ])
    rows = [window.history.item(i).text().split("\n")[1] for i in range(2)]
    assert rows[0].endswith(" · context full") and rows[1].endswith(" · stopped")
    assert not any("_" in row for row in rows)  # no enum values shown as words


def test_a_very_long_question_is_shown_in_part_in_the_chat(window: MainWindow, qtbot, project: Path) -> None:
    from tests.gui.test_gui_chats import use_model
    from tests.gui.test_gui_runs import ask

    window.set_workspace(str(project))
    use_model(window, ["It keeps notes."])
    question = "what does this do? " + "and this " * 400  # a pasted log: about 3,600 characters
    ask(window, qtbot, question)
    shown = window.chat.toPlainText()
    assert f"({len(question.strip()):,} characters; shown in part)" in shown
    assert len(shown) < 3000  # the question does not fill the conversation


def test_the_first_paints_palette_is_fusions_own(qapp) -> None:
    """fusion_palette() spares the first paint wrapping a QStyle; it must be Qt's Fusion palette."""
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QStyleFactory

    from app.gui.theme import fusion_palette

    ours, qts = fusion_palette(), QStyleFactory.create("Fusion").standardPalette()
    roles = [r for r in QPalette.ColorRole if r.name not in ("NColorRoles", "NoRole")]
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive, QPalette.ColorGroup.Disabled):
        for role in roles:
            argb = QColor.NameFormat.HexArgb  # Qt keeps 16 bits a channel; a screen shows 8
            assert ours.color(group, role).name(argb) == qts.color(group, role).name(argb), (group, role)
