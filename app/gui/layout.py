"""The main window's views and how they are laid out: workspace, model and history on the left;
conversation, activity and the question box on the right.

Kept apart from app.gui.main_window so the window can paint before these modules load: building
them touches most of PySide6's widget classes, and each class's enums are created in Python the
first time it is used (the Qt namespace alone costs ~35 ms), which is most of what made Burrow's
first paint slower than an empty window's. `build` runs on the event-loop turn after that paint,
and sets Qt's enum-typed properties from app.gui.qt_values so that the paint after it does not
wait for the Qt namespace either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.chat_view import ChatView
from app.gui.history import HistoryPanel
from app.gui.model_picker import ModelPicker
from app.gui.qt_values import DOWN_ARROW, RIGHT_ARROW, TEXT_BESIDE_ICON, VERTICAL
from app.gui.server_models import ServerModels
from app.gui.status import NoticeBar, ProgressLine
from app.gui.widgets import ActivityPanel, DropZone, QuestionEdit

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow


def build(window: MainWindow) -> None:
    """Create the views as the window's attributes (presenters, tests and the smoke run reach
    them by name) and make them its central widget."""
    window.notice = NoticeBar(window)
    splitter = QSplitter(parent=window)  # horizontal; QSplitter(window) would load Qt's enums
    splitter.addWidget(_side(window))
    splitter.addWidget(_main(window))
    splitter.setStretchFactor(1, 1)
    splitter.setSizes([330, 950])
    root = QWidget(window)
    layout = QVBoxLayout(root)
    layout.addWidget(window.notice)
    layout.addWidget(splitter, 1)
    window.setCentralWidget(root)
    if window.isVisible():  # added to a window already on screen, it would show a turn later
        root.show()


def _side(window: MainWindow) -> QWidget:
    side = QWidget(window)
    side.setMinimumWidth(260)
    window.drop_zone = DropZone(side)
    window.browse_button = _button("Browse…", "Browse for a workspace folder", side)
    window.recent = QComboBox(side)
    window.recent.setAccessibleName("Recent workspaces")
    window.recent.setPlaceholderText("Recent workspaces")
    ws_box = _group("Workspace", window.drop_zone, _row(window.browse_button, window.recent))
    window.model_picker = ModelPicker(side)
    window.servers = ServerModels(window.model_picker, window.controller.discover_servers,
                                  window.background.run, side)
    window.history = HistoryPanel(side)
    window.settings_button = _button("Settings…", "Settings", side)
    layout = QVBoxLayout(side)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(ws_box)
    layout.addWidget(_group("Model", window.model_picker, window.servers))
    layout.addWidget(_group("History", window.history), 1)
    layout.addWidget(window.settings_button)
    return side


def _main(window: MainWindow) -> QWidget:
    main = QWidget(window)
    window.chat = ChatView(main)
    window.chat.dark = window.dark
    window.activity = ActivityPanel(main)
    window.activity_toggle = _toggle("Tool activity", "Show or hide tool activity", main)
    window.question = QuestionEdit(main)
    window.question.setMaximumHeight(90)
    split = QSplitter(parent=main)
    split.setProperty("orientation", VERTICAL)
    split.addWidget(window.chat)
    split.addWidget(_holder(window.activity_toggle, window.activity))
    split.setSizes([430, 200])
    window.status = ProgressLine(main)
    window.status.end("Drop a folder to begin.")
    ask = QHBoxLayout()
    ask.addWidget(window.question, 1)
    ask.addLayout(_buttons(window, main))
    layout = QVBoxLayout(main)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(split, 1)
    layout.addLayout(ask)
    layout.addWidget(window.status)
    return main


def _buttons(window: MainWindow, parent: QWidget) -> QVBoxLayout:
    window.send_button = _button("Send", "Send question", parent)
    window.stop_button = _button("Stop", "Stop answering", parent)
    window.new_chat_button = _button("New chat", "New chat: clear the conversation", parent)
    window.new_chat_button.setToolTip("Clear the conversation and start a new chat (Ctrl+N)")
    window.clear_button = _button("Clear", "Clear the conversation shown", parent)
    window.clear_button.setToolTip("Clear what the window shows; the next question still continues "
                                   "this chat, and History reopens all of it (Ctrl+L)")
    column = QVBoxLayout()
    for each in (window.send_button, window.stop_button, window.new_chat_button, window.clear_button):
        column.addWidget(each)
    return column


def _button(text: str, accessible: str, parent: QWidget) -> QPushButton:
    each = QPushButton(parent)  # QPushButton(text, parent) would load QIcon's enums (~2 ms)
    each.setText(text)
    each.setAccessibleName(accessible)
    return each


def set_arrow(toggle: QToolButton, shown: bool) -> None:
    toggle.setProperty("arrowType", DOWN_ARROW if shown else RIGHT_ARROW)


def _toggle(text: str, accessible: str, parent: QWidget) -> QToolButton:
    toggle = QToolButton(parent)
    toggle.setText(text)
    toggle.setAccessibleName(accessible)
    toggle.setCheckable(True)
    toggle.setChecked(True)
    set_arrow(toggle, True)
    toggle.setProperty("toolButtonStyle", TEXT_BESIDE_ICON)
    return toggle


def _row(*widgets: QWidget) -> QHBoxLayout:
    row = QHBoxLayout()
    for w in widgets:
        row.addWidget(w)
    row.setStretch(len(widgets) - 1, 1)
    return row


def _group(title: str, *children) -> QGroupBox:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    for child in children:
        if isinstance(child, QWidget):
            layout.addWidget(child)
        else:
            layout.addLayout(child)
    return box


def _holder(header: QWidget, body: QWidget) -> QWidget:
    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(header)
    layout.addWidget(body, 1)
    return holder
