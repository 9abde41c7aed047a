"""A question through the real loop, tools and workspace, driven by a scripted model in the window:
the answer, the activity list, clicking a citation, history, one run at a time."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from app.gui.main_window import MainWindow
from app.llm.base import ParsedReply, ParsedToolCall
from app.llm.scripted import ScriptedModel
from app.values import LineSpan

ARGS = '{"path": "src/calc.py", "start_line": 81}'


def scripted() -> ScriptedModel:
    return ScriptedModel([
        ParsedReply("", (ParsedToolCall("read_file", {"path": "src/calc.py", "start_line": 81}, ARGS),)),
        ParsedReply("Numbers are added by `add` in src/calc.py:81-82.\n\n```python\nadd(1, 2)\n```"),
    ])


def ask(window: MainWindow, qtbot, question: str, timeout: int = 30000) -> object:
    window.question.setFocus()
    qtbot.keyClicks(window.question, question)
    with qtbot.waitSignal(window.runFinished, timeout=timeout) as finished:
        qtbot.keyClick(window.question, Qt.Key.Key_Return)
    return finished.args[0]


def click_first_citation(window: MainWindow, qtbot, href: str = "cite:") -> None:
    """Click the first link whose target starts with `href` (any cite: link by default) where it
    is drawn, as a user would."""
    chat = window.chat
    doc = chat.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.charFormat().anchorHref().startswith(href):
                cursor = QTextCursor(doc)
                cursor.setPosition(frag.position() + 1)
                chat.setTextCursor(cursor)
                chat.ensureCursorVisible()
                point = chat.cursorRect(cursor).center()
                qtbot.mouseClick(chat.viewport(), Qt.MouseButton.LeftButton, pos=point)
                return
            it += 1
        block = block.next()
    raise AssertionError(f"no {href} link in the chat")


def test_answer_activity_citation_viewer_and_history(window: MainWindow, qtbot, project: Path) -> None:
    window.set_workspace(str(project))
    window.controller.model = model = scripted()
    window.update_buttons()
    stop = ask(window, qtbot, "where are numbers added?")
    assert stop.reason == "answered" and model.remaining == 0
    # the activity list shows the call, its arguments, ok and a duration; expanding shows the result
    rows = window.activity.rows()
    read = [r for r in rows if r[0] == "read_file" and "calc.py" in r[1]]
    assert read and read[-1][2] == "ok"
    assert "return a + b" in window.activity.topLevelItem(rows.index(read[-1])).child(0).text(0)
    # the answer is rendered (code highlighted) with the citation as a link
    html = window.chat.toHtml()
    assert "Numbers are added by" in window.chat.toPlainText() and "add(1, 2)" in window.chat.toPlainText()
    assert window.runs.last_answer.citations == (LineSpan("src/calc.py", 81, 82),)
    with qtbot.waitSignal(window.chat.citationClicked, timeout=5000):
        click_first_citation(window, qtbot)
    viewer = window.viewer
    assert viewer is not None and viewer.isVisible()
    assert viewer.highlighted_lines() == (81, 82)
    assert viewer.text.isReadOnly() and "src/calc.py" in viewer.header.text()
    # scrolled down: the cited lines are on screen (the file has 82 lines, the top is line 1)
    assert viewer.first_visible_line() > 1
    assert viewer.first_visible_line() <= 81 and viewer.last_visible_line() >= 82
    assert "cite:" in html
    # history lists the run; reopening it brings back the answer and the tool activity
    assert len(window.history.run_ids()) == 1
    window.chat.show_turns([])
    window.activity.clear_calls()
    window.history.itemClicked.emit(window.history.item(0))
    assert "Numbers are added by" in window.chat.toPlainText()
    assert any(r[0] == "read_file" and r[2] == "ok" for r in window.activity.rows())


def test_a_refused_citation_path_is_not_opened(window: MainWindow, project: Path) -> None:
    window.set_workspace(str(project))
    assert window.open_citation(LineSpan("../outside.txt", 1, 2)) is None
    assert window.notice.isVisible() and "outside.txt" in window.notice.text()


def test_send_is_refused_while_a_run_is_going(window: MainWindow, qtbot, project: Path) -> None:
    window.set_workspace(str(project))
    window.controller.model = scripted()
    window.question.setPlainText("one")
    with qtbot.waitSignal(window.runFinished, timeout=30000):
        assert window.runs.send()
        assert not window.send_button.isEnabled() and window.stop_button.isEnabled()
        window.question.setPlainText("two")
        assert not window.runs.send()
        assert "already" in window.notice.text()
    assert window.send_button.isEnabled() and not window.stop_button.isEnabled()


def test_viewer_puts_the_cited_lines_near_the_top(qtbot) -> None:
    from app.gui.viewer import FileViewer

    viewer = FileViewer()
    qtbot.addWidget(viewer)
    viewer.show()
    viewer.show_span(LineSpan("big.py", 300, 305), "".join(f"line {i}\n" for i in range(1, 501)))
    assert viewer.first_visible_line() == 297
    assert viewer.highlighted_lines() == (300, 305)
    assert "lines 300–305 of 500" in viewer.header.text()


def test_sources_line_lists_only_citations_the_text_lacks(qtbot) -> None:
    from app.gui.chat_view import ChatView

    chat = ChatView()
    qtbot.addWidget(chat)
    chat.begin("q")
    chat.finish("See src/calc.py:81-82.", (LineSpan("src/calc.py", 81, 82),))
    assert "Sources:" not in chat.toPlainText() and len(chat.cite_anchor_hrefs()) == 1
    chat.begin("q2")
    chat.finish("No inline citation.", (LineSpan("README.md", 1, 4),))
    assert "Sources: README.md:1-4" in chat.toPlainText()


def test_streamed_text_shows_once_in_order_then_the_verified_answer_replaces_it(qtbot) -> None:
    from app.gui.chat_view import ChatView

    chat = ChatView()
    qtbot.addWidget(chat)
    chat.begin("q")
    text = "First para.\n\n```python\nx = 1\n\ny = 2\n```\nSecond para with src/a.py:1-2.\n\n- one\n- two"
    for i in range(0, len(text), 3):
        chat.append_text(text[i:i + 3])
        chat.render_now()  # what the coalescing timer does
    shown = chat.toPlainText()
    for piece in ("First para.", "x = 1", "y = 2", "Second para", "one", "two"):
        assert shown.count(piece) == 1, (piece, shown)
    assert shown.index("First") < shown.index("x = 1") < shown.index("Second") < shown.index("two")
    chat.finish("Verified answer.", ())
    assert "Verified answer." in chat.toPlainText() and "First para." not in chat.toPlainText()
