"""Issue 14 in the window, through the real loop, tools and workspace with a scripted model: a chat
keeps its turns, New chat forgets them, History reopens a chat to continue it, and every answer
shows how far the workspace supports it."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, QUrl
from PySide6.QtGui import QGuiApplication, QHelpEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QToolTip

from app.gui.controller import ControllerState, SessionController
from app.gui.main_window import MainWindow
from app.harness.prompts import SUPPORT_LABELS
from app.harness.verdict import Support
from app.llm.scripted import ScriptedModel
from app.paths import app_paths
from tests.gui.test_gui_runs import ask, scripted


def use_model(window: MainWindow, replies: list[str]) -> ScriptedModel:
    window.controller.model = model = ScriptedModel(replies)
    window.update_buttons()
    return model


def fragments(window: MainWindow) -> list[tuple[str, bool, str]]:
    """(text, struck out, tooltip) of every run of text in the conversation."""
    out, block = [], window.chat.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            out.append((it.fragment().text(), fmt.fontStrikeOut(), fmt.toolTip()))
            it += 1
        block = block.next()
    return out


def test_a_follow_up_sees_the_earlier_turn_and_new_chat_forgets_it(window: MainWindow, qtbot,
                                                                    project: Path) -> None:
    window.set_workspace(str(project))
    model = use_model(window, ["Numbers are added by add in src/calc.py.", "Nowhere else.",
                               "A tiny project."])
    ask(window, qtbot, "where are numbers added?")
    ask(window, qtbot, "and where is that called?")
    assert "where are numbers added?" in model.prompts[1]
    assert "Numbers are added by add" in model.prompts[1]  # the earlier answer, as it was
    shown = window.chat.toPlainText()
    assert "where are numbers added?" in shown and "and where is that called?" in shown
    window.activateWindow()
    qtbot.keyClick(window.question, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.chat.turns == [] and window.controller.chat is None
    ask(window, qtbot, "what is this project?")
    assert "where are numbers added?" not in model.prompts[2]


def test_history_reopens_a_chat_and_the_next_question_continues_it(window: MainWindow, qtbot,
                                                                   project: Path) -> None:
    window.set_workspace(str(project))
    model = use_model(window, ["First answer about src/calc.py.", "Second answer.", "Other chat.",
                               "Continued."])
    ask(window, qtbot, "first question?")
    ask(window, qtbot, "second question?")
    window.new_chat_button.click()
    ask(window, qtbot, "other question?")
    assert window.history.count() == 2  # one row per chat
    assert "2 questions" in window.history.item(1).text()
    window.history.itemClicked.emit(window.history.item(1))
    assert [t.question for t in window.chat.turns] == ["first question?", "second question?"]
    ask(window, qtbot, "third question?")
    assert "second question?" in model.prompts[3] and "other question?" not in model.prompts[3]
    assert window.history.count() == 2 and "3 questions" in window.history.item(0).text()


def test_an_answer_without_sources_says_so_and_flags_invented_names(window: MainWindow, qtbot,
                                                                   project: Path) -> None:
    window.set_workspace(str(project))
    use_model(window, ["Passwords are checked by `UserCredentials` in auth/login.py."])
    ask(window, qtbot, "How does the login handler validate passwords?")
    answer = window.runs.last_answer
    assert answer.support is Support.NOT_BACKED and "UserCredentials" in answer.unverified
    shown = window.chat.toPlainText()
    assert SUPPORT_LABELS[Support.NOT_BACKED] in shown
    assert "Sources" not in shown  # no unrelated lines presented as sources
    assert shown.count("Not found in this workspace") == 1  # the harness's note is not repeated
    struck = {text for text, strike, tip in fragments(window) if strike and "Not found" in tip}
    assert {"UserCredentials", "auth/login.py"} <= struck
    # reopened from History, the verdict is still there
    window.history.itemClicked.emit(window.history.item(0))
    assert SUPPORT_LABELS[Support.NOT_BACKED] in window.chat.toPlainText()


def test_a_supported_answer_shows_its_badge_and_copies(window: MainWindow, qtbot,
                                                      project: Path) -> None:
    window.set_workspace(str(project))
    window.controller.model = scripted()  # reads src/calc.py, then cites the lines it read
    window.update_buttons()
    ask(window, qtbot, "where are numbers added?")
    support = window.runs.last_answer.support  # the symbol table defines `add` in src/calc.py
    assert support is Support.BACKED and SUPPORT_LABELS[support] in window.chat.toPlainText()
    assert "Backed by src/calc.py:81: def add(a, b):" in window.chat.toPlainText()  # what backs it
    assert not any(strike for _, strike, _ in fragments(window))
    window.chat.anchorClicked.emit(QUrl("copy:0"))
    assert QGuiApplication.clipboard().text().startswith("Numbers are added by `add`")
    assert "add(1, 2)" in QGuiApplication.clipboard().text()
    assert "copied" in window.status.text()


def test_hovering_an_invented_name_says_it_is_not_in_the_workspace(window: MainWindow, qtbot,
                                                                   project: Path) -> None:
    window.set_workspace(str(project))
    use_model(window, ["It is done by `UserCredentials`."])
    ask(window, qtbot, "who checks passwords?")
    chat = window.chat
    cursor = QTextCursor(chat.document())
    cursor.setPosition(chat.document().find("UserCredentials").selectionStart() + 2)
    chat.setTextCursor(cursor)
    chat.ensureCursorVisible()
    point = chat.cursorRect(cursor).center()
    hover = QHelpEvent(QEvent.Type.ToolTip, point, chat.viewport().mapToGlobal(point))
    QApplication.sendEvent(chat.viewport(), hover)
    assert "Not found in this workspace" in QToolTip.text()


def test_clear_empties_the_view_but_the_chat_and_its_history_go_on(window: MainWindow, qtbot,
                                                                   project: Path) -> None:
    window.set_workspace(str(project))
    model = use_model(window, ["Numbers are added by add in src/calc.py.", "Nowhere else."])
    window.question.setPlainText("where are numbers added?")
    with qtbot.waitSignal(window.runFinished, timeout=30000):
        assert window.runs.send()
        assert not window.clear_button.isEnabled()  # not while a question is being answered
        window.runs.clear_view()  # Ctrl+L is refused too
        assert "where are numbers added?" in window.chat.toPlainText()
    assert window.clear_button.isEnabled()
    window.activateWindow()
    qtbot.keyClick(window.question, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.chat.turns == [] and "where are numbers added?" not in window.chat.toPlainText()
    assert window.activity.call_count() == 0 and "continues this chat" in window.status.text()
    ask(window, qtbot, "and where is that called?")
    assert "where are numbers added?" in model.prompts[1]  # unlike New chat, the chat goes on
    assert [t.question for t in window.chat.turns] == ["and where is that called?"]
    window.history.itemClicked.emit(window.history.item(0))  # the history still holds all of it
    assert [t.question for t in window.chat.turns] == ["where are numbers added?",
                                                       "and where is that called?"]


class WaitsForStop(ScriptedModel):
    """Its first reply streams a few words, then waits until `stopped` is set (by the window's
    Stop), as a slow model would; later replies stream whole."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies)
        self.stopped = threading.Event()

    def _stream(self, raw, reply, prompt, request, cancel):
        events = super()._stream(raw, reply, prompt, request, cancel)
        if len(self.requests) > 1 or cancel is None:
            yield from events
            return
        yield next(events)  # the first words
        self.stopped.wait(60)  # the run's cancel is set by then: the turn ends as cancelled
        yield from events


