"""Small widgets of the main window: the workspace drop zone, the question box, the activity list."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.errors import WorkspaceError
from app.gui.controller import workspace_from_drop
from app.gui.qt_values import ALIGN_CENTER

if TYPE_CHECKING:  # the harness loads with the first run, Qt's event classes (and enums) with an event
    from PySide6.QtCore import QMimeData
    from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeyEvent

    from app.harness.events import ToolCallCompleted, ToolCallProposed, ToolCallRefused

EXCERPT_CHARS = 600


def local_paths(mime: QMimeData) -> list[str | None]:
    """Each dropped URL as a local path, or None where it is not a local file."""
    return [u.toLocalFile() if u.isLocalFile() else None for u in mime.urls()]


class DropZone(QFrame):
    """Accepts exactly one folder dragged from the file manager; says why anything else is refused."""

    folderDropped = Signal(str)
    dropRefused = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Workspace drop area")
        self.setAccessibleDescription("Drop a folder here to ask questions about it")
        self._label = QLabel("Drop a project folder here", self)
        self._label.setWordWrap(True)
        self._label.setProperty("alignment", ALIGN_CENTER)
        self._label.setMinimumHeight(48)
        layout = QVBoxLayout(self)
        layout.addWidget(self._label)

    def show_folder(self, text: str) -> None:
        self._label.setText(text)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()  # decide on drop, where we can say why it is refused
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        self.handle_mime(event.mimeData())
        event.acceptProposedAction()

    def handle_mime(self, mime: QMimeData) -> bool:
        """Validate a drop's content; emits folderDropped or dropRefused."""
        try:
            folder = workspace_from_drop(local_paths(mime) if mime.hasUrls() else [])
        except WorkspaceError as exc:
            self.dropRefused.emit(str(exc))
            return False
        self.folderDropped.emit(str(folder))
        return True


class QuestionEdit(QPlainTextEdit):
    """Enter sends, Shift+Enter adds a line (Esc is a window-wide shortcut: it stops)."""

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Question")
        self.setPlaceholderText("Ask about the workspace… (Enter sends, Shift+Enter new line, Esc stops)")
        self.setTabChangesFocus(True)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        from PySide6.QtCore import Qt  # not at import: see app.gui.qt_values

        key, mods = event.key(), event.modifiers()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not mods & Qt.KeyboardModifier.ShiftModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class ActivityPanel(QTreeWidget):
    """One row per tool call as it happens; expand a row for the result excerpt."""

    COLUMNS = ("Tool", "Arguments", "Status", "Time")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Tool activity")
        self.setHeaderLabels(list(self.COLUMNS))
        self.setUniformRowHeights(False)
        self.setWordWrap(True)
        header = self.header()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        self._items: dict[str, QTreeWidgetItem] = {}

    def clear_calls(self) -> None:
        self.clear()
        self._items.clear()

    def call_count(self) -> int:
        return self.topLevelItemCount()

    def add_proposed(self, event: ToolCallProposed) -> None:
        item = QTreeWidgetItem([event.name, event.raw_arguments, "running…", ""])
        item.setToolTip(1, event.raw_arguments)
        self.addTopLevelItem(item)
        self._items[event.call_id] = item
        self.scrollToItem(item)

    def add_finished(self, event: ToolCallCompleted | ToolCallRefused) -> None:
        from app.harness.events import ToolCallRefused

        item = self._items.get(event.call_id)
        if item is None:  # a refusal may come without a proposal (e.g. an unparseable call)
            item = QTreeWidgetItem([event.name, event.raw_arguments if isinstance(
                event, ToolCallRefused) else "", "", ""])
            self.addTopLevelItem(item)
            self._items[event.call_id] = item
        self._fill(item, event)

    def _fill(self, item: QTreeWidgetItem, event: ToolCallCompleted | ToolCallRefused) -> None:
        from app.harness.events import ToolCallRefused

        if isinstance(event, ToolCallRefused):
            status, seconds, body = "refused", "", event.message
        else:
            item.setText(1, json.dumps(event.arguments, ensure_ascii=False))
            status, seconds, body = ("ok" if event.ok else "error"), _duration(event.seconds), event.content
        item.setText(2, status)
        item.setText(3, seconds)
        excerpt = body if len(body) <= EXCERPT_CHARS else body[:EXCERPT_CHARS] + "\n…"
        child = QTreeWidgetItem([excerpt])
        child.setFirstColumnSpanned(True)
        child.setToolTip(0, excerpt)
        item.takeChildren()
        item.addChild(child)
        child.setFirstColumnSpanned(True)

    def rows(self) -> list[tuple[str, str, str]]:
        """(name, arguments, status) of each call, for tests and the smoke JSON."""
        return [(self.topLevelItem(i).text(0), self.topLevelItem(i).text(1),
                 self.topLevelItem(i).text(2)) for i in range(self.topLevelItemCount())]


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"
