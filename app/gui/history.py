"""Past questions of the workspace; choosing one shows its answer and tool activity again."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from app.errors import BurrowError
from app.gui.chat_view import ChatTurn, ChatView
from app.gui.widgets import ActivityPanel
from app.harness.events import ToolCallCompleted, ToolCallProposed, ToolCallRefused
from app.values import LineSpan


class HistoryPanel(QListWidget):
    runChosen = Signal(str)  # run id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Past questions")
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.itemActivated.connect(self._on_self_itemActivated)
        self.itemClicked.connect(self._on_self_itemActivated)

    def load(self, controller, workspace: Path) -> None:
        """List the workspace's runs, newest first; a broken store shows as empty."""
        self.clear()
        try:
            runs = controller.list_runs(workspace)
        except (BurrowError, OSError):
            runs = []
        for run in runs:
            item = QListWidgetItem(f"{run.question}\n{run.started_at[:16].replace('T', ' ')} · "
                                   f"{run.stop_reason or 'unfinished'}")
            item.setData(Qt.ItemDataRole.UserRole, run.id)
            item.setToolTip(run.answer_excerpt or run.question)
            self.addItem(item)

    def run_ids(self) -> list[str]:
        return [self.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.count())]

    def _on_self_itemActivated(self, item: QListWidgetItem) -> None:
        self.runChosen.emit(item.data(Qt.ItemDataRole.UserRole))


def replay_record(record, chat: ChatView, activity: ActivityPanel) -> None:
    """Show a saved RunRecord as if it had just run: its answer, citations and tool calls."""
    citations = tuple(LineSpan(**c) for c in record.citations)
    note = "" if record.stop_reason == "answered" else (record.stop_message or "Stopped before an answer.")
    chat.show_turns([ChatTurn(record.question, record.answer, citations, note.strip(), True)])
    activity.clear_calls()
    for event in record.run_events():
        if isinstance(event, ToolCallProposed):
            activity.add_proposed(event)
        elif isinstance(event, (ToolCallCompleted, ToolCallRefused)):
            activity.add_finished(event)