def test_after_stop_the_next_question_continues_the_same_chat(window: MainWindow, qtbot,
                                                              project: Path) -> None:
    """Issue 25 item 3: Esc, then a question: the window shows one conversation, and History (the
    record) holds one chat of two questions, the stopped one included."""
    from app.harness.records import RunStore

    window.set_workspace(str(project))
    window.controller.model = model = WaitsForStop(["Numbers are added by add in src/calc.py.",
                                                    "Nowhere else."])
    window.controller.state_listeners.append(  # after Stop has set the run's cancel event
        lambda state: state is ControllerState.STOPPING and model.stopped.set())
    window.update_buttons()
    window.question.setFocus()
    qtbot.keyClicks(window.question, "where are numbers added?")
    with qtbot.waitSignal(window.runFinished, timeout=30000) as stopped:
        qtbot.keyClick(window.question, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: window.runs.streamed_chunks > 0, timeout=30000)
        qtbot.keyClick(window.question, Qt.Key.Key_Escape)
    assert stopped.args[0].reason == "cancelled"
    ask(window, qtbot, "and where is that called?")
    shown = [t.question for t in window.chat.turns]
    assert shown == ["where are numbers added?", "and where is that called?"]
    assert window.history.count() == 1 and "2 questions" in window.history.item(0).text()
    # the model saw the stopped question and its cut answer in the follow-up's prompt
    sent = [m["content"] for m in model.requests[1].messages if m["role"] in ("user", "assistant")]
    assert any("where are numbers added?" in text for text in sent[:-1])
    runs = RunStore(window.controller.paths).list_runs(project.resolve())
    assert len(runs) == 2 and len({r.chat_id for r in runs}) == 1
    window.new_chat_button.click()  # reopened from History, the chat is what the window showed
    window.history.itemClicked.emit(window.history.item(0))
    assert [t.question for t in window.chat.turns] == shown


def test_a_run_ended_without_a_record_still_keeps_its_chat(home: Path, project: Path) -> None:
    """After Stop the chat goes on; when the run left no readable record, with what it had."""
    from app.harness.records import ChatSoFar

    controller = SessionController(app_paths())
    controller.set_workspace(project)
    controller.ended_unanswered("20260101-000000-aaaaaa", "20260101-000000-aaaaaa")
    assert controller.chat == ChatSoFar("20260101-000000-aaaaaa", ())
    earlier = ({"role": "user", "content": "q"}, {"role": "assistant", "content": "a"})
    controller.chat = ChatSoFar("c1", earlier)
    controller.ended_unanswered("c1", "20260101-000000-bbbbbb")
    assert controller.chat == ChatSoFar("c1", earlier)
